#!/usr/bin/env python3
"""ncu counters of local-memory loads and stores of 4, 8 and 16 bytes a lane at warp-uniform
offsets (tools/device/local_width.ptx): the sectors one warp's request covers, which says how
the hardware lays a lane's wider local data out (the timing model's timing/trace.py _local_wide).

On the GPU machine (CuPy, ncu):
    python3 tools/device/probe_local_width.py run OUTDIR
It writes OUTDIR/local_width.json: per kernel, the ncu metrics below, the SASS local
instructions (cuobjdump), the device and the PTX's sha256.
"""
import csv, datetime, hashlib, io, json, os, shutil, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
PTX = os.path.join(HERE, "local_width.ptx")
KERNELS = ["local_w4", "local_w8", "local_w16"]
THREADS, ITERS = 64, 64
METRICS = [
    "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_local_op_ld.sum",
    "smsp__inst_executed_op_local_ld.sum",
    "smsp__inst_executed_op_local_st.sum",
]


def launch():
    """Launch every kernel once (what ncu profiles)."""
    import cupy as cp
    mod = cp.RawModule(path=PTX)
    for k in KERNELS:
        out = cp.zeros(THREADS * 2, cp.float64)
        mod.get_function(k)((1,), (THREADS,), (out, cp.uint32(ITERS)))
    cp.cuda.runtime.deviceSynchronize()


def run(out: str) -> None:
    os.makedirs(out, exist_ok=True)
    ncu = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
    got = subprocess.run([ncu, "--csv", "--metrics", ",".join(METRICS), sys.executable, __file__, "launch"],
                         capture_output=True, text=True)
    rows = [r for r in csv.DictReader(io.StringIO(got.stdout[got.stdout.find('"ID"'):]))] if '"ID"' in got.stdout else []
    result = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(), "recorder": "tools/device/probe_local_width.py",
              "ptx_sha256": hashlib.sha256(open(PTX, "rb").read()).hexdigest(), "threads": THREADS,
              "iterations": ITERS, "kernels": {}}
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True).stdout.strip()
        result["device"] = smi
    except OSError:
        pass
    for r in rows:
        k = r["Kernel Name"].split("(")[0]
        v = r["Metric Value"].replace(",", "")
        result["kernels"].setdefault(k, {})[r["Metric Name"]] = float(v) if v.replace(".", "").isdigit() else v
    cubin = os.path.join(out, "local_width.cubin")
    subprocess.run(["ptxas", "-arch=sm_90", PTX, "-o", cubin], check=True)
    sass = subprocess.run(["cuobjdump", "-sass", cubin], capture_output=True, text=True).stdout
    result["sass_local"] = [l.strip() for l in sass.splitlines() if "LDL" in l or "STL" in l]
    if not rows:
        result["ncu_stderr"] = got.stderr[-2000:] + got.stdout[-2000:]
    with open(os.path.join(out, "local_width.json"), "w") as f:
        json.dump(result, f, indent=1)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    if sys.argv[1] == "launch":
        launch()
    else:
        run(sys.argv[2])
