"""Comparison and selection (setp set selp slct), integer, float and half forms, against scalar
references written from the manual's Semantics blocks."""
from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from intlogic_ref import check, rows_for, rows_strategy, spec, u, width

INT_TYPES = ("b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64")
INT_OPS = ("eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs")
FLOAT_OPS = ("eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan")
BOOL = {"and": lambda x, y: x and y, "or": lambda x, y: x or y, "xor": lambda x, y: x != y}
HALF_TYPES = ("f16", "bf16", "f16x2", "bf16x2")
FLT_MIN = 2.0**-126


# --------------------------------------------------------------------------- references

def int_cmp(op, t):
    w = width(t)

    def ref(a, b):
        if op in ("lo", "ls", "hi", "hs"):  # unsigned comparisons of the bits
            a, b = u(a, w), u(b, w)
            op2 = {"lo": "lt", "ls": "le", "hi": "gt", "hs": "ge"}[op]
        else:  # in the type's own signedness (.bN as unsigned)
            op2 = op
        return {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[op2]
    return ref


def half_value(bits, fmt, ftz=False):
    """The value of f16 / bf16 bits, computed from the format's fields."""
    exp_bits, man_bits = (5, 10) if fmt == "f16" else (8, 7)
    sign = -1.0 if bits >> (exp_bits + man_bits) else 1.0
    e, m = (bits >> man_bits) & ((1 << exp_bits) - 1), bits & ((1 << man_bits) - 1)
    bias = (1 << (exp_bits - 1)) - 1
    if e == (1 << exp_bits) - 1:
        return sign * math.inf if m == 0 else math.nan
    if e == 0:  # subnormal (or zero); .ftz flushes it to a zero of the same sign
        return sign * 0.0 if ftz else sign * m * 2.0 ** (1 - bias - man_bits)
    return sign * (m + (1 << man_bits)) * 2.0 ** (e - bias - man_bits)


def float_cmp(op, ftz=False):
    def flush(x):
        return math.copysign(0.0, x) if ftz and 0 < abs(x) < FLT_MIN else x

    def ref(a, b):
        a, b = flush(a), flush(b)
        nan = math.isnan(a) or math.isnan(b)
        if op == "num":
            return not nan
        if op == "nan":
            return nan
        if nan:  # ordered compares are false with a NaN, unordered ones true
            return op.endswith("u")
        base = op[:-1] if op.endswith("u") else op
        return {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[base]
    return ref


def compare_ref(op, t, ftz=False):
    """(a, b) -> list of t = a CmpOp b; two results for the x2 half types (lo, hi)."""
    if t in HALF_TYPES:
        fmt, f = t.removesuffix("x2"), float_cmp(op)
        value = functools.partial(half_value, fmt=fmt, ftz=ftz)
        if t.endswith("x2"):
            return lambda a, b: [f(value(a & 0xFFFF), value(b & 0xFFFF)), f(value(a >> 16), value(b >> 16))]
        return lambda a, b: [f(value(a), value(b))]
    f = float_cmp(op, ftz) if t in ("f32", "f64") else int_cmp(op, t)
    return lambda a, b: [f(a, b)]


def setp_ref(op, t, boolop=None, ftz=False):
    cmp = compare_ref(op, t, ftz)
    comb = BOOL.get(boolop)

    def ref(a, b, c=None):
        ts = cmp(a, b)
        if len(ts) == 2:  # x2: p from the low halves, q from the high halves
            return tuple(comb(x, c) if comb else x for x in ts)
        (x,) = ts
        return (comb(x, c), comb(not x, c)) if comb else (x, not x)  # p = BoolOp(t, c), q = BoolOp(!t, c)
    return ref


SET_TRUE = {"u32": 0xFFFFFFFF, "s32": -1, "f32": 1.0, "u16": 0xFFFF, "s16": -1, "f16": 0x3C00, "bf16": 0x3F80}
SET_TRUE_HALF = {"f16x2": 0x3C00, "bf16x2": 0x3F80, "u32": 0xFFFF, "s32": 0xFFFF}


def set_ref(op, dtype, stype, boolop=None, ftz=False):
    cmp, comb = compare_ref(op, stype, ftz), BOOL.get(boolop)

    def ref(a, b, c=None):
        ts = [comb(x, c) if comb else x for x in cmp(a, b)]
        if len(ts) == 2:
            d = sum((SET_TRUE_HALF[dtype] if x else 0) << 16 * i for i, x in enumerate(ts))
            return d - (1 << 32) if dtype == "s32" and d >> 31 else d
        return SET_TRUE[dtype] if ts[0] else (0.0 if dtype == "f32" else 0)
    return ref


# --------------------------------------------------------------------------- setp / set

@functools.lru_cache(maxsize=None)
def rows(*operands):
    return rows_for(list(operands), n_random=100, max_grid=400)


@pytest.mark.parametrize("t", INT_TYPES)
def test_setp_integer(t):
    for op in INT_OPS:
        check(spec("setp", t, cmp=op), [t, t], setp_ref(op, t), rows(t, t), ("pred", "pred"))


@pytest.mark.parametrize("t", ("s32", "u64", "b16"))
@pytest.mark.parametrize("boolop", tuple(BOOL))
def test_setp_integer_boolop(t, boolop):
    for op in INT_OPS:
        check(spec("setp", t, cmp=op, boolop=boolop), [t, t, "pred"], setp_ref(op, t, boolop),
              rows(t, t, "pred"), ("pred", "pred"))


@pytest.mark.parametrize("t,ftz", [("f32", False), ("f32", True), ("f64", False)])
@pytest.mark.parametrize("boolop", (None,) + tuple(BOOL))
def test_setp_float(t, ftz, boolop):
    extra = {"ftz": True} if ftz else {}
    ops = FLOAT_OPS if boolop is None else FLOAT_OPS[::3]
    for op in ops:
        operands = [t, t] + (["pred"] if boolop else [])
        sp = spec("setp", t, cmp=op, **extra, **({"boolop": boolop} if boolop else {}))
        check(sp, operands, setp_ref(op, t, boolop, ftz), rows(*operands), ("pred", "pred"))


@pytest.mark.parametrize("t", HALF_TYPES)
@pytest.mark.parametrize("ftz", (False, True))
def test_setp_half(t, ftz):
    if ftz and t.startswith("bf"):
        pytest.skip("no .ftz for bf16")
    extra = {"ftz": True} if ftz else {}
    for op in FLOAT_OPS:
        check(spec("setp", t, cmp=op, **extra), [t, t], setp_ref(op, t, ftz=ftz), rows(t, t), ("pred", "pred"))
    for boolop in BOOL:
        check(spec("setp", t, cmp="lt", boolop=boolop, **extra), [t, t, "pred"],
              setp_ref("lt", t, boolop, ftz), rows(t, t, "pred"), ("pred", "pred"))


@pytest.mark.parametrize("stype", INT_TYPES + ("f32", "f64"))
@pytest.mark.parametrize("dtype", ("u32", "s32", "f32"))
def test_set(dtype, stype):
    types = {"dtype": dtype, "stype": stype}
    ops = FLOAT_OPS if stype in ("f32", "f64") else INT_OPS
    for op in ops[::3] if dtype != "u32" else ops:
        check(spec("set", types=types, cmp=op), [stype, stype], set_ref(op, dtype, stype), rows(stype, stype), dtype)
    for boolop in BOOL:
        check(spec("set", types=types, cmp=ops[2], boolop=boolop), [stype, stype, "pred"],
              set_ref(ops[2], dtype, stype, boolop), rows(stype, stype, "pred"), dtype)


@pytest.mark.parametrize("stype,dtypes", [
    ("f16", ("u16", "s16", "u32", "s32", "f16")), ("bf16", ("u16", "s16", "u32", "s32", "bf16")),
    ("f16x2", ("f16x2", "u32", "s32")), ("bf16x2", ("bf16x2", "u32", "s32"))])
def test_set_half(stype, dtypes):
    out = {"f16": "u16", "bf16": "u16", "f16x2": "u32", "bf16x2": "u32"}  # raw bits
    for dtype in dtypes:
        types = {"dtype": dtype, "stype": stype}
        for op in FLOAT_OPS[::2]:
            check(spec("set", types=types, cmp=op), [stype, stype], set_ref(op, dtype, stype),
                  rows(stype, stype), out.get(dtype, dtype))
        check(spec("set", types=types, cmp="ge", boolop="xor"), [stype, stype, "pred"],
              set_ref("ge", dtype, stype, "xor"), rows(stype, stype, "pred"), out.get(dtype, dtype))


SETP_HYPO = [("s32", "lt"), ("u16", "hs"), ("b64", "ls"), ("f32", "neu"), ("f64", "ge"), ("f32", "nan")]


@pytest.mark.parametrize("t,op", SETP_HYPO)
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_setp_hypothesis(t, op, data):
    check(spec("setp", t, cmp=op), [t, t], setp_ref(op, t), data.draw(rows_strategy([t, t])), ("pred", "pred"))


# --------------------------------------------------------------------------- selp / slct

SEL_TYPES = INT_TYPES + ("f32", "f64")


@pytest.mark.parametrize("t", SEL_TYPES)
def test_selp(t):
    check(spec("selp", t), [t, t, "pred"], lambda a, b, c: a if c else b, rows(t, t, "pred"), t)


@pytest.mark.parametrize("t", ("b16", "s32", "u64", "f32", "f64"))
@pytest.mark.parametrize("ctype,ftz", [("s32", False), ("f32", False), ("f32", True)])
def test_slct(t, ctype, ftz):
    def ref(a, b, c):
        if ftz and 0 < abs(c) < FLT_MIN:
            c = math.copysign(0.0, c)
        return a if c >= 0 else b  # -0.0 >= 0 holds; NaN >= 0 does not
    extra = {"ftz": True} if ftz else {}
    check(spec("slct", types={"dtype": t, "ctype": ctype}, **extra), [t, t, ctype], ref, rows(t, t, ctype), t)


def lane(sp):
    from ptxvm.semantics import lane_function
    return lane_function(sp)


def test_selection_copies_bits_exactly():
    """selp / slct move the chosen bits unchanged: signalling-NaN payloads and -0.0 survive."""
    bits = np.array([0x7F800001, 0xFFBFFFFF, 0x80000000, 0x7FC00123], np.uint32)
    a = bits.view(np.float32)
    b = np.zeros(4, np.float32)
    d = lane(spec("selp", "f32"))(a, b, np.ones(4, bool))
    assert d.view(np.uint32).tolist() == bits.tolist()
    d = lane(spec("slct", types={"dtype": "f32", "ctype": "f32"}))(a, b, np.float32(-0.0))
    assert d.view(np.uint32).tolist() == bits.tolist()
    d64 = lane(spec("selp", "f64"))(np.array([0x7FF0000000000001], np.uint64).view(np.float64), np.float64(0), np.True_)
    assert d64.view(np.uint64).tolist() == [0x7FF0000000000001]


def test_slct_corner_cases():
    f = lane(spec("slct", types={"dtype": "u32", "ctype": "f32"}))
    c = np.array([-0.0, 0.0, np.nan, -np.nan, -1e-45, np.inf, -np.inf], np.float32)
    assert f(np.uint32(1), np.uint32(2), c).tolist() == [1, 1, 2, 2, 2, 1, 2]
    g = lane(spec("slct", types={"dtype": "u32", "ctype": "f32"}, ftz=True))
    assert g(np.uint32(1), np.uint32(2), c).tolist() == [1, 1, 2, 2, 1, 1, 2]  # -denormal -> -0.0


def test_setp_sets_both_predicates_without_boolop():
    p, q = lane(spec("setp", "s32", cmp="lt"))(np.array([1, 2], np.int32), np.int32(2))
    assert p.tolist() == [True, False] and q.tolist() == [False, True]
