"""Texture and surface objects (cudaTextureObject_t / cudaSurfaceObject_t) and the sampling math.

An object is registered with its device (`Device.textures`); a kernel sees only its 64-bit handle
and the engine resolves it when an instruction runs. A texture keeps its own copy of the data (a
CUDA array is opaque storage); a surface reads and writes the host array it was made from.

Data layout: `[depth][height][width][channel]`, spatial axes outermost-first like C arrays; the
channel axis is present when there is more than one channel (or `dims` says so).

Sampling follows the CUDA programming guide's texture-fetching appendix, checked against an H200
(tests/goldens/kernels/texture_probes.npz):
* point: texel floor(x) (x = u * size for normalized coordinates), then the address mode;
* linear: x - 0.5 = i + a, the texels i and i+1 blended with weight a stored in 9-bit fixed point
  with 8 fraction bits, rounded to nearest (ties up): a' = floor(a * 256 + 0.5) / 256;
* address modes act on texel indices: clamp, wrap (mod size), mirror (period 2 * size), border
  (the border colour, zero by default). Wrap and mirror need normalized coordinates; with
  unnormalized ones the hardware clamps, as here;
* normalized-float reads: unsigned / (2^n - 1), signed / (2^(n-1) - 1) clamped to -1;
* channels a texture does not have read as 0.
"""
from __future__ import annotations

import itertools
from typing import Optional, Sequence, Union

import numpy as np

ADDRESS_MODES = ("wrap", "clamp", "mirror", "border")  # cudaAddressMode 0..3
FILTER_MODES = ("point", "linear")
READ_MODES = ("element", "normalized_float")
DTYPES = {np.dtype(t) for t in (np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.float16, np.float32)}
# cudaChannelFormatKind: signed 0, unsigned 1, float 2
_KIND = {"i": 0, "u": 1, "f": 2}


class TextureError(ValueError):
    pass


class _Registry:
    """Live texture and surface objects of one device, by handle."""

    def __init__(self):
        self.objects: dict[int, object] = {}
        self._next = 1

    def add(self, obj) -> int:
        h = self._next
        self._next += 1
        self.objects[h] = obj
        return h

    def get(self, handle: int):
        return self.objects.get(int(handle))

    def remove(self, handle: int) -> None:
        self.objects.pop(int(handle), None)


def _layout(array: np.ndarray, dims: Optional[int]):
    a = np.asarray(array)
    if a.dtype not in DTYPES:
        raise TextureError(f"texture/surface element type {a.dtype} is not supported "
                           "(u8, s8, u16, s16, u32, s32, f16, f32)")
    if dims is None:
        dims = {1: 1, 2: 2, 3: 2, 4: 3}.get(a.ndim)
        if dims is None:
            raise TextureError(f"cannot use a {a.ndim}-dimensional array as a texture")
        if a.ndim == 3 and a.shape[-1] not in (1, 2, 4):
            dims = 3
    if dims not in (1, 2, 3):
        raise TextureError("textures and surfaces are 1D, 2D or 3D (layered, cube and mipmapped "
                           "textures are not supported)")
    if a.ndim == dims:
        a = a[..., None]
    elif a.ndim != dims + 1:
        raise TextureError(f"a {dims}D texture needs a {dims}- or {dims + 1}-dimensional array, got shape {a.shape}")
    if a.shape[-1] not in (1, 2, 4):
        raise TextureError(f"textures and surfaces have 1, 2 or 4 channels, not {a.shape[-1]}")
    if 0 in a.shape:
        raise TextureError("empty texture")
    return a, dims


