"""The contract between the engine and the instruction families.

    @semantic("add")
    def add(spec: Spec):
        if spec.flag("sat"):
            return lambda a, b: saturate_s32(a.astype(np.int64) + b)
        return lambda a, b: a + b          # NumPy integer arrays wrap modulo 2^n, as PTX does

The lane function receives the source operands, in the order the ISA form lists them, as NumPy
arrays (or NumPy scalars, for immediates) of the dtype `dtypes.numpy_dtype(type)` gives for the
operand's PTX type, all of one length (the lanes being executed). An immediate stays a scalar
when a register source gives the lanes (it broadcasts against it); an instruction with no
register source gets every source as an array over the lanes. It returns the destination
value, or a tuple of them for instructions with several destinations (setp's p|q, the .cc carry
out). It never mutates its inputs and never looks at the engine.

Instructions that touch machine state (memory, control flow, barriers, warp collectives) are
lowered by the engine itself; their pure parts (an atomic's combine step, a shuffle's lane
arithmetic) still live in the family modules as plain functions.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Optional, Union

Value = Union[str, bool]


@dataclass(frozen=True)
class Spec:
    """An instruction as its semantics sees it: opcode, modifier slot values, operand types.

    values: slot name -> chosen value, e.g. {"rnd": "rz", "ftz": True, "type": "f32", "cmp": "lt"}.
    types:  slot name -> PTX type name for the type slots, e.g. {"dtype": "s32", "atype": "f32"};
            `type` is the single-type convenience ("f32" for add.rz.f32).
    """

    opcode: str
    values: Mapping[str, Value] = field(default_factory=dict)
    types: Mapping[str, str] = field(default_factory=dict)
    modifiers: tuple[str, ...] = ()  # the spelling as written, for messages

    def get(self, slot: str, default: Optional[Value] = None) -> Optional[Value]:
        return self.values.get(slot, default)

    def flag(self, name: str) -> bool:
        """True when the optional modifier `name` was written (e.g. "sat", "ftz", "cc")."""
        v = self.values.get(name)
        return v is True or v == name or name in self.modifiers

    @property
    def type(self) -> str:
        t = self.types.get("type") or self.values.get("type")
        if t is None and len(self.types) == 1:
            t = next(iter(self.types.values()))
        if not isinstance(t, str):
            raise KeyError(f"{self.opcode}: no single instruction type in {dict(self.types)}")
        return t


Factory = Callable[[Spec], Callable]
SEMANTICS: dict[str, Factory] = {}


def semantic(*opcodes: str):
    """Register a factory for one or more opcodes (the first dotted word: "add", "setp", "cvt")."""

    def register(factory: Factory) -> Factory:
        for op in opcodes:
            if op in SEMANTICS:
                raise ValueError(f"semantics for {op!r} registered twice")
            SEMANTICS[op] = factory
        return factory

    return register


_MADE: dict = {}  # the lane function of each distinct Spec: they are pure, so one serves every use


def lane_function(spec: Spec) -> Callable:
    """The lane function for an instruction; a clear error when no family implements it."""
    key = (spec.opcode, tuple(sorted(spec.values.items())), tuple(sorted(spec.types.items())), spec.modifiers)
    try:
        made = _MADE.get(key)
    except TypeError:  # a value that does not hash: made afresh
        key, made = None, None
    if made is not None:
        return made
    from . import families  # noqa: F401  (importing registers every family)

    factory = SEMANTICS.get(spec.opcode)
    if factory is None:
        raise NotImplementedError(f"no semantics for instruction '{spec.opcode}'")
    made = factory(spec)
    if key is not None:
        _MADE[key] = made
    return made
