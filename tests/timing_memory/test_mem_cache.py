import numpy as np
import pytest

from ptxvm.timing.memory import CacheOp, EvictPriority, SectoredCache
from ptxvm.timing.memory.cache import _KEEP

E = EvictPriority


class RefCache:
    """Sector-by-sector sequential LRU with priority classes: the semantics the vectorized
    SectoredCache must reproduce."""

    def __init__(self, real: SectoredCache):
        self.real = real
        self.sets = {}
        self.t = 0
        self.writebacks = 0

    def access(self, addrs, part, mode):
        hits = []
        for a, p in zip(addrs.tolist(), part.tolist()):
            line, bit = a // 128, (a // 32) % 4
            s = int(self.real._set_index(np.array([line]), np.array([p]))[0])
            ways = self.sets.setdefault(s, [])
            way = next((w for w in ways if w["tag"] == line), None)
            hits.append(way is not None and bit in way["valid"] and not mode.invalidate)
            self.t += 1
            if mode.invalidate:
                if way is not None:
                    way["valid"].discard(bit)
                    if not way["valid"]:
                        ways.remove(way)
                continue
            if way is None:
                if not mode.allocate:
                    continue
                if len(ways) == self.real.assoc:
                    victim = min(ways, key=lambda w: (w["prio"], w["t"]))
                    self.writebacks += len(victim["dirty"])
                    ways.remove(victim)
                way = {"tag": line, "valid": set(), "dirty": set(), "prio": mode.fill_prio}
                ways.append(way)
            elif mode.hit_prio != _KEEP:
                way["prio"] = mode.hit_prio
            if mode.allocate:
                way["valid"].add(bit)
            if mode.mark_dirty:
                way["dirty"].add(bit)
            way["t"] = self.t
        return np.array(hits, bool)


MODES = [
    dict(write=False, op=CacheOp.CA, evict=E.NORMAL),
    dict(write=False, op=CacheOp.CS, evict=E.NORMAL),
    dict(write=False, op=CacheOp.CA, evict=E.LAST),
    dict(write=False, op=CacheOp.CA, evict=E.FIRST),
    dict(write=False, op=CacheOp.CA, evict=E.UNCHANGED),
    dict(write=False, op=CacheOp.CA, evict=E.NO_ALLOCATE),
    dict(write=False, op=CacheOp.LU, evict=E.NORMAL),
    dict(write=True, op=CacheOp.WB, evict=E.NORMAL),
    dict(write=False, op=CacheOp.CV, evict=E.NORMAL),
    dict(write=True, op=CacheOp.WB, evict=E.NO_ALLOCATE),
]


@pytest.mark.parametrize("level,hashed,partitions", [("L2", True, 1), ("L1", False, 3)])
def test_vectorized_lru_matches_sequential_reference(level, hashed, partitions):
    rng = np.random.default_rng(11)
    cache = SectoredCache(8 * 4 * 128, assoc=4, level=level, hashed=hashed, partitions=partitions)
    ref = RefCache(cache)
    for step in range(120):
        kw = MODES[rng.integers(len(MODES))]
        n = int(rng.integers(1, 200))
        if rng.random() < 0.5:   # runs of consecutive sectors (coalesced warps)
            start = rng.integers(0, 400, n // 4 + 1)
            addrs = (start[:, None] * 32 + np.arange(4) * 32).ravel()[:n]
        else:
            addrs = rng.integers(0, 1600, n) * 32
        addrs = addrs.astype(np.uint64)
        part = rng.integers(0, partitions, len(addrs))
        got = cache.access(addrs, partition=part, **kw)
        want = ref.access(addrs, part, cache.mode(**kw))
        assert got.tolist() == want.tolist(), f"step {step} {kw}"
    assert cache.stats["writeback_sectors"] == ref.writebacks


def _lines(first, n):
    return (np.arange(first, first + n, dtype=np.uint64) * 128)


def test_sector_granularity():
    c = SectoredCache(4 * 128, assoc=4)
    assert not c.access([0]).any()
    assert c.access([0, 32], ).tolist() == [True, False]  # same line, other sector: sector miss
    assert c.stats["evictions"] == 0


def test_evict_first_lines_go_before_normal_ones():
    c = SectoredCache(4 * 128, assoc=4)          # one set of 4 ways
    c.access(_lines(0, 3))                        # hot lines 0..2, normal
    for k in range(10):                           # stream with evict_first
        c.access(_lines(100 + k, 1), evict=E.FIRST)
    assert c.access(_lines(0, 3)).all()


def test_evict_last_survives_a_normal_stream():
    c = SectoredCache(4 * 128, assoc=4)
    c.access(_lines(0, 1), evict=E.LAST)
    c.access(_lines(100, 20))
    assert c.contains(_lines(0, 1)).all()
    # evict_unchanged hits keep the evict_last priority
    c.access(_lines(0, 1), evict=E.UNCHANGED)
    c.access(_lines(200, 20))
    assert c.access(_lines(0, 1), evict=E.UNCHANGED).all()
    # a plain hit resets it to normal, and the stream then pushes it out
    c.access(_lines(0, 1))
    c.access(_lines(300, 20))
    assert not c.access(_lines(0, 1)).any()


def test_no_allocate_and_last_use():
    c = SectoredCache(4 * 128, assoc=4)
    c.access(_lines(0, 1), evict=E.NO_ALLOCATE)
    assert not c.access(_lines(0, 1), evict=E.NO_ALLOCATE).any()
    c.access(_lines(0, 4))
    c.access(_lines(3, 1), op=CacheOp.LU)         # last use: line 3 becomes the next victim
    c.access(_lines(50, 1))
    assert c.access(_lines(0, 3)).all() and not c.contains(_lines(3, 1)).any()


def test_l1_bypass_volatile_and_write_through():
    c = SectoredCache(4 * 128, assoc=4, level="L1")
    c.access(_lines(0, 1), op=CacheOp.CG)
    assert not c.contains(_lines(0, 1)).any()     # .cg does not allocate in L1
    c.access(_lines(0, 1))
    assert not c.access(_lines(0, 1), op=CacheOp.CV).any()  # .cv never hits, drops the line
    assert not c.contains(_lines(0, 1)).any()
    c.access(_lines(5, 1), write=True)            # stores allocate (the H200: st_cold), never dirty in L1
    assert c.contains(_lines(5, 1)).all() and c.dirty_sectors() == 0
    c.access(_lines(6, 1), write=True, op=CacheOp.CG)  # .cg stores cache in L2 only
    assert not c.contains(_lines(6, 1)).any()


def test_l2_write_back_counts_dirty_sectors():
    c = SectoredCache(4 * 128, assoc=4)
    c.access(np.array([0, 32], np.uint64), write=True)
    assert c.dirty_sectors() == 2
    c.access(_lines(10, 4))                       # evicts the dirty line
    assert c.stats["writeback_sectors"] == 2 and c.dirty_sectors() == 0
    c.access(np.array([64], np.uint64), write=True, op=CacheOp.WT)  # write-through: not dirty
    assert c.dirty_sectors() == 0
    c.access(np.array([4096], np.uint64), write=True)
    assert c.flush() == 1 and c.dirty_sectors() == 0


def test_bad_geometry_is_refused():
    with pytest.raises(ValueError, match="replacement policy"):
        SectoredCache(1024, policy="random")
    with pytest.raises(ValueError, match="sectors"):
        SectoredCache(1024, line=96)
