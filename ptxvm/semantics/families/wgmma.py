"""Warpgroup MMA (wgmma, ISA 9.7.15): the shared-memory matrix descriptor and where each matrix
element lives, and the register fragments of A and D. Pure data: no engine, no arithmetic.

Descriptor (64 bits): start address >> 4 in bits 0-13, leading-dimension byte offset >> 4 in
16-29, stride-dimension byte offset >> 4 in 32-45, base offset in 49-51, swizzle mode in 62-63
(0 none, 1 128B, 2 64B, 3 32B).

Measured on an H200 (tools/device/wgmma_probe.py, docs/notes/matrix-numerics.md):

* K-major operand (A or B without transpose: rows of the M or N dimension, K contiguous):
  8-row groups SBO bytes apart. Without swizzling a group holds core matrices of 8 rows x 16
  bytes (rows 16 bytes apart), LBO bytes apart along K; with a swizzle of W bytes a group is an
  atom of 8 rows of W bytes (LBO unused: one instruction's K fits in the atom).
* MN-major operand (imm-trans = 1): the same with the dimensions exchanged, 8 k-rows of 16 (or
  W) bytes along M/N, but the offsets differ by mode: without swizzling LBO steps along K (8-row
  groups) and SBO along M/N (16-byte chunks); with a swizzle, LBO steps along M/N (W-byte atoms)
  and SBO along K.
* Swizzling exchanges 16-byte chunks within each W-byte row: address bits 4.. XOR bits 7.. (as
  many bits as W/16 needs) of the address the element would have unswizzled, the row phase
  counted from the base offset: ((address >> 7) - base offset) mod 8 for 128B.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SWIZZLE_BYTES = {0: 0, 1: 128, 2: 64, 3: 32}


@dataclass(frozen=True)
class Descriptor:
    start: int   # bytes
    lbo: int     # bytes
    sbo: int     # bytes
    base_offset: int
    swizzle: int  # 0 none, 1 128B, 2 64B, 3 32B

    @staticmethod
    def decode(bits: int) -> "Descriptor":
        b = int(bits)
        return Descriptor(((b >> 0) & 0x3FFF) << 4, ((b >> 16) & 0x3FFF) << 4, ((b >> 32) & 0x3FFF) << 4,
                          (b >> 49) & 7, (b >> 62) & 3)

    def encode(self) -> int:
        return (((self.start >> 4) & 0x3FFF) | (((self.lbo >> 4) & 0x3FFF) << 16) |
                (((self.sbo >> 4) & 0x3FFF) << 32) | ((self.base_offset & 7) << 49) | ((self.swizzle & 3) << 62))


def swizzle_address(addr: np.ndarray, swizzle: int, base_offset: int = 0) -> np.ndarray:
    """Apply the swizzle pattern to byte addresses (absolute shared-memory addresses)."""
    w = SWIZZLE_BYTES[swizzle]
    if w == 0:
        return addr
    nbits = {128: 3, 64: 2, 32: 1}[w]
    mask = (1 << nbits) - 1
    row = ((addr >> 7) - base_offset) & mask
    return addr ^ (row << 4)


def element_offsets(rows: int, k: int, elem_bits: int, desc: Descriptor, mn_major: bool) -> np.ndarray:
    """[rows, k] byte address (start included, swizzle applied) of element (r, k) of an operand
    with `rows` in the M (or N) dimension; for sub-byte elements the byte holding it."""
    r = np.arange(rows)[:, None]
    kk = np.arange(k)[None, :]
    w = SWIZZLE_BYTES[desc.swizzle]
    if not mn_major:
        row, colb, rows_per = r, kk * elem_bits // 8, 8
        lead, stride = desc.lbo, desc.sbo
    else:
        row, colb = kk, r * elem_bits // 8
        lead, stride = desc.lbo, desc.sbo
    if w == 0 and mn_major:  # measured: LBO steps along K (8-row groups), SBO along M/N (16-byte chunks)
        off = (row // 8) * lead + (colb // 16) * stride + (row % 8) * 16 + colb % 16
    elif w == 0:
        off = (row // 8) * stride + (colb // 16) * lead + (row % 8) * 16 + colb % 16
    else:
        off = (row // 8) * stride + (colb // w) * lead + (row % 8) * w + colb % w
    addr = desc.start + off
    return swizzle_address(np.asarray(addr, np.int64), desc.swizzle, desc.base_offset)


# ------------------------------------------------------------------------------ register fragments

def a_fragment_positions(k: int, elem_bits: int):
    """A in registers: (row [128, E], col [128, E]) of element e of thread t of the warpgroup;
    warp w holds rows 16w..16w+15 in the mma.m16n8kK A layout."""
    per = 32 // elem_bits
    nregs = 16 * k // (32 * per)
    t = np.arange(128)[:, None]
    e = np.arange(nregs * per)[None, :]
    w, lane = t // 32, t % 32
    g, q = lane >> 2, lane & 3
    r, j = e // per, e % per
    row = 16 * w + g + 8 * (r % 2)
    col = q * per + j + 4 * per * (r // 2)
    return np.broadcast_to(row, (128, nregs * per)), np.broadcast_to(col, (128, nregs * per))


def d_fragment_positions(n: int):
    """D: (row [128, N/2], col [128, N/2]) of accumulator element i of thread t."""
    t = np.arange(128)[:, None]
    i = np.arange(n // 2)[None, :]
    w, lane = t // 32, t % 32
    g, q = lane >> 2, lane & 3
    row = 16 * w + g + 8 * ((i >> 1) & 1)
    col = 8 * (i >> 2) + 2 * q + (i & 1)
    return np.broadcast_to(row, (128, n // 2)), np.broadcast_to(col, (128, n // 2))


# ------------------------------------------------------------------------------ sparse A (.sp)

def sparse_meta(k: int, atype: str):
    """The metadata layout of wgmma.mma_async.sp with dense K `k`: each warp of the warpgroup
    holds the metadata of its 16 rows of A as mma.sp.m16n8k<k> does (model; the ISA names the
    sparsity selector's threads per quad the same way)."""
    from . import matrix as L
    return L.sparse_meta(f"m16n8k{k}", atype)


def sparse_nibbles(e: np.ndarray, meta, sel: int) -> np.ndarray:
    """Metadata registers of the warpgroup [G, 128] -> nibbles [G, 64, groups] (warp w: rows
    16w..16w+15)."""
    from . import matrix as L
    G = e.shape[0]
    nib = L.sparse_nibbles(e.reshape(G * 4, 32), meta, sel)        # [G*4, 16, groups]
    return nib.reshape(G, 64, nib.shape[-1])
