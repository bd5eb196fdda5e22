#!/usr/bin/env python3
"""Record goldens for layered, cube, cubemap-array, mipmapped and depth-compare texturing, texture
offsets, formatted surface stores/reductions and surface boundary modes on a real GPU.

    python3 tools/device/record_textures_ext.py OUTDIR [--only NAME,...] [--out-name texture_ext] [--compact]
                                                       [--probes texture_filter_probes]

Arrays and texture/surface objects go through the driver API (tools/device/cudriver_textures.py:
cuArray3DCreate with layered/cubemap/depth flags, cuMipmappedArrayCreate, cuTexObjectCreate);
kernels are launched with CuPy. Each probe is one instruction in a kernel that reads eight b32
inputs per thread (%c0..%c7) and stores four b32 results (%o0..%o3); surface probes also read the
array back. OUTDIR/<out-name>.npz holds <probe>.data (or .L<k> per mip level), .inp (n, 8) u32,
.out (n, 4) u32, .after and .ptx; <out-name>.meta.json the descriptor of each probe and the sha256
of its inputs, texture data and PTX (with --compact none of them is stored: the replay regenerates
them from the probe list and checks the digests; outputs and surfaces' final contents are stored). The probes
themselves are defined in tests/engine/texture_ext_probes.py (shared with the replay tests).
"""
import datetime, hashlib, importlib, json, os, sys, traceback
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "engine"))
# the probe list: texture_ext_probes (default) or another module of tests/engine (--probes NAME)
TP = importlib.import_module(sys.argv[sys.argv.index("--probes") + 1] if "--probes" in sys.argv
                             else "texture_ext_probes")


