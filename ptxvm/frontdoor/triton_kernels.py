"""Triton kernels on the CPU engine, launched with the syntax Triton users write.

    import ptxvm.triton

    ptxvm.triton.jit(add_kernel)[grid](x, y, out, n, BLOCK=1024)     # NumPy arrays, written in place
    ptxvm.triton.run(add_kernel, grid, x, y, out, n, BLOCK=1024)

How: for the length of a launch ptxvm installs itself as Triton's active driver (Triton's own hook,
`triton.runtime.driver.set_active`), then calls `kernel[grid](*args, **meta)` as usual. So Triton
binds and specializes the arguments (ints equal to 1, divisibility by 16, constexprs, None),
computes the grid, runs `@triton.autotune` and `@triton.heuristics`, compiles for sm_90a and caches
compiled kernels exactly as it does for a GPU; compile errors are Triton's own. The driver answers
"an sm_90a device" and hands each launch to `_Launcher`, which runs the PTX Triton generated on
ptxvm: `num_warps * 32` threads per CTA, clusters of `num_ctas`, the dynamic shared memory Triton
computed, the global and profile scratch Triton's launcher would allocate.

Arrays (NumPy, ml_dtypes bf16/fp8, torch CPU tensors) are copied to the virtual device before the
launch and back after it; Python and NumPy scalars pass as they are. Autotuning runs each config on
ptxvm and ranks them by the timing model's predicted time for an H200.
"""
from __future__ import annotations

import contextlib
import ctypes
import functools
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from ..errors import LaunchError

__all__ = ["jit", "run", "tensor_descriptor", "TritonKernel", "TritonUnavailable"]

DEVICE = "ptxvm"          # Triton's per-device caches are keyed by this, apart from any real GPU
MAX_SHARED = 232448       # an H200 CTA's shared memory with the opt-in (227 KiB)
SM_COUNT = 132


class TritonUnavailable(ImportError):
    """triton is not installed (`pip install 'ptxvm[triton]'`)."""


@functools.lru_cache(maxsize=1)
def _triton():
    try:
        import triton
    except Exception as e:  # noqa: BLE001
        raise TritonUnavailable(f"ptxvm.triton needs triton ({e}); install it with pip install 'ptxvm[triton]'") from e
    return triton


