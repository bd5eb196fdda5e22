"""Control flow (ISA 9.7.11 and chapter 7's ABI): bra, brx.idx, call, ret, exit, trap.

A call lays a frame in the caller's thread-local memory just above the caller's frame:

    +0   return PC (the call's copy-back step)      +16  callee function index
    +8   caller's frame base                         +24  caller's alloca stack pointer
    then the callee's return and argument .param variables, its .local variables, ...

so recursion gives every activation its own parameters and locals, as ptxas's stack does.
alloca blocks come from the other end of the thread's local memory and grow down, as the ISA's
stack does (a block's address is the new stack pointer, below the previous one); frames and
alloca blocks meeting is a stack overflow. A call
is two PCs: the jump, and the step after the callee returns that copies the return values into
the caller's .param variables and, on a recursive edge, restores the caller's registers.
"""
from __future__ import annotations

import numpy as np

from ...semantics.dtypes import numpy_dtype
from ...syntax import ast
from ..core.machine import EXITED, Fault, Op, branch
from ..core.operands import LoweringError, UnresolvedReference, FUNC_ADDRESS_BASE

# What the device runtime (libcudadevrt) provides for dynamic parallelism; ptxvm has none of it (the
# grid-group calls numba-cuda makes, cudaCGGetIntrinsicHandle and cudaCGSynchronize, are
# syscalls.py's, on a cooperative launch).
DYNAMIC_PARALLELISM_PREFIXES = ("__cudaCDP", "cudaLaunchDevice", "cudaGetParameterBuffer", "cudaDeviceSynchronize")


def is_dynamic_parallelism(name: str) -> bool:
    return name.startswith(DYNAMIC_PARALLELISM_PREFIXES)

U64 = np.dtype(np.uint64)


def _take_guarded(ctx, lanes, guard, skip_to: int) -> np.ndarray:
    """The group as explicit lanes (leaving uniform mode) minus those whose guard is false,
    which move on to `skip_to`."""
    g = _guard_mask(ctx, lanes, guard)
    if lanes is None:
        ctx.materialize_pcs()
        lanes = ctx.lanes_or_live(None)
        if g is not None and ctx.live_lanes() is not None:
            g = g[ctx.live_lanes()]
    if g is None:
        return lanes
    ctx.pc[lanes[~g]] = skip_to
    return lanes[g]


def _guard_mask(ctx, lanes, guard):
    """The guard's truth over the group (None: no guard)."""
    if guard is None:
        return None
    slot, negated = guard
    p = ctx.regs[slot] if lanes is None else ctx.regs[slot][lanes]
    return ~p if negated else p


def _target_label(lowerer, node) -> int:
    name = node.expr.name if isinstance(node, ast.Immediate) else getattr(node, "name", None)
    if name not in lowerer.labels:
        raise LoweringError(f"unknown label {name}")
    return lowerer.labels[name]


def lower_bra(lowerer, instr, m, scope):
    target = _target_label(lowerer, instr.operands[0])
    op = Op(None, control=True)

    def run(ctx, lanes, pc):
        branch(ctx, lanes, pc, target, _guard_mask(ctx, lanes, op.guard))

    op.run = run
    return [op]


def lower_brx(lowerer, instr, m, scope):
    """brx.idx index, table: jump to the index-th label of a .branchtargets list."""
    index = lowerer.reader(instr.operands[0], "u32", scope)
    table_name = instr.operands[1].expr.name if isinstance(instr.operands[1], ast.Immediate) else instr.operands[1].name
    labels = lowerer._branch_tables.get(table_name)
    if labels is None:
        raise LoweringError(f"unknown .branchtargets list {table_name}")
    targets = np.array([lowerer.labels[l] for l in labels], dtype=np.int64)
    op = Op(None, control=True)

    def run(ctx, lanes, pc):
        ctx.materialize_pcs()
        lanes = ctx.lanes_or_live(lanes)
        g = _guard_mask(ctx, lanes, op.guard)
        idx = np.asarray(index(ctx, lanes)).astype(np.int64)
        go = lanes if g is None else lanes[g]
        i = idx if g is None else idx[g]
        if (i >= targets.size).any():
            bad = int(np.argmax(i >= targets.size))
            raise Fault(f"brx.idx index {int(i[bad])} outside its {targets.size}-entry target list", int(go[bad]))
        dest = targets[i]
        ctx.pc[lanes] = pc + 1
        ctx.epoch[go[dest <= pc]] += 1
        ctx.pc[go] = dest

    op.run = run
    return [op]


