"""Loads in flight in ptxas's machine code: compile PTX with ptxas, disassemble, and for every
straight stretch of SASS (split at branches, barriers and branch targets) count the loads
(LDG/LDS/LD/LDL) whose destination registers no later instruction has read yet. Used by
pressure.py to compare ptxas's schedule with the model's register rule (timing/pressure.py)."""
from __future__ import annotations

import os
import re
import subprocess
import tempfile

from ptxvm import toolchain

_LINE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
_REG = re.compile(r"\bR(\d+)\b")
_LOAD = re.compile(r"^(?:@!?U?P\w+\s+)?(LDG|LDS|LDL|LD)(\.[\w.]*)?\s")
_SPLIT = re.compile(r"\b(BRA|BAR|EXIT|RET|CALL|BSYNC|BSSY|WARPSYNC|MEMBAR|DEPBAR|WARPGROUP)\b")
_WIDTH = {"64": 2, "128": 4}


def tool(name: str):
    """ptxas / cuobjdump: CUDA 13.5's pip wheels first (they know the Triton PTX's ISA), then PATH
    (ptxvm.toolchain)."""
    return toolchain.find(name)


def compile_sass(ptx: str, arch: str = "sm_90a") -> tuple[str, str]:
    """(ptxas -v output, cuobjdump -sass text) of a PTX module."""
    ptxas, cuobjdump = tool("ptxas"), tool("cuobjdump")
    if not ptxas or not cuobjdump:
        raise RuntimeError("needs ptxas and cuobjdump (pip install nvidia-cuda-nvcc triton)")
    with tempfile.TemporaryDirectory() as d:
        src, cub = os.path.join(d, "k.ptx"), os.path.join(d, "k.cubin")
        with open(src, "w") as f:
            f.write(ptx)
        info = subprocess.run([ptxas, f"-arch={arch}", "-v", src, "-o", cub], capture_output=True, text=True,
                              check=True)
        sass = subprocess.run([cuobjdump, "-sass", cub], capture_output=True, text=True, check=True).stdout
    return info.stdout + info.stderr, sass


def registers(info: str) -> int:
    m = re.findall(r"Used (\d+) registers", info)
    return int(m[-1]) if m else 0


def instructions(sass: str) -> list[tuple[int, str]]:
    return [(int(m.group(1), 16), m.group(2)) for m in _LINE.finditer(sass)]


def _regs(operand_text: str, width: int = 1) -> set:
    out = set()
    for m in _REG.finditer(operand_text):
        base = int(m.group(1))
        out.update(range(base, base + width))
    return out


def stretches(ins: list) -> list[list[str]]:
    """Straight stretches: split after branches/barriers and before branch targets."""
    targets = {int(t, 16) for _, txt in ins for t in re.findall(r"\bBRA\s+(?:`\()?.*?0x([0-9a-f]+)", txt)}
    out, cur = [], []
    for a, txt in ins:
        if a in targets and cur:
            out.append(cur)
            cur = []
        cur.append(txt)
        if _SPLIT.search(txt):
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def in_flight(stretch: list[str]) -> dict:
    """Loads in the stretch, the most in flight at once (issued, destination not read yet), and
    how many were issued before the first one's value was read."""
    pending: list[set] = []
    most = 0
    first_use = None
    issued = 0
    for txt in stretch:
        body = re.sub(r"^@!?U?P\w+\s+", "", txt)
        op, _, rest = body.partition(" ")
        m = _LOAD.match(body + " ")
        if m:
            dest, _, src = rest.partition(",")
            read = _regs(src)
        else:
            read = _regs(rest) if op.startswith(("ST", "RED", "ATOM")) else _regs(rest.partition(",")[2])
        still = [p for p in pending if not (p & read)]
        if len(still) < len(pending) and first_use is None:
            first_use = issued
        pending = still
        if m:
            width = next((w for k, w in _WIDTH.items() if f".{k}" in (m.group(2) or "")), 1)
            pending.append(_regs(dest, width))
            issued += 1
        most = max(most, len(pending))
    return {"loads": issued, "max_in_flight": most, "before_first_use": issued if first_use is None else first_use}
