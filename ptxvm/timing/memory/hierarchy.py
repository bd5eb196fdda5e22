"""The memory system of the simulated SMs: per-SM L1 (size from the shared-memory carveout),
the shared L2, DRAM, shared memory banks, the constant cache, the texture path and atomics.

Every method takes a batch of warp requests (in issue order) and returns one latency in cycles
per request (0 for a request with no active lane); counters() sums the traffic.

Latency of a load = the fixed latency of the farthest level one of its sectors came from
(L1 hit, L2 hit, DRAM), plus one L1 data-stage cycle per 128-B line beyond the first, plus the
time spent queueing for L2 and DRAM bandwidth. Bandwidth is what the simulated SMs' share of
the chip gets: with `simulated_sms` of `n_active_sms` SMs simulated, L2 capacity, L2 and DRAM
bandwidth are scaled by simulated_sms / n_active_sms (the other SMs are assumed to use the rest
on data of their own; `l2_fraction=1.0` keeps the whole L2 instead, for kernels whose SMs read
the same data). Pass `now` (the issue cycle, scalar or per request) for bandwidth to
queue across calls; without it a batch queues only behind itself.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from .banks import (bank_conflicts, distinct_addresses, ideal_wavefronts,
                    same_address_multiplicity)
from .cache import SectoredCache
from .coalesce import Coalesced, coalesce, from_sectors
from .dram import RowTracker
from .ops import CacheOp, EvictPriority, Policy, Space
from .params import MemoryParams, params_from_gpu
from .queue import BandwidthQueue

L1, L2, DRAM = 0, 1, 2
_FLUSH_FILL_LINE = 1 << 54  # first 128-B line of fill_after_flush's stand-in memset data
_LOAD_KINDS = (Space.GLOBAL, Space.LOCAL, Space.NC, Space.TEX)


_NO_LINE = np.uint64(0xFFFFFFFFFFFFFFFF)  # an empty ULDC line buffer


def _l1_geometry(p, size: int) -> tuple:
    """(ways, index) of an L1 of `size` bytes: `l1_sets` XOR-indexed sets whose ways the carveout
    leaves (params.py OPTIONAL), else `l1_assoc` ways of line % sets."""
    lines, sets = int(size) // p.line, int(p.l1_sets)
    if sets > 0 and not sets & (sets - 1) and lines >= sets and lines % sets == 0:
        return lines // sets, "xor"
    return p.l1_assoc, False


class MemoryHierarchy:
    def __init__(self, gpu, n_active_sms: int, *, simulated_sms: int | None = None,
                 shared_bytes_per_sm: int = 0, carveout_kib: int | None = None,
                 l2_fraction: float | None = None):
        simulated = n_active_sms if simulated_sms is None else simulated_sms
        if not 1 <= simulated <= n_active_sms:
            raise ValueError(f"simulated_sms ({simulated}) must be between 1 and n_active_sms ({n_active_sms})")
        if n_active_sms > gpu.sm_count:
            raise ValueError(f"n_active_sms ({n_active_sms}) exceeds the {gpu.sm_count} SMs of {gpu.name}")
        self.gpu = gpu
        self.n_active_sms = n_active_sms
        self.simulated_sms = simulated
        self.params: MemoryParams = params_from_gpu(
            gpu, shared_bytes_per_sm=shared_bytes_per_sm, carveout_kib=carveout_kib,
        ).scaled(simulated, n_active_sms, l2_fraction)
        p = self.params
        ways, index = _l1_geometry(p, p.l1_bytes)
        self.l1 = SectoredCache(p.l1_bytes, p.line, p.sector, ways, partitions=simulated, level="L1", hashed=index)
        self.l2 = SectoredCache(p.l2_bytes, p.line, p.sector, p.l2_assoc, level="L2", hashed=True)
        tways, tindex = _l1_geometry(p, p.tex_cache_bytes)
        self.tex = self.l1 if p.tex_cache_bytes == 0 else SectoredCache(
            p.tex_cache_bytes, p.line, p.sector, tways, partitions=simulated, level="L1", hashed=tindex)
        self.const = SectoredCache(p.const_cache_bytes, 64, 64, 4, partitions=simulated, level="L1")
        self.const_l15 = SectoredCache(p.const_l15_bytes, 64, 64, 4, partitions=simulated, level="L1")
        # ULDC: the line each (SM, sub-partition) read last (the uniform datapath's line buffer)
        self.uconst_line = np.full((simulated, 4), _NO_LINE, np.uint64)
        self.l2_queue = BandwidthQueue(p.l2_bytes_per_clk)
        self.dram_queue = BandwidthQueue(p.dram_bytes_per_clk)
        self.rows = RowTracker(p.dram_row_bytes, p.dram_row_window)
        self._evicted_dirty = np.zeros(0)  # per warp of the last L2 read: dirty sectors its fills evicted
        self.apart_clock = 0.0  # the memory pass's clock for far-apart arrivals (timing/trace.py _apart)
        self._n = Counter()
        self.last: dict[str, np.ndarray] = {}

    # ---- global / local / read-only / texture loads --------------------------------------
    def load(self, sectors, op: CacheOp = CacheOp.CA, evict: EvictPriority = EvictPriority.NORMAL,
             kind: Space = Space.GLOBAL, *, l2_evict: EvictPriority = EvictPriority.NORMAL,
             prefetch: int = 0, sm=0, now=None, policy: Policy | None = None, merged=None) -> np.ndarray:
        """Latency of each warp request of `sectors` (a Coalesced, or sector addresses of one
        request). evict is the L1 priority, l2_evict the L2 one; prefetch the .L2::NNB size.
        merged: per sector, True where the same warp asked for it moments ago (its fill is in
        flight or just arrived): an L1 hit whatever the L1 evicted since (the miss status
        holding register merges it), not looked up again."""
        if policy is not None:
            op, evict, l2_evict, prefetch = policy.op, policy.l1, policy.l2, policy.prefetch
            if policy.nc and kind is Space.GLOBAL:
                kind = Space.NC
        if kind not in _LOAD_KINDS:
            raise ValueError(f"load: {kind.value} accesses go through "
                             f"{'shared()' if kind is Space.SHARED else 'const_load()'}, not load()")
        if op in (CacheOp.WB, CacheOp.WT):
            raise ValueError(f"load: .{op.value} is a store cache operator")
        c = _as_coalesced(sectors)
        p = self.params
        l1 = self.tex if kind is Space.TEX else self.l1
        bypass = op in (CacheOp.CG, CacheOp.CV) and kind is not Space.TEX
        part = self._part(sm, c)
        if merged is None or bypass or not merged.any():
            l1_hit = l1.access(c.sectors, write=False, op=op, evict=evict, partition=part, record=not bypass)
        else:
            rest = ~merged
            l1_hit = merged.copy()
            l1_hit[rest] = l1.access(c.sectors[rest], write=False, op=op, evict=evict,
                                     partition=part if np.ndim(part) == 0 else part[rest])
            self._n["l1_merged"] += int(merged.sum())
        level = np.full(len(c.sectors), L1, np.int64)
        miss = np.flatnonzero(~l1_hit)
        l2_hit, dram_sectors = self._l2_read(c.sectors[miss], c.warp[miss], c.n_warps,
                                             op, l2_evict, prefetch)
        level[miss] = np.where(l2_hit, L2, DRAM)
        worst = _per_warp_max(level, c, L2 if bypass else L1)
        hit_lat = p.lat_tex if kind is Space.TEX else p.lat_l1
        lat = np.array([hit_lat, p.lat_l2, p.lat_dram], np.float64)[worst]
        lat += np.maximum(c.n_lines - 1, 0) * p.l1_wavefront_cycles
        l2_bytes = np.bincount(c.warp[miss], minlength=c.n_warps) * p.sector
        lat += self._queue(l2_bytes, dram_sectors * p.sector, now)
        lat = np.where(c.requests > 0, lat, 0.0)

        n = self._n
        n_req = int(c.requests.sum())
        n["requests"] += n_req
        n[kind.value + "_load_requests"] += n_req
        n["sectors"] += len(c.sectors)
        n["load_sectors"] += len(c.sectors)
        n["l1_wavefronts"] += int(c.n_lines.sum())
        n["bytes_requested"] += int(c.bytes.sum())
        if bypass:
            n["l1_bypass_sectors"] += len(c.sectors)
        else:
            n["l1_hits"] += len(l1_hit) - len(miss)
            n["l1_misses"] += len(miss)
        self.last = {"level": worst, "l2_bytes": l2_bytes, "dram_bytes": dram_sectors * p.sector,
                     "latency": lat, "sector_level": level,  # sector_level: per c.sectors entry (T-core)
                     "row_opens": self._row_opens(c, level),
                     "evicted_dirty": self._evicted_dirty if len(miss) else np.zeros(c.n_warps)}
        return lat

    def _row_opens(self, c: Coalesced, level: np.ndarray) -> np.ndarray:
        """DRAM rows each warp request opens (memory/dram.py), in request order."""
        opens = np.zeros(c.n_warps, np.int64)
        far = level == DRAM
        if not far.any():
            return opens
        off = c.offsets
        for w in np.unique(c.warp[far]).tolist():
            a, b = off[w], off[w + 1]
            opens[w] = self.rows.request(c.sectors[a:b][far[a:b]])
        self._n["dram_row_opens"] += int(opens.sum())
        return opens

    def fill_after_flush(self, dirty_fraction: float) -> None:
        """Fill the L2 as the cold convention's flush leaves it (a 256 MiB memset just before the
        launch): every line holds the memset's data, `dirty_fraction` of them not yet written
        back, so the launch's first allocations write them back to DRAM (memory/dram.py)."""
        l2, p = self.l2, self.params
        lines = l2.size_bytes // p.line
        base = np.uint64(_FLUSH_FILL_LINE) << np.uint64(7)  # an address range no kernel uses
        starts = base + np.arange(lines, dtype=np.uint64) * np.uint64(p.line)
        sectors = (starts[:, None] + np.arange(p.line // p.sector, dtype=np.uint64) * np.uint64(p.sector)).ravel()
        stats = dict(l2.stats)
        l2.access(sectors, write=True)
        l2.clean_evenly(dirty_fraction)
        l2.stats.update(stats)  # the fill is not the launch's traffic

    def _l2_read(self, sec, warp, n_warps, op, l2_evict, prefetch):
        """L2 lookups of L1-missed sectors; misses (and the rest of their fetch/prefetch chunk)
        come from DRAM. Returns the hit mask and DRAM sectors per warp."""
        p = self.params
        if len(sec) == 0:
            return np.zeros(0, bool), np.zeros(n_warps, np.int64)
        l2op = op if op in (CacheOp.CS, CacheOp.LU) else CacheOp.CA
        wb = self.l2.stats["writeback_sectors"]
        hit = self.l2.access(sec, op=l2op, evict=l2_evict)
        missed, mwarp = sec[~hit], warp[~hit]
        dram = np.bincount(mwarp, minlength=n_warps)
        chunk = max(int(prefetch), p.l2_fetch_bytes)
        if chunk > p.sector and len(missed):
            k = chunk // p.sector
            base = missed & ~np.uint64(chunk - 1)
            extra = (base[:, None] + np.arange(k, dtype=np.uint64) * np.uint64(p.sector)).ravel()
            ewarp = np.repeat(mwarp, k)
            extra, first = np.unique(extra, return_index=True)
            ewarp = ewarp[first]
            keep = ~np.isin(extra, missed)
            extra, ewarp = extra[keep], ewarp[keep]
            had = self.l2.access(extra, op=l2op, evict=l2_evict, record=False)
            dram += np.bincount(ewarp[~had], minlength=n_warps)
            self._n["l2_prefetch_sectors"] += int((~had).sum())
        self._n["l2_hits"] += int(hit.sum())
        self._n["l2_misses"] += int((~hit).sum())
        self._n["dram_bytes_read"] += int(dram.sum()) * p.sector
        written = self.l2.stats["writeback_sectors"] - wb
        self._n["dram_bytes_written"] += written * p.sector
        self._n["dram_bytes_evicted_by_reads"] += written * p.sector  # shared out like the reads (profile._share_l2)
        # dirty lines these fills evicted go to DRAM now: shared out over the warps by their fills
        self._evicted_dirty = dram * (written / dram.sum()) if written and dram.sum() else np.zeros(n_warps)
        return hit, dram

    def _queue(self, l2_bytes, dram_bytes, now) -> np.ndarray:
        """Cycles each request spends on bandwidth: L2 and DRAM transfers overlap, so the
        slower of the two counts."""
        if not l2_bytes.any() and not dram_bytes.any():
            return np.zeros(len(l2_bytes))
        l2_wait = np.zeros(len(l2_bytes))
        dram_wait = np.zeros(len(l2_bytes))
        has = l2_bytes > 0
        if has.any():
            l2_wait[has] = self.l2_queue.serve(l2_bytes[has], _at(now, has))
        has = dram_bytes > 0
        if has.any():
            dram_wait[has] = self.dram_queue.serve(dram_bytes[has], _at(now, has))
        return np.maximum(l2_wait, dram_wait)

    # ---- stores --------------------------------------------------------------------------
    def store(self, sectors, op: CacheOp = CacheOp.WB, evict: EvictPriority = EvictPriority.NORMAL,
              kind: Space = Space.GLOBAL, *, l2_evict: EvictPriority = EvictPriority.NORMAL,
              sm=0, now=None, policy: Policy | None = None) -> np.ndarray:
        """Stores write through the L1 (allocating the line with the written sectors valid, as the
        H200 does; .cg stores only update a present line) into the write-back L2. .wt writes through to DRAM;
        L2::no_allocate misses go straight to DRAM. Returns cycles until L2 accepted the data."""
        if policy is not None:
            op, evict, l2_evict = policy.op, policy.l1, policy.l2
        if op is CacheOp.CA:
            op = CacheOp.WB
        if op not in (CacheOp.WB, CacheOp.CG, CacheOp.CS, CacheOp.WT):
            raise ValueError(f"store: .{op.value} is not a store cache operator (wb, cg, cs, wt)")
        if kind not in (Space.GLOBAL, Space.LOCAL):
            raise ValueError(f"store: {kind.value} stores are not modelled by store() "
                             f"(shared stores: shared(..., write=True))")
        c = _as_coalesced(sectors)
        p = self.params
        part = self._part(sm, c)
        if kind is Space.LOCAL:
            self.l1.access(c.sectors, write=False, evict=evict, partition=part, record=False)
        else:
            self.l1.access(c.sectors, write=True, op=op, evict=evict, partition=part)
        wb = self.l2.stats["writeback_sectors"]
        l2op = CacheOp.CS if op is CacheOp.CS else op
        hit = self.l2.access(c.sectors, write=True, op=l2op, evict=l2_evict)
        direct = np.ones(len(hit), bool) if op is CacheOp.WT else (
            ~hit if l2_evict is EvictPriority.NO_ALLOCATE else np.zeros(len(hit), bool))
        dram_w = np.bincount(c.warp[direct], minlength=c.n_warps)
        evicted = self.l2.stats["writeback_sectors"] - wb
        n = self._n
        n["dram_bytes_written"] += (int(direct.sum()) + evicted) * p.sector
        n["dram_bytes_evicted_by_stores"] += evicted * p.sector
        nbytes = c.n_sectors * p.sector
        lat = p.lat_l2 + np.maximum(c.n_lines - 1, 0) * p.l1_wavefront_cycles
        lat = lat + self._queue(nbytes, dram_w * p.sector, now)
        lat = np.where(c.requests > 0, lat, 0.0)
        n["requests"] += int(c.requests.sum())
        n[kind.value + "_store_requests"] += int(c.requests.sum())
        n["sectors"] += len(c.sectors)
        n["store_sectors"] += len(c.sectors)
        n["l1_wavefronts"] += int(c.n_lines.sum())
        n["bytes_requested"] += int(c.bytes.sum())
        n["l2_write_hits"] += int(hit.sum())
        n["l2_write_misses"] += int((~hit).sum())
        # dirty lines these stores' allocations evicted: shared out over the warps by their misses
        alloc = np.bincount(c.warp[~hit], minlength=c.n_warps)
        evicted_dirty = alloc * (evicted / alloc.sum()) if evicted and alloc.sum() else np.zeros(c.n_warps)
        self.last = {"l2_bytes": nbytes, "dram_bytes": dram_w * p.sector, "latency": lat,
                     "evicted_dirty": evicted_dirty}
        return lat

    # ---- shared memory -------------------------------------------------------------------
    def shared(self, addresses, active, size: int, *, write: bool = False, group: int = 0) -> np.ndarray:
        """Latency of each warp's shared-memory access: the base latency plus one
        wavefront time per wavefront beyond the first (bank conflicts). `group`: lanes served
        together when not the default for `size` (banks.bank_conflicts; LDSM / STSM: 8)."""
        p = self.params
        waves = bank_conflicts(addresses, active, size, group)
        ideal = ideal_wavefronts(np.ones(np.shape(addresses), bool) if active is None else active, size)
        lat = np.where(waves > 0, p.lat_shared + (waves - 1) * p.shared_wavefront_cycles, 0.0)
        n = self._n
        n["shared_store_requests" if write else "shared_load_requests"] += int((waves > 0).sum())
        n["shared_wavefronts"] += int(waves.sum())
        n["shared_ideal_wavefronts"] += int(ideal.sum())
        n["shared_bank_conflicts"] += int(np.maximum(waves - ideal, 0).sum())
        self.last = {"wavefronts": waves, "ideal": ideal, "latency": lat}
        return lat

    # ---- constant cache ------------------------------------------------------------------
    def const_load(self, addresses, active, size: int, *, sm=0, now=None, uniform: bool = False,
                   smsp=None) -> np.ndarray:
        """ld.const (docs/timing-model.md section 3, "Constant memory"; pinned by
        benchmarks/timing/constmem/const.cu). Two levels per SM, 64-B lines: a 2 KiB 4-way first
        level that only LDC uses and a 64 KiB second level ("L1.5") behind it; misses of the L1.5
        come through L2 (and DRAM).

        LDC (`uniform=False`): `lat_const_hit` + `const_replay_cycles` per further distinct
        address of the warp + `const_l15_cycles` per line that misses the first level (fetched
        one after another). ULDC (`uniform=True`: ptxas proved the address warp-uniform,
        timing/uniformity.py): `uconst_hit_cycles` when the line is the one the warp's
        sub-partition (`smsp`, per warp; default its position mod 4) read last, else
        `uconst_l15_cycles`. Either way + `const_l2_cycles` if a line missed the L1.5, +
        `const_dram_cycles` if it missed the L2 too, + the L2/DRAM queues.
        self.last: passes (distinct addresses, 1 for ULDC), fetches (lines each warp brought
        from the L1.5 or beyond), latency."""
        p = self.params
        c = coalesce(addresses, active, size)
        n = c.n_warps
        lines = c.sectors >> np.uint64(6)
        first = np.ones(len(lines), bool)
        first[1:] = (lines[1:] != lines[:-1]) | (c.warp[1:] != c.warp[:-1])
        lines, lwarp = lines[first] << np.uint64(6), c.warp[first]
        part = self._part(sm, c, lwarp)
        if uniform:
            sub = (np.arange(n) if smsp is None else np.asarray(smsp, np.int64).reshape(n)) % 4
            fetch = self._uconst_fetch(lines, np.broadcast_to(part, lines.shape), sub[lwarp])
        else:
            fetch = ~self.const.access(lines, partition=part)
        f_lines, f_warp = lines[fetch], lwarp[fetch]
        f_part = part if np.ndim(part) == 0 else part[fetch]
        l15 = self.const_l15.access(f_lines, partition=f_part)
        mwarp = f_warp[~l15]
        sectors = (f_lines[~l15][:, None] + np.array([0, 32], np.uint64)).ravel()
        _, dram = self._l2_read(sectors, np.repeat(mwarp, 2), n, CacheOp.CA, EvictPriority.NORMAL, 0)
        fetches = np.bincount(f_warp, minlength=n)
        l15_miss = np.bincount(mwarp, minlength=n) > 0
        if uniform:
            passes = np.ones(n, np.int64)
            lat = np.where(fetches > 0, p.uconst_l15_cycles, p.uconst_hit_cycles)
        else:
            passes = distinct_addresses(addresses, active, size)
            lat = (p.lat_const_hit + np.maximum(passes - 1, 0) * p.const_replay_cycles
                   + fetches * p.const_l15_cycles)
        lat = lat + np.where(l15_miss, p.const_l2_cycles, 0.0) + np.where(dram > 0, p.const_dram_cycles, 0.0)
        lat += self._queue(np.bincount(mwarp, minlength=n) * 64, dram * p.sector, now)
        lat = np.where(c.requests > 0, lat, 0.0)
        counts = self._n
        counts["const_requests"] += int(c.requests.sum())
        counts["const_passes"] += int(np.where(c.requests > 0, passes, 0).sum())
        counts["const_hits"] += int((~fetch).sum())
        counts["const_misses"] += int(fetch.sum())
        counts["const_l15_misses"] += int((~l15).sum())
        self.last = {"passes": passes, "fetches": fetches, "latency": lat}
        return lat

    def _uconst_fetch(self, lines, part, sub) -> np.ndarray:
        """ULDC: whether each line (in warp order) is fetched from the L1.5, i.e. is not the line
        its (SM, sub-partition) read last; updates the line buffers."""
        key = np.asarray(part, np.int64) * 4 + sub
        order = np.argsort(key, kind="stable")
        k, ln = key[order], lines[order]
        prev = np.empty_like(ln)
        head = np.ones(len(k), bool)
        head[1:] = k[1:] != k[:-1]
        buf = self.uconst_line.reshape(-1)
        prev[head] = buf[k[head]]
        prev[~head] = ln[np.flatnonzero(~head) - 1]
        fetch = np.empty(len(k), bool)
        fetch[order] = ln != prev
        last = np.ones(len(k), bool)
        last[:-1] = k[1:] != k[:-1]
        buf[k[last]] = ln[last]
        return fetch

    # ---- atomics -------------------------------------------------------------------------
    def atomic(self, addresses, active, size: int, *, space: Space = Space.GLOBAL, sm=0,
               now=None) -> np.ndarray:
        """atom/red: global ones are performed at L2 (the SM's L1 copy is dropped), shared ones
        in the SM; lanes on the same address serialize."""
        p = self.params
        mult = same_address_multiplicity(addresses, active, size)
        n = self._n
        if space is Space.SHARED:
            waves = bank_conflicts(addresses, active, size)
            lat = (p.lat_atomic_shared + np.maximum(waves - 1, 0) * p.shared_wavefront_cycles
                   + np.maximum(mult - 1, 0) * p.shared_atomic_serial_cycles)
            lat = np.where(waves > 0, lat, 0.0)
            n["shared_atomic_requests"] += int((waves > 0).sum())
            n["shared_wavefronts"] += int(waves.sum())
        elif space is Space.GLOBAL:
            c = coalesce(addresses, active, size)
            self.l1.access(c.sectors, op=CacheOp.CV, partition=self._part(sm, c), record=False)
            wb = self.l2.stats["writeback_sectors"]
            hit = self.l2.access(c.sectors, write=True)
            dram = np.bincount(c.warp[~hit], minlength=c.n_warps)
            n["dram_bytes_read"] += int(dram.sum()) * p.sector
            n["dram_bytes_written"] += (self.l2.stats["writeback_sectors"] - wb) * p.sector
            n["l2_atomic_sectors"] += len(c.sectors)
            lat = (p.lat_atomic_global + np.where(dram > 0, p.lat_dram - p.lat_l2, 0)
                   + np.maximum(mult - 1, 0) * p.atomic_serial_cycles).astype(np.float64)
            lat += self._queue(c.n_sectors * p.sector, dram * p.sector, now)
            lat = np.where(c.requests > 0, lat, 0.0)
            n["atomic_requests"] += int(c.requests.sum())
        else:
            raise ValueError(f"atomic: no atomics on the {space.value} space")
        n["atomic_lanes"] += int(np.asarray(addresses).size if active is None else np.count_nonzero(active))
        n["atomic_serialized"] += int(np.maximum(mult - 1, 0).sum())
        self.last = {"latency": lat}
        return lat

    # ---- bookkeeping ---------------------------------------------------------------------
    def flush(self) -> int:
        """Write back every dirty L2 sector to DRAM (end of the kernel); returns bytes. Lines
        of fill_after_flush's memset are not the launch's: they are left out."""
        self.l2.clean_lines_from(_FLUSH_FILL_LINE)
        nbytes = self.l2.flush() * self.params.sector
        self._n["dram_bytes_written"] += nbytes
        self._n["dram_bytes_flushed"] += nbytes  # written back after the launch (not timed)
        return nbytes

    def count_partial_write_reads(self, sectors: int) -> None:
        """DRAM reads of partly written sectors that the L2 completes before writing them back
        (timing/trace.py Fills.charge_partial_writes decides which)."""
        self._n["dram_bytes_read"] += int(sectors) * self.params.sector
        self._n["dram_partial_write_reads"] += int(sectors)

    def counters(self) -> dict:
        n = dict(self._n)
        for key in ("requests", "sectors", "l1_hits", "l1_misses", "l2_hits", "l2_misses",
                    "dram_bytes_read", "dram_bytes_written", "shared_wavefronts"):
            n.setdefault(key, 0)
        n["l1_hit_rate"] = _rate(n["l1_hits"], n["l1_misses"])
        n["l2_hit_rate"] = _rate(n["l2_hits"], n["l2_misses"])
        loads = n.get("load_sectors", 0)
        load_req = sum(v for k, v in n.items() if k.endswith("_load_requests") and not k.startswith(("shared", "const")))
        n["sectors_per_request"] = loads / load_req if load_req else 0.0
        n["l2_busy_cycles"] = self.l2_queue.busy_cycles
        n["dram_busy_cycles"] = self.dram_queue.busy_cycles
        return n

    def _part(self, sm, c: Coalesced, warp_of=None):
        """The L1 partition of each sector (a scalar when all warps are on one SM)."""
        if np.ndim(sm) == 0:
            if not 0 <= int(sm) < self.simulated_sms:
                raise ValueError(f"sm index {sm} out of range 0..{self.simulated_sms - 1}")
            return int(sm)
        s = np.asarray(sm, np.int64).reshape(c.n_warps)
        if len(s) and (s.min() < 0 or s.max() >= self.simulated_sms):
            raise ValueError(f"sm index out of range 0..{self.simulated_sms - 1}")
        return s[c.warp if warp_of is None else warp_of]


def _per_warp_max(level: np.ndarray, c: Coalesced, floor: int) -> np.ndarray:
    """Per warp, the largest `level` of its sectors (at least `floor`)."""
    worst = np.full(c.n_warps, floor, np.int64)
    has = c.n_sectors > 0
    if len(level):
        worst[has] = np.maximum(np.maximum.reduceat(level, c.offsets[:-1][has]), floor)
    return worst


def _as_coalesced(sectors) -> Coalesced:
    return sectors if isinstance(sectors, Coalesced) else from_sectors(sectors)


def _at(now, mask):
    if now is None or np.ndim(now) == 0:
        return now
    return np.asarray(now)[mask]


def _rate(hits: int, misses: int) -> float:
    return hits / (hits + misses) if hits + misses else 0.0
