"""The virtual device's memories and the generic address space.

Every state space is a flat NumPy byte buffer; an access turns each lane's address into a byte
offset in its buffer, checks bounds and alignment for all lanes at once, and gathers or scatters
through a view of the buffer in the access's dtype. Global memory is one arena holding every
allocation, separated by unmapped gaps, so that one view serves every lane whatever it points at.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Optional

import numpy as np

# Generic-address windows (ISA 6.4.1.x). Global allocations sit at GLOBAL_BASE and above; the
# other spaces appear in the generic space as 4 GiB windows. A window address is the space's own
# address plus the window base: shared and local addresses are per CTA and per thread.
CONST_WINDOW = 0x7B00_0000_0000
PARAM_WINDOW = 0x7C00_0000_0000
LOCAL_WINDOW = 0x7D00_0000_0000
SHARED_WINDOW = 0x7E00_0000_0000
WINDOW_SIZE = 1 << 32
# Distributed shared memory (ISA 5.1.5, .shared::cluster). The .shared::cta window of a CTA nests
# in the .shared::cluster window: an address whose bits 24 and up are zero is the executing CTA's
# own shared memory. Any other CTA of the cluster (the executing one included) is reached at
# ((rank + 1) << CLUSTER_RANK_SHIFT) | offset, which is what mapa returns; 16 MiB per rank holds
# the 227 KB a CTA can have, and rank 15 (the largest non-portable cluster) still fits in 32 bits,
# so .shared::cluster addresses are valid in 32-bit registers as on the hardware. A generic
# address of either kind is SHARED_WINDOW plus it.
# The first 1 KiB of every CTA's shared memory is the system's: the H200 reports
# %reserved_smem_offset_begin 0, _end 288, _cap 1024 and places a kernel's first static .shared
# variable at 1024 (tools/device/probe_reserved_smem.py, docs/hardware-notes.md). CUDA's cooperative
# groups keep block-tile state there (through %reserved_smem_offset_1).
RESERVED_SHARED = 1024
RESERVED_SHARED_END = 288
CLUSTER_RANK_SHIFT = 24
CLUSTER_OFFSET_MASK = (1 << CLUSTER_RANK_SHIFT) - 1
GLOBAL_BASE = 0x7F00_0000_0000
ALLOC_ALIGN = 512  # cudaMalloc aligns at least this much
GUARD = 512  # unmapped bytes between allocations: an overrun faults instead of landing next door


class AccessFault(Exception):
    """Raised by a memory access; `position` indexes the offending lane in the access's arrays."""

    def __init__(self, reason: str, position: int, address: int):
        super().__init__(reason)
        self.reason = reason
        self.position = position
        self.address = address


def check_alignment(addr: np.ndarray, size: int) -> None:
    # one OR-reduction tells whether any address has a low bit set; only then find which
    if size > 1 and addr.size and int(np.bitwise_or.reduce(addr)) & (size - 1):
        bad = (addr & np.uint64(size - 1)) != 0
        i = int(np.argmax(bad))
        raise AccessFault(f"misaligned {size}-byte access", i, int(addr[i]))


