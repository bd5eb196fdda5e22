"""Atomic read-modify-write over lanes, serialised in lane order where lanes collide.

PTX lets colliding atomics happen in any order; ptxvm picks lane order (lower thread slot
first), which is one of the hardware's legal orders; every update is rounded on its own, as each
is a separate atomic operation (docs/hardware-notes.md, "Colliding atomics"). Three paths:
* no value returned (red, or atom into `_`): NumPy's unbuffered `ufunc.at` applies every lane's
  update in order, including repeated indices;
* integer add with values returned: an exclusive running sum per address (exact modulo 2^n);
* everything else: rounds, where each round applies one pending lane per distinct address.
"""
from __future__ import annotations

import numpy as np

from ...numerics import ieee32, ieee64

OPS = ("add", "min", "max", "inc", "dec", "and", "or", "xor", "exch", "cas")


def _inc(old, b):  # ((old >= b) ? 0 : old + 1), unsigned
    return np.where(old >= b, old.dtype.type(0), old + old.dtype.type(1))


def _dec(old, b):  # ((old == 0) || (old > b)) ? b : old - 1, unsigned
    return np.where((old == 0) | (old > b), b, old - old.dtype.type(1))


def _float_min(old, b):
    return np.fmin(old, b)  # a NaN operand yields the other operand, as atom.min.f32 does


def _float_max(old, b):
    return np.fmax(old, b)


class Combiner:
    def __init__(self, op: str, fn, ufunc=None, guarded=None):
        self.op = op
        self.fn = fn  # (old, b[, c]) -> new
        self.ufunc = ufunc  # for the `ufunc.at` path
        # (ufunc, guard(values) -> bool): a `ufunc.at` path that is exact when the guard holds
        # for the operands and the old values, and the results come out finite
        self.guarded = guarded


def combiner(op: str, ptx_type: str) -> Combiner:
    is_float = ptx_type.startswith("f")
    if op == "add":
        return Combiner(op, np.add, np.add)
    if op in ("min", "max"):
        if is_float:
            return Combiner(op, _float_min if op == "min" else _float_max, np.fmin if op == "min" else np.fmax)
        u = np.minimum if op == "min" else np.maximum
        return Combiner(op, u, u)
    if op == "and":
        return Combiner(op, np.bitwise_and, np.bitwise_and)
    if op == "or":
        return Combiner(op, np.bitwise_or, np.bitwise_or)
    if op == "xor":
        return Combiner(op, np.bitwise_xor, np.bitwise_xor)
    if op == "inc":
        return Combiner(op, _inc)
    if op == "dec":
        return Combiner(op, _dec)
    if op == "exch":
        return Combiner(op, lambda old, b: b)
    if op == "cas":
        return Combiner(op, lambda old, b, c: np.where(old == b, c, old))
    raise ValueError(f"unknown atomic operation {op}")


def element_combiner(op: str, t: str, global_memory: bool = False) -> Combiner:
    """The per-element update of atom/red on element type `t` (raw bits for f16/bf16/x2 and b128
    pairs; float32/float64 views for f32/f64). On global memory (`global_memory`) the H200's
    float adds differ from the shared-memory ones: atom.add.f32 flushes subnormal inputs and
    results (ISA 9.7.13.5), and atom.add.f64 returns a NaN operand as it is, not quieted; on
    shared memory both round like add.f32 / add.f64 (docs/hardware-notes.md, "Atomics")."""
    if t == "f32" and op == "add":
        return Combiner(op, lambda old, b: ieee32.add(old.view(np.uint32), b.view(np.uint32),
                                                      ftz=global_memory).view(np.float32),
                        guarded=(np.add, _no_subnormal_sums if global_memory else _finite))
    if t == "f64" and op == "add":
        fn = _f64_add_global if global_memory else \
            (lambda old, b: ieee64.add(old.view(np.uint64), b.view(np.uint64)).view(np.float64))
        return Combiner(op, fn, guarded=(np.add, _finite))
    if t in HALF_TYPES:
        return _half_combiner(op, t)
    if t == "b128":
        return Combiner(op, _exch128 if op == "exch" else _cas128)
    return combiner(op, t)


HALF_TYPES = ("f16", "bf16", "f16x2", "bf16x2")
_TINY32 = np.float32(2.0 ** -100)


def _finite(v) -> bool:
    """NumPy's own add is the PTX one for finite operands with finite results (round to nearest)."""
    return bool(np.isfinite(v).all())


def _no_subnormal_sums(v) -> bool:
    """Finite, and zero or at least 2^-100 in magnitude: every partial sum is then zero or a
    multiple of at least 2^-123, never subnormal, so the flush to zero never applies."""
    a = np.abs(v)
    return bool(np.isfinite(a).all() and ((a == 0) | (a >= _TINY32)).all())


