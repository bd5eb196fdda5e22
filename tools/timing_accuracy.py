#!/usr/bin/env python3
"""Regenerate docs/timing-accuracy.md: the timing model's predicted kernel times against the H200.

    python tools/timing_accuracy.py                 # profile every case (both conventions), write the report
    python tools/timing_accuracy.py --from-json     # re-render from the last run's predictions (no profiling)
    python tools/timing_accuracy.py --only a,b      # profile some cases only (prints; the report is not written)
    python tools/timing_accuracy.py --only a,b --update   # ... and replace their rows in the saved run, re-render
    python tools/timing_accuracy.py --workers 8           # profile 8 cases at a time (forked processes)
    python tools/timing_accuracy.py --executor ray        # one Ray task per case (ptxvm.ray; RAY_ADDRESS)

Cases: benchmarks/timing/kernels/suite.py (the original 36 and the families of issue 20). The split
into calibration and validation is benchmarks/timing/split.py's (by family; never fitted on).
Measured (benchmarks/timing/results/measured_<gpu>.json, tools/device/timing_suite.py --conventions):
  cold  the default convention: L2 flushed before the launch, CUDA events around one launch queued
        behind other GPU work (no host gap); predicted with `Kernel.profile(..., warm_l2=False)`;
  warm  back-to-back launches (the previous launch's data in L2); predicted with `warm_l2=True`.
ncu's gpu__time_duration (benchmarks/timing/results/ncu_<gpu>.json, where recorded) is shown for
comparison. Per-case predictions and measurements go to benchmarks/timing/results/accuracy_<gpu>.json;
the calibration set's measurements, for fitting tools, to benchmarks/timing/results/calibration_<gpu>.json.
"""
from __future__ import annotations

import argparse
import datetime
import importlib.util
import inspect
import json
import math
import os
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
RESULTS = os.path.join(ROOT, "benchmarks", "timing", "results")
sys.path.insert(0, ROOT)

CONVENTIONS = {"cold": "us", "warm": "us_warm"}  # convention -> key of the measured JSON

