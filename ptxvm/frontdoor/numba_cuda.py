"""Numba CUDA kernels on the CPU engine: numba-cuda compiles the kernel to PTX for sm_90 (no GPU
needed), ptxvm runs that PTX as an H200 would, and the results land back in the NumPy arrays.

    from numba import cuda
    import ptxvm.numba

    @cuda.jit
    def axpy(a, x, y):
        i = cuda.grid(1)
        if i < x.size:
            y[i] += a * x[i]

    ptxvm.numba.jit(axpy)[4, 256](np.float32(2), x, y)      # or ptxvm.numba.run(axpy, 4, 256, 2.0, x, y)

Arguments are typed as Numba types them (`numba.typeof`: a Python int is int64, a float float64,
NumPy scalars keep their type, an array its dtype, dimensions and layout), the kernel is compiled
once per signature with the dispatcher's options (fastmath, lineinfo, ...), and each array travels
as Numba's array ABI: meminfo, parent, nitems, itemsize, data, shape[ndim], strides[ndim]. Arrays are
copied to the virtual device and back after the launch, as Numba does for host arrays; one that is
not C-contiguous (a Fortran-order array, a strided view) is staged through a C-contiguous copy,
typed as such, and written back into the original element by element.
"""
from __future__ import annotations

import contextlib
import functools
import types
from typing import Any, Callable, Sequence

import numpy as np

from ..errors import KernelFault, LaunchError
from ..module import Module

__all__ = ["jit", "run", "NumbaKernel", "NumbaUnavailable"]

COMPUTE_CAPABILITY = (9, 0)  # the H200 ptxvm models


class NumbaUnavailable(ImportError):
    """numba-cuda is not installed (`pip install 'ptxvm[numba]'`)."""


@functools.lru_cache(maxsize=1)
def _numba():
    try:
        import numba
        from numba import cuda
    except Exception as e:  # noqa: BLE001  (any import failure means the same thing to the user)
        raise NumbaUnavailable(f"ptxvm.numba needs numba-cuda ({e}); install it with pip install 'ptxvm[numba]'") from e
    return numba, cuda


def _python_function(kernel) -> Callable:
    """The Python function behind a @cuda.jit dispatcher (or a plain function)."""
    fn = getattr(kernel, "py_func", kernel)
    if not callable(fn):
        raise TypeError(f"ptxvm.numba: {kernel!r} is neither a @cuda.jit kernel nor a function")
    return fn


def _compile_options(kernel) -> dict:
    """The options the user gave @cuda.jit that change the generated code."""
    opts = dict(getattr(kernel, "targetoptions", {}) or {})
    return {k: opts[k] for k in ("fastmath", "lineinfo", "debug", "opt") if k in opts}


