"""Texture and surface instructions (ISA 9.7.10, 9.7.11) in unified mode: tex, tld4, txq, suld,
sust, sured, suq, istypep. The texture or surface is an object handle in a register
(`[%rd1, {x, y}]`); `engine/texture.py` holds the objects and the sampling math.

Not supported (a clear error at run time): .texref/.surfref/.samplerref variables (independent
mode), array/cube/multisample geometries, offsets and depth compare, sust.p/sured.p (formatted
stores), mipmapped textures (so .level/.grad sample the only level, as CUDA does for a texture
without mipmaps).
"""
from __future__ import annotations

import numpy as np

from ..syntax import ast
from .machine import Fault, Op
from .operands import LoweringError
from .texture import lookup

_NCOORD = {"1d": 1, "2d": 2, "3d": 4}
_GEOMS = ("1d", "2d", "3d", "a1d", "a2d", "cube", "acube", "2dms", "a2dms")
# OpenCL channel types / orders, which the ISA names for txq and suq
_CL_TYPE = {("u", 1, False): 0x10DA, ("u", 2, False): 0x10DB, ("u", 4, False): 0x10DC,
            ("i", 1, False): 0x10D7, ("i", 2, False): 0x10D8, ("i", 4, False): 0x10D9,
            ("u", 1, True): 0x10D2, ("u", 2, True): 0x10D3, ("i", 1, True): 0x10D0, ("i", 2, True): 0x10D1,
            ("f", 2, False): 0x10DD, ("f", 4, False): 0x10DE, ("f", 2, True): 0x10DD, ("f", 4, True): 0x10DE}
_CL_ORDER = {1: 0x10B0, 2: 0x10B2, 4: 0x10B5}
_ADDR_CODE = {"wrap": 0, "clamp": 1, "mirror": 2, "border": 3}


def _mods(instr):
    return list(instr.modifiers)


def _find(mods, choices):
    return next((x for x in mods if x in choices), None)


def _count(ctx, lanes):
    return ctx.n if lanes is None else lanes.size


def _bcast(v, n, dt=None):
    a = np.asarray(v)
    if dt is not None:
        a = a.view(dt) if a.dtype.itemsize == np.dtype(dt).itemsize else a.astype(dt)
    return np.broadcast_to(a, (n,))


def _bracket(lowerer, node, scope, ctype, ncoord):
    """(handle reader, coordinate readers) of `[a, {c...}]` / `[a]`."""
    if isinstance(node, ast.Address):
        if node.offset is not None or not isinstance(node.base, ast.Register):
            raise LoweringError("only texture/surface object handles in registers are supported (unified mode)")
        return lowerer.reader(node.base, "u64", scope), []
    if not isinstance(node, ast.BracketList):
        raise LoweringError("expected [handle, {coordinates}]")
    els = list(node.elements)
    if len(els) == 3:
        raise LoweringError("independent texture mode (a separate sampler) is not supported")
    h = els[0]
    if not isinstance(h, ast.Register):
        raise LoweringError("only texture/surface object handles in registers are supported (.texref/.surfref "
                            "variables are not)")
    handle = lowerer.reader(h, "u64", scope)
    if len(els) == 1:
        return handle, []
    c = els[1]
    coords = list(c.elements) if isinstance(c, ast.VectorOperand) else [c]
    coords = coords[:ncoord] if ncoord else coords
    return handle, [lowerer.reader(x, ctype, scope) for x in coords]


def _dest(lowerer, node, scope, t, count):
    pred = None
    if isinstance(node, ast.PredPair):
        node, pred = node.first, node.second
    els = list(node.elements) if isinstance(node, ast.VectorOperand) else [node]
    return [lowerer.writer(e, t, scope) for e in els[:count]], (lowerer.writer(pred, "pred", scope) if pred else None)


# ---------------------------------------------------------------------------- tex / tld4


def lower_tex(lowerer, instr, m, scope):
    mods = _mods(instr)
    geom = _find(mods, _GEOMS)
    if geom not in _NCOORD:
        raise LoweringError(f"tex.{geom} is not supported (1d, 2d and 3d are)")
    types = [x for x in mods if x in ("u32", "s32", "f32", "f16", "f16x2")]
    if len(types) < 2 or types[0] in ("f16", "f16x2"):
        raise LoweringError("tex with .f16/.f16x2 results is not supported")
    dtype, ctype = types[0], types[-1]
    extra = 1 if "level" in mods else 2 if "grad" in mods else 0
    if len(instr.operands) > 2 + extra:
        raise LoweringError("tex offsets and depth compare are not supported")
    dims = int(geom[0])
    handle, coords = _bracket(lowerer, instr.operands[1], scope, ctype, dims)
    writers, pred = _dest(lowerer, instr.operands[0], scope, "b32", 4)

    def run(ctx, lanes):
        n = _count(ctx, lanes)
        tex = lookup(ctx, handle(ctx, lanes), "texture")
        if tex.dims != dims:
            raise Fault(f"tex.{geom} on a {tex.dims}D texture")
        cs = [_bcast(r(ctx, lanes), n) for r in coords]
        vals = tex.fetch_int(cs) if ctype == "s32" else tex.sample(cs)
        vals = vals.view(np.uint32) if vals.dtype.itemsize == 4 else vals
        for i, w in enumerate(writers):
            w(ctx, lanes, np.ascontiguousarray(vals[:, i]))
        if pred is not None:
            pred(ctx, lanes, np.ones(n, bool))

    return [Op(run, side_effects=True)]


