#!/usr/bin/env python3
"""The timing model on the per-thread walk microbenchmarks (walk.cu), against the H200.

    python benchmarks/timing/walk/predict.py [--gpu h200] [--only kernel:K:C,...] [--conv cold,warm]
        [--set name=value,...] [--counters]

Each point (kernel, words per thread K, CTAs of 256 threads per SM C) runs as the recorder
launched it (132*C CTAs, every CTA on the engine) and compares the model with
results/walk_<gpu>.json: SM cycles against the slowest CTA's clock64 cycles, the kernel time
against the CUDA-event time of the same convention (cold: `warm_l2=False`, after the 256 MiB
memset; warm: `warm_l2=True`). `--counters`: the model's L1 hit rate and L2 read sectors beside
ncu's (results/walk_ncu_<gpu>.csv, cold launches).
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, ROOT)
RESULTS = os.path.join(ROOT, "benchmarks", "timing", "results")
SMS, THREADS = 132, 256
# the default run: every kernel at K = 32, the CTA sweep, plus K = 8 / 64 at 8 CTAs
CORE = [(k, 32, c) for k in ("walk_ld_u1", "walk_ld_u4", "walk_ld2_u4", "walk_ldst_u4", "walk_st_u4")
        for c in (1, 2, 4, 8)] + [(k, K, 8) for k in ("walk_ld_u4", "walk_ld2_u4") for K in (8, 64)]


def args_for(name, K, c):
    n = SMS * c * THREADS * K
    a = np.ones(n, np.float32)
    cyc = np.zeros(SMS * c, np.int64)
    if name.startswith("walk_ld2"):
        return [a, np.ones(n, np.float32), np.zeros(SMS * c * THREADS, np.float32), cyc, np.int32(K)]
    if name.startswith("walk_st"):
        return [np.zeros(n, np.float32), cyc, np.int32(K)]
    if name.startswith("walk_ldst"):
        return [a, np.zeros(n, np.float32), cyc, np.int32(K)]
    return [a, np.zeros(SMS * c * THREADS, np.float32), cyc, np.int32(K)]


def model_profile(module, name, K, c, gpu, cold, params=None, shared=0):
    return module[name].profile(SMS * c, THREADS, args_for(name, K, c), gpu=gpu, warm_l2=not cold,
                                functional="all", params=params, shared_mem=shared)


def ncu_rows(gpu):
    """ncu's counters per launch, in launch order (the recorder's --ncu-mode: the grid, then carveout)."""
    path = os.path.join(RESULTS, f"walk_ncu_{gpu}.csv")
    if not os.path.exists(path):
        return []
    lines = [ln for ln in open(path) if ln.startswith('"')]
    rows = list(csv.DictReader(lines))
    return [r for r in rows if r.get("Kernel Name", "").startswith("walk_")]


def _num(x):
    try:
        return float(str(x).replace(",", ""))
    except ValueError:
        return float("nan")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpu", default="h200")
    ap.add_argument("--only", default="", help="points kernel:K:C,... (default: a core subset; 'all': every point)")
    ap.add_argument("--conv", default="cold,warm")
    ap.add_argument("--set", default="", help="ModelParams changes, name=value,... (a rule off: =0)")
    ap.add_argument("--counters", action="store_true", help="L1 hit rate and L2 sectors against ncu")
    a = ap.parse_args(argv)
    import ptxvm
    from ptxvm.timing.params import DEFAULT

    params = DEFAULT.with_text(a.set)
    mod = ptxvm.load(os.path.join(HERE, "walk.ptx"))
    doc = json.load(open(os.path.join(RESULTS, f"walk_{a.gpu}.json")))
    grid = [p for p in doc["items"]["grid"] if "error" not in p]
    order = [(p["kernel"], p["K"], p["ctas_per_sm"]) for p in grid]
    ncu = dict(zip(order, ncu_rows(a.gpu)))
    if a.only == "all":
        want = set(order)
    elif a.only:
        want = {(k, int(K), int(c)) for k, K, c in (x.split(":") for x in a.only.split(","))}
    else:
        want = set(CORE)
    print(f"{'kernel':13s} {'K':>3s} {'C':>2s} {'conv':4s} {'cyc meas':>9s} {'model':>9s} {'err':>7s}   "
          f"{'us meas':>8s} {'model':>8s} {'err':>7s}" + ("   L1 hit % ncu/model   L2 read sectors per SM ncu/model" if a.counters else ""))
    errs: dict = {}
    for p in grid:
        key = (p["kernel"], p["K"], p["ctas_per_sm"])
        if key not in want:
            continue
        for conv in a.conv.split(","):
            prof = model_profile(mod, *key, a.gpu, conv == "cold", params)
            m = p[conv]
            ec = 100 * (prof.sm_cycles - m["cycles_max"]) / m["cycles_max"]
            et = 100 * (prof.seconds * 1e6 - m["us"]) / m["us"]
            # the warm CUDA-event times include host launch gaps (nothing queued before the
            # launch): score warm by the SM cycles, cold by the kernel time
            errs.setdefault(conv, []).append(abs(et if conv == "cold" else ec))
            line = (f"{key[0]:13s} {key[1]:3d} {key[2]:2d} {conv:4s} {m['cycles_max']:9.0f} {prof.sm_cycles:9.0f} "
                    f"{ec:+6.1f}%   {m['us']:8.2f} {prof.seconds * 1e6:8.2f} {et:+6.1f}%")
            if a.counters and conv == "cold":
                c = prof.counters
                hit = 100 * c.get("l1_hits", 0) / max(1, c.get("l1_hits", 0) + c.get("l1_misses", 0))
                l2rd = c.get("l2_hits", 0) + c.get("l2_misses", 0)  # sectors the simulated SM read from L2
                r = ncu.get(key, {})
                line += (f"   {_num(r.get('l1tex__t_sector_hit_rate.pct', 'nan')):5.1f}/{hit:5.1f}"
                         f"   {_num(r.get('lts__t_sectors_srcunit_tex_op_read.sum', 'nan')) / SMS:9.0f}/{l2rd:9.0f}")
            print(line, flush=True)
    for conv, e in errs.items():
        what = "kernel time" if conv == "cold" else "SM cycles"
        print(f"{conv}: mean absolute error ({what}) {sum(e) / len(e):.1f} % over {len(e)} points")
    return 0


if __name__ == "__main__":
    sys.exit(main())
