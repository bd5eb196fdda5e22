"""The timing model's sweeps side by side (issue 21 item 4): tools/timing_accuracy.py and
tools/timing_tune.py with --workers print what their serial runs print (wall times aside), on a
few small calibration cases. The Ray variants are in test_ray.py."""
from __future__ import annotations

import contextlib
import io
import multiprocessing as mp
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

pytestmark = pytest.mark.skipif("fork" not in mp.get_all_start_methods(),
                                reason="local sweeps fork; here they would run one after the other")

CASES = "launch_empty,tiny_add_4096,tp_smem_padded_512"  # small ones, of two modules and both splits


def output(main, argv) -> str:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(argv) == 0
    return buf.getvalue()


def without_times(text: str) -> str:
    """The output less what measures this machine: wall and trace seconds."""
    text = re.sub(r"wall [0-9.]+s", "wall", text)
    text = re.sub(r"(traced \S+) +[0-9.]+ s", r"\1", text)
    return re.sub(r"^  \(\d+ s\)$", "", text, flags=re.M)


def test_timing_accuracy_side_by_side_prints_the_serial_output():
    import timing_accuracy

    serial = output(timing_accuracy.main, ["--only", CASES])
    side = output(timing_accuracy.main, ["--only", CASES, "--workers", "2"])
    assert serial.count("measured") == 4 and "cold" in serial  # launch_empty is a prefix of launch_empty_waves too
    assert without_times(side) == without_times(serial)


def test_timing_tune_side_by_side_prints_the_serial_output():
    import timing_tune

    argv = ["--only", CASES, "--rounds", "2", "--params", "kernel_launch,cta_launch,l1_line_cycles"]
    serial = output(timing_tune.main, argv)
    side = output(timing_tune.main, argv + ["--workers", "2"])
    assert "round 0:" in serial and "best: MAPE" in serial  # the search moved, so the replay is exercised
    assert without_times(side) == without_times(serial)


def test_workers_must_be_positive():
    import timing_accuracy

    with pytest.raises(SystemExit):
        timing_accuracy.main(["--only", CASES, "--workers", "0"])
