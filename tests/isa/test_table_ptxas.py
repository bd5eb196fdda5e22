"""The table against the real assembler (skipped when ptxas is not installed).

- modifier orders: what ptxas accepts, the matcher accepts (it accepts a little more: see below);
- cvt: every spelling of the general conversion form, accepted exactly when ptxas accepts it;
- a sample of every form: assembles at the table's requirement, and ptxas names the same minimum
  PTX version and target as the table (PTXVM_SLOW=1: more spellings per form).
"""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ptxas_probe as P  # noqa: E402

from ptxvm.isa import MatchError, TYPES, lookup  # noqa: E402

pytestmark = pytest.mark.skipif(P.PTXAS is None, reason="ptxas not installed")

# (instruction, does ptxas 13.0 accept it?)  All are accepted by the matcher (reordered=True where
# the order is not the manual's); the two ptxas rejects are integer modes written after the type.
ORDERS = [
    ("add.rn.ftz.f32 %f32_0, %f32_1, %f32_2;", True),
    ("add.ftz.rn.f32 %f32_0, %f32_1, %f32_2;", True),
    ("add.f32.rn %f32_0, %f32_1, %f32_2;", True),
    ("ld.nc.global.f32 %f32_0, [%b64_0];", True),
    ("ld.global.L1::no_allocate.nc.f32 %f32_0, [%b64_0];", True),
    ("ld.L2::128B.global.nc.f32 %f32_0, [%b64_0];", True),
    ("ld.v4.global.f32 {%f32_0, %f32_1, %f32_2, %f32_3}, [%b64_0];", True),  # ptxas warns, accepts
    ("red.add.global.u32 [%b64_0], %u32_0;", True),
    ("atom.add.global.u32 %u32_0, [%b64_0], %u32_1;", True),
    ("atom.global.gpu.relaxed.add.u32 %u32_0, [%b64_0], %u32_1;", True),
    ("cvt.f32.rn.s32 %f32_0, %s32_0;", True),
    ("cvt.s32.f32.rzi %s32_0, %f32_0;", True),
    ("cvt.sat.rni.ftz.s32.f32 %s32_0, %f32_0;", True),
    ("setp.f32.lt %p_0, %f32_0, %f32_1;", True),
    ("setp.lt.ftz.and.f32 %p_0, %f32_0, %f32_1, %p_1;", True),
    ("max.abs.xorsign.f32 %f32_0, %f32_1, %f32_2;", True),
    ("shfl.sync.b32.idx %b32_0, %b32_1, %b32_2, %b32_3, %b32_4;", True),
    ("shfl.idx.sync.b32 %b32_0, %b32_1, %b32_2, %b32_3, %b32_4;", True),
    ("barrier.aligned.sync 0;", True),
    ("vote.ballot.sync.b32 %b32_0, %p_0, %b32_1;", True),
    ("fence.gpu.acq_rel;", True),
    ("mma.sync.aligned.row.m8n8k4.col.f32.f16.f16.f32 {%f32_0, %f32_1, %f32_2, %f32_3, %f32_4, %f32_5, %f32_6, "
     "%f32_7}, {%b32_0, %b32_1}, {%b32_2, %b32_3}, {%f32_8, %f32_9, %f32_10, %f32_11, %f32_12, %f32_13, %f32_14, "
     "%f32_15};", True),
    ("mul.s32.wide %s64_0, %s32_0, %s32_1;", False),
    ("mad.s32.lo %s32_0, %s32_1, %s32_2, %s32_3;", False),
]


def _mods(text):
    name = text.split()[0].rstrip(";")
    parts = name.split(".")
    return parts[0], tuple(parts[1:])


def test_modifier_orders():
    errs = P.assemble([t for t, _ in ORDERS], "9.0", "sm_90")
    for i, (text, accepted) in enumerate(ORDERS):
        assert (i not in errs) == accepted, (text, errs.get(i))
        r = lookup(*_mods(text))
        assert not isinstance(r, MatchError), (text, r)


def test_cvt_agrees_with_ptxas_exhaustively():
    cvt = ("u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "bf16", "f16", "f32", "f64")
    lines, keys = [], []
    for d in cvt:
        for a in cvt:
            for r in (None, "rni", "rzi", "rmi", "rpi", "rn", "rz", "rm", "rp"):
                for ftz in (False, True):
                    for sat in (False, True):
                        mods = tuple(x for x in (r, "ftz" if ftz else None, "sat" if sat else None) if x) + (d, a)
                        lines.append(f"cvt.{'.'.join(mods)} %{P.reg_for(TYPES[d])}_0, %{P.reg_for(TYPES[a])}_1;")
                        keys.append(mods)
    errs = P.assemble(lines, "9.0", "sm_100a", chunk=400)
    bad = [(k, errs.get(i)) for i, k in enumerate(keys)
           if (i not in errs) != (not isinstance(lookup("cvt", k), MatchError))]
    assert not bad, bad[:10]


# Blackwell-generation matrix features that ptxas 13 accepts on several families (sm_101a, sm_120a,
# sm_100f for some types); the table gives one minimum target (the ISA's) for them.
def _known(kind, text, msg):
    # tcgen05.ld.red: table sm_101f; ptxas 13.5 no longer knows sm_101a (renamed sm_110a), so its
    # first target on the ladder is sm_103a
    return kind == "sm" and (text.startswith("mma") and "kind::" in text
                             or text.startswith("tcgen05.ld.red") and "on sm_103a, table says sm_101f" in msg)


def test_forms_against_ptxas():
    limit = 8 if os.environ.get("PTXVM_SLOW") else 2
    bad = [d for d in P.probe(limit=limit) if not _known(*d)]
    assert not bad, "\n".join(f"{k}: {t}  -- {m}" for k, t, m in bad[:30])
