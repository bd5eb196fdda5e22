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
    from ptxvm.engine import device

    monkeypatch.setenv("PTXVM_DEVICE_MEMORY", "1G")
    monkeypatch.setattr(device, "_DEFAULT", None)
    r = CliRunner().invoke(main, ["run", str(snippets / "limit_global_40gb_ok.ptx"), "-k", "k", "-g", "1", "-b", "1",
                                  "--arg", f"out:{tmp_path / 'o.npy'}:u64:1"])
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert r.output.startswith(f"{snippets / 'limit_global_40gb_ok.ptx'}:7:22: error: out of memory")
