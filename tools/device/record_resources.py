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


def _object(r, levels, keep):
    from cuda.bindings import driver as cu
    geom = r.geom
    if r.kind == "surface":
        arr = D.make_array(levels[0], geom, cu.CUDA_ARRAY3D_SURFACE_LDST, r.fmt or None)
        keep.append(("array", arr))
        h = D.surface_object(arr)
        keep.append(("surface", h))
        return h, arr
    if r.levels > 1:
        res = D.make_mipmapped(levels, geom)
        keep.append(("mipmap", res))
    else:
        res = D.make_array(levels[0], geom)
        keep.append(("array", res))
    h = D.texture_object(res, r.settings(), geom, levels[0].dtype, r.levels)
    keep.append(("texture", h))
    return h, None


def release(keep) -> None:
    from cuda.bindings import driver as cu
    destroy = {"texture": cu.cuTexObjectDestroy, "surface": cu.cuSurfObjectDestroy,
               "array": cu.cuArrayDestroy, "mipmap": cu.cuMipmappedArrayDestroy}
    for kind, h in reversed(keep):
        try:
            destroy[kind](h)
        except Exception:  # noqa: BLE001  (best effort: the worker process ends soon anyway)
            pass


def make(launch):
    """(handles as np.uint64, after()) for a launch's resources; after() -> {key: array}."""
    D.ensure_context()
    keep, handles, surfaces = [], [], []
    for r, levels in launch.res:
        levels = [np.ascontiguousarray(a) for a in levels]
        h, arr = _object(r, levels, keep)
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
