"""The debugger's hooks: where a running launch may stop.

The launch runs in a worker thread (control.py). A hook that decides to stop calls
`session._pause(stop)`, which hands the stop to the user's thread and blocks until a command
resumes the launch (or kills it: the hook then raises `Killed`, which unwinds the launch as any
exception does: argument copies freed, host arrays untouched). While the worker is blocked inside
a hook, the wave's arrays and memories are exactly as the scheduler left them, so the user's
thread reads them freely.

Stops, all decided here with one cheap test per instruction while nothing is armed:
  issue    breakpoints (by PC, then CTA/thread/lane filters and the condition over the group's
           lanes), stepping of the focus warp, an interrupt (Ctrl-C), a watchpoint hit by the
           previous instruction (reported once it has written);
  access   watchpoints (write and atomic accesses overlapping a watched range);
  wave_fault the launch faulted (post-mortem at the faulting instruction);
  any hook a sanitizer checker (when the session has one) recorded an error.
"""
from __future__ import annotations

import numpy as np

from ...engine.core.hooks import LaunchHooks
from ...engine.core.machine import EXITED
from ...engine.core.memory import SHARED_WINDOW, classify_generic


class Killed(BaseException):
    """Raised inside the launch to end it when the user kills the session."""


class DebugHooks(LaunchHooks):
    def __init__(self, session, sanitizer=None):
        self.s = session
        self.sanitizer = sanitizer
        self.seen = 0  # sanitizer records already reported
        self.races = 0  # racecheck: pairs of instructions already reported
        self.issue_pc = None  # the instruction being issued (for stops inside access)
        self.tracks_initialization = getattr(sanitizer, "tracks_initialization", False)

    @property
    def faulted(self) -> bool:  # the launcher asks whether a tool suppressed what would have faulted
        return bool(self.sanitizer is not None and self.sanitizer.faulted)

    # -- the sanitizer, forwarded; a new record stops the launch
    def _checked(self, ctx, pc=None) -> None:
        san = self.sanitizer
        if san is not None and len(san.records) > self.seen:
            new = san.records[self.seen:]
            self.seen = len(san.records)
            self.s._sanitizer_stop(ctx, new, self.issue_pc if pc is None else pc)

    def begin_wave(self, ctx, ctas, launch) -> None:
        self.s._begin_wave(ctx)
        if self.sanitizer is not None:
            self.sanitizer.begin_wave(ctx, ctas, launch)
            self._checked(ctx)

    def end_wave(self, ctx) -> None:
        s = self.s
        if s._watch_hit is not None:
            s._watch_stop(ctx)
        if self.sanitizer is not None:
            self.sanitizer.end_wave(ctx)
            self._checked(ctx)

    def issue(self, ctx, pc, op, lanes) -> None:
        s = self.s
        self.issue_pc = pc
        if self.sanitizer is not None:
            self.sanitizer.issue(ctx, pc, op, lanes)
        if s._watch_hit is not None:
            s._watch_stop(ctx)
        if s._mode is None and not s._interrupt and pc not in s._bp_pcs:
            return
        s._consider(ctx, pc, op, lanes)

    def access(self, ctx, lanes, addr, size, acc, kind, values=None):
        keep = None
        if self.sanitizer is not None:
            keep = self.sanitizer.access(ctx, lanes, addr, size, acc, kind, values=values)
        s = self.s
        if s.watchpoints and kind != "read":
            self._watch(ctx, lanes, np.asarray(addr, dtype=np.uint64), size, acc, keep)
        if self.sanitizer is not None:
            self._checked(ctx)
            self._new_race(ctx, lanes)
        return keep

    def _new_race(self, ctx, lanes) -> None:
        """racecheck makes its records at the end (one per pair of instructions, with the hazard
        count); the debugger stops at the first hazard of each new pair, as it is found."""
        hazards = getattr(self.sanitizer.checker, "hazards", None)
        if not hazards or len(hazards) <= self.races:
            return
        from ..sanitizer.report import Record

        new = list(hazards)[self.races:]
        self.races = len(hazards)
        san = self.sanitizer
        records = [Record(san.tool, "race", f"Race ({key[1]})", san.location(key[3]), space=key[0],
                          other=san.location(key[2]), access=key[1], hazards=hazards[key],
                          severity=key[4] if len(key) > 4 else "error")
                   for key in new]  # (space, kind, first pc, second pc, severity)
        self.s._sanitizer_stop(ctx, records, self.issue_pc, int(lanes[0]) if len(lanes) else None)

    def _watch(self, ctx, lanes, addr, size, acc, keep) -> None:
        s = self.s
        if keep is not None:
            lanes, addr = lanes[keep], addr[keep]
        space = getattr(acc, "space", None)
        if space is None:  # generic: global addresses are themselves, the shared window is CTA-relative
            codes = classify_generic(addr)
            glob = codes == 0
            shared = codes == 1
            shared_addr = addr - np.uint64(SHARED_WINDOW)
        else:
            glob = np.full(addr.shape, space == "global")
            shared = np.full(addr.shape, space in ("shared", "shared::cta", "shared::cluster"))
            shared_addr = addr
        end = addr + np.uint64(size)
        for w in s.watchpoints.values():
            lo, hi = np.uint64(w.address), np.uint64(w.address + w.size)
            if w.space == "global":
                hit = glob & (addr < hi) & (end > lo)
            else:
                slot = s._cta_slot(ctx, w.cta)
                if slot is None:
                    continue
                hit = shared & (ctx.cta_slot[lanes] == slot) & (shared_addr < hi) & (shared_addr + np.uint64(size) > lo)
            if hit.any():
                lane = int(lanes[int(np.argmax(hit))])
                s._watch_note(ctx, w, lane)
                return

    def barrier_arrive(self, ctx, group, pc, barrier, count, expected, arrive_only) -> None:
        if self.sanitizer is not None:
            self.sanitizer.barrier_arrive(ctx, group, pc, barrier, count, expected, arrive_only)
            self._checked(ctx, pc)

    def barrier_complete(self, ctx, cta_slots) -> None:
        if self.sanitizer is not None:
            self.sanitizer.barrier_complete(ctx, cta_slots)
            self._checked(ctx)

    def warp_barrier(self, ctx, lanes) -> None:
        if self.sanitizer is not None:
            self.sanitizer.warp_barrier(ctx, lanes)
            self._checked(ctx)

    def warp_sync_missing(self, ctx, lanes, exited_lanes, pc) -> bool:
        if self.sanitizer is None:
            return False
        go_on = self.sanitizer.warp_sync_missing(ctx, lanes, exited_lanes, pc)
        self._checked(ctx, pc)
        return go_on

    def stuck(self, ctx) -> bool:
        if self.sanitizer is None:
            return False
        progressed = self.sanitizer.stuck(ctx)
        self._checked(ctx)
        return progressed

    def heap_alloc(self, ctx, lane, alloc) -> None:
        if self.sanitizer is not None:
            self.sanitizer.heap_alloc(ctx, lane, alloc)

    def heap_free(self, ctx, lane, ptr) -> bool:
        if self.sanitizer is None:
            return False
        skip = self.sanitizer.heap_free(ctx, lane, ptr)
        self._checked(ctx)
        return skip

    def wave_fault(self, ctx, fault) -> None:
        self.s._fault_stop(ctx, fault)

