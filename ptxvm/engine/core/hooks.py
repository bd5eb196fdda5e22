"""Observer hooks: what a tool (ptxvm.tools.sanitizer) may watch while a launch runs.

A launch given `hooks` sets `ctx.hooks` to it; otherwise `ctx.hooks` is None and every hook
point is one `is not None` test per instruction (never per lane), so an unobserved launch pays
nothing measurable. Hooks see whole groups of lanes as NumPy arrays; they must not dispatch per
thread in Python either. Subclass `LaunchHooks` and override what you need; the defaults observe
nothing and change nothing.

Hook points (the engine module that calls each):
  begin_wave / end_wave      launch.py     a wave of resident CTAs starts / has finished
  issue                      machine.py    an instruction is about to run for a group of lanes
  access                     memory_ops.py ld/st/atom/red addresses of the active lanes; may veto lanes
  barrier_arrive             sync_ops.py   lanes reach bar.sync / barrier.sync (not the whole-CTA fast path)
  barrier_complete           sync_ops.py   a CTA barrier released its waiters (cta slots; None: every CTA)
  warp_barrier               warp_ops.py   bar.warp.sync (__syncwarp) ran for these lanes
  warp_sync_missing          warp_ops.py   a .sync collective's membermask names lanes that exited
  stuck                      launch.py     no thread can run; return True if the hook made progress
  heap_alloc / heap_free     syscalls.py   device malloc / free; heap_free may veto a bad free
  wave_fault                 launch.py     the wave faulted; its state is still whole (post-mortem)
  async_write                copies.py,    an asynchronous copy (cp.async, cp.async.bulk, a tensor copy) wrote
                             tensor.py     shared memory
  async_group                copies.py     cp.async.commit_group / wait_group / wait_all
  mbarrier                   copies.py     an mbarrier operation ran (arrive, complete-tx, a wait that succeeded, ...)
"""
from __future__ import annotations

from typing import Optional

import numpy as np


class LaunchHooks:
    def begin_wave(self, ctx, ctas: np.ndarray, launch) -> None:
        pass

    def end_wave(self, ctx) -> None:
        pass

    def issue(self, ctx, pc: int, op, lanes: Optional[np.ndarray]) -> None:
        pass

    def access(self, ctx, lanes: np.ndarray, addr: np.ndarray, size: int, acc, kind: str,
               values: Optional[np.ndarray] = None) -> Optional[np.ndarray]:
        """`kind` is "read", "write" or "atomic"; `acc` the instruction's SpaceAccess or
        GenericAccess; `values`: for a st, the bytes each lane stores (uint8, [lanes, size]), else
        None. Return None to let every lane go on, or a bool array over `lanes`: the lanes where it
        is False do not access memory (a load leaves their destination as it was)."""
        return None

    def barrier_arrive(self, ctx, group: np.ndarray, pc: int, barrier: np.ndarray, count: Optional[np.ndarray],
                       expected: np.ndarray, arrive_only: bool) -> None:
        """`group` reaches barrier instruction `pc`: per lane its barrier number, its thread count
        (None: the whole CTA) and the count earlier arrivals set for this barrier (0: none);
        `arrive_only` for bar.arrive / barrier.arrive, whose lanes do not wait."""
        pass

    def barrier_complete(self, ctx, cta_slots: Optional[np.ndarray]) -> None:
        pass

    def warp_barrier(self, ctx, lanes: np.ndarray) -> None:
        pass

    def warp_sync_missing(self, ctx, lanes: np.ndarray, exited_lanes: np.ndarray, pc: int) -> bool:
        """Lanes `lanes` run a collective whose membermask names `exited_lanes` (a lane-bit mask
        per lane), which have exited. Return True to run it without them instead of faulting."""
        return False

    def stuck(self, ctx) -> bool:
        return False

    def heap_alloc(self, ctx, lane: int, alloc) -> None:
        pass

    def heap_free(self, ctx, lane: int, ptr: int) -> bool:
        """A free of `ptr`, which malloc did not return (or which was freed already). Return
        True to skip it instead of faulting."""
        return False

    def wave_fault(self, ctx, fault) -> None:
        """The wave faulted: `fault` is the KernelFault about to be raised (kernel, CTA, thread,
        PTX line, address; `fault.slot` is the faulting thread slot, `fault.pc` its PC). `ctx` and
        the launch's memory are still as the faulting instruction left them, for post-mortem
        inspection (the debugger stops here); the fault is raised when the hook returns."""
        pass

    def async_write(self, ctx, lanes: np.ndarray, addr: np.ndarray, size: int, acc, mbarrier) -> None:
        """An asynchronous copy issued by `lanes` wrote `size` bytes per lane at `addr` (through
        `acc`); the engine performs copies at issue. `mbarrier`: None for cp.async (complete at
        the thread's cp.async.wait_group / wait_all or cp.async.mbarrier.arrive), else
        (view, idx) of the mbarrier word that receives its complete-tx; then the copy is one
        thread's, and `lanes` repeats that thread once per piece (a tensor copy's elements)."""
        pass

    def async_group(self, ctx, lanes: np.ndarray, kind: str, n: int) -> None:
        """cp.async.commit_group (kind "commit"), cp.async.wait_group n ("wait"), cp.async.wait_all
        ("wait_all"); the bulk forms are "bulk_commit" / "bulk_wait"."""
        pass

    def mbarrier(self, ctx, lanes: np.ndarray, kind: str, view: np.ndarray, idx: np.ndarray,
                 before: np.ndarray) -> None:
        """An mbarrier operation ran for `lanes` on the words `view[idx]` (`before`: the words before
        it). kind: "init", "inval", "tx" (expect-tx / complete-tx), "arrive", "async_arrive"
        (cp.async.mbarrier.arrive: an arrive-on once the lanes' prior cp.async copies complete), "wait"
        (test_wait / try_wait; only the lanes that found the phase complete)."""
        pass
