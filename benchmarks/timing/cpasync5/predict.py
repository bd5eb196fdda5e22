#!/usr/bin/env python3
"""The timing model on the cpasync5 microbenchmarks (mixed.cu, barrier.cu), against the H200.

    python benchmarks/timing/cpasync5/predict.py [--items streams,writers,barrier] [--gpu h200]
                                                 [--set NAME=VALUE,...]

Every point runs the PTX the recorder (tools/device/timing_cpasync5.py) ran, with its grid and
block, `functional="sampled"`, the L2 as the cold convention's memset leaves it (`warm_l2=False`;
the model has no "clean" state: the H200's clean figure is printed beside the dirty one). Figures
are the readers' cycles per round: measured, the median reader warp over the whole run
(results/cpasync5_mixed_h200.json, cpasync5_barrier_h200.json); the model, the SM's cycles of a
run of R rounds minus one of a few rounds, per round.

  streams  mixed / mixed64 without writers: ld4 / ld16 / cp16 readers and 4- / 16-B copies, K
           requests per warp in flight, 32 or 64 warps per SM (dram_writeback_latency: the copies)
  writers  mixed with 2 writer warps per CTA (4- or 16-B stores as long as the readers read; the
           model's writers store what the H200's counted, in proportion to the rounds)
  barrier  barrier.cu: 512-B requests with and without a __syncthreads per round, CTAs of 2 / 8 /
           32 warps (second half of the run against the clean figure)
"""
from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, ROOT)
RESULTS = os.path.join(ROOT, "benchmarks", "timing", "results")
WARPS = 8
STREAMS = {("ld4", 1, 528), ("ld16", 1, 528), ("cp16", 1, 528), ("ld16", 2, 528), ("cp16", 2, 528),
           ("copy4", 1, 528), ("copy16", 1, 528), ("ld4", 1, 1056), ("ld16", 1, 1056), ("copy4", 1, 1056),
           ("copy16", 1, 1056), ("copy4", 4, 1056)}
WRITERS = {("ld4", 1, 4), ("ld4", 1, 16), ("ld16", 1, 4), ("ld16", 1, 16), ("cp16", 1, 16)}


def items(gpu: str, name: str, key: str) -> list:
    return json.load(open(os.path.join(RESULTS, f"cpasync5_{name}_{gpu}.json")))["items"][key]


def mixed_cycles(mod, pt: dict, gpu: str, params, lengths) -> float:
    """Cycles per round of a `mixed` point: the difference of two run lengths."""
    grid = pt.get("grid", 528)
    writers, ww = pt["writers"], pt["write_bytes_per_lane"]
    per_lane = pt["bytes_written"] / max(1, grid * writers) / 32 / ww  # stores per writer lane, measured
    rd, wr = np.zeros(1 << 30, np.uint8), np.zeros(1 << 28, np.uint8)
    c = []
    for n in lengths:
        ws = max(8, int(round(per_lane * n / pt["rounds"] / 8)) * 8) if writers else 0
        args = [rd, wr, np.uint64(rd.size - 1), np.uint64(wr.size - 1), np.int32(n), np.int32(writers),
                np.int32(ws), np.zeros(grid * WARPS, np.int64), np.zeros(4, np.uint64)]
        p = mod[f"mixed_{pt['mode']}_k{pt['k']}_w{ww}"].profile(grid, 32 * WARPS, args, gpu=gpu, warm_l2=False,
                                                               functional="sampled", params=params)
        c.append(p.sm_cycles)
    return (c[1] - c[0]) / (lengths[1] - lengths[0])


def barrier_cycles(mod, pt: dict, gpu: str, params) -> float:
    r, g, w = pt["rounds"], pt["grid"], pt["cta_warps"]
    rd = np.zeros(1 << 30, np.uint8)
    c = []
    for n in (r // 4, r // 2):
        args = [rd, np.uint64(rd.size - 1), np.int32(n), np.int32(pt["bar"]), np.zeros(g * w, np.int64),
                np.zeros(4, np.uint64)]
        p = mod[f"bstream_{pt['mode']}_k{pt['k']}_s{pt['stages']}"].profile(
            g, 32 * w, args, gpu=gpu, warm_l2=False, functional="sampled", shared_mem=32 * w * pt["k"] * pt["stages"] * 16,
            params=params)
        c.append(p.sm_cycles)
    return (c[1] - c[0]) / (r // 4)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpu", default="h200")
    ap.add_argument("--items", default="streams")
    ap.add_argument("--set", default="", help="model parameters to override, NAME=VALUE,...")
    a = ap.parse_args(argv)
    import ptxvm
    from ptxvm.timing.params import ModelParams

    params = ModelParams(**{kv.split("=")[0]: float(kv.split("=")[1]) for kv in a.set.split(",") if kv})
    which = a.items.split(",")
    errs = []

    def row(name, meas, model, note=""):
        errs.append(abs(model - meas) / meas)
        print(f"{name:40s} {meas:7.0f} {model:7.0f} {(model - meas) / meas:+7.1%}  {note}", flush=True)

    print(f"{'point (cycles per round of the readers)':40s} {'H200':>7s} {'model':>7s} {'err':>7s}")
    if "streams" in which or "writers" in which:
        mod = ptxvm.load(os.path.join(HERE, "mixed.ptx"))
        pts = items(a.gpu, "mixed", "mixed") + items(a.gpu, "barrier", "mixed64")
        clean = {(p["mode"], p["k"], p.get("grid", 528)): p["round_median"] for p in pts
                 if p["l2_before"] == "clean"}
        for p in pts:
            g = p.get("grid", 528)
            if p["l2_before"] != "dirty":
                continue
            name = f"{p['mode']} k{p['k']} {g // 132 * WARPS} warps/SM"
            if p["writers"] == 0 and "streams" in which and (p["mode"], p["k"], g) in STREAMS:
                t = mixed_cycles(mod, p, a.gpu, params, (4, p["rounds"]))
                row(name, p["round_median"], t, f"(clean {clean[(p['mode'], p['k'], g)]:.0f})")
            elif p["writers"] and "writers" in which and (p["mode"], p["k"], p["write_bytes_per_lane"]) in WRITERS:
                t = mixed_cycles(mod, p, a.gpu, params, (8, 24))
                row(f"{name} + {p['writers']} writers x {p['write_bytes_per_lane']} B", p["round_median"], t)
    if "barrier" in which:
        mod = ptxvm.load(os.path.join(HERE, "barrier.ptx"))
        for p in items(a.gpu, "barrier", "barrier"):
            if p["l2_before"] != "clean" or p["mode"] != "cp16":
                continue  # (ld16: nvcc puts the barrier between the load and the use of its value)
            name = f"cp16 k{p['k']} S{p['stages']} {p['cta_warps']}-warp CTAs bar {p['bar']}"
            row(name, p["round_median"], barrier_cycles(mod, p, a.gpu, params), "(clean)")
    if errs:
        print(f"mean |error| {np.mean(errs):.1%} over {len(errs)} points")
    return 0


if __name__ == "__main__":
    sys.exit(main())
