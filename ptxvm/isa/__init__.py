"""The PTX ISA as data: types, state spaces, special registers, and the instruction-form table.

    from ptxvm.isa import match
    m = match("add", ("rn", "f32"))      # Match: m.form, m.values, m.type, m.operands, m.requirement
"""
from . import forms as _forms  # noqa: F401  (registers every row)
from .match import Match, MatchError, ResolvedOperand, clear_cache, lookup, match, match_name
from .sregs import CONSTANTS, SREGS, SpecialReg
from .sregs import lookup as sreg
from .spaces import SPACES, Access, Sharing, StateSpace, space
from .table import (
    FAMILIES, FORMS, Element, Form, Kind, OperandSpec, Requirement, Role, Slot, build_all, forms_for, opcodes,
    parse_target, requirement,
)
from .types import TYPES, PtxType, TypeKind, extension, immediate_ok, operand_type_ok, ptx_type

__all__ = [
    "match", "match_name", "lookup", "Match", "MatchError", "ResolvedOperand", "clear_cache",
    "FORMS", "forms_for", "opcodes", "build_all", "Form", "OperandSpec", "Element", "Slot", "Kind", "Role",
    "Requirement", "requirement", "parse_target", "FAMILIES",
    "TYPES", "PtxType", "TypeKind", "ptx_type", "operand_type_ok", "immediate_ok", "extension",
    "SPACES", "StateSpace", "Sharing", "Access", "space",
    "SREGS", "SpecialReg", "sreg", "CONSTANTS",
]
