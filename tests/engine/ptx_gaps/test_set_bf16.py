"""`set.CmpOp.bf16.bf16` (cuda_bf16.hpp's __hisnan: numba-cuda's bf16 tests reach it): ptxas
13.0/13.5 take a .bf16 source with a .bf16 destination; ptxvm's table did not, and an instruction
the table refused in a module loaded without verification raised an UnboundLocalError while
lowering instead of faulting where it runs."""
import numpy as np
import pytest

import ptxvm
from ptxas_opinion import VERSIONS, ptxas_accepts

SRC = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .b16 %h<6>;
    .reg .b64 %rd<2>;
    .reg .pred %p;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.b16 %h1, 0x7FC0;
    mov.b16 %h2, 0x3F80;
    set.nan.bf16.bf16 %h3, %h1, %h2;
    set.lt.bf16.bf16 %h4, %h2, %h2;
    setp.eq.u32 %p, 1, 1;
    set.ge.and.bf16.bf16 %h5, %h2, %h2, %p;
    st.global.v2.b16 [%rd1], {%h3, %h4};
    st.global.b16 [%rd1+4], %h5;
    ret;
}
"""


def test_set_with_a_bf16_source_and_destination():
    out = np.zeros(3, np.uint16)
    ptxvm.loads(SRC, "set_bf16.ptx").kernel("k")[1, 1](out)
    assert out.tolist() == [0x3F80, 0, 0x3F80]  # 1.0 (a NaN operand), 0 (1 < 1 is false), 1.0


@pytest.mark.parametrize("version", VERSIONS)
def test_ptxas_takes_it(version):
    ok, err = ptxas_accepts(version, SRC)
    assert ok, err


def test_an_instruction_the_table_refuses_faults_where_it_runs():
    src = SRC.replace("set.lt.bf16.bf16", "set.lt.bf16.bf16x9")
    k = ptxvm.loads(src, "bad.ptx", verify=False).kernel("k")
    with pytest.raises(ptxvm.KernelFault, match=r"unknown modifier \".bf16x9\""):
        k[1, 1](np.zeros(3, np.uint16))
