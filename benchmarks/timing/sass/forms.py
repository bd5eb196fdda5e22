"""PTX instruction forms whose machine code (SASS) is counted with ptxas (issue 20).

Each form is one PTX instruction with typed placeholders: `{d:CLASS}` a destination register,
`{a:CLASS}`, `{b:CLASS}`, `{c:CLASS}` sources (loaded from global memory, so ptxas cannot fold
them), `{dxN:CLASS}` / `{axN:CLASS}` braces of N registers. Classes: r (.b32), rd (.b64), h (.b16),
p (.pred), f (.f32), fd (.f64). `generate()` writes one PTX module with four kernels per form:

* `ind1` / `ind9`: 1 and 9 independent instances (sources loaded, result stored). The SASS count
  of the form is (ind9 - ind1) / 8 after removing the loads, stores and predicate set-ups/stores
  every instance has (tools/sass_forms.py).
* `chain1` / `chain9`: a dependent chain of 1 and 9 instances (forms whose result feeds their
  first source): the control codes' stall counts of the 8 extra links are the dependent-issue
  latency ptxas gives the form (fixed-latency results), or their scoreboard use says the result
  has a variable latency.

The PTX is in forms.ptx next to this file (`python benchmarks/timing/sass/forms.py` rewrites it).
"""
from __future__ import annotations

import os
import re

