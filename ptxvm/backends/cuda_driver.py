"""The few CUDA calls the GPU backend needs, over NVIDIA's Python packages.

Two ways in, one interface (`Runtime`):

- "core": cuda.core (`Device`, `ObjectCode.from_ptx`, `LaunchConfig`, `launch`) loads modules and
  launches kernels whose parameters are plain scalars and pointers;
- "driver": cuda.bindings.driver alone (cuModuleLoadDataEx, cuLaunchKernelEx), used when cuda.core
  is missing or too old, and by both for what cuda.core's launcher cannot express: by-value
  struct parameters, clusters, more than 48 KiB of dynamic shared memory.

Memory copies, module variables and synchronisation always use cuda.bindings.driver (cuda.core
depends on it). Everything here is synchronous: a launch returns once the kernel has finished.
"""
from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass, field
from typing import Optional, Sequence

NEEDS = ("ptxvm: device='cuda' needs an NVIDIA driver and the optional extra ptxvm[cuda] (cuda-core): "
         "pip install 'ptxvm[cuda]'")
STATIC_SHARED_LIMIT = 48 * 1024  # dynamic shared memory above this needs an opt-in attribute


class CudaUnavailableError(RuntimeError):
    """No usable GPU here: the packages, the driver or a device is missing. Says which."""

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(f"{NEEDS}; here {reason}")


class CudaContextLost(RuntimeError):
    """An earlier launch failed in a way CUDA does not recover from (illegal address, trap, ...):
    the driver refuses all further GPU work in this process; only a new process can use the GPU."""


class CudaError(RuntimeError):
    """A CUDA call failed: `name` is the CUresult's name (CUDA_ERROR_...), `text` its description."""

    def __init__(self, name: str, text: str, call: str):
        self.name, self.text, self.call = name, text, call
        super().__init__(f"{call}: {name} ({text})")


# ------------------------------------------------------------------------------------ imports
def _import_driver():
    try:
        from cuda.bindings import driver  # type: ignore
        return driver
    except ImportError:
        pass
    try:
        from cuda import cuda as driver  # type: ignore  (cuda-python < 12.6)
        return driver
    except ImportError:
        return None


def _import_core():
    """cuda.core's namespace if it has what we use (Device, ObjectCode.from_ptx, LaunchConfig, launch)."""
    try:
        import cuda.core as core  # type: ignore
        if not hasattr(core, "Device"):
            import cuda.core.experimental as core  # type: ignore  (cuda.core < 0.4)
    except Exception:
        return None
    wanted = ("Device", "ObjectCode", "LaunchConfig", "launch")
    if not all(hasattr(core, w) for w in wanted) or not hasattr(core.ObjectCode, "from_ptx"):
        return None
    return core


def _handle(obj):
    h = getattr(obj, "handle", None)
    return h if h is not None else getattr(obj, "_handle")


# ------------------------------------------------------------------------------------ runtime
@dataclass
class _DeviceState:
    """What every Runtime of one GPU shares: they all use its primary context."""

    lost: Optional[str] = None  # why CUDA refuses further work in this process (a sticky fault)
    context: object = None  # the primary context as retained through the driver API


_SHARED: dict = {}  # ordinal -> _DeviceState


@dataclass
class Loaded:
    """One PTX module loaded in the current context."""

    library: object  # CUlibrary or CUmodule
    object_code: object = None  # cuda.core ObjectCode (api "core")
    kernels: dict = field(default_factory=dict)  # name -> cuda.core Kernel
    functions: dict = field(default_factory=dict)  # name -> CUfunction


