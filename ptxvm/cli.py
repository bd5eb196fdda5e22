"""The `ptxvm` command.

    ptxvm check kernel.ptx other.ptx      # every diagnostic, compiler style; exit 1 on any error
    ptxvm check --json kernel.ptx         # the same as one JSON object, for tools

`main` is a click group: commands are added below with `@main.command()`, each in its own section.
Bad input never produces a Python traceback: unreadable files, syntax errors and verifier problems
are diagnostics, and anything unexpected is reported as an internal error diagnostic.
"""
from __future__ import annotations

import json
import sys
from typing import Optional

import click

from .errors import Diagnostic, PtxError, Span

EXIT_OK = 0
EXIT_ERRORS = 1


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="ptxvm", prog_name="ptxvm", message="%(prog)s %(version)s")
def main() -> None:
    """ptxvm: NVIDIA's PTX ISA as a virtual GPU (parse, verify and run PTX on the CPU)."""


# =========================================================================== check


def check_text(text: str, name: str) -> list[Diagnostic]:
    """Every diagnostic for PTX `text` (syntax errors, else verifier diagnostics), never raising."""
    from .errors import PtxError

    try:
        from .check import verify
        from .frontend import parse

        try:
            tree = parse(text, name)
        except PtxError as exc:
            return list(exc.diagnostics)
        return verify(tree, text)
    except Exception as exc:  # noqa: BLE001 - never a traceback for bad input
        return [Diagnostic(Span(name, 1, 1), f"internal error: {type(exc).__name__}: {exc}")]


def link_diagnostics(texts: list[tuple[str, str]]) -> list[Diagnostic]:
    """What linking the (text, name) modules into one program reports (they verified cleanly):
    link errors with notes, and warnings for .extern names no module defines. Never raises."""
    from .errors import PtxError

    try:
        from .frontend import parse
        from .linker import link_trees

        return link_trees([(parse(text, name), text) for text, name in texts]).warnings
    except PtxError as exc:
        return list(exc.diagnostics)
    except Exception as exc:  # noqa: BLE001 - never a traceback for bad input
        return [Diagnostic(Span(texts[0][1], 1, 1), f"internal linker error: {type(exc).__name__}: {exc}")]


def _read(path: str) -> tuple[Optional[str], Optional[Diagnostic]]:
    try:
        if path == "-":
            return sys.stdin.read(), None
        from .frontend import read_source

        return read_source(path), None
    except PtxError as exc:  # binary data, not PTX text
        return None, exc.diagnostics[0]
    except OSError as exc:
        reason = exc.strerror or str(exc)
        return None, Diagnostic(Span(path, 1, 1), f"cannot read file: {reason}")


def _style(d: Diagnostic) -> str:
    text = d.format()
    head, sep, rest = text.partition("\n")
    colour = {"error": "red", "warning": "magenta", "note": "cyan"}.get(d.severity, "white")
    tag = f": {d.severity}: "
    if tag in head:
        where, _, message = head.partition(tag)
        head = (click.style(where, bold=True) + ": " + click.style(f"{d.severity}:", fg=colour, bold=True)
                + " " + message)
    if sep:
        lines = rest.split("\n")
        if len(lines) == 2:
            lines[1] = click.style(lines[1], fg="green", bold=True)
        rest = "\n".join(lines)
    return head + sep + rest


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (files, diagnostics, counts).")
@click.option("--no-warnings", "-w", is_flag=True, help="Do not print warnings.")
@click.option("--quiet", "-q", is_flag=True, help="Print diagnostics only, no summary line.")
@click.option("--separate", is_flag=True, help="Check each file on its own; do not link them into one program.")
def check(files: tuple[str, ...], as_json: bool, no_warnings: bool, quiet: bool, separate: bool) -> None:
    """Parse and verify PTX FILES; print every problem, compiler style.

    Unless --separate, the files are then linked into one program as cuLink links relocatable code
    (`nvcc -rdc=true`), and what the link finds is reported too: duplicate or mismatched
    definitions (errors), .extern names that no file defines (warnings).

    Exit status: 0 when no file has an error (warnings allowed), 1 otherwise.
    """
    results = []
    total_errors = total_warnings = 0
    checked = []
    for path in files:
        text, problem = _read(path)
        name = "<stdin>" if path == "-" else path
        diagnostics = [problem] if problem is not None else check_text(text, name)
        checked.append((name, text, diagnostics))
    if not separate and all(t is not None and not any(d.severity == "error" for d in ds) for _, t, ds in checked):
        by_name = {name: ds for name, _, ds in checked}
        owner = checked[0][0]
        for d in link_diagnostics([(t, name) for name, t, _ in checked]):
            if d.severity != "note":  # a note stays with the diagnostic it explains
                owner = d.span.file if d.span.file in by_name else owner
            by_name[owner].append(d)
    for name, text, diagnostics in checked:
        if no_warnings:
            diagnostics = [d for d in diagnostics if d.severity == "error"]
        errors = sum(1 for d in diagnostics if d.severity == "error")
        warnings = sum(1 for d in diagnostics if d.severity == "warning")
        total_errors += errors
        total_warnings += warnings
        results.append((name, diagnostics, errors, warnings))
    if as_json:
        payload = {
            "ok": total_errors == 0,
            "errors": total_errors,
            "warnings": total_warnings,
            "files": [
                {
                    "file": name,
                    "ok": errors == 0,
                    "errors": errors,
                    "warnings": warnings,
                    "diagnostics": [dict(d.to_json(), length=d.span.length) for d in diagnostics],
                }
                for name, diagnostics, errors, warnings in results
            ],
        }
        click.echo(json.dumps(payload, indent=2))
    else:
        for name, diagnostics, errors, warnings in results:
            for d in diagnostics:
                click.echo(_style(d))
        if not quiet:
            parts = []
            if total_errors:
                parts.append(f"{total_errors} error{'s' * (total_errors != 1)}")
            if total_warnings:
                parts.append(f"{total_warnings} warning{'s' * (total_warnings != 1)}")
            checked = f"{len(files)} file{'s' * (len(files) != 1)}"
            summary = ", ".join(parts) if parts else "no problems"
            click.echo(f"{checked} checked: {summary}", err=True)
    sys.exit(EXIT_ERRORS if total_errors else EXIT_OK)


# =========================================================================== run
# The engine's command (`ptxvm run ...`) lives in its own module; importing it registers the
# command on `main`. `check_text` above gives the diagnostics of a module if it needs them.
from . import cli_run  # noqa: E402,F401
from . import cli_profile  # noqa: E402,F401  (`ptxvm profile`)
from . import cli_sanitize  # noqa: E402,F401  (`ptxvm sanitize`)
from . import cli_trace  # noqa: E402,F401  (`ptxvm trace`)
from . import cli_debug  # noqa: E402,F401  (`ptxvm debug`)

if __name__ == "__main__":  # pragma: no cover
    # `python -m ptxvm.cli`: run the group of the imported module, on which cli_run registered `run`
    from ptxvm.cli import main as _main

    _main()
