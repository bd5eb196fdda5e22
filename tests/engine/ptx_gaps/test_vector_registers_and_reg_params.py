"""Vector registers (`.reg .v4 .f32 v`) and .reg parameters / return values of .func (the pre-ABI
calling form). What ptxas 13.0 and 13.5 accept and refuse was measured and is re-checked here where
they are installed; the files run on the engine with the results the ISA defines (moves, loads and
stores of elements; a call copies arguments into the callee's registers)."""
from pathlib import Path

import numpy as np
import pytest

import ptxvm
from ptxas_opinion import VERSIONS, ptxas_accepts

HERE = Path(__file__).resolve().parent
FILES = ("vector_registers.ptx", "reg_params_recursive.ptx", "reg_params_multi.ptx")
HDR = ".version 8.0\n.target sm_90\n.address_size 64\n"


def _kernel(body):
    return (HDR + ".visible .entry k(.param .u64 p)\n{\n.reg .u64 %rd<4>; .reg .u32 %r<4>; .reg .f32 %f<4>;\n"
            ".reg .pred %p<3>;\n" + body + "\nret;\n}\n")


@pytest.mark.parametrize("name", FILES)
def test_round_trip(name):
    m = ptxvm.load(HERE / name)
    text = m.to_ptx()
    assert ptxvm.loads(text).to_ptx() == text


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", FILES)
def test_ptxas_accepts_files(version, name):
    ok, err = ptxas_accepts(version, (HERE / name).read_text())
    assert ok, err


def test_vector_registers_run():
    m = ptxvm.load(HERE / "vector_registers.ptx")
    a = np.zeros(40, np.uint32)
    a[:4] = np.array([1, 2, 3, 4], np.float32).view(np.uint32)
    a[4:8] = [10, 20, 30, 40]
    a[8:12] = np.array([1.5, 2.5]).view(np.uint32)
    m["vectors"].launch(1, 1, [a])
    assert a[16:20].view(np.float32).tolist() == [5, 2, 3, 10]
    assert a[20:24].tolist() == [10, 20, 30, 42]
    assert a[24:32].tolist() == [9, 7, 7, 9, 9, 8, 7, 10]
    assert a[32:36].view(np.float64).tolist() == [1.5, 4.0]
    assert a[36] == (10 << 16) | 20


def test_reg_params_recursive_run():
    m = ptxvm.load(HERE / "reg_params_recursive.ptx")
    a = np.zeros(40, np.uint32)
    m["regcalls"].launch(1, 8, [a])
    fact = [1, 1, 2, 6, 24, 120, 720, 5040]
    assert a[0:8].tolist() == fact
    assert a[8:16].tolist() == [120] * 8
    assert a[16:24].tolist() == [100 + 2 * t for t in range(8)]
    assert a[24:32].tolist() == [3 * t for t in range(8)]
    assert a[32:40].tolist() == fact


def test_reg_params_multi_run():
    m = ptxvm.load(HERE / "reg_params_multi.ptx")
    a = np.zeros(48, np.uint32)
    m["multi"].launch(1, 8, [a])
    assert a[:16].view(np.uint64).tolist() == [t << 32 for t in range(8)]
    assert a[16:32:2].view(np.float32).tolist() == [t + 1.0 for t in range(8)]
    assert a[32:48].tolist() == [x for t in range(8) for x in (t, 7)]


