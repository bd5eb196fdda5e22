"""Kernel launches: argument marshalling, waves of resident CTAs, faults, statistics, printf."""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from .. import jit as jit_switch
from ..errors import FaultSite, KernelFault, LaunchError, OutOfDeviceMemory
from ..semantics.dtypes import bits_of, numpy_dtype
from .control import cluster as cluster_ops
from . import launch_limits
from .core import sregs
from .core.budget import human
from .core.device import DeviceArray, default_device
from .core.machine import EXITED, Context, Fault, run
from .core.memory import RESERVED_SHARED, FlatMemory, WindowedMemory, host_refused

SMS = 132  # H100 SXM / H200
THREADS_PER_SM = 2048
CTAS_PER_SM = 32
SHARED_PER_SM = 228 * 1024
MAX_SHARED_PER_CTA = launch_limits.MAX_SHARED_PER_CTA
STATE_BUDGET = 1 << 30  # bytes of registers + local memory one wave may hold
# Threads a wave holds when the caller says the CTAs may be grouped freely (Launch.regroup): the
# wave's register arrays then stay in the host's caches. Best of 16K-256K threads on the
# benchmarks/bench_engine.py kernels and bench_parallel's vector add and sum (docs/performance.md).
CACHE_WAVE_THREADS = 65536
DEFAULT_STACK = 1024  # bytes of call stack per thread for recursive kernels (CUDA's default)


@dataclass
class LaunchStats:
    thread_instructions: int
    warp_instructions: int
    seconds: float
    ctas: int = 0
    threads: int = 0
    waves: int = 0
    pm_events: int = 0  # pmevent triggers: one per executing thread per event signalled
    max_registers: int = 0  # the largest per-thread register count a setmaxnreg set (0: none ran)
    workers: int = 1  # processes that ran the CTAs (ptxvm/parallel)
    serial_reason: str = ""  # why a launch that could have been split ran in one process ("": it was not asked to split)
    worker_cpu: tuple = ()  # CPU seconds each worker process (or this one) spent on a split launch's shards
    in_process_cpu: float = 0.0  # of those, the CPU seconds of the shard this process ran itself (side by side with the others)
    stored_in_place: bool = False  # a split launch whose workers stored straight into the shared arena (parallel/shared_stores.py)
    jit_seconds: float = 0.0  # of `seconds`, the time spent compiling (or loading cached) fused blocks

    @property
    def instructions_per_second(self) -> float:
        return self.thread_instructions / self.seconds if self.seconds else 0.0


def host_array(a, where: str) -> np.ndarray:
    """A NumPy view of a DLPack array on the host (a torch CPU tensor, a JAX CPU array...): writes
    to it reach the original, as a GPU launch's would."""
    try:
        return np.from_dlpack(a)
    except (BufferError, TypeError, RuntimeError, ValueError) as e:
        raise LaunchError(f"{where}: a {type(a).__name__} that NumPy cannot view through DLPack ({e}); "
                          "pass host (CPU) memory") from None


def dim3(v, what: str) -> tuple[int, int, int]:
    if isinstance(v, (int, np.integer)):
        v = (int(v),)
    try:
        if not all(isinstance(x, (int, np.integer)) for x in v):
            raise TypeError
        v = tuple(int(x) for x in v)
    except TypeError:
        raise LaunchError(f"{what} must be a positive int or a tuple of 1-3 positive ints, got {v!r}") from None
    if not 1 <= len(v) <= 3 or any(x < 1 for x in v):
        raise LaunchError(f"{what} must be a positive int or a tuple of 1-3 positive ints, got {v!r}")
    return v + (1,) * (3 - len(v))


