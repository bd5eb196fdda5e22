"""Mechanisms added for issue 20 (each pinned by a microbenchmark of benchmarks/timing/micro2,
docs/timing-model.md section 3): ptxas's list schedule of straight runs, immediate moves without
an issue slot, the CTA dispatcher and launch overhead, the SM's barrier unit, warpgroup MMA
groups. Expectations are relative to the model's parameters, so recalibrating keeps them.
"""
import numpy as np
import pytest

from ptxvm.timing import load_gpu
from ptxvm.timing.params import DEFAULT
from ptxvm.timing.schedule import schedule_run

from .ptx_cases import load

GPU = load_gpu("h200")


def loop_kernel(chains: int, unroll: int = 4) -> str:
    """One warp: a loop of `unroll` x `chains` FMAs, chains interleaved pairwise the way nvcc
    writes an unrolled loop (a, a', b, b', ...), an immediate move inside the body and the
    counter's add -> setp -> bra at the end, in PTX order."""
    body = [".visible .entry loop(.param .u64 out, .param .u32 iters)", "{", "  .reg .pred %p<2>;",
            f"  .reg .f32 %f<{chains * unroll + chains + 4}>;", "  .reg .b32 %r<4>;", "  .reg .b64 %rd<5>;",
            "  ld.param.u32 %r1, [iters];"]
    for c in range(chains):
        body.append(f"  mov.f32 %f{c}, 0f3F800000;")
    body.append("LOOP:")
    k = chains + 2
    body.append(f"  mov.f32 %f{chains}, 0f3F000000;")
    for c in range(chains):
        for u in range(unroll):
            src = c if u == 0 else k - 1
            dst = c if u == unroll - 1 else k
            body.append(f"  fma.rn.f32 %f{dst}, %f{src}, %f{chains}, %f{chains};")
            if u < unroll - 1:
                k += 1
    body += ["  add.s32 %r1, %r1, -1;", "  setp.ne.s32 %p1, %r1, 0;", "  @%p1 bra LOOP;",
             "  mov.u32 %r2, %tid.x;", "  ld.param.u64 %rd1, [out];", "  cvta.to.global.u64 %rd2, %rd1;",
             "  mul.wide.u32 %rd3, %r2, 4;", "  add.s64 %rd4, %rd2, %rd3;", "  st.global.f32 [%rd4], %f0;", "  ret;", "}"]
    return "\n".join(body) + "\n"


def _loop(chains, iters, **params):
    out = np.zeros(32, np.float32)
    return load(loop_kernel(chains))["loop"].profile(1, 32, [out, np.uint32(iters)], params=DEFAULT.with_(**params))


def _per_iter(chains, **params):
    return (_loop(chains, 64, **params).sm_cycles - _loop(chains, 32, **params).sm_cycles) / 32


def test_list_schedule_hides_the_loop_counter_behind_independent_fmas():
    # 4 chains x 4 FMAs: 16 issue cycles + add, setp, bra + the taken branch's fetch
    scheduled = _per_iter(4)
    assert scheduled == pytest.approx(16 + 3 + DEFAULT.fetch_redirect, abs=1.0)
    ptx_order = _per_iter(4, list_schedule=False, issue_window=0)
    assert ptx_order > scheduled + 8  # in PTX order the add -> setp -> bra latencies add up


def test_dependent_chain_loop_costs_its_latency_plus_the_branch():
    fp32 = GPU.pipes["fp32"]
    per = _per_iter(1)
    assert per == pytest.approx(max(4 * fp32.latency, 1 + DEFAULT.fetch_redirect + 3 * fp32.latency + 1), abs=1.0)


def test_immediate_moves_take_no_issue_slot():
    folded = _per_iter(4)
    issued = _per_iter(4, fold_immediate_moves=False)
    assert issued == pytest.approx(folded + 1, abs=0.3)


def test_schedule_run_hoists_the_counter_and_keeps_the_branch_last():
    # 0: fma a; 1: fma a (dep); 2: add r; 3: setp p (dep r); 4: bra (ctrl)
    reads = {10: (0,), 11: (0,), 12: (1,), 13: (1,), 14: (2,)}
    writes = {10: (0,), 11: (0,), 12: (1,), 13: (2,), 14: ()}
    ctrl = np.zeros(15, bool)
    ctrl[14] = True
    lat = np.full(15, 4.0)
    perm = schedule_run(10, 5, ctrl, lat, reads, writes, np.zeros(15, np.int8))
    assert perm is not None and perm[-1] == 4
    assert list(perm).index(2) < list(perm).index(1)  # the counter goes before the dependent FMA


