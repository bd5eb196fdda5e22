"""Warp-level matrix instructions: fragment layouts, GEMMs against NumPy, and the tensor cores'
arithmetic against what an H200 did.

tests/goldens/matrix/*.{npz,json} were written on the GPU by tools/device/mma_probe.py (mma, wmma,
ldmatrix/stmatrix), mma_sp_probe.py (mma.sp), wgmma_probe.py (wgmma) and wmma_colcd_probe.py:
every experiment is a PTX kernel with its inputs and the outputs the GPU wrote. `replay` runs the
same kernel on ptxvm and compares every output bit for bit. The other tests build inputs here
(index codes, exactly representable values) and need no GPU.
"""
from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import ptxvm
from ptxvm.engine.matrix.mma import from_matrix, to_matrix
from ptxvm.numerics import mma as MM
from ptxvm.semantics.families import matrix as L

GOLDEN = pathlib.Path(__file__).resolve().parents[1] / "goldens" / "matrix"


# ------------------------------------------------------------------------------ golden replay

STEMS = sorted(p.stem for p in GOLDEN.glob("*.json"))  # matrix_probe (layouts, numerics), matrix_probe2 (crafted, holdout)
_FILES: dict = {}


def _golden(stem: str):
    if stem not in _FILES:
        _FILES[stem] = (np.load(GOLDEN / f"{stem}.npz"), json.loads((GOLDEN / f"{stem}.json").read_text()))
    return _FILES[stem]


_MODULES: dict = {}


def replay(z, name: str, m: dict, jit=None) -> list[str]:
    """Run experiment `name` on ptxvm; the names of outputs that differ from the GPU's (`jit`:
    the launch option, None for the default, the compiled tensor-core kernels)."""
    ptx = bytes(z[f"ptx|{m['ptx']}"]).decode()
    mod = _MODULES.get(ptx)
    if mod is None:
        mod = _MODULES[ptx] = ptxvm.loads(ptx)
    args = [np.array(z[f"{name}|{k}.in"]) for k in m["args"]]
    mod.kernel(m["kernel"]).launch((m["grid"], 1, 1), (m["block"], 1, 1), args, shared_mem=m.get("shared", 0), jit=jit)
    bad = []
    for k, a in zip(m["args"], args):
        key = f"{name}|{k}.out"
        if key in z.files and not np.array_equal(a, z[key]):
            bad.append(k)
    return bad


def _meta(stem):
    return json.loads((GOLDEN / f"{stem}.json").read_text())["experiments"]


def _forms():
    """(file, experiment group) pairs: mma, mma.sp and wgmma experiments grouped by instruction (one
    test per form)."""
    out = set()
    for stem in STEMS:
        for n, m in _meta(stem).items():
            if m["kind"] in ("mma", "mma.sp", "wgmma") and m["status"] == "recorded":
                out.add((stem, n.rsplit("/", 1)[0] if not n.startswith("crafted/") else n))
    return sorted(out)


def _memory_experiments():
    return sorted((stem, n) for stem in STEMS for n, m in _meta(stem).items()
                  if m["kind"] in ("wmma", "ldst") and m["status"] == "recorded")


@pytest.mark.parametrize("stem,form", _forms())
def test_mma_replays_gpu(stem, form):
    z, meta = _golden(stem)
    exps = meta["experiments"]
    names = [n for n, m in exps.items() if m["status"] == "recorded" and (n == form or n.rsplit("/", 1)[0] == form)]
    bad = {n: replay(z, n, exps[n]) for n in names}
    assert names and not {k: v for k, v in bad.items() if v}


def _reference_sample():
    """One recorded experiment of every form (first of each group): replayed on the NumPy path."""
    out = {}
    for stem, form in _forms():
        out.setdefault((stem, form.split("/")[1] if "/" in form else form), (stem, form))
    return sorted(out.values())[::3]


@pytest.mark.parametrize("stem,form", _reference_sample())
def test_numpy_reference_path_replays_gpu(stem, form):
    """The NumPy specification (launch option jit=False) also matches the GPU: a sample of forms."""
    z, meta = _golden(stem)
    exps = meta["experiments"]
    name = next(n for n, m in exps.items() if m["status"] == "recorded" and (n == form or n.rsplit("/", 1)[0] == form))
    assert replay(z, name, exps[name], jit=False) == []


