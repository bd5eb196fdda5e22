"""mbarrier and cp.async, one barrier per lane so that every result is deterministic: each lane
initialises its own mbarrier in shared memory with a count from its input, arrives (or drops)
a number of times from its input, and reports the phase-completion tests and pending counts;
expect_tx / complete_tx move the transaction count; cp.async copies the lane's element of a
global array into shared memory (every size, zero fill through src-size, ignore-src) and the
lane reads it back after commit/wait or through cp.async.mbarrier.arrive."""
from __future__ import annotations

from ._helpers import case, mark_ci
from ..case import Memory
from .. import inputs as I

F = "mbarrier"
KEY = I.key("unary", "u32", arg=1024)
SHARED = "  .shared .align 16 .b8 sh_mb[2048];\n  .shared .align 16 .b8 sh_data[4096];\n  .reg .b64 %t_st;"
MB = ("mov.u32 %t_r0, %tid.x;\nshl.b32 %t_r1, %t_r0, 3;\nmov.u32 %t_r2, sh_mb;\nadd.u32 %t_r2, %t_r2, %t_r1;\n"
      "and.b32 %t_r3, {a}, 3;\nadd.u32 %t_r3, %t_r3, BASE;\n")   # %t_r2 = my barrier, %t_r3 = count BASE..BASE+3
PACK = "selp.u32 %t_r1, {bit}, 0, %t_p;\nor.b32 {d}, {d}, %t_r1;\n"


def test_bits(kind: str, parity: bool, shift: int) -> str:
    """Phase-0 completion of my barrier into bit `shift` of d."""
    if parity:
        t = f"mbarrier.{kind}.parity.shared::cta.b64 %t_p, [%t_r2], 0;\n"
    else:
        t = f"mbarrier.{kind}.shared::cta.b64 %t_p, [%t_r2], %t_st;\n"
    return t + PACK.replace("{bit}", str(1 << shift))


def arrivals(op: str) -> str:
    """Arrive `op` on my barrier 1 + (a >> 2) & 3 times (1..4), keeping the last state."""
    return (f"shr.u32 %t_r0, {{a}}, 2;\nand.b32 %t_r0, %t_r0, 3;\nadd.u32 %t_r0, %t_r0, 1;\n$L_arr:\n"
            "setp.eq.u32 %t_p, %t_r0, 0;\n"
            f"@%t_p bra $L_arr_done;\n{op}\nsub.u32 %t_r0, %t_r0, 1;\nbra $L_arr;\n$L_arr_done:\n")


def body(op: str, kind: str = "test_wait", parity: bool = False, extra: str = "") -> str:
    """d = count | phase-0 complete << 4 | pending count of the last state << 8. The count is
    4..7 and there are 1..4 arrivals (the phase completes where both are 4); .noComplete
    arrivals must not complete it (the ISA leaves that undefined): their count is 8..11."""
    base = "8" if "noComplete" in op else "4"
    return (MB.replace("BASE", base) + "mbarrier.init.shared::cta.b64 [%t_r2], %t_r3;\n" + extra
            + arrivals(op) + "mov.u32 {d}, %t_r3;\n" + test_bits(kind, parity, 4)
            + "mbarrier.pending_count.b64 %t_r1, %t_st;\nshl.b32 %t_r1, %t_r1, 8;\nor.b32 {d}, {d}, %t_r1;\n"
            "mbarrier.inval.shared::cta.b64 [%t_r2];")


