#!/usr/bin/env python3
"""Time on the GPU the launches some other program makes through ptxvm, and set the timing
model's predictions of the same launches beside them: a held-out check on kernels nobody wrote
for the model (a test suite's, a benchmark's, a user's), with their own sizes and data.

Here (any machine), run the program with ptxvm's launches captured:
    python tools/device/replay_launches.py capture OUTDIR [--per-kernel N] [--max-mib M] SCRIPT [ARGS...]
  Each captured launch is OUTDIR/NNNN.npz: the module's PTX, kernel, grid, block, dynamic shared
  memory, every parameter's bytes (a pointer parameter names the array it points at) and the
  arrays as they were before the launch, with the symbols the program wrote into the module;
  OUTDIR/NNNN.json holds the model's predictions (cold and warm, timing/accuracy conventions) and
  what it says bounds the kernel. The launch itself then runs as the program asked.
After a change to the model, its predictions of the captured launches again:
    python tools/device/replay_launches.py predict OUTDIR
On the GPU machine (CuPy):
    python3 tools/device/replay_launches.py time OUTDIR RESULTS.json
  cold (L2 flushed by a 256 MiB memset, events around one launch, all queued behind a spin
  kernel) and warm (back-to-back launches) medians of 30, as tools/device/timing_suite.py measures;
  every timed launch gets its arrays back as captured (a device-to-device copy outside the
  events), so kernels that update in place are timed on the data the model saw.
Anywhere:
    python tools/device/replay_launches.py compare OUTDIR RESULTS.json
  per launch measured vs predicted, MAPE, median APE, within 2x, Spearman.

Launches not captured (said on stderr): cooperative or cluster launches, by-value aggregate,
texture/surface or tensor-map parameters, device addresses passed as integers.
"""
from __future__ import annotations

import json
import os
import runpy
import statistics
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)  # timing_suite: the suite's timing loop and L2 flush size
from timing_suite import FLUSH_BYTES, time_launches  # noqa: E402
SPIN_PTX = """.version 7.0
.target sm_80
.address_size 64
.visible .entry spin(.param .u64 cycles)
{
    .reg .b64 %rd<5>;
    .reg .pred %p;
    ld.param.u64 %rd1, [cycles];
    mov.u64 %rd2, %clock64;
L:
    mov.u64 %rd3, %clock64;
    sub.s64 %rd4, %rd3, %rd2;
    setp.lt.s64 %p, %rd4, %rd1;
    @%p bra L;
    ret;
}
"""


# ------------------------------------------------------------------------------------ capture
def _param_records(kernel, args) -> tuple[list, dict] | str:
    """Per parameter ("ptr", array key) or ("bytes", raw); the arrays by key. A string: why not."""
    from ptxvm.engine.core.device import DeviceArray
    from ptxvm.engine.core.memory import GLOBAL_BASE
    from ptxvm.engine.launch import _scalar_bytes
    from ptxvm.semantics.dtypes import bits_of

    decl = kernel.module.ast.function(kernel.name)
    if len(args) != len(decl.params):
        return "argument count"
    recs, arrays, keys = [], {}, {}
    for p, a in zip(decl.params, args):
        if p.array or p.vector:
            return "a by-value aggregate parameter"
        given = a  # keyed by the argument itself: a copy's id can be the previous copy's
        if isinstance(a, DeviceArray):
            a = a.copy_to_host()
        if isinstance(a, np.ndarray):
            if bits_of(p.type) != 64:
                return "an array for a 32-bit parameter"
            k = keys.setdefault(id(given), f"a{len(keys)}")
            arrays[k] = np.ascontiguousarray(a).copy()
            recs.append(("ptr", k))
        elif hasattr(a, "handle") or hasattr(a, "address") or hasattr(a, "desc"):
            return f"a {type(a).__name__} parameter"
        else:
            raw = _scalar_bytes(p.type, a, p.name)
            if len(raw) == 8 and GLOBAL_BASE <= int.from_bytes(raw, "little") < GLOBAL_BASE + (1 << 40):
                return "a device address passed as an integer (the GPU's would differ)"
            recs.append(("bytes", raw))
    return recs, arrays


def _args_of(decl, params: list, arrays: dict) -> list:
    """The launch's arguments from a capture: a fresh copy of each array (one per key, so aliases
    stay aliases) and each scalar at its parameter's type."""
    from ptxvm.semantics.dtypes import numpy_dtype

    fresh = {k: np.array(v, copy=True) for k, v in arrays.items()}
    return [fresh[v] if kind == "ptr" else
            (np.frombuffer(bytes.fromhex(v), numpy_dtype(p.type))[0] if p.type != "pred" else bool(int(v, 16)))
            for (kind, v), p in zip(params, decl.params)]


