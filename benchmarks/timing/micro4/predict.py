#!/usr/bin/env python3
"""The timing model on the micro4 DRAM streams (streams.cu), against the H200's results.

    python benchmarks/timing/micro4/predict.py [--gpu h200] [--sizes 64,512] [--kinds rd,wr,cp,r2w]
                                               [--widths 4,16] [--conventions cold,warm]

Each point: `kernel.profile` of the same PTX (streams.ptx) with the recorded grid (1056 x 256,
grid-stride over buffers of N MiB), SM 0's CTAs only (`functional="sampled"`), cold (`warm_l2=False`,
the L2 as the 256 MiB memset leaves it) or warm; prints measured (median, tools/device/timing_streams.py,
results/micro4_streams_h200.json), predicted and the error, and the DRAM bytes ncu counted under the
cold state (results/micro4_ncu_h200.csv) beside the model's.
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
MIB = 1 << 20
GRID, BLOCK = 132 * 8, 256
_DTYPE = {4: np.uint32, 8: np.uint64, 16: np.uint32}


def measured(gpu: str) -> dict:
    items = json.load(open(os.path.join(RESULTS, f"micro4_streams_{gpu}.json")))["items"]["streams"]
    return {(p["kernel"], p["bytes_per_lane"], p["buffer_mib"]): p for p in items if "cold" in p}


def ncu_bytes(gpu: str) -> dict:
    """(kernel, MiB) -> (DRAM bytes read, written) from the ncu run (--cache-control none, each
    launch right after the 256 MiB memset): the points are in timing_streams.py --once order."""
    path = os.path.join(RESULTS, f"micro4_ncu_{gpu}.csv")
    if not os.path.exists(path):
        return {}
    rows = [r for r in csv.reader(open(path)) if r and r[0].isdigit()]
    by_id: dict = {}
    for r in rows:
        by_id.setdefault(int(r[0]), {"kernel": r[4], "grid": r[8]})[r[12]] = float(r[14].replace(",", ""))
    out, seen = {}, {}
    for i in sorted(by_id):
        d = by_id[i]
        k = d["kernel"]
        n = seen[k] = seen.get(k, -1) + 1
        sizes = (8, 16, 32, 48, 64, 128, 256, 512)
        if n < len(sizes):
            out[(k, sizes[n])] = (d["dram__bytes_read.sum"], d["dram__bytes_write.sum"])
    return out


def profile(mod, kind: str, width: int, mib: int, gpu: str, cold: bool):
    n = mib * MIB // width
    words = mib * MIB // 4
    buf = lambda: np.zeros(words, np.uint32)  # noqa: E731
    sink = np.zeros(GRID * BLOCK, np.uint32)
    if kind == "rd":
        args = [buf(), sink, np.int64(n)]
    elif kind == "wr":
        args = [buf(), np.int64(n)]
    elif kind == "cp":
        args = [buf(), buf(), np.int64(n)]
    else:
        args = [buf(), buf(), buf(), np.int64(n)]
    return mod[f"{kind}{width}"].profile(GRID, BLOCK, args, gpu=gpu, warm_l2=not cold, functional="sampled")


def model_bytes(p) -> tuple:
    """The model's grid-wide DRAM bytes read and written during the launch (the simulated SM's
    counters scaled to the grid; without the final flush of what stays dirty in L2)."""
    c = p.counters
    scale = p.ctas / max(p.simulated_ctas, 1)
    during = c.get("dram_bytes_written", 0) - c.get("dram_bytes_flushed", 0)
    return c.get("dram_bytes_read", 0) * scale, during * scale


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpu", default="h200")
    ap.add_argument("--sizes", default="16,64,256")
    ap.add_argument("--kinds", default="rd,wr,cp,r2w")
    ap.add_argument("--widths", default="4,16")
    ap.add_argument("--conventions", default="cold")
    a = ap.parse_args(argv)
    import ptxvm

    mod = ptxvm.load(os.path.join(HERE, "streams.ptx"))
    meas, ncu = measured(a.gpu), ncu_bytes(a.gpu)
    errs = []
    print(f"{'point':18s} {'conv':5s} {'H200 us':>8s} {'model':>8s} {'err':>6s}   DRAM MiB read/written: ncu (cold) | model")
    for mib in [int(x) for x in a.sizes.split(",")]:
        for kind in a.kinds.split(","):
            for w in [int(x) for x in a.widths.split(",")]:
                m = meas.get((kind, w, mib))
                for conv in a.conventions.split(","):
                    p = profile(mod, kind, w, mib, a.gpu, conv == "cold")
                    t = p.seconds * 1e6
                    ref = m[conv]["median_us"] if m else float("nan")
                    err = (t - ref) / ref
                    errs.append(abs(err))
                    nb = ncu.get((f"{kind}{w}", mib)) if conv == "cold" else None
                    nb_s = f"{nb[0] / MIB:6.1f}/{nb[1] / MIB:6.1f}" if nb else " " * 13
                    rd_, wr_ = model_bytes(p)
                    print(f"{kind}{w:<3d} {mib:4d} MiB     {conv:5s} {ref:8.2f} {t:8.2f} {err:+6.1%}   {nb_s} | "
                          f"{rd_ / MIB:6.1f}/{wr_ / MIB:6.1f}", flush=True)
    if errs:
        print(f"mean |error| {np.mean(errs):.1%} over {len(errs)} points")
    return 0


if __name__ == "__main__":
    sys.exit(main())
