"""Labels belong to the `{ }` block that declares them; a branch goes to its own block's label or
the nearest enclosing one's. Inline assembly repeats its labels in every expansion: CuTe DSL's
mbarrier wait loops are `{ .reg .pred P1; LAB_WAIT: ... bra.uni LAB_WAIT; DONE: }` many times in one
kernel, and ptxvm sent every branch to the last block's label (a CuTe TMA GEMM faulted with an
mbarrier arrival count error). ptxas 13.0 takes this module."""
import numpy as np

import ptxvm
from ptxvm.syntax.labels import with_unique_labels
from ptxvm.syntax.printer import print_statement

PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  .reg .pred %p;
  ld.param.u64 %rd1, [out];
  mov.b32 %r1, 0;
  {
  .reg .pred P1;
  LAB_WAIT:
  add.s32 %r1, %r1, 1;
  setp.ge.s32 P1, %r1, 3;
  @P1 bra.uni DONE;
  bra.uni LAB_WAIT;
  DONE:
  }
  add.s32 %r1, %r1, 100;
  {
  .reg .pred P1;
  LAB_WAIT:
  add.s32 %r1, %r1, 1000;
  setp.ge.s32 P1, %r1, 3000;
  @P1 bra.uni DONE;
  {
  bra.uni LAB_WAIT;
  }
  DONE:
  }
  setp.lt.s32 %p, %r1, 5000;
  @%p bra OUTER;
  add.s32 %r1, %r1, 7;
OUTER:
  {
  bra.uni DONE;
  add.s32 %r1, %r1, 99999;
  DONE:
  }
  st.global.u32 [%rd1], %r1;
  ret;
}
"""


def test_each_branch_goes_to_the_label_in_its_scope():
    out = np.zeros(1, np.uint32)
    ptxvm.loads(PTX, "scoped_labels.ptx").kernel("k").launch(1, 1, [out], max_instructions=10000)
    assert out[0] == 3 + 100 + 3 * 1000  # the first loop runs 3 times, the second to 3103, OUTER skips +7


def test_only_repeated_labels_are_renamed_and_a_body_without_them_is_kept():
    body = ptxvm.loads(PTX, "scoped_labels.ptx").ast.function("k").body
    renamed = with_unique_labels(body)
    text = print_statement(renamed)
    assert "OUTER:" in text and "bra OUTER;" in text  # not repeated: kept
    assert text.count("LAB_WAIT$") == 4 and text.count("DONE$") == 6  # 2 + 2 uses, 3 + 3
    single = ptxvm.loads(""".version 8.0
.target sm_90
.address_size 64
.visible .entry k()
{
L: ret;
}""", "single.ptx").ast.function("k").body
    assert with_unique_labels(single) is single
