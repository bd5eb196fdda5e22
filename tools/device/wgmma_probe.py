#!/usr/bin/env python3
"""GPU experiments for Hopper's warpgroup MMA (wgmma.mma_async, sm_90a): how the shared-memory
matrix descriptor (strides, swizzle modes, base offset, transposes) places the elements of A and
B, the register fragments, scale-d / imm-scale, and the arithmetic on crafted and random data.

    python3 tools/device/wgmma_probe.py --out DIR [--only SUBSTR] [--dry-run]

One CTA of 128 threads (one warpgroup) per experiment case: the CTA copies its shared-memory image
from global memory, fences the async proxy, runs wgmma.fence / mma_async / commit_group /
wait_group 0 and stores D. The descriptors are given with start addresses relative to the image
(the kernel adds the image's shared address). Output format as tools/device/mma_probe.py.
"""
from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import sys
import time
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mma_probe as MP  # noqa: E402


def _load(name, rel):
    p = os.path.join(MP.ROOT, *rel.split("/"))
    spec = importlib.util.spec_from_file_location(name, p)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


WG = _load("_wgmma_layouts", "ptxvm/semantics/families/wgmma.py")
HEAD = ".version 8.7\n.target sm_90a\n.address_size 64\n\n"
IMG = 49152  # bytes of shared memory image per CTA (the static maximum)


def kernel(kname, instr, a_regs, d_regs, a_from_regs):
    P = ["p_img", "p_desc", "p_a", "p_d", "p_o", "p_s"]
    L = [f".visible .entry {kname}(" + ", ".join(f".param .u64 {p}" for p in P) + ")", "{",
         f"  .shared .align 1024 .b8 smem[{IMG}];",
         "  .reg .b32 %t<4>, %i, %v, %cta, %sb, %gt;", "  .reg .b64 %base, %off, %addr, %ad, %bd, %tmp;",
         "  .reg .pred %p, %scd;", f"  .reg .b32 %a<{max(a_regs, 1)}>;", f"  .reg .b32 %d<{d_regs}>;",
         "  mov.u32 %cta, %ctaid.x;", "  mov.u32 %t0, %tid.x;", "  mad.lo.u32 %gt, %cta, 128, %t0;",
         "  ld.param.u64 %base, [p_img];", "  cvta.to.global.u64 %base, %base;",
         f"  mul.wide.u32 %off, %cta, {IMG};", "  add.s64 %base, %base, %off;", "  mov.u32 %sb, smem;",
         "  mov.u32 %i, %t0;", "CP:", f"  setp.ge.u32 %p, %i, {IMG // 4};", "  @%p bra CPD;",
         "  mul.wide.u32 %off, %i, 4;", "  add.s64 %addr, %base, %off;", "  ld.global.b32 %v, [%addr];",
         "  shl.b32 %t1, %i, 2;", "  add.u32 %t1, %t1, %sb;", "  st.shared.b32 [%t1], %v;",
         "  add.u32 %i, %i, 128;", "  bra CP;", "CPD:", "  fence.proxy.async.shared::cta;", "  bar.sync 0;",
         "  ld.param.u64 %base, [p_desc];", "  cvta.to.global.u64 %base, %base;", "  mul.wide.u32 %off, %cta, 16;",
         "  add.s64 %addr, %base, %off;", "  ld.global.u64 %ad, [%addr];", "  ld.global.u64 %bd, [%addr+8];",
         "  shr.u32 %t2, %sb, 4;", "  cvt.u64.u32 %tmp, %t2;", "  add.s64 %ad, %ad, %tmp;", "  add.s64 %bd, %bd, %tmp;",
         "  ld.param.u64 %base, [p_s];", "  cvta.to.global.u64 %base, %base;", "  mul.wide.u32 %off, %cta, 4;",
         "  add.s64 %addr, %base, %off;", "  ld.global.u32 %v, [%addr];", "  setp.ne.u32 %scd, %v, 0;"]
    for p, pre, n in (("p_a", "a", a_regs), ("p_d", "d", d_regs)):
        if n == 0:
            continue
        L += [f"  ld.param.u64 %base, [{p}];", "  cvta.to.global.u64 %base, %base;",
              f"  mul.wide.u32 %off, %gt, {4 * n};", "  add.s64 %addr, %base, %off;"]
        L += [f"  ld.global.b32 %{pre}{i}, [%addr+{4 * i}];" for i in range(n)]
    dl = "{" + ", ".join(f"%d{i}" for i in range(d_regs)) + "}"
    al = ("{" + ", ".join(f"%a{i}" for i in range(a_regs)) + "}") if a_from_regs else "%ad"
    L += ["  wgmma.fence.sync.aligned;", f"  {instr.format(d=dl, a=al, b='%bd', s='%scd')};",
          "  wgmma.commit_group.sync.aligned;", "  wgmma.wait_group.sync.aligned 0;"]
    L += ["  ld.param.u64 %base, [p_o];", "  cvta.to.global.u64 %base, %base;",
          f"  mul.wide.u32 %off, %gt, {4 * d_regs};", "  add.s64 %addr, %base, %off;"]
    L += [f"  st.global.b32 [%addr+{4 * i}], %d{i};" for i in range(d_regs)]
    L += ["  ret;", "}"]
    return "\n".join(L) + "\n"


