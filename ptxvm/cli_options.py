"""Command-line options shared by the commands that launch a kernel (`ptxvm run`, `ptxvm sanitize`, `ptxvm trace`, `ptxvm debug`)."""
from __future__ import annotations

import click


def launch_options(arg_help: str = "A kernel argument (see `ptxvm run --help`)."):
    """The options every command that launches a kernel takes (run, sanitize, trace, debug): the PTX FILES
    (several are linked), -k KERNEL, -g/-b, --shared, -a ARG..., --max-instructions, --cluster, --cooperative."""
    options = [
        click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False)),
        click.option("--kernel", "-k", required=True, help="The .entry to launch."),
        click.option("--grid", "-g", default="1", show_default=True, help="Grid size X[,Y[,Z]]."),
        click.option("--block", "-b", default="1", show_default=True, help="Block size X[,Y[,Z]]."),
        click.option("--shared", default=0, show_default=True, help="Dynamic shared memory per CTA, bytes."),
        click.option("--arg", "-a", "args", multiple=True, help=arg_help),
        click.option("--max-instructions", type=int, default=None, help="Fault past this many thread-instructions."),
        click.option("--cluster", default=None, help="Cluster size X[,Y[,Z]] (CTAs per cluster)."),
        click.option("--cooperative", is_flag=True,
                     help="A cooperative launch (cudaLaunchCooperativeKernel): all CTAs resident, grid.sync() works."),
    ]

    def apply(f):
        for option in reversed(options):
            f = option(f)
        return f

    return apply
