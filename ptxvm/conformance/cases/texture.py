"""Texture instructions on texture objects: tex (plain, .base, .level, .grad) for every result and
coordinate type, tld4, txq and istypep.

Each case samples one texture object (a Resource: CUDA array or mipmapped array and its sampler
settings) at per-lane coordinates from a coordinate recipe (_texcoords.py): out of range on both
sides for every address mode, normalized and unnormalized, point and linear filtering of float and
8/16-bit normalized-integer formats, every geometry, f16 / f16x2 results. tex.grad cases either
sample a texture without mip levels or use isotropic power-of-two gradients on a mipmapped one (an
integral level of detail, point mip filtering: the level is unambiguous). The fault of a .trap
surface access out of range is not a case (the framework has no expected faults).
"""
from __future__ import annotations

import dataclasses

from ._helpers import case, mark_ci
from ._texcoords import key as ckey
from ..resources import surface, texture

F = "texture"
# coordinate operands per geometry: l = layer (u32), x/y/z in the coordinate type; z doubles as
# the ignored fourth element of 3d / cube vectors
GEOM = {"1d": "x", "2d": "xy", "3d": "xyzz", "a1d": "lx", "a2d": "lxyy", "cube": "xyzz", "acube": "lxyz"}
GRAD_DIMS = {"1d": 1, "2d": 2, "a1d": 1, "a2d": 2, "3d": 4, "cube": 4}
LANES = 256

# textures
F2 = "f32:5x7x4:normal"            # 5 rows of 7 texels, 4 channels
F2W = "f32:5x7x4:wide"
F1 = "f32:9x2:normal"
F3 = "f32:3x4x5x4:normal"
FA1 = "f32:4x8x2:normal"
FA2 = "f32:3x5x4x4:normal"
FCUBE = "f32:6x4x4x4:normal"
FACUBE = "f32:12x4x4x2:normal"
U8X4 = "u8:6x5x4:int"
S8X1 = "s8:6x5x1:int"
U16X2 = "u16:6x5x2:int"
S16X2 = "s16:6x5x2:int"
S32X1 = "s32:6x5x1:int"
U32X2 = "u32:6x5x2:int"
F16X4 = "f16:6x5x4:normal"
MIP = "f32:16x16x4:normal"         # 5 levels: 16, 8, 4, 2, 1
MIPLV = "f32:16x16x1:level"        # level k holds k
MIPS32 = "s32:16x16x1:int"
MIPU8 = "u8:16x16x4:int"
MIPF16 = "f16:16x16x2:normal"

UNNORM = {"x": "f-2.5~9.5", "y": "f-2.5~7.5", "z": "f-1.5~5.5", "l": "i-1~4"}
UNNORM_INT = {"x": "i-3~9", "y": "i-3~7", "z": "i-2~6", "l": "i-1~4"}
NORM = {"x": "f-1.5~2.5", "y": "f-1.5~2.5", "z": "f-1.5~2.5", "l": "i-1~4"}
CUBE = {"x": "f-2~2", "y": "f-2~2", "z": "f-2~2", "l": "i-1~3"}
EDGE = {"x": "e", "y": "f-1~6", "z": "f-1~4", "l": "i0~2"}
NORM01 = {"x": "f-0.25~1.25", "y": "f-0.25~1.25", "z": "f0~1", "l": "i-1~3"}


