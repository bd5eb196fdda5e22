"""Video instructions (ISA 9.7.17) against a slow per-lane reference in Python integers.

The reference follows the manual's Semantics blocks (partSelectSignExtend, optSaturate,
optSecondaryOp, optMerge; the SIMD extractAndSignExt / mask loops; vmad's 128-bit sum) with the
departures measured on the H200 (docs/hardware-notes.md, "Video instructions"), each marked
MEASURED. The conformance family `video` holds the GPU's own answers.
"""
import itertools

import numpy as np
import pytest

from ptxvm.isa import match as isa_match
from ptxvm.semantics.families import video  # noqa: F401  (registers the factories)
from ptxvm.semantics.registry import Spec, lane_function

EDGES = [0, 1, 2, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x10000, 0x7FFFFFFF, 0x80000000,
         0x80000001, 0xFFFFFFFE, 0xFFFFFFFF, 0x01020304, 0xFFFEFDFC, 0x807F01FF]
SUB = {"b0": (0, 8), "b1": (8, 8), "b2": (16, 8), "b3": (24, 8), "h0": (0, 16), "h1": (16, 16), None: (0, 32)}
RANGE = {(8, True): (-128, 127), (8, False): (0, 255), (16, True): (-32768, 32767), (16, False): (0, 65535),
         (32, True): (-(1 << 31), (1 << 31) - 1), (32, False): (0, (1 << 32) - 1)}


def inputs(n_random=300, k=3, seed=7):
    rng = np.random.default_rng(seed)
    cross = [np.array(v, dtype=np.uint64) for v in zip(*itertools.product(EDGES[::2], repeat=k))]
    rand = [rng.integers(0, 1 << 32, n_random, dtype=np.uint64) for _ in range(k)]
    # small shift counts for the shifts
    return [np.concatenate([x, y]).astype(np.uint32) for x, y in zip(cross, rand)]


def spec_for(spelling, **sels):
    op, *mods = spelling.split(".")
    m = isa_match(op, tuple(mods))
    types = {k: t.name for k, t in m.types.items()}
    values = dict(m.values)
    values.update({k: v for k, v in sels.items() if v})
    return Spec(op, values, types, tuple(mods))


def run(spelling, args, **sels):
    spec = spec_for(spelling, **sels)
    signed = {"u32": np.uint32, "s32": np.int32}
    ts = [spec.types.get("atype", "u32"), spec.types.get("btype", "u32"), spec.types.get("dtype", "u32")]
    conv = [a.astype(np.uint32).view(signed[t]) for a, t in zip(args, ts)]
    out = lane_function(spec)(*conv)
    return [int(x) & 0xFFFFFFFF for x in np.asarray(out).astype(np.int64)]


# ------------------------------------------------------------------ the reference


def part(x, sel, signed):
    sh, bits = SUB[sel]
    e = (x >> sh) & ((1 << bits) - 1)
    return e - (1 << bits) if signed and e >> (bits - 1) else e


def s32(x):
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >> 31 else x


def clamp(v, bits, signed):
    lo, hi = RANGE[(bits, signed)]
    return min(max(v, lo), hi)


def wrap34(v):
    v &= (1 << 34) - 1
    return v - (1 << 34) if v >> 33 else v


def ref_scalar(op, dt, at, bt, sat, op2, mode, dsel, asel, bsel, a, b, c):
    sd = dt == "s32"
    shift = op in ("vshl", "vshr")
    ta = part(a, asel, at == "s32")
    tb = part(b, bsel, bt == "s32" and not shift)
    exact = None
    if shift:
        tb = tb & 0x1F if mode == "wrap" else min(tb, 32)
        if op == "vshl":
            tmp = wrap34(ta << tb)  # MEASURED: the left shift's .sat sees a 34-bit intermediate
            exact = ((ta << tb) + (1 << 63)) % (1 << 64) - (1 << 63)  # MEASURED: .min/.max its 64-bit wrap
        else:
            tmp = ta >> tb
    elif op == "vset":
        tmp = int({"eq": ta == tb, "ne": ta != tb, "lt": ta < tb, "le": ta <= tb, "gt": ta > tb,
                   "ge": ta >= tb}[mode])
    else:
        tmp = {"vadd": ta + tb, "vsub": ta - tb, "vabsdiff": abs(ta - tb), "vmin": min(ta, tb),
               "vmax": max(ta, tb)}[op]
    if sat and dsel and c is not None:
        sh, bits = SUB[dsel]
        if dsel == "h1":
            return c & 0xFFFF  # MEASURED: .sat with d.h1 merges 0
        if op == "vshl":
            v = clamp(tmp, 32, sd)  # MEASURED: saturated to 32 bits, low bits merged
        elif op == "vshr":
            v = clamp(tmp, bits, sd)
        else:
            v = RANGE[(bits, sd)][1] if tmp < 0 else min(tmp, RANGE[(bits, sd)][1])  # MEASURED
        m = ((1 << bits) - 1) << sh
        return ((v << sh) & m) | (c & ~m & 0xFFFFFFFF)
    if sat:
        if shift:
            tmp = clamp(tmp, 32, sd)
        elif sd:
            tmp = clamp(tmp, 32, True)
        else:
            tmp = max(tmp, 0)  # MEASURED: no upper clamp for .u32
    if op2 and c is not None:
        sc = (at == "s32") if op == "vset" else sd  # MEASURED: vset reads c by a's type
        cc = s32(c) if sc else c
        if op2 == "add":
            return (tmp + cc) & 0xFFFFFFFF
        if op in ("vadd", "vsub") or (shift and sat):  # MEASURED: the 32-bit result, sign-extended
            key = s32(tmp) if sc else (tmp & 0xFFFFFFFF) + (((tmp >> 31) & 1) << 32)
        else:
            e = exact if exact is not None else tmp
            key = e if sc else (1 << 33 if e < 0 else e)
        take = key < cc if op2 == "min" else key > cc
        return (tmp if take else cc) & 0xFFFFFFFF
    if dsel and c is not None:
        sh, bits = SUB[dsel]
        m = ((1 << bits) - 1) << sh
        return ((tmp << sh) & m) | (c & ~m & 0xFFFFFFFF)
    return tmp & 0xFFFFFFFF


