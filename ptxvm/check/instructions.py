"""Instructions: the spelling (opcode + modifiers) against the form table, what the form needs of
.version and .target, operand count and assignment, and the few rules on operand *values* that
ptxas enforces (barrier numbers, register counts, copy sizes).

Everything here is memoized: a *plan* per spelling (the Match, or the error, plus the module's
version/target problems), and the full result per (spelling, guard shape, operand shapes) — see
operands.py for shapes. A 30,000-line module has a few thousand distinct keys.

A few rules the form table does not express (yet) are kept here, each marked; they only add
problems to spellings the table accepts, so they stay right if the table learns them:
- cvt rounding (ISA 9.7.9.21, ptxas 13.0): integer rounding (.rni ...) is required for float to
  integer and for nothing else but same-size float rounding; float rounding (.rn ...) is required
  for int to float and for narrowing float to float, illegal elsewhere; .ftz needs a float type.
- setp/set comparisons and the type (ptxas: "Mismatch between instruction type and comparison
  qualifier"): bit types compare with .eq/.ne only, signed with the ordered six, unsigned also with
  .lo/.ls/.hi/.hs, floats not with those four.
- 256-bit loads and stores (.v8 of 32-bit, .v4 of 64-bit elements) need PTX 8.8, sm_100 and .global.
"""
from __future__ import annotations

from typing import Callable, Optional

from ..isa import lookup
from ..isa.match import Match, MatchError
from ..isa.table import Kind
from ..isa.types import TypeKind
from . import spaces
from .context import Context
from .names import NAME
from .operands import OperandRules, assign, undef_names

Result = tuple[int, str, str]  # (operand index | -1 instruction | -2 guard, message, severity)


class Plan:
    __slots__ = ("spelling", "opcode", "match", "error", "problems", "rules", "single_addr", "extra", "operand_reqs",
                 "label_operands", "addr_spaces")

    def __init__(self, spelling: str, opcode: str):
        self.spelling = spelling
        self.opcode = opcode
        self.match: Optional[Match] = None
        self.error: Optional[str] = None
        self.problems: list[str] = []
        self.rules: Optional[OperandRules] = None
        self.single_addr = False
        self.extra: list[str] = []
        self.operand_reqs = False
        self.label_operands: frozenset[int] = frozenset()  # positions of branch-target operands
        self.addr_spaces: dict[int, str] = {}  # several addresses: operand position -> its state space


