"""The arithmetic of texture filtering as an H200 does it (measured; docs/hardware-notes.md).

* A filter position x (texel units) becomes x - 0.5 in fixed point with 8 fraction bits, rounded to
  nearest with ties up: integer part i (the low texel) and weight a in 1/256 units.
* The corner weights of the footprint are integers in 1/256 units (`corner_weights`).
* The blend: the texels that carry weight are aligned to the largest one's binary exponent e
  (|v| < 2^e) and truncated toward zero to multiples of 2^(e-g), g = the texel format's significand
  bits plus four guard bits (28 for f32, 15 for f16); the weighted sum of those is exact, and is
  rounded once to the texel format, to nearest with ties away from zero (`blend`).
* Normalized-integer texels are filtered in 16-bit fixed point (`unorm16`, `blend_unorm`); s8 texels
  are blended as they are and the sum scaled to 16 bits by shifts and adds (`blend_snorm8`).
"""
from __future__ import annotations

import itertools

import numpy as np

FRACTION_BITS = 8
ONE = 1 << FRACTION_BITS
GUARD_BITS = 4


def fixed_position(x):
    """x - 0.5 in fixed point (1/256 units, rounded to nearest, ties up) for texel-space positions x."""
    return clip_index(np.floor((np.asarray(x, np.float64) - 0.5) * ONE + 0.5))


def fixed_point(x):
    """(low texel index, weight in 1/256) of linear filtering at texel-space positions x."""
    t = fixed_position(x)
    return t >> FRACTION_BITS, t & (ONE - 1)


def floor_index(x):
    return clip_index(np.floor(np.asarray(x, np.float64)))


def clip_index(f):
    f = np.nan_to_num(np.asarray(f, np.float64), nan=0.0)
    return np.clip(f, -(2 ** 40), 2 ** 40).astype(np.int64)


def round_half(x):
    return np.floor(x + 0.5)


def corner_weights(weights, total=None):
    """Integer weights (1/256 units) of the 2^d corners of a footprint, corners in
    itertools.product((0, 1), repeat=d) order (first dimension slowest), summing to `total` (one
    by default; a mip level's share in trilinear filtering).

    A slice of weight s (2D: s = total; 3D: the z slices, split from total like x in 1D) splits into
    x = 1 and x = 0 parts, x1 = round(a * s) and s - x1; the x = 1 part splits at y = 1,
    round(x1 * b), the x = 0 part at y = 0, round(x0 * (1 - b)), the other corner taking the rest;
    rounding half up. With s = one this is the 2D product rule with a*b rounded (the onehot3d,
    linear and mip_trilinear probes). 3D with a total below one (mipmapped 3D) is not measured."""
    ws = [np.asarray(w, np.int64) for w in weights]
    tot = np.full_like(ws[0], ONE) if total is None else np.asarray(total, np.int64)
    a = ws[0]
    if len(ws) == 1:
        x1 = _round_mul(a, tot)
        return [tot - x1, x1]
    b = ws[1]
    if len(ws) == 2:
        slices = [tot]
    else:
        z1 = _round_mul(ws[2], tot)
        slices = [tot - z1, z1]
    corners = {}
    for dz, s in enumerate(slices):
        x1 = _round_mul(a, s)
        x0 = s - x1
        w11 = _round_mul(x1, b)
        w00 = _round_mul(x0, ONE - b)
        corners[(0, 0, dz)], corners[(0, 1, dz)] = w00, x0 - w00
        corners[(1, 0, dz)], corners[(1, 1, dz)] = x1 - w11, w11
    keys = itertools.product((0, 1), repeat=len(ws))
    return [corners[k + (0,) * (3 - len(ws))] for k in keys]


