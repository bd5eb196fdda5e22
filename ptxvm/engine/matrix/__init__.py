"""Tensor cores: mma, wmma, ldmatrix/stmatrix/movmatrix (mma) and wgmma."""
