"""Warp collectives (ISA 9.7.12.x): shfl.sync, vote.sync, match.sync, redux.sync, elect.sync,
bar.warp.sync, activemask.

A `.sync` instruction runs for a warp once every lane its membermask names has reached it or has
exited: lanes that arrive early wait (AT_WARP_SYNC) for the others, and an exit wakes them to try
again (Context.mark_exited). As on an H200 (tests/engine/test_hw_gaps.py, warp_*), exited lanes are
simply not members: vote/match/redux/elect see only the lanes that executed the instruction, and
shfl from a source lane that did not execute it (exited, or not participating) yields 0.
Lane j of the warp holding thread slot s is slot s - laneid(s) + j (warps are contiguous).
"""
from __future__ import annotations

import numpy as np

from ...syntax import ast
from ...syntax.constexpr import evaluate
from ..core.machine import AT_WARP_SYNC, EXITED, RUNNABLE, Fault, Op, guarded_lanes
from ..core.operands import LoweringError

FULL = np.uint32(0xFFFFFFFF)


def _present_masks(ctx, lanes, where=None):
    """Per lane of `lanes`: the bitmask of its warp's lanes that are in `lanes` (and, given
    `where`, a bool per lane, only those where it holds)."""
    warp = ctx.warp_of[lanes]
    bits = np.left_shift(np.uint64(1), ctx.laneid[lanes].astype(np.uint64))
    if where is not None:
        bits = np.where(where, bits, np.uint64(0))
    uniq, inv = np.unique(warp, return_inverse=True)
    acc = np.zeros(uniq.size, dtype=np.uint64)
    np.bitwise_or.at(acc, inv, bits)
    return acc[inv].astype(np.uint32)


def _exited_masks(ctx, lanes):
    """Per lane of `lanes`: the bitmask of its warp's lanes that have exited."""
    slots = (lanes - ctx.laneid[lanes])[:, None] + np.arange(32)
    valid = np.arange(32) < ctx.warp_size[lanes][:, None]
    gone = np.zeros(slots.shape, dtype=bool)
    gone[valid] = ctx.status[slots[valid]] == EXITED
    return (gone.astype(np.uint32) << np.arange(32, dtype=np.uint32)).sum(axis=1, dtype=np.uint64).astype(np.uint32)


def _dst_and_pred(lowerer, node, scope, ptx_type="b32"):
    """Writers for `d` or `d|p` destinations (shfl, elect, match.all)."""
    p_writer = None
    if isinstance(node, ast.PredPair):
        node, p = node.first, node.second
        p_writer = lowerer.writer(p, "pred", scope)
    return lowerer.writer(node, ptx_type, scope), p_writer


def _gather_warps(ctx, lanes, pc, membermask):
    """The lanes that can run the collective now; the others start or keep waiting at pc."""
    ctx.materialize_pcs()
    group = ctx.lanes_or_live(lanes)
    waiting = np.flatnonzero((ctx.status == AT_WARP_SYNC) & (ctx.pc == pc))
    if waiting.size:
        group = np.union1d(group, waiting)
    mask = np.broadcast_to(np.asarray(membermask(ctx, group)).astype(np.uint32), (group.size,))
    mask = mask & ctx.warp_lanes[group]  # lanes past the end of a partial warp do not exist
    present = _present_masks(ctx, group)
    missing = mask & ~present
    if ctx.n_live < ctx.n and missing.any():  # an exited lane counts as arrived
        short = missing != 0
        exited = _exited_masks(ctx, group[short])
        if ctx.hooks is not None:  # a tool hears of membermasks naming lanes that exited (synccheck)
            named = np.zeros_like(missing)
            named[short] = missing[short] & exited
            if named.any():
                ctx.hooks.warp_sync_missing(ctx, group, named, pc)
        missing[short] &= ~exited
    ready = missing == 0
    if not ready.all():
        wait = group[~ready]
        ctx.status[wait] = AT_WARP_SYNC
        ctx.pc[wait] = pc
    run = group[ready]
    ctx.status[run] = RUNNABLE
    return run, mask[ready], present[ready]


