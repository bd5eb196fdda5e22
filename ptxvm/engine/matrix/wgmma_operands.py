"""Moving wgmma.mma_async operands between the machine and the matrices the numerics take.

Three movements, each a few whole-array NumPy operations per instruction (for every ready
warpgroup at once), with no per-element Python and no temporaries wider than the elements:

* A and B from shared memory through matrix descriptors (`shared_matrices`): the byte address of
  every element depends only on the descriptor value and the operand's shape, so it is computed
  once per descriptor and cached; the elements are then one gather from the shared-memory bytes
  viewed in the element's storage dtype. `shared_matrices_bytewise` is the reference (and the
  path for sub-byte elements and faulting reads): it assembles each element byte by byte.
* the accumulator D between its registers and the [64, N] matrix (`DFragment`): the registers of
  the ready threads are copied as [registers, threads] rows (one slice copy per register when
  the warpgroups are contiguous slots, as they are when all of a launch's warpgroups issue
  together), and one gather through a cached index turns them into the matrix, or the matrix
  into them. `DFragment.reference_*` are the direct formulas (ptxvm.semantics.families.wgmma's
  fragment positions) the fast index is checked against (tests/engine/test_wgmma_operands.py).
"""
from __future__ import annotations

import numpy as np

from ...semantics.families import wgmma as G
from ...syntax import ast
from ..core.machine import Fault
from ..core.memory import AccessFault

_UINT = {b: np.dtype(f"u{b // 8}") for b in (8, 16, 32, 64)}


def storage_dtype(bits: int) -> np.dtype:
    """The unsigned dtype that holds one element of `bits` (sub-byte elements: a byte)."""
    return _UINT[max(8, bits)]


# ------------------------------------------------------------------------------ shared memory

_OFFSETS: dict = {}     # (descriptor, rows, k, bits, mn_major) -> (element index in the dtype view, max byte address)
_OFFSETS_MAX = 4096     # distinct descriptors kept (a pipelined kernel cycles through a handful)


