"""The Debugger's registers and expressions: typed register values of a lane or a warp (in the
selected frame), `print` and `evaluate`."""
from __future__ import annotations

from typing import Optional

import numpy as np

from ...engine.core.machine import EXITED
from .expr import Expression
from .program import DebuggerError
from .state import WARP, Frame
from .values import format_value, read_memory


class Registers:
    """Mixin of session.Debugger: registers, expressions and the selected frame."""

    def _function(self, slot: Optional[int] = None):
        """The function whose names apply: the selected frame's for the focus thread."""
        focus = self._slot()
        slot = focus if slot is None else slot
        if slot == focus and self.frame_level:
            return self.info.function(self._frame().function)
        return self.info.function_at(self._thread_pc(self.ctx, slot))

    def _frame(self) -> Frame:
        frames = self.backtrace()
        self.frame_level = min(self.frame_level, len(frames) - 1)
        return frames[self.frame_level]

    def select_frame(self, level: int) -> Frame:
        """gdb's `frame N`: names (registers, .param and .local variables) are then looked up in
        frame N of the focus thread's backtrace (0: the innermost); a stop or a focus change
        selects frame 0 again."""
        self._require_stopped()
        frames = self.backtrace()
        if not 0 <= level < len(frames):
            raise DebuggerError(f"no frame #{level} (the stack has {len(frames)} frame{'s' if len(frames) != 1 else ''})")
        self.frame_level = level
        return frames[level]

    def _storage(self, r: int, slots: np.ndarray, func) -> np.ndarray:
        """Register slot `r`'s storage over `slots`; in a selected outer frame of a function whose
        calls save its registers (recursion), the values saved in that frame."""
        if not self.frame_level or func.save_offset < 0:
            return self.ctx.regs[r][slots]
        frame = self._frame()
        k = 0
        for other in func.reg_slots:
            if other == r:
                break
            k += 2 if self.ctx.regs[other].dtype.itemsize == 16 else 1
        reg = self.ctx.regs[r]
        words = 2 if reg.dtype.itemsize == 16 else 1
        raw = read_memory(self.ctx, "local", frame.base + func.save_offset + 8 * k, 8 * words, int(slots[0]))
        saved = np.frombuffer(raw, dtype=np.uint64)
        return saved.view(reg.dtype) if words == 2 else (saved != 0 if reg.dtype == np.bool_ else saved.astype(reg.dtype))

    def _register_slot(self, name: str, func) -> int:
        regs = self.info.registers(func)
        slot = regs.get(name)
        if slot is None:
            raise DebuggerError(f"no register {name} in {func.name}" + (" (declared registers get storage when first used)"
                                                                          if name.startswith("%") else ""))
        if self.ctx.regs[slot].size == 0:
            raise DebuggerError(f"register {name} of {func.name} has no storage in this launch")
        return slot

    def _typed_lanes(self, ctx, name: str, slots: np.ndarray, func) -> np.ndarray:
        sreg = ctx.sreg.get(name)
        if sreg is not None:
            v = np.asarray(sreg)
            return (np.broadcast_to(v, (ctx.n,))[slots] if v.ndim == 0 else v[slots]).astype(np.int64)
        slot = self._register_slot(name, func)
        return typed(self._storage(slot, slots, func) if ctx is self.ctx else ctx.regs[slot][slots],
                     self.info.prog.regs.types[slot])

    def evaluate(self, expression: str, warp: bool = False):
        """The value of `expression` (registers, special registers, C operators) for the focus
        thread, or a list over the focus warp's 32 lanes (None for lanes that exited or do not exist)."""
        self._require_stopped()
        expr = Expression(expression)
        slots, func = self._lanes(warp)
        vals = expr.evaluate(lambda name: self._typed_lanes(self.ctx, name, slots, func), slots.size)
        if not warp:
            return vals[0].item()
        return self._by_lane(slots, [v.item() for v in vals])

    def _lanes(self, warp: bool):
        slot = self._slot()
        func = self._function(slot)
        if warp and self.frame_level:
            raise DebuggerError("frames are the focus thread's: a warp's lanes are shown in frame #0 (frame 0)")
        if not warp:
            return np.array([slot]), func
        lo, hi = self._warp_range(self.ctx, self.focus_cta, self.focus_warp)
        return np.arange(lo, hi), func

    def _by_lane(self, slots, values) -> list:
        out = [None] * WARP
        for s, v in zip(slots, values):
            if self.ctx.status[s] != EXITED:
                out[int(self.ctx.laneid[s])] = v
        return out

    def register(self, name: str, warp: bool = False):
        """A register's raw bits (an int) for the focus thread, or a list over the focus warp's lanes."""
        self._require_stopped()
        slots, func = self._lanes(warp)
        r = self._register_slot(name, func)
        from .values import raw_bits

        bits = raw_bits(self._storage(r, slots, func))
        return bits[0] if not warp else self._by_lane(slots, bits)

    def print(self, what: str, fmt: Optional[str] = None, warp: bool = False) -> str:
        """gdb's print: a register (typed as declared), a variable (.global .shared .local .const
        .param, read from memory), `&name` (its address) or an expression; for the focus thread or
        every lane of the focus warp."""
        self._require_stopped()
        what = what.strip()
        slots, func = self._lanes(warp)
        name = what[1:] if what.startswith("&") else what
        if _is_name(name):
            reg = self.info.registers(func).get(name)
            if reg is not None and not what.startswith("&"):
                if self.ctx.regs[reg].size == 0:
                    raise DebuggerError(f"register {name} has no storage in this launch")
                from .values import raw_bits

                t = self.info.prog.regs.types[reg]
                texts = [format_value(b, t, fmt) for b in raw_bits(self._storage(reg, slots, func))]
                return self._show(slots, texts, warp)
            if name in self.ctx.sreg and not what.startswith("&"):
                pass  # a special register: an expression
            elif not name.startswith("%"):
                sym = self.info.symbol(name, func)
                texts = [self._variable_text(sym, int(s), fmt, what.startswith("&")) for s in slots]
                return self._show(slots, texts, warp)
        expr = Expression(what)
        vals = expr.evaluate(lambda n: self._typed_lanes(self.ctx, n, slots, func), slots.size)
        return self._show(slots, [_format_computed(v, fmt) for v in vals], warp)

    def _show(self, slots, texts, warp: bool) -> str:
        if not warp:
            return texts[0]
        lines = []
        for s, t in zip(slots, texts):
            lane = int(self.ctx.laneid[s])
            state = " (exited)" if self.ctx.status[s] == EXITED else ""
            x, y, z = self.thread_of(int(self.ctx.thread_linear[s]))
            lines.append(f"lane {lane:2d} thread ({x},{y},{z}): {t}{state}")
        return "\n".join(lines)


