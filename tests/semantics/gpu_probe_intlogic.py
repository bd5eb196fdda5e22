"""Differential probe: the integer / logic / compare lane functions against a real GPU.

Each probe runs one PTX instruction (inline asm in a CUDA kernel, one thread per operand row) over
the same edge-value and random rows the unit tests use, and compares every lane with the lane
function. Run on a machine with a GPU and CuPy:

    python tests/semantics/gpu_probe_intlogic.py [--out DIR] [--only SUBSTRING]
    python tests/semantics/gpu_probe_intlogic.py --emit probe.cu   # just write the CUDA source

It prints one line per probe and writes DIR/report.json with the mismatching rows. Not a pytest
module (no GPU in CI); its findings are recorded in the semantics modules' comments.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

from intlogic_ref import kind, rows_for, spec  # noqa: E402
from ptxvm.semantics import lane_function  # noqa: E402
from ptxvm.semantics.dtypes import numpy_dtype  # noqa: E402

C_TYPE = {"u16": ("unsigned short", "h"), "s16": ("short", "h"), "b16": ("unsigned short", "h"),
          "f16": ("unsigned short", "h"), "bf16": ("unsigned short", "h"),
          "u32": ("unsigned int", "r"), "s32": ("int", "r"), "b32": ("unsigned int", "r"),
          "f16x2": ("unsigned int", "r"), "bf16x2": ("unsigned int", "r"),
          "u16x2": ("unsigned int", "r"), "s16x2": ("unsigned int", "r"),
          "u64": ("unsigned long long", "l"), "s64": ("long long", "l"), "b64": ("unsigned long long", "l"),
          "f32": ("float", "f"), "f64": ("double", "d"), "pred": ("unsigned int", "r")}


@dataclass
class Probe:
    name: str  # the PTX instruction as written (with its modifiers and types)
    spec: object
    ins: list  # operand descriptions as in the tests: type or (type, values)
    outs: list  # result types ("pred" for predicates)
    body: str = ""  # asm with {a0}.. {d0}..; default: "<name> {d0}[|{d1}], {a0}, ..."
    n_random: int = 400
    rows: list = field(default_factory=list)

    def asm(self):
        if self.body:
            return self.body
        ds = "|".join(f"{{d{j}}}" for j in range(len(self.outs)))
        return f"{self.name} {ds}, " + ", ".join(f"{{a{i}}}" for i in range(len(self.ins))) + ";"


PROBES: list[Probe] = []


def probe(name, sp, ins, outs, body="", n_random=400):
    PROBES.append(Probe(name, sp, ins, outs, body, n_random))


def counts(w):
    return ("u32", list(range(0, w + 2)) + [w + 7, 2 * w, 255, 256, 0x80000000, 0xFFFFFFFF])


POS = ("u32", list(range(0, 70)) + [127, 128, 255, 256, 257, 0x120, 0xFFFFFFFF, 0x80000001])
CARRY = ("u32", [0, 1])


def build_probes():
    sized = ("u16", "u32", "u64", "s16", "s32", "s64")
    for t in sized:
        for op in ("add", "sub", "div", "rem", "min", "max"):
            probe(f"{op}.{t}", spec(op, t), [t, t], [t])
        probe(f"sad.{t}", spec("sad", t), [t, t, t], [t])
        for mode in ("lo", "hi") + (("wide",) if t[1:] != "64" else ()):
            wide = {"u16": "u32", "s16": "s32", "u32": "u64", "s32": "s64"}.get(t) if mode == "wide" else t
            probe(f"mul.{mode}.{t}", spec("mul", t, mode=mode), [t, t], [wide])
            probe(f"mad.{mode}.{t}", spec("mad", t, mode=mode), [t, t, wide], [wide])
    for t in ("u16x2", "s16x2"):
        for op in ("add", "sub", "min", "max"):
            probe(f"{op}.{t}", spec(op, t), [t, t], [t])
    for t in ("s32", "s16x2"):
        for op in ("min", "max"):
            probe(f"{op}.relu.{t}", spec(op, t, relu=True), [t, t], [t])
    for t in ("s16", "s32", "s64"):
        probe(f"abs.{t}", spec("abs", t), [t], [t])
        probe(f"neg.{t}", spec("neg", t), [t], [t])
    probe("add.sat.s32", spec("add", "s32", sat=True), ["s32", "s32"], ["s32"])
    probe("sub.sat.s32", spec("sub", "s32", sat=True), ["s32", "s32"], ["s32"])
    probe("mad.hi.sat.s32", spec("mad", "s32", mode="hi", sat=True), ["s32"] * 3, ["s32"])
    for t in ("u32", "s32"):
        for mode in ("lo", "hi"):
            probe(f"mul24.{mode}.{t}", spec("mul24", t, mode=mode), [t, t], [t])
            probe(f"mad24.{mode}.{t}", spec("mad24", t, mode=mode), [t] * 3, [t])
    probe("mad24.hi.sat.s32", spec("mad24", "s32", mode="hi", sat=True), ["s32"] * 3, ["s32"])
    # extended precision: the carry is read back with addc.u32 d, 0, 0 and set from a 0/1
    # register with add.cc.u32 _, cf, 0xFFFFFFFF (carries exactly when cf >= 1)
    set_cf = "add.cc.u32 %%%%t32, {a%d}, 0xFFFFFFFF; "
    for t in ("u32", "s32", "u64", "s64"):
        probe(f"add.cc.{t}", spec("add", t, cc=True), [t, t], [t, "u32"],
              f"add.cc.{t} {{d0}}, {{a0}}, {{a1}}; addc.u32 {{d1}}, 0, 0;")
        probe(f"sub.cc.{t}", spec("sub", t, cc=True), [t, t], [t, "u32"],
              f"sub.cc.{t} {{d0}}, {{a0}}, {{a1}}; addc.u32 {{d1}}, 0, 0;")
        for op in ("addc", "subc"):
            probe(f"{op}.cc.{t}", spec(op, t, cc=True), [t, t, CARRY], [t, "u32"],
                  set_cf % 2 + f"{op}.cc.{t} {{d0}}, {{a0}}, {{a1}}; addc.u32 {{d1}}, 0, 0;")
            probe(f"{op}.{t}", spec(op, t), [t, t, CARRY], [t], set_cf % 2 + f"{op}.{t} {{d0}}, {{a0}}, {{a1}};")
        for mode in ("lo", "hi"):
            probe(f"mad.{mode}.cc.{t}", spec("mad", t, mode=mode, cc=True), [t] * 3, [t, "u32"],
                  f"mad.{mode}.cc.{t} {{d0}}, {{a0}}, {{a1}}, {{a2}}; addc.u32 {{d1}}, 0, 0;")
            probe(f"madc.{mode}.cc.{t}", spec("madc", t, mode=mode, cc=True), [t] * 3 + [CARRY], [t, "u32"],
                  set_cf % 3 + f"madc.{mode}.cc.{t} {{d0}}, {{a0}}, {{a1}}, {{a2}}; addc.u32 {{d1}}, 0, 0;")
    # bits
    for t in ("b32", "b64"):
        probe(f"popc.{t}", spec("popc", t), [t], ["u32"])
        probe(f"clz.{t}", spec("clz", t), [t], ["u32"])
        probe(f"brev.{t}", spec("brev", t), [t], [t])
        probe(f"bfi.{t}", spec("bfi", t), [t, t, POS, POS], [t], n_random=2000)
    for t in ("u32", "u64", "s32", "s64"):
        probe(f"bfind.{t}", spec("bfind", t), [t], ["u32"])
        probe(f"bfind.shiftamt.{t}", spec("bfind", t, shiftamt=True), [t], ["u32"])
        probe(f"bfe.{t}", spec("bfe", t), [t, POS, POS], [t], n_random=2000)
    for t in ("u32", "s32"):
        for mode in ("clamp", "wrap"):
            probe(f"szext.{mode}.{t}", spec("szext", t, mode=mode), [t, counts(32)], [t])
    for mode in ("clamp", "wrap"):
        probe(f"bmsk.{mode}.b32", spec("bmsk", "b32", mode=mode), [counts(32), counts(32)], ["b32"])
    probe("fns.b32", spec("fns", "b32"), ["b32", ("u32", list(range(0, 40)) + [0xFFFFFFFF, 0x80000000]),
                                         ("s32", list(range(-34, 35)) + [-2**31, 2**31 - 1])], ["b32"], n_random=3000)
    probe("fns.b32 (large offsets)", spec("fns", "b32"),
          ["b32", ("u32", list(range(0, 34)) + [0xFFFFFFFF]),
           ("s32", [-2**31, -2**31 + 1, -2**31 + 2, -2**30, 2**30, 2**31 - 1, -33, -32, 32, 33])], ["b32"],
          "fns.b32 {d0}, {a0}, {a1}, {a2};", n_random=3000)
    probe("fns.b32 (s32 base)", spec("fns", "b32"), ["b32", ("s32", list(range(-3, 33))),
                                                    ("s32", list(range(-34, 35)))], ["b32"],
          "fns.b32 {d0}, {a0}, {a1}, {a2};", n_random=2000)
    for at in ("u32", "s32"):
        for bt in ("u32", "s32"):
            ct = "u32" if at == bt == "u32" else "s32"
            types = {"atype": at, "btype": bt}
            probe(f"dp4a.{at}.{bt}", spec("dp4a", types=types), [at, bt, ct], [ct])
            for mode in ("lo", "hi"):
                probe(f"dp2a.{mode}.{at}.{bt}", spec("dp2a", types=types, mode=mode), [at, bt, ct], [ct])
    # logic and shifts
    for t in ("b16", "b32", "b64"):
        for op in ("and", "or", "xor"):
            probe(f"{op}.{t}", spec(op, t), [t, t], [t])
        probe(f"not.{t}", spec("not", t), [t], [t])
        probe(f"cnot.{t}", spec("cnot", t), [t], [t])
        probe(f"shl.{t}", spec("shl", t), [t, counts(64)], [t])
    for op in ("and", "or", "xor"):
        probe(f"{op}.pred", spec(op, "pred"), ["pred", "pred"], ["pred"])
    probe("not.pred", spec("not", "pred"), ["pred"], ["pred"])
    for t in ("b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64"):
        probe(f"shr.{t}", spec("shr", t), [t, counts(64)], [t])
    for d in ("l", "r"):
        for mode in ("clamp", "wrap"):
            probe(f"shf.{d}.{mode}.b32", spec("shf", "b32", dir=d, mode=mode), ["b32", "b32", counts(64)], ["b32"])
    for lut in range(256):
        probe(f"lop3.b32 {lut:#x}", spec("lop3", "b32"), ["b32", "b32", "b32", ("u32", [lut])], ["b32"],
              f"lop3.b32 {{d0}}, {{a0}}, {{a1}}, {{a2}}, {lut};", n_random=100)
    for boolop in ("and", "or"):
        probe(f"lop3.{boolop}.b32", spec("lop3", "b32", boolop=boolop),
              ["b32", "b32", "b32", ("u32", [0x3F]), "pred"], ["b32", "pred"],
              f"lop3.{boolop}.b32 {{d0}}|{{d1}}, {{a0}}, {{a1}}, {{a2}}, 0x3f, {{a4}};")
    sel = ("b32", list(range(16)) + [0x3210, 0x7654, 0x8888, 0xFEDC, 0xBA98, 0x7531, 0x12345678, 0xFFFFFFFF])
    for mode in (None, "f4e", "b4e", "rc8", "ecl", "ecr", "rc16"):
        name = "prmt.b32" + (f".{mode}" if mode else "")
        probe(name, spec("prmt", "b32", **({"mode": mode} if mode else {})), ["b32", "b32", sel], ["b32"])
    # comparisons
    int_ops = ("eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs")
    float_ops = ("eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan")
    for t in ("b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64"):
        for op in int_ops:
            probe(f"setp.{op}.{t}", spec("setp", t, cmp=op), [t, t], ["pred", "pred"])
    for op in int_ops:
        probe(f"setp.{op}.xor.s32", spec("setp", "s32", cmp=op, boolop="xor"), ["s32", "s32", "pred"], ["pred", "pred"])
    for t, ftz in (("f32", False), ("f32", True), ("f64", False)):
        for op in float_ops:
            f = ".ftz" if ftz else ""
            probe(f"setp.{op}{f}.{t}", spec("setp", t, cmp=op, ftz=ftz), [t, t], ["pred", "pred"])
            probe(f"setp.{op}.and{f}.{t}", spec("setp", t, cmp=op, boolop="and", ftz=ftz), [t, t, "pred"],
                  ["pred", "pred"])
    for t in ("f16", "bf16", "f16x2", "bf16x2"):
        for ftz in ((False, True) if not t.startswith("bf") else (False,)):
            for op in float_ops:
                f = ".ftz" if ftz else ""
                if t.endswith("x2"):
                    probe(f"setp.{op}{f}.{t}", spec("setp", t, cmp=op, ftz=ftz), [t, t], ["pred", "pred"])
                else:  # the scalar half forms write p only (ptxas: "Predicate output not allowed")
                    probe(f"setp.{op}{f}.{t}", spec("setp", t, cmp=op, ftz=ftz), [t, t], ["pred"],
                          f"setp.{op}{f}.{t} {{d0}}, {{a0}}, {{a1}};")
    for stype in ("b32", "s16", "u64", "f32", "f64"):
        for dtype in ("u32", "s32", "f32"):
            op = "lt" if stype[0] != "f" else "ltu"
            probe(f"set.{op}.{dtype}.{stype}", spec("set", types={"dtype": dtype, "stype": stype}, cmp=op),
                  [stype, stype], [dtype])
            probe(f"set.{op}.or.{dtype}.{stype}",
                  spec("set", types={"dtype": dtype, "stype": stype}, cmp=op, boolop="or"),
                  [stype, stype, "pred"], [dtype])
    for stype, dtypes in (("f16", ("u16", "s16", "u32", "s32", "f16")), ("bf16", ("u16", "s16", "u32", "s32", "bf16")),
                          ("f16x2", ("f16x2", "u32", "s32")), ("bf16x2", ("bf16x2", "u32", "s32"))):
        for dtype in dtypes:
            probe(f"set.gtu.{dtype}.{stype}", spec("set", types={"dtype": dtype, "stype": stype}, cmp="gtu"),
                  [stype, stype], [dtype])
    for t in ("b16", "s32", "u64", "f32", "f64"):
        probe(f"selp.{t}", spec("selp", t), [t, t, "pred"], [t])
        for ct, ftz in (("s32", False), ("f32", False), ("f32", True)):
            f = ".ftz" if ftz else ""
            probe(f"slct{f}.{t}.{ct}", spec("slct", types={"dtype": t, "ctype": ct}, ftz=ftz), [t, t, ct], [t])


# --------------------------------------------------------------------------- CUDA source


def kernel_source(k: int, p: Probe) -> str:
    """A kernel running p's asm once per row: inputs a0.., outputs d0.., then n."""
    params, loads, stores, outs_c, ins_c = [], [], [], [], []
    pre, post, decl = [], [], []
    names = {}
    for j, t in enumerate(p.outs):
        ct, con = C_TYPE[t]
        params.append(f"{ct}* d{j}")
        loads.append(f"{ct} D{j};")
        stores.append(f"d{j}[i] = D{j};")
        outs_c.append(f'"={con}"(D{j})')
    for i, op in enumerate(p.ins):
        ct, con = C_TYPE[kind(op)]
        params.append(f"const {ct}* a{i}")
        loads.append(f"{ct} A{i} = a{i}[i];")
        ins_c.append(f'"{con}"(A{i})')
    n_out = len(p.outs)
    for j, t in enumerate(p.outs):
        if t == "pred":
            decl.append(f".reg .pred %%po{j};")
            post.append(f"selp.u32 %{j}, 1, 0, %%po{j};")
            names[f"d{j}"] = f"%%po{j}"
        else:
            names[f"d{j}"] = f"%{j}"
    for i, op in enumerate(p.ins):
        if kind(op) == "pred":
            decl.append(f".reg .pred %%pi{i};")
            pre.append(f"setp.ne.u32 %%pi{i}, %{n_out + i}, 0;")
            names[f"a{i}"] = f"%%pi{i}"
        else:
            names[f"a{i}"] = f"%{n_out + i}"
    body = p.asm().format(**names)
    asm = " ".join(["{", ".reg .b32 %%t32;", *decl, *pre, body, *post, "}"])
    return (f'extern "C" __global__ void k{k}({", ".join(params)}, int n) {{\n'
            f"  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;\n"
            f"  {' '.join(loads)}\n"
            f'  asm volatile("{asm}" : {", ".join(outs_c)} : {", ".join(ins_c)});\n'
            f"  {' '.join(stores)}\n}}\n")


