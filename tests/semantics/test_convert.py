"""Conversions (ISA 9.7.9.21-22): every legal cvt source/destination pair among the integer and
float types on edge values, with every rounding mode; the packed and narrow-float forms;
cvt.pack.sat. References: Python integers and Fractions written from the ISA text, ml_dtypes
for the narrow formats, and ptxvm.numerics (tested against an H100) for the NaN rules.
"""
from __future__ import annotations

import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from ptxvm.isa.match import MatchError, match
from ptxvm.isa.table import FORMS
from ptxvm.numerics import convert as nconv
from ptxvm.numerics.formats import BF16, E4M3, E5M2, F16, F32, F64
from ptxvm.numerics.intconvert import int_to_float
from ptxvm.numerics.nans import int_nan
from ptxvm.numerics.rounding import Rounding
from ptxvm.semantics import Spec, lane_function
from ptxvm.semantics.dtypes import numpy_dtype

INTS = ["u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64"]
FLOATS = ["f16", "bf16", "f32", "f64"]
FMT = {"f16": F16, "bf16": BF16, "f32": F32, "f64": F64}
FRND = {"rn": Rounding.RN, "rz": Rounding.RZ, "rm": Rounding.RM, "rp": Rounding.RP}
IRND = {"rni": Rounding.RN, "rzi": Rounding.RZ, "rmi": Rounding.RM, "rpi": Rounding.RP}


def spec(spelling: str) -> Spec:
    op, *mods = spelling.split(".")
    m = match(op, tuple(mods))
    return Spec(m.opcode, values=dict(m.values), types={k: t.name for k, t in m.types.items()},
                modifiers=tuple(m.modifiers))


def fn(spelling: str):
    """The lane function, or None when the ISA table has no such spelling."""
    try:
        s = spec(spelling)
    except MatchError:
        return None
    return lane_function(s)


def rng_of(name: str):
    return np.random.default_rng(sum(map(ord, name)))


def int_range(t):
    w = int(t[1:])
    return (-(1 << (w - 1)), (1 << (w - 1)) - 1) if t[0] == "s" else (0, (1 << w) - 1)


def int_edges(t):
    lo, hi = int_range(t)
    vals = {lo, lo + 1, hi, hi - 1, 0, 1, 2, 3, 127, 128, 255, 256, 32767, 32768, 65535, 65536,
            2**24 - 1, 2**24, 2**24 + 1, 2**31 - 1, 2**31, 2**32 - 1, 2**53 + 1, 2**62 + 2**40 + 1,
            2**63 - 1, 2**64 - 1}
    vals |= {-v for v in set(vals)}
    vals = [v for v in vals if lo <= v <= hi]
    rng = rng_of(t)
    w = int(t[1:])
    rand = [int(x) for x in rng.integers(0, 1 << min(w, 63), 200, dtype=np.uint64)]
    if t[0] == "s":
        rand = [x - (1 << (w - 1)) if x >= 1 << (w - 1) else x for x in rand] + [-x for x in rand[:50]]
    return sorted(set(vals) | {v for v in rand if lo <= v <= hi})


FLOAT_EDGES = [0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.5, 0.49999997, 1.0, -1.0, 127.5, 128.0,
               255.5, 256.0, -128.5, -129.0, 32767.5, 65535.5, 65536.0, -32768.5, 2.0**31 - 0.5,
               2.0**31, -2.0**31, -2.0**31 - 1.0, 2.0**32, 2.0**53, 2.0**63, -2.0**63, 2.0**64, -2.0**64,
               1e30, -1e30, 1e-30, math.inf, -math.inf, math.nan, 65504.0, 65520.0, 3.4e38, 1e-40, -1e-45,
               5.96e-8, 6.1e-5, 1e300, -1e300, 5e-324]


