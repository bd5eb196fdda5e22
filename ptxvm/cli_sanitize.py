"""`ptxvm sanitize`: run a kernel under one of compute-sanitizer's checkers on the CPU engine.

    ptxvm sanitize --tool memcheck --leak-check full k.ptx -k oob -g 1 -b 64 -a in:x.npy -a s32:60

Arguments are those of `ptxvm run` (in:, inout:, out:, TYPE:VALUE, bytes:, dev:DTYPE:COUNT: uninitialized
device memory, what cudaMalloc gives, whose reads initcheck reports).
The report is printed in compute-sanitizer's wording (--json: as JSON); the exit status is 1 when
it holds errors. inout:/out: files are written back unless an error faulted the launch.
"""
from __future__ import annotations

import sys

import click

from .cli import main
from .cli_options import launch_options


@main.command()
@launch_options()
@click.option("--tool", type=click.Choice(["memcheck", "racecheck", "initcheck", "synccheck"]), default="memcheck",
              show_default=True, help="The checker (compute-sanitizer's --tool).")
@click.option("--leak-check", type=click.Choice(["no", "full"]), default="no", show_default=True,
              help="memcheck: report device-heap allocations the kernel did not free.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def sanitize(files, kernel, grid, block, shared, args, max_instructions, cluster, cooperative, tool, leak_check,
             as_json):
    """Run KERNEL of the PTX FILES (several are linked) under a sanitizer checker; exit 1 when it
    finds errors."""
    import numpy as np

    import ptxvm
    from .cli_run import _dims, parse_arg

    try:
        values, back = zip(*[parse_arg(a) for a in args]) if args else ((), ())
        k = ptxvm.load(files[0] if len(files) == 1 else list(files)).kernel(kernel)
        report = k.sanitize(_dims(grid), _dims(block), list(values), tool=tool, leak_check=leak_check == "full",
                            shared_mem=shared, cluster=_dims(cluster) if cluster else None,
                            max_instructions=max_instructions, cooperative=cooperative)
    except ptxvm.PtxError as e:
        click.echo(e.listing(), err=True)
        sys.exit(1)
    except (ptxvm.LaunchError, KeyError, ValueError) as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(1)
    if not report.faulted:
        for value, path in zip(values, back):
            if path is not None:
                np.save(path, value)
    click.echo(report.to_json() if as_json else str(report), nl=as_json)
    sys.exit(0 if report.ok else 1)