class NumbaKernel:
    """A Numba CUDA kernel bound to the CPU engine: `k[grid, block](*args)`,
    `k[grid, block, stream, shared_mem](*args)` or `k.run(grid, block, *args, shared_mem=...)`."""

    def __init__(self, kernel, signature=None):
        self.kernel = kernel
        self.py_func = _python_function(kernel)
        self.options = _compile_options(kernel)
        self.declared = _declared_signatures(kernel, signature)  # [] = typed from each call's arguments
        self._compiled: dict[tuple, tuple[Module, str, list]] = {}
        self._call_helpers: dict[tuple, Any] = {}  # per signature: Numba's exception table (debug=True)
        self.last_stats = None

    def __repr__(self) -> str:
        return f"<ptxvm.numba kernel {self.py_func.__qualname__}>"

    # ------------------------------------------------------------------ compile
    def signature(self, args: Sequence[Any]) -> tuple:
        numba, _ = _numba()
        types = []
        for i, a in enumerate(_host_arrays(args)):
            try:
                types.append(_as_staged(numba.typeof(a)))
            except ValueError as e:
                raise TypeError(f"ptxvm.numba: argument {i} ({type(a).__name__}) has no Numba type: {e}") from None
        return _matching_declared(self.declared, tuple(types)) if self.declared else tuple(types)

    def ptx(self, args: Sequence[Any]) -> str:
        """The PTX Numba generates for these arguments' types."""
        return self.compile(self.signature(args))[2][0]

    def compile(self, sig: tuple) -> tuple[Module, str, list]:
        """(module, kernel name, the PTX texts linked) for a signature, compiled once."""
        hit = self._compiled.get(sig)
        if hit is not None:
            return hit
        _, cuda = _numba()
        from numba.cuda import compiler

        seen = []
        plain = compiler.compile_cuda

        def keeping_the_result(*a, **kw):  # the kernel's compile result: its exception table
            cres = plain(*a, **kw)
            seen.append(cres)
            return cres

        compiler.compile_cuda = keeping_the_result
        try:
            with _compiling_for_sm90():
                codes, _restype = cuda.compile_all(self.py_func, sig, device=False, abi="numba", output="ptx",
                                                   cc=COMPUTE_CAPABILITY,
                                                   **self.options)
        finally:
            compiler.compile_cuda = plain
        if seen:
            self._call_helpers[sig] = getattr(seen[0], "call_helper", None)
        mod = _load(codes, self.py_func.__qualname__)
        entries = list(mod.kernels)
        if len(entries) != 1:
            raise LaunchError(f"ptxvm.numba: expected one kernel in Numba's PTX, found {entries}")
        self._compiled[sig] = (mod, entries[0], codes)
        return self._compiled[sig]

    # ------------------------------------------------------------------ launch
    def __getitem__(self, config):
        if not isinstance(config, tuple) or len(config) not in (2, 3, 4):
            raise TypeError("launch configuration is [grid, block] or [grid, block, stream, shared_mem]")
        grid, block, *rest = config
        shared = rest[1] if len(rest) > 1 else 0

        def launch(*args):
            return self.run(grid, block, *args, shared_mem=shared)

        return launch

    def run(self, grid, block, *args, shared_mem: int = 0, max_instructions=None):
        args = _host_arrays(args)
        sig = self.signature(args)
        mod, entry, _ = self.compile(sig)
        params, staged = _marshal(args, sig)
        try:
            # a grid group's sync (cudaCGSynchronize) makes numba-cuda launch cooperatively, as here
            cooperative = "cudaCGSynchronize" in (mod.source or "")
            errcode = f"{entry}__errcode__" if self.options.get("debug") else None
            if errcode is not None and errcode not in _module_globals(mod):
                errcode = None
            if errcode is not None:
                mod.write_symbol(errcode, np.zeros(1, np.int32))
            self.last_stats = mod.kernel(entry).launch(grid, block, params, shared_mem=int(shared_mem or 0),
                                                      max_instructions=max_instructions, cooperative=cooperative)
            for host, dev in staged:
                _copy_back(host, dev)
            if errcode is not None:
                _raise_kernel_exception(mod, entry, int(mod.read_symbol(errcode, np.int32)[0]),
                                        self._call_helpers.get(sig))
        finally:
            for _, dev in staged:
                dev.free()
        return self.last_stats


def _module_globals(mod) -> set:
    return {v.name for v in mod.ast.variables()}


