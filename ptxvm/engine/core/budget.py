"""The virtual device's memory budget: how many bytes of host memory the device may hold.

Everything the device keeps draws on it: global allocations (`device_array`, `to_device`, the
copies a launch makes of NumPy arguments, device-side `malloc`), module variables, and the
shared, local and register state of the launch wave that is running. A request that does not fit
raises `OutOfDeviceMemory` (cudaErrorMemoryAllocation) before anything is allocated, so NumPy never
gets asked for more than the machine has; device-side `malloc` returns NULL instead, as CUDA's does.

The limit is, in order: `set_device_memory_limit(n)`, the environment variable
`PTXVM_DEVICE_MEMORY` (bytes, or with a K/M/G/T suffix, powers of 1024), or half of the memory
the machine has available when the device is made (MemAvailable in /proc/meminfo, else psutil if
installed), at most the H200's own memory.
"""
from __future__ import annotations

import os
import re
from typing import Optional

from ...errors import OutOfDeviceMemory

H200_MEMORY = 143_771 * 2**20  # bytes: the H200 SXM 141GB's total as nvidia-smi reports it (143771 MiB)
FALLBACK_MEMORY = 4 * 2**30  # when the machine's free memory cannot be read
ENV = "PTXVM_DEVICE_MEMORY"
_SUFFIX = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}


def parse_size(text: str) -> int:
    """`4096`, `512M`, `8G`, `8GiB`, `1.5g` -> bytes."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*", str(text), re.I)
    if m is None:
        raise ValueError(f"{ENV}={text!r} is not a size (bytes, or a number with K, M, G or T)")
    return int(float(m.group(1)) * _SUFFIX[m.group(2).lower()])


def available_host_memory() -> Optional[int]:
    """Bytes the machine can still give (MemAvailable), or None when it cannot be read."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        import psutil  # optional

        return int(psutil.virtual_memory().available)
    except Exception:  # noqa: BLE001 - psutil absent or unable to tell
        return None


def default_limit() -> int:
    env = os.environ.get(ENV)
    if env:
        return parse_size(env)
    avail = available_host_memory()
    return min(H200_MEMORY, avail // 2) if avail is not None else FALLBACK_MEMORY


def human(n: int) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} bytes"


class MemoryBudget:
    """Bytes in use against a limit. `reserve` either takes the bytes or raises, taking nothing."""

    def __init__(self, limit: Optional[int] = None):
        self.limit = default_limit() if limit is None else int(limit)
        self.used = 0

    @property
    def free(self) -> int:
        return max(0, self.limit - self.used)

    def fits(self, nbytes: int) -> bool:
        return nbytes <= self.free

    def reserve(self, nbytes: int, what: str) -> None:
        nbytes = int(nbytes)
        if nbytes > self.free:
            raise OutOfDeviceMemory(
                f"out of memory (cudaErrorMemoryAllocation): {what} needs {nbytes} bytes ({human(nbytes)}); the virtual "
                f"device has {self.free} of {self.limit} bytes free ({human(self.free)} of {human(self.limit)}; raise "
                f"the limit with ptxvm.set_device_memory_limit or {ENV})", nbytes, self.free)
        self.used += nbytes

    def release(self, nbytes: int) -> None:
        self.used = max(0, self.used - int(nbytes))
