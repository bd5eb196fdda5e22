"""tensormap.replace and tensormap.cp_fenceproxy (sm_90a) on the engine: each field lands where
the driver's encoding keeps it (ptxvm.tensor_map decodes the edited map), other bits stay, and
the verifier refuses what ptxas refuses."""
import numpy as np
import pytest

import ptxvm
from ptxvm.engine.async_copy import tensor_map as TM


def kernel(edits: str, via_shared: bool = True) -> str:
    copy = "".join(f"  ld.param.v2.u64 {{%rd4, %rd5}}, [tm+{16 * k}];\n"
                   f"  st.{'shared' if via_shared else 'global'}.v2.u64 [{'%r1' if via_shared else '%rd1'}+{16 * k}], "
                   "{%rd4, %rd5};\n" for k in range(8))
    publish = ("  tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [%r1], 128;\n"
               if via_shared else "")
    return f""".version 8.3
.target sm_90a
.address_size 64
.visible .entry k(.param .align 64 .b8 tm[128], .param .u64 out, .param .u64 other)
{{
  .shared .align 128 .b8 smap[128];
  .reg .b32 %r<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u64 %rd2, [other];
  mov.u32 %r1, smap;
{copy}{edits.replace("MAP", "%r1" if via_shared else "%rd1").replace("SS", "shared::cta" if via_shared else "global")}
{publish}  ret;
}}
"""


def edited(edits: str, via_shared: bool = True, **kw):
    a = np.zeros((40, 48), np.float32)
    tm = ptxvm.tensor_map(a, (8, 16), **kw)
    out = np.zeros(128, np.uint8)
    other = ptxvm.to_device(np.zeros(4096, np.float32))
    ptxvm.loads(kernel(edits, via_shared))["k"].launch(32, 32, [tm, out, other])
    return TM.decode(out), tm.desc, other


@pytest.mark.parametrize("via_shared", [True, False])
def test_each_field(via_shared):
    d, before, other = edited(
        "  tensormap.replace.tile.global_address.SS.b1024.b64 [MAP], %rd2;\n"
        "  tensormap.replace.tile.box_dim.SS.b1024.b32 [MAP], 1, 5;\n"
        "  tensormap.replace.tile.global_dim.SS.b1024.b32 [MAP], 0, 33;\n"
        "  tensormap.replace.tile.global_stride.SS.b1024.b64 [MAP], 0, 4096;\n"
        "  tensormap.replace.tile.element_stride.SS.b1024.b32 [MAP], 1, 3;\n"
        "  tensormap.replace.tile.elemtype.SS.b1024.b32 [MAP], 10;\n"
        "  tensormap.replace.tile.swizzle_mode.SS.b1024.b32 [MAP], 2;\n"
        "  tensormap.replace.tile.fill_mode.SS.b1024.b32 [MAP], 1;\n", via_shared)
    assert d.address == other.address
    assert d.box == (16, 5) and d.dims == (33, 40) and d.strides == (2, 4096)
    assert d.element_strides == (1, 3) and d.dtype == "bf16" and d.swizzle == 2 and d.oob_nan


def test_rank_counts_from_zero():
    d, before, _ = edited("  tensormap.replace.tile.rank.SS.b1024.b32 [MAP], 2;\n")
    assert d.rank == 3 and before.rank == 2


def test_untouched_fields_stay():
    d, before, _ = edited("  tensormap.replace.tile.elemtype.SS.b1024.b32 [MAP], 3;\n", swizzle="64B")
    assert d.dtype == "s32" and d.swizzle == before.swizzle == 2
    assert (d.dims, d.box, d.strides, d.address) == (before.dims, before.box, before.strides, before.address)


