"""The matcher: slot values, types, operands, requirements, reordering, diagnostics, memoization."""

import pytest

from ptxvm.isa import Kind, MatchError, Requirement, Role, lookup, match, match_name, requirement


def test_values_and_types():
    m = match("add", ("rn", "ftz", "f32"))
    assert m.form.family == "floating" and m.values["rnd"] == "rn" and m.has("ftz") and not m.has("sat")
    assert m.get("rnd") == "rn" and m.get("nope", 7) == 7
    assert m.type.name == "f32" and m.types["type"].name == "f32"
    assert m.requirement == Requirement((1, 0), 10)
    m = match("cvt", ("rzi", "s32", "f32"))
    assert m.types["dtype"].name == "s32" and m.types["atype"].name == "f32"
    assert [o.type.name for o in m.operands] == ["s32", "f32"] and m.form.relaxed
    m = match("mul", ("wide", "s32"))
    assert m.operand("d").type.name == "s64" and m.operand("a").type.name == "s32"
    m = match("setp", ("lt", "and", "f32"))
    assert m.values["CmpOp"] == "lt" and m.values["BoolOp"] == "and"
    p = m.operand("p")
    assert p.kind is Kind.PAIR and p.spec.second == "q" and p.spec.second_optional and p.type.name == "pred"
    assert m.operand("c").kind is Kind.PRED and m.operand("c").spec.negate == "!"
    assert match_name("ld.global.nc.v4.f32").form.syntax.startswith("ld.global{.cop}.nc")


def test_memory_forms():
    m = match("ld", ("global", "nc", "L1::no_allocate", "v4", "f32"))
    assert m.values["level1::eviction_priority"] == "L1::no_allocate" and m.vec == 4
    assert m.requirement.ptx == (7, 4)
    d, a, cp = m.operands
    assert d.kind is Kind.VEC and d.role is Role.DST and d.count == 4 and d.spec.sink
    assert a.kind is Kind.ADDR and cp.optional and cp.type.name == "b64"
    m = match("st", ("relaxed", "gpu", "global", "u32"))
    assert m.values["sem"] == "relaxed" and m.values["scope"] == "gpu" and not m.has_dst
    m = match("atom", ("global", "cas", "b32"))
    assert [o.name for o in m.operands] == ["d", "a", "b", "c"]
    assert match("atom", ("global", "add", "noftz", "bf16x2")).requirement == requirement("7.8 sm_90")


def test_requirements_join_modifiers_and_operands():
    m = match("max", ("NaN", "f32"))
    assert m.requirement.ptx == (7, 0) and m.min_sm == 80 and m.requirement_notes
    assert m.requirement_with(["c"]).ptx == (8, 8)  # the three-source form
    assert match("wgmma", ("mma_async", "sync", "aligned", "m64n128k16", "f32", "f16", "f16")).arch_specific
    m = match("mbarrier", ("arrive", "b64"))
    assert m.requirement.ptx == (7, 0) and m.requirement_with(["count"]).sm == 90
    assert m.problems((7, 8), "sm_80", present=["count"]) == ["mbarrier.arrive.b64 requires .target sm_90 or higher"]
    assert match("add", ("u16x2",)).problems((7, 8), "sm_80") == [
        "add.u16x2 requires PTX ISA 8.0 or later", "add.u16x2 requires .target sm_90 or higher"]
    assert match("tcgen05", ("shift", "cta_group::1", "down")).problems((9, 0), "sm_100") == [
        "tcgen05.shift.cta_group::1.down requires .target sm_100a (architecture-specific)"]


def test_requirement_targets():
    plain, a, f = requirement("8.0 sm_90"), requirement("8.0 sm_90a"), requirement("8.8 sm_100f")
    assert plain.target_ok("sm_90") and plain.target_ok("sm_100a") and not plain.target_ok("sm_89")
    assert a.target_ok("sm_90a") and not a.target_ok("sm_90") and not a.target_ok("sm_100a")
    assert f.target_ok("sm_100f") and f.target_ok("sm_100a") and f.target_ok("sm_103f")
    assert not f.target_ok("sm_100") and not f.target_ok("sm_120f")
    assert plain.join(a) == a and requirement("7.0 sm_80").join(requirement("8.6 sm_75")) == requirement("8.6 sm_80")
    assert str(requirement("7.8 sm_90")) == "PTX ISA 7.8, sm_90"


def test_removed_forms():
    m = match("mad", ("f32",))
    assert m.problems((1, 4), "sm_13") == []
    assert any("not supported" in p for p in m.problems((6, 0), "sm_80"))
    m = match("shfl", ("idx", "b32"))
    assert m.form.deprecated and m.problems((6, 3), "sm_70") == []
    assert any("not supported" in p for p in m.problems((6, 4), "sm_70"))


