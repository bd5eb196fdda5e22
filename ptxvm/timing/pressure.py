"""Register budgets of straight runs, for the list schedule's register rule (timing/schedule.py).

ptxas cannot keep more values live than the kernel has registers: the Triton fp16 matmul's loop
(254 registers) issues 30 of its 64 LDG.U16, then alternates loads and STS as registers free up,
where a list schedule without the limit hoists all 64 (docs/timing-model.md, "Register
pressure"). `run_limits` gives each distinct straight run the 32-bit registers its own values may
take:

    budget = registers per thread (ptxas's figure, else the estimate: timing/occupancy.py)
             - occupancy.RESERVED_REGS (4: what the estimate adds to the PTX's peak, so an estimated
               count gives the peak back; in SASS R1 is the stack pointer, pairs start even)
             - the registers live across the run

Live across: live where the run starts and where it ends (the warp's own instruction stream, the
run's first occurrence: a register is live at a point when the stream reads it later before
writing it, so loops, calls and divergent paths need no control-flow graph), not written in the
run (a rewritten register is two values the run counts itself: an FMA chain that updates its
accumulator in place needs no register beyond it), and, when the run is in a loop, read again
before the loop's next trip. A value that waits for the loop to end (the matmul's output
indices, computed before its K loop and used after it) is one ptxas spills or recomputes under
pressure (the matmul's SASS has an STL.64 / LDL.64 pair), not one the loop's loads give way to;
likewise a value the run computes and reads, and a later run reads again, counts until its last
read in the run (schedule.RegisterCount).

Uniform values: a value that is the same in every lane (computed from kernel parameters, %ctaid,
%ntid, immediates and other such values by integer arithmetic) lives in the warp's uniform
register file on sm_90 (wgmma descriptors: the attention kernel's HGMMA ... gdesc[UR8]; shared
bases: STS [R7+UR5+0x3000]), not in the thread's registers: `uniform_registers` finds them (a
fixpoint over the executed instructions); they do not count while they fit the 63 uniform
registers.

Widths (`register_units`): b64/u64/s64/f64 2, .b128 4, predicates 0 (P registers), anything else
1: ptxas gives every b16 value a 32-bit register of its own (LDG.E.U16 R237, R212, ...).

Pinned by ptxas itself (benchmarks/timing/sass/pressure.py, results/sass_pressure_ptxas13.json):
N independent loads -> N shared stores with K values live across a loop at `.maxnreg` R; where
ptxas keeps fewer than N loads in flight, the rule's schedule keeps the same number within 2.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .occupancy import RESERVED_REGS

UNIFORM_REGISTERS = 63  # UR0-UR62 per warp on sm_90 (URZ is the 64th)


@dataclass(frozen=True)
class RunLimit:
    budget: int  # registers the run's own values may take (kernel registers - `across`)
    units: dict  # register id -> 32-bit registers
    across: frozenset  # register ids live through the run (not counted against `budget`; uniform ones skipped too)
    live_out: frozenset  # register ids read after the run before being written


def units_of_type(ptx_type: str) -> int:
    """32-bit registers a PTX register of this type takes (module docstring)."""
    if ptx_type == "pred":
        return 0
    if ptx_type.endswith("128"):
        return 4
    if ptx_type.endswith("64"):
        return 2
    return 1


def register_units(regs) -> dict:
    """Register name -> 32-bit registers, from a RegisterFile (engine/core/layout.py); a name
    declared with several types (in different functions) takes the widest."""
    out: dict = {}
    for name, t in zip(regs.names, regs.types):
        out[name] = max(out.get(name, 0), units_of_type(t))
    return out


# special registers with one value per warp (S2UR can read them into a uniform register)
_WARP_UNIFORM_SREG = re.compile(r"%(ctaid|nctaid|ntid|clusterid|nclusterid|cluster_ctaid|cluster_nctaid|"
                                r"cluster_ctarank|cluster_nctarank|gridid)\b")
_SREG = re.compile(r"%(tid|laneid|lanemask_\w+|warpid|nwarpid|smid|nsmid|clock\w*|globaltimer\w*|pm\d|"
                   r"dynamic_smem_size|total_smem_size|envreg\d+|ctaid|nctaid|ntid|clusterid|nclusterid|"
                   r"cluster_ctaid|cluster_nctaid|cluster_ctarank|cluster_nctarank|gridid|is_explicit_cluster|"
                   r"reserved_smem\w*|aggr_smem_size|current_graph_exec)\b")
_FLOAT_TYPE = re.compile(r"\.(f16|f16x2|bf16|bf16x2|f32|f64|tf32|e4m3\w*|e5m2\w*)\b")
# integer operations the uniform datapath has (UIADD3, UIMAD, ULOP3, USHF, UMOV, UISETP, USEL, UPRMT,
# UFLO, UPOPC, UBREV...); kernel parameters and constants (ULDC)
_UNIFORM_OPS = frozenset(("add", "sub", "mul", "mad", "shl", "shr", "and", "or", "xor", "not", "mov", "cvt",
                          "cvta", "setp", "selp", "min", "max", "neg", "abs", "prmt", "popc", "brev", "clz",
                          "bfe", "bfi", "ld"))


def uniform_registers(infos) -> set:
    """Names of the registers whose every write (among `infos`, InstrInfo of the executed PCs) is
    warp-uniform: an integer operation of the uniform datapath whose register operands (guard
    included) are uniform, whose special registers are per-warp ones, and which loads only kernel
    parameters or constants. Optimistic fixpoint: loops keep a counter uniform."""
    infos = list(infos)
    uniform = {r for i in infos for r in i.writes}
    candidates = []
    for i in infos:
        ok = i.opcode in _UNIFORM_OPS and not _FLOAT_TYPE.search(i.text.split(";")[0])
        if ok and i.opcode == "ld":
            ok = i.mem is not None and i.mem.space in ("param", "const")
        elif ok and i.mem is not None:
            ok = False
        if ok and i.sreg:
            ok = all(_WARP_UNIFORM_SREG.fullmatch(m.group(0)) for m in _SREG.finditer(i.text))
        if not ok:
            uniform.difference_update(i.writes)
        else:
            candidates.append(i)
    changed = True
    while changed:
        changed = False
        for i in candidates:
            if i.writes and any(r not in uniform for r in i.reads) and any(r in uniform for r in i.writes):
                uniform.difference_update(i.writes)
                changed = True
    return uniform


def run_limits(pc: np.ndarray, row: np.ndarray, starts: np.ndarray, lengths: np.ndarray, again: np.ndarray,
               reads: dict, writes: dict, units: dict, registers: int, uniform=frozenset()) -> list:
    """One RunLimit per run (flat index starts[k], lengths[k]) of the stream (pc, row: as
    schedule.block_orders), with the kernel's `registers` per thread; again[k]: the flat index
    where the same run comes next in that warp's stream (a loop's next trip), -1 if it does not;
    uniform: register ids of warp-uniform values (uniform registers while 63 hold them)."""
    rows = row[starts]
    bounds = np.searchsorted(row, np.arange(int(row.max()) + 2 if row.size else 1))
    want: dict = {}  # row -> flat positions where the live set is needed
    for s, n, r in zip(starts.tolist(), lengths.tolist(), rows.tolist()):
        want.setdefault(r, set()).update((s, s + n))
    live_at: dict = {}
    for r, positions in want.items():
        lo, hi = int(bounds[r]), int(bounds[r + 1])
        live: set = set()
        if hi in positions:
            live_at[r, hi] = frozenset()
        for k in range(hi - 1, lo - 1, -1):
            p = int(pc[k])
            w = writes[p]
            if w:
                live.difference_update(w)
            rd = reads[p]
            if rd:
                live.update(x for x in rd if units.get(x, 0))
            if k in positions:
                live_at[r, k] = frozenset(live)
    out = []
    for s, n, r, a in zip(starts.tolist(), lengths.tolist(), rows.tolist(), again.tolist()):
        start, end = live_at[r, s], live_at[r, s + n]
        # a register the run rewrites is two values, each counted in the run (schedule.RegisterCount):
        # the old one until its last read, the new one from its write (an FMA chain updating its
        # accumulator in place needs no register beyond it)
        across = (start & end) - registers_in(pc, s, s + n, writes)
        if a > s:  # in a loop: what is not read before the next trip waits outside it (spilled or
            # recomputed by ptxas, not held against the loop's loads)
            across &= registers_in(pc, s, a, reads)
        in_ur = sum(units[x] for x in across if x in uniform)
        held = sum(units[x] for x in across if x not in uniform) + max(0, in_ur - UNIFORM_REGISTERS)
        # uniform values the run touches are not counted in it either
        skip = across | (uniform & (registers_in(pc, s, s + n, reads) | registers_in(pc, s, s + n, writes)))
        out.append(RunLimit(registers - RESERVED_REGS - held, units, skip, end))
    return out


def registers_in(pc: np.ndarray, a: int, b: int, table: dict) -> set:
    """Register ids `table` (reads or writes, per PC) names at flat positions a..b-1."""
    out = set()
    for p in np.unique(pc[a:b]).tolist():
        out.update(table[p])
    return out
