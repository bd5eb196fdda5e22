"""Layered, cube and mipmapped texture objects and formatted/layered surface access on hand-made
data whose answers follow from the ISA and the CUDA programming guide without rounding questions
(the H200's own answers are replayed by test_texture_ext.py)."""
from __future__ import annotations

import numpy as np
import pytest

import ptxvm
from ptxvm.engine.texture.objects import TextureError

HEAD = """.version 8.1
.target sm_90
.address_size 64
.visible .entry k(.param .u64 h, .param .u64 inp, .param .u64 o, .param .u32 n)
{
 .reg .pred %p<3>; .reg .b32 %r<8>; .reg .b32 %c<8>; .reg .b32 %o<4>; .reg .b64 %rd<12>;
 ld.param.u64 %rd1, [h]; ld.param.u64 %rd2, [inp]; ld.param.u64 %rd5, [o]; ld.param.u32 %r1, [n];
 mov.u32 %r5, %tid.x; setp.ge.u32 %p1, %r5, %r1; @%p1 bra DONE;
 mul.wide.u32 %rd6, %r5, 32; add.s64 %rd7, %rd2, %rd6;
 ld.global.v4.b32 {%c0, %c1, %c2, %c3}, [%rd7]; ld.global.v4.b32 {%c4, %c5, %c6, %c7}, [%rd7+16];
 mov.b32 %o0, 0; mov.b32 %o1, 0; mov.b32 %o2, 0; mov.b32 %o3, 0;
 INSTR
 mul.wide.u32 %rd10, %r5, 16; add.s64 %rd11, %rd5, %rd10;
 st.global.v4.b32 [%rd11], {%o0, %o1, %o2, %o3};
DONE:
 ret;
}
"""
V = "{%o0, %o1, %o2, %o3}"


def run(instr, obj, *cols):
    n = len(cols[0])
    inp = np.zeros((n, 8), np.uint32)
    for i, c in enumerate(cols):
        inp[:, i] = np.asarray(c).astype(np.float32 if np.asarray(c).dtype.kind == "f" else np.int32).view(np.uint32)
    out = np.zeros((n, 4), np.uint32)
    ptxvm.loads(HEAD.replace("INSTR", instr))["k"].launch(1, max(32, n), [obj, inp, out, np.uint32(n)])
    return out


def test_layered_2d_point():
    layers = np.arange(3 * 2 * 4, dtype=np.float32).reshape(3, 2, 4)  # [layer][y][x]
    t = ptxvm.texture_object(layers, layered=True)
    assert (t.geometry, t.array_size, t.width, t.height) == ("a2d", 3, 4, 2)
    got = run(f"tex.a2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1, %c2, %c2}}];", t,
              np.array([0, 1, 2, 1]), np.array([0.5, 3.5, 1.2, 2.0], np.float32),
              np.array([0.5, 1.5, 0.7, 1.9], np.float32)).view(np.float32)
    assert got[:, 0].tolist() == [0.0, 15.0, 17.0, 14.0]


def test_layered_1d_and_txq():
    layers = np.arange(10, dtype=np.float32).reshape(2, 5)
    t = ptxvm.texture_object(layers, dims=1, layered=True)
    got = run(f"tex.a1d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}];", t, np.array([0, 1]),
              np.array([1.5, 4.2], np.float32)).view(np.float32)
    assert got[:, 0].tolist() == [1.0, 9.0]
    q = {name: int(run(f"txq.{name}.b32 %o0, [%rd1];", t, np.zeros(1))[0, 0])
         for name in ("width", "height", "array_size", "num_mipmap_levels")}
    # an a1d object reports its layer count as its height (H200: txq.height.b32#f32_a1d of the
    # texture conformance family)
    assert q == {"width": 5, "height": 2, "array_size": 2, "num_mipmap_levels": 0}


def test_cube_faces_on_the_axes():
    faces = np.zeros((6, 2, 2), np.float32) + np.arange(6, dtype=np.float32)[:, None, None]
    t = ptxvm.texture_object(faces, cubemap=True)
    assert t.geometry == "cube"
    dirs = np.array([[1, 0, 0], [-2, 0, 0], [0, 3, 0], [0, -1, 0], [0, 0, 0.5], [0, 0, -1]], np.float32)
    got = run(f"tex.cube.v4.f32.f32 {V}, [%rd1, {{%c0, %c1, %c2, %c2}}];", t, *dirs.T).view(np.float32)
    assert got[:, 0].tolist() == [0, 1, 2, 3, 4, 5]


