"""Conversions (PTX ISA 9.7.9.21-22): cvt between integer and floating types, the packed and
narrow floating forms, and cvt.pack.sat.

    integer -> integer   truncation / sign or zero extension (NumPy's astype: a C cast);
                         .sat clamps to the destination range
    integer -> float     .rn/.rz/.rm/.rp, correctly rounded (numerics.int_to_float); .sat
    float -> integer     .rni/.rzi/.rmi/.rpi, always saturating (out of range -> MININT/MAXINT);
                         NaN -> 0, or 1 << (width - 1) when the source is .f64 or the destination is
                         64 bits wide (ISA 9.7.9.21 Integer Notes; numerics.nans.int_nan, which
                         sm_90 matches); .ftz flushes f32 inputs
    float -> float       .rn/.rz/.rm/.rp (narrowing; .rna for tf32), exact widening, or with
                         .rni/.rzi/.rmi/.rpi between equal types (round to an integral value);
                         .ftz (f32 inputs and results; measured: not the f32 input of an f16
                         result), .sat ([0, 1], NaN -> +0), .relu
                         (negative -> +0, NaN -> NaN), .satfinite (overflow and Inf -> signed max)
    cvt.frnd2.{f16x2,bf16x2}.f32 d, a, b      d = {cvt(a) in bits 31:16, cvt(b) in bits 15:0}
    cvt.{rna,rn,rz}.tf32.f32                  an f32 pattern with the low 13 bits zero
    cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32 d, a, b   a in bits 15:8, b in bits 7:0
    cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.{f16x2,bf16x2} / cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2}
                         upper lane to upper lane
    cvt.pack.sat.{u16,s16}.s32 d, a, b / cvt.pack.sat.{u8,s8,u4,s4,u2,s2}.s32.b32 d, a, b, c

Not implemented (NotImplementedError naming the form): stochastic rounding (.rs), and the sm_100a
formats e2m1x2/x4, e2m3x2/x4, e3m2x2/x4, e4m3x4, e5m2x4, ue8m0x2, s2f6x2.

The exact work is ptxvm.numerics (convert, intconvert: one correct rounding from the exact
value in every mode). The most common conversions take NumPy fast paths that are single correct
RN conversions too: int -> f32/f64 (C casts), f64 -> f32, f32 -> f16 and f64 -> f16 (NumPy's
float -> half conversion rounds once, from the source bits), exact widenings, and f32 -> bf16 (the
RN-even bit trick). Their NaN lanes alone go to numerics.cvt_float, which owns the NaN rules
(numerics.nans.convert_nan: sm_90 keeps payloads when widening, truncates them when narrowing).
"""
from __future__ import annotations

import numpy as np

from ...numerics import convert as nconv
from ...numerics.formats import BF16, E4M3, E5M2, F16, F32, F64
from ...numerics.intconvert import float_to_int, int_to_float, int_to_int
from ...numerics.nans import int_nan, nan_result
from ...numerics.rounding import Rounding
from ..dtypes import numpy_dtype
from ..registry import semantic
from ._float import (INTS, bits32, bits64, f32, f64, flag, flush32, patch, quiet, rounding, types_in,
                     unsupported)

RN, RZ = Rounding.RN, Rounding.RZ
FLOATS = {"f16": F16, "bf16": BF16, "f32": F32, "f64": F64}
F8 = {"e4m3x2": E4M3, "e5m2x2": E5M2}
UNSUPPORTED = {"e2m1x2", "e2m3x2", "e3m2x2", "e4m3x4", "e5m2x4", "e2m1x4", "e2m3x4", "e3m2x4",
               "ue8m0x2", "s2f6x2"}


def _types(spec):
    """(dtype, atype) of cvt.dtype.atype (the first written type is the destination)."""
    d, a = spec.types.get("dtype"), spec.types.get("atype")
    if d and a:
        return d, a
    ts = types_in(spec)
    if len(ts) < 2:
        raise KeyError(f"cvt: need destination and source types, got {ts}")
    return ts[0], ts[1]


# --------------------------------------------------------------------------- raw bits in and out


def _in_bits(t):
    """Lane values of PTX type t -> the raw bits numerics works on."""
    if t == "f32":
        return bits32
    if t == "f64":
        return bits64
    dt = numpy_dtype(t)
    return lambda x: np.asarray(x).astype(dt, copy=False)


def _out(t):
    """Raw bits -> lane values of PTX type t."""
    if t == "f32":
        return f32
    if t == "f64":
        return f64
    return lambda b: b


# --------------------------------------------------------------------------- fast paths


