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
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from ...syntax import ast
from ..core.operands import literal

INT_TYPES = {"b32", "u32", "s32", "b64", "u64", "s64"}
FLOAT_TYPES = {"f32", "f64"}
BITS = {"b32": 32, "u32": 32, "s32": 32, "f32": 32, "b64": 64, "u64": 64, "s64": 64, "f64": 64,
        "f16": 16, "f16x2": 32}  # the half types only as cvt.rn destinations


@dataclass
class Step:
    """The code of one instruction inside a fused block."""

    family: str                        # which emitter wrote it (for tests and docs)
    lines: list[str]                   # statements over v<slot> locals; may use BAIL (see source.py)
    reads: set[int] = field(default_factory=set)
    writes: set[int] = field(default_factory=set)
    guard: Optional[tuple[int, bool]] = None
    sregs: set[str] = field(default_factory=set)  # special registers read ("%tid.x"): runtime.sreg_arguments
    params: bool = False  # reads the kernel's parameter buffer (ld.param): arguments P_param, P_size
    cost: float = 1.0  # the interpreter's time for it relative to a simple integer instruction (tiering)


@dataclass
class Src:
    expr: str      # uint64 bits (bool for pred) of the operand in the lane
    type: str


@dataclass
class Dst:
    slot: Optional[int]  # None: a sink `_`
    type: str


class _Reject(Exception):
    pass


# --------------------------------------------------------------------------- operands


def _bits_of_literal(value, t: str) -> int:
    import numpy as np

    if t == "pred":
        return int(bool(value))
    return int(np.asarray(value).view(f"u{BITS[t] // 8}"))


# special registers a block may read: 32-bit values fixed for a wave (engine/core/sregs.fill,
# control/cluster.fill_sregs), per thread slot or one for all; the clocks change as it runs
SREGS = {"%tid", "%ntid", "%ctaid", "%nctaid", "%laneid", "%warpid", "%nwarpid", "%lanemask_eq", "%lanemask_le",
         "%lanemask_lt", "%lanemask_ge", "%lanemask_gt", "%clusterid", "%nclusterid", "%cluster_ctaid",
         "%cluster_nctaid", "%cluster_ctarank", "%cluster_nctarank"}


def sreg_name(key: str) -> str:
    """The generated code's argument name of special register `key` ("%tid.x" -> "S_tid_x"),
    or of a measured function table ("table:ex2" -> "S_table_ex2", runtime.sreg_arguments)."""
    return "S_" + key.lstrip("%").replace(".", "_").replace(":", "_")


def _special(lowerer, node, t: str, scope, sregs: set) -> Src:
    try:
        sym = lowerer.register(node, scope)
    except Exception:  # noqa: BLE001
        raise _Reject from None
    if sym.space != "sreg" or node.name not in SREGS or t not in ("u32", "s32", "b32") or node.negated:
        raise _Reject
    if node.component is not None and node.component not in ("x", "y", "z"):
        raise _Reject
    key = node.name if node.component is None else f"{node.name}.{node.component}"
    sregs.add(key)
    name = sreg_name(key)
    return Src(f"U({name}[i * {name}_step])", t)


def _source(lowerer, node, t: str, scope, reads: set, sregs: Optional[set] = None) -> Src:
    if t not in BITS and t != "pred":
        raise _Reject
    if isinstance(node, ast.Register):
        if node.offset is not None or node.minus:
            raise _Reject
        if sregs is not None and node.name.startswith("%") and node.name.split(".")[0] in SREGS:
            return _special(lowerer, node, t, scope, sregs)
        if node.component is not None:
            raise _Reject
        slot = _register_slot(lowerer, node, t, scope)
        reads.add(slot)
        if node.negated:
            if t != "pred":
                raise _Reject
            return Src(f"(not v{slot})", t)
        return Src(f"v{slot}", t)
    if isinstance(node, ast.Immediate):
        try:
            value = literal(node.expr, t)
        except Exception:  # noqa: BLE001 - a symbol's address or an odd literal: not fused
            raise _Reject from None
        bits = _bits_of_literal(value, t)
        return Src("True" if (t == "pred" and bits) else "False" if t == "pred" else f"U({bits:#x})", t)
    raise _Reject