def source(probes) -> str:
    return "".join(kernel_source(k, p) for k, p in probes)


def ptxas_rejects(probes) -> dict:
    """{probe name: ptxas's message} for the probes whose PTX ptxas refuses (nvcc and ptxas on
    the PATH): the GPU cannot run those forms, so they are reported instead of run."""
    import re
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        cu, ptx = os.path.join(tmp, "p.cu"), os.path.join(tmp, "p.ptx")
        with open(cu, "w") as f:
            f.write(source(probes))
        # nvcc checks the inline asm with ptxas; -keep leaves the PTX its line numbers refer to
        res = subprocess.run(["nvcc", "-arch=sm_90", "-cubin", "-keep", "-keep-dir", tmp, "-o",
                              os.path.join(tmp, "p.cubin"), cu], capture_output=True, text=True)
        entry, kernel_at = None, []
        for line in open(ptx).read().split("\n"):
            m = re.search(r"\.entry (k\d+)", line)
            entry = m.group(1) if m else entry
            kernel_at.append(entry)
    by_k = dict(probes)
    out = {}
    for m in re.finditer(r"line (\d+); error\s*:\s*(.*)", res.stdout + res.stderr):
        k = int(kernel_at[int(m.group(1)) - 1][1:])
        out.setdefault(by_k[k].name, m.group(2).strip())
    return out


