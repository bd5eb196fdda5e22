"""initcheck: reads of global memory never written since allocation (ptxvm.device_array is
uninitialized, as cudaMalloc; arrays copied from the host are not); beyond compute-sanitizer,
reads of shared memory no thread of the CTA wrote and of .local memory the thread did not write.

Shadow: one bool per byte of the global arena, True where never written (built from each allocation's `uninit` mask, and
written back to it at the end, so a later sanitized launch knows what this one wrote) and one per
byte of the wave's shared memory. Shared memory is left unchecked in kernels that write it by
instructions the hooks do not observe (asynchronous and bulk copies, mbarriers, stmatrix, ...).
"""
from __future__ import annotations

import numpy as np

from ...engine.core.memory import GLOBAL_BASE
from .checker import SPACE_NAMES, Checker, global_bytes, local_bytes, shared_bytes, spaces_of

# opcodes that write shared memory outside ld/st/atom/red (their writes are not observed)
UNOBSERVED_SHARED_WRITERS = {"cp", "mbarrier", "stmatrix", "tensormap", "tcgen05", "wgmma", "st.async",
                             "red.async", "multimem", "clusterlaunchcontrol"}


class InitCheck(Checker):
    def __init__(self, session):
        super().__init__(session)
        self.glob = None
        self.check_shared = not any(_unobserved(op) for op in session.kernel_ops)

    def begin_wave(self, ctx) -> None:
        if self.glob is None:
            mem = ctx.gmem
            self.glob = np.zeros(mem.arena.size, dtype=bool)  # True: never written (zeros map lazily)
            for a in mem.allocations():
                if a.uninit is not None:
                    off = a.base - GLOBAL_BASE
                    self.glob[off : off + a.size] = a.uninit
        self.shared = np.ones(ctx.shared.buf.size, dtype=bool)  # True: never written
        self.local = np.ones(ctx.local.buf.size, dtype=bool)

    def access(self, ctx, lanes, addr, size, acc, kind, values=None):
        codes, rel = spaces_of(acc, addr)
        for code in (0, 1, 2):
            sel = codes == code
            if not sel.any() or (code == 1 and not self.check_shared) or (code == 2 and not self._local(acc)):
                continue
            if code == 0:
                if self.glob.size < ctx.gmem.arena.size:  # the device heap grew: its memory counts as written
                    self.glob = np.concatenate([self.glob, np.zeros(ctx.gmem.arena.size - self.glob.size, dtype=bool)])
                ok, idx = global_bytes(ctx, rel[sel], size)
                shadow = self.glob
            elif code == 1:
                ok, idx = shared_bytes(ctx, lanes[sel], rel[sel], size)
                shadow = self.shared
            else:
                ok, idx = local_bytes(ctx, lanes[sel], rel[sel], size)
                shadow = self.local
            if kind == "read":
                bad = idx.any_true(shadow)
                if bad.any():
                    ls, rs = lanes[sel][ok][bad], rel[sel][ok][bad]
                    for lane, a in zip(ls.tolist(), rs.tolist()):
                        self.s.record(ctx, lane, "uninitialized",
                                      f"Uninitialized __{SPACE_NAMES[code]}__ memory read of size {size} bytes",
                                      space=SPACE_NAMES[code], size=size, address=a, details=[f"Address 0x{a:x}"])
            else:
                idx.clear(shadow)
        return None

    @staticmethod
    def _local(acc) -> bool:
        """.local variables are checked; .param variables of functions, which share local memory,
        are not (the engine writes return values and syscall results there itself)."""
        return getattr(acc, "space", None) in ("local", None)

    def finish(self) -> None:
        if self.glob is None:
            return
        for a in self.s.kernel.module.device.memory.allocations():
            if a.uninit is not None:
                off = a.base - GLOBAL_BASE
                left = self.glob[off : off + a.size].copy()
                a.uninit = left if left.any() else None


def _unobserved(op) -> bool:
    instr = op.origin[0] if op.origin else None
    if instr is None:
        return False
    name = instr.opcode
    if name in ("st", "red") and "async" in instr.modifiers:
        return True
    return name in UNOBSERVED_SHARED_WRITERS
