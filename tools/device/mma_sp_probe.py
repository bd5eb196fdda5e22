#!/usr/bin/env python3
"""GPU experiments for the sparse warp-level MMA (mma.sp, mma.sp::ordered_metadata): fragment
and metadata layouts, the sparsity selector, and the arithmetic on crafted and random data.

    python3 tools/device/mma_sp_probe.py --out DIR [--only SUBSTR] [--dry-run]

Same harness and output format as tools/device/mma_probe.py (DIR/<name>.npz and .json, one PTX
kernel per experiment with its raw register inputs and what the GPU wrote); the fragments are
placed with the layout tables of ptxvm/semantics/families/matrix.py, and the raw registers are
recorded, so a wrong table shows as a mismatch rather than a wrong golden.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mma_probe as MP  # noqa: E402

L = MP.L

# (shape, atype, btype, ctype/dtype pairs)
FORMS = [
    ("m16n8k16", "f16", "f16", (("f32", "f32"), ("f16", "f16"))),
    ("m16n8k32", "f16", "f16", (("f32", "f32"), ("f16", "f16"))),
    ("m16n8k16", "bf16", "bf16", (("f32", "f32"),)),
    ("m16n8k32", "bf16", "bf16", (("f32", "f32"),)),
    ("m16n8k8", "tf32", "tf32", (("f32", "f32"),)),
    ("m16n8k16", "tf32", "tf32", (("f32", "f32"),)),
    ("m16n8k64", "e4m3", "e4m3", (("f32", "f32"),)),
    ("m16n8k64", "e5m2", "e4m3", (("f32", "f32"),)),
    ("m16n8k32", "s8", "s8", (("s32", "s32"),)),
    ("m16n8k32", "u8", "s8", (("s32", "s32"),)),
    ("m16n8k64", "s8", "s8", (("s32", "s32"),)),
    ("m16n8k64", "u8", "u8", (("s32", "s32"),)),
    ("m16n8k64", "s4", "s4", (("s32", "s32"),)),
    ("m16n8k64", "u4", "s4", (("s32", "s32"),)),
    ("m16n8k128", "s4", "s4", (("s32", "s32"),)),
    ("m16n8k128", "u4", "u4", (("s32", "s32"),)),
]
FLOATS = ("f16", "bf16", "tf32", "e4m3", "e5m2")


def instr_of(variant, shape, at, bt, ct, dt, sat=False):
    s = ".satfinite" if sat else ""
    return f"mma.{variant}.sync.aligned.{shape}.row.col{s}.{dt}.{at}.{bt}.{ct}"


def _storage(t):
    return MP.FMT[t][2] if t in MP.FMT else (np.uint8 if MP.INTS[t] <= 8 else np.uint32)


def random_kept(rng, meta, bits, W, ordered=True, per_row=True):
    """Kept positions [W, M, groups, 2] (tf32: [.., 1] element 0/1) and their nibbles."""
    M, G = meta.rows, meta.nibbles
    shape = (W, M if per_row else 1, G)
    if bits == 32:
        pos = rng.integers(0, 2, shape + (1,))
    else:
        choices = np.array([(i, j) for i in range(4) for j in range(4) if i < j])
        pos = choices[rng.integers(0, len(choices), shape)]
    pos = np.broadcast_to(pos, (W, M, G, pos.shape[-1])).copy()
    nib = L.sparse_encode(pos, meta, bits) if bits == 32 else pos[..., 0] | (pos[..., 1] << 2)
    if not ordered:  # any nibble at all (duplicates, reversed pairs; for tf32 any bits)
        nib = rng.integers(0, 16, (W, M, G))
    return nib


def fill_valid(rng, W, bits):
    """Every nibble of every lane a well-formed (ordered) pattern."""
    if bits == 32:
        nib = np.where(rng.integers(0, 2, (W, 32, 8)) == 0, 0b0100, 0b1110)
    else:
        choices = np.array([i | (j << 2) for i in range(4) for j in range(4) if i < j])
        nib = choices[rng.integers(0, len(choices), (W, 32, 8))]
    sh = (4 * np.arange(8)).astype(np.uint64)
    return np.bitwise_or.reduce(nib.astype(np.uint64) << sh, axis=-1).astype(np.uint32)


def fill_bits(rng, W):
    return rng.integers(0, 1 << 32, (W, 32), dtype=np.uint64).astype(np.uint32)


# ---------------------------------------------------------------------------- generators
# gen(rng, W, form) -> (a_comp [W,M,K/2], b [W,K,N], c [W,M,N], nibbles [W,M,groups])

def _dense_gen(mpgen, special_b=False, ordered=True):
    """Run a dense mma_probe generator on the compressed problem (M x K/2 times K/2 x N) and
    spread B's rows to the kept positions (one pattern per warp, shared by the rows); the rows of
    B that no element selects get moderate random values (or specials)."""
    def gen(rng, W, f):
        shape, at, bt, ct, dt = f
        M, N, K = L.parse_shape(shape)
        meta = L.sparse_meta(shape, at)
        bits = L.BITS[at]
        a, bc, c = mpgen(rng, W, (M, N, K // 2), (at, bt, ct, dt))
        nib = random_kept(rng, meta, bits, W, ordered, per_row=False)
        cols = L.sparse_columns(nib, meta, bits)[:, 0, :]  # [W, K/2] (the same for every row)
        if bt in MP.FMT:
            b = MP._moderate(rng, bt, (W, K, N), 3)
            if special_b:
                sp = MP.g_special(rng, W, (M, N, K), (at, bt, ct, dt))[1]
                b = np.where(rng.random((W, K, N)) < 0.3, sp, b)
        else:
            b = MP.g_int(rng, W, (M, N, K), (at, bt, ct, dt))[1]
        b = b.astype(bc.dtype)
        for w in range(W):
            b[w, cols[w], :] = bc[w]
        return a, b, c, nib
    gen.__name__ = mpgen.__name__ + ("_bspecial" if special_b else "")
    return gen


def g_layout(rng, W, f):
    """Per-row random kept patterns; A's kept elements are distinct small weights by position in
    the group and B's rows are powers of 3 by position: D names every selected (row, k)."""
    shape, at, bt, ct, dt = f
    M, N, K = L.parse_shape(shape)
    meta = L.sparse_meta(shape, at)
    bits = L.BITS[at]
    nib = random_kept(rng, meta, bits, W)
    j = np.arange(K // 2)
    if at in ("s4", "u4"):
        av = np.broadcast_to(1 + (j % meta.kept), (W, M, K // 2)).astype(np.float64)  # 1..4
        bv = np.broadcast_to(((np.arange(K) % meta.group) // 2 == 0) * 1 + ((np.arange(K) % meta.group) // 2) * 4 % 15,
                             (N, K)).T.astype(np.float64)
        bv = np.broadcast_to(bv, (W, K, N)).copy()
        bv[:, :, 1::2] = rng.integers(0, 8, (W, K, N // 2))
    else:
        av = np.broadcast_to(np.where(j % meta.kept == 0, 1.0, 16.0 if at != "e4m3" else 8.0), (W, M, K // 2))
        bv = np.broadcast_to((3.0 ** (np.arange(K) % meta.group))[:, None], (K, N)).copy()
        bv = np.broadcast_to(bv, (W, K, N)).copy()
        bv[:, :, 1::2] = rng.integers(-3, 4, (W, K, N // 2))
    if at in MP.FMT:
        a, b = MP.encode_rn(av, at), MP.encode_rn(bv, bt)
        c = MP.encode_rn(np.zeros((W, M, N)), ct)
    else:
        a = (av.astype(np.int64) & ((1 << MP.INTS[at]) - 1)).astype(_storage(at))
        b = (bv.astype(np.int64) & ((1 << MP.INTS[bt]) - 1)).astype(_storage(bt))
        c = np.zeros((W, M, N), np.uint32)
    return a, b, c, nib


def g_small(rng, W, f, ordered=True):
    """Small integers everywhere, per-row random patterns: exact results."""
    shape, at, bt, ct, dt = f
    M, N, K = L.parse_shape(shape)
    meta = L.sparse_meta(shape, at)
    nib = random_kept(rng, meta, L.BITS[at], W, ordered)
    if at in MP.FMT:
        a = MP.encode_rn(rng.integers(-3, 4, (W, M, K // 2)).astype(np.float64), at)
        b = MP.encode_rn(rng.integers(-3, 4, (W, K, N)).astype(np.float64), bt)
        c = MP.encode_rn(rng.integers(-8, 9, (W, M, N)).astype(np.float64), ct)
    else:
        a, _, c = MP.g_int(rng, W, (M, N, K // 2), (at, bt, ct, dt))
        b = MP.g_int(rng, W, (M, N, K), (at, bt, ct, dt))[1]
    return a, b, c, nib


def g_unordered(rng, W, f):
    return g_small(rng, W, f, ordered=False)


def g_mix(gens):
    """One warp from each generator, side by side (one experiment instead of many)."""
    def gen(rng, W, f):
        parts = [g(rng, 1, f) for g in gens]
        return tuple(np.concatenate([p[i] for p in parts]) for i in range(4))
    gen.__name__ = "mix:" + ",".join(g.__name__ for g in gens)
    return gen


FLOAT_GENS = [(MP.g_wide, 4), (MP.g_cancel, 4), (MP.g_gap, 4), (MP.g_special, 4), (MP.g_extreme, 4),
              (MP.g_zero, 4), (MP.g_ties, 4), (MP.g_near, 4)]
INT_GENS = [(MP.g_int, 4), (MP.g_int_sat, 4)]


def run_sp(P, name, instr, f, sel, gen, W, rng):
    shape, at, bt, ct, dt = f
    meta = L.sparse_meta(shape, at)
    A, B, C, D = L.mma_sp_fragments(shape, at, bt, ct, dt)
    a, b, c, nib = gen(rng, W, f)
    shp = lambda x, fr: x.reshape(W, 1, fr.rows, fr.cols)
    ra, rb, rc = (MP.regs_from_matrix(shp(x, fr), fr) for x, fr in ((a, A), (b, B), (c, C)))
    if sel < meta.selectors:
        e = L.sparse_registers(nib, meta, sel, fill_bits(rng, W))[:, :, None]
    else:  # a selector the ISA does not give (ptxas takes 0..3 for m16n8k32 .f16): valid nibbles everywhere
        e = fill_valid(rng, W, L.BITS[at])[:, :, None]
    rd = np.full((W, 32, D.nregs), 0xA5A5A5A5, np.uint32)
    ops = [("a", A.nregs, 32, "in"), ("b", B.nregs, 32, "in"), ("c", C.nregs, 32, "in"), ("e", 1, 32, "in"),
           ("d", D.nregs, 32, "out")]
    kname = "sp_" + hashlib.sha1((instr + str(sel)).encode()).hexdigest()[:10]
    body = MP.frag_kernel(kname, instr + " {d}, {a}, {b}, {c}, %e0, " + str(sel), ops)
    ptx = MP.HEAD.format(ver="8.7") + body
    P.launch(name, {"kind": "mma.sp", "instruction": instr, "selector": sel, "generator": gen.__name__, "warps": W},
             ptx, kname, W // 4 if W % 4 == 0 else W, 128 if W % 4 == 0 else 32, [ra, rb, rc, e, rd],
             ["a", "b", "c", "e", "d"], keep={"d"})
    P.sass_ptx.setdefault(instr, ptx)


def sp_experiments(P, rng, compact=False):
    """Every form, variant, .satfinite and selector; compact: one warp per experiment and fewer
    of them (the committed golden), else several warps (the exploratory recording)."""
    w = (lambda n: 1) if compact else (lambda n: n)
    for shape, at, bt, cds in FORMS:
        meta = L.sparse_meta(shape, at)
        for ct, dt in cds:
            f = (shape, at, bt, ct, dt)
            sats = (False, True) if ct == "s32" else (False,)
            for variant in ("sp", "sp::ordered_metadata"):
                for sat in sats:
                    instr = instr_of(variant, shape, at, bt, ct, dt, sat)
                    sels = range(meta.selectors) if not (compact and variant == "sp") else (0,)
                    for sel in sels:
                        if compact and variant == "sp":
                            continue  # selector 0 of .sp: the mixed numerics experiment below
                        run_sp(P, f"sp/{instr}/{sel}/g_layout", instr, f, sel, g_layout, w(4), rng)
                        if not compact:
                            run_sp(P, f"sp/{instr}/{sel}/g_small", instr, f, sel, g_small, 4, rng)
                    if not compact or variant == "sp":
                        run_sp(P, f"sp/{instr}/0/g_unordered", instr, f, 0, g_unordered, w(4), rng)
                    if variant != "sp" or (compact and sat):
                        continue
                    gens = FLOAT_GENS if at in FLOATS else INT_GENS
                    if compact:
                        mix = [_dense_gen(g) for g, _ in gens]
                        if at in FLOATS:
                            mix += [_dense_gen(MP.g_small_ints, True), _dense_gen(MP.g_cancel, True)]
                        run_sp(P, f"sp/{instr}/0/mix", instr, f, 0, g_mix(mix), len(mix), rng)
                        continue
                    for g, W in gens:
                        run_sp(P, f"sp/{instr}/0/{g.__name__}", instr, f, 0, _dense_gen(g), w(W), rng)
                    if at in FLOATS:
                        run_sp(P, f"sp/{instr}/0/g_small_bspecial", instr, f, 0, _dense_gen(MP.g_small_ints, True), w(4), rng)
                        run_sp(P, f"sp/{instr}/0/g_cancel_bspecial", instr, f, 0, _dense_gen(MP.g_cancel, True), w(4), rng)


def quirk_experiments(P, rng):
    """Selectors 2 and 3 of m16n8k32 .f16 with an .f32 accumulator: ptxas accepts them, the H200
    stops with an illegal instruction (a sticky error: run last, in its own process)."""
    f = ("m16n8k32", "f16", "f16", "f32", "f32")
    instr = instr_of("sp::ordered_metadata", *f[:3], "f32", "f32")
    run_sp(P, f"sp/{instr}/2/g_small_quirk", instr, f, 2, g_small, 1, rng)


def compact_experiments(P, rng):
    """The committed golden (small; the conformance family matrix_sp has every form and selector
    on moderate data): adversarial numerics for every floating-point form in one experiment each
    (one warp per generator, B's unselected rows random or special), and .sp with metadata that
    is not ordered (duplicate and reversed indices)."""
    gens = [MP.g_cancel, MP.g_gap, MP.g_special, MP.g_extreme]
    for shape, at, bt, cds in FORMS:
        if at not in FLOATS:
            continue
        for ct, dt in cds:
            f = (shape, at, bt, ct, dt)
            instr = instr_of("sp", shape, at, bt, ct, dt)
            mix = [_dense_gen(g) for g in gens] + [_dense_gen(MP.g_cancel, True)]
            run_sp(P, f"sp/{instr}/0/mix", instr, f, 0, g_mix(mix), len(mix), rng)
    for shape, at, bt, ct in (("m16n8k16", "f16", "f16", "f32"), ("m16n8k32", "s8", "s8", "s32"),
                              ("m16n8k8", "tf32", "tf32", "f32")):
        f = (shape, at, bt, ct, ct)
        instr = instr_of("sp", shape, at, bt, ct, ct)
        run_sp(P, f"sp/{instr}/0/g_unordered", instr, f, 0, g_unordered, 1, rng)


def dump_sass(P, path):
    if not shutil.which("ptxas") or not shutil.which("cuobjdump"):
        return
    with tempfile.TemporaryDirectory() as d, open(path, "w") as out:
        for instr, ptx in P.sass_ptx.items():
            if "ordered" in instr or "satfinite" in instr:
                continue
            p = os.path.join(d, "k.ptx")
            with open(p, "w") as f:
                f.write(ptx)
            r = subprocess.run(["ptxas", "-arch=sm_90", p, "-o", os.path.join(d, "k.cubin")], capture_output=True, text=True)
            s = subprocess.run(["cuobjdump", "-sass", os.path.join(d, "k.cubin")], capture_output=True, text=True)
            keep = [ln.strip() for ln in s.stdout.splitlines() if "/*" in ln and ";" in ln]
            keep = [ln.split("*/", 1)[1].strip() if ln.startswith("/*") else ln for ln in keep]
            keep = [k for k in keep if not k.startswith(("LDG", "STG", "IMAD", "MOV", "ULDC", "S2R", "IADD", "LEA", "SHF",
                                                         "NOP", "BRA", "EXIT", "CS2R", "LOP3"))]
            out.write(f"==== {instr}\n{r.stderr.strip()}\n" + "\n".join(keep) + "\n\n")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", action="append")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--name", default="matrix_sp_probe")
    ap.add_argument("--compact", action="store_true", help="the small golden: adversarial numerics only")
    ap.add_argument("--quirk", action="store_true", help="only the selector ptxas accepts but the GPU traps on")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    backend = MP.PtxvmBackend() if a.dry_run else MP.CupyBackend()
    P = MP.Probe(backend, a.only)
    t0 = time.time()
    try:
        if a.compact:
            compact_experiments(P, np.random.default_rng(2025))
        elif a.quirk:
            quirk_experiments(P, np.random.default_rng(7))
        else:
            sp_experiments(P, np.random.default_rng(2024))
    except Exception:  # noqa: BLE001
        traceback.print_exc()
    arrays = dict(P.arrays)
    for k, ptx in P.ptx.items():
        arrays[f"ptx|{k}"] = np.frombuffer(ptx.encode(), np.uint8)
    np.savez_compressed(os.path.join(a.out, f"{a.name}.npz"), **arrays)
    meta = {"format": 1, "script": "tools/device/mma_sp_probe.py", "device": MP.device_info(backend),
            "seconds": round(time.time() - t0, 1), "experiments": P.meta}
    with open(os.path.join(a.out, f"{a.name}.json"), "w") as f:
        json.dump(meta, f, indent=1)
    if not a.dry_run:
        try:
            dump_sass(P, os.path.join(a.out, "matrix_sp_sass.txt"))
        except Exception:  # noqa: BLE001
            traceback.print_exc()
    n_ok = sum(1 for m in P.meta.values() if m["status"] == "recorded")
    print(f"{n_ok}/{len(P.meta)} experiments recorded in {time.time() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