def _register_slot(lowerer, node: ast.Register, t: str, scope) -> int:
    try:
        sym = lowerer.register(node, scope)
    except Exception:  # noqa: BLE001 - undeclared etc.: the interpreter reports it
        raise _Reject from None
    if sym.space != "reg":
        raise _Reject  # special registers, variable addresses
    dt = lowerer.regs.dtypes[sym.offset]
    if t == "pred":
        if dt.kind != "b":
            raise _Reject
    elif t not in BITS or dt.kind != "u" or dt.itemsize * 8 != BITS[t]:
        raise _Reject  # wider or narrower registers: truncation/extension rules stay interpreted
    return sym.offset


def _destination(lowerer, node, t: str, scope, writes: set) -> Dst:
    if isinstance(node, ast.Sink):
        return Dst(None, t)
    if not isinstance(node, ast.Register) or node.negated or node.offset is not None or node.component is not None:
        raise _Reject
    slot = _register_slot(lowerer, node, t, scope)
    writes.add(slot)
    return Dst(slot, t)


def _operands(lowerer, instr, m, scope, reads, writes, sregs=None):
    from ...isa.table import Kind, Role

    srcs, dsts = [], []
    specs = list(m.operands)
    while len(specs) > len(instr.operands) and specs[-1].spec.optional:  # min.f32 d, a, b{, c}: absent c
        specs.pop()
    if len(instr.operands) != len(specs):
        raise _Reject
    for spec, node in zip(specs, instr.operands):
        if spec.type is None or isinstance(node, ast.VectorOperand):
            raise _Reject
        t = spec.type.name
        if spec.kind is Kind.PAIR or spec.spec.second is not None:
            first, second = (node.first, node.second) if isinstance(node, ast.PredPair) else (node, None)
            dsts.append(_destination(lowerer, first, t, scope, writes))
            dsts.append(_destination(lowerer, second, "pred", scope, writes) if second is not None else Dst(None, "pred"))
        elif spec.role is Role.SRC:
            srcs.append(_source(lowerer, node, t, scope, reads, sregs))
        elif spec.role is Role.DST:
            dsts.append(_destination(lowerer, node, t, scope, writes))
        else:
            raise _Reject
    return srcs, dsts


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
            dsts = [_destination(lowerer, instr.operands[0], _one_type(mods, INT_TYPES | FLOAT_TYPES), scope, writes)]
            family, results, lines = _ld_param(lowerer, instr, m, scope, mods)
        elif instr.opcode == "mov" and any(isinstance(o, ast.VectorOperand) for o in instr.operands):
            family, results, lines, dsts = _mov_vector(lowerer, instr, mods, scope, reads, writes)
        else:
            srcs, dsts = _operands(lowerer, instr, m, scope, reads, writes, sregs if instr.opcode in ("mov", "cvt") else None)
            family, results, lines = emitter(mods, srcs, dsts)
            for name in re.findall(r"\bS_table_(\w+)", " ".join(list(lines) + list(results))):
                sregs.add(f"table:{name}")
    except _Reject:
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


# --------------------------------------------------------------------------- helpers


def _only(mods, allowed, *required):
    if not set(mods) <= set(allowed) or any(r not in mods for r in required):
        raise _Reject


def _one_type(mods, types):
    ts = [x for x in mods if x in types]
    if len(ts) != 1:
        raise _Reject
    return ts[0]


def _wrap(expr: str, t: str) -> str:
    return f"(({expr}) & M32)" if BITS[t] == 32 else f"({expr})"


def _signed(x: str, t: str) -> str:
    """The int64 value of bits x read as the signed type of t's width."""
    return f"sx32({x})" if BITS[t] == 32 else f"i64({x})"


def _numeric(x: str, t: str) -> str:
    """A value comparable in t's signedness: int64 for .sNN, the uint64 bits otherwise."""
    return _signed(x, t) if t.startswith("s") else x


# --------------------------------------------------------------------------- integer


def _int_binary(op):
    def emit(mods, srcs, dsts):
        t = _one_type(mods, INT_TYPES)
        _only(mods, {t})
        a, b = srcs[0].expr, srcs[1].expr
        return "int", [_wrap(f"{a} {op} {b}", t)], []
    return emit