class InstructionRules:
    """The instruction rules of one verification run (memo tables live as long as the run)."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.plans: dict[tuple, Plan] = {}
        self.target = ctx.target if ctx.sm_named else None
        self.texture_rule = _texture_mode(ctx)

    # ------------------------------------------------------------------ plans
    def plan(self, opcode: str, modifiers: tuple[str, ...]) -> Plan:
        key = (opcode, modifiers)
        p = self.plans.get(key)
        if p is None:
            p = self.plans[key] = self._plan(opcode, modifiers)
        return p

    def _plan(self, opcode: str, modifiers: tuple[str, ...]) -> Plan:
        spelling = ".".join((opcode,) + modifiers)
        p = Plan(spelling, opcode)
        r = lookup(opcode, modifiers)
        if isinstance(r, MatchError):
            p.error = spaces.space_error_message(opcode, modifiers, r.message)
            return p
        m = r
        p.match = m
        p.problems = self.requirement_problems(m, None)
        ctx = self.ctx
        p.rules = OperandRules(m, spelling, ctx.address_size, ctx.version if ctx.version_known else (99, 0),
                               ctx.sm if ctx.sm_named else None)
        addrs = [i for i, o in enumerate(m.operands) if o.spec.kind is Kind.ADDR]
        p.single_addr = len(addrs) == 1
        named = [tok for tok in m.modifiers if tok in spaces.SPACE_NAMES]
        if len(addrs) > 1 and len(named) > 1:
            # cp.async.ca.shared.global [dst], [src]: the spaces, in order, of the first addresses
            p.addr_spaces = dict(zip(addrs, named))
        p.operand_reqs = bool(m.form.operand_reqs or m.form.operand_rules)
        p.label_operands = frozenset(i for i, o in enumerate(m.operands) if o.spec.kind is Kind.LABEL
                                     and not any(x.spec.optional for x in m.operands[:i]))
        for rule in PLAN_RULES.get(opcode, ()):
            p.extra.extend(rule(self, m))
        return p

    def requirement_problems(self, m: Match, present) -> list[str]:
        ctx = self.ctx
        version = ctx.version if ctx.version_known else (99, 0)
        if self.target is None:  # no sm target: reported once at .target; check versions only
            req = m.requirement if present is None else m.requirement_with(present)
            return [f"{m.name} {p}" for p in req.problems(version, "sm_1000a") if "PTX ISA" in p]
        try:
            return m.problems(version, self.target, present)
        except (TypeError, ValueError):
            return m.problems(version, self.target)

    # ------------------------------------------------------------------ one instruction
    def check(self, opcode: str, modifiers: tuple[str, ...], gshape, shapes: tuple) -> tuple[Result, ...]:
        """The problems of one instruction (memoized by the caller, walk.py)."""
        return tuple(self._check(self.plan(opcode, modifiers), gshape, shapes))

    def _check(self, plan: Plan, gshape, shapes: tuple) -> list[Result]:
        out: list[Result] = []
        if gshape is not None:
            out.extend((-2, msg, "error") for msg in guard_problems(gshape))
        labels = plan.label_operands
        for i, s in enumerate(shapes):
            for name, hint in undef_names(s, []):
                if i in labels and s[0] == "undef":
                    out.append((i, f"label '{name}' is not declared", "error"))
                else:
                    out.append((i, undeclared_message(name, hint), "error"))
        if plan.error is not None:
            out.append((-1, plan.error, "error"))
            return out
        m = plan.match
        specs = m.operands
        idx = assign(specs, shapes, m)
        if idx is None:
            out.append((-1, count_message(plan.spelling, specs, len(shapes)), "error"))
            out.extend((-1, p, "error") for p in plan.problems)
            return out
        for j, i in enumerate(idx):  # `[a].unified`: only where the form has the suffix (ld, .global or generic)
            if shapes[j][0] == "addr" and len(shapes[j]) > 3:
                if specs[i].spec.selector != "unified":
                    out.append((j, f"{plan.spelling} does not take .unified after its address (only ld does)", "error"))
                elif m.values.get("ss") not in (None, "global"):
                    out.append((j, f".unified goes with .global or generic addresses, not .{m.values['ss']}", "error"))
        if plan.operand_reqs:
            present = [specs[i].spec.name for i in idx if specs[i].spec.optional]
            # video operand selectors written (d.dsel goes with c); `[a].unified`
            present += [specs[i].spec.selector for j, i in enumerate(idx)
                        if specs[i].spec.selector and (shapes[j][0] == "reg" and shapes[j][2] is not None
                                                       and len(shapes[j][2]) > 1
                                                       or shapes[j][0] == "addr" and len(shapes[j]) > 3)]
            out.extend((-1, p, "error") for p in self.requirement_problems(m, present))
        else:
            out.extend((-1, p, "error") for p in plan.problems)
        out.extend((-1, p, "error") for p in plan.extra)
        rules = plan.rules
        ctx = self.ctx
        assigned = []
        addr_spaces = plan.addr_spaces
        for j, i in enumerate(idx):
            ro = specs[i]
            shape = shapes[j]
            assigned.append((ro, shape, j))
            for msg in rules.check(ro, shape, j):
                out.append((j, msg, "error"))
            if shape[0] == "int":
                for msg in rules.warnings(ro, shape):
                    out.append((j, msg, "warning"))
            if ro.spec.kind is Kind.ADDR and shape[0] in ("addr", "elem") and not rules.texture_handle:
                if plan.single_addr:
                    found = spaces.address_rules(rules, m, shape, ctx.address_size, ctx.sm,
                                                 given=ctx.address_size_given)
                else:
                    found = spaces.address_rules(rules, m, shape, ctx.address_size, ctx.sm, False,
                                                 addr_spaces.get(i, spaces.UNKNOWN), given=ctx.address_size_given)
                for sev, msg in found:
                    out.append((j, msg, sev))
        for rule in VALUE_RULES.get(plan.opcode, ()):
            out.extend(rule(plan, assigned))
        if plan.opcode in ("tex", "tld4"):
            out.extend(self.texture_rule(plan, assigned))
        return out


# ====================================================================== messages


def undeclared_message(name: str, hint) -> str:
    if hint is not None:
        count, prefix = hint
        return (f"'{name}' is not declared ({prefix}<{count}> declares {prefix}0 to "
                f"{prefix}{count - 1})" if count else f"'{name}' is not declared")
    if name.startswith("%"):
        return f"'{name}' is not declared (no register or special register of that name)"
    return f"unknown symbol '{name}'"


def count_message(spelling: str, specs, n: int) -> str:
    k = len(specs)
    r = sum(1 for s in specs if not s.spec.optional)
    want = f"{r}" if r == k else f"{r} to {k}"
    noun = "operand" if k == 1 and r == 1 else "operands"
    if k == 0:
        return f"{spelling} takes no operands ({n} given)"
    return f"{spelling} takes {want} {noun}, {n} given"


def guard_problems(gshape) -> list[str]:
    tag = gshape[0]
    if tag == "reg":
        if gshape[1].type != "pred":
            return [f"the guard must be a .pred register, not .{gshape[1].type}"]
        return []
    if tag == "undef":
        return [undeclared_message(gshape[1], gshape[2])]
    if tag == "sreg":
        return [f"the guard must be a .pred register, not special register {gshape[1].name}"]
    return ["the guard must be a .pred register"]


def _int_value(shape) -> Optional[int]:
    return shape[1] if shape[0] == "int" else None


# ====================================================================== value rules


def _barrier(plan: Plan, assigned) -> list[Result]:
    out = []
    arrive = "arrive" in plan.match.modifiers
    for ro, shape, j in assigned:
        v = _int_value(shape)
        if v is None:
            continue
        if ro.spec.name == "a" and not 0 <= v <= 15:
            shown = v & ((1 << 64) - 1)
            out.append((j, f"barrier number {shown} is out of range [0..15]", "error"))
        elif ro.spec.name == "b" and arrive and v == 0:
            out.append((j, f"{plan.opcode}.arrive needs a non-zero thread count", "error"))
        elif ro.spec.name == "b" and v % 32 != 0:
            out.append((j, f"the number of threads taking part in a barrier must be a multiple of the warp "
                           f"size (32), not {v}", "error"))
    return out


def _setmaxnreg(plan: Plan, assigned) -> list[Result]:
    out = []
    for ro, shape, j in assigned:
        v = _int_value(shape)
        if v is None:
            continue
        if v % 8:
            out.append((j, f"register count {v} must be a multiple of 8", "error"))
        if not 24 <= v <= 256:
            out.append((j, f"register count {v} is out of range [24..256]", "error"))
    return out


def _pmevent(plan: Plan, assigned) -> list[Result]:
    out = []
    mask = "mask" in plan.match.modifiers
    for ro, shape, j in assigned:
        v = _int_value(shape)
        if v is None:
            continue
        if mask and not 0 <= v <= 0xFFFF:
            out.append((j, f"event mask {v:#x} does not fit 16 bits", "error"))
        elif not mask and not 0 <= v <= 15:
            out.append((j, f"performance monitor event {v} is out of range [0..15]", "error"))
    return out


def _size_128(plan: Plan, assigned) -> list[Result]:
    out = []
    for ro, shape, j in assigned:
        if ro.spec.name == "size" and ro.spec.kind is Kind.IMM:
            v = _int_value(shape)
            if v is not None and v != 128:
                out.append((j, f"size {v} must be 128 for {plan.opcode}", "error"))
    return out


# tensormap.replace's enumerated fields (ptxas 13): the values sm_90 takes, and the PTX ISA version
# that later values need
TENSORMAP_ENUMS = {"elemtype": (12, 15, "8.7"), "swizzle_mode": (3, 4, "8.8"), "interleave_layout": (2, 2, None),
                   "fill_mode": (1, 1, None)}


def _tensormap(plan: Plan, assigned) -> list[Result]:
    out = _size_128(plan, assigned)
    mods = plan.match.modifiers
    field = next((f for f in TENSORMAP_ENUMS if f in mods), None)
    for ro, shape, j in assigned:
        v = _int_value(shape)
        if v is None:
            continue
        if ro.spec.name == "ord" and not 0 <= v <= 4:
            out.append((j, f"ordinal {v} is out of range [0..4]", "error"))
        elif ro.spec.name == "new_val" and field is not None:
            top, last, later = TENSORMAP_ENUMS[field]
            if top < v <= last:
                out.append((j, f".{field} value {v} needs PTX ISA {later} or later (values 0..{top} here)", "error"))
            elif not 0 <= v <= last:
                out.append((j, f".{field} value {v} is out of range [0..{last}]", "error"))
    return out


def _cp(plan: Plan, assigned) -> list[Result]:
    out = []
    size = None
    for ro, shape, j in assigned:
        v = _int_value(shape)
        if ro.spec.name == "cp-size" or (ro.spec.kind is Kind.IMM and ro.spec.value is not None):
            size = ro.spec.value if ro.spec.value is not None else v
            if v is not None and v not in (4, 8, 16):
                out.append((j, f"copy size {v} is not one of 4, 8 or 16", "error"))
        elif ro.spec.name == "size" and v is not None and "bulk" in plan.match.modifiers and v % 16:
            out.append((j, f"bulk copy size {v} is not a multiple of 16", "error"))
        elif ro.spec.name == "src-size" and v is not None and size is not None and not 0 <= v <= size:
            out.append((j, f"source size {v} is out of range [0..{size}]", "error"))
        elif ro.spec.name == "mbar" and shape[0] == "addr" and shape[1] is not None and shape[1][0] == "sym":
            sym = shape[1][1]
            if sym.kind == "var" and spaces.base_space(sym.space) != "shared":
                out.append((j, f"state space mismatch: the mbarrier '{NAME}' is a .{sym.space} variable, not "
                               ".shared", "error"))
    return out


def _mbarrier_count(plan: Plan, assigned) -> list[Result]:
    mods = plan.match.modifiers
    if "arrive" not in mods and "arrive_drop" not in mods:
        return []
    return [(j, f"the arrival count must be positive, not {shape[1]}", "error") for ro, shape, j in assigned
            if ro.spec.name == "count" and shape[0] == "int" and shape[1] <= 0]


def _cvta_space(plan: Plan, assigned) -> list[Result]:
    """cvta.<space> of a variable's name: the variable must live in that space."""
    space = plan.match.values.get("space")
    if not isinstance(space, str) or "to" in plan.match.modifiers:
        return []
    out = []
    for ro, shape, j in assigned:
        if shape[0] == "sym" and shape[1].kind == "var":
            vs = spaces.base_space(shape[1].space)
            if vs != spaces.base_space(space):
                out.append((j, f"state space mismatch: '{NAME}' is a .{shape[1].space} variable, not .{space}",
                            "error"))
    return out


