import sys
from pathlib import Path

_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)
_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import pytest  # noqa: E402

from ptxvm.numerics import nans  # noqa: E402


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "sm90_nans: run with the measured sm_90 NaN policy instead of canonical NaNs")


@pytest.fixture(autouse=True)
def _nan_policy(request, monkeypatch):
    """The Fraction reference knows only canonical NaNs; hardware NaN rules
    are tested separately (marker sm90_nans)."""
    policy = nans.NanPolicy.SM90 if "sm90_nans" in request.keywords else nans.NanPolicy.CANONICAL
    monkeypatch.setattr(nans, "NAN_POLICY", policy)
