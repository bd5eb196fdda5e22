"""Integer arithmetic (9.7.1) and extended precision (9.7.2) against scalar references written
from the manual's Semantics blocks: every type each instruction allows, edge values and random."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from intlogic_ref import Case, bit, clamp_s32, run_grid, run_rows, rows_strategy, spec, u, width, wrap, wrap_t

SIZED = ("u16", "u32", "u64", "s16", "s32", "s64")
CC_TYPES = ("u32", "s32", "u64", "s64")
PACKED = ("u16x2", "s16x2")
CARRY = ("u32", [0, 1])


def halves(x, signed):
    return [wrap(x >> s, 16, signed) for s in (0, 16)]


def packed_ref(f, t):
    """The manual's loop over iA[i] = a[16i+15:16i], iB[i] likewise."""
    signed = t == "s16x2"

    def ref(a, b):
        d = [f(x, y) for x, y in zip(halves(a, signed), halves(b, signed))]
        return u(d[0], 16) | u(d[1], 16) << 16
    return ref


# --------------------------------------------------------------------------- references

def add_ref(t):
    return lambda a, b: wrap_t(a + b, t)


def sub_ref(t):
    return lambda a, b: wrap_t(a - b, t)


def mul_ref(t, mode):
    n = width(t)

    def ref(a, b):
        p = a * b  # exact
        if mode == "wide":
            return wrap(p, 2 * n, t[0] == "s")
        if mode == "hi":
            return wrap(p >> n, n, t[0] == "s")  # t<2n-1..n>
        return wrap_t(p, t)  # t<n-1..0>
    return ref


def mad_ref(t, mode, sat=False):
    n, mul = width(t), mul_ref(t, mode)

    def ref(a, b, c):
        if sat:
            return clamp_s32(mul(a, b) + c)
        return wrap(mul(a, b) + c, 2 * n if mode == "wide" else n, t[0] == "s")
    return ref


def sext24(x, signed):
    x = u(x, 24)
    return x - (1 << 24) if signed and x >> 23 else x


def mul24_ref(t, mode):
    s = t == "s32"

    def ref(a, b):
        p = sext24(a, s) * sext24(b, s)
        return wrap(p >> 16, 32, s) if mode == "hi" else wrap(p, 32, s)  # t<47..16> / t<31..0>
    return ref


def mad24_ref(t, mode, sat=False):
    m = mul24_ref(t, mode)
    return lambda a, b, c: clamp_s32(m(a, b) + c) if sat else wrap_t(m(a, b) + c, t)


def sad_ref(t):
    return lambda a, b, c: wrap_t(c + (b - a if a < b else a - b), t)


def div_ref(t):
    def ref(a, b):
        if b == 0:  # undefined in the manual; all ones on an H200 (see integer.py)
            return wrap_t(-1, t)
        q = abs(a) // abs(b)
        return wrap_t(q if (a < 0) == (b < 0) else -q, t)  # truncation toward zero
    return ref


def rem_ref(t):
    def ref(a, b):
        if b == 0:  # undefined in the manual; all ones on an H200 (see integer.py)
            return wrap_t(-1, t)
        r = abs(a) % abs(b)
        return wrap_t(-r if a < 0 else r, t)  # sign of the dividend
    return ref


def minmax_ref(t, op, relu=False):
    f = (lambda a, b: a if a < b else b) if op == "min" else (lambda a, b: a if a > b else b)
    g = (lambda a, b: max(f(a, b), 0)) if relu else f
    return packed_ref(g, t) if t in PACKED else g


def add_cc_ref(t, cin=False):
    n = width(t)

    def ref(a, b, cf=0):
        s = u(a, n) + u(b, n) + cf  # d = a + b + CC.CF
        return wrap_t(s, t), s >> n
    return ref


def sub_cc_ref(t):
    """sub.cc: a + ~b + 1; subc: a + ~b + CC.CF, the carry out to CC.CF. (The manual writes
    d = a - (b + CC.CF) with a borrow in CF; the H200 keeps the carry, i.e. NOT borrow.)"""
    n = width(t)

    def ref(a, b, cf=None):
        s = u(a, n) + u(~b, n) + (1 if cf is None else cf)
        return wrap_t(s, t), s >> n
    return ref


def mad_cc_ref(t, mode):
    n, mul = width(t), mul_ref(t, mode)

    def ref(a, b, c, cf=0):
        s = u(mul(a, b), n) + u(c, n) + cf  # t<..> + c + CC.CF, carry out of the addition
        return wrap_t(s, t), s >> n
    return ref


def drop_carry(ref):
    return lambda *x: ref(*x)[0]


# --------------------------------------------------------------------------- cases

CASES = []


def case(name, sp, operands, ref, out=None, n_random=150):
    CASES.append(Case(name, sp, operands, ref, out, n_random))


