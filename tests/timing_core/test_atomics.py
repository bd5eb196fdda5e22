"""Global atomics in the timing model (ptxvm/timing/atomics.py): packets per sector, ptxas's warp
aggregation, L2 slices, and the structure of the predicted costs. Expectations are relative
(more packets cost more, a float update of one word is slower than an integer one), never
measured times."""
import numpy as np
import pytest

from ptxvm.engine.trace.info import describe
from ptxvm.timing.atomics import aggregated_pcs, grid_packets, packets, slice_of
from ptxvm.timing.params import DEFAULT

from .ptx_cases import load

BASE = np.uint64(1 << 40)


def _addr(offsets):
    a = np.asarray(offsets, dtype=np.uint64) + BASE
    return a.reshape(1, -1), np.ones((1, a.size), bool)


@pytest.mark.parametrize("offsets, expect", [
    ([0] * 32, [32]),  # 32 lanes on one address: 32 passes
    (np.arange(32) * 4, [4]),  # 32 words of one line: a packet per sector
    ((np.arange(32) % 2) * 4, [16]),  # two addresses of one sector, 16 lanes each
    ((np.arange(32) % 4) * 32, [32]),  # one address in each of 4 sectors, 8 lanes each: 4 x 8
    (np.arange(32) * 128, [1] * 32),  # 32 lines, a lane each
])
def test_packets_are_the_passes_of_each_sector(offsets, expect):
    addr, act = _addr(offsets)
    (lines,) = packets(addr, act)
    assert sorted(k for _, k, _ in lines) == sorted(expect)


def test_single_word_packets_count_sectors_with_one_address_only():
    addr, act = _addr([0] * 16 + [64] * 8 + list(64 + 4 * np.arange(8)))
    (lines,) = packets(addr, act)
    # sector 0: one address, 16 passes (single word); sector 2: 9 lanes on a first word, 8 words: 9 passes
    assert lines == (((int(BASE) >> 7), 16 + 9, 16),)


def test_aggregated_request_is_one_packet_and_masked_lanes_do_not_count():
    addr, act = _addr([0] * 32)
    assert packets(addr, act, aggregated=True) == [((int(BASE) >> 7, 1, 1),)]
    act[0, 1:] = False
    assert packets(addr, act) == [((int(BASE) >> 7, 1, 1),)]


def test_grid_packets_agree_with_the_per_warp_count():
    rng = np.random.default_rng(1)
    addr = (BASE + rng.integers(0, 64, (6, 32)).astype(np.uint64) * np.uint64(8))
    act = np.ones(addr.shape, bool)
    per_line: dict = {}
    for lines in packets(addr, act):
        for ln, k, _ in lines:
            per_line[ln] = per_line.get(ln, 0) + k
    warp = np.repeat(np.arange(6), 32)
    assert grid_packets(warp, addr.reshape(-1)) == per_line


def test_neighbouring_lines_share_a_slice_and_a_1kb_block_uses_two():
    line = (1 << 30) >> 7
    lines = np.arange(line, line + 8, dtype=np.uint64)
    got = slice_of(lines, 64).tolist()
    assert got == [slice_of(int(x), 64) for x in lines]
    assert got[0] == got[1] and got[2] == got[3] and got[0] != got[2]
    assert len(set(got)) == 2
    spread = slice_of(np.arange(line, line + 8448, dtype=np.uint64), 64)
    assert np.bincount(spread, minlength=64).min() > 0


UNIFORM = """
.visible .entry k(.param .u64 p, .param .u32 z)
{
  .reg .b32 %r<8>; .reg .b64 %rd<12>; .reg .f32 %f<2>; .reg .pred %s;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %ctaid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  red.global.add.u32 [%rd4], 1;
  mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd5, %r2, 4;
  add.s64 %rd6, %rd2, %rd5;
  red.global.add.u32 [%rd6], 1;
  red.global.add.f32 [%rd4], 0f3F800000;
  atom.global.exch.b32 %r3, [%rd4], 1;
  atom.global.add.u32 %r4, [%rd4], %r2;
  ld.global.u64 %rd7, [%rd2];
  red.global.or.b32 [%rd7], %r2;
  ld.param.u32 %r6, [z];
  and.b32 %r5, %r2, %r6;
  mul.wide.u32 %rd8, %r5, 4;
  add.s64 %rd9, %rd2, %rd8;
  red.global.add.u32 [%rd9], 1;
  setp.eq.u32 %s, %r2, 0;
  @%s red.global.add.u32 [%rd2], 1;
  ret;
}
"""


def test_ptxas_aggregates_integer_atomics_on_provably_uniform_addresses():
    code = load(UNIFORM)["k"].module.program.code
    infos = [describe(op, pc) for pc, op in enumerate(code)]
    agg = aggregated_pcs(load(UNIFORM)["k"].module.program)
    got = [i.pc in agg for i in infos if i.mem and i.mem.atomic]
    # ctaid-based add: yes; tid-based: no; f32: no; exch: no; atom.add.u32 of per-lane values (a
    # scan): yes; or on a loaded uniform address: yes; tid & z (z = 0 at run time): no; a guard
    # that depends on tid: yes (VOTEU over the lanes that take part)
    assert got == [True, False, False, False, True, True, False, True]
    assert [i.mem.atomic_op for i in infos if i.mem and i.mem.atomic][:4] == ["add.u32", "add.u32", "add.f32", "exch.b32"]


