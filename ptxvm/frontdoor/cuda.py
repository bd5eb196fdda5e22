"""CUDA C++ to a ptxvm Module: NVRTC in-process when it works, else the installed nvcc.

    mod = ptxvm.compile_cuda(r'''
        __global__ void add(const int *a, const int *b, int *c) {
            int i = threadIdx.x, r;
            asm("add.s32 %0, %1, %2;" : "=r"(r) : "r"(a[i]), "r"(b[i]));
            c[i] = r;
        }''')
    mod.kernel("add").launch(1, 32, [a, b, c])     # found by its C++ name (_Z3addPKiS0_Pi)

Compile errors raise `CudaCompileError` (a `PtxError`) whose diagnostics point at the CUDA source:
the compiler's `file(line): error: message` records, with the source line and the compiler's caret
column (column 1 where it gives none). Kernels without `extern "C"` keep their mangled names in
the PTX; `CudaModule.kernel(name)` also accepts the C++ name (see `cxx_name`).
"""
from __future__ import annotations

import functools
import glob
import os
import re
import shutil
import subprocess
import tempfile
from typing import Iterable, Optional, Sequence

from ..errors import Diagnostic, PtxError, PtxVerifyError, Span
from ..module import Kernel, Module

__all__ = ["compile_cuda", "compile_cuda_to_ptx", "CudaCompileError", "CudaToolchainError", "CudaModule",
           "cxx_name", "available_compilers"]


class CudaCompileError(PtxError):
    """The CUDA C++ source did not compile; `diagnostics` point at its lines; `log` is the raw log."""

    def __init__(self, diagnostics: Sequence[Diagnostic], log: str = "", compiler: str = ""):
        self.log = log
        self.compiler = compiler
        super().__init__(diagnostics)


class CudaToolchainError(RuntimeError):
    """Neither NVRTC (cuda-bindings) nor nvcc could be found or run."""


# ----------------------------------------------------------------------------------- compilers
def _nvcc_path() -> Optional[str]:
    """A toolkit's nvcc (PATH, $CUDA_HOME, /usr/local/cuda) before the pip wheels' (ptxvm.toolchain)."""
    from .. import toolchain

    return toolchain.find("nvcc", toolkit_first=True)


@functools.lru_cache(maxsize=1)
def _nvrtc():
    """The cuda.bindings.nvrtc module if it imports and its library answers, else None."""
    try:
        from cuda.bindings import nvrtc  # type: ignore
    except Exception:
        try:
            from cuda import nvrtc  # type: ignore  (cuda-python < 12.6)
        except Exception:
            return None
    try:
        err, major, minor = nvrtc.nvrtcVersion()
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            return None
    except Exception:
        return None
    return nvrtc


def available_compilers() -> list[str]:
    """Which back ends `compile_cuda` can use here, in the order it tries them: 'nvrtc', 'nvcc'."""
    out = []
    if _nvrtc() is not None:
        out.append("nvrtc")
    if _nvcc_path() is not None:
        out.append("nvcc")
    return out


def _compute_arch(arch: str) -> str:
    m = re.fullmatch(r"(?:sm|compute)_(\w+)", arch)
    if not m:
        raise ValueError(f"arch should look like 'sm_90' or 'compute_90', not {arch!r}")
    return m.group(1)