@pytest.mark.parametrize("stem,name", _memory_experiments())
def test_memory_forms_replay_gpu(stem, name):
    z, meta = _golden(stem)
    assert replay(z, name, meta["experiments"][name]) == []


def test_goldens_cover_every_section():
    kinds = set()
    for stem in STEMS:
        z, meta = _golden(stem)
        assert meta["device"]["gpu"].startswith("NVIDIA H")
        assert all(m["status"] == "recorded" for m in meta["experiments"].values())
        kinds |= {n.split("/")[0] for n in meta["experiments"]}
    assert {"mma", "onehot", "ldst", "wmma"} <= kinds


# ------------------------------------------------------------------------------ numerics rules
# The rule behind the goldens, shown on hand-made cases (f16 inputs, f32 accumulator).

def _f16(x):
    return np.asarray(x, np.float64).astype(np.float16).view(np.uint16)


def _f32(x):
    return np.asarray(x, np.float32).view(np.uint32)


def _dot(avals, bvals, c, atype="f16", ctype="f32", dtype="f32", shape="m16n8k16"):
    """One output element: row `avals` of A, column `bvals` of B (padded with zeros to K)."""
    M, N, K = L.parse_shape(shape)
    enc = _f16 if atype == "f16" else None
    a = np.zeros((1, M, K), np.uint16)
    b = np.zeros((1, K, N), np.uint16)
    a[0, 0, :len(avals)] = enc(avals)
    b[0, :len(bvals), 0] = enc(bvals)
    cm = np.zeros((1, M, N), np.uint32 if ctype == "f32" else np.uint16)
    cm[0, 0, 0] = (_f32 if ctype == "f32" else _f16)(c)
    d = MM.mma(a, b, cm, shape, atype, atype, ctype, dtype)
    return d[0, 0, 0]


def _val32(bits):
    return float(np.uint32(bits).view(np.float32))


def test_alignment_keeps_25_bits_below_the_largest_exponent():
    # products 2^12 and -2^12 cancel; the grid is 2^(12-25) = 2^-13 whatever survives
    assert _val32(_dot([2.0 ** 6, -2.0 ** 6, 2.0 ** -7], [2.0 ** 6, 2.0 ** 6, 2.0 ** -6], 0.0)) == 2.0 ** -13
    assert _val32(_dot([2.0 ** 6, -2.0 ** 6, 2.0 ** -7], [2.0 ** 6, 2.0 ** 6, 2.0 ** -7], 0.0)) == 0.0
    # the position of a term in k does not matter: one alignment for all of K (and C)
    assert _val32(_dot([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2.0 ** 6, -2.0 ** 6, 2.0 ** -7],
                       [0] * 13 + [2.0 ** 6, 2.0 ** 6, 2.0 ** -7], 0.0)) == 0.0
    assert _val32(_dot([2.0 ** -7], [2.0 ** -7], 2.0 ** 12)) == 2.0 ** 12  # C is aligned with them


def test_truncation_is_toward_zero_per_term_and_final():
    # -2^-30 under 1.0 is below the grid 2^-25: dropped toward zero, so 1.0 stays 1.0
    # (a floor would give 1 - 2^-25, then 1 - 2^-24)
    assert _val32(_dot([2.0 ** -15], [-2.0 ** -15], 1.0)) == 1.0
    # 1 + 1.5 ulp (exact after alignment) rounds toward zero to 1 + 1 ulp (nearest would be +2)
    assert _val32(_dot([1.5 * 2.0 ** -12], [2.0 ** -11], 1.0)) == float(np.float32(1.0 + 2.0 ** -23))


def test_f16_accumulator_rounds_to_nearest_even():
    # C = 1 (f16), product 2^-11: an exact tie between 1 and 1+2^-10 -> even (1)
    d = _dot([2.0 ** -11], [1.0], 1.0, ctype="f16", dtype="f16")
    assert d == _f16(1.0)
    # a term 2^-24 below the tie is inside the 25 kept bits: rounds up
    d = _dot([2.0 ** -11, 2.0 ** -12], [1.0, 2.0 ** -12], 1.0, ctype="f16", dtype="f16")
    assert d == _f16(1.0 + 2.0 ** -10)


