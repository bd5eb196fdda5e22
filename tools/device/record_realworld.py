#!/usr/bin/env python3
"""Record the real-world corpus launches (tests/corpus/realworld/cases.py) on a real GPU.

Two steps, because the corpus PTX is ISA 9.4/9.5 and the device's driver JIT-compiles PTX only
up to 9.0:

  here:    python tools/device/record_realworld.py --build-cubins DIR
           assembles every tests/corpus/realworld/ptx/*.ptx with ptxas 13.5 (the nvidia-cuda-nvcc
           wheel, or $PTXAS) for the file's own .target (sm_90 or sm_90a) into DIR/<file>.cubin
           and writes DIR/cubins.json (ptxas version, command, PTX and cubin sha256 per file);
  device:  python3 tools/device/record_realworld.py --cubins DIR --out GOLDEN_DIR [--case NAME]
           for each case: materialize its arguments (case.make(case.rng())), load the file's
           cubin (cuModuleLoadData through CuPy), launch through cuLaunchKernel with one parameter
           buffer per PTX parameter (a tensor map argument: cuTensorMapEncodeTiled over the GPU copy of
           its array, as record.py encodes them), and store

    <case>.npz        arg<i>.in for every array argument (and tensor map's array), arg<i>.out for
                      out/inout/tmap_out ones,
                      arg<i>.value for scalars (raw bytes)
    <case>.meta.json  device, date, file, kernel, grid, block, shared memory, argument kinds and
                      names, the PTX and cubin sha256, the device printf output (captured from
                      file descriptor 1) when the case prints, status

The goldens are read by tests/corpus/realworld/test_realworld.py.
"""
from __future__ import annotations

import argparse
import ctypes
import datetime
import hashlib
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
RW = os.path.join(ROOT, "tests", "corpus", "realworld")
PTX_DIR = os.path.join(RW, "ptx")


