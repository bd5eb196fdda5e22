"""wgmma.mma_async.sp on the engine without a GPU: selector ranges as ptxas takes them, and a
sparse product on exact small integers equals the sum over the kept elements only (B rows no
index names, here full of NaN, take no part)."""
from __future__ import annotations

import numpy as np
import pytest

import ptxvm
from ptxvm.conformance import golden as GD
from ptxvm.conformance.cases.wgmma import wg_case
from ptxvm.semantics.families import wgmma as W


@pytest.mark.parametrize("k, atype, selectors", [(32, "f16", 2), (32, "bf16", 2), (16, "tf32", 2), (64, "e4m3", 1),
                                                  (64, "s8", 1)])
def test_selector_range_is_what_ptxas_takes(k, atype, selectors):
    # ptxas 13 -arch=sm_90a refuses sp-sel 2.. for f16/bf16/tf32 and 1.. for fp8 and integers
    assert W.sparse_meta(k, atype).selectors == selectors


def _image(mat: np.ndarray, desc: W.Descriptor, words: int) -> np.ndarray:
    """f16 matrix [rows, k] (float values) placed as the case's per-thread words."""
    img = np.zeros(words * 4 * 128, np.uint8)
    off = W.element_offsets(mat.shape[0], mat.shape[1], 16, desc, False)
    bits = mat.astype(np.float16).view(np.uint16)
    img[off] = bits & 0xFF
    img[off + 1] = bits >> 8
    return img.view(np.uint32)


@pytest.mark.parametrize("sel", [0, 1])
def test_sparse_f16_product_uses_only_the_kept_elements(sel):
    c = wg_case(8, "f32", "f16", "f16", sel=sel)
    L = GD.launch_for_case(c)
    rng = np.random.default_rng(sel)
    a = rng.integers(-4, 5, (64, 16)).astype(np.float64)            # kept elements, 2 per group of 4
    b = rng.integers(-4, 5, (8, 32)).astype(np.float64)             # B^T: n x k
    keep = np.array([[0, 1], [0, 2], [1, 2]])                       # element 3 of every group unused
    pick = rng.integers(0, 3, (64, 8))                              # per row and group
    cols = (4 * np.arange(8)[None, :, None] + keep[pick]).reshape(64, 16)
    unused = np.ones((64, 32), bool)
    unused[np.arange(64)[:, None], cols] = False
    b_nan = b.copy()
    assert unused.all(0).sum() == 8
    b_nan[:, unused.all(0)] = np.nan                                # rows of B no index names
    nib = (keep[pick][..., 0] | (keep[pick][..., 1] << 2))          # [64, 8]
    A = _image(a, W.Descriptor(0, 128, 256, 0, 0), 4)
    B = _image(b_nan, W.Descriptor(0, 128, 512, 0, 0), 1)
    meta = W.sparse_meta(32, "f16")
    e = np.zeros((4, 32), np.uint64)
    from ptxvm.semantics.families import matrix as L_
    for w in range(4):
        e[w] = L_.sparse_registers(nib[None, 16 * w:16 * w + 16], meta, sel)[0]
    srcs = dict(L.srcs)
    srcs["a"], srcs["b"] = A, B
    srcs["c"] = np.zeros_like(srcs["c"])
    srcs["e"] = e.ravel().astype(np.uint32)
    args = [srcs[n] for n, _ in L.srcs] + [x for _, x in L.dsts] + [np.uint32(L.lanes)]
    k = ptxvm.loads(L.ptx).kernel(L.kernel)
    k.launch((1, 1, 1), (128, 1, 1), args)
    d = args[len(L.srcs)].view(np.float32).reshape(128, 4)
    want = np.einsum("mj,mjn->mn", a, b.T[cols])                    # [64, 8]
    row, col = W.d_fragment_positions(8)
    assert np.array_equal(d, want[row, col].astype(np.float32))


@pytest.mark.parametrize("atype, sel, ok", [("f16", 1, True), ("f16", 2, False), ("e4m3", 0, True), ("e4m3", 1, False)])
def test_a_selector_outside_the_range_is_a_diagnostic(atype, sel, ok):
    ptx = wg_case(8, "f32", atype, atype, sel=0).ptx().replace(", 0, %wp", f", {sel}, %wp")
    if ok:
        ptxvm.loads(ptx)
    else:
        with pytest.raises(ptxvm.PtxError, match="sparsity selector"):
            ptxvm.loads(ptx)
