#!/usr/bin/env python3
"""The timing model on the micro3 DRAM microbenchmarks (dram.cu), against the H200's results.

    python benchmarks/timing/micro3/predict.py [--gpu h200]

chase: one warp, n distinct random lines per hop through 64 MiB, L2 flushed (`warm_l2=False`),
cycles per hop; gather: random / sequential 32-B and 128-B granules from a 256 MiB table over all
SMs (SM 0's CTAs run, `functional="sampled"`), granules per second. Prints measured, predicted
and the error of each point.
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
HOPS = 64


def chase_cycles(kernel, lines, gpu, region=64 << 20, seed=0):
    rng = np.random.default_rng(seed)
    words = np.zeros(region // 4, np.uint32)
    seqs = [1 + rng.choice(region // 128 - 1, size=HOPS + 1, replace=False) for _ in range(lines)]
    for lane in range(32):
        w = seqs[lane % lines] * 32 + lane
        w[0] = lane
        words[w[:-1]] = w[1:]
    out = np.zeros(33, np.int64)
    p = kernel.profile(1, 32, [words, out, np.int32(HOPS)], gpu=gpu, warm_l2=False)
    return p.sm_cycles / HOPS


def gather_rate(module, granule, order, gpu, table_bytes=256 << 20, n=8 << 20, seed=0):
    rng = np.random.default_rng(seed)
    granules = table_bytes // granule
    idx = (rng.integers(0, granules, n) if order == "random" else np.arange(n) % granules).astype(np.uint32)
    tab = np.zeros(table_bytes // 4, np.uint32)
    grid, block = 132 * 16, 256
    out = np.zeros(grid * block, np.uint32)
    p = module[f"gather{granule}"].profile(grid, block, [tab, idx, out, np.int32(n)], gpu=gpu, warm_l2=False,
                                           functional="sampled")
    return n / p.seconds


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpu", default="h200")
    a = ap.parse_args(argv)
    import ptxvm

    mod = ptxvm.load(os.path.join(HERE, "dram.ptx"))
    chase = json.load(open(os.path.join(RESULTS, f"micro3_chase_{a.gpu}.json")))["items"]["chase"]
    gather = json.load(open(os.path.join(RESULTS, f"micro3_{a.gpu}.json")))["items"]["gather"]
    errs = []
    print("chase: one warp, n random DRAM lines per hop (64 MiB), cycles per hop")
    for pt in chase:
        if pt.get("lanes") != 32 or pt.get("region_bytes") != 64 << 20:
            continue
        n = pt["lines_per_hop"]
        got = chase_cycles(mod["chase"], n, a.gpu)
        e = 100 * (got - pt["cold_cycles_per_hop"]) / pt["cold_cycles_per_hop"]
        errs.append(abs(e))
        print(f"  n={n:2d}  measured {pt['cold_cycles_per_hop']:7.1f}  model {got:7.1f}  {e:+6.1f} %")
    print("gather: 8M granules from 256 MiB over all SMs, G granules/s")
    for pt in gather:
        if pt.get("table_bytes") != 256 << 20 or pt.get("granule") not in (32, 128) or "error" in pt:
            continue
        got = gather_rate(mod, pt["granule"], pt["order"], a.gpu)
        e = 100 * (got - pt["granules_per_s"]) / pt["granules_per_s"]
        errs.append(abs(e))
        print(f"  {pt['granule']:3d} B {pt['order']:10s}  measured {pt['granules_per_s'] / 1e9:6.2f}  "
              f"model {got / 1e9:6.2f}  {e:+6.1f} %")
    print(f"mean absolute error {sum(errs) / len(errs):.1f} % over {len(errs)} points")
    return 0


if __name__ == "__main__":
    sys.exit(main())
