"""Correctly rounded f64 arithmetic in every PTX rounding mode.

RN results of add/mul/div/sqrt are NumPy's own (IEEE RN).  Directed modes
start from the RN result s and the exact sign of (exact - s), found with
error-free transformations, then step s one ulp where the mode says so.
Operands far from under/overflow take that path directly; the rest (rare)
are first scaled to [0.5, 2), and ``_finish`` scales back, re-rounding from
the exact data when the result is subnormal.  fma needs this in RN too
(NumPy has no fused multiply-add).
"""
from __future__ import annotations

import numpy as np

from .encode import decompose_f64, encode, overflow_to_inf
from .eft import directed, sign, step, two_prod, two_sum
from .formats import F64, as_bits
from .modifiers import exact_zero_sign, saturate
from .nans import f64_nan
from .rounding import Rounding

_MAX = np.finfo(np.float64).max
_STICKY = 2.0 ** -400   # stands in for a term far below every rounding bit


def _vals(bits):
    return as_bits(bits, F64).view(np.float64)


def _overflow(s, mode):
    """Result for |exact| beyond the overflow threshold (s is +-inf)."""
    return np.where(overflow_to_inf(mode, np.signbit(s)), s, np.copysign(_MAX, s))


def _finish(s, rs, scale, mode: Rounding) -> np.ndarray:
    """Bits of exact = (s + e) * 2**scale, s = RN(s + e) normal, sign(e) = rs."""
    r = directed(s, rs, mode)
    scale = np.asarray(scale, dtype=np.int64)
    res = np.ldexp(r, np.clip(scale, -2200, 2200).astype(np.int32))
    res = np.where(np.isinf(res), _overflow(res, mode), res)
    bits = res.view(np.uint64).copy()
    tiny = (np.frexp(r)[1] + scale) <= -1022
    if np.any(tiny):
        # Subnormal result: round from 2*mant(s) +- 1 (round-to-odd form).
        sg, mant, exp = decompose_f64(s[tiny])
        r_mag = np.where(sg, -rs[tiny], rs[tiny]).astype(np.int64)
        mant = ((mant << np.uint64(1)).astype(np.int64) + r_mag).astype(np.uint64)
        bits[tiny] = encode(sg, mant, exp - 1 + scale[tiny], F64, mode)
    return bits


def _regular(*xs):
    """Mask of finite nonzero operands, and the operands with others -> 1.0."""
    mask = np.ones(np.broadcast(*xs).shape, bool)
    for x in xs:
        mask &= np.isfinite(x) & (x != 0)
    return mask, [np.where(mask, x, 1.0) for x in xs]


def _out(bits, nan_mask, sat, operands, order):
    if nan_mask is not None:
        bits = f64_nan(nan_mask, bits, operands, order)
    return saturate(bits, F64) if sat else bits


# Which operand's NaN an sm_90 GPU returns first (nans.f64_nan).
_BINARY_NAN_ORDER = (1, 0)
_FMA_NAN_ORDER = (1, 2, 0)
_DIV_NAN_ORDER = (0, 1)


def add(a, b, mode: Rounding = Rounding.RN, sat: bool = False) -> np.ndarray:
    """add{.rnd}.f64 on bits."""
    return _add(a, b, _vals(b), mode, sat)


def _add(a, b, y, mode, sat):
    x = _vals(a)
    with np.errstate(all="ignore"):
        s, e = two_sum(x, y)
        rs = np.where(np.isfinite(e), sign(e), 0)
        r = directed(s, rs, mode)
        over = np.isinf(s) & np.isfinite(x) & np.isfinite(y)
        r = np.where(over, _overflow(s, mode), r)
        zero = np.copysign(0.0, np.where(
            exact_zero_sign(mode is Rounding.RM, np.signbit(x), np.signbit(y)), -1.0, 1.0))
        r = np.where(s == 0, zero, r)
    return _out(r.view(np.uint64), np.isnan(s), sat, (a, b), _BINARY_NAN_ORDER)


def sub(a, b, mode: Rounding = Rounding.RN, sat: bool = False) -> np.ndarray:
    """sub{.rnd}.f64: a + (-b); a NaN b comes back with its own sign."""
    return _add(a, b, -_vals(b), mode, sat)


def _in_range(x, lo, hi):
    ax = np.abs(x)
    return (ax >= lo) & (ax <= hi)


def _split_paths(fast, direct, scaled, *xs):
    """direct(*xs) where ``fast``, scaled(*xs[~fast]) elsewhere (rare)."""
    out = direct(*xs)
    slow = ~fast
    if np.any(slow):
        xs = np.broadcast_arrays(*xs, slow)[:-1]  # an immediate operand is a scalar beside the lanes' arrays
        out[slow] = scaled(*(x[slow] for x in xs))
    return out


