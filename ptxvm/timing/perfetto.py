"""`Profile.to_perfetto(path)`: the timing model's warps over cycles as a Chrome/Perfetto trace.

The file is the JSON trace-event format (ui.perfetto.dev and chrome://tracing open it):

* one process per simulated SM ("SM 0"), one thread per warp ("CTA (x,y,z) warp n");
* on a warp's track, back to back from the cycle its CTA launched to the cycle it retired, a
  slice per issue (1 cycle, named by the instruction's opcode and modifiers, with its PTX line,
  PC and text in args) and a slice per stall (named by the reason: "memory dependency",
  "synchronization" (barrier), "not selected", ...). The slices of a warp add up to its
  resident cycles, and their totals per reason over all warps are `Profile.stalls`;
* counter tracks per SM: instructions issued per cycle (averaged over bins of a few cycles),
  memory instructions in flight (issued, data not back yet), resident warps.

Time: 1 microsecond in the file is one SM cycle (the format counts in microseconds; the GPU's
clock is in the trace's metadata). The model's times can be fractional (half-cycle issue
intervals, latencies); the file's are whole cycles (each boundary rounded half up, so a warp's
slices stay back to back, and a stall shorter than the rounding vanishes), because viewers turn
fractional microseconds into integer nanoseconds by truncation, which would make neighbouring
slices overlap.

Profiles do not keep timelines: `to_perfetto` runs the SM model again over the trace the profile
kept (`Profile.collected`) with a `Timeline` recorder per SM (deterministic: same cycles, same
stalls). Normal profiles pay one `is not None` test per charge and per issue in the SM loop.
"""
from __future__ import annotations

import json
import math
import warnings
import numpy as np

from .sm import SELECTED, STALL_REASONS, MK_NONE

# slice names of the stall reasons (the keys of Profile.stalls, as ncu words them)
STALL_NAMES = {
    "not_selected": "not selected",
    "pipe_busy": "pipe busy",
    "instruction_fetch": "instruction fetch",
    "synchronization": "synchronization (barrier)",
    "memory_throttle": "memory throttle (MIO/LSU queue)",
    "memory_dependency": "memory dependency (long scoreboard)",
    "execution_dependency": "execution dependency (short scoreboard)",
    "wait": "wait (fixed-latency dependency)",
    "sleeping": "sleeping",
    "texture": "texture",
    "constant": "constant cache",
}

COUNTER_BINS = 2000  # at most this many points on the issue-rate counter


class Timeline:
    """Recorder for one SmSim (sm.py calls `stall` and `issue`; profile.simulate calls `begin`):
    per warp, its intervals in time order."""

    def __init__(self):
        self.work = None
        self.trace = None
        self.warps: dict[int, list] = {}  # warp row -> [(start, end, code)]: code >= 0 an issue, < 0 -1-reason
        self.memory: list = []  # (issue cycle, data back) of memory instructions

    def begin(self, work, trace, cta_ids) -> None:
        self.work, self.trace = work, trace

    def _track(self, wp) -> list:
        got = self.warps.get(wp.w)
        if got is None:
            got = self.warps[wp.w] = []
        return got

    def stall(self, wp, reason: int, start: float, end: float) -> None:
        self._track(wp).append((start, end, -1 - reason))

    def issue(self, wp, i: int, t: float, done: float) -> None:
        # a PTX form of n machine instructions holds its sub-partition's issue slot n cycles
        self._track(wp).append((t, t + (self.work.slots[i] if self.work.slots else 1), i))
        if self.work.mkind[i] != MK_NONE:
            self.memory.append((t, done))


def record(profile) -> list[Timeline]:
    """Run the SM model of `profile` again with a Timeline per simulated SM."""
    from .profile import simulate

    if profile.collected is None:
        raise ValueError("this Profile kept no trace to replay (make it with Kernel.profile or ptxvm.timing.profile)")
    timelines = [Timeline() for _ in profile.collected.sms]
    again = simulate(profile.collected, policy=profile.policy, params=profile.params, recorders=timelines)
    if again.sm_cycles != profile.sm_cycles:  # the model is deterministic; this would be a bug
        raise RuntimeError(f"the SM model replayed to {again.sm_cycles} cycles, not {profile.sm_cycles}")
    return timelines


