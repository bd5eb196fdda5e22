"""Where a split launch's time goes: CPU seconds (process_time) and page faults per phase, in the
parent and in each pool worker, for the 16M-element vector add of bench_parallel.py (or another
of its workloads).

    python benchmarks/profile_parallel.py [--workload vadd] [--workers 2] [--repeat 5]

Each phase is a function of ptxvm wrapped with a timer (the wrappers are installed before the
pool forks, so its workers have them too; a worker writes its figures to a file per launch).
Prints, per phase, the best (lowest) CPU seconds over --repeat launches and the page faults
(minor) of that launch. docs/performance.md quotes its output."""
from __future__ import annotations

import argparse
import collections
import functools
import json
import os
import pathlib
import resource
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import bench_parallel  # noqa: E402
import ptxvm  # noqa: E402,F401
from ptxvm.engine import launch as launch_mod  # noqa: E402
from ptxvm.parallel import image, launcher, local, merge, pool, shard  # noqa: E402

RECORD: dict = collections.defaultdict(lambda: [0.0, 0])  # phase -> [CPU seconds, minor faults]
SPANS: list = []  # [phase, wall start, wall end] on the system's monotonic clock (one clock for every process)
SPOOL = pathlib.Path(tempfile.mkdtemp(prefix="ptxvm-prof-"))


def _faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def timed(owner, name, phase=None):
    fn = getattr(owner, name)
    phase = phase or name

    @functools.wraps(fn)
    def wrapper(*a, **k):
        c, f, w = time.process_time(), _faults(), time.monotonic()
        try:
            return fn(*a, **k)
        finally:
            SPANS.append([phase, w, time.monotonic()])
            rec = RECORD[phase]
            rec[0] += time.process_time() - c
            rec[1] += _faults() - f
    setattr(owner, name, wrapper)


def install(extra=()):
    # the parent
    timed(launch_mod.Launch, "marshal", "parent: marshal (host arrays into device memory)")
    timed(pool, "share", "parent: share the arena (memfd)")
    timed(image, "image_of", "parent: image of the launch")
    timed(pool, "wait", "parent: waiting for workers (CPU while blocked)")
    timed(merge, "_plain_conflict", "parent: race check")
    timed(merge, "_apply", "parent: merge copy")
    timed(launcher, "_unchanged_copies", "parent: which arguments to copy back")
    timed(launch_mod.Launch, "finish", "parent: copy back to the host arrays, free")
    orig_receive = local.receive

    def receive(conn):
        c, f, w = time.process_time(), _faults(), time.monotonic()
        r = orig_receive(conn)
        SPANS.append(["parent: receive results", w, time.monotonic()])
        rec = RECORD["parent: receive results"]
        rec[0] += time.process_time() - c
        rec[1] += _faults() - f
        return r
    local.receive = receive
    for owner, name, phase in extra:
        timed(owner, name, phase)
    # the workers (forked from this process: the wrappers are theirs too)
    timed(pool, "private_view", "worker: map the arena")
    timed(image, "rebuild", "worker: rebuild the launch")
    timed(launch_mod.Launch, "execute", "worker: run the CTAs (kernel)")
    timed(shard, "_write_set", "worker: write set from the journal")
    orig_send = local.send

    def send(conn, result):
        c, f, w = time.process_time(), _faults(), time.monotonic()
        orig_send(conn, result)
        SPANS.append(["worker: send results", w, time.monotonic()])
        rec = RECORD["worker: send results"]
        rec[0] += time.process_time() - c
        rec[1] += _faults() - f
        if os.getpid() != PARENT:
            (SPOOL / f"{os.getpid()}-{time.monotonic_ns()}.json").write_text(
                json.dumps({"record": dict(RECORD), "spans": SPANS}))
            RECORD.clear()
            SPANS.clear()
    local.send = send


PARENT = os.getpid()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workload", default="vadd", choices=list(bench_parallel.WORKLOADS))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--timeline", action="store_true", help="also print the best launch's wall-clock timeline")
    opt = ap.parse_args()
    os.environ["PTXVM_PARALLEL_MIN_WORK"] = "0"
    install()
    go = bench_parallel.WORKLOADS[opt.workload][1]()
    go(1)
    go(opt.workers)  # the pool starts, workers lower the program
    best = None
    for _ in range(opt.repeat):
        for p in SPOOL.iterdir():
            p.unlink()
        RECORD.clear()
        SPANS.clear()
        c0, f0, w0 = time.process_time(), _faults(), time.monotonic()
        _, st = go(opt.workers)
        total, wall = time.process_time() - c0, time.monotonic() - w0
        parent = dict(RECORD)
        # one file per piece a worker ran (named pid-time): a worker's pieces in the order it ran them
        workers = [dict(json.loads(p.read_text()), pid=int(p.name.split("-")[0]))
                   for p in sorted(SPOOL.iterdir(), key=lambda p: [int(x) for x in p.stem.split("-")])]
        path = total + max(st.worker_cpu, default=0.0)
        if best is None or path < best[0]:
            best = (path, total, _faults() - f0, parent, workers, st, (w0, wall, list(SPANS)))
    path, total, faults, parent, workers, st, timeline = best
    if opt.timeline:
        print_timeline(timeline, workers)
    print(f"{opt.workload}, {opt.workers} workers (pool={pool.enabled()}): critical path {path:.3f} CPU s "
          f"(parent {total:.3f} s, {faults} faults; slowest worker {max(st.worker_cpu):.3f} s)")
    for k, (c, f) in sorted(parent.items()):
        print(f"  {k:<60} {c * 1e3:8.1f} ms {f:8d} faults")
    print(f"  CPU seconds per worker: {', '.join(f'{c:.3f}' for c in st.worker_cpu)}")
    for w in workers:
        print(f"  a piece in worker {w['pid']}")
        for k, (c, f) in sorted(w["record"].items()):
            print(f"    {k:<58} {c * 1e3:8.1f} ms {f:8d} faults")


def print_timeline(timeline, workers):
    """Wall-clock milliseconds from the launch's call, per phase: the parent's, then each worker's."""
    w0, wall, spans = timeline
    print(f"timeline of that launch (wall ms from the call; the call took {wall * 1e3:.1f} ms)")
    for phase, a, b in sorted(spans, key=lambda s: s[1]):
        print(f"  {phase:<60} {(a - w0) * 1e3:7.1f} .. {(b - w0) * 1e3:7.1f}")
    for w in workers:
        line = "  ".join(f"{ph.split(': ', 1)[-1].split(' (')[0]} {(a - w0) * 1e3:.1f}..{(b - w0) * 1e3:.1f}"
                         for ph, a, b in sorted(w["spans"], key=lambda s: s[1]))
        print(f"  piece in worker {w['pid']:<7} {line}")


if __name__ == "__main__":
    main()