def float_bits(t, values):
    """Bits of `values` rounded (RN) into float type t, with extra random patterns."""
    v = np.array(values, dtype=np.float64)
    if t == "f64":
        b = v.view(np.uint64)
    elif t == "f32":
        with np.errstate(over="ignore"):
            b = v.astype(np.float32).view(np.uint32)
    elif t == "f16":
        with np.errstate(over="ignore"):
            b = v.astype(np.float16).view(np.uint16)
    else:
        with np.errstate(over="ignore"):
            b = v.astype(ml_dtypes.bfloat16).view(np.uint16)
    rng = rng_of(t)
    w = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}[t]
    rand = rng.integers(0, 1 << 62, 300, dtype=np.uint64) * np.uint64(4) + rng.integers(0, 4, 300).astype(np.uint64)
    rand = (rand >> np.uint64(64 - w)).astype(b.dtype)
    return np.concatenate([b, rand, b ^ b.dtype.type(1)])


def as_lanes(t, bits):
    if t == "f32":
        return bits.view(np.float32)
    if t == "f64":
        return bits.view(np.float64)
    return bits


def value_of(t, bits):
    if t == "f64":
        return float(np.uint64(bits).view(np.float64))
    if t == "f32":
        return float(np.uint32(bits).view(np.float32))
    if t == "f16":
        return float(np.uint16(bits).view(np.float16))
    return float((np.uint32(bits) << np.uint32(16)).view(np.float32))


def raw(x):
    x = np.asarray(x)
    unsigned = {4: np.uint32, 8: np.uint64, 2: np.uint16, 1: np.uint8}
    return x.view(unsigned[x.dtype.itemsize]) if x.dtype.kind == "f" else x


# ============================================================================ integer -> integer


@pytest.mark.parametrize("src", INTS)
def test_int_to_int(src):
    vals = int_edges(src)
    a = np.array(vals, dtype=object).astype(numpy_dtype(src))
    for dst in INTS:
        w, signed = int(dst[1:]), dst[0] == "s"
        lo, hi = int_range(dst)
        plain = fn(f"cvt.{dst}.{src}")
        got = plain(a)
        assert got.dtype == numpy_dtype(dst)
        for v, g in zip(vals, got.tolist()):
            t = v & ((1 << w) - 1)          # truncation / extension = the value modulo 2^w
            if signed and t >> (w - 1):
                t -= 1 << w
            assert g == t, (src, dst, v)
        sat = fn(f"cvt.sat.{dst}.{src}")
        if sat is None:
            continue
        assert sat(a).tolist() == [min(max(v, lo), hi) for v in vals], (src, dst)


# ============================================================================ integer -> float


def _round_frac(q: Fraction, fmt, mode) -> float:
    """Correct rounding of an exact rational into fmt (a numerics FloatFormat), as a float."""
    if q == 0:
        return 0.0
    neg, q = q < 0, abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if Fraction(2) ** e > q:
        e -= 1
    e = max(e, fmt.emin)
    quantum = Fraction(2) ** (e - fmt.man_bits)
    n, rem = divmod(q / quantum, 1)
    n = int(n)
    up = {"rn": rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n % 2 == 1), "rz": False,
          "rp": rem > 0 and not neg, "rm": rem > 0 and neg}[mode]
    v = (n + up) * quantum
    top = (2 - Fraction(1, 2 ** fmt.man_bits)) * Fraction(2) ** fmt.emax
    if v > top:
        to_inf = mode == "rn" or (mode == "rp" and not neg) or (mode == "rm" and neg)
        v = math.inf if to_inf else top
    return -float(v) if neg else float(v)


