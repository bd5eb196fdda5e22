"""Run the ADVANCED_CASES that tools/device/record_kernels.py cannot launch
(texture and surface objects, launch-time cluster dimensions) on a GPU with
CuPy, and save every output to OUTDIR/<case>.npz (arg<i>.out).

    python3 tests/kernels/run_advanced_on_gpu.py OUTDIR [CASE ...]

It is also the reference for what the Texture / Surface specs of cases.py
mean: 2D float textures live in CUDA arrays (cudaArraySurfaceLoadStore), 1D
"linear" textures in linear memory; the kernel parameter is the 64-bit object
handle.  Checked on an H100/H200 (CuPy 14): all five cases ran and matched
NumPy references.
"""
import ctypes, os, sys, traceback
import numpy as np, cupy as cp
from cupy.cuda import texture as T, runtime as rt
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as C
AM = {"clamp": rt.cudaAddressModeClamp, "wrap": rt.cudaAddressModeWrap,
      "mirror": rt.cudaAddressModeMirror, "border": rt.cudaAddressModeBorder}
FM = {"point": rt.cudaFilterModePoint, "linear": rt.cudaFilterModeLinear}

def chdesc(a):
    ch = a.shape[-1] if a.ndim == 3 else 1
    bits = [32 if i < ch else 0 for i in range(4)]
    return T.ChannelFormatDescriptor(*bits, rt.cudaChannelFormatKindFloat), ch

def make_array(a):
    a = np.ascontiguousarray(a, np.float32)
    if a.ndim == 2: a = a[:, :, None]
    d, ch = chdesc(a)
    h, w = a.shape[:2]
    arr = T.CUDAarray(d, w, h, 0, rt.cudaArraySurfaceLoadStore)
    a = np.ascontiguousarray(a)
    rt.memcpy2DToArray(arr.ptr, 0, 0, a.ctypes.data, w * ch * 4, w * ch * 4, h, rt.memcpyHostToDevice)
    return arr, ch

def cluster_launch(fn_ptr, grid, block, cluster, args):
    cuda = ctypes.CDLL("libcuda.so.1")
    class Attr(ctypes.Structure):
        _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("val", ctypes.c_uint * 16)]
    class Cfg(ctypes.Structure):
        _fields_ = [("gx", ctypes.c_uint), ("gy", ctypes.c_uint), ("gz", ctypes.c_uint),
                    ("bx", ctypes.c_uint), ("by", ctypes.c_uint), ("bz", ctypes.c_uint),
                    ("smem", ctypes.c_uint), ("stream", ctypes.c_void_p),
                    ("attrs", ctypes.POINTER(Attr)), ("nattrs", ctypes.c_uint)]
    at = Attr(); at.id = 4  # CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
    at.val[0], at.val[1], at.val[2] = cluster
    cfg = Cfg(*grid, *block, 0, None, ctypes.pointer(at), 1)
    bufs = [ctypes.c_uint64(a) for a in args]
    params = (ctypes.c_void_p * len(bufs))(*[ctypes.cast(ctypes.byref(b), ctypes.c_void_p) for b in bufs])
    r = cuda.cuLaunchKernelEx(ctypes.byref(cfg), ctypes.c_void_p(fn_ptr), params, None)
    assert r == 0, f"cuLaunchKernelEx -> {r}"

def main(out, names):
    os.makedirs(out, exist_ok=True)
    for c in C.ADVANCED_CASES:
        if names and c.name not in names: continue
        if c.feature not in ("texture", "surface") and c.cluster is None: continue
        try:
            mod = cp.RawModule(path=C.ptx_path(c).as_posix())
            fn = mod.get_function(c.kernel)
            vals = C.materialize(c, 0)
            kargs, outs, keep = [], {}, []
            for i, (spec, v) in enumerate(zip(c.args, vals)):
                if isinstance(spec, C.Texture):
                    if spec.linear:
                        d = cp.asarray(v.astype(np.float32)); keep.append(d)
                        res = T.ResourceDescriptor(rt.cudaResourceTypeLinear, arr=d,
                            chDesc=T.ChannelFormatDescriptor(32, 0, 0, 0, rt.cudaChannelFormatKindFloat),
                            sizeInBytes=d.nbytes)
                    else:
                        arr, _ = make_array(v); keep.append(arr)
                        res = T.ResourceDescriptor(rt.cudaResourceTypeArray, cuArr=arr)
                    td = T.TextureDescriptor((AM[spec.address_mode],) * 2, FM[spec.filter_mode],
                                             rt.cudaReadModeElementType, normalizedCoords=int(spec.normalized_coords))
                    to = T.TextureObject(res, td); keep.append(to)
                    kargs.append(np.uint64(to.ptr))
                elif isinstance(spec, C.Surface):
                    arr, ch = make_array(v); keep.append(arr)
                    so = T.SurfaceObject(T.ResourceDescriptor(rt.cudaResourceTypeArray, cuArr=arr)); keep.append(so)
                    outs[i] = (arr, v); kargs.append(np.uint64(so.ptr))
                elif isinstance(spec, (C.In, C.Out, C.InOut)):
                    d = cp.asarray(v); kargs.append(d); outs[i] = (d, v) if not isinstance(spec, C.In) else None
                else:
                    kargs.append(v)
            if c.cluster is not None:
                cluster_launch(fn.kernel.ptr, c.grid, c.block, c.cluster, [a.data.ptr if isinstance(a, cp.ndarray) else int(a) for a in kargs])
            else:
                fn(c.grid, c.block, tuple(kargs), shared_mem=c.shared_bytes)
            cp.cuda.runtime.deviceSynchronize()
            res = {}
            for i, o in outs.items():
                if o is None: continue
                d, v = o
                if isinstance(d, T.CUDAarray):
                    h = np.empty(v.shape, np.float32)
                    wb = h.nbytes // v.shape[0]
                    rt.memcpy2DFromArray(h.ctypes.data, wb, d.ptr, 0, 0, wb, v.shape[0], rt.memcpyDeviceToHost)
                    res[f"arg{i}.out"] = h
                else:
                    res[f"arg{i}.out"] = cp.asnumpy(d)
            np.savez(os.path.join(out, c.name + ".npz"), **res)
            print("recorded", c.name, {k: (v.shape, float(np.nan_to_num(v).sum())) for k, v in res.items()}, flush=True)
        except Exception:
            print("FAILED", c.name, traceback.format_exc()[-1500:], flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