class _Object:
    kind = ""

    def __init__(self, device, data: np.ndarray, dims: int):
        self.device = device
        self.data = data  # [d][h][w][c] with dims spatial axes
        self.dims = dims
        self.channels = data.shape[-1]
        self.dtype = data.dtype
        sizes = data.shape[:-1][::-1]  # width, height, depth
        self.size = tuple(sizes) + (1,) * (3 - dims)  # (width, height, depth)
        self.handle = device.textures.add(self)

    @property
    def width(self):
        return self.size[0]

    @property
    def height(self):
        return self.size[1] if self.dims >= 2 else 0

    @property
    def depth(self):
        return self.size[2] if self.dims >= 3 else 0

    def destroy(self) -> None:
        self.device.textures.remove(self.handle)

    def __int__(self):
        return self.handle

    def __index__(self):
        return self.handle

    # txq/suq: cudaChannelFormatKind-style codes are what the hardware reports through
    # cudaResourceDesc; the PTX ISA leaves the encodings of channel_data_type/order open.
    def channel_data_type(self) -> int:
        return _KIND[self.dtype.kind] * 8 + self.dtype.itemsize

    def channel_order(self) -> int:
        return self.channels


class TextureObject(_Object):
    kind = "texture"

    def __init__(self, device, array, *, address_mode="clamp", filter_mode="point", normalized_coords=False,
                 read_mode="element", border_color=None, srgb=False, dims=None):
        data, dims = _layout(array, dims)
        modes = (address_mode,) * 3 if isinstance(address_mode, str) else tuple(address_mode)
        if len(modes) < dims or any(m not in ADDRESS_MODES for m in modes):
            raise TextureError(f"address_mode must be one of {ADDRESS_MODES} or one per dimension")
        if filter_mode not in FILTER_MODES:
            raise TextureError(f"filter_mode must be one of {FILTER_MODES}")
        if read_mode not in READ_MODES:
            raise TextureError(f"read_mode must be one of {READ_MODES}")
        if srgb:
            raise TextureError("sRGB textures are not supported")
        if data.dtype.kind in "iu" and data.dtype.itemsize == 4 and read_mode == "normalized_float":
            raise TextureError("normalized_float reads need 8- or 16-bit integer elements")
        if filter_mode == "linear" and data.dtype.kind in "iu" and read_mode == "element":
            raise TextureError("linear filtering of integer elements needs read_mode='normalized_float'")
        super().__init__(device, np.array(data, copy=True), dims)
        self.address_mode = tuple(modes[:dims]) + ("clamp",) * (3 - dims)
        self.filter_mode = filter_mode
        self.normalized_coords = bool(normalized_coords)
        self.read_mode = read_mode
        bc = np.zeros(4, np.float32) if border_color is None else np.asarray(border_color, np.float32)
        self.border_color = np.pad(bc, (0, 4 - bc.size))
        self._values = self._convert(self.data)

    def _convert(self, data):
        """Texel values as the fetch returns them before filtering: float32 for float reads, the
        32-bit integer bits for element reads of integer textures."""
        k, bits = data.dtype.kind, data.dtype.itemsize * 8
        if k == "f":
            return data.astype(np.float32)
        if self.read_mode == "normalized_float":
            if k == "u":
                return (data.astype(np.float64) / (2 ** bits - 1)).astype(np.float32)
            return np.maximum(data.astype(np.float64) / (2 ** (bits - 1) - 1), -1.0).astype(np.float32)
        return data.astype(np.int64).astype(np.uint32 if k == "u" else np.int32).view(np.uint32)

    @property
    def returns_float(self) -> bool:
        return self.data.dtype.kind == "f" or self.read_mode == "normalized_float"

    # ------------------------------------------------------------------ sampling
    def _index(self, i: np.ndarray, d: int):
        """(texel indices inside the texture, in-range mask) after dimension d's address mode."""
        n = self.size[d]
        mode = self.address_mode[d]
        if not self.normalized_coords and mode in ("wrap", "mirror"):
            mode = "clamp"
        if mode == "clamp":
            return np.clip(i, 0, n - 1), None
        if mode == "border":
            ok = (i >= 0) & (i < n)
            return np.clip(i, 0, n - 1), ok
        if mode == "wrap":
            return np.mod(i, n), None
        m = np.mod(i, 2 * n)
        return np.where(m >= n, 2 * n - 1 - m, m), None

    def _texels(self, idx: list, oks: list):
        """(n, 4) texel values at integer indices (one array per dimension)."""
        d = self.dims
        sel = tuple(idx[k] for k in reversed(range(d)))
        vals = self._values[sel]  # (n, channels)
        n = vals.shape[0]
        out = np.zeros((n, 4), vals.dtype)
        out[:, : self.channels] = vals
        ok = None
        for o in oks:
            if o is not None:
                ok = o if ok is None else ok & o
        if ok is not None:
            border = self.border_color if vals.dtype == np.float32 else self.border_color.astype(np.int64).astype(np.uint32)
            out[~ok] = border
        return out

    def _scaled(self, coords: Sequence[np.ndarray], d: int):
        x = np.asarray(coords[d], np.float32)
        if self.normalized_coords:
            return x.astype(np.float64) * self.size[d]  # exact: no f32 rounding of u * size
        return x

    def fetch_int(self, coords: Sequence[np.ndarray]) -> np.ndarray:
        """Integer texel coordinates (tex with .s32 coordinates): (n, 4) values."""
        idx, ok = [], None
        for d in range(self.dims):
            i = np.asarray(coords[d]).astype(np.int64)
            inside = (i >= 0) & (i < self.size[d])
            ok = inside if ok is None else ok & inside
            idx.append(np.clip(i, 0, self.size[d] - 1))
        out = self._texels(idx, [None])
        out[~ok] = 0  # integer coordinates outside the texture read zero, whatever the address mode
        return out

    def sample(self, coords: Sequence[np.ndarray]) -> np.ndarray:
        """Float coordinates: (n, 4) values (float32, or uint32 bits of integer element reads)."""
        if self.filter_mode == "point" or not self.returns_float:
            idx, oks = [], []
            for d in range(self.dims):
                x = self._scaled(coords, d)
                i, ok = self._index(_floor_index(x), d)
                idx.append(i)
                oks.append(ok)
            return self._texels(idx, oks)
        lows, weights = [], []
        for d in range(self.dims):
            base, w = _fixed_point(self._scaled(coords, d))
            lows.append(base)
            weights.append(w)
        n = lows[0].size
        acc = np.zeros((n, 4), np.float64)
        for corner, wt in zip(itertools.product((0, 1), repeat=self.dims), _corner_weights(weights)):
            idx, oks = [], []
            for d, c in enumerate(corner):
                i, ok = self._index(lows[d] + c, d)
                idx.append(i)
                oks.append(ok)
            acc += wt[:, None] * self._texels(idx, oks).astype(np.float64)
        if self.data.dtype == np.float16:  # filtered f16 texels come back at f16 precision (H200)
            return acc.astype(np.float16).astype(np.float32)
        return acc.astype(np.float32)

    def gather(self, coords: Sequence[np.ndarray], comp: int) -> np.ndarray:
        """tld4: channel `comp` of the 2x2 footprint of bilinear filtering at (x, y), in the order
        (i, j+1), (i+1, j+1), (i+1, j), (i, j) as the ISA lists them (x, y, z, w)."""
        lows = []
        for d in range(2):
            lows.append(_fixed_point(self._scaled(coords, d))[0])
        out = []
        for cx, cy in ((0, 1), (1, 1), (1, 0), (0, 0)):
            (ix, okx), (iy, oky) = self._index(lows[0] + cx, 0), self._index(lows[1] + cy, 1)
            out.append(self._texels([ix, iy], [okx, oky])[:, comp])
        return np.stack(out, axis=1)