for t in SIZED:
    case(f"add.{t}", spec("add", t), [t, t], add_ref(t), t)
    case(f"sub.{t}", spec("sub", t), [t, t], sub_ref(t), t)
    case(f"sad.{t}", spec("sad", t), [t, t, t], sad_ref(t), t, 100)
    case(f"div.{t}", spec("div", t), [t, t], div_ref(t), t)
    case(f"rem.{t}", spec("rem", t), [t, t], rem_ref(t), t)
    for op in ("min", "max"):
        case(f"{op}.{t}", spec(op, t), [t, t], minmax_ref(t, op), t)
    for mode in ("lo", "hi") + (("wide",) if width(t) < 64 else ()):
        wide = {"u16": "u32", "s16": "s32", "u32": "u64", "s32": "s64"}.get(t) if mode == "wide" else t
        case(f"mul.{mode}.{t}", spec("mul", t, mode=mode), [t, t], mul_ref(t, mode), wide)
        case(f"mad.{mode}.{t}", spec("mad", t, mode=mode), [t, t, wide], mad_ref(t, mode), wide, 100)
for t in PACKED:
    case(f"add.{t}", spec("add", t), [t, t], packed_ref(lambda a, b: a + b, t), "b32")
    case(f"sub.{t}", spec("sub", t), [t, t], packed_ref(lambda a, b: a - b, t), "b32")
    for op in ("min", "max"):
        case(f"{op}.{t}", spec(op, t), [t, t], minmax_ref(t, op), "b32")
for t in ("s32", "s16x2"):
    for op in ("min", "max"):
        case(f"{op}.relu.{t}", spec(op, t, relu=True), [t, t], minmax_ref(t, op, True), t)
for t in ("s16", "s32", "s64"):
    case(f"abs.{t}", spec("abs", t), [t], lambda a, t=t: wrap_t(abs(a), t), t)
    case(f"neg.{t}", spec("neg", t), [t], lambda a, t=t: wrap_t(-a, t), t)
case("add.sat.s32", spec("add", "s32", sat=True), ["s32", "s32"], lambda a, b: clamp_s32(a + b), "s32")
case("sub.sat.s32", spec("sub", "s32", sat=True), ["s32", "s32"], lambda a, b: clamp_s32(a - b), "s32")
case("mad.hi.sat.s32", spec("mad", "s32", mode="hi", sat=True), ["s32"] * 3, mad_ref("s32", "hi", True), "s32", 100)
for t in ("u32", "s32"):
    for mode in ("lo", "hi"):
        case(f"mul24.{mode}.{t}", spec("mul24", t, mode=mode), [t, t], mul24_ref(t, mode), t)
        case(f"mad24.{mode}.{t}", spec("mad24", t, mode=mode), [t] * 3, mad24_ref(t, mode), t, 100)
case("mad24.hi.sat.s32", spec("mad24", "s32", mode="hi", sat=True), ["s32"] * 3, mad24_ref("s32", "hi", True), "s32", 100)

# extended precision: (d, carry) out, carry in last
for t in CC_TYPES:
    case(f"add.cc.{t}", spec("add", t, cc=True), [t, t], add_cc_ref(t), (t, "u32"))
    case(f"sub.cc.{t}", spec("sub", t, cc=True), [t, t], sub_cc_ref(t), (t, "u32"))
    case(f"addc.cc.{t}", spec("addc", t, cc=True), [t, t, CARRY], add_cc_ref(t), (t, "u32"))
    case(f"addc.{t}", spec("addc", t), [t, t, CARRY], drop_carry(add_cc_ref(t)), t)
    case(f"subc.cc.{t}", spec("subc", t, cc=True), [t, t, CARRY], sub_cc_ref(t), (t, "u32"))
    case(f"subc.{t}", spec("subc", t), [t, t, CARRY], drop_carry(sub_cc_ref(t)), t)
    for mode in ("lo", "hi"):
        case(f"mad.{mode}.cc.{t}", spec("mad", t, mode=mode, cc=True), [t] * 3, mad_cc_ref(t, mode), (t, "u32"), 100)
        case(f"madc.{mode}.cc.{t}", spec("madc", t, mode=mode, cc=True), [t] * 3 + [CARRY],
             mad_cc_ref(t, mode), (t, "u32"), 100)
        case(f"madc.{mode}.{t}", spec("madc", t, mode=mode), [t] * 3 + [CARRY], drop_carry(mad_cc_ref(t, mode)), t, 100)


@pytest.mark.parametrize("c", CASES, ids=repr)
def test_edges_and_random(c):
    run_grid(c)


@pytest.mark.parametrize("c", CASES[::5], ids=repr)
@settings(max_examples=5, deadline=None)
@given(data=st.data())
def test_hypothesis(c, data):
    run_rows(c, data.draw(rows_strategy(c.operands)))


# --------------------------------------------------------------------------- spot checks

def lane(opcode, t, *args, **values):
    from ptxvm.semantics import lane_function
    return lane_function(spec(opcode, t, **values))(*args)


