"""Which kernels must run in one process: what a kernel's PTX says about cross-CTA ordering.

A sharded launch (ptxvm/parallel) runs disjoint sets of CTAs against separate copies of global
memory and merges what they wrote. That equals the single-process result exactly when no CTA's
outcome depends on the order in which other CTAs' global-memory operations happen. The PTX shows
most kernels that do depend on it; `serial_reasons` lists them, and the launch then runs in one
process. (What the PTX cannot show, two CTAs storing different values to one byte, is caught
when the write sets are merged: see merge.py.)
"""
from __future__ import annotations

import os

from ..syntax import ast

# integer types whose atomics merge exactly (as deltas, or as min/max/and/or/xor of the results)
MERGEABLE_ATOMIC_TYPES = ("u32", "s32", "u64", "s64", "b32", "b64")
MERGEABLE_ATOMIC_OPS = ("add", "min", "max", "and", "or", "xor", "inc", "dec")
_POLLING_ORDERS = ("volatile", "relaxed", "acquire")
_LOCAL_SPACES = ("shared", "shared::cta", "shared::cluster", "local", "param", "const")
# special registers whose values come from a CTA's place in the single process's waves
_PLACEMENT_REGISTERS = {"%smid", "%clock", "%clock_hi", "%clock64", "%globaltimer", "%globaltimer_lo",
                        "%globaltimer_hi"}


def facts(module, kernel: str) -> tuple[list[str], bool, int]:
    """(serial_reasons, uses_device_objects, static_work) of a kernel, computed once per module."""
    cache = module.__dict__.setdefault("_parallel_facts", {})
    if kernel not in cache:
        cache[kernel] = (serial_reasons(module, kernel), uses_device_objects(module, kernel),
                         static_work(module, kernel))
    return cache[kernel]


def may_regroup(launch) -> bool:
    """Whether `launch` may run its CTAs in waves smaller than the GPU's residency (the engine's
    cache-sized waves, Launch.regroup): when its PTX shows no cross-CTA ordering (the condition
    for splitting it over processes) and no tool, trace or instruction limit observes its waves.
    PTXVM_REGROUP=0 keeps the GPU's waves for every launch."""
    if os.environ.get("PTXVM_REGROUP", "").strip() == "0":
        return False
    if launch.hooks is not None or launch.tracer is not None or launch.max_instructions is not None:
        return False
    return not facts(launch.module, launch.info.name)[0]


def serial_reasons(module, kernel: str) -> list[str]:
    """Why `kernel` cannot be split across processes (empty: it can), from its PTX and the PTX of
    every function it may call."""
    reasons: list[str] = []

    def add(text: str) -> None:
        if text not in reasons:
            reasons.append(text)

    functions = _reachable(module, kernel)
    instructions = [i for f in functions for i in _instructions(f.body)]
    read = _registers_read(instructions)
    placed: set = set()
    for ins in instructions:
        op, mods = ins.opcode, ins.modifiers
        names: set = set()
        for o in ins.operands:
            _names(o, names)
        placed |= names & _PLACEMENT_REGISTERS
        if op in ("atom", "red") and _space(mods) not in _LOCAL_SPACES:
            kind = next((m for m in mods if m in ("add", "min", "max", "and", "or", "xor", "inc", "dec", "exch", "cas")), "")
            types = [m for m in mods if m[:1] in "usbf" and m[1:].isdigit() or m in ("f16x2", "bf16x2", "bf16")]
            t = types[-1] if types else ""
            if kind in ("exch", "cas"):
                add(f"atom.{kind} on global memory (which CTA sees which old value depends on the order)")
            elif t not in MERGEABLE_ATOMIC_TYPES:
                add(f"floating-point {op}.{kind} on global memory (the rounding depends on the order of the updates)")
            elif op == "atom" and _dest_used(ins, read):
                add(f"atom.{kind} whose returned value the kernel uses (it depends on the order of the updates)")
        elif op == "ld" and _space(mods) not in _LOCAL_SPACES and any(m in _POLLING_ORDERS for m in mods):
            order = next(m for m in mods if m in _POLLING_ORDERS)
            add(f"ld.{order} of global memory (a flag other CTAs may set: the kernel may poll)")
        elif op == "call":
            target = _call_target(ins)
            if target == "vprintf":
                add("printf (the output's order is the single process's interleaving of CTAs)")
            elif target in ("malloc", "free"):
                add("device malloc/free (one heap for the whole launch)")
        elif op in ("sust", "sured"):
            add(f"{op} (surfaces write the host array in place)")
        elif op == "cp" and mods[:3] == ("reduce", "async", "bulk") and "global" in mods:
            add("cp.reduce.async.bulk into global memory (a reduction other CTAs may share)")
    if placed:
        add(f"reads {', '.join(sorted(placed))} (the values depend on which CTAs share a wave and how many steps "
            "ran before it: in a worker they would differ from the single process's)")
    return reasons


def uses_device_objects(module, kernel: str) -> bool:
    """Whether the kernel reads texture or surface objects (which live in this process's device
    registry, not in global memory: a Ray worker has no copy of them)."""
    return any(i.opcode in ("tex", "tld4", "txq", "suld", "suq", "sust", "sured")
               for f in _reachable(module, kernel) for i in _instructions(f.body))


def static_work(module, kernel: str) -> int:
    """Instructions in the kernel and what it calls: a rough per-thread cost for sizing."""
    return sum(1 for f in _reachable(module, kernel) for _ in _instructions(f.body))


def _reachable(module, kernel: str) -> list:
    prog = module.lazy_program.ensure(kernel)
    seen, stack = [], [kernel]
    while stack:
        name = stack.pop()
        if name in seen or name not in prog.functions:
            continue
        seen.append(name)
        stack.extend(sorted(prog.functions[name].callees))
    out = []
    for name in seen:
        f = module.ast.function(name)
        if f is not None and f.body is not None:
            out.append(f)
    return out


def _instructions(block):
    return () if block is None else block.instructions()


def _space(mods) -> str | None:
    for m in mods:
        if m.split("::")[0] in ("global", "shared", "local", "param", "const"):
            return m
    return None


def _names(node, out: set) -> None:
    if isinstance(node, ast.Register):
        out.add(node.name)
    elif isinstance(node, ast.Address):
        if node.base is not None:
            _names(node.base, out)
    elif isinstance(node, (ast.VectorOperand, ast.BracketList, ast.ParamList)):
        for e in node.elements:
            _names(e, out)
    elif isinstance(node, ast.PredPair):
        _names(node.first, out)
        _names(node.second, out)


def _registers_read(instructions) -> dict:
    """Register name -> how many instructions read it (guards, addresses, operands after the first).
    Conservative: an operand after the first counts as a read even where it is written."""
    counts: dict[str, int] = {}
    for ins in instructions:
        names: set = set()
        for k, o in enumerate(ins.operands):
            if k or isinstance(o, ast.Address):  # a first operand is a destination unless an address
                _names(o, names)
        if ins.guard is not None:
            names.add(ins.guard.register)
        for n in names:
            counts[n] = counts.get(n, 0) + 1
    return counts


def _dest_used(ins, read: dict) -> bool:
    dst = ins.operands[0] if ins.operands else None
    if dst is None or isinstance(dst, ast.Sink):
        return False
    names: set = set()
    _names(dst, names)
    return any(read.get(n, 0) for n in names)


def _call_target(ins) -> str | None:
    for o in ins.operands:
        if isinstance(o, ast.SymbolRef):
            return o.name
        if isinstance(o, ast.Immediate) and isinstance(o.expr, ast.SymbolRef):
            return o.expr.name
    return None
