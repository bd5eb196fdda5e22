"""Merging the shards' write sets into global memory, deterministically, or saying why not.

* Plain stores: each shard's changed bytes are copied in. Two shards that changed one byte to
  different values are a data race (`Conflict.race`); to the same value, nothing to merge.
* Atomics on integers: per location, the shards' final values combine by the operation: add as
  the sum of the shards' deltas (mod 2^n), inc/dec as deltas modulo bound + 1, min/max/and/or of
  the finals, xor of the deltas. The result is the single process's: the operations commute.
* A location updated by atomics of different kinds or widths, inc/dec with different bounds, or
  plainly stored by one shard and updated atomically by another: the result would depend on the
  order (`Conflict.ordering`).
* A byte two shards stored where at least one stored straight into the shared arena
  (`ShardResult.stored_in_arena`, shared_stores.py): the arena holds one of the two values and
  neither can be compared any more (`Conflict.overlap`: the launch runs again with private
  memory per shard, where the check above decides).
Nothing is written to memory unless the whole merge is possible."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from ..semantics.dtypes import numpy_dtype
from .shard import BLOCK, KINDS, MIXED, ShardResult, width_of


@dataclass
class Conflict:
    kind: str  # "race" (plain stores of different values), "ordering" (atomics that do not commute) or
    # "overlap" (shards that stored in place stored one byte: compare them with private memory)
    reason: str
    offsets: list = field(default_factory=list)  # arena offsets of a few bytes concerned
    shards: tuple = ()


def merge(arena: np.ndarray, results: list[ShardResult]) -> Optional[Conflict]:
    """Apply every shard's writes to `arena` (the memory as the launch began, but for the stores
    of a shard run there in place, `ShardResult.in_place`) and return None, or return the first
    conflict and leave `arena` as it was."""
    conflict = _plain_conflict(results)
    if conflict is not None:
        return conflict
    if any(r.atom_offsets.size for r in results):  # (shards that stored in place do no atomics)
        results = [r.expanded() for r in results]
    atomics = _atomic_merge(arena, results)
    if isinstance(atomics, Conflict):
        return atomics
    view = arena.reshape(-1, BLOCK)
    for r in results:
        if r.blocks.size and not (r.in_place or r.stored_in_arena):  # bytes stored in the arena already
            _apply(view, r.blocks, r.masks, r.data)
    offsets, widths, values = atomics
    for w in np.unique(widths):
        sel = widths == w
        v = values[sel]
        for k in range(int(w)):
            arena[offsets[sel] + k] = ((v >> np.uint64(8 * k)) & np.uint64(0xFF)).astype(np.uint8)
    return None


def _apply(view: np.ndarray, blocks: np.ndarray, masks: np.ndarray, data: np.ndarray) -> None:
    """Copy stored bytes into `view` (blocks x BLOCK): whole blocks run by run, as slices; blocks
    stored in part through their masks."""
    full = (np.ascontiguousarray(masks).view(np.uint64) == np.uint64(2**64 - 1)).all(axis=1)  # every byte stored
    fb = np.flatnonzero(full)
    if fb.size:
        # runs of consecutive whole blocks (consecutive in the list and in memory)
        breaks = np.flatnonzero((np.diff(blocks[fb]) != 1) | (np.diff(fb) != 1)) + 1
        for lo, hi in zip(np.r_[0, breaks], np.r_[breaks, fb.size]):
            k0, k1 = fb[lo], fb[hi - 1] + 1
            view[blocks[k0] : blocks[k0] + (k1 - k0)] = data[k0:k1]
    part = np.flatnonzero(~full)
    if part.size:
        b = blocks[part]
        sub = view[b]
        np.copyto(sub, data[part], where=np.unpackbits(masks[part], axis=1).astype(bool))
        view[b] = sub


def _plain_conflict(results) -> Optional[Conflict]:
    spans = sorted(s for s in (r.span() for r in results) if s is not None)  # each shard's blocks are sorted
    if len(spans) < 2 or all(prev[1] < nxt[0] for prev, nxt in zip(spans, spans[1:])):
        return None  # the shards stored to disjoint ranges of blocks (the common case): nothing shared
    results = [r.expanded() for r in results]
    tagged = [(r.blocks, np.full(r.blocks.size, i, np.int64)) for i, r in enumerate(results) if r.blocks.size]
    blocks = np.concatenate([b for b, _ in tagged])
    owner = np.concatenate([o for _, o in tagged])
    uniq, counts = np.unique(blocks, return_counts=True)
    shared = uniq[counts > 1]
    if any(r.stored_in_arena for r in results):
        overlap = _overlap(results, shared)
        if overlap is not None:
            return overlap
    for b in shared[:4096]:  # blocks two shards changed: compare their bytes
        seen_mask = np.zeros(BLOCK, bool)
        seen_val = np.zeros(BLOCK, np.uint8)
        seen_from = np.full(BLOCK, -1, np.int64)
        for i in np.unique(owner[blocks == b]):
            r = results[i]
            k = int(np.searchsorted(r.blocks, b))
            m = np.unpackbits(r.masks[k]).astype(bool)
            both = m & seen_mask
            d = seen_val if r.stored_in_arena else r.data[k]  # (its bytes meet no other shard's: _overlap)
            differ = both & (d != seen_val)
            if differ.any():
                byte = int(np.flatnonzero(differ)[0])
                first = int(seen_from[byte])
                return Conflict("race", "two CTAs stored different values to the same byte",
                                [int(b) * BLOCK + byte], (results[first].index, r.index))
            new = m & ~seen_mask
            seen_val[new] = d[new]
            seen_from[new] = i
            seen_mask |= m
    return None


def _overlap(results, shared: np.ndarray) -> Optional[Conflict]:
    """Conflict.overlap if two shards' masks share a byte of the `shared` blocks (all of them)."""
    seen = np.zeros(shared.size, np.uint64)  # per shared block, the bytes some shard stored (mask bits)
    for r in results:
        if not r.blocks.size:
            continue
        k = np.minimum(np.searchsorted(r.blocks, shared), r.blocks.size - 1)
        hit = r.blocks[k] == shared
        m = np.zeros(shared.size, np.uint64)
        m[hit] = np.ascontiguousarray(r.masks[k[hit]]).view(np.uint64).reshape(-1)
        clash = (seen & m) != 0
        if clash.any():
            j = int(np.argmax(clash))
            byte = int(np.argmax(np.unpackbits((seen[j : j + 1] & m[j : j + 1]).view(np.uint8))))
            return Conflict("overlap", "two shards that stored straight into the arena stored the same byte",
                            [int(shared[j]) * BLOCK + byte], (r.index,))
        seen |= m
    return None


