"""Special registers (ISA chapter 10), as per-thread arrays computed by the launcher.

The launcher fills `ctx.sreg[name]` with an array over thread slots (or a scalar) for every
register below; %clock and friends count scheduler steps, which are monotonic as the ISA asks.
"""
from __future__ import annotations

import numpy as np

from ...semantics.dtypes import numpy_dtype
from .memory import RESERVED_SHARED, RESERVED_SHARED_END

_TYPES = {
    "%tid": "u32", "%ntid": "u32", "%laneid": "u32", "%warpid": "u32", "%nwarpid": "u32",
    "%ctaid": "u32", "%nctaid": "u32", "%smid": "u32", "%nsmid": "u32", "%gridid": "u64",
    "%lanemask_eq": "u32", "%lanemask_le": "u32", "%lanemask_lt": "u32", "%lanemask_ge": "u32",
    "%lanemask_gt": "u32", "%clock": "u32", "%clock_hi": "u32", "%clock64": "u64",
    "%globaltimer": "u64", "%globaltimer_lo": "u32", "%globaltimer_hi": "u32",
    "%total_smem_size": "u32", "%dynamic_smem_size": "u32", "%aggr_smem_size": "u32",
    "%is_explicit_cluster": "pred", "%clusterid": "u32", "%nclusterid": "u32",
    "%cluster_ctaid": "u32", "%cluster_nctaid": "u32", "%cluster_ctarank": "u32",
    "%cluster_nctarank": "u32", "%current_graph_exec": "u64",
}
_TYPES.update({f"%envreg{i}": "b32" for i in range(32)})
_TYPES.update({f"%pm{i}": "u32" for i in range(8)})
_TYPES.update({f"%pm{i}_64": "u64" for i in range(8)})
_TYPES.update({f"%reserved_smem_offset_{s}": "b32" for s in ("begin", "end", "cap", "0", "1")})
CLOCKS = ("%clock", "%clock_hi", "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi")


def is_special(name: str) -> bool:
    return name in _TYPES


def type_of(name: str) -> str:
    return _TYPES[name]


def reader(name: str, component, ptx_type: str):
    key = name if component is None else f"{name}.{component}"
    dt = numpy_dtype(ptx_type)
    if name in CLOCKS:
        def read_clock(ctx, lanes):
            t = ctx.step_count * 4 + (0 if name != "%globaltimer" else 1_000_000)
            if name == "%clock_hi":
                t >>= 32
            elif name in ("%clock", "%globaltimer_lo"):
                t &= 0xFFFFFFFF
            elif name == "%globaltimer_hi":
                t >>= 32
            return np.array(t, dtype=np.uint64).astype(dt)[()]
        return read_clock

    def read(ctx, lanes):
        v = ctx.sreg.get(key)
        if v is None:
            v = ctx.sreg.get(name, 0)
        if np.ndim(v) == 0:
            return np.asarray(v).astype(dt)[()]
        return (v if lanes is None else v[lanes]).astype(dt, copy=False)

    return read


def lane_registers(cta_slot: np.ndarray, laneid: np.ndarray) -> dict:
    """%smid and the %lanemask_* registers of each thread slot (from its CTA slot and lane)."""
    lane = laneid.astype(np.uint64)
    one = np.uint64(1)
    return {"%smid": (cta_slot % 132).astype(np.uint32),
            "%lanemask_eq": (one << lane).astype(np.uint32),
            "%lanemask_lt": ((one << lane) - one).astype(np.uint32),
            "%lanemask_le": ((one << (lane + one)) - one).astype(np.uint32),
            "%lanemask_ge": (~((one << lane) - one)).astype(np.uint32),
            "%lanemask_gt": (~((one << (lane + one)) - one)).astype(np.uint32)}


def fill(ctx, *, tid, ntid, ctaid, nctaid, laneid, warpid, nwarpid, smem_static, smem_dynamic, cluster=None,
         derived=None):
    """Set every special register of the wave from its geometry arrays (`derived`: lane_registers'
    values, when the caller keeps them)."""
    s = ctx.sreg
    for i, c in enumerate("xyz"):
        s[f"%tid.{c}"] = tid[i]
        s[f"%ntid.{c}"] = np.uint32(ntid[i])
        s[f"%ctaid.{c}"] = ctaid[i]
        s[f"%nctaid.{c}"] = np.uint32(nctaid[i])
    s["%laneid"] = laneid
    s["%warpid"] = warpid
    s["%nwarpid"] = np.uint32(nwarpid)
    s.update(derived if derived is not None else lane_registers(ctx.cta_slot, laneid))
    s["%nsmid"] = np.uint32(132)
    s["%gridid"] = np.uint64(1)
    # as the H200 reports them (tools/device/probe_reserved_smem.py): 100 static + 256 dynamic bytes
    # give total 384 (in 128-byte units), aggregate 1392 (the reserved KiB + 112 + 256)
    s["%total_smem_size"] = np.uint32(-(-(smem_static + smem_dynamic) // 128) * 128)
    s["%aggr_smem_size"] = np.uint32(RESERVED_SHARED + smem_static + smem_dynamic)
    s["%dynamic_smem_size"] = np.uint32(smem_dynamic)
    s["%reserved_smem_offset_begin"] = np.uint32(0)
    s["%reserved_smem_offset_end"] = np.uint32(RESERVED_SHARED_END)
    s["%reserved_smem_offset_cap"] = np.uint32(RESERVED_SHARED)
    s["%reserved_smem_offset_0"] = np.uint32(0)
    s["%reserved_smem_offset_1"] = np.uint32(0)
    cl = cluster or {}
    s["%is_explicit_cluster"] = np.bool_(cl.get("explicit", False))
    for i, c in enumerate("xyz"):
        s[f"%clusterid.{c}"] = cl.get("clusterid", [np.uint32(0)] * 3)[i] if cl else ctaid[i]
        s[f"%nclusterid.{c}"] = cl.get("nclusterid", [np.uint32(n) for n in nctaid])[i] if cl else np.uint32(nctaid[i])
        s[f"%cluster_ctaid.{c}"] = cl.get("cluster_ctaid", [np.uint32(0)] * 3)[i] if cl else np.uint32(0)
        s[f"%cluster_nctaid.{c}"] = cl.get("cluster_nctaid", [np.uint32(1)] * 3)[i] if cl else np.uint32(1)
    s["%cluster_ctarank"] = cl.get("ctarank", np.uint32(0))
    s["%cluster_nctarank"] = cl.get("nctarank", np.uint32(1))
    for i in range(32):
        s[f"%envreg{i}"] = np.uint32(0)
    for i in range(8):
        s[f"%pm{i}"] = np.uint32(0)
        s[f"%pm{i}_64"] = np.uint64(0)
    s["%current_graph_exec"] = np.uint64(0)
