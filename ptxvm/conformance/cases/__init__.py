"""The case lists, one module per family. `all_cases()` enumerates every case of every family."""
from __future__ import annotations

import importlib
from functools import lru_cache

FAMILIES = ["integer", "logic", "compare", "floating", "convert", "movperm", "half", "memory", "warp", "atomic", "atomic_sm90", "matrix", "matrix_sp",
            "video", "sync", "control", "misc", "mbarrier", "bulk", "supplement", "tensor",
            "wmma", "matrix_ext", "wgmma", "texture", "surface", "isa9x"]


@lru_cache(maxsize=None)
def family_cases(family: str):
    mod = importlib.import_module(f"{__name__}.{family}")
    cases = mod.cases()
    ids = [c.id for c in cases]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise ValueError(f"family {family}: duplicate case ids {sorted(dup)[:5]}")
    return tuple(cases)


def all_cases():
    out = []
    for f in FAMILIES:
        out.extend(family_cases(f))
    return out


def by_id():
    return {c.id: c for c in all_cases()}