@pytest.mark.parametrize("src", INTS)
def test_int_to_float(src):
    vals = int_edges(src)
    a = np.array(vals, dtype=object).astype(numpy_dtype(src))
    for dst in FLOATS:
        for mode in FRND:
            f = fn(f"cvt.{mode}.{dst}.{src}")
            if f is None:
                continue
            got = f(a)
            assert got.dtype == numpy_dtype(dst)
            want = int_to_float(a, FMT[dst], FRND[mode])
            assert raw(got).tolist() == want.tolist(), (src, dst, mode)
            for v, g in list(zip(vals, raw(got).tolist()))[::5]:
                assert value_of(dst, g) == _round_frac(Fraction(v), FMT[dst], mode), (src, dst, mode, v)
        sat = fn(f"cvt.rn.sat.{dst}.{src}")
        if sat is not None:
            assert all(0.0 <= value_of(dst, g) <= 1.0 for g in raw(sat(a)).tolist())


# ============================================================================ float -> integer


def f2i_ref(x: float, mode: str, dst: str, src: str) -> int:
    if math.isnan(x):
        return int(int_nan(FMT[src], numpy_dtype(dst)))
    lo, hi = int_range(dst)
    if math.isinf(x):
        return hi if x > 0 else lo
    q = Fraction(x)
    r = {"rni": round(q), "rzi": math.trunc(q), "rmi": math.floor(q), "rpi": math.ceil(q)}[mode]
    return min(max(r, lo), hi)          # float -> integer always saturates


@pytest.mark.parametrize("src", FLOATS)
def test_float_to_int(src):
    bits = float_bits(src, FLOAT_EDGES)
    lanes = as_lanes(src, bits)
    vals = [value_of(src, b) for b in bits.tolist()]
    for dst in INTS:
        for mode in IRND:
            f = fn(f"cvt.{mode}.{dst}.{src}")
            if f is None:
                continue
            got = f(lanes)
            assert got.dtype == numpy_dtype(dst)
            for v, g in zip(vals, got.tolist()):
                assert g == f2i_ref(v, mode, dst, src), (src, dst, mode, v, g)
            if src == "f32":   # .ftz: subnormal inputs are zeros
                fz = fn(f"cvt.{mode}.ftz.{dst}.f32")(lanes)
                flushed = [0.0 if (v != 0 and abs(v) < 2.0**-126) else v for v in vals]
                assert fz.tolist() == [f2i_ref(v, mode, dst, src) for v in flushed]
        s = fn(f"cvt.rzi.sat.{dst}.{src}")
        if s is not None:   # .sat is redundant
            assert s(lanes).tolist() == fn(f"cvt.rzi.{dst}.{src}")(lanes).tolist()


def test_float_to_int_nan_patterns():
    """NaN -> 0, or 1 << (width - 1) from .f64 sources or into 64-bit destinations."""
    f32nan = np.array([np.nan], np.float32)
    f64nan = np.array([np.nan])
    assert fn("cvt.rzi.s32.f32")(f32nan).tolist() == [0]
    assert fn("cvt.rzi.u64.f32")(f32nan).view(np.uint64).tolist() == [1 << 63]
    assert fn("cvt.rzi.s32.f64")(f64nan).tolist() == [-(1 << 31)]
    assert fn("cvt.rni.u16.f64")(f64nan).tolist() == [1 << 15]


# ============================================================================ float -> float


def _narrowing(dst, src):
    if {dst, src} == {"f16", "bf16"}:
        return True
    return FLOATS.index(dst) != FLOATS.index(src) and {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}[dst] < \
        {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}[src]


@pytest.mark.parametrize("src", FLOATS)
def test_float_to_float(src):
    bits = float_bits(src, FLOAT_EDGES)
    lanes = as_lanes(src, bits)
    for dst in FLOATS:
        if dst == src:
            continue
        modes = list(FRND) if _narrowing(dst, src) else [""]
        for mode in modes:
            for mods in ("", ".ftz", ".sat", ".relu", ".satfinite", ".relu.satfinite"):
                f = fn(f"cvt{'.' + mode if mode else ''}{mods}.{dst}.{src}")
                if f is None:
                    continue
                kw = {k: k in mods.split(".") for k in ("ftz", "sat", "relu", "satfinite")}
                got = f(lanes)
                assert got.dtype == numpy_dtype(dst)
                if (src, dst) == ("f32", "f16"):
                    kw["ftz"] = False   # measured: .ftz leaves the f32 input of an f16 result alone
                want = nconv.cvt_float(bits, FMT[src], FMT[dst], FRND.get(mode, Rounding.RN), **kw)
                if (src, dst) == ("bf16", "f32") and kw["ftz"]:   # measured: canonical NaN
                    want = np.where(np.isnan(want.view(np.float32)), np.uint32(0x7FFFFFFF), want)
                assert raw(got).tolist() == want.tolist(), (src, dst, mode, mods)


