"""Moves, selection, comparison and conversion emitters: mov (also of special registers, and the
packing mov.b64 / mov.b32 with {a, b}), selp, setp, cvt integer -> integer and cvt.rn.f16{x2}.f32,
cvta."""
from __future__ import annotations

from ....syntax import ast
from .common import (BAIL, BITS, FLOAT_TYPES, INT_TYPES, Dst, Reject, destination, element_slot, numeric,
                     one_type, only, source, wrap)

# --------------------------------------------------------------------------- moves, selection, comparison


def mov(mods, srcs, dsts):
    t = one_type(mods, INT_TYPES | FLOAT_TYPES | {"pred"})
    only(mods, {t})
    return "move", [srcs[0].expr], []


def selp(mods, srcs, dsts):
    t = one_type(mods, INT_TYPES | FLOAT_TYPES)
    only(mods, {t})
    a, b, c = (s.expr for s in srcs)
    return "move", [f"({a} if {c} else {b})"], []


INT_CMP = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
UNSIGNED_CMP = {"lo": "<", "ls": "<=", "hi": ">", "hs": ">="}
FLOAT_CMP = {"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"}
BOOL = {"and": "and", "or": "or", "xor": "!="}


def setp(mods, srcs, dsts):
    t = one_type(mods, INT_TYPES | FLOAT_TYPES)
    ops = [x for x in mods if x in INT_CMP or x in UNSIGNED_CMP or x in FLOAT_CMP]
    boolop = [x for x in mods if x in BOOL]
    if len(ops) != 1 or len(boolop) > 1:
        raise Reject
    op = ops[0]
    only(mods, {t, op, "ftz"} | set(boolop))
    a, b = srcs[0].expr, srcs[1].expr
    lines = []
    if t in FLOAT_TYPES:
        if op not in FLOAT_CMP or ("ftz" in mods and t != "f32"):
            raise Reject
        to = "f32" if t == "f32" else "f64"
        if "ftz" in mods:
            a, b = f"fz32({a})", f"fz32({b})"
        lines += [f"x = {to}({a})", f"y = {to}({b})"]
        nan = "(math.isnan(x) or math.isnan(y))"
        base = op[:-1] if op.endswith("u") and op not in ("num",) else op
        if op == "num":
            test = f"(not {nan})"
        elif op == "nan":
            test = nan
        elif op == "ne":
            test = f"((not {nan}) and x != y)"
        elif op.endswith("u"):
            test = f"({nan} or x {INT_CMP[base]} y)"
        else:
            test = f"(x {INT_CMP[op]} y)"
    else:
        if "ftz" in mods or op not in INT_CMP and op not in UNSIGNED_CMP:
            raise Reject
        if op in UNSIGNED_CMP:
            test = f"({a} {UNSIGNED_CMP[op]} {b})"
        elif op in ("eq", "ne"):
            test = f"({a} {INT_CMP[op]} {b})"
        else:
            test = f"({numeric(a, t)} {INT_CMP[op]} {numeric(b, t)})"
    lines.append(f"tt = {test}")
    if boolop:
        c = srcs[2].expr
        j = BOOL[boolop[0]]
        return "compare", [f"(tt {j} {c})", f"((not tt) {j} {c})"], lines
    return "compare", ["tt", "(not tt)"], lines


def _cvt_int(mods, srcs, dsts):
    ints = [x for x in mods if x in INT_TYPES]
    if len(ints) != 2 or len(mods) != 2:
        raise Reject  # rounding, .sat, .ftz or a float type: interpreted
    d, s = ints
    a = srcs[0].expr
    if BITS[d] == BITS[s]:
        return "convert", [a], []
    if BITS[d] < BITS[s]:
        return "convert", [wrap(a, d)], []
    return "convert", [f"u64(sx32({a}))" if s.startswith("s") else a], []


def cvta(mods, srcs, dsts):
    """cvta(.to).space.u64: adds (subtracts) the space's generic window; global's is 0
    (memory/access.lower_cvta)."""
    from ...memory.access import WINDOWS

    t = one_type(mods, {"u64"})
    spaces = [x for x in mods if x not in ("to", t)]
    if len(spaces) != 1 or spaces[0].split("::")[0] not in ("global", "shared", "local", "const"):
        raise Reject
    space = spaces[0].split("::")[0]
    window = 0 if space == "global" else int(WINDOWS[space])
    a = srcs[0].expr
    return "address", [f"({a} - U({window:#x}))" if "to" in mods else f"({a} + U({window:#x}))"], []




def _cvt_f16(mods, srcs, dsts):
    """cvt.rn.f16.f32 and cvt.rn.f16x2.f32 d, a, b (d = a's half above b's): round to nearest
    even on the bits (helpers.f16_rn); a NaN operand bails."""
    if set(mods) not in ({"rn", "f16", "f32"}, {"rn", "f16x2", "f32"}):
        raise Reject
    lines = []
    for s in srcs:
        lines += [f"if math.isnan(f32({s.expr})):", f"    {BAIL}"]
    if "f16" in mods:
        return "convert", [f"f16_rn({srcs[0].expr})"], lines
    return "convert", [f"((f16_rn({srcs[0].expr}) << U(16)) | f16_rn({srcs[1].expr}))"], lines


def cvt(mods, srcs, dsts):
    if "f16" in mods or "f16x2" in mods:
        return _cvt_f16(mods, srcs, dsts)
    return _cvt_int(mods, srcs, dsts)


# --------------------------------------------------------------------------- packing moves


def mov_vector(lowerer, instr, mods, scope, reads, writes):
    """mov.b64 d, {a, b} / mov.b64 {a, b}, d (and .b32 with two .b16, .b64 with four): the
    first element is the least significant; `_` discards an element."""
    t = one_type(mods, {"b32", "b64"})
    only(mods, {t})
    w = BITS[t]
    d, v = instr.operands
    if isinstance(v, ast.VectorOperand) and not isinstance(d, ast.VectorOperand):  # pack
        n = len(v.elements)
        if n not in (2, 4) or (n == 4 and w != 64):
            raise Reject
        k = w // n
        parts = []
        for j, e in enumerate(v.elements):
            slot = element_slot(lowerer, e, k, scope)
            reads.add(slot)
            parts.append(f"(v{slot} << U({j * k}))" if j else f"v{slot}")
        return "move", [" | ".join(parts)], [], [destination(lowerer, d, t, scope, writes)]
    if isinstance(d, ast.VectorOperand) and not isinstance(v, ast.VectorOperand):  # unpack
        n = len(d.elements)
        if n not in (2, 4) or (n == 4 and w != 64):
            raise Reject
        k = w // n
        src = source(lowerer, v, t, scope, reads)
        dsts, results = [], []
        for j, e in enumerate(d.elements):
            if isinstance(e, ast.Sink):
                dsts.append(Dst(None, t))
            else:
                slot = element_slot(lowerer, e, k, scope)
                writes.add(slot)
                dsts.append(Dst(slot, t))
            results.append(f"(({src.expr} >> U({j * k})) & U({(1 << k) - 1:#x}))")
        return "move", results, [], dsts
    raise Reject
