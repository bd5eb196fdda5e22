"""What counts as one "form" for coverage: a row of the ISA table times one choice of its type
modifiers (add.type with .u32, cvt with .f16 <- .f32, ...). Rounding, ftz, sat and the like are
not separate units: a unit is verified when every case that lands on it is.

Falls back to grouping cases by their spelling when the ISA table cannot be imported.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Optional

from .check import CaseResult

SPELLING_LIMIT = 20000


@dataclass
class Unit:
    key: str
    family: str
    opcode: str
    syntax: str
    types: tuple
    requirement: str = ""
    on_sm90: bool = True
    undefined_note: str = ""
    cases: list = field(default_factory=list)  # CaseResult
    order: tuple = ()
    words: frozenset = frozenset()              # literal modifiers of the form (refusals match them)

    def status(self) -> tuple[str, str]:
        """(status, detail) for the coverage table and the summary."""
        if not self.on_sm90:
            return "unsupported_sm90", f"needs {self.requirement}"
        if not self.cases:
            if engine_refuses(self.opcode, self.words):
                why = refusal_reason(self.opcode) or "the engine refuses this form (a clear error)"
                return "not_implemented", f"no conformance case; {why}"
            if engine_runs(self.opcode):
                return "untested", "no conformance case yet (the engine runs this opcode)"
            return "not_implemented", "no conformance case; the engine has no lowering for this opcode"
        by = {}
        for c in self.cases:
            by.setdefault(c.status, []).append(c)
        if "differs" in by:
            c = by["differs"][0]
            return "differs", f"{c.id}: {c.reason}"
        if "error" in by:
            c = by["error"][0]
            return "not_implemented", f"{c.id}: engine error: {c.reason}"
        if "not_implemented" in by:
            c = by["not_implemented"][0]
            return "not_implemented", f"{c.id}: {c.reason}"
        if "verified" in by:
            extra = ""
            if "undefined" in by:
                extra = f"; {len(by['undefined'])} undefined-result case(s) not compared"
            return "verified", f"{len(by['verified'])} case(s){extra}"
        if "undefined" in by:
            return "undefined", by["undefined"][0].reason
        if "unsupported_sm90" in by:
            return "unsupported_sm90", by["unsupported_sm90"][0].reason
        c = self.cases[0]
        if all(x.status == "not_recorded" for x in self.cases) and engine_runs(self.opcode):
            # the engine runs it; the GPU (its driver) would not run any of the cases
            return "not_recorded", f"{c.id}: {c.reason}".strip()
        return "not_implemented", f"{c.id}: {c.status} {c.reason}".strip()


@lru_cache(maxsize=None)
def engine_runs(opcode: str) -> bool:
    """Whether the engine lowers this opcode at all (its own lowering or a lane function). Says
    nothing of every modifier and type: only a conformance case shows that."""
    try:
        from ptxvm.engine.dispatch import ENGINE_LOWERINGS
        from ptxvm.semantics import families  # noqa: F401  (registers every family)
        from ptxvm.semantics.registry import SEMANTICS
    except Exception:  # noqa: BLE001
        return False
    return opcode in ENGINE_LOWERINGS or opcode in SEMANTICS


def engine_refuses(opcode: str, words) -> bool:
    """Whether the engine's lowering refuses this form by name (ENGINE_REFUSES: sets of
    modifiers that, all present, make it raise a clear error)."""
    try:
        from ptxvm.engine.dispatch import ENGINE_REFUSES
    except Exception:  # noqa: BLE001
        return False
    return any(r <= set(words) for r in ENGINE_REFUSES.get(opcode, ()))


def refusal_reason(opcode: str) -> str:
    try:
        from ptxvm.engine.dispatch import REFUSAL_REASONS
    except Exception:  # noqa: BLE001
        return ""
    return REFUSAL_REASONS.get(opcode, "")


def _literal_words(syntax: str) -> frozenset:
    """The fixed modifiers of a syntax line (wgmma.mma_async.sp.sync... -> mma_async, sp, ...);
    optional {.x} parts are left out."""
    head = syntax.split()[0]
    depth, word, out = 0, "", []
    for ch in head + ".":
        if ch == "{":
            if depth == 0 and word:
                out.append(word)
            word = ""
            depth += 1
        elif ch == "}":
            depth -= 1
            word = ""
        elif ch == "." and depth == 0:
            out.append(word)
            word = ""
        elif depth == 0:
            word += ch
    return frozenset(w for w in out[1:] if w)


def _type_name(v) -> str:
    return "-" if v is None else str(v)


@lru_cache(maxsize=1)
def isa_table():
    """(units by key, mapper) from ptxvm.isa, or None when the table is not usable."""
    try:
        return _isa_table()
    except Exception:  # noqa: BLE001  (a table being edited must not break the checker)
        return None


def _isa_table():
    import ptxvm.isa as isa
    units: dict[str, Unit] = {}
    for f in isa.FORMS:
        ts = f.type_slots
        combos: dict[tuple, tuple] = {}
        try:
            n = f.count_spellings()
            if n <= SPELLING_LIMIT:
                for values, mods in f.spellings():
                    combo = tuple(values.get(s) for s in ts)
                    combos.setdefault(combo, mods)
            else:
                lists = [((None,) if f.slots[s].optional else ()) + tuple(f.slots[s].values) for s in ts]
                for combo in itertools.product(*lists):
                    combos.setdefault(combo, None)
        except Exception:  # noqa: BLE001
            combos = {tuple(None for _ in ts): None}
        if not combos:
            continue
        for combo, mods in combos.items():
            req = f.requires
            if mods is not None:
                try:
                    req = isa.match(f.opcode, mods).requirement
                except Exception:  # noqa: BLE001
                    pass
            try:
                on90 = req.target_ok("sm_90a")
            except Exception:  # noqa: BLE001
                on90 = True
            key = unit_key(f.syntax, combo)
            units[key] = Unit(key=key, family=f.family, opcode=f.opcode, syntax=f.syntax,
                              types=tuple(_type_name(c) for c in combo), requirement=str(req),
                              on_sm90=on90, undefined_note=f.undefined or "",
                              order=(f.index, tuple(_type_name(c) for c in combo)),
                              words=_literal_words(f.syntax) | frozenset(mods or ()))

    def mapper(opcode: str, modifiers) -> Optional[str]:
        try:
            m = isa.match(opcode, tuple(modifiers))
        except Exception:  # noqa: BLE001
            return None
        combo = tuple(m.values.get(s) for s in m.form.type_slots)
        return unit_key(m.form.syntax, combo)

    return units, mapper


def unit_key(syntax: str, combo) -> str:
    t = ",".join(_type_name(c) for c in combo)
    return f"{syntax} [{t}]" if combo else syntax


def build_units(results: list[CaseResult], cases_without_results=()) -> tuple[dict[str, Unit], list[CaseResult], bool]:
    """Units with their case results attached. Returns (units, unmapped results, from_isa_table).

    `cases_without_results`: (family, opcode, modifiers, id) of cases in the case list that have
    no golden yet; they map the unit but add no result (the unit stays not_implemented)."""
    table = isa_table()
    unmapped = []
    if table is None:
        units: dict[str, Unit] = {}
        for r in results:
            key = r.instruction
            u = units.setdefault(key, Unit(key=key, family=r.family, opcode=r.opcode, syntax=r.instruction,
                                           types=(), order=(r.family, r.instruction)))
            u.cases.append(r)
        return units, unmapped, False
    base, mapper = table
    units = {k: Unit(**{**u.__dict__, "cases": []}) for k, u in base.items()}
    for r in results:
        key = mapper(r.opcode, r.modifiers)
        if key is None or key not in units:
            unmapped.append(r)
            continue
        units[key].cases.append(r)
    return units, unmapped, True


def summary(units: dict[str, Unit], results: list[CaseResult], unmapped: list, from_table: bool) -> dict:
    from .check import summarize_cases
    s = {"forms_total": len(units), "verified": 0, "differs": 0, "unsupported_sm90": 0,
         "not_implemented": 0, "untested": 0, "undefined": 0, "not_recorded": 0}
    for u in units.values():
        st, _ = u.status()
        s[st] = s.get(st, 0) + 1
    s["forms_source"] = "ptxvm.isa" if from_table else "case list (ISA table unavailable)"
    s["cases"] = summarize_cases(results)
    s["cases_outside_isa_table"] = len(unmapped)
    return s
