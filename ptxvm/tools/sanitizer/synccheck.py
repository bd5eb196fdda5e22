"""synccheck: CTA barriers reached by only part of a warp, barrier thread counts that disagree
between the threads of one barrier (or are no multiple of the warp size), and (beyond
compute-sanitizer) warp collectives whose membermask names lanes that never arrive.

A barrier is divergent for a warp when, while some of its lanes wait at it, another lane of the
warp waits at a different barrier instruction or exits without arriving. Lanes of one warp may
arrive at the same barrier at different times (the engine runs a loop's lanes apart): that alone
is no error. Each waiting lane of a divergent warp is one error, as compute-sanitizer counts them.
A whole-CTA barrier (no thread count) is divergent for the block when a warp arrives at one
instruction of it while threads of other warps wait at another instruction of the same barrier
number (the hardware counts arrivals per barrier number, so it would complete):
"Divergent thread(s) in block", one error per thread already waiting there, as compute-sanitizer
reports it (tests/goldens/sanitizer_sync: the first warp's 32 threads).
"""
from __future__ import annotations

import numpy as np

from ...engine.core.machine import AT_BARRIER, AT_WARP_SYNC, EXITED, RUNNABLE
from .checker import Checker

DIVERGENT = "Barrier error detected. Divergent thread(s) in warp."
DIVERGENT_BLOCK = "Barrier error detected. Divergent thread(s) in block."


class SyncCheck(Checker):
    def begin_wave(self, ctx) -> None:
        self.bar_pc = np.full(ctx.n, -1, dtype=np.int64)  # the barrier instruction each lane waits at
        self.bar_id = np.full(ctx.n, -1, dtype=np.int64)  # and its barrier number
        self.snapshot: dict[int, int] = {}  # warp -> its live lanes (bitmask) when its first lane arrived
        self.reported = np.zeros(ctx.n, dtype=bool)  # lanes reported for the barrier they wait at
        self._released = None

    @staticmethod
    def _slots(ctx, warp: int) -> np.ndarray:
        """The thread slots of a warp (warps are contiguous runs of slots, in order)."""
        lo, hi = np.searchsorted(ctx.warp_of, [warp, warp + 1])
        return np.arange(lo, hi)

    def _live_mask(self, ctx, warp: int) -> int:
        slots = self._slots(ctx, warp)
        live = slots[ctx.status[slots] != EXITED]
        return int(np.bitwise_or.reduce(np.left_shift(1, ctx.laneid[live]))) if live.size else 0

    def barrier_arrive(self, ctx, group, pc, barrier, count, expected, arrive_only) -> None:
        if count is not None:
            key = ctx.cta_slot[group].astype(np.int64) * 16 + barrier
            _, first, inv = np.unique(key, return_index=True, return_inverse=True)
            expected = np.where(expected != 0, expected, count[first][inv])  # else the group's first lane's
            bad = (expected != count) | (count % 32 != 0)
            for k in np.flatnonzero(bad).tolist():
                what = (f"{int(count[k])} is not a multiple of the warp size" if count[k] % 32 else
                        f"{int(count[k])} here, {int(expected[k])} at an earlier arrival")
                self.s.record(ctx, int(group[k]), "barrier_count", "Barrier error detected. Mismatched thread count.",
                              pc=pc, details=[f"Barrier {int(barrier[k])} thread count: {what}"])
        if arrive_only:
            return
        self.bar_pc[group] = pc
        self.bar_id[group] = barrier
        for w in np.unique(ctx.warp_of[group]).tolist():
            slots = self._slots(ctx, w)
            waiting = slots[ctx.status[slots] == AT_BARRIER]
            if w not in self.snapshot:
                self.snapshot[w] = self._live_mask(ctx, w)
            if waiting.size and (self.bar_pc[waiting] != pc).any():  # two barriers at once in one warp
                mine = group[ctx.warp_of[group] == w]
                self._report(ctx, np.concatenate([waiting, mine]))
        if count is None:
            self._block_divergence(ctx, group, pc, barrier)

    def _block_divergence(self, ctx, group, pc, barrier) -> None:
        """Whole-CTA barriers: threads of other warps already waiting at another instruction of the
        same barrier number are divergent (compute-sanitizer reports those, the waiting ones)."""
        for c in np.unique(ctx.cta_slot[group]).tolist():
            lo, hi = np.searchsorted(ctx.cta_slot, [c, c + 1])  # a CTA's threads are contiguous slots
            here = ctx.cta_slot[group] == c
            mine = group[here]
            slots = np.arange(lo, hi)
            other = ((ctx.status[slots] == AT_BARRIER) & (self.bar_id[slots] == int(barrier[here][0]))
                     & (self.bar_pc[slots] != pc) & ~np.isin(ctx.warp_of[slots], ctx.warp_of[mine]))
            if other.any():
                self._report(ctx, slots[other], "divergent_block", DIVERGENT_BLOCK)

    def barrier_complete(self, ctx, cta_slots) -> None:
        if cta_slots is None:
            self.snapshot.clear()
            return
        waiting = np.flatnonzero((ctx.status == AT_BARRIER) & np.isin(ctx.cta_slot, cta_slots))
        for w in np.unique(ctx.warp_of[waiting]).tolist():
            snap = self.snapshot.pop(w, None)
            if snap is None:
                continue
            lanes = waiting[ctx.warp_of[waiting] == w]
            arrived = int(np.bitwise_or.reduce(np.left_shift(1, ctx.laneid[lanes])))
            if snap & ~arrived:  # a lane that was live when the warp began arriving never came
                self._report(ctx, lanes)
        self.reported[waiting] = False
        self.bar_pc[waiting] = -1

    def _report(self, ctx, lanes, kind="divergent_barrier", headline=DIVERGENT) -> None:
        for lane in np.unique(lanes).tolist():
            if not self.reported[lane]:
                self.reported[lane] = True
                self.s.record(ctx, lane, kind, headline, pc=int(self.bar_pc[lane]))

    def warp_sync_missing(self, ctx, lanes, exited_lanes, pc) -> bool:
        bad = exited_lanes != 0
        warps, first = np.unique(ctx.warp_of[lanes][bad], return_index=True)
        for k in first.tolist():
            lane = int(lanes[bad][k])
            missing = int(exited_lanes[bad][k])
            names = ",".join(str(j) for j in range(32) if missing >> j & 1)
            self.s.record(ctx, lane, "membermask",
                          "Warp synchronization error detected. Membermask names lane(s) that never arrive.", pc=pc,
                          details=[f"Lane(s) {names} of the membermask exited without arriving "
                                   "(beyond compute-sanitizer, which does not see this)"])
        return True

    def stuck(self, ctx) -> bool:
        """Collectives waiting for lanes that have exited run again, so that the engine finds the
        exited lanes (warp_sync_missing) instead of a deadlock. Once per waiting set."""
        waiting = np.flatnonzero(ctx.status == AT_WARP_SYNC)
        key = (ctx.n_live, waiting.tobytes())
        if not waiting.size or key == self._released:
            return False
        self._released = key
        ctx.status[waiting] = RUNNABLE
        return True
