"""Logic trees folded into LOP3 and rotates into funnel shifts (ptxvm/timing/fusion.py), against
ptxas's SASS and the H200's chain latencies (benchmarks/timing/sass/latency.py items xor3_add64,
chi_add64, chi_add32, rot_add64, chi_add64_ilp8: results/sass_latency_fold_h200.json)."""
import importlib.util
import os

import numpy as np
import pytest

import ptxvm
from ptxvm.engine.trace.info import describe
from ptxvm.timing.fusion import folded

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")

HEAD = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<16>;
    .reg .b64 %rd<16>;
    mov.u32 %r1, %tid.x;
    cvt.u64.u32 %rd1, %r1;
    add.s64 %rd2, %rd1, 7;
    add.s64 %rd3, %rd1, 9;
"""
TAIL = """    ld.param.u64 %rd14, [out];
    cvta.to.global.u64 %rd14, %rd14;
    st.global.u64 [%rd14], %rd9;
    ret;
}
"""


class _Trace:
    def __init__(self, program):
        self.program = program

    def info(self, p):
        return describe(self.program.code[p], p)


def _fold(body: str):
    program = ptxvm.loads(HEAD + body + TAIL).program
    trace = _Trace(program)
    text = {p: trace.info(p).text for p in range(len(program.code))}
    gone, reads, shifts = folded(trace, np.arange(len(program.code)))
    return text, gone, reads, shifts


def test_an_and_not_xor_tree_is_one_lop3():
    text, gone, reads, _ = _fold("""    not.b64 %rd5, %rd1;
    and.b64 %rd6, %rd5, %rd2;
    xor.b64 %rd9, %rd6, %rd3;
""")
    assert {text[p].split()[0] for p in gone} == {"not.b64", "and.b64"}
    xor = next(p for p, t in text.items() if t.startswith("xor.b64"))
    assert set(reads[xor]) == {"%rd1", "%rd2", "%rd3"}


def test_a_tree_of_four_inputs_keeps_a_second_lop3():
    text, gone, _, _ = _fold("""    xor.b64 %rd5, %rd1, %rd2;
    xor.b64 %rd6, %rd5, %rd3;
    xor.b64 %rd7, %rd6, %rd1;
    add.s64 %rd8, %rd1, 1;
    xor.b64 %rd9, %rd7, %rd8;
""")
    # rd1 ^ rd2 ^ rd3 ^ rd1 ^ rd8: three distinct inputs besides rd8 -> not all in one LOP3
    assert 1 <= len(gone) <= 3
    assert not any(text[p].startswith("add") for p in gone)


def test_a_value_read_twice_is_not_folded():
    text, gone, _, _ = _fold("""    not.b64 %rd5, %rd1;
    and.b64 %rd6, %rd5, %rd2;
    or.b64 %rd7, %rd5, %rd3;
    xor.b64 %rd9, %rd6, %rd7;
""")
    assert not any(text[p].startswith("not.b64") for p in gone)


def test_shl_shr_add_is_a_funnel_shift():
    text, gone, reads, shifts = _fold("""    shl.b64 %rd5, %rd1, 7;
    shr.b64 %rd6, %rd1, 57;
    add.s64 %rd9, %rd5, %rd6;
""")
    assert {text[p].split()[0] for p in gone} == {"shl.b64", "shr.b64"}
    (add, shl), = shifts.items()
    assert text[add].startswith("add.s64") and text[shl].startswith("shl.b64")
    assert reads[add] == ("%rd1",)


def _latency_model():
    path = os.path.join(ROOT, "benchmarks", "timing", "sass", "latency_model.py")
    spec = importlib.util.spec_from_file_location("latency_model", path)
    lm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lm)
    return lm


@pytest.mark.parametrize("item", ["xor3_add64", "chi_add64", "chi_add32", "rot_add64", "chi_add64_ilp8"])
def test_folded_chains_follow_the_h200(item):
    """10 cycles a link for xor3 / chi + a 64-bit add (LOP3 per half, IADD3 + IMAD.X), 14 for a
    64-bit rotate + add (SHF.L.W per half), 7.1 for 8 chi chains at once; counted unfolded, the
    model gave 15 / 20 / 16 / 22 / 17."""
    lm = _latency_model()
    measured = lm.measured_items()[item]["cycles_per_link"]
    chains = 8 if item.endswith("ilp8") else 1
    got, _ = lm.model_cycles_per_link(ptxvm.load(lm.PTX_PATH), item, chains)
    assert got == pytest.approx(measured, rel=0.25)


def test_numba_cuda_ptx_runs_and_profiles_through_the_folds():
    """PTX this project did not write: numba-cuda's for a 64-round 64-bit mixing loop (shifts,
    and-not, xor, adds; NVVM unrolls it). Its result equals NumPy's, and the model issues fewer
    machine instructions with the folds than without."""
    pytest.importorskip("numba.cuda", reason="numba-cuda is not installed (the `numba` extra)")
    from numba import cuda

    import ptxvm.numba as pn
    from ptxvm.frontdoor.numba_cuda import _host_arrays, _marshal
    from ptxvm.timing.params import DEFAULT
    from ptxvm.timing.profile import collect, simulate

    @cuda.jit
    def rounds(a, out):
        i = cuda.grid(1)
        x = a[i]
        y = a[i] ^ np.uint64(0x9E3779B97F4A7C15)
        for r in range(64):
            x = (x << np.uint64(13)) | (x >> np.uint64(51))
            x ^= (~y) & (x ^ np.uint64(r * 7919))
            y = (y + x) ^ (y >> np.uint64(7))
        out[i] = x ^ y

    kernel = pn.jit(rounds)
    a = np.arange(2 * 64, dtype=np.uint64)
    out = np.zeros_like(a)
    kernel[2, 64](a, out)
    x, y = a.copy(), a ^ np.uint64(0x9E3779B97F4A7C15)
    for r in range(64):
        x = (x << np.uint64(13)) | (x >> np.uint64(51))
        x ^= (~y) & (x ^ np.uint64(r * 7919))
        y = (y + x) ^ (y >> np.uint64(7))
    assert np.array_equal(out, x ^ y)

    args = _host_arrays([a, np.zeros_like(a)])
    sig = kernel.signature(args)
    module, entry, _ = kernel.compile(sig)
    params, staged = _marshal(args, sig)
    try:
        col = collect(module.kernel(entry), 2, 64, params)
    finally:
        for _, dev in staged:
            dev.free()
    on = simulate(col, params=DEFAULT).sass_instructions
    off = simulate(col, params=DEFAULT.with_(fold_logic=False)).sass_instructions
    assert 0 < on < off, (on, off)
