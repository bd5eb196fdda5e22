"""Control flow: bra (uniform and divergent), brx.idx through a .branchtargets table, call/ret of
.func with parameters (by value, returning a value, recursion), and exit of some lanes (their
memory writes before exit persist)."""
from __future__ import annotations

from ._helpers import case, mark_ci
from ..case import Memory
from .. import inputs as I

F = "control"
KEY = I.key("unary", "u32", arg=1024)

BRANCH = ("setp.gt.u32 %t_p, {a}, 0x80000000;\n{bra} $L_big;\nadd.u32 {d}, {a}, 7;\nbra $L_join;\n"
          "$L_big:\nshl.b32 {d}, {a}, 1;\n$L_join:")

BRX = ("and.b32 %t_r3, {a}, 3;\nts: .branchtargets $L_t0, $L_t1, $L_t2, $L_t3;\nbrx.idx{uni} %t_r3, ts;\n"
       "$L_t0:\nadd.u32 {d}, {a}, 100;\nbra $L_join;\n$L_t1:\nxor.b32 {d}, {a}, 0x5555;\nbra $L_join;\n"
       "$L_t2:\nmul.lo.u32 {d}, {a}, 3;\nbra $L_join;\n$L_t3:\nnot.b32 {d}, {a};\n$L_join:")

FUNCS = """
.func (.param .b32 r) f_affine(.param .b32 x, .param .b32 k)
{
  .reg .b32 %a, %b;
  ld.param.b32 %a, [x];
  ld.param.b32 %b, [k];
  mad.lo.u32 %a, %a, %b, 1;
  st.param.b32 [r], %a;
  ret;
}

.func (.param .b32 r) f_popsum(.param .b32 x)
{
  .reg .b32 %a, %b, %c;
  .reg .pred %z;
  ld.param.b32 %a, [x];
  setp.eq.u32 %z, %a, 0;
  @%z bra $L_base;
  and.b32 %b, %a, 1;
  shr.u32 %a, %a, 1;
  {
    .param .b32 p0;
    .param .b32 q0;
    st.param.b32 [p0], %a;
    call.uni (q0), f_popsum, (p0);
    ld.param.b32 %c, [q0];
  }
  add.u32 %a, %b, %c;
  st.param.b32 [r], %a;
  ret;
$L_base:
  st.param.b32 [r], 0;
  ret.uni;
}
"""


def call_text(fn: str, uni: str) -> str:
    """A call in its own { } scope with .param arguments (braces doubled for str.format)."""
    two = fn == "f_affine"
    lines = ["{{", ".param .b32 %p_x;"] + ([".param .b32 %p_k;"] if two else []) + [
        ".param .b32 %p_r;", "st.param.b32 [%p_x], {a};"]
    if two:
        lines.append("st.param.b32 [%p_k], 2654435761;")
    args = "(%p_x, %p_k)" if two else "(%p_x)"
    lines += ["call" + uni + " (%p_r), " + fn + ", " + args + ";", "ld.param.b32 {d}, [%p_r];", "}}"]
    return "\n".join(lines)


def cases():
    C = []
    for bra in ("bra", "bra.uni"):
        # bra.uni needs a warp-uniform condition: take it on lane 0's value (shfl.idx)
        pre = "" if bra == "bra" else "shfl.sync.idx.b32 {a}, {a}, 0, 31, 0xffffffff;\n"
        C.append(case(F, bra, "d:u32", "a:u32", KEY, asm=pre + BRANCH.replace("{bra}", "@%t_p " + bra),
                      lanes_multiple=32))
    for uni in ("", ".uni"):
        pre = "" if not uni else "shfl.sync.idx.b32 {a}, {a}, 0, 31, 0xffffffff;\n"
        C.append(case(F, f"brx.idx{uni}", "d:u32", "a:u32", KEY, asm=pre + BRX.replace("{uni}", uni),
                      lanes_multiple=32))
    C.append(case(F, "call", "d:u32", "a:u32", KEY, prelude=FUNCS, asm=call_text("f_affine", "")))
    C.append(case(F, "call.uni", "d:u32", "a:u32", KEY, prelude=FUNCS, asm=call_text("f_affine", ".uni"),
                  lanes_multiple=32))
    C.append(case(F, "ret", "d:u32", "a:u32", KEY, prelude=FUNCS, variant="recursive",
                  asm=call_text("f_popsum", "")))
    C.append(case(F, "ret.uni", "d:u32", "a:u32", KEY, prelude=FUNCS, variant="recursive",
                  asm=call_text("f_popsum", "")))
    # exit: every lane writes a*5 to its memory slot; odd lanes exit; the rest overwrite with a*7
    C.append(case(F, "exit", "", "a:u32", KEY, memory=(Memory("m", "u32", 1024, init="zero"),),
                  asm=("mul.wide.u32 %t_rd0, %t_idx, 4;\nadd.s64 %t_rd1, {m}, %t_rd0;\n"
                       "mul.lo.u32 %t_r3, {a}, 5;\nst.global.u32 [%t_rd1], %t_r3;\n"
                       "and.b32 %t_r3, {a}, 1;\nsetp.ne.u32 %t_p, %t_r3, 0;\n@%t_p exit;\n"
                       "mul.lo.u32 %t_r3, {a}, 7;\nst.global.u32 [%t_rd1], %t_r3;")))
    return mark_ci(C, key=lambda c: c.instruction)