ARRIVES = [  # (spelling, arrive text, version)
    ("mbarrier.arrive.shared::cta.b64", "mbarrier.arrive.shared::cta.b64 %t_st, [%t_r2];", "7.8"),
    ("mbarrier.arrive.shared.b64", "mbarrier.arrive.shared.b64 %t_st, [%t_r2], 1;", "7.8"),
    ("mbarrier.arrive.release.cta.shared::cta.b64",
     "mbarrier.arrive.release.cta.shared::cta.b64 %t_st, [%t_r2];", "8.0"),
    ("mbarrier.arrive.noComplete.shared.b64",
     "mbarrier.arrive.noComplete.shared.b64 %t_st, [%t_r2], 1;", "7.8"),
    ("mbarrier.arrive_drop.shared::cta.b64", "mbarrier.arrive_drop.shared::cta.b64 %t_st, [%t_r2];", "7.8"),
    ("mbarrier.arrive_drop.noComplete.shared.b64",
     "mbarrier.arrive_drop.noComplete.shared.b64 %t_st, [%t_r2], 1;", "7.8"),
    ("mbarrier.arrive.expect_tx.shared::cta.b64",
     "mbarrier.arrive.expect_tx.shared::cta.b64 %t_st, [%t_r2], 16;\n"
     "mbarrier.complete_tx.shared::cta.b64 [%t_r2], 16;", "8.0"),
    ("mbarrier.arrive_drop.expect_tx.shared::cta.b64",
     "mbarrier.arrive_drop.expect_tx.shared::cta.b64 %t_st, [%t_r2], 8;\n"
     "mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%t_r2], 8;", "8.0"),
]


def cp_async(spelling: str, size: int, src_size: str = "", pre: str = "", wait: str = "") -> str:
    """Copy `size` bytes of m at this lane's slot into shared and read the first word back."""
    return ("mul.wide.u32 %t_rd0, %t_idx, 16;\nadd.s64 %t_rd1, {m}, %t_rd0;\nmov.u32 %t_r0, %tid.x;\n"
            "shl.b32 %t_r0, %t_r0, 4;\nmov.u32 %t_r1, sh_data;\nadd.u32 %t_r1, %t_r1, %t_r0;\n"
            "st.shared.v4.u32 [%t_r1], {{%t_r0, %t_r0, %t_r0, %t_r0}};\n" + pre
            + f"{spelling} [%t_r1], [%t_rd1], {size}{src_size};\n"
            + (wait or "cp.async.commit_group;\ncp.async.wait_group 0;\n")
            + f"ld.shared.u32 %t_r2, [%t_r1+{max(size - 4, 0)}];\nld.shared.u32 %t_r3, [%t_r1];\n"
            "xor.b32 {d}, %t_r2, %t_r3;\nadd.u32 {d}, {d}, {a};")


