"""A launch split across workers: decide, shard, run, merge, or run in one process.

`run(launch, workers, executor, on_race)` is what Kernel.launch calls. The result is always the
single-process engine's, bit for bit:
* a kernel whose PTX shows cross-CTA ordering (analysis.py) runs in one process;
* a launch whose estimated work is below `min_work()` runs in one process (splitting would cost
  more than it saves);
* a worker that fails (a fault, anything) makes the whole launch run again in one process, so the
  KernelFault raised is the one the single process raises: which fault a launch reports depends
  on which CTAs share a wave, and only the single process's waves give the single process's answer;
* a merge conflict (merge.py) makes the launch run again in one process; a data race is reported
  (DataRaceWarning, or DataRaceError with on_race="error") naming both CTAs and PTX lines, which
  that run finds by watching the racing byte.
"""
from __future__ import annotations

import os
import time
import warnings

import numpy as np

from ..engine.control import cluster as cluster_ops
from ..engine.core.hooks import LaunchHooks
from ..engine.core.memory import GLOBAL_BASE
from ..errors import DataRaceError, DataRaceWarning, LaunchError
from . import analysis, warmth
from .merge import merge
from .shard import BLOCK

EXECUTORS = ("local", "ray")
DEFAULT_MIN_WORK = 20_000_000  # estimated thread-instructions below which a launch stays in one process


def default_workers() -> int:
    """PTXVM_WORKERS, else every core this process may use."""
    env = os.environ.get("PTXVM_WORKERS", "").strip()
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            raise LaunchError(f"PTXVM_WORKERS={env!r} is not a number of workers") from None
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def min_work() -> int:
    """PTXVM_PARALLEL_MIN_WORK, else DEFAULT_MIN_WORK: the estimated thread-instructions (threads x
    instructions in the kernel's PTX) a launch needs before it is split."""
    env = os.environ.get("PTXVM_PARALLEL_MIN_WORK", "").strip()
    return int(env) if env else DEFAULT_MIN_WORK


def run(launch, workers=None, executor=None, on_race=None):
    """Run `launch` (an engine Launch, arguments already copied to the device) on `workers`
    processes of `executor` ("local" or "ray"); returns its LaunchStats. `on_race` None takes
    PTXVM_ON_RACE, else "warn"."""
    start = time.perf_counter()
    if on_race is None:
        on_race = os.environ.get("PTXVM_ON_RACE", "").strip() or "warn"
    if executor not in (None, *EXECUTORS):
        raise LaunchError(f"executor must be one of {', '.join(EXECUTORS)} (or None), got {executor!r}")
    if on_race not in ("warn", "error"):
        raise LaunchError(f"on_race must be 'warn' or 'error', got {on_race!r}")
    if workers is not None and (not isinstance(workers, (int, np.integer)) or workers < 1):
        raise LaunchError(f"workers must be a positive int, got {workers!r}")
    results = []
    try:
        shards, reason = _plan(launch, workers, executor)
        if not shards:
            return _serial(launch, start, reason)
        progress = launch.progress
        done = [0]

        def on_done(r):
            if progress is not None and r.stats is not None:
                done[0] += r.stats.ctas
                progress(done[0])

        warm_seconds = 0.0
        if executor == "ray":
            from .ray_executor import run_ray

            results = run_ray(launch, shards, on_done)
        else:
            from .. import jit
            from . import pool
            from .local import run_local, start_method

            if _pooled(launch):
                from . import shared_stores

                in_place = shared_stores.enabled() and shared_stores.eligible(launch.module, launch.info.name)
                limit = _worker_limit(launch, len(shards))
                with pool.turn():  # the undo logs are the pool's: replayed (or dropped) before the next launch uses them
                    results = pool.run_pool_now(launch, shards, limit, on_done, in_place)
                    if in_place and any(r.error is not None for r in results):
                        _undo(results)  # memory as the launch began, for the run in one process
                    elif in_place and _overlapped(launch, results):
                        # two shards stored one byte in place: neither value is left to compare.
                        # Memory is back as the launch began; again with private memory per shard
                        # (whose merge compares the values: the same value is no race)
                        results = []
                        done[0] = 0
                        results = pool.run_pool_now(launch, shards, limit, on_done, False)
                    elif in_place:  # final: no atomics to merge, no overlap (merge finds nothing to do)
                        for r in results:
                            r.undo = None
            else:
                pool.unshare(launch.device.memory)  # workers forked now must not share memory with this process
                if jit.enabled():  # plan the compiled tier's fused kernels once here: forked workers inherit it
                    launch.module.lazy_program.prepare_fused()
                results = run_local(launch, shards, on_done)
            warm_seconds = warmth.adopt(launch.module.lazy_program, results)  # what workers compiled: once, here
        failed = [r for r in results if r.error is not None]
        conflict = None if failed else merge(launch.device.memory.arena, results)
        if failed or conflict is not None:
            _undo(results)  # memory as the launch began, for the run in one process
        if failed:
            return _serial(launch, start, f"a worker failed ({failed[0].error}); the launch ran again in one process")
        if conflict is not None:
            return _after_conflict(launch, start, conflict, shards, on_race)
        stats = _sum_stats([r.stats for r in results])
        stats.jit_seconds += warm_seconds
        per_worker: dict = {}  # CPU seconds per process (a pool worker may have run several pieces)
        for r in results:
            key = r.worker if r.worker >= 0 else ("shard", r.index)
            per_worker[key] = per_worker.get(key, 0.0) + r.cpu_seconds
        stats.workers = len(per_worker)
        stats.worker_cpu = tuple(per_worker.values())
        stats.in_process_cpu = sum(r.cpu_seconds for r in results if r.in_process)
        stats.stored_in_place = any(r.stored_in_arena for r in results)
        for r in results:
            r.undo = None  # merged: nothing to put back any more
        return launch.finish(stats, [], start, unchanged=_unchanged_copies(launch, results))
    except BaseException:
        _undo(results)
        launch._discard()
        raise