def test_special_values():
    inf = np.inf
    assert np.uint32(_dot([inf], [0.0], 1.0)) == 0x7FFFFFFF  # inf * 0: the canonical NaN
    assert np.uint32(_dot([inf, 1.0], [1.0, -inf], 0.0)) == 0x7FFFFFFF  # inf - inf
    assert _val32(_dot([inf], [2.0], 1.0)) == inf
    assert np.uint32(_dot([-0.0], [1.0], -0.0)) == 0  # zero results are +0
    # overflow gives infinity although the rounding is toward zero
    bf = lambda e: np.uint16((127 + e) << 7)  # bf16 2^e
    one = lambda e: (np.array([[[bf(100)]]]), np.array([[[bf(e)]]]), np.array([[[_f32(0.0)]]]))
    assert MM.hmma(*one(27), "bf16", "bf16")[0, 0, 0] == 0x7F000000  # 2^127
    assert MM.hmma(*one(28), "bf16", "bf16")[0, 0, 0] == 0x7F800000  # 2^128: inf, not the largest finite


# ------------------------------------------------------------------------------ small GEMMs

def _mma_kernel(instr, na, nb, nc, nd, rbits=32):
    def regs(p, n):
        return f".reg .b{rbits if p != 'x' else 32} %{p}<{n}>;"

    lines = [".version 8.7", ".target sm_90", ".address_size 64",
             ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)", "{",
             ".reg .b32 %t<4>;", ".reg .b64 %base, %off, %addr;"]
    widths = {}
    for p, n in (("a", na), ("b", nb), ("c", nc), ("d", nd)):
        w = rbits[p] if isinstance(rbits, dict) else rbits
        widths[p] = w
        lines.append(f".reg .b{w} %{p}<{n}>;")
    lines += ["mov.u32 %t0, %ctaid.x;", "mov.u32 %t1, %ntid.x;", "mov.u32 %t2, %tid.x;", "mad.lo.u32 %t3, %t0, %t1, %t2;"]
    for p, n in (("a", na), ("b", nb), ("c", nc)):
        B = widths[p] // 8
        lines += [f"ld.param.u64 %base, [p{p}];", "cvta.to.global.u64 %base, %base;", f"mul.wide.u32 %off, %t3, {n * B};",
                  "add.s64 %addr, %base, %off;"]
        lines += [f"ld.global.b{widths[p]} %{p}{i}, [%addr+{i * B}];" for i in range(n)]
    br = lambda p, n: "{" + ", ".join(f"%{p}{i}" for i in range(n)) + "}"
    lines.append(f"{instr} {br('d', nd)}, {br('a', na)}, {br('b', nb)}, {br('c', nc)};")
    B = widths["d"] // 8
    lines += ["ld.param.u64 %base, [pd];", "cvta.to.global.u64 %base, %base;", f"mul.wide.u32 %off, %t3, {nd * B};",
              "add.s64 %addr, %base, %off;"]
    lines += [f"st.global.b{widths['d']} [%addr+{i * B}], %d{i};" for i in range(nd)]
    lines += ["ret;", "}"]
    return "\n".join(lines) + "\n"


ENC = {"f16": lambda x: x.astype(np.float16).view(np.uint16), "f32": lambda x: x.astype(np.float32).view(np.uint32),
       "f64": lambda x: x.astype(np.float64).view(np.uint64), "s8": lambda x: x.astype(np.int8).view(np.uint8),
       "u8": lambda x: x.astype(np.uint8), "s32": lambda x: x.astype(np.int32).view(np.uint32),
       "bf16": lambda x: (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16),
       "tf32": lambda x: x.astype(np.float32).view(np.uint32),
       "s4": lambda x: (x.astype(np.int64) & 15).astype(np.uint8), "u4": lambda x: x.astype(np.uint8),
       "e4m3": None}
