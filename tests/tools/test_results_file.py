"""tools/device/results_file.py: the timing recorders' results JSON (each item saved as it ends)."""
import importlib
import json
import sys
from pathlib import Path

import pytest

DEVICE_TOOLS = Path(__file__).resolve().parents[2] / "tools" / "device"


@pytest.fixture(scope="module")
def results_file():
    sys.path.insert(0, str(DEVICE_TOOLS))
    try:
        yield importlib.import_module("results_file")
    finally:
        sys.path.remove(str(DEVICE_TOOLS))


def test_items_are_saved_as_they_end_and_errors_recorded(results_file, tmp_path):
    path = str(tmp_path / "r.json")
    rf = results_file.ResultsFile(path, results_file.device_info(
        {"name": b"NVIDIA H200", "multiProcessorCount": 132, "clockRate": 1980000, "l2CacheSize": 62914560}), dyn=1)
    rf.item("ok", lambda: {"cycles": 12.5})
    saved = json.loads(Path(path).read_text())
    assert saved["device"]["name"] == "NVIDIA H200" and saved["dyn"] == 1
    assert saved["items"]["ok"] == {"cycles": 12.5}
    rf.item("bad", lambda: 1 / 0)
    rf.item("skipped", lambda: 1, only=["ok"])
    saved = json.loads(Path(path).read_text())
    assert "ZeroDivisionError" in saved["items"]["bad"]["error"]
    assert "skipped" not in saved["items"] and "bad_seconds" in saved["items"]


@pytest.mark.parametrize("name", ["timing_async", "timing_cluster", "timing_wmma"])
def test_recorders_import_without_a_gpu(results_file, name):
    sys.path.insert(0, str(DEVICE_TOOLS))
    try:
        assert callable(importlib.import_module(name).main)
    finally:
        sys.path.remove(str(DEVICE_TOOLS))
