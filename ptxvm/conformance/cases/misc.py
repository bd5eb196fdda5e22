"""Instructions whose effect is on timing, caches or the address map rather than on a value:
nanosleep, pmevent, griddepcontrol, prefetch/prefetchu/applypriority/discard, createpolicy with
cache-hinted loads, cvta and cvta.to round trips, isspacep on addresses of each window,
alloca/stacksave/stackrestore, and mapa/getctarank in the implicit one-CTA cluster. Each case
turns the effect into a value that does not depend on where the machine puts its windows."""
from __future__ import annotations

from ._helpers import case, mark_ci
from ..case import Memory
from .. import inputs as I

F = "misc"
KEY = I.key("unary", "u32", arg=1024)
MEM = (Memory("m", "u32", 1024),)
ADDR = "mul.wide.u32 %t_rd0, %t_idx, 4;\nadd.s64 %t_rd1, {m}, %t_rd0;\n"
SHARED = "  .shared .align 8 .b8 sh_buf[2048];"
LOCAL = "  .local .align 8 .b8 loc_buf[16];"
CONST = ".const .align 4 .u32 c_tab[4] = {11, 22, 33, 44};"


def passthrough(spelling: str, text: str, version: str = "7.8", **kw):
    """The instruction, then d = a: the form is accepted and changes no value."""
    return case(F, spelling, "d:u32", "a:u32", KEY, asm=text + "\nmov.u32 {d}, {a};", version=version, **kw)


def through_memory(spelling: str, text: str, version: str = "7.8", variant: str = "", **kw):
    """d = m[idx] + a after `text` (which may use %t_rd1 = &m[idx])."""
    return case(F, spelling, "d:u32", "a:u32", KEY, memory=MEM, variant=variant, version=version,
                asm=ADDR + text + "\nld.global.u32 %t_r3, [%t_rd1];\nadd.u32 {d}, %t_r3, {a};", **kw)