def test_schedule_keeps_stores_in_order_with_loads():
    # 0: ld a; 1: st b; 2: ld c (after the store); nothing may pass the store
    reads = {0: (9,), 1: (9, 8), 2: (9,)}
    writes = {0: (1,), 1: (), 2: (2,)}
    perm = schedule_run(0, 3, np.zeros(3, bool), np.full(3, 100.0), reads, writes, np.array([1, 2, 1], np.int8))
    assert perm is None  # PTX order is the only legal one


def test_global_loads_pass_shared_stores_but_not_global_or_generic_ones():
    from ptxvm.timing.schedule import SPACE_ANY, SPACE_GLOBAL, SPACE_SHARED

    # ld.global a; st.shared [s], a; ld.global b; st.shared [s+4], b -- as a staging loop reads
    reads = {0: (9,), 1: (8, 1), 2: (9,), 3: (8, 2)}
    writes = {0: (1,), 1: (), 2: (2,), 3: ()}
    kinds = np.array([1, 2, 1, 2], np.int8)

    def order(spaces):
        perm = schedule_run(0, 4, np.zeros(4, bool), np.full(4, 100.0), reads, writes, kinds,
                            np.array(spaces, np.int8))
        return list(range(4)) if perm is None else list(perm)

    hoisted = order([SPACE_GLOBAL, SPACE_SHARED, SPACE_GLOBAL, SPACE_SHARED])
    assert hoisted.index(2) < hoisted.index(1)  # the second load goes before the first store
    assert order([SPACE_GLOBAL, SPACE_GLOBAL, SPACE_GLOBAL, SPACE_GLOBAL]) == [0, 1, 2, 3]
    assert order([SPACE_GLOBAL, SPACE_ANY, SPACE_GLOBAL, SPACE_SHARED]) == [0, 1, 2, 3]  # generic store


EMPTY = ".visible .entry empty()\n{\n  ret;\n}\n"


def test_empty_kernel_costs_the_launch_overhead_and_ctas_the_dispatcher():
    k = load(EMPTY)["empty"]
    one = k.profile(1, 32, [])
    assert one.cycles == pytest.approx(DEFAULT.kernel_launch, abs=50)
    many = k.profile(132 * 64, 256, [])
    extra = many.cycles - one.cycles
    # SM 0 gets 64 CTAs, one per 132 x cta_dispatch_cycles
    assert extra == pytest.approx(63 * 132 * DEFAULT.cta_dispatch_cycles, rel=0.15)


def barrier_kernel(n: int) -> str:
    body = [".visible .entry bars()", "{"] + ["  bar.sync 0;"] * n + ["  ret;", "}"]
    return "\n".join(body) + "\n"


def _bars(ctas_per_sm, threads):
    k = load(barrier_kernel(64))["bars"]
    a = k.profile(132 * ctas_per_sm, threads, []).sm_cycles
    k = load(barrier_kernel(32))["bars"]
    b = k.profile(132 * ctas_per_sm, threads, []).sm_cycles
    return (a - b) / 32


def test_barrier_cost_grows_with_warps_and_ctas_share_the_barrier_unit():
    lat = GPU.latency["barrier"]
    one_warp = _bars(1, 32)
    assert one_warp == pytest.approx(lat + DEFAULT.barrier_arrival_cycles + 1, abs=2)
    full = _bars(1, 1024)
    assert full == pytest.approx(lat + 32 * DEFAULT.barrier_arrival_cycles + 31 * DEFAULT.barrier_release_per_warp, rel=0.1)
    # 8 CTAs of 8 warps: 64 arrivals per round through one unit
    shared = _bars(8, 256)
    assert shared > 2 * _bars(1, 256)
    assert shared == pytest.approx(64 * DEFAULT.barrier_arrival_cycles + lat, rel=0.25)