# (name, PTX with placeholders); the name is the form's key in results/sass_forms_ptxas13.json
FORMS = [
    # 32-bit integer
    ("add.s32", "add.s32 {d:r}, {a:r}, {b:r};"),
    ("add.s32 imm", "add.s32 {d:r}, {a:r}, 77;"),
    ("sub.s32", "sub.s32 {d:r}, {a:r}, {b:r};"),
    ("mul.lo.s32", "mul.lo.s32 {d:r}, {a:r}, {b:r};"),
    ("mad.lo.s32", "mad.lo.s32 {d:r}, {a:r}, {b:r}, {c:r};"),
    ("mul.hi.u32", "mul.hi.u32 {d:r}, {a:r}, {b:r};"),
    ("mul.wide.s32", "mul.wide.s32 {d:rd}, {a:r}, {b:r};"),
    ("mul.wide.u32", "mul.wide.u32 {d:rd}, {a:r}, {b:r};"),
    ("mad.wide.u32", "mad.wide.u32 {d:rd}, {a:r}, {b:r}, {c:rd};"),
    ("div.u32", "div.u32 {d:r}, {a:r}, {b:r};"),
    ("div.s32", "div.s32 {d:r}, {a:r}, {b:r};"),
    ("rem.u32", "rem.u32 {d:r}, {a:r}, {b:r};"),
    ("div.u32 imm", "div.u32 {d:r}, {a:r}, 7;"),
    ("and.b32", "and.b32 {d:r}, {a:r}, {b:r};"),
    ("or.b32", "or.b32 {d:r}, {a:r}, {b:r};"),
    ("xor.b32", "xor.b32 {d:r}, {a:r}, {b:r};"),
    ("not.b32", "not.b32 {d:r}, {a:r};"),
    ("shl.b32", "shl.b32 {d:r}, {a:r}, {b:r};"),
    ("shl.b32 imm", "shl.b32 {d:r}, {a:r}, 3;"),
    ("shr.u32", "shr.u32 {d:r}, {a:r}, {b:r};"),
    ("shr.s32 imm", "shr.s32 {d:r}, {a:r}, 5;"),
    ("min.s32", "min.s32 {d:r}, {a:r}, {b:r};"),
    ("max.u32", "max.u32 {d:r}, {a:r}, {b:r};"),
    ("abs.s32", "abs.s32 {d:r}, {a:r};"),
    ("neg.s32", "neg.s32 {d:r}, {a:r};"),
    ("popc.b32", "popc.b32 {d:r}, {a:r};"),
    ("clz.b32", "clz.b32 {d:r}, {a:r};"),
    ("brev.b32", "brev.b32 {d:r}, {a:r};"),
    ("bfe.u32", "bfe.u32 {d:r}, {a:r}, 3, 7;"),
    ("bfi.b32", "bfi.b32 {d:r}, {a:r}, {b:r}, 4, 8;"),
    ("prmt.b32", "prmt.b32 {d:r}, {a:r}, {b:r}, 0x5140;"),
    ("shf.l.wrap.b32", "shf.l.wrap.b32 {d:r}, {a:r}, {b:r}, {c:r};"),
    ("selp.b32", "selp.b32 {d:r}, {a:r}, {b:r}, {c:p};"),
    ("setp.lt.s32", "setp.lt.s32 {d:p}, {a:r}, {b:r};"),
    ("setp.eq.u32", "setp.eq.u32 {d:p}, {a:r}, {b:r};"),
    ("mul24.lo.s32", "mul24.lo.s32 {d:r}, {a:r}, {b:r};"),
    ("dp4a.u32.u32", "dp4a.u32.u32 {d:r}, {a:r}, {b:r}, {c:r};"),
    # 64-bit integer and address arithmetic
    ("add.s64", "add.s64 {d:rd}, {a:rd}, {b:rd};"),
    ("add.s64 imm", "add.s64 {d:rd}, {a:rd}, 128;"),
    ("sub.s64", "sub.s64 {d:rd}, {a:rd}, {b:rd};"),
    ("mul.lo.s64", "mul.lo.s64 {d:rd}, {a:rd}, {b:rd};"),
    ("mad.lo.s64", "mad.lo.s64 {d:rd}, {a:rd}, {b:rd}, {c:rd};"),
    ("mul.lo.s64 imm", "mul.lo.s64 {d:rd}, {a:rd}, 12;"),
    ("and.b64", "and.b64 {d:rd}, {a:rd}, {b:rd};"),
    ("or.b64", "or.b64 {d:rd}, {a:rd}, {b:rd};"),
    ("xor.b64", "xor.b64 {d:rd}, {a:rd}, {b:rd};"),
    ("shl.b64", "shl.b64 {d:rd}, {a:rd}, {b:r};"),
    ("shl.b64 imm", "shl.b64 {d:rd}, {a:rd}, 2;"),
    ("shr.u64 imm", "shr.u64 {d:rd}, {a:rd}, 7;"),
    ("shr.s64", "shr.s64 {d:rd}, {a:rd}, {b:r};"),
    ("min.s64", "min.s64 {d:rd}, {a:rd}, {b:rd};"),
    ("max.u64", "max.u64 {d:rd}, {a:rd}, {b:rd};"),
    ("neg.s64", "neg.s64 {d:rd}, {a:rd};"),
    ("abs.s64", "abs.s64 {d:rd}, {a:rd};"),
    ("popc.b64", "popc.b64 {d:r}, {a:rd};"),
    ("clz.b64", "clz.b64 {d:r}, {a:rd};"),
    ("setp.lt.s64", "setp.lt.s64 {d:p}, {a:rd}, {b:rd};"),
    ("setp.eq.u64", "setp.eq.u64 {d:p}, {a:rd}, {b:rd};"),
    ("selp.b64", "selp.b64 {d:rd}, {a:rd}, {b:rd}, {c:p};"),
    ("div.u64", "div.u64 {d:rd}, {a:rd}, {b:rd};"),
    ("rem.s64", "rem.s64 {d:rd}, {a:rd}, {b:rd};"),
    ("mov.b64 pack", "mov.b64 {d:rd}, { {a:r}, {b:r} };"),
    ("mov.b64 unpack", "mov.b64 { {d:r}, {e:r} }, {a:rd};"),
    ("mov.b32 pack16", "mov.b32 {d:r}, { {a:h}, {b:h} };"),
    ("cvta.to.global.u64", "cvta.to.global.u64 {d:rd}, {a:rd};"),
    ("cvta.global.u64", "cvta.global.u64 {d:rd}, {a:rd};"),
    # conversions
    ("cvt.u64.u32", "cvt.u64.u32 {d:rd}, {a:r};"),
    ("cvt.s64.s32", "cvt.s64.s32 {d:rd}, {a:r};"),
    ("cvt.u32.u64", "cvt.u32.u64 {d:r}, {a:rd};"),
    ("cvt.u16.u32", "cvt.u16.u32 {d:h}, {a:r};"),
    ("cvt.u32.u16", "cvt.u32.u16 {d:r}, {a:h};"),
    ("cvt.s32.s8", "cvt.s32.s8 {d:r}, {a:r};"),
    ("cvt.rn.f32.s32", "cvt.rn.f32.s32 {d:f}, {a:r};"),
    ("cvt.rn.f32.u32", "cvt.rn.f32.u32 {d:f}, {a:r};"),
    ("cvt.rzi.s32.f32", "cvt.rzi.s32.f32 {d:r}, {a:f};"),
    ("cvt.rni.f32.f32", "cvt.rni.f32.f32 {d:f}, {a:f};"),
    ("cvt.rn.f32.u64", "cvt.rn.f32.u64 {d:f}, {a:rd};"),
    ("cvt.rzi.s64.f32", "cvt.rzi.s64.f32 {d:rd}, {a:f};"),
    ("cvt.rn.f64.s32", "cvt.rn.f64.s32 {d:fd}, {a:r};"),
    ("cvt.f64.f32", "cvt.f64.f32 {d:fd}, {a:f};"),
    ("cvt.rn.f32.f64", "cvt.rn.f32.f64 {d:f}, {a:fd};"),
    ("cvt.rn.f16.f32", "cvt.rn.f16.f32 {d:h}, {a:f};"),
    ("cvt.f32.f16", "cvt.f32.f16 {d:f}, {a:h};"),
    ("cvt.rn.bf16.f32", "cvt.rn.bf16.f32 {d:h}, {a:f};"),
    ("cvt.f32.bf16", "cvt.f32.bf16 {d:f}, {a:h};"),
    ("cvt.rn.f16x2.f32", "cvt.rn.f16x2.f32 {d:r}, {a:f}, {b:f};"),
    ("cvt.rn.bf16x2.f32", "cvt.rn.bf16x2.f32 {d:r}, {a:f}, {b:f};"),
    ("cvt.rna.tf32.f32", "cvt.rna.tf32.f32 {d:r}, {a:f};"),
    # fp32
    ("add.f32", "add.f32 {d:f}, {a:f}, {b:f};"),
    ("mul.f32", "mul.f32 {d:f}, {a:f}, {b:f};"),
    ("fma.rn.f32", "fma.rn.f32 {d:f}, {a:f}, {b:f}, {c:f};"),
    ("min.f32", "min.f32 {d:f}, {a:f}, {b:f};"),
    ("abs.f32", "abs.f32 {d:f}, {a:f};"),
    ("neg.f32", "neg.f32 {d:f}, {a:f};"),
    ("setp.lt.f32", "setp.lt.f32 {d:p}, {a:f}, {b:f};"),
    ("selp.f32", "selp.f32 {d:f}, {a:f}, {b:f}, {c:p};"),
    ("testp.finite.f32", "testp.finite.f32 {d:p}, {a:f};"),
    ("div.rn.f32", "div.rn.f32 {d:f}, {a:f}, {b:f};"),
    ("div.full.f32", "div.full.f32 {d:f}, {a:f}, {b:f};"),
    ("div.approx.f32", "div.approx.f32 {d:f}, {a:f}, {b:f};"),
    ("rcp.rn.f32", "rcp.rn.f32 {d:f}, {a:f};"),
    ("rcp.approx.f32", "rcp.approx.f32 {d:f}, {a:f};"),
    ("rcp.approx.ftz.f32", "rcp.approx.ftz.f32 {d:f}, {a:f};"),
    ("sqrt.rn.f32", "sqrt.rn.f32 {d:f}, {a:f};"),
    ("sqrt.approx.f32", "sqrt.approx.f32 {d:f}, {a:f};"),
    ("rsqrt.approx.f32", "rsqrt.approx.f32 {d:f}, {a:f};"),
    ("rsqrt.approx.ftz.f32", "rsqrt.approx.ftz.f32 {d:f}, {a:f};"),
    ("ex2.approx.f32", "ex2.approx.f32 {d:f}, {a:f};"),
    ("ex2.approx.ftz.f32", "ex2.approx.ftz.f32 {d:f}, {a:f};"),
    ("lg2.approx.f32", "lg2.approx.f32 {d:f}, {a:f};"),
    ("lg2.approx.ftz.f32", "lg2.approx.ftz.f32 {d:f}, {a:f};"),
    ("sin.approx.f32", "sin.approx.f32 {d:f}, {a:f};"),
    ("tanh.approx.f32", "tanh.approx.f32 {d:f}, {a:f};"),
    # fp64
    ("add.f64", "add.f64 {d:fd}, {a:fd}, {b:fd};"),
    ("fma.rn.f64", "fma.rn.f64 {d:fd}, {a:fd}, {b:fd}, {c:fd};"),
    ("setp.lt.f64", "setp.lt.f64 {d:p}, {a:fd}, {b:fd};"),
    ("div.rn.f64", "div.rn.f64 {d:fd}, {a:fd}, {b:fd};"),
    ("sqrt.rn.f64", "sqrt.rn.f64 {d:fd}, {a:fd};"),
    ("rcp.rn.f64", "rcp.rn.f64 {d:fd}, {a:fd};"),
    # f16 / bf16
    ("add.f16", "add.f16 {d:h}, {a:h}, {b:h};"),
    ("fma.rn.f16", "fma.rn.f16 {d:h}, {a:h}, {b:h}, {c:h};"),
    ("add.f16x2", "add.f16x2 {d:r}, {a:r}, {b:r};"),
    ("mul.f16x2", "mul.f16x2 {d:r}, {a:r}, {b:r};"),
    ("fma.rn.f16x2", "fma.rn.f16x2 {d:r}, {a:r}, {b:r}, {c:r};"),
    ("max.f16x2", "max.f16x2 {d:r}, {a:r}, {b:r};"),
    ("add.bf16x2", "add.rn.bf16x2 {d:r}, {a:r}, {b:r};"),
    ("fma.rn.bf16x2", "fma.rn.bf16x2 {d:r}, {a:r}, {b:r}, {c:r};"),
    ("ex2.approx.f16x2", "ex2.approx.f16x2 {d:r}, {a:r};"),
    # warp-level
    ("shfl.sync.idx.b32", "shfl.sync.idx.b32 {d:r}, {a:r}, {b:r}, 31, -1;"),
    ("shfl.sync.bfly.b32 imm", "shfl.sync.bfly.b32 {d:r}, {a:r}, 4, 31, -1;"),
    ("shfl.sync.down.b32 imm", "shfl.sync.down.b32 {d:r}, {a:r}, 1, 31, -1;"),
    ("vote.sync.ballot.b32", "vote.sync.ballot.b32 {d:r}, {a:p}, -1;"),
    ("vote.sync.any.pred", "vote.sync.any.pred {d:p}, {a:p}, -1;"),
    ("redux.sync.add.u32", "redux.sync.add.u32 {d:r}, {a:r}, -1;"),
    ("mov.u32 %tid.x", "mov.u32 {d:r}, %tid.x;"),
    ("mov.u32 %laneid", "mov.u32 {d:r}, %laneid;"),
    ("mov.u32 %clock", "mov.u32 {d:r}, %clock;"),
    # memory and tensor (one PTX instruction; counted for completeness)
    ("ld.global.v4.f32", "ld.global.v4.f32 {dx4:f}, [{a:rd}];"),
    ("ld.global.v2.b64", "ld.global.v2.b64 {dx2:rd}, [{a:rd}];"),
    ("ld.global.nc.f32", "ld.global.nc.f32 {d:f}, [{a:rd}];"),
    ("mma.m16n8k16.f32.f16", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {dx4:f}, {ax4:r}, {bx2:r}, {cx4:f};"),
    ("mma.m16n8k8.f32.tf32", "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {dx4:f}, {ax4:r}, {bx2:r}, {cx4:f};"),
    ("mma.m16n8k8.f32.f16", "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {dx4:f}, {ax2:r}, {bx1:r}, {cx4:f};"),
]

REG = {"r": ("b32", "%r"), "rd": ("b64", "%rd"), "h": ("b16", "%h"), "p": ("pred", "%p"), "f": ("f32", "%f"),
       "fd": ("f64", "%fd")}
BYTES = {"r": 4, "rd": 8, "h": 2, "p": 4, "f": 4, "fd": 8}
_SLOT = re.compile(r"\{([a-z])(?:x(\d))?:([a-z]+)\}")


def slots(text: str) -> list[tuple[str, int, str]]:
    """(role letter, count, class) of each placeholder, in order; roles d/e are destinations."""
    return [(m.group(1), int(m.group(2) or 1), m.group(3)) for m in _SLOT.finditer(text)]


def chainable(text: str) -> bool:
    """A chain feeds the first destination into the first source: same class and count."""
    s = slots(text)
    dst = [x for x in s if x[0] in "de"]
    src = [x for x in s if x[0] not in "de"]
    return bool(dst and src) and dst[0][1:] == src[0][1:] and dst[0][2] != "p" and len(dst) == 1


class _Regs:
    def __init__(self):
        self.n = {k: 0 for k in REG}
        self.n["rd"] = 1  # %rd0 / %rd1: the input and output pointers

    def new(self, cls: str) -> str:
        self.n[cls] += 1
        return f"{REG[cls][1]}{self.n[cls]}"

    def decls(self) -> list[str]:
        return [f"\t.reg .{REG[k][0]} {REG[k][1]}<{v + 1}>;" for k, v in self.n.items() if v]


def _load(regs: _Regs, cls: str, off: int, body: list) -> str:
    if cls == "p":
        t = regs.new("r")
        body.append(f"\tld.global.u32 {t}, [%rd0+{off}];")
        p = regs.new("p")
        body.append(f"\tsetp.ne.u32 {p}, {t}, 0;")
        return p
    r = regs.new(cls)
    body.append(f"\tld.global.b{BYTES[cls] * 8 if cls != 'h' else 16} {r}, [%rd0+{off}];".replace(".bb", ".b"))
    return r


def _store(regs: _Regs, cls: str, reg: str, off: int, body: list) -> None:
    if cls == "p":
        t = regs.new("r")
        body.append(f"\tselp.u32 {t}, 1, 0, {reg};")
        body.append(f"\tst.global.u32 [%rd1+{off}], {t};")
        return
    body.append(f"\tst.global.b{BYTES[cls] * 8} [%rd1+{off}], {reg};")


def _fill(text: str, regs: _Regs, body: list, off: list, given: dict) -> tuple[str, list]:
    """Instantiate one instance: load its sources (or take `given`), return (text, destinations)."""
    dests = []

    def sub(m):
        role, n, cls = m.group(1), int(m.group(2) or 1), m.group(3)
        if role in "de":
            names = [regs.new(cls) for _ in range(n)]
            dests.append((cls, names))
        elif role in given:
            names = given[role]
        else:
            names = []
            for _ in range(n):
                names.append(_load(regs, cls, off[0], body))
                off[0] += 16
        return names[0] if m.group(2) is None else "{" + ", ".join(names) + "}"

    out = _SLOT.sub(sub, text)
    return out, dests


def kernel(name: str, text: str, n: int, chain: bool) -> str:
    regs = _Regs()
    body: list = []
    off = [0]
    soff = 0
    given: dict = {}
    for k in range(n):
        inst, dests = _fill(text, regs, body, off, given)
        body.append("\t" + inst)
        if chain:  # the next link's first source is this one's result; its other sources are loaded
            given = {"a": dests[0][1]}
        if not chain or k == n - 1:
            for cls, names in dests:
                for r in names:
                    _store(regs, cls, r, soff, body)
                    soff += 16
    head = [f".visible .entry {name}(.param .u64 in, .param .u64 out)", "{", "\t.reg .b64 %rd<2>;"]
    # each lane loads its own sources (ptxas drops a shuffle or a reduction of a warp-uniform value)
    pre = ["\t.reg .b32 %tid0;", "\t.reg .b64 %lane0;", "\tld.param.u64 %rd0, [in];", "\tld.param.u64 %rd1, [out];",
           "\tcvta.to.global.u64 %rd0, %rd0;", "\tcvta.to.global.u64 %rd1, %rd1;", "\tmov.u32 %tid0, %tid.x;",
           "\tmul.wide.u32 %lane0, %tid0, 512;", "\tadd.s64 %rd0, %rd0, %lane0;", "\tadd.s64 %rd1, %rd1, %lane0;"]
    decls = [d for d in regs.decls() if not d.startswith("\t.reg .b64 %rd<")]
    if regs.n["rd"] > 1:
        decls.append(f"\t.reg .b64 %rd<{regs.n['rd'] + 1}>;")
        head = head[:-1]
    return "\n".join(head + decls + pre + body + ["\tret;", "}", ""])


def kernel_names(i: int) -> dict:
    return {v: f"f{i:03d}_{v}" for v in ("ind1", "ind9", "chain1", "chain9")}


def generate() -> str:
    out = ["//", "// Generated by benchmarks/timing/sass/forms.py: PTX instruction forms for counting SASS.", "//",
           ".version 8.5", ".target sm_90a", ".address_size 64", ""]
    for i, (name, text) in enumerate(FORMS):
        out.append(f"// form {i}: {name}")
        names = kernel_names(i)
        out.append(kernel(names["ind1"], text, 1, False))
        out.append(kernel(names["ind9"], text, 9, False))
        if chainable(text):
            out.append(kernel(names["chain1"], text, 1, True))
            out.append(kernel(names["chain9"], text, 9, True))
    return "\n".join(out)


PTX_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "forms.ptx")

if __name__ == "__main__":
    with open(PTX_PATH, "w") as fh:
        fh.write(generate())
    print(f"wrote {PTX_PATH} ({len(FORMS)} forms)")