def test_an_edited_map_loads_from_its_new_tensor():
    """Edit the address and the outer dimension in shared memory, publish, load a box through it."""
    ptx = """.version 8.3
.target sm_90a
.address_size 64
.visible .entry k(.param .align 64 .b8 tm[128], .param .u64 gmap, .param .u64 other, .param .u64 out)
{
  .shared .align 128 .b8 smap[128];
  .shared .align 128 .b8 box[512];
  .shared .align 8 .b64 mb;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .pred %p;
  ld.param.u64 %rd1, [gmap];
  ld.param.u64 %rd2, [other];
  mov.u32 %r1, smap;
  mov.u32 %r2, box;
  mov.u32 %r3, mb;
""" + "".join(f"  ld.param.v2.u64 {{%rd4, %rd5}}, [tm+{16 * k}];\n  st.shared.v2.u64 [%r1+{16 * k}], {{%rd4, %rd5}};\n"
              for k in range(8)) + """  tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%r1], %rd2;
  tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%r1], 1, 4;
  bar.warp.sync -1;
  tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [%r1], 128;
  mov.u32 %r7, %tid.x;
  setp.ne.u32 %p, %r7, 0;
  @%p bra DONE;
  fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;
  mbarrier.init.shared::cta.b64 [%r3], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd6, [%r3], 512;
  mov.u32 %r4, 0;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r2], [%rd1, {%r4, %r4}], [%r3];
W:
  mbarrier.try_wait.parity.shared::cta.b64 %p, [%r3], 0;
  @!%p bra W;
  ld.param.u64 %rd3, [out];
  cvta.to.global.u64 %rd3, %rd3;
  mov.u32 %r5, 0;
L:
  ld.shared.u32 %r6, [%r2];
  st.global.u32 [%rd3], %r6;
  add.u32 %r2, %r2, 4;
  add.s64 %rd3, %rd3, 4;
  add.u32 %r5, %r5, 1;
  setp.lt.u32 %p, %r5, 128;
  @%p bra L;
DONE:
  ret;
}
"""
    a = np.zeros((40, 48), np.float32)
    b = np.arange(40 * 48, dtype=np.float32).reshape(40, 48)
    gmap, other, out = np.zeros(128, np.uint8), ptxvm.to_device(b), np.zeros((8, 16), np.float32)
    ptxvm.loads(ptx)["k"].launch(1, 32, [ptxvm.tensor_map(a, (8, 16)), gmap, other, out])
    want = np.zeros((8, 16), np.float32)
    want[:4] = b[:4, :16]                                     # rows 4.. are outside the new 4-row tensor
    assert np.array_equal(out, want)


def test_cp_fenceproxy_lane_i_copies_word_i():
    """With a different map per lane (not what .aligned code does) each lane moves only its own
    word i, from its own source to its own destination: what the H200 did."""
    ptx = """.version 8.3
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out)
{
  .shared .align 128 .b8 maps[4096];
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 7;
  mul.wide.u32 %rd2, %r1, 128;
  add.s64 %rd1, %rd1, %rd2;
  mov.u32 %r3, maps;
  add.u32 %r2, %r2, %r3;
  tensormap.replace.tile.rank.shared::cta.b1024.b32 [%r2], 4;
  tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%r2], 0, 100;
  tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [%r2], 128;
  ret;
}
"""
    out = np.zeros((32, 32), np.uint32)
    ptxvm.loads(ptx)["k"].launch(1, 32, [out])
    want = np.zeros((32, 32), np.uint32)
    want[2, 2] = 4 << 4          # lane 2 moves word 2 (rank - 1 in bits 4-6)
    want[8, 8] = 99              # lane 8 moves word 8 (dimension 0 - 1)
    assert np.array_equal(out, want)


def test_misaligned_map_faults():
    with pytest.raises(ptxvm.KernelFault, match="not 64-byte aligned"):
        edited("  add.u32 %r1, %r1, 16;\n  tensormap.replace.tile.rank.SS.b1024.b32 [MAP], 1;\n")


@pytest.mark.parametrize("instr, message", [
    ("tensormap.replace.tile.box_dim.global.b1024.b32 [%rd1], 5, %r1;", r"ordinal 5 is out of range \[0..4\]"),
    ("tensormap.replace.tile.elemtype.global.b1024.b32 [%rd1], 13;", "needs PTX ISA 8.7"),
    ("tensormap.replace.tile.swizzle_mode.global.b1024.b32 [%rd1], 4;", "needs PTX ISA 8.8"),
    ("tensormap.replace.tile.fill_mode.global.b1024.b32 [%rd1], 2;", r"out of range \[0..1\]"),
    ("tensormap.replace.tile.interleave_layout.global.b1024.b32 [%rd1], 3;", r"out of range \[0..2\]"),
    ("tensormap.replace.tile.elemtype.global.b1024.b32 [%rd1], %r1;", "constant"),
    ("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [%r1], 64;",
     "must be 128"),
])
def test_verifier_refuses_what_ptxas_refuses(instr, message):
    ptx = f""".version 8.3
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 p)
{{
  .reg .b64 %rd<4>;
  .reg .b32 %r<4>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, 3;
  {instr}
  ret;
}}
"""
    with pytest.raises(ptxvm.PtxError, match=message):
        ptxvm.loads(ptx)
