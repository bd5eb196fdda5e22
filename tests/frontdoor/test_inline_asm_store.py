"""inline_asm: the seed's store through an address operand (`st.u32 [%0], %1;`), and its pointer
passed for "r" (8 bytes for a 32-bit constraint), as nvcc refuses it.

The seed's "memory" clobber tells the C++ compiler not to move memory accesses across the asm; the
elementwise evaluator moves nothing, so `clobbers="memory"` is accepted and changes nothing
(compile_cuda's `store` kernel carries it too: tests/frontdoor/test_compile_cuda.py)."""
import numpy as np
import pytest

import ptxvm


def test_store_through_a_device_address():
    dest = ptxvm.to_device(np.zeros(8, np.uint32))
    addresses = np.uint64(dest.address) + np.uint64(4) * np.arange(8, dtype=np.uint64)
    result = ptxvm.inline_asm("st.u32 [%0], %1;", "l,r", addresses, 1000 + np.arange(8, dtype=np.uint32))
    assert result == ()  # no outputs: the effect is the store
    np.testing.assert_array_equal(dest.copy_to_host(), 1000 + np.arange(8))
    dest.free()


def test_pointer_for_r_is_the_seeds_size_error():
    addresses = np.arange(8, dtype=np.uint64) * 4
    with pytest.raises(ptxvm.PtxError) as info:
        ptxvm.inline_asm("st.u32 [%0], %1;", "r,r", addresses, np.arange(8, dtype=np.uint32))
    assert "asm operand type size(8) does not match type/size implied by constraint 'r'" in str(info.value)


def test_store_with_the_seeds_memory_clobber():
    dest = ptxvm.to_device(np.zeros(4, np.uint32))
    addresses = np.uint64(dest.address) + np.uint64(4) * np.arange(4, dtype=np.uint64)
    ptxvm.inline_asm("st.u32 [%0], %1;", "l,r", addresses, np.arange(4, dtype=np.uint32) + 7, clobbers="memory")
    np.testing.assert_array_equal(dest.copy_to_host(), np.arange(4) + 7)
    dest.free()


def test_register_clobber_is_refused_by_name():
    with pytest.raises(ptxvm.PtxError, match='unsupported clobber "r1"'):
        ptxvm.inline_asm("mov.u32 %0, 1;", "=r", clobbers=("memory", "r1"))
