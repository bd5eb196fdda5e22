"""The instruction order ptxas gives a basic block, approximated: a list schedule of each
straight run of PTX instructions.

PTX order is not SASS order. ptxas list-schedules every basic block: an instruction goes as soon
as its operands can be ready, the one on the longest latency path to the end of the block first.
That is why a loop's counter increment, compare and branch cost a one-warp loop almost nothing on
the H200 (benchmarks/timing/micro2 `loop_fma4`: 16 unrolled FMAs in 4 chains + IADD/ISETP/BRA take
21 cycles, `loop_fma1`: 4 dependent FMAs + the loop overhead 17.8 = 4 x 4 FMA latency + 1.8),
while in PTX order the counter's add -> setp -> bra chain comes last and would add its whole
latency to every iteration.

`block_orders` takes the flat per-warp instruction stream (PCs in program order, warps one after
another) and returns the permutation that puts each run in its scheduled order. A run is a
maximal stretch of consecutive PCs of one warp with no control instruction (branch, barrier,
fence, sleep) inside; a control instruction ends its run and stays last. Within a run:

* register dependences are kept (RAW with the producer's latency, WAR and WAW as order);
* stores, atomics and LSU instructions without addresses keep their order against every memory
  instruction that may touch the same memory; loads may pass loads (nothing observable changes).
  Shared memory and global/local memory are different windows, so a global load passes a
  shared store (ptxas hoists a tile's global loads above the shared stores of the previous
  elements: the register-blocked SGEMM's staging loop); generic addresses and instructions
  without one may touch anything; kernel parameters and constants are never stored to;
* priority: the longest latency path to the end of the run (loads count as L2 hits: ptxas
  hoists them), ties in PTX order; one instruction per cycle;
* registers (when the kernel's register count is given, `budget`): the schedule may not hold more
  32-bit registers live than the kernel has. The run's own values get what is left after 4
  reserved registers and the registers live across the run (timing/pressure.py: by the warp's
  own stream; warp-uniform values live in uniform registers and do not count). A value takes its width (b64 2, b16 and b32 1, predicates 0:
  ptxas gives every b16 load a register of its own, LDG.E.U16 Rn) from its write until its last
  read in the run has issued (to the run's end when it is read later); a value live into the run
  until its last read. An instruction whose results would raise the live count past the budget
  waits until an earlier value's last read has issued, unless nothing else can issue. This is what
  keeps ptxas from hoisting every load of a register-heavy loop: the Triton fp16 matmul's loop
  (254 registers) issues 30 of its 64 LDG.U16, then alternates loads and STS as registers free
  up (docs/timing-model.md, "Register pressure").

Schedules are computed once per (first PC, length) and applied to all runs alike with NumPy.
"""
from __future__ import annotations

import heapq

import numpy as np

from .pressure import run_limits


SPACE_ANY, SPACE_SHARED, SPACE_GLOBAL, SPACE_READ_ONLY = 0, 1, 2, 3


def space_class(space: str) -> int:
    """The memory a PTX state space's accesses may touch, for reordering (SPACE_*)."""
    return {"shared": SPACE_SHARED, "global": SPACE_GLOBAL, "local": SPACE_GLOBAL,
            "const": SPACE_READ_ONLY, "param": SPACE_READ_ONLY}.get(space, SPACE_ANY)


def _may_alias(a: int, b: int) -> bool:
    if a == SPACE_READ_ONLY or b == SPACE_READ_ONLY:
        return False
    return a == SPACE_ANY or b == SPACE_ANY or a == b


