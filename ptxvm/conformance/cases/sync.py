"""CTA barriers and fences, observed through shared memory: each lane stores its input, the CTA
meets at the barrier under test, each lane loads another lane's value (a fixed permutation of
tid); bar.arrive/bar.sync split producers from consumers; bar.red reduces a predicate over the
CTA. Fences stand between the store and the barrier: their value effect is nil, and the cases
show they are accepted and keep the exchange intact."""
from __future__ import annotations

from ._helpers import case, mark_ci
from .. import inputs as I

F = "sync"
CTA = dict(lanes_multiple=256, truncatable=False)
SHARED = "  .shared .align 4 .b32 sh_x[256];"
KEY = I.key("unary", "u32", arg=1024)


def exchange(barrier: str) -> str:
    """Store a, run `barrier`, load the value of lane (37 tid + 11) mod 256."""
    return ("mov.u32 %t_r0, sh_x;\nmov.u32 %t_r1, %tid.x;\nshl.b32 %t_r2, %t_r1, 2;\n"
            "add.u32 %t_r2, %t_r0, %t_r2;\nst.shared.u32 [%t_r2], {a};\n" + barrier + "\n"
            "mad.lo.u32 %t_r1, %t_r1, 37, 11;\nand.b32 %t_r1, %t_r1, 255;\nshl.b32 %t_r1, %t_r1, 2;\n"
            "add.u32 %t_r1, %t_r0, %t_r1;\nld.shared.u32 {d}, [%t_r1];")


def producer_consumer(arrive: str, sync: str) -> str:
    """Warps 0-3 store and arrive; warps 4-7 wait and read the producers' values."""
    return ("mov.u32 %t_r0, sh_x;\nmov.u32 %t_r1, %tid.x;\nsetp.lt.u32 %t_p, %t_r1, 128;\n"
            "@!%t_p bra $L_cons;\nshl.b32 %t_r2, %t_r1, 2;\nadd.u32 %t_r2, %t_r0, %t_r2;\n"
            "st.shared.u32 [%t_r2], {a};\nmov.u32 {d}, {a};\n" + arrive + "\nbra $L_end;\n"
            "$L_cons:\n" + sync + "\nsub.u32 %t_r1, %t_r1, 128;\nshl.b32 %t_r2, %t_r1, 2;\n"
            "add.u32 %t_r2, %t_r0, %t_r2;\nld.shared.u32 {d}, [%t_r2];\n$L_end:")


PRED = "and.b32 %t_r3, {a}, 1;\nsetp.ne.u32 %t_p, %t_r3, 0;\n"

BARRIERS = [  # (spelling for the table, instruction text, PTX version)
    ("bar.sync", "bar.sync 0;", "7.8"),
    ("bar.sync", "bar.sync 1, 256;", "7.8"),
    ("bar.sync", "mov.u32 %t_r3, 5;\nbar.sync %t_r3;", "7.8"),
    ("bar.cta.sync", "bar.cta.sync 2;", "7.8"),
    ("barrier.sync", "barrier.sync 0;", "7.8"),
    ("barrier.sync.aligned", "barrier.sync.aligned 2, 256;", "7.8"),
    ("barrier.cta.sync.aligned", "barrier.cta.sync.aligned 3;", "7.8"),
    ("barrier.cluster.arrive", "barrier.cluster.arrive;\nbarrier.cluster.wait;", "7.8"),
    ("barrier.cluster.arrive.aligned", "barrier.cluster.arrive.aligned;\nbarrier.cluster.wait.aligned;", "7.8"),
    ("barrier.cluster.arrive.release", "barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;", "8.0"),
    ("barrier.cluster.arrive.relaxed.aligned",
     "barrier.cluster.arrive.relaxed.aligned;\nbarrier.sync 0;\nbarrier.cluster.wait.aligned;", "8.0"),
    ("barrier.cluster.wait", "barrier.cluster.arrive;\nbarrier.cluster.wait;", "7.8"),
    ("barrier.cluster.wait.acquire.aligned",
     "barrier.cluster.arrive.aligned;\nbarrier.cluster.wait.acquire.aligned;", "8.0"),
]

