"""The Debugger's memory inspection: variables' addresses in each state space and bytes as the
focus thread sees them."""
from __future__ import annotations

from typing import Optional, Union

import numpy as np

from .expr import Expression
from .program import DebuggerError
from .registers import _is_name
from .values import read_memory


class Memory:
    """Mixin of session.Debugger: variables and memory."""

    def _dynamic_shared(self) -> int:
        return self.info.prog.dynamic_shared_base

    def symbol_address(self, name: str, slot: Optional[int] = None) -> tuple[str, int, object]:
        """(space, space-relative address, Symbol) of a variable in the focus thread's context."""
        slot = self._slot() if slot is None else slot
        func = self._function(slot)
        sym, owner = self.info.symbol_and_owner(name, func)
        space = sym.space
        if space == "global":
            return "global", sym.offset, sym
        if space == "const":
            return "const", sym.offset, sym
        if space == "shared":
            return "shared", sym.offset + (self._dynamic_shared() if sym.dynamic else 0), sym
        if space == "slocal":
            return "local", sym.offset, sym
        if space == "kparam":
            return "param", sym.offset, sym
        if space in ("fparam", "flocal"):
            if owner is func and self.frame_level and slot == self._slot():
                base = self._frame().base
            elif owner is func:
                base = int(self.ctx.frame_base[slot])
            else:  # the kernel's frame, below every call frame
                base = self._entry_base
            return "local", base + sym.offset, sym
        raise DebuggerError(f"{name} is a {space} symbol, not a variable in memory")

    def _variable_text(self, sym, slot: int, fmt: Optional[str], address: bool) -> str:
        space, addr, _ = self.symbol_address(sym.name, slot)
        if address:
            return f"(.{space}) 0x{addr:x}"
        from .values import elements

        size = sym.size if sym.size else 0
        if not size:
            raise DebuggerError(f"{sym.name} has no size here (an extern or dynamic array): use x with its address")
        shown = min(size, 256)
        vals = elements(read_memory(self.ctx, space, addr, shown, slot), sym.type, fmt)
        count = size // max(1, (int(sym.type[1:]) // 8 if sym.type[1:].isdigit() else 1))
        if count <= 1 and vals:
            return vals[0]
        return "{" + ", ".join(vals) + (", ..." if shown < size else "") + "}"

    def read_memory(self, address: Union[int, str], size: int, space: str = "generic") -> bytes:
        """`size` bytes at `address` (or a variable's name) in `space`, as the focus thread sees them."""
        self._require_stopped()
        slot = self._slot()
        if isinstance(address, str) and _is_name(address.lstrip("&")) and not address.startswith("%"):
            space, address, _ = self.symbol_address(address.lstrip("&"), slot)
        elif isinstance(address, str):
            address = self._address_value(address, slot)
        return read_memory(self.ctx, space, int(address), int(size), slot)

    def _address_value(self, text: str, slot: int) -> int:
        text = text.strip()
        try:
            return int(text, 0)
        except ValueError:
            pass
        v = Expression(text).evaluate(lambda n: self._typed_lanes(self.ctx, n, np.array([slot]), self._function(slot)), 1)[0]
        if not float(v).is_integer():
            raise DebuggerError(f"{text!r} is not an address")
        return int(v) & (2**64 - 1)
