#!/usr/bin/env python3
"""The timing model on the constant-memory microbenchmarks (const.cu), against the H200's results.

    python benchmarks/timing/constmem/predict.py [--gpu h200] [--only uchase,dchase,tput,stream,folded]

Each point is profiled with the launch the GPU ran (chases: one warp, the chain in c_tab; tput,
folded and stream: SM 0's CTAs of the GPU's launch, i.e. grid / 132 CTAs, so that the warm
convention's L2 holds the table; cold points with `warm_l2=False`) and
compared in SM cycles: chases and streams over both timed passes (pass 1 = first touch in the
launch, pass 2 = the same again), tput and folded over the timed loop of the slowest warp. The
model's figure is the SM's whole run (launch prologue included), which the timed loops dominate.
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
sys.path.insert(0, os.path.join(ROOT, "tools", "device"))
RESULTS = os.path.join(ROOT, "benchmarks", "timing", "results")
SMS = 132


def _nodes(pt, rng):
    from timing_const import random_lines

    if "footprint" in pt:
        fp, stride = pt["footprint"], pt["stride"]
        return random_lines(rng, np, fp, stride) if stride == 64 else list(range(0, fp, stride))
    if pt["lane_step"] == 4:
        return random_lines(rng, np, 1024, 128)
    return [0] + [int(x) * 4 for x in 1 + rng.permutation(15)]


def chase_points(mod, points, kernel, gpu, out):
    from timing_const import chain_table

    rng = np.random.default_rng(0)
    res = np.zeros(2 * SMS * 64, np.int64)
    for pt in points:
        nodes = _nodes(pt, rng)
        k, step = pt.get("k", 1), pt.get("lane_step", 0)
        mod.write_symbol("c_tab", chain_table(np, rng, nodes, k, step))
        s1, s2 = pt["hops1"], pt["hops2"]
        extra = [] if kernel == "uchase" else [np.int32(k), np.int32(step), np.int32(0)]
        for label, warm in (("cold", False), ("warm", True)):
            m = pt[label]
            measured = m["pass1_cycles_per_hop"] * s1 + m["pass2_cycles_per_hop"] * s2
            p = mod[kernel].profile(1, 32, [np.uint32(nodes[0]), np.int32(s1), np.int32(s2), *extra, res],
                                    gpu=gpu, warm_l2=warm)
            name = (f"{kernel} fp={pt['footprint']}" if "footprint" in pt else f"{kernel} k={k} step={step}")
            out.append((f"{name} {label}", measured / (s1 + s2), p.sm_cycles / (s1 + s2), "cycles/hop"))


def tput_points(mod, points, gpu, out):
    mod.write_symbol("c_tab", (np.arange(16376) % 97).astype(np.uint32))
    res = np.zeros(2 * SMS * 64, np.int64)
    sink = np.zeros(SMS * 2 * 1024, np.float32)
    for pt in points:
        w = pt["warps"]
        if pt["kind"] == "ldc":
            args = [np.int32(pt["iters"]), np.int32(511), np.int32(pt["k"]), np.int32(pt["lane_step"]), np.int32(0), res, sink]
            p = mod["ldc_tput"].profile(1, 32 * w, args, gpu=gpu)
            name = f"ldc_tput W={w} k={pt['k']} step={pt['lane_step']}"
        else:
            p = mod["uldc_tput"].profile(1, 32 * w, [np.int32(pt["iters"]), np.int32(511), res, sink], gpu=gpu)
            name = f"uldc_tput W={w}"
        n = pt["loads_per_warp"] * w
        out.append((name, pt["cycles_max_warp"] / n, p.sm_cycles / n, "SM cycles/warp-load"))


def stream_points(mod, points, gpu, out):
    mod.write_symbol("c_tab", (np.arange(16376) % 17 * 0.125).astype(np.float32).view(np.uint32))
    res = np.zeros(2 * SMS * 64, np.int64)
    sink = np.zeros(SMS * 2 * 1024, np.float32)
    for pt in points:
        args = [np.int32(pt["iters"]), np.int32(pt["stride_words"]), np.int32(pt["mask"]), res, sink]
        for label, warm in (("cold", False), ("warm", True)):
            m = pt[label]
            measured = (m["pass1_cycles"] + m["pass2_cycles"]) / (2 * pt["iters"])
            p = mod["ustream"].profile(pt["ctas"] // SMS, pt["threads"], args, gpu=gpu, warm_l2=warm)
            warps = pt["threads"] // 32 * pt["ctas"] // SMS
            out.append((f"ustream stride={pt['stride_words']} mask={pt['mask']} warps/SM={warps} {label}", measured,
                        p.sm_cycles / (2 * pt["iters"]), "cycles/load"))


def folded_points(mod, points, gpu, out):
    mod.write_symbol("c_coef", np.array([0.5, 0.25, 0.75, 0.125, 0.3, 0.6, 0.9, 0.1], np.float32))
    res = np.zeros(2 * SMS * 64, np.int64)
    sink = np.zeros(SMS * 2 * 1024, np.float32)
    for pt in points:
        w = pt["warps"]
        args = [np.int32(1024), res, sink] if pt["kind"] == "folded" else [np.int32(1024), np.float32(1.0), res, sink]
        p = mod[pt["kind"]].profile(1, 32 * w, args, gpu=gpu)
        out.append((f"{pt['kind']} W={w}", pt["cycles_per_ffma_per_warp"], p.sm_cycles / pt["ffma_per_warp"],
                    "cycles/FFMA"))


class _Printed(list):
    """The points, each printed as it comes: (name, measured, model, unit)."""

    def __init__(self):
        super().__init__()
        self.errors: list = []

    def append(self, row):
        super().append(row)
        name, measured, model, unit = row
        e = 100 * (model - measured) / measured
        self.errors.append(abs(e))
        print(f"  {name:55s} measured {measured:9.2f}  model {model:9.2f}  {e:+7.1f} %  ({unit})", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpu", default="h200")
    ap.add_argument("--only", default="uchase,dchase,tput,stream,folded")
    a = ap.parse_args(argv)
    import ptxvm

    mod = ptxvm.load(os.path.join(HERE, "const.ptx"))
    one = json.load(open(os.path.join(RESULTS, f"micro4_const_{a.gpu}.json")))["items"]
    two = json.load(open(os.path.join(RESULTS, f"micro4_const_{a.gpu}_call2.json")))["items"]
    only = a.only.split(",")
    out = _Printed()
    if "uchase" in only:
        chase_points(mod, one["uchase"], "uchase", a.gpu, out)
    if "dchase" in only:
        chase_points(mod, one["dchase"] + two["dchase_miss"], "dchase", a.gpu, out)
    if "tput" in only:
        tput_points(mod, one["tput"] + two["tput_miss"], a.gpu, out)
    if "stream" in only:
        stream_points(mod, one["stream"] + two["stream_warps"], a.gpu, out)
    if "folded" in only:
        folded_points(mod, one["folded"], a.gpu, out)
    errs = out.errors
    if errs:
        print(f"mean absolute error {sum(errs) / len(errs):.1f} % over {len(errs)} points, "
              f"median {sorted(errs)[len(errs) // 2]:.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
