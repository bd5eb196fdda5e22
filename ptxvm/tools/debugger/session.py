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

The Debugger class is assembled from mixins, one per concern: control.py (running and stepping),
breakpoints.py (breakpoints and watchpoints), focus.py (ids, slots, the focus thread),
registers.py (registers, expressions, frames), memory.py (variables and bytes), threads.py
(backtrace, warps, blocks, lanes); state.py holds the records they hand back.
"""
from __future__ import annotations

import queue
import threading
from typing import Optional

from ...errors import KernelFault
from .breakpoints import Breakpoints
from .control import LaunchControl
from .focus import Focus
from .hooks import DebugHooks
from .memory import Memory
from .program import DebuggerError, ProgramInfo
from .registers import Registers
from .state import Breakpoint, Stop, Watchpoint, _Mode
from .threads import Threads


class Debugger(LaunchControl, Breakpoints, Registers, Memory, Threads, Focus):
    """A debugging session of one launch of `kernel` (see the module's docstring).

    `sanitize` ("memcheck", "racecheck", "initcheck", "synccheck") runs the launch under that
    checker and stops at each error it reports (the access is suppressed as compute-sanitizer
    suppresses it); `stop_on_fault` stops at a KernelFault before it ends the launch; `cooperative`
    makes it a cooperative launch, as for Kernel.launch."""

    def __init__(self, kernel, grid, block, args=(), shared_mem: int = 0, cluster=None, max_instructions=None,
                 sanitize: Optional[str] = None, stop_on_fault: bool = True, cooperative: bool = False):
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
        self.launch = Launch(kernel, grid, block, list(args), shared_mem, cluster, max_instructions, hooks=self.hooks,
                             cooperative=cooperative)
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