def _raise_kernel_exception(mod, entry: str, code: int, call_helper) -> None:
    """What numba-cuda does after a debug=True launch: a nonzero `<kernel>__errcode__` is the
    exception a thread raised (ZeroDivisionError, a user's raise...), named by the kernel's
    exception table, with the raising thread's position from `<kernel>__tid{z,y,x}__` /
    `__ctaid{z,y,x}__`."""
    if code == 0:
        return

    def sym(name):
        full = f"{entry}__{name}__"
        return int(mod.read_symbol(full, np.int32)[0]) if full in _module_globals(mod) else 0

    prefix = "tid=%s ctaid=%s" % ([sym("tid" + i) for i in "zyx"], [sym("ctaid" + i) for i in "zyx"])
    exccls, exc_args, loc = (None, (), None)
    if call_helper is not None:
        try:
            exccls, exc_args, loc = call_helper.get_exception(code)
        except Exception:  # noqa: BLE001 - an unknown code still raises, below
            exccls = None
    if exccls is None:
        raise KernelFault(f"the kernel raised an exception (Numba error code {code}) at {prefix}")
    if loc is not None:
        prefix = "In function %r, file %s, line %s, %s" % (loc[0], loc[1], loc[2], prefix)
    raise exccls(*((f"{prefix}: {exc_args[0]}",) + tuple(exc_args[1:]) if exc_args else (prefix,)))


@contextlib.contextmanager
def _compiling_for_sm90():
    """numba-cuda asks the driver for the current device's compute capability when a kernel calls a
    device function (`compile_device`); with no GPU there is no driver to ask. For the length of
    the compile, the answer is the H200's (9, 0), which is what ptxvm compiles for anyway."""
    from numba.cuda import compiler, dispatcher

    saved = dispatcher.get_current_device, compiler.nvrtc
    dispatcher.get_current_device = lambda: types.SimpleNamespace(compute_capability=COMPUTE_CAPABILITY)
    compiler.nvrtc = types.SimpleNamespace(compile=_compile_linked_source)
    try:
        yield
    finally:
        dispatcher.get_current_device, compiler.nvrtc = saved


def _compile_linked_source(src, name, cc, ltoir=False, lineinfo=False, debug=False):
    """CUDA C++ that a kernel links (the shims behind cuda.fp16/bf16/fp8, `link=` sources) to PTX,
    with the include paths and -rdc that numba-cuda's own NVRTC call uses. ptxvm compiles it with
    its own CUDA front door (NVRTC through cuda-bindings, else nvcc): numba-cuda's goes through
    cuda.core, which wants a driver."""
    import os

    from numba.cuda.cuda_paths import get_cuda_paths

    from .cuda import compile_cuda_to_ptx

    if ltoir:
        raise LaunchError("ptxvm.numba links PTX, not LTO-IR")
    numba_cuda = os.path.dirname(os.path.dirname(os.path.abspath(dispatcher_file())))
    includes = [os.path.join(numba_cuda, "include", "13"), get_cuda_paths()["include_dir"].info,
                os.path.join(numba_cuda, "memory_management")]
    try:
        from cuda import pathfinder

        cccl = pathfinder.locate_nvidia_header_directory("cccl")
        if cccl is not None:
            includes.append(cccl.abs_path)
    except Exception:  # noqa: BLE001  (CCCL is only needed by some shims)
        pass
    options = ["-rdc=true"] + [f"-I{d}" for d in includes if d] + (["-lineinfo"] if lineinfo else []) + (["-G"] if debug else [])
    src = src.decode() if isinstance(src, bytes) else src
    return compile_cuda_to_ptx(src, name=name, options=options, arch=f"sm_{cc[0]}{cc[1]}"), ""


def dispatcher_file() -> str:
    from numba.cuda import dispatcher

    return dispatcher.__file__


def _load(codes, qualname: str) -> Module:
    """The kernel's PTX, linked with the PTX of what it calls outside itself (the CUDA C++ shims
    behind cuda.fp16/bf16/fp8 and `link=` files, compiled by NVRTC), as Numba's linker would."""
    from .. import loads

    texts = []
    for code in codes:
        if not isinstance(code, str):
            raise LaunchError(f"ptxvm.numba: {qualname} links a {getattr(code, 'kind', type(code).__name__)} "
                              "object; only PTX and CUDA C++ sources can be linked on ptxvm")
        texts.append(code)
    names = [f"<numba {qualname}>"] + [f"<numba {qualname}: linked code {i}>" for i in range(1, len(texts))]
    if len(texts) == 1:
        return loads(texts[0], names[0])
    from .. import link

    return link(*(loads(t, n, verify=False) for t, n in zip(texts, names)))


