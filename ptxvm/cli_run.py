"""`ptxvm run`: launch a kernel of a PTX file on the CPU engine (or a GPU) from the command line.

    ptxvm run saxpy.ptx --kernel saxpy --grid 64 --block 256 \\
        --arg s32:65536 --arg f32:2.5 --arg in:x.npy --arg inout:y.npy

Arguments, in the kernel's parameter order:
  TYPE:VALUE          a scalar (u8..u64, s8..s64, f32, f64, b8..b64, pred), e.g. u32:5, f32:1.5
  in:FILE.npy         an array copied to the device
  inout:FILE.npy      an array copied in and written back to FILE.npy after the launch
  out:FILE.npy        written after the launch; FILE.npy must exist (it gives shape and dtype)
                      or be given as out:FILE.npy:DTYPE:COUNT to start from zeros
  bytes:HEX           a by-value struct, as hex bytes
  dev:DTYPE:COUNT     device memory of COUNT elements, not initialized (what cudaMalloc gives),
                      nothing written back: scratch space, or inputs for initcheck

--device cuda runs on the GPU instead; --compare runs on both and prints where the arrays differ.
"""
from __future__ import annotations

import sys

import click
import numpy as np

from .cli import main
from .cli_options import launch_options

SCALARS = {"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "b8", "b16", "b32", "b64", "f32", "f64", "pred"}


def _dims(text: str) -> tuple[int, ...]:
    try:
        dims = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise click.BadParameter(f"{text!r} is not X[,Y[,Z]]") from None
    if not 1 <= len(dims) <= 3 or min(dims) < 1:
        raise click.BadParameter(f"{text!r} is not X[,Y[,Z]] of positive integers")
    return dims


def _scalar(kind: str, value: str):
    from .semantics.dtypes import numpy_dtype

    try:
        if kind in ("f32", "f64"):
            return numpy_dtype(kind).type(float(value))
        if kind == "pred":
            return int(value not in ("0", "false", "False"))
        v = int(value, 0)
    except ValueError:
        raise click.BadParameter(f"{kind}:{value} is not a valid {kind}") from None
    return v  # range-checked against the parameter by the launcher


def parse_arg(text: str):
    """(value passed to the kernel, path to write back or None)."""
    kind, sep, rest = text.partition(":")
    if not sep:
        raise click.BadParameter(f"{text!r}: expected KIND:VALUE (e.g. u32:5, in:a.npy)")
    if kind in SCALARS:
        return _scalar(kind, rest), None
    if kind in ("in", "inout"):
        try:
            a = np.ascontiguousarray(np.load(rest))
        except (OSError, ValueError) as e:
            raise click.BadParameter(f"cannot read {rest}: {e}") from None
        return a, (rest if kind == "inout" else None)
    if kind == "out":
        path, *spec = rest.split(":")
        if spec:
            if len(spec) != 2:
                raise click.BadParameter(f"{text!r}: expected out:FILE.npy:DTYPE:COUNT")
            from .semantics.dtypes import numpy_dtype

            return np.zeros(int(spec[1]), dtype=numpy_dtype(spec[0])), path
        try:
            return np.zeros_like(np.load(path)), path
        except (OSError, ValueError) as e:
            raise click.BadParameter(f"{path}: give an existing .npy or out:FILE.npy:DTYPE:COUNT ({e})") from None
    if kind == "bytes":
        try:
            return bytes.fromhex(rest), None
        except ValueError:
            raise click.BadParameter(f"{text!r}: not hex bytes") from None
    if kind == "dev":
        import ptxvm
        from .semantics.dtypes import numpy_dtype

        spec = rest.split(":")
        try:
            if len(spec) != 2:
                raise ValueError
            return ptxvm.device_array(int(spec[1]), numpy_dtype(spec[0])), None
        except (ValueError, KeyError):
            raise click.BadParameter(f"{text!r}: expected dev:DTYPE:COUNT, DTYPE a PTX type (e.g. dev:f32:1024, dev:s32:64)") from None
    raise click.BadParameter(f"{text!r}: unknown argument kind {kind!r}")


@main.command()
@launch_options()
@click.option("--json", "as_json", is_flag=True, help="Print the launch statistics (or the comparison) as JSON.")
@click.option("--device", default="cpu", show_default=True, help="Where to run: cpu (the engine), cuda or cuda:N (a GPU).")
@click.option("--compare", "compare_", is_flag=True,
              help="Run on the CPU engine and on the GPU, print where the arrays differ; exit 1 if they do. Writes nothing back.")
@click.option("--symbol", "symbols", multiple=True, metavar="NAME",
              help="With --compare: compare this .global/.const module variable too (repeatable).")
@click.option("--no-contract", "no_contract", is_flag=True,
              help="Run every mul/add as written, without the FMA contraction ptxas applies (PTXVM_CONTRACT=0).")
def run(files, kernel, grid, block, shared, args, max_instructions, cluster, cooperative, as_json, device, compare_,
        symbols, no_contract):
    """Run KERNEL of the PTX FILES on the CPU engine (or a GPU) and print its launch statistics.

    Several files are linked into one program first, as cuLink links relocatable code
    (`nvcc -rdc=true -ptx`): .extern functions and variables resolve across them."""
    import json

    import ptxvm
    from .backends.cuda_driver import CudaUnavailableError

    try:
        values, back = zip(*[parse_arg(a) for a in args]) if args else ((), ())
        mod = ptxvm.load(files[0] if len(files) == 1 else list(files), contract=False if no_contract else None)
        k = mod.kernel(kernel)
        cluster = _dims(cluster) if cluster else None
        if compare_:
            report = ptxvm.compare(k, _dims(grid), _dims(block), list(values), shared_mem=shared, cluster=cluster,
                                   symbols=list(symbols) or None)
            click.echo(json.dumps(report.to_json()) if as_json else str(report))
            sys.exit(0 if report.ok else 1)
        if device != "cpu":
            stats = k.on(device).launch(_dims(grid), _dims(block), list(values), shared_mem=shared, cluster=cluster,
                                        cooperative=cooperative)
        else:
            stats = _launch_with_progress(k, _dims(grid), _dims(block), list(values), shared, max_instructions, cluster,
                                          cooperative)
    except ptxvm.PtxError as e:
        click.echo(e.listing(), err=True)
        sys.exit(1)
    except (ptxvm.KernelFault, ptxvm.LaunchError, KeyError, ValueError) as e:
        text = str(e)
        click.echo(text if ": error: " in text.split("\n", 1)[0] else f"error: {text}", err=True)  # located already
        sys.exit(1)
    except CudaUnavailableError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(2)
    for value, path in zip(values, back):
        if path is not None:
            np.save(path, value)
    if device != "cpu":
        fields = {"device": stats.device, "seconds": round(stats.seconds, 6), "kernel_seconds": round(stats.kernel_seconds, 6),
                  "ctas": stats.ctas, "threads": stats.threads}
        click.echo(json.dumps(fields) if as_json else
                   f"{kernel}: {stats.ctas} CTAs of {stats.threads // stats.ctas} threads on {stats.device} in {stats.kernel_seconds:.4f} s")
        return
    fields = {"thread_instructions": stats.thread_instructions, "warp_instructions": stats.warp_instructions,
              "seconds": round(stats.seconds, 6), "jit_seconds": round(stats.jit_seconds, 6), "ctas": stats.ctas,
              "threads": stats.threads, "waves": stats.waves}
    if as_json:
        click.echo(json.dumps(fields))
    else:
        rate = stats.thread_instructions / stats.seconds / 1e6 if stats.seconds else 0.0
        click.echo(f"{kernel}: {stats.thread_instructions:,} thread-instructions, {stats.warp_instructions:,} "
                   f"warp-instructions, {stats.ctas} CTAs in {stats.waves} waves, {stats.seconds:.3f} s ({rate:.1f} M/s)"
                   + (f", of which {stats.jit_seconds:.3f} s compiling" if stats.jit_seconds else ""))


def _launch_with_progress(kernel, grid, block, values, shared, max_instructions, cluster=None, cooperative=False):
    """Launch, with a progress bar over waves when the grid needs more than one."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    total = int(np.prod(grid))
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total} CTAs"),
                  TimeElapsedColumn(), transient=True, disable=not sys.stderr.isatty()) as bar:
        task = bar.add_task(kernel.name, total=total)
        return kernel.launch(grid, block, values, shared_mem=shared, cluster=cluster, max_instructions=max_instructions,
                             progress=lambda done: bar.update(task, completed=done), cooperative=cooperative)
