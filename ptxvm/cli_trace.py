"""`ptxvm trace`: run a kernel and write one JSON line per executed instruction per warp.

    ptxvm trace k.ptx -k kern -g 2 -b 64 -a out:o.npy -a in:x.npy --cta 0,0,0 --warp 1 --opcode ld,st -o k.jsonl

Arguments are those of `ptxvm run`. Each line holds the CTA, the warp within it, the active mask,
the PC, the PTX text and file:line, the source file:line (.file/.loc), the registers written
(per lane, raw bits as hex, null for lanes that did not execute it) and, for memory
instructions, the state space, the access size and the per-lane addresses. The exit status is 1
when the launch faulted (the lines up to the faulting instruction are still written) or could
not start.
"""
from __future__ import annotations

import sys

import click

from .cli import main
from .cli_options import launch_options


def _cta(text: str) -> tuple:
    try:
        c = tuple(int(v) for v in text.split(","))
    except ValueError:
        c = ()
    if not 1 <= len(c) <= 3 or min(c) < 0:
        raise click.BadParameter(f"--cta {text!r} is not X[,Y[,Z]] of CTA indices")
    return (c + (0, 0))[:3]


def _pc_range(text):
    if text is None:
        return None
    try:
        a, b = text.split(":")
        return int(a) if a else 0, int(b) if b else 1 << 62
    except ValueError:
        raise click.BadParameter(f"{text!r} is not A:B (PCs, B exclusive)") from None


@main.command()
@launch_options()
@click.option("--cta", "ctas", multiple=True, help="Trace only this CTA X[,Y[,Z]] (repeatable).")
@click.option("--warp", "warps", multiple=True, type=int, help="Trace only this warp within each CTA (repeatable).")
@click.option("--pc-range", default=None, help="Trace only PCs A:B (B exclusive; either may be left out).")
@click.option("--opcode", "opcodes", multiple=True, help="Trace only these opcodes, comma-separated (e.g. ld,st).")
@click.option("--output", "-o", default=None, type=click.Path(dir_okay=False), help="Write the JSON lines here (default: stdout).")
def trace(files, kernel, grid, block, shared, args, max_instructions, cluster, cooperative, ctas, warps, pc_range, opcodes,
          output):
    """Run KERNEL of the PTX FILES (several are linked) and trace its instructions as JSON lines."""
    import numpy as np

    import ptxvm
    from .cli_run import _dims, parse_arg

    try:
        values, back = zip(*[parse_arg(a) for a in args]) if args else ((), ())
        cta_list = [_cta(c) for c in ctas] or None
        ops = [o for spec in opcodes for o in spec.split(",") if o] or None
        k = ptxvm.load(files[0] if len(files) == 1 else list(files)).kernel(kernel)
        t = k.trace(_dims(grid), _dims(block), list(values), shared_mem=shared,
                    cluster=_dims(cluster) if cluster else None, max_instructions=max_instructions,
                    ctas=cta_list, warps=list(warps) or None, pc_range=_pc_range(pc_range), opcodes=ops,
                    cooperative=cooperative)
    except ptxvm.PtxError as e:
        click.echo(e.listing(), err=True)
        sys.exit(1)
    except (ptxvm.LaunchError, KeyError, ValueError) as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(1)
    if output is not None:
        t.to_jsonl(output)
    else:
        for line in t.jsonl():
            click.echo(line)
    if t.fault is not None:
        click.echo(f"error: {t.fault}", err=True)
        sys.exit(1)
    for value, path in zip(values, back):
        if path is not None:
            np.save(path, value)
    if output is not None:
        click.echo(f"{len(t)} records ({t.stats.warp_instructions} warp instructions) written to {output}", err=True)