def lower_tld4(lowerer, instr, m, scope):
    mods = _mods(instr)
    comp = "rgba".index(_find(mods, ("r", "g", "b", "a")))
    if _find(mods, _GEOMS) != "2d":
        raise LoweringError("tld4 supports .2d only")
    if len(instr.operands) > 2:
        raise LoweringError("tld4 offsets and depth compare are not supported")
    handle, coords = _bracket(lowerer, instr.operands[1], scope, "f32", 2)
    writers, pred = _dest(lowerer, instr.operands[0], scope, "b32", 4)

    def run(ctx, lanes):
        n = _count(ctx, lanes)
        tex = lookup(ctx, handle(ctx, lanes), "texture")
        if tex.dims != 2:
            raise Fault("tld4.2d on a texture that is not 2D")
        vals = tex.gather([_bcast(r(ctx, lanes), n) for r in coords], comp)
        vals = vals.view(np.uint32)
        for i, w in enumerate(writers):
            w(ctx, lanes, np.ascontiguousarray(vals[:, i]))
        if pred is not None:
            pred(ctx, lanes, np.ones(n, bool))

    return [Op(run, side_effects=True)]


# ---------------------------------------------------------------------------- queries


def _query(obj, q):
    if q in ("width", "height", "depth"):
        return getattr(obj, q)
    if q == "channel_data_type":
        norm = getattr(obj, "read_mode", "element") == "normalized_float"
        return _CL_TYPE[(obj.dtype.kind, obj.dtype.itemsize, norm)]
    if q == "channel_order":
        return _CL_ORDER[obj.channels]
    if q == "normalized_coords":
        return int(obj.normalized_coords)
    if q == "force_unnormalized_coords":
        return int(not obj.normalized_coords)
    if q == "filter_mode":
        return {"point": 0, "linear": 1}[obj.filter_mode]
    if q.startswith("addr_mode_"):
        return _ADDR_CODE[obj.address_mode[int(q[-1])]]
    if q == "num_mipmap_levels":
        return 1
    if q in ("array_size", "num_samples", "memory_layout"):
        return 0
    raise LoweringError(f"query .{q} is not supported")


def lower_txq(lowerer, instr, m, scope):
    mods = _mods(instr)
    if "level" in mods:
        raise LoweringError("txq.level needs mipmapped textures, which are not supported")
    q = next(x for x in mods if x not in ("b32",))
    kind = "surface" if instr.opcode == "suq" else "texture"
    handle, _ = _bracket(lowerer, instr.operands[1], scope, "s32", 0)
    dst = lowerer.writer(instr.operands[0], "b32", scope)

    def run(ctx, lanes):
        obj = lookup(ctx, handle(ctx, lanes), kind)
        dst(ctx, lanes, np.full(_count(ctx, lanes), _query(obj, q), np.uint32))

    return [Op(run, side_effects=True)]


def lower_istypep(lowerer, instr, m, scope):
    """istypep asks whether an address is that of a .texref/.samplerref/.surfref variable; a texture or
    surface object handle is not one (an H200 answers false for both kinds of handle), and this
    engine has no such variables, so the answer is always false."""
    dst = lowerer.writer(instr.operands[0], "pred", scope)
    lowerer.reader(instr.operands[1], "u64", scope)
    return [Op(lambda ctx, lanes: dst(ctx, lanes, np.zeros(_count(ctx, lanes), bool)))]


# ---------------------------------------------------------------------------- surfaces


def _surface_shape(mods, ops_type_choices):
    geom = _find(mods, ("1d", "2d", "3d", "a1d", "a2d"))
    if geom not in _NCOORD:
        raise LoweringError(f"surface geometry .{geom} is not supported (1d, 2d and 3d are)")
    t = _find(mods, ops_type_choices)
    vec = _find(mods, ("v2", "v4"))
    count = int(vec[1:]) if vec else 1
    mode = _find(mods, ("trap", "clamp", "zero")) or "trap"
    return int(geom[0]), t, count, mode


