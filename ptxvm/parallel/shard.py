"""One shard of a launch, the same for a local worker process and a Ray task.

A worker holds a private copy of the launch's global memory (a fork's copy-on-write pages
locally, a copy of the arena from Ray's object store remotely), runs its CTAs (whole clusters)
with a journal on the memory that notes every byte stored and every atomic, and returns a
`ShardResult`: the bytes its CTAs stored (in 64-byte blocks with a per-byte mask; a byte stored
with the value it had counts too) and, separately, the global locations its atomics updated with
their operation and final value. The parent merges the results (merge.py)."""
from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from .. import cores
from ..engine.core.memory import scatter
from .analysis import MERGEABLE_ATOMIC_OPS, MERGEABLE_ATOMIC_TYPES

BLOCK = 64  # bytes per block of a write set (the arena is a whole number of 512-byte units)
CHUNK = 1 << 24  # bytes of arena compared at a time
REGION_SHIFT = 20  # the journal notes which 1 MiB regions were written, so only those are scanned
MIXED = 255  # an atomic location updated by more than one kind of operation (or one not mergeable)
KINDS = [(op, t) for op in MERGEABLE_ATOMIC_OPS for t in MERGEABLE_ATOMIC_TYPES]
CODE = {k: i + 1 for i, k in enumerate(KINDS)}  # (op, type) -> code, the same in every process


