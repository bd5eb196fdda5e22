"""Inline PTX from Python: a PTX template evaluated elementwise over NumPy arrays on the CPU engine.

    import numpy as np, ptxvm
    j = np.arange(8, dtype=np.int32); k = np.int32(5)
    i = ptxvm.inline_asm("add.s32 %0, %1, %2;", "=r,r,r", j, k, dtypes=np.int32)   # j + k

The rules are those of CUDA's asm() statement (`asm("template" : outputs : inputs)`), with the
operand list written as one constraint string, outputs first:

- letters: h (.u16 register), r (.u32), l (.u64), f (.f32), d (.f64), and n (an immediate: a Python
  or NumPy integer scalar written into the template as a literal);
- `=` marks a write-only output, `+` a read-write output (its initial value is an argument);
- `%0`..`%N` name the operands in constraint order, may be reordered and repeated; `%%` is a `%`
  (`%%clock` -> `%clock`); any other `%` passes through, as nvcc passes it to ptxas (so `%n1` reaches
  the verifier, which rejects it); several instructions are separated by `;`; `{ }` opens a scope for
  `.reg` declarations.

Arguments are the operands that are read, in constraint order: the `+` outputs' initial values,
then the inputs (a `=` output takes no argument). Arrays broadcast against each other and against
scalars; the template runs once per element of the broadcast shape (one PTX thread each). Outputs
have the broadcast shape and the constraint's dtype (uint16/uint32/uint64/float32/float64; a `+`
output keeps its argument's dtype) unless `dtypes` names them (one dtype, or one per output, None for
the default); a dtype must still fit its constraint (int32 or uint32 for r, ...).

The checks nvcc makes on asm() operands are made here with nvcc's messages: one constraint letter
per operand; scalar operands only (a structured dtype is refused); the operand's size and kind must
be those of the constraint ("asm operand type size(1) does not match type/size implied by
constraint 'r'"). The generated kernel goes through ptxvm's verifier and every diagnostic that falls
inside the template is reported on the template (`<asm>:line:col`, the template line and a caret).
All errors are `InlineAsmError`, a `ptxvm.PtxError`.
"""
from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from ..errors import Diagnostic, PtxError, Span

__all__ = ["inline_asm", "InlineAsmError", "generate_kernel"]

TEMPLATE_FILE = "<asm>"
CONSTRAINT_FILE = "<constraints>"

# letter -> (PTX register type, byte size, NumPy kind(s), default dtype)
_LETTERS = {
    "h": (".u16", 2, "iu", np.uint16),
    "r": (".u32", 4, "iu", np.uint32),
    "l": (".u64", 8, "iu", np.uint64),
    "f": (".f32", 4, "f", np.float32),
    "d": (".f64", 8, "f", np.float64),
}
_BLOCK = 256


class InlineAsmError(PtxError):
    """A bad inline_asm() call: constraints, operands, or a template that is not valid PTX."""


@dataclass
class Operand:
    index: int
    letter: str
    mode: str  # "=" | "+" | "" (input)
    col: int  # 1-based column of the constraint in the constraint string
    length: int

    @property
    def is_output(self) -> bool:
        return self.mode in ("=", "+")


def _err(message: str, file: str = CONSTRAINT_FILE, line: int = 1, col: int = 1, length: int = 1,
         source_line: Optional[str] = None) -> InlineAsmError:
    return InlineAsmError([Diagnostic(Span(file, line, col, max(1, length)), message, "error", source_line)])