def cases():
    C = []
    C.append(passthrough("nanosleep.u32", "nanosleep.u32 100;"))
    C.append(case(F, "nanosleep.u32", "d:u32", "a:u32", KEY, variant="register",
                  asm="and.b32 %t_r3, {a}, 255;\nnanosleep.u32 %t_r3;\nmov.u32 {d}, {a};"))
    C.append(passthrough("pmevent", "pmevent 3;"))
    C.append(passthrough("pmevent.mask", "pmevent.mask 0x11;"))
    C.append(passthrough("griddepcontrol.launch_dependents", "griddepcontrol.launch_dependents;"))
    C.append(passthrough("griddepcontrol.wait", "griddepcontrol.wait;"))
    for sp in ("prefetch.global.L1", "prefetch.global.L2", "prefetch.L1", "prefetch.global.L2::evict_last",
               "prefetch.global.L2::evict_normal", "prefetchu.L1"):
        v = "7.8" if "evict" not in sp else "7.8"
        C.append(through_memory(sp, f"{sp} [%t_rd1];", v))
    C.append(through_memory("prefetch.local.L1", "mov.u64 %t_rd2, loc_buf;\nprefetch.local.L1 [%t_rd2];",
                            decls=LOCAL))
    C.append(through_memory("applypriority.global.L2::evict_normal",
                            "and.b64 %t_rd2, %t_rd1, -128;\napplypriority.global.L2::evict_normal [%t_rd2], 128;"))
    # discard leaves the line undefined: store the value again before the load
    C.append(through_memory("discard.global.L2",
                            "and.b64 %t_rd2, %t_rd1, -128;\nld.global.u32 %t_r2, [%t_rd1];\nbar.sync 0;\n"
                            "discard.global.L2 [%t_rd2], 128;\nst.global.u32 [%t_rd1], %t_r2;",
                            lanes_multiple=32, truncatable=False))
    for i, (pol, v) in enumerate((("createpolicy.fractional.L2::evict_last.b64 %t_rd2, 1.0;", "7.8"),
                   ("createpolicy.fractional.L2::evict_first.L2::evict_unchanged.b64 %t_rd2, 0.5;", "7.8"),
                   ("createpolicy.fractional.L2::evict_last.b64 %t_rd2;", "7.8"),
                   ("createpolicy.range.L2::evict_last.L2::evict_first.b64 %t_rd2, [%t_rd1], 64, 256;", "7.8"))):
        sp = pol.split(" ")[0]
        C.append(through_memory(sp, pol + "\nld.global.L2::cache_hint.u32 %t_r2, [%t_rd1], %t_rd2;\n"
                                "st.global.u32 [%t_rd1], %t_r2;", v, variant=f"cache_hint{i}"))
    C.append(through_memory("createpolicy.cvt.L2.b64",
                            "mov.b64 %t_rd3, 0;\ncreatepolicy.cvt.L2.b64 %t_rd2, %t_rd3;\n"
                            "ld.global.L2::cache_hint.u32 %t_r2, [%t_rd1], %t_rd2;", variant="cache_hint"))
    # cvta round trips: a value stored through one window is read back through the other
    C.append(case(F, "cvta.shared.u64", "d:u32", "a:u32", KEY, decls=SHARED,
                  asm=("mov.u32 %t_r0, %tid.x;\nshl.b32 %t_r0, %t_r0, 2;\nmov.u32 %t_r1, sh_buf;\n"
                       "add.u32 %t_r1, %t_r1, %t_r0;\ncvt.u64.u32 %t_rd0, %t_r1;\n"
                       "cvta.shared.u64 %t_rd1, %t_rd0;\nst.u32 [%t_rd1], {a};\n"
                       "cvta.to.shared.u64 %t_rd2, %t_rd1;\ncvt.u32.u64 %t_r2, %t_rd2;\n"
                       "ld.shared.u32 %t_r3, [%t_r2];\nsub.u32 %t_r2, %t_r2, %t_r1;\n"
                       "add.u32 {d}, %t_r3, %t_r2;")))
    C.append(case(F, "cvta.shared.u32", "d:u32", "a:u32", KEY, decls=SHARED, variant="size32",
                  expect_reject="32-bit generic addresses need .address_size 32 (ptxas: conflicting with "
                                ".address_size 64)",
                  asm=("mov.u32 %t_r0, %tid.x;\nshl.b32 %t_r0, %t_r0, 2;\nmov.u32 %t_r1, sh_buf;\n"
                       "add.u32 %t_r1, %t_r1, %t_r0;\nst.shared.u32 [%t_r1], {a};\n"
                       "cvta.shared.u32 %t_r2, %t_r1;\ncvta.to.shared.u32 %t_r2, %t_r2;\n"
                       "ld.shared.u32 {d}, [%t_r2];")))
    C.append(case(F, "cvta.local.u64", "d:u32", "a:u32", KEY, decls=LOCAL,
                  asm=("mov.u64 %t_rd0, loc_buf;\ncvta.local.u64 %t_rd1, %t_rd0;\nst.u32 [%t_rd1+4], {a};\n"
                       "cvta.to.local.u64 %t_rd2, %t_rd1;\nld.local.u32 {d}, [%t_rd2+4];")))
    C.append(case(F, "cvta.const.u64", "d:u32", "a:u32", KEY, prelude=CONST,
                  asm=("and.b32 %t_r0, {a}, 3;\nmul.wide.u32 %t_rd0, %t_r0, 4;\nmov.u64 %t_rd1, c_tab;\n"
                       "cvta.const.u64 %t_rd1, %t_rd1;\nadd.s64 %t_rd1, %t_rd1, %t_rd0;\nld.u32 {d}, [%t_rd1];")))
    C.append(case(F, "cvta.to.global.u64", "d:u32", "a:u32", KEY, memory=MEM,
                  asm=(ADDR + "cvta.to.global.u64 %t_rd2, %t_rd1;\ncvta.global.u64 %t_rd2, %t_rd2;\n"
                       "ld.u32 %t_r3, [%t_rd2];\nsub.s64 %t_rd2, %t_rd2, %t_rd1;\ncvt.u32.u64 %t_r2, %t_rd2;\n"
                       "add.u32 {d}, %t_r3, %t_r2;")))
    # isspacep on generic addresses of every window: 5 predicates packed into d's low bits
    windows = ("cvta.global.u64 %t_rd0, %t_rd1;", "mov.u64 %t_rd0, sh_buf;\ncvta.shared.u64 %t_rd0, %t_rd0;",
               "mov.u64 %t_rd0, loc_buf;\ncvta.local.u64 %t_rd0, %t_rd0;",
               "mov.u64 %t_rd0, c_tab;\ncvta.const.u64 %t_rd0, %t_rd0;")
    for space, v in (("global", "7.8"), ("shared", "7.8"), ("local", "7.8"), ("const", "7.8"),
                     ("shared::cta", "7.8"), ("shared::cluster", "7.8"), ("param", "7.8")):
        body = ADDR + "mov.u32 {d}, 0;\n"
        for i, w in enumerate(windows):
            body += (w + f"\nisspacep.{space} %t_p, %t_rd0;\nselp.u32 %t_r3, {1 << i}, 0, %t_p;\n"
                     "or.b32 {d}, {d}, %t_r3;\n")
        C.append(case(F, f"isspacep.{space}", "d:u32", "a:u32", KEY, memory=MEM, decls=SHARED + "\n" + LOCAL,
                      prelude=CONST, asm=body.rstrip(), version=v))
    # alloca: a per-lane stack buffer holds the value across a second allocation
    C.append(case(F, "alloca.u64", "d:u32", "a:u32", KEY, version="7.8",
                  asm=("stacksave.u64 %t_rd3;\nalloca.u64 %t_rd0, 16;\nst.local.u32 [%t_rd0+12], {a};\n"
                       "alloca.u64 %t_rd1, 32, 16;\nst.local.u32 [%t_rd1], 0;\nld.local.u32 %t_r3, [%t_rd0+12];\n"
                       "and.b64 %t_rd2, %t_rd1, 15;\ncvt.u32.u64 %t_r2, %t_rd2;\nadd.u32 {d}, %t_r3, %t_r2;\n"
                       "stackrestore.u64 %t_rd3;")))
    C.append(case(F, "stacksave.u64", "d:u32", "a:u32", KEY,
                  asm=("stacksave.u64 %t_rd3;\nalloca.u64 %t_rd0, 64;\nstackrestore.u64 %t_rd3;\n"
                       "alloca.u64 %t_rd1, 64;\nsub.s64 %t_rd2, %t_rd1, %t_rd0;\ncvt.u32.u64 %t_r2, %t_rd2;\n"
                       "add.u32 {d}, {a}, %t_r2;")))
    C.append(case(F, "stackrestore.u64", "d:u32", "a:u32", KEY, variant="nested",
                  asm=("stacksave.u64 %t_rd3;\nalloca.u64 %t_rd0, 8;\nst.local.u32 [%t_rd0], {a};\n"
                       "stacksave.u64 %t_rd2;\nalloca.u64 %t_rd1, 128;\nst.local.u32 [%t_rd1], 7;\n"
                       "stackrestore.u64 %t_rd2;\nld.local.u32 {d}, [%t_rd0];\nstackrestore.u64 %t_rd3;")))
    # the .u32 forms with 64-bit addressing: a 32-bit local address (ptxas takes them; cvta.to
    # with a 32-bit generic address it refuses)
    C.append(case(F, "alloca.u32", "d:u32", "a:u32", KEY, variant="size32",
                  asm=("stacksave.u32 %t_r3;\nalloca.u32 %t_r0, 16;\nst.local.u32 [%t_r0+12], {a};\n"
                       "alloca.u32 %t_r1, 32, 16;\nst.local.u32 [%t_r1], 0;\nld.local.u32 %t_r2, [%t_r0+12];\n"
                       "and.b32 %t_r1, %t_r1, 15;\nadd.u32 {d}, %t_r2, %t_r1;\nstackrestore.u32 %t_r3;")))
    C.append(case(F, "stacksave.u32", "d:u32", "a:u32", KEY, variant="size32",
                  asm=("stacksave.u32 %t_r3;\nalloca.u32 %t_r0, 64;\nstackrestore.u32 %t_r3;\n"
                       "alloca.u32 %t_r1, 64;\nsub.u32 %t_r2, %t_r1, %t_r0;\nsub.u32 %t_r3, %t_r3, %t_r1;\n"
                       "add.u32 {d}, {a}, %t_r2;\nadd.u32 {d}, {d}, %t_r3;")))
    C.append(case(F, "stackrestore.u32", "d:u32", "a:u32", KEY, variant="nested32",
                  asm=("stacksave.u32 %t_r3;\nalloca.u32 %t_r0, 8;\nst.local.u32 [%t_r0], {a};\n"
                       "stacksave.u32 %t_r2;\nalloca.u32 %t_r1, 128;\nst.local.u32 [%t_r1], 7;\n"
                       "stackrestore.u32 %t_r2;\nld.local.u32 {d}, [%t_r0];\nstackrestore.u32 %t_r3;")))
    C.append(case(F, "cvta.to.shared.u32", "d:u32", "a:u32", KEY, decls=SHARED, variant="size32",
                  expect_reject="32-bit generic addresses need .address_size 32, which sm_90 does not "
                                "support (ptxas: 32-Bit ABI is not supported on sm_90 or higher)",
                  asm=("mov.u32 %t_r0, %tid.x;\nshl.b32 %t_r0, %t_r0, 2;\nmov.u64 %t_rd0, sh_buf;\n"
                       "cvta.shared.u64 %t_rd0, %t_rd0;\ncvt.u32.u64 %t_r1, %t_rd0;\n"
                       "cvta.to.shared.u32 %t_r2, %t_r1;\nadd.u32 %t_r2, %t_r2, %t_r0;\n"
                       "st.shared.u32 [%t_r2], {a};\nld.shared.u32 {d}, [%t_r2];")))
    # the launch stops: the thread of lane 37 alone executes trap / brkpt
    for sp in ("trap", "brkpt"):
        C.append(case(F, sp, "d:u32", "a:u32", KEY, variant="one_thread",
                      expect_fault=f"{sp} stops the launch with an error (no debugger attached)",
                      asm=(f"mov.u32 {{d}}, {{a}};\nsetp.eq.u32 %t_p, %t_idx, 37;\n@%t_p {sp};")))
    # the implicit cluster of one CTA: mapa to rank 0 is this CTA's own shared memory
    C.append(case(F, "mapa.shared::cluster.u32", "d:u32", "a:u32", KEY, decls=SHARED,
                  asm=("mov.u32 %t_r0, %tid.x;\nshl.b32 %t_r0, %t_r0, 2;\nmov.u32 %t_r1, sh_buf;\n"
                       "add.u32 %t_r1, %t_r1, %t_r0;\nst.shared.u32 [%t_r1], {a};\n"
                       "mapa.shared::cluster.u32 %t_r2, %t_r1, 0;\nld.shared::cluster.u32 {d}, [%t_r2];")))
    C.append(case(F, "mapa.u64", "d:u32", "a:u32", KEY, decls=SHARED,
                  asm=("mov.u32 %t_r0, %tid.x;\nshl.b32 %t_r0, %t_r0, 2;\nmov.u64 %t_rd0, sh_buf;\n"
                       "cvta.shared.u64 %t_rd0, %t_rd0;\ncvt.u64.u32 %t_rd1, %t_r0;\n"
                       "add.s64 %t_rd0, %t_rd0, %t_rd1;\nst.u32 [%t_rd0], {a};\n"
                       "mapa.u64 %t_rd2, %t_rd0, 0;\nld.u32 {d}, [%t_rd2];")))
    for sp in ("getctarank.shared::cluster.u32", "getctarank.u64"):
        if sp.endswith("u32"):
            body = "mov.u32 %t_r1, sh_buf;\ngetctarank.shared::cluster.u32 %t_r2, %t_r1;"
        else:
            body = "mov.u64 %t_rd0, sh_buf;\ncvta.shared.u64 %t_rd0, %t_rd0;\ngetctarank.u64 %t_r2, %t_rd0;"
        C.append(case(F, sp, "d:u32", "a:u32", KEY, decls=SHARED, asm=body + "\nadd.u32 {d}, {a}, %t_r2;"))
    return mark_ci(C, key=lambda c: c.instruction)
