"""What every emitter shares: the `Step` an instruction becomes, its operands as expressions over
one lane's raw bits (`Src`, `Dst`), the reading of registers, immediates and special registers,
and small helpers for modifiers and widths. `Reject` ends a fused run: the interpreter runs that
instruction."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from ....syntax import ast
from ...core.operands import literal

INT_TYPES = {"b32", "u32", "s32", "b64", "u64", "s64"}
FLOAT_TYPES = {"f32", "f64"}
BITS = {"b32": 32, "u32": 32, "s32": 32, "f32": 32, "b64": 64, "u64": 64, "s64": 64, "f64": 64,
        "f16": 16, "f16x2": 32}  # the half types only as cvt.rn destinations

BAIL = "BAIL"  # source.py turns it into: record the lane, skip the rest of its block


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


class Reject(Exception):
    pass


# --------------------------------------------------------------------------- operands


def bits_of_literal(value, t: str) -> int:
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


def special(lowerer, node, t: str, scope, sregs: set) -> Src:
    try:
        sym = lowerer.register(node, scope)
    except Exception:  # noqa: BLE001
        raise Reject from None
    if sym.space != "sreg" or node.name not in SREGS or t not in ("u32", "s32", "b32") or node.negated:
        raise Reject
    if node.component is not None and node.component not in ("x", "y", "z"):
        raise Reject
    key = node.name if node.component is None else f"{node.name}.{node.component}"
    sregs.add(key)
    name = sreg_name(key)
    return Src(f"U({name}[i * U({name}_step)])", t)  # unsigned, as i: no float, no wrap-around


def source(lowerer, node, t: str, scope, reads: set, sregs: Optional[set] = None) -> Src:
    if t not in BITS and t != "pred":
        raise Reject
    if isinstance(node, ast.Register):
        if node.offset is not None or node.minus:
            raise Reject
        if sregs is not None and node.name.startswith("%") and node.name.split(".")[0] in SREGS:
            return special(lowerer, node, t, scope, sregs)
        if node.component is not None:
            raise Reject
        slot = register_slot(lowerer, node, t, scope)
        reads.add(slot)
        if node.negated:
            if t != "pred":
                raise Reject
            return Src(f"(not v{slot})", t)
        return Src(f"v{slot}", t)
    if isinstance(node, ast.Immediate):
        try:
            value = literal(node.expr, t)
        except Exception:  # noqa: BLE001 - a symbol's address or an odd literal: not fused
            raise Reject from None
        bits = bits_of_literal(value, t)
        return Src("True" if (t == "pred" and bits) else "False" if t == "pred" else f"U({bits:#x})", t)
    raise Reject


def register_slot(lowerer, node: ast.Register, t: str, scope) -> int:
    try:
        sym = lowerer.register(node, scope)
    except Exception:  # noqa: BLE001 - undeclared etc.: the interpreter reports it
        raise Reject from None
    if sym.space != "reg":
        raise Reject  # special registers, variable addresses
    dt = lowerer.regs.dtypes[sym.offset]
    if t == "pred":
        if dt.kind != "b":
            raise Reject
    elif t not in BITS or dt.kind != "u" or dt.itemsize * 8 != BITS[t]:
        raise Reject  # wider or narrower registers: truncation/extension rules stay interpreted
    return sym.offset


def destination(lowerer, node, t: str, scope, writes: set) -> Dst:
    if isinstance(node, ast.Sink):
        return Dst(None, t)
    if not isinstance(node, ast.Register) or node.negated or node.offset is not None or node.component is not None:
        raise Reject
    slot = register_slot(lowerer, node, t, scope)
    writes.add(slot)
    return Dst(slot, t)


def operands(lowerer, instr, m, scope, reads, writes, sregs=None):
    from ....isa.table import Kind, Role

    srcs, dsts = [], []
    specs = list(m.operands)
    while len(specs) > len(instr.operands) and specs[-1].spec.optional:  # min.f32 d, a, b{, c}: absent c
        specs.pop()
    if len(instr.operands) != len(specs):
        raise Reject
    for spec, node in zip(specs, instr.operands):
        if spec.type is None or isinstance(node, ast.VectorOperand):
            raise Reject
        t = spec.type.name
        if spec.kind is Kind.PAIR or spec.spec.second is not None:
            first, second = (node.first, node.second) if isinstance(node, ast.PredPair) else (node, None)
            dsts.append(destination(lowerer, first, t, scope, writes))
            dsts.append(destination(lowerer, second, "pred", scope, writes) if second is not None else Dst(None, "pred"))
        elif spec.role is Role.SRC:
            srcs.append(source(lowerer, node, t, scope, reads, sregs))
        elif spec.role is Role.DST:
            dsts.append(destination(lowerer, node, t, scope, writes))
        else:
            raise Reject
    return srcs, dsts


# --------------------------------------------------------------------------- helpers


def only(mods, allowed, *required):
    if not set(mods) <= set(allowed) or any(r not in mods for r in required):
        raise Reject


def one_type(mods, types):
    ts = [x for x in mods if x in types]
    if len(ts) != 1:
        raise Reject
    return ts[0]


def wrap(expr: str, t: str) -> str:
    return f"(({expr}) & M32)" if BITS[t] == 32 else f"({expr})"


def signed(x: str, t: str) -> str:
    """The int64 value of bits x read as the signed type of t's width."""
    return f"sx32({x})" if BITS[t] == 32 else f"i64({x})"


def numeric(x: str, t: str) -> str:
    """A value comparable in t's signedness: int64 for .sNN, the uint64 bits otherwise."""
    return signed(x, t) if t.startswith("s") else x


def element_slot(lowerer, node, bits: int, scope) -> int:
    """The slot of a register of exactly `bits` bits (an element of a packing mov)."""
    if not isinstance(node, ast.Register) or node.negated or node.offset is not None or node.component is not None:
        raise Reject
    try:
        sym = lowerer.register(node, scope)
    except Exception:  # noqa: BLE001
        raise Reject from None
    dt = lowerer.regs.dtypes[sym.offset] if sym.space == "reg" else None
    if dt is None or dt.kind != "u" or dt.itemsize * 8 != bits:
        raise Reject
    return sym.offset