# ----------------------------------------------------------------------------------- constraints
def parse_constraints(constraints: str) -> list[Operand]:
    if not isinstance(constraints, str):
        raise _err("constraints must be one comma-separated string, e.g. \"=r,r,r\"")
    ops: list[Operand] = []
    pos = 0
    seen_input = False
    if constraints.strip() == "":
        return ops
    for index, piece in enumerate(constraints.split(",")):
        lead = len(piece) - len(piece.lstrip())
        text = piece.strip()
        col = pos + lead + 1
        pos += len(piece) + 1

        def fail(msg, c=col, n=max(1, len(text))):
            return _err(msg, col=c, length=n, source_line=constraints)

        if not text:
            raise fail(f"operand {index} has an empty constraint")
        mode = text[0] if text[0] in "=+" else ""
        letters = text[len(mode):]
        if mode and seen_input:
            raise fail(f"output operand {index} ('{text}') follows an input: outputs come first")
        if not mode:
            seen_input = True
        if len(letters) != 1:
            if not letters:
                raise fail(f"operand {index} ('{text}') has no constraint letter")
            raise fail("an asm operand may specify only one constraint letter in a __device__/__global__ function")
        if letters not in _LETTERS and letters != "n":
            raise fail(f"unknown constraint letter '{letters}' (use h, r, l, f, d or n)", c=col + len(mode), n=1)
        if letters == "n" and mode:
            raise fail(f"constraint 'n' (an immediate) cannot be an output ('{text}')")
        ops.append(Operand(index, letters, mode, col, len(text)))
    return ops


def _size_error(op: Operand, size: int, constraints: str) -> InlineAsmError:
    return _err(f"asm operand type size({size}) does not match type/size implied by constraint '{op.letter}'",
                col=op.col, length=op.length, source_line=constraints)


def _check_dtype(op: Operand, dt: np.dtype, constraints: str) -> None:
    if dt.fields is not None or dt.subdtype is not None or dt.kind not in "biufc":
        raise _err("an asm operand must have scalar type", col=op.col, length=op.length, source_line=constraints)
    _, size, kinds, _ = _LETTERS[op.letter]
    if dt.kind not in kinds or dt.itemsize != size:
        raise _size_error(op, dt.itemsize, constraints)


def _coerce(op: Operand, value, constraints: str) -> np.ndarray:
    """The argument of an `h r l f d` operand as an array of a dtype fitting the constraint."""
    _, size, kinds, default = _LETTERS[op.letter]
    if isinstance(value, (bool, np.bool_)):
        raise _size_error(op, 1, constraints)
    if isinstance(value, int):  # a Python int has no C type: it fits if its value does
        if kinds == "f":
            return np.asarray(value, dtype=default)
        bits = size * 8
        if -(1 << (bits - 1)) <= value < (1 << (bits - 1)):
            return np.asarray(value, dtype=np.dtype(f"int{bits}"))
        if 0 <= value < (1 << bits):
            return np.asarray(value, dtype=default)
        raise _err(f"integer {value} does not fit the {bits}-bit register of constraint '{op.letter}'",
                   col=op.col, length=op.length, source_line=constraints)
    if isinstance(value, float):  # a Python float is a C double
        if kinds != "f":
            raise _size_error(op, 8, constraints)
        return np.asarray(value, dtype=default)
    try:
        arr = np.asarray(value)
    except Exception:
        raise _err("an asm operand must have scalar type", col=op.col, length=op.length, source_line=constraints)
    _check_dtype(op, arr.dtype, constraints)
    return arr


def _immediate(op: Operand, value, constraints: str) -> str:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise _err("an operand with constraint 'n' must be an integer constant (a Python or NumPy integer scalar)",
                   col=op.col, length=op.length, source_line=constraints)
    return str(int(value))


# ----------------------------------------------------------------------------------- template
def _reg(i: int) -> str:
    return f"%__asm{i}"


