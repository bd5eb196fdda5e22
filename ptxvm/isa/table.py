"""The instruction-form table: the DSL the rows are written in, and the registry of forms.

A row reads like the manual's syntax line (docs/isa-table.md has the whole story):

    F("add{.rnd}{.ftz}{.sat}.f32 d, a, b", rnd=RND, since="1.0", req={".rm": "1.0 sm_20"})

Modifier elements, in order:
  `.name`    a required slot if `name` is a slot (given as a keyword, in `slots=`, or in the family's
             shared slot dictionary), else a required fixed token (`.sync`, `.f32`, `.L2::cache_hint`)
  `{.name}`  the same, optional
  `{.a.b}`   an optional group of fixed tokens that go together (`{.xorsign.abs}`)
Slot values are strings; a value with dots is a sequence of tokens (`"async.shared::cta"`).

Operands, after the first blank: `d, a, b{, cache-policy}`, `p{|q}`, `{!}c`, `{-}a`, `[a]`,
`[a, {b,} c]`, `{a, b, e, f}`, `(ret-param)`, `a{.asel}`, `d.dsel`, `[a]{.unified}`, literal `16`, `_`.
Their kind, role and type come from defaults (first operand is the destination of a form that has
one; sources take registers or immediates; types from the slot named after the operand (`d` ->
`dtype`), else from the form's type), from NAME_DEFAULTS, and from `ops={"b": "u32"}` overrides
written in a small spec language (see `_apply_spec`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable, Iterator, Mapping, Optional, Sequence, Union

from .types import TYPE_NAMES, TYPES, PtxType, TypeKind

# The semantics module each form belongs to (ptxvm.semantics.<family>).
FAMILIES = (
    "integer", "extended", "floating", "half", "compare", "logic", "convert", "memory", "control",
    "sync", "warp", "atomic", "matrix", "async", "texture", "video", "misc",
)

# PTX ISA versions that exist (a requirement must name one of them).
PTX_VERSIONS = (
    (1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (2, 0), (2, 1), (2, 2), (2, 3), (3, 0), (3, 1), (3, 2),
    (4, 0), (4, 1), (4, 2), (4, 3), (5, 0), (6, 0), (6, 1), (6, 2), (6, 3), (6, 4), (6, 5),
    (7, 0), (7, 1), (7, 2), (7, 3), (7, 4), (7, 5), (7, 6), (7, 7), (7, 8),
    (8, 0), (8, 1), (8, 2), (8, 3), (8, 4), (8, 5), (8, 6), (8, 7), (8, 8), (9, 0),
    (9, 1), (9, 2), (9, 3), (9, 4), (9, 5),
)
# Targets that exist (sm numbers); `a` / `f` suffixes are checked separately.
SM_TARGETS = (10, 11, 12, 13, 20, 21, 30, 32, 35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 88, 89, 90,
              100, 101, 103, 107, 110, 120, 121)


# =========================================================================== requirements


@dataclass(frozen=True, slots=True)
class Requirement:
    """The minimum PTX ISA version and target of a form or of one of its modifiers.

    suffix "a": an architecture-specific feature (`.target sm_90a`); "f": a family-specific feature
    (`sm_100f`, also satisfied by `sm_100a` and later members of the family, e.g. `sm_103f`).
    """

    ptx: tuple[int, int] = (1, 0)
    sm: int = 10
    suffix: str = ""

    @property
    def arch_specific(self) -> bool:
        return self.suffix == "a"

    @property
    def family_specific(self) -> bool:
        return self.suffix == "f"

    @property
    def target(self) -> str:
        return f"sm_{self.sm}{self.suffix}"

    def __str__(self) -> str:
        return f"PTX ISA {self.ptx[0]}.{self.ptx[1]}, {self.target}"

    def join(self, other: "Requirement") -> "Requirement":
        """Both requirements at once: the later version, the stricter target."""
        ptx = max(self.ptx, other.ptx)
        a, b = (self, other) if (self.sm, _SUFFIX_RANK[self.suffix]) >= (other.sm, _SUFFIX_RANK[other.suffix]) else (other, self)
        suffix = a.suffix
        if a.sm == b.sm or (b.suffix and a.sm // 10 == b.sm // 10):
            suffix = max(a.suffix, b.suffix, key=_SUFFIX_RANK.__getitem__)
        return Requirement(ptx, a.sm, suffix)

    def ptx_ok(self, version: tuple[int, int]) -> bool:
        return tuple(version) >= self.ptx

    def target_ok(self, target: str) -> bool:
        """Whether `.target <target>` (e.g. "sm_90a") provides this feature."""
        sm, suffix = parse_target(target)
        if not self.suffix:
            return sm >= self.sm
        if self.suffix == "a":
            # arch-specific features exist only on `a` targets of the same major family
            return suffix == "a" and sm >= self.sm and sm // 10 == self.sm // 10
        return suffix in ("a", "f") and sm >= self.sm and sm // 10 == self.sm // 10

    def problems(self, version: tuple[int, int], target: str) -> list[str]:
        """Compiler-style reasons why a module of `version` for `target` cannot use the feature."""
        out = []
        if not self.ptx_ok(version):
            out.append(f"requires PTX ISA {self.ptx[0]}.{self.ptx[1]} or later")
        if not self.target_ok(target):
            if self.suffix == "a":
                out.append(f"requires .target {self.target} (architecture-specific)")
            elif self.suffix == "f":
                out.append(f"requires .target {self.target} or a later target of its family")
            else:
                out.append(f"requires .target sm_{self.sm} or higher")
        return out


_SUFFIX_RANK = {"": 0, "f": 1, "a": 2}
BASE = Requirement()
_TARGET_RE = re.compile(r"sm_(\d+)([af]?)$")


def parse_target(target: str) -> tuple[int, str]:
    """"sm_90a" -> (90, "a"); "sm_80" -> (80, "")."""
    m = _TARGET_RE.match(target.strip())
    if not m:
        raise ValueError(f"bad target {target!r}")
    return int(m.group(1)), m.group(2)


_REQ_CACHE: dict[str, Requirement] = {}


def requirement(text: Union[str, Requirement, None]) -> Requirement:
    """"7.8 sm_90" / "8.0 sm_90a" / "2.0" / "sm_20" -> Requirement."""
    if text is None:
        return BASE
    if isinstance(text, Requirement):
        return text
    r = _REQ_CACHE.get(text)
    if r is not None:
        return r
    ptx, sm, suffix = (1, 0), 10, ""
    for word in text.split():
        if word.startswith("sm_"):
            sm, suffix = parse_target(word)
        else:
            major, minor = word.split(".")
            ptx = (int(major), int(minor))
    r = _REQ_CACHE[text] = Requirement(ptx, sm, suffix)
    return r


# =========================================================================== operands


class Kind(Enum):
    REG = "reg"  # a register (or special register where the instruction reads one)
    RI = "ri"  # a register or an immediate (constant expression, incl. a symbol's address)
    IMM = "imm"  # an immediate only
    PRED = "pred"  # a predicate register (`negate` says whether `!p` may be written)
    ADDR = "addr"  # [address]: [reg], [reg+imm], [var], [var+imm], [imm]
    VEC = "vec"  # {a, b, ...}; with `vec_slot`, a scalar register when the slot is absent
    PAIR = "pair"  # d|p: a destination and a predicate destination (`second`)
    LABEL = "label"  # a branch target label
    SYMBOL = "symbol"  # a variable, function or label name (call targets, .calltargets lists ...)
    PARAMS = "params"  # (a, b, ...) of call
    BRACKET = "bracket"  # [tex, sampler, {coords}] and friends; `elements` describe the parts
    SINK = "sink"  # `_` only


class Role(Enum):
    DST = "dst"
    SRC = "src"
    INOUT = "inout"  # read and written (wgmma accumulators, vop merges)


@dataclass(frozen=True, slots=True)
class OperandSpec:
    name: str
    kind: Kind
    role: Role = Role.SRC
    type: Optional[str] = None  # fixed type name; "ptr" = a pointer-sized integer; None = untyped/from slot
    type_slot: Optional[str] = None  # the slot whose value is this operand's type
    wide: bool = False  # twice as wide as the slot's type (mul.wide d)
    pack: bool = False  # elements narrower than 32 bits are packed into .b32 registers (mma fragments)
    optional: bool = False
    negate: str = ""  # "!" or "-": the operand may be written negated
    sink: bool = False  # may be written `_`
    vec_slot: Optional[str] = None  # VEC: slot whose value (v2/v4/v8) gives the count; absent -> scalar
    count: Optional[int] = None  # VEC: fixed element count (None and no vec_slot: any)
    value: Optional[int] = None  # IMM written as a literal in the syntax (`16`)
    second: Optional[str] = None  # PAIR: the name of the predicate half
    second_optional: bool = False
    selector: Optional[str] = None  # name of the operand suffix (asel, bsel, dsel, mask, unified)
    selector_values: tuple[str, ...] = ()
    selector_optional: bool = True
    elements: tuple["OperandSpec", ...] = ()  # BRACKET / PARAMS parts
    alt: tuple[Kind, ...] = ()  # other kinds also accepted here (a-desc or [a-tmem]: RI with alt ADDR)

    @property
    def imm_ok(self) -> bool:
        return self.kind in (Kind.RI, Kind.IMM) or Kind.RI in self.alt or Kind.IMM in self.alt

    @property
    def reg_ok(self) -> bool:
        return self.kind in (Kind.REG, Kind.RI, Kind.PRED, Kind.VEC, Kind.PAIR)

    @property
    def is_dst(self) -> bool:
        return self.role is not Role.SRC

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class Slot:
    name: str
    values: tuple[str, ...]
    optional: bool
    is_type: bool  # every value is a PTX type name


@dataclass(frozen=True, slots=True)
class Element:
    """One position of the modifier chain."""

    slot: Optional[str]  # slot name; None for fixed tokens
    values: tuple[tuple[str, ...], ...]  # token sequences it accepts (one for fixed tokens)
    optional: bool
    is_type: bool
    ordered: bool = False  # keeps its place relative to other ordered elements when reordering
    by_first: Mapping[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)

    @property
    def text(self) -> str:
        body = "." + (self.slot if self.slot else ".".join(self.values[0]))
        return "{" + body + "}" if self.optional else body


# =========================================================================== the form


@dataclass(frozen=True, eq=False)
class Form:
    """One row of the table: an opcode, its modifier elements, its operands and its requirements."""

    opcode: str
    syntax: str  # the row as written
    family: str
    elements: tuple[Element, ...]
    slots: Mapping[str, Slot]
    operands: tuple[OperandSpec, ...]
    requires: Requirement
    reqs: tuple[tuple[Callable[[Mapping], bool], Requirement, str], ...] = ()
    checks: tuple[tuple[Callable[[Mapping], bool], str], ...] = ()
    operand_reqs: tuple[tuple[str, Requirement], ...] = ()  # an optional operand that, written, needs more
    operand_rules: tuple[tuple[Callable[[Mapping, frozenset], bool], str], ...] = ()  # (values, written names)
    relaxed: bool = False  # ISA 9.4.1: operands may be wider than the instruction type (ld/st/cvt)
    undefined: Optional[str] = None  # where the ISA leaves a result undefined / unspecified
    note: str = ""
    deprecated: Optional[str] = None
    sem: str = ""  # semantic key (defaults to the opcode) for the engine's dispatch
    counts: Mapping[str, Callable[[Mapping], int]] = field(default_factory=dict)  # operand -> element count
    removed: Optional[Requirement] = None  # not available from this PTX version and target on (both)
    index: int = -1  # position in FORMS

    # ----------------------------------------------------------------- derived facts
    @property
    def has_dst(self) -> bool:
        return bool(self.operands) and self.operands[0].is_dst

    @property
    def min_ptx(self) -> tuple[int, int]:
        return self.requires.ptx

    @property
    def min_sm(self) -> int:
        return self.requires.sm

    @property
    def arch_specific(self) -> bool:
        return self.requires.arch_specific

    @property
    def vec_slot(self) -> Optional[str]:
        for o in self.operands:
            if o.vec_slot:
                return o.vec_slot
        return None

    @property
    def type_slots(self) -> tuple[str, ...]:
        return tuple(e.slot for e in self.elements if e.is_type and e.slot)

    @property
    def head(self) -> str:
        return self.syntax.split(None, 1)[0]

    def operand(self, name: str) -> OperandSpec:
        for o in self.operands:
            if o.name == name:
                return o
        raise KeyError(name)

    def operand_problems(self, values: Mapping, present: Sequence[str]) -> list[str]:
        """Rules that tie modifiers to the optional operands written (`present`: operand names)."""
        written = frozenset(present)
        return [msg for pred, msg in self.operand_rules if not pred(values, written)]

    def __repr__(self) -> str:
        return f"<Form #{self.index} {self.family}: {self.syntax}>"

    # ----------------------------------------------------------------- spelling
    def spell(self, values: Mapping[str, Any]) -> tuple[str, ...]:
        """The modifiers, in the manual's order, for slot values / present optional tokens `values`."""
        out: list[str] = []
        for e in self.elements:
            if e.slot:
                v = values.get(e.slot)
                if v is None or v is False:
                    if not e.optional:
                        raise KeyError(f"slot .{e.slot} of {self.head} needs a value")
                    continue
                out.extend(v.split("."))
            else:
                key = ".".join(e.values[0])
                if e.optional and not values.get(key):
                    continue
                out.extend(e.values[0])
        return tuple(out)

    def canonical(self) -> tuple[str, ...]:
        """The shortest spelling: the first value of every required slot, no optional element."""
        return self.spell({e.slot: ".".join(e.values[0]) for e in self.elements if e.slot and not e.optional})

    def choices(self) -> list[list[Optional[tuple[str, Any]]]]:
        """Per element, the (key, value) choices; None means 'absent' for optional elements."""
        out = []
        for e in self.elements:
            opts: list[Optional[tuple[str, Any]]] = [None] if e.optional else []
            if e.slot:
                opts += [(e.slot, ".".join(v)) for v in e.values]
            else:
                opts.append((".".join(e.values[0]), True))
            out.append(opts)
        return out

    def count_spellings(self) -> int:
        n = 1
        for c in self.choices():
            n *= len(c)
        return n

    def spellings(self, limit: Optional[int] = None, seed: int = 0) -> Iterator[tuple[dict, tuple[str, ...]]]:
        """Every (values, modifiers) this form accepts in canonical order; a deterministic sample of
        `limit` of them when there are more. Constraint checks (`checks`) are applied."""
        import itertools
        import random

        choices = self.choices()
        total = self.count_spellings()

        def build(combo):
            vals = {k: v for c in combo if c is not None for k, v in [c]}
            return vals, self.spell(vals)

        if limit is None or total <= limit:
            it = itertools.product(*choices)
        else:
            rng = random.Random(seed * 7919 + self.index)
            # every value of every element at least once, then random combinations
            base = [c[-1] for c in choices]
            picks = []
            for i, c in enumerate(choices):
                for opt in c:
                    combo = list(base)
                    combo[i] = opt
                    picks.append(tuple(combo))
            while len(picks) < limit:
                picks.append(tuple(rng.choice(c) for c in choices))
            it = iter(picks)
        for combo in it:
            vals, mods = build(combo)
            if all(pred(vals) for pred, _ in self.checks):
                yield vals, mods


