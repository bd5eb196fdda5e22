"""Tiled tensor copies (ISA 9.7.9.25.5): cp.async.bulk.tensor between global memory and shared
memory (loads completing on an mbarrier, .multicast::cluster; stores in bulk groups) and
cp.reduce.async.bulk.tensor, over tensor maps made by ptxvm.tensor_map (tensor_map.py).

Like every asynchronous copy here (async_ops.py) a tensor copy completes at issue: its bytes move
and its complete-tx lands on the mbarrier when the instruction runs. The .im2col load modes and
.tile::gather4/scatter4 are not supported.
"""
from __future__ import annotations

import numpy as np

from ...semantics.dtypes import numpy_dtype
from ...syntax import ast
from ..memory import atomics
from . import mbarrier as MB
from . import tensor_map as TM
from .copies import _access, _address, _lane_values, _mods, _remote, _words
from ..core.machine import Fault, Op
from ..core.memory import CLUSTER_OFFSET_MASK, AccessFault
from ..memory.access import SpaceAccess, address_reader
from ..core.operands import LoweringError
from ..trace.events import AsyncRefs

U8 = np.dtype(np.uint8)
REDUCTIONS = ("add", "min", "max", "inc", "dec", "and", "or", "xor")
UNSUPPORTED_MODES = ("im2col::w", "im2col::w::128", "im2col_no_offs", "tile::gather4", "tile::scatter4")


def _tensor_operand(lowerer, node, scope):
    """(map access, map address reader, coordinate readers) of `[tensorMap, {c0, ...}]`."""
    if not isinstance(node, ast.BracketList) or len(node.elements) != 2:
        raise LoweringError("expected [tensorMap, {coordinates}]")
    tmap, coords = node.elements
    hint, map_of = address_reader(lowerer, ast.Address(tmap), scope)
    acc = _access(lowerer, "kparam" if hint == "kparam" else hint)
    elements = coords.elements if isinstance(coords, ast.VectorOperand) else (coords,)
    return acc, map_of, [lowerer.reader(e, "s32", scope) for e in elements]


def _check_mode(mods):
    bad = [x for x in mods if x in UNSUPPORTED_MODES]
    if bad:
        raise LoweringError(f"cp.async.bulk.tensor .{bad[0]} mode is not supported (only .tile and .im2col)")


def _read_map(acc, ctx, lane, addr) -> TM.Desc:
    if int(addr) % TM.ALIGN:
        raise Fault(f"tensor map: address not {TM.ALIGN}-byte aligned", lane, int(addr))
    # a map needs 64-byte alignment only: read it in 16-byte pieces
    pieces = np.uint64(int(addr)) + np.arange(0, TM.SIZE, 16, dtype=np.uint64)
    try:
        raw = acc.load(ctx, np.full(pieces.size, lane), pieces, U8, 16)
    except AccessFault as e:
        raise Fault(f"tensor map: {e.reason}", lane, e.address) from None
    try:
        d = TM.decode(np.asarray(raw).reshape(-1).tobytes())
    except TM.TensorMapError as e:
        raise Fault(str(e), lane, int(addr)) from None
    return d


def _shared_targets(base: int, smem: np.ndarray, mode: int) -> np.ndarray:
    """Addresses of the box's elements in the shared window of `base` (its rank bits kept),
    swizzled by their CTA-relative address."""
    hi = base & ~CLUSTER_OFFSET_MASK
    off = (base & CLUSTER_OFFSET_MASK) + smem
    return (hi | TM.swizzle(off, mode)).astype(np.uint64)


def _coords(readers, ctx, lanes, group):
    return np.stack([_lane_values(r, ctx, lanes, group, np.int64) for r in readers], axis=1)


def _gather(ctx, lane, addr, ok, size):
    """(count, size) bytes of the in-bounds elements of global memory (others zero)."""
    g = _access_global(ctx)
    out = np.zeros((addr.size, size), np.uint8)
    sel = np.flatnonzero(ok)
    if sel.size:
        try:
            out[sel] = _rows(g.load(ctx, np.full(sel.size, lane), addr[sel].astype(np.uint64), U8, size), size)
        except AccessFault as e:
            raise Fault(f"tensor copy reads outside global memory: {e.reason}", lane, e.address) from None
    return out


def _rows(v, size):
    """Loaded bytes as (elements, size) rows (a count-1 load comes back flat)."""
    return np.asarray(v).reshape(-1, size)


def _flat(rows):
    """Rows for a store: flat for one-byte elements (count 1), else as they are."""
    return rows.reshape(-1) if rows.shape[1] == 1 else rows


GLOBAL = SpaceAccess("global", True)


def _access_global(ctx):
    return GLOBAL


