"""Register pressure against load hoisting: how many loads ptxas keeps in flight, and the model's
register rule (ptxvm/timing/pressure.py, schedule.py) on the same code.

Microbenchmark (static: ptxas is the authority on its own schedule, no GPU needed): a loop whose
straight body loads N b16 values from global memory (one base register, offsets as immediates:
no address registers) and stores them to shared memory, while K f32 accumulators stay live across
the loop (updated after a bar.sync), compiled with `.maxnreg R`. For every (N, K, R):
ptxas's registers, and in the loop body's SASS the most loads in flight (issued, value not yet
read) and the loads issued before the first value is read.

    python benchmarks/timing/sass/pressure.py --ptxas   # compile, write results/sass_pressure_ptxas13.json
    python benchmarks/timing/sass/pressure.py           # the model on the same PTX, against the JSON

The model runs each kernel (one warp) with ptxas's register count and schedules the loop body
under its rule; it prints both figures side by side. `--kernels` adds the calibration kernels
that motivated the rule (ptxas's stretches with 4+ loads; the model's runs with 4+ loads).
"""
from __future__ import annotations

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
RESULTS = os.path.join(ROOT, "benchmarks", "timing", "results", "sass_pressure_ptxas13.json")
sys.path[:0] = [ROOT, HERE]

LOADS = (16, 32, 64)
LIVE = (0, 64, 128, 192)
MAXNREG = (48, 64, 96, 128, 160, 255)
STRIDE = 64  # bytes between a thread's loads (immediate offsets)


def kernel_ptx(n: int, k: int, maxnreg: int) -> str:
    """The microbenchmark kernel: n loads -> n shared stores per trip, k accumulators live across."""
    lines = [".version 8.0", ".target sm_90a", ".address_size 64", "",
             f".visible .entry press_n{n}_k{k}(.param .u64 src, .param .u64 dst, .param .u32 trips)",
             f".maxnreg {maxnreg}", "{",
             "\t.reg .pred %p<2>;", "\t.reg .b32 %r<8>;", "\t.reg .b64 %rd<8>;",
             f"\t.reg .b16 %h<{n}>;", f"\t.reg .f32 %f<{k + 4}>;",
             f"\t.shared .align 4 .b8 buf[{n * STRIDE}];",
             "\tld.param.u64 %rd1, [src];", "\tld.param.u64 %rd2, [dst];", "\tld.param.u32 %r6, [trips];",
             "\tcvta.to.global.u64 %rd1, %rd1;", "\tcvta.to.global.u64 %rd2, %rd2;",
             "\tmov.u32 %r1, %tid.x;", "\tmul.wide.u32 %rd3, %r1, 2;", "\tadd.s64 %rd4, %rd1, %rd3;",
             "\tshl.b32 %r2, %r1, 1;", "\tmov.u32 %r3, buf;", "\tadd.s32 %r4, %r3, %r2;",
             "\tcvt.rn.f32.u32 %f0, %r1;"]
    for i in range(k):
        lines.append(f"\tadd.f32 %f{i + 2}, %f0, 0f{0x3F800000 + (i << 16):08X};")
    lines += ["\tmov.u32 %r5, 0;", "LOOP:"]
    for i in range(n):
        lines.append(f"\tld.global.b16 %h{i}, [%rd4+{i * STRIDE}];")
    for i in range(n):
        lines.append(f"\tst.shared.b16 [%r4+{i * STRIDE}], %h{i};")
    lines += ["\tbar.sync 0;", "\tld.shared.f32 %f1, [%r3];"]
    for i in range(k):
        lines.append(f"\tfma.rn.f32 %f{i + 2}, %f{i + 2}, %f1, %f1;")
    lines += ["\tbar.sync 0;", f"\tadd.s64 %rd4, %rd4, {n * STRIDE * 32};", "\tadd.s32 %r5, %r5, 1;",
              "\tsetp.lt.u32 %p1, %r5, %r6;", "\t@%p1 bra LOOP;", "\tmov.f32 %f1, 0f00000000;"]
    for i in range(k):
        lines.append(f"\tadd.f32 %f1, %f1, %f{i + 2};")
    lines += ["\tmul.wide.u32 %rd5, %r1, 4;", "\tadd.s64 %rd6, %rd2, %rd5;", "\tst.global.f32 [%rd6], %f1;",
              "\tret;", "}", ""]
    return "\n".join(lines)


