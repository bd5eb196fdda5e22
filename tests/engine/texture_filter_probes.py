"""Probe kernels for the filter arithmetic of textures: s8 normalized-float blending, levels of
detail from tex.grad gradients (log2 table, gradient length, anisotropy, point mip filtering,
bias and clamps), sRGB conversion and filtering, mipmapped 3D trilinear weights and the 3D blend.

Recorded by `tools/device/record_textures_ext.py OUT --probes texture_filter_probes --out-name
texture_filter --compact` into tests/goldens/kernels/texture_filter.npz and replayed by
tests/engine/test_texture_filter.py. Same kernel frame as texture_ext_probes.py: one instruction
per probe, eight b32 inputs %c0..%c7 and four b32 outputs per thread; data arrays carry an explicit
channel axis.
"""
import numpy as np

from texture_ext_probes import V, cols, f32, i32, probe_ptx  # noqa: F401  (probe_ptx: the recorder's)

GRAD2D = f"tex.grad.2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}], {{%c2, %c3}}, {{%c4, %c5}};"
LEVEL2D = f"tex.level.2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}], %c2;"
TEX1D = f"tex.1d.v4.f32.f32 {V}, [%rd1, {{%c0}}];"
TEX2D = f"tex.2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}];"
TEX3D = f"tex.3d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1, %c2, %c2}}];"
MIP = dict(normalized_coords=True, filter_mode="linear", mipmap_filter_mode="linear")
NORM = dict(filter_mode="linear", read_mode="normalized_float")


def level_ramp(size, dims=2):
    """Mip levels of a size^dims texture where level k holds the constant k: a fetch returns the
    (blended) level index, i.e. the level of detail as the sampler resolved it."""
    out, k = [], 0
    while True:
        s = max(1, size >> k)
        out.append(np.full((s,) * dims + (1,), k, np.float32))
        if s == 1:
            return out
        k += 1


