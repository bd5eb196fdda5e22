"""Variable initializers (ISA 5.4.x): constant expressions, nested braces, addresses."""
from __future__ import annotations

import numpy as np

from ...semantics.dtypes import bits_of, storage_dtype
from ...syntax import ast
from ...syntax.constexpr import evaluate
from .layout import type_size


def _flatten(init):
    if isinstance(init, ast.Initializer):
        for item in init.items:
            yield from _flatten(item)
    else:
        yield init


def _value_bits(item, ptx_type: str, address_of) -> int:
    bits = bits_of(ptx_type)
    if isinstance(item, ast.FloatLit):
        if ptx_type == "f32":
            if item.is_f32:
                return item.bits
            return int(np.float32(np.uint64(item.bits).view(np.float64)).view(np.uint32))
        if ptx_type == "f64":
            if item.is_f32:
                return int(np.float64(np.uint32(item.bits).view(np.float32)).view(np.uint64))
            return item.bits
        return item.bits & ((1 << bits) - 1)
    if isinstance(item, ast.Generic):
        return address_of(item.name, generic=True) + (int(evaluate(item.offset)) if item.offset is not None else 0)
    if isinstance(item, ast.Mask):  # 0xFF00(x): the byte of x that the mask selects, as a byte value
        low = (item.mask & -item.mask).bit_length() - 1
        return (_value_bits(item.operand, "b64", address_of) & item.mask) >> low
    names = _symbols(item)
    if names:
        value = evaluate(item, {n: address_of(n) for n in names})
    else:
        value = evaluate(item)
    if isinstance(value, float):
        if ptx_type == "f32":
            return int(np.float32(value).view(np.uint32))
        if ptx_type == "f64":
            return int(np.float64(value).view(np.uint64))
    if ptx_type == "f32" and isinstance(value, int):
        return int(np.float32(value).view(np.uint32))
    if ptx_type == "f64" and isinstance(value, int):
        return int(np.float64(value).view(np.uint64))
    return int(value) & ((1 << bits) - 1)


def _symbols(expr):
    out = []

    def walk(e):
        if isinstance(e, ast.SymbolRef):
            out.append(e.name)
        for f in ("operand", "left", "right", "cond", "if_true", "if_false"):
            sub = getattr(e, f, None)
            if sub is not None:
                walk(sub)

    walk(expr)
    return out


def write_initializer(buf: np.ndarray, offset: int, decl: ast.VarDecl, address_of) -> None:
    """Write `decl`'s initial value into `buf` at `offset` (little-endian, element after element;
    what does not fit in `buf` is left out)."""
    if decl.init is None:
        return
    t = decl.type
    size = type_size(decl) // (decl.vector or 1)
    dt = storage_dtype(t) if t not in ("texref", "samplerref", "surfref") else np.dtype(np.uint64)

    def addr(name, generic=False):
        try:
            return address_of(name, generic) if generic else address_of(name)
        except TypeError:
            return address_of(name)

    items = list(_flatten(decl.init))
    fits = max(0, min(len(items), (buf.size - offset) // size))
    mask = (1 << bits_of(t)) - 1 if t not in ("texref", "samplerref", "surfref") else (1 << 64) - 1
    plain = t not in ("f32", "f64")  # an integer literal of a float type converts numerically
    values = [it.value & mask if plain and type(it) is ast.IntLit else _value_bits(it, t, addr)
              for it in items[:fits]]  # one pass in Python, one vectorized write (Warp's tables: MBs)
    if values:
        raw = np.array(values, dtype=np.uint64).astype(dt).view(np.uint8)
        buf[offset : offset + raw.size] = raw
