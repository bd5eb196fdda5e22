"""Asynchronous copies and mbarriers, from the trace to the SM model's input.

* cp.async: its global read is a load (engine/trace/info.py gives it a MemInfo, the trace its
  source addresses), so it goes through coalescing, L1/L2/DRAM and their queues as a load does;
  here only its shared-memory write is added: the L1/shared data-stage wavefronts of the
  destination addresses (`copy_write_wavefronts`). The SM model (sm.issue_async) puts its
  completion into the warp's open cp.async group; commit_group closes it; wait_group N waits.
* cp.async.bulk global -> shared (the TMA engine): `bulk_step` turns each copy into the sectors of
  its byte range (one request per copy, the tiles' lines), through L2/DRAM like an L1-bypassing
  load; the SM model queues its lines on the SM's TMA engine and writes them into shared memory.
* mbarriers: `mbarrier_refs` reads, in trace order (a legal execution), which events (arrivals,
  tx updates, bulk copies' complete_tx) each mbarrier received before each test_wait / try_wait;
  the SM model lets a wait go only after that many events on its barrier have issued, and its
  predicate is ready when the last of them has completed.
"""
from __future__ import annotations

import numpy as np

from .memory import CacheOp, Policy, Space, bank_conflicts
from .memory.coalesce import from_sectors
from .sm import DEP_EXEC, MK_BULK, MK_NONE

BULK_ROLES = frozenset(("bulk_load", "bulk_tensor"))
EVENT_ROLES = frozenset(("mbar_event", "cp_mbar_arrive")) | BULK_ROLES


def copy_write_wavefronts(step, act: np.ndarray, size: int):
    """L1/shared data-stage wavefronts of a cp.async's shared-memory write (None: no addresses)."""
    dst = (step.copy or {}).get("dst")
    return None if dst is None else bank_conflicts(dst, act, size)


def _range_sectors(step, act):
    """(sector addresses, their warp, bytes per warp) of cp.async.bulk byte ranges."""
    n = step.warps.size
    src, size = step.copy.get("src"), step.copy.get("size")
    if src is None or size is None:
        return np.zeros(0, np.uint64), np.zeros(0, np.int64), np.zeros(n)
    rows, lanes = np.nonzero(act & (size > 0))
    first = src[rows, lanes] >> np.uint64(5)
    last = (src[rows, lanes] + size[rows, lanes].astype(np.uint64) - np.uint64(1)) >> np.uint64(5)
    count = (last - first + np.uint64(1)).astype(np.int64)
    offs = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
    sectors = (np.repeat(first, count) + offs.astype(np.uint64)) << np.uint64(5)
    return sectors, np.repeat(rows, count), np.bincount(rows, weights=size[rows, lanes], minlength=n)


def _box_sectors(step):
    """The same for tensor copies: the sectors of the box rows' in-bounds elements."""
    boxes = step.copy["boxes"]
    secs = [s for s, _ in boxes]
    warp = np.repeat(np.arange(len(boxes)), [s.size for s in secs])
    sectors = np.concatenate(secs) if secs else np.zeros(0, np.uint64)
    return sectors.astype(np.uint64), warp, np.array([b for _, b in boxes], np.float64)


def bulk_step(hier, p, step, act: np.ndarray, stats):
    """The memory results of a trace step of cp.async.bulk(.tensor) global -> shared copies: each
    warp's copies (usually one lane's) as one request of the sectors of their byte ranges or of
    their tensor boxes' rows."""
    from .trace import MemStep

    n = step.warps.size
    res = MemStep.empty(n)
    res.l2_lines = np.zeros(n, np.int64)
    sectors, warp, bytes_ = _box_sectors(step) if "boxes" in step.copy else _range_sectors(step, act)
    if sectors.size == 0:
        return res
    c = from_sectors(sectors, warp, n)
    hier.load(c, kind=Space.GLOBAL, policy=Policy(op=CacheOp.CG))
    last = hier.last
    res.mkind[:] = np.where(c.requests > 0, MK_BULK, MK_NONE)
    res.latency[:] = np.array([p.lat_l1, p.lat_l2, p.lat_dram], np.float64)[last["level"]]
    res.l2_sectors[:] = last["l2_bytes"] // p.sector
    # DRAM time in sectors, as a load's (trace.py _access): the data, the rows the request opens
    # and the dirty lines its fills push out of the L2 (the cold convention's flush left them)
    res.dram_read[:] = (last["dram_bytes"] // p.sector + last["row_opens"] * (p.dram_row_open_bytes / p.sector)
                        + last["evicted_dirty"])
    res.dram_evicted = np.asarray(last["evicted_dirty"], np.float64)
    res.l2_lines[:] = c.n_lines
    res.wavefronts[:] = np.ceil(bytes_ / 128.0)  # the shared-memory write, 128 B per wavefront
    stats.load_requests += int(c.requests.sum())
    stats.load_sectors += int(c.n_sectors.sum())
    stats.loaded.append(c.sectors)  # this SM's own data, as a load's (profile._share_l2 counts refetches beyond it)
    stats.by_space["bulk"] += int((c.requests > 0).sum())
    return res


def mbarrier_refs(trace, cta_of_row: np.ndarray) -> dict:
    """Per trace step of an mbarrier event or wait: per warp of the step, the barriers an event
    updates (((CTA, offset), ...)) or a wait's (barrier, events on it so far) — in trace order."""
    count: dict = {}
    out: dict = {}
    for k, step in enumerate(trace.steps):
        if step.copy is None or "bar" not in step.copy:
            continue
        role = trace.info(step.pc).asyn
        if role not in EVENT_ROLES and role != "mbar_wait":
            continue
        bar = step.copy["bar"]
        act = (step.active[:, None] >> np.arange(32, dtype=np.uint32)) & np.uint32(1) != 0
        ctas = cta_of_row[step.warps].tolist()
        per_warp: list = []
        for w in range(step.warps.size):
            offs = bar[w][act[w]]
            if offs.size == 0:
                per_warp.append(None)
                continue
            if role == "mbar_wait":
                key = (ctas[w], int(offs[0]))
                per_warp.append((key, count.get(key, 0)))
                continue
            keys = tuple((ctas[w], int(o)) for o in np.unique(offs).tolist())
            for key in keys:
                count[key] = count.get(key, 0) + 1
            per_warp.append(keys)
        out[k] = per_warp
    return out
