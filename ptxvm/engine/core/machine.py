"""Machine state of one launch wave and the SIMT scheduler that runs it.

All threads of the resident CTAs live in one set of NumPy arrays (index = thread slot). One
scheduler step executes one instruction for a *group*: every runnable thread whose PC is the
chosen one. Two modes:

* uniform: every live thread is runnable at one PC (`upc`); instructions run over whole arrays
  (`lanes is None`), the cheap case that straight-line and convergent code stays in;
* divergent: per-thread PCs; the group is chosen by the smallest (epoch, PC) among runnable
  threads, where a thread's epoch counts the backward branches it took while diverged. Lowest PC
  first reconverges if/else and loops; the epoch makes a thread that spins yield to one that has
  not moved, which gives the forward progress of independent thread scheduling (spin locks
  between lanes of a warp, flags between resident CTAs).

Lowered instructions are `Op`s; the scheduler applies guards, advances PCs of ordinary
instructions, and counts statistics. Control instructions move PCs themselves.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from .fastpaths import live_counts, select_group
from .memory import AccessFault

RUNNABLE, EXITED, AT_BARRIER, AT_WARP_SYNC = 0, 1, 2, 3
NO_PC = np.iinfo(np.int64).max


class Fault(Exception):
    """An engine-internal fault; the launcher turns it into a KernelFault with full context."""

    def __init__(self, reason: str, lane: Optional[int] = None, address: Optional[int] = None, pc: Optional[int] = None):
        super().__init__(reason)
        self.reason = reason
        self.lane = lane  # thread slot
        self.address = address
        self.pc = pc


@dataclass
class Op:
    """One lowered instruction. `run(ctx, lanes)` performs it for `lanes` (None: every slot).

    Ordinary ops only compute and store; the scheduler advances their PC. `control` ops (branch,
    call, return, exit, barriers, warp collectives that wait) set PCs and states themselves and
    receive the group's PC: `run(ctx, lanes, pc)`.
    """

    run: Callable
    guard: Optional[tuple[int, bool]] = None  # (predicate register slot, negated)
    control: bool = False
    text: str = ""
    line: int = 0
    file: str = ""
    side_effects: bool = False  # touches memory or machine state: never run for dead lanes
    # For the event trace (engine/trace/events.py) only; nothing here is read while a kernel runs untraced.
    origin: object = None  # (ast.Instruction, isa Match or None) it was lowered from
    addr: Optional[Callable] = None  # memory instructions: reader of the address, `addr(ctx, lanes)`
    space: Optional[str] = None  # memory instructions: the state space it addresses (None: generic)
    copy: object = None  # async copies and mbarrier operations: an engine.trace.events.AsyncRefs
    matrix: object = None  # wmma.load/store, ldmatrix, stmatrix: an engine.trace.matrix.MatrixRefs
    fused: object = None  # engine/compiled: a FusedBlock of the run of ordinary ops starting here


class Context:
    """The state of every resident thread of a launch wave."""

    def __init__(self, n: int, reg_dtypes: list[np.dtype], used: Optional[list[int]] = None):
        self.n = n
        if used is None:
            self.regs: list[np.ndarray] = [np.zeros(n, dtype=dt) for dt in reg_dtypes]
        else:  # registers of functions this launch cannot reach stay empty
            self.regs = [np.zeros(0, dtype=dt) for dt in reg_dtypes]
            for i in used:
                self.regs[i] = np.zeros(n, dtype=reg_dtypes[i])
        self.pc = np.zeros(n, dtype=np.int64)
        self.status = np.zeros(n, dtype=np.uint8)
        self.epoch = np.zeros(n, dtype=np.int64)
        self.carry = np.zeros(n, dtype=np.uint32)  # the CC.CF flag of extended-precision arithmetic
        self.uniform = True
        self.upc = 0
        self.n_live = n
        self._live_index: Optional[np.ndarray] = None
        self.step_count = 0
        self.thread_instructions = 0
        self.warp_instructions = 0
        self.max_instructions: Optional[int] = None
        self.warp_of: np.ndarray = np.zeros(n, dtype=np.int64)  # set by the launcher
        self.n_warps_live = 0
        self.extra: dict = {}
        # Set while a divergent group runs a pure instruction over whole arrays: writers then
        # store only where the mask holds (see `run`).
        self.write_mask: Optional[np.ndarray] = None
        self.slot_index = np.arange(n)  # every thread slot: the owners of thread-local accesses
        self.tracer = None  # a WaveTracer (engine/trace/events.py) while a profiled launch runs
        self.hooks = None  # a LaunchHooks (engine/core/hooks.py) while a tool observes the launch
        self.jit = False  # whether fused blocks (engine/compiled) may run: the launcher decides

    # -- lane sets
    def live_lanes(self) -> Optional[np.ndarray]:
        """Indices of threads that have not exited, or None when that is every slot."""
        if self.n_live == self.n:
            return None
        if self._live_index is None:
            self._live_index = np.flatnonzero(self.status != EXITED)
        return self._live_index

    def lanes_or_live(self, lanes: Optional[np.ndarray]) -> np.ndarray:
        if lanes is not None:
            return lanes
        live = self.live_lanes()
        return np.arange(self.n) if live is None else live

    def mark_exited(self, lanes: np.ndarray) -> None:
        self.status[lanes] = EXITED
        self.n_live, self.n_warps_live, any_waiting = live_counts(self.status, self.warp_of)
        self._live_index = None
        if any_waiting:
            # lanes of the same warps waiting at a warp-synchronous instruction try it again: an
            # exited lane counts as arrived (warp_ops), so the exit may complete it
            waiting = np.flatnonzero(self.status == AT_WARP_SYNC)
            woken = waiting[np.isin(self.warp_of[waiting], self.warp_of[lanes])]
            self.status[woken] = RUNNABLE

    # -- PCs
    def materialize_pcs(self) -> None:
        """Leave uniform mode: every live thread's PC becomes explicit."""
        if self.uniform:
            self.pc[:] = self.upc
            self.uniform = False

    def set_pc(self, lanes: Optional[np.ndarray], target: int) -> None:
        if lanes is None:
            self.upc = target
        else:
            self.pc[lanes] = target


