"""Types, state spaces and special registers as data; the operand type-compatibility rules.

The expected compatibility tables below were recorded with ptxas 13.0 (CUDA 13.0): for each
instruction type (row) the register types (columns) it accepted, for `add`/`mov` (strict rules)
and `ld`/`st`/`cvt` (relaxed rules, ISA 9.4.1).
"""
import pytest

from ptxvm.isa import (
    CONSTANTS, SPACES, SREGS, TYPES, Access, PtxType, Sharing, TypeKind, extension, immediate_ok, operand_type_ok,
    ptx_type, space, sreg,
)
from ptxvm.isa.types import REG_TYPES

REGS = ["b8", "u8", "s8", "b16", "u16", "s16", "f16", "b32", "u32", "s32", "f32", "f16x2", "b64", "u64", "s64", "f64"]

# instruction type -> register types ptxas accepts (add/and/mov, strict)
STRICT = {
    "b16": {"b16", "u16", "s16", "f16"},
    "u16": {"b16", "u16", "s16"},
    "s16": {"b16", "u16", "s16"},
    "f16": {"b16", "f16"},
    "bf16": {"b16"},
    "b32": {"b32", "u32", "s32", "f32", "f16x2"},
    "u32": {"b32", "u32", "s32", "f16x2"},
    "s32": {"b32", "u32", "s32", "f16x2"},
    "f32": {"b32", "f32"},
    "f16x2": {"b32", "f16x2"},
    "bf16x2": {"b32"},
    "u16x2": {"b32", "f16x2"},
    "b64": {"b64", "u64", "s64", "f64"},
    "u64": {"b64", "u64", "s64"},
    "s64": {"b64", "u64", "s64"},
    "f64": {"b64", "f64"},
}

# ld.global.T / st.global.T / cvt (relaxed): instruction type -> accepted register types
_ALL = set(REGS)
_INTLIKE = {"b8", "u8", "s8", "b16", "u16", "s16", "b32", "u32", "s32", "f16x2", "b64", "u64", "s64"}
RELAXED = {
    "b8": _ALL,
    "u8": _INTLIKE | {"b16", "b32", "b64"},
    "s8": _INTLIKE,
    "b16": _ALL - {"b8", "u8", "s8"},
    "u16": _INTLIKE - {"b8", "u8", "s8"},
    "b32": {"b32", "u32", "s32", "f32", "f16x2", "b64", "u64", "s64", "f64"},
    "u32": {"b32", "u32", "s32", "f16x2", "b64", "u64", "s64"},
    "f32": {"b32", "f32", "b64"},
    "b64": {"b64", "u64", "s64", "f64"},
    "u64": {"b64", "u64", "s64"},
    "f64": {"b64", "f64"},
    "f16": {"b16", "f16", "b32", "b64"},  # cvt.rn.f16.u32 (ld has no .f16)
    "bf16": {"b16"},  # cvt.rn.bf16.u32: ptxas does not relax the alternate formats
}


@pytest.mark.parametrize("itype", sorted(STRICT))
def test_strict_compat_matches_ptxas(itype):
    got = {r for r in REGS if operand_type_ok(itype, r)}
    assert got == STRICT[itype]


@pytest.mark.parametrize("itype", sorted(RELAXED))
def test_relaxed_compat_matches_ptxas(itype):
    got = {r for r in REGS if operand_type_ok(itype, r, relaxed=True)}
    assert got == RELAXED[itype]


def test_pred_only_with_pred():
    assert operand_type_ok("pred", "pred")
    assert not operand_type_ok("pred", "b32")
    assert not operand_type_ok("b32", "pred", relaxed=True)