@functools.lru_cache(maxsize=1)
def _cuda_include_dirs() -> tuple:
    """The CUDA headers NVRTC does not carry built in: the toolkit's include directory and, since
    CUDA 13, CCCL's (libcu++ `<cuda/atomic>`, `<cuda/barrier>`, CUB, Thrust) in include/cccl. From
    $CUDA_HOME / $CUDA_PATH / /usr/local/cuda and from NVIDIA's pip wheels (nvidia-cuda-cccl,
    nvidia-cuda-runtime: site-packages/nvidia/cu13/include). nvcc finds them itself."""
    roots = [os.path.join(h, "include") for h in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH")) if h]
    try:  # the wheels next: NVRTC itself usually comes from one (nvidia-cuda-nvrtc), so they match it
        import site

        for sp in site.getsitepackages() + [site.getusersitepackages()]:
            roots += sorted(glob.glob(os.path.join(sp, "nvidia", "cu*", "include")), reverse=True)
    except Exception:  # noqa: BLE001 - site may be incomplete in embedded interpreters
        pass
    roots.append("/usr/local/cuda/include")
    nvcc = _nvcc_path()
    if nvcc:
        roots.append(os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))), "include"))
    out = []
    for root in roots:
        for d in (os.path.join(root, "cccl"), root):
            d = os.path.realpath(d)
            # a CUDA include directory: the runtime's headers, or CCCL's cuda/ tree (not /usr/include)
            cuda_dir = os.path.isfile(os.path.join(d, "cuda_runtime.h")) or os.path.isdir(os.path.join(d, "cuda"))
            if cuda_dir and d not in out:
                out.append(d)
    return tuple(out)


def _compile_nvrtc(nvrtc, source: str, name: str, options: tuple, arch: str):
    """(ptx or None, log). The caller's options come first, so their -I directories are searched
    before the CUDA ones this adds (_cuda_include_dirs)."""
    ok = nvrtc.nvrtcResult.NVRTC_SUCCESS
    err, prog = nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), 0, [], [])
    if err != ok:
        raise CudaToolchainError(f"nvrtcCreateProgram failed: {err}")
    try:
        opts = ([f"--gpu-architecture=compute_{_compute_arch(arch)}".encode()] + [o.encode() for o in options]
                + [f"-I{d}".encode() for d in _cuda_include_dirs()])
        (cerr,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
        err, size = nvrtc.nvrtcGetProgramLogSize(prog)
        log = b" " * size
        if size > 1:
            nvrtc.nvrtcGetProgramLog(prog, log)
        log_text = log.rstrip(b"\x00 ").decode(errors="replace")
        if cerr != ok:
            return None, log_text
        err, size = nvrtc.nvrtcGetPTXSize(prog)
        ptx = b" " * size
        (err,) = nvrtc.nvrtcGetPTX(prog, ptx)
        if err != ok:
            raise CudaToolchainError(f"nvrtcGetPTX failed: {err}")
        return ptx.rstrip(b"\x00").decode(), log_text
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def _compile_nvcc(nvcc: str, source: str, name: str, options: tuple, arch: str):
    """(ptx or None, log); the source is written as `name` in a temporary directory."""
    base = os.path.basename(name) or "source.cu"
    if not base.endswith((".cu", ".cuh", ".cpp", ".cc")):
        base += ".cu"
    with tempfile.TemporaryDirectory(prefix="ptxvm-cuda-") as tmp:
        path = os.path.join(tmp, base)
        with open(path, "w", encoding="utf-8") as f:
            f.write(source)
        cmd = [nvcc, "-ptx", f"-arch=sm_{_compute_arch(arch)}", *options, "-o", "-", base]
        proc = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, errors="replace")
        log = proc.stderr.replace(path, base)
        if proc.returncode != 0:
            return None, log
        return proc.stdout, log


@functools.lru_cache(maxsize=256)
def _compile_cached(source: str, name: str, options: tuple, arch: str, backend: Optional[str]):
    """(ptx, log, compiler): cached per source so that the same kernel compiles once per process."""
    backends = [backend] if backend else ["nvrtc", "nvcc"]
    tried = []
    for b in backends:
        if b == "nvrtc":
            nvrtc = _nvrtc()
            if nvrtc is None:
                tried.append("NVRTC (cuda.bindings.nvrtc) is not importable or does not load")
                continue
            try:
                ptx, log = _compile_nvrtc(nvrtc, source, name, options, arch)
            except CudaToolchainError as e:
                tried.append(str(e))
                continue
            if ptx is None and backend is None and _nvcc_path() is not None:
                # NVRTC has no host C++ headers (<cstdio>, <cassert>, <cmath>...) and none of what
                # nvcc's implicit cuda_runtime.h brings (INFINITY, M_PI, FLT_MAX from math.h): what
                # NVRTC refuses goes to nvcc, the compiler CUDA sources are written for, and its
                # verdict stands either way
                nvcc_ptx, nvcc_log = _compile_nvcc(_nvcc_path(), source, name, options, arch)
                return nvcc_ptx, nvcc_log, "nvcc"
            return ptx, log, "nvrtc"
        if b == "nvcc":
            nvcc = _nvcc_path()
            if nvcc is None:
                tried.append("nvcc is not on PATH (nor in $CUDA_HOME/bin or /usr/local/cuda/bin)")
                continue
            ptx, log = _compile_nvcc(nvcc, source, name, options, arch)
            return ptx, log, "nvcc"
        raise ValueError(f"unknown compiler {b!r} (use 'nvrtc' or 'nvcc')")
    raise CudaToolchainError("cannot compile CUDA C++: " + "; ".join(tried))


