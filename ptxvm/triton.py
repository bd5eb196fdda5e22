"""Run Triton kernels on ptxvm: `ptxvm.triton.jit(kernel)[grid](*args, **meta)` or
`ptxvm.triton.run(kernel, grid, *args, **meta)`. See ptxvm/frontdoor/triton_kernels.py."""
from .frontdoor.triton_kernels import TritonKernel, TritonUnavailable, jit, run

__all__ = ["jit", "run", "TritonKernel", "TritonUnavailable"]
