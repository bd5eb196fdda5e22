"""Profile's interface: fields, report, JSON, roofline SVG, the CLI, sampled runs, bad input."""
import json

import numpy as np
import pytest
from click.testing import CliRunner

import ptxvm
from ptxvm.cli import main
from ptxvm.timing import Profile

from .ptx_cases import HEADER, STRIDED, load

SAXPY = HEADER + """
.visible .entry saxpy(.param .u32 n, .param .f32 a, .param .u64 x, .param .u64 y)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<5>;
  .reg .b64 %rd<8>;
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  ld.param.f32 %f1, [a];
  ld.param.u64 %rd1, [x];
  cvta.to.global.u64 %rd2, %rd1;
  ld.param.u64 %rd3, [y];
  cvta.to.global.u64 %rd4, %rd3;
  mul.wide.u32 %rd5, %r5, 4;
  add.s64 %rd6, %rd2, %rd5;
  add.s64 %rd7, %rd4, %rd5;
  ld.global.f32 %f2, [%rd6];
  ld.global.f32 %f3, [%rd7];
  fma.rn.f32 %f4, %f1, %f2, %f3;
  st.global.f32 [%rd7], %f4;
DONE:
  ret;
}
"""


def _saxpy(n=1 << 16, **kw):
    x = np.arange(n, dtype=np.float32)
    y = np.ones(n, np.float32)
    prof = ptxvm.loads(SAXPY)["saxpy"].profile((n + 255) // 256, 256, [np.uint32(n), np.float32(2), x, y], **kw)
    return prof, x, y


def test_profile_fields_and_results():
    prof, x, y = _saxpy()
    assert isinstance(prof, Profile)
    assert np.array_equal(y, 2 * x + 1)  # the kernel really ran
    assert prof.cycles > 0 and prof.seconds == pytest.approx(prof.cycles / 1.98e9, rel=0.05)
    # thread_instructions counts lanes whose guard holds (the engine also counts predicated-off lanes)
    assert prof.thread_instructions == prof.executed_thread_instructions - (1 << 16)
    assert prof.instruction_mix["lsu"] == 3 * (1 << 16) // 32
    assert prof.flops == {"fp32": 2.0 * (1 << 16)}
    assert prof.sectors_per_request == 4
    # by default the L2 holds what the previous identical launch left (all of it fits): only the
    # write-back of y reaches DRAM; with a cold L2, x and y are read too
    assert prof.dram_bytes == 4 * (1 << 16)
    cold, _, _ = _saxpy(warm_l2=False)
    assert cold.dram_bytes >= 3 * 4 * (1 << 16)
    assert cold.cache_hit_rates["l2"] < prof.cache_hit_rates["l2"]
    assert set(prof.stalls) >= {"selected", "memory_dependency", "not_selected", "pipe_busy"}
    assert prof.stalls["memory_dependency"] > prof.stalls["selected"]
    assert 0 < prof.achieved_occupancy <= prof.theoretical_occupancy


def test_report_json_and_roofline(tmp_path):
    prof, _, _ = _saxpy()
    text = prof.report()
    assert "saxpy on h200" in text and "memory_dependency" in text and "occupancy" in text
    data = json.loads(prof.to_json())
    assert data["cycles"] == prof.cycles and data["stalls"]["selected"] > 0
    svg = tmp_path / "r.svg"
    prof.roofline(svg)
    body = svg.read_text()
    assert body.startswith("<svg") and "saxpy" in body and "TFLOP/s" in body


def test_png_roofline_needs_matplotlib(tmp_path):
    prof, _, _ = _saxpy(1 << 12)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        with pytest.raises(RuntimeError, match="matplotlib"):
            prof.roofline(tmp_path / "r.png")
    else:
        prof.roofline(tmp_path / "r.png")
        assert (tmp_path / "r.png").stat().st_size > 0


def test_sampled_runs_only_the_simulated_ctas_and_predicts_the_same():
    # without the whole grid's footprint (which only a full run records) both see the same model
    # (under the same convention: both after an L2 flush)
    full, _, _ = _saxpy(1 << 18, l2_sharing=False, warm_l2=False)
    sampled, _, y = _saxpy(1 << 18, functional="sampled", warm_l2=False)
    assert sampled.cycles == full.cycles
    assert sampled.executed_thread_instructions < full.executed_thread_instructions / 50
    assert not np.all(y != 1)  # CTAs that were not run left their part of y alone


def test_more_ctas_more_waves_more_time():
    one, _, _ = _saxpy(132 * 256 * 8, functional="sampled")
    two, _, _ = _saxpy(132 * 256 * 16, functional="sampled")
    assert two.waves == pytest.approx(2 * one.waves)
    assert 1.5 < two.sm_cycles / one.sm_cycles < 2.5


def test_h100_and_h200_differ_in_dram_bandwidth():
    h200, _, _ = _saxpy(1 << 20, gpu="h200", functional="sampled")
    h100, _, _ = _saxpy(1 << 20, gpu="h100", functional="sampled")
    assert h100.gpu == "h100" and h100.seconds > h200.seconds


def test_unknown_gpu_and_bad_mode():
    with pytest.raises(ValueError, match="unknown GPU"):
        _saxpy(256, gpu="rtx9999")
    with pytest.raises(ValueError, match="functional"):
        _saxpy(256, functional="some")


def test_cli_profile(tmp_path):
    n = 4096
    np.save(tmp_path / "x.npy", np.arange(n, dtype=np.float32))
    np.save(tmp_path / "y.npy", np.ones(n, np.float32))
    ptx = tmp_path / "saxpy.ptx"
    ptx.write_text(SAXPY)
    args = ["profile", str(ptx), "-k", "saxpy", "-g", "16", "-b", "256", "-a", f"u32:{n}", "-a", "f32:2",
            "-a", f"in:{tmp_path / 'x.npy'}", "-a", f"inout:{tmp_path / 'y.npy'}"]
    r = CliRunner().invoke(main, args + ["--json", "--roofline", str(tmp_path / "r.svg")])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert data["kernel"] == "saxpy" and data["cycles"] > 0
    assert (tmp_path / "r.svg").read_text().startswith("<svg")
    assert np.array_equal(np.load(tmp_path / "y.npy"), 2 * np.arange(n, dtype=np.float32) + 1)
    r = CliRunner().invoke(main, args + ["--gpu", "nope"])
    assert r.exit_code == 1 and "unknown GPU" in r.output
    r = CliRunner().invoke(main, ["profile", str(ptx), "-k", "saxpy", "-g", "1", "-b", "32", "--policy", "lrr",
                                  "-a", "u32:0", "-a", "f32:1", "-a", f"in:{tmp_path / 'x.npy'}", "-a",
                                  f"in:{tmp_path / 'y.npy'}"])
    assert r.exit_code == 0 and "policy lrr" in r.output
