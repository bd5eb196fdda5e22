"""Instruction semantics: one module per family, each instruction a short pure function over lanes.

A family module registers a *factory* per opcode with `@semantic("add", ...)`. At lowering time the
engine calls the factory once with the instruction's `Spec` (its modifiers and types, already
checked by the ISA table); the factory returns the lane function that runs on every execution.
"""
from .registry import SEMANTICS, Spec, semantic, lane_function  # noqa: F401