def _predict(kernel, grid, block, args, shared_mem) -> dict:
    sys.path.insert(0, os.path.join(HERE, ".."))
    from timing_accuracy import explain

    out = {}
    for conv in ("cold", "warm"):
        try:  # `args`: a callable making fresh arguments (the profile runs the kernel)
            p = kernel.profile(grid, block, args(), shared_mem=shared_mem, warm_l2=conv == "warm")
        except Exception as e:  # reported, not fatal: the capture goes on
            out[f"error_{conv}"] = f"{type(e).__name__}: {e}"[:300]
            continue
        out[conv] = p.seconds * 1e6
        if conv == "cold":
            out.update(explain=explain(p), thread_instructions=int(p.executed_thread_instructions),
                       limiter=p.occupancy.limiter)
    return out


def capture(outdir: str, script: list, per_kernel: int = 1, max_mib: float = 4.0) -> None:
    import ptxvm.module as M

    os.makedirs(outdir, exist_ok=True)
    launch, write_symbol = M.Kernel.launch, M.Module.write_symbol
    seen: dict = {}
    symbols: dict = {}  # id(module) -> {name: array}
    count = [len([f for f in os.listdir(outdir) if f.endswith(".npz")])]

    def on_write_symbol(self, name, array):
        symbols.setdefault(id(self), {})[name] = np.array(array, copy=True)
        return write_symbol(self, name, array)

    busy = []  # inside a capture: the profile's own launches are not the program's

    def on_launch(self, grid, block, args=(), shared_mem=0, cluster=None, **kw):
        key = (self.module.source, self.name)
        if not busy and seen.get(key, 0) < per_kernel and cluster is None and not kw.get("cooperative"):
            busy.append(True)
            try:
                _capture_one(self, grid, block, args, shared_mem, key)
            finally:
                busy.pop()
        return launch(self, grid, block, args, shared_mem, cluster, **kw)

    def _capture_one(self, grid, block, args, shared_mem, key):
        got = _param_records(self, list(args))
        if isinstance(got, str):
            print(f"replay: not captured {self.name}: {got}", file=sys.stderr)
        elif sum(a.nbytes for a in got[1].values()) > max_mib * (1 << 20):
            print(f"replay: not captured {self.name}: arrays over {max_mib} MiB", file=sys.stderr)
        else:
            seen[key] = seen.get(key, 0) + 1
            recs, arrays = got
            syms = symbols.get(id(self.module), {})
            n = count[0]
            count[0] += 1
            meta = {"kernel": self.name, "grid": list(_dim3(grid)), "block": list(_dim3(block)),
                    "shared": int(shared_mem), "script": os.path.basename(script[0]),
                    "params": [[k, v if k == "ptr" else v.hex()] for k, v in recs],
                    "symbols": sorted(syms)}
            np.savez_compressed(os.path.join(outdir, f"{n:04d}.npz"), ptx=np.array(self.module.source),
                                **arrays, **{f"sym_{k}": v for k, v in syms.items()})
            params = meta["params"]
            decl = self.module.ast.function(self.name)
            # predicted on copies of what was captured: device arrays stay as the program left them
            meta["predicted"] = _predict(self, grid, block, lambda: _args_of(decl, params, arrays), shared_mem)
            with open(os.path.join(outdir, f"{n:04d}.json"), "w") as f:
                json.dump(meta, f, indent=1)
            print(f"replay: captured {n:04d} {self.name[:60]} {meta['predicted'].get('cold', '?')}",
                  file=sys.stderr)

    M.Kernel.launch = on_launch
    M.Module.write_symbol = on_write_symbol
    sys.argv = list(script)
    sys.path.insert(0, os.path.dirname(os.path.abspath(script[0])))
    try:
        runpy.run_path(script[0], run_name="__main__")
    except SystemExit:
        pass
    finally:
        M.Kernel.launch, M.Module.write_symbol = launch, write_symbol


def _dim3(v) -> tuple:
    v = (v,) if isinstance(v, (int, np.integer)) else tuple(v)
    return tuple(int(x) for x in v) + (1,) * (3 - len(v))


