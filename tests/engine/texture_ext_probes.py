"""Probe kernels for layered / cube / mipmapped / depth-compare texturing, offsets and formatted
surface access, shared by the GPU recorder (tools/device/record_textures_ext.py) and the replay
tests. Each probe: one instruction; per thread eight b32 inputs %c0..%c7 and four b32 outputs.

Data arrays always carry an explicit channel axis: [layer or depth][height][width][channel].
"""
import numpy as np

HEAD = """.version 8.1
.target sm_90
.address_size 64
.visible .entry probe(.param .u64 h, .param .u64 inp, .param .u64 o, .param .u32 n)
{
 .reg .pred %p<3>; .reg .b32 %r<8>; .reg .b32 %c<8>; .reg .b32 %o<4>; .reg .b64 %rd<12>;
 ld.param.u64 %rd1, [h]; ld.param.u64 %rd2, [inp]; ld.param.u64 %rd5, [o]; ld.param.u32 %r1, [n];
 mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x; mad.lo.s32 %r5, %r2, %r3, %r4;
 setp.ge.s32 %p1, %r5, %r1; @%p1 bra DONE;
 mul.wide.s32 %rd6, %r5, 32; add.s64 %rd7, %rd2, %rd6;
 ld.global.v4.b32 {%c0, %c1, %c2, %c3}, [%rd7]; ld.global.v4.b32 {%c4, %c5, %c6, %c7}, [%rd7+16];
 mov.b32 %o0, 0; mov.b32 %o1, 0; mov.b32 %o2, 0; mov.b32 %o3, 0;
"""
TAIL = """ mul.wide.s32 %rd10, %r5, 16; add.s64 %rd11, %rd5, %rd10;
 st.global.v4.b32 [%rd11], {%o0, %o1, %o2, %o3};
DONE:
 ret;
}
"""
V = "{%o0, %o1, %o2, %o3}"


def probe_ptx(p):
    head = HEAD
    if p.get("ref"):  # a module-level reference the instruction names instead of the handle
        head = head.replace(".address_size 64\n", f".address_size 64\n.global .{p['ref']} ref0;\n")
    return head + " " + p["instr"] + "\n" + TAIL


def cols(*arrays, n=None):
    """(n, 8) u32 inputs from up to eight float32 / int32 columns (missing ones are 0)."""
    n = n or len(arrays[0])
    out = np.zeros((n, 8), np.uint32)
    for i, a in enumerate(arrays):
        a = np.asarray(a)
        if a.dtype == np.float64:
            a = a.astype(np.float32)
        if a.dtype == np.int64:
            a = a.astype(np.int32)
        out[:, i] = np.broadcast_to(a, (n,)).view(np.uint32) if a.ndim else np.full(n, a).view(np.uint32)
    return out


def f32(x):
    return np.asarray(x, np.float32)


def i32(x):
    return np.asarray(x, np.int32)


def _wide(rng, shape):
    """Random values over a wide range of magnitudes (to expose the blend's accumulation)."""
    return (rng.choice([-1, 1], shape) * (1 + rng.random(shape)) * 2.0 ** rng.integers(-12, 13, shape)).astype(np.float32)


def _onehot(corners, first):
    """2^corners texels (a 2x..x2 block, x fastest), four channels; channel c is 1 at corner first+c."""
    shape = (2,) * corners
    d = np.zeros(shape + (4,), np.float32)
    flat = d.reshape(-1, 4)
    for c in range(4):
        if first + c < flat.shape[0]:
            flat[first + c, c] = 1.0
    return d


