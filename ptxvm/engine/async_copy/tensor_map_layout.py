"""The bytes of a tensor map, as the H200's driver writes them (cuTensorMapEncodeTiled / Im2col,
read off the maps tools/device/record_tma.py and probe_tmap_layout.py recorded; see
docs/hardware-notes.md), and the fields tensormap.replace edits.

All fields little-endian, dimensions innermost first:

    0   u64  global address
    8   u32  bits 0-3 mode (0 tile, 1 im2col), 4-6 rank - 1, 7-10 element type (tensormap.replace's
             elemtype numbering, tf32 stored as f32 / f32_ftz with bit 16 set), 11-12 interleave,
             13-14 swizzle (tensormap.replace also writes the value's bit 2 to bit 22),
             15 float OOB fill (NaN), 17-18 L2 promotion, 21 allocation class large (PTX 9.5
             tensormap.replace .alloc_large sets it, .alloc_small clears it; tensormap.query
             .alloc_class_large reads it: measured on the H200)
    12  u32  x4  byte stride of dimensions 1..4, >> 4: bits 0-31 (bits 32-35 in the nibbles of 28)
    28  u32  bits 4i..4i+3: bits 32-35 of stride i (tensormap.replace .global_stride ordinal 4
             writes the low 32 bits of its value over this whole word, then bits 32-35 to bits 16-19)
    32  u32  x5  dimension - 1
    52  u32  bits 3i..3i+2: element stride of dimension i - 1
    55  u8   x5  box dimension - 1 (im2col: byte 55 channels - 1; bytes 56-59 the corners:
             lower corner in the low half-word, upper in the high one, per spatial dimension
             16 bits (3-d), 8 bits (4-d) or 5 bits (5-d), signed)
    60  u32  im2col: pixels per column - 1
    64  u32  bytes of prod(floor(box / element stride)) elements, every dimension (the driver's
             figure; the copies themselves count ceil and ignore the innermost stride)
    72  u32  bytes of one swizzle pattern (16 without swizzle, else 8 rows of the span)
"""
from __future__ import annotations

import struct

SIZE = 128
ALIGN = 64  # a CUtensorMap is 64-byte aligned (in global memory and as a kernel parameter)
# element types in the map (and tensormap.replace .elemtype): name -> code
ELEMTYPES = {"u8": 0, "u16": 1, "u32": 2, "s32": 3, "u64": 4, "s64": 5, "f16": 6, "f32": 7, "f32_ftz": 8,
             "f64": 9, "bf16": 10, "tf32": 11, "tf32_ftz": 12}
BY_ELEMTYPE = {v: k for k, v in ELEMTYPES.items()}
SWIZZLE_PATTERN = {0: 16, 1: 256, 2: 512, 3: 1024}
CORNER_BITS = {3: 16, 4: 8, 5: 5}


class Word:
    """A bit field of the little-endian u32 at `offset`."""

    def __init__(self, offset: int, lo: int, bits: int):
        self.offset, self.lo, self.bits = offset, lo, bits

    def get(self, raw) -> int:
        w = struct.unpack_from("<I", raw, self.offset)[0]
        return (w >> self.lo) & ((1 << self.bits) - 1)

    def put(self, raw: bytearray, value: int) -> None:
        w = struct.unpack_from("<I", raw, self.offset)[0]
        m = ((1 << self.bits) - 1) << self.lo
        struct.pack_into("<I", raw, self.offset, (w & ~m) | ((int(value) << self.lo) & m))


MODE, RANK, ELEMTYPE, INTERLEAVE, SWIZZLE, FILL, L2 = (Word(8, 0, 4), Word(8, 4, 3), Word(8, 7, 4), Word(8, 11, 2),
                                                      Word(8, 13, 2), Word(8, 15, 1), Word(8, 17, 2))
TF32, SWIZZLE_HI = Word(8, 16, 1), Word(8, 22, 1)
ALLOC_LARGE = Word(8, 21, 1)
TF32_AS = {"tf32": "f32", "tf32_ftz": "f32_ftz"}


def stride_field(i: int) -> Word:
    """Bits 0-31 of the stride of dimension i + 1 (i = 0..3), in 16-byte units."""
    return Word(12 + 4 * i, 0, 32)


def stride_high(i: int) -> Word:
    """Bits 32-35 of the stride of dimension i + 1, in 16-byte units."""
    return Word(28, 4 * i, 4)


def get_stride(raw, i: int) -> int:
    return (stride_field(i).get(raw) | (stride_high(i).get(raw) << 32)) << 4


def put_stride(raw: bytearray, i: int, stride: int) -> None:
    stride_field(i).put(raw, (stride >> 4) & 0xFFFFFFFF)
    stride_high(i).put(raw, stride >> 36)


def put_elemtype(raw: bytearray, name: str) -> None:
    ELEMTYPE.put(raw, ELEMTYPES[TF32_AS.get(name, name)])
    TF32.put(raw, int(name in TF32_AS))


def get_elemtype(raw) -> str:
    name = BY_ELEMTYPE.get(ELEMTYPE.get(raw))
    if TF32.get(raw) and name in ("f32", "f32_ftz"):
        return "tf32" if name == "f32" else "tf32_ftz"
    return name


def replace_parts(field: str, ord_: int, v):
    """tensormap.replace's writes for the fields that span several bit fields: [(Word, value)]
    (v as the map stores it, per lane)."""
    if field == "stride":  # ordinal 4: the low word is word 28 itself, then its nibble 4
        return [(stride_field(ord_), v & 0xFFFFFFFF), (stride_high(ord_), v >> 32)]
    if field == "elemtype":  # 11 and 12 (tf32, tf32.ftz) are f32 / f32.ftz with the tf32 bit
        tf32 = v >= 11
        return [(ELEMTYPE, v - tf32 * 4)] + ([(TF32, 1)] if tf32.all() else [])
    if field == "swizzle":
        return [(SWIZZLE, v & 3), (SWIZZLE_HI, v >> 2)]
    raise ValueError(field)


def dim_field(i: int) -> Word:
    return Word(32 + 4 * i, 0, 32)


def estride_field(i: int) -> Word:
    return Word(52, 3 * i, 3)


def box_offset(i: int) -> int:
    return 55 + i


def put_u64(raw: bytearray, offset: int, value: int) -> None:
    struct.pack_into("<Q", raw, offset, int(value) & (2**64 - 1))


def get_u64(raw, offset: int) -> int:
    return struct.unpack_from("<Q", raw, offset)[0]


def put_corners(raw: bytearray, rank: int, lower, upper) -> None:
    bits = CORNER_BITS[rank]
    lo = hi = 0
    for i, (a, b) in enumerate(zip(lower, upper)):
        lo |= (int(a) & ((1 << bits) - 1)) << (bits * i)
        hi |= (int(b) & ((1 << bits) - 1)) << (bits * i)
    struct.pack_into("<HH", raw, 56, lo, hi)


def get_corners(raw, rank: int):
    bits = CORNER_BITS[rank]
    lo, hi = struct.unpack_from("<HH", raw, 56)

    def field(w, i):
        v = (w >> (bits * i)) & ((1 << bits) - 1)
        return v - (1 << bits) if v >> (bits - 1) else v

    n = rank - 2
    return tuple(field(lo, i) for i in range(n)), tuple(field(hi, i) for i in range(n))
