"""Hand-written PTX kernels for asynchronous copies, mbarriers and clusters, with the outputs the
ISA says they produce (computed here with NumPy).

Used by tests/engine/test_async.py and test_clusters.py (on the CPU engine) and by
tools/device/probe_async.py (the same kernels on a GPU, to confirm the stated results). Depends on
NumPy only.

Each `Probe` has its PTX, launch shape (and cluster shape), arguments and `expect(inputs)`:
{argument index: expected array} for the outputs whose values the ISA fixes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

HEAD = """.version 8.0
.target sm_90
.address_size 64
"""


@dataclass
class Probe:
    name: str
    ptx: str
    kernel: str
    grid: tuple
    block: tuple
    args: list  # ("in", array) | ("out", dtype, count) | ("scalar", numpy scalar)
    expect: Callable[[list], dict]  # {arg index: expected values of the output's first elements}
    cluster: Optional[tuple] = None
    notes: str = ""
    engine_only: dict = field(default_factory=dict)  # outputs the engine fixes but the ISA does not

    def host_args(self):
        out = []
        for a in self.args:
            if a[0] == "in":
                out.append(np.array(a[1], copy=True))
            elif a[0] == "out":  # poisoned like the kernel cases (0xA5 in every byte)
                out.append(np.frombuffer(b"\xa5" * (a[2] * np.dtype(a[1]).itemsize), a[1]).copy())
            else:
                out.append(a[1])
        return out


def _rng(seed):
    return np.random.default_rng(seed)


# ---------------------------------------------------------------------------- cp.async

CP_ASYNC = HEAD + r"""
.visible .entry cp_async_sizes(.param .u64 pin, .param .u64 pout)
{
    .reg .b32 %r<20>;
    .reg .b64 %rd<12>;
    .reg .pred %p<4>;
    .shared .align 16 .b8 buf[1792];

    ld.param.u64 %rd1, [pin];
    ld.param.u64 %rd2, [pout];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %tid.x;
    mov.u32 %r3, buf;
    // 4-byte copies: buf[0, 256) = in bytes [0, 256)
    shl.b32 %r2, %r1, 2;
    add.u32 %r4, %r3, %r2;
    cvt.u64.u32 %rd3, %r2;
    add.u64 %rd4, %rd1, %rd3;
    cp.async.ca.shared.global [%r4], [%rd4], 4;
    // 16-byte copies of src-size = tid % 17 bytes, zero-filled: buf[256 + 16 tid]
    shl.b32 %r5, %r1, 4;
    add.u32 %r6, %r3, 256;
    add.u32 %r6, %r6, %r5;
    cvt.u64.u32 %rd5, %r5;
    add.u64 %rd6, %rd1, %rd5;
    add.u64 %rd6, %rd6, 1024;
    rem.u32 %r7, %r1, 17;
    cp.async.cg.shared.global [%r6], [%rd6], 16, %r7;
    cp.async.commit_group;
    // 8-byte copies, the source ignored on odd threads: buf[1280 + 8 tid]
    shl.b32 %r8, %r1, 3;
    add.u32 %r9, %r3, 1280;
    add.u32 %r9, %r9, %r8;
    cvt.u64.u32 %rd7, %r8;
    add.u64 %rd8, %rd1, %rd7;
    add.u64 %rd8, %rd8, 2048;
    and.b32 %r10, %r1, 1;
    setp.ne.u32 %p1, %r10, 0;
    cp.async.ca.shared.global [%r9], [%rd8], 8, %p1;
    cp.async.commit_group;
    cp.async.wait_group 1;
    cp.async.wait_all;
    bar.sync 0;
    // every thread copies words tid + 64 k of buf to out (other threads' copies)
    mov.u32 %r11, 0;
LOOP:
    shl.b32 %r12, %r11, 6;
    add.u32 %r12, %r12, %r1;
    shl.b32 %r13, %r12, 2;
    add.u32 %r14, %r3, %r13;
    ld.shared.u32 %r15, [%r14];
    cvt.u64.u32 %rd9, %r13;
    add.u64 %rd10, %rd2, %rd9;
    st.global.u32 [%rd10], %r15;
    add.u32 %r11, %r11, 1;
    setp.lt.u32 %p2, %r11, 7;
    @%p2 bra LOOP;
    ret;
}
"""


def _cp_async_expect(inputs):
    src = inputs[0].view(np.uint8)
    buf = np.zeros(1792, np.uint8)
    buf[:256] = src[:256]
    for t in range(64):
        k = t % 17
        buf[256 + 16 * t: 256 + 16 * t + k] = src[1024 + 16 * t: 1024 + 16 * t + k]
        if t % 2 == 0:
            buf[1280 + 8 * t: 1288 + 8 * t] = src[2048 + 8 * t: 2056 + 8 * t]
    return {1: buf.view(np.uint32)}


cp_async_sizes = Probe("cp_async_sizes", CP_ASYNC, "cp_async_sizes", 1, 64,
                       [("in", _rng(1).integers(0, 2**32, 640, dtype=np.uint32)), ("out", np.uint32, 448)],
                       _cp_async_expect)

# ---------------------------------------------------------------------------- mbarrier + bulk copy

BULK = HEAD + r"""
.visible .entry mbarrier_bulk_phases(.param .u64 pin, .param .u64 pout, .param .u64 pflags)
{
    .reg .b32 %r<20>;
    .reg .b64 %rd<20>;
    .reg .pred %p<8>;
    .shared .align 128 .b8 tile[1024];
    .shared .align 8 .b64 bar;
    .shared .align 8 .b64 bar2;

    ld.param.u64 %rd1, [pin];
    ld.param.u64 %rd2, [pout];
    ld.param.u64 %rd3, [pflags];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    cvta.to.global.u64 %rd3, %rd3;
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, 0;
    @!%p1 bra INITED;
    mbarrier.init.shared::cta.b64 [bar], 64;
    mbarrier.init.shared.b64 [bar2], 3;
    fence.mbarrier_init.release.cluster;
    fence.proxy.async.shared::cta;
INITED:
    bar.sync 0;
    // phase 0: thread 0 announces 512 bytes and issues the copy; everyone arrives
    @!%p1 bra ARRIVE0;
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd4, [bar], 512;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [tile], [%rd1], 512, [bar];
    bra.uni WAIT0;
ARRIVE0:
    mbarrier.arrive.shared::cta.b64 %rd4, [bar];
WAIT0:
    mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], 0;
    @!%p2 bra WAIT0;
    // out[tid], out[64 + tid] from the tile
    mov.u32 %r2, tile;
    shl.b32 %r3, %r1, 2;
    add.u32 %r4, %r2, %r3;
    ld.shared.u32 %r5, [%r4];
    ld.shared.u32 %r6, [%r4+256];
    cvt.u64.u32 %rd5, %r3;
    add.u64 %rd6, %rd2, %rd5;
    st.global.u32 [%rd6], %r5;
    st.global.u32 [%rd6+256], %r6;
    bar.sync 0;
    // phase 1: the copy completes before the expect-tx (tx-count goes negative for a while)
    @!%p1 bra ARRIVE1;
    add.u64 %rd7, %rd1, 512;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [tile+512], [%rd7], 512, [bar];
    mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], 512;
