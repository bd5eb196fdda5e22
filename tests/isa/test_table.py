"""The instruction-form table itself: coverage, well-formedness, unambiguity, round trips."""
import pytest

from ptxvm.isa import FAMILIES, FORMS, Kind, MatchError, Role, forms_for, lookup, opcodes
from ptxvm.isa.match import _lookup
from ptxvm.isa.table import PTX_VERSIONS, SM_TARGETS, build_all
from ptxvm.isa.types import TYPES

build_all()

# Every opcode of the PTX ISA 9.0 reference (one per instruction description), and those 9.1-9.5 added
# that the table has (clmad, fabric: 9.3).
OPCODES = """
abs activemask add addc alloca and applypriority atom bar barrier bfe bfi bfind bmsk bra brev brkpt brx call
clmad clusterlaunchcontrol clz cnot copysign cos cp createpolicy cvt cvta discard div dp2a dp4a elect ex2 exit fabric fence fma
fns getctarank griddepcontrol isspacep istypep ld ldmatrix ldu lg2 lop3 mad mad24 madc mapa match max mbarrier membar
min mma mov movmatrix mul mul24 multimem nanosleep neg not or pmevent popc prefetch prefetchu prmt rcp red redux rem
ret rsqrt sad selp set setmaxnreg setp shf shfl shl shr sin slct sqrt st stackrestore stacksave stmatrix sub subc
suld suq sured sust szext tanh tcgen05 tensormap testp tex tld4 trap txq vabsdiff vabsdiff2 vabsdiff4 vadd vadd2
vadd4 vavrg2 vavrg4 vmad vmax vmax2 vmax4 vmin vmin2 vmin4 vote vset vset2 vset4 vshl vshr vsub vsub2 vsub4 wgmma
wmma xor
""".split()

# The syntax sections of the 9.0 reference (several per opcode): each names tokens some form has.
HEADS = """
abs activemask add.cc add addc alloca and applypriority atom bar bar.warp.sync barrier.cluster bfe bfi bfind bmsk
bra brev brkpt brx.idx call clusterlaunchcontrol.query_cancel clusterlaunchcontrol.try_cancel clz cnot copysign cos
cp.async.bulk.commit_group cp.async.bulk.prefetch.tensor cp.async.bulk.prefetch cp.async.bulk.tensor cp.async.bulk
cp.async.bulk.wait_group cp.async.commit_group cp.async.mbarrier.arrive cp.async cp.async.wait_group
cp.async.wait_all cp.reduce.async.bulk.tensor cp.reduce.async.bulk createpolicy cvt.pack cvt cvta discard div dp2a
dp4a elect.sync ex2 exit fma fns getctarank griddepcontrol isspacep istypep ld.global.nc ld ldmatrix ldu lg2 lop3
mad.cc mad mad24 madc mapa match.sync max mbarrier.arrive mbarrier.arrive_drop mbarrier.complete_tx
mbarrier.expect_tx mbarrier.init mbarrier.inval mbarrier.pending_count mbarrier.test_wait mbarrier.try_wait membar
fence.proxy fence.mbarrier_init fence.sync_restrict::shared::cluster membar.proxy min mma.sp mma mov movmatrix mul mul24 multimem.ld_reduce multimem.st
multimem.red nanosleep neg not or pmevent pmevent.mask popc prefetch prefetchu prmt rcp.approx.ftz.f64 rcp red.async
red redux.sync rem ret rsqrt.approx.ftz.f64 rsqrt sad selp set setmaxnreg setp shf shfl.sync shfl shl shr sin slct
sqrt st.async st.bulk st stackrestore stacksave stmatrix sub.cc sub subc suld suq sured sust szext tanh
tcgen05.alloc tcgen05.dealloc tcgen05.relinquish_alloc_permit tcgen05.commit tcgen05.cp tcgen05.fence::before_thread_sync
tcgen05.fence::after_thread_sync tcgen05.ld tcgen05.ld.red tcgen05.mma.sp tcgen05.mma tcgen05.mma.ws.sp
tcgen05.mma.ws tcgen05.shift tcgen05.st tcgen05.wait::ld tcgen05.wait::st tensormap.cp_fenceproxy tensormap.replace
testp tex tex.base tex.level tex.grad tld4 trap txq txq.level vmad vote.sync vote vset vset2 vset4 vshl vshr vadd
vsub vabsdiff vmin vmax vadd2 vsub2 vavrg2 vabsdiff2 vmin2 vmax2 vadd4 vsub4 vavrg4 vabsdiff4 vmin4 vmax4
wgmma.commit_group wgmma.fence wgmma.mma_async.sp wgmma.mma_async wgmma.wait_group wmma.load wmma.mma wmma.store xor
""".split()


def test_every_opcode_of_the_reference():
    assert set(OPCODES) == set(opcodes())
    assert len(OPCODES) == 137  # 135 of PTX ISA 9.0, clmad, fabric
    for op in OPCODES:
        assert forms_for(op), op