def _exit(ctx, lanes):
    ctx.mark_exited(ctx.lanes_or_live(lanes))


def lower_exit(lowerer, instr, m, scope):
    op = Op(None, control=True)

    def run(ctx, lanes, pc):
        g = _guard_mask(ctx, lanes, op.guard)
        group = ctx.lanes_or_live(lanes)
        if g is not None:
            live = ctx.live_lanes()
            if lanes is None and live is not None:
                g = g[live]
            leaving, staying = group[g], group[~g]
            ctx.mark_exited(leaving)
            if lanes is None:
                ctx.upc = pc + 1
            else:
                ctx.pc[staying] = pc + 1
            return
        ctx.mark_exited(group)

    op.run = run
    return [op]


def lower_trap(lowerer, instr, m, scope):
    def run(ctx, lanes):
        raise Fault("trap instruction executed", int(ctx.lanes_or_live(lanes)[0]))

    return [Op(run, side_effects=True)]


# ---------------------------------------------------------------------------- calls


def _frame_header(ctx, lanes):
    h = ctx.local.load(ctx.frame_base[lanes], lanes, U64, 4, align=8)
    return h[:, 0], h[:, 1], h[:, 3]


def lower_ret(lowerer, instr, m, scope):
    info = lowerer.current
    if info.kind == "entry":
        return lower_exit(lowerer, instr, m, scope)
    op = Op(None, control=True)

    def run(ctx, lanes, pc):
        lanes = _take_guarded(ctx, lanes, op.guard, pc + 1)
        ret_pc, caller_base, caller_sp = _frame_header(ctx, lanes)
        ctx.pc[lanes] = ret_pc.astype(np.int64)
        ctx.stack_top[lanes] = ctx.frame_base[lanes]  # pops the callee frame
        ctx.stack_ptr[lanes] = caller_sp              # and its allocas
        ctx.frame_base[lanes] = caller_base

    op.run = run
    return [op]


def lower_implicit_return(lowerer, info) -> Op:
    """Falling off the end of a function body returns (a kernel exits)."""
    fake = ast.Instruction("ret", (), ())
    op = (lower_exit if info.kind == "entry" else lower_ret)(lowerer, fake, None, None)[0]
    op.text = "(end of function)"
    return op


def _call_parts(instr):
    """(returns, target, arguments, prototype) of `call{.uni} (r), f, (a, b), proto`."""
    ops = list(instr.operands)
    rets = ops.pop(0).elements if ops and isinstance(ops[0], ast.ParamList) else ()
    target = ops.pop(0)
    args = ops.pop(0).elements if ops and isinstance(ops[0], ast.ParamList) else ()
    if ops and isinstance(ops[0], ast.ParamList):  # `call f, (args)` written with an empty ret list
        args = ops.pop(0).elements
    proto = ops.pop(0) if ops else None
    return rets, target, args, proto


def _call_operands(lowerer, scope, sources):
    """How each argument (or return target) of a call is reached: ("mem", a .param variable of
    the caller's frame), ("reg", a register) or ("imm", an immediate node)."""
    plans = []
    for node in sources:
        if isinstance(node, ast.Immediate) and isinstance(node.expr, ast.SymbolRef):
            node = node.expr
        if isinstance(node, ast.SymbolRef):
            sym = lowerer.lookup(node.name, scope)
            if sym is None or sym.space not in ("fparam", "flocal"):
                raise LoweringError(f"call argument {node.name} is not a .param variable")
            plans.append(("mem", sym))
        elif isinstance(node, ast.Register):
            sym = lowerer.register(node, scope)
            if sym.space not in ("reg", "regvec"):  # a whole vector register passes as its elements
                raise LoweringError(f"call argument {node.name} is a special register")
            plans.append(("reg", sym))
        else:
            plans.append(("imm", node))
    return plans


