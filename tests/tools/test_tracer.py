"""The tracer (ptxvm.tools.tracer, `kernel.trace`, `ptxvm trace`): per-warp instruction records."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import ptxvm
from ptxvm.engine.core.memory import RESERVED_SHARED  # the H200's reserved KiB before a CTA's variables
from ptxvm.cli import main

PTX = Path(__file__).with_name("trace_kernel.ptx")
N = 128  # grid 2 x block 64: two warps per CTA


@pytest.fixture(scope="module")
def kernel():
    return ptxvm.load(str(PTX)).kernel("k")


def _args():
    return [np.zeros(N, np.uint32), np.arange(N, dtype=np.uint32) * 10]


def _expected(x):
    """Both CTAs read in[tid.x] and write out[tid.x] (the same values): out[64:] stays 0."""
    t = np.arange(N)
    return np.where(t < 64, x + np.where(t % 2 == 1, 100, 3), 0).astype(np.uint32)


def _hex(v):
    return [int(s, 16) if s is not None else None for s in v]


def test_one_record_per_warp_instruction(kernel):
    out, x = _args()
    t = kernel.trace(2, 64, [out, x])
    assert t.fault is None
    assert len(t) == t.stats.warp_instructions
    plain = kernel.launch(2, 64, list(_args()))
    assert t.stats.warp_instructions == plain.warp_instructions
    assert t.stats.thread_instructions == plain.thread_instructions
    # per warp, the lanes of its records sum to its thread instructions
    assert sum(bin(r.mask).count("1") for r in t) <= t.stats.thread_instructions
    for cta in [(0, 0, 0), (1, 0, 0)]:
        for w in (0, 1):
            assert sum(1 for r in t if r.cta == cta and r.warp == w) == len(t) // 4


def test_tracing_leaves_results_unchanged(kernel):
    out, x = _args()
    kernel.trace(2, 64, [out, x])
    ref, x2 = _args()
    kernel.launch(2, 64, [ref, x2])
    np.testing.assert_array_equal(out, ref)
    np.testing.assert_array_equal(out, _expected(x))


def test_masks_under_divergence_and_loop(kernel):
    t = kernel.trace(2, 64, _args(), ctas=[(0, 0, 0)], warps=[0])
    odd = [r for r in t if r.text == "add.u32 %r2, %r2, 100;"]
    loop = [r for r in t if r.text == "add.u32 %r2, %r2, 1;"]
    assert [r.mask for r in odd] == [0xAAAAAAAA]
    assert [r.mask for r in loop] == [0x55555555] * 3
    assert odd[0].lanes().tolist() == list(range(1, 32, 2))
    # the guarded branch issued for the whole warp; its guard held on the even lanes
    bra = [r for r in t if r.text == "@%p1 bra EVEN;"]
    assert [r.mask for r in bra] == [0x55555555]
    back = [r for r in t if r.text == "@%p2 bra LOOP;"]
    assert [r.mask for r in back] == [0x55555555, 0x55555555, 0]  # the last test fails on every lane
    # the loop counter's values as written, iteration by iteration
    counter = [r.writes["%r4"] for r in t if r.text == "add.u32 %r4, %r4, 1;"]
    assert [int(v[0]) for v in counter] == [1, 2, 3]
    # the store after reconvergence runs in two groups: odd lanes first, then even ones
    st = [r for r in t if r.opcode == "st" and r.space == "global"]
    assert sorted(r.mask for r in st) == [0x55555555, 0xAAAAAAAA]


def test_addresses_values_and_lines(kernel):
    out, x = _args()
    t = kernel.trace(2, 64, [out, x], ctas=[(1, 0, 0)], warps=[1])
    assert {r.cta for r in t} == {(1, 0, 0)} and {r.warp for r in t} == {1}
    tid = 32 + np.arange(32)
    base_in = int(next(r for r in t if r.text == "ld.param.u64 %rd2, [in];").writes["%rd2"][0])
    base_out = int(next(r for r in t if r.text == "ld.param.u64 %rd1, [out];").writes["%rd1"][0])
    ld = next(r for r in t if r.text.startswith("ld.global"))
    assert ld.space == "global" and ld.size == 4 and ld.address_mask == 0xFFFFFFFF
    assert ld.addresses.tolist() == (base_in + 4 * tid).tolist()
    assert ld.writes["%r2"].tolist() == x[tid].tolist()
    assert ld.source == ("k.cu", 6) and ld.ptx_line == 19
    sts = next(r for r in t if r.text.startswith("st.shared"))
    lds = next(r for r in t if r.text.startswith("ld.shared"))
    assert sts.space == "shared" and sts.addresses.tolist() == (RESERVED_SHARED + 4 * tid).tolist()
    assert lds.addresses.tolist() == sts.addresses.tolist()
    stg = [r for r in t if r.text.startswith("st.global")]
    got = {}
    for r in stg:
        for lane in r.lanes():
            got[lane] = int(r.addresses[lane])
    assert [got[i] for i in range(32)] == (base_out + 4 * tid).tolist()
    assert all(r.source == ("k.cu", 12) for r in stg)
    d = ld.to_dict()
    assert d["source"] == "k.cu:6" and d["ptx_loc"].endswith("trace_kernel.ptx:19") and d["mask"] == "0xffffffff"
    assert _hex(d["addresses"]) == ld.addresses.tolist() and _hex(d["writes"]["%r2"]) == x[tid].tolist()
    odd = next(r for r in t if r.text == "add.u32 %r2, %r2, 100;").to_dict()
    lanes = _hex(odd["writes"]["%r2"])
    assert lanes[0::2] == [None] * 16 and lanes[1::2] == (x[tid][1::2] + 100).tolist()


def test_filters(kernel):
    full = kernel.trace(2, 64, _args())
    by_cta = kernel.trace(2, 64, _args(), ctas=[1])
    assert len(by_cta) == len(full) // 2 and {r.cta for r in by_cta} == {(1, 0, 0)}
    ops = kernel.trace(2, 64, _args(), opcodes=["ld", "st"])
    assert {r.opcode for r in ops} == {"ld", "st"}
    assert len(ops) == sum(1 for r in full if r.opcode in ("ld", "st"))
    pcs = kernel.trace(2, 64, _args(), pc_range=(5, 11))
    assert {r.pc for r in pcs} == set(range(5, 11))
    assert len(pcs) == sum(1 for r in full if 5 <= r.pc < 11)
    assert kernel.trace(2, 64, _args(), warps=[7]) == []


def test_jsonl(kernel, tmp_path):
    t = kernel.trace(2, 64, _args(), warps=[0])
    path = tmp_path / "t.jsonl"
    t.to_jsonl(path)
    lines = path.read_text().splitlines()
    assert len(lines) == len(t)
    recs = [json.loads(line) for line in lines]
    assert recs[0]["pc"] == 0 and recs[0]["cta"] == [0, 0, 0] and recs[0]["warp"] == 0
    assert all(len(v) == 32 for r in recs for v in r["writes"].values())


def test_fault_keeps_the_records_before_it():
    src = """.version 8.0