def _frexp64(x):
    m, e = np.frexp(x)
    return m, e.astype(np.int64)


def _mul_direct(x, y, mode):
    p, e = two_prod(x, y)            # exact while 2**-450 <= |x|, |y| <= 2**450
    return directed(p, sign(e), mode).view(np.uint64).copy()


def _mul_scaled(x, y, mode):
    mx, ex = _frexp64(x)
    my, ey = _frexp64(y)
    p, e = two_prod(mx, my)
    return _finish(p, sign(e), ex + ey, mode)


def mul(a, b, mode: Rounding = Rounding.RN, sat: bool = False) -> np.ndarray:
    """mul{.rnd}.f64 on bits."""
    x, y = _vals(a), _vals(b)
    with np.errstate(all="ignore"):
        plain = x * y
        if mode is Rounding.RN:
            bits = plain.view(np.uint64)
        else:
            reg, (x1, y1) = _regular(x, y)
            fast = _in_range(x1, 2.0 ** -450, 2.0 ** 450) & _in_range(y1, 2.0 ** -450, 2.0 ** 450)
            bits = _split_paths(fast, lambda u, v: _mul_direct(u, v, mode),
                                lambda u, v: _mul_scaled(u, v, mode), x1, y1)
            bits = np.where(reg, bits, plain.view(np.uint64))
    return _out(bits, np.isnan(plain), sat, (a, b), _BINARY_NAN_ORDER)


def _div_residual_sign(q, x, y):
    ph, pl = two_prod(q, y)
    rem = (x - ph) - pl              # x - ph is exact (Sterbenz)
    return sign(rem) * sign(y)


def _div_direct(x, y, mode):
    q = x / y                        # 2**-1000 <= |q| <= 2**1000 on this path
    return directed(q, _div_residual_sign(q, x, y), mode).view(np.uint64).copy()


def _div_scaled(x, y, mode):
    mx, ex = _frexp64(x)
    my, ey = _frexp64(y)
    q = mx / my
    return _finish(q, _div_residual_sign(q, mx, my), ex - ey, mode)


def div(a, b, mode: Rounding = Rounding.RN, sat: bool = False) -> np.ndarray:
    """div.rnd.f64 on bits (IEEE-correct in every mode)."""
    x, y = _vals(a), _vals(b)
    with np.errstate(all="ignore"):
        plain = x / y
        if mode is Rounding.RN:
            bits = plain.view(np.uint64)
        else:
            reg, (x1, y1) = _regular(x, y)
            fast = _in_range(x1, 2.0 ** -500, 2.0 ** 500) & _in_range(y1, 2.0 ** -500, 2.0 ** 500)
            bits = _split_paths(fast, lambda u, v: _div_direct(u, v, mode),
                                lambda u, v: _div_scaled(u, v, mode), x1, y1)
            bits = np.where(reg, bits, plain.view(np.uint64))
    return _out(bits, np.isnan(plain), sat, (a, b), _DIV_NAN_ORDER)


def rcp(a, mode: Rounding = Rounding.RN, sat: bool = False) -> np.ndarray:
    """rcp.rnd.f64: correctly rounded 1/a."""
    one = np.full(np.shape(a), 0x3FF0000000000000, dtype=np.uint64)
    return div(one, a, mode, sat)  # 1.0 is never NaN, so a's NaN propagates


