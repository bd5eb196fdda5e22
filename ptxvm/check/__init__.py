"""The verifier: rules over the AST that produce compiler-style diagnostics.

    diagnostics = verify(tree, source)     # every problem, in source order; [] for a valid module

What ptxas (CUDA 13.0) rejects, we reject; what it accepts, we accept. The rules, one module per
group:

    targets.py       .version / .target / .address_size, and what features need of them
    names.py         declarations and scopes: undeclared and duplicate names, %r<N>, labels
    instructions.py  spellings against the ISA form table (modifiers, versions, targets), operand
                     counts, operand values ptxas checks (barrier numbers, register counts)
    operands.py      operand kinds, types, sizes, immediates, vectors, predicates, special registers
    spaces.py        state spaces of addresses, read-only parameters, address registers
    calls.py         call targets, prototypes, argument lists
    decls.py         variable declarations, initializers, function headers and directives
    limits.py        state-space size limits (.const 64 KB, static .shared 48 KB, kernel parameters);
                     header directives no H200 launch can honour (warnings)
    walk.py          the single pass that keeps the scopes and applies the rules
    context.py       the module's version/target/address size, where diagnostics go and point

Fidelity: the corpus (tests/corpus), our snippets (tests/check/snippets, each with ptxas's recorded
verdict) and differential runs (tests/check/ptxas_diff.py) agree with ptxas 13.0 on the accepted
modules and on the lines of every error. Speed: instruction checks are memoized on (spelling,
operand shapes), see walk.py; a 36,000-line module verifies in about 60 ms.

Any exception inside a rule becomes an "internal verifier error" diagnostic: bad input never
produces a traceback.
"""
from __future__ import annotations

from ..errors import Diagnostic, Span
from ..syntax.gcpause import paused_gc
from .context import Context


def verify(tree, source: str = "") -> list[Diagnostic]:
    """Every problem in `tree` as a list of Diagnostics (empty when the module is valid)."""
    with paused_gc():  # see syntax/gcpause.py
        return _verify(tree, source)


def _verify(tree, source: str) -> list[Diagnostic]:
    file = getattr(tree, "file", "<string>")
    try:
        ctx = Context(tree, source)
    except Exception as exc:  # noqa: BLE001
        return [Diagnostic(Span(file, 1, 1), f"internal verifier error: {type(exc).__name__}: {exc}")]
    try:
        from . import targets
        from .walk import Walker

        targets.check_module_header(ctx)
        Walker(ctx).run()
    except RecursionError:
        ctx.error(Span(file, 1, 1), "internal verifier error: constructs nested too deeply to verify")
    except Exception as exc:  # noqa: BLE001 - a verifier bug is a diagnostic, never a traceback
        ctx.error(Span(file, 1, 1), f"internal verifier error: {type(exc).__name__}: {exc}")
    try:
        return ctx.finish()
    except Exception as exc:  # noqa: BLE001
        return [Diagnostic(Span(file, 1, 1), f"internal verifier error: {type(exc).__name__}: {exc}")]


__all__ = ["verify"]
