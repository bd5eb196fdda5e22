"""Pool workers that store straight into the shared arena, with an undo log the parent can replay.

A pool worker normally maps the arena file MAP_PRIVATE: each page it stores to is copied on its
first write, and its stored bytes travel back through the socket to be race-checked and copied
into the arena by the parent. For a kernel with no atomics on global memory (`eligible`), the
worker instead maps the file MAP_SHARED (once, kept from launch to launch: no page faults after
the first launch) and its stores land in the arena itself; it sends only which bytes it stored
(blocks and masks), not the bytes.

Memory must still be restorable to what it was when the launch began (a worker that faults,
fails or is killed, an interrupt, two shards whose stores overlap). So before a worker's first
store to a 64-byte block it copies the block into its undo log: two files per worker that the
parent made (`UndoFiles`), so the log survives the worker. Each saved range gets a sequence
number from a counter all workers share (the file offset of one shared open file, advanced by
`lseek(fd, 1, SEEK_CUR)`, which the kernel does atomically), taken after the copy and before the
store. Restoring every saved block in decreasing sequence order (`undo`) gives memory as the
launch began, even where several shards saved (and wrote) the same block: for each block, the
shard with the lowest number copied it before any shard stored to it (every shard's stores to a
block follow its own save of that block and hence its own, larger, number), and its copy is the
one restored last.

A shard's entry is counted in its log only after its bytes and sequence number are written, and
before the store it guards, so a worker killed at any point leaves a log that is complete for
every store it made. The parent replays logs only once every worker has answered or been killed.
"""
from __future__ import annotations

import mmap
import os
import weakref

import numpy as np

from . import analysis
from .in_place import UndoJournal
from .shard import BLOCK

ENTRY = 5  # int64 per log entry: sequence number, first block, blocks, data offset, index offset (-1: a range)
_CLOEXEC = getattr(os, "MFD_CLOEXEC", 1)


def enabled() -> bool:
    """Unless PTXVM_IN_PLACE is 0 (or false, no, off): pool workers store in place where they may."""
    return os.environ.get("PTXVM_IN_PLACE", "").strip().lower() not in ("0", "false", "no", "off")


def eligible(module, kernel: str) -> bool:
    """Whether shards of `kernel` may store straight into the shared arena: no atomic or reduction
    on global (or generic) memory in it or anything it calls. (Atomics merge from each shard's
    final value against the value the launch began with, so their shards need private memory.)"""
    cache = module.__dict__.setdefault("_parallel_in_place", {})
    if kernel not in cache:
        cache[kernel] = not any(
            i.opcode in ("atom", "red") and analysis._space(i.modifiers) not in analysis._LOCAL_SPACES
            for f in analysis._reachable(module, kernel) for i in analysis._instructions(f.body))
    return cache[kernel]


# ---------------------------------------------------------------- the parent's side

class UndoFiles:
    """One pool worker's undo log: `log` (a count, then ENTRY int64 per saved range) and `data`
    (the saved bytes, and the block indices of scattered saves); memfds the parent keeps."""

    def __init__(self):
        self.log = os.memfd_create("ptxvm-undo-log", _CLOEXEC)
        self.data = os.memfd_create("ptxvm-undo-data", _CLOEXEC)
        os.ftruncate(self.log, 1 << 16)
        self._finalizer = weakref.finalize(self, _close, self.log, self.data)

    def reset(self) -> None:
        """No entries (before each launch, so a worker that dies early leaves none of the last)."""
        os.pwrite(self.log, bytes(8), 0)

    def entries(self) -> np.ndarray:
        count = int.from_bytes(os.pread(self.log, 8, 0), "little")
        raw = os.pread(self.log, count * ENTRY * 8, 8) if count else b""
        return np.frombuffer(raw, np.int64).reshape(-1, ENTRY)


def _close(*fds) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