def _fill(data, ok, d: TM.Desc):
    if d.oob_nan and not ok.all():
        nan = np.array([TM.OOB_NAN[d.itemsize]], dtype=f"<u{d.itemsize}").view(np.uint8)
        data[~ok] = nan
    return data


def lower_tensor_load(lowerer, instr, m, scope):
    """cp.async.bulk.tensor.Nd.shared::cluster.global{.tile}.mbarrier::complete_tx::bytes
    {.multicast::cluster} [dstMem], [tensorMap, coords], [mbar] {, ctaMask} {, cache-policy}."""
    mods = _mods(instr, m)
    _check_mode(mods)
    ops = list(instr.operands)
    dst_acc, dst_of = _address(lowerer, ops[0], scope, "shared::cluster")
    map_acc, map_of, coord_of = _tensor_operand(lowerer, ops[1], scope)
    bar_acc, bar_of = _address(lowerer, ops[2], scope, "shared::cluster")
    im2col = "im2col" in mods
    rest = ops[3:]
    off_of = None
    if im2col:
        els = rest[0].elements if isinstance(rest[0], ast.VectorOperand) else (rest[0],)
        off_of = [lowerer.reader(e, "u16", scope) for e in els]
        rest = rest[1:]
    multicast = "multicast::cluster" in mods
    mask_of = lowerer.reader(rest[0], "u16", scope) if multicast else None

    def run(ctx, lanes):
        group = ctx.lanes_or_live(lanes)
        dst = _lane_values(dst_of, ctx, lanes, group)
        maps = _lane_values(map_of, ctx, lanes, group)
        bar = _lane_values(bar_of, ctx, lanes, group)
        coords = _coords(coord_of, ctx, lanes, group)
        masks = _lane_values(mask_of, ctx, lanes, group, np.int64) if multicast else None
        offs = _coords(off_of, ctx, lanes, group) if im2col else None
        for i in range(group.size):  # in lane order: few threads issue tensor copies
            lane = int(group[i])
            d = _read_map(map_acc, ctx, lane, int(maps[i]))
            _check_coords(d, coords[i], lane)
            if im2col != (d.im2col is not None):
                raise Fault(f"an {'.im2col' if im2col else '.tile'} copy needs a "
                            f"{'im2col' if im2col else 'tiled'} tensor map", lane)
            addr, ok, smem = TM.im2col_layout(d, coords[i], offs[i]) if im2col else TM.box_layout(d, coords[i])
            data = _fill(_gather(ctx, lane, addr, ok, d.itemsize), ok, d)
            if multicast:
                ranks = [r for r in range(16) if int(masks[i]) >> r & 1]
                targets = [(_remote(dst[i], r), _remote(bar[i], r)) for r in ranks]
            else:
                targets = [(int(dst[i]), int(bar[i]))]
            try:
                for dbase, b in targets:
                    where = _shared_targets(int(dbase), smem, d.swizzle)
                    dst_acc.store(ctx, np.full(where.size, lane), where, _flat(data), U8, d.itemsize)
                    view, idx = _words(bar_acc, ctx, np.array([lane]), np.array([b], dtype=np.uint64))
                    before = None
                    if ctx.hooks is not None:
                        ctx.hooks.async_write(ctx, np.full(where.size, lane), where, d.itemsize, dst_acc, (view, idx))
                        before = view[idx].copy()
                    MB.update(view, idx, complete_tx=d.box_bytes)
                    if ctx.hooks is not None:
                        ctx.hooks.mbarrier(ctx, np.array([lane]), "tx", view, idx, before)
            except (AccessFault, MB.MbarrierError) as e:
                raise Fault(e.reason, lane, getattr(e, "address", None)) from None

    def box(ctx, slot: int):
        """For the event trace (before the copy runs): the global byte addresses of the in-bounds
        elements of thread `slot`'s box and the element size; None when the map or the
        coordinates are not valid (the copy itself then reports it)."""
        lanes = np.array([slot])
        try:
            d = _read_map(map_acc, ctx, slot, int(_lane_values(map_of, ctx, lanes, lanes)[0]))
            c = _coords(coord_of, ctx, lanes, lanes)[0]
            if im2col or d.im2col is not None or c.size != d.rank:
                return None
            addr, ok, _ = TM.box_layout(d, c)
        except Fault:
            return None
        return addr[ok].astype(np.uint64), d.itemsize

    refs = None if multicast else AsyncRefs("tensor", bar=bar_of, bar_space="shared", box=box)
    return [Op(run, side_effects=True, copy=refs)]


