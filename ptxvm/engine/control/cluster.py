"""Thread block clusters (ISA 2.2.2, 5.1.5, 10.x): launch geometry, cluster special registers,
distributed shared memory addresses (mapa, getctarank) and the cluster barrier
(barrier.cluster.arrive / barrier.cluster.wait).

Geometry. A launch's cluster shape comes from `launch(..., cluster=)` or from the kernel's
`.reqnctapercluster` (what `__cluster_dims__` compiles to); a kernel without either runs in
implicit 1x1x1 clusters. Every CTA of a cluster must be resident at once (they may wait on each
other through the cluster barrier and distributed shared memory), so the launcher orders CTAs
cluster by cluster, in rank order, and sizes waves in whole clusters: the CTA slots of a cluster
are consecutive and `slot % cluster_size` is the CTA's %cluster_ctarank.

Distributed shared memory addresses are .shared::cluster addresses as laid out in memory.py
(rank + 1 in the bits above the CTA window; zero there means the executing CTA).

The cluster barrier is the split arrive/wait barrier of ISA 9.7.13.1 over every non-exited thread
of the cluster. Each cluster has a phase counter; an arriving thread records the phase it arrived
in, and the phase completes when every non-exited thread of the cluster has arrived in it. A
`barrier.cluster.wait` passes once the phase its thread arrived in has completed, and otherwise
parks the thread (AT_BARRIER) until it does. Threads that exit without arriving stop counting;
that is noticed when no thread can run (`release_cluster_barriers`, from the launcher's
`on_stuck`), as for the CTA barriers.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ...errors import LaunchError
from ...syntax.constexpr import evaluate
from ..core.machine import AT_BARRIER, EXITED, RUNNABLE, Op
from ..core.memory import CLUSTER_OFFSET_MASK, CLUSTER_RANK_SHIFT, SHARED_WINDOW
from ..core.operands import LoweringError

MAX_CLUSTER = 16  # CTAs per cluster: 8 portable, 16 with the non-portable attribute on sm_90


# ---------------------------------------------------------------------------- launch geometry


def directives(decl) -> dict:
    """A function's header directives: name -> tuple of values (ints where they are constants)."""
    out = {}
    for d in getattr(decl, "directives", ()) or ():
        args = []
        for a in d.args:
            try:
                args.append(int(evaluate(a)) if not isinstance(a, str) else a)
            except Exception:  # noqa: BLE001 - a directive we do not read
                args.append(a)
        out[d.name] = tuple(args)
    return out


_directives = directives


def resolve(decl, grid, cluster) -> tuple[tuple[int, int, int], bool]:
    """(cluster shape, explicit) for a launch of kernel `decl` with launch-time `cluster` (a dim3
    or None). Raises LaunchError where CUDA refuses the launch."""
    d = directives(decl)
    req = d.get("reqnctapercluster")
    if req is not None:
        req = tuple(int(x) for x in req) + (1,) * (3 - len(req))
        if cluster is not None and tuple(cluster) != req:
            raise LaunchError(f"the kernel requires clusters of {req} (.reqnctapercluster), the launch asks for {tuple(cluster)}")
        cluster = req
    if cluster is None:
        if "explicitcluster" in d:
            raise LaunchError("the kernel is declared .explicitcluster: launch it with a cluster shape")
        return (1, 1, 1), False
    cluster = tuple(int(x) for x in cluster)
    size = int(np.prod(cluster))
    if size > MAX_CLUSTER:
        raise LaunchError(f"a cluster of {size} CTAs exceeds the limit of {MAX_CLUSTER}")
    if "maxclusterrank" in d and size > int(d["maxclusterrank"][0]):
        raise LaunchError(f"a cluster of {size} CTAs exceeds the kernel's .maxclusterrank {d['maxclusterrank'][0]}")
    for g, c, axis in zip(grid, cluster, "xyz"):
        if g % c:
            raise LaunchError(f"grid dimension {axis} ({g}) is not a multiple of the cluster dimension ({c})")
    return cluster, True