def _copy_bytes(ctx, lanes, src_addr, dst_addr, size):
    """Copy `size` bytes in thread-local memory for each lane (both addresses thread-relative)."""
    if size == 0:
        return
    if size % 8 == 0 and not ((src_addr | dst_addr) & 7).any():
        dt, n = np.dtype(np.uint64), size // 8
    elif size % 4 == 0 and not ((src_addr | dst_addr) & 3).any():
        dt, n = np.dtype(np.uint32), size // 4
    else:
        dt, n = np.dtype(np.uint8), size
    vals = ctx.local.load(src_addr, lanes, dt, n, align=dt.itemsize)
    ctx.local.store(dst_addr, lanes, vals, dt, n, align=dt.itemsize)


def unresolved_call(name: str) -> str:
    """Why a call to a function with no definition in the program cannot run."""
    if is_dynamic_parallelism(name):
        return (f"call to '{name}': the CUDA device runtime's dynamic parallelism (libcudadevrt: launching "
                "kernels from the device) is not supported by ptxvm")
    if name.startswith("NRT_"):
        return (f"call to '{name}': Numba's runtime (NRT: arrays a kernel allocates, such as arr.copy() or "
                "NumPy functions that return a new array) is not supported by ptxvm")
    return (f"call to '{name}', an .extern function that no module of the program defines (link the "
            "module that defines it: ptxvm.link, ptxvm.load([...]), ptxvm run A.ptx B.ptx)")


