"""wmma.load / wmma.store, ldmatrix and stmatrix in the timing model: the machine accesses ptxas
makes of them (engine/trace/matrix.py) and what the memory model and the SM model do with them.
Structural checks only (no GPU times): docs/timing-model.md section 3, "wmma.load / wmma.store"."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import ptxvm
from ptxvm.engine.trace.matrix import ldmatrix_plan, wmma_plan

HERE = Path(__file__).parent
HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n"
SIZE = {"U8": 1, "U16": 2, "64": 8, "128": 16}


def _expected(ops: dict) -> tuple:
    """(sorted access kinds, MOVMs) of a form from its SASS opcodes."""
    acc, movm = [], 0
    for op, n in ops.items():
        parts = op.split(".")
        if parts[0] == "MOVM":
            movm += n
        elif parts[0] == "LDSM":
            acc += [("ldsm", int(parts[-1]) if parts[-1].isdigit() else 1)] * n
        else:
            acc += [("mem", SIZE.get(parts[-1], 4))] * n
    return sorted(acc), movm


def test_plans_match_what_ptxas_emits_for_every_wmma_load_and_store_form():
    table = json.loads((HERE / "wmma_sass_sm90a.json").read_text())["forms"]
    assert len(table) == 264
    for form, ops in table.items():
        kind, which, shape, t, layout, space = form.split()
        plan = wmma_plan(shape, which, t, layout, space, kind == "store")
        if plan.ldsm:
            got = [("ldsm", bin(a.lanes).count("1") // 8) for a in plan.accesses]
        else:
            got = [("mem", a.size) for a in plan.accesses]
        assert (sorted(got), plan.movm) == _expected(ops), form


def test_plan_addresses_cover_the_tile_once_per_distinct_register():
    # f16 A row-major: 4 LDG.32, the 4 replicated registers not loaded again; together the
    # 16x16 tile, every element once
    from ptxvm.semantics.families.matrix import wmma_fragment

    plan = wmma_plan("m16n16k16", "a", "f16", "row", "global")
    frag = wmma_fragment("m16n16k16", "a", "f16", "row")
    seen = []
    for a in plan.accesses:
        idx = np.asarray(a.elems)
        lane, e = idx // frag.elems, idx % frag.elems
        for k in range(2):  # a 4-byte access holds this element and the next one in memory
            seen += list(zip(frag.row[lane, e].tolist(), (frag.col[lane, e] + k).tolist()))
    assert len(seen) == 256 and len(set(seen)) == 256
    assert ldmatrix_plan(1).accesses[0].lanes == 0xFF and ldmatrix_plan(4).accesses[0].lanes == 0xFFFFFFFF


WMMA_G = """
.visible .entry wg(.param .u64 a, .param .u64 out, .param .u32 ld)
{
  .reg .b32 %r<12>; .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [a]; ld.param.u64 %rd2, [out]; ld.param.u32 %r9, [ld];
  wmma.load.a.sync.aligned.LAYOUT.m16n16k16.global.f16 {%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r7}, [%rd1], %r9;
  xor.b32 %r8, %r0, %r7;
  wmma.store.d.sync.aligned.row.m16n16k16.global.s32 [%rd2], {%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r8}, %r9;
  ret;
}
"""


def _profile_global(layout="row", ld=64):
    k = ptxvm.loads(HEADER + WMMA_G.replace("LAYOUT", layout))["wg"]
    a = np.zeros(64 * 64, np.float16)
    out = np.zeros(64 * 64, np.int32)
    return k.profile(1, 32, [a, out, np.int32(ld)])


def test_wmma_load_global_is_four_ldg_requests_through_l1():
    p = _profile_global("row", 64)
    trace = p.collected.sms[0][0]
    load = next(s for s in trace.steps if trace.info(s.pc).opcode == "wmma" and s.parts is not None)
    info = trace.info(load.pc)
    assert info.op_class == "lsu" and info.sass == 4 and info.movm == 0 and info.flops == 0
    assert info.mem.space == "global" and info.mem.load
    assert [size for _, size, _ in load.parts] == [4, 4, 4, 4]
    # stride 64 halves: each LDG reads 8 rows of 16 bytes, one sector per row; the second LDG of
    # a row's 32-B sector finds it in L1 (ncu: 4 requests, 32 sectors)
    c = p.counters
    assert c["global_load_requests"] == 4
    assert c["sectors"] >= 32 and p.cache_hit_rates["l1"] == pytest.approx(0.5)
    assert p.instruction_mix.get("tensor", 0) == 0


def test_transposed_f16_layout_adds_movm_issues_and_data_stage_cycles():
    row = _profile_global("row", 16)
    col = _profile_global("col", 16)
    tr = col.collected.sms[0][0]
    info = next(tr.info(s.pc) for s in tr.steps if s.parts is not None and tr.info(s.pc).mem.load)
    assert info.sass == 8 and info.movm == 4
    mem_row = row.collected.sms[0][1]
    mem_col = col.collected.sms[0][1]
    waves = [next(r.l1_waves[0] for r in m.values() if r.l1_waves is not None) for m in (mem_row, mem_col)]
    assert waves[1] == waves[0] + 4


def test_wmma_store_pays_each_line_once_and_marks_the_footprint():
    p = _profile_global("row", 16)
    tr, mem = p.collected.sms[0][0], p.collected.sms[0][1]
    k = next(i for i, s in enumerate(tr.steps) if s.parts is not None and tr.info(s.pc).mem.store)
    # s32 16x16 with stride 16: 1 KiB in 8 lines, written by 4 STG.64 of 4 lines each
    assert [size for _, size, _ in tr.steps[k].parts] == [8, 8, 8, 8]
    assert mem[k].wavefronts[0] == 8 and mem[k].l2_sectors[0] == 32
    assert p.counters["global_store_requests"] == 4


WMMA_S = """
.visible .entry ws(.param .u64 out, .param .u32 ld)
{
  .reg .b32 %r<12>; .reg .b64 %rd<4>;
  .shared .align 128 .b8 tile[8192];
  ld.param.u64 %rd1, [out]; ld.param.u32 %r9, [ld];
  mov.u32 %r10, tile;
  wmma.load.a.sync.aligned.LAYOUT.m16n16k16.shared.f16 {%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r7}, [%r10], %r9;
  xor.b32 %r8, %r0, %r7;
  st.global.u32 [%rd1], %r8;
  ret;
}
"""


@pytest.mark.parametrize("layout,ld,waves", [("row", 16, 8), ("col", 16, 8), ("row", 64, 32), ("col", 64, 32),
                                             ("row", 72, 4)])
def test_wmma_load_shared_is_one_ldsm_with_per_matrix_bank_conflicts(layout, ld, waves):
    # micro2 wmma thr: an LDSM.x4 costs each 8x8 matrix's own wavefronts (rows 32 B apart: 2 per
    # matrix, 128 B apart: 8, 144 B apart: 1), also when the transposed layout puts a half-warp's
    # two matrices on different banks
    k = ptxvm.loads(HEADER + WMMA_S.replace("LAYOUT", layout))["ws"]
    p = k.profile(1, 32, [np.zeros(4, np.int32), np.int32(ld)])
    tr = p.collected.sms[0][0]
    info = next(tr.info(s.pc) for s in tr.steps if s.parts is not None)
    assert info.sass == 1 and info.matrix_ldsm and info.mem.space == "shared"
    assert p.bank_conflicts["wavefronts"] == waves and p.bank_conflicts["requests"] == 1


LDMATRIX = """
.visible .entry lm(.param .u64 out, .param .u32 stride)
{
  .reg .b32 %r<12>; .reg .b64 %rd<4>;
  .shared .align 128 .b8 tile[8192];
  ld.param.u64 %rd1, [out]; ld.param.u32 %r9, [stride];
  mov.u32 %r1, %tid.x;
  mul.lo.u32 %r2, %r1, %r9;
  mov.u32 %r3, tile;
  add.u32 %r4, %r3, %r2;
  ldmatrix.sync.aligned.m8n8.xNUM.shared.b16 {REGS}, [%r4];
  st.global.u32 [%rd1], %r5;
  ret;
}
"""


@pytest.mark.parametrize("num,stride,waves", [(4, 16, 4), (4, 128, 32), (1, 128, 8), (1, 16, 1), (2, 144, 2)])
def test_ldmatrix_reads_shared_memory_with_its_lanes_row_addresses(num, stride, waves):
    regs = ",".join(f"%r{5 + i}" for i in range(num))
    k = ptxvm.loads(HEADER + LDMATRIX.replace("NUM", str(num)).replace("{REGS}", "{" + regs + "}"))["lm"]
    p = k.profile(1, 32, [np.zeros(4, np.int32), np.int32(stride)])
    assert p.bank_conflicts["requests"] == 1 and p.bank_conflicts["wavefronts"] == waves


def test_generic_wmma_load_of_a_shared_tile_is_classified_per_lane():
    src = WMMA_S.replace("LAYOUT", "row").replace(".shared.f16", ".f16").replace(
        "mov.u32 %r10, tile;", "mov.u64 %rd2, tile; cvta.shared.u64 %rd3, %rd2;").replace("[%r10]", "[%rd3]")
    k = ptxvm.loads(HEADER + src)["ws"]
    p = k.profile(1, 32, [np.zeros(4, np.int32), np.int32(16)])
    tr = p.collected.sms[0][0]
    info = next(tr.info(s.pc) for s in tr.steps if s.parts is not None)
    assert info.mem.space == "generic" and info.sass == 4  # LD.E: no LDSM through a generic address
    assert p.bank_conflicts["requests"] == 4 and p.counters.get("global_load_requests", 0) == 0
