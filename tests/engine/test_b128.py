""".b128 registers: mov (pack, unpack, copy, immediate), ld/st .b128 (ptxas takes .v2.b128 for sm_100 only), and predicated
writes in a divergent warp (the H200 goldens of the memory and atomic_sm90 families cover the
memory forms lane by lane)."""
import numpy as np

import ptxvm

PTX = """.version 8.4
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
 .reg .pred %p;
 .reg .b32 %r1;
 .reg .b64 %rd<8>;
 .reg .b128 %q<4>;
 ld.param.u64 %rd1, [p];
 cvta.to.global.u64 %rd1, %rd1;
 mov.u32 %r1, %tid.x;
 mul.wide.u32 %rd2, %r1, 64;
 add.u64 %rd1, %rd1, %rd2;
 ld.global.b128 %q0, [%rd1];
 mov.b128 %q1, 0x1234;
 setp.eq.u32 %p, %r1, 1;
 @%p mov.b128 %q1, %q0;
 ld.global.b128 %q2, [%rd1+16];
 ld.global.b128 %q3, [%rd1+32];
 mov.b128 {%rd3, %rd4}, %q2;
 mov.b128 %q2, {%rd4, %rd3};
 st.global.b128 [%rd1], %q1;
 st.global.b128 [%rd1+16], %q3;
 st.global.b128 [%rd1+32], %q2;
 ret;
}
"""


def test_b128_moves_loads_and_stores():
    a = np.arange(4 * 8, dtype=np.uint64)
    want = a.reshape(4, 8).copy()
    ptxvm.loads(PTX)["k"].launch(1, 4, [a])
    got = a.reshape(4, 8)
    for t in range(4):
        lo, hi = (want[t, 0], want[t, 1]) if t == 1 else (0x1234, 0)
        assert got[t, :2].tolist() == [lo, hi]
        assert got[t, 2:4].tolist() == want[t, 4:6].tolist()          # q3 first
        assert got[t, 4:6].tolist() == [want[t, 3], want[t, 2]]       # q2 with its halves swapped
        assert got[t, 6:].tolist() == want[t, 6:].tolist()