.target sm_90
.address_size 64
.visible .entry bad()
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<3>;
    mov.u32 %r1, 7;
    mov.u64 %rd1, 0;
    ld.global.u32 %r2, [%rd1];
    ret;
}
"""
    t = ptxvm.loads(src).kernel("bad").trace(1, 32, [])
    assert t.fault is not None
    assert [r.pc for r in t] == [0, 1]


def test_cli(tmp_path):
    x = tmp_path / "x.npy"
    np.save(x, np.arange(N, dtype=np.uint32) * 10)
    o = tmp_path / "o.npy"
    out = tmp_path / "t.jsonl"
    base = ["trace", str(PTX), "-k", "k", "-g", "2", "-b", "64", "-a", f"out:{o}:u32:{N}", "-a", f"in:{x}"]
    run = CliRunner().invoke(main, base + ["-o", str(out)])
    assert run.exit_code == 0, run.output
    recs = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(recs) == 140
    np.testing.assert_array_equal(np.load(o), _expected(np.load(x)))
    run = CliRunner().invoke(main, base + ["--cta", "1,0,0", "--warp", "1", "--opcode", "ld,st", "--pc-range", "0:9"])
    assert run.exit_code == 0, run.output
    recs = [json.loads(line) for line in run.stdout.splitlines()]
    assert [r["pc"] for r in recs] == [0, 1, 5, 8]
    assert all(r["cta"] == [1, 0, 0] and r["warp"] == 1 for r in recs)
    assert recs[3]["space"] == "shared" and _hex(recs[3]["addresses"]) == list(range(RESERVED_SHARED + 128, RESERVED_SHARED + 256, 4))
    run = CliRunner().invoke(main, ["trace", str(PTX), "-k", "nope"])
    assert run.exit_code == 1 and "nope" in run.output
    run = CliRunner().invoke(main, base + ["--pc-range", "x"])
    assert run.exit_code == 2
    # a fault: the records before it are written, the exit status is 1
    run = CliRunner().invoke(main, ["trace", str(PTX), "-k", "k", "-b", "32", "-a", "u64:0", "-a", "u64:0", "-o", str(out)])
    assert run.exit_code == 1 and "out-of-bounds global access" in run.output
    assert [json.loads(line)["pc"] for line in out.read_text().splitlines()] == [0, 1, 2, 3, 4]


def test_b128_and_float_registers_as_raw_bits():
    src = """.version 8.3
.target sm_90
.address_size 64
.visible .entry w(.param .u64 p)
{
    .reg .b128 %q<2>;
    .reg .b64 %rd<4>;
    .reg .f32 %f<2>;
    mov.u64 %rd1, 0x1122334455667788;
    mov.u64 %rd2, 0x99aabbccddeeff00;
    mov.b128 %q1, {%rd1, %rd2};
    mov.f32 %f1, 0f3F800000;
    ret;
}
"""
    t = ptxvm.loads(src).kernel("w").trace(1, 32, [np.zeros(4, np.uint64)])
    q = next(r for r in t if r.text.startswith("mov.b128")).to_dict()["writes"]["%q1"]
    assert q == ["0x99aabbccddeeff001122334455667788"] * 32
    f = next(r for r in t if r.text.startswith("mov.f32")).to_dict()["writes"]["%f1"]
    assert f == ["0x3f800000"] * 32
