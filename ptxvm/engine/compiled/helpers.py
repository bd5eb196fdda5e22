"""The scalar helpers generated blocks call (imported by the generated modules only, so Numba
is imported where a block is compiled, never by `import ptxvm`).

Registers travel as uint64 bits; floats are bit-casts of them (`f32`, `f32b`, `f64`, `f64b`),
never numeric conversions, so NaN payloads and signed zeros pass untouched.
"""
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

U = np.uint64
I = np.int64
F32 = np.float32
F64 = np.float64
M32 = np.uint64(0xFFFFFFFF)
M64 = np.uint64(0xFFFFFFFFFFFFFFFF)
M31 = np.uint64(0x7FFFFFFF)
S32 = np.uint64(0x80000000)
E32 = np.uint64(0x7F800000)
MIN_NORMAL32 = np.uint64(0x00800000)
LOW29 = np.uint64(0x1FFFFFFF)
MID29 = np.uint64(0x10000000)
FMA32_TINY = 2.0 ** -125


def _bitcast(source, target):
    """An intrinsic that reinterprets a `source` value's bits as `target` (same width)."""
    @intrinsic
    def cast(typingctx, x):
        def codegen(context, builder, signature, args):
            return builder.bitcast(args[0], context.get_value_type(target))
        return target(source), codegen
    return cast


_bitcast_u32_f32 = _bitcast(types.uint32, types.float32)
_bitcast_f32_u32 = _bitcast(types.float32, types.uint32)
_bitcast_u64_f64 = _bitcast(types.uint64, types.float64)
_bitcast_f64_u64 = _bitcast(types.float64, types.uint64)


@njit(cache=True)
def f32(bits):
    return _bitcast_u32_f32(np.uint32(bits))


@njit(cache=True)
def f32b(x):
    return np.uint64(_bitcast_f32_u32(np.float32(x)))


@njit(cache=True)
def f64(bits):
    return _bitcast_u64_f64(np.uint64(bits))


@njit(cache=True)
def f64b(x):
    return _bitcast_f64_u64(np.float64(x))


@njit(cache=True)
def i64(bits):
    """uint64 bits -> the int64 with the same bits."""
    return np.int64(bits)


@njit(cache=True)
def u64(x):
    """int64 -> the uint64 with the same bits."""
    return np.uint64(x)


@njit(cache=True)
def sx32(bits):
    """The low 32 bits as a signed value, in an int64."""
    return np.int64(np.int32(np.uint32(bits & M32)))


@njit(cache=True)
def fz32(bits):
    """.ftz on f32 bits: a subnormal becomes the zero of its sign."""
    return bits & S32 if (bits & E32) == U(0) else bits


@intrinsic
def _llvm_fma64(typingctx, a, b, c):
    """LLVM's fma: IEEE-754 fusedMultiplyAdd, one rounding (a hardware fma instruction where
    the CPU has one, else the C library's correctly rounded fma)."""
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):
        from llvmlite import ir

        double = context.get_value_type(types.float64)
        fn = builder.module.declare_intrinsic("llvm.fma", [double], ir.FunctionType(double, [double] * 3))
        return builder.call(fn, args)
    return sig, codegen


@njit(cache=True)
def fma64(a, b, c):
    """RN(a*b + c) of float64 values, rounded once."""
    return _llvm_fma64(np.float64(a), np.float64(b), np.float64(c))


@njit(cache=True)
def low_mask(n, w):
    """The n low bits of a w-bit value set (all w once n >= w), as uint64; n >= 0."""
    return U(0xFFFFFFFFFFFFFFFF) >> U(64 - w) if n >= w else (U(1) << U(n)) - U(1)


@njit(cache=True)
def _round_shift(x, n):
    """x >> n, rounded to nearest even (x < 2^25, n >= 1)."""
    if n > 40:
        return U(0)
    q = x >> U(n)
    rest = x & ((U(1) << U(n)) - U(1))
    half = U(1) << U(n - 1)
    if rest > half or (rest == half and (q & U(1)) == U(1)):
        q += U(1)
    return q


