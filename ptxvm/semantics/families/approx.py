"""Approximate instructions: rcp/sqrt/rsqrt/div .approx, div.full, sin cos lg2 ex2 tanh .approx
(f32, and ex2/tanh on f16/bf16), rcp.approx.ftz.f64, rsqrt.approx{.ftz}.f64.

NOT YET HARDWARE-EXACT. The GPU computes these with its special-function unit (MUFU) and short
ptxas sequences around it; their exact bits are still to be recovered from GPU measurements.
Until then each function is computed in float64 with NumPy and rounded once into the destination
format - to nearest even, except lg2 (toward zero) and the 1.11.20 results of the .ftz.f64 forms
(truncated), the directions closest to the H200. Against the exact function that is:

  - f32 / f16 / bf16 results: error <= 0.5 ulp + ~2**-28 ulp (1 ulp for lg2): NumPy's float64
    sin/cos/exp2/log2/tanh/sqrt are within a few float64 ulps, which after rounding to 24 bits
    only matters within 2**-28 ulp of a rounding tie. div.approx.f32 is modelled as the ISA
    describes it, a * (1/b) with both steps rounded (<= 1.5 ulp; a subnormal b is scaled by
    2**24 first unless .ftz); div.full.f32 as the correctly rounded quotient.
  - rsqrt.approx.f64: 1 / sqrt(a), two float64 roundings: <= 1 ulp.
  - rcp.approx.ftz.f64 / rsqrt.approx.ftz.f64: computed from the upper word of a as the ISA's
    Semantics block says, truncated to 1.11.20 (low word zero): < 1 ulp of the 20-bit fraction.

Measured against the H200 conformance goldens (tests/goldens/conformance, 4096-16384 lanes per
form, random bit patterns and specials; tests/semantics/test_floating.py keeps these bounds):
rcp / sqrt / rsqrt .approx.f32 differ in 9-12% of the lanes, by 1 ulp at most; ex2.approx.f32
13%, div.approx 7%, div.full 16-19%, <= 2 ulp; lg2 5% (a few lanes near 1.0 by more, inside the
ISA's absolute bound); tanh.approx.f32 18%, <= 123 ulp; sin/cos nearly everywhere, absolute
difference <= 2**-20 in [-2pi, 2pi] (the hardware also reads subnormal inputs as zero, which is
copied here); rsqrt.approx.f64 13%, 1 ulp; rcp/rsqrt.approx.ftz.f64 6% / 3%, one unit of the
20-bit fraction; ex2/tanh on f16/bf16 3-52% of the lanes, 1 ulp at most.

ISA bounds (the hardware may use all of it): rcp/ex2 f32 1-2 ulp, sqrt 2**-23 and rsqrt 2**-22.9
relative, lg2 2**-22 absolute/relative, sin/cos 2**-20.5 absolute in [-2pi, 2pi] (2**-14.7 up to
100pi, nothing beyond), tanh f32 2**-11 relative, tanh f16 2**-10.987 / bf16 2**-8 absolute,
ex2 f16 2**-9.9 / bf16 2**-7 relative.

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
from ...numerics.formats import F32, FloatFormat, flush_subnormal, to_float64
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


# Small choices fitted to the H200 goldens (see the module docstring): the rounding direction of
# the final float64 -> f32 step (lg2: 95% of the lanes agree toward zero, 50% to nearest), and
# inputs the hardware flushes even without .ftz (sin of a subnormal is +-0 there).
ROUND = {"lg2": Rounding.RZ}                  # else RN
FLUSH_INPUT = {"sin", "cos"}                  # subnormal inputs read as zero, .ftz or not


def f32_unary(name: str, ftz: bool):
    """`<name>.approx{.ftz}.f32 d, a` on float32 lanes."""
    fn = FUNCTIONS[name]
    mode = ROUND.get(name, Rounding.RN)
    flush_in = ftz or name in FLUSH_INPUT

    @quiet
    def lanes(a):
        a = np.asarray(a, dtype=np.float32)
        x = fn((flush32(a) if flush_in else a).astype(np.float64))
        if mode is Rounding.RN:
            r = canon32(x.astype(np.float32))
        else:
            r = round_float64(x, F32, mode).view(np.float32)
        return flush32(r) if ftz else r

    return lanes


_TWO24 = np.float32(2.0 ** 24)


def div_approx_f32(ftz: bool):
    """div.approx{.ftz}.f32: d = a * (1/b), each step rounded to f32. The reciprocal of
    |b| > 2**126 is below the normal range and is flushed, so there d is a signed zero, or NaN
    when a is infinite, as the ISA says. Without .ftz a subnormal b is scaled by 2**24 first and
    the quotient scaled back (the H200 gives finite quotients there: 2**-126 / 2**-149 = 2**23)."""

    @quiet
    def lanes(a, b):
        a, b = np.asarray(a, dtype=np.float32), np.asarray(b, dtype=np.float32)
        if ftz:
            a, b = flush32(a), flush32(b)
            tiny = None
        else:
            tiny = (np.abs(b) < np.float32(2.0 ** -126)) & (b != 0)
            if tiny.any():
                b = np.where(tiny, b * _TWO24, b)
            else:
                tiny = None
        r = flush32((1.0 / b.astype(np.float64)).astype(np.float32))
        d = np.multiply(a, r)
        if tiny is not None:
            d = np.where(tiny, d * _TWO24, d)
        d = canon32(d)
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
        bits = round_float64(r, F64HI, Rounding.RZ)   # truncated: closest to the H200 (see above)
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
