"""Which resource bounds a kernel, and why: the explanation in Profile.report().

From the SM model's busy times (sm.SmResult) and stall breakdown, over the simulated SM's
cycles: how busy the issue slots, each functional-unit pipe, the L1/shared-memory data stage,
the L1's miss path, this SM's share of L2 and DRAM bandwidth and the barrier unit were, and how
much of the kernel's time is the fixed launch cost. The busiest resource above `BUSY` (70 %)
bounds the kernel; below it the kernel is latency-bound and the dominant stall reason says on
what its warps wait (with the achieved occupancy that failed to hide it).
"""
from __future__ import annotations

BUSY = 0.7

_STALL_WORDS = {
    "memory_dependency": "global/local memory results (long scoreboard)",
    "execution_dependency": "results of shared memory, shuffles, MUFU or S2R (short scoreboard)",
    "wait": "fixed-latency results of arithmetic (stall counts)",
    "synchronization": "barriers (bar.sync)",
    "pipe_busy": "a busy functional unit",
    "memory_throttle": "the L1/shared-memory queue",
    "instruction_fetch": "instruction fetch (taken branches, instruction-cache misses)",
    "constant": "constant-cache misses",
    "texture": "the texture pipe",
    "sleeping": "nanosleep",
    "not_selected": "other warps' issue (eligible but not selected)",
}

_RESOURCE_WORDS = {
    "issue": "instruction issue (one per cycle per sub-partition)",
    "l1": "the L1/shared-memory data stage (wavefronts, bank conflicts, 128-B lines)",
    "l2_requests": "the L1's miss path to L2 (128-B line requests)",
    "l2": "L2 bandwidth (this SM's share)",
    "dram": "DRAM bandwidth (this SM's share)",
    "barrier": "the SM's barrier unit",
}


def utilizations(results, subpartitions: int) -> dict:
    """Resource -> busy fraction on the simulated SM(s) over their cycles (issue slots and pipes:
    the busiest sub-partition's)."""
    cycles = sum(r.cycles for r in results) or 1
    out = {"l1": sum(r.l1_busy for r in results) / cycles,
           "l2": sum(r.l2_busy for r in results) / cycles,
           "dram": sum(r.dram_busy for r in results) / cycles,
           "barrier": sum(r.barrier_busy for r in results) / cycles}
    pipes: dict = {}
    for r in results:
        for k, v in r.pipe_busy.items():
            pipes[k] = pipes.get(k, 0.0) + v
    for k, v in pipes.items():  # the busiest sub-partition's pipes and issue slots
        out[k if k == "issue" else "pipe:" + k] = v / cycles
    return {k: round(min(v, 1.0), 4) for k, v in out.items()}


def explain(util: dict, stalls: dict, launch_share: float, achieved_occupancy: float, waves: float) -> str:
    busiest = max(util, key=util.get) if util else None
    parts = []
    if launch_share >= 0.5:
        parts.append(f"launch overhead: {launch_share:.0%} of the time is the fixed cost of a launch")
        if launch_share >= 0.9:
            return parts[0]
    if busiest is not None and util[busiest] >= BUSY:
        name = busiest[5:] + " pipe" if busiest.startswith("pipe:") else _RESOURCE_WORDS.get(busiest, busiest)
        parts.append(f"bound by {name}: busy {util[busiest]:.0%} of the SM's cycles")
    else:
        waits = {k: v for k, v in stalls.items() if k not in ("selected",) and v}
        top = max(waits, key=waits.get) if waits else None
        total = sum(stalls.values()) or 1.0
        what = _STALL_WORDS.get(top, top) if top else "nothing"
        busy = f"; busiest resource {busiest} at {util[busiest]:.0%}" if busiest else ""
        parts.append(f"latency-bound: warps spend {waits.get(top, 0.0) / total:.0%} of their cycles waiting on "
                     f"{what} and too few warps (achieved occupancy {achieved_occupancy:.0%}) hide it{busy}")
    frac = waves - int(waves)
    if waves > 1 and 0 < frac < 0.5:
        parts.append(f"tail: the last of {waves:.2f} waves keeps the SM partly idle")
    return "; ".join(parts)