def _check_coords(d: TM.Desc, c, lane, store: bool = False):
    """The H200 stops with an illegal instruction when a tiled box's innermost start is not on a
    16-byte boundary, and when a store's box starts at a negative coordinate
    (docs/hardware-notes.md, "Tensor copies")."""
    if c.size != d.rank:
        raise Fault(f"the instruction gives {c.size} coordinates, the tensor map has rank {d.rank}", lane)
    if d.im2col is None and (int(c[0]) * d.itemsize) % 16:
        raise Fault(f"tensor copy: the box's innermost coordinate {int(c[0])} is {int(c[0]) * d.itemsize} bytes, "
                    "not a multiple of 16 (illegal instruction)", lane)
    if store and (c < 0).any():
        raise Fault(f"tensor store or reduction at negative coordinates {c.tolist()} (illegal instruction)", lane)


def lower_tensor_store(lowerer, instr, m, scope):
    """cp.async.bulk.tensor.Nd.global.shared::cta{.tile}.bulk_group [tensorMap, coords], [srcMem]
    and cp.reduce.async.bulk.tensor.Nd.global.shared::cta.redOp{.tile}.bulk_group."""
    mods = _mods(instr, m)
    _check_mode(mods)
    op = next((x for x in mods if x in REDUCTIONS), None) if instr.opcode == "cp" and "reduce" in mods else None
    ops = list(instr.operands)
    map_acc, map_of, coord_of = _tensor_operand(lowerer, ops[0], scope)
    src_acc, src_of = _address(lowerer, ops[1], scope, "shared::cta")

    def run(ctx, lanes):
        group = ctx.lanes_or_live(lanes)
        src = _lane_values(src_of, ctx, lanes, group)
        maps = _lane_values(map_of, ctx, lanes, group)
        coords = _coords(coord_of, ctx, lanes, group)
        g = _access_global(ctx)
        for i in range(group.size):
            lane = int(group[i])
            d = _read_map(map_acc, ctx, lane, int(maps[i]))
            _check_coords(d, coords[i], lane, store=True)
            addr, ok, smem = TM.box_layout(d, coords[i])
            sel = np.flatnonzero(ok)
            if not sel.size:
                continue
            lanes_ = np.full(sel.size, lane)
            try:
                where = _shared_targets(int(src[i]), smem[sel], d.swizzle)
                data = _rows(src_acc.load(ctx, lanes_, where, U8, d.itemsize), d.itemsize)
                ga = addr[sel].astype(np.uint64)
                if op is not None:
                    data = _reduce(op, d, _rows(g.load(ctx, lanes_, ga, U8, d.itemsize), d.itemsize), data, lane)
                g.store(ctx, lanes_, ga, _flat(data), U8, d.itemsize)
            except AccessFault as e:
                raise Fault(e.reason, lane, e.address) from None

    return [Op(run, side_effects=True)]


# Element types each reduction takes, as the H200 runs them; any other pair stops the kernel with an
# illegal instruction (recorded: .min/.max on f32, .min on f64, .inc on s32 and u64, .and on f16).
_REDUCTION_TYPES = {
    "add": {"u32", "s32", "u64", "s64", "f16", "bf16", "f32", "f64"},
    "min": {"u32", "s32", "u64", "s64", "f16", "bf16"},
    "max": {"u32", "s32", "u64", "s64", "f16", "bf16"},
    "inc": {"u32"}, "dec": {"u32"},
    "and": {"u32", "s32", "u64", "s64"}, "or": {"u32", "s32", "u64", "s64"}, "xor": {"u32", "s32", "u64", "s64"},
}


def _reduce(op: str, d: TM.Desc, old: np.ndarray, new: np.ndarray, lane: int) -> np.ndarray:
    """Elementwise old (op) new on rows of raw bytes, in the map's element type."""
    t = TM.DATA_TYPES[d.dtype][2]
    if t not in _REDUCTION_TYPES.get(op, ()):
        raise Fault(f"illegal instruction: cp.reduce.async.bulk.tensor .{op} does not take .{d.dtype} elements", lane)
    try:
        comb = atomics.element_combiner(op, t)
    except ValueError as e:
        raise Fault(str(e), lane) from None
    dt = numpy_dtype(t)
    a = np.ascontiguousarray(old).reshape(-1).view(dt)
    b = np.ascontiguousarray(new).reshape(-1).view(dt)
    out = np.asarray(comb.fn(a.copy(), b)).astype(dt, copy=False)
    return out.view(np.uint8).reshape(old.shape)


def lower(lowerer, instr, m, scope):
    """cp.async.bulk.tensor / cp.reduce.async.bulk.tensor, by direction."""
    mods = _mods(instr, m)
    spaces = [x for x in mods if x in ("global", "shared::cta", "shared::cluster", "shared")]
    if not spaces:
        raise LoweringError("cp.async.bulk.tensor needs its state spaces")
    if spaces[0] == "global":
        return lower_tensor_store(lowerer, instr, m, scope)
    return lower_tensor_load(lowerer, instr, m, scope)