def sqrt(a, mode: Rounding = Rounding.RN, sat: bool = False) -> np.ndarray:
    """sqrt.rnd.f64 on bits."""
    x = _vals(a)
    with np.errstate(all="ignore"):
        plain = np.sqrt(x)
        if mode is Rounding.RN:
            return _out(plain.view(np.uint64), np.isnan(plain), sat, (a,), (0,))
        reg = np.isfinite(x) & (x > 0)
        mx, ex = np.frexp(np.where(reg, x, 1.0))
        odd = (ex & 1).astype(bool)
        mx = np.where(odd, mx * 2, mx)
        ex = ex.astype(np.int64) - odd
        q = np.sqrt(mx)
        ph, pl = two_prod(q, q)
        rs = sign((mx - ph) - pl)
        bits = _finish(q, rs, ex // 2, mode)
    bits = np.where(reg, bits, plain.view(np.uint64))
    return _out(bits, np.isnan(plain), sat, (a,), (0,))


def _round_to_odd_sum(x, y):
    """v = RO(x + y) and the sign of (x + y) - v (as float -1, 0, 1)."""
    v, err = two_sum(x, y)
    ro = np.sign(err)
    bump = (err != 0) & ((v.view(np.uint64) & np.uint64(1)) == 0)
    if bump.any():
        v = np.where(bump, np.nextafter(v, np.copysign(np.inf, err)), v)
        ro = np.where(bump, -ro, ro)   # v stepped past x + y
    return v, ro


def _fma_core(z, ph, pl):
    """Boldo & Melquiond: RN(ph + pl + z) for an exact product ph + pl, and the
    exact sign of the remaining error."""
    th, tl = two_sum(z, ph)
    v, ro_sign = _round_to_odd_sum(tl, pl)
    s, e2 = two_sum(th, v)
    rs = np.where(e2 != 0, np.sign(e2), ro_sign)
    return s, rs


def _fma_direct(x, y, z, mode):
    """Unscaled emulation, exact while operands and result stay far from
    under- and overflow; returns (bits, exact_zero, ok)."""
    ph, pl = two_prod(x, y)
    s, rs = _fma_core(z, ph, pl)
    exact_zero = (s == 0) & (rs == 0)
    ok = exact_zero | _in_range(s, 2.0 ** -800, 2.0 ** 1000)
    return directed(s, rs, mode).view(np.uint64).copy(), exact_zero, ok


def fma_values(x, y, z, mode: Rounding):
    """Bits of RND(x*y + z) for finite float64 arrays with x*y != 0, z free.

    The product is scaled to [0.25, 1); z is aligned to it, or, when one
    term lies more than 200 binades below the other, replaced by a signed
    2**-400 that only acts as a sticky bit.  Then Boldo & Melquiond's
    emulation (TwoSum, round-to-odd of the low parts, final TwoSum) gives
    RN of the exact sum plus the exact sign of its error.
    """
    mx, ex = np.frexp(x)
    my, ey = np.frexp(y)
    mz, ez = np.frexp(z)
    ph, pl = two_prod(mx, my)
    scale = ex.astype(np.int64) + ey
    d = ez.astype(np.int64) - scale
    z_major = (d > 200) & (z != 0)
    aligned = np.ldexp(mz, np.clip(d, -200, 200).astype(np.int32))
    zs = np.where(d < -200, np.copysign(_STICKY, z), aligned)
    zs = np.where(z == 0, 0.0, zs)
    zs = np.where(z_major, mz, zs)
    ph = np.where(z_major, np.copysign(_STICKY, ph), ph)
    pl = np.where(z_major, 0.0, pl)
    scale = np.where(z_major, ez.astype(np.int64), scale)
    s, rs = _fma_core(zs, ph, pl)
    exact_zero = (s == 0) & (rs == 0)
    s1 = np.where(exact_zero, 1.0, s)
    bits = _finish(s1, rs, scale, mode)
    return bits, exact_zero


def fma(a, b, c, mode: Rounding = Rounding.RN, sat: bool = False) -> np.ndarray:
    """fma.rnd.f64: a*b + c with a single rounding."""
    x, y, z = _vals(a), _vals(b), _vals(c)
    with np.errstate(all="ignore"):
        finite = np.isfinite(x) & np.isfinite(y) & np.isfinite(z)
        prod_zero = (x == 0) | (y == 0)
        reg = finite & ~prod_zero
        all_reg = bool(reg.all())
        if not all_reg:
            x, y, z = np.where(reg, x, 1.0), np.where(reg, y, 1.0), np.where(reg, z, 0.0)
        bits, exact_zero, ok = _fma_direct(x, y, z, mode)
        fast = ok & _in_range(x, 2.0 ** -450, 2.0 ** 450) & _in_range(y, 2.0 ** -450, 2.0 ** 450) \
            & ((z == 0) | _in_range(z, 2.0 ** -900, 2.0 ** 900))
        slow = ~fast
        if slow.any():
            x, y, z, _ = np.broadcast_arrays(x, y, z, slow)  # immediates are scalars beside the lanes' arrays
            bits[slow], exact_zero[slow] = fma_values(x[slow], y[slow], z[slow], mode)
        if all_reg and not exact_zero.any():
            return _out(bits, None, sat, (a, b, c), _FMA_NAN_ORDER)
        x, y, z = _vals(a), _vals(b), _vals(c)
        sp = np.signbit(x) ^ np.signbit(y)
        zero_sign = exact_zero_sign(mode is Rounding.RM, sp, np.signbit(z))
        zero = np.where(zero_sign, np.uint64(1 << 63), np.uint64(0))
        bits = np.where(exact_zero, zero, bits)
        # x*y == 0 exactly: the result is z, or a signed zero if z is zero.
        bits = np.where(finite & prod_zero,
                        np.where(z == 0, zero, z.view(np.uint64)), bits)
        # Non-finite operands: the product's class is all that matters.
        special = np.where(np.isfinite(x) & np.isfinite(y), z, x * y + z)
        bits = np.where(finite, bits, special.view(np.uint64))
    nan = ~finite & np.isnan(special)
    return _out(bits, nan, sat, (a, b, c), _FMA_NAN_ORDER)
