"""The fixed calibration / validation split of the timing suite (issue 20). Every tool that fits,
tunes or reports the timing model takes the split from here.

The rule, by FAMILY (so that size and input variants of a validation kernel never reach the
calibration set):
  - the 36 cases of kernels/suite.py's original suite (module "suite") are calibration: the model
    was tuned on them before the split existed;
  - any other family is validation when int(sha1(family name, UTF-8), 16) % 3 == 0, else calibration.
Validation cases may be measured and reported, never fitted on nor used to choose mechanisms.
The rule was fixed before any validation case was measured; don't change it to move a family.
"""
from __future__ import annotations

import hashlib

CALIBRATION = "calibration"
VALIDATION = "validation"


def split_of_family(family: str, legacy: bool = False) -> str:
    if legacy:
        return CALIBRATION
    return VALIDATION if int(hashlib.sha1(family.encode()).hexdigest(), 16) % 3 == 0 else CALIBRATION


def split_of(case) -> str:
    """The split of a suite Case (kernels/suite.py): by its family; the original suite is calibration."""
    return split_of_family(case.family or case.kernel, legacy=getattr(case, "module", "suite") == "suite")


def calibration_cases(cases) -> list:
    return [c for c in cases if split_of(c) == CALIBRATION]


def validation_cases(cases) -> list:
    return [c for c in cases if split_of(c) == VALIDATION]
