"""Floating point (PTX ISA 9.7.3) on .f32 / .f64 / .f32x2, the mixed-precision forms (9.7.5:
add/sub/fma .f32.{f16,bf16}), and the float half of every opcode shared with other families.

    add sub mul fma mad   {.rnd}{.ftz}{.sat}     exact, every rounding mode
    div  .rnd exact; .approx / .full approximate (approx.py)
    rcp sqrt  .rnd exact; .approx approximate;   rsqrt sin cos lg2 ex2 tanh  .approx
    abs neg copysign      sign-bit operations;   min max {.ftz}{.NaN}{.xorsign.abs}{.abs}
    testp                 a predicate (bool lanes)

The half-precision types of the same opcodes (.f16 .bf16 and their x2) go to half.py.

Fast paths (registers are arrays over up to ~270k lanes): NumPy's float32 and float64 add, sub
and mul are IEEE round-to-nearest-even, so the RN forms run on them directly. f32 div, rcp and
sqrt in RN are the float64 result cast to float32 (53 >= 2*24 + 2: the double rounding is
innocuous). fma.rn.f32 forms the exact product in float64 (24 + 24 bits), adds c with TwoSum,
turns the float64 sum into its round-to-odd stand-in using the TwoSum error, and lets NumPy's
float64 -> float32 cast round once more: round-to-odd with 29 extra bits makes that the correct
rounding of the exact a*b + c. fma.rn.f64 uses Boldo & Melquiond's TwoProd/TwoSum/round-to-odd
emulation on the lanes whose exponents keep it exact (all but extreme ones). Directed modes and
the lanes the fast paths leave go through ptxvm.numerics (exact integer encoding). .ftz flushes
subnormal inputs and results; a result rounded to exactly the smallest normal is handed to
numerics, which decides tininess after rounding as sm_90 does; .sat comes last.

NaN results are decided by ptxvm.numerics.nans (measured on sm_90: f32 arithmetic gives the
canonical 0x7FFFFFFF, f64 arithmetic the first NaN operand in a fixed order, quieted, or
0xFFF8000000000000 for invalid operations): the fast paths check isnan(...).any() and hand only
the NaN lanes to the numerics function of the same instruction. min/max and the approximate
functions produce numerics.nans.nan_result's canonical NaN, except where the H200 goldens show
otherwise: abs/neg.f64 and min/max.f64 return an operand's NaN quieted (numerics.nans.f64_nan).

Legacy spellings (PTX ISA <= 1.3) map as the ISA says: rcp/sqrt/rsqrt/sin/cos/lg2/ex2.f32 ->
.approx.ftz, div.f32 -> div.approx.ftz, div/rcp/sqrt.f64 -> .rn; mad.f32 without a rounding
modifier (sm_1x code) is, when JIT-compiled for sm_20+, fma.rn.ftz.f32 (ISA 9.7.3.7).
"""
from __future__ import annotations

import numpy as np

from ...numerics import ieee32, ieee64
from ...numerics.formats import F32, F64
from ...numerics.nans import f64_nan, nan_result
from ...numerics.rounding import Rounding
from ..registry import semantic
from . import approx, half
from ._bytype import typed_semantic
from ._float import (HALF, M32, M64, S32, S64, bits32, bits64, f32, f32x2, f64, flag, flush32,
                     inst_type, minmax as _minmax, patch, quiet, rounding, sat32, types_in,
                     sum_to_odd, unsupported, word)

RN = Rounding.RN
_MIN_NORMAL32 = np.uint32(0x00800000)
UFUNC = {"add": np.add, "sub": np.subtract, "mul": np.multiply}
IEEE32 = {"add": ieee32.add, "sub": ieee32.sub, "mul": ieee32.mul, "fma": ieee32.fma,
          "div": ieee32.div, "rcp": ieee32.rcp, "sqrt": ieee32.sqrt}
IEEE64 = {"add": ieee64.add, "sub": ieee64.sub, "mul": ieee64.mul, "fma": ieee64.fma,
          "div": ieee64.div, "rcp": ieee64.rcp, "sqrt": ieee64.sqrt}


# --------------------------------------------------------------------------- f32 cores (RN)


_MID32 = np.uint64(0x10000000)  # low 29 bits of a float64 lying exactly between two floats
_LOW29 = np.uint64(0x1FFFFFFF)
_FMA32_TINY = 2.0 ** -125              # below this an f32 result may be subnormal: another grid