# =========================================================================== the registry

# Rows are recorded when the family modules are imported and turned into Form objects the first
# time their opcode is looked up (forms_for) or the whole table is used (FORMS): importing the
# table stays cheap, and a program that uses 40 opcodes builds about 40 opcodes' worth of rows.
_PENDING: dict[str, list[tuple[int, str, str, dict, dict]]] = {}  # opcode -> rows not built yet
_BY_OPCODE: dict[str, list[Form]] = {}
_ALL: list[Optional[Form]] = []  # by index
_OPCODE_RE = re.compile(r"\s*([A-Za-z_][\w]*)")


class _FormTable:
    """FORMS: every Form of the table, in row order (a read-only sequence; builds pending rows)."""

    def _all(self) -> list[Form]:
        if _PENDING:
            for op in list(_PENDING):
                _build_opcode(op)
        return _ALL  # type: ignore[return-value]

    def __len__(self) -> int:
        return len(_ALL)

    def __iter__(self):
        return iter(self._all())

    def __getitem__(self, i):
        return self._all()[i]

    def __repr__(self) -> str:
        return f"<FORMS: {len(_ALL)} forms of {len(set(_PENDING) | set(_BY_OPCODE))} opcodes>"


FORMS = _FormTable()


def _build_opcode(opcode: str) -> None:
    rows = _PENDING.pop(opcode, None)
    if rows is None:
        return
    built = _BY_OPCODE.setdefault(opcode, [])
    for index, syntax, family, shared, args in rows:
        form = make_form(syntax, family, shared_slots=shared, **args)
        object.__setattr__(form, "index", index)
        _ALL[index] = form
        built.append(form)
    built.sort(key=lambda f: f.index)