def tex_case(op: str, geom: str, dtype: str, ctype: str, res, coords: dict, variant: str,
             lanes: int = LANES, lod: str = "", grad: tuple = (), pred: bool = False):
    """op: tex | tex.base | tex.level | tex.grad. coords: recipe per coordinate letter; lod: the
    .level operand's recipe; grad: (dPdx recipes, dPdy recipes) per gradient element."""
    vec, n_out = ("v2", 2) if dtype == "f16x2" else ("v4", 4)
    spelling = f"{op}.{geom}.{vec}.{dtype}.{ctype}"
    letters = list(dict.fromkeys(GEOM[geom]))
    types = ["u32" if c == "l" else ctype for c in letters]
    recipes = [coords[c] for c in letters]
    names = list(letters)
    tail = ""
    if op == "tex.level":
        names.append("lod")
        types.append(ctype)
        recipes.append(lod)
        tail = ", {lod}"
    if op == "tex.grad":
        gx, gy = grad
        k = GRAD_DIMS[geom]
        gxn = [f"gx{i}" for i in range(len(gx))]
        gyn = [f"gy{i}" for i in range(len(gy))]
        names += gxn + gyn
        types += ["f32"] * (len(gx) + len(gy))
        recipes += list(gx) + list(gy)

        def vec_of(ns):
            ns = (ns + ns[-1:] * 4)[:k]
            return "{{" + ", ".join("{%s}" % x for x in ns) + "}}" if k > 1 else "{{{%s}}}" % ns[0]
        tail = f", {vec_of(gxn)}, {vec_of(gyn)}"
    cvec = "{{" + ", ".join("{%s}" % c for c in GEOM[geom]) + "}}"
    dst = "{d}|{p}" if pred else "{d}"
    asm = f"{spelling} {dst}, [{{t}}, {cvec}]{tail};"
    dsts = f"d:{dtype}*{n_out}" + (" p:pred" if pred else "")
    srcs = " ".join(f"{nm}:{t}" for nm, t in zip(names, types))
    return case(F, spelling, dsts, srcs, ckey(types, lanes, recipes), variant=variant, asm=asm,
                resources=(res,), version="8.0")


def t(geom, data, levels=1, **kw):
    return texture("t", geom, data, levels, **kw)


