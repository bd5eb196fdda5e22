"""racecheck: hazards between threads on shared memory, and beyond compute-sanitizer on global memory.

Shadow state per byte (NumPy arrays over the shared buffer and the global arena): the last writer
(global thread id + 1, 0 for none), its PTX pc and the barrier epoch of its CTA, and the same for the last reader
with a flag for "read by more than one thread". A CTA's epoch advances when one of its barriers
completes. A read of a byte written by another thread in the same epoch is a read-after-write
hazard; a write over a byte another thread read (write-after-read) or wrote (write-after-write) in
the same epoch is one too. Threads of different CTAs share no barrier, so on global memory any two
of their conflicting accesses are hazards. Atomics neither race nor order.

Hazards are counted as compute-sanitizer counts them on the planted kernels: read-after-write and
write-after-read per byte, write-after-write per conflicting thread access; one record per pair of
instructions (and kind), its count the sum.
"""
from __future__ import annotations

import numpy as np

from .checker import Checker, global_bytes, shared_bytes, spaces_of
from .report import Record


class _Shadow:
    """Last writer and reader per byte. Thread ids are stored plus one so that every array starts
    as zeros: np.zeros maps untouched pages lazily, so a shadow of a large arena costs only what
    the kernel touches."""

    FIELDS = (("w_tid", np.int32), ("w_pc", np.int32), ("w_ep", np.int32), ("r_tid", np.int32), ("r_pc", np.int32),
              ("r_ep", np.int32), ("r_multi", bool))

    def __init__(self, size: int):
        for name, dt in self.FIELDS:
            setattr(self, name, np.zeros(size, dtype=dt))

    def grow(self, size: int) -> None:
        old = self.w_tid.size
        if size <= old:
            return
        for name, dt in self.FIELDS:
            b = np.zeros(size, dtype=dt)
            b[:old] = getattr(self, name)
            setattr(self, name, b)


def _may_overlap(idx: np.ndarray) -> bool:
    """Whether two lanes' byte ranges can coincide: not when the starts strictly increase by at
    least the access size (the coalesced case, checked in O(lanes) instead of a sort)."""
    return idx.shape[0] > 1 and not bool((np.diff(idx[:, 0].astype(np.int64)) >= idx.shape[1]).all())


