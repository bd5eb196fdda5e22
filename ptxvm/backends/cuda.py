"""ptxvm's launch API on a real NVIDIA GPU.

    mod = ptxvm.load("saxpy.ptx", device="cuda")     # verified by ptxvm, then JIT-loaded by the driver
    mod["saxpy"].launch(4, 256, [np.int32(n), np.float32(2), x, y])
    mod.write_symbol("table", t); mod.read_symbol("count", np.uint32)

Arguments follow the CPU engine's rules (`ptxvm.engine.launch`): NumPy arrays for 64-bit pointer
parameters are copied in and, after the kernel, back (the same array twice is one allocation);
scalars are encoded by the parameter's PTX type; by-value structs are bytes or np.void;
`ptxvm.texture_object` / `ptxvm.surface_object` arguments become CUDA texture / surface objects over
CUDA arrays with the same contents and settings, and each surface's array is copied back into the
NumPy array it wraps; a DeviceArray of the CPU engine is copied to the GPU and back, and a
`ptxvm.tensor_map` over one is re-encoded for the GPU copy (the same 128 bytes, another address). Device
printf output is written to the caller's `sys.stdout`. A failing launch raises `CudaKernelFault`
(a `ptxvm.KernelFault`) naming the kernel and the CUDA error, and the host arrays stay as they were.
"""
from __future__ import annotations

import ctypes
import os
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ..engine.core.device import DeviceArray
from ..engine.launch import _scalar_bytes, dim3
from ..engine.core.layout import var_size
from ..engine.async_copy.tensor_map import TensorMap
from ..engine.async_copy.tensor_map_layout import put_u64
from ..engine.texture.objects import SurfaceObject, TextureObject
from ..errors import FaultSite, KernelFault, LaunchError
from ..semantics.dtypes import bits_of
from .cuda_driver import CudaContextLost, CudaError, CudaUnavailableError, runtime
from .cuda_resources import GpuResources

__all__ = ["GpuModule", "GpuKernel", "GpuLaunchStats", "CudaKernelFault", "CudaUnavailableError", "CudaError", "CudaContextLost",
           "gpu_available"]


# The system calls nvcc emits as calls to .extern functions (ISA 7.x: vprintf, __assertfail, malloc,
# free): the driver's JIT supplies them, so they are not unresolved.
SYSTEM_CALLS = frozenset({"vprintf", "__assertfail", "malloc", "free"})


class CudaKernelFault(KernelFault):
    """A launch failed on the GPU. `cuda_error` is the CUresult name (CUDA_ERROR_ILLEGAL_ADDRESS, ...).

    The GPU does not say which thread faulted, so `cta`, `thread` and `line` are None. After a
    sticky error (`context_lost`: illegal address, trap, ...) CUDA accepts no more work in this
    process: later GPU calls raise CudaContextLost."""

    def __init__(self, kernel: str, error: CudaError, grid, block, lost: bool):
        self.cuda_error = error.name
        self.context_lost = lost
        self._where = f"kernel {kernel} on the GPU (grid {grid}, block {block})"
        self._note = "; the GPU is now unusable in this process (CUDA needs a new process)" if lost else ""
        super().__init__(f"{error.name}: {error.text}", FaultSite(kernel, None, None))

    def _describe(self) -> str:
        return f"{self.reason}: {self._where}{self._note}"


@dataclass
class GpuLaunchStats:
    """What a GPU launch reports: wall time with copies (`seconds`) and of the kernel alone."""

    seconds: float
    kernel_seconds: float
    ctas: int
    threads: int
    device: str


def gpu_available(ordinal: int = 0) -> Optional[str]:
    """None if device='cuda' works here, else the reason it does not."""
    try:
        runtime(ordinal)
    except CudaUnavailableError as e:
        return e.reason
    return None


