"""Which lowering each instruction gets: the engine's own (memory, control, synchronization,
warp collectives) or the generic one over a pure lane function from ptxvm.semantics."""
from __future__ import annotations

from .async_copy import copies as async_ops, tensormap as tensormap_ops
from .control import cluster as cluster_ops, flow as control, barriers as sync_ops, warp as warp_ops
from .matrix import mma as matrix_ops, wgmma as wgmma_ops
from .memory import access as memory_ops, wide
from .misc import special as misc_ops, video as video_ops
from .texture import ops as texture_ops

ENGINE_LOWERINGS = {
    **control.LOWERINGS,
    **memory_ops.LOWERINGS,
    **sync_ops.LOWERINGS,
    **warp_ops.LOWERINGS,
    **matrix_ops.LOWERINGS,
    **async_ops.LOWERINGS,
    **cluster_ops.LOWERINGS,
    **texture_ops.LOWERINGS,
    **video_ops.LOWERINGS,
    **misc_ops.LOWERINGS,
    **tensormap_ops.LOWERINGS,
    **wgmma_ops.LOWERINGS,
    **wide.LOWERINGS,  # mov.b128 (other movs fall through to the generic lowering)
}

# forms a lowering refuses by name: opcode -> sets of modifiers that, all present, make it refuse
ENGINE_REFUSES = {**wgmma_ops.REFUSES, **async_ops.REFUSES, "multimem": (frozenset(),)}
# why, where a whole opcode is refused (the coverage table says it)
REFUSAL_REASONS = {"multimem": "needs a multicast object (NVLink multicast memory), which ptxvm does not model"}


def _completes_on_mbarrier(instr) -> bool:
    """st.async / red.async with an mbarrier operand belong to the asynchronous family."""
    return "async" in instr.modifiers and len(instr.operands) == 3 and instr.opcode in ("st", "red")


def lower(lowerer, instr, m, scope):
    if _completes_on_mbarrier(instr):
        return async_ops.lower_async_store(lowerer, instr, m, scope)
    special = ENGINE_LOWERINGS.get(instr.opcode)
    if special is not None:
        ops = special(lowerer, instr, m, scope)
        if ops is not None:
            return ops
    return lowerer.alu(instr, m, scope)