def _product(mods, srcs, t):
    """(expression, destination width) of the .lo / .wide / .hi product of a and b."""
    a, b = srcs[0].expr, srcs[1].expr
    mode = [x for x in mods if x in ("lo", "hi", "wide")]
    mode = mode[0] if mode else "lo"
    if mode == "lo":
        return _wrap(f"{a} * {b}", t)
    if BITS[t] != 32:
        raise _Reject  # 64-bit .hi / .wide need 128-bit products
    if mode == "wide":
        return f"u64({_signed(a, t)} * {_signed(b, t)})" if t.startswith("s") else f"({a} * {b})"
    if t.startswith("s"):
        return f"(u64(({_signed(a, t)} * {_signed(b, t)}) >> I(32)) & M32)"
    return f"(({a} * {b}) >> U(32))"


def _mul(mods, srcs, dsts):
    t = _one_type(mods, INT_TYPES)
    _only(mods, {t, "lo", "hi", "wide"})
    return "int", [_product(mods, srcs, t)], []


def _mad(mods, srcs, dsts):
    t = _one_type(mods, INT_TYPES)
    _only(mods, {t, "lo", "hi", "wide"})
    wide = "wide" in mods
    s = f"{_product(mods, srcs, t)} + {srcs[2].expr}"
    return "int", [f"({s})" if wide else _wrap(s, t)], []


def _neg(mods, srcs, dsts):
    t = _one_type(mods, {"s32", "s64"})
    _only(mods, {t})
    return "int", [_wrap(f"U(0) - {srcs[0].expr}", t)], []


def _abs(mods, srcs, dsts):
    t = _one_type(mods, {"s32", "s64"})
    _only(mods, {t})
    a = srcs[0].expr
    return "int", [_wrap(f"(U(0) - {a}) if {_signed(a, t)} < I(0) else {a}", t)], []


def _minmax(pick_smaller):
    def emit(mods, srcs, dsts):
        t = _one_type(mods, {"u32", "s32", "u64", "s64"})
        _only(mods, {t})
        a, b = srcs[0].expr, srcs[1].expr
        less = f"{_numeric(a, t)} < {_numeric(b, t)}"
        return "int", [f"({a} if {less} else {b})" if pick_smaller else f"({b} if {less} else {a})"], []
    return emit


# --------------------------------------------------------------------------- logic and shifts


def _logic(op, pred_op):
    def emit(mods, srcs, dsts):
        t = _one_type(mods, {"b32", "b64", "pred"})
        _only(mods, {t})
        a, b = srcs[0].expr, srcs[1].expr
        if t == "pred":
            return "logic", [f"({a} {pred_op} {b})"], []
        return "logic", [f"({a} {op} {b})"], []
    return emit


def _not(mods, srcs, dsts):
    t = _one_type(mods, {"b32", "b64", "pred"})
    _only(mods, {t})
    a = srcs[0].expr
    if t == "pred":
        return "logic", [f"(not {a})"], []
    return "logic", [f"({a} ^ {'M32' if BITS[t] == 32 else 'M64'})"], []


def _shl(mods, srcs, dsts):
    t = _one_type(mods, {"b32", "b64"})
    _only(mods, {t})
    a, n, w = srcs[0].expr, srcs[1].expr, BITS[t]
    return "shift", [f"({_wrap(f'{a} << {n}', t)} if {n} < U({w}) else U(0))"], []


def _shr(mods, srcs, dsts):
    t = _one_type(mods, INT_TYPES)
    _only(mods, {t})
    a, n, w = srcs[0].expr, srcs[1].expr, BITS[t]
    if t.startswith("s"):  # arithmetic: a count >= the width fills with the sign
        return "shift", [_wrap(f"u64({_signed(a, t)} >> i64(min({n}, U({w - 1}))))", t)], []
    return "shift", [f"(({a} >> {n}) if {n} < U({w}) else U(0))"], []


# --------------------------------------------------------------------------- moves, selection, comparison


def _mov(mods, srcs, dsts):
    t = _one_type(mods, INT_TYPES | FLOAT_TYPES | {"pred"})
    _only(mods, {t})
    return "move", [srcs[0].expr], []


def _selp(mods, srcs, dsts):
    t = _one_type(mods, INT_TYPES | FLOAT_TYPES)
    _only(mods, {t})
    a, b, c = (s.expr for s in srcs)
    return "move", [f"({a} if {c} else {b})"], []


INT_CMP = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
UNSIGNED_CMP = {"lo": "<", "ls": "<=", "hi": ">", "hs": ">="}
FLOAT_CMP = {"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"}
BOOL = {"and": "and", "or": "or", "xor": "!="}