def fma32_rn(a, b, c) -> np.ndarray:
    """RN(a*b + c) for float32 lanes (NaN lanes come out as some NaN: patch them after).

    a*b is exact in float64 (24 x 24 bits); RN(p + c) in float64 then rounded to float32 is the
    correct result unless that float64 lies exactly halfway between two floats (a double
    rounding can then go the wrong way) or the result is tiny; only those rare lanes take the
    exact round-to-odd path."""
    p = np.multiply(a, b, dtype=np.float64)
    s = np.add(p, c, dtype=np.float64)
    hard = (s.view(np.uint64) & _LOW29) == _MID32
    hard |= np.abs(s) < _FMA32_TINY
    if hard.any():
        i = np.flatnonzero(hard)
        c64 = np.broadcast_to(np.asarray(c, dtype=np.float64), s.shape)
        s[i] = sum_to_odd(np.broadcast_to(p, s.shape)[i], c64[i])
    return s.astype(np.float32)


_SPLIT = 134217729.0                      # 2**27 + 1 (Veltkamp)
_LO, _HI = 2.0 ** -480, 2.0 ** 480


def fma64_rn(a, b, c):
    """(bits of RN(a*b + c), mask of lanes it could not do) for float64 lanes.

    Boldo & Melquiond's emulation: (uh, ul) = TwoProd(a, b) (Dekker), (th, tl) = TwoSum(c, uh),
    v = RO(tl + ul), d = RN(th + v) - correct when nothing over- or underflows, which the mask
    guarantees (2**-480 <= |a|, |b| <= 2**480, |c| <= 2**1000, 2**-960 <= |th| <= 2**1000 or
    th == 0, where the result is ul itself, a multiple of 2**-1064 and so representable). Lanes
    where a or b is zero are done here too (d = c, or a signed zero); the rest (infinities, NaNs,
    extreme exponents) are left to numerics.ieee64.fma by the caller."""
    a, b, c = (np.asarray(x, dtype=np.float64) for x in (a, b, c))
    uh = a * b
    t = a * _SPLIT
    ah = t - (t - a)
    al = a - ah
    t = b * _SPLIT
    bh = t - (t - b)
    bl = b - bh
    ul = ah * bh - uh                         # Dekker: uh + ul == a * b exactly
    ul += ah * bl
    ul += al * bh
    ul += al * bl
    th = c + uh
    bb = th - uh
    tl = (uh - (th - bb)) + (c - bb)          # TwoSum: th + tl == c + uh exactly
    d = th + sum_to_odd(tl, ul)
    ax, ay, at = np.abs(a), np.abs(b), np.abs(th)
    ok = (ax >= _LO) & (ax <= _HI) & (ay >= _LO) & (ay <= _HI) & (np.abs(c) <= 2.0 ** 1000)
    ok &= ((at >= 2.0 ** -960) | (th == 0)) & (at <= 2.0 ** 1000)   # th == 0: d = ul, exact
    zero_prod = ((a == 0) | (b == 0)) & np.isfinite(a) & np.isfinite(b) & np.isfinite(c)
    if zero_prod.any():                       # d = c exactly; 0 + 0 follows the RN sign rule
        signed_zero = np.where((np.signbit(a) ^ np.signbit(b)) & np.signbit(c), -0.0, 0.0)
        d = np.where(zero_prod, np.where(c == 0, signed_zero, c), d)
        ok |= zero_prod
    return np.asarray(d).view(np.uint64), ~ok


def _div32_rn(a, b):
    return (a.astype(np.float64) / b.astype(np.float64)).astype(np.float32)


def _rcp32_rn(a):
    return (1.0 / a.astype(np.float64)).astype(np.float32)


def _sqrt32_rn(a):
    return np.sqrt(a.astype(np.float64)).astype(np.float32)


RN32 = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "fma": fma32_rn,
        "div": _div32_rn, "rcp": _rcp32_rn, "sqrt": _sqrt32_rn}


