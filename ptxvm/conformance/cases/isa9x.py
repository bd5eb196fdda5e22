"""Forms PTX ISA 9.1-9.5 added that an sm_90 GPU runs: sin/cos .approx.ftz.2pi (9.5, argument in
turns), clmad.lo/.hi (9.3, carry-less multiply-add), fence.alias.sync_restrict::read (9.5) and
cp.async.bulk.wait_group.sync_restrict::proxy::async (9.5), the tensor-map allocation class
(tensormap.replace .alloc_*, tensormap.query.alloc_class_large: 9.5, sm_90a), ld .proxy::readonly (9.4)
and cp.async.bulk .ignore_oob (9.2); and the 9.2 cvt forms to
bf16x2 that need the sm_100 family (sm_90 refuses them: their cases record the refusal).

The H200's driver (CUDA 13.0) JIT-compiles PTX up to ISA 9.0 only: these cases are recorded from
cubins that ptxas 13.5 builds (tools/device/build_cubins.py, tools/device/record.py --cubins)."""
from __future__ import annotations

from ._helpers import case, mark_ci
from ..case import Memory
from .. import inputs as I
from .bulk import DECLS, GROUP, MEMS, READ_DST, READ_GLOBAL, SETUP, bulk_case, expect
from .sync import CTA, KEY, SHARED, exchange

F = "isa9x"
APPROX_LANES = "16384"
SM100F = "needs the sm_100 family (sm_100f, sm_103f, sm_110f, sm_120a/f, sm_121f): ptxas refuses it for sm_90"


def cases():
    C = []
    for op in ("sin", "cos"):
        C.append(case(F, f"{op}.approx.ftz.2pi.f32", "d:f32", "a:f32", I.key("unary", "f32", arg=APPROX_LANES),
                      version="9.5"))
        # the same form spelled with .2pi before .ftz (ptxas takes either order)
        C.append(case(F, f"{op}.approx.ftz.2pi.f32", "d:f32", "a:f32", I.key("unary", "f32", arg="1024"),
                      variant="order", asm=f"{op}.approx.2pi.ftz.f32 {{d}}, {{a}};", version="9.5"))
    for mode in ("lo", "hi"):
        for t in ("u64", "s64"):
            C.append(case(F, f"clmad.{mode}.{t}", f"d:{t}", f"a:{t} b:{t} c:{t}", version="9.3"))
    C.append(case(F, "fence.alias.sync_restrict::read.release.sys", "d:u32", "a:u32", KEY, variant="exchange",
                  decls=SHARED, asm=exchange("fence.alias.sync_restrict::read.release.sys;\nbar.sync 0;"),
                  version="9.5", **CTA))
    C.append(bulk_case("cp.async.bulk.wait_group.sync_restrict::proxy::async",
                       "cp.async.bulk.global.shared::cta.bulk_group [%t_rd1], [%t_r1], 16;\n"
                       "cp.async.bulk.commit_group;\ncp.async.bulk.wait_group.sync_restrict::proxy::async 0;\n",
                       READ_GLOBAL, version="9.5"))
    for src in ("e4m3x2", "e5m2x2", "e2m3x2", "e3m2x2"):
        a = f"a:{src}" if src in ("e4m3x2", "e5m2x2") else "a:b16"   # 6-bit pairs: raw bits in a .b16
        C.append(case(F, f"cvt.rn.bf16x2.{src}", "d:bf16x2", a, I.key("exh16", "e5m2x2"),
                      version="9.2", expect_reject=SM100F))
    assert GROUP  # (the bulk cases' commit/wait pair; the case above spells its own wait)
    C += tensormap_alloc_cases()
    C += readonly_proxy_cases()
    C += ignore_oob_cases()
    return mark_ci(C, key=lambda c: c.instruction)


RAW_LANES = 64
REGS = "  .reg .pred %q<4>;\n  .reg .b32 %s<16>;\n  .reg .b64 %e<16>;"
LANE_MAP = "mul.wide.u32 %e0, %t_idx, 128;\nadd.s64 %e0, {m}, %e0;\n"
QUERY = "selp.u32 {d0}, 1, 0, %q0;"
SHARED_MAP = ("mov.u32 %s0, %tid.x;\nshl.b32 %s5, %s0, 7;\nmov.u32 %s6, sh_maps;\nadd.u32 %s5, %s5, %s6;\n")
COPY_OUT = ("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned "
            "[%e0], [%s5], 128;\n")