def block_orders(pc: np.ndarray, row: np.ndarray, ctrl: np.ndarray, latency: np.ndarray, reads: dict, writes: dict,
                 mem_kind: np.ndarray, mem_space=None, units=None, budget=None, uniform=frozenset()) -> np.ndarray:
    """Permutation `order` of the flat stream (new position k holds old index order[k]).

    pc, row: per warp-instruction (sorted by row, program order within a row); ctrl, latency,
    mem_kind: per PC (mem_kind 0 none, 1 load, 2 store/atomic/other LSU); reads/writes: per PC,
    tuples of register ids; units: register id -> 32-bit registers it takes; budget: the kernel's
    registers per thread (None: no register limit); uniform: register ids of warp-uniform values."""
    n = pc.size
    order = np.arange(n, dtype=np.int64)
    if n < 2:
        return order
    brk = np.ones(n, bool)  # a run starts here
    brk[1:] = (row[1:] != row[:-1]) | (pc[1:] != pc[:-1] + 1) | ctrl[pc[:-1]]
    starts = np.flatnonzero(brk)
    lengths = np.diff(np.append(starts, n))
    long = lengths > 2
    if not long.any():
        return order
    starts, lengths = starts[long], lengths[long]
    first = pc[starts]
    keys = first * 65536 + lengths
    uniq, inv = np.unique(keys, return_inverse=True)
    limits = None
    if budget is not None and units is not None:  # each distinct run's budget, from its first occurrence
        first = np.unique(inv, return_index=True)[1]
        # the same run's next occurrence in the same warp's stream (its loop's next trip), if any
        again = np.full(first.size, -1, np.int64)
        nxt = np.full(inv.size, -1, np.int64)
        by_key = np.lexsort((starts, inv))  # occurrences of each run in stream order
        same = (inv[by_key][1:] == inv[by_key][:-1]) & (row[starts[by_key][1:]] == row[starts[by_key][:-1]])
        nxt[by_key[:-1][same]] = starts[by_key[1:][same]]
        again[:] = nxt[first]
        limits = run_limits(pc, row, starts[first], lengths[first], again, reads, writes, units, int(budget),
                            uniform)
    for u, key in enumerate(uniq.tolist()):
        p0, length = divmod(int(key), 65536)
        perm = schedule_run(p0, length, ctrl, latency, reads, writes, mem_kind, mem_space,
                            limits[u] if limits is not None else None)
        if perm is None:
            continue
        sel = starts[inv == u]
        idx = sel[:, None] + np.arange(length)[None, :]
        order[idx] = sel[:, None] + perm[None, :]
    return order


def schedule_run(p0: int, n: int, ctrl, latency, reads: dict, writes: dict, mem_kind, mem_space=None, limit=None):
    """List schedule of PCs p0..p0+n-1: their offsets in issue order (None: PTX order stays).

    limit: a pressure.RunLimit (the run's register budget and what it must not count), or None."""
    preds: list[list] = [[] for _ in range(n)]  # (pred, delay)
    last_write: dict = {}
    readers: dict = {}
    stores: list = []  # (index, space) of the memory writes so far
    loads: list = []  # (index, space) of the loads so far
    for i in range(n):
        p = p0 + i
        for r in reads[p]:
            w = last_write.get(r)
            if w is not None:
                preds[i].append((w, float(latency[p0 + w])))
        for r in writes[p]:
            w = last_write.get(r)
            if w is not None:
                preds[i].append((w, 0.0))
            for rd in readers.get(r, ()):
                if rd != i:
                    preds[i].append((rd, 0.0))
        for r in reads[p]:
            readers.setdefault(r, []).append(i)
        for r in writes[p]:
            last_write[r] = i
            readers[r] = []
        mk = mem_kind[p]
        if mk:
            sp = int(mem_space[p]) if mem_space is not None else SPACE_ANY
            # after the writes it may see, and a write after the loads it may change
            preds[i].extend((j, 0.0) for j, s in stores if _may_alias(s, sp))
            if mk == 1:
                loads.append((i, sp))
            else:
                preds[i].extend((j, 0.0) for j, s in loads if _may_alias(s, sp))
                stores.append((i, sp))
    if ctrl[p0 + n - 1]:
        preds[n - 1].extend((j, 0.0) for j in range(n - 1))
    succs: list[list] = [[] for _ in range(n)]
    for i, ps in enumerate(preds):
        for j, d in ps:
            succs[j].append((i, d))
    height = [0.0] * n
    for i in range(n - 1, -1, -1):
        h = 0.0
        for s, d in succs[i]:
            v = d + height[s]
            if v > h:
                h = v
        height[i] = h + 1.0
    missing = [len(ps) for ps in preds]
    ready_at = [0.0] * n
    heap = [(-height[i], i) for i in range(n) if missing[i] == 0]
    heapq.heapify(heap)
    waiting: list = []  # (ready cycle, -height, i): dependences met, latency not yet
    out: list[int] = []
    regs = RegisterCount(p0, n, reads, writes, limit) if limit is not None else None
    t = 0.0
    while heap or waiting:
        while waiting and waiting[0][0] <= t:
            _, h, i = heapq.heappop(waiting)
            heapq.heappush(heap, (h, i))
        if not heap:
            t = waiting[0][0]
            continue
        if regs is not None:
            i = regs.pick(heap, bool(waiting))
            if i is None:  # every ready instruction would pass the budget: wait for the next one
                t = waiting[0][0]
                continue
            regs.issue(i)
        else:
            _, i = heapq.heappop(heap)
        out.append(i)
        for s, d in succs[i]:
            if t + d > ready_at[s]:
                ready_at[s] = t + d
            missing[s] -= 1
            if missing[s] == 0:
                if ready_at[s] <= t + 1:
                    heapq.heappush(heap, (-height[s], s))
                else:
                    heapq.heappush(waiting, (ready_at[s], -height[s], s))
        t += 1.0
    if len(out) != n or out == list(range(n)):
        return None
    return np.array(out, dtype=np.int64)