def f32_op(op: str, rnd: Rounding, ftz: bool = False, sat: bool = False):
    """Lane function of `op{.rnd}{.ftz}{.sat}.f32` (add sub mul fma div rcp sqrt)."""
    exact = IEEE32[op]
    if rnd is RN:
        core = RN32[op]

        @quiet
        def lanes(*ops):
            ops = [np.asarray(o, dtype=np.float32) for o in ops]
            r = core(*([flush32(o) for o in ops] if ftz else ops))
            redo = np.isnan(r)          # which NaN: numerics decides
            if ftz:
                r = flush32(r)
                # rounded to exactly +-2**-126: whether the exact result was tiny (flushed) is
                # IEEE tininess after rounding, which numerics decides too
                redo |= (bits32(r) & M32) == _MIN_NORMAL32
            if sat:
                r = sat32(r)
            if redo.any():
                r = f32(patch(bits32(r), redo, lambda *b: exact(*b, rnd, ftz, sat),
                              [bits32(o) for o in ops]))
            return r

        return lanes

    @quiet
    def lanes_directed(*ops):
        return f32(exact(*(bits32(o) for o in ops), rnd, ftz, sat))

    return lanes_directed


def f64_op(op: str, rnd: Rounding):
    """Lane function of `op.rnd.f64`."""
    exact = IEEE64[op]
    if rnd is RN and op in ("add", "sub", "mul", "div", "sqrt", "rcp"):
        core = {"div": np.divide, "sqrt": np.sqrt, "rcp": lambda x: 1.0 / x}.get(op) or UFUNC[op]

        @quiet
        def lanes(*ops):
            ops = [np.asarray(o, dtype=np.float64) for o in ops]
            r = core(*ops)
            nan = np.isnan(r)
            if nan.any():   # f64 NaNs keep operand payloads on sm_90: numerics knows the order
                r = f64(patch(bits64(r), nan, lambda *b: exact(*b, rnd), [bits64(o) for o in ops]))
            return r

        return lanes
    if rnd is RN and op == "fma":
        @quiet
        def fma_lanes(*ops):
            d, rest = fma64_rn(*ops)   # numerics does the lanes it cannot (and decides NaNs)
            return f64(patch(d, rest, lambda *b: exact(*b, rnd), [bits64(o) for o in ops]))

        return fma_lanes

    @quiet
    def lanes_exact(*ops):
        return f64(exact(*(bits64(o) for o in ops), rnd))

    return lanes_exact


# --------------------------------------------------------------------------- add sub mul fma mad


def _mixed_type(spec):
    """The half type of a mixed-precision form (add/sub/fma .f32.{f16,bf16}), else None."""
    for slot in ("atype", "abtype"):
        t = spec.types.get(slot) or spec.values.get(slot)
        if t in ("f16", "bf16"):
            return t
    ts = types_in(spec)
    if "f32" in ts:
        for t in ts:
            if t in ("f16", "bf16"):
                return t
    return None


def _mixed(op: str, spec, ht: str):
    """d = convert(a) op c (add/sub), d = convert(a)*convert(b) + c (fma): the half operands
    widen exactly to f32, then the f32 operation rounds once ({.rnd}{.sat}, no .ftz)."""
    fmt = HALF[ht]
    rnd = rounding(spec)[0] or RN
    core = f32_op(op, rnd, False, flag(spec, "sat"))
    n_half = 2 if op == "fma" else 1

    def lanes(*ops):
        return core(*(half.to_f32(o, fmt) for o in ops[:n_half]), *ops[n_half:])

    return lanes


def _arith(op: str, spec):
    ht = _mixed_type(spec) if op in ("add", "sub", "fma") else None
    if ht is not None:
        return _mixed(op, spec, ht)
    t = inst_type(spec)
    if t in HALF:
        return half.arith(op, spec, t)
    rnd = rounding(spec)[0] or RN
    if t == "f32":
        return f32_op(op, rnd, flag(spec, "ftz"), flag(spec, "sat"))
    if t == "f32x2":
        return f32x2(f32_op(op, rnd, flag(spec, "ftz"), flag(spec, "sat")))
    if t == "f64":
        return f64_op(op, rnd)
    unsupported(spec, f"no floating-point {op} for .{t}")


@typed_semantic("add", kind="float")
def add(spec):
    return _arith("add", spec)


@typed_semantic("sub", kind="float")
def sub(spec):
    return _arith("sub", spec)


@typed_semantic("mul", kind="float")
def mul(spec):
    return _arith("mul", spec)


@semantic("fma")
def fma(spec):
    return _arith("fma", spec)


