"""tools/device/replay_launches.py: capturing a program's launches for a GPU replay keeps each
parameter's bytes and the arrays as they were before the launch; compare joins measured times
with the model's predictions (the timing step itself needs a GPU and CuPy)."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "device" / "replay_launches.py"

SCRIPT = '''
import numpy as np, ptxvm
src = """.version 8.0
.target sm_90
.address_size 64
.visible .entry scale(.param .u64 x, .param .f32 a, .param .u32 n)
{
    .reg .b64 %rd<4>;
    .reg .b32 %r<4>;
    .reg .f32 %f<3>;
    .reg .pred %p;
    mov.u32 %r1, %tid.x;
    ld.param.u32 %r2, [n];
    setp.ge.u32 %p, %r1, %r2;
    @%p ret;
    ld.param.u64 %rd1, [x];
    cvta.to.global.u64 %rd1, %rd1;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.f32 %f1, [%rd3];
    ld.param.f32 %f2, [a];
    mul.f32 %f1, %f1, %f2;
    st.global.f32 [%rd3], %f1;
    ret;
}
"""
k = ptxvm.loads(src, "scale.ptx").kernel("scale")
x = np.arange(64, dtype=np.float32)
for _ in range(3):  # in place: each launch doubles x; only the first is captured
    k.launch(1, 64, [x, np.float32(2.0), np.uint32(60)])
print("result", x[:3].tolist(), x[63])
'''


def test_capture_keeps_the_launch_as_it_began_and_compare_joins(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(SCRIPT)
    out = tmp_path / "cap"
    run = subprocess.run([sys.executable, str(TOOL), "capture", str(out), str(script)],
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "result [0.0, 8.0, 16.0] 63.0" in run.stdout  # the program ran as it asked, 3 launches
    meta = json.loads((out / "0000.json").read_text())
    assert not (out / "0001.json").exists()
    assert meta["kernel"] == "scale" and meta["grid"] == [1, 1, 1] and meta["block"] == [64, 1, 1]
    assert meta["params"] == [["ptr", "a0"], ["bytes", np.float32(2.0).tobytes().hex()],
                              ["bytes", np.uint32(60).tobytes().hex()]]
    assert meta["predicted"]["cold"] > 0 and meta["predicted"]["warm"] > 0
    data = np.load(out / "0000.npz")
    assert data["a0"].tolist() == list(range(64))  # before the first launch, not after
    assert ".entry scale" in str(data["ptx"])
    results = tmp_path / "measured.json"
    results.write_text(json.dumps({"cases": {"0000": {"kernel": "scale", "cold": meta["predicted"]["cold"] * 2,
                                                       "warm": meta["predicted"]["warm"]}}}))
    cmp = subprocess.run([sys.executable, str(TOOL), "compare", str(out), str(results)],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert cmp.returncode == 0, cmp.stderr
    assert "## cold: 1 launches  MAPE 50.0 %" in cmp.stdout
    assert "## warm: 1 launches  MAPE 0.0 %" in cmp.stdout


COPY_SCRIPT = '''
import numpy as np, ptxvm
src = """.version 8.0
.target sm_90
.address_size 64
.visible .entry copy(.param .u64 dst, .param .u64 src)
{
    .reg .b64 %rd<6>;
    .reg .b32 %r<3>;
    mov.u32 %r1, %tid.x;
    ld.param.u64 %rd1, [dst];
    ld.param.u64 %rd2, [src];
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    add.s64 %rd5, %rd2, %rd3;
    ld.global.u32 %r2, [%rd5];
    st.global.u32 [%rd4], %r2;
    ret;
}
"""
k = ptxvm.loads(src, "copy.ptx").kernel("copy")
dst = ptxvm.to_device(np.zeros(32, np.uint32))
src_ = ptxvm.to_device(np.arange(32, dtype=np.uint32) + 100)
k.launch(1, 32, [dst, src_])
'''


def test_capture_keeps_device_arrays_apart(tmp_path):
    """Device arrays are copied to the host for the capture: keyed by the copy's id, the second
    copy (made after the first was freed) could take the first one's key and both parameters
    pointed at one array."""
    script = tmp_path / "copy_prog.py"
    script.write_text(COPY_SCRIPT)
    out = tmp_path / "cap"
    run = subprocess.run([sys.executable, str(TOOL), "capture", str(out), str(script)],
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr
    meta = json.loads((out / "0000.json").read_text())
    assert meta["params"] == [["ptr", "a0"], ["ptr", "a1"]]
    data = np.load(out / "0000.npz")
    assert data["a0"].tolist() == [0] * 32 and data["a1"].tolist() == list(range(100, 132))


def test_capture_takes_the_programs_launches_not_the_profiles(tmp_path):
    """Each capture runs the model's profile, which launches the kernel itself: with several
    launches per kernel allowed, those nested launches were captured as the program's."""
    script = tmp_path / "prog.py"
    script.write_text(SCRIPT)
    out = tmp_path / "cap"
    run = subprocess.run([sys.executable, str(TOOL), "capture", str(out), "--per-kernel", "3", str(script)],
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr
    assert sorted(p.name for p in out.glob("*.json")) == ["0000.json", "0001.json", "0002.json"]
    firsts = [np.load(out / f"000{i}.npz")["a0"][1] for i in range(3)]
    assert firsts == [1.0, 2.0, 4.0]  # x before each of the program's three launches


def test_capture_leaves_the_programs_device_arrays_alone(tmp_path):
    """The predictions run the kernel: on the program's own device arrays they doubled x twice
    more before the program's launch doubled it (an in-place kernel's result came out 8x)."""
    script = tmp_path / "prog_dev.py"
    script.write_text(SCRIPT.replace("x = np.arange(64, dtype=np.float32)", "x = ptxvm.to_device(np.arange(64, dtype=np.float32))")
                      .replace("for _ in range(3):", "for _ in range(1):")
                      .replace('print("result", x[:3].tolist(), x[63])', 'h = x.copy_to_host(); print("result", h[:3].tolist(), h[63])'))
    out = tmp_path / "cap"
    run = subprocess.run([sys.executable, str(TOOL), "capture", str(out), str(script)],
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "result [0.0, 2.0, 4.0] 63.0" in run.stdout
    assert np.load(out / "0000.npz")["a0"][:3].tolist() == [0.0, 1.0, 2.0]
