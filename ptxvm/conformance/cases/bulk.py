"""Bulk asynchronous copies and asynchronous stores/reductions, one 16-byte chunk per lane so
that every result is deterministic: cp.async.bulk global -> shared::cluster (mbarrier
complete_tx), shared::cta -> global (bulk_group), shared::cta -> shared::cluster;
cp.reduce.async.bulk into global (bulk_group) and into shared::cluster (mbarrier) for every
operation and type; st.async and red.async into shared::cluster through mapa in the implicit
one-CTA cluster. Shared data written by ordinary stores reaches the async proxy through
fence.proxy.async. Each lane's barrier is its own: init 1, arrive.expect_tx, wait on parity 0."""
from __future__ import annotations

from ._helpers import case, mark_ci
from ..case import Memory
from .. import inputs as I

F = "bulk"
KEY = I.key("unary", "u32", arg=512)
DECLS = ("  .shared .align 16 .b8 sh_src[4096];\n  .shared .align 16 .b8 sh_dst[4096];\n"
         "  .shared .align 8 .b8 sh_mb[2048];\n  .reg .b64 %t_st;\n  .reg .b32 %t_v<4>;")
MEMS = (Memory("g", "u32", 2048), Memory("s", "u32", 2048))   # per lane: 4 words of each

# %t_rd1 = &g[4 idx], %t_r1 = &sh_src[16 tid] (filled from s[4 idx]), %t_r2 = &sh_dst[16 tid]
# (filled with the lane's a in every word), %t_r3 = my mbarrier (init 1)
SETUP = ("mul.wide.u32 %t_rd0, %t_idx, 16;\nadd.s64 %t_rd1, {g}, %t_rd0;\nadd.s64 %t_rd2, {s}, %t_rd0;\n"
         "mov.u32 %t_r0, %tid.x;\nshl.b32 %t_r0, %t_r0, 4;\nmov.u32 %t_r1, sh_src;\nadd.u32 %t_r1, %t_r1, %t_r0;\n"
         "mov.u32 %t_r2, sh_dst;\nadd.u32 %t_r2, %t_r2, %t_r0;\n"
         "ld.global.v4.u32 {{%t_v0, %t_v1, %t_v2, %t_v3}}, [%t_rd2];\n"
         "st.shared.v4.u32 [%t_r1], {{%t_v0, %t_v1, %t_v2, %t_v3}};\n"
         "st.shared.v4.u32 [%t_r2], {{{a}, {a}, {a}, {a}}};\n"
         "shr.u32 %t_r0, %t_r0, 1;\nmov.u32 %t_r3, sh_mb;\nadd.u32 %t_r3, %t_r3, %t_r0;\n"
         "mbarrier.init.shared::cta.b64 [%t_r3], 1;\nfence.mbarrier_init.release.cluster;\n"
         "fence.proxy.async.shared::cta;\n")
WAIT = ("$L_w:\nmbarrier.try_wait.parity.shared::cta.b64 %t_p, [%t_r3], 0;\n@!%t_p bra $L_w;\n")
READ_DST = "ld.shared.v4.u32 {d}, [%t_r2];"
READ_GLOBAL = "ld.global.v4.u32 {d}, [%t_rd1];"
GROUP = "cp.async.bulk.commit_group;\ncp.async.bulk.wait_group 0;\n"


def expect(n: int) -> str:
    return f"mbarrier.arrive.expect_tx.shared::cta.b64 %t_st, [%t_r3], {n};\n"


# On the H200 these fault (CUDA_ERROR_ILLEGAL_INSTRUCTION) in a launch without cluster
# dimensions, the implicit one-CTA cluster: their cases ask for an explicit cluster of one CTA.
CLUSTER = ".reqnctapercluster 1, 1, 1"


def bulk_case(spelling: str, body: str, read: str, variant: str = "", version: str = "8.0"):
    remote = spelling.startswith(("st.async", "red.async")) or ".shared::cluster.shared::cta" in spelling
    return case(F, spelling, "d:u32*4", "a:u32", KEY, memory=MEMS, decls=DECLS, variant=variant,
                asm=SETUP + body + read, version=version, entry_directives=CLUSTER if remote else "")


RED_GLOBAL = [("add", "u32"), ("add", "s32"), ("add", "u64"), ("add", "f32"), ("add", "f64"), ("min", "u32"),
              ("min", "s32"), ("min", "s64"), ("max", "u64"), ("max", "s32"), ("and", "b32"), ("or", "b64"),
              ("xor", "b32"), ("inc", "u32"), ("dec", "u32"), ("min", "f16"), ("max", "bf16"), ("add", "f16"),
              ("add", "bf16")]
RED_CLUSTER = [("add", "u32"), ("add", "s32"), ("add", "u64"), ("min", "u32"), ("min", "s32"), ("max", "u32"),
               ("max", "s32"), ("and", "b32"), ("or", "b32"), ("xor", "b32"), ("inc", "u32"), ("dec", "u32")]
