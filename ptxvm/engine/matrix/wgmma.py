"""Warpgroup MMA (ISA 9.7.15, sm_90a): wgmma.fence, wgmma.commit_group, wgmma.wait_group and
wgmma.mma_async (dense, and .sp with a sparse A: see _SparseA).

wgmma.mma_async runs for a warpgroup (four consecutive warps of a CTA, threads 128i..128i+127)
once all its threads have reached it. A comes from registers (the mma.m16n8kK A fragment of
each warp, warp w holding rows 16w..16w+15) or from shared memory through a matrix descriptor;
B always from a descriptor (ptxvm.semantics.families.wgmma places the elements). D is both the
accumulator and the destination (scale-d false: D = A*B).

The engine completes each wgmma.mma_async when the warpgroup issues it: reading D or changing
the operands before wgmma.wait_group is undefined in the ISA, and a program that waits sees what
the hardware gives it. commit_group and wait_group therefore have nothing left to wait for;
fence orders nothing further.
"""
from __future__ import annotations

import numpy as np

from ... import jit
from ...numerics import mma as N
from ...semantics.families import matrix as L
from ...semantics.families import wgmma as G
from ...syntax import ast
from ..core.machine import AT_WARP_SYNC, EXITED, RUNNABLE, Fault, Op, guarded_lanes
from . import wgmma_operands as O
from .mma import RegVector, unpack
from ..core.operands import LoweringError, literal

# forms the lowering refuses (every word of a set present): coverage reports them as not implemented
REFUSES: dict = {"wgmma": ()}

_ELEM = {"f16": 16, "bf16": 16, "tf32": 32, "e4m3": 8, "e5m2": 8, "s8": 8, "u8": 8, "b1": 1, "f32": 32, "s32": 32}


# ------------------------------------------------------------------------------ rendezvous

