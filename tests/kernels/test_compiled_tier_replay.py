"""Real kernels with the compiled tier (ptxvm/engine/compiled) off and on, bit for bit.

A sample of the recorded kernels (tests/goldens/kernels: divergent loops, a spin lock, warp
reductions, shared-memory tiles) and the engine benchmarks' nvcc kernels (tests/corpus/ptx) run
twice: interpreted, and with the blocks that run at least THRESHOLD thread-instructions compiled
(the disk cache keeps them for the next run). Every array and the launch statistics must be
identical, the recorded ones must still match the H200, and some block must have run compiled.
"""
from __future__ import annotations

import contextlib
import io
import json
import pathlib

import numpy as np
import pytest

import cases as C
import ptxvm
from test_golden_replay import GOLDENS, _compare, _host_args

pytest.importorskip("numba", reason="the compiled tier needs Numba; without it the interpreter runs")

THRESHOLD = "20000"  # thread-instructions: loop bodies compile, straight-line prologues do not
SAMPLE = ["mandelbrot", "reduce_shfl_max_i32", "softmax_rows_warp", "median_filter9",
          "sgemm_naive"]
CORPUS = pathlib.Path(__file__).resolve().parents[1] / "corpus" / "ptx"


def _both(module, kernel, grid, block, make_args, monkeypatch, **kw):
    monkeypatch.setenv("PTXVM_JIT_THRESHOLD", THRESHOLD)
    monkeypatch.setenv("PTXVM_WORKERS", "1")  # the compiled blocks are counted in this process
    runs = {}
    for jit in (False, True):
        args = make_args()
        with contextlib.redirect_stdout(io.StringIO()):
            stats = module[kernel].launch(grid, block, args, jit=jit, **kw)
        runs[jit] = (args, stats)
    (a_off, s_off), (a_on, s_on) = runs[False], runs[True]
    for x, y in zip(a_off, a_on):
        if isinstance(x, np.ndarray):
            assert np.array_equal(x.view(np.uint8), y.view(np.uint8))
    assert (s_off.thread_instructions, s_off.warp_instructions, s_off.waves) == \
        (s_on.thread_instructions, s_on.warp_instructions, s_on.waves)
    compiled = [op.fused for op in module.program.code if op.fused is not None and op.fused.function is not None]
    assert compiled, "no block ran compiled"
    return a_on


@pytest.mark.parametrize("name", SAMPLE)
def test_recorded_kernel_same_bits_with_tier(name, monkeypatch):
    case = next(c for c in C.CASES if c.name == name)
    golden = np.load(GOLDENS / f"{name}.npz")
    meta = json.loads((GOLDENS / f"{name}.meta.json").read_text())
    module = ptxvm.loads(golden["ptx"].tobytes().decode(), f"{name}.ptx")
    args = _both(module, meta["kernel"], tuple(meta["grid"]), tuple(meta["block"]), lambda: _host_args(case, golden),
                 monkeypatch, shared_mem=meta.get("shared_mem", 0))
    for i, spec in enumerate(case.args):
        if f"arg{i}.out" in golden:
            _compare(f"{name} {spec.name}", spec.check, args[i], golden[f"arg{i}.out"])


def _corpus(stem):
    return ptxvm.load(CORPUS / f"{stem}.sm_90.ptx")


def test_collatz_divergent(monkeypatch):
    n = 2048
    start = np.random.default_rng(0).integers(1, 1 << 20, n).astype(np.uint64)
    out = _both(_corpus("collatz"), "collatz_steps", n // 256, 256,
                lambda: [start.copy(), np.zeros(n, np.int32), np.int32(n)], monkeypatch)
    assert out[1].max() > 100


def test_fma_loop_and_sgemm(monkeypatch):
    n = 4096
    x = np.linspace(-1, 1, n, dtype=np.float32)
    coeffs = np.linspace(0.5, 1.5, 65, dtype=np.float32)
    _both(_corpus("fma_loop"), "fma_horner", n // 256, 256,
          lambda: [x, coeffs, np.int32(64), np.zeros(n, np.float32), np.int32(n)], monkeypatch)
    m = 64
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, m)).astype(np.float32)
    b = rng.standard_normal((m, m)).astype(np.float32)
    _both(_corpus("sgemm"), "sgemm_tiled16", (m // 16, m // 16), (16, 16),
          lambda: [np.int32(m), np.int32(m), np.int32(m), np.float32(1), a, b, np.float32(0), np.zeros((m, m), np.float32)],
          monkeypatch)


def test_budget_faults_at_the_same_instruction(monkeypatch):
    """max_instructions: the tier falls back to single instructions where the budget could be
    crossed inside a block, so the fault names the same PC either way."""
    n = 512
    start = np.random.default_rng(1).integers(1, 1 << 20, n).astype(np.uint64)
    monkeypatch.setenv("PTXVM_JIT_THRESHOLD", "0")
    module = _corpus("collatz")
    faults = []
    for jit in (False, True):
        with pytest.raises(ptxvm.KernelFault) as e:
            module["collatz_steps"].launch(n // 256, 256, [start, np.zeros(n, np.int32), np.int32(n)],
                                           jit=jit, max_instructions=123_457)
        faults.append(str(e.value))
    assert faults[0] == faults[1] and "budget" in faults[0]
