"""The per-PC facts the SM model needs, from the trace's static instruction info.

`StaticTable(trace, gpu, params, pcs)` holds, indexed by PC: pipe, issue cycles on it, result
latency, dependence kind, control/barrier/sleep flags, registers read and written (small ints),
register-bank penalties, and the facts behind the issue-20 mechanisms: the latency ptxas's list
schedule assumes (timing/schedule.py), immediate moves that take no issue slot, shared loads
merged into a leader's vector load (timing/vectorize.py), SFU operations with FP32 fix-ups, and
warpgroup MMA groups (sm.ASYNC_*). Used by trace.build_work.
"""
from __future__ import annotations

import re
from collections import Counter

import numpy as np

from ..engine.trace.info import InstrInfo
from .sm import (ASYNC_BULK, ASYNC_COMMIT, ASYNC_CP, ASYNC_CP_COMMIT, ASYNC_CP_MBAR, ASYNC_CP_WAIT, ASYNC_MBAR_EVENT,
                 ASYNC_MBAR_WAIT, ASYNC_MMA, ASYNC_WAIT, CL_ARRIVE, CL_ARRIVE_RELAXED, CL_WAIT, DEP_EXEC, DEP_TEX,
                 DEP_WAIT)
from .fusion import CONTROL_CLASSES, folded
from .pressure import register_units, uniform_registers
from .schedule import space_class
from .vectorize import load_groups

# op class -> pipe (GpuSpec.pipes names, plus "tex")
PIPE_OF_CLASS = {"fp32": "fp32", "int": "int", "fp64": "fp64", "sfu": "sfu", "tensor": "tensor", "lsu": "lsu",
                 "branch": "branch", "half": "half", "conv": "conv", "uniform": "uniform", "barrier": "branch",
                 "sync": "branch", "tex": "tex", "shfl": "lsu", "sleep": "branch", "nop": "int"}


def _derived(gpu, key: str, default: float) -> float:
    """A number the calibration derived (GpuSpec.measured["derived"]), else `default`."""
    v = (getattr(gpu, "measured", None) or {}).get("derived", {}).get(key)
    if isinstance(v, dict):
        v = v.get("value")
    return float(v) if isinstance(v, (int, float)) else default


_REG_NUMBER = re.compile(r"(\d+)$")
# integer instructions ptxas spreads over the integer and FMA pipes (IADD3 and IMAD.IADD / IMAD.MOV)
_TWO_PIPE_OPS = frozenset(("add", "sub", "mov", "cvt", "cvta"))
_LOGIC_OPS = frozenset(("and", "or", "xor", "not", "lop3", "shl", "shr", "shf", "prmt", "cnot"))
_IMAD_OPS = frozenset(("mul", "mad", "mul24", "mad24", "sad", "div", "rem", "dp4a", "dp2a", "madc"))


