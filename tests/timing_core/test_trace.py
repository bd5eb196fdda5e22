"""The engine's event trace: off unless asked for, per-warp masks and addresses by space."""
import numpy as np

import ptxvm
from ptxvm.engine.core.memory import RESERVED_SHARED  # the H200's reserved KiB before a CTA's variables
from ptxvm.engine.trace.events import LOCAL_REGION, Tracer

from .ptx_cases import HEADER

DIVERGE = HEADER + """
.visible .entry diverge(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b32 sh[64];
  .local .align 4 .b32 loc[4];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, sh;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  st.shared.u32 [%r4], %r1;
  cvta.shared.u64 %rd1, %rd1;
  mov.u64 %rd2, sh;
  cvta.shared.u64 %rd3, %rd2;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd3, %rd4;
  ld.u32 %r5, [%rd5];
  st.local.u32 [loc+4], %r5;
  setp.lt.u32 %p1, %r1, 8;
  @%p1 bra DONE;
  add.u32 %r5, %r5, 1;
DONE:
  ld.param.u64 %rd6, [out];
  cvta.to.global.u64 %rd6, %rd6;
  add.s64 %rd7, %rd6, %rd4;
  st.global.u32 [%rd7], %r5;
  ret;
}
"""


def _trace():
    m = ptxvm.loads(DIVERGE)
    out = np.zeros(64, np.uint32)
    tracer = Tracer(m.program, 48, ctas=[1])
    m["diverge"].launch(2, 48, [out], tracer=tracer)
    t = np.arange(48)
    assert np.array_equal(out[:48], np.where(t < 8, t, t + 1))
    return tracer.trace


def test_untraced_launch_has_no_tracer(monkeypatch):
    import ptxvm.engine.launch as launch

    seen = []
    real = launch.run

    def spy(ctx, code, on_stuck):
        seen.append(ctx.tracer)
        return real(ctx, code, on_stuck)

    monkeypatch.setattr(launch, "run", spy)
    ptxvm.loads(DIVERGE)["diverge"].launch(1, 32, [np.zeros(32, np.uint32)])
    assert seen == [None]


def test_only_followed_ctas_and_partial_warps():
    t = _trace()
    cta, widx, lanes = t.warps()
    assert cta.tolist() == [1, 1] and widx.tolist() == [0, 1] and lanes.tolist() == [32, 16]
    first = t.steps[0]
    assert first.active.tolist() == [0xFFFFFFFF, 0xFFFF]


def test_divergent_branch_masks():
    t = _trace()
    add = [s for s in t.steps if t.info(s.pc).opcode == "add" and t.info(s.pc).op_class == "int" and "%r5" in t.info(s.pc).writes]
    assert len(add) == 1
    # lanes 0..7 of warp 0 skipped the add
    assert add[0].active.tolist() == [0xFFFFFF00, 0xFFFF]


def test_addresses_by_space():
    t = _trace()
    by_text = {t.info(s.pc).opcode + "." + t.info(s.pc).mem.space: s for s in t.steps if t.info(s.pc).mem is not None
               and t.info(s.pc).op_class != "uniform"}
    st_shared = by_text["st.shared"]
    assert st_shared.addr[0, :4].tolist() == [RESERVED_SHARED + a for a in (0, 4, 8, 12)]
    generic = by_text["ld.generic"]
    assert generic.space.tolist() == [1, 1]  # generic addresses that fall in the shared window
    assert generic.addr[0, :3].tolist() == [RESERVED_SHARED + a for a in (0, 4, 8)]
    local = by_text["st.local"].addr
    # interleaved: word 1 of consecutive lanes are 4 bytes apart, in the local region
    assert (local[0, 1] - local[0, 0]) == 4 and local[0, 0] >= LOCAL_REGION
    assert by_text["st.global"].addr[0, 1] - by_text["st.global"].addr[0, 0] == 4


def test_instruction_info():
    t = _trace()
    infos = {t.info(s.pc).text: t.info(s.pc) for s in t.steps}
    mov = next(i for txt, i in infos.items() if txt.startswith("mov.u32 %r1"))
    assert mov.sreg and mov.writes == ("%r1",)
    st = next(i for txt, i in infos.items() if txt.startswith("st.shared"))
    assert st.reads == ("%r4", "%r1") and st.mem.store and st.mem.size == 4
