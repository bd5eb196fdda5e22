"""The numbers the memory model uses, read from a GpuSpec (ptxvm.timing.gpu) in one place.

Required GpuSpec fields: l1_shared_bytes, shared_carveouts (KiB), l1_line, sector, l2_bytes,
l2_assoc, dram_bytes_per_s, clock_hz, l2_bytes_per_clk and latency[...] (shared, l1_hit,
l2_hit, dram, const_hit, tex_hit, atomic_global, atomic_shared; const_miss is no longer read: the
constant path's levels are the const_* / uconst_* numbers below).
Optional numbers come from GpuSpec.measured or GpuSpec.measured["derived"] (T-cal's
calibration), else the defaults below,
which are estimates (see docs/timing-memory.md).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

# measured key -> default. Cycles are SM clock cycles.
OPTIONAL = {
    "l1_assoc": 4,                      # not published; 4 ways of 128-B lines (when l1_sets is 0)
    # the L1 as 32 sets of XOR-folded line addresses, the carveout taking ways (224 KiB: 56 ways):
    # a contiguous set as large as the L1 stays in it (memory_counters l1cap: 224 KiB, no shared
    # memory), and so do lines at a power-of-two stride (benchmarks/timing/walk: 1024 lines 256 B
    # apart hit 87 % in a 224-KiB L1, where line % 448 sets of 4 ways holds half of them)
    "l1_sets": 32,
    "l2_fetch_bytes": 64,               # DRAM fetch of an L2 miss without a hint: 64 B on the
                                        # H200 (tools/device/memory_counters.py, sparse cases)
    "l1_wavefront_cycles": 1.0,         # L1TEX data stage: one 128-B wavefront per cycle
    "shared_wavefront_cycles": 1.0,     # shared memory: 128 B per cycle per SM
    # the constant path (benchmarks/timing/constmem/const.cu, results/micro4_const_h200*.json; cycles
    # of a dependent chain, docs/timing-model.md section 3 "Constant memory"):
    "const_replay_cycles": 11.0,        # LDC: each further distinct address of the warp (dchase k)
    "const_l15_bytes": 65536,           # per-SM second level ("L1.5"): 64-B lines, 64 KiB chases flat
    "const_l15_cycles": 70.0,           # LDC: each line that misses the 2 KiB first level, one after another
    "const_l2_cycles": 55.5,            # a line that misses the L1.5 too (first touch in a launch, L2 hit)
    "const_dram_cycles": 96.0,          # ... and misses the L2 (after the cold convention's flush)
    "uconst_hit_cycles": 6.4,           # ULDC: the line the sub-partition read last
    "uconst_l15_cycles": 64.5,          # ULDC: any other line held by the L1.5 (1 to 64 KiB alike)
    "atomic_serial_cycles": 2.0,        # L2 ALU, per further lane on the same address
    "shared_atomic_serial_cycles": 2.0,  # in-SM, per further lane on the same address
    "const_cache_bytes": 2048,          # per-SM first-level constant cache of LDC (64-B lines, 4 ways)
    "tex_cache_bytes": 0,               # 0: texture path shares the unified L1TEX
    "sm_l2_bytes_per_clk": 64.0,        # one SM's link to L2 (caps what a few SMs can pull)
    # DRAM row opens (memory/dram.py): rows of 2 KiB of address space, an SM's last 32 rows count
    # as open, an open costs 40 bytes of channel time (micro3 gather, results/micro3_h200.json).
    # 32: a warp request's lines can lie in 32 rows, which the SM's next warps use again (loaded,
    # results/micro4_loaded_h200.json, lanes 4 KiB apart from DRAM, 8-32 warps per SM: with 16 the
    # model reopened every row, +54..70 %; with 32-128 alike -7..-17 %)
    "dram_row_bytes": 2048,
    "dram_row_window": 32,
    "dram_row_open_bytes": 40.0,
    # the cold convention's flush (a 256 MiB memset) leaves this fraction of the L2's lines dirty:
    # a launch's first L2 fills write them back (micro3 cold_state: a read of N MiB right after the
    # memset takes 0.116 us/MiB more than after a 256 MiB read, up to ~8 us from 64 MiB on)
    "cold_dirty_fraction": 0.5,
}


def _number(v: Any) -> float:
    if isinstance(v, dict):
        v = v.get("value")
    return float(v)


@dataclass(frozen=True)
class MemoryParams:
    line: int
    sector: int
    l1_shared_bytes: int
    carveout_kib: int
    l1_bytes: int
    l1_assoc: int
    l1_sets: int
    l2_bytes: int
    l2_assoc: int
    dram_bytes_per_clk: float
    l2_bytes_per_clk: float
    lat_shared: int
    lat_l1: int
    lat_l2: int
    lat_dram: int
    lat_const_hit: int
    lat_tex: int
    lat_atomic_global: int
    lat_atomic_shared: int
    l2_fetch_bytes: int
    l1_wavefront_cycles: float
    shared_wavefront_cycles: float
    const_replay_cycles: float
    const_l15_bytes: int
    const_l15_cycles: float
    const_l2_cycles: float
    const_dram_cycles: float
    uconst_hit_cycles: float
    uconst_l15_cycles: float
    atomic_serial_cycles: float
    shared_atomic_serial_cycles: float
    const_cache_bytes: int
    tex_cache_bytes: int
    sm_l2_bytes_per_clk: float
    dram_row_bytes: int
    dram_row_window: int
    dram_row_open_bytes: float
    cold_dirty_fraction: float

    def scaled(self, simulated: int, active: int, l2_fraction: float | None = None) -> "MemoryParams":
        """The L2 capacity and the chip-wide bandwidths as seen by `simulated` of the `active`
        SMs: their share, and no more than their own links to L2 carry. l2_fraction overrides
        the capacity share (1.0: the whole L2, for data all SMs share)."""
        fraction = simulated / active
        link = self.sm_l2_bytes_per_clk * simulated
        l2 = fraction if l2_fraction is None else l2_fraction
        if not 0 < l2 <= 1:
            raise ValueError(f"l2_fraction must be in (0, 1], got {l2}")
        return replace(self, l2_bytes=int(self.l2_bytes * l2),
                       dram_bytes_per_clk=min(self.dram_bytes_per_clk * fraction, link),
                       l2_bytes_per_clk=min(self.l2_bytes_per_clk * fraction, link))


def pick_carveout(gpu, shared_bytes_per_sm: int) -> int:
    """The smallest shared-memory carveout (KiB) that holds `shared_bytes_per_sm`."""
    for kib in sorted(gpu.shared_carveouts):
        if kib * 1024 >= shared_bytes_per_sm:
            return int(kib)
    raise ValueError(f"{shared_bytes_per_sm} bytes of shared memory per SM exceed the largest "
                     f"carveout ({max(gpu.shared_carveouts)} KiB) of {getattr(gpu, 'name', 'this GPU')}")


def driver_carveout(gpu, shared_per_cta: int, ctas_per_sm: int) -> int:
    """The carveout (KiB) the driver configures by default for a kernel whose CTAs use
    `shared_per_cta` bytes of shared memory (static + dynamic) with `ctas_per_sm` CTAs resident
    (occupancy): room for those CTAs with their reserved 1 KiB each, and never less than the
    reserved memory of the most CTAs an SM can hold (32 KiB on the H200). The L1 is the rest.
    Measured (ncu launch__shared_mem_config_size, benchmarks/timing/walk): CTAs of 256 threads and
    no shared memory get 32 KiB (a 224-KiB L1), although 8 CTAs need 8; 1 or 2 CTAs of 100 KiB get
    228 KiB; memory_counters l1cap (tests/timing_memory): one 1024-thread CTA holds a 224-KiB set
    in L1 with no shared memory, and about 156 KiB with 32 KiB (2 x 33 -> the 100-KiB carveout)."""
    reserved = int(gpu.shared_reserved_per_cta)
    need = max(int(ctas_per_sm) * (int(shared_per_cta) + reserved), int(gpu.max_ctas_per_sm) * reserved)
    return pick_carveout(gpu, min(need, int(gpu.shared_per_sm_max)))


def params_from_gpu(gpu, *, shared_bytes_per_sm: int = 0, carveout_kib: int | None = None) -> MemoryParams:
    if carveout_kib is None:
        carveout_kib = pick_carveout(gpu, shared_bytes_per_sm)
    elif carveout_kib not in tuple(gpu.shared_carveouts):
        raise ValueError(f"carveout {carveout_kib} KiB is not one of {tuple(gpu.shared_carveouts)}")
    measured = dict(getattr(gpu, "measured", None) or {})
    found = {**(measured.get("derived") or {}), **measured}
    opt = {k: type(d)(_number(found[k])) if k in found else d for k, d in OPTIONAL.items()}
    lat = gpu.latency
    return MemoryParams(
        line=int(gpu.l1_line), sector=int(gpu.sector),
        l1_shared_bytes=int(gpu.l1_shared_bytes), carveout_kib=int(carveout_kib),
        l1_bytes=int(gpu.l1_shared_bytes) - int(carveout_kib) * 1024,
        l2_bytes=int(gpu.l2_bytes), l2_assoc=int(gpu.l2_assoc),
        dram_bytes_per_clk=float(gpu.dram_bytes_per_s) / float(gpu.clock_hz),
        l2_bytes_per_clk=float(gpu.l2_bytes_per_clk),
        lat_shared=int(lat["shared"]), lat_l1=int(lat["l1_hit"]), lat_l2=int(lat["l2_hit"]),
        lat_dram=int(lat["dram"]), lat_const_hit=int(lat["const_hit"]), lat_tex=int(lat["tex_hit"]),
        lat_atomic_global=int(lat["atomic_global"]), lat_atomic_shared=int(lat["atomic_shared"]),
        **opt,
    )
