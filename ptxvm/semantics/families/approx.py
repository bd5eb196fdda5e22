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

from ...numerics import ieee64, mufu
from ...numerics.formats import FloatFormat
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

_TINY = np.float32(2.0 ** -126)
_BIG = np.float32(2.0 ** 126)
_TWO24 = np.float32(2.0 ** 24)


def _bits(a):
    return np.asarray(a, dtype=np.float32).view(np.uint32)


def _f32(bits):
    return np.asarray(bits, dtype=np.uint32).view(np.float32)


def _fmul(a, b, ftz: bool = False):
    """FMUL{.FTZ} (round to nearest) on f32 lanes."""
    if ftz:
        return flush32(np.multiply(flush32(a), flush32(b)))
    return np.multiply(a, b)


def f32_unary(name: str, ftz: bool):
    """`<name>.approx{.ftz}.f32 d, a` on float32 lanes (numerics.mufu.F32_UNARY)."""
    spelling = f"{name}.approx{'.ftz' if ftz and name != 'tanh' else ''}.f32"
    fn = mufu.F32_UNARY[spelling]

    @quiet
    def lanes(a):
        return fn(np.asarray(a, dtype=np.float32).view(np.uint32)).view(np.float32)

    return lanes


def div_approx_f32(ftz: bool):
    """div.approx{.ftz}.f32 as ptxas emits it: MUFU.RCP(b) then one FMUL by a. Without .ftz a
    subnormal b first has both operands multiplied by 2**24 (so a tiny b gives a finite
    quotient, and a huge a may then overflow)."""

    @quiet
    def lanes(a, b):
        a, b = np.asarray(a, dtype=np.float32), np.asarray(b, dtype=np.float32)
        if ftz:
            return canon32(_fmul(a, _f32(mufu.rcp(_bits(b))), ftz=True))
        tiny = np.abs(b) < _TINY
        a, b = np.where(tiny, a * _TWO24, a), np.where(tiny, b * _TWO24, b)
        return canon32(_f32(mufu.rcp(_bits(b))) * a)

    return lanes


def div_full_f32(ftz: bool):
    """div.full{.ftz}.f32 as ptxas emits it: like div.approx, and |b| > 2**126 first has both
    operands multiplied by 0.25 (so 1/b stays normal); no refinement step."""

    @quiet
    def lanes(a, b):
        a, b = np.asarray(a, dtype=np.float32), np.asarray(b, dtype=np.float32)
        big = np.abs(b) > _BIG
        if ftz:
            q = np.float32(0.25)
            a = np.where(big, _fmul(a, q, True), flush32(a))
            b = np.where(big, _fmul(b, q, True), flush32(b))
            return canon32(_fmul(_f32(mufu.rcp(_bits(b))), a, ftz=True))
        tiny = np.abs(b) < _TINY
        s = np.where(big, np.float32(0.25), np.where(tiny, _TWO24, np.float32(1.0))).astype(np.float32)
        a, b = a * s, b * s
        return canon32(_f32(mufu.rcp(_bits(b))) * a)

    return lanes


_MUFU64H = {"rcp": mufu.rcp64h, "rsqrt": mufu.rsq64h}


def f64_hi_unary(name: str):
    """rcp.approx.ftz.f64 / rsqrt.approx.ftz.f64: one MUFU.RCP64H / RSQ64H on a[63:32];
    d[31:0] = 0 (a's low word is ignored; NaN -> 0x7fffffff00000000)."""
    core = _MUFU64H[name]

    @quiet
    def lanes(a):
        hi = (np.asarray(a, dtype=np.float64).view(np.uint64) >> np.uint64(32)).astype(np.uint32)
        return (core(hi).astype(np.uint64) << np.uint64(32)).view(np.float64)

    return lanes


def _dfma(a, b, c):
    return ieee64.fma(a.view(np.uint64), b.view(np.uint64), c.view(np.uint64)).view(np.float64)


def _rsqrt64_newton(x):
    """ptxas' step after MUFU.RSQ64H: y0 = rsq64h(x), e = 1 - x*y0*y0, y = y0 + (0.5 + 0.375e)(y0 e)."""
    hi = (x.view(np.uint64) >> np.uint64(32)).astype(np.uint32)
    y0 = (mufu.rsq64h(hi).astype(np.uint64) << np.uint64(32)).view(np.float64)
    e = _dfma(x, -(y0 * y0), np.ones_like(x))
    c = _dfma(e, np.full_like(x, 0.375), np.full_like(x, 0.5))
    return _dfma(c, y0 * e, y0)


def rsqrt_approx_f64():
    """rsqrt.approx.f64 as ptxas emits it: MUFU.RSQ64H and one Newton-like step in f64 FMAs.
    Positive subnormals are scaled by 2**54 first (the result by 2**27); +-0 -> +-inf,
    +inf -> +0, NaN -> the input quieted, other negative inputs -> 0xfff8000000000000."""
    @quiet
    def lanes(a):
        x = np.asarray(a, dtype=np.float64)
        bits = x.view(np.uint64)
        hi = (bits >> np.uint64(32)).astype(np.int64)
        sub = (hi < 0x00100000) & (x != 0)
        xs = np.where(sub, x * 2.0 ** 54, x)
        y = _rsqrt64_newton(xs)
        y = np.where(sub, y * 2.0 ** 27, y)
        y = np.where(x == 0, np.copysign(np.inf, x), y)
        y = np.where(np.isposinf(x), 0.0, y)
        out = y.view(np.uint64)
        out = np.where(np.signbit(x) & (x != 0), np.uint64(0xFFF8000000000000), out)
        nan = np.isnan(x)
        out = np.where(nan, bits | np.uint64(0x0008000000000000), out)
        return out.view(np.float64)

    return lanes


def half_unary(name: str, fmt: FloatFormat, ftz: bool = False):
    """`ex2.approx{.ftz}` / `tanh.approx` on raw f16 / bf16 lanes: MUFU.EX2.F16/.BF16 and
    MUFU.TANH.F16/.BF16 as measured on every input (numerics.mufu). The .ftz of the bf16 ex2
    changes nothing: MUFU.EX2 reads subnormals as zero anyway."""
    core = {"ex2": mufu.ex2_half, "tanh": mufu.tanh_half}[name]

    @quiet
    def lanes(a):
        return core(np.asarray(a).astype(fmt.dtype, copy=False), fmt.name)

    return lanes


__all__ = ["F64HI", "FUNCTIONS", "f32_unary", "div_approx_f32", "div_full_f32", "f64_hi_unary",
           "rsqrt_approx_f64", "half_unary"]