@dataclass
class ShardResult:
    index: int  # which shard (or which piece of a launch on the pool)
    arena_size: int = 0
    stats: object = None  # the shard's LaunchStats
    error: Optional[str] = None  # the worker failed (a fault...): the parent runs the launch in one process
    blocks: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # BLOCK-byte blocks stored to
    masks: np.ndarray = field(default_factory=lambda: np.zeros((0, BLOCK // 8), np.uint8))  # packed bytes stored
    data: np.ndarray = field(default_factory=lambda: np.zeros((0, BLOCK), np.uint8))  # the blocks' new bytes
    parts: Optional[list] = None  # in a forked worker: `data` as slices of its arena, until sent (local.send)
    atom_offsets: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # arena offsets
    atom_codes: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint8))
    atom_finals: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint64))  # final raw bits
    atom_bounds: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # inc/dec bound, else -1
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    learned: Optional[bytes] = None  # a forked worker's compiled code and tiering counts, pickled (warmth.py)
    in_process: bool = False  # run by the parent itself (in_place.run_shard_here), side by side with the workers
    in_place: bool = False  # ... and its stored bytes are in the parent's memory already (`data` views them)
    undo: Optional[Callable] = None  # while in_place: puts the parent's memory back as the launch began
    stored_in_arena: bool = False  # a pool worker stored straight into the shared arena (shared_stores.py): no `data`
    # ... and then blocks stored whole come as runs [first, end) of blocks, not in `blocks`/`masks` (see `expanded`)
    runs: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.int64))
    worker: int = -1  # the pool worker that ran it (a worker may run several pieces of a launch); -1: its own process

    def span(self) -> Optional[tuple[int, int]]:
        """(first, last) block stored to, or None."""
        ends = [(int(self.blocks[0]), int(self.blocks[-1]))] if self.blocks.size else []
        if self.runs.size:
            ends.append((int(self.runs[0, 0]), int(self.runs[-1, 1]) - 1))
        return (min(e[0] for e in ends), max(e[1] for e in ends)) if ends else None

    def expanded(self) -> "ShardResult":
        """The result with its runs of whole blocks in `blocks` and `masks` (sorted), for the
        merge's slower paths; itself when it has none."""
        if not self.runs.size:
            return self
        import dataclasses

        whole = np.concatenate([np.arange(a, b, dtype=np.int64) for a, b in self.runs])
        blocks = np.concatenate([self.blocks, whole])
        masks = np.concatenate([self.masks, np.full((whole.size, BLOCK // 8), 0xFF, np.uint8)])
        order = np.argsort(blocks, kind="stable")
        return dataclasses.replace(self, blocks=blocks[order], masks=masks[order],
                                   runs=np.zeros((0, 2), np.int64), undo=None)


_ONES = {w: np.frombuffer(b"\x01" * w, np.dtype(f"u{w}"))[0] for w in (1, 2, 4, 8)}


class Journal:
    """GlobalMemory.journal while a shard runs: which bytes were stored, and per arena offset
    which atomic kind updated the element there (0: none, MIXED: several kinds or one that does
    not merge); for inc/dec the bound.

    Stores are noted cheaply: a coalesced store (one gap-free range, what most kernels' stores
    are) marks the BLOCK-byte blocks it covers whole in `full` (one byte per block) and only its
    ragged ends byte by byte in `written` (one byte per arena byte); scattered stores mark bytes.
    Which 1 MiB regions each array was marked in (`dirty_bytes`, `dirty_full`, `dirty_atomics`)
    is kept too, so extracting the write set reads those regions only, not the whole arena in
    every worker. Arrays are made at first use (zeros cost no memory until written)."""

    def __init__(self, size: int):
        self.size = size
        self.written: Optional[np.ndarray] = None
        self.full: Optional[np.ndarray] = None
        self.code: Optional[np.ndarray] = None
        self.bound: Optional[np.ndarray] = None  # inc/dec bounds per 4-byte word, -1: none yet
        regions = (size >> REGION_SHIFT) + 1
        self.dirty_bytes = np.zeros(regions, bool)
        self.dirty_full = np.zeros(regions, bool)
        self.dirty_atomics = np.zeros(regions, bool)

    def stored(self, offsets: np.ndarray, itemsize: int, count: int) -> None:
        n, span = offsets.size, itemsize * count
        if not n:
            return
        if n > 64:  # a coalesced store: increasing addresses with no gap fill one range
            lo, hi = int(offsets[0]), int(offsets[-1])
            if hi - lo == (n - 1) * span and bool((offsets[1:] > offsets[:-1]).all()):
                self.stored_range(lo, hi + span)
                return
        written = self._bytes()
        _mark(self.dirty_bytes, offsets, span)
        if itemsize in _ONES:  # one scatter of the store's own shape
            scatter(written, offsets, _ONES[itemsize], np.dtype(f"u{itemsize}"), count)
        else:
            idx = np.asarray(offsets, np.int64)[:, None] + np.arange(itemsize * count)[None, :]
            written[idx.reshape(-1)] = 1

    def stored_range(self, lo: int, hi: int) -> None:
        """Arena bytes [lo, hi) were stored."""
        b0, b1 = -(-lo // BLOCK), hi // BLOCK  # the blocks wholly inside
        if b0 >= b1:
            self._bytes()[lo:hi] = 1
            self.dirty_bytes[lo >> REGION_SHIFT : ((hi - 1) >> REGION_SHIFT) + 1] = True
            return
        if self.full is None:
            self.full = np.zeros(self.size // BLOCK, np.uint8)
        self.full[b0:b1] = 1
        self.dirty_full[(b0 * BLOCK) >> REGION_SHIFT : ((b1 * BLOCK - 1) >> REGION_SHIFT) + 1] = True
        for a, e in ((lo, b0 * BLOCK), (b1 * BLOCK, hi)):
            if a < e:
                self._bytes()[a:e] = 1
                self.dirty_bytes[a >> REGION_SHIFT] = self.dirty_bytes[(e - 1) >> REGION_SHIFT] = True

    def _bytes(self) -> np.ndarray:
        if self.written is None:
            self.written = np.zeros(self.size, np.uint8)
        return self.written

    def atomic(self, op: str, t: str, offsets: np.ndarray, width: int, values) -> None:
        if self.code is None:
            self.code = np.zeros(self.size, np.uint8)
        offs = np.asarray(offsets, dtype=np.int64).reshape(-1)
        if not offs.size:
            return
        _mark(self.dirty_atomics, offs, width)
        c = CODE.get((op, t), MIXED)
        if c != MIXED and width != int(t[1:]) // 8:
            c = MIXED  # a vector atomic
        cur = self.code[offs]
        self.code[offs] = np.where((cur != 0) & (cur != c), MIXED, c).astype(np.uint8)
        if op in ("inc", "dec") and c != MIXED:
            if self.bound is None:
                self.bound = np.full(self.size // 4, -1, np.int64)
            words = offs // 4
            b = np.broadcast_to(np.asarray(values[0]).astype(np.int64), offs.shape)
            old = self.bound[words]
            clash = (old >= 0) & (old != b)
            self.bound[words] = b
            if clash.any():
                self.code[offs[clash]] = MIXED


def _mark(dirty: np.ndarray, offsets: np.ndarray, span: int) -> None:
    """Mark the regions that accesses of `span` bytes at `offsets` touch (an access may straddle two)."""
    offs = np.asarray(offsets).astype(np.int64, copy=False)
    dirty[offs >> REGION_SHIFT] = True
    dirty[(offs + (span - 1)) >> REGION_SHIFT] = True


def _runs(dirty: np.ndarray, size: int):
    """(start, stop) arena byte ranges of the consecutive dirty regions, clipped to `size`."""
    hit = np.flatnonzero(dirty)
    if not hit.size:
        return []
    breaks = np.flatnonzero(np.diff(hit) != 1) + 1
    return [(int(hit[a]) << REGION_SHIFT, min(size, (int(hit[b - 1]) + 1) << REGION_SHIFT))
            for a, b in zip(np.r_[0, breaks], np.r_[breaks, hit.size])]


def run_shard(launch, index: int, positions: tuple[int, int], arena: np.ndarray, copy: bool,
              views: bool = False, journal: Optional[Journal] = None, passed_on: tuple = (),
              runs: bool = False) -> ShardResult:
    """Run CTAs at launch-order positions [start, stop) of `launch` on `arena` (global memory as
    the launch began; `copy` it first unless it is this process's own) and return what they wrote
    (`views`: the stored bytes as slices of the arena, `ShardResult.parts`, for local.send).
    `journal`: the Journal to note writes with (a fresh one if None); exceptions of the types in
    `passed_on` are raised, any other is the result's `error`."""
    t0, c0 = time.perf_counter(), time.process_time()
    mem = launch.device.memory
    out = ShardResult(index, arena.size)
    try:
        mem.arena = np.array(arena) if copy else arena
        journal = mem.journal = journal if journal is not None else Journal(arena.size)
        launch.positions = (positions[0], positions[1])
        launch.progress = None
        with cores.limited(1):  # one core per shard: the other shards have the others
            stats, printf = launch.execute()
        mem.journal = None
        if mem.arena.size != arena.size:  # device malloc grew it (such kernels run in one process)
            raise RuntimeError("global memory grew while the shard ran")
        out.stats = stats
        _write_set(out, mem.arena, journal, views, runs)
    except BaseException as e:  # noqa: BLE001 - any failure: the parent reruns in one process
        if isinstance(e, passed_on):
            raise
        out.error = f"{type(e).__name__}: {e}" if str(e) else "".join(traceback.format_exception_only(type(e), e))
    finally:
        mem.journal = None
    out.seconds = time.perf_counter() - t0
    out.cpu_seconds = time.process_time() - c0
    return out


def _write_set(out: ShardResult, arena: np.ndarray, journal: Journal, views: bool = False,
               runs: bool = False) -> None:
    """Fill `out` from the journal: atomic locations with their final values, then the stored
    blocks, masks and bytes. `views`: leave the bytes as `out.parts`, slices of `arena` (sent
    from there, not copied first), rather than one `out.data` array. `runs` (a shard that stored
    in place: no bytes): blocks stored whole as `out.runs`, the others in `blocks`/`masks`."""
    if journal.code is not None:
        offs = np.concatenate([np.flatnonzero(journal.code[a:b]).astype(np.int64) + a
                               for a, b in _runs(journal.dirty_atomics, journal.size)] or [np.zeros(0, np.int64)])
        codes = journal.code[offs]
        widths = np.array([width_of(c) for c in codes], dtype=np.int64)
        out.atom_offsets, out.atom_codes = offs, codes
        out.atom_finals = _finals(arena, offs, widths)
        bounds = np.full(offs.size, -1, np.int64)
        if journal.bound is not None:
            bounds = journal.bound[offs // 4]
        out.atom_bounds = bounds
        atom_bytes = (offs[:, None] + np.arange(8)[None, :])[np.arange(8)[None, :] < widths[:, None]]
        if journal.full is not None and atom_bytes.size:  # blocks stored whole but holding an atomic location
            blocks = np.unique(atom_bytes // BLOCK)
            for blk in blocks[journal.full[blocks] != 0]:  # noted byte by byte instead
                journal.full[blk] = 0
                journal._bytes()[int(blk) * BLOCK : int(blk + 1) * BLOCK] = 1
                journal.dirty_bytes[(int(blk) * BLOCK) >> REGION_SHIFT] = True
        if journal.written is not None:  # an atomic location's bytes merge as atomics, not as stores
            journal.written[atom_bytes] = 0
    whole = np.zeros(0, np.int64)
    if runs and journal.full is not None:
        out.runs = _whole_runs(journal)
    elif journal.full is not None:
        whole = np.concatenate([np.flatnonzero(journal.full[a // BLOCK : b // BLOCK]) + a // BLOCK
                                for a, b in _runs(journal.dirty_full, journal.size)] or [whole]).astype(np.int64)
    some, all_set = [np.zeros(0, np.int64)], [np.zeros(0, bool)]
    if journal.written is not None:
        words = journal.written.view(np.uint64).reshape(-1, BLOCK // 8)
        every = np.uint64(int.from_bytes(b"\x01" * 8, "little"))
        for start, stop in _runs(journal.dirty_bytes, journal.size):  # regions are whole blocks
            for c0 in range(start // BLOCK, stop // BLOCK, CHUNK // BLOCK):
                w = words[c0 : min(c0 + CHUNK // BLOCK, stop // BLOCK)]
                hit = np.flatnonzero(w.any(axis=1))
                if hit.size:
                    some.append(hit + c0)
                    all_set.append((w[hit] == every).all(axis=1))
    some, all_set = np.concatenate(some).astype(np.int64), np.concatenate(all_set)
    if runs:
        _partial_blocks(out, journal, some)
        return
    if not whole.size and not some.size:
        return
    b = np.union1d(whole, some) if some.size else whole
    masks = np.full((b.size, BLOCK // 8), 0xFF, np.uint8)
    part = some[~all_set]
    if whole.size:
        part = part[~np.isin(part, whole)]  # a block stored whole is whole whatever else marked its bytes
    if part.size:
        rows = np.searchsorted(b, part)
        masks[rows] = np.packbits(journal.written.reshape(-1, BLOCK)[part], axis=1)  # 0/1 bytes pack as bits
    # the blocks' bytes, run by run of consecutive blocks (slices copy at memory speed)
    breaks = np.flatnonzero(np.diff(b) != 1) + 1
    rows = arena.reshape(-1, BLOCK)
    parts = [rows[b[lo] : b[hi - 1] + 1] for lo, hi in zip(np.r_[0, breaks], np.r_[breaks, b.size])]
    if views:
        out.parts = parts
    else:
        out.data = np.concatenate(parts)
    out.blocks, out.masks = b, masks


def _whole_runs(journal: Journal) -> np.ndarray:
    """[first, end) runs of the blocks the journal marked whole (journal.full), region by region."""
    out = []
    for a, b in _runs(journal.dirty_full, journal.size):
        f = journal.full[a // BLOCK : b // BLOCK] != 0
        edges = np.flatnonzero(np.diff(np.concatenate(([False], f, [False])).view(np.int8)))
        if edges.size:
            out.append(edges.reshape(-1, 2) + a // BLOCK)
    if not out:
        return np.zeros((0, 2), np.int64)
    r = np.concatenate(out).astype(np.int64)
    join = np.flatnonzero(r[1:, 0] == r[:-1, 1])  # runs that meet across a region's edge: one run
    if join.size:
        keep = np.ones(r.shape[0], bool)
        for j in join[::-1]:
            r[j, 1] = r[j + 1, 1]
            keep[j + 1] = False
        r = r[keep]
    return r


def _partial_blocks(out: ShardResult, journal: Journal, some: np.ndarray) -> None:
    """`blocks`/`masks` of the blocks marked byte by byte and not inside a run of whole blocks."""
    if some.size and out.runs.size:
        k = np.searchsorted(out.runs[:, 0], some, side="right") - 1
        inside = (k >= 0) & (some < out.runs[np.maximum(k, 0), 1])
        some = some[~inside]
    if some.size:
        out.blocks = some
        out.masks = np.packbits(journal.written.reshape(-1, BLOCK)[some], axis=1)


def width_of(code: int) -> int:
    if code == MIXED:
        return 1
    return int(KINDS[code - 1][1][1:]) // 8


def _finals(arena: np.ndarray, offs: np.ndarray, widths: np.ndarray) -> np.ndarray:
    vals = np.zeros(offs.size, np.uint64)
    for w in np.unique(widths):
        sel = widths == w
        b = arena[offs[sel][:, None] + np.arange(w)[None, :]].astype(np.uint64)
        vals[sel] = (b << (np.arange(w, dtype=np.uint64) * np.uint64(8))[None, :]).sum(axis=1, dtype=np.uint64)
    return vals