class RegisterCount:
    """The 32-bit registers a run's schedule holds live, as it issues (the `budget` rule above)."""

    def __init__(self, p0: int, n: int, reads: dict, writes: dict, limit):
        units, skip = limit.units, limit.across
        self.budget = limit.budget
        current: dict = {}  # register -> its value now
        width: list = []  # per value
        left: list = []  # per value: reads in the run not yet issued
        kept: list = []  # per value: live after the run (held to its end)
        self.uses: list = [()] * n
        self.defs: list = [()] * n
        self.live = 0
        for i in range(n):
            p = p0 + i
            got = []
            for r in reads[p]:
                if r in skip or not units.get(r, 0):
                    continue
                v = current.get(r)
                if v is None:  # live into the run (not out of it: those are `across`): until its last read
                    v = current[r] = len(width)
                    width.append(units[r])
                    left.append(0)
                    kept.append(False)
                    self.live += units[r]
                if v not in got:
                    got.append(v)
                    left[v] += 1
            self.uses[i] = tuple(got)
            made = []
            for r in writes[p]:
                if r in skip or not units.get(r, 0):
                    continue
                v = current[r] = len(width)
                width.append(units[r])
                left.append(0)
                kept.append(False)
                made.append(v)
            self.defs[i] = tuple(made)
        for r, v in current.items():  # a value read after the run but not in it stays to the run's end
            if r in limit.live_out and not left[v]:
                kept[v] = True
        self.width, self.left, self.kept = width, left, kept

    def change(self, i: int) -> int:
        """Registers issuing instruction i adds to the live count (negative: it frees some)."""
        w, left, kept = self.width, self.left, self.kept
        up = sum(w[v] for v in self.defs[i] if left[v] or kept[v])
        down = sum(w[v] for v in self.uses[i] if left[v] == 1 and not kept[v])
        return up - down

    def pick(self, heap: list, more_coming: bool):
        """Pop the best ready instruction that fits the budget; None when none does and another
        becomes ready later; when nothing else can come, the one that adds fewest registers (ties:
        the best), as a register-pressure-aware scheduler does past its limit (ptxas then spills)."""
        skipped = []
        chosen = None
        while heap:
            entry = heapq.heappop(heap)
            d = self.change(entry[1])
            if d <= 0 or self.live + d <= self.budget:
                chosen = entry[1]
                break
            skipped.append(entry)
        if chosen is None and not more_coming:  # over the budget anyway: the one that adds least
            best = min(range(len(skipped)), key=lambda k: (self.change(skipped[k][1]), k))
            chosen = skipped.pop(best)[1]
        for e in skipped:
            heapq.heappush(heap, e)
        return chosen

    def issue(self, i: int) -> None:
        self.live += self.change(i)
        for v in self.uses[i]:
            self.left[v] -= 1
