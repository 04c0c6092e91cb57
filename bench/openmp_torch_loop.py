"""The PyTorch mixed loop of issue 18 (bench/openmp_bench.sh): per iteration one XNNPACK op
(torch.ops.prepacked.linear_clamp_run: pthreadpool) and one aten elementwise op on a 1x16x64x64
tensor (aten parallel_for: OpenMP). Usage: openmp_torch_loop.py THREADS ITERS both|xnnpack|aten.
Prints the wall time and a digest of the results (equal digests: bitwise-identical results)."""
import hashlib, sys, time
import torch
torch.set_num_threads(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
iters = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
mode = sys.argv[3] if len(sys.argv) > 3 else "both"
torch.manual_seed(0)
w = torch.randn(64, 64); b = torch.randn(64)
lin = torch.ops.prepacked.linear_clamp_prepack(w, b)
x = torch.randn(1, 16, 64, 64)
h = hashlib.sha256()
t0 = time.perf_counter()
for i in range(iters):
    if mode in ("both", "xnnpack"):
        y = torch.ops.prepacked.linear_clamp_run(x, lin)
    if mode in ("both", "aten"):
        z = torch.sigmoid(x) * 1.5 + x
h.update((y if mode != "aten" else z).numpy().tobytes())
if mode == "both": h.update(z.numpy().tobytes())
dt = time.perf_counter() - t0
print(f"{mode} {dt:.3f}s digest={h.hexdigest()[:16]} threads={torch.get_num_threads()}")
