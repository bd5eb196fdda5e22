"""From the engine's event trace to the SM model's input.

Two passes over `engine.trace.Trace` (the warps of the CTAs one SM runs):

1. `memory_pass`: every memory step, in the engine's order, goes through the memory model
   (ptxvm.timing.memory: coalescing, bank conflicts, L1/L2/DRAM caches, constant cache,
   atomics), vectorized over the step's warps. It yields, per warp-instruction, the level that
   served it (latency), L1 wavefronts, L2 and DRAM sectors.
2. `build_work`: the steps regrouped per warp in program order, with everything the SM loop
   needs per warp-instruction (pipe, issue cycles, latency, registers as small ints, taken
   branches, barriers) as plain lists, plus the instruction statistics of the trace.

This module reads the trace's record types and nothing else of the engine.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Optional

import numpy as np

from ..engine.trace.events import Trace
from ..engine.trace.info import SPACE_CODES, MemInfo
from .atomics import aggregated_pcs
from .uniformity import uldc_pcs
from .atomics import is_float as atomic_is_float
from .atomics import packets as atomic_packets
from .memory import CacheOp, EvictPriority, Policy, Space, coalesce
from .asyncs import BULK_ROLES, bulk_step, copy_write_wavefronts, mbarrier_refs
from .fusion import CONTROL_CLASSES
from .icache import warp_code_lines
from .schedule import block_orders
from .shared_cas import aggregated_shared_pcs, cas_updates, is_cas_loop
from .sm import (DEP_CONST, DEP_EXEC, DEP_MEM, DEP_TEX, MK_ATOMIC, MK_CONST, MK_GLOBAL, MK_NONE, MK_SHARED, MK_STORE,
                 MK_TEX, PartKeys, SmWork)
from .static import PIPE_OF_CLASS, StaticTable  # noqa: F401  (PIPE_OF_CLASS: re-exported)
from .vectorize import load_groups

_CODE_SPACE = {v: k for k, v in SPACE_CODES.items()}
_LANE_BITS = np.uint32(1) << np.arange(32, dtype=np.uint32)


@dataclass
class MemStep:
    """Memory results of one trace step, one entry per warp of the step."""

    mkind: np.ndarray
    latency: np.ndarray
    wavefronts: np.ndarray
    l2_sectors: np.ndarray
    dram_read: np.ndarray
    dram_write: np.ndarray
    dep: np.ndarray
    l2_lines: Optional[np.ndarray] = None  # loads: distinct 128-B lines of the request that go to L2
    l1_waves: Optional[np.ndarray] = None  # loads: L1 data-array wavefronts (bank conflicts, as shared memory)
    keys: Optional[list] = None  # per warp: ((sector, generation), level, dram sectors) of each load sector
    # global atomics, per warp: ((128-B line, packets, float single-word packets), ...); shared
    # atomics that are CAS loops: (most lanes on a word, 128-B passes, ((word, lanes), ...)) (shared_cas.py)
    atom: Optional[list] = None
    shared_atomic: bool = False
    # shared accesses: per warp DSMEM_OWN (the own CTA through the cluster window) or DSMEM_REMOTE
    # (another CTA's shared memory, distributed shared memory), 0 for plain shared; None: none
    dsmem: Optional[np.ndarray] = None
    dsmem_bytes: Optional[np.ndarray] = None  # remote accesses: bytes each warp's request moves
    # ld.const: lines each warp brought from the constant L1.5 or beyond; whether it is a ULDC
    const_fetches: Optional[np.ndarray] = None
    const_uniform: bool = False
    # loads: the dirty sectors their L2 fills evicted (counted in dram_read too): DRAM write-backs
    # that the SM's reads share the bus with (SmSim.dram, `dram_writeback_latency`)
    dram_evicted: Optional[np.ndarray] = None

    @classmethod
    def empty(cls, n: int) -> "MemStep":
        """n warps' results before any access: no memory, no time (DRAM sectors as floats: a
        store's share of the dirty lines evicted is fractional)."""
        return cls(np.zeros(n, np.int8), np.zeros(n), np.zeros(n), np.zeros(n, np.int64), np.zeros(n), np.zeros(n),
                   np.full(n, DEP_EXEC, np.int8))


DSMEM_OWN, DSMEM_REMOTE = 1, 2
_RANK_SHIFT = np.uint64(24)  # engine/core/memory.py CLUSTER_RANK_SHIFT: bits 24+ of a shared address = rank + 1


# how stores cost DRAM write bandwidth in memory_pass (its docstring says each)
WRITE_BACK_NONE, WRITE_BACK_FIRST, WRITE_BACK_EVICTED = "none", "first_write", "evicted"
WRITE_BACKS = (WRITE_BACK_NONE, WRITE_BACK_FIRST, WRITE_BACK_EVICTED)


