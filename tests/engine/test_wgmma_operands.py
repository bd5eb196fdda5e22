"""The fast wgmma operand movements of ptxvm.engine.matrix.wgmma_operands against their reference
formulas: descriptor reads as one cached gather vs. byte-by-byte assembly, the accumulator's
registers <-> [64, N] matrix through a cached index vs. the fragment positions directly, and the
register copies by slice vs. by index (partial warpgroups)."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from ptxvm.engine.core.machine import Fault
from ptxvm.engine.core.memory import WindowedMemory
from ptxvm.engine.matrix import wgmma_operands as O
from ptxvm.semantics.families.wgmma import Descriptor

SHARED = 1 << 15


def _ctx(ctas=3, seed=0):
    mem = WindowedMemory("shared", ctas, SHARED)
    mem.buf[:] = np.random.default_rng(seed).integers(0, 256, mem.buf.size, dtype=np.uint8)
    return SimpleNamespace(shared=mem)


def _desc(start, lbo, sbo, swizzle, base_offset=0) -> int:
    return Descriptor(start, lbo, sbo, base_offset, swizzle).encode()


@pytest.mark.parametrize("bits,k", [(8, 32), (16, 16), (32, 8), (4, 64)])
@pytest.mark.parametrize("swizzle", [0, 1, 2, 3])
@pytest.mark.parametrize("mn_major", [False, True])
def test_descriptor_gather_matches_bytewise(bits, k, swizzle, mn_major):
    ctx = _ctx()
    rng = np.random.default_rng([bits, swizzle, mn_major])
    rows = 64
    descs = np.array([_desc(int(rng.integers(0, 64)) * 16, 1024 * int(rng.integers(1, 4)), 1024,
                            swizzle, int(rng.integers(0, 8)) if swizzle == 1 else 0) for _ in range(3)], np.uint64)
    descs = np.concatenate([descs, descs[:2]])       # warpgroups sharing a descriptor
    ctas = np.array([0, 1, 2, 2, 0])
    O._OFFSETS.clear()
    for _ in range(2):                               # the second time from the offsets cache
        fast = O.shared_matrices(ctx, ctas, descs, rows, k, bits, mn_major)
        ref = O.shared_matrices_bytewise(ctx, ctas, descs, rows, k, bits, mn_major)
        assert fast.dtype == ref.dtype == O.storage_dtype(bits)
        assert np.array_equal(fast, ref)


def test_descriptor_read_past_shared_memory_faults_as_the_reference():
    ctx = _ctx(1)
    descs = np.array([_desc(SHARED - 512, 256, 512, 0)], np.uint64)
    with pytest.raises(Fault) as fast:
        O.shared_matrices(ctx, np.array([0]), descs, 64, 16, 16, False)
    with pytest.raises(Fault) as ref:
        O.shared_matrices_bytewise(ctx, np.array([0]), descs, 64, 16, 16, False)
    assert str(fast.value) == str(ref.value) and "outside shared memory" in str(fast.value)


@pytest.mark.parametrize("n", [8, 64, 128, 256])
@pytest.mark.parametrize("bits", [16, 32])
@pytest.mark.parametrize("groups", [1, 3])
def test_accumulator_index_matches_fragment_positions(n, bits, groups):
    frag = O.DFragment(n, bits)
    rng = np.random.default_rng([n, bits, groups])
    regs = rng.integers(0, 1 << 32, (frag.regs, groups * 128), dtype=np.uint64).astype(np.uint32)
    mat = frag.to_matrix(regs)
    assert mat.dtype == O.storage_dtype(bits) and mat.shape == (groups, 64, n)
    assert np.array_equal(mat, frag.reference_to_matrix(regs))
    assert np.array_equal(frag.from_matrix(mat), regs)
    other = rng.integers(0, 1 << bits, (groups, 64, n), dtype=np.uint64)   # a result wider than its dtype
    assert np.array_equal(frag.from_matrix(other), frag.reference_from_matrix(other))


@pytest.mark.parametrize("n", [8, 64, 256])
@pytest.mark.parametrize("bits", [16, 32])
@pytest.mark.parametrize("contiguous", [True, False])
def test_accumulator_register_blocks_match_fragment_positions(n, bits, contiguous):
    """DFragment.read / write (one strided block per register when the warpgroups are contiguous,
    else the index path) against the fragment positions."""
    frag = O.DFragment(n, bits)
    rng = np.random.default_rng([n, bits, contiguous])
    groups = 2
    slots = (np.array([128, 256] if contiguous else [0, 256])[:, None] + np.arange(128)[None, :])
    valid = np.ones_like(slots, bool)
    reg_slots = list(range(frag.regs))[::-1]
    ctx = SimpleNamespace(regs=[rng.integers(0, 1 << 32, 512, dtype=np.uint64).astype(np.uint32)
                                for _ in range(frag.regs)])
    vec = _Vec(reg_slots)
    regs = np.stack([ctx.regs[s][slots.ravel()] for s in reg_slots])     # [registers, G * 128]
    got = frag.read(ctx, vec, reg_slots, slots, valid)
    assert got.dtype == np.uint64 and np.array_equal(got, frag.reference_to_matrix(regs))
    for dt in (np.uint64, O.storage_dtype(bits)):
        mat = rng.integers(0, np.iinfo(dt).max, (groups, 64, n), dtype=dt, endpoint=True)
        frag.write(ctx, vec, reg_slots, slots, valid, mat)
        want = frag.reference_from_matrix(mat.astype(O.storage_dtype(bits)))
        assert np.array_equal(np.stack([ctx.regs[s][slots.ravel()] for s in reg_slots]), want)


class _Vec:
    """RegVector's interface over plain registers (the reference readers and writers)."""

    def __init__(self, slots):
        self.slots = slots
        self.ops = slots

    def read(self, ctx, slots, valid):
        out = np.stack([ctx.regs[s][slots.ravel()] for s in self.slots], -1).reshape(slots.shape + (len(self.slots),))
        out[~valid] = 0
        return out

    def write(self, ctx, slots, valid, regs):
        for i, s in enumerate(self.slots):
            ctx.regs[s][slots[valid]] = regs[valid][:, i]


@pytest.mark.parametrize("layout", ["contiguous", "gap", "partial"])
def test_register_copies_match_reference(layout):
    rng = np.random.default_rng(len(layout))
    n_threads = 512
    base = {"contiguous": [128, 256], "gap": [0, 256], "partial": [256, 384]}[layout]
    slots = np.array(base)[:, None] + np.arange(128)[None, :]
    valid = np.ones_like(slots, bool)
    if layout == "partial":
        valid[1, 96:] = False
        slots[1, 96:] = slots[1, 0]
    regs = [rng.integers(0, 1 << 32, n_threads, dtype=np.uint64).astype(np.uint32) for _ in range(6)]
    reg_slots = [4, 1, 5]
    vec = _Vec(reg_slots)
    fast_ctx, ref_ctx = SimpleNamespace(regs=[r.copy() for r in regs]), SimpleNamespace(regs=[r.copy() for r in regs])
    got = O.read_registers(fast_ctx, vec, reg_slots, slots, valid)
    want = O.read_registers(ref_ctx, vec, None, slots, valid)
    assert np.array_equal(got, want)
    new = rng.integers(0, 1 << 32, got.shape, dtype=np.uint64).astype(np.uint32)
    O.write_registers(fast_ctx, vec, reg_slots, slots, valid, new)
    O.write_registers(ref_ctx, vec, None, slots, valid, new)
    for a, b in zip(fast_ctx.regs, ref_ctx.regs):
        assert np.array_equal(a, b)
