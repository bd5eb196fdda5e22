"""Texture and surface instructions (ISA 9.7.10, 9.7.11): tex, tld4, txq, suld, sust, sured, suq,
istypep. The texture, sampler or surface is an object handle in a register (`[%rd1, {x, y}]`), a
.texref/.samplerref/.surfref variable (`[tex_ref, {x}]`, `[tex_ref, smp, {x}]` in independent
mode: its 8-byte slot holds the handle Module.bind_texture / bind_sampler / bind_surface put
there) or such a kernel parameter. `engine/texture/objects.py` holds the objects, texture_sample.py the
sampling.

Not supported (a clear error when lowered): multisample geometries (.2dms, .a2dms: CUDA cannot make
such textures).
"""
from __future__ import annotations

import numpy as np

from ...syntax import ast
from ..core.machine import Fault, Op
from ..memory.access import SpaceAccess
from ..core.operands import LoweringError
from .objects import lookup
from .format import formatted_store, reduce_formatted

# geometry -> (coordinate elements read as the coordinate type, layer index first?)
_COORDS = {"1d": (1, False), "2d": (2, False), "3d": (3, False), "a1d": (1, True), "a2d": (2, True),
           "cube": (3, False), "acube": (3, True)}
_GEOMS = ("1d", "2d", "3d", "a1d", "a2d", "cube", "acube", "2dms", "a2dms")
# OpenCL channel types / orders, which the ISA names for txq and suq
_CL_TYPE = {("u", 1, False): 0x10DA, ("u", 2, False): 0x10DB, ("u", 4, False): 0x10DC,
            ("i", 1, False): 0x10D7, ("i", 2, False): 0x10D8, ("i", 4, False): 0x10D9,
            ("u", 1, True): 0x10D2, ("u", 2, True): 0x10D3, ("i", 1, True): 0x10D0, ("i", 2, True): 0x10D1,
            ("f", 2, False): 0x10DD, ("f", 4, False): 0x10DE, ("f", 2, True): 0x10DD, ("f", 4, True): 0x10DE}
_CL_ORDER = {1: 0x10B0, 2: 0x10B2, 4: 0x10B5}
_ADDR_CODE = {"wrap": 0, "clamp": 1, "mirror": 2, "border": 3}


def _find(mods, choices):
    return next((x for x in mods if x in choices), None)


def _count(ctx, lanes):
    return ctx.n if lanes is None else lanes.size


def _bcast(v, n, dt=None):
    a = np.asarray(v)
    if dt is not None:
        a = a.view(dt) if a.dtype.itemsize == np.dtype(dt).itemsize else a.astype(dt)
    return np.broadcast_to(a, (n,))


def _elements(node):
    return list(node.elements) if isinstance(node, ast.VectorOperand) else [node]


def handle_reader(lowerer, node, scope):
    """(reader of the 64-bit handle, name for messages) of a texture/sampler/surface operand: a
    register, or a .texref/.samplerref/.surfref variable or parameter (its slot is read)."""
    if isinstance(node, ast.Address):
        if node.offset is not None:
            raise LoweringError("a texture/surface operand takes no offset")
        node = node.base
    if isinstance(node, ast.Immediate) and isinstance(node.expr, ast.SymbolRef):
        node = node.expr
    name = getattr(node, "name", None)
    if isinstance(node, ast.Register):
        sym = lowerer.register(node, scope)
    elif isinstance(node, ast.SymbolRef):
        sym = lowerer.lookup(node.name, scope)
    else:
        raise LoweringError("expected a texture, sampler or surface (a register or a .texref/.samplerref/"
                            ".surfref name)")
    if sym is None:
        raise LoweringError(f"unknown texture/sampler/surface {name}")
    if sym.space in ("reg", "sreg"):
        return lowerer.reader(node, "u64", scope), None
    space = {"global": "global", "kparam": "kparam", "fparam": "fparam"}.get(sym.space)
    if space is None:
        raise LoweringError(f"{name} is not a texture, sampler or surface reference")
    addr = lowerer.address_of(sym, 0, "u64")
    acc = SpaceAccess(space, in_entry=True)
    u64 = np.dtype(np.uint64)

    def read(ctx, lanes):
        a = np.broadcast_to(np.asarray(addr(ctx, lanes), np.uint64), (_count(ctx, lanes),))
        return acc.load(ctx, lanes, np.ascontiguousarray(a[:1]), u64)

    return read, (f"{sym.type or 'reference'} {name}" if sym.space == "global" else f"parameter {name}")


