"""Surface instructions on surface objects: suld.b, sust.b and sust.p, sured.b and sured.p, suq.

Loads read random surfaces at coordinates out of range on both sides (.clamp, .zero; .trap in
range, and out of range as an expected fault: the launch stops). Stores give every lane its own target (store-target recipes in
_texcoords.py: with .clamp, the lanes beyond an edge land on edge texels no other lane writes), so
the final surface is deterministic; it is compared bit for bit. Reductions let many lanes hit
the same element (the result does not depend on their order). Unformatted access addresses x in
bytes, formatted access (sust.p, sured.p) in samples.
"""
from __future__ import annotations

import dataclasses

from ._helpers import case, mark_ci
from ._texcoords import key as ckey
from ._texcoords import slots
from ..resources import surface

F = "surface"
# coordinate operands per geometry (l = layer), and the slot axis each one takes (store targets)
GEOM = {"1d": "x", "2d": "xy", "3d": "xyzz", "a1d": "lx", "a2d": "lxyy"}
AXIS = {"x": "x", "y": "y", "z": "z", "l": "z"}
LANES = 256
# a surface per access size: texels as wide as the access, 4 rows (1d: one row; 3d / layered: 2 deep)
TEXEL = {1: ("u8", 1), 2: ("u16", 1), 4: ("u32", 1), 8: ("u32", 2), 16: ("u32", 4)}
WIDTH = {1: 16, 2: 12, 4: 8, 8: 8, 16: 6}
SIZES = {"b8": 1, "b16": 2, "b32": 4, "b64": 8}


def shape(geom: str, width: int, ch: int, rows: int = 4, deep: int = 2) -> str:
    if geom == "1d":
        dims = (width,)
    elif geom == "2d":
        dims = (rows, width)
    elif geom == "a1d":
        dims = (deep, width)
    else:  # 3d, a2d: depth or layers outermost
        dims = (deep, rows, width)
    return "x".join(str(d) for d in dims + (ch,))


def extent(geom: str, width: int, rows: int = 4, deep: int = 2) -> tuple:
    """(S, H, Z) slot extents along x, y and z (depth or layer)."""
    return (width, rows if geom in ("2d", "3d", "a2d") else 1, deep if geom in ("3d", "a1d", "a2d") else 1)


def coord_text(geom: str) -> str:
    return "{{" + ", ".join("{%s}" % c for c in GEOM[geom]) + "}}"


def vec_text(names) -> str:
    return "{%s}" % names[0] if len(names) == 1 else "{{" + ", ".join("{%s}" % x for x in names) + "}}"


def _dims(geom):
    return list(dict.fromkeys(GEOM[geom]))


def load_recipes(geom: str, mode: str, S: int, H: int, Z: int, mul: int) -> list:
    lo = {"trap": 0}.get(mode, -3)
    hi = {"trap": 0}.get(mode, 2)
    lim = {"x": S, "y": H, "z": Z, "l": Z}
    out = []
    for c in _dims(geom):
        r = f"i{lo}~{lim[c] - 1 + hi}"
        out.append(r + (f"x{mul}" if c == "x" else ""))
    return out


TRAP = "a .trap surface access out of range stops the launch"


