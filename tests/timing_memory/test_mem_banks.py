import numpy as np
import pytest

from ptxvm.timing.memory import (bank_conflicts, distinct_addresses, ideal_wavefronts,
                                 same_address_multiplicity)

from .conftest import ALL, LANES, warp


def test_column_of_32x32_int_tile_is_a_32_way_conflict():
    assert bank_conflicts(warp(LANES * 32 * 4), ALL, 4)[0] == 32


def test_padding_32x33_removes_the_conflict():
    assert bank_conflicts(warp(LANES * 33 * 4), ALL, 4)[0] == 1


def test_row_access_and_broadcast_are_one_wavefront():
    assert bank_conflicts(warp(LANES * 4), ALL, 4)[0] == 1
    assert bank_conflicts(warp(np.full(32, 64)), ALL, 4)[0] == 1
    # bytes of one word are the same word
    assert bank_conflicts(warp(LANES), ALL, 1)[0] == 1


def test_two_words_in_one_bank_is_two_way():
    addr = np.where(LANES < 16, 0, 128)
    assert bank_conflicts(warp(addr), ALL, 4)[0] == 2


def test_64_and_128_bit_accesses_as_the_h200_serves_them():
    assert bank_conflicts(warp(LANES * 8), ALL, 8)[0] == 2
    assert bank_conflicts(warp(LANES * 16), ALL, 16)[0] == 4
    # 64-bit, stride 16 B: banks 0,1 / 4,5 / ... each hold 4 distinct words
    assert bank_conflicts(warp(LANES * 16), ALL, 8)[0] == 4
    # only the first half-warp active: 128 bytes, one wavefront
    assert bank_conflicts(warp(LANES * 8), (LANES < 16).reshape(1, 32), 8)[0] == 1
    # broadcasts: 8-B accesses are served as one 32-lane group, 16-B ones by half-warp
    assert bank_conflicts(warp(np.zeros(32)), ALL, 8)[0] == 1
    assert bank_conflicts(warp(np.zeros(32)), ALL, 16)[0] == 2


def test_ideal_wavefronts_are_one_per_128_byte_lane_group():
    assert ideal_wavefronts(ALL, 4).tolist() == [1]
    assert ideal_wavefronts(ALL, 8).tolist() == [2]
    assert ideal_wavefronts(ALL, 16).tolist() == [4]
    assert ideal_wavefronts((LANES < 16).reshape(1, 32), 8).tolist() == [1]


def test_inactive_warp_costs_nothing():
    assert bank_conflicts(warp(LANES * 128), np.zeros((1, 32), bool), 4)[0] == 0


def _reference(addr, act, size):
    per = min(32, 256 // max(size, 4))
    total = 0
    for p0 in range(0, 32, per):
        banks = {}
        for lane in range(p0, p0 + per):
            if act[lane]:
                a = int(addr[lane])
                for w in range(a // 4, (a + size - 1) // 4 + 1):
                    banks.setdefault(w % 32, set()).add(w)
        total += max((len(v) for v in banks.values()), default=0)
    return total


@pytest.mark.parametrize("size", [1, 2, 4, 8, 16])
def test_random_accesses_match_reference(size):
    rng = np.random.default_rng(7 + size)
    addr = (rng.integers(0, 2048, (40, 32)) * size).astype(np.uint64)
    act = rng.random((40, 32)) < 0.8
    got = bank_conflicts(addr, act, size)
    assert got.tolist() == [_reference(addr[i], act[i], size) for i in range(40)]


def test_address_multiplicity_and_distinct():
    addr = np.stack([np.zeros(32), LANES % 4 * 4, LANES * 4]).astype(np.uint64)
    act = np.ones((3, 32), bool)
    assert same_address_multiplicity(addr, act, 4).tolist() == [32, 8, 1]
    assert distinct_addresses(addr, act, 4).tolist() == [1, 4, 32]