class _Operand:
    """The bracket `[t, {c}]` / `[t, s, {c}]` / `[t]`: handle readers and coordinate elements."""

    def __init__(self, lowerer, node, scope):
        if isinstance(node, ast.Address):
            els = [node]
        elif isinstance(node, ast.BracketList):
            els = list(node.elements)
        else:
            raise LoweringError("expected [texture, {coordinates}]")
        self.handle, self.what = handle_reader(lowerer, els[0], scope)
        self.sampler = None
        if len(els) == 3:
            self.sampler, self.sampler_what = handle_reader(lowerer, els[1], scope)
        self.coords = _elements(els[-1]) if len(els) > 1 else []

    def texture(self, ctx, lanes):
        tex = lookup(ctx, self.handle(ctx, lanes), "texture", self.what or "")
        if self.sampler is not None:
            smp = lookup(ctx, self.sampler(ctx, lanes), "sampler", self.sampler_what or "")
            tex = tex.with_sampler(smp)
        return tex

    def object(self, ctx, lanes, kind=None):
        return lookup(ctx, self.handle(ctx, lanes), kind, self.what or "")


def _coordinates(lowerer, op, geom, ctype, scope):
    """(layer reader or None, coordinate readers) of a geometry."""
    count, layered = _COORDS[geom]
    els = op.coords
    need = count + layered
    if len(els) < need:
        raise LoweringError(f"{geom} needs {need} coordinate elements, got {len(els)}")
    layer = lowerer.reader(els[0], "u32", scope) if layered else None
    return layer, [lowerer.reader(e, ctype, scope) for e in els[layered: layered + count]]


def _dest(lowerer, node, scope, t, count):
    pred = None
    if isinstance(node, ast.PredPair):
        node, pred = node.first, node.second
    return [lowerer.writer(e, t, scope) for e in _elements(node)[:count]], \
        (lowerer.writer(pred, "pred", scope) if pred else None)


def _read_all(readers, ctx, lanes, n, dt=None):
    return None if readers is None else [_bcast(r(ctx, lanes), n, dt) for r in readers]


def _offsets_read(offs, ctx, lanes, n):
    """tex's texel offsets: 4-bit signed fields (-8..7); other values wrap (measured on the H200;
    tld4 takes -10..9 as they are)."""
    if offs is None:
        return None
    return [((o.astype(np.int64) + 8) & 15) - 8 for o in _read_all(offs, ctx, lanes, n, np.int32)]


def _write(writers, pred, ctx, lanes, vals, n):
    vals = vals.view(np.uint32) if vals.dtype.itemsize == 4 and vals.dtype.kind == "f" else vals
    for i, w in enumerate(writers):
        w(ctx, lanes, np.ascontiguousarray(vals[:, i]))
    if pred is not None:  # every texel is resident
        pred(ctx, lanes, np.ones(n, bool))


def _extras(lowerer, instr, scope, first, dims, level, grad, ctype="f32"):
    """Readers of the operands after the bracket: lod, gradients, offsets, depth compare."""
    ops = list(instr.operands[first:])
    lod = gx = gy = offs = cmp = None
    if level:
        if not ops:
            raise LoweringError(".level needs a level-of-detail operand")
        lod = lowerer.reader(ops.pop(0), ctype, scope)
    if grad:
        if len(ops) < 2:
            raise LoweringError(".grad needs two gradient vectors")
        gx = [lowerer.reader(e, "f32", scope) for e in _elements(ops.pop(0))[:dims]]
        gy = [lowerer.reader(e, "f32", scope) for e in _elements(ops.pop(0))[:dims]]
    if ops and isinstance(ops[0], ast.VectorOperand):
        offs = [lowerer.reader(e, "s32", scope) for e in _elements(ops.pop(0))[:dims]]
    if ops:
        cmp = lowerer.reader(ops.pop(0), "f32", scope)
    if ops:
        raise LoweringError("too many operands")
    return lod, (gx, gy) if grad else None, offs, cmp


# ---------------------------------------------------------------------------- tex / tld4