class Runtime:
    """One GPU's primary context, through cuda.core ("core") or cuda.bindings alone ("driver")."""

    def __init__(self, ordinal: int = 0, api: Optional[str] = None):
        api = api or os.environ.get("PTXVM_CUDA_API") or "core"
        if api not in ("core", "driver"):
            raise ValueError(f"api must be 'core' or 'driver', got {api!r}")
        self.driver = _import_driver()
        if self.driver is None:
            raise CudaUnavailableError("cuda.bindings (cuda-python) is not installed")
        self.core = _import_core() if api == "core" else None
        self.ordinal = ordinal
        self.shared = _SHARED.setdefault(ordinal, _DeviceState())
        try:
            self._open()
        except (CudaUnavailableError, CudaContextLost):
            raise
        except CudaError as e:
            raise CudaUnavailableError(f"the driver reports {e.name} ({e.text})") from None
        except Exception as e:  # the driver library itself is missing (cuda.pathfinder, OSError, ...)
            raise CudaUnavailableError(f"the NVIDIA driver library could not be loaded ({type(e).__name__}: {e})") from None

    # -------------------------------------------------------------- context
    def _open(self) -> None:
        d = self.driver
        self.check(d.cuInit(0), "cuInit")
        count = self.check(d.cuDeviceGetCount(), "cuDeviceGetCount")
        if self.ordinal >= count:
            raise CudaUnavailableError(f"there is no CUDA device {self.ordinal} ({count} found)")
        self.device = self.check(d.cuDeviceGet(self.ordinal), "cuDeviceGet")
        if self.core is not None:
            self.core_device = self.core.Device(self.ordinal)
            self.core_device.set_current()
            self.stream = self.core_device.default_stream
        else:
            self.make_current()
        self.name = self.check(d.cuDeviceGetName(100, self.device), "cuDeviceGetName").split(b"\0")[0].decode()
        attr = d.CUdevice_attribute
        major = self.check(d.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, self.device), "cuDeviceGetAttribute")
        minor = self.check(d.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, self.device), "cuDeviceGetAttribute")
        self.compute_capability = (major, minor)

    @property
    def api(self) -> str:
        return "core" if self.core is not None else "driver"

    def make_current(self) -> None:
        """Make the GPU's primary context current; CudaContextLost after a sticky fault."""
        state = self.shared
        if state.lost is not None:
            raise CudaContextLost(f"the GPU is unusable in this process: {state.lost}; CUDA accepts no more "
                                  "work after such an error, only a new process can use the GPU")
        if self.core is not None:
            self.core_device.set_current()
            return
        if state.context is None:
            state.context = self.check(self.driver.cuDevicePrimaryCtxRetain(self.device), "cuDevicePrimaryCtxRetain")
        self.check(self.driver.cuCtxSetCurrent(state.context), "cuCtxSetCurrent")

    def sticky(self) -> bool:
        """After a failed launch: is the context unusable (illegal address, trap, ...)?"""
        (err,) = self.driver.cuCtxSynchronize()
        return int(err) != 0

    def lose(self, why: str) -> None:
        """Record a sticky fault. Neither cuDevicePrimaryCtxReset nor a new retain brings the context
        back (H200, driver 580: CUDA_ERROR_LAUNCH_FAILED / CONTEXT_IS_DESTROYED afterwards)."""
        self.shared.lost = why

    def check(self, result, call: str):
        """The values of a cuda.bindings call, or CudaError naming the CUresult."""
        err, *rest = result if isinstance(result, tuple) else (result,)
        if int(err) != 0:
            raise self.error(err, call)
        if not rest:
            return None
        return rest[0] if len(rest) == 1 else tuple(rest)

    def error(self, err, call: str) -> CudaError:
        d = self.driver
        _, name = d.cuGetErrorName(err)
        _, text = d.cuGetErrorString(err)
        name = name.decode() if isinstance(name, bytes) else str(name)
        text = text.decode() if isinstance(text, bytes) else str(text)
        return CudaError(name, text, call)

    # -------------------------------------------------------------- modules
    def load(self, ptx: str, name: str) -> Loaded:
        image = ptx.encode() + b"\0"
        if self.core is not None:
            code = ptx.encode()
            make = self.core.ObjectCode.from_ptx
            oc = self._wrap(lambda: make(code, name=name) if _takes_name(self.core) else make(code), "ObjectCode.from_ptx")
            return Loaded(None, object_code=oc)
        d = self.driver
        module = self.check(d.cuModuleLoadDataEx(image, 0, [], []), "cuModuleLoadDataEx")
        return Loaded(module)

    def library(self, loaded: Loaded):
        """The CUlibrary (cuda.core >= 0.2) or CUmodule holding the module's code."""
        if loaded.library is None:
            d = self.driver
            h = _handle(loaded.object_code)
            loaded.library = h if isinstance(h, (d.CUmodule, d.CUlibrary)) else d.CUlibrary(int(h))
        return loaded.library

    def core_kernel(self, loaded: Loaded, name: str):
        k = loaded.kernels.get(name)
        if k is None:
            k = loaded.kernels[name] = self._wrap(lambda: loaded.object_code.get_kernel(name), "ObjectCode.get_kernel")
        return k

    def resolve(self, loaded: Loaded, name: str) -> None:
        """Find kernel `name`, JIT-compiling the module if it was not yet (CudaError if that fails)."""
        if loaded.object_code is not None:
            self.core_kernel(loaded, name)
        else:
            self.function(loaded, name)

    def function(self, loaded: Loaded, name: str):
        """The CUfunction of kernel `name` in the current context."""
        f = loaded.functions.get(name)
        if f is not None:
            return f
        d = self.driver
        if loaded.object_code is not None:
            h = _handle(self.core_kernel(loaded, name))
            if not isinstance(h, d.CUfunction):
                h = h if isinstance(h, d.CUkernel) else d.CUkernel(int(h))
                h = self.check(d.cuKernelGetFunction(h), "cuKernelGetFunction")
            f = h
        else:
            f = self.check(d.cuModuleGetFunction(loaded.library, name.encode()), "cuModuleGetFunction")
        loaded.functions[name] = f
        return f

    def global_address(self, loaded: Loaded, name: str) -> tuple[int, int]:
        """(device address, size in bytes) of a .global or .const variable."""
        d = self.driver
        lib = self.library(loaded)
        if isinstance(lib, d.CUlibrary):
            ptr, size = self.check(d.cuLibraryGetGlobal(lib, name.encode()), "cuLibraryGetGlobal")
        else:
            ptr, size = self.check(d.cuModuleGetGlobal(lib, name.encode()), "cuModuleGetGlobal")
        return int(ptr), int(size)

    # -------------------------------------------------------------- memory
    def alloc(self, nbytes: int) -> int:
        return int(self.check(self.driver.cuMemAlloc(max(int(nbytes), 1)), "cuMemAlloc"))

    def free(self, ptr: int) -> None:
        self.driver.cuMemFree(ptr)  # its error after a sticky fault changes nothing

    def to_device(self, ptr: int, data) -> None:
        """Copy the bytes of a C-contiguous array or a bytes object to device address `ptr`."""
        buf = data if not isinstance(data, (bytes, bytearray)) else (ctypes.c_char * len(data)).from_buffer_copy(data)
        n = data.nbytes if hasattr(data, "nbytes") else len(data)
        if n:
            addr = data.ctypes.data if hasattr(data, "ctypes") else ctypes.addressof(buf)
            self.check(self.driver.cuMemcpyHtoD(ptr, addr, n), "cuMemcpyHtoD")

    def from_device(self, out, ptr: int) -> None:
        """Fill the C-contiguous NumPy array `out` from device address `ptr`."""
        if out.nbytes:
            self.check(self.driver.cuMemcpyDtoH(out.ctypes.data, ptr, out.nbytes), "cuMemcpyDtoH")

    # -------------------------------------------------------------- launches
    def launch(self, loaded: Loaded, kernel: str, grid, block, params: Sequence[bytes], shared_mem: int = 0,
               cluster=None, plain: bool = True) -> None:
        """Launch and wait. `params`: each parameter's bytes; `plain`: all are scalars or pointers."""
        # a copy from pageable host memory may still be on its way to the device when cuMemcpyHtoD
        # returns; the kernel, on cuda.core's stream, must not start before it lands
        self.check(self.driver.cuCtxSynchronize(), "cuCtxSynchronize")
        if self.core is not None and plain and cluster is None and shared_mem <= STATIC_SHARED_LIMIT:
            args = [_ctype(p) for p in params]
            config = self.core.LaunchConfig(grid=tuple(grid), block=tuple(block), shmem_size=int(shared_mem))
            self._wrap(lambda: self.core.launch(self.stream, config, self.core_kernel(loaded, kernel), *args), "launch")
        else:
            self._launch_ex(self.function(loaded, kernel), grid, block, params, shared_mem, cluster)
        self.check(self.driver.cuCtxSynchronize(), "cuCtxSynchronize")

    def _launch_ex(self, func, grid, block, params, shared_mem, cluster) -> None:
        d = self.driver
        if shared_mem > STATIC_SHARED_LIMIT:
            attr = d.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
            self.check(d.cuFuncSetAttribute(func, attr, int(shared_mem)), "cuFuncSetAttribute")
        bufs = [ctypes.create_string_buffer(bytes(p), max(len(p), 1)) for p in params]
        pointers = (ctypes.c_void_p * max(len(bufs), 1))(*[ctypes.addressof(b) for b in bufs])
        config = d.CUlaunchConfig()
        config.gridDimX, config.gridDimY, config.gridDimZ = (int(x) for x in grid)
        config.blockDimX, config.blockDimY, config.blockDimZ = (int(x) for x in block)
        config.sharedMemBytes = int(shared_mem)
        config.hStream = d.CUstream(0)
        attrs = []
        if cluster is not None:
            a = d.CUlaunchAttribute()
            a.id = d.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
            a.value.clusterDim.x, a.value.clusterDim.y, a.value.clusterDim.z = (int(x) for x in cluster)
            attrs.append(a)
        config.attrs = attrs
        config.numAttrs = len(attrs)
        self.check(d.cuLaunchKernelEx(config, func, ctypes.addressof(pointers), 0), "cuLaunchKernelEx")

    def _wrap(self, call, what: str):
        """Run a cuda.core call; its CUDA errors become CudaError (cuda.core says CUDA_ERROR_...)."""
        try:
            return call()
        except CudaError:
            raise
        except Exception as e:
            text = str(e)
            name = next((w.strip(":,.()'\"") for w in text.split() if w.startswith("CUDA_ERROR_")), type(e).__name__)
            raise CudaError(name, text, what) from None


def _takes_name(core) -> bool:
    import inspect

    try:
        return "name" in inspect.signature(core.ObjectCode.from_ptx).parameters
    except (TypeError, ValueError):
        return False


_CTYPES = {1: ctypes.c_uint8, 2: ctypes.c_uint16, 4: ctypes.c_uint32, 8: ctypes.c_uint64}


def _ctype(raw: bytes):
    """A parameter's bytes as the ctypes scalar of its width (cuda.core passes ctypes by value)."""
    return _CTYPES[len(raw)].from_buffer_copy(raw)


_RUNTIMES: dict = {}


def runtime(ordinal: int = 0, api: Optional[str] = None) -> Runtime:
    """The process's Runtime for GPU `ordinal` (created on first use)."""
    key = (ordinal, api or os.environ.get("PTXVM_CUDA_API") or "core")
    rt = _RUNTIMES.get(key)
    if rt is None:
        rt = _RUNTIMES[key] = Runtime(ordinal, key[1])
    return rt
