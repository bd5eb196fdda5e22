"""Video instructions (ISA 9.7.17): the generic ALU lowering plus the operand selectors.

The selectors (`a.b1`, `b.h0`, `d.b2`, SIMD `d.h10`, `a.b3210`) are parsed as the register's
component; they are read here into the Spec (`asel`, `bsel`, `dsel` / `mask`) for the pure lane
functions of ptxvm/semantics/families/video.py. The register itself is read whole (Lowerer.register
falls back from `%r1.b0` to `%r1`).
"""
from __future__ import annotations

from dataclasses import replace

from ...semantics.registry import lane_function
from ...syntax import ast
from ..core.operands import alu_runner
from ..core.machine import Op
from ..core.operands import LoweringError

SIMD = {f"{op}{n}" for op in ("vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax", "vset") for n in (2, 4)}
SCALAR = {"vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vmad", "vset"}


def lower_video(lowerer, instr, m, scope):
    if m is None:
        return None
    spec = lowerer.spec(instr, m)
    values = dict(spec.values)
    names = [o.spec.name for o in m.operands]
    # operands were assigned in order; the optional c is the last one
    written = dict(zip(names, instr.operands))
    if len(instr.operands) < len(names):
        written = dict(zip([n for n in names if n != "c"], instr.operands))
    d_slot = "mask" if instr.opcode in SIMD else "dsel"
    for name, slot in (("d", d_slot), ("a", "asel"), ("b", "bsel")):
        node = written.get(name)
        if isinstance(node, ast.Register) and node.component is not None and len(node.component) > 1:
            values[slot] = node.component
    for name in ("a", "b", "c"):  # vmad's `-a`, `-b`, `-c`
        node = written.get(name)
        if isinstance(node, ast.Register) and node.minus:
            if instr.opcode != "vmad":
                raise LoweringError(f"{instr.opcode}: operand negation is vmad's only")
            values[f"neg_{name}"] = True
    fn = lane_function(replace(spec, values=values))
    readers = []
    for o in m.operands:
        node = written.get(o.spec.name)
        if o.spec.name == "d" or node is None:
            continue
        t = o.type.name if o.type is not None else "b32"
        readers.append(lowerer.reader(node, t, scope))
    d = written.get("d")
    if d is None:
        raise LoweringError(f"{instr.opcode}: no destination")
    dt = m.operands[names.index("d")].type
    writer = lowerer.writer(d, dt.name if dt is not None else "u32", scope)
    return [Op(alu_runner(fn, readers, [writer]))]


LOWERINGS = {op: lower_video for op in SIMD | SCALAR}