ARRIVE1:
    mbarrier.arrive.release.cta.shared::cta.b64 %rd8, [bar];
WAIT1:
    mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p3, [bar], 1, 1000;
    @!%p3 bra WAIT1;
    ld.shared.u32 %r5, [%r4+512];
    ld.shared.u32 %r6, [%r4+768];
    st.global.u32 [%rd6+512], %r5;
    st.global.u32 [%rd6+768], %r6;
    // the barrier is in phase 2 now: parity 1 (phase 1) is complete, parity 0 (phase 2) is not;
    // the phase-1 token of each thread is complete too
    mbarrier.test_wait.parity.shared::cta.b64 %p4, [bar], 1;
    mbarrier.test_wait.parity.shared::cta.b64 %p5, [bar], 0;
    mbarrier.test_wait.shared::cta.b64 %p6, [bar], %rd8;
    selp.u32 %r7, 1, 0, %p4;
    selp.u32 %r8, 2, 0, %p5;
    selp.u32 %r9, 4, 0, %p6;
    or.b32 %r7, %r7, %r8;
    or.b32 %r7, %r7, %r9;
    mul.wide.u32 %rd9, %r1, 4;
    add.u64 %rd10, %rd3, %rd9;
    st.global.u32 [%rd10], %r7;
    // a barrier of 3 arrivals: thread 0 arrives with count 2 (not completing), then once more
    @!%p1 bra DONE;
    mbarrier.arrive.shared.b64 %rd11, [bar2], 2;
    mbarrier.pending_count.b64 %r10, %rd11;
    mbarrier.test_wait.shared.b64 %p7, [bar2], %rd11;
    selp.u32 %r11, 1, 0, %p7;
    mbarrier.arrive.shared.b64 %rd12, [bar2];
    mbarrier.pending_count.b64 %r12, %rd12;
    mbarrier.test_wait.shared.b64 %p7, [bar2], %rd12;
    selp.u32 %r13, 1, 0, %p7;
    st.global.u32 [%rd3+256], %r10;
    st.global.u32 [%rd3+260], %r11;
    st.global.u32 [%rd3+264], %r12;
    st.global.u32 [%rd3+268], %r13;
    mbarrier.inval.shared.b64 [bar2];
