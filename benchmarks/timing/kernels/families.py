"""The held-out timing families (issue 20): launches of families.cu and of the Triton kernels
(triton_gen.py), each family at several sizes and inputs. suite.py adds them to CASES.

`build(Case)` returns the cases; every case names its `family` (the unit of the calibration /
validation split, benchmarks/timing/split.py) and its `module` (the PTX file, relative to this
folder, without .ptx). Sizes are chosen so that the H200 time is at least a few microseconds and
ptxvm's profile of the launch stays at a few seconds; they cross L1 (256 KB per SM) and L2 (50 MB)
where the family allows it, and some families have inputs that change the control flow (sorted /
random / skewed data). Depends on NumPy only.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SMS = 132
K = 1024
M = 1 << 20
TRITON_META = json.loads((HERE / "triton" / "triton.json").read_text())["kernels"]


def f32(rng, n):
    return rng.standard_normal(n, dtype=np.float32)


def zeros(n, dtype=np.float32):
    return np.zeros(n, dtype=dtype)


def i32(v):
    return np.int32(v)


def cdiv(a, b):
    return -(-a // b)


# ------------------------------------------------------------------ input generators

def hist_words(n_bytes, kind):
    """n_bytes bytes as uint32 words: 'uniform' bytes, 'same' (every byte 7), 'few' (8 values)."""
    def make(rng):
        if kind == "uniform":
            b = rng.integers(0, 256, n_bytes, dtype=np.uint8)
        elif kind == "same":
            b = np.full(n_bytes, 7, np.uint8)
        else:
            b = (rng.integers(0, 8, n_bytes) * 32).astype(np.uint8)
        return [b.view(np.uint32), zeros(256, np.uint32), i32(n_bytes // 4)]
    return make


def csr(rows, mean, kind, rng):
    """A CSR matrix of `rows` square: row lengths all `mean` ('uniform') or Zipf-like ('powerlaw',
    same mean, a few rows of thousands)."""
    if kind == "uniform":
        lens = np.full(rows, mean, np.int64)
    else:
        lens = np.minimum(rng.zipf(1.8, rows), 4096).astype(np.int64)
        lens = np.maximum(1, (lens * (mean * rows / lens.sum()))).astype(np.int64)
    rowptr = np.zeros(rows + 1, np.int32)
    rowptr[1:] = np.cumsum(lens)
    nnz = int(rowptr[-1])
    cols = rng.integers(0, rows, nnz, dtype=np.int32)
    return rowptr, cols, f32(rng, nnz), f32(rng, rows)


def keys(n, order):
    def make(rng):
        k = rng.integers(0, 1 << 30, n, dtype=np.uint32)
        if order == "sorted":
            k.sort()
        elif order == "reversed":
            k = np.sort(k)[::-1].copy()
        elif order == "equal":
            k[:] = 12345
        return k
    return make


def permutation_chain(n, rng):
    """next[] of one random cycle through n slots (a pointer chase that misses every cache line)."""
    p = rng.permutation(n).astype(np.int32)
    nxt = np.empty(n, np.int32)
    nxt[p] = np.roll(p, -1)
    return nxt


def trip_counts(n, order):
    def make(rng):
        c = rng.integers(0, 64, n, dtype=np.int32)
        if order == "sorted":
            c.sort()
        return [c, zeros(n), i32(n)]
    return make


def two_path_keys(n, order, iters):
    def make(rng):
        k = rng.integers(0, 1 << 20, n, dtype=np.int32)
        if order == "sorted":
            k = np.sort(k & 1).astype(np.int32)
        elif order == "even":
            k &= ~1
        return [k, zeros(n), i32(n), i32(iters)]
    return make


def f16(rng, n):
    return (rng.integers(-4, 5, n) * 0.25).astype(np.float16)


# ------------------------------------------------------------------ the cases

def build(Case) -> list:
    cases = []

    def add(family, tag, kernel, grid, block, make, outputs=(), shared=0, module="families", note=""):
        cases.append(Case(f"{family}_{tag}", kernel, tuple(grid), tuple(block), make, tuple(outputs), shared=shared,
                          note=note, module=module, family=family))

    # reductions: one element per thread (256 per block) or two (first add during load)
    for fam in ("red_interleaved_div", "red_interleaved_bank", "red_sequential"):
        for n, tag in ((32 * K, "32k"), (256 * K, "256k"), (M, "1m")):
            add(fam, tag, fam, (n // 256,), (256,), lambda r, n=n: [f32(r, n), zeros(n // 256), i32(n)], (1,))
    for fam in ("red_first_add", "red_warp_unrolled"):
        for n, tag in ((64 * K, "64k"), (512 * K, "512k"), (2 * M, "2m")):
            add(fam, tag, fam, (n // 512,), (256,), lambda r, n=n: [f32(r, n), zeros(n // 512), i32(n)], (1,))
    for n4, tag in ((64 * K, "256k"), (M, "4m"), (4 * M, "16m")):  # 16M floats = 64 MB: more than L2
        add("red_shfl_atomic", tag, "red_shfl_atomic", (SMS * 4,), (256,),
            lambda r, n4=n4: [f32(r, 4 * n4), zeros(1), i32(n4)], (1,))
    for n, tag in ((256 * K, "256k"), (2 * M, "2m")):
        add("red_warp_atomic", tag, "red_warp_atomic", (n // 256,), (256,), lambda r, n=n: [f32(r, n), zeros(1), i32(n)],
            (1,))
    for n, slots, tag in ((256 * K, 1, "256k_1slot"), (256 * K, 32, "256k_32slots"), (256 * K, 4096, "256k_4kslots"),
                          (2 * M, 4096, "2m_4kslots")):
        add("red_atomic_slots", tag, "red_atomic_slots", (n // 256,), (256,),
            lambda r, n=n, s=slots: [f32(r, n), zeros(s), i32(n), i32(s)], (1,))

    # scans
    for n, tag in ((64 * K, "64k"), (512 * K, "512k"), (2 * M, "2m")):
        add("scan_hillis_steele", tag, "scan_hillis_steele", (n // 512,), (512,),
            lambda r, n=n: [f32(r, n), zeros(n), zeros(n // 512), i32(n)], (1,))
        add("scan_blelloch", tag, "scan_blelloch", (n // 1024,), (512,),
            lambda r, n=n: [f32(r, n), zeros(n), zeros(n // 1024), i32(n)], (1,))
    for n, tag in ((64 * K, "64k"), (M, "1m"), (4 * M, "4m")):
        add("scan_shfl", tag, "scan_shfl", (n // 1024,), (256,),
            lambda r, n=n: [f32(r, n), zeros(n), zeros(n // 1024), i32(n // 4)], (1,))

    def seg(n, every):
        def make(rng):
            flags = (rng.integers(0, every, n) == 0).astype(np.int32)
            return [f32(rng, n), flags, zeros(n), i32(n)]
        return make
    for n, every, tag in ((M, 4, "1m_dense"), (M, 1000, "1m_sparse"), (4 * M, 32, "4m")):
        add("scan_segmented", tag, "scan_segmented", (n // 256,), (256,), seg(n, every), (2,))
    for n, every, tag in ((M, 4, "1m_dense"), (M, 1000, "1m_sparse"), (8 * M, 32, "8m")):
        add("scan_segmented_seq", tag, "scan_segmented_seq", (cdiv(n // 32, 256),), (256,), seg(n, every), (2,))

    # histograms (256 bins over bytes; data as words)
    hb = (SMS * 4,)
    for nb, kind, tag in ((M, "uniform", "1m_uniform"), (16 * M, "uniform", "16m_uniform"),
                          (16 * M, "same", "16m_same"), (16 * M, "few", "16m_8bins")):
        add("hist_smem_atomic", tag, "hist_smem_atomic", hb, (256,), hist_words(nb, kind), (1,))
    for nb, kind, tag in ((M, "uniform", "1m_uniform"), (M, "same", "1m_same"), (16 * M, "uniform", "16m_uniform")):
        add("hist_gmem_atomic", tag, "hist_gmem_atomic", hb, (256,), hist_words(nb, kind), (1,))
    for nb, kind, tag in ((16 * M, "uniform", "16m_uniform"), (16 * M, "same", "16m_same")):
        add("hist_warp_private", tag, "hist_warp_private", hb, (256,), hist_words(nb, kind), (1,))

    # transposes (n x n floats; 4096^2 = 64 MB per matrix: more than L2)
    def square(n):
        return lambda rng: [f32(rng, n * n), zeros(n * n), i32(n)]
    for fam, sizes in (("tp_copy_tile", (512, 2048, 4096)), ("tp_naive_rows", (512, 2048, 4096)),
                       ("tp_naive_cols", (1024, 2048)), ("tp_smem_unpadded", (512, 2048)),
                       ("tp_smem_padded", (512, 2048, 4096)), ("tp_smem_swizzle", (1024, 2048))):
        for n in sizes:
            add(fam, str(n), fam, (n // 32, n // 32), (32, 8), square(n), (1,))

    # SGEMM (row-major)
    def gemm(m, n, k):
        return lambda rng: [f32(rng, m * k), f32(rng, k * n), zeros(m * n), i32(m), i32(n), i32(k)]
    for fam, shapes, bs in (("sg_naive", ((128, 128, 128), (256, 256, 256), (512, 512, 64)), 16),
                            ("sg_naive_swapped", ((128, 128, 128), (256, 256, 256)), 16),
                            ("sg_tiled16", ((128, 128, 128), (256, 256, 256), (512, 512, 64)), 16),
                            ("sg_tiled32", ((256, 256, 256), (512, 512, 64)), 32)):
        for m, n, k in shapes:
            add(fam, f"{m}x{n}x{k}", fam, (n // bs, m // bs), (bs, bs), gemm(m, n, k), (2,))
    for m, n, k in ((256, 256, 256), (512, 512, 256)):
        add("sg_regblock", f"{m}x{n}x{k}", "sg_regblock", (n // 64, m // 64), (256,), gemm(m, n, k), (2,))

    # HGEMM with wmma (A row-major, B column-major)
    def hgemm(m, n, k):
        return lambda rng: [f16(rng, m * k), f16(rng, n * k), zeros(m * n), i32(m), i32(n), i32(k)]
    for m, n, k in ((256, 256, 256), (512, 512, 512), (1024, 1024, 256)):
        add("hg_wmma_global", f"{m}x{n}x{k}", "hg_wmma_global", (n // 64, m // 16), (128,), hgemm(m, n, k), (2,))
    for m, n, k in ((256, 256, 256), (512, 512, 512), (1024, 1024, 1024)):
        add("hg_wmma_smem", f"{m}x{n}x{k}", "hg_wmma_smem", (n // 64, m // 64), (128,), hgemm(m, n, k), (2,))

    # Triton kernels (PTX from triton_gen.py); two trailing scratch pointers as Triton's launcher passes
    def tt(variant, tag, grid, make, outputs, family=None):
        md = TRITON_META[variant]
        ctas = int(np.prod(grid))

        def full(rng):
            args = make(rng)
            scratch = zeros(md["global_scratch"] * ctas, np.uint8) if md["global_scratch"] else np.uint64(0)
            return args + [scratch, np.uint64(0)]
        add(family or variant, tag, md["entry"], grid, (32 * md["num_warps"],), full, outputs, shared=md["shared"],
            module=f"triton/{variant}")
    for n, tag in ((64 * K, "64k"), (M, "1m"), (4 * M, "4m")):
        tt("tt_add_b1024", tag, (n // 1024,), lambda r, n=n: [f32(r, n), f32(r, n), zeros(n), i32(n)], (2,), "tt_add")
    for variant, rows, cols in (("tt_softmax_b256", 4096, 256), ("tt_softmax_b1024", 4096, 1024),
                                ("tt_softmax_b1024", 2048, 1000), ("tt_softmax_b4096", 1024, 4096),
                                ("tt_softmax_b4096", 2048, 4096)):
        tt(variant, f"{rows}x{cols}", (rows,), lambda r, a=rows, b=cols: [zeros(a * b), f32(r, a * b), i32(b)], (0,),
           "tt_softmax")
    for variant, rows, cols in (("tt_layernorm_b1024", 4096, 1024), ("tt_layernorm_b1024", 4096, 768),
                                ("tt_layernorm_b4096", 2048, 4096)):
        tt(variant, f"{rows}x{cols}", (rows,),
           lambda r, a=rows, b=cols: [f32(r, a * b), zeros(a * b), f32(r, b), f32(r, b), i32(b), np.float32(1e-5)],
           (1,), "tt_layernorm")
    for variant, dt, sizes in (("tt_matmul_f16", "f16", (512, 1024, 2048)), ("tt_matmul_tf32", "f32", (512, 1024)),
                               ("tt_matmul_tma_f16", "f16", (512, 1024, 2048))):
        for s in sizes:
            gen = f16 if dt == "f16" else f32
            out_dt = np.float16 if dt == "f16" else np.float32
            tt(variant, str(s), ((s // 128) ** 2,),
               lambda r, s=s, gen=gen, o=out_dt: [gen(r, s * s), gen(r, s * s), zeros(s * s, o), i32(s), i32(s), i32(s)],
               (2,))
    for bh, n, tag in ((16, 512, "16x512"), (16, 1024, "16x1024"), (8, 2048, "8x2048")):
        tt("tt_attention_d64", tag, (n // 128, bh),
           lambda r, bh=bh, n=n: [f16(r, bh * n * 64), f16(r, bh * n * 64), f16(r, bh * n * 64), zeros(bh * n * 64, np.float16),
                                  i32(n), np.float32(0.125)], (3,))

    # stencils
    for n in (512, 1024, 2048):
        add("st_jacobi5", str(n), "st_jacobi5", (n // 32, n // 8), (32, 8), square(n), (1,))
    for n in (64, 128, 160):
        add("st_3d7_march", str(n), "st_3d7_march", (n // 32, n // 8), (32, 8),
            lambda r, n=n: [f32(r, n ** 3), zeros(n ** 3), i32(n)], (1,))
    for n, tag in ((256 * K, "256k"), (M, "1m"), (4 * M, "4m")):
        add("st_1d_r8_smem", tag, "st_1d_r8_smem", (n // 256,), (256,), lambda r, n=n: [f32(r, n), zeros(n), i32(n)], (1,))

    # SpMV, CSR with uniform or power-law rows
    for rows, kind, tag in ((64 * K, "uniform", "64k_uniform"), (64 * K, "powerlaw", "64k_powerlaw"),
                            (256 * K, "uniform", "256k_uniform"), (256 * K, "powerlaw", "256k_powerlaw")):
        def mk(rng, rows=rows, kind=kind):
            rp, c, v, x = csr(rows, 16, kind, rng)
            return [rp, c, v, x, zeros(rows), i32(rows)]
        add("spmv_csr_scalar", tag, "spmv_csr_scalar", (rows // 256,), (256,), mk, (4,))
        add("spmv_csr_vector", tag, "spmv_csr_vector", (rows // 8,), (256,), mk, (4,))

    # sorts
    for n, order, tag in ((64 * K, "random", "64k_random"), (256 * K, "random", "256k_random"),
                          (256 * K, "sorted", "256k_sorted")):
        add("sort_bitonic_block", tag, "sort_bitonic_block", (n // 1024,), (512,), lambda r, f=keys(n, order): [f(r)], (0,))
    for n, k, j, tag in ((4 * M, 1 << 22, 1, "4m_j1"), (4 * M, 1 << 22, 32, "4m_j32"), (4 * M, 1 << 22, 1 << 21, "4m_j2m"),
                         (256 * K, 1 << 18, 1, "256k_j1")):
        add("sort_bitonic_step", tag, "sort_bitonic_step", (n // 512,), (256,),
            lambda r, f=keys(n, "random"), n=n, k=k, j=j: [f(r), i32(n), i32(k), i32(j)], (0,))
    for order in ("random", "sorted", "reversed"):
        add("sort_oddeven_block", f"64k_{order}", "sort_oddeven_block", (256,), (128,),
            lambda r, f=keys(64 * K, order): [f(r)], (0,))
    for n, order, tag in ((4 * M, "random", "4m_random"), (4 * M, "equal", "4m_equal"), (16 * M, "random", "16m_random")):
        add("sort_radix_hist", tag, "sort_radix_hist", (SMS * 4,), (256,),
            lambda r, f=keys(n, order), n=n: [f(r), zeros(SMS * 4 * 16, np.uint32), i32(n), i32(0)], (1,))

    # tiny latency-bound grids
    for tn, steps, tag in ((M, 64, "1m_64hops"), (M, 512, "1m_512hops"), (4 * K, 512, "4k_512hops")):
        add("tiny_chase", tag, "tiny_chase", (1,), (32,),
            lambda r, tn=tn, s=steps: [permutation_chain(tn, r), zeros(32, np.int32), i32(s)], (1,))
    add("tiny_fma_chain", "8x64", "tiny_fma_chain", (8,), (64,), lambda r: [zeros(512), i32(4096), np.float32(0.999)], (0,))
    for n, grid, block in ((32, 1, 32), (4096, 16, 256), (64 * K, 256, 256)):
        add("tiny_add", str(n), "tiny_add", (grid,), (block,), lambda r, n=n: [f32(r, n), f32(r, n), i32(n)], (1,))

    # occupancy-limited launches: registers, block size, shared memory
    def gather_args(threads, iters, table=M):
        return lambda rng: [f32(rng, table), rng.integers(0, table, 4096, dtype=np.int32), zeros(threads), i32(4096),
                            i32(iters), i32(table - 1)]
    for kern in ("occ_regs_8", "occ_regs_48", "occ_regs_112", "occ_regs_200"):
        add("occ_regs", kern[4:], kern, (SMS * 2,), (256,), gather_args(SMS * 2 * 256, 8), (2,))
    for block in (32, 64, 512, 1024):
        g = SMS * 2 * 256 // block
        add("occ_regs", f"regs_8_block{block}", "occ_regs_8", (g,), (block,), gather_args(g * block, 8), (2,))
    for sh in (1 * K, 48 * K, 100 * K, 200 * K):  # the kernel writes pad[0]: at least 1 KiB
        add("occ_smem", f"{sh // K}k", "occ_smem_gather", (SMS * 4,), (256,), gather_args(SMS * 4 * 256, 16), (2,),
            shared=sh, module="occupancy")

    # cp.async and bulk-copy (TMA engine) pipelines, and plain loads of the same stream
    for fam, per, sizes in (("pipe_cp_async", 1024, (4, 16, 32)), ("pipe_plain", 1024, (4, 16, 32)),
                            ("pipe_bulk_tma", 2048, (2, 8, 16))):  # the largest: 69 MB, more than L2
        for tiles in sizes:
            g = SMS * 4
            add(fam, f"{tiles}tiles", fam, (g,), (256,),
                lambda r, t=tiles, g=g, per=per: [f32(r, g * t * per), zeros(g * 256), i32(t)], (1,))

    # clusters (distributed shared memory) and the same reads locally
    for fam in ("cluster_ring2", "cluster_ring8", "cluster_local"):
        for reps in (4, 32):
            add(fam, f"{reps}reps", fam, (SMS * 2,), (256,), lambda r, reps=reps: [f32(r, SMS * 2 * 2048), zeros(SMS * 512),
                                                                                   i32(reps)], (1,))

    # one warp (or a few) of FMA chains
    for kern, grid, block, iters in (("warp_fma_ilp1", 1, 32, 1024), ("warp_fma_ilp1", 1, 32, 16384),
                                     ("warp_fma_ilp1", 1, 128, 4096), ("warp_fma_ilp1", SMS, 32, 4096),
                                     ("warp_fma_ilp4", 1, 32, 4096), ("warp_fma_ilp4", 1, 128, 4096)):
        add(kern, f"{grid}x{block}_{iters}", kern, (grid,), (block,),
            lambda r, n=grid * block, it=iters: [zeros(n), i32(it), np.float32(0.999)], (0,))

    # divergent loops over sorted / random input
    for n, order in ((256 * K, "random"), (256 * K, "sorted"), (M, "random"), (M, "sorted")):
        add("div_trip_loop", f"{n // K}k_{order}", "div_trip_loop", (n // 256,), (256,), trip_counts(n, order), (1,))
    for order in ("random", "sorted", "even"):
        add("div_two_paths", f"256k_{order}", "div_two_paths", (1024,), (256,), two_path_keys(256 * K, order, 32), (1,))

    # gathers through tables from L1 size to far beyond L2, and a sequential index
    def gather(n, table, seq=False):
        def make(rng):
            idx = (np.arange(n) % table).astype(np.int32) if seq else rng.integers(0, table, n, dtype=np.int32)
            return [f32(rng, table), idx, zeros(n), i32(n)]
        return make
    for table, tag in ((16 * K, "64kb"), (256 * K, "1mb"), (4 * M, "16mb"), (32 * M, "128mb")):
        add("gather_idx", f"4m_{tag}", "gather_idx", (SMS * 8,), (256,), gather(4 * M, table), (2,))
    add("gather_idx", "4m_sequential", "gather_idx", (SMS * 8,), (256,), gather(4 * M, 4 * M, True), (2,))

    # global atomics: contention sweep
    for slots in (1, 64, 4096, M):
        add("atom_contention", f"{slots}slots", "atom_contention", (SMS * 2,), (256,),
            lambda r, s=slots: [zeros(s, np.uint32), i32(s), i32(8)], (0,))

    # row softmax / layernorm, one warp per row
    for rows, cols in ((4096, 1024), (16384, 256), (1024, 8192)):
        add("softmax_warp_row", f"{rows}x{cols}", "softmax_warp_row", (rows // 8,), (256,),
            lambda r, a=rows, b=cols: [f32(r, a * b), zeros(a * b), i32(a), i32(b)], (1,))
    for rows, cols in ((4096, 1024), (2048, 4096)):
        add("layernorm_warp_row", f"{rows}x{cols}", "layernorm_warp_row", (rows // 8,), (256,),
            lambda r, a=rows, b=cols: [f32(r, a * b), zeros(a * b), i32(a), i32(b)], (1,))
    return cases
