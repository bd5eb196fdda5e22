"""Float <-> float conversions (cvt), packed forms, and integral rounding.

Every source format widens to float64 exactly, so each narrowing is a single
correct rounding by ``encode`` (never NumPy's RN-only casts, which would
double-round e.g. f64 -> f32 -> f16).  Integer conversions live in
``intconvert`` and are re-exported here.
"""
from __future__ import annotations

import numpy as np

from .encode import round_float64
from .formats import (BF16, E4M3, E5M2, F16, F32, F64, TF32, FloatFormat, as_bits,
                      flush_subnormal, to_float64)
from .intconvert import float_to_int, int_to_float, int_to_int  # noqa: F401
from .modifiers import flush_tiny, relu as _relu, saturate
from .nans import convert_nan, f64_nan
from .rounding import Rounding


def _source(bits, src: FloatFormat, ftz: bool) -> np.ndarray:
    b = as_bits(bits, src)
    if ftz and src is F32:
        b = flush_subnormal(b, src)
    with np.errstate(invalid="ignore"):
        return to_float64(b, src)


def cvt_float(bits, src: FloatFormat, dst: FloatFormat, mode: Rounding = Rounding.RN, *,
              ftz: bool = False, sat: bool = False, relu: bool = False,
              satfinite: bool = False) -> np.ndarray:
    """cvt{.rnd}{.ftz}{.sat}{.relu}{.satfinite}.dst.src on raw bits.

    ftz flushes f32 subnormal inputs and tiny f32 results (tininess after
    rounding, see modifiers.flush_tiny); sat clamps
    to [0, 1] (NaN -> +0); relu clamps negatives to +0 (NaN -> NaN);
    satfinite turns overflow and infinities into the signed max finite.
    NaN results are the policy NaN of ``dst``.
    """
    x = _source(bits, src, ftz)
    if dst is F64:
        out = x.view(np.uint64)
    else:
        out = round_float64(x, dst, mode, satfinite=satfinite)
    out = convert_nan(np.isnan(x), out, bits, src, dst, rna=mode is Rounding.RNA,
                      ftz=ftz, satfinite=satfinite)
    if ftz and dst is F32:
        out = flush_tiny(out, x, None, F32, mode)
    if relu:
        out = _relu(out, dst)
    if sat:
        out = saturate(out, dst)
    return out


def round_to_integral(bits, fmt: FloatFormat, mode: Rounding, *, ftz: bool = False,
                      sat: bool = False) -> np.ndarray:
    """cvt.rni/.rzi/.rmi/.rpi with equal source and destination float types."""
    x = _source(bits, fmt, ftz)
    fn = {Rounding.RN: np.rint, Rounding.RZ: np.trunc,
          Rounding.RM: np.floor, Rounding.RP: np.ceil}[mode]
    with np.errstate(invalid="ignore"):
        r = fn(x)  # exact in float64, and representable in fmt again
    if fmt is F64:
        out = f64_nan(np.isnan(r), r.view(np.uint64), (bits,), (0,))
    else:
        out = round_float64(r, fmt)
    if ftz and fmt is F32:
        out = flush_subnormal(out, F32)
    return saturate(out, fmt) if sat else out


# --------------------------------------------------------------- named forms
def f64_to_f32(bits, mode=Rounding.RN, *, ftz=False, sat=False):
    return cvt_float(bits, F64, F32, mode, ftz=ftz, sat=sat)


def f32_to_f64(bits, *, ftz=False, sat=False):
    return cvt_float(bits, F32, F64, ftz=ftz, sat=sat)


def f32_to_f16(bits, mode=Rounding.RN, *, ftz=False, sat=False, relu=False, satfinite=False):
    return cvt_float(bits, F32, F16, mode, ftz=ftz, sat=sat, relu=relu, satfinite=satfinite)


def f32_to_bf16(bits, mode=Rounding.RN, *, ftz=False, sat=False, relu=False, satfinite=False):
    return cvt_float(bits, F32, BF16, mode, ftz=ftz, sat=sat, relu=relu, satfinite=satfinite)