def _element_index(offsets: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Element indices of checked byte offsets, as intp: NumPy indexes with intp directly, while
    a uint64 index array is first converted (checked offsets are far below 2^63)."""
    idx = offsets >> np.uint64(dtype.itemsize.bit_length() - 1) if dtype.itemsize > 1 else offsets
    if idx.dtype == np.uint64:
        return idx.view(np.int64)
    return idx


def gather(buf: np.ndarray, offsets: np.ndarray, dtype: np.dtype, count: int = 1) -> np.ndarray:
    """Read `count` consecutive elements of `dtype` at each byte offset (already checked)."""
    view = buf.view(dtype)
    idx = _element_index(offsets, dtype)
    if count == 1:
        return np.take(view, idx)
    return view[idx[:, None] + np.arange(count, dtype=np.int64)]


def scatter(buf: np.ndarray, offsets: np.ndarray, values: np.ndarray, dtype: np.dtype, count: int = 1) -> None:
    """Write at each byte offset; when lanes collide the highest lane wins (the order is unspecified in PTX)."""
    view = buf.view(dtype)
    idx = _element_index(offsets, dtype)
    if count == 1:
        view[idx] = values
    else:
        view[idx[:, None] + np.arange(count, dtype=np.int64)] = values


@dataclass
class Allocation:
    base: int  # device address
    size: int
    label: str = ""
    uninit: Optional[np.ndarray] = None  # bool per byte never written (device_array); None: all written


class GlobalMemory:
    """Device global memory: allocations in one arena, freed allocations become unmapped.

    Every allocation draws its size on `budget` (engine/core/budget.py) first, so an allocation the
    budget cannot hold raises OutOfDeviceMemory before NumPy is asked for anything. New allocations
    go above the last live one; when the arena would have to grow, the gaps freed allocations left
    are tried first (what cudaMalloc does: a freed address may be handed out again).

    `journal` is None, or (while a shard of a launch runs in a worker, ptxvm/parallel) an object
    whose `stored(offsets, itemsize, count)` hears of every store into the arena (every global
    write but atomics goes through `store`) and `atomic(op, type, offsets, width, values)` of every
    atomic, so the parent can merge the workers' writes and commutative atomics exactly. Both are
    called before the bytes change (the shard the parent runs in its own memory keeps the old ones)."""

    journal = None

    def __init__(self, capacity: int = 1 << 20, budget=None):
        from .budget import MemoryBudget

        self.budget = budget if budget is not None else MemoryBudget()
        self.arena = np.zeros(capacity, dtype=np.uint8)
        self.top = 0  # arena offset just past the last live allocation
        # arena bytes from here on were never part of an allocation: still zero. Freed memory is not
        # cleared when it is freed (a launch's argument copies would be, every launch), but when an
        # allocation that must read as zero is made over it (allocate)
        self.written_top = 0
        self._bases: list[int] = []  # sorted device addresses of live allocations
        self._allocs: dict[int, Allocation] = {}
        # (addresses, budget bytes) that finalizers gave back (an unloaded module's variables), freed
        # at the next allocation: a finalizer may run in the middle of any allocation or access
        self._unloaded: list[tuple[list[int], int]] = []

    def free_later(self, bases: list[int], budget_bytes: int = 0) -> None:
        """Free `bases` and give `budget_bytes` back to the budget at the next safe point."""
        self._unloaded.append((bases, budget_bytes))

    def collect(self) -> None:
        """Do the frees that free_later asked for."""
        while self._unloaded:
            bases, nbytes = self._unloaded.pop()
            for base in bases:
                if base in self._allocs:
                    self.free(base)
            self.budget.release(nbytes)

    # -- allocation
    def allocate(self, size: int, label: str = "", what: Optional[str] = None, zeroed: bool = True) -> Allocation:
        """A zeroed allocation of `size` bytes (`zeroed` False: the caller overwrites every byte
        next); OutOfDeviceMemory (naming `what`, or the label) when the budget cannot hold it."""
        size = max(int(size), 1)
        self.collect()
        self.budget.reserve(size, what or f"an allocation{f' ({label})' if label else ''}")
        offset = _aligned(self.top + GUARD)
        if offset + size + GUARD > self.arena.size:
            offset = self._gap(size)
        end = offset + size
        if end + GUARD > self.arena.size:
            # double, as far as the budget could ever need, so that a run of allocations copies rarely
            try:
                want = max(end + GUARD, min(2 * self.arena.size, end + GUARD + self.budget.free))
                # a whole number of ALLOC_ALIGN blocks: the arena is viewed as u16/u32/u64/V16 words
                grown = np.zeros(-(-want // ALLOC_ALIGN) * ALLOC_ALIGN, dtype=np.uint8)
            except MemoryError:  # the budget said yes, the host says no (its memory went elsewhere since)
                self.budget.release(size)
                raise host_refused(size, what or label) from None
            grown[: self.top] = self.arena[: self.top]
            self.arena = grown
            self.written_top = min(self.written_top, self.top)  # past the live allocations: fresh zeros
        if zeroed and offset < self.written_top:  # over memory an earlier allocation may have written
            self.arena[offset : min(end, self.written_top)] = 0
        self.written_top = max(self.written_top, end)
        self.top = max(self.top, end)
        alloc = Allocation(GLOBAL_BASE + offset, size, label)
        bisect.insort(self._bases, alloc.base)
        self._allocs[alloc.base] = alloc
        return alloc

    def _gap(self, size: int) -> int:
        """The first arena offset between live allocations where `size` bytes fit with guards on both
        sides; past the last one if none."""
        prev_end = 0
        for base in self._bases:
            a = self._allocs[base]
            offset = _aligned(prev_end + GUARD)
            if offset + size + GUARD <= base - GLOBAL_BASE:
                return offset
            prev_end = base - GLOBAL_BASE + a.size
        return _aligned(self.top + GUARD)

    def free(self, base: int) -> None:
        alloc = self._allocs.pop(base)
        self._bases.remove(base)
        self.budget.release(alloc.size)  # (its bytes are cleared when an allocation needs them zero)
        if self._bases:
            last = self._allocs[self._bases[-1]]
            self.top = last.base - GLOBAL_BASE + last.size
        else:
            self.top = 0

    def find(self, address: int) -> Optional[Allocation]:
        i = bisect.bisect_right(self._bases, address) - 1
        if i < 0:
            return None
        a = self._allocs[self._bases[i]]
        return a if address < a.base + a.size else None

    def nearest(self, address: int) -> Optional[Allocation]:
        """The live allocation closest to `address` (for reports of bad accesses)."""
        if not self._bases:
            return None
        i = bisect.bisect_right(self._bases, address)
        near = [self._allocs[self._bases[k]] for k in (i - 1, i) if 0 <= k < len(self._bases)]
        return min(near, key=lambda a: 0 if a.base <= address < a.base + a.size else
                   (address - a.base - a.size + 1 if address >= a.base else a.base - address))

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """(bases, ends) of the live allocations, sorted, as uint64 arrays."""
        bases = np.array(self._bases, dtype=np.uint64)
        return bases, bases + np.array([self._allocs[b].size for b in self._bases], dtype=np.uint64)

    def allocations(self) -> list[Allocation]:
        return [self._allocs[b] for b in self._bases]

    def view(self, alloc: Allocation) -> np.ndarray:
        off = alloc.base - GLOBAL_BASE
        return self.arena[off : off + alloc.size]

    # -- access
    def offsets(self, addr: np.ndarray, size: int) -> np.ndarray:
        """Arena offsets for `size`-byte accesses at `addr`, after bounds and alignment checks."""
        addr = np.asarray(addr, dtype=np.uint64)
        check_alignment(addr, size)
        if addr.size == 0:
            return addr
        lo, hi = int(addr.min()), int(addr.max())
        first = self.find(lo)
        if first is None or hi + size > first.base + first.size:
            self._check_each(addr, size)
        return addr - np.uint64(GLOBAL_BASE)

    def _check_each(self, addr: np.ndarray, size: int) -> None:
        bases = np.array(self._bases, dtype=np.uint64)
        ends = np.array([self._allocs[b].base + self._allocs[b].size for b in self._bases], dtype=np.uint64)
        i = np.searchsorted(bases, addr, side="right").astype(np.int64) - 1
        ok = i >= 0
        j = np.where(ok, i, 0)
        if bases.size:
            ok &= addr >= bases[j]
            ok &= addr + np.uint64(size) <= ends[j]
        else:
            ok[:] = False
        if not ok.all():
            p = int(np.argmin(ok))
            raise AccessFault("out-of-bounds global access" + self._where(int(addr[p])), p, int(addr[p]))

    def _where(self, a: int) -> str:
        """Where an address that no allocation holds lies, for the fault's message."""
        near = [(a - (al.base + al.size), al) for al in self._allocs.values() if al.base + al.size <= a]
        if near:
            past, al = min(near, key=lambda t: t[0])
            if past < 1 << 20:
                return f" ({past} bytes past the end of a {al.size}-byte allocation at {al.base:#x})"
        if a < GLOBAL_BASE or a >= GLOBAL_BASE + (1 << 40):
            return (" (not a device address: a host pointer? Pass the array itself, or "
                    "ptxvm.to_device(a).address)")
        return ""

    def load(self, addr: np.ndarray, dtype: np.dtype, count: int = 1) -> np.ndarray:
        return gather(self.arena, self.offsets(addr, dtype.itemsize * count), dtype, count)

    def store(self, addr: np.ndarray, values: np.ndarray, dtype: np.dtype, count: int = 1) -> None:
        offsets = self.offsets(addr, dtype.itemsize * count)
        if self.journal is not None:  # a shard of a parallel launch notes what it writes (before: it may keep the old bytes)
            self.journal.stored(offsets, dtype.itemsize, count)
        scatter(self.arena, offsets, values, dtype, count)


def host_refused(nbytes: int, what: str):
    """OutOfDeviceMemory for an allocation the budget allowed but the host could not make."""
    from ...errors import OutOfDeviceMemory

    return OutOfDeviceMemory(f"out of memory (cudaErrorMemoryAllocation): {what} needs {nbytes} bytes within the "
                             f"device's budget, but the host has not got them now (lower the budget with "
                             f"ptxvm.set_device_memory_limit or PTXVM_DEVICE_MEMORY)", nbytes, 0)


def _aligned(offset: int) -> int:
    return -(-offset // ALLOC_ALIGN) * ALLOC_ALIGN


class WindowedMemory:
    """A space whose addresses are relative to a per-lane base: shared (per CTA), local (per thread).

    `stride` bytes belong to each owner (CTA slot or thread); an address is valid below `limit`.
    """

    def __init__(self, name: str, owners: int, stride: int, limit: Optional[int] = None, writable: bool = True):
        self.name = name
        self.limit = max(int(stride), 0) if limit is None else int(limit)
        # owners start on 16-byte boundaries, so that an aligned address is aligned in the buffer
        # too (gather/scatter index a dtype view of it); the bytes past `limit` are never reached
        self.stride = -(-max(int(stride), 0) // 16) * 16
        self.buf = np.zeros(max(owners * self.stride, 16), dtype=np.uint8)
        self.writable = writable
        self._owner: Optional[np.ndarray] = None   # _owner_base's last owner array and its bases
        self._base: Optional[np.ndarray] = None

    def offsets(self, addr: np.ndarray, owner: np.ndarray, size: int, align: Optional[int] = None) -> np.ndarray:
        addr = np.asarray(addr, dtype=np.uint64)
        check_alignment(addr, size if align is None else align)
        if addr.size and int(addr.max()) + size > self.limit:
            p = int(np.argmax(addr + np.uint64(size) > np.uint64(self.limit)))
            raise AccessFault(f"out-of-bounds {self.name} access", p, int(addr[p]))
        return self._owner_base(owner) + addr

    def _owner_base(self, owner: np.ndarray) -> np.ndarray:
        """owner * stride as uint64; the last one is kept, since whole-wave accesses pass the
        same owner array (the wave's CTA or thread slots) every time."""
        if owner is self._owner:
            return self._base
        base = owner.astype(np.uint64) * np.uint64(self.stride)
        if owner.size >= 1024:  # only large arrays are worth keeping (and they are the reused ones)
            self._owner, self._base = owner, base
        return base

    def load(self, addr, owner, dtype: np.dtype, count: int = 1, align: Optional[int] = None) -> np.ndarray:
        return gather(self.buf, self.offsets(addr, owner, dtype.itemsize * count, align), dtype, count)

    def store(self, addr, owner, values, dtype: np.dtype, count: int = 1, align: Optional[int] = None) -> None:
        if not self.writable:
            raise AccessFault(f"write to read-only {self.name} space", 0, int(np.asarray(addr).flat[0]))
        scatter(self.buf, self.offsets(addr, owner, dtype.itemsize * count, align), values, dtype, count)


class FlatMemory:
    """A space every thread sees the same: .const banks and the kernel's .param buffer."""

    def __init__(self, name: str, data: bytes | np.ndarray, writable: bool = False):
        self.name = name
        raw = np.frombuffer(bytes(data), dtype=np.uint8) if not isinstance(data, np.ndarray) else data
        self.size = raw.size
        self.buf = np.zeros(max(-(-raw.size // 16) * 16, 16), dtype=np.uint8)
        self.buf[: raw.size] = raw
        self.writable = writable

    def offsets(self, addr: np.ndarray, size: int) -> np.ndarray:
        addr = np.asarray(addr, dtype=np.uint64)
        check_alignment(addr, size)
        if addr.size:
            bad = addr + np.uint64(size) > np.uint64(self.size)
            if bad.any():
                p = int(np.argmax(bad))
                raise AccessFault(f"out-of-bounds {self.name} access", p, int(addr[p]))
        return addr

    def load(self, addr, dtype: np.dtype, count: int = 1) -> np.ndarray:
        return gather(self.buf, self.offsets(addr, dtype.itemsize * count), dtype, count)

    def store(self, addr, values, dtype: np.dtype, count: int = 1) -> None:
        if not self.writable:
            raise AccessFault(f"write to read-only {self.name} space", 0, int(np.asarray(addr).flat[0]))
        scatter(self.buf, self.offsets(addr, dtype.itemsize * count), values, dtype, count)


def cluster_target(addr: np.ndarray, own_slot: np.ndarray, cluster_size: int) -> tuple[np.ndarray, np.ndarray]:
    """(CTA slot, offset in its shared window) of .shared::cluster addresses. CTA slots of a
    cluster are consecutive, in rank order (the launcher lays waves out that way)."""
    addr = np.asarray(addr, dtype=np.uint64)
    sel = (addr >> np.uint64(CLUSTER_RANK_SHIFT)).astype(np.int64)  # 0: own CTA, else rank + 1
    if sel.size and (sel > cluster_size).any():
        p = int(np.argmax(sel > cluster_size))
        raise AccessFault(f"shared::cluster address names CTA rank {sel[p] - 1}, outside the cluster of {cluster_size}", p, int(addr[p]))
    own_slot = own_slot.astype(np.int64)
    slot = np.where(sel == 0, own_slot, own_slot - own_slot % cluster_size + sel - 1)
    return slot, addr & np.uint64(CLUSTER_OFFSET_MASK)


def classify_generic(addr: np.ndarray) -> np.ndarray:
    """Which space each generic address falls in: 0 global, 1 shared, 2 local, 3 const, 4 param."""
    window = addr >> np.uint64(32)
    space = np.zeros(addr.shape, dtype=np.uint8)
    space[window == (SHARED_WINDOW >> 32)] = 1
    space[window == (LOCAL_WINDOW >> 32)] = 2
    space[window == (CONST_WINDOW >> 32)] = 3
    space[window == (PARAM_WINDOW >> 32)] = 4
    return space