DEC = {"f16": lambda b: b.view(np.float16).astype(np.float64), "f32": lambda b: b.view(np.float32).astype(np.float64),
       "f64": lambda b: b.view(np.float64), "s32": lambda b: b.view(np.int32).astype(np.float64)}

GEMMS = [
    "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16",
    "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
    "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32", "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64",
    "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64", "mma.sync.aligned.m8n8k4.col.row.f32.f16.f16.f32",
    "mma.sync.aligned.m8n8k4.row.row.f16.f16.f16.f16", "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32",
    "mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32", "mma.sync.aligned.m8n8k32.row.col.satfinite.s32.s4.s4.s32",
]


@pytest.mark.parametrize("instr", GEMMS)
def test_small_gemm_matches_numpy(instr):
    """Small integers (every product and sum exact): D = A B + C through the engine, with the
    fragments placed by the layout tables (two warps, different data)."""
    mods = instr.split(".")
    shape = mods[3]
    lay = [x for x in mods if x in ("row", "col")]
    types = [x for x in mods if x in L.BITS]
    dt, at, bt, ct = types
    A, B, C, D = L.mma_fragments(shape, at, bt, ct, dt, *lay)
    rng = np.random.default_rng(7)
    W = 2
    G = A.groups
    lo = 0 if at.startswith("u") else -3
    av = rng.integers(lo, 4, (W, G, A.rows, A.cols)).astype(np.float64)
    bv = rng.integers(-3 if not bt.startswith("u") else 0, 4, (W, G, B.rows, B.cols)).astype(np.float64)
    cv = rng.integers(-20, 20, (W, G, C.rows, C.cols)).astype(np.float64)
    rdt = lambda f: np.uint64 if f.reg_bits == 64 else np.uint32
    ra, rb, rc = (from_matrix(ENC[t](v), f, rdt(f)) for v, t, f in ((av, at, A), (bv, bt, B), (cv, ct, C)))
    rd = np.zeros((W, 32, D.nregs), rdt(D))
    widths = {p: f.reg_bits for p, f in (("a", A), ("b", B), ("c", C), ("d", D))}
    mod = ptxvm.loads(_mma_kernel(instr, A.nregs, B.nregs, C.nregs, D.nregs, widths))
    mod.kernel("k").launch((W, 1, 1), (32, 1, 1), [ra, rb, rc, rd])
    dm = to_matrix(rd, D, {64: np.uint64, 32: np.uint32, 16: np.uint16}[D.bits])
    got = DEC[dt](dm) if dt in DEC else dm
    want = np.matmul(av, bv) + cv
    if "satfinite" in instr:
        want = np.clip(want, -2**31, 2**31 - 1)
    assert np.array_equal(got, want)


# ------------------------------------------------------------------------------ fragment layouts

def test_m16n8k16_fragments_are_the_isa_figures():
    A, B, C, D = L.mma_fragments("m16n8k16", "f16", "f16", "f32", "f32")
    lane = 5  # groupID 1, threadID_in_group 1
    # a0,a1: row 1 cols 2,3; a2,a3: row 9; a4..a7: cols +8
    assert list(zip(A.row[lane], A.col[lane])) == [(1, 2), (1, 3), (9, 2), (9, 3), (1, 10), (1, 11), (9, 10), (9, 11)]
    assert list(zip(B.row[lane], B.col[lane])) == [(2, 1), (3, 1), (10, 1), (11, 1)]
    assert list(zip(C.row[lane], C.col[lane])) == [(1, 2), (1, 3), (9, 2), (9, 3)]


def test_every_entry_held_once_by_mma_fragments():
    for shape, at, ct in (("m16n8k16", "f16", "f32"), ("m16n8k8", "tf32", "f32"), ("m16n8k32", "s8", "s32"),
                          ("m16n8k64", "s4", "s32"), ("m16n8k256", "b1", "s32"), ("m8n8k4", "f64", "f64"),
                          ("m16n8k16", "f64", "f64"), ("m8n8k4", "f16", "f32"), ("m8n8k4", "f16", "f16")):
        for f in L.mma_fragments(shape, at, at, ct, ct):
            flat = f.flat().ravel()
            assert np.array_equal(np.sort(flat), np.arange(f.groups * f.rows * f.cols))


