"""The system calls nvcc emits as calls to extern functions (ISA 7.x): vprintf, __assertfail,
malloc and free; and the device-runtime (libcudadevrt) calls numba-cuda's grid groups make,
cudaCGGetIntrinsicHandle and cudaCGSynchronize, on a cooperative launch's grid workspace. Each
is two PCs like any call: the work, then an empty return step."""
from __future__ import annotations

import re

import numpy as np

from ...errors import OutOfDeviceMemory
from .flow import _SYSCALLS
from ..core.machine import AT_WARP_SYNC, RUNNABLE, Fault, Op
from ..core.memory import GLOBAL_BASE, AccessFault
from ..memory.access import GenericAccess

U8 = np.dtype(np.uint8)
U64 = np.dtype(np.uint64)
_SPEC = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?(hh|h|ll|l|z|j|t|L)?([diouxXeEfFgGaAcspn%])")


def _arg_value(ctx, lane, kind, sym, frame_base):
    """The value of a call argument for one lane: a .param variable's bytes, or a register."""
    if kind == "mem":
        return int(ctx.local.load(np.array([frame_base + sym.offset], dtype=np.uint64), np.array([lane]), U64)[0])
    if kind == "reg":
        return int(ctx.regs[sym.offset][lane])
    raise Fault("printf argument must be a .param variable or a register", lane)


def _read_cstring(ctx, lane, address, access, limit=4096) -> bytes:
    out = bytearray()
    lanes = np.array([lane])
    while len(out) < limit:
        b = int(access.load(ctx, lanes, np.array([address + len(out)], dtype=np.uint64), U8)[0])
        if b == 0:
            return bytes(out)
        out.append(b)
    return bytes(out)


def format_printf(fmt: str, read) -> str:
    """C printf formatting; `read(size, align)` returns the next argument's raw integer bits."""
    out, pos = [], 0
    for m in _SPEC.finditer(fmt):
        out.append(fmt[pos : m.start()])
        pos = m.end()
        flags, width, prec, length, conv = m.groups()
        if conv == "%":
            out.append("%")
            continue
        if width == "*":
            width = str(np.int32(np.uint32(read(4) & 0xFFFFFFFF)))
        if prec == "*":
            prec = str(np.int32(np.uint32(read(4) & 0xFFFFFFFF)))
        spec = "%" + (flags or "") + (width or "") + ("." + prec if prec is not None else "")
        if conv in "di":
            size = 8 if length in ("l", "ll", "z", "j", "t") else 4
            v = read(size)
            v = v - (1 << (8 * size)) if v >> (8 * size - 1) else v
            out.append((spec + "d") % v)
        elif conv in "uoxX":
            size = 8 if length in ("l", "ll", "z", "j", "t") else 4
            out.append((spec + conv) % (read(size) & ((1 << (8 * size)) - 1)))
        elif conv in "eEfFgGaA":
            v = float(np.uint64(read(8)).view(np.float64))
            if conv in "aA":
                out.append(v.hex())
            else:
                out.append((spec + conv) % v)
        elif conv == "c":
            out.append((spec + "c") % chr(read(4) & 0xFF))
        elif conv == "s":
            out.append((spec + "s") % read.string(read(8)))
        elif conv == "p":
            out.append("0x%x" % read(8))
    out.append(fmt[pos:])
    return "".join(out)


