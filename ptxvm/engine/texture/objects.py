"""Texture, sampler and surface objects (cudaTextureObject_t / cudaSurfaceObject_t, and the sampler
state of .samplerref variables).

An object is registered with its device (`Device.textures`); a kernel sees only its 64-bit handle
and the engine resolves it when an instruction runs. A texture keeps its own copy of the data (a
CUDA array is opaque storage); a surface reads and writes the host array it was made from.

Data layout: `[layer][depth][height][width][channel]`, spatial axes outermost-first like C arrays;
the layer axis only for layered (array) and cube textures (faces +x, -x, +y, -y, +z, -z are layers
0..5; a cubemap array holds 6 layers per cube), the channel axis only when there is more than one
channel (or `dims` says so). A mipmapped texture is a list of such arrays, level 0 first, each
level half the size of the one before (at least 1).

The sampling itself is in texture_sample.py (coordinates, levels, cube faces) and
texture_filter.py (the filter arithmetic).
"""
from __future__ import annotations

import copy
from typing import Optional, Sequence

import numpy as np

ADDRESS_MODES = ("wrap", "clamp", "mirror", "border")  # cudaAddressMode 0..3
FILTER_MODES = ("point", "linear")
READ_MODES = ("element", "normalized_float")
DTYPES = {np.dtype(t) for t in (np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.float16, np.float32)}
# geometry -> (spatial dimensions, layered)
GEOMETRIES = {"1d": (1, False), "2d": (2, False), "3d": (3, False), "a1d": (1, True), "a2d": (2, True),
              "cube": (2, True), "acube": (2, True)}


class TextureError(ValueError):
    pass


def geometry_of(dims: int, layered: bool, cubemap: bool) -> str:
    if cubemap:
        return "acube" if layered else "cube"
    return ("a" if layered else "") + f"{dims}d"


def _layout(array, dims: Optional[int], layered: bool, cubemap: bool):
    """(data shaped [layers][spatial...][channels], spatial dims, geometry)."""
    a = np.asarray(array)
    if a.dtype not in DTYPES:
        raise TextureError(f"texture/surface element type {a.dtype} is not supported "
                           "(u8, s8, u16, s16, u32, s32, f16, f32)")
    lead = 1 if (layered or cubemap) else 0
    if cubemap:
        if dims not in (None, 2):
            raise TextureError("cube maps have two-dimensional faces")
        dims = 2
    if dims is None:
        if lead:
            dims = 2
        else:
            dims = {1: 1, 2: 2, 3: 2, 4: 3}.get(a.ndim)
            if dims is None:
                raise TextureError(f"cannot use a {a.ndim}-dimensional array as a texture")
            if a.ndim == 3 and a.shape[-1] not in (1, 2, 4):
                dims = 3
    if dims not in (1, 2, 3) or (lead and dims == 3):
        raise TextureError("textures and surfaces are 1D, 2D or 3D; layered ones 1D or 2D")
    if a.ndim == dims + lead:
        a = a[..., None]
    elif a.ndim != dims + lead + 1:
        what = "layered " if lead else ""
        raise TextureError(f"a {what}{dims}D texture needs a {dims + lead}- or {dims + lead + 1}-dimensional "
                           f"array, got shape {a.shape}")
    if not lead:
        a = a[None]
    if a.shape[-1] not in (1, 2, 4):
        raise TextureError(f"textures and surfaces have 1, 2 or 4 channels, not {a.shape[-1]}")
    if 0 in a.shape:
        raise TextureError("empty texture")
    if cubemap:
        if a.shape[1] != a.shape[2]:
            raise TextureError(f"cube map faces must be square, not {a.shape[2]}x{a.shape[1]}")
        if a.shape[0] % 6 or (not layered and a.shape[0] != 6):
            raise TextureError(f"a cube map has 6 faces (a cubemap array 6 per cube), not {a.shape[0]}")
    return a, dims, geometry_of(dims, layered, cubemap)