# ----------------------------------------------------------------------------------- diagnostics
_RECORD = re.compile(r"^(?P<file>.*?)\((?P<line>\d+)\): (?P<sev>catastrophic error|error|warning|remark)"
                     r"(?: #[\w-]+(?:-D)?)?: (?P<msg>.*)$")


def _caret_column(src_line: str, shown: str, caret: int) -> int:
    """The 1-based source column under the compiler's caret. The compiler echoes the line indented
    and sometimes with macros expanded (`__global__` shows as `__attribute__((global))`), so the
    text from the caret on is looked up in the source line; failing that, the shown line's indent is
    taken off; failing that, column 1."""
    src = src_line.expandtabs(1)
    tail = shown[caret:].rstrip()
    for n in (len(tail), 40, 20, 10, 5):
        piece = tail[:n]
        if piece and src.count(piece) == 1:
            return src.index(piece) + 1
    stripped, shown = src.rstrip(), shown.rstrip()
    if stripped and shown.endswith(stripped) and caret >= len(shown) - len(stripped):
        return caret - (len(shown) - len(stripped)) + 1
    return 1


def parse_compiler_log(log: str, source: str, name: str) -> list[Diagnostic]:
    """The `file(line): error: message` records of an nvcc/NVRTC log as Diagnostics on `source`.

    nvcc and NVRTC print the offending line (indented) and a caret under it after each record; the
    caret's column is mapped back onto the source line. Records for other files (headers) keep
    their own file name and have no source line.
    """
    src_lines = source.splitlines()
    lines = log.splitlines()
    diags: list[Diagnostic] = []
    base = os.path.basename(name)
    for i, text in enumerate(lines):
        m = _RECORD.match(text)
        if not m:
            continue
        sev = m.group("sev")
        severity = "error" if "error" in sev else ("warning" if sev == "warning" else "note")
        line = int(m.group("line"))
        file = m.group("file")
        ours = file in (name, base) or os.path.basename(file) == base
        src_line = src_lines[line - 1] if ours and 0 < line <= len(src_lines) else None
        col = 1
        if src_line is not None and i + 2 < len(lines):
            shown, caret = lines[i + 1], lines[i + 2]
            if caret.strip() == "^":
                col = _caret_column(src_line, shown, caret.index("^"))
        if src_line is not None and col == 1:  # no caret (e.g. nvcc 13's asm modifier error): a quoted
            quoted = re.findall(r'"([^"]+)"', m.group("msg"))  # piece of the message found once in the line
            hits = [q for q in quoted if src_line.count(q) == 1]
            if hits:
                col = src_line.index(hits[0]) + 1
        diags.append(Diagnostic(Span(name if ours else file, line, col), m.group("msg").strip(), severity,
                                src_line))
    return diags


