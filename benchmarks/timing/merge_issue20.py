#!/usr/bin/env python3
"""Merge issue 20's raw device recordings (results/issue20_raw/) into the files the tools read.

    python benchmarks/timing/merge_issue20.py

results/measured_h200.json  <- measured.json, then measured_risky.json and redo_measured.json
                               (a later file's case replaces an earlier one's; error entries are dropped)
results/ncu_issue20_h200.json <- ncu_metrics / ncu_warps CSVs of the main run, then the redo's
                               (rows matched to cases in launch order, as ncu_parse.py does; the
                               redo CSVs only against the cases the redo launched)
The raw files stay as the device wrote them (logs gzipped).
"""
from __future__ import annotations

import gzip
import importlib.util
import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RAW = os.path.join(HERE, "results", "issue20_raw")


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def rows_of(path: str, ncu_parse) -> list:
    with tempfile.NamedTemporaryFile("wb", suffix=".csv", delete=False) as t:
        with gzip.open(path) as g:
            shutil.copyfileobj(g, t)
    try:
        return ncu_parse.read_rows(t.name)
    finally:
        os.unlink(t.name)


def main() -> int:
    ncu_parse = _load("timing_ncu_parse", os.path.join(HERE, "ncu_parse.py"))
    suite = ncu_parse.load_suite()
    merged, meta = {}, None
    redo_names = []
    for name in ("measured.json", "measured_risky.json", "redo_measured.json"):
        doc = json.load(open(os.path.join(RAW, name)))
        meta = meta or {k: v for k, v in doc.items() if k != "cases"}
        for case, res in doc["cases"].items():
            if "error" not in res:
                merged[case] = res
        if name.startswith("redo"):
            redo_names = list(doc["cases"])
    known = {c.name for c in suite.CASES}
    meta["cases"] = {k: merged[k] for k in [c.name for c in suite.CASES] if k in merged}
    meta["note"] = ("merged by benchmarks/timing/merge_issue20.py from results/issue20_raw/ (one device call, "
                    "then a redo of the cases after a faulting launch); cases not in the suite any more dropped: "
                    + ", ".join(sorted(set(merged) - known)))
    with open(os.path.join(HERE, "results", "measured_h200.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    ncu: dict = {}
    main_cases = [c for c in suite.CASES if c.module != "suite" or c.kernel == "empty_kernel"]
    redo_cases = [c for c in suite.CASES if c.name in redo_names]
    for path, cases in (("ncu_metrics.csv.gz", main_cases), ("ncu_warps.csv.gz", main_cases),
                        ("redo_ncu_metrics.csv.gz", redo_cases), ("redo_ncu_warps.csv.gz", redo_cases)):
        got = ncu_parse.match(cases, rows_of(os.path.join(RAW, path), ncu_parse))
        for case, metrics in got.items():
            ncu.setdefault(case, {}).update(metrics)
    with open(os.path.join(HERE, "results", "ncu_issue20_h200.json"), "w") as f:
        json.dump(ncu, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{len(meta['cases'])} cases measured, {len(ncu)} with ncu metrics")
    return 0


if __name__ == "__main__":
    sys.exit(main())