def _half_combiner(op: str, t: str) -> Combiner:
    from ...semantics import Spec, lane_function

    if op == "add":  # .noftz: subnormals kept, round to nearest even
        fn = lane_function(Spec("add", {"rnd": "rn"}, {"type": t}, ("rn", t)))
    elif op in ("min", "max"):
        fn = lane_function(Spec(op, {}, {"type": t}, (t,)))
    else:
        raise ValueError(f"atom.{op} does not take .{t}")
    return Combiner(op, lambda old, b: np.asarray(fn(old, b)).astype(old.dtype, copy=False))


_F64_EXP = np.uint64(0x7FF0000000000000)
_F64_FRAC = np.uint64(0x000FFFFFFFFFFFFF)


def _f64_nan(bits):
    return ((bits & _F64_EXP) == _F64_EXP) & ((bits & _F64_FRAC) != 0)


def _f64_add_global(old, b):
    """atom.add.f64 on global memory: a NaN operand comes back as it is (not quieted; the H200
    returns a signalling NaN unchanged, from either side), b's first."""
    with np.errstate(all="ignore"):
        s = old + b
    ob, bb = old.view(np.uint64), b.view(np.uint64)
    out = np.where(_f64_nan(bb), bb, np.where(_f64_nan(ob), ob, s.view(np.uint64)))
    return out.view(np.float64)


def _cas128(old, b, c):
    """Rows of (lo, hi) uint64 pairs: c where old equals b in both halves."""
    hit = np.all(old == b, axis=-1, keepdims=True)
    return np.where(hit, c, old)


def _exch128(old, b):
    return b


def apply128(words: np.ndarray, idx: np.ndarray, comb: Combiner, vals: list) -> np.ndarray:
    """atom.{cas,exch}.b128 on `words` (uint64), lane i on words[idx[i]], words[idx[i] + 1];
    vals are (n, 2) arrays. Returns the (n, 2) old values."""
    idx = idx.astype(np.intp)
    order, sidx, _, _, rank = _segments(idx)
    old = np.empty((idx.size, 2), np.uint64)
    svals = [v[order] for v in vals]
    by_rank = np.argsort(rank, kind="stable")
    pos = 0
    for c in np.bincount(rank):
        sel = by_rank[pos : pos + c]
        pos += c
        where = np.stack([sidx[sel], sidx[sel] + 1], axis=1)
        o = words[where]
        words[where] = comb.fn(o, *[v[sel] for v in svals])
        old[order[sel]] = o
    return old


def apply(view: np.ndarray, idx: np.ndarray, comb: Combiner, vals: list, need_old: bool):
    """Apply the atomic for every lane; returns each lane's old value when `need_old`."""
    idx = idx.astype(np.intp)
    if not need_old and comb.ufunc is not None:
        comb.ufunc.at(view, idx, vals[0])
        return None
    if not need_old and comb.guarded is not None and _guarded_at(view, idx, comb, vals[0]):
        return None
    if comb.op == "add" and comb.ufunc is np.add and view.dtype.kind in "ui":
        return _int_add(view, idx, vals[0])
    return _rounds(view, idx, comb, vals)


def _guarded_at(view, idx, comb, b) -> bool:
    """Float adds without results: NumPy's sequential `ufunc.at` (lane order, one rounding per
    update) where that is exactly the PTX result; False (memory untouched) where it might not be."""
    ufunc, guard = comb.guarded
    words = np.unique(idx)
    before = view[words]
    if not (guard(b) and guard(before)):
        return False
    with np.errstate(all="ignore"):
        ufunc.at(view, idx, b)
    if guard(view[words]):
        return True
    view[words] = before
    return False


def _segments(idx):
    order = np.argsort(idx, kind="stable")
    sorted_idx = idx[order]
    start = np.ones(idx.size, dtype=bool)
    start[1:] = sorted_idx[1:] != sorted_idx[:-1]
    seg_start = np.maximum.accumulate(np.where(start, np.arange(idx.size), 0))
    rank = np.arange(idx.size) - seg_start
    return order, sorted_idx, start, seg_start, rank


def _int_add(view, idx, b):
    order, sidx, start, seg_start, _ = _segments(idx)
    sb = b[order]
    incl = np.cumsum(sb, dtype=view.dtype)  # wraps modulo 2^n, which is what we want
    before_seg = np.where(seg_start > 0, incl[seg_start - 1], view.dtype.type(0))
    excl = incl - sb - before_seg  # sum of earlier lanes on the same address
    base = view[sidx]
    old = np.empty_like(sb)
    old[order] = base + excl
    ends = np.flatnonzero(np.append(start[1:], True))
    view[sidx[ends]] = base[ends] + (incl[ends] - before_seg[ends])
    return old


def _rounds(view, idx, comb, vals):
    order, sidx, _, _, rank = _segments(idx)
    old = np.empty(idx.size, dtype=view.dtype)
    svals = [v[order] for v in vals]
    by_rank = np.argsort(rank, kind="stable")
    counts = np.bincount(rank)
    pos = 0
    for c in counts:
        sel = by_rank[pos : pos + c]  # one lane per distinct address
        pos += c
        where = sidx[sel]
        o = view[where]
        view[where] = comb.fn(o, *[v[sel] for v in svals])
        old[order[sel]] = o
    return old
