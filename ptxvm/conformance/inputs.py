"""Named input sets. A case names its inputs with a key such as "binary:f32,f32"; cases with the
same key share one recorded set of arrays (one array per source operand, lane-aligned).

Key grammar: KIND ":" TYPE ("," TYPE)* (":" ARG)?  -- the types are the source operand types in
order. Edge cases always come first, so the first few hundred lanes (the quick tier) hold them.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from . import types as T
from . import values as V

N_TYPICAL = 4096   # lanes of a typical random set (edges included)


def _fill(cols: list[np.ndarray], types: list[str], total: int, rng) -> list[np.ndarray]:
    """Append random lanes until `total` (rounded up to a whole warp)."""
    n = cols[0].size
    total = V.pad_to(max(total, n), 32)
    extra = total - n
    if extra:
        cols = [np.concatenate([c, V.random(t, extra, rng)]) for c, t in zip(cols, types)]
    return cols


def _cross(lists: list[np.ndarray], cap: int, rng) -> list[np.ndarray]:
    grids = np.meshgrid(*[np.arange(x.size) for x in lists], indexing="ij")
    idx = [g.ravel() for g in grids]
    if idx[0].size > cap:
        keep = np.sort(rng.choice(idx[0].size, cap, replace=False))
        idx = [i[keep] for i in idx]
    return [x[i] for x, i in zip(lists, idx)]


def _edges_against_random(types, rng, each: int = 1) -> list[np.ndarray]:
    """Every edge value of every operand, with random partners in the other operands."""
    blocks = []
    for j, t in enumerate(types):
        e = np.repeat(V.edges(t), each)
        cols = [e if k == j else V.random(tk, e.size, rng) for k, tk in enumerate(types)]
        blocks.append(cols)
    return [np.concatenate([b[k] for b in blocks]) for k in range(len(types))]


def _cat(*parts: list[np.ndarray]) -> list[np.ndarray]:
    return [np.concatenate([p[k] for p in parts]) for k in range(len(parts[0]))]


# ----------------------------------------------------------------------------------- kinds

def k_unary(types, arg, rng):
    (t,) = types
    cols = [V.edges(t)]
    n = int(arg) if arg else N_TYPICAL
    return _fill(cols, types, n, rng)


def k_exh16(types, arg, rng):
    """Every 16-bit pattern of the first operand (the others random)."""
    t = types[0]
    a = V.exhaustive(t)
    return [a] + [V.random(tk, a.size, rng) for tk in types[1:]]


def k_pairs8(types, arg, rng):
    """Every pair of 8-bit values (sign-extended for signed types), then edges and random."""
    a, b = np.meshgrid(np.arange(256, dtype=np.int64), np.arange(256, dtype=np.int64), indexing="ij")
    cols = []
    for t, x in zip(types, (a.ravel(), b.ravel())):
        if T.is_signed_int(t):
            x = np.where(x >= 128, x - 256, x)
        cols.append(x.astype(np.int64).view(np.uint64).astype(T.storage_dtype(t)))
    return _cat(cols, _cross([V.core_edges(t) for t in types], 10 ** 6, rng),
                _edges_against_random(types, rng, each=2))


def k_nary(types, arg, rng):
    """Cross product of the core edges, every edge against random partners, then random lanes,
    half of them with operands related to the first (close floats: cancellation and ties)."""
    cross = _cross([V.core_edges(t) for t in types], 1500, rng)
    er = _edges_against_random(types, rng)
    n = int(arg) if arg else N_TYPICAL
    m = max(n - cross[0].size - er[0].size, 1024)
    a = V.random(types[0], m, rng)
    rest = []
    for k, t in enumerate(types[1:], 1):
        if t == types[0] and k == 1:
            r = V.random(t, m, rng)
            rel = V.related(t, a, rng)
            half = rng.integers(0, 2, m) == 1
            b = np.where(half, rel, r)
            same = rng.integers(0, 16, m) == 0          # equal operands (comparisons, x - x)
            b[same] = a[same]
            rest.append(b)
        else:
            rest.append(V.random(t, m, rng))
    cols = _cat(cross, er, [a] + rest)
    if len(types) == 3 and all(t == types[0] for t in types) and types[0] in ("f32", "f64"):
        # fma-style: c close to -(a*b) for a quarter of the random lanes (cancellation)
        ft = np.float32 if types[0] == "f32" else np.float64
        s = cross[0].size + er[0].size
        sel = np.arange(s, s + m)[rng.integers(0, 4, m) == 0]
        with np.errstate(all="ignore"):
            prod = cols[0][sel].view(ft) * cols[1][sel].view(ft)
        cols[2][sel] = (-prod).view(cols[2].dtype)
    return _fill(cols, types, 0, rng)


def k_shift(types, arg, rng):
    """a: edges and random; b: every shift count 0..width+1 (and a few huge ones); others random."""
    t, tb = types[0], types[1]
    w = T.width(t) if T.width(t) > 1 else 32
    if arg:
        w = int(arg)
    counts = np.array(list(range(w + 2)) + [w + 7, 2 * w, 255, 256, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF],
                      np.uint64).astype(T.storage_dtype(tb))
    av = np.concatenate([V.edges(t), V.random(t, 24, rng)])
    a, b = [x.ravel() for x in np.meshgrid(av, counts, indexing="ij")]
    cols = [a, b] + [V.random(tk, a.size, rng) for tk in types[2:]]
    return _fill(cols, types, N_TYPICAL, rng)


def k_bitfield(types, arg, rng):
    """bfe/bfi-style: (value[, insert], pos, len) with pos and len over 0..width+1 and beyond."""
    t = types[0]
    w = T.width(t)
    small = np.array(list(range(0, w + 2)) + [w + 5, 255, 256, 0xFFFFFFFF], np.uint64).astype(np.uint32)
    rng_lanes = []
    ps, ls = [x.ravel() for x in np.meshgrid(small, small, indexing="ij")]
    m = ps.size
    vals = [V.random(tk, m, rng) for tk in types[:-2]]
    cols = vals + [ps.astype(T.storage_dtype(types[-2])), ls.astype(T.storage_dtype(types[-1]))]
    return _fill(cols, types, N_TYPICAL, rng)


def k_cvt(types, arg, rng):
    """Conversion sources: edges, values at rounding ties for every narrower float format and at
    integer halves, then random."""
    (t,) = types
    cols = [V.edges(t)]
    if T.is_float(t) and t not in T.PACKED:
        e, m = T.float_format(t)
        parts = [cols[0]]
        for narrower in (52, 23, 10, 7, 3, 2):
            if narrower < m:
                parts.append(V.float_ties(t, m - narrower, 128, rng))
        # x.5 ties for float->int rounding, and values around integer range limits
        halves = (rng.integers(-70000, 70000, 256) + 0.5).astype(np.float64)
        bounds = []
        for p in (7, 8, 15, 16, 31, 32, 63, 64):
            for d in (-1.5, -1.0, -0.5, 0.0, 0.5, 1.0):
                bounds += [2.0 ** p + d, -(2.0 ** p) + d]
        reals = np.concatenate([halves, np.array(bounds)])
        with np.errstate(all="ignore"):
            if t == "f64":
                rb = reals.view(np.uint64)
            elif t == "f32":
                rb = reals.astype(np.float32).view(np.uint32)
            elif t == "f16":
                rb = reals.astype(np.float16).view(np.uint16)
            else:
                rb = V.round_f64_bits_to(t, reals.view(np.uint64))
        parts.append(rb.astype(T.storage_dtype(t)))
        cols = [np.concatenate(parts)]
    n = int(arg) if arg else N_TYPICAL
    return _fill(cols, types, n, rng)


def k_index(types, arg, rng):
    """(index, value...): indices into a small memory array (conflicting addresses when the
    array is shorter than the launch), values random; arg = array length."""
    length = int(arg)
    n = N_TYPICAL // 2
    idx = rng.integers(0, length, n).astype(T.storage_dtype(types[0]))
    cols = [idx]
    for t in types[1:]:
        if T.is_float(t):
            # small integers: sums are exact in any order, so the final memory is deterministic
            cols.append(V.small_ints(t, n, rng))
        else:
            cols.append(V.random(t, n, rng))
    return cols


def k_lanes(types, arg, rng):
    """Warp collectives: per-lane values (random, with some warps of equal values), lane
    selectors in 0..31 and out of range, and member masks; arg = lanes."""
    n = int(arg) if arg else 1024
    cols = []
    for k, t in enumerate(types):
        v = V.random(t, n, rng)
        if k == 0 and t != "pred":
            # a few warps where many lanes hold equal values (match, redux and vote see ties)
            w = v.reshape(-1, 32)
            w[::4] = w[::4, :1]
            w[1::4, ::2] = w[1::4, :1]
            v = w.ravel()
        cols.append(v)
    return cols


KINDS = {
    "unary": k_unary, "exh16": k_exh16, "pairs8": k_pairs8, "nary": k_nary, "shift": k_shift,
    "bitfield": k_bitfield, "cvt": k_cvt, "index": k_index, "lanes": k_lanes,
}


def parse(key: str):
    parts = key.split(":")
    kind, types = parts[0], parts[1].split(",")
    arg = parts[2] if len(parts) > 2 else None
    return kind, types, arg


@lru_cache(maxsize=64)
def _make(key: str):
    """A type written T*k is a vector operand: k values per lane, laid out lane after lane; each
    element comes from a separate call of the kind."""
    kind, vtypes, arg = parse(key)
    types = [t.split("*")[0] for t in vtypes]
    counts = [int(t.split("*")[1]) if "*" in t else 1 for t in vtypes]
    rng = V.rng_for("inputs", key)
    cols = KINDS[kind](types, arg, rng)
    # further elements of vector operands: the same kind again (its edges are then repeated)
    extra = [KINDS[kind](types, arg, rng) for _ in range(max(counts) - 1)]
    out = []
    for j, (c, t, k) in enumerate(zip(cols, types, counts)):
        c = c.astype(T.storage_dtype(t))
        if k > 1:
            more = [extra[i][j].astype(c.dtype) for i in range(k - 1)]
            c = np.stack([c] + more, axis=1).ravel()
        c = np.ascontiguousarray(c)
        c.setflags(write=False)
        out.append(c)
    assert len({c.size // k for c, k in zip(out, counts)}) == 1, key
    return tuple(out)


def lanes(key: str) -> int:
    kind, vtypes, arg = parse(key)
    k = int(vtypes[0].split("*")[1]) if "*" in vtypes[0] else 1
    return _make(key)[0].size // k


def make(key: str) -> list[np.ndarray]:
    """The arrays of an input set (one per source operand), as fresh writable copies."""
    return [c.copy() for c in _make(key)]


def key(kind: str, *types: str, arg=None) -> str:
    k = kind + ":" + ",".join(types)
    return k if arg is None else f"{k}:{arg}"


def k_divisor(types, arg, rng):
    """Like nary, but no zero divisors (those lanes are a separate, undefined-result case)."""
    cols = k_nary(types, arg, rng)
    b = cols[1]
    zero = b == 0
    b[zero] = V.random(types[1], int(zero.sum()), rng)
    b[b == 0] = 1
    return cols


def k_zero(types, arg, rng):
    """The second operand is zero in every lane (division by zero)."""
    cols = k_unary(types[:1], arg or "512", rng)
    return cols + [np.zeros(cols[0].size, T.storage_dtype(t)) for t in types[1:]]


def k_fns(types, arg, rng):
    """fns: (mask, base, offset) with base over 0..31 and beyond, offsets over -33..33."""
    n = N_TYPICAL
    mask = np.concatenate([V.edges(types[0]), V.random(types[0], n, rng)])[:n]
    base = rng.integers(0, 34, n).astype(np.uint32)
    base[::17] = 0xFFFFFFFF
    off = rng.integers(-34, 35, n).astype(np.int32).view(np.uint32)
    return [mask, base, off]


def k_funnel(types, arg, rng):
    """shf: (a, b, count) with every count 0..33 and a few huge ones."""
    counts = np.array(list(range(34)) + [63, 64, 255, 0x80000000, 0xFFFFFFFF], np.uint32)
    ea = np.concatenate([V.core_edges(types[0]), V.random(types[0], 16, rng)])
    a, c = [x.ravel() for x in np.meshgrid(ea, counts, indexing="ij")]
    b = V.random(types[1], a.size, rng)
    b[: a.size // 3] = a[: a.size // 3][::-1]
    return _fill([a, b, c.astype(T.storage_dtype(types[2]))], types, N_TYPICAL, rng)


def k_perm(types, arg, rng):
    """(index, values...): a random permutation of the lanes (every lane touches its own element
    of a memory array, in scrambled order), then values of each other type."""
    n = int(arg) if arg else 1024
    cols = [rng.permutation(n).astype(T.storage_dtype(types[0]))]
    for t in types[1:]:
        e = V.edges(t)
        v = V.random(t, n, rng)
        v[: min(n, e.size)] = e[: min(n, e.size)]
        cols.append(v)
    return cols


def k_shfl(types, arg, rng):
    """shfl: a random; b lane or offset (0..40, uniform in some warps); c = clamp | segmask<<8
    uniform per warp, for every width 32..1 and both clamp conventions."""
    n = int(arg) if arg else 2048
    warps = n // 32
    a = V.random(types[0], n, rng)
    b = rng.integers(0, 41, n).astype(np.uint32)
    uni = rng.integers(0, 2, warps).astype(bool)
    bw = b.reshape(warps, 32)
    bw[uni] = bw[uni, :1]
    cs = []
    for w in (32, 16, 8, 4, 2, 1):
        cs += [((32 - w) << 8), ((32 - w) << 8) | 0x1F, ((32 - w) << 8) | (w - 1)]
    cs += [0x7, 0x1F1F, 0x0]
    c = np.repeat(np.array(cs, np.uint32)[rng.integers(0, len(cs), warps)], 32)
    return [a, b.ravel(), c]


def k_vote(types, arg, rng):
    """Per-lane predicates (or values): random, and whole warps of one value."""
    n = int(arg) if arg else 1024
    warps = n // 32
    cols = []
    for t in types:
        v = V.random(t, n, rng).reshape(warps, 32)
        v[0::4] = v[0::4, :1]                       # uniform warps
        if t == "pred":
            v[1::8] = 1
            v[2::8] = 0
        else:
            v[1::4, ::2] = v[1::4, :1]              # half the warp agrees
            v[2::4] = rng.integers(0, 4, (v[2::4].shape)).astype(v.dtype)  # few distinct values
        cols.append(v.ravel())
    return cols


def k_small(types, arg, rng):
    """Moderate values: floats with few significant bits near 1 (products and sums of a
    matrix multiply stay finite and exercise rounding), integers full range."""
    n = int(arg) if arg else 1024
    cols = []
    for t in types:
        if T.is_float(t):
            e, m = T.float_format(t)
            bias = (1 << (e - 1)) - 1
            w = T.width(T.PACKED[t][0]) if t in T.PACKED else T.width(t)
            k = 2 if t in T.PACKED else 1
            out = np.zeros(n, np.uint64)
            for i in range(k):
                sign = rng.integers(0, 2, n, dtype=np.uint64)
                exp = rng.integers(max(1, bias - 6), bias + 3, n).astype(np.uint64)
                man = rng.integers(0, 1 << m, n, dtype=np.uint64)
                bits = (sign << np.uint64(e + m)) | (exp << np.uint64(m)) | man
                out |= bits << np.uint64(w * i)
            cols.append(out.astype(T.storage_dtype(t)))
        else:
            cols.append(V.random(t, n, rng))
    return cols


def k_ints(types, arg, rng):
    """Small integers (floats too): order-independent sums for conflicting atomics."""
    n = int(arg) if arg else 2048
    return [V.small_ints(t, n, rng) for t in types]


KINDS.update({"ints": k_ints, "shfl": k_shfl, "vote": k_vote, "small": k_small, "perm": k_perm, "divisor": k_divisor, "zero": k_zero, "fns": k_fns, "funnel": k_funnel})


def k_spsmall(types, arg, rng):
    """mma.sp operands: moderate values (as "small") for a, b, c and, for the last operand, sparsity
    metadata with a well-formed pattern in every nibble of every lane: two ordered 2-bit indices,
    or for arg "<lanes>/tf32" the two tf32 patterns 0b0100 and 0b1110."""
    n_arg, _, kind = (arg or "").partition("/")
    cols = k_small(types[:-1], n_arg or None, rng)
    n = cols[0].size
    if kind == "tf32":
        choices = np.array([0b0100, 0b1110], np.uint64)
    else:
        choices = np.array([i | (j << 2) for i in range(4) for j in range(4) if i < j], np.uint64)
    nib = choices[rng.integers(0, choices.size, (n, 8))]
    meta = np.bitwise_or.reduce(nib << (np.arange(8, dtype=np.uint64) * np.uint64(4)), axis=1)
    return cols + [meta.astype(np.uint32)]


KINDS["spsmall"] = k_spsmall


def _mma_elements(e: int, m: int, n: int, rng, special: np.ndarray) -> np.ndarray:
    """n float elements (exponent bits e, mantissa bits m) of a matrix operand: moderate values
    (as "small"), and where `special` is set a mixture of wide-exponent normals (sums with a large
    exponent spread), subnormals, signed zeros, infinities and NaNs."""
    bias = (1 << (e - 1)) - 1
    emax = (1 << e) - 1
    sign = rng.integers(0, 2, n, dtype=np.uint64)
    exp = rng.integers(max(1, bias - 6), bias + 3, n).astype(np.uint64)
    man = rng.integers(0, 1 << m, n, dtype=np.uint64)
    kind = np.where(special, rng.integers(0, 100, n), 100)
    wide = kind < 40
    exp[wide] = rng.integers(1, emax, int(wide.sum())).astype(np.uint64)
    exp[(kind >= 40) & (kind < 65)] = 0                          # subnormal (or zero)
    zero = (kind >= 65) & (kind < 75)
    man[zero] = 0
    exp[zero] = 0
    inf = (kind >= 75) & (kind < 78)
    exp[inf] = emax
    man[inf] = 0 if (e, m) != (4, 3) else 6                      # e4m3 has no infinity: its largest
    nan = (kind >= 78) & (kind < 81)
    exp[nan] = emax
    man[nan] = rng.integers(1, 1 << m, int(nan.sum())) if (e, m) != (4, 3) else 7
    return (sign << np.uint64(e + m)) | (exp << np.uint64(m)) | man


_MMA_FORMATS = {"f16": (5, 10), "bf16": (8, 7), "tf32": (8, 23), "f32": (8, 23), "f64": (11, 52),
                "e4m3": (4, 3), "e5m2": (5, 2)}


def _sparse_meta_words(n: int, rng, tf32: bool) -> np.ndarray:
    """Sparsity metadata: every nibble of every word a well-formed ordered pattern (two 2-bit
    indices i < j), or for tf32 one of 0b0100 and 0b1110."""
    if tf32:
        choices = np.array([0b0100, 0b1110], np.uint64)
    else:
        choices = np.array([i | (j << 2) for i in range(4) for j in range(4) if i < j], np.uint64)
    nib = choices[rng.integers(0, choices.size, (n, 8))]
    return np.bitwise_or.reduce(nib << (np.arange(8, dtype=np.uint64) * np.uint64(4)), axis=1).astype(np.uint32)


def k_mma(types, arg, rng):
    """Matrix operands, adversarial: arg "<lanes>[/<element type per operand, '-' keeps the
    operand's own>...]". Even warps hold moderate values only (as "small"); odd warps add wide
    exponent spreads, subnormals, zeros and a few infinities and NaNs. Cancellation: in a third of
    the registers of the first operand the upper element is the negated lower one, and in the
    second operand the two are equal (adjacent k of one row of A and one column of B, so their
    products cancel exactly). Integer and bit types are random. An operand whose element type is
    "meta" ("metatf32") holds well-formed sparsity metadata."""
    n_arg, *elts = (arg or "").split("/")
    n = int(n_arg) if n_arg else 1024
    warp_odd = (np.arange(n) // 32) % 2 == 1
    cols = []
    for j, t in enumerate(types):
        el = elts[j] if j < len(elts) and elts[j] != "-" else None
        if el in ("meta", "metatf32"):
            cols.append(_sparse_meta_words(n, rng, el == "metatf32"))
            continue
        if el is None:
            el = T.PACKED[t][0] if t in T.PACKED else (t if T.is_float(t) else None)
        if el is None:
            cols.append(V.random(t, n, rng))
            continue
        e, m = _MMA_FORMATS[el]
        w = 1 + e + m
        per = T.width(t) // w
        parts = [_mma_elements(e, m, n, rng, warp_odd & (rng.integers(0, 4, n) == 0)) for _ in range(per)]
        if per >= 2 and j < 2:
            pair = rng.integers(0, 3, n) == 0
            flip = np.uint64(1 << (w - 1)) if j == 0 else np.uint64(0)
            parts[1] = np.where(pair, parts[0] ^ flip, parts[1])
        out = np.zeros(n, np.uint64)
        for i, p in enumerate(parts):
            out |= p << np.uint64(w * i)
        cols.append(out.astype(T.storage_dtype(t)))
    return cols


KINDS["mma"] = k_mma
