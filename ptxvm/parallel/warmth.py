"""Warm-up a forked worker does, kept by the parent, so that it is paid once and not by every
worker of every split launch.

A forked worker inherits the parent's compiled code: Numba functions already compiled for the
argument types they meet, and the compiled tier's fused blocks (engine/compiled) with their
tiering counters. What a worker compiles, or loads from the disk cache, while it runs, and the
counts it adds, end with it. Without this, a parent that never ran the kernel itself has every
worker of every launch load the same machine code again (about 0.2 s of CPU per worker per
launch for the Triton matmul), and its tiering counters never see the work done in workers.

So a worker notes (`snapshot` before its CTAs, `learned` after) which Numba functions of ptxvm's
modules got new signatures, which fused blocks it compiled, and how much each block's counters
grew, and sends that with its write set. The parent (`adopt`) adds the counts to its blocks and
compiles the same signatures and blocks (in practice it loads them from the disk cache the
worker filled), once; later workers inherit them. None of this changes what a kernel computes
(compiled and interpreted code give the same bits); anything that goes wrong here is ignored.
"""
from __future__ import annotations

import importlib
import pickle
import sys
import time
from dataclasses import dataclass, field


@dataclass
class Learned:
    signatures: list = field(default_factory=list)  # (module, attribute, Numba signature) compiled in the worker
    blocks: list = field(default_factory=list)  # (pc, more executed, more spent, compiled in the worker)


_FOUND: tuple = (None, [])  # (sys.modules' size when the list was made, the list): see _numba_functions


def _numba_functions() -> list:
    """(module, attribute, dispatcher) of each Numba function at the top level of ptxvm's modules.
    Looking through every module's attributes takes milliseconds, paid twice by every worker of
    every launch; the list is kept until a module is imported (Numba functions are made at import),
    and a forked worker inherits it."""
    global _FOUND
    if "numba" not in sys.modules:
        return []
    if _FOUND[0] == len(sys.modules):
        return _FOUND[1]
    from numba.core.dispatcher import Dispatcher

    out = []
    for name, module in list(sys.modules.items()):
        if module is None or not (name == "ptxvm" or name.startswith("ptxvm.")):
            continue
        for attr, obj in list(vars(module).items()):
            if isinstance(obj, Dispatcher):
                out.append((name, attr, obj))
    _FOUND = (len(sys.modules), out)
    return out


def _blocks(program) -> dict:
    return {op.fused.pc: op.fused for op in program.code if getattr(op, "fused", None) is not None}


def snapshot(program):
    """What the worker has when its CTAs start (its parent's state)."""
    return ({(m, a): len(d.signatures) for m, a, d in _numba_functions()},
            {pc: (b.executed, b.spent, b.function is not None) for pc, b in _blocks(program).items()})


def learned(program, before) -> bytes | None:
    """What the worker compiled and counted since `snapshot`, pickled (the parent unpickles it in
    `adopt`, where a failure costs nothing); None if nothing, or if it would not pickle."""
    try:
        counts, blocks = before
        out = Learned()
        for m, a, d in _numba_functions():
            out.signatures += [(m, a, sig) for sig in d.signatures[counts.get((m, a), 0):]]
        for pc, b in _blocks(program).items():
            executed, spent, had = blocks.get(pc, (0, 0.0, False))
            compiled = b.function is not None and not had
            if compiled or b.executed != executed:
                out.blocks.append((pc, b.executed - executed, b.spent - spent, compiled))
        if not out.signatures and not out.blocks:
            return None
        return pickle.dumps(out)
    except Exception:  # noqa: BLE001 - an optimization only
        return None


def adopt(program, results) -> float:
    """In the parent, after a split launch: add the workers' counts to the blocks, compile what they
    compiled; returns the seconds that took. A report that cannot be read or used is skipped."""
    start = time.perf_counter()
    found = [got for got in (_unpickle(r.learned) for r in results if r.learned is not None) if got is not None]
    if not found:
        return 0.0
    blocks = _blocks(program)
    compiled = set()
    for got in found:
        for pc, executed, spent, done in got.blocks:
            b = blocks.get(pc)
            if b is not None:
                b.executed += executed
                b.spent += spent
                if done:
                    compiled.add(pc)
    for pc in sorted(compiled):
        _quietly(blocks[pc].compile_now)
    for m, a, sig in {(m, a, sig) for got in found for m, a, sig in got.signatures}:
        _quietly(_compile_signature, m, a, sig)
    return time.perf_counter() - start


def _unpickle(data: bytes):
    try:
        got = pickle.loads(data)
    except Exception:  # noqa: BLE001 - an optimization only
        return None
    return got if isinstance(got, Learned) else None


def _compile_signature(module: str, attr: str, sig) -> None:
    d = getattr(importlib.import_module(module), attr, None)  # a module the worker imported, perhaps first
    if d is not None and hasattr(d, "signatures") and sig not in d.signatures:
        d.compile(sig)


def _quietly(fn, *args) -> None:
    try:
        fn(*args)
    except Exception:  # noqa: BLE001 - an optimization only: the workers compile it again if need be
        pass
