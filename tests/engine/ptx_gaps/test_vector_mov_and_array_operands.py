"""Two PTX forms ZLUDA's test suite (vosen/ZLUDA, ptx/src/test/spirv_run: `vector`, `vector_extract`,
`const`) runs and ptxvm got wrong:

* `mov.v2/.v4 {d...}, {a...}` copies element by element. ptxvm treated the braced lists as the
  parts of one packed value (`mov.b64 %rd, {%r1, %r2}`): floats came out 0.0, integers lost
  their upper half, and .v4.u16 faulted.
* `ld.const.b16 t, arr[1]` (ISA "Arrays as Operands"): element 1 of the array, the address
  arr + 1 * element size. The verifier took it; the launch faulted."""
import numpy as np
import pytest

import ptxvm
from ptxas_opinion import VERSIONS, ptxas_accepts

VECTOR_MOV = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .u64 o;
    .reg .f32 a, b, c, d;
    .reg .f64 x, y;
    .reg .u32 p, q, r, s;
    .reg .u16 h<4>;
    .reg .v2 .u32 pair;
    ld.param.u64 o, [out];
    cvta.to.global.u64 o, o;
    mov.f32 a, 0f3f800000;
    mov.f32 b, 0fc0490fdb;
    mov.v2.f32 {c, d}, {a, b};
    st.global.v2.f32 [o], {c, d};
    mov.f64 x, 0d3ff0000000000000;
    mov.f64 y, 0d4000000000000000;
    mov.v2.f64 {y, x}, {x, y};
    st.global.v2.f64 [o+16], {x, y};
    mov.u32 p, 0x12345678;
    mov.u32 q, 0xdeadbeef;
    mov.v2.u32 {r, s}, {q, p};
    st.global.v2.u32 [o+32], {r, s};
    mov.v2.u32 pair, {p, q};
    mov.v2.u32 {s, r}, pair;
    st.global.v2.u32 [o+40], {r, s};
    mov.u16 h0, 1; mov.u16 h1, 0x8002; mov.u16 h2, 3; mov.u16 h3, 0xffff;
    mov.v4.u16 {h3, h2, h1, h0}, {h0, h1, h2, h3};
    st.global.v4.u16 [o+48], {h0, h1, h2, h3};
    ret;
}
"""

ARRAY_OPERANDS = """.version 8.0
.target sm_90
.address_size 64
.const .align 8 .b16 table[4] = { 10, 20, 30, 40 };
.global .align 4 .u32 words[4] = { 1, 2, 3, 4 };
.visible .entry k(.param .u64 out)
{
    .reg .u64 o;
    .reg .b16 t;
    .reg .u32 w;
    ld.param.u64 o, [out];
    cvta.to.global.u64 o, o;
    ld.const.b16 t, table[1];
    ld.global.u32 w, words[3];
    st.global.u32 words[0], w;
    st.global.u16 [o], t;
    ld.global.u32 w, words[0];
    st.global.u32 [o+4], w;
    ret;
}
"""


def test_vector_mov_copies_each_element():
    out = np.zeros(56, np.uint8)
    ptxvm.loads(VECTOR_MOV, "vmov.ptx").kernel("k")[1, 1](out)
    assert out[0:8].view(np.float32).tolist() == [1.0, np.float32(-3.1415927)]
    assert out[16:32].view(np.float64).tolist() == [2.0, 1.0]  # swapped
    assert out[32:40].view(np.uint32).tolist() == [0xDEADBEEF, 0x12345678]
    assert out[40:48].view(np.uint32).tolist() == [0xDEADBEEF, 0x12345678]  # from a .v2 register, swapped
    assert out[48:56].view(np.uint16).tolist() == [0xFFFF, 3, 0x8002, 1]


def test_array_elements_as_memory_operands():
    out = np.zeros(2, np.uint32)
    ptxvm.loads(ARRAY_OPERANDS, "arr.ptx").kernel("k")[1, 1](out)
    assert out.view(np.uint16)[0] == 20 and out[1] == 4


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("source", [VECTOR_MOV, ARRAY_OPERANDS], ids=["vector_mov", "array_operands"])
def test_ptxas_takes_them(version, source):
    ok, err = ptxas_accepts(version, source)
    assert ok, err


def test_a_256_bit_load_faults_as_the_h200_has_none():
    """ld.global.v8.u32 (PTX ISA 8.8, sm_100 and later; ZLUDA's `vector8` at .target sm_120) verifies
    against its module's target, but a kernel that reaches it faults naming the target it needs:
    an H200 has no 256-bit load (it ran as if it had one)."""
    src = """.version 8.8
.target sm_120
.address_size 64
.visible .entry k(.param .u64 p)
{
    .reg .u64 a;
    .reg .u32 d<8>;
    ld.param.u64 a, [p];
    ld.global.v8.u32 {d0, d1, d2, d3, d4, d5, d6, d7}, [a];
    st.global.u32 [a], d7;
    ret;
}
"""
    k = ptxvm.loads(src, "v8.ptx").kernel("k")
    with pytest.raises(ptxvm.KernelFault, match="needs .target sm_100 or later"):
        k[1, 1](np.arange(8, dtype=np.uint32))
