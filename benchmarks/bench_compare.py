"""Before/after figures of the hot-path benchmarks, measured in one run: the engine
microbenchmarks (bench_engine.py) and the Triton matmul and flash-attention benchmarks
(bench_triton_matmul.py, bench_triton_attention.py), each run in a fresh process with this
checkout's ptxvm and with another tree's (PTXVM_TREE), alternately, --rounds times; the fastest
CPU time of each benchmark on each tree counts. The Triton outputs of the two trees must be the
same bits. Prints a Markdown table (docs/performance.md has one).

    git archive <commit> | tar -x -C /tmp/before      # the tree to compare with
    python benchmarks/bench_compare.py --before /tmp/before [--rounds 2]
"""
from __future__ import annotations

import argparse
import math
import os
import pathlib
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
ENGINE = re.compile(r"^(\w+)\s+([\d,]+) thread-instr\s+([\d.]+) CPU s")
TRITON = re.compile(r"^\s*(\S+)\s+compiled\s+[\d.]+\s+([\d.]+)\s+([\d.]+)")


def _run(script, args, tree, env_extra=None):
    env = dict(os.environ, PTXVM_TREE=str(tree))
    env.update(env_extra or {})
    out = subprocess.run([sys.executable, str(HERE / script), *args], env=env, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"{script} with {tree} failed:\n{out.stdout}\n{out.stderr}")
    return out.stdout


def measure(tree, sizes, heads, save_dir):
    """{benchmark: (CPU seconds, work)}: work in thread-instructions or flops."""
    got = {}
    for line in _run("bench_engine.py", ["--plain"], tree).splitlines():
        m = ENGINE.match(line)
        if m:
            got[m.group(1)] = (float(m.group(3)), float(m.group(2).replace(",", "")))
    for script, kind, extra in (("bench_triton_matmul.py", "matmul", []),
                                ("bench_triton_attention.py", "attention", ["--heads", str(heads)])):
        out = _run(script, ["--sizes", sizes, "--no-reference", "--save", str(save_dir / f"{kind}.npz"), *extra], tree)
        for line in out.splitlines():
            m = TRITON.match(line)
            if m:
                n = int(m.group(1).split("x")[1]) if "x" in m.group(1) else int(m.group(1))
                flops = 2.0 * n ** 3 if kind == "matmul" else 4.0 * heads * n * n * 64
                got[f"{kind} {m.group(1)}"] = (float(m.group(2)), flops)
        if "DIFFER" in out:
            raise SystemExit(f"{script} with {tree}: {out}")
    return got


def _geo(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True, help="the other tree (a checkout or an extracted archive)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--sizes", default="512,1024")
    ap.add_argument("--heads", type=int, default=4)
    opt = ap.parse_args()
    trees = {"before": pathlib.Path(opt.before).resolve(), "after": HERE.parent}
    best = {"before": {}, "after": {}}
    with tempfile.TemporaryDirectory() as tmp:
        dirs = {k: pathlib.Path(tmp) / k for k in trees}
        for d in dirs.values():
            d.mkdir()
        for r in range(opt.rounds):
            for name, tree in trees.items():
                for bench, (cpu, work) in measure(tree, opt.sizes, opt.heads, dirs[name]).items():
                    if bench not in best[name] or cpu < best[name][bench][0]:
                        best[name][bench] = (cpu, work)
                print(f"round {r + 1}, {name}: done", file=sys.stderr, flush=True)
        for kind in ("matmul", "attention"):
            a, b = np.load(dirs["before"] / f"{kind}.npz"), np.load(dirs["after"] / f"{kind}.npz")
            for key in a.files:
                same = np.array_equal(a[key].view(np.uint16), b[key].view(np.uint16))
                print(f"{key}: {'same bits before and after' if same else 'OUTPUTS DIFFER between the trees'}")
                if not same:
                    raise SystemExit(1)
    print("\n| benchmark | before: CPU s | after: CPU s | before | after | speed-up |\n|---|---:|---:|---:|---:|---:|")
    groups = {"triton": [], "engine": []}
    for bench in best["after"]:
        (c0, work), (c1, _) = best["before"][bench], best["after"][bench]
        triton = bench.startswith(("matmul", "attention"))
        unit, scale = ("GFLOP/s", 1e9) if triton else ("M thread-instr/s", 1e6)
        r0, r1 = work / c0, work / c1
        groups["triton" if triton else "engine"].append((r0, r1))
        print(f"| {bench} | {c0:.3f} | {c1:.3f} | {r0 / scale:.3f} {unit} | {r1 / scale:.3f} {unit} | {c0 / c1:.2f}x |")
    for g, unit, scale in (("triton", "GFLOP/s", 1e9), ("engine", "M thread-instr/s", 1e6)):
        rows = groups[g]
        if rows:
            g0, g1 = _geo([r[0] for r in rows]), _geo([r[1] for r in rows])
            print(f"| **{g} geomean** | | | {g0 / scale:.3f} {unit} | {g1 / scale:.3f} {unit} | {g1 / g0:.2f}x |")


if __name__ == "__main__":
    main()