def forms_for(opcode: str) -> tuple[Form, ...]:
    """Every form of `opcode` ("ld", "mma", "cp"), in table order."""
    if opcode in _PENDING:
        _build_opcode(opcode)
    return tuple(_BY_OPCODE.get(opcode, ()))


def opcodes() -> tuple[str, ...]:
    """Every opcode of the table, in the order of their first row."""
    seen: dict[str, None] = {}
    for op in list(_BY_OPCODE) + list(_PENDING):
        seen[op] = None
    return tuple(sorted(seen, key=lambda op: _FIRST_ROW[op]))


_FIRST_ROW: dict[str, int] = {}


def _record(syntax: str, family: str, shared: dict, args: dict) -> None:
    opcode = _OPCODE_RE.match(syntax).group(1)
    index = len(_ALL)
    _ALL.append(None)
    _FIRST_ROW.setdefault(opcode, index)
    _PENDING.setdefault(opcode, []).append((index, syntax, family, shared, args))


# =========================================================================== parsing a row

_MOD_RE = re.compile(r"\{\.([^{}]+)\}|\.([^.{}\s]+)")
_NAME_RE = re.compile(r"[A-Za-z_%$][\w\-:]*|\d+")


def _split_head(syntax: str) -> tuple[str, str]:
    syntax = " ".join(syntax.split())
    depth = 0
    for i, ch in enumerate(syntax):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == " " and depth == 0:
            return syntax[:i], syntax[i + 1:].strip().rstrip(";").strip()
    return syntax.rstrip(";"), ""


