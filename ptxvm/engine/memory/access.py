"""Memory instructions (ISA 9.7.9): ld, ldu, st, cvta, isspacep, prefetch and friends, atom, red.

Cache operators, eviction priorities, memory-order and scope qualifiers change no data in a
single sequentially consistent machine, so they are accepted and have no functional effect here;
the timing model reads them from the event trace.
"""
from __future__ import annotations

import numpy as np

from ...semantics.dtypes import numpy_dtype, storage_dtype
from ...syntax import ast
from . import atomics, wide
from ..core.memory import (CLUSTER_RANK_SHIFT, CONST_WINDOW, LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW, WINDOW_SIZE,
    AccessFault, classify_generic, cluster_target)
from ..core.machine import Fault, Op
from ..core.operands import LoweringError, symbol_plus_offset

WINDOWS = {"shared": SHARED_WINDOW, "local": LOCAL_WINDOW, "const": CONST_WINDOW, "param": PARAM_WINDOW}
GENERIC_SPACES = (None, "shared", "local", "const", "param")  # classify_generic's codes 0..4


def _space_of(m) -> str | None:
    """The state space written on the instruction, without sub-qualifiers (None: generic)."""
    for key in ("ss", "space", "state_space"):
        v = m.values.get(key) if m is not None else None
        if isinstance(v, str):
            return _norm_space(v)
    for mod in (m.modifiers if m is not None else ()):
        base = mod.split("::")[0]
        if base in ("global", "shared", "local", "const", "param"):
            return _norm_space(mod)
    return None


def _norm_space(v: str) -> str:
    if v.startswith("shared::cluster"):
        return "shared::cluster"
    return v.split("::")[0]


# ---------------------------------------------------------------------------- addresses


def address_reader(lowerer, node, scope):
    """(space of a named base or None, reader of the address as uint64 in that space)."""
    from ...syntax.constexpr import evaluate

    if isinstance(node, ast.Address):
        base, offset = node.base, node.offset
    elif isinstance(node, ast.Immediate):
        base, offset = None, node.expr
    elif isinstance(node, ast.ArrayElement):  # `a[i]`, `a[%r+k]` (ISA "Arrays as Operands")
        return _element_space(lowerer, node, scope), lowerer.element_address(node, scope)
    else:
        raise LoweringError("expected an address operand")

    off = 0
    if offset is not None:
        name, o = symbol_plus_offset(offset)
        if name is not None:
            if base is not None:
                raise LoweringError("address with two symbols")
            base, off = ast.SymbolRef(name), o
        else:
            off = int(evaluate(offset))
    space = None
    if base is None:
        const = np.uint64(off & 0xFFFFFFFFFFFFFFFF)
        return None, lambda ctx, lanes: const
    if isinstance(base, ast.SymbolRef):
        sym = lowerer.lookup(base.name, scope)
        if sym is None:
            raise LoweringError(f"unknown symbol {base.name} in address")
        space = {"global": "global", "const": "const", "shared": "shared", "kparam": "kparam",
                 "fparam": "fparam", "flocal": "local", "slocal": "slocal"}.get(sym.space)
        if space is None:
            raise LoweringError(f"{base.name} cannot be used as an address")
        if space == "slocal":
            space = "local"
        r = lowerer.address_of(sym, off, "u64")
        return space, r
    sym = lowerer.register(base, scope)
    if sym.space != "reg":
        r = lowerer.address_of(sym, off, "u64")
        return {"flocal": "local", "fparam": "fparam", "kparam": "kparam"}.get(sym.space), r
    wide = lowerer.regs.dtypes[sym.offset].itemsize == 8
    reg = lowerer.reader(base, "u64" if wide else "u32", scope)
    if off == 0:
        return None, lambda ctx, lanes: np.asarray(reg(ctx, lanes)).astype(np.uint64, copy=False)
    if not wide:  # `[%r+24]`: the sum wraps in the register's 32 bits (SASS `LDL R, [R4+0x18]`); libdevice's
        o32 = np.uint32(off & 0xFFFFFFFF)  # sin/cos slow path addresses its depot from %SPL-12 so
        return None, lambda ctx, lanes: (np.asarray(reg(ctx, lanes)).astype(np.uint32) + o32).astype(np.uint64)
    o = np.uint64(off & 0xFFFFFFFFFFFFFFFF)
    return None, lambda ctx, lanes: np.asarray(reg(ctx, lanes)).astype(np.uint64) + o


