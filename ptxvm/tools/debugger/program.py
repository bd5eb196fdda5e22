"""What the debugger knows of a kernel before it runs: PCs of lines, functions, names.

Everything here is read from the lowered program (`module.lazy_program`: the flat list of `Op`s, each
with its PTX file and line, and the functions' entry PCs, register slots and variables) and from
the `.file`/`.loc` directives (CUDA source lines).
"""
from __future__ import annotations

import bisect
import os
from typing import Optional

from ..sanitizer.source import source_lines


class DebuggerError(Exception):
    """A command the debugger cannot carry out (bad name, no such line, nothing running...)."""


class ProgramInfo:
    def __init__(self, kernel):
        module = kernel.module
        prog = module.lazy_program.ensure(kernel.name)
        self.module = module
        self.prog = prog
        self.code = prog.code
        self.kernel = kernel
        self.entry = prog.functions[kernel.name]
        self.functions = sorted((f for f in prog.functions.values() if f.entry_pc >= 0), key=lambda f: f.entry_pc)
        self._starts = [f.entry_pc for f in self.functions]
        self.source = source_lines(module.ast)  # PTX line -> (source file, line)
        # the second PC of each call: the step after the return that restores the caller's
        # registers and copies return values; stepping never stops there (it is part of the call)
        self.return_steps = {pc for pc in range(1, len(self.code)) if _same_instruction(self.code[pc], self.code[pc - 1])}
        self._regs: dict[str, dict[str, int]] = {}
        self._texts: dict[str, list[str]] = {}

    # -- functions
    def function_at(self, pc: int):
        i = bisect.bisect_right(self._starts, pc) - 1
        return self.functions[max(i, 0)]

    def function(self, name: str):
        f = self.prog.functions.get(name)
        if f is None or f.entry_pc < 0:
            raise DebuggerError(f"no function named {name!r} with a body in this module")
        return f

    def registers(self, func) -> dict[str, int]:
        """Register name -> slot in `func` (registers are allocated on first use: an unused one is absent)."""
        d = self._regs.get(func.name)
        if d is None:
            names = self.prog.regs.names
            d = {}
            for slot in func.reg_slots:
                d.setdefault(names[slot], slot)
            self._regs[func.name] = d
        return d

    # -- lines
    def where(self, pc: int) -> tuple[str, int, Optional[tuple[str, int]]]:
        """(PTX file, PTX line, (source file, line) or None) of the instruction at `pc`."""
        op = self.code[pc]
        return op.file or self.module.file or "<ptx>", op.line, self.source.get(op.line)

    def describe(self, pc: int) -> str:
        file, line, src = self.where(pc)
        text = f"{self.function_at(pc).name} at {os.path.basename(file)}:{line}"
        if src is not None:
            text += f" ({src[0]}:{src[1]})"
        return text

    def ptx_text(self, file: str) -> list[str]:
        lines = self._texts.get(file)
        if lines is None:
            text = self.module.source if file == self.module.file and self.module.source else None
            if text is None:
                try:
                    with open(file, encoding="utf-8", errors="replace") as f:
                        text = f.read()
                except OSError:
                    text = ""
            lines = text.splitlines()
            self._texts[file] = lines
        return lines

    def pcs_at_ptx_line(self, line: int, file: Optional[str] = None) -> tuple[list[int], int]:
        """The PC of PTX line `line` (or of the first line after it that holds an instruction, as
        gdb moves a breakpoint to the next line with code) and that line."""
        best = None
        for pc, op in enumerate(self.code):
            if file is not None and os.path.basename(op.file or "") != os.path.basename(file):
                continue
            if op.line >= line and op.text != "(end of function)" and (best is None or op.line < best):
                best = op.line
        if best is None:
            raise DebuggerError(f"no instruction at or after PTX line {line}" + (f" of {file}" if file else ""))
        pcs = [pc for pc, op in enumerate(self.code) if op.line == best and
               (file is None or os.path.basename(op.file or "") == os.path.basename(file))]
        return pcs[:1], best

    def pcs_at_source_line(self, file: str, line: int) -> list[int]:
        """The first PC in each function that `.loc` puts at `file`:`line` (as gdb, one location
        per function: a line whose code is interleaved with other lines' is stopped at once)."""
        base = os.path.basename(file)
        out, seen = [], set()
        for pc, op in enumerate(self.code):
            src = self.source.get(op.line)
            here = src is not None and src[1] == line and (src[0] == base or os.path.basename(src[0]) == base)
            func = self.function_at(pc).name
            if here and func not in seen:
                seen.add(func)
                out.append(pc)
        if not out:
            known = sorted({f for f, _ in self.source.values()})
            hint = f" (source files: {', '.join(known)})" if known else " (the module has no .loc line information)"
            raise DebuggerError(f"no code at {file}:{line}{hint}")
        return out

    def source_files(self) -> set[str]:
        return {f for f, _ in self.source.values()}

    # -- names
    def symbol(self, name: str, func):
        """The Symbol `name` means inside `func`: its variables and parameters, then module scope,
        then the kernel's own parameters and variables (the outermost frame)."""
        return self.symbol_and_owner(name, func)[0]

    def symbol_and_owner(self, name: str, func):
        """(Symbol, the function whose frame holds it, None for module scope)."""
        for owner in (func, None, self.entry):
            if owner is None:
                s = self.prog.globals.get(name)
            else:
                s = next((p for p in [*owner.params, *owner.returns] if p.name == name), None) or owner.variables.get(name)
            if s is not None:
                return s, owner
        raise DebuggerError(f"no symbol {name!r} in the current context ({func.name}) or at module scope")


def _same_instruction(op, before) -> bool:
    return (op.control and before.control and op.origin is not None and before.origin is not None
            and op.origin[0] is before.origin[0])
