"""Large argument copies on several threads give the bytes of one NumPy copy."""
import numpy as np
import pytest

import ptxvm
from ptxvm.engine.core import bulk_copy


@pytest.mark.parametrize("threads", ["1", "3", "8"])
def test_threaded_copy_is_a_copy(monkeypatch, threads):
    monkeypatch.setenv("PTXVM_COPY_THREADS", threads)
    n = bulk_copy.MIN_BYTES + 12345  # not a multiple of the page or of the thread count
    src = np.random.default_rng(0).integers(0, 256, n, dtype=np.uint8)
    dst = np.zeros(n, np.uint8)
    bulk_copy.copy(dst, src)
    assert np.array_equal(dst, src)


def test_device_round_trip_of_a_large_array(monkeypatch):
    monkeypatch.setenv("PTXVM_COPY_THREADS", "4")
    a = np.random.default_rng(1).standard_normal((3, bulk_copy.MIN_BYTES // 8 + 5)).astype(np.float32)
    d = ptxvm.to_device(a)
    back = np.empty_like(a)
    d.copy_to_host(out=back)
    assert back.tobytes() == a.tobytes()
    as_f64 = np.empty(a.shape, np.float64)  # another dtype: NumPy's casting copy, as before
    d.copy_to_host(out=as_f64)
    assert np.array_equal(as_f64, a.astype(np.float64))
    d.free()
