"""`Kernel.profile`: run a kernel on the engine with the event trace on and predict its time.

The design (docs/timing-model.md): the CTA dispatcher hands CTA i to SM i % sm_count, so SM 0
(the busiest one, with ceil(ctas / sm_count) CTAs) decides the kernel's time. Its CTAs are
traced and simulated in detail (sm.py), with L2 capacity and L2/DRAM bandwidth scaled to its
share of the active SMs; the kernel time is that SM's makespan plus the launch overhead. Grid-wide
counters (instructions, DRAM bytes, FLOPs) are the simulated SM's scaled by ctas / traced CTAs.
"""
from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from ..engine.launch import dim3
from ..engine.trace.events import Footprint, Tracer, WorkCount
from .atomics import aggregated_pcs, grid_packets
from .critical import critical_sms, fresh_args, snapshot_args
from .gpu import GpuSpec, load_gpu
from .memory import MemoryHierarchy
from .memory.params import driver_carveout, params_from_gpu
from .occupancy import Occupancy, code_bytes, occupancy, registers_per_thread, static_shared_bytes
from .params import DEFAULT, ModelParams
from .slowest import slowest_sm_gpu
from .sm import STALL_REASONS, SmSim
from .trace import WRITE_BACK_EVICTED, WRITE_BACK_FIRST, WRITE_BACK_NONE, build_work, memory_pass, share_l2


