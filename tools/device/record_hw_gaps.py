#!/usr/bin/env python3
"""Record goldens for the warp-synchronous-with-exited-lanes and video probes of
tests/engine/hw_gap_probes.py on a real GPU (CuPy; the driver JIT-compiles each probe's PTX).

    python3 tools/device/record_hw_gaps.py OUTDIR [--out-name hw_gaps]

OUTDIR/<out-name>.npz holds <probe>.out ((n, 2) u32 per probe); <out-name>.meta.json the device,
and per probe its status and the sha256 of its PTX and inputs (the replay regenerates both from the
probe list and checks the digests). Every probe runs in its own try block.
"""
import datetime, hashlib, json, os, sys, tempfile, traceback
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "engine"))
import hw_gap_probes as HP  # noqa: E402


def main():
    import cupy as cp
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    name = sys.argv[sys.argv.index("--out-name") + 1] if "--out-name" in sys.argv else "hw_gaps"
    try:
        import record as R
        info = R.device_info()
    except Exception:
        info = {"gpu": str(cp.cuda.runtime.getDeviceProperties(0)["name"])}
    arrays, meta = {}, {"device": info, "recorder": "tools/device/record_hw_gaps.py",
                        "date": datetime.datetime.utcnow().isoformat() + "Z", "probes": {}}
    for p in HP.probes():
        nm = p["name"]
        ptx = HP.probe_ptx(p)
        inp = np.ascontiguousarray(p["inp"], np.uint32)
        m = {"kind": p["kind"], "instr": p["instr"], "ptx_sha256": hashlib.sha256(ptx.encode()).hexdigest(),
             "inp_sha256": hashlib.sha256(inp.tobytes()).hexdigest()}
        try:
            path = os.path.join(tempfile.mkdtemp(), "k.ptx")
            with open(path, "w") as f:
                f.write(ptx)
            fn = cp.RawModule(path=path).get_function("probe")
            n = inp.shape[0]
            di = cp.asarray(inp)
            o = cp.full(2 * n, 0x55555555, np.uint32)
            fn(((n + 127) // 128,), (128,), (di, o, np.int32(n)))
            cp.cuda.runtime.deviceSynchronize()
            arrays[f"{nm}.out"] = cp.asnumpy(o).reshape(n, 2)
            m["status"] = "ok"
        except Exception as e:
            m["status"] = f"failed: {e}"[:400]
            print("probe", nm, "FAILED", traceback.format_exc()[-600:].replace("\n", " | "), flush=True)
            try:
                cp.cuda.runtime.deviceSynchronize()
            except Exception:
                meta["probes"][nm] = m
                print("context lost; stopping", flush=True)
                break
        meta["probes"][nm] = m
        save(out, name, arrays, meta)  # after every probe: a hang later loses nothing recorded
    save(out, name, arrays, meta)
    print("recorded", sum(v["status"] == "ok" for v in meta["probes"].values()), "of", len(meta["probes"]), flush=True)


def save(out, name, arrays, meta):
    np.savez_compressed(os.path.join(out, name + ".npz"), **arrays)
    with open(os.path.join(out, name + ".meta.json"), "w") as f:
        json.dump(meta, f, indent=1, default=str)


if __name__ == "__main__":
    main()
