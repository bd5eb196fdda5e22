"""Tensor maps (the 128-byte CUtensorMap a cp.async.bulk.tensor instruction names) and the box
geometry of tiled tensor copies (ISA 5.5 "Tensors", 9.7.9.25.5).

`tensor_map(...)` is ptxvm's cuTensorMapEncodeTiled: it checks the driver's requirements and
returns a `TensorMap`, a 128-byte `bytes` object to pass as a `.param .align 64 .b8 [128]` kernel
argument (a __grid_constant__ CUtensorMap) or to copy into global memory. The bytes follow the
driver's own encoding as measured on the H200 (tensor_map_layout.py), so that tensormap.replace
edits the same bits and maps made by either side read the same; `decode` reads them back.

Everything in the map is innermost dimension first, as the driver and the instructions take it;
the Python API takes NumPy order (outermost first), like the array's own shape.

A box of a tiled copy starts at the instruction's coordinates; along dimension i it visits
ceil(box[i] / elementStrides[i]) positions c[i] + k * elementStrides[i] (the innermost stride is
ignored without interleave). In shared memory the box is dense, innermost dimension fastest; the
swizzle modes give every innermost row a whole swizzle span (32, 64 or 128 bytes; a narrower row is
padded) and permute its 16-byte chunks by the shared address (32B: bit 7 into bit 4; 64B: bits
8:7 into 5:4; 128B: bits 9:7 into 6:4). Positions outside the tensor read as zero (or the NaN
0x7ff7... with oob_fill="nan" for float types) and are not written by stores and reductions.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Optional

import numpy as np

from . import tensor_map_layout as L

SIZE = 128
ALIGN = L.ALIGN

# CUtensorMapDataType order: name -> (code, bytes, PTX element type for reductions)
DATA_TYPES = {
    "u8": (0, 1, "u8"), "u16": (1, 2, "u16"), "u32": (2, 4, "u32"), "s32": (3, 4, "s32"),
    "u64": (4, 8, "u64"), "s64": (5, 8, "s64"), "f16": (6, 2, "f16"), "f32": (7, 4, "f32"),
    "f64": (8, 8, "f64"), "bf16": (9, 2, "bf16"), "f32_ftz": (10, 4, "f32"), "tf32": (11, 4, "f32"),
    "tf32_ftz": (12, 4, "f32"),
}
BY_CODE = {v[0]: k for k, v in DATA_TYPES.items()}
FLOATS = ("f16", "f32", "f64", "bf16", "f32_ftz", "tf32", "tf32_ftz")
SWIZZLES = {"none": 0, "32B": 1, "64B": 2, "128B": 3}
SWIZZLE_SPAN = {0: None, 1: 32, 2: 64, 3: 128}
INTERLEAVES = {"none": 0, "16B": 1, "32B": 2}
OOB_FILLS = {"none": 0, "nan": 1}
L2_PROMOTIONS = {"none": 0, "64B": 1, "128B": 2, "256B": 3}
# NaN written for out-of-bounds elements with oob_fill="nan": the 16-bit pattern 0x7ff7 repeated
# (H200: f32 0x7ff77ff7, bf16 0x7ff7; the f16 and f64 values are the same pattern, not measured)
OOB_NAN = {2: 0x7FF7, 4: 0x7FF77FF7, 8: 0x7FF77FF77FF77FF7}

_NUMPY_NAMES = {"uint8": "u8", "uint16": "u16", "uint32": "u32", "int32": "s32", "uint64": "u64", "int64": "s64",
                "float16": "f16", "float32": "f32", "float64": "f64", "bfloat16": "bf16"}


class TensorMapError(ValueError):
    """A tensor map the driver would refuse (cuTensorMapEncodeTiled's CUDA_ERROR_INVALID_VALUE)."""


@dataclass(frozen=True)
class Desc:
    """A decoded tensor map; tuples innermost first."""

    rank: int
    dtype: str
    address: int
    dims: tuple
    strides: tuple    # bytes, dims 0..rank-1 (dims[0]'s is the element size)
    box: tuple
    element_strides: tuple
    swizzle: int
    interleave: int
    oob_nan: bool
    im2col: Optional[tuple] = None  # (lower corner, upper corner, channels, pixels): innermost first

    @property
    def itemsize(self) -> int:
        return DATA_TYPES[self.dtype][1]

    @property
    def counts(self) -> tuple:
        """Positions visited per dimension."""
        return tuple(b if i == 0 else -(-b // s) for i, (b, s) in enumerate(zip(self.box, self.element_strides)))

    @property
    def box_bytes(self) -> int:
        if self.im2col is not None:
            return self.im2col[2] * self.im2col[3] * self.itemsize
        return int(np.prod(self.counts)) * self.itemsize


class TensorMap(bytes):
    """128 bytes of tensor map; `.desc` is what they say, `.array` the device array it covers."""

    desc: Desc
    array: object

    def __new__(cls, raw: bytes, desc: Desc, array=None):
        obj = super().__new__(cls, raw)
        obj.desc = desc
        obj.array = array
        return obj

    def __repr__(self) -> str:
        d = self.desc
        return (f"TensorMap({d.dtype}, dims={d.dims}, box={d.box}, element_strides={d.element_strides}, "
                f"swizzle={d.swizzle}, address=0x{d.address:x})")


def encode(d: Desc, l2: int = 0) -> bytes:
    """The map's 128 bytes in the driver's layout (tensor_map_layout.py)."""
    raw = bytearray(SIZE)
    L.put_u64(raw, 0, d.address)
    L.MODE.put(raw, 0 if d.im2col is None else 1)
    L.RANK.put(raw, d.rank - 1)
    L.put_elemtype(raw, d.dtype)
    L.INTERLEAVE.put(raw, d.interleave)
    L.SWIZZLE.put(raw, d.swizzle)
    L.FILL.put(raw, int(d.oob_nan))
    L.L2.put(raw, l2)
    for i, s in enumerate(d.strides[1:]):
        L.put_stride(raw, i, s)
    for i, n in enumerate(d.dims):
        L.dim_field(i).put(raw, n - 1)
    for i, e in enumerate(d.element_strides):
        L.estride_field(i).put(raw, e - 1)
    if d.im2col is None:
        for i, b in enumerate(d.box):
            raw[L.box_offset(i)] = b - 1
    else:
        lower, upper, channels, pixels = d.im2col
        raw[L.box_offset(0)] = channels - 1
        L.put_corners(raw, d.rank, lower, upper)
        struct.pack_into("<I", raw, 60, pixels - 1)
    struct.pack_into("<I", raw, 64, _driver_box_bytes(d))
    struct.pack_into("<I", raw, 72, L.SWIZZLE_PATTERN[d.swizzle])
    return bytes(raw)


def _driver_box_bytes(d: Desc) -> int:
    """The byte count the driver keeps at 64: floor(box / stride) per dimension (the copies
    count ceil and ignore the innermost stride; the field is the driver's own)."""
    if d.im2col is not None:
        return d.box_bytes
    return int(np.prod([b // e for b, e in zip(d.box, d.element_strides)])) * d.itemsize


def decode(raw) -> Desc:
    """The map in 128 bytes (the driver's layout), or TensorMapError if they cannot be one."""
    raw = bytes(raw)
    mode, dtype = L.MODE.get(raw), L.get_elemtype(raw)
    rank = L.RANK.get(raw) + 1
    address = L.get_u64(raw, 0)
    if mode not in (0, 1) or dtype is None or address == 0:
        raise TensorMapError("the tensor-map operand does not point at a tensor map (no global address, or an "
                             "unknown mode or element type)")
    dims = tuple(L.dim_field(i).get(raw) + 1 for i in range(rank))
    strides = (DATA_TYPES[dtype][1],) + tuple(L.get_stride(raw, i) for i in range(rank - 1))
    es = tuple(L.estride_field(i).get(raw) + 1 for i in range(rank))
    im2col = None
    if mode == 1:
        if rank < 3:
            raise TensorMapError(f"an im2col tensor map of rank {rank} (3 to 5)")
        lower, upper = L.get_corners(raw, rank)
        channels, pixels = raw[L.box_offset(0)] + 1, struct.unpack_from("<I", raw, 60)[0] + 1
        im2col = (lower, upper, channels, pixels)
        box = (channels,) + (1,) * (rank - 1)
    else:
        box = tuple(raw[L.box_offset(i)] + 1 for i in range(rank))
    return Desc(rank, dtype, address, dims, strides, box, es, L.SWIZZLE.get(raw), L.INTERLEAVE.get(raw),
                bool(L.FILL.get(raw)), im2col)


# ------------------------------------------------------------------------------------ the API


def _dtype_name(array, dtype: Optional[str]) -> str:
    if dtype is not None:
        if dtype not in DATA_TYPES:
            raise TensorMapError(f"unknown tensor data type {dtype!r} (one of {', '.join(DATA_TYPES)})")
        return dtype
    name = np.dtype(array.dtype).name
    if name not in _NUMPY_NAMES:
        raise TensorMapError(f"no tensor data type for elements of {name}; name one with dtype=")
    return _NUMPY_NAMES[name]


def tensor_map(array, box, *, element_strides=None, swizzle="none", interleave="none", oob_fill="none",
               l2_promotion="none", dtype: Optional[str] = None, shape=None, strides=None) -> TensorMap:
    """A tiled tensor map over `array` (a NumPy array, copied to the device, or a DeviceArray),
    like cuTensorMapEncodeTiled. `box`, `element_strides`, `shape` and `strides` (bytes) are in
    NumPy order; `shape`/`strides` describe a view of the array's memory (padded rows), by
    default its own C-contiguous layout. swizzle: none, 32B, 64B, 128B; oob_fill: none (zeros)
    or nan (float types); interleave: only none (the NC/8HWC8 layouts are not supported)."""
    from ..core.device import DeviceArray, default_device

    dev = array if isinstance(array, DeviceArray) else default_device().to_device(np.ascontiguousarray(array))
    t = _dtype_name(dev, dtype)
    size = DATA_TYPES[t][1]
    shape = tuple(int(x) for x in (dev.shape if shape is None else shape))
    rank = len(shape)
    if not 1 <= rank <= 5:
        raise TensorMapError(f"tensor rank {rank}: 1 to 5 dimensions")
    if strides is None:
        strides, s = [], size
        for d in reversed(shape):
            strides.append(s)
            s *= d
        strides = tuple(reversed(strides))
    strides = tuple(int(x) for x in strides)
    box = tuple(int(x) for x in box)
    es = tuple(int(x) for x in (element_strides or (1,) * rank))
    if interleave not in INTERLEAVES:
        raise TensorMapError(f"interleave must be one of {tuple(INTERLEAVES)}")
    if interleave != "none":
        raise TensorMapError("interleaved tensor maps (interleave='16B'/'32B') are not supported by ptxvm")
    if swizzle not in SWIZZLES or oob_fill not in OOB_FILLS or l2_promotion not in L2_PROMOTIONS:
        raise TensorMapError(f"swizzle in {tuple(SWIZZLES)}, oob_fill in {tuple(OOB_FILLS)}, "
                             f"l2_promotion in {tuple(L2_PROMOTIONS)}")
    _check(shape, strides, box, es, size, t, swizzle, oob_fill, dev, rank)
    desc = Desc(rank, t, int(dev.address), shape[::-1], strides[::-1], box[::-1], es[::-1], SWIZZLES[swizzle],
                INTERLEAVES[interleave], oob_fill == "nan")
    return TensorMap(encode(desc, L2_PROMOTIONS[l2_promotion]), desc, dev)


def tensor_map_im2col(array, *, lower, upper, channels: int, pixels: int, swizzle="none", oob_fill="none",
                      l2_promotion="none", dtype: Optional[str] = None, shape=None, strides=None) -> TensorMap:
    """An im2col tensor map (cuTensorMapEncodeIm2col) over an N[D][H]WC `array` (NumPy order, 3 to
    5 dimensions). `lower`/`upper`: the bounding-box corners, one per spatial dimension, in the
    order the driver takes them; `channels` per pixel and `pixels` per column as the driver's
    channelsPerPixel / pixelsPerColumn."""
    from ..core.device import DeviceArray, default_device

    dev = array if isinstance(array, DeviceArray) else default_device().to_device(np.ascontiguousarray(array))
    t = _dtype_name(dev, dtype)
    size = DATA_TYPES[t][1]
    shape = tuple(int(x) for x in (dev.shape if shape is None else shape))
    rank = len(shape)
    if not 3 <= rank <= 5:
        raise TensorMapError(f"an im2col tensor has 3 to 5 dimensions, not {rank}")
    if strides is None:
        strides, st = [], size
        for d in reversed(shape):
            strides.append(st)
            st *= d
        strides = tuple(reversed(strides))
    lower, upper = tuple(int(x) for x in lower), tuple(int(x) for x in upper)
    if len(lower) != rank - 2 or len(upper) != rank - 2:
        raise TensorMapError(f"lower and upper corners need {rank - 2} entries (the spatial dimensions)")
    if not 0 < channels <= 256 or not 0 < pixels <= 1024:
        raise TensorMapError("channels 1 .. 256, pixels 1 .. 1024")
    if swizzle not in SWIZZLES or oob_fill not in OOB_FILLS or l2_promotion not in L2_PROMOTIONS:
        raise TensorMapError(f"swizzle in {tuple(SWIZZLES)}, oob_fill in {tuple(OOB_FILLS)}")
    box = (1,) * (rank - 1) + (channels,)
    _check(shape, tuple(strides), box, (1,) * rank, size, t, swizzle, oob_fill, dev, rank)
    desc = Desc(rank, t, int(dev.address), shape[::-1], tuple(strides)[::-1], box[::-1], (1,) * rank,
                SWIZZLES[swizzle], 0, oob_fill == "nan", (lower, upper, int(channels), int(pixels)))
    return TensorMap(encode(desc, L2_PROMOTIONS[l2_promotion]), desc, dev)


def im2col_layout(d: Desc, coords, offsets):
    """An .im2col load: (global address, in-bounds mask, shared offset) of every element.

    Pixels are visited from the pixel the coordinates name, W fastest, through the bounding box
    (per spatial dimension from its lower corner to the dimension's end plus its upper corner),
    then on to the next image; each visited pixel is read displaced by the im2col offsets, its
    `channels` channels from coordinate c on."""
    lower, upper, channels, pixels = d.im2col
    spatial = d.rank - 2
    lo = [lower[i] for i in range(spatial)]
    ext = [d.dims[1 + i] - 1 + upper[i] - lower[i] + 1 for i in range(spatial)]
    lin = 0
    for i in reversed(range(spatial)):
        lin = lin * ext[i] + (int(coords[1 + i]) - lo[i])
    lin += int(coords[d.rank - 1]) * int(np.prod(ext))
    p = lin + np.arange(pixels, dtype=np.int64)
    pos = []
    rest = p
    for i in range(spatial):
        pos.append(lo[i] + rest % ext[i] + int(offsets[i]))
        rest = rest // ext[i]
    n = rest
    ch = int(coords[0]) + np.arange(channels, dtype=np.int64)
    P, CH = np.meshgrid(np.arange(pixels), ch, indexing="ij")
    ok = (CH >= 0) & (CH < d.dims[0]) & (n[P] < d.dims[d.rank - 1]) & (n[P] >= 0)
    addr = d.address + CH * d.strides[0] + n[P] * d.strides[d.rank - 1]
    for i in range(spatial):
        q = pos[i][P]
        ok &= (q >= 0) & (q < d.dims[1 + i])
        addr = addr + q * d.strides[1 + i]
    smem = np.arange(pixels * channels, dtype=np.int64) * d.itemsize
    return addr.reshape(-1), ok.reshape(-1), smem


def _check(shape, strides, box, es, size, t, swizzle, oob_fill, dev, rank):
    """cuTensorMapEncodeTiled's requirements (CUDA 13 cuda.h)."""
    if len(strides) != rank or len(box) != rank or len(es) != rank:
        raise TensorMapError("shape, strides, box and element_strides need one entry per dimension")
    if dev.address % 16:
        raise TensorMapError("the tensor's address must be 16-byte aligned")
    if any(not 0 < d <= 2**32 for d in shape):
        raise TensorMapError("every dimension must be 1 .. 2^32 elements")
    if strides[-1] != size:
        raise TensorMapError("the innermost dimension must be contiguous")
    for s in strides[:-1]:  # 0 too: the H200's driver encodes it (probe_tmap_layout.py stride_0_*)
        if s % 16 or not 0 <= s < 2**40:
            raise TensorMapError(f"byte stride {s}: a multiple of 16 below 2^40")
    if any(not 0 < b <= 256 for b in box):
        raise TensorMapError("every box dimension must be 1 .. 256")
    if box[-1] * size % 16:
        raise TensorMapError(f"the box's innermost dimension ({box[-1]} x {size} bytes) must be a multiple of 16 bytes")
    if any(not 1 <= e <= 8 for e in es):
        raise TensorMapError("element strides must be 1 .. 8")
    span = SWIZZLE_SPAN[SWIZZLES[swizzle]]
    if span and box[-1] * size > span:
        raise TensorMapError(f"with swizzle {swizzle} the box's innermost dimension may span at most {span} bytes")
    if oob_fill == "nan" and t not in FLOATS:
        raise TensorMapError("oob_fill='nan' needs a floating-point data type")
    extent = sum((d - 1) * s for d, s in zip(shape, strides)) + size
    if extent > dev.nbytes:
        raise TensorMapError(f"the tensor spans {extent} bytes, the array has {dev.nbytes}")


# ------------------------------------------------------------------------------- box geometry


def box_layout(d: Desc, coords):
    """For one box at `coords` (innermost first): (global byte address, in-bounds mask,
    shared byte offset before swizzling) of every element, in shared-memory order."""
    counts = d.counts
    grids = np.meshgrid(*[np.arange(n, dtype=np.int64) for n in reversed(counts)], indexing="ij")
    ks = [g.reshape(-1) for g in reversed(grids)]  # ks[i]: position index along dim i
    addr = np.full(ks[0].size, d.address, dtype=np.int64)
    ok = np.ones(ks[0].size, dtype=bool)
    for i in range(d.rank):
        step = 1 if i == 0 else d.element_strides[i]
        pos = int(coords[i]) + ks[i] * step
        ok &= (pos >= 0) & (pos < d.dims[i])
        addr += pos * d.strides[i]
    smem = np.arange(ks[0].size, dtype=np.int64) * d.itemsize
    span = SWIZZLE_SPAN[d.swizzle]
    if span:  # swizzled boxes keep one swizzle span per innermost row (narrower rows are padded)
        smem = (smem // (counts[0] * d.itemsize)) * span + smem % (counts[0] * d.itemsize)
    return addr, ok, smem


def swizzle(offsets: np.ndarray, mode: int) -> np.ndarray:
    """Shared addresses after the swizzle: 16-byte chunk bits 4.. XOR the row bits 7.."""
    if mode == 0:
        return offsets
    mask = {1: 1, 2: 3, 3: 7}[mode]
    return offsets ^ (((offsets >> 7) & mask) << 4)