@dataclass
class Profile:
    kernel: str
    gpu: str
    grid: tuple
    block: tuple
    policy: str
    cycles: int  # the kernel: the busiest SM's cycles plus the launch overhead
    seconds: float
    sm_cycles: int  # the busiest simulated SM, from its first CTA's start to its last CTA's end
    stalls: dict  # stall reason -> warp-cycles on the simulated SM(s) ("selected": issuing)
    instruction_mix: dict  # op class -> warp-instructions, whole grid
    warp_instructions: int
    thread_instructions: int  # lanes that executed with their guard true (ncu: thread_inst_executed_pred_on)
    achieved_occupancy: float
    theoretical_occupancy: float
    occupancy: Occupancy
    sectors_per_request: float  # global/local loads: 32-B sectors per warp request (4 = coalesced 4-B lanes)
    store_sectors_per_request: float
    bank_conflicts: dict  # shared memory: requests, wavefronts, ideal wavefronts, conflicts, remote (DSMEM) requests
    cache_hit_rates: dict  # "l1", "l2"
    dram_bytes: int  # whole grid, read + written
    flops: dict  # flop kind -> FLOPs, whole grid
    ctas: int
    simulated_ctas: int
    simulated_sms: int
    waves: float
    peak_flops: float  # the roof for the kernel's dominant FLOP kind
    dram_bytes_per_s_peak: float
    counters: dict = field(default_factory=dict)  # raw memory-model counters (simulated SMs)
    wall_seconds: float = 0.0
    executed_thread_instructions: int = 0  # what the engine ran (all CTAs, or the sampled ones)
    # machine instructions (SASS) issued, whole grid: each PTX form counts its expansion
    # (engine/trace/expansion.py); ncu's smsp__inst_executed
    sass_instructions: int = 0
    # what `simulate` ran, kept so that `to_perfetto` can run the SM model again with a recorder
    collected: Optional["Collected"] = field(default=None, repr=False, compare=False)
    params: Optional[ModelParams] = field(default=None, repr=False, compare=False)
    utilization: dict = field(default_factory=dict)  # resource -> busy fraction of the SM's cycles (timing/bound.py)
    bound: str = ""  # which resource bounds the kernel and why (timing/bound.py)

    # ------------------------------------------------------------------ derived
    @property
    def total_flops(self) -> float:
        return float(sum(self.flops.values()))

    @property
    def flops_per_s(self) -> float:
        return self.total_flops / self.seconds if self.seconds else 0.0

    @property
    def arithmetic_intensity(self) -> float:
        """FLOPs per DRAM byte (inf when the kernel moves no DRAM bytes)."""
        return self.total_flops / self.dram_bytes if self.dram_bytes else math.inf

    @property
    def dram_bytes_per_s(self) -> float:
        return self.dram_bytes / self.seconds if self.seconds else 0.0

    @property
    def issue_slot_utilization(self) -> float:
        sel = self.stalls.get("selected", 0.0)
        return sel / (self.cycles * 4 * self.simulated_sms) if self.cycles else 0.0

    @property
    def thread_instructions_per_second(self) -> float:
        """Profiling speed: thread-instructions executed per wall second of profile()."""
        return self.executed_thread_instructions / self.wall_seconds if self.wall_seconds else 0.0

    # ------------------------------------------------------------------ output
    def to_dict(self) -> dict:
        return {
            "kernel": self.kernel, "gpu": self.gpu, "grid": list(self.grid), "block": list(self.block),
            "policy": self.policy, "cycles": self.cycles, "seconds": self.seconds, "sm_cycles": self.sm_cycles,
            "stalls": {k: round(v, 1) for k, v in self.stalls.items()},
            "instruction_mix": dict(self.instruction_mix),
            "warp_instructions": self.warp_instructions, "thread_instructions": self.thread_instructions,
            "sass_instructions": self.sass_instructions,
            "achieved_occupancy": round(self.achieved_occupancy, 4),
            "theoretical_occupancy": round(self.theoretical_occupancy, 4),
            "occupancy": {"ctas_per_sm": self.occupancy.ctas_per_sm, "limiter": self.occupancy.limiter,
                          "regs_per_thread": self.occupancy.regs_per_thread,
                          "regs_source": self.occupancy.regs_source,
                          "shared_per_cta": self.occupancy.shared_per_cta,
                          "ctas_by": {"registers": self.occupancy.ctas_by_regs, "shared": self.occupancy.ctas_by_shared,
                                      "warps": self.occupancy.ctas_by_warps, "ctas": self.occupancy.ctas_by_limit}},
            "sectors_per_request": round(self.sectors_per_request, 3),
            "store_sectors_per_request": round(self.store_sectors_per_request, 3),
            "bank_conflicts": dict(self.bank_conflicts),
            "cache_hit_rates": {k: round(v, 4) for k, v in self.cache_hit_rates.items()},
            "dram_bytes": self.dram_bytes, "flops": dict(self.flops),
            "flops_per_s": self.flops_per_s, "arithmetic_intensity": _finite(self.arithmetic_intensity),
            "dram_bytes_per_s": self.dram_bytes_per_s,
            "ctas": self.ctas, "simulated_ctas": self.simulated_ctas, "simulated_sms": self.simulated_sms,
            "waves": round(self.waves, 3), "wall_seconds": round(self.wall_seconds, 3),
            "utilization": dict(self.utilization), "bound": self.bound,
        }

    def to_json(self, indent: Optional[int] = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    def report(self) -> str:
        from .report import text_report

        return text_report(self)

    def roofline(self, path) -> str:
        """Write the roofline chart: SVG always (no dependency); a .png path needs matplotlib.
        Returns the path written."""
        from .roofline import write_roofline

        return write_roofline(self, path)

    def to_perfetto(self, path, max_events: int = 2_000_000) -> str:
        """Write a Chrome/Perfetto trace (JSON trace-event format, opens in ui.perfetto.dev) of
        the simulated SMs' warps over the predicted cycles, with issues and stall reasons
        (timing/perfetto.py). Returns the path written."""
        from .perfetto import write_perfetto

        return write_perfetto(self, path, max_events)

    def __repr__(self) -> str:
        return (f"<Profile {self.kernel} on {self.gpu}: {self.cycles} cycles, {self.seconds * 1e6:.2f} us, "
                f"occupancy {self.achieved_occupancy:.2f}>")


def _finite(x: float):
    return x if math.isfinite(x) else None


# The part of L2 that keeps a kernel's data from one launch to the next. H100/H200's L2 is two
# partitions and lines an SM reads from the far one are kept in its near one as well, so less
# than all of it holds distinct data. micro3 cold_state (results/micro3_cold_state_h200.json):
# back to back, a read of 24 or 32 MiB runs at L2 speed (7.3 / 8.7 us against 10.8 / 12.7 after
# a flush), one of 48 MiB does not (16.3 against 16.7): the boundary lies between 0.53 and 0.8 of
# the 60 MiB, taken in the middle (the suite had put it below 26 MB when this was 0.5).
L2_RESIDENT = 0.67


def sm_ctas(ctas: int, sm_count: int, sm: int = 0) -> list[int]:
    """The CTA ids the round-robin dispatcher gives SM `sm`."""
    return list(range(sm, ctas, sm_count))


def profile(kernel, grid, block, args, shared_mem: int = 0, gpu="h200", policy: str = "gto", *,
            regs: Optional[int] = None, sms: int = 1, functional: str = "all", params: Optional[ModelParams] = None,
            l2_sharing: bool = True, warm_l2: bool = True, cluster=None, max_instructions=None,
            progress=None, cooperative: bool = False) -> Profile:
    """Run `kernel` and predict its time on `gpu` (see the module docstring).

    regs: registers per thread (default: ptxas -v, else an estimate);
    sms: how many SMs to simulate in detail (SM 0..sms-1; the slowest decides);
    functional: "all" runs every CTA on the engine (outputs complete), "sampled" runs only the
      CTAs of the simulated SMs (much faster for large grids; outputs are partial), unless the
      kernel's CTAs wait on one another (then every CTA runs);
    params: ModelParams (default: the calibrated defaults);
    l2_sharing: with functional="all", count which global sectors the whole grid loads: data that
      other SMs fetched too is an L2 hit for the simulated SM, not a DRAM read (see docs);
    warm_l2: with functional="all", when everything the grid touches fits in L2, start from the L2
      that an identical previous launch leaves (the steady state of repeated launches, as CUDA-event
      timings of back-to-back launches see it); False: a cold L2 (as ncu's cache flush);
    progress: called with the number of CTAs the engine has finished;
    cooperative: a cooperative launch (grid.sync works; every CTA runs, so functional="all").
    """
    t0 = time.perf_counter()
    if policy not in ("gto", "lrr"):
        raise ValueError(f"unknown warp scheduling policy {policy!r} (use 'gto' or 'lrr')")
    col = collect(kernel, grid, block, args, shared_mem, gpu, regs=regs, sms=sms, functional=functional,
                  l2_sharing=l2_sharing, warm_l2=warm_l2, cluster=cluster, max_instructions=max_instructions,
                  progress=progress, cooperative=cooperative)
    return simulate(col, policy=policy, params=params, started=t0)


@dataclass
class Collected:
    """What a traced launch leaves for the SM model: per simulated SM its trace, memory results
    and memory counters. `simulate` can run it again under other policies or ModelParams."""

    kernel: str
    spec: GpuSpec
    grid: tuple
    block: tuple
    ctas: int
    occ: Occupancy
    per_sm: list  # CTA ids of each simulated SM
    sms: list  # (trace, memory results, memory stats, counters) per simulated SM
    executed_thread_instructions: int
    seconds: float
    cold: bool = False  # the L2 was flushed before the launch (its code comes from DRAM too)
    # the first `even` simulated SMs are SM 0, 1, ... whose CTAs stand for the grid's in the grid-wide
    # counters; SMs after them were added for their heavier work (timing/critical.py); None: all
    even: Optional[int] = None
    l1_bytes: Optional[int] = None  # the L1 beside the carveout (lines in flight: SmSim's l1_lines)
    code_bytes: int = 0  # the kernel's machine code as ptxas made it (0 without ptxas: estimated)


def collect(kernel, grid, block, args, shared_mem: int = 0, gpu="h200", *, regs: Optional[int] = None, sms: int = 1,
            functional: str = "all", l2_sharing: bool = True, warm_l2: bool = True, cluster=None,
            max_instructions=None, progress=None, cooperative: bool = False) -> Collected:
    """Run the kernel on the engine with the trace on and send the trace through the memory model."""
    t0 = time.perf_counter()
    spec: GpuSpec = load_gpu(gpu) if isinstance(gpu, str) else gpu
    if functional not in ("all", "sampled"):
        raise ValueError("functional must be 'all' or 'sampled'")
    if cooperative and functional != "all":
        raise ValueError("a cooperative launch runs every CTA (its grid.sync waits for all): use functional='all'")
    grid3, block3 = dim3(grid, "grid"), dim3(block, "block")
    T = int(np.prod(block3))
    G = int(np.prod(grid3))
    module = kernel.module
    module.lazy_program.ensure(kernel.name)
    if regs is None:
        n_regs, source = registers_per_thread(module, kernel.name)
    else:
        n_regs, source = int(regs), "given"
    shared = static_shared_bytes(module, kernel.name) + int(shared_mem)
    occ = occupancy(spec, T, n_regs, shared, source)
    n_sim = max(1, min(int(sms), spec.sm_count, G))
    per_sm = [sm_ctas(G, spec.sm_count, s) for s in range(n_sim)]
    traced = np.array(sorted(c for cs in per_sm for c in cs), dtype=np.int64)
    footprint = Footprint() if functional == "all" and l2_sharing else None
    if footprint is not None:  # count global atomics as the L2 performs them (timing/atomics.py)
        code = module.lazy_program.code
        footprint.aggregated = frozenset(id(code[pc]) for pc in aggregated_pcs(module.lazy_program))
        footprint.count_atomics = grid_packets
    # with every CTA run, count each one's work to find an SM busier than the simulated ones
    # (not for a cooperative launch: those CTAs alone would wait at its grid.sync for the others)
    work = WorkCount(G, -(-T // 32)) if functional == "all" and not cooperative else None
    before = snapshot_args(list(args)) if work is not None else None
    tracers = [Tracer(module.lazy_program, T, np.array(cs, dtype=np.int64), footprint if k == 0 else None,
                      work if k == 0 else None)
               for k, cs in enumerate(per_sm)]
    # A kernel whose CTAs wait on one another (flags polled across CTAs, say: parallel/analysis.py
    # lists what its PTX shows) cannot run some of its CTAs alone: they would spin forever on work
    # the others never do. Such a launch runs every CTA, tracing only the simulated SMs'.
    alone = not _ctas_interact(module, kernel.name)
    only = traced if functional == "sampled" and alone else None
    launched = kernel.launch(grid3, block3, args, shared_mem=shared_mem, cluster=cluster,
                             max_instructions=max_instructions, progress=progress, tracer=_FanOut(tracers),
                             only_ctas=only, cooperative=cooperative)
    if work is not None and before is not None:
        extra = critical_sms(work.finish(), spec.sm_count, list(range(n_sim)))
        if extra:  # run those SMs' CTAs again on the inputs as they were, traced
            more = [sm_ctas(G, spec.sm_count, s) for s in extra]
            fresh, owned = fresh_args(before, module.device)
            tracers2 = [Tracer(module.lazy_program, T, np.array(cs, dtype=np.int64)) for cs in more]
            try:
                kernel.launch(grid3, block3, fresh, shared_mem=shared_mem, cluster=cluster,
                              max_instructions=max_instructions, tracer=_FanOut(tracers2),
                              only_ctas=np.array(sorted(c for cs in more for c in cs), dtype=np.int64)
                              if alone else None)
            finally:
                for d in owned:
                    d.free()
            tracers += tracers2
            per_sm = per_sm + more
        del before
    n_active = min(spec.sm_count, G)
    # distinct data the grid loads, in the chunks DRAM fetches (an isolated sector costs a whole chunk)
    fetch = params_from_gpu(spec).l2_fetch_bytes
    read_bytes = footprint.chunks(fetch // spec.sector) * fetch if footprint is not None else None
    fits = footprint is not None and footprint.all_sectors * spec.sector <= L2_RESIDENT * spec.l2_bytes
    # when the whole grid's data fits in L2, this SM keeps all of L2 for its own reuse
    l2_fraction = 1.0 if read_bytes is not None and read_bytes <= spec.l2_bytes else None
    out, l1_bytes = [], None
    carveout = driver_carveout(spec, shared, occ.ctas_per_sm)  # the L1 is what the driver's carveout leaves
    for tracer, cs in zip(tracers, per_sm):
        def hierarchy():
            return MemoryHierarchy(spec, n_active, simulated_sms=1, carveout_kib=carveout, l2_fraction=l2_fraction)

        hier = hierarchy()
        if not warm_l2:  # the cold convention: the L2 as the flush's memset left it
            hier.fill_after_flush(hier.params.cold_dirty_fraction)
        if warm_l2 and fits:  # steady state of repeated launches: the previous one left its data in L2
            memory_pass(tracer.trace, hier)
            hier.flush()
            warm = hier.l2
            hier = hierarchy()
            hier.l2 = warm
        # cold: the L2 starts full (fill_after_flush), so a store pays the dirty lines it evicts
        mem, mstats = memory_pass(tracer.trace, hier,
                                  write_back=WRITE_BACK_EVICTED if not warm_l2
                                  else WRITE_BACK_NONE if fits else WRITE_BACK_FIRST)
        if read_bytes is not None and not (warm_l2 and fits):
            own = mstats.distinct_chunks(fetch // spec.sector) * fetch  # this SM's own distinct data
            _share_l2(mem, hier, read_bytes * len(cs) / G, spec.sector, min(1.0, spec.l2_bytes / max(read_bytes, 1)),
                      own_bytes=own, sharing=own * G / max(1, len(cs) * read_bytes))
        mstats.loaded = []
        if footprint is not None:  # the other SMs' atomics queue at the same L2 slices (SmSim.atomics)
            mstats.grid_atomic_lines = footprint.atomic_lines
        hier.flush()
        counters = {k: v for k, v in hier.counters().items()
                    if isinstance(v, (int, float)) and not k.endswith("_rate") and k != "sectors_per_request"}
        counters["l2_bytes_per_clk"] = hier.params.l2_bytes_per_clk
        counters["dram_bytes_per_clk"] = hier.params.dram_bytes_per_clk
        out.append((tracer.trace, mem, mstats, counters))
        l1_bytes = hier.params.l1_bytes
    return Collected(kernel.name, spec, grid3, block3, G, occ, per_sm, out, launched.thread_instructions,
                     time.perf_counter() - t0, cold=not warm_l2, even=n_sim, l1_bytes=l1_bytes,
                     code_bytes=code_bytes(module, kernel.name))


def simulate(col: Collected, policy: str = "gto", params: Optional[ModelParams] = None,
             started: Optional[float] = None, recorders: Optional[list] = None) -> Profile:
    """The SM model over a collected trace: cycles, stalls and the Profile. `recorders`: one
    per simulated SM (or None), told every warp's intervals (timing/perfetto.py)."""
    t0 = time.perf_counter()
    params = params or DEFAULT
    spec = col.spec
    results, stats_all, mstats_all, counters = [], [], [], {}
    even = getattr(col, "even", None) or len(col.sms)
    # the simulated SM's loads come back as late as the slowest busy SM's (timing/slowest.py)
    sm_spec = slowest_sm_gpu(spec, params, min(spec.sm_count, col.ctas))
    for k, ((trace, mem, mstats, cnt), cs) in enumerate(zip(col.sms, col.per_sm)):
        work, tstats = build_work(trace, mem, sm_spec, params, cs, col.occ.regs_per_thread,
                                  getattr(col, "code_bytes", 0))
        recorder = recorders[k] if recorders else None
        if recorder is not None:
            recorder.begin(work, trace, cs)
        sim = SmSim(work, ctas_per_sm=col.occ.ctas_per_sm, subpartitions=spec.subpartitions, policy=policy,
                    barrier_latency=spec.latency["barrier"],
                    l2_bytes_per_clk=cnt["l2_bytes_per_clk"] * params.l2_efficiency,
                    dram_bytes_per_clk=cnt["dram_bytes_per_clk"] * params.dram_efficiency,
                    sector=spec.sector, params=params, max_warps=spec.max_warps_per_sm,
                    barrier_per_warp=params.barrier_release_per_warp,
                    cta_dispatch=params.cta_dispatch_cycles * min(spec.sm_count, col.ctas), recorder=recorder,
                    atomic_lines=(mstats.atomic_lines, mstats.grid_atomic_lines),
                    l1_lines=(col.l1_bytes or 0) // spec.l1_line if params.l1_miss_lines else 0,
                    cold=bool(getattr(col, "cold", False)))
        results.append(sim.run())
        stats_all.append(tstats)
        mstats_all.append(mstats)
        if k < even:  # grid-wide counters scale from the evenly chosen SMs only
            for name, v in cnt.items():
                if not name.endswith("_per_clk"):
                    counters[name] = counters.get(name, 0) + v
    wall = (time.perf_counter() - started) if started is not None else col.seconds + time.perf_counter() - t0
    prof = _assemble(col.kernel, spec, policy, col.grid, col.block, col.ctas, col.occ, col.per_sm[:even], results,
                     stats_all[:even], mstats_all[:even], counters, params, wall,
                     launch_cycles(spec, params, getattr(col, "cold", False)))
    prof.executed_thread_instructions = col.executed_thread_instructions
    prof.collected, prof.params = col, params
    return prof


def _share_l2(mem, hier, expected_bytes: float, sector: int, reuse: float = 1.0, own_bytes: Optional[float] = None,
              sharing: float = 1.0) -> None:
    """Scale the simulated SM's DRAM reads down to its share of the grid's distinct data.
    `reuse`: the chance that data another SM fetched is still in L2 when this SM wants it (L2
    capacity over the grid's footprint: 1 when the footprint fits); the reads beyond the share
    come from DRAM again in the other cases. `own_bytes`: the distinct data this SM loads; its
    DRAM reads beyond that are fetches of its own data again (the L2 lost them); `sharing`: how
    many SMs read each datum on average (own x SMs / the grid's), so a refetch finds the line
    in L2, brought by another SM, with chance (1 - 1/sharing) x reuse: none for data no other SM
    reads (benchmarks/timing/walk: per-thread segments over 2 x 2048 threads per SM refetch 14x
    their data from DRAM on the H200)."""
    n = hier._n
    own = n.get("dram_partial_write_reads", 0) * sector  # this SM's own stores' reads: not shared
    dram = n.get("dram_bytes_read", 0) - own
    if dram <= 0 or expected_bytes >= dram:
        return
    first = dram if own_bytes is None else min(dram, max(float(own_bytes), expected_bytes))
    refetch = dram - first
    other = (1.0 - 1.0 / max(1.0, float(sharing))) * reuse  # a refetch served by another SM's fill
    expected_bytes += (first - expected_bytes) * (1.0 - reuse) + refetch * (1.0 - other)
    keep = expected_bytes / dram
    share_l2(mem, keep)
    moved = int(round((1 - keep) * dram / sector))
    n["dram_bytes_read"] = int(round(dram * keep)) + own
    # the dirty lines those fills pushed out of L2 go with them (share_l2 scales their time too)
    evicted = n.get("dram_bytes_evicted_by_reads", 0)
    if evicted:
        n["dram_bytes_written"] -= evicted - int(round(evicted * keep))
        n["dram_bytes_evicted_by_reads"] = int(round(evicted * keep))
    n["l2_hits"] = n.get("l2_hits", 0) + moved
    n["l2_misses"] = max(0, n.get("l2_misses", 0) - moved)
    n["l2_shared_hits"] = moved


def _ctas_interact(module, kernel: str) -> bool:
    """Whether the kernel's PTX shows CTAs whose outcome depends on other CTAs' global-memory
    operations (the reasons a launch of it is not split over processes)."""
    from ..parallel.analysis import facts

    return bool(facts(module, kernel)[0])


class _FanOut:
    """Several tracers (one per simulated SM) behind the one tracer slot of a launch."""

    def __init__(self, tracers):
        self.tracers = tracers

    def wave(self, ctx, ctas):
        waves = [w for w in (t.wave(ctx, ctas) for t in self.tracers) if w is not None]
        if not waves:
            return None
        return waves[0] if len(waves) == 1 else _FanWave(waves)


class _FanWave:
    def __init__(self, waves):
        self.waves = waves

    def step(self, *a):
        for w in self.waves:
            w.step(*a)


def launch_cycles(spec, params, cold: bool) -> float:
    """The fixed cost of a launch: `kernel_launch`, and after an L2 flush the first instruction
    fetch from DRAM instead of L2 (the suite's empty kernel: 3.55 us cold, 3.31 us back to back)."""
    return params.kernel_launch + (spec.latency["dram"] - spec.latency["l2_hit"] if cold else 0)


def _assemble(name, spec, policy, grid3, block3, G, occ, per_sm, results, stats_all, mstats_all, counters,
              params, wall, launch=None) -> Profile:
    if launch is None:
        launch = params.kernel_launch
    n_traced = sum(len(cs) for cs in per_sm)
    scale = G / max(n_traced, 1)
    sm_cycles = max(r.cycles for r in results)
    cycles = int(sm_cycles + launch)
    stalls = {k: float(sum(r.stalls[i] for r in results)) for i, k in enumerate(STALL_REASONS)}
    mix: dict = {}
    flops: dict = {}
    warp_i = thread_i = 0
    for st in stats_all:
        warp_i += st.warp_instructions
        thread_i += st.thread_instructions
        for k, v in st.by_class.items():
            mix[k] = mix.get(k, 0) + v
        for k, v in st.flops.items():
            flops[k] = flops.get(k, 0.0) + v
    mix = {k: int(round(v * scale)) for k, v in sorted(mix.items(), key=lambda kv: -kv[1])}
    flops = {k: float(v * scale) for k, v in flops.items()}
    resident = sum(r.warp_cycles_resident for r in results)
    sm_time = sum(r.cycles for r in results)
    achieved = resident / (sm_time * spec.max_warps_per_sm) if sm_time else 0.0
    requests = sum(m.load_requests for m in mstats_all)
    sectors = sum(m.load_sectors for m in mstats_all)
    st_requests = sum(m.store_requests for m in mstats_all)
    st_sectors = sum(m.store_sectors for m in mstats_all)
    sh_req = sum(m.shared_requests for m in mstats_all)
    sh_wf = sum(m.shared_wavefronts for m in mstats_all)
    sh_ideal = sum(m.shared_ideal for m in mstats_all)
    bank = {"requests": sh_req, "wavefronts": sh_wf, "ideal_wavefronts": sh_ideal, "conflicts": sh_wf - sh_ideal,
            "wavefronts_per_request": round(sh_wf / sh_req, 3) if sh_req else 0.0,
            # distributed shared memory: requests to another CTA of the cluster (not in the above)
            "remote_requests": sum(getattr(m, "dsmem_requests", 0) for m in mstats_all)}
    l1h, l1m = counters.get("l1_hits", 0), counters.get("l1_misses", 0)
    l2h, l2m = counters.get("l2_hits", 0), counters.get("l2_misses", 0)
    rates = {"l1": l1h / (l1h + l1m) if l1h + l1m else 0.0, "l2": l2h / (l2h + l2m) if l2h + l2m else 0.0}
    dram = int(round((counters.get("dram_bytes_read", 0) + counters.get("dram_bytes_written", 0)) * scale))
    from .bound import explain, utilizations

    util = utilizations(results, spec.subpartitions)
    bound = explain(util, stalls, launch / max(cycles, 1), achieved,
                    G / (occ.ctas_per_sm * spec.sm_count))
    kind = max(flops, key=flops.get) if flops else "fp32"
    peak_key = {"fp32": "fp32", "fp64": "fp64", "fp16": "fp16", "tensor": "fp16_tensor"}.get(kind, "fp32")
    return Profile(
        kernel=name, gpu=spec.name, grid=grid3, block=block3, policy=policy, cycles=cycles,
        seconds=cycles / spec.clock_hz, sm_cycles=int(sm_cycles), stalls=stalls, instruction_mix=mix,
        warp_instructions=int(round(warp_i * scale)), thread_instructions=int(round(thread_i * scale)),
        achieved_occupancy=achieved, theoretical_occupancy=occ.theoretical, occupancy=occ,
        sectors_per_request=sectors / requests if requests else 0.0,
        store_sectors_per_request=st_sectors / st_requests if st_requests else 0.0, bank_conflicts=bank, cache_hit_rates=rates,
        dram_bytes=dram, flops=flops, ctas=G, simulated_ctas=n_traced, simulated_sms=len(results),
        waves=G / (occ.ctas_per_sm * spec.sm_count), peak_flops=float(spec.peak_flops.get(peak_key, 0.0)),
        dram_bytes_per_s_peak=float(spec.dram_bytes_per_s), counters=counters, wall_seconds=wall,
        utilization=util, bound=bound, sass_instructions=int(round(stalls.get("selected", 0.0) * scale)),
    )
