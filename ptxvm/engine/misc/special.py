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
takes registers from the CTA's pool (`.maxnreg` x threads): a warpgroup whose .inc the pool
cannot supply waits, as on the GPU, until another warpgroup of the CTA releases registers with a
.dec (Triton's warp-specialized kernels raise the default warpgroup to 256 before the others have
lowered theirs); if none ever does, the launch stops with the deadlock fault, which says so. The
largest count set is `LaunchStats.max_registers`.
"""
from __future__ import annotations

from ...syntax import ast
from ...syntax.constexpr import evaluate
import numpy as np

from ..async_copy.copies import _mods
from ..control.cluster import _directives
from ..core.machine import AT_WARP_SYNC, RUNNABLE, Fault, Op
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
        done = None
        if entry is not None and inc:
            done = _supplied(ctx, regs, ready, count, entry * _threads_per_cta(ctx))
            waiting = np.setdiff1d(ready, done, assume_unique=True)
            if waiting.size:  # these warpgroups wait at this .inc for a .dec elsewhere in their CTA
                ctx.status[waiting] = AT_WARP_SYNC
                old = ctx.extra.get("register_waiters")
                ctx.extra["register_waiters"] = waiting if old is None else np.union1d(old, waiting)
                ctx.extra["stuck_note"] = (f"; warpgroups wait at {name} for registers that no other warpgroup of "
                                           f"their CTA releases (pool {entry * _threads_per_cta(ctx)} = .maxnreg "
                                           f"{entry} x {_threads_per_cta(ctx)} threads)")
            regs[done] = count
        else:
            regs[ready] = count
            woken = ctx.extra.pop("register_waiters", None)
            if woken is not None:  # registers released: the waiting .inc warpgroups try again
                ctx.status[woken[ctx.status[woken] == AT_WARP_SYNC]] = RUNNABLE
                ctx.extra.pop("stuck_note", None)
        ctx.extra["max_registers"] = max(ctx.extra.get("max_registers", 0), count)
        return done

    return _warpgroup_collective(body, "setmaxnreg")


def _supplied(ctx, regs, ready, count, pool) -> np.ndarray:
    """The lanes of `ready` (whole warpgroups at setmaxnreg.inc `count`) whose registers their CTA's
    pool can supply now, taking the warpgroups of a CTA in order: a warpgroup goes on while the
    CTA's threads hold at most `pool` registers with it raised."""
    base = ready - ctx.thread_linear[ready] % 128
    groups, size = np.unique(base, return_counts=True)
    cta = ctx.cta_slot[groups]
    need = (count - regs[groups]) * size  # what each warpgroup adds
    used = np.bincount(ctx.cta_slot, weights=regs, minlength=int(ctx.cta_slot.max()) + 1)
    order = np.lexsort((groups, cta))
    cta_o, need_o = cta[order], need[order]
    cum = np.cumsum(need_o)
    starts = np.r_[0, np.flatnonzero(np.diff(cta_o)) + 1]
    cum -= np.repeat(cum[starts] - need_o[starts], np.diff(np.r_[starts, cta_o.size]))  # per-CTA running sum
    fits = np.zeros(groups.size, bool)
    fits[order] = used[cta_o] + cum <= pool
    return ready[fits[np.searchsorted(groups, base)]]


LOWERINGS = {"brkpt": lower_brkpt, "pmevent": lower_pmevent, "setmaxnreg": lower_setmaxnreg}
