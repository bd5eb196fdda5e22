"""Comparison and selection (PTX ISA 9.7.5, and the half forms of 9.7.4): setp set selp slct.

Predicates are NumPy bool arrays. With a .BoolOp the last operand is the predicate c, which the
engine passes already negated when the source writes {!c}.
- setp returns (p, q): p = BoolOp(t, c), q = BoolOp(!t, c) (without a BoolOp: p = t, q = !t).
  For .f16x2/.bf16x2 p is the lower half's result and q the upper half's, each combined with c.
  The scalar .f16/.bf16 forms have no q (ptxas: "Predicate output not allowed"): the engine
  takes p and drops the second result.
- set returns the destination bits: 0xFFFFFFFF / 0 for .u32/.s32, 1.0f / 0.0f for .f32, and for
  the half forms 0xFFFF / 0 (.u16/.s16), 1.0 in f16 (0x3C00) or bf16 (0x3F80), per half for x2.
Floating compares follow IEEE: eq lt le gt ge and ne are false when either operand is NaN, the
u-suffixed forms true; NumPy's != is true for NaN, so ne masks NaN out. Half operands arrive as
raw bits and are widened exactly to float32 (ptxvm.numerics.formats) before comparing.
"""
from __future__ import annotations

import numpy as np

from ...numerics.formats import BF16, F16, flush_subnormal, to_float32
from ..registry import semantic
from ._ints import choice, flag, join_halves, unsigned

CMP_OPS = ("eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs",
           "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan")
BOOL_OPS = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}
_ORDER = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
          "gt": np.greater, "ge": np.greater_equal}
_UNSIGNED = {"lo": "lt", "ls": "le", "hi": "gt", "hs": "ge"}
HALF = {"f16": F16, "bf16": BF16, "f16x2": F16, "bf16x2": BF16}
FLT_MIN = np.float32(2.0**-126)


def int_compare(op):
    """lo ls hi hs compare the unsigned bits; eq..ge compare in the operand dtype's signedness.
    (ptxas allows only eq/ne on .bN and refuses lo/ls/hi/hs on .sN, so those never arrive.)"""
    if op in _UNSIGNED:
        f = _ORDER[_UNSIGNED[op]]
        return lambda a, b: f(unsigned(a), unsigned(b))
    return _ORDER[op]


def float_compare(op):
    if op == "num":
        return lambda a, b: ~(np.isnan(a) | np.isnan(b))
    if op == "nan":
        return lambda a, b: np.isnan(a) | np.isnan(b)
    if op == "ne":  # ordered: false when either is NaN (NumPy's != says true)
        return lambda a, b: np.not_equal(a, b) & ~(np.isnan(a) | np.isnan(b))
    if op.endswith("u"):  # unordered: true when either is NaN
        f = _ORDER[op[:-1]]
        return lambda a, b: f(a, b) | np.isnan(a) | np.isnan(b)
    return _ORDER[op]  # eq lt le gt ge are false for NaN in IEEE and NumPy alike


def flush_f32(x):
    """.ftz: a subnormal f32 input is replaced by a zero of the same sign."""
    return np.where(np.abs(x) < FLT_MIN, np.copysign(np.float32(0), x), x)


def decoder(t, ftz):
    """bits -> tuple of comparable values: one for scalar types, (lo, hi) for x2 halves."""
    if t in HALF:
        fmt = HALF[t]
        def widen(h):  # exact: every f16 / bf16 value is a float32
            return to_float32(flush_subnormal(h, fmt) if ftz else h, fmt)

        if t.endswith("x2"):
            return lambda x: (widen(unsigned(x).astype(np.uint16)), widen(unsigned(x) >> np.uint32(16)))
        return lambda x: (widen(x),)
    if t == "f32" and ftz:
        return lambda x: (flush_f32(x),)
    return lambda x: (x,)


def comparison(spec, t):
    """(a, b) -> tuple of bool arrays t = a CmpOp b (two for x2 types)."""
    op = choice(spec, CMP_OPS, "cmp", "cmpop", "CmpOp")
    f = int_compare(op) if t[0] in "usb" and t not in HALF else float_compare(op)
    dec = decoder(t, flag(spec, "ftz"))
    return lambda a, b: tuple(f(x, y) for x, y in zip(dec(a), dec(b)))


def _boolop(spec):
    op = choice(spec, tuple(BOOL_OPS), "boolop", "bool", "BoolOp")
    return BOOL_OPS[op] if op else None


@semantic("setp")
def setp(spec):
    cmp, combine, paired = comparison(spec, spec.type), _boolop(spec), spec.type.endswith("x2")
    if paired:  # p from the low halves, q from the high halves
        if combine:
            return lambda a, b, c: tuple(combine(t, c) for t in cmp(a, b))
        return cmp
    if combine:
        def setp_bool(a, b, c):
            (t,) = cmp(a, b)
            return combine(t, c), combine(~t, c)
        return setp_bool

    def setp_plain(a, b):
        (t,) = cmp(a, b)
        return t, ~t

    return setp_plain


def _two_types(spec, first, second):
    """The destination and source types of `set.dtype.stype` / `slct.dtype.ctype`."""
    ts = list(spec.types.values())
    return spec.types.get(first, ts[0]), spec.types.get(second, ts[-1])


# What `set` writes for true, per destination type (false is always 0).
_TRUE = {"u32": np.uint32(0xFFFFFFFF), "s32": np.int32(-1), "f32": np.float32(1.0),
         "u16": np.uint16(0xFFFF), "s16": np.int16(-1),
         "f16": np.uint16(0x3C00), "bf16": np.uint16(0x3F80)}
_TRUE_HALF = {"f16x2": 0x3C00, "bf16x2": 0x3F80, "u32": 0xFFFF, "s32": 0xFFFF}


@semantic("set")
def set_(spec):
    dtype, stype = _two_types(spec, "dtype", "stype")
    cmp, combine = comparison(spec, stype), _boolop(spec)

    def result(a, b, *c):
        ts = cmp(a, b)
        return tuple(combine(t, c[0]) for t in ts) if combine else ts

    if stype.endswith("x2"):  # each half of d gets its own result
        one = np.uint16(_TRUE_HALF[dtype])
        out = np.int32 if dtype == "s32" else np.uint32

        def set_x2(a, b, *c):
            lo, hi = (np.where(r, one, np.uint16(0)) for r in result(a, b, *c))
            return join_halves(lo, hi).astype(out)

        return set_x2
    true = _TRUE[dtype]
    zero = true.dtype.type(0)
    return lambda a, b, *c: np.where(result(a, b, *c)[0], true, zero)


@semantic("selp")
def selp(spec):
    return lambda a, b, c: np.where(c, a, b)  # copies the chosen bits, NaN payloads included


@semantic("slct")
def slct(spec):
    _, ctype = _two_types(spec, "dtype", "ctype")
    ftz = ctype == "f32" and flag(spec, "ftz")

    def lanes(a, b, c):
        """d = (c >= 0) ? a : b. For f32, -0.0 >= 0 holds (IEEE), and a NaN c selects b (as on
        an H200); with .ftz a negative subnormal c counts as -0.0 and selects a."""
        if ftz:
            c = flush_f32(c)
        return np.where(c >= 0, a, b)

    return lanes
