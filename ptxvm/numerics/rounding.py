"""Rounding modes.

One enum serves both PTX rounding families: the floating-point modifiers
(.rn .rz .rm .rp .rna) round to the destination format, and the integer
modifiers (.rni .rzi .rmi .rpi) are the same four directions applied at
integer granularity.  ``Rounding.from_ptx`` accepts either spelling, so a
float->int conversion takes ``Rounding.RZ`` for ``.rzi``.
"""
from __future__ import annotations

import enum


class Rounding(enum.Enum):
    RN = "rn"    # to nearest, ties to even
    RZ = "rz"    # toward zero
    RM = "rm"    # toward -inf
    RP = "rp"    # toward +inf
    RNA = "rna"  # to nearest, ties away from zero (cvt.rna.tf32)

    @classmethod
    def from_ptx(cls, modifier: str) -> "Rounding":
        """Map a PTX modifier ('rn', '.rzi', 'rpi', ...) to its direction."""
        name = modifier.lstrip(".").lower()
        if name in ("rni", "rzi", "rmi", "rpi"):
            name = name[:2]
        return cls(name)

    @property
    def ptx_integer(self) -> str:
        """The integer-rounding spelling of this direction ('rni', ...)."""
        if self is Rounding.RNA:
            raise ValueError("PTX has no ties-away integer rounding")
        return self.value + "i"


RN, RZ, RM, RP, RNA = Rounding.RN, Rounding.RZ, Rounding.RM, Rounding.RP, Rounding.RNA
