#!/usr/bin/env python3
"""Tune the timing model's global parameters (ptxvm.timing.params.ModelParams) against the
kernel times measured on the GPU: the CALIBRATION set only (benchmarks/timing/split.py), from
benchmarks/timing/results/calibration_<gpu>.json (written by tools/timing_accuracy.py; `us` is the
cold convention, `us_warm` back to back) or, with --measured, another times JSON.

    python tools/timing_tune.py [--gpu h200] [--convention cold|warm] [--only a,b] [--rounds 2] [--write]

Validation cases are never loaded, even when named in --only. Every calibration case is traced once (engine + memory model, as tools/timing_accuracy.py runs it);
then only the SM model runs again for each candidate parameter set. A coordinate search over the
parameters below minimizes the mean absolute percentage error over all measured cases; there
are no per-kernel factors. --write prints the ModelParams defaults to paste into params.py.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tools"))

# parameter -> candidate values (searched one at a time, around the current value)
SPACE = {
    "kernel_launch": [2000, 3000, 4000, 5000, 6400, 8000, 10000, 13000],
    "cta_launch": [0, 100, 250, 500, 700, 1000],
    "dram_efficiency": [0.8, 0.85, 0.9, 0.95, 1.0],
    "dram_write_cost": [1.0, 1.25, 1.5, 1.75, 2.0],
    "dram_loaded_latency": [0, 100, 200, 300],
    "l1_line_cycles": [0.125, 0.25, 0.5, 1.0],
    "partial_store_factor": [2, 4, 6, 8],
    "issue_window": [0, 4, 8, 16],
    "fetch_redirect": [0, 2, 4, 6, 8],
    "alu_interval": [1.0, 1.5, 2.0],
    "divergence_cycles": [0, 20, 40, 60],
    "lsu_queue_cycles": [16, 32, 48, 96],
    "l2_efficiency": [0.7, 0.85, 1.0],
    "shared_atomic_cycles": [1, 2, 4],
    "const_first_pass": [1, 2, 4, 7],
    "const_pass_cycles": [16, 22, 28],
    "atomic_line_cycles": [12, 17, 24],
    "sreg_latency": [10, 20, 30],
    "mov_latency": [0, 1, 2],
}


def main(argv=None) -> int:
    import timing_accuracy as acc

    from ptxvm.timing.params import DEFAULT
    from ptxvm.timing.profile import collect, simulate

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpu", default="h200")
    ap.add_argument("--only", default="")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--params", default="", help="comma-separated subset of the parameters to search")
    ap.add_argument("--gpu-file", default=None, help="a GPU description JSON to use instead of --gpu's")
    ap.add_argument("--measured", default=None,
                    help="times JSON (default benchmarks/timing/results/calibration_<gpu>.json)")
    ap.add_argument("--convention", default="cold", choices=["cold", "warm"])
    args = ap.parse_args(argv)
    suite, split = acc.load_suite(), acc.load_split()
    measured = acc.read_json(args.measured or os.path.join(acc.RESULTS, f"calibration_{args.gpu}.json")).get("cases", {})
    key = "us" if args.convention == "cold" else "us_warm"
    gpu = args.gpu
    if args.gpu_file:
        from ptxvm.timing.gpu import load_gpu_file

        gpu = load_gpu_file(args.gpu_file)
    only = [s for s in args.only.split(",") if s]
    import ptxvm

    modules = {}
    cols = []
    for c in split.calibration_cases(suite.CASES):
        us = (measured.get(c.name) or {}).get(key)
        us = us.get("median") if isinstance(us, dict) else us
        if not us or (only and c.name not in only):
            continue
        mod = modules.get(c.module) or modules.setdefault(c.module, ptxvm.load(str(suite.ptx_path(c))))
        if c.const:
            for name, arr in c.const().items():
                mod.write_symbol(name, arr)
        t = time.time()
        col = collect(mod[c.kernel], c.grid, c.block, suite.materialize(c, 0), c.shared, gpu,
                      warm_l2=args.convention == "warm")
        cols.append((c.name, us, col))
        print(f"traced {c.name:22s} {time.time() - t:6.1f} s", flush=True)

    def mape(params, show=False):
        t0 = time.time()
        errs = []
        for name, us, col in cols:
            p = simulate(col, params=params)
            e = 100.0 * (p.seconds * 1e6 - us) / us
            errs.append(abs(e))
            if show:
                print(f"  {name:22s} measured {us:9.2f}  predicted {p.seconds * 1e6:9.2f}  {e:+7.1f} %")
        if show:
            print(f"  ({time.time() - t0:.0f} s)")
        return sum(errs) / len(errs)

    best = DEFAULT
    best_err = mape(best, show=True)
    print(f"start: MAPE {best_err:.1f} % over {len(cols)} cases")
    space = {k: v for k, v in SPACE.items() if not args.params or k in args.params.split(",")}
    for rnd in range(args.rounds):
        for name, values in space.items():
            for v in values:
                cand = dataclasses.replace(best, **{name: type(getattr(best, name))(v)})
                if cand == best:
                    continue
                err = mape(cand)
                if err < best_err - 1e-6:
                    best, best_err = cand, err
                    print(f"round {rnd}: {name} = {v} -> MAPE {err:.1f} %", flush=True)
    print(f"best: MAPE {mape(best, show=True):.1f} %")
    changed = {f.name: getattr(best, f.name) for f in dataclasses.fields(best)
               if getattr(best, f.name) != getattr(DEFAULT, f.name)}
    print("changed parameters:", changed)
    if args.write:
        print(best)
    return 0


if __name__ == "__main__":
    sys.exit(main())
