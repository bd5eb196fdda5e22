"""The special-function unit (MUFU) of the H100/H200 as the .approx instructions reach it.

ptxas (13.0, sm_90) turns each .approx instruction into one MUFU operation, plus for the forms
without .ftz a few FMULs that scale subnormal operands into the normal range (semantics in
`semantics/families/approx.py`, taken from the SASS; see docs/hardware-notes.md). This module is
the MUFU operations themselves, on raw bits. Every function takes the array module as `xp`
(NumPy here; the GPU verifier passes CuPy) and uses only operations both provide.

Measured on the H200 over all 2**32 inputs (tools/device/approx_probe.py):

- RCP, RSQ, SQRT (f32, inputs and results flushed): the result depends only on the significand
  (and for RSQ/SQRT the exponent's parity); the exponent follows exactly. The significands are a
  table indexed by the 23 (24) fraction bits, kept here as its difference from the correctly
  rounded value (-2..+1 units in the last place; most entries 0).
- EX2: x becomes a fixed-point number with 23 fraction bits, truncated; a negative x uses the
  ones' complement of |x|'s truncation (an integer x stays exact); 2**frac comes from a
  2**23-entry table and the integer part is the exponent.
- RCP64H / RSQ64H (rcp/rsqrt.approx.ftz.f64): the upper word only, 20 fraction bits; tables
  over the fraction (and parity) as above, relative to the truncated value.

The tables live in data/mufu_tables.npz (lzma-compressed int8 differences) and are built by
tools/build_mufu_tables.py from the probe's measurements.
"""
from __future__ import annotations

import lzma
import os

import numpy as np

_DATA = os.path.join(os.path.dirname(__file__), "data", "mufu_tables.npz")
M23 = 0x7FFFFF
S32 = 0x80000000
INF32 = 0x7F800000
NAN32 = 0x7FFFFFFF


# ------------------------------------------------------------------------------ table bases
# The correctly rounded (f32) or truncated (f64 upper word) value each table entry is stored
# relative to. IEEE-exact operations only (1/x, sqrt), except exp2, whose f32 rounding is
# nowhere within 2**-24 ulp of a tie, far above any libm's float64 error.

def _x_1_2(bits: int):
    return 1.0 + np.arange(1 << bits, dtype=np.float64) * 2.0 ** -bits


def _x_1_4(bits: int):
    k = np.arange(1 << (bits + 1), dtype=np.int64)
    return (1.0 + (k & ((1 << bits) - 1)) * 2.0 ** -bits) * (1 + (k >> bits)).astype(np.float64)


def _f32(v):
    return v.astype(np.float32).view(np.uint32)


def _hi(v):
    return (v.view(np.uint64) >> np.uint64(32)).astype(np.uint32)


BASES = {
    "rcp": lambda: _f32(1.0 / _x_1_2(23)),
    "rsq": lambda: _f32(1.0 / np.sqrt(_x_1_4(23))),
    "sqrt": lambda: _f32(np.sqrt(_x_1_4(23))),
    "ex2": lambda: _f32(np.exp2(np.arange(1 << 23, dtype=np.float64) * 2.0 ** -23)),
    "rcp64h": lambda: _hi(1.0 / _x_1_2(20)),
    "rsq64h": lambda: _hi(1.0 / np.sqrt(_x_1_4(20))),
}

_CACHE: dict = {}


def encode_deltas(delta: np.ndarray) -> np.ndarray:
    return np.frombuffer(lzma.compress(delta.astype(np.int8).tobytes(), preset=9 | lzma.PRESET_EXTREME),
                         dtype=np.uint8)


def table(name: str, xp=np):
    """The measured table `name` as uint32 bits (an xp array; built once per module)."""
    key = (name, xp.__name__)
    t = _CACHE.get(key)
    if t is None:
        with np.load(_DATA) as z:
            d = np.frombuffer(lzma.decompress(z[name].tobytes()), dtype=np.int8)
        base = BASES[name]()
        t = (base.astype(np.int64) + d).astype(np.uint32)
        t = xp.asarray(t)
        _CACHE[key] = t
    return t


# ------------------------------------------------------------------------------ f32 helpers

def _u32(xp, v):
    return xp.asarray(v).astype(xp.uint32)


def fields(xp, b):
    b = _u32(xp, b)
    return b & S32, ((b >> 23) & 0xFF).astype(xp.int64), b & M23


def _assemble(xp, sign, exp, frac):
    """sign | exp << 23 | frac with exp <= 0 flushed to a signed zero, exp >= 255 to infinity."""
    e = xp.clip(exp, 0, 255).astype(xp.uint32)
    r = sign | (e << 23) | frac
    r = xp.where(exp <= 0, sign, r)
    return xp.where(exp >= 255, sign | INF32, r)