def configs():
    return [(n, k, r) for n in LOADS for k in LIVE for r in MAXNREG if k + 16 < r]


def ptxas_sweep() -> dict:
    import sass_flight as sf

    import subprocess

    version = subprocess.run([sf.tool("ptxas"), "--version"], capture_output=True, text=True).stdout.strip()
    release = [x for x in version.splitlines() if "release" in x]
    out = {"tool": "ptxas: " + (release[0] if release else version), "arch": "sm_90a", "stride": STRIDE,
           "what": "per (loads N, live K, maxnreg R): ptxas -v registers, spills, and in the loop body's SASS the "
                   "most loads in flight, the loads issued before the first loaded value is read, the LDG/STS order",
           "points": []}
    for n, k, r in configs():
        info, sass = sf.compile_sass(kernel_ptx(n, k, r))
        body = _loop_body(sf, sass, n)
        out["points"].append({"loads": n, "live": k, "maxnreg": r, "registers": sf.registers(info),
                              "spills": "0 bytes spill stores" not in info, **sf.in_flight(body),
                              "order": _letters(body)})
    return out


def _loop_body(sf, sass: str, n: int) -> list:
    """The SASS stretch holding the loop's n LDGs (the one with the most loads)."""
    best = max(sf.stretches(sf.instructions(sass)), key=lambda s: sum("LDG" in t for t in s))
    return best


def _letters(stretch: list) -> str:
    return "".join("L" if "LDG" in t or "LDS" in t else "S" for t in stretch if "LDG" in t or "STS" in t
                   or "LDS" in t)


def model_runs(kernel, grid, block, args, shared: int = 0, regs=None, budget: bool = True) -> list:
    """The model's list schedule of the kernel's runs (first warp), per distinct run with 4+ loads:
    (first pc, length, loads, most in flight, loads before the first value is read)."""
    import importlib

    import numpy as np

    prof = importlib.import_module("ptxvm.timing.profile")
    from ptxvm.timing.params import DEFAULT
    from ptxvm.timing.schedule import block_orders
    from ptxvm.timing.static import StaticTable

    col = prof.collect(kernel, grid, block, args, shared_mem=shared, regs=regs, functional="sampled")
    trace = col.sms[0][0]
    counts = np.array([s.warps.size for s in trace.steps])
    row = np.concatenate([s.warps for s in trace.steps])
    pc = np.repeat(np.array([s.pc for s in trace.steps]), counts)
    o = np.argsort(row, kind="stable")
    row, pc = row[o], pc[o]
    tab = StaticTable(trace, col.spec, DEFAULT, np.unique(pc))
    order = block_orders(pc, row, tab.ctrl, tab.sched_latency, tab.reads, tab.writes, tab.mem_kind, tab.mem_space,
                         tab.units, col.occ.regs_per_thread if budget else None, tab.uniform)
    seq = pc[order[row[order] == row[0]]].tolist()
    runs, cur = [], []
    for p in seq:
        cur.append(p)
        if tab.ctrl[p]:
            runs.append(cur)
            cur = []
    runs.append(cur)
    out, seen = [], set()
    for r in runs:
        if not r or (min(r), len(r)) in seen:
            continue
        seen.add((min(r), len(r)))
        loads = [p for p in r if tab.mem_kind[p] == 1]
        if len(loads) < 4:
            continue
        pending: list = []
        most, first, issued = 0, None, 0
        for p in r:
            read = set(tab.reads[p])
            still = [w for w in pending if not (w & read)]
            if len(still) < len(pending) and first is None:
                first = issued
            pending = still
            if tab.mem_kind[p] == 1:
                pending.append(set(tab.writes[p]))
                issued += 1
            most = max(most, len(pending))
        out.append({"pc": min(r), "length": len(r), "loads": len(loads), "max_in_flight": most,
                    "before_first_use": issued if first is None else first, "registers": col.occ.regs_per_thread})
    return out