def _element_space(lowerer, node: ast.ArrayElement, scope):
    sym = lowerer.lookup(node.base.name, scope)
    space = {"global": "global", "const": "const", "shared": "shared", "kparam": "kparam", "fparam": "fparam",
             "flocal": "local", "slocal": "local"}.get(sym.space) if sym is not None else None
    if space is None:
        raise LoweringError(f"{node.base.name}[...] cannot be used as an address")
    return space


class SpaceAccess:
    """Loads and stores in one state space for a group of lanes; addresses are space-relative."""

    def __init__(self, space: str, in_entry: bool):
        if space == "param":
            space = "kparam" if in_entry else "fparam"
        self.space = space

    def _target(self, ctx, lanes, addr):
        """(memory, owner slots or None, addresses in that memory); `lanes is None` means
        every thread slot (then no owner array needs gathering)."""
        s = self.space
        if s == "global":
            return ctx.gmem, None, addr
        cta = ctx.cta_slot if lanes is None else ctx.cta_slot[lanes]
        if s in ("shared", "shared::cta"):
            return ctx.shared, cta, addr
        if s == "shared::cluster":  # another CTA's window, by the rank bits (memory.py)
            slot, off = cluster_target(addr, cta, getattr(ctx, "cluster_size", 1))
            return ctx.shared, slot, off
        if s in ("local", "fparam"):
            return ctx.local, ctx.slot_index if lanes is None else lanes, addr
        if s == "const":
            return ctx.const, None, addr
        if s == "kparam":
            return ctx.kparams, None, addr
        raise Fault(f"unsupported state space .{s}")

    def load(self, ctx, lanes, addr, dt, count=1):
        mem, owner, addr = self._target(ctx, lanes, addr)
        return mem.load(addr, dt, count) if owner is None else mem.load(addr, owner, dt, count)

    def store(self, ctx, lanes, addr, vals, dt, count=1):
        mem, owner, addr = self._target(ctx, lanes, addr)
        if owner is None:
            mem.store(addr, vals, dt, count)
        else:
            mem.store(addr, owner, vals, dt, count)

    def offsets(self, ctx, lanes, addr, size):
        """(buffer, byte offsets) for read-modify-write accesses (atomics)."""
        mem, owner, addr = self._target(ctx, lanes, addr)
        if not getattr(mem, "writable", True):
            raise AccessFault(f"atomic on read-only .{self.space} space", 0, int(addr[0]))
        if owner is None:
            return (mem.arena if hasattr(mem, "arena") else mem.buf), mem.offsets(addr, size)
        return mem.buf, mem.offsets(addr, owner, size)


class GenericAccess:
    """Generic addressing: each lane's address picks its space by window (ISA 6.4.1)."""

    def __init__(self, in_entry: bool):
        # a generic shared address may point into another CTA of the cluster (mapa)
        self.spaces = {None: SpaceAccess("global", in_entry), "shared": SpaceAccess("shared::cluster", in_entry),
                       "local": SpaceAccess("local", in_entry), "const": SpaceAccess("const", in_entry),
                       "param": SpaceAccess("kparam", in_entry)}

    def _split(self, addr):
        codes = classify_generic(addr)
        if not codes.any():
            return None, codes
        return np.unique(codes), codes

    def load(self, ctx, lanes, addr, dt, count=1):
        kinds, codes = self._split(addr)
        if kinds is None:
            return self.spaces[None].load(ctx, lanes, addr, dt, count)
        lanes = ctx.slot_index if lanes is None else lanes
        out = np.empty((addr.size,) if count == 1 else (addr.size, count), dtype=dt)
        for k in kinds:
            sel = codes == k
            space = GENERIC_SPACES[k]
            a = addr[sel] - np.uint64(WINDOWS[space]) if space else addr[sel]
            out[sel] = _positioned(self.spaces[space].load, sel, ctx, lanes[sel], a, dt, count)
        return out

    def store(self, ctx, lanes, addr, vals, dt, count=1):
        kinds, codes = self._split(addr)
        if kinds is None:
            return self.spaces[None].store(ctx, lanes, addr, vals, dt, count)
        lanes = ctx.slot_index if lanes is None else lanes
        for k in kinds:
            sel = codes == k
            space = GENERIC_SPACES[k]
            a = addr[sel] - np.uint64(WINDOWS[space]) if space else addr[sel]
            v = vals[sel] if np.ndim(vals) else vals
            _positioned(self.spaces[space].store, sel, ctx, lanes[sel], a, v, dt, count)

    def offsets(self, ctx, lanes, addr, size):
        kinds, codes = self._split(addr)
        if kinds is None:
            return self.spaces[None].offsets(ctx, lanes, addr, size)
        if kinds.size > 1 or GENERIC_SPACES[kinds[0]] not in ("shared",):
            raise Fault("atomic through a generic address that is not global or shared memory")
        return self.spaces["shared"].offsets(ctx, lanes, addr - np.uint64(SHARED_WINDOW), size)


