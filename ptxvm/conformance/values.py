"""Input values for conformance cases: edge cases always, exhaustive where small, seeded random.

Everything is raw bits in unsigned arrays (see types.storage_dtype). Generators are deterministic
functions of their arguments and a seed; the recorded goldens keep the inputs anyway, so the
checker never depends on these functions staying the same.
"""
from __future__ import annotations

import zlib

import numpy as np

from . import types as T


def seed_of(*parts) -> int:
    """A stable 32-bit seed from strings (never Python's salted hash())."""
    return zlib.crc32("|".join(map(str, parts)).encode())


def rng_for(*parts) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(seed_of(*parts)))


# ---------------------------------------------------------------------------------------- floats

def _fbits(t: str, sign: int, exp: int, man: int) -> int:
    e, m = T.float_format(t)
    return (sign << (e + m)) | (exp << m) | man


def _from_real(t: str, x: float) -> int:
    """Bits of the real x rounded to nearest-even in float type t (f16, bf16, f32, f64, fp8)."""
    e, m = T.float_format(t)
    if (e, m) == (11, 52):
        return int(np.array(x, np.float64).view(np.uint64))
    if (e, m) == (8, 23):
        return int(np.array(x, np.float32).view(np.uint32))
    if (e, m) == (5, 10):
        return int(np.array(x, np.float16).view(np.uint16))
    # bf16 / fp8: round the f64 bits by hand (nearest even), enough for the finite values used here
    return int(round_f64_bits_to(t, np.array([x], np.float64).view(np.uint64))[0])


def round_f64_bits_to(t: str, bits64: np.ndarray) -> np.ndarray:
    """Nearest-even rounding of f64 bit patterns to a narrower float format (no NaN input)."""
    e, m = T.float_format(t)
    out = []
    for b in bits64.tolist():
        x = float(np.array(b, np.uint64).view(np.float64))
        s = 1 if (b >> 63) else 0
        a = abs(x)
        bias = (1 << (e - 1)) - 1
        if a == 0:
            out.append(s << (e + m))
            continue
        import math
        ex = math.floor(math.log2(a))
        ex = max(ex, 1 - bias)
        q = a / 2.0 ** (ex - m)
        r = math.floor(q)
        frac = q - r
        if frac > 0.5 or (frac == 0.5 and r % 2 == 1):
            r += 1
        # r is the significand at exponent ex (may carry to 2^(m+1))
        if r >= (1 << (m + 1)):
            r >>= 1
            ex += 1
        if r < (1 << m):  # subnormal
            bits = r
        else:
            bits = ((ex + bias) << m) | (r - (1 << m))
        if ex + bias >= (1 << e) - 1:
            bits = ((1 << e) - 1) << m  # overflow -> inf (fine for edge lists)
        out.append((s << (e + m)) | bits)
    return np.array(out, np.uint64)


INTERESTING_REALS = [
    1.0, 0.5, 1.5, 2.5, 3.5, 0.25, 0.75, 2.0, 3.0, 10.0, 0.1, 1 / 3, np.pi, np.e,
    127.5, 128.0, 255.5, 256.0, 32767.5, 32768.0, 65504.0, 65519.0, 65520.0, 65535.5, 65536.0,
    2.0 ** 24 + 1, 2.0 ** 31 - 64, 2.0 ** 31, 2.0 ** 32, 2.0 ** 53 + 1, 2.0 ** 63, 2.0 ** 64,
    6.103515625e-05, 5.960464477539063e-08, 2.98023223876953125e-08, 1.1754943508222875e-38,
    1.401298464324817e-45, 0.7e-45, 448.0, 464.0, 57344.0, 61440.0, 0.00048828125,
    0.49999997, 1.0000001, 0.99999994, 1e30, 1e-30, 1e300, 1e-300, 3.4028234663852886e38,
    0.001953125, 0.015625, 0.0009765625, 0.001, 240.0, 2.0 ** -126 * 1.5, 2.0 ** -149 * 3,
]


