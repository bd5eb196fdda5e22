"""compile_cuda: CUDA C++ with the seed's asm() examples, compiled by NVRTC or nvcc and run on the CPU
engine; the compiler's asm() errors as diagnostics on the CUDA lines.

Each source compiles once per session (compile_cuda caches the PTX per source), so the whole file
costs a handful of compiler runs.
"""
from __future__ import annotations

import numpy as np
import pytest

import ptxvm
from ptxvm.frontdoor import cuda as cuda_frontdoor
from ptxvm.frontdoor.cuda import (CudaCompileError, CudaModule, available_compilers, cxx_name,
                                  parse_compiler_log)

COMPILERS = available_compilers()
needs_compiler = pytest.mark.skipif(not COMPILERS, reason="neither NVRTC (cuda-bindings) nor nvcc is available")

GOOD = r'''
__device__ int cube(int x)
{
    int y;
    asm("{\n\t"                       // use braces for scope
        ".reg .u32 t1;\n\t"           // temp reg t1
        "mul.lo.u32 t1, %1, %1;\n\t"  // t1 = x * x
        "mul.lo.u32 %0, t1, %1;"      // y = t1 * x
        "}"
        : "=r"(y) : "r"(x));
    return y;
}

__device__ int cond(int x)
{
    int y = 0;
    asm("{\n\t"
        ".reg .pred %p;\n\t"
        "setp.eq.s32 %p,%1,34;\n\t"   // x == 34?
        "@%p mov.s32 %0, 1;\n\t"      // set y to 1 if true
        "}"                           // conceptually y = (x == 34) ? 1 : y
        : "+r"(y) : "r"(x));
    return y;
}

__global__ void add(const int *j, const int *k, int *i, int *i2, int *i3, int *two, int *imm)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x, r;
    asm("add.s32 %0, %1, %2;" : "=r"(r) : "r"(j[t]), "r"(k[t]));  i[t] = r;
    asm("add.s32 %0, %2, %1;" : "=r"(r) : "r"(k[t]), "r"(j[t]));  i2[t] = r;
    asm("add.s32 %0,%1,%1;" : "=r"(r) : "r"(k[t]));               i3[t] = r;
    asm("mov.s32 %0, 2;" : "=r"(r));                              two[t] = r;
    asm("add.s32 %0, %1, %2;" : "=r"(r) : "r"(j[t]), "n"(100));   imm[t] = r;
}

__global__ void accumulate(int *i, const int *j)
{
    int t = threadIdx.x, v = i[t];
    asm("add.s32 %0, %0, %1;" : "+r"(v) : "r"(j[t]));
    i[t] = v;
}

__global__ void cubes(const int *x, int *y)       // cube() inlined twice: the braces keep t1 apart
{
    int t = threadIdx.x;
    y[t] = cube(x[t]) + cube(x[t] + 1);
}

__global__ void conds(const int *x, int *y)
{
    int t = threadIdx.x;
    y[t] = cond(x[t]);
}

__global__ void to_float(const long long *y, float *x)
{
    int t = threadIdx.x;
    float f;
    asm("cvt.rn.f32.s64 %0,%1;" : "=f"(f) : "l"(y[t]));
    x[t] = f;
}

__global__ void clocks(unsigned *out)
{
    unsigned a, b;
    asm volatile("mov.u32 %0, %%clock;" : "=r"(a));
    asm volatile("mov.u32 %0, %%clock;" : "=r"(b) :: "memory");
    out[2 * threadIdx.x] = a;
    out[2 * threadIdx.x + 1] = b;
}

__global__ void store(unsigned *p, unsigned x)
{
    asm("membar.gl;");
    asm("st.u32 [%0], %1;" :: "l"(p + threadIdx.x), "r"(x + threadIdx.x) : "memory");
}

namespace ns {
__global__ void scale(float *x, float a) { x[threadIdx.x] *= a; }
}
__global__ void twice(int *x) { x[threadIdx.x] *= 2; }
__global__ void twice(float *x) { x[threadIdx.x] *= 2.0f; }
extern "C" __global__ void plain(int *x) { x[threadIdx.x] += 1; }
'''