def _round_mul(w, f):
    """round(w * f / 256), half up, in integers."""
    return (w * f + ONE // 2) >> FRACTION_BITS


def blend(values, weights, scale_bits=FRACTION_BITS, out_dtype=np.float32, slices=1):
    """values: (n, c, k) texel values (float, exact in float64); weights: (n, k) integer weights in
    units of 2^-scale_bits summing to one. The filtered values, rounded to out_dtype.

    `slices` > 1 (3D: the two z slices, corners z fastest): each slice's texels are aligned and
    truncated on their own and its weighted sum formed exactly; the slice sums are then added on
    a grid (significand + STAGE2_EXTRA_BITS) bits below the largest weighted texel's exponent."""
    v = np.asarray(values, np.float64)
    w = np.asarray(weights, np.int64)[:, None, :]
    bits = np.finfo(out_dtype).nmant + 1 + GUARD_BITS
    with np.errstate(invalid="ignore", over="ignore"):
        parts = [_aligned_sum(v[..., k::slices], w[..., k::slices], bits) for k in range(slices)]
        if slices == 1:
            s = parts[0]
        else:
            live = np.where(w != 0, np.abs(v), 0.0)
            top = np.max(np.where(np.isfinite(live), live, 0.0), axis=-1)
            q = np.ldexp(1.0, np.frexp(top)[1] + scale_bits - (bits - GUARD_BITS + STAGE2_EXTRA_BITS))
            s = sum(np.trunc(p / q) * q for p in parts)
        exact = s * (1.0 / (1 << scale_bits))
        nonfinite = ~np.isfinite(np.where(w != 0, v, 0.0)).all(axis=-1)
        if nonfinite.any():  # inf / NaN texels: the plain weighted sum
            plain = np.sum(np.where(w != 0, v * w, 0.0), axis=-1) / (1 << scale_bits)
            exact = np.where(nonfinite, plain, exact)
    return round_nearest_away(exact, out_dtype)


STAGE2_EXTRA_BITS = 15  # the slice sums' grid: the format's significand bits + 15 below the top texel


def _aligned_sum(v, w, bits):
    """sum(v * w) with the texels that carry weight aligned to the largest one's exponent e and
    truncated toward zero to multiples of 2^(e - bits); exact."""
    live = np.where(w != 0, np.abs(v), 0.0)
    top = np.max(np.where(np.isfinite(live), live, 0.0), axis=-1, keepdims=True)
    q = np.ldexp(1.0, np.frexp(top)[1] - bits)
    return np.sum(np.where(w != 0, np.trunc(v / q) * w, 0.0), axis=-1) * q[..., 0]


def round_nearest_away(x, dtype=np.float32):
    """Round float64 values (exact) to dtype, to nearest with ties away from zero."""
    x = np.asarray(x, np.float64)
    dtype = np.dtype(dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        r = x.astype(dtype)
        rf = r.astype(np.float64)
        toward = np.where(np.abs(rf) > np.abs(x), np.nextafter(r, dtype.type(0)), r)
        away = np.nextafter(toward, np.copysign(dtype.type(np.inf), x).astype(dtype))
        tie = np.isfinite(x) & (x == (toward.astype(np.float64) + away.astype(np.float64)) / 2)
    return np.where(tie, away, r)



def unorm_scale(dtype) -> int:
    """The 16-bit fixed-point scale of a normalized-integer format: 65535 unsigned, 32767 signed."""
    return 32767 if np.dtype(dtype).kind == "i" else 65535


def unorm16(data):
    """Normalized-integer texels as the filter sees them (float64): u8 values scaled exactly to the
    16-bit range (v * 65535/255 = v * 257), 16-bit and s8 values as they are (s8 is scaled after the
    blend, `blend_snorm8`). The most negative value is not clamped to -max here (the filtered
    result is)."""
    d = np.asarray(data)
    v = d.astype(np.float64)
    return v * 257 if d.dtype == np.uint8 else v


def fixed_border(dtype, border):
    """The border colour in the units of `unorm16` (unmeasured: rounded to the nearest code)."""
    scale = 127 if np.dtype(dtype) == np.int8 else unorm_scale(dtype)
    return np.round(np.asarray(border, np.float64) * scale)


def blend_normalized(values, weights, dtype):
    """Filtered normalized-integer texels (`unorm16` units) of a texture of element type dtype."""
    if np.dtype(dtype) == np.int8:
        return blend_snorm8(values, weights)
    return blend_unorm(values, weights, signed=np.dtype(dtype).kind == "i")


def blend_snorm8(values, weights):
    """Filtered s8 texels (as they are, -128 included): the weighted sum S (1/256 units) is scaled
    to 16 bits by S * 32767/32512 = S * (1 + 2^-7 + 2^-15 + ...) truncated to three shift-and-add
    terms with three fraction bits, q = (8S + floor(S / 16) + floor(S / 4096) + 4) >> 3, clamped to
    +-32767 (`s8_normfloat_linear1d`, `s8_normfloat_linear`, bit exact); the result q / 32767."""
    w = np.asarray(weights, np.int64)[:, None, :]
    s = np.sum(np.asarray(values, np.float64).astype(np.int64) * w, axis=-1)
    q = ((s << 3) + (s >> 4) + (s >> 12) + 4) >> 3
    q = np.clip(q, -32767, 32767)
    return (q / 32767).astype(np.float32)


def blend_unorm(values, weights, signed=False):
    """Filtered normalized-integer texels: the exact weighted sum of the 16-bit fixed-point texels
    rounded to a 16-bit value (half up), as float32 (value / 65535, or / 32767 when signed)."""
    w = np.asarray(weights, np.int64)[:, None, :]
    num = np.sum(np.asarray(values, np.float64) * w, axis=-1)
    top = 32767 if signed else 65535
    q = np.clip(np.floor(num / ONE + 0.5), -top, top)
    return (q / top).astype(np.float32)
