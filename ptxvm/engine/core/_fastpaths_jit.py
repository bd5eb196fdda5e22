"""The Numba kernels of ptxvm.engine.core.fastpaths (imported only when the compiled paths run)."""
from __future__ import annotations

import numpy as np
from numba import njit

_NO_PC = np.iinfo(np.int64).max


@njit(cache=True, nogil=True)
def masked_copy(dst, src, mask):
    """dst[i] = src[i] where mask[i] (mask as uint8 0/1); the compiler makes it masked vector
    stores."""
    for i in range(dst.size):
        if mask[i]:
            dst[i] = src[i]


@njit(cache=True, nogil=True)
def select_keys(status, epoch, pc, mask, runnable):
    """(k, others, count): k the smallest key (epoch << 32 | pc) of a thread whose status is
    `runnable`; mask[i] = 1 for the runnable threads at k's PC, else 0; others the smallest key
    of the runnable threads outside mask (_NO_PC if none); count the threads in mask."""
    n = status.size
    k = _NO_PC
    for i in range(n):
        if status[i] == runnable:
            key = (epoch[i] << 32) | pc[i]
            if key < k:
                k = key
    if k == _NO_PC:
        return k, _NO_PC, 0
    at = k & 0xFFFFFFFF
    others = _NO_PC
    count = 0
    for i in range(n):
        if status[i] == runnable:
            if pc[i] == at:
                mask[i] = 1
                count += 1
                continue
            key = (epoch[i] << 32) | pc[i]
            if key < others:
                others = key
        mask[i] = 0
    return k, others, count


@njit(cache=True, nogil=True)
def count_runs(warp_of, lanes):
    """The number of runs of equal warp_of[lanes] (lanes sorted: the warps they hold)."""
    if lanes.size == 0:
        return 0
    runs = 1
    prev = warp_of[lanes[0]]
    for j in range(1, lanes.size):
        w = warp_of[lanes[j]]
        if w != prev:
            runs += 1
            prev = w
    return runs


@njit(cache=True, nogil=True)
def live_counts(status, warp_of, exited, waiting):
    """(threads whose status is not `exited`, runs of equal warp_of among them, whether a thread's
    status is `waiting`)."""
    live = 0
    runs = 0
    prev = -1
    wait = False
    for i in range(status.size):
        s = status[i]
        if s == exited:
            continue
        if s == waiting:
            wait = True
        w = warp_of[i]
        if live == 0 or w != prev:
            runs += 1
            prev = w
        live += 1
    return live, runs, wait