def test_float_to_float_independent():
    """RN narrowing against NumPy / ml_dtypes' own casts, finite values only."""
    x = float_bits("f64", FLOAT_EDGES).view(np.float64)
    x = x[np.isfinite(x)]
    with np.errstate(over="ignore"):
        assert raw(fn("cvt.rn.f32.f64")(x)).tolist() == x.astype(np.float32).view(np.uint32).tolist()
        assert raw(fn("cvt.rn.f16.f64")(x)).tolist() == x.astype(np.float16).view(np.uint16).tolist()
    with np.errstate(over="ignore"):
        y = x.astype(np.float32)
    y = y[np.isfinite(y)]
    assert raw(fn("cvt.rn.bf16.f32")(y)).tolist() == y.astype(ml_dtypes.bfloat16).view(np.uint16).tolist()
    assert raw(fn("cvt.f64.f32")(y)).tolist() == y.astype(np.float64).view(np.uint64).tolist()


@pytest.mark.parametrize("t", FLOATS)
def test_round_to_integral(t):
    bits = float_bits(t, FLOAT_EDGES)
    lanes = as_lanes(t, bits)
    vals = [value_of(t, b) for b in bits.tolist()]
    ops = {"rni": lambda v: float(round(Fraction(v))), "rzi": math.trunc, "rmi": math.floor, "rpi": math.ceil}
    for mode, r in ops.items():
        got = fn(f"cvt.{mode}.{t}.{t}")(lanes)
        assert got.dtype == numpy_dtype(t)
        for v, g in zip(vals, raw(got).tolist()):
            gv = value_of(t, g)
            if math.isnan(v) or math.isinf(v):
                assert (math.isnan(gv) and math.isnan(v)) or gv == v
                continue
            want = float(r(v)) if v != 0 else v
            assert gv == want and math.copysign(1, gv) == math.copysign(1, v), (t, mode, v, gv)
    if t == "f32":
        sub = np.array([2.0**-130, -(2.0**-130)], np.float32)
        assert raw(fn("cvt.rpi.f32.f32")(sub)).tolist() == [0x3F800000, 0x80000000]
        assert raw(fn("cvt.rpi.ftz.f32.f32")(sub)).tolist() == [0, 0x80000000]


def test_ftz_sat_same_type():
    x = np.array([2.0**-130, -(2.0**-130), 1.5, -0.25, np.nan], np.float32)
    assert raw(fn("cvt.ftz.f32.f32")(x)).tolist()[:3] == [0, 0x80000000, 0x3FC00000]
    assert fn("cvt.sat.f32.f32")(x).tolist() == [2.0**-130, 0.0, 1.0, 0.0, 0.0]


# ============================================================================ packed and narrow