def _parse_head(head: str) -> tuple[str, list[tuple[str, bool]]]:
    """"add{.rnd}.f32" -> ("add", [("rnd", True), ("f32", False)]); group names keep their dots."""
    m = re.match(r"[A-Za-z_][\w]*", head)
    if not m:
        raise ValueError(f"bad syntax head {head!r}")
    opcode = m.group(0)
    rest = head[m.end():]
    out = []
    pos = 0
    while pos < len(rest):
        m = _MOD_RE.match(rest, pos)
        if not m:
            raise ValueError(f"bad modifier syntax at {rest[pos:]!r} in {head!r}")
        if m.group(1) is not None:
            out.append((m.group(1), True))
        else:
            out.append((m.group(2), False))
        pos = m.end()
    return opcode, out


@dataclass
class _Raw:
    name: str
    kind: str  # name, vec, addr, bracket, params, literal, sink
    optional: bool = False
    negate: str = ""
    second: Optional[str] = None
    second_optional: bool = False
    selector: Optional[str] = None
    selector_optional: bool = True
    elements: list = field(default_factory=list)


class _OpParser:
    def __init__(self, text: str):
        self.s = text
        self.i = 0

    def ws(self):
        while self.i < len(self.s) and self.s[self.i] in " \t\n":
            self.i += 1

    def peek(self, k=1) -> str:
        return self.s[self.i:self.i + k]

    def match_close(self, open_ch, close_ch) -> int:
        depth = 0
        for j in range(self.i, len(self.s)):
            if self.s[j] == open_ch:
                depth += 1
            elif self.s[j] == close_ch:
                depth -= 1
                if depth == 0:
                    return j
        raise ValueError(f"unbalanced {open_ch} in {self.s!r}")

    def items(self, end: Optional[int] = None, optional=False) -> list[_Raw]:
        end = len(self.s) if end is None else end
        out: list[_Raw] = []
        while True:
            self.ws()
            if self.i >= end:
                return out
            ch = self.s[self.i]
            if ch == ",":
                self.i += 1
                continue
            if ch == "{":
                j = self.match_close("{", "}")
                inner = self.s[self.i + 1:j]
                if inner.strip().startswith(","):  # {, x}: optional operand(s)
                    sub = _OpParser(inner.strip()[1:])
                    out.extend(sub.items(optional=True))
                    self.i = j + 1
                    continue
                if inner.strip().endswith(","):  # {b,}: optional element of a bracket list
                    sub = _OpParser(inner.strip()[:-1])
                    out.extend(sub.items(optional=True))
                    self.i = j + 1
                    continue
                if inner in ("!", "-"):
                    self.i = j + 1
                    item = self.item()
                    item.negate = inner
                    item.optional = item.optional or optional
                    out.append(item)
                    continue
                # vector literal
                sub = _OpParser(inner)
                elems = sub.items()
                self.i = j + 1
                item = _Raw(elems[0].name, "vec", elements=elems)
                self.suffixes(item)
                item.optional = optional
                out.append(item)
                continue
            item = self.item()
            item.optional = item.optional or optional
            out.append(item)

    def item(self) -> _Raw:
        self.ws()
        ch = self.s[self.i]
        if ch == "[":
            j = self.match_close("[", "]")
            sub = _OpParser(self.s[self.i + 1:j])
            elems = sub.items()
            self.i = j + 1
            if len(elems) == 1 and elems[0].kind == "name" and not elems[0].optional:
                item = _Raw(elems[0].name, "addr")
            else:
                item = _Raw(elems[0].name, "bracket", elements=elems)
            self.suffixes(item)
            return item
        if ch == "(":
            j = self.match_close("(", ")")
            name = self.s[self.i + 1:j].strip()
            self.i = j + 1
            return _Raw(name, "params")
        m = _NAME_RE.match(self.s, self.i)
        if not m:
            raise ValueError(f"bad operand syntax at {self.s[self.i:]!r}")
        self.i = m.end()
        name = m.group(0)
        if name == "_":
            return _Raw("_", "sink")
        item = _Raw(name, "literal" if name.isdigit() else "name")
        self.suffixes(item)
        return item

    def suffixes(self, item: _Raw):
        while self.i < len(self.s):
            rest = self.s[self.i:]
            if rest.startswith("{|"):
                j = self.s.index("}", self.i)
                item.second, item.second_optional = self.s[self.i + 2:j].strip(), True
                item.kind = "pair"
                self.i = j + 1
            elif rest.startswith("|"):
                self.i += 1
                m = _NAME_RE.match(self.s, self.i)
                item.second, item.second_optional = m.group(0), False
                item.kind = "pair"
                self.i = m.end()
            elif rest.startswith("{."):
                j = self.s.index("}", self.i)
                item.selector, item.selector_optional = self.s[self.i + 2:j].strip(), True
                self.i = j + 1
            elif rest.startswith(".") and item.kind == "name":
                m = _NAME_RE.match(self.s, self.i + 1)
                item.selector, item.selector_optional = m.group(0), False
                self.i = m.end()
            else:
                return


