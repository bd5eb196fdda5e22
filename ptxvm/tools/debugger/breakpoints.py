"""The Debugger's breakpoints and watchpoints: setting and deleting them (caller's thread) and
deciding, inside the engine's hooks (worker thread), whether one is hit."""
from __future__ import annotations

import os
from typing import Optional, Union

import numpy as np

from .expr import Expression
from .program import DebuggerError
from .state import WARP, Breakpoint, Watchpoint
from .values import read_memory


class Breakpoints:
    """Mixin of session.Debugger: breakpoints and watchpoints."""

    def _next_number(self) -> int:
        self._number += 1
        return self._number

    def resolve(self, location: Union[int, str]) -> tuple[list[int], str]:
        """PCs of a location: a PTX line (int or "N"), "file:N" (a .cu/.ptx file; .loc lines for
        source files), a function name, or "*PC"."""
        if isinstance(location, (int, np.integer)):
            pcs, line = self.info.pcs_at_ptx_line(int(location))
            return pcs, f"{self.info.where(pcs[0])[0]}:{line}"
        text = str(location).strip()
        if text.startswith("*"):
            try:
                pc = int(text[1:], 0)
            except ValueError:
                raise DebuggerError(f"bad PC {text!r}") from None
            if not 0 <= pc < len(self.info.code):
                raise DebuggerError(f"no instruction at PC {pc}")
            return [pc], f"PC {pc}"
        if text.isdigit():
            return self.resolve(int(text))
        if ":" in text:
            file, _, line = text.rpartition(":")
            if not line.isdigit():
                raise DebuggerError(f"bad location {text!r} (FILE:LINE, LINE, FUNCTION or *PC)")
            if os.path.basename(file) in {os.path.basename(op.file or "") for op in self.info.code}:
                pcs, n = self.info.pcs_at_ptx_line(int(line), file)
                return pcs, f"{os.path.basename(file)}:{n}"
            return self.info.pcs_at_source_line(file, int(line)), text
        f = self.info.function(text)
        return [f.entry_pc], text

    def break_at(self, location: Union[int, str], condition: Optional[str] = None, *, cta=None, thread=None,
                 lane: Optional[int] = None, temporary: bool = False) -> Breakpoint:
        """A breakpoint at `location` (see `resolve`), for the threads of `cta`/`thread`/`lane` only
        when given, and only where `condition` (an expression over registers) holds."""
        pcs, where = self.resolve(location)
        expr = Expression(condition) if condition else None
        if expr is not None:
            self._check_names(expr, pcs)
        bp = Breakpoint(self._next_number(), where, pcs, expr,
                        None if cta is None else self._linear(cta, self.grid, "block"),
                        None if thread is None else self._linear(thread, self.block, "thread"),
                        None if lane is None else int(lane), temporary)
        if bp.lane is not None and not 0 <= bp.lane < WARP:
            raise DebuggerError(f"lane {lane} is not 0-31")
        self.breakpoints[bp.number] = bp
        for pc in pcs:
            self._bp_pcs.setdefault(pc, []).append(bp)
        return bp

    def _check_names(self, expr: Expression, pcs: list) -> None:
        """Every register a condition reads exists where the breakpoint is (else a typo would
        surface only when the breakpoint is reached)."""
        from ...engine.core import sregs

        for pc in pcs:
            func = self.info.function_at(pc)
            regs = self.info.registers(func)
            for name in expr.names:
                if name not in regs and not sregs.is_special(name) and not sregs.is_special(name.rsplit(".", 1)[0]):
                    raise DebuggerError(f"no register {name} in {func.name}, where the breakpoint is")

    def watch(self, target: Union[int, str], size: Optional[int] = None, space: Optional[str] = None,
              ptx_type: Optional[str] = None) -> Watchpoint:
        """Stop after any write to `size` bytes at `target` (an address, or a .global/.shared
        variable's name); shared watchpoints watch the focus block's copy."""
        wtype = ptx_type or "b32"
        if isinstance(target, str) and not target.strip().lstrip("-").isdigit() and not target.strip().startswith("0x"):
            sym = self.info.symbol(target.strip(), self._function() if self.stopped else self.info.entry)
            if sym.space not in ("global", "shared"):
                raise DebuggerError(f"{target}: watchpoints watch .global or .shared variables (this one is .{sym.space})")
            space = sym.space
            address = sym.offset + (self._dynamic_shared() if sym.dynamic else 0)
            size = size or max(sym.size, 1)
            wtype = ptx_type or sym.type
            if ptx_type is None and size in (2, 4, 8) and size * 8 > _width(sym.type):
                wtype = f"b{size * 8}"  # a word of a byte array: shown as one value
        else:
            address = int(str(target), 0) if isinstance(target, str) else int(target)
            space = space or "generic"
            size = size or 4
            if space == "generic":
                from .values import classify

                space, address = classify(address)
            if space not in ("global", "shared"):
                raise DebuggerError(f"watchpoints watch global or shared memory, not {space}")
        w = Watchpoint(self._next_number(), str(target), space, int(address), int(size), wtype,
                       self.focus_cta if space == "shared" else None)
        self.watchpoints[w.number] = w
        return w

    def delete(self, number: Optional[int] = None) -> None:
        """Delete breakpoint or watchpoint `number` (all of them when None)."""
        numbers = list(self.breakpoints) + list(self.watchpoints) if number is None else [number]
        for n in numbers:
            bp = self.breakpoints.pop(n, None)
            if bp is not None:
                for pc in bp.pcs:
                    self._bp_pcs[pc].remove(bp)
                    if not self._bp_pcs[pc]:
                        del self._bp_pcs[pc]
            elif self.watchpoints.pop(n, None) is None:
                raise DebuggerError(f"no breakpoint or watchpoint number {n}")

    # -- called in the worker, inside hooks
    def _breakpoint_lane(self, ctx, bp: Breakpoint, pc: int, group: np.ndarray) -> Optional[int]:
        if not bp.enabled:
            return None
        cand = group
        if bp.cta is not None:
            cand = cand[ctx.cta_linear[cand] == bp.cta]
        if bp.thread is not None:
            cand = cand[ctx.thread_linear[cand] == bp.thread]
        if bp.lane is not None:
            cand = cand[ctx.laneid[cand] == bp.lane]
        if cand.size and bp.condition is not None:
            func = self.info.function_at(pc)
            try:
                ok = bp.condition.evaluate(lambda name: self._typed_lanes(ctx, name, cand, func), cand.size)
            except DebuggerError as e:  # gdb stops, saying so
                bp.error = f"error in the condition of breakpoint {bp.number}: {e}"
                return self._prefer_focus(ctx, cand)
            cand = cand[np.asarray(ok, dtype=bool)]
        if not cand.size:
            return None
        return self._prefer_focus(ctx, cand)

    def _watch_note(self, ctx, w: Watchpoint, slot: int) -> None:
        """A write to watched bytes is about to happen: keep the old value, stop once written."""
        if self._watch_hit is None:
            self._watch_hit = (w, self._watch_bytes(ctx, w, slot), slot, self.hooks.issue_pc)

    def _watch_bytes(self, ctx, w: Watchpoint, slot: int) -> bytes:
        if w.space == "shared":
            c = self._cta_slot(ctx, w.cta)
            slot = c * self.T if c is not None else slot
        return read_memory(ctx, w.space, w.address, w.size, slot)

    def _watch_stop(self, ctx) -> None:
        w, old, slot, writer = self._watch_hit
        self._watch_hit = None
        if w.number not in self.watchpoints:
            return
        new = self._watch_bytes(ctx, w, slot)
        w.hits += 1
        self._stop_at(ctx, "watchpoint", self._thread_pc(ctx, slot), slot, watchpoint=w, old=old, new=new,
                      writer_pc=writer)


def _width(ptx_type: str) -> int:
    from ...semantics.dtypes import bits_of

    return 1 if ptx_type == "pred" else bits_of(ptx_type)
