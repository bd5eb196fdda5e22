"""st.async / red.async / bulk copies into shared::cluster stop with an illegal instruction on the
H200 in a launch without cluster dimensions (docs/hardware-notes.md); with a cluster they run."""
import numpy as np
import pytest

import ptxvm

BODY = """
.visible .entry k(.param .u64 out) {DIRECTIVE}
{
  .shared .align 8 .b8 mb[8];
  .shared .align 4 .b32 slot[1];
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>, %st;
  .reg .pred %p;
  mov.u32 %r0, mb;
  mov.u32 %r1, slot;
  mbarrier.init.shared::cta.b64 [%r0], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 %st, [%r0], 4;
  mapa.shared::cluster.u32 %r2, %r1, 0;
  mapa.shared::cluster.u32 %r3, %r0, 0;
  st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%r2], 42, [%r3];
$L_w:
  mbarrier.try_wait.parity.shared::cta.b64 %p, [%r0], 0;
  @!%p bra $L_w;
  ld.shared.u32 %r2, [%r1];
  ld.param.u64 %rd0, [out];
  cvta.to.global.u64 %rd0, %rd0;
  st.global.u32 [%rd0], %r2;
  ret;
}
"""
HEAD = ".version 8.1\n.target sm_90\n.address_size 64\n"


def test_st_async_without_cluster_faults():
    mod = ptxvm.loads(HEAD + BODY.replace("{DIRECTIVE}", ""))
    out = np.zeros(1, np.uint32)
    with pytest.raises(ptxvm.KernelFault, match="cluster dimensions"):
        mod["k"].launch(1, 1, [out])
    assert out[0] == 0


@pytest.mark.parametrize("directive, cluster", [(".reqnctapercluster 1, 1, 1", None), ("", (1, 1, 1))])
def test_st_async_in_a_cluster_runs(directive, cluster):
    mod = ptxvm.loads(HEAD + BODY.replace("{DIRECTIVE}", directive))
    out = np.zeros(1, np.uint32)
    mod["k"].launch(1, 1, [out], cluster=cluster)
    assert out[0] == 42