def trace_events(profile, max_events: int = 2_000_000) -> dict:
    """The trace as a dict in the JSON trace-event format (see the module docstring)."""
    timelines = record(profile)
    events: list = []
    names: dict = {}
    grid = profile.grid
    for sm, tl in enumerate(timelines):
        events.append(_meta("process_name", sm, 0, name=f"SM {sm} ({profile.gpu})"))
        events.append(_meta("process_sort_index", sm, 0, sort_index=sm))
        cta, widx, _ = tl.trace.warps()
        rows = sorted(tl.warps, key=lambda w: (int(cta[w]), int(widx[w])))
        for order, w in enumerate(rows):
            c = int(cta[w])
            xyz = (c % grid[0], (c // grid[0]) % grid[1], c // (grid[0] * grid[1]))
            events.append(_meta("thread_name", sm, w + 1,
                                name=f"CTA ({xyz[0]},{xyz[1]},{xyz[2]}) warp {int(widx[w])}"))
            events.append(_meta("thread_sort_index", sm, w + 1, sort_index=order))
        for w in rows:
            events.extend(_warp_slices(tl, sm, w, names))
        events.extend(_counters(tl, sm))
    truncated = len(events) > max_events
    if truncated:
        events, cut = _first_cycles(events, max_events)
        warnings.warn(f"the Perfetto trace would have more than {max_events} events; keeping the cycles "
                      f"before {cut} (to_perfetto(..., max_events=N) keeps more)", stacklevel=3)
    return {
        "traceEvents": events,
        "otherData": {
            "kernel": profile.kernel, "gpu": profile.gpu, "grid": list(grid), "block": list(profile.block),
            "policy": profile.policy, "time_unit": "1 us in this trace = 1 SM cycle",
            "clock_hz": profile.collected.spec.clock_hz, "sm_cycles": profile.sm_cycles,
            "simulated_sms": profile.simulated_sms, "truncated": truncated,
        },
    }


def _first_cycles(events: list, limit: int) -> tuple[list, int]:
    """The metadata and the slices and counter points that start before the cycle where `limit`
    events are reached (a slice running past that cycle is kept whole)."""
    meta = [e for e in events if e["ph"] == "M"]
    timed = [e for e in events if e["ph"] != "M"]
    room = max(limit - len(meta), 0)
    starts = sorted(e["ts"] for e in timed)
    cut = starts[room] if room < len(starts) else starts[-1] + 1
    return meta + [e for e in timed if e["ts"] < cut], cut


def write_perfetto(profile, path, max_events: int = 2_000_000) -> str:
    data = trace_events(profile, max_events)
    with open(path, "w") as f:
        json.dump(data, f, separators=(",", ":"))
    return str(path)


def _meta(kind: str, pid: int, tid: int, **args) -> dict:
    return {"name": kind, "ph": "M", "pid": pid, "tid": tid, "args": args}


def _instr_name(info) -> str:
    """The opcode with its modifiers, as the slice's name ("ld.global.f32")."""
    words = info.text.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0].rstrip(";") if words else info.opcode


def _cycle(t: float) -> int:
    """A model time as the whole cycle the file shows it at (half up)."""
    return math.floor(t + 0.5)


def _warp_slices(tl: Timeline, sm: int, w: int, names: dict) -> list:
    """A warp's issue slices and its stall slices (adjacent stalls of one reason merged)."""
    out = []
    pcs = tl.work.pc
    info = tl.trace.info
    pending = None  # the stall slice being extended: [start, end, reason]
    for start, end, code in tl.warps[w]:
        start, end = _cycle(start), _cycle(end)
        if end <= start:
            continue
        if code < 0:
            reason = -1 - code
            if pending is not None and pending[2] == reason and pending[1] == start:
                pending[1] = end
                continue
            if pending is not None:
                out.append(_stall(sm, w, *pending))
            pending = [start, end, reason]
            continue
        if pending is not None:
            out.append(_stall(sm, w, *pending))
            pending = None
        pc = int(pcs[code])
        got = names.get(pc)
        if got is None:
            ii = info(pc)
            got = names[pc] = (_instr_name(ii), {"ptx_line": ii.line, "pc": pc, "instruction": ii.text,
                                                 "class": ii.op_class})
        out.append({"name": got[0], "cat": "issue", "ph": "X", "ts": start, "dur": end - start, "pid": sm, "tid": w + 1,
                    "args": got[1]})
    if pending is not None:
        out.append(_stall(sm, w, *pending))
    return out


def _stall(sm: int, w: int, start: float, end: float, reason: int) -> dict:
    key = STALL_REASONS[reason]
    return {"name": STALL_NAMES.get(key, key), "cat": "stall", "ph": "X", "ts": start, "dur": end - start,
            "pid": sm, "tid": w + 1, "args": {"reason": key}}


def _counters(tl: Timeline, sm: int) -> list:
    out = []
    spans = [(_cycle(iv[0][0]), _cycle(iv[-1][1])) for iv in tl.warps.values() if iv]
    end = max((e for _, e in spans), default=0)
    # instructions issued per cycle, averaged over bins
    issues = np.array([_cycle(s) for iv in tl.warps.values() for s, _, code in iv if code >= 0], dtype=np.int64)
    if issues.size:
        width = max(1, math.ceil(end / COUNTER_BINS))
        counts = np.bincount(issues // width)
        last = None
        for b, n in enumerate(counts.tolist() + [0]):
            if n != last:  # one point per change
                out.append(_counter("issued per cycle", sm, b * width, round(n / width, 4)))
                last = n
    out.extend(_steps("memory instructions in flight", sm, [(_cycle(a), _cycle(b)) for a, b in tl.memory]))
    out.extend(_steps("resident warps", sm, spans))
    return out


def _steps(name: str, sm: int, spans: list) -> list:
    """A counter that is the number of open [start, end) spans, one point per change."""
    if not spans:
        return []
    delta: dict = {}
    for s, e in spans:
        delta[s] = delta.get(s, 0) + 1
        delta[e] = delta.get(e, 0) - 1
    out, level = [], 0
    for t in sorted(delta):
        if delta[t]:
            level += delta[t]
            out.append(_counter(name, sm, t, level))
    return out


def _counter(name: str, sm: int, ts: float, value) -> dict:
    return {"name": name, "ph": "C", "ts": ts, "pid": sm, "tid": 0, "args": {"value": value}}


def stall_totals(timelines: list[Timeline]) -> dict:
    """Warp-cycles per stall reason over the timelines (equal to Profile.stalls)."""
    total = [0.0] * len(STALL_REASONS)
    for tl in timelines:
        for iv in tl.warps.values():
            for s, e, code in iv:
                total[SELECTED if code >= 0 else -1 - code] += e - s
    return dict(zip(STALL_REASONS, total))


__all__ = ["Timeline", "record", "stall_totals", "trace_events", "write_perfetto"]