@njit(cache=True)
def f16_rn(bits):
    """The f16 bits nearest (ties to even) the f32 `bits`, not a NaN: an overflow is the
    infinity, a result below half the smallest subnormal a signed zero."""
    sign = (bits >> U(16)) & U(0x8000)
    e = np.int64((bits >> U(23)) & U(0xFF))
    m = bits & U(0x7FFFFF)
    if e == 255:
        return sign | U(0x7C00)
    if e == 0:
        return sign  # an f32 subnormal is below 2^-126: far under half of f16's 2^-24
    h = e - 112  # the f16 biased exponent (127 - 15)
    if h >= 31:
        return sign | U(0x7C00)
    if h <= 0:  # subnormal f16: the significand in units of 2^-24
        return sign | _round_shift(m | U(0x800000), 14 - h)
    return sign | ((U(h) << U(10)) + _round_shift(m, 13))  # a carry may reach the infinity: right


@njit(cache=True)
def ex2_ftz(b, table):
    """MUFU.EX2 (ex2.approx.ftz.f32) on f32 bits that are not a NaN, as numerics.mufu.ex2: the
    input as fixed point with 23 fraction bits (subnormals read as zero), its integer part the
    exponent, its fraction the index into the measured table."""
    e = np.int64((b >> U(23)) & U(0xFF))
    sh = min(max(e - 127, -30), 9)
    sig = np.int64((b & U(0x7FFFFF)) | U(0x800000))
    fx = (sig << sh) if sh >= 0 else (sig >> -sh)
    if e == 0:
        fx = np.int64(0)
    if (b & S32) != U(0):
        fx = -fx - 1 if (fx & 0x7FFFFF) != 0 else -fx
    t = U(table[fx & 0x7FFFFF])
    exp = np.int64((t >> U(23)) & U(0xFF)) + (fx >> 23)
    if exp <= 0:
        return U(0)
    if exp >= 255:
        return U(0x7F800000)
    return (U(exp) << U(23)) | (t & U(0x7FFFFF))


@njit(cache=True)
def rcp_ftz(b, table):
    """MUFU.RCP (rcp.approx.ftz.f32) on f32 bits that are not a NaN, as numerics.mufu.rcp: the
    significand indexes the measured table, the exponent is negated; 1/0 is the infinity and
    1/inf the zero of the operand's sign."""
    s = b & S32
    e = np.int64((b >> U(23)) & U(0xFF))
    if e == 0:
        return s | U(0x7F800000)
    if e == 255:
        return s
    t = U(table[b & U(0x7FFFFF)])
    exp = np.int64((t >> U(23)) & U(0xFF)) - (e - 127)
    if exp <= 0:
        return s
    if exp >= 255:
        return s | U(0x7F800000)
    return s | (U(exp) << U(23)) | (t & U(0x7FFFFF))


@njit(cache=True)
def fzf(x):
    """.ftz on a float32 value: a subnormal becomes the zero of its sign."""
    return f32(fz32(f32b(x)))


@njit(cache=True)
def div_full(a, b, ftz, table):
    """div.full{.ftz}.f32 on f32 bits (no NaN operand) as ptxas emits it
    (semantics/families/approx.div_full_f32): operands scaled by 1/4 when |b| > 2^126 (and,
    without .ftz, by 2^24 when |b| < 2^-126), MUFU.RCP of b, one FMUL{.FTZ}."""
    x = f32(a)
    y = f32(b)
    big = abs(y) > F32(2.0 ** 126)
    if ftz:
        if big:
            x = fzf(fzf(x) * F32(0.25))
            y = fzf(fzf(y) * F32(0.25))
        else:
            x = fzf(x)
            y = fzf(y)
    else:
        if big:
            sc = F32(0.25)
        elif abs(y) < F32(2.0 ** -126):
            sc = F32(2.0 ** 24)
        else:
            sc = F32(1.0)
        x = F32(x * sc)
        y = F32(y * sc)
    r = f32(rcp_ftz(f32b(y), table))
    if ftz:
        return fzf(fzf(r) * fzf(x))
    return F32(r * x)
