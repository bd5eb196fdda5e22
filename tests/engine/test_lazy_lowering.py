"""A launch lowers its kernel and what the kernel can call, not the whole module (NVIDIA Warp's
modules hold every kernel's forward and backward code: its test_noise module, 22 kernels and 69k
instructions, took 8 s to its first launch; 1.8 s now). Each function's place in the code is fixed
before any is lowered, so PCs do not depend on what was launched first (parallel launches' workers
lower on their own)."""
import numpy as np

import ptxvm

PTX = """.version 8.0
.target sm_90
.address_size 64
.func (.param .b32 r) twice(.param .b32 x)
{
  .reg .b32 %v;
  ld.param.b32 %v, [x];
  add.s32 %v, %v, %v;
  st.param.b32 [r], %v;
  ret;
}
.func (.param .b32 r) thrice(.param .b32 x)
{
  .reg .b32 %v<2>;
  ld.param.b32 %v0, [x];
  mul.lo.s32 %v1, %v0, 3;
  st.param.b32 [r], %v1;
  ret;
}
.visible .entry a(.param .u64 out)
{
  .reg .b32 %r<3>; .reg .b64 %rd<2>;
  mov.u32 %r1, 21;
  { .param .b32 x; .param .b32 r; st.param.b32 [x], %r1; call (r), twice, (x); ld.param.b32 %r2, [r]; }
  ld.param.u64 %rd1, [out];
  st.global.u32 [%rd1], %r2;
  ret;
}
.visible .entry b(.param .u64 out)
{
  .reg .b32 %r<3>; .reg .b64 %rd<2>;
  mov.u32 %r1, 5;
  { .param .b32 x; .param .b32 r; st.param.b32 [x], %r1; call (r), thrice, (x); ld.param.b32 %r2, [r]; }
  ld.param.u64 %rd1, [out];
  st.global.u32 [%rd1], %r2;
  ret;
}
"""


def _pcs(program):
    return {n: f.entry_pc for n, f in program.functions.items()}


def test_a_launch_lowers_its_kernel_and_callees_only_and_pcs_are_fixed():
    m = ptxvm.loads(PTX, "lazy.ptx")
    out = np.zeros(1, np.uint32)
    m["a"][1, 1](out)
    assert out[0] == 42
    pcs = _pcs(m.lazy_program)
    assert pcs["a"] >= 0 and pcs["twice"] >= 0 and pcs["b"] == -1 and pcs["thrice"] == -1
    m["b"][1, 1](out)
    assert out[0] == 15
    after = _pcs(m.lazy_program)
    assert {n: after[n] for n in ("a", "twice")} == {n: pcs[n] for n in ("a", "twice")}
    whole = ptxvm.loads(PTX, "lazy.ptx").program  # everything at once: the same places
    assert _pcs(whole) == after


def test_the_whole_program_is_there_when_asked_for():
    m = ptxvm.loads(PTX, "lazy.ptx")
    program = m.program
    assert all(f.entry_pc >= 0 for f in program.functions.values())
    assert not any(op.text == "(not lowered)" for op in program.code)
    out = np.zeros(1, np.uint32)
    m["b"][1, 1](out)
    assert out[0] == 15


def test_parallel_workers_lower_on_their_own_and_agree(monkeypatch):
    """Workers rebuild the module from its syntax tree and lower only what their shard's kernel
    reaches; each function's fixed place keeps their PCs the parent's."""
    monkeypatch.setenv("PTXVM_PARALLEL_MIN_WORK", "0")
    m = ptxvm.loads(PTX, "lazy.ptx")
    out = np.zeros(1, np.uint32)
    assert m["b"].launch(4, 32, [out], workers=2).workers == 2
    assert out[0] == 15
    assert m["a"].launch(4, 32, [out], workers=2).workers == 2
    assert out[0] == 42