# The seed's "error checking" examples (and the pointer passed for "r" of its memory-clobber example,
# which is 64 bits wide under a 64-bit ABI).
FRONT_END_ERRORS = r'''__global__ void errors(int *out)
{
    int i, j = 1, k = 2; char ci = 0; float fi = 0; int4 i4 = make_int4(0, 0, 0, 0);
    asm("add.s32 %0,%1,%2;" : "=r"(i) : "rf"(j), "r"(k));
    asm("add.s32 %0,%1,%2;" : "=r"(i4) : "r"(j), "r"(k));
    asm("add.s32 %0,%1,%2;" : "=r"(ci) : "r"(j), "r"(k));
    asm("add.s32 %0,%1,%2;" : "=r"(fi) : "r"(j), "r"(k));
    asm("st.u32 [%0], %1;" :: "r"(out), "r"(j) : "memory");
    out[0] = i + ci + fi + i4.x;
}
'''

# Errors the C++ front end lets through to ptxas; ptxvm's verifier reports them on the PTX.
PTX_ERRORS = r'''__device__ int cube_unscoped(int x)
{
    int y;
    asm(".reg .u32 t1;\n\t"
        "mul.lo.u32 t1, %1, %1;\n\t"
        "mul.lo.u32 %0, t1, %1;"
        : "=r"(y) : "r"(x));
    return y;
}
__global__ void inlined_twice(int *x) { x[0] = cube_unscoped(x[0]) + cube_unscoped(x[1]); }
__global__ void no_rounding(float *out, long long y) { float x; asm("cvt.f32.s64 %0,%1;" : "=f"(x) : "l"(y)); *out = x; }
'''


@pytest.fixture(scope="module")
def good():
    return ptxvm.compile_cuda(GOOD, name="good.cu")


@needs_compiler
def test_add_reordered_repeated_and_immediate(good):
    n = 64
    j = np.arange(n, dtype=np.int32) * 7 - 100
    k = np.arange(n, dtype=np.int32)[::-1].copy()
    outs = [np.zeros(n, np.int32) for _ in range(5)]
    good.kernel("add").launch(2, 32, [j, k, *outs])
    i, i2, i3, two, imm = outs
    np.testing.assert_array_equal(i, j + k)
    np.testing.assert_array_equal(i2, j + k)
    np.testing.assert_array_equal(i3, k + k)
    np.testing.assert_array_equal(two, 2)
    np.testing.assert_array_equal(imm, j + 100)


@needs_compiler
def test_read_write_operand(good):
    i = np.arange(32, dtype=np.int32)
    j = np.full(32, 5, np.int32)
    good["accumulate"].launch(1, 32, [i, j])
    np.testing.assert_array_equal(i, np.arange(32) + 5)


@needs_compiler
def test_scoped_registers_inlined_twice(good):
    x = np.arange(-16, 16, dtype=np.int32)
    y = np.zeros(32, np.int32)
    good["cubes"].launch(1, 32, [x, y])
    np.testing.assert_array_equal(y, x ** 3 + (x + 1) ** 3)
    assert good.source.count(".reg .u32 t1;") >= 2  # both copies are in the PTX, each in its own { }


@needs_compiler
def test_predicated_cond(good):
    x = np.array([34, 0, 33, 34, -34, 35] * 4 + [34] * 8, np.int32)
    y = np.full(32, -1, np.int32)
    good["conds"].launch(1, 32, [x, y])
    np.testing.assert_array_equal(y, (x == 34).astype(np.int32))


@needs_compiler
def test_cvt_from_s64(good):
    y = np.array([0, 1, -1, 2 ** 40 + 1, -(2 ** 62) + 3, 2 ** 24 + 1, 123456789, -7] * 4, np.int64)
    x = np.zeros(32, np.float32)
    good["to_float"].launch(1, 32, [y, x])
    np.testing.assert_array_equal(x, y.astype(np.float32))  # NumPy's int64 -> float32 rounds to nearest even