def _positioned(fn, sel, *args):
    """Call a memory function on a subset of lanes, mapping a fault back to the full group."""
    try:
        return fn(*args)
    except AccessFault as f:
        raise AccessFault(f.reason, int(np.flatnonzero(sel)[f.position]), f.address) from None


def access_for(lowerer, m, space_hint):
    space = _space_of(m) or space_hint
    if space == "param" and space_hint in ("fparam", "kparam"):
        space = space_hint  # a .param variable declared in a body is call-argument storage
    in_entry = lowerer.current.kind == "entry"
    if space is None:
        return GenericAccess(in_entry)
    if space == "fparam" or space == "kparam":
        return SpaceAccess(space, in_entry)
    return SpaceAccess(space, in_entry)


def _fault(e: AccessFault, lanes, ctx, space: str = ""):
    lanes = ctx.lanes_or_live(lanes)
    return Fault(e.reason, int(lanes[e.position]), e.address)


def _observed(ctx, lanes, addr, size, acc, kind, values=None):
    """Show an access to the launch's hooks (engine/core/hooks.py); only called when ctx.hooks is set.
    Returns (lanes, addr, keep): `keep` None when every lane goes on, else a bool array over the
    group, and then lanes/addr are the kept ones (lanes as an explicit array)."""
    group = ctx.lanes_or_live(lanes)
    keep = ctx.hooks.access(ctx, group, addr, size, acc, kind, values=values)
    if keep is None:
        return lanes, addr, None
    return group[keep], addr[keep], keep


# ---------------------------------------------------------------------------- ld / st


def _value_type(m) -> str:
    return m.type.name if m.type is not None else "b32"


def lower_ld(lowerer, instr, m, scope):
    t = _value_type(m)
    if t == "b128":
        return [_traced(op, *rest) for op, *rest in [_lower_ld128(lowerer, instr, m, scope)]]
    dt = storage_dtype(t)
    dst = instr.operands[0]
    hint, addr_of = address_reader(lowerer, instr.operands[1], scope)
    acc = access_for(lowerer, m, hint)
    elements = dst.elements if isinstance(dst, ast.VectorOperand) else (dst,)
    count = len(elements)
    writers = [lowerer.writer(e, t, scope) for e in elements]
    value_dt = numpy_dtype(t)

    def run(ctx, lanes):
        addr = np.asarray(addr_of(ctx, lanes))
        if addr.ndim == 0:
            addr = np.full(ctx.n if lanes is None else lanes.size, addr, dtype=np.uint64)
        if ctx.hooks is not None:
            lanes, addr, _ = _observed(ctx, lanes, addr, dt.itemsize * count, acc, "read")
        try:
            vals = acc.load(ctx, lanes, addr, dt, count)
        except AccessFault as e:
            raise _fault(e, lanes, ctx) from None
        if count == 1:
            writers[0](ctx, lanes, vals.view(value_dt))
        else:
            for i, w in enumerate(writers):
                w(ctx, lanes, np.ascontiguousarray(vals[:, i]).view(value_dt))

    return [_traced(Op(run, side_effects=True), addr_of, acc)]


