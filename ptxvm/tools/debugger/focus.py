"""The Debugger's geometry and focus: linear and (x, y, z) block and thread ids, wave slots, and
the focus thread that inspection and stepping look at."""
from __future__ import annotations

from typing import Optional

import numpy as np

from .program import DebuggerError
from .state import WARP


class Focus:
    """Mixin of session.Debugger: block/thread ids, wave slots and the focus thread."""

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
