"""Group fusible instructions into blocks and hang each on its first Op (`Op.fused`).

A run is a maximal sequence of consecutive PCs whose instructions have a `Step`; a label (a
branch target) or a function entry starts a new run, so that a loop body is one block from its
head. Runs shorter than `MIN_LENGTH` stay interpreted (one compiled call would save nothing), except
a lone floating-point instruction: its lane function makes several NumPy passes (NaN and .ftz
checks, fma's midpoint test), which the compiled loop does in one;
`PTXVM_JIT_MIN_LENGTH=1` fuses single instructions too (to check every emitted form against
the conformance goldens: `PTXVM_JIT_THRESHOLD=0 PTXVM_JIT_MIN_LENGTH=1 python -m ptxvm.conformance check`).
"""
from __future__ import annotations

import os

from .emit import Step
from .runtime import FusedBlock

MIN_LENGTH = 2


def attach(code: list, steps: dict[int, Step], leaders: set[int], dtypes) -> int:
    """Attach blocks to `code`; returns how many were made."""
    made = 0
    run: list[int] = []
    try:
        shortest = max(1, int(os.environ.get("PTXVM_JIT_MIN_LENGTH", MIN_LENGTH)))
    except ValueError:
        shortest = MIN_LENGTH

    def close():
        nonlocal made
        if len(run) >= shortest or (len(run) == 1 and steps[run[0]].family == "float"):
            ops = [code[pc] for pc in run]
            if len({id(op) for op in ops}) == len(ops) and ops[0].fused is None:
                ops[0].fused = FusedBlock(run[0], ops, [steps[pc] for pc in run], dtypes)
                made += 1
        run.clear()

    for pc in sorted(steps):
        if run and (pc != run[-1] + 1 or pc in leaders):
            close()
        run.append(pc)
    close()
    return made