def lower_st(lowerer, instr, m, scope):
    t = _value_type(m)
    if t == "b128":
        return [_traced(op, *rest) for op, *rest in [_lower_st128(lowerer, instr, m, scope)]]
    dt = storage_dtype(t)
    hint, addr_of = address_reader(lowerer, instr.operands[0], scope)
    acc = access_for(lowerer, m, hint)
    src = instr.operands[1]
    elements = src.elements if isinstance(src, ast.VectorOperand) else (src,)
    readers = [lowerer.reader(e, t, scope) for e in elements]
    count = len(elements)

    def run(ctx, lanes):
        n = ctx.n if lanes is None else lanes.size
        addr = np.asarray(addr_of(ctx, lanes))
        if addr.ndim == 0:
            addr = np.full(n, addr, dtype=np.uint64)
        parts = [np.broadcast_to(np.asarray(r(ctx, lanes)).view(dt), (n,)) for r in readers]
        vals = parts[0] if count == 1 else np.stack(parts, axis=1)
        if ctx.hooks is not None:
            lanes, addr, keep = _observed(ctx, lanes, addr, dt.itemsize * count, acc, "write",
                                          np.ascontiguousarray(vals).view(np.uint8).reshape(n, -1))
            vals = vals if keep is None else vals[keep]
        try:
            acc.store(ctx, lanes, addr, vals, dt, count)
        except AccessFault as e:
            raise _fault(e, lanes, ctx) from None

    return [_traced(Op(run, side_effects=True), addr_of, acc)]


def _lower_ld128(lowerer, instr, m, scope):
    """ld.b128 (and .v2.b128): each value as a (lo, hi) pair of u64 in memory."""
    dst = instr.operands[0]
    hint, addr_of = address_reader(lowerer, instr.operands[1], scope)
    acc = access_for(lowerer, m, hint)
    elements = dst.elements if isinstance(dst, ast.VectorOperand) else (dst,)
    writers = [lowerer.writer(e, "b128", scope) for e in elements]
    words = 2 * len(elements)

    def run(ctx, lanes):
        n = ctx.n if lanes is None else lanes.size
        addr = np.ascontiguousarray(np.broadcast_to(np.asarray(addr_of(ctx, lanes), np.uint64), (n,)))
        if ctx.hooks is not None:
            lanes, addr, _ = _observed(ctx, lanes, addr, 8 * words, acc, "read")
            n = addr.size
        try:
            vals = acc.load(ctx, lanes, addr, np.dtype(np.uint64), words)
        except AccessFault as e:
            raise _fault(e, lanes, ctx) from None
        vals = np.asarray(vals).reshape(n, words)
        for i, w in enumerate(writers):
            w(ctx, lanes, wide.join(vals[:, 2 * i : 2 * i + 2]))

    return Op(run, side_effects=True), addr_of, acc


def _lower_st128(lowerer, instr, m, scope):
    hint, addr_of = address_reader(lowerer, instr.operands[0], scope)
    acc = access_for(lowerer, m, hint)
    src = instr.operands[1]
    elements = src.elements if isinstance(src, ast.VectorOperand) else (src,)
    readers = [lowerer.reader(e, "b128", scope) for e in elements]

    def run(ctx, lanes):
        n = ctx.n if lanes is None else lanes.size
        addr = np.broadcast_to(np.asarray(addr_of(ctx, lanes), np.uint64), (n,))
        vals = np.concatenate([wide.halves(r(ctx, lanes), n) for r in readers], axis=1)
        if ctx.hooks is not None:
            lanes, addr, keep = _observed(ctx, lanes, np.ascontiguousarray(addr), 8 * vals.shape[1], acc, "write",
                                          np.ascontiguousarray(vals).view(np.uint8).reshape(n, -1))
            vals = vals if keep is None else vals[keep]
        try:
            acc.store(ctx, lanes, np.ascontiguousarray(addr), vals, np.dtype(np.uint64), vals.shape[1])
        except AccessFault as e:
            raise _fault(e, lanes, ctx) from None

    return Op(run, side_effects=True), addr_of, acc


# ---------------------------------------------------------------------------- address conversion


def lower_cvta(lowerer, instr, m, scope):
    """cvta.space: space address -> generic; cvta.to.space: generic -> space address."""
    t = _value_type(m)
    space = _space_of(m)
    to = m.has("to")
    window = np.uint64(0 if space == "global" else WINDOWS.get(space.split("::")[0] if space else "", 0))
    src = lowerer.reader(instr.operands[1], t, scope)
    dst = lowerer.writer(instr.operands[0], t, scope)
    dt = numpy_dtype(t)
    if space == "param" and lowerer.current.kind != "entry":
        raise LoweringError("cvta.param of a function parameter is not supported")

    def run(ctx, lanes):
        a = np.asarray(src(ctx, lanes)).astype(np.uint64)
        dst(ctx, lanes, ((a - window) if to else (a + window)).astype(dt))

    return [Op(run)]


