"""Shared-memory bank conflicts: wavefronts per warp access.

Shared memory is 32 banks of 4-byte words; word w lives in bank w % 32. One wavefront serves at
most one distinct word per bank, so a group of lanes needs as many wavefronts as its most
loaded bank has distinct words (lanes reading the same word share it: broadcast).
The hardware serves up to 256 requested bytes together (measured on the H200, see
tests/timing_memory/h200_counters.json): accesses of up to 8 bytes as one group of 32 lanes,
16-byte accesses by half-warp (32-byte ones by quarter-warp, extrapolated); a group with an
active lane costs at least one wavefront, and a warp the sum over its groups. So an 8-byte
broadcast is 1 wavefront, a 16-byte broadcast 2, unit-stride 8 B 2 and 16 B 4.

ncu's "ideal" wavefronts are one per 128-B group of lanes with an active lane (32 lanes for
<= 4 B, 16 for 8 B, 8 for 16 B); bank conflicts = wavefronts - ideal, at least 0.
"""
from __future__ import annotations

import numpy as np

from .coalesce import _NONE, _as_batch, lane_sectors, sorted_unique_rows

BANKS = 32
WORD = 4


def lanes_per_phase(size: int, warp_size: int = 32) -> int:
    """Lanes of one ideal (128-byte) wavefront: 32 banks x 4 B."""
    words = max(1, -(-size // WORD))
    return max(1, warp_size // words)


def lanes_per_group(size: int, warp_size: int = 32) -> int:
    """Lanes the hardware serves together: at most 256 requested bytes."""
    return max(1, min(warp_size, 256 // max(size, WORD)))


def bank_conflicts(addresses, active, size: int, group: int = 0) -> np.ndarray:
    """Wavefronts each warp's shared-memory access needs (0 for a warp with no active lane).

    addresses, active: (warps, 32) byte addresses in the shared window and lane mask. `group`:
    lanes served together, if not the default for `size` (LDSM / STSM: 8, one 8x8 matrix of
    16-byte rows per group; micro2 `wmma` thr: a transposed A tile whose two matrices of a
    half-warp fall on different banks still costs each matrix's own wavefronts).
    """
    return _phase_wavefronts(addresses, active, size, group).sum(axis=1)


def ideal_wavefronts(active, size: int) -> np.ndarray:
    """Per warp, the wavefronts a conflict-free access needs (ncu's ideal)."""
    act = np.asarray(active, dtype=bool)
    if act.ndim == 1:
        act = act[None, :]
    per = lanes_per_phase(size, act.shape[1])
    groups = -(-act.shape[1] // per)
    act = np.pad(act, ((0, 0), (0, groups * per - act.shape[1])))
    return act.reshape(act.shape[0], groups, per).any(axis=2).sum(axis=1)


def _phase_wavefronts(addresses, active, size: int, group: int = 0) -> np.ndarray:
    """(warps, groups) wavefronts of each lane group (0 for a group with no active lane)."""
    addr, act = _as_batch(addresses, active)
    n_warps, n_lanes = addr.shape
    per = min(group, n_lanes) if group else lanes_per_group(size, n_lanes)
    phases = -(-n_lanes // per)
    pad = phases * per - n_lanes
    if pad:
        addr = np.pad(addr, ((0, 0), (0, pad)))
        act = np.pad(act, ((0, 0), (0, pad)))
    # One row per (warp, group): the 4-byte words its lanes touch.
    words = lane_sectors(addr.reshape(-1, per), act.reshape(-1, per), size, sector=WORD)
    s, new = sorted_unique_rows(words)
    rows, _ = np.nonzero(new)
    bank = (s[new] & np.uint64(BANKS - 1)).astype(np.int64)
    load = np.bincount(rows * BANKS + bank, minlength=n_warps * phases * BANKS)
    per_phase = load.reshape(n_warps * phases, BANKS).max(axis=1)
    return per_phase.reshape(n_warps, phases)


def same_address_multiplicity(addresses, active, size: int) -> np.ndarray:
    """Per warp, the largest number of active lanes hitting one same element (atomics
    serialize on it); 0 for a warp with no active lane."""
    addr, act = _as_batch(addresses, active)
    key = np.where(act, addr // np.uint64(max(1, size)), _NONE)
    s = np.sort(key, axis=1)
    n, m = s.shape
    # Run lengths of equal keys along each row.
    start = np.ones(s.shape, bool)
    start[:, 1:] = s[:, 1:] != s[:, :-1]
    idx = np.arange(m)[None, :].repeat(n, 0)
    run_start = np.maximum.accumulate(np.where(start, idx, 0), axis=1)
    run_len = idx - run_start + 1
    run_len = np.where(s == _NONE, 0, run_len)
    return run_len.max(axis=1)


def distinct_addresses(addresses, active, size: int) -> np.ndarray:
    """Per warp, the number of distinct `size`-aligned elements its active lanes read (the
    constant cache serves one per pass)."""
    addr, act = _as_batch(addresses, active)
    key = np.where(act, addr // np.uint64(max(1, size)), _NONE)
    _, new = sorted_unique_rows(key)
    return new.sum(axis=1)