def _isnan(xp, b):
    return (b & 0x7FFFFFFF) > INF32


def rcp(b, xp=np):
    """MUFU.RCP (rcp.approx.ftz.f32)."""
    s, e, m = fields(xp, b)
    t = table("rcp", xp)[m]
    r = _assemble(xp, s, ((t >> 23) & 0xFF).astype(xp.int64) - (e - 127), t & M23)
    r = xp.where(e == 0, s | INF32, r)
    r = xp.where(e == 255, s, r)                 # 1/inf = 0
    return xp.where(_isnan(xp, _u32(xp, b)), NAN32, r).astype(xp.uint32)


def _root(name, b, xp, direction):
    s, e, m = fields(xp, b)
    par = (e - 127) & 1
    k = m.astype(xp.int64) + (par << 23)
    shift = ((e - 127) - par) // 2
    t = table(name, xp)[k]
    return s, e, _assemble(xp, s, ((t >> 23) & 0xFF).astype(xp.int64) + direction * shift, t & M23)


def rsq(b, xp=np):
    """MUFU.RSQ (rsqrt.approx.ftz.f32)."""
    s, e, r = _root("rsq", b, xp, -1)
    r = xp.where(e == 0, s | INF32, r)
    r = xp.where(e == 255, 0, r)                 # 1/sqrt(+inf) = +0
    bad = _isnan(xp, _u32(xp, b)) | ((s != 0) & (e != 0))
    return xp.where(bad, NAN32, r).astype(xp.uint32)


def sqrt(b, xp=np):
    """MUFU.SQRT (sqrt.approx.ftz.f32)."""
    s, e, r = _root("sqrt", b, xp, 1)
    r = xp.where(e == 0, s, r)
    r = xp.where(e == 255, INF32, r)
    bad = _isnan(xp, _u32(xp, b)) | ((s != 0) & (e != 0))
    return xp.where(bad, NAN32, r).astype(xp.uint32)


def ex2(b, xp=np):
    """MUFU.EX2 (ex2.approx.ftz.f32)."""
    s, e, m = fields(xp, b)
    sh = xp.clip(e - 127, -30, 9)
    sig = (m | (1 << 23)).astype(xp.int64)
    fx = xp.where(sh >= 0, sig << xp.maximum(sh, 0), sig >> xp.maximum(-sh, 0))
    fx = xp.where(e == 0, 0, fx)                  # subnormals read as zero
    neg = (s != 0) & ((fx & M23) != 0)
    fx = xp.where(s != 0, xp.where(neg, -fx - 1, -fx), fx)
    i, j = fx >> 23, fx & M23
    t = table("ex2", xp)[j]
    r = _assemble(xp, xp.zeros_like(s), ((t >> 23) & 0xFF).astype(xp.int64) + i, t & M23)
    return xp.where(_isnan(xp, _u32(xp, b)), NAN32, r).astype(xp.uint32)


# ------------------------------------------------------------------------------ f64 upper word

def _hi_fields(xp, w):
    w = _u32(xp, w)
    return w & S32, ((w >> 20) & 0x7FF).astype(xp.int64), w & 0xFFFFF


def _hi_assemble(xp, sign, exp, frac):
    e = xp.clip(exp, 0, 2047).astype(xp.uint32)
    r = sign | (e << 20) | frac
    r = xp.where(exp <= 0, sign, r)
    return xp.where(exp >= 2047, sign | 0x7FF00000, r)


def rcp64h(w, xp=np):
    """MUFU.RCP64H on the upper word of an f64 (rcp.approx.ftz.f64): upper word of the result."""
    s, e, m = _hi_fields(xp, w)
    t = table("rcp64h", xp)[m]
    r = _hi_assemble(xp, s, ((t >> 20) & 0x7FF).astype(xp.int64) - (e - 1023), t & 0xFFFFF)
    r = xp.where(e == 0, s | 0x7FF00000, r)
    r = xp.where(e == 2047, s, r)
    nan = (e == 2047) & (m != 0)
    return xp.where(nan, NAN32, r).astype(xp.uint32)


def rsq64h(w, xp=np):
    """MUFU.RSQ64H (rsqrt.approx.ftz.f64): upper word of the result."""
    s, e, m = _hi_fields(xp, w)
    par = (e - 1023) & 1
    k = m.astype(xp.int64) + (par << 20)
    shift = ((e - 1023) - par) // 2
    t = table("rsq64h", xp)[k]
    r = _hi_assemble(xp, s, ((t >> 20) & 0x7FF).astype(xp.int64) - shift, t & 0xFFFFF)
    r = xp.where(e == 0, s | 0x7FF00000, r)
    r = xp.where(e == 2047, 0, r)
    bad = ((e == 2047) & (m != 0)) | ((s != 0) & (e != 0))
    return xp.where(bad, NAN32, r).astype(xp.uint32)
