"""A CTA barrier number from a register is taken modulo 16, as the H200 does
(tools/device/probe_barrier_ids.py, docs/hardware-notes.md): warp 0 waits at `bar.sync ID, 64`
while warp 1 arrives at `bar.arrive OTHER, 64`; the launch completes when ID and OTHER name one
barrier and deadlocks (a KernelFault here, a hang on the GPU) when they do not."""
import numpy as np
import pytest

import ptxvm

PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry alias(.param .u32 id, .param .u32 other, .param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<3>;
    .reg .pred %p;
    ld.param.u32 %r1, [id];
    ld.param.u32 %r3, [other];
    ld.param.u64 %rd1, [out];
    mov.u32 %r2, %tid.x;
    setp.lt.u32 %p, %r2, 32;
    @%p bra W0;
    bar.arrive %r3, 64;
    bra DONE;
W0:
    bar.sync %r1, 64;
DONE:
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd2, %rd1, %rd2;
    st.global.u32 [%rd2], 1;
    ret;
}
.visible .entry whole(.param .u32 id, .param .u64 out)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    ld.param.u32 %r1, [id];
    ld.param.u64 %rd1, [out];
    bar.sync %r1;
    st.global.u32 [%rd1], 1;
    ret;
}
"""


@pytest.mark.parametrize("barrier, other", [(16, 0), (17, 1), (31, 15), (32, 0)])
def test_numbers_alias_modulo_16(barrier, other):
    out = np.zeros(64, np.uint32)
    ptxvm.loads(PTX, "ids.ptx").kernel("alias")[1, 64](np.uint32(barrier), np.uint32(other), out)
    assert out.sum() == 64


def test_different_numbers_deadlock():
    with pytest.raises(ptxvm.KernelFault, match="deadlock"):
        ptxvm.loads(PTX, "ids.ptx").kernel("alias")[1, 64](np.uint32(16), np.uint32(1), np.zeros(64, np.uint32))


@pytest.mark.parametrize("barrier", [15, 16, 17, 31, 32])
def test_a_whole_cta_at_any_number_completes(barrier):
    out = np.zeros(1, np.uint32)
    ptxvm.loads(PTX, "ids.ptx").kernel("whole")[1, 64](np.uint32(barrier), out)
    assert out[0] == 1
