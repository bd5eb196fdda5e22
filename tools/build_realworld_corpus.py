#!/usr/bin/env python3
"""Build the real-world PTX corpus: PTX that compilers this project did not write emitted for
kernels under tests/corpus/realworld/src/.

    python tools/build_realworld_corpus.py [--only NAME[,NAME..]] [--check]

  src/cuda/*.cu        nvcc 13.5 (the nvidia-cuda-nvcc wheel) -arch=sm_90, some also sm_90a, and
                       a few with nvcc 13.0 (/usr/local/cuda) -> ptx/<stem>.<variant>.ptx
  src/triton/*.py      every dict of the file's KERNELS list, triton.compile(ASTSource(...),
                       target=GPUTarget("cuda", 90, 32)) -> ptx/<name>.ptx  (Triton 3.9, sm_90a)
  src/numba/*.py       every dict of KERNELS, numba.cuda.compile_ptx(fn, sig, cc=(9, 0))
                       -> ptx/<name>.ptx
  src/llvm/*.ll        LLVM IR through LLVM's own NVPTX back end (llvmlite's LLVM, not NVIDIA's
                       NVVM), the O2 pipeline, cpu sm_90, +ptx80 -> ptx/ll_<stem>.ptx; a few also
                       unoptimized (no IR passes, codegen at O0, as clang -O0) -> ptx/ll_<stem>.O0.ptx

and tests/corpus/realworld/ptx/MANIFEST.json: tool versions, the exact command (or call) per file,
its line count, sha256 and .entry names, and for Triton the launch facts the PTX does not carry
(num_warps -> block size, dynamic shared memory bytes). --check rebuilds in memory and reports
files whose text differs from the stored PTX (compilers are deterministic for fixed inputs, except
that numba-cuda orders some module-scope declarations differently from run to run: reported apart).

The stored PTX is what the tests use; they need no compiler. Run from anywhere; the paths the
compilers see are relative to the repository root so the PTX does not name this checkout.
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib.util
import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RW = ROOT / "tests" / "corpus" / "realworld"
SRC = RW / "src"
PTX_DIR = RW / "ptx"
MANIFEST = PTX_DIR / "MANIFEST.json"

CU13_BIN = Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" \
    / "site-packages" / "nvidia" / "cu13" / "bin"
NVCC_135 = os.environ.get("NVCC_13_5", str(CU13_BIN / "nvcc"))
NVCC_130 = os.environ.get("NVCC_13_0", "/usr/local/cuda/bin/nvcc")

# (source stem, variant, compiler, arch, extra flags). Every source is built with nvcc 13.5 for
# sm_90; a few also for sm_90a, with -G / -lineinfo, and with nvcc 13.0.
CUDA_BUILDS = [(stem, "sm_90", "13.5", "sm_90", ()) for stem in (
    "atomics", "cg_reduce", "cub_scan", "cub_sort", "dp_stencil", "dyn_shared", "half_bf16",
    "local_array", "mathlib", "printf_kernel", "sgemm_tiled", "templates", "warp_shuffle",
    "memcpy_async", "cub_warp", "fp8_atomic_ref", "launch_bounds")] + [
    ("local_array", "sm_90-G", "13.5", "sm_90", ("-G",)),
    ("launch_bounds", "sm_90-lineinfo", "13.5", "sm_90", ("-lineinfo",)),
    ("cub_sort", "sm_90a", "13.5", "sm_90a", ()),
    ("mathlib", "sm_90a-fastmath", "13.5", "sm_90a", ("--use_fast_math",)),
    ("half_bf16", "sm_90a", "13.5", "sm_90a", ()),
    ("cg_reduce", "nvcc13.0-sm_90", "13.0", "sm_90", ()),
    ("warp_shuffle", "nvcc13.0-sm_90", "13.0", "sm_90", ()),
    ("mathlib", "nvcc13.0-sm_90", "13.0", "sm_90", ()),
]


def _tool_version(cmd: list[str]) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        return f"unavailable ({e.__class__.__name__})"
    return " ".join(out.strip().splitlines()[-2:])


def _entries(ptx: str) -> list[str]:
    return re.findall(r"\.entry\s+([A-Za-z_$%][\w$%]*)", ptx)


def _record(name: str, ptx: str, tool: str, command: str, **extra) -> dict:
    return {"file": f"{name}.ptx", "tool": tool, "command": command, "lines": ptx.count("\n"),
            "sha256": hashlib.sha256(ptx.encode()).hexdigest(), "entries": _entries(ptx), **extra}


def build_cuda(only) -> list[tuple[str, str, dict]]:
    out = []
    for stem, variant, ver, arch, flags in CUDA_BUILDS:
        name = f"{stem}.{variant}"
        if only and name not in only and stem not in only:
            continue
        nvcc = NVCC_135 if ver == "13.5" else NVCC_130
        src = os.path.relpath(SRC / "cuda" / f"{stem}.cu", ROOT)
        cmd = [nvcc, f"-arch={arch}", "-ptx", *flags, src, "-o", "-"]
        r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if r.returncode:
            raise SystemExit(f"{name}: nvcc failed:\n{r.stderr}")
        shown = " ".join(["nvcc", *cmd[1:]])
        out.append((name, r.stdout, _record(name, r.stdout, f"nvcc {ver}", shown, source=src)))
    return out


def _import(path: Path):
    rel = os.path.relpath(path, ROOT)
    spec = importlib.util.spec_from_file_location(f"rw_{path.stem}", rel)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod, rel


def build_triton(only) -> list[tuple[str, str, dict]]:
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # Triton 3.9's default, made explicit
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    out = []
    for path in sorted((SRC / "triton").glob("*.py")):
        mod, rel = _import(path)
        for k in mod.KERNELS:
            if only and k["name"] not in only:
                continue
            opts = {"num_warps": k.get("num_warps", 4)}
            src = ASTSource(fn=k["fn"], signature=k["signature"], constexprs=k.get("constexprs", {}))
            compiled = triton.compile(src, target=GPUTarget("cuda", 90, 32), options=opts)
            ptx = compiled.asm["ptx"]
            md = compiled.metadata
            call = (f"triton.compile(ASTSource(fn={rel}:{k['fn'].__name__}, signature={k['signature']}, "
                    f"constexprs={k.get('constexprs', {})}), target=GPUTarget('cuda', 90, 32), options={opts})")
            out.append((k["name"], ptx, _record(
                k["name"], ptx, f"triton {triton.__version__}", call, source=rel,
                num_warps=md.num_warps, block=md.num_warps * 32, shared=md.shared,
                scratch_params=2,  # global and profile scratch pointers Triton appends
            )))
    return out


@contextlib.contextmanager
def _numba_without_gpu(cc=(9, 0)):
    """numba-cuda's device-function dispatcher asks the current GPU for its compute capability
    even under compile_ptx; with no driver here, answer with the target's."""
    import numba.cuda.dispatcher as disp

    class _Device:
        compute_capability = cc

    saved = disp.get_current_device
    disp.get_current_device = lambda: _Device()
    try:
        yield
    finally:
        disp.get_current_device = saved


