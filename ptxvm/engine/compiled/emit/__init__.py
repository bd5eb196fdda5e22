"""One instruction -> a few lines of scalar Numba code over one lane's raw bits (a `Step`).

Locals of the generated function: `v<slot>` holds register <slot> of the current lane, as a
uint64 zero-extended from the register's width (bool for predicates). A step computes its
results into its own temporaries first (an instruction may read what it writes), then assigns
them to its destinations. What the fast code cannot decide exactly (a NaN result, whose bits the
numerics policy owns; an fma whose float64 sum lies on a rounding midpoint; an .ftz result that
rounded to the smallest normal) it does not guess: the lane *bails*, writes nothing, and the
interpreter runs the whole block for it afterwards.

Only the forms below are emitted; any other modifier, type, operand kind or register width ends
the fused run (`describe` returns None), and the interpreter runs that instruction:

    integer (.u32 .s32 .b32 .u64 .s64 .b64)  add sub (no .cc/.sat), mul/mad .lo (.wide, .hi: 32-bit
                                              types), neg abs (.s32 .s64), min max (no .relu),
                                              div rem, bfe (.u32 .s32 .u64 .s64)
    logic                                     and or xor not (.b32 .b64 .pred), shl shr
    moves and selection                       mov (register, immediate, or a special register
                                              %tid %ntid %ctaid %nctaid %laneid %warpid ... : SREGS),
                                              packing mov.b64 / mov.b32 with {a, b} (or four .b16),
                                              selp, setp (integer, .f32 {.ftz}, .f64; with
                                              .and/.or/.xor), cvt integer -> integer (no .sat),
                                              cvt.rn.f16.f32, cvt.rn.f16x2.f32
    parameters                                ld.param{.type} d, [name+offset] in a kernel
    addresses                                 cvta(.to).{global,shared,local,const}.u64
    floating point                            add sub mul {.rn}{.ftz}.f32, fma.rn{.ftz}.f32,
                                              add sub mul {.rn}.f64, fma.rn.f64, min max {.ftz}{.NaN}
                                              (.f32; .f64 without either), neg abs {.ftz}.f32 and .f64,
                                              ex2.approx.ftz.f32, div.full{.ftz}.f32

A NaN result of the floating-point forms (and a NaN operand of cvt.rn.f16, ex2, div.full, neg and
abs) bails, as does an ld.param past the parameter buffer (the interpreter then faults).

Instructions ptxas contracts (engine/contraction.py) are never emitted: the lowerer asks first.

The emitters live by family: `integer` (integer arithmetic, logic, shifts, bfe), `floating`
(floating point), `moves` (moves, selection, comparison, conversions, packing, cvta), `params`
(ld.param); `common` holds what they share (`Step`, operands, helpers). This module assembles
them into `EMITTERS` and turns one instruction into its `Step` (`describe`).
"""
from __future__ import annotations

import os
import re
from typing import Callable, Optional

from ....syntax import ast
from .common import (BAIL, BITS, FLOAT_TYPES, INT_TYPES, SREGS, Dst, Reject, Src, Step, destination, one_type,
                     operands, sreg_name)
from .floating import ex2, float_arith, float_div, float_minmax, float_sign, fma
from .integer import (bfe, int_abs, int_binary, int_divrem, int_mad, int_minmax, int_mul, int_neg, logic, logic_not, shl,
                      shr)
from .moves import cvt, cvta, mov, mov_vector, selp, setp
from .params import ld_param

__all__ = ["BAIL", "BITS", "EMITTERS", "FLOAT_TYPES", "INT_TYPES", "SREGS", "Dst", "Src", "Step", "describe",
           "interpreter_cost", "sreg_name"]


