"""What the H200's driver says to the launches ptxvm refuses (docs/limits.md): for each case the
CUresult names of cuModuleLoadData, cuLaunchKernel and cuCtxSynchronize, plus the device's own
limits (grid and block dimensions, shared memory, memory, stack size). Recorded on the H200 into
tests/goldens/limits/h200_launch_limits.json, which tests/engine/test_limits.py replays (ptxvm
refuses exactly the launches the driver refused).

    python3 tools/device/probe_limits.py OUT.json        # on the GPU machine (driver API only)

Kernels take no parameters (results go to a .global sink), so every launch is a plain
cuLaunchKernel. No case runs long: the grids that run are small; the over-limit ones are refused.
"""
from __future__ import annotations

import json
import sys

try:  # only the recording needs CUDA; the tests import CASES
    from cuda.bindings import driver as cu
except ImportError:  # pragma: no cover
    cu = None

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n.global .align 4 .u32 sink;\n"
TRIVIAL = HEAD + ".visible .entry k()\n{\n    ret;\n}\n"


def _local(nbytes: int) -> str:
    return HEAD + (f".visible .entry k()\n{{\n    .local .align 4 .b8 arr[{nbytes}];\n    .reg .u32 %r<3>;\n"
                   f"    mov.u32 %r1, %tid.x;\n    st.local.u32 [arr+{nbytes - 4}], %r1;\n"
                   f"    ld.local.u32 %r2, [arr+{nbytes - 4}];\n    st.global.u32 [sink], %r2;\n    ret;\n}}\n")


DYN_SHARED = HEAD + (".extern .shared .align 16 .b8 dyn[];\n.visible .entry k()\n{\n    .reg .u32 %r<2>;\n"
                     "    mov.u32 %r1, %tid.x;\n    st.shared.u32 [dyn], %r1;\n    ret;\n}\n")
BIG_GLOBAL = HEAD + ".global .align 1 .b8 big[40000000000];\n.visible .entry k()\n{\n    .reg .u64 %rd<2>;\n" \
                    "    mov.u64 %rd1, big;\n    st.global.u8 [%rd1+39999999999], 1;\n    ret;\n}\n"

# (name, ptx, grid, block, dynamic shared bytes, MAX_DYNAMIC_SHARED_SIZE_BYTES attribute or None)
CASES = [
    ("grid_x_limit_beyond", TRIVIAL, (2**31, 1, 1), (1, 1, 1), 0, None),
    ("grid_y_at_limit", TRIVIAL, (1, 65535, 1), (1, 1, 1), 0, None),
    ("grid_y_beyond", TRIVIAL, (1, 65536, 1), (1, 1, 1), 0, None),
    ("grid_z_beyond", TRIVIAL, (1, 1, 65536), (1, 1, 1), 0, None),
    ("block_x_1024", TRIVIAL, (1, 1, 1), (1024, 1, 1), 0, None),
    ("block_x_1025", TRIVIAL, (1, 1, 1), (1025, 1, 1), 0, None),
    ("block_y_1025", TRIVIAL, (1, 1, 1), (1, 1025, 1), 0, None),
    ("block_z_64", TRIVIAL, (1, 1, 1), (16, 1, 64), 0, None),
    ("block_z_65", TRIVIAL, (1, 1, 1), (1, 1, 65), 0, None),
    ("block_2048_threads", TRIVIAL, (1, 1, 1), (64, 32, 1), 0, None),
    ("maxntid_64_block_64", HEAD + ".visible .entry k() .maxntid 64\n{\n    ret;\n}\n", (1, 1, 1), (64, 1, 1), 0, None),
    ("maxntid_64_block_65", HEAD + ".visible .entry k() .maxntid 64\n{\n    ret;\n}\n", (1, 1, 1), (65, 1, 1), 0, None),
    ("maxntid_32x2_block_16x4", HEAD + ".visible .entry k() .maxntid 32, 2\n{\n    ret;\n}\n", (1, 1, 1), (16, 4, 1), 0, None),
    ("reqntid_32x2_block_32x2", HEAD + ".visible .entry k() .reqntid 32, 2\n{\n    ret;\n}\n", (1, 1, 1), (32, 2, 1), 0, None),
    ("reqntid_32x2_block_64", HEAD + ".visible .entry k() .reqntid 32, 2\n{\n    ret;\n}\n", (1, 1, 1), (64, 1, 1), 0, None),
    ("reqntid_1025", HEAD + ".visible .entry k() .reqntid 1025\n{\n    ret;\n}\n", (1, 1, 1), (1025, 1, 1), 0, None),
    ("dyn_shared_48k", DYN_SHARED, (1, 1, 1), (32, 1, 1), 48 * 1024, None),
    ("dyn_shared_48k_plus_16_no_optin", DYN_SHARED, (1, 1, 1), (32, 1, 1), 48 * 1024 + 16, None),
    ("dyn_shared_227k_optin", DYN_SHARED, (1, 1, 1), (32, 1, 1), 227 * 1024, 227 * 1024),
    ("dyn_shared_227k_plus_16_optin", DYN_SHARED, (1, 1, 1), (32, 1, 1), 227 * 1024 + 16, 227 * 1024),
    ("dyn_shared_above_attribute", DYN_SHARED, (1, 1, 1), (32, 1, 1), 100 * 1024, 64 * 1024),
    ("local_256k", _local(256 * 1024), (1, 1, 1), (32, 1, 1), 0, None),
    ("local_512k", _local(512 * 1024), (1, 1, 1), (32, 1, 1), 0, None),
    ("local_512k_plus_16", _local(512 * 1024 + 16), (1, 1, 1), (32, 1, 1), 0, None),
    ("local_1g", _local(1 << 30), (1, 1, 1), (1, 1, 1), 0, None),
    ("global_40gb", BIG_GLOBAL, (1, 1, 1), (1, 1, 1), 0, None),
]


