"""Copy throughput of 64 MiB with 1-16 threads (NumPy copyto, which releases the GIL), into fresh
and into touched pages: what ptxvm/engine/core/bulk_copy.py bases its thread count on.
benchmarks/results/memcpy_threads_16cores.txt (the GPU machine) and memcpy_threads_2cores.txt
are its runs.

    python benchmarks/bench_copy_threads.py
"""
import threading
import time

import numpy as np


def copy(dst, src, threads):
    h = -(-len(src) // threads)
    th = [threading.Thread(target=np.copyto, args=(dst[i * h:(i + 1) * h], src[i * h:(i + 1) * h]))
          for i in range(threads)]
    for t in th:
        t.start()
    for t in th:
        t.join()


def main():
    a = np.random.rand(16 << 20).astype(np.float32)
    for threads in (1, 2, 4, 8, 16):
        fresh = touched = 9.0
        for _ in range(5):
            b = np.empty_like(a)  # fresh pages (faults), as a new host array has
            t = time.perf_counter()
            copy(b, a, threads)
            fresh = min(fresh, time.perf_counter() - t)
            t = time.perf_counter()
            copy(b, a, threads)
            touched = min(touched, time.perf_counter() - t)
        print(f"{threads:2d} threads: 64 MiB copy {fresh * 1e3:.1f} ms into fresh pages, "
              f"{touched * 1e3:.1f} ms into touched pages")


if __name__ == "__main__":
    main()
