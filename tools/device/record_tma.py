#!/usr/bin/env python3
"""Record the tensor-memory-access cases (tests/kernels/tma_cases.py) and the nvcc TMA kernel
(tests/kernels/cuda/tma_scale.cu) on a GPU, with tensor maps built by cuTensorMapEncodeTiled.

    python3 tools/device/record_tma.py --out tests/goldens/tma

Writes tma.npz (per case: `<name>|out`, the shared buffers copied out for loads or the tensor
afterwards for stores and reductions; for the nvcc kernel its PTX too) and tma.meta.json (device,
toolchain, per-case status and the map's raw bytes as the driver encoded them, for the record).
Needs CuPy, cuda-bindings (cuda.bindings.driver) and, for the nvcc kernel, nvcc.
"""
from __future__ import annotations

import argparse
import ctypes
import datetime
import json
import os
import subprocess
import sys
import tempfile
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "kernels"))

import tma_cases as T  # noqa: E402

SWIZZLE = {"none": "NONE", "32B": "32B", "64B": "64B", "128B": "128B"}


def encode(d, case: T.TmaCase, address: int):
    """cuTensorMapEncodeTiled over the case's tensor at `address`: the 128 raw bytes."""
    dt = getattr(d.CUtensorMapDataType, "CU_TENSOR_MAP_DATA_TYPE_" + T.DTYPES[case.dtype][1])
    dims = [d.cuuint64_t(int(x)) for x in reversed(case.shape)]  # the bindings want their own integer types
    strides = [d.cuuint64_t(int(x)) for x in case.global_strides()]
    if not strides:  # rank 1: the bindings refuse an empty list (INVALID_VALUE); the driver reads none
        strides = [d.cuuint64_t(case.storage_bytes())]
    box = [d.cuuint32_t(int(x)) for x in reversed(case.box)]
    es = [d.cuuint32_t(int(x)) for x in reversed(case.estrides)]
    err, tmap = d.cuTensorMapEncodeTiled(
        dt, case.rank, address, dims, strides, box, es,
        d.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
        getattr(d.CUtensorMapSwizzle, "CU_TENSOR_MAP_SWIZZLE_" + SWIZZLE[case.swizzle]),
        d.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
        d.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA if case.oob_fill == "nan"
        else d.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
    if int(err) != 0:
        raise RuntimeError(f"cuTensorMapEncodeTiled: {err}")
    return np.array([int(x) for x in tmap.opaque], np.uint64).tobytes()


def _launch(cp, fn, grid, block, args):
    """cuLaunchKernel with one host buffer per argument (bytes or integers as u64)."""
    keep, ptrs = [], []
    for a in args:
        raw = a if isinstance(a, bytes) else np.uint64(a).tobytes()
        buf = ctypes.create_string_buffer(raw, len(raw))
        keep.append(buf)
        ptrs.append(ctypes.cast(ctypes.byref(buf), ctypes.c_void_p).value)
    params = (ctypes.c_void_p * len(ptrs))(*ptrs)
    g = grid if isinstance(grid, tuple) else (grid, 1, 1)
    cp.cuda.driver.launchKernel(fn.ptr, *g, block, 1, 1, 0, 0, ctypes.addressof(params), 0)
    cp.cuda.runtime.deviceSynchronize()


def record_case(cp, d, case: T.TmaCase) -> tuple:
    mod = cp.cuda.function.Module()
    mod.load(T.kernel_ptx(case).encode())
    fn = mod.get_function("tma")
    tensor = cp.asarray(T.tensor_bytes(case))
    raw = encode(d, case, int(tensor.data.ptr))
    out = cp.zeros(case.ctas * case.smem_bytes, cp.uint8)
    coords = cp.asarray(T.coords_array(case))
    aux = cp.asarray(T.shared_input(case))
    if case.map_in == "global":
        gmap = cp.asarray(np.frombuffer(raw, np.uint8))
        first = int(gmap.data.ptr)
    else:
        first = raw
    grid, block = T.launch(case)
    _launch(cp, fn, grid, block, [first, int(out.data.ptr), int(coords.data.ptr), int(aux.data.ptr)])
    result = cp.asnumpy(out) if case.kind in ("load", "prefetch", "multicast") else cp.asnumpy(tensor)
    return result, raw


def record_im2col(cp, d, case) -> tuple:
    """One im2col case: cuTensorMapEncodeIm2col over the iota tensor, the CTAs' shared buffers."""
    mod = cp.cuda.function.Module()
    mod.load(T.im2col_ptx(case).encode())
    fn = mod.get_function("im2col")
    tensor = cp.asarray(T.im2col_tensor(case))
    u32 = d.cuuint32_t
    err, tmap = d.cuTensorMapEncodeIm2col(
        d.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_UINT32, case.rank, int(tensor.data.ptr),
        [d.cuuint64_t(int(x)) for x in reversed(case.shape)], [d.cuuint64_t(int(x)) for x in case.global_strides()],
        list(case.lower), list(case.upper), u32(case.channels), u32(case.pixels), [u32(1)] * case.rank,
        d.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE, d.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_NONE,
        d.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_NONE,
        d.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
    if int(err) != 0:
        raise RuntimeError(f"cuTensorMapEncodeIm2col: {err}")
    raw = np.array([int(x) for x in tmap.opaque], np.uint64).tobytes()
    out = cp.zeros(case.ctas * case.smem_bytes, cp.uint8)
    coords = cp.asarray(T.im2col_coords(case))
    _launch(cp, fn, case.ctas, 128, [raw, int(out.data.ptr), int(coords.data.ptr)])
    return cp.asnumpy(out), raw


def encode_probe(d) -> dict:
    """Which 1-d encodings the driver takes: no strides, a dummy stride, various boxes."""
    out = {}
    import cupy as cp
    buf = cp.zeros(4096, cp.uint8)
    f32 = d.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_FLOAT32
    rest = (d.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE, d.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_NONE,
            d.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_NONE,
            d.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
    u64, u32 = d.cuuint64_t, d.cuuint32_t
    trials = {"1d_no_strides": (1, [u64(256)], [], [u32(64)], [u32(1)]),
              "1d_dummy_stride": (1, [u64(256)], [u64(1024)], [u32(64)], [u32(1)]),
              "1d_box_full": (1, [u64(256)], [], [u32(256)], [u32(1)]),
              "1d_box_16": (1, [u64(256)], [], [u32(16)], [u32(1)]),
              "2d_one_row": (2, [u64(256), u64(1)], [u64(1024)], [u32(64), u32(1)], [u32(1), u32(1)])}
    for name, (rank, dims, strides, box, es) in trials.items():
        try:
            err, _ = d.cuTensorMapEncodeTiled(f32, rank, int(buf.data.ptr), dims, strides, box, es, *rest)
            out[name] = str(err)
        except Exception as e:  # noqa: BLE001
            out[name] = f"{type(e).__name__}: {e}"
    return out


def record_nvcc(cp, d, out_arrays: dict) -> dict:
    """tma_scale_2d: a 64x96 f32 matrix, 16x32 tiles, in_map and out_map over two arrays."""
    src = os.path.join(ROOT, "tests", "kernels", "cuda", "tma_scale.cu")
    with tempfile.TemporaryDirectory() as tmp:
        ptx_path = os.path.join(tmp, "k.ptx")
        r = subprocess.run(["nvcc", "-arch=sm_90", "-ptx", src, "-o", ptx_path], capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError("nvcc: " + r.stderr[-1500:])
        ptx = open(ptx_path).read()
    mod = cp.cuda.function.Module()
    mod.load(ptx.encode())
    fn = mod.get_function("tma_scale_2d")
    h, w = 64, 96
    rng = np.random.default_rng(5)
    a = rng.standard_normal((h, w)).astype(np.float32)
    din, dout = cp.asarray(a), cp.zeros((h, w), cp.float32)
    maps = []
    for arr in (din, dout):
        err, tm = d.cuTensorMapEncodeTiled(
            d.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, int(arr.data.ptr),
            [d.cuuint64_t(w), d.cuuint64_t(h)], [d.cuuint64_t(w * 4)], [d.cuuint32_t(32), d.cuuint32_t(16)],
            [d.cuuint32_t(1), d.cuuint32_t(1)], d.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
            d.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_NONE, d.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_NONE,
            d.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
        if int(err) != 0:
            raise RuntimeError(f"cuTensorMapEncodeTiled: {err}")
        maps.append(np.array([int(x) for x in tm.opaque], np.uint64).tobytes())
    _launch(cp, fn, (w // 32, h // 16, 1), 128, [maps[0], maps[1], np.float32(1.5).tobytes()])
    out_arrays["nvcc_tma_scale_2d|ptx"] = np.frombuffer(ptx.encode(), np.uint8)
    out_arrays["nvcc_tma_scale_2d|in"] = a
    out_arrays["nvcc_tma_scale_2d|out"] = cp.asnumpy(dout)
    return {"status": "recorded", "shape": [h, w], "box": [16, 32], "scale": 1.5}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "goldens", "tma"))
    ap.add_argument("--case", action="append", default=[], help="only these cases (each in its own process)")
    ap.add_argument("--name", default="tma", help="output file stem (tma.npz / tma.meta.json)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--encode-probe", action="store_true", help="try 1-d encodings and print the results")
    a = ap.parse_args(argv)
    if a.encode_probe:
        from cuda.bindings import driver as d
        print(json.dumps(encode_probe(d), indent=1))
        return 0
    import cupy as cp
    from cuda.bindings import driver as d
    os.makedirs(a.out, exist_ok=True)
    props = cp.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    meta = {"device": name, "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "driver": cp.cuda.runtime.driverGetVersion(), "cases": {}}
    arrays = {}
    if a.worker:  # in this process
        for case in T.cases() + T.im2col_cases():
            if case.name not in a.case:
                continue
            try:
                res, raw = (record_im2col if isinstance(case, T.Im2colCase) else record_case)(cp, d, case)
                arrays[f"{case.name}|out"] = res
                meta["cases"][case.name] = {"status": "recorded", "map_bytes": raw.hex()}
            except Exception as e:  # noqa: BLE001
                meta["cases"][case.name] = {"status": "failed", "error": f"{type(e).__name__}: {e}",
                                            "trace": traceback.format_exc(limit=3)}
            print(json.dumps({case.name: meta["cases"][case.name]["status"]}), flush=True)
    else:  # one process per case: a faulting launch (a sticky error) spoils only its own case
        with tempfile.TemporaryDirectory() as tmp:
            for case in T.cases() + T.im2col_cases():
                if a.case and case.name not in a.case:
                    continue
                part = os.path.join(tmp, case.name)
                try:
                    r = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", "--case", case.name,
                                        "--out", part],
                                       capture_output=True, text=True, timeout=15)  # a wrong tx count would hang
                except subprocess.TimeoutExpired:
                    meta["cases"][case.name] = {"status": "failed", "error": "timed out (the mbarrier never completed?)"}
                    print(json.dumps({case.name: "timed out"}), flush=True)
                    continue
                try:
                    with open(os.path.join(part, "tma.meta.json")) as f:
                        meta["cases"].update(json.load(f)["cases"])
                    with np.load(os.path.join(part, "tma.npz")) as z:
                        arrays.update({k: z[k] for k in z.files})
                except OSError:
                    meta["cases"][case.name] = {"status": "failed", "error": (r.stdout + r.stderr)[-1500:]}
                print(json.dumps({case.name: meta["cases"][case.name].get("status")}), flush=True)
    if not a.case:
        try:
            meta["nvcc_tma_scale_2d"] = record_nvcc(cp, d, arrays)
        except Exception as e:  # noqa: BLE001
            meta["nvcc_tma_scale_2d"] = {"status": "failed", "error": f"{type(e).__name__}: {e}",
                                         "trace": traceback.format_exc(limit=3)}
        print(json.dumps({"nvcc_tma_scale_2d": meta["nvcc_tma_scale_2d"]["status"]}), flush=True)
    stem = "tma" if a.worker else a.name
    np.savez_compressed(os.path.join(a.out, stem + ".npz"), **arrays)
    with open(os.path.join(a.out, stem + ".meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
