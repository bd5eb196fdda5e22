"""The machine accesses behind the warp-matrix memory instructions, for the event trace.

A `wmma.load` / `wmma.store` is not one memory access on the GPU: ptxas turns it into several
loads or stores of a few bytes per lane, and for a tile in shared memory often into LDSM
(ldmatrix). `wmma_plan` says which, from the fragment layout (semantics/families/matrix.py), as
ptxas 13.0 does for sm_90a (cuobjdump -sass; tests/timing/test_wmma_trace.py keeps the table of
what it emitted for every form):

* a lane's registers whose elements lie next to each other in memory (same row of a row-major
  tile, consecutive columns) are loaded together: one access per run of such registers, at most
  16 bytes (f16 A row-major: 4 LDG.32; f32 C row-major: 4 LDG.64; f64 C row-major: 1 LDG.128);
* 16-bit elements in the other layout (f16 A column-major, B row-major, C/D column-major) are
  loaded as if the tile were transposed, a 4-byte pair of memory neighbours per lane and register,
  and put in place by a MOVM per register (4 LDG.32 + 4 MOVM);
* other elements that are not memory neighbours are one access each (s8 A column-major: 8 LDG.U8;
  f32 C column-major: 8 LDG.32);
* from shared memory, 16-bit A/B tiles and 8-bit A/B tiles in their natural layout are LDSM:
  one 8x8 matrix of 16-byte rows per register, up to 4 matrices (.x4) per LDSM for 16-bit
  elements and 2 for 8-bit ones; each matrix's 8 row addresses come from 8 lanes;
* replicated registers (the 8-register f16 A/B fragments hold their 4 registers twice) are not
  loaded again; stores are never STSM.

`MatrixRefs` is what the lowering attaches to such an Op (`Op.matrix`); `parts(ctx, base,
stride)` turns the warp's base addresses and stride into the per-access lane addresses.
ldmatrix / stmatrix are one LDSM / STSM: 16 bytes per lane from the 8 x num lanes that supply
row addresses.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Optional

import numpy as np

from ...semantics.families import matrix as L


@dataclass(frozen=True)
class Access:
    """One machine load or store of a warp-matrix instruction. `elems`: [32, n] element indices
    (into the fragment's [32, elems] arrays) whose memory position gives each lane's address
    (the first) — for LDSM, the rows: lane i reads 16 bytes at row i's start; `size` bytes per
    lane; `lanes` the lanes that take part (a 32-bit mask)."""

    elems: tuple  # per lane: the fragment element (lane, index) whose address the lane uses
    size: int
    lanes: int = 0xFFFFFFFF


@dataclass(frozen=True)
class MatrixPlan:
    accesses: tuple  # of Access, in issue order
    movm: int = 0  # MOVM.16.MT88 instructions (one per transposed register)
    ldsm: bool = False  # LDSM / STSM (ldmatrix, stmatrix): 8-lane groups of 16-byte rows

    @property
    def instructions(self) -> int:
        """Machine instructions: the memory accesses and the MOVMs."""
        return len(self.accesses) + self.movm


def _distinct_registers(frag: L.Fragment) -> int:
    """Registers before the fragment repeats itself (8-register f16 A/B fragments: 4)."""
    per = frag.per_reg
    for d in range(1, frag.nregs + 1):
        if frag.nregs % d:
            continue
        r, c = frag.row.reshape(32, -1, d * per), frag.col.reshape(32, -1, d * per)
        if (r == r[:, :1]).all() and (c == c[:, :1]).all():
            return d
    return frag.nregs


def _major_minor(frag: L.Fragment, layout: str):
    """(major, minor) memory coordinates of every element: row-major tiles run along columns."""
    return (frag.row, frag.col) if layout == "row" else (frag.col, frag.row)


def _natural(major, minor, per: int, j: int) -> bool:
    """Register j's elements follow each other in memory in every lane."""
    e = np.arange(j * per, (j + 1) * per)
    return bool((major[:, e] == major[:, e[:1]]).all() and (minor[:, e] == minor[:, e[:1]] + np.arange(per)).all())


@lru_cache(maxsize=None)
def wmma_plan(shape: str, which: str, t: str, layout: str, space: str, store: bool = False) -> MatrixPlan:
    """The machine accesses of wmma.load.{which} / wmma.store.d (which "d") of this form; space is
    "global", "shared" or "generic"."""
    frag = L.wmma_fragment(shape, which, t, layout)
    per, bits = frag.per_reg, frag.bits
    major, minor = _major_minor(frag, layout)
    regs = _distinct_registers(frag)
    natural = [_natural(major, minor, per, j) for j in range(regs)]
    reg_bytes = frag.reg_bits // 8
    lanes = np.arange(32)
    if all(natural) and space == "shared" and not store and which in "ab" and bits in (8, 16) and reg_bytes == 4:
        return MatrixPlan(_ldsm_accesses(frag, major, minor, regs, 4 if bits == 16 else 2), ldsm=True)
    if all(natural):
        out = []
        j = 0
        while j < regs:  # runs of registers that continue each other, up to 16 bytes
            k = j + 1
            while (k < regs and (k - j + 1) * reg_bytes <= 16 and ((k - j + 1) & (k - j)) == 0
                   and _follows(major, minor, per, k - 1, k)
                   and (minor[:, j * per] * bits // 8 % ((k - j + 1) * reg_bytes) == 0).all()):
                k += 1
            out.append(Access(tuple((lanes * frag.elems + j * per).tolist()), (k - j) * reg_bytes))
            j = k
        return MatrixPlan(tuple(out))
    if bits == 16:
        if space == "shared" and not store and which in "ab":  # LDSM.MT88: the transposed rows
            return MatrixPlan(_ldsm_accesses(frag, major, minor, regs, 4), ldsm=True)
        return MatrixPlan(tuple(_pair_access(frag, major, minor, j) for j in range(regs)), movm=regs)
    size = max(1, bits // 8)
    return MatrixPlan(tuple(Access(tuple((lanes * frag.elems + e).tolist()), size) for e in range(regs * per)))


def _follows(major, minor, per: int, j: int, k: int) -> bool:
    last, first = j * per + per - 1, k * per
    return bool((major[:, first] == major[:, last]).all() and (minor[:, first] == minor[:, last] + 1).all())


def _sorted_runs(frag: L.Fragment, major, minor, regs: list[int], run: int) -> np.ndarray:
    """The elements of registers `regs` of all lanes in memory order, cut into runs of `run`
    memory neighbours: [runs] flat element indices (lane * elems + e) of each run's first."""
    per = frag.per_reg
    e = np.concatenate([np.arange(j * per, (j + 1) * per) for j in regs])
    flat = (np.arange(32)[:, None] * frag.elems + e[None, :]).ravel()
    ma, mi = major[:, e].ravel(), minor[:, e].ravel()
    order = np.lexsort((mi, ma))
    flat, ma, mi = flat[order], ma[order], mi[order]
    first = flat[::run]
    if not ((ma.reshape(-1, run) == ma.reshape(-1, run)[:, :1]).all()
            and (mi.reshape(-1, run) == mi.reshape(-1, run)[:, :1] + np.arange(run)).all()):
        raise ValueError("fragment elements do not form runs of memory neighbours")
    return first


def _pair_access(frag: L.Fragment, major, minor, j: int) -> Access:
    """Register j loaded transposed: lane i takes the i-th pair of memory neighbours (then MOVM)."""
    return Access(tuple(_sorted_runs(frag, major, minor, [j], 2).tolist()), 4)


def _ldsm_accesses(frag: L.Fragment, major, minor, regs: int, most: int) -> tuple:
    """LDSM: per register one 8x8 matrix of 16-byte rows; lane 8m + i gives row i of matrix m."""
    run = 16 * 8 // frag.bits
    out = []
    for j0 in range(0, regs, most):
        js = list(range(j0, min(regs, j0 + most)))
        rows = np.concatenate([_sorted_runs(frag, major, minor, [j], run) for j in js])
        n = rows.size
        elems = np.concatenate([rows, np.full(32 - n, rows[0])])
        out.append(Access(tuple(elems.tolist()), 16, (1 << n) - 1 if n < 32 else 0xFFFFFFFF))
    return tuple(out)


def ldmatrix_plan(num: int) -> MatrixPlan:
    """ldmatrix / stmatrix .x{num}: one LDSM / STSM, 16 bytes from each of the first 8 x num lanes."""
    n = 8 * num
    return MatrixPlan((Access(tuple(range(32)), 16, (1 << n) - 1 if n < 32 else 0xFFFFFFFF),), ldsm=True)


@dataclass(frozen=True)
class MatrixRefs:
    """What a warp-matrix memory instruction addresses (the lowered Op's `matrix`), read by the
    event trace only. `base(ctx, lanes)` reads the address operand (in `space`: "global",
    "shared", or None for generic); `stride(ctx, lanes)` the stride operand (None: the default
    `default_stride`); `frag` and `layout` give the elements' places (None for ldmatrix /
    stmatrix, whose lanes give their own row addresses)."""

    plan: MatrixPlan
    base: Callable
    space: Optional[str]
    load: bool
    frag: Optional[L.Fragment] = None
    layout: str = "row"
    stride: Optional[Callable] = None
    default_stride: int = 0

    def parts(self, base: np.ndarray, stride: np.ndarray) -> list:
        """Per access: ((warps, 32) uint64 addresses, bytes per lane, lane mask). `base` is the
        (warps, 32) address operand of each lane, `stride` (warps,) the warp's stride (lane 0's)."""
        out = []
        if self.frag is None:  # ldmatrix / stmatrix: each lane's own row address
            for a in self.plan.accesses:
                out.append((base, a.size, a.lanes))
            return out
        f = self.frag
        s = stride.astype(np.int64)[:, None]
        for a in self.plan.accesses:
            idx = np.asarray(a.elems, np.int64)
            lane, e = idx // f.elems, idx % f.elems
            r, c = f.row[lane, e][None, :], f.col[lane, e][None, :]
            pos = r * s + c if self.layout == "row" else c * s + r  # element index in memory
            byte = (pos * f.bits) // 8
            addr = base[:, :1] + byte.astype(np.uint64)  # the warp's address (lane 0's, as the ISA requires it uniform)
            out.append((addr, a.size, a.lanes))
        return out