def test_f16x2_bf16x2_from_two_f32():
    """d = {cvt(a) in bits 31:16, cvt(b) in bits 15:0}."""
    a = np.array([1.0, -2.0, 65520.0, np.nan, -1.0], np.float32)
    b = np.array([0.5, 3.0, 1e-8, 1.0, -0.0], np.float32)
    got = fn("cvt.rn.f16x2.f32")(a, b)
    assert got.dtype == np.uint32
    with np.errstate(over="ignore"):
        hi = a.astype(np.float16).view(np.uint16).astype(np.uint32)
    lo = b.astype(np.float16).view(np.uint16).astype(np.uint32)
    want = (hi << np.uint32(16)) | lo
    assert got.tolist()[:3] == want.tolist()[:3]
    assert got.tolist()[3] >> 16 == 0x7FFF
    relu = fn("cvt.rn.relu.f16x2.f32")(a, b)
    assert relu.tolist()[4] == 0 and relu.tolist()[1] >> 16 == 0
    sf = fn("cvt.rn.satfinite.f16x2.f32")(a, b)
    assert sf.tolist()[2] >> 16 == 0x7BFF                     # 65520 -> max finite, not Inf
    rz = fn("cvt.rz.bf16x2.f32")(a, b)
    trunc = lambda x: (x.view(np.uint32) >> np.uint32(16))    # noqa: E731
    assert (rz >> np.uint32(16)).tolist()[:3] == trunc(a).tolist()[:3]
    assert (rz & np.uint32(0xFFFF)).tolist()[:3] == trunc(b).tolist()[:3]


def test_tf32():
    fmax = float(np.finfo(np.float32).max)
    x = np.array([1.0 + 2.0**-11, 1.0 + 3 * 2.0**-11, 1.0 + 2.0**-12, -3.0e38, fmax], np.float32)
    rna = fn("cvt.rna.tf32.f32")(x)
    assert rna.dtype == np.uint32
    assert all(v & 0x1FFF == 0 for v in rna.tolist()[:3])
    # 10 fraction bits: one tf32 ulp at 1.0 is 0x2000 in the f32 pattern
    assert rna.tolist()[:3] == [0x3F802000, 0x3F804000, 0x3F800000]   # ties away from zero
    assert fn("cvt.rn.tf32.f32")(x).tolist()[:3] == [0x3F800000, 0x3F804000, 0x3F800000]  # to even
    assert fn("cvt.rz.tf32.f32")(x).tolist()[:3] == [0x3F800000, 0x3F802000, 0x3F800000]
    assert rna.tolist()[4] == 0x7F800000                                # overflow: Inf
    sf = fn("cvt.rna.satfinite.tf32.f32")(x)
    assert sf.tolist()[4] == 0x7F7FE000                                 # max finite tf32


@pytest.mark.parametrize("t,mld", [("e4m3x2", ml_dtypes.float8_e4m3fn), ("e5m2x2", ml_dtypes.float8_e5m2)])
def test_fp8(t, mld):
    rng = np.random.default_rng(4)
    a = np.concatenate([rng.normal(0, 50, 400), [0.0, -0.0, 1e6, -1e6, np.inf]]).astype(np.float32)
    b = np.concatenate([rng.normal(0, 0.01, 400), [1.0, 2.0, 3.0, 4.0, 5.0]]).astype(np.float32)
    got = fn(f"cvt.rn.satfinite.{t}.f32")(a, b)
    assert got.dtype == np.uint16
    fmax = float(ml_dtypes.finfo(mld).max)
    ref = lambda x: np.clip(x, -fmax, fmax).astype(mld).view(np.uint8).astype(np.uint16)  # noqa: E731
    assert (got >> np.uint16(8)).tolist() == ref(a).tolist()          # a -> upper byte
    assert (got & np.uint16(0xFF)).tolist() == ref(b).tolist()
    relu = fn(f"cvt.rn.satfinite.relu.{t}.f32")(a, b)
    assert all((v >> 8) & 0x80 == 0 for v in relu.tolist())
    # f16x2 -> fp8x2 and back: upper lane to upper lane
    with np.errstate(over="ignore"):
        h = (a.astype(np.float16).view(np.uint16).astype(np.uint32) << np.uint32(16)) | \
            b.astype(np.float16).view(np.uint16)
    down = fn(f"cvt.rn.satfinite.{t}.f16x2")(h)
    assert down.dtype == np.uint16
    want = nconv.x2_to_x2(h, F16, E4M3 if t == "e4m3x2" else E5M2)
    assert down.tolist() == want.tolist()
    up = fn(f"cvt.rn.f16x2.{t}")(down)
    assert up.dtype == np.uint32
    up_ref = (down >> np.uint16(8)).astype(np.uint8).view(mld).astype(np.float16).view(np.uint16)
    assert (up >> np.uint32(16)).tolist() == up_ref.tolist()