def plain_cases():
    C = []
    lin, pt = dict(filter_mode="linear"), dict(filter_mode="point")
    # f32 results, f32 coordinates: every address mode x filter, normalized
    for am in ("clamp", "wrap", "mirror", "border"):
        for fm in ("point", "linear"):
            C.append(tex_case("tex", "2d", "f32", "f32", t("2d", F2, address_mode=am, filter_mode=fm,
                                                           normalized_coords=True), NORM, f"norm_{am}_{fm}", 512))
    for am in ("clamp", "border"):
        for fm in ("point", "linear"):
            C.append(tex_case("tex", "2d", "f32", "f32", t("2d", F2, address_mode=am, filter_mode=fm), UNNORM,
                              f"unnorm_{am}_{fm}", 512))
    C.append(tex_case("tex", "2d", "f32", "f32", t("2d", F2, address_mode=("wrap", "mirror"), filter_mode="linear",
                                                   normalized_coords=True), NORM, "norm_wrap_mirror_linear"))
    C.append(tex_case("tex", "2d", "f32", "f32", t("2d", F2, address_mode="border", filter_mode="linear",
                                                   border_color=(1.0, -2.0, 0.5, 3.0)), UNNORM, "border_color"))
    C.append(tex_case("tex", "2d", "f32", "f32", t("2d", F2W, **lin), UNNORM, "wide_linear"))
    C.append(tex_case("tex", "1d", "f32", "f32", t("1d", F1, **lin), {"x": "f-2.5~11.5"}, "1d_linear"))
    C.append(tex_case("tex", "1d", "f32", "f32", t("1d", F1, address_mode="mirror", normalized_coords=True, **pt),
                      NORM, "1d_norm_mirror_point"))
    C.append(tex_case("tex", "3d", "f32", "f32", t("3d", F3, **lin), UNNORM, "3d_linear"))
    C.append(tex_case("tex", "3d", "f32", "f32", t("3d", F3, address_mode="wrap", normalized_coords=True, **pt),
                      NORM, "3d_norm_wrap_point"))
    C.append(tex_case("tex", "a1d", "f32", "f32", t("a1d", FA1, **lin), {"l": "i-1~5", "x": "f-2~10"}, "a1d_linear"))
    C.append(tex_case("tex", "a2d", "f32", "f32", t("a2d", FA2, **pt), UNNORM, "a2d_point"))
    C.append(tex_case("tex", "a2d", "f32", "f32", t("a2d", FA2, address_mode="border", **lin), UNNORM,
                      "a2d_border_linear"))
    C.append(tex_case("tex", "cube", "f32", "f32", t("cube", FCUBE, normalized_coords=True, **lin), CUBE,
                      "cube_linear"))
    C.append(tex_case("tex", "cube", "f32", "f32", t("cube", FCUBE, normalized_coords=True, **pt), CUBE,
                      "cube_point"))
    C.append(tex_case("tex", "acube", "f32", "f32", t("acube", FACUBE, normalized_coords=True, **lin), CUBE,
                      "acube_linear"))
    # formats: normalized-integer reads (point and linear), f16 texels
    nf = dict(read_mode="normalized_float")
    C.append(tex_case("tex", "2d", "f32", "f32", t("2d", U8X4, **nf, **pt), UNNORM, "u8x4_normfloat_point"))
    C.append(tex_case("tex", "2d", "f32", "f32", t("2d", U8X4, **nf, **lin), UNNORM, "u8x4_normfloat_linear", 512))
    C.append(tex_case("tex", "2d", "f32", "f32", t("2d", S8X1, **nf, **lin), UNNORM, "s8_normfloat_linear", 512))
    C.append(tex_case("tex", "2d", "f32", "f32", t("2d", U16X2, **nf, **lin), UNNORM, "u16x2_normfloat_linear", 512))
    C.append(tex_case("tex", "2d", "f32", "f32", t("2d", S16X2, **nf, **lin), UNNORM, "s16x2_normfloat_linear", 512))
    C.append(tex_case("tex", "2d", "f32", "f32", t("2d", F16X4, **lin), UNNORM, "f16x4_linear"))
    # coordinate edges: NaN, infinities, huge and tiny values
    C.append(tex_case("tex", "2d", "f32", "f32", t("2d", F2, **pt), EDGE, "edges_point"))
    C.append(tex_case("tex", "2d", "f32", "f32", t("2d", F2, **lin), EDGE, "edges_linear"))
    C.append(tex_case("tex", "2d", "f32", "f32", t("2d", F2, address_mode="wrap", normalized_coords=True, **lin),
                      EDGE, "edges_norm_wrap_linear"))
    C.append(tex_case("tex", "2d", "f32", "f32", t("2d", F2, **lin), UNNORM, "resident_pred", pred=True))
    # f32 results, s32 coordinates (texel indices)
    C.append(tex_case("tex", "2d", "f32", "s32", t("2d", F2), UNNORM_INT, "clamp"))
    C.append(tex_case("tex", "2d", "f32", "s32", t("2d", F2, address_mode="border"), UNNORM_INT, "border"))
    C.append(tex_case("tex", "2d", "f32", "s32", t("2d", F2, **lin), UNNORM_INT, "linear_filter"))
    C.append(tex_case("tex", "1d", "f32", "s32", t("1d", F1), {"x": "i-3~12"}, "1d"))
    C.append(tex_case("tex", "3d", "f32", "s32", t("3d", F3, address_mode="border"), UNNORM_INT, "3d_border"))
    C.append(tex_case("tex", "a2d", "f32", "s32", t("a2d", FA2), UNNORM_INT, "a2d"))
    C.append(tex_case("tex", "2d", "f32", "s32", t("2d", U8X4, **nf), UNNORM_INT, "u8x4_normfloat"))
    # integer results: element reads of integer textures
    C.append(tex_case("tex", "2d", "s32", "f32", t("2d", S32X1), UNNORM, "s32x1"))
    C.append(tex_case("tex", "2d", "s32", "f32", t("2d", S16X2, address_mode="border"), UNNORM, "s16x2_border"))
    C.append(tex_case("tex", "2d", "s32", "f32", t("2d", S8X1, address_mode="wrap", normalized_coords=True), NORM,
                      "s8_norm_wrap"))
    C.append(tex_case("tex", "a1d", "s32", "f32", t("a1d", "s16:3x8x1:int"), {"l": "i-1~4", "x": "f-2~10"}, "a1d_s16"))
    C.append(tex_case("tex", "1d", "s32", "s32", t("1d", "s32:9x1:int"), {"x": "i-3~12"}, "1d_s32"))
    C.append(tex_case("tex", "2d", "s32", "s32", t("2d", S16X2), UNNORM_INT, "s16x2"))
    C.append(tex_case("tex", "3d", "s32", "s32", t("3d", "s8:3x4x5x4:int", address_mode="border"), UNNORM_INT,
                      "3d_s8x4_border"))
    C.append(tex_case("tex", "2d", "u32", "f32", t("2d", U8X4), UNNORM, "u8x4"))
    C.append(tex_case("tex", "2d", "u32", "f32", t("2d", U16X2, address_mode="mirror", normalized_coords=True), NORM,
                      "u16x2_norm_mirror"))
    C.append(tex_case("tex", "2d", "u32", "f32", t("2d", U32X2, address_mode="border"), UNNORM, "u32x2_border"))
    C.append(tex_case("tex", "cube", "u32", "f32", t("cube", "u32:6x4x4x1:int", normalized_coords=True), CUBE,
                      "cube_u32"))
    C.append(tex_case("tex", "2d", "u32", "s32", t("2d", U32X2), UNNORM_INT, "u32x2"))
    C.append(tex_case("tex", "3d", "u32", "s32", t("3d", "u8:3x4x5x4:int"), UNNORM_INT, "3d_u8x4"))
    # f16 / f16x2 results
    big = "f32:5x7x4:wide"
    C.append(tex_case("tex", "2d", "f16", "f32", t("2d", F2, **lin), UNNORM, "f32tex_linear"))
    C.append(tex_case("tex", "2d", "f16", "f32", t("2d", big, **pt), UNNORM, "f32tex_point_wide"))
    C.append(tex_case("tex", "2d", "f16", "f32", t("2d", F16X4, **lin), UNNORM, "f16tex_linear"))
    C.append(tex_case("tex", "2d", "f16", "f32", t("2d", U8X4, **nf, **lin), UNNORM, "u8tex_normfloat_linear"))
    C.append(tex_case("tex", "2d", "f16", "s32", t("2d", F2), UNNORM_INT, "f32tex"))
    C.append(tex_case("tex", "3d", "f16", "s32", t("3d", "f16:3x4x5x4:normal"), UNNORM_INT, "3d_f16tex"))
    C.append(tex_case("tex", "2d", "f16x2", "f32", t("2d", F2, **lin), UNNORM, "f32tex_linear"))
    C.append(tex_case("tex", "2d", "f16x2", "f32", t("2d", F16X4, address_mode="wrap", normalized_coords=True, **lin),
                      NORM, "f16tex_norm_wrap_linear"))
    C.append(tex_case("tex", "a2d", "f16x2", "f32", t("a2d", FA2, **pt), UNNORM, "a2d_point"))
    C.append(tex_case("tex", "2d", "f16x2", "s32", t("2d", F2W), UNNORM_INT, "f32tex_wide"))
    C += operand_cases()
    return C


