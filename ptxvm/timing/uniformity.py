"""Which registers ptxas can prove warp-uniform: a small analysis of the PTX for the timing model.

ptxas puts values it can prove equal in every lane of a warp on the uniform datapath (UR
registers): an atomic at such an address is aggregated per warp (timing/atomics.py), an ld.const
at such an address becomes ULDC instead of LDC (timing/memory/hierarchy.py `const_load`).
Uniform sources: kernel parameters, immediates, %ctaid/%ntid/... (not %tid, %laneid, %clock...),
loads from uniform addresses (not local memory, not atomics) and arithmetic on uniform values.
Per function, a register is uniform unless some instruction that writes it is not such an
instruction or reads a register that is not uniform (a fixpoint; control flow is not considered:
a value written under a lane-varying branch still counts as uniform, as written).
"""
from __future__ import annotations

import re
import weakref
from dataclasses import dataclass

import numpy as np

from ..engine.core.sregs import is_special
from ..engine.trace.info import describe

# special registers that are the same for every lane of a warp
_UNIFORM_SREGS = {"%ctaid", "%nctaid", "%ntid", "%nclusterid", "%clusterid", "%cluster_ctaid", "%cluster_nctaid",
                  "%cluster_ctarank", "%cluster_nctarank", "%is_explicit_cluster", "%gridid", "%nsmid", "%nwarpid"}
# instructions whose result is uniform when every register they read is
_PURE = {"mov", "cvta", "cvt", "add", "sub", "mul", "mad", "mul24", "mad24", "shl", "shr", "and", "or", "xor", "not",
         "neg", "min", "max", "selp", "setp", "div", "rem", "abs", "bfe", "bfi", "prmt", "ld", "ldu", "shf", "cnot",
         "popc", "clz", "brev", "lop3", "set", "slct", "fma", "ex2", "lg2", "rcp", "sqrt", "rsqrt"}
_SREG = re.compile(r"%[a-z_]+")


def _reads_lane_varying_sreg(text: str) -> bool:
    return any(is_special(tok) and tok not in _UNIFORM_SREGS for tok in _SREG.findall(text))


def _uniform_result(info) -> bool:
    """Whether the instruction's result is the same in every lane when its registers are."""
    if info.opcode not in _PURE or (info.sreg and _reads_lane_varying_sreg(info.text)):
        return False
    mem = info.mem
    return mem is None or (mem.load and not mem.atomic and mem.space != "local")


@dataclass(frozen=True)
class Uniformity:
    infos: list  # InstrInfo per PC
    func: list  # PC -> index of its function
    varying: frozenset  # (function, register) pairs that may differ between lanes

    def uniform(self, pc: int, registers) -> bool:
        """Whether all of `registers`, as read at `pc`, are warp-uniform."""
        f = self.func[pc]
        return not any((f, r) in self.varying for r in registers)


def per_program(analysis):
    """`analysis(program)` computed once per lowered Program (and again when a launch has lowered
    more of it: functions are lowered on demand) and dropped with it (the timing model asks for
    the same program's facts at every launch it profiles)."""
    cache: dict = {}  # id(program) -> (its version, result)

    def cached(program):
        key, version = id(program), getattr(program, "version", 0)
        got = cache.get(key)
        if got is None or got[0] != version:
            if got is None:
                weakref.finalize(program, cache.pop, key, None)
            got = cache[key] = (version, analysis(program))
        return got[1]

    cached.__name__, cached.__doc__ = analysis.__name__, analysis.__doc__
    return cached


@per_program
def warp_uniformity(program) -> Uniformity:
    """The analysis of a lowered Program (computed once per program)."""
    return _analyse(program)


def _analyse(program) -> Uniformity:
    code = program.code
    starts = sorted(f.entry_pc for f in program.functions.values())
    func = np.searchsorted(np.asarray(starts), np.arange(len(code)), side="right").tolist()
    infos = [describe(op, pc) for pc, op in enumerate(code)]
    varying: set = set()  # (function, register)
    changed = True
    while changed:
        changed = False
        for info in infos:
            f = func[info.pc]
            if not info.writes or all((f, w) in varying for w in info.writes):
                continue
            if not _uniform_result(info) or any((f, r) in varying for r in info.reads):
                varying.update((f, w) for w in info.writes)
                changed = True
    return Uniformity(infos, func, frozenset(varying))


def address_registers(op) -> set:
    """The registers a memory instruction's address is made of."""
    from ..syntax import ast

    return {node.base.name for node in op.origin[0].operands
            if isinstance(node, ast.Address) and isinstance(node.base, ast.Register)}


@per_program
def uldc_pcs(program) -> frozenset:
    """PCs of the ld.const whose address ptxas can prove warp-uniform: ULDC (the uniform datapath's
    constant load) in SASS; every other ld.const is an LDC (benchmarks/timing/constmem/const.cu:
    uchase and const_broadcast's loop compile to ULDC, dchase's lane-offset chase to LDC)."""
    u = warp_uniformity(program)
    code = program.code
    return frozenset(info.pc for info in u.infos
                     if info.mem is not None and info.mem.space == "const" and info.mem.load
                     and not info.mem.atomic and u.uniform(info.pc, address_registers(code[info.pc])))
