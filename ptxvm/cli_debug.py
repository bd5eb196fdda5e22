"""`ptxvm debug`: the debugger's command line (ptxvm/tools/debugger, docs/debugger.md).

    ptxvm debug k.ptx -k kern -g 2 -b 64 -a out:o.npy:f32:128 -a in:x.npy
    (ptxvm) break k.cu:12 if %r5 > 3
    (ptxvm) run
    (ptxvm) print -warp %f2

Arguments are those of `ptxvm run`. Commands come from the terminal (line editing and history
through prompt_toolkit when it is installed, else the stdlib's readline) or, when stdin is not a
terminal, one per line from stdin (`ptxvm debug ... < cmds.txt`); each scripted command is echoed
after the prompt. `-x FILE` runs FILE's commands first. At the end of input a launch still stopped
is killed. `out:`/`inout:` arrays are written back only when the launch ran to its end.

Exit status: 0; 1 when the file or the launch's arguments are bad, the launch faulted, or the
sanitizer (--sanitize) found errors.
"""
from __future__ import annotations

import os
import sys

import click

from .cli import main
from .cli_options import launch_options

PROMPT = "(ptxvm) "


def _lines(interactive: bool):
    """Command lines from the user: prompt_toolkit or input() at a terminal, else stdin."""
    if not interactive:
        for line in sys.stdin:
            line = line.rstrip("\n")
            click.echo(PROMPT + line)
            yield line
        return
    yield from prompted(reader())


def reader(**session_options):
    """A function that reads one line at the prompt: prompt_toolkit's (line editing, history in
    ~/.ptxvm_debug_history) when it is installed, else input() with the stdlib's readline."""
    try:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory, InMemoryHistory
    except ImportError:
        try:
            import readline  # noqa: F401  (line editing and history for input())
        except ImportError:
            pass
        return lambda: input(PROMPT)
    try:
        history = FileHistory(os.path.expanduser("~/.ptxvm_debug_history"))
    except OSError:
        history = InMemoryHistory()
    session = PromptSession(history=session_options.pop("history", history), **session_options)
    return lambda: session.prompt(PROMPT)


def prompted(read):
    """Lines from `read()` until end of input; Ctrl-C abandons the line; an empty line repeats the
    last command, as in gdb."""
    previous = ""
    while True:
        try:
            line = read()
        except EOFError:
            return
        except KeyboardInterrupt:
            continue
        if not line.strip():
            line = previous
        previous = line
        yield line


@main.command()
@launch_options()
@click.option("--sanitize", "tool", type=click.Choice(["memcheck", "racecheck", "initcheck", "synccheck"]), default=None,
              help="Run under this sanitizer checker and stop at each error it reports.")
@click.option("--command", "-x", "command_file", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Run the commands of this file first.")
def debug(files, kernel, grid, block, shared, args, max_instructions, cluster, cooperative, tool, command_file):
    """Debug KERNEL of the PTX FILES (several are linked) with cuda-gdb-style commands (type help)."""
    import numpy as np

    import ptxvm
    from .cli_run import _dims, parse_arg
    from .tools.debugger import Debugger, DebuggerError
    from .tools.debugger.commands import Commands

    try:
        values, back = zip(*[parse_arg(a) for a in args]) if args else ((), ())
        k = ptxvm.load(files[0] if len(files) == 1 else list(files)).kernel(kernel)
        dbg = Debugger(k, _dims(grid), _dims(block), list(values), shared_mem=shared,
                       cluster=_dims(cluster) if cluster else None, max_instructions=max_instructions, sanitize=tool,
                       cooperative=cooperative)
    except ptxvm.PtxError as e:
        click.echo(e.listing(), err=True)
        sys.exit(1)
    except (ptxvm.LaunchError, KeyError, ValueError, DebuggerError) as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(1)
    except Exception as e:  # noqa: BLE001 - never a traceback
        click.echo(f"error: internal error: {type(e).__name__}: {e}", err=True)
        sys.exit(1)
    commands = Commands(dbg, click.echo)
    click.echo(f"ptxvm debugger: kernel {kernel}, grid {dbg.grid}, block {dbg.block}"
               + (f", under {tool}" if tool else "") + '. Type "help" for commands.')
    scripted = []
    if command_file is not None:
        with open(command_file, encoding="utf-8") as f:
            scripted = [line.rstrip("\n") for line in f]
    going = True
    for line in scripted:
        click.echo(PROMPT + line)
        if not commands.execute(line):
            going = False
            break
    if going:
        for line in _lines(sys.stdin.isatty()):
            if not commands.execute(line):
                break
    if dbg.stopped:
        click.echo("[the launch was still stopped: killed; host arrays left untouched]")
    dbg.close()
    status = 0
    if dbg.results_written:
        for value, path in zip(values, back):
            if path is not None:
                np.save(path, value)
    elif dbg.stop is not None and dbg.stop.reason in ("faulted", "error"):
        status = 1
    if dbg.report is not None and not dbg.report.ok:
        status = 1
    sys.exit(status)