def lower_call(lowerer, instr, m, scope):
    caller = lowerer.current
    rets, target, args, _proto = _call_parts(instr)
    if isinstance(target, ast.Immediate):
        target = target.expr
    direct = None
    fptr = None
    if isinstance(target, ast.SymbolRef):
        direct = lowerer.functions.get(lowerer.aliases.get(target.name, target.name))
        if direct is None:
            sym = lowerer.lookup(target.name, scope)
            if sym is not None and sym.space == "reg":
                fptr = lowerer.register(ast.Register(target.name), scope)
            else:
                raise LoweringError(f"call to unknown function {target.name}")
    elif isinstance(target, ast.Register):
        fptr = lowerer.register(target, scope)
    if direct is not None:
        caller.callees.add(direct.name)
        if direct.decl.body is None and direct.name not in _SYSCALLS:
            raise UnresolvedReference(unresolved_call(direct.name))
    else:
        caller.callees.update(f.name for f in lowerer.functions.values() if f.kind == "func")
    arg_plan = _call_operands(lowerer, scope, args)
    ret_plan = _call_operands(lowerer, scope, rets)
    if direct is not None and direct.name in _SYSCALLS:
        return _SYSCALLS[direct.name](lowerer, arg_plan, ret_plan)
    functions = list(lowerer.functions.values())
    fptr_reader = None
    if fptr is not None:
        from ..core.operands import register_reader

        fptr_reader = register_reader(fptr.offset, lowerer.regs.dtypes[fptr.offset], "u64")

    call_op = Op(None, control=True)
    back_op = Op(None, control=True)

    def callee_of(ctx, lanes):
        if direct is not None:
            return {direct.index: lanes}
        addrs = fptr_reader(ctx, lanes).astype(np.int64)
        idx = (addrs - FUNC_ADDRESS_BASE) // 16
        groups = {}
        for fi in np.unique(idx):
            if fi < 0 or fi >= len(functions) or functions[fi].decl.body is None:
                bad = int(np.argmax(idx == fi))
                if 0 <= fi < len(functions) and functions[fi].name not in _SYSCALLS:
                    raise Fault(f"indirect {unresolved_call(functions[fi].name)}", int(lanes[bad]))
                raise Fault(f"indirect call through 0x{int(addrs[bad]):x}, which is not a function", int(lanes[bad]))
            groups[int(fi)] = lanes[idx == fi]
        return groups

    def run_call(ctx, lanes, pc):
        lanes = _take_guarded(ctx, lanes, call_op.guard, pc + 2)  # past the copy-back step too
        if lanes.size == 0:
            return
        base = ctx.frame_base[lanes]
        if caller.save_offset >= 0 and caller.reg_slots:
            saved = _register_words(ctx, lanes, caller.reg_slots)
            ctx.local.store(base + np.uint64(caller.save_offset), lanes, saved, U64, saved.shape[1], align=8)
        for fi, group in callee_of(ctx, lanes).items():
            callee = functions[fi]
            gbase = ctx.frame_base[group]
            new = (ctx.stack_top[group] + np.uint64(15)) & ~np.uint64(15)
            if (new + np.uint64(callee.frame.size) > ctx.stack_ptr[group]).any():
                raise Fault(f"call stack overflow calling {callee.name} (thread-local memory of {ctx.local.limit} bytes)", int(group[0]))
            header = np.stack([np.full(group.size, pc + 1, dtype=np.uint64), gbase,
                               np.full(group.size, fi, dtype=np.uint64), ctx.stack_ptr[group]], axis=1)
            ctx.local.store(new, group, header, U64, 4, align=8)
            if len(arg_plan) != len(callee.params):
                raise Fault(f"call to {callee.name} passes {len(arg_plan)} arguments for {len(callee.params)} parameters", int(group[0]))
            to_registers = []  # .reg parameters: written once every argument has been read
            for (kind, src), param in zip(arg_plan, callee.params):
                if param.space in ("reg", "regvec"):
                    to_registers.extend(_register_values(ctx, group, kind, src, param, gbase))
                    continue
                dst = new + np.uint64(param.offset)
                if kind == "mem":
                    src_addr = gbase + np.uint64(src.offset)
                    _copy_bytes(ctx, group, src_addr, dst, min(src.size, param.size))
                else:
                    _store_value(ctx, lowerer, group, kind, src, dst, param)
            for slot, values in to_registers:
                ctx.regs[slot][group] = values
            ctx.frame_base[group] = new
            ctx.stack_top[group] = new + np.uint64(callee.frame.size)
            if callee.entry_pc < 0:  # lower_reachable missed it: never run another function's code
                raise Fault(f"internal error: {callee.name} was called but not lowered", int(group[0]))
            ctx.pc[group] = callee.entry_pc

    def run_back(ctx, lanes, pc):
        if lanes is None:
            ctx.materialize_pcs()
            lanes = ctx.lanes_or_live(None)
        base = ctx.frame_base[lanes]
        callee_base = ctx.stack_top[lanes]  # `ret` left the callee's frame base there
        ids = ctx.local.load(callee_base + np.uint64(16), lanes, U64).astype(np.int64)
        to_registers = []  # (slot, lanes, values): written after the caller's registers are restored
        for fi in np.unique(ids):
            callee = functions[int(fi)]
            sel = ids == fi
            group, cb, b = lanes[sel], callee_base[sel], base[sel]
            for (kind, dst), ret in zip(ret_plan, callee.returns):
                if ret.space in ("reg", "regvec"):  # the callee's return register(s)
                    values = [ctx.regs[p.offset][group] for p in (ret.parts or (ret,))]
                    if kind == "mem":
                        _store_registers(ctx, group, values, ret, b + np.uint64(dst.offset))
                    elif kind == "reg":
                        for d, v in zip(dst.parts or (dst,), values):
                            to_registers.append((d.offset, group, v.astype(ctx.regs[d.offset].dtype)))
                    continue
                src = cb + np.uint64(ret.offset)
                if kind == "mem":
                    _copy_bytes(ctx, group, src, b + np.uint64(dst.offset), min(dst.size, ret.size))
                elif kind == "reg":
                    from ...semantics.dtypes import storage_dtype

                    dt = storage_dtype(dst.type if dst.parts else ret.type)
                    for k, d in enumerate(dst.parts or (dst,)):
                        v = ctx.local.load(src + np.uint64(k * dt.itemsize), group, dt)
                        to_registers.append((d.offset, group, v.astype(ctx.regs[d.offset].dtype)))
        if caller.save_offset >= 0 and caller.reg_slots:
            words = sum(_words_of(ctx.regs[slot]) for slot in caller.reg_slots)
            saved = ctx.local.load(base + np.uint64(caller.save_offset), lanes, U64, words, align=8)
            k = 0
            for slot in caller.reg_slots:
                reg, n = ctx.regs[slot], _words_of(ctx.regs[slot])
                part = saved[:, k:k + n]
                reg[lanes] = np.ascontiguousarray(part).view(reg.dtype).reshape(-1) if n == 2 else part[:, 0].astype(reg.dtype)
                k += n
        for slot, group, values in to_registers:
            ctx.regs[slot][group] = values
        ctx.pc[lanes] = pc + 1

    call_op.run = run_call
    back_op.run = run_back
    return [call_op, back_op]