def _fast(dst, src, mode, ftz, sat, relu, satfinite):
    """A NumPy lane function for the common RN / exact conversions, else None. Their NaN lanes
    are recomputed by numerics.cvt_float, which owns the NaN rules (payloads kept on widening,
    truncated on narrowing, on sm_90)."""
    if mode not in (None, RN) or sat or relu or satfinite:
        return None
    if src in INTS and dst in ("f32", "f64"):
        dt = np.float32 if dst == "f32" else np.float64
        return lambda a: np.asarray(a).astype(dt)        # C int -> float casts round to nearest
    sf, df = FLOATS.get(src), FLOATS.get(dst)
    if sf is None or df is None:
        return None
    if ftz and dst != "f32" and src != "f32":
        return None
    bits_in, out = _in_bits(src), _out(dst)

    def reference(b):
        return nconv.cvt_float(b, sf, df, RN, ftz=ftz)

    if src == "f32" and dst == "f64":
        def core(a):
            a = np.asarray(a, dtype=np.float32)
            return (flush32(a) if ftz else a).astype(np.float64).view(np.uint64)
    elif src == "f64" and dst == "f32":
        def core(a):
            r = np.asarray(a, dtype=np.float64).astype(np.float32)   # one RN rounding
            return bits32(flush32(r) if ftz else r)
    elif src in ("f32", "f64") and dst == "f16":
        def core(a):
            a = np.asarray(a, dtype=np.float32 if src == "f32" else np.float64)
            if ftz:
                a = flush32(a)
            return a.astype(np.float16).view(np.uint16)   # one RN rounding from the source bits
    elif src == "f32" and dst == "bf16":
        def core(a):
            a = np.asarray(a, dtype=np.float32)
            rb = bits32(flush32(a) if ftz else a)
            # RN-even of the upper half (a carry out of the fraction bumps the exponent: Inf on
            # overflow, as RN wants)
            return ((rb + np.uint32(0x7FFF) + ((rb >> np.uint32(16)) & np.uint32(1)))
                    >> np.uint32(16)).astype(np.uint16)
    elif src in ("f16", "bf16") and dst == "f32":
        def core(a):
            b = np.asarray(a).astype(np.uint16, copy=False)
            if src == "f16":
                r = b.view(np.float16).astype(np.float32)
            else:
                r = (b.astype(np.uint32) << np.uint32(16)).view(np.float32)
            return bits32(flush32(r) if ftz else r)
    else:
        return None

    def lanes(a):
        b = bits_in(a)
        r = core(a)
        redo = _isnan_bits(b, src)
        if ftz and dst == "f32":   # exactly +-2**-126: tininess is numerics' decision
            redo |= (r & np.uint32(0x7FFFFFFF)) == np.uint32(0x00800000)
        return out(patch(r, redo, reference, [b]))

    return lanes


def _isnan_bits(b, t):
    if t == "f32":
        return np.isnan(b.view(np.float32))
    if t == "f64":
        return np.isnan(b.view(np.float64))
    fmt = FLOATS[t]
    return (b & np.uint16(0x7FFF)) > np.uint16(fmt.inf_logical)


def _canonical_nan_f32(fn):
    """cvt.ftz.f32.bf16: a NaN input gives the canonical 0x7FFFFFFF (measured on the H200),
    where cvt.f32.bf16 without .ftz passes the NaN's bits through (numerics.nans)."""
    def lanes(a):
        r = fn(a)
        nan = np.isnan(r)
        return f32(nan_result(nan, bits32(r), F32)) if nan.any() else r
    return lanes


_ROUND = {Rounding.RN: np.rint, Rounding.RZ: np.trunc, Rounding.RM: np.floor, Rounding.RP: np.ceil}


def _float_to_narrow_int(src, dt, mode, ftz):
    """cvt.{rni,rzi,rmi,rpi}{.ftz}.{s,u}{8,16,32}.{f32,f64}: round in float64 (exact), clamp to
    the destination range (bounds exact in float64), cast; NaN lanes get numerics.nans.int_nan."""
    info = np.iinfo(dt)
    lo, hi = float(info.min), float(info.max)
    rnd = _ROUND[mode]
    nan_value = int_nan(FLOATS[src], dt)

    @quiet
    def lanes(a):
        a = np.asarray(a, dtype=np.float32 if src == "f32" else np.float64)
        r = rnd((flush32(a) if ftz else a).astype(np.float64))
        np.clip(r, lo, hi, out=r)
        out = r.astype(dt)
        nan = np.isnan(r)
        if nan.any():
            out[nan] = nan_value
        return out

    return lanes


# --------------------------------------------------------------------------- cvt