def model_point(n: int, k: int, maxnreg: int, registers: int, budget: bool = True) -> dict:
    import numpy as np

    import ptxvm

    mod = ptxvm.loads(kernel_ptx(n, k, maxnreg))
    src = np.zeros(n * STRIDE * 32 * 3, np.uint16)
    dst = np.zeros(32, np.float32)
    runs = model_runs(mod[f"press_n{n}_k{k}"], 1, 32, [src, dst, np.uint32(3)], regs=registers, budget=budget)
    return max(runs, key=lambda r: (r["loads"], r["pc"]))  # the loop body (the first trip's run has the prologue)


def kernels_report() -> None:
    import re

    import sass_flight as sf

    sys.path[:0] = [os.path.join(ROOT, "tools"), os.path.join(ROOT, "benchmarks", "timing"),
                    os.path.join(ROOT, "benchmarks", "timing", "kernels")]
    import timing_accuracy as ta

    import ptxvm

    suite = ta.load_suite()
    ptxas = sf.tool("ptxas")  # the model takes ptxas's register count when ptxas is on PATH
    if ptxas:
        os.environ["PATH"] = os.path.dirname(ptxas) + os.pathsep + os.environ.get("PATH", "")
    for name in ("tt_matmul_f16_512", "tt_attention_d64_16x512", "sg_regblock_256x256x256", "hgemm_mma"):
        c = next(c for c in suite.CASES if c.name == name)
        info, sass = sf.compile_sass(open(suite.ptx_path(c)).read())
        funcs = {f.split()[0]: f for f in re.split(r"\n\s+Function : ", sass)[1:]}
        got = [sf.in_flight(s) for s in sf.stretches(sf.instructions(funcs[c.kernel]))]
        print(f"{name}: ptxas stretches with 4+ loads (loads / most in flight / before first use): "
              + ", ".join(f"{g['loads']}/{g['max_in_flight']}/{g['before_first_use']}" for g in got if g["loads"] >= 4))
        mod = ptxvm.load(str(suite.ptx_path(c)))
        for label, budget in (("model, no budget", False), ("model, budget", True)):
            runs = model_runs(mod[c.kernel], c.grid, c.block, suite.materialize(c, 0), c.shared, budget=budget)
            print(f"  {label} ({runs[0]['registers'] if runs else '?'} registers): "
                  + ", ".join(f"{r['loads']}/{r['max_in_flight']}/{r['before_first_use']}" for r in runs))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ptxas", action="store_true", help="compile the sweep with ptxas and write the JSON")
    ap.add_argument("--kernels", action="store_true", help="also compare the calibration kernels")
    a = ap.parse_args(argv)
    if a.ptxas:
        data = ptxas_sweep()
        with open(RESULTS, "w") as f:
            json.dump(data, f, indent=1)
        print(f"wrote {RESULTS} ({len(data['points'])} points)")
    with open(RESULTS) as f:
        data = json.load(f)
    print(f"{'N':>3} {'K':>4} {'maxnreg':>7} {'regs':>4} | ptxas in flight / before use | model in flight / before use"
          f" | model without budget")
    for p in data["points"]:
        m = model_point(p["loads"], p["live"], p["maxnreg"], p["registers"])
        f = model_point(p["loads"], p["live"], p["maxnreg"], p["registers"], budget=False)
        print(f"{p['loads']:>3} {p['live']:>4} {p['maxnreg']:>7} {p['registers']:>4} | {p['max_in_flight']:>8} / "
              f"{p['before_first_use']:<14} | {m['max_in_flight']:>8} / {m['before_first_use']:<14} | "
              f"{f['max_in_flight']} / {f['before_first_use']}")
    if a.kernels:
        kernels_report()
    return 0


if __name__ == "__main__":
    sys.exit(main())
