"""The verifier: rules over the AST that produce compiler-style diagnostics."""
from __future__ import annotations


def verify(tree, source: str = ""):
    """Every problem in `tree` as a list of Diagnostics (empty when the module is valid)."""
    return []