@needs_compiler
def test_clock_with_percent_escape_and_memory_clobber(good):
    out = np.zeros(64, np.uint32)
    good["clocks"].launch(1, 32, [out])
    a, b = out[0::2], out[1::2]
    assert (b - a).astype(np.int64).min() >= 0  # %clock does not run backwards within a thread


@needs_compiler
def test_store_with_memory_clobber(good):
    p = np.zeros(32, np.uint32)
    good["store"].launch(1, 32, [p, np.uint32(1000)])
    np.testing.assert_array_equal(p, 1000 + np.arange(32))


@needs_compiler
def test_kernels_by_cxx_name(good):
    assert isinstance(good, CudaModule)
    names = good.cxx_names
    assert names["plain"] == "plain"
    assert "_Z3addPKiS0_PiS1_S1_S1_S1_" in names and names["_Z3addPKiS0_PiS1_S1_S1_S1_"] == "add"
    assert good.kernel("add").name.startswith("_Z3add")
    assert good.kernel("ns::scale").name.startswith("_ZN2ns5scale")
    x = np.ones(4, np.float32)
    good["ns::scale"].launch(1, 4, [x, np.float32(3)])
    np.testing.assert_array_equal(x, 3)
    with pytest.raises(KeyError, match="several kernels"):
        good.kernel("twice")  # overloaded: ask by symbol
    good.kernel("_Z5twicePi")
    with pytest.raises(KeyError, match="no kernel named"):
        good.kernel("nope")


@needs_compiler
@pytest.mark.skipif(cuda_frontdoor._cxxfilt() is None, reason="neither cu++filt nor c++filt is installed")
def test_template_instances_by_signature():
    """Template instances share a C++ name; their full signatures (demangled by cu++filt, or by
    binutils' c++filt where the CUDA toolkit has none) pick one, and the ambiguity lists them."""
    m = ptxvm.compile_cuda("template <int B> __global__ void k(int *p) { p[threadIdx.x] = B; }\n"
                           "template __global__ void k<16>(int *); template __global__ void k<32>(int *);",
                           name="tpl.cu")
    out = np.zeros(2, np.int32)
    m.kernel("void k<32>(int*)")[1, 2](out)
    assert out.tolist() == [32, 32]
    for name in ("k<16>", "k<16>(int*)", "k< 16 >"):  # without the return type, the parameters, spaces
        m.kernel(name)[1, 2](out)
        assert out.tolist() == [16, 16]
    with pytest.raises(KeyError, match=r"several kernels.*\(void k<16>\(int\*\)\).*or the C\+\+ signature"):
        m.kernel("k")


