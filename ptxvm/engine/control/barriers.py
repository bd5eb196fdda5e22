"""CTA barriers (bar, barrier: sync, arrive, red) and memory fences.

Each CTA slot has 16 named barriers. A thread that reaches a waiting barrier stops (AT_BARRIER)
until the barrier's expected count has arrived: the operand's thread count, or every thread of
the CTA that has not exited. Uniform groups that hold the whole CTA pass straight through.
Fences and membar order memory; the engine's interleavings are already sequentially consistent,
so they have no further effect.
"""
from __future__ import annotations

import numpy as np

from ...syntax import ast
from ..core.machine import AT_BARRIER, EXITED, RUNNABLE, Fault, Op
from ..core.operands import LoweringError

N_BARRIERS = 16


def _barrier_state(ctx):
    st = ctx.extra.get("barriers")
    if st is None:
        ncta = int(ctx.cta_slot.max()) + 1 if ctx.n else 1
        st = ctx.extra["barriers"] = {
            "arrived": np.zeros((ncta, N_BARRIERS), dtype=np.int64),
            "expected": np.zeros((ncta, N_BARRIERS), dtype=np.int64),  # 0: all live threads
            "bar_of": np.full(ctx.n, -1, dtype=np.int64),
            "pred": np.zeros(ctx.n, dtype=bool),
            "red": np.full((ncta, N_BARRIERS), -1, dtype=np.int64),  # the bar.red waiting there: index into "reds"
            "reds": [],  # (op kind, writer) of each bar.red instruction that waited in this wave
        }
    return st


def lower_bar(lowerer, instr, m, scope):
    mods = set(instr.modifiers)
    if "warp" in mods:
        from .warp import lower_warp_sync

        return lower_warp_sync(lowerer, instr, m, scope)
    if "cluster" in mods:
        from .cluster import lower_barrier_cluster

        return lower_barrier_cluster(lowerer, instr, m, scope)
    arrive = "arrive" in mods
    red_kind = next((k for k in ("popc", "and", "or") if k in mods), None) if "red" in mods else None
    operands = list(instr.operands)
    dst = None
    if red_kind is not None:
        dst = lowerer.writer(operands.pop(0), "u32" if red_kind == "popc" else "pred", scope)
    bar_id = lowerer.reader(operands[0], "u32", scope) if operands else (lambda ctx, lanes: np.uint32(0))
    count = None
    pred = None
    rest = operands[1:]
    if red_kind is not None:
        pred = lowerer.reader(rest[-1], "pred", scope)
        rest = rest[:-1]
    if rest:
        count = lowerer.reader(rest[0], "u32", scope)
    op = Op(None, control=True)

    def run(ctx, lanes, pc):
        g = None
        if op.guard is not None:
            slot, neg = op.guard
            g = ctx.regs[slot] if lanes is None else ctx.regs[slot][lanes]
            g = ~g if neg else g
        if lanes is None and g is None and count is None and not arrive:
            if red_kind is None:
                if ctx.hooks is not None:
                    ctx.hooks.barrier_complete(ctx, None)
                ctx.upc = pc + 1
                return
        ctx.materialize_pcs()
        group = ctx.lanes_or_live(lanes)
        if g is not None:
            if lanes is None and ctx.live_lanes() is not None:
                g = g[ctx.live_lanes()]
            ctx.pc[group[~g]] = pc + 1
            group = group[g]
        if group.size == 0:
            return
        st = _barrier_state(ctx)
        # a barrier number from a register is taken modulo 16, as the H200 does (16 is barrier 0;
        # docs/hardware-notes.md, tools/device/probe_barrier_ids.py); an immediate is verified 0..15
        b = np.broadcast_to(np.asarray(bar_id(ctx, group)).astype(np.int64) & (N_BARRIERS - 1), (group.size,))
        cta = ctx.cta_slot[group]
        c = np.broadcast_to(np.asarray(count(ctx, group)).astype(np.int64), (group.size,)) if count is not None else None
        if ctx.hooks is not None:
            ctx.hooks.barrier_arrive(ctx, group, pc, b, c, st["expected"][cta, b], arrive)
        np.add.at(st["arrived"], (cta, b), 1)
        if c is not None:
            st["expected"][cta, b] = c
        if arrive:
            ctx.pc[group] = pc + 1
        else:
            ctx.status[group] = AT_BARRIER
            ctx.pc[group] = pc
            st["bar_of"][group] = b
            if red_kind is not None:
                st["pred"][group] = np.broadcast_to(np.asarray(pred(ctx, group)), (group.size,))
                if (red_kind, dst) not in st["reds"]:
                    st["reds"].append((red_kind, dst))
                st["red"][cta, b] = st["reds"].index((red_kind, dst))
        release_barriers(ctx, cta * N_BARRIERS + b)

    op.run = run
    return [op]


