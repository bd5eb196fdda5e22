"""The real-world corpus: PTX that nvcc 13.5/13.0, Triton 3.9 and numba-cuda emitted for the
kernels under src/ (tools/build_realworld_corpus.py). Every file loads and verifies, printing it is a
fixed point, and the launches of cases.py run on the CPU engine bit for bit as they ran on an H200
(tests/goldens/realworld, tools/device/record_realworld.py), with a NumPy sanity check on top."""
from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import io
import json
import pathlib
import sys

import numpy as np
import pytest

import ptxvm
from ptxvm.frontend import parse
from ptxvm.syntax.printer import print_module

HERE = pathlib.Path(__file__).resolve().parent
PTX_DIR = HERE / "ptx"
GOLDENS = HERE.parents[1] / "goldens" / "realworld"
MANIFEST = json.loads((PTX_DIR / "MANIFEST.json").read_text())["files"]
FILES = sorted(PTX_DIR.glob("*.ptx"))


def _load_cases():
    spec = importlib.util.spec_from_file_location("realworld_cases", HERE / "cases.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["realworld_cases"] = mod
    spec.loader.exec_module(mod)
    return mod


C = _load_cases()
# Cases the engine does not run as the H200 does yet, each with the gap it hits (strict: a fix
# shows up as an unexpected pass).
XFAIL: dict[str, str] = {}
# Files that are not a whole program by themselves (relocatable, `ptxas -c`): they load, and their
# kernels run once linked with what defines their .extern functions; no launch of them here.
# (numba-cuda links its float16 operators (_ZmlRK6__halfS1__nbst, ...) from a CUDA C++ shim that
# NVRTC compiles at run time; ptxvm.numba links it: tests/frontdoor/test_numba.py's fp16 case.)
RELOCATABLE = {"nb_float16"}


def test_manifest_describes_every_file():
    assert sorted(f"{n}.ptx" for n in MANIFEST) == [p.name for p in FILES]
    for name, rec in MANIFEST.items():
        text = (PTX_DIR / rec["file"]).read_bytes()
        assert hashlib.sha256(text).hexdigest() == rec["sha256"], name
        assert text.count(b"\n") == rec["lines"], name
        assert rec["entries"], name
    tools = {rec["tool"].split()[0] for rec in MANIFEST.values()}
    assert tools == {"nvcc", "triton", "numba", "LLVM"}  # LLVM: its own NVPTX back end (src/llvm)
    assert sum(p.stat().st_size for p in FILES) < 2_000_000  # keep the corpus small


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_loads_and_verifies(path):
    mod = ptxvm.load(str(path))
    for entry in MANIFEST[path.stem]["entries"]:
        assert mod[entry] is not None


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_printing_is_a_fixed_point(path):
    module = parse(path.read_text(), path.name)
    printed = print_module(module)
    again = parse(printed, path.name)
    assert again == module
    assert print_module(again) == printed


def test_every_file_has_a_launch_and_every_launch_a_golden():
    launched = {c.file for c in C.CASES}
    assert launched == set(MANIFEST) - RELOCATABLE, (set(MANIFEST) - RELOCATABLE) ^ launched
    for c in C.CASES:
        assert (GOLDENS / f"{c.name}.meta.json").exists(), c.name


@pytest.mark.parametrize("case", C.CASES, ids=lambda c: c.name)
def test_case_launch_matches_the_compiler(case):
    """Triton's launch facts (block = num_warps * 32, dynamic shared bytes) as the compiler gave them."""
    rec = MANIFEST[case.file]
    C.entry_name(case, rec["entries"])
    if "block" in rec:
        assert tuple(case.block) == (rec["block"],) and case.shared == rec["shared"]


def _replay(case):
    meta = json.loads((GOLDENS / f"{case.name}.meta.json").read_text())
    assert meta["status"] == "recorded", meta.get("message")
    path = PTX_DIR / f"{case.file}.ptx"
    assert meta["ptx_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest(), "golden recorded for other PTX"
    golden = np.load(GOLDENS / f"{case.name}.npz")
    specs = case.make(case.rng())
    assert [[a.name, a.kind] for a in specs] == meta["args"]
    values, inputs = [], {}
    for i, a in enumerate(specs):
        if a.kind == "scalar":
            raw = golden[f"arg{i}.value"].tobytes()
            want = a.value if isinstance(a.value, (bytes, bytearray)) else np.asarray(a.value).tobytes()
            assert raw == want, f"{a.name}: recorded scalar differs from cases.py"
            values.append(a.value)
        else:
            g = golden[f"arg{i}.in"]
            assert np.array_equal(g.view(np.uint8), np.ascontiguousarray(a.value).view(np.uint8)), \
                f"{a.name}: recorded input differs from cases.py"
            values.append(np.array(g, copy=True))
            inputs[a.name + ".in"] = g
            if a.kind.startswith("tmap_"):
                values[-1] = ptxvm.tensor_map(ptxvm.to_device(values[-1]), box=a.box, swizzle=a.swizzle)
    mod = ptxvm.load(str(path))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        mod[meta["kernel"]].launch(tuple(meta["grid"]), tuple(meta["block"]), values,
                                   shared_mem=meta["shared_mem"])
    return specs, values, inputs, golden, meta, out.getvalue()


@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=XFAIL[c.name]))
                                  if c.name in XFAIL else c for c in C.CASES], ids=lambda c: c.name)
