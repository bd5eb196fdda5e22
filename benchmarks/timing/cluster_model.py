#!/usr/bin/env python3
"""The model's figures for the cluster microbenchmarks next to what the H200 measured.

    python benchmarks/timing/cluster_model.py [chase] [bar] [stream] [--quick]

Profiles the kernels of benchmarks/timing/micro2/cluster.ptx (the PTX of micro2/cluster.cu, whose
cubin tools/device/timing_cluster.py ran) the way the recorder launched them: clusters of 2 / 4 /
8 / 16 CTAs, one CTA per SM (120 KB of dynamic shared memory each), and prints measured / model
side by side (results/micro2_cluster_h200.json). Figures are differences of two run lengths, so
fixed costs (launch, the fill of the buffers, the cluster syncs around the timed part) cancel.
What each item pins: docs/timing-model.md section 3, "Clusters". --quick: cluster sizes 2 and 16 only.
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, ROOT)

import ptxvm  # noqa: E402

PTX = os.path.join(ROOT, "benchmarks", "timing", "micro2", "cluster.ptx")
MEASURED = os.path.join(ROOT, "benchmarks", "timing", "results", "micro2_cluster_h200.json")
STREAM = os.path.join(ROOT, "benchmarks", "timing", "results", "micro2_cluster_stream_h200.json")  # second call
DYN = 120 * 1024  # as the recorder: one CTA per SM


def per_unit(kernel, grid: int, block: int, args, n1: int, n2: int) -> float:
    c = [kernel.profile(grid, block, args(n), shared_mem=DYN).sm_cycles for n in (n1, n2)]
    return (c[1] - c[0]) / (n2 - n1)


def rows(which: str, quick: bool) -> list:
    got = json.load(open(MEASURED))["items"][which]
    return [r for r in got if "error" not in r and (not quick or r["cluster"] in (2, 16))]


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    quick = "--quick" in argv
    which = [a for a in argv if not a.startswith("--")] or ["chase", "bar"]
    mod = ptxvm.load(PTX)
    out = np.zeros(3 * 64, np.int64)
    errors = []
    if "chase" in which:
        for r in rows("chase", quick):
            cl, tgt, kind = r["cluster"], r["target"], 0 if r["kind"] == "ld" else 1
            model = per_unit(mod[f"chase{cl}"], cl, 32, lambda n: [np.int32(tgt), np.int32(kind), np.int32(n), out],
                             16, 48)
            what = {-1: "own, ld.shared::cta", 0: "own, cluster window"}.get(tgt, f"rank {tgt}")
            err = (model - r["cycles_per_step"]) / r["cycles_per_step"] * 100
            errors.append(abs(err))
            print(f"chase CL={cl:2d} {r['kind']:4s} {what:22s} cycles per step: measured {r['cycles_per_step']:6.1f}  "
                  f"model {model:6.1f}  ({err:+5.1f} %)", flush=True)
    if "bar" in which:
        kinds = {"arrive+wait": 0, "arrive.relaxed+wait": 1, "bar.sync": 2}
        for r in rows("bar", quick):
            cl, block, kind = r["cluster"], r["block"], kinds[r["kind"]]
            model = per_unit(mod[f"bar{cl}"], cl, block, lambda n: [np.int32(kind), np.int32(n), out], 8, 24)
            err = (model - r["cycles_per_round"]) / r["cycles_per_round"] * 100
            errors.append(abs(err))
            print(f"bar   CL={cl:2d} {block // 32:2d} warps {r['kind']:20s} cycles per round: measured "
                  f"{r['cycles_per_round']:6.1f}  model {model:6.1f}  ({err:+5.1f} %)", flush=True)
    if "stream" in which:  # remote st / red.add to the next rank, one cluster (results/micro2_cluster_stream_h200.json)
        got = json.load(open(STREAM))["items"]["stream"]
        for r in got:
            if r["mode"] != 2 or r["op"] == "ld" or r["grid"] != r["cluster"] or (quick and r["cluster"] not in (2, 16)):
                continue
            cl, vec, op = r["cluster"], r["vec"], {"st": 1, "red": 2}[r["op"]]
            cyc = per_unit(mod[f"stream{vec}_{cl}"], cl, 1024, lambda n: [np.int32(2), np.int32(op), np.int32(n), out], 2, 4)
            model = 1024 * 4 * vec * 4 / cyc
            err = (model - r["bytes_per_clk_per_sm"]) / r["bytes_per_clk_per_sm"] * 100
            errors.append(abs(err))
            print(f"stream CL={cl:2d} {r['op']:3s} {4 * vec:2d} B a lane to the next rank, B/clk per SM: measured "
                  f"{r['bytes_per_clk_per_sm']:6.1f}  model {model:6.1f}  ({err:+5.1f} %)", flush=True)
    if errors:
        print(f"mean |error| {sum(errors) / len(errors):.1f} % over {len(errors)} points")
    return 0


if __name__ == "__main__":
    sys.exit(main())
