"""Asynchronous copies (cp.async, cp.async.bulk, cp.reduce.async.bulk), mbarriers, nanosleep and
griddepcontrol on the CPU engine.

The kernels of async_cases.py state their results; tools/device/probe_async.py ran the same
kernels on an H200 and they matched there too (cp_async_sizes, mbarrier_bulk_phases including the
pending counts, mbarrier_spin, cp_async_mbarrier, bulk_reduce).
"""
from __future__ import annotations

import numpy as np
import pytest

import async_cases as A
import ptxvm
from ptxvm.engine.async_copy import mbarrier as MB
from ptxvm.errors import KernelFault

# the verifier (ptxvm.check) does not yet take a predicate for cp.async's ignore-src operand,
# which ptxas accepts (ISA 9.7.9.25.3.1 example `cp.async.ca.shared.global [shrd], [gbl], 4, p;`)
UNVERIFIED = {"cp_async_sizes"}


def run_probe(p, **launch):
    mod = ptxvm.loads(p.ptx, f"{p.name}.ptx", verify=p.name not in UNVERIFIED)
    args = p.host_args()
    inputs = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]
    mod[p.kernel].launch(p.grid, p.block, args, cluster=p.cluster, max_instructions=10**7, **launch)
    return inputs, args


def check_probe(p):
    inputs, args = run_probe(p)
    for i, want in p.expect(inputs).items():
        want = np.asarray(want).reshape(-1)
        got = args[i].reshape(-1)[: want.size]
        assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), (p.name, i, got[:8], want[:8])
    return args


# ---------------------------------------------------------------------------- kernels


def test_cp_async_sizes_src_size_zero_fill_and_ignore_src():
    check_probe(A.cp_async_sizes)


def test_mbarrier_phases_with_bulk_copies_and_expect_tx():
    args = check_probe(A.mbarrier_bulk_phases)
    # tokens of a 3-arrival barrier: arrive(2) captures pending 3 (phase not complete), arrive(1)
    # captures pending 1 and completes the phase; the H200 gives the same
    assert args[2][64:68].tolist() == list(A.mbarrier_bulk_phases.engine_only["pending_counts"])


def test_try_wait_spin_with_nanosleep_lets_the_producer_warp_run():
    check_probe(A.mbarrier_spin)


def test_cp_async_mbarrier_arrive_noinc_and_inc():
    check_probe(A.cp_async_mbarrier)


def test_bulk_reductions_and_bulk_copy_to_global():
    check_probe(A.bulk_reduce)


# ---------------------------------------------------------------------------- small kernels

HEAD = A.HEAD


def _kernel(body, params=".param .u64 pout", decls=""):
    return HEAD + f"""
.visible .entry k({params})
{{
    .reg .b32 %r<20>;
    .reg .b64 %rd<20>;
    .reg .pred %p<8>;
    {decls}
{body}
}}
"""


def test_cp_async_src_size_zero_reads_nothing():
    """src-size 0 copies only zeros: the source address is never touched (here: null)."""
    ptx = _kernel("""
    ld.param.u64 %rd1, [pout];
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 4;
    mov.u32 %r3, buf;
    add.u32 %r4, %r3, %r2;
    st.shared.v4.u32 [%r4], {%r1, %r1, %r1, %r1};
    mov.u64 %rd2, 0;
    mov.u32 %r5, 0;
    cp.async.cg.shared.global [%r4], [%rd2], 16, %r5;
    cp.async.wait_all;
    ld.shared.v4.u32 {%r6, %r7, %r8, %r9}, [%r4];
    add.u32 %r6, %r6, %r7;
    add.u32 %r6, %r6, %r8;
    add.u32 %r6, %r6, %r9;
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd4, %rd1, %rd3;
    st.global.u32 [%rd4], %r6;
    ret;""", decls=".shared .align 16 .b8 buf[512];")
    out = np.full(32, 7, np.uint32)
    ptxvm.loads(ptx)["k"].launch(1, 32, [out])
    assert out.tolist() == [0] * 32


def test_cp_async_faults_name_the_bad_source():
    ptx = _kernel("""
    ld.param.u64 %rd1, [pout];
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 3;
    mov.u32 %r3, buf;
    add.u32 %r3, %r3, %r2;
    setp.eq.u32 %p1, %r1, 2;
    selp.u64 %rd3, 4096, 0, %p1;
    add.u64 %rd2, %rd1, %rd3;
    cp.async.ca.shared.global [%r3], [%rd2], 8, 4;
    ret;""", decls=".shared .align 16 .b8 buf[64];")
    out = np.zeros(4, np.uint32)
    with pytest.raises(KernelFault, match="out-of-bounds global") as e:
        ptxvm.loads(ptx)["k"].launch(1, 4, [out])
    assert e.value.site.thread == (2, 0, 0)


