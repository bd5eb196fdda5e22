"""Input sets of the texture and surface families: per-operand coordinate recipes.

Key: "tc:<types>:<lanes>;<recipe>;<recipe>..." with one recipe per source operand:

    f<lo>~<hi>   floats in [lo, hi]: uniform, on a 1/256 grid (the filter's fixed-point weights),
                 integers (texel borders) and texel centers (k + 1/2), a quarter each
    i<lo>~<hi>   integers uniform in [lo, hi]; a suffix x<m> multiplies them (byte coordinates)
    e            float edges (NaN, infinities, signed zeros, huge, tiny, subnormal, 0.5, 1, ...)
                 first, then floats uniform in [-2, 10]
    c<v>         the constant v (float; `ci<v>` an integer)
    p<lo>~<hi>   powers of two 2^k, k an integer uniform in [lo, hi] (gradients)
    n<lo>~<hi>   every integer lo..hi in order, repeated (one lane per index)
    v            random 32-bit values (surface stores and reductions)
    r<lo>~<hi>   integers uniform in [lo, hi] as values (reductions that must not overflow)
    t<max>       floats near the rounding ties of a normalized format whose largest code is max
    w            floats for formatted stores: moderate, large, and the conversions' edges
    k            integers for formatted stores: random and the saturation edges of 8/16 bits
    s<S>/<H>/<Z>/<mode>/<axis>/<mul>
                 store targets over S x H x Z slots, one lane per slot (a permutation): axis x, y
                 or z of each lane, x times mul (bytes); mode trap: in range only; zero: plus lanes
                 out of range; clamp: the inner slots, and lanes beyond each edge that clamp onto
                 the edge slots, each edge slot once (every result is deterministic)

A recipe may end in @<tag>: operands whose recipe and tag agree get the same column (an
isotropic gradient's two equal components). Registered into inputs.KINDS on import.
"""
from __future__ import annotations

import numpy as np

from .. import inputs as I
from .. import values as V

_EDGES = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1e30, -1e30, 2.0 ** 31, -(2.0 ** 31),
          2.0 ** 24 + 1, -2.0 ** 24, 1e-30, -1e-30, 1e-40, -1e-40, 0.5, -0.5, 1.0, -1.0, 0.49999997,
          0.50000006, 4.0, 4.5, 5.0, 6.9999995, 7.0, 7.0000005, 65536.5, -65536.5, 3.4e38, -3.4e38]


_STORE_FLOATS = [float("nan"), float("inf"), -float("inf"), 0.5, 1 / 255, 0.5 / 255, 1.5 / 255, 254.5 / 255,
                 -0.0, 65504.0, 70000.0, 1e-8, -1e-8, 1.0, -1.0, 2.0, -2.0, 1e-40]
_STORE_INTS = [0, 1, 127, 128, 255, 256, -1, -128, -129, 32767, 32768, 65535, 65536, -32768, -32769,
               2 ** 31 - 1, -2 ** 31]