def host_copies(launch) -> list[tuple[int, int]]:
    """(first, end) 64-byte blocks wholly inside the launch's argument copies: they hold the host
    arrays' bytes when the launch begins, and the host arrays are not written before it ends, so
    an undo copies them from there (`restore_copies`) and workers need not log those blocks."""
    from ..engine.core.memory import GLOBAL_BASE

    out = []
    for _, dev in launch.copies:
        lo = dev.address - GLOBAL_BASE
        b0, b1 = -(-lo // BLOCK), (lo + dev.nbytes) // BLOCK
        if b0 < b1:
            out.append((b0, b1))
    return out


def restore_copies(arena: np.ndarray, launch) -> None:
    """The argument copies' bytes again, from their host arrays (as Launch.marshal copied them)."""
    from ..engine.core.memory import GLOBAL_BASE

    for host, dev in launch.copies:
        lo = dev.address - GLOBAL_BASE
        arena[lo : lo + dev.nbytes] = np.ascontiguousarray(host).reshape(-1).view(np.uint8)


def new_counter() -> int:
    """The shared sequence counter: a file whose offset the workers advance (passed to them by
    descriptor: the same open file, so the same offset)."""
    return os.memfd_create("ptxvm-undo-seq", _CLOEXEC)


def undo(arena: np.ndarray, logs: list) -> int:
    """Put back every block the logs saved, in decreasing sequence order: memory as the launch
    began. Call only when no worker of the launch runs any more. Returns the blocks restored."""
    rows = arena.reshape(-1, BLOCK)
    todo = []
    for k, files in enumerate(logs):
        e = files.entries()
        if e.size:
            todo.append((e, files))
    if not todo:
        return 0
    restored = 0
    order = sorted(((int(row[0]), k, j) for k, (e, _) in enumerate(todo) for j, row in enumerate(e)), reverse=True)
    maps = {}
    try:
        for _, k, j in order:
            e, files = todo[k]
            if k not in maps:
                size = os.fstat(files.data).st_size
                maps[k] = mmap.mmap(files.data, size, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ)
            data = np.frombuffer(maps[k], np.uint8)
            _, first, n, off, idx = (int(v) for v in e[j])
            saved = data[off : off + n * BLOCK].reshape(n, BLOCK)
            if idx < 0:
                rows[first : first + n] = saved
            else:
                rows[data[idx : idx + 8 * n].view(np.int64)] = saved
            restored += n
            del data, saved
    finally:
        for m in maps.values():
            m.close()
    return restored


# ---------------------------------------------------------------- the worker's side

class _Mapped:
    """A file mapped MAP_SHARED in a worker, kept from launch to launch (grown on demand)."""

    def __init__(self, fd: int, size: int):
        self.key = _key(fd)
        self.fd = os.dup(fd)
        self.size = size
        self.map = mmap.mmap(self.fd, size, flags=mmap.MAP_SHARED) if size else None
        self.array = np.frombuffer(self.map, np.uint8) if size else np.zeros(0, np.uint8)

    def ensure(self, size: int) -> np.ndarray:
        """The mapping, at least `size` bytes (the file grown, doubling)."""
        if size > self.size:
            new = max(size, 2 * self.size, 1 << 20)
            new = -(-new // mmap.PAGESIZE) * mmap.PAGESIZE
            if os.fstat(self.fd).st_size < new:
                os.ftruncate(self.fd, new)
            self.array = None  # the old mapping goes with its last view
            self.map = mmap.mmap(self.fd, new, flags=mmap.MAP_SHARED)
            self.array = np.frombuffer(self.map, np.uint8)
            self.size = new
        return self.array

    def close(self) -> None:
        self.array, self.map = None, None
        _close(self.fd)


def _key(fd: int) -> tuple:
    st = os.fstat(fd)
    return (st.st_dev, st.st_ino)


_KEPT: dict = {}  # in a worker: "arena", "log", "data" -> _Mapped


def kept(role: str, fd: int, size: int | None = None) -> _Mapped:
    """The worker's mapping of `fd` for `role`, reused while it is the same file (and size, for the arena)."""
    m = _KEPT.get(role)
    if m is not None and (m.key != _key(fd) or (size is not None and m.size != size)):
        m.close()
        m = None
    if m is None:
        m = _KEPT[role] = _Mapped(fd, size if size is not None else os.fstat(fd).st_size)
    return m


class SharedUndoJournal(UndoJournal):
    """The journal of a shard that stores in place: what UndoJournal keeps, written to the undo
    files the parent made (the `log` and `data` mappings) with a sequence number from `counter`."""

    def __init__(self, arena: np.ndarray, counter: int, log: _Mapped, data: _Mapped, restorable=(),
                 resume: bool = False):
        super().__init__(arena)
        self.counter, self.log, self.data = counter, log, data
        for b0, b1 in restorable:  # blocks the parent restores from the host arrays (host_copies): not logged
            self.kept[b0:b1] = True
        self.count = 0
        self.used = 0
        if resume:  # a later piece of the same launch on this worker: after the entries already logged
            self._resume()

    def _resume(self) -> None:
        log = self.log.ensure(8).view(np.int64)
        self.count = int(log[0])
        if self.count:
            log = self.log.ensure(8 * (1 + ENTRY * self.count)).view(np.int64)
            _, first, n, off, idx = (int(v) for v in log[1 + ENTRY * (self.count - 1): 1 + ENTRY * self.count])
            end = (idx + 8 * n) if idx >= 0 else off + n * BLOCK
            self.used = -(-end // BLOCK) * BLOCK

    def _save(self, where, rows: np.ndarray) -> None:
        n = rows.shape[0]
        scattered = not isinstance(where, slice)
        nbytes = n * BLOCK
        idx_off = self.used + nbytes if scattered else -1
        end = self.used + nbytes + (8 * n if scattered else 0)
        data = self.data.ensure(end)
        data[self.used : self.used + nbytes].reshape(n, BLOCK)[...] = rows
        if scattered:
            data[idx_off : idx_off + 8 * n].view(np.int64)[...] = np.asarray(where, np.int64)
        seq = os.lseek(self.counter, 1, os.SEEK_CUR)  # after the copy, before the store it guards
        log = self.log.ensure(8 * (1 + ENTRY * (self.count + 1))).view(np.int64)
        log[1 + ENTRY * self.count : 1 + ENTRY * (self.count + 1)] = (
            seq, where.start if not scattered else -1, n, self.used, idx_off)
        self.count += 1
        log[0] = self.count  # the entry counts from now: the store may follow
        self.used = -(-end // BLOCK) * BLOCK

    def undo(self) -> None:  # the parent replays every shard's log together (`undo` above)
        raise RuntimeError("a shard that stores in place is undone by the parent")
