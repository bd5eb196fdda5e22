"""memcheck: invalid and misaligned accesses in every state space, device-heap frees and leaks.

An invalid access is reported once per thread and access, as compute-sanitizer counts them, and
suppressed (the lane does not touch memory; a load leaves its destination as it was); the launch
goes on, and the caller's arrays are then left as a fault would leave them.
"""
from __future__ import annotations

import numpy as np

from .checker import SPACE_NAMES, Checker, spaces_of
from .report import Record

_VERB = {"read": "read", "write": "write", "atomic": "atomic"}


class MemCheck(Checker):
    def __init__(self, session):
        super().__init__(session)
        self.heap: dict[int, int] = {}  # live device-heap allocations of this launch: base -> size
        self.freed: dict[int, int] = {}  # freed device-heap allocations: base -> size

    def access(self, ctx, lanes, addr, size, acc, kind, values=None):
        codes, rel = spaces_of(acc, addr)
        align = size if size & (size - 1) == 0 else 1
        misaligned = (rel & np.uint64(align - 1)) != 0 if align > 1 else np.zeros(rel.shape, dtype=bool)
        inside = np.ones(rel.shape, dtype=bool)
        g = codes == 0
        if g.any():
            bases, ends = ctx.gmem.bounds()
            if bases.size:  # inside the allocation that starts at or below the address
                a = rel[g]
                i = np.searchsorted(bases, a, side="right").astype(np.int64) - 1
                inside[g] = (i >= 0) & (a + np.uint64(size) <= ends[np.maximum(i, 0)])
            else:
                inside[g] = False
        limits = {1: ctx.shared.limit, 2: ctx.local.limit, 3: ctx.const.size, 4: ctx.kparams.size}
        for code, limit in limits.items():
            sel = codes == code
            if sel.any():
                off = rel[sel] & np.uint64(0xFFFFFF) if code == 1 else rel[sel]
                inside[sel] = off + np.uint64(size) <= np.uint64(limit)
                if kind != "read" and code in (3, 4) and getattr(acc, "space", None) != "fparam":
                    inside[sel] = False  # read-only spaces
        bad = misaligned | ~inside
        if not bad.any():
            return None
        self.s.faulted = True
        for k in np.flatnonzero(bad).tolist():
            self._report(ctx, int(lanes[k]), int(codes[k]), int(addr[k]), int(rel[k]), size, kind, bool(misaligned[k]))
        return ~bad

    def _report(self, ctx, lane, code, address, rel, size, kind, misaligned):
        self.end_wave(ctx)  # learn of frees made so far
        space = SPACE_NAMES[code]
        details = [f"Access to 0x{rel:x} is {'misaligned' if misaligned else 'out of bounds'}"]
        allocation = None
        if code == 0:
            heap = next(((b, n) for b, n in self.freed.items() if b <= rel < b + n), None)
            near = ctx.gmem.nearest(rel)
            if heap is not None and not misaligned:
                details.append("and is located in the device heap")
                allocation = heap
            elif near is not None:
                allocation = (near.base, near.size)
                if near.base <= rel < near.base + near.size:
                    details.append(f"and is inside the nearest allocation at 0x{near.base:x} of size {near.size} bytes")
                elif rel >= near.base:
                    details.append(f"and is {rel - near.base - near.size + 1} bytes after the nearest allocation "
                                   f"at 0x{near.base:x} of size {near.size} bytes")
                else:
                    details.append(f"and is {near.base - rel} bytes before the nearest allocation "
                                   f"at 0x{near.base:x} of size {near.size} bytes")
        self.s.record(ctx, lane, "misaligned" if misaligned else "invalid_access",
                      f"Invalid __{space}__ {_VERB[kind]} of size {size} bytes", space=space, size=size,
                      address=rel, details=details, allocation=allocation)

    def heap_alloc(self, ctx, lane, alloc) -> None:
        self.heap[alloc.base] = alloc.size
        self.freed.pop(alloc.base, None)

    def heap_free(self, ctx, lane, ptr) -> bool:
        self.end_wave(ctx)
        self.s.faulted = True
        what = "Device-side double free" if ptr in self.freed else "Device-side free of an address malloc did not return"
        self.s.record(ctx, lane, "heap_free", f"Malloc/Free Error encountered : {what}", address=ptr,
                      details=[f"Address 0x{ptr:x}"], space="global")
        return True

    def end_wave(self, ctx) -> None:
        live = set(ctx.device_allocs)
        for base in list(self.heap):
            if base not in live:
                self.freed[base] = self.heap.pop(base)

    def finish(self) -> None:
        if not self.s.leak_check:
            return
        mem = self.s.kernel.module.device.memory
        for base, size in self.heap.items():
            if mem.find(base) is not None:
                self.s.records.append(Record(
                    self.s.tool, "leak", f"Leaked {size} bytes at 0x{base:x} on the device heap", space="global",
                    size=size, address=base, allocation=(base, size)))
