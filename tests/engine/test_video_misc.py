"""Video instructions through the parser, verifier and engine (operand selectors), and the
miscellaneous brkpt / pmevent / %pm0..%pm7."""
import numpy as np
import pytest

import ptxvm

HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n"


def run_line(line, a, b, c):
    src = HEADER + """.visible .entry k(.param .u64 p)
{
    .reg .b32 %r<5>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [p];
    mov.u32 %r4, %tid.x;
    mul.wide.u32 %rd2, %r4, 16;
    add.s64 %rd1, %rd1, %rd2;
    ld.global.u32 %r1, [%rd1];
    ld.global.u32 %r2, [%rd1+4];
    ld.global.u32 %r3, [%rd1+8];
    """ + line + """
    st.global.u32 [%rd1+12], %r0;
    ret;
}"""
    buf = np.zeros((len(a), 4), np.uint32)
    buf[:, 0], buf[:, 1], buf[:, 2] = a, b, c
    ptxvm.loads(src)["k"].launch(1, len(a), [buf])
    return [int(x) for x in buf[:, 3]]


A = [0xFFFEFDFC, 5, 0x80]
B = [0x01020304, 9, 0x7F]
C = [0xAABBCCDD, 1, 2]


@pytest.mark.parametrize("line,want", [
    ("vadd.u32.u32.u32 %r0, %r1, %r2;", [0x01010100, 14, 0xFF]),
    ("vabsdiff4.u32.u32.u32 %r0, %r1, %r2, %r3;", [0xFEFCFAF8, 4, 1]),
    # a.b0 = -4, b.b3 = 1: -3 saturated to s8, merged into byte 1 of c
    ("vadd.s32.s32.s32 %r0.b1, %r1.b0, %r2.b3, %r3;", [0xAABBFDDD, 0x0501, 0x8002]),
    ("vmin2.s32.s32.s32.add %r0.h0, %r1.h32, %r2, %r3;", [0xAABBCFE1, 10, 0x81]),
    ("vset.u32.u32.lt.add %r0, %r1.b3, %r2.b0, %r3;", [0xAABBCCDD, 2, 3]),
    ("vmad.u32.u32.u32 %r0, %r1.h0, %r2.b1, %r3;", [(0xFDFC * 3 + 0xAABBCCDD) & 0xFFFFFFFF, 1, 2]),
])
def test_video_selectors_through_the_engine(line, want):
    assert run_line(line, A, B, C) == want


def test_selector_rules_are_checked():
    bad = HEADER + """.visible .entry k()
{
    .reg .b32 %r<4>;
    vadd.u32.u32.u32 %r0, %r1.b4, %r2, %r3;
    ret;
}"""
    with pytest.raises(ptxvm.PtxVerifyError):
        ptxvm.loads(bad)
    merge_without_c = HEADER + """.visible .entry k()
{
    .reg .b32 %r<4>;
    vadd.u32.u32.u32 %r0.b1, %r1, %r2;
    ret;
}"""
    with pytest.raises(ptxvm.PtxVerifyError, match="merge selector d.dsel needs a third operand c"):
        ptxvm.loads(merge_without_c)
    # c with neither .op2 nor d.dsel: ptxas accepts it and the H200 ignores c (test_hw_gaps.py, *_c)
    c_alone = HEADER + """.visible .entry k()
{
    .reg .b32 %r<4>;
    vadd.u32.u32.u32.sat %r0, %r1, %r2, %r3;
    ret;
}"""
    ptxvm.loads(c_alone)


PM = HEADER + """.visible .entry k(.param .u64 p)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<3>;
    .reg .pred %p;
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %pm3;
    pmevent 3;
    setp.lt.u32 %p, %r1, 10;
    @%p pmevent.mask 0x5;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd1, %rd1, %rd2;
    st.global.u32 [%rd1], %r2;
    ret;
}"""


def test_pmevent_is_counted_and_pm_registers_read_zero():
    out = np.ones(32, np.uint32)
    stats = ptxvm.loads(PM)["k"].launch(2, 32, [out])
    assert stats.pm_events == 2 * 32 + 2 * 10 * 2  # every thread once; 10 a CTA signal two events
    assert out.tolist() == [0] * 32


BRK = HEADER + """.visible .entry b()
{
    .reg .b32 %r1;
    .reg .pred %p;
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p, %r1, 5;
    @%p brkpt;
    ret;
}"""


def test_brkpt_stops_the_launch_naming_thread_and_line():
    with pytest.raises(ptxvm.KernelFault) as e:
        ptxvm.loads(BRK)["b"].launch(1, 32, [])
    msg = str(e.value)
    assert "breakpoint (brkpt) reached" in msg and "thread (5, 0, 0)" in msg and ":10" in msg
