"""Editing tensor maps in memory (ISA 9.7.9.27, sm_90a): tensormap.replace, tensormap.query
(PTX 9.5: the allocation class) and tensormap.cp_fenceproxy.

tensormap.replace writes one field of the 128-byte map at [addr] (global or shared::cta memory),
in the driver's encoding (tensor_map_layout.py): the value goes in as the map stores it (a
dimension or box size minus one, a stride in 16-byte units), every other bit of the map is
kept. tensormap.cp_fenceproxy copies a map from shared::cta to global memory; its proxy fence
orders nothing further here, as every access completes when it runs.
"""
from __future__ import annotations

import numpy as np

from ...syntax import ast
from ...syntax.constexpr import evaluate
from . import tensor_map_layout as L
from .copies import _address, _fault, _lane_values, _mods, _space_in
from ..core.machine import Fault, Op
from ..core.memory import AccessFault
from ..core.operands import LoweringError

U8 = np.dtype(np.uint8)
U32 = np.dtype(np.uint32)
U64 = np.dtype(np.uint64)


def _field(field: str, ord_: int):
    """(where, how): where is a Word, ("u8", offset) or ("u64", offset); how turns new_val into
    what the map stores."""
    minus_one = lambda v: v - 1  # noqa: E731
    if field == "global_address":
        return ("u64", 0), lambda v: v
    if field == "rank":
        return L.RANK, lambda v: v
    if field == "box_dim":
        return ("u8", L.box_offset(ord_)), minus_one
    if field == "global_dim":
        return L.dim_field(ord_), minus_one
    if field == "global_stride":
        return "stride", lambda v: v >> np.uint64(4)
    if field == "element_stride":
        return L.estride_field(ord_), minus_one
    if field == "elemtype":
        return "elemtype", lambda v: v
    if field == "swizzle_mode":
        return "swizzle", lambda v: v
    enum = {"interleave_layout": L.INTERLEAVE, "fill_mode": L.FILL}
    if field in enum:
        return enum[field], lambda v: v
    raise LoweringError(f"tensormap.replace .{field} is not supported on sm_90 (ptxvm models the sm_90a fields)")


FIELDS = ("global_address", "rank", "box_dim", "global_dim", "global_stride", "element_stride", "elemtype",
          "interleave_layout", "swizzle_mode", "swizzle_atomicity", "fill_mode")


def _imm(node, what: str) -> int:
    if not isinstance(node, ast.Immediate):
        raise LoweringError(f"tensormap.replace: {what} must be a constant")
    return int(evaluate(node.expr))


def _check_aligned(addr, group, what: str):
    bad = np.flatnonzero(addr % np.uint64(L.ALIGN))
    if bad.size:
        raise Fault(f"{what}: the tensor map at 0x{int(addr[bad[0]]):x} is not {L.ALIGN}-byte aligned",
                    int(group[bad[0]]), int(addr[bad[0]]))


def _put(acc, ctx, group, addr, word: L.Word, value) -> None:
    """Write `value` (per lane) into the bit field `word` of each lane's map."""
    a = addr + np.uint64(word.offset)
    w = acc.load(ctx, group, a, U32).astype(np.uint64)
    mask = np.uint64(((1 << word.bits) - 1) << word.lo)
    v = (np.asarray(value).astype(np.uint64) << np.uint64(word.lo)) & mask
    acc.store(ctx, group, a, ((w & ~mask) | v).astype(np.uint32), U32)


ALLOC = {"alloc_large": 1, "alloc_small": 0}   # .alloc_same keeps the bit


def lower_replace(lowerer, instr, m, scope):
    mods = _mods(instr, m)
    field = next((f for f in FIELDS if f in mods), None)
    alloc = next((ALLOC[a] for a in ALLOC if a in mods), None)
    if field is None and alloc is not None and "tile" in mods:
        return lower_alloc_class(lowerer, instr, mods, scope, alloc)
    if field is None or "tile" not in mods:
        raise LoweringError("tensormap.replace needs .tile and one field")
    ops = list(instr.operands)
    ord_ = _imm(ops[1], "the ordinal") if len(ops) == 3 else 0
    where, how = _field(field, ord_)
    wide = field in ("global_address", "global_stride")
    acc, addr_of = _address(lowerer, ops[0], scope, _space_in(mods, "global", "shared::cta"))
    value_of = lowerer.reader(ops[-1], "b64" if wide else "b32", scope)
    name = ".".join(("tensormap",) + tuple(mods))

    def run(ctx, lanes):
        group = ctx.lanes_or_live(lanes)
        if group.size == 0:
            return
        addr = _lane_values(addr_of, ctx, lanes, group)
        _check_aligned(addr, group, name)
        new = how(_lane_values(value_of, ctx, lanes, group, np.uint64 if wide else np.int64))
        try:
            if alloc is not None:   # .global_address with .alloc_large / .alloc_small (PTX 9.5)
                _put(acc, ctx, group, addr, L.ALLOC_LARGE, np.full(group.size, alloc, np.uint64))
            if isinstance(where, str):
                for word, v in L.replace_parts(where, ord_, np.asarray(new).astype(np.uint64)):
                    _put(acc, ctx, group, addr, word, v)
            elif isinstance(where, L.Word):
                _put(acc, ctx, group, addr, where, new)
            else:
                kind, off = where
                dt = U8 if kind == "u8" else U64
                acc.store(ctx, group, addr + np.uint64(off), np.asarray(new).astype(dt), dt)
        except AccessFault as e:
            raise _fault(e, group) from None

    return [Op(run, side_effects=True)]


