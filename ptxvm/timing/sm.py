"""One streaming multiprocessor, cycle by cycle where something happens.

The SM runs the CTAs given to it (up to `ctas_per_sm` at once; a finished CTA's slot takes the
next one after `cta_launch` cycles). Each resident warp sits in one of four sub-partitions
(scheduler id = hardware warp slot % 4). Every cycle each sub-partition's scheduler issues at
most one instruction from an eligible warp, chosen by the policy:

* "gto" (greedy then oldest): the warp that issued last, while it stays eligible; else the oldest;
* "lrr" (loose round robin): the next eligible warp after the one that issued last.

A warp is eligible when its next instruction is fetched (a taken branch costs `fetch_redirect`
cycles), it is not waiting at a barrier or sleeping, its operands are ready (scoreboard: RAW on
the registers it reads, WAW on those it writes), the functional-unit pipe of its class on its
sub-partition accepts an instruction (issue interval), and for memory instructions the SM's L1
queue is not backed up (memory throttle). Each cycle every resident warp is in exactly one state:
"selected" (it issued) or one stall reason (see STALL_REASONS); the simulation jumps over cycles
where nothing changes and charges the skipped cycles to each warp's state at once.

Memory instructions occupy the SM-wide L1/shared data stage for their wavefronts (bank conflicts,
sectors), then L2 and DRAM bandwidth servers (this SM's share: the GPU's bandwidth divided by the
number of active SMs). A load's result is ready after its level's latency plus the time it queued.
"""
from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field

import numpy as np

from .atomics import line_contention, slice_contention, slice_of
from .icache import InstructionCache, previous_path
from .memory.dram import slowest_of

STALL_REASONS = ("selected", "not_selected", "pipe_busy", "instruction_fetch", "synchronization",
                 "memory_throttle", "memory_dependency", "execution_dependency", "sleeping", "texture",
                 "constant", "wait")
(SELECTED, NOT_SELECTED, PIPE_BUSY, FETCH, SYNC, THROTTLE, MEM_DEP, EXEC_DEP, SLEEPING, TEXTURE,
 CONSTANT, WAIT) = range(len(STALL_REASONS))

# what a register's pending producer makes a waiting consumer stall on: "wait" for a fixed-latency
# result (ALU, FMA, IMAD, DFMA, HFMA2, HMMA: ptxas's stall counts), "execution_dependency" for a
# variable-latency one behind a dependency barrier (shared memory, shuffles, MUFU, S2R: ncu's
# short scoreboard), "memory_dependency" for global/local memory (long scoreboard)
DEP_EXEC, DEP_MEM, DEP_CONST, DEP_TEX, DEP_WAIT = EXEC_DEP, MEM_DEP, CONSTANT, TEXTURE, WAIT

# memory kinds of a warp-instruction (SmWork.mkind)
MK_NONE, MK_GLOBAL, MK_SHARED, MK_CONST, MK_TEX, MK_STORE, MK_ATOMIC, MK_BULK = range(8)


class PartKeys(tuple):
    """The L1 sector keys of a warp-matrix load (wmma.load: several LDGs), one tuple of
    (key, level, dram) per machine load: each is a request of its own, with its own slowest-of-n
    DRAM tail (SmSim.load_sectors); the instruction's data is back when the last one is."""


# asynchronous units (SmWork.asyn): warpgroup MMA (wgmma.mma_async, commit_group, wait_group);
# cp.async (the copy, commit_group, wait_group / wait_all, cp.async.mbarrier.arrive); bulk copies
# global -> shared (the TMA engine); mbarrier arrivals / tx updates (events) and test/try_wait
ASYNC_MMA, ASYNC_COMMIT, ASYNC_WAIT = 1, 2, 3
ASYNC_CP, ASYNC_CP_COMMIT, ASYNC_CP_WAIT, ASYNC_CP_MBAR, ASYNC_BULK, ASYNC_MBAR_EVENT, ASYNC_MBAR_WAIT = range(4, 11)
# cluster barriers (SmWork.cluster_bar): barrier.cluster.arrive.relaxed, barrier.cluster.arrive (release
# semantics: a fence before the arrival), barrier.cluster.wait
CL_ARRIVE_RELAXED, CL_ARRIVE, CL_WAIT = 1, 2, 3


@dataclass
class SmWork:
    """The instruction streams of the warps one SM runs, ready for `simulate`.

    Per warp (index w): `cta_of[w]` (position of its CTA in `cta_order`), `start[w]:end[w]` its
    warp-instructions in the flat arrays below, in program order.
    Per warp-instruction (flat index i): pipe id, issue cycles on the pipe, result latency (for
    memory instructions: the latency of the level that served it), registers read and written
    (small ints), result kind (DEP_*), flags, and for memory instructions: L1 wavefronts, L2 and
    DRAM sectors (reads and writes), memory kind (MK_*).
    """

    cta_order: list[int]  # CTA ids in the order the SM runs them
    warps_of_cta: list[list[int]]
    start: list[int]
    end: list[int]
    pipe: list[int]
    issue: list[float]
    latency: list[int]
    reads: list[tuple]
    writes: list[tuple]
    dep_kind: list[int]
    barrier: list[bool]
    taken: list[bool]  # the next instruction of the warp is not at pc+1
    sleep: list[int]
    bank_extra: list[int]
    mkind: list[int]
    wavefronts: list[int]
    l2_sectors: list[int]
    dram_read: list[int]
    dram_write: list[float]
    n_pipes: int
    keys: list = field(default_factory=list)  # per warp-instruction: L1 sector generations (trace.Fills) or None
    atom_lines: list = field(default_factory=list)  # global atomics: ((line, packets, float op), ...) or None
    ctrl: list = field(default_factory=list)  # branches, barriers, fences, sleeps: nothing moves across them
    # loads: the dirty sectors their L2 fills evicted (in dram_read too); empty when none did
    dram_evicted: list = field(default_factory=list)
    issue_lsu: list = field(default_factory=list)  # LSU-pipe instructions without trace addresses (kept in order)
    level_latency: tuple = (0, 0, 0)  # L1 hit, L2 hit, DRAM latency
    pc: object = None  # per warp-instruction: its PC (a NumPy array; for timelines, see `recorder`)
    # warpgroup MMA groups: per warp-instruction ASYNC_* (or 0) and its argument (completion
    # latency of a wgmma.mma_async, N of a wait_group); empty when the kernel has none
    asyn: list = field(default_factory=list)
    l2_lines: list = field(default_factory=list)  # loads: 128-B lines of the request sent to L2
    pipe_names: list = field(default_factory=list)  # name of each pipe id (for the utilization report)
    async_arg: list = field(default_factory=list)
    # mbarriers (timing/asyncs.py): per warp-instruction, for events (arrivals, tx updates, bulk
    # copies) the barriers they update, ((CTA, offset), ...); for waits ((CTA, offset), events on it
    # before the wait in the trace); None for anything else
    mbar: list = field(default_factory=list)
    # cluster barriers: per warp-instruction CL_* (or 0), empty when the kernel has none; the
    # launch's CTAs per cluster (the cluster barrier's cost grows with it)
    cluster_bar: list = field(default_factory=list)
    # per warp-instruction: True for a ULDC that brings a line from the constant L1.5: its warp
    # issues nothing until the data is back ("constant", ncu's imc_miss); empty when none
    holds: list = field(default_factory=list)
    cluster_size: int = 1
    # issue slots per warp-instruction: the machine instructions its PTX form expands to
    # (engine/trace/expansion.py); empty: one each
    slots: list = field(default_factory=list)
    # per warp-instruction: the 128-B line of its machine code (timing/icache.py); empty when the
    # kernel's code fits in the first-level instruction cache
    code_line: list = field(default_factory=list)