def probes():
    rng = np.random.default_rng(9090)
    P = []

    def add(name, geom, instr, inp, data=None, levels=None, **kw):
        p = dict(name=name, kind="texture", geom=geom, instr=instr, inp=inp, **kw)
        if levels is not None:
            p["levels"] = levels
        else:
            p["data"] = data
        P.append(p)

    # ---- s8 normalized-float filtering
    pairs = rng.integers(-128, 128, (256, 2))
    pairs[:8] = [[-128, 127], [127, -128], [-128, -128], [-127, -128], [127, 127], [-128, 0], [1, -1], [0, -128]]
    data = pairs.reshape(512, 1).astype(np.int8)
    j = rng.integers(0, 256, 4096)
    a = rng.integers(0, 256, 4096)
    a[:256] = np.arange(256)
    x = 2 * j + 0.5 + (a + 0.25) / 256  # fixed position 2j*256 + a exactly
    add("s8_pairs_1d", "1d", TEX1D, cols(x), data, desc=NORM)
    add("s8_2d", "2d", TEX2D, cols(rng.uniform(-1, 17, 2048), rng.uniform(-1, 17, 2048)),
        rng.integers(-128, 128, (16, 16, 4)).astype(np.int8), desc=NORM)
    add("s8_3d", "3d", TEX3D, cols(*rng.uniform(-1, 5, (3, 2048))),
        rng.integers(-128, 128, (4, 4, 4, 2)).astype(np.int8), desc=NORM)
    add("s8_border_2d", "2d", TEX2D, cols(rng.uniform(-2, 6, 1024), rng.uniform(-2, 6, 1024)),
        rng.integers(-128, 128, (4, 4, 4)).astype(np.int8),
        desc=dict(NORM, address_mode="border", border_color=[0.3, -0.7, 1.0, -1.0]))
    s8lv = [rng.integers(-128, 128, (8 >> k, 8 >> k, 4)).astype(np.int8) for k in range(4)]
    add("s8_trilinear", "2d", LEVEL2D, cols(*rng.uniform(0, 1, (2, 1024)), rng.uniform(-0.5, 3.5, 1024)),
        levels=s8lv, desc=dict(MIP, read_mode="normalized_float"))
    add("u8_3d", "3d", TEX3D, cols(*rng.uniform(-1, 5, (3, 1024))),
        rng.integers(0, 256, (4, 4, 4, 2)).astype(np.uint8), desc=NORM)
    u8lv = [rng.integers(0, 256, (8 >> k, 8 >> k, 4)).astype(np.uint8) for k in range(4)]
    add("u8_trilinear", "2d", LEVEL2D, cols(*rng.uniform(0, 1, (2, 1024)), rng.uniform(-0.5, 3.5, 1024)),
        levels=u8lv, desc=dict(MIP, read_mode="normalized_float"))

    # ---- levels of detail from gradients: a 64x64 texture, level k holds k (lod 0..6)
    lv = level_ramp(64)
    half = np.full(4096, 0.5)
    z = np.zeros(4096)
    # the log2 table: one gradient component L = 2^e (1 + (i + f) / 256) texels
    i = np.tile(np.arange(256), 3)
    f = np.repeat([0.0, 0.5, 1 - 2.0 ** -10], 256)
    e = rng.integers(0, 6, i.size)
    L = 2.0 ** e * (1 + (i + f) / 256)
    n1 = L.size
    add("grad_log_table", "2d", GRAD2D, cols(half[:n1], half[:n1], L / 64, z[:n1], z[:n1], z[:n1]),
        levels=lv, desc=MIP)
    add("grad_log_table_point", "2d", GRAD2D, cols(half[:n1], half[:n1], L / 64, z[:n1], z[:n1], z[:n1]),
        levels=lv, desc=dict(MIP, mipmap_filter_mode="point"))
    add("grad_log_table_bias", "2d", GRAD2D, cols(half[:n1], half[:n1], L / 64, z[:n1], z[:n1], z[:n1]),
        levels=lv, desc=dict(MIP, mipmap_level_bias=0.3, min_mipmap_level_clamp=0.75, max_mipmap_level_clamp=4.6))
    # exponents: tiny to huge gradients, negative components, the y gradient alone
    Le = 2.0 ** rng.uniform(-12, 9, 512) * rng.choice([-1, 1], 512)
    add("grad_exponents", "2d", GRAD2D, cols(half[:512], half[:512], z[:512], z[:512], z[:512], Le / 64),
        levels=lv, desc=MIP)
    # a non-power-of-two texture: is the gradient scaled by the size in f32 before the log?
    lv48 = level_ramp(48)
    g48 = 2.0 ** rng.uniform(-5, 0, 1024)
    add("grad_size48", "2d", GRAD2D, cols(half[:1024], half[:1024], g48, z[:1024], z[:1024], z[:1024]),
        levels=lv48, desc=MIP)
    # the length of one gradient vector: (L, L r), r = k / 256
    r = np.tile(np.arange(257) / 256, 4)
    Lr = np.repeat([1.7, 3.3, 6.1, 11.9], 257)
    nr = r.size
    add("grad_length_x", "2d", GRAD2D, cols(half[:nr], half[:nr], Lr / 64, Lr * r / 64, z[:nr], z[:nr]),
        levels=lv, desc=MIP)
    add("grad_length_y", "2d", GRAD2D, cols(half[:nr], half[:nr], z[:nr], z[:nr], Lr * r / 64, Lr / 64),
        levels=lv, desc=MIP)
    # two gradient vectors: dPdx = (L, 0), dPdy = L s (cos phi, sin phi)
    s = np.repeat([0.25, 0.5, 0.75, 1.0, 1.25], 128)
    phi = np.tile(np.arange(128) * np.pi / 128, 5)
    L2 = rng.uniform(2, 12, s.size)
    two = cols(half[: s.size], half[: s.size], L2 / 64, z[: s.size], L2 * s * np.cos(phi) / 64, L2 * s * np.sin(phi) / 64)
    add("grad_two_vectors", "2d", GRAD2D, two, levels=lv, desc=MIP)
    # parallel and orthogonal pairs: dPdx = L (cos t, sin t), dPdy = L s (cos t, sin t) or L s (-sin t, cos t)
    t = np.repeat(np.arange(16) * np.pi / 32, 33)
    s2 = np.tile(np.arange(33) / 32, 16)
    L3 = rng.uniform(2, 12, t.size)
    n3 = t.size
    for nm, (ux, uy) in (("parallel", (np.cos(t), np.sin(t))), ("orthogonal", (-np.sin(t), np.cos(t)))):
        add(f"grad_{nm}", "2d", GRAD2D, cols(half[:n3], half[:n3], L3 * np.cos(t) / 64, L3 * np.sin(t) / 64,
                                              L3 * s2 * ux / 64, L3 * s2 * uy / 64), levels=lv, desc=MIP)
    gr = rng.choice([-1, 1], (4, 1024)) * 2.0 ** rng.uniform(-7, -2, (4, 1024))
    rnd = cols(rng.uniform(0, 1, 1024), rng.uniform(0, 1, 1024), *gr)
    add("grad_random", "2d", GRAD2D, rnd, levels=lv, desc=MIP)
    for an in (1, 2, 4, 16):
        add(f"grad_two_vectors_aniso{an}", "2d", GRAD2D, two, levels=lv, desc=dict(MIP, max_anisotropy=an))
        add(f"grad_random_aniso{an}", "2d", GRAD2D, rnd, levels=lv, desc=dict(MIP, max_anisotropy=an))
    # 1D and 3D gradients
    g1 = 2.0 ** rng.uniform(-7, 0, 512) * rng.choice([-1, 1], 512)
    add("grad_1d", "1d", f"tex.grad.1d.v4.f32.f32 {V}, [%rd1, {{%c0}}], {{%c2}}, {{%c4}};",
        cols(half[:512], 0, g1, 0, np.roll(g1, 7) * rng.uniform(0, 1.5, 512)), levels=level_ramp(64, 1), desc=MIP)
    g3 = rng.choice([-1, 1], (6, 1024)) * 2.0 ** rng.uniform(-6, -1, (6, 1024))
    add("grad_3d", "3d", f"tex.grad.3d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1, %c2, %c2}}], "
        "{%c3, %c4, %c5, %c5}, {%c6, %c7, %c7, %c7};",
        cols(half[:1024], half[:1024], half[:1024], g3[0], g3[1], g3[2], g3[3], g3[4]), levels=level_ramp(32, 3),
        desc=MIP)

    # ---- sRGB (CU_TRSF_SRGB) on 8-bit textures read as normalized floats
    v = np.arange(256)
    ramp4 = np.stack([v, 255 - v, (v * 7) % 256, v], -1).astype(np.uint8)  # alpha = v as well
    pt = cols(v + 0.5)
    SRGB = dict(read_mode="normalized_float", srgb=True)
    add("srgb_point_u8x4", "1d", TEX1D, pt, ramp4, desc=SRGB)
    add("srgb_point_u8x1", "1d", TEX1D, pt, v.astype(np.uint8)[:, None], desc=SRGB)
    add("srgb_point_u8x2", "1d", TEX1D, pt, ramp4[:, :2].copy(), desc=SRGB)
    add("srgb_point_s8x4", "1d", TEX1D, pt, (ramp4.astype(np.int16) - 128).astype(np.int8), desc=SRGB)
    add("srgb_point_u16x1", "1d", TEX1D, pt, (v * 257).astype(np.uint16)[:, None], desc=SRGB)
    add("srgb_element_u8x4", "1d", f"tex.1d.v4.u32.f32 {V}, [%rd1, {{%c0}}];", pt, ramp4,
        desc=dict(read_mode="element", srgb=True))
    rt = rng.integers(0, 256, (256, 4)).astype(np.uint8)
    add("srgb_linear_u8x4", "1d", TEX1D, cols(rng.uniform(0, 256, 4096)), rt, desc=dict(SRGB, filter_mode="linear"))
    add("srgb_linear_2d", "2d", TEX2D, cols(rng.uniform(-1, 9, 1024), rng.uniform(-1, 9, 1024)),
        rng.integers(0, 256, (8, 8, 4)).astype(np.uint8), desc=dict(SRGB, filter_mode="linear"))
    pairs8 = np.stack([np.repeat(np.arange(0, 256, 17), 16), np.tile(np.arange(0, 256, 17), 16)], -1)  # 256 pairs
    d8 = np.repeat(pairs8.reshape(512, 1), 4, axis=1).astype(np.uint8)
    jj = rng.integers(0, 256, 2048)
    aa = rng.integers(0, 256, 2048)
    add("srgb_pairs_1d", "1d", TEX1D, cols(2 * jj + 0.5 + (aa + 0.25) / 256), d8, desc=dict(SRGB, filter_mode="linear"))
    srgb_lv = [rng.integers(0, 256, (8 >> k, 8 >> k, 4)).astype(np.uint8) for k in range(4)]
    add("srgb_trilinear", "2d", LEVEL2D, cols(*rng.uniform(0, 1, (2, 1024)), rng.uniform(-0.5, 3.5, 1024)),
        levels=srgb_lv, desc=dict(MIP, read_mode="normalized_float", srgb=True))

    # ---- 3D: mipmapped trilinear corner weights (level 0 one-hot 2x2x2, level 1 zero) and the blend
    for first in (0, 4):
        oh = np.zeros((2, 2, 2, 4), np.float32)
        flat = oh.reshape(-1, 4)
        for c in range(4):
            flat[first + c, c] = 1.0
        add(f"mip3d_onehot_{first}", "3d", f"tex.level.3d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1, %c2, %c2}}], %c3;",
            cols(*rng.uniform(0.2, 0.8, (3, 1024)), rng.uniform(0, 1, 1024)),
            levels=[oh, np.zeros((1, 1, 1, 4), np.float32)], desc=MIP)
    wide = (rng.choice([-1, 1], (6, 6, 6, 4)) * (1 + rng.random((6, 6, 6, 4)))
            * 2.0 ** rng.integers(-12, 13, (6, 6, 6, 4))).astype(np.float32)
    add("accum3d_wide", "3d", TEX3D, cols(*rng.uniform(0.5, 5.5, (3, 4096))), wide, desc=dict(filter_mode="linear"))
    close = ((1 + rng.random((6, 6, 6, 4)) * 2.0 ** -8) * rng.choice([-1, 1], (6, 6, 6, 4))).astype(np.float32)
    add("accum3d_cancel", "3d", TEX3D, cols(*rng.uniform(0.5, 5.5, (3, 2048))), close, desc=dict(filter_mode="linear"))
    add("accum3d_f16", "3d", TEX3D, cols(*rng.uniform(0.5, 5.5, (3, 2048))), wide[..., :2].astype(np.float16),
        desc=dict(filter_mode="linear"))

    # ---- cube face coordinates near the weight ties of a 64x64 ramp face (texel x + 64 * face)
    m = rng.integers(0, 64 * 256, 2048)
    u = ((m + 0.5) / 256 + 0.5) / 64
    ma = f32(rng.uniform(1, 4, 2048))
    sc = (f32((2 * u - 1) * ma).view(np.int32) + rng.integers(-2, 3, 2048).astype(np.int32)).view(np.float32)
    tc = f32(rng.uniform(-0.9, 0.9, 2048) * ma)
    face = rng.integers(0, 6, 2048)
    dirs = np.zeros((3, 2048), np.float32)
    # put ma on the face's major axis and sc, tc on its s and t axes (signs from the face table)
    table = ((0, 1, 2, -1, 1, -1), (0, -1, 2, 1, 1, -1), (1, 1, 0, 1, 2, 1),
             (1, -1, 0, 1, 2, -1), (2, 1, 0, 1, 1, -1), (2, -1, 0, -1, 1, -1))
    for fi, (major, sign, sa, ss, ta, ts) in enumerate(table):
        sel = face == fi
        dirs[major, sel] = sign * ma[sel]
        dirs[sa, sel] = ss * sc[sel]
        dirs[ta, sel] = ts * tc[sel]
    ramp = np.arange(64, dtype=np.float32)
    cube_s = (np.broadcast_to(ramp[None, None, :], (6, 64, 64)) + 64 * np.arange(6, dtype=np.float32)[:, None, None])
    add("cube_ties_s", "cube", f"tex.cube.v4.f32.f32 {V}, [%rd1, {{%c0, %c1, %c2, %c2}}];", cols(*dirs),
        cube_s[..., None].astype(np.float32), desc=dict(filter_mode="linear", normalized_coords=True))

    # ---- gradients on a non-square texture (64 x 16): per-axis scaling before the length
    rect = []
    for k in range(7):
        rect.append(np.full((max(1, 16 >> k), max(1, 64 >> k), 1), k, np.float32))
    add("grad_rect", "2d", GRAD2D, cols(rng.uniform(0, 1, 1024), rng.uniform(0, 1, 1024), *gr), levels=rect, desc=MIP)
    # ---- sRGB: the filter's exponent of every code c (pairs (c, 17) and (c, 40), four weights each)
    for partner in (17, 40):
        d = np.stack([np.arange(256), np.full(256, partner)], -1).reshape(512, 1).astype(np.uint8)
        c = np.repeat(np.arange(256), 4)
        wgt = np.tile([64, 128, 192, 240], 256)
        add(f"srgb_exponent_{partner}", "1d", TEX1D, cols(2 * c + 0.5 + (wgt + 0.25) / 256), d,
            desc=dict(SRGB, filter_mode="linear"))
    return P