# ============================================================================ cvt.pack.sat


@pytest.mark.parametrize("ct", ["u16", "s16", "u8", "s8", "u4", "s4", "u2", "s2"])
def test_pack_sat(ct):
    size = int(ct[1:])
    lo, hi = int_range(ct)
    rng = np.random.default_rng(size)
    a = np.concatenate([rng.integers(-(1 << 31), 1 << 31, 200), [lo - 1, hi + 1, lo, hi, 0]]).astype(np.int32)
    b = np.roll(a, 1)
    c = rng.integers(0, 1 << 32, len(a), dtype=np.uint64).astype(np.uint32)
    if size == 16:
        got = fn(f"cvt.pack.sat.{ct}.s32")(a, b)
    else:
        got = fn(f"cvt.pack.sat.{ct}.s32.b32")(a, b, c)
    mask = (1 << size) - 1
    for i in range(len(a)):
        ta, tb = (min(max(int(v), lo), hi) & mask for v in (a[i], b[i]))
        want = (ta << size) | tb
        if size < 16:
            want |= (int(c[i]) << (2 * size)) & 0xFFFFFFFF
        assert int(got[i]) == want


# ============================================================================ H200 goldens


def test_goldens_every_conversion():
    """Every recorded cvt and cvt.pack case (int <-> int, int <-> float, float <-> float in every
    mode with .ftz/.sat/.relu/.satfinite, f16x2/bf16x2/tf32/e4m3x2/e5m2x2) matches the H200."""
    from test_floating import replay_exact
    assert replay_exact("convert") > 400


def test_measured_ftz_rules():
    """Two .ftz rules the H200 shows (tests/goldens/conformance/convert.npz): cvt.{rm,rp}.ftz.f16.f32
    keeps f32 subnormal inputs (-2**-149 rounds down to -2**-24), cvt.ftz.f32.bf16 makes NaNs
    canonical (without .ftz their bits pass through)."""
    x = np.array([-(2.0**-149), 2.0**-149], np.float32)
    assert fn("cvt.rm.ftz.f16.f32")(x).tolist() == [0x8001, 0x0000]
    assert fn("cvt.rp.ftz.f16.f32")(x).tolist() == [0x8000, 0x0001]
    nans = np.array([0x7F81, 0xFFC5], np.uint16)
    assert raw(fn("cvt.ftz.f32.bf16")(nans)).tolist() == [0x7FFFFFFF, 0x7FFFFFFF]


# ============================================================================ the table


def test_every_cvt_form_has_semantics():
    """Every sampled spelling of the cvt rows builds a lane function, or says which narrow
    format / rounding is not implemented."""
    built = 0
    for form in FORMS:
        if form.opcode != "cvt":
            continue
        for _, mods in form.spellings(limit=150):
            try:
                m = match("cvt", mods)
            except MatchError:
                continue
            s = Spec("cvt", values=dict(m.values), types={k: t.name for k, t in m.types.items()},
                     modifiers=tuple(m.modifiers))
            try:
                assert callable(lane_function(s))
                built += 1
            except NotImplementedError as e:
                assert "not implemented" in str(e) and "cvt." in str(e), str(e)
                assert any(x in mods for x in ("rs", "e2m1x2", "e2m3x2", "e3m2x2", "e4m3x4", "e5m2x4", "e2m1x4",
                                               "e2m3x4", "e3m2x4", "ue8m0x2", "s2f6x2")), mods
    assert built > 50


def test_unsupported_forms_name_themselves():
    with pytest.raises(NotImplementedError, match="e2m1x2"):
        fn("cvt.rn.satfinite.e2m1x2.f32")