def test_bulk_copy_needs_16_byte_sizes():
    ptx = _kernel("""
    ld.param.u64 %rd1, [pout];
    mov.u32 %r1, bar;
    mbarrier.init.shared.b64 [%r1], 1;
    mov.u32 %r2, 24;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [tile], [%rd1], %r2, [bar];
    ret;""", decls=".shared .align 16 .b8 tile[64];\n    .shared .align 8 .b64 bar;")
    out = np.zeros(16, np.uint32)
    with pytest.raises(KernelFault, match="multiple of 16"):
        ptxvm.loads(ptx)["k"].launch(1, 1, [out])


def test_mbarrier_arrive_beyond_pending_count_is_reported():
    ptx = _kernel("""
    mov.u32 %r1, bar;
    mbarrier.init.shared.b64 [%r1], 2;
    mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r1], 16;
    mbarrier.arrive.shared.b64 %rd1, [%r1], 2;
    mbarrier.arrive.shared.b64 %rd1, [%r1];
    ret;""", decls=".shared .align 8 .b64 bar;")
    with pytest.raises(KernelFault, match="exceeds the pending arrival count"):
        ptxvm.loads(ptx)["k"].launch(1, 1, [np.zeros(1, np.uint64)])


def test_arrive_drop_lowers_the_expected_count_of_later_phases():
    """Thread 0 drops out in phase 0; phase 1 then completes with the 31 others alone."""
    ptx = _kernel("""
    ld.param.u64 %rd1, [pout];
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 mbarrier.init.shared.b64 [bar], 32;
    bar.sync 0;
    @%p1 bra DROP;
    mbarrier.arrive.shared.b64 %rd2, [bar];
W0: mbarrier.test_wait.parity.shared.b64 %p2, [bar], 0;
    @!%p2 bra W0;
    mbarrier.arrive.shared.b64 %rd3, [bar];
W1: mbarrier.test_wait.parity.shared.b64 %p3, [bar], 1;
    @!%p3 bra W1;
    mbarrier.pending_count.b64 %r2, %rd3;
    bra.uni OUT;
DROP:
    mbarrier.arrive_drop.shared.b64 %rd2, [bar];
    mov.u32 %r2, 99;
OUT:
    mul.wide.u32 %rd4, %r1, 4;
    add.u64 %rd5, %rd1, %rd4;
    st.global.u32 [%rd5], %r2;
    ret;""", decls=".shared .align 8 .b64 bar;")
    out = np.zeros(32, np.uint32)
    ptxvm.loads(ptx)["k"].launch(1, 32, [out])
    assert out[0] == 99
    # in phase 1 the pending count before each arrival counts down from 31 (lane order here)
    assert sorted(out[1:].tolist()) == list(range(1, 32))


def test_nanosleep_griddepcontrol_and_proxy_fences_change_no_data():
    ptx = _kernel("""
    ld.param.u64 %rd1, [pout];
    mov.u32 %r1, %tid.x;
    nanosleep.u32 1000;
    griddepcontrol.wait;
    fence.proxy.async;
    fence.proxy.async.global;
    fence.proxy.async.shared::cta;
    fence.mbarrier_init.release.cluster;
    griddepcontrol.launch_dependents;
    setp.lt.u32 %p1, %r1, 5;
    @%p1 nanosleep.u32 %r1;
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r1;
    ret;""")
    out = np.zeros(64, np.uint32)
    ptxvm.loads(ptx)["k"].launch(1, 64, [out])
    assert out.tolist() == list(range(64))


def test_spin_on_a_flag_with_nanosleep_only_terminates():
    """Lane 0 waits for lane 31 of its own warp through shared memory, sleeping in the loop."""
    ptx = _kernel("""
    ld.param.u64 %rd1, [pout];
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, 0;
    @!%p1 bra WORK;
SPIN:
    ld.volatile.shared.u32 %r2, [flag];
    setp.eq.u32 %p2, %r2, 0;
    @!%p2 bra DONE;
    nanosleep.u32 20;
    bra.uni SPIN;
WORK:
    setp.eq.u32 %p3, %r1, 31;
    mov.u32 %r3, 5;
    @%p3 st.volatile.shared.u32 [flag], %r3;
    mov.u32 %r2, 1;
DONE:
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;""", decls=".shared .align 4 .u32 flag;")
    out = np.zeros(32, np.uint32)
    ptxvm.loads(ptx)["k"].launch(1, 32, [out], max_instructions=10**6)
    assert out.tolist() == [5] + [1] * 31


