#!/usr/bin/env python3
"""Count the SASS of PTX instruction forms with ptxas, and read their control codes (issue 20).

    python tools/sass_forms.py [--write] [--kernels]

Compiles benchmarks/timing/sass/forms.ptx (benchmarks/timing/sass/forms.py) with ptxas
(-arch=sm_90a; /usr/local/cuda/bin first, as the suite is built) and disassembles it with nvdisasm
(PATH, $NVDISASM, or pip's nvidia-cuda-nvdisasm under site-packages/nvidia/cu13/bin). For every form:

* `sass`: machine instructions per PTX instruction, (9 independent instances - 1) / 8, with the
  loads, stores and predicate set-ups of each instance taken out; `ops`: which ones;
* for forms whose result feeds their next instance (a dependent chain of 9): `scoreboard`, the
  chain's form instructions set a dependency barrier (a variable-latency result: MUFU, POPC, FLO,
  shuffles, conversions through the XU...; consumers wait on the scoreboard, ncu's short
  scoreboard) or not (a fixed latency: the stall counts make consumers wait, ncu's "wait");
  `chain_sass`, machine instructions per link of the chain (ptxas may fuse links). The cycles of
  a link are measured on the GPU instead (benchmarks/timing/sass/latency.py).

`--write` stores the raw result in benchmarks/timing/results/sass_forms_ptxas13.json; without it
the table is printed next to what ptxvm's expansion table (ptxvm/engine/trace/expansion.py) says.
`--kernels` also compiles the calibration kernels' PTX and prints static SASS against PTX counts.
Needs ptxas and nvdisasm (neither is needed by the tests: the JSON is committed).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "benchmarks", "timing", "sass"))
from ptxvm import toolchain  # noqa: E402

RESULT = os.path.join(ROOT, "benchmarks", "timing", "results", "sass_forms_ptxas13.json")
_INS = re.compile(r"/\*([0-9a-f]{4,6})\*/\s+(.*?)\s*;\s*/\* (0x[0-9a-f]{16}) \*/")
_HI = re.compile(r"/\* (0x[0-9a-f]{16}) \*/")
_FUNC = re.compile(r"^\s*\.section\s+\.text\.(\S+?),")
_MEMORY = ("LDG", "STG", "LDC", "ULDC", "EXIT", "BRA", "NOP")


def find_tool(name: str) -> str | None:
    """ptxas: the toolkit's first (the committed counts are CUDA 13.0's); nvdisasm: any."""
    return toolchain.find(name, toolkit_first=True)


def disassemble(ptx_path: str, ptxas: str, nvdisasm: str, quiet: bool = False) -> dict[str, list[dict]]:
    """{function: [instruction dicts]} of the PTX module compiled for sm_90a."""
    with tempfile.TemporaryDirectory() as tmp:
        cubin = os.path.join(tmp, "m.cubin")
        subprocess.run([ptxas, "-arch=sm_90a", ptx_path, "-o", cubin], check=True,
                       stderr=subprocess.DEVNULL if quiet else None)
        text = subprocess.run([nvdisasm, "-c", "-hex", cubin], check=True, capture_output=True, text=True).stdout
    return parse_sass(text)


def parse_sass(text: str) -> dict[str, list[dict]]:
    """nvdisasm -c -hex output -> per function its instructions with the control fields (Volta+
    encoding: bits 105-125 of the 128-bit word: stall 4, yield 1, write barrier 3, read barrier 3,
    wait mask 6, reuse 4)."""
    funcs: dict[str, list[dict]] = {}
    cur = None
    lines = text.splitlines()
    for k, line in enumerate(lines):
        f = _FUNC.match(line)
        if f:
            cur = funcs.setdefault(f.group(1), [])
            continue
        m = _INS.search(line)
        if m and cur is not None and k + 1 < len(lines):
            hi = _HI.search(lines[k + 1])
            c = int(hi.group(1), 16) >> 41 if hi else 0
            body = m.group(2).strip()
            pred = ""
            if body.startswith("@"):
                pred, body = body.split(None, 1)
            op = body.split()[0] if body else ""
            cur.append({"addr": int(m.group(1), 16), "op": op, "text": m.group(2).strip(), "stall": c & 15,
                        "wb": (c >> 5) & 7, "rb": (c >> 8) & 7, "wait": (c >> 11) & 63})
    return funcs


def _base(op: str) -> str:
    return op.split(".")[0]


def measure(funcs: dict) -> dict:
    from forms import FORMS, chainable, kernel_names, slots

    out = {}
    for i, (name, text) in enumerate(FORMS):
        kn = kernel_names(i)
        s = slots(text)
        n_src_pred = sum(1 for r, n, c in s if r not in "de" and c == "p")
        n_dst_pred = sum(1 for r, n, c in s if r in "de" and c == "p")
        one = Counter(x["op"] for x in funcs[kn["ind1"]])
        nine = Counter(x["op"] for x in funcs[kn["ind9"]])
        diff = nine - one
        ops = Counter()
        for op, n in diff.items():
            if _base(op) in _MEMORY:
                continue
            ops[op] += n / 8
        for _ in range(n_src_pred):  # each instance's setp.ne of a loaded predicate
            k = next((o for o in ops if o.startswith("ISETP") and ops[o] >= 1), None)
            if k:
                ops[k] -= 1
        for _ in range(n_dst_pred):  # ... and its selp before the store
            k = next((o for o in ops if _base(o) in ("SEL", "SELP") and ops[o] >= 1), None)
            if k:
                ops[k] -= 1
        ops = {k: round(v, 3) for k, v in sorted(ops.items()) if abs(v) > 1e-9}
        row = {"ptx": text, "sass": round(sum(ops.values()), 3), "ops": ops}
        if chainable(text):
            c1, c9 = funcs[kn["chain1"]], funcs[kn["chain9"]]
            loads = sum(1 for x in c9 if _base(x["op"]) == "LDG") - sum(1 for x in c1 if _base(x["op"]) == "LDG")
            form_ops = set(ops)
            row["scoreboard"] = any(x["wb"] != 7 for x in c9 if x["op"] in form_ops)
            row["chain_sass"] = round((len(c9) - len(c1) - loads) / 8, 3)
        out[name] = row
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help="store the raw result in " + os.path.relpath(RESULT, ROOT))
    ap.add_argument("--kernels", action="store_true", help="static SASS against PTX counts of the calibration kernels")
    args = ap.parse_args(argv)
    ptxas, nvdisasm = find_tool("ptxas"), find_tool("nvdisasm")
    if not ptxas or not nvdisasm:
        print("needs ptxas and nvdisasm (pip install nvidia-cuda-nvdisasm; or set PTXAS / NVDISASM)", file=sys.stderr)
        return 2
    from forms import PTX_PATH

    version = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    rows = measure(disassemble(PTX_PATH, ptxas, nvdisasm))
    if args.write:
        with open(RESULT, "w") as fh:
            json.dump({"ptxas": version, "arch": "sm_90a", "source": "benchmarks/timing/sass/forms.ptx",
                       "forms": rows}, fh, indent=1)
        print(f"wrote {os.path.relpath(RESULT, ROOT)}")
    from ptxvm.engine.trace.expansion import expansion_of_text

    print(f"{'form':26s} {'sass':>5s} {'table':>5s} {'lat.':>5s}  sb  ops")
    for name, r in rows.items():
        t = expansion_of_text(r["ptx"])
        print(f"{name:26s} {r['sass']:5.2f} {t.sass:5d} {fmt(t.latency):>5s}  "
              f"{'sb' if r.get('scoreboard') else '  '}  {' '.join(f'{k}x{v:g}' for k, v in r['ops'].items())}")
    if args.kernels:
        kernels(ptxas, nvdisasm)
    return 0


def fmt(v) -> str:
    return "-" if v is None else f"{v:g}"


def kernels(ptxas: str, nvdisasm: str) -> None:
    """Static SASS per calibration kernel against its PTX instruction count."""
    sys.path.insert(0, os.path.join(ROOT, "benchmarks", "timing"))
    from kernels.suite import CASES
    from split import calibration_cases

    from ptxvm.engine.trace.expansion import expansion_of_text

    mods = sorted({c.module for c in calibration_cases(CASES)})
    names = {(c.module, c.kernel) for c in calibration_cases(CASES)}
    newest = os.environ.get("PTXAS_NEW") or None
    print("\nstatic counts (the code, not its execution: ptxas unrolls loops; NOP padding left out)")
    print(f"{'kernel':34s} {'PTX':>6s} {'table':>6s} {'SASS':>6s}")
    for mod in mods:
        path = os.path.join(ROOT, "benchmarks", "timing", "kernels", mod + ".ptx")
        try:
            funcs = disassemble(path, ptxas, nvdisasm, quiet=True)
        except subprocess.CalledProcessError:  # a newer PTX ISA than this ptxas: CUDA 13.5's
            alt = newest or toolchain.find("ptxas")  # the wheels' first
            if not alt or alt == ptxas:
                continue
            funcs = disassemble(path, alt, nvdisasm)
        ptx = _ptx_bodies(path)
        for fn, ins in sorted(funcs.items()):
            if (mod, fn) not in names:
                continue
            lines = ptx.get(fn, [])
            table = sum(expansion_of_text(x).sass for x in lines)
            real = [x for x in ins if x["op"] != "NOP"]
            print(f"{mod.split('/')[-1] + ':' + fn:34s} {len(lines):6d} {table:6d} {len(real):6d}")


def _ptx_bodies(path: str) -> dict[str, list[str]]:
    """PTX instruction lines per entry (labels, directives, braces and comments left out)."""
    out: dict[str, list[str]] = {}
    cur = None
    for line in open(path):
        s = line.split("//")[0].strip()
        m = re.match(r"\.(?:visible\s+)?\.?entry\s+(\w+)|\.visible\s+\.entry\s+(\w+)", s)
        if m:
            cur = out.setdefault(m.group(1) or m.group(2), [])
            continue
        if cur is None or not s or s.startswith((".", "{", "}", "$")) or s.endswith(":") or s.startswith("("):
            continue
        cur.append(s)
    return out


if __name__ == "__main__":
    sys.exit(main())
