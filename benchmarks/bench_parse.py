"""Parse throughput in source lines per second, per PTX file and overall.

    python benchmarks/bench_parse.py                 # the largest files of tests/corpus/ptx
    python benchmarks/bench_parse.py a.ptx b.ptx     # given files
    python benchmarks/bench_parse.py --top 20 --repeat 7

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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", type=Path, help="PTX files (default: largest corpus files)")
    ap.add_argument("--top", type=int, default=10, help="how many of the largest corpus files")
    ap.add_argument("--repeat", type=int, default=5, help="parses per file; the fastest counts")
    args = ap.parse_args(argv)
    files = args.files or largest_corpus_files(args.top)
    if not files:
        print(f"no PTX files (looked in {CORPUS})", file=sys.stderr)
        return 1
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
