"""The engine: machine state, scheduler, memories, lowering and launch, grouped by kind (core,
memory, control, async_copy, matrix, texture, misc, trace) with imports pointing one way, from the
launcher down to core (docs/ARCHITECTURE.md; tests/engine/test_layering.py checks it)."""