def cases():
    C = []
    kw = dict(decls=SHARED, truncatable=True)
    for spelling, text, v in ARRIVES:
        C.append(case(F, spelling, "d:u32", "a:u32", KEY, asm=body(text), version=v, **kw))
    for kind, par, v in (("test_wait", False, "7.8"), ("test_wait", True, "7.8"), ("try_wait", False, "7.8"),
                         ("try_wait", True, "7.8")):
        sp = f"mbarrier.{kind}" + (".parity" if par else "") + ".shared::cta.b64"
        C.append(case(F, sp, "d:u32", "a:u32", KEY, version=v, variant="after_arrivals",
                      asm=body(ARRIVES[0][1], kind, par), **kw))
    C.append(case(F, "mbarrier.expect_tx.relaxed.cta.shared::cta.b64", "d:u32", "a:u32", KEY, version="8.0",
                  asm=body(ARRIVES[0][1], extra="mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%t_r2], 32;\n"
                           "mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%t_r2], 16;\n"), **kw))
    C.append(case(F, "mbarrier.init.shared.b64", "d:u32", "a:u32", KEY, variant="generic_arrive",
                  asm=(MB.replace("BASE", "1") + "mbarrier.init.shared.b64 [%t_r2], %t_r3;\n"
                       "cvt.u64.u32 %t_rd0, %t_r2;\ncvta.shared.u64 %t_rd0, %t_rd0;\n"
                       "mbarrier.arrive.b64 %t_st, [%t_rd0];\nmbarrier.pending_count.b64 {d}, %t_st;\n"
                       "mbarrier.inval.b64 [%t_rd0];"), **kw))
    mem = (Memory("m", "u32", 4096),)
    for sp, size, v in (("cp.async.ca.shared.global", 4, "7.8"), ("cp.async.ca.shared.global", 8, "7.8"),
                        ("cp.async.ca.shared.global", 16, "7.8"), ("cp.async.cg.shared.global", 16, "7.8"),
                        ("cp.async.ca.shared::cta.global", 16, "7.8"),
                        ("cp.async.cg.shared.global.L2::128B", 16, "7.8"),
                        ("cp.async.ca.shared.global.L2::256B", 8, "7.8")):
        C.append(case(F, sp, "d:u32", "a:u32", KEY, memory=mem, variant=f"size{size}", version=v,
                      asm=cp_async(sp, size), **kw))
    # src-size: the bytes past it are zero-filled
    C.append(case(F, "cp.async.cg.shared.global", "d:u32", "a:u32", KEY, memory=mem, variant="src_size",
                  asm=cp_async("cp.async.cg.shared.global", 16, ", %t_r3",
                               pre="and.b32 %t_r3, {a}, 15;\n"), **kw))
    C.append(case(F, "cp.async.ca.shared.global", "d:u32", "a:u32", KEY, memory=mem, variant="ignore_src",
                  asm=cp_async("cp.async.ca.shared.global", 16, ", %t_p",
                               pre="and.b32 %t_r3, {a}, 1;\nsetp.ne.u32 %t_p, %t_r3, 0;\n"), version="7.8", **kw))
    C.append(case(F, "cp.async.wait_all", "d:u32", "a:u32", KEY, memory=mem,
                  asm=cp_async("cp.async.ca.shared.global", 4, wait="cp.async.wait_all;\n"), **kw))
    C.append(case(F, "cp.async.commit_group", "d:u32", "a:u32", KEY, memory=mem, variant="two_groups",
                  asm=cp_async("cp.async.cg.shared.global", 16,
                               wait="cp.async.commit_group;\ncp.async.commit_group;\ncp.async.wait_group 1;\n"
                                    "cp.async.wait_group 0;\n"), **kw))
    for sp in ("cp.async.mbarrier.arrive.shared::cta.b64", "cp.async.mbarrier.arrive.noinc.shared::cta.b64"):
        noinc = "noinc" in sp
        # without .noinc the async arrival is pre-counted, so the thread arrives too; with it, the
        # async arrival is one of the init count's
        wait = (MB.replace("BASE", "1") + "mbarrier.init.shared::cta.b64 [%t_r2], 1;\n"
                f"{sp} [%t_r2];\n" + ("" if noinc else "mbarrier.arrive.shared::cta.b64 %t_st, [%t_r2];\n")
                + "$L_w:\nmbarrier.try_wait.parity.shared::cta.b64 %t_p, [%t_r2], 0;\n@!%t_p bra $L_w;\n"
                "mov.u32 %t_r0, %tid.x;\nshl.b32 %t_r0, %t_r0, 4;\nmov.u32 %t_r1, sh_data;\n"
                "add.u32 %t_r1, %t_r1, %t_r0;\n")
        C.append(case(F, sp, "d:u32", "a:u32", KEY, memory=mem,
                      asm=cp_async("cp.async.ca.shared.global", 16, wait=wait), **kw))
    C.extend(single_op_cases(kw, mem))
    C.extend(remote_cases())
    C.append(case(F, "cp.async.bulk.prefetch.L2.global", "d:u32", "a:u32", KEY, memory=mem, version="8.0",
                  asm=("mul.wide.u32 %t_rd0, %t_idx, 16;\nadd.s64 %t_rd1, {m}, %t_rd0;\n"
                       "cp.async.bulk.prefetch.L2.global [%t_rd1], 16;\nld.global.u32 %t_r3, [%t_rd1];\n"
                       "add.u32 {d}, %t_r3, {a};")))
    return mark_ci(C, key=lambda c: c.instruction)