def _host_arrays(args) -> list:
    """DLPack arrays on the host (torch CPU tensors, ...) as NumPy views of the same memory."""
    from ..engine.launch import host_array

    return [host_array(a, f"argument {i}") if not isinstance(a, np.ndarray) and hasattr(a, "__dlpack__") else a
            for i, a in enumerate(args)]


def _as_staged(t):
    """The type of an argument as _marshal passes it: arrays (in tuples too) through a C-contiguous
    copy."""
    numba, _ = _numba()
    T = numba.types
    if isinstance(t, T.Array) and t.layout != "C":
        return t.copy(layout="C")
    if isinstance(t, T.BaseTuple) and not isinstance(t, T.BaseNamedTuple):
        return T.Tuple.from_types([_as_staged(e) for e in t])
    return t


def _marshal(args, sig):
    """Kernel parameters for `args` in Numba's calling convention, and the (host, device) pairs to
    copy back."""
    params: list = []
    staged: list = []
    for i, (a, t) in enumerate(zip(args, sig)):
        _flatten(i, a, t, params, staged)
    return params, staged


def _flatten(i, a, t, params: list, staged: list) -> None:
    """One argument's parameters, as numba-cuda's dispatcher lays them out: an array as its
    descriptor, a tuple as its elements in turn, a record as a pointer to a device copy."""
    from .. import to_device

    numba, _ = _numba()
    T = numba.types
    if isinstance(t, T.Array):
        host = np.asarray(a)
        staging = np.ascontiguousarray(host)
        dev = to_device(staging)
        staged.append((host, dev))
        params += [np.uint64(0), np.uint64(0),                       # meminfo, parent
                   np.int64(staging.size), np.int64(staging.itemsize),  # nitems, itemsize
                   np.uint64(dev.address)]                          # data
        params += [np.int64(n) for n in staging.shape]
        params += [np.int64(s) for s in staging.strides]
    elif isinstance(t, T.Boolean):
        params.append(np.uint8(bool(a)))
    elif isinstance(t, (T.Integer, T.Float)):
        params.append(np.dtype(str(t)).type(a))
    elif isinstance(t, T.Complex):
        v = np.dtype(str(t)).type(a)
        params += [v.real, v.imag]
    elif isinstance(t, (T.NPDatetime, T.NPTimedelta)):
        params.append(np.int64(np.asarray(a).view(np.int64)))
    elif isinstance(t, T.EnumMember):
        _flatten(i, a.value, t.dtype, params, staged)
    elif isinstance(t, T.BaseTuple):
        for v, et in zip(a, t):
            _flatten(i, v, et, params, staged)
    elif isinstance(t, T.Record):
        record = np.asarray(a)  # a 0-d structured array: a[0] of a structured array is a view
        dev = to_device(np.ascontiguousarray(record).reshape(1))
        staged.append((_RecordView(a), dev))
        params.append(np.uint64(dev.address))
    else:
        raise TypeError(f"ptxvm.numba: argument {i} of Numba type {t} is not supported (arrays, records, "
                        "tuples, booleans, integers, floats, complex numbers, datetimes and enums are)")


class _RecordView:
    """A record argument (np.void / np.record scalar) written back field by field: indexing a
    structured array gives a view into it, so the kernel's writes reach the caller's array."""

    def __init__(self, record):
        self.record = record
        self.flags = types.SimpleNamespace(writeable=isinstance(record, np.void))

    def __setitem__(self, _key, value):
        value = np.asarray(value).reshape(())
        for name in value.dtype.names:
            self.record[name] = value[name]


def _copy_back(host: np.ndarray, dev) -> None:
    if host.flags.writeable:
        host[...] = dev.copy_to_host()


