#!/usr/bin/env python3
"""The timing model on the `loaded` latency-under-load microbenchmarks (loaded.cu), against the H200.

    python benchmarks/timing/loaded/predict.py [--gpu h200] [--points all|core] [--fp l2,dram]
        [--set dram_tail_per_warp=0,slowest_sm_dram_cycles=0] [--only fp:S:W:K,...]

Each point (footprint, stride S, warps per SM W, loads in flight per warp K) runs strided_k<K>
as the recorder launched it (132 CTAs of 32*W threads, 264 of 1024 for W = 64; every CTA runs,
`functional="all"`, so the model knows which sectors other SMs fetch too; `warm_l2=True` for the
L2 window, read once before as on the device, False for the DRAM window, flushed before) and
compares the model's SM cycles with the slowest CTA's clock64 cycles measured
(benchmarks/timing/results/micro4_loaded_<gpu>.json; the median CTA's beside them). Prints
cycles per round of K loads, measured and predicted, the error, and the resource the model
finds busiest: where it is an issue pipe (the loop's 64-bit address arithmetic, which ptxas
shortens more than the model's PTX-level count does), the point says nothing about memory.
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
MIB = 1 << 20
SMS = 132
# the points the default run predicts: every stride at few and many warps, the warp sweep at
# 1 and 32 lines per request
CORE = [(s, w, k) for s in (4, 32, 128, 4096) for w in (1, 8, 32) for k in (1, 4)] + \
       [(s, w, 4) for s in (4, 4096) for w in (2, 4, 16, 64)] + [(4096, w, 16) for w in (1, 8, 16)] + \
       [(4, 1, k) for k in (2, 8, 16)] + [(4, 8, 16)]


def geometry(w):
    return (SMS * 2, 1024) if w == 64 else (SMS, 32 * w)


def model_profile(module, fp, s, w, k, iters, gpu, buf, params=None, shared=0):
    grid, block = geometry(w)
    lstride = s.bit_length() - 1
    mask = (16 * MIB if fp == "l2" else 4096 * MIB) - 1
    cyc = np.zeros(grid, np.int64)
    sink = np.zeros(grid, np.int32)
    p = module[f"strided_k{k}"].profile(grid, block, [buf, cyc, sink, np.int32(lstride), np.int32(max(0, lstride - 5)),
                                                     np.uint64(mask), np.int32(iters)],
                                        gpu=gpu, warm_l2=(fp == "l2"),
                                        functional="all", params=params, shared_mem=shared)
    return p


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpu", default="h200")
    ap.add_argument("--points", default="core", help="core (a subset), all, or carveout (the shared-memory "
                    "carveout points, results/micro4_loaded_carveout_<gpu>.json)")
    ap.add_argument("--fp", default="l2,dram")
    ap.add_argument("--set", default="", help="ModelParams changes, name=value,... (a rule off: =0)")
    ap.add_argument("--only", default="", help="points fp:S:W:K,... (instead of --points)")
    a = ap.parse_args(argv)
    import ptxvm
    from ptxvm.timing.params import DEFAULT

    params = DEFAULT.with_text(a.set)

    mod = ptxvm.load(os.path.join(HERE, "loaded.ptx"))
    doc = json.load(open(os.path.join(RESULTS, f"micro4_loaded_{a.gpu}.json")))
    iters = doc["iters"]
    carve = os.path.join(RESULTS, f"micro4_loaded_carveout_{a.gpu}.json")  # `--carveout`, recorded apart
    carveout = json.load(open(carve))["items"]["carveout"] if os.path.exists(carve) else []
    pts = [p for p in doc["items"]["grid"] + carveout if "error" not in p]
    if a.only:
        want = {(f, int(s), int(w), int(k)) for f, s, w, k in (x.split(":") for x in a.only.split(","))}
        pts = [p for p in pts if (p["fp"], p["stride"], p["warps"], p["k"]) in want]
    elif a.points == "carveout":
        pts = carveout
    elif a.points == "core":
        pts = [p for p in pts if (p["stride"], p["warps"], p["k"]) in CORE and "shared" not in p]
    buf = np.zeros(4096 * MIB // 4, np.int32)  # untouched pages stay unallocated
    errs = {}
    print(f"{'fp':4s} {'S':>5s} {'W':>3s} {'K':>3s}  {'slowest':>8s} {'median':>8s} {'model':>8s}   error  busiest"
          "   (cycles per round; error against the slowest CTA)")
    for p in pts:
        if p["fp"] not in a.fp.split(","):
            continue
        prof = model_profile(mod, p["fp"], p["stride"], p["warps"], p["k"], iters, a.gpu, buf, params,
                             p.get("shared", 0))
        got, meas = prof.sm_cycles, p["cycles_max"]
        e = 100 * (got - meas) / meas
        busy = max(prof.utilization.items(), key=lambda kv: kv[1], default=("-", 0.0))
        errs.setdefault(p["fp"], []).append(abs(e))
        print(f"{p['fp']:4s} {p['stride']:5d} {p['warps']:3d} {p['k']:3d}  {meas / iters:8.1f} "
              + (f"(+{p['shared'] // 1024} KiB shared) " if p.get("shared") else "") +
              f"{p['cycles_median'] / iters:8.1f} {got / iters:8.1f}  {e:+6.1f} %  {busy[0]} {busy[1]:.0%}", flush=True)
    for fp, e in errs.items():
        print(f"{fp}: mean absolute error {sum(e) / len(e):.1f} % over {len(e)} points")
    return 0


if __name__ == "__main__":
    sys.exit(main())