def _name(err) -> str:
    e, name = cu.cuGetErrorName(err)
    return name.decode() if int(e) == 0 else repr(err)


def _value(res):
    """The value(s) of a cuda.bindings call's (CUresult, value...) tuple; RuntimeError on failure."""
    if int(res[0]) != 0:
        raise RuntimeError(_name(res[0]))
    return None if len(res) == 1 else res[1] if len(res) == 2 else res[1:]


def device_limits(dev) -> dict:
    A = cu.CUdevice_attribute
    out = {}
    for key in ("MAX_GRID_DIM_X", "MAX_GRID_DIM_Y", "MAX_GRID_DIM_Z", "MAX_BLOCK_DIM_X", "MAX_BLOCK_DIM_Y",
                "MAX_BLOCK_DIM_Z", "MAX_THREADS_PER_BLOCK", "MAX_SHARED_MEMORY_PER_BLOCK",
                "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN", "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR",
                "MAX_REGISTERS_PER_BLOCK", "MAX_THREADS_PER_MULTIPROCESSOR", "MAX_BLOCKS_PER_MULTIPROCESSOR",
                "MULTIPROCESSOR_COUNT", "RESERVED_SHARED_MEMORY_PER_BLOCK"):
        out[key] = int(_value(cu.cuDeviceGetAttribute(getattr(A, "CU_DEVICE_ATTRIBUTE_" + key), dev)))
    free, total = _value(cu.cuMemGetInfo())
    out["mem_free"], out["mem_total"] = int(free), int(total)
    for lim in ("CU_LIMIT_STACK_SIZE", "CU_LIMIT_MALLOC_HEAP_SIZE"):
        out[lim] = int(_value(cu.cuCtxGetLimit(getattr(cu.CUlimit, lim))))
    return out


def run_case(name, ptx, grid, block, shared, optin) -> dict:
    rec = {"case": name, "grid": grid, "block": block, "shared": shared, "optin": optin}
    err, mod = cu.cuModuleLoadData(ptx.encode() + b"\0")
    rec["load"] = _name(err)
    if int(err) != 0:
        return rec
    try:
        f = _value(cu.cuModuleGetFunction(mod, b"k"))
        rec["local_size_bytes"] = int(_value(cu.cuFuncGetAttribute(
            cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f)))
        rec["max_threads_per_block"] = int(_value(cu.cuFuncGetAttribute(
            cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f)))
        if optin is not None:
            (e,) = cu.cuFuncSetAttribute(f, cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, optin)
            rec["set_attribute"] = _name(e)
        (e,) = cu.cuLaunchKernel(f, *grid, *block, shared, 0, 0, 0)
        rec["launch"] = _name(e)
        (e,) = cu.cuCtxSynchronize()
        rec["synchronize"] = _name(e)
        rec["stack_limit_after"] = int(_value(cu.cuCtxGetLimit(cu.CUlimit.CU_LIMIT_STACK_SIZE)))
    finally:
        cu.cuModuleUnload(mod)
    return rec


def main(path: str) -> int:
    _value(cu.cuInit(0))
    dev = _value(cu.cuDeviceGet(0))
    ctx = _value(cu.cuDevicePrimaryCtxRetain(dev))
    _value(cu.cuCtxSetCurrent(ctx))
    result = {"device": device_limits(dev), "cases": []}
    for case in CASES:
        try:
            rec = run_case(*case)
        except Exception as e:  # noqa: BLE001 - record and go on (a sticky error ends the useful part)
            rec = {"case": case[0], "error": str(e)}
        result["cases"].append(rec)
        print(json.dumps(rec), flush=True)
    for value in (512 * 1024, 512 * 1024 + 16, 64 << 20):
        (e,) = cu.cuCtxSetLimit(cu.CUlimit.CU_LIMIT_STACK_SIZE, value)
        result.setdefault("set_stack_limit", {})[value] = _name(e)
    with open(path, "w") as fh:
        json.dump(result, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "limits_probe.json"))
