"""PTX ISA 9.1-9.5: the forms an H200 runs replay its goldens bit for bit (family isa9x, recorded from
ptxas 13.5 cubins); forms for later GPUs load but fault, naming the form and the target, where a
kernel reaches them; .local_maxnreg loads."""
import numpy as np
import pytest

import ptxvm
from ptxvm.conformance import check as C
from ptxvm.conformance import golden as G
from ptxvm.numerics import mufu
from ptxvm.semantics.families.integer import clmul64


def test_isa9x_goldens_replay_bit_exact():
    directory = G.default_dir()
    if "isa9x" not in G.families_present(directory):
        pytest.skip("no isa9x goldens (tools/device/build_cubins.py + record.py --cubins on a GPU)")
    results = C.check(directory, "full", families=["isa9x"])
    by = {}
    for r in results:
        by.setdefault(r.status, []).append(r.id)
    assert set(by) == {"verified", "unsupported_sm90"}, {k: v[:3] for k, v in by.items()}
    assert len(by["verified"]) == 33 and all(i.startswith("cvt.rn.bf16x2") for i in by["unsupported_sm90"])


def test_clmul_small_products():
    # (x + 1)(x + 1) = x^2 + 1 over GF(2); x^63 * x = x^64 lands in the high half
    lo, hi = clmul64(np.array([3, 1 << 63], np.uint64), np.array([3, 2], np.uint64))
    assert lo.tolist() == [5, 0] and hi.tolist() == [0, 1]
    lo, hi = clmul64(np.array([2**64 - 1], np.uint64), np.array([2**64 - 1], np.uint64))
    # (sum of x^i, i < 64)^2 = sum of x^(2i): every even bit
    assert int(lo[0]) == 0x5555555555555555 and int(hi[0]) == 0x5555555555555555


def test_sin_2pi_is_the_radian_table_in_turns():
    quarter = np.array([np.float32(0.25).view(np.uint32), np.float32(0.5).view(np.uint32), 1], np.uint32)
    s = mufu.F32_UNARY["sin.approx.ftz.2pi.f32"](quarter).view(np.float32)
    assert s[0] == 1.0 and abs(s[1]) < 1e-6 and s[2] == 0.0   # a subnormal argument reads as zero


PROGRAM = """.version 9.5
.target {target}
.address_size 64
.visible .entry k(.param .u64 p)
{{
  .reg .b16 %h;
  .reg .b32 %r<3>;
  .reg .b64 %rd<3>;
  .shared .align 8 .b64 bar;
  .reg .pred %q;
  ld.param.u64 %rd1, [p];
  mov.b16 %h, 0x3c3c;
  {instr}
  st.global.u32 [%rd1], %r1;
  ret;
}}
"""


@pytest.mark.parametrize("target, instr, message", [
    ("sm_100a", "cvt.rn.bf16x2.e5m2x2 %r1, %h;", r"cvt\.rn\.bf16x2\.e5m2x2 needs \.target sm_100f or a later target "
                                                  r"of its family: ptxvm runs kernels as an H200 \(sm_90a\)"),
    ("sm_100a", "mov.u32 %r1, %locality_domain_id;", r"special register %locality_domain_id needs sm_100"),
    ("sm_90", "mbarrier.init.layout::v1.shared::cta.b64 [bar], 1;", r"init\.layout::v1, mbarrier\.check_layout\) are not modelled"),
    ("sm_90", "mbarrier.check_layout.layout::v0.shared::cta.b64 %q, [bar];", r"check_layout\) are not modelled"),
])
def test_forms_beyond_the_h200_fault_by_name(target, instr, message):
    k = ptxvm.loads(PROGRAM.format(target=target, instr=instr))["k"]   # it loads: only running it is refused
    out = np.zeros(1, np.uint32)
    with pytest.raises(ptxvm.KernelFault, match=message):
        k.launch(1, 1, [out])
    assert out[0] == 0


def test_per_cta_memory_registers_are_refused_by_name():
    k = ptxvm.loads(""".version 9.4
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p) .minperctamemory 256
{
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [p];
  mov.u64 %rd2, %perctamemoryoffset;
  st.global.u64 [%rd1], %rd2;
  ret;
}
""")["k"]
    with pytest.raises(ptxvm.KernelFault, match="special register %perctamemoryoffset is not modelled"):
        k.launch(1, 1, [np.zeros(1, np.uint64)])


def test_local_maxnreg_loads_and_runs():
    k = ptxvm.loads(""".version 9.0
.target sm_90
.address_size 64
.func f(.param .b64 a) .local_maxnreg 32
{
  .reg .b64 %p;
  ld.param.b64 %p, [a];
  st.global.u32 [%p], 42;
  ret;
}
.visible .entry k(.param .u64 p) .local_maxnreg 64
{
  .reg .b64 %rd;
  ld.param.u64 %rd, [p];
  st.global.u32 [%rd], 42;
  ret;
}
""")["k"]
    out = np.zeros(1, np.uint32)
    k.launch(1, 1, [out])
    assert out[0] == 42


@pytest.mark.parametrize("golden", ["tensormap_alloc_class.npz", "tensormap_alloc_class_ones.npz"])
def test_tensormap_alloc_class_as_the_h200(golden):
    """tensormap.replace .alloc_large/.alloc_small/.alloc_same and tensormap.query.alloc_class_large
    (PTX 9.5) on ten maps, against the H200 (tools/device/tensormap_alloc_probe.py): the class is bit
    21 of the word at byte 8; the global-address forms write the whole address too."""
    import os
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    z = np.load(os.path.join(root, "tests", "goldens", "tma", golden))
    with open(os.path.join(root, "tests", "engine", "ptx", "tensormap_alloc_class.ptx")) as f:
        k = ptxvm.loads(f.read())["k"]
    maps, preds = z["before"].copy(), np.zeros(10, np.uint32)
    k.launch(1, 1, [maps, preds, np.uint64(0x7F1234567800)])
    assert np.array_equal(preds, z["preds"])
    assert np.array_equal(maps, z["after"])


def test_ignore_oob_copies_the_middle_when_an_end_is_out_of_bounds():
    """cp.async.bulk .ignore_oob: in bounds the H200 copies every byte (isa9x goldens); with the right
    end past the source allocation the middle still arrives, the ignored bytes stay, and no fault."""
    k = ptxvm.loads(""".version 9.2
.target sm_90
.address_size 64
.visible .entry k(.param .u64 src, .param .u64 out)
{
  .reg .b64 %rd<4>;
  .reg .b32 %r<8>;
  .reg .pred %p;
  .shared .align 16 .b8 buf[16];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [src];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, buf;
  mov.u32 %r2, 0x55555555;
  st.shared.v4.u32 [%r1], {%r2, %r2, %r2, %r2};
  mbarrier.init.shared::cta.b64 [bar], 1;
  fence.proxy.async.shared::cta;
  mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [bar], 16;
  cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes.ignore_oob [%r1], [%rd1], 16, 0, 8, [bar];
$L_w:
  mbarrier.try_wait.parity.shared::cta.b64 %p, [bar], 0;
  @!%p bra $L_w;
  ld.shared.v4.u32 {%r3, %r4, %r5, %r6}, [%r1];
  st.global.v4.u32 [%rd2], {%r3, %r4, %r5, %r6};
  ret;
}
""")["k"]
    src = np.array([0x11111111, 0x22222222], np.uint32)   # 8 bytes: the right 8 lie past it
    out = np.zeros(4, np.uint32)
    k.launch(1, 1, [src, out])
    assert out[:2].tolist() == [0x11111111, 0x22222222]   # (words 2-3: padding or the old bytes)
