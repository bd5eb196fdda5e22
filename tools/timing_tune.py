#!/usr/bin/env python3
"""Tune the timing model's global parameters (ptxvm.timing.params.ModelParams) against the
kernel times measured on the GPU: the CALIBRATION set only (benchmarks/timing/split.py), from
benchmarks/timing/results/calibration_<gpu>.json (written by tools/timing_accuracy.py; `us` is the
cold convention, `us_warm` back to back) or, with --measured, another times JSON.

    python tools/timing_tune.py [--gpu h200] [--convention cold|warm] [--only a,b] [--rounds 2] [--write]
                                [--workers N] [--executor local|ray]

Validation cases are never loaded, even when named in --only. Every calibration case is traced once (engine + memory model, as tools/timing_accuracy.py runs it);
then only the SM model runs again for each candidate parameter set. A coordinate search over the
parameters below minimizes the mean absolute percentage error over all measured cases; there
are no per-kernel factors. --write prints the ModelParams defaults to paste into params.py.

--workers N (forked processes) or --executor ray (Ray actors, ptxvm.ray) share the cases out: each
worker traces its share once and keeps the traces; each step of the search sends every value of
one parameter to all workers at once and replays the serial search over the answers, so the
output is the serial run's (but for the seconds it prints).
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tools"))

# parameter -> candidate values (searched one at a time, around the current value)
SPACE = {
    "kernel_launch": [3000, 4000, 5000, 6000, 6558, 7000, 8000, 10000],
    "cta_launch": [0, 100, 250, 500, 700, 1000],
    "dram_efficiency": [0.8, 0.85, 0.9, 0.95, 1.0],
    "dram_write_cost": [1.0, 1.25, 1.5, 1.75, 2.0],
    "dram_loaded_latency": [0, 100, 200, 300],
    "l1_line_cycles": [0.125, 0.25, 0.5, 1.0],
    "l2_store_line_cost": [1.0, 2.2, 3.5],
    "issue_window": [0, 4, 8, 16],
    "fetch_redirect": [0, 2, 4, 6, 8],
    "alu_interval": [1.0, 1.5, 2.0],
    "divergence_cycles": [0, 20, 40, 60],
    "lsu_queue_cycles": [16, 32, 48, 96],
    "l2_efficiency": [0.7, 0.85, 1.0],
    "shared_atomic_cycles": [1, 2, 4],
    # const_first_pass / const_pass_cycles / uconst_fetch_cycles are pinned by constmem (const.cu);
    # only the LDC line fetch rests on a kernel (const_scattered)
    "const_fetch_cycles": [12, 16, 20.5, 24],
    "sreg_latency": [10, 20, 30],
    "mov_latency": [0, 1, 2],
}


def main(argv=None) -> int:
    import timing_accuracy as acc

    from ptxvm.timing.params import DEFAULT

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpu", default="h200")
    ap.add_argument("--only", default="")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--params", default="", help="comma-separated subset of the parameters to search")
    ap.add_argument("--gpu-file", default=None, help="a GPU description JSON to use instead of --gpu's")
    ap.add_argument("--measured", default=None,
                    help="times JSON (default benchmarks/timing/results/calibration_<gpu>.json)")
    ap.add_argument("--convention", default="cold", choices=["cold", "warm"])
    ap.add_argument("--workers", type=int, default=None,
                    help="trace and simulate the cases in this many processes, each holding a share of the traces "
                         "(default 1, or with --executor every core / the Ray cluster's CPUs)")
    ap.add_argument("--executor", choices=["local", "ray"], default=None,
                    help="local: forked processes (default with --workers); ray: one Ray actor per share (ptxvm.ray)")
    args = ap.parse_args(argv)
    if args.workers is not None and args.workers < 1:
        ap.error("--workers must be at least 1")
    suite, split = acc.load_suite(), acc.load_split()
    measured = acc.read_json(args.measured or os.path.join(acc.RESULTS, f"calibration_{args.gpu}.json")).get("cases", {})
    key = "us" if args.convention == "cold" else "us_warm"
    only = [s for s in args.only.split(",") if s]
    cases = []  # (name, measured us) of the calibration cases to fit, in the suite's order
    for c in split.calibration_cases(suite.CASES):
        us = (measured.get(c.name) or {}).get(key)
        us = us.get("median") if isinstance(us, dict) else us
        if not us or (only and c.name not in only):
            continue
        cases.append((c.name, us))
    setup = {"gpu": args.gpu, "gpu_file": args.gpu_file, "warm": args.convention == "warm"}
    if args.workers == 1 or (args.workers is None and args.executor is None):
        shards = [(list(range(len(cases))), Traces([n for n, _ in cases], setup, echo=True))]
    else:
        shards = start_shards(cases, setup, args.executor or "local", args.workers)
    try:
        search(cases, shards, args, DEFAULT)
    finally:
        for _, shard in shards:
            getattr(shard, "close", lambda: None)()
    return 0


def search(cases, shards, args, default) -> None:
    """The coordinate search. Each candidate's predictions come from the shards (a batch of
    candidates at a time: every value of one parameter), then the serial search is replayed
    over them, so the output is the serial run's whatever the number of workers."""

    def predicted(candidates: list) -> list:
        """Per candidate, the predicted seconds of every case in `cases`' order."""
        out = [[0.0] * len(cases) for _ in candidates]
        for idx, part in zip([i for i, _ in shards], _call_all(shards, "seconds", candidates)):
            for k, secs in enumerate(part):
                for i, s in zip(idx, secs):
                    out[k][i] = s
        return out

    def mape(seconds: list, show=False, t0=None):
        errs = []
        for (name, us), s in zip(cases, seconds):
            e = 100.0 * (s * 1e6 - us) / us
            errs.append(abs(e))
            if show:
                print(f"  {name:22s} measured {us:9.2f}  predicted {s * 1e6:9.2f}  {e:+7.1f} %")
        if show:
            print(f"  ({time.time() - t0:.0f} s)")
        return sum(errs) / len(errs)

    best = default
    t0 = time.time()
    best_err = mape(predicted([best])[0], show=True, t0=t0)
    print(f"start: MAPE {best_err:.1f} % over {len(cases)} cases")
    space = {k: v for k, v in SPACE.items() if not args.params or k in args.params.split(",")}
    for rnd in range(args.rounds):
        for name, values in space.items():
            # candidates differ from `best` in `name` only, so they are the same whichever value
            # the serial search took before them: evaluate them together, then replay
            base = best
            cands = [dataclasses.replace(base, **{name: type(getattr(base, name))(v)}) for v in values]
            todo = [c for c in dict.fromkeys(cands) if c != base]
            errs = dict(zip(todo, (mape(s) for s in predicted(todo)))) if todo else {}
            errs[base] = best_err  # what the serial search computes again once another value took over
            for v, cand in zip(values, cands):
                if cand == best:
                    continue
                err = errs[cand]
                if err < best_err - 1e-6:
                    best, best_err = cand, err
                    print(f"round {rnd}: {name} = {v} -> MAPE {err:.1f} %", flush=True)
    t0 = time.time()
    print(f"best: MAPE {mape(predicted([best])[0], show=True, t0=t0):.1f} %")
    changed = {f.name: getattr(best, f.name) for f in dataclasses.fields(best)
               if getattr(best, f.name) != getattr(default, f.name)}
    print("changed parameters:", changed)
    if args.write:
        print(best)


