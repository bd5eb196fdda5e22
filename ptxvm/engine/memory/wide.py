""".b128 registers (PTX 8.3): 16 raw bytes per lane (NumPy "V16"), seen as (lo, hi) uint64 pairs.

mov.b128 packs two .b64 values into one (`mov.b128 %q, {%lo, %hi}`), unpacks one into two, or
copies; ld/st/atom move them through memory (memory_ops.py, atomics.py). No arithmetic exists
on .b128.
"""
from __future__ import annotations

import numpy as np

from ...syntax import ast
from ..core.machine import Op

V16 = np.dtype("V16")


def halves(v, n: int) -> np.ndarray:
    """(n, 2) uint64 (lo, hi) of b128 values (an array of V16, or one broadcast value)."""
    a = np.ascontiguousarray(np.broadcast_to(np.asarray(v), (n,)))
    return a.view(np.uint64).reshape(n, 2)


def join(pairs: np.ndarray) -> np.ndarray:
    """V16 values from (n, 2) uint64 (lo, hi) rows."""
    return np.ascontiguousarray(pairs, dtype=np.uint64).view(V16).reshape(-1)


def lower_mov(lowerer, instr, m, scope):
    """mov.b128 only; every other mov goes the generic way (None)."""
    if m is None or m.type is None or m.type.name != "b128":
        return None
    dst, src = instr.operands[0], instr.operands[1]
    if isinstance(src, ast.VectorOperand):  # pack {lo, hi}
        lo, hi = (lowerer.reader(e, "b64", scope) for e in src.elements)
        w = lowerer.writer(dst, "b128", scope)

        def pack(ctx, lanes):
            n = ctx.n if lanes is None else lanes.size
            pairs = np.stack([np.broadcast_to(np.asarray(lo(ctx, lanes), np.uint64), (n,)),
                              np.broadcast_to(np.asarray(hi(ctx, lanes), np.uint64), (n,))], axis=1)
            w(ctx, lanes, join(pairs))

        return [Op(pack)]
    r = _immediate(src) if isinstance(src, ast.Immediate) else lowerer.reader(src, "b128", scope)
    if isinstance(dst, ast.VectorOperand):  # unpack into {lo, hi}
        wl, wh = (lowerer.writer(e, "b64", scope) for e in dst.elements)

        def unpack(ctx, lanes):
            n = ctx.n if lanes is None else lanes.size
            pairs = halves(r(ctx, lanes), n)
            wl(ctx, lanes, np.ascontiguousarray(pairs[:, 0]))
            wh(ctx, lanes, np.ascontiguousarray(pairs[:, 1]))

        return [Op(unpack)]
    w = lowerer.writer(dst, "b128", scope)
    return [Op(lambda ctx, lanes: w(ctx, lanes, np.array(r(ctx, lanes), copy=True)))]


def _immediate(node):
    """A literal as a b128 value (zero-extended to 128 bits)."""
    from ...syntax.constexpr import evaluate

    v = int(evaluate(node.expr)) & ((1 << 128) - 1)
    value = join(np.array([[v & (2**64 - 1), v >> 64]], dtype=np.uint64))[0]
    return lambda ctx, lanes: value


LOWERINGS = {"mov": lower_mov}
