"""The simulated SM stands for the slowest SM of the launch.

SMs sit at different distances from the L2 partitions and the memory controllers, so one SM's
loads come back later than another's. With equal work per SM a latency-bound kernel ends when
the slowest SM does; the model simulates SM 0 with the memory latencies of a typical SM (the
micro2/micro3 chases, one SM). The `loaded` microbenchmark (benchmarks/timing/loaded,
results/micro4_loaded_h200.json), 132 SMs each running one warp of dependent loads: the slowest
SM's cycles per round exceed the median SM's by 14-22 cycles for L2 hits (median 16.3 over the
strides 4 B..4 KiB) and by 74-119 for DRAM (median 82.6). `ModelParams.slowest_sm_l2_cycles` / `slowest_sm_dram_cycles` are those medians.

How far the slowest of n active SMs lies from the typical one grows with n; the model takes
log2(n) / log2(sm_count) of the full extra (one SM: none, so the one-SM chases that pinned the
latencies keep them; every SM: all). Only this shape is assumed: `loaded` measured n = 132 alone.
"""
from __future__ import annotations

import dataclasses
import math


def slowest_fraction(n_active: int, sm_count: int) -> float:
    """The share of the slowest-SM extra latency that n_active busy SMs see (0 for one SM)."""
    if n_active <= 1 or sm_count <= 1:
        return 0.0
    return min(1.0, math.log2(n_active) / math.log2(sm_count))


def slowest_sm_gpu(gpu, params, n_active: int):
    """`gpu` with the L2-hit and DRAM latencies of the slowest of `n_active` SMs."""
    f = slowest_fraction(n_active, int(gpu.sm_count))
    extra_l2, extra_dram = params.slowest_sm_l2_cycles * f, params.slowest_sm_dram_cycles * f
    if not (extra_l2 or extra_dram):
        return gpu
    lat = dict(gpu.latency)
    lat["l2_hit"] = lat["l2_hit"] + extra_l2
    lat["dram"] = lat["dram"] + extra_dram
    return dataclasses.replace(gpu, latency=lat)