def lower_isspacep(lowerer, instr, m, scope):
    space = _space_of(m) or m.values.get("space")
    src = lowerer.reader(instr.operands[1], "u64", scope)
    dst = lowerer.writer(instr.operands[0], "pred", scope)
    code = {"global": 0, "shared": 1, "local": 2, "const": 3, "param": 4}[space.split("::")[0]]
    own_cta_only = code == 1 and space != "shared::cluster"  # .shared is .shared::cta

    def run(ctx, lanes):
        n = ctx.n if lanes is None else lanes.size
        a = np.broadcast_to(np.asarray(src(ctx, lanes)).astype(np.uint64), (n,))  # an immediate is one value
        hit = classify_generic(a) == code
        if own_cta_only:  # another CTA's shared memory (mapa) is not in this CTA's window
            sel = ((a - np.uint64(SHARED_WINDOW)) >> np.uint64(CLUSTER_RANK_SHIFT)).astype(np.int64)
            slot = ctx.cta_slot if lanes is None else ctx.cta_slot[lanes]
            hit &= (sel == 0) | (sel - 1 == slot % getattr(ctx, "cluster_size", 1))
        dst(ctx, lanes, hit)

    return [Op(run, side_effects=True)]


def lower_no_data_effect(lowerer, instr, m, scope):
    """prefetch, prefetchu, applypriority, discard(*): hints; nothing changes in the data.

    (*) discard makes the line's contents undefined; keeping the old bytes is one legal outcome."""
    return [Op(lambda ctx, lanes: None)]


def lower_createpolicy(lowerer, instr, m, scope):
    """createpolicy returns an opaque 64-bit cache policy; any fixed value is a valid one."""
    dst = lowerer.writer(instr.operands[0], "b64", scope)
    policy = np.uint64(0x1000_0000_0000_0000)
    return [Op(lambda ctx, lanes: dst(ctx, lanes, np.broadcast_to(policy, (ctx.n if lanes is None else lanes.size,))))]


# ---------------------------------------------------------------------------- atomics