class StaticTable:
    """Per-PC arrays (indexed by pc) of what the SM loop needs from the instruction."""

    def __init__(self, trace: Trace, gpu, params, pcs: np.ndarray):
        n = int(pcs.max()) + 1 if pcs.size else 1
        self.size = n
        self.pipe_names = list(gpu.pipes) + ["tex", "alu"]
        pipe_id = {name: i for i, name in enumerate(self.pipe_names)}
        self.pipe = np.zeros(n, np.int64)
        self.issue = np.ones(n)
        self.latency = np.ones(n)
        self.dep = np.full(n, DEP_EXEC, np.int8)
        self.barrier = np.zeros(n, bool)
        self.cluster_bar = np.zeros(n, np.int8)  # barrier.cluster: sm.CL_ARRIVE_RELAXED / CL_ARRIVE / CL_WAIT
        self.sleep = np.zeros(n, np.int64)
        self.bank_extra = np.zeros(n, np.int64)
        self.ctrl = np.zeros(n, bool)
        self.lsu = np.zeros(n, bool)
        self.sched_latency = np.ones(n)  # the latency ptxas's list schedule assumes (loads: L2 hits)
        self.mem_kind = np.zeros(n, np.int8)  # for the schedule: 1 load, 2 store / atomic / other LSU
        # ... and what it may touch (schedule.SPACE_*): ptxas moves global loads past shared stores
        self.mem_space = np.zeros(n, np.int8)
        self.free = np.zeros(n, bool)  # moves of an immediate, forms ptxas removes (no issue slot)
        # issue slots: the machine instructions of the form (engine/trace/expansion.py)
        self.slots = np.ones(n, np.int64)
        self.merged = np.zeros(n, bool)  # shared loads merged into a leader's vector load (vectorize.py)
        self.asyn = np.zeros(n, np.int8)  # wgmma mma_async / commit_group / wait_group (sm.ASYNC_*)
        self.async_arg = np.zeros(n)
        self.reads: dict[int, tuple] = {}
        self.writes: dict[int, tuple] = {}
        reg_id: dict[str, int] = {}
        width = register_units(trace.program.regs)
        lsu = gpu.pipes["lsu"]
        load = {"alu": 0.0, "int": 0.0}  # issue cycles each pipe has taken in the current straight run
        fused, fused_reads, rotates = folded(trace, pcs) if params.fold_logic else (set(), {}, {})
        for p in pcs.tolist():
            info: InstrInfo = trace.info(p)
            name = PIPE_OF_CLASS.get(info.op_class, "int")
            pipe = gpu.pipes.get(name, lsu)
            interval = pipe.issue_interval
            if name == "int" and info.opcode not in _IMAD_OPS:
                # logic, shifts, compares, selects run on the 16-lane integer pipe (LOP3, SHF, ISETP);
                # adds, subs and moves on it (IADD3) or on the FMA pipe (IMAD.IADD, IMAD.MOV), where
                # ptxas balances the two over the straight run (benchmarks/timing/ifetch: 132 LOP3,
                # 124 IMAD.IADD and 12 IADD3/VIADD for 128 xor + 128 add, 1.12 cycles an instruction
                # with 4 warps per sub-partition)
                name, interval = "alu", params.alu_interval
                if info.opcode in _TWO_PIPE_OPS and load["int"] < load["alu"]:
                    name, interval = "int", params.imad_add_interval
            if name in load:
                load[name] += interval * max(info.sass, 1)
            if info.op_class in CONTROL_CLASSES:
                load = {"alu": 0.0, "int": 0.0}
            self.pipe[p] = pipe_id[name]
            self.issue[p] = interval * max(info.sass, 1)
            expanded = info.op_class in _EXPANDED
            if expanded:
                # a form ptxas removes (a rename: mov of a register pair, truncating or zero-extending
                # cvt, cvta.to.global) keeps one slot here: dropping it would cut its consumers'
                # dependence on its source's producer (trace.build_work drops only operand-less moves)
                self.slots[p] = max(info.sass, 1)
            if info.fixed:
                self.dep[p] = DEP_WAIT  # its consumers wait on stall counts (ncu "wait")
            lat = _sequence_latency(pipe.latency, info.sass) if info.sass or not expanded else params.mov_latency
            if info.op_class == "uniform":
                lat = gpu.pipes["uniform"].latency  # a constant-bank operand of its consumer
            elif info.op_class in ("barrier", "sync"):
                lat = gpu.latency["barrier"]
            elif info.op_class == "branch":
                lat = gpu.latency["branch"]
            elif info.op_class == "shfl":
                lat = params.shfl_latency
            elif info.op_class == "tex":
                lat = gpu.latency["tex_hit"]
                self.dep[p] = DEP_TEX
            if name == "alu" and (info.sass or not expanded):
                # adds, moves, compares, selects: the IADD3 latency (micro iadd 5.06; sass/latency
                # sel_iadd: SEL + IMAD.IADD 10); logic, shifts, permutes: the IMAD/FFMA latency (sass/latency
                # lop3, shf, prmt: 3.5 cycles a link, as ffma's 4-cycle chain measures in the same kernels)
                base = pipe.latency if info.opcode in _LOGIC_OPS else _derived(gpu, "iadd_latency", pipe.latency)
                lat = _sequence_latency(base, info.sass)
            if info.sass_latency:  # measured on the H200 for this form (engine/trace/expansion.py)
                lat = info.sass_latency
            if info.opcode == "mov" and info.op_class in ("int", "fp32", "fp64", "half"):
                lat = params.mov_latency  # register allocation and immediates fold most moves away
                self.free[p] = not info.reads and not info.sreg
            if info.sreg:
                lat = max(lat, params.sreg_latency)
            if info.opcode == "wgmma":
                lat = self._wgmma(p, info, gpu, params, lat)
            code = _ASYNC_CODE.get(info.asyn)
            if code:  # cp.async groups, bulk copies, mbarriers (sm.issue_async, timing/asyncs.py)
                self.asyn[p] = code
                self.async_arg[p] = info.asyn_arg
                if code == ASYNC_MBAR_WAIT:
                    lat = params.mbar_wait_latency
            sfu_fp32 = 0
            if info.op_class == "sfu":
                # SASS: one MUFU plus FP32 instructions around it (ex2/lg2/rsqrt without .ftz:
                # FSETP, @p FMUL, MUFU, @p FMUL for denormals; sin/cos: FMUL.RZ, MUFU), not several
                # MUFUs; the FP32 ones take issue slots (self.slots) and add their latency
                sfu_fp32 = max(info.sass - 1, 0)
                if sfu_fp32:
                    self.issue[p] = pipe.issue_interval
                    lat = pipe.latency + min(sfu_fp32, 3) * gpu.pipes["fp32"].latency
            if p in rotates:  # a funnel shift: its shift's pipe, issue and latency (timing/fusion.py)
                q = rotates[p]
                self.pipe[p], self.issue[p], lat = self.pipe[q], self.issue[q], self.latency[q]
            self.latency[p] = lat
            mem = info.mem
            if mem is not None and info.op_class != "uniform":
                is_load = mem.load and not mem.store and not mem.atomic
                self.mem_kind[p] = 1 if is_load else 2
                self.mem_space[p] = space_class(mem.space)
                level = {"shared": "shared", "const": "const_hit", "param": "const_hit"}.get(mem.space, "l2_hit")
                if mem.cluster:  # a generic LD in SASS, which ptxas schedules as a long-latency load
                    level = "l2_hit"
                self.sched_latency[p] = gpu.latency[level] if is_load else lat
            else:
                self.mem_kind[p] = 2 if name in ("lsu", "tex") else 0
                self.sched_latency[p] = lat
            # barrier.cluster.arrive / wait are not CTA barriers: the SM model's cluster barrier
            # (sm.py SmSim.cluster_barrier) takes the arrival and holds the wait
            self.cluster_bar[p] = _CLUSTER_BAR_CODE.get(info.cluster_bar, 0)
            self.barrier[p] = info.is_barrier and not self.cluster_bar[p]
            self.ctrl[p] = info.op_class in CONTROL_CLASSES or \
                (info.opcode == "wgmma" and self.asyn[p] != ASYNC_MMA) or \
                self.asyn[p] >= ASYNC_CP_COMMIT  # fences, commits, waits, mbarriers: kept in place
            self.lsu[p] = name in ("lsu", "tex")
            self.sleep[p] = int(info.sleep_ns * gpu.clock_hz / 1e9) if info.sleep_ns else 0
            self.reads[p] = tuple(reg_id.setdefault(r, len(reg_id)) for r in fused_reads.get(p, info.reads))
            if p in fused:  # folded into a LOP3 / funnel shift (timing/fusion.py): no slot of its own
                self.free[p] = True
            self.writes[p] = tuple(reg_id.setdefault(r, len(reg_id)) for r in info.writes)
            if params.reg_banks > 1 and info.op_class in ("fp32", "int", "fp64", "half") and len(info.reads) >= 3:
                banks = Counter(int(m.group(1)) % params.reg_banks for r in info.reads
                                if (m := _REG_NUMBER.search(r)) and not r.startswith("%p"))
                self.bank_extra[p] = max(0, max(banks.values(), default=0) - 2)
            groups = load_groups(trace)
        # register id -> 32-bit registers it takes (the list schedule's register budget, pressure.py)
        self.units: dict[int, int] = {i: width.get(name, 0) for name, i in reg_id.items()}
        # ... and which hold warp-uniform values (the uniform register file, pressure.py)
        self.uniform = frozenset(reg_id[r] for r in uniform_registers(trace.info(p) for p in pcs.tolist())
                                 if r in reg_id)
        for f, lead in groups.leader_of.items():
            if f < n and lead < n and f in self.writes and lead in self.writes:
                self.merged[f] = True
                self.writes[lead] = self.writes[lead] + tuple(r for r in self.writes[f] if r not in self.writes[lead])

    def _wgmma(self, p: int, info: InstrInfo, gpu, params, lat: float) -> float:
        """Warpgroup MMA (micro2 `wg_*`): each warp of the warpgroup holds its sub-partition's
        tensor pipe for N/2 cycles per m64nN wgmma whatever the type (f16/bf16 k16 and tf32 k8
        alike: 4096 dense f16 FLOP/clk/SM, tf32 half that); wgmmas on the same accumulators
        follow each other at that rate; a group completes `wgmma_latency` + N/2 cycles after its
        last wgmma issued, and wait_group waits for it. Returns the accumulators' latency."""
        m = _WGMMA.search(info.text)
        if m is None:
            return lat
        what = m.group(1)
        if what == "mma_async":
            shape = _WGMMA_SHAPE.search(info.text)
            n = int(shape.group(1)) if shape else 64
            busy = n / 2.0
            self.issue[p] = busy
            self.asyn[p] = ASYNC_MMA
            self.async_arg[p] = params.wgmma_latency + busy
            return busy
        if what == "commit_group":
            self.asyn[p] = ASYNC_COMMIT
        elif what == "wait_group":
            w = _TRAILING_INT.search(info.text)
            self.asyn[p] = ASYNC_WAIT
            self.async_arg[p] = int(w.group(1)) if w else 0
        self.issue[p] = 1.0
        return 1.0