def substitute(template: str, texts: Sequence[str]):
    """The template with %N replaced by texts[N] and %% by %; also a map of generated offsets back
    onto template offsets: a sorted list of (generated start, template start, is_literal, template length)."""
    out: list[str] = []
    segments: list[tuple[int, int, bool]] = []
    gen = 0
    i = 0
    lit_start = 0

    def flush_literal(upto):
        nonlocal gen
        if upto > lit_start:
            segments.append((gen, lit_start, True, upto - lit_start))
            out.append(template[lit_start:upto])
            gen += upto - lit_start

    n = len(template)
    while i < n:
        c = template[i]
        if c == "%" and i + 1 < n and template[i + 1] == "%":
            flush_literal(i)
            segments.append((gen, i, False, 2))
            out.append("%")
            gen += 1
            i += 2
            lit_start = i
            continue
        if c == "%" and i + 1 < n and template[i + 1].isdigit():
            j = i + 1
            while j < n and template[j].isdigit():
                j += 1
            k = int(template[i + 1:j])
            if k >= len(texts):
                line = template.count("\n", 0, i) + 1
                col = i - (template.rfind("\n", 0, i) + 1) + 1
                raise _err(f"invalid operand number %{k} in asm template (there are {len(texts)} operands)",
                           TEMPLATE_FILE, line, col, j - i, template.splitlines()[line - 1])
            flush_literal(i)
            segments.append((gen, i, False, j - i))
            out.append(texts[k])
            gen += len(texts[k])
            i = j
            lit_start = i
            continue
        i += 1
    flush_literal(n)
    return "".join(out), segments


def _to_template_offset(segments, template_len: int, off: int, end: bool = False) -> int:
    """The template offset of generated offset `off`; with `end`, the offset just past it (a
    substituted operand maps as a whole onto its `%N`)."""
    starts = [s[0] for s in segments]
    k = bisect.bisect_right(starts, off) - 1
    if k < 0:
        return 0
    gstart, tstart, literal, tlen = segments[k]
    if literal:
        return min(tstart + (off - gstart) + (1 if end else 0), template_len)
    return tstart + tlen if end else tstart


# ----------------------------------------------------------------------------------- kernel
def generate_kernel(template: str, ops: Sequence[Operand], immediates: dict, scalar_inputs: Sequence[bool]):
    """(PTX text, line of the template's first character, map back onto the template)."""
    texts = [immediates[op.index] if op.letter == "n" else _reg(op.index) for op in ops]
    body, segments = substitute(template, texts)
    params = []
    lines = [".version 9.0", ".target sm_90", ".address_size 64", ""]
    readers = [op for op in ops if op.mode != "=" and op.letter != "n"]
    for op in readers:
        ptype = _LETTERS[op.letter][0] if scalar_inputs[op.index] else ".u64"
        params.append(f".param {ptype} __in{op.index}")
    for op in ops:
        if op.is_output:
            params.append(f".param .u64 __out{op.index}")
    params.append(".param .u32 __count")
    lines.append(".visible .entry __inline_asm(" + ", ".join(params) + ")")
    lines.append("{")
    lines.append(".reg .pred %__asm_oob;")
    lines.append(".reg .u32 %__asm_t<3>;")
    lines.append(".reg .u64 %__asm_a<2>;")
    for op in ops:
        if op.letter != "n":
            lines.append(f".reg {_LETTERS[op.letter][0]} {_reg(op.index)};")
    lines += [
        "mov.u32 %__asm_t0, %ctaid.x;", "mov.u32 %__asm_t1, %ntid.x;", "mov.u32 %__asm_t2, %tid.x;",
        "mad.lo.u32 %__asm_t0, %__asm_t0, %__asm_t1, %__asm_t2;",
        "ld.param.u32 %__asm_t1, [__count];",
        "setp.ge.u32 %__asm_oob, %__asm_t0, %__asm_t1;",
        "@%__asm_oob bra $__asm_done;",
    ]

    def address(param: str, size: int) -> None:
        lines.append(f"ld.param.u64 %__asm_a0, [{param}];")
        lines.append("cvta.to.global.u64 %__asm_a0, %__asm_a0;")
        lines.append(f"mul.wide.u32 %__asm_a1, %__asm_t0, {size};")
        lines.append("add.u64 %__asm_a0, %__asm_a0, %__asm_a1;")

    for op in readers:
        rtype, size = _LETTERS[op.letter][:2]
        if scalar_inputs[op.index]:
            lines.append(f"ld.param{rtype} {_reg(op.index)}, [__in{op.index}];")
        else:
            address(f"__in{op.index}", size)
            lines.append(f"ld.global{rtype} {_reg(op.index)}, [%__asm_a0];")
    first_line = len(lines) + 1
    lines += body.split("\n")
    for op in ops:
        if op.is_output:
            rtype, size = _LETTERS[op.letter][:2]
            address(f"__out{op.index}", size)
            lines.append(f"st.global{rtype} [%__asm_a0], {_reg(op.index)};")
    lines += ["$__asm_done:", "ret;", "}", ""]
    return "\n".join(lines), first_line, body, segments