def single_op_cases(kw: dict, mem) -> list:
    """Cases spelled by an instruction that the cases above only use on the way (pending_count,
    inval, complete_tx, wait_group), so that each has a row of its own in the coverage table."""
    C = [case(F, "mbarrier.pending_count.b64", "d:u32", "a:u32", KEY, variant="after_arrivals",
              asm=body(ARRIVES[0][1]), **kw),
         case(F, "mbarrier.complete_tx.shared::cta.b64", "d:u32", "a:u32", KEY, version="8.0",
              variant="partial",
              asm=body(ARRIVES[0][1], extra="mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%t_r2], 32;\n"
                       "and.b32 %t_r0, {a}, 16;\nadd.u32 %t_r0, %t_r0, 16;\n"
                       "mbarrier.complete_tx.shared::cta.b64 [%t_r2], %t_r0;\n"), **kw)]
    # inval, then the same barrier initialised again with another count: the second life counts
    # from scratch
    for sp in ("mbarrier.inval.shared::cta.b64", "mbarrier.inval.shared.b64"):
        C.append(case(F, sp, "d:u32", "a:u32", KEY, variant="reinit",
                      asm=(MB.replace("BASE", "4") + "mbarrier.init.shared::cta.b64 [%t_r2], %t_r3;\n"
                           "mbarrier.arrive.shared::cta.b64 %t_st, [%t_r2];\n"
                           f"{sp} [%t_r2];\n" + "sub.u32 %t_r3, %t_r3, 2;\n"
                           "mbarrier.init.shared::cta.b64 [%t_r2], %t_r3;\n"
                           "mbarrier.arrive.shared::cta.b64 %t_st, [%t_r2], 2;\n"
                           "mov.u32 {d}, %t_r3;\n" + test_bits("test_wait", False, 4)
                           + "mbarrier.pending_count.b64 %t_r1, %t_st;\nshl.b32 %t_r1, %t_r1, 8;\n"
                           "or.b32 {d}, {d}, %t_r1;\nmbarrier.inval.shared::cta.b64 [%t_r2];"), **kw))
    # two groups, the copy in the first: wait_group 1 leaves only the (empty) second pending
    C.append(case(F, "cp.async.wait_group", "d:u32", "a:u32", KEY, memory=mem, variant="two_groups",
                  asm=cp_async("cp.async.ca.shared.global", 16,
                               wait="cp.async.commit_group;\ncp.async.commit_group;\ncp.async.wait_group 1;\n"),
                  **kw))
    return C


# ------------------------------------------------------------------ remote arrivals (clusters)
# Clusters of two CTAs: each lane arrives (or completes transactions) on the barrier of the lane
# with its tid in the other CTA of its cluster, through a .shared::cluster address from mapa.
# Barriers are initialised before, and read after, a cluster barrier.
CLUSTER2 = ".reqnctapercluster 2, 1, 1"
CLUSTER_KW = dict(decls=SHARED + "\n  .reg .b64 %t_st2;", entry_directives=CLUSTER2, lanes_multiple=512,
                  truncatable=False, version="8.0")
CLUSTER_SYNC = "barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n"
# %t_r2 = my barrier (init 3 + (a & 1)), %t_r1 = the peer lane's, %t_r0 = 1 + (a >> 1 & 1)
REMOTE_SETUP = ("mov.u32 %t_r0, %tid.x;\nshl.b32 %t_r1, %t_r0, 3;\nmov.u32 %t_r2, sh_mb;\n"
                "add.u32 %t_r2, %t_r2, %t_r1;\nand.b32 %t_r3, {a}, 1;\nadd.u32 %t_r3, %t_r3, 3;\n"
                "mbarrier.init.shared::cta.b64 [%t_r2], %t_r3;\nfence.mbarrier_init.release.cluster;\n"
                + CLUSTER_SYNC + "mov.u32 %t_r0, %cluster_ctarank;\nxor.b32 %t_r0, %t_r0, 1;\n"
                "mapa.shared::cluster.u32 %t_r1, %t_r2, %t_r0;\n"
                "shr.u32 %t_r0, {a}, 1;\nand.b32 %t_r0, %t_r0, 1;\nadd.u32 %t_r0, %t_r0, 1;\n")