def operand_cases():
    """The optional operands: texel offsets e (register and immediate, -8..7) and the depth-compare
    value f (non-depth textures: CUDA makes no depth textures)."""
    C = []
    lin = dict(filter_mode="linear")
    for var, res, off, rec in (("offset_linear", t("2d", F2, **lin), "{{{ox}, {oy}}}", UNNORM),
                               ("offset_point_border", t("2d", F2, address_mode="border"), "{{{ox}, {oy}}}", UNNORM),
                               ("offset_norm_wrap", t("2d", F2, address_mode="wrap", normalized_coords=True, **lin),
                                "{{{ox}, {oy}}}", NORM)):
        C.append(case(F, "tex.2d.v4.f32.f32", "d:f32*4", "x:f32 y:f32 ox:s32 oy:s32",
                      ckey(["f32", "f32", "s32", "s32"], LANES, [rec["x"], rec["y"], "i-8~7", "i-8~7"]),
                      variant=var, asm="tex.2d.v4.f32.f32 {d}, [{t}, {{{x}, {y}}}], " + off + ";",
                      resources=(res,)))
    C.append(case(F, "tex.2d.v4.f32.f32", "d:f32*4", "x:f32 y:f32", ckey(["f32", "f32"], LANES, [UNNORM["x"], UNNORM["y"]]),
                  variant="offset_immediate", asm="tex.2d.v4.f32.f32 {d}, [{t}, {{{x}, {y}}}], {{3, -2}};",
                  resources=(t("2d", F2, **lin),)))
    C.append(case(F, "tex.2d.v4.s32.s32", "d:s32*4", "x:s32 y:s32 ox:s32 oy:s32",
                  ckey(["s32"] * 4, LANES, [UNNORM_INT["x"], UNNORM_INT["y"], "i-8~7", "i-8~7"]), variant="offset",
                  asm="tex.2d.v4.s32.s32 {d}, [{t}, {{{x}, {y}}}], {{{ox}, {oy}}};", resources=(t("2d", S16X2),)))
    C.append(case(F, "tld4.g.2d.v4.f32.f32", "d:f32*4", "x:f32 y:f32 ox:s32 oy:s32",
                  ckey(["f32", "f32", "s32", "s32"], LANES, [UNNORM["x"], UNNORM["y"], "i-8~7", "i-8~7"]),
                  variant="offset", asm="tld4.g.2d.v4.f32.f32 {d}, [{t}, {{{x}, {y}}}], {{{ox}, {oy}}};",
                  resources=(t("2d", F2),)))
    C.append(case(F, "tex.2d.v4.f32.f32", "d:f32*4", "x:f32 y:f32 f:f32",
                  ckey(["f32"] * 3, LANES, [UNNORM["x"], UNNORM["y"], "f-1~1"]), variant="compare_operand",
                  asm="tex.2d.v4.f32.f32 {d}, [{t}, {{{x}, {y}}}], {f};", resources=(t("2d", "f32:5x7x1:normal", **lin),)))
    C.append(case(F, "tex.level.2d.v4.f32.f32", "d:f32*4", "x:f32 y:f32 lod:f32 ox:s32 oy:s32",
                  ckey(["f32", "f32", "f32", "s32", "s32"], LANES, [NORM01["x"], NORM01["y"], "f-1~5", "i-8~7", "i-8~7"]),
                  variant="offset", asm="tex.level.2d.v4.f32.f32 {d}, [{t}, {{{x}, {y}}}], {lod}, {{{ox}, {oy}}};",
                  resources=(_mip_texture("f32", "f32"),)))
    return C


