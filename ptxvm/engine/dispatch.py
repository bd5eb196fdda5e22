"""Which lowering each instruction gets: the engine's own (memory, control, synchronization,
warp collectives) or the generic one over a pure lane function from ptxvm.semantics."""
from __future__ import annotations

from . import (async_ops, cluster_ops, control, matrix_ops, memory_ops, misc_ops, sync_ops, tensormap_ops, texture_ops,
               video_ops, warp_ops, wgmma_ops, wide)

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


def lower(lowerer, instr, m, scope):
    special = ENGINE_LOWERINGS.get(instr.opcode)
    if special is not None:
        ops = special(lowerer, instr, m, scope)
        if ops is not None:
            return ops
    return lowerer.alu(instr, m, scope)
