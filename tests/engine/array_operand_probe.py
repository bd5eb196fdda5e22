"""Array elements as operands with a register index (`tab[%r]`, `tab[%rd+1]`, `sh[%r+-1]`; ISA
"Arrays as Operands"), shared by the GPU recorder (tools/device/probe_array_operands.py) and the
replay test (tests/engine/test_array_operands.py).

Kernel `probe`, one thread per input row: the index registers %i (.u32), %j (.u64, high word set)
and %h (.s16, negative) index a .global .u32 table, a .global .v4 .u32 table, a .const table,
a .global .b8 table and a .shared array; `mov.u64 a, tab[%i]` gives the element's address. Each
thread writes eight words. Kernel `wrap` indexes with %i = 0x40000000 + k: the byte offset
(%i * 4) wraps in 32 bits (ptxas 13.0 compiles `tab[%r]` to one 32-bit LEA), so it reads tab[k].
"""
import numpy as np

THREADS = 64
HEAD = """.version 8.0
.target sm_90
.address_size 64
.global .u32 tab[16] = {100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115};
.global .v4 .u32 vtab[16] = {{200, 201, 202, 203}, {204, 205, 206, 207}, {208, 209, 210, 211}, {212, 213, 214, 215}};
.const .u32 ctab[16] = {300, 301, 302, 303, 304, 305, 306, 307, 308, 309, 310, 311, 312, 313, 314, 315};
.global .b8 btab[20] = {40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59};
"""
PTX = HEAD + """
.visible .entry probe(.param .u64 inp, .param .u64 out)
{
  .reg .b32 %r<12>; .reg .b32 %i; .reg .b64 %j; .reg .s16 %h; .reg .b64 %rd<8>;
  .shared .u32 sh[64];
  ld.param.u64 %rd1, [inp]; ld.param.u64 %rd2, [out];
  mov.u32 %r0, %tid.x;
  mul.wide.u32 %rd3, %r0, 16; add.s64 %rd3, %rd1, %rd3;
  ld.global.u32 %i, [%rd3]; ld.global.s16 %h, [%rd3+4]; ld.global.u64 %j, [%rd3+8];
  ld.global.u32 %r1, tab[%i];
  ld.global.u32 %r2, tab[%j+1];
  ld.global.u32 %r3, vtab[%i];
  ld.global.u32 %r4, tab[%h+8];
  ld.const.u32 %r5, ctab[%i+2];
  ld.global.u8 %r6, btab[%i+3];
  st.shared.u32 sh[%r0], %r1;
  bar.sync 0;
  xor.b32 %r9, %r0, 1;
  ld.shared.u32 %r7, sh[%r9+-0];
  mov.u64 %rd4, tab[%i];
  mov.u64 %rd5, tab;
  sub.s64 %rd4, %rd4, %rd5;
  cvt.u32.u64 %r8, %rd4;
  mul.wide.u32 %rd6, %r0, 32; add.s64 %rd6, %rd2, %rd6;
  st.global.v4.u32 [%rd6], {%r1, %r2, %r3, %r4};
  st.global.v4.u32 [%rd6+16], {%r5, %r6, %r7, %r8};
  ret;
}

.visible .entry wrap(.param .u64 inp, .param .u64 out)
{
  .reg .b32 %r<4>; .reg .b32 %i; .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [inp]; ld.param.u64 %rd2, [out];
  mov.u32 %r0, %tid.x;
  mul.wide.u32 %rd3, %r0, 4; add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;
  ld.global.u32 %i, [%rd4];
  ld.global.u32 %r1, tab[%i];
  st.global.u32 [%rd5], %r1;
  ret;
}
"""


def probe_inputs() -> np.ndarray:
    """(THREADS, 4) u32 rows: %i in 0..12, %j = (%i + 1) mod 12 with its high word set (ptxas
    uses the low 32 bits), %h = -(t mod 8) as .s16 (sign-extended before the +8)."""
    t = np.arange(THREADS, dtype=np.uint64)
    i = t % 13
    j = ((t + 1) % 12) | ((t + 7) << np.uint64(32))
    h = (-(t.astype(np.int64) % 8)).astype(np.int16).view(np.uint16).astype(np.uint32)
    rows = np.zeros((THREADS, 4), np.uint32)
    rows[:, 0] = i
    rows[:, 1] = h | np.uint32(0xABCD0000)  # the half above the .s16 is not part of %h
    rows[:, 2] = (j & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    rows[:, 3] = (j >> np.uint64(32)).astype(np.uint32)
    return rows


def wrap_inputs() -> np.ndarray:
    return (np.uint32(0x40000000) + np.arange(32, dtype=np.uint32) % 16).astype(np.uint32)
