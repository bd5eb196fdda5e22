"""multimem.* (sm_90) address NVLink multicast memory, which ptxvm does not model: the engine
refuses each form by name when it runs, and coverage reports why."""
import numpy as np
import pytest

import ptxvm
from ptxvm.conformance import units


@pytest.mark.parametrize("instr", ["multimem.ld_reduce.relaxed.sys.global.add.u32 %r2, [%rd1];",
                                   "multimem.st.relaxed.sys.global.u32 [%rd1], %r1;",
                                   "multimem.red.relaxed.sys.global.add.u32 [%rd1], %r1;",
                                   "multimem.ld_reduce.weak.global.add.acc::f32.v2.f16x2 {%r2, %r3}, [%rd1];"])
def test_refused_with_the_reason(instr):
    ptx = f""".version 8.6
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{{
  .reg .b64 %rd<4>;
  .reg .b32 %r<4>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, 3;
  {instr}
  ret;
}}
"""
    k = ptxvm.loads(ptx)["k"]   # a module that holds it still loads: only running it is refused
    name = instr.split(".")[1].split()[0]
    with pytest.raises(ptxvm.KernelFault, match=rf"multimem\.{name} needs a multicast object"):
        k.launch(1, 1, [np.zeros(4, np.uint32)])


def test_coverage_says_why():
    assert units.engine_refuses("multimem", {"red", "global"})
    assert "multicast object" in units.refusal_reason("multimem")
