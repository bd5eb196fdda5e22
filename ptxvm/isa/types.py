"""PTX fundamental types as data (ISA 5.2), and the operand type-compatibility rules (ISA 9.4).

Every type an instruction or a declaration can name is one `PtxType`: its name without the dot,
its size in bits, its kind, and, for packed types, the number of lanes and the lane type.

    TYPES["f16x2"]  -> PtxType("f16x2", 32, TypeKind.FLOAT, lanes=2, lane="f16")

`operand_type_ok(instr_type, reg_type, relaxed=..., role=...)` says whether a register declared with
`reg_type` may be an operand of an instruction whose type (for that operand) is `instr_type`.
The rules were checked one by one against ptxas 13.0 (see tests/isa/test_types.py for the tables);
where ptxas accepts more than the document says, we accept what ptxas accepts and say so below.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Optional


class TypeKind(Enum):
    BIT = "bit"  # .b8 .. .b128: untyped bits
    UNSIGNED = "unsigned"  # .u8 .. .u64, .u16x2, sub-byte .u4 .u2
    SIGNED = "signed"  # .s8 .. .s64, .s16x2, sub-byte .s4 .s2
    FLOAT = "float"  # .f16 .f32 .f64 and the alternate formats (.bf16 .tf32 .e4m3 ...)
    PRED = "pred"  # .pred
    OPAQUE = "opaque"  # .texref .samplerref .surfref


@dataclass(frozen=True, slots=True)
class PtxType:
    name: str  # without the dot: "u32"
    bits: int  # storage size in bits (for packed types: the whole container)
    kind: TypeKind
    lanes: int = 1  # elements packed in one value (f16x2 -> 2, e4m3x4 -> 4)
    lane: Optional[str] = None  # the lane type of a packed type ("f16" for f16x2)
    reg: bool = False  # a `.reg` variable may be declared with this type
    alt: bool = False  # an alternate floating-point format (bf16, tf32, fp8, fp6, fp4, ue8m0 ...)
    var: bool = True  # usable for variables in addressable spaces (.global/.shared/...)
    instr: bool = True  # usable as an instruction type

    @property
    def bytes(self) -> int:
        return (self.bits + 7) // 8

    @property
    def packed(self) -> bool:
        return self.lanes > 1

    @property
    def is_int(self) -> bool:
        return self.kind in (TypeKind.UNSIGNED, TypeKind.SIGNED)

    @property
    def is_float(self) -> bool:
        return self.kind is TypeKind.FLOAT

    @property
    def is_signed(self) -> bool:
        return self.kind is TypeKind.SIGNED

    @property
    def lane_bits(self) -> int:
        return self.bits // self.lanes

    def __str__(self) -> str:
        return "." + self.name


_B, _U, _S, _F, _P, _O = TypeKind.BIT, TypeKind.UNSIGNED, TypeKind.SIGNED, TypeKind.FLOAT, TypeKind.PRED, TypeKind.OPAQUE


def _t(name, bits, kind, lanes=1, lane=None, reg=False, alt=False, var=True, instr=True):
    return PtxType(name, bits, kind, lanes, lane, reg, alt, var, instr)


_ALL = [
    # ---- ISA 5.2.1 fundamental types (all declarable as registers)
    _t("b8", 8, _B, reg=True), _t("b16", 16, _B, reg=True), _t("b32", 32, _B, reg=True),
    _t("b64", 64, _B, reg=True), _t("b128", 128, _B, reg=True),  # .b128: PTX 8.3
    _t("u8", 8, _U, reg=True), _t("u16", 16, _U, reg=True), _t("u32", 32, _U, reg=True), _t("u64", 64, _U, reg=True),
    _t("s8", 8, _S, reg=True), _t("s16", 16, _S, reg=True), _t("s32", 32, _S, reg=True), _t("s64", 64, _S, reg=True),
    _t("f16", 16, _F, reg=True), _t("f16x2", 32, _F, 2, "f16", reg=True),
    _t("f32", 32, _F, reg=True), _t("f64", 64, _F, reg=True),
    _t("pred", 1, _P, reg=True, var=False),
    # ---- packed integer and float types: instruction types only (ptxas: "may only be used as an instruction type")
    _t("u16x2", 32, _U, 2, "u16", var=False), _t("s16x2", 32, _S, 2, "s16", var=False),
    _t("f32x2", 64, _F, 2, "f32", var=False),  # PTX 8.6 (add/sub/mul/fma .f32x2)
    # ---- ISA 5.2.3 alternate floating-point formats (held in .b16/.b32/... registers)
    _t("bf16", 16, _F, alt=True, var=False), _t("bf16x2", 32, _F, 2, "bf16", alt=True, var=False),
    _t("tf32", 32, _F, alt=True, var=False),
    _t("e4m3", 8, _F, alt=True, var=False), _t("e5m2", 8, _F, alt=True, var=False),
    _t("e2m3", 8, _F, alt=True, var=False), _t("e3m2", 8, _F, alt=True, var=False),  # fp6 kept in 8 bits
    _t("e2m1", 4, _F, alt=True, var=False),  # fp4
    _t("ue8m0", 8, _F, alt=True, var=False), _t("ue4m3", 8, _F, alt=True, var=False),  # block scale factors
    _t("e4m3x2", 16, _F, 2, "e4m3", alt=True, var=False), _t("e5m2x2", 16, _F, 2, "e5m2", alt=True, var=False),
    _t("e2m3x2", 16, _F, 2, "e2m3", alt=True, var=False), _t("e3m2x2", 16, _F, 2, "e3m2", alt=True, var=False),
    _t("e2m1x2", 8, _F, 2, "e2m1", alt=True, var=False), _t("ue8m0x2", 16, _F, 2, "ue8m0", alt=True, var=False),
    _t("e4m3x4", 32, _F, 4, "e4m3", alt=True, var=False), _t("e5m2x4", 32, _F, 4, "e5m2", alt=True, var=False),
    _t("e2m3x4", 32, _F, 4, "e2m3", alt=True, var=False), _t("e3m2x4", 32, _F, 4, "e3m2", alt=True, var=False),
    _t("e2m1x4", 16, _F, 4, "e2m1", alt=True, var=False),
    # ---- sub-byte and single-bit matrix element types (wmma/mma/cvt.pack), instruction types only
    _t("u4", 4, _U, var=False), _t("s4", 4, _S, var=False), _t("u2", 2, _U, var=False), _t("s2", 2, _S, var=False),
    _t("b1", 1, _B, var=False),
    # ---- ldmatrix / tcgen05.cp data formats: 16 elements packed into 128 bits
    _t("b8x16", 128, _B, 16, "b8", var=False), _t("b6x16_p32", 128, _B, 16, None, var=False),
    _t("b4x16_p64", 128, _B, 16, None, var=False),
    # ---- the tensor-map object of tensormap.replace
    _t("b1024", 1024, _B, var=False),
    # ---- ISA 5.3 opaque types (texture, sampler, surface references)
    _t("texref", 64, _O, instr=False), _t("samplerref", 64, _O, instr=False), _t("surfref", 64, _O, instr=False),
]

TYPES: dict[str, PtxType] = {t.name: t for t in _ALL}
TYPE_NAMES = frozenset(TYPES)
REG_TYPES = frozenset(t.name for t in _ALL if t.reg)

# Handy groups (tuples keep the manual's order: they are used as slot value lists by the table).
B = ("b16", "b32", "b64")
BITS = ("b8", "b16", "b32", "b64")
U = ("u16", "u32", "u64")
S = ("s16", "s32", "s64")
INT = ("u16", "u32", "u64", "s16", "s32", "s64")
INT8 = ("u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64")
LDST = ("b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f32", "f64")


def ptx_type(name: str) -> PtxType:
    """The type named `name` (with or without the leading dot). KeyError if there is none."""
    return TYPES[name[1:] if name.startswith(".") else name]


def _same_size_ok(it: PtxType, rt: PtxType) -> bool:
    """ISA 9.4 strict rule: an operand of an instruction of type `it` held in a register of `rt`."""
    if it.kind is _P or rt.kind is _P:
        return it.kind is rt.kind
    if rt.bits != it.bits:
        return False
    if rt.kind is _B or it.kind is _B:
        # bit-size types are compatible with every type of the same size
        return True
    if it.packed or it.alt:
        # packed / alternate instruction types (u16x2, bf16x2, e4m3x2 ...) are held in bit-size registers;
        # only the identical register type (f16x2) is accepted besides them. ptxas 13.0 also accepts an
        # .f16x2 register for .u16x2/.s16x2 (it treats .f16x2 registers like .b32 for integer types).
        return rt.name == it.name or (it.is_int and rt.name == "f16x2")
    if it.is_int:
        # signed and unsigned integers of the same size are interchangeable; ptxas also lets an .f16x2
        # register stand for a 32-bit integer (not an .f16 register for a 16-bit one).
        return rt.is_int or rt.name == "f16x2"
    # floating-point types: only the identical type
    return rt.name == it.name


def _relaxed_ok(it: PtxType, rt: PtxType) -> bool:
    """ISA 9.4.1 (Tables "relaxed type-checking rules"): ld, ldu, st, cvt accept wider registers.

    Bit-size instruction types take any register at least as wide; integer instruction types take
    bit-size and integer registers at least as wide (data are chopped, or zero/sign-extended on
    writes); floating-point instruction types take bit-size registers at least as wide, or exactly
    their own type. ptxas 13.0: alternate formats (.bf16) are not relaxed; .f16x2 registers count as
    integers of 32 bits.
    """
    if it.kind is _P or rt.kind is _P:
        return it.kind is rt.kind
    if rt.bits < it.bits:
        return False
    if rt.bits == it.bits and _same_size_ok(it, rt):
        return True
    if it.alt or it.packed:
        return False
    if it.kind is _B:
        return True
    if it.is_int:
        return rt.kind is _B or rt.is_int or rt.name == "f16x2"
    # floating point
    return rt.kind is _B


def operand_type_ok(instr_type, reg_type, *, relaxed: bool = False) -> bool:
    """Whether a register of type `reg_type` may be used where the instruction expects `instr_type`.

    Both may be `PtxType`s or names ("u32" or ".u32"). `relaxed=True` applies the ISA 9.4.1 rules
    for instructions that let operands be wider than the instruction type (Form.relaxed: ld, ldu,
    ld.global.nc, st, cvt); destinations and sources follow the same size rule there (wider
    destinations are zero- or sign-extended, wider sources are truncated).

    Immediates are not registers: check them with `immediate_ok`.
    """
    it = instr_type if isinstance(instr_type, PtxType) else ptx_type(instr_type)
    rt = reg_type if isinstance(reg_type, PtxType) else ptx_type(reg_type)
    return _relaxed_ok(it, rt) if relaxed else _same_size_ok(it, rt)


def immediate_ok(instr_type, kind: str) -> bool:
    """Whether a constant of `kind` ("int" or "float") may be an operand where `instr_type` is expected.

    ISA 4.5: integer constants go with bit-size, integer and predicate types (0 is False, else True);
    floating-point constants (0f/0d literals, decimal floats) with floating-point and bit-size types.
    ptxas 13.0 rejects integer literals for floating-point operands (`add.f32 d, a, 1` is an error).
    """
    it = instr_type if isinstance(instr_type, PtxType) else ptx_type(instr_type)
    if kind == "int":
        return it.kind in (_B, _U, _S, _P)
    if kind == "float":
        return it.kind in (_F, _B)
    raise ValueError(kind)


def extension(instr_type) -> str:
    """How a narrower value is widened into a wider destination register (ISA 9.4.1): 'sext' or 'zext'."""
    it = instr_type if isinstance(instr_type, PtxType) else ptx_type(instr_type)
    return "sext" if it.kind is _S else "zext"
