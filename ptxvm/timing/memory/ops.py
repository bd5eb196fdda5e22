"""The qualifiers of a memory instruction that the memory model reads (PTX names as values).

`parse_qualifiers` turns the modifier spellings of an ld/st (".cg", ".L2::evict_last",
".L2::128B", ".nc", ...) into a `Policy`, so the trace can hand over either form.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Iterable


class CacheOp(enum.Enum):
    """ld cache operators (.ca .cg .cs .lu .cv) and st cache operators (.wb .cg .cs .wt)."""

    CA = "ca"  # cache at all levels (L1 and L2), the ld default
    CG = "cg"  # cache in L2 only (ld: L1 is bypassed; st: same as wb for global)
    CS = "cs"  # streaming: allocate evict-first in L1 and L2
    LU = "lu"  # last use: as .cs for global; a hit line is demoted to evict-first
    CV = "cv"  # volatile: do not use L1 (drop a matching L1 line), fetch from L2 again
    WB = "wb"  # st: write back (L2 keeps the dirty sector), the st default
    WT = "wt"  # st: write through L2 to memory


class EvictPriority(enum.Enum):
    """.L1::/.L2:: eviction priorities (and createpolicy's evict_unchanged)."""

    NORMAL = "evict_normal"
    FIRST = "evict_first"
    LAST = "evict_last"
    UNCHANGED = "evict_unchanged"  # a hit keeps the line's priority; a fill is normal
    NO_ALLOCATE = "no_allocate"  # look up, never allocate on a miss


class Space(enum.Enum):
    """Which path of the memory system an access takes."""

    GLOBAL = "global"
    LOCAL = "local"
    NC = "nc"  # ld.global.nc: the read-only (texture) path
    TEX = "tex"
    CONST = "const"
    SHARED = "shared"
    PARAM = "param"


@dataclass(frozen=True)
class Policy:
    """Everything about one memory instruction's caching: cache operator, L1 and L2 eviction
    priorities, L2 prefetch size in bytes (0 = none) and the read-only (.nc) path."""

    op: CacheOp = CacheOp.CA
    l1: EvictPriority = EvictPriority.NORMAL
    l2: EvictPriority = EvictPriority.NORMAL
    prefetch: int = 0
    nc: bool = False


_OPS = {"." + o.value: o for o in CacheOp}
_PREFETCH = {".L2::64B": 64, ".L2::128B": 128, ".L2::256B": 256}


def parse_qualifiers(mods: Iterable[str], *, store: bool = False) -> Policy:
    """A Policy from PTX modifier spellings; unknown spellings (.global, .v4, .f32, ...) are
    ignored because they say nothing about caching."""
    op = CacheOp.WB if store else CacheOp.CA
    l1 = l2 = EvictPriority.NORMAL
    prefetch, nc = 0, False
    for m in mods:
        m = m if m.startswith(".") else "." + m
        if m in _OPS:
            op = _OPS[m]
        elif m in _PREFETCH:
            prefetch = _PREFETCH[m]
        elif m == ".nc":
            nc = True
        elif m.startswith(".L1::") or m.startswith(".L2::"):
            level, name = m[1:3], m[5:]
            try:
                prio = EvictPriority(name)
            except ValueError:
                continue  # .L2::cache_hint: the policy operand is a runtime value
            if level == "L1":
                l1 = prio
            else:
                l2 = prio
    return Policy(op=op, l1=l1, l2=l2, prefetch=prefetch, nc=nc)
