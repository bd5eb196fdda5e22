"""Which SM decides a kernel's time when its CTAs do unequal work.

The model simulates SM 0's CTAs in detail (CTA i runs on SM i % sm_count). When CTAs are alike
that SM, with the most CTAs, is the slowest. When their work depends on the data (SpMV rows of a
power-law matrix, trip counts read from memory, early exits) another SM may hold the CTA with the
longest warp, the critical path of a latency-bound kernel, or the most warp-instructions, the
bound of an issue- or throughput-bound one; the kernel lasts until that SM is done.

The functional run counts every warp's instructions (engine/trace/events.py WorkCount);
`critical_sms` names the SMs to simulate besides the ones already chosen, and `fresh_args`
gives the kernel's arguments as they were before the run, so that those SMs' CTAs can run again
on the inputs they would have seen (their traces must come from the same data).
"""
from __future__ import annotations

from typing import Optional

import numpy as np

# Another SM is simulated too when its work exceeds the simulated ones' by more than this
# fraction: below it the difference is within what dispatch order and noise change anyway.
MARGIN = 0.10


def critical_sms(per_warp: np.ndarray, sm_count: int, simulated: list[int], margin: float = MARGIN) -> list[int]:
    """The SMs (at most two) beyond `simulated` whose CTAs have the longest warp or the most
    warp-instructions, where that exceeds every simulated SM's by more than `margin`."""
    G = per_warp.shape[0]
    n = min(sm_count, G)
    if n <= len(simulated) or per_warp.size == 0:
        return []
    sm_of = np.arange(G) % sm_count
    longest = np.zeros(sm_count, dtype=np.int64)
    np.maximum.at(longest, sm_of, per_warp.max(axis=1))
    total = np.bincount(sm_of, weights=per_warp.sum(axis=1), minlength=sm_count)
    picks: list[int] = []
    for metric in (longest, total):
        best = int(np.argmax(metric))
        have = max(float(metric[s]) for s in simulated + picks)
        if best not in simulated and best not in picks and metric[best] > (1.0 + margin) * have:
            picks.append(best)
    return picks


def snapshot_args(args: list) -> Optional[list]:
    """Copies of the arrays among `args` (host or device), taken before a launch; None when an
    argument is a buffer this module cannot copy (then no other SM is simulated)."""
    from ..engine.core.device import DeviceArray

    out = []
    for a in args:
        if isinstance(a, np.ndarray):
            out.append(("host", a, a.copy()))
        elif isinstance(a, DeviceArray):
            out.append(("device", a, a.copy_to_host()))
        elif isinstance(a, (int, float, bool, np.generic)) or a is None:
            out.append(("value", a, a))
        else:
            return None
    return out


def fresh_args(snapshot: list, device) -> tuple[list, list]:
    """Arguments holding the snapshot's contents, in new buffers (the caller's keep the first
    run's results); an argument passed twice stays one buffer. Returns (args, device arrays to
    free afterwards)."""
    made: dict = {}
    out, owned = [], []
    for kind, original, saved in snapshot:
        if kind == "value":
            out.append(saved)
            continue
        key = id(original)
        if key not in made:
            if kind == "host":
                made[key] = saved.copy()
            else:
                made[key] = device.to_device(saved)
                owned.append(made[key])
        out.append(made[key])
    return out, owned