def predict_again(outdir: str) -> None:
    """The model's predictions of captured launches again, from the capture alone (after a
    change to the model): each case's PTX, symbols and arrays as they were before the launch."""
    import ptxvm

    for name in sorted(f for f in os.listdir(outdir) if f.endswith(".json")):
        path = os.path.join(outdir, name)
        meta = json.load(open(path))
        data = np.load(os.path.join(outdir, name[:-5] + ".npz"))
        module = ptxvm.loads(str(data["ptx"]), meta["script"] + ".ptx")
        for s in meta["symbols"]:
            module.write_symbol(s, data[f"sym_{s}"])
        kernel = module.kernel(meta["kernel"])
        decl = module.ast.function(meta["kernel"])
        arrays = {k: np.array(data[k]) for k in data.files if k.startswith("a")}
        meta["predicted"] = _predict(kernel, meta["grid"], meta["block"],
                                     lambda: _args_of(decl, meta["params"], arrays), meta["shared"])
        with open(path, "w") as f:
            json.dump(meta, f, indent=1)
        print(f"replay: predicted {name[:-5]} {meta['kernel'][:60]} {meta['predicted'].get('cold', '?')}",
              file=sys.stderr)


# ------------------------------------------------------------------------------------ time (GPU)
def _time(cp, launch, spin, flush, reps: int, cold: bool, restore) -> float:
    """Median microseconds of `reps` launches (timing_suite.time_launches); `restore` puts the
    arguments back as they were captured before each (on the stream, outside the events): a
    kernel that updates its inputs in place is timed on the data the model saw, not on what its
    previous launch left."""
    def before():
        restore()
        if cold:
            flush()

    return statistics.median(time_launches(cp, np, spin, launch, reps, before=before))


def _cases(outdir: str) -> list:
    """The captured cases with both their files (a capture cut short leaves an .npz alone)."""
    names = set(os.listdir(outdir))
    return sorted(f[:-4] for f in names if f.endswith(".npz") and f[:-4] + ".json" in names)


def time_all(outdir: str, results: str, reps: int = 30) -> None:
    """Each case in order, in child processes: a kernel that faults leaves its CUDA context
    unusable, so the child stops there and the next child goes on from the case after it."""
    import subprocess

    cases = _cases(outdir)
    lines = results + ".jsonl"
    open(lines, "w").close()
    start = 0
    while start < len(cases):
        subprocess.run([sys.executable, __file__, "time-from", outdir, lines, str(start), str(reps)])
        done = [json.loads(l)["case"] for l in open(lines) if l.strip()]
        after = cases.index(done[-1]) + 1 if done else start
        if after <= start:  # the child recorded nothing: it cannot run here at all
            break
        start = after
    out = {}
    for l in open(lines):
        if l.strip():
            r = json.loads(l)
            out[r.pop("case")] = r
    import cupy as cp

    with open(results, "w") as f:
        json.dump({"reps": reps, "device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
                   "cases": out}, f, indent=1)