class _Object:
    kind = ""

    def __init__(self, device, data: np.ndarray, dims: int, geometry: str):
        self.device = device
        self.data = data  # [layer][d][h][w][c] (level 0), dims spatial axes
        self.dims = dims
        self.geometry = geometry
        self.layers = data.shape[0]
        self.channels = data.shape[-1]
        self.dtype = data.dtype
        sizes = data.shape[1:-1][::-1]  # width, height, depth
        self.size = tuple(sizes) + (1,) * (3 - dims)  # (width, height, depth)
        self.handle = device.textures.add(self)

    @property
    def layered(self) -> bool:
        return GEOMETRIES[self.geometry][1]

    @property
    def width(self):
        return self.size[0]

    @property
    def height(self):
        return self.size[1] if self.dims >= 2 else 0

    @property
    def depth(self):
        return self.size[2] if self.dims >= 3 else 0

    @property
    def array_size(self):
        if self.geometry == "acube":
            return self.layers // 6
        return self.layers if self.geometry in ("a1d", "a2d") else 0

    def destroy(self) -> None:
        self.device.textures.remove(self.handle)

    def __int__(self):
        return self.handle

    def __index__(self):
        return self.handle


class TextureObject(_Object):
    kind = "texture"

    def __init__(self, device, array, *, address_mode="clamp", filter_mode="point", normalized_coords=False,
                 read_mode="element", border_color=None, srgb=False, dims=None, layered=False, cubemap=False,
                 mipmap_filter_mode="point", mipmap_level_bias=0.0, min_mipmap_level_clamp=0.0,
                 max_mipmap_level_clamp=None, max_anisotropy=0, seamless_cubemap=False,
                 disable_trilinear_optimization=False, linear=False):
        mipmapped = isinstance(array, (list, tuple))
        if mipmapped and not array:
            raise TextureError("a mipmapped texture needs at least one level")
        raw_levels = list(array) if mipmapped else [array]
        levels = [_layout(a, dims, layered, cubemap) for a in raw_levels]
        data, dims, geometry = levels[0]
        _check_levels([lv[0] for lv in levels], dims)
        modes = (address_mode,) * 3 if isinstance(address_mode, str) else tuple(address_mode)
        if len(modes) < dims or any(m not in ADDRESS_MODES for m in modes):
            raise TextureError(f"address_mode must be one of {ADDRESS_MODES} or one per dimension")
        if filter_mode not in FILTER_MODES or mipmap_filter_mode not in FILTER_MODES:
            raise TextureError(f"filter_mode and mipmap_filter_mode must be one of {FILTER_MODES}")
        if read_mode not in READ_MODES:
            raise TextureError(f"read_mode must be one of {READ_MODES}")
        if data.dtype.kind in "iu" and data.dtype.itemsize == 4 and read_mode == "normalized_float":
            raise TextureError("normalized_float reads need 8- or 16-bit integer elements")
        if filter_mode == "linear" and data.dtype.kind in "iu" and read_mode == "element":
            raise TextureError("linear filtering of integer elements needs read_mode='normalized_float'")
        if linear and (geometry != "1d" or mipmapped):
            raise TextureError("a linear-memory texture (linear=True) is 1D, not layered, cube or mipmapped")
        super().__init__(device, np.array(data, copy=True), dims, geometry)
        # over linear memory (cudaResourceTypeLinear) rather than a CUDA array: the only 1D textures
        # tex.1d with .s32 coordinates (tex1Dfetch) reads texels from (texture_sample.fetch_int)
        self.linear = bool(linear)
        self.levels = [self.data] + [np.array(lv[0], copy=True) for lv in levels[1:]]
        self.mipmapped = mipmapped
        self.address_mode = tuple(modes[:dims]) + ("clamp",) * (3 - dims)
        # a 1D texture filters as a 2D one of height 1 (texture_sample._border_row): the mode of
        # that second dimension is the second address mode (H200: row1d_modes_cbc, _bcc, _wbw, _ccb
        # of texture_gaps2), or the only one given
        self.row_address_mode = modes[1] if len(modes) > 1 else modes[0]
        self.filter_mode = filter_mode
        self.normalized_coords = bool(normalized_coords)
        self.read_mode = read_mode
        bc = np.zeros(4, np.float32) if border_color is None else np.asarray(border_color, np.float32)
        self.border_color = np.pad(bc, (0, 4 - bc.size))
        self.mipmap_filter_mode = mipmap_filter_mode
        self.mipmap_level_bias = float(mipmap_level_bias)
        self.min_mipmap_level_clamp = float(min_mipmap_level_clamp)
        top = len(self.levels) - 1
        self.max_mipmap_level_clamp = float(top if max_mipmap_level_clamp is None else max_mipmap_level_clamp)
        self.max_anisotropy = int(max_anisotropy)
        self.seamless_cubemap = bool(seamless_cubemap)
        self.disable_trilinear_optimization = bool(disable_trilinear_optimization)
        # the depth-compare operand of tex/tld4 applies to depth textures only; CUDA makes none
        # (cuArray3DCreate refuses CUDA_ARRAY3D_DEPTH_TEXTURE for f32 arrays) and an H200 ignores
        # the operand on the textures it does make, so ptxvm's textures ignore it too
        self.depth_compare = False
        # sRGB conversion applies to u8 texels read as normalized floats only; the H200 ignores the
        # flag on other formats and on element reads (srgb_point_s8x4, _u16x1, srgb_element_u8x4)
        self.srgb = bool(srgb) and data.dtype == np.uint8 and read_mode == "normalized_float"
        self.values = [self._convert(lv) for lv in self.levels]

    @property
    def num_levels(self) -> int:
        return len(self.levels)

    def level_size(self, k: int):
        """(width, height, depth) of mip level k."""
        return tuple(max(1, s >> k) if i < self.dims else 1 for i, s in enumerate(self.size))

    def _convert(self, data):
        """Texel values as a point fetch returns them: float32 for float reads, the 32-bit integer bits
        for element reads of integer textures."""
        k, bits = data.dtype.kind, data.dtype.itemsize * 8
        if k == "f":
            return data.astype(np.float32)
        if self.read_mode == "normalized_float":
            if getattr(self, "srgb", False):
                from .filter import SRGB_TABLE, srgb_channels

                out = (data.astype(np.float64) / 255).astype(np.float32)
                c = srgb_channels(out.shape[-1])
                out[..., :c] = SRGB_TABLE[data[..., :c]]
                return out
            if k == "u":
                return (data.astype(np.float64) / (2 ** bits - 1)).astype(np.float32)
            return np.maximum(data.astype(np.float64) / (2 ** (bits - 1) - 1), -1.0).astype(np.float32)
        return data.astype(np.int64).astype(np.uint32 if k == "u" else np.int32).view(np.uint32)

    @property
    def returns_float(self) -> bool:
        return self.data.dtype.kind == "f" or self.read_mode == "normalized_float"

    def with_sampler(self, sampler: "SamplerObject") -> "TextureObject":
        """This texture's data under a .samplerref's state (independent texture mode); not registered."""
        cache = self.__dict__.setdefault("_sampled", {})
        key = sampler.handle
        if key not in cache:
            t = copy.copy(self)
            t.address_mode = tuple(sampler.address_mode[: self.dims]) + ("clamp",) * (3 - self.dims)
            t.row_address_mode = sampler.address_mode[1]
            t.filter_mode = sampler.filter_mode
            if sampler.force_unnormalized_coords:
                t.normalized_coords = False
            cache[key] = t
        return cache[key]

    # sampling (texture_sample.py)
    def sample(self, coords: Sequence[np.ndarray], **kw) -> np.ndarray:
        from .sample import sample

        return sample(self, coords, **kw)

    def fetch_int(self, coords: Sequence[np.ndarray], **kw) -> np.ndarray:
        from .sample import fetch_int

        return fetch_int(self, coords, **kw)

    def gather(self, coords: Sequence[np.ndarray], comp: int, **kw) -> np.ndarray:
        from .sample import gather

        return gather(self, coords, comp, **kw)