def slots(S: int, H: int, Z: int, mode: str) -> np.ndarray:
    """(3, lanes) target coordinates of a store case (see the module docstring)."""
    rng = V.rng_for("slots", S, H, Z, mode)
    grid = np.array([(x, y, z) for z in range(Z) for y in range(H) for x in range(S)]).reshape(-1, 3)
    if mode == "trap":
        pts = grid
    elif mode == "zero":
        k = max(8, grid.shape[0] // 4)
        out = np.stack([rng.integers(0, S, k), rng.integers(0, H, k), rng.integers(0, Z, k)], 1)
        used = [0] + ([1] if H > 1 else []) + ([2] if Z > 1 else [])   # the axes the geometry has
        axis = np.array(used)[rng.integers(0, len(used), k)]
        lim = np.array([S, H, Z])
        beyond = np.where(rng.integers(0, 2, k) == 1, lim[axis] + rng.integers(0, 3, k), -1 - rng.integers(0, 3, k))
        out[np.arange(k), axis] = beyond
        pts = np.concatenate([grid, out])
    else:
        yc = H > 2
        keep = (grid[:, 0] > 0) & (grid[:, 0] < S - 1)
        if yc:
            keep &= (grid[:, 1] > 0) & (grid[:, 1] < H - 1)
        inner = grid[keep]
        edge = []
        ys = range(1, H - 1) if yc else range(H)
        for z in range(Z):
            for y in ys:
                edge += [(-2, y, z), (S + 1, y, z)]
            if yc:
                for x in range(1, S - 1):
                    edge += [(x, -1, z), (x, H + 2, z)]
                edge += [(-3, -2, z), (S + 2, -1, z), (-1, H, z), (S, H + 1, z)]
        pts = np.concatenate([inner, np.array(edge).reshape(-1, 3)])
    return pts[rng.permutation(pts.shape[0])].T


def _floats(lo: float, hi: float, n: int, rng) -> np.ndarray:
    q = n // 4
    uni = rng.uniform(lo, hi, n - 3 * q)
    grid = np.round(rng.uniform(lo, hi, q) * 256) / 256
    ints = np.round(rng.uniform(lo, hi, q))
    cent = np.floor(rng.uniform(lo, hi, q)) + 0.5
    a = np.concatenate([uni, grid, ints, cent])
    return rng.permutation(a).astype(np.float32)


def _range(body: str):
    lo, hi = body.split("~")
    return float(lo), float(hi)


def column(recipe: str, n: int, rng) -> np.ndarray:
    """One operand's values (uint32 bits)."""
    spec, _, tag = recipe.partition("@")
    if tag:
        rng = V.rng_for("texcoord", spec, tag, n)
    kind, body = spec[0], spec[1:]
    if kind == "f":
        return _floats(*_range(body), n, rng).view(np.uint32)
    if kind == "i":
        body, _, mul = body.partition("x")
        lo, hi = _range(body)
        a = rng.integers(int(lo), int(hi) + 1, n) * (int(mul) if mul else 1)
        return a.astype(np.int32).view(np.uint32)
    if kind == "r":
        lo, hi = _range(body)
        return rng.integers(int(lo), int(hi) + 1, n).astype(np.int64).astype(np.uint32)
    if kind == "n":
        lo, hi = _range(body)
        idx = np.arange(int(lo), int(hi) + 1)
        return np.resize(idx, n).astype(np.int32).view(np.uint32)
    if kind == "e":
        e = np.array(_EDGES, np.float32)
        rest = rng.uniform(-2, 10, max(0, n - e.size)).astype(np.float32)
        return np.concatenate([e, rest])[:n].view(np.uint32)
    if kind == "c":
        if body.startswith("i"):
            return np.full(n, int(body[1:]), np.int32).view(np.uint32)
        return np.full(n, float(body), np.float32).view(np.uint32)
    if kind == "p":
        lo, hi = _range(body)
        return (2.0 ** rng.integers(int(lo), int(hi) + 1, n)).astype(np.float32).view(np.uint32)
    if kind == "v":
        return rng.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
    if kind == "w":
        a = np.where(rng.integers(0, 2, n) == 0, rng.uniform(-1.5, 1.5, n), rng.uniform(-300, 300, n))
        pick = rng.integers(0, 4, n) == 0
        a[pick] = rng.choice(_STORE_FLOATS, int(pick.sum()))
        return a.astype(np.float32).view(np.uint32)
    if kind == "t":   # near the rounding ties of a normalized format with largest code <max>
        mx = int(body)
        a = ((rng.integers(0, mx, n) + 0.5) / mx).astype(np.float32)
        a = (a.view(np.int32) + rng.integers(-3, 4, n).astype(np.int32)).view(np.float32)
        a[::2] = rng.uniform(0, 1, a[::2].size)
        return a.view(np.uint32)
    if kind == "k":
        a = rng.integers(-2 ** 31, 2 ** 31, n)
        pick = rng.integers(0, 3, n) == 0
        a[pick] = rng.choice(_STORE_INTS, int(pick.sum()))
        return a.astype(np.int64).astype(np.int32).view(np.uint32)
    if kind == "s":
        S, H, Z, mode, axis, mul = body.split("/")
        pts = slots(int(S), int(H), int(Z), mode)
        col = pts["xyz".index(axis)] * (int(mul) if axis == "x" else 1)
        if col.size != n:
            raise ValueError(f"recipe {recipe}: {col.size} slots, the input set has {n} lanes")
        return col.astype(np.int32).view(np.uint32)
    raise ValueError(f"unknown coordinate recipe {recipe!r}")


def k_tc(types, arg, rng):
    lanes, *recipes = arg.split(";")
    if len(recipes) != len(types):
        raise ValueError(f"tc input: {len(types)} operands, {len(recipes)} recipes ({arg})")
    n = int(lanes)
    cols = []
    for t, r in zip(types, recipes):
        c = column(r, n, rng)
        if t in ("u64", "s64", "b64"):
            hi = column(r, n, rng) if r[0] == "v" else np.zeros(n, np.uint32)
            c = (c.astype(np.uint64) | (hi.astype(np.uint64) << np.uint64(32)))
            if r[0] in "ri":   # sign-extend small integers
                c = c.astype(np.uint32).view(np.int32).astype(np.int64).view(np.uint64)
        elif t in ("u16", "s16", "b16", "f16"):
            c = c.astype(np.uint16)
        elif t in ("u8", "s8", "b8"):
            c = c.astype(np.uint8)
        cols.append(c)
    return cols


def key(types: list, lanes: int, recipes: list) -> str:
    return I.key("tc", *types, arg=";".join([str(lanes)] + list(recipes)))


I.KINDS["tc"] = k_tc