@typed_semantic("mad", kind="float")
def mad(spec):
    """mad.rnd.{f32,f64} is fma.rnd; mad{.ftz}{.sat}.f32 without a rounding modifier (sm_1x
    code) runs as fma.rn.ftz{.sat}.f32 on sm_20 and later (ISA 9.7.3.7)."""
    if rounding(spec)[0] is None and inst_type(spec) == "f32":
        return f32_op("fma", RN, True, flag(spec, "sat"))
    return _arith("fma", spec)


# --------------------------------------------------------------------------- div rcp sqrt rsqrt


@typed_semantic("div", kind="float")
def div(spec):
    t, mode = inst_type(spec), word(spec, ("approx", "full"), "mode")
    rnd, ftz = rounding(spec)[0], flag(spec, "ftz")
    if t == "f32":
        if mode == "full":
            return approx.div_full_f32(ftz)
        if mode == "approx" or rnd is None:          # legacy div.f32 = div.approx.ftz.f32
            return approx.div_approx_f32(ftz or rnd is None and mode is None)
        return f32_op("div", rnd, ftz)
    if t == "f64":
        return f64_op("div", rnd or RN)
    unsupported(spec, f"no floating-point div for .{t}")


def _f32_approx_or_ieee(op: str, spec):
    """rcp / sqrt .f32: .approx{.ftz} or .rnd{.ftz}; legacy (no modifier) = .approx.ftz."""
    rnd, ftz = rounding(spec)[0], flag(spec, "ftz")
    if rnd is None:
        legacy = word(spec, ("approx",), "mode") is None
        return approx.f32_unary(op, ftz or legacy)
    return f32_op(op, rnd, ftz)


@semantic("rcp")
def rcp(spec):
    t = inst_type(spec)
    if t == "f32":
        return _f32_approx_or_ieee("rcp", spec)
    if t == "f64":
        if word(spec, ("approx",), "mode"):
            return approx.f64_hi_unary("rcp")      # rcp.approx.ftz.f64
        return f64_op("rcp", rounding(spec)[0] or RN)
    unsupported(spec, f"no rcp for .{t}")


@semantic("sqrt")
def sqrt(spec):
    t = inst_type(spec)
    if t == "f32":
        return _f32_approx_or_ieee("sqrt", spec)
    if t == "f64":
        return f64_op("sqrt", rounding(spec)[0] or RN)
    unsupported(spec, f"no sqrt for .{t}")


@semantic("rsqrt")
def rsqrt(spec):
    t = inst_type(spec)
    if t == "f32":
        legacy = word(spec, ("approx",), "mode") is None
        return approx.f32_unary("rsqrt", flag(spec, "ftz") or legacy)
    if t == "f64":
        if flag(spec, "ftz"):
            return approx.f64_hi_unary("rsqrt")    # rsqrt.approx.ftz.f64
        return approx.rsqrt_approx_f64()
    unsupported(spec, f"no rsqrt for .{t}")


def _transcendental(name: str):
    def factory(spec):
        t = inst_type(spec)
        if t in HALF:
            if name not in ("ex2", "tanh"):
                unsupported(spec, f"{name} has no half-precision form")
            return half.unary_approx(name, spec, t)
        if t != "f32":
            unsupported(spec, f"{name} is .f32 only")
        if name == "tanh":                        # no .ftz: subnormals pass through
            return approx.f32_unary(name, False)
        legacy = word(spec, ("approx",), "mode") is None
        return approx.f32_unary(name, flag(spec, "ftz") or legacy, turns=flag(spec, "2pi"))
    factory.__name__ = name
    return factory


for _name in ("sin", "cos", "lg2", "ex2", "tanh"):
    semantic(_name)(_transcendental(_name))


# --------------------------------------------------------------------------- abs neg copysign


# abs / neg, as measured on sm_90 (H200 goldens): the sign bit is cleared / flipped (after .ftz);
# an f32 NaN becomes the canonical NaN 0x7FFFFFFF, an f64 NaN comes back quieted with its sign
# and payload (neither cleared nor flipped) - numerics.nans' f64 rule with the single operand.


def _sign_op32(flip: bool, ftz: bool):
    def lanes(a):
        a = np.asarray(a, dtype=np.float32)
        b = bits32(flush32(a) if ftz else a)
        out = b ^ S32 if flip else b & M32
        nan = np.isnan(a)
        return f32(nan_result(nan, out, F32) if nan.any() else out)
    return lanes


