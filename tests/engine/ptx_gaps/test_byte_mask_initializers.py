"""Byte-mask initializers (ISA 5.4.5, `0xFF00(expr)`): each selects one byte of an address or an
integer constant expression, and that byte is the initial value of a .u8 element (LLVM writes a
pointer at an unaligned offset of a packed struct this way: tests/corpus/realworld/src/llvm/
packed_alias.ll, whose launch is recorded on the H200). They were stored unshifted, so every byte
but the lowest read as 0."""
import numpy as np

import ptxvm
from ptxas_opinion import VERSIONS, ptxas_accepts

import pytest

MASKS = [0xFF << (8 * k) for k in range(8)]
SOURCE = """.version 8.0
.target sm_90
.address_size 64
.global .align 4 .u32 g = 42;
.global .align 8 .u8 bytes[24] = {%s, %s, 0xFF(1000 + 546), 0xFF00(1000 + 546), 0xFF0000(0x12345678), 0xFF000000(0x12345678), 0, 0};
.visible .entry k(.param .u64 out)
{
    .reg .b64 %%rd<4>;
    ld.param.u64 %%rd1, [out];
    cvta.to.global.u64 %%rd1, %%rd1;
    ld.global.u64 %%rd2, [bytes];
    ld.global.u64 %%rd3, [bytes+8];
    st.global.u64 [%%rd1], %%rd2;
    st.global.u64 [%%rd1+8], %%rd3;
    ld.global.u64 %%rd2, [bytes+16];
    st.global.u64 [%%rd1+16], %%rd2;
    mov.u64 %%rd2, g;
    cvta.global.u64 %%rd2, %%rd2;
    st.global.u64 [%%rd1+24], %%rd2;
    ret;
}
""" % (", ".join(f"0x{m:X}(generic(g))" for m in MASKS), ", ".join(f"0x{m:X}(generic(g)+6)" for m in MASKS))


def test_each_mask_selects_its_byte():
    out = np.zeros(4, np.uint64)
    ptxvm.loads(SOURCE, "masks.ptx").kernel("k")[1, 1](out)
    address = int(out[3])
    assert out[0] == address  # the eight bytes of generic(g), in order
    assert out[1] == address + 6
    assert list(out[2:3].view(np.uint8)[:6]) == [1546 & 0xFF, 1546 >> 8, 0x34, 0x12, 0, 0]


@pytest.mark.parametrize("version", VERSIONS)
def test_ptxas_takes_the_masks(version):
    ok, err = ptxas_accepts(version, SOURCE)
    assert ok, err