def wgmma_kernel(ty: str, n: int, per: int, iters: int) -> str:
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "timing" / "micro2" / "gen_wgmma.py"
    spec = importlib.util.spec_from_file_location("gen_wgmma", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return ".version 8.0\n.target sm_90a\n.address_size 64\n" + mod.kernel(ty, n, per)


def _wgmma(ty, n, per, iters, wgs=1):
    import ptxvm

    k = ptxvm.loads(wgmma_kernel(ty, n, per, iters))[f"wg_{ty}_n{n}_k{per}"]
    out = np.zeros(2 * wgs, np.uint64)
    return k.profile(1, 128 * wgs, [np.uint32(iters), out]).sm_cycles


@pytest.mark.parametrize("ty", ["f16", "tf32"])
def test_wgmma_holds_the_tensor_pipe_n_over_2_cycles_and_groups_complete_later(ty):
    n = 64
    per_wgmma = (_wgmma(ty, n, 8, 4) - _wgmma(ty, n, 8, 2)) / 16
    assert per_wgmma == pytest.approx(n / 2 + (DEFAULT.wgmma_latency + 8) / 8, rel=0.15)
    single = (_wgmma(ty, n, 1, 4) - _wgmma(ty, n, 1, 2)) / 2
    assert single == pytest.approx(n / 2 + DEFAULT.wgmma_latency + 8, rel=0.15)
    # two warpgroups share the four sub-partitions' tensor pipes
    two = (_wgmma(ty, n, 8, 4, wgs=2) - _wgmma(ty, n, 8, 2, wgs=2)) / 16
    assert two == pytest.approx(2 * n / 2, rel=0.15)


TILE_ROW = """
.visible .entry tile(.param .u64 out, .param .u32 stride)
{
  .reg .b32 %r<12>;
  .reg .f32 %f<12>;
  .reg .b64 %rd<5>;
  .shared .align 16 .b8 As[1024];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %tid.y;
  ld.param.u32 %r9, [stride];
  shl.b32 %r3, %r2, 6;
  mov.u32 %r4, As;
  add.s32 %r5, %r4, %r3;
  mul.lo.s32 %r10, %r1, %r9;
  add.s32 %r11, %r4, %r10;
  ld.shared.f32 %f1, [%r5];
  ld.shared.f32 %f2, [%r5+4];
  ld.shared.f32 %f3, [%r5+8];
  ld.shared.f32 %f4, [%r5+12];
  ld.shared.f32 %f5, [%r11];
  ld.shared.f32 %f6, [%r11+4];
  add.f32 %f7, %f1, %f2;
  add.f32 %f8, %f3, %f4;
  add.f32 %f9, %f7, %f8;
  add.f32 %f9, %f9, %f5;
  add.f32 %f9, %f9, %f6;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.f32 [%rd4], %f9;
  ret;
}
"""


def test_scalar_shared_loads_of_an_aligned_row_merge_into_one_vector_load():
    from ptxvm.engine.trace.events import Trace
    from ptxvm.timing.vectorize import load_groups

    k = load(TILE_ROW)["tile"]
    groups = load_groups(Trace(k.module.program, 32))
    assert sorted(groups.width.values()) == [4]  # the row of %r5 (tid.y << 6 + As); not %r11 (stride unknown)
    assert len(groups.leader_of) == 3
    out = np.zeros(16, np.float32)
    p = k.profile(1, (16, 2), [out, np.uint32(4)])
    # 32 threads = one warp: 1 merged LDS.128 + 2 scalar loads
    assert p.bank_conflicts["requests"] == 3
    assert p.bank_conflicts["conflicts"] == 0


def test_profile_says_which_resource_bounds_the_kernel():
    k = load(EMPTY)["empty"]
    assert "launch overhead" in k.profile(1, 32, []).bound
    out = np.zeros(32, np.float32)
    p = load(loop_kernel(4))["loop"].profile(1, 32, [out, np.uint32(2048)])
    assert "bound by instruction issue" in p.bound
    assert p.utilization["issue"] > 0.7
    assert "why" in p.report() and p.to_dict()["bound"] == p.bound


def sfu_kernel(op: str, n: int) -> str:
    body = [".visible .entry sfu(.param .u64 out)", "{", "  .reg .f32 %f<4>;", "  .reg .b32 %r<2>;", "  .reg .b64 %rd<5>;",
            "  mov.f32 %f1, 0f3F000000;"]
    body += [f"  {op} %f1, %f1;"] * n
    body += ["  mov.u32 %r1, %tid.x;", "  ld.param.u64 %rd1, [out];", "  cvta.to.global.u64 %rd2, %rd1;",
             "  mul.wide.u32 %rd3, %r1, 4;", "  add.s64 %rd4, %rd2, %rd3;", "  st.global.f32 [%rd4], %f1;", "  ret;", "}"]
    return "\n".join(body) + "\n"


def _sfu_per_op(op):
    out = np.zeros(32, np.float32)
    a = load(sfu_kernel(op, 64))["sfu"].profile(1, 32, [out]).sm_cycles
    b = load(sfu_kernel(op, 32))["sfu"].profile(1, 32, [out]).sm_cycles
    return (a - b) / 32


def test_non_ftz_sfu_ops_are_one_mufu_plus_fp32_fixups():
    sfu, fp32 = GPU.pipes["sfu"], GPU.pipes["fp32"]
    assert _sfu_per_op("ex2.approx.ftz.f32") == pytest.approx(sfu.latency, abs=1)
    assert _sfu_per_op("ex2.approx.f32") == pytest.approx(sfu.latency + 3 * fp32.latency, abs=1)
    assert _sfu_per_op("sin.approx.f32") == pytest.approx(sfu.latency + fp32.latency, abs=1)


def int_kernel(op: str, n: int, chains: int = 8) -> str:
    body = [".visible .entry ints(.param .u64 out)", "{", f"  .reg .b32 %r<{chains + 2}>;", "  .reg .b64 %rd<5>;"]
    body += [f"  mov.u32 %r{c}, {c + 3};" for c in range(chains)]
    for i in range(n):
        c = i % chains
        body.append(f"  {op} %r{c}, %r{c}, %r{(c + 1) % chains};")
    body += ["  ld.param.u64 %rd1, [out];", "  cvta.to.global.u64 %rd2, %rd1;", "  st.global.u32 [%rd2], %r0;", "  ret;", "}"]
    return "\n".join(body) + "\n"


def _int_per_op(op):
    out = np.zeros(4, np.uint32)
    a = load(int_kernel(op, 256))["ints"].profile(1, 32, [out]).sm_cycles
    b = load(int_kernel(op, 128))["ints"].profile(1, 32, [out]).sm_cycles
    return (a - b) / 128


def test_logic_ops_take_the_integer_pipe_adds_both_pipes():
    assert _int_per_op("xor.b32") == pytest.approx(DEFAULT.alu_interval, abs=0.2)
    assert _int_per_op("add.u32") == pytest.approx(DEFAULT.imad_add_interval / 2, abs=0.2)  # both pipes


def l1_kernel(stride_bytes: int, n: int) -> str:
    """Every lane loads buf[lane * stride] `n` times (L1 hits after the first)."""
    body = [".visible .entry l1(.param .u64 buf, .param .u64 out)", "{", "  .reg .b32 %r<4>;",
            f"  .reg .f32 %f<{n + 2}>;", "  .reg .b64 %rd<8>;",
            "  mov.u32 %r1, %tid.x;", "  and.b32 %r2, %r1, 31;", f"  mul.wide.u32 %rd3, %r2, {stride_bytes};",
            "  ld.param.u64 %rd1, [buf];", "  cvta.to.global.u64 %rd2, %rd1;", "  add.s64 %rd4, %rd2, %rd3;",
            "  mov.f32 %f0, 0f00000000;"]
    for i in range(n):
        body.append(f"  ld.global.ca.f32 %f{i + 1}, [%rd4];")
        body.append(f"  add.f32 %f0, %f0, %f{i + 1};")
    body += ["  ld.param.u64 %rd5, [out];", "  cvta.to.global.u64 %rd6, %rd5;", "  mul.wide.u32 %rd7, %r1, 4;",
             "  add.s64 %rd6, %rd6, %rd7;", "  st.global.f32 [%rd6], %f0;", "  ret;", "}"]
    return "\n".join(body) + "\n"


def _l1_per_load(stride):
    buf = np.zeros(32 * 256, np.float32)
    out = np.zeros(1024, np.float32)
    a = load(l1_kernel(stride, 32))["l1"].profile(1, 1024, [buf, out]).sm_cycles
    b = load(l1_kernel(stride, 16))["l1"].profile(1, 1024, [buf, out]).sm_cycles
    return (a - b) / 16 / 32  # SM cycles per warp-load


def test_l1_hits_pay_data_array_bank_conflicts_like_shared_memory():
    same_bank = _l1_per_load(128)  # 32 lines, every word in bank 0: 32 wavefronts
    spread = _l1_per_load(132)  # 32 lines, 32 banks: 1 wavefront
    assert same_bank == pytest.approx(32 * DEFAULT.l1_wavefront_cycles, rel=0.15)
    assert spread < 0.2 * same_bank
