"""tex / tld4 with the optional residency predicate, {d0, d1, d2, d3}|p (ptxas 13 accepts it)."""
import pytest

import ptxvm

PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 t)
{
  .reg .b64 %rd<2>;
  .reg .f32 %f<6>;
  .reg .b32 %r<2>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [t];
  mov.f32 %f4, 0f3F000000;
  DEST_LINE
  ret;
}
"""


def _load(line):
    return ptxvm.loads(PTX.replace("DEST_LINE", line))


@pytest.mark.parametrize("line", [
    "tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}|%p1, [%rd1, {%f4, %f4}];",
    "tld4.r.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}|%p1, [%rd1, {%f4, %f4}];",
    "tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd1, {%f4, %f4}];",
])
def test_vector_with_residency_predicate_accepted(line):
    _load(line)


def test_residency_must_be_a_predicate():
    with pytest.raises(ptxvm.PtxError):
        _load("tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}|%r1, [%rd1, {%f4, %f4}];")