def _words_of(reg: np.ndarray) -> int:
    """64-bit words a register takes in a frame's save area: two for .b128, one for the rest."""
    return 2 if reg.dtype.itemsize == 16 else 1


def _register_words(ctx, lanes, slots) -> np.ndarray:
    """The registers `slots` of `lanes` as rows of 64-bit words (a .b128 register as its two halves)."""
    cols = []
    for slot in slots:
        v = ctx.regs[slot][lanes]
        cols.append(np.ascontiguousarray(v).view(np.uint64).reshape(-1, 2) if _words_of(ctx.regs[slot]) == 2
                    else v.astype(np.uint64)[:, None])
    return np.concatenate(cols, axis=1)


def _store_value(ctx, lowerer, lanes, kind, src, dst_addr, param):
    from ...semantics.dtypes import numpy_dtype, storage_dtype

    dt = storage_dtype(param.type)
    if kind == "reg" and src.parts:  # a vector register: its elements one after another
        dt = storage_dtype(src.type)
        for k, part in enumerate(src.parts):
            ctx.local.store(dst_addr + np.uint64(k * dt.itemsize), lanes, ctx.regs[part.offset][lanes].astype(dt), dt)
        return
    if kind == "reg":
        v = ctx.regs[src.offset][lanes].astype(dt)
    else:
        from ..core.operands import literal

        try:  # the callee (an indirect call's) is known only now
            value = literal(src.expr, param.type)
        except LoweringError as e:  # ptxas takes `call f, (0d...)` for a .b32 parameter; what it passes is not known
            raise Fault(f"unsupported call argument for parameter {param.name} (.{param.type}): {e}", int(lanes[0])) from None
        v = np.full(lanes.size, np.asarray(value).view(dt))
    ctx.local.store(dst_addr, lanes, v, dt)


def _register_values(ctx, lanes, kind, src, param, caller_base):
    """[(slot, values)] that pass one argument to a .reg parameter (a vector one takes one value per
    element): from a register (or a vector register), an immediate, or a .param variable's bytes."""
    from ...semantics.dtypes import storage_dtype
    from ..core.operands import literal

    slots = [p.offset for p in (param.parts or (param,))]
    dt = storage_dtype(param.type)
    if kind == "reg":
        srcs = [p.offset for p in (src.parts or (src,))]
        if len(srcs) != len(slots):
            raise Fault(f"argument {src.name} has {len(srcs)} elements, parameter {param.name} {len(slots)}", int(lanes[0]))
        return [(d, ctx.regs[s][lanes].astype(dt).astype(ctx.regs[d].dtype)) for s, d in zip(srcs, slots)]
    if kind == "imm":
        v = np.asarray(literal(src.expr, param.type)).view(dt)
        return [(d, np.full(lanes.size, v, dtype=ctx.regs[d].dtype)) for d in slots]
    vals = ctx.local.load(caller_base + np.uint64(src.offset), lanes, dt, len(slots), align=dt.itemsize)
    vals = vals.reshape(lanes.size, len(slots))
    return [(d, vals[:, k].astype(ctx.regs[d].dtype)) for k, d in enumerate(slots)]


