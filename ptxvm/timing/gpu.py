"""GPU descriptions for the timing model, read from data files (ptxvm/timing/gpus/<name>.json).

    from ptxvm.timing.gpu import load_gpu
    h200 = load_gpu("h200")
    h200.sm_count, h200.latency["l2_hit"], h200.pipes["fp32"].issue_interval

Every number in a data file carries where it came from: either a plain value, or an object
``{"value": v, "source": "..."}`` (pipes: ``{"latency": .., "issue_interval": .., "source": ..}``).
``source`` is "spec" for the vendor's published figures, "measured on H200 <date>" for numbers
from benchmarks/timing/ (the microbenchmarks run on the device), or "estimate: <why>" where
neither exists yet. `GpuSpec.sources` keeps them, keyed like "sm_count", "latency.l2_hit",
"pipes.fp32".

Units: cycles are SM clock cycles; ``issue_interval`` is cycles between two warp-instructions of
one class on one sub-partition (1.0 = one warp-instruction per cycle, i.e. 32 lanes/cycle per
sub-partition); bandwidths are bytes per second (``dram_bytes_per_s``) or bytes per SM clock
for the whole chip (``l2_bytes_per_clk``).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, Mapping

GPUS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gpus")

LATENCY_KEYS = (
    "shared", "l1_hit", "l2_hit", "dram", "const_hit", "const_miss", "tex_hit",
    "atomic_global", "atomic_shared", "barrier", "branch",
)
PIPE_CLASSES = ("fp32", "int", "fp64", "sfu", "tensor", "lsu", "branch", "half", "conv", "uniform")

ALIASES = {
    "h100": "h100", "h100-sxm": "h100", "h100_sxm": "h100", "h100sxm": "h100", "h100-sxm5": "h100",
    "h200": "h200", "h200-sxm": "h200", "h200_sxm": "h200",
}


class UnknownGpuError(ValueError):
    """Raised by load_gpu for a name with no description."""


@dataclass(frozen=True)
class Pipe:
    """One functional-unit class: result latency (cycles) and issue interval (cycles between two
    warp-instructions of this class on one sub-partition)."""

    latency: int
    issue_interval: float


@dataclass(frozen=True)
class GpuSpec:
    name: str
    full_name: str
    sm_count: int
    clock_hz: float
    subpartitions: int
    warp_size: int
    max_warps_per_sm: int
    max_ctas_per_sm: int
    max_threads_per_sm: int
    max_threads_per_cta: int
    regs_per_sm: int
    reg_alloc_unit: int
    max_regs_per_thread: int
    shared_per_sm_max: int
    shared_per_cta_max: int
    shared_reserved_per_cta: int
    l1_shared_bytes: int
    shared_carveouts: tuple[int, ...]
    shared_banks: int
    l1_line: int
    sector: int
    l2_bytes: int
    l2_line: int
    l2_assoc: int
    dram_bytes: int
    dram_bytes_per_s: float
    l2_bytes_per_clk: float
    latency: Mapping[str, int]
    pipes: Mapping[str, Pipe]
    peak_flops: Mapping[str, float]
    measured: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    sources: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def cycle_s(self) -> float:
        return 1.0 / self.clock_hz

    @property
    def dram_bytes_per_clk(self) -> float:
        return self.dram_bytes_per_s / self.clock_hz

    def seconds(self, cycles: float) -> float:
        return cycles / self.clock_hz

    def __reduce__(self):
        # pickles (a profile's collected trace sent back from a sweep's worker): the read-only
        # mappings travel as dicts and are made read-only again
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        proxies = tuple(k for k, v in values.items() if isinstance(v, MappingProxyType))
        return _unpickle_spec, ({k: dict(v) if k in proxies else v for k, v in values.items()}, proxies)


def _unpickle_spec(values: dict, proxies: tuple) -> "GpuSpec":
    return GpuSpec(**{k: MappingProxyType(v) if k in proxies else v for k, v in values.items()})


def known_gpus() -> tuple[str, ...]:
    return tuple(sorted(set(ALIASES.values())))


def load_gpu(name: str) -> GpuSpec:
    """The description of GPU `name` ("h100" = H100 SXM5, "h200" = H200 SXM; case-insensitive)."""
    if not isinstance(name, str):
        raise TypeError(f"load_gpu: expected a GPU name (str), got {type(name).__name__}")
    key = ALIASES.get(name.strip().lower())
    if key is None:
        raise UnknownGpuError(
            f"unknown GPU {name!r}: known GPUs are {', '.join(known_gpus())} "
            f"(descriptions live in {GPUS_DIR})")
    return load_gpu_file(os.path.join(GPUS_DIR, key + ".json"))


def load_gpu_file(path: str) -> GpuSpec:
    """A GpuSpec from a JSON description (the format of ptxvm/timing/gpus/*.json)."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    try:
        return spec_from_dict(data)
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{path}: bad GPU description: {e}") from None


def _value(entry: Any, key: str, sources: dict[str, str]) -> Any:
    if isinstance(entry, dict) and "value" in entry:
        sources[key] = str(entry.get("source", "unspecified"))
        return entry["value"]
    sources[key] = "unspecified"
    return entry


def _require(data: Mapping[str, Any], names: tuple[str, ...], what: str) -> None:
    missing = [n for n in names if n not in data]
    if missing:
        raise KeyError(f"{what} lacks {', '.join(missing)}")


def spec_from_dict(data: Mapping[str, Any]) -> GpuSpec:
    sources: dict[str, str] = {}
    scalar_fields = [
        f for f in GpuSpec.__dataclass_fields__
        if f not in ("name", "full_name", "latency", "pipes", "peak_flops", "measured", "sources")
    ]
    _require(data, tuple(scalar_fields) + ("name", "latency", "pipes", "peak_flops"), "description")
    scalars = {f: _value(data[f], f, sources) for f in scalar_fields}
    scalars["shared_carveouts"] = tuple(int(k) for k in scalars["shared_carveouts"])
    for f in ("clock_hz", "dram_bytes_per_s", "l2_bytes_per_clk"):
        scalars[f] = float(scalars[f])

    lat_in = data["latency"]
    _require(lat_in, LATENCY_KEYS, "latency")
    latency = {k: int(round(_value(v, "latency." + k, sources))) for k, v in lat_in.items()}

    pipes_in = data["pipes"]
    _require(pipes_in, PIPE_CLASSES, "pipes")
    pipes = {}
    for k, v in pipes_in.items():
        sources["pipes." + k] = str(v.get("source", "unspecified"))
        pipes[k] = Pipe(latency=int(round(v["latency"])), issue_interval=float(v["issue_interval"]))

    peak = {k: float(_value(v, "peak_flops." + k, sources)) for k, v in data["peak_flops"].items()}

    return GpuSpec(
        name=str(data["name"]),
        full_name=str(data.get("full_name", data["name"])),
        latency=MappingProxyType(latency),
        pipes=MappingProxyType(pipes),
        peak_flops=MappingProxyType(peak),
        measured=MappingProxyType(dict(data.get("measured", {}))),
        sources=MappingProxyType(sources),
        **scalars,
    )