@semantic("cvt")
def cvt(spec):
    if flag(spec, "pack"):
        return _pack(spec)
    dst, src = _types(spec)
    if flag(spec, "rs"):
        unsupported(spec, "stochastic rounding (.rs, sm_100a) is not implemented")
    if dst in UNSUPPORTED or src in UNSUPPORTED:
        unsupported(spec, f"conversions with .{dst if dst in UNSUPPORTED else src} (sm_100a "
                          "narrow formats) are not implemented")
    mode, integer = rounding(spec)
    ftz, sat = flag(spec, "ftz"), flag(spec, "sat")
    relu, satfinite = flag(spec, "relu"), flag(spec, "satfinite")

    # integer destinations
    if dst in INTS:
        if src in INTS:
            dt = numpy_dtype(dst)
            return lambda a: int_to_int(a, dt, sat=sat)
        if src in FLOATS:   # saturating; NaN -> numerics.nans.int_nan
            fmt, dt, bits, m = FLOATS[src], numpy_dtype(dst), _in_bits(src), mode or RZ
            if src in ("f32", "f64") and np.dtype(dt).itemsize <= 4:
                return _float_to_narrow_int(src, dt, m, ftz)
            return quiet(lambda a: float_to_int(bits(a), fmt, dt, m, ftz=ftz))
    # floating destinations from integers
    if src in INTS and dst in FLOATS:
        fast = _fast(dst, src, mode, ftz, sat, relu, satfinite)
        if fast is not None:
            return fast
        fmt, out = FLOATS[dst], _out(dst)
        m = mode or RN
        return quiet(lambda a: out(int_to_float(a, fmt, m, sat=sat)))
    # float -> float
    if src in FLOATS and dst in FLOATS:
        if integer:
            if src != dst:
                unsupported(spec, "integer rounding between floating types needs equal types")
            fmt, bits, out = FLOATS[src], _in_bits(src), _out(src)
            return quiet(lambda a: out(nconv.round_to_integral(bits(a), fmt, mode, ftz=ftz, sat=sat)))
        if src == "f32" and dst == "f16":
            ftz = False   # measured (H200): .ftz does not flush f32 subnormal inputs to an f16 result
        fast = _fast(dst, src, mode, ftz, sat, relu, satfinite)
        if fast is not None:
            if src == "bf16" and dst == "f32" and ftz:
                return quiet(_canonical_nan_f32(fast))
            return quiet(fast)
        sf, df, bits, out = FLOATS[src], FLOATS[dst], _in_bits(src), _out(dst)
        m = mode or RN
        return quiet(lambda a: out(nconv.cvt_float(bits(a), sf, df, m, ftz=ftz, sat=sat, relu=relu,
                                                   satfinite=satfinite)))
    # packed and narrow formats
    if src == "f32" and dst in ("f16x2", "bf16x2"):
        one = _fast(dst[:-2], "f32", mode, False, False, relu, satfinite)
        if one is not None:   # d = {cvt(a) in bits 31:16, cvt(b) in bits 15:0}
            return quiet(lambda a, b: (one(a).astype(np.uint32) << np.uint32(16)) | one(b))
        fmt, m = FLOATS[dst[:-2]], mode or RN
        return quiet(lambda a, b: nconv.f32x2_to_x2(bits32(a), bits32(b), fmt, m, relu=relu,
                                                    satfinite=satfinite))
    if src == "f32" and dst == "tf32":
        m = mode or Rounding.RNA
        return quiet(lambda a: nconv.f32_to_tf32(bits32(a), m, relu=relu, satfinite=satfinite))
    if src == "f32" and dst in F8:
        fmt = F8[dst]
        return quiet(lambda a, b: nconv.f32x2_to_x2(bits32(a), bits32(b), fmt, RN, relu=relu))
    if src in ("f16x2", "bf16x2") and dst in F8:
        sf, df = FLOATS[src[:-2]], F8[dst]
        return quiet(lambda a: nconv.x2_to_x2(np.asarray(a).astype(np.uint32, copy=False), sf, df,
                                              RN, relu=relu))
    if src in F8 and dst in ("f16x2", "bf16x2"):
        # (to bf16x2: PTX 9.2, sm_100 family; every e4m3/e5m2 value is a bf16 value, so the
        # conversion is exact; not measured: the H200 has no such instruction)
        sf, df = F8[src], FLOATS[dst[:-2]]
        return quiet(lambda a: nconv.x2_to_x2(np.asarray(a).astype(np.uint16, copy=False), sf, df,
                                              RN, relu=relu))
    unsupported(spec, f"no conversion from .{src} to .{dst}")


# --------------------------------------------------------------------------- cvt.pack.sat


_SUB = {"u2": (0, 3, 2), "s2": (-2, 1, 2), "u4": (0, 15, 4), "s4": (-8, 7, 4),
        "u8": (0, 255, 8), "s8": (-128, 127, 8), "u16": (0, 65535, 16), "s16": (-32768, 32767, 16)}


def _pack(spec):
    """cvt.pack.sat.ct.s32{.b32} d, a, b{, c}: d = {c (rest), sat(a), sat(b)} from the low bits up:
    bits [size-1:0] = sat(b), [2*size-1:size] = sat(a), the rest the low bits of c."""
    ct = spec.types.get("convertType") or next(t for t in types_in(spec) if t in _SUB)
    lo, hi, size = _SUB[ct]
    mask = np.uint32((1 << size) - 1)

    def part(x):
        return np.clip(np.asarray(x).astype(np.int64), lo, hi).astype(np.uint32) & mask

    def lanes(a, b, c=None):
        d = (part(a) << np.uint32(size)) | part(b)
        if c is not None and size < 16:
            d = d | (np.asarray(c).astype(np.uint32) << np.uint32(2 * size))
        return d

    return lanes


__all__ = ["cvt"]