def _remap(diags, ptx: str, first_line: int, body: str, template: str, segments, syntax: bool = False
           ) -> list[Diagnostic]:
    """Diagnostics of the generated kernel moved onto the template (those outside it kept as they are,
    which would be a bug of the generator)."""
    body_lines = body.split("\n")
    line_starts = [0]
    for ln in body_lines[:-1]:
        line_starts.append(line_starts[-1] + len(ln) + 1)
    tlines = template.split("\n")
    out = []
    for d in diags:
        rel = d.span.line - first_line
        message = re.sub(r"%__asm(\d+)\b", r"%\1", d.message)
        message = re.sub(r"\bline (\d+)\b", lambda m: f"line {int(m.group(1)) - first_line + 1} of the template"
                         if 0 <= int(m.group(1)) - first_line < len(body_lines) else m.group(0), message)
        if 0 <= rel < len(body_lines):
            goff = line_starts[rel] + d.span.col - 1
            toff = _to_template_offset(segments, len(template), goff)
            gend = goff + max(1, d.span.length)
            tend = _to_template_offset(segments, len(template), gend - 1, end=True)
            line = template.count("\n", 0, toff) + 1
            col = toff - (template.rfind("\n", 0, toff) + 1) + 1
            length = max(1, tend - toff) if template.count("\n", toff, tend) == 0 else 1
            out.append(Diagnostic(Span(TEMPLATE_FILE, line, col, length), message, d.severity, tlines[line - 1]))
        elif syntax and rel >= len(body_lines):  # e.g. a template whose last instruction lacks its ';'
            line = len(tlines)
            out.append(Diagnostic(Span(TEMPLATE_FILE, line, len(tlines[-1]) + 1), message + " (at the end of the template)",
                                  d.severity, tlines[-1]))
        else:
            out.append(Diagnostic(d.span, message + " (in the kernel inline_asm generated around the template)",
                                  d.severity, d.source_line))
    return out


@functools.lru_cache(maxsize=128)
def _build(template: str, constraints: str, immediates: tuple, scalar_inputs: tuple):
    """Parse + verify the generated kernel once per (template, constraints, immediates, scalars)."""
    from ..check import verify
    from ..errors import PtxError as _PtxError
    from ..frontend import parse
    from ..module import Module

    ops = parse_constraints(constraints)
    ptx, first_line, body, segments = generate_kernel(template, ops, dict(immediates), scalar_inputs)
    try:
        tree = parse(ptx, "<inline_asm>.ptx")
    except _PtxError as e:
        raise InlineAsmError(_remap(e.diagnostics, ptx, first_line, body, template, segments, True)) from None
    errors = [d for d in verify(tree, ptx) if d.severity == "error"]
    if errors:
        raise InlineAsmError(_remap(errors, ptx, first_line, body, template, segments))
    return ptx, Module(tree, source=ptx)


CLOBBERS = frozenset(("memory",))