# names whose defaults differ from "a source register-or-immediate of the form's type"
NAME_DEFAULTS: dict[str, str] = {
    "cache-policy": "reg b64",
    "membermask": "ri b32",
    "immLut": "imm b32",
    "imm-reg-count": "imm u32",
    "N": "imm u32",
    "cp-size": "imm u32",
    "src-size": "ri u32",
    "ignore-src": "pred",
    "tgt": "label",
    "ctaMask": "ri b16",
    "byteMask": "ri b16",
    "size": "ri u32",
    "rbits": "reg b32",
    "idesc": "ri b32",
    "a-desc": "ri b64",
    "b-desc": "ri b64",
    "enable-input-d": "pred",
    "scale-input-d": "imm u32",
    "disable-output-lane": "vec b32",
    "zero-column-mask-desc": "ri b64",
    "taddr": "reg b32",
    "nCols": "ri u32",
    "txCount": "ri u32",
    "tx_count": "ri u32",
    "phaseParity": "ri u32",
    "suspendTimeHint": "ri u32",
    "waitComplete": "out pred",
    "immHalfSplitoff": "imm u32",
    "immAlign": "imm u32",
}


_SPEC_KINDS = {k.value: k for k in Kind}
_SPEC_ROLES = {"out": Role.DST, "in": Role.SRC, "inout": Role.INOUT}


