"""Approximate instructions: rcp/sqrt/rsqrt/div .approx, div.full, sin cos lg2 ex2 tanh .approx
(f32, and ex2/tanh on f16/bf16), rcp.approx.ftz.f64, rsqrt.approx{.ftz}.f64.

NOT YET HARDWARE-EXACT. The GPU computes these with its special-function unit (MUFU) and short
ptxas sequences around it; their exact bits will be recovered from GPU measurements (goldens).
Until then each function is computed in float64 with NumPy and rounded once, to nearest even,
into the destination format, so the result is the correctly rounded value of the exact function
up to the float64 evaluation error:

  - f32 / f16 / bf16 results: error <= 0.5 ulp + ~2**-28 ulp against the exact function (NumPy's
    float64 sin/cos/exp2/log2/tanh/sqrt are within a few float64 ulps; after rounding to 24 bits
    that only matters within 2**-28 ulp of a rounding tie). div.approx.f32 is modelled as the ISA
    describes it, a * (1/b) with both steps rounded: <= 1.5 ulp (the ISA bound is 2 ulp).
  - rsqrt.approx.f64: 1 / sqrt(a), two float64 roundings: <= 1 ulp.
  - rcp.approx.ftz.f64 / rsqrt.approx.ftz.f64: computed from the upper word of a as the ISA's
    Semantics block says, rounded to nearest into 1.11.20 (low word zero): <= 0.5 ulp of the 20-bit
    fraction against the exact function of the truncated input.

The hardware is allowed (and known) to be less accurate: ISA bounds are rcp/ex2 f32 1-2 ulp,
sqrt 2**-23 and rsqrt 2**-22.9 relative, lg2 2**-22 absolute/relative, sin/cos 2**-20.5
absolute in [-2pi, 2pi] (2**-14.7 up to 100pi, nothing beyond), tanh f32 2**-11 relative,
tanh f16 2**-10.987 / bf16 2**-8 absolute, ex2 f16 2**-9.9 / bf16 2**-7 relative. Expect these
functions to differ from an H100 by up to those bounds until the goldens are in.

Special values follow the ISA tables (rcp: +-0 -> +-Inf, +-Inf -> +-0; sqrt: -0 -> -0, negative
-> NaN; rsqrt: -0 -> -Inf; lg2: +-0 -> -Inf, negative -> NaN; ex2: -Inf -> +0; sin/cos:
+-Inf -> NaN; tanh: +-Inf -> +-1, subnormals pass through). NaN results: the canonical NaN of
numerics.nans for f32/f16/bf16, its f64 rule (the input NaN quieted, or the default NaN for a
negative input) for rsqrt.approx.f64; .ftz flushes subnormal inputs and results. For the
.ftz.f64 forms the ISA specifies the NaN 0x7fffffff00000000 itself.
"""
from __future__ import annotations

import numpy as np

from ...numerics.encode import round_float64
from ...numerics.nans import f64_nan
from ...numerics.formats import FloatFormat, flush_subnormal, to_float64
from ...numerics.rounding import Rounding
from ._float import canon32, flush32, quiet

# The upper word of an f64 (1.11.20) as a format of its own: encode rounds into it and leaves
# the low word zero; its NaN is the one the ISA gives for rcp/rsqrt.approx.ftz.f64.
F64HI = FloatFormat("f64hi", 11, 20, np.uint64, pad_bits=32, canonical_nan=0x7FFFFFFF00000000)
_HI = np.uint64(0xFFFFFFFF00000000)
_EXP64 = np.uint64(0x7FF0000000000000)
_SIGN64 = np.uint64(1 << 63)


def _rcp(x):
    return 1.0 / x


def _rsqrt(x):
    return 1.0 / np.sqrt(x)


FUNCTIONS = {
    "rcp": _rcp, "sqrt": np.sqrt, "rsqrt": _rsqrt, "sin": np.sin, "cos": np.cos,
    "lg2": np.log2, "ex2": np.exp2, "tanh": np.tanh,
}


