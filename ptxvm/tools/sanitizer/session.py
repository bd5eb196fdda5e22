"""The hooks object of a sanitized launch: which checker sees what, and how records are named."""
from __future__ import annotations

import numpy as np

from ...engine.core.hooks import LaunchHooks
from .initcheck import InitCheck
from .memcheck import MemCheck
from .racecheck import RaceCheck
from .report import Location, Record
from .source import source_lines
from .synccheck import SyncCheck

TOOLS = ("memcheck", "racecheck", "initcheck", "synccheck")
_CHECKERS = {"memcheck": MemCheck, "racecheck": RaceCheck, "initcheck": InitCheck, "synccheck": SyncCheck}


class Sanitizer(LaunchHooks):
    def __init__(self, kernel, tool: str, leak_check: bool):
        self.kernel = kernel
        self.tool = tool
        self.leak_check = leak_check
        self.records: list[Record] = []
        self.faulted = False  # an error that would have faulted an unsanitized launch was suppressed
        self.pc = 0
        self.launch = None
        module = kernel.module
        self.code = module.lazy_program.ensure(kernel.name).code
        self._source = source_lines(module.ast)
        self.kernel_ops = _reachable_ops(module.lazy_program, kernel.name)
        self.fence_pcs = frozenset(pc for pc, op in enumerate(self.code) if _is_fence(op))
        self.checker = _CHECKERS[tool](self)
        self.tracks_initialization = tool == "initcheck"  # else DeviceArray arguments count as written
        if tool == "synccheck":  # it watches no memory
            self.access = lambda ctx, lanes, addr, size, acc, kind, values=None: None

    # -- naming
    def location(self, pc: int) -> Location:
        op = self.code[pc] if 0 <= pc < len(self.code) else None
        line = op.line if op is not None else 0
        file, src = self._source.get(line, (op.file if op is not None and op.file else "<ptx>", line))
        return Location(self.kernel.name, line, file, src)

    def thread_of(self, ctx, lane: int):
        gx, gy, _ = self.launch.grid
        bx, by, _ = self.launch.block
        c, t = int(ctx.cta_linear[lane]), int(ctx.thread_linear[lane])
        return (c % gx, (c // gx) % gy, c // (gx * gy)), (t % bx, (t // bx) % by, t // (bx * by))

    def record(self, ctx, lane, kind, headline, pc=None, **kw) -> Record:
        cta, thread = self.thread_of(ctx, lane) if lane is not None else (None, None)
        r = Record(self.tool, kind, headline, self.location(self.pc if pc is None else pc), cta, thread, **kw)
        self.records.append(r)
        return r

    def fault(self, f) -> None:
        """A fault the tool did not suppress ended the launch."""
        s = f.site
        where = Location(s.kernel, s.line or 0, *self._source.get(s.line or 0, (s.file or "<ptx>", s.line or 0)))
        self.records.append(Record(self.tool, "fault", f"Kernel fault: {f.reason}", where, s.cta, s.thread,
                                   address=s.address))

    # -- hooks: every one forwards to the checker, which overrides what it needs
    def begin_wave(self, ctx, ctas, launch) -> None:
        self.checker.begin_wave(ctx)

    def end_wave(self, ctx) -> None:
        self.checker.end_wave(ctx)

    def issue(self, ctx, pc, op, lanes) -> None:
        self.pc = pc
        if pc in self.fence_pcs:
            self.checker.sync_op(ctx, pc, op, lanes)

    def access(self, ctx, lanes, addr, size, acc, kind, values=None):
        return self.checker.access(ctx, lanes, np.asarray(addr, dtype=np.uint64), size, acc, kind, values=values)

    def barrier_arrive(self, ctx, group, pc, barrier, count, expected, arrive_only) -> None:
        self.checker.barrier_arrive(ctx, group, pc, barrier, count, expected, arrive_only)

    def barrier_complete(self, ctx, cta_slots) -> None:
        self.checker.barrier_complete(ctx, cta_slots)

    def warp_barrier(self, ctx, lanes) -> None:
        self.checker.warp_barrier(ctx, lanes)

    def warp_sync_missing(self, ctx, lanes, exited_lanes, pc) -> bool:
        return self.checker.warp_sync_missing(ctx, lanes, exited_lanes, pc)

    def stuck(self, ctx) -> bool:
        return self.checker.stuck(ctx)

    def heap_alloc(self, ctx, lane, alloc) -> None:
        self.checker.heap_alloc(ctx, lane, alloc)

    def heap_free(self, ctx, lane, ptr) -> bool:
        return self.checker.heap_free(ctx, lane, ptr)

    def async_write(self, ctx, lanes, addr, size, acc, mbarrier) -> None:
        self.checker.async_write(ctx, lanes, addr, size, acc, mbarrier)

    def async_group(self, ctx, lanes, kind, n) -> None:
        self.checker.async_group(ctx, lanes, kind, n)

    def mbarrier(self, ctx, lanes, kind, view, idx, before) -> None:
        self.checker.mbarrier(ctx, lanes, kind, view, idx, before)

    def finish(self) -> None:
        self.checker.finish()


def _is_fence(op) -> bool:
    """membar and the fences that order memory between threads (not the proxy fences)."""
    if not op.origin:
        return False
    instr = op.origin[0]
    return instr.opcode in ("membar", "fence") and not any(m.startswith("proxy") for m in instr.modifiers)


def _reachable_ops(program, kernel: str) -> list:
    """The lowered instructions of `kernel` and of every function it can call."""
    starts = sorted(f.entry_pc for f in program.functions.values() if f.entry_pc >= 0) + [len(program.code)]
    seen, stack, ops = set(), [kernel], []
    while stack:
        name = stack.pop()
        f = program.functions.get(name)
        if name in seen or f is None or f.entry_pc < 0:
            continue
        seen.add(name)
        end = next(s for s in starts if s > f.entry_pc)
        ops.extend(program.code[f.entry_pc:end])
        stack.extend(f.callees)
    return ops