def _texture_mode(rules_ctx: Context):
    def rule(plan: Plan, assigned) -> list[Result]:
        out = []
        for ro, shape, j in assigned:
            if ro.spec.kind is not Kind.BRACKET or shape[0] != "brk":
                continue
            elems = shape[1]
            has_sampler = len(elems) >= 3 or (len(elems) == 2 and elems[1][0] != "vec")
            if has_sampler and not rules_ctx.texmode_independent:
                out.append((j, "a separate sampler needs .target texmode_independent (this module uses the "
                               "unified texture mode, where the texture reference carries its sampler)", "error"))
            elif not has_sampler and rules_ctx.texmode_independent and len(elems) == 2:
                out.append((j, "with .target texmode_independent, tex takes a sampler: [tex, sampler, coordinates]",
                            "error"))
        return out

    return rule


def _ranges(**limits):
    """A rule: constant operands named here must be in their set or range."""

    def rule(plan: Plan, assigned) -> list[Result]:
        out = []
        for ro, shape, j in assigned:
            allowed = limits.get(ro.spec.name.replace("-", "_"))
            v = _int_value(shape)
            if allowed is None or v is None:
                continue
            if isinstance(allowed, range):
                if v not in allowed:
                    out.append((j, f"{ro.spec.name} {v} is out of range [{allowed.start}..{allowed.stop - 1}]",
                                "error"))
            elif v not in allowed:
                shown = " or ".join(str(a) for a in allowed)
                out.append((j, f"{ro.spec.name} must be {shown}, not {v}", "error"))
        return out

    return rule