def lower_atom(lowerer, instr, m, scope):
    returns = instr.opcode == "atom"
    t, count = _atomic_type(m, instr)
    op = m.values.get("op")
    if not isinstance(op, str):
        op = next((x for x in instr.modifiers if x in atomics.OPS), None)
    if op is None:
        raise LoweringError("atomic operation not recognised")
    operands = list(instr.operands)
    dst = _atomic_writer(lowerer, operands.pop(0), t, scope) if returns else None
    hint, addr_of = address_reader(lowerer, operands.pop(0), scope)
    acc = access_for(lowerer, m, hint)
    # the values: b, and c for cas; an operand after them is the .L2::cache_hint policy (a hint)
    srcs = [_atomic_reader(lowerer, o, t, scope) for o in operands[:2 if op == "cas" else 1]]
    value_dt = np.dtype(np.uint64) if t == "b128" else numpy_dtype(t)
    width = 16 if t == "b128" else value_dt.itemsize
    by_space = t in ("f32", "f64") and op == "add"  # global and shared memory round differently
    combine = atomics.element_combiner(op, t)
    combine_global = atomics.element_combiner(op, t, global_memory=True) if by_space else combine

    def run(ctx, lanes):
        group = ctx.lanes_or_live(lanes)
        n = group.size
        addr = np.asarray(addr_of(ctx, lanes))
        if addr.ndim == 0:
            addr = np.full(n, addr, dtype=np.uint64)
        if ctx.hooks is not None:
            kept, addr, keep = _observed(ctx, group, addr, width * count, acc, "atomic")
            if keep is not None:
                group, lanes, n = kept, kept, kept.size
        try:
            buf, offsets = acc.offsets(ctx, group, addr, width * count)
        except AccessFault as e:
            raise _fault(e, group, ctx) from None
        vals = [s(ctx, group, n) for s in srcs]
        journal = ctx.gmem.journal
        if journal is not None and buf is ctx.gmem.arena:  # a shard of a parallel launch (ptxvm/parallel)
            journal.atomic(op, t, offsets, width * count, vals)
        if t == "b128":
            old = atomics.apply128(buf.view(np.uint64), offsets // np.uint64(8), combine, vals)
        else:
            comb = combine_global if by_space and _global_target(acc, addr) else combine
            idx = offsets // np.uint64(width)
            if count > 1:  # vector atomics: each element is its own atomic (ISA 9.7.13.5)
                idx = (idx[:, None] + np.arange(count, dtype=np.uint64)).reshape(-1)
                vals = [v.reshape(-1) for v in vals]
            old = atomics.apply(buf.view(value_dt), idx, comb, [v.astype(value_dt, copy=False) for v in vals],
                                need_old=returns)
            if old is not None and count > 1:
                old = old.reshape(n, count)
        if returns:
            dst(ctx, lanes, old)

    return [_traced(Op(run, side_effects=True), addr_of, acc)]


def _atomic_type(m, instr) -> tuple[str, int]:
    """(element type, vector length) of atom/red: .v2/.v4/.v8 forms name the element type in
    their own slots (.f32, .half_word_type, .packed_type)."""
    t = None
    for slot in ("type", "half_word_type", "packed_type"):
        if m.types.get(slot) is not None:
            t = m.types[slot].name
            break
    t = t or _value_type(m)
    vec = next((x for x in instr.modifiers if x in ("v2", "v4", "v8")), None)
    return t, int(vec[1:]) if vec else 1


def _atomic_reader(lowerer, node, t, scope):
    """reader(ctx, group, n) -> (n,) values, (n, k) for a vector operand, (n, 2) u64 for .b128."""
    if isinstance(node, ast.VectorOperand):
        rs = [lowerer.reader(e, t, scope) for e in node.elements]
        dt = numpy_dtype(t)
        return lambda ctx, g, n: np.stack([np.broadcast_to(np.asarray(r(ctx, g)), (n,)).astype(dt, copy=False)
                                           for r in rs], axis=1)
    r = lowerer.reader(node, t, scope)
    if t == "b128":
        return lambda ctx, g, n: wide.halves(r(ctx, g), n)
    dt = numpy_dtype(t)
    return lambda ctx, g, n: np.broadcast_to(np.asarray(r(ctx, g)), (n,)).astype(dt)


def _atomic_writer(lowerer, node, t, scope):
    if isinstance(node, ast.VectorOperand):
        ws = [lowerer.writer(e, t, scope) for e in node.elements]
        dt = numpy_dtype(t)

        def write(ctx, lanes, old):
            for i, w in enumerate(ws):
                w(ctx, lanes, np.ascontiguousarray(old[:, i]).view(dt))
        return write
    w = lowerer.writer(node, t, scope)
    if t == "b128":
        return lambda ctx, lanes, old: w(ctx, lanes, wide.join(old))
    dt = numpy_dtype(t)
    return lambda ctx, lanes, old: w(ctx, lanes, old.view(dt))


def _global_target(acc, addr) -> bool:
    """Whether an atomic goes to global memory (where float adds round differently)."""
    if isinstance(acc, SpaceAccess):
        return acc.space == "global"
    return not classify_generic(addr).any()


def _traced(op: Op, addr_of, acc) -> Op:
    """Give the event trace (engine/trace/events.py) the instruction's address reader and space."""
    op.addr = addr_of
    op.space = acc.space if isinstance(acc, SpaceAccess) else None
    return op


MULTIMEM_REFUSAL = ("needs a multicast object (an address in NVLink multicast memory, cuMulticastCreate): ptxvm "
                    "models no multicast memory, so multimem.ld_reduce, multimem.st and multimem.red are refused")


def lower_multimem(lowerer, instr, m, scope):
    raise LoweringError(f"multimem.{instr.modifiers[0] if instr.modifiers else ''} {MULTIMEM_REFUSAL}")


LOWERINGS = {
    "multimem": lower_multimem,
    "ld": lower_ld,
    "ldu": lower_ld,
    "st": lower_st,
    "cvta": lower_cvta,
    "isspacep": lower_isspacep,
    "prefetch": lower_no_data_effect,
    "prefetchu": lower_no_data_effect,
    "applypriority": lower_no_data_effect,
    "discard": lower_no_data_effect,
    "createpolicy": lower_createpolicy,
    "atom": lower_atom,
    "red": lower_atom,
}
