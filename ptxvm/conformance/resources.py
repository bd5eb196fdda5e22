"""Texture and surface objects for conformance cases.

A case lists its objects as `Resource`s; each becomes a `.u64` kernel parameter `res_<name>`
(after the memory arrays, before `n`) whose handle the kernel loads into the register `%x_<name>`
(`{name}` in the case's asm). The recorder (tools/device/record_resources.py) makes the objects
through the CUDA driver API, the checker through ptxvm.texture_object / surface_object, both from
the same contents: `initial(resource)`, a deterministic function of the resource's `data` spec.

Data layout as ptxvm takes it: `[layer or depth][height][width][channel]` with an explicit channel
axis; a mipmapped texture has `levels` levels, level k halving every spatial axis (at least 1).

Golden storage (family npz): `res0|<signature>|<k>` the initial contents of level k (shared by
the cases using the same data), `res|<case id>|<name>` a surface's final contents when the kernel
changed them (the meta's `res_unchanged` lists the others).

NumPy only: the recorder imports this on the GPU machine.
"""
from __future__ import annotations

from dataclasses import dataclass
import numpy as np

from . import values as V

KINDS = ("texture", "surface")
# geometry -> (spatial dimensions, layered, cubemap)
GEOMETRIES = {"1d": (1, False, False), "2d": (2, False, False), "3d": (3, False, False),
              "a1d": (1, True, False), "a2d": (2, True, False), "cube": (2, True, True),
              "acube": (2, True, True)}
DTYPES = {"u8": np.uint8, "s8": np.int8, "u16": np.uint16, "s16": np.int16, "u32": np.uint32,
          "s32": np.int32, "f16": np.float16, "f32": np.float32}
FILLS = ("normal", "wide", "int", "small", "zero", "ramp", "level")
SAMPLER_KEYS = ("address_mode", "filter_mode", "normalized_coords", "read_mode", "border_color",
                "mipmap_filter_mode", "mipmap_level_bias", "min_mipmap_level_clamp",
                "max_mipmap_level_clamp", "max_anisotropy", "seamless_cubemap",
                "disable_trilinear_optimization")


@dataclass(frozen=True)
class Resource:
    """One texture or surface object of a case.

    data: "<dtype>:<shape>:<fill>", shape the level-0 extents joined by 'x' in the layout above
    (e.g. "f32:5x7x4:normal": 5 rows of 7 texels of 4 channels). Fills: normal (standard normal),
    wide (random sign and magnitude 2^-12..2^12), int (the whole integer range), small (integers
    0..15), zero, ramp (element i holds i), level (every texel of level k holds k).
    sampler: texture settings as (key, value) pairs, ptxvm.texture_object's keywords.
    fmt: a surface's CUDA array format where the dtype does not say it (UNORM_INT8X4, ...).
    ref: the name of a .texref / .surfref the case declares (prelude) and names in its asm; the
    recorder binds it with cuModuleGetTexRef / cuModuleGetSurfRef, the checker with
    Module.bind_texture / bind_surface (the handle parameter is passed all the same)."""

    name: str
    kind: str
    geom: str
    data: str
    levels: int = 1
    sampler: tuple = ()
    fmt: str = ""
    ref: str = ""          # a module-level .texref/.surfref of the case's prelude, bound to the object

    def __post_init__(self):
        if self.kind not in KINDS or self.geom not in GEOMETRIES:
            raise ValueError(f"resource {self.name}: kind {self.kind!r} / geometry {self.geom!r}")
        dt, shape, fill = self.data.split(":")
        if dt not in DTYPES or fill not in FILLS:
            raise ValueError(f"resource {self.name}: data {self.data!r}")
        dims, layered, _ = GEOMETRIES[self.geom]
        if len(self.shape) != dims + layered + 1:
            raise ValueError(f"resource {self.name}: a {self.geom} object needs {dims + layered + 1} axes")
        for k, _v in self.sampler:
            if k not in SAMPLER_KEYS:
                raise ValueError(f"resource {self.name}: unknown sampler setting {k}")

    @property
    def reg(self) -> str:
        return "%x_" + self.name

    @property
    def param(self) -> str:
        return "res_" + self.name

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(DTYPES[self.data.split(":")[0]])

    @property
    def shape(self) -> tuple:
        return tuple(int(s) for s in self.data.split(":")[1].split("x"))

    @property
    def signature(self) -> str:
        """Resources with the same signature start with the same contents (stored once)."""
        return f"{self.data}:L{self.levels}"

    def settings(self) -> dict:
        kw = dict(self.sampler)
        if isinstance(kw.get("address_mode"), (list, tuple)):
            kw["address_mode"] = tuple(kw["address_mode"])
        return kw

    def to_meta(self) -> dict:
        return {"name": self.name, "kind": self.kind, "geom": self.geom, "data": self.data,
                "levels": self.levels, "sampler": [list(p) for p in self.sampler], "fmt": self.fmt,
                **({"ref": self.ref} if self.ref else {})}

    @classmethod
    def from_meta(cls, m: dict) -> "Resource":
        sampler = tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in m.get("sampler", ()))
        return cls(m["name"], m["kind"], m["geom"], m["data"], m.get("levels", 1), sampler, m.get("fmt", ""),
                   m.get("ref", ""))


