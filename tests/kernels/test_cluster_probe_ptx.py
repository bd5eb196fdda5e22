"""tests/kernels/ptx/cluster_probes.sm_90.ptx (recorded on the H200 as ADVANCED_CASES
dsmem_histogram and remote_mbarrier) holds the same kernels as tests/engine/async_cases.py."""
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "engine"))

import async_cases as A  # noqa: E402


def test_probe_ptx_matches_async_cases():
    text = (HERE / "ptx" / "cluster_probes.sm_90.ptx").read_text()
    for kernel in (A.HIST, A.REMOTE):
        assert kernel[len(A.HEAD):] in text