def describe(lowerer, instr, m, scope, guard) -> Optional[Step]:
    """The step of `instr` (already lowered to one ordinary Op), or None when it cannot be fused."""
    emitter = EMITTERS.get(instr.opcode)
    if (emitter is None and instr.opcode != "ld") or m is None:
        return None
    reads: set = set()
    writes: set = set()
    sregs: set = set()
    params = instr.opcode == "ld"
    try:
        mods = tuple(x.lstrip(".") for x in instr.modifiers)
        if params:
            dsts = [destination(lowerer, instr.operands[0], one_type(mods, INT_TYPES | FLOAT_TYPES), scope, writes)]
            family, results, lines = ld_param(lowerer, instr, m, scope, mods)
        elif instr.opcode == "mov" and any(isinstance(o, ast.VectorOperand) for o in instr.operands):
            family, results, lines, dsts = mov_vector(lowerer, instr, mods, scope, reads, writes)
        else:
            srcs, dsts = operands(lowerer, instr, m, scope, reads, writes, sregs if instr.opcode in ("mov", "cvt") else None)
            family, results, lines = emitter(mods, srcs, dsts)
            for name in re.findall(r"\bS_table_(\w+)", " ".join(list(lines) + list(results))):
                sregs.add(f"table:{name}")
    except Reject:
        return None
    except Exception:  # noqa: BLE001 - a form no emitter foresaw: interpreted, never a lowering failure
        if os.environ.get("PTXVM_DEBUG_JIT"):
            raise
        return None
    if len(results) != len(dsts):
        return None
    out = list(lines)
    # results first into temporaries (a destination may also be a source), then the registers
    for k, (dst, expr) in enumerate(zip(dsts, results)):
        out.append(f"w{k} = {expr if dst.type == 'pred' else 'U(' + expr + ')'}")
    for k, dst in enumerate(dsts):
        if dst.slot is not None:
            out.append(f"v{dst.slot} = w{k}")
    if guard is not None:
        reads.add(guard[0])
    return Step(family, out, reads, writes, guard, sregs, params, interpreter_cost(instr.opcode, mods))


def interpreter_cost(opcode: str, mods) -> float:
    """How many simple integer instructions' worth of interpreter time one instruction takes
    (NumPy passes per group; measured on 2,048-lane groups: a simple one ~6 us, min/max.f32
    ~40, bfe ~50, ex2/div.full ~100, cvt.rn.f16 ~250, fma.rn.f64 ~700, add/fma.f32 ~40-130).
    runtime.FusedBlock weighs its break-even estimate with it, so that a block of costly
    instructions compiles as soon as that pays."""
    floating = any(x in ("f32", "f64") for x in mods)
    if opcode == "fma" and "f64" in mods:
        return 80.0
    if opcode == "cvt" and ("f16" in mods or "f16x2" in mods):
        return 40.0
    if opcode == "ex2" or (opcode == "div" and "full" in mods):
        return 15.0
    if opcode == "bfe":
        return 8.0
    if floating and opcode in ("add", "sub", "mul", "fma", "min", "max"):
        return 6.0
    if opcode in ("div", "rem", "ld") or (floating and opcode in ("neg", "abs")):
        return 4.0
    return 1.0


def _by_type(int_emit, float_emit):
    def emit(mods, srcs, dsts):
        if any(x in FLOAT_TYPES for x in mods):
            return float_emit(mods, srcs, dsts)
        return int_emit(mods, srcs, dsts)
    return emit


# the table: opcode -> emitter(mods, srcs, dsts) -> (family, result expressions, lines); an opcode
# with both integer and floating-point forms picks by its type (ld and mov's vector forms are
# handled by describe itself)
EMITTERS: dict[str, Optional[Callable]] = {
    "add": _by_type(int_binary("+"), float_arith("+")),
    "sub": _by_type(int_binary("-"), float_arith("-")),
    "mul": _by_type(int_mul, float_arith("*")),
    "mad": int_mad,
    "neg": _by_type(int_neg, float_sign(True)),
    "abs": _by_type(int_abs, float_sign(False)),
    "min": _by_type(int_minmax(True), float_minmax(False)),
    "max": _by_type(int_minmax(False), float_minmax(True)),
    "and": logic("&", "and"), "or": logic("|", "or"), "xor": logic("^", "!="), "not": logic_not,
    "shl": shl, "shr": shr, "mov": mov, "selp": selp, "setp": setp, "cvt": cvt, "fma": fma, "cvta": cvta,
    "rem": int_divrem(False), "bfe": bfe, "ld": None, "ex2": ex2,
    "div": _by_type(int_divrem(True), float_div),
}
