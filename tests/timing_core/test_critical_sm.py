"""The profile simulates the SM whose CTAs work longest, not only SM 0 (timing/critical.py)."""
import numpy as np
import pytest

import ptxvm
from ptxvm.engine.trace.events import Tracer, WorkCount
from ptxvm.timing.critical import critical_sms

from .ptx_cases import HEADER

# each thread walks trips[ctaid] dependent loads through `next` and writes where it ended
WALK = HEADER + """
.visible .entry walk(.param .u64 trips, .param .u64 next, .param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [trips];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u64 %rd2, [next];
  cvta.to.global.u64 %rd2, %rd2;
  ld.param.u64 %rd3, [out];
  cvta.to.global.u64 %rd3, %rd3;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.s32 %r4, %r1, %r2, %r3;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.u32 %r5, [%rd5];
  mov.u32 %r6, %r3;
  mov.u32 %r7, 0;
  setp.eq.u32 %p1, %r5, 0;
  @%p1 bra DONE;
LOOP:
  mul.wide.u32 %rd6, %r6, 4;
  add.s64 %rd7, %rd2, %rd6;
  ld.global.u32 %r6, [%rd7];
  add.s32 %r7, %r7, 1;
  setp.lt.u32 %p1, %r7, %r5;
  @%p1 bra LOOP;
DONE:
  mul.wide.u32 %rd8, %r4, 4;
  add.s64 %rd9, %rd3, %rd8;
  st.global.u32 [%rd9], %r6;
  ret;
}
"""

CTAS, THREADS, N = 8, 64, 1 << 14


def _args(heavy_cta: int, rng=np.random.default_rng(7)):
    trips = np.full(CTAS, 4, np.uint32)
    trips[heavy_cta] = 120
    nxt = rng.permutation(N).astype(np.uint32)
    return trips, nxt, np.zeros(CTAS * THREADS, np.uint32)


def _expected(trips, nxt):
    out = np.zeros(CTAS * THREADS, np.uint32)
    for c in range(CTAS):
        for t in range(THREADS):
            i = t
            for _ in range(int(trips[c])):
                i = int(nxt[i])
            out[c * THREADS + t] = i
    return out


def test_a_heavier_cta_on_another_sm_decides_the_time():
    kernel = ptxvm.loads(WALK)["walk"]
    on_sm0 = kernel.profile(CTAS, THREADS, list(_args(0)), warm_l2=False)
    trips, nxt, out = _args(5)
    before = nxt.copy()
    elsewhere = kernel.profile(CTAS, THREADS, [trips, nxt, out], warm_l2=False)
    assert on_sm0.simulated_sms == 1  # SM 0 already holds the heavy CTA
    assert elsewhere.simulated_sms == 2  # SM 0 and SM 5
    # the same critical path, wherever it runs (not the light CTAs' 4 trips)
    assert elsewhere.cycles == pytest.approx(on_sm0.cycles, rel=0.1)
    trips_light, nxt_light, out_light = _args(0)
    trips_light[0] = 4
    light = kernel.profile(CTAS, THREADS, [trips_light, nxt_light, out_light], warm_l2=False)
    assert elsewhere.cycles > 1.5 * light.cycles
    # the caller sees the whole launch's results, not the re-run's, and untouched inputs
    assert np.array_equal(out, _expected(trips, nxt))
    assert np.array_equal(nxt, before)
    # grid-wide counts scale from SM 0's CTAs only
    assert elsewhere.simulated_ctas == 1


def test_device_arrays_are_rerun_from_their_contents_before_the_launch():
    kernel = ptxvm.loads(WALK)["walk"]
    trips, nxt, out = _args(3)
    d_out = ptxvm.to_device(out)
    prof = kernel.profile(CTAS, THREADS, [trips, nxt, d_out], warm_l2=False)
    assert prof.simulated_sms == 2
    assert np.array_equal(d_out.copy_to_host(), _expected(trips, nxt))


def test_work_count_matches_the_engines_warp_instructions():
    kernel = ptxvm.loads(WALK)["walk"]
    trips, nxt, out = _args(6)
    plain = kernel.launch(CTAS, THREADS, [trips, nxt, out.copy()])
    work = WorkCount(CTAS, THREADS // 32)
    kernel.launch(CTAS, THREADS, [trips, nxt, out], tracer=Tracer(kernel.module.program, THREADS, np.array([], np.int64),
                                                                  work=work))
    per_warp = work.finish()
    assert int(per_warp.sum()) == plain.warp_instructions
    # the heavy CTA's warps issue the loop's 6 instructions 116 more times than the others'
    assert per_warp[6, 0] - per_warp[0, 0] == 6 * (120 - 4)


def test_critical_sms_rules():
    per_warp = np.ones((264, 2), np.int64)
    assert critical_sms(per_warp, 132, [0]) == []  # alike CTAs: SM 0 stands for all
    per_warp[140, 1] = 50  # one long warp on SM 8
    assert critical_sms(per_warp, 132, [0]) == [8]
    per_warp[140, 1] = 1
    per_warp[7] = 3  # more total work on SM 7, no long warp
    assert critical_sms(per_warp, 132, [0]) == [7]
    assert critical_sms(per_warp, 132, [0, 1, 2, 3, 4, 5, 6, 7]) == []
    assert critical_sms(np.ones((1, 1), np.int64), 132, [0]) == []


# CTAs 0 and 1 spin until CTA 2 sets the flag; CTA 1 then works longest
WAIT_FOR_LAST = HEADER + """.visible .entry wait_for_last(.param .u64 flag, .param .u64 out)
{
    .reg .b64 %rd<4>;
    .reg .b32 %r<8>;
    .reg .pred %p<3>;
    ld.param.u64 %rd1, [flag];
    cvta.to.global.u64 %rd1, %rd1;
    ld.param.u64 %rd2, [out];
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %ctaid.x;
    setp.ne.u32 %p1, %r1, 2;
    @%p1 bra WAIT;
    st.volatile.global.u32 [%rd1], 7;
    ret;
WAIT:
    ld.volatile.global.u32 %r4, [%rd1];
    setp.eq.u32 %p2, %r4, 0;
    @%p2 bra WAIT;
    mov.u32 %r3, 0;
    setp.eq.u32 %p2, %r1, 0;
    @%p2 bra DONE;
WORK:
    add.u32 %r4, %r4, %r3;
    add.u32 %r3, %r3, 1;
    setp.lt.u32 %p2, %r3, 2000;
    @%p2 bra WORK;
DONE:
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd3, %rd2, %rd3;
    st.global.u32 [%rd3], %r4;
    ret;
}
"""


@pytest.mark.parametrize("options", [{}, {"functional": "sampled"}])
def test_ctas_that_wait_on_others_are_never_run_alone(options):
    """The critical SM's CTAs were run again alone, and SM 0's alone under functional="sampled":
    a CTA spinning on a flag another CTA sets then spun forever (found profiling HeCBench's
    sptrsv, whose rows wait on the rows they depend on). A kernel whose PTX shows CTAs waiting
    on one another (parallel/analysis.py) now runs every CTA, tracing the simulated SMs' only."""
    kernel = ptxvm.loads(WAIT_FOR_LAST, "wait_for_last.ptx").kernel("wait_for_last")
    flag, out = np.zeros(1, np.uint32), np.zeros(3, np.uint32)
    prof = kernel.profile(3, 32, [flag, out], warm_l2=False, max_instructions=3_000_000, **options)
    assert out.tolist() == [7, 7 + 1999000, 0]
    assert prof.seconds > 0
