"""Run one launch on two devices (the CPU engine and a GPU) and report where the outputs differ.

    report = ptxvm.compare(mod["saxpy"], 4, 256, [np.int32(n), np.float32(2), x, y])
    print(report)            # per array argument: bitwise identical, or how many elements differ,
    report.ok                # the first few with both values, their bits and their ulp distance
    report.to_json()

Each device gets its own fresh copies of the arguments (aliasing kept: an array passed twice is one
array in each copy); the caller's arrays are not touched. A device is "cpu", "cuda", "cuda:N", or
a callable `run(module, kernel_name, grid, block, args, shared_mem, cluster)` that launches
`kernel_name` of the ptxvm Module `module` and writes its outputs into `args`.
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence, Union

import numpy as np

from ..engine.core.device import DeviceArray
from ..engine.async_copy.tensor_map import TensorMap
from ..engine.async_copy.tensor_map_layout import put_u64
from ..engine.texture.objects import SurfaceObject
from ..errors import KernelFault

__all__ = ["compare", "compare_arrays", "CompareReport", "ArrayDiff", "Mismatch"]

Runner = Callable[..., object]


# ------------------------------------------------------------------------------------ results
@dataclass(frozen=True)
class Mismatch:
    """One differing element: its index, both values (printed) and bits, and their distance:
    units in the last place for floats (None if a NaN is involved), candidate - reference for
    integers, None for other element types."""

    index: tuple
    reference: str
    candidate: str
    reference_bits: str
    candidate_bits: str
    distance: Optional[int]


@dataclass
class ArrayDiff:
    """How one array argument (or module variable: position -1) came back from the two devices."""

    position: int
    name: str
    dtype: str
    shape: tuple
    kind: str  # "float" | "int" | "bytes"
    total: int
    differing: int = 0
    first: list = field(default_factory=list)  # Mismatch, at most `first` of them
    max_distance: Optional[int] = None  # over all differing elements (None: NaNs only, or bytes)

    @property
    def identical(self) -> bool:
        return self.differing == 0

    def to_json(self) -> dict:
        return {"position": self.position, "name": self.name, "dtype": self.dtype, "shape": list(self.shape),
                "kind": self.kind, "total": self.total, "identical": self.identical, "differing": self.differing,
                "max_distance": self.max_distance,
                "first": [{"index": list(m.index), "reference": m.reference, "candidate": m.candidate,
                           "reference_bits": m.reference_bits, "candidate_bits": m.candidate_bits,
                           "distance": m.distance} for m in self.first]}


@dataclass
class CompareReport:
    kernel: str
    devices: tuple  # (reference label, candidate label)
    grid: tuple
    block: tuple
    arrays: list  # ArrayDiff, one per distinct array argument, then one per compared module variable
    faults: dict = field(default_factory=dict)  # device label -> the KernelFault's message

    @property
    def ok(self) -> bool:
        """Both launches finished and every array argument came back bit-for-bit the same."""
        return not self.faults and all(a.identical for a in self.arrays)

    @property
    def differing(self) -> list:
        return [a for a in self.arrays if not a.identical]

    def __str__(self) -> str:
        ref, cand = self.devices
        head = f"compare {self.kernel}: {ref} vs {cand}, grid {self.grid}, block {self.block}: "
        if self.faults:
            lines = [head + "a launch failed"]
            lines += [f"  {dev}: {msg}" for dev, msg in self.faults.items()]
            return "\n".join(lines)
        n = len(self.arrays)
        head += (f"all {n} arrays bitwise identical" if self.ok else f"{len(self.differing)} of {n} arrays differ")
        lines = [head]
        width = max((len(a.name) for a in self.arrays), default=0)
        for a in self.arrays:
            what = f"{a.dtype}[{'x'.join(str(s) for s in a.shape)}]"
            where = f"arg {a.position}" if a.position >= 0 else "symbol"
            if a.identical:
                lines.append(f"  {where} {a.name:<{width}}  {what}: identical")
                continue
            unit = "ulp" if a.kind == "float" else ""
            worst = f", max {a.max_distance} {unit}".rstrip() if a.max_distance is not None and a.kind == "float" else ""
            worst = f", largest difference {a.max_distance:+d}" if a.max_distance is not None and a.kind == "int" else worst
            lines.append(f"  {where} {a.name:<{width}}  {what}: {a.differing} of {a.total} elements differ{worst}")
            for m in a.first:
                idx = ",".join(str(i) for i in m.index)
                dist = _distance_text(a.kind, m.distance)
                lines.append(f"      [{idx}]  {ref} {m.reference} ({m.reference_bits})  {cand} {m.candidate} ({m.candidate_bits}){dist}")
            if a.differing > len(a.first):
                lines.append(f"      ... {a.differing - len(a.first)} more")
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {"kernel": self.kernel, "reference": self.devices[0], "candidate": self.devices[1],
                "grid": list(self.grid), "block": list(self.block), "ok": self.ok, "faults": dict(self.faults),
                "arrays": [a.to_json() for a in self.arrays]}

    def to_json_text(self) -> str:
        return json.dumps(self.to_json(), indent=1)


def _distance_text(kind: str, distance: Optional[int]) -> str:
    if kind == "float":
        return f"  {distance} ulp" if distance is not None else "  (NaN)"
    if kind == "int":
        return f"  {distance:+d}"
    return ""


# ------------------------------------------------------------------------------------ element kinds
def _float_bits(dt: np.dtype) -> int:
    """Bits of a floating-point element type (ml_dtypes' bf16/fp8 included), 0 if not one."""
    if dt.kind == "f":
        return dt.itemsize * 8
    if dt.kind == "V" and dt.names is None and "float" in dt.name:  # ml_dtypes: bfloat16, float8_*
        return dt.itemsize * 8
    return 0


def _kind(dt: np.dtype) -> str:
    if _float_bits(dt):
        return "float"
    if dt.kind in "iu":
        return "int"
    return "bytes"


def _ordered(bits: int, nbits: int) -> int:
    """Sign-magnitude float bits as a line where neighbours differ by 1 (+0 and -0 are both 0)."""
    sign = bits >> (nbits - 1)
    magnitude = bits & ((1 << (nbits - 1)) - 1)
    return -magnitude if sign else magnitude


def _unsigned(a: np.ndarray) -> np.ndarray:
    return a.reshape(-1).view(f"u{a.dtype.itemsize}") if a.dtype.itemsize in (1, 2, 4, 8) else None


# ------------------------------------------------------------------------------------ comparison
def compare_arrays(reference: np.ndarray, candidate: np.ndarray, *, position: int = 0, name: str = "",
                   first: int = 5) -> ArrayDiff:
    """Bitwise comparison of two arrays of the same dtype and shape."""
    if reference.dtype != candidate.dtype or reference.shape != candidate.shape:
        raise ValueError(f"{name or 'arrays'}: {reference.dtype}{reference.shape} vs {candidate.dtype}{candidate.shape}")
    dt = reference.dtype
    kind = _kind(dt)
    diff = ArrayDiff(position, name, str(dt), reference.shape, kind, int(reference.size))
    ref_u, cand_u = _unsigned(np.ascontiguousarray(reference)), _unsigned(np.ascontiguousarray(candidate))
    if ref_u is None or kind == "bytes":
        rows_r = np.ascontiguousarray(reference).reshape(-1).view(np.uint8).reshape(reference.size, dt.itemsize)
        rows_c = np.ascontiguousarray(candidate).reshape(-1).view(np.uint8).reshape(reference.size, dt.itemsize)
        where = np.flatnonzero((rows_r != rows_c).any(axis=1))
    else:
        where = np.flatnonzero(ref_u != cand_u)
    diff.differing = int(where.size)
    if not where.size:
        return diff
    flat_r, flat_c = reference.reshape(-1), candidate.reshape(-1)
    distances = _distances(kind, dt, ref_u, cand_u, where)
    finite = [d for d in distances if d is not None]
    diff.max_distance = max(finite, key=abs) if finite else None
    if diff.max_distance is not None and kind == "float":
        diff.max_distance = abs(diff.max_distance)
    for j, i in enumerate(where[:first]):
        index = tuple(int(x) for x in np.unravel_index(int(i), reference.shape)) if reference.ndim else ()
        if kind == "bytes":
            rb, cb = flat_r[i : i + 1].view(np.uint8).tobytes().hex(), flat_c[i : i + 1].view(np.uint8).tobytes().hex()
        else:
            w = dt.itemsize * 2
            rb, cb = f"0x{int(ref_u[i]):0{w}x}", f"0x{int(cand_u[i]):0{w}x}"
        diff.first.append(Mismatch(index, str(flat_r[i]), str(flat_c[i]), rb, cb, distances[j]))
    return diff


def _distances(kind: str, dt: np.dtype, ref_u, cand_u, where) -> list:
    """The distance of every differing element (ulps for floats, difference for integers)."""
    if kind == "int":
        signed = dt.kind == "i"
        r = ref_u[where].view(dt) if signed else ref_u[where]
        c = cand_u[where].view(dt) if signed else cand_u[where]
        return [int(b) - int(a) for a, b in zip(r.tolist(), c.tolist())]
    if kind == "float":
        nbits = dt.itemsize * 8
        nan_r = np.isnan(ref_u[where].view(dt).astype(np.float64))
        nan_c = np.isnan(cand_u[where].view(dt).astype(np.float64))
        out = []
        for a, b, na, nb in zip(ref_u[where].tolist(), cand_u[where].tolist(), nan_r.tolist(), nan_c.tolist()):
            out.append(None if na or nb else abs(_ordered(b, nbits) - _ordered(a, nbits)))
        return out
    return [None] * len(where)


# ------------------------------------------------------------------------------------ launches
def _fresh(args: Sequence) -> list:
    """Copies of the arguments for one launch: an array given twice stays one array; a surface gets
    a new surface over a copy of its array; a DeviceArray a new one, and a tensor map over it the
    same map over the copy."""
    memo: dict[int, object] = {}

    def fresh(a):
        if id(a) not in memo:
            if isinstance(a, np.ndarray):
                memo[id(a)] = a.copy()
            elif isinstance(a, SurfaceObject):
                memo[id(a)] = _surface_copy(a)
            elif isinstance(a, DeviceArray):
                memo[id(a)] = a.device.to_device(a.copy_to_host())
            else:
                memo[id(a)] = _retarget(a, fresh(a.array))
        return memo[id(a)]

    return [fresh(a) if isinstance(a, (np.ndarray, SurfaceObject, DeviceArray)) or
            (isinstance(a, TensorMap) and isinstance(a.array, DeviceArray)) else
            a.copy() if isinstance(a, np.void) else a for a in args]


def _surface_copy(s):
    import ptxvm

    g = s.geometry
    return ptxvm.surface_object(s.array.copy(), dims=s.dims, layered=g in ("a1d", "a2d", "acube"),
                                cubemap=g in ("cube", "acube"), normalized=s.normalized)


def _retarget(m, array):
    """Tensor map `m` over `array` (a copy of the DeviceArray it covers) at the same offset."""
    address = array.address + (m.desc.address - m.array.address)
    raw = bytearray(m)
    put_u64(raw, 0, address)
    return TensorMap(bytes(raw), dataclasses.replace(m.desc, address=address), array)


def _outputs(args: Sequence) -> list:
    """(position, object) of what a launch can write: arrays, surfaces, DeviceArrays and the arrays
    under tensor maps, each once."""
    seen, out = set(), []
    for i, a in enumerate(args):
        if isinstance(a, TensorMap) and isinstance(a.array, DeviceArray):
            a = a.array
        if isinstance(a, (np.ndarray, SurfaceObject, DeviceArray)) and id(a) not in seen:
            seen.add(id(a))
            out.append((i, a))
    return out


def _contents(a) -> np.ndarray:
    if isinstance(a, TensorMap):
        a = a.array
    if isinstance(a, SurfaceObject):
        return a.array
    return a.copy_to_host() if isinstance(a, DeviceArray) else a


def _release(args: Sequence) -> None:
    """Free the surfaces and DeviceArrays that _fresh made."""
    for a in {id(x): x for x in args}.values():
        if isinstance(a, TensorMap) and isinstance(a.array, DeviceArray):
            a.array.free()
        elif isinstance(a, SurfaceObject):
            a.destroy()
        elif isinstance(a, DeviceArray):
            a.free()


def _host_and_name(target, kernel: Optional[str]):
    """(ptxvm Module, kernel name) from a kernel, a module (+ kernel=), a path or PTX text (+ kernel=)."""
    from ..module import Kernel, Module

    if isinstance(target, Kernel):
        return target.module, target.name
    module = getattr(target, "module", None)
    if module is not None and hasattr(module, "host"):  # a GpuKernel
        return module.host, target.name
    if kernel is None:
        raise TypeError("compare(module, ...) needs kernel='name'")
    if isinstance(target, Module):
        return target, target.kernel(kernel).name
    if hasattr(target, "host"):  # a GpuModule
        return target.host, target.kernel(kernel).name
    import ptxvm

    mod = ptxvm.load(target)
    return mod, mod.kernel(kernel).name


def _runner(device: Union[str, Runner]) -> tuple[str, Runner, Callable]:
    """(label, run, module of the device: host -> the module whose variables that device's launches use)."""
    if callable(device):
        return getattr(device, "label", getattr(device, "__name__", "custom")), device, lambda host: host
    from . import check_device

    label = check_device(device)

    def run(module, name, grid, block, args, shared_mem, cluster):
        return module.on(label).kernel(name).launch(grid, block, args, shared_mem=shared_mem, cluster=cluster)

    return label, run, lambda host: host.on(label)


def _symbol_dtypes(host, symbols) -> dict:
    """name -> element dtype of each module variable to compare (its declared type by default)."""
    from ..semantics.dtypes import numpy_dtype

    if symbols is None:
        return {}
    if isinstance(symbols, dict):
        return {n: np.dtype(dt) for n, dt in symbols.items()}
    decls = {v.name: v for v in host.ast.variables()}
    out = {}
    for n in symbols:
        if n not in decls:
            raise KeyError(f"no .global or .const variable named {n!r}")
        out[n] = numpy_dtype(decls[n].type)
    return out


def compare(target, grid, block, args, *, kernel: Optional[str] = None, shared_mem: int = 0, cluster=None,
            devices: Sequence = ("cpu", "cuda"), first: int = 5, symbols=None) -> CompareReport:
    """Launch once on each of `devices` (reference first) and compare every array argument bitwise.

    `target`: a Kernel or GpuKernel, or a Module / GpuModule / PTX path or text with kernel='name'.
    `symbols`: module variables (.global/.const) to compare too, as names (read as their declared
    type) or {name: dtype}; each device's copy of the module starts from the values the ptxvm
    Module holds now. KernelFaults on either side are reported (report.faults), not raised; launch
    errors (bad arguments) and PtxError are raised."""
    from ..engine.launch import dim3

    host, name = _host_and_name(target, kernel)
    (ref_label, ref_run, ref_mod), (cand_label, cand_run, cand_mod) = (_runner(d) for d in devices)
    if ref_label == cand_label:
        ref_label, cand_label = f"{ref_label}#1", f"{cand_label}#2"
    args = list(args)
    sym_types = _symbol_dtypes(host, symbols)
    start = {n: host.read_symbol(n, dt) for n, dt in sym_types.items()}
    results, values, faults = [], [], {}
    for label, run, module_of in ((ref_label, ref_run, ref_mod), (cand_label, cand_run, cand_mod)):
        mine = _fresh(args)
        module = module_of(host)
        for n, v in start.items():
            module.write_symbol(n, v)
        try:
            run(host, name, grid, block, mine, shared_mem, cluster)
        except KernelFault as e:
            faults[label] = str(e)
        results.append(mine)
        values.append({n: module.read_symbol(n, dt) for n, dt in sym_types.items()} if label not in faults else {})
    decl = host.ast.function(name)
    names = [p.name for p in decl.params] if decl is not None else []
    arrays = []
    if not faults:
        for i, _ in _outputs(args):
            label = names[i] if i < len(names) else f"arg{i}"
            ref, cand = (_contents(r[i]) for r in results)
            arrays.append(compare_arrays(ref, cand, position=i, name=label, first=first))
        for n in sym_types:
            arrays.append(compare_arrays(values[0][n], values[1][n], position=-1, name=n, first=first))
    for n, v in start.items():
        host.write_symbol(n, v)  # the caller's module as it was
    for r in results:
        _release(r)
    return CompareReport(name, (ref_label, cand_label), dim3(grid, "grid"), dim3(block, "block"), arrays, faults)
