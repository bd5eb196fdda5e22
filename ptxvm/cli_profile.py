"""`ptxvm profile`: run a kernel with the timing model and print its predicted time and counters.

    ptxvm profile saxpy.ptx -k saxpy -g 64 -b 256 -a s32:65536 -a f32:2.5 -a in:x.npy -a inout:y.npy \\
        --gpu h200 --roofline saxpy.svg

Arguments use the syntax of `ptxvm run` (see `ptxvm run --help`).
"""
from __future__ import annotations

import sys

import click
import numpy as np

from .cli import main


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--kernel", "-k", required=True, help="The .entry to profile.")
@click.option("--grid", "-g", default="1", show_default=True, help="Grid size X[,Y[,Z]].")
@click.option("--block", "-b", default="1", show_default=True, help="Block size X[,Y[,Z]].")
@click.option("--shared", default=0, show_default=True, help="Dynamic shared memory per CTA, bytes.")
@click.option("--arg", "-a", "args", multiple=True, help="A kernel argument (see `ptxvm run --help`).")
@click.option("--gpu", default="h200", show_default=True, help="GPU description (h200, h100).")
@click.option("--policy", type=click.Choice(["gto", "lrr"]), default="gto", show_default=True,
              help="Warp scheduling policy.")
@click.option("--regs", type=int, default=None, help="Registers per thread (default: ptxas -v, else estimated).")
@click.option("--sms", type=int, default=1, show_default=True, help="SMs simulated in detail.")
@click.option("--sampled", is_flag=True, help="Run only the simulated SMs' CTAs on the engine (faster; outputs partial).")
@click.option("--cooperative", is_flag=True,
              help="A cooperative launch (cudaLaunchCooperativeKernel): all CTAs resident, grid.sync() works.")
@click.option("--json", "as_json", is_flag=True, help="Print the profile as JSON.")
@click.option("--roofline", type=click.Path(dir_okay=False), default=None, help="Write a roofline chart (.svg, or .png with matplotlib).")
@click.option("--perfetto", type=click.Path(dir_okay=False), default=None,
              help="Write a Perfetto/Chrome trace (JSON) of the warps over predicted cycles, with stall reasons "
                   "(open it in ui.perfetto.dev).")
def profile(files, kernel, grid, block, shared, args, gpu, policy, regs, sms, sampled, cooperative, as_json, roofline,
            perfetto):
    """Predict the time of KERNEL of the PTX FILES on a GPU (timing model) and print the profile.
    Several files are linked into one program first (as `ptxvm run` links them)."""
    import ptxvm

    from .cli_run import _dims, parse_arg
    from .timing.gpu import UnknownGpuError

    try:
        values, back = zip(*[parse_arg(a) for a in args]) if args else ((), ())
        mod = ptxvm.load(files[0] if len(files) == 1 else list(files))
        k = mod.kernel(kernel)
        prof = _profile_with_progress(k, _dims(grid), _dims(block), list(values), shared, gpu, policy, regs, sms,
                                      "sampled" if sampled else "all", cooperative)
    except ptxvm.PtxError as e:
        click.echo(e.listing(), err=True)
        sys.exit(1)
    except (ptxvm.KernelFault, ptxvm.LaunchError, KeyError, UnknownGpuError, ValueError) as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(1)
    if not sampled:
        for value, path in zip(values, back):
            if path is not None:
                np.save(path, value)
    if roofline:
        try:
            prof.roofline(roofline)
        except RuntimeError as e:
            click.echo(f"error: {e}", err=True)
            sys.exit(1)
    if perfetto:
        try:
            prof.to_perfetto(perfetto)
        except OSError as e:
            click.echo(f"error: cannot write {perfetto}: {e.strerror}", err=True)
            sys.exit(1)
    click.echo(prof.to_json() if as_json else prof.report())


def _profile_with_progress(kernel, grid, block, values, shared, gpu, policy, regs, sms, functional, cooperative=False):
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    total = int(np.prod(grid))
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total} CTAs"),
                  TimeElapsedColumn(), transient=True, disable=not sys.stderr.isatty()) as bar:
        task = bar.add_task(f"profile {kernel.name}", total=total)
        return kernel.profile(grid, block, values, shared_mem=shared, gpu=gpu, policy=policy, regs=regs, sms=sms,
                              functional=functional, progress=lambda done: bar.update(task, completed=done),
                              cooperative=cooperative)