def form(shape, dt, at, bt, a_regs, scale_a=1, scale_b=1, trans_a=0, trans_b=0, sat=False):
    """The instruction template ({d}, {a}, {b}, {s} filled by `kernel`)."""
    M, N, K = MP.L.parse_shape(shape)
    s = ".satfinite" if sat else ""
    if at == "b1":
        head = f"wgmma.mma_async.sync.aligned.{shape}.s32.b1.b1.and.popc"
        return head + " {d}, {a}, {b}, {s}"
    head = f"wgmma.mma_async.sync.aligned.{shape}{s}.{dt}.{at}.{bt}"
    if dt == "s32":
        return head + " {d}, {a}, {b}, {s}"
    tail = f", {scale_a}, {scale_b}"
    if at in ("f16", "bf16"):
        tail += (f", {trans_b}" if a_regs else f", {trans_a}, {trans_b}")
    return head + " {d}, {a}, {b}, {s}" + tail


BITS = {"f16": 16, "bf16": 16, "tf32": 32, "e4m3": 8, "e5m2": 8, "s8": 8, "u8": 8, "b1": 1}


def d_regs_of(n, dt):
    return n // 4 if dt == "f16" else n // 2


def a_regs_of(k, at):
    return 16 * k * BITS[at] // (32 * 32)


def run_case(P, name, shape, dt, at, bt, cases, a_from_regs, imm=(1, 1, 0, 0), sat=False, extra=None):
    """cases: list of dicts with img (uint8[IMG]), adesc, bdesc (ints, start relative), a (uint32
    [128, na]) , d (uint32 [128, nd]), scale_d (0/1)."""
    M, N, K = MP.L.parse_shape(shape)
    na = a_regs_of(K, at) if a_from_regs else 0
    nd = d_regs_of(N, dt)
    instr = form(shape, dt, at, bt, a_from_regs, *imm, sat=sat)
    kname = "wg_" + hashlib.sha1((instr + str(a_from_regs)).encode()).hexdigest()[:10]
    ptx = HEAD + kernel(kname, instr, na, nd, a_from_regs)
    C = len(cases)
    img = np.concatenate([c["img"] for c in cases])
    desc = np.array([[c["adesc"], c["bdesc"]] for c in cases], np.uint64).ravel()
    a = np.concatenate([c.get("a", np.zeros((128, max(na, 1)), np.uint32))[:, :max(na, 1)] for c in cases])
    d = np.concatenate([c["d"] for c in cases]).astype(np.uint32)
    o = np.full_like(d, 0xA5A5A5A5)
    s = np.array([c.get("scale_d", 1) for c in cases], np.uint32)
    meta = {"kind": "wgmma", "instruction": instr.split(" ")[0], "a_from_regs": bool(a_from_regs), "imm": list(imm),
            "cases": C, "descs": [[hex(c["adesc"]), hex(c["bdesc"])] for c in cases]}
    meta.update(extra or {})
    P.launch(name, meta, ptx, kname, C, 128, [img, desc, a, d, o, s], ["img", "desc", "a", "d", "o", "s"],
             keep={"o"})