def _check_levels(levels, dims):
    base = levels[0]
    for k, lv in enumerate(levels[1:], 1):
        want = tuple(max(1, s >> k) for s in base.shape[1:1 + dims])
        if lv.shape[0] != base.shape[0] or lv.shape[1:1 + dims] != want or lv.shape[-1] != base.shape[-1] \
                or lv.dtype != base.dtype:
            raise TextureError(f"mip level {k} must have shape {(base.shape[0],) + want + base.shape[-1:]} "
                               f"(level 0 halved) and type {base.dtype}, not {lv.shape} {lv.dtype}")


# .samplerref initializer values -> ours
_SAMPLER_ADDR = {"wrap": "wrap", "mirror": "mirror", "clamp_to_edge": "clamp", "clamp_ogl": "clamp",
                 "clamp_to_border": "border", "clamp": "clamp", "border": "border"}
_SAMPLER_FILTER = {"nearest": "point", "linear": "linear", "point": "point"}


class SamplerObject:
    """The state of a .samplerref (independent texture mode): address modes, filter, coordinates."""

    kind = "sampler"

    def __init__(self, device, *, address_mode="clamp", filter_mode="point", force_unnormalized_coords=False):
        modes = (address_mode,) * 3 if isinstance(address_mode, str) else tuple(address_mode) + ("clamp",) * 3
        try:
            self.address_mode = tuple(_SAMPLER_ADDR[m] for m in modes[:3])
            self.filter_mode = _SAMPLER_FILTER[filter_mode]
        except KeyError as e:
            raise TextureError(f"unknown sampler setting {e.args[0]!r}") from None
        self.force_unnormalized_coords = bool(force_unnormalized_coords)
        self.device = device
        self.handle = device.textures.add(self)

    @classmethod
    def from_fields(cls, device, fields: dict) -> "SamplerObject":
        """From a PTX initializer `{ addr_mode_0 = wrap, filter_mode = linear, ... }`."""
        modes = [fields.get(f"addr_mode_{i}", "clamp_to_edge") for i in range(3)]
        return cls(device, address_mode=modes, filter_mode=fields.get("filter_mode", "nearest"),
                   force_unnormalized_coords=bool(int(fields.get("force_unnormalized_coords", 0))))

    def __int__(self):
        return self.handle

    def __index__(self):
        return self.handle


