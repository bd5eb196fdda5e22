"""Parse throughput in source lines per second, per PTX file and overall.

    python benchmarks/bench_parse.py                 # the largest files of tests/corpus/ptx
    python benchmarks/bench_parse.py a.ptx b.ptx     # given files
    python benchmarks/bench_parse.py --top 20 --repeat 7
    python benchmarks/bench_parse.py --verify        # parse + verify (ptxvm.check), and each alone
    python benchmarks/bench_parse.py --compare-with /tmp/old --rounds 3
        # parse + verify with this tree's ptxvm and with the one in /tmp/old (e.g. made by
        # `git worktree add /tmp/old <commit>`), alternately in fresh processes: l/s and ratio

Each file is parsed `--repeat` times and the fastest run counts (CPU time of this process, so
that other processes on the machine disturb the figure less); overall = total lines / total time.
On a shared machine, compare two versions with --compare-with: both run under the same load.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus" / "ptx"


def largest_corpus_files(count: int) -> list[Path]:
    files = sorted(CORPUS.glob("*.ptx"), key=lambda p: p.stat().st_size, reverse=True)
    return files[:count]


def best_time(text: str, name: str, repeat: int) -> float:
    from ptxvm.frontend import parse

    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        parse(text, name)
        best = min(best, time.process_time() - start)
    return best


def best_times_verify(text: str, name: str, repeat: int, quiet: bool = False) -> tuple[float, float]:
    """(parse, verify) seconds: the fastest of `repeat` runs of each, on a fresh tree each time
    (the verifier keeps no state between runs)."""
    from ptxvm.check import verify
    from ptxvm.frontend import parse

    best_parse = best_verify = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        tree = parse(text, name)
        middle = time.process_time()
        diagnostics = verify(tree, text)
        end = time.process_time()
        best_parse = min(best_parse, middle - start)
        best_verify = min(best_verify, end - middle)
        del tree
    errors = [d for d in diagnostics if d.severity == "error"]
    if errors and not quiet:
        print(f"  ({name}: {len(errors)} verifier errors, first: {errors[0].format().splitlines()[0]})",
              file=sys.stderr)
    return best_parse, best_verify


def line_count(text: str) -> int:
    return text.count("\n") + (not text.endswith("\n"))


def main_verify(files: list[Path], repeat: int) -> int:
    total_lines = 0
    total_parse = total_verify = 0.0
    print(f"{'file':<48} {'lines':>8} {'parse ms':>9} {'verify ms':>9} {'verify l/s':>11} {'both l/s':>10}")
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        lines = line_count(text)
        p, v = best_times_verify(text, str(path), repeat)
        total_lines += lines
        total_parse += p
        total_verify += v
        print(f"{path.name:<48} {lines:>8} {p * 1e3:>9.1f} {v * 1e3:>9.1f} {lines / v:>11,.0f} {lines / (p + v):>10,.0f}")
    both = total_parse + total_verify
    print(f"{'overall':<48} {total_lines:>8} {total_parse * 1e3:>9.1f} {total_verify * 1e3:>9.1f} "
          f"{total_lines / total_verify:>11,.0f} {total_lines / both:>10,.0f}")
    return 0


def main_json(files: list[Path], repeat: int) -> int:
    """One process's (lines, parse s, verify s) per file, as JSON (for --compare-with)."""
    out = {}
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        p, v = best_times_verify(text, str(path), repeat, quiet=True)
        out[str(path)] = (line_count(text), p, v)
    print(json.dumps(out))
    return 0


def main_compare(files: list[Path], other: Path, repeat: int, rounds: int) -> int:
    trees = {"before": other.resolve(), "after": ROOT}
    for label, tree in trees.items():
        if not (tree / "ptxvm" / "__init__.py").is_file():
            print(f"no ptxvm package in {tree}", file=sys.stderr)
            return 1
    best: dict[str, dict[str, float]] = {"before": {}, "after": {}}
    lines: dict[str, int] = {}
    for _ in range(rounds):
        for label, tree in trees.items():
            command = [sys.executable, str(Path(__file__).resolve()), "--json", "--root", str(tree),
                       "--repeat", str(repeat), *map(str, files)]
            done = subprocess.run(command, capture_output=True, text=True, cwd=tree)
            if done.returncode != 0:
                print(done.stderr, file=sys.stderr)
                return 1
            for name, (n, p, v) in json.loads(done.stdout).items():
                lines[name] = n
                best[label][name] = min(best[label].get(name, float("inf")), p + v)
    print(f"parse + verify, fastest of {rounds} rounds x {repeat} runs; before = {other}")
    print(f"{'file':<40} {'lines':>8} {'before l/s':>11} {'after l/s':>10} {'ratio':>6}")
    for name in best["after"]:
        b, a = best["before"][name], best["after"][name]
        print(f"{Path(name).name:<40} {lines[name]:>8} {lines[name] / b:>11,.0f} {lines[name] / a:>10,.0f} {b / a:>6.2f}")
    total = sum(lines.values())
    b, a = sum(best["before"].values()), sum(best["after"].values())
    print(f"{'overall':<40} {total:>8} {total / b:>11,.0f} {total / a:>10,.0f} {b / a:>6.2f}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", type=Path, help="PTX files (default: largest corpus files)")
    ap.add_argument("--top", type=int, default=10, help="how many of the largest corpus files")
    ap.add_argument("--repeat", type=int, default=5, help="parses per file; the fastest counts")
    ap.add_argument("--verify", action="store_true", help="also verify each parsed module; time both")
    ap.add_argument("--compare-with", type=Path, metavar="DIR",
                    help="a directory holding another version's ptxvm package: time both")
    ap.add_argument("--rounds", type=int, default=3, help="with --compare-with: alternations of the two")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    sys.path.insert(0, str(args.root))
    files = args.files or largest_corpus_files(args.top)
    if not files:
        print(f"no PTX files (looked in {CORPUS})", file=sys.stderr)
        return 1
    files = [f.resolve() for f in files]
    if args.compare_with is not None:
        return main_compare(files, args.compare_with, args.repeat, args.rounds)
    if args.json:
        return main_json(files, args.repeat)
    if args.verify:
        return main_verify(files, args.repeat)
    total_lines = 0
    total_time = 0.0
    print(f"{'file':<48} {'lines':>8} {'ms':>9} {'lines/s':>10}")
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        lines = line_count(text)
        seconds = best_time(text, str(path), args.repeat)
        total_lines += lines
        total_time += seconds
        print(f"{path.name:<48} {lines:>8} {seconds * 1e3:>9.1f} {lines / seconds:>10,.0f}")
    print(f"{'overall':<48} {total_lines:>8} {total_time * 1e3:>9.1f} {total_lines / total_time:>10,.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