@dataclass
class SmResult:
    cycles: int
    stalls: np.ndarray  # warp-cycles per STALL_REASONS entry
    issued: int
    warp_cycles_resident: float  # sum over cycles of resident warps
    cta_finish: list[int] = field(default_factory=list)
    l1_busy: float = 0.0
    l2_busy: float = 0.0
    dram_busy: float = 0.0
    pipe_busy: dict = field(default_factory=dict)  # pipe name -> issue cycles of the busiest sub-partition ("issue": issues)
    barrier_busy: float = 0.0  # cycles the barrier unit took arrivals


INF = float("inf")


class _Warp:
    __slots__ = ("w", "cta", "slot", "sub", "pos", "end", "ready", "ready_kind", "fetch", "sleep", "at_bar",
                 "regs", "done", "last_mem", "reason", "until", "since", "cand", "ahead", "la_key", "la_best",
                 "grp_open", "groups", "cp_open", "cp_groups", "blocked", "cl_arrived", "cl_waited", "cl_until",
                 "const_until", "loop_until", "dram_fills")

    def __init__(self, w: int, cta: int, slot: int, sub: int, start: int, end: int, now: float):
        self.w = w
        self.cta = cta
        self.slot = slot
        self.sub = sub
        self.pos = start
        self.end = end
        self.ready = 0.0  # operands of the next instruction are ready at
        self.ready_kind = EXEC_DEP
        self.fetch = now  # the next instruction is fetched at
        self.sleep = 0.0
        self.at_bar = False
        self.regs: dict = {}  # register -> (ready time, DEP_* kind of its producer)
        self.done = False
        self.last_mem = 0.0  # completion of its latest memory access (a CTA ends when they drain)
        # stall accounting: the state last seen, the cycle it lasts until, the first cycle not yet charged
        self.reason = FETCH
        self.until = now
        self.since = now
        self.cand = start  # the instruction it issues next (set by SmSim.state)
        self.ahead: set = set()  # positions past `pos` already issued (SmSim.lookahead)
        self.la_key = None  # (pos, issued ahead) of the last fruitless lookahead, and when to retry
        self.la_best = 0.0
        self.grp_open = 0.0  # completion of the wgmmas issued since the last commit_group
        self.groups: list = []  # completion of each committed wgmma group, oldest first
        self.cp_open = 0.0  # the same for cp.async copies and their groups
        self.cp_groups: list = []
        self.blocked = None  # an mbarrier wait whose events have not all issued yet: its barrier
        # cluster barriers: arrivals and waits issued so far (the k-th wait needs the k-th phase),
        # and the cycle its fenced arrival or its wait holds it until ("synchronization")
        self.cl_arrived = 0
        self.cl_waited = 0
        self.cl_until = 0.0
        self.const_until = 0.0  # a ULDC's line fetch holds the warp until then
        self.loop_until = 0.0  # a CAS loop of a shared atomic holds it until then (SmSim.cas_loop)
        # the DRAM fills its loads started that may still be in flight: (cycle the fill is back,
        # its distinct 128-B lines); a new load waits for the slowest line of them all (load_sectors)
        self.dram_fills: list = []


