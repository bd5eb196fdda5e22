"""Clusters in the timing model: distributed shared memory (a shared access whose address names
another CTA of the cluster) and barrier.cluster (sm.py SmSim.cluster_barrier). Kernels:
benchmarks/timing/micro2/cluster.cu (its PTX, cluster.ptx) and crafted PTX. Expectations are
relative to the model's parameters (no GPU timings are asserted)."""
import math
from pathlib import Path

import numpy as np
import pytest

import ptxvm
from ptxvm.engine.trace.info import cluster_barrier_role
from ptxvm.timing import load_gpu
from ptxvm.timing.params import DEFAULT
from ptxvm.timing.trace import DSMEM_OWN, DSMEM_REMOTE, _dsmem_kind

GPU = load_gpu("h200")
CLUSTER_PTX = Path(__file__).resolve().parents[2] / "benchmarks" / "timing" / "micro2" / "cluster.ptx"
DYN = 120 * 1024  # one CTA per SM, as the microbenchmark ran


@pytest.fixture(scope="module")
def micro():
    return ptxvm.loads(CLUSTER_PTX.read_text(), name=str(CLUSTER_PTX))


def _chase(micro, cl: int, target: int, kind: int = 0) -> float:
    """Cycles per step of rank 0's one-thread chain through CTA `target`'s shared memory."""
    out = np.zeros(3 * 16, np.int64)
    c = [micro[f"chase{cl}"].profile(cl, 32, [np.int32(target), np.int32(kind), np.int32(n), out],
                                     shared_mem=DYN).sm_cycles for n in (8, 24)]
    return (c[1] - c[0]) / 16


def _bar(micro, cl: int, warps: int, kind: int) -> float:
    """Cycles per round of barrier.cluster arrive + wait (kind 0; 1: .relaxed) or bar.sync (2)."""
    out = np.zeros(3 * 16, np.int64)
    c = [micro[f"bar{cl}"].profile(cl, 32 * warps, [np.int32(kind), np.int32(n), out], shared_mem=DYN).sm_cycles
         for n in (8, 24)]
    return (c[1] - c[0]) / 16


def test_cluster_barrier_roles():
    assert cluster_barrier_role("barrier", ("cluster", "arrive")) == "arrive"
    assert cluster_barrier_role("barrier", ("cluster", "arrive", "release")) == "arrive"
    assert cluster_barrier_role("barrier", ("cluster", "arrive", "relaxed", "aligned")) == "arrive_relaxed"
    assert cluster_barrier_role("barrier", ("cluster", "wait", "aligned")) == "wait"
    assert cluster_barrier_role("barrier", ("sync",)) == ""
    assert cluster_barrier_role("bar", ("sync",)) == ""


def test_a_shared_address_is_remote_when_its_rank_bits_name_another_cta():
    act = np.ones((4, 32), bool)
    addr = np.zeros((4, 32), np.uint64)
    addr[0] = 64  # the own .shared::cta window: no cluster window, plain shared memory
    addr[1] = (np.uint64(1) << np.uint64(24)) | np.uint64(64)  # rank 0 through the cluster window
    addr[2] = (np.uint64(2) << np.uint64(24)) | np.uint64(64)  # rank 1
    addr[3, :16] = (np.uint64(1) << np.uint64(24))  # half the lanes own, half rank 1
    addr[3, 16:] = (np.uint64(2) << np.uint64(24))
    ranks = np.array([0, 0, 0, 0])
    kind = _dsmem_kind(addr, act, ranks, np.arange(4))
    assert kind.tolist() == [0, DSMEM_OWN, DSMEM_REMOTE, DSMEM_REMOTE]
    # the same addresses seen from rank 1: rank 1's window is its own, rank 0's remote
    kind = _dsmem_kind(addr, act, np.array([1, 1, 1, 1]), np.arange(4))
    assert kind.tolist() == [0, DSMEM_REMOTE, DSMEM_OWN, DSMEM_REMOTE]
    # inactive lanes do not count; no cluster window at all: None (a plain shared access)
    act[3, 16:] = False
    assert _dsmem_kind(addr, act, ranks, np.arange(4))[3] == DSMEM_OWN
    assert _dsmem_kind(addr[:1], act[:1], ranks[:1], np.arange(1)) is None
    # ... unless the instruction is a .shared::cluster one: a generic access in SASS, own CTA or not
    assert _dsmem_kind(addr[:1], act[:1], ranks[:1], np.arange(1), cluster_instr=True).tolist() == [DSMEM_OWN]


