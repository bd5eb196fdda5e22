"""Static shared memory per kernel (engine/shared_layout.py), as ptxas allocates it: a kernel pays
for the module-scope .shared variables it (or a function it calls) names, not for its neighbours'."""
import os
import re
import subprocess

import numpy as np
import pytest

import ptxvm
from ptxvm.engine.core.memory import RESERVED_SHARED
from ptxvm.engine import shared_layout

HERE = os.path.dirname(__file__)
TWO = os.path.join(HERE, "ptx", "shared_per_kernel.ptx")

# nvcc's output for a .cu file with three kernels of 40 KiB of __shared__ each: 120 KiB in the
# module, 40 KiB (under the 48 KiB static limit) per kernel
THREE = """
.version 8.0
.target sm_90
.address_size 64
.shared .align 4 .b8 _ZZ2k0vE1s[40960];
.shared .align 4 .b8 _ZZ2k1vE1s[40960];
.shared .align 4 .b8 _ZZ2k2vE1s[40960];
.func (.reg .b32 r) first(.reg .b32 i)
{
  ld.shared.u32 r, [_ZZ2k2vE1s];
  ret;
}
""" + "".join(f"""
.visible .entry k{i}(.param .u64 out)
{{
  .reg .b32 %r<4>; .reg .b64 %rd<3>;
  mov.u32 %r1, %tid.x;
  st.shared.u32 [_ZZ2k{i}vE1s+40956], %r1;
  bar.sync 0;
  {"call (%r2), first, (%r1);" if i == 2 else f"ld.shared.u32 %r2, [_ZZ2k{i}vE1s+40956];"}
  mov.u32 %r3, _ZZ2k{i}vE1s;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], %r2;
  st.global.u32 [%rd2+4], %r3;
  ret;
}}
""" for i in range(3))


def test_each_kernel_pays_for_its_own_shared_variables():
    m = ptxvm.loads(THREE)
    for i in range(3):
        assert m.program.functions[f"k{i}"].shared_static == 40960
        out = np.zeros(2, np.uint32)
        m[f"k{i}"].launch(1, 1, [out])  # 120 KiB for each would be refused (48 KiB static limit)
        assert out[1] == RESERVED_SHARED  # no other kernel's array before its own (after the system's KiB)
        if i < 2:
            assert out[0] == 0  # thread 0 stored its %tid.x at the array's end and read it back


def test_a_function_makes_its_callers_reach_its_variables():
    m = ptxvm.loads(THREE)
    assert shared_layout.reachable_names(m.program.functions)["k2"] >= {"first", "_ZZ2k2vE1s"}


def test_variables_two_kernels_reach_never_overlap_theirs():
    m = ptxvm.load(TWO)
    f = m.program.functions
    assert f["ka"].shared_static == 40016  # sa, both
    assert f["kb"].shared_static == 40016  # sb, both (after sa: one address for `both` in both kernels), dyn
    for k in ("ka", "kb"):
        out = np.zeros(4, np.uint32)
        m[k].launch(1, 32, [out], shared_mem=64)
        assert out[0] == RESERVED_SHARED and out[1] == RESERVED_SHARED + 40000
    assert m.program.dynamic_shared_base == RESERVED_SHARED + 40016


def test_unused_variables_take_no_space():
    m = ptxvm.load(TWO)
    assert m.program.globals["unused"].size == 1024
    assert m.program.functions["ka"].shared_static < 1024 + 40000


def test_first_fit_places_past_clashes_only():
    a, b, c = frozenset("a"), frozenset("b"), frozenset("ab")
    assert shared_layout.place([(100, 4), (50, 4), (8, 16)], [a, b, c]) == [0, 0, 112]
    assert shared_layout.place([(100, 4), (50, 4)], [a, a]) == [0, 100]
    assert shared_layout.place([(10, 4), (10, 4)], [frozenset(), a]) == [0, 0]


def _ptxas():
    from ptxvm import toolchain

    return toolchain.find("ptxas", toolkit_first=True)


@pytest.mark.skipif(_ptxas() is None, reason="ptxas is not installed: no second opinion on per-kernel smem")
def test_per_kernel_sizes_agree_with_ptxas(tmp_path):
    src = tmp_path / "three.ptx"
    src.write_text(THREE)
    out = subprocess.run([_ptxas(), "-arch=sm_90", "-v", str(src), "-o", str(tmp_path / "x.cubin")],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    sizes = dict(re.findall(r"entry function '(\w+)'.*?(\d+) bytes smem", out.stderr.replace("\n", " ")))
    m = ptxvm.loads(THREE)
    assert {k: int(v) for k, v in sizes.items()} == {k: m.program.functions[k].shared_static for k in sizes}