def float_edges(t: str) -> np.ndarray:
    """Edge bit patterns of a float type: signed zeros, infinities, NaNs (quiet and signalling,
    with payloads), subnormals, normal extremes, rounding ties and conversion boundaries."""
    e, m = T.float_format(t)
    emax = (1 << e) - 1
    pats = set()
    for s in (0, 1):
        for exp, man in [
            (0, 0), (0, 1), (0, 2), (0, (1 << m) - 1), (0, 1 << (m - 1)),  # zero, subnormals
            (1, 0), (1, 1), (2, 0),  # smallest normals
            (emax - 1, (1 << m) - 1), (emax - 1, 0), (emax - 1, (1 << m) - 2),  # largest normals
            (emax, 0),  # infinity
        ]:
            pats.add(_fbits(t, s, exp, man))
        if m >= 2 and (e, m) != (4, 3):
            # NaNs (e4m3 has only S.1111.111)
            pats.add(_fbits(t, s, emax, 1 << (m - 1)))                 # canonical quiet NaN
            pats.add(_fbits(t, s, emax, (1 << m) - 1))                 # quiet, all-ones payload
            pats.add(_fbits(t, s, emax, (1 << (m - 1)) | 1 | (0x5 << max(0, m - 8))))  # quiet + payload
            pats.add(_fbits(t, s, emax, 1))                            # signalling, payload 1
            pats.add(_fbits(t, s, emax, (1 << (m - 1)) - 1))           # signalling, big payload
        elif (e, m) == (4, 3):
            pats.add(_fbits(t, s, 15, 7))
    finite = [x for x in INTERESTING_REALS]
    for x in finite:
        for sx in (x, -x):
            with np.errstate(all="ignore"):
                b = _from_real(t, sx)
            pats.add(b)
    return np.array(sorted(pats), dtype=np.uint64).astype(T.storage_dtype(t))