RED_ASYNC = [("add", "u32"), ("add", "s32"), ("add", "u64"), ("min", "u32"), ("min", "s32"), ("max", "u32"),
             ("max", "s32"), ("inc", "u32"), ("dec", "u32"), ("and", "b32"), ("or", "b32"), ("xor", "b32")]


def cases():
    C = []
    C.append(bulk_case("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes",
                       expect(16) + "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
                       "[%t_r2], [%t_rd1], 16, [%t_r3];\n" + WAIT, READ_DST))
    C.append(bulk_case("cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes",
                       expect(16) + "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes "
                       "[%t_r2], [%t_rd1], 16, [%t_r3];\n" + WAIT, READ_DST, version="8.6"))
    C.append(bulk_case("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint",
                       expect(16) + "createpolicy.fractional.L2::evict_first.b64 %t_rd3, 1.0;\n"
                       "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint "
                       "[%t_r2], [%t_rd1], 16, [%t_r3], %t_rd3;\n" + WAIT, READ_DST))
    C.append(bulk_case("cp.async.bulk.global.shared::cta.bulk_group",
                       "cp.async.bulk.global.shared::cta.bulk_group [%t_rd1], [%t_r1], 16;\n" + GROUP,
                       READ_GLOBAL))
    C.append(bulk_case("cp.async.bulk.commit_group",
                       "cp.async.bulk.global.shared::cta.bulk_group [%t_rd1], [%t_r1], 16;\n" + GROUP,
                       READ_GLOBAL, variant="store_global"))
    C.append(bulk_case("cp.async.bulk.wait_group.read",
                       "cp.async.bulk.global.shared::cta.bulk_group [%t_rd1], [%t_r1], 16;\n"
                       "cp.async.bulk.commit_group;\ncp.async.bulk.wait_group.read 0;\n"
                       "cp.async.bulk.wait_group 0;\n", READ_GLOBAL))
    C.append(bulk_case("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes",
                       expect(16) + "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes "
                       "[%t_r2], [%t_r1], 16, [%t_r3];\n" + WAIT, READ_DST))
    for op, t in RED_GLOBAL:
        mod = f"{op}.noftz.{t}" if (op == "add" and t in ("f16", "bf16")) else f"{op}.{t}"
        sp = f"cp.reduce.async.bulk.global.shared::cta.bulk_group.{mod}"
        C.append(bulk_case(sp, f"{sp} [%t_rd1], [%t_r1], 16;\n" + GROUP, READ_GLOBAL))
    for op, t in RED_CLUSTER:
        sp = f"cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.{op}.{t}"
        C.append(bulk_case(sp, expect(16) + f"{sp} [%t_r2], [%t_r1], 16, [%t_r3];\n" + WAIT, READ_DST))
    # st.async / red.async: to this CTA's own shared memory as a shared::cluster address (rank 0)
    remote = "mapa.shared::cluster.u32 %t_r0, %t_r2, 0;\nmapa.shared::cluster.u32 %t_r1, %t_r3, 0;\n"
    for vec, t, n, val in (("", "b32", 4, "%t_v1"), ("", "u64", 8, "%t_rd0"), (".v2", "f32", 8, "{{%t_v0, %t_v1}}"),
                           (".v4", "s32", 16, "{{%t_v0, %t_v1, %t_v2, %t_v3}}"), (".v2", "b64", 16,
                                                                                   "{{%t_rd0, %t_rd0}}"),
                           ("", "f64", 8, "%t_rd3"), ("", "s64", 8, "%t_rd3"), ("", "u32", 4, "%t_v3"),
                           (".v4", "f32", 16, "{{%t_v3, %t_v2, %t_v1, %t_v0}}"),
                           (".v2", "s64", 16, "{{%t_rd3, %t_rd0}}")):
        sp = f"st.async.weak.shared::cluster.mbarrier::complete_tx::bytes{vec}.{t}"
        if "weak" in sp and vec:
            sp = f"st.async.shared::cluster.mbarrier::complete_tx::bytes{vec}.{t}"
        pack = "mov.b64 %t_rd3, {{%t_v0, %t_v1}};\n" if "%t_rd3" in val else ""  # 64 bits of s
        C.append(bulk_case(sp, expect(n) + remote + pack + f"{sp} [%t_r0], {val}, [%t_r1];\n" + WAIT, READ_DST,
                           version="8.1"))
    for op, t in RED_ASYNC:
        sp = f"red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.{op}.{t}"
        val = "%t_rd0" if t == "u64" else "%t_v2"
        n = 8 if t == "u64" else 4
        C.append(bulk_case(sp, expect(n) + remote + f"{sp} [%t_r0], {val}, [%t_r1];\n" + WAIT, READ_DST,
                           version="8.1"))
    return mark_ci(C, key=lambda c: c.instruction)