# after the peer's operation: two local arrivals; d = count | test_wait of each state << 4, 5 |
# phase 0 / 1 complete << 6, 7 | pending counts of the two states << 8, << 16
REMOTE_REPORT = (CLUSTER_SYNC + "mbarrier.arrive.shared::cta.b64 %t_st, [%t_r2];\n"
                 "mbarrier.arrive.shared::cta.b64 %t_st2, [%t_r2];\nmov.u32 {d}, %t_r3;\n"
                 "mbarrier.test_wait.shared::cta.b64 %t_p, [%t_r2], %t_st;\n" + PACK.replace("{bit}", "16")
                 + "mbarrier.test_wait.shared::cta.b64 %t_p, [%t_r2], %t_st2;\n" + PACK.replace("{bit}", "32")
                 + "mbarrier.test_wait.parity.shared::cta.b64 %t_p, [%t_r2], 0;\n" + PACK.replace("{bit}", "64")
                 + "mbarrier.test_wait.parity.shared::cta.b64 %t_p, [%t_r2], 1;\n" + PACK.replace("{bit}", "128")
                 + "mbarrier.pending_count.b64 %t_r1, %t_st;\nshl.b32 %t_r1, %t_r1, 8;\nor.b32 {d}, {d}, %t_r1;\n"
                 "mbarrier.pending_count.b64 %t_r1, %t_st2;\nshl.b32 %t_r1, %t_r1, 16;\nor.b32 {d}, {d}, %t_r1;\n"
                 + CLUSTER_SYNC)
# the peer's transactions: expect 16 bytes, complete 8 or 16 (bit 2 of its input)
TX = "and.b32 %t_r0, {a}, 4;\nshl.b32 %t_r0, %t_r0, 1;\nadd.u32 %t_r0, %t_r0, 8;\n"

REMOTE = [  # (spelling, the peer's operation on %t_r1)
    ("mbarrier.arrive.release.cluster.shared::cluster.b64",
     "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%t_r1], %t_r0;"),
    ("mbarrier.arrive.relaxed.cluster.shared::cluster.b64",
     "mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [%t_r1];"),
    ("mbarrier.arrive_drop.release.cluster.shared::cluster.b64",
     "mbarrier.arrive_drop.release.cluster.shared::cluster.b64 _, [%t_r1], %t_r0;"),
    ("mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64",
     "mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [%t_r1], 16;\n" + TX
     + "mbarrier.complete_tx.relaxed.cluster.shared::cluster.b64 [%t_r1], %t_r0;"),
    ("mbarrier.arrive_drop.expect_tx.release.cluster.shared::cluster.b64",
     "mbarrier.arrive_drop.expect_tx.release.cluster.shared::cluster.b64 _, [%t_r1], 16;\n" + TX
     + "mbarrier.complete_tx.relaxed.cluster.shared::cluster.b64 [%t_r1], %t_r0;"),
    # my own barrier expects 16 bytes and I arrive once more; the peer completes 8 or 16
    ("mbarrier.complete_tx.relaxed.cluster.shared::cluster.b64",
     "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%t_r2], 16;\n"
     "mbarrier.arrive.shared::cta.b64 %t_st, [%t_r2];\n" + CLUSTER_SYNC + TX
     + "mbarrier.complete_tx.relaxed.cluster.shared::cluster.b64 [%t_r1], %t_r0;"),
]


def remote_cases() -> list:
    return [case(F, sp, "d:u32", "a:u32", KEY, variant="peer_cta", asm=REMOTE_SETUP + op + "\n" + REMOTE_REPORT,
                 **{**CLUSTER_KW, "version": "8.6" if ".relaxed" in sp else "8.0"}) for sp, op in REMOTE]
