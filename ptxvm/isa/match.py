"""Matching an instruction spelling (opcode + modifiers) against the form table.

    m = match("ld", ("global", "nc", "v4", "f32"))
    m.form.family == "memory"; m.get("vec") == "v4"; m.vec == 4; m.type.name == "f32"

Modifier order: a spelling in the manual's order matches directly. ptxas accepts most modifiers in
any order (`add.ftz.rn.f32`, `ld.nc.global.f32`, `setp.f32.lt`, `red.add.global.u32`, checked with
ptxas 13.0), keeping types in their relative order (`cvt.f32.s32` is not `cvt.s32.f32`). When no form
matches in the manual's order, the matcher tries again with every non-type modifier free to move
(type slots, and slots whose values clash such as mma's `.row.col` layouts, keep their relative
order). Such a match has `reordered=True`; the printer writes the canonical order.

Results, failures included, are memoized on (opcode, modifiers).
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence, Union

from .table import FORMS, Element, Form, Kind, OperandSpec, Requirement, Role, forms_for, opcodes
from .types import TYPES, PtxType, TypeKind


class MatchError(ValueError):
    """No form accepts the spelling. `code` is one of: unknown-opcode, unknown-modifier,
    not-allowed, missing, constraint, ambiguous."""

    def __init__(self, message: str, opcode: str, modifiers: tuple[str, ...], code: str,
                 form: Optional[Form] = None):
        super().__init__(message)
        self.message = message
        self.opcode = opcode
        self.modifiers = modifiers
        self.code = code
        self.form = form  # the closest form, when one was found

    @property
    def spelling(self) -> str:
        return ".".join((self.opcode,) + self.modifiers)


@dataclass(frozen=True, eq=False, slots=True)
class ResolvedOperand:
    """An operand spec with its concrete type (and vector count) for one match."""

    spec: OperandSpec
    type: Optional[PtxType]  # None: untyped (addresses, labels) or a pointer-sized integer (spec.type == "ptr")
    count: Optional[int] = None  # VEC: number of elements (1: written as a scalar); None: any

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def kind(self) -> Kind:
        return self.spec.kind

    @property
    def role(self) -> Role:
        return self.spec.role

    @property
    def imm_ok(self) -> bool:
        return self.spec.imm_ok

    @property
    def optional(self) -> bool:
        return self.spec.optional

    @property
    def is_dst(self) -> bool:
        return self.spec.is_dst

    @property
    def is_vector(self) -> bool:
        return self.spec.kind is Kind.VEC and self.count != 1


@dataclass(frozen=True, eq=False, slots=True)
class Match:
    form: Form
    values: Mapping[str, Union[str, bool]]  # slot -> value ("rn"); present optional fixed tokens -> True
    modifiers: tuple[str, ...]  # as written
    reordered: bool  # written in an order other than the manual's
    types: Mapping[str, PtxType]  # type slot -> type
    type: Optional[PtxType]  # the instruction type: the last type modifier (cvt: the source type)
    type_list: tuple[PtxType, ...]  # every type modifier, in order
    operands: tuple[ResolvedOperand, ...]
    requirement: Requirement  # the form's requirement joined with those of the modifiers used
    requirement_notes: tuple[str, ...]  # which modifiers raised the requirement
    vec: int  # vector width from the .vec slot (1 when absent)

    # ------------------------------------------------------------------ convenience
    def get(self, slot: str, default: Any = None) -> Any:
        v = self.values.get(slot)
        return default if v is None else v

    def has(self, flag: str) -> bool:
        """Whether `.flag` was written: an optional fixed token, a slot value, or a required token."""
        flag = flag.lstrip(".")
        if self.values.get(flag):
            return True
        return flag in self.modifiers

    @property
    def opcode(self) -> str:
        return self.form.opcode

    @property
    def family(self) -> str:
        return self.form.family

    @property
    def has_dst(self) -> bool:
        return self.form.has_dst

    @property
    def min_ptx(self) -> tuple[int, int]:
        return self.requirement.ptx

    @property
    def min_sm(self) -> int:
        return self.requirement.sm

    @property
    def arch_specific(self) -> bool:
        return self.requirement.arch_specific

    @property
    def canonical(self) -> tuple[str, ...]:
        """The modifiers in the manual's order."""
        return self.form.spell(self.values)

    @property
    def name(self) -> str:
        return ".".join((self.form.opcode,) + self.canonical)

    def operand(self, name: str) -> ResolvedOperand:
        for o in self.operands:
            if o.spec.name == name:
                return o
        raise KeyError(name)

    def requirement_with(self, present: Sequence[str]) -> Requirement:
        """The requirement once the optional operands written (`present`, by name) are counted."""
        req = self.requirement
        for name, r in self.form.operand_reqs:
            if name in present:
                req = req.join(r)
        return req

    def problems(self, version: tuple[int, int], target: str, present: Optional[Sequence[str]] = None) -> list[str]:
        """Why this instruction cannot be used in a module of PTX `version` for `.target target`
        (with `present`, the names of the optional operands written, their requirements count too)."""
        req = self.requirement if present is None else self.requirement_with(present)
        out = [f"{self.name} {p}" for p in req.problems(version, target)]
        gone = self.form.removed
        if gone is not None and tuple(version) >= gone.ptx and gone.target_ok(target):
            out.append(f"{self.name} is not supported from PTX ISA {gone.ptx[0]}.{gone.ptx[1]} on "
                       f"sm_{gone.sm} and later targets" + (f" ({self.form.deprecated})" if self.form.deprecated else ""))
        if present is not None:
            out += [f"{self.name}: {p}" for p in self.form.operand_problems(self.values, present)]
        return out