def lower_tex(lowerer, instr, m, scope):
    mods = list(instr.modifiers)
    geom = _find(mods, _GEOMS)
    if geom in ("2dms", "a2dms"):
        raise LoweringError(f"tex.{geom}: multisample textures are not supported (CUDA cannot create them)")
    types = [x for x in mods if x in ("u32", "s32", "f32", "f16", "f16x2")]
    dtype, ctype = types[0], types[-1]
    dims = _COORDS[geom][0]
    op = _Operand(lowerer, instr.operands[1], scope)
    layer, coords = _coordinates(lowerer, op, geom, ctype, scope)
    lod, grad, offs, cmp = _extras(lowerer, instr, scope, 2, dims, "level" in mods, "grad" in mods, ctype)
    half = dtype in ("f16", "f16x2")
    writers, pred = _dest(lowerer, instr.operands[0], scope, "b16" if dtype == "f16" else "b32",
                          2 if dtype == "f16x2" else 4)
    base = "base" in mods

    def run(ctx, lanes):
        n = _count(ctx, lanes)
        tex = op.texture(ctx, lanes)
        _check_geometry(tex, geom)
        cs = _read_all(coords, ctx, lanes, n)
        if ctype == "s32" and grad is not None:  # the H200 takes the bits as f32 (`tex.grad.*.s32#*`)
            cs = [np.asarray(c).astype(np.int32).view(np.float32) for c in cs]
        lay = None if layer is None else _bcast(layer(ctx, lanes), n)
        o = _offsets_read(offs, ctx, lanes, n)
        c = None if cmp is None else _bcast(cmp(ctx, lanes), n, np.float32)
        lv = None if lod is None else _bcast(lod(ctx, lanes), n, np.int32 if ctype == "s32" else np.float32)
        if base:
            lv = np.zeros(n, np.float32)
        if ctype == "s32" and grad is None:
            vals = tex.fetch_int(cs, layer=lay, lod=None if lod is None else lv, offsets=o)
        else:
            g = None if grad is None else (_read_all(grad[0], ctx, lanes, n, np.float32),
                                           _read_all(grad[1], ctx, lanes, n, np.float32))
            vals = tex.sample(cs, layer=lay, lod=lv, grad=g, offsets=o, compare=c if tex.depth_compare else None)
        if half:
            vals = _to_half(vals, dtype)
        _write(writers, pred, ctx, lanes, vals, n)

    return [Op(run, side_effects=True)]


def _to_half(vals, dtype):
    """.f16 results: each channel as f16 (nearest even); .f16x2: (r, g) and (b, a) packed."""
    if vals.dtype != np.float32:
        raise Fault("tex with .f16/.f16x2 results needs a float or normalized-float texture")
    h = vals.astype(np.float16).view(np.uint16)
    if dtype == "f16":
        return h
    h = h.astype(np.uint32)
    return np.stack([h[:, 0] | (h[:, 1] << 16), h[:, 2] | (h[:, 3] << 16)], axis=1)


def _check_geometry(tex, geom):
    if tex.geometry != geom:
        raise Fault(f"tex/tld4.{geom} on a {tex.geometry} texture")


def lower_tld4(lowerer, instr, m, scope):
    mods = list(instr.modifiers)
    comp = "rgba".index(_find(mods, ("r", "g", "b", "a")))
    geom = _find(mods, _GEOMS)
    if geom not in ("2d", "a2d", "cube", "acube"):
        raise LoweringError(f"tld4.{geom} is not supported (2d, a2d, cube, acube are)")
    op = _Operand(lowerer, instr.operands[1], scope)
    layer, coords = _coordinates(lowerer, op, geom, "f32", scope)
    _, _, offs, cmp = _extras(lowerer, instr, scope, 2, 2, False, False)
    writers, pred = _dest(lowerer, instr.operands[0], scope, "b32", 4)

    def run(ctx, lanes):
        n = _count(ctx, lanes)
        tex = op.texture(ctx, lanes)
        _check_geometry(tex, geom)
        vals = tex.gather(_read_all(coords, ctx, lanes, n), comp,
                          layer=None if layer is None else _bcast(layer(ctx, lanes), n),
                          offsets=_read_all(offs, ctx, lanes, n, np.int32),  # not wrapped: -10..9 measured
                          compare=None if cmp is None or not tex.depth_compare else _bcast(cmp(ctx, lanes), n, np.float32))
        _write(writers, pred, ctx, lanes, vals, n)

    return [Op(run, side_effects=True)]