def run(ctx: Context, code: list[Op], on_stuck: Callable[[Context], bool]) -> None:
    """Run until every thread has exited. `on_stuck(ctx)` is called when no thread is runnable
    (barrier or warp-sync waits that cannot complete); it returns True if it made progress.

    In divergent mode a chosen group stays chosen while it runs straight-line code: its key
    (epoch, PC) grows by one per instruction and the other threads do not move, so it remains
    the smallest until it reaches the key of the next waiting group (`others`) or a control
    instruction, which may split it. That saves the O(threads) selection on most steps.

    An Op with `fused` set starts a run of ordinary instructions compiled as one function
    (engine/compiled): with `ctx.jit`, no observers, the budget not crossed and no waiting
    group's key inside the run, the run is one step's work, counted as its instructions.
    """
    budget = ctx.max_instructions
    sticky: Optional[np.ndarray] = None  # the divergent group that keeps running
    sticky_key = others = warps = sticky_warps = 0
    mask: Optional[np.ndarray] = None  # the divergent group as a bool array over slots
    wide = max(1, ctx.n // 4)  # from this group size on, pure ops run masked over whole arrays
    tracer = ctx.tracer
    hooks = ctx.hooks
    while ctx.n_live:
        if ctx.uniform:
            pc = ctx.upc
            lanes = None
            group = ctx.n_live
            sticky = None
        elif sticky is not None:
            lanes = sticky
            pc = sticky_key & 0xFFFFFFFF
            group = lanes.size
            warps = sticky_warps
        else:
            k, lanes, mask, others, warps = select_group(ctx.status, ctx.epoch, ctx.pc, ctx.warp_of, ctx.n_live)
            if k == NO_PC:
                if not on_stuck(ctx):
                    raise Fault("deadlock: no thread can make progress (barrier or warp-synchronous instruction "
                                "never completes)" + ctx.extra.get("stuck_note", ""))
                continue
            pc = k & 0xFFFFFFFF
            group = lanes.size
            sticky, sticky_key = lanes, k
            sticky_warps = warps
        op = code[pc]
        if op.fused is not None and ctx.jit and tracer is None and hooks is None:
            n_ops = op.fused.length  # the whole run in one compiled call, counted as the interpreter counts it
            work = group * n_ops
            if (budget is None or ctx.thread_instructions + work <= budget) and \
                    (lanes is None or sticky_key + n_ops <= others) and op.fused.run(ctx, lanes, work):
                ctx.step_count += n_ops
                ctx.thread_instructions += work
                ctx.warp_instructions += (ctx.n_warps_live if lanes is None else warps) * n_ops
                if lanes is None:
                    ctx.upc = pc + n_ops
                    continue
                ctx.pc[lanes] = pc + n_ops
                sticky_key += n_ops
                if sticky_key >= others:
                    sticky = None
                    _maybe_reconverge(ctx, lanes)
                continue
        ctx.step_count += 1
        ctx.thread_instructions += group
        ctx.warp_instructions += ctx.n_warps_live if lanes is None else warps
        if budget is not None and ctx.thread_instructions > budget:
            raise Fault(f"instruction budget of {budget} thread-instructions exceeded", None if lanes is None else int(lanes[0]), pc=pc)
        if tracer is not None:  # before the op runs: addresses are read from the registers it may overwrite
            tracer.step(ctx, pc, op, lanes, mask)
        if hooks is not None:
            hooks.issue(ctx, pc, op, lanes)
        try:
            if op.control:
                sticky = None
                op.run(ctx, lanes, pc)
            else:
                if lanes is not None and group >= wide and not op.side_effects:
                    _run_masked(ctx, op, mask if sticky is not None else _mask_of(ctx, lanes))
                else:
                    active = lanes
                    if op.guard is not None or (lanes is None and op.side_effects and ctx.n_live != ctx.n):
                        active = _guarded(ctx, lanes, op.guard)
                    if active is None or active.size:
                        op.run(ctx, active)
                if lanes is None:
                    ctx.upc = pc + 1
                else:
                    ctx.pc[lanes] = pc + 1
                    sticky_key += 1
                    if sticky_key >= others:
                        sticky = None
        except AccessFault as e:
            group = ctx.lanes_or_live(lanes)
            raise Fault(e.reason, int(group[min(e.position, group.size - 1)]), e.address, pc) from None
        except Fault as f:
            if f.pc is None:
                f.pc = pc
            if f.lane is None:
                f.lane = int(ctx.lanes_or_live(lanes)[0])
            raise
        if not ctx.uniform and lanes is not None and sticky is None:
            _maybe_reconverge(ctx, lanes)
        elif not ctx.uniform and lanes is None:  # a control op left uniform mode: maybe all went on together
            _maybe_reconverge(ctx, ctx.lanes_or_live(None))


def _mask_of(ctx: Context, lanes: np.ndarray) -> np.ndarray:
    m = np.zeros(ctx.n, dtype=bool)
    m[lanes] = True
    return m


def _run_masked(ctx: Context, op: Op, mask: np.ndarray) -> None:
    """Run a pure instruction over whole arrays, keeping results only where `mask` (and the
    guard) holds: cheaper than gathering and scattering every operand of a large group."""
    if op.guard is not None:
        slot, negated = op.guard
        p = ctx.regs[slot]
        mask = mask & (~p if negated else p)
    ctx.write_mask = mask
    try:
        op.run(ctx, None)
    finally:
        ctx.write_mask = None


def guarded_lanes(ctx: Context, lanes: Optional[np.ndarray], pc: int, guard: tuple[int, bool]) -> np.ndarray:
    """For a control op with a guard: the group's lanes whose guard is false step past the
    instruction; returns the lanes it runs for."""
    slot, neg = guard
    gl = ctx.lanes_or_live(lanes)
    g = ctx.regs[slot][gl]
    g = ~g if neg else g
    ctx.materialize_pcs()
    ctx.pc[gl[~g]] = pc + 1
    return gl[g]


def _guarded(ctx: Context, lanes: Optional[np.ndarray], guard: Optional[tuple[int, bool]]) -> np.ndarray:
    """The lanes of the group whose guard predicate holds (and that are alive)."""
    lanes = ctx.lanes_or_live(lanes)
    if guard is None:
        return lanes
    slot, negated = guard
    p = ctx.regs[slot][lanes]
    return lanes[~p] if negated else lanes[p]


def _maybe_reconverge(ctx: Context, lanes: np.ndarray) -> None:
    """Back to uniform mode once the group just run holds every live thread and none waits."""
    if lanes.size == ctx.n_live and ctx.status[lanes[0]] == RUNNABLE:
        runnable = ctx.status == RUNNABLE
        if int(np.count_nonzero(runnable)) == ctx.n_live:
            pcs = ctx.pc[lanes]
            if pcs.min() == pcs.max():
                ctx.upc = int(pcs[0])
                ctx.uniform = True


def branch(ctx: Context, lanes: Optional[np.ndarray], pc: int, target: int, taken: Optional[np.ndarray]) -> None:
    """Move the group: lanes where `taken` (a bool array over the group; None: all) go to target."""
    backward = target <= pc
    if lanes is None:
        if taken is None:
            ctx.upc = target
            return
        live = ctx.live_lanes()
        t = taken if live is None else taken[live]
        if t.all():
            ctx.upc = target
            return
        if not t.any():
            ctx.upc = pc + 1
            return
        ctx.materialize_pcs()
        lanes = ctx.lanes_or_live(None)
        taken = t
    if taken is None:
        ctx.pc[lanes] = target
        if backward:
            ctx.epoch[lanes] += 1
        return
    ctx.pc[lanes] = np.where(taken, target, pc + 1)
    if backward:
        ctx.epoch[lanes[taken]] += 1
