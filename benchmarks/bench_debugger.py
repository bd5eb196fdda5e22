"""Debugger overhead: a launch under ptxvm.Debugger that runs to its end, over a plain launch.

    python benchmarks/bench_debugger.py [--quick]

The kernels and timing of bench_sanitizer.py. Columns: no breakpoint armed (the hooks' cost), and
a conditional breakpoint that is never true on the kernel's first load (its condition evaluated
over the group's lanes each time the load issues). docs/performance.md ("Debugger overhead")
holds a run's output.
"""
from __future__ import annotations

import argparse

import ptxvm
from bench_sanitizer import best, cases


def debugged(k, grid, block, args, armed: bool):
    d = ptxvm.Debugger(k, grid, block, args)
    if armed:
        pc = next(pc for pc, op in enumerate(d.info.code) if op.text.startswith("ld."))
        d.break_at(f"*{pc}", condition="%tid.x > 100000")
    stop = d.run()
    assert stop.reason == "exited", stop


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    opts = ap.parse_args()
    print("| kernel | plain (s) | debugger | debugger + conditional breakpoint |")
    print("| --- | ---: | ---: | ---: |")
    for name, k, (grid, block), args in cases(4 if opts.quick else 1):
        runs = {"plain": lambda: k.launch(grid, block, args()),
                "debug": lambda: debugged(k, grid, block, args(), False),
                "armed": lambda: debugged(k, grid, block, args(), True)}
        for fn in runs.values():
            fn()
        times = {what: [] for what in runs}
        for _ in range(3):
            for what, fn in runs.items():
                times[what].append(best(fn, 1))
        plain = min(times["plain"])
        print(f"| {name} | {plain:.3f} | {min(times['debug']) / plain:.2f}x | {min(times['armed']) / plain:.2f}x |")


if __name__ == "__main__":
    main()
