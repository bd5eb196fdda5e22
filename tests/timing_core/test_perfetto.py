"""Profile.to_perfetto / `ptxvm profile --perfetto`: the trace-event JSON of the SM model's warps."""
import json
from collections import defaultdict

import numpy as np
import pytest
from click.testing import CliRunner

from ptxvm.cli import main
from ptxvm.timing.perfetto import record, stall_totals, trace_events

from .ptx_cases import HEADER, STRIDED, load

# warp 0 of each CTA computes a 32-step FMA chain before every barrier; the other warps wait
BARRIER_HEAVY = """
.visible .entry barrier_heavy(.param .u64 out, .param .u32 iters)
{
  .reg .pred %p<3>;
  .reg .b32 %r<10>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<4>;
  .shared .align 4 .f32 buf[256];
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  ld.param.u32 %r3, [iters];
  mov.f32 %f1, 0f3F800000;
  mov.u32 %r4, 0;
LOOP:
  setp.ne.u32 %p1, %r2, 0;
  @%p1 bra WAIT;
  mov.u32 %r5, 0;
WORK:
  fma.rn.f32 %f1, %f1, 0f3F7FFFFF, 0f3F800000;
  add.u32 %r5, %r5, 1;
  setp.lt.u32 %p2, %r5, 32;
  @%p2 bra WORK;
WAIT:
  shl.b32 %r6, %r1, 2;
  mov.u32 %r7, buf;
  add.u32 %r8, %r7, %r6;
  st.shared.f32 [%r8], %f1;
  bar.sync 0;
  add.u32 %r4, %r4, 1;
  setp.lt.u32 %p1, %r4, %r3;
  @%p1 bra LOOP;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd2, %rd2, %rd3;
  st.global.f32 [%rd2], %f1;
  ret;
}
"""