class Fills:
    """Generations of each sector in the L1, in trace order: a miss starts a new generation and
    every later hit belongs to it. The SM model lets the first warp *in time* that touches a
    generation pay the miss and makes the others wait for that fill (hits under a miss)."""

    def __init__(self, write_back: str = WRITE_BACK_FIRST):
        if write_back not in WRITE_BACKS:
            raise ValueError(f"write_back must be one of {', '.join(WRITE_BACKS)}, not {write_back!r}")
        self.gen: dict[int, int] = {}
        self.level: dict[tuple, int] = {}
        self.write_back = write_back != WRITE_BACK_NONE  # whether stores cost DRAM write bandwidth
        # "evicted": a store pays the dirty lines its L2 allocations evict (the cold convention,
        # whose L2 starts full: micro4 ncu); "first_write": each sector's first write pays its write-back
        self.evictions = write_back == WRITE_BACK_EVICTED
        self.coverage: dict[int, int] = {}  # stored sector -> the bytes of it this launch wrote (a bit each)
        self.first_at: dict[int, tuple] = {}  # stored sector -> (MemStep, row) of its first write

    def writes(self, sectors: np.ndarray, byte_masks: np.ndarray, res: "MemStep", rows: np.ndarray) -> np.ndarray:
        """Record stores of `sectors` (bytes `byte_masks`, by MemStep rows `rows`); returns which
        of them this launch writes for the first time."""
        out = np.zeros(len(sectors), bool)
        cov, first = self.coverage, self.first_at
        for i, (s, m, r) in enumerate(zip(sectors.tolist(), byte_masks.tolist(), rows.tolist())):
            old = cov.get(s)
            if old is None:
                cov[s] = m
                first[s] = (res, r)
                out[i] = True
            else:
                cov[s] = old | m
        return out

    def charge_partial_writes(self, hier) -> int:
        """A sector written only in part, whose rest the launch never loaded, is read from DRAM
        when the L2 writes it back (read-modify-write: memory_counters `partial`, pst_one reads
        0.95 of a 128-MiB footprint for 0.89 written; pst_by8, whose 8 warps complete every
        sector, reads nothing). The read is charged to the sector's first write, as its DRAM
        write is. Returns how many sectors."""
        n = 0
        for s, m in self.coverage.items():
            if m != _FULL_SECTOR and s not in self.gen:
                res, row = self.first_at[s]
                res.dram_read[row] += 1
                n += 1
        hier.count_partial_write_reads(n)
        return n

    def keys(self, sectors: np.ndarray, warp: np.ndarray, level: np.ndarray, dram: np.ndarray, n_warps: int) -> list:
        out: list = [[] for _ in range(n_warps)]
        gen, lv = self.gen, self.level
        n_dram = np.bincount(warp[level == 2], minlength=n_warps)
        per_key = np.where(n_dram > 0, dram / np.maximum(n_dram, 1), 0.0).tolist()
        for s, w, l in zip(sectors.tolist(), warp.tolist(), level.tolist()):
            if l:
                g = gen[s] = gen.get(s, 0) + 1
                lv[(s, g)] = l
            else:
                g = gen.get(s, 0)
            key = (s, g)
            kl = lv.get(key, 0)
            out[w].append((key, kl, per_key[w] if kl == 2 else 0.0))
        return [tuple(x) for x in out]


