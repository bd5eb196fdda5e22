"""Asynchronous copies and their completion mechanisms (ISA 9.7.9.25-27, 9.7.13.15): cp.async,
cp.async.bulk, cp.reduce.async.bulk, the mbarrier instructions, and nanosleep / griddepcontrol.

Timing. An asynchronous copy may complete at any time between its issue and the wait that
guarantees its completion; ptxvm completes every copy at issue, which is one legal timing. So the
source is read and the destination written when the instruction runs, and the waits
(cp.async.wait_group / wait_all, cp.async.bulk.wait_group) have nothing left to wait for. What a
program can observe of the completion mechanisms is still exact:

* cp.async.mbarrier.arrive: the arrive-on the mbarrier receives when the thread's prior cp.async
  operations complete happens at once; without .noinc the pending count was incremented first,
  so the pair leaves the object unchanged, and with .noinc it is one arrival.
* .mbarrier::complete_tx::bytes: the copy's complete-tx (tx-count -= bytes) is applied to the
  mbarrier when the copy runs, possibly before the expect-tx that announced it; the tx-count may
  then be negative for a while, which its range allows, and the phase completes when both counts
  are back to zero (mbarrier.py).

Waiting. mbarrier.try_wait may suspend the thread for a while; ptxvm returns at once (a zero
time limit), so a kernel's try_wait loop spins. Its backward branch raises the thread's epoch,
and the scheduler runs threads of lower epoch first (machine.py), so the threads that will
arrive do run. nanosleep counts as such a branch too: a spin loop that sleeps instead of
branching back still yields.

griddepcontrol.launch_dependents / .wait: a launch here has no prerequisite grid in flight and
no dependent grid to start early, so both do nothing (their ISA effect is on other grids).
"""
from __future__ import annotations

import numpy as np

from ...numerics import half
from ...numerics.formats import BF16, F16, as_bits, to_float64
from ...semantics.dtypes import numpy_dtype
from ...syntax import ast
from ...syntax.constexpr import evaluate
from ..memory import atomics
from . import mbarrier as MB
from ..core.machine import Fault, Op
from ..core.memory import CLUSTER_OFFSET_MASK, CLUSTER_RANK_SHIFT, AccessFault
from ..memory.access import GenericAccess, SpaceAccess, address_reader
from ..core.operands import LoweringError
from ..trace.events import AsyncRefs

U8 = np.dtype(np.uint8)
BULK_ALIGN = 16


# ---------------------------------------------------------------------------- helpers


def _mods(instr, m):
    return tuple(m.modifiers) if m is not None else tuple(instr.modifiers)


def _space_in(mods, *candidates):
    """The first of `candidates` (state-space spellings) written among the modifiers."""
    for c in candidates:
        if c in mods:
            return c
    return None


def _access(lowerer, space):
    in_entry = lowerer.current.kind == "entry"
    return GenericAccess(in_entry) if space is None else SpaceAccess(space, in_entry)


def _address(lowerer, node, scope, space):
    """(access, address reader) of an address operand in `space` (None: generic; a variable
    name's own space when the instruction names none)."""
    hint, addr_of = address_reader(lowerer, node, scope)
    if space is None and hint is not None:
        space = "kparam" if hint == "kparam" else hint
    return _access(lowerer, space), addr_of


def _space_of(acc):
    """The state space an access addresses (None: generic), for the event trace."""
    return acc.space if isinstance(acc, SpaceAccess) else None


def _lane_values(reader, ctx, lanes, group, dtype=np.uint64):
    v = np.asarray(reader(ctx, lanes))
    return np.broadcast_to(v, (group.size,)).astype(dtype)


def _fault(e, group):
    if isinstance(e, AccessFault):
        return Fault(e.reason, int(group[min(e.position, group.size - 1)]), e.address)
    return Fault(e.reason, int(group[min(e.position, group.size - 1)]))


def _on(group, sel, fn):
    """Run a memory access over `group[sel]` (sel None: the whole group); a fault names its lane."""
    try:
        return fn()
    except AccessFault as e:
        i = e.position if sel is None else int(sel[min(e.position, sel.size - 1)])
        raise Fault(e.reason, int(group[min(i, group.size - 1)]), e.address) from None


def _imm(node) -> int:
    if not isinstance(node, ast.Immediate):
        raise LoweringError("expected an immediate operand")
    return int(evaluate(node.expr))


def _is_pred(lowerer, node, scope) -> bool:
    if not isinstance(node, ast.Register):
        return False
    sym = lowerer.register(node, scope)
    return sym.type == "pred"


