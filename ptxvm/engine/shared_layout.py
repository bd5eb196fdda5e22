"""Static shared memory laid out per kernel, as ptxas allocates it.

A module-scope `.shared` variable takes space only in the kernels that can reach it (their own
bodies and the functions they call): nvcc emits every `__shared__` array of a .cu file at module
scope, so a file with several kernels would otherwise make each of them pay for all the others'
arrays (ptxas -v: each kernel's smem is its own variables only; unused ones take none).

One offset per variable (the lowered code of a `.func` is shared by every kernel that calls it):
variables are placed first-fit in declaration order, each at the lowest offset where it overlaps no
variable that some kernel also reaches. A module with one kernel gets the declaration-order layout.
"""
from __future__ import annotations

import dataclasses

from ..syntax import ast


def names_in(node, out: set) -> None:
    """Every name an instruction, operand or expression mentions (registers, symbols)."""
    if isinstance(node, (ast.SymbolRef, ast.Register, ast.Generic)):
        out.add(node.name)
    if isinstance(node, tuple):
        for x in node:
            names_in(x, out)
    elif dataclasses.is_dataclass(node) and not isinstance(node, (ast.IntLit, ast.FloatLit)):
        for f in dataclasses.fields(node):
            if f.name != "span":
                names_in(getattr(node, f.name), out)


def _body_names(block: ast.Block, out: set) -> bool:
    """Names the body's instructions mention; True if it makes an indirect call."""
    indirect = False
    for s in block.instructions():
        for op in s.operands:
            names_in(op, out)
        if s.opcode == "call":
            target = next((op for op in s.operands if not isinstance(op, ast.ParamList)), None)
            indirect |= isinstance(target, ast.Register)
    return indirect


def reachable_names(functions: dict) -> dict[str, set]:
    """kernel name -> the names mentioned by it and every function it can call. An indirect call
    can reach any function (the conservative answer: more space, never less)."""
    mentions, indirect = {}, set()
    for name, info in functions.items():
        out: set = set()
        if info.decl is not None and info.decl.body is not None and _body_names(info.decl.body, out):
            indirect.add(name)
        mentions[name] = out
    funcs = [n for n, i in functions.items() if i.kind == "func"]
    result = {}
    for kernel, info in functions.items():
        if info.kind != "entry":
            continue
        seen, stack, names = set(), [kernel], set()
        while stack:
            f = stack.pop()
            if f in seen or f not in mentions:
                continue
            seen.add(f)
            names |= mentions[f]
            stack.extend(n for n in mentions[f] if n in functions)
            if f in indirect:
                stack.extend(funcs)
        result[kernel] = names | seen
    return result


def place(variables: list, users: list[frozenset]) -> list[int]:
    """Offsets for `variables` ((size, align) in declaration order) used by the kernel sets
    `users`: first fit, never overlapping a variable that shares a kernel."""
    placed: list[tuple[int, int, frozenset]] = []
    offsets = []
    for (size, align), kernels in zip(variables, users):
        off = 0
        if kernels:
            clashes = sorted((o, o + s) for o, s, k in placed if k & kernels)
            for start, end in clashes:
                off = -(-off // align) * align
                if off + size <= start:
                    break
                off = max(off, end)
            off = -(-off // align) * align
            placed.append((off, size, kernels))
        offsets.append(off)
    return offsets