# ------------------------------------------------------------------------------------ modules
class GpuModule:
    """A verified PTX module loaded on a GPU; the same API as `ptxvm.Module`."""

    def __init__(self, host, ordinal: int = 0, api: Optional[str] = None):
        self.host = host  # the ptxvm.Module: AST, source, kernel signatures
        self.ast = host.ast
        self.file = host.file
        # A linked program (ptxvm.link) goes to the driver as the one module ptxvm's linker made of
        # it (printed): the GPU then runs the program the CPU engine runs, resolved by the same rules
        # (weak/strong, private names), and the driver's JIT compiles it as a whole program.
        parts = getattr(host, "parts", None)
        defined = {f.name for f in host.ast.functions() if f.body is not None}
        unresolved = sorted({f.name for f in host.ast.functions()
                             if f.body is None and f.name not in defined and f.name not in SYSTEM_CALLS})
        if unresolved:  # the CPU engine faults only where a call is reached; the driver's JIT needs them all
            from ..errors import LaunchError

            raise LaunchError(f"the GPU cannot load this program: it calls .extern functions no module defines "
                              f"({', '.join(unresolved)}); the driver's JIT, like nvlink, needs every one resolved "
                              f"(the CPU engine faults only where a call to one is reached)")
        self.source = host.to_ptx() if parts else host.source or host.to_ptx()
        self.runtime = runtime(ordinal, api)
        self.device = f"cuda:{ordinal}"
        self._loaded = None
        self._prints = "vprintf" in self.source

    @property
    def warnings(self) -> list:
        """The verifier's warnings about this PTX (the CPU module's)."""
        return self.host.warnings

    @property
    def loaded(self):
        """The driver's module (loaded on first use), with the GPU's context current."""
        rt = self.runtime
        rt.make_current()
        if self._loaded is None:
            self._loaded = rt.load(self.source, self.file)
        return self._loaded

    def kernel(self, name: str) -> "GpuKernel":
        self.host.kernel(name)  # KeyError listing the kernels
        return GpuKernel(self, name)

    def __getitem__(self, name: str) -> "GpuKernel":
        return self.kernel(name)

    @property
    def kernels(self) -> list[str]:
        return self.host.kernels

    def to_ptx(self) -> str:
        return self.host.to_ptx()

    def _variable(self, name: str) -> tuple[int, int]:
        decl = next((v for v in self.ast.variables() if v.name == name), None)
        if decl is None or decl.space.split("::")[0] not in ("global", "const"):
            raise KeyError(f"no .global or .const variable named {name!r}")
        try:
            return self.runtime.global_address(self.loaded, name)
        except CudaError as e:
            raise KeyError(f"{name}: the driver has no such variable ({e.name}); is it used by a kernel?") from None

    def write_symbol(self, name: str, array) -> None:
        """Copy host data into a module variable (cudaMemcpyToSymbol)."""
        ptr, size = self._variable(name)
        raw = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
        if raw.size > size:
            raise LaunchError(f"{raw.size} bytes do not fit {name} ({size} bytes)")
        self.runtime.to_device(ptr, raw)

    def read_symbol(self, name: str, dtype, count: Optional[int] = None) -> np.ndarray:
        ptr, size = self._variable(name)
        dt = np.dtype(dtype)
        count = size // dt.itemsize if count is None else count
        if count * dt.itemsize > size:
            raise LaunchError(f"{name} holds {size} bytes, {count} x {dt} asked for")
        out = np.empty(count, dt)
        self.runtime.from_device(out, ptr)
        return out

    def __repr__(self) -> str:
        return f"<GpuModule {self.file} on {self.runtime.name} ({self.runtime.api})>"