def f32_to_tf32(bits, mode=Rounding.RNA, *, relu=False, satfinite=False):
    """cvt.rna/.rn/.rz.tf32.f32: an f32 pattern with the low 13 bits zero."""
    return cvt_float(bits, F32, TF32, mode, relu=relu, satfinite=satfinite)


def f32_to_e4m3(bits, *, relu=False):
    """cvt.rn.satfinite{.relu}.e4m3.f32 (one lane of the x2 form)."""
    return cvt_float(bits, F32, E4M3, Rounding.RN, relu=relu, satfinite=True)


def f32_to_e5m2(bits, *, relu=False):
    """cvt.rn.satfinite{.relu}.e5m2.f32 (one lane of the x2 form)."""
    return cvt_float(bits, F32, E5M2, Rounding.RN, relu=relu, satfinite=True)


def f16_to_f32(bits, *, ftz=False, sat=False):
    return cvt_float(bits, F16, F32, ftz=ftz, sat=sat)


def bf16_to_f32(bits, *, ftz=False, sat=False):
    return cvt_float(bits, BF16, F32, ftz=ftz, sat=sat)


def f16_to_f64(bits):
    return cvt_float(bits, F16, F64)


def f64_to_f16(bits, mode=Rounding.RN, *, sat=False, relu=False, satfinite=False):
    return cvt_float(bits, F64, F16, mode, sat=sat, relu=relu, satfinite=satfinite)


def e4m3_to_f16(bits, *, relu=False):
    return cvt_float(bits, E4M3, F16, relu=relu)


def e5m2_to_f16(bits, *, relu=False):
    return cvt_float(bits, E5M2, F16, relu=relu)


def e4m3_to_f32(bits):
    return cvt_float(bits, E4M3, F32)


def e5m2_to_f32(bits):
    return cvt_float(bits, E5M2, F32)


# ------------------------------------------------------------------- packing
def pack2(hi, lo, fmt: FloatFormat) -> np.ndarray:
    """Two lanes of ``fmt`` into one register: ``hi`` in the upper half."""
    width = fmt.storage_bits
    wide = {8: np.uint16, 16: np.uint32, 32: np.uint64}[width]
    return (as_bits(hi, fmt).astype(wide) << wide(width)) | as_bits(lo, fmt).astype(wide)


def unpack2(bits, fmt: FloatFormat):
    """(hi, lo) lanes of a packed x2 register."""
    width = fmt.storage_bits
    b = np.asarray(bits)
    return ((b >> b.dtype.type(width)).astype(fmt.dtype),
            (b & b.dtype.type((1 << width) - 1)).astype(fmt.dtype))


def f32x2_to_x2(a, b, dst: FloatFormat, mode=Rounding.RN, *, relu=False,
                satfinite=False) -> np.ndarray:
    """cvt.rnd{.relu}{.satfinite}.{f16x2,bf16x2,e4m3x2,e5m2x2}.f32 d, a, b:
    a lands in the upper half of d, b in the lower half."""
    if dst in (E4M3, E5M2):
        satfinite = True
    hi = cvt_float(a, F32, dst, mode, relu=relu, satfinite=satfinite)
    lo = cvt_float(b, F32, dst, mode, relu=relu, satfinite=satfinite)
    return pack2(hi, lo, dst)


def x2_to_x2(bits, src: FloatFormat, dst: FloatFormat, mode=Rounding.RN, *,
             relu=False, satfinite=False) -> np.ndarray:
    """Lane-wise packed conversion, e.g. cvt.rn.satfinite.e4m3x2.f16x2 or
    cvt.rn.f16x2.e4m3x2 (upper lane to upper lane)."""
    if dst in (E4M3, E5M2):
        satfinite = True
    hi, lo = unpack2(bits, src)
    conv = [cvt_float(h, src, dst, mode, relu=relu, satfinite=satfinite) for h in (hi, lo)]
    return pack2(conv[0], conv[1], dst)
