#!/usr/bin/env python3
"""The model's figures for the micro2 `async` items next to what the H200 measured.

    python tools/timing_async_check.py [chase] [mbar] [stream]

Profiles the kernels of benchmarks/timing/micro2/async.ptx the way tools/device/timing_async.py
ran them on the GPU and prints measured / model side by side (results/async_h200.json; what each
item pins: docs/timing-model.md section 3). Per-step and per-tile figures are differences of two
run lengths, so fixed costs (launch, fill) cancel. The L2-resident streams are profiled with every
CTA on the engine (so the warm-L2 steady state applies): about a minute.
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, ROOT)

import ptxvm  # noqa: E402

PTX = os.path.join(ROOT, "benchmarks", "timing", "micro2", "async.ptx")
MEASURED = os.path.join(ROOT, "benchmarks", "timing", "results", "async_h200.json")


def chain(blocks: int, block_ints: int, rng) -> np.ndarray:
    perm = rng.permutation(blocks)
    nxt = np.empty(blocks, np.int64)
    nxt[perm[:-1]] = perm[1:]
    nxt[perm[-1]] = perm[0]
    out = np.zeros(blocks * block_ints, np.int32)
    out[np.arange(blocks) * block_ints] = (nxt * block_ints).astype(np.int32)
    return out


def main(argv=None) -> int:
    which = (argv if argv is not None else sys.argv[1:]) or ["chase", "mbar", "stream"]
    mod = ptxvm.load(PTX)
    meas = json.load(open(MEASURED))["items"]
    rng = np.random.default_rng(0)
    out = np.zeros(64, np.int64)
    if "chase" in which:
        for r in meas["chase"]:
            if r["where"] != "l2":
                continue
            ch = chain((4 << 20) // r["block"], r["block"] // 4, rng)
            kern = "chase_bulk" if r["kernel"].startswith("bulk") else r["kernel"]
            extra = [np.int32(int(r["kernel"][4:]))] if kern == "chase_bulk" else []
            c = [mod[kern].profile(1, 32, [ch, np.int32(n)] + extra + [out]).sm_cycles for n in (16, 48)]
            print(f"chase L2 {r['kernel']:14s} cycles per step: measured {r['cycles_per_step']:7.1f}  "
                  f"model {(c[1] - c[0]) / 32:7.1f}", flush=True)
    if "mbar" in which:
        for r in meas["mbar"]:
            w = r["warps"]
            if r.get("syncthreads"):
                name, args = "bar_roundtrip", (lambda n: [np.int32(n), out])
            else:
                name = "mbar_roundtrip"
                args = (lambda n, a=int(r["all_threads_arrive"]): [np.int32(n), np.int32(a), out])
            c = [mod[name].profile(1, 32 * w, args(n)).sm_cycles for n in (8, 24)]
            what = "bar.sync" if r.get("syncthreads") else \
                ("all arrive" if r["all_threads_arrive"] else "lane 0 arrives")
            print(f"round trip {w} warps, {what:14s}: measured {r['cycles_per_round']:6.1f}  model "
                  f"{(c[1] - c[0]) / 16:6.1f}", flush=True)
    if "stream" in which:
        for r in meas["stream"]:
            if r["where"] != "l2":
                continue
            grid, kind, k = r["grid"], r["kind"], r["stages"]
            tile = 8192 if kind == "bulk" else 4096
            region = (32 << 10) // tile
            x = rng.random(grid * region * tile // 4).astype(np.float32)
            sink = np.zeros(grid * 256, np.float32)
            c = [mod[f"stream_{kind}{k}"].profile(grid, 256, [x, np.int32(region), np.int32(t), sink]).sm_cycles
                 for t in (16, 48)]
            model = 32 * tile / (c[1] - c[0]) * (grid // 132)
            print(f"stream L2 {grid // 132} CTA/SM {kind:8s} {k} stages: B/clk/SM measured "
                  f"{r['bytes_per_clk_per_sm']:5.1f}  model {model:5.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