# =========================================================================== matching one form


def _strict(elems: tuple[Element, ...], mods: tuple[str, ...], limit: int = 2) -> list[dict]:
    """Assignments of `mods`, in order, to `elems`."""
    out: list[dict] = []
    n, m = len(elems), len(mods)
    cur: dict = {}

    def rec(i: int, j: int) -> None:
        if len(out) >= limit:
            return
        if i == n:
            if j == m:
                out.append(dict(cur))
            return
        e = elems[i]
        if e.optional:
            rec(i + 1, j)
        if j < m:
            for val in e.by_first.get(mods[j], ()):
                k = len(val)
                if k == 1 or mods[j:j + k] == val:
                    key = e.slot or ".".join(val)
                    cur[key] = ".".join(val) if e.slot else True
                    rec(i + 1, j + k)
                    del cur[key]

    rec(0, 0)
    return out


def _relaxed(elems: tuple[Element, ...], mods: tuple[str, ...], limit: int = 2) -> list[dict]:
    """Assignments of `mods` to `elems` where unordered elements may sit anywhere."""
    out: list[dict] = []
    n, m = len(elems), len(mods)
    used = [False] * m
    cur: dict = {}

    def rec(i: int, last: int) -> None:
        if len(out) >= limit:
            return
        if i == n:
            if all(used):
                out.append(dict(cur))
            return
        e = elems[i]
        if e.optional:
            rec(i + 1, last)
        for val in e.values:
            key = e.slot or ".".join(val)
            if e.ordered:
                # contiguous, after the previous ordered element
                k = len(val)
                for j in range(last + 1, m - k + 1):
                    if mods[j:j + k] == val and not any(used[j:j + k]):
                        for t in range(j, j + k):
                            used[t] = True
                        cur[key] = ".".join(val) if e.slot else True
                        rec(i + 1, j + k - 1)
                        del cur[key]
                        for t in range(j, j + k):
                            used[t] = False
            else:
                picks = []
                for tok in val:
                    for j in range(m):
                        if not used[j] and mods[j] == tok and j not in picks:
                            picks.append(j)
                            break
                    else:
                        break
                else:
                    for j in picks:
                        used[j] = True
                    cur[key] = ".".join(val) if e.slot else True
                    rec(i + 1, last)
                    del cur[key]
                    for j in picks:
                        used[j] = False

    rec(0, -1)
    return out