class SurfaceObject(_Object):
    kind = "surface"

    def __init__(self, device, array, *, dims=None):
        if not isinstance(array, np.ndarray) or not array.flags.c_contiguous or not array.flags.writeable:
            raise TextureError("a surface needs a writeable C-contiguous NumPy array (it is read and written in place)")
        data, dims = _layout(array, dims)
        super().__init__(device, data, dims)
        self.array = array
        self.bytes_per_texel = self.channels * self.dtype.itemsize
        self.raw = array.reshape(-1).view(np.uint8)  # the bytes, in place

    def byte_offsets(self, coords: Sequence[np.ndarray], size: int, mode: str):
        """(byte offsets into `raw`, in-range mask) for the x byte coordinate and y/z texel coordinates."""
        x = np.asarray(coords[0]).astype(np.int64)
        row = self.width * self.bytes_per_texel
        ok = (x >= 0) & (x + size <= row)
        parts = [x]
        for d in range(1, self.dims):
            c = np.asarray(coords[d]).astype(np.int64)
            ok &= (c >= 0) & (c < self.size[d])
            parts.append(c)
        if mode == "clamp":
            parts[0] = np.clip(x, 0, row - size)
            parts[0] -= parts[0] % size
            for d in range(1, self.dims):
                parts[d] = np.clip(parts[d], 0, self.size[d] - 1)
        else:
            parts = [np.where(ok, p, 0) for p in parts]
        off = parts[0]
        stride = row
        for d in range(1, self.dims):
            off = off + parts[d] * stride
            stride *= self.size[d]
        return off, ok


