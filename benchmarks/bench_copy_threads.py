"""Copy throughput of 64 MiB with 1-16 threads (NumPy copyto, which releases the GIL), into fresh
and into touched pages: what ptxvm/engine/core/bulk_copy.py bases its thread count on.

    python benchmarks/bench_copy_threads.py
"""
import numpy as np, time, threading
a = np.random.rand(16 << 20).astype(np.float32)
for threads in (1, 2, 4, 8, 16):
    best = [9, 9]
    for _ in range(5):
        b = np.empty_like(a)  # fresh pages (faults) like a fresh host array
        h = -(-len(a) // threads)
        for j, dst in enumerate((b, b)):
            t = time.perf_counter()
            th = [threading.Thread(target=np.copyto, args=(dst[i * h:(i + 1) * h], a[i * h:(i + 1) * h])) for i in range(threads)]
            [x.start() for x in th]; [x.join() for x in th]
            best[j] = min(best[j], time.perf_counter() - t)
    print(f"{threads:2d} threads: 64 MiB copy {best[0]*1e3:.1f} ms into fresh pages, {best[1]*1e3:.1f} ms into touched pages")
