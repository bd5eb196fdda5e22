"""Vector clocks for racecheck: the orderings CTA barriers do not express.

mbarrier arrive -> wait, an asynchronous copy -> the wait that completes it, and a fence before a
flag write -> a flag read and a fence after it order some threads of a CTA and not others. Racecheck
follows them with one vector clock per warp over the warps of its CTA (the engine's warp slots
`warp_of = cta_slot * W + warp in CTA`), plus one column per warp for its asynchronous-copy agent:

    vc[g, j]      what warp g has seen of warp j's clock (j < W) or of warp j - W's copies (j >= W)
    vc[g, own]    warp g's own clock: the stamp of its accesses now

An access stores its warp's own clock next to its key (racecheck's `w_clk` / `r_clk`); a later
access by warp g is ordered after it when vc[g, j] >= that stamp. Releases (an arrive, a fence
before a flag write) publish the warp's clock and then advance it, so what the warp does after a
release is not covered; acquires (a wait that found its phase complete, a fence after a flag read)
join what was published into the warp's clock. A CTA barrier joins every warp of the CTA.

* mbarrier: per object (a word of shared memory) the join of the clocks that arrived (`L`); when a
  phase completes, `done` keeps L as it was; a wait that succeeds joins `done`.
* cp.async: a copy is stamped with its warp's agent clock; commit_group advances the agent; wait_group N
  acquires every group but the N newest, wait_all all of them; cp.async.mbarrier.arrive publishes
  the copies issued so far into the object. Bulk copies (complete-tx) publish into their mbarrier.
* Fences and flags: a fence (membar, fence.sc / fence.acq_rel) makes the warp's clock its release
  candidate and acquires what its flag reads saw; an atomic or strong store (.volatile, .relaxed,
  .release) publishes the candidate into its CTA's flag clock; an atomic or strong load observes
  it. One flag clock per CTA, not per address (a flag read orders after every earlier flag write
  of the CTA: no false reports, possibly missed ones).

Granularity: warps, not threads (lanes of one warp are ordered by racecheck's __syncwarp epochs),
and the clocks of other CTAs are not followed (global memory between CTAs stays as racecheck has it).
"""
from __future__ import annotations

import numpy as np

from ...engine.async_copy.mbarrier import phase_of