def _offsets(ctx, lanes, surf, dims, coords, size, mode):
    n = _count(ctx, lanes)
    if surf.dims != dims:
        raise Fault(f"a {dims}D surface instruction on a {surf.dims}D surface")
    cs = [_bcast(r(ctx, lanes), n).astype(np.int64) for r in coords]
    off, ok = surf.byte_offsets(cs, size, mode)
    if mode == "trap" and not ok.all():
        bad = int(np.flatnonzero(~ok)[0])
        lane = int(ctx.lanes_or_live(lanes)[bad])
        raise Fault(f"surface access out of range (.trap) at coordinates {[int(c[bad]) for c in cs]}", lane)
    return off, ok


def lower_suld(lowerer, instr, m, scope):
    mods = _mods(instr)
    if "p" in mods:
        raise LoweringError("suld.p (formatted loads) is not supported")
    dims, t, count, mode = _surface_shape(mods, ("b8", "b16", "b32", "b64"))
    size = int(t[1:]) // 8
    dt = np.dtype(f"u{size}")
    handle, coords = _bracket(lowerer, instr.operands[1], scope, "s32", dims)
    writers, _ = _dest(lowerer, instr.operands[0], scope, t, count)

    def run(ctx, lanes):
        surf = lookup(ctx, handle(ctx, lanes), "surface")
        off, ok = _offsets(ctx, lanes, surf, dims, coords, size * count, mode)
        idx = off[:, None] + np.arange(size * count)[None, :]
        raw = surf.raw[idx]
        if mode == "zero":
            raw[~ok] = 0
        vals = np.ascontiguousarray(raw).view(dt).reshape(-1, count)
        for i, w in enumerate(writers):
            w(ctx, lanes, np.ascontiguousarray(vals[:, i]))

    return [Op(run, side_effects=True)]


def lower_sust(lowerer, instr, m, scope):
    mods = _mods(instr)
    if "p" in mods:
        raise LoweringError("sust.p (formatted stores) is not supported")
    dims, t, count, mode = _surface_shape(mods, ("b8", "b16", "b32", "b64"))
    size = int(t[1:]) // 8
    dt = np.dtype(f"u{size}")
    handle, coords = _bracket(lowerer, instr.operands[0], scope, "s32", dims)
    src = instr.operands[1]
    els = list(src.elements) if isinstance(src, ast.VectorOperand) else [src]
    readers = [lowerer.reader(e, t, scope) for e in els[:count]]

    def run(ctx, lanes):
        n = _count(ctx, lanes)
        surf = lookup(ctx, handle(ctx, lanes), "surface")
        off, ok = _offsets(ctx, lanes, surf, dims, coords, size * count, mode)
        vals = np.stack([_bcast(r(ctx, lanes), n, dt) for r in readers], axis=1)
        raw = np.ascontiguousarray(vals).view(np.uint8).reshape(n, size * count)
        if mode == "zero":  # a store out of range is dropped
            off, raw = off[ok], raw[ok]
        surf.raw[off[:, None] + np.arange(size * count)[None, :]] = raw

    return [Op(run, side_effects=True)]


_RED = {"add": np.add, "min": np.minimum, "max": np.maximum, "and": np.bitwise_and, "or": np.bitwise_or}


def lower_sured(lowerer, instr, m, scope):
    mods = _mods(instr)
    if "p" in mods:
        raise LoweringError("sured.p (formatted reductions) is not supported")
    op = _find(mods, tuple(_RED))
    dims, t, _, mode = _surface_shape(mods, ("u32", "s32", "b32", "u64", "s64"))
    size = int(t[1:]) // 8
    dt = np.dtype(("i" if t[0] == "s" else "u") + str(size))
    handle, coords = _bracket(lowerer, instr.operands[0], scope, "s32", dims)
    reader = lowerer.reader(instr.operands[1], t, scope)

    def run(ctx, lanes):
        n = _count(ctx, lanes)
        surf = lookup(ctx, handle(ctx, lanes), "surface")
        off, ok = _offsets(ctx, lanes, surf, dims, coords, size, mode)
        vals = _bcast(reader(ctx, lanes), n, dt)
        if mode == "zero":
            off, vals = off[ok], vals[ok]
        if np.any(off % size):
            raise Fault("misaligned surface reduction")
        _RED[op].at(surf.raw.view(dt), off // size, vals)

    return [Op(run, side_effects=True)]


LOWERINGS = {
    "tex": lower_tex,
    "tld4": lower_tld4,
    "txq": lower_txq,
    "suq": lower_txq,
    "istypep": lower_istypep,
    "suld": lower_suld,
    "sust": lower_sust,
    "sured": lower_sured,
}
