"""Logic and shift (and or xor not cnot lop3 shl shr shf), prmt and mov against scalar references
written from the manual's Semantics blocks."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from intlogic_ref import Case, bit, run_grid, run_rows, rows_strategy, spec, u, width, wrap, wrap_t

BITS = ("b16", "b32", "b64")


def counts(t):
    w = width(t)
    return ("u32", list(range(0, w + 2)) + [w + 7, 2 * w, 255, 256, 0x80000000, 0xFFFFFFFF])


def shl_ref(t):
    w = width(t)
    return lambda a, b: u(a << min(b, w), w)  # counts past the width clamp to the width


def shr_ref(t):
    w = width(t)
    # Python's >> on ints is arithmetic on the signed value and logical on the unsigned one
    return lambda a, b: wrap_t(a >> min(b, w), t)


def shf_ref(direction, mode):
    def ref(a, b, c):
        n = min(c, 32) if mode == "clamp" else c & 0x1F
        pair = (b << 32) | a  # shift the concatenation [b, a]
        if direction == "l":
            return u((pair << n) >> 32, 32)  # the 32 msbs
        return u(pair >> n, 32)  # the 32 lsbs
    return ref


def lop3_ref(lut, w):
    def ref(a, b, c):
        d = 0
        for i in range(w):  # bit i of d is lut[4*a_i + 2*b_i + c_i]
            d |= bit(lut, 4 * bit(a, i) + 2 * bit(b, i) + bit(c, i)) << i
        return d
    return ref


# prmt: the manual's table of source bytes for d.b3 d.b2 d.b1 d.b0, per mode and c[1:0]
PRMT_TABLE = {
    "f4e": ["3210", "4321", "5432", "6543"],
    "b4e": ["5670", "6701", "7012", "0123"],
    "rc8": ["0000", "1111", "2222", "3333"],
    "ecl": ["3210", "3211", "3222", "3333"],
    "ecr": ["0000", "1110", "2210", "3210"],
    "rc16": ["1010", "3232", "1010", "3232"],
}


def prmt_ref(mode):
    def read_byte(ctl, tmp64, i):
        if mode is None:
            byte = (tmp64 >> 8 * (ctl & 7)) & 0xFF
            return (0xFF if byte & 0x80 else 0) if ctl & 8 else byte  # msb: replicate the sign
        row = PRMT_TABLE[mode][ctl]
        return (tmp64 >> 8 * int(row[3 - i])) & 0xFF

    def ref(a, b, c):
        tmp64 = (b << 32) | a
        ctl = [(c >> 4 * i) & 0xF for i in range(4)] if mode is None else [c & 3] * 4
        return sum(read_byte(ctl[i], tmp64, i) << 8 * i for i in range(4))
    return ref


CASES = []


def case(name, sp, operands, ref, out=None, n_random=150):
    CASES.append(Case(name, sp, operands, ref, out, n_random))


for t in BITS + ("pred",):
    w = 1 if t == "pred" else width(t)
    m = (lambda x: x) if t == "pred" else (lambda x, w=w: u(x, w))
    case(f"and.{t}", spec("and", t), [t, t], lambda a, b, m=m: m(a & b), t)
    case(f"or.{t}", spec("or", t), [t, t], lambda a, b, m=m: m(a | b), t)
    case(f"xor.{t}", spec("xor", t), [t, t], lambda a, b, m=m: m(a ^ b), t)
    case(f"not.{t}", spec("not", t), [t], (lambda a: not a) if t == "pred" else (lambda a, m=m: m(~a)), t)
for t in BITS:
    case(f"cnot.{t}", spec("cnot", t), [t], lambda a: 1 if a == 0 else 0, t)
    case(f"shl.{t}", spec("shl", t), [t, counts(t)], shl_ref(t), t)
for t in BITS + ("u16", "u32", "u64", "s16", "s32", "s64"):
    case(f"shr.{t}", spec("shr", t), [t, counts(t)], shr_ref(t), t)
for direction in ("l", "r"):
    for mode in ("clamp", "wrap"):
        case(f"shf.{direction}.{mode}.b32", spec("shf", "b32", dir=direction, mode=mode),
             ["b32", "b32", counts("b64")], shf_ref(direction, mode), "b32")
for mode in (None, "f4e", "b4e", "rc8", "ecl", "ecr", "rc16"):
    selectors = ("b32", list(range(16)) + [0x3210, 0x7654, 0x8888, 0xFEDC, 0xBA98, 0x7531, 0x12345678, 0xFFFFFFFF])
    sp = spec("prmt", "b32", **({"mode": mode} if mode else {}))
    case(f"prmt{'.' + mode if mode else ''}.b32", sp, ["b32", "b32", selectors], prmt_ref(mode), "b32", 400)


@pytest.mark.parametrize("c", CASES, ids=repr)
def test_edges_and_random(c):
    run_grid(c)


@pytest.mark.parametrize("c", CASES[::3], ids=repr)
@settings(max_examples=5, deadline=None)
@given(data=st.data())
def test_hypothesis(c, data):
    run_rows(c, data.draw(rows_strategy(c.operands)))


def lane(sp):
    from ptxvm.semantics import lane_function
    return lane_function(sp)


@pytest.mark.parametrize("t", ("b32", "b64"))
def test_lop3_every_truth_table(t):
    rng = np.random.default_rng(3)
    w = width(t)
    vals = [0, 2**w - 1, 0xF0F0F0F0 & (2**w - 1), 0xCCCCCCCC, 0xAAAAAAAA]
    rows = [(a, b, c) for a in vals[:3] for b in vals[1:4] for c in vals[2:]]
    rows += [tuple(int(x) for x in rng.integers(0, 2**63, 3, dtype=np.int64)) for _ in range(8)]
    dt = np.uint32 if w == 32 else np.uint64
    a, b, c = (np.array([u(r[i], w) for r in rows], dt) for i in range(3))
    f = lane(spec("lop3", t))
    for lut in range(256):
        got = f(a, b, c, np.uint32(lut))
        ref = lop3_ref(lut, w)
        assert got.dtype == dt
        assert got.tolist() == [ref(x, y, z) for x, y, z in zip(a.tolist(), b.tolist(), c.tolist())], lut
    # a per-lane table (an array operand) gives the same as the immediate
    luts = np.arange(len(a), dtype=np.uint32) % 256
    assert f(a, b, c, luts).tolist() == [lop3_ref(int(l), w)(x, y, z) for l, x, y, z in
                                         zip(luts, a.tolist(), b.tolist(), c.tolist())]


def test_lop3_manual_examples():
    ta, tb, tc = np.uint32(0xF0), np.uint32(0xCC), np.uint32(0xAA)
    f = lane(spec("lop3", "b32"))
    for lut in (0x80, 0xFE, 0x40, 0x1A, 0x00, 0xFF, 0x96):
        assert f(ta, tb, tc, np.uint32(lut)) & 0xFF == lut  # immLut = F(ta, tb, tc)


@pytest.mark.parametrize("boolop", ("and", "or"))
def test_lop3_boolop(boolop):
    """lop3.BoolOp d|p, a, b, c, immLut, q: p = (d != 0) BoolOp q."""
    rng = np.random.default_rng(5)
    a, b, c = (rng.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32) for _ in range(3))
    a[:8] = 0
    b[:8] = 0
    q = rng.integers(0, 2, 64).astype(bool)
    for lut in (0x3F, 0x80, 0x00, 0xFE):
        d, p = lane(spec("lop3", "b32", boolop=boolop))(a, b, c, np.uint32(lut), q)
        want_d = [lop3_ref(lut, 32)(x, y, z) for x, y, z in zip(a.tolist(), b.tolist(), c.tolist())]
        assert d.tolist() == want_d
        comb = (lambda x, y: x and y) if boolop == "and" else (lambda x, y: x or y)
        assert p.dtype == np.bool_ and p.tolist() == [comb(x != 0, y) for x, y in zip(want_d, q.tolist())]


def test_shift_immediates_and_narrow_types():
    """A b16 shift by a u32 count stays b16 (NumPy would promote to the wider type)."""
    f = lane(spec("shl", "b16"))
    assert f(np.array([1], np.uint16), np.uint32(15)).dtype == np.uint16
    assert lane(spec("shr", "s16"))(np.int16(-2**15), np.uint32(100)) == -1
    assert lane(spec("shr", "u64"))(np.uint64(2**63), np.uint32(63)) == 1


def test_mov_pack_unpack():
    from ptxvm.semantics.families.move import pack, unpack
    lo, hi = np.array([1, 0xFFFFFFFF], np.uint32), np.array([2, 0x80000000], np.uint32)
    wide = pack((lo, hi), 32)
    assert wide.dtype == np.uint64 and wide.tolist() == [0x200000001, 0x80000000FFFFFFFF]
    assert [p.tolist() for p in unpack(wide, 32, 2)] == [lo.tolist(), hi.tolist()]
    parts = unpack(np.uint64(0x0123456789ABCDEF), 16, 4)
    assert [int(p) for p in parts] == [0xCDEF, 0x89AB, 0x4567, 0x0123]
    assert int(pack(parts, 16)) == 0x0123456789ABCDEF
    assert int(pack((np.int16(-1), np.int16(1)), 16)) == 0x0001FFFF  # signed parts: their bits
    mov = lane(spec("mov", "b64"))
    assert mov(lo, hi).tolist() == wide.tolist()  # mov.b64 d, {lo, hi}
    x = np.array([1.5, -0.0], np.float32)
    y = lane(spec("mov", "f32"))(x)
    assert y is not x and y.dtype == np.float32 and y.view(np.uint32).tolist() == x.view(np.uint32).tolist()


def test_bit_helpers():
    assert bit(0b100, 2) == 1 and wrap(0xFF, 8, True) == -1 and wrap_t(2**16, "s16") == 0
