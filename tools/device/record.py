#!/usr/bin/env python3
"""Record conformance goldens on a real GPU (run on the device machine, repo root as cwd).

    python3 tools/device/record.py --family integer --family logic --out tests/goldens/conformance
    python3 tools/device/record.py --all --out tests/goldens/conformance

Needs python3 with NumPy and CuPy. Each case's PTX is loaded through the CUDA driver (the JIT,
exactly as a PTX user gets it), launched, and every output copied back. With --cubins DIR, a case
whose PTX the driver cannot JIT (ISA 9.1+ on a CUDA 13.0 driver) is loaded from the cubin that
tools/device/build_cubins.py built for it here (DIR/<ptx sha256>.cubin, cuModuleLoadData), or
reported with that ptxas's refusal (DIR/<sha>.log); its metadata says so ("loaded_from"). Each family runs in a
worker process; a case that breaks the CUDA context (a sticky error) is marked failed and the
worker restarts after it. Imports nothing of ptxvm but ptxvm.conformance (NumPy only).
"""
from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import types

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def import_conformance():
    """Import ptxvm.conformance without running ptxvm/__init__.py (which may pull in the engine
    and its dependencies): a bare package object stands in for ptxvm."""
    if "ptxvm" not in sys.modules:
        pkg = types.ModuleType("ptxvm")
        pkg.__path__ = [os.path.join(ROOT, "ptxvm")]
        sys.modules["ptxvm"] = pkg
    import ptxvm.conformance.cases as cases
    import ptxvm.conformance.golden as golden
    return cases, golden


