#!/usr/bin/env python3
"""Record the Triton kernels of tests/frontdoor/triton_cases.py on a real GPU, through Triton's
own launcher (`kernel[grid](*cuda tensors, **meta)`).

    python3 tools/device/record_triton.py --out tests/goldens/frontdoor/triton.npz

Stores, per case, every array argument after the launch (`<case>.arg<i>`), the PTX Triton made
(`<case>.ptx`) and a `meta` JSON string: GPU, driver, triton / torch versions, date, status and the
compiled kernel's metadata (num_warps, shared memory, ...) per case.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import sys

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "frontdoor"))


def to_torch(a, torch):
    import ml_dtypes

    if isinstance(a, np.ndarray):
        if a.dtype == ml_dtypes.bfloat16:
            return torch.from_numpy(a.view(np.uint16).copy()).view(torch.bfloat16).cuda()
        if a.dtype == ml_dtypes.float8_e4m3fn:
            return torch.from_numpy(a.view(np.uint8).copy()).view(torch.float8_e4m3fn).cuda()
        if a.dtype == ml_dtypes.float8_e5m2:
            return torch.from_numpy(a.view(np.uint8).copy()).view(torch.float8_e5m2).cuda()
        return torch.from_numpy(a.copy()).cuda()
    return a


def to_numpy(t, like):
    import ml_dtypes

    import torch

    if like.dtype == ml_dtypes.bfloat16:
        return t.view(torch.uint16).cpu().numpy().view(ml_dtypes.bfloat16)
    if like.dtype in (ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2):
        return t.view(torch.uint8).cpu().numpy().view(like.dtype)
    return t.cpu().numpy()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--case", action="append")
    ap.add_argument("--merge", help="an earlier recording whose cases this run adds to or replaces")
    a = ap.parse_args()
    import torch
    import triton

    import triton_cases as C

    out, status, kmeta = {}, {}, {}
    for case in C.CASES:
        if a.case and case.name not in a.case:
            continue
        args = C.inputs(case)
        targs = [to_torch(v, torch) for v in args]
        try:
            from triton.tools.tensor_descriptor import TensorDescriptor

            blocks = C.DESCRIPTOR_BLOCKS.get(case.name, [])
            launch = [TensorDescriptor.from_tensor(t, b) if b else t for t, b in zip(targs, blocks + [None] * len(targs))]
            triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
            compiled = case.kernel[case.grid](*launch, **C.launch_meta(case))
            torch.cuda.synchronize()
            for i, (v, t) in enumerate(zip(args, targs)):
                if isinstance(v, np.ndarray):
                    out[f"{case.name}.arg{i}"] = to_numpy(t, v)
            out[f"{case.name}.ptx"] = np.frombuffer(compiled.asm["ptx"].encode(), np.uint8)
            md = compiled.metadata
            kmeta[case.name] = {k: (v if isinstance(v, (int, float, str, bool, type(None))) else repr(v))
                                for k, v in (md._asdict() if hasattr(md, "_asdict") else vars(md)).items()}
            status[case.name] = "ok"
        except Exception as e:  # noqa: BLE001  (record what failed and go on)
            status[case.name] = f"failed: {e!r}"[:500]
        print(case.name, status[case.name], flush=True)

    from record import sh  # the conformance recorder's (tools/device/record.py, beside this file)

    meta = {
        "gpu": sh(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"]),
        "triton": triton.__version__, "torch": torch.__version__, "cuda": torch.version.cuda,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(), "status": status, "kernels": kmeta,
        "recorder": "tools/device/record_triton.py",
    }
    if a.merge:
        old = np.load(a.merge)
        old_meta = json.loads(bytes(old["meta"]).decode())
        redone = set(status)
        for k in old.files:
            if k != "meta" and k.split(".")[0] not in redone:
                out[k] = old[k]
        meta["status"] = {**{k: v for k, v in old_meta["status"].items() if k not in redone}, **status}
        meta["kernels"] = {**{k: v for k, v in old_meta.get("kernels", {}).items() if k not in redone}, **kmeta}
    out["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    np.savez_compressed(a.out, **out)
    print(json.dumps({k: v for k, v in meta.items() if k != "kernels"}, indent=1))


if __name__ == "__main__":
    main()
