"""The long fuzzing run: mutated corpus PTX and ISA-table instruction streams, loaded and launched.

    python benchmarks/fuzz_frontend.py --count 100000              # half mutants, half generated
    python benchmarks/fuzz_frontend.py --count 2000 --jobs 1 --seed 7 --only generated

Each input is parsed, verified, loaded and its kernels launched (a small grid, an instruction
budget; tests/check/fuzzing.py), under a wall-time limit per case. Allowed outcomes are PtxError,
KernelFault and LaunchError; anything else is a crash, grouped by (exception, file, line) and
printed once per group with its input minimized. Inputs come from random.Random(seed, index), so
a crash is reproduced with `--seed S --start I --count 1`. Prints the count, the rate, the outcome
counts and the crashes; exits 1 if there was a crash or a hang.
"""
from __future__ import annotations

import argparse
import collections
import multiprocessing
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.check.fuzzing import Hang, crash_key, generated, minimize, mutant, run_case, time_limit  # noqa: E402

KINDS = {"mutant": mutant, "generated": generated}


def case(seed: int, index: int, only: str | None) -> tuple[str, str]:
    rng = random.Random(seed * 1_000_003 + index)
    kind = only or ("mutant" if index % 2 == 0 else "generated")
    return kind, KINDS[kind](rng)


def work(job: tuple[int, int, int, str | None, float]):
    seed, start, stop, only, limit = job
    outcomes: collections.Counter = collections.Counter()
    crashes: dict = {}
    for index in range(start, stop):
        kind, text = case(seed, index, only)
        try:
            with time_limit(limit):
                outcomes[run_case(text)] += 1
        except Exception as exc:  # noqa: BLE001 - a crash is what we count
            key = crash_key(exc) if not isinstance(exc, Hang) else ("Hang", "", 0)
            outcomes["CRASH"] += 1
            if key not in crashes:
                crashes[key] = [index, kind, f"{type(exc).__name__}: {exc}"[:300], text, 0]
            crashes[key][4] += 1
    return outcomes, crashes


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=10_000)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", choices=sorted(KINDS))
    ap.add_argument("--limit", type=float, default=30.0, help="wall seconds per case")
    ap.add_argument("--chunk", type=int, default=500)
    ap.add_argument("--no-minimize", action="store_true")
    args = ap.parse_args(argv)

    jobs = [(args.seed, s, min(s + args.chunk, args.start + args.count), args.only, args.limit)
            for s in range(args.start, args.start + args.count, args.chunk)]
    outcomes: collections.Counter = collections.Counter()
    crashes: dict = {}
    t0 = time.perf_counter()
    done = 0
    with multiprocessing.Pool(args.jobs) as pool:
        for out, cr in pool.imap_unordered(work, jobs):
            outcomes.update(out)
            for k, v in cr.items():
                if k not in crashes:
                    print(f"\nnew crash {k[0]} at {k[1]}:{k[2]} (--seed {args.seed} --start {v[0]}): {v[2][:160]}",
                          file=sys.stderr, flush=True)
                if k not in crashes or v[0] < crashes[k][0]:
                    crashes[k] = v[:4] + [crashes.get(k, [0] * 5)[4] + v[4]]
                else:
                    crashes[k][4] += v[4]
            done += sum(out.values())
            el = time.perf_counter() - t0
            print(f"\r{done}/{args.count} inputs, {done / el:.0f}/s, {outcomes['CRASH']} crashes", end="",
                  file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - t0
    print(file=sys.stderr)
    print(f"inputs: {done}  time: {elapsed:.1f} s  rate: {done / elapsed:.0f} inputs/s  jobs: {args.jobs}  "
          f"seed: {args.seed}")
    print("outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items(), key=lambda kv: -kv[1])))
    print(f"crashes: {outcomes['CRASH']} in {len(crashes)} distinct places")
    for key, (index, kind, message, text, n) in sorted(crashes.items(), key=lambda kv: kv[1][0]):
        print(f"\n=== {key[0]} at {key[1]}:{key[2]}  ({n} inputs; first: --seed {args.seed} --start {index}, {kind})")
        print(message)
        if key[0] != "Hang" and not args.no_minimize:
            text = minimize(text, key)
        print("--- input" + ("" if args.no_minimize or key[0] == "Hang" else " (minimized)") + " ---")
        print(text)
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
