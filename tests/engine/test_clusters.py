"""Thread block clusters on the CPU engine: launch shapes, cluster special registers, distributed
shared memory (mapa, getctarank, isspacep, ld/st/red .shared::cluster, bulk copies and reductions
into another CTA, remote mbarrier arrivals) and barrier.cluster.

cluster_regs (a 2x2x1 cluster launch) was also run on an H200 by tools/device/probe_async.py and
gave the values stated here; the corpus kernels cluster_pair_sum, cluster_histogram and
cluster_info are replayed against GPU goldens in tests/kernels/test_advanced_replay.py.
"""
from __future__ import annotations

import numpy as np
import pytest

import async_cases as A
import ptxvm
from ptxvm.engine import launch as L
from ptxvm.errors import KernelFault, LaunchError
from test_async import check_probe, run_probe


def test_cluster_registers_of_a_2x2_cluster_launch():
    check_probe(A.cluster_regs)


def test_cluster_registers_without_clusters_are_one_cta_clusters():
    mod = ptxvm.loads(A.CLUSTER_REGS)
    out = np.zeros(8 * 32 * 12, np.uint32)
    mod["cluster_regs"].launch((4, 2), 32, [out])
    assert np.array_equal(out, A.cluster_regs_expect((4, 2), 32, (1, 1), False))


def test_cluster_registers_of_a_launch_time_4x1_cluster():
    mod = ptxvm.loads(A.CLUSTER_REGS)
    out = np.zeros(8 * 32 * 12, np.uint32)
    mod["cluster_regs"].launch((4, 2), 32, [out], cluster=(4, 1, 1))
    assert np.array_equal(out, A.cluster_regs_expect((4, 2), 32, (4, 1), True))


def test_histogram_in_distributed_shared_memory():
    check_probe(A.dsmem_histogram)  # cluster shape from .reqnctapercluster 4, 1, 1


def test_remote_mbarrier_arrive_and_cluster_addresses():
    check_probe(A.remote_mbarrier)


def test_waves_hold_whole_clusters(monkeypatch):
    """With room for 3 CTAs per wave, clusters of 2 run one cluster per wave."""
    monkeypatch.setattr(L, "SMS", 1)
    monkeypatch.setattr(L, "CTAS_PER_SM", 3)
    p = A.remote_mbarrier
    mod = ptxvm.loads(p.ptx)
    args = p.host_args()
    stats = mod[p.kernel].launch(p.grid, p.block, args)
    assert stats.waves == 3
    for i, want in p.expect([]).items():
        assert np.array_equal(args[i], want)


def test_clusters_in_y_are_ordered_cluster_by_cluster():
    order = L.cluster_ops.cta_order((4, 4, 1), (2, 2, 1))
    # cluster (0, 0) holds CTAs (0,0) (1,0) (0,1) (1,1): linear ids 0 1 4 5, in rank order
    assert order[:8].tolist() == [0, 1, 4, 5, 2, 3, 6, 7]
    assert sorted(order.tolist()) == list(range(16))


# ---------------------------------------------------------------------------- launch checks


def test_launch_shapes_that_cuda_refuses():
    hist = ptxvm.loads(A.HIST)["dsmem_histogram"]
    regs = ptxvm.loads(A.CLUSTER_REGS)["cluster_regs"]
    data, out = np.zeros(8, np.uint32), np.zeros(128, np.uint32)
    with pytest.raises(LaunchError, match="requires clusters"):
        hist.launch(8, 64, [data, out, np.uint32(0)], cluster=(2, 1, 1))
    hist.launch(8, 64, [data, out, np.uint32(0)], cluster=(4, 1, 1))  # the same shape is fine
    with pytest.raises(LaunchError, match="not a multiple"):
        hist.launch(6, 64, [data, out, np.uint32(0)])
    with pytest.raises(LaunchError, match="exceeds the limit"):
        regs.launch((32, 1), 32, [np.zeros(32 * 32 * 12, np.uint32)], cluster=(32, 1, 1))
    explicit = ptxvm.loads(A.CLUSTER_REGS.replace("(.param .u64 pout)", "(.param .u64 pout)\n.explicitcluster\n.maxclusterrank 2"))
    with pytest.raises(LaunchError, match="explicitcluster"):
        explicit["cluster_regs"].launch(4, 32, [np.zeros(4 * 32 * 12, np.uint32)])
    with pytest.raises(LaunchError, match="maxclusterrank"):
        explicit["cluster_regs"].launch(4, 32, [np.zeros(4 * 32 * 12, np.uint32)], cluster=4)


# ---------------------------------------------------------------------------- DSMEM and barrier.cluster

