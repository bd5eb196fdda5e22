"""ptxvm: NVIDIA's PTX ISA as a Python virtual GPU.

    import ptxvm, numpy as np
    mod = ptxvm.load("vecadd.ptx")                  # parse + verify, or PtxError with every diagnostic
    stats = mod["vecAdd"].launch(grid=4, block=256, args=[a, b, c, np.int32(n)])

Heavy parts (the ISA table, the engine) are imported on first use, so that importing ptxvm stays
cheap for tools that only need part of it (the GPU recorder imports only ptxvm.conformance).
"""
from __future__ import annotations

import os
from typing import Optional, Union

from . import jit  # the switch for the compiled fast paths (cheap: imports no compiler)
from .errors import Diagnostic, KernelFault, LaunchError, OutOfDeviceMemory, PtxError, PtxSyntaxError, PtxVerifyError, Span

__version__ = "0.1.0"

__all__ = [
    "loads", "load", "link", "parse", "Module", "Kernel", "LaunchStats", "PtxError", "PtxSyntaxError",
    "PtxVerifyError", "PtxLinkError", "KernelFault", "LaunchError", "OutOfDeviceMemory", "Diagnostic", "Span",
    "to_device", "device_array", "set_device_memory_limit", "device_memory_info",
    "DeviceArray", "texture_object", "surface_object", "tensor_map", "tensor_map_im2col", "TensorMap", "compile_cuda", "inline_asm", "CudaCompileError", "InlineAsmError",
    "compare", "CompareReport", "GpuModule", "CudaKernelFault", "CudaUnavailableError", "Debugger", "DebuggerError",
    "map_launches", "DataRaceWarning", "DataRaceError", "ArgumentTypeWarning",
]


def parse(text: str, name: str = "<string>"):
    """Parse only (no verification): the AST of `text`."""
    from .frontend import parse as _parse

    return _parse(text, name)


def loads(text, name=None, *, verify: bool = True, device: str = "cpu", contract: Optional[bool] = None):
    """Parse and verify PTX text; a `Module` ready to launch, or PtxError listing every problem.

    A list of texts is parsed and verified one by one and linked into one program (`link`); `name`
    is then a list of names too (default `<string 1>`, `<string 2>`, ...).

    contract: run mul/add pairs the way ptxas contracts them into FMAs, as the GPU does
    (engine/contraction.py). None (default) follows PTXVM_CONTRACT, which is on unless "0".

    device="cuda" (or "cuda:N") gives a `GpuModule`: the same API, launched on an NVIDIA GPU."""
    if isinstance(text, (list, tuple)):
        names = list(name) if name is not None else [f"<string {i + 1}>" for i in range(len(text))]
        if len(names) != len(text):
            raise ValueError(f"{len(text)} texts but {len(names)} names")
        return _load_several(list(zip(text, names)), verify, device, contract)
    from .frontend import parse as _parse
    from .module import Module

    name = "<string>" if name is None else name
    tree = _parse(text, name)
    diagnostics = []
    if verify:
        from .check import verify as _verify

        diagnostics = _verify(tree, text)
        errors = [d for d in diagnostics if d.severity == "error"]
        if errors:
            raise PtxVerifyError(errors)
    from .linker import link_trees

    linked = link_trees([(tree, text)])  # an initializer cannot wait for a missing .extern name
    module = Module(tree, source=text, link_warnings=linked.warnings, contract=contract)
    module.warnings = [d for d in diagnostics if d.severity == "warning"]
    return module.on(device)


def load(path_or_text, *, verify: bool = True, device: str = "cpu", contract: Optional[bool] = None):
    """Parse and verify the PTX file at `path_or_text` (or PTX text itself: a string with a newline).
    A list of paths (or texts) is loaded as one program, its modules linked (`link`)."""
    if isinstance(path_or_text, (list, tuple)):
        parts = []
        for item in path_or_text:
            if isinstance(item, str) and "\n" in item:
                parts.append((item, f"<string {len(parts) + 1}>"))
            else:
                from .frontend import read_source

                parts.append((read_source(item), os.fspath(item)))
        return _load_several(parts, verify, device, contract)
    if isinstance(path_or_text, str) and "\n" in path_or_text:
        return loads(path_or_text, verify=verify, device=device, contract=contract)
    from .frontend import read_source

    text = read_source(path_or_text)
    return loads(text, os.fspath(path_or_text), verify=verify, device=device, contract=contract)


