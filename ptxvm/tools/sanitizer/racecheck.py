"""racecheck: hazards between threads on shared memory, and beyond compute-sanitizer on global memory.

Shadow state per byte (NumPy arrays over the shared buffer and the global arena): the last writer
(global thread id), its PTX pc and the barrier epoch of its CTA, and the same for the last reader
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
    def __init__(self, size: int):
        self.w_tid = np.full(size, -1, dtype=np.int64)
        self.w_pc = np.zeros(size, dtype=np.int32)
        self.w_ep = np.zeros(size, dtype=np.int64)
        self.r_tid = np.full(size, -1, dtype=np.int64)
        self.r_pc = np.zeros(size, dtype=np.int32)
        self.r_ep = np.zeros(size, dtype=np.int64)
        self.r_multi = np.zeros(size, dtype=bool)

    def grow(self, size: int) -> None:
        old = self.w_tid.size
        if size <= old:
            return
        for name, fill in (("w_tid", -1), ("w_pc", 0), ("w_ep", 0), ("r_tid", -1), ("r_pc", 0), ("r_ep", 0), ("r_multi", False)):
            a = getattr(self, name)
            b = np.full(size, fill, dtype=a.dtype)
            b[:old] = a
            setattr(self, name, b)


class RaceCheck(Checker):
    def __init__(self, session):
        super().__init__(session)
        self.hazards: dict[tuple, int] = {}  # (space, kind, first pc, second pc) -> hazards
        self.glob = None
        self.epoch = None  # per CTA slot: barriers completed; global ids make it unique per launch

    def begin_wave(self, ctx) -> None:
        self.shared = _Shadow(ctx.shared.buf.size)
        if self.glob is None:
            self.glob = _Shadow(ctx.gmem.arena.size)
        # epochs of different waves never meet in one CTA; offset them so a reused slot starts fresh
        base = 0 if self.epoch is None else int(self.epoch.max()) + 1
        self.epoch = np.full(int(ctx.cta_slot.max()) + 1 if ctx.n else 1, base, dtype=np.int64)
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
        tid = ctx.cta_linear[lanes].astype(np.int64) * self.threads_per_cta + ctx.thread_linear[lanes]
        ep = self.epoch[ctx.cta_slot[lanes]]
        sh = codes == 1
        if sh.any():
            ok, idx = shared_bytes(ctx, lanes[sh], rel[sh], size)
            self._check("shared", self.shared, idx, tid[sh][ok], ep[sh][ok], kind)
        gl = codes == 0
        if gl.any():
            self.glob.grow(ctx.gmem.arena.size)
            ok, idx = global_bytes(ctx, rel[gl], size)
            self._check("global", self.glob, idx, tid[gl][ok], ep[gl][ok], kind)
        return None

    def _same_order(self, space, other_tid, tid, other_ep, ep):
        """Whether an earlier access by `other_tid` is unordered with this one (a hazard)."""
        unordered = (other_tid >= 0) & (other_tid != tid) & (other_ep == ep)
        if space == "global":  # no barrier orders threads of different CTAs
            T = self.threads_per_cta
            unordered |= (other_tid >= 0) & (other_tid // T != tid // T)
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
            other = same_ep & (sh.r_tid[flat] >= 0) & (sh.r_tid[flat] != tflat)
            multi = np.where(same_ep, sh.r_multi[flat] | other, False)
            u, first, counts = np.unique(flat, return_index=True, return_counts=True)
            multi[first[counts > 1]] = True  # several lanes of this access read the byte
            sh.r_multi[flat] = multi
            sh.r_multi[u[counts > 1]] = True
            sh.r_tid[flat], sh.r_pc[flat], sh.r_ep[flat] = tflat, pc, eflat
            return
        # write
        waw = self._same_order(space, sh.w_tid[idx], t2, sh.w_ep[idx], e2).any(axis=1)
        self._pairs(space, "WAW", sh.w_pc[idx][:, 0][waw], pc)
        _, first = np.unique(idx[:, 0], return_index=True)
        if first.size < idx.shape[0]:  # several lanes of this access write the same bytes
            self._count(space, "WAW", pc, pc, idx.shape[0] - first.size)
        r_tid, r_ep = sh.r_tid[idx], sh.r_ep[idx]
        war = (r_tid >= 0) & (r_ep == e2) & ((r_tid != t2) | sh.r_multi[idx])
        if space == "global":
            war |= (r_tid >= 0) & (r_tid // self.threads_per_cta != t2 // self.threads_per_cta)
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
