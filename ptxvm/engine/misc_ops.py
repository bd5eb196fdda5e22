"""Miscellaneous instructions (ISA 9.7.19): brkpt and pmevent (nanosleep is in async_ops.py).

brkpt stops the launch with a KernelFault "breakpoint (brkpt) reached" that names the first
thread to reach it and its line (a debugger can later hook the same place). pmevent raises no
event anywhere; it is counted in the launch statistics (`LaunchStats.pm_events`: one per thread
that executes it, per event it signals; `pmevent.mask` signals each set bit).
"""
from __future__ import annotations

from ..syntax import ast
from ..syntax.constexpr import evaluate
from .machine import Fault, Op
from .operands import LoweringError


def lower_brkpt(lowerer, instr, m, scope):
    def run(ctx, lanes):
        lane = int(ctx.lanes_or_live(lanes)[0]) if (lanes is None or len(lanes)) else None
        raise Fault("breakpoint (brkpt) reached", lane=lane)

    return [Op(run, side_effects=True)]


def lower_pmevent(lowerer, instr, m, scope):
    if len(instr.operands) != 1 or not isinstance(instr.operands[0], ast.Immediate):
        raise LoweringError("pmevent takes one constant operand")
    value = int(evaluate(instr.operands[0].expr))
    events = bin(value & 0xFFFF).count("1") if "mask" in instr.modifiers else 1

    def run(ctx, lanes):
        n = ctx.n_live if lanes is None else len(lanes)
        ctx.extra["pm_events"] = ctx.extra.get("pm_events", 0) + events * n

    return [Op(run, side_effects=True)]


LOWERINGS = {"brkpt": lower_brkpt, "pmevent": lower_pmevent}