# ---------------------------------------------------------------------------- the state machine


def _fresh(count):
    v = np.zeros(1, np.uint64)
    MB.init(v, np.array([0]), count)
    return v


def test_mbarrier_word_round_trips_and_init():
    v = _fresh(5)
    assert [int(x) for x in MB.unpack(v[0])] == [0, 5, 5, 0]
    w = MB.pack(7, 3, 9, -12345)
    assert [int(x) for x in MB.unpack(w)] == [7, 3, 9, -12345]
    with pytest.raises(MB.MbarrierError):
        MB.init(v, np.array([0]), 0)
    with pytest.raises(MB.MbarrierError):
        MB.init(v, np.array([0]), 1 << 20)


def test_phase_completes_only_when_arrivals_and_tx_count_are_both_zero():
    v = _fresh(2)
    idx = np.array([0])
    MB.update(v, idx, expect_tx=64)
    MB.update(v, np.array([0, 0]), arrive=1)
    assert [int(x) for x in MB.unpack(v[0])] == [0, 0, 2, 64]  # arrivals done, 64 bytes pending
    MB.update(v, idx, complete_tx=48)
    assert int(MB.phase_of(v[0])) == 0
    MB.update(v, idx, complete_tx=16)
    assert [int(x) for x in MB.unpack(v[0])] == [1, 2, 2, 0]  # next phase: pending reloaded


def test_complete_tx_before_expect_tx_goes_negative_and_completes_at_the_expect():
    v = _fresh(1)
    idx = np.array([0])
    MB.update(v, idx, complete_tx=32)
    MB.update(v, idx, arrive=1)
    assert [int(x) for x in MB.unpack(v[0])] == [0, 0, 1, -32]
    MB.update(v, idx, expect_tx=32)
    assert [int(x) for x in MB.unpack(v[0])] == [1, 1, 1, 0]


def test_tokens_and_parity():
    v = _fresh(3)
    tokens = MB.update(v, np.array([0, 0, 0]), arrive=1)
    assert MB.pending_count(tokens).tolist() == [3, 2, 1]
    assert MB.phase_done(v[0], tokens).all()  # the tokens' phase 0 has completed
    assert bool(MB.parity_done(v[0], 0)) and not bool(MB.parity_done(v[0], 1))
    t2 = MB.update(v, np.array([0]), arrive=2)
    assert not MB.phase_done(v[0], t2).any()
    MB.update(v, np.array([0]), arrive=1)
    assert MB.phase_done(v[0], t2).all() and bool(MB.parity_done(v[0], 1))


def test_many_arrivals_on_one_object_may_complete_several_phases_in_lane_order():
    v = _fresh(2)
    tokens = MB.update(v, np.zeros(5, np.intp), arrive=1)
    assert MB.phase_of(tokens).tolist() == [0, 0, 1, 1, 2]
    assert MB.pending_count(tokens).tolist() == [2, 1, 2, 1, 2]
    assert [int(x) for x in MB.unpack(v[0])] == [2, 1, 2, 0]


def test_no_complete_arrival_that_would_complete_is_reported():
    v = _fresh(2)
    MB.update(v, np.array([0]), arrive=1, no_complete=True)
    with pytest.raises(MB.MbarrierError, match="noComplete"):
        MB.update(v, np.array([0]), arrive=1, no_complete=True)


def test_arrive_drop():
    v = _fresh(4)
    MB.update(v, np.array([0]), arrive=1, drop=True)
    assert [int(x) for x in MB.unpack(v[0])] == [0, 3, 3, 0]
    MB.update(v, np.array([0, 0, 0]), arrive=1)
    assert [int(x) for x in MB.unpack(v[0])] == [1, 3, 3, 0]


def test_tx_count_range_is_checked():
    v = _fresh(1)
    MB.update(v, np.array([0]), expect_tx=MB.TX_MAX)
    with pytest.raises(MB.MbarrierError, match="tx-count"):
        MB.update(v, np.array([0]), expect_tx=1)