def test_documented_corner_values():
    i32 = np.int32
    assert lane("div", "s32", np.array([-2**31], i32), i32(-1))[0] == -2**31  # INT_MIN / -1
    assert lane("rem", "s32", np.array([-2**31], i32), i32(-1))[0] == 0
    assert lane("div", "s32", np.array([-7], i32), i32(2))[0] == -3  # truncation, not floor
    assert lane("rem", "s32", np.array([-7], i32), i32(2))[0] == -1  # sign of the dividend
    assert lane("div", "u32", np.array([5], np.uint32), np.uint32(0))[0] == 0xFFFFFFFF
    assert lane("rem", "s16", np.array([5], np.int16), np.int16(0))[0] == -1  # as on an H200
    assert lane("abs", "s32", np.array([-2**31], i32))[0] == -2**31
    assert lane("neg", "s64", np.array([-2**63], np.int64))[0] == -2**63


def test_scalar_immediates_do_not_warn():
    """Immediates are NumPy scalars; arithmetic on them must wrap silently, like the arrays."""
    with np.errstate(all="raise"):
        assert lane("add", "s32", np.int32(2**31 - 1), np.int32(1)) == -2**31
        assert lane("mul", "u64", np.uint64(2**63), np.uint64(2), mode="lo") == 0
        assert lane("mul", "s64", np.int64(-2**63), np.int64(-1), mode="hi") == 0
        assert lane("neg", "s32", np.int32(-2**31)) == -2**31
        assert lane("sad", "u32", np.uint32(0), np.uint32(0xFFFFFFFF), np.uint32(1)) == 0
        assert lane("div", "s32", np.int32(1), np.int32(0)) == -1


def test_carry_chain_128_bit_addition():
    """add.cc / addc.cc / addc.u32 chained as in the manual's example, against Python ints."""
    from ptxvm.semantics import lane_function
    rng = np.random.default_rng(7)
    x = [int(v) for v in rng.integers(0, 2**63, 64)] + [2**128 - 1, 2**96 - 1, 0]
    y = [int(v) * 3 for v in rng.integers(0, 2**63, 64)] + [1, 1, 0]
    words = lambda v, i: np.array([(n >> 32 * i) & 0xFFFFFFFF for n in v], np.uint32)  # noqa: E731
    d0, cf = lane_function(spec("add", "u32", cc=True))(words(x, 0), words(y, 0))
    d1, cf = lane_function(spec("addc", "u32", cc=True))(words(x, 1), words(y, 1), cf)
    d2, cf = lane_function(spec("addc", "u32", cc=True))(words(x, 2), words(y, 2), cf)
    d3 = lane_function(spec("addc", "u32"))(words(x, 3), words(y, 3), cf)
    got = [int(a) | int(b) << 32 | int(c) << 64 | int(d) << 96 for a, b, c, d in zip(d0, d1, d2, d3)]
    assert got == [(a + b) % 2**128 for a, b in zip(x, y)]


def test_modifier_spellings():
    """Slot names are the ISA table's; the modifiers as written work as well."""
    from ptxvm.semantics import Spec, lane_function
    a, b = np.array([0x12345678], np.uint32), np.array([0x9ABCDEF0], np.uint32)
    hi = (0x12345678 * 0x9ABCDEF0) >> 32
    assert lane_function(Spec("mul", {"mode": "hi"}, {"type": "u32"}))(a, b)[0] == hi
    assert lane_function(Spec("mul", {}, {"type": "u32"}, (".hi", ".u32")))(a, b)[0] == hi
    assert lane_function(Spec("mul", {"hi": True}, {"type": "u32"}))(a, b)[0] == hi


def test_bit_helper_sanity():
    assert bit(0b100, 2) == 1 and u(-1, 8) == 255


def test_borrow_chain_128_bit_subtraction():
    """sub.cc / subc.cc / subc.u32 chained: the carry convention still subtracts correctly."""
    from ptxvm.semantics import lane_function
    rng = np.random.default_rng(11)
    x = [int(v) for v in rng.integers(0, 2**63, 64)] + [0, 2**96, 5]
    y = [int(v) * 5 for v in rng.integers(0, 2**63, 64)] + [1, 1, 5]
    words = lambda v, i: np.array([(n >> 32 * i) & 0xFFFFFFFF for n in v], np.uint32)  # noqa: E731
    d0, cf = lane_function(spec("sub", "u32", cc=True))(words(x, 0), words(y, 0))
    d1, cf = lane_function(spec("subc", "u32", cc=True))(words(x, 1), words(y, 1), cf)
    d2, cf = lane_function(spec("subc", "u32", cc=True))(words(x, 2), words(y, 2), cf)
    d3 = lane_function(spec("subc", "u32"))(words(x, 3), words(y, 3), cf)
    got = [int(a) | int(b) << 32 | int(c) << 64 | int(d) << 96 for a, b, c, d in zip(d0, d1, d2, d3)]
    assert got == [(a - b) % 2**128 for a, b in zip(x, y)]
