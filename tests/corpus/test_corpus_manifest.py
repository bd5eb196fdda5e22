"""Integrity of the PTX corpus: MANIFEST.json against the files, and the
recorded ptxas verdicts of the invalid/valid snippets."""
import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from ptxvm import toolchain

HERE = Path(__file__).resolve().parent
PTX = HERE / "ptx"


def test_manifest_matches_files():
    m = json.loads((PTX / "MANIFEST.json").read_text())
    listed = {f["ptx"] for f in m["files"]}
    on_disk = {p.name for p in PTX.glob("*.ptx")}
    assert listed == on_disk
    for f in m["files"]:
        data = (PTX / f["ptx"]).read_bytes()
        assert data.count(b"\n") == f["lines"], f["ptx"]
        assert hashlib.sha256(data).hexdigest() == f["sha256"], f["ptx"]
        assert (HERE / f["source"]).exists()
        assert f.get("ptxas_ok", True), f["ptx"]
    assert m["total_files"] == len(m["files"])
    assert sum(f["lines"] > 20_000 for f in m["files"]) >= 2


@pytest.mark.parametrize("kind,accepted", [("invalid", False), ("valid", True)])
def test_verdicts_recorded(kind, accepted):
    d = HERE / kind
    v = json.loads((d / "VERDICTS.json").read_text())["verdicts"]
    assert set(v) == {p.name for p in d.glob("*.ptx")}
    for name, r in v.items():
        assert r["accepted"] is accepted, name
        assert (r["returncode"] == 0) is accepted, name
        if not accepted:
            assert r["messages"], name


@pytest.mark.skipif(toolchain.find("ptxas", toolkit_first=True) is None, reason="ptxas not installed")
@pytest.mark.parametrize("kind", ["invalid", "valid"])
def test_verdicts_still_hold(kind):
    """ptxas (if present) still agrees with the recorded accept/reject verdicts."""
    d = HERE / kind
    v = json.loads((d / "VERDICTS.json").read_text())["verdicts"]
    for name, r in sorted(v.items()):
        p = subprocess.run([toolchain.find("ptxas", toolkit_first=True), f"-arch={r['arch']}", name, "-o", "/dev/null"],
                           cwd=d, capture_output=True, text=True)
        assert (p.returncode == 0) == r["accepted"], (name, p.stderr[-400:])
