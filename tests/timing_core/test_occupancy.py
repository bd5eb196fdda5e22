"""Occupancy: which resource limits the CTAs per SM, and profile() reporting it."""
import numpy as np
import pytest

from ptxvm.timing import load_gpu, occupancy
from ptxvm.timing.occupancy import estimate_registers, registers_per_thread

from .ptx_cases import fma_kernel, load

GPU = load_gpu("h200")


def test_register_limit():
    occ = occupancy(GPU, 256, 128, 0)  # 128 regs x 32 lanes = 4096 per warp: 16 warps fit
    assert (occ.ctas_per_sm, occ.limiter, occ.theoretical) == (2, "registers", 0.25)


def test_register_allocation_granularity():
    # 33 registers round up to 40 per thread (256 per warp): 6 CTAs of 8 warps
    assert occupancy(GPU, 256, 33, 0).ctas_by_regs == 65536 // (40 * 32) // 8


def test_shared_memory_limit_counts_the_reserved_kilobyte():
    occ = occupancy(GPU, 128, 16, 100 * 1024)
    assert occ.limiter == "shared"
    assert occ.ctas_per_sm == GPU.shared_per_sm_max // (100 * 1024 + GPU.shared_reserved_per_cta) == 2


def test_thread_and_cta_limits():
    assert occupancy(GPU, 1024, 16, 0).ctas_per_sm == 2
    assert occupancy(GPU, 1024, 16, 0).limiter == "warps"
    small = occupancy(GPU, 32, 16, 0)
    assert (small.ctas_per_sm, small.limiter) == (GPU.max_ctas_per_sm, "ctas")
    assert small.theoretical == GPU.max_ctas_per_sm / GPU.max_warps_per_sm


def test_too_large_a_cta_is_refused():
    with pytest.raises(ValueError, match="shared memory"):
        occupancy(GPU, 256, 16, GPU.shared_per_cta_max + 1)
    with pytest.raises(ValueError, match="threads"):
        occupancy(GPU, 2048, 16, 0)


def test_register_estimate_without_ptxas(monkeypatch):
    monkeypatch.setenv("PTXVM_NO_PTXAS", "1")
    m = load(fma_kernel(16, 8))
    regs, source = registers_per_thread(m, "fmas")
    assert source == "estimate"
    assert regs == estimate_registers(m.ast.function("fmas"))
    assert 16 <= regs <= 40


def test_profile_reports_the_limit_and_achieved_occupancy():
    out = np.zeros(8 * 256, np.float32)
    k = load(fma_kernel(32, 4))["fmas"]
    wide = k.profile(8, 256, [out], regs=128)
    assert wide.occupancy.limiter == "registers" and wide.theoretical_occupancy == 0.25
    narrow = k.profile(8, 256, [out], regs=16)
    assert narrow.theoretical_occupancy == 1.0
    assert 0 < wide.achieved_occupancy <= wide.theoretical_occupancy
    # one CTA per SM here (8 CTAs over 132 SMs): the achieved occupancy is one CTA's warps at most
    assert narrow.achieved_occupancy <= 8 / 64 + 1e-9