def test_runs_as_on_the_h200(case):
    specs, values, inputs, golden, meta, printed = _replay(case)
    for i, a in enumerate(specs):
        if a.kind in ("out", "inout", "tmap_out"):
            got, want = values[i], golden[f"arg{i}.out"]
            if a.kind == "tmap_out":
                got = values[i].array.copy_to_host()
            if a.name in case.racy:
                got, want = got.copy(), want.copy()
                got.reshape(-1)[case.racy[a.name]] = want.reshape(-1)[case.racy[a.name]]
            g8, w8 = got.reshape(-1).view(np.uint8), want.reshape(-1).view(np.uint8)
            if not np.array_equal(g8, w8):
                gi = got.reshape(-1).view(np.uint8).reshape(got.size, -1)
                wi = want.reshape(-1).view(np.uint8).reshape(want.size, -1)
                bad = np.flatnonzero((gi != wi).any(axis=1))
                k = int(bad[0])
                pytest.fail(f"{a.name}: {bad.size}/{got.size} elements differ from the H200, first at {k}: "
                            f"engine {got.reshape(-1)[k]!r}, H200 {want.reshape(-1)[k]!r}")
    if "stdout" in meta:
        assert sorted(printed.splitlines()) == sorted(meta["stdout"].splitlines())


@pytest.mark.parametrize("case", [c for c in C.CASES if c.check or c.stdout], ids=lambda c: c.name)
def test_h200_outputs_pass_numpy_checks(case):
    """The recorded outputs make sense by NumPy's reckoning (a check of the cases and the goldens)."""
    meta = json.loads((GOLDENS / f"{case.name}.meta.json").read_text())
    golden = np.load(GOLDENS / f"{case.name}.npz")
    arrays = {}
    for i, (name, kind) in enumerate(meta["args"]):
        if kind != "scalar":
            arrays[name] = golden[f"arg{i}.out"] if f"arg{i}.out" in golden else golden[f"arg{i}.in"]
            arrays[name + ".in"] = golden[f"arg{i}.in"]
    if case.check:
        case.check(arrays)
    if case.stdout:
        assert sorted(meta["stdout"].splitlines()) == sorted(case.stdout(arrays))


def _ptxas_13_5():
    """The newest installed ptxas (ptxvm.toolchain), if it takes PTX ISA 9.5 (CUDA 13.5 or later)."""
    from ptxvm import toolchain

    for release, path in toolchain.by_release("ptxas").items():
        major, minor = map(int, release.split("."))
        if (major, minor) >= (13, 5):
            return path
    return None


def test_ptxas_13_5_assembles_every_file(tmp_path):
    """The second opinion: every file is valid PTX for its own target by ptxas 13.5's reckoning
    (as relocatable code where it is not a whole program)."""
    import subprocess
    ptxas = _ptxas_13_5()
    if ptxas is None:
        pytest.skip("ptxas 13.5 or newer is not installed (pip install nvidia-cuda-nvcc)")
    refused = []
    for path in FILES:
        arch = next(t for t in parse(path.read_text(), path.name).target if t.startswith("sm_"))
        relocatable = ["-c"] if path.stem in RELOCATABLE else []
        r = subprocess.run([ptxas, *relocatable, f"-arch={arch}", str(path), "-o", str(tmp_path / "x.cubin")],
                           capture_output=True, text=True)
        if r.returncode:
            refused.append(f"{path.name}: {r.stderr.strip()[:300]}")
    assert not refused, "\n".join(refused)


def test_llvm_trap_is_a_kernel_fault_that_leaves_memory_alone():
    """LLVM's llvm.trap (PTX `trap;`) on one thread: a KernelFault naming the kernel, CTA, thread
    and PTX line, and the caller's arrays as they were (the same file's non-trapping launch is the
    llvm_memcpy_memset golden)."""
    mod = ptxvm.load(str(PTX_DIR / "ll_memcpy_trap.ptx"))
    src = np.arange(64 * 72, dtype=np.uint32).astype(np.uint8)
    dst = np.zeros(64 * 72, np.uint8)
    with pytest.raises(ptxvm.KernelFault) as err:
        mod["memcpy_trap"].launch(1, 64, [dst, src, np.int32(5)])
    msg = str(err.value)
    assert "trap" in msg and "memcpy_trap" in msg and "thread (5, 0, 0)" in msg and "ll_memcpy_trap.ptx:" in msg
    assert not dst.any()