def _vprintf(lowerer, arg_plan, ret_plan):
    caller = lowerer.current
    in_entry = caller.kind == "entry"

    def run(ctx, lanes):
        group = ctx.lanes_or_live(lanes)
        access = GenericAccess(in_entry)
        for lane in group.tolist():
            base = int(ctx.frame_base[lane])
            fmt_addr = _arg_value(ctx, lane, *arg_plan[0], base)
            buf_addr = _arg_value(ctx, lane, *arg_plan[1], base) if len(arg_plan) > 1 else 0
            try:
                fmt = _read_cstring(ctx, lane, fmt_addr, access).decode("utf-8", "replace")
            except AccessFault as e:
                raise Fault(f"printf format string: {e.reason}", lane, e.address) from None
            cursor = [buf_addr]

            def read(size, _c=cursor, _lane=lane):
                _c[0] = -(-_c[0] // size) * size
                a = np.array([_c[0]], dtype=np.uint64)
                v = access.load(ctx, np.array([_lane]), a, np.dtype(f"u{size}"))
                _c[0] += size
                return int(v[0])

            read.string = lambda addr, _lane=lane: _read_cstring(ctx, _lane, addr, access).decode("utf-8", "replace")
            ctx.printf.append(((int(ctx.cta_linear[lane]), int(ctx.thread_linear[lane])), ctx.step_count, format_printf(fmt, read)))
        for kind, sym in ret_plan:
            if kind == "mem":
                vals = np.zeros(group.size, dtype=np.uint32)
                ctx.local.store(ctx.frame_base[group] + np.uint64(sym.offset), group, vals, np.dtype(np.uint32))

    return [Op(run, side_effects=True), Op(lambda ctx, lanes: None)]


def _assertfail(lowerer, arg_plan, ret_plan):
    in_entry = lowerer.current.kind == "entry"

    def run(ctx, lanes):
        group = ctx.lanes_or_live(lanes)
        lane = int(group[0])
        access = GenericAccess(in_entry)
        base = int(ctx.frame_base[lane])
        texts = []  # __assertfail(message, file, line, function, charSize)
        for i in (0, 1, 3):
            try:
                texts.append(_read_cstring(ctx, lane, _arg_value(ctx, lane, *arg_plan[i], base), access).decode("utf-8", "replace"))
            except Exception:  # a bad message pointer must not hide the assertion itself
                texts.append("?")
        line = _arg_value(ctx, lane, *arg_plan[2], base) & 0xFFFFFFFF if len(arg_plan) > 2 else 0
        raise Fault(f"assertion `{texts[0]}` failed ({texts[1]}:{line}, {texts[2]})", lane)

    return [Op(run, side_effects=True), Op(lambda ctx, lanes: None)]


def _malloc(lowerer, arg_plan, ret_plan):
    def run(ctx, lanes):
        group = ctx.lanes_or_live(lanes)
        for lane in group.tolist():
            base = int(ctx.frame_base[lane])
            size = _arg_value(ctx, lane, *arg_plan[0], base)
            try:
                alloc = ctx.gmem.allocate(size, "device malloc")
                address = alloc.base
                ctx.device_allocs.append(address)
                if ctx.hooks is not None:
                    ctx.hooks.heap_alloc(ctx, lane, alloc)
            except OutOfDeviceMemory:  # the device's memory budget is spent: NULL, as CUDA's malloc
                address = 0
            kind, sym = ret_plan[0]
            ctx.local.store(np.array([base + sym.offset], dtype=np.uint64), np.array([lane]), np.array([address], dtype=np.uint64), U64)

    return [Op(run, side_effects=True), Op(lambda ctx, lanes: None)]


def _free(lowerer, arg_plan, ret_plan):
    def run(ctx, lanes):
        group = ctx.lanes_or_live(lanes)
        for lane in group.tolist():
            ptr = _arg_value(ctx, lane, *arg_plan[0], int(ctx.frame_base[lane]))
            if ptr == 0:
                continue
            if ptr not in ctx.device_allocs:
                if ctx.hooks is not None and ctx.hooks.heap_free(ctx, lane, ptr):
                    continue
                raise Fault(f"free of 0x{ptr:x}, which malloc did not return", lane, ptr)
            ctx.device_allocs.remove(ptr)
            ctx.gmem.free(ptr)

    return [Op(run, side_effects=True), Op(lambda ctx, lanes: None)]


def _returns(ctx, lanes, plan, value, dtype) -> None:
    """Store one value as a call's return for every lane of `lanes` (a .param variable or a register)."""
    kind, sym = plan
    if kind == "mem":
        addr = ctx.frame_base[lanes] + np.uint64(sym.offset)
        ctx.local.store(addr, lanes, np.full(lanes.size, value, dtype=dtype), dtype)
    elif kind == "reg":
        ctx.regs[sym.offset][lanes] = value


def _workspace(ctx) -> int:
    """The grid workspace of a cooperative launch (0 without one), as the driver passes it in
    %envreg1:%envreg2 (engine/launch.py)."""
    return (int(ctx.sreg.get("%envreg1", 0)) << 32) | int(ctx.sreg.get("%envreg2", 0))


def _cg_intrinsic_handle(lowerer, arg_plan, ret_plan):
    """cudaCGGetIntrinsicHandle(scope): the handle of the launch's grid (its workspace; 0 when the
    launch is not cooperative, which cudaCGSynchronize then refuses)."""
    def run(ctx, lanes):
        if ret_plan:
            _returns(ctx, ctx.lanes_or_live(lanes), ret_plan[0], _workspace(ctx), U64)

    return [Op(run, side_effects=True), Op(lambda ctx, lanes: None)]


def _cg_synchronize_grid(lowerer, arg_plan, ret_plan):
    """cudaCGSynchronize(handle, flags): a barrier of every thread of the grid (a cooperative
    launch has them all in one wave). A thread waits at the call until every live thread of the
    grid has reached it; the last to arrive releases them all, and each gets cudaSuccess (0)."""
    op = Op(None, control=True)

    def run(ctx, lanes, pc):
        group = ctx.lanes_or_live(lanes)
        if _workspace(ctx) == 0:
            raise Fault("cudaCGSynchronize (a grid group's sync) needs a cooperative launch "
                        "(launch(..., cooperative=True))", int(group[0]))
        ctx.materialize_pcs()
        waiting = np.flatnonzero((ctx.status == AT_WARP_SYNC) & (ctx.pc == pc))
        arrived = np.union1d(group, waiting)
        if arrived.size < ctx.n_live:  # the rest of the grid has not come yet
            ctx.status[group] = AT_WARP_SYNC
            ctx.pc[group] = pc
            return
        ctx.status[arrived] = RUNNABLE
        if ret_plan:
            _returns(ctx, arrived, ret_plan[0], 0, np.dtype(np.uint32))
        ctx.pc[arrived] = pc + 1

    op.run = run
    return [op, Op(lambda ctx, lanes: None)]


_SYSCALLS.update({"vprintf": _vprintf, "__assertfail": _assertfail, "malloc": _malloc, "free": _free,
                  "cudaCGGetIntrinsicHandle": _cg_intrinsic_handle, "cudaCGSynchronize": _cg_synchronize_grid})