DSMEM_BULK = A.HEAD + r"""
.visible .entry dsmem_bulk(.param .u64 pin, .param .u64 pout)
.reqnctapercluster 2, 1, 1
{
    .reg .b32 %r<24>;
    .reg .b16 %rs<2>;
    .reg .b64 %rd<12>;
    .reg .pred %p<6>;
    .shared .align 16 .b8 src[128];
    .shared .align 16 .b8 dst[128];
    .shared .align 16 .b8 red[128];
    .shared .align 16 .b8 mc[128];
    .shared .align 8 .b64 bar;

    ld.param.u64 %rd1, [pin];
    ld.param.u64 %rd2, [pout];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %cluster_ctarank;
    shl.b32 %r3, %r1, 2;
    mad.lo.u32 %r4, %r2, 1000, %r1;
    mov.u32 %r5, src;
    add.u32 %r6, %r5, %r3;
    st.shared.u32 [%r6], %r4;
    mov.u32 %r7, red;
    add.u32 %r8, %r7, %r3;
    mov.u32 %r9, 1;
    st.shared.u32 [%r8], %r9;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 mbarrier.init.shared.b64 [bar], 1;
    fence.mbarrier_init.release.cluster;
    fence.proxy.async.shared::cta;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    @!%p1 bra WAIT;
    // three transfers land in each CTA: the peer's copy, the peer's reduction, the multicast
    mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 384;
    xor.b32 %r10, %r2, 1;
    mov.u32 %r11, dst;
    mapa.shared::cluster.u32 %r12, %r11, %r10;
    mov.u32 %r13, bar;
    mapa.shared::cluster.u32 %r14, %r13, %r10;
    cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r12], [src], 128, [%r14];
    mapa.shared::cluster.u32 %r15, %r7, %r10;
    cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32 [%r15], [src], 128, [%r14];
    setp.eq.u32 %p2, %r2, 0;
    mov.u16 %rs1, 3;
    @%p2 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [mc], [%rd1], 128, [bar], %rs1;
WAIT:
    mbarrier.try_wait.parity.shared.b64 %p3, [bar], 0;
    @!%p3 bra WAIT;
    mov.u32 %r16, dst;
    add.u32 %r16, %r16, %r3;
    ld.shared.u32 %r17, [%r16];
    ld.shared.u32 %r18, [%r8];
    mov.u32 %r19, mc;
    add.u32 %r19, %r19, %r3;
    ld.shared.u32 %r20, [%r19];
    mad.lo.u32 %r21, %r2, 32, %r1;
    mul.wide.u32 %rd3, %r21, 16;
    add.u64 %rd4, %rd2, %rd3;
    st.global.v4.u32 [%rd4], {%r17, %r18, %r20, %r2};
    barrier.cluster.arrive;
    barrier.cluster.wait;
    ret;
}
"""


def test_bulk_copy_reduction_and_multicast_into_the_cluster():
    data = np.arange(32, dtype=np.uint32) * 7 + 3
    out = np.zeros(2 * 32 * 4, np.uint32)
    ptxvm.loads(DSMEM_BULK)["dsmem_bulk"].launch(2, 32, [data, out])
    out = out.reshape(2, 32, 4)
    t = np.arange(32)
    for r in range(2):
        peer = (r ^ 1) * 1000 + t
        assert out[r, :, 0].tolist() == peer.tolist()  # the peer's src, copied here
        assert out[r, :, 1].tolist() == (peer + 1).tolist()  # 1 + the peer's src
        assert out[r, :, 2].tolist() == data.tolist()  # multicast from global to both CTAs
        assert out[r, :, 3].tolist() == [r] * 32


EXITING = A.HEAD + r"""
.visible .entry exiting(.param .u64 pout)
.reqnctapercluster 2, 1, 1
{
    .reg .b32 %r<20>;
    .reg .b64 %rd<8>;
    .reg .pred %p<4>;
    .shared .align 4 .b8 vals[128];

    ld.param.u64 %rd1, [pout];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %cluster_ctarank;
    setp.ge.u32 %p1, %r1, 32;
    @!%p1 bra MAIN;
    // threads 32..63 keep busy for a while and exit without ever arriving
    mov.u32 %r3, 0;
LOOP:
    add.u32 %r3, %r3, 1;
    setp.lt.u32 %p2, %r3, 40;
    @%p2 bra LOOP;
    ret;
MAIN:
    shl.b32 %r4, %r1, 2;
    mov.u32 %r5, vals;
    add.u32 %r6, %r5, %r4;
    mad.lo.u32 %r7, %r2, 100, %r1;
    st.shared.u32 [%r6], %r7;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    xor.b32 %r8, %r2, 1;
    mapa.shared::cluster.u32 %r9, %r6, %r8;
    ld.shared::cluster.u32 %r10, [%r9];
    barrier.cluster.arrive;
    barrier.cluster.wait;
    mov.u32 %r12, %ctaid.x;
    mad.lo.u32 %r11, %r12, 32, %r1;
    mul.wide.u32 %rd2, %r11, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r10;
    ret;
}
"""


