"""The Debugger's launch control: the worker thread that runs the launch, the hand-over of stops
between it and the caller, and per-warp stepping (run, cont, step, next, finish, kill)."""
from __future__ import annotations

import queue
import threading
from typing import Optional

import numpy as np

from ...engine.core.machine import EXITED
from ...errors import KernelFault
from .hooks import Killed
from .program import DebuggerError
from .state import Stop, _Mode


class LaunchControl:
    """Mixin of session.Debugger: starting, resuming, stepping and ending the launch."""

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

    def _live_lane_of_focus_warp(self) -> Optional[int]:
        rng = self._warp_range(self.ctx, self.focus_cta, self.focus_warp)
        if rng is None:
            return None
        live = np.flatnonzero(self.ctx.status[rng[0]:rng[1]] != EXITED)
        return rng[0] + int(live[0]) if live.size else None
