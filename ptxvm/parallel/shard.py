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
from typing import Optional

import numpy as np

from ..engine.core.memory import scatter
from .analysis import MERGEABLE_ATOMIC_OPS, MERGEABLE_ATOMIC_TYPES

BLOCK = 64  # bytes per block of a write set (the arena is a whole number of 512-byte units)
CHUNK = 1 << 24  # bytes of arena compared at a time
MIXED = 255  # an atomic location updated by more than one kind of operation (or one not mergeable)
KINDS = [(op, t) for op in MERGEABLE_ATOMIC_OPS for t in MERGEABLE_ATOMIC_TYPES]
CODE = {k: i + 1 for i, k in enumerate(KINDS)}  # (op, type) -> code, the same in every process


@dataclass
class ShardResult:
    index: int  # which shard
    arena_size: int = 0
    stats: object = None  # the shard's LaunchStats
    error: Optional[str] = None  # the worker failed (a fault...): the parent runs the launch in one process
    blocks: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # BLOCK-byte blocks stored to
    masks: np.ndarray = field(default_factory=lambda: np.zeros((0, BLOCK // 8), np.uint8))  # packed bytes stored
    data: np.ndarray = field(default_factory=lambda: np.zeros((0, BLOCK), np.uint8))  # the blocks' new bytes
    atom_offsets: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # arena offsets
    atom_codes: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint8))
    atom_finals: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint64))  # final raw bits
    atom_bounds: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # inc/dec bound, else -1
    seconds: float = 0.0
    cpu_seconds: float = 0.0


_ONES = {w: np.frombuffer(b"\x01" * w, np.dtype(f"u{w}"))[0] for w in (1, 2, 4, 8)}


class Journal:
    """GlobalMemory.journal while a shard runs: which bytes were stored (1 per byte), and per arena
    offset which atomic kind updated the element there (0: none, MIXED: several kinds or one that
    does not merge); for inc/dec the bound. Arrays are made at first use (zeros cost no memory
    until written)."""

    def __init__(self, size: int):
        self.size = size
        self.written: Optional[np.ndarray] = None
        self.code: Optional[np.ndarray] = None
        self.bound: Optional[np.ndarray] = None  # inc/dec bounds per 4-byte word, -1: none yet

    def stored(self, offsets: np.ndarray, itemsize: int, count: int) -> None:
        if self.written is None:
            self.written = np.zeros(self.size, np.uint8)
        n, span = offsets.size, itemsize * count
        if n > 64:  # a coalesced store: increasing addresses with no gap fill one range
            lo, hi = int(offsets[0]), int(offsets[-1])
            if hi - lo == (n - 1) * span and bool((offsets[1:] > offsets[:-1]).all()):
                self.written[lo : hi + span] = 1
                return
        if itemsize in _ONES:  # one scatter of the store's own shape
            scatter(self.written, offsets, _ONES[itemsize], np.dtype(f"u{itemsize}"), count)
        else:
            idx = np.asarray(offsets, np.int64)[:, None] + np.arange(itemsize * count)[None, :]
            self.written[idx.reshape(-1)] = 1

    def atomic(self, op: str, t: str, offsets: np.ndarray, width: int, values) -> None:
        if self.code is None:
            self.code = np.zeros(self.size, np.uint8)
        offs = np.asarray(offsets, dtype=np.int64).reshape(-1)
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


def run_shard(launch, index: int, positions: tuple[int, int], arena: np.ndarray, copy: bool) -> ShardResult:
    """Run CTAs at launch-order positions [start, stop) of `launch` on `arena` (global memory as
    the launch began; `copy` it first unless it is this process's own) and return what they wrote."""
    from ..engine.control import cluster as cluster_ops

    t0, c0 = time.perf_counter(), time.process_time()
    mem = launch.device.memory
    out = ShardResult(index, arena.size)
    try:
        mem.arena = np.array(arena) if copy else arena
        journal = mem.journal = Journal(arena.size)
        launch.only_ctas = cluster_ops.cta_ids(launch.grid, launch.cluster, positions[0], positions[1])
        launch.progress = None
        stats, printf = launch.execute()
        mem.journal = None
        if mem.arena.size != arena.size:  # device malloc grew it (such kernels run in one process)
            raise RuntimeError("global memory grew while the shard ran")
        out.stats = stats
        _write_set(out, mem.arena, journal)
    except BaseException as e:  # noqa: BLE001 - any failure: the parent reruns in one process
        out.error = f"{type(e).__name__}: {e}" if str(e) else "".join(traceback.format_exception_only(type(e), e))
    out.seconds = time.perf_counter() - t0
    out.cpu_seconds = time.process_time() - c0
    return out


def _write_set(out: ShardResult, arena: np.ndarray, journal: Journal) -> None:
    written = journal.written
    if journal.code is not None:
        offs = np.flatnonzero(journal.code).astype(np.int64)
        codes = journal.code[offs]
        widths = np.array([width_of(c) for c in codes], dtype=np.int64)
        out.atom_offsets, out.atom_codes = offs, codes
        out.atom_finals = _finals(arena, offs, widths)
        bounds = np.full(offs.size, -1, np.int64)
        if journal.bound is not None:
            bounds = journal.bound[offs // 4]
        out.atom_bounds = bounds
        if written is not None:  # an atomic location's bytes merge as atomics, not as stores
            atom_bytes = (offs[:, None] + np.arange(8)[None, :])[np.arange(8)[None, :] < widths[:, None]]
            written[atom_bytes] = 0
    if written is None:
        return
    words = written.view(np.uint64).reshape(-1, BLOCK // 8)
    blocks, full = [], []
    every = np.uint64(int.from_bytes(b"\x01" * 8, "little"))
    for c0 in range(0, words.shape[0], CHUNK // BLOCK):
        w = words[c0 : c0 + CHUNK // BLOCK]
        hit = np.flatnonzero(w.any(axis=1))
        if hit.size:
            blocks.append(hit + c0)
            full.append((w[hit] == every).all(axis=1))
    if not blocks:
        return
    b = np.concatenate(blocks).astype(np.int64)
    full = np.concatenate(full)
    masks = np.full((b.size, BLOCK // 8), 0xFF, np.uint8)
    part = np.flatnonzero(~full)
    if part.size:
        masks[part] = np.packbits(written.reshape(-1, BLOCK)[b[part]], axis=1)  # 0/1 bytes pack as bits
    # the blocks' bytes, run by run of consecutive blocks (slices copy at memory speed)
    breaks = np.flatnonzero(np.diff(b) != 1) + 1
    rows = arena.reshape(-1, BLOCK)
    out.data = np.concatenate([rows[b[lo] : b[hi - 1] + 1] for lo, hi in zip(np.r_[0, breaks], np.r_[breaks, b.size])])
    out.blocks, out.masks = b, masks


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
