"""ptxvm's sanitizer: compute-sanitizer's four checkers on the CPU engine.

    report = kernel.sanitize(grid, block, args, tool="memcheck", leak_check=True)
    print(report)            # compute-sanitizer's wording
    report.ok, report.errors, report.to_json()

The checkers observe the launch through the engine's hooks (ptxvm/engine/core/hooks.py) and keep their
shadow state (valid allocations, initialized bytes, last writer and reader of every shared and
global byte with its barrier epoch) as NumPy arrays; nothing runs per thread in Python except the
making of a record for an error found.
"""
from __future__ import annotations

import time

from ...errors import KernelFault
from .report import Location, Record, SanitizerReport
from .session import TOOLS, Sanitizer

__all__ = ["sanitize", "SanitizerReport", "Record", "Location", "TOOLS"]


def sanitize(kernel, grid, block, args=(), tool: str = "memcheck", leak_check: bool = False, shared_mem: int = 0,
             cluster=None, max_instructions=None, cooperative: bool = False) -> SanitizerReport:
    """Launch `kernel` under `tool` and return what it found. The launch runs to completion where
    compute-sanitizer's would: memcheck reports an invalid access and suppresses it, and the other
    threads go on. Host arrays are copied back unless an error that faults an unsanitized launch
    was found (then they are left untouched, as after a KernelFault). A fault the tool does not
    suppress (a trap, a deadlock, a bad access under another tool) ends the launch and becomes a
    record of kind "fault"."""
    from ...engine.launch import Launch

    if tool not in TOOLS:
        raise ValueError(f"unknown sanitizer tool {tool!r}: choose one of {', '.join(TOOLS)}")
    hooks = Sanitizer(kernel, tool, leak_check)
    start = time.perf_counter()
    launch = Launch(kernel, grid, block, list(args), shared_mem, cluster, max_instructions, hooks=hooks,
                    cooperative=cooperative)
    hooks.launch = launch
    try:
        launch.run()
    except KernelFault as f:
        hooks.fault(f)
        hooks.faulted = True
    hooks.finish()
    return SanitizerReport(tool, kernel.name, hooks.records, leak_check, time.perf_counter() - start, hooks.faulted)
