"""The compiled tier: runs of register-only instructions fused into one Numba function each.

`emit` turns one lowered instruction into a few lines of scalar code over raw bits (or says it
cannot: that instruction ends a fused run); `plan` groups consecutive fusible instructions of a
basic block into a `FusedBlock` and hangs it on the block's first `Op` (`Op.fused`); `runtime`
compiles a block once it is hot, caches the machine code on disk and runs it for a group of
lanes. The scheduler (`core/machine.py`) calls `Op.fused.run` where it may (no tracer or hooks,
the instruction budget not crossed, no waiting group reconverging inside the run) and otherwise
runs the instructions one by one as always. The interpreter's lane functions are the
specification: the tests compare the two bit for bit.
"""
