import numpy as np
import pytest

from ptxvm.timing.memory import coalesce, from_sectors

from .conftest import ALL, LANES, warp


def test_unit_stride_word_load_is_four_sectors_one_line():
    c = coalesce(warp(LANES * 4), ALL, 4)
    assert (c.n_sectors[0], c.n_lines[0], c.requests[0]) == (4, 1, 1)
    assert c.of_warp(0).tolist() == [0, 32, 64, 96]


def test_stride_32_words_needs_32_sectors_and_lines():
    c = coalesce(warp(LANES * 128), ALL, 4)
    assert (c.n_sectors[0], c.n_lines[0]) == (32, 32)


def test_vector_v4_unit_stride_is_16_sectors():
    c = coalesce(warp(LANES * 16), ALL, 16)
    assert (c.n_sectors[0], c.n_lines[0]) == (16, 4)


def test_misaligned_16_byte_accesses_straddle_sectors():
    # The warp's 512 bytes start 16 B into a sector (each lane naturally aligned, as the
    # hardware requires): 17 sectors over 5 lines instead of 16 over 4.
    c = coalesce(warp(LANES * 16 + 16), ALL, 16)
    assert (c.n_sectors[0], c.n_lines[0]) == (17, 5)
    # Lanes not naturally aligned (the model accepts them): odd lanes cross a sector boundary.
    c = coalesce(warp(LANES * 16 + 8), ALL, 16)
    assert (c.n_sectors[0], c.n_lines[0]) == (17, 5)
    # Misaligned by one byte, word accesses: 129 bytes -> 5 sectors, 2 lines.
    c = coalesce(warp(LANES * 4 + 1), ALL, 4)
    assert (c.n_sectors[0], c.n_lines[0]) == (5, 2)


def test_inactive_lanes_do_not_fetch():
    act = (LANES < 16).reshape(1, 32)
    c = coalesce(warp(LANES * 4), act, 4)
    assert c.n_sectors[0] == 2
    none = coalesce(warp(LANES * 4), np.zeros((1, 32), bool), 4)
    assert (none.n_sectors[0], none.requests[0], len(none.sectors)) == (0, 0, 0)


def test_same_address_is_one_sector():
    c = coalesce(warp(np.full(32, 4096)), ALL, 8)
    assert c.n_sectors[0] == 1


def _reference(addr, act, size):
    out = []
    for a_row, m_row in zip(addr, act):
        s = set()
        for a, m in zip(a_row.tolist(), m_row.tolist()):
            if m:
                s.update(range(a // 32, (a + size - 1) // 32 + 1))
        out.append(sorted(x * 32 for x in s))
    return out


@pytest.mark.parametrize("size", [1, 2, 4, 8, 12, 16, 32])
def test_batch_matches_per_lane_reference(size):
    rng = np.random.default_rng(size)
    base = rng.integers(0, 1 << 40, (50, 1)).astype(np.uint64)
    addr = base + rng.integers(0, 4096, (50, 32)).astype(np.uint64)
    act = rng.random((50, 32)) < 0.7
    c = coalesce(addr, act, size)
    ref = _reference(addr, act, size)
    for i in range(50):
        assert c.of_warp(i).tolist() == ref[i]
        assert c.n_lines[i] == len({s // 128 for s in ref[i]})
    assert c.warp.tolist() == [i for i in range(50) for _ in ref[i]]


def test_from_sectors_groups_by_warp():
    c = from_sectors([64, 0, 64, 256], warp=[1, 0, 1, 1])
    assert c.n_sectors.tolist() == [1, 2] and c.n_lines.tolist() == [1, 2]
    assert c.of_warp(1).tolist() == [64, 256]
