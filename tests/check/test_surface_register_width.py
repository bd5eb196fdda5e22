"""suld.b / sust.b take registers wider than their type, as ptxas 13.0 does (b8 data in .b16 or
.b32 registers); narrower ones stay an error."""
import pytest

import ptxvm

PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 s)
{
  .reg .b64 %rd<2>;
  .reg .REG %v<2>;
  .reg .b32 %x;
  ld.param.u64 %rd1, [s];
  mov.b32 %x, 0;
  suld.b.1d.TYPE.zero {%v0}, [%rd1, {%x}];
  sust.b.1d.TYPE.zero [%rd1, {%x}], {%v0};
  ret;
}
"""


def _load(t, reg):
    return ptxvm.loads(PTX.replace("TYPE", t).replace("REG", reg))


@pytest.mark.parametrize("t,reg", [("b8", "b16"), ("b8", "b32"), ("b16", "b32"), ("b32", "b64"), ("b8", "b8")])
def test_wider_register_accepted(t, reg):
    _load(t, reg)


@pytest.mark.parametrize("t,reg", [("b16", "b8"), ("b32", "b16")])
def test_narrower_register_refused(t, reg):
    with pytest.raises(ptxvm.PtxError):
        _load(t, reg)