DONE:
    ret;
}
"""


def _bulk_expect(inputs):  # flags[64:68] are not fixed by the ISA: see engine_only
    return {1: inputs[0].view(np.uint32).copy(), 2: np.full(64, 1 | 4, np.uint32)}


mbarrier_bulk_phases = Probe(
    "mbarrier_bulk_phases", BULK, "mbarrier_bulk_phases", 1, 64,
    [("in", _rng(2).integers(0, 2**32, 256, dtype=np.uint32)), ("out", np.uint32, 256), ("out", np.uint32, 68)],
    _bulk_expect,
    notes="flags[64..67]: pending_count of the tokens (before each arrive) and test_wait of them",
    engine_only={"pending_counts": (3, 0, 1, 1)})

# ---------------------------------------------------------------------------- spin between warps

SPIN = HEAD + r"""
.visible .entry mbarrier_spin(.param .u64 pout, .param .u32 pn)
{
    .reg .b32 %r<20>;
    .reg .b64 %rd<8>;
    .reg .pred %p<6>;
    .shared .align 8 .b64 bar;
    .shared .align 4 .u32 total;

    ld.param.u64 %rd1, [pout];
    ld.param.u32 %r9, [pn];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, 0;
    @!%p1 bra INITED;
    mbarrier.init.shared.b64 [bar], 32;
INITED:
    bar.sync 0;
    setp.lt.u32 %p2, %r1, 32;
    @%p2 bra PRODUCER;
    // warp 1 spins (sleeping) until warp 0 has arrived
SPIN:
    mbarrier.try_wait.parity.shared.b64 %p3, [bar], 0;
    @%p3 bra CONSUME;
    nanosleep.u32 100;
    bra.uni SPIN;
CONSUME:
    ld.shared.u32 %r2, [total];
    add.u32 %r2, %r2, %r1;
    bra.uni STORE;
PRODUCER:
    // warp 0 sums 1..n in a loop first, then thread 0 publishes it and the warp arrives
    mov.u32 %r3, 0;
    mov.u32 %r4, 1;
SUM:
    add.u32 %r3, %r3, %r4;
    add.u32 %r4, %r4, 1;
    setp.le.u32 %p4, %r4, %r9;
    @%p4 bra SUM;
    @%p1 st.shared.u32 [total], %r3;
    mbarrier.arrive.release.cta.shared::cta.b64 _, [bar];
    mov.u32 %r2, %r1;
STORE:
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    griddepcontrol.launch_dependents;
    griddepcontrol.wait;
    ret;
}
"""


def _spin_expect(inputs):
    n = int(inputs[1])
    t = np.arange(64, dtype=np.uint32)
    return {0: np.where(t < 32, t, t + np.uint32(n * (n + 1) // 2)).astype(np.uint32)}


mbarrier_spin = Probe("mbarrier_spin", SPIN, "mbarrier_spin", 1, 64,
                      [("out", np.uint32, 64), ("scalar", np.uint32(300))], _spin_expect)

# ---------------------------------------------------------------------------- cp.async + mbarrier

CP_MBAR = HEAD + r"""
.visible .entry cp_async_mbarrier(.param .u64 pin, .param .u64 pout)
{
    .reg .b32 %r<20>;
    .reg .b64 %rd<8>;
    .reg .pred %p<4>;
    .shared .align 4 .b8 buf[256];
    .shared .align 8 .b64 bar;
    .shared .align 8 .b64 bar2;

    ld.param.u64 %rd1, [pin];
    ld.param.u64 %rd2, [pout];
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, 0;
    @!%p1 bra INITED;
    mbarrier.init.shared.b64 [bar], 64;
    mbarrier.init.shared.b64 [bar2], 64;
INITED:
    bar.sync 0;
    shl.b32 %r2, %r1, 2;
    mov.u32 %r3, buf;
    add.u32 %r4, %r3, %r2;
    cvt.u64.u32 %rd3, %r2;
    add.u64 %rd4, %rd1, %rd3;
    cp.async.ca.shared.global [%r4], [%rd4], 4;
    // .noinc: the asynchronous arrive-on is one of the 64 expected arrivals
    cp.async.mbarrier.arrive.noinc.shared.b64 [bar];
    // without .noinc the pending count is raised first: the thread still arrives itself
    cp.async.mbarrier.arrive.shared::cta.b64 [bar2];
    mbarrier.arrive.shared.b64 %rd5, [bar2];
WAIT:
    mbarrier.test_wait.parity.shared.b64 %p2, [bar], 0;
    @!%p2 bra WAIT;
WAIT2:
    mbarrier.test_wait.shared.b64 %p3, [bar2], %rd5;
    @!%p3 bra WAIT2;
    // the neighbour's word
    add.u32 %r5, %r1, 1;
    and.b32 %r5, %r5, 63;
    shl.b32 %r5, %r5, 2;
    add.u32 %r6, %r3, %r5;
    ld.shared.u32 %r7, [%r6];
    add.u64 %rd6, %rd2, %rd3;
    st.u32 [%rd6], %r7;
    ret;
}
"""

cp_async_mbarrier = Probe("cp_async_mbarrier", CP_MBAR, "cp_async_mbarrier", 2, 64,
                          [("in", _rng(3).integers(0, 2**32, 64, dtype=np.uint32)), ("out", np.uint32, 64)],
                          lambda inp: {1: np.roll(inp[0], -1)})

# ---------------------------------------------------------------------------- bulk reductions

REDUCE = HEAD + r"""
.visible .entry bulk_reduce(.param .u64 pacc, .param .u64 pmin, .param .u64 phalf, .param .u64 pcopy)
{
    .reg .b32 %r<20>;
    .reg .b16 %h<4>;
    .reg .b64 %rd<12>;
    .reg .pred %p<4>;
    .shared .align 16 .b8 sm[512];

    ld.param.u64 %rd1, [pacc];
    ld.param.u64 %rd2, [pmin];
    ld.param.u64 %rd3, [phalf];
    ld.param.u64 %rd4, [pcopy];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    cvta.to.global.u64 %rd3, %rd3;
    cvta.to.global.u64 %rd4, %rd4;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, sm;
    // sm[0, 256): s32 (cta + 1) * (tid - 32); sm[256, 384): u32 tid * 7 + 100 * cta mod 97 ...
    add.u32 %r4, %r2, 1;
    sub.s32 %r5, %r1, 32;
    mul.lo.s32 %r6, %r4, %r5;
    shl.b32 %r7, %r1, 2;
    add.u32 %r8, %r3, %r7;
    st.shared.u32 [%r8], %r6;
    setp.lt.u32 %p1, %r1, 32;
    @!%p1 bra HALF;
    mul.lo.u32 %r9, %r2, 37;
    add.u32 %r9, %r9, %r1;
    rem.u32 %r9, %r9, 11;
    st.shared.u32 [%r8+256], %r9;
HALF:
    // sm[384, 512): f16 (tid + cta) / 4 for tid < 64
    add.u32 %r10, %r1, %r2;
    cvt.rn.f32.u32 %f1, %r10;
    mul.f32 %f1, %f1, 0f3E800000;
    cvt.rn.f16.f32 %h1, %f1;
    shl.b32 %r11, %r1, 1;
    add.u32 %r12, %r3, %r11;
    st.shared.b16 [%r12+384], %h1;
    fence.proxy.async.shared::cta;
    bar.sync 0;
    setp.eq.u32 %p2, %r1, 0;
    @!%p2 bra DONE;
    cp.reduce.async.bulk.global.shared::cta.bulk_group.add.s32 [%rd1], [sm], 256;
    add.u32 %r13, %r3, 256;
    cp.reduce.async.bulk.global.shared::cta.bulk_group.min.u32 [%rd2], [%r13], 128;
    add.u32 %r14, %r3, 384;
    cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f16 [%rd3], [%r14], 128;
    cp.async.bulk.commit_group;
    // CTA 0 also copies its shared words to global
    setp.eq.u32 %p3, %r2, 0;
    @%p3 cp.async.bulk.global.shared::cta.bulk_group [%rd4], [sm], 256;
    cp.async.bulk.commit_group;
    cp.async.bulk.prefetch.L2.global [%rd1], 256;
    cp.async.bulk.wait_group.read 0;
    cp.async.bulk.wait_group 0;
DONE:
    ret;
}
"""
REDUCE = REDUCE.replace(".reg .pred %p<4>;", ".reg .pred %p<4>;\n    .reg .f32 %f<4>;")


def _reduce_expect(inputs):
    acc, mn, hf = (np.array(x, copy=True) for x in inputs[:3])
    t = np.arange(64)
    for c in range(3):
        acc = (acc.astype(np.int64) + (c + 1) * (t - 32)).astype(np.int32)
        mn = np.minimum(mn, ((c * 37 + np.arange(32)) % 11).astype(np.uint32))
        hf = (hf.astype(np.float32) + ((t + c) / 4).astype(np.float32)).astype(np.float16)
    copy = (1 * (t - 32)).astype(np.int32)
    return {0: acc, 1: mn, 2: hf, 3: copy}


bulk_reduce = Probe("bulk_reduce", REDUCE, "bulk_reduce", 3, 64,
                    [("in", _rng(4).integers(-1000, 1000, 64).astype(np.int32)),
                     ("in", _rng(5).integers(3, 20, 32).astype(np.uint32)),
                     ("in", _rng(6).integers(-8, 8, 64).astype(np.float16)),
                     ("out", np.int32, 64)],
                    _reduce_expect, notes="small integers and quarters: every f16 sum is exact in any order")

# ---------------------------------------------------------------------------- clusters

CLUSTER_REGS = HEAD + r"""
.visible .entry cluster_regs(.param .u64 pout)
{
    .reg .b32 %r<20>;
    .reg .b64 %rd<8>;
    .reg .pred %p<2>;

    ld.param.u64 %rd1, [pout];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ctaid.y;
    mov.u32 %r3, %nctaid.x;
    mad.lo.u32 %r4, %r2, %r3, %r1;
    mov.u32 %r5, %tid.x;
    mov.u32 %r6, %ntid.x;
    mad.lo.u32 %r7, %r4, %r6, %r5;
    mul.lo.u32 %r7, %r7, 12;
    mul.wide.u32 %rd2, %r7, 4;
    add.u64 %rd3, %rd1, %rd2;
    mov.u32 %r8, %clusterid.x;
    st.global.u32 [%rd3], %r8;
    mov.u32 %r8, %clusterid.y;
    st.global.u32 [%rd3+4], %r8;
    mov.u32 %r8, %nclusterid.x;
    st.global.u32 [%rd3+8], %r8;
    mov.u32 %r8, %nclusterid.y;
    st.global.u32 [%rd3+12], %r8;
    mov.u32 %r8, %cluster_ctaid.x;
    st.global.u32 [%rd3+16], %r8;
    mov.u32 %r8, %cluster_ctaid.y;
    st.global.u32 [%rd3+20], %r8;
    mov.u32 %r8, %cluster_nctaid.x;
    st.global.u32 [%rd3+24], %r8;
    mov.u32 %r8, %cluster_nctaid.y;
    st.global.u32 [%rd3+28], %r8;
    mov.u32 %r8, %cluster_ctarank;
    st.global.u32 [%rd3+32], %r8;
    mov.u32 %r8, %cluster_nctarank;
    st.global.u32 [%rd3+36], %r8;
    mov.pred %p1, %is_explicit_cluster;
    selp.u32 %r8, 1, 0, %p1;
    st.global.u32 [%rd3+40], %r8;
    mov.u32 %r8, %cluster_nctaid.z;
    st.global.u32 [%rd3+44], %r8;
    ret;
}
"""


def cluster_regs_expect(grid, block, cluster, explicit):
    gx, gy = grid
    cx, cy = cluster
    rows = []
    for y in range(gy):
        for x in range(gx):
            for t in range(block):
                rows.append([x // cx, y // cy, gx // cx, gy // cy, x % cx, y % cy, cx, cy,
                             (x % cx) + (y % cy) * cx, cx * cy, int(explicit), 1])
    return np.array(rows, np.uint32).reshape(-1)


cluster_regs = Probe("cluster_regs", CLUSTER_REGS, "cluster_regs", (4, 2, 1), 32, [("out", np.uint32, 8 * 32 * 12)],
                     lambda inp: {0: cluster_regs_expect((4, 2), 32, (2, 2), True)}, cluster=(2, 2, 1))

HIST = HEAD + r"""
.visible .entry dsmem_histogram(.param .u64 pin, .param .u64 phist, .param .u32 pn)
.explicitcluster
.reqnctapercluster 4, 1, 1
{
    .reg .b32 %r<24>;
    .reg .b64 %rd<8>;
    .reg .pred %p<4>;
    .shared .align 4 .b8 bins[64];

    ld.param.u64 %rd1, [pin];
    ld.param.u64 %rd2, [phist];
    ld.param.u32 %r20, [pn];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, bins;
    setp.lt.u32 %p1, %r1, 16;
    shl.b32 %r3, %r1, 2;
    add.u32 %r4, %r2, %r3;
    mov.u32 %r5, 0;
    @%p1 st.shared.u32 [%r4], %r5;
    barrier.cluster.arrive.aligned;
    barrier.cluster.wait.aligned;
    // bin v = in[gid] & 63 lives in CTA v / 16 of the cluster, at word v % 16
    mov.u32 %r6, %ctaid.x;
    mov.u32 %r7, %ntid.x;
    mad.lo.u32 %r8, %r6, %r7, %r1;
    setp.ge.u32 %p2, %r8, %r20;
    @%p2 bra SYNC;
    mul.wide.u32 %rd3, %r8, 4;
    add.u64 %rd4, %rd1, %rd3;
    ld.global.u32 %r9, [%rd4];
    and.b32 %r9, %r9, 63;
    shr.u32 %r10, %r9, 4;
    and.b32 %r11, %r9, 15;
    shl.b32 %r11, %r11, 2;
    add.u32 %r12, %r2, %r11;
    mapa.shared::cluster.u32 %r13, %r12, %r10;
    red.shared::cluster.add.u32 [%r13], 1;
SYNC:
    barrier.cluster.arrive.release.aligned;
    barrier.cluster.wait.acquire.aligned;
    @!%p1 bra DONE;
    mov.u32 %r14, %clusterid.x;
    mov.u32 %r15, %cluster_ctarank;
    shl.b32 %r16, %r14, 6;
    shl.b32 %r17, %r15, 4;
    add.u32 %r16, %r16, %r17;
    add.u32 %r16, %r16, %r1;
    ld.shared.u32 %r18, [%r4];
    mul.wide.u32 %rd5, %r16, 4;
    add.u64 %rd6, %rd2, %rd5;
    st.global.u32 [%rd6], %r18;
DONE:
    ret;
}
"""


def _hist_expect(inputs):
    data, n = inputs[0], int(inputs[2])
    hist = np.zeros((2, 64), np.uint32)
    for gid in range(n):
        hist[gid // 256, data[gid] & 63] += 1
    return {1: hist.reshape(-1)}


dsmem_histogram = Probe("dsmem_histogram", HIST, "dsmem_histogram", 8, 64,
                        [("in", _rng(7).integers(0, 2**31, 500).astype(np.uint32)), ("out", np.uint32, 128),
                         ("scalar", np.uint32(500))], _hist_expect)

REMOTE = HEAD + r"""
.visible .entry remote_mbarrier(.param .u64 pout, .param .u64 pinfo)
.reqnctapercluster 2, 1, 1
{
    .reg .b32 %r<24>;
    .reg .b64 %rd<16>;
    .reg .pred %p<8>;
    .shared .align 8 .b64 bar;
    .shared .align 4 .b8 vals[128];

    ld.param.u64 %rd1, [pout];
    ld.param.u64 %rd2, [pinfo];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %cluster_ctarank;
    mov.u32 %r3, %clusterid.x;
    setp.eq.u32 %p1, %r2, 0;
    setp.eq.u32 %p2, %r1, 0;
    and.pred %p3, %p1, %p2;
    @%p3 mbarrier.init.shared::cta.b64 [bar], 32;
    fence.mbarrier_init.release.cluster;
    barrier.cluster.arrive.relaxed.aligned;
    barrier.cluster.wait.aligned;
    @%p1 bra CONSUMER;
    // rank 1: write into rank 0's vals, then arrive on rank 0's barrier
    mov.u32 %r4, vals;
    shl.b32 %r5, %r1, 2;
    add.u32 %r6, %r4, %r5;
    mov.u32 %r7, 0;
    mapa.shared::cluster.u32 %r8, %r6, %r7;
    mad.lo.u32 %r9, %r3, 1000, %r1;
    mul.lo.u32 %r9, %r9, 3;
    st.shared::cluster.u32 [%r8], %r9;
    mov.u32 %r10, bar;
    mapa.shared::cluster.u32 %r11, %r10, %r7;
    mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r11];
    // where the addresses point
    getctarank.shared::cluster.u32 %r12, %r8;
    getctarank.shared::cluster.u32 %r13, %r6;
    cvt.u64.u32 %rd9, %r6;
    cvta.shared.u64 %rd3, %rd9;
    mapa.u64 %rd4, %rd3, %r7;
    getctarank.u64 %r14, %rd4;
    isspacep.shared::cluster %p4, %rd4;
    isspacep.shared::cta %p5, %rd4;
    isspacep.shared %p6, %rd3;
    selp.u32 %r15, 1, 0, %p4;
    selp.u32 %r16, 2, 0, %p5;
    selp.u32 %r17, 4, 0, %p6;
    or.b32 %r15, %r15, %r16;
    or.b32 %r15, %r15, %r17;
    mad.lo.u32 %r18, %r3, 32, %r1;
    mul.lo.u32 %r18, %r18, 16;
    cvt.u64.u32 %rd5, %r18;
    add.u64 %rd6, %rd2, %rd5;
    st.global.v4.u32 [%rd6], {%r12, %r13, %r14, %r15};
    bra.uni END;