# ---------------------------------------------------------------- traces, here or in workers

class Traces:
    """Some calibration cases traced once (engine + memory model, as tools/timing_accuracy.py runs
    them) in this process; `seconds(candidates)` runs the SM model again for each ModelParams."""

    def __init__(self, names: list, setup: dict, echo: bool = False):
        import timing_accuracy as acc

        import ptxvm
        from ptxvm.timing.profile import collect

        gpu = setup["gpu"]
        if setup.get("gpu_file"):
            from ptxvm.timing.gpu import load_gpu_file

            gpu = load_gpu_file(setup["gpu_file"])
        suite = acc.load_suite()
        by_name = {c.name: c for c in suite.CASES}
        modules, self.cols, self.traced = {}, [], []
        for name in names:
            c = by_name[name]
            mod = modules.get(c.module) or modules.setdefault(c.module, ptxvm.load(str(suite.ptx_path(c))))
            if c.const:
                for sym, arr in c.const().items():
                    mod.write_symbol(sym, arr)
            t = time.time()
            self.cols.append(collect(mod[c.kernel], c.grid, c.block, suite.materialize(c, 0), c.shared, gpu,
                                     warm_l2=setup["warm"]))
            self.traced.append(f"traced {c.name:22s} {time.time() - t:6.1f} s")
            if echo:
                print(self.traced[-1], flush=True)

    def seconds(self, candidates: list) -> list:
        from ptxvm.timing.profile import simulate

        return [[simulate(col, params=params).seconds for col in self.cols] for params in candidates]