def test_shared_cluster_instructions_are_marked():
    src = CLUSTER_PTX.read_text()
    mod = ptxvm.loads(src, name=str(CLUSTER_PTX))
    code = mod.program.code
    from ptxvm.engine.trace.info import describe

    infos = [describe(op, pc) for pc, op in enumerate(code) if op is not None]
    cl = [i for i in infos if i.mem is not None and i.mem.cluster]
    assert cl and all(i.mem.space == "shared" for i in cl)
    assert any(i.mem is not None and i.mem.space == "shared" and not i.mem.cluster for i in infos)  # ld.shared::cta


def test_trace_knows_each_warps_cluster_rank(micro):
    from ptxvm.engine.trace.events import Tracer

    out = np.zeros(3 * 16, np.int64)
    tracer = Tracer(micro.program, 32)
    micro["chase4"].launch(8, 32, [np.int32(1), np.int32(0), np.int32(4), out], shared_mem=DYN, tracer=tracer)
    tr = tracer.trace
    cta, _, _ = tr.warps()
    assert tr.cluster_size == 4
    assert (tr.ranks() == cta % 4).all()


def test_remote_shared_memory_costs_the_network_latency(micro):
    own_cta = _chase(micro, 4, -1)
    own_window = _chase(micro, 4, 0)
    remote = _chase(micro, 4, 1)
    far = _chase(micro, 4, 3)
    # the same chain: only the latency of each access differs (micro2 cluster chase)
    assert own_window - own_cta == pytest.approx(DEFAULT.dsmem_own_latency - GPU.latency["shared"], abs=1.5)
    assert remote - own_window == pytest.approx(DEFAULT.dsmem_latency - DEFAULT.dsmem_own_latency, abs=1.5)
    assert far == pytest.approx(remote, abs=0.5)  # rank distance does not matter (measured: 207.5-212.5)
    atom = _chase(micro, 4, 1, kind=1)
    assert atom - remote == pytest.approx(DEFAULT.dsmem_atomic_latency - DEFAULT.dsmem_latency, abs=1.5)


def test_remote_loads_wait_on_the_long_scoreboard(micro):
    out = np.zeros(3 * 16, np.int64)
    args = [np.int32(1), np.int32(0), np.int32(24), out]
    remote = micro["chase2"].profile(2, 32, args, shared_mem=DYN)
    args[0] = np.int32(-1)
    local = micro["chase2"].profile(2, 32, args, shared_mem=DYN)
    assert remote.stalls["memory_dependency"] > 20 * local.stalls.get("memory_dependency", 0) + 1000
    assert remote.stalls["memory_dependency"] > remote.stalls["execution_dependency"]


def test_remote_requests_pass_the_data_stage_per_line_not_the_banks(micro):
    # 32 warps per CTA reading the next rank's shared memory, 4 B per lane coalesced: one 128-B
    # line per request, against one bank wavefront per request of the own CTA's .shared::cta
    out = np.zeros(3 * 16, np.int64)
    prof = {mode: micro["stream1_2"].profile(2, 1024, [np.int32(mode), np.int32(0), np.int32(4), out],
                                              shared_mem=DYN) for mode in (0, 2)}
    streamed = 4 * 4 * 32  # 4 iterations of 4 loads by 32 warps (SM 0 runs rank 0)
    assert prof[0].bank_conflicts["remote_requests"] == 0
    assert prof[2].bank_conflicts["remote_requests"] == streamed
    # ... and they are no longer own-bank requests (what is left: the buffer's fill)
    assert prof[2].bank_conflicts["requests"] == prof[0].bank_conflicts["requests"] - streamed
    assert prof[2].sm_cycles > prof[0].sm_cycles


def test_cluster_barrier_costs_more_than_bar_sync_and_grows_with_the_cluster(micro):
    for warps in (1, 8):
        bar = _bar(micro, 2, warps, 2)
        relaxed = _bar(micro, 2, warps, 1)
        extra = DEFAULT.cluster_barrier_cycles + DEFAULT.cluster_barrier_per_doubling * math.log2(2)
        # arrive + wait are two instructions where bar.sync is one: a cycle or two more issue
        assert relaxed - bar == pytest.approx(extra, abs=3.0)
    r2, r16 = _bar(micro, 2, 1, 1), _bar(micro, 16, 1, 1)
    assert r16 - r2 == pytest.approx(3 * DEFAULT.cluster_barrier_per_doubling, abs=0.5)


def test_a_release_arrive_waits_for_its_fence(micro):
    relaxed = _bar(micro, 4, 1, 1)
    release = _bar(micro, 4, 1, 0)
    assert release - relaxed == pytest.approx(DEFAULT.cluster_fence_latency, abs=3.0)
    # many warps: the SM's fence unit passes one per cluster_fence_interval
    relaxed32, release32 = _bar(micro, 4, 32, 1), _bar(micro, 4, 32, 0)
    assert release32 - relaxed32 > DEFAULT.cluster_fence_latency + 20 * DEFAULT.cluster_fence_interval


