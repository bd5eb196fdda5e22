#!/usr/bin/env python3
"""GPU experiments for wmma with column-major C and D (wmma.load.c ... .col, wmma.store.d ...
.col) in every shape and type, with leading dimensions larger than the matrix (padding), and
every A/B layout pair where the ISA allows both.

    python3 tools/device/wmma_colcd_probe.py --out DIR [--dry-run]

Output format as tools/device/mma_probe.py (DIR/wmma_colcd.npz/.json).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mma_probe as MP  # noqa: E402

L = MP.L


def run_colcd(P, name, cfg, al, bl, op, rng, W=1, cd=("col", "col")):
    shape, at, bt, ct, dt = cfg
    M, N, K = L.parse_shape(shape)
    (sa, sb, _), (za, zb, _, _) = MP.wmma_strides(shape, at, ct, al, bl)
    cpad = {16: 8, 32: 4, 64: 4}[L.BITS[ct]]
    nbytes = lambda rows, stride, b: -(-(rows * stride * b) // 8)
    sc = max(M, N) + cpad
    rows = max(M, N)
    sizes = [za, zb, nbytes(rows, sc, L.BITS[ct]), nbytes(rows, sc, L.BITS[dt])]
    sizes = tuple(-(-s // 256) * 256 for s in sizes)
    kname = "wc_" + hashlib.sha1(repr((cfg, al, bl, op, cd)).encode()).hexdigest()[:10]
    instr, body, (na, nb_, nc, nd), rb = MP.wmma_kernel(kname, shape, at, bt, ct, dt, al, bl, op, sizes, (sa, sb, sc))
    body = body.replace("wmma.load.c.sync.aligned.row.", f"wmma.load.c.sync.aligned.{cd[0]}.")
    body = body.replace("wmma.store.d.sync.aligned.row.", f"wmma.store.d.sync.aligned.{cd[1]}.")
    ptx = MP.HEAD.format(ver="8.7") + body
    a, b, c = MP._wmma_random(rng, cfg, W)
    ia = np.concatenate([MP._mem_image(a[w], al, sa, at, sizes[0]) for w in range(W)])
    ib = np.concatenate([MP._mem_image(b[w], bl, sb, bt, sizes[1]) for w in range(W)])
    ic = np.concatenate([MP._mem_image(c[w], cd[0], sc, ct, sizes[2]) for w in range(W)])
    pd = np.full(W * sizes[3], 0xA5, np.uint8)
    dt_r = lambda x: np.uint64 if rb[x] == 64 else np.uint32
    regs = {x: np.zeros((W, 32, n), dt_r(x)) for x, n in (("a", na), ("b", nb_), ("c", nc), ("d", nd))}
    ins = {x: np.zeros((W, 32, n), dt_r(x)) for x, n in (("a", na), ("b", nb_), ("c", nc))}
    meta = {"kind": "wmma", "instruction": instr, "shape": shape, "types": [at, bt, ct, dt], "alayout": al,
            "blayout": bl, "clayout": cd[0], "dlayout": cd[1], "op": op, "strides": [sa, sb, sc], "warps": W,
            "generator": "random"}
    P.launch(name, meta, ptx, kname, 1, 32 * W, [ia, ib, ic, pd, regs["a"], regs["b"], regs["c"], regs["d"],
                                                  ins["a"], ins["b"], ins["c"]],
             ["pa", "pb", "pc", "pd", "ra", "rb", "rc", "rd", "ia", "ib", "ic"], keep={"pd", "rd"})


COMPACT = {("m16n16k16", "f16", "f32", "f32"), ("m16n16k16", "f16", "f16", "f16"), ("m8n32k16", "bf16", "f32", "f32"),
           ("m32n8k16", "s8", "s32", "s32"), ("m16n16k8", "tf32", "f32", "f32"), ("m8n8k4", "f64", "f64", "f64"),
           ("m8n8k32", "s4", "s32", "s32")}


def experiments(P, rng, compact=False):
    for shape, at, bt, ct, dt, als, bls, ops in MP.WMMA_CONFIGS:
        cfg = (shape, at, bt, ct, dt)
        if compact and (shape, at, ct, dt) not in COMPACT:
            continue
        mixed = shape == "m16n16k16" and at == "f16" and ct == "f32"
        for cd in (("col", "col"), ("col", "row"), ("row", "col")) if mixed else (("col", "col"),):
            run_colcd(P, f"wmma/colcd/{shape}.{at}.{ct}.{dt}.{als[0]}.{bls[-1]}.{ops[0]}.{cd[0]}{cd[1]}", cfg, als[0],
                      bls[-1], ops[0], rng, cd=cd)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--name", default="wmma_colcd")
    ap.add_argument("--compact", action="store_true")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    backend = MP.PtxvmBackend() if a.dry_run else MP.CupyBackend()
    P = MP.Probe(backend)
    t0 = time.time()
    try:
        experiments(P, np.random.default_rng(77), a.compact)
    except Exception:  # noqa: BLE001
        traceback.print_exc()
    arrays = dict(P.arrays)
    for k, ptx in P.ptx.items():
        arrays[f"ptx|{k}"] = np.frombuffer(ptx.encode(), np.uint8)
    np.savez_compressed(os.path.join(a.out, f"{a.name}.npz"), **arrays)
    meta = {"format": 1, "script": "tools/device/wmma_colcd_probe.py", "device": MP.device_info(backend),
            "seconds": round(time.time() - t0, 1), "experiments": P.meta}
    with open(os.path.join(a.out, f"{a.name}.json"), "w") as f:
        json.dump(meta, f, indent=1)
    print(f"{sum(m['status'] == 'recorded' for m in P.meta.values())}/{len(P.meta)} recorded in {time.time() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
