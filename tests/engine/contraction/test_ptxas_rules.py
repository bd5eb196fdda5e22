"""engine/contraction.py fuses exactly what ptxas fuses, over the probe patterns of
tools/ptxas_contraction_probe.py.

ptxas_fusions.json is ptxas 13.0's answer for every pattern (recorded with
`python tools/ptxas_contraction_probe.py --record tests/engine/contraction/ptxas_fusions.json`):
how many adds it contracted, and whether a fused product was the a*a one (which of two products
it picks). The first test needs no tools; the second asks ptxas again (skipped without ptxas and
cuobjdump; a few patterns by default, all of them with PTXVM_SLOW=1)."""
import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tools"))
import ptxas_contraction_probe as probe  # noqa: E402

RECORDED = json.loads((Path(__file__).parent / "ptxas_fusions.json").read_text())["patterns"]
PATTERNS = {p.name: p for p in probe.patterns()}
QUICK = ["f64/two_products_sq_second_def_first", "f32/mul_two_uses_store", "f32/div_full_add",
         "f16x2/mul_sub"]


def test_every_pattern_is_recorded():
    assert sorted(RECORDED) == sorted(PATTERNS)


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_model_fuses_what_ptxas_fused(name):
    assert probe.model_fusions(PATTERNS[name]) == RECORDED[name]


_PTXAS, _CUOBJDUMP = probe.find_tools()


@pytest.mark.skipif(not (_PTXAS and _CUOBJDUMP), reason="needs ptxas and cuobjdump (CUDA toolkit)")
@pytest.mark.parametrize("name", sorted(PATTERNS) if os.environ.get("PTXVM_SLOW") else QUICK)
def test_ptxas_still_fuses_as_recorded(name):
    assert probe.ptxas_fusions(PATTERNS[name], _PTXAS, _CUOBJDUMP) == RECORDED[name]