# ---------------------------------------------------------------------------- data helpers

def image_of(mat, t, desc, mn_major, rng=None, fill=None):
    """Place matrix [rows, k] (element bits of type t) into an IMG-byte image with the model's
    layout; other bytes from `fill` (default zero)."""
    rows, k = mat.shape
    bits = BITS[t]
    img = np.zeros(IMG, np.uint8) if fill is None else fill.copy()
    off = WG.element_offsets(rows, k, bits, desc, mn_major)
    v = mat.astype(np.uint64)
    if bits < 8:  # sub-byte elements: their bits within the byte (element order within the byte)
        pos = (np.arange(rows)[:, None] if mn_major else np.arange(k)[None, :]) * bits % 8
        pos = np.broadcast_to(pos, (rows, k))
        flat = off.ravel()
        img[np.unique(flat)] = 0
        np.bitwise_or.at(img, flat, ((v & np.uint64((1 << bits) - 1)) << pos.astype(np.uint64)).ravel().astype(np.uint8))
        return img
    nb = bits // 8
    for b in range(nb):
        img[(off + b).ravel()] = ((v >> np.uint64(8 * b)) & np.uint64(255)).ravel().astype(np.uint8)
    return img


def code_parts(t):
    return ("d0", "d1", "d2", "d3", "d4") if BITS[t] == 8 else ("lo", "hi")