class GpuKernel:
    def __init__(self, module: GpuModule, name: str):
        self.module = module
        self.name = name
        self.decl = module.ast.function(name)

    def launch(self, grid, block, args=(), shared_mem: int = 0, cluster=None, **ignored) -> GpuLaunchStats:
        """Run the kernel on the GPU and wait for it; arrays are copied back afterwards."""
        if ignored.pop("cooperative", False):
            raise LaunchError("cooperative=True: cooperative launches (cudaLaunchCooperativeKernel) run on the CPU "
                              "engine; the cuda backend launches with cuLaunchKernel only")
        unknown = set(ignored) - {"max_instructions", "progress"}  # CPU-engine options with no GPU meaning
        if unknown:
            raise TypeError(f"launch() got unexpected keyword arguments {sorted(unknown)}")
        grid, block = dim3(grid, "grid"), dim3(block, "block")
        cluster = dim3(cluster, "cluster") if cluster is not None else None
        if cluster is not None and any(g % c for g, c in zip(grid, cluster)):
            raise LaunchError(f"grid {grid} is not a whole number of clusters {cluster}")
        start = time.perf_counter()
        rt = self.module.runtime
        loaded = self.module.loaded
        rt.resolve(loaded, self.name)  # a module the driver rejects is a CudaError, not a fault
        copies = Copies(rt)
        try:
            params, plain = marshal(self.decl, list(args), copies)
            t0 = time.perf_counter()
            with _printf_to_stdout(self.module._prints):
                self._run(rt, loaded, grid, block, params, shared_mem, cluster, plain)
            kernel_seconds = time.perf_counter() - t0
            copies.copy_back()
        finally:
            copies.free()
        threads = int(np.prod(block))
        ctas = int(np.prod(grid))
        return GpuLaunchStats(time.perf_counter() - start, kernel_seconds, ctas, ctas * threads, rt.name)

    def _run(self, rt, loaded, grid, block, params, shared_mem, cluster, plain) -> None:
        try:
            rt.launch(loaded, self.name, grid, block, params, int(shared_mem), cluster, plain)
        except CudaError as e:
            lost = rt.sticky()
            if lost:
                rt.lose(f"kernel {self.name} failed with {e.name}")
            raise CudaKernelFault(self.name, e, grid, block, lost) from None

    def __getitem__(self, config):
        if not isinstance(config, tuple) or not 2 <= len(config) <= 3:
            raise LaunchError(f"kernel[grid, block] or kernel[grid, block, shared_mem], got kernel[{config!r}]")
        grid, block, *rest = config
        shared = rest[0] if rest else 0
        return lambda *args: self.launch(grid, block, args, shared_mem=shared)

    def __repr__(self) -> str:
        return f"<GpuKernel {self.name} of {self.module.file}>"


# ------------------------------------------------------------------------------------ arguments
class Copies:
    """Device copies of the launch's host arrays and of the CPU engine's DeviceArrays (one allocation
    per distinct array), its tensor maps (re-aimed at those copies) and its texture and surface
    objects (CUDA arrays with texture/surface objects over them)."""

    def __init__(self, rt):
        self.rt = rt
        self.by_id: dict[int, tuple[object, int]] = {}  # id -> (NumPy array or DeviceArray, device pointer)
        self.resources = GpuResources(rt)

    def pointer(self, a) -> int:
        found = self.by_id.get(id(a))
        if found is None:
            ptr = self.rt.alloc(a.nbytes)
            self.by_id[id(a)] = found = (a, ptr)
            self.rt.to_device(ptr, a if isinstance(a, np.ndarray) else a.copy_to_host())
        return found[1]

    def tensor_map(self, m: TensorMap) -> bytes:
        """The map's 128 bytes with its global address moved into the GPU copy of its array."""
        if not isinstance(m.array, DeviceArray):
            raise LaunchError("a tensor map for a device='cuda' launch must come from ptxvm.tensor_map")
        raw = bytearray(m)
        put_u64(raw, 0, self.pointer(m.array) + (m.desc.address - m.array.address))
        return bytes(raw)

    def copy_back(self) -> None:
        results = []
        for a, ptr in self.by_id.values():  # read everything before touching any host array
            out = np.empty(a.shape, a.dtype)
            self.rt.from_device(out, ptr)
            results.append((a, out))
        surfaces = self.resources.read_back()
        for a, out in results:  # a read-only array takes nothing back (the CPU engine's rule, Launch.finish)
            if isinstance(a, np.ndarray) and not a.flags.writeable and a.tobytes() != out.tobytes():
                raise LaunchError("the kernel wrote to a read-only array argument (np.frombuffer, a broadcast "
                                  "view...), where its results cannot be returned: pass a writeable array")
        for a, out in results:
            if isinstance(a, np.ndarray):
                if a.flags.writeable:
                    a[...] = out
            else:
                a.copy_from_host(out)
        for s, data in surfaces:
            s.data[...] = data  # a view of the caller's array

    def free(self) -> None:
        for _, ptr in self.by_id.values():
            self.rt.free(ptr)
        self.by_id.clear()
        self.resources.free()


