"""Asynchronous copies and mbarriers in the timing model (timing/asyncs.py, sm.issue_async):
cp.async reads through the memory system like a load and its group completes when the data is
back; bulk copies go through the TMA engine and complete on their mbarrier; an mbarrier wait
answers when the events it counted on have completed. Kernels: benchmarks/timing/micro2/async.cu
(its PTX, async.ptx) and crafted PTX. Expectations are relative to the model's parameters (no
GPU timings are asserted)."""
import sys
from pathlib import Path

import numpy as np
import pytest

import ptxvm
from ptxvm.engine.trace.info import async_role
from ptxvm.timing import load_gpu
from ptxvm.timing.params import DEFAULT

from .ptx_cases import load

GPU = load_gpu("h200")
ASYNC_PTX = Path(__file__).resolve().parents[2] / "benchmarks" / "timing" / "micro2" / "async.ptx"


@pytest.fixture(scope="module")
def micro():
    return ptxvm.loads(ASYNC_PTX.read_text(), name=str(ASYNC_PTX))


def _chain(blocks: int, block_ints: int) -> np.ndarray:
    """A random cyclic chain through `blocks` blocks (tools/timing_async_check.py builds them)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
    from timing_async_check import chain

    return chain(blocks, block_ints, np.random.default_rng(0))


def _per_step(micro, kernel, chain, *extra):
    """Cycles per step of a one-thread dependent chain (two lengths, so fixed costs cancel)."""
    out = np.zeros(8, np.int64)
    c = [micro[kernel].profile(1, 32, [chain, np.int32(n), *extra, out]).sm_cycles for n in (8, 24)]
    return (c[1] - c[0]) / 16


def test_cp_async_group_completes_after_its_copy_came_through_memory(micro):
    chain = _chain(2048, 32)  # 256 KiB in 128-B blocks: L2-resident (warm), beyond the L1 for .cg
    ld = _per_step(micro, "chase_ld", chain)
    cp = _per_step(micro, "chase_cpasync", chain)
    # cp.async + commit + wait_group 0 + ld.shared: the load's latency, the group's completion and
    # the shared load, never less (before, the copy completed at issue: ~60 cycles a step)
    assert cp >= GPU.latency["l2_hit"]
    assert cp >= ld + DEFAULT.cp_async_complete + GPU.latency["shared"] - 2
    assert cp <= ld + DEFAULT.cp_async_complete + GPU.latency["shared"] + 40


def test_bulk_copy_completes_on_its_mbarrier_after_its_bytes_arrived(micro):
    small = _per_step(micro, "chase_bulk", _chain(2048, 32), np.int32(16))
    big = _per_step(micro, "chase_bulk", _chain(128, 2048), np.int32(8192))
    # one 16-B copy: the L2 latency, the mbarrier's answer and the shared load
    assert small >= GPU.latency["l2_hit"] + DEFAULT.mbar_wait_latency + GPU.latency["shared"]
    # 8 KiB: 64 line requests through the TMA engine on top
    assert big >= small + 63 * DEFAULT.tma_line_cycles - 1


def _stream_per_tile(micro, kind, stages, ctas=1, **kw):
    tile = 8192 if kind == "bulk" else 4096
    region = (32 << 10) // tile
    x = np.ones(ctas * region * tile // 4, np.float32)
    sink = np.zeros(ctas * 256, np.float32)
    c = [micro[f"stream_{kind}{stages}"].profile(ctas, 256, [x, np.int32(region), np.int32(t), sink], **kw).sm_cycles
         for t in (8, 24)]
    return (c[1] - c[0]) / 16


def test_more_cp_async_stages_in_flight_stream_faster(micro):
    one, two, four = (_stream_per_tile(micro, "cpasync", k) for k in (1, 2, 4))
    assert one > two > four
    # one stage: every tile waits for its copy's full latency
    assert one >= GPU.latency["l2_hit"]


def test_async_copies_are_not_faster_than_their_memory_traffic(micro):
    """A cold stream of cp.async copies moves its bytes through DRAM: the kernel takes at least the
    DRAM time of its traffic, and about as long as plain loads of the same stream."""
    n_ctas, tiles = 2 * GPU.sm_count, 12
    x = np.ones(n_ctas * tiles * 1024, np.float32)
    sink = np.zeros(n_ctas * 256, np.float32)
    args = [x, np.int32(tiles), np.int32(tiles), sink]
    cp = micro["stream_cpasync2"].profile(n_ctas, 256, args, functional="sampled", warm_l2=False)
    ld = micro["stream_ld2"].profile(n_ctas, 256, args, functional="sampled", warm_l2=False)
    assert cp.dram_bytes >= x.nbytes
    dram_cycles = x.nbytes / GPU.dram_bytes_per_s * GPU.clock_hz
    assert cp.sm_cycles >= 0.9 * dram_cycles
    assert cp.sm_cycles >= 0.7 * ld.sm_cycles


WAITER = """
.visible .entry waiter(.param .u64 out, .param .u32 wait)
{
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<6>;
  .shared .align 8 .b64 bar;
  mov.u32 %r1, %tid.x;
  ld.param.u32 %r9, [wait];
  mov.u32 %r2, bar;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra READY;
  mov.u32 %r3, 1;
  mbarrier.init.shared::cta.b64 [%r2], %r3;
READY:
  bar.sync 0;
  setp.lt.u32 %p2, %r1, 32;
  @%p2 bra PRODUCER;
  setp.eq.u32 %p3, %r9, 0;
  @%p3 bra WORK;
SPIN:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r2], 0;
  @!%p3 bra SPIN;