class WaveGeometry:
    """The per-thread arrays of a wave that depend only on how many CTAs it holds and the block
    shape (thread slot -> CTA slot, thread index, lane, warp, the lane-derived special registers).
    Read-only and shared by every wave and launch of that shape (`wave_geometry`): making them
    costs a wave of 270 000 threads ~20 ms of fresh arrays, most of it page faults."""

    def __init__(self, n_ctas: int, block):
        T = int(np.prod(block))
        bx, by, _ = block
        self.warps_per_cta = -(-T // 32)
        self.slot = np.repeat(np.arange(n_ctas), T)
        self.t = t = np.tile(np.arange(T), n_ctas)
        self.laneid = (t % 32).astype(np.int64)
        self.warp_of = self.slot * self.warps_per_cta + t // 32
        wsize = np.minimum(32, T - (t // 32) * 32)
        self.warp_size = wsize
        self.warp_lanes = np.where(wsize >= 32, np.uint32(0xFFFFFFFF),
                                   ((np.uint64(1) << wsize.astype(np.uint64)) - np.uint64(1)).astype(np.uint32)).astype(np.uint32)
        self.tid = ((t % bx).astype(np.uint32), ((t // bx) % by).astype(np.uint32), (t // (bx * by)).astype(np.uint32))
        self.laneid32 = self.laneid.astype(np.uint32)
        self.warpid = (t // 32).astype(np.uint32)
        self.slot_index = np.arange(t.size)
        self.derived = sregs.lane_registers(self.slot, self.laneid32)
        arrays = [self.slot, self.t, self.laneid, self.warp_of, self.warp_size, self.warp_lanes, *self.tid,
                  self.laneid32, self.warpid, self.slot_index, *self.derived.values()]
        for a in arrays:
            a.flags.writeable = False  # shared: an engine path that wrote one would raise, not corrupt the next wave
        self.nbytes = sum(a.nbytes for a in arrays)


_GEOMETRY: dict = {}  # (CTAs per wave, block) -> WaveGeometry, most recently used last
GEOMETRY_KEPT = 96 << 20  # bytes of geometry kept across launches (a full and a partial wave of the largest blocks)


def wave_geometry(n_ctas: int, block) -> WaveGeometry:
    """The WaveGeometry of waves of `n_ctas` CTAs of `block`, made once and kept (up to GEOMETRY_KEPT bytes)."""
    key = (int(n_ctas), tuple(int(b) for b in block))
    geo = _GEOMETRY.pop(key, None)
    if geo is None:
        geo = WaveGeometry(*key)
    _GEOMETRY[key] = geo
    while sum(g.nbytes for g in _GEOMETRY.values()) > GEOMETRY_KEPT and len(_GEOMETRY) > 1:
        _GEOMETRY.pop(next(iter(_GEOMETRY)))
    return geo


class Launch:
    def __init__(self, kernel, grid, block, args, shared_mem=0, cluster=None, max_instructions=None, progress=None,
                 tracer=None, only_ctas=None, hooks=None, kparams: Optional[bytes] = None, cooperative: bool = False):
        if cooperative and only_ctas is not None:  # a grid barrier waits for every CTA of the grid
            raise LaunchError("a cooperative launch runs the whole grid (only_ctas would leave its grid.sync "
                              "waiting for CTAs that never run)")
        self.kernel = kernel
        self.hooks = hooks  # a LaunchHooks (engine/core/hooks.py) when a tool observes the launch
        self.tracer = tracer  # an engine.trace.Tracer when the launch is profiled
        self.only_ctas = only_ctas  # run just these CTA ids (a profile that samples CTAs), None: all
        self.positions: Optional[tuple[int, int]] = None  # or just launch-order positions [first, stop) (a shard)
        self.progress = progress  # called with the number of CTAs finished after each wave
        self.module = kernel.module
        self.info = kernel.info
        self.grid = dim3(grid, "grid")
        self.block = dim3(block, "block")
        launch_limits.check_grid(self.grid)
        launch_limits.check_block(self.block, cluster_ops.directives(self.info.decl), self.info.name)
        self.cluster = dim3(cluster, "cluster") if cluster is not None else None
        self.cluster, self.explicit_cluster = cluster_ops.resolve(self.info.decl, self.grid, self.cluster)
        self.threads_per_cta = int(np.prod(self.block))
        self.shared_dynamic = int(shared_mem)
        prog = self.module.lazy_program
        self.shared_static = self.info.shared_static  # what this kernel reaches (engine/shared_layout.py)
        self.shared_total = self.shared_static + self.shared_dynamic  # the kernel's bytes
        self.shared_window = RESERVED_SHARED + self.shared_total  # a CTA's: with the system's reserved KiB
        launch_limits.check_shared(self.shared_static, self.shared_dynamic)
        self.max_instructions = max_instructions
        # True when no CTA's result can depend on which CTAs share a wave (the caller decides:
        # ptxvm.parallel.analysis.may_regroup); waves then hold at most CACHE_WAVE_THREADS threads
        # instead of what 132 SMs hold. False keeps the GPU's residency (flags between resident
        # CTAs make progress; tools see the GPU's waves).
        self.regroup = False
        # a cooperative launch (cudaLaunchCooperativeKernel): every CTA resident at once, and the grid
        # workspace cooperative groups' grid.sync() uses, its address in %envreg1:%envreg2
        self.cooperative = bool(cooperative)
        self.device = self.module.device
        self.copies: list[tuple[np.ndarray, DeviceArray]] = []
        self.copy_names: list[str] = []  # the argument each copy is of ("argument 1 (a, .u64)"), for messages
        try:
            # `kparams`: the parameter buffer already marshalled (a shard of a launch in another process)
            self.kparams = self.marshal(args) if kparams is None else bytes(kparams)
        except BaseException:  # an argument that cannot be copied: free the copies made before it
            self._discard()
            raise

    # ------------------------------------------------------------------ arguments
    def marshal(self, args) -> bytes:
        params = self.info.params
        if len(args) != len(params):
            raise LaunchError(f"kernel {self.info.name} takes {len(params)} arguments, {len(args)} given")
        buf = bytearray(self.info.kparam_size)
        seen: dict[int, DeviceArray] = {}
        for i, (p, a) in enumerate(zip(params, args)):
            raw = self._param_bytes(p, a, seen, i)
            buf[p.offset : p.offset + len(raw)] = raw
        return bytes(buf)

    def _param_bytes(self, p, a, seen, i) -> bytes:
        where = f"argument {i} ({p.name}, .{p.type}{'[%d]' % p.size if p.decl.array else ''})"
        if p.decl.array or p.decl.vector:
            if isinstance(a, np.void):
                a = a.tobytes()
            if isinstance(a, np.ndarray) and not p.decl.array:
                a = a.tobytes()
            if not isinstance(a, (bytes, bytearray, memoryview)):
                raise LaunchError(f"{where}: a by-value struct/array parameter takes bytes or np.void of {p.size} bytes")
            if len(bytes(a)) != p.size:
                raise LaunchError(f"{where}: expected {p.size} bytes, got {len(bytes(a))}")
            return bytes(a)
        if not isinstance(a, np.ndarray) and hasattr(a, "__dlpack__"):
            a = host_array(a, where)
        if isinstance(a, np.ndarray):
            if bits_of(p.type) != 64:
                size = self.module.ast.address_size
                if size != 64:  # .address_size 32, or none: PTX's default
                    raise LaunchError(f"{where}: an array needs a 64-bit pointer parameter; this module is 32-bit "
                                      f"code ({'.address_size 32' if size else 'no .address_size: PTX defaults to 32'}"
                                      "), which an sm_90 GPU does not run (its global memory takes 64-bit "
                                      "addresses): compile it with .address_size 64")
                raise LaunchError(f"{where}: an array needs a 64-bit pointer parameter")
            if not a.flags.c_contiguous:
                raise LaunchError(f"{where}: the array must be C-contiguous")
            if a.dtype.hasobject:
                raise LaunchError(f"{where}: an array of Python objects ({a.dtype}) has no device representation")
            dev = seen.get(id(a))
            if dev is None:
                dev = self.device.to_device(a, what=f"the copy of {where}")
                seen[id(a)] = dev
                self.copies.append((a, dev))
                self.copy_names.append(where)
            return np.uint64(dev.address).tobytes()
        if isinstance(a, DeviceArray):
            if not getattr(self.hooks, "tracks_initialization", False):  # it may be written: initialized now
                a._alloc.uninit = None
            return np.uint64(a.address).tobytes()
        if isinstance(getattr(a, "handle", None), int):  # a texture or surface object
            return _scalar_bytes(p.type, a.handle, where)
        return _scalar_bytes(p.type, a, where)

    # ------------------------------------------------------------------ waves
    def wave_capacity(self, bytes_per_thread: int) -> int:
        by_threads = SMS * (THREADS_PER_SM // self.threads_per_cta) if self.threads_per_cta <= THREADS_PER_SM else SMS
        by_ctas = SMS * CTAS_PER_SM
        by_shared = SMS * (SHARED_PER_SM // self.shared_window)
        by_state = max(1, STATE_BUDGET // max(1, bytes_per_thread * self.threads_per_cta))
        by_cache = CACHE_WAVE_THREADS // self.threads_per_cta if self.regroup else by_ctas
        return max(1, min(by_threads, by_ctas, by_shared, by_state, by_cache))

    def run(self) -> LaunchStats:
        try:
            return self._run()
        except BaseException:  # refused, faulted or interrupted: the argument copies go
            self._discard()
            raise

    def _run(self) -> LaunchStats:
        start = time.perf_counter()
        stats, printf = self.execute()
        return self.finish(stats, printf, start)

    def execute(self) -> tuple[LaunchStats, list]:
        """Run the CTAs (all, or `only_ctas`) in waves against the device's global memory; returns
        the statistics and the printf records. Host arrays are not touched: `finish` copies back."""
        prog = self.module.lazy_program
        code = prog.code
        start = time.perf_counter()
        total_ctas = self.grid[0] * self.grid[1] * self.grid[2]  # Python ints: up to 2^63 CTAs
        need = prog.frame_need(self.info.name)
        local_static = -(-prog.local_static // 16) * 16
        local_size = local_static + (need if need >= 0 else DEFAULT_STACK * 16)
        if prog.uses_alloca:
            local_size += DEFAULT_STACK * 16
        local_size = -(-max(local_size, 16) // 16) * 16
        launch_limits.check_local(local_size, self.info.name)
        needed = _kernel_slots(prog, self.info.name)
        reg_bytes = sum(prog.regs.dtypes[i].itemsize for i in needed)
        per_thread = reg_bytes + local_size + 40
        capacity = cluster_ops.whole_clusters(self.wave_capacity(per_thread), self.cluster)
        # CTAs run cluster by cluster (clusters stay together in a wave); their ids are computed a
        # wave at a time, so nothing here grows with the grid
        positions, begin = None, 0
        if self.positions is not None:  # a contiguous run of launch order (whole clusters): no id list
            begin, total_ctas = self.positions[0], min(self.positions[1], total_ctas)
        elif self.only_ctas is not None:
            ids = np.asarray(self.only_ctas, dtype=np.int64).reshape(-1)
            ids = ids[(ids >= 0) & (ids < total_ctas)]
            positions = cluster_ops.cta_positions(self.grid, self.cluster, ids)
            size = int(np.prod(self.cluster))
            if size > 1:  # a CTA runs with its whole cluster: its partners' shared memory and barriers
                positions = (positions // size * size)[:, None] + np.arange(size)
            positions = np.unique(positions)
            total_ctas = int(positions.size)
        if self.cooperative:
            self._check_coresident(total_ctas - begin, capacity)
        capacity, wave_bytes = self._fit_wave(capacity, total_ctas - begin, per_thread)
        if self.cooperative:
            self._check_coresident(total_ctas - begin, capacity, "the engine's memory budget for one wave")
        stats = LaunchStats(0, 0, 0.0, total_ctas - begin, (total_ctas - begin) * self.threads_per_cta)
        use_jit = jit_switch.enabled()  # the compiled tier (engine/compiled), as ptxvm.jit says
        if use_jit and self.tracer is None and self.hooks is None:
            prog.prepare_fused()
        printf: list = []
        const = FlatMemory("const", prog.const_image.tobytes() if self.module.const_image is None else self.module.const_image)
        kparams = FlatMemory("param", self.kparams)
        self.device.budget.reserve(wave_bytes, "the launch wave's state")
        workspace = None
        try:
            if self.cooperative:
                workspace = self.device.to_device(np.zeros(4, np.uint32), what="the cooperative launch's grid workspace")
            ctx = None
            for first in range(begin, total_ctas, capacity):
                if positions is None:
                    ctas = cluster_ops.cta_ids(self.grid, self.cluster, first, min(first + capacity, total_ctas))
                else:
                    ctas = cluster_ops.cta_ids_at(self.grid, self.cluster, positions[first : first + capacity])
                if ctx is None or ctx.n != ctas.size * self.threads_per_cta:
                    ctx = None  # the last wave's arrays go before the next one's are made
                    try:
                        ctx = self._wave(ctas, local_size, local_static, const, kparams, needed)
                    except MemoryError:
                        raise host_refused(wave_bytes, f"the wave of {ctas.size} CTAs of kernel '{self.info.name}'") from None
                else:
                    self._next_wave(ctx, ctas, local_static)
                ctx.printf = printf
                if workspace is not None:  # what the driver hands a cooperative launch (CUDA's grid.sync reads it)
                    ctx.sreg["%envreg1"] = np.uint32(workspace.address >> 32)
                    ctx.sreg["%envreg2"] = np.uint32(workspace.address & 0xFFFFFFFF)
                # the instruction budget is the launch's: each wave counts on from the waves before it
                ctx.thread_instructions = stats.thread_instructions
                ctx.tracer = self.tracer.wave(ctx, ctas) if self.tracer is not None else None
                ctx.hooks = self.hooks
                ctx.jit = use_jit and ctx.tracer is None and self.hooks is None
                if self.hooks is not None:
                    self.hooks.begin_wave(ctx, ctas, self)
                try:
                    with np.errstate(all="ignore"):  # masked lanes may compute on garbage
                        run(ctx, code, _on_stuck)
                except Fault as f:
                    fault = self._kernel_fault(ctx, f, code)
                    if self.hooks is not None:  # post-mortem: the wave's state is still whole
                        self.hooks.wave_fault(ctx, fault)
                    raise fault from None
                if self.hooks is not None:
                    self.hooks.end_wave(ctx)
                stats.thread_instructions = ctx.thread_instructions
                stats.warp_instructions += ctx.warp_instructions
                stats.pm_events += ctx.extra.get("pm_events", 0)
                stats.max_registers = max(stats.max_registers, ctx.extra.get("max_registers", 0))
                stats.jit_seconds += ctx.extra.pop("jit_seconds", 0.0)
                ctx.thread_instructions = ctx.warp_instructions = 0
                stats.waves += 1
                if self.progress is not None:
                    self.progress(first - begin + ctas.size)  # ctas come cluster by cluster, not in id order
        except KernelFault:
            self._discard()
            raise
        finally:
            self.device.budget.release(wave_bytes)
            if workspace is not None:
                workspace.free()
        stats.seconds = time.perf_counter() - start
        return stats, printf

    def _check_coresident(self, ctas: int, capacity: int, limit: str = "an H200's 132 SMs") -> None:
        """A cooperative launch needs all its CTAs resident together (cudaErrorCooperativeLaunchTooLarge)."""
        if ctas > capacity:
            raise LaunchError(f"cooperative launch of {ctas} CTAs of kernel '{self.info.name}': at most {capacity} "
                              f"can be resident at once ({limit}; the CUDA driver refuses it with "
                              "cudaErrorCooperativeLaunchTooLarge)")

    def finish(self, stats: LaunchStats, printf: list, start: float, unchanged=()) -> LaunchStats:
        """After the CTAs ran: copy the arguments' device copies back to the host arrays, free them,
        write the printf output in launch order. `unchanged`: indices of `copies` whose device
        bytes the kernel is known not to have written (a split launch's write sets say so), which
        are not copied back (their host arrays already hold those bytes)."""
        if getattr(self.hooks, "faulted", False):  # a tool suppressed what would have faulted
            self._discard()
            stats.seconds = time.perf_counter() - start
            return stats
        for i, (host, dev) in enumerate(self.copies):  # a read-only array takes nothing back: the kernel
            if i not in unchanged and not host.flags.writeable and not dev.holds(host):  # must not have written it
                where = self.copy_names[i]
                self._discard()
                raise LaunchError(f"kernel {self.info.name} wrote to {where}, a read-only array "
                                  "(np.frombuffer, a broadcast view...), where its results cannot be returned: "
                                  "pass a writeable array (np.array(x)) or a device array (ptxvm.to_device)")
        for i, (host, dev) in enumerate(self.copies):
            if i not in unchanged and host.flags.writeable:
                dev.copy_to_host(out=host)
        self._discard()
        if printf:
            printf.sort(key=lambda r: (r[1], r[0]))
            sys.stdout.write("".join(r[2] for r in printf))
            sys.stdout.flush()
        stats.seconds = time.perf_counter() - start
        return stats

    def _fit_wave(self, capacity: int, total_ctas: int, per_thread: int) -> tuple[int, int]:
        """(CTAs per wave, bytes the wave holds): the wave shrinks, in whole clusters, to what the
        device's memory budget has free; OutOfDeviceMemory when not even one cluster fits."""
        self.device.memory.collect()  # unloaded modules' memory first
        per_cta = self.shared_window + per_thread * self.threads_per_cta
        size = int(np.prod(self.cluster))
        capacity = max(size, min(capacity, -(-max(total_ctas, 1) // size) * size))
        fits = self.device.budget.free // max(per_cta, 1) // size * size
        if fits < size:
            need = per_cta * size
            raise OutOfDeviceMemory(
                f"out of memory (cudaErrorMemoryAllocation): kernel '{self.info.name}' needs {need} bytes "
                f"({human(need)}) of shared, local and register state for {'a cluster of ' + str(size) + ' CTAs' if size > 1 else 'one CTA'} "
                f"({self.threads_per_cta} threads x {per_thread} bytes + {self.shared_total} bytes of shared memory per CTA); "
                f"the virtual device has {self.device.budget.free} of {self.device.budget.limit} bytes free (raise the "
                f"limit with ptxvm.set_device_memory_limit or PTXVM_DEVICE_MEMORY)", need, self.device.budget.free)
        capacity = min(capacity, fits)
        return capacity, capacity * per_cta

    def _discard(self):
        for _, dev in self.copies:
            dev.free()
        self.copies, self.copy_names = [], []

    def _next_wave(self, ctx, ctas, local_static) -> None:
        """Reuse a finished wave's arrays for the next CTAs (register contents are undefined
        at kernel entry in PTX, so they are not cleared; shared memory is)."""
        T = self.threads_per_cta
        slot = ctx.cta_slot
        ctx.cta_linear = ctas[slot]
        for c, v in zip("xyz", self._ctaids(ctas, ctx.cta_linear, slot)):
            ctx.sreg[f"%ctaid.{c}"] = v
        cluster_ops.fill_sregs(ctx, ctas, self.grid, self.cluster, self.explicit_cluster, slot)
        ctx.pc[:] = self.info.entry_pc
        ctx.upc = self.info.entry_pc
        ctx.status[:] = 0
        ctx.epoch[:] = 0
        ctx.carry[:] = 0
        ctx.uniform = True
        ctx.n_live = ctx.n
        ctx._live_index = None
        ctx.n_warps_live = ctas.size * (-(-T // 32))
        ctx.frame_base[:] = local_static
        ctx.stack_top[:] = local_static + self.info.frame.size
        ctx.stack_ptr[:] = ctx.local.limit
        ctx.shared.buf[:] = 0
        ctx.extra.clear()

    def _ctaids(self, ctas, linear, slot) -> tuple:
        """%ctaid.x/y/z per thread slot (`linear`: each slot's linear CTA id, `ctas[slot]`); a
        dimension the grid does not extend is one 0 for every thread, and a one-dimensional
        grid's x is the linear id itself (no second gather per wave)."""
        gx, gy, gz = self.grid
        zero = np.uint32(0)
        if gy == 1 and gz == 1:
            return linear.astype(np.uint32), zero, zero
        return tuple(v.astype(np.uint32)[slot] if g > 1 else zero
                     for v, g in zip((ctas % gx, (ctas // gx) % gy, ctas // (gx * gy)), self.grid))

    def _wave(self, ctas, local_size, local_static, const, kparams, needed) -> Context:
        prog = self.module.lazy_program
        T = self.threads_per_cta
        n = ctas.size * T
        ctx = Context(n, prog.regs.dtypes, needed)
        ctx.max_instructions = self.max_instructions
        geo = wave_geometry(ctas.size, self.block)
        slot = geo.slot
        ctx.cta_slot = slot
        ctx.cta_linear = ctas[slot]
        ctx.thread_linear = geo.t
        ctx.laneid = geo.laneid
        ctx.warp_of = geo.warp_of
        ctx.n_warps_live = ctas.size * geo.warps_per_cta
        ctx.warp_size = geo.warp_size
        ctx.warp_lanes = geo.warp_lanes
        ctx.slot_index = geo.slot_index
        ctx.sreg = {}
        sregs.fill(
            ctx,
            tid=geo.tid,
            ntid=self.block,
            ctaid=self._ctaids(ctas, ctx.cta_linear, slot),
            nctaid=self.grid,
            laneid=geo.laneid32,
            warpid=geo.warpid,
            nwarpid=geo.warps_per_cta,
            smem_static=self.shared_static,
            smem_dynamic=self.shared_dynamic,
            derived=geo.derived,
        )
        cluster_ops.fill_sregs(ctx, ctas, self.grid, self.cluster, self.explicit_cluster, slot)
        ctx.gmem = self.device.memory
        ctx.shared = WindowedMemory("shared", ctas.size, self.shared_window)
        ctx.local = WindowedMemory("local", n, local_size)
        ctx.const = const
        ctx.kparams = kparams
        ctx.frame_base = np.full(n, local_static, dtype=np.uint64)
        ctx.stack_top = ctx.frame_base + np.uint64(self.info.frame.size)  # frames grow up from here
        ctx.stack_ptr = np.full(n, local_size, dtype=np.uint64)            # alloca blocks grow down
        ctx.upc = self.info.entry_pc
        ctx.pc[:] = self.info.entry_pc
        ctx.device_allocs = []
        return ctx

    def _kernel_fault(self, ctx, f: Fault, code) -> KernelFault:
        lane = f.lane if f.lane is not None else 0
        lane = min(max(lane, 0), ctx.n - 1)
        pc = f.pc if f.pc is not None else (ctx.upc if ctx.uniform else int(ctx.pc[lane]))
        op = code[pc] if 0 <= pc < len(code) else None
        T = self.threads_per_cta
        bx, by, _ = self.block
        gx, gy, _ = self.grid
        cta = int(ctx.cta_linear[lane])
        t = int(ctx.thread_linear[lane])
        site = FaultSite(
            kernel=self.info.name,
            cta=(cta % gx, (cta // gx) % gy, cta // (gx * gy)),
            thread=(t % bx, (t // bx) % by, t // (bx * by)),
            line=op.line if op is not None and op.line else None,
            file=op.file if op is not None else None,
            instruction=op.text if op is not None else None,
            address=f.address,
        )
        fault = KernelFault(f.reason, site)
        fault.slot, fault.pc = lane, pc  # for tools (hooks.wave_fault): the thread slot and PC in the wave
        return fault


def _kernel_slots(prog, kernel: str) -> list[int]:
    """Register slots of the kernel and every function it can reach."""
    seen, stack = set(), [kernel]
    while stack:
        f = stack.pop()
        if f in seen or f not in prog.functions:
            continue
        seen.add(f)
        stack.extend(prog.functions[f].callees)
    return sorted(s for f in seen for s in prog.functions[f].reg_slots)


def _on_stuck(ctx) -> bool:
    from .control.barriers import release_barriers

    progressed = release_barriers(ctx) | cluster_ops.release_cluster_barriers(ctx)
    if not progressed and ctx.hooks is not None:
        progressed = ctx.hooks.stuck(ctx)
    return progressed


def _scalar_bytes(ptx_type: str, value, where: str) -> bytes:
    dt = numpy_dtype(ptx_type)
    if ptx_type == "pred":
        return np.uint8(bool(value)).tobytes()
    if isinstance(value, np.generic):
        if value.dtype.itemsize * 8 != bits_of(ptx_type) and not (dt.kind == "f" and value.dtype.kind == "f"):
            if dt.kind in "ui" and value.dtype.kind in "ui":
                value = int(value)
            else:
                raise LaunchError(f"{where}: a {value.dtype} value does not fit .{ptx_type}")
        else:
            return np.asarray(value).astype(dt).tobytes() if dt.kind == "f" else np.asarray(value).view(np.dtype(f"u{dt.itemsize}")).tobytes()
    if isinstance(value, bool):
        value = int(value)
    if value is None and dt.kind in "ui" and bits_of(ptx_type) == 64:  # a null pointer (C's NULL)
        value = 0
    if isinstance(value, int):
        bits = bits_of(ptx_type)
        if dt.kind == "f":
            return dt.type(value).tobytes()
        lo = -(1 << (bits - 1)) if dt.kind == "i" else 0
        hi = (1 << bits) - 1 if ptx_type[0] in "ub" else (1 << (bits - 1)) - 1
        if ptx_type[0] == "b":
            lo = -(1 << (bits - 1))
        if not lo <= value <= hi:
            raise LaunchError(f"{where}: {value} is out of range for .{ptx_type}")
        return (value & ((1 << bits) - 1)).to_bytes(bits // 8, "little")
    if isinstance(value, float):
        if dt.kind != "f":
            raise LaunchError(f"{where}: a float given for integer parameter .{ptx_type}")
        return dt.type(value).tobytes()
    raise LaunchError(f"{where}: cannot pass {type(value).__name__} as .{ptx_type}")
