"""Relocatable code (nvcc -rdc=true) and linking: ptxvm.link / load([...]) / loads([...]).

The corpus modules tests/corpus/cuda/link_{lib,main,weak}.cu (PTX in tests/corpus/ptx) are real
nvcc 13.0 output; the rules (strong beats weak, first weak wins, private names stay private,
duplicates and mismatches are errors) are nvlink 13.0's, checked with nvlink and cuobjdump.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import ptxvm
from ptxvm.cli import main
from ptxvm.linker import PtxLinkError

PTX = Path(__file__).resolve().parents[1] / "corpus" / "ptx"
LIB, MAIN, WEAK = (str(PTX / f"link_{n}.sm_90-rdc.ptx") for n in ("lib", "main", "weak"))
HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"


def test_kernel_calls_into_another_module():
    prog = ptxvm.load([MAIN, LIB, WEAK])
    n = 100
    a = np.arange(n, dtype=np.int32) - 20
    b = (np.arange(n, dtype=np.int32) * 5 - 7).astype(np.int32)
    out, f = np.zeros(n, np.int32), np.zeros(n, np.float32)
    prog["k_link"].launch(grid=2, block=64, args=[a, b, out, f, np.int32(n)])
    table = np.array([3, 1, 4, 1, 5, 9, 2, 6])
    i = np.arange(n)
    scale_add = (a * 3 + 1) * 2 + 2 * b  # link_lib.cu's helper, its own, not link_main.cu's
    assert np.array_equal(out, scale_add + (a - 7) + 2 * b + table[i & 7])
    coeffs = np.array([1, 2, 3, 4], np.float32)
    assert np.array_equal(f, a.astype(np.float32) * coeffs[i & 3] + np.float32(0.5))
    assert prog.read_symbol("g_counter", np.int32)[0] == n  # one variable for both modules


def test_module_defining_a_function_runs_its_own_kernel():
    prog = ptxvm.link(ptxvm.load(LIB), ptxvm.load(MAIN))
    out = np.zeros(16, np.int32)
    prog["lib_fill"].launch(1, 16, [out, np.int32(16)])
    i = np.arange(16)
    assert np.array_equal(out, (i * 3 + 1) * 2 + 2 * np.array([3, 1, 4, 1, 5, 9, 2, 6])[i & 7])


@pytest.mark.parametrize("order, pick", [((MAIN, LIB, WEAK), 1000), ((MAIN, WEAK, LIB), 2000),
                                         ((WEAK, MAIN, LIB), 2000)])
def test_strong_beats_weak_and_first_weak_wins(order, pick):
    prog = ptxvm.loads([open(p).read() for p in order], [str(p) for p in order])
    out = np.zeros(8, np.int32)
    prog["k_weak"].launch(1, 8, [out, np.int32(8)])
    i = np.arange(8)
    assert np.array_equal(out, (i + 200) * 10000 + i + pick)  # tweak: the strong one, wherever it is


def test_rdc_module_alone_loads_and_runs_what_it_can():
    mod = ptxvm.load(MAIN)  # extern functions and variables nobody defines
    out = np.zeros(8, np.int32)
    mod["k_maybe_missing"].launch(1, 8, [out, np.int32(0)])
    assert np.array_equal(out, np.arange(1, 9))
    mod["k_dynamic_parallelism"].launch(1, 8, [out, np.int32(0)])
    assert (out == -1).all()


def test_reaching_an_unresolved_function_faults_naming_it():
    mod = ptxvm.load(MAIN)
    out = np.full(8, 7, np.int32)
    with pytest.raises(ptxvm.KernelFault, match="_Z10missing_fni', an .extern function that no module") as e:
        mod["k_maybe_missing"].launch(1, 8, [out, np.int32(1)])
    assert e.value.kernel == "k_maybe_missing" and e.value.line is not None
    assert (out == 7).all()  # the caller's array is untouched
    with pytest.raises(ptxvm.KernelFault, match="dynamic parallelism.* is not supported"):
        mod["k_dynamic_parallelism"].launch(1, 4, [out, np.int32(1)])
    with pytest.raises(ptxvm.KernelFault, match="_Z9scale_addii"):
        mod["k_link"].launch(1, 4, [out, out, out, np.zeros(4, np.float32), np.int32(4)])


def test_link_warns_about_unresolved_names():
    prog = ptxvm.load([MAIN, LIB])
    text = "\n".join(d.format() for d in prog.link_warnings)
    assert "_Z10missing_fni" in text and "__cudaCDP2LaunchDeviceV2" in text and "dynamic parallelism" in text
    assert "_Z9scale_addii" not in text and "g_bias" not in text
    assert all(d.severity == "warning" for d in prog.link_warnings)


def test_unresolved_extern_variable_gets_zeroed_storage():
    """ptxas in whole-program mode: 'Unresolved extern variable ..., ignoring extern qualifier'."""
    mod = ptxvm.loads(HEAD + """
