"""The compiled scheduler steps of ptxvm.engine.core.fastpaths against their NumPy references, on
random machine states (thread counts above the size from which the compiled path runs)."""
from __future__ import annotations

import numpy as np
import pytest

from ptxvm import jit
from ptxvm.engine.core import fastpaths as F
from ptxvm.engine.core import machine as M

pytestmark = pytest.mark.skipif(not jit.numba_available(), reason="numba is not installed: only the NumPy path exists")

N = 2 * F._MIN_COMPILED + 96


def test_thread_states_agree_with_the_machine():
    assert (F.RUNNABLE, F.EXITED, F.AT_WARP_SYNC, F.NO_PC) == (M.RUNNABLE, M.EXITED, M.AT_WARP_SYNC, M.NO_PC)


def _state(seed, n=N):
    rng = np.random.default_rng(seed)
    status = rng.choice(np.array([M.RUNNABLE, M.EXITED, M.AT_BARRIER, M.AT_WARP_SYNC], np.uint8), n,
                        p=[0.6, 0.2, 0.1, 0.1])
    if seed % 4 == 0:
        status[:] = M.RUNNABLE                           # every thread runnable
    if seed % 7 == 0:
        status[:] = M.EXITED                             # none
    epoch = rng.integers(0, 3, n).astype(np.int64)
    pc = rng.integers(0, 1 + seed % 5, n).astype(np.int64)
    warp_of = np.arange(n, dtype=np.int64) // 32
    return status, epoch, pc, warp_of


@pytest.mark.parametrize("seed", range(16))
def test_select_group_matches_numpy(seed):
    status, epoch, pc, warp_of = _state(seed)
    n_live = int(np.count_nonzero(status != M.EXITED))
    with jit.override(True):
        got = F.select_group(status, epoch, pc, warp_of, n_live)
    want = F.select_group_numpy(status, epoch, pc, warp_of, n_live)
    assert got[0] == want[0] and got[3] == want[3] and got[4] == want[4]
    if want[1] is None:
        assert got[1] is None and want[0] == F.NO_PC
    else:
        assert np.array_equal(got[1], want[1]) and np.array_equal(got[2], want[2])


@pytest.mark.parametrize("seed", range(16))
def test_live_counts_match_numpy(seed):
    status, _, _, warp_of = _state(seed)
    with jit.override(True):
        got = F.live_counts(status, warp_of)
    assert got == F.live_counts_numpy(status, warp_of)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.uint64, np.int32, np.bool_])
def test_masked_copy_matches_copyto(dtype):
    rng = np.random.default_rng(np.dtype(dtype).num)
    dst = rng.integers(0, 2, N).astype(dtype) if dtype is np.bool_ else rng.integers(0, 200, N).astype(dtype)
    src = rng.integers(0, 2, N).astype(dtype) if dtype is np.bool_ else rng.integers(0, 200, N).astype(dtype)
    mask = rng.random(N) < 0.6
    want = dst.copy()
    np.copyto(want, src, where=mask)
    with jit.override(True):
        F.masked_copy(dst, src, mask)
    assert np.array_equal(dst, want)


def test_masked_copy_of_a_scalar_or_other_dtype_is_numpys():
    dst = np.zeros(N, np.uint32)
    mask = np.arange(N) % 3 == 0
    with jit.override(True):
        F.masked_copy(dst, np.uint32(7), mask)
        F.masked_copy(dst, np.full(N, 9, np.uint16), ~mask)
    assert (dst[mask] == 7).all() and (dst[~mask] == 9).all()
