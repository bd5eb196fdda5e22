"""Bit-exact PTX floating-point numerics on NumPy arrays of raw bits.

Arithmetic is namespaced by width: ``ieee32.add(a, b, Rounding.RZ, ftz=True)``,
``ieee64.fma(a, b, c, Rounding.RP)``, ``half.fma(a, b, c, BF16)``; conversions
are in ``convert`` (``cvt_float``, ``float_to_int``, ``int_to_float``, ...).
Every result is the correctly rounded IEEE 754 value in the requested mode.
NaN results follow ``nans.NAN_POLICY`` (default: as measured on sm_90
hardware), and .ftz uses tininess after rounding, as the H100 does;
tests/numerics/h100_oracle.py re-measures both on a GPU.
"""
from . import convert, half, ieee32, ieee64
from .convert import (bf16_to_f32, cvt_float, e4m3_to_f16, e4m3_to_f32, e5m2_to_f16,
                      e5m2_to_f32, f16_to_f32, f16_to_f64, f32_to_bf16, f32_to_e4m3,
                      f32_to_e5m2, f32_to_f16, f32_to_f64, f32_to_tf32, f32x2_to_x2,
                      f64_to_f16, f64_to_f32, pack2, round_to_integral, unpack2, x2_to_x2)
from .encode import encode, round_float64
from .formats import (BF16, E4M3, E5M2, F16, F32, F64, FORMATS, TF32, FloatFormat,
                      f32_bits, f64_bits, flush_subnormal, is_finite, is_inf, is_nan,
                      is_subnormal, is_zero, sign_bit, to_float32, to_float64, widen_bits)
from .intconvert import float_to_int, int_to_float, int_to_int
from .modifiers import relu, saturate
from .nans import NanPolicy, convert_nan, f64_nan, int_nan, nan_result
from .rounding import RM, RN, RNA, RP, RZ, Rounding

__all__ = [name for name in dir() if not name.startswith("_")]
