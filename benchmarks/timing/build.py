#!/usr/bin/env python3
"""Rebuild the committed PTX of benchmarks/timing, the suite's ptxas resource usage and the cubins
the GPU loads.

    python benchmarks/timing/build.py          # needs nvcc and ptxas (CUDA 13) on PATH or in /usr/local/cuda/bin
    python benchmarks/timing/build.py --cubins # only the cubins (kernels/cubin/, not committed)

micro/micro.cu -> micro/micro.ptx; kernels/suite.cu -> kernels/suite.ptx and
kernels/suite_resources.json (registers, static shared bytes, barriers, stack per kernel from
`ptxas -arch=sm_90 -v`), which the timing model may use for occupancy; kernels/families.cu and
kernels/occupancy.cu -> .ptx (`-arch=sm_90a`; they use cp.async.bulk and clusters).
The Triton PTX (kernels/triton/) comes from kernels/triton_gen.py (pip's Triton, no GPU).
Every kernels/**.ptx is then assembled for sm_90a into kernels/cubin/ with the newest ptxas found
(CUDA 13.5's knows the Triton PTX's ISA 9.4; the H200's driver JIT stops at ISA 9.0).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.abspath(os.path.join(HERE, "..", "..")))
from ptxvm import toolchain  # noqa: E402


def tool(name: str) -> str:
    """The CUDA toolkit's `name` (PATH, /usr/local/cuda), as the committed PTX was made with."""
    return toolchain.require(name, "build.py", toolkit_first=True)


def ptx(cu: str, out: str) -> None:
    subprocess.run([tool("nvcc"), "-arch=sm_90", "-ptx", cu, "-o", out], check=True)


def resources(ptx_path: str) -> dict:
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run([tool("ptxas"), "-arch=sm_90", "-v", ptx_path, "-o", os.path.join(d, "x.cubin")],
                           check=True, capture_output=True, text=True)
    res, cur = {}, None
    for line in r.stderr.splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", line)
        if m:
            cur = m.group(1)
            res[cur] = {"registers": 0, "shared_static": 0, "barriers": 0, "stack": 0}
        elif cur and "Used" in line:
            for key, pat in (("registers", r"Used (\d+) registers"), ("barriers", r"used (\d+) barriers"),
                             ("shared_static", r"(\d+) bytes smem")):
                m = re.search(pat, line)
                if m:
                    res[cur][key] = int(m.group(1))
        elif cur and "stack frame" in line:
            m = re.search(r"(\d+) bytes stack frame", line)
            res[cur]["stack"] = int(m.group(1)) if m else 0
    return dict(sorted(res.items()))


def newest_ptxas() -> str:
    """CUDA 13.5's ptxas from the pip wheel when present (it knows PTX ISA 9.4), else the toolkit's."""
    return toolchain.require("ptxas", "build.py")


def cubins() -> None:
    kernels = os.path.join(HERE, "kernels")
    out_dir = os.path.join(kernels, "cubin")
    os.makedirs(out_dir, exist_ok=True)
    ptxas = newest_ptxas()
    for sub in ("", "triton"):
        folder = os.path.join(kernels, sub)
        for name in sorted(os.listdir(folder)):
            if name.endswith(".ptx"):
                module = (sub + "/" if sub else "") + name[:-4]
                out = os.path.join(out_dir, module.replace("/", "__") + ".cubin")
                subprocess.run([ptxas, "-arch=sm_90a", os.path.join(folder, name), "-o", out], check=True)


def main() -> None:
    if "--cubins" in sys.argv[1:]:
        cubins()
        return
    ptx(os.path.join(HERE, "micro", "micro.cu"), os.path.join(HERE, "micro", "micro.ptx"))
    suite_ptx = os.path.join(HERE, "kernels", "suite.ptx")
    ptx(os.path.join(HERE, "kernels", "suite.cu"), suite_ptx)
    with open(os.path.join(HERE, "kernels", "suite_resources.json"), "w") as f:
        json.dump(resources(suite_ptx), f, indent=1)
        f.write("\n")
    for name in ("families", "occupancy"):
        subprocess.run([tool("nvcc"), "-arch=sm_90a", "-ptx", os.path.join(HERE, "kernels", name + ".cu"),
                        "-o", os.path.join(HERE, "kernels", name + ".ptx")], check=True)
    cubins()


if __name__ == "__main__":
    main()