def _threads_per_cta(ctx) -> int:
    return int(ctx.n // (int(ctx.cta_slot[-1]) + 1)) if ctx.n else 0


def _whole_warpgroups(ctx, group) -> bool:
    """Whether the sorted thread slots `group` are complete warpgroups of 128 threads each (the
    common case, checked in a few vector operations: every 128th slot starts a warpgroup and
    the 128 slots from it are consecutive)."""
    if group.size == 0 or group.size % 128 or _threads_per_cta(ctx) % 128:
        return False
    first = group[::128]
    return bool((ctx.thread_linear[first] % 128 == 0).all() and (group[127::128] - first == 127).all())


def _gather_warpgroups(ctx, lanes, pc, what="wgmma"):
    """The lanes of complete warpgroups that can run now; the others wait at pc."""
    ctx.materialize_pcs()
    group = ctx.lanes_or_live(lanes)
    waiting = np.flatnonzero((ctx.status == AT_WARP_SYNC) & (ctx.pc == pc))
    if not waiting.size and _whole_warpgroups(ctx, group):
        ctx.status[group] = RUNNABLE
        return group
    if waiting.size:
        group = np.union1d(group, waiting)
    T = _threads_per_cta(ctx)
    t = ctx.thread_linear[group]
    base = group - (t % 128)
    uniq, inv, counts = np.unique(base, return_inverse=True, return_counts=True)
    full = counts == np.minimum(128, T - (ctx.thread_linear[uniq] // 128) * 128)
    ready = full[inv]
    if not ready.all():
        for b in uniq[~full]:
            n = int(min(128, T - (ctx.thread_linear[b] // 128) * 128))
            members = np.arange(b, b + n)
            if (ctx.status[members] == EXITED).any():
                raise Fault(f"{what}: a thread of the warpgroup has exited", int(members[np.argmax(ctx.status[members] == EXITED)]))
        wait = group[~ready]
        ctx.status[wait] = AT_WARP_SYNC
        ctx.pc[wait] = pc
    run = group[ready]
    ctx.status[run] = RUNNABLE
    return run


def _warpgroup_collective(body, what="wgmma"):
    op = Op(None, control=True)

    def run(ctx, lanes, pc):
        if op.guard is not None:
            lanes = guarded_lanes(ctx, lanes, pc, op.guard)
            if lanes.size == 0:
                return
        ready = _gather_warpgroups(ctx, lanes, pc, what)
        if ready.size:
            done = body(ctx, ready)  # None: all of them go on; else the lanes that do (the others wait at pc)
            ctx.pc[ready if done is None else done] = pc + 1

    op.run = run
    return [op]


def _slots(ctx, lanes):
    """([G, 128] thread slots of each warpgroup among lanes, valid mask)."""
    if _whole_warpgroups(ctx, lanes):
        return lanes.reshape(-1, 128), np.ones((lanes.size // 128, 128), bool)
    base = np.unique(lanes - (ctx.thread_linear[lanes] % 128))
    T = _threads_per_cta(ctx)
    n = np.minimum(128, T - (ctx.thread_linear[base] // 128) * 128)
    j = np.arange(128)
    valid = j[None, :] < n[:, None]
    slots = np.where(valid, base[:, None] + j[None, :], base[:, None])
    return slots, valid


# ------------------------------------------------------------------------------ operands

def _imm(node, what) -> int:
    try:
        return int(literal(node.expr if isinstance(node, ast.Immediate) else node, "s32"))
    except Exception:  # noqa: BLE001
        raise LoweringError(f"wgmma: {what} must be an integer constant") from None


def _is_vector(node) -> bool:
    return isinstance(node, ast.VectorOperand)


def _negate(mat, t):
    """Flip the sign bit of every element (imm-scale -1); integer and b1 elements are unchanged."""
    mask = {"f16": 0x8000, "bf16": 0x8000, "tf32": 0x80000000, "e4m3": 0x80, "e5m2": 0x80}.get(t)
    return mat if mask is None else mat ^ mat.dtype.type(mask)


def lower_wgmma(lowerer, instr, m, scope):
    mods = set(instr.modifiers)
    if mods & {"fence", "commit_group", "wait_group"}:
        if "wait_group" in mods:
            n = _imm(instr.operands[0], "the wait_group count")
            if n < 0:
                raise LoweringError("wgmma.wait_group: the count must not be negative")
        return _warpgroup_collective(lambda ctx, lanes: None)
    if m is None or "mma_async" not in mods:
        raise LoweringError("wgmma form not recognised")
    if any(r <= mods for r in REFUSES["wgmma"]):
        raise LoweringError("this wgmma.mma_async form is not supported")
    v = m.values
    sparse = "sp" in mods
    shape, dt, at, bt = v["shape"], v["dtype"], v["atype"], v["btype"]
    Mm, Nn, K = L.parse_shape(shape)
    Ka = K // 2 if sparse else K          # columns of A as stored (sparse: the kept half)
    ops = list(instr.operands)
    d_node, a_node, b_node = ops[:3]
    meta_node, sel_node = (ops[3], ops[4]) if sparse else (None, None)
    rest = ops[5:] if sparse else ops[3:]
    sd_node, rest = rest[0], rest[1:]
    a_regs = _is_vector(a_node)
    scale_a = scale_b = 1
    trans_a = trans_b = 0
    if at not in ("s8", "u8", "b1"):
        scale_a, scale_b = _imm(rest[0], "imm-scale-a"), _imm(rest[1], "imm-scale-b")
        rest = rest[2:]
        if at in ("f16", "bf16"):
            if len(rest) != (1 if a_regs else 2):
                raise LoweringError("wgmma.mma_async: imm-trans-a is given only when A comes from a descriptor, "
                                    "imm-trans-b always")
            if a_regs:
                trans_b = _imm(rest[0], "imm-trans-b")
            else:
                trans_a, trans_b = _imm(rest[0], "imm-trans-a"), _imm(rest[1], "imm-trans-b")
    abits, dbits = _ELEM[at], 16 if dt == "f16" else 32
    nd = Nn // 4 if dt == "f16" else Nn // 2
    wd_r = RegVector(lowerer, d_node, scope, 32, nd)
    wd_w = RegVector(lowerer, d_node, scope, 32, nd, write=True)
    d_slots = O.plain_register_slots(lowerer, d_node, scope, np.dtype(np.uint32))
    dfrag = O.d_fragment(Nn, dbits)
    na = 16 * Ka * abits // (32 * 32)
    ra = RegVector(lowerer, a_node, scope, 32, na) if a_regs else None
    a_desc = None if a_regs else lowerer.reader(a_node, "b64", scope)
    b_desc = lowerer.reader(b_node, "b64", scope)
    scale_d = lowerer.reader(sd_node, "pred", scope)
    arow, acol = G.a_fragment_positions(Ka, abits)
    satfinite = bool(v.get("satfinite"))
    edt = O.storage_dtype(L.BITS.get(at, abits))
    sp = _sparse_operands(lowerer, scope, meta_node, sel_node, K, at) if sparse else None
    ct = {"f16": "f16", "f32": "f32", "s32": "s32"}[dt]

    def body(ctx, lanes):
        slots, valid = _slots(ctx, lanes)
        Gn = slots.shape[0]
        lead = slots[:, 0]
        cta = ctx.cta_slot[lead]
        bdesc = np.broadcast_to(np.asarray(b_desc(ctx, lead)).astype(np.uint64), (Gn,))
        sd = np.broadcast_to(np.asarray(scale_d(ctx, lead)).astype(bool), (Gn,))
        if a_regs:
            el = unpack(ra.read(ctx, slots, valid), abits, 32 // abits)  # [G, 128, E]
            A = np.zeros((Gn, 64, Ka), edt)
            A[:, arow, acol] = el
        else:
            adesc = np.broadcast_to(np.asarray(a_desc(ctx, lead)).astype(np.uint64), (Gn,))
            A = O.shared_matrices(ctx, cta, adesc, 64, Ka, abits, bool(trans_a))
        B = np.swapaxes(O.shared_matrices(ctx, cta, bdesc, Nn, K, abits, bool(trans_b)), 1, 2)
        if scale_a == -1:
            A = _negate(A, at)
        if scale_b == -1:
            B = _negate(B, bt)
        C = dfrag.read(ctx, wd_r, d_slots, slots, valid)   # [G, 64, N] uint64
        if not sd.all():
            C[~sd] = 0
        if sp is None:
            Dm = wgmma_numerics(A, B, C, shape, at, bt, ct, dt, satfinite)
        else:
            bsel = sp.b_operand(ctx, lanes, slots, valid, B)          # [G, 64, K/2, N]
            Dm = wgmma_numerics(A[:, :, None, :], bsel, C[:, :, None, :], shape, at, bt, ct, dt,
                                satfinite)[:, :, 0, :]
        dfrag.write(ctx, wd_w, d_slots, slots, valid, Dm)

    return _warpgroup_collective(body)


class _SparseA:
    """wgmma.mma_async.sp: A holds the kept half of each metadata group of its rows; each warp's
    metadata register and sparsity selector name them as mma.sp of shape m16n8k<K> does for
    that warp's 16 rows (ptxvm.semantics.families.wgmma.sparse_nibbles)."""

    def __init__(self, meta_reader, sel: int, meta: L.SparseMeta, bits: int):
        self.read, self.sel, self.meta, self.bits = meta_reader, sel, meta, bits

    def b_operand(self, ctx, lanes, slots, valid, b):
        if not 0 <= self.sel < self.meta.selectors:
            raise Fault(f"illegal instruction: sparsity selector {self.sel} of wgmma.mma_async.sp (the ISA allows "
                        f"0..{self.meta.selectors - 1})", int(lanes[0]))
        e = self.read.read(ctx, slots, valid)[:, :, 0]                  # [G, 128]
        nib = G.sparse_nibbles(e, self.meta, self.sel)                  # [G, 64, groups]
        return L.sparse_b_operand(b, nib, self.meta, self.bits)


def _sparse_operands(lowerer, scope, meta_node, sel_node, K, at):
    if isinstance(meta_node, ast.VectorOperand):
        raise LoweringError("wgmma.mma_async.sp: sp-meta is one 32-bit register")
    meta = G.sparse_meta(K, at)
    return _SparseA(RegVector(lowerer, meta_node, scope, 32, 1), _imm(sel_node, "sp-sel"), meta, _ELEM[at])


def wgmma_numerics(a, b, c, shape, at, bt, ct, dt, satfinite):
    """D = A*B + C for one wgmma.mma_async (matrices of element bits; C may be uint64, the
    compiled float kernels take it as it is, the other paths in its storage dtype)."""
    if c.dtype == np.uint64 and not (at in _FLOAT_IN and jit.enabled()):
        c = c.astype(O.storage_dtype(16 if ct == "f16" else 32))
    if at == "b1":
        return N.bmma(a, b, c, "and")
    if at in ("s8", "u8"):
        return N.imma(a, b, c, at, bt, satfinite)
    return N.wgmma_float(a, b, c, at, bt, ct, dt)


_FLOAT_IN = ("f16", "bf16", "tf32", "e4m3", "e5m2")

LOWERINGS = {"wgmma": lower_wgmma}
