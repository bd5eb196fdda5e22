"""ptxvm.Debugger: stop a launch, look at it, move it on.

    dbg = ptxvm.Debugger(kernel, grid, block, [out, x])
    dbg.break_at("vector_add.cu:12", condition="%r5 > 3", thread=(7, 0, 0))
    stop = dbg.run()                 # -> Stop(reason="breakpoint", ...)
    dbg.print("%f2"), dbg.print("%r5", warp=True), dbg.backtrace(), dbg.warps()
    dbg.step(); dbg.next(); dbg.finish(); dbg.cont()   # ... until stop.finished

The launch runs in a worker thread that blocks inside an engine hook whenever it stops (hooks.py
says where); every method here runs in the caller's thread while the worker waits, reading the
wave's arrays and memories directly. Stepping is per warp: `stepi` runs until the focus warp
issues its next instruction. The scheduler issues an instruction for a group of threads that may
hold many warps (all resident CTAs in lockstep while the code is uniform), so other warps of that
group move with it, as warps run alongside the focus warp under cuda-gdb. A launch that runs to
its end writes the host arrays back as `kernel.launch` does; a fault or a kill leaves them
untouched.
"""
from __future__ import annotations

import os
import queue
import threading
from dataclasses import dataclass, field
from typing import Optional, Union

import numpy as np

from ...engine.core.machine import AT_BARRIER, AT_WARP_SYNC, EXITED, RUNNABLE
from ...errors import KernelFault
from .expr import Expression
from .hooks import DebugHooks, Killed
from .program import DebuggerError, ProgramInfo
from .values import format_value, read_memory

WARP = 32
FINISHED = ("exited", "faulted", "killed", "error")


@dataclass
class Breakpoint:
    number: int
    location: str
    pcs: list
    condition: Optional[Expression] = None
    cta: Optional[tuple] = None
    thread: Optional[tuple] = None
    lane: Optional[int] = None
    temporary: bool = False
    enabled: bool = True
    hits: int = 0
    error: str = ""  # what went wrong evaluating the condition at the last stop


@dataclass
class Watchpoint:
    number: int
    expression: str
    space: str  # "global" or "shared"
    address: int
    size: int
    type: str = "b32"
    cta: Optional[int] = None  # linear CTA id (shared)
    hits: int = 0


@dataclass
class Stop:
    """Why and where the launch stopped. `finished` once it can no longer be resumed."""

    reason: str  # breakpoint step watchpoint fault sanitizer interrupt warp-exited | exited faulted killed error
    pc: Optional[int] = None
    cta: Optional[tuple] = None
    thread: Optional[tuple] = None
    breakpoint: Optional[Breakpoint] = None
    watchpoint: Optional[Watchpoint] = None
    old: Optional[bytes] = None
    new: Optional[bytes] = None
    writer_pc: Optional[int] = None
    fault: Optional[KernelFault] = None
    records: list = field(default_factory=list)
    message: str = ""

    @property
    def finished(self) -> bool:
        return self.reason in FINISHED


@dataclass
class Frame:
    level: int
    function: str
    pc: int
    file: str
    line: int
    source: Optional[tuple]
    args: list  # (name, text)
    base: int = 0  # the frame's base in the thread's local memory


@dataclass
class WarpState:
    cta: tuple
    warp: int
    pc: Optional[int]  # the PC the warp issues next (None: every lane exited)
    active: int  # lanes runnable at that PC
    divergent: int  # live lanes elsewhere
    barrier: int  # lanes waiting at a CTA barrier or a warp-synchronous instruction
    exited: int
    lanes: int  # lanes the warp has (a partial last warp has fewer than 32)
    focus: bool = False


@dataclass
class CtaState:
    cta: tuple
    threads: int
    live: int
    at_barrier: int
    exited: int
    focus: bool = False


@dataclass
class _Mode:
    kind: str  # stepi step nexti next finish
    cta: int
    warp: int
    key: object = None
    base: int = 0