def test_cluster_barrier_stops_counting_threads_that_exit():
    out = np.zeros(64 * 2, np.uint32)
    ptxvm.loads(EXITING)["exiting"].launch(4, 64, [out])
    t = np.arange(32)
    want = np.concatenate([100 + t, t, 100 + t, t])
    assert out.tolist() == want.tolist()


def test_a_rank_outside_the_cluster_faults():
    ptx = A.HEAD + r"""
.visible .entry bad(.param .u64 pout)
{
    .reg .b32 %r<8>;
    .shared .align 4 .b8 vals[16];
    mov.u32 %r1, vals;
    mov.u32 %r2, 2;
    mapa.shared::cluster.u32 %r3, %r1, %r2;
    ld.shared::cluster.u32 %r4, [%r3];
    ret;
}
"""
    with pytest.raises(KernelFault, match="outside the cluster of 2"):
        ptxvm.loads(ptx)["bad"].launch(2, 1, [np.zeros(1, np.uint32)], cluster=2)


ST_ASYNC = A.HEAD.replace(".version 8.0", ".version 8.1") + r"""
.visible .entry st_async(.param .u64 pout)
.reqnctapercluster 2, 1, 1
{
    .reg .b32 %r<24>;
    .reg .b64 %rd<8>;
    .reg .pred %p<4>;
    .shared .align 8 .b8 pairs[256];
    .shared .align 4 .u32 total;
    .shared .align 8 .b64 bar;

    ld.param.u64 %rd1, [pout];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %cluster_ctarank;
    setp.eq.u32 %p1, %r1, 0;
    setp.eq.u32 %p2, %r2, 0;
    @%p1 mbarrier.init.shared.b64 [bar], 1;
    mov.u32 %r3, 0;
    @%p1 st.shared.u32 [total], %r3;
    fence.mbarrier_init.release.cluster;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    @%p2 bra CONSUMER;
    // rank 1: two words per thread and a sum into rank 0, each completing on rank 0's barrier
    mov.u32 %r4, 0;
    shl.b32 %r5, %r1, 3;
    mov.u32 %r6, pairs;
    add.u32 %r6, %r6, %r5;
    mapa.shared::cluster.u32 %r7, %r6, %r4;
    mov.u32 %r8, bar;
    mapa.shared::cluster.u32 %r9, %r8, %r4;
    mov.u32 %r10, total;
    mapa.shared::cluster.u32 %r11, %r10, %r4;
    mul.lo.u32 %r12, %r1, %r1;
    add.u32 %r13, %r1, 7;
    st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.u32 [%r7], {%r12, %r13}, [%r9];
    red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r11], %r1, [%r9];
    bra.uni END;
CONSUMER:
    @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 384;
WAIT:
    mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p3, [bar], 0;
    @!%p3 bra WAIT;
    shl.b32 %r5, %r1, 3;
    mov.u32 %r6, pairs;
    add.u32 %r6, %r6, %r5;
    ld.shared.v2.u32 {%r14, %r15}, [%r6];
    ld.shared.u32 %r16, [total];
    mul.wide.u32 %rd2, %r1, 12;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r14;
    st.global.u32 [%rd3+4], %r15;
    st.global.u32 [%rd3+8], %r16;
END:
    barrier.cluster.arrive;
    barrier.cluster.wait;
    ret;
}
"""


def test_st_async_and_red_async_complete_on_the_remote_mbarrier():
    out = np.zeros(32 * 3, np.uint32)
    ptxvm.loads(ST_ASYNC)["st_async"].launch(2, 32, [out])
    t = np.arange(32)
    assert out.reshape(32, 3).tolist() == np.stack([t * t, t + 7, np.full(32, t.sum())], axis=1).tolist()


def test_only_ctas_runs_whole_clusters():
    """A sampled launch (only_ctas, as a profile's) runs each listed CTA with its whole cluster, so
    what the CTA reads from its partners' shared memory is what the full launch reads."""
    mod = ptxvm.loads(A.CLUSTER_REGS)
    full = np.zeros(8 * 32 * 12, np.uint32)
    mod["cluster_regs"].launch((4, 2), 32, [full], cluster=(2, 2, 1))
    part = np.zeros_like(full)
    stats = mod["cluster_regs"].launch((4, 2), 32, [part], cluster=(2, 2, 1), only_ctas=[5])
    assert stats.ctas == 4  # CTA 5 = (1, 1) and the rest of its 2x2 cluster: 0, 1, 4
    ran = np.zeros(8, bool)
    ran[[0, 1, 4, 5]] = True
    per_cta = 32 * 12
    for c in range(8):
        got, want = part[c * per_cta:(c + 1) * per_cta], full[c * per_cta:(c + 1) * per_cta]
        assert np.array_equal(got, want) if ran[c] else not got.any()
