"""Opcodes that several families share, told apart by the instruction type.

`add.s32` is integer arithmetic and `add.f32` floating point, yet the registry keys on the opcode
alone. A family registers its half of such an opcode with `@typed_semantic("add", kind="int")`;
the registry then holds one `ByType` dispatcher per opcode that picks the family's factory from
the Spec's type at lowering time (never per executed instruction). Kinds: "int" for the integer
and packed-integer types (s/u/b, u16x2, s16x2), "float" for every other type (f16...f64, bf16,
packed halves, fp8). A family that registered a shared opcode whole with plain `@semantic` keeps
working: its factory becomes the dispatcher's fallback for the kinds nobody claimed.
"""
from __future__ import annotations

from ..registry import SEMANTICS, Spec

INT_TYPES = frozenset(
    f"{p}{w}" for p in "usb" for w in (8, 16, 32, 64)
) | {"u16x2", "s16x2"}


def type_kind(ptx_type: str) -> str:
    return "int" if ptx_type in INT_TYPES else "float"


class ByType:
    """The registry entry of a shared opcode: one factory per type kind."""

    def __init__(self, opcode: str, fallback=None):
        self.opcode = opcode
        self.factories: dict = {}
        self.fallback = fallback

    def __call__(self, spec: Spec):
        factory = self.factories.get(type_kind(spec.type), self.fallback)
        if factory is None:
            raise NotImplementedError(f"no semantics for '{spec.opcode}.{spec.type}'")
        return factory(spec)


def typed_semantic(*opcodes: str, kind: str):
    """Register `factory` for the `kind` ("int" or "float") types of each opcode."""

    def register(factory):
        for op in opcodes:
            entry = SEMANTICS.get(op)
            if not isinstance(entry, ByType):
                entry = SEMANTICS[op] = ByType(op, fallback=entry)
            if kind in entry.factories:
                raise ValueError(f"semantics for {op!r} ({kind} types) registered twice")
            entry.factories[kind] = factory
        return factory

    return register
