"""Register-bank conflicts: how often ptxas's machine code has them, against how often a rule that
reads them off PTX's virtual register numbers would charge one (timing/params.py `reg_banks`).

A three-source FP32/FP64/integer instruction (FFMA, DFMA, IMAD, ...) costs an extra cycle when all
three source registers sit in one register bank (bank = register number mod 2) and no operand
comes from the reuse cache. ptxas allocates the registers: PTX's %f/%r numbers are renamed, moves
of immediates become immediate operands, kernel parameters constant-bank operands. This script
compiles the timing suite's PTX with ptxas (sm_90a), counts the three-distinct-register-source
instructions of those classes in the SASS and how many have all three in one bank without a
.reuse flag, and counts the same for the PTX (fma/mad with three distinct register sources, all
three numbers of one parity), which the PTX rule would charge.

    python benchmarks/timing/sass/bank_conflicts.py [file.ptx ...]

Needs ptxas and cuobjdump (sass_flight.tool). docs/timing-model.md quotes its output.
"""
from __future__ import annotations

import pathlib
import re
import sys
from collections import Counter

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from sass_flight import compile_sass, instructions  # noqa: E402

SUITE = [HERE.parent / "kernels" / n for n in ("families.ptx", "suite.ptx", "occupancy.ptx")]
SASS_OPS = ("FFMA", "DFMA", "IMAD", "HFMA2", "FFMA2")
_SASS = re.compile(r"^(?:@!?U?P\w+\s+)?([A-Z0-9]+)(?:\.[\w.]+)?\s+(.*)$")
_SASS_REG = re.compile(r"^[-|!]*R(\d+)(\.reuse)?(?:\.[\w]+)*\|?$")
_PTX = re.compile(r"^\s*(?:@!?%\w+\s+)?(fma|mad)\.[\w.]+\s+([^;]+);", re.M)
_PTX_REG = re.compile(r"^%[a-z]+(\d+)$")


def sass_counts(sass: str) -> Counter:
    out = Counter()
    for _, text in instructions(sass):
        m = _SASS.match(text)
        if not m or m.group(1) not in SASS_OPS:
            continue
        regs = [_SASS_REG.match(o.strip()) for o in m.group(2).split(",")[1:]]
        regs = [r for r in regs if r]
        if len({r.group(1) for r in regs}) < 3:
            continue
        out["three sources"] += 1
        read = Counter(int(r.group(1)) % 2 for r in regs if not r.group(2))  # reuse-cache operands skip the banks
        if read and max(read.values()) >= 3:
            out["all in one bank"] += 1
    return out


def ptx_counts(ptx: str) -> Counter:
    out = Counter()
    for m in _PTX.finditer(ptx):
        srcs = [s.strip() for s in m.group(2).split(",")[1:]]
        regs = {s for s in srcs if _PTX_REG.match(s) and not s.startswith("%p")}
        if len(regs) < 3:
            continue
        out["three sources"] += 1
        if max(Counter(int(_PTX_REG.match(r).group(1)) % 2 for r in regs).values()) >= 3:
            out["all in one bank"] += 1
    return out


def main(paths) -> None:
    total_s, total_p = Counter(), Counter()
    for path in paths:
        ptx = pathlib.Path(path).read_text()
        s, p = sass_counts(compile_sass(ptx)[1]), ptx_counts(ptx)
        total_s.update(s)
        total_p.update(p)
        print(f"{pathlib.Path(path).name:<16} SASS {s['all in one bank']:4d} of {s['three sources']:5d}   "
              f"PTX {p['all in one bank']:4d} of {p['three sources']:5d}")
    for what, c in (("SASS (ptxas)", total_s), ("PTX numbers", total_p)):
        n = c["three sources"] or 1
        print(f"{what:<13} three distinct register sources, all in one bank: {c['all in one bank']} of "
              f"{c['three sources']} ({100 * c['all in one bank'] / n:.1f} %)")


if __name__ == "__main__":
    main(sys.argv[1:] or SUITE)