.extern .global .align 4 .u32 ext;
.extern .const .align 4 .b8 table[4];
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<4>; .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  ld.global.u32 %r1, [ext];
  add.u32 %r1, %r1, 5;
  st.global.u32 [ext], %r1;
  ld.const.u32 %r2, [table];
  add.u32 %r1, %r1, %r2;
  st.global.u32 [%rd1], %r1;
  ret;
}""")
    out = np.zeros(1, np.uint32)
    mod["k"].launch(1, 1, [out])
    assert out[0] == 5 and mod.read_symbol("ext", np.uint32)[0] == 5


def test_unresolved_unsized_array_faults_when_used():
    """ptxas (whole program): 'Unresolved extern variable' is fatal for an unsized array."""
    mod = ptxvm.loads(HEAD + """
.extern .global .align 4 .b8 arr[];
.visible .entry k(.param .u64 out, .param .u32 use) {
  .reg .b32 %r<4>; .reg .b64 %rd<2>; .reg .pred %p;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r2, [use];
  mov.u32 %r1, 9;
  setp.eq.u32 %p, %r2, 0;
  @%p bra DONE;
  ld.global.u32 %r1, [arr+8];
DONE:
  st.global.u32 [%rd1], %r1;
  ret;
}""")
    out = np.zeros(1, np.uint32)
    mod["k"].launch(1, 1, [out, np.uint32(0)])
    assert out[0] == 9
    with pytest.raises(ptxvm.KernelFault, match="'arr' is an unsized .extern array that no module"):
        mod["k"].launch(1, 1, [out, np.uint32(1)])


def _two(a: str, b: str):
    return [HEAD + a, HEAD + b], ["a.ptx", "b.ptx"]


def test_private_names_stay_private():
    a = """.func (.param .b32 r) s(.param .b32 x) { .reg .b32 %v; ld.param.b32 %v, [x]; add.s32 %v, %v, 1; st.param.b32 [r], %v; ret; }
