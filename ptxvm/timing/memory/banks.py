"""Shared-memory bank conflicts: wavefronts per warp access.

Shared memory is 32 banks of 4-byte words; word w lives in bank w % 32. One wavefront serves at
most one distinct word per bank, so a phase of lanes needs as many wavefronts as its most
loaded bank has distinct words (lanes reading the same word share it: broadcast).
Accesses wider than 4 bytes are split into phases the way the hardware does: 8-byte accesses
by half-warp (lanes 0-15, 16-31), 16-byte by quarter-warp, 32-byte by groups of 4 lanes; each
phase is at least one wavefront when it has an active lane. A warp's cost is the sum over its
phases.
"""
from __future__ import annotations

import numpy as np

from .coalesce import _NONE, _as_batch, lane_sectors, sorted_unique_rows

BANKS = 32
WORD = 4


def lanes_per_phase(size: int, warp_size: int = 32) -> int:
    """Lanes served together: a phase moves at most 128 bytes (32 banks x 4 B)."""
    words = max(1, -(-size // WORD))
    return max(1, warp_size // words)


def bank_conflicts(addresses, active, size: int) -> np.ndarray:
    """Wavefronts each warp's shared-memory access needs (0 for a warp with no active lane).

    addresses, active: (warps, 32) byte addresses in the shared window and lane mask.
    """
    return _phase_wavefronts(addresses, active, size).sum(axis=1)


def _phase_wavefronts(addresses, active, size: int) -> np.ndarray:
    """(warps, phases) wavefronts of each phase (0 for a phase with no active lane)."""
    addr, act = _as_batch(addresses, active)
    n_warps, n_lanes = addr.shape
    per = lanes_per_phase(size, n_lanes)
    phases = -(-n_lanes // per)
    pad = phases * per - n_lanes
    if pad:
        addr = np.pad(addr, ((0, 0), (0, pad)))
        act = np.pad(act, ((0, 0), (0, pad)))
    # One row per (warp, phase): the 4-byte words its lanes touch.
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