def ref_vmad(at, bt, po, sat, scale, asel, bsel, a, b, c):
    sa, sb = at == "s32", bt == "s32"
    # MEASURED: whole words are signed whatever the type; c is signed
    ta = part(a, asel, sa if asel else True)
    tb = part(b, bsel, sb if bsel else True)
    t = ta * tb + s32(c) + po
    signed = sa or sb
    sh = {"shr7": 7, "shr15": 15}.get(scale, 0)
    if sh and not signed:
        r = (t & ((1 << 64) - 1)) >> sh  # the manual's (tmp >> 7) & 0xffffffffffffffff, unsigned
    else:
        r = t >> sh
    if sat:
        r = clamp(r, 32, signed)
    return r & 0xFFFFFFFF


def ref_simd(op, n, dt, at, bt, sat, add, mask, asel, bsel, cmp, a, b, c):
    bits = 32 // n
    pool = (b << 32) | a

    def elems(sel, signed):
        out = []
        for i in range(n):  # the last digit picks element 0
            e = (pool >> (int(sel[1:][n - 1 - i]) * bits)) & ((1 << bits) - 1)
            out.append(e - (1 << bits) if signed and e >> (bits - 1) else e)
        return out

    va = elems(asel or ("h10" if n == 2 else "b3210"), at == "s32")
    vb = elems(bsel or ("h32" if n == 2 else "b7654"), bt == "s32")
    m = [int(d) for d in mask[1:]] if mask else list(range(n))
    t = []
    for x, y in zip(va, vb):
        if op == "vset":
            v = int({"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}[cmp])
        else:
            v = {"vadd": x + y, "vsub": x - y, "vabsdiff": abs(x - y), "vmin": min(x, y), "vmax": max(x, y),
                 "vavrg": (x + y + 1) >> 1 if x + y >= 0 else (x + y) >> 1}[op]
            if sat:
                v = clamp(v, bits, dt == "s32")
        t.append(v)
    if add:
        return (c + sum(t[i] for i in range(n) if i in m)) & 0xFFFFFFFF
    d = 0
    for i in range(n):
        v = t[i] if i in m else (c >> (i * bits))
        d |= (v & ((1 << bits) - 1)) << (i * bits)
    return d


# ------------------------------------------------------------------ tests

TYPES = [("u32", "u32", "u32"), ("s32", "s32", "s32"), ("s32", "u32", "s32"), ("u32", "s32", "u32")]
SELS = [(None, None, None), (None, "b0", "b3"), (None, "h1", "b2"), ("b1", None, "h0"), ("b3", "b2", "b1"),
        ("h0", "h1", "h1"), ("h1", "b0", None)]


@pytest.mark.parametrize("op", ["vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr"])
@pytest.mark.parametrize("types", TYPES)
def test_scalar(op, types):
    dt, at, bt = types
    shift = op in ("vshl", "vshr")
    if shift:
        bt = "u32"
    a, b, c = inputs()
    if shift:
        b = np.concatenate([b[: b.size // 2] % 40, b[b.size // 2:]]).astype(np.uint32)
    modes = ("clamp", "wrap") if shift else ("",)
    for mode, sat, (dsel, asel, bsel) in itertools.product(modes, (False, True), SELS):
        m = f".{mode}" if mode else ""
        s = ".sat" if sat else ""
        for op2 in ((None,) if dsel else (None, "add", "min", "max")):
            spelling = f"{op}.{dt}.{at}.{bt}{s}{m}" + (f".{op2}" if op2 else "")
            with_c = bool(op2 or dsel)
            got = run(spelling, [a, b, c] if with_c else [a, b], dsel=dsel, asel=asel, bsel=bsel)
            for i in range(a.size):
                want = ref_scalar(op, dt, at, bt, sat, op2, mode, dsel, asel, bsel, int(a[i]), int(b[i]),
                                  int(c[i]) if with_c else None)
                assert got[i] == want, (spelling, dsel, asel, bsel, hex(a[i]), hex(b[i]), hex(c[i]))


@pytest.mark.parametrize("at,bt", [("u32", "u32"), ("s32", "s32"), ("u32", "s32"), ("s32", "u32")])
def test_vset(at, bt):
    a, b, c = inputs()
    for cmp in ("eq", "ne", "lt", "le", "gt", "ge"):
        for op2 in (None, "add", "min", "max"):
            spelling = f"vset.{at}.{bt}.{cmp}" + (f".{op2}" if op2 else "")
            got = run(spelling, [a, b, c] if op2 else [a, b], asel="b1", bsel="h0")
            for i in range(a.size):
                want = ref_scalar("vset", "u32", at, bt, False, op2, cmp, None, "b1", "h0", int(a[i]), int(b[i]),
                                  int(c[i]) if op2 else None)
                assert got[i] == want, (spelling, hex(a[i]), hex(b[i]), hex(c[i]))
    got = run(f"vset.{at}.{bt}.ge", [a, b, c], dsel="b2")
    assert got == [ref_scalar("vset", "u32", at, bt, False, None, "ge", "b2", None, None, int(x), int(y), int(z))
                   for x, y, z in zip(a, b, c)]


@pytest.mark.parametrize("types", TYPES)
def test_vmad(types):
    dt, at, bt = types
    a, b, c = inputs()
    for po, sat, scale, (asel, bsel) in itertools.product((0, 1), (False, True), (None, "shr7", "shr15"),
                                                          [(None, None), ("b0", "b3"), ("h1", "b2"), ("h0", None)]):
        spelling = f"vmad.{dt}.{at}.{bt}" + (".po" if po else "") + (".sat" if sat else "") + (f".{scale}" if scale else "")
        got = run(spelling, [a, b, c], asel=asel, bsel=bsel)
        for i in range(a.size):
            want = ref_vmad(at, bt, po, sat, scale, asel, bsel, int(a[i]), int(b[i]), int(c[i]))
            assert got[i] == want, (spelling, asel, bsel, hex(a[i]), hex(b[i]), hex(c[i]))


SIMD_SELS = {2: [(None, None, None), ("h0", "h01", "h23"), ("h1", "h33", "h02"), ("h10", "h21", "h30")],
             4: [(None, None, None), ("b20", "b0123", "b4567"), ("b31", "b7531", "b6420"), ("b3", "b1155", "b0246")]}


@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize("op", ["vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax", "vset"])
def test_simd(n, op):
    a, b, c = inputs(200)
    types = [("u32", "u32", "u32"), ("s32", "s32", "s32"), ("u32", "s32", "u32")]
    cmps = ("eq", "lt", "ge") if op == "vset" else (None,)
    for (dt, at, bt), (mask, asel, bsel), mod, cmp in itertools.product(types, SIMD_SELS[n], ("", ".sat", ".add"),
                                                                      cmps):
        if op == "vset":
            if mod == ".sat":
                continue
            spelling = f"vset{n}.{at}.{bt}.{cmp}{mod}"
        else:
            spelling = f"{op}{n}.{dt}.{at}.{bt}{mod}"
        got = run(spelling, [a, b, c], mask=mask, asel=asel, bsel=bsel)
        for i in range(a.size):
            want = ref_simd(op, n, dt, at, bt, mod == ".sat", mod == ".add", mask, asel, bsel, cmp, int(a[i]),
                            int(b[i]), int(c[i]))
            assert got[i] == want, (spelling, mask, asel, bsel, hex(a[i]), hex(b[i]), hex(c[i]))


def test_measured_examples():
    """A few lanes straight from the H200 goldens (tests/goldens/conformance/video.npz)."""
    one = lambda sp, *args, **sels: run(sp, [np.array([x], np.uint32) for x in args], **sels)[0]  # noqa: E731
    assert one("vadd.u32.u32.u32.sat", 1, 0xFFFFFFFF) == 0            # no upper clamp for .u32
    assert one("vsub.u32.u32.u32.sat", 0, 1) == 0
    assert one("vadd.u32.u32.u32.min", 0, 0xFFFFFFFE, 0xFFFFFFFF) == 0xFFFFFFFF
    assert one("vadd.s32.s32.s32.sat", 2, 0xFFFFFFFF, 0x80000000, dsel="b1", asel="b2", bsel="b1") == 0x80007F00
    assert one("vadd.u32.u32.u32.sat", 0x131D8AC5, 0x7FFFFFFE, 0xB5B67D03, dsel="h1", asel="h0", bsel="b3") == 0x7D03
    assert one("vshl.u32.u32.u32.sat.clamp", 0x9ABCDEF0, 2) == 0
    assert one("vshl.u32.u32.u32.sat.clamp", 0x3F768CDC, 14) == 0xFFFFFFFF
    assert one("vmad.u32.u32.u32.shr7", 0, 0, 0xFFFFFFFF) == 0xFFFFFFFF
    assert one("vmad.s32.u32.s32.sat", 0xFFFFFFFF, 1, 1) == 0
    assert one("vabsdiff4.u32.u32.u32", 0xFFFEFDFC, 0x01020304, 0) == 0xFEFCFAF8