def lower_alloc_class(lowerer, instr, mods, scope, large: int):
    """tensormap.replace.tile.alloc_large / .alloc_small{.ss}.b1024 [addr] (PTX 9.5): sets or clears
    the map's allocation-class bit, nothing else."""
    acc, addr_of = _address(lowerer, instr.operands[0], scope, _space_in(mods, "global", "shared::cta"))
    name = ".".join(("tensormap",) + tuple(mods))

    def run(ctx, lanes):
        group = ctx.lanes_or_live(lanes)
        if group.size == 0:
            return
        addr = _lane_values(addr_of, ctx, lanes, group)
        _check_aligned(addr, group, name)
        try:
            _put(acc, ctx, group, addr, L.ALLOC_LARGE, np.full(group.size, large, np.uint64))
        except AccessFault as e:
            raise _fault(e, group) from None

    return [Op(run, side_effects=True)]


def lower_query(lowerer, instr, m, scope):
    """tensormap.query.alloc_class_large{.ss}.b1024 p, [addr] (PTX 9.5): p = the map's
    allocation-class bit."""
    mods = _mods(instr, m)
    if "alloc_class_large" not in mods:
        raise LoweringError(f"tensormap.{'.'.join(mods)} is not supported")
    dst = lowerer.writer(instr.operands[0], "pred", scope)
    acc, addr_of = _address(lowerer, instr.operands[1], scope, _space_in(mods, "global", "shared::cta"))
    name = ".".join(("tensormap",) + tuple(mods))
    word = L.ALLOC_LARGE

    def run(ctx, lanes):
        group = ctx.lanes_or_live(lanes)
        if group.size == 0:
            return
        addr = _lane_values(addr_of, ctx, lanes, group)
        _check_aligned(addr, group, name)
        try:
            w = acc.load(ctx, group, addr + np.uint64(word.offset), U32)
        except AccessFault as e:
            raise _fault(e, group) from None
        bit = ((w >> np.uint32(word.lo)) & np.uint32(1)).astype(bool)
        if lanes is None and group.size != ctx.n:   # uniform mode with exited threads: whole arrays
            full = np.zeros(ctx.n, bool)
            full[group] = bit
            bit = full
        dst(ctx, lanes, bit)

    return [Op(run, side_effects=True)]


def lower_cp_fenceproxy(lowerer, instr, m, scope):
    """tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.scope.sync.aligned
    [dst], [src], 128: a warp copies the map together, lane i its bytes 4i..4i+3 (from its own src
    to its own dst: the H200 does this when the lanes' addresses differ; with the same addresses in
    every lane, as .aligned code writes it, the whole map moves)."""
    ops = list(instr.operands)
    size = int(evaluate(ops[2].expr)) if isinstance(ops[2], ast.Immediate) else None
    if size != L.SIZE:
        raise LoweringError(f"tensormap.cp_fenceproxy copies {L.SIZE} bytes")
    dst_acc, dst_of = _address(lowerer, ops[0], scope, "global")
    src_acc, src_of = _address(lowerer, ops[1], scope, "shared::cta")

    def run(ctx, lanes):
        group = ctx.lanes_or_live(lanes)
        if group.size == 0:
            return
        dst = _lane_values(dst_of, ctx, lanes, group)
        src = _lane_values(src_of, ctx, lanes, group)
        _check_aligned(dst, group, "tensormap.cp_fenceproxy")
        _check_aligned(src, group, "tensormap.cp_fenceproxy")
        word = (ctx.laneid[group].astype(np.uint64) % np.uint64(32)) * np.uint64(4)
        try:
            data = src_acc.load(ctx, group, src + word, U32)
            dst_acc.store(ctx, group, dst + word, data, U32)
        except AccessFault as e:
            raise _fault(e, group) from None

    return [Op(run, side_effects=True)]


def lower(lowerer, instr, m, scope):
    mods = _mods(instr, m)
    if "replace" in mods:
        return lower_replace(lowerer, instr, m, scope)
    if "query" in mods:
        return lower_query(lowerer, instr, m, scope)
    if "cp_fenceproxy" in mods:
        return lower_cp_fenceproxy(lowerer, instr, m, scope)
    raise LoweringError(f"unsupported tensormap instruction .{mods[0] if mods else ''}")


LOWERINGS = {"tensormap": lower}