def _store_registers(ctx, lanes, values, ret, dst_addr):
    """A .reg return value into the caller's .param variable."""
    from ...semantics.dtypes import storage_dtype

    dt = storage_dtype(ret.type)
    for k, v in enumerate(values):
        ctx.local.store(dst_addr + np.uint64(k * dt.itemsize), lanes, v.astype(dt), dt)


# ---------------------------------------------------------------------------- dynamic stack


def lower_alloca(lowerer, instr, m, scope):
    """alloca.type ptr, size{, align}: `size` bytes of the thread's stack, at least 8-aligned.

    The stack pointer moves down by `size`, rounded down to the alignment, and ptr is its new
    value (ISA: the stack grows down); the block lives until the function returns or
    stackrestore."""
    t = m.type.name if m is not None and m.type is not None else instr.modifiers[-1]
    dst = lowerer.writer(instr.operands[0], t, scope)
    size = lowerer.reader(instr.operands[1], t, scope)
    align = 8
    if len(instr.operands) > 2:
        from ...syntax.constexpr import evaluate

        align = max(8, int(evaluate(instr.operands[2].expr)))
    lowerer.uses_alloca = True
    mask = np.uint64(align - 1)

    def run(ctx, lanes):
        group = ctx.lanes_or_live(lanes)
        n = np.broadcast_to(np.asarray(size(ctx, group)).astype(np.uint64), (group.size,))
        sp, floor = ctx.stack_ptr[group], ctx.stack_top[group]
        over = n > sp - floor
        ptr = (sp - np.where(over, 0, n).astype(np.uint64)) & ~mask
        over |= ptr < floor
        if over.any():
            bad = int(np.argmax(over))
            raise Fault(f"stack overflow: alloca of {int(n[bad])} bytes (thread-local memory of {ctx.local.limit} bytes)", int(group[bad]))
        ctx.stack_ptr[group] = ptr
        dst(ctx, group, ptr.astype(numpy_dtype(t)))

    return [Op(run, side_effects=True)]


def lower_stacksave(lowerer, instr, m, scope):
    t = m.type.name if m is not None and m.type is not None else instr.modifiers[-1]
    dst = lowerer.writer(instr.operands[0], t, scope)

    def run(ctx, lanes):
        group = ctx.lanes_or_live(lanes)
        dst(ctx, group, ctx.stack_ptr[group].astype(numpy_dtype(t)))

    return [Op(run, side_effects=True)]


def lower_stackrestore(lowerer, instr, m, scope):
    t = m.type.name if m is not None and m.type is not None else instr.modifiers[-1]
    src = lowerer.reader(instr.operands[0], t, scope)

    def run(ctx, lanes):
        group = ctx.lanes_or_live(lanes)
        ctx.stack_ptr[group] = np.broadcast_to(np.asarray(src(ctx, group)).astype(np.uint64), (group.size,))

    return [Op(run, side_effects=True)]


# System calls nvcc emits as calls to extern functions (chapter 7.x: vprintf, malloc, free,
# __assertfail). Filled in by syscalls.py.
_SYSCALLS: dict = {}

LOWERINGS = {
    "bra": lower_bra,
    "brx": lower_brx,
    "call": lower_call,
    "ret": lower_ret,
    "exit": lower_exit,
    "trap": lower_trap,
    "alloca": lower_alloca,
    "stacksave": lower_stacksave,
    "stackrestore": lower_stackrestore,
}
