"""The launch API: arguments, device memory, module variables, printf, statistics."""
import numpy as np
import pytest

import ptxvm

HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n"

SYMBOLS = HEADER + """
.global .align 4 .u32 counter = 5;
.global .align 4 .f32 table[4] = {1.0, 2.0, 3.0, 4.0};
.const .align 4 .u32 scale = 3;
.visible .entry bump(.param .u64 out)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    .reg .f32 %f1;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    ld.const.u32 %r2, [scale];
    ld.global.u32 %r3, [counter];
    mad.lo.u32 %r4, %r1, %r2, %r3;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r4;
    atom.global.add.u32 %r5, [counter], 1;
    ret;
}
"""


def test_module_variables_initializers_and_symbol_access():
    mod = ptxvm.loads(SYMBOLS)
    assert mod.read_symbol("counter", np.uint32).tolist() == [5]
    assert mod.read_symbol("table", np.float32).tolist() == [1.0, 2.0, 3.0, 4.0]
    mod.write_symbol("scale", np.array([10], np.uint32))
    out = np.zeros(8, np.uint32)
    mod["bump"].launch(1, 8, [out])
    assert out.tolist() == [5 + 10 * i for i in range(8)]
    assert mod.read_symbol("counter", np.uint32)[0] == 13  # the atomics ran, and the value persists
    out2 = np.zeros(8, np.uint32)
    mod["bump"][1, 8](out2)  # the Numba-style short form
    assert out2[0] == 13


def test_same_array_twice_is_one_allocation_and_device_arrays_persist():
    src = HEADER + """
.visible .entry copy_add(.param .u64 dst, .param .u64 src)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [dst];
    ld.param.u64 %rd2, [src];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.u32 %r2, [%rd4];
    add.u32 %r3, %r2, 1;
    add.s64 %rd5, %rd1, %rd3;
    st.global.u32 [%rd5], %r3;
    ret;
}
"""
    k = ptxvm.loads(src)["copy_add"]
    a = np.arange(32, dtype=np.uint32)
    k.launch(1, 32, [a, a])  # in place: one allocation for both parameters
    assert a.tolist() == list(range(1, 33))
    d = ptxvm.to_device(np.zeros(32, np.uint32))
    k.launch(1, 32, [d, d])
    k.launch(1, 32, [d, d])
    assert d.copy_to_host().tolist() == [2] * 32
    e = ptxvm.device_array(32, np.uint32)
    k.launch(1, 32, [e, d])
    assert e.copy_to_host().tolist() == [3] * 32


def test_struct_by_value_and_argument_checks():
    src = HEADER + """
.visible .entry s(.param .align 8 .b8 p[16], .param .u64 out)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<3>;
    ld.param.u32 %r1, [p];
    ld.param.u32 %r2, [p+8];
    ld.param.u64 %rd1, [out];
    add.u32 %r1, %r1, %r2;
    st.global.u32 [%rd1], %r1;
    ret;
}
"""
    k = ptxvm.loads(src)["s"]
    out = np.zeros(1, np.uint32)
    rec = np.zeros(1, dtype=[("a", "<u4"), ("pad", "<u4"), ("b", "<u8")])
    rec["a"], rec["b"] = 40, 2
    k.launch(1, 1, [rec[0], out])
    assert out[0] == 42
    with pytest.raises(ptxvm.LaunchError, match="expected 16 bytes"):
        k.launch(1, 1, [bytes(8), out])
    with pytest.raises(ptxvm.LaunchError, match="block of 2048 threads"):
        k.launch(1, 2048, [rec[0], out])


def test_printf_in_deterministic_order(capsys):
    mod = ptxvm.load(__import__("pathlib").Path(__file__).parents[1] / "corpus" / "ptx" / "printf_kernel.sm_90.ptx")
    k = mod["printf_kernel"]
    x = np.arange(64, dtype=np.float32)
    out = np.zeros(64, np.int32)
    k.launch(2, 32, [x, out, np.int32(64)])
    first = capsys.readouterr().out
    assert first.splitlines() == [
        "block 0: first value 0.000000 (n=64)",
        "block 1: first value 32.000000 (n=64)",
        f"last thread 63 of 64, done, double 126.000, long {63 << 33}, char x",
    ]
    k.launch(2, 32, [x, out, np.int32(64)])
    assert capsys.readouterr().out == first


