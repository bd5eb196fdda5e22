"""Probe kernels for the texture cases issue 17 found different from an H200: 1D linear filtering with
border addressing (normalized and unnormalized coordinates), the linear blend when texels hold
infinities / NaN / subnormals, normalized-float u8 (UNORM8) linear filtering with a border colour,
tld4 gathers from normalized-float integer textures, and txq of the dimensions a texture lacks.

Recorded by `tools/device/record_textures_ext.py OUT --probes texture_gap_probes --out-name
texture_gaps --compact` into tests/goldens/kernels/texture_gaps.npz and replayed by
tests/engine/test_texture_gaps.py. Same kernel frame as texture_ext_probes.py: one instruction
per probe, eight b32 inputs %c0..%c7 and four b32 outputs per thread; data arrays carry an explicit
channel axis.
"""
import numpy as np

from texture_ext_probes import V, cols, probe_ptx  # noqa: F401  (probe_ptx: the recorder's)

TEX1D = f"tex.1d.v4.f32.f32 {V}, [%rd1, {{%c0}}];"
TEX2D = f"tex.2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}];"
TEX3D = f"tex.3d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1, %c2, %c2}}];"
LIN = dict(filter_mode="linear")
NORM = dict(filter_mode="linear", read_mode="normalized_float")

# adversarial f32 texel values: infinities, NaN (quiet, with payload, negative), subnormals, the
# extremes of the normal range, signed zeros, values whose sum overflows
SPECIAL = np.array([np.inf, -np.inf, np.nan, 1.0, 0.0, -0.0, 1e-40, -1e-40, 1.4e-45, -1.4e-45,
                    1.1754944e-38, -1.1754942e-38, 3.4028235e38, -3.4028235e38, 2.0 ** 127, 1e38,
                    -2.5, 7.0, 2.0 ** -149 * 3, 5e-39], np.float32)
SPECIAL_BITS = np.array([0x7FC00000, 0x7F800001, 0xFFC00000, 0x7FFFFFFF, 0x7FA00000], np.uint32)


def _special_pairs(rng, npairs):
    """npairs adjacent texel pairs (a, b) drawn from SPECIAL and its NaN bit patterns, four channels."""
    pool = np.concatenate([SPECIAL, SPECIAL_BITS.view(np.float32)])
    return rng.choice(pool, (npairs * 2, 4)).astype(np.float32)