UNUSED_VALUE = """
.visible .entry k(.param .u64 p)
{
  .reg .b64 %rd<8>;
  .reg .b32 %r<4>;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  atom.global.add.u64 %rd3, [%rd2], 1;
  atom.global.add.u64 %rd4, [%rd2+8], 1;
  st.global.u64 [%rd2+16], %rd4;
  atom.global.max.u32 %r1, [%rd2+24], 5;
  ret;
}
"""


def test_an_atom_whose_value_nothing_reads_aggregates_as_a_red():
    """ptxas turns an atom whose result is never read into a red, and a red.add.u64 / max.u32 at
    a uniform address into one request per warp (HeCBench atomicPerf's atomicAdd(p, 1ull): POPC,
    one REDG.E.ADD.64); an atom.add.u64 whose value is stored stays a per-lane atom."""
    program = load(UNUSED_VALUE)["k"].module.program
    infos = [describe(op, pc) for pc, op in enumerate(program.code)]
    agg = aggregated_pcs(program)
    assert [i.pc in agg for i in infos if i.mem and i.mem.atomic] == [True, False, True]


def _kernel(op: str, ty: str, value: str, offset: str) -> str:
    """Each warp does `n` atomics; lane address p + 4 x %r4, `offset` computes %r4 from %r2 (the
    lane) and %r5 (the parameter z, 0)."""
    return f"""
.visible .entry k(.param .u64 p, .param .u32 n, .param .u32 z)
{{
  .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %s;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  ld.param.u32 %r5, [z];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r3, %tid.x;
  and.b32 %r2, %r3, 31;
  {offset}
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd4, %rd2, %rd3;
LOOP:
  red.global.{op}.{ty} [%rd4], {value};
  sub.s32 %r1, %r1, 1;
  setp.ne.s32 %s, %r1, 0;
  @%s bra LOOP;
  ret;
}}
"""


SAME = "and.b32 %r4, %r2, %r5;"  # every lane on word 0: lane & z, z = 0 at run time (not provably uniform)
COALESCED = "mov.u32 %r4, %r2;"  # lane i on word i


def _cycles(src, grid=1, block=32, n=64, **params):
    buf = np.zeros(1 << 16, np.uint32)
    k = load(src)["k"]
    prof = [k.profile(grid, block, [buf, np.uint32(it), np.uint32(0)], params=DEFAULT.with_(**params))
            for it in (n, 2 * n)]
    return (prof[1].sm_cycles - prof[0].sm_cycles) / n


def test_lanes_on_one_address_serialize_and_a_coalesced_line_does_not():
    same = _cycles(_kernel("add", "u32", "1", SAME))
    line = _cycles(_kernel("add", "u32", "1", COALESCED))
    # 32 passes on one word, at the slice's rate (slower than the SM sends them)
    assert same == pytest.approx(32 * max(DEFAULT.atomic_pass_cycles, DEFAULT.atomic_packet_cycles), rel=0.15)
    assert line < same / 3


def test_float_updates_of_one_word_wait_for_the_adder():
    u32 = _cycles(_kernel("add", "u32", "1", SAME))
    f32 = _cycles(_kernel("add", "f32", "0f3F800000", SAME))
    assert f32 == pytest.approx(32 * DEFAULT.atomic_float_pass_cycles, rel=0.15)
    assert f32 > 2 * u32
    # words of one line: as fast as integers
    assert _cycles(_kernel("add", "f32", "0f3F800000", COALESCED)) == pytest.approx(
        _cycles(_kernel("add", "u32", "1", COALESCED)), rel=0.1)


def test_a_uniform_address_is_one_request_per_warp():
    uniform = _cycles(_kernel("add", "u32", "1", "mov.u32 %r4, 0;"))
    runtime_same = _cycles(_kernel("add", "u32", "1", SAME))
    assert uniform < runtime_same / 3


def test_more_sms_on_one_address_cost_each_sm_more():
    few = _cycles(_kernel("add", "u32", "1", SAME), grid=4, block=256, n=8)
    many = _cycles(_kernel("add", "u32", "1", SAME), grid=132, block=256, n=8)
    assert many > 10 * few


def test_uniformity_is_per_function():
    two = """
.visible .entry a(.param .u64 p)
{
  .reg .b32 %r<2>; .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd1, %r1, 4;
  red.global.add.u32 [%rd1], 1;
  ret;
}
.visible .entry b(.param .u64 p)
{
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  red.global.add.u32 [%rd1], 1;
  ret;
}
"""
    program = load(two)["b"].module.program
    code = program.code
    got = sorted(describe(code[pc], pc).line for pc in aggregated_pcs(program))
    assert len(got) == 1 and got[0] > 9  # b's red only, though a's %rd1 varies