# (a, b, what the pair contrasts): the measured times decide which is faster; the model must agree
PAIRS = [
    ("sg_tiled16_256x256x256", "sg_naive_256x256x256", "tiled vs naive SGEMM"),
    ("sg_regblock_256x256x256", "sg_tiled16_256x256x256", "register-blocked vs tiled SGEMM"),
    ("sg_naive_256x256x256", "sg_naive_swapped_256x256x256", "coalesced vs swapped-index naive SGEMM"),
    ("tp_smem_padded_2048", "tp_smem_unpadded_2048", "padded vs unpadded shared transpose"),
    ("tp_smem_swizzle_2048", "tp_smem_unpadded_2048", "swizzled vs unpadded shared transpose"),
    ("tp_smem_padded_2048", "tp_naive_rows_2048", "shared-tile vs naive transpose"),
    ("tp_copy_tile_2048", "tp_naive_rows_2048", "tile copy vs naive transpose"),
    ("div_trip_loop_1024k_sorted", "div_trip_loop_1024k_random", "divergent loop: sorted vs random trip counts"),
    ("div_trip_loop_256k_sorted", "div_trip_loop_256k_random", "divergent loop: sorted vs random (256k)"),
    ("div_two_paths_256k_sorted", "div_two_paths_256k_random", "two paths: sorted vs random keys"),
    ("div_two_paths_256k_even", "div_two_paths_256k_random", "two paths: one path vs random keys"),
    ("hist_smem_atomic_1m_uniform", "hist_gmem_atomic_1m_uniform", "shared vs global atomics histogram"),
    ("hist_smem_atomic_16m_uniform", "hist_smem_atomic_16m_same", "shared histogram: uniform vs one-bin data"),
    ("hist_gmem_atomic_1m_uniform", "hist_gmem_atomic_1m_same", "global histogram: uniform vs one-bin data"),
    ("hist_warp_private_16m_same", "hist_smem_atomic_16m_same", "per-warp vs per-block shared histogram (one bin)"),
    ("red_sequential_1m", "red_interleaved_div_1m", "sequential vs divergent interleaved reduction"),
    ("red_interleaved_bank_1m", "red_interleaved_div_1m", "strided-index vs divergent interleaved reduction"),
    ("red_warp_unrolled_2m", "red_first_add_2m", "warp-unrolled vs first-add reduction"),
    ("red_atomic_slots_256k_4kslots", "red_atomic_slots_256k_1slot", "atomics on 4096 vs 1 address"),
    ("spmv_csr_vector_256k_powerlaw", "spmv_csr_scalar_256k_powerlaw", "SpMV warp-per-row vs thread-per-row (power law)"),
    ("spmv_csr_vector_256k_uniform", "spmv_csr_scalar_256k_uniform", "SpMV warp-per-row vs thread-per-row (uniform)"),
    ("sort_oddeven_block_64k_sorted", "sort_oddeven_block_64k_random", "odd-even sort: sorted vs random input"),
    ("sort_radix_hist_4m_random", "sort_radix_hist_4m_equal", "radix digit histogram: random vs equal keys"),
    ("pipe_cp_async_32tiles", "pipe_plain_32tiles", "cp.async pipeline vs plain loads"),
    ("cluster_local_32reps", "cluster_ring2_32reps", "local shared vs distributed shared (cluster of 2)"),
    ("occ_regs_regs_8", "occ_regs_regs_200", "gather: 32 vs 254 registers per thread"),
    ("occ_smem_1k", "occ_smem_200k", "gather: no vs 200 KiB shared per CTA"),
    ("warp_fma_ilp4_1x32_4096", "warp_fma_ilp1_1x32_16384", "one warp: 4 chains vs 1 chain (same FMAs)"),
    ("gather_idx_4m_64kb", "gather_idx_4m_128mb", "random gather: L1-sized vs DRAM-sized table"),
    ("hg_wmma_smem_512x512x512", "hg_wmma_global_512x512x512", "wmma HGEMM: shared-staged vs from global"),
    ("tt_matmul_f16_1024", "tt_matmul_tf32_1024", "Triton matmul: fp16 vs tf32"),
    ("softmax_warp_row_4096x1024", "sg_naive_256x256x256", "row softmax vs naive SGEMM"),
    ("tiny_add_32", "tiny_chase_1m_512hops", "one-warp add vs one-warp DRAM pointer chase"),
]


def load_module(name: str, path: str):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def load_suite():
    return load_module("timing_suite_cases", os.path.join(ROOT, "benchmarks", "timing", "kernels", "suite.py"))


def load_split():
    return load_module("timing_split", os.path.join(ROOT, "benchmarks", "timing", "split.py"))


def read_json(path):
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return json.load(f)


# ------------------------------------------------------------------ ncu counters -> comparable numbers

def _get(m: dict, *names):
    for n in names:
        v = m.get(n)
        if isinstance(v, (int, float)):
            return float(v)
    return None