CONSUMER:
    mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p7, [bar], 0;
    @!%p7 bra CONSUMER;
    mov.u32 %r4, vals;
    shl.b32 %r5, %r1, 2;
    add.u32 %r6, %r4, %r5;
    ld.shared.u32 %r9, [%r6];
    mad.lo.u32 %r18, %r3, 32, %r1;
    mul.wide.u32 %rd7, %r18, 4;
    add.u64 %rd8, %rd1, %rd7;
    st.global.u32 [%rd8], %r9;
END:
    barrier.cluster.arrive;
    barrier.cluster.wait;
    ret;
}
"""


def _remote_expect(inputs):
    out = np.array([(c * 1000 + t) * 3 for c in range(3) for t in range(32)], np.uint32)
    info = np.array([[0, 1, 0, 1 | 4] for _ in range(3) for _ in range(32)], np.uint32).reshape(-1)
    return {0: out, 1: info}


remote_mbarrier = Probe("remote_mbarrier", REMOTE, "remote_mbarrier", 6, 32,
                        [("out", np.uint32, 96), ("out", np.uint32, 96 * 4)], _remote_expect)

ALL = [cp_async_sizes, mbarrier_bulk_phases, mbarrier_spin, cp_async_mbarrier, bulk_reduce, cluster_regs,
       dsmem_histogram, remote_mbarrier]