def run_ref_probe(p, cp, D):
    """A probe on a module-level .texref/.surfref (unified mode), bound through the driver's
    (deprecated) reference API and launched with cuLaunchKernel."""
    import ctypes
    from cuda.bindings import driver as cu
    ptx = TP.probe_ptx(p)
    mod = D.ck(cu.cuModuleLoadData(ptx.encode() + b"\0"))
    fn = D.ck(cu.cuModuleGetFunction(mod, b"probe"))
    geom, desc = p["geom"], p.get("desc", {})
    if p["ref"] == "texref":
        tr = D.ck(cu.cuModuleGetTexRef(mod, b"ref0"))
        arr = D.make_array(p["data"], geom)
        D.ck(cu.cuTexRefSetArray(tr, arr, cu.CU_TRSA_OVERRIDE_FORMAT))
        D.ck(cu.cuTexRefSetFilterMode(tr, {"point": cu.CUfilter_mode.CU_TR_FILTER_MODE_POINT,
                                           "linear": cu.CUfilter_mode.CU_TR_FILTER_MODE_LINEAR}[desc.get("filter_mode", "point")]))
        am = desc.get("address_mode", "clamp")
        for dim in range(2):
            D.ck(cu.cuTexRefSetAddressMode(tr, dim, getattr(cu.CUaddress_mode, "CU_TR_ADDRESS_MODE_" + am.upper())))
        D.ck(cu.cuTexRefSetFlags(tr, cu.CU_TRSF_NORMALIZED_COORDINATES if desc.get("normalized_coords") else 0))
    else:
        sr = D.ck(cu.cuModuleGetSurfRef(mod, b"ref0"))
        arr = D.make_array(p["data"], geom, cu.CUDA_ARRAY3D_SURFACE_LDST)
        D.ck(cu.cuSurfRefSetArray(sr, arr, 0))
    inp = np.ascontiguousarray(p["inp"], np.uint32)
    n = inp.shape[0]
    di = cp.asarray(inp)
    o = cp.zeros(4 * n, np.uint32)
    vals = [ctypes.c_uint64(0), ctypes.c_uint64(di.data.ptr), ctypes.c_uint64(o.data.ptr), ctypes.c_uint32(n)]
    ptrs = (ctypes.c_void_p * 4)(*[ctypes.addressof(v) for v in vals])
    D.ck(cu.cuLaunchKernel(fn, (n + 127) // 128, 1, 1, 128, 1, 1, 0, cu.CUstream(0), ctypes.addressof(ptrs), 0))
    D.ck(cu.cuCtxSynchronize())
    res = {"out": cp.asnumpy(o).reshape(n, 4), "ptx": np.frombuffer(ptx.encode(), np.uint8)}
    if p["kind"] == "surface":
        res["after"] = D.read_array(arr, p["data"], geom)
    return res


def run_probe(p, cp, D):
    if p.get("ref"):
        return run_ref_probe(p, cp, D)
    import tempfile
    path = os.path.join(tempfile.mkdtemp(), "k.ptx")
    ptx = TP.probe_ptx(p)
    with open(path, "w") as f:
        f.write(ptx)
    fn = cp.RawModule(path=path).get_function("probe")
    keep = []
    geom = p["geom"]
    desc = p.get("desc", {})
    if p["kind"] == "texture":
        if "levels" in p:
            res = D.make_mipmapped(p["levels"], geom, p.get("array_flags", 0))
            dt, nl = p["levels"][0].dtype, len(p["levels"])
        else:
            res = D.make_array(p["data"], geom, p.get("array_flags", 0), p.get("fmt"))
            dt, nl = p["data"].dtype, 1
        keep.append(res)
        handle = int(D.texture_object(res, desc, geom, dt, nl))
    else:
        import cuda.bindings.driver as cu
        arr = D.make_array(p["data"], geom, cu.CUDA_ARRAY3D_SURFACE_LDST, p.get("fmt"))
        keep.append(arr)
        handle = int(D.surface_object(arr))
    inp = np.ascontiguousarray(p["inp"], np.uint32)
    n = inp.shape[0]
    di = cp.asarray(inp)
    o = cp.zeros(4 * n, np.uint32)
    fn(((n + 127) // 128,), (128,), (np.uint64(handle), di, o, np.int32(n)))
    cp.cuda.runtime.deviceSynchronize()
    res = {"out": cp.asnumpy(o).reshape(n, 4), "ptx": np.frombuffer(ptx.encode(), np.uint8)}
    if p["kind"] == "surface":
        res["after"] = D.read_array(arr, p["data"], geom)
    return res


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    only = None
    if "--only" in sys.argv:
        only = set(sys.argv[sys.argv.index("--only") + 1].split(","))
    name = sys.argv[sys.argv.index("--out-name") + 1] if "--out-name" in sys.argv else "texture_ext"
    import cupy as cp
    cp.zeros(1)  # the primary context, current on this thread
    import cudriver_textures as D
    D.ensure_context()
    try:
        import record as R
        info = R.device_info()
    except Exception:
        info = {"gpu": str(cp.cuda.runtime.getDeviceProperties(0)["name"])}
    arrays, meta = {}, {"device": info, "recorder": "tools/device/record_textures_ext.py",
                        "date": datetime.datetime.utcnow().isoformat() + "Z", "probes": {}}
    for p in TP.probes():
        if only and p["name"] not in only:
            continue
        nm = p["name"]
        m = {k: v for k, v in p.items() if k in ("kind", "geom", "desc", "instr", "fmt", "array_flags", "ref")}
        try:
            r = run_probe(p, cp, D)
            m["ptx_sha256"] = hashlib.sha256(r["ptx"].tobytes()).hexdigest()
            for k, v in r.items():
                if k == "ptx" and "--compact" in sys.argv:
                    continue
                arrays[f"{nm}.{k}"] = v
            srcs = p["levels"] if "levels" in p else [p["data"]]
            m["data_sha256"] = hashlib.sha256(b"".join(np.ascontiguousarray(a).tobytes() for a in srcs)).hexdigest()
            if "--compact" not in sys.argv:
                if "levels" in p:
                    for i, lv in enumerate(p["levels"]):
                        arrays[f"{nm}.L{i}"] = lv
                else:
                    arrays[f"{nm}.data"] = p["data"]
            inp = np.ascontiguousarray(p["inp"], np.uint32)
            m["inp_sha256"] = hashlib.sha256(inp.tobytes()).hexdigest()
            if "--compact" not in sys.argv:  # compact: the replay regenerates the inputs (digest checked)
                arrays[f"{nm}.inp"] = inp
            m["status"] = "ok"
            print("probe", nm, "ok", flush=True)
        except Exception as e:
            m["status"] = f"failed: {e}"[:400]
            print("probe", nm, "FAILED", traceback.format_exc()[-800:].replace("\n", " | "), flush=True)
            try:
                cp.cuda.runtime.deviceSynchronize()
            except Exception:
                print("context lost; stopping", flush=True)
                meta["probes"][nm] = m
                break
        meta["probes"][nm] = m
    np.savez_compressed(os.path.join(out, name + ".npz"), **arrays)
    with open(os.path.join(out, name + ".meta.json"), "w") as f:
        json.dump(meta, f, indent=1, default=str)


if __name__ == "__main__":
    main()