def _corner_weights(weights):
    """The weight of each corner of the footprint (corners in itertools.product order, the first
    dimension slowest), in units of 1/256. In 2D the hardware rounds the product of the two high
    weights to 1/256 and derives the others from it, so the weights still sum to one."""
    if len(weights) == 1:
        a = weights[0]
        return [1.0 - a, a]
    if len(weights) == 2:
        a, b = weights
        ab = TIE(a * b * 256.0) / 256.0
        return [1.0 - a - b + ab, b - ab, a - ab, ab]
    # 3D: the rule is not pinned yet; the closest one found (texture_probes tex3d_linear: 136 of
    # 2048 samples differ, by up to ~1e-2) expands the product with each monomial rounded to 1/256.
    a, b, c = weights
    ab, ac, bc = TIE(a * b * 256) / 256, TIE(a * c * 256) / 256, TIE(b * c * 256) / 256
    abc = TIE(ab * c * 256) / 256
    ws = []
    for dx, dy, dz in itertools.product((0, 1), repeat=3):
        sa, sb, sc = (1 if dx else -1), (1 if dy else -1), (1 if dz else -1)
        a0, b0, c0 = 1 - dx, 1 - dy, 1 - dz
        ws.append(a0 * b0 * c0 + sa * a * b0 * c0 + sb * b * a0 * c0 + sc * c * a0 * b0 + sa * sb * ab * c0
                  + sa * sc * ac * b0 + sb * sc * bc * a0 + sa * sb * sc * abc)
    return ws


TIE = lambda x: np.floor(x + 0.5)


def _fixed_point(x):
    """(texel index, weight) of linear filtering: x - 0.5 in fixed point with 8 fraction bits,
    rounded to nearest (a fraction that rounds up to 1 moves to the next texel)."""
    t = np.floor((np.asarray(x, np.float64) - 0.5) * 256.0 + 0.5)
    t = _clip_index(t)
    return t >> 8, (t & 255) / 256.0


def _floor_index(x: np.ndarray) -> np.ndarray:
    return _clip_index(np.floor(np.asarray(x, np.float64)))


def _clip_index(f: np.ndarray) -> np.ndarray:
    f = np.nan_to_num(np.asarray(f, np.float64), nan=0.0)
    return np.clip(f, -(2 ** 40), 2 ** 40).astype(np.int64)


def lookup(ctx, handle: np.ndarray, kind: Optional[str]):
    """The objects behind a group's handles: one object (uniform handle) or a Fault."""
    from .machine import Fault

    reg = getattr(ctx.gmem, "textures", None)
    h = np.unique(np.atleast_1d(np.asarray(handle)).astype(np.uint64))
    if reg is None or h.size == 0:
        raise Fault("no texture or surface objects on this device")
    if h.size > 1:
        raise Fault("texture/surface handles that differ between threads of one instruction are not supported")
    obj = reg.get(int(h[0]))
    if obj is None or (kind is not None and obj.kind != kind):
        raise Fault(f"0x{int(h[0]):x} is not a live {kind or 'texture or surface'} object")
    return obj
