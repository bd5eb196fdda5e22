"""What launches reuse: the wave geometry (made once per CTA count and block shape, shared
read-only) and freed device memory (cleared when an allocation that must read as zero reuses
it, not at free)."""
from __future__ import annotations

import numpy as np
import pytest

import ptxvm
from ptxvm.engine import launch as launch_mod
from ptxvm.engine.core.memory import GlobalMemory

IOTA = """.version 8.0
.target sm_90
.address_size 64
.visible .entry iota(.param .u64 out)
{
 .reg .b32 %r<8>; .reg .b64 %rd<4>;
 ld.param.u64 %rd1, [out];
 mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x; mad.lo.s32 %r4, %r1, %r2, %r3;
 mov.u32 %r5, %laneid; mov.u32 %r6, %lanemask_lt; shl.b32 %r5, %r5, 16; add.s32 %r5, %r5, %r3;
 xor.b32 %r5, %r5, %r6;
 mul.wide.u32 %rd2, %r4, 4; add.s64 %rd3, %rd1, %rd2; st.global.u32 [%rd3], %r5;
 ret;
}
"""


def _expected(ctas, block):
    t = np.tile(np.arange(block), ctas).astype(np.uint64)
    lane = t % 32
    return ((((lane << 16) + t) ^ ((np.uint64(1) << lane) - np.uint64(1))) & np.uint64(0xFFFFFFFF)).astype(np.uint32)


def test_geometry_is_shared_read_only_and_gives_each_shape_its_own():
    k = ptxvm.loads(IOTA, "iota.ptx")["iota"]
    for ctas, block in ((5, 96), (3, 40), (5, 96), (7, 33)):
        out = np.zeros(ctas * block, np.uint32)
        k.launch(ctas, block, [out], workers=1)
        assert out.tobytes() == _expected(ctas, block).tobytes()
    g = launch_mod.wave_geometry(5, (96, 1, 1))
    assert launch_mod.wave_geometry(5, (96, 1, 1)) is g  # kept
    assert not g.slot.flags.writeable and not g.tid[0].flags.writeable and not g.derived["%lanemask_lt"].flags.writeable
    with pytest.raises(ValueError):
        g.laneid[0] = 1


def test_geometry_kept_is_bounded(monkeypatch):
    monkeypatch.setattr(launch_mod, "_GEOMETRY", {})
    monkeypatch.setattr(launch_mod, "GEOMETRY_KEPT", 1 << 20)
    for n in range(1, 40):
        launch_mod.wave_geometry(n, (128, 1, 1))
    kept = launch_mod._GEOMETRY
    assert sum(g.nbytes for g in kept.values()) <= 1 << 20 or len(kept) == 1
    assert (39, (128, 1, 1)) in kept  # the most recent stays


def test_freed_memory_reads_as_zero_when_reallocated():
    mem = GlobalMemory(1 << 16)
    a = mem.allocate(4096)
    mem.view(a)[:] = 7
    mem.free(a.base)
    assert mem.view(a).max() == 7  # not cleared at free
    b = mem.allocate(4096)  # the same place: cleared now
    assert b.base == a.base and not mem.view(b).any()
    mem.view(b)[:] = 9
    mem.free(b.base)
    c = mem.allocate(4096, zeroed=False)  # the caller overwrites it all: not cleared
    assert mem.view(c).max() == 9
    mem.free(c.base)
    d = mem.allocate(1 << 17)  # the arena grows: past the live allocations it is fresh zeros
    assert not mem.view(d).any()


def test_a_device_array_made_where_a_written_one_was_freed_reads_as_zero():
    from ptxvm.engine.core.device import Device

    dev = Device()
    a = dev.to_device(np.full(1024, 0xAB, np.uint8))  # written whole: not cleared when made
    base = a.address
    a.free()
    d = dev.device_array(1024, np.uint8)
    assert d.address == base and not d.copy_to_host().any()
