"""ptxvm's texture and surface objects on a real GPU: for a device='cuda' launch, each
`ptxvm.texture_object` / `ptxvm.surface_object` argument becomes a CUDA array (mipmapped, layered
or cube as the object is) and a cudaTextureObject_t / cudaSurfaceObject_t with the same sampler
settings, made through the driver API (a `linear=True` texture over linear memory). After the kernel, each surface's array is copied back into
the NumPy array the surface object wraps, as the CPU engine writes it in place."""
from __future__ import annotations

import numpy as np

from ..engine.texture.objects import SurfaceObject, TextureObject

_FORMATS = {np.dtype(np.uint8): "UNSIGNED_INT8", np.dtype(np.uint16): "UNSIGNED_INT16",
            np.dtype(np.uint32): "UNSIGNED_INT32", np.dtype(np.int8): "SIGNED_INT8",
            np.dtype(np.int16): "SIGNED_INT16", np.dtype(np.int32): "SIGNED_INT32",
            np.dtype(np.float16): "HALF", np.dtype(np.float32): "FLOAT"}
_SRGB_FLAG = 0x10  # CU_TRSF_SRGB


def array_format(obj) -> str:
    """The CUarray_format name: formatted (sust.p) surfaces of 8/16-bit integers are UNORM/SNORM."""
    if isinstance(obj, SurfaceObject) and obj.normalized and obj.dtype.kind in "iu" and obj.dtype.itemsize <= 2:
        sign = "UNORM" if obj.dtype.kind == "u" else "SNORM"
        return f"{sign}_INT{obj.dtype.itemsize * 8}X{obj.channels}"
    return _FORMATS[obj.dtype]


def extent(obj, level: int = 0) -> tuple[int, int, int]:
    """(Width, Height, Depth) as CUDA_ARRAY3D_DESCRIPTOR takes them: 0 for absent dimensions, the
    layer count (6 per cube) as Depth of layered and cube arrays."""
    w, h, d = obj.level_size(level) if isinstance(obj, TextureObject) else obj.size
    height = h if obj.dims >= 2 else 0
    if obj.geometry in ("a1d", "a2d", "cube", "acube"):
        return w, height, obj.layers
    return w, height, d if obj.dims == 3 else 0


