#!/usr/bin/env python3
"""Build cubins of conformance cases here, for a GPU whose driver cannot JIT their PTX.

    python3 tools/device/build_cubins.py --family isa9x --out .devwork/cubins [--ptxas PATH]

The H200's driver (CUDA 13.0) JIT-compiles PTX up to ISA 9.0 and refuses 9.1+ with
CUDA_ERROR_UNSUPPORTED_PTX_VERSION. For every case whose PTX says `.version` 9.1 or later this
assembles the PTX with a newer ptxas (13.5: the CUDA wheels' nvidia/cu13/bin/ptxas by default) for
the case's target, sm_90 -> sm_90a (what the H200 runs), into OUT/<ptx sha256>.cubin; a case that
ptxas refuses gets OUT/<sha>.log with ptxas's message instead. OUT/ptxas.txt names the ptxas.
record.py --cubins OUT then loads the cubin (cuModuleLoadData) in place of the PTX.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def default_ptxas() -> str:
    """$PTXAS, else the CUDA 13.5 wheels' ptxas, else a toolkit's (ptxvm.toolchain)."""
    sys.path.insert(0, ROOT)
    from ptxvm import toolchain

    return toolchain.find("ptxas") or "ptxas"


def newer_than_90(ptx: str) -> bool:
    for line in ptx.splitlines():
        if line.startswith(".version"):
            major, minor = (int(x) for x in line.split()[1].split("."))
            return (major, minor) > (9, 0)
    return False


def main(argv=None) -> int:
    from record import import_conformance
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--family", action="append", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--ptxas", default=default_ptxas())
    a = ap.parse_args(argv)
    cases_mod, golden = import_conformance()
    os.makedirs(a.out, exist_ok=True)
    version = subprocess.run([a.ptxas, "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    with open(os.path.join(a.out, "ptxas.txt"), "w") as f:
        f.write((version[-1] if version else "unknown") + "\n")
    built = refused = 0
    for fam in a.family:
        for c in cases_mod.family_cases(fam):
            ptx = golden.launch_for_case(c).ptx
            if not newer_than_90(ptx):
                continue
            sha = golden.ptx_sha(ptx)
            arch = "sm_90a" if c.target in ("sm_90", "sm_90a") else c.target
            with tempfile.TemporaryDirectory() as d:
                src = os.path.join(d, "case.ptx")
                with open(src, "w") as f:
                    f.write(ptx)
                r = subprocess.run([a.ptxas, f"-arch={arch}", src, "-o", os.path.join(a.out, sha + ".cubin")],
                                   capture_output=True, text=True)
            if r.returncode != 0:
                with open(os.path.join(a.out, sha + ".log"), "w") as f:
                    f.write((r.stdout + r.stderr).replace(src, "case.ptx").strip()[:2000])
                refused += 1
            else:
                built += 1
    print(f"build_cubins: {built} cubins, {refused} refused by {version[-1] if version else a.ptxas}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
