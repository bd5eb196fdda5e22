#!/usr/bin/env python3
"""The model's figures for the micro2 `wmma` items next to what the H200 measured.

    python benchmarks/timing/wmma_model.py [chase] [thr] [stream] [check] [--json OUT]

Profiles the kernels of benchmarks/timing/micro2/wmma.ptx the way tools/device/timing_wmma.py
ran them (results/micro2_wmma_h200.json) and prints measured / model / error. Per-step and
per-access figures are differences of two run lengths, so launch and warm-up cancel:
  chase  one warp's dependent chain: from L1/L2 (256 nodes of 16 KiB, warm, as many steps as the
         GPU's steady state needs: laps over the ring), from DRAM (L2 cold: every node touched
         once, as after the GPU run's 256 MiB memset), in shared memory;
  thr    cycles per access per SM of 32 warps (4 CTAs x 256 threads; SM 0's CTAs only,
         functional="sampled", so the L2 starts cold where the GPU's other SMs had warmed it);
  stream TB/s of the 528 MiB tile stream (sampled: SM 0's share of the grid);
  check  us of the wmma HGEMM check kernels (results/micro2_wmma_check_h200.json), cold
         (warm_l2=False) and warm; their harness (events around one launch behind a spin kernel)
         runs about 0.6 us below the suite's, on which the launch overhead is set (micro3 harness).
What each pins: docs/timing-model.md section 3 ("wmma.load / wmma.store").
"""
from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tools", "device"))

import ptxvm  # noqa: E402
import timing_wmma as T  # noqa: E402

PTX = os.path.join(ROOT, "benchmarks", "timing", "micro2", "wmma.ptx")
MEASURED = os.path.join(ROOT, "benchmarks", "timing", "results", "micro2_wmma_h200.json")
CHECK = os.path.join(ROOT, "benchmarks", "timing", "results", "micro2_wmma_check_h200.json")
SMS = 132


def chase(mod, r, rng) -> float:
    out = np.zeros(8, np.int64)
    kern, ld, where = r["kernel"], np.int32(r["ld"]), r["where"]
    if where == "shared":
        buf = T.chain_words(16, T.SNODE_WORDS, rng, np)
        c = [mod[kern].profile(1, 32, [buf, ld, np.int32(n), out]).sm_cycles for n in (16, 48)]
        return (c[1] - c[0]) / 32
    if where == "l2":  # the GPU ran 2048 steps: 8 laps of the 256-node ring
        buf = T.chain_words(256, T.NODE_WORDS, rng, np)
        c = [mod[kern].profile(1, 32, [buf, ld, np.int32(n), out]).sm_cycles for n in (300, 812)]
        return (c[1] - c[0]) / 512
    buf = T.chain_words(512, T.NODE_WORDS, rng, np)  # DRAM: a cold L2, every node once
    c = [mod[kern].profile(1, 32, [buf, ld, np.int32(n), out], warm_l2=False).sm_cycles for n in (48, 112)]
    return (c[1] - c[0]) / 64


def thr(mod, r) -> float:
    grid, block = r["grid"], r["block"]
    big = np.zeros((grid * 40 * T.KB + 4096 * T.KB) // 4, np.uint32)
    out = np.zeros(grid * block // 32, np.int64)
    sink = np.zeros(16, np.uint32)
    c = []
    for n in (8, 24):
        args = [big, np.int32(r["ld"]), np.int32(n), np.uint32(r["tile_bytes"]), np.uint32(r["region_bytes"]),
                np.uint32(r["cta_bytes"]), out, sink]
        c.append(mod[r["kernel"]].profile(grid, block, args, functional="sampled").sm_cycles)
    per_iter = (c[1] - c[0]) / 16
    return per_iter / (4 * (grid // SMS) * block // 32)


def stream(mod, r) -> float:
    cols, grid, block = r["cols"], r["grid"], r["block"]
    warps = grid * block // 32
    big = np.zeros(warps * 16 * cols // 2, np.uint32)
    sink = np.zeros(16, np.uint32)
    t = [mod[r["kernel"]].profile(grid, block, [big, np.int32(cols), np.int32(n), sink], functional="sampled",
                                  warm_l2=False).seconds for n in (32, 64)]
    return warps * 32 * 512 / (t[1] - t[0]) / 1e12


def check(mod, r, cold: bool) -> float:
    """Predicted us of a wmma HGEMM check kernel (cold: L2 flushed; warm: back to back)."""
    size = r["size"]
    rng = np.random.default_rng(1)
    a = rng.standard_normal((size, size)).astype(np.float16)
    b = rng.standard_normal((size, size)).astype(np.float16)
    c = np.zeros((size, size), np.float32)
    grid = tuple(r["grid"]) if len(r["grid"]) > 1 else r["grid"][0]
    p = mod[r["kernel"]].profile(grid, r["block"], [a, b, c, np.int32(size), np.int32(size), np.int32(size)],
                                 warm_l2=not cold)
    return p.seconds * 1e6


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("items", nargs="*", default=["chase", "thr", "stream", "check"])
    ap.add_argument("--json", help="write the rows (measured, model) here")
    args = ap.parse_args(argv)
    mod = ptxvm.load(PTX)
    meas = json.load(open(MEASURED))["items"]
    rows = []
    rng = np.random.default_rng(0)

    def show(item, what, m, model, unit):
        err = 100.0 * (model - m) / m
        rows.append({"item": item, "point": what, "measured": m, "model": model, "error_pct": err})
        print(f"{item:6s} {what:38s} measured {m:8.2f}  model {model:8.2f} {unit:18s} {err:+6.1f} %", flush=True)

    if "chase" in args.items:
        for r in meas["chase"]:
            show("chase", f"{r['where']} {r['kernel']} ld {r['ld']}", r["cycles_per_step"], chase(mod, r, rng),
                 "cycles/step")
    if "thr" in args.items:
        for r in meas["thr"]:
            show("thr", f"{r['where']} {r['kernel']} ld {r['ld']}", r["cycles_per_access_per_sm"], thr(mod, r),
                 "cycles/access/SM")
    if "check" in args.items:
        for r in json.load(open(CHECK))["items"]["check"]:
            for conv in ("cold", "warm"):
                show("check", f"{r['kernel']} {r['size']}^3 {conv}", r["us"][conv], check(mod, r, conv == "cold"), "us")
    if "stream" in args.items:
        for r in meas["stream"]:
            show("stream", r["kernel"], r["TBps"], stream(mod, r), "TB/s")
    if rows:
        errs = [abs(x["error_pct"]) for x in rows]
        print(f"mean |error| {np.mean(errs):.1f} % over {len(rows)} points; within 25 %: "
              f"{sum(e <= 25 for e in errs)}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