def _numba_ptx(rel: str, name: str) -> str:
    """One kernel's PTX, compiled in this process (the --numba-one worker)."""
    from numba import cuda
    mod, _ = _import(ROOT / rel)
    k = next(k for k in mod.KERNELS if k["name"] == name)
    with _numba_without_gpu():
        ptx, _ = cuda.compile_ptx(k["fn"], k["sig"], cc=(9, 0))
    return ptx


def build_numba(only) -> list[tuple[str, str, dict]]:
    """Each kernel in a fresh interpreter with a fixed hash seed: numba's mangled names carry a
    process-wide counter and the order of some declarations follows set iteration, so this is
    what makes the PTX reproducible."""
    import numba
    import numba_cuda
    out = []
    env = dict(os.environ, PYTHONHASHSEED="0")
    for path in sorted((SRC / "numba").glob("*.py")):
        mod, rel = _import(path)
        for k in mod.KERNELS:
            if only and k["name"] not in only:
                continue
            r = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--numba-one", rel, k["name"]],
                               cwd=ROOT, env=env, capture_output=True, text=True)
            if r.returncode:
                raise SystemExit(f"{k['name']}: numba failed:\n{r.stderr[-3000:]}")
            ptx = r.stdout
            call = (f"PYTHONHASHSEED=0, a fresh interpreter: numba.cuda.compile_ptx({rel}:{k['fn'].__name__}, "
                    f"{str(k['sig'])!r}, cc=(9, 0))")
            out.append((k["name"], ptx, _record(
                k["name"], ptx, f"numba {numba.__version__} / numba-cuda {numba_cuda.__version__}", call,
                source=rel, sig=str(k["sig"]))))
    return out