def _memory_bound():
    n = 2048
    src = np.arange(n * 32, dtype=np.float32)
    out = np.zeros(n, np.float32)
    return load(STRIDED)["strided"].profile(n // 256, 256, [src, out, np.uint32(32)], warm_l2=False)


def _barrier_heavy(**kw):
    out = np.zeros(512, np.float32)
    return load(BARRIER_HEAVY)["barrier_heavy"].profile(2, 256, [out, np.uint32(4)], **kw)


def _validate(data: dict) -> dict:
    """Check the trace-event format; returns the X slices per (pid, tid) in time order."""
    assert set(data) == {"traceEvents", "otherData"}
    tracks = defaultdict(list)
    counters = defaultdict(list)
    named = set()
    for e in data["traceEvents"]:
        assert {"name", "ph", "pid", "tid"} <= set(e), e
        assert isinstance(e["pid"], int) and isinstance(e["tid"], int)
        if e["ph"] == "M":
            assert e["name"] in ("process_name", "process_sort_index", "thread_name", "thread_sort_index")
            if e["name"] == "thread_name":
                named.add((e["pid"], e["tid"]))
            continue
        assert isinstance(e["ts"], int) and e["ts"] >= 0  # whole cycles: no truncation when viewers read it
        if e["ph"] == "X":
            assert isinstance(e["dur"], int) and e["dur"] > 0 and e["cat"] in ("issue", "stall")
            tracks[(e["pid"], e["tid"])].append(e)
        else:
            assert e["ph"] == "C" and isinstance(e["args"]["value"], (int, float))
            counters[(e["pid"], e["name"])].append(e["ts"])
    for key, slices in tracks.items():
        assert key in named  # every warp track has a name
        ts = [s["ts"] for s in slices]
        assert ts == sorted(ts)
        for a, b in zip(slices, slices[1:]):  # back to back: no gap, no overlap
            assert a["ts"] + a["dur"] == b["ts"]
    for ts in counters.values():
        assert ts == sorted(ts) and len(set(ts)) == len(ts)
    return tracks


def _check_against_profile(prof, data):
    tracks = _validate(data)
    # the slices of a warp add up to its resident cycles, the warps' to the profile's stalls
    per_reason = defaultdict(float)
    n_slices = defaultdict(int)
    issues = 0
    for slices in tracks.values():
        start, end = slices[0]["ts"], slices[-1]["ts"] + slices[-1]["dur"]
        assert sum(s["dur"] for s in slices) == end - start
        assert end <= prof.sm_cycles
        for s in slices:
            if s["cat"] == "issue":
                issues += 1
                # one cycle per machine instruction of the PTX form (engine/trace/expansion.py)
                assert s["dur"] >= 1 and s["args"]["ptx_line"] > 0
                assert s["name"] in s["args"]["instruction"]
            reason = "selected" if s["cat"] == "issue" else s["args"]["reason"]
            per_reason[reason] += s["dur"]
            n_slices[reason] += 1
    for reason, cycles in prof.stalls.items():  # each slice's ends moved by at most half a cycle
        assert per_reason.get(reason, 0.0) == pytest.approx(cycles, abs=n_slices[reason] + 1e-6), reason
    assert issues <= prof.stalls["selected"] == per_reason["selected"]
    return tracks


def test_memory_bound_kernel_shows_memory_dependency(tmp_path):
    prof = _memory_bound()
    path = prof.to_perfetto(tmp_path / "k.json")
    data = json.loads(open(path).read())
    tracks = _check_against_profile(prof, data)
    assert len(tracks) == 8 * len(prof.collected.per_sm[0])  # 8 warps per CTA of SM 0
    reasons = {s["args"]["reason"] for t in tracks.values() for s in t if s["cat"] == "stall"}
    assert "memory_dependency" in reasons
    names = {s["name"] for t in tracks.values() for s in t}
    assert "memory dependency (long scoreboard)" in names and "ld.global.f32" in names
    ld = next(s for t in tracks.values() for s in t if s["name"] == "ld.global.f32")
    assert ld["args"]["ptx_line"] == HEADER.count("\n") + STRIDED.split("\n").index("  ld.global.f32 %f1, [%rd4];") + 1
    counter_names = {e["name"] for e in data["traceEvents"] if e["ph"] == "C"}
    assert counter_names == {"issued per cycle", "memory instructions in flight", "resident warps"}
    inflight = [e["args"]["value"] for e in data["traceEvents"] if e["name"] == "memory instructions in flight"]
    assert max(inflight) > 1 and inflight[-1] == 0


def test_barrier_heavy_kernel_shows_synchronization_and_names_warps():
    prof = _barrier_heavy(sms=2)
    data = trace_events(prof)
    tracks = _check_against_profile(prof, data)
    assert {pid for pid, _ in tracks} == {0, 1}  # one process per simulated SM
    sync = defaultdict(float)
    for (pid, tid), slices in tracks.items():
        sync[tid] += sum(s["dur"] for s in slices if s["cat"] == "stall" and s["args"]["reason"] == "synchronization")
    assert sync[1] < min(sync[t] for t in sync if t != 1)  # warp 0 works while the others wait at the barrier
    names = {e["args"]["name"] for e in data["traceEvents"] if e["name"] == "thread_name"}
    assert "CTA (0,0,0) warp 0" in names and "CTA (1,0,0) warp 7" in names
    assert any(s["name"] == "bar.sync" for t in tracks.values() for s in t)


def test_output_is_deterministic_and_replay_matches(tmp_path):
    a = _barrier_heavy().to_perfetto(tmp_path / "a.json")
    b = _barrier_heavy().to_perfetto(tmp_path / "b.json")
    assert open(a, "rb").read() == open(b, "rb").read()
    prof = _barrier_heavy(policy="lrr")
    totals = stall_totals(record(prof))
    assert totals == pytest.approx(prof.stalls)


def test_event_limit_and_profiles_without_a_trace(tmp_path):
    prof = _barrier_heavy()
    full = trace_events(prof)["traceEvents"]
    with pytest.warns(UserWarning, match="keeping the cycles before"):
        data = trace_events(prof, max_events=200)
    events = data["traceEvents"]
    assert len(events) <= 200 and data["otherData"]["truncated"]
    assert [e for e in events if e["ph"] == "M"] == [e for e in full if e["ph"] == "M"]  # every track keeps its name
    cut = max(e["ts"] for e in events if e["ph"] != "M")
    assert [e for e in full if e["ph"] != "M" and e["ts"] <= cut] == [e for e in events if e["ph"] != "M"]
    prof.collected = None
    with pytest.raises(ValueError, match="kept no trace"):
        prof.to_perfetto(tmp_path / "x.json")


def test_cli_perfetto(tmp_path):
    ptx = tmp_path / "b.ptx"
    ptx.write_text(HEADER + BARRIER_HEAVY)
    out = tmp_path / "trace.json"
    args = ["profile", str(ptx), "-k", "barrier_heavy", "-g", "1", "-b", "256",
            "-a", f"out:{tmp_path / 'o.npy'}:f32:256", "-a", "u32:2", "--perfetto"]
    r = CliRunner().invoke(main, args + [str(out)])
    assert r.exit_code == 0, r.output
    _validate(json.loads(out.read_text()))
    r = CliRunner().invoke(main, args + [str(tmp_path / "no" / "t.json")])
    assert r.exit_code == 1 and "cannot write" in r.output and "Traceback" not in r.output