# classes whose SASS count comes from the expansion table: each machine instruction is an issue
_EXPANDED = frozenset(("int", "fp32", "fp64", "half", "conv", "sfu"))


def _sequence_latency(latency: float, sass: int) -> float:
    """Dependent latency of a form's SASS: one instruction's latency for 1; a pair (64-bit halves,
    the high one after the low one's carry, a cycle later) one more cycle; longer sequences
    (division, IEEE rcp/sqrt: dependent Newton steps) one latency per instruction, as before."""
    if sass <= 1:
        return latency
    if sass == 2:
        return latency + 1
    return latency * sass


_ASYNC_CODE = {"cp_async": ASYNC_CP, "cp_commit": ASYNC_CP_COMMIT, "cp_wait": ASYNC_CP_WAIT,
               "cp_mbar_arrive": ASYNC_CP_MBAR, "bulk_load": ASYNC_BULK, "bulk_tensor": ASYNC_BULK,
               "mbar_event": ASYNC_MBAR_EVENT, "mbar_wait": ASYNC_MBAR_WAIT}
_CLUSTER_BAR_CODE = {"arrive_relaxed": CL_ARRIVE_RELAXED, "arrive": CL_ARRIVE, "wait": CL_WAIT}
_WGMMA = re.compile(r"wgmma\.(mma_async|commit_group|wait_group|fence)")
_WGMMA_SHAPE = re.compile(r"\.m64n(\d+)k\d+")
_TRAILING_INT = re.compile(r"(\d+)\s*;?\s*$")
