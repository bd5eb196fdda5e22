"""Tensor copies through tensor maps (cp.async.bulk.tensor loads, multicast loads, stores,
reductions and L2 prefetches; prefetch.tensormap), the tensor-map editing instructions
(tensormap.replace, tensormap.cp_fenceproxy) and setmaxnreg.

The tensor cases run 4 CTAs of 128 threads; the map (a kernel parameter, `TensorMapArg`) covers
the memory array `t`. Each CTA moves one box at coordinates that are linear in its CTA index
(some boxes reach past the tensor's edges), thread 0 issuing the copy; every thread then stores
its 16 bytes of the CTA's 2048-byte shared buffer (prefilled with the lane's input `a`, so that
bytes the copy leaves alone show). Stores and reductions send the CTA's slice of the memory
array `s` to the tensor, whose final contents are the result. Waits on the mbarrier give up
after a bounded number of tries, so that a wrong transaction count cannot hang the GPU.

The tensormap.replace cases edit maps two ways: (1) a copy of the parameter map in shared memory
is edited, published to global memory with tensormap.cp_fenceproxy and used by a load (the
result is what the edited map loads; the global copy is cleared afterwards, as its address
bytes differ between runs); (2) each lane edits its own 128 bytes of the memory array `m` (random
contents) with one field value derived from its input, and the raw bytes are the result: they
show which bits of the hardware's map encoding each field writes.
"""
from __future__ import annotations

import dataclasses
from math import prod

from ._helpers import case, mark_ci
from ..case import Memory, TensorMapArg
from .. import inputs as I

F = "tensor"
CTAS, BLOCK = 4, 128
KEY = I.key("unary", "u32", arg=CTAS * BLOCK)
RAW_LANES = 64
KEY1 = I.key("unary", "u32", arg=RAW_LANES)
SIZES = {"u8": 1, "u16": 2, "f16": 2, "bf16": 2, "u32": 4, "s32": 4, "f32": 4, "u64": 8, "s64": 8, "f64": 8}
MEM_TYPE = {"u8": "u8", "u16": "u16", "f16": "f16", "bf16": "u16", "u32": "u32", "s32": "s32", "f32": "f32",
            "u64": "u64", "s64": "s64", "f64": "f64"}
DECLS = ("  .shared .align 1024 .b8 sh_box[2048];\n  .shared .align 8 .b64 sh_mb;\n"
         "  .shared .align 128 .b8 sh_map[128];\n"
         "  .reg .pred %q<4>;\n  .reg .b32 %s<16>, %c<5>;\n  .reg .b64 %e<16>;")
TRIES = 20000  # mbarrier try_wait attempts before giving up (the result then shows it)


def _tensor(dtype: str, shape: tuple, init: str = "random", name: str = "t", spare: int = 0) -> Memory:
    """The tensor's memory array (`spare` more elements: arrays with equal signatures start equal)."""
    return Memory(name, MEM_TYPE[dtype], prod(shape) + spare, init)


