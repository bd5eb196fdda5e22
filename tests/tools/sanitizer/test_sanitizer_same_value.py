"""racecheck and stores of the bytes memory already holds, as compute-sanitizer counts them on the
H200 (tools/device/racecheck_same_value: same_value.cu under `compute-sanitizer --tool racecheck`,
2026-11-29): 32 or 64 threads storing 7 into one shared word with no barrier: no hazard; the 32
lanes of a warp storing their own ids: 31 write-after-write hazards. CUDA 13's cooperative groups
have every lane of a warp store its tile's reduced value into one word (tiled_partition<128>)."""
import numpy as np
import pytest

import ptxvm

SRC = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u32 own)
{
    .shared .align 4 .u32 s;
    .reg .b32 %r<4>;
    .reg .pred %p;
    ld.param.u32 %r2, [own];
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p, %r2, 0;
    selp.u32 %r3, %r1, 7, %p;
    st.volatile.shared.u32 [s], %r3;
    ret;
}
"""


@pytest.mark.parametrize("threads, own, hazards", [(32, 0, 0), (64, 0, 0), (32, 1, 31)])
def test_same_bytes_are_no_hazard(threads, own, hazards):
    r = ptxvm.loads(SRC, "same_value.ptx").kernel("k").sanitize(1, threads, [np.uint32(own)], tool="racecheck")
    assert sum(e.hazards for e in r.errors) == hazards
    assert all(e.access == "WAW" for e in r.errors)
