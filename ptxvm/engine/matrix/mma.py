"""Warp-level matrix instructions (ISA 9.7.14): mma.sync, wmma.{load,store,mma}, ldmatrix,
stmatrix, movmatrix.

Each runs for a warp once all 32 lanes have reached it (the .sync.aligned rendezvous of
warp_ops._collective). The body gathers the warp's fragment registers into matrices
[warps, groups, rows, cols] of raw element bits through the layout tables of
ptxvm.semantics.families.matrix, computes with the pure functions of ptxvm.numerics.mma, and
scatters the result back into the destination registers of every lane. Lanes past the end of a
partial warp hold zeros.
"""
from __future__ import annotations

import numpy as np

from ...numerics import mma as N
from ...semantics.families import matrix as L
from ...syntax import ast
from ..core.machine import Fault
from ..core.memory import AccessFault
from ..memory.access import access_for, address_reader
from ..core.operands import LoweringError
from ..control.warp import _collective
from ..trace.matrix import MatrixRefs, ldmatrix_plan, wmma_plan

_U64 = np.uint64


# ------------------------------------------------------------------------------- warp slots

def warp_slots(ctx, lanes):
    """(slots [W, 32], valid [W, 32]) for the warps of `lanes`: slot of lane j of each warp; valid
    is False past the end of a partial warp (those slots are clamped to lane 0's)."""
    base = np.unique(lanes - ctx.laneid[lanes])
    j = np.arange(32)
    slots = base[:, None] + j[None, :]
    valid = j[None, :] < ctx.warp_size[base][:, None]
    return np.where(valid, slots, base[:, None]), valid


def _elements(node):
    return list(node.elements) if isinstance(node, ast.VectorOperand) else [node]


class RegVector:
    """The registers of one fragment operand, read and written as raw bits of `reg_bits`."""

    def __init__(self, lowerer, node, scope, reg_bits: int, count: int | None = None, write=False):
        els = _elements(node)
        if count is not None and len(els) != count:
            raise LoweringError(f"fragment operand has {len(els)} registers, this form needs {count}")
        t = "b64" if reg_bits == 64 else "b32"
        self.dtype = np.dtype(np.uint64 if reg_bits == 64 else np.uint32)
        self.n = len(els)
        if write:
            self.ops = [lowerer.writer(e, t, scope) for e in els]
        else:
            self.ops = [lowerer.reader(e, t, scope) for e in els]

    def read(self, ctx, slots, valid) -> np.ndarray:
        """[W, 32, n] raw register bits (zero for invalid lanes)."""
        flat = slots.ravel()
        out = np.empty((flat.size, self.n), self.dtype)
        for i, r in enumerate(self.ops):
            val = np.asarray(r(ctx, flat))
            val = val.view(self.dtype) if val.dtype.itemsize == self.dtype.itemsize else val.astype(self.dtype)
            out[:, i] = np.broadcast_to(val, flat.shape)
        out = out.reshape(slots.shape + (self.n,))
        out[~valid] = 0
        return out

    def write(self, ctx, slots, valid, regs) -> None:
        flat = slots[valid]
        vals = regs[valid]
        for i, w in enumerate(self.ops):
            w(ctx, flat, np.ascontiguousarray(vals[:, i]))


def unpack(regs: np.ndarray, bits: int, per: int) -> np.ndarray:
    """[..., nregs] registers -> [..., nregs * per] elements (lowest bits first), as uint64."""
    r = regs.astype(_U64)
    if per == 1:
        return r
    shift = (np.arange(per, dtype=_U64) * _U64(bits))
    el = (r[..., None] >> shift) & _U64((1 << bits) - 1)
    return el.reshape(regs.shape[:-1] + (regs.shape[-1] * per,))