def _call_all(shards, method: str, *a) -> list:
    """`method(*a)` of every shard, side by side (local workers and Ray actors start theirs all
    first, then collect); results in the shards' order."""
    pending = [shard.start(method, *a) if hasattr(shard, "start") else getattr(shard, method)(*a) for _, shard in shards]
    return [shard.finish(p) if hasattr(shard, "finish") else p for (_, shard), p in zip(shards, pending)]


def start_shards(cases, setup, executor: str, workers) -> list:
    """(case indices, a worker holding their traces) per share; the traced lines printed in the
    cases' order once every share is traced."""
    if executor == "ray":
        from ptxvm.parallel.ray_executor import ensure_ray

        ray = ensure_ray()
        n = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
    else:
        from ptxvm.parallel.launcher import default_workers

        n = workers or default_workers()
    n = max(1, min(n, len(cases)))
    parts = [list(range(k, len(cases), n)) for k in range(n)]  # round robin: the slow families spread out
    make = _RayShard if executor == "ray" else _LocalShard
    shards = [(idx, make([cases[i][0] for i in idx], setup)) for idx in parts]
    lines = {}
    for (idx, _), traced in zip(shards, _call_all(shards, "traced_lines")):
        lines.update(zip(idx, traced))
    for i in range(len(cases)):
        print(lines[i], flush=True)
    return shards


class _LocalShard:
    """A forked process holding Traces of some cases; requests and answers through a pipe."""

    def __init__(self, names, setup):
        import multiprocessing as mp

        ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child, names, setup), daemon=True)
        self.proc.start()
        child.close()

    def start(self, method, *a):
        self.conn.send((method, a))

    def finish(self, _):
        ok, value = self.conn.recv()
        if not ok:
            raise RuntimeError(f"a timing_tune worker failed:\n{value}")
        return value

    def close(self):
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.proc.join(timeout=10)
        if self.proc.is_alive():
            self.proc.terminate()


def _serve(conn, names, setup):
    import traceback

    os.environ["PTXVM_WORKERS"] = "1"  # a worker's own launches stay in it
    try:
        traces, error = Traces(names, setup), None
    except Exception:  # noqa: BLE001 - reported by the parent
        traces, error = None, traceback.format_exc()
    while True:
        msg = conn.recv()
        if msg is None:
            break
        method, a = msg
        if error is not None:
            conn.send((False, error))
            continue
        try:
            conn.send((True, traces.traced if method == "traced_lines" else getattr(traces, method)(*a)))
        except Exception:  # noqa: BLE001
            conn.send((False, traceback.format_exc()))
    conn.close()


class _RayShard:
    """A Ray actor holding Traces of some cases (it loads this tool from its path)."""

    def __init__(self, names, setup):
        from ptxvm.parallel.ray_executor import ensure_ray

        self.ray = ensure_ray()
        self.actor = self.ray.remote(_actor_class()).remote(os.path.abspath(__file__), names, setup)

    def start(self, method, *a):
        return getattr(self.actor, method).remote(*a)

    def finish(self, ref):
        return self.ray.get(ref)

    def close(self):
        self.ray.kill(self.actor)


def _actor_class():
    """The actor's class, made inside a function so that it travels by value (cloudpickle)."""
    class TracesActor:
        def __init__(self, path, names, setup):
            import importlib.util
            import os
            import sys

            os.environ["PTXVM_WORKERS"] = "1"
            tools = os.path.dirname(path)
            if tools not in sys.path:
                sys.path.insert(0, tools)  # timing_accuracy, beside this tool
            spec = importlib.util.spec_from_file_location("ptxvm_timing_tune_tool", path)
            tool = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(tool)
            self.traces = tool.Traces(names, setup)

        def traced_lines(self):
            return self.traces.traced

        def seconds(self, candidates):
            return self.traces.seconds(candidates)
    return TracesActor


if __name__ == "__main__":
    sys.exit(main())