def _power_of_two(plan: Plan, assigned) -> list[Result]:
    out = []
    for ro, shape, j in assigned:
        v = _int_value(shape)
        if ro.spec.name == "immAlign" and v is not None and (v <= 0 or v & (v - 1)):
            out.append((j, f"alignment {v} is not a power of two", "error"))
    return out


def _sparsity_selector(plan: Plan, assigned) -> list[Result]:
    """mma.sp: the selector picks which lanes of each quad hold metadata; its range depends on
    how much metadata the shape needs (as ptxas 13 checks, which also lets m16n8k32 .f16 take
    0..3 where the ISA says 0..1, with an .f32 accumulator)."""
    v = plan.match.values
    if not v.get("spvariant") or v.get("kind"):
        return []
    from ..semantics.families.matrix import sparse_meta
    n = sparse_meta(v["shape"], v["atype"]).selectors
    if v["shape"] == "m16n8k32" and v["atype"] == "f16" and v["dtype"] == "f32":
        n = 4
    out = []
    for ro, shape, j in assigned:
        val = _int_value(shape)
        if ro.spec.name == "f" and val is not None and not 0 <= val < n:
            out.append((j, f"sparsity selector {val} is out of range [0..{n - 1}] for "
                           f".{v['shape']}.{v['atype']}", "error"))
    return out