# ptxas 13.0 and 13.5 accept these (ptxvm used to refuse them)
ACCEPTED = {
    "pack_vector_register": ".reg .v2 .u32 w;\nmov.b64 %rd1, w;\nmov.b64 w, %rd1;",
    "pack_float_vector": ".reg .v2 .f32 w;\nmov.b64 %rd1, w;",
    "elements_in_braces": ".reg .v2 .u32 w;\nld.global.v2.u32 {w.y, w.x}, [%rd1];\nst.global.v2.u32 [%rd1], {w.x, %r1};",
    "integer_vector_float_type": ".reg .v4 .u32 w;\nst.global.v4.f32 [%rd1], w;\nld.global.v4.f32 w, [%rd1];",
    "integer_braces_float_type": "st.global.v2.f32 [%rd1], {%r1, %r2};\nmov.v2.f32 {%r1, %r2}, {%r3, %r2};",
    "rgba": ".reg .v4 .u32 w;\nmov.u32 w.a, w.b;\nadd.u32 w.r, w.g, 1;",
    "family": ".reg .v4 .f32 w<2>;\nld.global.v4.f32 w1, [%rd1];\nst.global.v4.f32 [%rd1], w0;",
    "vector_reg_param": ".reg .v2 .u32 w;\nld.param.v2.u32 w, [p];",
}

