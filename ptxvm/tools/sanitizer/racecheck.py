"""racecheck: hazards between threads on shared memory, and beyond compute-sanitizer on global memory.

Shadow state per byte (NumPy arrays over the shared buffer and the global arena): the last writer
and the last reader, each as one packed key (the CTA's barrier epoch, the warp's __syncwarp epoch,
the thread; or for readers, "several lanes of warp w" / "several warps") and the PTX pc of the
access. A CTA's epoch advances when one of its barriers completes, a warp's when it runs
bar.warp.sync. A read of a byte written by another thread in the same epoch (and, within a warp,
with no __syncwarp between) is a read-after-write hazard; a write over a byte another thread read
(write-after-read) or wrote (write-after-write) so is one too.
Threads of different CTAs share no barrier, so on global memory any two of their conflicting
accesses are hazards. Atomics neither race nor order.

On global memory, in a kernel with atomics or fences (which may order threads as a lock or a flag
does), hazards between CTAs are warnings, not errors.

In kernels with mbarriers, asynchronous copies, fences or acquire/release operations, vector
clocks over the warps of a CTA (clocks.py) also order accesses: an access another warp made
before a release (mbarrier arrive, fence and flag write) that this warp acquired (a successful
wait, flag read and fence) is no hazard. Asynchronous copies into shared memory (cp.async, bulk
copies) are writes by the issuing thread that only the wait completing them orders, for that
thread too; no CTA barrier alone does.

Hazards are counted as compute-sanitizer counts them on the planted kernels: read-after-write and
write-after-read per byte, write-after-write per conflicting thread access; one record per pair of
instructions (and kind), its count the sum. Lanes of one access that touch the same byte are
found without sorting: after the scatter, the lanes whose value did not land collided.
"""
from __future__ import annotations

import numpy as np

from .checker import Checker, global_bytes, shared_bytes, spaces_of
from .clocks import SyncClocks
from .report import Record

# A key packs who accessed a byte and when: bits 0-31 the id (thread + 1; 0: nobody;
# WARP_READERS | (warp * 32 + 1): several lanes of one warp read it, named by a thread id of that
# warp when a CTA holds whole warps; MULTI: threads of several warps read it),
# bits 32-43 the epoch of the thread's warp (its __syncwarp count), bits 44-62 its CTA's barrier
# epoch (both wrap; a collision needs accesses 4096 __syncwarps or 2^19 barriers apart).
TID = np.int64(0xFFFFFFFF)
MULTI = np.int64(0xFFFFFFFF)
WARP_READERS = np.int64(0x80000000)
WARP_SHIFT, CTA_SHIFT = 32, 44
WARP_EPOCH_MASK, CTA_EPOCH_MASK = (1 << 12) - 1, (1 << 19) - 1
ASYNC = np.int64(-(1 << 63))  # bit 63 of a writer key: an asynchronous copy's write (clocked kernels)
STAMP = np.int64(0xFFFFFFFF)  # the clock stamp in w_clk / r_clk (above it, r_clk of several readers: their warps)
GROUP_COPY = np.int64(1 << 32)  # in w_clk: the write of a cp.async (completed by wait_group), not of a bulk copy

# what makes a kernel need the vector clocks (clocks.py)
_CLOCKED_OPCODES = frozenset(("mbarrier", "cp", "fence", "membar"))
_SEMANTICS = frozenset(("acquire", "release", "acq_rel"))
_STRONG = frozenset(("volatile", "relaxed", "acquire", "release", "acq_rel"))