def test_mbarrier_through_generic_addresses():
    ptx = _kernel("""
    ld.param.u64 %rd1, [pout];
    mov.u32 %r1, %tid.x;
    mov.u64 %rd2, bar;
    cvta.shared.u64 %rd3, %rd2;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 mbarrier.init.b64 [%rd3], 64;
    bar.sync 0;
    mbarrier.arrive.b64 %rd4, [%rd3];
W:  mbarrier.test_wait.b64 %p2, [%rd3], %rd4;
    @!%p2 bra W;
    mbarrier.try_wait.parity.b64 %p3, [%rd3], 0;
    selp.u32 %r2, 1, 0, %p3;
    ld.u64 %rd5, [%rd3];
    mbarrier.arrive.b64 %rd6, [%rd3];
    mbarrier.pending_count.b64 %r3, %rd6;
    mul.wide.u32 %rd7, %r1, 4;
    add.u64 %rd8, %rd1, %rd7;
    add.u32 %r2, %r2, %r3;
    st.global.u32 [%rd8], %r2;
    ret;""", decls=".shared .align 8 .b64 bar;")
    out = np.zeros(64, np.uint32)
    ptxvm.loads(ptx)["k"].launch(1, 64, [out])
    # the second arrivals (phase 1) see pending counts 64 .. 1 before them, plus the parity bit
    assert sorted(out.tolist()) == [1 + k for k in range(1, 65)]


@pytest.mark.parametrize("seed", range(6))
def test_complete_tx_of_many_lanes_is_lane_by_lane(seed):
    """MB.update's all-objects-at-once complete-tx (bulk copies issued by every thread:
    cuda::memcpy_async with a cuda::barrier) leaves the words and returns the tokens that the
    lane-by-lane rule does: phases that complete at the last lane, ones that would complete
    mid-group (the general path takes those), out-of-range tx-counts."""
    rng = np.random.default_rng(seed)
    for _ in range(40):
        objects = int(rng.integers(1, 4))
        words = MB.pack(rng.integers(0, 4, objects), rng.integers(0, 3, objects), 3,
                        rng.integers(0, 200, objects))
        n = int(rng.integers(2, 12))
        idx = rng.integers(0, objects, n)
        tx = rng.choice([0, 16, 32, 64], n)
        fast, slow = words.copy(), words.copy()
        try:
            got = MB.update(fast, idx, complete_tx=tx)
        except MB.MbarrierError:
            got = None
        want = np.empty(n, words.dtype)
        try:
            for i in range(n):  # the general path, one lane per call
                want[i] = MB.update(slow, idx[i:i + 1], complete_tx=tx[i:i + 1])[0]
        except MB.MbarrierError:
            want = None
        if want is None:
            assert got is None
            continue
        assert got is not None and got.tolist() == want.tolist() and fast.tolist() == slow.tolist()


BULK_PER_THREAD = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 in, .param .u64 out, .param .u32 skew)
{
    .shared .align 16 .b8 buf[4096];
    .shared .align 8 .b64 bar;
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    .reg .pred %p;
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p, %r1, 0;
    @%p bra READY;
    mbarrier.init.shared.b64 [bar], 256;
READY:
    bar.sync 0;
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    ld.param.u32 %r2, [skew];
    mul.wide.u32 %rd3, %r1, 16;
    add.s64 %rd4, %rd1, %rd3;
    setp.eq.u32 %p, %r1, 77;
    @%p cvt.u64.u32 %rd7, %r2;
    @%p add.s64 %rd4, %rd4, %rd7;
    mov.u32 %r3, buf;
    cvt.u32.u64 %r4, %rd3;
    add.u32 %r3, %r3, %r4;
    mov.u32 %r5, bar;
    mbarrier.arrive.expect_tx.shared.b64 _, [%r5], 16;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd4], 16, [%r5];
WAIT:
    mbarrier.try_wait.parity.shared.b64 %p, [%r5], 0;
    @!%p bra WAIT;
    ld.shared.v4.u32 {%r4, %r5, %r6, %r7}, [%r3];
    add.s64 %rd5, %rd2, %rd3;
    st.global.v4.u32 [%rd5], {%r4, %r5, %r6, %r7};
    ret;
}
"""


def test_bulk_copies_issued_by_every_thread():
    """One 16-byte cp.async.bulk per thread, all on one mbarrier (what cuda::memcpy_async with a
    cuda::barrier compiles to on sm_90): every thread's bytes land (all of a warp's copies run at
    once, engine/async_copy/copies.py _copy_all), and a misaligned source faults naming its thread."""
    k = ptxvm.loads(BULK_PER_THREAD, "bulk_per_thread.ptx").kernel("k")
    x = np.arange(1024, dtype=np.uint32)
    out = np.zeros(1024, np.uint32)
    k[1, 256](x, out, np.uint32(0))
    np.testing.assert_array_equal(out, x)
    with pytest.raises(ptxvm.KernelFault, match=r"not 16-byte aligned.*thread \(77, 0, 0\)"):
        k[1, 256](x, np.zeros(1024, np.uint32), np.uint32(4))