class Debugger:
    """A debugging session of one launch of `kernel` (see the module's docstring).

    `sanitize` ("memcheck", "racecheck", "initcheck", "synccheck") runs the launch under that
    checker and stops at each error it reports (the access is suppressed as compute-sanitizer
    suppresses it); `stop_on_fault` stops at a KernelFault before it ends the launch."""

    def __init__(self, kernel, grid, block, args=(), shared_mem: int = 0, cluster=None, max_instructions=None,
                 sanitize: Optional[str] = None, stop_on_fault: bool = True):
        from ...engine.launch import Launch

        self.kernel = kernel
        self.info = ProgramInfo(kernel)
        self.sanitizer = None
        if sanitize is not None:
            from ..sanitizer.session import TOOLS, Sanitizer

            if sanitize not in TOOLS:
                raise ValueError(f"unknown sanitizer tool {sanitize!r}: choose one of {', '.join(TOOLS)}")
            self.sanitizer = Sanitizer(kernel, sanitize, False)
        self.hooks = DebugHooks(self, self.sanitizer)
        self.launch = Launch(kernel, grid, block, list(args), shared_mem, cluster, max_instructions, hooks=self.hooks)
        if self.sanitizer is not None:
            self.sanitizer.launch = self.launch
        self.grid, self.block = self.launch.grid, self.launch.block
        self.T = self.launch.threads_per_cta
        self.stop_on_fault = stop_on_fault
        self.breakpoints: dict[int, Breakpoint] = {}
        self.watchpoints: dict[int, Watchpoint] = {}
        self._bp_pcs: dict[int, list[Breakpoint]] = {}
        self._number = 0
        self._mode: Optional[_Mode] = None
        self._interrupt = False
        self._watch_hit = None
        self._pinned = None  # (slot, pc) of a stop at a fault or a sanitizer error
        self._thread: Optional[threading.Thread] = None
        self._stops: queue.Queue = queue.Queue()
        self._resume: queue.Queue = queue.Queue()
        self.ctx = None
        self.wave = -1
        self._entry_base = 0
        self.focus_cta, self.focus_thread = 0, 0  # linear ids
        self.frame_level = 0  # the focus thread's frame that print, x and info registers look at
        self.stop: Optional[Stop] = None
        self.stats = None
        self.fault: Optional[KernelFault] = None
        self.report = None  # the SanitizerReport once a sanitized launch has ended

    # ================================================================== state
    @property
    def started(self) -> bool:
        return self._thread is not None

    @property
    def finished(self) -> bool:
        return self.stop is not None and self.stop.finished

    @property
    def results_written(self) -> bool:
        """Whether the launch ran to its end and wrote the host arrays back (not after a fault,
        nor when the sanitizer suppressed accesses that would have faulted)."""
        return self.stop is not None and self.stop.reason == "exited" and not self.hooks.faulted

    @property
    def stopped(self) -> bool:
        """Whether the launch is paused (inspection and resuming are possible)."""
        return self.started and not self.finished

    def _require_stopped(self) -> None:
        if not self.started:
            raise DebuggerError("The kernel is not being run (use run or start).")
        if self.finished:
            raise DebuggerError(f"The kernel is not running ({self.stop.message or self.stop.reason}).")

    # ================================================================== geometry
    def _split(self, linear: int, dims) -> tuple:
        x, y, _ = dims
        return (linear % x, (linear // x) % y, linear // (x * y))

    def _linear(self, v, dims, what: str) -> int:
        if isinstance(v, (int, np.integer)):
            v = (int(v),)
        v = tuple(int(c) for c in v) + (0,) * (3 - len(v))
        if len(v) != 3 or any(c < 0 or c >= d for c, d in zip(v, dims)):
            raise DebuggerError(f"{what} {tuple(v)} is outside the launch's {what} dimensions {tuple(dims)}")
        return v[0] + dims[0] * (v[1] + dims[1] * v[2])

    def cta_of(self, linear: int) -> tuple:
        return self._split(linear, self.grid)

    def thread_of(self, linear: int) -> tuple:
        return self._split(linear, self.block)

    def _cta_slot(self, ctx, cta: int) -> Optional[int]:
        heads = ctx.cta_linear[:: self.T]
        i = np.flatnonzero(heads == cta)
        return int(i[0]) if i.size else None

    def _slot(self, cta: Optional[int] = None, thread: Optional[int] = None) -> int:
        """The wave slot of (cta, thread), the focus by default; an error if not resident."""
        self._require_stopped()
        cta = self.focus_cta if cta is None else cta
        thread = self.focus_thread if thread is None else thread
        c = self._cta_slot(self.ctx, cta)
        if c is None:
            raise DebuggerError(f"block {self.cta_of(cta)} is not resident now (this wave holds blocks "
                                f"{self.cta_of(int(self.ctx.cta_linear[0]))} to {self.cta_of(int(self.ctx.cta_linear[-1]))})")
        return c * self.T + thread

    def _warp_range(self, ctx, cta: int, warp: int) -> Optional[tuple[int, int]]:
        c = self._cta_slot(ctx, cta)
        if c is None:
            return None
        lo = c * self.T + warp * WARP
        return lo, min(lo + WARP, (c + 1) * self.T)

    def _identify(self, ctx, slot: int) -> tuple[int, int]:
        return int(ctx.cta_linear[slot]), int(ctx.thread_linear[slot])

    def _thread_pc(self, ctx, slot: int) -> int:
        if self._pinned is not None and self._pinned[0] == slot:  # a fault's or an error's instruction
            return self._pinned[1]
        return int(ctx.upc) if ctx.uniform else int(ctx.pc[slot])

    # ================================================================== focus
    def set_focus(self, cta=None, thread=None) -> None:
        """cuda-gdb's `cuda block (x,y,z) thread (x,y,z)`: the thread commands look at."""
        c = self.focus_cta if cta is None else self._linear(cta, self.grid, "block")
        t = self.focus_thread if thread is None else self._linear(thread, self.block, "thread")
        if self.stopped and self._cta_slot(self.ctx, c) is None:
            raise DebuggerError(f"block {self.cta_of(c)} is not resident now")
        self.focus_cta, self.focus_thread = c, t
        self.frame_level = 0

    def set_focus_lane(self, lane: int, warp: Optional[int] = None) -> None:
        """Focus on `lane` of `warp` (the focus warp by default) of the focus block."""
        warp = self.focus_thread // WARP if warp is None else int(warp)
        t = warp * WARP + int(lane)
        if not 0 <= lane < WARP or not 0 <= t < self.T:
            raise DebuggerError(f"warp {warp} lane {lane} is not a thread of a block of {self.T} threads")
        self.focus_thread = t
        self.frame_level = 0

    @property
    def focus(self) -> tuple[tuple, tuple]:
        """((block x, y, z), (thread x, y, z)) of the focus thread."""
        return self.cta_of(self.focus_cta), self.thread_of(self.focus_thread)

    @property
    def focus_warp(self) -> int:
        return self.focus_thread // WARP

    @property
    def pc(self) -> int:
        """The PC of the focus thread."""
        slot = self._slot()
        return self._thread_pc(self.ctx, slot)

    def frame_key(self) -> Optional[tuple]:
        """(function, frame base) of the focus thread: it changes when a call or return moves it."""
        if not self.stopped:
            return None
        try:
            slot = self._slot()
        except DebuggerError:
            return None
        return self.info.function_at(self._thread_pc(self.ctx, slot)).name, int(self.ctx.frame_base[slot])

    def location(self) -> str:
        return self.info.describe(self.pc)

    # ================================================================== breakpoints and watchpoints
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

    # ================================================================== running
    def run(self) -> Stop:
        """Start the launch; it runs to the first stop (or to its end)."""
        if self.started:
            raise DebuggerError("The kernel has been started already (one launch per session).")
        return self._go(None)

    def start(self) -> Stop:
        """Start the launch and stop at the kernel's first instruction."""
        self.break_at(f"*{self.info.entry.entry_pc}", temporary=True)
        return self.run()

    def cont(self) -> Stop:
        self._require_stopped()
        return self._go(None)

    def stepi(self) -> Stop:
        """Run until the focus warp has issued one instruction."""
        return self._step("stepi")

    def nexti(self) -> Stop:
        """stepi, stepping over calls."""
        return self._step("nexti")

    def step(self) -> Stop:
        """Run the focus warp to the next source line (.loc; PTX lines without them), into calls."""
        return self._step("step")

    def next(self) -> Stop:
        """step, stepping over calls."""
        return self._step("next")

    def finish(self) -> Stop:
        """Run until the focus warp returns from the current function."""
        return self._step("finish")

    def _step(self, kind: str) -> Stop:
        self._require_stopped()
        ctx = self.ctx
        slot = self._slot()
        if ctx.status[slot] == EXITED:
            live = self._live_lane_of_focus_warp()
            if live is None:
                raise DebuggerError(f"warp {self.focus_warp} of block {self.cta_of(self.focus_cta)} has exited")
            slot = live
        base = int(ctx.frame_base[slot])
        if kind == "finish" and base == self._entry_base:
            raise DebuggerError('"finish" not meaningful in the outermost frame.')
        mode = _Mode(kind, self.focus_cta, self.focus_warp, self._line_key(self._thread_pc(ctx, slot)), base)
        return self._go(mode)

    def kill(self) -> Stop:
        """End the launch now; host arrays are left untouched."""
        self._require_stopped()
        self._resume.put("kill")
        return self._wait()

    def close(self) -> None:
        """Kill a launch still stopped; free the argument copies of one never started."""
        if self.started and not self.finished:
            self.kill()
        elif not self.started:
            self.launch._discard()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def interrupt(self) -> None:
        """Stop the running launch at its next instruction (what Ctrl-C does)."""
        self._interrupt = True

    def _go(self, mode: Optional[_Mode]) -> Stop:
        self._mode = mode
        self._pinned = None
        self.frame_level = 0
        self.stop = None
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name="ptxvm-debug-launch", daemon=True)
            self._thread.start()
        else:
            self._resume.put("go")
        return self._wait()

    def _wait(self) -> Stop:
        while True:
            try:
                stop = self._stops.get(timeout=0.25)
                break
            except queue.Empty:
                continue
            except KeyboardInterrupt:
                self._interrupt = True
        self.stop = stop
        if stop.finished:
            self.ctx = None  # the wave's arrays go
        if stop.thread is not None and not stop.finished:
            self.focus_cta = self._linear(stop.cta, self.grid, "block")
            self.focus_thread = self._linear(stop.thread, self.block, "thread")
        return stop

    def _work(self) -> None:
        stop: Stop
        try:
            self.stats = self.launch.run()
            stop = Stop("exited", message=f"kernel {self.kernel.name} exited normally "
                                          f"({self.stats.warp_instructions} warp instructions)")
        except Killed:
            stop = Stop("killed", message="the launch was killed; host arrays were left untouched")
        except KernelFault as f:
            self.fault = f
            stop = Stop("faulted", fault=f, message=f"the launch faulted, host arrays were left untouched: {f}")
        except Exception as e:  # noqa: BLE001 - reported as a stop, never a traceback
            stop = Stop("error", message=f"the launch stopped with an error: {type(e).__name__}: {e}")
        if self.sanitizer is not None and stop.reason in ("exited", "faulted"):
            from ..sanitizer.report import SanitizerReport

            if stop.fault is not None and not any(r.kind == "fault" for r in self.sanitizer.records):
                self.sanitizer.fault(stop.fault)
            self.sanitizer.finish()
            self.report = SanitizerReport(self.sanitizer.tool, self.kernel.name, self.sanitizer.records, False, 0.0,
                                          self.sanitizer.faulted)
            stop.records = self.sanitizer.records[self.hooks.seen:]
        self._stops.put(stop)

    # -- called in the worker, inside hooks
    def _pause(self, stop: Stop) -> None:
        self._mode = None
        self._interrupt = False
        self._stops.put(stop)
        if self._resume.get() == "kill":
            raise Killed()

    def _stop_at(self, ctx, reason: str, pc: int, slot: int, **kw) -> None:
        cta, thread = self._identify(ctx, slot)
        if reason in ("fault", "sanitizer"):
            self._pinned = (slot, pc)
        self._pause(Stop(reason, pc, self.cta_of(cta), self.thread_of(thread), **kw))

    def _begin_wave(self, ctx) -> None:
        self.ctx = ctx
        self.wave += 1
        self._entry_base = int(ctx.frame_base[0])

    def _consider(self, ctx, pc: int, op, lanes) -> None:
        group = ctx.lanes_or_live(lanes)
        if self._interrupt:
            self._stop_at(ctx, "interrupt", pc, self._prefer_focus(ctx, group), message="interrupted")
            return
        for bp in self._bp_pcs.get(pc, ()):
            slot = self._breakpoint_lane(ctx, bp, pc, group)
            if slot is not None:
                bp.hits += 1
                if bp.temporary:
                    self.delete(bp.number)
                self._stop_at(ctx, "breakpoint", pc, slot, breakpoint=bp, message=bp.error)
                bp.error = ""
                return
        mode = self._mode
        if mode is None:
            return
        rng = self._warp_range(ctx, mode.cta, mode.warp)
        if rng is None or not (ctx.status[rng[0]:rng[1]] != EXITED).any():
            self._stop_at(ctx, "warp-exited", pc, int(group[0]),
                          message=f"warp {mode.warp} of block {self.cta_of(mode.cta)} has exited")
            return
        lo, hi = rng
        mine = group[(group >= lo) & (group < hi)]
        if not mine.size or pc in self.info.return_steps:
            return
        kind = mode.kind
        focus = lo - lo % self.T + self.focus_thread
        if lo <= focus < hi and ctx.status[focus] != EXITED:
            if kind != "stepi" and not np.any(mine == focus):
                return  # step, next and finish follow the focus thread while it lives
            slot = focus if np.any(mine == focus) else int(mine[0])
        else:
            slot = int(mine[0])
        base = int(ctx.frame_base[slot])
        if kind == "stepi":
            stop = True
        elif kind == "nexti":
            stop = base <= mode.base
        elif kind == "finish":
            stop = base < mode.base
        else:
            key = self._line_key(pc)
            if kind == "step":
                stop = base != mode.base or (key is not None and key != mode.key)
            else:
                stop = base < mode.base or (base == mode.base and key is not None and key != mode.key)
        if stop:
            self._stop_at(ctx, "step" if kind != "finish" else "finish", pc, slot)

    def _line_key(self, pc: int):
        op = self.info.code[pc]
        if self.info.source:
            src = self.info.source.get(op.line)
            return src if src is not None and src[1] != 0 else None  # line 0: code of no source line
        return (op.file, op.line)

    def _prefer_focus(self, ctx, group: np.ndarray) -> int:
        c = self._cta_slot(ctx, self.focus_cta)
        if c is not None:
            f = c * self.T + self.focus_thread
            if np.any(group == f):
                return f
        return int(group[0])

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

    def _fault_stop(self, ctx, fault) -> None:
        if self.stop_on_fault:
            self._stop_at(ctx, "fault", fault.pc, fault.slot, fault=fault, message=f"kernel fault: {fault.reason}")

    def _sanitizer_stop(self, ctx, records, pc: int, slot: Optional[int] = None) -> None:
        r = records[0]
        if slot is None and r.cta is not None and r.thread is not None:
            c = self._cta_slot(ctx, self._linear(r.cta, self.grid, "block"))
            if c is not None:
                slot = c * self.T + self._linear(r.thread, self.block, "thread")
        if slot is None:
            slot = int(ctx.lanes_or_live(None)[0]) if ctx.n_live else 0
        self._stop_at(ctx, "sanitizer", pc if pc is not None else self._thread_pc(ctx, slot), slot, records=list(records),
                      message=f"{self.sanitizer.tool} {r.severity}: {r.headline}")

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

    def _live_lane_of_focus_warp(self) -> Optional[int]:
        rng = self._warp_range(self.ctx, self.focus_cta, self.focus_warp)
        if rng is None:
            return None
        live = np.flatnonzero(self.ctx.status[rng[0]:rng[1]] != EXITED)
        return rng[0] + int(live[0]) if live.size else None

    # ================================================================== registers and expressions
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

    # ================================================================== memory
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

    # ================================================================== where the threads are
    def backtrace(self) -> list[Frame]:
        """The focus thread's call stack, innermost first, through .func call frames."""
        self._require_stopped()
        ctx = self.ctx
        slot = self._slot()
        pc = self._thread_pc(ctx, slot)
        base = int(ctx.frame_base[slot])
        frames = []
        for level in range(100000):
            func = self.info.function_at(pc)
            file, line, src = self.info.where(pc)
            frames.append(Frame(level, func.name, pc, file, line, src, self._frame_args(func, base, slot), base))
            if base == self._entry_base or func.kind == "entry":
                break
            header = np.frombuffer(read_memory(ctx, "local", base, 32, slot), dtype=np.uint64)
            pc, base = int(header[0]) - 1, int(header[1])  # the call's first PC, the caller's frame
        return frames

    def _frame_args(self, func, base: int, slot: int) -> list:
        out = []
        for p in func.params:
            try:
                if p.space == "kparam":
                    raw = read_memory(self.ctx, "param", p.offset, p.size, slot)
                elif p.space == "fparam":
                    raw = read_memory(self.ctx, "local", base + p.offset, p.size, slot)
                else:
                    continue
            except DebuggerError:
                continue
            if p.size > 8 or p.decl is not None and p.decl.array:
                out.append((p.name, f"<{p.size} bytes>"))
            else:
                pointer = p.type in ("u64", "b64", "s64") and p.space == "kparam"
                out.append((p.name, format_value(int.from_bytes(raw, "little"), p.type, "x" if pointer else None)))
        return out

    def warps(self, cta=None) -> list[WarpState]:
        """The warps of a block (the focus block by default): next PC, active, divergent, waiting
        and exited lanes."""
        self._require_stopped()
        c = self.focus_cta if cta is None else self._linear(cta, self.grid, "block")
        self._slot(c, 0)
        out = []
        for w in range(-(-self.T // WARP)):
            lo, hi = self._warp_range(self.ctx, c, w)
            out.append(self._warp_state(c, w, lo, hi))
        return out

    def _warp_state(self, c: int, w: int, lo: int, hi: int) -> WarpState:
        ctx = self.ctx
        status = ctx.status[lo:hi]
        bit = np.uint64(1) << np.arange(hi - lo, dtype=np.uint64)

        def mask(sel) -> int:
            return int(bit[sel].sum()) if np.any(sel) else 0

        exited = status == EXITED
        waiting = (status == AT_BARRIER) | (status == AT_WARP_SYNC)
        runnable = status == RUNNABLE
        if ctx.uniform:
            pcs = np.full(hi - lo, ctx.upc, dtype=np.int64)
            epoch = np.zeros(hi - lo, dtype=np.int64)
        else:
            pcs, epoch = ctx.pc[lo:hi], ctx.epoch[lo:hi]
        pc = None
        active = np.zeros(hi - lo, dtype=bool)
        if runnable.any():
            key = np.where(runnable, (epoch << 32) | pcs, np.iinfo(np.int64).max)
            pc = int(key.min() & 0xFFFFFFFF)
            active = runnable & (pcs == pc)
        elif waiting.any():
            pc = int(pcs[np.argmax(waiting)])
        divergent = ~exited & ~active & ~waiting
        return WarpState(self.cta_of(c), w, pc, mask(active), mask(divergent), mask(waiting), mask(exited), hi - lo,
                         c == self.focus_cta and w == self.focus_warp)

    def ctas(self) -> list[CtaState]:
        """The blocks resident in this wave: threads live, waiting at a barrier, exited."""
        self._require_stopped()
        ctx = self.ctx
        out = []
        for c in range(ctx.n // self.T):
            st = ctx.status[c * self.T:(c + 1) * self.T]
            linear = int(ctx.cta_linear[c * self.T])
            out.append(CtaState(self.cta_of(linear), self.T, int(np.count_nonzero(st != EXITED)),
                                int(np.count_nonzero((st == AT_BARRIER) | (st == AT_WARP_SYNC))),
                                int(np.count_nonzero(st == EXITED)), linear == self.focus_cta))
        return out

    def lanes(self) -> list[tuple]:
        """(lane, thread (x,y,z), state, PC) for each lane of the focus warp."""
        self._require_stopped()
        ctx = self.ctx
        lo, hi = self._warp_range(ctx, self.focus_cta, self.focus_warp)
        ws = self._warp_state(self.focus_cta, self.focus_warp, lo, hi)
        out = []
        for s in range(lo, hi):
            lane = s - lo
            state = ("exited" if ws.exited >> lane & 1 else "waiting" if ws.barrier >> lane & 1 else
                     "active" if ws.active >> lane & 1 else "divergent")
            pc = None if state == "exited" else self._thread_pc(ctx, s)
            out.append((lane, self.thread_of(int(ctx.thread_linear[s])), state, pc))
        return out


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


def _width(ptx_type: str) -> int:
    from ...semantics.dtypes import bits_of

    return 1 if ptx_type == "pred" else bits_of(ptx_type)


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