def _atomic_merge(arena, results):
    parts = [(r.atom_offsets, r.atom_codes, r.atom_finals, r.atom_bounds, np.full(r.atom_offsets.size, i))
             for i, r in enumerate(results) if r.atom_offsets.size]
    empty = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.uint64))
    if not parts:
        return empty
    offs, codes, finals, bounds, who = (np.concatenate(x) for x in zip(*parts))
    if (codes == MIXED).any():
        return Conflict("ordering", "one location was updated by atomics of different kinds (or non-mergeable ones)",
                        [int(offs[np.argmax(codes == MIXED)])])
    order = np.lexsort((who, offs))
    offs, codes, finals, bounds, who = offs[order], codes[order], finals[order], bounds[order], who[order]
    locs, first, inverse = np.unique(offs, return_index=True, return_inverse=True)
    widths = np.array([width_of(c) for c in codes[first]], dtype=np.int64)
    # one kind, one bound per location, and locations that do not overlap
    if (codes != codes[first][inverse]).any() or (bounds != bounds[first][inverse]).any():
        bad = int(offs[np.argmax((codes != codes[first][inverse]) | (bounds != bounds[first][inverse]))])
        return Conflict("ordering", "atomics of different kinds (or inc/dec bounds) updated one location", [bad])
    if locs.size > 1 and (locs[:-1] + widths[:-1] > locs[1:]).any():
        bad = int(locs[:-1][np.argmax(locs[:-1] + widths[:-1] > locs[1:])])
        return Conflict("ordering", "atomics of different widths overlap", [bad])
    # a byte an atomic of one shard updated and another shard stored plainly
    lo_who = np.minimum.reduceat(who, first)
    hi_who = np.maximum.reduceat(who, first)
    for j, r in enumerate(results):
        if not r.blocks.size:
            continue
        cand = np.flatnonzero(~((lo_who == j) & (hi_who == j)))  # locations some other shard updated
        if not cand.size:
            continue
        byte = (locs[cand][:, None] + np.arange(8)[None, :])[np.arange(8)[None, :] < widths[cand][:, None]]
        k = np.searchsorted(r.blocks, byte // BLOCK)
        k = np.minimum(k, r.blocks.size - 1)
        inblk = r.blocks[k] == byte // BLOCK
        if inblk.any():
            bits = np.unpackbits(r.masks[k[inblk]], axis=1).astype(bool)
            hit = bits[np.arange(bits.shape[0]), (byte[inblk] % BLOCK)]
            if hit.any():
                return Conflict("race", "a CTA stored plainly to a location other CTAs updated atomically",
                                [int(byte[inblk][np.argmax(hit)])], (r.index,))
    merged = np.zeros(locs.size, np.uint64)
    for c in np.unique(codes[first]):
        op, t = KINDS[int(c) - 1]
        at = np.flatnonzero(codes[first] == c)  # the locations of this kind
        w = int(t[1:]) // 8
        dt = np.dtype(f"u{w}")
        orig = _read(arena, locs[at], w).astype(dt)
        rows = np.isin(inverse, at)
        fin = finals[rows].astype(dt)
        loc_of = np.searchsorted(at, inverse[rows])
        if op == "add":
            acc = orig.copy()
            np.add.at(acc, loc_of, fin - orig[loc_of])  # unsigned: wraps mod 2^n like the hardware
        elif op == "xor":
            acc = orig.copy()
            np.bitwise_xor.at(acc, loc_of, fin ^ orig[loc_of])
        elif op in ("inc", "dec"):
            b = bounds[first][at].astype(np.uint64)
            o = orig.astype(np.uint64)
            if (o > b).any():  # out of the counter's range: the first update decides, order matters
                return Conflict("ordering", f"atom.{op} on a counter above its bound", [int(locs[at][np.argmax(o > b)])])
            m = b + np.uint64(1)
            delta = (fin.astype(np.uint64) + m[loc_of] - o[loc_of]) % m[loc_of]
            total = o.copy()
            np.add.at(total, loc_of, delta)
            acc = (total % m).astype(dt)
        else:  # min, max, and, or: of the finals (each already includes the original value)
            sdt = numpy_dtype(t) if t[0] == "s" else dt
            ufunc = {"min": np.minimum, "max": np.maximum, "and": np.bitwise_and, "or": np.bitwise_or}[op]
            acc = fin.view(sdt)[np.searchsorted(loc_of, np.arange(at.size))].copy()  # the first shard's
            ufunc.at(acc, loc_of, fin.view(sdt))
            acc = acc.view(dt)
        merged[at] = acc.astype(np.uint64)
    return locs, widths, merged


def _read(arena: np.ndarray, offs: np.ndarray, w: int) -> np.ndarray:
    b = arena[offs[:, None] + np.arange(w)[None, :]].astype(np.uint64)
    return (b << (np.arange(w, dtype=np.uint64) * np.uint64(8))[None, :]).sum(axis=1, dtype=np.uint64)