def _apply_spec(base: dict, spec: str) -> dict:
    """Operand spec language, space separated words:
    out | in | inout                       the role
    reg | ri | imm | pred | addr | vec | label | symbol | params | bracket | sink    the kind
    <type>: u32, b64, pred ...; ptr (a pointer-sized integer: .u32 or .u64); =slot (type from a slot);
    =slot*2 (twice as wide as the slot's type)
    sink (may be `_`), nosink, ! (may be negated), opt, n=4 (vector count), vec=slot, any (untyped)
    """
    d = dict(base)
    for w in spec.split():
        if w in _SPEC_ROLES:
            d["role"] = _SPEC_ROLES[w]
        elif w == "sink":
            d["sink"] = True
        elif w == "pack":
            d["pack"] = True
        elif w == "pred" and d.get("kind") in (Kind.PAIR, Kind.VEC):
            d["type"], d["type_slot"] = "pred", None
        elif w in _SPEC_KINDS:
            d["kind"] = _SPEC_KINDS[w]
            d["kindset"] = True
            if w == "pred":
                d["type"], d["type_slot"] = "pred", None
        elif w == "sink":
            d["sink"] = True
        elif w == "nosink":
            d["sink"] = False
        elif w == "!":
            d["negate"] = "!"
        elif w == "opt":
            d["optional"] = True
        elif w == "any":
            d["type"], d["type_slot"] = None, None
        elif w.startswith("|"):
            d["alt"] = tuple(d.get("alt", ())) + (_SPEC_KINDS[w[1:]],)
        elif w.startswith("n="):
            d["count"] = int(w[2:])
        elif w.startswith("vec="):
            d["vec_slot"] = w[4:]
            d["kind"] = Kind.VEC
        elif w.startswith("="):
            slot = w[1:]
            d["wide"] = slot.endswith("*2")
            d["type_slot"], d["type"] = slot.removesuffix("*2"), None
        elif w in TYPE_NAMES or w == "ptr":
            d["type"], d["type_slot"] = w, None
        else:
            raise ValueError(f"bad operand spec word {w!r} in {spec!r}")
    return d


# make_form's own keywords: a slot with one of these names must be passed in `slots={...}`
_RESERVED = frozenset(("since", "req", "ops", "check", "excl", "slots", "undefined", "note", "deprecated",
                       "semkey", "nodst", "ordered", "orule", "family", "counts", "removed"))

# first operands that are sources even though they are written first
_SRC_FIRST = {"a", "tgt", "index", "membermask", "t", "N", "imm-reg-count", "taddr", "fptr", "func", "b"}


class _Shared:
    """Slot dictionaries shared by the rows of a family file."""


_STRIPPED: dict[int, tuple] = {}


def _strip_dots(values: tuple) -> tuple[str, ...]:
    """Value lists without leading dots; the big shared lists (video selectors) are converted once."""
    r = _STRIPPED.get(id(values))
    if r is None or r[0] is not values:
        r = _STRIPPED[id(values)] = (values, tuple(x.lstrip(".") for x in values))
    return r[1]


def _type_of_values(values: Sequence[str]) -> bool:
    return bool(values) and all(v in TYPE_NAMES for v in values)


