"""How ptxvm's texture and surface objects map onto CUDA array descriptors (no GPU needed)."""
import numpy as np

import ptxvm
from ptxvm.backends.cuda_resources import array_format, extent


def test_extents_as_cuda_array3d_descriptor_takes_them():
    assert extent(ptxvm.texture_object(np.zeros(40, np.float32))) == (40, 0, 0)
    assert extent(ptxvm.texture_object(np.zeros((3, 40), np.float32), layered=True, dims=1)) == (40, 0, 3)
    assert extent(ptxvm.texture_object(np.zeros((8, 40, 4), np.uint8))) == (40, 8, 0)
    assert extent(ptxvm.texture_object(np.zeros((5, 8, 40), np.float32), layered=True)) == (40, 8, 5)
    assert extent(ptxvm.texture_object(np.zeros((6, 8, 8), np.float32), cubemap=True)) == (8, 8, 6)
    assert extent(ptxvm.texture_object(np.zeros((12, 8, 8), np.float32), cubemap=True, layered=True)) == (8, 8, 12)
    assert extent(ptxvm.texture_object(np.zeros((4, 8, 40, 2), np.int16))) == (40, 8, 4)
    mip = ptxvm.texture_object([np.zeros((16, 32), np.float32), np.zeros((8, 16), np.float32), np.zeros((4, 8), np.float32)])
    assert [extent(mip, k) for k in range(3)] == [(32, 16, 0), (16, 8, 0), (8, 4, 0)]
    assert extent(ptxvm.surface_object(np.zeros((8, 40), np.uint32))) == (40, 8, 0)


def test_formats():
    assert array_format(ptxvm.texture_object(np.zeros((8, 8, 4), np.uint8))) == "UNSIGNED_INT8"
    assert array_format(ptxvm.texture_object(np.zeros(8, np.float16))) == "HALF"
    assert array_format(ptxvm.surface_object(np.zeros((8, 8, 4), np.uint8), normalized=True)) == "UNORM_INT8X4"
    assert array_format(ptxvm.surface_object(np.zeros((8, 8, 2), np.int16), normalized=True)) == "SNORM_INT16X2"
    assert array_format(ptxvm.surface_object(np.zeros((8, 8), np.uint32), normalized=True)) == "UNSIGNED_INT32"
