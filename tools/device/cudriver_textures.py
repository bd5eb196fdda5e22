"""CUDA arrays, texture objects and surface objects through the driver API (cuda-bindings), for the
recorders: layered, cube, cubemap-array, mipmapped and depth arrays, and the sampler settings the
runtime's TextureDescriptor of CuPy does not reach (mipmap filter, level clamps, trilinear
optimization, seamless cubemaps, read-as-integer, sRGB).

Host data is laid out as ptxvm takes it: `[layer][height][width][channel]` (cube faces are layers
0..5, cubemap arrays cube-major); a mipmapped texture is a list of such arrays, level 0 first.
"""
import numpy as np
from cuda.bindings import driver as cu

_FMT = {np.dtype(np.uint8): "UNSIGNED_INT8", np.dtype(np.uint16): "UNSIGNED_INT16",
        np.dtype(np.uint32): "UNSIGNED_INT32", np.dtype(np.int8): "SIGNED_INT8",
        np.dtype(np.int16): "SIGNED_INT16", np.dtype(np.int32): "SIGNED_INT32",
        np.dtype(np.float16): "HALF", np.dtype(np.float32): "FLOAT"}
_AM = {"wrap": "WRAP", "clamp": "CLAMP", "mirror": "MIRROR", "border": "BORDER"}


def ck(res):
    err = res[0] if isinstance(res, tuple) else res
    if int(err) != 0:
        raise RuntimeError(f"CUDA driver error {err!r}")
    if isinstance(res, tuple):
        return res[1] if len(res) == 2 else res[1:]
    return None


def ensure_context():
    ck(cu.cuInit(0))
    ctx = ck(cu.cuCtxGetCurrent())
    if ctx is None or int(ctx) == 0:
        dev = ck(cu.cuDeviceGet(0))
        ctx = ck(cu.cuDevicePrimaryCtxRetain(dev))
        ck(cu.cuCtxSetCurrent(ctx))


def _shape(a, geom):
    """((width, height, depth or layers), channels) of an array with an explicit channel axis."""
    sp = a.shape[:-1][::-1]
    if geom == "a1d":
        return (sp[0], 0, sp[1]), a.shape[-1]
    return (tuple(sp) + (0, 0, 0))[:3], a.shape[-1]


def geom_flags(geom):
    return {"a1d": cu.CUDA_ARRAY3D_LAYERED, "a2d": cu.CUDA_ARRAY3D_LAYERED, "cube": cu.CUDA_ARRAY3D_CUBEMAP,
            "acube": cu.CUDA_ARRAY3D_CUBEMAP | cu.CUDA_ARRAY3D_LAYERED}.get(geom, 0)


def array_desc(a, geom, flags=0, fmt=None):
    (w, h, d), ch = _shape(a, geom)
    flags |= geom_flags(geom)
    desc = cu.CUDA_ARRAY3D_DESCRIPTOR()
    desc.Width, desc.Height, desc.Depth = w, h, d
    desc.Format = getattr(cu.CUarray_format, "CU_AD_FORMAT_" + (fmt or _FMT[a.dtype]))
    desc.NumChannels = ch
    desc.Flags = flags
    return desc


def _copy(arr, a, geom, to_host=False):
    (w, h, d), ch = _shape(a, geom)
    p = cu.CUDA_MEMCPY3D()
    row = w * ch * a.dtype.itemsize
    if to_host:
        p.srcMemoryType = cu.CUmemorytype.CU_MEMORYTYPE_ARRAY
        p.srcArray = arr
        p.dstMemoryType = cu.CUmemorytype.CU_MEMORYTYPE_HOST
        p.dstHost = a.ctypes.data
        p.dstPitch, p.dstHeight = row, max(h, 1)
    else:
        p.dstMemoryType = cu.CUmemorytype.CU_MEMORYTYPE_ARRAY
        p.dstArray = arr
        p.srcMemoryType = cu.CUmemorytype.CU_MEMORYTYPE_HOST
        p.srcHost = a.ctypes.data
        p.srcPitch, p.srcHeight = row, max(h, 1)
    p.WidthInBytes, p.Height, p.Depth = row, max(h, 1), max(d, 1)
    ck(cu.cuMemcpy3D(p))