def _diagnose_form(form: Form, mods: tuple[str, ...]) -> tuple[list[str], list[Element], dict]:
    """Greedy, order-free: which tokens no element takes, which required elements get nothing."""
    left = list(mods)
    missing: list[Element] = []
    vals: dict = {}
    for e in form.elements:
        best = None
        for val in sorted(e.values, key=len, reverse=True):
            tmp = list(left)
            ok = True
            for tok in val:
                if tok in tmp:
                    tmp.remove(tok)
                else:
                    ok = False
                    break
            if ok:
                best = (val, tmp)
                break
        if best:
            left = best[1]
            key = e.slot or ".".join(best[0])
            vals[key] = ".".join(best[0]) if e.slot else True
        elif not e.optional:
            missing.append(e)
    return left, missing, vals


# =========================================================================== the matcher

_CACHE: dict[tuple[str, tuple[str, ...]], Union[Match, MatchError]] = {}
_VOCAB: dict[str, frozenset[str]] = {}


def _vocab(opcode: str) -> frozenset[str]:
    v = _VOCAB.get(opcode)
    if v is None:
        toks = set()
        for f in forms_for(opcode):
            for e in f.elements:
                for val in e.values:
                    toks.update(val)
        v = _VOCAB[opcode] = frozenset(toks)
    return v


def _wide(t: PtxType) -> PtxType:
    prefix = {TypeKind.UNSIGNED: "u", TypeKind.SIGNED: "s", TypeKind.BIT: "b", TypeKind.FLOAT: "f"}[t.kind]
    return TYPES[f"{prefix}{t.bits * 2}"]


def _build(form: Form, vals: dict, mods: tuple[str, ...], reordered: bool) -> Match:
    types: dict[str, PtxType] = {}
    type_list: list[PtxType] = []
    for e in form.elements:
        if not e.is_type:
            continue
        if e.slot:
            v = vals.get(e.slot)
            if v is None:
                continue
            t = TYPES[v]
            types[e.slot] = t
        else:
            if e.optional and not vals.get(e.values[0][0]):
                continue
            t = TYPES[e.values[0][0]]
        type_list.append(t)
    ops = []
    vec = 1
    for spec in form.operands:
        t: Optional[PtxType] = None
        if spec.type_slot:
            v = vals.get(spec.type_slot)
            if v is not None:
                t = TYPES.get(v)
        elif spec.type:
            t = TYPES.get(spec.type)
        if t is not None and spec.wide:
            t = _wide(t)
        if t is not None and spec.pack and t.bits < 32:
            t = TYPES["b32"]  # packed fragment registers (two .f16, four .e4m3 ... per .b32)
        count = spec.count
        fn = form.counts.get(spec.name)
        if fn is not None:
            count = fn(vals)
        if spec.vec_slot:
            v = vals.get(spec.vec_slot)
            count = int(v[1:]) if v else 1
            vec = count
        ops.append(ResolvedOperand(spec, t, count))
    req = form.requires
    notes = []
    for cond, r, key in form.reqs:
        if cond(vals):
            joined = req.join(r)
            if joined != req:
                notes.append(f"{key}: {r}")
            req = joined
    if not types and len(type_list) == 1:
        types["type"] = type_list[0]  # a single fixed type (add.f32) is "the type"
    return Match(form, vals, mods, reordered, types, type_list[-1] if type_list else None, tuple(type_list),
                 tuple(ops), req, tuple(notes), vec)


