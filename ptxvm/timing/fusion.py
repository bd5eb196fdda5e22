"""Bit operations ptxas folds together: what the PTX spells in several instructions, one SASS does.

* Logic trees: `and`, `or`, `xor`, `not` (and `lop3`) whose result only one other logic
  instruction of the same width reads become part of that instruction's LOP3, as long as the
  tree keeps to three inputs (LOP3 computes any function of three): `a ^ (~b & c)` is one LOP3
  per 32-bit half, not three instructions; `a ^ b ^ c ^ d ^ e` is two.
* Rotates: `shl x, k; shr x, w - k; add/or` of the two (how NVVM writes a rotate) is one funnel
  shift per 32-bit half (SHF.L.W), not three instructions.

The folded instruction takes no issue slot (trace.build_work drops it as it drops immediate moves),
and the instruction it folded into reads what it read, so the scoreboard still waits for its
inputs. Found on Keccak-f[1600] (benchmarks/timing/heldout/keccak): ptxas 13.0 makes 4768 SASS of
the kernel whose PTX forms count 10329.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from ..syntax import ast
from .icache import function_ranges

_LOGIC = frozenset(("and", "or", "xor", "not", "lop3"))
# op classes that end a straight run (static.py's `ctrl`, trace.py and vectorize.py use them too)
CONTROL_CLASSES = frozenset(("branch", "barrier", "sync", "sleep"))
_MAX_INPUTS = 3


def _shape(op) -> tuple[str, int]:
    """(type of the form, how many of its sources are immediates) from its PTX instruction."""
    origin = getattr(op, "origin", None)
    if origin is None:
        return "", 0
    instr = origin[0]
    width = instr.modifiers[-1] if instr.modifiers else ""
    return width, sum(isinstance(x, ast.Immediate) for x in instr.operands[1:])


def folded(trace, pcs) -> tuple[set, dict, dict]:
    """(PCs ptxas folds into another instruction, {PC: the registers it reads once folded}, {PC of
    a rotate's add/or: PC of its shift, whose pipe and latency the funnel shift has}) for the
    executed `pcs` of the traced program (registers counted over the functions they fall in)."""
    code = trace.program.code
    infos: dict = {}
    shapes: dict = {}
    defs, uses = Counter(), Counter()
    for start, end in function_ranges(trace.program, np.asarray(pcs)):
        for p in range(start, end):
            i = infos[p] = trace.info(p)
            defs.update(i.writes)
            uses.update(i.reads)
            if i.opcode in _LOGIC:
                shapes[p] = _shape(code[p])
    gone: set = set()
    reads: dict = {}
    shifts: dict = {}
    live = set(int(p) for p in pcs)
    for p in sorted(live):
        i = infos[p]
        if i.opcode in ("add", "or") and p >= 2 and p - 1 in live and p - 2 in live and len(i.reads) == 2:
            a, b = infos[p - 2], infos[p - 1]
            if ({a.opcode, b.opcode} == {"shl", "shr"} and len(a.reads) == 1 and a.reads == b.reads
                    and set(i.reads) == set(a.writes) | set(b.writes) and len(set(i.reads)) == 2):
                gone.update((p - 2, p - 1))
                reads[p] = a.reads
                shifts[p] = p - 2 if a.opcode == "shl" else p - 1
                continue
        if i.opcode not in _LOGIC or not i.writes:
            continue
        srcs = list(reads.get(p, i.reads))
        width, extra = shapes[p]
        changed = True
        while changed:
            changed = False
            for r in list(srcs):
                q = _producer(infos, live, gone, p, r)
                if q is None or _only_reader(infos, live, q, r, defs, uses) != p:
                    continue
                j = infos[q]
                if j.opcode not in _LOGIC or shapes[q][0] != width:
                    continue
                merged = [s for s in srcs if s != r] + [s for s in reads.get(q, j.reads) if s not in srcs or s == r]
                merged = list(dict.fromkeys(merged))
                n_imm = extra + shapes[q][1]
                if len(merged) + n_imm > _MAX_INPUTS:
                    continue
                gone.add(q)
                srcs, extra, changed = merged, n_imm, True
        if srcs != list(i.reads):
            reads[p] = tuple(srcs)
    return gone, reads, shifts


def _only_reader(infos, live, q: int, reg: str, defs, uses):
    """The one instruction that reads the value q writes to `reg` (None if several may): the
    readers up to the value's next definition in q's straight run; a value still live where the run
    ends has one reader only if the register has one definition and one use in its function."""
    reader = None
    k = q + 1
    while k in live:
        j = infos[k]
        if reg in j.reads:
            if reader is not None:
                return None
            reader = k
        if reg in j.writes:
            return reader
        if j.op_class in CONTROL_CLASSES:
            break
        k += 1
    return reader if defs[reg] == 1 and uses[reg] == 1 else None


def _producer(infos, live, gone, p: int, reg: str):
    """The instruction before p in its straight run that writes `reg`, if any."""
    q = p - 1
    while q >= 0 and q in live:
        j = infos[q]
        if j.op_class in CONTROL_CLASSES:
            return None
        if reg in j.writes:
            return None if q in gone else q
        q -= 1
    return None
