#!/usr/bin/env python3
"""Rebuild the committed PTX of benchmarks/timing and the suite's ptxas resource usage.

    python benchmarks/timing/build.py          # needs nvcc and ptxas (CUDA 13) on PATH or in /usr/local/cuda/bin

micro/micro.cu -> micro/micro.ptx; kernels/suite.cu -> kernels/suite.ptx and
kernels/suite_resources.json (registers, static shared bytes, barriers, stack per kernel from
`ptxas -arch=sm_90 -v`), which the timing model may use for occupancy.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def tool(name: str) -> str:
    path = shutil.which(name) or os.path.join("/usr/local/cuda/bin", name)
    if not os.path.exists(path):
        sys.exit(f"build.py: {name} not found (install the CUDA toolkit)")
    return path


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


def main() -> None:
    ptx(os.path.join(HERE, "micro", "micro.cu"), os.path.join(HERE, "micro", "micro.ptx"))
    suite_ptx = os.path.join(HERE, "kernels", "suite.ptx")
    ptx(os.path.join(HERE, "kernels", "suite.cu"), suite_ptx)
    with open(os.path.join(HERE, "kernels", "suite_resources.json"), "w") as f:
        json.dump(resources(suite_ptx), f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