def test_stats_count_guarded_instructions():
    src = HEADER + """
.visible .entry g()
{
    .reg .pred %p;
    .reg .b32 %r<3>;
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p, %r1, 3;
    @%p add.u32 %r2, %r1, 1;
    ret;
}
"""
    st = ptxvm.loads(src)["g"].launch(2, 40, [])
    assert st.thread_instructions == 80 * 4  # mov, setp, the guarded add (counted when false), ret
    assert st.warp_instructions == 4 * 4  # two warps per CTA, one of them partial


def test_a_dlpack_array_is_an_argument_written_in_place():
    class Wrapped:
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, **kw):
            return self.a.__dlpack__(**kw)

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    mod = ptxvm.load("examples/saxpy.ptx")
    x, y = np.ones(64, np.float32), np.zeros(64, np.float32)
    mod["saxpy"].launch(1, 64, [np.int32(64), np.float32(3), Wrapped(x), Wrapped(y)])
    assert np.array_equal(y, np.full(64, 3, np.float32))


OLD_32BIT = r"""
.version 1.4
.target sm_10, map_f64_to_f32
.entry scale (.param .u32 p, .param .s32 n)
{
  .reg .u32 %r<4>; .reg .f32 %f<2>;
  ld.param.u32 %r1, [p];
  cvt.u32.u16 %r2, %tid.x;
  mul.lo.u32 %r3, %r2, 4;
  add.u32 %r1, %r1, %r3;
  ld.global.f32 %f1, [%r1+0];
  add.f32 %f1, %f1, %f1;
  st.global.f32 [%r1+0], %f1;
  exit;
}
"""


def test_a_32bit_module_is_refused_an_array_with_the_reason():
    """PTX without .address_size is 32-bit code (PTX's default before ISA 2.3: old nvcc, GPGPU-Sim's
    benchmarks). It loads for an old target, but its .u32 pointers cannot hold an address of the
    H200's 64-bit global memory, which the launch error says (ptxas 13 refuses such code)."""
    k = ptxvm.loads(OLD_32BIT, "old.ptx").kernel("scale")
    with pytest.raises(ptxvm.LaunchError, match=r"32-bit code \(no \.address_size: PTX defaults to 32\).*\.address_size 64"):
        k.launch(1, 32, [np.ones(32, np.float32), np.int32(32)])
    with pytest.raises(ptxvm.PtxVerifyError, match="module without .address_size, which makes it 32-bit code"):
        ptxvm.loads(OLD_32BIT.replace("1.4", "8.0").replace("sm_10, map_f64_to_f32", "sm_90"), "old90.ptx")


def test_verifier_warnings_are_kept_on_the_module():
    """What ptxas warns about, ptxvm keeps as module.warnings (Diagnostics with file:line:col): here
    shfl and vote without .sync from PTX ISA 3.1, which ptxas 13 accepts for sm_90 with a warning on
    each line (and refuses from ISA 6.4 on, an error instead)."""
    text = r"""
.version 3.1
.target sm_30
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<3>; .reg .b32 %r<4>; .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shfl.down.b32 %r2, %r1, 1, 31;
  setp.gt.u32 %p1, %r1, 3;
  vote.ballot.b32 %r3, %p1;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd1, %rd1, %rd2;
  add.u32 %r2, %r2, %r3;
  st.global.u32 [%rd1], %r2;
  ret;
}
"""
    m = ptxvm.loads(text, "old.ptx")
    assert [(d.severity, d.span.line) for d in m.warnings] == [("warning", 10), ("warning", 12)]
    assert "shfl without .sync" in m.warnings[0].message and "vote without .sync" in m.warnings[1].message
    out = np.zeros(32, np.uint32)
    m.kernel("k").launch(1, 32, [out])  # run as the .sync forms over the whole (converged) warp
    lanes = np.arange(32, dtype=np.uint32)
    want = np.where(lanes < 31, lanes + 1, lanes) + np.uint32(0xFFFFFFF0)
    np.testing.assert_array_equal(out, want.astype(np.uint32))
    with pytest.raises(ptxvm.PtxVerifyError, match="not supported from PTX ISA 6.4"):
        ptxvm.loads(text.replace(".version 3.1", ".version 8.0").replace("sm_30", "sm_90"), "new.ptx")


