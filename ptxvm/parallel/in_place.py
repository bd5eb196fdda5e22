"""The shard a forked launch runs in the parent itself, in its own global memory, side by side
with its workers (local.run_local): no fork, no pipe and no copy of its write set for it.

The workers were forked before it began, so they see memory as the launch began whatever it
writes. It writes in place, with an `UndoJournal` that keeps what each 64-byte block held before
its first write, so the memory can be put back as the launch began: before a run in one process
(a worker failed, a merge conflict, an interrupt) and, when the shard did atomics, before the
merge (the merge combines atomics from the values the launch began with). Otherwise its result
stays in place (`ShardResult.in_place`): its stored bytes are views of the memory itself (one
view when they are one run of blocks, as a coalesced output's are), read by the merge's race
check and not copied in again.

The kept bytes go to one scratch mapping shared with nothing but inherited (`Scratch`): memory
mapped MAP_SHARED is not made copy-on-write by fork, so the parent writes it, after forking its
workers, without a page fault per page (private memory the parent had before forking faults on
its first write afterwards, as a worker's does: ~2.4 us per 4 KiB page here). It is kept for the
next launch, up to SCRATCH_KEPT bytes."""
from __future__ import annotations

import mmap
import os
from typing import Optional

import numpy as np

from .shard import BLOCK, Journal, ShardResult, run_shard

SCRATCH_KEPT = 1 << 28  # bytes of scratch kept between launches (more is made for a launch, then let go): a library holds no more


class Scratch:
    """Bump allocation of byte arrays from one anonymous MAP_SHARED mapping, reset per launch."""

    _map: Optional[mmap.mmap] = None  # kept across launches (its pages stay mapped: no faults next time)
    _owner = 0  # the process that made it: a process forked from it (by the application) makes its own
    _used = 0

    @classmethod
    def reset(cls) -> None:
        cls._used = 0

    @classmethod
    def take(cls, nbytes: int) -> np.ndarray:
        """A fresh uint8 array of `nbytes` (valid until the next reset)."""
        if cls._owner != os.getpid():  # a shared mapping inherited through fork is the other process's too
            cls._map, cls._owner, cls._used = None, os.getpid(), 0
        if cls._map is None or cls._used + nbytes > len(cls._map):
            need = max(cls._used + nbytes, 2 * (len(cls._map) if cls._map is not None else 0), 1 << 20)
            if need > SCRATCH_KEPT or not hasattr(mmap, "MAP_SHARED"):
                return np.empty(nbytes, np.uint8)  # too large to keep: ordinary memory for this launch
            # a larger mapping; arrays taken from the old one stay valid (they hold a reference to it)
            cls._map, cls._used = mmap.mmap(-1, -(-need // mmap.PAGESIZE) * mmap.PAGESIZE,
                                            flags=mmap.MAP_SHARED | getattr(mmap, "MAP_ANONYMOUS", 0x20)), 0
        out = np.frombuffer(cls._map, np.uint8, nbytes, cls._used)
        cls._used += -(-nbytes // 64) * 64
        return out


class UndoJournal(Journal):
    """A Journal that also keeps what each 64-byte block held before the shard first wrote to it;
    `undo()` puts them back. It hears of each write before it happens (GlobalMemory.store and
    the atomics call it first)."""

    def __init__(self, arena: np.ndarray):
        super().__init__(arena.size)
        self.rows = arena.reshape(-1, BLOCK)
        self.kept = np.zeros(self.rows.shape[0], bool)  # blocks whose first bytes are kept
        self.old: list[tuple[object, np.ndarray]] = []  # (slice of blocks or block indices, their bytes)

    def stored(self, offsets: np.ndarray, itemsize: int, count: int) -> None:
        self._keep(offsets, itemsize * count)
        super().stored(offsets, itemsize, count)

    def atomic(self, op: str, t: str, offsets: np.ndarray, width: int, values) -> None:
        self._keep(np.asarray(offsets, dtype=np.int64).reshape(-1), width)
        super().atomic(op, t, offsets, width, values)

    def _keep(self, offsets: np.ndarray, span: int) -> None:
        if not offsets.size:
            return
        offs = np.asarray(offsets).astype(np.int64, copy=False)
        lo, hi = int(offs.min()) // BLOCK, (int(offs.max()) + span - 1) // BLOCK + 1
        if self.kept[lo:hi].all():  # every block it may touch is kept already (or restorable otherwise)
            return
        if hi - lo <= 2 * offs.size and not self.kept[lo:hi].any():  # a fresh dense range (coalesced stores)
            self._save(slice(lo, hi), self.rows[lo:hi])
            self.kept[lo:hi] = True
            return
        steps = (span - 1) // BLOCK + 2  # the blocks one access of `span` bytes may touch
        blocks = offs[:, None] // BLOCK + np.arange(steps)[None, :]
        blocks = np.unique(blocks[blocks <= (offs[:, None] + span - 1) // BLOCK])
        blocks = blocks[~self.kept[blocks]]
        if blocks.size:
            self._save(blocks, self.rows[blocks])
            self.kept[blocks] = True

    def _save(self, where, rows: np.ndarray) -> None:
        copy = Scratch.take(rows.size).reshape(rows.shape)
        copy[...] = rows
        self.old.append((where, copy))

    def undo(self) -> None:
        """Every block written back to what it held before the shard ran."""
        for where, old in self.old:
            self.rows[where] = old
        self.old.clear()
        self.kept = np.zeros(self.kept.size, bool)  # fresh (untouched pages cost nothing)


def run_shard_here(launch, index: int, positions: tuple[int, int], limit: int) -> ShardResult:
    """Run a shard in this process, in place (above). `limit`: the device budget's limit while it
    runs (each worker's share). The result's `undo` puts memory back as the launch began while
    `in_place`; an interrupt (^C) is raised with memory put back; any other failure is the
    result's `error` (memory put back), as in a worker."""
    mem = launch.device.memory
    arena, budget = mem.arena, launch.device.budget
    saved = launch.positions, launch.progress, budget.limit
    Scratch.reset()
    journal = UndoJournal(arena)
    out = None
    try:
        budget.limit = limit
        out = run_shard(launch, index, positions, arena, copy=False, views=True, journal=journal,
                        passed_on=(KeyboardInterrupt, SystemExit))
    finally:
        mem.arena = arena
        launch.positions, launch.progress, budget.limit = saved
        if out is None or out.error is not None:
            journal.undo()
    out.in_process = True
    if out.error is not None:
        return out
    try:
        if out.atom_offsets.size:  # the merge needs the values atomics began from: copy out, put back
            out.data = np.concatenate(out.parts) if out.parts else out.data
            out.parts = None
            journal.undo()
            return out
        if out.parts is not None:  # the stored bytes stay where they are
            out.data = out.parts[0] if len(out.parts) == 1 else np.concatenate(out.parts)
            out.parts = None
    except BaseException:
        journal.undo()
        raise
    out.in_place, out.undo = True, journal.undo
    return out
