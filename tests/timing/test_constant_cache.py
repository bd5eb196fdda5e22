"""The constant path of the timing model (docs/timing-model.md section 3, "Constant memory"):
which ld.const are ULDC (timing/uniformity.py), the two levels and the ULDC line buffer
(timing/memory/hierarchy.py const_load), the constant port and ULDC's hold on its warp
(timing/sm.py). Expectations are the model's structure (latencies as sums of its parameters,
more work costs more), never measured times. PTX: benchmarks/timing/constmem/const.ptx."""
import os

import numpy as np
import pytest

import ptxvm
from ptxvm.engine.trace.info import describe
from ptxvm.timing.gpu import load_gpu
from ptxvm.timing.memory import MemoryHierarchy
from ptxvm.timing.uniformity import uldc_pcs

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CONST_PTX = os.path.join(ROOT, "benchmarks", "timing", "constmem", "const.ptx")
ALL = np.ones((1, 32), bool)


@pytest.fixture(scope="module")
def const_module():
    return ptxvm.load(CONST_PTX)


def _uniform(byte):
    return np.full((1, 32), byte, np.uint64)


def _hier():
    return MemoryHierarchy(load_gpu("h200"), 1)


def test_ldc_or_uldc_as_ptxas_compiles_them(const_module):
    """ptxas 13 (sm_90a) makes ULDC of uchase's, ustream's and uldc_tput's loads and LDC of the
    lane-offset ones (dchase, ldc_tput): the model's uniformity analysis agrees."""
    program = const_module.program
    pcs = uldc_pcs(program)
    starts = sorted((f.entry_pc, name) for name, f in program.functions.items())
    kinds: dict = {}
    for pc, op in enumerate(program.code):
        info = describe(op, pc)
        if info.mem is not None and info.mem.space == "const":
            name = [n for s, n in starts if s <= pc][-1]
            kinds.setdefault(name, set()).add(pc in pcs)
    assert kinds["uchase"] == kinds["ustream"] == kinds["uldc_tput"] == {True}
    assert kinds["dchase"] == kinds["ldc_tput"] == {False}


def test_ldc_latency_is_first_level_replays_and_fetched_lines():
    h = _hier()
    p = h.params
    cold = h.const_load(_uniform(4096), ALL, 4)[0]
    # a cold line: first level, L1.5 and L2 missed (the empty L2 sends it to DRAM)
    assert cold >= p.lat_const_hit + p.const_l15_cycles + p.const_l2_cycles + p.const_dram_cycles
    assert h.const_load(_uniform(4096), ALL, 4)[0] == p.lat_const_hit
    eight = np.uint64(4096) + (np.arange(32, dtype=np.uint64) % 8) * np.uint64(4)
    assert h.const_load(eight.reshape(1, 32), ALL, 4)[0] == p.lat_const_hit + 7 * p.const_replay_cycles
    assert h.last["passes"][0] == 8 and h.last["fetches"][0] == 0


def test_ldc_first_level_is_2_kib_of_4_way_sets_behind_the_l15():
    """Lines 512 B apart share a first-level set: 4 stay, a 5th evicts; the L1.5 keeps them all."""
    h = _hier()
    p = h.params
    lines = [np.uint64(8192 + 512 * k) for k in range(5)]
    for rnd in range(2):
        for a in lines[:4]:
            lat = h.const_load(_uniform(a), ALL, 4)[0]
    assert lat == p.lat_const_hit  # four fit
    for rnd in range(2):
        for a in lines:
            lat = h.const_load(_uniform(a), ALL, 4)[0]
    assert lat == p.lat_const_hit + p.const_l15_cycles  # five thrash the set; the L1.5 serves
    assert h.last["fetches"][0] == 1


def test_uldc_line_buffer_per_sub_partition():
    h = _hier()
    p = h.params
    first = h.const_load(_uniform(64), ALL, 4, uniform=True, smsp=[0])[0]
    assert first >= p.uconst_l15_cycles + p.const_l2_cycles  # first touch in the launch
    assert h.const_load(_uniform(68), ALL, 4, uniform=True, smsp=[0])[0] == p.uconst_hit_cycles
    # another sub-partition fetches the line itself; the L1.5 has it
    assert h.const_load(_uniform(68), ALL, 4, uniform=True, smsp=[1])[0] == p.uconst_l15_cycles
    # one warp per sub-partition in one step: each fetches (4 fetches of one line)
    lat = h.const_load(np.full((4, 32), 128, np.uint64), np.ones((4, 32), bool), 4, uniform=True,
                       smsp=[0, 1, 2, 3])
    assert h.last["fetches"].tolist() == [1, 1, 1, 1]
    # two warps of one sub-partition: the second finds the first one's line
    h.const_load(np.full((2, 32), 192, np.uint64), np.ones((2, 32), bool), 4, uniform=True, smsp=[2, 2])
    assert h.last["fetches"].tolist() == [1, 0]
    assert lat.min() >= p.uconst_l15_cycles


def test_l15_holds_the_whole_64_kib_bank():
    h = _hier()
    p = h.params
    for rnd in range(2):
        lat = [h.const_load(_uniform(64 * k), ALL, 4, uniform=True, smsp=[0])[0] for k in range(1023)]
    assert set(lat) == {p.uconst_l15_cycles}


def _stream(mod, stride, threads, iters=32):
    mod.write_symbol("c_tab", np.zeros(16376, np.uint32))
    res = np.zeros(2 * 132 * 64, np.int64)
    sink = np.zeros(2048, np.float32)
    return mod["ustream"].profile(1, threads, [np.int32(iters), np.int32(stride), np.int32(4095), res, sink],
                                  gpu="h200")


def test_a_uldc_line_fetch_holds_its_warp(const_module):
    """ustream's ULDC + FADD: one warp reading a new line per load waits for each ("constant");
    the loads of one line after the first come from the sub-partition's buffer."""
    p = _stream(const_module, 16, 32)
    params = MemoryHierarchy(load_gpu("h200"), 1).params
    assert max(p.stalls, key=p.stalls.get) == "constant"
    assert p.stalls["constant"] >= 2 * 32 * params.uconst_l15_cycles * 0.9
    same_line = _stream(const_module, 1, 32)
    assert same_line.stalls["constant"] < p.stalls["constant"] / 4


def test_more_distinct_addresses_keep_the_constant_port_busier(const_module):
    const_module.write_symbol("c_tab", np.zeros(16376, np.uint32))
    res = np.zeros(2 * 132 * 64, np.int64)
    sink = np.zeros(8 * 32, np.float32)

    def cycles(k):
        args = [np.int32(8), np.int32(511), np.int32(k), np.int32(4), np.int32(0), res, sink]
        return const_module["ldc_tput"].profile(1, 256, args, gpu="h200").sm_cycles

    one, eight = cycles(1), cycles(8)
    assert eight > one
