"""Parse throughput in source lines per second, per PTX file and overall.

    python benchmarks/bench_parse.py                 # the largest files of tests/corpus/ptx
    python benchmarks/bench_parse.py a.ptx b.ptx     # given files
    python benchmarks/bench_parse.py --top 20 --repeat 7
    python benchmarks/bench_parse.py --verify        # parse + verify (ptxvm.check), and each alone

Each file is parsed `--repeat` times and the fastest run counts (CPU time of this process, so
that other processes on the machine disturb the figure less); overall = total lines / total time.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ptxvm.frontend import parse  # noqa: E402

CORPUS = ROOT / "tests" / "corpus" / "ptx"


def largest_corpus_files(count: int) -> list[Path]:
    files = sorted(CORPUS.glob("*.ptx"), key=lambda p: p.stat().st_size, reverse=True)
    return files[:count]


def best_time(text: str, name: str, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        parse(text, name)
        best = min(best, time.process_time() - start)
    return best


def best_times_verify(text: str, name: str, repeat: int) -> tuple[float, float]:
    """(parse, verify) seconds: the fastest of `repeat` runs of each, on a fresh tree each time
    (the verifier keeps no state between runs)."""
    from ptxvm.check import verify

    best_parse = best_verify = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        tree = parse(text, name)
        middle = time.process_time()
        diagnostics = verify(tree, text)
        end = time.process_time()
        best_parse = min(best_parse, middle - start)
        best_verify = min(best_verify, end - middle)
    errors = [d for d in diagnostics if d.severity == "error"]
    if errors:
        print(f"  ({name}: {len(errors)} verifier errors, first: {errors[0].format().splitlines()[0]})",
              file=sys.stderr)
    return best_parse, best_verify


def main_verify(files: list[Path], repeat: int) -> int:
    total_lines = 0
    total_parse = total_verify = 0.0
    print(f"{'file':<48} {'lines':>8} {'parse ms':>9} {'verify ms':>9} {'verify l/s':>11} {'both l/s':>10}")
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        lines = text.count("\n") + (not text.endswith("\n"))
        p, v = best_times_verify(text, str(path), repeat)
        total_lines += lines
        total_parse += p
        total_verify += v
        print(f"{path.name:<48} {lines:>8} {p * 1e3:>9.1f} {v * 1e3:>9.1f} {lines / v:>11,.0f} {lines / (p + v):>10,.0f}")
    both = total_parse + total_verify
    print(f"{'overall':<48} {total_lines:>8} {total_parse * 1e3:>9.1f} {total_verify * 1e3:>9.1f} "
          f"{total_lines / total_verify:>11,.0f} {total_lines / both:>10,.0f}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", type=Path, help="PTX files (default: largest corpus files)")
    ap.add_argument("--top", type=int, default=10, help="how many of the largest corpus files")
    ap.add_argument("--repeat", type=int, default=5, help="parses per file; the fastest counts")
    ap.add_argument("--verify", action="store_true", help="also verify each parsed module; time both")
    args = ap.parse_args(argv)
    files = args.files or largest_corpus_files(args.top)
    if not files:
        print(f"no PTX files (looked in {CORPUS})", file=sys.stderr)
        return 1
    if args.verify:
        return main_verify(files, args.repeat)
    total_lines = 0
    total_time = 0.0
    print(f"{'file':<48} {'lines':>8} {'ms':>9} {'lines/s':>10}")
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        lines = text.count("\n") + (not text.endswith("\n"))
        seconds = best_time(text, str(path), args.repeat)
        total_lines += lines
        total_time += seconds
        print(f"{path.name:<48} {lines:>8} {seconds * 1e3:>9.1f} {lines / seconds:>10,.0f}")
    print(f"{'overall':<48} {total_lines:>8} {total_time * 1e3:>9.1f} {total_lines / total_time:>10,.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
