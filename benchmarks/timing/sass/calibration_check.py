#!/usr/bin/env python3
"""Calibration cases: the model's issued warp-instructions and stalls per issue next to ncu's.

    python benchmarks/timing/sass/calibration_check.py [case ...]

Profiles the named CALIBRATION cases (default: the Triton matmuls and the cases whose ncu SASS count
differs most from their PTX count) in the cold convention with tools/timing_accuracy.py's
`profile_case` and prints, per case: measured / predicted time, ncu's smsp__inst_executed against
the model's issued warp-instructions (each PTX form counts its machine instructions,
engine/trace/expansion.py; scaled from the simulated SM to the grid), and the stalls per issued
instruction the two report for "wait" (fixed-latency dependency), short and long scoreboard.
Validation cases are refused (benchmarks/timing/split.py).
"""
from __future__ import annotations

import importlib.util
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
DEFAULT = ["tt_matmul_f16_512", "tt_matmul_f16_1024", "tt_matmul_tf32_512", "tt_matmul_tf32_1024", "collatz",
           "red_interleaved_div_256k", "copy_f32", "saxpy", "atom_contention_64slots", "reduce_shared", "fma_latency"]


def _tool():
    spec = importlib.util.spec_from_file_location("timing_accuracy", os.path.join(ROOT, "tools", "timing_accuracy.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(argv=None) -> int:
    names = (argv if argv is not None else sys.argv[1:]) or DEFAULT
    ta = _tool()
    suite, split = ta.load_suite(), ta.load_split()
    cases = {c.name: c for c in suite.CASES}
    bad = [n for n in names if n not in cases or split.split_of(cases[n]) != split.CALIBRATION]
    if bad:
        print(f"not calibration cases (or unknown): {', '.join(bad)}", file=sys.stderr)
        return 2
    measured = (ta.read_json(os.path.join(ta.RESULTS, "measured_h200.json")) or {}).get("cases", {})
    ncu = dict(ta.read_json(os.path.join(ta.RESULTS, "ncu_h200.json")) or {})
    ncu.update(ta.read_json(os.path.join(ta.RESULTS, "ncu_issue20_h200.json")) or {})
    print(f"{'case':28s} {'meas us':>8s} {'model':>7s} {'err%':>6s} {'ncu inst':>10s} {'model':>10s} "
          f"{'wait ncu/model':>15s} {'short sb':>11s} {'long sb':>11s}")
    for n in names:
        row = ta.profile_case(n, "h200", ["cold"])
        m = measured.get(n, {})
        meas = (m.get("us") or {}).get("median")
        pred = row["pred"]["cold"]
        st = row["stalls"]
        issued = st.get("selected") or 1.0
        nc = ncu.get(n, {})
        g = lambda k: nc.get(f"smsp__average_warps_issue_stalled_{k}_per_issue_active.ratio")  # noqa: E731
        model_inst = row.get("sass_instructions")
        err = 100 * (pred - meas) / meas if meas else float("nan")
        print(f"{n:28s} {meas or float('nan'):8.2f} {pred:7.2f} {err:+6.1f} {nc.get('smsp__inst_executed.sum', 0):10.0f} "
              f"{model_inst or 0:10.0f} {fmt(g('wait'))}/{st.get('wait', 0) / issued:5.2f}      "
              f"{fmt(g('short_scoreboard'))}/{st.get('execution_dependency', 0) / issued:5.2f} "
              f"{fmt(g('long_scoreboard'))}/{st.get('memory_dependency', 0) / issued:5.2f}")
    return 0


def fmt(v) -> str:
    return "   -" if v is None else f"{v:5.2f}"


if __name__ == "__main__":
    sys.exit(main())