# ---------------------------------------------------------------------------- queries


def _query(obj, q, level=0):
    if obj.kind == "sampler":
        if q == "filter_mode":
            return {"point": 0, "linear": 1}[obj.filter_mode]
        if q.startswith("addr_mode_"):
            return _ADDR_CODE[obj.address_mode[int(q[-1])]]
        if q == "force_unnormalized_coords":
            return int(obj.force_unnormalized_coords)
        raise Fault(f"txq.{q} asks a sampler for what only a texture has")
    if q == "height" and obj.kind == "texture" and obj.geometry == "1d" and not getattr(obj, "linear", False):
        return 1  # a 1D texture is a 2D one of height 1 (H200: txq_height_1d; texture_sample._border_row)
    if obj.geometry == "a1d" and q in ("height", "depth"):
        return obj.array_size if q == "height" else 0  # a 1D layered object: layers as its height (H200)
    if q == "depth" and obj.geometry in ("a2d", "acube"):
        return obj.array_size  # layered objects report their layer (cube) count as the depth (H200)
    if q in ("width", "height", "depth"):
        i = ("width", "height", "depth").index(q)
        if i >= obj.dims:
            return 0
        return obj.level_size(level)[i] if obj.kind == "texture" else obj.size[i]
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
        return getattr(obj, "num_levels", 1) if getattr(obj, "mipmapped", False) else 0
    if q == "array_size":
        return obj.array_size
    if q in ("num_samples", "memory_layout"):
        return 0
    raise LoweringError(f"query .{q} is not supported")


def lower_txq(lowerer, instr, m, scope):
    mods = list(instr.modifiers)
    q = next(x for x in mods if x not in ("b32", "level"))
    kind = "surface" if instr.opcode == "suq" else None
    op = _Operand(lowerer, instr.operands[1], scope)
    lod = lowerer.reader(instr.operands[2], "s32", scope) if "level" in mods else None
    dst = lowerer.writer(instr.operands[0], "b32", scope)

    def run(ctx, lanes):
        n = _count(ctx, lanes)
        obj = op.object(ctx, lanes, kind)
        if lod is None:
            dst(ctx, lanes, np.full(n, _query(obj, q), np.uint32))
            return
        ks = _bcast(lod(ctx, lanes), n, np.int32)
        out = np.array([_query(obj, q, int(k)) if 0 <= k < getattr(obj, "num_levels", 1) else 0 for k in ks],
                       np.uint32)
        dst(ctx, lanes, out)

    return [Op(run, side_effects=True)]


def lower_istypep(lowerer, instr, m, scope):
    """istypep asks whether a register holds a .texref/.samplerref/.surfref; ptxas takes only a
    register, and an H200 answers false for texture and surface object handles, so the answer is
    false (the engine's references hold object handles)."""
    dst = lowerer.writer(instr.operands[0], "pred", scope)
    lowerer.reader(instr.operands[1], "u64", scope)
    return [Op(lambda ctx, lanes: dst(ctx, lanes, np.zeros(_count(ctx, lanes), bool)))]


# ---------------------------------------------------------------------------- surfaces


def _surface_shape(mods, type_choices):
    geom = _find(mods, ("1d", "2d", "3d", "a1d", "a2d"))
    t = _find(mods, type_choices)
    vec = _find(mods, ("v2", "v4"))
    count = int(vec[1:]) if vec else 1
    mode = _find(mods, ("trap", "clamp", "zero")) or "trap"
    return geom, t, count, mode


def _offsets(ctx, lanes, surf, geom, layer, coords, size, mode, sample_x=False):
    n = _count(ctx, lanes)
    if surf.geometry != geom and not (geom == "a2d" and surf.geometry in ("cube", "acube")):
        raise Fault(f"a .{geom} surface instruction on a {surf.geometry} surface")
    cs = [_bcast(r(ctx, lanes), n).astype(np.int64) for r in coords]
    lay = None if layer is None else _bcast(layer(ctx, lanes), n).astype(np.int64)
    off, ok = surf.byte_offsets(cs, size, mode, layer=lay, sample_x=sample_x)
    if mode == "trap" and not ok.all():
        bad = int(np.flatnonzero(~ok)[0])
        lane = int(ctx.lanes_or_live(lanes)[bad])
        where = [int(c[bad]) for c in cs] + ([] if lay is None else [f"layer {int(lay[bad])}"])
        raise Fault(f"surface access out of range (.trap) at coordinates {where}", lane)
    return off, ok


