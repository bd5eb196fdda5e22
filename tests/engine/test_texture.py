"""Texture and surface objects and instructions (tex, tld4, txq, suld, sust, sured, suq, istypep).

Three parts: hand-written kernels whose results are derived here by hand; the probes an H200 ran
(tests/goldens/kernels/texture_probes.npz, recorded by tools/device/record_textures.py: one
instruction over textures of many formats, filter and address modes, at many coordinates); and the
texture/surface kernel cases of tests/kernels/cases.py replayed against their GPU goldens."""
from __future__ import annotations

import json
import pathlib
import sys

import numpy as np
import pytest

import ptxvm
from ptxvm.engine.texture.objects import TextureError

ROOT = pathlib.Path(__file__).resolve().parents[2]
GOLDENS = ROOT / "tests" / "goldens" / "kernels"

HEAD = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 h, .param .u64 a0, .param .u64 a1, .param .u64 o, .param .u32 n)
{
 .reg .pred %p<3>; .reg .b32 %r<8>; .reg .b32 %c<4>; .reg .b32 %o<4>; .reg .b64 %rd<12>;
 ld.param.u64 %rd1, [h]; ld.param.u64 %rd2, [a0]; ld.param.u64 %rd3, [a1]; ld.param.u64 %rd5, [o];
 ld.param.u32 %r1, [n];
 mov.u32 %r4, %tid.x; setp.ge.u32 %p1, %r4, %r1; @%p1 bra DONE;
 mul.wide.u32 %rd6, %r4, 4;
 add.s64 %rd7, %rd2, %rd6; ld.global.b32 %c0, [%rd7];
 add.s64 %rd8, %rd3, %rd6; ld.global.b32 %c1, [%rd8];
 mov.b32 %o0, 0; mov.b32 %o1, 0; mov.b32 %o2, 0; mov.b32 %o3, 0;
"""
TAIL = """
 mul.wide.u32 %rd10, %r4, 16; add.s64 %rd11, %rd5, %rd10;
 st.global.v4.b32 [%rd11], {%o0, %o1, %o2, %o3};
DONE:
 ret;
}
"""
V = "{%o0, %o1, %o2, %o3}"


def run(instr, obj, c0, c1=None):
    c0 = np.asarray(c0)
    c1 = np.zeros_like(c0) if c1 is None else np.asarray(c1, c0.dtype)
    out = np.zeros((len(c0), 4), np.uint32)
    mod = ptxvm.loads(HEAD + " " + instr + TAIL)
    mod["k"].launch(1, max(32, len(c0)), [obj, c0, c1, out, np.uint32(len(c0))])
    return out


def f32(out):
    return out.view(np.float32)


TEX2D = f"tex.2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}];"
# a 2x3 (height x width) one-channel float texture
IMG = np.array([[0.0, 1.0, 2.0], [10.0, 20.0, 40.0]], np.float32)


def test_point_sampling_unnormalized_clamp():
    t = ptxvm.texture_object(IMG)
    x = np.array([0.5, 1.99, 2.0, -5.0, 7.0, 0.25], np.float32)
    y = np.array([0.5, 0.0, 1.5, 1.2, -1.0, 9.0], np.float32)
    got = f32(run(TEX2D, t, x, y))
    assert got[:, 0].tolist() == [0.0, 1.0, 40.0, 10.0, 2.0, 10.0]
    assert not got[:, 1:].any()  # missing channels read 0


@pytest.mark.parametrize("mode,expect", [
    # normalized x = u * 3: u = -0.2 -> -0.6 -> texel -1; u = 1.1 -> 3.3 -> texel 3; u = -0.5 -> texel -2
    ("clamp", [0.0, 2.0, 0.0]),
    ("wrap", [2.0, 0.0, 1.0]),     # -1 mod 3 = 2, 3 mod 3 = 0, -2 mod 3 = 1
    ("mirror", [0.0, 2.0, 1.0]),   # -1 -> 0, 3 -> 2, -2 -> 1
    ("border", [7.0, 7.0, 7.0]),   # outside: the border colour
])
def test_point_address_modes_normalized(mode, expect):
    t = ptxvm.texture_object(IMG, address_mode=mode, normalized_coords=True, border_color=[7, 0, 0, 0])
    got = f32(run(TEX2D, t, np.array([-0.2, 1.1, -0.5], np.float32), np.full(3, 0.25, np.float32)))
    assert got[:, 0].tolist() == expect


def test_linear_filtering_weights_are_fixed_point():
    t = ptxvm.texture_object(IMG, filter_mode="linear")
    # x = 1.0 + f: between texels 0 and 1 of row 0 (values 0 and 1): the weight f rounded to 1/256
    f = np.array([0.0, 0.25, 1 / 512, 1 / 1024, 3 / 1024, 0.999, 0.1], np.float32)
    got = f32(run(TEX2D, t, 0.5 + f, np.full(f.size, 0.5, np.float32)))[:, 0]
    assert got.tolist() == [0.0, 0.25, 1 / 256, 0.0, 1 / 256, 1.0, 26 / 256]


def test_linear_filtering_2d_weights_sum_to_one():
    t = ptxvm.texture_object(IMG, filter_mode="linear")
    # at (1.0, 1.0): the four texels 0, 1, 10, 20 with weight 1/4 each
    got = f32(run(TEX2D, t, np.array([1.0, 1.5, 0.0], np.float32), np.array([1.0, 1.0, 1.0], np.float32)))[:, 0]
    assert got.tolist() == [31 / 4, 10.5, 5.0]  # (0+1+10+20)/4; (1+20)/2 at x=1.5; clamped left edge (0+10)/2


@pytest.mark.parametrize("mode,expect", [
    ("clamp", 0.0), ("border", 0.0 * 0.5 + 0.5 * 0.0),  # half on texel 0 (value 0), half outside
    ("wrap", 1.0), ("mirror", 0.0)])
def test_linear_address_modes(mode, expect):
    t = ptxvm.texture_object(IMG, filter_mode="linear", address_mode=mode, normalized_coords=True)
    # u = 0 on row 0: x = 0 -> texels -1 and 0 with weight 1/2 each (row 0 = 0, 1, 2)
    got = f32(run(TEX2D, t, np.zeros(1, np.float32), np.full(1, 0.25, np.float32)))[0, 0]
    wrapped = {"clamp": 0.0, "border": 0.0, "wrap": 2.0, "mirror": 0.0}[mode]
    assert got == (wrapped + 0.0) / 2
    del expect


def test_normalized_float_reads():
    u8 = np.array([[0, 255, 51, 128]], np.uint8)
    s8 = np.array([[-128, -127, 127, 0]], np.int8)
    x, y = np.arange(4, dtype=np.float32) + 0.5, np.full(4, 0.5, np.float32)
    a = f32(run(TEX2D, ptxvm.texture_object(u8, read_mode="normalized_float"), x, y))[:, 0]
    b = f32(run(TEX2D, ptxvm.texture_object(s8, read_mode="normalized_float"), x, y))[:, 0]
    assert a.tolist() == [0.0, 1.0, np.float32(0.2), np.float32(128 / 255)]
    assert b.tolist() == [-1.0, -1.0, 1.0, 0.0]
    ints = run(f"tex.2d.v4.s32.f32 {V}, [%rd1, {{%c0, %c1}}];", ptxvm.texture_object(s8), x, y)[:, 0]
    assert ints.view(np.int32).tolist() == [-128, -127, 127, 0]


def test_integer_coordinates_outside_read_zero():
    t = ptxvm.texture_object(IMG, address_mode="wrap")
    got = f32(run(f"tex.2d.v4.f32.s32 {V}, [%rd1, {{%c0, %c1}}];", t, np.array([2, 3, -1, 1], np.int32),
                  np.array([1, 0, 0, 0], np.int32)))[:, 0]
    assert got.tolist() == [40.0, 0.0, 0.0, 1.0]


def test_tld4_gathers_one_channel_of_the_footprint():
    rgba = np.zeros((2, 3, 4), np.float32)
    rgba[..., 1] = IMG  # channel g
    t = ptxvm.texture_object(rgba)
    got = f32(run(f"tld4.g.2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}];", t, np.array([1.0, 2.2], np.float32),
                  np.array([1.0, 1.0], np.float32)))
    # (i, j+1), (i+1, j+1), (i+1, j), (i, j) around (0..1, 0..1) and (1..2, 0..1)
    assert got.tolist() == [[10, 20, 1, 0], [20, 40, 2, 1]]


def test_txq_suq_istypep():
    t = ptxvm.texture_object(np.zeros((5, 7, 2), np.uint16), filter_mode="point",
                             address_mode=["wrap", "border"], normalized_coords=True)
    s = ptxvm.surface_object(np.zeros((3, 4, 4), np.float32))
    q = {name: int(run(f"txq.{name}.b32 %o0, [%rd1];", t, np.zeros(1, np.int32))[0, 0])
         for name in ("width", "height", "depth", "normalized_coords", "filter_mode", "addr_mode_0",
                      "addr_mode_1", "channel_order", "channel_data_type")}
    assert q == {"width": 7, "height": 5, "depth": 0, "normalized_coords": 1, "filter_mode": 0,
                 "addr_mode_0": 0, "addr_mode_1": 3, "channel_order": 0x10B2, "channel_data_type": 0x10DB}
    assert [int(run(f"suq.{n}.b32 %o0, [%rd1];", s, np.zeros(1, np.int32))[0, 0]) for n in ("width", "height")] == [4, 3]
    p = run("istypep.texref %p2, %rd1; selp.u32 %o0, 1, 0, %p2;", t, np.zeros(1, np.int32))[0, 0]
    assert p == 0  # an object handle is not a .texref variable (as on the H200)


SULD = "suld.b.2d.b32.{m} {{%o0}}, [%rd1, {{%c0, %c1}}];"


def test_suld_boundary_modes():
    data = np.arange(12, dtype=np.uint32).reshape(3, 4) + 100
    s = ptxvm.surface_object(data)
    x = np.array([4, 12, 16, -4, 0, 8], np.int32)  # bytes
    y = np.array([0, 2, 1, 0, 3, -1], np.int32)
    assert run(SULD.format(m="clamp"), s, x, y)[:, 0].tolist() == [101, 111, 107, 100, 108, 102]
    assert run(SULD.format(m="zero"), s, x, y)[:, 0].tolist() == [101, 111, 0, 0, 0, 0]
    with pytest.raises(ptxvm.KernelFault, match="out of range"):
        run(SULD.format(m="trap"), s, x, y)


def test_sust_boundary_modes_and_sured():
    data = np.zeros((2, 3), np.uint32)
    s = ptxvm.surface_object(data)
    x = np.array([0, 8, 12, -4], np.int32)
    y = np.array([0, 1, 0, 1], np.int32)
    run("add.u32 %o0, %c0, 1000; sust.b.2d.b32.zero [%rd1, {%c0, %c1}], {%o0};", s, x, y)
    assert data.tolist() == [[1000, 0, 0], [0, 0, 1008]]
    run("add.u32 %o0, %c0, 1; sust.b.2d.b32.clamp [%rd1, {%c0, %c1}], {%o0};", s, x[2:], y[2:])
    assert data.tolist() == [[1000, 0, 13], [4294967293, 0, 1008]]
    with pytest.raises(ptxvm.KernelFault, match="out of range"):
        run("sust.b.2d.b32.trap [%rd1, {%c0, %c1}], {%c0};", s, x, y)
    run("sured.b.add.2d.u32.trap [%rd1, {%c0, %c1}], %c1;", s, np.zeros(5, np.int32), np.ones(5, np.int32) - 1)
    run("sured.b.max.2d.u32.trap [%rd1, {%c0, %c1}], %c0;", s, np.full(3, 4, np.int32), np.zeros(3, np.int32))
    assert data[0].tolist() == [1000, 4, 13]


def test_vector_and_64_bit_surface_access():
    data = np.arange(8, dtype=np.uint32).reshape(2, 4)
    s = ptxvm.surface_object(data)
    got = run(f"suld.b.2d.v2.b32.trap {{%o0, %o1}}, [%rd1, {{%c0, %c1}}];", s, np.array([8, 0], np.int32),
              np.array([1, 0], np.int32))
    assert got[:, :2].tolist() == [[6, 7], [0, 1]]
    got = run("suld.b.2d.b64.trap {%rd4}, [%rd1, {%c0, %c1}]; mov.b64 {%o0, %o1}, %rd4;", s,
              np.array([4], np.int32), np.array([0], np.int32))
    assert got[0, :2].tolist() == [1, 2]


def test_object_errors():
    with pytest.raises(TextureError, match="not supported"):
        ptxvm.texture_object(np.zeros((2, 2), np.float64))
    with pytest.raises(TextureError, match="channels"):
        ptxvm.texture_object(np.zeros((2, 2, 3), np.float32), dims=2)
    with pytest.raises(TextureError, match="layered"):
        ptxvm.texture_object(np.zeros((2, 2), np.uint8), dims=4)
    t = ptxvm.texture_object(IMG)
    t.destroy()
    with pytest.raises(ptxvm.KernelFault, match="not a live texture"):
        run(TEX2D, t, np.zeros(1, np.float32))


# ------------------------------------------------------------------ the H200's probes

PROBES = GOLDENS / "texture_probes.npz"
META = json.loads((GOLDENS / "texture_probes.meta.json").read_text())["probes"] if PROBES.exists() else {}
RECORDED = sorted(k for k, v in META.items() if v["status"] == "ok")
# Where the engine is not yet bit-exact, the largest difference it may have (in the value's units);
# every other probe must match bit for bit (texture_filter.py / texture_sample.py: the fixed-point
# positions and weights, the blend, normalized coordinates, the u8 normalized-float filter).
TOLERANCE: dict = {}


def _probe_object(name):
    d = META[name]
    data = np.array(PROBE_DATA[f"{name}.data"])
    if d["kind"] == "surface":
        return ptxvm.surface_object(data, dims=d["dims"])
    kw = {k: d[k] for k in ("address_mode", "filter_mode", "normalized_coords", "read_mode", "border_color")
          if k in d}
    return ptxvm.texture_object(data, dims=d["dims"], **kw)


PROBE_DATA = np.load(PROBES) if PROBES.exists() else {}


@pytest.mark.parametrize("name", RECORDED)
def test_probe_matches_h200(name):
    z = PROBE_DATA
    obj = _probe_object(name)
    c0, c1, c2 = z[f"{name}.c0"], z[f"{name}.c1"], z[f"{name}.c2"]
    n = len(c0)
    out = np.zeros(4 * n, np.uint32)
    ptxvm.loads(z[f"{name}.ptx"].tobytes().decode(), name)["probe"].launch(
        (n + 127) // 128, 128, [obj, c0, c1, c2, out, np.int32(n)])
    want = z[f"{name}.out"].reshape(-1)
    if name in TOLERANCE:
        np.testing.assert_allclose(out.view(np.float32), want.view(np.float32), rtol=TOLERANCE[name],
                                   atol=TOLERANCE[name], err_msg=name)
    else:
        assert np.array_equal(out, want), f"{name}: {np.count_nonzero(out != want)} words differ"


def test_probes_were_recorded():
    assert len(RECORDED) >= 50


def test_tex1d_s32_is_a_buffer_fetch():
    """tex.1d with .s32 coordinates (tex1Dfetch) reads 0 from a CUDA-array 1D texture at every
    coordinate and the texels of a linear-memory one (H200: `tex.1d.v4.f32.s32#1d`)."""
    a = np.arange(1, 10, dtype=np.float32)
    c = np.array([0, 4, 8, 9, -1], np.int32)
    ins = f"tex.1d.v4.f32.s32 {V}, [%rd1, {{%c0}}];"
    assert not f32(run(ins, ptxvm.texture_object(a), c)).any()
    got = f32(run(ins, ptxvm.texture_object(a, linear=True), c))[:, 0]
    assert got.tolist() == [1, 5, 9, 0, 0]
    with pytest.raises(TextureError):
        ptxvm.texture_object(a[None].repeat(2, 0), dims=2, linear=True)


def test_cube_zero_direction_is_the_centre_of_face_pz():
    from ptxvm.engine.texture.sample import cube_coords

    face, (s, t) = cube_coords(np.float32([0, -0.0]), np.float32([-0.0, 0]), np.float32([0, 0]))
    assert face.tolist() == [4, 4] and s.tolist() == t.tolist() == [0.5, 0.5]


def test_normalized_wrap_of_nonfinite_and_huge_coordinates_is_zero():
    from ptxvm.engine.texture.sample import normalized_to_texels

    u = np.float32([np.nan, np.inf, -np.inf, 2.0 ** 31, -3.4e38, 1e30, -0.25])
    assert normalized_to_texels(u, 7, 1).tolist() == [0] * 6 + [5.25]
    assert normalized_to_texels(np.float32([-0.25, 3.5]), 4, 2).tolist() == [7, 6]


# ------------------------------------------------------------------ kernel cases

sys.path.insert(0, str(ROOT / "tests" / "kernels"))
import cases as C  # noqa: E402

TEX_CASES = [c for c in C.ADVANCED_CASES if c.feature in ("texture", "surface")]


@pytest.mark.parametrize("case", TEX_CASES, ids=[c.name for c in TEX_CASES])
def test_texture_kernel_case_matches_gpu(case):
    golden = np.load(GOLDENS / f"{case.name}.npz")
    meta = json.loads((GOLDENS / f"{case.name}.meta.json").read_text())
    vals = C.materialize(case, 0)
    for i, spec in enumerate(case.args):
        if isinstance(spec, C.Texture):
            assert np.array_equal(np.asarray(vals[i], np.float32), golden[f"arg{i}.in"])
    args, surfaces = C.resource_args(case, vals)
    ptx = golden["ptx"].tobytes().decode()
    ptxvm.loads(ptx, case.name)[meta["kernel"]].launch(tuple(meta["grid"]), tuple(meta["block"]), args)
    for i, spec in enumerate(case.args):
        if f"arg{i}.out" not in golden:
            continue
        got = surfaces.get(i, args[i])
        want = golden[f"arg{i}.out"]
        if spec.check.kind == "close":
            np.testing.assert_allclose(got, want, rtol=spec.check.rtol, atol=spec.check.atol)
        else:
            assert np.array_equal(np.asarray(got).view(np.uint8), want.view(np.uint8)), case.name


def test_srgb_point_reads_convert_colour_channels_only():
    """sRGB u8 RGBA texels: colour channels through the measured table (0 -> 0, 255 -> 1, f16
    values near the sRGB curve), alpha as v / 255; other formats and element reads ignore the flag."""
    from ptxvm.engine.texture.filter import SRGB_TABLE

    v = np.arange(256, dtype=np.uint8)
    t = ptxvm.texture_object(np.stack([v, v, v, v], -1)[None], read_mode="normalized_float", srgb=True)
    assert t.srgb and SRGB_TABLE[0] == 0 and SRGB_TABLE[255] == 1
    curve = np.where(v / 255 <= 0.04045, v / 255 / 12.92, ((v / 255 + 0.055) / 1.055) ** 2.4)
    assert np.all(np.abs(SRGB_TABLE - curve) < 4e-3) and np.all(np.diff(SRGB_TABLE) > 0)
    got = t.values[0][0, 0]
    assert np.array_equal(got[:, 0], SRGB_TABLE) and np.array_equal(got[:, 3], (v / 255).astype(np.float32))
    assert not ptxvm.texture_object(v.astype(np.int8), read_mode="normalized_float", srgb=True).srgb
    assert not ptxvm.texture_object(v, srgb=True).srgb