def _setp(mods, srcs, dsts):
    t = _one_type(mods, INT_TYPES | FLOAT_TYPES)
    ops = [x for x in mods if x in INT_CMP or x in UNSIGNED_CMP or x in FLOAT_CMP]
    boolop = [x for x in mods if x in BOOL]
    if len(ops) != 1 or len(boolop) > 1:
        raise _Reject
    op = ops[0]
    _only(mods, {t, op, "ftz"} | set(boolop))
    a, b = srcs[0].expr, srcs[1].expr
    lines = []
    if t in FLOAT_TYPES:
        if op not in FLOAT_CMP or ("ftz" in mods and t != "f32"):
            raise _Reject
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
            raise _Reject
        if op in UNSIGNED_CMP:
            test = f"({a} {UNSIGNED_CMP[op]} {b})"
        elif op in ("eq", "ne"):
            test = f"({a} {INT_CMP[op]} {b})"
        else:
            test = f"({_numeric(a, t)} {INT_CMP[op]} {_numeric(b, t)})"
    lines.append(f"tt = {test}")
    if boolop:
        c = srcs[2].expr
        j = BOOL[boolop[0]]
        return "compare", [f"(tt {j} {c})", f"((not tt) {j} {c})"], lines
    return "compare", ["tt", "(not tt)"], lines


def _cvt(mods, srcs, dsts):
    ints = [x for x in mods if x in INT_TYPES]
    if len(ints) != 2 or len(mods) != 2:
        raise _Reject  # rounding, .sat, .ftz or a float type: interpreted
    d, s = ints
    a = srcs[0].expr
    if BITS[d] == BITS[s]:
        return "convert", [a], []
    if BITS[d] < BITS[s]:
        return "convert", [_wrap(a, d)], []
    return "convert", [f"u64(sx32({a}))" if s.startswith("s") else a], []


def _cvta(mods, srcs, dsts):
    """cvta(.to).space.u64: adds (subtracts) the space's generic window; global's is 0
    (memory/access.lower_cvta)."""
    from ..memory.access import WINDOWS

    t = _one_type(mods, {"u64"})
    spaces = [x for x in mods if x not in ("to", t)]
    if len(spaces) != 1 or spaces[0].split("::")[0] not in ("global", "shared", "local", "const"):
        raise _Reject
    space = spaces[0].split("::")[0]
    window = 0 if space == "global" else int(WINDOWS[space])
    a = srcs[0].expr
    return "address", [f"({a} - U({window:#x}))" if "to" in mods else f"({a} + U({window:#x}))"], []


# --------------------------------------------------------------------------- floating point

BAIL = "BAIL"  # source.py turns it into: record the lane, skip the rest of its block


def _f32_result(lines, r, ftz, checked_tiny=False):
    """Bits of float32 `r`: a NaN bails; .ftz flushes a subnormal and bails at +-2^-126
    (whether the exact result was tiny is numerics' decision)."""
    lines += [f"if math.isnan({r}):", f"    {BAIL}", f"rb = f32b({r})"]
    if ftz:
        lines += ["if (rb & E32) == U(0):", "    rb = rb & S32",
                  "if (rb & M31) == MIN_NORMAL32:", f"    {BAIL}"]
    return "rb"


def _float_arith(op):
    def emit(mods, srcs, dsts):
        t = _one_type(mods, FLOAT_TYPES)
        _only(mods, {t, "rn", "ftz"})
        a, b = srcs[0].expr, srcs[1].expr
        if t == "f64":
            if "ftz" in mods:
                raise _Reject
            lines = [f"r = f64({a}) {op} f64({b})", "if math.isnan(r):", f"    {BAIL}"]
            return "float", ["f64b(r)"], lines
        ftz = "ftz" in mods
        if ftz:
            a, b = f"fz32({a})", f"fz32({b})"
        lines = [f"r = f32({a}) {op} f32({b})"]
        return "float", [_f32_result(lines, "r", ftz)], lines
    return emit


def _fma(mods, srcs, dsts):
    t = _one_type(mods, FLOAT_TYPES)
    _only(mods, {t, "rn", "ftz"}, "rn")
    if t == "f64":
        if "ftz" in mods:
            raise _Reject
        return _fma64(srcs)
    a, b, c = (s.expr for s in srcs)
    ftz = "ftz" in mods
    if ftz:
        a, b, c = f"fz32({a})", f"fz32({b})", f"fz32({c})"
    # the product is exact in float64; RN of the float64 sum, rounded again to float32, is RN of
    # the exact a*b + c unless it lies on a float32 midpoint or is tiny (floating.fma32_rn)
    lines = [f"p = F64(f32({a})) * F64(f32({b}))", f"s = p + F64(f32({c}))",
             "if (f64b(s) & LOW29) == MID29 or abs(s) < FMA32_TINY:", f"    {BAIL}",
             "r = F32(s)"]
    return "float", [_f32_result(lines, "r", ftz)], lines