class _Shadow:
    """All zeros at the start: np.zeros maps untouched pages lazily, so a shadow of a large arena
    costs only what the kernel touches.

    Word-aligned accesses of whole words (the usual case) work on one entry per 4-byte word, the
    entry of its first byte, which stands for all four while the word is not `split`; the first
    access that touches part of a word (or is unaligned) copies that entry to the other three
    bytes and marks the word split, and from then on the word is handled byte by byte."""

    FIELDS = (("w_key", np.int64), ("w_pc", np.int32), ("r_key", np.int64), ("r_pc", np.int32))
    CLOCK_FIELDS = (("w_clk", np.int64), ("r_clk", np.int64))  # the accessing warp's clock (clocks.py)

    def __init__(self, size: int, clocked: bool = False):
        if clocked:
            self.FIELDS = self.FIELDS + self.CLOCK_FIELDS
        for name, dt in self.FIELDS:
            setattr(self, name, np.zeros(size, dtype=dt))
        self.split = np.zeros(-(-size // 4), dtype=bool)

    def grow(self, size: int) -> None:
        old = self.w_key.size
        if size <= old:
            return
        for name, dt in self.FIELDS:
            b = np.zeros(size, dtype=dt)
            b[:old] = getattr(self, name)
            setattr(self, name, b)
        split = np.zeros(-(-size // 4), dtype=bool)
        split[: self.split.size] = self.split
        self.split = split

    def split_words(self, words: np.ndarray) -> None:
        """Give the bytes of `words` (not yet split) their own entries."""
        words = np.unique(words)
        words = words[~self.split[words]]
        if words.size:
            first = words * 4
            for name, _ in self.FIELDS:
                a = getattr(self, name)
                for j in (1, 2, 3):
                    a[first + j] = a[first]
            self.split[words] = True


class _Words:
    """The words of aligned whole-word accesses, as entries of a shadow's first-byte view."""

    def __init__(self, idx: np.ndarray):
        self.idx = idx  # (accesses, words per access)
        self.n = idx.shape[0]

    def get(self, a: np.ndarray) -> np.ndarray:
        return a[0::4][self.idx]

    def set(self, a: np.ndarray, values) -> None:
        a[0::4][self.idx] = values

    def may_collide(self) -> bool:
        return self.n > 1 and not bool((np.diff(self.idx[:, 0]) > 0).all())

    def subset(self, which: np.ndarray) -> "_Words":
        return _Words(self.idx[which])


class RaceCheck(Checker):
    def __init__(self, session):
        super().__init__(session)
        self.hazards: dict[tuple, int] = {}  # (space, kind, first pc, second pc) -> hazards
        self.glob = None
        self.epoch = None  # per CTA slot: barriers completed (offset per wave, so a reused slot starts fresh)
        # Atomics and fences can order threads (locks, flags) in ways the epochs do not see: with
        # them in the kernel, global-memory hazards are warnings.
        self.global_sync = any(op.origin and op.origin[0].opcode in ("atom", "red", "fence", "membar")
                               for op in session.kernel_ops)
        self.clocked = any(op.origin and (op.origin[0].opcode in _CLOCKED_OPCODES
                                          or (op.origin[0].opcode in ("ld", "st", "atom", "red")
                                              and _SEMANTICS & set(op.origin[0].modifiers)))
                           for op in session.kernel_ops)
        self.clocks = None
        self._strong: dict[int, tuple] = {}  # pc -> (strong access, acquire, release)

    def begin_wave(self, ctx) -> None:
        self.shared = _Shadow(ctx.shared.buf.size, self.clocked)
        base = 0 if self.epoch is None else int(self.epoch.max()) + 1
        self.epoch = np.full(int(ctx.cta_slot.max()) + 1 if ctx.n else 1, base, dtype=np.int64)
        self.warp_epoch = np.zeros(int(ctx.warp_of.max()) + 1 if ctx.n else 1, dtype=np.int64)
        self.threads_per_cta = self.s.launch.threads_per_cta
        self.warps_per_cta = -(-self.threads_per_cta // 32)
        self.tid = ctx.cta_linear.astype(np.int64) * self.threads_per_cta + ctx.thread_linear + 1  # per slot
        if self.clocked:  # (stamps of earlier waves stay in the global shadow: they belong to other
            # CTAs, which the clocks never order)
            self.clocks = SyncClocks(ctx, self.warps_per_cta)

    def warp_barrier(self, ctx, lanes) -> None:
        self.warp_epoch[np.unique(ctx.warp_of[lanes])] += 1

    def _warp_of_id(self, ident):
        """Global warp of an id field (thread + 1, or WARP_READERS | (warp * 32 + 1)); -1 for MULTI."""
        t = (ident & ~WARP_READERS) - 1
        T = self.threads_per_cta
        if T % 32 == 0:  # thread ids count whole warps: the id's warp is id // 32 either way
            warp = t >> 5
        else:
            warp = np.where(ident & WARP_READERS != 0, t >> 5, (t // T) * self.warps_per_cta + (t % T) // 32)
        return np.where(ident == MULTI, -1, warp)

    def barrier_complete(self, ctx, cta_slots) -> None:
        if cta_slots is None:
            self.epoch += 1
        else:
            self.epoch[cta_slots] += 1
        if self.clocks is not None:
            self.clocks.barrier(cta_slots)

    # -- the orderings of clocked kernels (clocks.py)
    def sync_op(self, ctx, pc, op, lanes) -> None:
        """A fence ran (membar, fence.sc / fence.acq_rel; proxy fences order nothing here)."""
        if self.clocks is not None:
            self.clocks.fence(ctx, ctx.lanes_or_live(lanes))

    def mbarrier(self, ctx, lanes, kind, view, idx, before) -> None:
        if self.clocks is not None:
            self.clocks.mbarrier(ctx, lanes, kind, view, idx, before)

    def async_group(self, ctx, lanes, kind, n) -> None:
        if self.clocks is not None:
            self.clocks.async_group(ctx, lanes, kind, n)

    def async_write(self, ctx, lanes, addr, size, acc, mbarrier) -> None:
        if self.clocks is None:
            return
        if mbarrier is None:  # cp.async: marked in w_clk (a thread's early read of its own is a warning)
            stamp = self.clocks.agent[ctx.warp_of[lanes]] | GROUP_COPY
        else:  # one copy, issued by lanes[0] (its elements may be several "lanes" of it)
            stamp = np.broadcast_to(self.clocks.copy_into_mbarrier(ctx, lanes[:1], *mbarrier), lanes.shape)
        self.access(ctx, lanes, np.asarray(addr, dtype=np.uint64), size, acc, "write", stamp)

    def _strength(self, pc: int) -> tuple:
        got = self._strong.get(pc)
        if got is None:
            origin = self.s.code[pc].origin if 0 <= pc < len(self.s.code) else None
            mods = set(origin[0].modifiers) if origin else set()
            got = self._strong[pc] = (bool(_STRONG & mods), bool(mods & {"acquire", "acq_rel"}),
                                      bool(mods & {"release", "acq_rel"}))
        return got

    def _flags(self, ctx, lanes, kind) -> None:
        """Atomics and strong loads/stores as flag operations (clocks.py)."""
        strong, acquire, release = self._strength(self.s.pc)
        if kind == "atomic" or strong:
            if kind != "read":
                self.clocks.flag_write(ctx, lanes, release)
            if kind != "write":
                self.clocks.flag_read(ctx, lanes, acquire)

    def access(self, ctx, lanes, addr, size, acc, kind, async_stamp=None, values=None):
        if self.clocks is not None and async_stamp is None:
            self._flags(ctx, lanes, kind)
        if kind == "atomic":
            return None
        codes, rel = spaces_of(acc, addr)
        tid = self.tid[lanes]
        key = (((self.epoch[ctx.cta_slot[lanes]] & CTA_EPOCH_MASK) << CTA_SHIFT)
               | ((self.warp_epoch[ctx.warp_of[lanes]] & WARP_EPOCH_MASK) << WARP_SHIFT) | tid)
        cur = None
        if self.clocks is not None:  # (wave warp, stamp stored with the access, asynchronous)
            warps = ctx.warp_of[lanes]
            stamp = self.clocks.own(warps) if async_stamp is None else np.asarray(async_stamp, dtype=np.int64)
            cur = np.stack([warps, stamp], axis=1)
            if async_stamp is not None:
                key = key | ASYNC
        sh = codes == 1

        def part(a, which, ok):
            return None if a is None else a[which][ok]

        if sh.all():
            ok, idx = shared_bytes(ctx, lanes, rel, size)
            self._check("shared", self.shared, idx, key[ok], kind, None if cur is None else cur[ok],
                        None if values is None else values[ok], ctx.shared.buf)
        elif sh.any():
            ok, idx = shared_bytes(ctx, lanes[sh], rel[sh], size)
            self._check("shared", self.shared, idx, key[sh][ok], kind, part(cur, sh, ok), part(values, sh, ok),
                        ctx.shared.buf)
        gl = codes == 0
        if gl.any():
            if self.glob is None:
                self.glob = _Shadow(ctx.gmem.arena.size, self.clocked)
            self.glob.grow(ctx.gmem.arena.size)
            ok, idx = global_bytes(ctx, rel[gl], size)
            self._check("global", self.glob, idx, key[gl][ok], kind, part(cur, gl, ok), part(values, gl, ok),
                        ctx.gmem.arena)
        return None

    def _unordered(self, space, other, key):
        """Whether earlier accesses (packed keys `other`) are unordered with this one's (`key`,
        a single thread's): someone else in the same CTA epoch, unless of the same warp with a
        __syncwarp between; on global memory also any thread of another CTA."""
        x = other ^ key
        o_id = other & TID
        hazard = ((x >> CTA_SHIFT) == 0) & (o_id != 0) & ((x & TID) != 0)
        if hazard.any() and ((x >> WARP_SHIFT) & WARP_EPOCH_MASK).any():  # some __syncwarp in between
            synced = (self._warp_of_id(o_id) == self._warp_of_id(key & TID)) & (((x >> WARP_SHIFT) & WARP_EPOCH_MASK) != 0)
            hazard &= ~synced
        if space == "global":  # no barrier orders threads of different CTAs
            W = self.warps_per_cta
            o_warp = self._warp_of_id(o_id)
            hazard |= (o_id != 0) & ((o_warp < 0) | (o_warp // W != self._warp_of_id(key & TID) // W))
        return hazard

    def _unordered_clocked(self, space, other, o_clk, key, cur):
        """`_unordered` in a clocked kernel: also no hazard where the clocks order the earlier
        access before this one (`cur`: this access's (wave warp, stamp) per row); an asynchronous
        copy's write is a hazard until a wait this warp acquired completes it."""
        key = key & ~ASYNC  # an asynchronous write is checked as its issuing thread's
        async_ = other < 0
        plain = other & ~ASYNC
        hazard = self._unordered(space, plain, key)
        o_id = plain & TID
        o_warp = self._warp_of_id(o_id)
        my_warp = self._warp_of_id(key & TID)
        W = self.warps_per_cta
        same_cta = (o_warp >= 0) & (o_warp // W == my_warp // W)
        if async_.any():
            hazard = np.where(async_, (o_id != 0) & same_cta, hazard)
        if not hazard.any():
            return hazard
        o_wic = np.where(o_warp >= 0, o_warp % W, 0)
        warps = cur[:, 0:1] if np.ndim(other) == 2 else cur[:, 0]
        stamp = o_clk & STAMP
        ordered = same_cta & self.clocks.ordered(warps, o_wic, stamp, async_)
        multi = (o_id == MULTI) & hazard
        if space == "shared" and multi.any():  # readers of several warps: r_clk holds their warps and top stamp
            ordered = ordered | (multi & self.clocks.ordered_after_all(warps, o_clk >> 32, stamp))
        return hazard & ~ordered

    def _merged_clock(self, old_id, old_clk, cur):
        """r_clk for bytes read by this access and others (`old_id`, `old_clk`): the readers' warps
        (a bit each, bits 32+) and the highest stamp (see `_unordered_clocked`)."""
        W = self.warps_per_cta
        o_warp = self._warp_of_id(old_id)
        old_bits = np.where(old_id == MULTI, old_clk >> 32, np.left_shift(1, np.where(o_warp >= 0, o_warp % W, 0)))
        mine = cur[:, 0:1] % W
        return ((old_bits | np.left_shift(1, mine)) << 32) | np.maximum(old_clk & STAMP, cur[:, 1:2])

    def _merged_readers(self, old_id, key):
        """The id for a byte read by `key`'s thread and by others (`old_id`): the warp if one."""
        w = self._warp_of_id(key & TID)
        return np.where(self._warp_of_id(old_id) == w, WARP_READERS | (w * 32 + 1), MULTI)

    def _count(self, space, kind, first_pc, second_pc, n, severity="error"):
        k = (space, kind, int(first_pc), int(second_pc), severity)
        self.hazards[k] = self.hazards.get(k, 0) + int(n)

    def _pairs(self, space, kind, pcs, pc, weight=1, severity="error"):
        if pcs.size:
            u, counts = np.unique(pcs, return_counts=True)
            for p, c in zip(u.tolist(), counts.tolist()):
                self._count(space, kind, p, pc, c * weight, severity)

    def _check(self, space, sh: _Shadow, at, key, kind, cur=None, values=None, memory=None):
        """`at`: the access's bytes in the shadow arrays (checker.Bytes); `key`: per access;
        `cur`: in clocked kernels, per access (wave warp, clock stamp); `values`: a store's bytes
        per access, or None; `memory`: the bytes the shadows stand for, before the store.
        A store of the bytes memory already holds races with no earlier write, as
        compute-sanitizer has it (tools/device/racecheck_same_value: threads of one warp or of
        two storing one value into one word without a barrier: no hazard; their own ids: one
        write-after-write hazard per thread but the first)."""
        if at.n == 0:
            return
        if values is not None and memory is not None:
            values = (values, (at.get(memory) == values).all(axis=1))
        if at.rows is not None and at.size % 4 == 0:  # aligned whole words
            nw = at.size // 4
            words = at.rows[:, None] * nw + np.arange(nw) if nw > 1 else at.rows[:, None]
            split = sh.split[words]
            if not split.any():
                return self._check_at(space, sh, _Words(words), key, kind, 4, cur, values)
            sh.split_words(words.reshape(-1))
        else:
            first = at.rows * at.size if at.rows is not None else at.idx[:, 0]
            sh.split_words(np.concatenate([first // 4, (first + at.size - 1) // 4]))
            if at.size > 8:
                sh.split_words((first[:, None] + np.arange(0, at.size, 4)).reshape(-1) // 4)
        self._check_at(space, sh, at, key, kind, 1, cur, values)

    def _check_at(self, space, sh: _Shadow, at, key, kind, weight, cur=None, values=None):
        """The check over entries that each stand for `weight` bytes."""
        pc = self.s.pc
        k = key[:, None]
        if cur is None:
            def unordered(sp, other, clk_field):
                return self._unordered(sp, other, k)
        else:
            def unordered(sp, other, clk_field):
                return self._unordered_clocked(sp, other, at.get(getattr(sh, clk_field)), k, cur)
        if kind == "read":
            w_key = at.get(sh.w_key)
            haz = unordered(space, w_key, "w_clk")
            if haz.any() and cur is not None:  # a thread reading its own cp.async early: a warning, as
                own = haz & (w_key < 0) & ((w_key & TID) == (k & TID))  # compute-sanitizer has it (bulk
                own &= (at.get(sh.w_clk) & GROUP_COPY) != 0  # and tensor copies: errors)
                if own.any():
                    self._pairs(space, "RAW", at.get(sh.w_pc)[own], pc, weight, "warning")
                    haz = haz & ~own
            if haz.any():
                self._pairs(space, "RAW", at.get(sh.w_pc)[haz], pc, weight)
            old = at.get(sh.r_key)
            others = unordered("shared", old, "r_clk")  # read by another thread in this epoch too
            if others.any():
                new = np.where(others, (k & ~TID) | self._merged_readers(old & TID, k), k)
            else:
                new = np.broadcast_to(k, old.shape)
            at.set(sh.r_key, new)
            at.set(sh.r_pc, pc)
            if cur is not None:
                clk = np.broadcast_to(cur[:, 1:2], old.shape)
                if others.any():
                    clk = np.where(others, self._merged_clock(old & TID, at.get(sh.r_clk), cur), clk)
                at.set(sh.r_clk, clk)
            if at.may_collide():
                got = at.get(sh.r_key)
                lost = (got != new).any(axis=1)  # another lane of this access read the bytes too
                if lost.any():  # the lanes that lost mark the bytes with the readers' warp, or MULTI
                    sub, kl = at.subset(lost), k[lost]
                    mark = (kl & ~TID) | self._merged_readers(got[lost] & TID, kl)
                    sub.set(sh.r_key, mark)
                    disagree = (sub.get(sh.r_key) != mark).any(axis=1)  # lost lanes of several warps
                    if disagree.any():
                        sub.subset(disagree).set(sh.r_key, (kl[disagree] & ~TID) | MULTI)
            return
        waw = unordered(space, at.get(sh.w_key), "w_clk").any(axis=1)
        if values is not None:  # (bytes per access, whether memory holds them already)
            values, unchanged = values
            waw &= ~unchanged
        if waw.any():
            self._pairs(space, "WAW", at.get(sh.w_pc)[:, 0][waw], pc)
        war = unordered(space, at.get(sh.r_key), "r_clk")
        if war.any():
            self._pairs(space, "WAR", at.get(sh.r_pc)[war], pc, weight)
        at.set(sh.w_key, k)
        at.set(sh.w_pc, pc)
        if cur is not None:
            at.set(sh.w_clk, cur[:, 1:2])
        lost = (at.get(sh.w_key) != k).any(axis=1) if at.may_collide() else None  # lanes wrote the same bytes
        if lost is not None and lost.any() and values is not None:
            lost &= ~self._same_as_winner(at.get(sh.w_key), k, values, lost)
        if lost is not None and lost.any():
            self._count(space, "WAW", pc, pc, int(np.count_nonzero(lost)))

    @staticmethod
    def _same_as_winner(landed, k, values, lost):
        """Per access of one store: whether the lane whose bytes land where it stores (the key that
        landed on its first entry names it) stores the same bytes. compute-sanitizer reports no
        hazard there (`_check`): CUDA 13's cooperative groups have every lane of a warp store its
        tile's reduced value into one word."""
        same = np.zeros(lost.shape, bool)
        row_of = {int(t): i for i, t in enumerate((k[:, 0] & TID).tolist())}
        for i in np.flatnonzero(lost).tolist():
            w = row_of.get(int(landed[i, 0] & TID))
            same[i] = w is not None and bool(np.array_equal(values[i], values[w]))
        return same

    def finish(self) -> None:
        for (space, kind, first, second, severity), n in sorted(self.hazards.items(),
                                                                 key=lambda kv: (kv[0][2], kv[0][3])):
            where, other = self.s.location(second), self.s.location(first)
            if space == "global" and self.global_sync:
                severity = "warning"
            self.s.records.append(Record(self.s.tool, "race", f"Race ({kind})", where, space=space, other=other,
                                         access=kind, hazards=n, severity=severity))
