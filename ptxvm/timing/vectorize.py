"""Scalar shared-memory loads that ptxas merges into one vector load (LDS.64 / LDS.128).

nvcc's PTX reads a row of a shared tile one float at a time (`ld.shared.f32 [%r7]`,
`[%r7+4]`, `[%r7+8]`, `[%r7+12]`); ptxas, which knows the tile's alignment, emits one LDS.128
(the tiled SGEMM of benchmarks/timing/micro2/check_kernels.cu: 4 LDS.128 + 16 LDS per 16 FMAs
instead of 32 LDS). The shared-memory pipe then sees a quarter of the instructions, and a
broadcast row costs one 16-byte access instead of four 4-byte ones.

`load_groups(trace)` finds such groups statically: within a straight stretch of code (no branch,
barrier or fence between), non-volatile 4-byte scalar `ld.shared` with the same base register and
constant offsets o, o+4, o+8, o+12 (o a multiple of 16) or o, o+4 (o a multiple of 8), with no
shared store or atomic and no write of the base register in between. The first load of a group
(the leader) becomes the vector load; the others (followers) are dropped and their registers
come with the leader's data.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .fusion import CONTROL_CLASSES

_ADDR = re.compile(r"\[\s*([%\w$.]+)\s*(?:\+\s*(-?(?:0x[0-9a-fA-F]+|\d+)))?\s*\]")


@dataclass
class LoadGroups:
    width: dict = field(default_factory=dict)  # leader pc -> 4-byte words it loads per lane
    leader_of: dict = field(default_factory=dict)  # follower pc -> leader pc


_CACHE: dict = {}


def load_groups(trace) -> LoadGroups:
    key = id(trace.program)
    version = getattr(trace.program, "version", 0)  # functions are lowered on demand
    got = _CACHE.get(key)
    if got is not None and got[0] is trace.program and got[2] == version:
        return got[1]
    groups = _find(trace, len(trace.program.code))
    _CACHE[key] = (trace.program, groups, version)
    return groups


def _find(trace, n: int) -> LoadGroups:
    """Per function (registers are named per function), the groups of its code."""
    out = LoadGroups()
    funcs = getattr(trace.program, "functions", None) or {}
    starts = sorted({int(f.entry_pc) for f in funcs.values() if getattr(f, "entry_pc", None) is not None} | {0})
    for lo, hi in zip(starts, starts[1:] + [n]):
        _find_range(trace, lo, hi, out)
    return out


def _find_range(trace, lo: int, hi: int, out: LoadGroups) -> None:
    align = _alignment(trace, lo, hi)
    open_: dict = {}  # base -> {offset: pc}

    def close(base=None):
        bases = list(open_) if base is None else [base]
        for b in bases:
            _group(open_.pop(b, {}), out)

    for pc in range(lo, hi):
        info = trace.info(pc)
        if info.op_class in CONTROL_CLASSES:
            close()
            continue
        mem = info.mem
        if mem is not None and mem.space in ("shared", "generic") and (mem.store or mem.atomic):
            close()
        elif mem is not None and mem.space == "shared" and mem.load and mem.size == 4 and mem.vector == 1 \
                and ".volatile" not in info.text and len(info.writes) == 1:
            m = _ADDR.search(info.text)
            if m is not None:
                base, off = m.group(1), int(m.group(2), 0) if m.group(2) else 0
                open_.setdefault(base, {}).setdefault(off, pc)
                open_[base]["align"] = align.get(base, _SYMBOL_ALIGN if not base.startswith("%") else 1)
        for r in info.writes:
            if r in open_:
                close(r)
    close()


def _group(offsets: dict, out: LoadGroups) -> None:
    used: set = set()
    base_align = offsets.pop("align", 1)
    for o in sorted(offsets):
        if o in used:
            continue
        for words, align in ((4, 16), (2, 8)):
            offs = [o + 4 * k for k in range(words)]
            if base_align >= align and o % align == 0 and all(x in offsets and x not in used for x in offs):
                pcs = [offsets[x] for x in offs]
                lead = min(pcs)
                out.width[lead] = words
                for p in pcs:
                    if p != lead:
                        out.leader_of[p] = lead
                used.update(offs)
                break


# ptxas places shared variables itself, so their addresses are as aligned as it likes
_SYMBOL_ALIGN = 128
_CAP = 1 << 12
_IMM = re.compile(r"^-?(?:0x[0-9a-fA-F]+|\d+)$")


def _lowbit(v: int) -> int:
    v = abs(v)
    return _CAP if v == 0 else min(_CAP, v & -v)


def _alignment(trace, lo: int, hi: int) -> dict:
    """What ptxas can prove about each register's alignment (bytes, a power of two), flow-
    insensitively: the minimum over all its definitions, through mov of shared symbols and
    immediates, shl, mul/mad by constants, add/sub, and/or, cvta and cvt; anything else (loads,
    special registers, parameters) proves nothing (1)."""
    defs = []
    align: dict = {}
    for pc in range(lo, hi):
        info = trace.info(pc)
        text = info.text.split(";")[0]
        parts = text.replace(",", " ").split()
        if len(info.writes) != 1 or info.mem is not None or len(parts) < 3 or parts[0].startswith("@"):
            for r in info.writes:  # loads, parameters, predicated or multi-result definitions prove nothing
                align[r] = 1
            continue
        defs.append((info.opcode, info.writes[0], parts[2:]))

    def val(tok: str) -> int:
        if tok.startswith("%"):
            return align.get(tok, _CAP)
        if _IMM.match(tok):
            return _lowbit(int(tok, 0))
        return _SYMBOL_ALIGN  # a symbol's address

    def imm(tok: str):
        return int(tok, 0) if _IMM.match(tok) else None

    for _ in range(8):
        changed = False
        for op, dst, src in defs:
            if op in ("mov", "cvta", "cvt") and len(src) >= 1:
                a = 1 if src[0].startswith("%") and src[0][1:3] in ("ti", "nt", "ct", "nc", "la", "wa", "sm", "cl") \
                    else val(src[0])
            elif op == "shl" and len(src) == 2 and imm(src[1]) is not None:
                a = min(_CAP, val(src[0]) << imm(src[1]))
            elif op in ("mul", "mul24") and len(src) == 2:
                a = min(_CAP, val(src[0]) * val(src[1]))
            elif op in ("mad", "mad24") and len(src) == 3:
                a = min(_CAP, val(src[0]) * val(src[1]), val(src[2]))
            elif op in ("add", "sub", "or", "xor", "selp", "min", "max") and len(src) >= 2:
                a = min(val(src[0]), val(src[1]))
            elif op == "and" and len(src) == 2:
                a = max(val(src[0]), val(src[1]) if imm(src[1]) is not None else 1)
            else:
                a = 1
            if a < align.get(dst, _CAP):
                align[dst] = a
                changed = True
        if not changed:
            break
    return align