.global .align 4 .u32 state = 10;
.visible .entry ka(.param .u64 o) { .reg .b32 %r<3>; .reg .b64 %rd<2>; ld.param.u64 %rd1, [o];
  ld.global.u32 %r1, [state];
  { .param .b32 p; .param .b32 q; st.param.b32 [p], %r1; call (q), s, (p); ld.param.b32 %r2, [q]; }
  st.global.u32 [%rd1], %r2; ret; }"""
    b = a.replace("add.s32 %v, %v, 1", "mul.lo.s32 %v, %v, 3").replace("state = 10", "state = 20").replace("ka", "kb")
    prog = ptxvm.loads(*_two(a, b))
    out = np.zeros(1, np.int32)
    prog["ka"].launch(1, 1, [out])
    assert out[0] == 11
    prog["kb"].launch(1, 1, [out])
    assert out[0] == 60


def _link_error(a: str, b: str) -> str:
    with pytest.raises(PtxLinkError) as e:
        ptxvm.loads(*_two(a, b))
    return str(e.value)


def test_duplicate_strong_definitions_name_both_places():
    text = _link_error(".visible .global .align 4 .u32 gv = 1;", "\n.visible .global .align 4 .u32 gv = 2;")
    assert "b.ptx:5:32: error: multiple definition of 'gv', first defined at a.ptx:4" in text
    assert "a.ptx:4:32: note: 'gv' first defined here" in text
    text = _link_error(".visible .entry k() { ret; }", ".visible .entry k() { ret; }")
    assert "multiple definition of 'k'" in text


def test_mismatched_declarations_are_reported():
    f = ".visible .func (.param .b32 r) g(.param .b32 x) { st.param.b32 [r], 1; ret; }\n.visible .global .align 4 .u32 v;"
    assert "the prototype of 'g' does not match its definition at a.ptx:4" in _link_error(
        f, ".extern .func (.param .b64 r) g(.param .b32 x);")
    assert "'v' is 8 bytes here and 4 bytes in its definition at a.ptx:5" in _link_error(
        f, ".extern .global .align 8 .u64 v;")
    assert "'v' is a .const variable here and a .global one" in _link_error(f, ".extern .const .align 4 .u32 v;")
    assert "'g' is a variable here but a function in a.ptx:4" in _link_error(f, ".extern .global .align 4 .u32 g;")
    weak = ".weak .global .align 4 .u32 w = 1;"
    assert "'w' is 8 bytes here and 4 bytes" in _link_error(weak, ".weak .global .align 8 .u64 w = 2;")


def test_address_sizes_must_agree():
    with pytest.raises(PtxLinkError, match="cannot link a 32-bit module"):
        ptxvm.loads([HEAD.replace("sm_90", "sm_80"), HEAD.replace("sm_90", "sm_80").replace("64", "32")],
                    ["a.ptx", "b.ptx"])


def test_link_takes_a_list_and_only_modules():
    a, b = (ptxvm.loads(t, n) for t, n in zip(*_two(".visible .entry ka() { ret; }", ".visible .entry kb() { ret; }")))
    assert ptxvm.link([a, b]).kernels == ["ka", "kb"]
    with pytest.raises(TypeError, match="takes ptxvm modules"):
        ptxvm.link(a, "b.ptx")


def test_common_variables_take_the_largest():
    prog = ptxvm.loads(*_two(".common .global .align 4 .u32 c;", ".common .global .align 8 .b8 c[64];"))
    assert prog.program.globals["c"].size == 64


def test_initializer_of_unresolved_function_is_an_error():
    text = _link_error(".extern .func f();\n.visible .global .align 8 .u64 p = f;", "")
    assert "takes the address of 'f'" in text


@pytest.mark.parametrize("init", ["arr", "generic(arr)"])
def test_initializer_of_unresolved_array_in_one_module_is_an_error(init):
    """Was a KeyError traceback at the first launch."""
    with pytest.raises(PtxLinkError, match="takes the address of 'arr'"):
        ptxvm.loads(HEAD + f".extern .global .align 1 .b8 arr[];\n.visible .global .align 8 .u64 p = {init};")


def test_non_extern_declaration_without_definition_is_still_refused():
    """ptxas -c: 'Unresolved extern function' for a .func/.visible/.weak prototype never defined."""
    src = HEAD + ".visible .func f();\n.visible .entry k() { call f, (); ret; }"
    with pytest.raises(ptxvm.PtxVerifyError, match="only an .extern declaration may be defined by another module"):
        ptxvm.loads(src)


def test_errors_of_every_module_are_reported_together():
    with pytest.raises(ptxvm.PtxVerifyError) as e:
        ptxvm.loads(*_two(".visible .entry k() { bogus.u32 %r1; ret; }", ".visible .entry j() { mov.u32 %q, 1; ret; }"))
    files = {d.span.file for d in e.value.diagnostics}
    assert files == {"a.ptx", "b.ptx"}


def test_cli_check_links_files(tmp_path):
    a, b = tmp_path / "a.ptx", tmp_path / "b.ptx"
    a.write_text(HEAD + ".visible .func f() { ret; }\n")
    b.write_text(HEAD + ".visible .func f() { ret; }\n")
    r = CliRunner().invoke(main, ["check", str(a), str(b)])
    assert r.exit_code == 1 and "multiple definition of 'f'" in r.output and "Traceback" not in r.output
    r = CliRunner().invoke(main, ["check", "--separate", str(a), str(b)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(main, ["check", MAIN, LIB, WEAK])
    assert r.exit_code == 0 and "_Z10missing_fni" in r.output and "warning" in r.output


def test_cli_run_links_files(tmp_path):
    np.save(tmp_path / "o.npy", np.zeros(8, np.int32))
    r = CliRunner().invoke(main, ["run", MAIN, LIB, WEAK, "-k", "k_weak", "-b", "8", "--arg", f"inout:{tmp_path / 'o.npy'}",
                                  "--arg", "s32:8", "--json"])
    assert r.exit_code == 0, r.output
    i = np.arange(8)
    assert np.array_equal(np.load(tmp_path / "o.npy"), (i + 200) * 10000 + i + 1000)


# ------------------------------------------------------------------ against NVIDIA's tools
def _tool(name):
    from ptxvm import toolchain

    return toolchain.find(name, toolkit_first=True)  # ptxas and nvlink of one release


def _ptxas_c(path, out):
    import subprocess

    return subprocess.run([_tool("ptxas"), "-arch=sm_90", "-c", str(path), "-o", str(out)], capture_output=True, text=True)


@pytest.mark.skipif(_tool("ptxas") is None, reason="ptxas is not installed")
def test_linked_program_prints_as_one_module(tmp_path):
    """to_ptx() of a linked program is one module: ptxvm verifies it, ptxas -c compiles it, and it
    computes what the linked program does."""
    prog = ptxvm.load([MAIN, LIB, WEAK])
    text = prog.to_ptx()
    (tmp_path / "linked.ptx").write_text(text)
    r = _ptxas_c(tmp_path / "linked.ptx", tmp_path / "linked.o")
    assert r.returncode == 0, r.stderr
    again = ptxvm.loads(text)
    out = np.zeros(8, np.int32)
    again["k_weak"].launch(1, 8, [out, np.int32(8)])
    assert np.array_equal(out, (np.arange(8) + 200) * 10000 + np.arange(8) + 1000)


NVLINK_CASES = {  # (module a, module b): what nvlink 13.0 says (None: it links them)
    "duplicate variable": (".visible .global .align 4 .u32 gv = 1;", ".visible .global .align 4 .u32 gv = 2;",
                           "Multiple definition of 'gv'", "multiple definition of 'gv'"),
    "duplicate kernel": (".visible .entry k() { ret; }", ".visible .entry k() { ret; }",
                         "Multiple definition of 'k'", "multiple definition of 'k'"),
    "prototype": (".visible .func (.param .b32 r) g(.param .b32 x) { st.param.b32 [r], 1; ret; }",
                  ".extern .func (.param .b64 r) g(.param .b32 x);\n"
                  ".visible .entry k() { { .param .b32 p; .param .b64 q; st.param.b32 [p], 0; call (q), g, (p); } ret; }",
                  "Prototype doesn't match for 'g'", "the prototype of 'g' does not match"),
    "size": (".visible .global .align 4 .u32 v;", ".extern .global .align 8 .u64 v;\n"
             ".visible .entry k() { .reg .b64 %rd1; ld.global.u64 %rd1, [v]; ret; }",
             "Size doesn't match for 'v'", "'v' is 8 bytes here and 4 bytes"),
    "weak sizes": (".weak .global .align 4 .u32 w = 1;", ".weak .global .align 8 .u64 w = 2;",
                   "Size doesn't match for 'w'", "'w' is 8 bytes here and 4 bytes"),
    "private names": (".func s() { ret; }\n.global .align 4 .u32 sv = 1;", ".func s() { ret; }\n.global .align 4 .u32 sv = 2;",
                      None, None),
    "weak and strong": (".weak .func w() { ret; }", ".visible .func w() { ret; }", None, None),
}


@pytest.mark.skipif(_tool("ptxas") is None or _tool("nvlink") is None, reason="ptxas/nvlink are not installed")
@pytest.mark.parametrize("case", sorted(NVLINK_CASES))
def test_link_verdicts_agree_with_nvlink(case, tmp_path):
    import subprocess

    a, b, nvlink_says, we_say = NVLINK_CASES[case]
    objs = []
    for name, body in (("a", a), ("b", b)):
        (tmp_path / f"{name}.ptx").write_text(HEAD + body + "\n")
        assert _ptxas_c(tmp_path / f"{name}.ptx", tmp_path / f"{name}.o").returncode == 0
        objs.append(str(tmp_path / f"{name}.o"))
    r = subprocess.run([_tool("nvlink"), "-arch=sm_90", *objs, "-o", str(tmp_path / "x.cubin")],
                       capture_output=True, text=True)
    if nvlink_says is None:
        assert r.returncode == 0, r.stderr
        ptxvm.loads(*_two(a, b))
    else:
        assert r.returncode != 0 and nvlink_says in r.stderr, r.stderr
        assert we_say in _link_error(a, b)


def test_source_file_numbers_stay_apart():
    """`.file 1` of each module: the later module's files (and its .loc lines) are renumbered."""
    body = '.visible .entry {k}() {{\n.loc 1 3 1\nret;\n}}\n.file 1 "{f}.cu"'
    prog = ptxvm.loads(*_two(body.format(k="ka", f="a"), body.format(k="kb", f="b")))
    text = prog.to_ptx()
    assert '.file 1 "a.cu"' in text and '.file 2 "b.cu"' in text
    assert text.index(".loc 2 3 1") > text.index(".visible .entry kb")
    ptxvm.loads(text)  # one module ptxvm verifies