def float_random(t: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """A mixture: uniformly random bit patterns (every class), values of moderate magnitude,
    tiny/subnormal values and huge values."""
    e, m = T.float_format(t)
    w = 1 + e + m
    bias = (1 << (e - 1)) - 1
    emax = (1 << e) - 1
    kind = rng.integers(0, 20, n)
    sign = rng.integers(0, 2, n, dtype=np.uint64)
    man = rng.integers(0, 1 << m, n, dtype=np.uint64)
    exp = np.empty(n, np.int64)
    span = min(20, bias - 1)
    exp[:] = rng.integers(bias - span, bias + span + 1, n)          # moderate
    tiny = kind >= 15
    exp[tiny] = rng.integers(0, 4, int(tiny.sum()))                 # subnormal / smallest normals
    huge = kind == 14
    exp[huge] = rng.integers(emax - 4, emax, int(huge.sum()))       # largest normals
    round_ = (kind == 13)
    man[round_] &= ~np.uint64((1 << max(0, m - 3)) - 1)             # few significant bits (exact-ish)
    bits = (sign << np.uint64(e + m)) | (exp.astype(np.uint64) << np.uint64(m)) | man
    unif = kind < 4
    bits[unif] = rng.integers(0, 1 << w, int(unif.sum()), dtype=np.uint64)
    return bits.astype(T.storage_dtype(t))


def float_related(t: str, a: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Second operands close to a (cancellation, alignment shifts near the significand width,
    exact negation), so sums and differences exercise rounding ties and sticky bits."""
    e, m = T.float_format(t)
    n = a.size
    a64 = a.astype(np.uint64)
    sign = (a64 >> np.uint64(e + m)) & np.uint64(1)
    exp = ((a64 >> np.uint64(m)) & np.uint64((1 << e) - 1)).astype(np.int64)
    emax = (1 << e) - 1
    shift = rng.integers(-(m + 3), m + 4, n)
    nexp = np.clip(exp - shift, 0, emax - 1).astype(np.uint64)
    man = rng.integers(0, 1 << m, n, dtype=np.uint64)
    man_a = a64 & np.uint64((1 << m) - 1)
    choose = rng.integers(0, 4, n)
    man = np.where(choose == 0, man_a, man)                          # same significand
    man = np.where(choose == 1, np.uint64(0), man)                   # power of two (ties)
    nsign = np.where(rng.integers(0, 2, n) == 1, sign ^ np.uint64(1), sign)
    b = (nsign << np.uint64(e + m)) | (nexp << np.uint64(m)) | man
    neg = rng.integers(0, 16, n) == 0
    b[neg] = a64[neg] ^ np.uint64(1 << (e + m))                      # exact negation
    return b.astype(T.storage_dtype(t))


def float_ties(t: str, drop_bits: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """Values of type t whose lowest `drop_bits` significand bits are an exact half (a tie when
    rounding to drop_bits fewer bits), just below or just above it."""
    e, m = T.float_format(t)
    drop_bits = min(drop_bits, m)
    x = float_random(t, n, rng).astype(np.uint64)
    half = np.uint64(1 << (drop_bits - 1))
    mask = np.uint64((1 << drop_bits) - 1)
    x &= ~mask
    which = rng.integers(0, 4, n)
    low = np.where(which == 0, half, np.where(which == 1, half - np.uint64(1),
                   np.where(which == 2, half + np.uint64(1), np.uint64(0))))
    return (x | low).astype(T.storage_dtype(t))


# -------------------------------------------------------------------------------------- integers

def int_edges(t: str) -> np.ndarray:
    w = T.width(t)
    full = (1 << w) - 1
    vals = {0, 1, 2, 3, 7, 8, 100, full, full - 1, full - 2, 1 << (w - 1), (1 << (w - 1)) - 1,
            (1 << (w - 1)) + 1, (1 << (w - 1)) - 2, 1 << (w // 2), (1 << (w // 2)) - 1,
            (1 << (w // 2)) + 1, int("55" * (w // 8), 16), int("aa" * (w // 8), 16),
            int("0f" * (w // 8), 16), int("f0" * (w // 8), 16), 0x7F, 0x80, 0xFF, 0x100,
            0x7FFF & full, 0x8000 & full, 0xFFFF & full, 0x10000 & full, 0x7FFFFFFF & full,
            0x80000000 & full, 0xFFFFFFFF & full, 0x123456789ABCDEF0 & full, full - 99}
    return np.array(sorted(vals), dtype=np.uint64).astype(T.storage_dtype(t))


def int_random(t: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """Uniform bit patterns, small magnitudes (both signs), values near the extremes and powers
    of two plus or minus a little."""
    w = T.width(t)
    full = np.uint64((1 << w) - 1) if w < 64 else np.uint64(0xFFFFFFFFFFFFFFFF)
    kind = rng.integers(0, 10, n)
    x = rng.integers(0, 1 << 63, n, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, n, dtype=np.uint64)
    small = rng.integers(-300, 301, n).astype(np.int64).view(np.uint64)
    x = np.where(kind == 5, small, x)
    x = np.where(kind == 6, small & np.uint64(0xFFF), x)
    p2 = np.uint64(1) << rng.integers(0, w, n).astype(np.uint64)
    x = np.where(kind == 7, p2 + small % np.uint64(5) - np.uint64(2), x)
    top = np.uint64(1 << (w - 1))
    x = np.where(kind == 8, top + small, x)              # near INT_MIN / above INT_MAX
    narrow = rng.integers(1, w + 1, n).astype(np.uint64)
    x = np.where(kind == 9, x >> (np.uint64(64) - narrow), x)  # random bit lengths
    return (x & full).astype(T.storage_dtype(t))


# --------------------------------------------------------------------------------- any type

def edges(t: str) -> np.ndarray:
    if t == "pred":
        return np.array([0, 1], np.uint8)
    if t in T.PACKED:
        et, k = T.PACKED[t]
        e = edges(et).astype(np.uint64)
        w = T.width(et)
        # pair each edge with a few partners so both halves see every edge
        idx = np.arange(e.size)
        lo = np.concatenate([e, e, e[::-1]])
        hi = np.concatenate([e, e[(idx * 7 + 3) % e.size], e])
        return (lo | (hi << np.uint64(w))).astype(T.storage_dtype(t))
    if T.is_float(t):
        return float_edges(t)
    return int_edges(t)


def random(t: str, n: int, rng: np.random.Generator) -> np.ndarray:
    if t == "pred":
        return rng.integers(0, 2, n).astype(np.uint8)
    if t in T.PACKED:
        et, k = T.PACKED[t]
        w = T.width(et)
        parts = [random(et, n, rng).astype(np.uint64) << np.uint64(w * i) for i in range(k)]
        out = parts[0]
        for p in parts[1:]:
            out = out | p
        return out.astype(T.storage_dtype(t))
    if T.is_float(t):
        return float_random(t, n, rng)
    return int_random(t, n, rng)


def related(t: str, a: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A second operand related to the first where that finds more bugs (floats: close values)."""
    if T.is_float(t) and t not in T.PACKED and T.width(t) >= 16:
        return float_related(t, a, rng)
    return random(t, a.size, rng)


def exhaustive(t: str) -> np.ndarray:
    """Every bit pattern of an (at most 16-bit) type."""
    w = T.width(t)
    assert w <= 16, t
    return np.arange(1 << w, dtype=np.uint64).astype(T.storage_dtype(t))


def pad_to(n: int, multiple: int) -> int:
    return -(-n // multiple) * multiple


def core_edges(t: str) -> np.ndarray:
    """A short list of the most telling edge values, for cross products of several operands."""
    if t == "pred":
        return np.array([0, 1], np.uint8)
    if t in T.PACKED:
        et, k = T.PACKED[t]
        e = core_edges(et).astype(np.uint64)
        w = T.width(et)
        return (e | (e[::-1] << np.uint64(w))).astype(T.storage_dtype(t))
    if T.is_float(t):
        e, m = T.float_format(t)
        emax = (1 << e) - 1
        pats = []
        for s in (0, 1):
            pats += [_fbits(t, s, 0, 0), _fbits(t, s, 0, 1), _fbits(t, s, 1, 0),
                     _from_real(t, 1.0) | (s << (e + m)), _from_real(t, 1.5) | (s << (e + m)),
                     _fbits(t, s, emax - 1, (1 << m) - 1), _fbits(t, s, emax, 0)]
        if (e, m) == (4, 3):
            pats += [0x7F, 0xFF]
        else:
            pats += [_fbits(t, 0, emax, 1 << (m - 1)), _fbits(t, 1, emax, (1 << (m - 1)) | 1),
                     _fbits(t, 0, emax, 1)]
        return np.array(pats, np.uint64).astype(T.storage_dtype(t))
    w = T.width(t)
    full = (1 << w) - 1
    vals = [0, 1, 2, full, full - 1, 1 << (w - 1), (1 << (w - 1)) - 1, 0x55 & full, 100]
    return np.array(vals, np.uint64).astype(T.storage_dtype(t))


def small_ints(t: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """Integers in [-64, 64) (as floats for float types): sums of them are exact in any order."""
    v = rng.integers(-64, 64, n)
    if t == "f32":
        return v.astype(np.float32).view(np.uint32)
    if t == "f64":
        return v.astype(np.float64).view(np.uint64)
    if t in ("f16", "bf16", "f16x2", "bf16x2"):
        # halves: small integers are exact in both; packed types repeat the value in each half
        h = v.astype(np.float16).view(np.uint16).astype(np.uint32) if t.startswith("f16") else \
            (v.astype(np.float32).view(np.uint32) >> np.uint32(16))
        if t.endswith("x2"):
            return (h | (h << np.uint32(16))).astype(np.uint32)
        return h.astype(np.uint16)
    return (v.astype(np.int64).view(np.uint64) & np.uint64((1 << T.width(t)) - 1 if T.width(t) < 64 else 0xFFFFFFFFFFFFFFFF)).astype(T.storage_dtype(t))