def f32_unary(name: str, ftz: bool):
    """`<name>.approx{.ftz}.f32 d, a` on float32 lanes."""
    fn = FUNCTIONS[name]

    @quiet
    def lanes(a):
        a = np.asarray(a, dtype=np.float32)
        x = flush32(a) if ftz else a
        r = canon32(fn(x.astype(np.float64)).astype(np.float32))
        return flush32(r) if ftz else r

    return lanes


def div_approx_f32(ftz: bool):
    """div.approx{.ftz}.f32: d = a * (1/b), each step rounded to f32. The reciprocal of
    |b| > 2**126 is below the normal range and is flushed, so there d is a signed zero, or NaN
    when a is infinite, as the ISA says."""

    @quiet
    def lanes(a, b):
        a, b = np.asarray(a, dtype=np.float32), np.asarray(b, dtype=np.float32)
        if ftz:
            a, b = flush32(a), flush32(b)
        r = flush32((1.0 / b.astype(np.float64)).astype(np.float32))
        d = canon32(np.multiply(a, r))
        return flush32(d) if ftz else d

    return lanes


def div_full_f32(ftz: bool):
    """div.full{.ftz}.f32: modelled as the correctly rounded quotient (ISA bound 2 ulp). The f64
    quotient rounded to f32 is the RN quotient (53 >= 2*24 + 2: no double-rounding error)."""

    @quiet
    def lanes(a, b):
        a, b = np.asarray(a, dtype=np.float32), np.asarray(b, dtype=np.float32)
        if ftz:
            a, b = flush32(a), flush32(b)
        d = canon32((a.astype(np.float64) / b.astype(np.float64)).astype(np.float32))
        return flush32(d) if ftz else d

    return lanes


def _upper_word_ftz(a):
    """a[63:32] as an f64 with the low word zero; subnormal (exponent 0) inputs flushed."""
    hi = np.asarray(a, dtype=np.float64).view(np.uint64) & _HI
    hi = np.where((hi & _EXP64) == 0, hi & _SIGN64, hi)
    return hi.view(np.float64)


def f64_hi_unary(name: str):
    """rcp.approx.ftz.f64 / rsqrt.approx.ftz.f64: d[63:32] = f(a[63:32]), d[31:0] = 0; NaN ->
    0x7fffffff00000000; subnormal inputs and results flushed to signed zero."""
    fn = FUNCTIONS[name]

    @quiet
    def lanes(a):
        r = fn(_upper_word_ftz(a))
        bits = round_float64(r, F64HI, Rounding.RN)
        bits = flush_subnormal(bits, F64HI)   # 1.11.20 subnormals: exponent field 0
        return bits.view(np.float64)

    return lanes


def rsqrt_approx_f64():
    @quiet
    def lanes(a):
        a = np.asarray(a, dtype=np.float64)
        r = 1.0 / np.sqrt(a)
        nan = np.isnan(r)
        if nan.any():   # as f64 arithmetic: a's NaN quieted, or the default NaN for a < 0
            return f64_nan(nan, r.view(np.uint64), (a.view(np.uint64),), (0,)).view(np.float64)
        return r

    return lanes


def half_unary(name: str, fmt: FloatFormat, ftz: bool = False):
    """`<name>.approx{.ftz}.{f16,bf16}` on raw 16-bit lanes: f(a) in float64, rounded RN once."""
    fn = FUNCTIONS[name]

    @quiet
    def lanes(a):
        b = np.asarray(a).astype(fmt.dtype, copy=False)
        if ftz:
            b = flush_subnormal(b, fmt)
        out = round_float64(fn(to_float64(b, fmt)), fmt, Rounding.RN)
        return flush_subnormal(out, fmt) if ftz else out

    return lanes


__all__ = ["F64HI", "FUNCTIONS", "f32_unary", "div_approx_f32", "div_full_f32", "f64_hi_unary",
           "rsqrt_approx_f64", "half_unary"]