def test_ldmatrix_layout_index_codes():
    """ldmatrix .x4 (and .trans) from a shared matrix of index codes, rows given by lanes."""
    rows = np.array([(7 * i + 3) % 32 for i in range(32)])
    ptx = """
.version 8.7
.target sm_90
.address_size 64
.visible .entry k(.param .u64 pimg, .param .u64 pout, .param .u32 trans)
{
  .reg .b32 %t<6>, %r<8>;
  .reg .b64 %a, %o, %g;
  .reg .pred %p;
  .shared .align 16 .b16 img[1024];
  mov.u32 %t0, %tid.x;
  ld.param.u64 %g, [pimg];
  cvta.to.global.u64 %g, %g;
  mul.wide.u32 %o, %t0, 64;
  add.s64 %g, %g, %o;
  mov.u64 %a, img;
  add.s64 %a, %a, %o;
  ld.global.v4.b32 {%t1, %t2, %t3, %t4}, [%g];
  st.shared.v4.b32 [%a], {%t1, %t2, %t3, %t4};
  ld.global.v4.b32 {%t1, %t2, %t3, %t4}, [%g+16];
  st.shared.v4.b32 [%a+16], {%t1, %t2, %t3, %t4};
  ld.global.v4.b32 {%t1, %t2, %t3, %t4}, [%g+32];
  st.shared.v4.b32 [%a+32], {%t1, %t2, %t3, %t4};
  ld.global.v4.b32 {%t1, %t2, %t3, %t4}, [%g+48];
  st.shared.v4.b32 [%a+48], {%t1, %t2, %t3, %t4};
  bar.sync 0;
  mul.lo.u32 %t5, %t0, 7;
  add.u32 %t5, %t5, 3;
  rem.u32 %t5, %t5, 32;
  mul.wide.u32 %o, %t5, 64;
  mov.u64 %a, img;
  add.s64 %a, %a, %o;
  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r0, %r1, %r2, %r3}, [%a];
  ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r4, %r5, %r6, %r7}, [%a];
  ld.param.u64 %g, [pout];
  cvta.to.global.u64 %g, %g;
  mul.wide.u32 %o, %t0, 32;
  add.s64 %g, %g, %o;
  st.global.v4.b32 [%g], {%r0, %r1, %r2, %r3};
  st.global.v4.b32 [%g+16], {%r4, %r5, %r6, %r7};
  ret;
}
"""
    img = (np.arange(32)[:, None] * 32 + np.arange(32)[None, :]).astype(np.uint16)  # 32 rows of 32 b16
    out = np.zeros((32, 8), np.uint32)
    ptxvm.loads(ptx).kernel("k").launch((1, 1, 1), (32, 1, 1), [img.ravel().copy(), out, np.uint32(0)])
    lane = np.arange(32)
    g, t = lane // 4, lane % 4
    for i in range(4):
        r = rows[8 * i + g]  # the row lane g of matrix i reads
        lo, hi = out[:, i] & 0xFFFF, out[:, i] >> 16
        assert np.array_equal(lo, r * 32 + 2 * t) and np.array_equal(hi, r * 32 + 2 * t + 1)
        rt0, rt1 = rows[8 * i + 2 * t], rows[8 * i + 2 * t + 1]  # .trans: column g of rows 2t, 2t+1
        lo, hi = out[:, 4 + i] & 0xFFFF, out[:, 4 + i] >> 16
        assert np.array_equal(lo, rt0 * 32 + g) and np.array_equal(hi, rt1 * 32 + g)


