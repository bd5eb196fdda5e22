"""Run Triton kernels on ptxvm: `ptxvm.triton.jit(kernel)[grid](*args, **meta)` or
`ptxvm.triton.run(kernel, grid, *args, **meta)`. See ptxvm/frontdoor/triton_kernels.py."""
from .frontdoor.triton_kernels import TritonKernel, TritonUnavailable, jit, run, tensor_descriptor

__all__ = ["jit", "run", "tensor_descriptor", "TritonKernel", "TritonUnavailable"]
