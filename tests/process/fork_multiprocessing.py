"""Python multiprocessing with the fork start method over pool users, under the preload
(issue 9, point 1; docs/design.md "Fork"). Prints key=value lines for core_driver.py.

usage: fork_multiprocessing.py ext     (PYTHONPATH holds the fixture extensions ext_a and ext_b)
       fork_multiprocessing.py torch   (an interpreter that imports Debian's torch; exit 77 if not)

The parent uses the pool first; then, while another parent thread keeps making parallel calls,
a fork-start-method Pool whose workers are replaced every 2 tasks (so it forks again and again
while the parent thread is inside calls) runs tasks that use the pool in the children. A hang
is caught by the result timeout (and by the driver's). Every child result must equal the
parent's: ext checksums against the expected values, torch outputs bitwise against the parent's.
"""
import hashlib
import multiprocessing as mp
import sys
import threading

TASKS = 24
mode = sys.argv[1] if len(sys.argv) > 1 else "ext"

if mode == "ext":
    import ext_a
    import ext_b

    def compute(i):
        m = ext_a if i % 2 == 0 else ext_b
        got = m.work(3, 64, 500) + m.work_run(2, 64, 500)
        return got, m.expected(3 * 64) + m.expected(2 * 64)

    def background():
        return ext_a.work(1, 64, 500) == ext_a.expected(64)

elif mode == "torch":
    from torch_workload import torch_and_inputs
    torch, (W, B, X), (CW, CB, CX) = torch_and_inputs()  # exits 77 without torch

    def outputs():
        """XNNPACK (prepacked linear, conv2d) and QNNPACK (quantized Linear) outputs, hashed."""
        linear = torch.ops.prepacked.linear_clamp_prepack(W, B)
        conv = torch.ops.prepacked.conv2d_clamp_prepack(CW, CB, [1, 1], [1, 1], [1, 1], 1)
        qlinear = torch.ao.nn.quantized.Linear(96, 64)
        qlinear.set_weight_bias(torch.quantize_per_tensor(W, 0.02, 0, torch.qint8), B)
        qlinear.scale, qlinear.zero_point = 0.1, 128
        h = hashlib.sha256()
        h.update(torch.ops.prepacked.linear_clamp_run(X, linear).numpy().tobytes())
        h.update(torch.ops.prepacked.conv2d_clamp_run(CX, conv).numpy().tobytes())
        h.update(qlinear(torch.quantize_per_tensor(X, 0.05, 64, torch.quint8)).int_repr().numpy().tobytes())
        return h.hexdigest()

    torch.set_num_threads(2)
    REFERENCE = outputs()  # the parent uses the pool before any fork

    def compute(i):
        torch.set_num_threads(1 + i % 2)  # the child re-creates its pthreadpool, then uses it
        return outputs(), REFERENCE

    def background():
        return outputs() == REFERENCE

else:
    sys.exit(f"fork_multiprocessing: unknown mode {mode!r}")


def main():
    background()  # use the pool in the parent first
    stop = threading.Event()
    bad = []

    def loop():
        while not stop.is_set():
            if not background():
                bad.append(1)

    t = threading.Thread(target=loop)
    t.start()
    ctx = mp.get_context("fork")
    try:
        with ctx.Pool(2, maxtasksperchild=2) as pool:
            results = pool.map_async(compute, range(TASKS), chunksize=1).get(timeout=120)
    finally:
        stop.set()
        t.join()
    correct = sum(1 for got, want in results if got == want)
    print(f"mode={mode}")
    print(f"tasks={len(results)}")
    print(f"correct={correct}")
    print(f"parent_wrong={len(bad)}")
    print("status=" + ("ok" if correct == TASKS and not bad else "fail"))


if __name__ == "__main__":
    main()
