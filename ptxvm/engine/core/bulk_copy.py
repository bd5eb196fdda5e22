"""Large copies between host arrays and device memory on several threads.

A launch's argument copies (host array -> device memory before, device memory -> host array
after) are serial work in the launching process while its workers wait. One thread copies at
what one core's memory path allows: ~19 GB/s on a 2-core AMD EPYC VM, but ~4-6 GB/s on the
16-core Xeon of the GPU machine, where 8 threads copy 64 MiB 5x faster (15.8 -> 3.2 ms into fresh
pages; benchmarks/results/memcpy_threads_16cores.txt). NumPy's copy releases the GIL, so threads
suffice. A copy of at least MIN_BYTES uses half the cores this process may run on, at most 8
(PTXVM_COPY_THREADS overrides); on 2 cores that is one thread (two gained nothing reliable on
the 2-core VM: memcpy_threads_2cores.txt; benchmarks/bench_copy_threads.py measures both).
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Optional

import numpy as np

MIN_BYTES = 8 << 20
MAX_THREADS = 8
_PAGE = 4096
_executor: Optional[ThreadPoolExecutor] = None
_executor_owner = -1  # the pid that made it (a forked child makes its own)
_executor_threads = 0


def copy_threads() -> int:
    env = os.environ.get("PTXVM_COPY_THREADS", "").strip()
    if env.isdigit():
        return max(1, int(env))
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return max(1, min(MAX_THREADS, cores // 2))


def copy(dst: np.ndarray, src: np.ndarray) -> None:
    """dst[...] = src for two C-contiguous byte arrays (np.uint8, one dimension, equal size)."""
    n = dst.size
    threads = copy_threads() if n >= MIN_BYTES else 1
    if threads <= 1:
        dst[...] = src
        return
    step = -(-n // threads // _PAGE) * _PAGE
    cuts = [(lo, min(n, lo + step)) for lo in range(0, n, step)]
    list(_pool(threads).map(lambda c: np.copyto(dst[c[0]:c[1]], src[c[0]:c[1]]), cuts))


def _pool(threads: int) -> ThreadPoolExecutor:
    global _executor, _executor_owner, _executor_threads
    if _executor is None or _executor_owner != os.getpid() or _executor_threads < threads:
        if _executor is not None and _executor_owner == os.getpid():
            _executor.shutdown(wait=False)  # (more threads wanted: PTXVM_COPY_THREADS changed)
        _executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="ptxvm-copy")
        _executor_owner, _executor_threads = os.getpid(), threads
    return _executor
