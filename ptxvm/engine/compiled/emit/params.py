"""ld.param of a kernel's parameter buffer."""
from __future__ import annotations

import numpy as np

from ....syntax import ast
from .common import BAIL, BITS, FLOAT_TYPES, INT_TYPES, Reject, one_type, only

# --------------------------------------------------------------------------- kernel parameters


def ld_param(lowerer, instr, m, scope, mods):
    """ld.param{.type} d, [name+offset] in a kernel: a read of the launch's parameter buffer
    (read-only, the same for every thread) at an address fixed when lowering. A misaligned
    address is left to the interpreter (it faults); one past the buffer bails (the interpreter
    then faults there too)."""
    from ...memory.access import address_reader

    t = one_type(mods, INT_TYPES | FLOAT_TYPES)
    only(mods, {"param", t})
    if lowerer.current.kind != "entry" or len(instr.operands) != 2 or not isinstance(instr.operands[1], ast.Address):
        raise Reject
    if isinstance(instr.operands[0], ast.VectorOperand):
        raise Reject
    try:
        hint, address = address_reader(lowerer, instr.operands[1], scope)
    except Exception:  # noqa: BLE001 - the interpreter reports it
        raise Reject from None
    if hint != "kparam":
        raise Reject
    value = address(None, None)  # a kernel parameter's address is a constant
    if not isinstance(value, (int, np.integer)) or np.ndim(value):
        raise Reject
    off, size = int(value), BITS[t] // 8
    if off % size or off < 0:
        raise Reject
    parts = " | ".join(f"(U(P_param[{off + j}]) << U({8 * j}))" if j else f"U(P_param[{off}])" for j in range(size))
    lines = [f"if P_size < {off + size}:", f"    {BAIL}", f"q = {parts}"]
    return "param", ["q"], lines