def _wgmma_sparsity_selector(plan: Plan, assigned) -> list[Result]:
    """wgmma.mma_async.sp: sp-sel in 0..1 for .f16/.bf16/.tf32, 0 for fp8 and integers (ptxas 13)."""
    v = plan.match.values
    if "sp" not in plan.match.modifiers or "shape" not in v:
        return []
    from ..semantics.families.wgmma import sparse_meta
    n = sparse_meta(int(v["shape"].split("k")[1]), v["atype"]).selectors
    return [(j, f"sparsity selector {val} is out of range [0..{n - 1}] for .{v['atype']}", "error")
            for ro, shape, j in assigned
            if ro.spec.name == "sp-sel" and (val := _int_value(shape)) is not None and not 0 <= val < n]


def _wgmma_register_a(plan: Plan, assigned) -> list[Result]:
    """wgmma.mma_async with A in registers takes no imm-trans-a (ptxas: "Arguments mismatch")."""
    names = {ro.spec.name: (shape, j) for ro, shape, j in assigned}
    a = names.get("a-desc")
    if a is not None and a[0][0] == "vec" and "imm-trans-a" in names:
        return [(names["imm-trans-a"][1], "imm-trans-a is only given when A comes from a descriptor, "
                                          "not from registers", "error")]
    return []


def _generic_only(plan: Plan, assigned) -> list[Result]:
    """prefetchu takes a generic address: a register, or a .global variable (not a .shared one)."""
    return [(j, f"prefetchu needs a generic address: '{NAME}' is a .{shape[1][1].space} variable", "error")
            for ro, shape, j in assigned if shape[0] == "addr" and shape[1] is not None and shape[1][0] == "sym"
            and shape[1][1].kind == "var" and spaces.base_space(shape[1][1].space) != "global"]


def _vmad_negation(plan: Plan, assigned) -> list[Result]:
    """vmad negates (a*b) or c, not both (ptxas: "Operand negation limited to either (source A xor
    source B) or source C"), and nothing with .po."""
    neg = {ro.spec.name: j for ro, shape, j in assigned if shape[0] in ("reg", "sreg") and shape[3] == "-"}
    if not neg:
        return []
    j = max(neg.values())
    if "po" in plan.match.modifiers:
        return [(j, "vmad.po takes no negated operands", "error")]
    if "c" in neg and ("a" in neg) != ("b" in neg):
        return [(j, "operand negation limited to either (a xor b) or c", "error")]
    return []