def ncu_view(m: dict) -> dict:
    """The counters the model predicts, from one case's ncu metrics (None where not collected)."""
    rd, wr = _get(m, "dram__bytes_read.sum"), _get(m, "dram__bytes_write.sum")
    l1 = _get(m, "l1tex__t_sector_hit_rate.pct")
    l2 = _get(m, "lts__t_sector_hit_rate.pct")
    stalls = {k.split("issue_stalled_")[1].split("_per_")[0]: v for k, v in m.items()
              if "average_warps_issue_stalled_" in k and k.endswith("per_issue_active.ratio") and isinstance(v, (int, float))}
    return {
        "l1_hit": l1 / 100 if l1 is not None else None,
        "l2_hit": l2 / 100 if l2 is not None else None,
        "bank_conflicts": _get(m, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"),
        "dram_bytes": (rd or 0) + (wr or 0) if rd is not None or wr is not None else None,
        "gpu_time_us": (_get(m, "gpu__time_duration.sum") or 0) / 1e3 or None,
        "warps_active_pct": _get(m, "sm__warps_active.avg.pct_of_peak_sustained_active"),
        "stalls_per_issue": stalls or None,
    }


# ------------------------------------------------------------------ running the model

def _options(convention: str) -> dict:
    """Kernel.profile's option for a measurement convention (an `l2=` option where the model has
    one, else the older warm_l2 flag)."""
    import importlib

    params = inspect.signature(importlib.import_module("ptxvm.timing.profile").profile).parameters
    if "l2" in params:
        return {"l2": convention}
    return {"warm_l2": convention == "warm"}


def explain(p) -> str:
    """Which resource the model says bounds the kernel, in a few words."""
    launch = p.cycles - p.sm_cycles
    if p.cycles and launch / p.cycles > 0.5:
        return f"launch overhead ({launch / p.cycles:.0%} of the time)"
    peak = p.dram_bytes_per_s_peak or 0
    if peak and p.dram_bytes_per_s / peak > 0.6:
        return f"DRAM bandwidth ({p.dram_bytes_per_s / peak:.0%} of peak)"
    if p.issue_slot_utilization > 0.6:
        return f"instruction issue ({p.issue_slot_utilization:.0%} of slots)"
    stalls = {k: v for k, v in p.stalls.items() if k != "selected" and v}
    total = sum(p.stalls.values()) or 1.0
    if not stalls:
        return "issue"
    top = max(stalls, key=stalls.get)
    words = {"memory_dependency": "memory latency", "execution_dependency": "short-scoreboard latency",
             "wait": "dependent-issue latency",
             "pipe_busy": "a busy pipe", "synchronization": "barriers", "memory_throttle": "the LSU/L1 queue",
             "instruction_fetch": "instruction fetch", "not_selected": "issue contention",
             "constant": "constant cache", "texture": "texture pipe", "sleeping": "sleep"}.get(top, top)
    occ = p.occupancy
    return (f"{words} ({stalls[top] / total:.0%} of warp-cycles); occupancy {p.achieved_occupancy:.0%} "
            f"(limit {occ.limiter}), {p.waves:.2f} waves")


def predict(suite, case, gpu: str, modules: dict, convention: str):
    import ptxvm

    mod = modules.get(case.module)
    if mod is None:
        mod = modules[case.module] = ptxvm.load(str(suite.ptx_path(case)))
    if case.const:
        for name, arr in case.const().items():
            mod.write_symbol(name, arr)
    args = suite.materialize(case, 0)
    t0 = time.time()
    p = mod[case.kernel].profile(case.grid, case.block, args, shared_mem=case.shared, gpu=gpu, **_options(convention))
    return p, time.time() - t0


# ------------------------------------------------------------------ one case, and many side by side

PARALLEL_DEFAULT = None  # --executor local without --workers: ptxvm's default (PTXVM_WORKERS, else every core)
_LOADED: dict = {}  # per process: the suite, the split and the modules loaded so far


def profile_case(name: str, gpu: str, convs: list) -> dict:
    """One case's row: its predictions under each convention, what bounds it, the profile's
    speed; an exception is the row's `error`. Runs wherever it is called (this process, a
    forked worker, a Ray task): modules load once per process, as the serial run loads them."""
    if "suite" not in _LOADED:
        _LOADED.update(suite=load_suite(), split=load_split(), modules={})
    suite, split, modules = _LOADED["suite"], _LOADED["split"], _LOADED["modules"]
    c = next(c for c in suite.CASES if c.name == name)
    row = {"case": c.name, "kernel": c.kernel, "module": c.module, "family": c.family,
           "split": split.split_of(c), "legacy": c.module == "suite",
           "launch": f"{'x'.join(map(str, c.grid))} x {'x'.join(map(str, c.block))}"
                     + (f" +{c.shared // 1024} KiB" if c.shared >= 1024 else ""), "pred": {}}
    try:
        for conv in convs:
            p, wall = predict(suite, c, gpu, modules, conv)
            row["pred"][conv] = p.seconds * 1e6
            if conv == "cold" or "explain" not in row:
                row.update(explain=explain(p), wall_s=wall, thread_instructions=p.executed_thread_instructions,
                           speed=p.thread_instructions_per_second, stalls=dict(p.stalls),
                           sass_instructions=p.sass_instructions,
                           limiter=p.occupancy.limiter)
    except Exception as e:  # a failing case is reported in the table, not fatal
        row["error"] = f"{type(e).__name__}: {e}"
    return row


def profile_cases(names: list, gpu: str, convs: list, executor: str = "local", workers=None) -> list:
    """profile_case of every name, side by side through ptxvm.map_launches (forked processes or
    Ray tasks); the rows come back in the names' order. Each case's launches run in one process
    (a profile's launch is never split), so the rows are the serial run's but for the wall times."""
    import functools

    import ptxvm

    if executor == "ray":  # a Ray worker loads this file itself (the suite is no importable module)
        return ptxvm.map_launches(_anywhere(os.path.abspath(__file__)), [(n, gpu, convs) for n in names],
                                  executor="ray", workers=workers)
    return ptxvm.map_launches(functools.partial(profile_case, gpu=gpu, convs=convs), names,
                              executor=executor, workers=workers)


def _anywhere(path: str):
    """profile_case for a process that has not loaded this tool: a function that travels by
    value (cloudpickle) and loads the tool from `path` once per process."""
    def call(item):
        import importlib.util
        import sys

        tool = sys.modules.get("ptxvm_timing_accuracy_tool")
        if tool is None:
            spec = importlib.util.spec_from_file_location("ptxvm_timing_accuracy_tool", path)
            tool = importlib.util.module_from_spec(spec)
            sys.modules["ptxvm_timing_accuracy_tool"] = tool
            spec.loader.exec_module(tool)
        return tool.profile_case(*item)
    return call


def case_line(row: dict) -> str:
    return (f"{row['case']:36s} {row['split'][:3]} " + " ".join(f"{k} {v:9.2f}" for k, v in row["pred"].items())
            + f"  wall {row.get('wall_s', 0):.1f}s" + (f"  [{row['error'][:100]}]" if row.get("error") else ""))


# ------------------------------------------------------------------ statistics

def ranks(xs):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(a, b):
    if len(a) < 3:
        return None
    ra, rb = ranks(a), ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = math.sqrt(sum((x - ma) ** 2 for x in ra))
    vb = math.sqrt(sum((y - mb) ** 2 for y in rb))
    return cov / (va * vb) if va and vb else None


def summary(rows, conv):
    pts = [(r["pred"][conv], r["meas"][conv]) for r in rows
           if r.get("pred", {}).get(conv) and r.get("meas", {}).get(conv)]
    if not pts:
        return None
    errs = [abs(p - m) / m for p, m in pts]
    within2 = sum(1 for p, m in pts if 0.5 <= p / m <= 2.0)
    return {"n": len(pts), "mape": 100 * sum(errs) / len(errs), "median_ape": 100 * sorted(errs)[len(errs) // 2],
            "within_2x": within2, "within_20pct": sum(e <= 0.2 for e in errs),
            "spearman": spearman([m for _, m in pts], [p for p, _ in pts])}


# ------------------------------------------------------------------ report

def fmt(v, spec=".1f", none="–"):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return none
    return format(v, spec)


# the model's stall reasons (timing/sm.py STALL_REASONS) under the names ncu gives the nearest state
STALL_AS_NCU = {"memory_dependency": "long_scoreboard", "execution_dependency": "short_scoreboard", "wait": "wait",
                "pipe_busy": "math_pipe_throttle", "synchronization": "barrier",
                "memory_throttle": "lg/mio_throttle", "instruction_fetch": "no_instruction",
                "not_selected": "not_selected", "constant": "imc_miss", "texture": "tex_throttle",
                "sleeping": "sleeping"}


def _top3(per_issue: dict) -> str:
    ranked = sorted(((k, v) for k, v in per_issue.items() if k != "selected" and v), key=lambda kv: -kv[1])
    return ", ".join(f"{k} {v:.1f}" for k, v in ranked[:3]) or "–"


def model_stalls(row: dict) -> str:
    """The model's top 3 warp stalls of a row, cycles per issued instruction, under ncu's names."""
    st = row.get("stalls") or {}
    issued = st.get("selected") or 0
    if not issued:
        return "–"
    return _top3({STALL_AS_NCU.get(k, k): v / issued for k, v in st.items()})


def ncu_stalls(row: dict) -> str:
    return _top3(((row.get("ncu") or {}).get("stalls_per_issue") or {}))


def render(rows: list, meta: dict) -> str:
    by = {r["case"]: r for r in rows}
    groups = [("validation", [r for r in rows if r["split"] == "validation"]),
              ("calibration (issue-20 families)", [r for r in rows if r["split"] == "calibration" and not r["legacy"]]),
              ("calibration (the original 36)", [r for r in rows if r["legacy"]])]
    out = [
        "# Timing model accuracy",
        "",
        f"Regenerated by `python tools/timing_accuracy.py` ({meta['date']}); do not edit by hand. "
        f"Model: `Kernel.profile(..., gpu=\"{meta['gpu']}\")` of this checkout, on the arguments of "
        "benchmarks/timing/kernels/suite.py (seed 0). Measured on the "
        f"{meta.get('device', 'GPU')} ({meta.get('measured_date', '?')}, tools/device/timing_suite.py --conventions, "
        f"median of {meta.get('reps', '?')} launches, clocks as the GPU runs them; raw JSON in benchmarks/timing/results/).",
        "",
        "Conventions: **cold** (the default, what ptxvm.timing predicts unless told otherwise): L2 flushed "
        "(a 256 MiB memset) before the launch, CUDA events around one launch queued behind other GPU work, "
        "so no host gap - what `triton.testing.do_bench` reports. **warm**: back-to-back launches, the previous "
        "launch's data left in L2. `ncu` is ncu's gpu__time_duration of one launch (caches flushed), for comparison.",
        "",
        "Split (benchmarks/timing/split.py): by kernel family; the original 36 cases are calibration; any other "
        "family is validation when int(sha1(family), 16) % 3 == 0. Validation cases are never fitted on.",
        "",
        "## Summary",
        "",
        "| set | convention | kernels | MAPE % | median APE % | within 2x | within 20 % | Spearman |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, rs in groups:
        for conv in CONVENTIONS:
            s = summary(rs, conv)
            if s:
                out.append(f"| {name} | {conv} | {s['n']} | **{fmt(s['mape'])}** | {fmt(s['median_ape'])} | "
                           f"{s['within_2x']} of {s['n']} | {s['within_20pct']} | {fmt(s['spearman'], '.3f')} |")
    speeds = [r["speed"] for r in rows if r.get("speed")]
    if speeds:
        tot_i = sum(r["thread_instructions"] for r in rows if r.get("speed"))
        tot_s = sum(r["thread_instructions"] / r["speed"] for r in rows if r.get("speed"))
        out += ["", f"Model speed (cold profiles): {tot_i / tot_s:.3g} thread-instructions per second over "
                    f"{len(speeds)} launches (slowest launch {min(speeds):.3g}/s); profile wall time per launch in the tables."]
    failed = [r for r in rows if r.get("error")]
    if failed:
        out += ["", f"Not predicted ({len(failed)}): " + "; ".join(f"{r['case']}: {r['error'][:120]}" for r in failed)]
    unmeasured = [r["case"] for r in rows if not r.get("meas", {}).get("cold")]
    if unmeasured:
        out += ["", f"Not measured ({len(unmeasured)}): " + ", ".join(unmeasured)]

    out += ["", "## Contrasting pairs (cold)", "",
            "Ranked right when the model orders the pair as the H200 does; `tie` when the measured times differ by "
            "less than 5 %.", "",
            "| pair | split | measured us (a / b) | predicted us (a / b) | ranked |", "| --- | --- | --- | --- | --- |"]
    right = total = 0
    for a, b, what in PAIRS:
        ra, rb = by.get(a), by.get(b)
        if not ra or not rb:
            continue
        ma, mb = ra.get("meas", {}).get("cold"), rb.get("meas", {}).get("cold")
        pa, pb = ra.get("pred", {}).get("cold"), rb.get("pred", {}).get("cold")
        if not (ma and mb and pa and pb):
            continue
        if abs(ma - mb) / max(ma, mb) < 0.05:
            verdict = "tie"
        else:
            ok = (ma < mb) == (pa < pb)
            right += ok
            total += 1
            verdict = "right" if ok else "**wrong**"
        splits = "/".join(sorted({ra["split"][:3], rb["split"][:3]}))
        out.append(f"| {what}: {a} / {b} | {splits} | {ma:.2f} / {mb:.2f} | {pa:.2f} / {pb:.2f} | {verdict} |")
    out += ["", f"{right} of {total} pairs ranked right (ties excluded)."]

    val = [r for r in groups[0][1] if r.get("pred", {}).get("cold") and r.get("meas", {}).get("cold")]
    val.sort(key=lambda r: -abs(r["pred"]["cold"] / r["meas"]["cold"] - 1))
    out += ["", "## The 10 worst validation kernels (cold)", "",
            "| kernel | measured us | predicted us | error % | the model's bound | the model's warp stalls | "
            "ncu warp stalls |",
            "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in val[:10]:
        out.append(f"| {r['case']} | {r['meas']['cold']:.2f} | {r['pred']['cold']:.2f} | "
                   f"{100 * (r['pred']['cold'] / r['meas']['cold'] - 1):+.1f} | {r.get('explain', '')} | "
                   f"{model_stalls(r)} | {ncu_stalls(r)} |")
    out += ["", "## Warp states of the validation kernels, the model beside ncu (cold)", "",
            "Cycles per issued instruction, the top 3 of each (the model's reasons under ncu's names: "
            + ", ".join(f"{k} = {v}" for k, v in STALL_AS_NCU.items()) + "). "
            "Both count machine instructions: the model each PTX form's SASS (engine/trace/expansion.py), "
            "ncu what ran.", "",
            "| kernel | error % | the model's warp stalls | ncu warp stalls |", "| --- | --- | --- | --- |"]
    for r in sorted(val, key=lambda r: r["case"]):
        out.append(f"| {r['case']} | {100 * (r['pred']['cold'] / r['meas']['cold'] - 1):+.1f} | "
                   f"{model_stalls(r)} | {ncu_stalls(r)} |")

    for name, rs in groups:
        out += ["", f"## All {name} kernels", "",
                "| kernel | family | grid x block | cold us measured / predicted | error % | warm us measured / predicted "
                "| error % | ncu us | the model's bound | profile wall s |",
                "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for r in rs:
            m, p = r.get("meas", {}), r.get("pred", {})

            def err(c):
                return 100 * (p[c] / m[c] - 1) if m.get(c) and p.get(c) else None
            out.append(f"| {r['case']} | {r['family']} | {r['launch']} | {fmt(m.get('cold'), '.2f')} / "
                       f"{fmt(p.get('cold'), '.2f')} | {fmt(err('cold'), '+.1f')} | {fmt(m.get('warm'), '.2f')} / "
                       f"{fmt(p.get('warm'), '.2f')} | {fmt(err('warm'), '+.1f')} | "
                       f"{fmt((r.get('ncu') or {}).get('gpu_time_us'), '.2f')} | "
                       f"{r.get('explain') or ('error: ' + r.get('error', '')[:60] if r.get('error') else '')} | "
                       f"{fmt(r.get('wall_s'), '.1f')} |")
    out.append("")
    return "\n".join(out)


def attach_measurements(rows, measured: dict, ncu: dict):
    for r in rows:
        mc = measured.get(r["case"]) or {}
        r["meas"] = {conv: (mc.get(key) or {}).get("median") for conv, key in CONVENTIONS.items()}
        r["ncu"] = ncu_view(ncu[r["case"]]) if r["case"] in ncu else None


def write_calibration(rows, measured_meta: dict, gpu: str):
    """The calibration set's measurements in a form a fitting tool reads (tools/timing_tune.py)."""
    cal = {r["case"]: {"kernel": r["kernel"], "module": r["module"], "family": r["family"], "launch": r["launch"],
                       "us": r["meas"].get("cold"), "us_warm": r["meas"].get("warm"),
                       "ncu_us": (r.get("ncu") or {}).get("gpu_time_us")}
           for r in rows if r["split"] == "calibration" and r["meas"].get("cold")}
    doc = {"about": "H200 times of the calibration set only (benchmarks/timing/split.py); us = cold convention "
                    "(L2 flushed, events around one queued launch), us_warm = back to back. Validation cases are "
                    "deliberately absent.", "measured": measured_meta, "cases": cal}
    with open(os.path.join(RESULTS, f"calibration_{gpu}.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpu", default="h200")
    ap.add_argument("--only", default="", help="comma-separated case names or name prefixes (no report written)")
    ap.add_argument("--conventions", default="cold,warm")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "timing-accuracy.md"))
    ap.add_argument("--json", default=None)
    ap.add_argument("--from-json", action="store_true", help="re-render from the saved predictions (no profiling)")
    ap.add_argument("--update", action="store_true", help="with --only: replace those rows of the saved run, re-render")
    ap.add_argument("--workers", type=int, default=None,
                    help="profile this many cases side by side (processes; default 1, or the Ray cluster's CPUs)")
    ap.add_argument("--executor", choices=["local", "ray"], default=None,
                    help="local: forked processes (default with --workers); ray: one Ray task per case (ptxvm.ray)")
    args = ap.parse_args(argv)
    if args.workers is not None and args.workers < 1:
        ap.error("--workers must be at least 1")
    if args.workers is None:
        args.workers = None if args.executor == "ray" else (PARALLEL_DEFAULT if args.executor else 1)
    suite, split = load_suite(), load_split()
    _LOADED.update(suite=suite, split=split, modules={})
    measured_doc = read_json(os.path.join(RESULTS, f"measured_{args.gpu}.json"))
    measured = measured_doc.get("cases", {})
    ncu = read_json(os.path.join(RESULTS, f"ncu_issue20_{args.gpu}.json"))
    json_path = args.json or os.path.join(RESULTS, f"accuracy_{args.gpu}.json")
    convs = [c for c in args.conventions.split(",") if c]
    only = [s for s in args.only.split(",") if s]

    if args.from_json:
        saved = read_json(json_path)
        rows, meta = saved["rows"], saved["meta"]
    else:
        from ptxvm.timing.gpu import load_gpu

        load_gpu(args.gpu)  # a clear error for an unknown GPU before any work
        names = [c.name for c in suite.CASES if not only or any(c.name == o or c.name.startswith(o) for o in only)]
        if args.workers == 1 and args.executor is None:
            rows = []
            for name in names:  # one after the other, each printed as it finishes
                rows.append(profile_case(name, args.gpu, convs))
                print(case_line(rows[-1]), flush=True)
        else:
            rows = profile_cases(names, args.gpu, convs, args.executor or "local", args.workers)
            for row in rows:
                print(case_line(row), flush=True)
        meta = {"date": datetime.date.today().isoformat(), "gpu": args.gpu}
    meta.update({"device": measured_doc.get("device", "GPU"), "measured_date": measured_doc.get("date", "?")[:10],
                 "reps": next((v.get("us", {}).get("reps") for v in measured.values() if isinstance(v, dict) and v.get("us")), "?")})
    if only and args.update:
        saved = read_json(json_path)
        fresh = {r["case"]: r for r in rows}
        names = [c.name for c in suite.CASES]
        old = {r["case"]: r for r in saved["rows"] if r["case"] in names}
        old.update(fresh)
        rows = [old[n] for n in names if n in old]
        meta = dict(saved["meta"], **{k: meta[k] for k in ("device", "measured_date", "reps")})
        only = []
    attach_measurements(rows, measured, ncu)
    if only:
        for r in rows:
            print(f"{r['case']:36s} measured {r['meas']}  predicted {r['pred']}")
        return 0
    with open(args.out, "w") as f:
        f.write(render(rows, meta))
    with open(json_path, "w") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=1, default=str)
        f.write("\n")
    if measured:
        write_calibration(rows, measured_doc and {k: measured_doc.get(k) for k in ("date", "device", "conventions")},
                          args.gpu)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
