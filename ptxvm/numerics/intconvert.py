"""Conversions involving integers: float -> int, int -> float, int -> int.

PTX float -> int conversions always saturate: out-of-range values clamp to
the destination's min / max, and NaN gives ``nans.int_nan`` (0 in the PTX
manual; INT_MIN-like patterns on sm_90 hardware for some source types).  NumPy's float -> int casts
are undefined for NaN and overflow, so every value is range-checked in
float64 before the (then exact) cast.
"""
from __future__ import annotations

import numpy as np

from .encode import encode
from .formats import F32, FloatFormat, as_bits, flush_subnormal, to_float64
from .modifiers import saturate
from .nans import int_nan
from .rounding import Rounding

_ROUND = {Rounding.RN: np.rint, Rounding.RZ: np.trunc,
          Rounding.RM: np.floor, Rounding.RP: np.ceil}


def float_to_int(bits, src: FloatFormat, dst, mode: Rounding = Rounding.RZ, *,
                 ftz: bool = False) -> np.ndarray:
    """cvt.{rni,rzi,rmi,rpi}{.ftz}{.sat}.{s,u}{8,16,32,64}.{f16,bf16,f32,f64}.

    ``dst`` is a NumPy integer dtype; ``mode`` the direction of the integer
    rounding.  Returns an array of ``dst``; NaN gives ``nans.int_nan``.
    """
    dst = np.dtype(dst)
    b = as_bits(bits, src)
    if ftz and src is F32:
        b = flush_subnormal(b, src)
    with np.errstate(invalid="ignore"):
        r = _ROUND[mode](to_float64(b, src))
    info = np.iinfo(dst)
    lo = float(info.min)
    limit = float(info.max) + 1.0            # 2**n, exact in float64
    r_raw = r
    over = r >= limit
    under = r < lo
    ok = ~(over | under | np.isnan(r))
    r = np.where(ok, r, 0.0)
    if dst == np.uint64:
        high = r >= 2.0 ** 63
        base = np.where(high, r - 2.0 ** 63, r).astype(np.int64).astype(np.uint64)
        val = base + np.where(high, np.uint64(1 << 63), np.uint64(0))
    else:
        val = r.astype(np.int64).astype(dst)
    val = np.where(over, dst.type(info.max), val)
    val = np.where(under, dst.type(info.min), val)
    val = np.where(np.isnan(r_raw), int_nan(src, dst), val)
    return val.astype(dst)


def int_to_float(values, dst: FloatFormat, mode: Rounding = Rounding.RN, *,
                 sat: bool = False) -> np.ndarray:
    """cvt.rnd{.sat}.{f16,bf16,f32,f64}.{s,u}{8..64}: correctly rounded.

    NumPy's own int -> float casts only round to nearest; here the
    magnitude goes through ``encode``.  Magnitudes of 2**63 and above are
    folded to 63 bits in round-to-odd form, which preserves every rounding.
    """
    v = np.asarray(values)
    if v.dtype.kind == "i":
        neg = v < 0
        u = v.astype(np.int64).astype(np.uint64)
        mag = np.where(neg, ~u + np.uint64(1), u)   # |v|, exact even for -2**63
    else:
        neg = np.zeros(v.shape, bool)
        mag = v.astype(np.uint64)
    wide = mag >= np.uint64(1 << 63)
    mant = np.where(wide, (mag >> np.uint64(1)) | (mag & np.uint64(1)), mag)
    out = encode(neg, mant, wide.astype(np.int64), dst, mode)
    return saturate(out, dst) if sat else out


def int_to_int(values, dst, *, sat: bool = False) -> np.ndarray:
    """cvt{.sat}.dst.src between integer types.

    Without .sat: sign extension from signed sources, zero extension from
    unsigned ones, truncation when narrowing (NumPy's astype does all
    three).  With .sat: clamp to the destination range.
    """
    v = np.asarray(values)
    dst = np.dtype(dst)
    if not sat:
        return v.astype(dst)
    info = np.iinfo(dst)
    if v.dtype.kind == "i":
        w = v.astype(np.int64)
        w = np.maximum(w, max(info.min, -(1 << 63)))
        if info.max < (1 << 63):
            w = np.minimum(w, info.max)
    else:
        w = np.minimum(v.astype(np.uint64), np.uint64(info.max))
    return w.astype(dst)
