"""Run Numba CUDA kernels on ptxvm: `ptxvm.numba.jit(kernel)[grid, block](*args)` or
`ptxvm.numba.run(kernel, grid, block, *args)`. See ptxvm/frontdoor/numba_cuda.py."""
from .frontdoor.numba_cuda import NumbaKernel, NumbaUnavailable, jit, run

__all__ = ["jit", "run", "NumbaKernel", "NumbaUnavailable"]