def link(*modules, device: str = "cpu", contract: Optional[bool] = None):
    """One program from several loaded modules, as cuLink / nvJitLink link relocatable code
    (`nvcc -rdc=true`): `.extern` functions and variables resolve to the module that defines them,
    a strong definition beats `.weak` ones (the first `.weak` one wins among those), names without
    linkage stay private to their module; two strong definitions or declarations that disagree
    raise PtxError naming both places. An `.extern` name no module defines stays unresolved: a
    launch that reaches it raises KernelFault naming it (`module.link_warnings` lists them).
    Modules may be given as one list. The program has its own copies of the module variables."""
    if len(modules) == 1 and isinstance(modules[0], (list, tuple)):
        modules = tuple(modules[0])
    if not modules:
        raise ValueError("link() needs at least one module")
    from .module import Module

    hosts = [getattr(m, "host", m) for m in modules]  # a GpuModule links through its CPU module
    for m in hosts:
        if not isinstance(m, Module):
            raise TypeError(f"link() takes ptxvm modules, not {type(m).__name__}")
    return _link([(m.ast, m.source or m.to_ptx()) for m in hosts], device, hosts[0].device, contract)


def _link(trees_and_texts, device: str, engine_device=None, contract: Optional[bool] = None):
    from .linker import link_trees
    from .module import Module

    linked = link_trees(trees_and_texts)
    if len(trees_and_texts) == 1:  # one module: nothing to link, on the GPU either
        tree, text = trees_and_texts[0]
        return Module(tree, device=engine_device, source=text, link_warnings=linked.warnings,
                      contract=contract).on(device)
    parts = [(text, tree.file) for tree, text in trees_and_texts]
    return Module(linked.tree, device=engine_device, parts=parts, link_warnings=linked.warnings,
                  contract=contract).on(device)


def _load_several(parts, verify: bool, device: str, contract: Optional[bool] = None):
    """Parse and verify each (text, name), report every module's problems together, then link."""
    from .frontend import parse as _parse

    if not parts:
        raise ValueError("no PTX modules given")
    trees, errors, warnings, syntax_only = [], [], [], True
    for text, name in parts:
        try:
            tree = _parse(text, name)
        except PtxError as exc:
            errors.extend(exc.diagnostics)
            continue
        if verify:
            from .check import verify as _verify

            diagnostics = _verify(tree, text)
            found = [d for d in diagnostics if d.severity == "error"]
            if found:
                errors.extend(found)
                syntax_only = False
                continue
            warnings.extend(d for d in diagnostics if d.severity == "warning")
        trees.append((tree, text))
    if errors:
        raise (PtxSyntaxError if syntax_only else PtxVerifyError)(errors)
    program = _link(trees, "cpu", contract=contract)
    program.warnings = warnings
    return program.on(device)


def texture_object(array, *, address_mode="clamp", filter_mode="point", normalized_coords=False,
                   read_mode="element", border_color=None, srgb=False, dims=None, layered=False, cubemap=False,
                   mipmap_filter_mode="point", mipmap_level_bias=0.0, min_mipmap_level_clamp=0.0,
                   max_mipmap_level_clamp=None, max_anisotropy=0, seamless_cubemap=False,
                   disable_trilinear_optimization=False, linear=False):
    """A texture object over a copy of `array` (a cudaTextureObject_t over a CUDA array, or with
    `linear=True` a 1D one over linear memory, the kind tex1Dfetch / tex.1d with .s32 coordinates
    reads: on a CUDA array that reads 0); pass it (or its `.handle`) as a .u64 kernel argument.

    Layout `[layer][depth][height][width][channel]`; `dims` (1, 2, 3) says how many axes are
    spatial (default: 1D, 2D, 2D with 1/2/4 channels for a 3-axis array, 3D with channels for 4
    axes; 2 for layered and cube textures). `layered=True`: a 1D/2D layered texture (the first axis
    is the layer, as cudaArrayLayered); `cubemap=True`: six square faces +x, -x, +y, -y, +z, -z as
    layers (with `layered=True`, a cubemap array of 6 faces per cube). A list of arrays is a
    mipmapped texture (level 0 first, each level half the size of the one before, at least 1).
    Element types u8, s8, u16, s16, u32, s32, f16, f32; 1, 2 or 4 channels. address_mode: wrap,
    clamp, mirror or border, or one per dimension; filter_mode and mipmap_filter_mode: point or
    linear; read_mode: element or normalized_float; the other settings as cudaTextureDesc's.
    sRGB textures are not supported."""
    from .engine.core.device import default_device
    from .engine.texture.objects import TextureObject

    return TextureObject(
        default_device(), array, address_mode=address_mode, filter_mode=filter_mode, normalized_coords=normalized_coords,
        read_mode=read_mode, border_color=border_color, srgb=srgb, dims=dims, layered=layered, cubemap=cubemap,
        mipmap_filter_mode=mipmap_filter_mode, mipmap_level_bias=mipmap_level_bias,
        min_mipmap_level_clamp=min_mipmap_level_clamp, max_mipmap_level_clamp=max_mipmap_level_clamp,
        max_anisotropy=max_anisotropy, seamless_cubemap=seamless_cubemap,
        disable_trilinear_optimization=disable_trilinear_optimization, linear=linear)


