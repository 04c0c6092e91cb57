"""Debian's PyTorch on pthreadpool (issue 3): XNNPACK ops (torch.ops.prepacked linear and conv2d)
and QNNPACK ops (quantized Linear and Conv2d, engine 'qnnpack') across torch.set_num_threads
changes. Prints one line per step, "<threads> <sha256 prefix of every output's bytes>", for
tests/process/torch_driver.py to compare with and without the shim. Exits 77 when torch (or one
of the two backends) is not available to this interpreter.

libtorch_cpu creates its pthreadpool lazily and re-creates it on every set_num_threads (the new
one before the old is destroyed); QNNPACK uses the legacy pthreadpool_compute_* API, XNNPACK the
parallelize_* functions (2d_tile_2d, 3d_tile_2d, ...).
"""
import hashlib
import sys

SKIP = 77


def torch_and_inputs():
    """torch, set up for both backends (seed 0, engine qnnpack), and the inputs of a linear
    (w, b, x) and a conv2d (cw, cb, cx) layer; exits 77 when torch or a backend is missing.
    Shared with fork_multiprocessing.py."""
    try:
        import torch
    except Exception as e:  # noqa: BLE001 - any import failure means "not available here"
        print(f"torch not importable: {e}", file=sys.stderr)
        sys.exit(SKIP)
    if "qnnpack" not in torch.backends.quantized.supported_engines or not torch._C._is_xnnpack_enabled():
        print("torch without QNNPACK or XNNPACK", file=sys.stderr)
        sys.exit(SKIP)
    torch.manual_seed(0)
    torch.backends.quantized.engine = "qnnpack"
    linear = (torch.randn(64, 96), torch.randn(64), torch.randn(32, 96))
    conv = (torch.randn(16, 8, 3, 3), torch.randn(16), torch.randn(2, 8, 20, 20))
    return torch, linear, conv


def main():
    torch, (w, b, x), (cw, cb, cx) = torch_and_inputs()

    # XNNPACK (prepacked ops)
    linear = torch.ops.prepacked.linear_clamp_prepack(w, b)
    conv = torch.ops.prepacked.conv2d_clamp_prepack(cw, cb, [1, 1], [1, 1], [1, 1], 1)

    # QNNPACK (quantized modules)
    qlinear = torch.ao.nn.quantized.Linear(96, 64)
    qlinear.set_weight_bias(torch.quantize_per_tensor(w, 0.02, 0, torch.qint8), b)
    qlinear.scale, qlinear.zero_point = 0.1, 128
    qconv = torch.ao.nn.quantized.Conv2d(8, 16, 3, padding=1)
    qconv.set_weight_bias(torch.quantize_per_tensor(cw, 0.02, 0, torch.qint8), cb)
    qconv.scale, qconv.zero_point = 0.1, 128

    # 3 asks for more threads than a 2-CPU budget grants.
    for threads in (2, 1, 3, 2):
        torch.set_num_threads(threads)
        h = hashlib.sha256()
        for _ in range(3):
            h.update(torch.ops.prepacked.linear_clamp_run(x, linear).numpy().tobytes())
            h.update(torch.ops.prepacked.conv2d_clamp_run(cx, conv).numpy().tobytes())
            h.update(qlinear(torch.quantize_per_tensor(x, 0.05, 128, torch.quint8)).int_repr().numpy().tobytes())
            h.update(qconv(torch.quantize_per_tensor(cx, 0.05, 128, torch.quint8)).int_repr().numpy().tobytes())
        print(threads, h.hexdigest()[:32], flush=True)


if __name__ == "__main__":
    main()