def time_from(outdir: str, lines: str, start: int, reps: int) -> None:
    """Time cases[start:] in this process, a JSON line each; stop at the first that faults."""
    import tempfile

    import cupy as cp

    tmp = tempfile.mkdtemp()
    with open(os.path.join(tmp, "spin.ptx"), "w") as f:
        f.write(SPIN_PTX)
    spin = cp.RawModule(path=os.path.join(tmp, "spin.ptx")).get_function("spin")
    buf = cp.empty(FLUSH_BYTES, dtype=np.uint8)

    def flush():
        cp.cuda.runtime.memsetAsync(buf.data.ptr, 0, FLUSH_BYTES, cp.cuda.get_current_stream().ptr)

    cases = _cases(outdir)
    for case in cases[start:]:
        meta = json.load(open(os.path.join(outdir, case + ".json")))
        row = {"case": case, "kernel": meta["kernel"]}
        faulted = False
        try:
            data = np.load(os.path.join(outdir, case + ".npz"))
            path = os.path.join(tmp, case + ".ptx")
            with open(path, "w") as f:
                f.write(str(data["ptx"]))
            mod = cp.RawModule(path=path)
            for s in meta["symbols"]:
                arr = data[f"sym_{s}"]
                ptr = mod.get_global(s)
                cp.ndarray(arr.shape, arr.dtype, memptr=ptr).set(np.ascontiguousarray(arr))
            dev = {k: cp.asarray(data[k]) for k in data.files if k.startswith("a")}
            args = []
            for kind, v in meta["params"]:
                if kind == "ptr":
                    args.append(dev[v])
                else:
                    raw = bytes.fromhex(v)
                    args.append(np.frombuffer(raw, {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[len(raw)])[0])
            f = mod.get_function(meta["kernel"])
            if meta["shared"] > 48 * 1024:
                f.max_dynamic_shared_size_bytes = meta["shared"]

            def launch():
                f(tuple(meta["grid"]), tuple(meta["block"]), tuple(args), shared_mem=meta["shared"])

            stream = cp.cuda.get_current_stream().ptr
            pristine = {}  # byte copies (any dtype, records too), device to device on the stream
            for k, v in dev.items():
                pristine[k] = cp.empty(v.nbytes, np.uint8)
                cp.cuda.runtime.memcpyAsync(pristine[k].data.ptr, v.data.ptr, v.nbytes, 3, stream)

            def restore():
                for k, v in pristine.items():
                    cp.cuda.runtime.memcpyAsync(dev[k].data.ptr, v.data.ptr, v.nbytes, 3, stream)

            launch()
            cp.cuda.runtime.deviceSynchronize()
            # every timed launch starts from the captured arguments: a kernel that updates in place
            # (a second launch of HeCBench's mis finds its graph solved: 5.3 us against 69) is
            # timed on the data the model saw; a launch that leaves the same bytes loses nothing
            row.update(cold=_time(cp, launch, spin, flush, reps, True, restore),
                       warm=_time(cp, launch, spin, flush, reps, False, restore))
        except Exception as e:  # reported; a launch that faulted leaves the context unusable
            row["error"] = f"{type(e).__name__}: {e}"[:300]
            faulted = "launch" in locals() or "CUDA_ERROR" in str(e)
        print(json.dumps(row), flush=True)
        with open(lines, "a") as f:
            f.write(json.dumps(row) + "\n")
        if faulted:
            os._exit(1)  # the context may be gone; a fresh process goes on
        cp.get_default_memory_pool().free_all_blocks()


# ------------------------------------------------------------------------------------ compare
def compare(outdir: str, results: str) -> None:
    sys.path.insert(0, os.path.join(HERE, ".."))
    from timing_accuracy import summary  # the suite's figures, computed the same way

    measured = json.load(open(results))["cases"]
    for conv in ("cold", "warm"):
        rows = []
        for case, m in sorted(measured.items()):
            path = os.path.join(outdir, case + ".json")
            if not os.path.exists(path):  # a case left out of this capture
                continue
            meta = json.load(open(path))
            pred = meta["predicted"].get(conv)
            if pred is None or conv not in m:
                continue
            rows.append((case, meta["script"], meta["kernel"], m[conv], pred, meta["predicted"].get("explain", "")))
        if not rows:
            continue
        s = summary([{"meas": {conv: m}, "pred": {conv: p}} for _, _, _, m, p, _ in rows], conv)
        sp = f"{s['spearman']:.3f}" if s["spearman"] is not None else "-"
        print(f"\n## {conv}: {s['n']} launches  MAPE {s['mape']:.1f} %  median APE {s['median_ape']:.1f} %  "
              f"within 2x {s['within_2x']}  within 20 % {s['within_20pct']}  Spearman {sp}")
        if conv == "cold":
            print("| case | script | kernel | measured us | predicted us | error % | model: bound by |")
            print("| --- | --- | --- | --- | --- | --- | --- |")
            for case, script, k, m, p, why in sorted(rows, key=lambda r: -abs(r[4] / r[3] - 1)):
                print(f"| {case} | {script} | {k[:40]} | {m:.2f} | {p:.2f} | {100 * (p / m - 1):+.1f} | {why} |")


def main(argv: list) -> None:
    if not argv or argv[0] not in ("capture", "predict", "time", "time-from", "compare"):
        raise SystemExit(__doc__)
    if argv[0] == "capture":
        rest, per, mib = argv[2:], 1, 4.0
        while rest and rest[0].startswith("--"):
            if rest[0] == "--per-kernel":
                per = int(rest[1])
            elif rest[0] == "--max-mib":
                mib = float(rest[1])
            else:
                raise SystemExit(f"unknown option {rest[0]}")
            rest = rest[2:]
        capture(argv[1], rest, per, mib)
    elif argv[0] == "predict":
        predict_again(argv[1])
    elif argv[0] == "time":
        time_all(argv[1], argv[2])
    elif argv[0] == "time-from":
        time_from(argv[1], argv[2], int(argv[3]), int(argv[4]))
    else:
        compare(argv[1], argv[2])


if __name__ == "__main__":
    main(sys.argv[1:])
