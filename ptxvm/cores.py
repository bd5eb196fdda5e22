"""Threads for work that runs without the GIL inside one process: large argument copies (NumPy
releases the GIL) and the compiled tensor-core kernels (numerics/mma_jit.py, `nogil`).

`usable()` is how many this process may run at once: the cores it may run on (its CPU affinity),
at most PTXVM_THREADS when that is set, and 1 while a shard of a parallel launch runs
(`limited(1)`): there the cores are the workers'. One pool of threads per process (a forked
child makes its own).
"""
from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from concurrent.futures import ThreadPoolExecutor, wait
from typing import Callable, Optional

_limit: Optional[int] = None  # set while a shard of a parallel launch runs
_pool: Optional[ThreadPoolExecutor] = None
_pool_owner = -1  # the pid that made it
_pool_threads = 0
_lock = threading.Lock()


def usable() -> int:
    """Threads this process may keep busy at once (at least 1)."""
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        n = os.cpu_count() or 1
    env = os.environ.get("PTXVM_THREADS", "").strip()
    if env.isdigit() and int(env) > 0:
        n = min(n, int(env))
    if _limit is not None:
        n = min(n, _limit)
    return max(1, n)


@contextmanager
def limited(n: int):
    """At most n usable threads while the block runs (a shard of a parallel launch: the other
    cores run the other shards), then the cap as it was."""
    global _limit
    saved = _limit
    _limit = n if saved is None else min(saved, n)
    try:
        yield
    finally:
        _limit = saved


def pool(threads: int) -> ThreadPoolExecutor:
    """This process's thread pool, with at least `threads` threads."""
    global _pool, _pool_owner, _pool_threads
    with _lock:
        if _pool is None or _pool_owner != os.getpid() or _pool_threads < threads:
            if _pool is not None and _pool_owner == os.getpid():
                _pool.shutdown(wait=False)  # (more threads wanted than it has)
            _pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="ptxvm")
            _pool_owner, _pool_threads = os.getpid(), threads
        return _pool


def run_ranges(work: Callable[[int, int], None], n: int, threads: int) -> None:
    """work(lo, hi) for `threads` consecutive ranges covering [0, n), side by side on the pool;
    returns when all are done, raising the first exception any of them raised. Called from
    the pool's own threads, or with one thread, it runs them in this thread."""
    threads = max(1, min(threads, n))
    if threads == 1 or threading.current_thread().name.startswith("ptxvm"):
        work(0, n)
        return
    cuts = [n * k // threads for k in range(threads + 1)]
    futures = [pool(threads).submit(work, cuts[k], cuts[k + 1]) for k in range(threads)]
    wait(futures)  # all of them, even when one fails: none may still write when this returns
    for f in futures:
        f.result()