@dataclass
class MemStats:
    load_requests: int = 0  # global/local loads (warp-instructions with an active lane)
    load_sectors: int = 0
    store_requests: int = 0  # global/local stores and atomics
    store_sectors: int = 0
    shared_requests: int = 0
    shared_wavefronts: int = 0
    shared_ideal: int = 0
    dsmem_requests: int = 0  # shared-memory requests to another CTA of the cluster
    by_space: Counter = field(default_factory=Counter)
    atomic_lines: dict = field(default_factory=dict)  # 128-B line -> global-atomic packets this SM sends it
    grid_atomic_lines: dict = field(default_factory=dict)  # ... and every SM of the grid (Footprint), if known
    loaded: list = field(default_factory=list)  # global/local load sectors, per request (distinct_chunks)

    def distinct_chunks(self, sectors_per_chunk: int) -> int:
        """Distinct aligned chunks of `sectors_per_chunk` sectors this SM loaded (its own data)."""
        if not self.loaded:
            return 0
        return int(np.unique(np.concatenate(self.loaded) // np.uint64(32 * max(1, sectors_per_chunk))).size)


def lane_mask_matrix(active: np.ndarray) -> np.ndarray:
    """uint32 lane masks -> (warps, 32) bool."""
    return (active[:, None] & _LANE_BITS) != 0


def _policy(mem: MemInfo) -> Policy:
    op = CacheOp(mem.cache_op) if mem.cache_op else (CacheOp.WB if mem.store else CacheOp.CA)
    if mem.store and op in (CacheOp.CA, CacheOp.LU, CacheOp.CV):
        op = CacheOp.WB
    if not mem.store and op in (CacheOp.WB, CacheOp.WT):
        op = CacheOp.CA
    l1 = EvictPriority.NO_ALLOCATE if mem.l1_evict == "no_allocate" else EvictPriority("evict_" + mem.l1_evict)
    l2 = EvictPriority("evict_" + mem.l2_evict)
    return Policy(op=op, l1=l1, l2=l2, prefetch=mem.prefetch, nc=mem.nc)


def memory_pass(trace: Trace, hier, write_back: str = WRITE_BACK_FIRST) -> tuple[dict[int, MemStep], MemStats]:
    """Run every memory step of the trace through `hier` (a timing.memory.MemoryHierarchy).
    write_back "none": stored data stays in L2 (everything fits), no DRAM write time;
    "first_write": each sector's first write of the launch costs its write-back; "evicted": a
    store costs the dirty lines that its L2 allocations push out during the launch (lines still
    dirty at the end are written back after it), for an L2 whose starting state is known (the
    cold convention)."""
    out: dict[int, MemStep] = {}
    stats = MemStats()
    fills = Fills(write_back)
    recent = RecentSectors()
    p = hier.params
    groups = load_groups(trace)  # scalar shared loads ptxas merges into vector loads (timing/vectorize.py)
    # ptxas's warp-aggregated atomics (timing/atomics.py, shared_cas.py)
    aggregated = aggregated_pcs(trace.program) | aggregated_shared_pcs(trace.program)
    uldc = uldc_pcs(trace.program)  # ld.const at warp-uniform addresses: ULDC (timing/uniformity.py)
    ranks = trace.ranks() if hasattr(trace, "ranks") else None  # each warp's CTA rank in its cluster
    ends_run: dict[int, bool] = {}  # pc -> whether it ends a straight run (RecentSectors)
    for k, step in enumerate(trace.steps):
        ends = ends_run.get(step.pc)
        if ends is None:
            ends = ends_run[step.pc] = _ends_run(trace.info(step.pc))
        if ends:
            recent.new_run(step.warps)
        if step.copy is not None and trace.info(step.pc).asyn in BULK_ROLES:  # the TMA engine (timing/asyncs.py)
            out[k] = bulk_step(hier, p, step, lane_mask_matrix(step.active), stats)
            continue
        if step.parts is not None:  # wmma.load/store, ldmatrix, stmatrix: their machine accesses
            out[k] = _matrix_step(hier, p, trace.info(step.pc), step, stats, fills, recent)
            continue
        if step.addr is None or step.pc in groups.leader_of:
            continue
        info = trace.info(step.pc)
        mem = info.mem
        if mem is None or info.op_class == "uniform":
            continue
        n = step.warps.size
        res = MemStep.empty(n)
        act = lane_mask_matrix(step.active)
        if mem.space == "generic":
            codes = step.space if step.space is not None else np.zeros(n, np.uint8)
            for code in np.unique(codes):
                sel = np.flatnonzero(codes == code)
                _access(hier, p, mem, _CODE_SPACE[int(code)], step.addr[sel], act[sel], res, sel, stats, fills,
                        recent=recent, rows=step.warps[sel], aggregated=step.pc in aggregated, ranks=ranks,
                        uldc=step.pc in uldc)
        else:
            _access(hier, p, mem, mem.space, step.addr, act, res, np.arange(n), stats, fills,
                    groups.width.get(step.pc, 1), recent=recent, rows=step.warps, aggregated=step.pc in aggregated,
                    ranks=ranks, uldc=step.pc in uldc)
        if info.asyn == "cp_async":  # the data stage writes shared memory, not the L1 data array
            waves = copy_write_wavefronts(step, act, mem.bytes_per_lane)
            if waves is not None and res.l1_waves is not None:
                res.l1_waves = waves
        out[k] = res
    if fills.write_back:
        fills.charge_partial_writes(hier)
    return out, stats


_FULL_SECTOR = 0xFFFFFFFF  # the 32 bytes of a sector, a bit each


def sector_byte_masks(addr: np.ndarray, act: np.ndarray, size: int, c) -> np.ndarray:
    """For each (warp, sector) of the coalesced request `c`, the bytes of the sector its lanes
    write, a bit each (accesses of 32 bytes or more cover whole sectors)."""
    if size >= 32:
        return np.full(len(c.sectors), _FULL_SECTOR, np.uint64)
    w, lane = np.nonzero(act)
    if w.size == 0:  # no lane stores (a guarded store whose guard holds nowhere)
        return np.zeros(len(c.sectors), np.uint64)
    a = addr[w, lane].astype(np.uint64)
    bits = ((np.uint64(1) << np.uint64(size)) - np.uint64(1)) << (a & np.uint64(31))
    # an access of under 32 bytes spans at most two sectors (one straddling a boundary: a
    # local-memory double, whose lanes sit 4 bytes apart): bits 32 and up are the next sector's
    spill = (bits >> np.uint64(32)) != 0
    if spill.any():
        w = np.concatenate((w, w[spill]))
        a = np.concatenate((a, ((a[spill] >> np.uint64(5)) + np.uint64(1)) << np.uint64(5)))
        bits = np.concatenate((bits & np.uint64(_FULL_SECTOR), bits[spill] >> np.uint64(32)))
    # (warp, sector) as one key: sectors counted from the request's lowest one (a request spans
    # far less than 2^40 sectors), so no address bit reaches the warp's (global addresses have
    # bits 40-46 set, local ones bit 56: packed whole, warps 0-3 of a store shared one key)
    base = (a >> np.uint64(5)).min()
    key = (w.astype(np.uint64) << np.uint64(40)) | ((a >> np.uint64(5)) - base)
    order = np.argsort(key, kind="stable")
    key, bits = key[order], bits[order]
    starts = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
    keys, masks = key[starts], np.bitwise_or.reduceat(bits, starts)
    want = (c.warp.astype(np.uint64) << np.uint64(40)) | ((c.sectors >> np.uint64(5)) - base)
    return masks[np.searchsorted(keys, want)]


def _matrix_step(hier, p, info, step, stats: MemStats, fills: Fills, recent) -> MemStep:
    """A warp-matrix memory instruction as the loads / stores ptxas makes of it
    (engine/trace/matrix.py): each goes through the memory model as its own request (coalescing,
    L1 and shared-memory banks, L2, DRAM, in order, so a later one finds what an earlier one
    brought into L1); the instruction's result is ready when the last is back. The data stage
    carries all their wavefronts plus one per MOVM (micro2 `wmma` thr: a column-major f16 tile
    from L1 costs 4 cycles more per SM than a row-major one, 4 MOVMs)."""
    n = step.warps.size
    res = MemStep.empty(n)
    keys: list = [[] for _ in range(n)]
    any_keys = False
    codes = step.space if step.space is not None else None
    group = 8 if info.matrix_ldsm else 0  # LDSM / STSM: one 8x8 matrix (8 lanes' rows) at a time
    for addr, size, take in step.parts:
        mem = replace(info.mem, size=size, vector=1)
        r = MemStep.empty(n)
        if mem.space == "generic":
            cs = codes if codes is not None else np.zeros(n, np.uint8)
            for code in np.unique(cs):
                sel = np.flatnonzero(cs == code)
                _access(hier, p, mem, _CODE_SPACE[int(code)], addr[sel], take[sel], r, sel, stats, fills,
                        recent=recent, rows=step.warps[sel], group=group)
        else:
            _access(hier, p, mem, mem.space, addr, take, r, np.arange(n), stats, fills, recent=recent, rows=step.warps,
                    group=group)
        res.mkind = np.maximum(res.mkind, r.mkind)
        res.latency = np.maximum(res.latency, r.latency)
        res.wavefronts += r.wavefronts
        res.l2_sectors += r.l2_sectors
        res.dram_read += r.dram_read
        res.dram_write += r.dram_write
        if r.dram_evicted is not None:
            res.dram_evicted = r.dram_evicted if res.dram_evicted is None else res.dram_evicted + r.dram_evicted
        res.dep = np.where(r.mkind != MK_NONE, r.dep, res.dep)
        if r.l1_waves is not None:
            res.l1_waves = r.l1_waves if res.l1_waves is None else res.l1_waves + r.l1_waves
        if r.l2_lines is not None:
            res.l2_lines = r.l2_lines if res.l2_lines is None else res.l2_lines + r.l2_lines
        if r.keys is not None:
            any_keys = True
            for w, b in enumerate(r.keys):
                if b:
                    keys[w].append(b)
    if any_keys:
        res.keys = [PartKeys(k) if k else None for k in keys]
    store = res.mkind == MK_STORE
    if store.any():  # the stores of one wmma.store pay each 128-B line they write once (micro2 `wmma` store)
        res.wavefronts = np.where(store, _distinct_lines(step.parts, info.mem.bytes_per_lane, n), res.wavefronts)
    if info.movm:  # MOVM.16.MT88 passes the data stage once per register
        live = res.mkind != MK_NONE
        if res.l1_waves is not None:
            res.l1_waves = res.l1_waves + np.where(live & (res.mkind == MK_GLOBAL), info.movm, 0)
        res.wavefronts = res.wavefronts + np.where(live & (res.mkind != MK_GLOBAL), info.movm, 0)
    return res


def _distinct_lines(parts, size: int, n: int) -> np.ndarray:
    """Per warp, the distinct 128-B lines that the parts' active lanes touch."""
    rows, lines = [], []
    for addr, bytes_, take in parts:
        w, lane = np.nonzero(take)
        a = addr[w, lane]
        for off in {0, bytes_ - 1}:
            rows.append(w)
            lines.append((a + np.uint64(off)) >> np.uint64(7))
    if not rows:
        return np.zeros(n, np.int64)
    pairs = np.unique(np.stack([np.concatenate(rows).astype(np.uint64), np.concatenate(lines)]), axis=1)
    return np.bincount(pairs[0].astype(np.int64), minlength=n)


_APART = 1e7  # cycles between requests of _apart: far more than any transfer or queue


def _apart(hier, n: int) -> np.ndarray:
    """Arrival times far apart for a batch: the memory model then charges each request its own
    transfer only; the SM model (sm.py) does the queueing in time order. The clock is the
    hierarchy's own, so it stays small enough for float64 to keep cycles exact (a process-wide
    one grew by 1e15 per batch: after a few calls latencies were rounded to the float spacing,
    and the result depended on what the process had profiled before)."""
    base = hier.apart_clock + _APART
    hier.apart_clock = base + n * _APART
    return base + np.arange(n, dtype=np.float64) * _APART


class RecentSectors:
    """The sectors each warp loaded in its last few global/local loads of its current straight
    run (in trace order). The engine records a wave instruction by instruction, so the trace
    gives all warps' first load before any warp's second; on the GPU a warp issues the loads of
    one straight run back to back, and a sector it asked for moments ago is merged with that fill
    (the miss status holding register) even when the other warps' loads in between would have
    evicted it from the L1 (micro3 gather: two 16-B loads of one 32-B granule). A branch,
    barrier, sleep or store ends the run (`new_run`, `_ends_run`): the loads after it (a loop's
    next trip) issue once the warp has used the earlier data, so the fill is back and the sector
    must still be in the L1, which the trace order decides: the SM's scheduler switches warps at every stall, so
    the other warps' accesses in between are the ones the trace puts there (benchmarks/timing/walk:
    a one-load-per-trip walk over 2048 lines per SM hits 48 % in the 256-KiB L1, 0 % beside a
    228-KiB carveout, where the unrolled walk keeps 73-79 % from the merges of its 4-load runs)."""

    DEPTH = 4  # loads of the same warps looked back over

    def __init__(self):
        self.keys: list = []
        self.run = np.zeros(0, np.uint64)  # per trace row: how many runs the warp has ended

    def new_run(self, rows: np.ndarray) -> None:
        """The warps of `rows` end a straight run (a branch, barrier or sleep issued)."""
        rows = np.asarray(rows, np.int64)
        if rows.size == 0:
            return
        if rows.max() >= self.run.size:
            self.run = np.concatenate([self.run, np.zeros(int(rows.max()) + 1 - self.run.size, np.uint64)])
        self.run[rows] += np.uint64(1)

    def runs(self, rows: np.ndarray) -> np.ndarray:
        rows = np.asarray(rows, np.int64)
        out = np.zeros(rows.size, np.uint64)
        inside = rows < self.run.size
        out[inside] = self.run[rows[inside]]
        return out

    def merged(self, rows: np.ndarray, c) -> np.ndarray:
        """Per sector of `c`, whether its warp loaded it within the last DEPTH loads of its
        current run; then remember this load's sectors."""
        rows = np.asarray(rows, np.uint64)
        warp_run = (rows << np.uint64(8)) | (self.runs(rows) & np.uint64(0xFF))  # runs mod 256: DEPTH << 256
        key = (warp_run[c.warp] << np.uint64(40)) | ((c.sectors >> np.uint64(5)) & _SECTOR_BITS)
        hit = np.isin(key, np.concatenate(self.keys)) if self.keys else np.zeros(len(key), bool)
        self.keys.append(np.unique(key))
        if len(self.keys) > self.DEPTH:
            self.keys.pop(0)
        return hit


_SECTOR_BITS = np.uint64((1 << 40) - 1)


def _ends_run(info) -> bool:
    """Whether the loads after this instruction find the warp's earlier fills back (RecentSectors):
    a branch, barrier or sleep, or a store (loads are not moved above it, and a store of loaded
    data waits for that data: walk_ldst, a load-compute-store loop unrolled 4x, hits the L1 as
    little as the one-load-per-trip walk, 12 % at 2048 lines per SM, not the 75 % of merges)."""
    mem = info.mem
    return info.op_class in CONTROL_CLASSES or (mem is not None and info.op_class != "uniform" and (mem.store or mem.atomic))


def _access(hier, p, mem: MemInfo, space: str, addr, act, res: MemStep, sel, stats: MemStats, fills: Fills,
            width: int = 1, recent: "RecentSectors | None" = None, rows=None, aggregated: bool = False,
            ranks=None, group: int = 0, uldc: bool = False) -> None:
    size = mem.bytes_per_lane * width  # width > 1: the leader of merged scalar shared loads
    live = act.any(axis=1)
    if space == "shared":
        kind = _dsmem_kind(addr, act, ranks, rows, mem.cluster)
        if kind is None:
            _shared(hier, p, mem, addr, act, res, sel, stats, size, group, aggregated)
            return
        # the cluster window: ptxas's generic LD/ST/ATOM, not LDS/STS/ATOMS (build_work gives
        # them their latencies, ModelParams.dsmem_*)
        if res.dsmem is None:
            res.dsmem = np.zeros(res.mkind.size, np.int8)
        sel = np.asarray(sel)
        res.dsmem[sel] = kind
        remote = kind == DSMEM_REMOTE
        if (~remote).any():
            k = np.flatnonzero(~remote)
            _shared(hier, p, mem, addr[k], act[k], res, sel[k], stats, size, group, aggregated)
        if remote.any():
            k = np.flatnonzero(remote)
            _remote_shared(mem, addr[k], act[k], res, sel[k], stats, size)
        return
    if space == "local" and size > 4:
        addr = _local_wide(addr, act, size)
    _access_memory(hier, p, mem, space, addr, act, res, sel, stats, fills, size, live, recent, rows, aggregated, uldc)


def _local_wide(addr: np.ndarray, act: np.ndarray, size: int) -> np.ndarray:
    """A local access of more than 4 bytes a lane. The trace lays local memory out a 32-bit word
    per lane (word i of lane l at i * 128 + l * 4: engine/trace/events.py), and gives each lane
    its first word; the lane's other words are 128 bytes on, so a warp's 8-byte access covers the
    256 bytes of two word rows. Put lane l at l * size in those rows: the sectors are the same,
    and each lane's bytes are contiguous (read as 4 + 4 bytes at l * 4, the warp covered 132)."""
    lane = np.arange(32, dtype=np.uint64) * np.uint64(size - 4)
    return np.where(act, addr + lane, addr)


def _remote_shared(mem: MemInfo, addr, act, res: MemStep, sel, stats: MemStats, size: int) -> None:
    """Distributed shared memory: another CTA's shared memory, on another SM. The request leaves
    this SM through its L1/shared data stage, a pass per 128-B line (as a global access does), to
    the SM-to-SM network; the other SM's banks are not this SM's. It waits on the long scoreboard."""
    live = act.any(axis=1)
    res.mkind[sel] = np.where(live, MK_SHARED, MK_NONE)
    res.wavefronts[sel] = coalesce(addr, act, size).n_lines
    if res.dsmem_bytes is None:
        res.dsmem_bytes = np.zeros(res.mkind.size)
    res.dsmem_bytes[sel] = act.sum(axis=1) * size
    res.shared_atomic = res.shared_atomic or bool(mem.atomic)
    res.dep[sel] = DEP_MEM
    stats.dsmem_requests += int(live.sum())
    stats.by_space["shared"] += int(live.sum())


def _dsmem_kind(addr, act, ranks, rows, cluster_instr: bool = False):
    """Per warp of a shared access: DSMEM_REMOTE if an active lane's address names another CTA of
    the cluster, else DSMEM_OWN if one goes through the cluster window to its own CTA (a
    .shared::cluster instruction always does: ptxas makes it a generic LD/ST/ATOM), else 0; None
    when no lane uses the cluster window (the common case: a plain shared access)."""
    rank = addr >> _RANK_SHIFT  # 0: the CTA's own .shared::cta window, else rank + 1
    window = act & ((rank != 0) | bool(cluster_instr))
    if not window.any():
        return None
    own = (np.asarray(ranks)[np.asarray(rows)] if ranks is not None and rows is not None and len(ranks)
           else np.zeros(len(addr), np.int64)).astype(np.uint64) + np.uint64(1)
    remote = (window & (rank != 0) & (rank != own[:, None])).any(axis=1)
    return np.where(remote, DSMEM_REMOTE, np.where(window.any(axis=1), DSMEM_OWN, 0)).astype(np.int8)


def _shared(hier, p, mem: MemInfo, addr, act, res: MemStep, sel, stats: MemStats, size: int, group: int = 0,
            aggregated: bool = False) -> None:
    """A shared-memory access of the CTA's own shared memory: bank conflicts, the data stage.
    group: lanes served together, if not the default for the size (LDSM / STSM: 8);
    aggregated: an atomic ptxas performs once per warp (shared_cas.aggregated_shared_pcs)."""
    live = act.any(axis=1)
    if mem.atomic:
        lat = hier.atomic(addr, act, mem.size, space=Space.SHARED, now=_apart(hier, len(addr)))
    else:
        lat = hier.shared(addr, act, size, write=mem.store, group=group)
    waves = hier.last.get("wavefronts") if not mem.atomic else None
    if waves is None:
        from .memory import bank_conflicts

        waves = bank_conflicts(addr, act, mem.size if mem.atomic else size)
    res.shared_atomic = bool(mem.atomic)
    if mem.atomic and is_cas_loop(mem.atomic_op):  # the warp loops until each lane's swap held
        if res.atom is None:
            res.atom = [None] * res.mkind.size
        for k, u in zip(np.asarray(sel).tolist(), cas_updates(addr, act, mem.size, aggregated)):
            res.atom[k] = u
    stats.shared_requests += int(live.sum())
    stats.shared_wavefronts += int(waves.sum())
    stats.shared_ideal += int(np.minimum(_ideal_wavefronts(act, size), waves).sum())
    res.mkind[sel] = np.where(live, MK_SHARED, MK_NONE)
    res.latency[sel] = np.where(mem.atomic, lat, p.lat_shared)
    res.wavefronts[sel] = waves
    res.dep[sel] = DEP_EXEC
    stats.by_space["shared"] += int(live.sum())


def _access_memory(hier, p, mem: MemInfo, space: str, addr, act, res: MemStep, sel, stats: MemStats, fills: Fills,
                   size: int, live, recent, rows, aggregated: bool, uldc: bool = False) -> None:
    """A global, local, constant or parameter access."""
    if space in ("const", "param"):
        # ULDC's line buffer is per sub-partition: a warp's is taken as its trace row mod 4
        # (warp slots are handed out in order, CTAs of a multiple of 4 warps keep row % 4)
        smsp = None if rows is None else np.asarray(rows, np.int64) % 4
        lat = hier.const_load(addr, act, size, now=_apart(hier, len(addr)), uniform=uldc, smsp=smsp)
        passes = hier.last.get("passes", np.ones(len(addr)))
        fetches = hier.last.get("fetches", np.zeros(len(addr)))
        lat = _shared_misses(addr, act, lat)
        res.mkind[sel] = np.where(live, MK_CONST, MK_NONE)
        res.latency[sel] = lat
        res.wavefronts[sel] = passes
        if res.const_fetches is None:
            res.const_fetches = np.zeros(res.mkind.size)
        res.const_fetches[sel] = fetches
        res.const_uniform = uldc
        res.dep[sel] = np.where(fetches > 0, DEP_CONST, DEP_EXEC)
        stats.by_space["const"] += int(live.sum())
        return
    kind = Space.LOCAL if space == "local" else Space.GLOBAL
    c = coalesce(addr, act, size)
    if mem.store or mem.atomic:
        stats.store_requests += int(c.requests.sum())
        stats.store_sectors += int(c.n_sectors.sum())
    else:
        stats.load_requests += int(c.requests.sum())
        stats.load_sectors += int(c.n_sectors.sum())
        stats.loaded.append(c.sectors)
    stats.by_space[space] += int(live.sum())
    if mem.atomic:  # timing/atomics.py: packets per line, performed by the L2 slices' atomic units
        hier.atomic(addr, act, mem.size, space=Space.GLOBAL, now=_apart(hier, len(addr)))  # counters
        res.mkind[sel] = np.where(live, MK_ATOMIC, MK_NONE)
        res.latency[sel] = p.lat_atomic_global
        per_warp = atomic_packets(addr, act, aggregated)
        res.wavefronts[sel] = [sum(x[1] for x in lines) for lines in per_warp]  # packets (the SM stage)
        res.dep[sel] = DEP_MEM
        if res.atom is None:
            res.atom = [None] * res.mkind.size
        own = stats.atomic_lines
        flt = atomic_is_float(mem)
        for w, lines in zip(np.asarray(sel).tolist(), per_warp):
            res.atom[w] = tuple((ln, k, one if flt else 0) for ln, k, one in lines)
            for ln, k, _ in lines:
                own[ln] = own.get(ln, 0) + k
        return
    policy = _policy(mem)
    if mem.store:
        hier.store(c, kind=kind, policy=policy)
        res.mkind[sel] = np.where(live, MK_STORE, MK_NONE)
        res.latency[sel] = p.lat_l2
        res.wavefronts[sel] = c.n_lines
        res.l2_sectors[sel] = c.n_sectors
        if fills.write_back:  # each sector's first write of the launch is written back to DRAM once
            first = fills.writes(c.sectors, sector_byte_masks(addr, act, size, c), res, np.asarray(sel)[c.warp])
            if fills.evictions:  # ... or: what its allocations push out of the L2 now
                res.dram_write[sel] = hier.last["evicted_dirty"]
            else:
                res.dram_write[sel] = np.bincount(c.warp[first], minlength=c.n_warps)
        res.dep[sel] = DEP_EXEC
        return
    merged = recent.merged(rows, c) if recent is not None and rows is not None else None
    hier.load(c, kind=kind, policy=policy, merged=merged)
    last = hier.last
    level = last["level"]
    base = np.array([p.lat_l1, p.lat_l2, p.lat_dram], np.float64)[level]
    res.mkind[sel] = np.where(live, MK_GLOBAL, MK_NONE)
    res.latency[sel] = base
    res.wavefronts[sel] = c.n_lines
    res.l2_sectors[sel] = last["l2_bytes"] // p.sector
    # DRAM time in sectors: the data, and the rows the request opens (memory/dram.py)
    dram_time = (last["dram_bytes"] // p.sector + last["row_opens"] * (p.dram_row_open_bytes / p.sector)
                 + last["evicted_dirty"])  # and the dirty lines its fills pushed out of L2
    res.dram_read[sel] = dram_time
    if res.dram_evicted is None:
        res.dram_evicted = np.zeros(res.mkind.size)
    res.dram_evicted[sel] = last["evicted_dirty"]
    res.dep[sel] = DEP_MEM
    from .memory import bank_conflicts

    if res.l1_waves is None:
        res.l1_waves = np.zeros(res.mkind.size, np.int64)
    res.l1_waves[sel] = bank_conflicts(addr, act, size)
    if "sector_level" in last and len(c.sectors):
        miss = np.asarray(last["sector_level"]) >= 1
        if miss.any():  # distinct 128-B lines per warp (c is sorted by warp, then sector)
            w, line = c.warp[miss], c.sectors[miss] >> np.uint64(7)
            new = np.ones(w.size, bool)
            new[1:] = (w[1:] != w[:-1]) | (line[1:] != line[:-1])
            if res.l2_lines is None:
                res.l2_lines = np.zeros(res.mkind.size, np.int64)
            res.l2_lines[sel] = np.bincount(w[new], minlength=c.n_warps)
    if "sector_level" in last and policy.op not in (CacheOp.CG, CacheOp.CV):
        keys = fills.keys(c.sectors, c.warp, last["sector_level"], dram_time, c.n_warps)
        if res.keys is None:
            res.keys = [None] * res.mkind.size
        for w, k in zip(np.asarray(sel).tolist(), keys):
            res.keys[w] = k


def share_l2(mem: dict[int, "MemStep"], keep: float) -> None:
    """Other SMs read much of the same data: of the sectors this SM first fetched from DRAM, only
    the fraction `keep` really came from DRAM; the rest was in L2 already (another SM's miss).
    Rewrites the memory results in place (deterministic: every generation decided once, in
    trace order, so that `keep` of them stay DRAM misses)."""
    decided: dict = {}
    acc = [0.0]
    for res in mem.values():
        if res.keys is None and (res.mkind == MK_STORE).any():
            continue  # a store step's DRAM reads complete its own partly written sectors
        res.dram_read = res.dram_read * keep
        if res.keys is None:
            continue
        for w, ks in enumerate(res.keys):
            if not ks:
                continue
            if type(ks) is PartKeys:  # a warp-matrix load's machine loads, in order
                res.keys[w] = PartKeys(_share_keys(part, decided, keep, acc) for part in ks)
            else:
                res.keys[w] = _share_keys(ks, decided, keep, acc)


def _share_keys(ks, decided: dict, keep: float, acc: list) -> tuple:
    """share_l2 for one request's sector keys; acc[0] carries the running fraction."""
    out = []
    for key, level, dram in ks:
        if level == 2:
            d = decided.get(key)
            if d is None:
                acc[0] += keep
                d = decided[key] = acc[0] >= 1.0
                if d:
                    acc[0] -= 1.0
            if not d:
                level, dram = 1, 0.0
        out.append((key, level, dram))
    return tuple(out)


def _shared_misses(addr: np.ndarray, act: np.ndarray, lat: np.ndarray) -> np.ndarray:
    """Warps of one step that read the same constant address run together: a miss that the
    first of them took in the trace is waited for by all of them (not a hit for the rest)."""
    first = np.where(act.any(axis=1), addr[np.arange(len(addr)), np.argmax(act, axis=1)], np.uint64(0))
    keys, inv = np.unique(first >> np.uint64(6), return_inverse=True)
    worst = np.zeros(len(keys))
    np.maximum.at(worst, inv, lat)
    return np.where(act.any(axis=1), worst[inv], lat)


def _ideal_wavefronts(act: np.ndarray, size: int) -> np.ndarray:
    """Wavefronts a conflict-free access of `size` bytes per lane needs (one per 128-B phase)."""
    from .memory import lanes_per_phase

    per = lanes_per_phase(size)
    phases = -(-32 // per)
    return act.reshape(act.shape[0], phases, -1).any(axis=2).sum(axis=1)


# ---------------------------------------------------------------------------- per-warp streams


@dataclass
class TraceStats:
    warp_instructions: int = 0
    thread_instructions: int = 0
    by_class: Counter = field(default_factory=Counter)  # op class -> warp-instructions
    flops: Counter = field(default_factory=Counter)  # flop kind -> flops
    divergent: int = 0  # warp-instructions with some lanes of the warp masked off


def build_work(trace: Trace, mem: dict[int, MemStep], gpu, params, cta_order: list[int],
               registers: Optional[int] = None, code_bytes: int = 0) -> tuple[SmWork, TraceStats]:
    """The SM input for the traced warps, CTAs run in `cta_order` (CTA ids); `registers`: the
    kernel's registers per thread, the list schedule's register budget (None: no budget);
    `code_bytes`: its machine code as ptxas made it (0: estimated; timing/icache.py)."""
    cta, widx, lanes = trace.warps()
    n_rows = cta.size
    steps = trace.steps
    counts = np.array([s.warps.size for s in steps], dtype=np.int64)
    total = int(counts.sum())
    row = np.concatenate([s.warps for s in steps]) if steps else np.zeros(0, np.int64)
    pc = np.repeat(np.array([s.pc for s in steps], dtype=np.int64), counts)
    active = np.concatenate([s.active for s in steps]) if steps else np.zeros(0, np.uint32)
    mkind = np.zeros(total, np.int8)
    mlat = np.zeros(total)
    wavefronts = np.zeros(total)
    l2s = np.zeros(total)  # L2 time of each request, in read sectors
    drd = np.zeros(total)
    dwr = np.zeros(total)  # sectors, fractional: a store's share of the dirty lines evicted
    dev = np.zeros(total)  # loads: the dirty sectors their fills evicted (in drd too)
    dep = np.full(total, -1, np.int8)
    offs = np.concatenate([[0], np.cumsum(counts)])
    keys: list = [None] * total
    atom: list = [None] * total
    mbar: list = [None] * total  # mbarrier events and waits (timing/asyncs.py)
    for k, per_warp in mbarrier_refs(trace, cta).items():
        mbar[offs[k]:offs[k + 1]] = per_warp
    l2l = np.zeros(total, np.int64)
    holds = np.zeros(total, bool)  # ULDC line fetches: the warp waits for them (SmWork.holds)
    for k, r in mem.items():
        a, b = offs[k], offs[k + 1]
        if r.l2_lines is not None:
            l2l[a:b] = r.l2_lines
        mkind[a:b], mlat[a:b], wavefronts[a:b] = r.mkind, r.latency, r.wavefronts
        l2s[a:b], drd[a:b], dwr[a:b], dep[a:b] = r.l2_sectors, r.dram_read, r.dram_write, r.dep
        if r.dram_evicted is not None:
            dev[a:b] = r.dram_evicted
        if r.shared_atomic:
            wavefronts[a:b] *= params.shared_atomic_cycles
        if r.dsmem is not None:  # the cluster window (micro2 cluster chase; params.py dsmem_*)
            remote = params.dsmem_atomic_latency if r.shared_atomic else params.dsmem_latency
            mlat[a:b] = np.where(r.dsmem == DSMEM_REMOTE, remote,
                                 np.where(r.dsmem == DSMEM_OWN, params.dsmem_own_latency, mlat[a:b]))
            if r.dsmem_bytes is not None:  # the SM's link to the other SMs (params.py dsmem_*_bytes_per_clk)
                rate = params.dsmem_atomic_bytes_per_clk if r.shared_atomic else params.dsmem_bytes_per_clk
                link = r.dsmem_bytes / (rate * params.l1_wavefront_cycles)
                wavefronts[a:b] = np.where(r.dsmem == DSMEM_REMOTE, np.maximum(wavefronts[a:b], link),
                                           wavefronts[a:b])
        if r.const_fetches is not None:  # the constant port: cycles it is busy with each request
            fetch = params.uconst_fetch_cycles if r.const_uniform else params.const_fetch_cycles
            port = (params.const_first_pass + np.maximum(r.wavefronts - 1, 0) * params.const_pass_cycles
                    + r.const_fetches * fetch)
            wavefronts[a:b] = np.where(r.mkind == MK_CONST, port, wavefronts[a:b])
            if r.const_uniform:
                holds[a:b] = (r.mkind == MK_CONST) & (r.const_fetches > 0)
        glob = np.isin(r.mkind, (MK_GLOBAL, MK_STORE, MK_ATOMIC))  # the L1 stage per 128-B line
        staged = wavefronts[a:b] * params.l1_line_cycles
        if r.l1_waves is not None and params.l1_load_wavefronts:
            # loads are read out of the L1 data array like shared memory: one wavefront per cycle,
            # bank conflicts included (micro2 l1_lines: n lines whose words share a bank cost n)
            staged = np.where(r.mkind == MK_GLOBAL, r.l1_waves * params.l1_wavefront_cycles, staged)
        if r.atom is not None:  # global atomics: the SM sends a request's packets one per cycle
            staged = np.where(r.mkind == MK_ATOMIC, params.atomic_request_cycles
                              + r.wavefronts * params.atomic_packet_cycles, staged)
        wavefronts[a:b] = np.where(glob, staged, wavefronts[a:b])
        store = r.mkind == MK_STORE
        if store.any():  # stores: per line written and per sector, whole or in part (params.py)
            l2s[a:b] = np.where(store, r.wavefronts * params.l2_store_line_cost
                                + r.l2_sectors * params.l2_store_sector_cost, l2s[a:b])
        if r.keys is not None:
            keys[a:b] = r.keys
        if r.atom is not None:
            atom[a:b] = r.atom
    order = np.argsort(row, kind="stable")
    keys = [keys[j] for j in order.tolist()]
    atom = [atom[j] for j in order.tolist()]
    mbar = [mbar[j] for j in order.tolist()]
    row, pc, active = row[order], pc[order], active[order]
    mkind, mlat, wavefronts, l2s, drd, dwr, dep, l2l, holds = (
        x[order] for x in (mkind, mlat, wavefronts, l2s, drd, dwr, dep, l2l, holds))
    per_row = np.bincount(row, minlength=n_rows)
    start = np.concatenate([[0], np.cumsum(per_row)])
    taken = np.zeros(total, bool)
    split = np.zeros(total, bool)  # the warp's lanes part ways after this instruction (divergence)
    if total > 1:
        same = row[1:] == row[:-1]
        taken[:-1] = (pc[1:] != pc[:-1] + 1) & same
        split[:-1] = (active[1:] != active[:-1]) & same

    table = StaticTable(trace, gpu, params, np.unique(pc))
    split &= table.ctrl[pc] & ~table.barrier[pc]  # only a branch splits a warp
    if params.list_schedule and total > 2:  # ptxas's order within each straight run (timing/schedule.py)
        budget = registers if params.register_budget else None
        sched = block_orders(pc, row, table.ctrl, table.sched_latency, table.reads, table.writes, table.mem_kind,
                             table.mem_space, table.units, budget, table.uniform)
        if (sched != np.arange(total)).any():  # taken/split stay with the positions (the run's end)
            s_list = sched.tolist()
            keys = [keys[j] for j in s_list]
            atom = [atom[j] for j in s_list]
            mbar = [mbar[j] for j in s_list]
            pc, active = pc[sched], active[sched]
            mkind, mlat, wavefronts, l2s, drd, dwr, dep, l2l, holds = (
                x[sched] for x in (mkind, mlat, wavefronts, l2s, drd, dwr, dep, l2l, holds))
    pipe = table.pipe[pc]
    issue = table.issue[pc]
    # a sub-partition sends one global atomic per `atomic_issue_cycles` (its LSU pipe)
    issue = np.where(mkind == MK_ATOMIC, np.maximum(issue, params.atomic_issue_cycles), issue)
    latency = np.where(mkind > 0, mlat, table.latency[pc])
    dep_kind = np.where(dep >= 0, dep, table.dep[pc])
    # the text/const-miss cases: memory kinds decide
    dep_kind = np.where(mkind == MK_TEX, DEP_TEX, dep_kind)

    stats = _stats(trace, pc, active, lanes[row] if n_rows else lanes, table)
    free = (table.free[pc] if params.fold_immediate_moves else np.zeros(pc.size, bool)) | table.merged[pc]
    if free.any():
        # moves of immediates take no issue slot: ptxas folds them into their consumers' operands
        # or hoists them out of the loop (micro2 loop_fma4: 16 FMAs + counter/compare/branch
        # in 21 cycles with two immediate moves in the PTX body)
        moved = np.flatnonzero(free & taken)
        for k in moved.tolist():  # a skipped instruction's fetch redirect goes to the one before
            if k > 0 and row[k - 1] == row[k]:
                taken[k - 1] = True
        keep = ~free
        kl = np.flatnonzero(keep).tolist()
        keys = [keys[j] for j in kl]
        atom = [atom[j] for j in kl]
        mbar = [mbar[j] for j in kl]
        row, pc, taken, split = row[keep], pc[keep], taken[keep], split[keep]
        mkind, wavefronts, l2s, drd, dwr, latency, dep_kind, pipe, issue, l2l, holds = (
            x[keep] for x in (mkind, wavefronts, l2s, drd, dwr, latency, dep_kind, pipe, issue, l2l, holds))
        start = np.concatenate([[0], np.cumsum(np.bincount(row, minlength=n_rows))])
    position = {c: i for i, c in enumerate(cta_order)}
    warps_of_cta: list[list[int]] = [[] for _ in cta_order]
    for w in range(n_rows):
        k = position.get(int(cta[w]))
        if k is not None:
            warps_of_cta[k].append(w)
    work = SmWork(
        cta_order=list(cta_order), warps_of_cta=warps_of_cta,
        start=start[:-1].tolist(), end=start[1:].tolist(),
        pipe=pipe.tolist(), issue=issue.tolist(), latency=latency.tolist(),
        reads=[table.reads[p] for p in pc.tolist()], writes=[table.writes[p] for p in pc.tolist()],
        dep_kind=dep_kind.tolist(), barrier=table.barrier[pc].tolist(), taken=taken.tolist(),
        sleep=table.sleep[pc].tolist(), bank_extra=(table.bank_extra[pc] + split * params.divergence_cycles).tolist(),
        mkind=mkind.tolist(),
        wavefronts=wavefronts.tolist(), l2_sectors=l2s.tolist(), dram_read=drd.tolist(), dram_write=dwr.tolist(),
        dram_evicted=dev.tolist() if dev.any() else [],
        n_pipes=len(table.pipe_names), keys=keys, ctrl=table.ctrl[pc].tolist(), issue_lsu=table.lsu[pc].tolist(),
        atom_lines=atom,
        l2_lines=l2l.tolist(), pipe_names=list(table.pipe_names),
        asyn=table.asyn[pc].tolist() if table.asyn.any() else [],
        async_arg=table.async_arg[pc].tolist() if table.asyn.any() else [],
        mbar=mbar if table.asyn.any() else [],
        cluster_bar=table.cluster_bar[pc].tolist() if table.cluster_bar.any() else [],
        cluster_size=int(getattr(trace, "cluster_size", 1) or 1),
        slots=table.slots[pc].tolist() if (table.slots[pc] > 1).any() else [],
        level_latency=(hier_lat(gpu, "l1_hit"), hier_lat(gpu, "l2_hit"), hier_lat(gpu, "dram")),
        pc=pc, holds=holds.tolist() if holds.any() else [],
        code_line=warp_code_lines(trace, params, pc, row, taken, code_bytes),
    )
    return work, stats


def hier_lat(gpu, key: str) -> int:
    return int(gpu.latency[key])


def _stats(trace: Trace, pc: np.ndarray, active: np.ndarray, lanes: np.ndarray, table) -> TraceStats:
    st = TraceStats()
    st.warp_instructions = int(pc.size)
    nact = _popcount(active)
    st.thread_instructions = int(nact.sum())
    full = np.where(lanes >= 32, np.uint32(0xFFFFFFFF), (np.uint64(1) << lanes.astype(np.uint64)) - np.uint64(1)).astype(np.uint32)
    st.divergent = int(np.count_nonzero(active != full))
    by_pc_warps = np.bincount(pc, minlength=table.size)
    by_pc_threads = np.bincount(pc, weights=nact, minlength=table.size)
    for p in np.flatnonzero(by_pc_warps):
        info = trace.info(int(p))
        st.by_class[info.op_class] += int(by_pc_warps[p])
        if info.flops:
            st.flops[info.flop_kind] += float(info.flops * by_pc_threads[p])
    return st


def _popcount(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.uint32)
    return np.unpackbits(x.view(np.uint8).reshape(-1, 4), axis=1).sum(axis=1) if x.size else np.zeros(0, np.int64)