def _check_clobbers(clobbers) -> None:
    """asm()'s third list. "memory" forbids moving memory accesses across the asm; the elementwise
    evaluator moves none, so it is accepted and changes nothing. Register clobbers are not needed
    (the template's registers are its own) and are refused by name."""
    names = [clobbers] if isinstance(clobbers, str) else list(clobbers)
    for name in names:
        for item in str(name).split(","):
            item = item.strip().strip('"')
            if item and item not in CLOBBERS:
                raise _err(f"unsupported clobber \"{item}\" (inline_asm takes \"memory\" only)")


def inline_asm(template: str, constraints: str, *args, dtypes=None, clobbers=()):
    """Run the PTX `template` once per element of the broadcast arguments; the output array, or a
    tuple of them when there are several outputs (see the module's documentation for the rules).
    `clobbers`: "memory" (or a sequence holding it), as asm()'s clobber list."""
    if not isinstance(template, str):
        raise _err("the asm template must be a string", TEMPLATE_FILE)
    _check_clobbers(clobbers)
    ops = parse_constraints(constraints)
    outputs = [op for op in ops if op.is_output]
    readers = [op for op in ops if op.mode != "="]
    if len(args) != len(readers):
        raise _err(f"{len(readers)} operand value(s) expected (the '+' outputs, then the inputs, in constraint "
                   f"order; '=' outputs take none), {len(args)} given", length=max(1, len(constraints)),
                   source_line=constraints)
    immediates: dict[int, str] = {}
    values: dict[int, np.ndarray] = {}
    for op, value in zip(readers, args):
        if op.letter == "n":
            immediates[op.index] = _immediate(op, value, constraints)
        else:
            values[op.index] = _coerce(op, value, constraints)

    # output dtypes
    if dtypes is None or isinstance(dtypes, (type, np.dtype, str)):
        dts = [dtypes] * len(outputs) if (dtypes is None or len(outputs) == 1) else None
        if dts is None:
            raise _err(f"dtypes: one dtype given for {len(outputs)} outputs; give a sequence, one per output")
    else:
        dts = list(dtypes)
        if len(dts) != len(outputs):
            raise _err(f"dtypes: {len(dts)} given for {len(outputs)} outputs")
    out_dtypes = []
    for op, dt in zip(outputs, dts):
        if dt is None:
            dt = values[op.index].dtype if op.mode == "+" else np.dtype(_LETTERS[op.letter][3])
        dt = np.dtype(dt)
        _check_dtype(op, dt, constraints)
        out_dtypes.append(dt)

    arrays = [values[i] for i in sorted(values)]
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays)) if arrays else ()
    except ValueError as e:
        raise _err(f"operands do not broadcast together: {e}") from None
    count = int(np.prod(shape, dtype=np.int64))
    if count >= 1 << 32:
        raise _err(f"{count} elements: inline_asm runs at most 2**32 - 1")

    scalar_inputs = tuple(op.index in values and values[op.index].ndim == 0 for op in ops)
    _, module = _build(template, constraints, tuple(sorted(immediates.items())), scalar_inputs)

    launch_args = []
    for op in readers:
        if op.letter == "n":
            continue
        v = values[op.index]
        if v.ndim == 0:
            launch_args.append(v.reshape(()).astype(v.dtype).view(v.dtype)[()])
        else:
            # a private copy: the launch copies pointer arguments back, and the caller's stay untouched
            launch_args.append(np.array(np.broadcast_to(v, shape), order="C").reshape(-1))
    results = []
    for op, dt in zip(outputs, out_dtypes):
        results.append(np.zeros(count, dtype=dt))  # every element is stored by its thread
    launch_args += results
    launch_args.append(np.uint32(count))
    if count:
        grid = (count + _BLOCK - 1) // _BLOCK
        module.kernel("__inline_asm").launch(grid, min(_BLOCK, count), launch_args)
    shaped = tuple(r.reshape(shape) for r in results)
    shaped = tuple(r[()] if r.ndim == 0 else r for r in shaped)
    return shaped[0] if len(shaped) == 1 else shaped
