"""Debian's PyTorch on OpenMP (issue 18, point 6): aten ops (aten parallel_for and
parallel_reduce, which Debian's build runs on OpenMP: libgomp's GOMP_parallel), oneDNN
convolutions (torch.nn.functional.conv2d, which goes through mkldnn when
torch.backends.mkldnn.is_available(), and aten.mkldnn_convolution called directly) and the
XNNPACK+aten mixed loop of the issue (one torch.ops.prepacked.linear_clamp_run, which goes
through pthreadpool, and one aten elementwise op on a 1x16x64x64 tensor per iteration), at
torch.set_num_threads(1) and (2). Prints one line per op and thread count,
"<threads> <op> <sha256 prefix of the result's bytes>", for tests/process/torch_openmp_driver.py
to compare without the shim, forwarding (POOLSHIM_OPENMP=forward) and native (the default). The sizes are large enough
for aten to split the work (its grain is 32768 elements), and the reductions are float sums whose
bits depend on the team's split, so equal digests mean equal team sizes and iteration splits.
Exits 77 when torch is not importable; prints "skip <what>" for a backend this build lacks."""
import hashlib
import sys

SKIP = 77


def digest(t):
    return hashlib.sha256(t.contiguous().numpy().tobytes()).hexdigest()[:24]


def main():
    try:
        import torch
        import torch.nn.functional as F
    except Exception as e:  # noqa: BLE001 - any import failure means "not available here"
        print(f"torch not importable: {e}", file=sys.stderr)
        sys.exit(SKIP)
    print(f"openmp {torch.backends.openmp.is_available()} mkldnn {torch.backends.mkldnn.is_available()} "
          f"xnnpack {torch._C._is_xnnpack_enabled()}", flush=True)
    torch.manual_seed(0)
    big = torch.randn(1 << 20)
    img = torch.randn(1, 16, 64, 64)
    mat = torch.randn(512, 384)
    cx, cw, cb = torch.randn(2, 16, 40, 40), torch.randn(32, 16, 3, 3), torch.randn(32)
    lw, lb = torch.randn(64, 64), torch.randn(64)
    for threads in (1, 2):
        torch.set_num_threads(threads)
        out = lambda name, t: print(threads, name, digest(t), flush=True)  # noqa: E731
        out("elementwise", torch.sigmoid(img) * 1.5 + img)
        out("exp_tanh", torch.tanh(big).exp())
        out("sum", big.sum().reshape(1))
        out("sum_dim", mat.sum(dim=0))
        out("mean_var", torch.stack([big.mean(), big.var()]))
        out("norm", torch.linalg.vector_norm(big).reshape(1))
        out("softmax", torch.softmax(mat, dim=1))
        out("log_softmax", torch.log_softmax(mat, dim=0))
        out("layer_norm", F.layer_norm(img, img.shape[1:]))
        out("cumsum", torch.cumsum(mat, dim=1))
        out("max_pool", F.max_pool2d(img, 2))
        out("avg_pool", F.avg_pool2d(img, 3, stride=1))
        out("index_select", big.index_select(0, torch.arange(0, 1 << 20, 7)))
        out("sort", torch.sort(big[: 1 << 16]).values)
        out("clamp_where", torch.where(big > 0, big.clamp(max=0.5), big * 0.1))
        if torch.backends.mkldnn.is_available():
            with torch.backends.mkldnn.flags(enabled=True):
                out("conv2d", F.conv2d(cx, cw, cb, padding=1))
                out("conv2d_strided", F.conv2d(cx, cw, cb, stride=2, padding=1, dilation=1))
                out("conv2d_groups", F.conv2d(cx, cw[:, :8].contiguous(), cb, padding=1, groups=2))
            out("mkldnn_convolution",
                torch.ops.aten.mkldnn_convolution(cx, cw, cb, [1, 1], [1, 1], [1, 1], 1))
        else:
            print("skip oneDNN: torch.backends.mkldnn.is_available() is False", flush=True)
        if torch._C._is_xnnpack_enabled():
            lin = torch.ops.prepacked.linear_clamp_prepack(lw, lb)
            h = hashlib.sha256()
            for _ in range(50):
                y = torch.ops.prepacked.linear_clamp_run(img, lin)
                z = torch.sigmoid(img) * 1.5 + img
            h.update(y.numpy().tobytes())
            h.update(z.numpy().tobytes())
            print(threads, "mixed_loop", h.hexdigest()[:24], flush=True)
        else:
            print("skip the mixed loop: no XNNPACK", flush=True)


if __name__ == "__main__":
    main()