# ptxas 13.0 and 13.5 refuse these; so does ptxvm
REFUSED = {
    "alu_whole_vector": ".reg .v2 .u32 w;\nadd.u32 w, w, w;",  # Vector operand is not allowed
    "cvt_whole_vector": ".reg .v2 .u32 w;\ncvt.u64.u32 %rd1, w;",
    "size_mismatch": ".reg .v4 .u32 w;\nld.global.v2.u32 w, [%rd1];",  # Argument vector size mismatch
    "scalar_mov_of_vector": ".reg .v2 .u32 w;\nmov.u32 w, 1;",
    "unpack_into_vector": ".reg .v2 .u32 w;\nmov.b64 {%r1, %r2}, w;",  # Illegal vector-vector operands
    "braces_both_sides": "mov.b64 {%r1, %r2}, {%r3, %r2};",
    "float_vector_integer_type": ".reg .v2 .f32 w;\nst.global.v2.u32 [%rd1], w;",  # Arguments mismatch
    "packing_wrong_sizes": ".reg .v4 .b16 h;\nmov.b32 %r1, h;",
    "element_next_to_constant": ".reg .v2 .u32 w;\nst.global.v2.u32 [%rd1], {3, w.y};",  # must be register or constant
    "vector_in_braces": ".reg .v2 .u32 w;\nst.global.v4.u32 [%rd1], {w, w};",  # Illegal expression
    "vector_predicate": ".reg .v2 .pred q;",  # Predicate type can only be used to define scalar registers
    "v8": ".reg .v8 .u32 w;",
    "too_wide": ".reg .v4 .f64 w;",
    "unknown_component": ".reg .v2 .u32 w;\nmov.u32 w.q, 1;",
    "vector_address": ".reg .v2 .u64 a;\nld.global.u32 %r1, [a];",
    "element_before_bar": ".reg .v2 .u32 w;\nshfl.sync.idx.b32 w.y|%p1, %r1, 1, 31, -1;",  # syntax error near '|'

}
MODULE_REFUSED = {
    # ptxas: Type of argument does not match formal parameter 'x'
    "vector_argument_size": ".func (.param .b64 r) f(.param .b64 x) { ret; }\n"
                            ".visible .entry k() { .reg .v4 .u32 w; .reg .u64 %rd1; call (%rd1), f, (w); ret; }",
    "vector_reg_param_size": ".func (.reg .u32 r) f(.reg .v2 .u32 x) { ret; }\n"
                             ".visible .entry k() { .reg .v4 .u32 w; .reg .u32 %r1; call (%r1), f, (w); ret; }",
    # ptxas: Inconsistent state space for parameter '%rd1'
    "register_for_aggregate": ".func (.param .align 8 .b8 r[8]) f(.param .align 8 .b8 x[8]) { ret; }\n"
                              ".visible .entry k() { .reg .u64 %rd<3>; call (%rd1), f, (%rd2); ret; }",
    # ptxas: Multiple return parameters require .register state space
    "multiple_param_returns": ".func (.param .u32 a, .param .u32 b) f() { ret; }",
    "entry_reg_param": ".visible .entry k(.reg .u32 x) { ret; }",
    "reg_param_type": ".func (.reg .u32 a) f(.reg .u64 x) { cvt.u32.u64 a, x; ret; }\n"
                      ".visible .entry k() { .reg .u32 %r<3>; call (%r1), f, (%r2); ret; }",
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_accepted(name):
    ptxvm.loads(_kernel(ACCEPTED[name]))


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused(name):
    with pytest.raises(ptxvm.PtxError):
        ptxvm.loads(_kernel(REFUSED[name]))


@pytest.mark.parametrize("name", sorted(MODULE_REFUSED))
def test_module_refused(name):
    with pytest.raises(ptxvm.PtxError):
        ptxvm.loads(HDR + MODULE_REFUSED[name])


@pytest.mark.parametrize("version", VERSIONS)
def test_ptxas_agrees(version):
    for name, body in ACCEPTED.items():
        ok, err = ptxas_accepts(version, _kernel(body))
        assert ok, (name, err)
    for name, body in REFUSED.items():
        ok, _ = ptxas_accepts(version, _kernel(body))
        assert not ok, name
    for name, text in MODULE_REFUSED.items():
        ok, _ = ptxas_accepts(version, HDR + text)
        assert not ok, name


def test_component_outside_the_register_refused():
    """ptxas 13.0/13.5 accept writing w.z of a .v2 register and crash (SIGSEGV) reading it: ptxvm
    refuses both rather than give it a meaning (not checked against ptxas: it crashes)."""
    for body in (".reg .v2 .u32 w;\nmov.u32 w.z, 1;", ".reg .v2 .u32 w;\nmov.u32 %r1, w.a;"):
        with pytest.raises(ptxvm.PtxError, match="outside a .v2 register"):
            ptxvm.loads(_kernel(body))


def test_vector_register_argument_for_param_runs():
    """A .v2 .u32 register passed for a .param .b64 parameter (ptxas 13.0/13.5 accept it): its
    elements one after the other, as in memory."""
    text = HDR + (".func (.param .b64 r) f(.param .b64 x) { .reg .b64 t; ld.param.b64 t, [x]; "
                  "st.param.b64 [r], t; ret; }\n"
                  ".visible .entry k(.param .u64 p) { .reg .v2 .u32 w; .reg .u64 %rd<4>; ld.param.u64 %rd3, [p]; "
                  "mov.v2.u32 w, {3, 4}; call (%rd1), f, (w); st.global.u64 [%rd3], %rd1; ret; }\n")
    for version in VERSIONS:
        try:
            ok, err = ptxas_accepts(version, text)
        except pytest.skip.Exception:
            continue
        assert ok, err
    a = np.zeros(2, np.uint32)
    ptxvm.loads(text)["k"].launch(1, 1, [a])
    assert a.tolist() == [3, 4]


def test_vector_register_receiving_param_return_refused():
    """ptxas 13.0/13.5 crash (SIGSEGV) on `call (w), f, ...` with w a vector register and f's return
    value a .param: refused (not given to ptxas)."""
    text = HDR + (".func (.param .b64 r) f(.param .b64 x) { ret; }\n"
                  ".visible .entry k() { .reg .v2 .u32 w; call (w), f, (w); ret; }\n")
    with pytest.raises(ptxvm.PtxError, match="vector register cannot receive"):
        ptxvm.loads(text)


def test_undefined_extern_global_gets_storage_of_its_own():
    """An .extern .global no loaded module defines used to crash the loader (KeyError). ptxas in
    whole-program mode (what the driver's JIT of one module is) ignores the extern qualifier and
    gives it storage ("Unresolved extern variable ... ignoring extern qualifier"): so does ptxvm."""
    m = ptxvm.loads(HDR + ".extern .global .u32 eg;\n.visible .entry k(.param .u64 o) { .reg .u32 %r1; "
                    ".reg .u64 %rd1; ld.param.u64 %rd1, [o]; ld.global.u32 %r1, [eg]; add.u32 %r1, %r1, 5; "
                    "st.global.u32 [%rd1], %r1; ret; }\n")
    out = np.full(1, 99, np.uint32)
    m["k"].launch(1, 1, [out])
    assert out[0] == 5
