"""What the CUDA driver checks before an H200 launch runs: grid and block shape, the kernel's
.maxntid/.reqntid, shared memory per CTA and local memory per thread. Each check raises
LaunchError naming the limit, the value asked for and the CUDA error the driver gives for it
(docs/limits.md lists them and where each number comes from)."""
from __future__ import annotations

import math

from ..errors import LaunchError

MAX_GRID = (2**31 - 1, 65535, 65535)  # cudaDevAttrMaxGridDimX/Y/Z
MAX_BLOCK = (1024, 1024, 64)  # cudaDevAttrMaxBlockDimX/Y/Z
MAX_THREADS_PER_BLOCK = 1024
MAX_SHARED_PER_CTA = 227 * 1024  # sharedMemPerBlockOptin: static + dynamic, with the opt-in attribute
MAX_LOCAL_PER_THREAD = 512 * 1024  # bytes of local memory a thread may have (CUDA's technical specifications)

_CONFIG = "invalid configuration argument (cudaErrorInvalidConfiguration)"
_RESOURCES = "too many resources requested for launch (cudaErrorLaunchOutOfResources)"
_VALUE = "invalid argument (cudaErrorInvalidValue)"


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
    if per_thread > MAX_LOCAL_PER_THREAD:
        raise LaunchError(f"{_RESOURCES}: kernel '{kernel}' needs {per_thread} bytes of local memory per thread "
                          f"(its .local variables and call frames); the H200 allows at most {MAX_LOCAL_PER_THREAD} "
                          f"(512 KiB)")
