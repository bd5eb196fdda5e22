"""mma.sp and wgmma on the engine without a GPU: selector ranges as ptxas checks them, the sparse
product against the dense one on the expanded A, the descriptor format, warpgroup execution,
and the corpus GEMM kernels against a NumPy model of the tensor-core steps. (The bit-for-bit
comparison with the H200 is test_matrix.py's replay of tests/goldens/matrix.)"""
from __future__ import annotations

import pathlib

import numpy as np
import pytest

import ptxvm
from ptxvm.numerics import mma as MM
from ptxvm.semantics.families import matrix as L
from ptxvm.semantics.families import wgmma as G

CORPUS = pathlib.Path(__file__).resolve().parents[1] / "corpus" / "ptx"

# sparsity selectors ptxas 13.0 accepts (measured: every value 0..4 tried on every sm_90 form)
PTXAS_SELECTORS = {("m16n8k16", "f16"): 4, ("m16n8k32", "f16"): 4, ("m16n8k16", "bf16"): 4, ("m16n8k32", "bf16"): 2,
                   ("m16n8k8", "tf32"): 4, ("m16n8k16", "tf32"): 2, ("m16n8k64", "e4m3"): 1, ("m16n8k32", "s8"): 2,
                   ("m16n8k64", "s8"): 1, ("m16n8k64", "s4"): 2, ("m16n8k128", "s4"): 1}


@pytest.mark.parametrize("shape,atype", sorted(PTXAS_SELECTORS))
def test_selector_range_follows_the_metadata_size(shape, atype):
    n = L.sparse_meta(shape, atype).selectors
    if (shape, atype) == ("m16n8k32", "f16"):
        assert n == 2  # the ISA's range; ptxas also takes 2 and 3 with an .f32 accumulator
    else:
        assert n == PTXAS_SELECTORS[(shape, atype)]


def _sp_module(instr, sel, na, nb, nc, nd):
    regs = lambda p, n: "{" + ", ".join(f"%{p}{i}" for i in range(n)) + "}"
    loads = []
    for p, n, off in (("a", na, 0), ("b", nb, na), ("c", nc, na + nb)):
        loads += [f"  ld.global.b32 %{p}{i}, [%r+{4 * (off + i)}];" for i in range(n)]
    loads.append(f"  ld.global.b32 %e, [%r+{4 * (na + nb + nc)}];")
    stores = [f"  st.global.b32 [%w+{4 * i}], %d{i};" for i in range(nd)]
    per = na + nb + nc + 1
    return f""".version 8.7
.target sm_90
.address_size 64
.visible .entry k(.param .u64 pin, .param .u64 pout)
{{
  .reg .b32 %a<{na}>, %b<{nb}>, %c<{nc}>, %d<{nd}>, %e, %t;
  .reg .b64 %r, %w, %o;
  mov.u32 %t, %tid.x;
  ld.param.u64 %r, [pin];
  mul.wide.u32 %o, %t, {4 * per};
  add.s64 %r, %r, %o;
  ld.param.u64 %w, [pout];
  mul.wide.u32 %o, %t, {4 * nd};
  add.s64 %w, %w, %o;
{chr(10).join(loads)}
  {instr} {regs('d', nd)}, {regs('a', na)}, {regs('b', nb)}, {regs('c', nc)}, %e, {sel};
{chr(10).join(stores)}
  ret;
}}
"""


@pytest.mark.parametrize("shape,at,ct", [("m16n8k16", "f16", "f32"), ("m16n8k32", "bf16", "f32"), ("m16n8k8", "tf32", "f32"),
                                         ("m16n8k32", "s8", "s32"), ("m16n8k128", "u4", "s32"), ("m16n8k16", "f16", "f16")])
