"""The virtual device as users see it: its global memory (to_device, device_array, DeviceArray)
and the registry of its texture, sampler and surface objects (by handle)."""
from __future__ import annotations

import math
from typing import Optional

import numpy as np

from . import bulk_copy
from .budget import MemoryBudget
from .memory import GlobalMemory


class _Registry:
    """Live texture, sampler and surface objects of one device, by handle."""

    def __init__(self):
        self.objects: dict[int, object] = {}
        self._next = 1

    def add(self, obj) -> int:
        h = self._next
        self._next += 1
        self.objects[h] = obj
        return h

    def get(self, handle: int):
        return self.objects.get(int(handle))

    def remove(self, handle: int) -> None:
        self.objects.pop(int(handle), None)


class DeviceArray:
    """An array in the virtual device's global memory (what cudaMalloc + cudaMemcpy give)."""

    def __init__(self, device: "Device", shape, dtype, alloc):
        self.device = device
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self._alloc = alloc

    @property
    def address(self) -> int:
        return self._alloc.base

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * self.dtype.itemsize

    def copy_to_host(self, out: Optional[np.ndarray] = None) -> np.ndarray:
        raw = self.device.memory.view(self._alloc)[: self.nbytes]
        if out is not None:  # one copy, straight from device memory into the host array
            if out.dtype == self.dtype and out.shape == self.shape and out.flags.c_contiguous:
                bulk_copy.copy(out.reshape(-1).view(np.uint8), raw)
            else:
                out[...] = raw.view(self.dtype).reshape(self.shape)
            return out
        return raw.view(self.dtype).reshape(self.shape).copy()

    def holds(self, a: np.ndarray) -> bool:
        """Whether the device bytes equal host array `a`'s (as copied in)."""
        raw = self.device.memory.view(self._alloc)[: self.nbytes]
        return bool(np.array_equal(raw, np.ascontiguousarray(a).reshape(-1).view(np.uint8)))

    def copy_from_host(self, a: np.ndarray) -> None:
        a = np.ascontiguousarray(a)
        if a.nbytes != self.nbytes:
            raise ValueError(f"host array has {a.nbytes} bytes, device array {self.nbytes}")
        bulk_copy.copy(self.device.memory.view(self._alloc)[: self.nbytes], a.reshape(-1).view(np.uint8))
        self._alloc.uninit = None

    def free(self) -> None:
        if self._alloc is not None:
            self.device.memory.free(self._alloc.base)
            self._alloc = None

    def __repr__(self) -> str:
        return f"DeviceArray(shape={self.shape}, dtype={self.dtype}, address=0x{self.address:x})"


class Device:
    def __init__(self, memory_limit: Optional[int] = None):
        self.budget = MemoryBudget(memory_limit)  # every byte the device holds draws on it
        self.memory = GlobalMemory(budget=self.budget)
        self.textures = _Registry()  # live texture and surface objects, by handle
        self.memory.textures = self.textures  # what running instructions see (ctx.gmem)

    def set_memory_limit(self, nbytes: int) -> None:
        """How many bytes the device may hold (what is already allocated stays, even above it)."""
        nbytes = int(nbytes)
        if nbytes < 0:
            raise ValueError(f"a memory limit must be a byte count >= 0, got {nbytes}")
        self.budget.limit = nbytes

    def memory_info(self) -> tuple[int, int]:
        """(free, total) bytes, as cudaMemGetInfo gives them."""
        self.memory.collect()
        return self.budget.free, self.budget.limit

    def to_device(self, a: np.ndarray, what: Optional[str] = None) -> DeviceArray:
        a = np.ascontiguousarray(a)
        d = self.device_array(a.shape, a.dtype, what=what or f"to_device of a {a.dtype} array of shape {a.shape}",
                              written=True)
        d.copy_from_host(a)
        return d

    def device_array(self, shape, dtype, what: Optional[str] = None, written: bool = False) -> DeviceArray:
        """A zeroed array on the device; `written`: the caller fills all of it next (to_device), so no
        per-byte never-written mask (initcheck's) is made only to be dropped."""
        shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(int(n) for n in shape)
        dtype = np.dtype(dtype)
        if any(n < 0 for n in shape):
            raise ValueError(f"negative dimension in shape {shape}")
        nbytes = math.prod(shape) * dtype.itemsize  # Python ints: no overflow before the budget says no
        what = what or f"device_array of shape {shape} and dtype {dtype}"
        alloc = self.memory.allocate(nbytes, what=what, zeroed=not written)
        if not written:
            alloc.uninit = np.ones(alloc.size, dtype=bool)  # cudaMalloc'd memory: never written (initcheck)
        return DeviceArray(self, shape, dtype, alloc)


_DEFAULT: Optional[Device] = None


def default_device() -> Device:
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Device()
    return _DEFAULT