@pytest.mark.parametrize("spelling", [
    "add.ftz.rn.f32", "add.f32.rn", "ld.nc.global.f32", "ld.v4.global.f32", "ld.global.f32.v4",
    "ld.L2::128B.global.nc.f32", "red.add.global.u32", "atom.add.global.u32", "atom.global.gpu.relaxed.add.u32",
    "cvt.f32.rn.s32", "cvt.s32.f32.rzi", "cvt.sat.rni.ftz.s32.f32", "setp.f32.lt", "setp.lt.ftz.and.f32",
    "max.NaN.ftz.f32", "max.abs.xorsign.f32", "shfl.sync.b32.idx", "shfl.idx.sync.b32", "barrier.aligned.sync",
    "vote.ballot.sync.b32", "fence.gpu.acq_rel", "mul.s32.wide", "mad.s32.lo",
])
def test_reordered_spellings(spelling):
    """ptxas 13.0 accepts these (all but the last two, which it rejects: modes after the integer
    type); the matcher accepts every order and flags it."""
    m = match_name(spelling)
    assert m.reordered
    assert match_name(m.name).form is m.form and not match_name(m.name).reordered


def test_types_keep_their_order():
    assert match("cvt", ("f32", "rn", "s32")).types["dtype"].name == "f32"
    assert match("cvt", ("s32", "f32", "rzi")).types["dtype"].name == "s32"
    assert isinstance(lookup("cvt", ("f32", "s32")), MatchError)  # int-to-float needs a rounding (ptxas)
    m = match("mma", ("sync", "aligned", "m8n8k4", "col", "row", "f32", "f16", "f16", "f32"))
    assert m.values["alayout"] == "col" and m.values["blayout"] == "row"
    m = match("mma", ("sync", "aligned", "row", "m8n8k4", "col", "f32", "f16", "f16", "f32"))
    assert m.reordered and m.values["alayout"] == "row" and m.values["blayout"] == "col"


@pytest.mark.parametrize("spelling, code, text", [
    ("foo.u32", "unknown-opcode", 'unknown instruction "foo"'),
    ("addd.u32", "unknown-opcode", 'did you mean "add"'),
    ("add.bar.u32", "unknown-modifier", 'unknown modifier ".bar" for add'),
    ("add.sat.u32", "not-allowed", '".sat" is not allowed with "add.u32"'),
    ("add", "missing", 'missing type .type'),
    ("fma.f32", "missing", "missing modifier .rnd (one of .rn, .rz, .rm, .rp)"),
    ("cvt.rn.f32.f32", "constraint", "no / another rounding modifier"),
    ("cvt.ftz.s32.s16", "constraint", ".ftz applies to .f32 conversions only"),
    ("ld.global.v8.f64", "constraint", "at most 128 bits"),
    ("ld.ca.L1::evict_last.global.f32", "constraint", "cop cannot be combined with level1::eviction_priority"),
    ("setp.lo.f32", "constraint", "compare integers"),
    ("mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f32", "constraint", ".dtype must be .f32"),
    ("add.u32.u32", "not-allowed", 'repeated modifier ".u32"'),
])
def test_diagnostics(spelling, code, text):
    parts = spelling.split(".")
    r = lookup(parts[0], tuple(parts[1:]))
    assert isinstance(r, MatchError)
    assert r.code == code, r.message
    assert text in r.message, r.message
    with pytest.raises(MatchError) as e:
        match(parts[0], tuple(parts[1:]))
    assert e.value.message == r.message and e.value.spelling == spelling


def test_memoized(monkeypatch):
    """A repeated spelling is a dict lookup, not a re-match (speed itself is for benchmarks/)."""
    import sys

    M = sys.modules["ptxvm.isa.match"]  # the module (ptxvm.isa.match is also the function's name)

    mods = [("s32",), ("rn", "f32"), ("global", "v4", "f32"), ("lt", "s32"), ("wide", "s32")]
    ops = ["add", "add", "ld", "setp", "mul"]
    first = [match(op, m) for op, m in zip(ops, mods)]
    calls = []
    real = M._lookup
    monkeypatch.setattr(M, "_lookup", lambda *a: calls.append(a) or real(*a))
    again = [match(op, m) for op, m in zip(ops, mods)]
    assert all(x is y for x, y in zip(first, again))
    assert calls == []


def test_operand_rules():
    m = match("ld", ("global", "L2::cache_hint", "f32"))
    assert m.form.operand_problems(m.values, ["cache-policy"]) == []
    assert m.form.operand_problems(m.values, []) == [
        "the cache-policy operand goes with .L2::cache_hint (both or neither)"]
    m = match("vadd", ("u32", "u32", "u32", "sat"))
    assert m.operand("a").spec.selector == "asel" and "b3" in m.operand("a").spec.selector_values
    assert m.form.operand_problems(m.values, ["c"]) == []  # ptxas takes c without d.dsel (and ignores it)
    assert m.form.operand_problems(m.values, ["dsel"]) == ["the merge selector d.dsel needs a third operand c"]