def suld_case(t: str, vec: str, geom: str, mode: str, variant: str = "", texel: int = 0, lanes: int = LANES,
              outside: bool = False):
    size = SIZES[t]
    n = {"": 1, "v2": 2, "v4": 4}[vec]
    access = size * n
    texel = texel or access
    dt, ch = TEXEL[texel]
    width = WIDTH[texel]
    S, H, Z = extent(geom, width * texel // access)
    res = surface("s", geom, f"{dt}:{shape(geom, width, ch)}:int")
    sp = f"suld.b.{geom}" + (f".{vec}" if vec else "") + f".{t}.{mode}"
    dims = _dims(geom)
    types = ["s32"] * len(dims)
    dst = f"d:{t}*{n}" if n > 1 else f"d:{t}"
    asm = f"{sp} {{d}}, [{{s}}, {coord_text(geom)}];" if n > 1 else f"{sp} {{{{{{d}}}}}}, [{{s}}, {coord_text(geom)}];"
    recipes = load_recipes(geom, "zero" if outside else mode, S, H, Z, access)
    return case(F, sp, dst, " ".join(f"{c}:s32" for c in dims), ckey(types, lanes, recipes),
                variant=variant or geom, asm=asm, resources=(res,), expect_fault=TRAP if outside else None)


def store_case(kind: str, t: str, vec: str, geom: str, mode: str, data: str = "", fmt: str = "",
               values: str = "v", variant: str = "", outside: bool = False):
    """sust.b (x in bytes, texels as wide as the access) or sust.p (x in samples over `data`)."""
    n = {"": 1, "v2": 2, "v4": 4}[vec]
    if kind == "b":
        access = SIZES[t] * n
        dt, ch = TEXEL[access]
        width = WIDTH[access]
        data = f"{dt}:{shape(geom, width, ch)}:zero"
        mul = access
    else:
        width = int(data.split(":")[1].split("x")[-2])
        mul = 1
    S, H, Z = extent(geom, width)
    targets = "zero" if outside else mode     # with .trap: every target, and some out of range
    lanes = slots(S, H, Z, targets).shape[1]
    res = surface("s", geom, data, fmt)
    sp = f"sust.{kind}.{geom}" + (f".{vec}" if vec else "") + f".{t}.{mode}"
    dims = _dims(geom)
    vals = [f"v{i}" for i in range(n)]
    recipes = [f"s{S}/{H}/{Z}/{targets}/{AXIS[c]}/{mul}" for c in dims] + [values] * n
    types = ["s32"] * len(dims) + [t] * n
    asm = f"{sp} [{{s}}, {coord_text(geom)}], {vec_text(vals)};"
    return case(F, sp, "", " ".join(f"{c}:s32" for c in dims) + " " + " ".join(f"{v}:{t}" for v in vals),
                ckey(types, lanes, recipes), variant=variant or geom, asm=asm, resources=(res,),
                truncatable=False, expect_fault=TRAP if outside else None)


def sured_case(kind: str, op: str, t: str, geom: str, mode: str, data: str, values: str, variant: str = "",
               outside: bool = False):
    wide = t.endswith("64")
    width = int(data.split(":")[1].split("x")[-2])
    mul = (8 if wide else 4) if kind == "b" else 1
    S, H, Z = extent(geom, width)
    res = surface("s", geom, data)
    sp = f"sured.{kind}.{op}.{geom}.{t}.{mode}"
    dims = _dims(geom)
    recipes = load_recipes(geom, "zero" if outside else mode, S, H, Z, mul) + [values]
    types = ["s32"] * len(dims) + [t]
    asm = f"{sp} [{{s}}, {coord_text(geom)}], {{v}};"
    return case(F, sp, "", " ".join(f"{c}:s32" for c in dims) + f" v:{t}", ckey(types, 512, recipes),
                variant=variant or geom, asm=asm, resources=(res,), truncatable=False,
                version="8.1" if wide else "7.8", expect_fault=TRAP if outside else None)


VECS = {"b8": ("", "v2", "v4"), "b16": ("", "v2", "v4"), "b32": ("", "v2", "v4"), "b64": ("", "v2")}


def load_cases():
    C = []
    for t, vecs in VECS.items():
        for vec in vecs:
            for mode in ("clamp", "zero"):
                C.append(suld_case(t, vec, "2d", mode))
        C.append(suld_case(t, "", "2d", "trap"))
    for geom in ("1d", "3d", "a1d", "a2d"):
        for mode in ("clamp", "zero"):
            C.append(suld_case("b32", "", geom, mode))
    C.append(suld_case("b64", "v2", "a2d", "zero"))
    C.append(suld_case("b8", "v4", "3d", "clamp"))
    return C


def store_b_cases():
    C = []
    for t, vecs in VECS.items():
        for vec in vecs:
            for mode in ("clamp", "zero"):
                C.append(store_case("b", t, vec, "2d", mode))
        C.append(store_case("b", t, "", "2d", "trap"))
    for geom in ("1d", "3d", "a1d", "a2d"):
        for mode in ("clamp", "zero"):
            C.append(store_case("b", "b32", "", geom, mode))
    C.append(store_case("b", "b64", "v2", "a2d", "zero"))
    C.append(store_case("b", "b16", "v4", "3d", "clamp"))
    return C


# sust.p formats: (name, data, CUDA format where the dtype does not say it, vector, values)
FORMATS = [("f32x4", "f32:4x8x4:zero", "", "v4", "w"), ("f32x2", "f32:4x8x2:zero", "", "v2", "w"),
           ("f32x1", "f32:4x8x1:zero", "", "", "w"), ("f16x4", "f16:4x8x4:zero", "", "v4", "w"),
           ("f16x1", "f16:4x8x1:zero", "", "", "w"), ("u8x4", "u8:4x8x4:zero", "", "v4", "k"),
           ("s8x2", "s8:4x8x2:zero", "", "v2", "k"), ("u16x1", "u16:4x8x1:zero", "", "", "k"),
           ("s16x4", "s16:4x8x4:zero", "", "v4", "k"), ("u32x2", "u32:4x8x2:zero", "", "v2", "k"),
           ("s32x1", "s32:4x8x1:zero", "", "", "k"),
           ("unorm8x4", "u8:4x8x4:zero", "UNORM_INT8X4", "v4", "w"),
           ("snorm8x2", "s8:4x8x2:zero", "SNORM_INT8X2", "v2", "w"),
           ("unorm16x1", "u16:4x8x1:zero", "UNORM_INT16X1", "", "w"),
           ("snorm16x4", "s16:4x8x4:zero", "SNORM_INT16X4", "v4", "w"),
           ("f32x1_v4", "f32:4x8x1:zero", "", "v4", "w"),
           ("f32x4_scalar", "f32:4x8x4:zero", "", "", "w")]


def store_p_cases():
    C = []
    for nm, data, fmt, vec, vals in FORMATS:
        C.append(store_case("p", "b32", vec, "2d", "trap", data, fmt, vals, variant=nm))
    for mode in ("clamp", "zero"):
        C.append(store_case("p", "b32", "v4", "2d", mode, "f32:4x8x4:zero", "", "w", variant="f32x4"))
        C.append(store_case("p", "b32", "", "2d", mode, "u8:4x8x1:zero", "", "k", variant="u8x1"))
    C.append(store_case("p", "b32", "v2", "1d", "zero", "f16:16x2:zero", "", "w", variant="f16x2_1d"))
    # UNORM8 rounding near its ties, per channel and geometry (one a2d element differed by one)
    C.append(store_case("p", "b32", "v4", "2d", "trap", "u8:16x32x4:zero", "UNORM_INT8X4", "t255",
                        variant="unorm8x4_ties"))
    C.append(store_case("p", "b32", "v4", "a2d", "trap", "u8:2x8x32x4:zero", "UNORM_INT8X4", "t255",
                        variant="unorm8x4_ties_a2d"))
    C.append(store_case("p", "b32", "", "1d", "trap", "u8:512x1:zero", "UNORM_INT8X1", "t255",
                        variant="unorm8x1_ties"))
    C.append(store_case("p", "b32", "", "3d", "clamp", "s16:2x4x8x1:zero", "", "k", variant="s16_3d"))
    C.append(store_case("p", "b32", "v4", "a2d", "zero", "u8:2x4x8x4:zero", "UNORM_INT8X4", "w",
                        variant="unorm8x4_a2d"))
    return C


RED_B = [("add", "u32"), ("add", "s32"), ("min", "u32"), ("min", "s32"), ("max", "u32"), ("max", "s32"),
         ("and", "b32"), ("or", "b32"), ("add", "u64"), ("min", "u64"), ("max", "u64"), ("min", "s64"),
         ("max", "s64")]   # ptxas: no .add on .s64


def _values(op, t):
    return "r-1000~1000" if op == "add" else "v"


def reduce_cases():
    C = []
    for op, t in RED_B:
        data = "u32:4x8x2:int" if t.endswith("64") else "u32:4x8x1:int"
        for mode in ("zero", "clamp"):
            C.append(sured_case("b", op, t, "2d", mode, data, _values(op, t)))
        C.append(sured_case("b", op, t, "2d", "trap", data, _values(op, t)))
    C.append(sured_case("b", "add", "u32", "1d", "zero", "u32:8x1:int", "r0~1000"))
    C.append(sured_case("b", "max", "s32", "3d", "clamp", "s32:2x4x8x1:int", "v"))
    for op in ("add", "min", "max", "and", "or"):
        for nm, data in (("u32", "u32:4x8x1:int"), ("s32", "s32:4x8x1:int")):
            C.append(sured_case("p", op, "b32", "2d", "zero", data, _values(op, "b32"), variant=nm))
    C.append(sured_case("p", "add", "b32", "1d", "clamp", "u32:8x1:int", "r0~100", variant="u32_1d"))
    C.append(sured_case("p", "min", "b32", "3d", "trap", "s32:2x4x8x1:int", "v", variant="s32_3d"))
    # sured.p.b64 (min / max only): CUDA has no 64-bit integer format; what do two 32-bit channels do?
    for op in ("min", "max"):
        for nm in ("u32", "s32"):
            C.append(sured_case("p", op, "b64", "2d", "zero", f"{nm}:4x8x2:int", "v", variant=f"{nm}x2"))
    return C


SUQ = ("width", "height", "depth", "channel_data_type", "channel_order", "array_size", "memory_layout")
SUQ_SURFACES = {"u32x4_2d": surface("s", "2d", "u32:4x6x4:int"), "u8x1_1d": surface("s", "1d", "u8:16x1:int"),
                "f32_3d": surface("s", "3d", "f32:3x4x5x1:normal"), "f16x4_2d": surface("s", "2d", "f16:4x5x4:normal"),
                "s16x2_a1d": surface("s", "a1d", "s16:3x8x2:int"), "f32x2_a2d": surface("s", "a2d", "f32:3x4x5x2:normal"),
                "unorm8x4_2d": surface("s", "2d", "u8:4x5x4:int", "UNORM_INT8X4")}


def query_cases():
    key = ckey(["u32"], 32, ["ci0"])
    C = [case(F, f"suq.{q}.b32", "d:b32", "a:u32", key, variant=nm, asm=f"suq.{q}.b32 {{d}}, [{{s}}];",
              resources=(res,)) for q in SUQ for nm, res in SUQ_SURFACES.items()]
    # on a module-level .surfref (the driver JIT refuses some queries on object handles)
    for q in SUQ:
        for nm in ("u32x4_2d", "f32x2_a2d", "unorm8x4_2d"):
            res = dataclasses.replace(SUQ_SURFACES[nm], ref="sref")
            C.append(case(F, f"suq.{q}.b32", "d:b32", "a:u32", key, variant=f"surfref_{nm}",
                          asm=f"suq.{q}.b32 {{d}}, [sref];", prelude=".global .surfref sref;", resources=(res,)))
    return C


def fault_cases():
    """.trap with some lanes out of range: the GPU stops the launch, the engine must fault too."""
    return [suld_case("b32", "", "2d", "trap", variant="out_of_range", outside=True),
            suld_case("b8", "v4", "1d", "trap", variant="out_of_range", outside=True),
            store_case("b", "b32", "", "2d", "trap", variant="out_of_range", outside=True),
            store_case("p", "b32", "v4", "2d", "trap", "f32:4x8x4:zero", "", "w", variant="out_of_range",
                       outside=True),
            sured_case("b", "add", "u32", "2d", "trap", "u32:4x8x1:int", "r0~100", variant="out_of_range",
                       outside=True),
            sured_case("p", "min", "b32", "1d", "trap", "s32:8x1:int", "v", variant="out_of_range", outside=True)]


def cases():
    C = load_cases() + store_b_cases() + store_p_cases() + reduce_cases() + query_cases() + fault_cases()
    return mark_ci(C, key=lambda c: (c.opcode, c.modifiers[0], c.modifiers[-2]), cap=40)