def codes_image(t, part):
    """Every element slot of the image holds a code: (index % 64) + 1 ('lo') or index // 64 + 1
    ('hi') where index counts elements of t from the image start; for 8-bit types (exact small
    integers only up to 16) base-8 digits d0..d4 of the index, plus 1."""
    bits = BITS[t]
    n = IMG * 8 // bits
    i = np.arange(n)
    if part.startswith("d"):
        v = (i >> (3 * int(part[1:]))) % 8 + 1
    else:
        v = (i % 64) + 1 if part == "lo" else (i // 64) + 1
    enc = MP.encode_rn(v.astype(np.float64), t)
    return enc.view(np.uint8).copy() if bits >= 8 else None


def a_regs_from(mat, t, k):
    """A [64, K] element bits -> [128, nregs] registers."""
    row, col = WG.a_fragment_positions(k, BITS[t])
    el = mat[row, col].astype(np.uint64)
    per = 32 // BITS[t]
    el = el.reshape(128, -1, per)
    sh = np.arange(per, dtype=np.uint64) * np.uint64(BITS[t])
    return np.bitwise_or.reduce((el & np.uint64((1 << BITS[t]) - 1)) << sh, axis=-1).astype(np.uint32)


def d_regs_from(mat, dt, n):
    row, col = WG.d_fragment_positions(n)
    el = mat[row, col].astype(np.uint64)
    if dt == "f16":
        el = el.reshape(128, -1, 2)
        return (el[..., 0] | (el[..., 1] << np.uint64(16))).astype(np.uint32)
    return el.astype(np.uint32)


def identity_a(t, k):
    m = np.zeros((64, k))
    m[np.arange(64), np.arange(64) % k] = 1.0
    return MP.encode_rn(m, t)


def D(start, lbo, sbo, swz, base=0):
    return WG.Descriptor(start, lbo, sbo, base, swz)


# layouts to probe: (label, desc, mn_major)
def layout_descs(bits, n_rows):
    row_bytes_k = 32  # K extent of one wgmma in bytes (k16 f16, k8 tf32, k32 8-bit)
    out = [("kmaj_none_l128_s256", D(0, 128, 256, 0), False), ("kmaj_none_l256_s128", D(0, 256, 128, 0), False),
           ("kmaj_none_l512_s1024", D(0, 512, 1024, 0), False),
           ("kmaj_sw128_s1024", D(0, 16, 1024, 1), False), ("kmaj_sw128_s2048_l4096", D(0, 4096, 2048, 1), False),
           ("kmaj_sw64_s512", D(0, 16, 512, 2), False), ("kmaj_sw32_s256", D(0, 16, 256, 3), False),
           ("kmaj_sw128_start32", D(32, 16, 1024, 1), False), ("kmaj_sw128_start64", D(64, 16, 1024, 1), False),
           ("kmaj_sw128_start256_base2", D(256, 16, 1024, 1, 2), False),
           ("kmaj_sw128_start256_base0", D(256, 16, 1024, 1, 0), False),
           ("mnmaj_none_l128_s256", D(0, 128, 256, 0), True), ("mnmaj_none_l256_s128", D(0, 256, 128, 0), True),
           ("mnmaj_none_l1024_s512", D(0, 1024, 512, 0), True),
           ("mnmaj_sw128_l2048_s1024", D(0, 2048, 1024, 1), True), ("mnmaj_sw128_l1024_s2048", D(0, 1024, 2048, 1), True),
           ("mnmaj_sw64_l1024_s512", D(0, 1024, 512, 2), True), ("mnmaj_sw64_l512_s1024", D(0, 512, 1024, 2), True),
           ("mnmaj_sw32_l512_s256", D(0, 512, 256, 3), True), ("mnmaj_sw32_l256_s512", D(0, 256, 512, 3), True)]
    return out


def layout_experiments(P, rng):
    """B from a descriptor over an image of element codes, A = identity in registers: D[m, n] is
    the code of B[m % K, n]. Then A from a descriptor over codes with B = identity placed by the
    model (K-major, no swizzle): D[m, n] = code of A[m, n]. Start addresses off the swizzle
    pattern (which might fault) come last."""
    for risky in (False, True):
        _layout_pass(P, rng, risky)


def _layout_pass(P, rng, risky):
    for t, k in (("f16", 16), ("tf32", 8), ("e4m3", 32)):
        for label, desc, mn in layout_descs(BITS[t], 64):
            if ("start" in label) != risky:
                continue
            if mn and t != "f16":
                continue
            for n in ((16, 64) if t == "f16" else (16,)):
                cases = []
                for part in code_parts(t):
                    a = a_regs_from(identity_a(t, k), t, k)
                    cases.append({"img": codes_image(t, part), "adesc": 0, "bdesc": desc.encode(), "a": a,
                                  "d": np.zeros((128, n // 2), np.uint32), "scale_d": 0})
                run_case(P, f"wg/layout/B/{t}/m64n{n}k{k}/{label}", f"m64n{n}k{k}", "f32", t, t, cases, True,
                         imm=(1, 1, 0, 1 if mn else 0), extra={"generator": "codes", "layout": label, "mn_major": mn})
        # A from a descriptor
        n = 32 if t != "e4m3" else 32
        for label, desc, mn in layout_descs(BITS[t], 64):
            if ("start" in label) != risky:
                continue
            if mn and t != "f16":
                continue
            if label.endswith(("l256_s128", "l512_s1024", "start64", "base0", "s2048_l4096")):
                continue
            bdesc = D(8192, 128, 256, 0)
            eye = np.zeros((n, k))
            eye[np.arange(n), np.arange(n) % k] = 1.0
            cases = []
            for part in code_parts(t):
                img = codes_image(t, part)
                img[8192:] = 0
                img = image_of(MP.encode_rn(eye, t), t, bdesc, False, fill=img)
                cases.append({"img": img, "adesc": desc.encode(), "bdesc": bdesc.encode(),
                              "d": np.zeros((128, n // 2), np.uint32), "scale_d": 0})
            run_case(P, f"wg/layout/A/{t}/m64n{n}k{k}/{label}", f"m64n{n}k{k}", "f32", t, t, cases, False,
                     imm=(1, 1, 1 if mn else 0, 0), extra={"generator": "codes", "layout": label, "mn_major": mn})


# ---------------------------------------------------------------------------- numerics

def random_case(rng, gen, shape, dt, at, bt, a_from_regs, adesc, bdesc, mn=(False, False), scale_d=1):
    M, N, K = MP.L.parse_shape(shape)
    ct = dt
    a, b, c = gen(rng, 1, (M, N, K), (at, bt, ct, dt))
    a, b, c = a[0], b[0], c[0]  # [64, K], [K, N], [64, N]
    img = image_of(b.T, bt, bdesc, mn[1])
    case = {"bdesc": bdesc.encode(), "scale_d": scale_d}
    if a_from_regs:
        case["a"] = a_regs_from(a, at, K)
        case["adesc"] = 0
    else:
        img = image_of(a, at, adesc, mn[0], fill=img)
        case["adesc"] = adesc.encode()
    case["img"] = img
    case["d"] = d_regs_from(c, dt, N)
    return case


def numeric_experiments(P, rng, full=True):
    gens_f = [MP.g_small_ints, MP.g_wide, MP.g_cancel, MP.g_gap, MP.g_special, MP.g_zero, MP.g_ties]
    if full:
        gens_f += [MP.g_extreme, MP.g_near, MP.g_groups]
    A0, B0 = D(0, 128, 256, 0), D(4096, 128, 256, 0)
    A1, B1 = D(0, 16, 1024, 1), D(8192, 16, 1024, 1)
    forms = [("m64n8k16", "f32", "f16"), ("m64n8k16", "f16", "f16"), ("m64n8k16", "f32", "bf16"),
             ("m64n8k8", "f32", "tf32"), ("m64n8k32", "f32", "e4m3"), ("m64n8k32", "f16", "e4m3"),
             ("m64n8k32", "f32", "e5m2")]
    for shape, dt, at in forms:
        for gen in gens_f:
            for ar in (True, False):
                descs = [(A0, B0), (A1, B1)]
                cases = [random_case(rng, gen, shape, dt, at, at, ar, ad, bd) for ad, bd in descs]
                run_case(P, f"wg/num/{shape}.{dt}.{at}/{gen.__name__}/{'regs' if ar else 'desc'}", shape, dt, at, at,
                         cases, ar, extra={"generator": gen.__name__})
    # mixed fp8, integers, b1, wide N, modifiers
    extra_forms = [("m64n16k32", "f32", "e5m2", "e4m3", MP.g_wide), ("m64n16k32", "f16", "e4m3", "e5m2", MP.g_cancel),
                   ("m64n256k16", "f32", "f16", "f16", MP.g_wide), ("m64n8k16", "f32", "bf16", "bf16", MP.g_cancel),
                   ("m64n24k8", "f32", "tf32", "tf32", MP.g_wide), ("m64n256k32", "f16", "e4m3", "e4m3", MP.g_wide)]
    for shape, dt, at, bt, gen in extra_forms:
        for ar in (True, False):
            M, N, K = MP.L.parse_shape(shape)
            B2 = D(8192, 16, 1024, 1)
            cases = [random_case(rng, gen, shape, dt, at, bt, ar, A1, B2)]
            run_case(P, f"wg/num/{shape}.{dt}.{at}.{bt}/{gen.__name__}/{'regs' if ar else 'desc'}", shape, dt, at, bt,
                     cases, ar, extra={"generator": gen.__name__})
    for shape, at, bt in (("m64n16k32", "s8", "s8"), ("m64n16k32", "u8", "s8"), ("m64n16k32", "s8", "u8"),
                          ("m64n16k32", "u8", "u8"), ("m64n24k32", "s8", "s8"), ("m64n16k256", "b1", "b1")):
        for sat in ((False, True) if at != "b1" else (False,)):
            for gen in (MP.g_int, MP.g_int_sat) if at != "b1" else (MP.g_int,):
                for ar in (True, False):
                    cases = [random_case(rng, gen, shape, "s32", at, bt, ar, A0, B0)]
                    cases += [random_case(rng, gen, shape, "s32", at, bt, ar, A1, B1)]
                    run_case(P, f"wg/num/{shape}.{'sat.' if sat else ''}s32.{at}.{bt}/{gen.__name__}/{'regs' if ar else 'desc'}",
                             shape, "s32", at, bt, cases, ar, sat=sat, extra={"generator": gen.__name__})
    # imm-scale, imm-trans, scale-d
    AT, BT = D(0, 1024, 256, 0), D(8192, 1024, 256, 0)  # MN-major, no swizzle (model)
    AT1, BT1 = D(0, 2048, 1024, 1), D(8192, 2048, 1024, 1)
    for shape, dt, at in (("m64n16k16", "f32", "f16"), ("m64n16k16", "f32", "bf16"), ("m64n16k8", "f32", "tf32"),
                          ("m64n16k32", "f32", "e4m3")):
        tr_ok = at in ("f16", "bf16")
        variants = [((-1, 1, 0, 0), (A0, B0), (False, False)), ((1, -1, 0, 0), (A0, B0), (False, False)),
                    ((-1, -1, 0, 0), (A1, B1), (False, False))]
        if tr_ok:
            variants += [((1, 1, 1, 0), (AT, B0), (True, False)), ((1, 1, 0, 1), (A0, BT), (False, True)),
                         ((1, 1, 1, 1), (AT1, BT1), (True, True)), ((-1, 1, 1, 1), (AT, BT), (True, True))]
        for imm, (ad, bd), mn in variants:
            for ar in (True, False):
                if ar and imm[2]:
                    continue
                cases = [random_case(rng, MP.g_small_ints, shape, dt, at, at, ar, ad, bd, mn=mn)]
                cases += [random_case(rng, MP.g_cancel, shape, dt, at, at, ar, ad, bd, mn=mn, scale_d=0)]
                run_case(P, f"wg/imm/{shape}.{dt}.{at}/{'_'.join(map(str, imm))}/{'regs' if ar else 'desc'}", shape, dt,
                         at, at, cases, ar, imm=imm, extra={"generator": "mixed", "mn_major": list(mn)})


def dump_sass(P, path):
    """SASS of one kernel per instruction (how sm_90a runs each wgmma form)."""
    import shutil
    import subprocess
    import tempfile
    if not shutil.which("ptxas") or not shutil.which("cuobjdump"):
        return
    seen = {}
    for name, m in P.meta.items():
        if m.get("status") == "recorded":
            seen.setdefault((m["instruction"], m.get("a_from_regs")), m["ptx"])
    with tempfile.TemporaryDirectory() as d, open(path, "w") as out:
        for (instr, regs), key in seen.items():
            p = os.path.join(d, "k.ptx")
            with open(p, "w") as f:
                f.write(P.ptx[key])
            subprocess.run(["ptxas", "-arch=sm_90a", p, "-o", p + ".cubin"], capture_output=True, text=True)
            s = subprocess.run(["cuobjdump", "-sass", p + ".cubin"], capture_output=True, text=True)
            keep = [ln.split("*/", 1)[1].strip() if ln.strip().startswith("/*") else ln.strip()
                    for ln in s.stdout.splitlines() if "/*" in ln and ";" in ln]
            keep = [k for k in keep if any(w in k for w in ("GMMA", "WARPGROUP", "F2FP", "HADD", "FADD", "FFMA", "HMMA",
                                                             "IMMA", "DEPBAR", "WARPSYNC", "BAR"))]
            out.write(f"==== {instr} (A from {'registers' if regs else 'descriptor'})\n" + "\n".join(keep) + "\n\n")


class DryBackend(MP.PtxvmBackend):
    """ptxvm (a check of the harness, never a golden)."""

    def run(self, ptx, kernel, grid, block, args, shared=0):
        mod = self.modules.get(ptx)
        if mod is None:
            mod = self.modules[ptx] = self.ptxvm.loads(ptx)
        mod.kernel(kernel).launch((grid, 1, 1), (block, 1, 1), list(args), shared_mem=shared)


class CubinBackend(MP.CupyBackend):
    """The driver's JIT first; if it refuses the sm_90a PTX, ptxas -arch=sm_90a and the cubin."""

    def run(self, ptx, kernel, grid, block, args, shared=0):
        if ptx not in self.modules:
            cp = self.cp
            mod = cp.cuda.function.Module()
            try:
                mod.load(ptx.encode())
            except Exception:  # noqa: BLE001
                import subprocess
                import tempfile
                with tempfile.TemporaryDirectory() as d:
                    p = os.path.join(d, "k.ptx")
                    with open(p, "w") as f:
                        f.write(ptx)
                    subprocess.run(["ptxas", "-arch=sm_90a", p, "-o", p + ".cubin"], check=True)
                    with open(p + ".cubin", "rb") as f:
                        mod = cp.cuda.function.Module()
                        mod.load(f.read())
            self.modules[ptx] = mod
        super().run(ptx, kernel, grid, block, args, shared)


def compact_experiments(P, rng):
    """The committed golden (small): descriptor layouts of every swizzle mode and major-ness with
    element codes, then per form one experiment of several CTAs, each CTA a different generator
    (adversarial data), A alternately from registers and from a 128B-swizzled descriptor; integer,
    b1, imm-scale, imm-trans and scale-d variants."""
    global IMG
    IMG = 16384
    t, k = "f16", 16
    labels = {"kmaj_none_l256_s128", "kmaj_sw128_s1024", "kmaj_sw64_s512", "kmaj_sw32_s256", "kmaj_sw128_start32",
              "kmaj_sw128_start256_base2", "mnmaj_none_l256_s128", "mnmaj_sw128_l1024_s2048", "mnmaj_sw64_l512_s1024",
              "mnmaj_sw32_l256_s512"}
    for label, desc, mn in layout_descs(BITS[t], 64):
        if label not in labels:
            continue
        cases = [{"img": codes_image(t, part), "adesc": 0, "bdesc": desc.encode(), "a": a_regs_from(identity_a(t, k), t, k),
                  "d": np.zeros((128, 8), np.uint32), "scale_d": 0} for part in code_parts(t)]
        run_case(P, f"wg/layout/B/{t}/m64n16k16/{label}", "m64n16k16", "f32", t, t, cases, True,
                 imm=(1, 1, 0, 1 if mn else 0), extra={"generator": "codes", "layout": label, "mn_major": mn})
    A0, B0 = D(0, 128, 256, 0), D(4096, 128, 256, 0)
    A1, B1 = D(0, 16, 1024, 1), D(8192, 16, 1024, 1)
    f8 = [MP.g_wide, MP.g_cancel, MP.g_gap, MP.g_special]
    f16 = [MP.g_cancel, MP.g_special]
    forms = [("m64n8k16", "f32", "f16", "f16", f16, True), ("m64n8k16", "f16", "f16", "f16", f16, False),
             ("m64n8k16", "f32", "bf16", "bf16", f16, False), ("m64n8k8", "f32", "tf32", "tf32", f16, True),
             ("m64n8k32", "f32", "e4m3", "e4m3", f8, False), ("m64n8k32", "f16", "e4m3", "e4m3", f8, True),
             ("m64n8k32", "f32", "e5m2", "e4m3", f8, True), ("m64n8k32", "f16", "e5m2", "e5m2", f8[:3], False)]
    for shape, dt, at, bt, gens, ar in forms:
        cases = [random_case(rng, g, shape, dt, at, bt, ar, A1, B1) for g in gens]
        run_case(P, f"wg/num/{shape}.{dt}.{at}.{bt}/mix/{'regs' if ar else 'desc'}", shape, dt, at, bt, cases, ar,
                 extra={"generator": "mix:" + ",".join(g.__name__ for g in gens)})
    for shape, at, bt, sat, ar in (("m64n8k32", "s8", "s8", True, True), ("m64n8k32", "u8", "s8", False, False),
                                   ("m64n8k256", "b1", "b1", False, True)):
        gens = (MP.g_int, MP.g_int_sat) if at != "b1" else (MP.g_int,)
        cases = [random_case(rng, g, shape, "s32", at, bt, ar, A0, B0) for g in gens]
        run_case(P, f"wg/num/{shape}.{'sat.' if sat else ''}s32.{at}.{bt}/mix/{'regs' if ar else 'desc'}", shape, "s32",
                 at, bt, cases, ar, sat=sat, extra={"generator": "mix"})
    AT, BT = D(0, 256, 128, 0), D(8192, 256, 128, 0)       # MN-major, no swizzle
    AT1, BT1 = D(0, 1024, 2048, 1), D(8192, 1024, 2048, 1)  # MN-major, 128B swizzle
    for shape, dt, at, imm, (ad, bd), mn in (("m64n8k16", "f32", "f16", (-1, 1, 1, 0), (AT, B0), (True, False)),
                                             ("m64n8k16", "f32", "bf16", (1, -1, 0, 1), (A1, BT1), (False, True)),
                                             ("m64n8k16", "f16", "f16", (1, 1, 1, 1), (AT1, BT), (True, True)),
                                             ("m64n8k32", "f32", "e4m3", (-1, -1, 0, 0), (A0, B1), (False, False))):
        cases = [random_case(rng, MP.g_cancel, shape, dt, at, at, False, ad, bd, mn=mn),
                 random_case(rng, MP.g_wide, shape, dt, at, at, False, ad, bd, mn=mn, scale_d=0)]
        run_case(P, f"wg/imm/{shape}.{dt}.{at}/{'_'.join(map(str, imm))}/desc", shape, dt, at, at, cases, False, imm=imm,
                 extra={"generator": "g_cancel,g_wide(scale-d 0)", "mn_major": list(mn)})


def baseoff_experiments(P, rng):
    """The base offset with every swizzle mode (B from element codes, A = identity)."""
    global IMG
    IMG = 16384
    t, k = "f16", 16
    for label, desc in (("sw128_start384_base3", D(384, 16, 1024, 1, 3)), ("sw128_start384_base1", D(384, 16, 1024, 1, 1)),
                        ("sw64_start128_base1", D(128, 16, 512, 2, 1)), ("sw64_start256_base2", D(256, 16, 512, 2, 2)),
                        ("sw64_start128_base0", D(128, 16, 512, 2, 0)), ("sw32_start128_base1", D(128, 16, 256, 3, 1)),
                        ("sw32_start128_base0", D(128, 16, 256, 3, 0)), ("mn_sw128_start256_base2", D(256, 1024, 2048, 1, 2))):
        mn = label.startswith("mn_")
        cases = [{"img": codes_image(t, part), "adesc": 0, "bdesc": desc.encode(), "a": a_regs_from(identity_a(t, k), t, k),
                  "d": np.zeros((128, 8), np.uint32), "scale_d": 0} for part in code_parts(t)]
        run_case(P, f"wg/layout/B/{t}/m64n16k16/{label}", "m64n16k16", "f32", t, t, cases, True,
                 imm=(1, 1, 0, 1 if mn else 0), extra={"generator": "codes", "layout": label, "mn_major": mn})


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", action="append")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--name", default="wgmma_probe")
    ap.add_argument("--sections", default="layout,num")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    backend = DryBackend() if a.dry_run else CubinBackend()
    P = MP.Probe(backend, a.only)
    t0 = time.time()
    rng = np.random.default_rng(90)
    for sec in a.sections.split(","):
        try:
            {"layout": layout_experiments, "num": numeric_experiments, "compact": compact_experiments,
             "baseoff": baseoff_experiments}[sec](P, rng)
        except Exception:  # noqa: BLE001
            traceback.print_exc()
    arrays = dict(P.arrays)
    for k, ptx in P.ptx.items():
        arrays[f"ptx|{k}"] = np.frombuffer(ptx.encode(), np.uint8)
    np.savez_compressed(os.path.join(a.out, f"{a.name}.npz"), **arrays)
    meta = {"format": 1, "script": "tools/device/wgmma_probe.py", "device": MP.device_info(backend),
            "seconds": round(time.time() - t0, 1), "experiments": P.meta}
    with open(os.path.join(a.out, f"{a.name}.json"), "w") as f:
        json.dump(meta, f, indent=1)
    if not a.dry_run:
        try:
            dump_sass(P, os.path.join(a.out, f"{a.name}_sass.txt"))
        except Exception:  # noqa: BLE001
            traceback.print_exc()
    n_ok = sum(1 for m in P.meta.values() if m["status"] == "recorded")
    print(f"{n_ok}/{len(P.meta)} experiments recorded in {time.time() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
