"""What the timing model needs to know about one instruction, read off its PTX form once.

`describe(op, pc)` turns a lowered `Op` (through the instruction and ISA match it came from) into
an `InstrInfo`: the op class (which functional unit issues it), how many machine instructions it
expands to, the registers it reads and writes (names, for a scoreboard), its floating-point work,
and for memory instructions a `MemInfo` with the state space, access size, vector width and cache
qualifiers. Built lazily, only when a launch is traced.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ...syntax import ast
from .expansion import expansion

# Op classes. The first ten are GpuSpec pipe names; the others map onto pipes in ptxvm.timing.
OP_CLASSES = ("fp32", "int", "fp64", "sfu", "tensor", "lsu", "branch", "half", "conv", "uniform",
              "barrier", "sync", "tex", "shfl", "sleep", "nop")

SPACE_CODES = {"global": 0, "shared": 1, "local": 2, "const": 3, "param": 4}
CACHE_OPS = ("ca", "cg", "cs", "lu", "cv", "wb", "wt")
EVICT = {"L1::evict_normal": "normal", "L1::evict_first": "first", "L1::evict_last": "last",
         "L1::evict_unchanged": "unchanged", "L1::no_allocate": "no_allocate"}
L2_EVICT = {"L2::evict_normal": "normal", "L2::evict_first": "first", "L2::evict_last": "last"}
PREFETCH = {"L2::64B": 64, "L2::128B": 128, "L2::256B": 256}


@dataclass(frozen=True)
class MemInfo:
    space: str  # "global" "shared" "local" "const" "param", or "generic" (resolved per lane)
    size: int  # bytes per element
    vector: int  # elements per lane (v2, v4)
    load: bool
    store: bool
    atomic: bool = False
    cache_op: str = ""  # ca cg cs lu cv wb wt, "" for the default
    l1_evict: str = "normal"  # normal first last unchanged no_allocate
    l2_evict: str = "normal"
    nc: bool = False  # ld.global.nc: the read-only (texture) path
    prefetch: int = 0  # L2::64B/128B/256B prefetch size
    atomic_op: str = ""  # atom/red: operation and type, e.g. "add.u32", "add.f32", "cas.b32"
    cluster: bool = False  # a .shared::cluster access (ptxas: a generic LD/ST/ATOM, whatever CTA it names)

    @property
    def bytes_per_lane(self) -> int:
        return self.size * self.vector


@dataclass(frozen=True)
class InstrInfo:
    pc: int
    line: int
    text: str
    opcode: str
    op_class: str
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    mem: Optional[MemInfo] = None
    sass: int = 1  # machine instructions it expands to (issue slots on its pipe)
    flops: float = 0.0  # floating-point operations per active thread
    flop_kind: str = ""  # "fp32" "fp64" "fp16" "tensor"
    sleep_ns: int = 0  # nanosleep: the requested duration
    sreg: bool = False  # reads a special register (%tid, %ctaid, %clock...): S2R latency
    # asynchronous copies and mbarriers (ASYNC_ROLES) and the wait_group count
    asyn: str = ""
    asyn_arg: int = 0
    # barrier.cluster: "arrive" (release semantics, the default), "arrive_relaxed" or "wait"
    cluster_bar: str = ""
    # the result has a fixed latency: consumers wait on the control codes' stall counts (ncu "wait");
    # False: a variable-latency result behind a dependency barrier (MUFU, shuffles, S2R, memory)
    fixed: bool = False
    # dependent latency of the whole SASS sequence where the H200 measured one (expansion.py); 0: the class's
    sass_latency: float = 0.0
    # wmma.load/store, ldmatrix, stmatrix: the MOVM instructions among `sass`, and whether its
    # shared-memory accesses are LDSM / STSM (engine/trace/matrix.py)
    movm: int = 0
    matrix_ldsm: bool = False

    @property
    def is_barrier(self) -> bool:
        return self.op_class == "barrier"


_TYPE_BITS = {"8": 8, "16": 16, "32": 32, "64": 64, "128": 128}
_SFU = {"rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh"}
_BRANCH = {"bra", "brx", "call", "ret", "exit", "trap", "brkpt"}
_TENSOR = {"mma", "wmma", "wgmma", "tcgen05"}
_TEX = {"tex", "tld4", "txq", "suld", "sust", "sured", "suq"}
_SHFL = {"shfl"}
_SYNC = {"membar", "fence", "griddepcontrol", "elect"}
_BARRIER = {"bar", "barrier"}
_MEM = {"ld", "ldu", "st", "atom", "red"}
_LSU_OTHER = {"cp", "prefetch", "prefetchu", "mbarrier", "ldmatrix", "stmatrix", "applypriority", "discard",
              "cvta", "isspacep", "createpolicy", "getctarank", "mapa", "multimem", "st.async", "red.async", "tensormap"}
_ATOMIC_OPS = {"add", "min", "max", "and", "or", "xor", "exch", "cas", "inc", "dec"}
_FLOAT_FLOPS = {"add": 1, "sub": 1, "mul": 1, "fma": 2, "mad": 2}
_NO_DST = {"st", "red", "bar", "barrier", "bra", "brx", "ret", "exit", "membar", "fence", "prefetch", "prefetchu",
           "trap", "brkpt", "nanosleep", "sust", "sured", "pmevent", "cp", "discard", "applypriority",
           "griddepcontrol", "stmatrix", "setmaxnreg", "wgmma", "tensormap"}


def describe(op, pc: int) -> InstrInfo:
    """The timing-relevant facts of the instruction `op` (a lowered engine Op) at `pc`."""
    origin = getattr(op, "origin", None)
    if origin is None:  # the implicit return the lowerer appends at a function's end
        return InstrInfo(pc, op.line, op.text or "ret", "ret", "branch")
    instr, m = origin
    opcode = instr.opcode
    mods = instr.modifiers
    types = _types(mods)
    op_class, sass = _classify(opcode, mods, types, m)
    fixed, sass_latency = False, 0.0
    if op_class in _TABLE_CLASSES:  # SASS count and latency kind from the expansion table
        pair = opcode == "mov" and any(isinstance(x, ast.VectorOperand) for x in instr.operands)
        exp = expansion(opcode, mods, types, pair_move=pair)
        sass, fixed = exp.sass, exp.fixed and op_class != "sfu"
        sass_latency = exp.latency or 0.0
    mem = _mem_info(op, opcode, mods, types) if opcode in _MEM else None
    refs = getattr(op, "matrix", None)
    movm, ldsm = 0, False
    if refs is not None:  # wmma.load/store, ldmatrix, stmatrix: the machine loads / stores ptxas makes
        plan = refs.plan
        op_class, sass, movm, ldsm = "lsu", plan.instructions, plan.movm, plan.ldsm
        mem = MemInfo(refs.space or "generic", plan.accesses[0].size, 1, refs.load, not refs.load)
    flops, flop_kind = _flops(opcode, mods, types, op_class)
    reads, writes = _registers(instr, m)
    asyn, asyn_arg = async_role(opcode, mods, instr.operands)
    if asyn == "cp_async":  # its global read is a load as far as the memory system goes
        size = _immediate(instr.operands[2]) if len(instr.operands) > 2 else 16
        mem = MemInfo("global", size or 16, 1, True, False, cache_op="cg" if "cg" in mods else "ca")
    if mem is not None and mem.space == "param" and getattr(op, "space", None) == "kparam" and mem.load:
        op_class = "uniform"  # kernel parameters are constant-bank operands in the machine code
    sleep = _immediate(instr.operands[0]) if opcode == "nanosleep" and instr.operands else 0
    sreg = any(_reads_special(node) for node in instr.operands)
    if sreg:
        fixed = False  # S2R: a dependency barrier
    if op_class == "tensor" and opcode == "mma":
        fixed = True  # HMMA: a fixed latency in its control codes (stall counts, no barrier)
    return InstrInfo(pc, op.line, op.text, opcode, op_class, reads, writes, mem, sass, flops, flop_kind, sleep or 0,
                     sreg, asyn, asyn_arg, cluster_barrier_role(opcode, mods), fixed, sass_latency, movm, ldsm)


def cluster_barrier_role(opcode: str, mods) -> str:
    """"arrive" / "arrive_relaxed" / "wait" for barrier.cluster.*, "" for anything else."""
    if opcode != "barrier" or "cluster" not in mods:
        return ""
    if "arrive" in mods:
        return "arrive_relaxed" if "relaxed" in mods else "arrive"
    return "wait" if "wait" in mods else ""


# classes whose machine-instruction count comes from the expansion table (expansion.py)
_TABLE_CLASSES = frozenset(("int", "fp32", "fp64", "half", "conv", "sfu"))


# the roles of asynchronous-copy and mbarrier instructions in the timing model (ptxvm.timing.asyncs)
ASYNC_ROLES = ("cp_async", "cp_commit", "cp_wait", "cp_mbar_arrive", "bulk_load", "bulk_tensor", "bulk_other",
               "bulk_commit", "bulk_wait", "mbar_event", "mbar_wait", "mbar_other")


def async_role(opcode: str, mods, operands) -> tuple[str, int]:
    """(role, argument) of a cp.async* / cp.reduce.async.bulk / mbarrier instruction, ("", 0) for
    anything else. The argument is N of a wait_group (-1: wait_all)."""
    if opcode == "mbarrier":
        kind = mods[0] if mods else ""
        if kind in ("arrive", "arrive_drop", "expect_tx", "complete_tx"):
            return "mbar_event", 0
        if kind in ("test_wait", "try_wait"):
            return "mbar_wait", 0
        return "mbar_other", 0
    if opcode != "cp" or "async" not in mods:
        return "", 0
    if "mbarrier" in mods and "bulk" not in mods:
        return "cp_mbar_arrive", 0
    bulk = "bulk" in mods
    if "commit_group" in mods:
        return ("bulk_commit" if bulk else "cp_commit"), 0
    if "wait_group" in mods or "wait_all" in mods:
        n = _immediate(operands[0]) if operands and "wait_group" in mods else -1
        return ("bulk_wait" if bulk else "cp_wait"), (-1 if n is None else n)
    if bulk:
        if "reduce" in mods or "prefetch" in mods:
            return "bulk_other", 0
        spaces = [x for x in mods if x in ("global", "shared::cta", "shared::cluster", "shared")]
        load = len(spaces) >= 2 and spaces[1] == "global" and spaces[0] != "global" and "multicast::cluster" not in mods
        if load and "tensor" in mods:
            return ("bulk_tensor" if "im2col" not in mods else "bulk_other"), 0
        return ("bulk_load" if load else "bulk_other"), 0
    return "cp_async", 0


def _reads_special(node) -> bool:
    from ..core.sregs import is_special

    if isinstance(node, ast.Register):
        return is_special(node.name)
    if isinstance(node, ast.VectorOperand):
        return any(_reads_special(e) for e in node.elements)
    return False


def _types(mods: tuple[str, ...]) -> list[str]:
    out = []
    for x in mods:
        if x in ("pred",):
            out.append(x)
        elif len(x) >= 2 and x[0] in "usbf" and (x[1:] in _TYPE_BITS or x in ("f16x2", "bf16", "bf16x2", "e4m3", "e5m2")):
            out.append(x)
        elif x in ("bf16", "bf16x2", "f16x2", "tf32", "e4m3x2", "e5m2x2"):
            out.append(x)
    return out


def _is_half(t: str) -> bool:
    return t in ("f16", "f16x2", "bf16", "bf16x2")


def _bits(t: str) -> int:
    digits = "".join(c for c in t if c.isdigit())
    return int(digits[:3]) if digits else 32


def _classify(opcode: str, mods, types: list[str], m) -> tuple[str, int]:
    """(op class, machine instructions per PTX instruction)."""
    last = types[-1] if types else ""
    if opcode in _MEM:
        return "lsu", 1
    if opcode in _BRANCH:
        return "branch", 1
    if opcode in _BARRIER:
        return ("barrier", 1) if "warp" not in mods else ("int", 1)
    if opcode in _TENSOR:
        return "tensor", _mma_issues(mods, opcode)
    if opcode in _TEX:
        return "tex", 1
    if opcode in _SHFL:
        return "shfl", 1
    if opcode in _SYNC:
        return "sync", 1
    if opcode == "nanosleep":
        return "sleep", 1
    if opcode in _LSU_OTHER:
        return ("int", 1) if opcode in ("cvta", "isspacep", "createpolicy", "mapa", "getctarank") else ("lsu", 1)
    if opcode == "cvt":
        return _classify_cvt(mods, types)
    if any(t == "f64" for t in types):
        if opcode in ("div", "rcp", "sqrt", "rsqrt"):
            return "fp64", 12 if "approx" not in mods else 2
        return "fp64", 1
    if any(_is_half(t) for t in types):
        return ("sfu", 1) if opcode in _SFU else ("half", 1)
    if last == "f32" or "f32" in types:
        if opcode in _SFU:
            if "approx" in mods or opcode in ("sin", "cos", "lg2", "ex2", "tanh", "rsqrt"):
                return "sfu", 1 + (1 if "ftz" not in mods and opcode in ("lg2", "ex2", "rsqrt") else 0)
            return "fp32", 6 if opcode == "rcp" else 8  # IEEE rcp/sqrt: MUFU seed plus Newton steps
        if opcode == "div":
            return ("fp32", 2) if ("approx" in mods or "full" in mods) else ("fp32", 10)
        return "fp32", 1
    # integer and bit instructions
    wide64 = any(_bits(t) == 64 for t in types)
    if opcode in ("div", "rem"):
        return "int", 60 if wide64 else 18
    if opcode in ("mul", "mad") and wide64 and "wide" not in mods:
        return "int", 3
    if opcode in ("add", "sub", "addc", "subc", "min", "max", "abs", "neg", "setp", "shl", "shr", "and", "or",
                  "xor", "not", "selp", "slct", "shf") and wide64:
        return "int", 2
    if opcode in ("mov",) and m is None:
        return "int", 1
    return "int", 1


def _classify_cvt(mods, types: list[str]) -> tuple[str, int]:
    if len(types) < 2:
        return "int", 1
    d, s = types[0], types[1]
    fd, fs = d[0] == "f" or _is_half(d), s[0] == "f" or _is_half(s)
    if not fd and not fs:
        return "int", 1  # integer width changes: a move or a sign extension
    if "f64" in (d, s):
        return "fp64", 1
    if fd and fs and d == s:
        return "fp32", 1  # cvt.rni.f32.f32 and friends: FRND
    return "conv", 1


def _mma_issues(mods, opcode: str) -> int:
    """Tensor-pipe issues of one mma: shapes larger than the m16n8k16 step take several."""
    for x in mods:
        if x.startswith("m") and "n" in x and "k" in x:
            try:
                mm, rest = x[1:].split("n")
                nn, kk = rest.split("k")
                work = int(mm) * int(nn) * int(kk)
            except ValueError:
                continue
            if opcode == "wgmma":
                return max(1, work // (64 * 8 * 16))
            return max(1, work // (16 * 8 * 16))
    return 1


def _mma_flops_per_thread(mods, opcode: str) -> float:
    for x in mods:
        if x.startswith("m") and "n" in x and "k" in x:
            try:
                mm, rest = x[1:].split("n")
                nn, kk = rest.split("k")
                threads = 128 if opcode == "wgmma" else 32
                return 2.0 * int(mm) * int(nn) * int(kk) / threads
            except ValueError:
                continue
    return 0.0


def _flops(opcode: str, mods, types: list[str], op_class: str) -> tuple[float, str]:
    if op_class == "tensor":
        return _mma_flops_per_thread(mods, opcode), "tensor"
    n = _FLOAT_FLOPS.get(opcode)
    if n is None or not types:
        return 0.0, ""
    t = types[-1]
    if t == "f32":
        return float(n), "fp32"
    if t == "f64":
        return float(n), "fp64"
    if t in ("f16", "bf16"):
        return float(n), "fp16"
    if t in ("f16x2", "bf16x2"):
        return 2.0 * n, "fp16"
    return 0.0, ""


def _mem_info(op, opcode: str, mods, types: list[str]) -> MemInfo:
    space = _space(getattr(op, "space", None), mods)
    t = types[-1] if types else "b32"
    size = max(1, _bits(t) // 8)
    vector = 1
    for x in mods:
        if x in ("v2", "v4", "v8"):
            vector = int(x[1])
    cache_op = next((x for x in mods if x in CACHE_OPS), "")
    l1 = next((EVICT[x] for x in mods if x in EVICT), "normal")
    l2 = next((L2_EVICT[x] for x in mods if x in L2_EVICT), "normal")
    prefetch = next((PREFETCH[x] for x in mods if x in PREFETCH), 0)
    store = opcode in ("st", "red")
    atomic = opcode in ("atom", "red")
    load = opcode in ("ld", "ldu", "atom")
    name = next((x for x in mods if x in _ATOMIC_OPS), "") if atomic else ""
    return MemInfo(space, size, vector, load, store, atomic, cache_op, l1, l2, "nc" in mods or opcode == "ldu", prefetch,
                   f"{name}.{t}" if name else "", "shared::cluster" in mods)


def _space(engine_space: Optional[str], mods) -> str:
    if engine_space is None:
        return "generic"
    if engine_space.startswith("shared"):
        return "shared"
    if engine_space in ("kparam",):
        return "param"
    if engine_space in ("fparam", "local", "slocal"):
        return "local"
    return engine_space


def _immediate(node) -> Optional[int]:
    if isinstance(node, ast.Immediate):
        from ...syntax.constexpr import evaluate

        try:
            return int(evaluate(node.expr))
        except Exception:  # noqa: BLE001 - a symbolic duration: unknown
            return None
    return None


# ---------------------------------------------------------------------------- registers


def _registers(instr: ast.Instruction, m) -> tuple[tuple[str, ...], tuple[str, ...]]:
    reads: list[str] = []
    writes: list[str] = []
    if instr.guard is not None:
        reads.append(instr.guard.register)
    specs = m.operands if m is not None else None
    for i, node in enumerate(instr.operands):
        if specs is not None and i < len(specs):
            role = specs[i].role.value
        else:
            role = "src" if (i > 0 or instr.opcode in _NO_DST or isinstance(node, ast.Address)) else "dst"
        if isinstance(node, ast.Address):
            _names(node.base, reads)
            continue
        if role == "dst":
            _names(node, writes)
        elif role == "src":
            _names(node, reads)
        else:
            _names(node, reads)
            _names(node, writes)
    return tuple(dict.fromkeys(reads)), tuple(dict.fromkeys(writes))


def _names(node, out: list[str]) -> None:
    from ..core.sregs import is_special

    if isinstance(node, ast.Register):
        if not is_special(node.name):
            out.append(node.name if node.component is None else f"{node.name}.{node.component}")
    elif isinstance(node, ast.PredPair):
        _names(node.first, out)
        _names(node.second, out)
    elif isinstance(node, (ast.VectorOperand, ast.BracketList, ast.ParamList)):
        for e in node.elements:
            _names(e, out)
    elif isinstance(node, ast.Address):
        _names(node.base, out)