def test_sparse_product_is_the_dense_product_of_the_expanded_a(shape, at, ct):
    rng = np.random.default_rng(1)
    M, N, K = L.parse_shape(shape)
    meta = L.sparse_meta(shape, at)
    A, B, C, D = L.mma_sp_fragments(shape, at, at, ct, ct)
    bits = L.BITS[at]
    small = lambda n: rng.integers(-3, 4, n).astype(np.float64)
    if at in ("f16", "bf16", "tf32"):
        from ptxvm.numerics.formats import BF16, F16, F32
        enc = {"f16": lambda x: x.astype(np.float16).view(np.uint16),
               "bf16": lambda x: (x.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16),
               "tf32": lambda x: x.astype(np.float32).view(np.uint32)}[at]
        a, b = enc(small((1, M, K // 2))), enc(small((1, K, N)))
        c = (np.zeros((1, M, N), np.float32).view(np.uint32) if ct == "f32" else np.zeros((1, M, N), np.uint16))
    else:
        a = rng.integers(0, 1 << bits, (1, M, K // 2)).astype(np.uint8)
        b = rng.integers(0, 1 << bits, (1, K, N)).astype(np.uint8)
        c = rng.integers(0, 1 << 32, (1, M, N), dtype=np.uint64).astype(np.uint32)
    pos = rng.integers(0, 2, (1, M, meta.nibbles, 1)) if bits == 32 else \
        np.sort(np.stack([rng.permutation(4)[:2] for _ in range(M * meta.nibbles)]), axis=1).reshape(1, M, meta.nibbles, 2)
    nib = L.sparse_encode(pos, meta, bits)
    for sel in range(meta.selectors):
        e = L.sparse_registers(nib, meta, sel, rng.integers(0, 1 << 32, (1, 32), dtype=np.uint64))
        from ptxvm.engine.matrix.mma import from_matrix, to_matrix
        ra, rb, rc = (from_matrix(x[:, None], F, np.uint32) for x, F in ((a, A), (b, B), (c, C)))
        packed = np.concatenate([ra[0], rb[0], rc[0], e[0][:, None]], axis=1).astype(np.uint32)
        out = np.zeros((32, D.nregs), np.uint32)
        instr = f"mma.sp::ordered_metadata.sync.aligned.{shape}.row.col.{ct}.{at}.{at}.{ct}"
        mod = ptxvm.loads(_sp_module(instr, sel, A.nregs, B.nregs, C.nregs, D.nregs))
        mod.kernel("k").launch(1, 32, [packed.ravel(), out.ravel()])
        got = to_matrix(out[None], D, c.dtype)[0, 0]
        cols = L.sparse_columns(nib, meta, bits)
        dense = np.zeros((1, M, K), a.dtype)
        np.put_along_axis(dense, cols, a, axis=2)
        want = MM.mma(dense, b, c, shape, at, at, ct, ct)[0]
        assert np.array_equal(got, want), sel


def test_a_selector_outside_the_shapes_range_is_a_diagnostic():
    ptx = _sp_module("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32", 2, 4, 4, 4, 4)
    with pytest.raises(ptxvm.PtxError, match="sparsity selector 2 is out of range"):
        ptxvm.loads(ptx)


def test_descriptor_fields_round_trip():
    d = G.Descriptor(start=0x3FFF0, lbo=0x1230, sbo=0x40, base_offset=5, swizzle=2)
    bits = d.encode()
    assert G.Descriptor.decode(bits) == d
    assert bits >> 62 == 2 and (bits >> 49) & 7 == 5 and (bits & 0x3FFF) == 0x3FFF


def _gemm_reference(A, Bt, k_step):
    acc = np.zeros((A.shape[0], Bt.shape[0]), np.uint32)
    for k0 in range(0, A.shape[1], k_step):
        acc = MM.hmma(A[:, k0:k0 + k_step].view(np.uint16), Bt[:, k0:k0 + k_step].T.copy().view(np.uint16), acc,
                      "f16", "f16", "f32", "f32")
    return acc


def test_wgmma_gemm_kernel_is_a_chain_of_fused_k16_steps():
    rng = np.random.default_rng(3)
    M, N, K = 64, 128, 128
    A = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    Bt = rng.uniform(-1, 1, (N, K)).astype(np.float16)
    D = np.zeros((M, N), np.float32)
    mod = ptxvm.load(CORPUS / "wgmma_gemm.sm_90a.ptx")
    mod["wgmma_gemm_f16_f32"].launch((N // 64, M // 64), 128, [A.ravel(), Bt.ravel(), D.ravel(), np.int32(M),
                                                                np.int32(N), np.int32(K)])
    assert np.array_equal(D.view(np.uint32), _gemm_reference(A, Bt, 16))


@pytest.mark.parametrize("kernel", ["mma_ldmatrix_gemm_f32", "mma_ldmatrix_gemm_f16"])
def test_ldmatrix_mma_gemm_kernels_are_chains_of_mma_steps(kernel):
    rng = np.random.default_rng(4)
    M, N, K = 32, 32, 48
    A = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    B = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    mod = ptxvm.load(CORPUS / "mma_ldmatrix_gemm.sm_90.ptx")
    dims = [np.int32(M), np.int32(N), np.int32(K)]
    if kernel.endswith("f32"):
        C = rng.standard_normal((M, N)).astype(np.float32)
        D = np.zeros((M, N), np.float32)
        mod[kernel].launch(1, 128, [A.ravel(), np.ascontiguousarray(B.T).ravel(), C.ravel(), D.ravel(), *dims])
        acc = C.view(np.uint32).copy()
        ctype = "f32"
    else:
        D = np.zeros((M, N), np.float16)
        mod[kernel].launch(1, 128, [A.ravel(), B.ravel(), D.ravel(), *dims])
        acc = np.zeros((M, N), np.uint16)
        ctype = "f16"
    for k0 in range(0, K, 16):
        acc = MM.hmma(A[:, k0:k0 + 16].view(np.uint16), B[k0:k0 + 16].view(np.uint16), acc, "f16", "f16", ctype, ctype)
    assert np.array_equal(D.view(acc.dtype), acc)


WG_PARTIAL = """.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out)
{
  .shared .align 128 .b8 smem[4096];
  .reg .f32 %d<4>;
  .reg .b32 %t;
  .reg .b64 %ad;
  .reg .pred %p;
  mov.u32 %t, %tid.x;
  setp.ge.u32 %p, %t, 96;
  @%p exit;
  mov.b64 %ad, 0;
  wgmma.fence.sync.aligned;
  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%d0, %d1, %d2, %d3}, %ad, %ad, 0, 1, 1, 0, 0;
  ret;
}
"""


def test_wgmma_with_an_exited_thread_of_the_warpgroup_faults():
    mod = ptxvm.loads(WG_PARTIAL)
    with pytest.raises(ptxvm.KernelFault, match="warpgroup"):
        mod.kernel("k").launch(1, 128, [np.zeros(4, np.uint32)])


def test_selectors_ptxas_takes_but_the_gpu_traps_on_fault():
    # m16n8k32 .f16 with an .f32 accumulator: ptxas 13 accepts selectors 2 and 3, the H200 stops
    # the kernel with an illegal instruction (tools/device/mma_sp_probe.py, batch of 2026-11-22)
    ptx = _sp_module("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32", 3, 4, 4, 4, 4)
    mod = ptxvm.loads(ptx)
    with pytest.raises(ptxvm.KernelFault, match="illegal instruction: sparsity selector 3"):
        mod.kernel("k").launch(1, 32, [np.zeros(32 * 13, np.uint32), np.zeros(32 * 4, np.uint32)])


@pytest.mark.parametrize("shape,atype,lanes", [("m16n8k16", "f16", {0}), ("m16n8k32", "bf16", {0, 1}),
                                               ("m16n8k32", "s8", {0, 1}), ("m16n8k64", "e4m3", {0, 1, 2, 3}),
                                               ("m16n8k128", "u4", {0, 1, 2, 3})])
def test_metadata_lanes_per_quad(shape, atype, lanes):
    meta = L.sparse_meta(shape, atype)
    lane, bit = L.sparse_nibble_positions(meta, 0)
    assert {int(x) % 4 for x in lane.ravel()} == lanes
    # every metadata bit of those lanes is used exactly once
    used = {(int(a), int(b) + i) for a, b in zip(lane.ravel(), bit.ravel()) for i in range(4)}
    assert len(used) == 4 * meta.rows * meta.nibbles
    if meta.row_words:  # 8- and 4-bit types: one row per register
        rows = {}
        for r in range(meta.rows):
            for a in lane[r]:
                rows.setdefault(int(a), set()).add(r)
        assert all(len(v) == 1 for v in rows.values())


WG_TWO = """.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out)
{
  .shared .align 128 .b8 smem[512];
  .reg .b32 %a<4>, %t, %wg, %v, %i, %s, %c;
  .reg .b16 %h;
  .reg .f32 %d<4>;
  .reg .b64 %p, %o, %bd;
  .reg .pred %q;
  mov.u32 %t, %tid.x;
  shr.u32 %wg, %t, 7;
  // B (8 x 16, K-major, no swizzle: LBO 128, SBO 256): element n, k holds k + 16 n as f16
  setp.ge.u32 %q, %t, 128;
  @%q bra FILLED;
  mov.u32 %i, %t;
  and.b32 %v, %i, 15;           // k
  shr.u32 %s, %i, 4;            // n
  mad.lo.u32 %v, %s, 16, %v;    // value k + 16 n
  cvt.rn.f16.u32 %h, %v;
  and.b32 %v, %i, 15;
  shr.u32 %i, %v, 3;            // k / 8: core matrix along K
  and.b32 %v, %v, 7;
  shl.b32 %v, %v, 1;            // (k % 8) * 2 bytes
  mad.lo.u32 %v, %i, 128, %v;
  mad.lo.u32 %v, %s, 16, %v;    // row n: 16 bytes
  mov.u32 %i, smem;
  add.u32 %v, %v, %i;
  st.shared.b16 [%v], %h;
FILLED:
  bar.sync 0;
  mov.u32 %i, smem;
  shr.u32 %i, %i, 4;
  cvt.u64.u32 %bd, %i;
  or.b64 %bd, %bd, 0x1000080000;  // LBO 128 (8 << 16), SBO 256 (16 << 32)
  // A = (warpgroup + 1) * identity on k = row % 16: row g has its 1 at k = g, in register a0 of
  // lane (g, t = g / 2), low half if g is even; row g + 8 likewise in a3
  add.u32 %v, %wg, 1;
  cvt.rn.f16.u32 %h, %v;
  cvt.u32.u16 %s, %h;
  and.b32 %i, %t, 31;
  shr.u32 %v, %i, 2;            // g
  and.b32 %i, %i, 3;            // t
  and.b32 %c, %v, 1;
  shl.b32 %c, %c, 4;            // 16 * (g & 1)
  shl.b32 %s, %s, %c;
  shr.u32 %v, %v, 1;
  setp.eq.u32 %q, %v, %i;
  selp.b32 %a0, %s, 0, %q;
  mov.b32 %a1, 0;
  mov.b32 %a2, 0;
  mov.b32 %a3, %a0;
  wgmma.fence.sync.aligned;
  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%d0, %d1, %d2, %d3}, {%a0, %a1, %a2, %a3}, %bd, 0, 1, 1, 0;
  wgmma.commit_group.sync.aligned;
  wgmma.wait_group.sync.aligned 0;
  ld.param.u64 %p, [out];
  mul.wide.u32 %o, %t, 16;
  add.s64 %p, %p, %o;
  st.global.v4.f32 [%p], {%d0, %d1, %d2, %d3};
  ret;
}
"""


def test_each_warpgroup_of_a_cta_runs_its_own_wgmma():
    out = np.zeros((256, 4), np.float32)
    ptxvm.loads(WG_TWO).kernel("k").launch(1, 256, [out.ravel()])
    row, col = G.d_fragment_positions(8)
    for wg in range(2):
        D = np.zeros((64, 8), np.float32)
        D[row, col] = out[128 * wg:128 * (wg + 1)]
        k = np.arange(64) % 16
        want = (wg + 1) * (k[:, None] + 16 * np.arange(8)[None, :])
        assert np.array_equal(D, want.astype(np.float32)), wg


def test_imm_trans_a_with_a_in_registers_is_a_diagnostic():
    # ptxas 13: "Arguments mismatch for instruction 'wgmma.mma_async'"
    ptx = WG_PARTIAL.replace("%ad, %ad, 0, 1, 1, 0, 0;", "{%d0, %d1, %d2, %d3}, %ad, 0, 1, 1, 0, 0;")
    with pytest.raises(ptxvm.PtxError, match="imm-trans-a is only given when A comes from a descriptor"):
        ptxvm.loads(ptx)