def _surface_operand(lowerer, node, geom, scope):
    op = _Operand(lowerer, node, scope)
    layer, coords = _coordinates(lowerer, op, geom, "s32", scope)
    return op, layer, coords


def lower_suld(lowerer, instr, m, scope):
    mods = list(instr.modifiers)
    if "p" in mods:
        raise LoweringError("suld.p does not exist on sm_90 (ptxas: not a known instruction)")
    geom, t, count, mode = _surface_shape(mods, ("b8", "b16", "b32", "b64"))
    size = int(t[1:]) // 8
    dt = np.dtype(f"u{size}")
    op, layer, coords = _surface_operand(lowerer, instr.operands[1], geom, scope)
    writers, _ = _dest(lowerer, instr.operands[0], scope, t, count)

    def run(ctx, lanes):
        surf = op.object(ctx, lanes, "surface")
        off, ok = _offsets(ctx, lanes, surf, geom, layer, coords, size * count, mode)
        raw = surf.raw[off[:, None] + np.arange(size * count)[None, :]]
        if mode == "zero":
            raw[~ok] = 0
        vals = np.ascontiguousarray(raw).view(dt).reshape(-1, count)
        for i, w in enumerate(writers):
            w(ctx, lanes, np.ascontiguousarray(vals[:, i]))

    return [Op(run, side_effects=True)]


def lower_sust(lowerer, instr, m, scope):
    mods = list(instr.modifiers)
    formatted = "p" in mods
    geom, t, count, mode = _surface_shape(mods, ("b8", "b16", "b32", "b64"))
    size = int(t[1:]) // 8
    dt = np.dtype(f"u{size}")
    op, layer, coords = _surface_operand(lowerer, instr.operands[0], geom, scope)
    readers = [lowerer.reader(e, t, scope) for e in _elements(instr.operands[1])[:count]]

    def run(ctx, lanes):
        n = _count(ctx, lanes)
        surf = op.object(ctx, lanes, "surface")
        vals = np.stack([_bcast(r(ctx, lanes), n, dt) for r in readers], axis=1)
        if formatted:
            raw = formatted_store(surf, vals)
            width = surf.bytes_per_texel
        else:
            raw = np.ascontiguousarray(vals).view(np.uint8).reshape(n, size * count)
            width = size * count
        off, ok = _offsets(ctx, lanes, surf, geom, layer, coords, width, mode, sample_x=formatted)
        if mode == "zero":  # a store out of range is dropped
            off, raw = off[ok], raw[ok]
        surf.raw[off[:, None] + np.arange(width)[None, :]] = raw

    return [Op(run, side_effects=True)]


_RED = {"add": np.add, "min": np.minimum, "max": np.maximum, "and": np.bitwise_and, "or": np.bitwise_or}


def lower_sured(lowerer, instr, m, scope):
    mods = list(instr.modifiers)
    formatted = "p" in mods
    op_name = _find(mods, tuple(_RED))
    geom, t, _, mode = _surface_shape(mods, ("u32", "s32", "b32", "u64", "s64", "b64"))
    size = int(t[1:]) // 8
    op, layer, coords = _surface_operand(lowerer, instr.operands[0], geom, scope)
    reader = lowerer.reader(instr.operands[1], t, scope)
    dt = np.dtype(("i" if t[0] == "s" else "u") + str(size))

    def run(ctx, lanes):
        n = _count(ctx, lanes)
        surf = op.object(ctx, lanes, "surface")
        vdt = reduce_formatted(surf, size) if formatted else dt
        off, ok = _offsets(ctx, lanes, surf, geom, layer, coords, size, mode, sample_x=formatted)
        vals = _bcast(reader(ctx, lanes), n, vdt)
        if mode == "zero":
            off, vals = off[ok], vals[ok]
        if np.any(off % size):
            raise Fault("misaligned surface reduction")
        _RED[op_name].at(surf.raw.view(vdt), off // size, vals)

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