# ----------------------------------------------------------------------------------- C++ names
def _source_name(sym: str) -> Optional[str]:
    """The C++ name of an Itanium-mangled function symbol, without its signature: `_Z3addPiS_S_` ->
    'add', `_ZN2ns3addEPi` -> 'ns::add', `_Z3addIiEvPT_` -> 'add' (template arguments dropped);
    None for a symbol that is not mangled or not of that simple form (operators, constructors)."""
    if not sym.startswith("_Z"):
        return None
    i = 2
    nested = sym.startswith("_ZN")
    if nested:
        i = 3
        while i < len(sym) and sym[i] in "rVKRO":  # cv / ref qualifiers of member functions
            i += 1
    parts = []
    while i < len(sym) and sym[i].isdigit():
        j = i
        while j < len(sym) and sym[j].isdigit():
            j += 1
        n = int(sym[i:j])
        parts.append(sym[j:j + n])
        i = j + n
        if not nested:
            break
        if sym.startswith("I", i):  # template arguments of a scope: skip a balanced I...E
            depth = 0
            while i < len(sym):
                if sym[i] == "I":
                    depth += 1
                elif sym[i] == "E":
                    depth -= 1
                    if depth == 0:
                        i += 1
                        break
                i += 1
        if i < len(sym) and sym[i] == "E":
            break
    if not parts or any(not p for p in parts):
        return None
    return "::".join(parts)


@functools.lru_cache(maxsize=1)
def _cxxfilt() -> Optional[str]:
    """cu++filt (a CUDA toolkit's, ptxvm.toolchain), else binutils' c++filt: nvcc and NVRTC mangle
    kernel names by the Itanium C++ ABI, which both demangle alike."""
    from .. import toolchain

    return toolchain.find("cu++filt", toolkit_first=True) or shutil.which("c++filt")


def _demangle_all(symbols: Iterable[str]) -> dict[str, str]:
    """Full demangled signatures through cu++filt when it is installed ({} otherwise)."""
    symbols = [s for s in symbols if s.startswith("_Z")]
    tool = _cxxfilt()
    if not symbols or tool is None:
        return {}
    try:
        proc = subprocess.run([tool], input="\n".join(symbols), capture_output=True, text=True, timeout=30)
    except Exception:
        return {}
    out = proc.stdout.splitlines()
    return dict(zip(symbols, out)) if len(out) == len(symbols) else {}


def cxx_name(symbol: str) -> str:
    """The C++ name of a kernel symbol (the symbol itself when it is not mangled)."""
    return _source_name(symbol) or symbol


class CudaModule(Module):
    """A Module compiled from CUDA C++: kernels can also be named as in the C++ source.

    `kernel(name)` tries, in order: the PTX name itself; the full demangled signature (when
    cu++filt or c++filt is installed, e.g. 'void add(int*, int*, int*)', with or without 'void', or a
    template instance's name 'k<float, true>'); the C++ name read from the mangled
    symbol's `_Z<len><name>` / `_ZN...E` prefix ('add', 'ns::add'). A C++ name that matches several
    kernels (overloads, template instances) is an error listing their symbols.
    """

    cuda_source: str = ""
    notes: list = []
    compiler: str = ""
    compile_log: str = ""

    @property
    def cxx_names(self) -> dict[str, str]:
        """{PTX kernel symbol: C++ name} for every kernel."""
        return {k: cxx_name(k) for k in self.kernels}

    def kernel(self, name: str):
        k = self._find_kernel(name)
        return CudaKernel(self, k.name)

    def _find_kernel(self, name: str):
        entries = [f.name for f in self.ast.functions() if f.kind == "entry"]
        if name in entries:
            return super().kernel(name)
        full = _demangle_all(entries)
        want = _spelled(name)
        hits = [k for k, sig in full.items()  # with or without its `void`
                if want in (_spelled(sig), _spelled(sig).removeprefix("void"))]
        if not hits:  # `k<float, true>`: a template instance without its return type and parameters
            hits = [k for k, sig in full.items() if _spelled(_without_signature(sig)) == want]
        if not hits:
            hits = [k for k in entries if _source_name(k) == name]
        if len(hits) == 1:
            return super().kernel(hits[0])
        if len(hits) > 1:
            listed = ", ".join(f"{h} ({full[h]})" if h in full else h for h in hits)
            raise KeyError(f"{name!r} names several kernels in {self.file}: {listed}; "
                           f"pass the PTX symbol{' or the C++ signature' if full else ''}")
        return super().kernel(name)  # the usual KeyError listing the kernels


