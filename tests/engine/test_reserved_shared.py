"""A CTA's shared memory as the H200 lays it out (tools/device/probe_reserved_smem.py, recorded
2026-11-29; docs/hardware-notes.md): the first KiB is the system's (%reserved_smem_offset_begin 0,
_end 288, _cap 1024), a kernel's static variables start at 1024 and its dynamic array follows them;
%total_smem_size counts the kernel's bytes in 128-byte units, %aggr_smem_size adds the reserved KiB.
CUDA's cooperative groups keep tile state in the reserved region (`tiled_partition<128>` faulted
out of bounds in ptxvm, which had none: found with NVIDIA's cuda-samples `reduction`)."""
import sys
from pathlib import Path

import numpy as np
import pytest

import ptxvm

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools" / "device"))
import probe_reserved_smem as probe  # noqa: E402

H200 = {  # the probe's output on the H200, per dynamic size
    0: dict(begin=0, end=288, cap=1024, off0=0, off1=0, total_smem=128, dynamic_smem=0, aggr_smem=1136,
            stat_addr=1024, dyn_addr=1136, stat_generic_lo=1024, _=0),
    256: dict(begin=0, end=288, cap=1024, off0=0, off1=0, total_smem=384, dynamic_smem=256, aggr_smem=1392,
              stat_addr=1024, dyn_addr=1136, stat_generic_lo=1024, _=0),
    4096: dict(begin=0, end=288, cap=1024, off0=0, off1=0, total_smem=4224, dynamic_smem=4096, aggr_smem=5232,
               stat_addr=1024, dyn_addr=1136, stat_generic_lo=1024, _=0),
}


@pytest.mark.parametrize("dynamic", probe.DYNAMIC)
def test_registers_and_addresses_are_the_h200s(dynamic):
    out = np.zeros(12, np.uint32)
    ptxvm.loads(probe.PTX, "probe_reserved_smem.ptx").kernel("k").launch(1, 64, [out], shared_mem=dynamic)
    assert dict(zip(probe.NAMES, out.tolist())) == H200[dynamic]


def test_cooperative_groups_tiles_of_more_than_a_warp():
    from ptxvm.frontdoor.cuda import available_compilers

    if not available_compilers():
        pytest.skip("neither NVRTC (cuda-bindings) nor nvcc is available")
    m = ptxvm.compile_cuda(r"""
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__global__ void tiles(int *out) {
  __shared__ cg::block_tile_memory<256> scratch;
  auto cta = cg::this_thread_block(scratch);
  auto t = cg::tiled_partition<128>(cta);
  int v = cg::reduce(t, (int)threadIdx.x, cg::plus<int>());
  if (t.thread_rank() == 0) out[t.meta_group_rank()] = v;
}""", name="tiles.cu")
    out = np.zeros(2, np.int32)
    m.kernel("tiles").launch(1, 256, [out])
    assert out.tolist() == [sum(range(128)), sum(range(128, 256))]