# ----------------------------------------------------------------------------------- arguments
class DeviceTensor:
    """What a Triton kernel receives for an array: a dtype Triton can name and the address of the
    array's copy in the virtual device's global memory (`data_ptr()`, as a CUDA tensor has)."""

    def __init__(self, host: np.ndarray, dtype_name: str):
        from .. import to_device

        self.host = host
        self.dtype = DTypeName(dtype_name, host.itemsize)
        self.shape = host.shape
        # the bytes the view spans, as laid out in its buffer: a kernel given the view's strides
        # (b.T, a slice) addresses them as on a GPU, where a tensor is a view of its storage
        self.span, self.offset = _span(host)
        self.device_array = to_device(self.span)

    def data_ptr(self) -> int:
        return self.device_array.address + self.offset

    def stride(self, dim: Optional[int] = None):
        strides = tuple(s // self.host.itemsize for s in self.host.strides)
        return strides if dim is None else strides[dim]

    def copy_back(self) -> None:
        if self.span.flags.writeable:
            self.device_array.copy_to_host(out=self.span)


def _span(a: np.ndarray) -> tuple[np.ndarray, int]:
    """(the bytes from `a`'s lowest to its highest element as a uint8 array over its memory, the
    offset of a[0, ...] in them); a contiguous array is its own bytes. The caller keeps `a` alive
    while it uses them."""
    if a.flags.c_contiguous or a.size == 0:
        return np.ascontiguousarray(a).reshape(-1).view(np.uint8), 0
    if any(s % a.itemsize for s in a.strides):
        raise LaunchError(f"ptxvm.triton: an array whose strides {a.strides} are not whole elements of "
                          f"{a.itemsize} bytes")
    lo = sum(min(0, (n - 1) * s) for n, s in zip(a.shape, a.strides))
    hi = sum(max(0, (n - 1) * s) for n, s in zip(a.shape, a.strides)) + a.itemsize
    span = np.ctypeslib.as_array((ctypes.c_uint8 * (hi - lo)).from_address(a.ctypes.data + lo))
    span.flags.writeable = a.flags.writeable
    return span, -lo


class DTypeName(str):
    """A dtype as Triton reads one: its name (`float16`, `bfloat16`...) plus `itemsize`."""

    def __new__(cls, name: str, itemsize: int):
        self = super().__new__(cls, name)
        self.itemsize = itemsize
        return self


class HostArray:
    """A NumPy array as the `base` of a triton TensorDescriptor (which asks its base for a
    16-byte-aligned `data_ptr()` and a dtype); the launch moves it to the virtual device."""

    def __init__(self, array: np.ndarray):
        self.array = array
        self.dtype = DTypeName(_dtype_name(array.dtype), array.itemsize)
        self.shape = array.shape

    def data_ptr(self) -> int:
        return self.array.ctypes.data

    def stride(self, dim: Optional[int] = None):
        strides = tuple(s // self.array.itemsize for s in self.array.strides)
        return strides if dim is None else strides[dim]


def tensor_descriptor(array, block_shape, shape=None, strides=None, padding: str = "zero"):
    """A host-side TMA descriptor (triton.tools.tensor_descriptor.TensorDescriptor) over a NumPy
    array, for kernels that take one: what `TensorDescriptor.from_tensor` gives for a CUDA tensor."""
    _triton()
    from triton.tools.tensor_descriptor import TensorDescriptor

    base = array if hasattr(array, "data_ptr") else HostArray(np.asarray(array))
    shape = list(base.shape if shape is None else shape)
    strides = list(base.stride() if strides is None else strides)
    return TensorDescriptor(base, shape, strides, list(block_shape), padding=padding)


def _dtype_name(dtype) -> str:
    """Triton's names come from torch's (`float32`, `bfloat16`, `float8_e4m3fn`...); NumPy and
    ml_dtypes use the same words."""
    name = str(dtype).split(".")[-1]
    return {"bool": "int1"}.get(name, name)


def _host_view(a):
    """(a NumPy array sharing the argument's memory, its dtype name) for an array argument, else None."""
    if isinstance(a, np.ndarray):
        return a, _dtype_name(a.dtype)
    if type(a).__module__.startswith("torch") and hasattr(a, "data_ptr") and hasattr(a, "dtype"):
        if a.device.type != "cpu":
            raise LaunchError(f"ptxvm.triton takes CPU tensors; this one is on {a.device}")
        import torch

        name = _dtype_name(a.dtype)
        if a.dtype == torch.bfloat16 or "float8" in name:
            import ml_dtypes

            raw = a.view(torch.uint16 if a.dtype == torch.bfloat16 else torch.uint8).numpy()
            return raw.view(getattr(ml_dtypes, name)), name
        return a.numpy(), name
    if hasattr(a, "__dlpack__") and hasattr(a, "dtype"):
        from ..engine.launch import host_array

        view = host_array(a, "a DLPack argument")
        return view, _dtype_name(view.dtype)
    return None


class _Arguments:
    """Arrays turned into DeviceTensors (TensorDescriptors keep theirs), copied back afterwards."""

    def __init__(self):
        self.tensors: list[DeviceTensor] = []

    def convert(self, a):
        if isinstance(a, HostArray):
            a = a.array
        view = _host_view(a)
        if view is not None:
            t = DeviceTensor(*view)
            self.tensors.append(t)
            return t
        desc = _tensor_descriptor_type()
        if desc is not None and isinstance(a, desc):
            import dataclasses

            return dataclasses.replace(a, base=self.convert(a.base))
        if isinstance(a, np.bool_):
            return bool(a)
        if isinstance(a, np.integer):
            return int(a)
        if isinstance(a, np.floating):
            return float(a)
        if isinstance(a, tuple):
            return tuple(self.convert(x) for x in a)
        return a

    def copy_back(self) -> None:
        for t in self.tensors:
            t.copy_back()

    def free(self) -> None:
        for t in self.tensors:
            t.device_array.free()


def _tensor_descriptor_type():
    try:
        from triton.tools.tensor_descriptor import TensorDescriptor
    except Exception:  # noqa: BLE001
        return None
    return TensorDescriptor


# ----------------------------------------------------------------------------------- the driver
class _Utils:
    """The part of a Triton driver's `utils` that a launch reaches."""

    def load_binary(self, name, kernel, shared, device):
        # module, function, registers, spills, max threads per CTA (CompiledKernel._init_handles).
        # No module: a collected CompiledKernel unloads it only if it has one, and Triton's driver is
        # ptxvm only during a launch (its __del__ outside one asked for a CUDA driver and printed
        # a traceback)
        return None, name, _registers(bytes(kernel) if isinstance(kernel, (bytes, bytearray)) else b""), 0, 1024

    def unload_module(self, module):
        """Nothing to unload (Triton calls it as a CompiledKernel is collected)."""

    def get_device_properties(self, device):
        return {"max_shared_mem": MAX_SHARED, "multiprocessor_count": SM_COUNT, "max_num_regs": 65536,
                "warpSize": 32, "sm_clock_rate": 1980000, "mem_clock_rate": 3201000, "mem_bus_width": 6144}


@functools.lru_cache(maxsize=256)
def _registers(cubin: bytes) -> int:
    """Registers per thread of a kernel's cubin, as cuobjdump -res-usage reports them (Triton
    bundles cuobjdump; ptxvm.toolchain finds it); 0 when no cuobjdump answers."""
    import re
    import subprocess
    import tempfile

    from .. import toolchain

    tool = toolchain.find("cuobjdump")
    if not cubin or tool is None:
        return 0
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        try:
            out = subprocess.run([tool, "-res-usage", f.name], capture_output=True, text=True, timeout=60).stdout
        except (OSError, subprocess.SubprocessError):
            return 0
    m = re.search(r"REG:(\d+)", out)
    return int(m.group(1)) if m else 0


def _driver_class():
    triton = _triton()
    from triton.backends.compiler import GPUTarget
    from triton.backends.driver import DriverBase
    from triton.backends.nvidia.driver import ty_to_cpp

    class PtxvmDriver(DriverBase):
        """Triton's view of ptxvm: one sm_90a device whose launches run on the CPU engine."""

        def __init__(self):
            self.utils = _Utils()
            self.launcher_cls = _Launcher

        @classmethod
        def is_active(cls):
            return False  # never chosen by Triton on its own; ptxvm.triton sets it for its launches

        def map_python_to_cpp_type(self, ty: str) -> str:
            return ty_to_cpp(ty)

        def get_current_target(self):
            return GPUTarget("cuda", 90, 32)

        def get_active_torch_device(self):
            import torch

            return torch.device("cpu")

        def get_current_device(self):
            return DEVICE

        def set_current_device(self, device):
            pass

        def get_current_stream(self, device=None):
            return 0

        def get_device_capability(self, device=None):
            return (9, 0)

        def get_benchmarker(self):
            return _predicted_time_ms

        def get_empty_cache_for_benchmark(self):
            return None

        def clear_cache(self, cache):
            pass


    del triton
    return PtxvmDriver


@functools.lru_cache(maxsize=1)
def _driver():
    return _driver_class()()


@contextlib.contextmanager
def _active():
    """ptxvm as Triton's active driver for the length of one launch (Triton's own hook)."""
    from triton.runtime.driver import driver

    saved = driver._active
    driver.set_active(_driver())
    try:
        yield
    finally:
        driver._active = saved


# ----------------------------------------------------------------------------------- launching
@dataclass
class _Launch:
    """The launch `_Launcher` ran last (what `TritonKernel.last_stats` reports)."""

    stats: Any = None


_LAST = _Launch()
_TIMING: list = []  # set by _predicted_time_ms: profile instead of launch


class _Launcher:
    """Triton's launcher_cls: `launcher(gx, gy, gz, stream, function, packed_metadata,
    launch_metadata, enter_hook, exit_hook, *bound_args)` runs the kernel on ptxvm."""

    def __init__(self, src, metadata):
        from triton.runtime.cache import get_cache_manager

        self.metadata = metadata
        self.signature = list(src.signature.values())
        self.tensordesc_meta = list(getattr(metadata, "tensordesc_meta", None) or [])
        path = get_cache_manager(metadata.hash).get_file(f"{metadata.name}.ptx")
        if path is None:
            raise LaunchError(f"ptxvm.triton: Triton's cache has no PTX for kernel {metadata.name}")
        with open(path) as f:
            self.ptx = f.read()
        self._module = None

    @property
    def module(self):
        if self._module is None:
            from .. import loads

            self._module = loads(self.ptx, f"<triton {self.metadata.name}>")
        return self._module

    def __call__(self, gx, gy, gz, stream, function, packed_metadata, launch_metadata, enter_hook, exit_hook,
                 *args):
        md = self.metadata
        if getattr(md, "launch_cooperative_grid", False):
            raise LaunchError("ptxvm.triton: cooperative-grid launches (launch_cooperative_grid) are not supported")
        params = self._parameters(args)
        grid = (int(gx), int(gy), int(gz))
        ctas = grid[0] * grid[1] * grid[2] * int(md.num_ctas)
        scratch = [self._scratch(md.global_scratch_size, ctas, user_allocator=True),
                   self._scratch(md.profile_scratch_size, ctas, user_allocator=False)]
        params += [np.uint64(0 if s is None else s.address) for s in scratch]
        cluster = (int(md.num_ctas), 1, 1) if int(md.num_ctas) > 1 else None
        if cluster is not None:
            grid = (grid[0] * cluster[0], grid[1], grid[2])  # Triton's grid counts clusters
        kernel = self.module.kernel(md.name)
        block = (32 * int(md.num_warps), 1, 1)
        if enter_hook is not None:
            enter_hook(launch_metadata)
        try:
            if _TIMING:
                _TIMING[-1] = kernel.profile(grid, block, params, shared_mem=int(md.shared)).seconds
            else:
                _LAST.stats = kernel.launch(grid, block, params, shared_mem=int(md.shared), cluster=cluster)
        finally:
            for s in scratch:
                if s is not None:
                    s.free()
        if exit_hook is not None:
            exit_hook(launch_metadata)

    def _parameters(self, args) -> list:
        flat_sig, flat_args = [], []

        def flatten(sig, arg):
            if isinstance(sig, tuple):
                for s, a in zip(sig, arg):
                    flatten(s, a)
            else:
                flat_sig.append(sig)
                flat_args.append(arg)

        for sig, arg in zip(self.signature, args):
            flatten(sig, arg)
        params, descs = [], iter(self.tensordesc_meta)
        for sig, arg in zip(flat_sig, flat_args):
            if sig == "constexpr":
                continue
            if sig.startswith("tensordesc"):
                params += _tensor_map_parameters(arg, next(descs, None))
            elif sig.startswith("*"):
                params.append(np.uint64(0 if arg is None else arg.data_ptr()))
            else:
                params.append(_scalar(sig, arg))
        return params

    @staticmethod
    def _scratch(size: int, ctas: int, user_allocator: bool):
        """The scratch Triton's launcher would allocate (size per CTA); the global scratch needs
        `triton.set_allocator` on a GPU, so it does here too (Triton's own error without one)."""
        if not size:
            return None
        if user_allocator:
            from triton.runtime import _allocation

            if isinstance(_allocation._allocator.get(), _allocation.NullAllocator):
                _allocation._allocator.get()(size * ctas, 1, 0)  # raises Triton's RuntimeError
        from .. import device_array

        return device_array(size * ctas, np.uint8)


def _scalar(sig: str, v):
    kinds = {"i1": np.uint8, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "u1": np.uint8,
             "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64, "fp16": np.float16,
             "bf16": None, "fp32": np.float32, "f32": np.float32, "fp64": np.float64}
    if sig not in kinds:
        raise LaunchError(f"ptxvm.triton: arguments of Triton type {sig} are not supported")
    if sig == "bf16":
        import ml_dtypes

        return np.uint16(np.array(v, np.float32).astype(ml_dtypes.bfloat16).view(np.uint16))
    if sig == "fp16":
        return np.uint16(np.float16(v).view(np.uint16))
    return kinds[sig](v)


def _tensor_map_parameters(desc, meta) -> list:
    """A host TensorDescriptor as the kernel takes it: the 128-byte CUtensorMap, then shape and strides."""
    from .. import tensor_map

    if meta is None:
        raise LaunchError("ptxvm.triton: a tensor descriptor argument whose kernel does not use TMA is not supported")
    if meta.get("is_im2col"):
        raise LaunchError("ptxvm.triton: im2col tensor descriptors are not supported")
    swizzle = {0: "none", 1: "32B", 2: "64B", 3: "128B"}[int(meta["swizzle"])]
    base = desc.base
    shape = [int(s) for s in desc.shape]
    strides = [int(s) for s in desc.strides]
    box = [int(b) for b in meta["block_size"]]
    itemsize = base.host.itemsize
    tmap = tensor_map(base.device_array, box=box, swizzle=swizzle, shape=shape, dtype=_tma_dtype(desc, meta),
                      strides=[s * itemsize for s in strides], oob_fill="nan" if desc.padding == "nan" else "none")
    return [tmap, *[np.int32(s) for s in shape], *[np.int64(s) for s in strides]]


def _tma_dtype(desc, meta):
    """The tensor map's data type as Triton's CUDA driver picks it: the kernel's element type (its
    metadata's device-side code: fp8 and int8 go as u8), tf32 when the descriptor rounds f32;
    None (the array's dtype) when the metadata has none."""
    from ..engine.async_copy.tensor_map import BY_CODE

    if getattr(desc, "round_f32_to_tf32", False):
        return "tf32"
    code = meta.get("elem_type")
    if code is None:
        return None
    host = {8: 10, 9: 8, 10: 9}.get(int(code), int(code))  # device codes differ from host ones at 8-10
    return BY_CODE.get(host)


def _predicted_time_ms(kernel_call, quantiles=None, **_):
    """Triton's benchmarker for @triton.autotune: each config runs once on ptxvm under the timing
    model, which predicts its time on an H200 (milliseconds, as do_bench returns)."""
    _TIMING.append(0.0)
    try:
        kernel_call()
        ms = _TIMING[-1] * 1e3
    finally:
        _TIMING.pop()
    return [ms] * len(quantiles) if quantiles else ms


# ----------------------------------------------------------------------------------- front door
class TritonKernel:
    """A @triton.jit (or autotuned / heuristics) kernel bound to ptxvm: `k[grid](*args, **meta)`."""

    def __init__(self, fn):
        _triton()
        from triton.runtime.jit import KernelInterface

        if not isinstance(fn, KernelInterface):
            raise TypeError(f"ptxvm.triton: {fn!r} is not a @triton.jit kernel")
        self.fn = fn
        self.last_stats = None

    def __getitem__(self, grid):
        return lambda *args, **meta: self.run(grid, *args, **meta)

    def run(self, grid, *args, **meta):
        conv = _Arguments()
        try:
            targs = [conv.convert(a) for a in args]
            tmeta = {k: conv.convert(v) for k, v in meta.items()}
            _LAST.stats = None
            with _active():
                compiled = self.fn[grid](*targs, **tmeta)
            self.last_stats = _LAST.stats
            conv.copy_back()
            return compiled
        finally:
            conv.free()

    def warmup(self, *args, grid, **meta):
        """Compile without launching, as the kernel's own `warmup` does on a GPU: the Triton
        CompiledKernel (`n_regs` after `_init_handles()`, `metadata.shared`...), e.g. to size a
        persistent grid as Triton's fused-softmax tutorial does."""
        conv = _Arguments()
        try:
            targs = [conv.convert(a) for a in args]
            tmeta = {k: conv.convert(v) for k, v in meta.items()}
            with _active():
                compiled = self.fn.warmup(*targs, grid=grid, **tmeta)
                compiled._init_handles()
            return compiled
        finally:
            conv.free()

    def __repr__(self) -> str:
        return f"<ptxvm.triton kernel {getattr(self.fn, '__name__', self.fn)!r}>"


def jit(fn) -> TritonKernel:
    """Wrap a @triton.jit kernel to run on ptxvm: `ptxvm.triton.jit(k)[grid](*args, **meta)`."""
    return TritonKernel(fn)


def run(fn, grid, *args, **meta):
    """Run a @triton.jit kernel on ptxvm: `ptxvm.triton.run(k, grid, *args, **meta)`."""
    return TritonKernel(fn).run(grid, *args, **meta)
