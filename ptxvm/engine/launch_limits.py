"""What the CUDA driver checks before an H200 launch runs: grid and block shape, the kernel's
.maxntid/.reqntid, shared memory per CTA and local memory per thread. Each check raises
LaunchError naming the limit, the value asked for and the error the H200's driver gives for it:
cuLaunchKernel answers every one of them with CUDA_ERROR_INVALID_VALUE (recorded by
tools/device/probe_limits.py into tests/goldens/limits/h200_launch_limits.json; docs/limits.md)."""
from __future__ import annotations

import math

from ..errors import LaunchError

MAX_GRID = (2**31 - 1, 65535, 65535)  # cudaDevAttrMaxGridDimX/Y/Z
MAX_BLOCK = (1024, 1024, 64)  # cudaDevAttrMaxBlockDimX/Y/Z
MAX_THREADS_PER_BLOCK = 1024
MAX_SHARED_PER_CTA = 227 * 1024  # sharedMemPerBlockOptin: static + dynamic, with the opt-in attribute
# Local memory per thread: CUDA documents 512 KiB; the H200 ran a 256 KiB .local array and refused
# a 512 KiB one (the thread's own frame comes on top), so a thread must need less than 512 KiB.
MAX_LOCAL_PER_THREAD = 512 * 1024

# what cuLaunchKernel returned for each refused launch on the H200 (driver 580.159.04)
_CONFIG = _RESOURCES = _VALUE = "invalid argument (CUDA_ERROR_INVALID_VALUE)"


def _shape(v) -> str:
    return " x ".join(str(x) for x in v)


def check_grid(grid) -> None:
    for n, limit, axis in zip(grid, MAX_GRID, "xyz"):
        if n > limit:
            raise LaunchError(f"{_CONFIG}: grid dimension {axis} is {n}; the H200 allows at most {limit} "
                              f"(grid {_shape(grid)}, limits {_shape(MAX_GRID)})")


def check_block(block, directives: dict, kernel: str) -> None:
    threads = math.prod(block)
    for n, limit, axis in zip(block, MAX_BLOCK, "xyz"):
        if n > limit:
            raise LaunchError(f"{_CONFIG}: a block of {threads} threads ({_shape(block)}): dimension {axis} is {n}; the "
                              f"H200 allows at most {limit} (limits {_shape(MAX_BLOCK)}, {MAX_THREADS_PER_BLOCK} threads)")
    if threads > MAX_THREADS_PER_BLOCK:
        raise LaunchError(f"{_CONFIG}: a block of {threads} threads ({_shape(block)}); the H200 allows at most "
                          f"{MAX_THREADS_PER_BLOCK} threads per block")
    if "maxntid" in directives:
        bound = math.prod(directives["maxntid"])
        if threads > bound:
            raise LaunchError(f"{_RESOURCES}: a block of {threads} threads ({_shape(block)}) exceeds kernel '{kernel}'s "
                              f".maxntid {', '.join(map(str, directives['maxntid']))} ({bound} threads)")
    if "reqntid" in directives:
        req = tuple(directives["reqntid"]) + (1,) * (3 - len(directives["reqntid"]))
        if tuple(block) != req:
            raise LaunchError(f"{_VALUE}: kernel '{kernel}' requires blocks of {_shape(req)} (.reqntid), the launch "
                              f"asks for {_shape(block)}")


def check_shared(static: int, dynamic: int) -> None:
    if dynamic < 0:
        raise LaunchError(f"{_VALUE}: dynamic shared memory of {dynamic} bytes")
    if static + dynamic > MAX_SHARED_PER_CTA:
        raise LaunchError(f"{_VALUE}: {static + dynamic} bytes of shared memory per CTA ({static} static + {dynamic} "
                          f"dynamic) exceed the {MAX_SHARED_PER_CTA} (227 KiB) an H200 CTA may have")


def check_local(per_thread: int, kernel: str) -> None:
    if per_thread >= MAX_LOCAL_PER_THREAD:
        raise LaunchError(f"{_RESOURCES}: kernel '{kernel}' needs {per_thread} bytes of local memory per thread "
                          f"(its .local variables and call frames); the H200 allows less than {MAX_LOCAL_PER_THREAD} "
                          f"(512 KiB)")
