#!/usr/bin/env python3
"""The model's cycles per link of the dependent-issue microbenchmarks next to the H200's.

    python benchmarks/timing/sass/latency_model.py [item ...]

Profiles the kernels of benchmarks/timing/sass/latency.ptx as tools/device/timing_sass_latency.py
ran them on the GPU (one warp, `_k4` and `_k16` variants, the difference over 12 links per trip,
so the loop's own cost cancels) and prints measured (results/sass_latency_h200.json) against the
model, with the stall the model charges most per issue in the k16 kernel. A few seconds.
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ptxvm  # noqa: E402
from latency import ITEMS, PTX_PATH  # noqa: E402

MEASURED = os.path.join(ROOT, "benchmarks", "timing", "results", "sass_latency_h200.json")
# a later run with the 64-bit compare/select items added (the items before it measured the same)
MEASURED_64 = os.path.join(ROOT, "benchmarks", "timing", "results", "sass_latency_64bit_h200.json")


# and a third with IEEE fp32 rcp / sqrt / div added (every earlier item again)
MEASURED_RN = os.path.join(ROOT, "benchmarks", "timing", "results", "sass_latency_rn_h200.json")
# and a fourth with logic trees and rotates that ptxas folds (xor3 / chi / rot, each link ending in an add)
MEASURED_FOLD = os.path.join(ROOT, "benchmarks", "timing", "results", "sass_latency_fold_h200.json")


def measured_items() -> dict:
    """Every item's measured figures: the first run's, and the later runs' for items it lacks."""
    items = dict(json.load(open(MEASURED_FOLD))["items"])
    items.update(json.load(open(MEASURED_RN))["items"])
    items.update(json.load(open(MEASURED_64))["items"])
    items.update(json.load(open(MEASURED))["items"])
    return items
ITERS = 16  # the GPU ran 512 trips; the per-link figure is a difference, so fewer do here


def inputs() -> np.ndarray:
    sys.path.insert(0, os.path.join(ROOT, "tools", "device"))
    from timing_sass_latency import inputs as device_inputs

    return device_inputs(np).reshape(-1)


def model_cycles_per_link(mod, name: str, chains: int) -> tuple[float, dict]:
    data = inputs()
    cyc, stalls = [], {}
    for k in (4, 16):
        out = np.zeros(32 * 256 // 8, np.uint64)
        prof = mod[f"{name}_k{k}"].profile(1, 32, [out, data, np.uint32(ITERS)])
        cyc.append(prof.sm_cycles)
        stalls = prof.stalls
    return (cyc[1] - cyc[0]) / (12 * ITERS * chains), stalls


def main(argv=None) -> int:
    only = set(argv if argv is not None else sys.argv[1:])
    mod = ptxvm.load(PTX_PATH)
    meas = measured_items()
    print(f"{'item':20s} {'H200':>7s} {'model':>7s} {'err%':>6s}  model's main stall (k16)")
    errs = []
    for name, _, _, chains in ITEMS:
        if only and name not in only:
            continue
        m = meas.get(name, {}).get("cycles_per_link")
        got, stalls = model_cycles_per_link(mod, name, chains)
        sel = stalls.get("selected") or 1.0
        top = max((k for k in stalls if k != "selected"), key=lambda k: stalls[k])
        err = 100 * (got - m) / m if m else float("nan")
        errs.append(abs(err))
        print(f"{name:20s} {m:7.2f} {got:7.2f} {err:+6.0f}  {top} {stalls[top] / sel:.1f}/issue")
    print(f"mean |error| {sum(errs) / len(errs):.0f} % over {len(errs)} items")
    return 0


if __name__ == "__main__":
    sys.exit(main())