def _collective(lowerer, scope, body, mask_operand):
    """Wrap `body(ctx, lanes, mask, present)` with the membermask rendezvous."""
    membermask = lowerer.reader(mask_operand, "b32", scope) if mask_operand is not None else (lambda ctx, lanes: FULL)
    op = Op(None, control=True)

    def run(ctx, lanes, pc):
        if op.guard is not None:
            lanes = guarded_lanes(ctx, lanes, pc, op.guard)
            if lanes.size == 0:
                return
        ready, mask, present = _gather_warps(ctx, lanes, pc, membermask)
        if ready.size:
            body(ctx, ready, mask, present)
            ctx.pc[ready] = pc + 1

    op.run = run
    return [op]


def _lane_slot(ctx, lanes, j):
    return lanes - ctx.laneid[lanes] + j


def lower_shfl(lowerer, instr, m, scope):
    mode = next(x for x in instr.modifiers if x in ("up", "down", "bfly", "idx"))
    ops = list(instr.operands)
    d = ops[0]
    d_writer, p_writer = _dst_and_pred(lowerer, d, scope)
    a = lowerer.reader(ops[1], "b32", scope)
    b = lowerer.reader(ops[2], "b32", scope)
    c = lowerer.reader(ops[3], "b32", scope)
    a_slot = lowerer.register(ops[1], scope) if isinstance(ops[1], ast.Register) else None
    a_plus = None  # `shfl d, a + 4, ...`: each source lane's a plus the constant
    if a_slot is not None and ops[1].offset is not None and a_slot.space == "reg":
        a_dtype = lowerer.regs.dtypes[a_slot.offset]
        a_plus = a_dtype.type(int(evaluate(ops[1].offset)) % (1 << (8 * a_dtype.itemsize)))

    def body(ctx, lanes, mask, present):
        lane = ctx.laneid[lanes].astype(np.int64)
        bval = np.asarray(b(ctx, lanes)).astype(np.int64) & 31
        cv = np.asarray(c(ctx, lanes)).astype(np.int64)
        cval, segmask = cv & 31, (cv >> 8) & 31
        max_lane = (lane & segmask) | (cval & ~segmask)
        min_lane = lane & segmask
        if mode == "up":
            j = lane - bval
            ok = j >= max_lane
        elif mode == "down":
            j = lane + bval
            ok = j <= max_lane
        elif mode == "bfly":
            j = lane ^ bval
            ok = j <= max_lane
        else:
            j = min_lane | (bval & ~segmask)
            ok = j <= max_lane
        j = np.where(ok, j, lane)
        src = _lane_slot(ctx, lanes, j)
        src = np.where(j < ctx.warp_size[lanes], src, lanes)
        if a_slot is not None and a_slot.space == "reg":
            raw = ctx.regs[a_slot.offset][src]
            if a_plus is not None:
                raw = raw + a_plus
            val = raw.view(np.uint32) if raw.itemsize == 4 else raw.astype(np.uint32)
        else:
            val = np.broadcast_to(np.asarray(a(ctx, lanes)), (lanes.size,))
        # a source lane that does not execute this shfl (exited, or elsewhere) sends 0 (H200)
        absent = ((present >> ctx.laneid[src].astype(np.uint32)) & np.uint32(1)) == 0
        val = np.where(absent, np.uint32(0), val)
        d_writer(ctx, lanes, val)
        if p_writer is not None:
            p_writer(ctx, lanes, ok)

    return _collective(lowerer, scope, body, ops[4] if len(ops) > 4 else None)


def lower_vote(lowerer, instr, m, scope):
    mode = next(x for x in instr.modifiers if x in ("all", "any", "uni", "ballot"))
    ops = list(instr.operands)
    dst = lowerer.writer(ops[0], "b32" if mode == "ballot" else "pred", scope)
    pred = lowerer.reader(ops[1], "pred", scope)

    def body(ctx, lanes, mask, present):
        p = np.broadcast_to(np.asarray(pred(ctx, lanes)), (lanes.size,))
        true_bits = _present_masks(ctx, lanes, p)
        members = mask & present
        if mode == "ballot":
            dst(ctx, lanes, true_bits & members)
        elif mode == "all":
            dst(ctx, lanes, (true_bits & members) == members)
        elif mode == "any":
            dst(ctx, lanes, (true_bits & members) != 0)
        else:
            t = true_bits & members
            dst(ctx, lanes, (t == 0) | (t == members))

    return _collective(lowerer, scope, body, ops[2] if len(ops) > 2 else None)


