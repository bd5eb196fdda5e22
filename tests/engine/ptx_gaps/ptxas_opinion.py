"""ptxas as a second opinion for the PTX-syntax-gap tests: CUDA 13.0 (/usr/local/cuda or PATH) and
CUDA 13.5 (the nvidia-cuda-nvcc wheel's nvidia/cu13/bin). A test that needs one skips, saying which,
where it is absent."""
from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import pytest

from ptxvm import toolchain


PTXAS = {r: p for r, p in toolchain.by_release("ptxas").items() if r in ("13.0", "13.5")}
VERSIONS = ("13.0", "13.5")


def ptxas_accepts(version: str, source: str, arch: str = "sm_90") -> tuple[bool, str]:
    """(accepted, stderr) of ptxas `version` on `source`; skips the test if that ptxas is absent."""
    path = PTXAS.get(version)
    if path is None:
        pytest.skip(f"ptxas {version} not installed")
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "t.ptx"
        f.write_text(source)
        p = subprocess.run([path, f"-arch={arch}", str(f), "-o", str(Path(d) / "t.cubin")],
                           capture_output=True, text=True, timeout=120)
    return p.returncode == 0, p.stderr