def test_cluster_wait_is_synchronization(micro):
    out = np.zeros(3 * 16, np.int64)
    prof = micro["bar2"].profile(2, 256, [np.int32(1), np.int32(16), out], shared_mem=DYN)
    assert prof.stalls["synchronization"] > prof.stalls.get("memory_dependency", 0)


_LONE_WAIT = r"""
.version 8.0
.target sm_90
.address_size 64
.visible .entry lone_wait(.param .u64 out) .reqnctapercluster 2, 1, 1
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<3>;
    .reg .pred %p;
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p, %r1, 0;
    @%p bra DONE;
    barrier.cluster.wait;
DONE:
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    st.global.u32 [%rd2], %r1;
    ret;
}
"""


def test_a_wait_with_no_arrival_does_not_hang_the_model():
    mod = ptxvm.loads(_LONE_WAIT, name="lone_wait.ptx")
    out = np.zeros(64, np.uint32)
    prof = mod["lone_wait"].profile(2, 32, [out])
    assert prof.sm_cycles > 0


_EARLY_EXIT = r"""
.version 8.0
.target sm_90
.address_size 64
.visible .entry early_exit(.param .u64 out, .param .u32 n) .reqnctapercluster 2, 1, 1
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<3>;
    .reg .pred %p<3>;
    mov.u32 %r1, %tid.x;
    ld.param.u32 %r2, [n];
    setp.ge.u32 %p1, %r1, 32;
    @%p1 bra BUSY;
    barrier.cluster.arrive.relaxed;
    barrier.cluster.wait;
    bra.uni DONE;
BUSY:
    mov.u32 %r3, 0;
    mov.u32 %r4, 1;
LOOP:
    mad.lo.u32 %r4, %r4, 3, %r1;
    add.u32 %r3, %r3, 1;
    setp.lt.u32 %p2, %r3, %r2;
    @%p2 bra LOOP;
DONE:
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    st.global.u32 [%rd2], %r4;
    ret;
}
"""


def test_a_warp_that_exits_counts_as_arrived_when_it_exits():
    # warp 1 never arrives: it computes for a while and exits; warp 0's wait is released by that
    # exit (plus the barrier's cost), not before and not by the model's no-progress guard
    mod = ptxvm.loads(_EARLY_EXIT, name="early_exit.ptx")
    out = np.zeros(64, np.uint32)
    short, long = (mod["early_exit"].profile(2, 64, [out, np.uint32(n)]) for n in (16, 272))
    held = long.stalls["synchronization"] - short.stalls["synchronization"]
    busy = long.sm_cycles - short.sm_cycles  # warp 1's 256 more trips
    assert busy > 256 * 4
    assert held == pytest.approx(busy, rel=0.05)


def test_remote_accesses_are_found_when_only_sm0s_ctas_run(micro):
    # functional="sampled" runs SM 0's CTAs (0 and 132 here) without their cluster partners: the
    # rank each CTA's warps compare addresses with is its %cluster_ctarank, not its wave slot
    out = np.zeros(3 * 264, np.int64)
    got = {f: micro["stream1_2"].profile(264, 64, [np.int32(2), np.int32(0), np.int32(1), out], shared_mem=DYN,
                                         functional=f).bank_conflicts for f in ("all", "sampled")}
    assert got["all"]["remote_requests"] == 2 * 4 * 2  # 2 CTAs on SM 0, 4 loads, 2 warps each
    assert got["sampled"] == got["all"]


@pytest.mark.parametrize("op, rate", [(1, "dsmem_bytes_per_clk"), (2, "dsmem_atomic_bytes_per_clk")])
def test_remote_stores_are_bound_by_the_sms_link(micro, op, rate):
    """32 warps storing (op 1) or red.add-ing (op 2) to the next rank's shared memory move no more
    than the link's bytes per cycle (results/micro2_cluster_stream_h200.json: 20.4 / 9.5)."""
    from ptxvm.timing.params import DEFAULT

    out = np.zeros(3 * 16, np.int64)
    c = [micro["stream1_2"].profile(2, 1024, [np.int32(2), np.int32(op), np.int32(n), out], shared_mem=DYN).sm_cycles
         for n in (2, 4)]
    moved = 1024 * 4 * 4 * 2  # 2 more iterations of 4 accesses of 4 B by 1024 threads
    assert moved / (c[1] - c[0]) == pytest.approx(getattr(DEFAULT, rate), rel=0.05)
