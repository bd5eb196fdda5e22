"""Warp collectives run by several disjoint groups of one warp at once, each with its own
membermask (cooperative groups' tiled_partition<16>/<8> does this): each group reduces over its own
lanes. The H200 agrees: tests/goldens/realworld/cuda_cg_block_max (nvcc's cg::reduce over 16-lane
tiles, redux.sync.max with membermask 0xffff << (laneid & ~15))."""
import numpy as np
import pytest

import ptxvm

PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 width)
{
  .reg .b32 %r<12>; .reg .b64 %rd<4>;
  mov.u32 %r1, %laneid;
  ld.param.u32 %r9, [width];
  neg.s32 %r10, %r9;
  and.b32 %r2, %r1, %r10;          // first lane of this lane's group
  mov.u32 %r11, 1;
  shl.b32 %r3, %r11, %r9;
  sub.u32 %r3, %r3, 1;             // width ones
  shl.b32 %r4, %r3, %r2;           // the group's membermask
  mul.lo.u32 %r5, %r1, 7;
  xor.b32 %r5, %r5, 0x35;
  redux.sync.OP %r6, %r5, %r4;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r6;
  ret;
}
"""
REFERENCE = {"add": np.add.reduce, "max": np.maximum.reduce, "min": np.minimum.reduce,
             "and": np.bitwise_and.reduce, "or": np.bitwise_or.reduce, "xor": np.bitwise_xor.reduce}


@pytest.mark.parametrize("op", sorted(REFERENCE))
@pytest.mark.parametrize("width", [4, 8, 16])
def test_redux_reduces_within_each_membermask_group(op, width):
    out = np.zeros(32, np.uint32)
    ptxvm.loads(PTX.replace("OP", op + (".b32" if op in ("and", "or", "xor") else ".u32")))["k"].launch(1, 32, [out, np.uint32(width)])
    v = (np.arange(32, dtype=np.uint32) * 7) ^ np.uint32(0x35)
    want = np.repeat([REFERENCE[op](g) for g in v.reshape(-1, width)], width).astype(np.uint32)
    np.testing.assert_array_equal(out, want)