class RaceCheck(Checker):
    def __init__(self, session):
        super().__init__(session)
        self.hazards: dict[tuple, int] = {}  # (space, kind, first pc, second pc) -> hazards
        self.glob = None
        self.epoch = None  # per CTA slot: barriers completed; global ids make it unique per launch

    def begin_wave(self, ctx) -> None:
        self.shared = _Shadow(ctx.shared.buf.size)
        # epochs of different waves never meet in one CTA; offset them so a reused slot starts fresh
        base = 0 if self.epoch is None else int(self.epoch.max()) + 1
        self.epoch = np.full(int(ctx.cta_slot.max()) + 1 if ctx.n else 1, base, dtype=np.int32)
        self.threads_per_cta = self.s.launch.threads_per_cta

    def barrier_complete(self, ctx, cta_slots) -> None:
        if cta_slots is None:
            self.epoch += 1
        else:
            self.epoch[cta_slots] += 1

    def access(self, ctx, lanes, addr, size, acc, kind):
        if kind == "atomic":
            return None
        codes, rel = spaces_of(acc, addr)
        tid = (ctx.cta_linear[lanes].astype(np.int64) * self.threads_per_cta + ctx.thread_linear[lanes] + 1).astype(np.int32)  # 0: nobody
        ep = self.epoch[ctx.cta_slot[lanes]]
        sh = codes == 1
        if sh.any():
            ok, idx = shared_bytes(ctx, lanes[sh], rel[sh], size)
            self._check("shared", self.shared, idx, tid[sh][ok], ep[sh][ok], kind)
        gl = codes == 0
        if gl.any():
            if self.glob is None:
                self.glob = _Shadow(ctx.gmem.arena.size)
            self.glob.grow(ctx.gmem.arena.size)
            ok, idx = global_bytes(ctx, rel[gl], size)
            self._check("global", self.glob, idx, tid[gl][ok], ep[gl][ok], kind)
        return None

    def _same_order(self, space, other_tid, tid, other_ep, ep):
        """Whether an earlier access by `other_tid` is unordered with this one (a hazard)."""
        unordered = (other_tid > 0) & (other_tid != tid) & (other_ep == ep)
        if space == "global":  # no barrier orders threads of different CTAs
            T = self.threads_per_cta
            unordered |= (other_tid > 0) & ((other_tid - 1) // T != (tid - 1) // T)
        return unordered

    def _count(self, space, kind, first_pc, second_pc, n):
        key = (space, kind, int(first_pc), int(second_pc))
        self.hazards[key] = self.hazards.get(key, 0) + int(n)

    def _pairs(self, space, kind, pcs, pc, weights=None):
        if pcs.size == 0:
            return
        u, counts = np.unique(pcs, return_counts=True) if weights is None else (pcs, weights)
        for p, c in zip(np.atleast_1d(u).tolist(), np.atleast_1d(counts).tolist()):
            self._count(space, kind, p, pc, c)

    def _check(self, space, sh: _Shadow, idx, tid, ep, kind):
        if idx.size == 0:
            return
        pc = self.s.pc
        t2, e2 = tid[:, None], ep[:, None]
        if kind == "read":
            haz = self._same_order(space, sh.w_tid[idx], t2, sh.w_ep[idx], e2)
            self._pairs(space, "RAW", sh.w_pc[idx][haz], pc)
            flat = idx.reshape(-1)
            tflat = np.broadcast_to(t2, idx.shape).reshape(-1)
            eflat = np.broadcast_to(e2, idx.shape).reshape(-1)
            same_ep = sh.r_ep[flat] == eflat
            other = same_ep & (sh.r_tid[flat] > 0) & (sh.r_tid[flat] != tflat)
            multi = np.where(same_ep, sh.r_multi[flat] | other, False)
            sh.r_multi[flat] = multi
            if _may_overlap(idx):  # several lanes of this access may read one byte
                u, counts = np.unique(flat, return_counts=True)
                sh.r_multi[u[counts > 1]] = True
            sh.r_tid[flat], sh.r_pc[flat], sh.r_ep[flat] = tflat, pc, eflat
            return
        # write
        waw = self._same_order(space, sh.w_tid[idx], t2, sh.w_ep[idx], e2).any(axis=1)
        self._pairs(space, "WAW", sh.w_pc[idx][:, 0][waw], pc)
        if _may_overlap(idx):
            distinct = np.unique(idx[:, 0]).size
            if distinct < idx.shape[0]:  # several lanes of this access write the same bytes
                self._count(space, "WAW", pc, pc, idx.shape[0] - distinct)
        r_tid, r_ep = sh.r_tid[idx], sh.r_ep[idx]
        war = (r_tid > 0) & (r_ep == e2) & ((r_tid != t2) | sh.r_multi[idx])
        if space == "global":
            T = self.threads_per_cta
            war |= (r_tid > 0) & ((r_tid - 1) // T != (t2 - 1) // T)
        self._pairs(space, "WAR", sh.r_pc[idx][war], pc)
        flat = idx.reshape(-1)
        sh.w_tid[flat] = np.broadcast_to(t2, idx.shape).reshape(-1)
        sh.w_pc[flat] = pc
        sh.w_ep[flat] = np.broadcast_to(e2, idx.shape).reshape(-1)

    def finish(self) -> None:
        for (space, kind, first, second), n in sorted(self.hazards.items(), key=lambda kv: (kv[0][2], kv[0][3])):
            where, other = self.s.location(second), self.s.location(first)
            self.s.records.append(Record(self.s.tool, "race", f"Race ({kind})", where, space=space, other=other,
                                         access=kind, hazards=n))