def _descriptor_offsets(d: int, rows: int, k: int, bits: int, mn_major: bool):
    """(element index [rows * k] into shared memory viewed in the element dtype, largest byte
    address) of the operand read through descriptor d, or None when an element is not aligned
    to its size (then the byte-wise path reads it)."""
    key = (d, rows, k, bits, mn_major)
    hit = _OFFSETS.get(key)
    if hit is None:
        addr = G.element_offsets(rows, k, bits, G.Descriptor.decode(d), mn_major).astype(np.int64).ravel()
        nbytes = bits // 8
        hit = (addr // nbytes, int(addr.max())) if not (addr % nbytes).any() else (None, 0)
        if len(_OFFSETS) >= _OFFSETS_MAX:
            _OFFSETS.clear()
        _OFFSETS[key] = hit
    return hit


def shared_matrices(ctx, ctas, descs, rows: int, k: int, bits: int, mn_major: bool) -> np.ndarray:
    """[G, rows, k] elements (storage dtype of `bits`) read through descriptor descs[g] from the
    shared memory of CTA slot ctas[g] (warpgroups with the same descriptor are read together)."""
    if bits < 8:
        return shared_matrices_bytewise(ctx, ctas, descs, rows, k, bits, mn_major)
    dt = storage_dtype(bits)
    nbytes = dt.itemsize
    shared = ctx.shared
    view = shared.buf.view(dt)
    per_cta = shared.stride // nbytes
    out = np.empty((len(ctas), rows * k), dt)
    for d in np.unique(descs):
        idx, top = _descriptor_offsets(int(d), rows, k, bits, mn_major)
        if idx is None or top + nbytes > shared.limit:  # the reference reads it (and names the fault)
            return shared_matrices_bytewise(ctx, ctas, descs, rows, k, bits, mn_major)
        sel = descs == d
        base = ctas[sel].astype(np.int64) * per_cta
        out[sel] = view[base[:, None] + idx[None, :]]
    return out.reshape(len(ctas), rows, k)


def shared_matrices_bytewise(ctx, ctas, descs, rows: int, k: int, bits: int, mn_major: bool) -> np.ndarray:
    """shared_matrices by assembling each element from its bytes through the shared-memory
    access (bounds checked per byte): the reference, and the path of sub-byte elements."""
    out = np.zeros((len(ctas), rows, k), np.uint64)
    nbytes = max(1, bits // 8)
    for d in np.unique(descs):
        sel = np.flatnonzero(descs == d)
        addr = G.element_offsets(rows, k, bits, G.Descriptor.decode(int(d)), mn_major).astype(np.uint64).ravel()
        flat = np.tile(addr, sel.size)
        owner = np.repeat(ctas[sel].astype(np.int64), addr.size)
        val = np.zeros(flat.size, np.uint64)
        try:
            for b in range(nbytes):
                val |= ctx.shared.load(flat + np.uint64(b), owner, np.dtype(np.uint8)).astype(np.uint64) << np.uint64(8 * b)
        except AccessFault as e:
            raise Fault(f"wgmma: a matrix descriptor reads outside shared memory ({e.reason})", 0, e.address) from None
        val = val.reshape(sel.size, rows, k)
        if bits < 8:  # sub-byte elements: their bits within the byte, in order along the contiguous dimension
            idx = np.arange(rows)[:, None] if mn_major else np.arange(k)[None, :]
            val = (val >> ((idx * bits) % 8).astype(np.uint64)) & np.uint64((1 << bits) - 1)
        out[sel] = val
    return out.astype(storage_dtype(bits))


# ------------------------------------------------------------------------------ registers

def plain_register_slots(lowerer, node, scope, dtype: np.dtype):
    """Register slots of the elements of a vector operand when each is a plain register stored in
    `dtype` (so reading or writing it as raw bits is a copy); None otherwise (the operand's
    readers and writers are used)."""
    els = list(node.elements) if isinstance(node, ast.VectorOperand) else [node]
    slots = []
    for e in els:
        if not isinstance(e, ast.Register) or e.offset is not None or e.negated:
            return None
        sym = lowerer.register(e, scope)
        if sym.space != "reg" or lowerer.regs.dtypes[sym.offset] != dtype:
            return None
        slots.append(sym.offset)
    return slots


def _lanes(slots, valid):
    """The thread slots of the warpgroups as an index: a slice when they are one contiguous run
    of complete warpgroups, else the valid slots."""
    flat = slots[valid] if not valid.all() else slots.ravel()
    if valid.all() and int(flat[-1]) - int(flat[0]) == flat.size - 1:
        return slice(int(flat[0]), int(flat[-1]) + 1)
    return flat


def read_registers(ctx, vec, reg_slots, slots, valid) -> np.ndarray:
    """[registers, G * 128] raw bits (uint32) of the operand's registers in the warpgroups' thread
    slots; zero for the slots past the end of a partial warpgroup."""
    n = len(vec.ops)
    if reg_slots is None:
        return np.ascontiguousarray(vec.read(ctx, slots, valid).reshape(-1, n).T)
    out = np.empty((n, slots.size), np.uint32)
    lanes = _lanes(slots, valid)
    regs = ctx.regs
    if isinstance(lanes, slice):
        for i, s in enumerate(reg_slots):
            out[i] = regs[s][lanes]
    else:
        out[:] = 0
        v = valid.ravel()
        for i, s in enumerate(reg_slots):
            out[i, v] = regs[s][lanes]
    return out


def write_registers(ctx, vec, reg_slots, slots, valid, values) -> None:
    """Write [registers, G * 128] raw bits into the operand's registers of the valid slots."""
    if reg_slots is None:
        G_ = slots.shape[0]
        vec.write(ctx, slots, valid, values.T.reshape(G_, slots.shape[1], -1))
        return
    lanes = _lanes(slots, valid)
    regs = ctx.regs
    if isinstance(lanes, slice):
        for i, s in enumerate(reg_slots):
            regs[s][lanes] = values[i]
    else:
        v = valid.ravel()
        for i, s in enumerate(reg_slots):
            regs[s][lanes] = values[i, v]


_FRAGMENTS: dict = {}


def d_fragment(n: int, bits: int) -> "DFragment":
    """The DFragment of an m64n<n> accumulator of `bits` elements (shared by the instructions)."""
    frag = _FRAGMENTS.get((n, bits))
    if frag is None:
        frag = _FRAGMENTS[(n, bits)] = DFragment(n, bits)
    return frag


class DFragment:
    """The accumulator of an m64nNk* wgmma: element e of thread t (registers of 32 bits holding
    32 // bits elements each, lowest bits first) is D[row[t, e], col[t, e]]
    (ptxvm.semantics.families.wgmma.d_fragment_positions): with t = 32 w + 4 g + q and
    e = 4 c + 2 h + b, row = 16 w + 8 h + g and col = 8 c + 2 q + b. So in D viewed as
    [G, w, h, g, c, q, b] the elements of register (c, h, b) of every thread are one strided
    block: `read` and `write` copy each register to or from its block (the fast path, for
    contiguous warpgroups of plain registers), `to_matrix` / `from_matrix` do it through a cached
    index for any thread slots."""

    def __init__(self, n: int, bits: int):
        self.n, self.bits = n, bits
        self.per = 32 // bits
        self.dtype = storage_dtype(bits)
        row, col = G.d_fragment_positions(n)
        self.row, self.col = row, col
        E = row.shape[1]
        self.regs = E // self.per
        out = (row * n + col).ravel()                       # matrix position of (t, e)
        if np.unique(out).size != 64 * n:
            raise AssertionError("wgmma D fragment positions do not cover the matrix once")
        self._pos = out
        self._cache: dict = {}      # warpgroup count -> (to_matrix, from_matrix) indices
        # register j's block: (c, h, b) for one element per register, (c, h) and both b for two
        self._block = [(j >> 2, (j >> 1) & 1, j & 1) if self.per == 1 else (j >> 1, j & 1) for j in range(self.regs)]

    def _blocks(self, mat: np.ndarray) -> np.ndarray:
        """[G, 64, N] -> its view [c, h, b, G, w, g, q]."""
        g = mat.shape[0]
        return mat.reshape(g, 4, 2, 8, self.n // 8, 4, 2).transpose(4, 2, 6, 0, 1, 3, 5)

    def read(self, ctx, vec, reg_slots, slots, valid) -> np.ndarray:
        """C: [G, 64, N] uint64 elements from the accumulator registers of the warpgroups."""
        lanes = _lanes(slots, valid)
        if reg_slots is None or not isinstance(lanes, slice):
            return self.to_matrix(read_registers(ctx, vec, reg_slots, slots, valid)).astype(np.uint64)
        g = slots.shape[0]
        mat = np.empty((g, 64, self.n), np.uint64)
        blocks = self._blocks(mat)
        regs = ctx.regs
        for s, blk in zip(reg_slots, self._block):
            r = regs[s][lanes].reshape(g, 4, 8, 4)
            if self.per == 1:
                blocks[blk] = r
            else:
                blocks[blk + (0,)] = r & np.uint32(0xFFFF)
                blocks[blk + (1,)] = r >> np.uint32(16)
        return mat

    def write(self, ctx, vec, reg_slots, slots, valid, mat: np.ndarray) -> None:
        """Write D ([G, 64, N] elements, any unsigned dtype: the low `bits` of each are kept) into
        the accumulator registers of the warpgroups."""
        lanes = _lanes(slots, valid)
        if reg_slots is None or not isinstance(lanes, slice):
            write_registers(ctx, vec, reg_slots, slots, valid, self.from_matrix(mat))
            return
        g = slots.shape[0]
        blocks = self._blocks(mat)
        regs = ctx.regs
        for s, blk in zip(reg_slots, self._block):
            dst = regs[s][lanes].reshape(g, 4, 8, 4)
            if self.per == 1:
                dst[...] = blocks[blk]
            else:
                lo = blocks[blk + (0,)].astype(np.uint32) & np.uint32(0xFFFF)
                dst[...] = lo | (blocks[blk + (1,)].astype(np.uint32) << np.uint32(16))

    def _indices(self, g: int):
        hit = self._cache.get(g)
        if hit is None:
            # element (g, t, e) sits at reg * (g_total * 128 * per) + (g * 128 + t) * per + part
            E = self.row.shape[1]
            t, e = np.divmod(np.arange(128 * E), E)
            wg = np.arange(g)[:, None]
            src = (e // self.per)[None, :] * (g * 128 * self.per) + (wg * 128 + t[None, :]) * self.per + (e % self.per)[None, :]
            to_matrix = np.empty((g, 64 * self.n), np.intp)
            to_matrix[:, self._pos] = src
            from_matrix = np.empty(g * 64 * self.n, np.intp)
            from_matrix[src.ravel()] = (wg * (64 * self.n) + self._pos[None, :]).ravel()
            hit = (to_matrix, from_matrix)
            if len(self._cache) > 64:
                self._cache.clear()
            self._cache[g] = hit
        return hit

    def to_matrix(self, regs: np.ndarray) -> np.ndarray:
        """[registers, G * 128] uint32 -> [G, 64, N] elements (storage dtype)."""
        g = regs.shape[1] // 128
        to_matrix, _ = self._indices(g)
        return regs.view(self.dtype).ravel()[to_matrix].reshape(g, 64, self.n)

    def from_matrix(self, mat: np.ndarray) -> np.ndarray:
        """[G, 64, N] elements -> [registers, G * 128] uint32."""
        g = mat.shape[0]
        _, from_matrix = self._indices(g)
        el = mat.astype(self.dtype, copy=False).ravel()[from_matrix]
        return el.view(np.uint32).reshape(self.regs, g * 128)

    # the direct formulas, for the tests
    def reference_to_matrix(self, regs: np.ndarray) -> np.ndarray:
        from .mma import unpack
        g = regs.shape[1] // 128
        el = unpack(regs.T.reshape(g, 128, self.regs), self.bits, self.per)
        mat = np.zeros((g, 64, self.n), np.uint64)
        mat[:, self.row, self.col] = el
        return mat.astype(self.dtype)

    def reference_from_matrix(self, mat: np.ndarray) -> np.ndarray:
        from .mma import pack
        g = mat.shape[0]
        out = mat[:, self.row, self.col].astype(np.uint64)
        return pack(out, self.bits, self.per, np.uint32).reshape(g * 128, self.regs).T.copy()
