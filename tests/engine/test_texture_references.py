"""Module-level .texref / .samplerref / .surfref variables bound through the module
(Module.bind_texture / bind_sampler / bind_surface), in unified and independent texture mode, and
.texref / .samplerref kernel parameters. Expected values are derived by hand."""
from __future__ import annotations

import numpy as np
import pytest

import ptxvm

IMG = np.array([[0.0, 1.0, 2.0], [10.0, 20.0, 40.0]], np.float32)

UNIFIED = """.version 8.0
.target sm_90
.address_size 64
.global .texref tex_ref;
.global .surfref surf_ref;
.visible .entry k(.param .u64 out, .param .u64 xs)
{
 .reg .f32 %f<8>; .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p<2>;
 ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [xs];
 mov.u32 %r1, %tid.x; mul.wide.u32 %rd3, %r1, 4; add.s64 %rd4, %rd2, %rd3;
 ld.global.f32 %f1, [%rd4]; mov.f32 %f2, 0f3F000000;
 tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [tex_ref, {%f1, %f2}];
 txq.width.b32 %r2, [tex_ref];
 shl.b32 %r3, %r1, 2;
 suld.b.2d.b32.clamp {%r4}, [surf_ref, {%r3, %r1}];
 add.s32 %r4, %r4, 1;
 sust.b.2d.b32.clamp [surf_ref, {%r3, %r1}], {%r4};
 txq.height.b32 %r5, [tex_ref];
 mul.wide.u32 %rd5, %r1, 12; add.s64 %rd6, %rd1, %rd5;
 st.global.f32 [%rd6], %f3; st.global.u32 [%rd6+4], %r2; st.global.u32 [%rd6+8], %r5;
 ret;
}
"""


def _run_unified(mod, xs):
    out = np.zeros((len(xs), 3), np.uint32)
    mod["k"].launch(1, len(xs), [out, np.asarray(xs, np.float32)])
    return out


def test_bind_texture_and_surface_unified():
    mod = ptxvm.loads(UNIFIED)
    tex = mod.bind_texture("tex_ref", IMG, filter_mode="linear")
    surf = np.arange(4, dtype=np.uint32).reshape(2, 2) * 10
    mod.bind_surface("surf_ref", surf)
    out = _run_unified(mod, [0.5, 1.0, 2.5])
    assert out[:, 0].view(np.float32).tolist() == [0.0, 0.5, 2.0]  # row 0, linear between texels
    assert out[:, 1].tolist() == [3, 3, 3]
    assert out[:, 2].tolist() == [2, 2, 2]
    # lanes 0, 1 read-modify-write the diagonal; lane 2 is clamped onto texel (1, 1) too, and reads
    # it before lane 1's store (the warp's loads come before its stores)
    assert surf.tolist() == [[1, 10], [20, 31]]
    # rebinding to another (point-filtered) object takes effect at the next launch
    mod.bind_texture("tex_ref", ptxvm.texture_object(IMG * 2))
    assert _run_unified(mod, [1.0])[0, 0].view(np.float32) == 2.0
    assert tex.handle != 0


def test_unbound_reference_faults_by_name():
    mod = ptxvm.loads(UNIFIED)
    mod.bind_surface("surf_ref", np.zeros((2, 2), np.uint32))
    with pytest.raises(ptxvm.KernelFault, match="tex_ref is not bound"):
        _run_unified(mod, [0.5])


def test_bind_errors():
    mod = ptxvm.loads(UNIFIED)
    with pytest.raises(KeyError, match="no .global .texref named 'nope'"):
        mod.bind_texture("nope", IMG)
    with pytest.raises(KeyError, match="samplerref"):
        mod.bind_sampler("tex_ref")
    with pytest.raises(TypeError, match="settings"):
        mod.bind_texture("tex_ref", ptxvm.texture_object(IMG), filter_mode="linear")


INDEPENDENT = """.version 8.0
.target sm_90, texmode_independent
.address_size 64
.global .texref tex_ref;
.global .samplerref samp_lin = { addr_mode_0 = clamp_to_edge, addr_mode_1 = clamp_to_edge,
                                 filter_mode = linear, force_unnormalized_coords = 1 };
.global .samplerref samp_near = { filter_mode = nearest };
.global .samplerref samp_bound;
.visible .entry k(.param .u64 out, .param .u64 xs, .param .texref tex_param, .param .samplerref samp_param)
{
 .reg .f32 %f<16>; .reg .b32 %r<4>; .reg .b64 %rd<8>;
 ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [xs];
 mov.u32 %r1, %tid.x; mul.wide.u32 %rd3, %r1, 4; add.s64 %rd4, %rd2, %rd3;
 ld.global.f32 %f1, [%rd4]; mov.f32 %f2, 0f3F000000;
 tex.2d.v4.f32.f32 {%f3, _, _, _}, [tex_ref, samp_lin, {%f1, %f2}];
 tex.2d.v4.f32.f32 {%f4, _, _, _}, [tex_ref, samp_near, {%f1, %f2}];
 tex.2d.v4.f32.f32 {%f5, _, _, _}, [tex_ref, samp_bound, {%f1, %f2}];
 tex.2d.v4.f32.f32 {%f6, _, _, _}, [tex_param, samp_param, {%f1, %f2}];
 txq.filter_mode.b32 %r2, [samp_lin];
 mul.wide.u32 %rd5, %r1, 32; add.s64 %rd6, %rd1, %rd5;
 st.global.v4.f32 [%rd6], {%f3, %f4, %f5, %f6}; st.global.u32 [%rd6+16], %r2;
 ret;
}
"""


def test_independent_mode_samplers():
    mod = ptxvm.loads(INDEPENDENT)
    mod.bind_texture("tex_ref", IMG)
    mod.bind_sampler("samp_bound", filter_mode="linear", address_mode="border")
    other = ptxvm.texture_object(IMG + 100)
    smp = ptxvm.engine.texture.objects.SamplerObject(ptxvm.engine.core.device.default_device(), filter_mode="linear")
    xs = np.array([1.0, 0.25, 3.0], np.float32)
    out = np.zeros((3, 8), np.uint32)
    mod["k"].launch(1, 3, [out, xs, other, smp])
    f = out[:, :4].view(np.float32)
    assert f[:, 0].tolist() == [0.5, 0.0, 2.0]      # linear, clamp to edge, unnormalized
    assert f[:, 1].tolist() == [1.0, 0.0, 2.0]      # nearest (force_unnormalized_coords 0: the texture's own)
    assert f[:, 2].tolist() == [0.5, 0.0, 1.0]      # linear, border: half of texel 2 and half outside
    assert f[:, 3].tolist() == [100.5, 100.0, 102.0]  # parameters
    assert out[:, 4].tolist() == [1, 1, 1]          # txq on a sampler: linear
