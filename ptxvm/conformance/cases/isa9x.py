"""Forms PTX ISA 9.1-9.5 added that an sm_90 GPU runs: sin/cos .approx.ftz.2pi (9.5, argument in
turns), clmad.lo/.hi (9.3, carry-less multiply-add), fence.alias.sync_restrict::read (9.5) and
cp.async.bulk.wait_group.sync_restrict::proxy::async (9.5); and the 9.2 cvt forms to bf16x2 that
need the sm_100 family (sm_90 refuses them: their cases record the refusal).

The H200's driver (CUDA 13.0) JIT-compiles PTX up to ISA 9.0 only: these cases are recorded from
cubins that ptxas 13.5 builds (tools/device/build_cubins.py, tools/device/record.py --cubins)."""
from __future__ import annotations

from ._helpers import case, mark_ci
from .. import inputs as I
from .bulk import GROUP, READ_GLOBAL, bulk_case
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
    return mark_ci(C, key=lambda c: c.instruction)
