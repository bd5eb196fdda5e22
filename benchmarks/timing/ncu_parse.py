#!/usr/bin/env python3
"""Convert ncu's CSV (`--csv --page raw`, from benchmarks/timing/device_ncu_job.sh) into a small
JSON keyed by suite case name.

    python benchmarks/timing/ncu_parse.py ncu_metrics.csv [ncu_sections.csv ...] -o benchmarks/timing/results/ncu_h200.json

Rows are matched to cases in the suite's order (the ncu-mode run launches every case once, in
that order): each case takes the next unused row whose kernel name is the case's entry point.
"""
from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def load_suite():
    spec = importlib.util.spec_from_file_location("timing_suite_cases", os.path.join(HERE, "kernels", "suite.py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules["timing_suite_cases"] = mod
    spec.loader.exec_module(mod)
    return mod


KEEP = ("gpu__", "sm__", "smsp__", "l1tex__", "lts__", "dram__", "launch__")
PCT_KEEP = ("gpu__compute_memory_throughput.avg", "gpu__dram_throughput.avg", "sm__throughput.avg",
            "l1tex__throughput.avg", "lts__throughput.avg", "sm__inst_executed_pipe", "sm__warps_active.avg")


def wanted(k: str) -> bool:
    """The metrics worth keeping: totals and averages, not the min/max/per-unit spread."""
    if k in ("Kernel Name", "Block Size", "Grid Size"):
        return True
    if not k.startswith(KEEP) or ".min" in k or ".max" in k:
        return False
    if "pct_of_peak" in k and not k.startswith(PCT_KEEP):
        return False
    if k.startswith("launch__") and not k.startswith(LAUNCH_KEEP):
        return False
    return ".sum.pct_of_peak" not in k and ".sum.per_cycle" not in k and ".sum.peak" not in k


LAUNCH_KEEP = ("launch__registers_per_thread", "launch__occupancy_limit", "launch__shared_mem_per_block",
               "launch__waves_per_multiprocessor", "launch__grid_size", "launch__block_size")


def number(text: str):
    t = text.strip().replace(",", "")
    try:
        return float(t)
    except ValueError:
        return text.strip() or None


def read_rows(path: str) -> list[dict]:
    with open(path, newline="", errors="replace") as f:
        lines = [ln for ln in f if ln.startswith('"')]  # drop ==PROF== chatter
    rows = list(csv.reader(lines))
    if not rows:
        return []
    header = rows[0]
    body = rows[1:]
    if body and not any(c.strip().replace(".", "").isdigit() for c in body[0][:3]):
        body = body[1:]  # the units row
    return [dict(zip(header, r)) for r in body]


def match(cases, rows) -> dict:
    used, out = set(), {}
    for c in cases:
        for i, r in enumerate(rows):
            name = r.get("Kernel Name", "").split("(")[0].strip()
            if i not in used and name == c.kernel:
                used.add(i)
                out[c.name] = {k: number(v) for k, v in r.items() if wanted(k)}
                break
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("csv", nargs="+")
    ap.add_argument("-o", "--out", required=True)
    args = ap.parse_args(argv)
    suite = load_suite()
    merged: dict = {}
    for path in args.csv:
        for case, metrics in match(suite.CASES, read_rows(path)).items():
            merged.setdefault(case, {}).update(metrics)
    with open(args.out, "w") as f:
        json.dump(merged, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{len(merged)} cases -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
