"""`[%r+k]` with a 32-bit register: the sum wraps in 32 bits, as SASS's `LDL R, [R4+0x18]` /
`LDS R, [R4+0x18]` add the immediate to the 32-bit register. libdevice's sin/cos slow path (Triton's
tl.sin of 3.4e38) forms `%r4 = %SPL - 12`, which is 0xFFFFFFF4, and loads `[%r4+24]`: depot
offset 12. ptxvm added in 64 bits and faulted (out-of-bounds local access)."""
import numpy as np

import ptxvm

PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 back, .param .u32 ahead)
{
  .local .align 4 .b8 depot[16];
  .shared .align 4 .b32 sh[4];
  .reg .b32 %r<12>; .reg .b64 %rd<2>;
  ld.param.u32 %r10, [back]; ld.param.u32 %r11, [ahead];
  mov.u32 %r1, depot;
  sub.u32 %r2, %r1, %r10;
  st.local.u32 [%r1+4], 41;
  ld.local.u32 %r3, [%r2+16];
  mov.u32 %r4, sh;
  sub.u32 %r5, %r4, %r11;
  st.shared.u32 [%r4+12], 43;
  ld.shared.u32 %r6, [%r5+2056];
  ld.param.u64 %rd1, [out];
  st.global.v2.u32 [%rd1], {%r3, %r6};
  ret;
}
"""


def test_a_32_bit_register_plus_offset_wraps_in_32_bits():
    out = np.zeros(2, np.uint32)
    ptxvm.loads(PTX, "wrap32.ptx").kernel("k")[1, 1](out, np.uint32(12), np.uint32(2044))
    assert out.tolist() == [41, 43]