def _mov_vector_vector(plan: Plan, assigned) -> list[Result]:
    """mov without .v2/.v4 packs or unpacks: ptxas 13.0/13.5 refuse a vector on both sides
    ("Illegal vector-vector operands"), a whole vector register counting as its braced elements."""
    if "v2" in plan.match.modifiers or "v4" in plan.match.modifiers or len(assigned) != 2:
        return []
    if all(shape[0] == "vec" for _, shape, _ in assigned):
        return [(1, "mov packs a vector into a scalar or unpacks a scalar into a vector; "
                    "both operands are vectors (write mov.v2/mov.v4 to copy vectors)", "error")]
    return []


def _branch_target_list(plan: Plan, assigned) -> list[Result]:
    """brx.idx's target list is a label declared by .branchtargets: ptxas refuses a code label or
    a register ("Label with '.branchtargets' directive expected") and a constant or an expression
    ("Arguments mismatch")."""
    for ro, shape, j in assigned:
        if ro.spec.name == "tlist" and shape[0] != "undef" and shape[:2] != ("label", "btargets"):
            what = {"label": "a code label", "reg": "a register", "int": "a constant", "flt": "a constant",
                    "sym": "a variable or function", "bad": "an expression"}.get(shape[0], "this operand")
            return [(j, f"brx.idx takes the label of a .branchtargets list as its target list, not {what}", "error")]
    return []


def _without_sync(plan: Plan, assigned) -> list[Result]:
    """shfl / vote without .sync (PTX before ISA 6.0): accepted, but on sm_70 and later the lanes of
    a warp need not run together, so ptxas 13 warns about the result; ptxvm runs it as the .sync
    form over the lanes that reach it together."""
    if "sync" in plan.match.modifiers or plan.problems:  # refused outright (PTX ISA 6.4+ on sm_70+)
        return []
    op = plan.match.form.opcode
    return [(-1, f"{op} without .sync: on sm_70 and later GPUs (this one is sm_90) a warp's lanes need not "
                 f"execute it together, so its result may differ from older GPUs' (write {op}.sync with a "
                 "member mask)", "warning")]


VALUE_RULES: dict[str, tuple[Callable, ...]] = {
    "brx": (_branch_target_list,),
    "shfl": (_without_sync,),
    "vote": (_without_sync,),
    "mov": (_mov_vector_vector,),
    "vmad": (_vmad_negation,),
    "alloca": (_power_of_two,),
    "prefetchu": (_generic_only,),
    "bfe": (_ranges(b=range(0, 256), c=range(0, 256)),),
    "bfi": (_ranges(c=range(0, 256), d=range(0, 256)),),
    "mma": (_sparsity_selector,),
    "wgmma": (_ranges(imm_scale_a=(-1, 1), imm_scale_b=(-1, 1), imm_trans_a=(0, 1), imm_trans_b=(0, 1)),
              _wgmma_register_a, _wgmma_sparsity_selector),
    "mbarrier": (_ranges(phaseParity=(0, 1)), _mbarrier_count),
    "fence": (_size_128,),
    "st": (_ranges(initval=(0,)),),
    "cvta": (_cvta_space,),
    "bar": (_barrier,),
    "barrier": (_barrier,),
    "setmaxnreg": (_setmaxnreg,),
    "cp": (_cp,),
    "discard": (_size_128,),
    "applypriority": (_size_128,),
    "tensormap": (_tensormap,),
    "pmevent": (_pmevent,),
}


# ====================================================================== spelling rules (table gaps)

_INT = (TypeKind.UNSIGNED, TypeKind.SIGNED, TypeKind.BIT)


