"""What every checker shares: the no-op hooks, and where each lane's access lands."""
from __future__ import annotations

from typing import Optional

import numpy as np

from ...engine.core.memory import (CLUSTER_OFFSET_MASK, CONST_WINDOW, GLOBAL_BASE, LOCAL_WINDOW, PARAM_WINDOW,
                              SHARED_WINDOW, classify_generic, cluster_target)

SPACE_CODES = {"global": 0, "shared": 1, "shared::cta": 1, "shared::cluster": 1, "local": 2, "fparam": 2,
               "const": 3, "kparam": 4}
SPACE_NAMES = ("global", "shared", "local", "const", "param")
_WINDOWS = np.array([0, SHARED_WINDOW, LOCAL_WINDOW, CONST_WINDOW, PARAM_WINDOW], dtype=np.uint64)


def spaces_of(acc, addr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(space code per lane: 0 global 1 shared 2 local 3 const 4 param, address in that space)."""
    space = getattr(acc, "space", None)
    if space is not None:
        return np.full(addr.shape, SPACE_CODES.get(space, 0), dtype=np.uint8), addr
    codes = classify_generic(addr)
    return codes, addr - _WINDOWS[codes]


class Bytes:
    """The bytes of one access in a per-byte shadow array: `get(a)` gives an (accesses, size)
    array, `set(a, values)` stores one (values broadcast against that shape). When every access
    is aligned to its power-of-two size (the usual case), the shadow is viewed as rows of `size`
    bytes and each access is one row, which is much cheaper than a gather per byte."""

    def __init__(self, start: np.ndarray, size: int):
        self.size = size
        self.n = start.size
        self.rows = None
        self.idx = None
        if size in (1, 2, 4, 8, 16) and not (start & np.uint64(size - 1)).any():
            self.rows = (start // np.uint64(size)).astype(np.intp)
        else:
            self.idx = (start[:, None] + np.arange(size, dtype=np.uint64)).astype(np.intp)

    def may_collide(self) -> bool:
        """Whether two accesses can share a byte: not when they start in strictly increasing
        order at least `size` apart (the coalesced case; checked without sorting)."""
        if self.n < 2:
            return False
        if self.rows is not None:
            return not bool((np.diff(self.rows) > 0).all())
        return not bool((np.diff(self.idx[:, 0]) >= self.size).all())

    def any_true(self, a: np.ndarray) -> np.ndarray:
        """Per access: whether any of its bytes is True in the bool shadow `a`."""
        if self.rows is not None and self.size <= 8:
            return a[: a.size - a.size % self.size].view(np.dtype(f"u{self.size}"))[self.rows] != 0
        return self.get(a).any(axis=1)

    def clear(self, a: np.ndarray) -> None:
        """Set the access's bytes of the bool shadow `a` to False."""
        if self.rows is not None and self.size <= 8:
            a[: a.size - a.size % self.size].view(np.dtype(f"u{self.size}"))[self.rows] = 0
        else:
            self.set(a, False)

    def subset(self, which: np.ndarray) -> "Bytes":
        sub = Bytes.__new__(Bytes)
        sub.size, sub.n = self.size, int(np.count_nonzero(which))
        sub.rows = None if self.rows is None else self.rows[which]
        sub.idx = None if self.idx is None else self.idx[which]
        return sub

    def get(self, a: np.ndarray) -> np.ndarray:
        if self.rows is not None:
            return a[: a.size - a.size % self.size].reshape(-1, self.size)[self.rows]
        return a[self.idx]

    def set(self, a: np.ndarray, values) -> None:
        if self.rows is not None:
            a[: a.size - a.size % self.size].reshape(-1, self.size)[self.rows] = values
        else:
            a[self.idx] = values


def shared_bytes(ctx, lanes: np.ndarray, rel: np.ndarray, size: int) -> tuple[np.ndarray, Bytes]:
    """(lanes whose access is inside shared memory, their bytes in ctx.shared.buf)."""
    cluster = getattr(ctx, "cluster_size", 1)
    if cluster > 1 or int(rel.max(initial=0)) > CLUSTER_OFFSET_MASK:
        slot, off = cluster_target(rel, ctx.cta_slot[lanes], max(cluster, 1))
    else:
        slot, off = ctx.cta_slot[lanes], rel
    ok = off + np.uint64(size) <= np.uint64(ctx.shared.limit)
    if ok.all():
        return ok, Bytes(slot.astype(np.uint64) * np.uint64(ctx.shared.stride) + off, size)
    return ok, Bytes(slot[ok].astype(np.uint64) * np.uint64(ctx.shared.stride) + off[ok], size)


def local_bytes(ctx, lanes: np.ndarray, rel: np.ndarray, size: int) -> tuple[np.ndarray, Bytes]:
    """(lanes whose access is inside their thread's local memory, their bytes in ctx.local.buf)."""
    ok = rel + np.uint64(size) <= np.uint64(ctx.local.limit)
    start = lanes.astype(np.uint64) * np.uint64(ctx.local.stride) + rel
    return ok, Bytes(start if ok.all() else start[ok], size)


def global_bytes(ctx, rel: np.ndarray, size: int) -> tuple[np.ndarray, Bytes]:
    """(lanes whose access is inside the arena, their bytes in it)."""
    off = rel - np.uint64(GLOBAL_BASE)
    ok = (rel >= np.uint64(GLOBAL_BASE)) & (off + np.uint64(size) <= np.uint64(ctx.gmem.arena.size))
    return ok, Bytes(off if ok.all() else off[ok], size)


class Checker:
    def __init__(self, session):
        self.s = session

    def begin_wave(self, ctx) -> None:
        pass

    def end_wave(self, ctx) -> None:
        pass

    def access(self, ctx, lanes, addr, size, acc, kind, values=None) -> Optional[np.ndarray]:
        return None

    def barrier_arrive(self, ctx, group, pc, barrier, count, expected, arrive_only) -> None:
        pass

    def barrier_complete(self, ctx, cta_slots) -> None:
        pass

    def warp_barrier(self, ctx, lanes) -> None:
        pass

    def warp_sync_missing(self, ctx, lanes, exited_lanes, pc) -> bool:
        return False

    def stuck(self, ctx) -> bool:
        return False

    def heap_alloc(self, ctx, lane, alloc) -> None:
        pass

    def sync_op(self, ctx, pc, op, lanes) -> None:
        """A memory fence (membar, fence.sc / fence.acq_rel) is about to run for `lanes`."""
        pass

    def async_write(self, ctx, lanes, addr, size, acc, mbarrier) -> None:
        pass

    def async_group(self, ctx, lanes, kind, n) -> None:
        pass

    def mbarrier(self, ctx, lanes, kind, view, idx, before) -> None:
        pass

    def heap_free(self, ctx, lane, ptr) -> bool:
        return False

    def finish(self) -> None:
        pass
