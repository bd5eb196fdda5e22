"""The instruction caches (ptxvm/timing/icache.py) against the H200's instruction-fetch
microbenchmark (benchmarks/timing/ifetch: results/ifetch_h200.json, ifetch2_h200.json, timed by
tools/device/replay_launches.py over the captures of cases.py)."""
import importlib.util
import json
import os
import struct

import numpy as np
import pytest

import ptxvm
from ptxvm.timing.icache import InstructionCache, _trip_index, _unrollable_loops
from ptxvm.timing.occupancy import text_sizes
from ptxvm.timing.params import DEFAULT

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
IFETCH = os.path.join(ROOT, "benchmarks", "timing", "ifetch")
RESULTS = os.path.join(ROOT, "benchmarks", "timing", "results")


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"ifetch_{name}", os.path.join(IFETCH, f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


build, cases = _load("build"), _load("cases")

SECOND_RUN = (2560, 3072, 3584, 6144, 10240, 12288)


def measured() -> dict:
    """(size, reps, threads) -> {"cold": us, "warm": us}: the cases of each run in cases.cases order."""
    out = {}
    for name, sizes in (("ifetch_h200.json", build.SIZES), ("ifetch2_h200.json", SECOND_RUN)):
        got = json.load(open(os.path.join(RESULTS, name)))["cases"]
        for (key, rec), case in zip(sorted(got.items()), cases.cases(sizes)):
            assert rec["kernel"] == f"ifetch_{case[0]}", (name, key, rec["kernel"], case)
            out[case] = rec
    return out


def predict(tmp_path, size: int, reps: int, threads: int, warm: bool) -> float:
    path = tmp_path / f"ifetch_{size}.ptx"
    path.write_text(build.module_text((size,)))
    kernel = ptxvm.load(str(path))[f"ifetch_{size}"]
    out = np.zeros(cases.SMS * threads, np.uint32)
    prof = kernel.profile(cases.SMS, threads, [out, np.uint32(reps)], warm_l2=warm, functional="sampled")
    return prof.seconds * 1e6


def test_the_recorded_runs_cover_every_case():
    got = measured()
    assert len(got) == len(cases.cases(build.SIZES)) + len(cases.cases(SECOND_RUN))
    # what the mechanism is for: one warp, straight code of 512 KB, an order of magnitude slower
    # (cold) than the same instructions looped in 4 KB
    assert got[(32768, 1, 32)]["cold"] / 2 > got[(256, 64, 32)]["cold"] * 5


@pytest.mark.parametrize("size,reps,threads,warm", [
    (2048, 8, 32, False),     # a 32 KB loop body: the first level holds it
    (4096, 4, 32, False),     # 64 KB: streamed from the second level every trip
    (6144, 1, 128, True),     # 96 KB once: the second level kept it from the previous launch
    (16384, 1, 32, False),    # 256 KB once, cold: from DRAM
    (16384, 1, 32, True),     # ... warm: from L2
    (16384, 1, 512, False),   # 16 warps in step fetch each line once
])
def test_model_follows_the_h200(tmp_path, size, reps, threads, warm):
    want = measured()[(size, reps, threads)]["warm" if warm else "cold"]
    got = predict(tmp_path, size, reps, threads, warm)
    assert got == pytest.approx(want, rel=0.15), (size, reps, threads, warm, got, want)


def test_code_that_fits_costs_nothing(tmp_path):
    """Under the first level's size the instruction-cache model is not engaged at all."""
    path = tmp_path / "small.ptx"
    path.write_text(build.module_text((1024,)))
    kernel = ptxvm.load(str(path))["ifetch_1024"]
    out = np.zeros(32, np.uint32)
    prof = kernel.profile(1, 32, [out, np.uint32(4)])
    assert prof.stalls.get("instruction_fetch", 0) < 0.02 * sum(prof.stalls.values())


def test_cache_streams_at_the_fill_interval():
    p = DEFAULT
    lines = list(range(4096))  # 512 KB straight, far beyond both levels
    for cold, per_line in ((False, p.icache_l2_cycles), (True, p.icache_dram_cycles)):
        c = InstructionCache(p, cold, lines[-1], lines)
        t = 0.0
        for line in lines:
            t = max(t, c.fetch(line, t)) + 1.0  # a warp that would issue a line a cycle
        assert t / len(lines) == pytest.approx(per_line, rel=0.1)
    loop = list(range(64))  # 8 KB looped: after the first launches, all hits
    c = InstructionCache(p, True, loop[-1], loop)
    assert max(c.fetch(line, 100.0) for line in loop) <= 100.0


def test_a_counted_loop_is_laid_out_unrolled():
    # one warp: pcs 0..1, a loop 2..4 taken back twice per entry (3 trips), entered twice
    body = [2, 3, 4]
    seq = [0, 1] + body * 3 + [5] + body * 3 + [6]
    pc = np.array(seq)
    row = np.zeros(pc.size, np.int64)
    taken = np.zeros(pc.size, bool)
    taken[:-1] = pc[1:] != pc[:-1] + 1
    sizes = np.full(8, 16)
    loops = _unrollable_loops(pc, row, taken, sizes)
    assert loops == [(2, 4, 3, 48.0)]
    inside = (pc >= 2) & (pc <= 4)
    trips = _trip_index(pc, row, taken, 2, 4)
    assert trips[inside].tolist() == [0, 0, 0, 1, 1, 1, 2, 2, 2] * 2


def test_trips_count_from_the_back_edges_not_the_head():
    # the list schedule put the head (2) before a pre-loop instruction (1): still trip 0
    seq = [0, 2, 1, 3] + [2, 3] * 3 + [4]
    pc = np.array(seq)
    row = np.zeros(pc.size, np.int64)
    taken = np.zeros(pc.size, bool)
    taken[:-1] = pc[1:] != pc[:-1] + 1
    assert _unrollable_loops(pc, row, taken, np.full(5, 16)) == [(2, 3, 4, 32.0)]
    assert _trip_index(pc, row, taken, 2, 3).tolist() == [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 0]


def test_a_loop_whose_trips_differ_is_left_alone():
    seq = [0] + [1, 2] * 2 + [3, 0] + [1, 2] * 5 + [3]
    pc = np.array(seq)
    row = np.zeros(pc.size, np.int64)
    taken = np.zeros(pc.size, bool)
    taken[:-1] = pc[1:] != pc[:-1] + 1
    loops = _unrollable_loops(pc, row, taken, np.full(4, 16))
    assert all(h != 1 for h, *_ in loops)


def _elf(sections: dict) -> bytes:
    """A minimal 64-bit little-endian ELF holding `sections` (name -> bytes) and .shstrtab."""
    names = b"\0" + b"".join(n.encode() + b"\0" for n in sections) + b".shstrtab\0"
    body, headers, offset = b"", [b"\0" * 64], 64
    at = 1
    for name, data in list(sections.items()) + [(".shstrtab", names)]:
        headers.append(struct.pack("<IIQQQQIIQQ", at, 1, 0, 0, offset + len(body), len(data), 0, 0, 1, 0))
        at += len(name) + 1
        body += data
    shoff = 64 + len(body)
    head = bytearray(64)
    head[:6] = b"\x7fELF\x02\x01"
    struct.pack_into("<Q", head, 0x28, shoff)
    struct.pack_into("<HHH", head, 0x3A, 64, len(headers), len(headers) - 1)
    return bytes(head) + body + b"".join(headers)


def test_cubin_text_sections():
    elf = _elf({".text.kern_a": b"\0" * 48, ".nv.info": b"\1" * 8, ".text.kern_b": b"\0" * 4096})
    assert text_sizes(elf) == {"kern_a": 48, "kern_b": 4096}
    assert text_sizes(b"not an elf") == {}
    assert text_sizes(elf[:40]) == {}


def test_ptxas_code_size_reaches_the_model(tmp_path):
    from ptxvm import toolchain
    from ptxvm.timing.occupancy import code_bytes

    if os.environ.get("PTXVM_NO_PTXAS") or not toolchain.find("ptxas"):
        pytest.skip("ptxas is not installed: the model estimates the code size from the PTX")
    path = tmp_path / "k.ptx"
    path.write_text(build.module_text((1024,)))
    module = ptxvm.load(str(path))
    # 1024 body instructions + ~40 of set-up, loop and store, 16 B each (ptxas 13.0: 17024 B)
    assert 16 * 1024 < code_bytes(module, "ifetch_1024") < 18 * 1024
