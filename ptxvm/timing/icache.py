"""Where a warp's next instructions come from: the SM's instruction caches.

A kernel's machine code is laid out in PTX order, 16 bytes per SASS instruction (the counts of
engine/trace/expansion.py), in 128-byte lines, and scaled to ptxas's size where ptxas is installed
(loops ptxas unrolled laid out unrolled: `warp_code_lines`). Each SM fetches lines through one
stream:

* the first-level instruction cache (`icache_bytes`, least recently used) serves a line at once;
* a miss there is filled from the second level (`icache_l15_bytes`, the constant/instruction
  cache the SM shares with constant data; random replacement) in `icache_l15_cycles` per line,
  else from L2 (`icache_l2_cycles`) or, in the cold convention, from DRAM (`icache_dram_cycles`);
* fills from L2 / DRAM go one after another; fills from the second level overlap (a latency);
  entering a line also asks for the next one once its own line is in (sequential prefetch), so
  straight code streams at one line per fill time however fast the warp issues; a warp waits
  ("instruction_fetch", ncu's no_instruction) until its line is in.

All warps of the SM share the stream: warps running the same code in step fetch each line once.
A launch finds the caches as earlier launches of the kernel left them (the timing conventions
time repeated launches): the first warp's path is run through them WARMUP_LAUNCHES times before
the simulation. In the cold convention the flush and the spin kernel between launches take
`icache_cold_evict_bytes` of the second level.

Pinned by benchmarks/timing/ifetch on the H200 (results/ifetch_h200.json): a 32 KB loop body runs
from the first level, 40 KB does not; 96 KB stays in the second level; straight code streams at
22 cycles a line from it, 44 from L2 and 94 from DRAM. A kernel whose code fits the first level
costs nothing here (`warp_code_lines` returns [] and the SM loop skips the model).
"""
from __future__ import annotations

import random
from collections import OrderedDict
from typing import Optional

import numpy as np

LINE_BYTES = 128
WARMUP_LAUNCHES = 3  # launches run through the caches before the simulated one (a steady state)
SASS_BYTES = 16
UNROLL_SLACK = 1.1  # a loop counts as unrolled only while the layout stays within this of ptxas's size


def pc_sizes(trace, pcs: np.ndarray) -> np.ndarray:
    """Bytes of machine code of each PC of the functions the trace ran (the ones `pcs` fall in:
    the kernel and what it called; 0 elsewhere), estimated from the PTX form: its machine
    instruction count (at least one), none for moves of immediates ptxas folds away."""
    sizes = np.zeros(len(trace.program.code), np.int64)
    for start, end in function_ranges(trace.program, pcs):
        for p in range(start, end):
            info = trace.info(p)
            folded = info.opcode == "mov" and not info.reads and not info.sreg
            sizes[p] = 0 if folded else max(int(info.sass), 1) * SASS_BYTES
    return sizes


def function_ranges(program, pcs: np.ndarray) -> list:
    """(first PC, end PC) of each function of the program that `pcs` fall in."""
    n = len(program.code)
    entries = sorted({f.entry_pc for f in program.functions.values() if 0 <= f.entry_pc < n} | {0})
    bounds = np.array(entries + [n])
    ran = np.unique(np.searchsorted(bounds, pcs, side="right") - 1) if pcs.size else np.zeros(0, np.int64)
    return [(int(bounds[k]), int(bounds[k + 1])) for k in ran.tolist()]


