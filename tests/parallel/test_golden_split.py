"""A sample of the H200-recorded kernels of tests/kernels (histograms with atomics, reductions,
stencils, scans, sorts, GEMMs), every launch split over workers: the outputs must
still be the GPU's. (The whole set passes the same way: PTXVM_PARALLEL_MIN_WORK=0 PTXVM_WORKERS=2
pytest tests/kernels/test_golden_replay.py; it is too slow for the default run.)"""
from __future__ import annotations

import contextlib
import io
import json
import pathlib
import sys

import numpy as np
import pytest

import ptxvm

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "kernels"))
import test_golden_replay as R  # noqa: E402  (its inputs and comparisons)


SPLIT = ["histogram256", "reduce_atomic_i32", "reduce_partial_f32", "jacobi2d", "stencil1d", "sgemm_tiled16",
         "transpose_tiled", "scan_add_block_offsets", "cub_radix_sort_pairs_desc", "sgemm_reg4x4",
         "box_blur_u8", "spmv_csr_vector", "bitonic_step_global", "cg_tile_reduce"]
SERIAL = ["atomics_zoo", "reduce_atomic_f32", "printf", "flag_wait"]
CASES = {c.name: c for c in R.RECORDED}


@pytest.mark.parametrize("name", SPLIT + SERIAL)
def test_split_launch_matches_gpu(name, monkeypatch):
    if name not in CASES:
        pytest.skip(f"no golden for {name} in this checkout")
    monkeypatch.setenv("PTXVM_PARALLEL_MIN_WORK", "0")
    case = CASES[name]
    golden = np.load(R.GOLDENS / f"{name}.npz")
    meta = json.loads((R.GOLDENS / f"{name}.meta.json").read_text())
    args = R._host_args(case, golden)
    mod = ptxvm.loads(golden["ptx"].tobytes().decode(), f"{name}.ptx")
    with contextlib.redirect_stdout(io.StringIO()):
        st = mod[meta["kernel"]].launch(tuple(meta["grid"]), tuple(meta["block"]), args,
                                        shared_mem=meta.get("shared_mem", 0), workers=2)
    if name in SERIAL:
        assert st.workers == 1 and st.serial_reason
    elif st.ctas > 1 and st.ctas // max(1, int(np.prod(meta.get("cluster", (1,))))) > 1:
        assert st.workers == 2, st.serial_reason
    for i, spec in enumerate(case.args):
        if f"arg{i}.out" in golden:
            R._compare(f"{name} {spec.name}", spec.check, args[i], golden[f"arg{i}.out"])
