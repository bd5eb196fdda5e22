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
                out[c.name] = {k: number(v) for k, v in r.items()
                               if "__" in k or k in ("Kernel Name", "Block Size", "Grid Size")}
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
