"""Which of this machine's CPUs slow each other down: a pure-Python loop pinned to CPU 0, alone,
beside the same loop pinned to CPU j, and with every CPU busy (Linux: sched_setaffinity).
benchmarks/results/cpu_topology_16cores.txt is its run on the GPU machine's 16 vCPUs.

    python benchmarks/bench_cpu_siblings.py
"""
import multiprocessing as mp
import os
import time


def spin(cpu, q):
    os.sched_setaffinity(0, {cpu})
    t = time.perf_counter()
    x = 0
    for i in range(6_000_000):
        x += i * i
    q.put((cpu, time.perf_counter() - t))


def run(cpus):
    q = mp.Queue()
    ps = [mp.Process(target=spin, args=(c, q)) for c in cpus]
    for p in ps:
        p.start()
    for p in ps:
        p.join()
    return dict(q.get() for _ in cpus)


def main():
    alone = min(run([0])[0] for _ in range(3))
    print(f"CPU 0 alone: {alone:.3f} s")
    for j in range(1, os.cpu_count()):
        t = min(run([0, j])[0] for _ in range(2))
        print(f"CPU 0 beside CPU {j:2d}: {t:.3f} s ({t / alone:.2f}x)")
    full = run(list(range(os.cpu_count())))
    print("all CPUs at once: " + " ".join(f"{full[c] / alone:.2f}" for c in sorted(full)))


if __name__ == "__main__":
    main()
