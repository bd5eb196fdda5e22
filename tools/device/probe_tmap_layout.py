#!/usr/bin/env python3
"""Probe the driver's tensor-map encoding: cuTensorMapEncodeTiled / Im2col with one parameter
varied at a time from a base map, each map's 128 raw bytes (or the driver's error) to JSON.

    python3 tools/device/probe_tmap_layout.py --out tmap_layout.json

What ptxvm.tensor_map's byte layout and tensormap.replace follow (docs/hardware-notes.md).
Needs cuda-bindings and CuPy (for a real device address).
"""
from __future__ import annotations

import argparse
import json

import numpy as np

DTYPES = ["UINT8", "UINT16", "UINT32", "INT32", "UINT64", "INT64", "FLOAT16", "FLOAT32", "FLOAT64", "BFLOAT16",
          "FLOAT32_FTZ", "TFLOAT32", "TFLOAT32_FTZ"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--box-limits", action="store_true", help="only the box-size trials")
    a = ap.parse_args(argv)
    import cupy as cp
    from cuda.bindings import driver as d
    buf = cp.zeros(1 << 22, cp.uint8)
    base_addr = int(buf.data.ptr)
    u64, u32 = d.cuuint64_t, d.cuuint32_t
    base = dict(dtype="FLOAT32", rank=2, addr=base_addr, dims=[48, 40], strides=[192], box=[16, 8], es=[1, 1],
                interleave="NONE", swizzle="NONE", l2="NONE", oob="NONE")

    def tiled(p):
        err, tm = d.cuTensorMapEncodeTiled(
            getattr(d.CUtensorMapDataType, "CU_TENSOR_MAP_DATA_TYPE_" + p["dtype"]), p["rank"], p["addr"],
            [u64(x) for x in p["dims"]], [u64(x) for x in p["strides"]], [u32(x) for x in p["box"]],
            [u32(x) for x in p["es"]], getattr(d.CUtensorMapInterleave, "CU_TENSOR_MAP_INTERLEAVE_" + p["interleave"]),
            getattr(d.CUtensorMapSwizzle, "CU_TENSOR_MAP_SWIZZLE_" + p["swizzle"]),
            getattr(d.CUtensorMapL2promotion, "CU_TENSOR_MAP_L2_PROMOTION_" + p["l2"]),
            getattr(d.CUtensorMapFloatOOBfill, "CU_TENSOR_MAP_FLOAT_OOB_FILL_" + p["oob"]))
        return err, tm

    trials = []

    def t(name, **kw):
        p = dict(base, **kw)
        trials.append((name, "tiled", p))

    t("base")
    for dt in DTYPES:
        t(f"dtype_{dt}", dtype=dt, box=[16, 8] if dt not in ("UINT64", "INT64", "FLOAT64") else [8, 8])
    for sw, w in (("32B", 8), ("64B", 16), ("128B", 32)):
        t(f"swizzle_{sw}", swizzle=sw, box=[w, 8])
    for l2 in ("L2_64B", "L2_128B", "L2_256B"):
        t(f"l2_{l2}", l2=l2)
    t("oob_nan", oob="NAN_REQUEST_ZERO_FMA")
    t("interleave_16B", interleave="16B", rank=3, dims=[4, 48, 40], strides=[64, 64 * 48], box=[4, 16, 8], es=[1, 1, 1])
    t("interleave_32B", interleave="32B", swizzle="32B", rank=3, dims=[8, 48, 40], strides=[64, 64 * 48],
      box=[8, 16, 8], es=[1, 1, 1])
    t("addr_plus16", addr=base_addr + 16)
    t("addr_plus_4096_plus_48", addr=base_addr + 4096 + 48)
    t("addr_high", addr=0x7FFF_FFFF_FFF0)
    t("addr_low", addr=0x10)
    t("stride_2e36_plus16", strides=[(1 << 36) + 16])
    t("stride_max", strides=[(1 << 40) - 16])
    t("stride_4112", strides=[4112])
    # a zero stride: CUTLASS 3.x gives a batch of one (L = 1) stride 0; and a broadcast dimension
    t("stride_0_size1", rank=3, dims=[48, 40, 1], strides=[192, 0], box=[16, 8, 1], es=[1, 1, 1])
    t("stride_0_broadcast", strides=[0])
    t("stride_0_mid", rank=3, dims=[48, 40, 7], strides=[0, 192], box=[16, 8, 3], es=[1, 1, 1])
    t("stride_16_overlapping", strides=[16])
    t("dim_2e32", dims=[48, 1 << 32])
    t("dim_2e31_plus5", dims=[(1 << 31) + 5, 40], strides=[(1 << 33) + 32])
    t("dims_odd", dims=[37, 29], strides=[160])
    t("box_256", box=[256, 256], dims=[300, 300], strides=[1216])
    t("box_1", box=[4, 1])
    for k in range(1, 9):
        t(f"es_{k}_1", es=[k, 1])
        t(f"es_1_{k}", es=[1, k])
    t("rank1", rank=1, dims=[100], strides=[400], box=[16], es=[1])
    t("rank3", rank=3, dims=[48, 40, 7], strides=[192, 192 * 40], box=[16, 8, 3], es=[1, 2, 3])
    t("rank4", rank=4, dims=[48, 40, 7, 5], strides=[192, 192 * 40, 192 * 280], box=[16, 8, 3, 2], es=[1, 2, 3, 4])
    t("rank5", rank=5, dims=[48, 40, 7, 5, 3], strides=[192, 7680, 53760, 268800], box=[16, 8, 3, 2, 5],
      es=[1, 2, 3, 4, 5])
    t("rank5_strides", rank=5, dims=[16, 3, 3, 3, 3], strides=[1 << 20, 1 << 24, (1 << 28) + 16, (1 << 32) + 48],
      box=[16, 2, 2, 2, 2], es=[1, 1, 1, 1, 1])
    if a.box_limits:  # which boxes the driver refuses (innermost bytes, total bytes)
        trials = []
        for dt, size in (("FLOAT32", 4), ("UINT8", 1), ("UINT16", 2), ("FLOAT64", 8)):
            for inner in (16, 32, 64, 128, 256):
                for outer in (1, 8, 256):
                    if inner * size % 16:
                        continue
                    t(f"box_{dt}_{inner}x{outer}", dtype=dt, dims=[512, 512], strides=[512 * size],
                      box=[inner, outer])
    results = {}
    for name, kind, p in trials:
        try:
            err, tm = tiled(p)
            r = {"params": {k: (v if k != "addr" else hex(v)) for k, v in p.items()}, "result": str(err)}
            if int(err) == 0:
                r["bytes"] = np.array([int(x) for x in tm.opaque], np.uint64).tobytes().hex()
        except Exception as e:  # noqa: BLE001
            r = {"params": {k: (v if k != "addr" else hex(v)) for k, v in p.items()}, "result": f"{type(e).__name__}: {e}"}
        results[name] = r
    for name, (rank, dims, strides, lower, upper, ch, px) in {
            "im2col_3d": (3, [16, 10, 2], [64, 640], [-1], [1], 16, 8),
            "im2col_4d": (4, [8, 6, 5, 2], [32, 192, 960], [-2, -1], [0, 1], 8, 12),
            "im2col_5d": (5, [8, 4, 4, 3, 2], [32, 128, 512, 1536], [-1, -2, -3], [2, 1, 0], 4, 20)}.items():
        if a.box_limits:
            break
        try:
            err, tm = d.cuTensorMapEncodeIm2col(
                d.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_FLOAT32, rank, base_addr, [u64(x) for x in dims],
                [u64(x) for x in strides], lower, upper, u32(ch), u32(px), [u32(1)] * rank,
                d.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE, d.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_NONE,
                d.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_NONE,
                d.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
            r = {"params": {"rank": rank, "addr": hex(base_addr), "dims": dims, "strides": strides, "lower": lower,
                            "upper": upper, "channels": ch, "pixels": px}, "result": str(err)}
            if int(err) == 0:
                r["bytes"] = np.array([int(x) for x in tm.opaque], np.uint64).tobytes().hex()
        except Exception as e:  # noqa: BLE001
            r = {"result": f"{type(e).__name__}: {e}"}
        results[name] = r
    with open(a.out, "w") as f:
        json.dump(results, f, indent=1)
    print(f"{sum('bytes' in r for r in results.values())}/{len(results)} maps encoded")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
