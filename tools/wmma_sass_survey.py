#!/usr/bin/env python3
"""What ptxas makes of every wmma.load / wmma.store form on sm_90a: the machine loads, stores,
LDSMs and MOVMs of each, from `cuobjdump -sass` of one small kernel per form.

    python tools/wmma_sass_survey.py [--out tests/timing/wmma_sass_sm90a.json]

Needs ptxas (CUDA 13.0 at /usr/local/cuda/bin, or PTXAS=...) and cuobjdump (pip's Triton ships
one; CUOBJDUMP=...). The JSON maps "kind which shape type layout space" to the SASS opcodes and
their counts; tests/timing/test_wmma_memory.py checks engine/trace/matrix.py's `wmma_plan`
against it without either tool.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, ROOT)

from ptxvm import toolchain  # noqa: E402
from ptxvm.semantics.families.matrix import _wmma_regs  # noqa: E402

W3 = ("m16n16k16", "m32n8k16", "m8n32k16")
OPS = re.compile(r"\*/\s+(?:@!?U?P\d\s+)?((?:LDG|LDS|LD|STG|STS|ST|LDSM|STSM|MOVM)(?:\.\w+)*)\s")


def forms():
    out = []
    for sh in W3:
        for fr, ts in (("a", ("f16", "bf16", "s8")), ("b", ("f16", "bf16", "s8")), ("c", ("f16", "f32", "s32"))):
            out += [("load", fr, sh, t) for t in ts]
        out += [("store", "d", sh, t) for t in ("f16", "f32", "s32")]
    out += [("load", "a", "m16n16k8", "tf32"), ("load", "b", "m16n16k8", "tf32"), ("load", "c", "m16n16k8", "f32"),
            ("store", "d", "m16n16k8", "f32"), ("load", "a", "m8n8k4", "f64"), ("load", "b", "m8n8k4", "f64"),
            ("load", "c", "m8n8k4", "f64"), ("store", "d", "m8n8k4", "f64")]
    return out


def kernel(name, kind, fr, sh, t, lay, sp):
    nregs = _wmma_regs(sh, fr, t)
    big = t == "f64"
    rp = "%fd" if big else "%r"
    regs = ",".join(f"{rp}{i}" for i in range(nregs))
    spm = f".{sp}" if sp != "generic" else ""
    body = [f".visible .entry {name}(.param .u64 p, .param .u64 o, .param .u32 s) {{",
            ".reg .b32 %r<40>; .reg .b64 %rd<8>; .reg .f64 %fd<40>;", ".shared .align 16 .b8 sm[16384];",
            "ld.param.u64 %rd1,[p]; ld.param.u64 %rd2,[o]; ld.param.u32 %r39,[s];"]
    if sp == "shared":
        body.append("mov.u64 %rd1, sm;")
    if kind == "load":
        body.append(f"wmma.load.{fr}.sync.aligned.{lay}.{sh}{spm}.{t} {{{regs}}}, [%rd1], %r39;")
        if big:
            body.append(" ".join(f"add.f64 %fd0,%fd0,%fd{i};" for i in range(1, nregs))
                        + " mov.b64 %rd3, %fd0; st.global.u64 [%rd2], %rd3;")
        else:
            body.append(" ".join(f"xor.b32 %r0,%r0,%r{i};" for i in range(1, nregs)) + " st.global.u32 [%rd2], %r0;")
    else:
        if big:
            body.append(" ".join(f"mov.b64 %fd{i}, %rd2;" for i in range(nregs)))
        else:
            body.append("mov.u32 %r38, %tid.x; " + " ".join(f"add.u32 %r{i}, %r38, {i};" for i in range(nregs)))
        body.append(f"wmma.store.d.sync.aligned.{lay}.{sh}{spm}.{t} [%rd1], {{{regs}}}, %r39;")
        if sp == "shared":
            body.append("bar.sync 0; ld.shared.u32 %r0,[sm+4]; st.global.u32 [%rd2], %r0;")
    body.append("ret; }")
    return body


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "timing", "wmma_sass_sm90a.json"))
    args = ap.parse_args(argv)
    ptxas = toolchain.require("ptxas", "wmma_sass_survey", toolkit_first=True)  # the survey is CUDA 13.0's
    cuobjdump = toolchain.require("cuobjdump", "wmma_sass_survey")
    src = [".version 8.0", ".target sm_90a", ".address_size 64"]
    names = {}
    for kind, fr, sh, t in forms():
        for lay in ("row", "col"):
            for sp in ("global", "shared", "generic"):
                name = f"k{len(names)}"
                names[name] = f"{kind} {fr} {sh} {t} {lay} {sp}"
                src += kernel(name, kind, fr, sh, t, lay, sp)
    with tempfile.TemporaryDirectory() as tmp:
        ptx, cubin = os.path.join(tmp, "s.ptx"), os.path.join(tmp, "s.cubin")
        open(ptx, "w").write("\n".join(src))
        subprocess.run([ptxas, "-arch=sm_90a", "-o", cubin, ptx], check=True)
        sass = subprocess.run([cuobjdump, "-sass", cubin], capture_output=True, text=True, check=True).stdout
        version = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    cur, got = None, collections.defaultdict(collections.Counter)
    for line in sass.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            cur = m.group(1)
            continue
        m = OPS.search(line)
        if m and cur:
            op, what = m.group(1), names[cur]
            if what.startswith("load") and op.startswith(("STG", "ST.")):
                continue  # the result's store
            if what.startswith("store") and what.endswith("shared") and op.startswith(("LDS", "STG")):
                continue  # the check after the barrier
            got[what][op] += 1
    out = {"ptxas": version, "arch": "sm_90a", "forms": {k: dict(got[k]) for k in names.values()}}
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    print(f"{len(out['forms'])} forms -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