LLVM_CPU, LLVM_FEATURES = "sm_90", "+ptx80"
LLVM_UNOPTIMIZED = ("blocksum", "calls")  # also built as clang -O0 would: ptx/ll_<stem>.O0.ptx


def _llvm_ptx(ir: str, opt: int = 2) -> str:
    """LLVM IR -> PTX with LLVM's NVPTX back end, as clang -O<opt> --cuda-gpu-arch=sm_90 would run
    it (opt 0: no IR passes)."""
    import llvmlite.binding as llvm

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    mod = llvm.parse_assembly(ir)
    mod.verify()
    tm = llvm.Target.from_triple("nvptx64-nvidia-cuda").create_target_machine(
        cpu=LLVM_CPU, features=LLVM_FEATURES, opt=opt)
    if opt:
        pb = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=opt))
        pb.getModulePassManager().run(mod, pb)
    return tm.emit_assembly(mod)


def build_llvm(only) -> list[tuple[str, str, dict]]:
    import llvmlite
    import llvmlite.binding as llvm

    out = []
    tool = f"LLVM {'.'.join(map(str, llvm.llvm_version_info))} NVPTX (llvmlite {llvmlite.__version__})"
    for path in sorted((SRC / "llvm").glob("*.ll")):
        for opt in (2, 0) if path.stem in LLVM_UNOPTIMIZED else (2,):
            name = f"ll_{path.stem}" + ("" if opt else ".O0")
            if only and name not in only:
                continue
            rel = os.path.relpath(path, ROOT)
            ptx = _llvm_ptx(path.read_text(), opt)
            passes = "the O2 module pipeline" if opt else "no IR passes"
            call = (f"llvmlite: parse_assembly({rel}), {passes}, "
                    f"create_target_machine(cpu={LLVM_CPU!r}, features={LLVM_FEATURES!r}, opt={opt}).emit_assembly")
            out.append((name, ptx, _record(name, ptx, tool, call, source=rel)))
    return out


def versions() -> dict:
    v = {"nvcc 13.5": _tool_version([NVCC_135, "--version"]),
         "nvcc 13.0": _tool_version([NVCC_130, "--version"])}
    with contextlib.suppress(Exception):
        import triton
        v["triton"] = triton.__version__
    with contextlib.suppress(Exception):
        import numba
        import numba_cuda
        v["numba"] = numba.__version__
        v["numba-cuda"] = numba_cuda.__version__
        from numba.cuda.cudadrv import nvvm
        v["numba nvvm"] = ".".join(map(str, nvvm.NVVM().get_version()))
    with contextlib.suppress(Exception):
        import llvmlite
        import llvmlite.binding as llvm
        v["llvmlite"] = llvmlite.__version__
        v["llvm (NVPTX back end)"] = ".".join(map(str, llvm.llvm_version_info))
    return v


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="", help="comma-separated file names (without .ptx) or CUDA stems")
    ap.add_argument("--check", action="store_true", help="rebuild in memory; report differences, write nothing")
    ap.add_argument("--numba-one", nargs=2, metavar=("SOURCE", "NAME"), help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    if a.numba_one:
        sys.stdout.write(_numba_ptx(*a.numba_one))
        return 0
    only = set(filter(None, a.only.split(",")))
    built = build_cuda(only) + build_triton(only) + build_numba(only) + build_llvm(only)
    if a.check:
        changed = [(n, (PTX_DIR / f"{n}.ptx").read_text(), ptx) for n, ptx, _ in built]
        changed = [(n, old, new) for n, old, new in changed if old != new]
        # numba/NVVM emit some module-scope declarations in an order that varies between runs
        reordered = [n for n, old, new in changed if sorted(old.splitlines()) == sorted(new.splitlines())]
        bad = [n for n, _, _ in changed if n not in reordered]
        print(json.dumps({"built": len(built), "differ": bad, "declarations_reordered": reordered}))
        return 1 if bad else 0
    PTX_DIR.mkdir(parents=True, exist_ok=True)
    old = json.loads(MANIFEST.read_text())["files"] if MANIFEST.exists() and only else {}
    files = dict(old)
    for name, ptx, rec in built:
        (PTX_DIR / f"{name}.ptx").write_text(ptx)
        files[name] = rec
    manifest = {"generator": "tools/build_realworld_corpus.py", "versions": versions(),
                "files": dict(sorted(files.items()))}
    MANIFEST.write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"{len(built)} PTX files written; manifest has {len(files)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