def test_mma_waits_for_the_whole_warp():
    """Lanes reach mma at different times (a divergent branch before it): it runs once all have."""
    ptx = """
.version 8.7
.target sm_90
.address_size 64
.visible .entry k(.param .u64 pd)
{
  .reg .b32 %t<3>, %a<4>, %b<2>, %c<4>, %d<4>;
  .reg .b64 %g, %o;
  .reg .pred %p;
  mov.u32 %t0, %tid.x;
  mov.b32 %a0, 0x3C003C00;
  mov.b32 %a1, 0x3C003C00;
  mov.b32 %a2, 0x3C003C00;
  mov.b32 %a3, 0x3C003C00;
  mov.b32 %b0, 0x3C003C00;
  mov.b32 %b1, 0x3C003C00;
  mov.b32 %c0, 0;
  mov.b32 %c1, 0;
  mov.b32 %c2, 0;
  mov.b32 %c3, 0;
  and.b32 %t1, %t0, 1;
  setp.eq.u32 %p, %t1, 0;
  @%p bra EVEN;
  mov.b32 %c0, 0x3F800000;
EVEN:
  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%d0, %d1, %d2, %d3}, {%a0, %a1, %a2, %a3}, {%b0, %b1}, {%c0, %c1, %c2, %c3};
  ld.param.u64 %g, [pd];
  cvta.to.global.u64 %g, %g;
  mul.wide.u32 %o, %t0, 16;
  add.s64 %g, %g, %o;
  st.global.v4.b32 [%g], {%d0, %d1, %d2, %d3};
  ret;
}
"""
    out = np.zeros((64, 4), np.uint32)
    ptxvm.loads(ptx).kernel("k").launch((1, 1, 1), (64, 1, 1), [out])
    v = out.view(np.float32)
    odd = np.arange(64) % 2 == 1
    assert (v[:, 1:] == 16).all()
    assert (v[odd, 0] == 17).all() and (v[~odd, 0] == 16).all()


# ------------------------------------------------------------------------------ kernels

KERNEL_GOLDENS = pathlib.Path(__file__).resolve().parents[1] / "goldens" / "kernels"


@pytest.mark.parametrize("case_name", ["wmma_gemm_f16_f32", "wmma_tile_f16_f16", "mma_ldmatrix_gemm_f32",
                                       "mma_ldmatrix_gemm_f16", "wgmma_gemm_f16_f32"])
def test_wmma_kernels_match_the_gpu_bit_for_bit(case_name):
    """The tensor-core kernels of tests/kernels/cases.py (ADVANCED_CASES: nvcc wmma, inline-PTX
    ldmatrix + mma.sync + stmatrix, inline-PTX wgmma with 128B-swizzled descriptors), recorded on
    an H200 by record_kernels.record_case (tools/device/mma_probe.py record_kernel_cases): every
    output bit equal."""
    import importlib.util
    import sys

    C = sys.modules.get("_kernel_cases_matrix")
    if C is None:
        path = pathlib.Path(__file__).resolve().parents[1] / "kernels" / "cases.py"
        spec = importlib.util.spec_from_file_location("_kernel_cases_matrix", path)
        C = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = C
        spec.loader.exec_module(C)
    case = next(c for c in C.ADVANCED_CASES if c.name == case_name)
    g = np.load(KERNEL_GOLDENS / f"{case_name}.npz")
    args = []
    for i, a in enumerate(case.args):
        if f"arg{i}.in" in g.files:
            args.append(np.array(g[f"arg{i}.in"]))
        else:
            args.append(np.frombuffer(g[f"arg{i}.value"].tobytes(), C.scalar_dtype(a.ptx_type))[0])
    mod = ptxvm.loads(bytes(g["ptx"]).decode())
    mod.kernel(case.kernel).launch(case.grid, case.block, args, shared_mem=case.shared_bytes)
    for i, _ in case.outputs:
        assert np.array_equal(args[i].view(np.uint8), g[f"arg{i}.out"].view(np.uint8)), f"arg{i}"


# ------------------------------------------------------------------------------ the rule is unique

def _fused(parts, grid_bits=25, trunc="zero", exponent="nominal"):
    """A variant of numerics.mma.fused_sum: (total, q) with value total * 2^q."""
    emax = None
    for s, m, e, f in parts:
        if exponent == "actual":
            e = np.where(m > 0, e - f + np.floor(np.log2(np.maximum(m, 1))).astype(np.int64), e)
        top = np.where(m != 0, e, -(1 << 30)).max(-1)
        emax = top if emax is None else np.maximum(emax, top)
    q = emax - grid_bits
    total = 0
    for s, m, e, f in parts:
        sh = q[..., None] - (e - f)
        if trunc == "floor":  # two's complement: toward minus infinity
            v = np.where(s, -m, m)
            v = np.where(sh >= 63, np.where(v < 0, -1, 0), np.where(sh >= 0, v >> np.clip(sh, 0, 63), v << np.clip(-sh, 0, 62)))
        else:
            v = np.where(sh >= 63, 0, np.where(sh >= 0, m >> np.clip(sh, 0, 63), m << np.clip(-sh, 0, 62)))
            v = np.where(s, -v, v)
        total = total + v.sum(-1)
    return total, q