# --------------------------------------------------------------------------- run


def columns(p: Probe):
    rows = rows_for(p.ins, n_random=p.n_random, max_grid=3000)
    return [np.array([r[i] for r in rows], dtype=numpy_dtype(kind(op))) for i, op in enumerate(p.ins)]


def as_bits(x):
    x = np.asarray(x)
    if x.dtype == np.bool_:
        return x.astype(np.uint32)
    if x.dtype.kind == "f":
        return x.view({4: np.uint32, 8: np.uint64}[x.dtype.itemsize])
    return x.astype({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[x.dtype.itemsize])


def run(out_dir: str, only: str | None, dump: str | None = None):
    import cupy as cp

    build_probes()
    chosen = [(k, p) for k, p in enumerate(PROBES) if not only or only in p.name]
    bad_compile = ptxas_rejects(chosen)
    runnable = [(k, p) for k, p in chosen if p.name not in bad_compile]
    cubin = os.path.join(out_dir, "probe.cubin")
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "probe.cu"), "w") as f:
        f.write(source(runnable))
    subprocess.run(["nvcc", "-arch=sm_90", "-cubin", "-o", cubin, os.path.join(out_dir, "probe.cu")], check=True)
    module = cp.RawModule(path=cubin)
    modules = {k: module for k, _ in runnable}
    report, summary, dumps = {}, [], {}
    for k, p in chosen:
        if k not in modules:
            summary.append(f"{p.name:34s} rejected by ptxas: {bad_compile.get(p.name)}")
            report[p.name] = {"ptxas_error": bad_compile.get(p.name)}
            continue
        cols = columns(p)
        n = len(cols[0])
        dev_in = [cp.asarray(c.astype(np.uint32) if kind(op) == "pred" else c) for c, op in zip(cols, p.ins)]
        dev_out = [cp.full(n, 0xAB, dtype=numpy_dtype("u32" if t == "pred" else t)) for t in p.outs]
        fn = modules[k].get_function(f"k{k}")
        fn(((n + 127) // 128,), (128,), (*dev_out, *dev_in, np.int32(n)))
        cp.cuda.runtime.deviceSynchronize()
        gpu = [as_bits(cp.asnumpy(o)) for o in dev_out]
        got = lane_function(p.spec)(*cols)
        got = got if isinstance(got, tuple) else (got,)
        vm = [as_bits(np.broadcast_to(g, (n,))) for g in got]
        bad = np.zeros(n, bool)
        for g, v in zip(gpu, vm):
            bad |= g.astype(np.uint64) != v.astype(np.uint64)
        if dump and dump in p.name:
            dumps[p.name] = {"in": [c.tolist() for c in cols], "gpu": [g.tolist() for g in gpu],
                             "ptxvm": [v.tolist() for v in vm]}
        idx = np.flatnonzero(bad)
        status = "ok" if len(idx) == 0 else f"MISMATCH {len(idx)}/{n}"
        summary.append(f"{p.name:34s} {status}")
        if len(idx):
            report[p.name] = {"mismatches": int(len(idx)), "rows": n, "examples": [
                {"in": [c[i].item() for c in cols], "gpu": [int(g[i]) for g in gpu], "ptxvm": [int(v[i]) for v in vm]}
                for i in idx[:12]]}
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "report.json"), "w") as f:
        json.dump({"device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
                   "cuda_runtime": cp.cuda.runtime.runtimeGetVersion(),
                   "driver": cp.cuda.runtime.driverGetVersion(), "probes": len(chosen), "findings": report},
                  f, indent=1)
    if dumps:
        with open(os.path.join(out_dir, "dump.json"), "w") as f:
            json.dump(dumps, f)
    print("\n".join(line for line in summary if not line.endswith(" ok")))
    print(f"{sum(s.endswith(' ok') for s in summary)} of {len(runnable)} runnable probes agree; "
          f"{len(bad_compile)} forms rejected by ptxas")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--only")
    ap.add_argument("--dump", help="save every row of the probes whose name contains this")
    ap.add_argument("--emit")
    ap.add_argument("--legal", action="store_true", help="list the probes ptxas rejects")
    args = ap.parse_args()
    if args.legal:
        build_probes()
        for name, msg in ptxas_rejects(list(enumerate(PROBES))).items():
            print(f"{name:34s} {msg}")
        return
    if args.emit:
        build_probes()
        with open(args.emit, "w") as f:
            f.write(source([(k, p) for k, p in enumerate(PROBES) if not args.only or args.only in p.name]))
        print(f"{len(PROBES)} probes")
        return
    run(args.out, args.only, args.dump)


if __name__ == "__main__":
    main()
