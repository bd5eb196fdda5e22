"""The texture and surface objects of conformance cases on the GPU (for record.py's worker).

A case's resources (ptxvm/conformance/resources.py) become CUDA arrays (mipmapped where the
resource has levels) and texture / surface objects through the driver API (cudriver_textures.py),
from the same initial contents the checker gives ptxvm. `make(launch)` returns the handles (kernel
arguments, in the case's order) and a function that, after the kernel ran, gives the arrays to
store: `res0|<name>|<k>` (initial level k) and `res|<name>` (a surface's final contents).
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cudriver_textures as D  # noqa: E402


def _bind_ref(module, r, arr) -> None:
    """Bind the case's module-level .texref / .surfref to the CUDA array (the reference API)."""
    from cuda.bindings import driver as cu
    mod = cu.CUmodule(int(module.ptr))
    if r.kind == "surface":
        sr = D.ck(cu.cuModuleGetSurfRef(mod, r.ref.encode()))
        D.ck(cu.cuSurfRefSetArray(sr, arr, 0))
        return
    desc = r.settings()
    tr = D.ck(cu.cuModuleGetTexRef(mod, r.ref.encode()))
    D.ck(cu.cuTexRefSetArray(tr, arr, cu.CU_TRSA_OVERRIDE_FORMAT))
    fm = {"point": cu.CUfilter_mode.CU_TR_FILTER_MODE_POINT, "linear": cu.CUfilter_mode.CU_TR_FILTER_MODE_LINEAR}
    D.ck(cu.cuTexRefSetFilterMode(tr, fm[desc.get("filter_mode", "point")]))
    am = desc.get("address_mode", "clamp")
    am = [am] * 3 if isinstance(am, str) else list(am) + ["clamp"] * (3 - len(am))
    for dim, m in enumerate(am):
        D.ck(cu.cuTexRefSetAddressMode(tr, dim, getattr(cu.CUaddress_mode, "CU_TR_ADDRESS_MODE_" + m.upper())))
    flags = cu.CU_TRSF_NORMALIZED_COORDINATES if desc.get("normalized_coords") else 0
    if r.dtype.kind in "iu" and desc.get("read_mode", "element") == "element":
        flags |= cu.CU_TRSF_READ_AS_INTEGER
    D.ck(cu.cuTexRefSetFlags(tr, flags))


def _object(r, levels, keep):
    from cuda.bindings import driver as cu
    geom = r.geom
    if r.kind == "surface":
        arr = D.make_array(levels[0], geom, cu.CUDA_ARRAY3D_SURFACE_LDST, r.fmt or None)
        keep.append(("array", arr))
        h = D.surface_object(arr)
        keep.append(("surface", h))
        return h, arr, arr
    if r.levels > 1:
        res = D.make_mipmapped(levels, geom)
        keep.append(("mipmap", res))
    else:
        res = D.make_array(levels[0], geom)
        keep.append(("array", res))
    h = D.texture_object(res, r.settings(), geom, levels[0].dtype, r.levels)
    keep.append(("texture", h))
    return h, None, res


def release(keep) -> None:
    from cuda.bindings import driver as cu
    destroy = {"texture": cu.cuTexObjectDestroy, "surface": cu.cuSurfObjectDestroy,
               "array": cu.cuArrayDestroy, "mipmap": cu.cuMipmappedArrayDestroy}
    for kind, h in reversed(keep):
        try:
            destroy[kind](h)
        except Exception:  # noqa: BLE001  (best effort: the worker process ends soon anyway)
            pass


def make(launch, module=None):
    """(handles as np.uint64, after()) for a launch's resources; after() -> {key: array}. `module`
    (CuPy's): where the case's .texref / .surfref references are bound."""
    D.ensure_context()
    keep, handles, surfaces = [], [], []
    for r, levels in launch.res:
        levels = [np.ascontiguousarray(a) for a in levels]
        h, arr, storage = _object(r, levels, keep)
        if r.ref:
            _bind_ref(module, r, storage)
        handles.append(np.uint64(int(h)))
        surfaces.append(arr)

    def after() -> dict:
        out = {}
        try:
            for (r, levels), arr in zip(launch.res, surfaces):
                for k, a in enumerate(levels):
                    out[f"res0|{r.name}|{k}"] = np.ascontiguousarray(a)
                if arr is not None:
                    out[f"res|{r.name}"] = D.read_array(arr, levels[0], r.geom)
        finally:
            release(keep)
        return out

    return handles, after
