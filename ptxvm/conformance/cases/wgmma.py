"""Warpgroup MMA (wgmma, sm_90a): wgmma.mma_async in every dense type pairing, with A from shared
memory or from registers, B from shared memory through matrix descriptors; wgmma.fence,
commit_group and wait_group in the sequences around it.

One CTA of 128 threads (one warpgroup) per case. Every thread stores its words of the A and B
images (source operands a and b, inputs "mma": moderate values in even warps, wide exponent
spreads, subnormals, zeros, infinities, NaNs and exactly cancelling pairs in odd warps) to
shared memory at 4 * words * tid.x, fences the async proxy and synchronizes; the descriptors
point at the images with the layout of the variant:

  kmajor      K-major, no swizzle: 8 x 16-byte core matrices, LBO 128 (along K), SBO 256
  trans       MN-major (imm-trans 1), no swizzle: SBO 128 (16-byte chunks along M/N), LBO 8 rows
  swz32/64/128 K-major with that swizzle: rows of W bytes, SBO 8W, images 1024-byte aligned
  aregs       A from registers (the A source operand is then the register fragment)

The accumulator starts as source operand c (copied to d before wgmma.fence); scale-d is a
predicate (the scaled0 variant clears it: D = A*B).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ._helpers import case, mark_ci
from .. import inputs as I

F = "wgmma"
LANES = 128
BITS = {"f16": 16, "bf16": 16, "tf32": 32, "e4m3": 8, "e5m2": 8, "s8": 8, "u8": 8, "b1": 1}
KOF = {16: 16, 32: 8, 8: 32, 1: 256}       # element bits -> K of one wgmma
SWZ = {"swz128": (1, 128), "swz64": (2, 64), "swz32": (3, 32)}
DECLS = ("  .shared .align 1024 .b8 sh_a[8192];\n  .shared .align 1024 .b8 sh_b[4096];\n"
         "  .reg .b32 %w<4>;\n  .reg .b64 %wd<4>;\n  .reg .pred %wp;")


def _vec(t, n):
    return f"{t}*{n}" if n > 1 else t


def _desc_bits(lbo: int, sbo: int, mode: int) -> int:
    """The descriptor without its start address."""
    return ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (mode << 62)


def layout(variant: str, rows: int, k_bytes: int):
    """(image bytes, descriptor bits) of an operand of `rows` M/N rows and k_bytes of K (32, or
    64 for the B of a sparse product)."""
    if variant in SWZ:
        mode, w = SWZ[variant]
        assert k_bytes <= w
        return rows * w, _desc_bits(16, 8 * w, mode)
    if variant == "trans":            # two-byte elements: 8 k-rows of 16 bytes per chunk
        return rows * k_bytes, _desc_bits(rows * 16, 128, 0)
    return rows * k_bytes, _desc_bits(128, 128 * (k_bytes // 16), 0)


_IMG_REG = {"f16": "f16x2", "bf16": "bf16x2", "tf32": "f32"}
_ACC = {"f16": "f16x2", "f32": "f32", "s32": "s32"}


def _stage(name: str, words: int, sym: str) -> str:
    lines = [f"mov.u32 %w1, {sym};", f"mad.lo.u32 %w2, %w0, {4 * words}, %w1;"]
    lines += [f"st.shared.b32 [%w2+{4 * j}], %o_{name}{j if words > 1 else ''};" for j in range(words)]
    return "\n".join(lines) + "\n"


def _desc(sym: str, reg: str, bits: int) -> str:
    return (f"mov.u32 %w1, {sym};\nshr.u32 %w1, %w1, 4;\ncvt.u64.u32 {reg}, %w1;\n"
            f"or.b64 {reg}, {reg}, {bits};\n")


def wg_case(n, dt, at, bt, variant="kmajor", scale=(1, 1), scale_d=True, sat="", seq="single",
            spelling=None, name=None, sel=None):
    """seq: single (fence, mma, commit, wait 0), two (two products into one accumulator, each
    committed, wait 0) or wait1 (two groups, wait_group 1 then 0). sel: a sparse product
    (wgmma.mma_async.sp, metadata operand e) with this sparsity selector."""
    bits = BITS[at]
    sparse = sel is not None
    K = KOF[bits] * (2 if sparse else 1)
    shape = f"m64n{n}k{K}"
    kb = KOF[bits] * bits // 8                             # 32 bytes of (stored) A per row, every type
    aregs = variant == "aregs"
    bvar = "kmajor" if aregs else variant
    a_img, a_desc = layout(bvar, 64, kb)
    b_img, b_desc = layout(bvar, n, K * bits // 8)
    wa, wb = a_img // (4 * LANES), -(-b_img // (4 * LANES))   # every byte the descriptor reaches is written
    nd = n // 4 if dt == "f16" else n // 2
    na = 16 * KOF[bits] * bits // (32 * 32)
    elt = _IMG_REG.get(at, "b32")
    ta = _vec(elt, na if aregs else wa)
    tb = _vec(_IMG_REG.get(bt, "b32"), wb)
    tc = _vec(_ACC[dt], nd)
    fp8 = at in ("e4m3", "e5m2")
    elts = [at, bt] if fp8 else ["tf32", "tf32"] if at == "tf32" else ["-", "-"]
    if sparse:
        elts += ["-", "metatf32" if at == "tf32" else "meta"]
    arg = "/".join([f"{LANES}"] + elts).rstrip("/-") if any(x != "-" for x in elts) else f"{LANES}"
    key = I.key("mma", *([ta, tb, tc] + (["b32"] if sparse else [])), arg=arg)
    sp_ = ".sp" if sparse else ""
    if at == "b1":
        head = f"wgmma.mma_async.sync.aligned.{shape}.s32.b1.b1.and.popc"
    else:
        head = f"wgmma.mma_async{sp_}.sync.aligned.{shape}{sat}.{dt}.{at}.{bt}"
    tail = ""
    if dt != "s32":
        tail = f", {scale[0]}, {scale[1]}"
        if at in ("f16", "bf16"):
            tr = 1 if variant == "trans" else 0
            tail += f", {tr}" if aregs else f", {tr}, {tr}"
    a_op = "{a}" if aregs else "%wd0"
    meta = f"{{e}}, {sel}, " if sparse else ""
    mma = f"{head} {{d}}, {a_op}, %wd1, {meta}%wp{tail};\n"
    body = "mov.u32 %w0, %tid.x;\n"
    if not aregs:
        body += _stage("a", wa, "sh_a")
    body += _stage("b", wb, "sh_b")
    body += "fence.proxy.async.shared::cta;\nbar.sync 0;\n"
    body += _desc("sh_a", "%wd0", a_desc) + _desc("sh_b", "%wd1", b_desc)
    body += f"setp.{'eq' if scale_d else 'ne'}.u32 %wp, %w0, %w0;\n"
    body += "".join(f"mov.b32 %o_d{i}, %o_c{i};\n" for i in range(nd))
    body += "wgmma.fence.sync.aligned;\n" + mma + "wgmma.commit_group.sync.aligned;\n"
    if seq in ("two", "wait1"):
        body += mma + "wgmma.commit_group.sync.aligned;\n"
    if seq == "wait1":
        body += "wgmma.wait_group.sync.aligned 1;\n"
    body += "wgmma.wait_group.sync.aligned 0;\n"
    sp = spelling or head
    vname = name if name is not None else "-".join(x for x in (
        f"n{n}", variant, "" if scale == (1, 1) else f"scale{scale[0]}{scale[1]}".replace("-1", "m"),
        "" if scale_d else "scaled0", "" if sel is None else f"sel{sel}") if x)
    version = "8.4" if dt == "s32" and at != bt else "8.2" if sparse else "8.0"  # ptxas 13: mixed integers need 8.4
    return case(F, sp, f"d:{tc}", f"a:{ta} b:{tb} c:{tc}" + (" e:b32" if sparse else ""), key, variant=vname,
                decls=DECLS, asm=body, block=LANES, lanes_multiple=LANES, truncatable=False, target="sm_90a",
                version=version)


def cases():
    C = []
    for dt, t in (("f16", "f16"), ("f32", "f16"), ("f32", "bf16")):
        for v in ("kmajor", "trans", "aregs") + (("swz32", "swz64", "swz128") if (dt, t) == ("f32", "f16") else ()):
            C.append(wg_case(8, dt, t, t, v))
        C.append(wg_case(16, dt, t, t))
        C.append(wg_case(8, dt, t, t, scale=(-1, 1)))
        C.append(wg_case(8, dt, t, t, scale=(1, -1)))
        C.append(wg_case(8, dt, t, t, scale_d=False))
    C.append(wg_case(40, "f16", "f16", "f16"))
    C.append(wg_case(8, "f32", "bf16", "bf16", "swz32"))
    C.append(wg_case(24, "f32", "bf16", "bf16", "trans"))
    for v in ("kmajor", "aregs", "swz64"):
        C.append(wg_case(8, "f32", "tf32", "tf32", v))
    C.append(wg_case(16, "f32", "tf32", "tf32"))
    C.append(wg_case(8, "f32", "tf32", "tf32", scale=(-1, -1)))
    for dt in ("f16", "f32"):
        for at in ("e4m3", "e5m2"):
            for bt in ("e4m3", "e5m2"):
                C.append(wg_case(8, dt, at, bt))
        C.append(wg_case(8, dt, "e4m3", "e5m2", "aregs"))
        C.append(wg_case(16, dt, "e5m2", "e4m3", scale=(-1, 1)))
    for at in ("s8", "u8"):
        for bt in ("s8", "u8"):
            C.append(wg_case(8, "s32", at, bt))
            C.append(wg_case(8, "s32", at, bt, sat=".satfinite"))
    C.append(wg_case(24, "s32", "s8", "u8", "aregs"))
    C.append(wg_case(16, "s32", "u8", "u8", "swz32", sat=".satfinite"))
    C.append(wg_case(8, "s32", "s8", "s8", scale_d=False))
    for v in ("kmajor", "aregs"):
        C.append(wg_case(8, "s32", "b1", "b1", v))
    C.append(wg_case(24, "s32", "b1", "b1", scale_d=False))
    # the sequences, named by the instruction each one exercises
    C.append(wg_case(8, "f32", "f16", "f16", spelling="wgmma.fence.sync.aligned", name="mma-f32-f16"))
    C.append(wg_case(8, "f32", "bf16", "bf16", seq="two", spelling="wgmma.commit_group.sync.aligned",
                     name="two-groups"))
    C.append(wg_case(8, "s32", "s8", "s8", seq="wait1", spelling="wgmma.wait_group.sync.aligned",
                     name="wait1-then-0"))
    C.append(wg_case(8, "f32", "tf32", "tf32", seq="two", name="n16-two-products"))
    C += sparse_cases()
    return mark_ci(C, key=lambda c: c.instruction)


def k_wgsp_probe(types, arg, rng):
    """Index-coded images for a sparse wgmma: A (kept elements) all ones; B (N x K, K-major, no
    swizzle) holds 2^(k % 8) where k // 8 == n (mod K/8), else 0; C zero; metadata random and
    well formed. Each D[m, n] is then the bit mask of the kept k of row m in block n, exactly.
    arg: "<atype>/<n>/<k>"."""
    from ...semantics.families import wgmma as W
    at, n, k = arg.split("/")
    n, k = int(n), int(k)
    bits = BITS[at]
    one = {"u8": 1, "s8": 1, "f16": 0x3C00}[at]
    per = 32 // bits
    a = np.full(types_len(types[0]) * LANES, sum(one << (bits * i) for i in range(per)), np.uint32)
    kb = k * bits // 8
    off = W.element_offsets(n, k, bits, W.Descriptor(0, 128, 128 * (kb // 16), 0, 0), False)
    nn, kk = np.meshgrid(np.arange(n), np.arange(k), indexing="ij")
    val = np.where(kk // 8 == nn % (k // 8), 1 << (kk % 8), 0)
    if at == "f16":
        val = np.where(val > 0, np.float16(1) * val, 0).astype(np.float16).view(np.uint16).astype(np.int64)
    img = np.zeros(types_len(types[1]) * LANES * 4, np.uint8)
    for byte in range(bits // 8):
        img[off + byte] = (val >> (8 * byte)) & 0xFF
    c = np.zeros(types_len(types[2]) * LANES, np.uint32)
    e = I._sparse_meta_words(LANES, rng, False)
    return [a, img.view(np.uint32), c, e]


def types_len(t: str) -> int:
    return int(t.split("*")[1]) if "*" in t else 1


def probe_case(dt, at, sel):
    """A sparse product on index-coded images (k_wgsp_probe)."""
    c = wg_case(8, dt, at, at, sel=sel)
    K = KOF[BITS[at]] * 2
    ta, tb, tc = (o.type + (f"*{o.count}" if o.count > 1 else "") for o in c.srcs[:3])
    key = I.key("wgsp_probe", ta, tb, tc, "b32", arg=f"{at}/8/{K}")
    return dataclasses.replace(c, id=c.id.split("#")[0] + f"#n8-probe-sel{sel}", inputs=key)


# the kind's arrays depend on the image layout above, so it lives here; registering it when the
# family is imported is enough: the recorder imports the family before it makes any input, and
# the checker reads the inputs back from the golden
I.KINDS["wgsp_probe"] = lambda types, arg, rng: k_wgsp_probe(types, arg, rng)


def sparse_cases():
    """wgmma.mma_async.sp: every type pairing, every selector of the f16/bf16/tf32 forms, A from
    shared memory or registers, MN-major f16."""
    C = []
    for dt, t in (("f16", "f16"), ("f32", "f16"), ("f32", "bf16"), ("f32", "tf32")):
        for sel in (0, 1):
            C.append(wg_case(8, dt, t, t, sel=sel))
        C.append(wg_case(8, dt, t, t, "aregs", sel=1))
    C.append(wg_case(8, "f32", "f16", "f16", "trans", sel=0))
    C.append(wg_case(16, "f32", "bf16", "bf16", "swz64", scale=(-1, 1), sel=1))
    for dt in ("f16", "f32"):
        for at in ("e4m3", "e5m2"):
            for bt in ("e4m3", "e5m2"):
                C.append(wg_case(8, dt, at, bt, sel=0))
    C.append(wg_case(8, "f32", "e4m3", "e4m3", "aregs", sel=0))
    for at in ("s8", "u8"):
        for bt in ("s8", "u8"):
            C.append(wg_case(8, "s32", at, bt, sel=0))
    C.append(wg_case(8, "s32", "s8", "s8", sat=".satfinite", sel=0))
    C.append(wg_case(8, "s32", "u8", "s8", "aregs", sel=0))
    C += [probe_case("s32", "u8", 0), probe_case("f32", "f16", 0), probe_case("f32", "f16", 1)]
    return C
