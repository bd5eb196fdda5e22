#!/usr/bin/env python3
"""ncu counters of crafted memory accesses (tools/device/memory_counters.cu), to check
ptxvm.timing.memory against the GPU: shared-memory wavefronts, global sectors and requests,
L1 hits under each cache operator, L2 fetch granularity and prefetch sizes, cold DRAM bytes,
L1 capacity under each shared-memory carveout, stores (L1 allocation, DRAM traffic).

On the GPU machine (nvcc + ncu):
    python3 tools/device/memory_counters.py run OUTDIR [main|l2hot|partial]
Here, from the results (several OUTDIRs separated by commas):
    python3 tools/device/memory_counters.py unpack OUTDIR tests/timing_memory/h200_counters.json
"""
from __future__ import annotations

import csv
import datetime
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
METRICS = [
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum",
    "lts__t_sectors_srcunit_tex_op_read.sum",
    "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
    "lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "lts__t_sectors_srcunit_tex_op_write.sum",
    "lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum",
    "lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum",
    "gpu__time_duration.sum",
]


def _ncu() -> str:
    for c in (shutil.which("ncu"), "/usr/local/cuda/bin/ncu"):
        if c and os.path.exists(c):
            return c
    raise SystemExit("ncu not found")


def run(out: str, only: str = "") -> int:
    """only: "main", "l2hot" or "partial" to run one ncu session of the three."""
    os.makedirs(out, exist_ok=True)
    exe = os.path.join(out, "memory_counters")
    subprocess.run(["nvcc", "-arch=sm_90", "-O2", "-o", exe, os.path.join(HERE, "memory_counters.cu")],
                   check=True)
    ncu = _ncu()
    query = subprocess.run([ncu, "--query-metrics", "--chip", "gh100"], capture_output=True, text=True)
    known = {line.split()[0] for line in query.stdout.splitlines() if line.strip()}
    metrics = [m for m in METRICS if m.split(".")[0] in known] or METRICS
    with open(os.path.join(out, "status.txt"), "w") as f:
        f.write(f"ncu={ncu}\nmetrics={','.join(metrics)}\ndropped={sorted(set(METRICS) - set(metrics))}\n")
    rc = 0
    # the grid-barrier (l2hot) kernels run in their own ncu session: a hang there keeps the rest
    for group, extra, limit in (("", [], 150), ("_l2hot", ["l2hot"], 60), ("_partial", ["partial"], 60)):
        if only and only != (group.lstrip("_") or "main"):
            continue
        cases = os.path.join(out, f"cases{group}.json")
        try:
            r = subprocess.run([ncu, "--csv", "--page", "raw", "--log-file", os.path.join(out, f"ncu{group}.csv"),
                                "--metrics", ",".join(metrics), exe, cases, *extra],
                               capture_output=True, text=True, timeout=limit)
            log, code = r.stdout[-20000:] + "\n--- stderr ---\n" + r.stderr[-20000:], r.returncode
        except subprocess.TimeoutExpired:
            log, code = f"timed out after {limit} s", 124
        with open(os.path.join(out, f"ncu_app{group}.log"), "w") as f:
            f.write(log)
        with open(os.path.join(out, "status.txt"), "a") as f:
            f.write(f"ncu{group} rc={code}\n")
        rc = rc or code
    with open(os.path.join(out, "status.txt"), "a") as f:
        f.write(f"date={datetime.date.today().isoformat()}\n")
    os.remove(exe)
    return rc


def _number(s: str):
    s = s.replace(",", "").strip()
    try:
        v = float(s)
    except ValueError:
        return None
    return int(v) if v.is_integer() else v


def _group(out: str, group: str):
    """(case, header, row) of one ncu session; none if the session left no complete record."""
    try:
        with open(os.path.join(out, f"cases{group}.json")) as f:
            text = f.read().strip()
        # a stopped run leaves the list unclosed: keep the cases it completed
        cases = json.loads(text if text.endswith("]") else text + "\n]")
        with open(os.path.join(out, f"ncu{group}.csv"), newline="") as f:
            lines = [ln for ln in f if not ln.startswith("==")]
    except (OSError, ValueError):
        return []
    rows = list(csv.reader(lines))
    if len(rows) < 2:
        return []
    header, data = rows[0], rows[2:]  # row 1 holds the units
    if len(data) < len(cases):
        raise SystemExit(f"ncu{group}.csv: {len(data)} profiled launches for {len(cases)} cases")
    data = data[:len(cases)]  # a launch after the last noted case failed
    return [(c, header, r) for c, r in zip(cases, data)]


def unpack(outs: str, dest: str) -> int:
    """outs: one results directory, or several separated by commas (sessions recorded apart)."""
    records, status = [], ""
    for out in outs.split(","):
        records += _group(out, "") + _group(out, "_l2hot") + _group(out, "_partial")
        status += open(os.path.join(out, "status.txt")).read()
    if not records:
        raise SystemExit(f"no complete ncu record under {outs}")
    date = next((ln.split("=", 1)[1] for ln in status.splitlines() if ln.startswith("date=")), "")
    result = {"recorder": "tools/device/memory_counters.py", "device": "H200", "date": date, "cases": []}
    for case, header, row in records:
        rec = dict(case)
        rec["counters"] = {h: _number(v) for h, v in zip(header, row)
                           if h in METRICS and _number(v) is not None}
        result["cases"].append(rec)
    with open(dest, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    print(f"wrote {dest} ({len(records)} cases)")
    return 0


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "run":
        sys.exit(run(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else ""))
    if len(sys.argv) >= 4 and sys.argv[1] == "unpack":
        sys.exit(unpack(sys.argv[2], sys.argv[3]))
    raise SystemExit(__doc__)