def marshal(decl, args: list, copies: Copies) -> tuple[list[bytes], bool]:
    """Each parameter's bytes, and whether all are scalars/pointers (no by-value aggregates)."""
    params = decl.params
    if len(args) != len(params):
        raise LaunchError(f"kernel {decl.name} takes {len(params)} arguments, {len(args)} given")
    out, plain = [], True
    for i, (p, a) in enumerate(zip(params, args)):
        where = f"argument {i} ({p.name}, .{p.type}{'[%d]' % var_size(p) if p.array else ''})"
        if isinstance(a, TensorMap):
            if not p.array or var_size(p) != len(a):
                raise LaunchError(f"{where}: a tensor map needs a .b8 [{len(a)}] parameter")
            out.append(copies.tensor_map(a))
            plain = False
        elif p.array or p.vector:
            out.append(_aggregate_bytes(p, a, where))
            plain = False
        elif isinstance(a, (np.ndarray, DeviceArray)):
            if bits_of(p.type) != 64:
                raise LaunchError(f"{where}: an array needs a 64-bit pointer parameter")
            if isinstance(a, np.ndarray) and not a.flags.c_contiguous:
                raise LaunchError(f"{where}: the array must be C-contiguous")
            out.append(np.uint64(copies.pointer(a)).tobytes())
        elif isinstance(a, (TextureObject, SurfaceObject)):
            if bits_of(p.type) != 64:
                raise LaunchError(f"{where}: a {a.kind} object needs a 64-bit parameter")
            out.append(np.uint64(copies.resources.handle(a)).tobytes())
        elif hasattr(a, "handle") or hasattr(a, "address"):
            raise LaunchError(f"{where}: {type(a).__name__} lives on the CPU engine's virtual device; "
                              "pass a NumPy array to a device='cuda' launch")
        else:
            out.append(_scalar_bytes(p.type, a, where))
    return out, plain


def _aggregate_bytes(p, a, where: str) -> bytes:
    size = var_size(p)
    if isinstance(a, np.void) or (isinstance(a, np.ndarray) and not p.array):
        a = a.tobytes()
    if isinstance(a, np.ndarray):
        a = np.ascontiguousarray(a).tobytes()
    if not isinstance(a, (bytes, bytearray, memoryview)):
        raise LaunchError(f"{where}: a by-value struct/array parameter takes bytes or np.void of {size} bytes")
    if len(bytes(a)) != size:
        raise LaunchError(f"{where}: expected {size} bytes, got {len(bytes(a))}")
    return bytes(a)


# ------------------------------------------------------------------------------------ printf
@contextmanager
def _printf_to_stdout(enabled: bool):
    """Device printf goes to the process's file descriptor 1 when the context synchronises; catch
    it there and write it to `sys.stdout`, where the CPU engine's printf output goes."""
    if not enabled:
        yield
        return
    sys.stdout.flush()
    libc = ctypes.CDLL(None)
    saved = os.dup(1)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 1)
        try:
            yield
        finally:
            libc.fflush(None)
            os.dup2(saved, 1)
            os.close(saved)
            tmp.seek(0)
            text = tmp.read().decode("utf-8", errors="replace")
            if text:
                sys.stdout.write(text)
                sys.stdout.flush()
