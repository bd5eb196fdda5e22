"""Correct kernels stay clean: nvcc-compiled kernels of tests/kernels (with the H200's outputs in
tests/goldens/kernels) run under every checker, report no errors and still produce the GPU's
results; warp-synchronous code ordered by __syncwarp is not a race, and the unrolled last-warp
reduction `vs[tid] += vs[tid + 16]; __syncwarp(); ...` (tests/corpus/cuda/reduce_shared.cu) is:
__syncwarp orders the steps, but within one step lane t reads vs[t + 16] while lane t + 16
writes it (a write-after-read race; no read-after-write, the __syncwarps order those)."""
from __future__ import annotations

import contextlib
import io
import json
import pathlib
import sys

import numpy as np
import pytest

import ptxvm

KERNELS = pathlib.Path(__file__).resolve().parents[2] / "kernels"
sys.path.insert(0, str(KERNELS))
import cases as C  # noqa: E402
from test_golden_replay import GOLDENS, _compare, _host_args  # noqa: E402

TOOLS = ("memcheck", "racecheck", "initcheck", "synccheck")
CLEAN = ["sgemm_tiled16", "cub_radix_sort_keys", "warp_activemask_syncwarp", "histogram256", "bitonic_sort_block",
         "scan_hillis_steele", "printf", "local_table", "spinlock"]


def _run(name, tool):
    case = next(c for c in C.ALL_CASES if c.name == name)
    golden = np.load(GOLDENS / f"{name}.npz")
    meta = json.loads((GOLDENS / f"{name}.meta.json").read_text())
    mod = ptxvm.loads(golden["ptx"].tobytes().decode(), f"{name}.ptx")
    args = _host_args(case, golden)
    with contextlib.redirect_stdout(io.StringIO()):
        report = mod[meta["kernel"]].sanitize(tuple(meta["grid"]), tuple(meta["block"]), args, tool=tool,
                                              shared_mem=meta.get("shared_mem", 0), leak_check=True)
    for i, spec in enumerate(case.args):
        if f"arg{i}.out" in golden:
            _compare(f"{name} {spec.name}", spec.check, args[i], golden[f"arg{i}.out"])
    return report


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize("name", CLEAN)
def test_correct_kernel_is_clean(name, tool):
    if not (GOLDENS / f"{name}.npz").exists():
        pytest.skip(f"no golden for {name}")
    report = _run(name, tool)
    assert report.ok, str(report)


# synchronized through mbarriers (cuda::barrier: split arrive/wait, producer/consumer phases with
# several reader warps), cp.async groups (double buffering, cuda::pipeline, cooperative groups'
# memcpy_async) and bulk copies completing on an mbarrier: racecheck follows these orderings
ASYNC_CLEAN = ["mbarrier_split_phase", "mbarrier_producer_consumer", "mbarrier_bulk_copy", "cp_async_double_buffer",
               "cuda_pipeline_copy", "cg_memcpy_async_sum", "cp_async_16B"]


@pytest.mark.parametrize("name", ASYNC_CLEAN)
def test_asynchronous_kernel_is_race_free(name):
    if not (GOLDENS / f"{name}.npz").exists():
        pytest.skip(f"no golden for {name}")
    report = _run(name, "racecheck")
    assert report.ok and not report.warnings, str(report)


def test_spinlock_races_are_warnings():
    """The lock's atomics order the protected global accesses, which racecheck cannot see: with
    atomics or fences in the kernel, global-memory hazards are warnings, not errors."""
    report = _run("spinlock", "racecheck")
    assert report.ok and report.warnings and all(w.space == "global" for w in report.warnings)


def test_unrolled_last_warp_races_within_a_step():
    report = _run("reduce_unrolled_f32", "racecheck")
    assert report.errors and {e.access for e in report.errors} == {"WAR"} and {e.space for e in report.errors} == {"shared"}