DTYPES = [("f32", "f32"), ("f32", "s32"), ("s32", "f32"), ("s32", "s32"), ("u32", "f32"), ("u32", "s32"),
          ("f16", "f32"), ("f16", "s32"), ("f16x2", "f32"), ("f16x2", "s32")]


def _mip_texture(dtype: str, ctype: str, **kw):
    """A mipmapped 2D texture fit for the result type: float data for float results, integer data
    read as integers (point filtering) otherwise; normalized coordinates with f32 coordinates."""
    data = {"s32": MIPS32, "u32": MIPU8}.get(dtype, MIP)
    settings = dict(mipmap_filter_mode="point", filter_mode="point")
    if dtype in ("f32", "f16", "f16x2") and ctype == "f32":
        settings["filter_mode"] = "linear"
    if ctype == "f32":
        settings["normalized_coords"] = True
    settings.update(kw)
    return t("2d", data, 5, **settings)


def mip_cases():
    C = []
    for dtype, ctype in DTYPES:
        coords = NORM01 if ctype == "f32" else {"x": "i-2~17", "y": "i-2~17"}
        C.append(tex_case("tex.base", "2d", dtype, ctype, _mip_texture(dtype, ctype), coords, "mip2d"))
        lod = "f-1~5" if ctype == "f32" else "i-1~5"
        C.append(tex_case("tex.level", "2d", dtype, ctype, _mip_texture(dtype, ctype), coords, "mip2d", lod=lod))
        # isotropic power-of-two gradients: level of detail exactly k (texels: 2^k / size normalized)
        if ctype == "f32":
            g = ("p-6~0@g", "c0"), ("c0", "p-6~0@g")
        else:
            g = ("p-2~4@g", "c0"), ("c0", "p-2~4@g")
        C.append(tex_case("tex.grad", "2d", dtype, ctype, _mip_texture(dtype, ctype), coords, "mip2d_pow2",
                          grad=g))
    # more .level / .base / .grad on f32: linear mip filtering, bias and clamps, levels as constants,
    # layered and 1d mipmaps, gradients on a texture without levels
    lv = dict(normalized_coords=True, filter_mode="linear", mipmap_filter_mode="linear")
    C.append(tex_case("tex.level", "2d", "f32", "f32", t("2d", MIP, 5, **lv), NORM01, "trilinear", 512, lod="f-1~5"))
    C.append(tex_case("tex.level", "2d", "f32", "f32", t("2d", MIPLV, 5, **lv), {"x": "c0.5", "y": "c0.5"},
                      "level_ramp", 512, lod="f-1~5"))
    C.append(tex_case("tex.level", "2d", "f32", "f32",
                      t("2d", MIPLV, 5, mipmap_level_bias=0.5, min_mipmap_level_clamp=1.0, max_mipmap_level_clamp=3.5,
                        **lv), {"x": "c0.5", "y": "c0.5"}, "bias_clamp", lod="f-1~5"))
    C.append(tex_case("tex.level", "a2d", "f32", "f32", t("a2d", "f32:3x8x8x1:normal", 4, **lv),
                      dict(NORM01, l="i0~2"), "a2d", lod="f-0.5~3.5"))
    C.append(tex_case("tex.level", "1d", "f32", "f32", t("1d", "f32:32x2:normal", 6, **lv), NORM01, "1d",
                      lod="f-1~6"))
    C.append(tex_case("tex.base", "a2d", "f32", "f32", t("a2d", "f32:3x8x8x1:normal", 4, **lv), dict(NORM01, l="i0~2"),
                      "a2d"))
    C.append(tex_case("tex.grad", "2d", "f32", "f32", t("2d", F2, filter_mode="linear"), UNNORM, "no_levels",
                      grad=(("f-4~4", "f-4~4"), ("f-4~4", "f-4~4"))))
    C.append(tex_case("tex.grad", "2d", "f32", "f32", _mip_texture("f32", "f32", filter_mode="point"), NORM01,
                      "mip2d_pow2_point", grad=(("p-6~0@g", "c0"), ("c0", "p-6~0@g"))))
    # with .s32 coordinates the H200 seems to read the coordinate bits as f32 and to scale the
    # gradients by the size: float bits as coordinates, and f32 gradients on an unnormalized texture
    C.append(tex_case("tex.grad", "2d", "f32", "s32", _mip_texture("f32", "s32"), {"x": "f0~17", "y": "f0~17"},
                      "float_bits", grad=(("p-6~0@g", "c0"), ("c0", "p-6~0@g"))))
    C.append(tex_case("tex.grad", "2d", "f32", "f32", _mip_texture("f32", "s32"), {"x": "f0~17", "y": "f0~17"},
                      "unnorm_pow2", grad=(("p-6~4@g", "c0"), ("c0", "p-6~4@g"))))
    C.append(tex_case("tex.grad", "2d", "f32", "f32", _mip_texture("f32", "f32"), NORM01, "mip2d_pow2_swapped",
                      grad=(("c0", "p-6~0@g"), ("p-6~0@g", "c0"))))
    return C


