"""Approximate instructions: rcp/sqrt/rsqrt/div .approx, div.full, sin cos lg2 ex2 tanh .approx
(f32, and ex2/tanh on f16/bf16), rcp.approx.ftz.f64, rsqrt.approx{.ftz}.f64.

Each is what ptxas (13.0, sm_90) emits for it: one operation of the special-function unit
(numerics.mufu, measured on the H200 over every input) and, for the forms without .ftz, FMULs
that scale subnormal operands into the normal range (docs/notes/approx-functions.md lists the
SASS). Bit-exact with the H200 on every input: rcp, sqrt, rsqrt, ex2, lg2 (.f32, .ftz or not),
div.approx, div.full (both are MUFU.RCP and one FMUL), rcp/rsqrt.approx.ftz.f64, rsqrt.approx.f64
(MUFU.RSQ64H and one f64 FMA step), ex2 and tanh on f16/bf16 (and x2). Not recovered yet:
sin, cos and tanh.approx.f32 (numerics.mufu has the closest models found; their measured
distance from the H200 is in docs/hardware-notes.md).

Special values are the hardware's (NaN results are the canonical NaN; the .ftz.f64 forms give
0x7fffffff00000000; rsqrt.approx.f64 returns an input NaN quieted).
"""
from __future__ import annotations

import numpy as np

from ...numerics import ieee64, mufu
from ...numerics.formats import FloatFormat
from ._float import canon32, flush32, quiet

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


def f32_unary(name: str, ftz: bool, turns: bool = False):
    """`<name>.approx{.ftz}{.2pi}.f32 d, a` on float32 lanes (numerics.mufu.F32_UNARY); `turns` is
    sin/cos .2pi (PTX 9.5), which always has .ftz."""
    spelling = f"{name}.approx{'.ftz' if ftz and name != 'tanh' else ''}{'.2pi' if turns else ''}.f32"
    fn = mufu.F32_UNARY[spelling]

    @quiet
    def lanes(a):
        return fn(np.asarray(a, dtype=np.float32).view(np.uint32)).view(np.float32)

    return lanes


def div_approx_factors(ftz: bool):
    """div.approx{.ftz}.f32 as ptxas emits it: MUFU.RCP(b) then one FMUL by a; (a, b) -> the
    two factors (1/b, a) of that FMUL. Without .ftz a subnormal b first has both operands
    multiplied by 2**24 (so a tiny b gives a finite quotient, and a huge a may then overflow).
    The factors are what engine.contraction fuses when ptxas turns the FMUL and an add into an
    FFMA."""

    @quiet
    def factors(a, b):
        a, b = np.asarray(a, dtype=np.float32), np.asarray(b, dtype=np.float32)
        if not ftz:
            tiny = np.abs(b) < _TINY
            a, b = np.where(tiny, a * _TWO24, a), np.where(tiny, b * _TWO24, b)
        return _f32(mufu.rcp(_bits(b))), a

    return factors


def div_full_factors(ftz: bool):
    """div.full{.ftz}.f32 as ptxas emits it: like div.approx, and |b| > 2**126 first has both
    operands multiplied by 0.25 (so 1/b stays normal); no refinement step. (a, b) -> (1/b', a')."""

    @quiet
    def factors(a, b):
        a, b = np.asarray(a, dtype=np.float32), np.asarray(b, dtype=np.float32)
        big = np.abs(b) > _BIG
        if ftz:
            q = np.float32(0.25)
            a = np.where(big, _fmul(a, q, True), flush32(a))
            b = np.where(big, _fmul(b, q, True), flush32(b))
        else:
            tiny = np.abs(b) < _TINY
            s = np.where(big, np.float32(0.25), np.where(tiny, _TWO24, np.float32(1.0))).astype(np.float32)
            a, b = a * s, b * s
        return _f32(mufu.rcp(_bits(b))), a

    return factors


def rcp_approx_factors():
    """rcp.approx.f32 (no .ftz) as ptxas emits it: x -> (s, MUFU.RCP(x * s)), the factors of its
    final FMUL (numerics.mufu.rcp_full)."""

    @quiet
    def factors(a):
        s, r = mufu.rcp_full_factors(_bits(a))
        return s, r

    return factors


def _quotient(factors, ftz: bool):
    @quiet
    def lanes(a, b):
        x, y = factors(a, b)
        return canon32(_fmul(x, y, ftz=ftz))

    return lanes


def div_approx_f32(ftz: bool):
    """div.approx{.ftz}.f32: the product of div_approx_factors, rounded (FMUL{.FTZ})."""
    return _quotient(div_approx_factors(ftz), ftz)


def div_full_f32(ftz: bool):
    """div.full{.ftz}.f32: the product of div_full_factors, rounded (FMUL{.FTZ})."""
    return _quotient(div_full_factors(ftz), ftz)


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


__all__ = ["f32_unary", "div_approx_f32", "div_full_f32", "div_approx_factors", "div_full_factors",
           "rcp_approx_factors", "f64_hi_unary",
           "rsqrt_approx_f64", "half_unary"]
