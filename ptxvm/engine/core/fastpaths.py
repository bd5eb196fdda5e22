"""Compiled (Numba) versions of two whole-array steps of the scheduler's divergent mode, with the
NumPy code they replace as the reference (and the path when ptxvm.jit is off or Numba missing):

* `masked_copy(dst, src, mask)`: a register write of a group run over whole arrays
  (np.copyto(dst, src, where=mask)); NumPy's masked copy branches per element, which costs
  several nanoseconds each on the irregular masks of divergent code, the compiled loop a select.
* `select_group(...)`: the divergent scheduler's choice of the next group (the runnable threads
  at the PC of the smallest (epoch, PC) key), the key of the next group after it and the number
  of warps of the group, in two passes over the threads instead of a dozen NumPy passes.
* `live_counts(status, warp_of)`: after threads exit, the live threads, live warps and whether
  a thread waits at a warp-synchronous instruction, in one pass.

Both give exactly what the NumPy code gives (tests/engine/test_fastpaths.py compares them on
random states); each compiled function is cached on disk (`cache=True`) like ptxvm's others.
"""
from __future__ import annotations

import numpy as np

from ... import jit

RUNNABLE, EXITED, AT_WARP_SYNC = 0, 1, 3      # machine's thread states (machine imports this module)
NO_PC = np.iinfo(np.int64).max                 # machine.NO_PC
_MIN_COMPILED = 4096                           # below this many threads NumPy's overhead is small
_kernels = None


def _compiled():
    """The Numba kernels (compiled on first use), or None when ptxvm.jit is off or Numba missing."""
    global _kernels
    if not jit.enabled():
        return None
    if _kernels is None:
        from . import _fastpaths_jit
        _kernels = _fastpaths_jit
    return _kernels


# ------------------------------------------------------------------------------ masked copy

def masked_copy(dst: np.ndarray, src, mask: np.ndarray) -> None:
    """np.copyto(dst, src, where=mask) (dst a register array, mask a bool array over it)."""
    if dst.size >= _MIN_COMPILED and isinstance(src, np.ndarray) and src.shape == dst.shape \
            and src.dtype == dst.dtype and dst.dtype.kind in "uib" and src.flags.c_contiguous:
        J = _compiled()
        if J is not None:
            if dst.dtype.kind == "b":
                J.masked_copy(dst.view(np.uint8), src.view(np.uint8), mask.view(np.uint8))
            else:
                J.masked_copy(dst, src, mask.view(np.uint8))
            return
    np.copyto(dst, src, where=mask)


# ------------------------------------------------------------------------------ group selection

def select_group(status: np.ndarray, epoch: np.ndarray, pc: np.ndarray, warp_of: np.ndarray, n_live: int):
    """(k, lanes, mask, others, warps): k the smallest (epoch << 32 | pc) key of a runnable
    thread (NO_PC when none is runnable: then the rest is None); lanes / mask the runnable
    threads at k's PC (index array, bool array over the threads); others the smallest key of
    the runnable threads not among them (NO_PC if none); warps the number of warps of lanes."""
    if status.size >= _MIN_COMPILED:
        J = _compiled()
        if J is not None:
            mask = np.empty(status.size, np.bool_)
            k, others, count = J.select_keys(status, epoch, pc, mask.view(np.uint8), RUNNABLE)
            if k == NO_PC:
                return NO_PC, None, None, NO_PC, 0
            lanes = np.flatnonzero(mask)
            return k, lanes, mask, others, J.count_runs(warp_of, lanes)
    return select_group_numpy(status, epoch, pc, warp_of, n_live)


def select_group_numpy(status, epoch, pc, warp_of, n_live):
    """select_group in NumPy (the reference)."""
    runnable = status == RUNNABLE
    key = np.where(runnable, (epoch << 32) | pc, NO_PC)
    k = int(key.min())
    if k == NO_PC:
        return NO_PC, None, None, NO_PC, 0
    at_pc = runnable & (pc == (k & 0xFFFFFFFF))
    lanes = np.flatnonzero(at_pc)
    if lanes.size == n_live:
        others = NO_PC
    else:
        key[at_pc] = NO_PC
        others = int(key.min())
    w = warp_of[lanes]
    warps = int(np.count_nonzero(w[1:] != w[:-1])) + 1 if w.size else 0
    return k, lanes, at_pc, others, warps


# ------------------------------------------------------------------------------ live threads

def live_counts(status: np.ndarray, warp_of: np.ndarray):
    """(live threads, live warps, whether any thread is AT_WARP_SYNC); warps are contiguous runs
    of slots, so the live warps are the runs of equal warp_of among the live threads."""
    if status.size >= _MIN_COMPILED:
        J = _compiled()
        if J is not None:
            return J.live_counts(status, warp_of, EXITED, AT_WARP_SYNC)
    return live_counts_numpy(status, warp_of)


def live_counts_numpy(status, warp_of):
    """live_counts in NumPy (the reference)."""
    live = status != EXITED
    w = warp_of[live]
    return (int(np.count_nonzero(live)), int(np.count_nonzero(w[1:] != w[:-1])) + 1 if w.size else 0,
            bool((status == AT_WARP_SYNC).any()))
