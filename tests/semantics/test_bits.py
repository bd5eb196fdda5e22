"""Bit manipulation (popc clz bfind fns brev bfe bfi szext bmsk) and dp4a / dp2a against scalar
references that follow the manual's Semantics pseudocode loop for loop."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from intlogic_ref import Case, bit, run_grid, run_rows, rows_strategy, spec, u, width, wrap, wrap_t

NOT_FOUND = 0xFFFFFFFF
# pos / len operands: every value around the widths, the 0..255 range ends, and values whose
# low byte is small but which are large (the manual masks them with 0xff)
POSITIONS = ("u32", list(range(0, 70)) + [127, 128, 254, 255, 256, 257, 0x120, 0xFFFFFFFF, 0x80000001])
SHIFTS32 = ("u32", list(range(0, 40)) + [63, 64, 65, 255, 256, 0x80000000, 0xFFFFFFFF])


def popc_ref(a):
    d = 0
    while a != 0:
        if a & 1:
            d += 1
        a >>= 1
    return d


def clz_ref(t):
    w = width(t)

    def ref(a):
        d, mask = 0, 1 << (w - 1)
        while d < w and (a & mask) == 0:
            d += 1
            a = u(a << 1, w)
        return d
    return ref


def bfind_ref(t, shiftamt):
    msb = width(t) - 1

    def ref(a):
        a = u(a, msb + 1)
        if t[0] == "s" and a & (1 << msb):  # negate negative signed inputs
            a = u(~a, msb + 1)
        d = NOT_FOUND
        for i in range(msb, -1, -1):
            if a & (1 << i):
                d = i
                break
        if shiftamt and d != NOT_FOUND:
            d = msb - d
        return d
    return ref


def brev_ref(t):
    msb = width(t) - 1
    return lambda a: sum(bit(a, msb - i) << i for i in range(msb + 1))


def fns_ref(mask, base, offset):
    if offset == -2**31:  # the H200 gives 0 here (|INT_MIN| overflows); see bits.py
        return 0
    d = NOT_FOUND
    if offset == 0:
        if 0 <= base < 32 and bit(mask, base) == 1:
            d = base
    else:
        pos, count, inc = base, abs(offset) - 1, 1 if offset > 0 else -1
        while 0 <= pos < 32:
            if bit(mask, pos) == 1:
                if count == 0:
                    d = pos
                    break
                count -= 1
            pos += inc
    return d


def field(pos, length, msb):
    """The manual: pos = b & 0xff, len = c & 0xff. The H200 masks so for 32-bit operands only; the
    64-bit forms take the whole u32 values (hardware finding, see bits.py)."""
    return (pos & 0xFF, length & 0xFF) if msb == 31 else (pos, length)


def bfe_ref(t):
    msb = width(t) - 1

    def ref(a, b, c):
        a = u(a, msb + 1)
        pos, length = field(b, c, msb)
        sbit = 0 if t[0] == "u" or length == 0 else bit(a, min(pos + length - 1, msb))
        d = 0
        for i in range(msb + 1):
            d |= (bit(a, pos + i) if i < length and pos + i <= msb else sbit) << i
        return wrap_t(d, t)
    return ref


def bfi_ref(t):
    msb = width(t) - 1

    def ref(a, b, c, d):
        pos, length = field(c, d, msb)
        f = b
        i = 0
        while i < length and pos + i <= msb:
            f = (f & ~(1 << (pos + i))) | (bit(a, i) << (pos + i))
            i += 1
        return f
    return ref


def szext_ref(t, mode):
    def ref(a, b):
        a = u(a, 32)
        b1 = b & 0x1F
        too_large = b >= 32 and mode == "clamp"
        mask = 0 if too_large else u(~0 << b1, 32)
        sign_pos = (b1 - 1) & 0x1F
        sign_bit = False if (b1 == 0 or too_large or t != "s32") else bit(a, sign_pos)
        return wrap_t((a & ~mask) | (mask if sign_bit else 0), t)
    return ref


def bmsk_ref(mode):
    def ref(a, b):
        a1 = a & 0x1F
        mask0 = u(~0 << a1, 32)
        b1 = b & 0x1F
        s = a1 + b1
        mask1 = u(~0 << s, 32)
        sum_overflow = s >= 32
        pos_overflow = width_overflow = False
        if mode == "clamp":
            if a >= 32:
                pos_overflow, mask0 = True, 0
            if b >= 32:
                width_overflow = True
        if sum_overflow or pos_overflow or width_overflow:
            mask1 = 0
        elif b1 == 0:
            mask1 = u(~0, 32)
        return mask0 & u(~mask1, 32)
    return ref


def extract(x, bits, signed):
    """extractAndSignOrZeroExt: the 32 // bits elements of x, least significant first."""
    return [wrap(x >> i, bits, signed) for i in range(0, 32, bits)]