class GpuResources:
    """The CUDA arrays and texture/surface objects of one launch; `free()` destroys them all."""

    def __init__(self, rt):
        self.rt = rt
        self.cu = rt.driver
        self.handles: dict[int, int] = {}  # id(ptxvm object) -> CUDA object handle
        self.surfaces: list[tuple[SurfaceObject, object]] = []
        self.keep: list[tuple[str, object]] = []

    def handle(self, obj) -> int:
        found = self.handles.get(id(obj))
        if found is None:
            found = self.handles[id(obj)] = self._texture(obj) if isinstance(obj, TextureObject) else self._surface(obj)
        return found

    # ---------------------------------------------------------------- arrays
    def _descriptor(self, obj, level: int, surface: bool):
        cu = self.cu
        desc = cu.CUDA_ARRAY3D_DESCRIPTOR()
        desc.Width, desc.Height, desc.Depth = extent(obj, level)
        desc.Format = getattr(cu.CUarray_format, "CU_AD_FORMAT_" + array_format(obj))
        desc.NumChannels = obj.channels
        flags = {"a1d": cu.CUDA_ARRAY3D_LAYERED, "a2d": cu.CUDA_ARRAY3D_LAYERED, "cube": cu.CUDA_ARRAY3D_CUBEMAP,
                 "acube": cu.CUDA_ARRAY3D_CUBEMAP | cu.CUDA_ARRAY3D_LAYERED}.get(obj.geometry, 0)
        desc.Flags = int(flags) | (int(cu.CUDA_ARRAY3D_SURFACE_LDST) if surface else 0)
        return desc

    def _copy(self, array, host: np.ndarray, obj, level: int, to_host: bool) -> None:
        cu = self.cu
        w, h, d = extent(obj, level)
        row = w * obj.channels * obj.dtype.itemsize
        p = cu.CUDA_MEMCPY3D()
        array_side, host_side = ("src", "dst") if to_host else ("dst", "src")
        setattr(p, array_side + "MemoryType", cu.CUmemorytype.CU_MEMORYTYPE_ARRAY)
        setattr(p, array_side + "Array", array)
        setattr(p, host_side + "MemoryType", cu.CUmemorytype.CU_MEMORYTYPE_HOST)
        setattr(p, host_side + "Host", host.ctypes.data)
        setattr(p, host_side + "Pitch", row)
        setattr(p, host_side + "Height", max(h, 1))
        p.WidthInBytes, p.Height, p.Depth = row, max(h, 1), max(d, 1)
        self.rt.check(cu.cuMemcpy3D(p), "cuMemcpy3D")

    def _array(self, obj, surface: bool):
        arr = self.rt.check(self.cu.cuArray3DCreate(self._descriptor(obj, 0, surface)), "cuArray3DCreate")
        self.keep.append(("array", arr))
        self._copy(arr, np.ascontiguousarray(obj.data), obj, 0, to_host=False)
        return arr

    # ---------------------------------------------------------------- objects
    def _texture(self, t: TextureObject) -> int:
        cu, check = self.cu, self.rt.check
        rd = cu.CUDA_RESOURCE_DESC()
        if t.linear:
            self._linear(rd, t)
        elif t.mipmapped:
            mip = check(cu.cuMipmappedArrayCreate(self._descriptor(t, 0, False), t.num_levels), "cuMipmappedArrayCreate")
            self.keep.append(("mipmap", mip))
            for k, level in enumerate(t.levels):
                self._copy(check(cu.cuMipmappedArrayGetLevel(mip, k), "cuMipmappedArrayGetLevel"),
                           np.ascontiguousarray(level), t, k, to_host=False)
            rd.resType = cu.CUresourcetype.CU_RESOURCE_TYPE_MIPMAPPED_ARRAY
            rd.res.mipmap.hMipmappedArray = mip
        else:
            rd.resType = cu.CUresourcetype.CU_RESOURCE_TYPE_ARRAY
            rd.res.array.hArray = self._array(t, surface=False)
        handle = check(cu.cuTexObjectCreate(rd, self._sampler(t), None), "cuTexObjectCreate")
        self.keep.append(("texture", handle))
        return int(handle)

    def _linear(self, rd, t: TextureObject) -> None:
        """A 1D texture over linear memory (what tex1Dfetch reads), not a CUDA array."""
        cu = self.cu
        data = np.ascontiguousarray(t.data)
        ptr = self.rt.alloc(data.nbytes)
        self.keep.append(("memory", ptr))
        self.rt.to_device(ptr, data)
        rd.resType = cu.CUresourcetype.CU_RESOURCE_TYPE_LINEAR
        rd.res.linear.devPtr = ptr
        rd.res.linear.format = getattr(cu.CUarray_format, "CU_AD_FORMAT_" + array_format(t))
        rd.res.linear.numChannels = t.channels
        rd.res.linear.sizeInBytes = data.nbytes

    def _sampler(self, t: TextureObject):
        cu = self.cu
        td = cu.CUDA_TEXTURE_DESC()
        td.addressMode = [getattr(cu.CUaddress_mode, "CU_TR_ADDRESS_MODE_" + m.upper()) for m in t.address_mode]
        filters = {"point": cu.CUfilter_mode.CU_TR_FILTER_MODE_POINT, "linear": cu.CUfilter_mode.CU_TR_FILTER_MODE_LINEAR}
        td.filterMode = filters[t.filter_mode]
        td.mipmapFilterMode = filters[t.mipmap_filter_mode]
        flags = 0
        if t.normalized_coords:
            flags |= int(cu.CU_TRSF_NORMALIZED_COORDINATES)
        if t.dtype.kind in "iu" and t.read_mode == "element":
            flags |= int(cu.CU_TRSF_READ_AS_INTEGER)
        if t.seamless_cubemap:
            flags |= int(cu.CU_TRSF_SEAMLESS_CUBEMAP)
        if t.disable_trilinear_optimization:
            flags |= int(cu.CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION)
        if t.srgb:
            flags |= int(getattr(cu, "CU_TRSF_SRGB", _SRGB_FLAG))
        td.flags = flags
        td.maxAnisotropy = t.max_anisotropy
        td.mipmapLevelBias = t.mipmap_level_bias
        td.minMipmapLevelClamp = t.min_mipmap_level_clamp
        td.maxMipmapLevelClamp = t.max_mipmap_level_clamp
        td.borderColor = [float(x) for x in t.border_color]
        return td

    def _surface(self, s: SurfaceObject) -> int:
        cu = self.cu
        arr = self._array(s, surface=True)
        rd = cu.CUDA_RESOURCE_DESC()
        rd.resType = cu.CUresourcetype.CU_RESOURCE_TYPE_ARRAY
        rd.res.array.hArray = arr
        handle = self.rt.check(cu.cuSurfObjectCreate(rd), "cuSurfObjectCreate")
        self.keep.append(("surface", handle))
        self.surfaces.append((s, arr))
        return int(handle)

    # ---------------------------------------------------------------- after the kernel
    def read_back(self) -> list[tuple[SurfaceObject, np.ndarray]]:
        """Every surface's contents after the kernel (not yet written to the caller's arrays)."""
        out = []
        for s, arr in self.surfaces:
            data = np.empty_like(s.data)
            self._copy(arr, data, s, 0, to_host=True)
            out.append((s, data))
        return out

    def free(self) -> None:
        destroy = {"texture": "cuTexObjectDestroy", "surface": "cuSurfObjectDestroy", "array": "cuArrayDestroy",
                   "mipmap": "cuMipmappedArrayDestroy"}
        for kind, h in reversed(self.keep):
            if kind == "memory":
                self.rt.free(h)
            else:
                getattr(self.cu, destroy[kind])(h)  # its error after a sticky fault changes nothing
        self.keep.clear()
        self.handles.clear()
        self.surfaces.clear()
