#!/usr/bin/env python3
"""Record the realistic kernels of tests/kernels/cases.py on a real GPU.

    python3 tools/device/record_kernels.py --out tests/goldens/kernels [--case NAME] [--seed 0] [--advanced]

--advanced records the manifest's ADVANCED_CASES instead of CASES: those whose arguments are plain
arrays and scalars (cp.async, mbarrier, clusters, wmma; not the texture and surface cases, which
tests/kernels/run_advanced_on_gpu.py launches). A case with a launch-time cluster shape (`cluster`)
is launched through cuLaunchKernelEx with the cluster-dimension attribute.

For every case of the manifest: get its PTX (the case's own PTX text, or its CUDA source compiled
here with `nvcc -arch=sm_90 -ptx`), materialize its arguments with `materialize(case, seed)`,
launch it through the CUDA driver (cuLaunchKernel with one parameter buffer per argument, so
pointers, scalars and by-value structs all pass the same way) and store

    <case>.npz        ptx (uint8), arg<i>.in for every array argument, arg<i>.out for Out/InOut,
                      arg<i>.value for scalars and structs (raw bytes)
    <case>.meta.json  device, toolchain, date, kernel, grid, block, shared memory, seed, argument
                      kinds, PTX sha256, status

What it expects of the manifest (duck-typed; a case that does not fit is reported, not fatal):
  cases: `CASES` (a list) or `cases()`; each with `name`, `kernel` (entry name), `grid`, `block`,
  optional `shared` / `shared_mem` (dynamic shared bytes), `args` (specs whose class names are
  In / Out / InOut / Scalar / Struct), and PTX as `ptx` (text) or `ptx_path`, or CUDA source as
  `source` (text) or `cu` / `cu_path` / `path` (a .cu file, relative to the repo root or to
  tests/kernels/ or tests/corpus/cuda/); `materialize(case, seed)` returns one value per arg:
  NumPy arrays for In/Out/InOut, NumPy scalars (or ints) for Scalar, bytes / NumPy structured
  scalars for Struct.
"""
from __future__ import annotations

import argparse
import ctypes
import datetime
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import record as R  # noqa: E402  (device_info, git_commit)


PLAIN_ARGS = ("In", "Out", "InOut", "Scalar", "Struct")


