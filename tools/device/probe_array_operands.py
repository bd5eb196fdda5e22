#!/usr/bin/env python3
"""Record what the H200 does with array elements indexed by a register (`tab[%r]`, `tab[%rd+1]`,
`vtab[%r]` of a .v4 array, `tab[%h+8]` with a negative .s16, .const/.b8/.shared arrays, `mov.u64 a,
tab[%r]`, and an index whose byte offset passes 2^32): the kernels of tests/engine/
array_operand_probe.py, run through CuPy (the driver JIT-compiles the PTX).

    python3 tools/device/probe_array_operands.py OUTDIR

OUTDIR/array_operands.npz holds probe.out ((64, 8) u32) and wrap.out ((32,) u32);
array_operands.meta.json the device, each kernel's status and the sha256 of the PTX and inputs
(the replay test recomputes both). `wrap` runs last: if the hardware took the offset in 64 bits
it would fault, and a fault ends the context.
"""
import datetime, hashlib, json, os, sys, tempfile, traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "engine"))
import array_operand_probe as P  # noqa: E402


def main():
    import cupy as cp
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    try:
        import record as R
        info = R.device_info()
    except Exception:
        info = {"gpu": str(cp.cuda.runtime.getDeviceProperties(0)["name"])}
    meta = {"device": info, "recorder": "tools/device/probe_array_operands.py",
            "date": datetime.datetime.utcnow().isoformat() + "Z",
            "ptx_sha256": hashlib.sha256(P.PTX.encode()).hexdigest(), "kernels": {}}
    arrays = {}
    path = os.path.join(tempfile.mkdtemp(), "array_operands.ptx")
    with open(path, "w") as f:
        f.write(P.PTX)
    mod = cp.RawModule(path=path)
    runs = [("probe", P.probe_inputs(), (P.THREADS, 8)), ("wrap", P.wrap_inputs(), (32,))]
    for name, inp, shape in runs:
        m = {"inp_sha256": hashlib.sha256(np.ascontiguousarray(inp).tobytes()).hexdigest()}
        try:
            o = cp.full(shape, 0x55555555, np.uint32)
            mod.get_function(name)((1,), (shape[0],), (cp.asarray(inp), o))
            cp.cuda.runtime.deviceSynchronize()
            arrays[f"{name}.out"] = cp.asnumpy(o)
            m["status"] = "ok"
        except Exception as e:
            m["status"] = f"failed: {e}"[:400]
            print(name, "FAILED", traceback.format_exc()[-600:].replace("\n", " | "), flush=True)
        meta["kernels"][name] = m
    np.savez_compressed(os.path.join(out, "array_operands.npz"), **arrays)
    with open(os.path.join(out, "array_operands.meta.json"), "w") as f:
        json.dump(meta, f, indent=1, default=str)
    print(json.dumps(meta["kernels"]), flush=True)
    for k, v in arrays.items():
        print(k, v.reshape(-1)[:24].tolist(), flush=True)


if __name__ == "__main__":
    main()
