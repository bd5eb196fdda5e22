"""Coalescing: the 32-byte sectors and 128-byte lines one warp-wide access touches.

A lane accessing `size` bytes at `addr` touches every sector from addr // 32 to
(addr + size - 1) // 32, so vectors (v2/v4/v8) and misaligned addresses are covered by the same
rule. All warps of a batch are handled at once: lanes' sectors are sorted per warp (row-wise
sort) and repeated ones dropped.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SECTOR = 32
LINE = 128
_NONE = np.uint64(np.iinfo(np.uint64).max)  # sorts after every real sector


@dataclass(frozen=True)
class Coalesced:
    """The sectors of a batch of warp accesses, grouped by warp (CSR layout).

    sectors   uint64 sector base addresses (bytes), ascending within each warp;
    warp      the warp (row) each sector belongs to;
    offsets   warp i owns sectors[offsets[i]:offsets[i+1]];
    n_sectors, n_lines (distinct 128-B lines), requests (1 per warp with an active lane),
    bytes     bytes the active lanes asked for (to compare with n_sectors * 32).
    """

    sectors: np.ndarray
    warp: np.ndarray
    offsets: np.ndarray
    n_sectors: np.ndarray
    n_lines: np.ndarray
    requests: np.ndarray
    bytes: np.ndarray

    @property
    def n_warps(self) -> int:
        return len(self.n_sectors)

    def of_warp(self, i: int) -> np.ndarray:
        return self.sectors[self.offsets[i]:self.offsets[i + 1]]


def _as_batch(addresses, active):
    addr = np.asarray(addresses, dtype=np.uint64)
    if addr.ndim == 1:
        addr = addr[None, :]
    act = np.ones(addr.shape, bool) if active is None else np.asarray(active, dtype=bool)
    if act.ndim == 1:
        act = act[None, :]
    if act.shape != addr.shape:
        raise ValueError(f"coalesce: active mask shape {act.shape} != addresses shape {addr.shape}")
    return addr, act


def lane_sectors(addr: np.ndarray, act: np.ndarray, size: int, sector: int = SECTOR) -> np.ndarray:
    """(warps, lanes * j) sector indices touched by each lane, _NONE where nothing is touched;
    j = how many sectors the widest lane access spans (1 when none straddles a boundary)."""
    if size < 1:
        raise ValueError(f"access size must be at least 1 byte, got {size}")
    shift = np.uint64(sector.bit_length() - 1)
    first = addr >> shift
    last = (addr + np.uint64(size - 1)) >> shift
    cols = [np.where(act, first, _NONE)]
    for j in range(1, (size + sector - 2) // sector + 1):
        nxt = first + np.uint64(j)
        ok = act & (nxt <= last)
        if not ok.any():
            break
        cols.append(np.where(ok, nxt, _NONE))
    return cols[0] if len(cols) == 1 else np.concatenate(cols, axis=1)


def sorted_unique_rows(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise sorted keys and the mask of each row's first occurrences (sentinel excluded)."""
    s = np.sort(keys, axis=1)
    new = np.ones(s.shape, bool)
    new[:, 1:] = s[:, 1:] != s[:, :-1]
    new &= s != _NONE
    return s, new


def coalesce(addresses, active, size: int) -> Coalesced:
    """Sectors and lines of each warp's access; addresses/active are (warps, 32) (or (32,))."""
    addr, act = _as_batch(addresses, active)
    s, new = sorted_unique_rows(lane_sectors(addr, act, size))
    n_sectors = new.sum(axis=1)
    lines = s >> np.uint64(2)
    new_line = new.copy()
    new_line[:, 1:] &= lines[:, 1:] != lines[:, :-1]
    rows, _ = np.nonzero(new)
    offsets = np.zeros(len(n_sectors) + 1, np.int64)
    np.cumsum(n_sectors, out=offsets[1:])
    return Coalesced(
        sectors=s[new] << np.uint64(5),
        warp=rows,
        offsets=offsets,
        n_sectors=n_sectors,
        n_lines=new_line.sum(axis=1),
        requests=act.any(axis=1).astype(np.int64),
        bytes=act.sum(axis=1) * size,
    )


def from_sectors(sector_addrs, warp=None, n_warps: int | None = None) -> Coalesced:
    """A Coalesced from explicit sector addresses (each belonging to `warp`, default one warp);
    for callers that already know the sectors (prefetches, bulk copies)."""
    sec = (np.asarray(sector_addrs, dtype=np.uint64) >> np.uint64(5))
    w = np.zeros(len(sec), np.int64) if warp is None else np.asarray(warp, dtype=np.int64)
    n = int(n_warps if n_warps is not None else (w.max() + 1 if len(w) else 1))
    order = np.lexsort((sec, w))
    sec, w = sec[order], w[order]
    keep = np.ones(len(sec), bool)
    keep[1:] = (sec[1:] != sec[:-1]) | (w[1:] != w[:-1])
    sec, w = sec[keep], w[keep]
    n_sectors = np.bincount(w, minlength=n)
    new_line = np.ones(len(sec), bool)
    new_line[1:] = ((sec[1:] >> np.uint64(2)) != (sec[:-1] >> np.uint64(2))) | (w[1:] != w[:-1])
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(n_sectors, out=offsets[1:])
    return Coalesced(
        sectors=sec << np.uint64(5), warp=w, offsets=offsets, n_sectors=n_sectors,
        n_lines=np.bincount(w[new_line], minlength=n), requests=(n_sectors > 0).astype(np.int64),
        bytes=n_sectors * SECTOR,
    )