def texture(name: str, geom: str, data: str, levels: int = 1, ref: str = "", **sampler) -> Resource:
    return Resource(name, "texture", geom, data, levels, tuple(sorted(sampler.items())), ref=ref)


def surface(name: str, geom: str, data: str, fmt: str = "", ref: str = "") -> Resource:
    return Resource(name, "surface", geom, data, fmt=fmt, ref=ref)


def level_shape(r: Resource, k: int) -> tuple:
    """The extents of mip level k: every spatial axis halved k times (at least 1)."""
    dims, layered, _ = GEOMETRIES[r.geom]
    s = list(r.shape)
    for i in range(layered, layered + dims):
        s[i] = max(1, s[i] >> k)
    return tuple(s)


def _fill(fill: str, dtype: np.dtype, shape: tuple, k: int, rng) -> np.ndarray:
    n = int(np.prod(shape))
    if fill == "zero":
        a = np.zeros(n)
    elif fill == "ramp":
        a = np.arange(n)
    elif fill == "level":
        a = np.full(n, k)
    elif fill == "small":
        a = rng.integers(0, 16, n)
    elif fill == "int":
        if dtype.kind == "f":
            raise ValueError("fill 'int' is for integer data")
        info = np.iinfo(dtype)
        return rng.integers(info.min, int(info.max) + 1, n, dtype=np.int64).astype(dtype).reshape(shape)
    elif fill == "wide":
        a = rng.choice([-1.0, 1.0], n) * (1 + rng.random(n)) * 2.0 ** rng.integers(-12, 13, n)
    else:
        a = rng.standard_normal(n)
    return a.astype(dtype).reshape(shape)


def initial(r: Resource) -> list[np.ndarray]:
    """The contents of every level, level 0 first (fresh writable arrays)."""
    dt, _, fill = r.data.split(":")
    rng = V.rng_for("resource", r.signature)
    return [_fill(fill, r.dtype, level_shape(r, k), k, rng) for k in range(r.levels)]


# ------------------------------------------------------------------------------ the engine side

def engine_object(r: Resource, levels: list):
    """(ptxvm object, the array a surface writes in place or None) for a resource's contents."""
    import ptxvm
    dims, layered, cube = GEOMETRIES[r.geom]
    if r.kind == "surface":
        arr = np.ascontiguousarray(np.array(levels[0], copy=True))
        obj = ptxvm.surface_object(arr, dims=dims, layered=layered and not cube, cubemap=cube,
                                   normalized="NORM" in r.fmt)
        return obj, arr
    src = [np.array(a) for a in levels] if r.levels > 1 else np.array(levels[0])
    obj = ptxvm.texture_object(src, dims=dims, layered=layered and r.geom != "cube", cubemap=cube,
                               **r.settings())
    return obj, None


def bits(a: np.ndarray) -> np.ndarray:
    """Contents as flat raw unsigned bits (floats compare bit for bit: NaN payloads, signed zeros)."""
    a = np.ascontiguousarray(a)
    return a.view(np.dtype(f"u{a.itemsize}")).reshape(-1)


def bind(module, r: Resource, obj) -> None:
    """Bind the case's .texref / .surfref (if it names one) to the object."""
    if r.ref:
        (module.bind_texture if r.kind == "texture" else module.bind_surface)(r.ref, obj)


def destroy(obj) -> None:
    d = getattr(obj, "destroy", None)
    if d is not None:
        d()