WORK:
  mov.f32 %f1, 0f3F800000;
  mov.u32 %r4, 256;
CHAIN:
  fma.rn.f32 %f1, %f1, %f1, %f1;
  add.u32 %r4, %r4, -1;
  setp.ne.u32 %p3, %r4, 0;
  @%p3 bra CHAIN;
  bra DONE;
PRODUCER:
  nanosleep.u32 5000;
  setp.ne.u32 %p3, %r1, 0;
  @%p3 bra DONE;
  mbarrier.arrive.shared::cta.b64 %rd1, [%r2];
DONE:
  ld.param.u64 %rd2, [out];
  cvta.to.global.u64 %rd3, %rd2;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd3, %rd4;
  st.global.f32 [%rd5], %f1;
  ret;
}
"""


def test_mbarrier_wait_holds_the_consumer_until_the_producer_arrived():
    """Warp 0 sleeps, then arrives; warp 1 waits for the phase, then runs a 256-FMA chain. With the
    wait, the chain starts after the arrival: the kernel takes the sleep plus the chain."""
    k = load(WAITER)["waiter"]
    out = np.zeros(64, np.float32)
    waited = k.profile(1, 64, [out, np.uint32(1)])
    free = k.profile(1, 64, [out, np.uint32(0)])
    sleep = 5000 * GPU.clock_hz / 1e9
    chain = 256 * GPU.pipes["fp32"].latency
    assert free.sm_cycles < sleep + chain * 0.5
    assert waited.sm_cycles >= sleep + chain + DEFAULT.mbar_arrive_latency + DEFAULT.mbar_wait_latency - 5


def test_mbarrier_round_trip_grows_with_the_warps_that_arrive(micro):
    out = np.zeros(8, np.int64)

    def per_round(warps):
        c = [micro["mbar_roundtrip"].profile(1, 32 * warps, [np.int32(n), np.int32(0), out]).sm_cycles
             for n in (8, 24)]
        return (c[1] - c[0]) / 16

    one, eight = per_round(1), per_round(8)
    assert one >= DEFAULT.mbar_arrive_latency + DEFAULT.mbar_wait_latency
    assert eight >= one + 7 * DEFAULT.mbar_arrive_cycles - 1


def test_mbarrier_waits_count_the_events_before_them_in_the_trace(micro):
    import importlib

    from ptxvm.timing.asyncs import mbarrier_refs

    profile_mod = importlib.import_module("ptxvm.timing.profile")
    out = np.zeros(8, np.int64)
    col = profile_mod.collect(micro["mbar_roundtrip"], 1, 64, [np.int32(3), np.int32(0), out], 0, "h200")
    trace = col.sms[0][0]
    cta, _, _ = trace.warps()
    needs, events = [], 0
    for k, per_warp in sorted(mbarrier_refs(trace, cta).items()):
        role = trace.info(trace.steps[k].pc).asyn
        for x in per_warp:
            if x is None:
                continue
            if role == "mbar_wait":
                needs.append(x[1])
            else:
                events += len(x)
    assert events == 2 * 3  # two warps arrive (lane 0 each) in each of three rounds
    # each round's (successful) waits count both warps' arrivals of that round and the rounds before
    assert max(needs) == 6 and min(needs) >= 0
    assert {2, 4, 6} <= set(needs)


@pytest.mark.parametrize("opcode,mods,operands,role", [
    ("cp", ("async", "cg", "shared", "global"), (), "cp_async"),
    ("cp", ("async", "commit_group"), (), "cp_commit"),
    ("cp", ("async", "wait_all"), (), "cp_wait"),
    ("cp", ("async", "mbarrier", "arrive", "noinc", "shared", "b64"), (), "cp_mbar_arrive"),
    ("cp", ("async", "bulk", "shared::cluster", "global", "mbarrier::complete_tx::bytes"), (), "bulk_load"),
    ("cp", ("async", "bulk", "global", "shared::cta", "bulk_group"), (), "bulk_other"),
    ("cp", ("async", "bulk", "tensor", "2d", "shared::cluster", "global"), (), "bulk_tensor"),
    ("cp", ("async", "bulk", "tensor", "2d", "global", "shared::cta", "bulk_group"), (), "bulk_other"),
    ("cp", ("reduce", "async", "bulk", "global", "shared::cta", "bulk_group", "add", "f32"), (), "bulk_other"),
    ("mbarrier", ("arrive", "expect_tx", "shared::cta", "b64"), (), "mbar_event"),
    ("mbarrier", ("try_wait", "parity", "shared::cta", "b64"), (), "mbar_wait"),
    ("mbarrier", ("init", "shared::cta", "b64"), (), "mbar_other"),
    ("ld", ("global", "f32"), (), ""),
])
def test_async_roles(opcode, mods, operands, role):
    assert async_role(opcode, mods, operands)[0] == role


def _tma_case(name):
    """A tensor-copy kernel of tests/kernels/tma_cases.py with its map (ptxvm.tensor_map)."""
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "kernels" / "tma_cases.py"
    spec = importlib.util.spec_from_file_location("tma_cases_for_timing", path)
    T = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = T  # its dataclasses look their module up
    spec.loader.exec_module(T)
    case = next(c for c in T.cases() if c.name == name)
    dev = ptxvm.to_device(T.tensor_bytes(case))
    strides = tuple(reversed(case.global_strides())) + (case.itemsize,)
    tm = ptxvm.tensor_map(dev, case.box, element_strides=case.element_strides, swizzle=case.swizzle,
                          oob_fill=case.oob_fill, dtype=case.dtype, shape=case.shape, strides=strides)
    grid, block = T.launch(case)
    out = np.zeros(case.ctas * case.smem_bytes, np.uint8)
    kernel = ptxvm.loads(T.kernel_ptx(case), f"{case.name}.ptx")["tma"]
    return case, kernel, grid, block, [tm, out, T.coords_array(case), T.shared_input(case)]


def test_tensor_copy_reads_its_box_rows_and_completes_on_its_mbarrier():
    import importlib

    profile_mod = importlib.import_module("ptxvm.timing.profile")
    case, kernel, grid, block, args = _tma_case("load_2d_f32")  # box of 8 rows x 16 f32, CTA 0 in bounds
    col = profile_mod.collect(kernel, grid, block, args, 0, "h200", warm_l2=False)
    trace, mem, _, _ = col.sms[0]
    steps = [k for k, s in enumerate(trace.steps) if trace.info(s.pc).asyn == "bulk_tensor"]
    assert len(steps) == 1
    res = mem[steps[0]]
    # 8 rows of 64 B starting 16 B into a sector: three sectors each (the row's lines, not the box's bytes)
    rows, row_bytes = case.box[0], case.box[1] * case.itemsize
    first = case.coords[0][0] * case.itemsize
    per_row = (first + row_bytes - 1) // 32 - first // 32 + 1
    assert int(res.l2_sectors.sum()) == rows * per_row
    assert int(res.l2_lines.sum()) >= rows
    # the box's sectors are this SM's own data, as a load's (profile._share_l2 counts the SM's
    # DRAM reads beyond its own data as refetches: without them a TMA kernel refetched everything)
    from ptxvm.timing.memory import MemoryHierarchy
    from ptxvm.timing.trace import memory_pass

    _, stats = memory_pass(trace, MemoryHierarchy(GPU, 1, simulated_sms=1))
    assert stats.distinct_chunks(1) >= rows * per_row  # (and the kernel's own loads)
    prof = kernel.profile(grid, block, args, warm_l2=False)
    # the CTA waits on the copy: at least the L2 latency and the mbarrier's answer before its stores
    assert prof.sm_cycles >= GPU.latency["l2_hit"] + DEFAULT.mbar_wait_latency


def test_a_wait_whose_events_never_issue_does_not_hang_the_model(micro, monkeypatch):
    """If the model's order of issue never brings the events a wait counted on (they cannot all
    come, say), the SM model lets the wait go once nothing else can move instead of looping."""
    import importlib

    from ptxvm.timing import trace as trace_mod
    from ptxvm.timing.asyncs import mbarrier_refs

    def inflated(trace, cta):
        out = mbarrier_refs(trace, cta)
        for k, per_warp in out.items():
            if trace.info(trace.steps[k].pc).asyn == "mbar_wait":
                out[k] = [None if x is None else (x[0], x[1] + 1000) for x in per_warp]
        return out

    monkeypatch.setattr(trace_mod, "mbarrier_refs", inflated)
    profile_mod = importlib.import_module("ptxvm.timing.profile")
    out = np.zeros(8, np.int64)
    col = profile_mod.collect(micro["mbar_roundtrip"], 1, 64, [np.int32(2), np.int32(0), out], 0, "h200")
    prof = profile_mod.simulate(col)
    assert 0 < prof.sm_cycles < 10_000
    assert prof.stalls["synchronization"] > 0


def test_cold_bulk_copies_pay_the_dirty_lines_their_fills_evict(micro):
    """Under the cold convention the L2 starts full of the flush's dirty lines: a bulk copy's fills
    push them out as a load's do, and their write-back is DRAM time of the copy (asyncs.bulk_step;
    before, only the copied sectors were: pipe_bulk_tma_16tiles came out at 114 % of the DRAM peak)."""
    n_ctas, tiles = 2 * GPU.sm_count, 12
    x = np.ones(n_ctas * tiles * 2048, np.float32)
    sink = np.zeros(n_ctas * 256, np.float32)
    prof = micro["stream_bulk2"].profile(n_ctas, 256, [x, np.int32(tiles), np.int32(tiles), sink],
                                         functional="sampled", warm_l2=False)
    trace, mem = prof.collected.sms[0][0], prof.collected.sms[0][1]
    bulk = [k for k, s in enumerate(trace.steps) if trace.info(s.pc).asyn == "bulk_load" and k in mem]
    assert bulk
    charged = sum(float(np.sum(mem[k].dram_read)) for k in bulk)
    data = prof.counters["dram_bytes_read"] / 32
    evicted = prof.counters.get("dram_bytes_evicted_by_reads", 0) / 32
    assert evicted > 0
    assert charged >= data + 0.99 * evicted