def _cvt_rounding(rules: InstructionRules, m: Match) -> list[str]:
    if "irnd" not in m.form.slots or "frnd" not in m.form.slots:
        return []
    d, a = m.types.get("dtype"), m.types.get("atype")
    if d is None or a is None:
        return []
    irnd, frnd = m.values.get("irnd"), m.values.get("frnd")
    dfloat, afloat = d.kind is TypeKind.FLOAT, a.kind is TypeKind.FLOAT
    out = []
    if afloat and not dfloat:  # float -> int
        if frnd:
            out.append(f"{m.name}: illegal rounding modifier .{frnd} (float-to-integer conversions round "
                       "with .rni, .rzi, .rmi or .rpi)")
        elif not irnd:
            out.append(f"{m.name}: rounding modifier required (.rni, .rzi, .rmi or .rpi)")
    elif dfloat and not afloat:  # int -> float
        if irnd:
            out.append(f"{m.name}: illegal rounding modifier .{irnd} (integer-to-float conversions round "
                       "with .rn, .rz, .rm or .rp)")
        elif not frnd:
            out.append(f"{m.name}: rounding modifier required (.rn, .rz, .rm or .rp)")
    elif dfloat and afloat:
        if d.bits < a.bits:
            if irnd:
                out.append(f"{m.name}: illegal rounding modifier .{irnd} (narrowing conversions round with "
                           ".rn, .rz, .rm or .rp)")
            elif not frnd:
                out.append(f"{m.name}: rounding modifier required (.rn, .rz, .rm or .rp)")
        elif d.bits > a.bits:
            if irnd or frnd:
                out.append(f"{m.name}: illegal rounding modifier .{irnd or frnd} (widening conversions are exact)")
        elif d.name != a.name:  # f16 <-> bf16 (ptxas 13.0): float rounding optional, no .rni & co
            if irnd:
                out.append(f"{m.name}: illegal rounding modifier .{irnd} (converting between two float "
                           "formats rounds with .rn, .rz, .rm or .rp)")
        elif frnd:
            out.append(f"{m.name}: illegal rounding modifier .{frnd} (a same-size conversion may only round "
                       "to an integer: .rni, .rzi, .rmi, .rpi)")
    else:  # int -> int
        if irnd or frnd:
            out.append(f"{m.name}: illegal rounding modifier .{irnd or frnd} (integer-to-integer conversions "
                       "do not round)")
        if m.values.get("ftz"):
            out.append(f"{m.name}: .ftz applies to floating-point conversions only")
    return out


_SIGNED_CMP = frozenset(("eq", "ne", "lt", "le", "gt", "ge"))
_UNSIGNED_CMP = _SIGNED_CMP | {"lo", "ls", "hi", "hs"}
_FLOAT_CMP = _SIGNED_CMP | {"equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"}


def _comparison(rules: InstructionRules, m: Match) -> list[str]:
    cmp = m.values.get("CmpOp")
    if not isinstance(cmp, str):
        return []
    t = m.types.get("stype") or m.types.get("type")
    if t is None:
        return []
    if t.kind is TypeKind.BIT:
        ok = cmp in ("eq", "ne")
    elif t.kind is TypeKind.SIGNED:
        ok = cmp in _SIGNED_CMP
    elif t.kind is TypeKind.UNSIGNED:
        ok = cmp in _UNSIGNED_CMP
    elif t.kind is TypeKind.FLOAT:
        ok = cmp in _FLOAT_CMP
    else:
        ok = True
    if ok:
        return []
    return [f"{m.name}: comparison .{cmp} does not apply to .{t.name} operands"]


def _wide_vector(rules: InstructionRules, m: Match) -> list[str]:
    vec = m.values.get("vec")
    t = m.type
    if not isinstance(vec, str) or t is None:
        return []
    n = int(vec[1:])
    if n * t.bits <= 128:
        return []
    ctx = rules.ctx
    out = []
    if m.requirement.sm < 100:  # else the table knows
        if ctx.version_known and tuple(ctx.version) < (8, 8):
            out.append(f"{m.name}: 256-bit wide loads and stores require PTX ISA 8.8 or later")
        if rules.target is not None and ctx.sm < 100:
            out.append(f"{m.name}: 256-bit wide loads and stores require .target sm_100 or higher")
    space = spaces.instruction_space(m)
    if space not in (None, "global"):
        out.append(f"{m.name}: 256-bit wide loads and stores need the .global state space")
    return out


PLAN_RULES: dict[str, tuple[Callable, ...]] = {
    "cvt": (_cvt_rounding,),
    "setp": (_comparison,),
    "set": (_comparison,),
    "ld": (_wide_vector,),
    "st": (_wide_vector,),
}
