"""Small ops of the two surfaces PyTorch uses, alone and alternating, each op timed (issue 34,
point 2): an XNNPACK linear (torch.ops.prepacked.linear_clamp_run, 64x256 by 128x256:
pthreadpool) and an aten op (gelu then sum on 1x16x64x64: OpenMP).

usage: torch_alternating.py [ITERS [THREADS]]   (1000, 2)

Prints one line: the wall time of each loop (XNNPACK alone, aten alone, alternating), each op's
median time in each, and the alternating loop's time over the sum of the two alone (the ratio).
Run it at THREADS=1 without the shim for the floor: the two ops evict each other's data from
the caches, so alternating costs more than the parts even with no pool at all."""
import statistics
import sys
import time

import torch

iters = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
torch.set_num_threads(int(sys.argv[2]) if len(sys.argv) > 2 else 2)
torch.manual_seed(0)
lin = torch.ops.prepacked.linear_clamp_prepack(torch.randn(128, 256), torch.randn(128))
xa = torch.randn(64, 256)
xb = torch.randn(1, 16, 64, 64)


def xnnpack():
    return torch.ops.prepacked.linear_clamp_run(xa, lin)


def aten():
    return torch.nn.functional.gelu(xb).sum()


def loop(ops):
    times = {f.__name__: [] for f in ops}
    t0 = time.perf_counter()
    for _ in range(iters):
        for f in ops:
            s = time.perf_counter()
            f()
            times[f.__name__].append(time.perf_counter() - s)
    return time.perf_counter() - t0, {k: statistics.median(v) * 1e6 for k, v in times.items()}


for f in (xnnpack, aten):  # first calls: pools started, weights packed
    f()
a_t, a_m = loop([xnnpack])
b_t, b_m = loop([aten])
c_t, c_m = loop([xnnpack, aten])
print(f"threads={torch.get_num_threads()} xnnpack_alone_ms={a_t * 1e3:.0f} "
      f"(op {a_m['xnnpack']:.1f} us) aten_alone_ms={b_t * 1e3:.0f} (op {b_m['aten']:.1f} us) "
      f"alternating_ms={c_t * 1e3:.0f} (ops {c_m['xnnpack']:.1f} and {c_m['aten']:.1f} us) "
      f"ratio={c_t / (a_t + b_t):.2f}")