def cta_order(grid, cluster) -> np.ndarray:
    """Linear CTA ids, cluster after cluster (clusters in x, y, z order), each in rank order."""
    return cta_ids(grid, cluster, 0, int(np.prod(grid, dtype=object)))


def cta_ids(grid, cluster, start: int, stop: int) -> np.ndarray:
    """The linear CTA ids at positions [start, stop) of the launch order (cta_order), computed
    without the whole order: a launch of 2^63 CTAs walks it wave by wave."""
    return cta_ids_at(grid, cluster, np.arange(start, stop, dtype=np.int64))


def cta_ids_at(grid, cluster, pos: np.ndarray) -> np.ndarray:
    """The linear CTA ids at positions `pos` of the launch order."""
    gx, gy, gz = grid
    cx, cy, cz = cluster
    pos = np.asarray(pos, dtype=np.int64)
    size = cx * cy * cz
    if size == 1:
        return pos
    k, r = pos // size, pos % size  # cluster index (x fastest), rank in the cluster (x fastest)
    kx, ky, kz = k % (gx // cx), (k // (gx // cx)) % (gy // cy), k // ((gx // cx) * (gy // cy))
    rx, ry, rz = r % cx, (r // cx) % cy, r // (cx * cy)
    return (kx * cx + rx) + gx * ((ky * cy + ry) + gy * (kz * cz + rz))


def cta_positions(grid, cluster, ids) -> np.ndarray:
    """The positions of linear CTA ids in the launch order (the inverse of cta_ids)."""
    gx, gy, gz = grid
    cx, cy, cz = cluster
    ids = np.asarray(ids, dtype=np.int64)
    if cx * cy * cz == 1:
        return ids
    x, y, z = ids % gx, (ids // gx) % gy, ids // (gx * gy)
    k = x // cx + (gx // cx) * (y // cy + (gy // cy) * (z // cz))
    r = x % cx + cx * (y % cy + cy * (z % cz))
    return k * (cx * cy * cz) + r


def whole_clusters(capacity: int, cluster) -> int:
    size = int(np.prod(cluster))
    return max(size, capacity // size * size)


def fill_sregs(ctx, cta_id: np.ndarray, grid, cluster, explicit: bool, slot: np.ndarray | None = None) -> None:
    """The cluster special registers (ISA 10.12-10.18) of every thread slot; `cta_id` is each
    slot's linear CTA id, or with `slot` (each thread slot's CTA slot) each CTA slot's: the
    values are then computed once per CTA and spread to its threads."""
    gx, gy, _ = grid
    cx, cy, cz = cluster
    s = ctx.sreg
    if cx * cy * cz == 1:  # no clusters: each CTA is its own (the common launch; no per-slot work)
        for c, g in zip("xyz", grid):
            ctaid = s.get(f"%ctaid.{c}")
            s[f"%clusterid.{c}"] = ctaid if ctaid is not None else np.uint32(0)
            s[f"%nclusterid.{c}"] = np.uint32(g)
            s[f"%cluster_ctaid.{c}"] = np.uint32(0)
            s[f"%cluster_nctaid.{c}"] = np.uint32(1)
        s["%cluster_ctarank"] = np.uint32(0)
        s["%cluster_nctarank"] = np.uint32(1)
        s["%is_explicit_cluster"] = np.bool_(explicit)
        ctx.cluster_size = 1
        return
    pos = (cta_id % gx, (cta_id // gx) % gy, cta_id // (gx * gy))
    rank = np.zeros(cta_id.shape, dtype=np.int64)
    scale = 1

    def per_thread(v):
        return v if slot is None else v[slot]

    for c, p, g, k in zip("xyz", pos, grid, cluster):
        if k == 1 and f"%ctaid.{c}" in s:  # one CTA along c: the cluster is the CTA (arrays are only read)
            s[f"%clusterid.{c}"] = s[f"%ctaid.{c}"]
            s[f"%cluster_ctaid.{c}"] = np.uint32(0)
        else:
            s[f"%clusterid.{c}"] = per_thread((p // k).astype(np.uint32))
            s[f"%cluster_ctaid.{c}"] = per_thread((p % k).astype(np.uint32))
        s[f"%nclusterid.{c}"] = np.uint32(g // k)
        s[f"%cluster_nctaid.{c}"] = np.uint32(k)
        rank += (p % k) * scale
        scale *= k
    s["%cluster_ctarank"] = per_thread(rank.astype(np.uint32)) if cx * cy * cz > 1 else np.uint32(0)
    s["%cluster_nctarank"] = np.uint32(cx * cy * cz)
    s["%is_explicit_cluster"] = np.bool_(explicit)
    ctx.cluster_size = cx * cy * cz


def _size(ctx) -> int:
    return getattr(ctx, "cluster_size", 1)


# ---------------------------------------------------------------------------- mapa / getctarank


def _is_generic(m, instr) -> bool:
    mods = m.modifiers if m is not None else instr.modifiers
    return not any(x.startswith("shared") for x in mods)


def _type(m, instr) -> str:
    if m is not None and m.type is not None:
        return m.type.name
    return next((x for x in reversed(instr.modifiers) if x in ("u32", "u64")), "u64")


def lower_mapa(lowerer, instr, m, scope):
    """mapa: the same offset in the shared memory of CTA `b` of the cluster."""
    t = _type(m, instr)
    generic = _is_generic(m, instr)
    dst = lowerer.writer(instr.operands[0], t, scope)
    src = lowerer.reader(instr.operands[1], t, scope)
    rank = lowerer.reader(instr.operands[2], "u32", scope)
    dt = np.dtype(np.uint32 if t == "u32" else np.uint64)
    window = np.uint64(SHARED_WINDOW if generic else 0)

    def run(ctx, lanes):
        a = np.asarray(src(ctx, lanes)).astype(np.uint64)
        r = np.asarray(rank(ctx, lanes)).astype(np.uint64)
        off = (a - window) & np.uint64(CLUSTER_OFFSET_MASK)
        d = window + (((r + np.uint64(1)) << np.uint64(CLUSTER_RANK_SHIFT)) | off)
        dst(ctx, lanes, d.astype(dt))

    return [Op(run)]


def lower_getctarank(lowerer, instr, m, scope):
    """getctarank: the rank of the CTA whose shared memory holds the address."""
    t = _type(m, instr)
    generic = _is_generic(m, instr)
    dst = lowerer.writer(instr.operands[0], "u32", scope)
    src = lowerer.reader(instr.operands[1], t, scope)
    window = np.uint64(SHARED_WINDOW if generic else 0)

    def run(ctx, lanes):
        a = np.asarray(src(ctx, lanes)).astype(np.uint64)
        sel = ((a - window) >> np.uint64(CLUSTER_RANK_SHIFT)).astype(np.int64)
        own = (ctx.cta_slot if lanes is None else ctx.cta_slot[lanes]) % _size(ctx)
        dst(ctx, lanes, np.where(sel == 0, own, sel - 1).astype(np.uint32))

    return [Op(run)]


# ---------------------------------------------------------------------------- barrier.cluster


class _ClusterBarrier:
    def __init__(self, ctx):
        size = _size(ctx)
        self.cluster_of = ctx.cta_slot // size
        n_clusters = int(self.cluster_of.max()) + 1 if ctx.n else 1
        self.phase = np.zeros(n_clusters, dtype=np.int64)
        self.arrived = np.zeros(n_clusters, dtype=np.int64)  # distinct arrivals in the current phase
        self.token = np.full(ctx.n, -1, dtype=np.int64)  # the phase each thread last arrived in
        self.waiting = np.zeros(ctx.n, dtype=bool)
        self._live = None
        self._live_n = -1

    def live(self, ctx) -> np.ndarray:
        if self._live_n != ctx.n_live:
            alive = ctx.status != EXITED
            self._live = np.bincount(self.cluster_of[alive], minlength=self.phase.size)
            self._live_n = ctx.n_live
        return self._live

    def arrive(self, ctx, group: np.ndarray) -> None:
        cl = self.cluster_of[group]
        new = self.token[group] != self.phase[cl]  # a second arrive in one phase is undefined: count once
        self.token[group] = self.phase[cl]
        np.add.at(self.arrived, cl[new], 1)
        self.complete(ctx, np.unique(cl))

    def complete(self, ctx, clusters: np.ndarray) -> bool:
        """Complete the phase of each of `clusters` whose non-exited threads have all arrived."""
        live = self.live(ctx)
        cand = clusters[self.arrived[clusters] >= live[clusters]]
        if cand.size == 0:
            return False
        alive = ctx.status != EXITED
        inside = np.isin(self.cluster_of, cand)
        pending = inside & alive & (self.token != self.phase[self.cluster_of])
        short = np.unique(self.cluster_of[pending])
        done = np.setdiff1d(cand, short)
        if done.size == 0:
            return False
        self.phase[done] += 1
        self.arrived[done] = 0
        wake = np.flatnonzero(self.waiting & np.isin(self.cluster_of, done))
        if wake.size:
            self.waiting[wake] = False
            ctx.status[wake] = RUNNABLE
            ctx.pc[wake] += 1
        return True


def _state(ctx) -> _ClusterBarrier:
    st = ctx.extra.get("cluster_barrier")
    if st is None:
        st = ctx.extra["cluster_barrier"] = _ClusterBarrier(ctx)
    return st


def _split_guard(ctx, op, lanes, pc):
    """(lanes that execute, every lane of the group) after the guard; lanes whose guard fails
    move on. None for `lanes` when the whole uniform wave executes."""
    if op.guard is None:
        return lanes, lanes
    slot, neg = op.guard
    group = ctx.lanes_or_live(lanes)
    g = ctx.regs[slot][group]
    g = ~g if neg else g
    if g.all():
        return lanes, lanes
    ctx.materialize_pcs()
    ctx.pc[group[~g]] = pc + 1
    return group[g], group


def lower_barrier_cluster(lowerer, instr, m, scope):
    mods = set(instr.modifiers)
    if "arrive" in mods:
        op = Op(None, control=True, side_effects=True)

        def arrive(ctx, lanes, pc):
            active, group = _split_guard(ctx, op, lanes, pc)
            act = ctx.lanes_or_live(active)
            if act.size:
                _state(ctx).arrive(ctx, act)
            if group is None:
                ctx.upc = pc + 1
            else:
                ctx.pc[act] = pc + 1

        op.run = arrive
        return [op]
    if "wait" in mods:
        op = Op(None, control=True, side_effects=True)

        def wait(ctx, lanes, pc):
            active, group = _split_guard(ctx, op, lanes, pc)
            st = _state(ctx)
            act = ctx.lanes_or_live(active)
            ready = st.token[act] < st.phase[st.cluster_of[act]]
            if ready.all():
                if group is None:
                    ctx.upc = pc + 1
                else:
                    ctx.pc[act] = pc + 1
                return
            ctx.materialize_pcs()
            ctx.pc[act[ready]] = pc + 1
            parked = act[~ready]
            ctx.status[parked] = AT_BARRIER
            ctx.pc[parked] = pc
            st.waiting[parked] = True

        op.run = wait
        return [op]
    raise LoweringError("barrier.cluster needs .arrive or .wait")


def release_cluster_barriers(ctx) -> bool:
    """Complete cluster phases that exited threads were holding up (when nothing else runs)."""
    st: Optional[_ClusterBarrier] = ctx.extra.get("cluster_barrier")
    if st is None or not st.waiting.any():
        return False
    return st.complete(ctx, np.unique(st.cluster_of[st.waiting]))


LOWERINGS = {
    "mapa": lower_mapa,
    "getctarank": lower_getctarank,
}
