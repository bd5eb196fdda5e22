"""Fragment layouts of the warp-level matrix instructions (ISA 9.7.14.5, 9.7.14.4 for wmma).

A fragment is a matrix spread over the 32 lanes of a warp: lane l's register file holds
`nregs` registers of `reg_bits` bits, each packing `reg_bits // bits` elements (element j of a
register sits in bits [j*bits, (j+1)*bits), lowest first, as the ISA's a0, a1, ... numbering
reads). Element e of lane l (e = register * per_reg + j) is entry (row[l, e], col[l, e]) of
matrix group[l, e]; group is 0 except for mma.m8n8k4 with .f16, where the warp computes four
independent products, one per quad-pair (lanes 4i..4i+3 and 4i+16..4i+19).

The mma layouts are the ISA's figures ("Matrix fragments for mma.m16n8k16" etc.) written as
formulas; every figure of the m16n8kK and m8n8kK families is one rule in the element width
(16 rows = two 8-row halves, K in chunks of 4 registers' worth), which is what `_a`/`_b`/`_cd`
say. wmma's layout is unspecified by the ISA; on sm_90 the hardware uses the mma layouts of the
instructions wmma is built from (see docs/notes/matrix-numerics.md for what was measured).

Pure data: no engine, no arithmetic.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "f64": 64, "s32": 32, "s8": 8, "u8": 8, "s4": 4, "u4": 4,
        "b1": 1, "e4m3": 8, "e5m2": 8, "b16": 16, "b8": 8}


@dataclass(frozen=True, eq=False)
class Fragment:
    """Where each element of each lane lives in the matrix (arrays of shape [32, elems])."""

    rows: int
    cols: int
    bits: int        # element width
    nregs: int       # registers per lane
    reg_bits: int    # 32, or 64 for .f64 fragments
    group: np.ndarray
    row: np.ndarray
    col: np.ndarray
    groups: int = 1

    @property
    def per_reg(self) -> int:
        return self.reg_bits // self.bits

    @property
    def elems(self) -> int:
        return self.nregs * self.per_reg

    def flat(self) -> np.ndarray:
        """[32, elems] index into a flattened [groups, rows, cols] matrix."""
        return (self.group * self.rows + self.row) * self.cols + self.col

    def owners(self) -> np.ndarray:
        """For each matrix entry (flattened [groups, rows, cols]), the (lane * elems + e) that
        holds it. When several hold one entry (wmma's replicated operands) the first in lane
        order is taken."""
        flat = self.flat().ravel()
        n = self.groups * self.rows * self.cols
        owner = np.full(n, -1, np.int64)
        order = np.arange(flat.size)
        owner[flat[::-1]] = order[::-1]  # the last assignment wins: reversed, so the first holder
        if (owner < 0).any():
            raise ValueError("fragment layout leaves matrix entries unheld")
        return owner


def _frag(rows, cols, bits, nregs, reg_bits, fn, groups=1) -> Fragment:
    per = reg_bits // bits
    lane = np.arange(32)[:, None]
    e = np.arange(nregs * per)[None, :]
    g, r, c = fn(lane, e)
    shape = (32, nregs * per)
    g, r, c = (np.broadcast_to(np.asarray(x, np.int64), shape).copy() for x in (g, r, c))
    return Fragment(rows, cols, bits, nregs, reg_bits, g, r, c, groups)


def _per(bits: int) -> int:
    return 1 if bits == 64 else 32 // bits


def _a(m: int, k: int, bits: int) -> Fragment:
    """A (m x k, row-major .row): register r holds `per` consecutive k of row g (+8 for odd r
    when m is 16); register pairs advance k by 4*per."""
    per = _per(bits)
    halves = 2 if m == 16 else 1
    nregs = m * k // (32 * per)

    def fn(lane, e):
        g, t = lane >> 2, lane & 3
        r, j = e // per, e % per
        row = g + 8 * (r % halves)
        col = t * per + j + 4 * per * (r // halves)
        return 0, row, col

    return _frag(m, k, bits, nregs, 64 if bits == 64 else 32, fn)


def _b(k: int, n: int, bits: int) -> Fragment:
    """B (k x n, column-major .col): register r holds `per` consecutive k of column g."""
    per = _per(bits)
    nregs = k * n // (32 * per)

    def fn(lane, e):
        g, t = lane >> 2, lane & 3
        r, j = e // per, e % per
        return 0, t * per + j + 4 * per * r, g

    return _frag(k, n, bits, nregs, 64 if bits == 64 else 32, fn)


def _cd(m: int, n: int, bits: int) -> Fragment:
    """C/D (m x n): element i of lane (g, t) is (g + 8*(i >> 1), 2t + (i & 1))."""
    per = _per(bits)
    nelem = m * n // 32
    nregs = nelem // per

    def fn(lane, e):
        g, t = lane >> 2, lane & 3
        return 0, g + 8 * (e >> 1), 2 * t + (e & 1)

    return _frag(m, n, bits, nregs, 64 if bits == 64 else 32, fn)


# ---------------------------------------------------------------------- mma.m8n8k4 (.f16)
# Four products per warp, one per quad-pair: lanes 4i..4i+3 ("low") and 4i+16..4i+19 ("high").

def _qp(lane):
    return (lane >> 2) & 3, lane & 3, (lane >= 16).astype(np.int64) if isinstance(lane, np.ndarray) else int(lane >= 16)


def _m884_a(layout: str) -> Fragment:
    def fn(lane, e):
        q, t, h = _qp(lane)
        if layout == "row":
            return q, t + 4 * h, e
        return q, e + 4 * h, t

    return _frag(8, 4, 16, 2, 32, fn, groups=4)


def _m884_b(layout: str) -> Fragment:
    def fn(lane, e):
        q, t, h = _qp(lane)
        if layout == "col":
            return q, e, t + 4 * h
        return q, t, e + 4 * h

    return _frag(4, 8, 16, 2, 32, fn, groups=4)


def _m884_cd(bits: int) -> Fragment:
    if bits == 16:
        def fn(lane, e):
            q, t, h = _qp(lane)
            return q, t + 4 * h, e

        return _frag(8, 8, 16, 4, 32, fn, groups=4)

    def fn32(lane, e):
        q, t, h = _qp(lane)
        row = (lane & 1) + (e & 2) + 4 * h
        col = (e & 4) + (lane & 2) + (e & 1)
        return q, row, col

    return _frag(8, 8, 32, 8, 32, fn32, groups=4)


def parse_shape(shape: str) -> tuple[int, int, int]:
    m = shape.index("m"), shape.index("n"), shape.index("k")
    return int(shape[m[0] + 1:m[1]]), int(shape[m[1] + 1:m[2]]), int(shape[m[2] + 1:])


@lru_cache(maxsize=None)
def mma_fragments(shape: str, atype: str, btype: str, ctype: str, dtype: str, alayout: str = "row",
                  blayout: str = "col") -> tuple[Fragment, Fragment, Fragment, Fragment]:
    """(A, B, C, D) fragments of mma.sync.aligned.<shape>.<alayout>.<blayout>.<types>."""
    M, N, K = parse_shape(shape)
    if shape == "m8n8k4" and atype == "f16":
        return _m884_a(alayout), _m884_b(blayout), _m884_cd(BITS[ctype]), _m884_cd(BITS[dtype])
    if (alayout, blayout) != ("row", "col"):
        raise ValueError(f"mma.{shape} takes .row.col layouts only")
    return _a(M, K, BITS[atype]), _b(K, N, BITS[btype]), _cd(M, N, BITS[ctype]), _cd(M, N, BITS[dtype])


# ---------------------------------------------------------------------- ldmatrix / movmatrix

@lru_cache(maxsize=None)
def ldmatrix_fragment(trans: bool = False) -> Fragment:
    """One 8x8 .b16 matrix in one register per lane: lane l holds row l//4, columns 2(l%4) and
    2(l%4)+1 (ISA figure "ldmatrix fragment"); with .trans, column l//4 of rows 2(l%4), +1."""
    def fn(lane, e):
        g, t = lane >> 2, lane & 3
        if trans:
            return 0, 2 * t + e, g
        return 0, g, 2 * t + e

    return _frag(8, 8, 16, 1, 32, fn)


# ------------------------------------------------------------------------------------- wmma
# wmma.mma runs as mma instructions on tiles of the wmma shape; a wmma fragment is the tiles'
# mma fragments one after another (tile order: rows, then columns), repeated when the wmma
# fragment has more registers than its tiles need (the .f16 A/B fragments of 8 registers).
# m8n32k16 runs transposed, as the m32n8k16 product D^T = B^T A^T + C^T. Measured on an H200
# with index-coded loads (tests/goldens/matrix).

WMMA_TILE = {  # element type -> mma tile (m, n, k) the hardware runs
    "f16": (16, 8, 16), "bf16": (16, 8, 16), "tf32": (16, 8, 8), "s8": (16, 8, 16), "u8": (16, 8, 16),
    "f64": (8, 8, 4), "s4": (8, 8, 32), "u4": (8, 8, 32), "b1": (8, 8, 128),
}
def _wmma_regs(shape: str, which: str, t: str) -> int:
    m, n, k = parse_shape(shape)
    bits = BITS[t]
    if t == "f16" and which in "ab":
        return 8
    elems = {"a": m * k, "b": k * n, "c": m * n, "d": m * n}[which]
    reg = 64 if bits == 64 else 32
    return max(1, elems * bits // (32 * reg))


@lru_cache(maxsize=None)
def wmma_fragment(shape: str, which: str, t: str, layout: str = "row", itype: str | None = None) -> Fragment:
    """The sm_90 layout of a wmma fragment (`which` in a, b, c, d; t its element type; itype the
    multiplicand type for c/d fragments, which picks the tile)."""
    if shape == "m8n32k16":
        # run transposed: D^T (32x8) = B^T A^T + C^T as an m32n8k16 product
        f = wmma_fragment("m32n8k16", {"a": "b", "b": "a"}.get(which, which), t, layout, itype)
        return Fragment(f.cols, f.rows, f.bits, f.nregs, f.reg_bits, f.group, f.col, f.row)
    M, N, K = parse_shape(shape)
    tile_t = itype or t
    if which in "cd" and itype is None:
        tile_t = {"f32": "f16", "f16": "f16", "s32": "s8", "f64": "f64"}[t]
    tm, tn, tk = WMMA_TILE[tile_t]
    tm = min(tm, M)
    rows, cols = {"a": (M, K), "b": (K, N), "c": (M, N), "d": (M, N)}[which]
    if which == "a":
        tiles = [(i * tm, j * tk) for i in range(M // tm) for j in range(K // tk)]
        base = _a(tm, tk, BITS[t])
    elif which == "b":
        tiles = [(i * tk, j * tn) for i in range(K // tk) for j in range(N // tn)]
        base = _b(tk, tn, BITS[t])
    else:
        tiles = [(i * tm, j * tn) for i in range(M // tm) for j in range(N // tn)]
        base = _cd(tm, tn, BITS[t])
    g = np.concatenate([np.zeros_like(base.row)] * len(tiles), axis=1)
    r = np.concatenate([base.row + r0 for r0, c0 in tiles], axis=1)
    c = np.concatenate([base.col + c0 for r0, c0 in tiles], axis=1)
    nregs = _wmma_regs(shape, which, t)
    have = base.nregs * len(tiles)
    if nregs % have:
        raise ValueError(f"wmma {shape} {which} {t}: {nregs} registers do not tile")
    rep = nregs // have
    g, r, c = (np.tile(x, (1, rep)) for x in (g, r, c))
    return Fragment(rows, cols, BITS[t], nregs, base.reg_bits, g, r, c)


# ------------------------------------------------------------------------------------ mma.sp
# A is stored compressed: its M x K/2 kept elements sit in the dense A fragment of an M x K/2
# matrix. Each row of the dense A splits into metadata groups (4 elements of 8 or 16 bits, 2 tf32
# elements, 8 int4 elements); a group keeps half of its elements and one 4-bit nibble names them:
# two 2-bit indices, the first for the group's first kept element(s). tf32 indices count 16-bit
# halves (0b0100: element 0, 0b1110: element 1); int4 indices count pairs of elements (4:8).
# Nibble G of row g (+8 for the lower half) is in lane 4g + sel * T + G // 4 at bit 4 (G % 4)
# (+16 for rows 8..15), T = the number of lanes per quad that hold metadata (1, 2 or 4; the
# sparsity selector sel picks which).

SP_GROUP = {16: 4, 8: 4, 32: 2, 4: 8}  # element bits -> elements per metadata group


@dataclass(frozen=True)
class SparseMeta:
    """How the metadata of one mma.sp form is laid out."""

    rows: int
    k: int
    group: int      # dense elements per metadata group
    kept: int       # compressed elements per group (group // 2)
    nibbles: int    # metadata nibbles per row
    threads: int    # lanes per quad that hold metadata (the selector range is 4 // threads)
    pair: int       # dense elements named by one index (2 for int4, else 1); tf32 uses halves
    row_words: bool = False  # 8- and 4-bit types: each lane's register holds one row's nibbles

    @property
    def selectors(self) -> int:
        return 4 // self.threads


@lru_cache(maxsize=None)
def sparse_meta(shape: str, atype: str) -> SparseMeta:
    M, N, K = parse_shape(shape)
    bits = BITS[atype]
    group = SP_GROUP[bits]
    nib = K // group
    return SparseMeta(M, K, group, group // 2, nib, nib // 4, 2 if bits == 4 else 1, bits <= 8)


def sparse_nibble_positions(meta: SparseMeta, sel: int) -> tuple[np.ndarray, np.ndarray]:
    """(lane, bit) of the nibble of each (row, group): arrays [M, nibbles]."""
    r = np.arange(meta.rows)[:, None]
    G = np.arange(meta.nibbles)[None, :]
    if meta.row_words:
        lane = 4 * (r % 8) + sel * meta.threads + 2 * (G // 8) + r // 8
        bit = 4 * (G % 8) + 0 * r
    else:
        lane = 4 * (r % 8) + sel * meta.threads + G // 4
        bit = 4 * (G % 4) + 16 * (r // 8)
    return np.broadcast_to(lane, (meta.rows, meta.nibbles)), np.broadcast_to(bit, (meta.rows, meta.nibbles))


def sparse_nibbles(e: np.ndarray, meta: SparseMeta, sel: int) -> np.ndarray:
    """Metadata registers [W, 32] -> nibbles [W, M, nibbles]."""
    lane, bit = sparse_nibble_positions(meta, sel)
    return ((e[:, lane].astype(np.uint64) >> bit.astype(np.uint64)) & np.uint64(15)).astype(np.int64)


def sparse_columns(nib: np.ndarray, meta: SparseMeta, bits: int) -> np.ndarray:
    """Nibbles [W, M, groups] -> the dense k of every compressed element [W, M, K/2]."""
    j = np.arange(meta.k // 2)
    G = j // meta.kept
    w = j % meta.kept
    n = nib[..., G]
    if bits == 32:  # tf32: one kept element, the index counts 16-bit halves
        return meta.group * G + ((n & 3) >> 1)
    which = w // meta.pair
    idx = (n >> (2 * which)) & 3
    return meta.group * G + meta.pair * idx + w % meta.pair


def sparse_b_operand(b: np.ndarray, nib: np.ndarray, meta: SparseMeta, bits: int) -> np.ndarray:
    """The B element each kept A element multiplies: [W, K, N] -> [W, M, K/2, N]. For 8/16-bit and
    int4 types the row of B its index names. tf32 (measured, tests/goldens/matrix/matrix_sp_probe):
    the hardware selects 16-bit halves; a group's two B elements are four halves, and the kept
    element multiplies the value whose low half is half idx0 and whose high half is half idx1
    (0b0100 and 0b1110 give element 0 and 1; other nibbles mix halves of the two)."""
    W = b.shape[0]
    if bits != 32:
        cols = sparse_columns(nib, meta, bits)
        return b[np.arange(W)[:, None, None], cols]
    K, N = b.shape[1], b.shape[2]
    halves = np.stack([b & 0xFFFF, b >> 16], axis=2).reshape(W, K // 2, 4, N)
    w = np.arange(W)[:, None, None]
    g = np.arange(meta.nibbles)[None, None, :]
    lo = halves[w, g, nib & 3]
    hi = halves[w, g, (nib >> 2) & 3]
    return (lo | (hi << 16)).astype(b.dtype)


def sparse_encode(cols: np.ndarray, meta: SparseMeta, bits: int) -> np.ndarray:
    """The inverse for well-formed patterns: kept positions within each group [W, M, groups, 2]
    (index units: elements, halves' pairs for tf32 as element 0/1, pairs for int4) -> nibbles."""
    if bits == 32:
        return np.where(cols[..., 0] == 0, 0b0100, 0b1110)
    return cols[..., 0] | (cols[..., 1] << 2)


def sparse_registers(nib: np.ndarray, meta: SparseMeta, sel: int, fill: np.ndarray | None = None) -> np.ndarray:
    """Nibbles [W, M, groups] -> metadata registers [W, 32] (other lanes' bits from `fill`)."""
    W = nib.shape[0]
    e = np.zeros((W, 32), np.uint64) if fill is None else fill.astype(np.uint64).copy()
    lane, bit = sparse_nibble_positions(meta, sel)
    mask = np.zeros((W, 32), np.uint64)
    vals = np.zeros((W, 32), np.uint64)
    for r in range(meta.rows):
        for G in range(meta.nibbles):
            l, b = lane[r, G], np.uint64(bit[r, G])
            mask[:, l] |= np.uint64(15) << b
            vals[:, l] |= nib[:, r, G].astype(np.uint64) << b
    return ((e & ~mask) | vals).astype(np.uint32)


@lru_cache(maxsize=None)
def mma_sp_fragments(shape: str, atype: str, btype: str, ctype: str, dtype: str):
    """(A compressed, B, C, D) fragments of mma.sp: A is the dense A fragment of M x K/2."""
    M, N, K = parse_shape(shape)
    return _a(M, K // 2, BITS[atype]), _b(K, N, BITS[btype]), _cd(M, N, BITS[ctype]), _cd(M, N, BITS[dtype])
