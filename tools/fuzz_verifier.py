#!/usr/bin/env python3
"""Differential fuzz of the verifier against ptxas: change one instruction of a valid PTX file
(a type suffix, a modifier dropped or added, two operands swapped, an operand dropped or made a
constant), ask ptxas and ptxvm whether the result is valid PTX, and print where they disagree.

    python tools/fuzz_verifier.py [--seed 0] [--count 300] [FILE.ptx ...]

Default inputs: tests/corpus/valid/*.ptx and the real-world corpus's LLVM and nvcc sm_90 files.
ptxas: $PTXAS, else CUDA 13.5's wheel, else PATH. Each disagreement is one JSON line (the file,
the line, the original and the mutant instruction, each tool's verdict and first messages);
a crash of the verifier is a disagreement too. Files that either tool refuses unchanged are
skipped (a line says so). The summary line says how many mutants were tried.
Disagreements are leads, not verdicts: ptxas has quirks (it takes `mul.pred.f32`), and a case
where ptxvm is right stays. What it found went into tests/corpus/invalid with ptxas's verdicts.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ptxvm import toolchain  # noqa: E402
from ptxvm.check import verify  # noqa: E402
from ptxvm.errors import PtxError  # noqa: E402
from ptxvm.frontend import parse  # noqa: E402

TYPES = ["u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "b8", "b16", "b32", "b64", "f16", "f32", "f64",
         "bf16", "pred", "b128", "f16x2", "bf16x2", "e4m3x2"]
MODIFIERS = ["rn", "rz", "rm", "rp", "sat", "ftz", "approx", "full", "lo", "hi", "wide", "cc", "relaxed", "acquire",
             "release", "gpu", "cta", "sys", "volatile", "nc", "ca", "cg", "cs", "lu", "cv", "wb", "wt", "v2", "v4",
             "global", "shared", "local", "const", "param", "sync", "aligned", "uni", "shared::cta",
             "shared::cluster", "L2::64B", "L1::no_allocate"]
CONSTANTS = ["0", "1", "-1", "0f3F800000", "4294967296", "0d3FF0000000000000"]


def ptxas_path() -> str:
    return toolchain.require("ptxas", "fuzz_verifier")


def _operands(line: str, op: str) -> list[str]:
    return line[line.index(op) + len(op):].rstrip().rstrip(";").split(",")


def mutate(line: str, rng: random.Random):
    """One random change of the instruction `line`, or None when the kind drawn does not apply."""
    toks = line.split()
    op = toks[1] if toks and toks[0].startswith("@") and len(toks) > 1 else (toks[0] if toks else None)
    if op is None or op.startswith(".") or op.endswith(":"):
        return None
    parts = op.split(".")
    kind = rng.randrange(6)
    if kind in (0, 1, 2):
        if kind == 0 and len(parts) > 1:
            parts[rng.randrange(1, len(parts))] = rng.choice(TYPES)
        elif kind == 1 and len(parts) > 1:
            del parts[rng.randrange(1, len(parts))]
        elif kind == 2:
            parts.insert(rng.randrange(1, len(parts) + 1), rng.choice(MODIFIERS))
        else:
            return None
        return line.replace(op, ".".join(parts), 1)
    ops = _operands(line, op)
    if len(ops) < 2:
        return None
    if kind == 3:
        i, j = rng.sample(range(len(ops)), 2)
        ops[i], ops[j] = ops[j], ops[i]
    elif kind == 4:
        ops[rng.randrange(1, len(ops))] = " " + rng.choice(CONSTANTS)
    else:
        del ops[rng.randrange(len(ops))]
    return line[:line.index(op) + len(op)] + ",".join(ops) + ";"


def ptxas_verdict(ptxas: str, text: str):
    arch = "sm_90a" if ".target sm_90a" in text else "sm_90"
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.ptx")
        Path(path).write_text(text)
        r = subprocess.run([ptxas, f"-arch={arch}", path, "-o", os.devnull], capture_output=True, text=True)
    return r.returncode == 0, r.stderr.strip().splitlines()[:2]


def ptxvm_verdict(text: str):
    try:
        errors = [d for d in verify(parse(text, "m.ptx"), text) if d.severity == "error"]
        return not errors, [d.message[:160] for d in errors[:2]]
    except PtxError as e:
        return False, [d.message[:160] for d in e.diagnostics[:2]]
    except Exception as e:  # noqa: BLE001 - a crash is what a fuzzer is for
        return None, [f"crash: {type(e).__name__}: {e}"[:300]]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=300, help="mutants to try")
    ap.add_argument("files", nargs="*")
    opt = ap.parse_args(argv)
    rng = random.Random(opt.seed)
    files = [Path(f) for f in opt.files] or (
        sorted((ROOT / "tests/corpus/valid").glob("*.ptx"))
        + sorted((ROOT / "tests/corpus/realworld/ptx").glob("ll_*.ptx"))
        + sorted((ROOT / "tests/corpus/realworld/ptx").glob("*.sm_90.ptx")))
    ptxas = ptxas_path()
    texts = []
    for f in files:  # only files both accept as they are (nb_float16 needs linking, ptxas refuses it alone)
        text = f.read_text()
        if ptxas_verdict(ptxas, text)[0] and ptxvm_verdict(text)[0]:
            texts.append((f, text.splitlines()))
        else:
            print(json.dumps({"skipped": os.path.relpath(f, ROOT), "why": "not valid to both tools as it is"}))
    tried, found = 0, []
    while tried < opt.count:
        path, lines = rng.choice(texts)
        candidates = [i for i, s in enumerate(lines) if s.strip().endswith(";") and s.strip()[:1].isalpha() | (
            s.strip()[:1] == "@") and not s.strip().startswith((".", "//"))]
        if not candidates:
            continue
        i = rng.choice(candidates)
        mutant = mutate(lines[i].strip(), rng)
        if mutant is None or mutant == lines[i].strip():
            continue
        text = "\n".join(lines[:i] + ["\t" + mutant] + lines[i + 1:]) + "\n"
        tried += 1
        (a, amsg), (b, bmsg) = ptxas_verdict(ptxas, text), ptxvm_verdict(text)
        if a != b:
            found.append({"file": os.path.relpath(path, ROOT), "line": i + 1, "original": lines[i].strip(),
                          "mutant": mutant, "ptxas": a, "ptxas_says": amsg, "ptxvm": b, "ptxvm_says": bmsg})
    print(json.dumps({"tried": tried, "disagree": len(found), "seed": opt.seed}))
    for f in found:
        print(json.dumps(f))
    return 0


if __name__ == "__main__":
    sys.exit(main())
