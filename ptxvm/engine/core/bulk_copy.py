"""Large copies between host arrays and device memory on several threads.

A launch's argument copies (host array -> device memory before, device memory -> host array
after) are serial work in the launching process while its workers wait. One thread copies at
what one core's memory path allows, and first touches of a fresh host array's pages (a new
output array) fault one page at a time: on the 16-core Xeon of the GPU machine 8 threads copy
64 MiB 5x faster than one (15.8 -> 3.2 ms into fresh pages; 16 threads 3.5 ms), and on the
2-core VM 2 threads copy into fresh pages in 5.3 ms against 9.4 (touched pages: 4.5 ms either
way); benchmarks/bench_copy_threads.py, results/memcpy_threads_{16,2}cores.txt. NumPy's copy
releases the GIL, so threads suffice. A copy of at least MIN_BYTES uses as many threads as this
process may use (ptxvm.cores: its CPU affinity, PTXVM_THREADS), at most 8 (PTXVM_COPY_THREADS overrides).
"""
from __future__ import annotations

import os

import numpy as np

from ... import cores

MIN_BYTES = 8 << 20
MAX_THREADS = 8
_PAGE = 4096


def copy_threads() -> int:
    env = os.environ.get("PTXVM_COPY_THREADS", "").strip()
    if env.isdigit():
        return max(1, int(env))
    return min(MAX_THREADS, cores.usable())


def copy(dst: np.ndarray, src: np.ndarray) -> None:
    """dst[...] = src for two C-contiguous byte arrays (np.uint8, one dimension, equal size)."""
    n = dst.size
    threads = copy_threads() if n >= MIN_BYTES else 1
    if threads <= 1:
        dst[...] = src
        return
    step = -(-n // threads // _PAGE) * _PAGE
    cuts = [(lo, min(n, lo + step)) for lo in range(0, n, step)]
    list(cores.pool(threads).map(lambda c: np.copyto(dst[c[0]:c[1]], src[c[0]:c[1]]), cuts))
