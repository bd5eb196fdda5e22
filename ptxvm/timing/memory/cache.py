"""A sectored, set-associative cache with LRU replacement and eviction priorities.

State is a handful of (sets, ways) arrays: the line tag, a bit mask of valid sectors, a bit
mask of dirty sectors, the eviction priority class and the time of last use. The victim of a
set is its invalid way if any, else the way with the lowest (priority class, last use):
evict_first lines go before evict_normal ones, which go before evict_last ones, LRU within a
class.

An access is a sequence of sector addresses, processed with exact sequential LRU semantics but
vectorized: consecutive sectors of one line become one line operation (a sector mask), and the
operations are processed in rounds where round r holds the r-th operation of every set; the
operations of one round touch distinct sets, so a round is a few whole-array NumPy steps.

`partitions` lays several independent caches (one per SM for L1) side by side: partition p owns
sets [p * n_sets, (p + 1) * n_sets).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .ops import CacheOp, EvictPriority

FIRST, NORMAL, LAST = 0, 1, 2
_KEEP = -1
_POP8 = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)
_HASH = np.uint64(0x9E3779B97F4A7C15)


@dataclass(frozen=True)
class _Mode:
    """How one access treats the cache (derived from the level, op and priority)."""

    lookup: bool = True
    allocate: bool = True
    invalidate: bool = False
    mark_dirty: bool = False
    fill_prio: int = NORMAL
    hit_prio: int = NORMAL  # _KEEP: a hit leaves the line's priority as it was


class SectoredCache:
    """level "L1": write-through without write-allocate, .cg bypasses, .cv drops the line;
    level "L2": write-back with write-allocate (partial sector writes need no fetch).
    hashed: set index from a multiplicative hash of the line address (the L2 spreads lines over
    its slices with a hash); otherwise line % n_sets."""

    def __init__(self, size_bytes: int, line: int = 128, sector: int = 32, assoc: int = 4,
                 policy: str = "lru", *, partitions: int = 1, level: str = "L2",
                 hashed: bool = False):
        if policy != "lru":
            raise ValueError(f"SectoredCache: unsupported replacement policy {policy!r} (only 'lru')")
        if level not in ("L1", "L2"):
            raise ValueError(f"SectoredCache: level must be 'L1' or 'L2', got {level!r}")
        if line % sector or line // sector > 8 or line & (line - 1) or sector & (sector - 1):
            raise ValueError(f"SectoredCache: line {line} must be 1..8 power-of-two sectors of {sector}")
        if assoc < 1 or partitions < 1:
            raise ValueError("SectoredCache: assoc and partitions must be positive")
        self.line, self.sector, self.assoc, self.level = line, sector, assoc, level
        self.n_sets = max(0, int(size_bytes) // line // assoc)
        self.size_bytes = self.n_sets * assoc * line
        self.partitions = partitions
        self.hashed = hashed
        self._line_shift = np.uint64(line.bit_length() - 1)
        self._sector_shift = np.uint64(sector.bit_length() - 1)
        self._spl = line // sector
        shape = (partitions * self.n_sets, assoc)
        self.tags = np.full(shape, -1, np.int64)
        self.valid = np.zeros(shape, np.uint8)
        self.dirty = np.zeros(shape, np.uint8)
        self.prio = np.full(shape, NORMAL, np.int64)
        self.stamp = np.zeros(shape, np.int64)
        self.clock = 0
        self.stats = dict.fromkeys(
            ("read_hits", "read_misses", "write_hits", "write_misses", "evictions",
             "writeback_sectors", "invalidated_sectors"), 0)

    # ---- policy -------------------------------------------------------------------------
    def mode(self, *, write: bool, op: CacheOp, evict: EvictPriority) -> _Mode:
        l1 = self.level == "L1"
        if l1 and op is CacheOp.CG and not write:
            return _Mode(lookup=False, allocate=False)
        if l1 and op is CacheOp.CV:
            return _Mode(allocate=False, invalidate=True)
        streaming = op in (CacheOp.CS, CacheOp.LU)
        fill = FIRST if streaming or evict is EvictPriority.FIRST else (
            LAST if evict is EvictPriority.LAST else NORMAL)
        if evict in (EvictPriority.UNCHANGED, EvictPriority.NO_ALLOCATE):
            hit = _KEEP
        else:
            hit = fill
        allocate = evict is not EvictPriority.NO_ALLOCATE and not (write and l1)
        return _Mode(allocate=allocate, mark_dirty=write and not l1 and op is not CacheOp.WT,
                     fill_prio=fill, hit_prio=hit)

    # ---- public -------------------------------------------------------------------------
    def access(self, sector_addrs, *, write: bool = False, op: CacheOp = CacheOp.CA,
               evict: EvictPriority = EvictPriority.NORMAL, partition=None,
               record: bool = True) -> np.ndarray:
        """Access the sectors in order; returns the hit mask (one bool per sector).
        partition: which partition (SM) each sector goes to (scalar or array).
        record=False: a fill (prefetch) that updates the state but not the hit/miss counts."""
        addrs = np.asarray(sector_addrs, dtype=np.uint64).ravel()
        m = self.mode(write=write, op=op, evict=evict)
        if not m.lookup or self.n_sets == 0 or len(addrs) == 0:
            hits = np.zeros(len(addrs), bool)
        else:
            part = np.broadcast_to(np.asarray(0 if partition is None else partition, np.int64),
                                   addrs.shape)
            hits = self._access(addrs, part, m)
        if record:
            kind = "write" if write else "read"
            n_hit = int(hits.sum())
            self.stats[kind + "_hits"] += n_hit
            self.stats[kind + "_misses"] += len(hits) - n_hit
        return hits

    def contains(self, sector_addrs, partition=None) -> np.ndarray:
        """Whether each sector is present (no state change)."""
        addrs = np.asarray(sector_addrs, dtype=np.uint64).ravel()
        if self.n_sets == 0 or len(addrs) == 0:
            return np.zeros(len(addrs), bool)
        part = np.broadcast_to(np.asarray(0 if partition is None else partition, np.int64), addrs.shape)
        line = (addrs >> self._line_shift).astype(np.int64)
        sets = self._set_index(line, part)
        way_tags = self.tags[sets]
        match = way_tags == line[:, None]
        way = match.argmax(axis=1)
        bit = ((addrs >> self._sector_shift) & np.uint64(self._spl - 1)).astype(np.uint8)
        v = self.valid[sets, way]
        return match.any(axis=1) & (((v >> bit) & 1) == 1)

    def dirty_sectors(self) -> int:
        return int(_POP8[self.dirty].sum())

    def flush(self) -> int:
        """Write back every dirty sector (returns how many) and keep the lines clean."""
        n = self.dirty_sectors()
        self.dirty[:] = 0
        self.stats["writeback_sectors"] += n
        return n

    def invalidate_all(self) -> None:
        self.tags[:] = -1
        self.valid[:] = 0
        self.dirty[:] = 0

    # ---- internals ----------------------------------------------------------------------
    def _set_index(self, line: np.ndarray, part: np.ndarray) -> np.ndarray:
        if self.hashed:
            h = (line.astype(np.uint64) * _HASH) >> np.uint64(24)
            idx = (h % np.uint64(self.n_sets)).astype(np.int64)
        else:
            idx = line % self.n_sets
        return part * self.n_sets + idx

    def _access(self, addrs: np.ndarray, part: np.ndarray, m: _Mode) -> np.ndarray:
        line = (addrs >> self._line_shift).astype(np.int64)
        bit = ((addrs >> self._sector_shift) & np.uint64(self._spl - 1)).astype(np.uint8)
        n = len(addrs)
        # A line operation covers a run of increasing sectors of one line (same partition).
        brk = np.ones(n, bool)
        brk[1:] = (line[1:] != line[:-1]) | (bit[1:] <= bit[:-1]) | (part[1:] != part[:-1])
        starts = np.flatnonzero(brk)
        op_of = np.cumsum(brk) - 1
        op_line = line[starts]
        op_mask = np.bitwise_or.reduceat(np.left_shift(np.uint8(1), bit), starts).astype(np.uint8)
        op_set = self._set_index(op_line, part[starts])
        hit_bits = np.zeros(len(starts), np.uint8)
        for idx in _rounds(op_set):
            hit_bits[idx] = self._round(op_set[idx], op_line[idx], op_mask[idx],
                                        self.clock + idx, m)
        self.clock += len(starts)
        return ((hit_bits[op_of] >> bit) & 1).astype(bool)

    def _round(self, s, t, mask, stamp, m: _Mode) -> np.ndarray:
        way_tags = self.tags[s]
        match = way_tags == t[:, None]
        hit = match.any(axis=1)
        way = match.argmax(axis=1)
        old_valid = np.where(hit, self.valid[s, way], 0).astype(np.uint8)
        hit_bits = old_valid & mask
        if m.invalidate:
            self._drop(s[hit], way[hit], mask[hit])
            return np.zeros(len(s), np.uint8)
        touch = hit.copy()
        if m.allocate and not hit.all():
            miss = ~hit
            way[miss] = self._victims(s[miss], way_tags[miss])
            touch[:] = True
        s, w, mk, st, h = s[touch], way[touch], mask[touch], stamp[touch], hit[touch]
        valid = old_valid[touch] | (mk if m.allocate else np.uint8(0))
        dirty = np.where(h, self.dirty[s, w], 0).astype(np.uint8)
        if m.mark_dirty:
            dirty |= mk
        self.tags[s, w] = t[touch]
        self.valid[s, w] = valid
        self.dirty[s, w] = dirty
        self.stamp[s, w] = st
        if m.hit_prio == _KEEP:
            self.prio[s, w] = np.where(h, self.prio[s, w], m.fill_prio)
        else:
            self.prio[s, w] = np.where(h, m.hit_prio, m.fill_prio)
        return hit_bits

    def _victims(self, s: np.ndarray, way_tags: np.ndarray) -> np.ndarray:
        score = (self.prio[s] << 48) | self.stamp[s]
        score = np.where(way_tags < 0, -1, score)
        vic = score.argmin(axis=1)
        rows = np.arange(len(s))
        evicted = way_tags[rows, vic] >= 0
        self.stats["evictions"] += int(evicted.sum())
        self.stats["writeback_sectors"] += int(_POP8[self.dirty[s, vic][evicted]].sum())
        return vic

    def _drop(self, s, w, mask) -> None:
        v = self.valid[s, w]
        self.stats["invalidated_sectors"] += int(_POP8[v & mask].sum())
        nv = v & ~mask
        self.valid[s, w] = nv
        self.dirty[s, w] &= ~mask
        self.tags[s, w] = np.where(nv == 0, -1, self.tags[s, w])


def _rounds(op_set: np.ndarray):
    """Index arrays, one per round: round r = the r-th operation of each set, in order."""
    n = len(op_set)
    order = np.argsort(op_set, kind="stable")
    ss = op_set[order]
    first = np.ones(n, bool)
    first[1:] = ss[1:] != ss[:-1]
    pos = np.arange(n)
    rank_sorted = pos - np.maximum.accumulate(np.where(first, pos, 0))
    if rank_sorted.max(initial=0) == 0:
        yield pos
        return
    rank = np.empty(n, np.int64)
    rank[order] = rank_sorted
    by_round = np.argsort(rank, kind="stable")
    bounds = np.concatenate(([0], np.cumsum(np.bincount(rank))))
    for r in range(len(bounds) - 1):
        yield by_round[bounds[r]:bounds[r + 1]]