# --------------------------------------------------------------------------- more integer and bit forms


def _divrem(is_div):
    """div / rem on integers (semantics/families/integer.py): a zero divisor gives all ones; the
    signed forms truncate toward zero (the remainder takes the dividend's sign) and wrap."""
    def emit(mods, srcs, dsts):
        t = _one_type(mods, INT_TYPES)
        _only(mods, {t})
        a, b, w = srcs[0].expr, srcs[1].expr, BITS[t]
        ones = "M32" if w == 32 else "M64"
        if not t.startswith("s"):
            return "int", [f"({ones} if {b} == U(0) else ({a} {'//' if is_div else '%'} {b}))"], []
        lines = [f"da = {_signed(a, t)}", f"db = {_signed(b, t)}",
                 "ma = (U(0) - u64(da)) if da < I(0) else u64(da)",
                 "mb = (U(0) - u64(db)) if db < I(0) else u64(db)",
                 f"q = {ones}", "if mb != U(0):"]
        if is_div:
            lines += ["    q = ma // mb", "    if (da < I(0)) != (db < I(0)):", "        q = U(0) - q"]
        else:
            lines += ["    q = ma % mb", "    if da < I(0):", "        q = U(0) - q"]
        return "int", [_wrap("q", t)], lines
    return emit


def _bfe(mods, srcs, dsts):
    """bfe (semantics/families/bits.py): 32-bit forms take pos and len modulo 256, 64-bit ones
    whole; .s fills the bits past the field with its top bit (a[min(pos+len-1, msb)])."""
    t = _one_type(mods, {"u32", "s32", "u64", "s64"})
    _only(mods, {t})
    a, b, c, w = srcs[0].expr, srcs[1].expr, srcs[2].expr, BITS[t]
    if w == 32:
        lines = [f"pos = i64({b} & U(0xff))", f"ln = i64({c} & U(0xff))"]
    else:
        lines = [f"pos = i64({b})", f"ln = i64({c})"]
    lines += [f"ins = max(min(ln, I({w}) - pos), I(0))",
              f"fd = (({a} >> u64(pos)) if pos < I({w}) else U(0)) & low_mask(ins, {w})"]
    if t.startswith("u"):
        return "bits", ["fd"], lines
    lines += [f"top = min(max(pos + ln - I(1), I(0)), I({w - 1}))",
              f"if ln > I(0) and (({a} >> u64(top)) & U(1)) == U(1):",
              f"    fd = fd | (~low_mask(ins, {w}) & {'M32' if w == 32 else 'M64'})"]
    return "bits", ["fd"], lines


# --------------------------------------------------------------------------- more floating point


def _fminmax(is_max):
    """min / max {.ftz}{.NaN} .f32 / .f64 (semantics/families/_float.minmax): -0 < +0, a NaN
    yields to the other operand, whose bits are returned; a NaN result bails."""
    def emit(mods, srcs, dsts):
        t = _one_type(mods, FLOAT_TYPES)
        _only(mods, {t, "ftz", "NaN"})
        if "ftz" in mods and t != "f32":
            raise _Reject
        a, b = srcs[0].expr, srcs[1].expr
        if "ftz" in mods:
            a, b = f"fz32({a})", f"fz32({b})"
        to, sign = ("f32", "S32") if t == "f32" else ("f64", "U(0x8000000000000000)")
        lines = [f"ab = {a}", f"bb = {b}", f"x = {to}(ab)", f"y = {to}(bb)",
                 "xn = math.isnan(x)", "yn = math.isnan(y)",
                 "if xn or yn:" if "NaN" in mods else "if xn and yn:", f"    {BAIL}"]
        if is_max:
            lines.append(f"tt = x > y or (x == y and (ab & {sign}) == U(0))")
        else:
            lines.append(f"tt = x < y or (x == y and (ab & {sign}) != U(0))")
        lines.append("tt = (tt or yn) and not xn")
        return "float", ["(ab if tt else bb)"], lines
    return emit