def sh(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout.strip()
    except Exception as e:  # noqa: BLE001
        return f"unavailable ({e.__class__.__name__})"


def source_hash() -> str:
    """A hash of the recorder and the case generator sources (identifies them without git)."""
    h = hashlib.sha256()
    paths = [os.path.join(ROOT, "tools", "device", "record.py")]
    base = os.path.join(ROOT, "ptxvm", "conformance")
    for d, _, files in sorted(os.walk(base)):
        for f in sorted(files):
            if f.endswith(".py"):
                paths.append(os.path.join(d, f))
    for p in paths:
        h.update(os.path.relpath(p, ROOT).encode())
        with open(p, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:16]


def git_commit() -> str:
    env = os.environ.get("RECORDER_COMMIT")
    if env:
        return env
    out = sh(["git", "-C", ROOT, "rev-parse", "HEAD"])
    if len(out) == 40:
        return out
    # no git (or a repository git refuses to read): follow .git/HEAD by hand
    try:
        gd = os.path.join(ROOT, ".git")
        with open(os.path.join(gd, "HEAD")) as f:
            head = f.read().strip()
        if not head.startswith("ref: "):
            return head
        ref = head[5:]
        p = os.path.join(gd, ref)
        if os.path.exists(p):
            with open(p) as f:
                return f.read().strip()
        with open(os.path.join(gd, "packed-refs")) as f:
            for line in f:
                if line.strip().endswith(" " + ref):
                    return line.split()[0]
    except OSError:
        pass
    return "unknown"


def device_info() -> dict:
    import cupy as cp
    rt = cp.cuda.runtime
    props = rt.getDeviceProperties(0)
    name = props["name"]
    name = name.decode() if isinstance(name, bytes) else name
    smi = sh(["nvidia-smi", "--query-gpu=name,driver_version,vbios_version", "--format=csv,noheader"])
    ptxas = sh(["ptxas", "--version"]).splitlines()
    return {
        "gpu": name,
        "compute_capability": f"{props['major']}.{props['minor']}",
        "multiprocessors": props.get("multiProcessorCount"),
        "nvidia_smi": smi,
        "driver_version": smi.split(",")[1].strip() if smi.count(",") >= 1 else smi,
        "cuda_driver_api": rt.driverGetVersion(),
        "cuda_runtime": rt.runtimeGetVersion(),
        "ptxas": ptxas[-1] if ptxas else "unavailable",
        "ptxas_full": " | ".join(ptxas),
        "cupy": cp.__version__,
        "numpy": __import__("numpy").__version__,
        "python": platform.python_version(),
        "host": platform.node(),
    }


# ------------------------------------------------------------------------------------- worker

def worker(family: str, start: int, tmp: str, stop: int | None = None) -> int:
    """Record cases start.. of a family; one JSON line per case on stdout; arrays to tmp/<i>.npz."""
    import numpy as np
    import cupy as cp
    cases_mod, golden = import_conformance()
    cases = cases_mod.family_cases(family)
    for i in range(start, len(cases) if stop is None else min(stop, len(cases))):
        c = cases[i]
        print(json.dumps({"start": i}), flush=True)
        t0 = time.perf_counter()
        try:
            L = golden.launch_for_case(c)
        except Exception as e:  # noqa: BLE001  (a generator bug: report, go on)
            print(json.dumps({"done": i, "status": "generator_error", "message": repr(e)}), flush=True)
            continue
        image, refusal = cubin_for(L.ptx, golden)
        if refusal is not None:
            print(json.dumps({"done": i, "status": "load_failed", "message": "ptxas refused the PTX",
                              "ptxas": refusal, "loaded_from": "cubin"}), flush=True)
            continue
        try:
            mod = cp.cuda.function.Module()
            mod.load(image if image is not None else L.ptx.encode())
            fn = mod.get_function(L.kernel)
        except Exception as e:  # noqa: BLE001
            msg = f"{e.__class__.__name__}: {e}"
            log = ptxas_log(L.ptx)
            print(json.dumps({"done": i, "status": "load_failed", "message": msg, "ptxas": log}), flush=True)
            continue
        t1 = time.perf_counter()
        try:
            dev_srcs = [cp.asarray(a) for _, a in L.srcs]
            dev_dsts = [cp.asarray(a) for _, a in L.dsts]
            dev_mems = [cp.asarray(a) for _, a in L.mems]
            handles, read_res = [], None
            if L.res:  # texture / surface objects through the driver API
                import record_resources
                handles, read_res = record_resources.make(L, mod)
            args = tuple(dev_srcs + dev_dsts + dev_mems + handles + [np.uint32(L.lanes)])
            if L.tmaps:
                maps = [encode_tensor_map(t, dev_mems[[n for n, _ in L.mems].index(t["memory"])])
                        for t in L.tmaps]
                launch_raw(cp, fn, L.grid, L.block, dev_srcs + dev_dsts + dev_mems + maps + list(handles)
                           + [np.uint32(L.lanes)])
            else:
                fn((L.grid, 1, 1), (L.block, 1, 1), args)
            cp.cuda.runtime.deviceSynchronize()
            arrays = {"ptx": np.frombuffer(L.ptx.encode(), np.uint8)}
            for (name, _), d in zip(L.dsts, dev_dsts):
                arrays[f"out|{name}"] = cp.asnumpy(d)
            for (name, a), d in zip(L.mems, dev_mems):
                arrays[f"mem0|{name}"] = a
                arrays[f"mem|{name}"] = cp.asnumpy(d)
            if read_res:
                arrays.update(read_res())
        except Exception as e:  # noqa: BLE001  (a launch error poisons the context: restart)
            status = "faulted" if c.expect_fault else "launch_failed"
            print(json.dumps({"done": i, "status": status, "message": f"{e.__class__.__name__}: {e}"}),
                  flush=True)
            return 3
        np.savez(os.path.join(tmp, f"{i}.npz"), **arrays)
        t2 = time.perf_counter()
        print(json.dumps({"done": i, "status": "recorded", "load_s": round(t1 - t0, 4),
                          "run_s": round(t2 - t1, 4), **({"loaded_from": "cubin"} if image else {})}),
              flush=True)
    return 0


def cubin_for(ptx: str, golden):
    """(cubin bytes or None, ptxas refusal text or None) for a case's PTX from RECORD_CUBINS."""
    d = os.environ.get("RECORD_CUBINS")
    if not d:
        return None, None
    sha = golden.ptx_sha(ptx)
    p = os.path.join(d, sha + ".cubin")
    if os.path.exists(p):
        with open(p, "rb") as f:
            return f.read(), None
    p = os.path.join(d, sha + ".log")
    if os.path.exists(p):
        with open(p) as f:
            return None, f.read()
    return None, None


TMAP_DTYPES = {"u8": "UINT8", "u16": "UINT16", "u32": "UINT32", "s32": "INT32", "u64": "UINT64", "s64": "INT64",
               "f16": "FLOAT16", "f32": "FLOAT32", "f64": "FLOAT64", "bf16": "BFLOAT16", "f32_ftz": "FLOAT32_FTZ",
               "tf32": "TFLOAT32", "tf32_ftz": "TFLOAT32_FTZ"}
TMAP_SIZES = {"u8": 1, "u16": 2, "f16": 2, "bf16": 2, "u64": 8, "s64": 8, "f64": 8}


def encode_tensor_map(t: dict, dev_array) -> bytes:
    """cuTensorMapEncodeTiled over a device array (a case's TensorMapArg spec): 128 raw bytes."""
    import numpy as np
    from cuda.bindings import driver as d
    shape, size = t["shape"], TMAP_SIZES.get(t["dtype"], 4)
    strides, s = [], size
    for n in reversed(shape[1:]):
        s *= n
        strides.append(d.cuuint64_t(s))
    if not strides:  # rank 1: the bindings refuse an empty list; the driver reads none
        strides = [d.cuuint64_t(size * shape[0])]
    err, tmap = d.cuTensorMapEncodeTiled(
        getattr(d.CUtensorMapDataType, "CU_TENSOR_MAP_DATA_TYPE_" + TMAP_DTYPES[t["dtype"]]), len(shape),
        int(dev_array.data.ptr), [d.cuuint64_t(int(x)) for x in reversed(shape)], strides,
        [d.cuuint32_t(int(x)) for x in reversed(t["box"])], [d.cuuint32_t(int(x)) for x in reversed(t["element_strides"])],
        d.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
        getattr(d.CUtensorMapSwizzle, "CU_TENSOR_MAP_SWIZZLE_" + t["swizzle"].upper()),
        d.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_NONE,
        d.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA if t["oob_fill"] == "nan"
        else d.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
    if int(err) != 0:
        raise RuntimeError(f"cuTensorMapEncodeTiled({t}): {err}")
    return np.array([int(x) for x in tmap.opaque], np.uint64).tobytes()


def launch_raw(cp, fn, grid: int, block: int, args) -> None:
    """cuLaunchKernel with one host buffer per argument: device arrays as pointers, NumPy
    scalars as their bytes, bytes (a tensor map) as they are."""
    import ctypes
    import numpy as np
    keep, ptrs = [], []
    for a in args:
        if isinstance(a, bytes):
            raw = a
        elif isinstance(a, np.generic):
            raw = a.tobytes()
        else:
            raw = np.uint64(int(a.data.ptr)).tobytes()
        buf = ctypes.create_string_buffer(raw, len(raw))
        keep.append(buf)
        ptrs.append(ctypes.cast(ctypes.byref(buf), ctypes.c_void_p).value)
    params = (ctypes.c_void_p * len(ptrs))(*ptrs)
    cp.cuda.driver.launchKernel(fn.ptr, grid, 1, 1, block, 1, 1, 0, 0, ctypes.addressof(params), 0)


def store_resources(c, z, arrays: dict) -> list:
    """Initial contents (shared by signature) and changed surfaces of a case; the unchanged names."""
    unchanged = []
    for r in c.resources:
        for k in range(r.levels):
            arrays[f"res0|{r.signature}|{k}"] = z[f"res0|{r.name}|{k}"]
        if r.kind == "surface":
            init, final = z[f"res0|{r.name}|0"], z[f"res|{r.name}"]
            if init.tobytes() == final.tobytes():
                unchanged.append(r.name)
            else:
                arrays[f"res|{c.id}|{r.name}"] = final
    return unchanged


def ptxas_log(ptx: str) -> str:
    if not shutil.which("ptxas"):
        return ""
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "case.ptx")
        with open(p, "w") as f:
            f.write(ptx)
        r = subprocess.run(["ptxas", "-arch=sm_90", p, "-o", os.path.join(d, "k.cubin")],
                           capture_output=True, text=True)
        return (r.stdout + r.stderr).replace(p, "case.ptx").strip()[:2000]


# ------------------------------------------------------------------------------------- parent

def record_family(family: str, out_dir: str, info: dict, limit: int | None = None) -> dict:
    import numpy as np
    cases_mod, golden = import_conformance()
    cases = cases_mod.family_cases(family)
    n_cases = len(cases) if limit is None else min(limit, len(cases))
    results: dict[int, dict] = {}
    t0 = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        start = 0
        while start < n_cases:
            env = dict(os.environ, PYTHONUNBUFFERED="1")
            p = subprocess.Popen([sys.executable, __file__, "--worker", family, "--start", str(start),
                                  "--tmp", tmp, "--stop", str(n_cases)],
                                 stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)
            current = None
            for line in p.stdout:
                try:
                    msg = json.loads(line)
                except ValueError:
                    continue
                if "start" in msg:
                    current = msg["start"]
                elif "done" in msg:
                    results[msg["done"]] = msg
                    current = None
            rc = p.wait()
            progressed = any(k >= start for k in results)
            last = max(results) if results else start - 1
            if current is not None and current not in results:
                results[current] = {"done": current, "status": "crashed",
                                    "message": f"worker exited with {rc} during this case"}
                last = current
            if rc == 0 and last >= n_cases - 1:
                break
            if not progressed and current is None:
                print(f"record: worker for {family} exited with {rc} before any case; giving up",
                      file=sys.stderr, flush=True)
                break
            start = last + 1

        arrays = {}
        meta_cases = {}
        shared_inputs = set()
        for i in range(n_cases):
            c = cases[i]
            r = results.get(i, {"status": "not_run"})
            m = golden.case_meta(c)
            m["status"] = r["status"]
            for k in ("message", "ptxas", "load_s", "run_s", "loaded_from"):
                if k in r:
                    m[k] = r[k]
            ptx = c.ptx()
            m["ptx_sha256"] = golden.ptx_sha(ptx)
            if r["status"] == "faulted":  # the launch stopped as expected: PTX and inputs, no outputs
                arrays[f"ptx|{c.id}"] = np.frombuffer(ptx.encode(), np.uint8)
                for mm, a in zip(c.memory, golden.memory_init(c).values()):
                    arrays[f"mem0|{golden.memory_sig(mm)}"] = a
                for rr in c.resources:
                    for k, a in enumerate(golden.R.initial(rr)):
                        arrays[f"res0|{rr.signature}|{k}"] = a
                if c.inputs not in shared_inputs:
                    shared_inputs.add(c.inputs)
                    for j, (_, a) in enumerate(golden.launch_for_case(c).srcs):
                        arrays[f"in|{c.inputs}|{j}"] = a
            if r["status"] == "recorded":
                z = np.load(os.path.join(tmp, f"{i}.npz"))
                arrays[f"ptx|{c.id}"] = z["ptx"]
                unchanged = []
                for k in z.files:
                    if k.startswith("out|"):
                        arrays[f"out|{c.id}|{k[4:]}"] = z[k]
                for mm in c.memory:
                    init, final = z[f"mem0|{mm.name}"], z[f"mem|{mm.name}"]
                    arrays[f"mem0|{golden.memory_sig(mm)}"] = init
                    if np.array_equal(init, final):
                        unchanged.append(mm.name)
                    else:
                        arrays[f"mem|{c.id}|{mm.name}"] = final
                if c.memory:
                    m["mem_unchanged"] = unchanged
                if c.resources:
                    m["res_unchanged"] = store_resources(c, z, arrays)
                if c.inputs not in shared_inputs:
                    shared_inputs.add(c.inputs)
                    L = golden.launch_for_case(c)
                    for j, (_, a) in enumerate(L.srcs):
                        arrays[f"in|{c.inputs}|{j}"] = a
            meta_cases[c.id] = m
    os.makedirs(out_dir, exist_ok=True)
    npz_path = os.path.join(out_dir, f"{family}.npz")
    np.savez_compressed(npz_path, **arrays)
    statuses: dict[str, int] = {}
    for m in meta_cases.values():
        statuses[m["status"]] = statuses.get(m["status"], 0) + 1
    meta = {
        "format": golden.FORMAT,
        "family": family,
        "recorded_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "recorder_commit": git_commit(),
        "recorder_source_sha256": source_hash(),
        "device": info,
        "sentinel_byte": golden.SENTINEL,
        "seconds": round(time.time() - t0, 1),
        "statuses": statuses,
        "cases": meta_cases,
    }
    with open(os.path.join(out_dir, f"{family}.meta.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=False)
        f.write("\n")
    return {"family": family, "cases": n_cases, "statuses": statuses, "seconds": meta["seconds"],
            "npz_bytes": os.path.getsize(npz_path)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--family", action="append", default=[])
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "goldens", "conformance"))
    ap.add_argument("--limit", type=int, default=None, help="record only the first N cases per family")
    ap.add_argument("--info-only", action="store_true", help="print the device information and stop")
    ap.add_argument("--cubins", help="load cases with ISA > 9.0 from cubins built by build_cubins.py")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--stop", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--tmp", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        return worker(a.worker, a.start, a.tmp, a.stop)
    if a.cubins:
        os.environ["RECORD_CUBINS"] = os.path.abspath(a.cubins)  # the workers inherit it
    info = device_info()
    if a.cubins:
        with open(os.path.join(a.cubins, "ptxas.txt")) as f:
            info["cubin_ptxas"] = f.read().strip()  # the ptxas (here) that built the cubins
    print(json.dumps(info, indent=1), flush=True)
    if a.info_only:
        return 0
    cases_mod, _ = import_conformance()
    fams = cases_mod.FAMILIES if a.all else a.family
    if not fams:
        ap.error("name --family F (repeatable) or --all")
    bad = 0
    for fam in fams:
        s = record_family(fam, a.out, info, a.limit)
        print(json.dumps(s), flush=True)
        bad += sum(v for k, v in s["statuses"].items() if k not in ("recorded",))
    return 0


if __name__ == "__main__":
    sys.exit(main())