def tld4_cases():
    C = []
    data = t("2d", F2)
    for comp in "rgba":
        C.append(case(F, f"tld4.{comp}.2d.v4.f32.f32", "d:f32*4", "x:f32 y:f32",
                      ckey(["f32", "f32"], LANES, [UNNORM["x"], UNNORM["y"]]), variant="f32x4",
                      asm=f"tld4.{comp}.2d.v4.f32.f32 {{d}}, [{{t}}, {{{{{{x}}, {{y}}}}}}];", resources=(data,)))
    extra = [("r", "2d", "f32", t("2d", F2, address_mode="border"), "border"),
             ("g", "2d", "f32", t("2d", F2, address_mode="wrap", normalized_coords=True), "norm_wrap"),
             ("b", "2d", "f32", t("2d", U8X4, read_mode="normalized_float"), "u8x4_normfloat"),
             ("a", "2d", "f32", t("2d", F16X4, address_mode="mirror", normalized_coords=True), "f16_norm_mirror"),
             ("r", "2d", "s32", t("2d", S32X1), "s32x1"),
             ("g", "2d", "s32", t("2d", S16X2, address_mode="border"), "s16x2_border"),
             ("a", "2d", "u32", t("2d", U8X4), "u8x4"),
             ("b", "2d", "u32", t("2d", U32X2, address_mode="wrap", normalized_coords=True), "u32x2_norm_wrap"),
             ("b", "a2d", "f32", t("a2d", FA2), "a2d"),
             ("a", "cube", "f32", t("cube", FCUBE, normalized_coords=True), "cube")]
    for comp, geom, dt, res, var in extra:
        letters = list(dict.fromkeys(GEOM[geom]))
        types = ["u32" if c == "l" else "f32" for c in letters]
        rec = CUBE if geom == "cube" else (NORM if dict(res.sampler).get("normalized_coords") else UNNORM)
        sp = f"tld4.{comp}.{geom}.v4.{dt}.f32"
        cvec = "{{" + ", ".join("{%s}" % c for c in GEOM[geom]) + "}}"
        C.append(case(F, sp, f"d:{dt}*4", " ".join(f"{c}:{ty}" for c, ty in zip(letters, types)),
                      ckey(types, LANES, [rec[c] for c in letters]), variant=var,
                      asm=f"{sp} {{d}}, [{{t}}, {cvec}];", resources=(res,)))
    return C