_POINTEES = {"float": "f4", "double": "f8", "int": "i4", "unsigned int": "u4", "short": "i2",
             "unsigned short": "u2", "char": "i1", "signed char": "i1", "unsigned char": "u1", "long": "i8",
             "unsigned long": "u8", "long long": "i8", "unsigned long long": "u8", "__half": "f2", "half": "f2",
             "__nv_bfloat16": "bf16", "bool": "?", "float2": "f4", "float4": "f4", "double2": "f8",
             "int2": "i4", "int4": "i4", "uint2": "u4", "uint4": "u4", "__half2": "f2", "__nv_bfloat162": "bf16"}
_QUALIFIERS = re.compile(r"\b(const|volatile|__restrict__|__restrict)\b")


def parameter_types(sig: str) -> list[str]:
    """'void k<float>(float*, int const*, int)' -> ['float*', 'int*', 'int']: a demangled kernel's
    parameter types, qualifiers dropped."""
    depth, start = 0, None
    for i in range(len(sig) - 1, -1, -1):  # the parameter list: the last '(...)' group
        if sig[i] == ")":
            depth += 1
            if depth == 1:
                end = i
        elif sig[i] == "(":
            depth -= 1
            if depth == 0:
                start = i
                break
    if start is None:
        return []
    params, depth, cur = [], 0, ""
    for ch in sig[start + 1 : end]:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        if ch == "," and depth == 0:
            params.append(cur)
            cur = ""
        else:
            cur += ch
    params.append(cur)
    out = [" ".join(_QUALIFIERS.sub(" ", p).split()).replace(" *", "*") for p in params]
    return [] if out == [""] or out == ["void"] else out


def pointee_dtype(ctype: str):
    """The NumPy element type a `T*` parameter's T stands for (float2/float4 by their lanes), or
    None (not a pointer to a plain type: structs, pointers to pointers, template classes)."""
    import numpy as np

    if not ctype.endswith("*") or ctype.endswith("**"):
        return None
    code = _POINTEES.get(ctype[:-1].strip())
    if code is None:
        return None
    if code == "bf16":
        return "bf16"
    return np.dtype(code)


def argument_type_warnings(sig: str, args) -> list[str]:
    """What a GPU would silently get wrong: a NumPy array whose elements are not what the C++
    pointer parameter says (a float64 array for `float*`: the kernel reads its bytes as floats)."""
    import numpy as np

    out = []
    for i, (ctype, a) in enumerate(zip(parameter_types(sig), args)):
        want = pointee_dtype(ctype)
        if want is None or not isinstance(a, np.ndarray):
            continue
        if want == "bf16":
            ok = a.dtype.itemsize == 2 and a.dtype.kind in "fuiV" and a.dtype != np.float16
        else:
            kinds = {"f": "f", "i": "iu", "u": "iu", "b": "b"}[want.kind]
            ok = a.dtype.itemsize == want.itemsize and a.dtype.kind in kinds
        if not ok:
            out.append(f"argument {i} of {sig}: a {a.dtype} array for a {ctype} parameter; the kernel reads its "
                       f"bytes as {ctype[:-1].strip()} (pass .astype(...) of the parameter's type)")
    return out


@functools.lru_cache(maxsize=4096)
def _demangled(symbol: str) -> Optional[str]:
    """One symbol's demangled signature, asked of the demangler once (a launch checks it)."""
    return _demangle_all([symbol]).get(symbol)


class CudaKernel(Kernel):
    """A kernel of a CudaModule: a launch warns (ArgumentTypeWarning) when a NumPy array's
    elements are not those its C++ pointer parameter names (when c++filt or cu++filt is there)."""

    def launch(self, grid, block, args=(), *rest, **kw):
        if self.name.startswith("_Z"):
            sig = _demangled(self.name)
            if sig:
                import warnings

                from ..errors import ArgumentTypeWarning

                for message in argument_type_warnings(sig, list(args)):
                    warnings.warn(message, ArgumentTypeWarning, stacklevel=3)
        return super().launch(grid, block, args, *rest, **kw)


_TYPEDEFS = re.compile(r"\b__(half2?|nv_bfloat162?)\b")


