"""A sectored, set-associative cache with LRU replacement and eviction priorities.

State is a handful of (sets, ways) arrays: the line tag, a bit mask of valid sectors, a bit
mask of dirty sectors and a replacement key = priority class << 48 | time of last use (-1 for
an empty way). The victim of a set is the way with the lowest key: an empty way, else
evict_first lines before evict_normal ones before evict_last ones, LRU within a class.

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
_CLASS = 48  # key = class << _CLASS | stamp
_STAMP = (1 << _CLASS) - 1
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
    its slices with a hash); "xor": the line address's groups of log2(sets) bits XORed together
    (a power-of-two number of sets: each aligned run of `sets` lines fills every set once, and
    lines at a power-of-two stride still spread over all sets); otherwise line % n_sets."""

    def __init__(self, size_bytes: int, line: int = 128, sector: int = 32, assoc: int = 4,
                 policy: str = "lru", *, partitions: int = 1, level: str = "L2",
                 hashed: bool | str = False):
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
        if hashed == "xor" and self.n_sets & (self.n_sets - 1):
            raise ValueError(f"SectoredCache: an XOR-folded index needs a power-of-two number of sets, not {self.n_sets}")
        self._line_shift = np.uint64(line.bit_length() - 1)
        self._sector_shift = np.uint64(sector.bit_length() - 1)
        self._spl = line // sector
        n = partitions * self.n_sets * assoc
        # Flat (set * assoc + way) arrays; the (sets, ways) views below are for reading.
        self._tag = np.full(n, -1, np.int64)
        self._valid = np.zeros(n, np.uint8)
        self._dirty = np.zeros(n, np.uint8)
        self._key = np.full(n, -1, np.int64)
        self.clock = 0
        self._modes: dict = {}
        self.stats = dict.fromkeys(
            ("read_hits", "read_misses", "write_hits", "write_misses", "evictions",
             "writeback_sectors", "invalidated_sectors"), 0)

    @property
    def tags(self) -> np.ndarray:
        return self._tag.reshape(-1, self.assoc)

    @property
    def valid(self) -> np.ndarray:
        return self._valid.reshape(-1, self.assoc)

    @property
    def dirty(self) -> np.ndarray:
        return self._dirty.reshape(-1, self.assoc)

    @property
    def prio(self) -> np.ndarray:
        return np.where(self._key < 0, NORMAL, self._key >> _CLASS).reshape(-1, self.assoc)

    # ---- policy -------------------------------------------------------------------------
    def mode(self, *, write: bool, op: CacheOp, evict: EvictPriority) -> _Mode:
        k = (write, op, evict)
        m = self._modes.get(k)
        if m is None:
            m = self._modes[k] = self._mode(write, op, evict)
        return m

    def _mode(self, write: bool, op: CacheOp, evict: EvictPriority) -> _Mode:
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
        # stores allocate in the L1 too, their sectors valid (a load after a cold st.global hits:
        # docs/hardware-notes.md, memory_counters `st_cold`), except .cg, which caches in L2 only
        allocate = evict is not EvictPriority.NO_ALLOCATE and not (write and l1 and op is CacheOp.CG)
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
            hits = self._access(addrs, self._parts(partition, len(addrs)), m)
        if record:
            kind = "write" if write else "read"
            n_hit = int(np.count_nonzero(hits))
            self.stats[kind + "_hits"] += n_hit
            self.stats[kind + "_misses"] += len(hits) - n_hit
        return hits

    def contains(self, sector_addrs, partition=None) -> np.ndarray:
        """Whether each sector is present (no state change)."""
        addrs = np.asarray(sector_addrs, dtype=np.uint64).ravel()
        if self.n_sets == 0 or len(addrs) == 0:
            return np.zeros(len(addrs), bool)
        line = (addrs >> self._line_shift).astype(np.int64)
        sets = self._set_index(line, self._parts(partition, len(addrs)))
        match = self.tags[sets] == line[:, None]
        fi = sets * self.assoc + match.argmax(axis=1)
        bit = ((addrs >> self._sector_shift) & np.uint64(self._spl - 1)).astype(np.uint8)
        return match.any(axis=1) & (((self._valid[fi] >> bit) & 1) == 1)

    def dirty_sectors(self) -> int:
        return int(_POP8[self._dirty].sum())

    def flush(self) -> int:
        """Write back every dirty sector (returns how many) and keep the lines clean."""
        n = self.dirty_sectors()
        self._dirty[:] = 0
        self.stats["writeback_sectors"] += n
        return n

    def clean_evenly(self, dirty_fraction: float) -> None:
        """Mark all but `dirty_fraction` of the slots clean, spread evenly over sets, ways and ages."""
        slots = np.arange(self._dirty.size)
        keep_clean = 1.0 - float(dirty_fraction)
        self._dirty[np.floor((slots + 1) * keep_clean) > np.floor(slots * keep_clean)] = 0

    def clean_lines_from(self, line: int) -> None:
        """Mark the lines numbered `line` and above clean (dropped from a later write-back)."""
        self._dirty[self._tag >= line] = 0

    def invalidate_all(self) -> None:
        self._tag[:] = -1
        self._valid[:] = 0
        self._dirty[:] = 0
        self._key[:] = -1

    # ---- internals ----------------------------------------------------------------------
    def _parts(self, partition, n: int):
        if partition is None or np.ndim(partition) == 0:
            p = 0 if partition is None else int(partition)
            if not 0 <= p < self.partitions:
                raise ValueError(f"partition {p} out of range 0..{self.partitions - 1}")
            return p
        return np.asarray(partition, np.int64).reshape(n)

    def _set_index(self, line: np.ndarray, part) -> np.ndarray:
        if self.hashed == "xor":
            bits = max(1, self.n_sets.bit_length() - 1)
            x, idx = line.astype(np.int64), np.zeros(line.shape, np.int64)
            while True:  # fold every group of `bits` bits of the line address into the index
                idx ^= x & (self.n_sets - 1)
                x = x >> bits
                if not x.any():
                    break
        elif self.hashed:
            h = (line.astype(np.uint64) * _HASH) >> np.uint64(24)
            idx = (h % np.uint64(self.n_sets)).astype(np.int64)
        else:
            idx = line % self.n_sets
        return idx + part * self.n_sets if np.ndim(part) or part else idx

    def _access(self, addrs: np.ndarray, part, m: _Mode) -> np.ndarray:
        line = (addrs >> self._line_shift).astype(np.int64)
        bit = ((addrs >> self._sector_shift) & np.uint64(self._spl - 1)).astype(np.uint8)
        n = len(addrs)
        # A line operation covers a run of increasing sectors of one line (same partition).
        brk = np.empty(n, bool)
        brk[0] = True
        np.not_equal(line[1:], line[:-1], out=brk[1:])
        brk[1:] |= bit[1:] <= bit[:-1]
        if np.ndim(part):
            brk[1:] |= part[1:] != part[:-1]
        starts = np.flatnonzero(brk)
        op_line = line[starts]
        op_mask = np.bitwise_or.reduceat(np.left_shift(np.uint8(1), bit), starts).astype(np.uint8)
        op_set = self._set_index(op_line, part[starts] if np.ndim(part) else part)
        n_ops = len(starts)
        if n_ops == n:
            op_of = None
        else:
            op_of = np.cumsum(brk) - 1
        rounds = _rounds(op_set)
        if rounds is None:
            hit_bits = self._round(op_set, op_line, op_mask, self.clock + np.arange(n_ops), m)
        else:
            hit_bits = np.empty(n_ops, np.uint8)
            for idx in rounds:
                hit_bits[idx] = self._round(op_set[idx], op_line[idx], op_mask[idx],
                                            self.clock + idx, m)
        self.clock += n_ops
        if op_of is not None:
            hit_bits = hit_bits[op_of]
        return ((hit_bits >> bit) & 1).astype(bool)

    def _round(self, s, t, mask, stamp, m: _Mode) -> np.ndarray:
        a = self.assoc
        base = s * a
        match = self._tag.reshape(-1, a)[s] == t[:, None]
        hit = match.any(axis=1)
        fi = base + match.argmax(axis=1)
        old_valid = self._valid[fi]
        old_valid[~hit] = 0
        hit_bits = old_valid & mask
        if m.invalidate:
            self._drop(fi[hit], mask[hit])
            return np.zeros(len(s), np.uint8)
        all_hit = bool(hit.all())
        if all_hit:
            pass
        elif m.allocate:
            miss = ~hit
            fi[miss] = self._victims(s[miss])
        else:
            fi, t, mask, stamp, old_valid, hit = fi[hit], t[hit], mask[hit], stamp[hit], old_valid[hit], hit[hit]
            all_hit = True
        if m.allocate:
            self._valid[fi] = old_valid | mask
        if not all_hit:
            self._tag[fi] = t
        if m.mark_dirty:
            dirty = self._dirty[fi]
            if not all_hit:
                dirty[~hit] = 0
            self._dirty[fi] = dirty | mask
        elif not all_hit:
            self._dirty[fi[~hit]] = 0
        if m.hit_prio == _KEEP:
            cls = self._key[fi] >> _CLASS
            if not all_hit:
                cls[~hit] = m.fill_prio
        elif all_hit or m.hit_prio == m.fill_prio:
            cls = m.hit_prio
        else:
            cls = np.where(hit, m.hit_prio, m.fill_prio)
        self._key[fi] = stamp | (np.asarray(cls, np.int64) << _CLASS)
        return hit_bits

    def _victims(self, s: np.ndarray) -> np.ndarray:
        a = self.assoc
        vic = s * a + self._key.reshape(-1, a)[s].argmin(axis=1)
        evicted = vic[self._tag[vic] >= 0]
        if len(evicted):
            self.stats["evictions"] += len(evicted)
            self.stats["writeback_sectors"] += int(_POP8[self._dirty[evicted]].sum())
        return vic

    def _drop(self, fi, mask) -> None:
        v = self._valid[fi]
        self.stats["invalidated_sectors"] += int(_POP8[v & mask].sum())
        nv = v & ~mask
        self._valid[fi] = nv
        self._dirty[fi] &= ~mask
        gone = fi[nv == 0]
        self._tag[gone] = -1
        self._key[gone] = -1


def _rounds(op_set: np.ndarray):
    """None when every operation is in a different set (one round); otherwise index arrays,
    one per round: round r = the r-th operation of each set, in order."""
    n = len(op_set)
    if n == 1:
        return None
    # (set, position) keys are unique, so the fast unstable sort keeps positions in order
    order = np.argsort(op_set * n + np.arange(n))
    ss = op_set[order]
    first = np.empty(n, bool)
    first[0] = True
    np.not_equal(ss[1:], ss[:-1], out=first[1:])
    if first.all():
        return None
    pos = np.arange(n)
    rank_sorted = pos - np.maximum.accumulate(np.where(first, pos, 0))
    rank = np.empty(n, np.uint16 if rank_sorted.max() < 2**16 else np.int64)
    rank[order] = rank_sorted
    by_round = np.argsort(rank, kind="stable")  # radix sort for 16-bit keys
    bounds = np.concatenate(([0], np.cumsum(np.bincount(rank))))
    return [by_round[bounds[r]:bounds[r + 1]] for r in range(len(bounds) - 1)]
