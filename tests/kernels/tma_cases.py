"""Tensor-memory-access (cp.async.bulk.tensor) cases: a tensor, a tensor map over it, and a raw-PTX
kernel in which every CTA moves one box.

The same cases run on the CPU engine (tests/kernels/test_tma.py, the map built with
ptxvm.tensor_map) and on a GPU (tools/device/record_tma.py, the map built with the driver's
cuTensorMapEncodeTiled). NumPy only.

Shapes, boxes and element strides are given in NumPy axis order (outermost first); coordinates, as
the instruction takes them, innermost first. Kinds:
  load       cp.async.bulk.tensor global -> shared::cluster, complete_tx on an mbarrier; the CTA's
             whole shared buffer (pre-filled with 0xA5) is copied out
  store      shared::cta -> global (bulk_group): the tensor afterwards
  reduce.OP  cp.reduce.async.bulk.tensor: the tensor afterwards (boxes of CTAs may overlap)
  multicast  a 2-CTA cluster; rank 0 loads one box into both CTAs (.multicast::cluster)
  prefetch   cp.async.bulk.prefetch.tensor.L2, then a load
Map operand: "generic" (a __grid_constant__ parameter's generic address, cvta.param, as nvcc
writes it; ptxas refuses the parameter's name itself) or "global" (a copy of the map in global
memory, passed by pointer).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

SENTINEL = 0xA5

DTYPES = {  # name -> (numpy dtype, CUtensorMapDataType name)
    "u8": (np.uint8, "UINT8"), "u16": (np.uint16, "UINT16"), "u32": (np.uint32, "UINT32"),
    "s32": (np.int32, "INT32"), "u64": (np.uint64, "UINT64"), "s64": (np.int64, "INT64"),
    "f16": (np.uint16, "FLOAT16"), "f32": (np.uint32, "FLOAT32"), "f64": (np.uint64, "FLOAT64"),
    "bf16": (np.uint16, "BFLOAT16"),
}


@dataclass(frozen=True)
class TmaCase:
    name: str
    dtype: str
    shape: tuple          # NumPy order
    box: tuple            # NumPy order
    coords: tuple         # per CTA: innermost-first coordinates
    kind: str = "load"
    element_strides: Optional[tuple] = None  # NumPy order
    swizzle: str = "none"  # none | 32B | 64B | 128B
    oob_fill: str = "none"  # none | nan
    map_in: str = "generic"  # generic | global
    pad: int = 0          # bytes of padding after each innermost row (global strides)
    small: bool = False    # small-integer data (float reductions exact in any order)
    dst_offset: int = 0   # the shared box starts this many bytes into the (1024-aligned) buffer

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def itemsize(self) -> int:
        return np.dtype(DTYPES[self.dtype][0]).itemsize

    @property
    def estrides(self) -> tuple:
        return self.element_strides or (1,) * self.rank

    @property
    def counts(self) -> tuple:
        """Elements moved per dimension, NumPy order (ceil(box / stride); the innermost stride is
        ignored without interleave)."""
        out = []
        for i, (b, s) in enumerate(zip(self.box, self.estrides)):
            out.append(b if i == self.rank - 1 else -(-b // s))
        return tuple(out)

    @property
    def box_bytes(self) -> int:
        return int(np.prod(self.counts)) * self.itemsize

    @property
    def smem_bytes(self) -> int:
        return max(1024, -(-(self.box_bytes + self.dst_offset) // 1024) * 1024)

    @property
    def ctas(self) -> int:
        return len(self.coords)

    @property
    def row_bytes(self) -> int:
        return self.shape[-1] * self.itemsize + self.pad

    def global_strides(self) -> tuple:
        """Byte strides of dimensions 1..rank-1 (innermost first, as cuTensorMapEncodeTiled takes them)."""
        out, s = [], self.row_bytes
        for d in reversed(self.shape[:-1]):
            out.append(s)
            s *= d
        return tuple(out)

    def storage_bytes(self) -> int:
        return int(np.prod(self.shape[:-1])) * self.row_bytes if self.rank > 1 else self.row_bytes

    def red_op(self) -> Optional[str]:
        return self.kind.split(".", 1)[1] if self.kind.startswith("reduce.") else None


def tensor_bytes(case: TmaCase) -> np.ndarray:
    """The tensor's initial bytes (with row padding), deterministic."""
    rng = np.random.default_rng([7, sum(map(ord, case.name))])
    n = case.storage_bytes()
    dt = np.dtype(DTYPES[case.dtype][0])
    if case.small:
        v = rng.integers(0, 16, n // dt.itemsize)
        if case.dtype == "f32":
            raw = v.astype(np.float32).view(np.uint32)
        elif case.dtype == "f16":
            raw = v.astype(np.float16).view(np.uint16)
        elif case.dtype == "bf16":
            raw = (v.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
        else:
            raw = v.astype(dt)
        return raw.view(np.uint8).copy()
    return rng.integers(0, 256, n, dtype=np.uint8)


def shared_input(case: TmaCase) -> np.ndarray:
    """Stores and reductions: what each CTA puts in its shared buffer (small integers for floats)."""
    rng = np.random.default_rng([11, sum(map(ord, case.name))])
    n = case.smem_bytes * case.ctas
    dt = np.dtype(DTYPES[case.dtype][0])
    if case.small:
        v = rng.integers(0, 16, n // dt.itemsize)
        if case.dtype == "f32":
            return v.astype(np.float32).view(np.uint8).copy()
        if case.dtype == "f16":
            return v.astype(np.float16).view(np.uint8).copy()
        if case.dtype == "bf16":
            return (v.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16).view(np.uint8).copy()
        return v.astype(dt).view(np.uint8).copy()
    return rng.integers(0, 256, n, dtype=np.uint8)


def coords_array(case: TmaCase) -> np.ndarray:
    a = np.zeros((case.ctas, 5), np.int32)
    for i, c in enumerate(case.coords):
        a[i, : len(c)] = c
    return a.reshape(-1)


def cases() -> list[TmaCase]:
    C = [
        TmaCase("load_1d_f32", "f32", (256,), (64,), ((16,), (224,))),
        TmaCase("load_2d_f32", "f32", (40, 48), (8, 16), ((4, 2), (40, 36), (-4, -3))),
        TmaCase("load_3d_u16", "u16", (6, 10, 24), (4, 4, 8), ((0, 0, 0), (20, 7, 4), (-8, 3, -2))),
        TmaCase("load_4d_u8", "u8", (3, 4, 5, 32), (2, 2, 3, 16), ((0, 0, 0, 0), (24, 4, 3, 2))),
        TmaCase("load_5d_f64", "f64", (2, 3, 3, 4, 6), (1, 2, 2, 3, 2), ((0, 0, 0, 0, 0), (5, 2, 2, 2, 1))),
        TmaCase("load_2d_s32_pad", "s32", (12, 20), (4, 8), ((0, 0), (16, 10)), pad=48),
        TmaCase("load_1d_u64", "u64", (100,), (32,), ((0,), (80,))),
        TmaCase("load_2d_f16_sw32", "f16", (32, 64), (8, 16), ((0, 0), (40, 8), (56, 28)), swizzle="32B"),
        TmaCase("load_2d_bf16_sw64", "bf16", (32, 64), (16, 32), ((0, 0), (48, 24)), swizzle="64B"),
        TmaCase("load_2d_f32_sw128", "f32", (40, 64), (16, 32), ((0, 0), (40, 30)), swizzle="128B"),
        TmaCase("load_2d_f32_sw128_narrow", "f32", (16, 32), (8, 16), ((0, 0), (16, 8)), swizzle="128B"),
        TmaCase("load_2d_u16_sw64_narrow", "u16", (16, 64), (8, 16), ((0, 0), (48, 8)), swizzle="64B"),
        TmaCase("load_3d_u8_sw128", "u8", (4, 12, 160), (2, 8, 128), ((0, 0, 0), (64, 8, 3)), swizzle="128B"),
        TmaCase("load_2d_f32_nan", "f32", (20, 20), (8, 8), ((16, 16), (-4, 2)), oob_fill="nan"),
        TmaCase("load_2d_bf16_nan", "bf16", (20, 24), (8, 16), ((16, 16),), oob_fill="nan"),
        TmaCase("load_2d_f32_estride", "f32", (32, 32), (8, 16), ((0, 0), (16, 26)), element_strides=(2, 1)),
        TmaCase("load_3d_f32_estride", "f32", (9, 8, 16), (6, 4, 4), ((0, 0, 0), (12, 6, 5)),
                element_strides=(3, 2, 1)),
        TmaCase("load_2d_f32_global", "f32", (16, 32), (8, 8), ((8, 4),), map_in="global"),
        TmaCase("prefetch_2d_u32", "u32", (16, 32), (8, 8), ((4, 4),), kind="prefetch"),
        TmaCase("multicast_2d_f32", "f32", (32, 32), (8, 16), ((4, 2), (0, 0)), kind="multicast"),
        TmaCase("store_1d_u32", "u32", (100,), (32,), ((0,), (80,)), kind="store"),
        TmaCase("store_2d_f32", "f32", (20, 24), (8, 8), ((0, 0), (20, 16), (-4, -2)), kind="store"),
        TmaCase("store_3d_u16_sw64", "u16", (4, 8, 40), (2, 4, 32), ((0, 0, 0), (16, 6, 3)), kind="store",
                swizzle="64B"),
        TmaCase("store_2d_f32_sw128", "f32", (16, 40), (8, 32), ((0, 0), (16, 12)), kind="store", swizzle="128B"),
        TmaCase("store_2d_f32_estride", "f32", (16, 16), (8, 8), ((0, 0), (8, 10)), kind="store",
                element_strides=(2, 1)),
    ]
    for op, dt in (("add", "s32"), ("add", "u64"), ("min", "s32"), ("max", "u32"), ("inc", "u32"), ("dec", "u32"),
                   ("and", "u32"), ("or", "u64"), ("xor", "u32")):
        C.append(TmaCase(f"reduce_{op}_2d_{dt}", dt, (16, 24), (8, 8), ((0, 0), (4, 4), (20, 12)), kind=f"reduce.{op}"))
    for dt in ("f32", "f16", "bf16"):
        C.append(TmaCase(f"reduce_add_2d_{dt}", dt, (16, 32), (8, 16), ((0, 0), (8, 4), (24, 12)),
                         kind="reduce.add", small=True))
    C.append(TmaCase("reduce_min_2d_f16", "f16", (16, 32), (8, 16), ((0, 0), (8, 4)), kind="reduce.min", small=True))
    for name, dt, op in (("reduce_add_2d_f32_bits", "f32", "add"), ("reduce_add_2d_f16_bits", "f16", "add"),
                         ("reduce_max_2d_bf16_bits", "bf16", "max")):  # one CTA: any bits, no overlap
        C.append(TmaCase(name, dt, (16, 32), (8, 16), ((4, 2),), kind=f"reduce.{op}"))
    C.append(TmaCase("load_2d_f32_sw128_off256", "f32", (32, 64), (16, 32), ((0, 0), (24, 8)), swizzle="128B",
                     dst_offset=256))
    # the rules behind the H200's illegal instructions (stores at negative coordinates; unaligned starts)
    C.append(TmaCase("store_2d_f32_negx", "f32", (20, 24), (8, 8), ((-4, 0),), kind="store"))
    C.append(TmaCase("store_2d_f32_negy", "f32", (20, 24), (8, 8), ((0, -2),), kind="store"))
    C.append(TmaCase("reduce_add_2d_s32_neg", "s32", (16, 24), (8, 8), ((-4, -4),), kind="reduce.add"))
    C.append(TmaCase("load_2d_f32_x8", "f32", (16, 32), (8, 8), ((2, 0),)))
    C.append(TmaCase("reduce_add_2d_f16_bits8", "f16", (16, 32), (8, 16), ((8, 2),), kind="reduce.add"))
    C.append(TmaCase("reduce_max_2d_bf16_bits8", "bf16", (16, 32), (8, 16), ((8, 2),), kind="reduce.max"))
    C.append(TmaCase("reduce_add_3d_s32_sw32", "s32", (4, 8, 16), (2, 4, 8), ((0, 0, 0), (8, 6, 3)),
                     kind="reduce.add", swizzle="32B"))
    return C


def by_name() -> dict:
    return {c.name: c for c in cases()}


# ------------------------------------------------------------------------------------- the PTX

def _coords(rank: int) -> str:
    return "{" + ", ".join(f"%c{i}" for i in range(rank)) + "}"


def kernel_ptx(case: TmaCase) -> str:
    """Kernel `tma(tmap, out, coords, aux)`: tmap a 128-byte .param (map_in generic) or a
    .u64 pointer to the map in global memory (map_in global); out the shared buffers (loads) or
    unused; coords s32[ctas][5]; aux the shared input (stores, reductions)."""
    r = case.rank
    smem = case.smem_bytes
    cluster = case.kind == "multicast"
    tm_param = ".param .u64 tmap_ptr" if case.map_in == "global" else ".param .align 64 .b8 tmap[128]"
    L = [".version 8.4", ".target sm_90", ".address_size 64", "",
         f".visible .entry tma({tm_param}, .param .u64 pout, .param .u64 pcoords, .param .u64 paux)"]
    if cluster:
        L.append(".reqnctapercluster 2, 1, 1")
    L += ["{", "    .reg .pred %p, %leader, %done;", "    .reg .b32 %r<16>, %c<5>, %sm, %bar;",
          "    .reg .b64 %rd<16>, %tm, %tok;", "    .reg .b16 %h;",
          f"    .shared .align 1024 .b8 smem[{smem}];", "    .shared .align 8 .b64 mbar;",
          "    ld.param.u64 %rd1, [pout];", "    ld.param.u64 %rd2, [pcoords];", "    ld.param.u64 %rd3, [paux];",
          "    cvta.to.global.u64 %rd1, %rd1;", "    cvta.to.global.u64 %rd2, %rd2;", "    cvta.to.global.u64 %rd3, %rd3;",
          "    mov.u32 %r1, %tid.x;", "    mov.u32 %r2, %ctaid.x;", "    mov.u32 %sm, smem;", "    mov.u32 %bar, mbar;",
          "    setp.eq.u32 %leader, %r1, 0;",
          "    mul.lo.u32 %r3, %r2, 20;", "    cvt.u64.u32 %rd4, %r3;", "    add.u64 %rd4, %rd2, %rd4;"]
    for i in range(r):
        L.append(f"    ld.global.s32 %c{i}, [%rd4+{4 * i}];")
    if case.map_in == "generic":
        L += ["    mov.u64 %tm, tmap;", "    cvta.param.u64 %tm, %tm;"]
        tm = "%tm"
    else:
        L += ["    ld.param.u64 %tm, [tmap_ptr];"]
        tm = "%tm"
    # fill the shared buffer: the sentinel (loads) or this CTA's input (stores, reductions)
    L += [f"    mul.wide.u32 %rd5, %r2, {smem};", "    add.u64 %rd6, %rd3, %rd5;", "    mov.u32 %r4, %r1;", "FILL:",
          f"    setp.ge.u32 %p, %r4, {smem // 4};", "    @%p bra FILLED;", "    shl.b32 %r5, %r4, 2;",
          "    add.u32 %r6, %sm, %r5;"]
    if case.kind in ("store",) or case.red_op():
        L += ["    cvt.u64.u32 %rd7, %r5;", "    add.u64 %rd7, %rd6, %rd7;", "    ld.global.u32 %r7, [%rd7];"]
    else:
        L += [f"    mov.u32 %r7, {SENTINEL * 0x01010101};"]
    L += ["    st.shared.u32 [%r6], %r7;", "    add.u32 %r4, %r4, 128;", "    bra FILL;", "FILLED:",
          "    @%leader mbarrier.init.shared::cta.b64 [%bar], 1;", "    fence.mbarrier_init.release.cluster;",
          "    fence.proxy.async.shared::cta;"]
    if cluster:
        L += ["    barrier.cluster.arrive.release.aligned;", "    barrier.cluster.wait.acquire.aligned;"]
    else:
        L += ["    bar.sync 0;"]
    co = f"[{tm}, {_coords(r)}]"
    dim = f"{r}d"
    box = "%sm"
    if case.dst_offset:
        L += [f"    add.u32 %r9, %sm, {case.dst_offset};"]
        box = "%r9"
    if case.kind in ("load", "prefetch", "multicast"):
        L += [f"    @%leader mbarrier.arrive.expect_tx.shared::cta.b64 %tok, [%bar], {case.box_bytes};"]
        if case.kind == "prefetch":
            L += [f"    @%leader cp.async.bulk.prefetch.tensor.{dim}.L2.global.tile {co};"]
        if case.kind == "multicast":
            L += ["    mov.u32 %r8, %cluster_ctarank;", "    setp.eq.u32 %p, %r8, 0;", "    and.pred %p, %p, %leader;",
                  "    mov.u16 %h, 3;",
                  f"    @%p cp.async.bulk.tensor.{dim}.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                  f".multicast::cluster [%sm], {co}, [%bar], %h;"]
        else:
            L += [f"    @%leader cp.async.bulk.tensor.{dim}.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
                  f"[{box}], {co}, [%bar];"]
        L += ["WAIT:", "    mbarrier.try_wait.parity.shared::cta.b64 %done, [%bar], 0;", "    @!%done bra WAIT;",
              "    ld.param.u64 %rd1, [pout];", "    cvta.to.global.u64 %rd1, %rd1;",
              "    add.u64 %rd8, %rd1, %rd5;", "    mov.u32 %r4, %r1;", "COPY:",
              f"    setp.ge.u32 %p, %r4, {smem // 4};", "    @%p bra END;", "    shl.b32 %r5, %r4, 2;",
              "    add.u32 %r6, %sm, %r5;", "    ld.shared.u32 %r7, [%r6];", "    cvt.u64.u32 %rd9, %r5;",
              "    add.u64 %rd9, %rd8, %rd9;", "    st.global.u32 [%rd9], %r7;", "    add.u32 %r4, %r4, 128;",
              "    bra COPY;"]
    else:
        op = case.red_op()
        if op:
            instr = f"cp.reduce.async.bulk.tensor.{dim}.global.shared::cta.{op}.tile.bulk_group"
        else:
            instr = f"cp.async.bulk.tensor.{dim}.global.shared::cta.tile.bulk_group"
        L += [f"    @%leader {instr} {co}, [{box}];", "    @%leader cp.async.bulk.commit_group;",
              "    @%leader cp.async.bulk.wait_group 0;"]
    L += ["END:"]
    if cluster:
        L += ["    barrier.cluster.arrive.release.aligned;", "    barrier.cluster.wait.acquire.aligned;"]
    L += ["    ret;", "}", ""]
    return "\n".join(L)


def launch(case: TmaCase) -> tuple:
    """(grid, block)."""
    return case.ctas, 128


# ------------------------------------------------------------------------------- im2col probes

@dataclass(frozen=True)
class Im2colCase:
    """cp.async.bulk.tensor .im2col loads over an NWC / NHWC tensor of u32 whose elements hold
    their own linear index + 1 (0 marks a filled element), to see which elements each load takes.
    shape in NumPy order (N, [H,] W, C); lower/upper: the bounding-box corners as passed to
    cuTensorMapEncodeIm2col (array order); coords per CTA innermost first (c, w, [h,] n); offsets
    per CTA (the im2colInfo operand, innermost first)."""

    name: str
    shape: tuple
    lower: tuple
    upper: tuple
    channels: int
    pixels: int
    coords: tuple
    offsets: tuple

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def ctas(self) -> int:
        return len(self.coords)

    @property
    def box_bytes(self) -> int:
        return self.channels * self.pixels * 4

    @property
    def smem_bytes(self) -> int:
        return max(1024, -(-self.box_bytes // 1024) * 1024)

    def global_strides(self) -> tuple:
        out, s = [], self.shape[-1] * 4
        for d in reversed(self.shape[:-1]):
            out.append(s)
            s *= d
        return tuple(out)


def im2col_tensor(case: Im2colCase) -> np.ndarray:
    return (np.arange(int(np.prod(case.shape)), dtype=np.uint32) + 1).view(np.uint8)


def im2col_coords(case: Im2colCase) -> np.ndarray:
    a = np.zeros((case.ctas, 8), np.int32)
    for i, (c, o) in enumerate(zip(case.coords, case.offsets)):
        a[i, : len(c)] = c
        a[i, 5: 5 + len(o)] = o
    return a.reshape(-1)


def im2col_cases() -> list:
    return [
        Im2colCase("im2col_3d_nwc", (2, 10, 8), (-1,), (-2,), 8, 16,
                   ((0, -1, 0), (0, 5, 0), (0, -1, 0), (0, 7, 1)), ((0,), (0,), (2,), (1,))),
        Im2colCase("im2col_4d_nhwc", (2, 5, 6, 4), (-1, -2), (-1, 0), 4, 32,
                   ((0, 0, 0, 0), (0, -1, -2, 0), (0, 3, 2, 1), (0, 0, 0, 0)), ((0, 0), (0, 0), (1, 0), (2, 1))),
        Im2colCase("im2col_4d_nhwc_c8", (1, 4, 4, 16), (0, 0), (-1, -1), 8, 16,
                   ((0, 0, 0, 0), (8, 1, 1, 0)), ((0, 0), (1, 1))),
    ]


def im2col_ptx(case: Im2colCase) -> str:
    """Kernel `im2col(tmap, out, coords)`: each CTA loads one column into its shared buffer (pre-
    filled with the sentinel) and copies the buffer out. coords: s32[ctas][8], offsets at [5..7]."""
    r = case.rank
    smem = case.smem_bytes
    noff = r - 2
    coords = "{" + ", ".join(f"%c{i}" for i in range(r)) + "}"
    offs = "{" + ", ".join(f"%o{i}" for i in range(noff)) + "}"
    L = [".version 8.4", ".target sm_90", ".address_size 64", "",
         ".visible .entry im2col(.param .align 64 .b8 tmap[128], .param .u64 pout, .param .u64 pcoords)", "{",
         "    .reg .pred %p, %leader, %done;", "    .reg .b32 %r<12>, %c<5>, %q<3>, %sm, %bar;",
         "    .reg .b16 %o<3>;", "    .reg .b64 %rd<12>, %tm, %tok;",
         f"    .shared .align 1024 .b8 smem[{smem}];", "    .shared .align 8 .b64 mbar;",
         "    ld.param.u64 %rd1, [pout];", "    ld.param.u64 %rd2, [pcoords];",
         "    cvta.to.global.u64 %rd1, %rd1;", "    cvta.to.global.u64 %rd2, %rd2;",
         "    mov.u64 %tm, tmap;", "    cvta.param.u64 %tm, %tm;",
         "    mov.u32 %r1, %tid.x;", "    mov.u32 %r2, %ctaid.x;", "    mov.u32 %sm, smem;", "    mov.u32 %bar, mbar;",
         "    setp.eq.u32 %leader, %r1, 0;", "    mul.wide.u32 %rd3, %r2, 32;", "    add.u64 %rd3, %rd2, %rd3;"]
    L += [f"    ld.global.s32 %c{i}, [%rd3+{4 * i}];" for i in range(r)]
    for i in range(noff):
        L += [f"    ld.global.s32 %q{i}, [%rd3+{20 + 4 * i}];", f"    cvt.u16.u32 %o{i}, %q{i};"]
    L += ["    mov.u32 %r4, %r1;", "FILL:", f"    setp.ge.u32 %p, %r4, {smem // 4};", "    @%p bra FILLED;",
          "    shl.b32 %r5, %r4, 2;", "    add.u32 %r6, %sm, %r5;", f"    mov.u32 %r7, {SENTINEL * 0x01010101};",
          "    st.shared.u32 [%r6], %r7;", "    add.u32 %r4, %r4, 128;", "    bra FILL;", "FILLED:",
          "    @%leader mbarrier.init.shared::cta.b64 [%bar], 1;", "    fence.mbarrier_init.release.cluster;",
          "    fence.proxy.async.shared::cta;", "    bar.sync 0;",
          f"    @%leader mbarrier.arrive.expect_tx.shared::cta.b64 %tok, [%bar], {case.box_bytes};",
          f"    @%leader cp.async.bulk.tensor.{r}d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes "
          f"[%sm], [%tm, {coords}], [%bar], {offs};",
          "WAIT:", "    mbarrier.try_wait.parity.shared::cta.b64 %done, [%bar], 0;", "    @!%done bra WAIT;",
          f"    mul.wide.u32 %rd5, %r2, {smem};", "    add.u64 %rd8, %rd1, %rd5;", "    mov.u32 %r4, %r1;", "COPY:",
          f"    setp.ge.u32 %p, %r4, {smem // 4};", "    @%p bra END;", "    shl.b32 %r5, %r4, 2;",
          "    add.u32 %r6, %sm, %r5;", "    ld.shared.u32 %r7, [%r6];", "    cvt.u64.u32 %rd9, %r5;",
          "    add.u64 %rd9, %rd8, %rd9;", "    st.global.u32 [%rd9], %r7;", "    add.u32 %r4, %r4, 128;",
          "    bra COPY;", "END:", "    ret;", "}", ""]
    return "\n".join(L)