def _words(acc, ctx, group, addr):
    """(uint64 view of the buffer, word index per lane) of the mbarrier objects at `addr`."""
    buf, off = acc.offsets(ctx, group, addr, 8)
    return buf.view(np.uint64), (off // np.uint64(8)).astype(np.intp)


def _read_bulk(acc, ctx, lane, addr, size):
    """`size` bytes (a multiple of 16) at `addr` for one lane, in 16-byte pieces (each piece
    checked for bounds and 16-byte alignment)."""
    pieces = size // BULK_ALIGN
    parts = [np.zeros(0, np.uint8)]
    for first in range(0, pieces, BULK_CHUNK):  # a copy out of bounds faults before it reads gigabytes
        n = min(BULK_CHUNK, pieces - first)
        a = np.uint64(addr) + np.arange(first, first + n, dtype=np.uint64) * np.uint64(BULK_ALIGN)
        parts.append(acc.load(ctx, np.full(n, lane), a, U8, BULK_ALIGN).reshape(-1))
    return np.concatenate(parts)


BULK_CHUNK = 1 << 14  # 16-byte pieces read per step (256 KiB, more than a CTA's shared memory)


def _copy_ignoring_ends(ctx, lane, src_acc, src, dst_acc, dst, size, left, right):
    """cp.async.bulk .ignore_oob: the first `left` and last `right` source bytes may lie out of
    bounds. An H200 copies all `size` bytes when they are readable (measured); when the ends are not,
    the middle bytes are copied and the ignored destination bytes are left as they were."""
    if not 0 <= left <= 15 or not 0 <= right <= 15:
        raise Fault(f"cp.async.bulk .ignore_oob: ignored bytes {left}, {right} outside 0..15", lane)
    if not size:
        return
    try:
        _write_bulk(dst_acc, ctx, lane, dst, _read_bulk(src_acc, ctx, lane, src, size))
        return
    except AccessFault:
        pass
    lanes = np.array([lane])
    for k in range(left, size - right):   # byte by byte: the ends of the range are unaligned
        b = src_acc.load(ctx, lanes, np.array([src + k], np.uint64), U8)
        dst_acc.store(ctx, lanes, np.array([dst + k], np.uint64), b, U8)


def _write_bulk(acc, ctx, lane, addr, data):
    pieces = data.size // BULK_ALIGN
    lanes = np.full(pieces, lane)
    a = np.uint64(addr) + np.arange(pieces, dtype=np.uint64) * np.uint64(BULK_ALIGN)
    acc.store(ctx, lanes, a, data.reshape(pieces, BULK_ALIGN), U8, BULK_ALIGN)


def _copy_all(ctx, group, src_acc, src, dst_acc, dst, size, bar_acc, bar) -> bool:
    """Every lane's bulk copy at once (cuda::memcpy_async with a cuda::barrier issues one per
    thread: lane by lane they cost ~65 us each), then each lane's complete-tx in lane order, as
    the lane loop below would leave them. False, having done nothing, when a size or an address is
    invalid (the loop reports the first lane's fault) or the copies are large."""
    if ((size % BULK_ALIGN) != 0).any() or (size < 0).any() or ((dst % np.uint64(BULK_ALIGN)) != 0).any() \
            or ((src % np.uint64(BULK_ALIGN)) != 0).any():
        return False
    pieces = size // BULK_ALIGN
    total = int(pieces.sum())
    if total > BULK_CHUNK:
        return False
    if total:
        starts = np.repeat(np.cumsum(pieces) - pieces, pieces)
        step = (np.arange(total, dtype=np.int64) - starts).astype(np.uint64) * np.uint64(BULK_ALIGN)
        lanes = np.repeat(group, pieces)
        try:
            data = src_acc.load(ctx, lanes, np.repeat(src, pieces) + step, U8, BULK_ALIGN)
            dst_acc.store(ctx, lanes, np.repeat(dst, pieces) + step, data.reshape(total, BULK_ALIGN), U8, BULK_ALIGN)
        except AccessFault as e:
            raise Fault(e.reason, int(lanes[e.position]), e.address) from None
    if bar_acc is not None:
        try:
            view, idx = _words(bar_acc, ctx, group, bar)
            MB.update(view, idx, complete_tx=size)
        except (AccessFault, MB.MbarrierError) as e:
            raise Fault(e.reason, int(group[e.position]), getattr(e, "address", None)) from None
    return True


def _remote(addr, rank):
    """The .shared::cluster address of the same CTA-relative offset in CTA `rank`."""
    off = int(addr) & CLUSTER_OFFSET_MASK
    return ((int(rank) + 1) << CLUSTER_RANK_SHIFT) | off


# ---------------------------------------------------------------------------- cp.async


def lower_cp_async(lowerer, instr, m, scope):
    mods = _mods(instr, m)
    if "mbarrier" in mods:
        return lower_cp_async_mbarrier_arrive(lowerer, instr, m, scope)
    if "commit_group" in mods or "wait_group" in mods or "wait_all" in mods:
        return [_group_op(instr, mods)]  # every copy has completed at issue: only tools hear of it
    if "bulk" in mods:
        return lower_cp_async_bulk(lowerer, instr, m, scope)
    if "ca" not in mods and "cg" not in mods:
        raise LoweringError(f"cp.{'.'.join(mods)} is not supported")
    ops = list(instr.operands)
    dst_acc, dst_of = _address(lowerer, ops[0], scope, "shared")
    src_acc, src_of = _address(lowerer, ops[1], scope, "global")
    cp_size = _imm(ops[2])
    if cp_size not in (4, 8, 16) or ("cg" in mods and cp_size != 16):
        raise LoweringError(f"cp-size {cp_size} is not allowed here")
    rest = ops[3:]
    if "L2::cache_hint" in mods and rest:
        rest = rest[:-1]  # the cache policy: a hint
    src_size = ignore = None
    if rest:
        if _is_pred(lowerer, rest[0], scope):
            ignore = lowerer.reader(rest[0], "pred", scope)
        else:
            src_size = lowerer.reader(rest[0], "u32", scope)

    def run(ctx, lanes):
        group = ctx.lanes_or_live(lanes)
        n = group.size
        dst = _lane_values(dst_of, ctx, lanes, group)
        src = _lane_values(src_of, ctx, lanes, group)
        if src_size is not None:  # a src-size above cp-size is undefined: read cp-size bytes
            take = np.minimum(_lane_values(src_size, ctx, lanes, group, np.int64), cp_size)
        elif ignore is not None:
            take = np.where(_lane_values(ignore, ctx, lanes, group, bool), 0, cp_size)
        else:
            take = None
        data = np.zeros((n, cp_size), dtype=np.uint8)  # bytes past src-size are zero-filled
        if take is None:
            data[:] = _on(group, None, lambda: src_acc.load(ctx, group, src, U8, cp_size))
        else:
            full = np.flatnonzero(take == cp_size)
            if full.size:
                data[full] = _on(group, full, lambda: src_acc.load(ctx, group[full], src[full], U8, cp_size))
            part = np.flatnonzero((take > 0) & (take < cp_size))
            if part.size:
                bad = (src[part] % np.uint64(cp_size)) != 0
                if bad.any():
                    i = int(part[np.argmax(bad)])
                    raise Fault(f"misaligned {cp_size}-byte cp.async source", int(group[i]), int(src[i]))
                for k in range(cp_size):  # only the src-size bytes are read
                    sel = part[take[part] > k]
                    if sel.size:
                        data[sel, k] = _on(group, sel, lambda: src_acc.load(ctx, group[sel], src[sel] + np.uint64(k), U8, 1))
        _on(group, None, lambda: dst_acc.store(ctx, group, dst, data, U8, cp_size))
        if ctx.hooks is not None:
            ctx.hooks.async_write(ctx, group, dst, cp_size, dst_acc, None)

    refs = AsyncRefs("copy", src=src_of, src_space=_space_of(src_acc), dst=dst_of, dst_space=_space_of(dst_acc),
                     size=cp_size)
    return [Op(run, side_effects=True, copy=refs)]


def _group_op(instr, mods):
    """cp.async(.bulk).commit_group / wait_group / wait_all: nothing to do (copies complete at
    issue) but tell the launch's hooks."""
    bulk = "bulk" in mods
    kind = "commit" if "commit_group" in mods else "wait_all" if "wait_all" in mods else "wait"
    if bulk:
        kind = "bulk_" + ("commit" if kind == "commit" else "wait")
    n = _imm(instr.operands[0]) if kind.endswith("wait") and instr.operands else 0

    def run(ctx, lanes):
        if ctx.hooks is not None:
            ctx.hooks.async_group(ctx, ctx.lanes_or_live(lanes), kind, n)

    return Op(run, side_effects=True)


def _mbarrier_hook(ctx, group, kind, view, idx, before):
    if ctx.hooks is not None:
        ctx.hooks.mbarrier(ctx, group, kind, view, idx, before)


def lower_cp_async_mbarrier_arrive(lowerer, instr, m, scope):
    """cp.async.mbarrier.arrive{.noinc}: an arrive-on once the thread's prior cp.async copies are
    complete (they are): without .noinc the pending count is incremented first, so the object
    ends as it was (the operation still needs a valid object)."""
    mods = _mods(instr, m)
    acc, addr_of = _address(lowerer, instr.operands[0], scope, _space_in(mods, "shared::cta", "shared"))
    noinc = "noinc" in mods

    def run(ctx, lanes):
        group = ctx.lanes_or_live(lanes)
        addr = _lane_values(addr_of, ctx, lanes, group)
        try:
            view, idx = _words(acc, ctx, group, addr)
            before = view[idx].copy() if ctx.hooks is not None else None
            if noinc:
                MB.update(view, idx, arrive=1)
        except (AccessFault, MB.MbarrierError) as e:
            raise _fault(e, group) from None
        _mbarrier_hook(ctx, group, "async_arrive", view, idx, before)

    return [Op(run, side_effects=True, copy=AsyncRefs("mbarrier", bar=addr_of, bar_space=_space_of(acc)))]


# ---------------------------------------------------------------------------- cp.async.bulk


def _require_cluster_launch(ctx, group, what: str) -> None:
    """The H200 stops these instructions with an illegal-instruction error in a launch without
    cluster dimensions, even on the CTA's own shared memory (docs/hardware-notes.md)."""
    if not bool(ctx.sreg.get("%is_explicit_cluster", False)):
        raise Fault(f"{what} needs a launch with cluster dimensions (.reqnctapercluster, "
                    f".explicitcluster or launch(cluster=...)); the GPU stops it with an illegal "
                    f"instruction error otherwise", int(group[0]))


def lower_cp_async_bulk(lowerer, instr, m, scope):
    mods = _mods(instr, m)
    if "prefetch" in mods:
        return [Op(lambda ctx, lanes: None)]  # cp.async.bulk.prefetch(.tensor).L2: a cache hint
    if "tensor" in mods:
        from . import tensor as tensor_ops

        return tensor_ops.lower(lowerer, instr, m, scope)
    if "cp_mask" in mods:
        raise LoweringError("cp.async.bulk .cp_mask (sm_100) is not supported yet")
    spaces = [x for x in mods if x in ("global", "shared::cta", "shared::cluster", "shared")]
    if len(spaces) < 2:
        raise LoweringError("cp.async.bulk needs a destination and a source state space")
    dst_space, src_space = spaces[0], spaces[1]
    ops = list(instr.operands)
    dst_acc, dst_of = _address(lowerer, ops[0], scope, dst_space)
    src_acc, src_of = _address(lowerer, ops[1], scope, src_space)
    size_of = lowerer.reader(ops[2], "u32", scope)
    # .ignore_oob (PTX 9.2): ignoreBytesLeft / ignoreBytesRight come before the mbarrier
    ignore = "ignore_oob" in mods
    if ignore:
        left_of, right_of = lowerer.reader(ops[3], "u32", scope), lowerer.reader(ops[4], "u32", scope)
        ops = ops[:3] + ops[5:]
    mbar = "mbarrier::complete_tx::bytes" in mods
    multicast = "multicast::cluster" in mods
    bar_acc = bar_of = mask_of = None
    if mbar:
        # the mbarrier lives in the destination CTA: a .shared::cluster address unless the
        # destination is this CTA's own window
        bar_space = "shared::cluster" if dst_space == "shared::cluster" else "shared"
        bar_acc, bar_of = _address(lowerer, ops[3], scope, bar_space)
        if multicast:
            mask_of = lowerer.reader(ops[4], "u16", scope)

    remote_from_shared = dst_space == "shared::cluster" and src_space in ("shared::cta", "shared")

    def run(ctx, lanes):
        group = ctx.lanes_or_live(lanes)
        if remote_from_shared:
            _require_cluster_launch(ctx, group, "cp.async.bulk.shared::cluster.shared::cta")
        dst = _lane_values(dst_of, ctx, lanes, group)
        src = _lane_values(src_of, ctx, lanes, group)
        size = _lane_values(size_of, ctx, lanes, group, np.int64)
        bar = _lane_values(bar_of, ctx, lanes, group) if mbar else None
        masks = _lane_values(mask_of, ctx, lanes, group, np.int64) if multicast else None
        if ignore:
            ends = (_lane_values(left_of, ctx, lanes, group, np.int64), _lane_values(right_of, ctx, lanes, group, np.int64))
        elif not multicast and ctx.hooks is None and group.size > 1 and _copy_all(
                ctx, group, src_acc, src, dst_acc, dst, size, bar_acc if mbar else None, bar):
            return
        for i in range(group.size):  # lane order (a fault names the first lane that has one)
            lane = group[i:i + 1]
            s = int(size[i])
            if s % BULK_ALIGN or s < 0:
                raise Fault(f"cp.async.bulk size {s} is not a multiple of 16", int(lane[0]))
            for a, what in ((dst[i], "destination"), (src[i], "source")):
                if int(a) % BULK_ALIGN:
                    raise Fault(f"cp.async.bulk {what} address is not 16-byte aligned", int(lane[0]), int(a))
            try:
                if ignore:   # the H200 copies all of an in-bounds range (tests/goldens: isa9x ignore_oob)
                    _copy_ignoring_ends(ctx, int(lane[0]), src_acc, int(src[i]), dst_acc, int(dst[i]), s,
                                        int(ends[0][i]), int(ends[1][i]))
                    view, idx = _words(bar_acc, ctx, lane, np.array([int(bar[i])], dtype=np.uint64))
                    if ctx.hooks is not None and s:
                        ctx.hooks.async_write(ctx, lane, dst[i:i + 1], s, dst_acc, (view, idx))
                    before = view[idx].copy()
                    MB.update(view, idx, complete_tx=s)   # the whole size (measured)
                    _mbarrier_hook(ctx, lane, "tx", view, idx, before)
                    continue
                data = _read_bulk(src_acc, ctx, int(lane[0]), int(src[i]), s) if s else np.zeros(0, np.uint8)
                if multicast:
                    ranks = [r for r in range(16) if int(masks[i]) >> r & 1]
                    targets = [(_remote(dst[i], r), _remote(bar[i], r)) for r in ranks]
                else:
                    targets = [(int(dst[i]), int(bar[i]) if mbar else None)]
                for d, b in targets:
                    if s:
                        _write_bulk(dst_acc, ctx, int(lane[0]), d, data)
                    if mbar:
                        view, idx = _words(bar_acc, ctx, lane, np.array([b], dtype=np.uint64))
                        if ctx.hooks is not None and s and dst_space != "global":
                            ctx.hooks.async_write(ctx, lane, np.array([d], dtype=np.uint64), s, dst_acc, (view, idx))
                        before = view[idx].copy()
                        MB.update(view, idx, complete_tx=s)
                        _mbarrier_hook(ctx, lane, "tx", view, idx, before)
            except (AccessFault, MB.MbarrierError) as e:
                raise Fault(e.reason, int(lane[0]), getattr(e, "address", None)) from None

    refs = None
    if src_space == "global" and dst_space != "global" and not multicast:  # global -> shared: the TMA engine's loads
        refs = AsyncRefs("bulk", src=src_of, src_space="global", dst=dst_of, dst_space="shared", size=size_of,
                         bar=bar_of, bar_space="shared")
    return [Op(run, side_effects=True, copy=refs)]


# ---------------------------------------------------------------------------- cp.reduce.async.bulk


def _half_minmax(fmt, is_min):
    nan = np.uint16(0x7FFF)

    def fn(old, b):
        x, y = to_float64(as_bits(old, fmt), fmt), to_float64(as_bits(b, fmt), fmt)
        if is_min:
            pick_x = (x < y) | np.isnan(y) | ((x == y) & np.signbit(x))
        else:
            pick_x = (x > y) | np.isnan(y) | ((x == y) & ~np.signbit(x))
        out = np.where(pick_x, old, b)
        return np.where(np.isnan(x) & np.isnan(y), nan, out).astype(np.uint16)

    return fn


def _reducer(op: str, t: str):
    """(storage dtype, fn(old, src) -> new) for cp.reduce.async.bulk's elementwise operation."""
    if t in ("f16", "bf16"):
        fmt = F16 if t == "f16" else BF16
        if op == "add":  # .noftz: subnormals are kept; one rounding to nearest even
            return np.dtype(np.uint16), lambda old, b: half.add(old, b, fmt)
        if op in ("min", "max"):
            return np.dtype(np.uint16), _half_minmax(fmt, op == "min")
        raise LoweringError(f"cp.reduce.async.bulk .{op}.{t} is not a valid reduction")
    dt = numpy_dtype(t)
    if t == "f32" and op == "add":
        # H200: subnormals kept and NaNs canonical (0x7fffffff), as atom.add.f32 on shared memory
        # adds; not like atom.add.f32 on global memory, which flushes (the bulk family's add.f32)
        return dt, atomics.element_combiner(op, t, global_memory=False).fn
    comb = atomics.combiner(op, t)
    return dt, comb.fn


def lower_cp_reduce_async_bulk(lowerer, instr, m, scope):
    mods = _mods(instr, m)
    if "tensor" in mods:
        from . import tensor as tensor_ops

        return tensor_ops.lower(lowerer, instr, m, scope)
    spaces = [x for x in mods if x in ("global", "shared::cta", "shared::cluster", "shared")]
    dst_space, src_space = spaces[0], spaces[1]
    op = next((x for x in mods if x in ("add", "min", "max", "inc", "dec", "and", "or", "xor")), None)
    t = next((x for x in reversed(mods) if x in ("f16", "bf16", "b32", "u32", "s32", "b64", "u64", "s64", "f32", "f64")), None)
    if op is None or t is None:
        raise LoweringError("cp.reduce.async.bulk needs a reduction and a type")
    dt, fn = _reducer(op, t)
    ops = list(instr.operands)
    dst_acc, dst_of = _address(lowerer, ops[0], scope, dst_space)
    src_acc, src_of = _address(lowerer, ops[1], scope, src_space)
    size_of = lowerer.reader(ops[2], "u32", scope)
    # .ignore_oob (PTX 9.2): ignoreBytesLeft / ignoreBytesRight come before the mbarrier
    ignore = "ignore_oob" in mods
    if ignore:
        left_of, right_of = lowerer.reader(ops[3], "u32", scope), lowerer.reader(ops[4], "u32", scope)
        ops = ops[:3] + ops[5:]
    mbar = "mbarrier::complete_tx::bytes" in mods
    bar_acc = bar_of = None
    if mbar:
        bar_acc, bar_of = _address(lowerer, ops[3], scope, "shared::cluster")

    def run(ctx, lanes):
        group = ctx.lanes_or_live(lanes)
        if dst_space == "shared::cluster":
            _require_cluster_launch(ctx, group, "cp.reduce.async.bulk.shared::cluster")
        dst = _lane_values(dst_of, ctx, lanes, group)
        src = _lane_values(src_of, ctx, lanes, group)
        size = _lane_values(size_of, ctx, lanes, group, np.int64)
        bar = _lane_values(bar_of, ctx, lanes, group) if mbar else None
        for i in range(group.size):
            lane = int(group[i])
            s = int(size[i])
            if s % BULK_ALIGN or s < 0:
                raise Fault(f"cp.reduce.async.bulk size {s} is not a multiple of 16", lane)
            for a, what in ((dst[i], "destination"), (src[i], "source")):
                if int(a) % BULK_ALIGN:
                    raise Fault(f"cp.reduce.async.bulk {what} address is not 16-byte aligned", lane, int(a))
            try:
                if s:
                    new = _read_bulk(src_acc, ctx, lane, int(src[i]), s).view(dt)
                    old = _read_bulk(dst_acc, ctx, lane, int(dst[i]), s).view(dt)
                    out = np.asarray(fn(old, new)).astype(dt, copy=False)
                    _write_bulk(dst_acc, ctx, lane, int(dst[i]), np.ascontiguousarray(out).view(np.uint8))
                if mbar:
                    view, idx = _words(bar_acc, ctx, group[i:i + 1], np.array([bar[i]], dtype=np.uint64))
                    MB.update(view, idx, complete_tx=s)
            except (AccessFault, MB.MbarrierError) as e:
                raise Fault(e.reason, lane, getattr(e, "address", None)) from None

    return [Op(run, side_effects=True)]


def lower_cp(lowerer, instr, m, scope):
    mods = _mods(instr, m)
    if mods[:1] == ("async",):
        return lower_cp_async(lowerer, instr, m, scope)
    if mods[:3] == ("reduce", "async", "bulk"):
        return lower_cp_reduce_async_bulk(lowerer, instr, m, scope)
    raise LoweringError(f"cp.{'.'.join(mods)} is not supported")


# ---------------------------------------------------------------------------- mbarrier


def _mbar_space(mods):
    if "shared::cluster" in mods:
        return "shared::cluster"
    if "shared::cta" in mods or "shared" in mods:
        return "shared"
    return None


MBARRIER_LAYOUT = ("the mbarrier layouts of PTX ISA 9.3 (mbarrier.init.layout::v1, mbarrier.check_layout) are not "
                   "modelled: the H200's in-memory layout::v1 format has not been measured")


def lower_mbarrier(lowerer, instr, m, scope):
    mods = _mods(instr, m)
    kind = mods[0]
    if kind == "check_layout" or "layout::v1" in mods:
        raise LoweringError(MBARRIER_LAYOUT)
    space = _mbar_space(mods)
    ops = list(instr.operands)
    if kind == "pending_count":
        dst = lowerer.writer(ops[0], "u32", scope)
        state = lowerer.reader(ops[1], "b64", scope)
        return [Op(lambda ctx, lanes: dst(ctx, lanes, MB.pending_count(np.asarray(state(ctx, lanes)))))]
    addr_node = ops[1] if kind in ("arrive", "arrive_drop", "test_wait", "try_wait") else ops[0]
    acc, addr_of = _address(lowerer, addr_node, scope, space)

    if kind in ("init", "inval", "expect_tx", "complete_tx"):
        value = lowerer.reader(ops[1], "u32", scope) if kind != "inval" else None

        def run(ctx, lanes):
            group = ctx.lanes_or_live(lanes)
            addr = _lane_values(addr_of, ctx, lanes, group)
            try:
                view, idx = _words(acc, ctx, group, addr)
                before = view[idx].copy() if ctx.hooks is not None else None
                v = None if value is None else _lane_values(value, ctx, lanes, group, np.int64)
                if kind == "init":
                    MB.init(view, idx, v)
                elif kind == "inval":
                    MB.inval(view, idx)
                elif kind == "expect_tx":
                    MB.update(view, idx, expect_tx=v)
                else:
                    MB.update(view, idx, complete_tx=v)
            except (AccessFault, MB.MbarrierError) as e:
                raise _fault(e, group) from None
            _mbarrier_hook(ctx, group, kind if kind in ("init", "inval") else "tx", view, idx, before)

        refs = None if kind in ("init", "inval") else AsyncRefs("mbarrier", bar=addr_of, bar_space=_space_of(acc))
        return [Op(run, side_effects=True, copy=refs)]

    if kind in ("arrive", "arrive_drop"):
        drop = kind == "arrive_drop"
        expect = "expect_tx" in mods
        no_complete = "noComplete" in mods
        state_w = lowerer.writer(ops[0], "b64", scope)
        extra = lowerer.reader(ops[2], "u32", scope) if len(ops) > 2 else None

        def run(ctx, lanes):
            group = ctx.lanes_or_live(lanes)
            addr = _lane_values(addr_of, ctx, lanes, group)
            x = _lane_values(extra, ctx, lanes, group, np.int64) if extra is not None else None
            try:
                view, idx = _words(acc, ctx, group, addr)
                before = view[idx].copy() if ctx.hooks is not None else None
                if expect:  # arrive.expect_tx: expect-tx(txCount), then arrive-on with count 1
                    states = MB.update(view, idx, arrive=1, drop=drop, expect_tx=x, no_complete=no_complete)
                else:
                    states = MB.update(view, idx, arrive=1 if x is None else x, drop=drop, no_complete=no_complete)
            except (AccessFault, MB.MbarrierError) as e:
                raise _fault(e, group) from None
            _mbarrier_hook(ctx, group, "arrive", view, idx, before)
            state_w(ctx, lanes, states)

        return [Op(run, side_effects=True, copy=AsyncRefs("mbarrier", bar=addr_of, bar_space=_space_of(acc)))]

    if kind in ("test_wait", "try_wait"):
        parity = "parity" in mods
        dst = lowerer.writer(ops[0], "pred", scope)
        token = lowerer.reader(ops[2], "u32" if parity else "b64", scope)

        def run(ctx, lanes):
            group = ctx.lanes_or_live(lanes)
            addr = _lane_values(addr_of, ctx, lanes, group)
            try:
                view, idx = _words(acc, ctx, group, addr)
            except AccessFault as e:
                raise _fault(e, group) from None
            words = view[idx]
            tok = _lane_values(token, ctx, lanes, group)
            done = MB.parity_done(words, tok) if parity else MB.phase_done(words, tok)
            dst(ctx, lanes, done)
            if ctx.hooks is not None and done.any():
                _mbarrier_hook(ctx, group[done], "wait", view, idx[done], words[done])

        return [Op(run, side_effects=True, copy=AsyncRefs("mbarrier", bar=addr_of, bar_space=_space_of(acc)))]
    raise LoweringError(f"mbarrier.{kind} is not supported")


# ---------------------------------------------------------------------------- st.async / red.async


def _remote_space(mods):
    return "shared::cluster" if "shared::cluster" in mods else None


def _value_type_of(m, instr, allowed):
    if m is not None and m.type is not None:
        return m.type.name
    return next((x for x in reversed(instr.modifiers) if x in allowed), "b32")


def lower_st_async(lowerer, instr, m, scope):
    """st.async [a], b, [mbar]: a store into (another CTA's) shared memory whose completion is a
    complete-tx of the bytes written on the mbarrier of the CTA that holds `a`."""
    mods = _mods(instr, m)
    t = _value_type_of(m, instr, ("b32", "b64", "u32", "u64", "s32", "s64", "f32", "f64"))
    dt = np.dtype(f"u{numpy_dtype(t).itemsize}")
    space = _remote_space(mods)
    acc, addr_of = _address(lowerer, instr.operands[0], scope, space)
    bar_acc, bar_of = _address(lowerer, instr.operands[2], scope, space)
    src = instr.operands[1]
    elements = src.elements if isinstance(src, ast.VectorOperand) else (src,)
    readers = [lowerer.reader(e, t, scope) for e in elements]
    nbytes = dt.itemsize * len(elements)

    def run(ctx, lanes):
        group = ctx.lanes_or_live(lanes)
        _require_cluster_launch(ctx, group, "st.async")
        addr = _lane_values(addr_of, ctx, lanes, group)
        bar = _lane_values(bar_of, ctx, lanes, group)
        parts = [np.broadcast_to(np.asarray(r(ctx, lanes)).view(dt), (group.size,)) for r in readers]
        vals = parts[0] if len(parts) == 1 else np.stack(parts, axis=1)
        try:
            acc.store(ctx, group, addr, vals, dt, len(parts))
            view, idx = _words(bar_acc, ctx, group, bar)
            MB.update(view, idx, complete_tx=nbytes)
        except (AccessFault, MB.MbarrierError) as e:
            raise _fault(e, group) from None

    return [Op(run, side_effects=True)]


def lower_red_async(lowerer, instr, m, scope):
    """red.async.op [a], b, [mbar]: a reduction on (another CTA's) shared memory completing with a
    complete-tx of the operand's size on the mbarrier of the CTA that holds `a`."""
    mods = _mods(instr, m)
    t = _value_type_of(m, instr, ("b32", "u32", "s32", "u64"))
    op = next((x for x in mods if x in atomics.OPS), None)
    if op is None:
        raise LoweringError("red.async needs an operation")
    space = _remote_space(mods)
    acc, addr_of = _address(lowerer, instr.operands[0], scope, space)
    bar_acc, bar_of = _address(lowerer, instr.operands[2], scope, space)
    value = lowerer.reader(instr.operands[1], t, scope)
    vdt = numpy_dtype(t)
    comb = atomics.combiner(op, t)

    def run(ctx, lanes):
        group = ctx.lanes_or_live(lanes)
        _require_cluster_launch(ctx, group, "red.async")
        addr = _lane_values(addr_of, ctx, lanes, group)
        bar = _lane_values(bar_of, ctx, lanes, group)
        try:
            buf, off = acc.offsets(ctx, group, addr, vdt.itemsize)
            vals = np.broadcast_to(np.asarray(value(ctx, lanes)), (group.size,)).astype(vdt)
            atomics.apply(buf.view(vdt), off // np.uint64(vdt.itemsize), comb, [vals], need_old=False)
            view, idx = _words(bar_acc, ctx, group, bar)
            MB.update(view, idx, complete_tx=vdt.itemsize)
        except (AccessFault, MB.MbarrierError) as e:
            raise _fault(e, group) from None

    return [Op(run, side_effects=True)]


# ---------------------------------------------------------------------------- nanosleep etc.


def lower_nanosleep(lowerer, instr, m, scope):
    """nanosleep: no data effect; the sleeping threads yield like a backward branch."""
    op = Op(None, control=True)

    def run(ctx, lanes, pc):
        if lanes is None:
            ctx.upc = pc + 1
            return
        sleepers = lanes
        if op.guard is not None:
            slot, neg = op.guard
            g = ctx.regs[slot][lanes]
            sleepers = lanes[~g if neg else g]
        ctx.epoch[sleepers] += 1
        ctx.pc[lanes] = pc + 1

    op.run = run
    return [op]


def lower_no_effect(lowerer, instr, m, scope):
    return [Op(lambda ctx, lanes: None)]


# forms the lowering refuses by name (dispatch.ENGINE_REFUSES)
REFUSES = {"mbarrier": (frozenset({"check_layout"}), frozenset({"layout::v1"}))}

LOWERINGS = {
    "cp": lower_cp,
    "mbarrier": lower_mbarrier,
    "nanosleep": lower_nanosleep,
    "griddepcontrol": lower_no_effect,
}


def lower_async_store(lowerer, instr, m, scope):
    """st.async and red.async (remote shared memory, completing on an mbarrier)."""
    if instr.opcode == "st":
        return lower_st_async(lowerer, instr, m, scope)
    return lower_red_async(lowerer, instr, m, scope)