def probes():
    rng = np.random.default_rng(1717)
    P = []

    def add(name, geom, instr, inp, data=None, levels=None, **kw):
        p = dict(name=name, kind="texture", geom=geom, instr=instr, inp=inp, **kw)
        if levels is not None:
            p["levels"] = levels
        else:
            p["data"] = data
        P.append(p)

    # ---- 1D linear filtering with border addressing
    d1 = rng.standard_normal((9, 4)).astype(np.float32)
    xu = np.concatenate([rng.uniform(-3, 12, 1536), -1.5 + np.arange(512) / 64])  # a sweep across the left edge
    xn = np.concatenate([rng.uniform(-0.4, 1.4, 1536), -0.2 + np.arange(512) / 1024])
    for bc, sfx in ((None, ""), ([0.25, -2.0, 7.5, 1e3], "_color")):
        kw = dict(address_mode="border") if bc is None else dict(address_mode="border", border_color=bc)
        add(f"border1d_linear{sfx}", "1d", TEX1D, cols(xu), d1, desc=dict(LIN, **kw))
        add(f"border1d_linear_norm{sfx}", "1d", TEX1D, cols(xn), d1, desc=dict(LIN, normalized_coords=True, **kw))
        add(f"border1d_point{sfx}", "1d", TEX1D, cols(xu), d1, desc=kw)
    add("border1d_linear_a1d", "a1d", f"tex.a1d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}];",
        cols(rng.integers(0, 3, 2048).astype(np.int32), rng.uniform(-3, 12, 2048)),
        rng.standard_normal((3, 9, 4)).astype(np.float32),
        desc=dict(LIN, address_mode="border", border_color=[0.5, 1.5, -3.0, 9.0]))
    add("border1d_linear_f16", "1d", TEX1D, cols(xu), d1.astype(np.float16), desc=dict(LIN, address_mode="border"))

    # ---- the linear blend over infinities, NaN and subnormals (1D pairs at many weights, 2D and 3D)
    pairs = _special_pairs(rng, 128)
    j = rng.integers(0, 128, 4096)
    a = rng.integers(0, 257, 4096)
    x = 2 * j + 0.5 + (a + 0.25) / 256  # between texels 2j and 2j+1 at weight a/256 (a=256: texel 2j+1)
    add("special_blend1d", "1d", TEX1D, cols(x), pairs, desc=LIN)
    add("special_blend2d", "2d", TEX2D, cols(rng.uniform(0, 8, 2048), rng.uniform(0, 8, 2048)),
        _special_pairs(rng, 32).reshape(8, 8, 4), desc=LIN)
    add("special_blend3d", "3d", TEX3D, cols(*rng.uniform(0, 4, (3, 2048))),
        _special_pairs(rng, 32).reshape(4, 4, 4, 4), desc=LIN)
    # subnormal-only texels (does the blend flush them?) and tiny results from normal texels
    sub = (rng.choice([-1, 1], (64, 4)) * rng.integers(1, 1 << 23, (64, 4)).astype(np.float64) * 2.0 ** -149).astype(np.float32)
    add("subnormal_blend1d", "1d", TEX1D, cols(rng.uniform(0, 64, 2048)), sub, desc=LIN)
    tiny = (rng.choice([-1, 1], (64, 4)) * (1 + rng.random((64, 4))) * 2.0 ** rng.integers(-128, -118, (64, 4))).astype(np.float32)
    add("tiny_blend1d", "1d", TEX1D, cols(rng.uniform(0, 64, 2048)), tiny, desc=LIN)
    f16s = np.array([np.inf, -np.inf, np.nan, 65504, -65504, 6e-8, -6e-8, 6.1e-5, 1.0, 0.0, -0.0, 3e-5], np.float16)
    add("special_blend1d_f16", "1d", TEX1D, cols(x), rng.choice(f16s, (256, 4)).astype(np.float16), desc=LIN)

    # ---- normalized-float u8 (UNORM8) linear filtering with a border colour
    u8 = rng.integers(0, 256, (6, 5, 4)).astype(np.uint8)
    u8[0, 0] = [0, 255, 128, 1]
    cxy = cols(rng.uniform(-2, 7, 2048), rng.uniform(-2, 8, 2048))
    for bc, sfx in (([0.3, 0.7, 1.0, 0.0], ""), ([0.3, -0.7, 1.5, 0.123456], "_outside"), (None, "_default")):
        kw = dict(address_mode="border") if bc is None else dict(address_mode="border", border_color=bc)
        add(f"u8_border_linear2d{sfx}", "2d", TEX2D, cxy, u8, desc=dict(NORM, **kw))
    add("u8_border_linear1d", "1d", TEX1D, cols(xu), rng.integers(0, 256, (9, 4)).astype(np.uint8),
        desc=dict(NORM, address_mode="border", border_color=[0.3, 0.7, 1.0, 0.05]))
    add("u8_border_point2d", "2d", TEX2D, cxy, u8, desc=dict(read_mode="normalized_float", address_mode="border",
                                                             border_color=[0.3, -0.7, 1.5, 0.123456]))
    add("u16_border_linear2d", "2d", TEX2D, cxy, rng.integers(0, 65536, (6, 5, 2)).astype(np.uint16),
        desc=dict(NORM, address_mode="border", border_color=[0.3, 0.7, 0, 0]))

    # ---- tld4 gathers from normalized-float integer textures
    cg = cols(rng.uniform(-2, 7, 2048), rng.uniform(-2, 8, 2048))
    for comp in "rgba":
        add(f"tld4_{comp}_u8norm", "2d", f"tld4.{comp}.2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}];", cg, u8,
            desc=dict(read_mode="normalized_float"))
    add("tld4_r_u8norm_border", "2d", f"tld4.r.2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}];", cg, u8,
        desc=dict(read_mode="normalized_float", address_mode="border", border_color=[0.3, 0.7, 1.0, 0.0]))
    add("tld4_g_s8norm", "2d", f"tld4.g.2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}];", cg,
        rng.integers(-128, 128, (6, 5, 2)).astype(np.int8), desc=dict(read_mode="normalized_float"))
    add("tld4_r_u16norm", "2d", f"tld4.r.2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}];", cg,
        rng.integers(0, 65536, (6, 5, 1)).astype(np.uint16), desc=dict(read_mode="normalized_float"))
    add("tld4_b_u8norm_linear", "2d", f"tld4.b.2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}];", cg, u8,
        desc=dict(NORM, normalized_coords=False))

    # ---- txq of the dimensions a texture lacks
    one = cols(np.zeros(1))
    for geom, data in (("1d", d1), ("a1d", rng.standard_normal((3, 9, 1)).astype(np.float32)),
                       ("2d", rng.standard_normal((5, 7, 1)).astype(np.float32))):
        for q in ("width", "height", "depth", "array_size", "num_mipmap_levels"):
            add(f"txq_{q}_{geom}", geom, f"txq.{q}.b32 %o0, [%rd1];", one, data)
    # ---- second recording (texture_gaps2): which address mode the 1D row takes, mipmapped 1D,
    # 16-bit border codes, the blend rules on 2D f16 and trilinear levels
    for modes, sfx in ((["border", "clamp", "clamp"], "bcc"), (["clamp", "border", "clamp"], "cbc"),
                       (["clamp", "clamp", "border"], "ccb"), (["wrap", "border", "wrap"], "wbw")):
        add(f"row1d_modes_{sfx}", "1d", TEX1D, cols(xu), d1, desc=dict(LIN, address_mode=modes,
                                                                         border_color=[0.25, -2.0, 7.5, 1e3]))
        add(f"row1d_modes_{sfx}_norm", "1d", TEX1D, cols(xn), d1, desc=dict(LIN, address_mode=modes, normalized_coords=True))
    lv1 = [rng.standard_normal((16 >> k, 4)).astype(np.float32) for k in range(5)]
    add("row1d_mip_level", "1d", f"tex.level.1d.v4.f32.f32 {V}, [%rd1, {{%c0}}], %c1;",
        cols(rng.uniform(-0.2, 1.2, 2048), rng.uniform(-0.5, 4.5, 2048)), levels=lv1,
        desc=dict(LIN, normalized_coords=True, mipmap_filter_mode="linear", address_mode="border",
                  border_color=[1.0, 2.0, 3.0, 4.0]))
    bc16 = [0.3, -0.7, 0.123456, 0.05]
    for nm, dt in (("s16", np.int16), ("u16", np.uint16), ("s8", np.int8)):
        info = np.iinfo(dt)
        dd = rng.integers(info.min, info.max + 1, (6, 5, 4)).astype(dt)
        add(f"border_code_{nm}_point", "2d", TEX2D, cxy, dd, desc=dict(read_mode="normalized_float",
                                                                       address_mode="border", border_color=bc16))
        add(f"border_code_{nm}_linear", "2d", TEX2D, cxy, dd, desc=dict(NORM, address_mode="border", border_color=bc16))
    add("special_blend2d_f16", "2d", TEX2D, cols(rng.uniform(0, 8, 2048), rng.uniform(0, 8, 2048)),
        rng.choice(f16s, (8, 8, 4)).astype(np.float16), desc=LIN)
    slv = [_special_pairs(rng, 32).reshape(8, 8, 4), _special_pairs(rng, 8).reshape(4, 4, 4)]
    add("special_trilinear", "2d", f"tex.level.2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}], %c2;",
        cols(rng.uniform(0, 1, 2048), rng.uniform(0, 1, 2048), rng.uniform(0, 1, 2048)), levels=slv,
        desc=dict(LIN, normalized_coords=True, mipmap_filter_mode="linear"))
    return P