def warp_code_lines(trace, params, pc: np.ndarray, row: np.ndarray, taken: np.ndarray, code_bytes: int = 0) -> list:
    """Per warp-instruction (`pc`, `row`: its warp, `taken`: the warp's next instruction is not at
    pc+1): the 128-B line of its machine code; [] when the kernel's code fits in the first-level
    cache. `code_bytes`: the kernel's machine code as ptxas made it (0: unknown). Where ptxas made
    more code than the PTX forms account for, it unrolled loops: the innermost loops whose every
    run takes the same number of trips, smallest first, are laid out unrolled (each trip its own
    copy) while the layout stays within UNROLL_SLACK of ptxas's size; the layout is then scaled to
    ptxas's size."""
    pcs = np.unique(pc)
    sizes = pc_sizes(trace, pcs)
    est = int(sizes.sum())
    if max(est, code_bytes) <= params.icache_bytes or pc.size == 0:
        return []
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.float64)
    copy_of = np.zeros(pc.size, np.int64)  # which unrolled copy of its loop's body (0 outside)
    body_of = np.zeros(pc.size, np.float64)  # bytes of the body of the unrolled loop it is in
    extra = 0
    if code_bytes > est:
        for head, back, trips, body in _unrollable_loops(pc, row, taken, sizes):
            if est + extra + (trips - 1) * body > UNROLL_SLACK * code_bytes:
                break  # more code than ptxas made: it did not unroll this one (nor larger ones)
            inside = (pc >= head) & (pc <= back)
            copy_of[inside] = _trip_index(pc, row, taken, head, back)[inside]
            body_of[inside] = body
            offsets[back + 1:] += (trips - 1) * body
            extra += (trips - 1) * body
    if code_bytes:
        scale = code_bytes / max(est + extra, 1)
    else:
        scale = 1.0
    address = (offsets[pc] + copy_of * body_of) * scale
    return (address // LINE_BYTES).astype(np.int64).tolist()


def _unrollable_loops(pc, row, taken, sizes) -> list:
    """(head pc, back-edge pc, trips per run, body bytes) of each innermost loop whose every run
    by every warp takes the same number of trips (a count ptxas knows), smallest unrolled size
    first."""
    same = np.zeros(pc.size, bool)
    same[:-1] = row[1:] == row[:-1]
    back = np.flatnonzero(taken & same & (np.roll(pc, -1) <= pc))
    edges = sorted({(int(pc[k + 1]), int(pc[k])) for k in back.tolist()})
    inner = [(h, b) for h, b in edges if not any((h2, b2) != (h, b) and h <= h2 and b2 <= b for h2, b2 in edges)]
    out = []
    for h, b in inner:
        _, runs = _loop_runs(pc, row, taken, h, b)
        if runs.size and (runs == runs[0]).all() and runs[0] >= 1:
            out.append((h, b, int(runs[0]) + 1, float(sizes[h:b + 1].sum())))
    return sorted(out, key=lambda x: x[2] * x[3])


def _loop_runs(pc, row, taken, head: int, back: int) -> tuple:
    """(per warp-instruction: the back-edges its warp took since its current run of the loop began,
    per run: the back-edges taken). A run ends where the back-edge is passed without going back
    (or the warp's stream ends); counting from the back-edges, not from where the head first
    appears, keeps instructions the list schedule moved across the loop's entry in trip 0."""
    same = np.zeros(pc.size, bool)
    same[:-1] = row[1:] == row[:-1]
    at_back = pc == back
    went_back = at_back & taken & same & (np.roll(pc, -1) == head)
    left = np.flatnonzero(at_back & ~went_back)
    before = np.cumsum(went_back) - went_back  # back-edges taken before each position
    starts = np.flatnonzero(np.concatenate([[True], row[1:] != row[:-1]]))
    bounds = np.union1d(starts, left + 1)
    bounds = bounds[bounds < pc.size]
    k = np.arange(pc.size)
    since = before - before[bounds[np.searchsorted(bounds, k, side="right") - 1]]
    runs = since[left] if left.size else np.zeros(0, np.int64)
    return since, runs


def _trip_index(pc, row, taken, head: int, back: int) -> np.ndarray:
    """For each warp-instruction inside the loop head..back: the trips its warp has completed in
    its current run of the loop (0 elsewhere)."""
    since, _ = _loop_runs(pc, row, taken, head, back)
    return np.where((pc >= head) & (pc <= back), since, 0)


class InstructionCache:
    """One SM's instruction caches and fetch stream (see the module docstring)."""

    def __init__(self, params, cold: bool, last_line: int, previous: list):
        self.p = params
        self.a: OrderedDict = OrderedDict()  # line -> when it is (or will be) in the first level
        self.a_cap = max(1, params.icache_bytes // LINE_BYTES)
        self.b: dict = {}  # line -> slot in b_slots
        self.b_slots: list = []
        self.b_cap = max(1, params.icache_l15_bytes // LINE_BYTES)
        self.rng = random.Random(0)
        self.miss_cycles = params.icache_dram_cycles if cold else params.icache_l2_cycles
        self.last_line = last_line
        self.free = 0.0  # when the stream from L2 / DRAM takes its next line
        for _ in range(WARMUP_LAUNCHES):  # earlier launches; everything they fetched has arrived
            if cold:
                self._intrude()
            for line in previous:
                self.fetch(line, 0.0)
        self.free = 0.0
        for line in self.a:
            self.a[line] = 0.0
        if cold:
            self._intrude()

    def fetch(self, line: int, t: float) -> float:
        """A warp enters `line` at cycle t: when the line is there to issue from."""
        got = self.a.get(line)
        if got is None:
            got = self._fill(line, t)
        else:
            self.a.move_to_end(line)
        nxt = line + 1
        if nxt <= self.last_line and nxt not in self.a:
            self._fill(nxt, got if got > t else t)  # asked for once its own line is in
        return got

    def _fill(self, line: int, t: float) -> float:
        if line in self.b:  # a latency: several warps' misses there overlap
            ready = t + self.p.icache_l15_cycles
        else:
            start = self.free if self.free > t else t
            self.free = ready = start + self.miss_cycles
        self.a[line] = ready
        if len(self.a) > self.a_cap:
            self.a.popitem(last=False)
        if line not in self.b:
            self._insert_b(line)
        return ready

    def _intrude(self) -> None:
        """The flush's and the spin kernel's lines between two cold launches (negative: no line
        of this kernel)."""
        for k in range(self.p.icache_cold_evict_bytes // LINE_BYTES):
            if -1 - k not in self.b:
                self._insert_b(-1 - k)

    def _insert_b(self, line: int) -> None:
        if len(self.b_slots) >= self.b_cap:
            self._drop_b(self.rng.randrange(len(self.b_slots)))
        self.b[line] = len(self.b_slots)
        self.b_slots.append(line)

    def _drop_b(self, k: int) -> None:
        gone = self.b_slots[k]
        last = self.b_slots.pop()
        if k < len(self.b_slots):
            self.b_slots[k] = last
            self.b[last] = k
        del self.b[gone]


def previous_path(lines: list, start: int, end: int) -> list:
    """The lines a warp entered, in order, from its warp-instructions' lines start:end."""
    out = []
    last = None
    for line in lines[start:end]:
        if line != last:
            out.append(line)
            last = line
    return out