def jit(kernel=None, signature=None):
    """Wrap a `@numba.cuda.jit` kernel (or the plain function) to run on ptxvm.

    As with `cuda.jit`, a signature fixes the argument types ("void(int32[:], int32)", or a list of
    them): `jit(f, "void(float32[:])")` or `jit("void(float32[:])")(f)`. Scalars are then converted
    to the declared types, as numba-cuda converts them. A kernel compiled eagerly by
    `cuda.jit("sig")` keeps its signatures."""
    if kernel is None or _is_signature(kernel):
        sig = kernel if signature is None else signature
        return lambda k: NumbaKernel(k, sig)
    return NumbaKernel(kernel, signature)


def _is_signature(x) -> bool:
    if isinstance(x, (str, list)):
        return True
    numba, _ = _numba()
    return isinstance(x, numba.core.typing.templates.Signature)


def _declared_signatures(kernel, signature) -> list[tuple]:
    """The argument types a signature declares (a user's, or those of a dispatcher numba compiled
    eagerly and closed to new types), each as a tuple of Numba types."""
    if signature is None:
        if getattr(kernel, "_can_compile", True):
            return []
        signature = list(kernel.signatures)
    numba, _ = _numba()
    from numba.core import sigutils

    declared = []
    for s in signature if isinstance(signature, list) else [signature]:
        try:
            args, ret = sigutils.normalize_signature(s)
        except Exception as e:  # noqa: BLE001 - numba's own message says what is wrong
            raise TypeError(f"ptxvm.numba: signature {s!r} is not valid: {e}") from None
        if ret not in (None, numba.types.void, numba.types.none):
            raise TypeError(f"ptxvm.numba: a kernel returns nothing; signature {s!r} returns {ret}")
        for i, t in enumerate(args):
            if isinstance(t, numba.types.Array) and t.layout == "F" and t.ndim > 1:
                raise TypeError(f"ptxvm.numba: argument {i} of signature {s!r} is a Fortran-ordered array, "
                                "which ptxvm.numba does not stage (C-ordered or any-layout arrays are)")
        declared.append(tuple(args))
    return declared


def _matching_declared(declared: list[tuple], inferred: tuple) -> tuple:
    """The declared signature these argument types call, as Numba's dispatcher picks it: arrays of
    the same dtype and rank, scalars converted (preferring the signature with most exact types)."""
    numba, _ = _numba()
    T = numba.types

    def accepts(d, t):
        if isinstance(d, T.Array):
            return isinstance(t, T.Array) and (d.dtype, d.ndim) == (t.dtype, t.ndim)
        if isinstance(d, T.BaseTuple):
            return isinstance(t, T.BaseTuple) and len(d) == len(t) and all(map(accepts, d, t))
        scalar = (T.Number, T.Boolean)
        return (isinstance(d, scalar) and isinstance(t, scalar)) or d == t

    best, best_exact = None, -1
    for d in declared:
        if len(d) == len(inferred) and all(accepts(a, b) for a, b in zip(d, inferred)):
            exact = sum(a == b or isinstance(a, T.Array) for a, b in zip(d, inferred))
            if exact > best_exact:
                best, best_exact = d, exact
    if best is None:
        raise TypeError("ptxvm.numba: no matching definition for argument types (%s); the kernel's "
                        "signatures are %s" % (", ".join(map(str, inferred)),
                                               "; ".join("(%s)" % ", ".join(map(str, d)) for d in declared)))
    return best


def run(kernel, grid, block, *args, shared_mem: int = 0, max_instructions=None):
    """Run `kernel` (a @cuda.jit kernel or function) on ptxvm: `run(k, grid, block, *args)`."""
    k = kernel if isinstance(kernel, NumbaKernel) else _CACHE.setdefault(id(kernel), (kernel, NumbaKernel(kernel)))[1]
    return k.run(grid, block, *args, shared_mem=shared_mem, max_instructions=max_instructions)


_CACHE: dict[int, tuple[Any, NumbaKernel]] = {}  # id -> (kernel kept alive, wrapper): one compile per signature