def typed(raw: np.ndarray, ptx_type: str) -> np.ndarray:
    """Register storage over lanes -> values of the declared type (float64, int64 or bool)."""
    raw = np.asarray(raw)
    if ptx_type == "pred":
        return raw.astype(bool)
    if raw.dtype.kind == "V":
        raise DebuggerError("a .b128 register cannot be used in an expression (print it)")
    bits = raw.view(f"u{raw.dtype.itemsize}") if raw.dtype.kind in "iuf" else raw
    kind, width = ptx_type[0], raw.dtype.itemsize * 8
    if ptx_type == "bf16":
        return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)
    if kind == "f":
        return bits.view({16: np.float16, 32: np.float32, 64: np.float64}[width]).astype(np.float64)
    if kind == "s":
        return bits.view(f"i{raw.dtype.itemsize}").astype(np.int64)
    return bits.astype(np.uint64 if width == 64 else np.int64)


def _is_name(text: str) -> bool:
    import re

    return re.fullmatch(r"%?[A-Za-z_$][\w$]*(\.[xyzwrgba])?", text) is not None


def _format_computed(v, fmt: Optional[str]) -> str:
    v = np.asarray(v)
    if v.dtype == bool:
        return "true" if v else "false"
    if v.dtype.kind == "f":
        if fmt == "x":
            return f"0x{int(v.astype(np.float64).view(np.uint64)):016x}"
        return str(float(v)) if not float(v).is_integer() or fmt == "f" else str(float(v))
    i = int(v)
    if fmt == "x":
        return hex(i & (2**64 - 1)) if i < 0 else hex(i)
    return str(i)
