"""PTX special registers as data (ISA chapter 10).

Each `SpecialReg` gives the register's type, its vector components (for `%tid.x` and friends), the
PTX version and target that introduced it, and what it reads (per thread, CTA, cluster, grid, SM).
Numbered families (%pm0..%pm7, %envreg0..31, %reserved_smem_offset_<2>) are expanded.

    SREGS["%tid"].components -> ("x", "y", "z")     SREGS["%clock64"].type -> "u64"
    lookup("%tid.x") -> (SREGS["%tid"], "x")
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True, slots=True)
class SpecialReg:
    name: str  # with the "%": "%tid"
    type: str  # element type: "u32", "u64", "b32", "pred"
    components: tuple[str, ...] = ()  # ("x", "y", "z") for .v4 vectors read by component
    min_ptx: tuple[int, int] = (1, 0)
    min_sm: int = 10
    scope: str = "thread"  # what the value is per: thread, warp, cta, cluster, grid, sm, gpu, global
    volatile: bool = False  # reads can return a different value each time (clocks, counters, ids)
    alt_types: tuple[str, ...] = ()  # other mov/cvt types ptxas accepts for legacy code (u16 for %tid)
    note: str = ""

    @property
    def is_vector(self) -> bool:
        return bool(self.components)


_XYZ = ("x", "y", "z")
# ptxas 13.0 also accepts `%tid.w` etc. (the registers are declared .v4); w reads 0.
_XYZW = ("x", "y", "z", "w")


def _r(name, type, comps=(), ptx=(1, 0), sm=10, scope="thread", volatile=False, alt=(), note=""):
    return SpecialReg(name, type, comps, ptx, sm, scope, volatile, alt, note)


_ALL = [
    _r("%tid", "u32", _XYZW, scope="thread", alt=("u16",), note=".v4 .u32; 16-bit reads kept for PTX 1.x code"),
    _r("%ntid", "u32", _XYZW, scope="cta", alt=("u16",)),
    _r("%laneid", "u32", ptx=(1, 3), scope="thread"),
    _r("%warpid", "u32", ptx=(1, 3), scope="warp", volatile=True, note="may change on preemption"),
    _r("%nwarpid", "u32", ptx=(2, 0), sm=20, scope="sm"),
    _r("%ctaid", "u32", _XYZW, scope="cta", alt=("u16",)),
    _r("%nctaid", "u32", _XYZW, scope="grid", alt=("u16",)),
    _r("%smid", "u32", ptx=(1, 3), scope="sm", volatile=True),
    _r("%nsmid", "u32", ptx=(2, 0), sm=20, scope="gpu"),
    _r("%gridid", "u64", ptx=(1, 0), scope="grid", alt=("u32",), note=".u64 since PTX 3.0"),
    _r("%is_explicit_cluster", "pred", ptx=(7, 8), sm=90, scope="grid"),
    _r("%clusterid", "u32", _XYZW, ptx=(7, 8), sm=90, scope="cluster"),
    _r("%nclusterid", "u32", _XYZW, ptx=(7, 8), sm=90, scope="grid"),
    _r("%cluster_ctaid", "u32", _XYZW, ptx=(7, 8), sm=90, scope="cta"),
    _r("%cluster_nctaid", "u32", _XYZW, ptx=(7, 8), sm=90, scope="cluster"),
    _r("%cluster_ctarank", "u32", ptx=(7, 8), sm=90, scope="cta"),
    _r("%cluster_nctarank", "u32", ptx=(7, 8), sm=90, scope="cluster"),
    _r("%lanemask_eq", "u32", ptx=(2, 0), sm=20),
    _r("%lanemask_le", "u32", ptx=(2, 0), sm=20),
    _r("%lanemask_lt", "u32", ptx=(2, 0), sm=20),
    _r("%lanemask_ge", "u32", ptx=(2, 0), sm=20),
    _r("%lanemask_gt", "u32", ptx=(2, 0), sm=20),
    _r("%clock", "u32", scope="sm", volatile=True),
    _r("%clock_hi", "u32", ptx=(5, 0), sm=20, scope="sm", volatile=True),
    _r("%clock64", "u64", ptx=(2, 0), sm=20, scope="sm", volatile=True),
    *[_r(f"%pm{i}", "u32", ptx=(1, 3) if i < 4 else (3, 0), sm=10 if i < 4 else 20, scope="sm", volatile=True)
      for i in range(8)],
    *[_r(f"%pm{i}_64", "u64", ptx=(4, 0), sm=50, scope="sm", volatile=True) for i in range(8)],
    *[_r(f"%envreg{i}", "b32", ptx=(2, 1), sm=20, scope="grid", note="set by the driver") for i in range(32)],
    _r("%globaltimer", "u64", ptx=(3, 1), sm=30, scope="global", volatile=True, note="nanoseconds"),
    _r("%globaltimer_lo", "u32", ptx=(3, 1), sm=30, scope="global", volatile=True),
    _r("%globaltimer_hi", "u32", ptx=(3, 1), sm=30, scope="global", volatile=True),
    _r("%reserved_smem_offset_begin", "b32", ptx=(7, 6), sm=80, scope="cta"),
    _r("%reserved_smem_offset_end", "b32", ptx=(7, 6), sm=80, scope="cta"),
    _r("%reserved_smem_offset_cap", "b32", ptx=(7, 6), sm=80, scope="cta"),
    _r("%reserved_smem_offset_0", "b32", ptx=(7, 6), sm=80, scope="cta"),
    _r("%reserved_smem_offset_1", "b32", ptx=(7, 6), sm=80, scope="cta"),
    _r("%total_smem_size", "u32", ptx=(4, 1), sm=20, scope="cta"),
    _r("%aggr_smem_size", "u32", ptx=(8, 1), sm=90, scope="cta"),
    _r("%dynamic_smem_size", "u32", ptx=(4, 1), sm=20, scope="cta"),
    _r("%current_graph_exec", "u64", ptx=(8, 0), sm=50, scope="grid"),
    _r("%perctamemoryoffset", "u64", ptx=(9, 4), sm=80, scope="cta",
       note="the CTA's memory reserved by the kernel's .minperctamemory"),
    _r("%perctamemorysize", "u32", ptx=(9, 4), sm=80, scope="cta"),
    _r("%locality_domain_id", "u32", ptx=(9, 5), sm=100, scope="sm", note="the SM's locality domain"),
    _r("%locality_domain_supplemental_sm", "u32", ptx=(9, 5), sm=100, scope="sm"),
]

SREGS: dict[str, SpecialReg] = {r.name: r for r in _ALL}

# Predefined constants (ISA 4.4): not registers, but names the parser meets in the same places.
CONSTANTS: dict[str, int] = {"WARP_SZ": 32}


def lookup(name: str) -> Optional[tuple[SpecialReg, Optional[str]]]:
    """`%tid.x` -> (SREGS['%tid'], 'x'); `%laneid` -> (SREGS['%laneid'], None); unknown -> None."""
    reg = SREGS.get(name)
    if reg is not None:
        return reg, None
    base, dot, comp = name.rpartition(".")
    if dot:
        reg = SREGS.get(base)
        if reg is not None and comp in reg.components:
            return reg, comp
    return None