def make_form(
    syntax: str,
    family: str,
    *,
    shared_slots: Mapping[str, Sequence[str]] = {},
    since: Union[str, Requirement, None] = None,
    req: Optional[Mapping[str, str]] = None,
    ops: Optional[Mapping[str, str]] = None,
    check: Sequence[tuple[Callable[[Mapping], bool], str]] = (),
    excl: Sequence[tuple[str, str]] = (),
    slots: Optional[Mapping[str, Sequence[str]]] = None,
    relaxed: bool = False,
    undefined: Optional[str] = None,
    note: str = "",
    deprecated: Optional[str] = None,
    semkey: Optional[str] = None,
    nodst: bool = False,
    ordered: Sequence[str] = (),
    orule: Sequence[tuple[Callable[[Mapping, frozenset], bool], str]] = (),
    counts: Optional[Mapping[str, Callable[[Mapping], int]]] = None,
    removed: Optional[str] = None,
    ops_defaults: Optional[Mapping[str, str]] = None,
    **slot_kw: Sequence[str],
) -> Form:
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}")
    head, optext = _split_head(syntax)
    opcode, mods = _parse_head(head)
    slotdefs: dict[str, tuple[str, ...]] = {}
    for src in (shared_slots, slots or {}, slot_kw):
        for k, v in src.items():
            slotdefs[k] = (v,) if isinstance(v, str) else tuple(v)

    elements: list[Element] = []
    slot_infos: dict[str, Slot] = {}
    for name, optional in mods:
        if name in slotdefs:
            vals = tuple(tuple(v.lstrip(".").split(".")) for v in slotdefs[name])
            is_type = _type_of_values([".".join(v) for v in vals])
            if name in slot_infos:
                raise ValueError(f"slot {name} used twice in {syntax!r}")
            slot_infos[name] = Slot(name, tuple(".".join(v) for v in vals), optional, is_type)
            elements.append(Element(name, vals, optional, is_type))
        else:
            toks = tuple(name.split("."))
            if name in _RESERVED:
                raise ValueError(f".{name} in {syntax!r} would be a fixed token: give its values as slots={{...}}")
            elements.append(Element(None, (toks,), optional, len(toks) == 1 and toks[0] in TYPE_NAMES))
    # ordered elements: type elements, requested ones, and slots sharing a value with another element
    seen: dict[str, int] = {}
    clash: set[int] = set()
    for i, e in enumerate(elements):
        for v in e.values:
            for t in v:
                if t in seen and seen[t] != i:
                    clash.update((i, seen[t]))
                seen.setdefault(t, i)
    final = []
    for i, e in enumerate(elements):
        by_first: dict[str, list] = {}
        for v in e.values:
            by_first.setdefault(v[0], []).append(v)
        final.append(Element(e.slot, e.values, e.optional, e.is_type,
                             ordered=e.is_type or i in clash or (e.slot in ordered),
                             by_first={k: tuple(v) for k, v in by_first.items()}))
    elements = final

    type_elems = [e for e in elements if e.is_type]

    def type_ref(e: Element):
        return (None, e.slot) if e.slot else (e.values[0][0], None)

    dst_t = type_ref(type_elems[0]) if type_elems else (None, None)
    src_t = type_ref(type_elems[-1]) if type_elems else (None, None)
    vec_slots = [n for n in slot_infos if n == "vec" or n.startswith("vec_")]

    raws = _OpParser(optext).items() if optext else []
    operands = []
    ops = dict(ops or {})
    for idx, r in enumerate(raws):
        first = idx == 0
        is_dst = (first and not nodst and r.kind in ("name", "vec", "pair", "sink") and r.name not in _SRC_FIRST)
        d: dict[str, Any] = dict(name=r.name, role=Role.DST if is_dst else Role.SRC, optional=r.optional,
                                 negate=r.negate)
        # type: slot named after the operand, else the form's destination / source type
        tslot = f"{r.name}type"
        if tslot in slot_infos and slot_infos[tslot].is_type:
            d["type_slot"] = tslot
        else:
            t, s = dst_t if is_dst else src_t
            d["type"], d["type_slot"] = t, s
        if r.kind == "sink":
            d.update(kind=Kind.SINK, sink=True, type=None, type_slot=None)
        elif r.kind == "literal":
            d.update(kind=Kind.IMM, value=int(r.name))
        elif r.kind == "addr":
            d.update(kind=Kind.ADDR, type=None, type_slot=None)
            if r.selector:
                d.update(selector=r.selector, selector_values=(r.selector,), selector_optional=r.selector_optional)
        elif r.kind == "params":
            d.update(kind=Kind.PARAMS, type=None, type_slot=None)
        elif r.kind == "bracket":
            elems = []
            for k, e in enumerate(r.elements):
                if e.kind == "vec":
                    elems.append(OperandSpec(e.name, Kind.VEC, Role.SRC, optional=e.optional, count=len(e.elements)))
                else:
                    elems.append(OperandSpec(e.name, Kind.RI if k else Kind.REG, Role.SRC, optional=e.optional))
            d.update(kind=Kind.BRACKET, elements=tuple(elems), type=None, type_slot=None)
        elif r.kind == "vec":
            d.update(kind=Kind.VEC, count=len(r.elements), sink=is_dst,
                     elements=tuple(OperandSpec(e.name, Kind.SINK if e.kind == "sink" else Kind.REG,
                                                d["role"]) for e in r.elements))
        elif r.kind == "pair":
            d.update(kind=Kind.PAIR, second=r.second, second_optional=r.second_optional)
        else:
            d["kind"] = Kind.REG if is_dst else Kind.RI
            if r.negate == "!":
                d.update(kind=Kind.PRED, type="pred", type_slot=None)
        if r.selector and r.kind != "addr":
            sv = slotdefs.get(r.selector, (r.selector,))
            d.update(selector=r.selector, selector_optional=r.selector_optional, selector_values=_strip_dots(sv))
        if d.get("type") == "pred" and d["kind"] in (Kind.REG, Kind.RI):
            d["kind"] = Kind.PRED
        # vector-width slot: the data operand (destination of a load, data source of a store)
        if vec_slots and r.kind == "name" and "vec_slot" not in d:
            data_idx = 0 if operands == [] and is_dst else None
            if data_idx is None and not any(o.vec_slot for o in operands) and idx > 0 and raws[idx - 1].kind == "addr":
                data_idx = idx
            if data_idx is not None:
                d.update(kind=Kind.VEC, vec_slot=vec_slots[0], sink=True)
        if r.name in NAME_DEFAULTS and r.kind == "name":
            d = _apply_spec(d, NAME_DEFAULTS[r.name])
        if ops_defaults and r.name in ops_defaults:
            d = _apply_spec(d, ops_defaults[r.name])
        if r.name in ops:
            d = _apply_spec(d, ops.pop(r.name))
        elif r.second and r.second in ops:
            pass
        if d["kind"] == Kind.PRED and d.get("type") is None:
            d["type"] = "pred"
        d.pop("kindset", None)
        operands.append(OperandSpec(**d))
    if ops:
        raise ValueError(f"ops for unknown operands {sorted(ops)} in {syntax!r}")
    for name in counts or {}:
        if name not in {o.name for o in operands}:
            raise ValueError(f"counts for unknown operand {name!r} in {syntax!r}")

    # conditions for per-modifier requirements: ".tok" | "slot" | "slot=v1|v2"
    reqs = []
    operand_reqs = []
    known = set(shared_slots) | set(_KNOWN_SLOT_NAMES)
    names = ({o.name for o in operands} | {o.second for o in operands if o.second}
             | {o.selector for o in operands if o.selector})
    for key, text in (req or {}).items():
        if callable(key):  # a predicate over the slot values, named by its __doc__ or __name__
            reqs.append((key, requirement(text), (key.__doc__ or key.__name__).strip()))
            continue
        if key.startswith("operand:"):
            if key[8:] not in names:
                raise ValueError(f"requirement key {key!r}: no such operand in {syntax!r}")
            operand_reqs.append((key[8:], requirement(text)))
            continue
        cond = _condition(key, slot_infos, elements, syntax, known)
        if cond is not None:
            reqs.append((cond, requirement(text), key))
    checks = list(check)
    for a, b in excl:
        ca, cb = _condition(a, slot_infos, elements, syntax), _condition(b, slot_infos, elements, syntax)
        checks.append(((lambda v, ca=ca, cb=cb: not (ca(v) and cb(v))), f"{a} cannot be combined with {b}"))

    form = Form(
        opcode=opcode, syntax=" ".join(syntax.split()), family=family, elements=tuple(elements),
        slots=slot_infos, operands=tuple(operands), requires=requirement(since), reqs=tuple(reqs),
        checks=tuple(checks), operand_reqs=tuple(operand_reqs), operand_rules=tuple(orule), relaxed=relaxed, undefined=undefined, note=note, deprecated=deprecated,
        sem=semkey or opcode, counts=dict(counts or {}),
        removed=requirement(removed) if removed else None,
    )
    return form


