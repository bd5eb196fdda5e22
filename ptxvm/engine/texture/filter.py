"""The arithmetic of texture filtering as an H200 does it (measured; docs/hardware-notes.md).

* A filter position x (texel units) becomes x - 0.5 in fixed point with 8 fraction bits, rounded to
  nearest with ties up: integer part i (the low texel) and weight a in 1/256 units.
* The corner weights of the footprint are integers in 1/256 units (`corner_weights`).
* The blend: the texels that carry weight are aligned to the largest one's binary exponent e
  (|v| < 2^e) and truncated toward zero to multiples of 2^(e-g), g = the texel format's significand
  bits plus four guard bits (28 for f32, 15 for f16); the weighted sum of those is exact, and is
  rounded once to the texel format, to nearest with ties away from zero (`blend`). Subnormal
  texels and results flush to signed zeros, NaN results are canonical, and every texel inside the
  footprint (zero corner weight included) takes part in the NaN / infinity / signed-zero rules.
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
    rounding half up, except the z split, which rounds ties down (seen only with a total below one,
    mipmapped 3D: `mip3d_onehot_*`). With s = one this is the 2D product rule with a*b rounded (the
    onehot3d, linear and mip_trilinear probes)."""
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
        z1 = (ws[2] * tot + ONE // 2 - 1) >> FRACTION_BITS  # ties down (mip3d_onehot_*: a level share
        # below one splits c * total = k + 1/2 as k)
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
    truncated on their own and its weighted sum formed exactly; each slice sum is then floored
    (two's complement truncation, toward -inf) to a grid (significand + STAGE2_EXTRA_BITS) bits
    below the largest weighted texel's exponent and the two added (`accum3d_*`: the lanes this
    misses all lie above the H200's, so the true second stage drops still more, not pinned)."""
    tiny = float(np.finfo(np.float32).tiny)  # f16 texels and results too (`special_blend1d_f16`)
    v = flush_subnormals(np.asarray(values, np.float64), tiny)
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
            s = sum(np.floor(p / q) * q for p in parts)
        exact = s * (1.0 / (1 << scale_bits))
        # infinities and NaN in the footprint, weighted or not (texels outside it come as -0,
        # texture_sample._untouched_as_negative_zero): NaN if any is NaN or both infinities are
        # there, else the infinity
        nan = np.isnan(v).any(axis=-1) | (np.isposinf(v).any(axis=-1) & np.isneginf(v).any(axis=-1))
        inf = np.where(np.isposinf(v).any(axis=-1), np.inf, np.where(np.isneginf(v).any(axis=-1), -np.inf, 0.0))
        exact = np.where(nan, np.nan, np.where(inf != 0, inf, exact))
        # IEEE signed zeros: the sum is -0 only where every texel of the footprint is -0
        neg_zero = np.all((v == 0) & np.signbit(v), axis=-1)
        exact = np.where(neg_zero, -0.0, exact)
    return flush_subnormals(round_nearest_away(exact, out_dtype), tiny)


def flush_subnormals(x, tiny):
    """Subnormal values (below `tiny`, the format's smallest normal) as zeros of their sign: the
    filter flushes subnormal texels and subnormal results (`special_blend1d`, `subnormal_blend1d`,
    `tiny_blend1d`: -1e-40 and 1e-40 blend to +0, two negative subnormals to -0)."""
    with np.errstate(invalid="ignore"):
        return np.where(np.abs(x) < tiny, np.copysign(np.zeros((), x.dtype), x), x)


# every NaN a filter returns: f32 0x7fffffff, and from f16 texels f16 0x7fff (`special_blend*`)
CANONICAL_NAN = {np.dtype(np.float32): np.uint32(0x7FFFFFFF).view(np.float32),
                 np.dtype(np.float16): np.uint16(0x7FFF).view(np.float16).astype(np.float32)}


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


def border_code(dtype, border):
    """The border colour of a normalized-integer texture as the texel format holds it: each
    component clamped to [0, 1] ([-1, 1] signed), multiplied by the format's maximum (255, 65535,
    127, 32767) in f32 and rounded to nearest, ties to even (`u8_border_*`: 0.3f * 255 is 76.5 in
    f32 -> 76, 0.7f -> 178.5 -> 178, 0.05 -> 13, -0.7 -> 0, 1.5 -> 255; `u16_border_linear2d`;
    `s8_border_2d`: -0.7 -> -89). Point fetches and tld4 return code / max, and linear filtering
    blends it like a texel."""
    dt = np.dtype(dtype)
    top = np.float32(np.iinfo(dt).max)
    lo = -1.0 if dt.kind == "i" else 0.0
    return np.rint(np.clip(np.asarray(border, np.float32), lo, 1.0).astype(np.float32) * top).astype(np.float64)


def border_as_read(dtype, border):
    """The border colour a point fetch of a normalized-integer texture returns (float32)."""
    top = float(np.iinfo(np.dtype(dtype)).max)
    return np.maximum(border_code(dtype, border) / top, -1.0).astype(np.float32)


def fixed_border(dtype, border):
    """The border colour in the units of `unorm16` (u8 codes times 257, the others as they are)."""
    code = border_code(dtype, border)
    return code * 257 if np.dtype(dtype) == np.uint8 else code


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


# sRGB (CU_TRSF_SRGB) u8 texels read as normalized floats: the linear value of each code, as the H200
# returns it from a point fetch (`srgb_point_u8x4`): f16 values (with fewer significant bits than
# f16 holds), within 7 f16 ulps of the sRGB formula. The alpha channel is not converted.
SRGB_TABLE = np.array([
    0x0000, 0x0d00, 0x1100, 0x1380, 0x1500, 0x1640, 0x1780, 0x1860, 0x1900, 0x19a0, 0x1a40, 0x1ae0,
    0x1b80, 0x1c20, 0x1c80, 0x1ce0, 0x1d50, 0x1dc0, 0x1e30, 0x1eb0, 0x1f30, 0x1fb0, 0x2018, 0x2060,
    0x20b0, 0x20f8, 0x2148, 0x21a0, 0x21f0, 0x2248, 0x22a8, 0x2300, 0x2360, 0x23d0, 0x2418, 0x2450,
    0x2488, 0x24c0, 0x24f8, 0x2530, 0x2570, 0x25b0, 0x25f0, 0x2630, 0x2670, 0x26b8, 0x2700, 0x2748,
    0x2790, 0x27e0, 0x2818, 0x2840, 0x2868, 0x2890, 0x28b8, 0x28e0, 0x2910, 0x2940, 0x2968, 0x2998,
    0x29c8, 0x29f8, 0x2a28, 0x2a60, 0x2a90, 0x2ac0, 0x2b00, 0x2b30, 0x2b60, 0x2ba0, 0x2bd0, 0x2c08,
    0x2c28, 0x2c40, 0x2c60, 0x2c80, 0x2ca0, 0x2cc0, 0x2ce0, 0x2d00, 0x2d20, 0x2d48, 0x2d68, 0x2d88,
    0x2db0, 0x2dd0, 0x2df8, 0x2e18, 0x2e40, 0x2e68, 0x2e88, 0x2eb0, 0x2ed8, 0x2f00, 0x2f28, 0x2f50,
    0x2f80, 0x2fa0, 0x2fd0, 0x3000, 0x3010, 0x3028, 0x3040, 0x3058, 0x3070, 0x3088, 0x30a0, 0x30b8,
    0x30d0, 0x30e8, 0x3100, 0x3118, 0x3130, 0x3148, 0x3160, 0x3180, 0x3198, 0x31b0, 0x31d0, 0x31e8,
    0x3200, 0x3220, 0x3238, 0x3258, 0x3270, 0x3290, 0x32b0, 0x32c8, 0x32e8, 0x3308, 0x3328, 0x3340,
    0x3360, 0x3380, 0x33a0, 0x33c0, 0x33e0, 0x3400, 0x3410, 0x3420, 0x3430, 0x3440, 0x3450, 0x3468,
    0x3478, 0x3488, 0x3498, 0x34a8, 0x34c0, 0x34d0, 0x34e0, 0x34f0, 0x3508, 0x3518, 0x3528, 0x3540,
    0x3550, 0x3568, 0x3578, 0x3590, 0x35a0, 0x35b0, 0x35c8, 0x35e0, 0x35f0, 0x3608, 0x3618, 0x3630,
    0x3640, 0x3658, 0x3670, 0x3688, 0x3698, 0x36b0, 0x36c8, 0x36d8, 0x36f0, 0x3708, 0x3720, 0x3738,
    0x3750, 0x3768, 0x3780, 0x3790, 0x37b0, 0x37c0, 0x37e0, 0x37f0, 0x3808, 0x3810, 0x3820, 0x3828,
    0x3838, 0x3848, 0x3850, 0x3860, 0x3868, 0x3878, 0x3888, 0x3890, 0x38a0, 0x38b0, 0x38b8, 0x38c8,
    0x38d8, 0x38e0, 0x38f0, 0x3900, 0x3908, 0x3918, 0x3928, 0x3938, 0x3948, 0x3950, 0x3960, 0x3970,
    0x3980, 0x3990, 0x3998, 0x39a8, 0x39b8, 0x39c8, 0x39d8, 0x39e8, 0x39f8, 0x3a08, 0x3a18, 0x3a28,
    0x3a38, 0x3a48, 0x3a58, 0x3a68, 0x3a78, 0x3a88, 0x3a98, 0x3aa8, 0x3ab8, 0x3ac8, 0x3ad8, 0x3ae8,
    0x3af8, 0x3b08, 0x3b18, 0x3b28, 0x3b40, 0x3b50, 0x3b60, 0x3b70, 0x3b80, 0x3b90, 0x3ba0, 0x3bb0,
    0x3bd0, 0x3be0, 0x3bf0, 0x3c00
], np.uint16).view(np.float16).astype(np.float32)


def srgb_channels(channels: int) -> int:
    """How many leading channels sRGB converts: all of a one-channel texture, otherwise all but
    the last (alpha) (`srgb_point_u8x1`, `_u8x2`, `_u8x4`)."""
    return channels if channels == 1 else channels - 1


# ---------------------------------------------------------------------------- level of detail

# log2 of a length in 1/256 units: exponent * 256 + LOG2_TABLE[first 8 fraction bits of the
# significand] (`grad_log_table`: lengths 2^e (1 + (i + f) / 256), every i, f = 0, 1/2, 1 - 2^-10)
LOG2_TABLE = np.array([
    0, 2, 4, 5, 6, 8, 9, 11, 12, 13, 15, 16, 18, 19, 20, 22, 23, 24, 26, 27, 28, 30, 31, 32, 34, 35,
    36, 38, 39, 40, 42, 43, 44, 45, 47, 48, 49, 50, 52, 53, 54, 55, 57, 58, 59, 60, 62, 63, 64, 65,
    66, 68, 69, 70, 71, 72, 74, 75, 76, 77, 78, 79, 81, 82, 83, 84, 85, 86, 88, 89, 90, 91, 92, 93,
    94, 95, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 109, 110, 111, 112, 113, 114, 115,
    116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 132, 133, 135,
    136, 137, 137, 138, 139, 140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 150, 151, 152, 153,
    154, 155, 156, 157, 158, 159, 160, 161, 162, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171,
    172, 173, 173, 174, 175, 176, 177, 178, 179, 180, 181, 181, 182, 183, 184, 185, 186, 187, 188,
    188, 189, 190, 191, 192, 193, 194, 195, 195, 196, 197, 198, 199, 200, 200, 201, 202, 203, 204,
    205, 205, 206, 207, 208, 209, 210, 210, 211, 212, 213, 214, 214, 215, 216, 217, 218, 218, 219,
    220, 221, 222, 222, 223, 224, 225, 226, 226, 227, 228, 229, 229, 230, 231, 232, 233, 233, 234,
    235, 236, 236, 237, 238, 239, 239, 240, 241, 242, 242, 243, 244, 245, 245, 246, 247, 248, 248,
    249, 250, 251, 251, 252, 253, 253, 254, 255, 255
], np.int64)
LOD_FLOOR = -(1 << 20)  # log2 of a zero length


def log2_fixed(x):
    """log2 of lengths x (float64, >= 0) in 1/256 units as the H200's level-of-detail unit forms it."""
    x = np.asarray(x, np.float64)
    ok = np.isfinite(x) & (x > 0)
    m, e = np.frexp(np.where(ok, x, 1.0))
    i = np.clip(np.floor((m * 2 - 1) * 256), 0, 255).astype(np.int64)
    lod = (e.astype(np.int64) - 1) * 256 + LOG2_TABLE[i]
    lod = np.where(ok, lod, LOD_FLOOR)
    return np.where(np.isinf(x) | np.isnan(x), 1 << 20, lod)


def _trunc_bits(x, bits):
    """x with its significand truncated to `bits` bits."""
    m, e = np.frexp(np.asarray(x, np.float64))
    return np.ldexp(np.trunc(m * 2.0 ** bits) / 2.0 ** bits, e)


def vector_length(comps):
    """The length of a gradient vector (texel units) as the H200 approximates it: the largest
    component (significand truncated to 10 bits) plus 11/32 of the middle one plus 1/4 of the
    smallest (3D) (`grad_length_x`/`_y`: 256 * log2 of this is bit exact in 99.3 % of the lanes,
    the rest within 1/256; `grad_3d`: 89 %, within 2/256)."""
    a = np.sort(np.abs(np.stack([np.asarray(c, np.float64) for c in comps])), axis=0)
    length = _trunc_bits(a[-1], 10)
    if len(a) > 1:
        length = length + (11 / 32) * a[-2]
    if len(a) > 2:
        length = length + a[-3] / 4
    return length


def diagonal_inputs(comps):
    """Gradient components as the footprint's sum/difference terms take them: significand
    truncated to 10 bits."""
    return [_trunc_bits(c, 10) for c in comps]


def footprint_length(dx, dy):
    """The footprint size the level of detail is the log2 of: the longest of dPdx, dPdy, and
    11/16 of dPdx + dPdy and of dPdx - dPdy (an octagonal estimate of the Jacobian's largest
    singular value; `grad_parallel`, `grad_orthogonal`, `grad_two_vectors`). The sum and the
    difference are of the components with their significands truncated to 10 bits (about half
    the wrong lanes of the 2D/3D probes become exact; the rule with a second nonzero component is
    still not pinned)."""
    tx, ty = diagonal_inputs(dx), diagonal_inputs(dy)
    s = [a + b for a, b in zip(tx, ty)]
    d = [a - b for a, b in zip(tx, ty)]
    return np.maximum.reduce([vector_length(dx), vector_length(dy),
                              (11 / 16) * diagonal_length(s), (11 / 16) * diagonal_length(d)])


def diagonal_length(comps):
    """The length of dPdx +- dPdy: vector_length, plus 3/8 of the 10-bit ulp of the largest
    component when it is the only nonzero one (1D gradients, parallel ones along an axis:
    `grad_1d` 512/512 with it; any addend in [4/11, 5/11) ulp fits those lanes)."""
    a = np.abs(np.stack([np.asarray(c, np.float64) for c in comps]))
    top = a.max(axis=0)
    single = (np.count_nonzero(a, axis=0) == 1) & np.isfinite(top)
    return vector_length(comps) + np.where(single, np.ldexp(0.375, np.frexp(top)[1] - 10), 0.0)


# the exponent the sRGB filter aligns each code to: that of the last code of its group of eight
# (c | 7), so codes just below a power of two whose group reaches it align one higher
# (`srgb_exponent_17`/`_40` tell the two apart for 185 codes, all as this says; groups of four or
# sixteen miss lanes)
SRGB_EXPONENT = np.frexp(SRGB_TABLE.astype(np.float64)[np.arange(256) | 7])[1]


def blend_srgb(values, weights, slices=1):
    """Filtered sRGB-converted texels (SRGB_TABLE values): the texels that carry weight are
    truncated toward zero to multiples of 2^(e - 8), e = SRGB_EXPONENT of the largest of them;
    the weighted sum is exact and rounded to f16 to nearest, ties away from zero (every lane of
    the `srgb_*` probes)."""
    v = np.asarray(values, np.float64)
    w = np.asarray(weights, np.int64)[:, None, :]
    s = sum(_srgb_aligned_sum(v[..., k::slices], w[..., k::slices]) for k in range(slices))
    return round_nearest_away(s / ONE, np.float16)


def _srgb_aligned_sum(v, w):
    top = np.max(np.where(w != 0, np.abs(v), 0.0), axis=-1, keepdims=True)
    code = np.clip(np.searchsorted(SRGB_TABLE.astype(np.float64), top), 0, 255)
    q = np.ldexp(1.0, SRGB_EXPONENT[code] - 8)
    return np.sum(np.where(w != 0, np.trunc(v / q) * w, 0.0), axis=-1) * q[..., 0]
