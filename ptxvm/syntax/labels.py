"""Labels are scoped to the `{ }` block that declares them (ISA "Scope"): a branch names the label
of its own block or, failing that, of the nearest enclosing one. Inline assembly repeats its
labels in every expansion (CuTe's and CUTLASS's mbarrier wait loops are `{ .reg .pred P1; LAB_WAIT:
... bra.uni LAB_WAIT; DONE: }`), so one function may hold many labels of one name.

`with_unique_labels(body)` gives the body with every such label renamed apart (`LAB_WAIT$3`) and
each branch pointing to the label it means, so the engine's and the timing model's flat
name-to-position maps need no scopes. A body without a repeated label comes back as it is.
"""
from __future__ import annotations

import dataclasses
import itertools
from collections import Counter

from . import ast


def with_unique_labels(body: ast.Block) -> ast.Block:
    counts: Counter = Counter()
    _count(body, counts)
    repeated = {name for name, n in counts.items() if n > 1}
    if not repeated:
        return body
    return _rewrite(body, {}, repeated, itertools.count(1), outermost=True)


def _count(block: ast.Block, counts: Counter) -> None:
    for s in block.statements:
        if isinstance(s, ast.Label):
            counts[s.name] += 1
        elif isinstance(s, ast.Block):
            _count(s, counts)


def _rewrite(block: ast.Block, visible: dict, repeated: set, serial, outermost: bool = False) -> ast.Block:
    visible = dict(visible)
    for s in block.statements:
        if isinstance(s, ast.Label) and s.name in repeated:
            visible[s.name] = s.name if outermost else f"{s.name}${next(serial)}"
    out = []
    for s in block.statements:
        if isinstance(s, ast.Label) and s.name in visible:
            s = dataclasses.replace(s, name=visible[s.name])
        elif isinstance(s, ast.Instruction):
            s = _retarget(s, visible)
        elif isinstance(s, ast.BranchTargets):
            s = dataclasses.replace(s, targets=tuple(visible.get(t, t) for t in s.targets))
        elif isinstance(s, ast.Block):
            s = _rewrite(s, visible, repeated, serial)
        out.append(s)
    return dataclasses.replace(block, statements=tuple(out))


def _retarget(instr: ast.Instruction, visible: dict) -> ast.Instruction:
    """A branch's label operand renamed to the label in scope (operands are shared between
    instructions: new nodes, never edits)."""
    if instr.opcode not in ("bra", "brx") or not visible:
        return instr
    operands = list(instr.operands)
    changed = False
    for i, op in enumerate(operands):
        if isinstance(op, ast.Immediate) and isinstance(op.expr, ast.SymbolRef) and op.expr.name in visible:
            new = visible[op.expr.name]
            if new != op.expr.name:
                operands[i] = dataclasses.replace(op, expr=dataclasses.replace(op.expr, name=new))
                changed = True
    return dataclasses.replace(instr, operands=tuple(operands)) if changed else instr