def load_manifest(advanced: bool = False):
    path = os.path.join(ROOT, "tests", "kernels", "cases.py")
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    spec = importlib.util.spec_from_file_location("kernel_cases", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["kernel_cases"] = mod
    spec.loader.exec_module(mod)
    cases = getattr(mod, "CASES", None)
    if advanced:
        cases = [c for c in getattr(mod, "ADVANCED_CASES", ())
                 if all(type(a).__name__ in PLAIN_ARGS for a in _get(c, "args", default=()))]
    if cases is None and hasattr(mod, "cases"):
        cases = mod.cases()
    if isinstance(cases, dict):
        cases = list(cases.values())
    return mod, list(cases or [])


def _get(case, *names, default=None):
    for n in names:
        if isinstance(case, dict) and n in case:
            return case[n]
        if hasattr(case, n):
            v = getattr(case, n)
            return v() if callable(v) and n in ("ptx",) and not isinstance(v, str) else v
    return default


def _find(rel: str) -> str:
    for base in (ROOT, os.path.join(ROOT, "tests", "kernels"), os.path.join(ROOT, "tests", "corpus", "cuda")):
        p = os.path.join(base, rel)
        if os.path.exists(p):
            return p
    return rel


def case_ptx(case) -> str:
    ptx = _get(case, "ptx")
    if isinstance(ptx, str) and ".entry" in ptx:
        return ptx
    p = _get(case, "ptx_path")
    if p:
        with open(_find(p)) as f:
            return f.read()
    src = _get(case, "source")
    cu = _get(case, "cu", "cu_path", "path")
    with tempfile.TemporaryDirectory() as d:
        if src and "__global__" in str(src):
            cu_file = os.path.join(d, "k.cu")
            with open(cu_file, "w") as f:
                f.write(src)
        elif cu:
            cu_file = _find(str(cu))
        else:
            raise ValueError("case has neither PTX nor CUDA source")
        out = os.path.join(d, "k.ptx")
        flags = list(_get(case, "nvcc_flags", "flags", default=()) or ())
        r = subprocess.run(["nvcc", "-arch=sm_90", "-ptx", cu_file, "-o", out] + flags,
                           capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError("nvcc failed: " + (r.stdout + r.stderr)[-1500:])
        with open(out) as f:
            return f.read()


def _dim3(v):
    if isinstance(v, int):
        return (v, 1, 1)
    v = tuple(int(x) for x in v)
    return v + (1,) * (3 - len(v))


def launch_ex(fn_ptr: int, grid, block, shmem: int, cluster, params) -> None:
    """cuLaunchKernelEx on the default stream with CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION (id 4).
    `params` is the ctypes array of argument pointers."""
    class Attr(ctypes.Structure):  # CUlaunchAttribute: id, padding, a 64-byte value union
        _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("val", ctypes.c_uint * 16)]

    class Config(ctypes.Structure):  # CUlaunchConfig
        _fields_ = [("gx", ctypes.c_uint), ("gy", ctypes.c_uint), ("gz", ctypes.c_uint),
                    ("bx", ctypes.c_uint), ("by", ctypes.c_uint), ("bz", ctypes.c_uint),
                    ("smem", ctypes.c_uint), ("stream", ctypes.c_void_p),
                    ("attrs", ctypes.POINTER(Attr)), ("nattrs", ctypes.c_uint)]

    attr = Attr()
    attr.id = 4
    attr.val[0], attr.val[1], attr.val[2] = cluster
    cfg = Config(*grid, *block, shmem, None, ctypes.pointer(attr), 1)
    cuda = ctypes.CDLL("libcuda.so.1")
    cuda.cuLaunchKernelEx.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    r = cuda.cuLaunchKernelEx(ctypes.byref(cfg), ctypes.c_void_p(fn_ptr), params, None)
    if r != 0:
        raise RuntimeError(f"cuLaunchKernelEx failed with CUresult {r}")


def record_case(case, materialize, seed: int, out_dir: str, info: dict) -> dict:
    import numpy as np
    import cupy as cp
    name = str(_get(case, "name"))
    meta = {"case": name, "seed": seed, "device": info, "recorder_commit": R.git_commit(),
            "recorded_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    arrays = {}
    try:
        ptx = case_ptx(case)
        kernel = str(_get(case, "kernel", "entry"))
        grid, block = _dim3(_get(case, "grid")), _dim3(_get(case, "block"))
        shmem = int(_get(case, "shared", "shared_mem", "dynamic_shared", default=0) or 0)
        specs = list(_get(case, "args", default=[]))
        values = list(materialize(case, seed))
        if len(values) != len(specs):
            raise ValueError(f"materialize gave {len(values)} values for {len(specs)} args")
        meta.update(kernel=kernel, grid=grid, block=block, shared_mem=shmem,
                    ptx_sha256=hashlib.sha256(ptx.encode()).hexdigest())
        arrays["ptx"] = np.frombuffer(ptx.encode(), np.uint8)
        mod = cp.cuda.function.Module()
        mod.load(ptx.encode())
        fn = mod.get_function(kernel)
        keep, bufs, kinds, dev = [], [], [], {}
        for i, (spec, v) in enumerate(zip(specs, values)):
            kind = type(spec).__name__ if not isinstance(spec, str) else spec
            kinds.append(kind)
            if kind in ("In", "Out", "InOut") or isinstance(v, np.ndarray) and kind not in ("Scalar", "Struct"):
                a = np.ascontiguousarray(v)
                arrays[f"arg{i}.in"] = a
                d = cp.asarray(a) if a.size else cp.empty(1, a.dtype)
                dev[i] = (d, a)
                buf = ctypes.c_uint64(d.data.ptr)
            else:
                raw = v.tobytes() if hasattr(v, "tobytes") else (bytes(v) if isinstance(v, (bytes, bytearray)) else None)
                if raw is None:
                    dt = getattr(spec, "dtype", None) or np.int64
                    raw = np.array(v, dtype=dt).tobytes()
                arrays[f"arg{i}.value"] = np.frombuffer(raw, np.uint8)
                buf = ctypes.create_string_buffer(raw, max(1, len(raw)))
            keep.append(buf)
            bufs.append(ctypes.cast(ctypes.byref(buf), ctypes.c_void_p).value)
        params = (ctypes.c_void_p * max(1, len(bufs)))(*bufs)
        cluster = _get(case, "cluster")
        if cluster:
            meta["cluster"] = _dim3(cluster)
            launch_ex(fn.ptr, grid, block, shmem, _dim3(cluster), params)
        else:
            cp.cuda.driver.launchKernel(fn.ptr, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                        shmem, 0, ctypes.addressof(params), 0)
        cp.cuda.runtime.deviceSynchronize()
        for i, (d, a) in dev.items():
            if kinds[i] in ("Out", "InOut"):
                arrays[f"arg{i}.out"] = cp.asnumpy(d)[: a.size] if a.size else a.copy()
        meta["args"] = kinds
        meta["status"] = "recorded"
    except Exception as e:  # noqa: BLE001
        meta["status"] = "failed"
        meta["message"] = f"{e.__class__.__name__}: {e}"[:2000]
        meta["traceback"] = traceback.format_exc()[-2000:]
    os.makedirs(out_dir, exist_ok=True)
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
    if meta["status"] == "recorded":
        np.savez_compressed(os.path.join(out_dir, f"{safe}.npz"), **arrays)
    with open(os.path.join(out_dir, f"{safe}.meta.json"), "w") as f:
        json.dump(meta, f, indent=1, default=str)
        f.write("\n")
    return {"case": name, "status": meta["status"], "message": meta.get("message", "")[:300]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "goldens", "kernels"))
    ap.add_argument("--case", action="append", default=[])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--advanced", action="store_true", help="record the ADVANCED_CASES with plain arguments")
    a = ap.parse_args(argv)
    mod, cases = load_manifest(a.advanced)
    materialize = getattr(mod, "materialize")
    info = R.device_info()
    n_ok = 0
    for c in cases:
        name = str(_get(c, "name"))
        if a.case and name not in a.case:
            continue
        r = record_case(c, materialize, a.seed, a.out, info)
        n_ok += r["status"] == "recorded"
        print(json.dumps(r), flush=True)
    print(json.dumps({"kernels": len(cases), "recorded": n_ok}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