class SurfaceObject(_Object):
    kind = "surface"

    def __init__(self, device, array, *, dims=None, layered=False, cubemap=False, normalized=False):
        if not isinstance(array, np.ndarray) or not array.flags.c_contiguous or not array.flags.writeable:
            raise TextureError("a surface needs a writeable C-contiguous NumPy array (it is read and written in place)")
        data, dims, geometry = _layout(array, dims, layered, cubemap)
        super().__init__(device, data, dims, geometry)
        self.array = array
        self.normalized = bool(normalized)  # 8/16-bit integers read as UNORM/SNORM by formatted access
        self.bytes_per_texel = self.channels * self.dtype.itemsize
        self.raw = array.reshape(-1).view(np.uint8)  # the bytes, in place

    def byte_offsets(self, coords: Sequence[np.ndarray], size: int, mode: str, layer=None, sample_x=False):
        """(byte offsets into `raw`, in-range mask) for the x coordinate (bytes, or samples with
        `sample_x`), y/z texel coordinates and the layer (layered surfaces)."""
        x = np.asarray(coords[0]).astype(np.int64)
        if sample_x:
            x = x * self.bytes_per_texel
        row = self.width * self.bytes_per_texel
        ok = (x >= 0) & (x + size <= row)
        parts = [x]
        for d in range(1, self.dims):
            c = np.asarray(coords[d]).astype(np.int64)
            ok &= (c >= 0) & (c < self.size[d])
            parts.append(c)
        lay = np.zeros_like(x) if layer is None else np.asarray(layer).astype(np.int64)
        ok &= (lay >= 0) & (lay < self.layers)
        if mode == "clamp":
            parts[0] = np.clip(x, 0, row - size)
            parts[0] -= parts[0] % size
            for d in range(1, self.dims):
                parts[d] = np.clip(parts[d], 0, self.size[d] - 1)
            lay = np.clip(lay, 0, self.layers - 1)
        else:
            parts = [np.where(ok, p, 0) for p in parts]
            lay = np.where(ok, lay, 0)
        off = parts[0]
        stride = row
        for d in range(1, self.dims):
            off = off + parts[d] * stride
            stride *= self.size[d]
        return off + lay * stride, ok


def lookup(ctx, handle: np.ndarray, kind: Optional[str], what: str = ""):
    """The object behind a group's handles: one object (uniform handle) or a Fault."""
    from ..core.machine import Fault

    reg = getattr(ctx.gmem, "textures", None)
    h = np.unique(np.atleast_1d(np.asarray(handle)).astype(np.uint64))
    if reg is None or h.size == 0:
        raise Fault("no texture or surface objects on this device")
    if h.size > 1:
        raise Fault("texture/surface handles that differ between threads of one instruction are not supported")
    obj = reg.get(int(h[0]))
    if obj is None or (kind is not None and obj.kind != kind):
        if what and int(h[0]) == 0:
            raise Fault(f"{what} is not bound (Module.bind_texture / bind_sampler / bind_surface)")
        raise Fault(f"0x{int(h[0]):x} is not a live {kind or 'texture or surface'} object")
    return obj
