"""`ptxvm run`: typed scalars, .npy inputs and outputs written back, statistics printed."""
import json
import pathlib

import numpy as np
from click.testing import CliRunner

from ptxvm.cli import main

SAXPY = str(pathlib.Path(__file__).resolve().parents[1] / "examples" / "saxpy.ptx")


def test_run_saxpy_writes_inout_back(tmp_path):
    x = np.arange(1000, dtype=np.float32)
    y = np.ones(1000, dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    r = CliRunner().invoke(main, ["run", SAXPY, "-k", "saxpy", "-g", "4", "-b", "256", "--arg", "s32:1000",
                                  "--arg", "f32:2", "--arg", f"in:{tmp_path / 'x.npy'}",
                                  "--arg", f"inout:{tmp_path / 'y.npy'}", "--json"])
    assert r.exit_code == 0, r.output
    stats = json.loads(r.output.strip().splitlines()[-1])
    assert stats["ctas"] == 4 and stats["thread_instructions"] > 1000
    assert stats["jit_seconds"] >= 0  # compiling fused blocks, reported apart (engine/compiled)
    assert np.array_equal(np.load(tmp_path / "y.npy"), 2 * x + 1)


def test_run_reports_bad_arguments_without_traceback(tmp_path):
    r = CliRunner().invoke(main, ["run", SAXPY, "-k", "saxpy", "--arg", "s32:1"])
    assert r.exit_code == 1
    assert "takes 4 arguments" in r.output
    assert "Traceback" not in r.output
    r = CliRunner().invoke(main, ["run", SAXPY, "-k", "nope"])
    assert r.exit_code == 1 and "no kernel named 'nope'" in r.output


def test_run_reports_limits_without_traceback(tmp_path, monkeypatch):
    snippets = pathlib.Path(__file__).resolve().parent / "check" / "snippets"
    trivial = tmp_path / "trivial.ptx"
    trivial.write_text(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n    ret;\n}\n")
    r = CliRunner().invoke(main, ["run", str(trivial), "-k", "k", "-g", "2147483647,65535,65535", "-b", "1",
                                  "--max-instructions", "50000"])
    assert r.exit_code == 1 and "instruction budget of 50000" in r.output and "Traceback" not in r.output
    r = CliRunner().invoke(main, ["run", str(trivial), "-k", "k", "-g", "1,65536", "-b", "1"])
    assert r.exit_code == 1 and "grid dimension y is 65536" in r.output
    # a module variable beyond the device's budget: located at its declaration (a fresh device reads the variable)
    from ptxvm.engine.core import device

    monkeypatch.setenv("PTXVM_DEVICE_MEMORY", "1G")
    monkeypatch.setattr(device, "_DEFAULT", None)
    r = CliRunner().invoke(main, ["run", str(snippets / "limit_global_40gb_ok.ptx"), "-k", "k", "-g", "1", "-b", "1",
                                  "--arg", f"out:{tmp_path / 'o.npy'}:u64:1"])
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert r.output.startswith(f"{snippets / 'limit_global_40gb_ok.ptx'}:7:22: error: out of memory")


MUL_ADD = """.version 8.0
.target sm_90
.address_size 64
.visible .entry mul_add(.param .u64 pa, .param .u64 pb, .param .u64 pc)
{
  .reg .f32 %a, %b, %c, %p, %r;
  .reg .b64 %x<4>;
  .reg .b32 %i;
  mov.u32 %i, %tid.x;
  mul.wide.u32 %x0, %i, 4;
  ld.param.u64 %x1, [pa];
  add.u64 %x1, %x1, %x0;
  ld.param.u64 %x2, [pb];
  add.u64 %x2, %x2, %x0;
  ld.param.u64 %x3, [pc];
  add.u64 %x3, %x3, %x0;
  ld.global.f32 %a, [%x1];
  ld.global.f32 %b, [%x2];
  ld.global.f32 %c, [%x3];
  mul.f32 %p, %a, %b;
  add.f32 %r, %p, %c;
  st.global.f32 [%x3], %r;
  ret;
}
"""


def test_run_contracts_like_ptxas_unless_told_not_to(tmp_path):
    from ptxvm.semantics.families.floating import fma32_rn

    rng = np.random.default_rng(3)
    a, b, c = (rng.uniform(-4, 4, 256).astype(np.float32) for _ in range(3))
    (tmp_path / "k.ptx").write_text(MUL_ADD)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    results = []
    for flags in ([], ["--no-contract"]):
        np.save(tmp_path / "c.npy", c)
        r = CliRunner().invoke(main, ["run", str(tmp_path / "k.ptx"), "-k", "mul_add", "-g", "1", "-b", "256",
                                      "--arg", f"in:{tmp_path / 'a.npy'}", "--arg", f"in:{tmp_path / 'b.npy'}",
                                      "--arg", f"inout:{tmp_path / 'c.npy'}", *flags])
        assert r.exit_code == 0, r.output
        results.append(np.load(tmp_path / "c.npy"))
    assert np.array_equal(results[0].view(np.uint32), fma32_rn(a, b, c).view(np.uint32))   # one rounding
    assert np.array_equal(results[1].view(np.uint32), (a * b + c).view(np.uint32))         # two


def test_run_cooperative(tmp_path):
    """--cooperative: cooperative groups' grid.sync() works; without it, the kernel traps (as on a GPU)."""
    ptx = str(pathlib.Path(__file__).parent / "engine" / "ptx" / "coop_grid_sync.ptx")
    x, out = tmp_path / "x.npy", tmp_path / "out.npy"
    np.save(x, np.arange(512, dtype=np.int32))
    np.save(out, np.zeros(512, np.int32))
    args = ["run", ptx, "-k", "two_phase", "-g", "4", "-b", "128", "--arg", f"inout:{x}", "--arg", f"inout:{out}"]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 1 and "trap" in r.output
    r = CliRunner().invoke(main, args + ["--cooperative"])
    assert r.exit_code == 0, r.output
    assert np.array_equal(np.load(out), np.roll(np.arange(512, dtype=np.int32) * 2, -1))


def test_every_launching_command_takes_cooperative(tmp_path):
    """sanitize, trace, profile (and debug) launch as run does: a grid.sync kernel works with --cooperative."""
    ptx = str(pathlib.Path(__file__).parent / "engine" / "ptx" / "coop_grid_sync.ptx")
    x, out = tmp_path / "x.npy", tmp_path / "out.npy"
    np.save(x, np.arange(512, dtype=np.int32))
    np.save(out, np.zeros(512, np.int32))
    common = [ptx, "-k", "two_phase", "-g", "4", "-b", "128", "--arg", f"inout:{x}", "--arg", f"inout:{out}",
              "--cooperative"]
    r = CliRunner().invoke(main, ["sanitize", *common])
    assert r.exit_code == 0 and "0 errors" in r.output, r.output
    r = CliRunner().invoke(main, ["trace", *common, "--opcode", "atom"])
    assert r.exit_code == 0 and len(r.output.strip().splitlines()) == 4, r.output
    r = CliRunner().invoke(main, ["profile", *common])
    assert r.exit_code == 0 and "two_phase on h200" in r.output, r.output
