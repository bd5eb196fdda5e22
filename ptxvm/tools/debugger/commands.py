"""The command language of `ptxvm debug`: cuda-gdb's names where the two overlap.

`Commands(debugger, write).execute(line)` runs one command line and writes what it prints
through `write`; it returns False once the session should end (quit, or end of input). Every
problem is a one-line "error: ..." message, never a traceback.
"""
from __future__ import annotations

import os
import re
from typing import Callable

from .program import DebuggerError
from .registers import _is_name
from .session import Debugger
from .state import WARP, Stop
from .values import FORMATS, SPACES, elements

HELP = """Commands (cuda-gdb's names where they overlap; abbreviations as in gdb):
  run | r                     start the kernel; it runs to a breakpoint or its end
  start                       start it and stop at its first instruction
  break | b | tbreak LOCATION [block (x,y,z)] [thread (x,y,z)] [lane N] [if EXPR]
                              LOCATION: PTX line N, FILE.cu:N (.loc line), FILE.ptx:N, FUNCTION, *PC
  watch NAME | ADDRESS [SIZE] [@shared]   stop after a write to those bytes
  delete [N...]               delete breakpoints/watchpoints (all without N)
  continue | c                run on
  step | s [N]                the focus warp to the next source line, into calls
  next | n [N]                the same, over calls
  stepi | si [N], nexti | ni [N]   one instruction of the focus warp
  finish                      run until the focus warp returns from this function
  print | p[/FMT] [-warp] EXPR     a register (typed), a variable, &VARIABLE, or an expression
                              FMT: x d u f t c f16 bf16 f16x2 bf16x2; -warp: every lane of the warp
  x/NFU [@SPACE] ADDRESS      N units of U (b h w g) bytes in format F; SPACE: global shared local const param
  info registers [REG...]     registers of the focus thread's function
  info cuda warps | info warps     warps of the focus block: PC, active/divergent/waiting/exited lanes
  info cuda blocks | info cta      resident blocks
  info cuda lanes | info lanes     lanes of the focus warp
  info breakpoints | info watchpoints | info line | info cuda kernels
  cuda block (x,y,z) [thread (x,y,z)] | cuda thread (x,y,z) | cuda warp N | cuda lane N
                              switch focus (without arguments: show it)
  backtrace | bt | where      the focus thread's calls through .func frames
  frame [N] | up [N] | down [N]    select a frame: print, x and info registers then look there
  list [LINE]                 PTX around the focus thread's PC (or LINE)
  kill                        end the launch (host arrays untouched)
  quit | q                    leave (kills a launch still running)"""

_ALIASES = {"r": "run", "b": "break", "br": "break", "c": "continue", "cont": "continue", "s": "step", "n": "next",
            "si": "stepi", "ni": "nexti", "p": "print", "inspect": "print", "bt": "backtrace", "where": "backtrace",
            "q": "quit", "exit": "quit", "d": "delete", "i": "info", "l": "list", "fin": "finish", "k": "kill",
            "h": "help", "f": "frame"}
_COORD = re.compile(r"\(?\s*(\d+)\s*(?:,\s*(\d+)\s*)?(?:,\s*(\d+)\s*)?\)?")


def _coords(text: str) -> tuple:
    m = _COORD.fullmatch(text.strip())
    if not m:
        raise DebuggerError(f"{text!r} is not (x,y,z)")
    return tuple(int(g) if g is not None else 0 for g in m.groups())


