"""The event trace of a launch, for the timing model (ptxvm.timing).

Tracing is off unless a launch is given a `Tracer`. Then, for the CTAs the tracer was asked to
follow, every scheduler step that involves one of their warps becomes a `TraceStep`: the PC, the
warps that issue the instruction, each warp's mask of lanes that execute it (guard included), and
for memory instructions each lane's address in its state space. Records are NumPy arrays over the
traced warps of the step, never per thread. Static facts about each instruction (op class,
registers, cache qualifiers) are in `Trace.info(pc)` (engine/trace/info.py).

Addresses: global addresses are the virtual device's; shared addresses are offsets in the CTA's
shared window, with the cluster window's rank bits kept (bits 24 and up: 0 for the CTA's own
.shared::cta window, rank + 1 for a .shared::cluster address, engine/core/memory.py; compare with
`Trace.ranks()` to tell distributed shared memory from the CTA's own); local (and function .param) addresses are laid out as the hardware interleaves
local memory, 4-byte words of the 32 lanes of a warp side by side, in a region of their own;
constant and kernel-parameter addresses are offsets in their banks.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional, Union

import numpy as np

from ..core.machine import EXITED
from ..core.memory import (CLUSTER_OFFSET_MASK, CONST_WINDOW, GLOBAL_BASE, LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW,
                           classify_generic)
from .info import SPACE_CODES, InstrInfo, describe

LOCAL_REGION = 1 << 56  # where interleaved local-memory addresses are placed in the trace
_WINDOW_OF_CODE = np.array([0, SHARED_WINDOW, LOCAL_WINDOW, CONST_WINDOW, PARAM_WINDOW], dtype=np.uint64)


@dataclass(frozen=True)
class AsyncRefs:
    """What an asynchronous copy or an mbarrier operation addresses (the lowered Op's `copy`), read
    by the event trace only. kind: "copy" (cp.async: src global, dst shared, size bytes per lane),
    "bulk" (cp.async.bulk global -> shared: src, dst, size per lane and the mbarrier `bar`),
    "tensor" (cp.async.bulk.tensor global -> shared: `bar`, and `box(ctx, slot)` -> (global byte
    addresses of the box's in-bounds elements, element size) or None), "mbarrier" (arrive /
    expect_tx / complete_tx / test_wait / try_wait, cp.async.mbarrier.arrive: `bar`). Readers
    are `reader(ctx, lanes)`; spaces None mean generic addresses."""

    kind: str
    src: Optional[Callable] = None
    src_space: Optional[str] = None
    dst: Optional[Callable] = None
    dst_space: Optional[str] = None
    size: Union[int, Callable, None] = None
    bar: Optional[Callable] = None
    bar_space: Optional[str] = None
    box: Optional[Callable] = None


@dataclass
class TraceStep:
    pc: int
    warps: np.ndarray  # int64: rows of Trace.warp_cta / warp_index that issue this instruction
    active: np.ndarray  # uint32 per warp: the lanes that execute it (guard true)
    addr: Optional[np.ndarray] = None  # uint64 (warps, 32): per-lane address; 0 where not active
    space: Optional[np.ndarray] = None  # uint8 per warp: SPACE_CODES of a generic access
    # async copies and mbarrier operations (AsyncRefs): (warps, 32) arrays "src" (global, for bulk
    # copies; a cp.async's source is `addr`), "dst" and "bar" (shared offsets), "size" (bytes);
    # tensor copies: "boxes", per warp the global sector addresses of its lanes' boxes and their bytes
    copy: Optional[dict] = None
    # warp-matrix memory instructions (wmma.load/store, ldmatrix, stmatrix; engine/trace/matrix.py):
    # per machine access, ((warps, 32) uint64 addresses, 0 where a lane takes no part; bytes per lane;
    # (warps, 32) bool lanes that take part); `space` as for `addr`
    parts: Optional[list] = None


@dataclass
class Trace:
    """What the traced warps executed, in the engine's order (the order the caches see)."""

    program: object
    threads_per_cta: int
    steps: list[TraceStep] = field(default_factory=list)
    warp_cta: list[np.ndarray] = field(default_factory=list)  # per wave: CTA id of each traced warp
    warp_index: list[np.ndarray] = field(default_factory=list)  # per wave: warp index within its CTA
    warp_lanes: list[np.ndarray] = field(default_factory=list)  # per wave: threads in each traced warp
    # clusters: the CTAs per cluster, and per wave each traced warp's CTA rank in its cluster
    # (%cluster_ctarank); a shared address whose rank bits name another rank is distributed shared memory
    cluster_size: int = 1
    warp_rank: list[np.ndarray] = field(default_factory=list)
    _info: dict = field(default_factory=dict)

    def info(self, pc: int) -> InstrInfo:
        got = self._info.get(pc)
        if got is None:
            got = self._info[pc] = describe(self.program.code[pc], pc)
        return got

    def warps(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(CTA id, warp index in the CTA, threads) of every traced warp, by row."""
        if not self.warp_cta:
            z = np.zeros(0, dtype=np.int64)
            return z, z, z
        return np.concatenate(self.warp_cta), np.concatenate(self.warp_index), np.concatenate(self.warp_lanes)

    def ranks(self) -> np.ndarray:
        """The cluster rank of every traced warp's CTA, by row (0 without clusters)."""
        if not self.warp_rank:
            return np.zeros(sum(x.size for x in self.warp_cta), dtype=np.int64)
        return np.concatenate(self.warp_rank)


def _requests_per_line(warp: np.ndarray, addr: np.ndarray) -> dict:
    """Warp requests per 128-B line: each warp's atomics on one line go together."""
    pairs = np.unique(np.stack([warp.astype(np.uint64), addr >> np.uint64(7)]), axis=1)
    lines, counts = np.unique(pairs[1], return_counts=True)
    return dict(zip(lines.tolist(), counts.tolist()))


class Footprint:
    """The 32-byte sectors of global memory that any thread of the launch loaded (every CTA, not
    only the followed ones): how much distinct data the whole grid reads."""

    def __init__(self):
        self.seen = np.zeros(0, dtype=bool)
        self.written = np.zeros(0, dtype=bool)  # sectors stored to
        self.atomic_lines: dict[int, int] = {}  # 128-B line (device address >> 7) -> atomics on it (count_atomics)
        # set by the timing model (ptxvm.timing.atomics): the atomic Ops ptxas issues once per warp
        # (by id) and how the L2 work of one step's lanes (warp ids, addresses) is counted per line
        self.aggregated: frozenset = frozenset()
        self.count_atomics = _requests_per_line
        self._loads: dict[int, str] = {}

    @property
    def sectors(self) -> int:
        """Distinct sectors loaded."""
        return int(np.count_nonzero(self.seen))

    def chunks(self, sectors_per_chunk: int) -> int:
        """Distinct aligned chunks of `sectors_per_chunk` sectors loaded (DRAM fetches whole chunks)."""
        k = int(sectors_per_chunk)
        if k <= 1:
            return self.sectors
        seen = self.seen
        pad = (-seen.size) % k
        if pad:
            seen = np.concatenate([seen, np.zeros(pad, dtype=bool)])
        return int(np.count_nonzero(seen.reshape(-1, k).any(axis=1)))

    @property
    def all_sectors(self) -> int:
        """Distinct sectors loaded or stored."""
        n = min(self.seen.size, self.written.size)
        both = int(np.count_nonzero(self.seen[:n] & self.written[:n]))
        return self.sectors + int(np.count_nonzero(self.written)) - both

    def _kind(self, op) -> str:
        """"load" or "atomic" for global loads / atomics, "" for anything else."""
        got = self._loads.get(id(op))
        if got is None:
            origin = getattr(op, "origin", None)
            got = ""
            if op.addr is not None and op.space in (None, "global") and origin is not None:
                got = {"ld": "load", "ldu": "load", "st": "store", "atom": "atomic",
                       "red": "atomic"}.get(origin[0].opcode, "")
            self._loads[id(op)] = got
        return got

    def record_copy(self, sectors: np.ndarray) -> None:
        """Global sectors (indices from GLOBAL_BASE) an asynchronous copy reads."""
        self._mark("seen", sectors)

    def _mark(self, name: str, sec: np.ndarray) -> None:
        bitmap = getattr(self, name)
        limit = int(sec.max()) + 1 if sec.size else 0
        if bitmap.size < limit:
            grown = np.zeros(limit, dtype=bool)
            grown[: bitmap.size] = bitmap
            bitmap = grown
            setattr(self, name, bitmap)
        bitmap[sec] = True

    def record(self, ctx, op, lanes: Optional[np.ndarray]) -> None:
        kind = self._kind(op)
        if not kind:
            return
        addr = np.asarray(op.addr(ctx, lanes)).astype(np.uint64, copy=False)
        n = ctx.n if lanes is None else lanes.size
        addr = np.broadcast_to(addr, (n,))
        keep = None
        if op.guard is not None:
            slot, negated = op.guard
            p = ctx.regs[slot] if lanes is None else ctx.regs[slot][lanes]
            keep = ~p if negated else p
        if lanes is None and ctx.n_live != ctx.n:
            live = ctx.status != EXITED
            keep = live if keep is None else keep & live
        warp = ctx.warp_of if lanes is None else ctx.warp_of[lanes]
        if keep is not None:
            addr, warp = addr[keep], warp[keep]
        valid = addr >= np.uint64(GLOBAL_BASE)
        if op.space is None:
            valid &= classify_generic(addr) == 0
        addr, warp = addr[valid], warp[valid]
        if kind == "atomic":  # what the L2 does per line, as `count_atomics` counts it
            if id(op) in self.aggregated:  # ptxas sends one request per warp: its first lane's
                warp, first = np.unique(warp, return_index=True)
                addr = addr[first]
            got = self.atomic_lines
            for line, k in self.count_atomics(warp, addr).items():
                got[line] = got.get(line, 0) + k
            return
        sec = ((addr - np.uint64(GLOBAL_BASE)) >> np.uint64(5)).astype(np.int64)
        limit = ctx.gmem.arena.size // 32 + 1
        self._mark("written" if kind == "store" else "seen", sec[sec < limit])


class WorkCount:
    """How many instructions each warp of every CTA of a launch issued (warp-instructions,
    `per_warp[cta, warp]`), counted on the scheduler steps the tracer sees: the timing model
    picks the SM whose CTAs have the most work or the longest warp (timing/critical.py)."""

    def __init__(self, ctas: int, warps_per_cta: int):
        self.per_warp = np.zeros((ctas, warps_per_cta), dtype=np.int64)
        self.waves: list = []

    def wave(self, ctx, ctas: np.ndarray) -> "WaveWork":
        w = WaveWork(ctx, ctas, self.per_warp.shape[1])
        self.waves.append(w)
        return w

    def finish(self) -> np.ndarray:
        """Fold the waves' counts into `per_warp` (idempotent) and return it."""
        for w in self.waves:
            self.per_warp[w.ctas] += w.counts.reshape(w.ctas.size, -1) + w.all_live
        self.waves = []
        return self.per_warp


class WaveWork:
    """One wave's warp-instruction counts. Steps that every slot issues (uniform mode, nothing
    exited) only bump `all_live`; other steps add one to each distinct warp of their lanes."""

    def __init__(self, ctx, ctas: np.ndarray, warps_per_cta: int):
        self.ctas = np.asarray(ctas, dtype=np.int64)
        self.counts = np.zeros(self.ctas.size * warps_per_cta, dtype=np.int64)
        self.all_live = 0
        self._live_key = -1
        self._live_warps: Optional[np.ndarray] = None

    def step(self, ctx, lanes: Optional[np.ndarray]) -> None:
        if lanes is None:
            if ctx.n_live == ctx.n:
                self.all_live += 1
                return
            if ctx.n_live != self._live_key:  # the live set changes only when threads exit
                self._live_key = ctx.n_live
                self._live_warps = _distinct_sorted(ctx.warp_of[ctx.live_lanes()])
            self.counts[self._live_warps] += 1
        elif lanes.size:
            self.counts[_distinct_sorted(ctx.warp_of[lanes])] += 1


def _distinct_sorted(w: np.ndarray) -> np.ndarray:
    """The distinct values of a non-decreasing array (lanes are sorted, warps are runs of slots)."""
    if w.size < 2:
        return w
    first = np.empty(w.size, dtype=bool)
    first[0] = True
    np.not_equal(w[1:], w[:-1], out=first[1:])
    return w[first]


class Tracer:
    """Follows the CTAs whose linear ids are in `ctas` (all of them when None); with a
    `footprint`, also records which global sectors every CTA loads; with a `work`
    (WorkCount), also counts every CTA's warp-instructions."""

    def __init__(self, program, threads_per_cta: int, ctas: Optional[np.ndarray] = None,
                 footprint: Optional[Footprint] = None, work: Optional[WorkCount] = None):
        self.trace = Trace(program, threads_per_cta)
        self.ctas = None if ctas is None else np.unique(np.asarray(ctas, dtype=np.int64))
        self.rows = 0
        self.footprint = footprint
        self.work = work

    def wave(self, ctx, ctas: np.ndarray) -> Optional["WaveTracer"]:
        """The recorder for a wave that runs CTAs `ctas` (by slot), or None if it has nothing to do."""
        ctas = np.asarray(ctas, dtype=np.int64)
        slots = np.arange(ctas.size) if self.ctas is None else np.flatnonzero(np.isin(ctas, self.ctas))
        if slots.size == 0 and self.footprint is None and self.work is None:
            return None
        w = WaveTracer(self, ctx, ctas, slots)
        self.rows += w.n_warps
        return w


class WaveTracer:
    def __init__(self, tracer: Tracer, ctx, ctas: np.ndarray, slots: np.ndarray):
        T = tracer.trace.threads_per_cta
        wpc = -(-T // 32)
        self.trace = tracer.trace
        self.footprint = tracer.footprint
        self.work = tracer.work.wave(ctx, ctas) if tracer.work is not None else None
        self.base = tracer.rows
        self.n_warps = slots.size * wpc
        t = np.arange(T)
        self.ts = (slots[:, None] * T + t).ravel()  # traced thread slots, in slot order
        row = (np.arange(slots.size)[:, None] * wpc + t // 32).ravel()
        self.flat = row * 32 + np.tile(t % 32, slots.size)
        self.dense = T % 32 == 0
        self.all_slots = self.ts.size == ctx.n
        if not slots.size:
            return
        self.trace.warp_cta.append(np.repeat(ctas[slots], wpc))
        self.trace.warp_index.append(np.tile(np.arange(wpc), slots.size))
        self.trace.warp_lanes.append(np.tile(np.minimum(32, T - np.arange(wpc) * 32), slots.size))
        self.trace.cluster_size = int(getattr(ctx, "cluster_size", 1) or 1)
        self.trace.warp_rank.append(np.repeat(_cluster_ranks(ctx, slots, T), wpc))
        self.local_stride = getattr(getattr(ctx, "local", None), "stride", 0)
        self.gwarp = self.base + row  # trace row of each traced thread's warp

    def _matrix(self, values: np.ndarray, fill=0) -> np.ndarray:
        """Per traced thread -> (warps, 32)."""
        if self.dense:
            return values.reshape(self.n_warps, 32)
        out = np.full(self.n_warps * 32, fill, dtype=values.dtype)
        out[self.flat] = values
        return out.reshape(self.n_warps, 32)

    def step(self, ctx, pc: int, op, lanes: Optional[np.ndarray], mask: Optional[np.ndarray]) -> None:
        if self.work is not None:
            self.work.step(ctx, lanes)
        if self.footprint is not None and op.addr is not None:
            self.footprint.record(ctx, op, lanes)
        if self.footprint is not None and op.copy is not None and (op.copy.src is not None or op.copy.box is not None):
            self._copy_footprint(ctx, op, lanes)
        if self.footprint is not None and op.matrix is not None and op.matrix.space != "shared":
            self._matrix_footprint(ctx, op, lanes)
        if not self.n_warps:
            return
        ts = self.ts
        if lanes is None:
            group = None if ctx.n_live == ctx.n else ctx.status[ts] != EXITED
        elif mask is not None and mask.size == ctx.n:
            group = mask[ts]
        else:
            pos = np.minimum(np.searchsorted(lanes, ts), lanes.size - 1)
            group = lanes[pos] == ts
        if group is not None and not group.any():
            return
        act = group
        if op.guard is not None:
            slot, negated = op.guard
            p = ctx.regs[slot][ts]
            p = ~p if negated else p
            act = p if group is None else (group & p)
        if group is None:
            warps = np.arange(self.n_warps)
            g_matrix = None
        else:
            g_matrix = self._matrix(group, False)
            warps = np.flatnonzero(g_matrix.any(axis=1))
        if act is None:
            a_matrix = None
            active = np.full(warps.size, 0xFFFFFFFF, dtype=np.uint32) if self.dense else \
                _pack(self._matrix(np.ones(ts.size, bool), False))[warps]
        else:
            a_matrix = self._matrix(act, False)
            active = _pack(a_matrix)[warps]
        rec = TraceStep(pc, warps + self.base, active)
        if op.addr is not None:
            self._addresses(ctx, op, rec, warps, a_matrix)
        if op.copy is not None:
            self._copy(ctx, op.copy, rec, warps, a_matrix)
        if op.matrix is not None:
            self._matrix_parts(ctx, op.matrix, rec, warps, a_matrix)
        self.trace.steps.append(rec)

    def _matrix_parts(self, ctx, refs, rec: TraceStep, warps, a_matrix) -> None:
        """The machine accesses of a wmma.load/store, ldmatrix or stmatrix (engine/trace/matrix.py)."""
        ts = self.ts
        lanes = None if self.all_slots else ts
        base = self._matrix(np.broadcast_to(np.asarray(refs.base(ctx, lanes)), ts.shape).astype(np.uint64), 0)[warps]
        if refs.stride is not None:
            stride = self._matrix(np.broadcast_to(np.asarray(refs.stride(ctx, lanes)), ts.shape).astype(np.int64), 0)
            stride = stride[warps, 0]
        else:
            stride = np.full(warps.size, refs.default_stride, np.int64)
        act = np.ones((warps.size, 32), bool) if a_matrix is None else a_matrix[warps]
        parts = []
        codes = None
        for addr, size, mask in refs.parts(base, stride):
            addr = np.broadcast_to(addr, act.shape)
            take = act & ((np.uint32(mask) >> np.arange(32, dtype=np.uint32)) & np.uint32(1)).astype(bool)[None, :]
            if refs.space is None:  # generic: each lane's window says its space
                lane_codes = classify_generic(addr)
                addr = addr - _WINDOW_OF_CODE[lane_codes]
                if codes is None:
                    codes = lane_codes[np.arange(addr.shape[0]), np.argmax(take, axis=1)]
            parts.append((np.where(take, addr, np.uint64(0)), size, take))
        if codes is not None:
            rec.space = codes.astype(np.uint8)
        rec.parts = parts

    def _matrix_footprint(self, ctx, op, lanes) -> None:
        """The global sectors a wmma.load/store of any CTA touches (the grid's footprint)."""
        refs = op.matrix
        if refs.frag is None:
            return
        slots = np.arange(ctx.n) if lanes is None else np.asarray(lanes)
        keep = ctx.status[slots] != EXITED
        if op.guard is not None:
            slot, negated = op.guard
            p = ctx.regs[slot][slots]
            keep &= ~p if negated else p
        slots = slots[keep]
        if not slots.size:
            return
        first = np.unique(slots - ctx.laneid[slots].astype(slots.dtype))  # lane 0 of each warp
        base = np.broadcast_to(np.asarray(refs.base(ctx, first)), first.shape).astype(np.uint64)[:, None]
        if refs.stride is not None:
            stride = np.broadcast_to(np.asarray(refs.stride(ctx, first)), first.shape).astype(np.int64)
        else:
            stride = np.full(first.size, refs.default_stride, np.int64)
        limit = ctx.gmem.arena.size // 32 + 1
        for addr, size, mask in refs.parts(base, stride):
            a = np.broadcast_to(addr, (first.size, 32)).ravel()
            a = a[a >= np.uint64(GLOBAL_BASE)]
            if refs.space is None:
                a = a[classify_generic(a) == 0]
            sec = ((a - np.uint64(GLOBAL_BASE)) >> np.uint64(5)).astype(np.int64)
            sec = np.unique(np.concatenate([sec, ((a + np.uint64(size - 1) - np.uint64(GLOBAL_BASE)) >> np.uint64(5))
                                            .astype(np.int64)]))
            self.footprint._mark("seen" if refs.load else "written", sec[sec < limit])

    def _lane_matrix(self, ctx, reader, warps, a_matrix, dtype=np.uint64) -> np.ndarray:
        """A reader's per-lane values as (warps, 32), 0 where a lane is not active."""
        ts = self.ts
        v = np.broadcast_to(np.asarray(reader(ctx, None if self.all_slots else ts)), ts.shape).astype(dtype)
        m = self._matrix(v, 0)[warps]
        return m if a_matrix is None else np.where(a_matrix[warps], m, dtype(0))

    def _copy(self, ctx, refs: "AsyncRefs", rec: TraceStep, warps, a_matrix) -> None:
        """Addresses of an async copy / mbarrier operation: global sources in the device's
        addresses (a cp.async's in `rec.addr`, as a load's), shared ones as offsets in the CTA's window."""
        out: dict = {}
        if refs.src is not None:
            src = self._lane_matrix(ctx, refs.src, warps, a_matrix)
            if refs.kind == "copy":
                rec.addr = src
            else:
                out["src"] = src
        for key, reader in (("dst", refs.dst), ("bar", refs.bar)):
            if reader is not None:
                out[key] = _shared_offsets(self._lane_matrix(ctx, reader, warps, a_matrix))
        if refs.size is not None:
            out["size"] = (np.full((warps.size, 32), refs.size, np.int64) if isinstance(refs.size, int)
                           else self._lane_matrix(ctx, refs.size, warps, a_matrix, np.int64))
        if refs.box is not None:
            out["boxes"] = self._boxes(ctx, refs.box, warps, a_matrix)
        rec.copy = out

    def _boxes(self, ctx, box, warps, a_matrix) -> list:
        """Per warp: (sector addresses, bytes) of the tensor boxes its active lanes copy."""
        slots = self._matrix(self.ts.astype(np.int64), -1)[warps]
        act = np.ones(slots.shape, bool) if a_matrix is None else a_matrix[warps]
        act &= slots >= 0
        out = []
        for w in range(warps.size):
            secs, nbytes = [], 0
            for slot in slots[w][act[w]].tolist():
                got = box(ctx, slot)
                if got is not None and got[0].size:
                    secs.append(np.unique(got[0] >> np.uint64(5)) << np.uint64(5))
                    nbytes += got[0].size * got[1]
            out.append((np.unique(np.concatenate(secs)) if secs else np.zeros(0, np.uint64), nbytes))
        return out

    def _copy_footprint(self, ctx, op, lanes) -> None:
        """The global sectors an async copy of any CTA reads (the grid's footprint)."""
        refs = op.copy
        n = ctx.n if lanes is None else lanes.size
        if refs.box is not None:
            self._box_footprint(ctx, op, np.arange(n) if lanes is None else lanes)
            return
        src = np.broadcast_to(np.asarray(refs.src(ctx, lanes)), (n,)).astype(np.uint64)
        size = np.broadcast_to(np.asarray(refs.size if isinstance(refs.size, int) else refs.size(ctx, lanes)),
                               (n,)).astype(np.int64)
        keep = src >= np.uint64(GLOBAL_BASE)
        if op.guard is not None:
            slot, negated = op.guard
            p = ctx.regs[slot] if lanes is None else ctx.regs[slot][lanes]
            keep &= ~p if negated else p
        if lanes is None and ctx.n_live != ctx.n:
            keep &= ctx.status != EXITED
        src, size = src[keep], size[keep]
        if not src.size:
            return
        first = ((src - np.uint64(GLOBAL_BASE)) >> np.uint64(5)).astype(np.int64)
        last = ((src + size.astype(np.uint64) - np.uint64(1) - np.uint64(GLOBAL_BASE)) >> np.uint64(5)).astype(np.int64)
        count = np.where(size > 0, np.maximum(last - first + 1, 0), 0)
        sec = np.repeat(first, count) + (np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count))
        limit = ctx.gmem.arena.size // 32 + 1
        self.footprint.record_copy(sec[sec < limit])

    def _box_footprint(self, ctx, op, slots: np.ndarray) -> None:
        keep = np.ones(slots.size, bool)
        if op.guard is not None:
            slot, negated = op.guard
            p = ctx.regs[slot][slots]
            keep &= ~p if negated else p
        keep &= ctx.status[slots] != EXITED
        limit = ctx.gmem.arena.size // 32 + 1
        for s in slots[keep].tolist():
            got = op.copy.box(ctx, s)
            if got is not None and got[0].size:
                sec = ((got[0] - np.uint64(GLOBAL_BASE)) >> np.uint64(5)).astype(np.int64)
                self.footprint.record_copy(np.unique(sec[(sec >= 0) & (sec < limit)]))

    def _addresses(self, ctx, op, rec: TraceStep, warps: np.ndarray, a_matrix) -> None:
        ts = self.ts
        addr = np.asarray(op.addr(ctx, None if self.all_slots else ts))
        addr = np.broadcast_to(addr, ts.shape).astype(np.uint64)
        space = op.space
        codes = None
        if space is None:  # generic: each lane's window says its space
            lane_codes = classify_generic(addr)
            addr = addr - _WINDOW_OF_CODE[lane_codes]
            codes = self._matrix(lane_codes, 0)
            space_rows = codes[np.arange(codes.shape[0]), np.argmax(a_matrix, axis=1) if a_matrix is not None else 0]
            rec.space = space_rows[warps]
            lane_local = lane_codes == SPACE_CODES["local"]
            if lane_local.any():
                addr = np.where(lane_local, self._interleave(addr), addr)
        elif space in ("local", "fparam"):
            addr = self._interleave(addr)
        m = self._matrix(addr, 0)[warps]
        if a_matrix is not None:
            m = np.where(a_matrix[warps], m, np.uint64(0))
        rec.addr = m

    def _interleave(self, offset: np.ndarray) -> np.ndarray:
        """Per-thread local offsets -> the hardware's layout: word i of lane l of warp w at
        w * stride * 32 + i * 128 + l * 4."""
        lane = np.tile(np.arange(32, dtype=np.uint64), -(-offset.size // 32))[: offset.size]
        if not self.dense:
            lane = (self.flat % 32).astype(np.uint64)
        warp = self.gwarp.astype(np.uint64)
        stride = np.uint64(max(self.local_stride, 16) * 32)
        word = offset >> np.uint64(2)
        return np.uint64(LOCAL_REGION) + warp * stride + word * np.uint64(128) + lane * np.uint64(4) + (offset & np.uint64(3))


def _cluster_ranks(ctx, slots: np.ndarray, threads_per_cta: int) -> np.ndarray:
    """%cluster_ctarank of the CTAs in wave slots `slots` (0 without clusters): what the program
    sees, also when a profile runs only some CTAs of the launch (engine/control/cluster.py)."""
    rank = getattr(ctx, "sreg", {}).get("%cluster_ctarank")
    if rank is None or np.ndim(rank) == 0:
        return np.zeros(slots.size, dtype=np.int64) + (int(rank) if rank is not None else 0)
    return np.asarray(rank)[slots.astype(np.int64) * threads_per_cta].astype(np.int64)


def _shared_offsets(addr: np.ndarray) -> np.ndarray:
    """Shared addresses (generic, .shared::cta or .shared::cluster) -> offsets in the CTA's window."""
    generic = (addr >= np.uint64(SHARED_WINDOW)) & (addr < np.uint64(SHARED_WINDOW + (1 << 32)))
    addr = np.where(generic, addr - np.uint64(SHARED_WINDOW), addr)
    return addr & np.uint64(CLUSTER_OFFSET_MASK)


def _pack(matrix: np.ndarray) -> np.ndarray:
    """(warps, 32) bool -> uint32 lane masks (lane 0 = bit 0)."""
    return np.packbits(matrix, axis=1, bitorder="little").view("<u4").ravel()
