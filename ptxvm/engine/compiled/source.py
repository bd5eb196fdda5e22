"""The Python source of one fused block: one Numba function, one loop over lanes.

    @njit(cache=True, nogil=True)
    def block(n, lanes, use_lanes, bail, a3, a7, ..., S_tid_x, S_tid_x_step):
        # a<slot>: register <slot>'s array; S_<name>: a special register's (sregs)
        nb = 0
        for k in range(n):
            i = np.uint64(lanes[k] if use_lanes else k)   # unsigned: no wrap-around on a[i]
            v3 = U(a3[i]); v7 = U(a7[i]) ...             # every register the block touches
            ... the steps, in program order (a guarded one under `if v<p>:`) ...
            a7[i] = np.uint32(v7) ...                      # the registers it writes
        return nb                                          # lanes that bailed: bail[:nb]

A lane that bails (`BAIL` in a step) records itself and skips its stores, so it has changed
nothing; the runtime then interprets the block for those lanes.

The lane index `i` is unsigned: Numba gives every array read with a signed index a wrap-around
for negative values, which it cannot rule out for lanes[k]; without it a block runs ~1.7x faster
(the 16M vector add's setup block, 65536 lanes: 0.28 -> 0.16 ms).
"""
from __future__ import annotations

import re

import numpy as np

from .emit import BAIL, Step, sreg_name

HEADER = """import math
import numpy as np
from numba import njit
from ptxvm.engine.compiled.helpers import *


@njit(cache=True, nogil=True)
"""
_TEMPS = re.compile(r"\b(x|y|tt|r|rb|p|s|ab|bb|xn|yn|da|db|ma|mb|q|pos|ln|ins|fd|top|w\d+)\b")
_CONSTANT = re.compile(r"\bU\((0x[0-9a-fA-F]+|\d+)\)")


def _store(slot: int, dtype: np.dtype) -> str:
    if dtype == np.bool_:
        return f"a{slot}[i] = v{slot}"
    if dtype == np.uint64:
        return f"a{slot}[i] = v{slot}"
    return f"a{slot}[i] = np.{dtype.name}(v{slot})"


def _load(slot: int, dtype: np.dtype) -> str:
    if dtype == np.bool_:
        return f"v{slot} = a{slot}[i]"
    return f"v{slot} = U(a{slot}[i])"


def block_source(steps: list[Step], texts: list[str], dtypes) -> tuple[str, list[int], list[str]]:
    """(source, register slots in argument order, special registers after them) of the
    function running `steps`. A special register comes as a uint32 array and a step (1: one
    value per thread slot, 0: one value for all); "params" last: the kernel's parameter buffer
    (uint8) and its size in bytes."""
    slots = sorted(set().union(*(s.reads | s.writes for s in steps)))
    written = sorted(set().union(*(s.writes for s in steps)))
    specials = sorted(set().union(*(s.sregs for s in steps)))
    args = ", ".join([f"a{s}" for s in slots] + [f"{sreg_name(k)}, {sreg_name(k)}_step" for k in specials] +
                     (["P_param, P_size"] if any(s.params for s in steps) else []))
    out = [f"def block(n, lanes, use_lanes, bail, {args}):", "    nb = 0", "    for k in range(n):",
           "        i = np.uint64(lanes[k] if use_lanes else k)"]
    out += [f"        {_load(s, dtypes[s])}" for s in slots]
    for j, (step, text) in enumerate(zip(steps, texts)):
        out.append(f"        # {text}")
        indent = "        "
        if step.guard is not None:
            slot, negated = step.guard
            out.append(f"{indent}if {'not ' if negated else ''}v{slot}:")
            indent += "    "
        for line in step.lines:
            line = _TEMPS.sub(lambda m: f"{m.group(1)}_{j}", line)
            pad = indent + " " * (len(line) - len(line.lstrip()))
            if line.strip() == BAIL:
                out += [f"{pad}bail[nb] = i", f"{pad}nb += 1", f"{pad}continue"]
            else:
                out.append(indent + line)
    out += [f"        {_store(s, dtypes[s])}" for s in written]
    out.append("    return nb")
    body = "\n".join(out)
    # uint64 constants as module globals: Numba freezes them, where U(...) would be a call to type
    values = sorted({int(v, 0) for v in _CONSTANT.findall(body)})
    body = _CONSTANT.sub(lambda m: f"K{int(m.group(1), 0):x}", body)
    constants = "".join(f"K{v:x} = np.uint64({v:#x})\n" for v in values)
    if any(s.params for s in steps):
        specials.append("params")
    return HEADER.replace("\n\n\n@njit", "\n" + constants + "\n\n@njit") + body + "\n", slots, specials