def _spelled(name: str) -> str:
    """A C++ name compared without spaces and with CUDA's typedefs as written in sources: `half`
    and `nv_bfloat16` for the demangler's `__half` and `__nv_bfloat16`."""
    return _TYPEDEFS.sub(r"\1", name).replace(" ", "")


def _without_signature(sig: str) -> str:
    """'void k<float, true>(float*, int)' -> 'k<float, true>': a demangled kernel's name with its
    template arguments, without the return type and the parameter list."""
    depth, end = 0, len(sig)
    for i in range(len(sig) - 1, -1, -1):  # the parameter list: the last '(...)' group
        if sig[i] == ")":
            depth += 1
        elif sig[i] == "(":
            depth -= 1
            if depth == 0:
                end = i
                break
    head = sig[:end]
    return head[5:] if head.startswith("void ") else head


_VERSION = re.compile(r"^(\s*\.version\s+)(\d+)\.(\d+)", re.M)


def _cap_version(ptx: str) -> tuple[str, list[str]]:
    """A newer NVRTC than ptxvm knows (NVRTC 13.5 writes `.version 9.5`) gets its `.version`
    lowered to the latest PTX ISA version ptxvm knows, so the module loads; every instruction is
    still verified against that version, so what the newer ISA added is still reported. Returns
    the text and a note for `CudaModule.notes` when it rewrote it."""
    from ..check.targets import LATEST

    m = _VERSION.search(ptx)
    if not m or (int(m.group(2)), int(m.group(3))) <= tuple(LATEST):
        return ptx, []
    old = f"{m.group(2)}.{m.group(3)}"
    new = f"{LATEST[0]}.{LATEST[1]}"
    return (ptx[:m.start(2)] + new + ptx[m.end(3):],
            [f".version {old} from the compiler lowered to {new}, the latest PTX ISA ptxvm knows"])


def compile_cuda_to_ptx(source: str, *, name: Optional[str] = None, options: Sequence[str] = (),
                        arch: str = "sm_90", compiler: Optional[str] = None) -> str:
    """CUDA C++ -> PTX text (NVRTC, else nvcc); CudaCompileError on compile errors."""
    name = name or "<cuda>.cu"
    ptx, log, used = _compile_cached(source, name, tuple(options), arch, compiler)
    if ptx is None:
        diags = parse_compiler_log(log, source, name)
        if not any(d.severity == "error" for d in diags):
            diags.append(Diagnostic(Span(name, 1, 1), f"{used} failed: " + (log.strip() or "no log"), "error"))
        raise CudaCompileError([d for d in diags if d.severity == "error"] or diags, log, used)
    return ptx


def compile_cuda(source: str, *, name: Optional[str] = None, options: Sequence[str] = (), arch: str = "sm_90",
                 compiler: Optional[str] = None) -> CudaModule:
    """Compile CUDA C++ to PTX (NVRTC in-process when cuda-bindings works, else nvcc) and load it.

    `options` go to the compiler as given (e.g. ('-DN=4', '-std=c++17')); `compiler` forces 'nvrtc'
    or 'nvcc'. Raises CudaCompileError (a PtxError; diagnostics on the CUDA lines) when the source
    does not compile, PtxVerifyError when ptxvm rejects the PTX it produced (e.g. an inline asm()
    template that is not valid PTX), CudaToolchainError when there is no compiler.
    """
    from ..check import verify
    from ..frontend import parse

    name = name or "<cuda>.cu"
    ptx = compile_cuda_to_ptx(source, name=name, options=options, arch=arch, compiler=compiler)
    ptx, notes = _cap_version(ptx)
    ptx_name = os.path.splitext(name)[0] + ".ptx"
    tree = parse(ptx, ptx_name)
    errors = [d for d in verify(tree, ptx) if d.severity == "error"]
    if errors:
        raise PtxVerifyError(errors)
    mod = CudaModule(tree, source=ptx)
    mod.cuda_source = source
    mod.notes = notes
    mod.compiler = _compile_cached(source, name, tuple(options), arch, compiler)[2]
    mod.compile_log = _compile_cached(source, name, tuple(options), arch, compiler)[1]
    return mod