def release_barriers(ctx, keys=None) -> bool:
    """Complete every barrier among `keys` (an array of cta * N_BARRIERS + barrier; None: all)
    whose count has arrived. Whole arrays, not a loop over CTAs: a wave of a thousand CTAs
    arriving at once costs a few passes over the wave."""
    st = ctx.extra.get("barriers")
    if st is None:
        return False
    arrived, expected = st["arrived"], st["expected"]
    flat = np.flatnonzero(arrived) if keys is None else np.unique(keys)
    if flat.size == 0:
        return False
    cta, b = np.divmod(flat, N_BARRIERS)
    count = arrived[cta, b]
    live = np.bincount(ctx.cta_slot[ctx.status != EXITED], minlength=arrived.shape[0])
    need = expected[cta, b]
    need = np.where(need == 0, live[cta], need)
    ready = (count > 0) & (count >= need)
    if not ready.any():
        return False
    cta, b = cta[ready], b[ready]
    is_ready = np.zeros(arrived.shape, dtype=bool)
    is_ready[cta, b] = True
    at = np.flatnonzero(ctx.status == AT_BARRIER)
    bar_of = st["bar_of"][at]
    at, bar_of = at[bar_of >= 0], bar_of[bar_of >= 0]  # (threads at a cluster barrier have none)
    waiting = at[is_ready[ctx.cta_slot[at], bar_of]]
    key_of = ctx.cta_slot[waiting] * N_BARRIERS + st["bar_of"][waiting]
    arrived[cta, b] = 0
    expected[cta, b] = 0
    _write_reductions(ctx, st, cta * N_BARRIERS + b, waiting, key_of)
    for bar in np.unique(b).tolist():  # per barrier number: a CTA completes each of its barriers once
        done = waiting[key_of % N_BARRIERS == bar]
        if ctx.hooks is not None:
            ctx.hooks.barrier_complete(ctx, cta[b == bar])
        ctx.status[done] = RUNNABLE
        ctx.pc[done] += 1
        st["bar_of"][done] = -1
    return True


def _write_reductions(ctx, st, keys, waiting, key_of) -> None:
    """bar.red: each completed barrier's result (popc, and, or of the waiting threads' predicates)
    written to its waiting threads, grouped by the instruction that asked for it."""
    cta, b = np.divmod(keys, N_BARRIERS)
    which = st["red"][cta, b]
    if not (which >= 0).any():
        return
    st["red"][cta, b] = -1
    ids = np.searchsorted(keys, key_of)  # each waiting thread's barrier among `keys` (sorted)
    red_of = which[ids]
    for r in np.unique(which[which >= 0]).tolist():
        kind, dst = st["reds"][r]
        sel = red_of == r
        lanes, at = waiting[sel], ids[sel]
        hits = np.bincount(at, weights=st["pred"][lanes], minlength=keys.size).astype(np.int64)
        total = np.bincount(at, minlength=keys.size)
        value = {"popc": hits.astype(np.uint32), "and": hits == total, "or": hits > 0}[kind][at]
        dst(ctx, lanes, value)


def lower_fence(lowerer, instr, m, scope):
    return [Op(lambda ctx, lanes: None)]


LOWERINGS = {
    "bar": lower_bar,
    "barrier": lower_bar,
    "membar": lower_fence,
    "fence": lower_fence,
}