READ_WRITE = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 src, .param .u64 dst, .param .u32 write_src)
{
    .reg .b64 %rd<3>;
    .reg .b32 %r<3>;
    .reg .pred %p;
    ld.param.u64 %rd1, [src];
    ld.param.u64 %rd2, [dst];
    ld.param.u32 %r2, [write_src];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    ld.global.u32 %r1, [%rd1];
    add.u32 %r1, %r1, 1;
    st.global.u32 [%rd2], %r1;
    setp.ne.u32 %p, %r2, 0;
    @%p st.global.u32 [%rd1], %r1;
    ret;
}
"""


@pytest.mark.parametrize("workers", [1, 2])
def test_a_read_only_array_is_an_input_and_refuses_results(workers, monkeypatch):
    """A read-only host array (np.frombuffer) the kernel only reads is an input like any other; if
    the kernel writes it, the launch says which argument instead of failing inside NumPy, and the
    other arrays are left as they were."""
    monkeypatch.setenv("PTXVM_PARALLEL_MIN_WORK", "0")
    k = ptxvm.loads(READ_WRITE, "rw.ptx").kernel("k")
    src = np.frombuffer(np.int32(41).tobytes(), np.int32)
    dst = np.zeros(1, np.int32)
    k.launch(1, 1, [src, dst, 0], workers=workers)
    assert dst[0] == 42
    dst[0] = 7
    with pytest.raises(ptxvm.LaunchError, match=r"wrote to argument 0 \(src, \.u64\), a read-only array"):
        k.launch(1, 1, [src, dst, 1], workers=workers)
    assert dst[0] == 7 and src[0] == 41


def test_launch_configuration_and_argument_mistakes_are_launch_errors():
    """What a user may get wrong says so as a LaunchError (a raw TypeError escaped for these)."""
    k = ptxvm.loads(READ_WRITE, "rw.ptx").kernel("k")
    src, dst = np.zeros(1, np.int32), np.zeros(1, np.int32)
    with pytest.raises(ptxvm.LaunchError, match=r"kernel\[grid, block\]"):
        k[1](src, dst, 0)
    with pytest.raises(ptxvm.LaunchError, match="grid must be a positive int"):
        k.launch(1.5, 1, [src, dst, 0])
    with pytest.raises(ptxvm.LaunchError, match="array of Python objects"):
        k.launch(1, 1, [np.array([None]), dst, 0])


def test_none_is_a_null_pointer():
    """None passes 0 to a 64-bit parameter, as NULL would (cuda-samples' quasirandomGenerator
    passes NULL for an output it does not want); elsewhere it is an error."""
    src = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 maybe, .param .u64 out)
{
    .reg .b64 %rd<3>;
    .reg .pred %p;
    ld.param.u64 %rd1, [maybe];
    ld.param.u64 %rd2, [out];
    cvta.to.global.u64 %rd2, %rd2;
    setp.eq.u64 %p, %rd1, 0;
    selp.u64 %rd1, 7, 9, %p;
    st.global.u64 [%rd2], %rd1;
    ret;
}
"""
    k = ptxvm.loads(src, "null.ptx").kernel("k")
    out = np.zeros(1, np.uint64)
    k[1, 1](None, out)
    assert out[0] == 7
    with pytest.raises(ptxvm.LaunchError, match="NoneType"):
        ptxvm.loads(READ_WRITE, "rw.ptx").kernel("k").launch(1, 1, [np.zeros(1, np.int32), np.zeros(1, np.int32), None])


def test_out_of_bounds_faults_say_where_the_address_lies():
    """Past an allocation's end: by how much; far from every allocation: that it is no device
    address (Triton's grouped-GEMM tutorial puts host data_ptr()s in a pointer table)."""
    src = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 a)
{
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [a];
    st.global.u32 [%rd1+16], 1;
    ret;
}
"""
    k = ptxvm.loads(src, "where.ptx").kernel("k")
    with pytest.raises(ptxvm.KernelFault, match=r"\(0 bytes past the end of a 16-byte allocation at 0x7f"):
        k[1, 1](np.zeros(4, np.uint32))
    with pytest.raises(ptxvm.KernelFault, match="not a device address: a host pointer"):
        k[1, 1](np.uint64(0x5555_5555_0000))  # where a Linux process's heap lies


def test_a_call_into_numbas_runtime_says_it_is_not_supported():
    """Numba kernels that allocate (arr.copy()) call NRT_*; the fault names Numba's runtime instead
    of asking the user to link a module they do not have."""
    src = """.version 8.0
.target sm_90
.address_size 64
.extern .func NRT_incref(.param .b64 p);
.visible .entry k(.param .u64 a)
{
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [a];
    {
    .param .b64 param0;
    st.param.b64 [param0], %rd1;
    call.uni NRT_incref, (param0);
    }
    ret;
}
"""
    with pytest.raises(ptxvm.KernelFault, match="Numba's runtime .NRT.*not supported"):
        ptxvm.loads(src, "nrt.ptx").kernel("k")[1, 1](np.uint64(0))