def probes():
    rng = np.random.default_rng(2026)
    P = []

    def add(name, kind, geom, instr, inp, data=None, levels=None, **kw):
        p = dict(name=name, kind=kind, geom=geom, instr=instr, inp=inp, **kw)
        if levels is not None:
            p["levels"] = levels
        else:
            p["data"] = data
        P.append(p)

    n = 1024
    # ---- the blend arithmetic of linear filtering (1D / 2D / 3D)
    u = rng.uniform(0.5, 1.5, (3, n))
    sweep = 0.5 + np.arange(n) / n
    LIN = dict(filter_mode="linear")
    add("accum1d", "texture", "1d", f"tex.1d.v4.f32.f32 {V}, [%rd1, {{%c0}}];",
        cols(np.concatenate([sweep[::2], u[0, : n // 2]])), _wide(rng, (2, 4)), desc=LIN)
    add("accum2d", "texture", "2d", f"tex.2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}];",
        cols(u[0], u[1]), _wide(rng, (2, 2, 4)), desc=LIN)
    add("accum2d_b", "texture", "2d", f"tex.2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}];",
        cols(u[1], u[2]), _wide(rng, (2, 2, 4)), desc=LIN)
    add("accum3d", "texture", "3d", f"tex.3d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1, %c2, %c2}}];",
        cols(u[0], u[1], u[2]), _wide(rng, (2, 2, 2, 4)), desc=LIN)
    # normalized coordinates near the rounding ties of the 1/256 weight (and of floor for point);
    # texel i holds i, so a linear fetch returns the fixed-point position itself
    for size in (5, 7, 64, 1000):
        m = rng.integers(0, 256 * size, 2048)
        ut = ((m + 0.5) / 256 + 0.5) / size
        up = rng.integers(0, size, 2048) / size
        pert = rng.integers(-3, 4, 2048).astype(np.int32)
        u_lin = (f32(ut).view(np.int32) + pert).view(np.float32)
        u_pt = (f32(up).view(np.int32) + pert).view(np.float32)
        ramp = np.arange(size, dtype=np.float32)[:, None]
        add(f"normcoord_linear_{size}", "texture", "1d", f"tex.1d.v4.f32.f32 {V}, [%rd1, {{%c0}}];", cols(u_lin), ramp,
            desc=dict(filter_mode="linear", normalized_coords=True))
        add(f"normcoord_point_{size}", "texture", "1d", f"tex.1d.v4.f32.f32 {V}, [%rd1, {{%c0}}];", cols(u_pt), ramp,
            desc=dict(normalized_coords=True))
    # normalized-integer formats, linear: 1D, many texel pairs and weights
    xs1 = rng.uniform(0, 64, 2048)
    for nm, dt in (("u8", np.uint8), ("s8", np.int8), ("u16", np.uint16), ("s16", np.int16)):
        info = np.iinfo(dt)
        d = rng.integers(info.min, info.max + 1, (64, 2)).astype(dt)
        d[:4] = [[info.min, info.max], [info.max, info.min], [0, 1], [-1 if info.min else 2, info.max]]
        add(f"{nm}_normfloat_linear1d", "texture", "1d", f"tex.1d.v4.f32.f32 {V}, [%rd1, {{%c0}}];", cols(xs1), d,
            desc=dict(filter_mode="linear", read_mode="normalized_float"))
    add("f16_linear3d", "texture", "3d", f"tex.3d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1, %c2, %c2}}];",
        cols(u[0], u[1], u[2]), _wide(rng, (2, 2, 2, 2)).astype(np.float16), desc=LIN)
    for first in (0, 4):
        add(f"onehot3d_{first}", "texture", "3d", f"tex.3d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1, %c2, %c2}}];",
            cols(u[0], u[1], u[2]), _onehot(3, first), desc=LIN)
    # ---- mipmaps: level k of a 16x16 texture holds the constant k, so a fetch returns the
    # (blended) level index; tex.level sweeps the lod
    lv = [np.full((16 >> k, 16 >> k, 1), k, np.float32) for k in range(5)]
    lod = -1 + np.arange(3584) / 512.0
    half = np.full(lod.size, 0.5)
    MIP = dict(normalized_coords=True, filter_mode="linear", mipmap_filter_mode="linear")
    lvl = f"tex.level.2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}], %c2;"
    add("mip_level_linear", "texture", "2d", lvl, cols(half, half, lod), levels=lv, desc=MIP)
    add("mip_level_linear_notrilinopt", "texture", "2d", lvl, cols(half, half, lod), levels=lv,
        desc=dict(MIP, disable_trilinear_optimization=True))
    add("mip_level_point", "texture", "2d", lvl, cols(half, half, lod), levels=lv,
        desc=dict(MIP, mipmap_filter_mode="point"))
    add("mip_level_bias_clamp", "texture", "2d", lvl, cols(half, half, lod), levels=lv,
        desc=dict(MIP, mipmap_level_bias=0.5, min_mipmap_level_clamp=1.0, max_mipmap_level_clamp=3.5))
    # gradients: isotropic sweep, then random (anisotropic) ones
    g = 2.0 ** (-7 + np.arange(2048) / 256.0) / 16
    z = np.zeros(g.size)
    grad = f"tex.grad.2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}], {{%c2, %c3}}, {{%c4, %c5}};"
    add("mip_grad_iso", "texture", "2d", grad, cols(half[:2048], half[:2048], g, z, z, g), levels=lv, desc=MIP)
    gr = rng.choice([-1, 1], (4, n)) * 2.0 ** rng.uniform(-9, 0, (4, n))
    add("mip_grad_random", "texture", "2d", grad, cols(half[:n], half[:n], *gr), levels=lv, desc=MIP)
    add("mip_grad_random_aniso", "texture", "2d", grad, cols(half[:n], half[:n], *gr), levels=lv,
        desc=dict(MIP, max_anisotropy=16))
    gx = 2.0 ** rng.uniform(-9, 0, (2, 1024))
    z1 = np.zeros(1024)
    h1 = np.full(1024, 0.5)
    add("mip_grad_xonly", "texture", "2d", grad, cols(h1, h1, gx[0], z1, z1, z1), levels=lv, desc=MIP)
    add("mip_grad_axes", "texture", "2d", grad, cols(h1, h1, gx[0], z1, z1, gx[1]), levels=lv, desc=MIP)
    add("mip_grad_diag", "texture", "2d", grad, cols(h1, h1, gx[0], gx[0], z1, z1), levels=lv, desc=MIP)
    add("mip_grad_xy_same_axis", "texture", "2d", grad, cols(h1, h1, gx[0], z1, gx[1], z1), levels=lv, desc=MIP)
    # implicit derivatives: lanes of a 2x2 quad step by s in x and t in y
    q = np.arange(n)
    s = np.repeat(2.0 ** rng.uniform(-8, 0, n // 4), 4)
    t = np.repeat(2.0 ** rng.uniform(-8, 0, n // 4), 4)
    base = np.repeat(rng.uniform(0.2, 0.8, (2, n // 4)), 4, axis=1)
    add("mip_implicit", "texture", "2d", f"tex.2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}];",
        cols(base[0] + (q % 2) * s, base[1] + ((q // 2) % 2) * t), levels=lv, desc=MIP)
    # trilinear on content
    lc = [rng.standard_normal((8 >> k, 8 >> k, 4)).astype(np.float32) for k in range(4)]
    add("mip_trilinear_content", "texture", "2d", lvl,
        cols(rng.uniform(-0.2, 1.2, n), rng.uniform(-0.2, 1.2, n), rng.uniform(-0.5, 3.5, n)), levels=lc, desc=MIP)
    add("mip_base", "texture", "2d", f"tex.base.2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}];",
        cols(rng.uniform(0, 1, 256), rng.uniform(0, 1, 256)), levels=lc, desc=MIP)
    add("mip_level_s32", "texture", "2d", f"tex.level.2d.v4.f32.s32 {V}, [%rd1, {{%c0, %c1}}], %c2;",
        cols(i32(rng.integers(-1, 9, 512)), i32(rng.integers(-1, 9, 512)), i32(rng.integers(-1, 5, 512))),
        levels=lc, desc=MIP)
    la = [rng.standard_normal((3, 8 >> k, 8 >> k, 1)).astype(np.float32) for k in range(4)]
    add("a2d_mip_level", "texture", "a2d", f"tex.level.a2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1, %c2, %c2}}], %c3;",
        cols(i32(rng.integers(0, 3, n)), rng.uniform(0, 1, n), rng.uniform(0, 1, n), rng.uniform(-0.5, 3.5, n)),
        levels=la, desc=MIP)
    add("a2d_mip_grad", "texture", "a2d",
        f"tex.grad.a2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1, %c2, %c2}}], {{%c3, %c4}}, {{%c5, %c6}};",
        cols(i32(rng.integers(0, 3, n)), rng.uniform(0, 1, n), rng.uniform(0, 1, n), *gr), levels=la, desc=MIP)
    # half-precision results
    f16d = "{ .reg .b16 %h<4>; tex.2d.v4.f16.f32 {%h0, %h1, %h2, %h3}, [%rd1, {%c0, %c1}]; " \
           "mov.b32 %o0, {%h0, %h1}; mov.b32 %o1, {%h2, %h3}; }"
    d24 = rng.standard_normal((5, 6, 4)).astype(np.float32) * 3
    cxy = cols(rng.uniform(-1, 7, n), rng.uniform(-1, 6, n))
    add("f16dst_f32tex_linear", "texture", "2d", f16d, cxy, d24, desc=LIN)
    add("f16dst_f32tex_point", "texture", "2d", f16d, cxy, d24)
    add("f16dst_f16tex_linear", "texture", "2d", f16d, cxy, d24.astype(np.float16), desc=LIN)
    add("f16x2dst_f32tex_linear", "texture", "2d", "tex.2d.v2.f16x2.f32 {%o0, %o1}, [%rd1, {%c0, %c1}];", cxy, d24,
        desc=LIN)
    add("f16dst_u8tex_linear", "texture", "2d", f16d, cxy, rng.integers(0, 256, (5, 6, 4)).astype(np.uint8),
        desc=dict(LIN, read_mode="normalized_float"))
    # ---- layered
    a1 = rng.standard_normal((4, 8, 2)).astype(np.float32)
    idx = rng.integers(-2, 7, n)
    for fm in ("point", "linear"):
        add(f"a1d_{fm}", "texture", "a1d", f"tex.a1d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}];",
            cols(i32(idx), rng.uniform(-2, 10, n)), a1, desc=dict(filter_mode=fm))
    a2 = rng.standard_normal((3, 5, 4, 4)).astype(np.float32)
    for fm in ("point", "linear"):
        add(f"a2d_{fm}", "texture", "a2d", f"tex.a2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1, %c2, %c2}}];",
            cols(i32(rng.integers(-1, 5, n)), rng.uniform(-1, 5, n), rng.uniform(-1, 6, n)), a2,
            desc=dict(filter_mode=fm))
    add("a2d_s32coords", "texture", "a2d", f"tex.a2d.v4.f32.s32 {V}, [%rd1, {{%c0, %c1, %c2, %c2}}];",
        cols(i32(rng.integers(-1, 5, 512)), i32(rng.integers(-2, 6, 512)), i32(rng.integers(-2, 7, 512))), a2)
    # ---- cube maps: directions on the sphere, axis-aligned ones, and points near edges and corners
    cube = rng.standard_normal((6, 4, 4, 4)).astype(np.float32)
    dirs = rng.standard_normal((3, n))
    dirs[:, :96] = np.repeat(np.eye(3), 32, axis=1) * np.repeat([1, -1], 48)[None, :] * rng.uniform(0.5, 2, 96)
    dirs[:, 96:160] = rng.choice([-1, 1], (3, 64)) * (1 - rng.uniform(0, 0.01, (3, 64)))
    CUBE = f"tex.cube.v4.f32.f32 {V}, [%rd1, {{%c0, %c1, %c2, %c2}}];"
    for fm in ("point", "linear"):
        for seam in (False, True):
            add(f"cube_{fm}{'_seamless' if seam else ''}", "texture", "cube", CUBE, cols(*dirs), cube,
                desc=dict(filter_mode=fm, normalized_coords=True, seamless_cubemap=seam))
    # face coordinates: 64x64 faces holding x + 64 * face (or y + 64 * face), linear: the fetch returns
    # the fixed-point face position
    ramp = np.arange(64, dtype=np.float32)
    face_off = (64 * np.arange(6, dtype=np.float32))[:, None, None]
    for axis, r in (("s", ramp[None, None, :] + 0 * ramp[None, :, None]), ("t", ramp[None, :, None] + 0 * ramp[None, None, :])):
        add(f"cube_ramp_{axis}", "texture", "cube", CUBE, cols(*dirs), (r + face_off)[..., None].astype(np.float32),
            desc=dict(filter_mode="linear", normalized_coords=True))
    big = 512  # finer faces: the precision of the face coordinates
    ramp = np.arange(big, dtype=np.float32)
    face_off = (big * np.arange(6, dtype=np.float32))[:, None, None]
    for axis, r in (("s", np.broadcast_to(ramp[None, None, :], (1, big, big))),
                    ("t", np.broadcast_to(ramp[None, :, None], (1, big, big)))):
        add(f"cube_ramp{big}_{axis}", "texture", "cube", CUBE, cols(*dirs), (r + face_off)[..., None].astype(np.float32),
            desc=dict(filter_mode="linear", normalized_coords=True))
    acube = rng.standard_normal((12, 4, 4, 2)).astype(np.float32)
    add("acube_linear", "texture", "acube", f"tex.acube.v4.f32.f32 {V}, [%rd1, {{%c0, %c1, %c2, %c3}}];",
        cols(i32(rng.integers(-1, 4, n)), *dirs), acube, desc=dict(filter_mode="linear", normalized_coords=True))
    cl = [rng.standard_normal((6, 4 >> k, 4 >> k, 4)).astype(np.float32) for k in range(3)]
    add("cube_level", "texture", "cube", f"tex.level.cube.v4.f32.f32 {V}, [%rd1, {{%c0, %c1, %c2, %c2}}], %c3;",
        cols(*dirs, rng.uniform(-0.5, 2.5, n)), levels=cl, desc=dict(MIP, seamless_cubemap=True))
    # ---- offsets
    d2 = rng.standard_normal((6, 7, 4)).astype(np.float32)
    offx, offy = i32(rng.integers(-10, 10, n)), i32(rng.integers(-10, 10, n))
    cx, cy = rng.uniform(-1, 8, n), rng.uniform(-1, 7, n)
    for fm in ("point", "linear"):
        add(f"offset2d_{fm}", "texture", "2d", f"tex.2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}], {{%c4, %c5}};",
            cols(cx, cy, 0, 0, offx, offy), d2, desc=dict(filter_mode=fm))
    add("offset2d_norm_wrap", "texture", "2d", f"tex.2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}], {{%c4, %c5}};",
        cols(rng.uniform(-1, 2, n), rng.uniform(-1, 2, n), 0, 0, offx, offy), d2,
        desc=dict(filter_mode="linear", address_mode="wrap", normalized_coords=True))
    add("offset2d_imm", "texture", "2d", f"tex.2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}], {{3, -2}};",
        cols(cx, cy), d2, desc=dict(filter_mode="linear"))
    add("offset2d_s32", "texture", "2d", f"tex.2d.v4.f32.s32 {V}, [%rd1, {{%c0, %c1}}], {{%c4, %c5}};",
        cols(i32(rng.integers(-3, 10, n)), i32(rng.integers(-3, 9, n)), 0, 0, offx, offy), d2)
    add("offset1d_linear", "texture", "1d", f"tex.1d.v4.f32.f32 {V}, [%rd1, {{%c0}}], {{%c4}};",
        cols(rng.uniform(-2, 12, n), 0, 0, 0, offx), a1[0], desc=LIN)
    add("offset3d_linear", "texture", "3d", f"tex.3d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1, %c2, %c2}}], {{%c4, %c5, %c6, %c6}};",
        cols(rng.uniform(-1, 5, n), rng.uniform(-1, 6, n), rng.uniform(-1, 4, n), 0, offx, offy, i32(rng.integers(-9, 9, n))),
        a2, desc=LIN)
    add("offset_a2d_linear", "texture", "a2d", f"tex.a2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1, %c2, %c2}}], {{%c4, %c5}};",
        cols(i32(rng.integers(0, 3, n)), rng.uniform(-1, 5, n), rng.uniform(-1, 6, n), 0, offx, offy), a2, desc=LIN)
    add("offset_level", "texture", "2d", f"tex.level.2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}], %c2, {{%c4, %c5}};",
        cols(rng.uniform(0, 1, n), rng.uniform(0, 1, n), rng.uniform(-0.5, 3.5, n), 0, offx, offy), levels=lc, desc=MIP)
    add("tld4_offset", "texture", "2d", f"tld4.g.2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}], {{%c4, %c5}};",
        cols(cx, cy, 0, 0, offx, offy), d2)
    # ---- depth compare (value in %c6)
    dep = rng.uniform(0, 1, (5, 6, 1)).astype(np.float32)
    ref = rng.uniform(-0.1, 1.1, n)
    for fm in ("point", "linear"):
        for depth_flag in (False, True):
            add(f"dc2d_{fm}{'_deptharray' if depth_flag else ''}", "texture", "2d",
                f"tex.2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}], %c6;", cols(cx, cy, 0, 0, 0, 0, ref), dep,
                desc=dict(filter_mode=fm), array_flags=16 if depth_flag else 0)
    add("dc2d_offset_linear", "texture", "2d", f"tex.2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}], {{%c4, %c5}}, %c6;",
        cols(cx, cy, 0, 0, offx, offy, ref), dep, desc=LIN, array_flags=16)
    add("dc_tld4", "texture", "2d", f"tld4.r.2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}], %c6;",
        cols(cx, cy, 0, 0, 0, 0, ref), dep, array_flags=16)
    add("dc_a2d_linear", "texture", "a2d", f"tex.a2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1, %c2, %c2}}], %c6;",
        cols(i32(rng.integers(0, 3, n)), cx, cy, 0, 0, 0, ref), rng.uniform(0, 1, (3, 6, 7, 1)).astype(np.float32),
        desc=LIN, array_flags=16)
    add("dc_cube_linear", "texture", "cube", f"tex.cube.v4.f32.f32 {V}, [%rd1, {{%c0, %c1, %c2, %c2}}], %c6;",
        cols(*dirs, 0, 0, 0, ref), rng.uniform(0, 1, (6, 4, 4, 1)).astype(np.float32),
        desc=dict(filter_mode="linear", normalized_coords=True), array_flags=16)
    add("dc_tld4_plain", "texture", "2d", f"tld4.r.2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}], %c6;",
        cols(cx, cy, 0, 0, 0, 0, ref), dep)
    add("dc2d_linear_depth_u16", "texture", "2d", f"tex.2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}], %c6;",
        cols(cx, cy, 0, 0, 0, 0, ref), rng.integers(0, 65536, (5, 6, 1)).astype(np.uint16),
        desc=dict(LIN, read_mode="normalized_float"), array_flags=16)
    add("tld4_a2d", "texture", "a2d", f"tld4.b.a2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1, %c2, %c2}}];",
        cols(i32(rng.integers(-1, 4, n)), cx, cy), a2)
    add("tld4_cube", "texture", "cube", f"tld4.a.cube.v4.f32.f32 {V}, [%rd1, {{%c0, %c1, %c2, %c2}}];",
        cols(*dirs), cube, desc=dict(normalized_coords=True))
    # ---- formatted surface stores: every lane writes its own sample (x in samples), some outside
    def perm_xy(w, h, extra):
        xy = np.array([(x, y) for y in range(h) for x in range(w)])
        xy = xy[rng.permutation(len(xy))]
        out_of = np.stack([rng.choice([-3, -1, w, w + 5], extra), rng.integers(0, h, extra)], 1)
        return np.concatenate([xy, out_of]).T

    W, H = 8, 4
    x, y = perm_xy(W, H, 0)
    vf = np.concatenate([rng.uniform(-1.5, 1.5, 40), rng.uniform(-300, 300, 40), [np.nan, np.inf, -np.inf, 0.5, 1 / 255,
                         0.5 / 255, 1.5 / 255, 254.5 / 255, -0.0, 65504, 70000, 1e-8]])
    vi = np.concatenate([rng.integers(-2 ** 31, 2 ** 31, 60), [0, 1, 127, 128, 255, 256, -1, -128, -129, 32767, 32768,
                         65535, 65536, -32768, -32769, 2 ** 31 - 1]]).astype(np.int64)
    fmts = [("f32x4", np.float32, 4, None, "f"), ("f16x4", np.float16, 4, None, "f"), ("f16x1", np.float16, 1, None, "f"),
            ("u8x4", np.uint8, 4, None, "i"), ("s8x2", np.int8, 2, None, "i"), ("u16x1", np.uint16, 1, None, "i"),
            ("s16x4", np.int16, 4, None, "i"), ("u32x2", np.uint32, 2, None, "i"), ("s32x1", np.int32, 1, None, "i"),
            ("unorm8x4", np.uint8, 4, "UNORM_INT8X4", "f"), ("snorm8x2", np.int8, 2, "SNORM_INT8X2", "f"),
            ("unorm16x1", np.uint16, 1, "UNORM_INT16X1", "f"), ("snorm16x4", np.int16, 4, "SNORM_INT16X4", "f")]
    for nm, dt, ch, fmt, kind in fmts:
        k = W * H
        src = rng.choice(vf, (4, k)).astype(np.float32) if kind == "f" else rng.choice(vi, (4, k)).astype(np.int32)
        vec = {1: "%c2", 2: "{%c2, %c3}", 4: "{%c2, %c3, %c4, %c5}"}[ch]
        vmod = {1: "", 2: ".v2", 4: ".v4"}[ch]
        add(f"sustp_{nm}", "surface", "2d", f"sust.p.2d{vmod}.b32.trap [%rd1, {{%c0, %c1}}], {vec};",
            cols(i32(x), i32(y), *src), np.zeros((H, W, ch), dt), fmt=fmt)
    # a v4 store to a one-channel surface; stores outside with .zero and .clamp: the in-range lanes
    # write columns 1..W-2, the others land (clamped) on columns 0 and W-1, each on its own sample
    inner = np.array([(xx, yy) for yy in range(H) for xx in range(1, W - 1)]).T
    outer = np.array([(xx, yy) for yy in range(H) for xx in (-3, W + 2)]).T
    x2, y2 = np.concatenate([inner, outer], 1)
    src = rng.uniform(-2, 2, (4, x2.size))
    for mode in ("zero", "clamp"):
        add(f"sustp_f32x1_v4_{mode}", "surface", "2d", f"sust.p.2d.v4.b32.{mode} [%rd1, {{%c0, %c1}}], {{%c2, %c3, %c4, %c5}};",
            cols(i32(x2), i32(y2), *src), np.zeros((H, W, 1), np.float32))
    # normalized formats near their rounding ties: x = (m + 1/2) / max, nudged by up to 3 ulps
    for nm, dt, fmt in (("unorm8", np.uint8, "UNORM_INT8X1"), ("snorm8", np.int8, "SNORM_INT8X1"),
                        ("unorm16", np.uint16, "UNORM_INT16X1"), ("snorm16", np.int16, "SNORM_INT16X1")):
        mx = np.iinfo(dt).max
        sgn = rng.choice([-1, 1], 1024) if dt in (np.int8, np.int16) else 1
        mm = rng.integers(0, mx, 1024)
        val = (f32(sgn * (mm + 0.5) / mx).view(np.int32) + rng.integers(-3, 4, 1024).astype(np.int32)).view(np.float32)
        add(f"sustp_{nm}_ties", "surface", "1d", "sust.p.1d.b32.trap [%rd1, {%c0}], %c2;",
            cols(i32(np.arange(1024)), 0, val), np.zeros((1024, 1), dt), fmt=fmt)
    add("sustp_1d_u8x4", "surface", "1d", "sust.p.1d.v4.b32.trap [%rd1, {%c0}], {%c2, %c3, %c4, %c5};",
        cols(i32(rng.permutation(16)), 0, *rng.choice(vi, (4, 16)).astype(np.int32)), np.zeros((16, 4), np.uint8))
    add("sustp_a2d_f32", "surface", "a2d", "sust.p.a2d.v2.b32.trap [%rd1, {%c6, %c0, %c1, %c1}], {%c2, %c3};",
        cols(i32(np.tile(x, 3)), i32(np.tile(y, 3)), *rng.uniform(-2, 2, (2, 3 * W * H)), 0, 0,
             i32(np.repeat(np.arange(3), W * H))), np.zeros((3, H, W, 2), np.float32))
    # ---- formatted reductions (sample addressing); several lanes per sample
    rx, ry = i32(rng.integers(-2, W + 2, n)), i32(rng.integers(0, H, n))
    for op in ("add", "min", "max", "and", "or"):
        for nm, dt in (("u32", np.uint32), ("s32", np.int32)):
            if op in ("and", "or") and nm == "s32":
                continue
            vals = rng.integers(-2 ** 31, 2 ** 31, n).astype(np.int32) if op != "add" else i32(rng.integers(-1000, 1000, n))
            init = rng.integers(0, 2 ** 31, (H, W, 1)).astype(dt)
            add(f"suredp_{op}_{nm}", "surface", "2d", f"sured.p.{op}.2d.b32.zero [%rd1, {{%c0, %c1}}], %c2;",
                cols(rx, ry, vals), init)
    add("suredp_add_clamp", "surface", "1d", "sured.p.add.1d.b32.clamp [%rd1, {%c0}], %c2;",
        cols(i32(rng.integers(-4, 12, 512)), 0, i32(rng.integers(0, 100, 512))), np.zeros((8, 1), np.uint32))
    add("suredb_add_clamp_2d", "surface", "2d", "sured.b.add.2d.u32.clamp [%rd1, {%c0, %c1}], %c2;",
        cols(i32(rng.integers(-3, W + 3, 512) * 4), i32(rng.integers(-2, H + 2, 512)), i32(rng.integers(0, 100, 512))),
        np.zeros((H, W, 1), np.uint32))
    # ---- unformatted stores outside with .clamp (each clamped target written once) and .zero
    xs = np.array([1, 2, 3, 4, 5, 6, -3, 9, 40, -100], np.int32) * 4
    add("sustb_1d_clamp", "surface", "1d", "sust.b.1d.b32.clamp [%rd1, {%c0}], %c2;",
        cols(xs[[0, 1, 2, 3, 4, 5, 6, 8]], 0, i32(np.arange(8) + 100)), np.zeros((8, 1), np.uint32))
    add("sustb_1d_zero", "surface", "1d", "sust.b.1d.b32.zero [%rd1, {%c0}], %c2;",
        cols(xs, 0, i32(np.arange(10) + 100)), np.zeros((8, 1), np.uint32))
    add("sustb_2d_v2_clamp", "surface", "2d", "sust.b.2d.v2.b32.clamp [%rd1, {%c0, %c1}], {%c2, %c3};",
        cols(i32([8, 16, -8, 8, 80, 16]), i32([1, 2, 1, -5, 2, 9]), i32(np.arange(6) + 7), i32(np.arange(6) + 70)),
        np.zeros((H, W // 2, 2), np.uint32))
    cells = np.array([(xx, yy, zz) for zz in range(2) for yy in range(3) for xx in range(4)])
    cells = np.concatenate([cells[rng.permutation(len(cells))], [(-1, 0, 0), (4, 1, 1), (0, 3, 0), (1, 1, 2), (2, -1, 1)]]).T
    add("sustb_3d_zero", "surface", "3d", "sust.b.3d.b32.zero [%rd1, {%c0, %c1, %c2, %c2}], %c3;",
        cols(i32(cells[0] * 4), i32(cells[1]), i32(cells[2]), i32(np.arange(cells.shape[1]) + 1)),
        np.zeros((2, 3, 4, 1), np.uint32))
    add("sustb_a1d_zero", "surface", "a1d", "sust.b.a1d.b32.zero [%rd1, {%c2, %c0}], %c3;",
        cols(i32(np.tile(np.arange(8) * 4, 4)), 0, i32(np.repeat([0, 1, 2, 5], 8)), i32(np.arange(32))),
        np.zeros((3, 8, 1), np.uint32))
    sa = rng.standard_normal((3, 4, 5, 2)).astype(np.float32)
    for mode in ("zero", "clamp"):
        add(f"suldb_a2d_{mode}", "surface", "a2d", f"suld.b.a2d.v2.b32.{mode} {{%o0, %o1}}, [%rd1, {{%c2, %c0, %c1, %c1}}];",
            cols(i32(rng.integers(-2, 7, 512) * 8), i32(rng.integers(-2, 6, 512)), i32(rng.integers(-1, 4, 512))), sa)
        add(f"suldb_a1d_{mode}", "surface", "a1d", f"suld.b.a1d.b32.{mode} {{%o0}}, [%rd1, {{%c2, %c0}}];",
            cols(i32(rng.integers(-3, 12, 512) * 4), 0, i32(rng.integers(-1, 5, 512))), a1[..., :1].copy())
        add(f"suldb_3d_{mode}", "surface", "3d", f"suld.b.3d.b32.{mode} {{%o0}}, [%rd1, {{%c0, %c1, %c2, %c2}}];",
            cols(i32(rng.integers(-2, 7, 512) * 4), i32(rng.integers(-2, 6, 512)), i32(rng.integers(-1, 4, 512))),
            sa[..., :1].copy())
    # ---- module-level .texref / .surfref (bound with cuModuleGetTexRef / cuTexRefSetArray)
    add("texref_linear", "texture", "2d", f"tex.2d.v4.f32.f32 {V}, [ref0, {{%c0, %c1}}];", cols(cx, cy), d2,
        desc=LIN, ref="texref")
    add("texref_point_norm_wrap", "texture", "2d", f"tex.2d.v4.f32.f32 {V}, [ref0, {{%c0, %c1}}];",
        cols(rng.uniform(-1, 2, n), rng.uniform(-1, 2, n)), d2, desc=dict(address_mode="wrap", normalized_coords=True),
        ref="texref")
    add("texref_txq_width", "texture", "2d", "txq.width.b32 %o0, [ref0];", cols(i32([0])), d2, ref="texref")
    add("surfref_suld", "surface", "2d", "suld.b.2d.v2.b32.zero {%o0, %o1}, [ref0, {%c0, %c1}];",
        cols(i32(rng.integers(-2, 7, 512) * 8), i32(rng.integers(-1, 5, 512))), sa[0].copy(), ref="surfref")
    # ---- queries on layered, cube and mipmapped objects
    for q in ("width", "height", "depth", "array_size", "num_mipmap_levels"):
        for nm, kw in (("a2d", dict(data=a2)), ("cube", dict(data=cube)), ("acube", dict(data=acube)),
                       ("mip", dict(levels=lc, desc=MIP))):
            geom = {"a2d": "a2d", "cube": "cube", "acube": "acube", "mip": "2d"}[nm]
            add(f"txq_{q}_{nm}", "texture", geom, f"txq.{q}.b32 %o0, [%rd1];", cols(i32([0])), **kw)
    add("txq_level_width", "texture", "2d", "txq.level.width.b32 %o0, [%rd1], %c0;", cols(i32([0, 1, 2, 3, 4, -1])),
        levels=lc, desc=MIP)
    add("txq_level_height", "texture", "2d", "txq.level.height.b32 %o0, [%rd1], %c0;", cols(i32([0, 1, 2, 3, 4, -1])),
        levels=lc, desc=MIP)
    for q in ("width", "height", "depth", "array_size"):
        add(f"suq_{q}_a2d", "surface", "a2d", f"suq.{q}.b32 %o0, [%rd1];", cols(i32([0])), sa)
    return P
