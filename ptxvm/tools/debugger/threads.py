"""The Debugger's view of where the threads are: the focus thread's backtrace, the warps and lanes
of a block, the resident blocks."""
from __future__ import annotations

import numpy as np

from ...engine.core.machine import AT_BARRIER, AT_WARP_SYNC, EXITED, RUNNABLE
from .program import DebuggerError
from .state import WARP, CtaState, Frame, WarpState
from .values import format_value, read_memory


class Threads:
    """Mixin of session.Debugger: backtrace, warps, blocks and lanes."""

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