def _sign_op64(flip: bool):
    def lanes(a):
        b = bits64(a)
        out = b ^ S64 if flip else b & M64
        nan = np.isnan(np.asarray(a, dtype=np.float64))
        return f64(f64_nan(nan, out, (b,), (0,)) if nan.any() else out)
    return lanes


def _sign_semantic(op: str, flip: bool):
    """abs (flip=False) and neg (flip=True): sign-bit operations, with the hardware's NaN rules."""

    def factory(spec):
        t = inst_type(spec)
        if t in HALF:
            return half.sign_op(op, spec, t)
        if t == "f32":
            return _sign_op32(flip, flag(spec, "ftz"))
        if t == "f64":
            return _sign_op64(flip)
        unsupported(spec, f"no floating-point {op} for .{t}")

    return factory


abs_ = typed_semantic("abs", kind="float")(_sign_semantic("abs", False))
neg = typed_semantic("neg", kind="float")(_sign_semantic("neg", True))


@semantic("copysign")
def copysign(spec):
    """d = b with the sign bit of a (a bit operation: b's NaN payload is kept)."""
    t = inst_type(spec)
    if t == "f32":
        return lambda a, b: f32((bits32(b) & M32) | (bits32(a) & S32))
    if t == "f64":
        return lambda a, b: f64((bits64(b) & M64) | (bits64(a) & S64))
    unsupported(spec, f"no copysign for .{t}")


# --------------------------------------------------------------------------- min max


def _minmax_factory(is_max: bool, spec):
    t = inst_type(spec)
    if t in HALF:
        return half.minmax(is_max, spec, t)
    nan, xs, ab = flag(spec, "NaN"), flag(spec, "xorsign"), flag(spec, "abs")
    if t == "f32":
        ftz = flag(spec, "ftz")

        def lanes32(*ops):
            ops = [np.asarray(o, dtype=np.float32) for o in ops]
            if ftz:
                ops = [flush32(o) for o in ops]
            with np.errstate(invalid="ignore"):
                return f32(_minmax(is_max, nan, F32, ops, [bits32(o) for o in ops], xs, ab))
        return lanes32
    if t == "f64":
        def both_nan(mask, bits, ops):   # sm_90: b's NaN, quieted (numerics.nans' f64 rule)
            return f64_nan(mask, bits, ops, (1, 0))

        def lanes64(*ops):
            ops = [np.asarray(o, dtype=np.float64) for o in ops]
            with np.errstate(invalid="ignore"):
                return f64(_minmax(is_max, nan, F64, ops, [bits64(o) for o in ops], xs, ab, both_nan))
        return lanes64
    unsupported(spec, f"no floating-point {'max' if is_max else 'min'} for .{t}")


@typed_semantic("min", kind="float")
def min_(spec):
    return _minmax_factory(False, spec)


@typed_semantic("max", kind="float")
def max_(spec):
    return _minmax_factory(True, spec)


# --------------------------------------------------------------------------- testp


_TINY = {"f32": np.float32(2.0 ** -126), "f64": np.float64(2.0 ** -1022)}


@semantic("testp")
def testp(spec):
    """testp.op: finite / infinite / number / notanumber / normal / subnormal. Zeros count as
    normal numbers (ISA 9.7.3.1)."""
    t = inst_type(spec)
    if t not in _TINY:
        unsupported(spec, f"no testp for .{t}")
    op = word(spec, ("finite", "infinite", "number", "notanumber", "normal", "subnormal"), "op")
    tiny = _TINY[t]
    dt = np.float32 if t == "f32" else np.float64

    def subnormal(x):
        return (x != 0) & (np.abs(x) < tiny)

    fns = {
        "finite": np.isfinite,
        "infinite": np.isinf,
        "number": lambda x: ~np.isnan(x),
        "notanumber": np.isnan,
        "normal": lambda x: np.isfinite(x) & ~subnormal(x),
        "subnormal": subnormal,
    }
    if op is None:
        unsupported(spec, "testp needs one of .finite .infinite .number .notanumber .normal .subnormal")
    fn = fns[op]

    def lanes(a):
        with np.errstate(invalid="ignore"):
            return np.asarray(fn(np.asarray(a, dtype=dt)), dtype=bool)
    return lanes


__all__ = ["f32_op", "f64_op", "fma32_rn", "fma64_rn"]