class SmSim:
    """The state of one SM while it runs `work` (see the module docstring)."""

    def __init__(self, work: SmWork, *, ctas_per_sm: int, subpartitions: int, policy: str, barrier_latency: int,
                 l2_bytes_per_clk: float, dram_bytes_per_clk: float, sector: int, params, max_warps: int = 64,
                 barrier_per_warp: float = 0.0, cta_dispatch: float = 0.0, recorder=None, atomic_lines=None,
                 l1_lines: int = 0, cold: bool = False):
        if policy not in ("gto", "lrr"):
            raise ValueError(f"unknown warp scheduling policy {policy!r} (use 'gto' or 'lrr')")
        self.w = work
        self.gto = policy == "gto"
        self.S = subpartitions
        self.params = params
        self.barrier_latency = barrier_latency + params.barrier_extra
        self.window = params.issue_window
        self.barrier_per_warp = barrier_per_warp
        # optional (timing/perfetto.py): told each warp's charged intervals and issues; None costs
        # one test per charge and per issue
        self.recorder = recorder
        self.l2_cyc = sector / max(l2_bytes_per_clk, 1e-9)
        self.dram_cyc = sector / max(dram_bytes_per_clk, 1e-9)
        self.tail_cycles = params.dram_tail_cycles
        self.tail_per_warp = params.dram_tail_per_warp
        self.pipe_free = [[0.0] * work.n_pipes for _ in range(subpartitions)]
        self.pipe_busy = [[0.0] * work.n_pipes for _ in range(subpartitions)]
        # the warp that last issued to each pipe: a warp waiting for a pipe it holds itself waits on
        # its own instruction's stall count in SASS (ncu "wait"), for another warp's: "pipe busy"
        self.pipe_owner = [[None] * work.n_pipes for _ in range(subpartitions)]
        self.issued_sub = [0] * subpartitions
        self.sub_free = [0.0] * subpartitions  # a sub-partition still issuing a form's further SASS
        self.sub_warps: list[list[_Warp]] = [[] for _ in range(subpartitions)]
        self.last_issued: list = [None] * subpartitions
        self.stalls = [0.0] * len(STALL_REASONS)
        self.l1_free = self.l2_free = self.dram_free = 0.0
        self.l1_busy = self.l2_busy = self.dram_busy = 0.0
        self.fills: dict = {}  # sector generation -> cycle its data is in L1
        # L1 lines held by misses in flight (a heap of the cycles their fills are back), at most
        # `l1_lines` (the L1 beside the carveout; 0: no limit; ModelParams.l1_miss_lines)
        self.l1_lines = l1_lines
        self.in_flight: list = []
        self.req_free = 0.0  # the L1's miss path: one 128-B line request to L2 per l2_request_cycles
        self.const_free = 0.0  # the constant cache port
        self.dram_util = 0.0  # recent DRAM utilization (decaying busy time / window)
        self.dram_wb_util = 0.0  # the same for the write-backs among it (dram_writeback_latency)
        self.dram_last = 0.0
        self.tma_free = 0.0  # the TMA engine: one 128-B line request per tma_line_cycles
        self.mbar: dict = {}  # (CTA, offset) -> [events issued, when the last completes, arrival unit free]
        self.mbar_waiters: dict = {}  # (CTA, offset) -> warps blocked on it (see _Warp.blocked)
        # global atomics (timing/atomics.py): when each L2 slice's atomic unit and each line (float
        # updates of one word) is free; packets per line of this SM and of the whole grid
        self.slice_free: dict = {}
        self.line_free: dict = {}
        self.cas_free: dict = {}  # shared word -> cycle its CAS-loop updates so far are done (cas_loop)
        own, grid = atomic_lines if atomic_lines is not None else ({}, {})
        self.atomic_lines = (own, grid or own)
        self.slice_scale = slice_contention(own, grid, params.l2_atomic_slices)
        self.icache = None  # the instruction caches, for kernels whose code overflows the first level
        if work.code_line:
            first = next((w for w in range(len(work.start)) if work.start[w] < work.end[w]), 0)
            path = previous_path(work.code_line, work.start[first], work.end[first]) if work.start else []
            self.icache = InstructionCache(params, cold, max(work.code_line), path)
        self.pending = list(range(len(work.cta_order)))[::-1]  # CTA positions not yet launched
        self.slot_open = [0.0] * min(ctas_per_sm, len(self.pending))  # when free CTA slots open
        # the GPU's CTA dispatcher hands out one CTA per `cta_dispatch_cycles` over all active SMs:
        # this SM gets its next CTA no sooner than `cta_dispatch` cycles after the previous one
        self.cta_dispatch = cta_dispatch
        self.next_dispatch = 0.0
        self.bar_busy = 0.0
        self.bar_free = 0.0  # the SM's barrier unit: takes one warp arrival per barrier_arrival_cycles
        self.bar_last: dict = {}  # CTA -> when the unit has taken its last arrival at the current barrier
        # cluster barriers (`cluster_barrier`): per CTA, per phase [arrivals, last arrival taken,
        # release cycle or None]; the warps blocked in a wait, by (CTA, phase); the SM's fence unit
        self.cl_phases: dict = {}
        self.cl_waiters: dict = {}
        self.fence_free = 0.0
        self.warp_slots = list(range(max_warps))
        self.cta_warps: dict[int, list[_Warp]] = {}
        self.cta_finish = [0] * len(work.cta_order)
        self.t = 0.0
        self.issued = 0
        self.resident = 0.0
        self.n_live = 0

    # ------------------------------------------------------------------ CTAs
    def launch_ready(self) -> None:
        while self.pending and self.slot_open and min(self.slot_open) <= self.t and self.next_dispatch <= self.t:
            self.slot_open.remove(min(self.slot_open))
            self.next_dispatch = self.t + self.cta_dispatch
            c = self.pending.pop()
            ws = []
            for w in self.w.warps_of_cta[c]:
                if self.w.start[w] >= self.w.end[w]:
                    continue
                slot = self.warp_slots.pop(0)
                wp = _Warp(w, c, slot, slot % self.S, self.w.start[w], self.w.end[w], self.t)
                if self.icache is not None:
                    wp.fetch = max(self.t, self.icache.fetch(self.w.code_line[wp.pos], self.t))
                self.head_ready(wp)
                ws.append(wp)
                self.sub_warps[wp.sub].append(wp)
                self.n_live += 1
            self.cta_warps[c] = ws
            if not ws:
                self.finish_cta(c, self.t)

    def next_launch(self) -> float:
        """When the next pending CTA can start: a free slot and the dispatcher's turn."""
        return max(min(self.slot_open), self.next_dispatch)

    def finish_cta(self, c: int, when: float) -> None:
        self.cta_finish[c] = int(round(when))
        del self.cta_warps[c]
        self.slot_open.append(when + self.params.cta_launch)

    def retire(self, wp: _Warp, when: float) -> None:
        wp.done = True
        self.n_live -= 1
        self.sub_warps[wp.sub].remove(wp)
        self.warp_slots.append(wp.slot)
        self.warp_slots.sort()
        ws = self.cta_warps[wp.cta]
        if all(x.done for x in ws):
            self.finish_cta(wp.cta, max([when] + [x.last_mem for x in ws]))
        else:
            self.check_barrier(wp.cta, when)
            if wp.cta in self.cl_phases:  # an exited warp counts as arrived, when it exits
                self.cluster_complete(wp.cta, when, exited=True)

    def check_barrier(self, c: int, when: float) -> None:
        ws = self.cta_warps.get(c)
        if not ws:
            return
        waiting = [x for x in ws if not x.done]
        if waiting and all(x.at_bar for x in waiting):
            last = self.bar_last.pop(c, when)
            release = max(when, last) + self.barrier_latency + self.barrier_per_warp * (len(ws) - 1)
            for x in waiting:
                x.at_bar = False
                if x.fetch < release:
                    x.fetch = release
                self.charge(x, when)
                x.reason, x.until = SYNC, release

    # ------------------------------------------------------------------ warps
    def head_ready(self, wp: _Warp) -> None:
        """Scoreboard: when the registers the next instruction reads (RAW) and writes (WAW) are ready."""
        i = wp.pos
        best, kind = 0.0, EXEC_DEP
        regs = wp.regs
        for r in self.w.reads[i]:
            got = regs.get(r)
            if got is not None and got[0] > best:
                best, kind = got
        for r in self.w.writes[i]:
            got = regs.get(r)
            if got is not None and got[0] > best:
                best, kind = got
        a = self.w.asyn[i] if self.w.asyn else 0
        if a == ASYNC_WAIT:  # wait_group N: all but the newest N groups
            n = int(self.w.async_arg[i])
            gs = wp.groups
            if len(gs) > n:
                done = max(gs[:len(gs) - n])
                wp.groups = gs[len(gs) - n:] if n else []
                if done > best:
                    best, kind = done, EXEC_DEP
        elif a == ASYNC_CP_WAIT:  # cp.async.wait_group N (wait_all: N = -1, the open copies too)
            done = self._cp_wait(wp, int(self.w.async_arg[i]))
            if done > best:
                best, kind = done, MEM_DEP
        elif a == ASYNC_MBAR_WAIT:
            key, need = self.w.mbar[i]
            st = self.mbar.get(key)
            if (st[0] if st else 0) < need:  # an event it waits for has not issued yet
                wp.blocked = key
                self.mbar_waiters.setdefault(key, []).append(wp)
        wp.ready = best
        wp.ready_kind = kind

    def _cp_wait(self, wp: _Warp, n: int) -> float:
        """When the cp.async groups a wait_group n (n < 0: wait_all) waits for are complete."""
        gs = wp.cp_groups
        if n < 0:
            done = max(gs + [wp.cp_open])
            wp.cp_groups, wp.cp_open = [], 0.0
            return done
        if len(gs) <= n:
            return 0.0
        done = max(gs[:len(gs) - n])
        wp.cp_groups = gs[len(gs) - n:] if n else []
        return done

    def mbar_event(self, keys, when: float, t: float) -> None:
        """An arrival, tx update or bulk copy on the mbarriers `keys`, complete at `when`; wakes
        the warps whose waits it satisfies."""
        p = self.params
        for key in keys:
            st = self.mbar.get(key)
            if st is None:
                st = self.mbar[key] = [0, 0.0, 0.0]
            # the object takes one update per mbar_arrive_cycles (micro2 async: mbar round trips)
            at = st[2] if st[2] > when else when
            st[2] = at + p.mbar_arrive_cycles
            st[0] += 1
            if at > st[1]:
                st[1] = at
            waiters = self.mbar_waiters.get(key)
            if waiters:
                still = []
                for wp in waiters:
                    if st[0] >= self.w.mbar[wp.pos][1] or wp.done:
                        self.unblock(wp, t)
                    else:
                        still.append(wp)
                self.mbar_waiters[key] = still

    def unblock(self, wp: _Warp, t: float) -> None:
        wp.blocked = None
        self.charge(wp, t)
        wp.reason, wp.until = SYNC, t + 1

    def state(self, wp: _Warp, t: float, pf: list) -> tuple[int, float]:
        """(stall reason, cycle it lasts until) of a warp at cycle t; NOT_SELECTED: eligible, and
        `wp.cand` is the instruction it would issue (the head, or one found by `lookahead`)."""
        if wp.at_bar or wp.blocked is not None:
            return SYNC, INF
        if wp.cl_until > t:
            return SYNC, wp.cl_until
        if wp.const_until > t:
            return CONSTANT, wp.const_until
        if wp.loop_until > t:  # in a CAS loop: waiting on its LDS / ATOMS results
            return EXEC_DEP, wp.loop_until
        if wp.fetch > t:
            return FETCH, wp.fetch
        if wp.sleep > t:
            return SLEEPING, wp.sleep
        i = wp.pos
        if wp.ready > t:
            reason, until = wp.ready_kind, wp.ready
        else:
            reason, until = self.resources(i, t, pf, wp)
            if reason == NOT_SELECTED:
                wp.cand = i
                return reason, until
        if self.window and not self.w.ctrl[i]:
            j, u = self.lookahead(wp, t, pf)
            if j >= 0:
                wp.cand = j
                return NOT_SELECTED, t + 1
            if u < until:
                until = u
        return reason, until

    def resources(self, i: int, t: float, pf: list, wp=None) -> tuple[int, float]:
        """Whether instruction i's pipe (and for memory instructions the L1 queue) takes it at t.
        A pipe still busy with the same warp's previous instruction is "wait": ptxas gives that
        instruction a stall count covering the pipe's issue interval (consecutive IMADs of a warp:
        stall 2), while another warp's instruction in the pipe is "pipe busy" (math pipe throttle)."""
        p = self.w.pipe[i]
        if pf[p] > t:
            if self.w.mkind[i] == MK_TEX:
                return TEXTURE, pf[p]
            if wp is not None and self.pipe_owner[wp.sub][p] is wp:
                return WAIT, pf[p]
            return PIPE_BUSY, pf[p]
        if self.w.mkind[i] and self.l1_free - t > self.params.lsu_queue_cycles:
            return THROTTLE, self.l1_free - self.params.lsu_queue_cycles
        return NOT_SELECTED, t + 1

    def lookahead(self, wp: _Warp, t: float, pf: list) -> tuple[int, float]:
        """The instruction scheduling ptxas does within a basic block, approximated at run time:
        while the head waits, a later instruction of the same block (within `window` unissued
        ones) may issue if it has no register hazard with the unissued ones before it, keeps
        memory instructions in order and finds its operands and pipe ready.
        Returns (its position or -1, the earliest cycle a blocked candidate could go)."""
        key = (wp.pos, len(wp.ahead))
        if wp.la_key == key and t < wp.la_best:  # nothing it waits for can have come earlier
            return -1, wp.la_best
        j, best = self._lookahead(wp, t, pf)
        wp.la_key, wp.la_best = (key, best) if j < 0 else (None, 0.0)
        return j, best

    def _lookahead(self, wp: _Warp, t: float, pf: list) -> tuple[int, float]:
        W = self.w
        regs = wp.regs
        written: set = set(W.writes[wp.pos])
        touched: set = written | set(W.reads[wp.pos])
        mem_before = W.mkind[wp.pos] != MK_NONE or W.issue_lsu[wp.pos]
        best = INF
        j = wp.pos + 1
        seen = 0
        ahead = wp.ahead
        while j < wp.end and seen < self.window:
            if ahead and j in ahead:
                j += 1
                continue
            if W.ctrl[j]:
                break
            seen += 1
            rd, wr = W.reads[j], W.writes[j]
            is_mem = W.mkind[j] != MK_NONE or W.issue_lsu[j]
            ok = not (is_mem and mem_before)
            if ok:
                for r in rd:
                    if r in written:
                        ok = False
                        break
            if ok:
                for r in wr:
                    if r in touched:
                        ok = False
                        break
            if ok:
                ready = 0.0
                for r in rd + wr:
                    got = regs.get(r)
                    if got is not None and got[0] > ready:
                        ready = got[0]
                if ready > t:
                    if ready < best:
                        best = ready
                else:
                    reason, until = self.resources(j, t, pf, wp)
                    if reason == NOT_SELECTED:
                        return j, t + 1
                    if until < best:
                        best = until
            written.update(wr)
            touched.update(wr)
            touched.update(rd)
            mem_before = mem_before or is_mem
            j += 1
        return -1, best

    def issue(self, wp: _Warp, s: int, t: float, finished: list) -> None:
        W = self.w
        i = wp.cand
        self.last_issued[s] = wp
        self.pipe_free[s][W.pipe[i]] = t + W.issue[i]
        self.pipe_owner[s][W.pipe[i]] = wp
        self.pipe_busy[s][W.pipe[i]] += W.issue[i]
        n = W.slots[i] if W.slots else 1
        self.issued_sub[s] += n
        self.issued += n
        done_at = t + W.latency[i]
        if W.mkind[i]:
            done_at = self.memory(i, t, wp)
            if done_at > wp.last_mem:
                wp.last_mem = done_at
            if W.holds and W.holds[i]:
                wp.const_until = done_at
        elif W.asyn and W.asyn[i] == ASYNC_MBAR_WAIT:  # its predicate: once the phase completed
            st = self.mbar.get(W.mbar[i][0])
            if st is not None and st[1] + self.params.mbar_wait_latency > done_at:
                done_at = st[1] + self.params.mbar_wait_latency
        kind = W.dep_kind[i]
        for r in W.writes[i]:
            wp.regs[r] = (done_at, kind)
        if self.recorder is not None:
            self.recorder.issue(wp, i, t, done_at)
        if W.cluster_bar and W.cluster_bar[i]:  # never issued ahead of the head (control instructions)
            self.cluster_barrier(wp, W.cluster_bar[i], t)
        if W.asyn and W.asyn[i]:
            a = W.asyn[i]
            if a == ASYNC_MMA:
                end = t + W.async_arg[i]
                if end > wp.grp_open:
                    wp.grp_open = end
            elif a == ASYNC_COMMIT:
                wp.groups.append(wp.grp_open)
                wp.grp_open = 0.0
            elif a >= ASYNC_CP:
                self.issue_async(wp, i, a, t, done_at)
        if i != wp.pos:  # issued ahead of the head: the head stays
            wp.ahead.add(i)
            wp.fetch = t + n + W.bank_extra[i]
            return
        if W.sleep[i]:
            wp.sleep = t + W.sleep[i]
        pos = i + 1
        if wp.ahead:
            while pos in wp.ahead:
                wp.ahead.discard(pos)
                pos += 1
        wp.pos = pos
        if pos >= wp.end:
            finished.append(wp)
            return
        wp.fetch = t + n + W.bank_extra[i] + (self.params.fetch_redirect if W.taken[i] else 0)
        if self.icache is not None and W.code_line[pos] != W.code_line[i]:
            got = self.icache.fetch(W.code_line[pos], t)
            if got > wp.fetch:
                wp.fetch = got
        self.head_ready(wp)
        if W.barrier[i]:
            wp.at_bar = True
            arrive = self.bar_free if self.bar_free > t else t
            self.bar_free = arrive + self.params.barrier_arrival_cycles
            self.bar_busy += self.params.barrier_arrival_cycles
            if self.bar_free > self.bar_last.get(wp.cta, 0.0):
                self.bar_last[wp.cta] = self.bar_free

    def cluster_barrier(self, wp: _Warp, code: int, t: float) -> None:
        """barrier.cluster.arrive(.relaxed) / wait of warp wp at cycle t. Only SM 0's CTAs are
        simulated; the other CTAs of a cluster run on other SMs, and the model takes them to reach
        the barrier when this CTA does (they run the same code): a phase completes once every live
        warp of the CTA has arrived. An arrival goes through the SM's barrier unit as a bar.sync
        arrival does; a default (.release) arrive first passes a fence (MEMBAR.ALL.GPU in SASS: the
        SM's fence unit takes one per `cluster_fence_interval`, done `cluster_fence_latency` later,
        and the warp waits for it). A wait holds the warp ("synchronization") until its phase
        releases: the last arrival + the bar.sync release + `cluster_barrier_cycles` +
        `cluster_barrier_per_doubling` x log2(CTAs per cluster) (micro2 cluster `bar`)."""
        p = self.params
        if code == CL_WAIT:
            k = wp.cl_waited
            wp.cl_waited += 1
            ph = self._cl_phase(wp.cta, k)
            if ph[2] is None:
                wp.blocked = ("cluster", wp.cta, k)
                self.cl_waiters.setdefault((wp.cta, k), []).append(wp)
            elif ph[2] > t:
                wp.cl_until = ph[2]
            return
        at = t
        if code == CL_ARRIVE:
            start = self.fence_free if self.fence_free > t else t
            self.fence_free = start + p.cluster_fence_interval
            at = start + p.cluster_fence_latency
            wp.cl_until = at
        arrive = self.bar_free if self.bar_free > at else at
        self.bar_free = arrive + p.barrier_arrival_cycles
        self.bar_busy += p.barrier_arrival_cycles
        ph = self._cl_phase(wp.cta, wp.cl_arrived)
        wp.cl_arrived += 1
        ph[0] += 1
        if self.bar_free > ph[1]:
            ph[1] = self.bar_free
        self.cluster_complete(wp.cta, t)

    def _cl_phase(self, c: int, k: int) -> list:
        phases = self.cl_phases.setdefault(c, [])
        while len(phases) <= k:
            phases.append([0, 0.0, None])
        return phases[k]

    def cluster_complete(self, c: int, t: float, exited: bool = False) -> None:
        """Release the cluster-barrier phases of CTA c that every live warp has arrived at, in
        order, and wake the warps waiting for them (`exited`: a warp of c just exited at t; it
        counts as an arrival at t for the phases still open)."""
        ws = self.cta_warps.get(c)
        phases = self.cl_phases.get(c)
        if not ws or not phases:
            return
        live = sum(1 for x in ws if not x.done)
        p = self.params
        cost = (self.barrier_latency + self.barrier_per_warp * (len(ws) - 1) + p.cluster_barrier_cycles
                + p.cluster_barrier_per_doubling * math.log2(max(self.w.cluster_size, 1)))
        for k, ph in enumerate(phases):
            if ph[2] is not None:
                continue
            if exited and t > ph[1]:
                ph[1] = t
            if ph[0] < live:
                break
            ph[2] = release = ph[1] + cost
            for x in self.cl_waiters.pop((c, k), []):
                self._cl_release(x, t, release)

    def _cl_release(self, wp: _Warp, t: float, release: float) -> None:
        wp.blocked = None
        self.charge(wp, t)
        wp.cl_until = release
        wp.reason, wp.until = SYNC, max(release, t + 1)

    def issue_async(self, wp: _Warp, i: int, a: int, t: float, done_at: float) -> None:
        """cp.async groups, bulk-copy and mbarrier completion at the issue of warp-instruction i
        (`done_at`: when its data is in shared memory, or its result is ready)."""
        p = self.params
        if a == ASYNC_CP:  # the copy's data is in shared memory when it is back (micro2 async chase)
            end = done_at + p.cp_async_complete
            if end > wp.cp_open:
                wp.cp_open = end
        elif a == ASYNC_CP_COMMIT:
            wp.cp_groups.append(wp.cp_open)
            wp.cp_open = 0.0
        elif a == ASYNC_CP_MBAR:  # arrives once the warp's cp.asyncs so far are complete
            keys = self.w.mbar[i]
            if keys:
                self.mbar_event(keys, max(wp.cp_groups + [wp.cp_open, t]) + p.mbar_arrive_latency, t)
        elif a == ASYNC_BULK:  # its complete_tx: when the last byte is in shared memory
            keys = self.w.mbar[i]
            if keys:
                self.mbar_event(keys, done_at, t)
        elif a == ASYNC_MBAR_EVENT:
            keys = self.w.mbar[i]
            if keys:
                self.mbar_event(keys, t + p.mbar_arrive_latency, t)

    def memory(self, i: int, t: float, wp: _Warp | None = None) -> float:
        """Send warp-instruction i (of warp wp) through L1 (wavefronts), L2 and DRAM; returns when
        its data is back."""
        W = self.w
        if W.mkind[i] == MK_BULK:
            return self.bulk(i, t)
        if W.mkind[i] == MK_CONST:  # the constant port: busy W.wavefronts[i] cycles (trace.build_work)
            start = self.const_free if self.const_free > t else t
            self.const_free = start + W.wavefronts[i]
            return start + W.latency[i]
        start = self.l1_free if self.l1_free > t else t
        wf = W.wavefronts[i] * self.params.l1_wavefront_cycles
        self.l1_free = start + wf
        self.l1_busy += wf
        keys = W.keys[i] if W.keys else None
        lines = W.l2_lines[i] if W.l2_lines else 0
        if lines:  # the miss path sends the request's L2 lines one after another
            rq = self.req_free if self.req_free > start + wf else start + wf
            self.req_free = rq + lines * self.params.l2_request_cycles
            extra = self.req_free - (start + wf) - self.params.l2_request_cycles
        else:
            extra = 0.0
        if keys is not None:
            # the share of its DRAM sectors that are write-backs (share_l2 may have scaled dram_read)
            wb = min(1.0, W.dram_evicted[i] / W.dram_read[i]) if W.dram_evicted and W.dram_read[i] else 0.0
            if type(keys) is PartKeys:  # a warp-matrix load: each machine load its own request
                return max(self.load_sectors(k, start + wf + extra, wp, wb) for k in keys)
            return self.load_sectors(keys, start + wf + extra, wp, wb)
        if W.atom_lines and W.atom_lines[i]:
            if W.mkind[i] == MK_ATOMIC:
                return self.atomics(W.atom_lines[i], start + wf)
            if W.mkind[i] == MK_SHARED:
                return self.cas_loop(W.atom_lines[i], start + wf, wp)
        done_at = start + wf + W.latency[i] + extra
        n2 = W.l2_sectors[i]
        if n2:
            s2 = self.l2_free if self.l2_free > start else start
            self.l2_free = s2 + n2 * self.l2_cyc
            self.l2_busy += n2 * self.l2_cyc
            done_at += s2 - start
        nd = W.dram_read[i] + W.dram_write[i] * self.params.dram_write_cost
        if nd:
            written = W.dram_write[i] * self.params.dram_write_cost + (W.dram_evicted[i] if W.dram_evicted else 0.0)
            sd, extra = self.dram(start, nd, written)
            if W.mkind[i] == MK_STORE:
                # the L2 takes a store once DRAM has room for what it writes back (and reads
                # to complete partly written sectors): scattered words are DRAM-bound
                # (memory_counters `partial`: pst_one, 128 MiB, 64 us for 0.95 + 0.89 of it)
                if sd > start:
                    done_at = max(done_at, sd + W.latency[i])
            elif W.dram_read[i]:
                done_at += (sd - start) + W.dram_read[i] * self.dram_cyc + extra
        return done_at

    def bulk(self, i: int, t: float) -> float:
        """A bulk copy global -> shared (cp.async.bulk): the SM's TMA engine sends its 128-B line
        requests one per `tma_line_cycles` (micro2 async: an 8 KiB copy from L2 takes 85 cycles
        more than a 16-B one), the data comes through this SM's share of L2 and DRAM bandwidth at
        the latency of the level that serves it, and is written into shared memory through the
        L1/shared data stage (one wavefront per 128 B). Returns when the last byte is in shared memory."""
        W, p = self.w, self.params
        start = self.tma_free if self.tma_free > t else t
        lines = W.l2_lines[i] if W.l2_lines else 0
        self.tma_free = start + lines * p.tma_line_cycles
        sent = self.tma_free
        done_at = sent + W.latency[i] + p.tma_latency
        n2 = W.l2_sectors[i]
        if n2:
            s2 = self.l2_free if self.l2_free > start else start
            self.l2_free = s2 + n2 * self.l2_cyc
            self.l2_busy += n2 * self.l2_cyc
            if self.l2_free + W.latency[i] > done_at:
                done_at = self.l2_free + W.latency[i]
        nd = W.dram_read[i]
        if nd:
            sd, extra = self.dram(start, nd, W.dram_evicted[i] if W.dram_evicted else 0.0)
            end = sd + nd * self.dram_cyc + extra + W.latency[i]
            if end > done_at:
                done_at = end
        wf = W.wavefronts[i] * p.l1_wavefront_cycles  # the shared-memory write
        s1 = self.l1_free if self.l1_free > t else t
        self.l1_free = s1 + wf
        self.l1_busy += wf
        return done_at

    def load_sectors(self, keys, base: float, wp: _Warp | None = None, wb: float = 0.0) -> float:
        """A global/local load's sectors: the first access in time to a sector generation pays
        its miss (L2 or DRAM latency and bandwidth); later ones wait for that fill or hit.
        The DRAM lines this request starts arrive with the slowest of n (memory/dram.py), n
        counting the lines of the warp's earlier DRAM fills still in flight too
        (`dram_tail_per_warp`): the warp waits for all its loads, so for the last of them."""
        lat = self.w.level_latency
        fill = self.fills
        lines = None
        if self.l1_lines:  # the request's misses wait for L1 lines to hold them (l1_miss_lines)
            lines = {key[0] >> 7 for key, level, _ in keys if level and key not in fill}
            if lines:
                base = self.l1_room(base, len(lines))
        done = base + lat[0]
        far = None  # the DRAM fills this request starts: the slowest of their lines decides
        for key, level, dram in keys:
            f = fill.get(key)
            if f is None:
                if level == 0:
                    continue
                s2 = self.l2_free if self.l2_free > base else base
                self.l2_free = s2 + self.l2_cyc
                self.l2_busy += self.l2_cyc
                wait = s2 - base
                if level == 2 and dram:
                    sd, extra = self.dram(base, dram, dram * wb)
                    w2 = sd - base + dram * self.dram_cyc + extra
                    if w2 > wait:
                        wait = w2
                    if far is None:
                        far = []
                    far.append(key)
                f = fill[key] = base + lat[level] + wait
            if f > done:
                done = f
        if lines:  # each line's L1 slot is free once its own data is back (before the slowest-of-n tail)
            back: dict = {}
            for key, level, _ in keys:
                line = key[0] >> 7
                if line in lines:
                    # a sector of the line that hits with no fill on record (the L1 holds it
                    # from before this SM's first load of it: written, say) adds no wait
                    f = fill.get(key, 0.0)
                    if f > back.get(line, 0.0):
                        back[line] = f
            for f in back.values():
                heapq.heappush(self.in_flight, f)
        if far is not None and self.tail_cycles:
            n_lines = len({k[0] >> 7 for k in far})
            n = n_lines
            if wp is not None and self.tail_per_warp:
                live = [x for x in wp.dram_fills if x[0] > base]
                n += sum(x[1] for x in live)
                live.append((max(fill[k] for k in far), n_lines))
                wp.dram_fills = live
            if n > 1:
                tail = slowest_of(n, self.tail_cycles)
                for key in far:
                    f = fill[key] = fill[key] + tail
                    if f > done:
                        done = f
        return done

    def l1_room(self, t: float, n: int) -> float:
        """When `n` more L1 lines can hold misses, from cycle `t`: fills back by then free theirs;
        beyond `l1_lines` the request waits for the earliest fills still in flight."""
        heap = self.in_flight
        while heap and heap[0] <= t:
            heapq.heappop(heap)
        over = len(heap) + min(n, self.l1_lines) - self.l1_lines
        while over > 0 and heap:
            t = max(t, heapq.heappop(heap))
            over -= 1
        return t

    def dram(self, arrival: float, sectors: float, written: float = 0.0) -> tuple[float, float]:
        """Queue `sectors` of DRAM transfer behind the SM's share of the DRAM bandwidth. Returns
        (service start, extra latency): a loaded memory system answers later than an idle one,
        `dram_loaded_latency` at full utilization (utilization = busy fraction over ~2000 cycles),
        and reads share the bus with write-backs: `dram_writeback_latency` more when the `written`
        sectors (write-backs among `sectors`) fill that window."""
        sd = self.dram_free if self.dram_free > arrival else arrival
        d = sectors * self.dram_cyc
        self.dram_free = sd + d
        self.dram_busy += d
        tau = 2000.0
        dt = sd - self.dram_last
        if dt > 0:
            decay = math.exp(-dt / tau)
            self.dram_util *= decay
            self.dram_wb_util *= decay
            self.dram_last = sd
        self.dram_util += d / tau
        p = self.params
        if written:
            self.dram_wb_util += written * self.dram_cyc / tau
        extra = p.dram_loaded_latency * min(1.0, self.dram_util)
        if self.dram_wb_util and p.dram_writeback_latency:
            extra += p.dram_writeback_latency * min(1.0, self.dram_wb_util)
        return sd, extra

    def atomics(self, lines, base: float) -> float:
        """Global atomics (timing/atomics.py): each line's packets queue at the atomic unit of its
        L2 slice, behind the packets every other SM sends there (`slice_scale`); the value is
        back `atomic_round_trip` cycles after the last of them was performed."""
        p = self.params
        latency = p.atomic_round_trip
        done = base + latency
        free, scale, n = self.slice_free, self.slice_scale, p.l2_atomic_slices
        for line, packets, single in lines:
            s = slice_of(line, n)
            f = free.get(s, 0.0)
            start = f if f > base else base
            end = free[s] = start + packets * p.atomic_pass_cycles * scale.get(s, 1.0)
            if single:  # float updates of one word: the line waits for the adder
                f = self.line_free.get(line, 0.0)
                start = f if f > base else base
                busy = single * p.atomic_float_pass_cycles * line_contention(*self.atomic_lines, line)
                self.line_free[line] = start + busy
                if start + busy > end:
                    end = start + busy
            if end + latency > done:
                done = end + latency
        return done

    def cas_loop(self, updates, base: float, wp: _Warp | None) -> float:
        """A shared atomic that ptxas makes a compare-and-swap loop (timing/shared_cas.py): the
        warp goes round it once per lane on its busiest word, `shared_cas_round_cycles` a trip,
        and each update holds the words of its request `shared_cas_pass_cycles` per 128 bytes of
        them, so updates of one word from several warps follow each other. The warp is in the loop (it
        issues nothing else) until its last update is done."""
        p = self.params
        most, passes, words = updates
        done = base + most * p.shared_cas_round_cycles
        hold = p.shared_cas_pass_cycles * passes
        free = self.cas_free
        for word, lanes in words:
            f = free.get(word, 0.0)
            end = free[word] = (f if f > base else base) + lanes * hold
            if end > done:
                done = end
        if wp is not None and done > wp.loop_until:
            wp.loop_until = done
        return done

    # ------------------------------------------------------------------ main loop
    def charge(self, wp: _Warp, t: float) -> None:
        """Charge wp's cycles [since, t) to the state last seen; a wait that ended unobserved
        turned into eligible-but-not-selected (a warp ahead of it in the order issued)."""
        s = wp.since
        if t <= s:
            return
        u = wp.until
        rec = self.recorder
        if u >= t or wp.reason == NOT_SELECTED:
            self.stalls[wp.reason] += t - s
            if rec is not None:
                rec.stall(wp, wp.reason, s, t)
        else:
            if u > s:
                self.stalls[wp.reason] += u - s
                if rec is not None:
                    rec.stall(wp, wp.reason, s, u)
            self.stalls[NOT_SELECTED] += t - max(u, s)
            if rec is not None:
                rec.stall(wp, NOT_SELECTED, max(u, s), t)
        wp.since = t

    def run(self) -> SmResult:
        stalls = self.stalls
        self.launch_ready()
        finished: list[_Warp] = []
        barrier_ctas: set = set()
        gto = self.gto
        while self.n_live or self.pending:
            t = self.t
            if not self.n_live:
                self.t = max(t, self.next_launch())
                self.launch_ready()
                continue
            any_issue = False
            t_next = INF
            for s in range(self.S):
                warps = self.sub_warps[s]
                if not warps:
                    continue
                if self.sub_free[s] > t:  # still issuing the machine instructions of one PTX form
                    if self.sub_free[s] < t_next:
                        t_next = self.sub_free[s]
                    continue
                pf = self.pipe_free[s]
                lw = self.last_issued[s]
                chosen = None
                if lw is not None and not lw.done:
                    if gto:
                        order = warps
                        if lw.reason == NOT_SELECTED or lw.until <= t:  # greedy: the last issuer first
                            reason, until = self.state(lw, t, pf)
                            if reason == NOT_SELECTED:
                                chosen = lw
                                order = ()
                            elif reason != lw.reason or until != lw.until:
                                self.charge(lw, t)
                                lw.reason, lw.until = reason, until
                    else:
                        k = warps.index(lw) + 1
                        order = warps[k:] + warps[:k]
                else:
                    order = warps
                for wp in order:
                    if wp.until > t and wp.reason != NOT_SELECTED and not (wp.reason == PIPE_BUSY or wp.reason == TEXTURE):
                        # still waiting for the same thing (pipe waits are re-checked: pipes free early)
                        if wp.until < t_next:
                            t_next = wp.until
                        continue
                    reason, until = self.state(wp, t, pf)
                    if reason != wp.reason or until != wp.until:
                        self.charge(wp, t)
                        wp.reason, wp.until = reason, until
                    if reason == NOT_SELECTED:
                        chosen = wp
                        break
                    if until < t_next:
                        t_next = until
                if chosen is not None:
                    any_issue = True
                    wp = chosen
                    self.charge(wp, t)
                    n = self.w.slots[wp.cand] if self.w.slots else 1
                    stalls[SELECTED] += n
                    bar_before = wp.at_bar
                    self.issue(wp, s, t, finished)
                    wp.since = t + n
                    wp.reason, wp.until = NOT_SELECTED, t + n
                    if n > 1:
                        self.sub_free[s] = t + n
                    if wp.at_bar and not bar_before:
                        wp.reason, wp.until = SYNC, INF
                        barrier_ctas.add(wp.cta)
            if any_issue:
                dt = 1.0
            else:
                nxt = t_next
                if self.pending and self.slot_open:
                    nxt = min(nxt, self.next_launch())
                if nxt == INF and any(self.mbar_waiters.values()):
                    # nothing else can move: the events these waits counted on do not come in
                    # this order of issue; let them go rather than wait forever
                    for key, ws in self.mbar_waiters.items():
                        for wp in ws:
                            self.unblock(wp, t)
                        ws.clear()
                    nxt = t + 1
                if nxt == INF and self.cl_waiters:
                    # a cluster-barrier phase that this trace's warps never complete (a warp
                    # that waits without arriving): let its waiters go rather than wait forever
                    for key in list(self.cl_waiters):
                        for wp in self.cl_waiters.pop(key):
                            self._cl_release(wp, t, t + 1)
                    nxt = t + 1
                dt = max(1.0, nxt - t) if nxt != INF else 1.0
            self.resident += self.n_live * dt
            for c in barrier_ctas:
                self.check_barrier(c, t + 1)
            barrier_ctas.clear()
            for wp in finished:
                self.charge(wp, t + 1)
                self.retire(wp, t + 1)
            finished.clear()
            self.t = t + dt
            if self.pending:
                self.launch_ready()
        end = max([self.t] + [float(x) for x in self.cta_finish])
        names = self.w.pipe_names or [str(k) for k in range(self.w.n_pipes)]
        # the busiest sub-partition's share (a single warp can only use its own)
        busy = {n: max(sub[k] for sub in self.pipe_busy) for k, n in enumerate(names)}
        busy = {n: b for n, b in busy.items() if b}
        busy["issue"] = float(max(self.issued_sub)) if self.issued_sub else 0.0
        return SmResult(int(round(end)), np.array(stalls), self.issued, self.resident, self.cta_finish,
                        self.l1_busy, self.l2_busy, self.dram_busy, busy, self.bar_busy)


def simulate(work: SmWork, **kw) -> SmResult:
    return SmSim(work, **kw).run()