def make_array(a, geom, flags=0, fmt=None):
    a = np.ascontiguousarray(a)
    arr = ck(cu.cuArray3DCreate(array_desc(a, geom, flags, fmt)))
    _copy(arr, a, geom)
    return arr


def read_array(arr, like, geom):
    out = np.empty_like(np.ascontiguousarray(like))
    _copy(arr, out, geom, to_host=True)
    ck(cu.cuCtxSynchronize())
    return out


def make_mipmapped(levels, geom, flags=0):
    levels = [np.ascontiguousarray(x) for x in levels]
    mip = ck(cu.cuMipmappedArrayCreate(array_desc(levels[0], geom, flags), len(levels)))
    for i, lv in enumerate(levels):
        _copy(ck(cu.cuMipmappedArrayGetLevel(mip, i)), lv, geom)
    return mip


def texture_object(res, desc, geom, dtype, nlevels=1):
    """res: a CUarray or CUmipmappedArray; desc: the probe's sampler settings (dict)."""
    rd = cu.CUDA_RESOURCE_DESC()
    if isinstance(res, cu.CUmipmappedArray):
        rd.resType = cu.CUresourcetype.CU_RESOURCE_TYPE_MIPMAPPED_ARRAY
        rd.res.mipmap.hMipmappedArray = res
    else:
        rd.resType = cu.CUresourcetype.CU_RESOURCE_TYPE_ARRAY
        rd.res.array.hArray = res
    td = cu.CUDA_TEXTURE_DESC()
    am = desc.get("address_mode", "clamp")
    am = [am] * 3 if isinstance(am, str) else list(am) + ["clamp"] * (3 - len(am))
    td.addressMode = [getattr(cu.CUaddress_mode, "CU_TR_ADDRESS_MODE_" + _AM[m]) for m in am]
    fm = {"point": cu.CUfilter_mode.CU_TR_FILTER_MODE_POINT, "linear": cu.CUfilter_mode.CU_TR_FILTER_MODE_LINEAR}
    td.filterMode = fm[desc.get("filter_mode", "point")]
    td.mipmapFilterMode = fm[desc.get("mipmap_filter_mode", "point")]
    flags = 0
    if desc.get("normalized_coords"):
        flags |= cu.CU_TRSF_NORMALIZED_COORDINATES
    if np.dtype(dtype).kind in "iu" and desc.get("read_mode", "element") == "element":
        flags |= cu.CU_TRSF_READ_AS_INTEGER
    if desc.get("seamless_cubemap"):
        flags |= cu.CU_TRSF_SEAMLESS_CUBEMAP
    if desc.get("disable_trilinear_optimization"):
        flags |= cu.CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION
    if desc.get("srgb"):
        flags |= getattr(cu, "CU_TRSF_SRGB", 0x10)
    td.flags = flags
    td.maxAnisotropy = int(desc.get("max_anisotropy", 0))
    td.mipmapLevelBias = float(desc.get("mipmap_level_bias", 0.0))
    td.minMipmapLevelClamp = float(desc.get("min_mipmap_level_clamp", 0.0))
    td.maxMipmapLevelClamp = float(desc.get("max_mipmap_level_clamp", nlevels - 1))
    if desc.get("border_color") is not None:
        td.borderColor = [float(x) for x in desc["border_color"]]
    return ck(cu.cuTexObjectCreate(rd, td, None))


def surface_object(arr):
    rd = cu.CUDA_RESOURCE_DESC()
    rd.resType = cu.CUresourcetype.CU_RESOURCE_TYPE_ARRAY
    rd.res.array.hArray = arr
    return ck(cu.cuSurfObjectCreate(rd))
