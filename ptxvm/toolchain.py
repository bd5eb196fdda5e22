"""NVIDIA's command-line tools (ptxas, nvcc, nvdisasm, cuobjdump) where they are installed: the one
place that looks for them, for the package, its tools, its benchmarks and its tests.

None of them is needed: each caller says what it does without one (the timing model estimates
registers, a test skips with its reason, a script exits saying what to install).

Where a tool is looked for, in this order (`installed`):
  1. the environment variable named in ENV ($PTXAS, $NVCC, $NVDISASM, $CUOBJDUMP);
  2. NVIDIA's CUDA 13 wheels, site-packages/nvidia/cu13/bin (`pip install 'ptxvm[ptxas]'`
     installs nvidia-cuda-nvcc: ptxas 13.5, the newest PTX ISA);
  3. PATH;
  4. $CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin (a CUDA toolkit);
  5. Triton's own copies (triton/backends/nvidia/bin: ptxas, cuobjdump, nvdisasm).
`find(name)` is the first of them; `find(name, "13.0")` the first of that release;
`find(name, toolkit_first=True)` looks at PATH and the toolkit before the wheels (scripts whose
committed output was made with the toolkit's compiler)."""
from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
from typing import Optional

ENV = {"ptxas": "PTXAS", "nvcc": "NVCC", "nvdisasm": "NVDISASM", "cuobjdump": "CUOBJDUMP"}


def _site_dirs() -> list[str]:
    dirs = [p for p in sys.path if p and os.path.isdir(p)]
    try:
        import site

        dirs += [p for p in site.getsitepackages() if p not in dirs]
    except AttributeError:  # site.getsitepackages is missing in some virtualenvs
        pass
    return dirs


def installed(name: str, toolkit_first: bool = False) -> list[str]:
    """Every executable `name`, in the order of the module docstring, each path once."""
    places = []
    if os.environ.get(ENV.get(name, "")):
        places.append(os.environ[ENV[name]])
    wheels = [os.path.join(d, "nvidia", "cu13", "bin", name) for d in _site_dirs()]
    toolkit = [shutil.which(name) or ""]
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if home:
            toolkit.append(os.path.join(home, "bin", name))
    places += toolkit + wheels if toolkit_first else wheels + toolkit
    places += [os.path.join(d, "triton", "backends", "nvidia", "bin", name) for d in _site_dirs()]
    out, seen = [], set()
    for p in places:
        if p and os.path.isfile(p) and os.access(p, os.X_OK):
            key = os.path.realpath(p)
            if key not in seen:
                seen.add(key)
                out.append(p)
    return out


@functools.lru_cache(maxsize=None)
def release(path: str) -> Optional[str]:
    """The CUDA release a tool says it is from ("13.5"), or None if it does not answer."""
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"release (\d+\.\d+)", out)
    return m.group(1) if m else None


def find(name: str, version: Optional[str] = None, toolkit_first: bool = False) -> Optional[str]:
    """The first installed `name` (of CUDA release `version`, e.g. "13.0", if given), else None."""
    for path in installed(name, toolkit_first):
        if version is None or release(path) == version:
            return path
    return None


def by_release(name: str) -> dict[str, str]:
    """{CUDA release: the first installed `name` of it}, e.g. {"13.5": ..., "13.0": ...}."""
    found: dict[str, str] = {}
    for path in installed(name):
        r = release(path)
        if r:
            found.setdefault(r, path)
    return found


def require(name: str, what: str = "", version: Optional[str] = None, toolkit_first: bool = False) -> str:
    """find(...), or exit naming what to install (for scripts, not the library)."""
    path = find(name, version, toolkit_first)
    if path is None:
        hint = {"ptxas": "pip install 'ptxvm[ptxas]' (nvidia-cuda-nvcc)",
                "nvdisasm": "pip install 'ptxvm[sass]' (nvidia-cuda-nvdisasm)",
                "nvcc": "a CUDA toolkit, or pip install nvidia-cuda-nvcc",
                "cuobjdump": "a CUDA toolkit, or pip install nvidia-cuda-cuobjdump"}.get(name, "the CUDA toolkit")
        which = f"{name} {version}" if version else name
        raise SystemExit(f"{what or name}: {which} not found ({hint}, or set ${ENV.get(name, name.upper())})")
    return path