def load_cases():
    spec = importlib.util.spec_from_file_location("realworld_cases", os.path.join(RW, "cases.py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules["realworld_cases"] = mod
    spec.loader.exec_module(mod)
    return mod


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def build_cubins(out_dir: str) -> int:
    sys.path.insert(0, ROOT)
    from ptxvm import toolchain

    ptxas = toolchain.require("ptxas", "record_realworld --build-cubins", version="13.5")
    version = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    os.makedirs(out_dir, exist_ok=True)
    index = {"ptxas": version, "files": {}}
    bad = 0
    for name in sorted(os.listdir(PTX_DIR)):
        if not name.endswith(".ptx"):
            continue
        path = os.path.join(PTX_DIR, name)
        text = open(path, "rb").read()
        arch = re.search(rb"^\s*\.target\s+(sm_\w+)", text, re.M).group(1).decode()
        cubin = os.path.join(out_dir, name[:-4] + ".cubin")
        cmd = [ptxas, f"-arch={arch}", path, "-o", cubin]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            bad += 1
            print(f"{name}: ptxas failed: {r.stderr.strip()[:500]}")
            continue
        index["files"][name[:-4]] = {"command": f"ptxas -arch={arch} {os.path.relpath(path, ROOT)}",
                                     "ptx_sha256": _sha(text), "cubin_sha256": _sha(open(cubin, "rb").read())}
    with open(os.path.join(out_dir, "cubins.json"), "w") as f:
        json.dump(index, f, indent=1)
    print(json.dumps({"cubins": len(index["files"]), "failed": bad}))
    return 1 if bad else 0


class CaptureFd1:
    """Device printf goes to the process's file descriptor 1: collect it in a temporary file."""

    def __enter__(self):
        sys.stdout.flush()
        self.tmp = tempfile.TemporaryFile()
        self.saved = os.dup(1)
        os.dup2(self.tmp.fileno(), 1)
        return self

    def __exit__(self, *exc):
        sys.stdout.flush()
        os.dup2(self.saved, 1)
        os.close(self.saved)
        self.tmp.seek(0)
        self.text = self.tmp.read().decode(errors="replace")
        self.tmp.close()


def record_case(C, case, cubins: dict, cubin_dir: str, out_dir: str, info: dict) -> dict:
    import cupy as cp
    import record as R
    import numpy as np
    meta = {"case": case.name, "file": case.file, "device": info,
            "recorded_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    arrays = {}
    try:
        ptx = open(os.path.join(PTX_DIR, case.file + ".ptx"), "rb").read()
        manifest = json.load(open(os.path.join(PTX_DIR, "MANIFEST.json")))["files"][case.file]
        kernel = C.entry_name(case, manifest["entries"])
        cubin_path = os.path.join(cubin_dir, case.file + ".cubin")
        cubin = open(cubin_path, "rb").read()
        grid = tuple(case.grid) + (1,) * (3 - len(case.grid))
        block = tuple(case.block) + (1,) * (3 - len(case.block))
        meta.update(kernel=kernel, grid=grid, block=block, shared_mem=case.shared, ptx_sha256=_sha(ptx),
                    cubin_sha256=_sha(cubin), cubin_built_with=cubins.get("ptxas"),
                    cubin_command=cubins.get("files", {}).get(case.file, {}).get("command"))
        if cubins.get("files", {}).get(case.file, {}).get("ptx_sha256") not in (None, _sha(ptx)):
            raise RuntimeError("the cubin was built from another version of the PTX")
        mod = cp.cuda.function.Module()
        mod.load(cubin)
        fn = mod.get_function(kernel)
        args = case.make(case.rng())
        keep, ptrs, dev = [], [], {}
        for i, a in enumerate(args):
            if a.kind in ("in", "out", "inout"):
                host = np.ascontiguousarray(a.value)
                arrays[f"arg{i}.in"] = host
                d = cp.asarray(host) if host.size else cp.empty(1, host.dtype)
                dev[i] = (d, host)
                buf = ctypes.c_uint64(d.data.ptr)
            elif a.kind in ("tmap_in", "tmap_out"):
                host = np.ascontiguousarray(a.value)
                arrays[f"arg{i}.in"] = host
                d = cp.asarray(host)
                dev[i] = (d, host)
                raw = R.encode_tensor_map({"shape": list(host.shape), "dtype": a.dtype, "box": list(a.box),
                                           "element_strides": [1] * host.ndim, "swizzle": a.swizzle,
                                           "oob_fill": "none"}, d)
                buf = ctypes.create_string_buffer(raw, len(raw))
            else:
                raw = a.value if isinstance(a.value, (bytes, bytearray)) else np.asarray(a.value).tobytes()
                arrays[f"arg{i}.value"] = np.frombuffer(raw, np.uint8)
                buf = ctypes.create_string_buffer(bytes(raw), max(1, len(raw)))
            keep.append(buf)
            ptrs.append(ctypes.cast(ctypes.byref(buf), ctypes.c_void_p).value)
        params = (ctypes.c_void_p * max(1, len(ptrs)))(*ptrs)
        with CaptureFd1() as cap:
            cp.cuda.driver.launchKernel(fn.ptr, *grid, *block, case.shared, 0, ctypes.addressof(params), 0)
            cp.cuda.runtime.deviceSynchronize()
        if cap.text or case.stdout is not None:
            meta["stdout"] = cap.text
        for i, (d, host) in dev.items():
            if args[i].kind in ("out", "inout", "tmap_out"):
                arrays[f"arg{i}.out"] = cp.asnumpy(d)[: host.size].reshape(host.shape)
        meta["args"] = [[a.name, a.kind] for a in args]
        meta["status"] = "recorded"
    except Exception as e:  # noqa: BLE001
        meta["status"] = "failed"
        meta["message"] = f"{e.__class__.__name__}: {e}"[:2000]
        meta["traceback"] = traceback.format_exc()[-2000:]
    os.makedirs(out_dir, exist_ok=True)
    if meta["status"] == "recorded":
        np.savez_compressed(os.path.join(out_dir, f"{case.name}.npz"), **arrays)
    with open(os.path.join(out_dir, f"{case.name}.meta.json"), "w") as f:
        json.dump(meta, f, indent=1, default=str)
        f.write("\n")
    return {"case": case.name, "status": meta["status"], "message": meta.get("message", "")[:300]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-cubins", metavar="DIR")
    ap.add_argument("--cubins", metavar="DIR")
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "goldens", "realworld"))
    ap.add_argument("--case", action="append", default=[])
    a = ap.parse_args(argv)
    if a.build_cubins:
        return build_cubins(a.build_cubins)
    if not a.cubins:
        ap.error("give --build-cubins DIR (here) or --cubins DIR (on the device)")
    sys.path.insert(0, HERE)
    import record as R  # noqa: E402  (device_info)
    C = load_cases()
    cubins = json.load(open(os.path.join(a.cubins, "cubins.json")))
    info = R.device_info()
    n_ok = 0
    chosen = [c for c in C.CASES if not a.case or c.name in a.case]
    for c in chosen:
        r = record_case(C, c, cubins, a.cubins, a.out, info)
        n_ok += r["status"] == "recorded"
        print(json.dumps(r), flush=True)
    print(json.dumps({"cases": len(chosen), "recorded": n_ok}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
