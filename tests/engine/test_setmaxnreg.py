"""setmaxnreg (sm_90a): verified like ptxas, run once per warpgroup, values untouched, and the
ISA's rules on the register count checked where the kernel's .maxnreg makes it known."""
import numpy as np
import pytest

import ptxvm


def kernel(body: str, maxnreg: str = ".maxnreg 128", target: str = "sm_90a") -> str:
    return f""".version 8.0
.target {target}
.address_size 64
.visible .entry k(.param .u64 p)
{maxnreg}
{{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .pred %q;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mul.lo.u32 %r2, %r1, 3;
{body}
  add.u32 %r3, %r2, 7;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd2, %rd1, %rd2;
  st.global.u32 [%rd2], %r3;
  ret;
}}
"""


def run(body, threads=128, **kw):
    out = np.zeros(threads, np.uint32)
    stats = ptxvm.loads(kernel(body, **kw))["k"].launch(1, threads, [out])
    return out, stats


def test_release_and_take_back_keeps_values():
    out, stats = run("  setmaxnreg.dec.sync.aligned.u32 64;\n  bar.sync 0;\n  setmaxnreg.inc.sync.aligned.u32 128;", 256)
    assert np.array_equal(out, np.arange(256, dtype=np.uint32) * 3 + 7)
    assert stats.max_registers == 128


def test_without_setmaxnreg_no_register_count():
    out, stats = run("")
    assert stats.max_registers == 0 and out[5] == 22


def test_dec_above_the_current_count_is_a_fault():
    with pytest.raises(ptxvm.KernelFault, match=r"holds 64 registers per thread; \.dec to 128 is undefined"):
        run("  setmaxnreg.dec.sync.aligned.u32 128;", maxnreg=".maxnreg 64")


def test_inc_below_the_current_count_is_a_fault():
    with pytest.raises(ptxvm.KernelFault, match=r"\.inc to 64 is undefined"):
        run("  setmaxnreg.inc.sync.aligned.u32 64;")


def test_inc_beyond_the_pool_that_nothing_releases_is_a_deadlock():
    """The only warpgroup asks for more than the CTA's pool: it waits for a .dec that never comes."""
    with pytest.raises(ptxvm.KernelFault, match=r"deadlock.*wait at setmaxnreg\.inc 200 for registers.*pool 16384"):
        run("  setmaxnreg.inc.sync.aligned.u32 200;")


def test_an_inc_waits_for_another_warpgroups_dec():
    """Triton's warp-specialized kernels: the first warpgroup raises its count before the others
    have lowered theirs; on the GPU (and here) it waits for their .dec instead of failing. Three
    warpgroups at .maxnreg 168 (pool 64512): 256 fits only once the other two are at 120."""
    body = ("  setp.lt.u32 %q, %r1, 128;\n  @!%q bra $L_rest;\n  setmaxnreg.inc.sync.aligned.u32 256;\n"
            "  bra $L_join;\n$L_rest:\n  setmaxnreg.dec.sync.aligned.u32 120;\n$L_join:\n  bar.sync 1;")
    out, stats = run(body, 384, maxnreg=".maxnreg 168")
    assert stats.max_registers == 256
    assert np.array_equal(out, np.arange(384, dtype=np.uint32) * 3 + 7)


def test_one_warpgroup_may_take_what_another_released():
    body = ("  setp.lt.u32 %q, %r1, 128;\n  @%q bra $L_a;\n  setmaxnreg.dec.sync.aligned.u32 32;\n  bar.sync 0;\n"
            "  bra $L_b;\n$L_a:\n  bar.sync 0;\n  setmaxnreg.inc.sync.aligned.u32 160;\n$L_b:")
    out, stats = run(body, 256, maxnreg=".maxnreg 96")
    assert stats.max_registers == 160 and out[200] == 607


def test_a_warpgroup_that_does_not_all_arrive_is_a_fault():
    body = "  setp.lt.u32 %q, %r1, 32;\n  @!%q bra $L_x;\n  setmaxnreg.dec.sync.aligned.u32 64;\n$L_x:"
    with pytest.raises(ptxvm.KernelFault, match="(deadlock|warpgroup has exited).*setmaxnreg"):
        run(body)


def test_without_maxnreg_the_count_is_not_checked():
    _, stats = run("  setmaxnreg.inc.sync.aligned.u32 256;", maxnreg="")
    assert stats.max_registers == 256


@pytest.mark.parametrize("count, message", [(60, "multiple of 8"), (16, r"out of range \[24..256\]"),
                                            (264, r"out of range \[24..256\]")])
def test_verifier_refuses_bad_counts(count, message):
    with pytest.raises(ptxvm.PtxError, match=message):
        ptxvm.loads(kernel(f"  setmaxnreg.inc.sync.aligned.u32 {count};"))


def test_needs_sm_90a():
    with pytest.raises(ptxvm.PtxError, match="sm_90a"):
        ptxvm.loads(kernel("  setmaxnreg.inc.sync.aligned.u32 128;", target="sm_90"))
