"""ptxas as a second opinion for the PTX-syntax-gap tests: CUDA 13.0 (/usr/local/cuda or PATH) and
CUDA 13.5 (the nvidia-cuda-nvcc wheel's nvidia/cu13/bin). A test that needs one skips, saying which,
where it is absent."""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest


def _wheel_ptxas():
    try:
        import nvidia  # namespace package of the CUDA wheels
    except ImportError:
        return None
    for root in getattr(nvidia, "__path__", []):
        p = Path(root) / "cu13" / "bin" / "ptxas"
        if p.exists():
            return str(p)
    return None


def _version(path):
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    for word in out.split():
        if word.startswith("V") and word[1:2].isdigit():
            return word[1:]
    return None


def _find():
    found = {}
    for path in (shutil.which("ptxas"), "/usr/local/cuda/bin/ptxas", _wheel_ptxas()):
        if path and Path(path).exists():
            v = _version(path)
            if v and v.startswith(("13.0", "13.5")):
                found.setdefault(v[:4], path)
    return found


PTXAS = _find()
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