def _variant(T, Cc, fmt, mode, *, steps=1, c_last=False, **kw):
    from ptxvm.numerics.mma import _round

    none = (np.zeros(Cc.sig.shape[:-1], bool),) * 3
    K = T.sig.shape[-1]
    acc = None
    for ks in np.array_split(np.arange(K), steps):
        parts = [(T.sign[..., ks], T.sig[..., ks], T.exp[..., ks], T.frac)]
        if acc is not None:
            A_ = MM.Terms.scalar(acc, fmt)
            parts.append((A_.sign, A_.sig, A_.exp, A_.frac))
        elif not c_last:
            parts.append((Cc.sign, Cc.sig, Cc.exp, Cc.frac))
        acc = _round(*_fused(parts, **kw), None, fmt, mode, none)
    if c_last:
        A_ = MM.Terms.scalar(acc, fmt)
        acc = _round(*_fused([(A_.sign, A_.sig, A_.exp, A_.frac), (Cc.sign, Cc.sig, Cc.exp, Cc.frac)], **kw), None,
                     fmt, mode, none)
    return acc


def test_only_the_measured_rule_fits_the_gpu_data():
    """docs/notes/matrix-numerics.md's table: on the finite HMMA data of the goldens the rule
    misses nothing and every neighbouring rule misses thousands of outputs."""
    from ptxvm.numerics.rounding import Rounding

    ED = {32: np.uint32, 16: np.uint16}
    misses: dict = {}
    for stem in STEMS:
        z, meta = _golden(stem)
        for name, m in meta["experiments"].items():
            instr = m["instruction"] if m["kind"] == "mma" else ""
            if not any(s in instr for s in ("m16n8k16.row.col.f32.f16", "m16n8k8.row.col.f32.bf16", "m16n8k8.row.col.f32.tf32",
                                            "m16n8k16.row.col.f16.f16")):
                continue
            if any(g in name for g in ("special", "extreme", "crafted")):
                continue
            mods = instr.split(".")
            dt, at, bt, ct = [x for x in mods if x in L.BITS]
            A, B, C, D = L.mma_fragments(mods[3], at, bt, ct, dt)
            a, b, c, d = (to_matrix(z[f"{name}|{k}"], f, ED.get(L.BITS[t], np.uint32))[:, 0]
                          for k, f, t in (("a.in", A, at), ("b.in", B, bt), ("c.in", C, ct), ("d.out", D, dt)))
            T = MM.Terms.products(a, b, MM.FORMATS[at], MM.FORMATS[bt])
            Cc = MM.Terms.scalar(c, MM.FORMATS[ct])
            fmt = MM.FORMATS[dt]
            mode = Rounding.RZ if dt == "f32" else Rounding.RN
            other = Rounding.RN if dt == "f32" else Rounding.RZ
            variants = {"rule": (mode, {}), "grid 24": (mode, {"grid_bits": 24}), "grid 26": (mode, {"grid_bits": 26}),
                        "floor": (mode, {"trunc": "floor"}), "actual exponent": (mode, {"exponent": "actual"}),
                        "final rounding": (other, {}), "two steps": (mode, {"steps": 2}), "C last": (mode, {"c_last": True})}
            for label, (md, kw) in variants.items():
                out = _variant(T, Cc, fmt, md, **kw)
                key = (f"{at}->{dt}", label)
                misses[key] = misses.get(key, 0) + int((out != d.astype(out.dtype)).sum())
    paths = {k[0] for k in misses}
    assert paths == {"f16->f32", "bf16->f32", "tf32->f32", "f16->f16"}
    for (path, label), n in misses.items():
        assert (n == 0) == (label == "rule"), (path, label, n)
