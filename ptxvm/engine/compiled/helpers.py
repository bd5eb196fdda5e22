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


@intrinsic
def _bitcast_u32_f32(typingctx, x):
    sig = types.float32(types.uint32)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.float32))
    return sig, codegen


@intrinsic
def _bitcast_f32_u32(typingctx, x):
    sig = types.uint32(types.float32)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.uint32))
    return sig, codegen


@intrinsic
def _bitcast_u64_f64(typingctx, x):
    sig = types.float64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.float64))
    return sig, codegen


@intrinsic
def _bitcast_f64_u64(typingctx, x):
    sig = types.uint64(types.float64)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.uint64))
    return sig, codegen


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