# slot names a shared requirement dictionary may name although a given row lacks that slot
_KNOWN_SLOT_NAMES = frozenset(("sem", "scope", "space", "ss", "level::cache_hint", "level::prefetch_size", "cta_group",
                               "level1::eviction_priority", "level2::eviction_priority", "vec", "type", "cop", "dim", "geom"))


def _condition(key: str, slot_infos, elements, syntax, known=frozenset()) -> Optional[Callable[[Mapping], bool]]:
    if key.startswith("."):
        tok = key[1:]
        fixed = {".".join(e.values[0]) for e in elements if not e.slot}
        slot_names = [n for n, s in slot_infos.items() if tok in s.values]
        if tok not in fixed and not slot_names:
            raise ValueError(f"requirement key {key!r} names no modifier of {syntax!r}")
        return lambda v, tok=tok, names=tuple(slot_names): bool(v.get(tok)) or any(v.get(n) == tok for n in names)
    if "=" in key:
        slot, _, vals = key.partition("=")
        if slot not in slot_infos and slot in known:
            return None
        if slot not in slot_infos:
            raise ValueError(f"requirement key {key!r}: no slot {slot} in {syntax!r}")
        allowed = frozenset(vals.split("|")) & set(slot_infos[slot].values)  # shared dicts may name more
        if not allowed and slot in known:
            return None
        if not allowed:
            raise ValueError(f"requirement key {key!r}: no value of .{slot} in {syntax!r}")
        return lambda v, slot=slot, allowed=allowed: v.get(slot) in allowed
    if key in slot_infos:
        return lambda v, slot=key: v.get(slot) is not None
    if key in known:
        return None
    raise ValueError(f"bad requirement key {key!r} for {syntax!r}")


def builder(family: str, *, slots: Optional[Mapping[str, Sequence[str]]] = None,
            ops: Optional[Mapping[str, str]] = None, **defaults):
    """`F = builder("integer", slots=SHARED)`; then `F("add.type d, a, b", type=INT, since="1.0")`.

    Each call records one row of the table (built into a Form on first use of its opcode).
    `defaults` are keyword defaults for every row of the file (e.g. `relaxed=True`); `ops` are
    operand specs applied to every row that has an operand of that name.
    """
    shared = dict(slots or {})
    if ops:
        defaults = dict(defaults, ops_defaults=dict(ops))
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}")

    def F(syntax: str, **kw) -> None:
        args = dict(defaults)
        args.update(kw)
        fam = args.pop("family", family)
        _record(syntax, fam, shared, args)

    return F


def build_all() -> None:
    """Build every pending row now (the table tests do; errors in a row surface here)."""
    FORMS._all()


# value lists shared by several families
RND = ("rn", "rz", "rm", "rp")
IRND = ("rni", "rzi", "rmi", "rpi")


def types_of(*names: str) -> tuple[str, ...]:
    for n in names:
        if n not in TYPES:
            raise KeyError(n)
    return names


def lane_type(t: PtxType) -> Optional[PtxType]:
    return TYPES.get(t.lane) if t.lane else None


__all__ = [
    "FAMILIES", "PTX_VERSIONS", "SM_TARGETS", "Requirement", "requirement", "parse_target", "Kind", "Role",
    "OperandSpec", "Slot", "Element", "Form", "FORMS", "forms_for", "opcodes", "builder", "make_form", "build_all",
    "NAME_DEFAULTS", "RND", "IRND", "TypeKind",
]
