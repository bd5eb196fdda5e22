"""The PTX abstract syntax tree: what the parser builds, the verifier checks and the printer prints.

Nodes are frozen dataclasses; sequences are tuples. Every node that a diagnostic may point at
carries a `span`. Names keep their spelling (`%r1`, `$L__BB0_2`, `_Z3fooi`). Modifiers are kept as
written, without the leading dot (`("global", "v4", "f32")`); the ISA table gives them meaning.
Spans are excluded from equality so that `parse(print(m)) == m` can be asserted.

Nodes are treated as immutable (build new ones with dataclasses.replace); they are not declared
frozen because frozen dataclasses construct four times slower, and the parser builds millions.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union

from ..errors import Span

NOSPAN = Span("<none>", 0, 0)


node = dataclass(slots=True)


def _span():
    return field(default=NOSPAN, compare=False, repr=False)


# --------------------------------------------------------------------------- expressions
# Constant expressions (ISA 4.5). Integer literals keep their value; the printer chooses spelling.


@node
class IntLit:
    value: int
    unsigned: bool = False  # written with a U suffix (or too large for s64): the expression is .u64
    span: Span = _span()


@node
class FloatLit:
    """A floating literal. `bits` is exact: 0fXXXXXXXX gives an f32 pattern, everything else f64."""

    bits: int
    is_f32: bool  # True for 0f/0F literals (32-bit pattern), False for 0d and decimal (f64)
    span: Span = _span()


@node
class Unary:
    op: str  # "-", "~", "!", "+"
    operand: "Expr"
    span: Span = _span()


@node
class Binary:
    op: str  # "*", "/", "%", "+", "-", "<<", ">>", "<", ">", "<=", ">=", "==", "!=", "&", "^", "|", "&&", "||"
    left: "Expr"
    right: "Expr"
    span: Span = _span()


@node
class Conditional:
    cond: "Expr"
    if_true: "Expr"
    if_false: "Expr"
    span: Span = _span()


@node
class Cast:
    type: str  # "s64" or "u64" (ISA 4.5.1 casts)
    operand: "Expr"
    span: Span = _span()


@node
class SymbolRef:
    """A name used as a value: a variable's or function's address, a label, an array element."""

    name: str
    span: Span = _span()


Expr = Union[IntLit, FloatLit, Unary, Binary, Conditional, Cast, SymbolRef]


# --------------------------------------------------------------------------- operands


@node
class Register:
    """A register or special register, with an optional vector component (`%tid.x`, `v.y`)."""

    name: str
    component: Optional[str] = None  # "x" "y" "z" "w" or "r" "g" "b" "a"; video selectors "b0" "h1" "b3210"
    negated: bool = False  # `!p` in a predicate-operand position
    minus: bool = False  # `-a`: vmad's negated sources
    offset: Optional["Expr"] = None  # `%r + 4`: a source operand ptxas takes as the register plus a constant
    span: Span = _span()


@node
class Sink:
    """`_`: a destination whose value is discarded."""

    span: Span = _span()


@node
class Immediate:
    """An immediate operand: a constant expression (literal, arithmetic, or a symbol's address)."""

    expr: Expr
    span: Span = _span()


@node
class Address:
    """`[base + offset]`, `[base]`, `[imm]`. base is a Register, a SymbolRef, or None for `[imm]`.
    unified: written `[a].unified` (ld of a unified address, PTX ISA 8.7)."""

    base: Optional[Union[Register, SymbolRef]]
    offset: Optional[Expr] = None
    span: Span = _span()
    unified: bool = False


@node
class VectorOperand:
    """`{a, b, c, d}`: elements are Registers, Sinks or Immediates."""

    elements: tuple["Operand", ...]
    span: Span = _span()


@node
class BracketList:
    """`[tex, sampler, {x, y}]`: the texture/surface operand and call-target lists in brackets."""

    elements: tuple["Operand", ...]
    span: Span = _span()


@node
class ParamList:
    """`(a, b)`: the return and argument lists of `call`."""

    elements: tuple["Operand", ...]
    span: Span = _span()


@node
class PredPair:
    """`p|q`: the two predicate destinations of setp and friends."""

    first: "Operand"
    second: "Operand"
    span: Span = _span()


@node
class ArrayElement:
    """`name[index]` used as an operand (an element of an array variable): a constant index, or a
    register (`name[%r]`, `name[%r+4]`: the Register with its offset)."""

    base: SymbolRef
    index: Union[Expr, "Register"]
    span: Span = _span()


Operand = Union[Register, Sink, Immediate, Address, VectorOperand, BracketList, ParamList, PredPair, ArrayElement]


# --------------------------------------------------------------------------- statements


@node
class Guard:
    register: str
    negated: bool = False
    span: Span = _span()


@node
class Instruction:
    opcode: str  # "add", "ld", "mma", "cp" (the first dotted word)
    modifiers: tuple[str, ...]  # ("sync", "aligned", "m16n8k16", "row", "col", "f32", "bf16", "bf16", "f32")
    operands: tuple[Operand, ...]
    guard: Optional[Guard] = None
    span: Span = _span()

    @property
    def name(self) -> str:
        return ".".join((self.opcode,) + self.modifiers)


@node
class Label:
    name: str
    span: Span = _span()


@node
class Initializer:
    """An initializer list `{a, b, {c, d}}`. Items are Exprs, nested Initializers, Generic/Mask or
    FieldInit (opaque types)."""

    items: tuple["InitItem", ...]
    span: Span = _span()


@node
class Generic:
    """`generic(var)` or `generic(var)+off` in an initializer: the generic address of a variable."""

    name: str
    offset: Optional[Expr] = None
    span: Span = _span()


@node
class Mask:
    """`mask(value, n)` / `0xFF00(var)`-style byte selection of an address in .b8 initializers."""

    mask: int
    operand: "InitItem"
    span: Span = _span()


@node
class FieldInit:
    """`name = value` in the initializer of an opaque variable:
    `.global .samplerref s = { addr_mode_0 = wrap, filter_mode = linear };`"""

    field: str
    value: Expr  # a SymbolRef for keyword values (`wrap`, `linear`), else a constant expression
    span: Span = _span()


InitItem = Union[Expr, Initializer, Generic, Mask, FieldInit]


@node
class VarDecl:
    """A variable or register declaration in any state space; also a parameter of .entry/.func.

    `array` holds one entry per dimension: an int, or None for `[]` (unsized extern / initializer-sized).
    `count` is N in `.reg .b32 %r<N>` (parameterized names).
    """

    space: str  # "reg" "sreg" "const" "global" "local" "param" "shared" "tex" ("shared::cta" etc. kept as written)
    type: str  # "b32", "f32", "pred", "texref", "samplerref", "surfref", ...
    name: str
    vector: Optional[int] = None  # 2, 4 or 8 for .v2/.v4/.v8
    array: tuple[Optional[int], ...] = ()
    align: Optional[int] = None
    linkage: Optional[str] = None  # "extern" "visible" "weak" "common"
    count: Optional[int] = None
    init: Optional[InitItem] = None
    attributes: tuple[str, ...] = ()  # ".attribute(.managed)" -> ("managed",)
    ptr: bool = False  # kernel parameter attribute .ptr
    ptr_space: Optional[str] = None  # .ptr.space (e.g. "global")
    ptr_align: Optional[int] = None  # .ptr.align N
    extra: tuple[str, ...] = ()  # other dotted words kept verbatim (e.g. ".v4 .u32" already split out)
    array_exprs: tuple[Optional[Expr], ...] = ()  # dimensions as written, when they were expressions
    span: Span = _span()


@node
class Directive:
    """A directive kept structurally but without its own node type: `.pragma "nounroll";`,
    `.maxntid 256, 1, 1`, `.reqntid`, `.minnctapersm`, `.maxnreg`, `.noreturn`, `.explicitcluster`, ...

    `args` are Exprs or strings (for quoted strings, kept with their quotes removed).
    """

    name: str  # without the dot: "pragma", "maxntid", ...
    args: tuple[Union[Expr, str], ...] = ()
    span: Span = _span()


@node
class Loc:
    """`.loc file line col [, function_name label[+off] , inlined_at file line col]`."""

    file: int
    line: int
    col: int
    function_name: Optional[str] = None
    function_offset: Optional[int] = None
    inlined_at: Optional[tuple[int, int, int]] = None
    span: Span = _span()


@node
class BranchTargets:
    """`label: .branchtargets L1, L2, ...;`"""

    name: str
    targets: tuple[str, ...]
    span: Span = _span()


@node
class CallTargets:
    """`label: .calltargets f1, f2, ...;`"""

    name: str
    targets: tuple[str, ...]
    span: Span = _span()


@node
class CallPrototype:
    """`label: .callprototype (.param .b32 _) _ (.param .b32 _, ...) [.noreturn];`"""

    name: str
    returns: tuple[VarDecl, ...]
    params: tuple[VarDecl, ...]
    noreturn: bool = False
    directives: tuple[Directive, ...] = ()  # `.abi_preserve N`, `.abi_preserve_control N`
    span: Span = _span()


@node
class Block:
    """`{ ... }`: a scope. Statements in order."""

    statements: tuple["Statement", ...]
    span: Span = _span()

    def instructions(self):
        """Every instruction of the scope and its nested scopes, in order."""
        for s in self.statements:
            if isinstance(s, Block):
                yield from s.instructions()
            elif isinstance(s, Instruction):
                yield s


Statement = Union[Instruction, Label, VarDecl, Directive, Loc, BranchTargets, CallTargets, CallPrototype, Block]


# --------------------------------------------------------------------------- module level


@node
class Function:
    """`.entry` or `.func`. body None means a declaration (prototype) without a body."""

    kind: str  # "entry" | "func"
    name: str
    params: tuple[VarDecl, ...] = ()
    returns: tuple[VarDecl, ...] = ()
    body: Optional[Block] = None
    linkage: Optional[str] = None  # "extern" "visible" "weak"
    directives: tuple[Directive, ...] = ()  # performance/cluster directives before the body
    noreturn: bool = False
    attributes: tuple[str, ...] = ()  # .attribute(...) on functions
    span: Span = _span()


@node
class Alias:
    """`.alias fAlias, fAliasee;`"""

    alias: str
    aliasee: str
    span: Span = _span()


@node
class FileDirective:
    """`.file 1 "name.cu"[, timestamp, size]`"""

    index: int
    path: str
    timestamp: Optional[int] = None
    size: Optional[int] = None
    span: Span = _span()


@node
class SectionEntry:
    """One data line of a `.section`: `.b8 1, 2`, `.b32 label`, `.quad sym+4`, or a label."""

    directive: str  # "b8" "b16" "b32" "b64" "4byte" "quad" or "label"
    values: tuple[Expr, ...] = ()
    span: Span = _span()


@node
class Section:
    """`.section .debug_info { ... }` (debugging data)."""

    name: str
    entries: tuple[SectionEntry, ...]
    attributes: tuple[str, ...] = ()
    span: Span = _span()


@node
class Dwarf:
    """`@@DWARF ...` lines of old PTX: kept verbatim."""

    text: str
    span: Span = _span()


TopLevel = Union[Function, VarDecl, Alias, FileDirective, Section, Dwarf, Directive]


@node
class Module:
    version: tuple[int, int]
    target: tuple[str, ...]  # ("sm_90a",) or ("sm_90", "texmode_independent", "debug")
    address_size: Optional[int]  # 32, 64 or None when not given (then 32 for old modules)
    items: tuple[TopLevel, ...]
    file: str = "<string>"
    span: Span = _span()
    source: str = field(default="", compare=False, repr=False)  # the parsed text, for diagnostics

    def functions(self):
        return [i for i in self.items if isinstance(i, Function)]

    def function(self, name: str) -> Optional[Function]:
        """The definition of `name` if it has one, else its declaration."""
        found = None
        for i in self.items:
            if isinstance(i, Function) and i.name == name:
                if i.body is not None:
                    return i
                found = i
        return found

    def variables(self):
        return [i for i in self.items if isinstance(i, VarDecl)]
