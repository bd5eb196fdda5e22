#!/usr/bin/env python3
"""Predict the global-atomic microbenchmarks with ptxvm.timing and print the error per point.

    python benchmarks/timing/atomics_model.py [--group latency,warp,sm,gpu] [--micro2] [--json OUT]

The points are those of results/micro2_atomics_h200.json (tools/device/timing_atomics.py, kernel
`gatom` of micro2/atomics.cu, its PTX in micro2/atomics.ptx). Each is profiled at two iteration
counts n and 2n, as on the GPU, and the difference per iteration is compared with the measured
%clock64 cycles per iteration of the slowest warp (`cycles_per_iter`). `--micro2` also predicts
the `atomics` item of results/micro2_h200.json (kernel atom_global of micro2/micro2.cu; needs
nvcc for its PTX) as atomics per cycle GPU-wide. Nothing here is fitted.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.abspath(os.path.join(HERE, "..", "..")))

import ptxvm  # noqa: E402
from ptxvm.timing.params import DEFAULT  # noqa: E402

OPS = {"red.u32": 0, "atom.u32": 1, "atom.u32.dep": 2, "red.f32": 3, "atom.f32.dep": 4, "red.u32.uniform": 5}
SMALL = {"latency": 16, "warp": 16, "sm": 32, "gpu": 8}


def _module(path):
    with open(path) as f:
        return ptxvm.loads(f.read(), os.path.basename(path))


def predict_point(kernel, pt, params=DEFAULT) -> float:
    """Model cycles per loop iteration of the measured point `pt` (a dict of the results file)."""
    n = SMALL[pt["group"]]
    warps = pt["grid"] * pt["block"] // 32
    out = []
    for iters in (n, 2 * n):
        buf = np.zeros(64 << 20, np.uint8)
        cyc = np.zeros(max(warps, 1), np.int64)
        args = [buf, np.int32(OPS[pt["op"]]), np.int32(pt["k"]), np.int32(pt["nd"]), np.int32(pt["stride"]),
                np.int32(pt["wmod"]), np.int64(pt["wstride"]), np.int32(iters), np.uint32(0), cyc]
        out.append(kernel.profile(pt["grid"], pt["block"], args, params=params).sm_cycles)
    return (out[1] - out[0]) / n


def predict_micro2(params=DEFAULT) -> list:
    """The `atomics` item of micro2_h200.json: atom_global, 528 x 1024 threads (the model runs
    fewer iterations: 2 and 4, the difference per iteration)."""
    src = os.path.join(HERE, "micro2", "micro2.cu")
    nvcc = os.environ.get("NVCC", "/usr/local/cuda/bin/nvcc")
    with tempfile.TemporaryDirectory() as tmp:
        ptx = os.path.join(tmp, "micro2.ptx")
        subprocess.run([nvcc, "-arch=sm_90", "-O3", "-ptx", src, "-o", ptx], check=True)
        kernel = _module(ptx)["atom_global"]
    with open(os.path.join(HERE, "results", "micro2_h200.json")) as f:
        measured = json.load(f)["items"]["atomics"]["points"]
    modes = {"same_address": 0, "red_same_address": 4, "per_warp_address": 1, "coalesced": 2}
    rows = []
    for pt in measured:
        mode = modes.get(pt["mode"], 3)
        cyc = []
        for iters in (2, 4):
            a = np.zeros(1 << 22, np.uint32)
            cyc.append(kernel.profile(528, 1024, [a, np.int32(mode), np.int32(pt["bins"]), np.int32(iters)],
                                      params=params).sm_cycles)
        per_iter = (cyc[1] - cyc[0]) / 2  # SM 0's cycles per iteration (4 CTAs, 2 resident), as every SM's
        model = 528 * 1024 / per_iter  # lane-atomics per cycle, GPU-wide
        rows.append({"point": pt["mode"], "measured": pt["atomics_per_clk"], "model": model})
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--group", default="latency,warp,sm,gpu")
    ap.add_argument("--micro2", action="store_true")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    with open(os.path.join(HERE, "results", "micro2_atomics_h200.json")) as f:
        measured = json.load(f)["points"]
    kernel = _module(os.path.join(HERE, "micro2", "atomics.ptx"))["gatom"]
    groups = args.group.split(",")
    rows = []
    for pt in measured:
        if pt["group"] not in groups or "error" in pt:
            continue
        model = predict_point(kernel, pt)
        name = (f"{pt['group']} {pt['op']} grid {pt['grid']}x{pt['block']} k={pt['k']} nd={pt['nd']} "
                f"stride={pt['stride']} wmod={pt['wmod']} wstride={pt['wstride']}")
        rows.append({"point": name, "measured": pt["cycles_per_iter"], "model": model})
        print(f"{name:90s} {pt['cycles_per_iter']:10.1f} {model:10.1f} {100 * (model / pt['cycles_per_iter'] - 1):+7.1f} %",
              flush=True)
    if args.micro2:
        for r in predict_micro2():
            rows.append(r)
            print(f"micro2 atomics {r['point']:74s} {r['measured']:10.2f} {r['model']:10.2f} "
                  f"{100 * (r['model'] / r['measured'] - 1):+7.1f} % (atomics per cycle)", flush=True)
    errs = [abs(r["model"] / r["measured"] - 1) for r in rows]
    if errs:
        print(f"{len(rows)} points: mean |error| {100 * sum(errs) / len(errs):.1f} %, "
              f"within 25 %: {sum(e <= 0.25 for e in errs)}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
