"""Warp collectives over full warps: shfl.sync (every mode, every width and clamp), vote.sync,
redux.sync, match.sync, activemask, elect.sync."""
from __future__ import annotations

from ._helpers import case, mark_ci
from .. import inputs as I

F = "warp"
FULL = "0xffffffff"


def cases():
    C = []
    kw = dict(lanes_multiple=32)
    for mode in ("up", "down", "bfly", "idx"):
        C.append(case(F, f"shfl.sync.{mode}.b32", "d:b32 p:pred", "a:b32 b:u32 c:u32",
                      I.key("shfl", "b32", "u32", "u32"),
                      asm=f"shfl.sync.{mode}.b32 {{d}}|{{p}}, {{a}}, {{b}}, {{c}}, {FULL};", **kw))
        C.append(case(F, f"shfl.sync.{mode}.b32", "d:b32", "a:b32 b:u32 c:u32",
                      I.key("shfl", "b32", "u32", "u32"), variant="no_pred",
                      asm=f"shfl.sync.{mode}.b32 {{d}}, {{a}}, {{b}}, {{c}}, {FULL};", **kw))
    for mode in ("all", "any", "uni"):
        C.append(case(F, f"vote.sync.{mode}.pred", "d:pred", "a:pred", I.key("vote", "pred"),
                      asm=f"vote.sync.{mode}.pred {{d}}, {{a}}, {FULL};", **kw))
        C.append(case(F, f"vote.sync.{mode}.pred", "d:pred", "a:pred", I.key("vote", "pred"),
                      variant="not_a", asm=f"vote.sync.{mode}.pred {{d}}, !{{a}}, {FULL};", **kw))
    C.append(case(F, "vote.sync.ballot.b32", "d:b32", "a:pred", I.key("vote", "pred"),
                  asm=f"vote.sync.ballot.b32 {{d}}, {{a}}, {FULL};", **kw))
    C.append(case(F, "vote.sync.ballot.b32", "d:b32", "a:pred", I.key("vote", "pred"), variant="not_a",
                  asm=f"vote.sync.ballot.b32 {{d}}, !{{a}}, {FULL};", **kw))
    for op in ("add", "min", "max"):
        for t in ("u32", "s32"):
            C.append(case(F, f"redux.sync.{op}.{t}", f"d:{t}", f"a:{t}", I.key("vote", t),
                          asm=f"redux.sync.{op}.{t} {{d}}, {{a}}, {FULL};", **kw))
    for op in ("and", "or", "xor"):
        C.append(case(F, f"redux.sync.{op}.b32", "d:b32", "a:b32", I.key("vote", "b32"),
                      asm=f"redux.sync.{op}.b32 {{d}}, {{a}}, {FULL};", **kw))
    for t in ("b32", "b64"):
        C.append(case(F, f"match.any.sync.{t}", "d:b32", f"a:{t}", I.key("vote", t),
                      asm=f"match.any.sync.{t} {{d}}, {{a}}, {FULL};", **kw))
        C.append(case(F, f"match.all.sync.{t}", "d:b32 p:pred", f"a:{t}", I.key("vote", t),
                      asm=f"match.all.sync.{t} {{d}}|{{p}}, {{a}}, {FULL};", **kw))
    C.append(case(F, "activemask.b32", "d:b32", "a:u32", I.key("vote", "u32"),
                  asm="activemask.b32 {d};", **kw))
    # activemask inside a branch taken by the lanes whose input is odd
    C.append(case(F, "activemask.b32", "d:b32", "a:u32", I.key("vote", "u32"), variant="divergent",
                  decls="  .reg .pred %t_q;",
                  asm=("and.b32 %t_r3, {a}, 1;\nsetp.ne.u32 %t_q, %t_r3, 0;\nmov.u32 {d}, 0;\n"
                       "@!%t_q bra $L_skip;\nactivemask.b32 {d};\n$L_skip:"), **kw))
    # vote without .sync: gone from PTX 6.4 on sm_70+ (these document the refusal)
    why = "vote without .sync is not supported on sm_70+ from PTX ISA 6.4 (ptxas)"
    C.append(case(F, "vote.all.pred", "d:pred", "a:pred", I.key("vote", "pred"), expect_reject=why, **kw))
    C.append(case(F, "vote.ballot.b32", "d:b32", "a:pred", I.key("vote", "pred"), expect_reject=why, **kw))
    why = "shfl without .sync is not supported on sm_70+ from PTX ISA 6.4 (ptxas)"
    C.append(case(F, "shfl.idx.b32", "d:b32 p:pred", "a:b32 b:u32 c:u32", I.key("shfl", "b32", "u32", "u32"),
                  asm="shfl.idx.b32 {d}|{p}, {a}, {b}, {c};", expect_reject=why, **kw))
    C.append(case(F, "elect.sync", "d:b32 p:pred", "a:u32", I.key("vote", "u32"),
                  asm=f"elect.sync {{d}}|{{p}}, {FULL};", version="8.0", **kw))
    return mark_ci(C)