QUERY_TEXTURES = {
    "f32x4_2d": t("2d", F2, address_mode="wrap", filter_mode="linear", normalized_coords=True),
    "u8x4_2d": t("2d", U8X4, address_mode=("mirror", "border"), read_mode="normalized_float"),
    "s16x2_2d": t("2d", S16X2),
    "f16x4_2d": t("2d", F16X4, address_mode="border", normalized_coords=True),
    "u32x2_2d": t("2d", U32X2),
    "f32_3d": t("3d", F3, address_mode=("clamp", "wrap", "mirror"), normalized_coords=True),
    "f32_a2d": t("a2d", FA2),
    "f32_a1d": t("a1d", FA1),
    "f32_cube": t("cube", FCUBE, normalized_coords=True),
    "f32_acube": t("acube", FACUBE, normalized_coords=True),
    "mip": t("2d", MIP, 5, normalized_coords=True, filter_mode="linear", mipmap_filter_mode="linear"),
}
TQUERIES = ("width", "height", "depth", "channel_data_type", "channel_order", "normalized_coords", "array_size",
            "num_mipmap_levels", "num_samples")
SQUERIES = ("force_unnormalized_coords", "filter_mode", "addr_mode_0", "addr_mode_1", "addr_mode_2")
QKEY = ckey(["u32"], 32, ["ci0"])


def query_cases():
    C = []
    for q in TQUERIES + SQUERIES:
        for nm, res in QUERY_TEXTURES.items():
            C.append(case(F, f"txq.{q}.b32", "d:b32", "a:u32", QKEY, variant=nm, asm=f"txq.{q}.b32 {{d}}, [{{t}}];",
                          resources=(res,)))
    lkey = ckey(["s32"], 32, ["n-2~6"])
    for q in ("width", "height", "depth"):
        for nm, res in (("mip2d", QUERY_TEXTURES["mip"]), ("mip3d", t("3d", "f32:8x4x16x1:normal", 5)),
                        ("f32_2d", QUERY_TEXTURES["f32x4_2d"])):
            C.append(case(F, f"txq.level.{q}.b32", "d:b32", "lod:s32", lkey, variant=nm,
                          asm=f"txq.level.{q}.b32 {{d}}, [{{t}}], {{lod}};", resources=(res,)))
    # the same queries on a module-level .texref bound to the texture (the driver JIT refuses most of
    # them on object handles: named symbol not found)
    for q in TQUERIES + SQUERIES[1:]:   # ptxas: force_unnormalized_coords wants a .samplerref
        for nm, res in (("f32x4_2d", QUERY_TEXTURES["f32x4_2d"]), ("u8x4_2d", QUERY_TEXTURES["u8x4_2d"]),
                        ("f32_a2d", QUERY_TEXTURES["f32_a2d"])):
            C.append(case(F, f"txq.{q}.b32", "d:b32", "a:u32", QKEY, variant=f"texref_{nm}",
                          asm=f"txq.{q}.b32 {{d}}, [tref];", prelude=".global .texref tref;",
                          resources=(dataclasses.replace(res, ref="tref"),)))
    objs = {"texture": t("2d", F2), "surface": surface("t", "2d", "f32:5x7x4:normal")}
    for ty in ("texref", "samplerref", "surfref"):
        for nm, res in objs.items():
            C.append(case(F, f"istypep.{ty}", "p:pred", "a:u32", QKEY, variant=f"{nm}_handle",
                          asm=f"istypep.{ty} {{p}}, {{t}};", resources=(res,)))
    return C


def _ci_key(c):
    """One quick-tier case per form: tex variant and result/coordinate types, else the spelling."""
    w = c.instruction.split(".")
    if c.opcode in ("tex", "tld4"):
        return (w[0], w[1] if w[1] in ("base", "level", "grad") else "", w[-2], w[-1])
    return c.instruction


def cases():
    C = plain_cases() + mip_cases() + tld4_cases() + query_cases()
    return mark_ci(C, key=_ci_key, cap=48)