def lower_activemask(lowerer, instr, m, scope):
    dst = lowerer.writer(instr.operands[0], "b32", scope)

    def run(ctx, lanes):
        group = ctx.lanes_or_live(lanes)
        dst(ctx, group, _present_masks(ctx, group))

    return [Op(run, side_effects=True)]


def lower_warp_sync(lowerer, instr, m, scope):
    def body(ctx, lanes, mask, present):  # orders memory among the lanes (a tool may watch that)
        if ctx.hooks is not None:
            ctx.hooks.warp_barrier(ctx, lanes)

    return _collective(lowerer, scope, body, instr.operands[0])


def lower_redux(lowerer, instr, m, scope):
    op = next(x for x in instr.modifiers if x in ("add", "min", "max", "and", "or", "xor"))
    t = m.type.name if m.type is not None else "b32"
    if t.startswith("f"):
        raise LoweringError("redux.sync on floating-point types is not supported yet")
    dst = lowerer.writer(instr.operands[0], t, scope)
    src = lowerer.reader(instr.operands[1], t, scope)
    ufunc = {"add": np.add, "min": np.minimum, "max": np.maximum, "and": np.bitwise_and,
             "or": np.bitwise_or, "xor": np.bitwise_xor}[op]

    def body(ctx, lanes, mask, present):
        v = np.broadcast_to(np.asarray(src(ctx, lanes)), (lanes.size,))
        # lanes of one warp that run this together with different membermasks (e.g. the two
        # 16-lane tiles of cooperative groups) form separate reductions
        group = (ctx.warp_of[lanes].astype(np.int64) << 32) | np.asarray(mask).astype(np.int64)
        uniq, inv = np.unique(group, return_inverse=True)
        order = np.argsort(inv, kind="stable")
        starts = np.searchsorted(inv[order], np.arange(uniq.size))
        red = ufunc.reduceat(v[order], starts)
        dst(ctx, lanes, red[inv])

    return _collective(lowerer, scope, body, instr.operands[2] if len(instr.operands) > 2 else None)


def lower_elect(lowerer, instr, m, scope):
    d = instr.operands[0]
    d_writer, p_writer = _dst_and_pred(lowerer, d, scope)

    def body(ctx, lanes, mask, present):
        members = mask & present
        low = members & (~members + np.uint32(1))  # lowest set bit
        leader = np.log2(np.maximum(low, 1).astype(np.float64)).astype(np.uint32)
        d_writer(ctx, lanes, leader)
        if p_writer is not None:
            p_writer(ctx, lanes, ctx.laneid[lanes].astype(np.uint32) == leader)

    return _collective(lowerer, scope, body, instr.operands[1] if len(instr.operands) > 1 else None)


def lower_match(lowerer, instr, m, scope):
    mode = "all" if "all" in instr.modifiers else "any"
    t = m.type.name if m.type is not None else "b32"
    d = instr.operands[0]
    d_writer, p_writer = _dst_and_pred(lowerer, d, scope)
    src = lowerer.reader(instr.operands[1], t, scope)

    def body(ctx, lanes, mask, present):
        v = np.broadcast_to(np.asarray(src(ctx, lanes)), (lanes.size,)).astype(np.uint64)
        warp = ctx.warp_of[lanes]
        key = np.stack([warp.astype(np.uint64), v], axis=1)
        _, inv = np.unique(key, axis=0, return_inverse=True)
        inv = inv.reshape(-1)
        bits = np.left_shift(np.uint64(1), ctx.laneid[lanes].astype(np.uint64))
        acc = np.zeros(inv.max() + 1, dtype=np.uint64)
        np.bitwise_or.at(acc, inv, bits)
        same = acc[inv].astype(np.uint32) & mask
        if mode == "any":
            d_writer(ctx, lanes, same)
            return
        members = mask & present
        all_same = same == members
        d_writer(ctx, lanes, np.where(all_same, members, np.uint32(0)))
        if p_writer is not None:
            p_writer(ctx, lanes, all_same)

    return _collective(lowerer, scope, body, instr.operands[2] if len(instr.operands) > 2 else None)


LOWERINGS = {
    "shfl": lower_shfl,
    "vote": lower_vote,
    "activemask": lower_activemask,
    "redux": lower_redux,
    "elect": lower_elect,
    "match": lower_match,
}