def _lookup(opcode: str, mods: tuple[str, ...]) -> Union[Match, MatchError]:
    forms = forms_for(opcode)
    if not forms:
        close = difflib.get_close_matches(opcode, opcodes(), n=1)
        hint = f" (did you mean \"{close[0]}\"?)" if close else ""
        return MatchError(f"unknown instruction \"{opcode}\"{hint}", opcode, mods, "unknown-opcode")
    spelled = ".".join((opcode,) + mods)
    vocab = _vocab(opcode)
    for tok in mods:
        if tok not in vocab:
            return MatchError(f"unknown modifier \".{tok}\" for {opcode}", opcode, mods, "unknown-modifier")
    failed_check: Optional[tuple[Form, str]] = None
    for reordered, fn in ((False, _strict), (True, _relaxed)):
        found: list[tuple[Form, dict]] = []
        for form in forms:
            for vals in fn(form.elements, mods):
                bad = next((msg for pred, msg in form.checks if not pred(vals)), None)
                if bad is not None:
                    failed_check = failed_check or (form, bad)
                    continue
                if not any(f is form and v == vals for f, v in found):
                    found.append((form, vals))
        if len(found) == 1:
            form, vals = found[0]
            return _build(form, vals, mods, reordered)
        if len(found) > 1:
            rows = "; ".join(f.syntax for f, _ in found[:3])
            return MatchError(f"\"{spelled}\" is ambiguous: it matches {rows}", opcode, mods, "ambiguous",
                              found[0][0])
    if failed_check is not None:
        form, msg = failed_check
        return MatchError(f"\"{spelled}\": {msg}", opcode, mods, "constraint", form)
    # no form: find the closest one
    best = None
    for form in forms:
        extra, missing, vals = _diagnose_form(form, mods)
        score = (len(extra) + len(missing), len(missing))
        if best is None or score < best[0]:
            best = (score, form, extra, missing)
    _, form, extra, missing = best
    dup = next((t for t in mods if mods.count(t) > 1 and t in extra), None)
    if dup is not None:
        return MatchError(f"\"{spelled}\": repeated modifier \".{dup}\"", opcode, mods, "not-allowed", form)
    if extra:
        rest = [t for t in mods]
        for t in extra:
            rest.remove(t)
        base = ".".join([opcode] + rest)
        toks = ", ".join(f"\".{t}\"" for t in extra)
        verb = "is" if len(extra) == 1 else "are"
        msg = f"{toks} {verb} not allowed with \"{base}\""
        if missing:
            msg += f" (and {_describe(missing[0])} is missing)"
        return MatchError(msg, opcode, mods, "not-allowed", form)
    if missing:
        return MatchError(f"\"{spelled}\": missing {_describe(missing[0])}", opcode, mods, "missing", form)
    return MatchError(f"\"{spelled}\": modifiers out of order (expected {form.head})", opcode, mods,
                      "not-allowed", form)


def _describe(e: Element) -> str:
    if e.slot:
        vals = [".".join(v) for v in e.values]
        shown = ", ".join("." + v for v in vals[:8]) + (", ..." if len(vals) > 8 else "")
        what = "type" if e.is_type else "modifier"
        return f"{what} .{e.slot} (one of {shown})"
    return f"\".{'.'.join(e.values[0])}\""


def lookup(opcode: str, modifiers: tuple[str, ...]) -> Union[Match, MatchError]:
    """Like `match`, but returns the MatchError instead of raising it."""
    key = (opcode, modifiers)
    r = _CACHE.get(key)
    if r is None:
        r = _CACHE[key] = _lookup(opcode, tuple(modifiers))
    return r


def match(opcode: str, modifiers: tuple[str, ...] = ()) -> Match:
    """The form and slot values of `opcode.mod1.mod2...`; raises MatchError with a precise message."""
    key = (opcode, modifiers)
    r = _CACHE.get(key)
    if r is None:
        r = _CACHE[key] = _lookup(opcode, tuple(modifiers))
    if isinstance(r, MatchError):
        raise MatchError(r.message, r.opcode, r.modifiers, r.code, r.form)
    return r


def match_name(name: str) -> Match:
    """`match_name("ld.global.nc.v4.f32")`: split at the dots (`::` stays inside a modifier)."""
    parts = name.split(".")
    return match(parts[0], tuple(parts[1:]))


def clear_cache() -> None:
    _CACHE.clear()
    _VOCAB.clear()