class Commands:
    def __init__(self, debugger: Debugger, write: Callable[[str], None] = print):
        self.d = debugger
        self.write = write
        self.values = 0  # gdb's $N history numbers

    # ------------------------------------------------------------------ entry
    def execute(self, line: str) -> bool:
        line = line.strip()
        if not line or line.startswith("#"):
            return True
        word, _, rest = line.partition(" ")
        fmt = None
        if "/" in word:
            word, _, fmt = word.partition("/")
        word = _ALIASES.get(word, word)
        handler = getattr(self, "do_" + word.replace("-", "_"), None)
        if handler is None:
            self.write(f'error: undefined command: "{word}". Try "help".')
            return True
        try:
            return handler(rest.strip(), fmt) is not False
        except (DebuggerError, ValueError) as e:
            self.write(f"error: {e}")
        except KeyboardInterrupt:
            self.write("error: interrupted")
        except Exception as e:  # noqa: BLE001 - a message, never a traceback
            self.write(f"error: internal error: {type(e).__name__}: {e}")
        return True

    # ------------------------------------------------------------------ reporting
    def _focus_line(self) -> str:
        (cx, cy, cz), (tx, ty, tz) = self.d.focus
        return (f"[Switching focus to CUDA kernel {self.d.kernel.name}, block ({cx},{cy},{cz}), thread ({tx},{ty},{tz}), "
                f"warp {self.d.focus_warp}, lane {self.d.focus_thread % WARP}]")

    def _source_line(self, pc: int) -> str:
        file, line, _ = self.d.info.where(pc)
        lines = self.d.info.ptx_text(file)
        text = lines[line - 1].strip() if 0 < line <= len(lines) else self.d.info.code[pc].text
        return f"{line}\t{text}"

    def report(self, stop: Stop, previous_focus=None) -> None:
        d = self.d
        if stop.finished:
            if stop.fault is not None and stop.reason == "faulted":
                self.write(f"[Kernel {d.kernel.name} faulted: {stop.fault.reason}; host arrays left untouched]")
            elif stop.reason == "exited":
                kept = "" if d.results_written else ("; the sanitizer suppressed accesses that fault without it, "
                                                     "so host arrays were left untouched")
                self.write(f"[Kernel {d.kernel.name} exited normally: {d.stats.warp_instructions} warp instructions, "
                           f"{d.stats.thread_instructions} thread instructions{kept}]")
            else:
                self.write(f"[{stop.message}]")
            for r in stop.records:
                for text in r.lines():
                    self.write(text)
            if d.report is not None:
                self.write(f"{d.sanitizer.tool}: {d.report.summary()}")
            return
        if previous_focus != d.focus:
            self.write(self._focus_line())
        where = d.info.describe(stop.pc)
        if stop.reason == "breakpoint":
            if stop.message:
                self.write(f"error: {stop.message}")
            self.write(f"\n{'Temporary breakpoint' if stop.breakpoint.temporary else 'Breakpoint'} {stop.breakpoint.number}, {where}")
        elif stop.reason == "watchpoint":
            w = stop.watchpoint
            old = elements(stop.old, w.type) if w.size * 8 <= 64 else [stop.old.hex()]
            new = elements(stop.new, w.type) if w.size * 8 <= 64 else [stop.new.hex()]
            self.write(f"\nHardware watchpoint {w.number}: {w.expression}\n\nOld value = {' '.join(old)}\n"
                       f"New value = {' '.join(new)}")
            if stop.writer_pc is not None:
                self.write(f"written by {d.info.describe(stop.writer_pc)}: {d.info.code[stop.writer_pc].text}")
            self.write(where)
        elif stop.reason == "fault":
            f = stop.fault
            self.write(f"\nKernel fault: {f.reason}" + (f" (address 0x{f.address:x})" if f.address is not None else ""))
            self.write(f"post-mortem at {where}; the launch ends (host arrays untouched) when it is continued")
        elif stop.reason == "sanitizer":
            self.write(f"\n{d.sanitizer.tool} error (compute-sanitizer's report):")
            for r in stop.records[:1]:
                for text in r.lines():
                    self.write("    " + text)
            if len(stop.records) > 1:
                self.write(f"    ... and {len(stop.records) - 1} more of this instruction's records")
            self.write(f"stopped at {where}")
        elif stop.reason in ("warp-exited", "interrupt"):
            self.write(f"\n[{stop.message}] {where}")
        elif previous_focus != d.focus or self._frame_changed:
            self.write(where)
        self.write(self._source_line(stop.pc))

    def _resume(self, action: Callable[[], Stop], count: int = 1) -> None:
        for _ in range(max(count, 1)):
            before, frame = self.d.focus, self.d.frame_key()
            stop = action()
            self._frame_changed = self.d.frame_key() != frame
            self.report(stop, before)
            if stop.reason not in ("step", "finish"):
                break

    _frame_changed = True

    def _count(self, rest: str) -> int:
        if not rest:
            return 1
        try:
            return int(rest)
        except ValueError:
            raise DebuggerError(f"{rest!r} is not a count") from None

    # ------------------------------------------------------------------ running
    def do_run(self, rest, fmt):
        if self.d.started:
            raise DebuggerError("The kernel has been started already (one launch per session; start ptxvm debug again).")
        self._resume(self.d.run)

    def do_start(self, rest, fmt):
        if self.d.started:
            raise DebuggerError("The kernel has been started already.")
        self._resume(self.d.start)

    def do_continue(self, rest, fmt):
        self._resume(self.d.cont)

    def do_step(self, rest, fmt):
        self._resume(self.d.step, self._count(rest))

    def do_next(self, rest, fmt):
        self._resume(self.d.next, self._count(rest))

    def do_stepi(self, rest, fmt):
        self._resume(self.d.stepi, self._count(rest))

    def do_nexti(self, rest, fmt):
        self._resume(self.d.nexti, self._count(rest))

    def do_finish(self, rest, fmt):
        if len(self.d.backtrace()) == 1:
            raise DebuggerError('"finish" not meaningful in the outermost frame.')
        self.write(f"Run till exit from {self.d.location()}")
        self._resume(self.d.finish)

    def do_kill(self, rest, fmt):
        self.report(self.d.kill())

    def do_quit(self, rest, fmt):
        if self.d.stopped:
            self.d.kill()
        return False

    def do_help(self, rest, fmt):
        self.write(HELP)

    # ------------------------------------------------------------------ breakpoints
    def do_break(self, rest, fmt, temporary=False):
        if not rest:
            if not self.d.stopped:
                raise DebuggerError("break needs a location (LINE, FILE:LINE, FUNCTION or *PC)")
            rest = f"*{self.d.pc}"
        cond = None
        m = re.search(r"\s+if\s+|^if\s+", rest)
        if m:
            rest, cond = rest[: m.start()], rest[m.end():]
        location, _, filters = rest.strip().partition(" ")
        kw = {}
        for key, value in re.findall(r"(block|thread|lane)\s*(\([^)]*\)|\d+)", filters):
            kw["cta" if key == "block" else key] = int(value) if key == "lane" else _coords(value)
        leftover = re.sub(r"(block|thread|lane)\s*(\([^)]*\)|\d+)", "", filters).strip()
        if leftover:
            raise DebuggerError(f"cannot understand {leftover!r} after the location")
        bp = self.d.break_at(location, cond, temporary=temporary, **kw)
        where = ", ".join(self.d.info.describe(pc) for pc in bp.pcs)
        self.write(f"{'Temporary breakpoint' if temporary else 'Breakpoint'} {bp.number} at {where}"
                   + (f" if {cond}" if cond else ""))

    def do_tbreak(self, rest, fmt):
        self.do_break(rest, fmt, temporary=True)

    def do_watch(self, rest, fmt):
        parts = rest.replace("*", " ").split()
        if not parts:
            raise DebuggerError("watch needs a variable or an address")
        space = None
        if parts[-1].startswith("@"):
            space = parts.pop()[1:]
        size = int(parts[1], 0) if len(parts) > 1 else None
        w = self.d.watch(parts[0], size, space)
        self.write(f"Hardware watchpoint {w.number}: {w.expression} ({w.size} bytes of .{w.space} at 0x{w.address:x})")

    def do_delete(self, rest, fmt):
        if not rest:
            self.d.delete()
            return
        for n in rest.replace(",", " ").split():
            self.d.delete(int(n))

    # ------------------------------------------------------------------ looking
    def do_print(self, rest, fmt):
        warp = False
        if rest.startswith("-warp"):
            warp, rest = True, rest[5:].strip()
        if not rest:
            raise DebuggerError("print needs an expression")
        if fmt and fmt not in FORMATS:
            raise DebuggerError(f"unknown format /{fmt} (formats: {', '.join(FORMATS)})")
        text = self.d.print(rest, fmt or None, warp)
        self.values += 1
        self.write(f"${self.values} = " + ("\n" + text if warp else text))

    def do_x(self, rest, fmt):
        m = re.fullmatch(r"(\d*)([a-z0-9]*?)([bhwg]?)", fmt or "")
        if not m:
            raise DebuggerError(f"bad x format /{fmt} (x/NFU: count, format, unit b h w g)")
        count = int(m.group(1) or 1)
        f = m.group(2) or "x"
        unit = {"b": 1, "h": 2, "w": 4, "g": 8}[m.group(3) or "w"]
        space = "generic"
        parts = rest.split()
        if parts and parts[0].startswith("@"):
            space = parts.pop(0)[1:]
            if space not in SPACES:
                raise DebuggerError(f"unknown space @{space} (spaces: {', '.join(SPACES)})")
        if not parts:
            raise DebuggerError("x needs an address")
        target = " ".join(parts)
        d = self.d
        slot = d._slot()
        if _is_name(target.lstrip("&")) and not target.startswith("%"):
            space, address, _ = d.symbol_address(target.lstrip("&"), slot)
        else:
            address = d._address_value(target, slot)
        raw = d.read_memory(address, count * unit, space)
        if f == "f" and unit == 1:
            raise DebuggerError("x/f needs a unit of h, w or g (16-, 32- or 64-bit floats)")
        vals = elements(raw, f"b{unit * 8}", f)
        per = 8 if unit <= 2 else 4
        for i in range(0, len(vals), per):
            self.write(f"0x{address + i * unit:x}:\t" + "\t".join(vals[i : i + per]))

    def _frame_line(self, fr) -> str:
        src = f" ({fr.source[0]}:{fr.source[1]})" if fr.source else ""
        args = ", ".join(f"{n}={v}" for n, v in fr.args)
        return f"#{fr.level}  {fr.function} ({args}) at {os.path.basename(fr.file)}:{fr.line}{src}"

    def do_backtrace(self, rest, fmt):
        for fr in self.d.backtrace():
            self.write(self._frame_line(fr))

    def do_frame(self, rest, fmt, step=None):
        d = self.d
        if step is not None:
            level = d.frame_level + step * (self._count(rest) if rest else 1)
        else:
            level = self._count(rest) if rest else d.frame_level
        if step is not None and not 0 <= level < len(d.backtrace()):
            raise DebuggerError("Initial frame selected; you cannot go down." if level < 0 else
                                "Initial frame selected; you cannot go up.")
        fr = d.select_frame(level)
        self.write(self._frame_line(fr))
        self.write(self._source_line(fr.pc))

    def do_up(self, rest, fmt):
        self.do_frame(rest, fmt, +1)

    def do_down(self, rest, fmt):
        self.do_frame(rest, fmt, -1)

    def do_list(self, rest, fmt):
        d = self.d
        if rest:
            line = self._count(rest)
            file = d.info.where(d.info.entry.entry_pc)[0]
        else:
            file, line, _ = d.info.where(d.pc if d.stopped else d.info.entry.entry_pc)
        lines = d.info.ptx_text(file)
        lo = max(1, line - 5)
        for n in range(lo, min(len(lines), lo + 10) + 1):
            self.write(f"{n}\t{lines[n - 1]}")

    def do_info(self, rest, fmt):
        words = rest.split()
        if words and words[0] == "cuda":
            words = words[1:]
        what = words[0] if words else ""
        args = words[1:]
        d = self.d
        if what in ("warps", "warp"):
            self.write("  Wp  Active Mask  Divergent  Waiting    Exited      PC  Location")
            for w in d.warps(_coords(args[1]) if len(args) > 1 and args[0] == "block" else None):
                where = d.info.describe(w.pc) if w.pc is not None else "(exited)"
                self.write(f"{'*' if w.focus else ' '} {w.warp:3d}  0x{w.active:08x}   0x{w.divergent:08x} 0x{w.barrier:08x} "
                           f"0x{w.exited:08x} {w.pc if w.pc is not None else '-':>5}  {where}")
        elif what in ("blocks", "cta", "ctas", "block"):
            self.write("  BlockIdx    Threads  Live  At barrier  Exited")
            for c in d.ctas():
                idx = f"({c.cta[0]},{c.cta[1]},{c.cta[2]})"
                self.write(f"{'*' if c.focus else ' '} {idx:<12}{c.threads:7d} {c.live:5d} {c.at_barrier:11d} {c.exited:7d}")
        elif what in ("lanes", "lane", "threads"):
            self.write("  Ln  ThreadIdx     State       PC  Location")
            focus_lane = d.focus_thread % WARP
            for lane, thread, state, pc in d.lanes():
                where = d.info.describe(pc) if pc is not None else ""
                idx = f"({thread[0]},{thread[1]},{thread[2]})"
                self.write(f"{'*' if lane == focus_lane else ' '} {lane:2d}  {idx:<13} {state:<10} "
                           f"{pc if pc is not None else '-':>5}  {where}")
        elif what in ("registers", "reg", "r", "all-registers"):
            func = d._function()
            names = args or sorted(d.info.registers(func), key=_natural)
            for name in names:
                try:
                    self.write(f"{name:<12}{d.print(name, fmt)}")
                except DebuggerError as e:
                    self.write(f"{name:<12}<{e}>")
        elif what in ("breakpoints", "break", "b", "watchpoints", "watch"):
            if not d.breakpoints and not d.watchpoints:
                self.write("No breakpoints or watchpoints.")
            for bp in d.breakpoints.values():
                filt = " ".join(f"{k} {v}" for k, v in (("block", bp.cta and d.cta_of(bp.cta)),
                                                       ("thread", bp.thread and d.thread_of(bp.thread)),
                                                       ("lane", bp.lane)) if v is not None)
                cond = f" if {bp.condition.text}" if bp.condition else ""
                self.write(f"{bp.number:<4}{'tbreak' if bp.temporary else 'breakpoint':<11}{bp.location} {filt}{cond}"
                           f" (hit {bp.hits} time{'s' if bp.hits != 1 else ''})")
            for w in d.watchpoints.values():
                self.write(f"{w.number:<4}{'watchpoint':<11}{w.expression}: {w.size} bytes of .{w.space} at 0x{w.address:x}"
                           f" (hit {w.hits} time{'s' if w.hits != 1 else ''})")
        elif what == "line":
            self.write(d.location())
        elif what in ("kernels", "kernel"):
            state = "running (stopped)" if d.stopped else (d.stop.reason if d.stop else "not started")
            self.write(f"* {d.kernel.name} grid {d.grid} block {d.block}: {state}")
        else:
            raise DebuggerError(f"info {rest!r}: try info registers, info cuda warps, info cuda blocks, info cuda lanes, "
                                "info breakpoints, info line, info cuda kernels")

    def do_cuda(self, rest, fmt):
        d = self.d
        if not rest.strip():
            self.write(self._focus_line().replace("Switching focus to", "Focus:"))
            return
        pairs = re.findall(r"(block|thread|warp|lane|kernel)\s*(\([^)]*\)|[\d,]+)?", rest)
        if not pairs or re.sub(r"(block|thread|warp|lane|kernel)\s*(\([^)]*\)|[\d,]+)?", "", rest).strip():
            raise DebuggerError(f"cuda {rest!r}: use cuda block (x,y,z), cuda thread (x,y,z), cuda warp N, cuda lane N")
        if all(not v for _, v in pairs):
            (cx, cy, cz), (tx, ty, tz) = d.focus
            shown = {"block": f"block ({cx},{cy},{cz})", "thread": f"thread ({tx},{ty},{tz})",
                     "warp": f"warp {d.focus_warp}", "lane": f"lane {d.focus_thread % WARP}", "kernel": f"kernel {d.kernel.name}"}
            self.write(" ".join(shown[k] for k, _ in pairs))
            return
        before = d.focus
        cta = thread = None
        for key, value in pairs:
            if key == "block":
                cta = _coords(value)
            elif key == "thread":
                thread = _coords(value)
            elif key == "warp":
                thread = (int(value) * WARP + d.focus_thread % WARP,)
                d.set_focus(cta, None)
                d.set_focus_lane(d.focus_thread % WARP, int(value))
                thread = None
            elif key == "lane":
                d.set_focus(cta, thread)
                d.set_focus_lane(int(value))
                cta = thread = None
        if cta is not None or thread is not None:
            d.set_focus(cta, thread)
        if d.focus != before:
            self.write(self._focus_line())
            if d.stopped:
                self.write(f"{d.location()}\n{self._source_line(d.pc)}")


def _natural(name: str):
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]

