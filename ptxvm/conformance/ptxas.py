"""Check generated PTX with NVIDIA's ptxas, where it is installed (tests and `generate --ptxas`)."""
from __future__ import annotations

import os
import re
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from typing import Optional


@lru_cache(maxsize=None)
def find() -> Optional[str]:
    """The ptxas to ask (ptxvm.toolchain: $PTXAS, else the CUDA 13.5 wheels', else a toolkit's).
    The newest knows the newest PTX ISA."""
    from .. import toolchain

    return toolchain.find("ptxas")


@lru_cache(maxsize=None)
def newest_isa() -> tuple[int, int]:
    """The newest PTX ISA version find()'s ptxas assembles (CUDA 13.x: ISA 9.x; (0, 0) without one)."""
    tool = find()
    if not tool:
        return (0, 0)
    out = subprocess.run([tool, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"release (\d+)\.(\d+)", out)
    return (int(m.group(1)) - 4, int(m.group(2))) if m and int(m.group(1)) >= 13 else (9, 0)


def available() -> bool:
    return find() is not None


def assemble(ptx: str, arch: str = "sm_90") -> tuple[bool, str]:
    """(accepted, messages) for one module."""
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "k.ptx")
        with open(src, "w") as f:
            f.write(ptx)
        p = subprocess.run([find(), f"-arch={arch}", src, "-o", os.path.join(d, "k.cubin")],
                           capture_output=True, text=True)
        return p.returncode == 0, (p.stdout + p.stderr).replace(src, "case.ptx").strip()


def assemble_cases(cases, jobs: int = 0):
    """{case id: message} for every case ptxas rejects."""
    jobs = jobs or min(16, os.cpu_count() or 2)
    bad = {}
    with ThreadPoolExecutor(jobs) as ex:
        for c, (ok, msg) in zip(cases, ex.map(lambda c: assemble(c.ptx(), c.target), cases)):
            if not ok:
                bad[c.id] = msg
    return bad


VERSIONS = ["7.8", "8.0", "8.1", "8.2", "8.3", "8.4", "8.5", "8.6", "8.7", "8.8"]


def lowest_versions(cases, jobs: int = 0):
    """{case id: (declared, lowest accepted or None)} where they differ (a maintenance aid)."""
    import dataclasses
    from .case import effective_version
    jobs = jobs or min(16, os.cpu_count() or 2)

    def lowest(c):
        for v in VERSIONS:
            ok, _ = assemble(dataclasses.replace(c, version=v).ptx(), c.target)
            if ok:
                return v
        return None

    out = {}
    with ThreadPoolExecutor(jobs) as ex:
        for c, v in zip(cases, ex.map(lowest, cases)):
            if v != effective_version(c.version):
                out[c.id] = (c.version, v)
    return out
