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
