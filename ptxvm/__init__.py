"""ptxvm: NVIDIA's PTX ISA as a Python virtual GPU.

    import ptxvm, numpy as np
    mod = ptxvm.load("vecadd.ptx")                  # parse + verify, or PtxError with every diagnostic
    stats = mod["vecAdd"].launch(grid=4, block=256, args=[a, b, c, np.int32(n)])

Heavy parts (the ISA table, the engine) are imported on first use, so that importing ptxvm stays
cheap for tools that only need part of it (the GPU recorder imports only ptxvm.conformance).
"""
from __future__ import annotations

import os
from typing import Union

from .errors import Diagnostic, KernelFault, LaunchError, PtxError, PtxSyntaxError, PtxVerifyError, Span

__version__ = "0.1.0"

__all__ = [
    "loads", "load", "parse", "Module", "Kernel", "LaunchStats", "PtxError", "PtxSyntaxError",
    "PtxVerifyError", "KernelFault", "LaunchError", "Diagnostic", "Span", "to_device", "device_array",
    "DeviceArray", "compile_cuda", "inline_asm", "CudaCompileError", "InlineAsmError",
]


def parse(text: str, name: str = "<string>"):
    """Parse only (no verification): the AST of `text`."""
    from .frontend import parse as _parse

    return _parse(text, name)


def loads(text: str, name: str = "<string>", *, verify: bool = True):
    """Parse and verify PTX text; a `Module` ready to launch, or PtxError listing every problem."""
    from .frontend import parse as _parse
    from .module import Module

    tree = _parse(text, name)
    if verify:
        from .check import verify as _verify

        diagnostics = _verify(tree, text)
        errors = [d for d in diagnostics if d.severity == "error"]
        if errors:
            raise PtxVerifyError(errors)
    return Module(tree, source=text)


def load(path: Union[str, os.PathLike], *, verify: bool = True):
    """Parse and verify the PTX file at `path`."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    return loads(text, os.fspath(path), verify=verify)


def to_device(a):
    """Copy a NumPy array to the virtual device; pass the result as a pointer argument."""
    from .engine.device import default_device

    return default_device().to_device(a)


def device_array(shape, dtype):
    """An uninitialised (zeroed) array on the virtual device."""
    from .engine.device import default_device

    return default_device().device_array(shape, dtype)


def __getattr__(name):
    if name in ("Module", "Kernel"):
        from . import module

        return getattr(module, name)
    if name == "LaunchStats":
        from .engine.launch import LaunchStats

        return LaunchStats
    if name == "DeviceArray":
        from .engine.device import DeviceArray

        return DeviceArray
    if name in ("compile_cuda", "CudaCompileError"):
        from .frontdoor import cuda

        return getattr(cuda, name)
    if name in ("inline_asm", "InlineAsmError"):
        from .frontdoor import inline_asm

        return getattr(inline_asm, name)
    raise AttributeError(f"module 'ptxvm' has no attribute {name!r}")