def _overlapped(launch, results) -> bool:
    """Whether shards that stored in place stored one byte (merge's Conflict.overlap); memory is
    then put back as the launch began."""
    if any(r.error is not None for r in results):
        return False
    from .merge import _plain_conflict

    conflict = _plain_conflict(results)
    if conflict is None or conflict.kind != "overlap":
        return False
    _undo(results)
    return True


def _worker_limit(launch, n: int) -> int:
    """The device budget's limit for each of `n` shards: what is used, plus its share of what is free."""
    budget = launch.device.budget
    return budget.limit - budget.free + max(0, budget.free) // max(1, n)


def _undo(results) -> None:
    """Put back what a shard run here in place stored (memory as the launch began), once."""
    for r in results:
        if r.undo is not None:
            undo, r.undo = r.undo, None
            undo()


def _plan(launch, workers, executor):
    """(shards as launch-order position ranges, or [] and why the launch runs in one process)."""
    if workers is None:
        if executor == "ray":
            from .ray_executor import ensure_ray

            workers = max(1, int(ensure_ray().cluster_resources().get("CPU", 1)))
        else:
            workers = default_workers()
    if workers <= 1 and executor != "ray":
        return [], ""
    if launch.hooks is not None or launch.tracer is not None:
        return [], "a tool observes the launch"
    if launch.only_ctas is not None:
        return [], "only_ctas runs a sample of CTAs"
    if launch.max_instructions is not None:
        return [], "max_instructions counts over the whole launch"
    reasons, objects, per_thread = analysis.facts(launch.module, launch.info.name)
    size = int(np.prod(launch.cluster))
    total = int(np.prod(launch.grid, dtype=object))
    clusters = total // size
    work = total * launch.threads_per_cta * per_thread
    if executor != "ray" and work < min_work():
        return [], f"small launch (about {work} thread-instructions; splitting starts at {min_work()})"
    if reasons:
        return [], "; ".join(reasons)
    if objects and (executor == "ray" or _spawning()):
        return [], "texture and surface objects stay in this process (workers that are not forked have no copy)"
    n = min(int(workers), clusters)
    if n <= 1:
        return [], "one worker" if workers <= 1 else ("one cluster of CTAs" if size > 1 else "one CTA")
    bounds = [k * clusters // n * size for k in range(n + 1)]
    return [(bounds[k], bounds[k + 1]) for k in range(n)], ""


def _unchanged_copies(launch, results) -> set:
    """Indices of the launch's argument copies that no worker wrote a byte of: copying them back
    would write the host array's own bytes again. A host array that may share memory with another
    argument's is copied back regardless (the copies' order decides the overlap's bytes)."""
    hosts = [host for host, _ in launch.copies]
    out = set()
    for i, (host, dev) in enumerate(launch.copies):
        if any(j != i and np.may_share_memory(host, other) for j, other in enumerate(hosts)):
            continue
        lo = dev.address - GLOBAL_BASE
        hi = lo + dev.nbytes
        if not any(_touches(r, lo, hi) for r in results):
            out.add(i)
    return out


def _touches(r, lo: int, hi: int) -> bool:
    """Whether a shard's write set (stored blocks, atomic locations) meets arena bytes [lo, hi)."""
    if r.runs.size:  # runs [first, end) of whole blocks
        k = int(np.searchsorted(r.runs[:, 1], lo // BLOCK, side="right"))
        if k < r.runs.shape[0] and int(r.runs[k, 0]) * BLOCK < hi:
            return True
    if r.blocks.size:
        k = int(np.searchsorted(r.blocks, lo // BLOCK))
        if k < r.blocks.size and int(r.blocks[k]) * BLOCK < hi:
            return True
    if r.atom_offsets.size:
        k = int(np.searchsorted(r.atom_offsets, lo - 16))  # an atomic is at most 16 bytes wide
        return k < r.atom_offsets.size and int(r.atom_offsets[k]) < hi
    return False


def _spawning() -> bool:
    """Whether local workers get the launch as an image (spawned), not by forking."""
    from .local import start_method

    return start_method() == "spawn"


def _pooled(launch) -> bool:
    """Whether the persistent pool runs this launch: enabled, forking available, and no texture or
    surface objects (they live in this process's device registry, which the pool's workers, forked
    before the objects were made, lack: such launches are forked per launch instead)."""
    from . import pool
    from .local import start_method

    return pool.enabled() and start_method() == "fork" and not analysis.facts(launch.module, launch.info.name)[1]


def _serial(launch, start, reason, hooks=None):
    if hooks is not None:
        launch.hooks = hooks
    stats, printf = launch.execute()
    stats = launch.finish(stats, printf, start)
    stats.serial_reason = reason
    return stats


def _sum_stats(parts):
    from ..engine.launch import LaunchStats

    s = LaunchStats(0, 0, 0.0)
    for p in parts:
        s.thread_instructions += p.thread_instructions
        s.warp_instructions += p.warp_instructions
        s.ctas += p.ctas
        s.threads += p.threads
        s.waves += p.waves
        s.pm_events += p.pm_events
        s.max_registers = max(s.max_registers, p.max_registers)
        s.jit_seconds = max(s.jit_seconds, p.jit_seconds)  # the workers compile side by side
    return s


def _after_conflict(launch, start, conflict, shards, on_race):
    if conflict.kind != "race":
        return _serial(launch, start, f"{conflict.reason}: the launch ran again in one process")
    watch = _RaceWatch([GLOBAL_BASE + o for o in conflict.offsets])
    launch.hooks = watch
    try:
        stats, printf = launch.execute()
    finally:
        launch.hooks = None
    message = watch.report(launch, conflict, shards)
    if on_race == "error":
        launch._discard()
        raise DataRaceError(message)
    warnings.warn(message, DataRaceWarning, stacklevel=4)
    stats = launch.finish(stats, printf, start)
    stats.serial_reason = "data race between CTAs: the launch ran again in one process"
    return stats


class _RaceWatch(LaunchHooks):
    """Notes which CTAs (and PTX lines) store to a few watched global bytes."""

    def __init__(self, addresses):
        self.addresses = np.array(addresses, dtype=np.uint64)
        self.op = None
        self.writers: list[tuple[int, object]] = []  # (CTA linear id, op), first store of each CTA

    def issue(self, ctx, pc, op, lanes):
        self.op = op

    def access(self, ctx, lanes, addr, size, acc, kind, values=None):
        if kind == "read" or not addr.size:
            return None
        a = addr.astype(np.uint64)[:, None]
        hit = ((a <= self.addresses[None, :]) & (self.addresses[None, :] < a + np.uint64(size))).any(axis=1)
        if hit.any():
            seen = {c for c, _ in self.writers}
            for cta in np.unique(ctx.cta_linear[lanes[hit]]):
                if int(cta) not in seen:
                    self.writers.append((int(cta), self.op))
        return None

    def report(self, launch, conflict, shards) -> str:
        gx, gy, _ = launch.grid
        address = int(self.addresses[0])
        alloc = launch.device.memory.find(address)
        where = f"0x{address:x}"
        if alloc is not None:
            where += f" ({_argument_name(launch, alloc.base) or alloc.label or 'an allocation'} + {address - alloc.base})"

        def name(cta, op):
            xyz = (cta % gx, (cta // gx) % gy, cta // (gx * gy))
            line = f"{op.file}:{op.line}: {op.text}" if op is not None and op.line else "a bulk or tensor copy"
            return f"CTA {xyz} ({line})"

        # prefer one writer from each of the two shards whose write sets collided
        starts = [a for a, _ in shards]
        pos = cluster_ops.cta_positions(launch.grid, launch.cluster, [c for c, _ in self.writers]) if self.writers else []
        shard_of = [int(np.searchsorted(starts, p, side="right")) - 1 for p in pos]
        chosen = []
        for s in conflict.shards:
            k = next((k for k, sh in enumerate(shard_of) if sh == s and k not in chosen), None)
            if k is not None:
                chosen.append(k)
        chosen += [k for k in range(len(self.writers)) if k not in chosen]
        who = [name(*self.writers[k]) for k in chosen[:2]]
        if len(who) < 2:
            who.append("another CTA (through a copy the watch does not see)")
        return (f"data race in kernel '{launch.info.name}': {who[0]} and {who[1]} store different values to global "
                f"byte {where} without atomics; the result is the single-process run's")


def _argument_name(launch, base: int):
    """'argument i (name)' of the pointer parameter holding `base`, if one does."""
    for i, p in enumerate(launch.info.params):
        if p.size == 8 and not p.decl.array and int.from_bytes(launch.kparams[p.offset:p.offset + 8], "little") == base:
            return f"argument {i} ({p.name})"
    return None
