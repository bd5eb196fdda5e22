"""Expressions over registers for conditions and `print`: `%r5 > 3 && %tid.x == 7`.

C's operators on registers (`%r5`, `%f2`, `%p1`, vector elements `%v.x`) and special registers
(`%tid.x`, `%ctaid.y`, `%laneid`, `%warpid`...), integer and float literals. An expression is
evaluated once over every lane of a group with NumPy (never per thread): a register reads as its
declared type says (floats as float64, integers as int64, predicates as bool).
"""
from __future__ import annotations

import ast as pyast
import re
from typing import Callable

import numpy as np

from .program import DebuggerError

_REGISTER = re.compile(r"%[A-Za-z_$][\w$]*(?:\.[xyzwrgba]\b)?")
_BINARY = {pyast.Add: np.add, pyast.Sub: np.subtract, pyast.Mult: np.multiply, pyast.BitAnd: np.bitwise_and,
           pyast.BitOr: np.bitwise_or, pyast.BitXor: np.bitwise_xor, pyast.LShift: np.left_shift,
           pyast.RShift: np.right_shift}
_COMPARE = {pyast.Eq: np.equal, pyast.NotEq: np.not_equal, pyast.Lt: np.less, pyast.LtE: np.less_equal,
            pyast.Gt: np.greater, pyast.GtE: np.greater_equal}


class Expression:
    """A parsed expression; `names` are the registers it reads (as written, with the %)."""

    def __init__(self, text: str):
        self.text = text.strip()
        if not self.text:
            raise DebuggerError("empty expression")
        self.names: list[str] = []

        def name_of(m):
            self.names.append(m.group(0))
            return f"__r{len(self.names) - 1}"

        py = _REGISTER.sub(name_of, self.text)
        py = py.replace("&&", " and ").replace("||", " or ")
        py = re.sub(r"!(?!=)", " not ", py)
        try:
            self.tree = pyast.parse(py.strip(), mode="eval").body
        except SyntaxError:
            raise DebuggerError(f"cannot parse expression {self.text!r}") from None
        self._check(self.tree)

    def _check(self, node) -> None:
        allowed = (pyast.BoolOp, pyast.BinOp, pyast.UnaryOp, pyast.Compare, pyast.Constant, pyast.Name,
                   pyast.And, pyast.Or, pyast.Not, pyast.USub, pyast.UAdd, pyast.Invert, pyast.Div, pyast.Mod,
                   *_BINARY, *_COMPARE)
        for n in pyast.walk(node):
            if not isinstance(n, allowed + (pyast.Load,)) or (isinstance(n, pyast.Constant) and
                                                                not isinstance(n.value, (int, float, bool))):
                raise DebuggerError(f"unsupported in an expression: {self.text!r} (registers, numbers and C operators only)")
            if isinstance(n, pyast.Name) and not n.id.startswith("__r") and n.id not in ("True", "False"):
                raise DebuggerError(f"unknown name {n.id!r} in {self.text!r} (registers are written with %: %r5, %tid.x)")

    def evaluate(self, read: Callable[[str], np.ndarray], n: int) -> np.ndarray:
        """The value over `n` lanes; `read(name)` gives a register's values over those lanes."""
        values = [read(name) for name in self.names]
        with np.errstate(all="ignore"):
            out = self._eval(self.tree, values)
        return np.broadcast_to(np.asarray(out), (n,))

    def _eval(self, node, values):
        if isinstance(node, pyast.Constant):
            return node.value
        if isinstance(node, pyast.Name):
            return {"True": True, "False": False}[node.id] if not node.id.startswith("__r") else values[int(node.id[3:])]
        if isinstance(node, pyast.BoolOp):
            parts = [np.asarray(self._eval(v, values)).astype(bool) for v in node.values]
            f = np.logical_and if isinstance(node.op, pyast.And) else np.logical_or
            out = parts[0]
            for p in parts[1:]:
                out = f(out, p)
            return out
        if isinstance(node, pyast.UnaryOp):
            v = self._eval(node.operand, values)
            if isinstance(node.op, pyast.Not):
                return np.logical_not(v)
            if isinstance(node.op, pyast.USub):
                return np.negative(v)
            if isinstance(node.op, pyast.Invert):
                return np.invert(np.asarray(v).astype(np.int64) if np.asarray(v).dtype == bool else v)
            return v
        if isinstance(node, pyast.BinOp):
            a, b = self._eval(node.left, values), self._eval(node.right, values)
            if isinstance(node.op, (pyast.Div, pyast.Mod)):
                return _divide(a, b, isinstance(node.op, pyast.Mod))
            try:
                return _BINARY[type(node.op)](a, b)
            except TypeError:
                raise DebuggerError(f"operator needs integers in {self.text!r}") from None
        if isinstance(node, pyast.Compare):
            out, left = None, self._eval(node.left, values)
            for op, right_node in zip(node.ops, node.comparators):
                right = self._eval(right_node, values)
                r = _COMPARE[type(op)](left, right)
                out = r if out is None else np.logical_and(out, r)
                left = right
            return out
        raise DebuggerError(f"unsupported in an expression: {self.text!r}")


def _divide(a, b, remainder: bool):
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind in "fc" or b.dtype.kind in "fc":
        return np.fmod(a, b) if remainder else np.true_divide(a, b)
    if np.any(b == 0):
        raise DebuggerError("division by zero")
    q = np.trunc(np.true_divide(a, b)).astype(np.int64)  # C truncates toward zero
    return a - b * q if remainder else q