@pytest.mark.parametrize("head", HEADS)
def test_every_syntax_section_has_a_form(head):
    opcode, *toks = head.split(".")
    for f in forms_for(opcode):
        vocab = {t for e in f.elements for v in e.values for t in v}
        if all(t in vocab for t in toks):
            return
    pytest.fail(f"no form of {opcode} has all of {toks}")


def test_size():
    assert len(FORMS) > 450
    assert len({f.index for f in FORMS}) == len(FORMS)
    assert [f.index for f in FORMS] == list(range(len(FORMS)))


def test_families():
    used = {f.family for f in FORMS}
    assert used <= set(FAMILIES)
    assert used == set(FAMILIES)  # every family has forms


@pytest.mark.parametrize("form", list(FORMS), ids=lambda f: f"{f.index}")
def test_form_well_formed(form):
    reqs = [form.requires] + [r for _, r, _ in form.reqs] + [r for _, r in form.operand_reqs]
    if form.removed:
        reqs.append(form.removed)
    for r in reqs:
        assert r.ptx in PTX_VERSIONS, (form, r)
        assert r.sm in SM_TARGETS, (form, r)
        assert r.suffix in ("", "a", "f"), (form, r)
        assert r.join(form.requires) == r.join(form.requires).join(r)
    # the modifiers
    assert form.elements or form.opcode in ("bra", "brkpt", "call", "exit", "pmevent", "ret", "trap"), form
    for e in form.elements:
        assert e.values and all(all(t and " " not in t and "." not in t for t in v) for v in e.values), (form, e)
        if e.slot:
            assert form.slots[e.slot].values == tuple(".".join(v) for v in e.values)
        else:
            assert len(e.values) == 1
    # the operands
    names = [o.name for o in form.operands if o.name != "_"]
    assert len(names) == len(set(names)), form
    for o in form.operands:
        assert o.kind in Kind and o.role in Role
        if o.type_slot:
            assert o.type_slot in form.slots and form.slots[o.type_slot].is_type, (form, o)
        if o.type:
            assert o.type in TYPES or o.type == "ptr", (form, o)
        if o.vec_slot:
            assert o.vec_slot in form.slots, (form, o)
            assert o.kind is Kind.VEC
        if o.kind is Kind.PAIR:
            assert o.second
        if o.selector and o.kind is not Kind.ADDR:
            assert o.selector_values, (form, o)
        if o.is_dst:
            assert o is form.operands[0] or o.role is Role.DST or o.kind in (Kind.VEC, Kind.REG), (form, o)
    for name in form.counts:
        assert name in names, (form, name)
    for pred, msg in form.checks:
        assert msg, form
    assert form.sem


@pytest.mark.parametrize("form", list(FORMS), ids=lambda f: f"{f.index}")
def test_spellings_match_exactly_their_form(form):
    """Unambiguity and round trip: every spelling the form accepts (a bounded sample of big products),
    printed in canonical order, matches exactly this form, with the same slot values."""
    n = 0
    for vals, mods in form.spellings(limit=150):
        n += 1
        r = _lookup(form.opcode, mods)
        assert not isinstance(r, MatchError), (form, mods, r)
        assert r.form is form, (mods, form, r.form)
        assert not r.reordered
        assert dict(r.values) == vals, (mods, dict(r.values), vals)
        assert r.canonical == mods
        # derived facts resolve for every spelling
        for o in r.operands:
            if o.spec.type_slot and vals.get(o.spec.type_slot):
                assert o.type is not None, (form, o)
            if o.count is not None:
                assert isinstance(o.count, int) and o.count >= 1, (form, o, o.count)
        assert r.vec >= 1
    assert n > 0, f"{form} accepts no spelling"


@pytest.mark.parametrize("form", list(FORMS), ids=lambda f: f"{f.index}")
def test_canonical_spelling(form):
    mods = form.canonical()
    m = lookup(form.opcode, mods)
    if all(pred({e.slot or ".".join(e.values[0]): (".".join(e.values[0]) if e.slot else True)
                 for e in form.elements if not e.optional}) for pred, _ in form.checks):
        assert not isinstance(m, MatchError), (form, mods, m)
        assert m.form is form


def test_vector_width_and_destination_facts():
    from ptxvm.isa import match

    m = match("ld", ("global", "v4", "f32"))
    assert m.vec == 4 and m.has_dst and m.operands[0].count == 4 and m.operands[0].is_vector
    m = match("st", ("global", "v2", "b64"))
    assert m.vec == 2 and not m.has_dst and m.operand("b").count == 2
    m = match("ld", ("global", "f32"))
    assert m.vec == 1 and not m.operands[0].is_vector
    assert not match("bar", ("sync",)).has_dst
    assert match("setp", ("lt", "s32")).has_dst
    assert [o.imm_ok for o in match("add", ("s32",)).operands] == [False, True, True]
    assert match("lop3", ("b32",)).operand("immLut").kind is Kind.IMM
    assert match("shl", ("b32",)).operand("b").type.name == "u32"
