"""Formatted surface access (sust.p, sured.p): a vector of 32-bit values converted to the surface's
sample format. The source is f32 for float and normalized formats, u32 for unsigned and s32 for
signed integer formats (ISA 9.7.11.2). Source elements beyond the surface's channels are ignored;
channels the source does not give are written as 0 (the ISA leaves them unpredictable)."""
from __future__ import annotations

import numpy as np


def formatted_store(surf, vals: np.ndarray) -> np.ndarray:
    """(n, bytes per sample) of the samples that 32-bit source vectors `vals` (n, count) become."""
    n, count = vals.shape
    ch = surf.channels
    src = np.zeros((n, ch), np.uint32)
    src[:, : min(ch, count)] = vals[:, :ch].astype(np.uint32)
    out = convert(surf.dtype, src, getattr(surf, "normalized", False))
    return np.ascontiguousarray(out).view(np.uint8).reshape(n, surf.bytes_per_texel)


# |x| is truncated to this many fraction bits before scaling: where the H200 departs from
# round(x * max). UNORM8 keeps only 12 (floor(x * 4096) * 255 / 4096, then ties toward zero), so
# 0x3e819810 (0.25311327, x * 255 = 64.544) stores 64, not 65 (surface/sust.p.2d.v4.b32.trap
# #unorm8x4_ties; all 2160 in-range UNORM8 stores in the surface goldens, 13 of them exact ties,
# fit 12 bits and no other count). The others: the texture_ext sustp_*_ties sweeps (1024 values
# within 3 ulps of every rounding tie per format).
NORM_BITS = {"u1": 12, "i1": 16, "u2": 20, "i2": 19}


def convert(dtype, bits: np.ndarray, normalized: bool) -> np.ndarray:
    """32-bit source values to samples of `dtype` as the H200 converts them: f32 to f16 rounded
    toward zero (so large values saturate to 65504); normalized formats scale by the largest code
    and round to nearest with ties toward zero (0.5 -> 127 in UNORM8), NaN -> 0; integers saturate.
    Normalized formats truncate |x| to NORM_BITS fraction bits first."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        f = bits.view(np.float32)
        return _toward_zero(f, dtype)
    info = np.iinfo(dtype)
    if normalized:
        return _normalized(bits.view(np.float32), dtype)
    if dtype.itemsize == 4:
        return bits.view(dtype)
    v = bits.view(np.int32 if dtype.kind == "i" else np.uint32).astype(np.int64)
    return np.clip(v, info.min, info.max).astype(dtype)


def _normalized(f, dtype):
    """f32 -> UNORM/SNORM code: clamp (NaN -> 0), truncate |x| to NORM_BITS fraction bits, scale
    by the largest code, round to nearest with ties toward zero."""
    info = np.iinfo(dtype)
    frac = 1 << NORM_BITS[dtype.str[1:]]
    x = np.clip(np.nan_to_num(f.astype(np.float64), nan=0.0), -1.0 if dtype.kind == "i" else 0.0, 1.0)
    scaled = np.floor(np.abs(x) * frac) * (info.max / frac)     # exact in f64
    return (np.sign(x) * np.ceil(scaled - 0.5)).astype(dtype)


def _toward_zero(f, dtype):
    with np.errstate(over="ignore", invalid="ignore"):
        r = f.astype(dtype)
        over = np.abs(r.astype(np.float64)) > np.abs(f.astype(np.float64))
        return np.where(over, np.nextafter(r, dtype.type(0)), r).astype(dtype)


def reduce_formatted(surf, size: int) -> np.dtype:
    """The element type sured.p reduces on: the sample as one integer of `size` bytes, signed when
    the format's 32-bit channels are (.b32: one channel; .b64: two, as the H200 does: the
    sured.p.*.b64 cases on u32x2 / s32x2 surfaces)."""
    from ..core.machine import Fault

    if surf.dtype.kind not in "iu" or getattr(surf, "normalized", False) or surf.dtype.itemsize != 4 \
            or surf.bytes_per_texel != size:
        raise Fault(f"sured.p.b{8 * size} needs samples of {size // 4} 32-bit integer channel(s), not "
                    f"{surf.channels} x {surf.dtype}")
    return np.dtype(f"{surf.dtype.kind}{size}")