def _src(dtype: str) -> Memory:
    return Memory("s", MEM_TYPE[dtype], CTAS * 2048 // SIZES[dtype])


def box_bytes(dtype: str, box: tuple, es=None) -> int:
    es = es or (1,) * len(box)
    counts = [b if i == len(box) - 1 else -(-b // e) for i, (b, e) in enumerate(zip(box, es))]
    return prod(counts) * SIZES[dtype]


# %s0 = tid, %s1 = ctaid, %s2 = &sh_box, %s3 = &sh_mb, %s4 = &sh_box[16 tid]; %q0 = thread 0
PRO = ("mov.u32 %s0, %tid.x;\nmov.u32 %s1, %ctaid.x;\nmov.u32 %s2, sh_box;\nmov.u32 %s3, sh_mb;\n"
       "shl.b32 %s4, %s0, 4;\nadd.u32 %s4, %s4, %s2;\nsetp.eq.u32 %q0, %s0, 0;\n")
FILL_A = "st.shared.v4.u32 [%s4], {{{a}, {a}, {a}, {a}}};\n"
# this thread's 16 bytes of the CTA's slice of s
FILL_S = ("mul.wide.u32 %e0, %t_idx, 16;\nadd.s64 %e0, {s}, %e0;\nld.global.v4.u32 {{%s8, %s9, %s10, %s11}}, [%e0];\n"
          "st.shared.v4.u32 [%s4], {{%s8, %s9, %s10, %s11}};\n")
INIT_MB = ("@%q0 mbarrier.init.shared::cta.b64 [%s3], 1;\nfence.mbarrier_init.release.cluster;\n"
           "fence.proxy.async.shared::cta;\n")
READ = "ld.shared.v4.u32 {d}, [%s4];"


def wait(tag: str) -> str:
    return (f"mov.u32 %s7, 0;\n$L_w{tag}:\nmbarrier.try_wait.parity.shared::cta.b64 %q1, [%s3], 0;\n"
            f"@%q1 bra $L_ok{tag};\nadd.u32 %s7, %s7, 1;\nsetp.lt.u32 %q1, %s7, {TRIES};\n@%q1 bra $L_w{tag};\n"
            f"$L_ok{tag}:\n")


def coords(steps: tuple, offs: tuple, cta: str = "%s1") -> str:
    """%c<i> = cta * steps[i] + offs[i] (innermost first)."""
    return "".join(f"mad.lo.s32 %c{i}, {cta}, {s}, {o};\n" for i, (s, o) in enumerate(zip(steps, offs)))


def operand(rank: int, tm: str = "{t}") -> str:
    return f"[{tm}, {{{{" + ", ".join(f"%c{i}" for i in range(rank)) + "}}]"


def tcase(spelling: str, body: str, tmap: TensorMapArg, mems, variant: str = "", version: str = "8.0",
          target: str = "sm_90", cluster: str = "", note: str = ""):
    return case(F, spelling, "d:u32*4", "a:u32", KEY, memory=tuple(mems), tmaps=(tmap,), decls=DECLS,
                variant=variant, asm=body, version=version, target=target, block=BLOCK, truncatable=False,
                lanes_multiple=BLOCK, entry_directives=cluster, note=note)


# --------------------------------------------------------------------------- loads

LOADS = [  # variant, dtype, shape, box, element strides, swizzle, oob fill, coordinate steps / offsets
    ("2d_f32", "f32", (40, 48), (8, 16), None, "none", "none", (16, 8), (-8, -4)),
    ("2d_f32_nan", "f32", (20, 36), (8, 16), None, "none", "nan", (12, 5), (-4, -3)),
    ("2d_u16_sw32", "u16", (32, 64), (16, 16), None, "32B", "none", (16, 8), (0, -2)),
    ("2d_bf16_sw64", "bf16", (24, 80), (16, 32), None, "64B", "none", (24, 6), (-8, 0)),
    ("2d_f32_sw128", "f32", (40, 64), (16, 32), None, "128B", "none", (20, 9), (-4, -8)),
    ("3d_u8_estride", "u8", (6, 10, 96), (4, 8, 32), (2, 3, 1), "none", "none", (32, 3, 2), (-16, -1, 0)),
    ("4d_s32", "s32", (3, 4, 5, 16), (2, 2, 4, 8), None, "none", "none", (4, 2, 1, 1), (-4, -1, 0, -1)),
    ("5d_u64", "u64", (2, 3, 3, 4, 6), (1, 2, 2, 2, 4), None, "none", "none", (2, 1, 1, 1, 0), (0, 0, -1, 0, 0)),
]


def load_body(rank, dtype, box, es, steps, offs, instr: str, pre: str = "") -> str:
    n = box_bytes(dtype, box, es)
    return (PRO + FILL_A + INIT_MB + "bar.sync 0;\n" + coords(steps, offs) + pre
            + f"@%q0 mbarrier.arrive.expect_tx.shared::cta.b64 %e1, [%s3], {n};\n"
            + f"@%q0 {instr} [%s2], {operand(rank)}, [%s3]{{hint}};\n" + wait("") + READ)


def load_cases():
    C = []
    base = "cp.async.bulk.tensor.{r}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
    for var, dt, shape, box, es, swz, oob, steps, offs in LOADS:
        r = len(shape)
        tm = TensorMapArg("t", "t", dt, shape, box, es, swz, oob)
        sp = base.format(r=r)
        C.append(tcase(sp, load_body(r, dt, box, es, steps, offs, sp).replace("{hint}", ""), tm,
                       [_tensor(dt, shape)], variant=var))
    # into this CTA's shared memory named as shared::cta (PTX 8.6)
    for var, dt, shape, box, es, swz, oob, steps, offs in (LOADS[0], LOADS[5]):
        r = len(shape)
        tm = TensorMapArg("t", "t", dt, shape, box, es, swz, oob)
        sp = f"cp.async.bulk.tensor.{r}d.shared::cta.global.tile.mbarrier::complete_tx::bytes"
        C.append(tcase(sp, load_body(r, dt, box, es, steps, offs, sp).replace("{hint}", ""), tm,
                       [_tensor(dt, shape)], variant=var, version="8.6"))
    # the cache hint
    var, dt, shape, box, es, swz, oob, steps, offs = LOADS[0]
    tm = TensorMapArg("t", "t", dt, shape, box, es, swz, oob)
    sp = base.format(r=2) + ".L2::cache_hint"
    body = load_body(2, dt, box, es, steps, offs, sp, pre="createpolicy.fractional.L2::evict_last.b64 %e2, 1.0;\n")
    C.append(tcase(sp, body.replace("{hint}", ", %e2"), tm, [_tensor(dt, shape)], variant="2d_f32"))
    # the L2 prefetch of the same box first
    for hint in ("", ".L2::cache_hint"):
        sp = f"cp.async.bulk.prefetch.tensor.2d.L2.global.tile{hint}"
        pre = ("createpolicy.fractional.L2::evict_first.b64 %e2, 1.0;\n" if hint else "") + \
              f"@%q0 {sp} {operand(2)}{', %e2' if hint else ''};\n"
        body = load_body(2, dt, box, es, steps, offs, base.format(r=2), pre=pre).replace("{hint}", "")
        C.append(tcase(sp, body, tm, [_tensor(dt, shape)], variant="2d_f32"))
    # prefetch of the map itself (generic address, and the parameter space by name)
    for sp, arg in (("prefetch.tensormap", "{t}"), ("prefetch.param.tensormap", "tmap_t")):
        pre = f"@%q0 {sp} [{arg}];\n"
        body = load_body(2, dt, box, es, steps, offs, base.format(r=2), pre=pre).replace("{hint}", "")
        C.append(tcase(sp, body, tm, [_tensor(dt, shape)], variant="2d_f32"))
    return C


# --------------------------------------------------------------------------- multicast

def multicast_cases():
    """Clusters of 2 CTAs: rank 0 loads its cluster's box into both CTAs' buffers (mask 0b11),
    each CTA's mbarrier counting its own bytes."""
    C = []
    for var, dt, shape, box, swz in (("2d_f32", "f32", (32, 48), (8, 16), "none"),
                                     ("2d_f16_sw128", "f16", (24, 128), (8, 64), "128B")):
        n = box_bytes(dt, box)
        tm = TensorMapArg("t", "t", dt, shape, box, None, swz)
        sp = ("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
              ".multicast::cluster")
        body = (PRO + FILL_A + INIT_MB + "barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n"
                + "mov.u32 %s5, %clusterid.x;\n" + coords((box[1] * 2, box[0] + 3), (-box[1] // 2, -3), "%s5")
                + "mov.u32 %s6, %cluster_ctarank;\nsetp.eq.u32 %q2, %s6, 0;\nand.pred %q2, %q2, %q0;\n"
                + "mov.u16 %t_h, 3;\n"
                + f"@%q0 mbarrier.arrive.expect_tx.shared::cta.b64 %e1, [%s3], {n};\n"
                + f"@%q2 {sp} [%s2], {operand(2)}, [%s3], %t_h;\n" + wait("")
                + "barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" + READ)
        C.append(tcase(sp, body, tm, [_tensor(dt, shape)], variant=var, cluster=".reqnctapercluster 2, 1, 1"))
    return C


# --------------------------------------------------------------------------- stores and reductions

STORES = [  # variant, dtype, shape, box, swizzle, steps, offsets (non-negative starts: see hardware-notes)
    ("2d_f32", "f32", (36, 40), (8, 16), "none", (8, 9), (0, 1)),
    ("2d_u16_sw64", "u16", (40, 72), (8, 32), "64B", (16, 8), (8, 2)),
    ("3d_u8", "u8", (8, 12, 80), (2, 8, 64), "none", (16, 2, 2), (0, 1, 0)),
]
REDUCTIONS = [  # op, map dtype, shape, box
    ("add", "u32"), ("add", "s32"), ("min", "s32"), ("max", "u32"), ("inc", "u32"), ("dec", "u32"),
    ("and", "u32"), ("or", "s32"), ("xor", "u64"), ("add", "u64"), ("min", "s64"), ("max", "s64"),
    ("add", "f32"), ("min", "f32"), ("add", "f16"), ("max", "f16"), ("min", "bf16"), ("add", "bf16"),
    ("max", "f32"), ("add", "f64"), ("min", "f64"), ("inc", "s32"), ("inc", "u64"), ("and", "f16"),
]
# operation and element type pairs the H200 refuses at run time (the type comes from the map):
# recorded as expected faults when they stop the launch
MAY_FAULT = {("min", "f32"), ("max", "f32"), ("add", "f64"), ("min", "f64"), ("inc", "s32"), ("inc", "u64"),
             ("and", "f16")}


def store_body(rank: int, steps, offs, instr: str) -> str:
    return (PRO + FILL_S + "fence.proxy.async.shared::cta;\nbar.sync 0;\n" + coords(steps, offs)
            + f"@%q0 {instr} {operand(rank)}, [%s2];\n@%q0 cp.async.bulk.commit_group;\n"
            + "@%q0 cp.async.bulk.wait_group.read 0;\n@%q0 cp.async.bulk.wait_group 0;\n" + READ)


def store_cases():
    C = []
    for var, dt, shape, box, swz, steps, offs in STORES:
        r = len(shape)
        tm = TensorMapArg("t", "t", dt, shape, box, None, swz)
        sp = f"cp.async.bulk.tensor.{r}d.global.shared::cta.tile.bulk_group"
        C.append(tcase(sp, store_body(r, steps, offs, sp), tm, [_tensor(dt, shape), _src(dt)], variant=var))
    sp = "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group.L2::cache_hint"
    var, dt, shape, box, swz, steps, offs = STORES[0]
    tm = TensorMapArg("t", "t", dt, shape, box, None, swz)
    body = store_body(2, steps, offs, sp).replace("[%s2];", "[%s2], %e2;")
    body = body.replace("bar.sync 0;\n", "bar.sync 0;\ncreatepolicy.fractional.L2::evict_first.b64 %e2, 1.0;\n", 1)
    C.append(tcase(sp, body, tm, [_tensor(dt, shape), _src(dt)], variant=var))
    for op, dt in REDUCTIONS:
        shape, box = (24, 40 * 8 // (SIZES[dt] * 2)), (8, 64 // SIZES[dt])
        tm = TensorMapArg("t", "t", dt, shape, box)
        sp = f"cp.reduce.async.bulk.tensor.2d.global.shared::cta.{op}.tile.bulk_group"
        steps, offs = (box[1], 5), (0, 0)  # disjoint boxes (float sums depend on the order)
        c = tcase(sp, store_body(2, steps, offs, sp), tm, [_tensor(dt, shape), _src(dt)], variant=f"{dt}")
        if (op, dt) in MAY_FAULT:
            c = dataclasses.replace(c, expect_fault=f".{op} on a {dt} tensor map may be an illegal instruction")
        C.append(c)
    return C


# --------------------------------------------------------------------------- tensormap.replace, used

COPY_MAP = "".join(f"ld.param.v2.u64 {{{{%e4, %e5}}}}, [tmap_t+{16 * k}];\nst.shared.v2.u64 [%s5+{16 * k}], {{{{%e4, %e5}}}};\n"
                   for k in range(8))
CLEAR_GMAP = "".join(f"@%q0 st.global.v2.u64 [%e6+{16 * k}], {{{{%e4, %e4}}}};\n" for k in range(8))


def replace_use_body(edits: str, rank: int, dtype: str, box, es, steps, offs, fence: str = "gpu",
                     ss: str = "shared::cta") -> str:
    """Edit a copy of the parameter map (in shared memory, or in global memory for ss=global),
    publish it to this CTA's 128 bytes of g, load one box through it, clear g."""
    n = box_bytes(dtype, box, es)
    head = (PRO + FILL_A + "mov.u32 %s5, sh_map;\nmul.wide.u32 %e6, %s1, 128;\nadd.s64 %e6, {g}, %e6;\n")
    if ss == "shared::cta":
        edit = ("@!%q0 bra $L_edited;\n" + COPY_MAP + edits.replace("[MAP]", "[%s5]") + "$L_edited:\nbar.sync 0;\n"
                "setp.lt.u32 %q3, %s0, 32;\n@!%q3 bra $L_published;\n"
                f"tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.{fence}.sync.aligned "
                "[%e6], [%s5], 128;\n$L_published:\n")
    else:
        copy = "".join(f"ld.param.v2.u64 {{{{%e4, %e5}}}}, [tmap_t+{16 * k}];\nst.global.v2.u64 [%e6+{16 * k}], {{{{%e4, %e5}}}};\n"
                       for k in range(8))
        edit = ("@!%q0 bra $L_edited;\n" + copy + edits.replace("[MAP]", "[%e6]")
                + "fence.proxy.tensormap::generic.release.gpu;\n$L_edited:\n")
    return (head + edit + INIT_MB + "bar.sync 0;\n" + coords(steps, offs)
            + "@%q0 fence.proxy.tensormap::generic.acquire.gpu [%e6], 128;\n"
            + f"@%q0 mbarrier.arrive.expect_tx.shared::cta.b64 %e1, [%s3], {n};\n"
            + f"@%q0 cp.async.bulk.tensor.{rank}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
            + f"[%s2], {operand(rank, '%e6')}, [%s3];\n" + wait("")
            + "mov.u64 %e4, 0;\n" + CLEAR_GMAP + READ)


def replace_use_cases():
    C = []
    G = Memory("g", "u32", CTAS * 32, "zero")
    base = dict(dtype="f32", shape=(40, 48), box=(8, 16))

    def add(field: str, edits: str, typ: str, *, dtype="f32", shape=(40, 48), box=(8, 16), es=None, swz="none",
            oob="none", new_box=None, new_es=None, new_dtype=None, rank=None, steps=(16, 8), offs=(-8, -4),
            extra=(), variant="", fence="gpu", ss="shared::cta"):
        tm = TensorMapArg("t", "t", dtype, shape, box, es, swz, oob)
        r = rank or len(shape)
        body = replace_use_body(edits, r, new_dtype or dtype, new_box or box, new_es or es, steps, offs, fence, ss)
        sp = f"tensormap.replace.tile.{field}.{ss}.b1024.{typ}"
        C.append(tcase(sp, body, tm, [_tensor(dtype, shape), G, *extra], variant=variant or "use",
                       version="8.3", target="sm_90a"))

    # the address of a second tensor u (same shape)
    add("global_address", "tensormap.replace.tile.global_address.shared::cta.b1024.b64 [MAP], {u};\n", "b64",
        extra=(_tensor("f32", (40, 48), name="u", spare=64),))
    add("global_address", "tensormap.replace.tile.global_address.global.b1024.b64 [MAP], {u};\n", "b64",
        extra=(_tensor("f32", (40, 48), name="u", spare=64),), ss="global")
    add("rank", "tensormap.replace.tile.rank.shared::cta.b1024.b32 [MAP], 1;\n", "b32", shape=(3, 20, 48),
        box=(1, 8, 16), rank=2)
    add("box_dim", "tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [MAP], 1, 4;\n"
        "tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [MAP], 0, 8;\n", "b32", new_box=(4, 8))
    add("global_dim", "tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [MAP], 0, 20;\n"
        "tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [MAP], 1, 13;\n", "b32")
    # rows of 96 bytes instead of 192: the same memory read as an 80 x 24 view
    add("global_stride", "tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [MAP], 0, 96;\n"
        "tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [MAP], 0, 24;\n"
        "tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [MAP], 1, 80;\n", "b64")
    add("element_stride", "tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [MAP], 1, 3;\n", "b32",
        new_es=(3, 1))
    # u32 elements re-read as u16 (dimension 0 counts 2-byte elements then)
    add("elemtype", "tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [MAP], 1;\n", "b32", dtype="u32",
        new_dtype="u16", steps=(16, 8), offs=(-16, -4))
    add("swizzle_mode", "tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [MAP], 3;\n", "b32",
        box=(8, 32), steps=(24, 8), offs=(-8, -4))
    add("fill_mode", "tensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [MAP], 1;\n", "b32")
    for scope in ("cta", "cluster", "sys"):
        sp = f"tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.{scope}.sync.aligned"
        tm = TensorMapArg("t", "t", "f32", (40, 48), (8, 16))
        body = replace_use_body("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [MAP], 1, 22;\n", 2, "f32",
                                (8, 16), None, (16, 8), (-8, -4), scope)
        C.append(tcase(sp, body, tm, [_tensor("f32", (40, 48)), G], variant="use", version="8.3", target="sm_90a"))
    return C


# --------------------------------------------------------------------------- tensormap.replace, raw bytes

def _each(ords, line: str, sel: str = "%s1") -> str:
    """One predicated edit per ordinal / enumerated value k, the lane's selector picking one."""
    return "".join(f"setp.eq.u32 %q1, {sel}, {k};\n@%q1 " + line.replace("{k}", str(k)) for k in ords)


RAW = {  # field: (type, value computation from {a} into %s2 / %e2, the edit)
    "global_address": ("b64", "cvt.u64.u32 %e2, {a};\nshl.b64 %e2, %e2, 4;\nor.b64 %e2, %e2, 0x7f0000000000;\n",
                       "tensormap.replace.tile.global_address.{ss}.b1024.b64 [MAP], %e2;\n"),
    "rank": ("b32", "rem.u32 %s2, {a}, 5;\n", "tensormap.replace.tile.rank.{ss}.b1024.b32 [MAP], %s2;\n"),
    "box_dim": ("b32", "and.b32 %s2, {a}, 255;\nadd.u32 %s2, %s2, 1;\nrem.u32 %s1, %t_idx, 5;\n",
                _each(range(5), "tensormap.replace.tile.box_dim.{ss}.b1024.b32 [MAP], {k}, %s2;\n")),
    "global_dim": ("b32", "shr.u32 %s2, {a}, 1;\nadd.u32 %s2, %s2, 1;\nrem.u32 %s1, %t_idx, 5;\n",
                   _each(range(5), "tensormap.replace.tile.global_dim.{ss}.b1024.b32 [MAP], {k}, %s2;\n")),
    "global_stride": ("b64", "cvt.u64.u32 %e2, {a};\nshl.b64 %e2, %e2, 8;\nand.b32 %s2, {a}, 240;\n"
                      "cvt.u64.u32 %e3, %s2;\nor.b64 %e2, %e2, %e3;\nrem.u32 %s1, %t_idx, 5;\n",
                      _each(range(5), "tensormap.replace.tile.global_stride.{ss}.b1024.b64 [MAP], {k}, %e2;\n")),
    "element_stride": ("b32", "and.b32 %s2, {a}, 7;\nadd.u32 %s2, %s2, 1;\nrem.u32 %s1, %t_idx, 5;\n",
                       _each(range(5), "tensormap.replace.tile.element_stride.{ss}.b1024.b32 [MAP], {k}, %s2;\n")),
    "elemtype": ("b32", "rem.u32 %s1, %t_idx, 13;\n",
                 _each(range(13), "tensormap.replace.tile.elemtype.{ss}.b1024.b32 [MAP], {k};\n")),
    "interleave_layout": ("b32", "rem.u32 %s1, %t_idx, 3;\n",
                          _each(range(3), "tensormap.replace.tile.interleave_layout.{ss}.b1024.b32 [MAP], {k};\n")),
    "swizzle_mode": ("b32", "rem.u32 %s1, %t_idx, 4;\n",
                     _each(range(4), "tensormap.replace.tile.swizzle_mode.{ss}.b1024.b32 [MAP], {k};\n")),
    "fill_mode": ("b32", "and.b32 %s1, %t_idx, 1;\n",
                  _each(range(2), "tensormap.replace.tile.fill_mode.{ss}.b1024.b32 [MAP], {k};\n")),
}


REGS = "  .reg .pred %q<4>;\n  .reg .b32 %s<16>;\n  .reg .b64 %e<16>;"


def raw_cases():
    """Per lane: its own 128 bytes of m (random), one field replaced; m is the result. The
    shared::cta variants start from zeros in shared memory and copy the map out with
    tensormap.cp_fenceproxy (every lane its own map)."""
    C = []
    M = Memory("m", "u32", RAW_LANES * 32)
    for field, (typ, value, edit) in RAW.items():
        body = ("mul.wide.u32 %e0, %t_idx, 128;\nadd.s64 %e0, {m}, %e0;\n" + value
                + edit.replace("{ss}", "global").replace("[MAP]", "[%e0]") + "mov.u32 {d0}, 0;")
        C.append(case(F, f"tensormap.replace.tile.{field}.global.b1024.{typ}", "d0:u32", "a:u32", KEY1, memory=(M,),
                      asm=body, variant="bits", version="8.3", target="sm_90a", block=RAW_LANES, truncatable=False,
                      decls=REGS))
    # an address with its low 4 bits and high 16 bits set: which of them the map keeps
    body = ("mul.wide.u32 %e0, %t_idx, 128;\nadd.s64 %e0, {m}, %e0;\ncvt.u64.u32 %e2, {a};\n"
            "mul.lo.u64 %e2, %e2, 0x100000001;\n"
            "tensormap.replace.tile.global_address.global.b1024.b64 [%e0], %e2;\nmov.u32 {d0}, 0;")
    C.append(case(F, "tensormap.replace.tile.global_address.global.b1024.b64", "d0:u32", "a:u32", KEY1, memory=(M,),
                  asm=body, variant="bits_any", version="8.3", target="sm_90a", block=RAW_LANES, truncatable=False,
                  decls=REGS))
    DS = "  .shared .align 128 .b8 sh_maps[8192];\n" + REGS
    Z = Memory("m", "u32", RAW_LANES * 32, "zero")
    for field, (typ, value, edit) in RAW.items():
        zero = "".join(f"st.shared.v4.u32 [%s5+{16 * k}], {{{{%s6, %s6, %s6, %s6}}}};\n" for k in range(8))
        body = ("mul.wide.u32 %e0, %t_idx, 128;\nadd.s64 %e0, {m}, %e0;\nmov.u32 %s0, %tid.x;\nshl.b32 %s5, %s0, 7;\n"
                "mov.u32 %s6, sh_maps;\nadd.u32 %s5, %s5, %s6;\nmov.u32 %s6, 0;\n" + zero + value
                + edit.replace("{ss}", "shared::cta").replace("[MAP]", "[%s5]")
                + "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned "
                  "[%e0], [%s5], 128;\nmov.u32 {d0}, 0;")
        C.append(case(F, f"tensormap.replace.tile.{field}.shared::cta.b1024.{typ}", "d0:u32", "a:u32", KEY1,
                      memory=(Z,), asm=body, variant="bits", version="8.3", target="sm_90a", block=RAW_LANES,
                      truncatable=False, decls=DS))
    return C


# --------------------------------------------------------------------------- setmaxnreg

def setmaxnreg_cases():
    """One warpgroup (the CTA) gives registers back, synchronizes, and takes them again (an .inc
    beyond what the CTA's pool holds would wait forever), computing with values live across."""
    C = []
    for action, seq in (("dec", ((("dec", 56)),)), ("inc", (("dec", 64), ("inc", 128)))):
        steps = "bar.sync 0;\n".join(f"setmaxnreg.{a}.sync.aligned.u32 {n};\n" for a, n in seq)
        body = "mul.lo.u32 %s0, {a}, 3;\n" + steps + "add.u32 %s1, %s0, 7;\nxor.b32 {d0}, %s1, {a};"
        C.append(case(F, f"setmaxnreg.{action}.sync.aligned.u32", "d0:u32", "a:u32", KEY, asm=body, version="8.0",
                      target="sm_90a", block=BLOCK, lanes_multiple=BLOCK, decls="  .reg .b32 %s<4>;",
                      entry_directives=".maxnreg 128", note="no value changes: the kernel computes as without it"))
    return C


def cases():
    C = load_cases() + multicast_cases() + store_cases() + replace_use_cases() + raw_cases() + setmaxnreg_cases()
    return mark_ci(C, key=lambda c: c.instruction)
