"""ptxvm.timing.memory: vectorized models of the H100/H200 memory hierarchy (issue 10).

Pure functions and small stateful caches over NumPy arrays, fed with per-warp addresses from the
engine's trace; see docs/timing-memory.md for what is modelled and where the numbers come from.
"""
from .banks import (bank_conflicts, distinct_addresses, ideal_wavefronts, lanes_per_group,
                    lanes_per_phase, same_address_multiplicity)
from .cache import SectoredCache
from .coalesce import Coalesced, coalesce, from_sectors
from .hierarchy import MemoryHierarchy
from .ops import CacheOp, EvictPriority, Policy, Space, parse_qualifiers
from .params import MemoryParams, driver_carveout, params_from_gpu, pick_carveout
from .queue import BandwidthQueue

__all__ = [
    "BandwidthQueue", "CacheOp", "Coalesced", "EvictPriority", "MemoryHierarchy", "MemoryParams",
    "Policy", "SectoredCache", "Space", "bank_conflicts", "coalesce", "distinct_addresses",
    "from_sectors", "ideal_wavefronts", "lanes_per_group", "lanes_per_phase", "params_from_gpu", "parse_qualifiers", "pick_carveout",
    "same_address_multiplicity",
]
