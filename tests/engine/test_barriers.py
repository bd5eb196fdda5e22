"""CTA barriers: named barriers with thread counts, arrive/sync producer-consumer, bar.red."""
import numpy as np

import ptxvm

HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n"


def test_bar_red_popc_and_or():
    src = HEADER + """
.visible .entry red(.param .u64 out)
{
    .reg .pred %p<4>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 3;
    setp.eq.u32 %p1, %r2, 0;
    bar.red.popc.u32 %r3, 0, %p1;
    setp.lt.u32 %p2, %r1, 1000;
    bar.red.and.pred %p3, 1, %p2;
    selp.u32 %r4, 1, 0, %p3;
    setp.eq.u32 %p2, %r1, 77;
    bar.red.or.pred %p3, 2, %p2;
    selp.u32 %r5, 1, 0, %p3;
    mov.u32 %r6, %ctaid.x;
    mad.lo.u32 %r7, %r6, 96, %r1;
    mul.wide.u32 %rd2, %r7, 12;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    st.global.u32 [%rd3+4], %r4;
    st.global.u32 [%rd3+8], %r5;
    ret;
}
"""
    out = np.zeros((2 * 96, 3), np.uint32)
    ptxvm.loads(src)["red"].launch(2, 96, [out])
    assert (out[:, 0] == 24).all()  # 96 threads, every fourth predicate true
    assert (out[:, 1] == 1).all()
    assert (out[:, 2] == 1).all()  # thread 77 exists in each CTA


def test_named_barrier_producer_consumer_with_counts():
    # warp 0 produces into shared memory and signals with bar.arrive; warp 1 waits with
    # bar.sync on the same named barrier (count 64: both warps), then reads.
    src = HEADER + """
.visible .entry pc(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .shared .align 4 .b32 buf[32];
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    setp.ge.u32 %p1, %r1, 32;
    @%p1 bra $Lconsumer;
    mul.lo.u32 %r2, %r1, %r1;
    shl.b32 %r3, %r1, 2;
    mov.u32 %r4, buf;
    add.u32 %r4, %r4, %r3;
    st.shared.u32 [%r4], %r2;
    bar.arrive 3, 64;
    bra.uni $Ldone;
$Lconsumer:
    bar.sync 3, 64;
    sub.u32 %r5, %r1, 32;
    shl.b32 %r3, %r5, 2;
    mov.u32 %r4, buf;
    add.u32 %r4, %r4, %r3;
    ld.shared.u32 %r6, [%r4];
    mul.wide.u32 %rd2, %r5, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r6;
$Ldone:
    ret;
}
"""
    out = np.zeros(32, np.uint32)
    ptxvm.loads(src)["pc"].launch(1, 64, [out])
    assert out.tolist() == [i * i for i in range(32)]


def test_bar_red_results_differ_per_cta_in_one_wave():
    """Forty CTAs of one wave reduce different predicates at the same barrier: each CTA gets its
    own popc/and/or (the release completes every CTA's barrier in one pass over the wave)."""
    src = HEADER + """
.visible .entry red(.param .u64 out)
{
    .reg .pred %p<4>;
    .reg .b32 %r<10>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r6, %ctaid.x;
    setp.lt.u32 %p1, %r1, %r6;
    bar.red.popc.u32 %r3, 3, %p1;
    bar.red.and.pred %p3, 5, %p1;
    selp.u32 %r4, 1, 0, %p3;
    bar.red.or.pred %p3, 5, %p1;
    selp.u32 %r5, 1, 0, %p3;
    mad.lo.u32 %r7, %r6, 64, %r1;
    mul.wide.u32 %rd2, %r7, 12;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    st.global.u32 [%rd3+4], %r4;
    st.global.u32 [%rd3+8], %r5;
    ret;
}
"""
    ctas = 70
    out = np.zeros((ctas, 64, 3), np.uint32)
    ptxvm.loads(src)["red"].launch(ctas, 64, [out], workers=1)
    c = np.arange(ctas)[:, None]
    assert (out[:, :, 0] == np.minimum(c, 64)).all()
    assert (out[:, :, 1] == (c >= 64)).all()
    assert (out[:, :, 2] == (c > 0)).all()
