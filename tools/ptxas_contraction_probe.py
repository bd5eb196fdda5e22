"""Which multiply/add pairs does ptxas contract into one FMA?  (docs/hardware-notes.md, ptxas)

Generates small PTX kernels, one per pattern, compiles each with ptxas for sm_90 and reads the
SASS with cuobjdump: a pattern is *fused* when the SASS has an FFMA/DFMA/HFMA2 and no separate
multiply for the product.  Used to find the rules ptxvm.engine.contraction models, and by
tests/engine/contraction/test_ptxas_oracle.py to check that the model fuses what ptxas fuses.

    python tools/ptxas_contraction_probe.py [--ptxas PATH] [-v] [NAME_SUBSTRING]
    python tools/ptxas_contraction_probe.py --record tests/engine/contraction/ptxas_fusions.json

Each pattern is a kernel body over registers %a %b %c %d %e (inputs, loaded from memory) and
%p %q %r %s %t %u (temporaries) of one type; `store` lists what is written out.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")))
from ptxvm import toolchain  # noqa: E402

_IN = ("a", "b", "c", "d", "e")
_TMP = ("p", "q", "r", "s", "t", "u", "v")
_SIZE = {"f32": 4, "f64": 8, "f16": 2, "bf16": 2, "f16x2": 4, "bf16x2": 4}
_REGT = {"f32": "f32", "f64": "f64", "f16": "b16", "bf16": "b16", "f16x2": "b32", "bf16x2": "b32"}
_LDT = {"f32": "f32", "f64": "f64", "f16": "b16", "bf16": "b16", "f16x2": "b32", "bf16x2": "b32"}


@dataclass
class Pattern:
    name: str
    type: str
    body: str
    store: tuple = ("r",)
    note: str = ""
    extra_params: bool = False  # a .pred input %pr from the third parameter


def kernel(p: Pattern) -> str:
    rt, lt, size = _REGT[p.type], _LDT[p.type], _SIZE[p.type]
    lines = [".version 8.0", ".target sm_90", ".address_size 64", "",
             ".visible .entry k(.param .u64 pin, .param .u64 pout, .param .u32 flag)", "{",
             f"  .reg .{rt} " + ", ".join(f"%{n}" for n in _IN + _TMP) + ";",
             "  .reg .b64 %rin, %rout;", "  .reg .b32 %flag;", "  .reg .pred %pr, %pq;",
             "  ld.param.u64 %rin, [pin];", "  ld.param.u64 %rout, [pout];",
             "  ld.param.u32 %flag, [flag];", "  setp.ne.u32 %pr, %flag, 0;",
             "  setp.gt.u32 %pq, %flag, 7;",
             "  cvta.to.global.u64 %rin, %rin;", "  cvta.to.global.u64 %rout, %rout;"]
    for i, n in enumerate(_IN):
        lines.append(f"  ld.global.{lt} %{n}, [%rin+{i * size}];")
    lines += ["  " + s.strip() for s in p.body.strip().splitlines()]
    for i, n in enumerate(p.store):
        lines.append(f"  st.global.{lt} [%rout+{i * size}], %{n};")
    lines += ["  ret;", "}", ""]
    return "\n".join(lines)


_FLOAT_OP = re.compile(r"(@!?U?P[T0-9]+\s+)?\b(FFMA|FMUL|FADD|DFMA|DMUL|DADD|HFMA2|HMUL2|HADD2|FMNMX|FSEL|FSETP)"
                       r"(\.[A-Z0-9_.]+)?\s+([^;]*);")


def find_tools(ptxas: str | None = None):
    """ptxas (the toolkit's first: the recorded fusions are CUDA 13.0's) and cuobjdump, or None."""
    return ptxas or toolchain.find("ptxas", toolkit_first=True), toolchain.find("cuobjdump", toolkit_first=True)


def sass(ptx: str, ptxas: str, cuobjdump: str, arch: str = "sm_90") -> list[str]:
    """The floating-point instructions of the compiled kernel, in order ("FFMA R0, R2, R3, R4")."""
    with tempfile.TemporaryDirectory() as tmp:
        src, out = os.path.join(tmp, "k.ptx"), os.path.join(tmp, "k.cubin")
        with open(src, "w") as f:
            f.write(ptx)
        subprocess.run([ptxas, f"-arch={arch}", "-o", out, src], check=True, capture_output=True, text=True)
        text = subprocess.run([cuobjdump, "--dump-sass", out], check=True, capture_output=True,
                              text=True).stdout
    return [f"{m.group(1) or ''}{m.group(2)}{m.group(3) or ''} {m.group(4).strip()}"
            for m in _FLOAT_OP.finditer(text)]


def classify(ops: list[str]) -> str:
    """'fused' when an FMA appears, else 'separate'; the count of each op follows."""
    names = [o.split()[1 if o.startswith("@") else 0].split(".")[0] for o in ops]
    fma = sum(n in ("FFMA", "DFMA", "HFMA2") for n in names)
    mul = sum(n in ("FMUL", "DMUL", "HMUL2") for n in names)
    add = sum(n in ("FADD", "DADD", "HADD2") for n in names)
    return f"fma={fma} mul={mul} add={add}"


def patterns() -> list[Pattern]:
    """The probe set: (name, type, body, store). Names say what each one asks."""
    P = []
    for t in ("f32", "f64"):
        P += [
            Pattern(f"{t}/mul_add", t, f"mul.{t} %p, %a, %b;\nadd.{t} %r, %p, %c;"),
            Pattern(f"{t}/mul_add_swapped", t, f"mul.{t} %p, %a, %b;\nadd.{t} %r, %c, %p;"),
            Pattern(f"{t}/mul_sub_first", t, f"mul.{t} %p, %a, %b;\nsub.{t} %r, %p, %c;"),
            Pattern(f"{t}/mul_sub_second", t, f"mul.{t} %p, %a, %b;\nsub.{t} %r, %c, %p;"),
            Pattern(f"{t}/mulrn_add", t, f"mul.rn.{t} %p, %a, %b;\nadd.{t} %r, %p, %c;"),
            Pattern(f"{t}/mul_addrn", t, f"mul.{t} %p, %a, %b;\nadd.rn.{t} %r, %p, %c;"),
            Pattern(f"{t}/mul_subrn", t, f"mul.{t} %p, %a, %b;\nsub.rn.{t} %r, %p, %c;"),
            Pattern(f"{t}/mulrz_add", t, f"mul.rz.{t} %p, %a, %b;\nadd.{t} %r, %p, %c;"),
            Pattern(f"{t}/mul_addrz", t, f"mul.{t} %p, %a, %b;\nadd.rz.{t} %r, %p, %c;"),
            Pattern(f"{t}/mul_add_imm", t,
                    f"mul.{t} %p, %a, %b;\nadd.{t} %r, %p, " + ("0f3F800000" if t == "f32" else "0d3FF0000000000000") + ";"),
            Pattern(f"{t}/mul_imm_add", t,
                    f"mul.{t} %p, %a, " + ("0f40400000" if t == "f32" else "0d4008000000000000") + f";\nadd.{t} %r, %p, %c;"),
            Pattern(f"{t}/mul_two_uses_store", t, f"mul.{t} %p, %a, %b;\nadd.{t} %r, %p, %c;", store=("r", "p")),
            Pattern(f"{t}/mul_two_uses_adds", t,
                    f"mul.{t} %p, %a, %b;\nadd.{t} %r, %p, %c;\nadd.{t} %s, %p, %d;", store=("r", "s")),
            Pattern(f"{t}/mul_used_by_mul_and_add", t,
                    f"mul.{t} %p, %a, %b;\nadd.{t} %r, %p, %c;\nmul.{t} %s, %p, %d;", store=("r", "s")),
            Pattern(f"{t}/mul_add_same_product", t, f"mul.{t} %p, %a, %b;\nadd.{t} %r, %p, %p;"),
            Pattern(f"{t}/square_add", t, f"mul.{t} %p, %a, %a;\nadd.{t} %r, %p, %c;"),
            # both addends products: %p = a*a (a square: recognisable in the SASS), %q = b*c
            Pattern(f"{t}/two_products_sq_first_def_first", t,
                    f"mul.{t} %p, %a, %a;\nmul.{t} %q, %b, %c;\nadd.{t} %r, %p, %q;",
                    note="which product is fused"),
            Pattern(f"{t}/two_products_sq_second_def_first", t,
                    f"mul.{t} %p, %a, %a;\nmul.{t} %q, %b, %c;\nadd.{t} %r, %q, %p;"),
            Pattern(f"{t}/two_products_sq_first_def_second", t,
                    f"mul.{t} %q, %b, %c;\nmul.{t} %p, %a, %a;\nadd.{t} %r, %p, %q;"),
            Pattern(f"{t}/two_products_sq_second_def_second", t,
                    f"mul.{t} %q, %b, %c;\nmul.{t} %p, %a, %a;\nadd.{t} %r, %q, %p;"),
            Pattern(f"{t}/two_products_sub_sq_first_def_first", t,
                    f"mul.{t} %p, %a, %a;\nmul.{t} %q, %b, %c;\nsub.{t} %r, %p, %q;"),
            Pattern(f"{t}/two_products_sub_sq_second_def_first", t,
                    f"mul.{t} %p, %a, %a;\nmul.{t} %q, %b, %c;\nsub.{t} %r, %q, %p;"),
            Pattern(f"{t}/two_products_sub_sq_first_def_second", t,
                    f"mul.{t} %q, %b, %c;\nmul.{t} %p, %a, %a;\nsub.{t} %r, %p, %q;"),
            Pattern(f"{t}/two_products_sub_sq_second_def_second", t,
                    f"mul.{t} %q, %b, %c;\nmul.{t} %p, %a, %a;\nsub.{t} %r, %q, %p;"),
            Pattern(f"{t}/two_products_one_multiuse", t,
                    f"mul.{t} %p, %a, %a;\nmul.{t} %q, %b, %c;\nadd.{t} %r, %p, %q;", store=("r", "p")),
            Pattern(f"{t}/two_products_other_multiuse", t,
                    f"mul.{t} %p, %a, %a;\nmul.{t} %q, %b, %c;\nadd.{t} %r, %q, %p;", store=("r", "q")),
            Pattern(f"{t}/mov_between", t, f"mul.{t} %p, %a, %b;\nmov.{t} %q, %p;\nadd.{t} %r, %q, %c;"),
            Pattern(f"{t}/neg_between", t, f"mul.{t} %p, %a, %b;\nneg.{t} %q, %p;\nadd.{t} %r, %q, %c;"),
            Pattern(f"{t}/neg_operand_of_mul", t, f"neg.{t} %q, %a;\nmul.{t} %p, %q, %b;\nadd.{t} %r, %p, %c;"),
            Pattern(f"{t}/selp_between", t,
                    f"mul.{t} %p, %a, %b;\nselp.{t} %q, %p, %c, %pr;\nadd.{t} %r, %q, %d;"),
            Pattern(f"{t}/predicated_mul", t,
                    f"mov.{t} %p, %d;\n@%pr mul.{t} %p, %a, %b;\nadd.{t} %r, %p, %c;"),
            Pattern(f"{t}/predicated_add", t,
                    f"mov.{t} %r, %d;\nmul.{t} %p, %a, %b;\n@%pr add.{t} %r, %p, %c;"),
            Pattern(f"{t}/predicated_both_same", t,
                    f"mov.{t} %r, %d;\n@%pr mul.{t} %p, %a, %b;\n@%pr add.{t} %r, %p, %c;"),
            Pattern(f"{t}/across_branch", t,
                    f"mul.{t} %p, %a, %b;\n@%pr bra SKIP;\nadd.{t} %c, %c, %d;\nSKIP:\nadd.{t} %r, %p, %c;"),
            Pattern(f"{t}/across_branch_single_pred", t,
                    f"mul.{t} %p, %a, %b;\n@%pr bra NEXT;\nNEXT:\nadd.{t} %r, %p, %c;"),
            Pattern(f"{t}/mul_in_branch_add_after", t,
                    f"mov.{t} %p, %d;\n@%pr bra SKIP;\nmul.{t} %p, %a, %b;\nSKIP:\nadd.{t} %r, %p, %c;"),
            Pattern(f"{t}/mul_before_loop_add_in_loop", t,
                    f"mul.{t} %p, %a, %b;\nmov.{t} %r, %c;\nLOOP:\nadd.{t} %r, %p, %r;\n"
                    f"setp.lt.{t} %pq, %r, %e;\n@%pq bra LOOP;"),
            Pattern(f"{t}/far_apart", t,
                    f"mul.{t} %p, %a, %b;\n" + "".join(f"add.rn.{t} %c, %c, %d;\n" for _ in range(30))
                    + f"add.{t} %r, %p, %c;"),
            Pattern(f"{t}/source_redefined_between", t,
                    f"mul.{t} %p, %a, %b;\nadd.rn.{t} %a, %a, %d;\nadd.{t} %r, %p, %c;", store=("r", "a")),
            Pattern(f"{t}/product_reg_reused", t, f"mul.{t} %p, %a, %b;\nadd.{t} %p, %p, %c;", store=("p",)),
            Pattern(f"{t}/product_overwrites_factor", t, f"mul.{t} %a, %a, %b;\nadd.{t} %r, %a, %c;"),
            Pattern(f"{t}/chain_mul_add_add", t,
                    f"mul.{t} %p, %a, %b;\nadd.{t} %q, %p, %c;\nadd.{t} %r, %q, %d;"),
            Pattern(f"{t}/fma_then_add", t, f"fma.rn.{t} %p, %a, %b, %c;\nadd.{t} %r, %p, %d;"),
            Pattern(f"{t}/mul_into_fma_addend", t, f"mul.{t} %p, %a, %b;\nfma.rn.{t} %r, %c, %d, %p;"),
            Pattern(f"{t}/mul_mul", t, f"mul.{t} %p, %a, %b;\nmul.{t} %r, %p, %c;"),
            Pattern(f"{t}/abs_between", t, f"mul.{t} %p, %a, %b;\nabs.{t} %q, %p;\nadd.{t} %r, %q, %c;"),
            Pattern(f"{t}/add_then_neg_result", t, f"mul.{t} %p, %a, %b;\nsub.{t} %q, %c, %p;\nneg.{t} %r, %q;"),

            Pattern(f"{t}/unreferenced_label_between", t, f"mul.{t} %p, %a, %b;\nNOWHERE:\nadd.{t} %r, %p, %c;"),
            Pattern(f"{t}/bar_between", t, f"mul.{t} %p, %a, %b;\nbar.sync 0;\nadd.{t} %r, %p, %c;"),
            Pattern(f"{t}/store_between", t,
                    f"mul.{t} %p, %a, %b;\nst.global.{_LDT[t]} [%rout+64], %c;\nadd.{t} %r, %p, %c;"),
            Pattern(f"{t}/bitmov_between", t,
                    f"mul.{t} %p, %a, %b;\nmov.b{8 * _SIZE[t]} %q, %p;\nadd.{t} %r, %q, %c;"),
            Pattern(f"{t}/label_targeted_by_later_branch", t,
                    f"mul.{t} %p, %a, %b;\nBACK:\nadd.{t} %r, %p, %c;\nsetp.lt.{t} %pq, %r, %e;\n"
                    f"mov.{t} %c, %r;\n@%pq bra BACK;"),
            Pattern(f"{t}/add_in_fallthrough_block", t,
                    f"mul.{t} %p, %a, %b;\nmov.{t} %r, %d;\n@%pr bra SKIP;\nadd.{t} %r, %p, %c;\nSKIP:"),
            Pattern(f"{t}/add_in_branch_target_block", t,
                    f"mul.{t} %p, %a, %b;\n@%pr bra T;\nmov.{t} %r, %d;\nbra.uni END;\nT:\nadd.{t} %r, %p, %c;\nEND:"),
            Pattern(f"{t}/two_adds_two_blocks", t,
                    f"mul.{t} %p, %a, %b;\nadd.{t} %r, %p, %c;\n@%pr bra SKIP;\nadd.{t} %r, %p, %r;\nSKIP:"),
            Pattern(f"{t}/mov_between_copy_multiuse", t,
                    f"mul.{t} %p, %a, %b;\nmov.{t} %q, %p;\nadd.{t} %r, %q, %c;", store=("r", "q")),
            Pattern(f"{t}/mov_between_original_also_added", t,
                    f"mul.{t} %p, %a, %b;\nmov.{t} %q, %p;\nadd.{t} %r, %q, %c;\nadd.{t} %s, %p, %d;", store=("r", "s")),
            Pattern(f"{t}/neg_neg_between", t,
                    f"mul.{t} %p, %a, %b;\nneg.{t} %q, %p;\nneg.{t} %s, %q;\nadd.{t} %r, %s, %c;"),
            Pattern(f"{t}/neg_between_sub", t,
                    f"mul.{t} %p, %a, %b;\nneg.{t} %q, %p;\nsub.{t} %r, %c, %q;"),
            Pattern(f"{t}/two_uses_add_and_addrn", t,
                    f"mul.{t} %p, %a, %b;\nadd.{t} %r, %p, %c;\nadd.rn.{t} %s, %p, %d;", store=("r", "s")),
            Pattern(f"{t}/two_uses_add_and_sub", t,
                    f"mul.{t} %p, %a, %b;\nadd.{t} %r, %p, %c;\nsub.{t} %s, %d, %p;", store=("r", "s")),
            Pattern(f"{t}/two_uses_add_and_neg", t,
                    f"mul.{t} %p, %a, %b;\nadd.{t} %r, %p, %c;\nneg.{t} %s, %p;", store=("r", "s")),
            Pattern(f"{t}/two_uses_one_add_both_sides", t,
                    f"mul.{t} %p, %a, %b;\nadd.{t} %r, %p, %c;\nadd.{t} %s, %p, %p;", store=("r", "s")),
            Pattern(f"{t}/product_in_loop_body", t,
                    f"mov.{t} %r, %c;\nLOOP:\nmul.{t} %p, %r, %a;\nadd.{t} %r, %p, %b;\n"
                    f"setp.lt.{t} %pq, %r, %e;\n@%pq bra LOOP;"),
            Pattern(f"{t}/add_before_mul_in_loop", t,
                    f"mov.{t} %r, %c;\nmov.{t} %p, %d;\nLOOP:\nadd.{t} %r, %p, %r;\nmul.{t} %p, %r, %a;\n"
                    f"setp.lt.{t} %pq, %r, %e;\n@%pq bra LOOP;"),
            Pattern(f"{t}/add_result_feeds_chain", t,
                    f"mul.{t} %p, %a, %b;\nmul.{t} %q, %c, %d;\nadd.{t} %s, %p, %e;\nadd.{t} %r, %s, %q;"),
        ]
    t = "f32"
    P += [
        Pattern("f32/ftz_mul_ftz_add", t, "mul.ftz.f32 %p, %a, %b;\nadd.ftz.f32 %r, %p, %c;"),
        Pattern("f32/ftz_mul_add", t, "mul.ftz.f32 %p, %a, %b;\nadd.f32 %r, %p, %c;"),
        Pattern("f32/mul_ftz_add", t, "mul.f32 %p, %a, %b;\nadd.ftz.f32 %r, %p, %c;"),
        Pattern("f32/sat_mul_add", t, "mul.sat.f32 %p, %a, %b;\nadd.f32 %r, %p, %c;"),
        Pattern("f32/mul_sat_add", t, "mul.f32 %p, %a, %b;\nadd.sat.f32 %r, %p, %c;"),
        Pattern("f32/mul_ftz_sat_add", t, "mul.ftz.f32 %p, %a, %b;\nadd.ftz.sat.f32 %r, %p, %c;"),
        Pattern("f32/mul_sub_sat", t, "mul.f32 %p, %a, %b;\nsub.sat.f32 %r, %c, %p;"),
        Pattern("f32/div_full_add", t, "div.full.f32 %p, %a, %b;\nadd.f32 %r, %p, %c;"),
        Pattern("f32/div_full_add_swapped", t, "div.full.f32 %p, %a, %b;\nadd.f32 %r, %c, %p;"),
        Pattern("f32/div_full_sub", t, "div.full.f32 %p, %a, %b;\nsub.f32 %r, %c, %p;"),
        Pattern("f32/div_full_two_uses", t,
                "div.full.f32 %p, %a, %b;\nadd.f32 %r, %p, %c;\nadd.f32 %s, %p, %d;", store=("r", "s")),
        Pattern("f32/div_full_ftz_add", t, "div.full.ftz.f32 %p, %a, %b;\nadd.f32 %r, %p, %c;"),
        Pattern("f32/div_full_ftz_add_ftz", t, "div.full.ftz.f32 %p, %a, %b;\nadd.ftz.f32 %r, %p, %c;"),
        Pattern("f32/div_full_add_rn", t, "div.full.f32 %p, %a, %b;\nadd.rn.f32 %r, %p, %c;"),
        Pattern("f32/div_approx_add", t, "div.approx.f32 %p, %a, %b;\nadd.f32 %r, %p, %c;"),
        Pattern("f32/div_approx_ftz_add", t, "div.approx.ftz.f32 %p, %a, %b;\nadd.f32 %r, %p, %c;"),
        Pattern("f32/div_approx_ftz_add_ftz", t, "div.approx.ftz.f32 %p, %a, %b;\nadd.ftz.f32 %r, %p, %c;"),
        Pattern("f32/div_rn_add", t, "div.rn.f32 %p, %a, %b;\nadd.f32 %r, %p, %c;"),
        Pattern("f32/rcp_approx_add", t, "rcp.approx.f32 %p, %a;\nadd.f32 %r, %p, %c;"),
        Pattern("f32/div_full_plus_product", t,
                "div.full.f32 %p, %a, %b;\nmul.f32 %q, %c, %d;\nadd.f32 %r, %p, %q;"),
        Pattern("f32/product_plus_div_full", t,
                "div.full.f32 %p, %a, %b;\nmul.f32 %q, %c, %d;\nadd.f32 %r, %q, %p;"),
        Pattern("f32/sat_mul_sat_add", t, "mul.sat.f32 %p, %a, %b;\nadd.sat.f32 %r, %p, %c;"),
        Pattern("f32/mul_x2_add", t,
                "mul.f32 %p, %a, 0f40000000;\nadd.f32 %r, %p, %c;", note="x*2 may become an FADD"),
        Pattern("f32/mul_neg_imm_add", t, "mul.f32 %p, %a, 0fC0400000;\nadd.f32 %r, %p, %c;"),

        Pattern("f32/sqrt_approx_add", t, "sqrt.approx.f32 %p, %a;\nadd.f32 %r, %p, %c;"),
        Pattern("f32/sqrt_approx_ftz_add_ftz", t, "sqrt.approx.ftz.f32 %p, %a;\nadd.ftz.f32 %r, %p, %c;"),
        Pattern("f32/rsqrt_approx_add", t, "rsqrt.approx.f32 %p, %a;\nadd.f32 %r, %p, %c;"),
        Pattern("f32/rsqrt_approx_ftz_add_ftz", t, "rsqrt.approx.ftz.f32 %p, %a;\nadd.ftz.f32 %r, %p, %c;"),
        Pattern("f32/rcp_approx_ftz_add_ftz", t, "rcp.approx.ftz.f32 %p, %a;\nadd.ftz.f32 %r, %p, %c;"),
        Pattern("f32/rcp_approx_ftz_add", t, "rcp.approx.ftz.f32 %p, %a;\nadd.f32 %r, %p, %c;"),
        Pattern("f32/ex2_approx_add", t, "ex2.approx.f32 %p, %a;\nadd.f32 %r, %p, %c;"),
        Pattern("f32/ex2_approx_ftz_add_ftz", t, "ex2.approx.ftz.f32 %p, %a;\nadd.ftz.f32 %r, %p, %c;"),
        Pattern("f32/lg2_approx_add", t, "lg2.approx.f32 %p, %a;\nadd.f32 %r, %p, %c;"),
        Pattern("f32/sin_approx_add", t, "sin.approx.f32 %p, %a;\nadd.f32 %r, %p, %c;"),
        Pattern("f32/tanh_approx_add", t, "tanh.approx.f32 %p, %a;\nadd.f32 %r, %p, %c;"),
        Pattern("f32/sqrt_rn_add", t, "sqrt.rn.f32 %p, %a;\nadd.f32 %r, %p, %c;"),
        Pattern("f32/rcp_rn_add", t, "rcp.rn.f32 %p, %a;\nadd.f32 %r, %p, %c;"),
        Pattern("f32/div_approx_two_products", t,
                "mul.f32 %q, %c, %d;\ndiv.approx.f32 %p, %a, %b;\nadd.f32 %r, %q, %p;"),
        Pattern("f32/div_full_sub_first", t, "div.full.f32 %p, %a, %b;\nsub.f32 %r, %p, %c;"),
        Pattern("f32/div_full_neg_between", t, "div.full.f32 %p, %a, %b;\nneg.f32 %q, %p;\nadd.f32 %r, %q, %c;"),
        Pattern("f32/mul_ftz_sat_sub_ftz", t, "mul.ftz.f32 %p, %a, %b;\nsub.ftz.sat.f32 %r, %c, %p;"),
    ]
    for t, one in (("f16", "0x3C00"), ("bf16", "0x3F80"), ("f16x2", None), ("bf16x2", None)):
        P += [
            Pattern(f"{t}/mul_add", t, f"mul.{t} %p, %a, %b;\nadd.{t} %r, %p, %c;"),
            Pattern(f"{t}/mul_sub", t, f"mul.{t} %p, %a, %b;\nsub.{t} %r, %c, %p;"),
            Pattern(f"{t}/mulrn_add", t, f"mul.rn.{t} %p, %a, %b;\nadd.{t} %r, %p, %c;"),
            Pattern(f"{t}/mul_addrn", t, f"mul.{t} %p, %a, %b;\nadd.rn.{t} %r, %p, %c;"),
            Pattern(f"{t}/mul_two_uses_store", t, f"mul.{t} %p, %a, %b;\nadd.{t} %r, %p, %c;", store=("r", "p")),
        ]
        if not t.startswith("bf"):
            P += [
                Pattern(f"{t}/ftz_mul_ftz_add", t, f"mul.ftz.{t} %p, %a, %b;\nadd.ftz.{t} %r, %p, %c;"),
                Pattern(f"{t}/ftz_mul_add", t, f"mul.ftz.{t} %p, %a, %b;\nadd.{t} %r, %p, %c;"),
                Pattern(f"{t}/mul_sat_add", t, f"mul.{t} %p, %a, %b;\nadd.sat.{t} %r, %p, %c;"),
            ]
    return P


_UNROUNDED_ADD = re.compile(r"\b(add|sub)\.((?:ftz\.)?(?:sat\.)?(?:f32|f64|f16|bf16|f16x2|bf16x2))\b")
_FMA_NAMES = ("FFMA", "DFMA", "HFMA2")
_ADD_NAMES = ("FADD", "DADD", "HADD2")


def control(p: Pattern) -> Pattern:
    """The pattern with every add/sub given .rn: what it compiles to with nothing contracted."""
    return Pattern(p.name + "+rn", p.type, _UNROUNDED_ADD.sub(r"\1.rn.\2", p.body), p.store)


def _fma_lines(ops):
    return [o for o in ops if o.split()[1 if o.startswith("@") else 0].split(".")[0] in _FMA_NAMES]


def _square(line: str) -> bool:
    """An FMA whose two factors are one register (the probes' %a*%a product)."""
    regs = [r.strip().split(".")[0].lstrip("-|") for r in line.split(None, 2 if line.startswith("@") else 1)[-1].split(",")]
    return len(regs) >= 3 and regs[1] == regs[2]


def _count(ops, names):
    return sum(o.split()[1 if o.startswith("@") else 0].split(".")[0] in names for o in ops)


def ptxas_fusions(p: Pattern, ptxas: str, cuobjdump: str) -> dict:
    """What ptxas did: {"fused": adds it contracted, "square": whether a fused product is a*a}.
    fused = adds (FADD/DADD/HADD2) in the SASS of control(p) minus those in the SASS of p: an
    add contracted into an FMA disappears (a standalone mul.f16x2 is itself an HFMA2, so FMAs
    cannot be counted instead)."""
    ops, base = sass(kernel(p), ptxas, cuobjdump), sass(kernel(control(p)), ptxas, cuobjdump)
    fma, fma0 = _fma_lines(ops), _fma_lines(base)
    return {"fused": _count(base, _ADD_NAMES) - _count(ops, _ADD_NAMES),
            "square": sum(map(_square, fma)) > sum(map(_square, fma0))}


def model_fusions(p: Pattern) -> dict:
    """What ptxvm.engine.contraction decides for the same kernel, in the same terms."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from ptxvm.engine import contraction
    from ptxvm.frontend import parse

    fn = next(f for f in parse(kernel(p)).functions() if f.body is not None)
    plan = contraction.plan(fn.body)
    squares = [f.product.instr for f in plan.fused.values()]
    square = any(len(i.operands) == 3 and i.operands[1] == i.operands[2] for i in squares)
    return {"fused": len(plan.fused), "square": square}


def record(path: str, select: str = "", ptxas: str | None = None) -> dict:
    """ptxas's answer for every pattern, as JSON (the oracle the tests compare the model with)."""
    import json

    ptxas, cuobjdump = find_tools(ptxas)
    out = {"ptxas": subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1],
           "arch": "sm_90", "patterns": {}}
    for p in patterns():
        if select in p.name:
            out["patterns"][p.name] = ptxas_fusions(p, ptxas, cuobjdump)
            print(p.name, out["patterns"][p.name], flush=True)
    with open(path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    return out


def run(select: str = "", ptxas: str | None = None, verbose: bool = False) -> dict[str, list[str]]:
    ptxas, cuobjdump = find_tools(ptxas)
    if not ptxas or not cuobjdump:
        raise SystemExit("needs ptxas and cuobjdump")
    out = {}
    for p in patterns():
        if select and select not in p.name:
            continue
        try:
            ops = sass(kernel(p), ptxas, cuobjdump)
        except subprocess.CalledProcessError as e:
            print(f"{p.name:48s} PTXAS ERROR {e.stderr.strip().splitlines()[-1:]}")
            continue
        out[p.name] = ops
        print(f"{p.name:48s} {classify(ops)}" + (f"   | {' ; '.join(ops)}" if verbose else ""))
    return out


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--record" in args:   # --record PATH [NAME_SUBSTRING]
        i = args.index("--record")
        record(args[i + 1], args[i + 2] if len(args) > i + 2 else "")
        raise SystemExit(0)
    ptxas = None
    if "--ptxas" in args:
        i = args.index("--ptxas")
        ptxas = args[i + 1]
        del args[i:i + 2]
    verbose = "-v" in args
    args = [a for a in args if a != "-v"]
    run(args[0] if args else "", ptxas, verbose)