def test_mipmapped_level_selection_point():
    levels = [np.full((8 >> k, 8 >> k), float(k), np.float32) for k in range(4)]
    t = ptxvm.texture_object(levels, normalized_coords=True)
    assert t.num_levels == 4 and t.level_size(2) == (2, 2, 1)
    lod = np.array([0.0, 1.2, 2.8, 3.0, 7.0, -3.0], np.float32)
    got = run(f"tex.level.2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}], %c2;", t, np.full(6, 0.5, np.float32),
              np.full(6, 0.5, np.float32), lod).view(np.float32)
    assert got[:, 0].tolist() == [0.0, 1.0, 3.0, 3.0, 3.0, 0.0]  # nearest level, clamped
    widths = run("txq.level.width.b32 %o0, [%rd1], %c0;", t, np.array([0, 1, 3, 4]))[:, 0]
    assert widths.tolist() == [8, 4, 1, 0]


def test_texture_object_errors():
    with pytest.raises(TextureError, match="square"):
        ptxvm.texture_object(np.zeros((6, 2, 3), np.float32), cubemap=True)
    with pytest.raises(TextureError, match="6 faces"):
        ptxvm.texture_object(np.zeros((5, 2, 2), np.float32), cubemap=True)
    with pytest.raises(TextureError, match="mip level 1"):
        ptxvm.texture_object([np.zeros((4, 4), np.float32), np.zeros((3, 2), np.float32)])
    with pytest.raises(TextureError, match="layered ones 1D or 2D"):
        ptxvm.texture_object(np.zeros((2, 2, 2, 2), np.float32), dims=3, layered=True)


def test_offsets_shift_point_samples():
    img = np.arange(20, dtype=np.float32).reshape(4, 5)
    t = ptxvm.texture_object(img)
    got = run(f"tex.2d.v4.f32.f32 {V}, [%rd1, {{%c0, %c1}}], {{%c4, %c5}};", t, np.array([1.5, 2.5], np.float32),
              np.array([1.5, 0.5], np.float32), np.zeros(2), np.zeros(2), np.array([1, -1]),
              np.array([2, 1])).view(np.float32)
    assert got[:, 0].tolist() == [17.0, 6.0]  # (2, 3) and (1, 1)


def test_formatted_store_and_reduction():
    s = np.zeros((2, 3, 4), np.float32)
    surf = ptxvm.surface_object(s)
    vals = np.array([1.5, -2.0, 3.25, 4.0], np.float32)
    run("sust.p.2d.v4.b32.trap [%rd1, {%c0, %c1}], {%c2, %c3, %c4, %c5};", surf, np.array([2]), np.array([1]),
        *[np.array([v]) for v in vals])
    assert s[1, 2].tolist() == vals.tolist() and not s[0].any()  # x counts samples, not bytes
    counts = np.zeros((1, 4), np.uint32)
    red = ptxvm.surface_object(counts)
    run("sured.p.add.2d.b32.zero [%rd1, {%c0, %c1}], %c2;", red, np.array([0, 3, 3, 4, 3]), np.zeros(5),
        np.array([1, 2, 3, 100, 4]))
    assert counts.tolist() == [[1, 0, 0, 9]]  # x = 4 is outside: dropped with .zero


def test_layered_surface_access():
    s = np.zeros((2, 3, 4), np.uint32)  # 2 layers of 3 x 4
    surf = ptxvm.surface_object(s, layered=True)
    run("sust.b.a2d.b32.trap [%rd1, {%c2, %c0, %c1, %c1}], %c3;", surf, np.array([4, 12]), np.array([2, 0]),
        np.array([1, 0]), np.array([7, 9]))
    assert s[1, 2, 1] == 7 and s[0, 0, 3] == 9
    got = run("suld.b.a2d.b32.zero {%o0}, [%rd1, {%c2, %c0, %c1, %c1}];", surf, np.array([4, 4]), np.array([2, 2]),
              np.array([1, 2]))[:, 0]
    assert got.tolist() == [7, 0]  # layer 2 does not exist: .zero reads 0
    with pytest.raises(ptxvm.KernelFault, match="layer 2"):
        run("suld.b.a2d.b32.trap {%o0}, [%rd1, {%c2, %c0, %c1, %c1}];", surf, np.array([4]), np.array([2]),
            np.array([2]))