def _fsign(flip):
    """neg / abs .f32 {.ftz} / .f64: the sign bit flipped / cleared (after .ftz); a NaN bails
    (its result is the numerics policy's)."""
    def emit(mods, srcs, dsts):
        t = _one_type(mods, FLOAT_TYPES)
        _only(mods, {t, "ftz"})
        a = srcs[0].expr
        if t == "f32":
            if "ftz" in mods:
                a = f"fz32({a})"
            lines = [f"ab = {a}", "if math.isnan(f32(ab)):", f"    {BAIL}"]
            return "float", ["(ab ^ S32)" if flip else "(ab & M31)"], lines
        if "ftz" in mods:
            raise _Reject
        lines = [f"ab = {a}", "if math.isnan(f64(ab)):", f"    {BAIL}"]
        return "float", ["(ab ^ U(0x8000000000000000))" if flip else "(ab & U(0x7fffffffffffffff))"], lines
    return emit


def _fma64(srcs):
    """fma.rn.f64: LLVM's fma rounds once, as the hardware; a NaN result bails."""
    a, b, c = (s.expr for s in srcs)
    lines = [f"r = fma64(f64({a}), f64({b}), f64({c}))", "if math.isnan(r):", f"    {BAIL}"]
    return "float", ["f64b(r)"], lines


def _cvt_f16(mods, srcs, dsts):
    """cvt.rn.f16.f32 and cvt.rn.f16x2.f32 d, a, b (d = a's half above b's): round to nearest
    even on the bits (helpers.f16_rn); a NaN operand bails."""
    if set(mods) not in ({"rn", "f16", "f32"}, {"rn", "f16x2", "f32"}):
        raise _Reject
    lines = []
    for s in srcs:
        lines += [f"if math.isnan(f32({s.expr})):", f"    {BAIL}"]
    if "f16" in mods:
        return "convert", [f"f16_rn({srcs[0].expr})"], lines
    return "convert", [f"((f16_rn({srcs[0].expr}) << U(16)) | f16_rn({srcs[1].expr}))"], lines


def _cvt_any(mods, srcs, dsts):
    if "f16" in mods or "f16x2" in mods:
        return _cvt_f16(mods, srcs, dsts)
    return _cvt(mods, srcs, dsts)


def _ex2(mods, srcs, dsts):
    """ex2.approx.ftz.f32: MUFU.EX2 from its measured table (helpers.ex2_ftz); a NaN bails."""
    _only(mods, {"approx", "ftz", "f32"}, "approx", "ftz", "f32")
    a = srcs[0].expr
    lines = [f"if math.isnan(f32({a})):", f"    {BAIL}"]
    return "float", [f"ex2_ftz({a}, S_table_ex2)"], lines


def _div_float(mods, srcs, dsts):
    """div.full{.ftz}.f32 (helpers.div_full, MUFU.RCP's measured table); a NaN operand or result
    bails. div.rn and div.approx stay interpreted."""
    _only(mods, {"full", "ftz", "f32"}, "full", "f32")
    a, b = srcs[0].expr, srcs[1].expr
    lines = [f"if math.isnan(f32({a})) or math.isnan(f32({b})):", f"    {BAIL}",
             f"r = div_full({a}, {b}, {'True' if 'ftz' in mods else 'False'}, S_table_rcp)",
             "if math.isnan(r):", f"    {BAIL}"]
    return "float", ["f32b(r)"], lines


# --------------------------------------------------------------------------- packing moves


def _element_slot(lowerer, node, bits: int, scope) -> int:
    """The slot of a register of exactly `bits` bits (an element of a packing mov)."""
    if not isinstance(node, ast.Register) or node.negated or node.offset is not None or node.component is not None:
        raise _Reject
    try:
        sym = lowerer.register(node, scope)
    except Exception:  # noqa: BLE001
        raise _Reject from None
    dt = lowerer.regs.dtypes[sym.offset] if sym.space == "reg" else None
    if dt is None or dt.kind != "u" or dt.itemsize * 8 != bits:
        raise _Reject
    return sym.offset


