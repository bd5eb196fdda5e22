"""Miscellaneous instructions (ISA 9.7.19): brkpt, pmevent and setmaxnreg (nanosleep is in
async_ops.py).

brkpt stops the launch with a KernelFault "breakpoint (brkpt) reached" that names the first
thread to reach it and its line (a debugger can later hook the same place). pmevent raises no
event anywhere; it is counted in the launch statistics (`LaunchStats.pm_events`: one per thread
that executes it, per event it signals; `pmevent.mask` signals each set bit).

setmaxnreg changes no value. It runs once the whole warpgroup (4 warps) has reached it (a thread
of the warpgroup that exits first is a fault, as the ISA requires all of them), then sets the
warpgroup's per-thread register count. With the kernel's `.maxnreg` known (without it ptxas
ignores the instruction: "unable to determine register count at entry") the rules are checked:
.dec may not raise the count, .inc may not lower it (both undefined in the ISA), and an .inc
must fit in the CTA's pool (`.maxnreg` x threads; the GPU would wait for another warpgroup to
release registers, which ptxvm does not model: it stops with a fault naming that). The largest
count set is `LaunchStats.max_registers`.
"""
from __future__ import annotations

from ...syntax import ast
from ...syntax.constexpr import evaluate
import numpy as np

from ..async_copy.copies import _mods
from ..control.cluster import _directives
from ..core.machine import Fault, Op
from ..core.operands import LoweringError
from ..matrix.wgmma import _threads_per_cta, _warpgroup_collective


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


def _entry_maxnreg(lowerer):
    if lowerer.current.kind != "entry":
        return None
    v = _directives(lowerer.current.decl).get("maxnreg")
    return int(v[0]) if v else None


def lower_setmaxnreg(lowerer, instr, m, scope):
    ops = instr.operands
    if len(ops) != 1 or not isinstance(ops[0], ast.Immediate):
        raise LoweringError("setmaxnreg takes one constant register count")
    count = int(evaluate(ops[0].expr))
    inc = "inc" in _mods(instr, m)
    name = f"setmaxnreg.{'inc' if inc else 'dec'} {count}"
    entry = _entry_maxnreg(lowerer)

    def body(ctx, ready):
        regs = ctx.extra.get("registers")
        if regs is None:
            regs = ctx.extra["registers"] = np.full(ctx.n, entry or 0, np.int64)
        if entry is not None:
            cur = regs[ready]
            bad = (cur > count) if inc else (cur < count)
            if bad.any():
                i = int(np.argmax(bad))
                raise Fault(f"{name}: the warpgroup holds {int(cur[i])} registers per thread; .{'inc' if inc else 'dec'} "
                            f"to {count} is undefined in the ISA", int(ready[i]))
        regs[ready] = count
        if entry is not None and inc:
            used = np.bincount(ctx.cta_slot, weights=regs, minlength=int(ctx.cta_slot[-1]) + 1)
            pool = entry * _threads_per_cta(ctx)
            over = np.flatnonzero(used[ctx.cta_slot[ready]] > pool)
            if over.size:
                lane = int(ready[over[0]])
                raise Fault(f"{name}: the CTA's register pool ({pool} = .maxnreg {entry} x {_threads_per_cta(ctx)} "
                            f"threads) cannot supply it; the GPU would wait for another warpgroup to release "
                            f"registers, which ptxvm does not model", lane)
        ctx.extra["max_registers"] = max(ctx.extra.get("max_registers", 0), count)

    return _warpgroup_collective(body, "setmaxnreg")


LOWERINGS = {"brkpt": lower_brkpt, "pmevent": lower_pmevent, "setmaxnreg": lower_setmaxnreg}