def tensormap_alloc_cases():
    """The allocation class of a tensor map (PTX 9.5, sm_90a): each lane edits its own 128 random
    bytes of m (or a zeroed map in shared memory, copied out), then queries the class; m and the
    predicate are the result."""
    C = []
    M = Memory("m", "u32", RAW_LANES * 32)
    Z = Memory("m", "u32", RAW_LANES * 32, "zero")
    kw = dict(version="9.5", target="sm_90a", block=RAW_LANES, truncatable=False)
    key = I.key("unary", "u32", arg=RAW_LANES)
    addr = "cvt.u64.u32 %e2, {a};\nshl.b64 %e2, %e2, 4;\nor.b64 %e2, %e2, 0x7f0000000000;\n"
    query_g = "tensormap.query.alloc_class_large.global.b1024 %q0, [%e0];\n"
    for alloc in ("alloc_large", "alloc_small", "alloc_same"):
        sp = f"tensormap.replace.tile.global_address.{alloc}.global.b1024.b64"
        C.append(case(F, sp, "d0:u32", "a:u32", key, memory=(M,), asm=LANE_MAP + addr + f"{sp} [%e0], %e2;\n"
                      + query_g + QUERY, variant="bits", decls=REGS, **kw))
    for alloc in ("alloc_large", "alloc_small"):
        sp = f"tensormap.replace.tile.{alloc}.global.b1024"
        C.append(case(F, sp, "d0:u32", "a:u32", key, memory=(M,), asm=LANE_MAP + f"{sp} [%e0];\n" + query_g + QUERY,
                      variant="bits", decls=REGS, **kw))
        sp = f"tensormap.replace.tile.{alloc}.shared::cta.b1024"
        zero = "".join(f"st.shared.v4.u32 [%s5+{16 * k}], {{{{%s6, %s6, %s6, %s6}}}};\n" for k in range(8))
        C.append(case(F, sp, "d0:u32", "a:u32", key, memory=(Z,),
                      asm=LANE_MAP + SHARED_MAP + "mov.u32 %s6, 0;\n" + zero + f"{sp} [%s5];\n"
                      # (ptxas 13.5 refuses a 32-bit register address here: "Arguments mismatch for 'mov'")
                      + "cvt.u64.u32 %e5, %s5;\ntensormap.query.alloc_class_large.shared::cta.b1024 %q0, [%e5];\n"
                      + COPY_OUT + QUERY,
                      variant="bits", decls="  .shared .align 128 .b8 sh_maps[8192];\n" + REGS, **kw))
    C.append(case(F, "tensormap.query.alloc_class_large.global.b1024", "d0:u32", "a:u32", key, memory=(M,),
                  asm=LANE_MAP + query_g + QUERY, variant="random_maps", decls=REGS, **kw))
    return C


def readonly_proxy_cases():
    """ld through the read-only proxy (PTX 9.4, sm_90): each lane loads its 16 bytes of g."""
    C = []
    key = I.key("unary", "u32", arg=512)
    addr = "mul.wide.u32 %t_rd0, %t_idx, 16;\nadd.s64 %t_rd1, {g}, %t_rd0;\n"
    for sp in ("ld.global.proxy::readonly.v4.u32", "ld.global.nc.proxy::readonly.v4.u32", "ld.proxy::readonly.v4.u32"):
        C.append(case(F, sp, "d:u32*4", "a:u32", key, memory=MEMS[:1], asm=addr + f"{sp} {{d}}, [%t_rd1];",
                      variant="g", version="9.4"))
    return C


def ignore_oob_cases():
    """cp.async.bulk global -> shared::cta with .ignore_oob (PTX 9.2, sm_90): each lane copies its 16
    bytes of g over its 16 bytes of shared memory (prefilled with a), ignoring L bytes on the left
    and R on the right, and waits on its mbarrier (expecting 16 bytes) for a bounded time. The data
    variant reads the shared bytes back; the tx variant puts 1 in word 0 if the wait completed."""
    C = []
    sp = "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.ignore_oob"
    for left, right in ((0, 0), (4, 0), (0, 4), (3, 5), (15, 0), (8, 8)):
        for what in ("data", "tx"):
            body = (SETUP + expect(16) + f"{sp} [%t_r2], [%t_rd1], 16, {left}, {right}, [%t_r3];\n"
                    "mov.u32 %t_cy, 0;\n$L_w:\nmbarrier.try_wait.parity.shared::cta.b64 %t_p, [%t_r3], 0;\n"
                    "@%t_p bra $L_ok;\nadd.u32 %t_cy, %t_cy, 1;\nsetp.lt.u32 %t_p, %t_cy, 20000;\n"
                    "@%t_p bra $L_w;\nmov.u32 %t_cy, 0;\nbra $L_end;\n$L_ok:\nmov.u32 %t_cy, 1;\n$L_end:\n"
                    + ("st.shared.u32 [%t_r2], %t_cy;\n" if what == "tx" else "") + READ_DST)
            C.append(case(F, sp, "d:u32*4", "a:u32", I.key("unary", "u32", arg=512), memory=MEMS, decls=DECLS,
                          asm=body, variant=f"{what}_{left}_{right}", version="9.2"))
    return C