def pack(elems: np.ndarray, bits: int, per: int, dtype) -> np.ndarray:
    e = elems.astype(_U64)
    if per == 1:
        return e.astype(dtype)
    e = e.reshape(elems.shape[:-1] + (elems.shape[-1] // per, per)) & _U64((1 << bits) - 1)
    shift = np.arange(per, dtype=_U64) * _U64(bits)
    return np.bitwise_or.reduce(e << shift, axis=-1).astype(dtype)


def to_matrix(regs: np.ndarray, frag: L.Fragment, dtype) -> np.ndarray:
    """[W, 32, nregs] -> [W, groups, rows, cols] element bits."""
    el = unpack(regs, frag.bits, frag.per_reg).reshape(regs.shape[0], -1)
    mat = el[:, frag.owners()]
    return mat.reshape(regs.shape[0], frag.groups, frag.rows, frag.cols).astype(dtype)


def from_matrix(mat: np.ndarray, frag: L.Fragment, dtype) -> np.ndarray:
    """[W, groups, rows, cols] -> [W, 32, nregs] registers."""
    W = mat.shape[0]
    el = mat.reshape(W, -1)[:, frag.flat().ravel()].reshape(W, 32, frag.elems)
    return np.ascontiguousarray(pack(el, frag.bits, frag.per_reg, dtype))


_ELEM_DTYPE = {64: np.uint64, 32: np.uint32, 16: np.uint16, 8: np.uint8, 4: np.uint8, 1: np.uint8}


# ------------------------------------------------------------------------------------- mma

def lower_mma(lowerer, instr, m, scope):
    if m is None:
        raise LoweringError("mma form not recognised")
    v = m.values
    if any(k in v for k in ("kind", "block_scale")) or instr.opcode != "mma":
        raise LoweringError("mma .kind and .block_scale forms (sm_100/sm_120) are not supported")
    if v.get("spvariant"):
        return lower_mma_sp(lowerer, instr, m, scope)
    shape, at, bt, ct, dt = v["shape"], v["atype"], v["btype"], v["ctype"], v["dtype"]
    A, B, C, D = L.mma_fragments(shape, at, bt, ct, dt, v["alayout"], v["blayout"])
    d, a, b, c = instr.operands[:4]
    ra = RegVector(lowerer, a, scope, A.reg_bits, A.nregs)
    rb = RegVector(lowerer, b, scope, B.reg_bits, B.nregs)
    rc = RegVector(lowerer, c, scope, C.reg_bits, C.nregs)
    wd = RegVector(lowerer, d, scope, D.reg_bits, D.nregs, write=True)
    satfinite = bool(v.get("satfinite"))
    bitop = v.get("bitOp")
    ed = {x: _ELEM_DTYPE[L.BITS[t]] for x, t in (("a", at), ("b", bt), ("c", ct), ("d", dt))}

    def body(ctx, lanes, mask, present):
        slots, valid = warp_slots(ctx, lanes)
        am = to_matrix(ra.read(ctx, slots, valid), A, ed["a"])
        bm = to_matrix(rb.read(ctx, slots, valid), B, ed["b"])
        cm = to_matrix(rc.read(ctx, slots, valid), C, ed["c"])
        dm = N.mma(am, bm, cm, shape, at, bt, ct, dt, satfinite=satfinite, bitop=bitop)
        wd.write(ctx, slots, valid, from_matrix(dm, D, wd.dtype))

    return _collective(lowerer, scope, body, None)


def _selector(lowerer, node, meta: L.SparseMeta) -> int:
    from ..core.operands import literal
    try:
        sel = int(literal(node.expr if isinstance(node, ast.Immediate) else node, "u32"))
    except Exception:  # noqa: BLE001
        raise LoweringError("mma.sp: the sparsity selector must be an integer constant") from None
    return sel


def lower_mma_sp(lowerer, instr, m, scope):
    """mma.sp / mma.sp::ordered_metadata: A compressed (the kept half of each metadata group),
    e the metadata register, f the sparsity selector (which lanes of each quad hold metadata)."""
    v = m.values
    shape, at, bt, ct, dt = v["shape"], v["atype"], v["btype"], v["ctype"], v["dtype"]
    A, B, C, D = L.mma_sp_fragments(shape, at, bt, ct, dt)
    meta = L.sparse_meta(shape, at)
    d, a, b, c, e, f = instr.operands[:6]
    ra = RegVector(lowerer, a, scope, A.reg_bits, A.nregs)
    rb = RegVector(lowerer, b, scope, B.reg_bits, B.nregs)
    rc = RegVector(lowerer, c, scope, C.reg_bits, C.nregs)
    re_ = RegVector(lowerer, e, scope, 32)
    wd = RegVector(lowerer, d, scope, D.reg_bits, D.nregs, write=True)
    sel = _selector(lowerer, f, meta)
    satfinite = bool(v.get("satfinite"))
    ed = {x: _ELEM_DTYPE[L.BITS[t]] for x, t in (("a", at), ("b", bt), ("c", ct), ("d", dt))}

    def body(ctx, lanes, mask, present):
        if not 0 <= sel < meta.selectors:
            # ptxas accepts selectors 2 and 3 for m16n8k32 .f16 with an .f32 accumulator; the H200
            # then stops the kernel with an illegal instruction (tools/device/mma_sp_probe.py)
            raise Fault(f"illegal instruction: sparsity selector {sel} of mma.sp.{shape}.{at} (the ISA allows "
                        f"0..{meta.selectors - 1})", int(lanes[0]))
        slots, valid = warp_slots(ctx, lanes)
        am = to_matrix(ra.read(ctx, slots, valid), A, ed["a"])[:, 0]
        bm = to_matrix(rb.read(ctx, slots, valid), B, ed["b"])[:, 0]
        cm = to_matrix(rc.read(ctx, slots, valid), C, ed["c"])[:, 0]
        nib = L.sparse_nibbles(re_.read(ctx, slots, valid)[:, :, 0], meta, sel)
        bsel = L.sparse_b_operand(bm, nib, meta, L.BITS[at])
        dm = N.mma_sp(am, bsel, cm, shape, at, bt, ct, dt, satfinite=satfinite)
        wd.write(ctx, slots, valid, from_matrix(dm[:, None], D, wd.dtype))

    return _collective(lowerer, scope, body, None)


# ------------------------------------------------------------------------------- movmatrix

def lower_movmatrix(lowerer, instr, m, scope):
    src = RegVector(lowerer, instr.operands[1], scope, 32, 1)
    dst = RegVector(lowerer, instr.operands[0], scope, 32, 1, write=True)
    F0, FT = L.ldmatrix_fragment(False), L.ldmatrix_fragment(True)

    def body(ctx, lanes, mask, present):
        slots, valid = warp_slots(ctx, lanes)
        mat = to_matrix(src.read(ctx, slots, valid), F0, np.uint16)
        dst.write(ctx, slots, valid, from_matrix(mat, FT, np.uint32))

    return _collective(lowerer, scope, body, None)


# ------------------------------------------------------------------------ ldmatrix / stmatrix

def _row_addresses(ctx, slots, valid, addr_of, lanes_for_rows):
    """[W, nrows] addresses and owner slots of the lanes that supply row addresses."""
    flat = slots.ravel()
    addr = np.asarray(addr_of(ctx, flat))
    addr = np.broadcast_to(addr.astype(_U64), flat.shape).reshape(slots.shape)
    return addr[:, lanes_for_rows], slots[:, lanes_for_rows]


def _mem_fault(e: AccessFault, owners: np.ndarray):
    o = owners.ravel()
    return Fault(e.reason, int(o[min(e.position, o.size - 1)]), e.address)


def lower_ldmatrix(lowerer, instr, m, scope):
    v = m.values if m is not None else {}
    if v.get("shape") != "m8n8" or v.get("type") != "b16":
        raise LoweringError("ldmatrix: only .m8n8 .b16 is supported (sm_90)")
    num = int(v["num"][1:])
    trans = bool(v.get("trans"))
    regs = RegVector(lowerer, instr.operands[0], scope, 32, num, write=True)
    hint, addr_of = address_reader(lowerer, instr.operands[1], scope)
    acc = access_for(lowerer, m, hint)
    frag = L.ldmatrix_fragment(trans)
    rows = np.arange(8 * num)

    def body(ctx, lanes, mask, present):
        slots, valid = warp_slots(ctx, lanes)
        addr, owners = _row_addresses(ctx, slots, valid, addr_of, rows)
        W = slots.shape[0]
        try:
            data = acc.load(ctx, owners.ravel(), addr.ravel(), np.dtype(np.uint16), 8)
        except AccessFault as e:
            raise _mem_fault(e, owners) from None
        mats = data.reshape(W, num, 8, 8)  # [W, matrix, row, col]
        out = np.empty((W, 32, num), np.uint32)
        for i in range(num):
            out[:, :, i] = from_matrix(mats[:, i][:, None], frag, np.uint32)[:, :, 0]
        regs.write(ctx, slots, valid, out)

    return _traced_matrix(_collective(lowerer, scope, body, None),
                          MatrixRefs(ldmatrix_plan(num), addr_of, _space_of(acc), load=True))


def lower_stmatrix(lowerer, instr, m, scope):
    v = m.values if m is not None else {}
    if v.get("shape") != "m8n8" or v.get("type") != "b16":
        raise LoweringError("stmatrix: only .m8n8 .b16 is supported (sm_90)")
    num = int(v["num"][1:])
    trans = bool(v.get("trans"))
    regs = RegVector(lowerer, instr.operands[1], scope, 32, num)
    hint, addr_of = address_reader(lowerer, instr.operands[0], scope)
    acc = access_for(lowerer, m, hint)
    frag = L.ldmatrix_fragment(trans)
    rows = np.arange(8 * num)

    def body(ctx, lanes, mask, present):
        slots, valid = warp_slots(ctx, lanes)
        addr, owners = _row_addresses(ctx, slots, valid, addr_of, rows)
        r = regs.read(ctx, slots, valid)
        W = slots.shape[0]
        mats = np.stack([to_matrix(r[:, :, i:i + 1], frag, np.uint16)[:, 0] for i in range(num)], axis=1)
        try:
            acc.store(ctx, owners.ravel(), addr.ravel(), mats.reshape(W * num * 8, 8), np.dtype(np.uint16), 8)
        except AccessFault as e:
            raise _mem_fault(e, owners) from None

    return _traced_matrix(_collective(lowerer, scope, body, None),
                          MatrixRefs(ldmatrix_plan(num), addr_of, _space_of(acc), load=False))


# ----------------------------------------------------------------------- for the event trace

def _space_of(acc):
    """The state space an access addresses ("global", "shared"), None for generic addresses."""
    space = getattr(acc, "space", None)
    if space is None:
        return None
    return "shared" if str(space).startswith("shared") else space


def _traced_matrix(ops, refs: MatrixRefs):
    """Give the event trace (engine/trace/events.py) the machine accesses of the instruction."""
    ops[0].matrix = refs
    ops[0].space = refs.space
    return ops


# ------------------------------------------------------------------------------------- wmma

def lower_wmma(lowerer, instr, m, scope):
    if m is None:
        raise LoweringError("wmma form not recognised")
    v = m.values
    if v.get("load"):
        return _wmma_load(lowerer, instr, m, scope)
    if v.get("store"):
        return _wmma_store(lowerer, instr, m, scope)
    return _wmma_mma(lowerer, instr, m, scope)


def _wmma_types(v):
    """(atype, btype, ctype, dtype) of a wmma.mma form (the f16 form names only dtype/ctype)."""
    at = v.get("atype") or "f16"
    return at, v.get("btype") or at, v["ctype"], v["dtype"]


def _stride_reader(lowerer, instr, scope, index):
    if len(instr.operands) > index:
        return lowerer.reader(instr.operands[index], "u32", scope)
    return None


def _element_offsets(frag: L.Fragment, layout: str, stride: np.ndarray) -> np.ndarray:
    """[W, 32, elems] element index of each fragment element in memory (row-major: r*stride+c)."""
    s = stride.astype(np.int64)[:, None, None]
    if layout == "row":
        return frag.row[None] * s + frag.col[None]
    return frag.col[None] * s + frag.row[None]


def _wmma_load(lowerer, instr, m, scope):
    v = m.values
    which = next(x for x in ("a", "b", "c") if v.get(x))
    t = v.get(f"{which}type")
    frag = L.wmma_fragment(v["shape"], which, t, v["layout"])
    regs = RegVector(lowerer, instr.operands[0], scope, frag.reg_bits, frag.nregs, write=True)
    hint, addr_of = address_reader(lowerer, instr.operands[1], scope)
    acc = access_for(lowerer, m, hint)
    stride_of = _stride_reader(lowerer, instr, scope, 2)
    default = frag.cols if v["layout"] == "row" else frag.rows
    layout = v["layout"]

    def body(ctx, lanes, mask, present):
        slots, valid = warp_slots(ctx, lanes)
        flat = slots.ravel()
        base = np.broadcast_to(np.asarray(addr_of(ctx, flat)).astype(_U64), flat.shape).reshape(slots.shape)
        stride = _stride(ctx, slots, stride_of, default)
        idx = _element_offsets(frag, layout, stride)  # [W, 32, E]
        el = _load_elements(ctx, acc, slots, valid, base, idx, frag.bits)
        regs.write(ctx, slots, valid, pack(el, frag.bits, frag.per_reg, regs.dtype))

    space = _space_of(acc)
    plan = wmma_plan(v["shape"], which, t, layout, space or "generic")
    return _traced_matrix(_collective(lowerer, scope, body, None),
                          MatrixRefs(plan, addr_of, space, True, frag, layout, stride_of, default))


def _stride(ctx, slots, stride_of, default):
    """The stride of each warp (lane 0's value; the ISA requires it to be warp-uniform)."""
    if stride_of is None:
        return np.full(slots.shape[0], default, np.int64)
    s = np.broadcast_to(np.asarray(stride_of(ctx, slots[:, 0])).astype(np.int64), (slots.shape[0],))
    return s


def _load_elements(ctx, acc, slots, valid, base, idx, bits):
    """Elements at base + idx * bits/8 (sub-byte elements: their bits within the byte)."""
    W, _, E = idx.shape
    owners = np.broadcast_to(slots[:, :, None], idx.shape)
    sel = np.broadcast_to(valid[:, :, None], idx.shape)
    bitpos = idx * bits
    dt = np.dtype(_ELEM_DTYPE[bits])  # sub-byte elements: the byte that holds them
    addr = base[:, :, None] + (bitpos // 8).astype(_U64)
    out = np.zeros(idx.shape, np.uint64)
    try:
        got = acc.load(ctx, owners[sel], addr[sel], dt)
    except AccessFault as e:
        raise _mem_fault(e, owners[sel]) from None
    got = got.astype(np.uint64)
    if bits < 8:
        got = (got >> (bitpos[sel] % 8).astype(_U64)) & _U64((1 << bits) - 1)
    out[sel] = got
    return out


def _wmma_store(lowerer, instr, m, scope):
    v = m.values
    frag = L.wmma_fragment(v["shape"], "d", v["type"], v["layout"])
    hint, addr_of = address_reader(lowerer, instr.operands[0], scope)
    acc = access_for(lowerer, m, hint)
    regs = RegVector(lowerer, instr.operands[1], scope, frag.reg_bits, frag.nregs)
    stride_of = _stride_reader(lowerer, instr, scope, 2)
    default = frag.cols if v["layout"] == "row" else frag.rows
    layout = v["layout"]
    dt = np.dtype(_ELEM_DTYPE[frag.bits])

    def body(ctx, lanes, mask, present):
        slots, valid = warp_slots(ctx, lanes)
        flat = slots.ravel()
        base = np.broadcast_to(np.asarray(addr_of(ctx, flat)).astype(_U64), flat.shape).reshape(slots.shape)
        stride = _stride(ctx, slots, stride_of, default)
        idx = _element_offsets(frag, layout, stride)
        el = unpack(regs.read(ctx, slots, valid), frag.bits, frag.per_reg)
        owners = np.broadcast_to(slots[:, :, None], idx.shape)
        sel = np.broadcast_to(valid[:, :, None], idx.shape)
        addr = base[:, :, None] + (idx * (frag.bits // 8)).astype(_U64)
        try:
            acc.store(ctx, owners[sel], addr[sel], el[sel].astype(dt), dt)
        except AccessFault as e:
            raise _mem_fault(e, owners[sel]) from None

    space = _space_of(acc)
    plan = wmma_plan(v["shape"], "d", v["type"], layout, space or "generic", store=True)
    return _traced_matrix(_collective(lowerer, scope, body, None),
                          MatrixRefs(plan, addr_of, space, False, frag, layout, stride_of, default))


def _wmma_mma(lowerer, instr, m, scope):
    v = m.values
    shape = v["shape"]
    at, bt, ct, dt = _wmma_types(v)
    A = L.wmma_fragment(shape, "a", at, v["alayout"])
    B = L.wmma_fragment(shape, "b", bt, v["blayout"])
    C = L.wmma_fragment(shape, "c", ct, "row")
    D = L.wmma_fragment(shape, "d", dt, "row")
    d, a, b, c = instr.operands[:4]
    ra = RegVector(lowerer, a, scope, A.reg_bits, A.nregs)
    rb = RegVector(lowerer, b, scope, B.reg_bits, B.nregs)
    rc = RegVector(lowerer, c, scope, C.reg_bits, C.nregs)
    wd = RegVector(lowerer, d, scope, D.reg_bits, D.nregs, write=True)
    satfinite = bool(v.get("satfinite"))
    bitop = v.get("op")
    rnd = v.get("rnd") if isinstance(v.get("rnd"), str) else None
    ed = {x: _ELEM_DTYPE[L.BITS[t]] for x, t in (("a", at), ("b", bt), ("c", ct), ("d", dt))}

    def body(ctx, lanes, mask, present):
        slots, valid = warp_slots(ctx, lanes)
        am = to_matrix(ra.read(ctx, slots, valid), A, ed["a"])
        bm = to_matrix(rb.read(ctx, slots, valid), B, ed["b"])
        cm = to_matrix(rc.read(ctx, slots, valid), C, ed["c"])
        dm = N.wmma(am, bm, cm, shape, at, bt, ct, dt, satfinite=satfinite, bitop=bitop, rnd=rnd)
        wd.write(ctx, slots, valid, from_matrix(dm, D, wd.dtype))

    return _collective(lowerer, scope, body, None)


LOWERINGS = {
    "mma": lower_mma,
    "movmatrix": lower_movmatrix,
    "ldmatrix": lower_ldmatrix,
    "stmatrix": lower_stmatrix,
    "wmma": lower_wmma,
}