def dp4a_ref(at, bt):
    def ref(a, b, c):
        d = c
        for x, y in zip(extract(a, 8, at == "s32"), extract(b, 8, bt == "s32")):
            d += x * y
        return wrap(d, 32, not (at == bt == "u32"))
    return ref


def dp2a_ref(at, bt, mode):
    def ref(a, b, c):
        d, va, vb = c, extract(a, 16, at == "s32"), extract(b, 8, bt == "s32")
        sel = 0 if mode == "lo" else 2
        for i in range(2):
            d += va[i] * vb[sel + i]
        return wrap(d, 32, not (at == bt == "u32"))
    return ref


CASES = []


def case(name, sp, operands, ref, out=None, n_random=150):
    CASES.append(Case(name, sp, operands, ref, out, n_random))


for t in ("b32", "b64"):
    case(f"popc.{t}", spec("popc", t), [t], popc_ref, "u32")
    case(f"clz.{t}", spec("clz", t), [t], clz_ref(t), "u32")
    case(f"brev.{t}", spec("brev", t), [t], brev_ref(t), t)
    case(f"bfi.{t}", spec("bfi", t), [t, t, POSITIONS, POSITIONS], bfi_ref(t), t, 400)
for t in ("u32", "u64", "s32", "s64"):
    case(f"bfind.{t}", spec("bfind", t), [t], bfind_ref(t, False), "u32")
    case(f"bfind.shiftamt.{t}", spec("bfind", t, shiftamt=True), [t], bfind_ref(t, True), "u32")
    case(f"bfe.{t}", spec("bfe", t), [t, POSITIONS, POSITIONS], bfe_ref(t), t, 400)
for t in ("u32", "s32"):
    for mode in ("clamp", "wrap"):
        case(f"szext.{mode}.{t}", spec("szext", t, mode=mode), [t, SHIFTS32], szext_ref(t, mode), t)
for mode in ("clamp", "wrap"):
    case(f"bmsk.{mode}.b32", spec("bmsk", "b32", mode=mode), [SHIFTS32, SHIFTS32], bmsk_ref(mode), "b32")
for bt in ("b32", "u32", "s32"):
    case(f"fns.b32 base .{bt}", spec("fns", "b32"),
         ["b32", (bt, list(range(0, 32)) + ([32, 33, 0xFFFFFFFF] if bt != "s32" else [32, -1, -5])),
          ("s32", list(range(-34, 35)) + [-2**31, 2**31 - 1, 1000, -1000])],
         fns_ref, "b32", 400)
for at in ("u32", "s32"):
    for bt in ("u32", "s32"):
        ct = "u32" if at == bt == "u32" else "s32"
        types = {"atype": at, "btype": bt}
        case(f"dp4a.{at}.{bt}", spec("dp4a", types=types), [at, bt, ct], dp4a_ref(at, bt), ct)
        for mode in ("lo", "hi"):
            case(f"dp2a.{mode}.{at}.{bt}", spec("dp2a", types=types, mode=mode), [at, bt, ct],
                 dp2a_ref(at, bt, mode), ct)


@pytest.mark.parametrize("c", CASES, ids=repr)
def test_edges_and_random(c):
    run_grid(c)


@pytest.mark.parametrize("c", CASES[::3], ids=repr)
@settings(max_examples=5, deadline=None)
@given(data=st.data())
def test_hypothesis(c, data):
    run_rows(c, data.draw(rows_strategy(c.operands)))


def lane(opcode, t, *args, **values):
    from ptxvm.semantics import lane_function
    return lane_function(spec(opcode, t, **values))(*args)


def test_manual_examples():
    m = np.uint32(0xAAAAAAAA)
    assert lane("fns", "b32", m, np.uint32(3), np.int32(1)) == 3
    assert lane("fns", "b32", m, np.uint32(3), np.int32(-1)) == 3
    assert lane("fns", "b32", m, np.uint32(2), np.int32(1)) == 3
    assert lane("fns", "b32", m, np.uint32(2), np.int32(-1)) == 1
    assert lane("bmsk", "b32", np.uint32(1), np.uint32(2), mode="wrap") == 6
    assert lane("szext", "u32", np.uint32(0xFFFFFFFF), np.uint32(0), mode="wrap") == 0


def test_exact_near_powers_of_two():
    """clz / bfind must be exact where a float log2 would round (2^53 + 1 and above)."""
    x = np.array([2**53 + 1, 2**63 - 1, 2**63, 2**64 - 1, 1], np.uint64)
    assert lane("clz", "b64", x).tolist() == [10, 1, 0, 0, 63]
    assert lane("bfind", "u64", x).tolist() == [53, 62, 63, 63, 0]