FENCES = [  # each stands between the store and bar.sync
    ("membar.cta", "7.8"), ("membar.gl", "7.8"), ("membar.sys", "7.8"), ("membar.proxy.alias", "7.8"),
    ("fence.sc.cta", "7.8"), ("fence.acq_rel.gpu", "7.8"), ("fence.sc.sys", "7.8"),
    ("fence.acq_rel.cluster", "7.8"), ("fence.acquire.gpu", "8.6"), ("fence.release.cta", "8.6"),
    ("fence.proxy.alias", "7.8"), ("fence.proxy.async", "8.0"), ("fence.proxy.async.global", "8.0"),
    ("fence.proxy.async.shared::cta", "8.0"), ("fence.proxy.async.shared::cluster", "8.0"),
    ("fence.mbarrier_init.release.cluster", "8.0"),
    ("fence.proxy.tensormap::generic.release.gpu", "8.3"),
    ("fence.acquire.sync_restrict::shared::cluster.cluster", "8.6"),
    ("fence.release.sync_restrict::shared::cta.cluster", "8.6"),
    ("fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster", "8.6"),
    ("fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster", "8.6"),
]


def cases():
    C = []
    for i, (spelling, text, v) in enumerate(BARRIERS):
        C.append(case(F, spelling, "d:u32", "a:u32", KEY, variant=f"exchange{i}", decls=SHARED,
                      asm=exchange(text), version=v, **CTA))
    for spelling, text, v in (("bar.arrive", ("bar.arrive 1, 256;", "bar.sync 1, 256;"), "7.8"),
                              ("barrier.arrive", ("barrier.arrive 4, 256;", "barrier.sync 4, 256;"), "7.8"),
                              ("barrier.arrive.aligned",
                               ("barrier.arrive.aligned 5, 256;", "barrier.sync.aligned 5, 256;"), "7.8"),
                              ("bar.cta.arrive", ("bar.cta.arrive 6, 256;", "bar.cta.sync 6, 256;"), "7.8")):
        C.append(case(F, spelling, "d:u32", "a:u32", KEY, variant="producer_consumer", decls=SHARED,
                      asm=producer_consumer(*text), version=v, **CTA))
    for head in ("bar", "barrier"):
        al = ".aligned" if head == "barrier" else ""
        C.append(case(F, f"{head}.red.popc{al}.u32", "d:u32", "a:u32", KEY,
                      asm=PRED + f"{head}.red.popc{al}.u32 {{d}}, 0, %t_p;", **CTA))
        C.append(case(F, f"{head}.red.popc{al}.u32", "d:u32", "a:u32", KEY, variant="count_not",
                      asm=PRED + f"{head}.red.popc{al}.u32 {{d}}, 1, 256, !%t_p;", **CTA))
        for op in ("and", "or"):
            C.append(case(F, f"{head}.red.{op}{al}.pred", "p:pred", "a:u32", KEY,
                          asm=PRED + f"{head}.red.{op}{al}.pred {{p}}, 2, %t_p;", **CTA))
            # a CTA-uniform predicate too (tid < 512 holds everywhere): and gives 1
            C.append(case(F, f"{head}.red.{op}{al}.pred", "p:pred", "a:u32", KEY, variant="uniform",
                          asm=("mov.u32 %t_r3, %tid.x;\nsetp.lt.u32 %t_p, %t_r3, 512;\n"
                               f"{head}.red.{op}{al}.pred {{p}}, 3, 256, %t_p;"), **CTA))
    for spelling, v in FENCES:
        C.append(case(F, spelling, "d:u32", "a:u32", KEY, variant="exchange", decls=SHARED,
                      asm=exchange(f"{spelling};\nbar.sync 0;"), version=v, **CTA))
    C.append(case(F, "fence.proxy.tensormap::generic.acquire.gpu", "d:u32", "a:u32", KEY,
                  variant="exchange", decls=SHARED, prelude=".global .align 128 .b8 tmap[128];",
                  asm=exchange("mov.u64 %t_rd3, tmap;\nfence.proxy.tensormap::generic.acquire.gpu "
                               "[%t_rd3], 128;\nbar.sync 0;"), version="8.3", **CTA))
    C.append(case(F, "bar.warp.sync", "d:u32", "a:u32", KEY, variant="exchange", decls=SHARED,
                  asm=exchange("bar.warp.sync 0xffffffff;\nbar.sync 0;"), **CTA))
    return mark_ci(C, key=lambda c: c.instruction)
