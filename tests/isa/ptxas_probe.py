"""Check the form table against the real assembler (ptxas), when it is installed.

For each form, a few spellings are instantiated into PTX instructions (operands made from the
form's operand specs) and assembled in batches:
  - at PTX 9.0 for a target that satisfies the requirement: the line must assemble;
  - at `.version 1.0`: ptxas names the PTX version each feature needs ("Feature '...' requires PTX
    ISA .version 8.0 or later"); the largest on the line must equal the table's requirement;
  - at `.target sm_75` (the oldest target ptxas 13 knows): the sm it asks for must equal ours
    (when ours is above 75).

Run as a script for a report: `python tests/isa/ptxas_probe.py [opcode ...]`.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Optional

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

from ptxvm.isa import FORMS, Kind, Match, MatchError, lookup  # noqa: E402
from ptxvm.isa.table import build_all  # noqa: E402
from ptxvm.isa.types import REG_TYPES, TYPES  # noqa: E402

from ptxvm.conformance import ptxas as _tool  # noqa: E402

PTXAS = _tool.find()           # the newest ptxas found (CUDA 13.5 wheels: PTX ISA 9.5)
NEWEST = "%d.%d" % _tool.newest_isa() if PTXAS else "9.0"   # the .version the probes assemble at

# what we cannot instantiate generically (needs declarations of textures, functions, labels lists...)
SKIP_OPCODES = {"call", "brx", "ret", "exit"}  # need callee / branch-target declarations
# coordinates per texture / surface geometry
_NC = {"1d": 1, "2d": 2, "3d": 4, "a1d": 2, "a2d": 4, "cube": 4, "acube": 4, "2dms": 4, "a2dms": 4}
SKIP_VALUES = {"param", "param::entry", "param::func", "const", "local", "tensormap"}

_IMM = {"cp-size": "16", "N": "0", "immLut": "0xf0", "imm-reg-count": "240", "imm-scale-a": "1",
        "imm-scale-b": "1", "imm-trans-a": "0", "imm-trans-b": "0", "immHalfSplitoff": "0", "immAlign": "8",
        "scale-input-d": "0", "sp-sel": "0", "f": "0", "size": "128", "initval": "0", "ord": "0", "a": "1"}


def reg_for(t) -> str:
    """A register type name that holds values of PtxType `t`."""
    if t is None:
        return "b64"
    if t.name in REG_TYPES:
        return t.name
    return {8: "b8", 16: "b16", 32: "b32", 64: "b64", 128: "b128"}.get(t.bits, "b32")


@dataclass
class Instance:
    match: Match
    text: str
    present: list[str] = field(default_factory=list)


class Regs:
    def __init__(self):
        self.n: dict[str, int] = {}

    def get(self, rt: str) -> str:
        i = self.n.get(rt, 0)
        self.n[rt] = (i + 1) % 60
        return f"%{rt}_{i}" if rt != "pred" else f"%p_{i % 8}"


def _operand(o, m: Match, regs: Regs, opcode: str) -> Optional[str]:
    k = o.spec.kind
    t = o.type
    if o.spec.optional:
        return None
    if k is Kind.SINK:
        return "_"
    if k is Kind.IMM:
        if o.spec.value is not None:
            return str(o.spec.value)
        return _IMM.get(o.spec.name, "1")
    if k is Kind.ADDR and opcode in ("txq", "suq"):
        return "[surf0]" if opcode == "suq" else ("[samp0]" if m.values.get("squery") else "[tex0]")
    if k is Kind.ADDR:
        return f"[{regs.get('b32' if t is not None and t.bits == 32 else 'b64')}]"
    if k is Kind.PRED:
        return regs.get("pred")
    if k is Kind.PAIR:
        first = regs.get("pred") if (t and t.name == "pred") else regs.get(reg_for(t))
        return f"{first}|{regs.get('pred')}" if not o.spec.second_optional else first
    if k is Kind.VEC:
        n = o.count if o.count is not None else 4
        if n == 1 and o.spec.vec_slot:
            return regs.get(reg_for(t))
        return "{" + ", ".join(regs.get(reg_for(t)) for _ in range(n)) + "}"
    if k is Kind.BRACKET and opcode in ("tex", "tld4", "suld", "sust", "sured"):
        geom = m.values.get("geom") or m.values.get("dim")
        ct = "f32" if m.values.get("ctype") == "f32" and opcode in ("tex", "tld4") else "b32"
        n = _NC[geom]
        regs_ = [regs.get(ct) for _ in range(n)]
        if geom.startswith("a"):  # array geometries: the first coordinate is the .u32 array index
            regs_[0] = regs.get("u32")
        coords = "{" + ", ".join(regs_) + "}"
        return f"[{'tex0' if opcode in ('tex', 'tld4') else 'surf0'}, {coords}]"
    if k is Kind.BRACKET:
        parts = []
        for e in o.spec.elements:
            if e.optional:
                continue
            if e.kind is Kind.VEC:
                parts.append("{" + ", ".join(regs.get("b32") for _ in range(e.count or 1)) + "}")
            else:
                parts.append(regs.get("b64"))
        return "[" + ", ".join(parts) + "]"
    if k in (Kind.REG, Kind.RI):
        if o.spec.type == "ptr":
            return regs.get("b64")
        return regs.get(reg_for(t))
    if k is Kind.LABEL:
        return "$Lend"
    return None


def instance(m: Match) -> Optional[Instance]:
    # optional operands: none, unless a rule of the form asks for one
    want: set[str] = set()
    names = [o.spec.name for o in m.operands if o.spec.optional]
    want |= {n for n in names if n.startswith("imm-trans")}
    for _ in range(3):
        if not m.form.operand_problems(m.values, sorted(want)):
            break
        for name in names:
            if name not in want and len(m.form.operand_problems(m.values, sorted(want | {name}))) < len(
                    m.form.operand_problems(m.values, sorted(want))):
                want.add(name)
    regs = Regs()
    ops = []
    present = []
    for o in m.operands:
        if o.spec.name == "a-desc" and m.values.get("ashift"):
            ops.append(f"[{regs.get('b32')}]")  # .ashift: A comes from tensor memory
            continue
        if o.spec.optional and o.spec.name in want:
            s = _operand(o.__class__(o.spec.__class__(**{**{f: getattr(o.spec, f) for f in o.spec.__slots__},
                                                          "optional": False}), o.type, o.count), m, regs, m.opcode)
            ops.append(s)
            present.append(o.spec.name)
            continue
        if o.spec.kind is Kind.BRACKET and m.opcode == "cp":
            dim = int(m.values.get("dim", "1d")[0])
            ops.append(f"[{regs.get('b64')}, {{" + ", ".join(regs.get("b32") for _ in range(dim)) + "}]")
            continue
        s = _operand(o, m, regs, m.opcode)
        if s is None:
            if not o.spec.optional:
                return None
            continue
        if o.spec.optional:
            present.append(o.spec.name)
        ops.append(s)
    # operands a rule ties to modifiers
    if m.values.get("level::cache_hint") and "cache-policy" not in present:
        ops.append(regs.get("b64"))
        present.append("cache-policy")
    text = m.name + (" " + ", ".join(ops) if ops else "") + ";"
    return Instance(m, text, present)


HEADER = """.version {ver}
.target {target}
.address_size 64
.visible .entry k(.param .u64 p)
{{
 .reg .pred %p_<8>;
{decls}
 .shared .align 16 .b8 smem[1024];
"""
GLOBALS = ".global .texref tex0;\n.global .surfref surf0;\n"  # (a .samplerref needs texmode_independent)


def _decls():
    return "\n".join(f" .reg .{t} %{t}_<60>;" for t in sorted(REG_TYPES) if t != "pred")


def assemble(lines: list[str], ver: str, target: str, chunk: int = 200) -> dict[int, list[str]]:
    """Assemble `lines` (one instruction each); return {index: [error messages]}. ptxas stops
    reporting after a number of errors, so the lines go in chunks."""
    if len(lines) > chunk:
        out: dict[int, list[str]] = {}
        for base in range(0, len(lines), chunk):
            for k, v in assemble(lines[base:base + chunk], ver, target, chunk).items():
                if k >= 0:
                    out[base + k] = v
        return out
    head = HEADER.format(ver=ver, target=target, decls=_decls())
    head = head.replace(".visible .entry", GLOBALS + ".visible .entry", 1)
    first = head.count("\n") + 1
    body = head + "\n".join(lines) + "\n$Lend:\n ret;\n}\n"
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
        f.write(body)
        path = f.name
    try:
        r = subprocess.run([PTXAS, f"-arch={target}", path, "-o", os.devnull], capture_output=True, text=True,
                           timeout=300)
    finally:
        os.unlink(path)
    out: dict[int, list[str]] = {}
    fatal = False
    for line in r.stderr.splitlines():
        mm = re.search(r"line (\d+); (error|fatal)\s*:\s*(.*)", line)
        if mm:
            idx = int(mm.group(1)) - first
            out.setdefault(idx, []).append(mm.group(3))
            fatal = fatal or mm.group(2) == "fatal"
    if fatal and len(lines) > 1:
        # a fatal error stops ptxas: assemble the two halves on their own, down to the culprit
        half = len(lines) // 2
        out = {k: v for k, v in assemble(lines[:half], ver, target, chunk).items() if k >= 0}
        for k, v in assemble(lines[half:], ver, target, chunk).items():
            if k >= 0:
                out[half + k] = v
    return out


def target_for(req) -> str:
    if req.suffix:
        return f"sm_{req.sm}{req.suffix}"
    if req.sm >= 120:
        return f"sm_{req.sm}"
    return "sm_100a" if req.sm >= 100 else "sm_90a"


def samples(form, limit=6):
    """A few spellings of `form`: the canonical one, and ones that switch on each optional element."""
    out = []
    seen = set()
    for vals, mods in form.spellings(limit=limit * 4, seed=1):
        if any(v in SKIP_VALUES for v in vals.values() if isinstance(v, str)):
            continue
        if mods in seen:
            continue
        seen.add(mods)
        out.append(mods)
    out.sort(key=len)
    pick = out[:1] + out[1:][:: max(1, len(out[1:]) // max(1, limit - 1))][: limit - 1]
    return pick


_VER_RE = re.compile(r"requires PTX ISA \.version (\d+)\.(\d+)")
_SM_RE = re.compile(r"requires \.target (sm_\d+[af]?)")
# targets in the order a feature reaches them (sm_90a features are not in sm_100a: arch-specific)
LADDER = ("sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100f", "sm_100a", "sm_101a", "sm_103a",
          "sm_110a", "sm_120", "sm_120a")


def _ladder_index(req) -> int:
    t = req.target
    if t in LADDER:
        return LADDER.index(t)
    sm = req.sm
    return max((i for i, x in enumerate(LADDER) if int(re.match(r"sm_(\d+)", x).group(1)) <= sm), default=0)


def collect(opcodes=None, limit=6):
    build_all()
    insts: list[Instance] = []
    bad = []
    for form in FORMS:
        if form.opcode in SKIP_OPCODES or (opcodes and form.opcode not in opcodes) or form.removed:
            continue
        for mods in samples(form, limit):
            if "squery" in form.slots:
                continue  # sampler queries need a .samplerref, i.e. .target texmode_independent
            m = lookup(form.opcode, mods)
            if isinstance(m, MatchError):
                bad.append(("nomatch", ".".join((form.opcode,) + mods), m.message))
                continue
            if tuple(m.requirement.ptx) > tuple(int(x) for x in NEWEST.split(".")):
                continue  # newer than this ptxas knows (tests say which ptxas they need)
            inst = instance(m)
            if inst is not None:
                insts.append(inst)
    return insts, bad


def _target_known(target: str) -> bool:
    """Whether this ptxas assembles an empty kernel for `target` at .version NEWEST."""
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
        f.write(f".version {NEWEST}\n.target {target}\n.address_size 64\n.visible .entry k()\n{{\n ret;\n}}\n")
        path = f.name
    try:
        r = subprocess.run([PTXAS, f"-arch={target}", path, "-o", os.devnull], capture_output=True, text=True)
    finally:
        os.unlink(path)
    return r.returncode == 0


def probe(opcodes=None, limit=6, versions=True, targets=True):
    """Yield (kind, instance text, message) for every disagreement with ptxas."""
    insts, bad = collect(opcodes, limit)
    yield from bad
    # 1. it assembles where the table says it is available
    groups: dict[str, list[Instance]] = {}
    for i in insts:
        groups.setdefault(target_for(i.match.requirement_with(i.present)), []).append(i)
    valid: list[Instance] = []
    for target, group in groups.items():
        errs = assemble([i.text for i in group], NEWEST, target)
        for idx, i in enumerate(group):
            if idx in errs:
                yield ("rejected", f"{i.text}  [{target}]", "; ".join(errs[idx]))
            else:
                valid.append(i)
    # 2. the PTX version it needs: what ptxas names at .version 1.0, checked at ours and the one before
    if versions:
        from ptxvm.isa.table import PTX_VERSIONS
        # texture instructions are assembled one at a time: ptxas's version messages for them depend
        # on the other texture instructions of the module
        tex = {"tex", "tld4", "txq", "suld", "sust", "sured", "suq", "istypep"}
        errs = assemble([i.text for i in valid], "1.0", "sm_100a")
        for idx, i in enumerate(valid):
            if i.match.opcode in tex:
                errs[idx] = assemble([i.text], "1.0", "sm_100a").get(0, [])
        for idx, i in enumerate(valid):
            need = max(((int(a), int(b)) for msg in errs.get(idx, []) for a, b in _VER_RE.findall(msg)),
                       default=(1, 0))
            ours = i.match.requirement_with(i.present).ptx
            if need != ours and not (need <= (2, 3) and ours <= (2, 3)):
                yield ("ptx", i.text, f"ptxas needs {need[0]}.{need[1]}, table says {ours[0]}.{ours[1]}")
    # 3. the first target (in LADDER order) that takes it
    if targets:
        first: dict[int, str] = {}
        for target in LADDER:
            if not _target_known(target):
                continue  # a target this ptxas does not know (13.5: sm_101a is gone, renamed sm_110a)
            errs = assemble([i.text for i in valid], NEWEST, target)
            for idx in range(len(valid)):
                if idx not in first and idx not in errs:
                    first[idx] = target
        for idx, i in enumerate(valid):
            ours = i.match.requirement_with(i.present)
            got = first.get(idx)
            if ours.sm < 75 and got == "sm_75":
                continue
            if got is None and ours.target not in LADDER:
                continue  # only a target beyond the ladder takes it (sm_107f): as the table says
            if ours.suffix == "f" and ours.target not in LADDER and got == f"sm_{ours.sm}a":
                continue
            if got != ours.target and not (got and ours.target not in LADDER and
                                           LADDER.index(got) == _ladder_index(ours)):
                yield ("sm", i.text, f"first accepted on {got}, table says {ours.target}")


if __name__ == "__main__":
    if not PTXAS:
        sys.exit("ptxas not found")
    ops = sys.argv[1:] or None
    n = 0
    for kind, text, msg in probe(ops):
        n += 1
        print(f"{kind:9} {text}\n          {msg}")
    print(n, "disagreements")