def _mov_vector(lowerer, instr, mods, scope, reads, writes):
    """mov.b64 d, {a, b} / mov.b64 {a, b}, d (and .b32 with two .b16, .b64 with four): the
    first element is the least significant; `_` discards an element."""
    t = _one_type(mods, {"b32", "b64"})
    _only(mods, {t})
    w = BITS[t]
    d, v = instr.operands
    if isinstance(v, ast.VectorOperand) and not isinstance(d, ast.VectorOperand):  # pack
        n = len(v.elements)
        if n not in (2, 4) or (n == 4 and w != 64):
            raise _Reject
        k = w // n
        parts = []
        for j, e in enumerate(v.elements):
            slot = _element_slot(lowerer, e, k, scope)
            reads.add(slot)
            parts.append(f"(v{slot} << U({j * k}))" if j else f"v{slot}")
        return "move", [" | ".join(parts)], [], [_destination(lowerer, d, t, scope, writes)]
    if isinstance(d, ast.VectorOperand) and not isinstance(v, ast.VectorOperand):  # unpack
        n = len(d.elements)
        if n not in (2, 4) or (n == 4 and w != 64):
            raise _Reject
        k = w // n
        src = _source(lowerer, v, t, scope, reads)
        dsts, results = [], []
        for j, e in enumerate(d.elements):
            if isinstance(e, ast.Sink):
                dsts.append(Dst(None, t))
            else:
                slot = _element_slot(lowerer, e, k, scope)
                writes.add(slot)
                dsts.append(Dst(slot, t))
            results.append(f"(({src.expr} >> U({j * k})) & U({(1 << k) - 1:#x}))")
        return "move", results, [], dsts
    raise _Reject


# --------------------------------------------------------------------------- kernel parameters


def _ld_param(lowerer, instr, m, scope, mods):
    """ld.param{.type} d, [name+offset] in a kernel: a read of the launch's parameter buffer
    (read-only, the same for every thread) at an address fixed when lowering. A misaligned
    address is left to the interpreter (it faults); one past the buffer bails (the interpreter
    then faults there too)."""
    from ..memory.access import address_reader

    t = _one_type(mods, INT_TYPES | FLOAT_TYPES)
    _only(mods, {"param", t})
    if lowerer.current.kind != "entry" or len(instr.operands) != 2 or not isinstance(instr.operands[1], ast.Address):
        raise _Reject
    if isinstance(instr.operands[0], ast.VectorOperand):
        raise _Reject
    try:
        hint, address = address_reader(lowerer, instr.operands[1], scope)
    except Exception:  # noqa: BLE001 - the interpreter reports it
        raise _Reject from None
    if hint != "kparam":
        raise _Reject
    value = address(None, None)  # a kernel parameter's address is a constant
    if not isinstance(value, (int, np.integer)) or np.ndim(value):
        raise _Reject
    off, size = int(value), BITS[t] // 8
    if off % size or off < 0:
        raise _Reject
    parts = " | ".join(f"(U(P_param[{off + j}]) << U({8 * j}))" if j else f"U(P_param[{off}])" for j in range(size))
    lines = [f"if P_size < {off + size}:", f"    {BAIL}", f"q = {parts}"]
    return "param", ["q"], lines


EMITTERS: dict[str, Callable] = {
    "add": None, "sub": None, "mul": _mul, "mad": _mad, "neg": _neg, "abs": _abs,
    "min": _minmax(True), "max": _minmax(False),
    "and": _logic("&", "and"), "or": _logic("|", "or"), "xor": _logic("^", "!="), "not": _not,
    "shl": _shl, "shr": _shr, "mov": _mov, "selp": _selp, "setp": _setp, "cvt": _cvt_any, "fma": _fma, "cvta": _cvta,
    "rem": _divrem(False), "bfe": _bfe, "ld": None, "ex2": _ex2,
}


def _by_type(int_emit, float_emit):
    def emit(mods, srcs, dsts):
        if any(x in FLOAT_TYPES for x in mods):
            return float_emit(mods, srcs, dsts)
        return int_emit(mods, srcs, dsts)
    return emit


EMITTERS["add"] = _by_type(_int_binary("+"), _float_arith("+"))
EMITTERS["sub"] = _by_type(_int_binary("-"), _float_arith("-"))
EMITTERS["mul"] = _by_type(_mul, _float_arith("*"))
EMITTERS["div"] = _by_type(_divrem(True), _div_float)
EMITTERS["min"] = _by_type(_minmax(True), _fminmax(False))
EMITTERS["max"] = _by_type(_minmax(False), _fminmax(True))
EMITTERS["neg"] = _by_type(_neg, _fsign(True))
EMITTERS["abs"] = _by_type(_abs, _fsign(False))