def test_type_table():
    assert TYPES["f16x2"] == PtxType("f16x2", 32, TypeKind.FLOAT, 2, "f16", reg=True)
    assert TYPES["e4m3x4"].lanes == 4 and TYPES["e4m3x4"].bits == 32 and TYPES["e4m3x4"].alt
    assert TYPES["u16x2"].kind is TypeKind.UNSIGNED and TYPES["u16x2"].lane_bits == 16
    assert TYPES["e2m1x2"].bits == 8 and TYPES["ue8m0x2"].bits == 16
    assert TYPES["b128"].bits == 128 and TYPES["b128"].reg
    assert TYPES["texref"].kind is TypeKind.OPAQUE and not TYPES["texref"].instr
    assert ptx_type(".s32") is TYPES["s32"]
    for name in ("bf16", "bf16x2", "tf32", "e4m3", "e5m2", "e2m1x2", "e2m3x2", "e3m2x2", "ue8m0x2", "u16x2", "s16x2",
                 "f32x2", "b1", "u4", "s4", "u2", "s2", "b8x16", "b1024"):
        assert name in TYPES, name
    # what ptxas lets a .reg declare
    assert REG_TYPES == {"b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
                         "f16", "f16x2", "f32", "f64", "pred"}


def test_immediates_and_extension():
    assert immediate_ok("u32", "int") and immediate_ok("pred", "int")
    assert not immediate_ok("f32", "int")  # ptxas: add.f32 d, a, 1 is an error
    assert immediate_ok("f32", "float") and immediate_ok("b32", "float") and not immediate_ok("s32", "float")
    assert extension("s8") == "sext" and extension("u8") == "zext" and extension("b16") == "zext"


def test_spaces():
    assert set(SPACES) >= {"reg", "sreg", "const", "global", "local", "param", "param::entry", "param::func",
                           "shared", "shared::cta", "shared::cluster", "tex"}
    assert SPACES["global"].addressable and SPACES["global"].writable and SPACES["global"].sharing is Sharing.CONTEXT
    assert not SPACES["reg"].addressable and SPACES["reg"].sharing is Sharing.THREAD
    assert SPACES["const"].kernel_access is Access.RO and SPACES["const"].banks == 11 and SPACES["const"].initializable
    assert SPACES["shared::cluster"].sharing is Sharing.CLUSTER and SPACES["shared::cluster"].min_sm == 90
    assert SPACES["shared::cta"].parent == "shared"
    assert space(".local").sharing is Sharing.THREAD
    assert not SPACES["param::func"].generic and SPACES["param::entry"].generic


def test_special_registers():
    names = {"%tid", "%ntid", "%laneid", "%warpid", "%nwarpid", "%ctaid", "%nctaid", "%smid", "%nsmid", "%gridid",
             "%is_explicit_cluster", "%clusterid", "%nclusterid", "%cluster_ctaid", "%cluster_nctaid",
             "%cluster_ctarank", "%cluster_nctarank", "%lanemask_eq", "%lanemask_le", "%lanemask_lt",
             "%lanemask_ge", "%lanemask_gt", "%clock", "%clock_hi", "%clock64", "%globaltimer", "%globaltimer_lo",
             "%globaltimer_hi", "%reserved_smem_offset_begin", "%reserved_smem_offset_end",
             "%reserved_smem_offset_cap", "%reserved_smem_offset_0", "%reserved_smem_offset_1", "%total_smem_size",
             "%aggr_smem_size", "%dynamic_smem_size", "%current_graph_exec"}
    names |= {f"%pm{i}" for i in range(8)} | {f"%pm{i}_64" for i in range(8)} | {f"%envreg{i}" for i in range(32)}
    assert names <= set(SREGS)
    assert SREGS["%tid"].components[:3] == ("x", "y", "z") and SREGS["%tid"].type == "u32"
    assert SREGS["%clock64"].type == "u64" and SREGS["%clock64"].min_sm == 20
    assert SREGS["%cluster_ctarank"].min_ptx == (7, 8) and SREGS["%cluster_ctarank"].min_sm == 90
    assert SREGS["%is_explicit_cluster"].type == "pred"
    assert sreg("%ctaid.y") == (SREGS["%ctaid"], "y")
    assert sreg("%laneid") == (SREGS["%laneid"], None)
    assert sreg("%laneid.x") is None and sreg("%nope") is None
    assert CONSTANTS["WARP_SZ"] == 32
