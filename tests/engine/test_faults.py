"""KernelFault: what a faulting kernel reports, and that the caller's arrays stay untouched."""
import numpy as np
import pytest

import ptxvm

HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n"

OOB = HEADER + """
.visible .entry oob(.param .u64 out, .param .u32 n)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd2, %rd2, %rd3;
    st.global.u32 [%rd2], %r1;
    ret;
}
"""


def test_out_of_bounds_store_names_kernel_thread_line_and_address():
    mod = ptxvm.loads(OOB, "oob.ptx")
    out = np.full(16, 7, dtype=np.uint32)
    with pytest.raises(ptxvm.KernelFault) as e:
        mod["oob"].launch(1, 32, [out, 16])
    f = e.value
    assert f.kernel == "oob"
    assert f.cta == (0, 0, 0)
    assert f.thread == (16, 0, 0)  # the first thread past the end of the 16-element array
    assert f.line == 14
    assert "out-of-bounds" in str(f) and "oob.ptx:14" in str(f)
    assert np.all(out == 7), "a faulting launch must leave host arrays as they were"


def test_misaligned_access_faults():
    src = HEADER + """
.visible .entry mis(.param .u64 out)
{
    .reg .b64 %rd<3>;
    .reg .b32 %r1;
    ld.param.u64 %rd1, [out];
    add.s64 %rd2, %rd1, 2;
    mov.u32 %r1, 5;
    st.global.u32 [%rd2], %r1;
    ret;
}
"""
    out = np.zeros(4, dtype=np.uint32)
    with pytest.raises(ptxvm.KernelFault, match="misaligned"):
        ptxvm.loads(src)["mis"].launch(1, 1, [out])


def test_trap_and_budget():
    src = HEADER + """
.visible .entry spin()
{
$L: bra.uni $L;
}
.visible .entry boom()
{
    trap;
}
"""
    mod = ptxvm.loads(src)
    with pytest.raises(ptxvm.KernelFault, match="budget"):
        mod["spin"].launch(1, 32, [], max_instructions=10_000)
    with pytest.raises(ptxvm.KernelFault, match="trap"):
        mod["boom"].launch(1, 1, [])


def test_barrier_deadlock_is_reported():
    src = HEADER + """
.visible .entry dl()
{
    .reg .b32 %r1;
    .reg .pred %p1;
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 bra $Lskip;
    bar.sync 0, 64;
$Lskip:
    ret;
}
"""
    with pytest.raises(ptxvm.KernelFault, match="deadlock"):
        ptxvm.loads(src)["dl"].launch(1, 64, [])


def test_wrong_argument_count_is_a_launch_error():
    mod = ptxvm.loads(OOB)
    with pytest.raises(ptxvm.LaunchError, match="takes 2 arguments"):
        mod["oob"].launch(1, 1, [np.zeros(4, np.uint32)])
    with pytest.raises(ptxvm.LaunchError, match="out of range"):
        mod["oob"].launch(1, 1, [np.zeros(4, np.uint32), -1])


def test_alloca_stacksave_stackrestore():
    src = HEADER + """
.visible .entry dyn(.param .u64 out)
{
    .reg .b64 %rd<8>;
    .reg .b32 %r<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    stacksave.u64 %rd2;
    alloca.u64 %rd3, 64, 16;
    st.local.u32 [%rd3], %r1;
    st.local.u32 [%rd3+60], %r1;
    alloca.u64 %rd4, 8;
    ld.local.u32 %r2, [%rd3+60];
    sub.s64 %rd5, %rd4, %rd3;
    stackrestore.u64 %rd2;
    alloca.u64 %rd6, 4;
    sub.s64 %rd7, %rd6, %rd3;
    mul.wide.u32 %rd6, %r1, 8;
    add.s64 %rd6, %rd1, %rd6;
    cvt.u32.u64 %r3, %rd5;
    st.global.v2.u32 [%rd6], {%r2, %r3};
    ret;
}
"""
    out = np.zeros(2 * 40, np.uint32)
    ptxvm.loads(src)["dyn"].launch(1, 40, [out])
    assert out[0::2].tolist() == list(range(40))  # each thread's own stack
    assert set(out[1::2].tolist()) == {2**32 - 8}  # the second block lies below the first: the stack grows down


def test_a_callee_allocas_are_freed_by_ret():
    """The stack pointer after a call is the one before it; a block allocated after the call
    sits where the callee's did, and stacksave - ptr is the block's size (the stack grows down)."""
    src = HEADER + """
.func (.param .b64 p) grab()
{
    .reg .b64 %q;
    alloca.u64 %q, 256;
    st.local.u32 [%q], 5;
    st.param.b64 [p], %q;
    ret;
}
.visible .entry k(.param .u64 out)
{
    .reg .b64 %rd<8>;
    .reg .b32 %r<4>;
    ld.param.u64 %rd1, [out];
    stacksave.u64 %rd2;
    {
    .param .b64 r;
    call (r), grab, ();
    ld.param.b64 %rd3, [r];
    }
    stacksave.u64 %rd4;
    alloca.u64 %rd5, 256;
    sub.s64 %rd6, %rd4, %rd2;
    sub.s64 %rd7, %rd5, %rd3;
    st.global.u64 [%rd1], %rd6;
    st.global.u64 [%rd1+8], %rd7;
    sub.s64 %rd6, %rd2, %rd5;
    st.global.u64 [%rd1+16], %rd6;
    ret;
}
"""
    out = np.full(3, 7, np.uint64)
    ptxvm.loads(src)["k"].launch(1, 1, [out])
    assert out.tolist() == [0, 0, 256]


def test_assertfail_raises_kernel_fault_with_the_message():
    src = HEADER + """
.extern .func __assertfail(.param .b64 message, .param .b64 file, .param .b32 line,
                           .param .b64 function, .param .b64 charSize);
.global .align 1 .b8 msg[7] = {120, 32, 62, 32, 48, 33, 0};
.global .align 1 .b8 src[5] = {107, 46, 99, 117, 0};
.global .align 1 .b8 fn[2] = {107, 0};
.visible .entry k(.param .u32 x)
{
    .reg .pred %p;
    .reg .b32 %r<2>;
    .reg .b64 %rd<4>;
    ld.param.u32 %r1, [x];
    setp.gt.s32 %p, %r1, 0;
    @%p bra $Lok;
    mov.u64 %rd1, msg;
    cvta.global.u64 %rd1, %rd1;
    mov.u64 %rd2, src;
    cvta.global.u64 %rd2, %rd2;
    mov.u64 %rd3, fn;
    cvta.global.u64 %rd3, %rd3;
    {
    .param .b64 p0;
    st.param.b64 [p0], %rd1;
    .param .b64 p1;
    st.param.b64 [p1], %rd2;
    .param .b32 p2;
    st.param.b32 [p2], 42;
    .param .b64 p3;
    st.param.b64 [p3], %rd3;
    .param .b64 p4;
    st.param.b64 [p4], 1;
    call.uni __assertfail, (p0, p1, p2, p3, p4);
    }
$Lok:
    ret;
}
"""
    mod = ptxvm.loads(src)
    mod["k"].launch(1, 4, [1])  # the assertion holds
    with pytest.raises(ptxvm.KernelFault, match=r"assertion `x > 0!` failed \(k.cu:42, k\)"):
        mod["k"].launch(1, 4, [0])