@needs_compiler
@pytest.mark.skipif(cuda_frontdoor._cxxfilt() is None, reason="neither cu++filt nor c++filt is installed")
def test_an_array_of_other_elements_than_the_pointer_says_warns():
    """A float64 array for a `float*` (llm.c's kernels met it): a GPU reads its bytes as floats and
    says nothing; ptxvm does the same and warns, naming the argument and the C++ parameter."""
    import warnings

    m = ptxvm.compile_cuda("__global__ void scale(float *x, const int *n, float f) {"
                           " if (threadIdx.x < *n) x[threadIdx.x] *= f; }", name="warn.cu")
    n = np.array([4], np.int32)
    with pytest.warns(ptxvm.ArgumentTypeWarning, match=r"argument 0 of scale\(float\*, int const\*, "
                      r"float\): a float64 array for a float\* parameter"):
        m["scale"][1, 4](np.ones(4), n, np.float32(2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = np.ones(4, np.float32)
        m["scale"][1, 4](x, n.astype(np.uint32), np.float32(2))  # an unsigned array for int*: same bytes
        assert x.tolist() == [2, 2, 2, 2]


@needs_compiler
@pytest.mark.skipif(cuda_frontdoor._cxxfilt() is None, reason="neither cu++filt nor c++filt is installed")
def test_template_instances_by_their_source_spelling_of_half():
    """The demangler writes `__half`; a source writes `half` (cuda_fp16.h's typedef): both name it."""
    m = ptxvm.compile_cuda("#include <cuda_fp16.h>\ntemplate <typename T, int B> __global__ void k(int *p) "
                           "{ p[threadIdx.x] = B + sizeof(T); }\n"
                           "template __global__ void k<half, 4>(int *); template __global__ void k<float, 4>(int *);",
                           name="half_tpl.cu")
    out = np.zeros(2, np.int32)
    for name in ("k<half, 4>", "k<__half, 4>", "void k<half, 4>(int*)"):
        m.kernel(name)[1, 2](out)
        assert out.tolist() == [6, 6]


def test_parameter_types_of_demangled_signatures():
    assert cuda_frontdoor.parameter_types("void k<float, 2>(float* __restrict__, Foo<int, 2>, int const*)") == [
        "float*", "Foo<int, 2>", "int*"]
    assert cuda_frontdoor.parameter_types("void k()") == []
    assert cuda_frontdoor.pointee_dtype("unsigned long long*") == np.dtype(np.uint64)
    assert cuda_frontdoor.pointee_dtype("float**") is None and cuda_frontdoor.pointee_dtype("MyStruct*") is None


def test_cxx_name_parser():
    assert cxx_name("_Z3addPiS_S_") == "add"
    assert cxx_name("_ZN2ns5scaleEPff") == "ns::scale"
    assert cxx_name("_ZN5outer5inner1kEv") == "outer::inner::k"
    assert cxx_name("_Z6kernelIfEvPT_") == "kernel"
    assert cxx_name("_ZN2ns4kernIiEEvPT_") == "ns::kern"
    assert cxx_name("plain") == "plain"


@needs_compiler
def test_seed_error_checks_point_at_cuda_lines():
    with pytest.raises(CudaCompileError) as info:
        ptxvm.compile_cuda(FRONT_END_ERRORS, name="errors.cu")
    e = info.value
    assert isinstance(e, ptxvm.PtxError)
    got = [(d.span.file, d.span.line, d.message) for d in e.diagnostics]
    assert got == [
        ("errors.cu", 4, "an asm operand may specify only one constraint letter in a __device__/__global__ function"),
        ("errors.cu", 5, "an asm operand must have scalar type"),
        ("errors.cu", 6, "asm operand type size(1) does not match type/size implied by constraint 'r'"),
        ("errors.cu", 7, "asm operand type size(4) does not match type/size implied by constraint 'r'"),
        ("errors.cu", 8, "asm operand type size(8) does not match type/size implied by constraint 'r'"),
    ]
    lines = FRONT_END_ERRORS.splitlines()
    for d in e.diagnostics:
        assert d.source_line == lines[d.span.line - 1]
        assert d.source_line[d.span.col - 1] == '"'  # the caret sits on the offending constraint
    first = e.diagnostics[0]
    assert lines[3][first.span.col - 1:].startswith('"rf"(j)')
    text = str(e)
    assert "errors.cu:4:" in text and "^" in text


@needs_compiler
def test_ptx_level_errors_reach_the_verifier():
    with pytest.raises(ptxvm.PtxVerifyError) as info:
        ptxvm.compile_cuda(PTX_ERRORS, name="ptx_errors.cu")
    messages = [d.message for d in info.value.diagnostics]
    assert any("duplicate definition of 't1'" in m for m in messages), messages  # the unscoped cube, inlined twice
    assert any("rounding modifier" in m for m in messages), messages  # ptxas too: "Rounding modifier required"


@needs_compiler
def test_unsupported_operand_modifier():
    # The seed (older nvcc) says "%n1" passes through to ptxas; CUDA 13's front end refuses it. Either
    # way it is an error: ptxvm's verifier would say "'%n1' is not declared" (see test_inline_asm).
    src = ('__global__ void n_modifier(int *out)\n'
           '{ int n; asm("mov.u32 %0,%n1;" : "=r"(n) : "r"(1)); out[0] = n; }\n')
    with pytest.raises(ptxvm.PtxError) as info:
        ptxvm.compile_cuda(src, name="modifier.cu")
    d = info.value.diagnostics[0]
    if isinstance(info.value, CudaCompileError):
        assert (d.span.line, d.span.col) == (2, src.splitlines()[1].index("%n") + 1)
        assert d.message.startswith('Asm operand modifier not supported at "%n"')
    else:  # a compiler that passes it through
        assert "'%n1' is not declared" in d.message


@needs_compiler
def test_cpp_syntax_error():
    with pytest.raises(CudaCompileError) as info:
        ptxvm.compile_cuda("__global__ void k(int *x)\n{\n    x[0] = y;\n}\n", name="syntax.cu")
    (d,) = info.value.diagnostics
    assert (d.span.file, d.span.line, d.span.col) == ("syntax.cu", 3, 12)
    assert "identifier \"y\" is undefined" in d.message


@needs_compiler
@pytest.mark.parametrize("compiler", ["nvrtc", "nvcc"])
def test_each_backend(compiler):
    if compiler not in COMPILERS:
        pytest.skip(f"{compiler} is not available here")
    mod = ptxvm.compile_cuda('extern "C" __global__ void k(int *x) { int v; asm("add.s32 %0, %1, 1;" : "=r"(v) '
                             ': "r"(x[threadIdx.x])); x[threadIdx.x] = v; }', compiler=compiler)
    assert mod.compiler == compiler
    x = np.arange(8, dtype=np.int32)
    mod["k"].launch(1, 8, [x])
    np.testing.assert_array_equal(x, np.arange(1, 9))


def test_log_parsing_without_a_compiler():
    source = "__global__ void k(int *out)\n{\n\tchar ci; asm(\"mov.u32 %0, 1;\" : \"=r\"(ci));\n}\n"
    log = ('k.cu(3): error: asm operand type size(1) does not match type/size implied by constraint \'r\'\n'
           '   char ci; asm("mov.u32 %0, 1;" : "=r"(ci));\n'
           '                                   ^\n\n'
           'k.cu(9): warning #177-D: variable "z" was declared but never referenced\n\n'
           '1 error detected in the compilation of "k.cu".\n')
    diags = parse_compiler_log(log, source, "k.cu")
    assert [(d.severity, d.span.line) for d in diags] == [("error", 3), ("warning", 9)]
    assert diags[0].span.col == source.splitlines()[2].expandtabs(1).index('"=r"') + 1
    assert diags[1].message == 'variable "z" was declared but never referenced'


def test_no_toolchain_is_a_clear_error(monkeypatch):
    from ptxvm.frontdoor import cuda

    monkeypatch.setattr(cuda, "_nvrtc", lambda: None)
    monkeypatch.setattr(cuda, "_nvcc_path", lambda: None)
    assert cuda.available_compilers() == []
    with pytest.raises(cuda.CudaToolchainError, match="nvcc is not on PATH"):
        ptxvm.compile_cuda("__global__ void k() {}  // no toolchain\n")


LIBCUXX = r'''
#include <cuda/atomic>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void count(unsigned long long *c, const int *x, int *sum)
{
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> a(*c);
    a.fetch_add(1, cuda::memory_order_relaxed);
    auto warp = cg::tiled_partition<32>(cg::this_thread_block());
    int s = cg::reduce(warp, x[blockIdx.x * blockDim.x + threadIdx.x], cg::plus<int>());
    if (warp.thread_rank() == 0)
        atomicAdd(sum, s);
}
'''


def _cccl_found() -> bool:
    import os

    from ptxvm.frontdoor.cuda import _cuda_include_dirs

    return any(os.path.isfile(os.path.join(d, "cuda", "atomic")) for d in _cuda_include_dirs())


@pytest.mark.skipif("nvrtc" not in COMPILERS, reason="NVRTC (cuda-bindings) is not available")
def test_nvrtc_finds_libcuxx_and_cooperative_groups_headers():
    """NVRTC carries no CCCL headers: compile_cuda hands it the CUDA include directories it finds
    (CUDA 13 keeps libcu++ in include/cccl), as nvcc finds them itself."""
    if not _cccl_found():
        pytest.skip("no CCCL headers (cuda/atomic) under $CUDA_HOME, /usr/local/cuda or the nvidia wheels "
                    "(pip install nvidia-cuda-cccl)")
    mod = ptxvm.compile_cuda(LIBCUXX, name="libcuxx.cu", compiler="nvrtc")
    x = np.arange(256, dtype=np.int32) - 100
    c, total = np.zeros(1, np.uint64), np.zeros(1, np.int32)
    mod["count"].launch(2, 128, [c, x, total])
    assert int(c[0]) == 256 and int(total[0]) == int(x.sum())


def test_cuda_include_dirs_take_only_cuda_headers(tmp_path, monkeypatch):
    """$CUDA_HOME's include and include/cccl directories come first, and only directories that hold
    CUDA headers are passed on (not a system include directory)."""
    from ptxvm.frontdoor import cuda as C

    home = tmp_path / "cuda"
    (home / "include" / "cccl" / "cuda").mkdir(parents=True)
    (home / "include" / "cuda_runtime.h").write_text("")
    monkeypatch.setenv("CUDA_HOME", str(home))
    monkeypatch.delenv("CUDA_PATH", raising=False)
    monkeypatch.setattr(C, "_nvcc_path", lambda: "/usr/bin/nvcc")  # its ../include is /usr/include
    C._cuda_include_dirs.cache_clear()
    try:
        dirs = C._cuda_include_dirs()
    finally:
        C._cuda_include_dirs.cache_clear()
    assert dirs[:2] == (str((home / "include" / "cccl").resolve()), str((home / "include").resolve()))
    assert "/usr/include" not in dirs


HOST_HEADERS = r'''
#include <cstdio>
#include <cassert>
extern "C" __global__ void hello(int *out) {
    assert(threadIdx.x < 64);
    if (threadIdx.x == 0) printf("hello %d\n", 7);
    out[threadIdx.x] = threadIdx.x * 2;
}
'''


@pytest.mark.skipif("nvcc" not in COMPILERS, reason="nvcc is not available (NVRTC alone has no host C++ headers)")
def test_host_headers_compile_through_nvcc_when_nvrtc_lacks_them(capfd):
    """<cstdio>/<cassert> are host headers NVRTC does not carry: compile_cuda's automatic choice
    falls back to nvcc when NVRTC cannot find an #include (most CUDA sources start so)."""
    mod = ptxvm.compile_cuda(HOST_HEADERS, name="host_headers.cu")
    out = np.zeros(32, np.int32)
    mod["hello"].launch(1, 32, [out])
    assert np.array_equal(out, np.arange(32) * 2)
    assert "hello 7" in capfd.readouterr().out
    if "nvrtc" in COMPILERS:
        assert mod.compiler == "nvcc"
        with pytest.raises(CudaCompileError, match="cstdio"):
            ptxvm.compile_cuda(HOST_HEADERS, name="host_headers.cu", compiler="nvrtc")  # asked for: its error


@pytest.mark.skipif(not {"nvrtc", "nvcc"} <= set(COMPILERS), reason="needs both NVRTC and nvcc")
def test_when_the_nvcc_fallback_fails_too_its_errors_are_shown():
    """A source with a host header goes to nvcc after NVRTC; if nvcc rejects it as well, the
    diagnostics are nvcc's (the real mistake), not NVRTC's missing header."""
    with pytest.raises(CudaCompileError) as err:
        ptxvm.compile_cuda("#include <cstdio>\n__global__ void k(int *p) { p[0] = undefined_name; }\n",
                           name="typo.cu")
    assert 'identifier "undefined_name" is undefined' in str(err.value)
    assert "cstdio" not in str(err.value)


@pytest.mark.skipif(not {"nvrtc", "nvcc"} <= set(COMPILERS), reason="needs both NVRTC and nvcc")
def test_what_only_nvcc_defines_compiles_through_nvcc():
    """nvcc's implicit cuda_runtime.h brings math.h's INFINITY; NVRTC has no such name, so the
    source goes to nvcc (llm.c's softmax kernels use INFINITY with only <stdio.h>... included)."""
    m = ptxvm.compile_cuda("__global__ void k(float *p) { p[0] = -INFINITY; }\n", name="inf.cu")
    assert m.compiler == "nvcc"
    out = np.zeros(1, np.float32)
    m.kernel("k")[1, 1](out)
    assert out[0] == -np.inf
