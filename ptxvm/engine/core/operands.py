"""Operand access, resolved at lowering time into small closures `read(ctx, lanes)` / `write(ctx, lanes, v)`.

Registers hold raw bits in unsigned storage (bool for predicates). A read views them as the
operand's PTX type; a register wider than the type is truncated on read and extended on write
(sign-extended for .sNN types, zero-extended otherwise: ISA 9.4.1's rules for wide operands).
`lanes is None` means every thread slot (uniform mode).
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from ...semantics.dtypes import bits_of, numpy_dtype, storage_dtype
from ...syntax import ast
from ...syntax.constexpr import evaluate
from .fastpaths import masked_copy
from .machine import Context, Fault

Reader = Callable[[Context, Optional[np.ndarray]], object]
Writer = Callable[[Context, Optional[np.ndarray], object], None]


class LoweringError(Exception):
    """The program uses something the engine cannot run; names the construct."""


class UnresolvedReference(LoweringError):
    """The instruction needs an `.extern` function that no linked module defines: the kernel
    faults with this message if it reaches the instruction."""


def _signed(ptx_type: str) -> bool:
    return ptx_type.startswith("s") and ptx_type[1:].isdigit()


def register_reader(slot: int, reg_dtype: np.dtype, ptx_type: str) -> Reader:
    want = numpy_dtype(ptx_type)
    if ptx_type == "pred" or reg_dtype == np.bool_:
        if want == np.bool_ and reg_dtype == np.bool_:
            return lambda ctx, lanes: ctx.regs[slot] if lanes is None else ctx.regs[slot][lanes]
        raise LoweringError(f"register of type {reg_dtype} used as .{ptx_type}")
    if reg_dtype.itemsize == want.itemsize:
        if reg_dtype == want:
            return lambda ctx, lanes: ctx.regs[slot] if lanes is None else ctx.regs[slot][lanes]
        return lambda ctx, lanes: (ctx.regs[slot] if lanes is None else ctx.regs[slot][lanes]).view(want)
    narrow = storage_dtype(ptx_type)
    if reg_dtype.itemsize > want.itemsize:
        return lambda ctx, lanes: (ctx.regs[slot] if lanes is None else ctx.regs[slot][lanes]).astype(narrow).view(want)
    # a register narrower than the type: widen (sign-extend for signed types)
    if _signed(ptx_type):
        sreg = np.dtype(f"i{reg_dtype.itemsize}")
        return lambda ctx, lanes: (ctx.regs[slot] if lanes is None else ctx.regs[slot][lanes]).view(sreg).astype(want)
    return lambda ctx, lanes: (ctx.regs[slot] if lanes is None else ctx.regs[slot][lanes]).astype(narrow).view(want)


def register_writer(slot: int, reg_dtype: np.dtype, ptx_type: str) -> Writer:
    if reg_dtype == np.bool_:
        def write_pred(ctx, lanes, v):
            if lanes is None:
                if ctx.write_mask is None:
                    np.copyto(ctx.regs[slot], v)
                else:
                    masked_copy(ctx.regs[slot], v, ctx.write_mask)
            else:
                ctx.regs[slot][lanes] = v
        return write_pred
    src = numpy_dtype(ptx_type) if ptx_type != "pred" else np.dtype(np.bool_)
    if src.itemsize < reg_dtype.itemsize and _signed(ptx_type):
        wide_signed = np.dtype(f"i{reg_dtype.itemsize}")

        def convert(v):
            return np.asarray(v).astype(src, copy=False).astype(wide_signed).view(reg_dtype)
    elif src.itemsize != reg_dtype.itemsize:
        narrow = storage_dtype(ptx_type) if ptx_type != "pred" else np.dtype(np.uint8)

        def convert(v):
            return np.asarray(v).astype(src, copy=False).view(narrow).astype(reg_dtype)
    else:
        def convert(v):
            v = np.asarray(v)
            if v.dtype != src:
                v = v.astype(src)
            return v.view(reg_dtype)

    def write(ctx, lanes, v):
        if lanes is None:
            if ctx.write_mask is None:
                np.copyto(ctx.regs[slot], convert(v))
            else:
                masked_copy(ctx.regs[slot], convert(v), ctx.write_mask)
        else:
            ctx.regs[slot][lanes] = convert(v)

    return write


def sink_writer(ctx, lanes, v) -> None:
    return None


def immediate_value(value, ptx_type: str, is_f32_literal: bool = False):
    """A literal as a NumPy scalar of `ptx_type`'s dtype. Integers wrap to the type's width,
    float literals convert to f32 with round-to-nearest as ptxas does."""
    dt = numpy_dtype(ptx_type)
    if ptx_type == "pred":
        return np.bool_(bool(value))
    if isinstance(value, float) or is_f32_literal:
        if dt == np.float32:
            return np.float32(value)
        if dt == np.float64:
            return np.float64(value)
        raise LoweringError(f"floating-point literal used as a .{ptx_type} operand")
    if dt.kind == "f":
        return dt.type(value)
    bits = bits_of(ptx_type)
    raw = int(value) & ((1 << bits) - 1)
    return np.array(raw, dtype=storage_dtype(ptx_type)).view(dt)[()]


def literal(expr: ast.Expr, ptx_type: str):
    """Evaluate a constant-expression operand for `ptx_type`. f32 hex literals keep their bits."""
    if isinstance(expr, ast.FloatLit):
        if expr.is_f32:
            bits = np.uint32(expr.bits)
            if numpy_dtype(ptx_type) == np.float32:
                return bits.view(np.float32)
            if ptx_type == "f64":
                return np.float64(bits.view(np.float32))
            return immediate_value(expr.bits, ptx_type)
        f = np.uint64(expr.bits).view(np.float64)
        if numpy_dtype(ptx_type).kind in "ui" or ptx_type.startswith("b"):
            if ptx_type in ("b64", "u64", "s64"):
                return immediate_value(expr.bits, ptx_type)
        return immediate_value(float(f), ptx_type)
    v = evaluate(expr)
    return immediate_value(v, ptx_type)


def constant_reader(value) -> Reader:
    return lambda ctx, lanes: value


# Shared by lowerings of several families (kept here so none of them imports the lowerer).
FUNC_ADDRESS_BASE = 0x7A00_0000_0000  # function "addresses" for indirect calls (call through a register)


def alu_runner(fn, readers, writers):
    if len(writers) == 1:
        w = writers[0]
        if len(readers) == 1:
            r0 = readers[0]
            return lambda ctx, lanes: w(ctx, lanes, fn(r0(ctx, lanes)))
        if len(readers) == 2:
            r0, r1 = readers
            return lambda ctx, lanes: w(ctx, lanes, fn(r0(ctx, lanes), r1(ctx, lanes)))
        if len(readers) == 3:
            r0, r1, r2 = readers
            return lambda ctx, lanes: w(ctx, lanes, fn(r0(ctx, lanes), r1(ctx, lanes), r2(ctx, lanes)))
        return lambda ctx, lanes: w(ctx, lanes, fn(*[r(ctx, lanes) for r in readers]))

    def run(ctx, lanes):
        out = fn(*[r(ctx, lanes) for r in readers])
        for w, v in zip(writers, out):
            w(ctx, lanes, v)

    return run


def symbol_plus_offset(expr) -> tuple[Optional[str], int]:
    """`sym`, `sym+4`, `sym-8`, `4+sym` -> ("sym", offset); plain constants -> (None, 0)."""
    if isinstance(expr, ast.SymbolRef):
        return expr.name, 0
    if isinstance(expr, ast.Binary) and expr.op in "+-":
        if isinstance(expr.left, ast.SymbolRef):
            off = int(evaluate(expr.right))
            return expr.left.name, off if expr.op == "+" else -off
        if isinstance(expr.right, ast.SymbolRef) and expr.op == "+":
            return expr.right.name, int(evaluate(expr.left))
    return None, 0
