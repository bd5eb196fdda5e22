"""ptxvm's instruction tracer: one record per executed instruction per warp.

    trace = kernel.trace(grid, block, args, ctas=[(0, 0, 0)], warps=[0], opcodes=["ld", "st"])
    for r in trace: r.cta, r.warp, r.mask, r.pc, r.text, r.writes, r.addresses
    trace.to_jsonl("k.jsonl")

It observes the launch through the engine's hooks (ptxvm/engine/core/hooks.py): `issue` names the
instruction and its group of lanes (the guard is applied there, before the instruction can change
its own predicate), `access` gives the addresses of ld/st/atom/red, and the registers an
instruction wrote are read when the scheduler issues the next instruction (or the wave ends):
the scheduler runs one instruction at a time, so nothing else has written them in between. A
group may span many warps (every resident CTA in lockstep); it is split into per-warp records
with NumPy over its lanes.

Values are raw register bits as lowercase hex strings ("0x3f800000" for the f32 1.0; predicates
are "0x0"/"0x1"), per lane: lists of 32 entries, null for lanes that did not execute the
instruction. Addresses are the same (space-relative for ld.shared etc., generic addresses as
given for generic ld/st).
"""
from __future__ import annotations

import bisect
import json
from dataclasses import dataclass, field
from typing import Iterable, Optional

import numpy as np

from ..engine.core.hooks import LaunchHooks
from .sanitizer.source import source_lines

WARP = 32


@dataclass
class TraceRecord:
    cta: tuple  # (x, y, z)
    warp: int  # warp index within the CTA
    mask: int  # lanes that executed it (group and guard)
    pc: int
    text: str
    opcode: str
    ptx_file: str
    ptx_line: int
    source: Optional[tuple]  # (file, line) from .file/.loc, None without one
    writes: dict = field(default_factory=dict)  # register name -> raw bits per lane, np.uint64[32] (16-byte items for .b128); lanes off the mask: 0
    space: Optional[str] = None  # memory instructions: the state space ("generic" for generic addressing)
    size: int = 0  # bytes per lane accessed
    addresses: Optional[np.ndarray] = None  # np.uint64[32]
    address_mask: int = 0  # lanes with an address (the lanes that accessed memory)

    def to_dict(self) -> dict:
        d = {"cta": list(self.cta), "warp": self.warp, "mask": f"0x{self.mask:08x}", "pc": self.pc,
             "ptx": self.text, "opcode": self.opcode, "ptx_loc": f"{self.ptx_file}:{self.ptx_line}",
             "source": f"{self.source[0]}:{self.source[1]}" if self.source is not None else None,
             "writes": {name: _lanes_hex(v, self.mask) for name, v in self.writes.items()}}
        if self.space is not None:
            d["space"] = self.space
            d["size"] = self.size
            d["addresses"] = _lanes_hex(self.addresses, self.address_mask) if self.addresses is not None else None
        return d

    def lanes(self) -> np.ndarray:
        """The lane numbers of the mask."""
        return np.flatnonzero((self.mask >> np.arange(WARP)) & 1)


def _raw(v: np.ndarray) -> np.ndarray:
    """Register values as raw bits: uint64, or the storage's own dtype for registers wider than
    64 bits (.b128, kept as 16 bytes)."""
    if v.dtype == np.bool_:
        return v.astype(np.uint64)
    if v.dtype.itemsize <= 8 and v.dtype.kind in "iuf":
        return v.view(f"u{v.dtype.itemsize}").astype(np.uint64)
    return v


def _lanes_hex(values: np.ndarray, mask: int) -> list:
    if values.dtype == np.uint64:
        vals = values.tolist()
    else:  # wider than 64 bits: little-endian bytes
        vals = [int.from_bytes(np.asarray(v).tobytes(), "little") for v in values]
    return [hex(int(v)) if (mask >> i) & 1 else None for i, v in enumerate(vals)]


class Trace(list):
    """The records of a traced launch (a list), the launch's statistics and its fault if it faulted."""

    stats = None
    fault = None

    def to_jsonl(self, path) -> None:
        with open(path, "w") as f:
            for r in self:
                f.write(json.dumps(r.to_dict()) + "\n")

    def jsonl(self) -> Iterable[str]:
        return (json.dumps(r.to_dict()) for r in self)