def surface_object(array, *, dims=None, layered=False, cubemap=False, normalized=False):
    """A surface object over `array` itself (a writeable C-contiguous NumPy array, read and written in
    place by suld/sust/sured); same layouts as texture_object. `normalized=True`: 8/16-bit integer
    samples are UNORM/SNORM for formatted stores (sust.p)."""
    from .engine.core.device import default_device
    from .engine.texture.objects import SurfaceObject

    return SurfaceObject(default_device(), array, dims=dims, layered=layered, cubemap=cubemap, normalized=normalized)


def tensor_map(array, box, *, element_strides=None, swizzle="none", interleave="none", oob_fill="none",
               l2_promotion="none", dtype=None, shape=None, strides=None):
    """A tiled tensor map (CUtensorMap, as cuTensorMapEncodeTiled makes one) over `array` (NumPy,
    copied to the device, or a DeviceArray), for cp.async.bulk.tensor: pass it as a
    `.param .align 64 .b8 [128]` argument (__grid_constant__) or copy it to global memory.
    Shapes, boxes and strides in NumPy order; see ptxvm/engine/async_copy/tensor_map.py."""
    from .engine.async_copy.tensor_map import tensor_map as _tm

    return _tm(array, box, element_strides=element_strides, swizzle=swizzle, interleave=interleave,
               oob_fill=oob_fill, l2_promotion=l2_promotion, dtype=dtype, shape=shape, strides=strides)


def tensor_map_im2col(array, *, lower, upper, channels, pixels, swizzle="none", oob_fill="none",
                      l2_promotion="none", dtype=None, shape=None, strides=None):
    """An im2col tensor map (as cuTensorMapEncodeIm2col makes one) over an N[D][H]WC `array`, for
    cp.async.bulk.tensor .im2col loads: bounding-box corners `lower`/`upper` (W first), `channels`
    per pixel, `pixels` per column. See ptxvm/engine/async_copy/tensor_map.py."""
    from .engine.async_copy.tensor_map import tensor_map_im2col as _tm

    return _tm(array, lower=lower, upper=upper, channels=channels, pixels=pixels, swizzle=swizzle,
               oob_fill=oob_fill, l2_promotion=l2_promotion, dtype=dtype, shape=shape, strides=strides)


def to_device(a):
    """Copy a NumPy array to the virtual device; pass the result as a pointer argument."""
    from .engine.core.device import default_device

    return default_device().to_device(a)


def device_array(shape, dtype):
    """An uninitialised (zeroed) array on the virtual device."""
    from .engine.core.device import default_device

    return default_device().device_array(shape, dtype)


def set_device_memory_limit(nbytes: int) -> None:
    """How many bytes of host memory the virtual device may hold: device arrays, argument copies,
    module variables, device malloc and a launch wave's shared, local and register state. Beyond it
    allocations raise OutOfDeviceMemory (device malloc returns NULL). Default: the environment
    variable PTXVM_DEVICE_MEMORY (bytes, or 512M, 8G, ...), else half the machine's available
    memory, at most the H200's 143771 MiB."""
    from .engine.core.device import default_device

    default_device().set_memory_limit(nbytes)


def device_memory_info() -> tuple:
    """(free, total) bytes of the virtual device's memory budget, as cudaMemGetInfo gives them."""
    from .engine.core.device import default_device

    return default_device().memory_info()


def __getattr__(name):
    if name in ("Module", "Kernel"):
        from . import module

        return getattr(module, name)
    if name == "PtxLinkError":
        from .linker import PtxLinkError

        return PtxLinkError
    if name == "LaunchStats":
        from .engine.launch import LaunchStats

        return LaunchStats
    if name == "TensorMap":
        from .engine.async_copy.tensor_map import TensorMap

        return TensorMap
    if name == "DeviceArray":
        from .engine.core.device import DeviceArray

        return DeviceArray
    if name in ("compile_cuda", "CudaCompileError"):
        from .frontdoor import cuda

        return getattr(cuda, name)
    if name in ("inline_asm", "InlineAsmError"):
        from .frontdoor import inline_asm

        return getattr(inline_asm, name)
    if name in ("Debugger", "DebuggerError"):
        from .tools import debugger

        return getattr(debugger, name)
    if name == "map_launches":
        from .parallel.sweep import map_launches

        return map_launches
    if name in ("DataRaceWarning", "DataRaceError", "ArgumentTypeWarning"):
        from . import errors

        return getattr(errors, name)
    if name == "ray":
        import importlib

        return importlib.import_module(".ray", __name__)
    if name in ("compare", "CompareReport"):
        from .backends import compare

        return getattr(compare, name)
    if name in ("GpuModule", "CudaKernelFault", "CudaUnavailableError"):
        from .backends import cuda

        return getattr(cuda, name)
    raise AttributeError(f"module 'ptxvm' has no attribute {name!r}")
