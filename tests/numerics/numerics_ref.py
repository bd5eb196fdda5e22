"""Slow exact reference for the numerics tests, built on fractions.Fraction.

Independent of ptxvm.numerics on purpose: its own format table, its own
decoder and its own rounding of an exact rational.  Results are ints (bits).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

RN, RZ, RM, RP, RNA = "rn", "rz", "rm", "rp", "rna"


@dataclass(frozen=True)
class Fmt:
    exp_bits: int
    man_bits: int
    has_inf: bool = True
    pad: int = 0
    nan_override: int = 0

    @property
    def width(self):
        return 1 + self.exp_bits + self.man_bits

    @property
    def bias(self):
        return (1 << (self.exp_bits - 1)) - 1

    @property
    def emin(self):
        return 1 - self.bias

    @property
    def emax(self):
        top = (1 << self.exp_bits) - 1
        return (top - 1 if self.has_inf else top) - self.bias

    @property
    def max_value(self):
        m = self.man_bits
        frac = (2 - Fraction(1, 2 ** m)) if self.has_inf else (2 - Fraction(2, 2 ** m))
        return frac * Fraction(2) ** self.emax

    @property
    def canonical_nan(self):
        if self.nan_override:
            return self.nan_override
        return ((1 << (self.width - 1)) - 1) << self.pad


F64 = Fmt(11, 52)
F32 = Fmt(8, 23)
TF32 = Fmt(8, 10, pad=13)
F16 = Fmt(5, 10)
BF16 = Fmt(8, 7)
E4M3 = Fmt(4, 3, has_inf=False)
E5M2 = Fmt(5, 2)

NAN = None
INF = math.inf


def p2(e: int) -> Fraction:
    return Fraction(2) ** e


def decode(bits: int, f: Fmt):
    """(sign, magnitude) with magnitude a Fraction, INF, or NAN."""
    b = int(bits) >> f.pad
    m = f.man_bits
    sign = (b >> (f.width - 1)) & 1
    e = (b >> m) & ((1 << f.exp_bits) - 1)
    frac = b & ((1 << m) - 1)
    top = (1 << f.exp_bits) - 1
    if f.has_inf and e == top:
        return sign, (INF if frac == 0 else NAN)
    if not f.has_inf and e == top and frac == (1 << m) - 1:
        return sign, NAN
    if e == 0:
        return sign, Fraction(frac) * p2(f.emin - m)
    return sign, Fraction(frac + (1 << m)) * p2(e - f.bias - m)


def is_subnormal(bits: int, f: Fmt) -> bool:
    s, v = decode(bits, f)
    return v not in (INF, NAN) and 0 < v < p2(f.emin)


def floor_log2(q: Fraction) -> int:
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if p2(e) > q:
        e -= 1
    if p2(e + 1) <= q:
        e += 1
    return e


def _pack(sign: int, field: int, frac: int, f: Fmt) -> int:
    return ((sign << (f.width - 1)) | (field << f.man_bits) | frac) << f.pad


def max_bits(sign: int, f: Fmt) -> int:
    top = (1 << f.exp_bits) - 1
    if f.has_inf:
        return _pack(sign, top - 1, (1 << f.man_bits) - 1, f)
    return _pack(sign, top, (1 << f.man_bits) - 2, f)


def inf_bits(sign: int, f: Fmt) -> int:
    return _pack(sign, (1 << f.exp_bits) - 1, 0, f)


def encode_value(sign: int, v: Fraction, f: Fmt) -> int:
    """Bits of a value known to be representable in f."""
    m = f.man_bits
    if v == 0:
        return _pack(sign, 0, 0, f)
    if v < p2(f.emin):
        k = v / p2(f.emin - m)
        assert k.denominator == 1
        return _pack(sign, 0, int(k), f)
    e = floor_log2(v)
    k = v / p2(e - m)
    assert k.denominator == 1, v
    return _pack(sign, e + f.bias, int(k) - (1 << m), f)


def round_exact(sign: int, q, f: Fmt, mode: str, satfinite: bool = False) -> int:
    """Round sign * q (q >= 0 Fraction, or INF / NAN) into f."""
    if q is NAN:
        return f.canonical_nan
    if q == INF:
        if satfinite or not f.has_inf:
            return max_bits(sign, f) if satfinite else f.canonical_nan
        return inf_bits(sign, f)
    if q == 0:
        return _pack(sign, 0, 0, f)
    e = max(floor_log2(q), f.emin)
    quantum = p2(e - f.man_bits)
    n = q / quantum
    k = n.numerator // n.denominator
    rem = n - k
    half = Fraction(1, 2)
    if mode == RN:
        up = rem > half or (rem == half and k % 2 == 1)
    elif mode == RNA:
        up = rem >= half
    elif mode == RZ:
        up = False
    elif mode == RP:
        up = rem > 0 and sign == 0
    elif mode == RM:
        up = rem > 0 and sign == 1
    else:
        raise ValueError(mode)
    v = (k + up) * quantum
    if v > f.max_value:
        if satfinite:
            return max_bits(sign, f)
        if not f.has_inf:
            return f.canonical_nan
        away = mode in (RN, RNA) or (mode == RP and sign == 0) or (mode == RM and sign == 1)
        return inf_bits(sign, f) if away else max_bits(sign, f)
    return encode_value(sign, v, f)


def signed(sign, v):
    return -v if sign else v


def round_signed(x: Fraction, f: Fmt, mode: str, zero_sign: int = 0, **kw) -> int:
    if x == 0:
        return round_exact(zero_sign, Fraction(0), f, mode)
    return round_exact(int(x < 0), abs(x), f, mode, **kw)


def sqrt_interval(q: Fraction, k: int = 1300) -> Fraction:
    """sqrt(q) exactly if it is a dyadic of <= k fraction bits, else the odd
    midpoint (2n+1) / 2**(k+1) of the 2**-k interval holding it."""
    scaled = q * Fraction(4) ** k
    assert scaled.denominator == 1
    n = math.isqrt(scaled.numerator)
    if n * n == scaled.numerator:
        return Fraction(n, 2 ** k)
    return Fraction(2 * n + 1, 2 ** (k + 1))


# ----------------------------------------------------------------- operations
def _flush_in(bits, f, ftz):
    if ftz and is_subnormal(bits, f):
        return (int(bits) >> f.pad >> (f.width - 1)) << (f.width - 1) << f.pad
    return int(bits)


def _post(bits: int, f: Fmt, ftz: bool, sat: bool) -> int:
    if ftz and is_subnormal(bits, f):
        bits = ((bits >> f.pad) >> (f.width - 1) << (f.width - 1)) << f.pad
    if sat:
        s, v = decode(bits, f)
        if v is NAN or s == 1:
            return 0
        if v >= 1:
            return encode_value(0, Fraction(1), f)
    return bits


def round_unbounded(sign: int, q: Fraction, man_bits: int, mode: str) -> Fraction:
    """q rounded to man_bits+1 significant bits, no exponent limits."""
    quantum = p2(floor_log2(q) - man_bits)
    n = q / quantum
    k = n.numerator // n.denominator
    rem = n - k
    up = {RN: rem > Fraction(1, 2) or (rem == Fraction(1, 2) and k % 2 == 1),
          RNA: rem >= Fraction(1, 2), RZ: False,
          RP: rem > 0 and sign == 0, RM: rem > 0 and sign == 1}[mode]
    return (k + up) * quantum


class Exact:
    """An exact finite result, rounded by ref_op once flags are known."""

    def __init__(self, sign: int, q: Fraction, zero_sign: int = 0):
        self.sign, self.q, self.zero_sign = sign, q, zero_sign


def _round_result(r, f: Fmt, mode: str, ftz: bool) -> int:
    if not isinstance(r, Exact):
        return r
    if r.q == 0:
        return _pack(r.zero_sign, 0, 0, f)
    if ftz and round_unbounded(r.sign, r.q, f.man_bits, mode) < p2(f.emin):
        # sm_90 judges tininess after rounding to full precision with an
        # unbounded exponent (IEEE 754's "after rounding").
        return _pack(r.sign, 0, 0, f)
    return round_exact(r.sign, r.q, f, mode)


def ref_op(op: str, operands, f: Fmt, mode: str = RN, ftz: bool = False,
           sat: bool = False) -> int:
    """IEEE 754 add/sub/mul/div/fma/sqrt on bit patterns, exactly."""
    ops = [decode(_flush_in(b, f, ftz), f) for b in operands]
    if any(v is NAN for _, v in ops):
        return _post(f.canonical_nan, f, ftz, sat)
    if op == "sub":
        (sa, a), (sb, b) = ops
        ops = [(sa, a), (1 - sb, b)]
        op = "add"
    rm = mode == RM
    if op == "add":
        (sa, a), (sb, b) = ops
        if a == INF or b == INF:
            if a == INF and b == INF and sa != sb:
                r = f.canonical_nan
            else:
                r = inf_bits(sa if a == INF else sb, f)
        else:
            x = signed(sa, a) + signed(sb, b)
            zs = (sa | sb) if rm else (sa & sb)
            r = Exact(int(x < 0), abs(x), zs)
    elif op == "mul":
        (sa, a), (sb, b) = ops
        s = sa ^ sb
        if (a == INF and b == 0) or (a == 0 and b == INF):
            r = f.canonical_nan
        elif a == INF or b == INF:
            r = inf_bits(s, f)
        else:
            r = Exact(s, a * b, s)
    elif op == "div":
        (sa, a), (sb, b) = ops
        s = sa ^ sb
        if (a == 0 and b == 0) or (a == INF and b == INF):
            r = f.canonical_nan
        elif a == INF or b == 0:
            r = inf_bits(s, f)
        elif b == INF:
            r = Exact(s, Fraction(0), s)
        else:
            r = Exact(s, a / b, s)
    elif op == "fma":
        (sa, a), (sb, b), (sc, c) = ops
        sp = sa ^ sb
        if (a == INF and b == 0) or (a == 0 and b == INF):
            r = f.canonical_nan
        elif a == INF or b == INF:
            r = f.canonical_nan if (c == INF and sc != sp) else inf_bits(sp, f)
        elif c == INF:
            r = inf_bits(sc, f)
        else:
            x = signed(sp, a * b) + signed(sc, c)
            zs = (sp | sc) if rm else (sp & sc)
            r = Exact(int(x < 0), abs(x), zs)
    elif op == "sqrt":
        ((sa, a),) = ops
        if a == 0:
            r = _pack(sa, 0, 0, f)
        elif sa == 1:
            r = f.canonical_nan
        elif a == INF:
            r = inf_bits(0, f)
        else:
            r = Exact(0, sqrt_interval(a))
    elif op == "rcp":
        return ref_op("div", [encode_value(0, Fraction(1), f), operands[0]], f, mode, ftz, sat)
    else:
        raise ValueError(op)
    return _post(_round_result(r, f, mode, ftz), f, ftz, sat)