class Tracer(LaunchHooks):
    def __init__(self, kernel, ctas=None, warps=None, pc_range=None, opcodes=None):
        module = kernel.module
        prog = module.lazy_program.ensure(kernel.name)
        self.code = prog.code
        self.prog = prog
        self.records = Trace()
        self.ctas = ctas
        self.warps = None if warps is None else np.asarray(list(warps), dtype=np.int64)
        self.pc_range = pc_range
        self.opcodes = None if opcodes is None else {o.strip() for o in opcodes}
        self._source = source_lines(module.ast)
        self._starts = sorted((f.entry_pc, f) for f in prog.functions.values() if f.entry_pc >= 0)
        self._dests: dict[int, list] = {}  # pc -> [(name, slot)]
        self.launch = None
        self.pending = None
        self.traced = None  # bool over thread slots: the CTAs and warps traced

    # -- static facts of an instruction
    def _opcode(self, op) -> str:
        origin = op.origin
        return origin[0].opcode if origin is not None else (op.text.split()[0].split(".")[0] if op.text else "ret")

    def _dest_slots(self, pc: int, op) -> list:
        d = self._dests.get(pc)
        if d is None:
            from ..engine.trace.info import describe

            try:
                names = describe(op, pc).writes
            except Exception:  # noqa: BLE001 - an instruction the describer does not know: no values
                names = ()
            i = bisect.bisect_right([s for s, _ in self._starts], pc) - 1
            by_name: dict = {}
            if i >= 0:
                regnames = self.prog.regs.names
                for slot in self._starts[i][1].reg_slots:
                    by_name.setdefault(regnames[slot], slot)
            d = [(n, by_name[n]) for n in names if n in by_name]
            self._dests[pc] = d
        return d

    def _wanted(self, pc: int, op) -> bool:
        if self.pc_range is not None and not (self.pc_range[0] <= pc < self.pc_range[1]):
            return False
        return self.opcodes is None or self._opcode(op) in self.opcodes

    # -- hooks
    def begin_wave(self, ctx, ctas, launch) -> None:
        self.launch = launch
        traced = np.ones(ctx.n, dtype=bool)
        if self.ctas is not None:
            gx, gy, _ = launch.grid
            ids = [c if isinstance(c, (int, np.integer)) else
                   int(c[0]) + gx * (int(c[1]) + gy * int(c[2])) for c in self.ctas]
            traced &= np.isin(ctx.cta_linear, np.asarray(ids, dtype=np.int64))
        if self.warps is not None:
            traced &= np.isin(ctx.thread_linear // WARP, self.warps)
        self.traced = traced
        self.all_slots = np.arange(ctx.n)

    def end_wave(self, ctx) -> None:
        self._complete(ctx)

    def issue(self, ctx, pc, op, lanes) -> None:
        self._complete(ctx)
        if not self._wanted(pc, op):
            return
        group = ctx.lanes_or_live(lanes) if lanes is not None or ctx.n_live != ctx.n else self.all_slots
        group = group[self.traced[group]]
        if not group.size:
            return
        active = group
        if op.guard is not None:
            slot, negated = op.guard
            p = ctx.regs[slot][group]
            active = group[~p if negated else p]
        self.pending = [pc, op, group, active, []]

    def access(self, ctx, lanes, addr, size, acc, kind, values=None):
        if self.pending is not None:
            self.pending[4].append((lanes, np.asarray(addr, dtype=np.uint64), size, acc))
        return None

    # -- records
    def _complete(self, ctx) -> None:
        p = self.pending
        if p is None:
            return
        self.pending = None
        pc, op, group, active, accesses = p
        launch = self.launch
        warp_of = ctx.warp_of
        warps, first = np.unique(warp_of[group], return_index=True)
        heads = group[first]  # a slot of each warp
        nw = warps.size
        lane = ctx.laneid
        # the mask of each warp
        masks = np.zeros(nw, dtype=np.uint64)
        rows = np.searchsorted(warps, warp_of[active])
        np.bitwise_or.at(masks, rows, np.uint64(1) << lane[active].astype(np.uint64))
        writes = []
        if active.size:
            for name, slot in self._dest_slots(pc, op):
                v = _raw(ctx.regs[slot][active])
                m = np.zeros((nw, WARP), dtype=v.dtype)
                m[rows, lane[active]] = v
                writes.append((name, m))
        space = size = None
        amat = amask = None
        if accesses or op.space is not None or op.addr is not None:
            space = op.space or "generic"
            size = 0
            amat = np.zeros((nw, WARP), dtype=np.uint64)
            amask = np.zeros(nw, dtype=np.uint64)
            for lanes, addr, sz, acc in accesses:
                keep = self.traced[lanes]
                lanes, addr = lanes[keep], addr[keep]
                r = np.searchsorted(warps, warp_of[lanes])
                ok = (r < nw) & (warps[np.minimum(r, nw - 1)] == warp_of[lanes])
                lanes, addr, r = lanes[ok], addr[ok], r[ok]
                amat[r, lane[lanes]] = addr
                np.bitwise_or.at(amask, r, np.uint64(1) << lane[lanes].astype(np.uint64))
                size = sz
                if op.space is None and getattr(acc, "space", None):
                    space = acc.space
        gx, gy, _ = launch.grid
        cta = ctx.cta_linear[heads]
        wic = ctx.thread_linear[heads] // WARP
        line = op.line
        file = op.file or "<ptx>"
        text = op.text or "ret"
        opcode = self._opcode(op)
        source = self._source.get(line)
        for i in range(nw):
            c = int(cta[i])
            r = TraceRecord((c % gx, (c // gx) % gy, c // (gx * gy)), int(wic[i]), int(masks[i]), pc, text, opcode,
                            file, line, source, {name: m[i] for name, m in writes})
            if space is not None:
                r.space, r.size, r.addresses, r.address_mask = space, size, amat[i], int(amask[i])
            self.records.append(r)


def trace(kernel, grid, block, args=(), shared_mem: int = 0, cluster=None, max_instructions=None, ctas=None,
          warps=None, pc_range=None, opcodes=None, cooperative: bool = False) -> Trace:
    """Run `kernel` and return a Trace of its instructions, one record per warp per instruction
    (filtered by CTA, warp within the CTA, PC range [a, b) and opcode). Host arrays are copied
    back as after `kernel.launch`. A fault does not raise: the records of the instructions before the
    faulting one are returned, with the KernelFault in `trace.fault`."""
    from ..engine.launch import Launch
    from ..errors import KernelFault

    hooks = Tracer(kernel, ctas, warps, pc_range, opcodes)
    launch = Launch(kernel, grid, block, list(args), shared_mem, cluster, max_instructions, hooks=hooks,
                    cooperative=cooperative)
    try:
        hooks.records.stats = launch.run()
    except KernelFault as f:
        hooks.records.fault = f
        hooks.pending = None
    return hooks.records