class SyncClocks:
    def __init__(self, ctx, warps_per_cta: int):
        W = self.W = warps_per_cta
        n_ctas = int(ctx.cta_slot.max()) + 1 if ctx.n else 1
        n = self.n = n_ctas * W
        self.wic = np.arange(n) % W  # warp in CTA
        self.cta = np.arange(n) // W
        self.vc = np.zeros((n, 2 * W), dtype=np.int64)
        self.vc[np.arange(n), self.wic] = 1
        self.acq_self = np.zeros(n, dtype=np.int64)  # the warp's own clock as it came back through an acquire
        self.agent = np.ones(n, dtype=np.int64)  # stamp of the copies a warp issues now
        self.candidate = np.zeros((n, 2 * W), dtype=np.int64)  # released by its next flag write
        self.seen = np.zeros((n, 2 * W), dtype=np.int64)  # flag clocks its flag reads saw
        self.flag = np.zeros((n_ctas, 2 * W), dtype=np.int64)
        self.row_of: dict[int, int] = {}  # mbarrier word -> row of L / done
        self.L = np.zeros((0, 2 * W), dtype=np.int64)
        self.done = np.zeros((0, 2 * W), dtype=np.int64)

    # ---------------------------------------------------------------- stamps
    def warps(self, ctx, lanes) -> np.ndarray:
        return ctx.warp_of[lanes]

    def own(self, warps) -> np.ndarray:
        return self.vc[warps, self.wic[warps]]

    def _tick(self, warps) -> None:
        u = np.unique(warps)
        self.vc[u, self.wic[u]] += 1

    def _acquire(self, warps, clocks) -> None:
        """Join `clocks` (a row per entry of `warps`, repeats allowed) into the warps' clocks. What
        comes back of a warp's own clock orders its own lanes' accesses (`acq_self`)."""
        np.maximum.at(self.vc, warps, clocks)
        np.maximum.at(self.acq_self, warps, clocks[np.arange(warps.size), self.wic[warps]])

    # ---------------------------------------------------------------- CTA barriers
    def barrier(self, cta_slots) -> None:
        """Every warp of the CTAs joins the others' clocks (a completed bar.sync)."""
        W = self.W
        per_cta = self.vc.reshape(-1, W, 2 * W)
        if cta_slots is None:
            joined = per_cta.max(axis=1)
            per_cta[:] = joined[:, None, :]
            sel = np.arange(self.n)
        else:
            c = np.asarray(cta_slots, dtype=np.int64)
            per_cta[c] = per_cta[c].max(axis=1)[:, None, :]
            sel = (c[:, None] * W + np.arange(W)).reshape(-1)
        self.acq_self[sel] = self.vc[sel, self.wic[sel]]
        self.vc[sel, self.wic[sel]] += 1

    # ---------------------------------------------------------------- mbarriers
    def _rows(self, idx) -> np.ndarray:
        rows = np.empty(idx.size, dtype=np.int64)
        for k, word in enumerate(idx.tolist()):  # one entry per object (few), not per thread
            r = self.row_of.get(word)
            if r is None:
                r = self.row_of[word] = len(self.row_of)
                if r >= self.L.shape[0]:
                    grow = max(16, 2 * self.L.shape[0])
                    self.L = np.vstack([self.L, np.zeros((grow, 2 * self.W), np.int64)])
                    self.done = np.vstack([self.done, np.zeros((grow, 2 * self.W), np.int64)])
            rows[k] = r
        return rows

    def _unique_rows(self, idx):
        u, inv = np.unique(np.asarray(idx, dtype=np.int64), return_inverse=True)
        return self._rows(u)[inv]

    def mbarrier(self, ctx, lanes, kind, view, idx, before) -> None:
        if view.size * 8 != ctx.shared.buf.size:  # not this wave's shared memory
            return
        rows = self._unique_rows(idx)
        warps = self.warps(ctx, lanes)
        if kind == "init":
            self.L[rows] = 0
            self.done[rows] = 0
            return
        # a clock means something only in its own CTA: arrivals from other CTAs of a cluster
        # (remote mbarriers) release nothing here
        own = self.cta[warps] == (np.asarray(idx, dtype=np.int64) * 8) // ctx.shared.stride
        if kind == "wait":
            self._acquire(warps[own], self.done[rows[own]])
            return
        if kind == "arrive":
            np.maximum.at(self.L, rows[own], self.vc[warps[own]])
            self._tick(warps)
        elif kind == "async_arrive":  # the lanes' cp.async copies issued so far
            w = warps[own]
            agent = np.zeros((w.size, 2 * self.W), dtype=np.int64)
            agent[np.arange(w.size), self.W + self.wic[w]] = self.agent[w]
            np.maximum.at(self.L, rows[own], agent)
            self.agent[np.unique(warps)] += 1
        completed = phase_of(view[idx]) != phase_of(before)
        if completed.any():
            r = np.unique(rows[completed])
            self.done[r] = self.L[r]

    def copy_into_mbarrier(self, ctx, lanes, view, idx) -> np.ndarray:
        """A bulk copy by `lanes` completing on mbarrier words idx: its stamp (agent clock), published
        into the object before the complete-tx may complete the phase."""
        warps = self.warps(ctx, lanes)
        stamp = self.agent[warps].copy()
        owner = (np.asarray(idx, dtype=np.int64) * 8) // ctx.shared.stride
        if view.size * 8 == ctx.shared.buf.size and (self.cta[warps] == owner).all():  # (else: another CTA's)
            rows = self._unique_rows(idx)
            agent = np.zeros((warps.size, 2 * self.W), dtype=np.int64)
            agent[np.arange(warps.size), self.W + self.wic[warps]] = stamp
            np.maximum.at(self.L, rows, agent)
        self.agent[np.unique(warps)] += 1
        return stamp

    # ---------------------------------------------------------------- cp.async groups
    def async_group(self, ctx, lanes, kind: str, n: int) -> None:
        if kind.startswith("bulk"):
            return
        u = np.unique(self.warps(ctx, lanes))
        col = self.W + self.wic[u]
        if kind == "commit":
            self.agent[u] += 1
        elif kind == "wait":
            self.vc[u, col] = np.maximum(self.vc[u, col], self.agent[u] - 1 - n)
        else:  # wait_all
            self.vc[u, col] = np.maximum(self.vc[u, col], self.agent[u])
            self.agent[u] += 1

    # ---------------------------------------------------------------- fences and flags
    def fence(self, ctx, lanes) -> None:
        u = np.unique(self.warps(ctx, lanes))
        self._acquire(u, self.seen[u])  # what flag reads saw
        self.candidate[u] = self.vc[u]  # release what came before, at the next flag write
        self.vc[u, self.wic[u]] += 1

    def flag_write(self, ctx, lanes, release: bool) -> None:
        u = np.unique(self.warps(ctx, lanes))
        if release:  # st.release / atom.release: a fence, then the write
            self.candidate[u] = self.vc[u]
            self.vc[u, self.wic[u]] += 1
        np.maximum.at(self.flag, self.cta[u], self.candidate[u])

    def flag_read(self, ctx, lanes, acquire: bool) -> None:
        u = np.unique(self.warps(ctx, lanes))
        self.seen[u] = np.maximum(self.seen[u], self.flag[self.cta[u]])
        if acquire:  # ld.acquire / atom.acquire: the read, then a fence
            self._acquire(u, self.seen[u])

    # ---------------------------------------------------------------- the test
    def ordered(self, warps, o_warp_in_cta, o_stamp, o_async) -> np.ndarray:
        """Whether earlier accesses (warp in CTA, stamp, asynchronous) are ordered before an access
        by wave warps `warps` (broadcast against them) of the same CTA; another lane of the
        warp's own earlier access counts as ordered once the warp's clock came back to it."""
        col = np.where(o_async, self.W + o_warp_in_cta, o_warp_in_cta)
        known = self.vc[warps, col]
        own = ~o_async & (o_warp_in_cta == self.wic[warps])
        if own.any():
            known = np.where(own, self.acq_self[warps], known)
        return known >= o_stamp

    def ordered_after_all(self, warps, readers, o_stamp) -> np.ndarray:
        """For reads by several warps (`readers`: a bit per warp in the CTA; `o_stamp`: the highest
        stamp among them, a bound on each one's): whether the warps `warps` acquired at least that
        from every reader. Sound (never orders what is not ordered); exact when the warps' clocks
        move together, as in code where every warp takes part in each synchronization."""
        W = self.W
        flat = np.asarray(warps).reshape(-1)
        known = self.vc[flat, :W].copy()
        known[np.arange(flat.size), self.wic[flat]] = self.acq_self[flat]
        known = known.reshape(np.shape(warps) + (W,))
        bits = ((np.asarray(readers)[..., None] >> np.arange(W)) & 1).astype(bool)
        return np.all(~bits | (known >= np.asarray(o_stamp)[..., None]), axis=-1)
