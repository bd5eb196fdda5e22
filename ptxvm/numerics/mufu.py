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

- SIN / COS: one table of 2**24 entries over the half turn, indexed by |t| (t = FMUL.RZ(x, 1/2pi))
  truncated to 25 fraction bits; the second half turn and, for sin, a negative t negate it; cos
  reads it a quarter turn on.
- TANH: x below 2**-8, +-1 from 16; in between a table of the result per run of 2**s inputs
  (TANH_RUNS: the hardware reads |x| at that resolution in each binade).

The tables live in data/*.npz (lzma-compressed int8 differences from a float64 base, with the
entries too far from it kept whole) and are built by tools/build_mufu_tables.py from the probes'
measurements (tools/device/approx_probe.py, probe_sincos_table.py, probe_tanh_table.py).
"""
from __future__ import annotations

import lzma
import os

import numpy as np

_DATA = os.path.join(os.path.dirname(__file__), "data", "mufu_tables.npz")
_DATA_LG2 = os.path.join(os.path.dirname(__file__), "data", "mufu_lg2.npz")
_DATA_SINCOS = os.path.join(os.path.dirname(__file__), "data", "mufu_sincos.npz")
_DATA_TANH = os.path.join(os.path.dirname(__file__), "data", "mufu_tanh.npz")
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
    """[1, 2) then [2, 4) in steps of 2**-bits and 2**(1 - bits) (the binade's float64s, exactly; built
    from one [1, 2) array: through int64 arrays the sqrt table's base took 1.3 s here, now 0.03)."""
    half = _x_1_2(bits)
    return np.concatenate([half, 2.0 * half])


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
    "lg2": lambda: _rz32_np(np.log2(_x_1_2(23))),
    "lg2w": lambda: _rz32_np(np.log2(_x_1_2(23)) - 1.0 + 2.0 ** -24),
    "sin": lambda: _f32(np.sin(2 * np.pi * np.arange(1 << 24, dtype=np.float64) / (1 << 25))),
    "tanh": lambda: tanh_base(),
}

# MUFU.TANH reads |x| in runs of 2**s inputs per binade (exponent field -> s), 2**-8 <= |x| < 16
TANH_RUNS = {119: 6, 120: 6, 121: 6, 122: 5, 123: 5, 124: 4, 125: 4, 126: 4, 127: 3, 128: 2, 129: 3, 130: 12}
TANH_BINADES = tuple(sorted(TANH_RUNS))


def tanh_inputs():
    """The first input of every run, binade after binade: the inputs of the tanh table."""
    return np.concatenate([((np.arange(0, 1 << 23, 1 << TANH_RUNS[e], dtype=np.int64) + (e << 23))
                            .astype(np.uint32)) for e in TANH_BINADES]).view(np.float32)


def tanh_base():
    return _f32(np.tanh(tanh_inputs().astype(np.float64)))


def _tanh_offsets():
    sizes = [1 << (23 - TANH_RUNS[e]) for e in TANH_BINADES]
    return dict(zip(TANH_BINADES, np.concatenate([[0], np.cumsum(sizes)[:-1]]).tolist()))


def _rz32_np(v):
    r = v.astype(np.float32)
    bits = r.view(np.uint32)
    over = np.abs(r.astype(np.float64)) > np.abs(v)
    return np.where(over & ((bits & 0x7FFFFFFF) != 0), bits - 1, bits).astype(np.uint32)

_CACHE: dict = {}


def encode_deltas(delta: np.ndarray) -> np.ndarray:
    return np.frombuffer(lzma.compress(delta.astype(np.int8).tobytes(), preset=9 | lzma.PRESET_EXTREME),
                         dtype=np.uint8)


def table(name: str, xp=np):
    """The measured table `name` as uint32 bits (an xp array; built once per module)."""
    key = (name, xp.__name__)
    t = _CACHE.get(key)
    if t is None:
        path = {"sin": _DATA_SINCOS, "tanh": _DATA_TANH}.get(name, _DATA_LG2 if name.startswith("lg2") else _DATA)
        with np.load(path) as z:
            d = np.frombuffer(lzma.decompress(z[name].tobytes()), dtype=np.int8)
            esc = (z[f"{name}_esc_idx"], z[f"{name}_esc_bits"]) if f"{name}_esc_idx" in z else None
        base = BASES[name]()
        t = (base.astype(np.int64) + d).astype(np.uint32)
        if esc is not None:                    # entries too far from the base for an int8
            t[esc[0]] = esc[1]
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


# ------------------------------------------------------------------------------ not bit-exact yet
# LG2, SIN, COS and TANH are not recovered: these are the closest simple models found (their
# measured distance from the H200, over all 2**32 inputs, is in docs/hardware-notes.md).

def _as_f64(xp, b):
    with np.errstate(all="ignore"):
        return _u32(xp, b).view(xp.float32).astype(xp.float64)


def _to_f32_bits(xp, v):
    return v.astype(xp.float32).view(xp.uint32)


def _flushed(xp, b):
    b = _u32(xp, b)
    return xp.where((b & INF32) == 0, b & S32, b)


def _rz_f32(xp, v):
    """float64 -> f32 bits rounded toward zero (finite v within the f32 range)."""
    r = v.astype(xp.float32)
    over = xp.abs(r.astype(xp.float64)) > xp.abs(v)
    bits = r.view(xp.uint32)
    return xp.where(over & (bits & 0x7FFFFFFF != 0), bits - 1, bits).astype(xp.uint32)


def lg2(b, xp=np):
    """MUFU.LG2 (lg2.approx.ftz.f32): e + L(1.m) in fixed point, truncated toward zero, where
    L is the measured 2**23-entry table (the results for [1, 2)). A negative e works on the
    ones' complement, so the magnitude ends a hair below |e| - L (lg2(2**-126) = -125.99999).
    For e = -1 ([0.5, 1)) L's bits below the table's precision matter: that binade is a measured
    table of its own ("lg2w")."""
    b = _flushed(xp, b)
    s, e, m = fields(xp, b)
    big_e = e - 127
    lt = table("lg2", xp)[m]
    v = big_e.astype(xp.float64) + _as_f64(xp, lt) + xp.where(big_e < 0, 2.0 ** -40, 0.0)
    r = xp.where(big_e == 0, lt, _rz_f32(xp, v))
    r = xp.where(big_e == -1, table("lg2w", xp)[m], r)
    r = xp.where(e == 0, 0xFF800000, r)                      # +-0 -> -inf
    r = xp.where((e == 255) & (m == 0), INF32, r)
    bad = ((e == 255) & (m != 0)) | ((s != 0) & (e != 0))
    return xp.where(bad, NAN32, r).astype(xp.uint32)


_TURN = 0.15915493667125701904                # the f32 constant ptxas multiplies by (1 / 2pi)


def turns(b, xp=np):
    """FMUL.RZ x, 1/2pi: the argument MUFU.SIN/COS receive, in turns, as float64 (exact f32)."""
    x = _as_f64(xp, b)
    t = _rz_f32(xp, x * _TURN)
    t = xp.where(xp.isfinite(x), t, _to_f32_bits(xp, x * _TURN))
    return _as_f64(xp, _flushed(xp, t))          # MUFU reads a subnormal t as zero


def _sincos(b, xp, quarter: int, in_turns: bool = False):
    """The table entry of |t| truncated to 25 fraction bits, `quarter` quarter turns on; the half
    turn and (for sin) a negative t flip the sign. `in_turns`: b already is t (the .2pi forms,
    whose f32 argument goes to MUFU unscaled)."""
    t = _as_f64(xp, _flushed(xp, _u32(xp, b))) if in_turns else turns(b, xp)
    finite = xp.isfinite(t)
    t = xp.where(finite, t, 0.0)
    k = xp.floor(xp.fmod(xp.abs(t) * 2.0 ** 25, 2.0 ** 25)).astype(xp.int64)    # exact for f32 t
    k = (k + (quarter << 23)) & ((1 << 25) - 1)
    negative = xp.signbit(t).astype(xp.int64) if quarter == 0 else 0
    sign = ((k >> 24) ^ negative).astype(xp.uint32) << 31
    r = table("sin", xp)[k & ((1 << 24) - 1)] | sign
    return xp.where(finite, r, NAN32).astype(xp.uint32)


def sin(b, xp=np):
    """MUFU.SIN after ptxas' FMUL.RZ by 1/2pi: a measured 2**24-entry table over the half turn,
    indexed by |t| truncated to 25 fraction bits (all 2**32 inputs)."""
    return _sincos(b, xp, 0)


def cos(b, xp=np):
    """MUFU.COS: MUFU.SIN's table a quarter turn on (cos is even: |t| alone)."""
    return _sincos(b, xp, 1)


def sin_turns(b, xp=np):
    """sin.approx.ftz.2pi.f32 (PTX 9.5): MUFU.SIN on the argument itself (in turns, no FMUL)."""
    return _sincos(b, xp, 0, in_turns=True)


def cos_turns(b, xp=np):
    """cos.approx.ftz.2pi.f32: MUFU.COS on the argument itself."""
    return _sincos(b, xp, 1, in_turns=True)


def tanh(b, xp=np):
    """MUFU.TANH (tanh.approx.f32): x itself for |x| < 2**-8 (subnormals included), +-1 from 16 on,
    in between a measured table over |x| read in runs of 2**s inputs per binade (TANH_RUNS)."""
    b = _u32(xp, b)
    mag = b & 0x7FFFFFFF
    e = (mag >> 23).astype(xp.int64)
    offsets = _tanh_offsets()
    start = xp.zeros_like(e)
    shift = xp.zeros_like(e)
    for binade in TANH_BINADES:
        start = xp.where(e == binade, offsets[binade], start)
        shift = xp.where(e == binade, TANH_RUNS[binade], shift)
    mid = (e >= TANH_BINADES[0]) & (e <= TANH_BINADES[-1])
    index = xp.where(mid, start + ((mag & M23).astype(xp.int64) >> shift), 0)
    r = xp.where(mid, table("tanh", xp)[index], xp.where(e > TANH_BINADES[-1], 0x3F800000, mag))
    r = r | (b & S32)
    return xp.where(_isnan(xp, b), NAN32, r).astype(xp.uint32)


# ------------------------------------------------------------------------------ whole instructions
# ptxas' code around the MUFU operation for each f32 .approx instruction (SASS of ptxas 13.0 for
# sm_90): the forms without .ftz scale a subnormal operand into the normal range with FMULs.

_TINY = 2.0 ** -126


def _f(xp, bits):
    return _u32(xp, bits).view(xp.float32)


def _bits(xp, v):
    return v.astype(xp.float32).view(xp.uint32)


def _scaled(core, b, xp, scale_in, scale_out):
    x = _f(xp, b)
    tiny = xp.abs(x) < xp.float32(_TINY)
    xs = xp.where(tiny, x * xp.float32(scale_in), x)
    r = _f(xp, core(_bits(xp, xs), xp))
    return _bits(xp, xp.where(tiny, r * xp.float32(scale_out), r))


def rcp_full_factors(b, xp=np):
    """rcp.approx.f32's final FMUL operands (s, MUFU.RCP(x * s)) as float32: s = 2**24 for
    |x| < 2**-126, 0.25 for |x| > 2**126, else 1. (ptxas may fuse that FMUL into an add.)"""
    x = _f(xp, b)
    one = xp.ones_like(x)
    s = xp.where(xp.abs(x) < xp.float32(_TINY), xp.float32(2.0 ** 24) * one, one)
    s = xp.where(xp.abs(x) > xp.float32(2.0 ** 126), xp.float32(0.25) * one, s)
    return s, _f(xp, rcp(_bits(xp, x * s), xp))


def rcp_full(b, xp=np):
    """rcp.approx.f32: MUFU.RCP(x * s) * s (rcp_full_factors)."""
    s, r = rcp_full_factors(b, xp)
    return _bits(xp, s * r)


def ex2_full(b, xp=np):
    """ex2.approx.f32: x < -126 is halved and MUFU.EX2's result squared (FMUL)."""
    x = _f(xp, b)
    low = x < xp.float32(-126.0)
    r = _f(xp, ex2(_bits(xp, xp.where(low, x * xp.float32(0.5), x)), xp))
    return _bits(xp, xp.where(low, r * r, r))


def lg2_full(b, xp=np):
    """lg2.approx.f32: |x| < 2**-126 is multiplied by 2**24 and 24 subtracted (FADD)."""
    x = _f(xp, b)
    tiny = xp.abs(x) < xp.float32(_TINY)
    r = _f(xp, lg2(_bits(xp, xp.where(tiny, x * xp.float32(2.0 ** 24), x)), xp))
    return _bits(xp, xp.where(tiny, r + xp.float32(-24.0), r))


def _canon(fn):
    """fn with NaN results made canonical and NumPy's floating-point warnings off."""
    def full(b, xp=np):
        with np.errstate(all="ignore"):
            r = _u32(xp, fn(b, xp))
        return xp.where(_isnan(xp, r), NAN32, r).astype(xp.uint32)
    return full


F32_UNARY = {
    "rcp.approx.ftz.f32": _canon(rcp),
    "rcp.approx.f32": _canon(rcp_full),
    "sqrt.approx.ftz.f32": _canon(sqrt),
    "sqrt.approx.f32": _canon(lambda b, xp=np: _scaled(sqrt, b, xp, 2.0 ** 24, 2.0 ** -12)),
    "rsqrt.approx.ftz.f32": _canon(rsq),
    "rsqrt.approx.f32": _canon(lambda b, xp=np: _scaled(rsq, b, xp, 2.0 ** 24, 4096.0)),
    "ex2.approx.ftz.f32": _canon(ex2),
    "ex2.approx.f32": _canon(ex2_full),
    "lg2.approx.ftz.f32": _canon(lg2),
    "lg2.approx.f32": _canon(lg2_full),
    "sin.approx.ftz.f32": _canon(sin),
    "sin.approx.f32": _canon(sin),            # FMUL.RZ keeps subnormals, MUFU.SIN flushes them
    "cos.approx.ftz.f32": _canon(cos),
    "cos.approx.f32": _canon(cos),
    "sin.approx.ftz.2pi.f32": _canon(sin_turns),
    "cos.approx.ftz.2pi.f32": _canon(cos_turns),
    "tanh.approx.f32": _canon(tanh),
}

EXACT = {"rcp", "sqrt", "rsqrt", "ex2", "lg2", "sin", "cos", "tanh"}   # bit-exact f32 functions (all of them)

F64HI_UNARY = {"rcp.approx.ftz.f64": rcp64h, "rsqrt.approx.ftz.f64": rsq64h}


# ------------------------------------------------------------------------------ 16-bit forms
# MUFU.EX2.F16 / .BF16 and MUFU.TANH.F16 / .BF16 (one per lane of the x2 forms), measured on all
# 65536 inputs: EX2 is MUFU.EX2 on the input widened to f32, truncated (toward zero) to the
# 16-bit format; an f16 result of 65536 or more is +inf. TANH is a measured table: tanh rounded
# to nearest plus the stored differences (data/mufu_half.npz).

_HALF = os.path.join(os.path.dirname(__file__), "data", "mufu_half.npz")


def _half_fmt(fmt: str):
    from .formats import BF16, F16
    return F16 if fmt == "f16" else BF16


def ex2_half(bits, fmt: str):
    """MUFU.EX2.F16 / .BF16 on raw 16-bit lanes (NumPy)."""
    from .encode import round_float64
    from .formats import to_float64
    from .rounding import Rounding
    f = _half_fmt(fmt)
    x = to_float64(np.asarray(bits).astype(np.uint16), f).astype(np.float32).view(np.uint32)
    r = ex2(x).view(np.float32).astype(np.float64)
    out = round_float64(r, f, Rounding.RZ)
    if fmt == "f16":
        out = np.where(r >= 65536.0, np.uint16(f.inf), out)
    return out.astype(np.uint16)


def half_tanh_base(fmt: str):
    """tanh of every 16-bit input rounded to nearest (the base of the measured TANH table)."""
    from .encode import round_float64
    from .formats import to_float64
    from .rounding import Rounding
    f = _half_fmt(fmt)
    with np.errstate(all="ignore"):
        v = np.tanh(to_float64(np.arange(1 << 16, dtype=np.uint16), f))
    return round_float64(v, f, Rounding.RN).astype(np.uint16)


def tanh_half(bits, fmt: str):
    """MUFU.TANH.F16 / .BF16 on raw 16-bit lanes (NumPy)."""
    key = ("tanh16", fmt)
    t = _CACHE.get(key)
    if t is None:
        t = half_tanh_base(fmt).astype(np.int64)
        with np.load(_HALF) as z:
            t[z[f"tanh_{fmt}_idx"]] += z[f"tanh_{fmt}_delta"]   # magnitudes: same sign
        t = t.astype(np.uint16)
        _CACHE[key] = t
    return t[np.asarray(bits).astype(np.uint16)]
