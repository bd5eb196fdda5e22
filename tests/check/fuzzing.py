"""PTX fuzzing: mutate real PTX, generate instruction streams from the ISA table, load and run.

Shared by the suite (tests/check/test_fuzz.py, hypothesis) and the long run
(benchmarks/fuzz_frontend.py). Every generator takes a `random.Random`, so hypothesis drives it
through `st.randoms()` (and shrinks what it draws) and the benchmark through a seeded Random.

`run_case(text)` loads the text and launches every kernel (a small grid, an instruction budget);
what it may raise is `ptxvm.PtxError`, `ptxvm.KernelFault` or `ptxvm.LaunchError`. Anything else
is a crash, in any construct (vector registers, .reg parameters, function-scoped variables,
extern functions and huge arrays included).
"""
from __future__ import annotations

import contextlib
import io
import random
import re
from functools import lru_cache
from pathlib import Path
from typing import Optional

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"
SNIPPETS = ROOT / "tests" / "check" / "snippets"

BUDGET = 4000  # thread-instructions per launch
GRID = 2
BLOCK = 32
SCALAR_ARG = 16  # every scalar kernel argument (an `n`, a count, a stride)
BUFFER_BYTES = 1024  # every pointer argument points at this many bytes (zeros)
MAX_VARIABLE_BYTES = 1 << 20  # the generator keeps its variables below this


# ------------------------------------------------------------------------------------ seeds
@lru_cache(maxsize=None)
def seed_paths(max_bytes: int = 40_000) -> tuple[Path, ...]:
    """nvcc output (tests/corpus/ptx), valid and invalid snippets, the verifier's snippets."""
    paths = [p for p in sorted((CORPUS / "ptx").glob("*.ptx")) if p.stat().st_size <= max_bytes]
    paths += sorted((CORPUS / "valid").glob("*.ptx")) + sorted((CORPUS / "invalid").glob("*.ptx"))
    paths += sorted(SNIPPETS.glob("*.ptx"))
    return tuple(paths)


@lru_cache(maxsize=None)
def seed_text(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


# ------------------------------------------------------------------------------- vocabulary
@lru_cache(maxsize=None)
def isa_words() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(opcodes, modifiers) of the ISA table, sorted (deterministic)."""
    from ptxvm.isa import FORMS

    ops, mods = set(), set()
    for f in FORMS:
        ops.add(f.opcode)
        for e in f.elements:
            for seq in e.values:
                mods.update("." + w for w in seq)
    return tuple(sorted(ops)), tuple(sorted(mods))


NUMBERS = ("0", "1", "-1", "2", "3", "4", "7", "8", "16", "31", "32", "63", "64", "127", "255", "1024",
           "0x7fffffff", "0x80000000", "0xffffffff", "0xffffffffffffffff", "0x8000000000000000",
           "4294967296", "-2147483648", "65536", "0f3F800000", "0f7F800000", "0fFF800000", "0f7FC00000",
           "0d3FF0000000000000", "0d7FF0000000000000", "1.5", "0.0", "1e300", "0x1p-1074", "1000000", "12345678901234567890",
           "077", "0b101", "1U", "2147483647")
REGISTERS = ("%r1", "%r2", "%rd1", "%rd2", "%f1", "%fd1", "%p1", "%p2", "%rs1", "%tid.x", "%ntid.y", "%ctaid.x",
             "%laneid", "%warpid", "%clock64", "%globaltimer", "%envreg3", "%smid", "%nctaid.z", "%lanemask_lt",
             "%dynamic_smem_size", "%cluster_ctarank", "%pm0", "%r0", "%r99999", "%x", "WARP_SZ")
IDENTIFIERS = ("foo", "_Z3fooPf", "$L__BB0_1", "$L__BB0_2", "__local_depot0", "param_0", "__cudart_i2opi_f",
               "vprintf", "malloc", "free", "__assertfail", "x", "_", "$", "%", "__nv_static_1")
PUNCTUATION = ("{", "}", "[", "]", "(", ")", ";", ",", ".", "@", "!", "<", ">", "+", "-", "*", "/", "|", "=",
               "::", "?", ":", "&&", "~", "\"", "//", "/*", "\n")
DIRECTIVES = (".reg", ".param", ".shared", ".local", ".const", ".global", ".entry", ".func", ".visible",
              ".weak", ".align", ".version", ".target", ".address_size", ".maxntid", ".reqntid",
              ".minnctapersm", ".maxnreg", ".pragma", ".loc", ".file", ".section", ".callprototype",
              ".calltargets", ".branchtargets", ".v2", ".v4", ".b8", ".b16", ".b32", ".b64", ".b128",
              ".u8", ".u16", ".u32", ".u64", ".s8", ".s32", ".s64", ".f16", ".f16x2", ".bf16", ".f32", ".f64",
              ".pred", ".ptr", ".noreturn", ".reqnctapercluster", ".explicitcluster", ".maxclusterrank")


# ------------------------------------------------------------------------------- mutations
_TOKEN = re.compile(r"""0[fF][0-9a-fA-F]{8}|0[dD][0-9a-fA-F]{16}|[%$]?[A-Za-z_$][\w$]*(?:\.[xyzw]\b)?|\.[A-Za-z_][\w:]*|"""
                    r"""0[xX][0-9a-fA-F]+U?|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?U?|::|&&|\|\||<<|>>|//[^\n]*|\S""")


def tokens(text: str) -> list[tuple[int, int]]:
    """Spans of the words, numbers and punctuation of `text` (comments count as one token)."""
    return [m.span() for m in _TOKEN.finditer(text)]


def _new_token(rng: random.Random, text: str, toks) -> str:
    pool = rng.randrange(7)
    if pool == 0 and toks:
        a, b = rng.choice(toks)
        return text[a:b]
    if pool == 1:
        return rng.choice(NUMBERS)
    if pool == 2:
        return rng.choice(REGISTERS)
    if pool == 3:
        return rng.choice(IDENTIFIERS)
    if pool == 4:
        ops, mods = isa_words()
        return rng.choice(mods)
    if pool == 5:
        ops, mods = isa_words()
        return rng.choice(ops)
    return rng.choice(PUNCTUATION + DIRECTIVES)


def _same_kind(rng: random.Random, old: str) -> str:
    """A token of the same kind as `old`: a number for a number, a modifier for a modifier..."""
    ops, mods = isa_words()
    if old[:1].isdigit() or old[:1] == "-":
        return rng.choice(NUMBERS)
    if old.startswith("%"):
        return rng.choice(REGISTERS) if rng.random() < 0.5 else old[:-1] + rng.choice("0123456789")
    if old.startswith("."):
        return rng.choice(mods + DIRECTIVES)
    if old[:1].isalpha() or old[:1] in "_$":
        return rng.choice(ops) if rng.random() < 0.6 else rng.choice(IDENTIFIERS)
    return rng.choice(PUNCTUATION)


def mutate_tokens(rng: random.Random, text: str) -> str:
    toks = tokens(text)
    if not toks:
        return text
    i = rng.randrange(len(toks))
    a, b = toks[i]
    kind = rng.choice(("delete", "duplicate", "swap", "replace", "replace", "insert"))
    if kind == "delete":
        return text[:a] + text[b:]
    if kind == "duplicate":
        return text[:b] + " " + text[a:b] + text[b:]
    if kind == "swap":
        j = min(len(toks) - 1, i + rng.choice((1, 1, 2, rng.randrange(len(toks)))))
        (a, b), (c, d) = sorted((toks[i], toks[j]))
        if c < b:
            return text
        return text[:a] + text[c:d] + text[b:c] + text[a:b] + text[d:]
    new = _same_kind(rng, text[a:b]) if kind == "replace" and rng.random() < 0.7 else _new_token(rng, text, toks)
    if kind == "replace":
        return text[:a] + new + text[b:]
    return text[:a] + new + " " + text[a:]


def mutate_lines(rng: random.Random, text: str) -> str:
    lines = text.split("\n")
    k = rng.randrange(len(lines))
    kind = rng.choice(("delete", "duplicate", "swap", "move"))
    if kind == "delete":
        del lines[k]
    elif kind == "duplicate":
        lines.insert(k, lines[k])
    elif kind == "swap":
        j = rng.randrange(len(lines))
        lines[k], lines[j] = lines[j], lines[k]
    else:
        line = lines.pop(k)
        lines.insert(rng.randrange(len(lines) + 1), line)
    return "\n".join(lines)


_INSTRUCTION_LINE = re.compile(r"^[ \t]*(?:@!?%\w+\s+)?[a-z][\w.:]*[ \t][^\n]*;[ \t]*$", re.M)


def mutate_instruction(rng: random.Random, text: str) -> str:
    """One token of one instruction line replaced by a token of the same kind (a modifier by a
    modifier, a register by a register, a number by a number): mostly still PTX, often valid."""
    lines = [m.span() for m in _INSTRUCTION_LINE.finditer(text)]
    if not lines:
        return mutate_tokens(rng, text)
    lo, hi = rng.choice(lines)
    toks = tokens(text[lo:hi])
    a, b = rng.choice(toks)
    return text[:lo + a] + _same_kind(rng, text[lo + a:lo + b]) + text[lo + b:]


def mutant(rng: random.Random) -> str:
    """A corpus file with 1-4 token, instruction or line mutations."""
    text = seed_text(rng.choice(seed_paths()))
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3, 4))):
        text = rng.choices((mutate_instruction, mutate_tokens, mutate_lines), (5, 3, 2))[0](rng, text)
    return text


# ------------------------------------------------------------------------------- running
def kernel_args(info) -> Optional[list]:
    """Arguments for every parameter of a kernel: zeroed buffers for pointers, SCALAR_ARG for
    scalars, zero bytes for by-value aggregates."""
    args = []
    for p in info.params:
        if p.decl.array or p.decl.vector:
            args.append(bytes(p.size))
        elif p.type in ("u64", "b64", "s64"):
            args.append(np.zeros(BUFFER_BYTES, np.uint8))
        elif p.type in ("f32", "f64", "f16", "bf16"):
            args.append(1.0)
        elif p.type == "pred":
            args.append(True)
        else:
            args.append(SCALAR_ARG)
    return args


def grid_for(decl) -> tuple[int, ...]:
    for d in decl.directives:
        if d.name == "reqnctapercluster":
            return tuple(int(getattr(a, "value", 1)) for a in d.args)
    return (GRID,)


def block_for(decl) -> tuple[int, ...]:
    for d in decl.directives:
        if d.name == "reqntid":
            return tuple(int(getattr(a, "value", 1)) for a in d.args)
    return (BLOCK,)


def run_case(text: str, name: str = "fuzz.ptx", budget: int = BUDGET) -> str:
    """Load `text` and launch each kernel; the outcome's name ('syntax', 'verify', 'load',
    'launch', 'fault' or 'ran'). Raises whatever else the front end or engine raises besides
    PtxError, KernelFault and LaunchError: that is a crash."""
    from ptxvm.check import verify
    from ptxvm.errors import KernelFault, LaunchError, PtxError, PtxSyntaxError
    from ptxvm.frontend import parse
    from ptxvm.module import Module

    try:
        tree = parse(text, name)
    except PtxSyntaxError:
        return "syntax"
    errors = [d for d in verify(tree, text) if d.severity == "error"]
    internal = [d.format() for d in errors if "internal verifier error" in d.message]
    if internal:
        raise AssertionError("\n".join(internal))
    if errors:
        return "verify"
    try:
        mod = Module(tree, source=text)
    except PtxError:  # a later pass (the lowering's checks)
        return "load"
    except LaunchError:  # a module variable beyond the device's memory budget (OutOfDeviceMemory)
        return "launch"
    outcome = "ran"
    quiet = contextlib.redirect_stdout(io.StringIO())  # the kernels' printf
    for k in [f.name for f in tree.functions() if f.kind == "entry" and f.body is not None][:3]:
        kern = mod[k]
        try:
            with quiet:
                kern.launch(grid_for(kern.info.decl), block_for(kern.info.decl), kernel_args(kern.info),
                            max_instructions=budget)
        except KernelFault:
            outcome = "fault"
        except LaunchError:
            outcome = "launch"
    return outcome


# ------------------------------------------------------------------ streams from the ISA table
# What the generator leaves out: texture and surface instructions (another piece of work), forms
# newer than PTX ISA 9.0 (ditto), `call` (needs a callee and a prototype), and every construct
# the constructs the mutated corpus covers: variables are module-scoped, registers scalar, sizes small.
EXCLUDED_OPCODES = frozenset({"tex", "tld4", "txq", "suld", "sust", "sured", "suq", "istypep", "call"})
VERSION = "9.0"
TARGET = "sm_90a"
ADDRESS = "%rd15"  # the global buffer's generic address; never a destination
REG_COUNT = 6


@lru_cache(maxsize=None)
def generator_forms() -> tuple:
    from ptxvm.isa import FORMS

    out = []
    for f in FORMS:
        if f.opcode in EXCLUDED_OPCODES or f.family == "texture":
            continue
        if f.requires.ptx > (9, 0) or f.requires.sm > 90 or f.requires.family_specific:
            continue
        if f.removed is not None and f.removed.ptx_ok((9, 0)) and f.removed.target_ok(TARGET):
            continue  # gone from this version and target (shfl and vote without .sync)
        out.append(f)
    return tuple(out)


def _reg(rng: random.Random, t, dst: bool = False) -> str:
    """A declared register for a value of PtxType `t` (None: a 32-bit one)."""
    if t is None or t.name == "ptr":
        bits = 64
    elif t.name == "pred":
        return f"%p{rng.randrange(REG_COUNT)}"
    else:
        bits = t.bits
    if bits <= 16:
        return f"%h{rng.randrange(REG_COUNT)}"
    if bits == 32:
        return f"%r{rng.randrange(REG_COUNT)}"
    if bits == 64:
        if not dst and rng.random() < 0.3:
            return ADDRESS
        return f"%rd{rng.randrange(REG_COUNT)}"
    return f"%q{rng.randrange(REG_COUNT)}"


def _imm(rng: random.Random, t) -> str:
    if t is not None and t.is_float:
        if t.bits == 64:
            return rng.choice(("0d3FF0000000000000", "0d7FF0000000000000", "0dBFE0000000000000", "1.5", "0.0"))
        return rng.choice(("0f3F800000", "0f7F800000", "0fFFC00000", "0f00000001", "0f4B000000", "2.5", "-0.0"))
    return rng.choice(("0", "1", "2", "3", "4", "8", "15", "16", "31", "32", "-1", "255", "0x7fffffff", "0x80000000"))


def _spaces(mods: tuple[str, ...]) -> list[str]:
    """The state spaces the modifiers name, in order (a copy's destination space comes first)."""
    out = []
    for m in mods:
        for s in ("shared", "local", "const", "param", "global"):
            if m == s or m.startswith(s + "::"):
                out.append(s)
    return out or ["generic"]


_SPACE_BASE = {"shared": "sbuf", "local": "lbuf", "const": "cbuf", "global": ADDRESS, "generic": ADDRESS,
               "param": "p2"}


def _address(rng: random.Random, space: str) -> str:
    base = _SPACE_BASE[space]
    if space == "param":
        return f"[{base}]"
    off = rng.choice((0, 0, 16, 32, 64, 128, 4, 8, 2, 1, 1000, -16))
    return f"[{base}+{off}]" if off else f"[{base}]"


def _operand(rng: random.Random, ro, spaces: list, labels: int, regs_only: bool = False) -> str:
    from ptxvm.isa import Kind

    spec, t = ro.spec, ro.type
    if t is not None and (t.lanes > 1 or (t.is_float and t.bits < 32)):
        regs_only = True  # packed and half-precision operands take no constants
    kind = spec.kind
    if kind is Kind.RI and spec.alt and rng.random() < 0.2:
        kind = spec.alt[0]
    if spec.sink and ro.is_dst and rng.random() < 0.1:
        return "_"
    if kind is Kind.IMM:  # selectors, scales, sizes: mostly small
        if spec.value is not None:
            return str(spec.value)
        return rng.choice(("0", "1", "-1", "1", "0")) if rng.random() < 0.5 else _imm(rng, t)
    if kind is Kind.RI:
        if not regs_only and rng.random() < 0.3:
            return _imm(rng, t)
        if t is not None and t.bits == 32 and not ro.is_dst and rng.random() < 0.15:
            return rng.choice(("%tid.x", "%laneid", "%ctaid.x", "%ntid.x"))
        return _reg(rng, t, ro.is_dst)
    if kind is Kind.REG:
        return _reg(rng, t, ro.is_dst)
    if kind is Kind.PRED:
        p = f"%p{rng.randrange(REG_COUNT)}"
        return ("!" + p) if spec.negate == "!" and rng.random() < 0.3 else p
    if kind is Kind.ADDR:  # the n-th address is in the n-th space named (an mbarrier's in the first)
        names, n = spaces
        spaces[1] += 1
        return _address(rng, names[n] if n < len(names) else names[0])
    if kind is Kind.VEC:
        n = ro.count if ro.count is not None else rng.choice((1, 2, 4))
        t = t if not spec.pack or (t is not None and t.bits >= 32) else None
        regs = [_reg(rng, t, ro.is_dst) for _ in range(n)]
        return regs[0] if n == 1 and ro.count is not None and spec.vec_slot else "{" + ", ".join(regs) + "}"
    if kind is Kind.PAIR:
        return _reg(rng, t, True) + "|" + f"%p{rng.randrange(REG_COUNT)}"
    if kind is Kind.LABEL:
        return f"L{rng.randrange(labels)}"
    if kind is Kind.SYMBOL:
        return rng.choice(("sbuf", "gbuf", "cbuf", f"L{rng.randrange(labels)}"))
    if kind is Kind.SINK:
        return "_"
    if kind is Kind.BRACKET:
        from ptxvm.isa.match import ResolvedOperand

        parts = [_operand(rng, ResolvedOperand(e, t if e.type_slot else _fixed(e), None), spaces, labels)
                 for e in spec.elements if not e.optional or rng.random() < 0.5]
        return "[" + ", ".join(parts) + "]"
    return _reg(rng, t)


def _fixed(spec):
    from ptxvm.isa import TYPES

    return TYPES.get(spec.type) if spec.type and spec.type != "ptr" else None


def instruction(rng: random.Random, labels: int) -> Optional[str]:
    """One instruction of a random form of the table, with random modifiers and operands."""
    from ptxvm.isa import MatchError, lookup

    form = rng.choice(generator_forms())
    for _ in range(8):
        vals = {}
        for choice in form.choices():
            c = rng.choice(choice)
            if c is not None:
                vals[c[0]] = c[1]
        if all(pred(vals) for pred, _ in form.checks):
            break
    else:
        return None
    try:
        mods = form.spell(vals)
    except KeyError:
        return None
    m = lookup(form.opcode, mods)
    if isinstance(m, MatchError):
        return None
    spaces = [_spaces(mods), 0]  # the names, and how many addresses were written
    ops, dropped = [], False
    for ro in m.operands:
        if ro.optional and (dropped or rng.random() < 0.5):
            dropped = True
            continue
        ops.append(_operand(rng, ro, spaces, labels, form.family == "video"))
    guard = rng.choice(("", "", "", "", "@%p1 ", "@!%p2 "))
    return f"{guard}{'.'.join((form.opcode,) + mods)}{(' ' + ', '.join(ops)) if ops else ''};"


PROLOGUE = """\
	.reg .pred %p<{n}>;
	.reg .b16 %h<{n}>;
	.reg .b32 %r<{n}>;
	.reg .b64 %rd<16>;
	.reg .b128 %q<{n}>;
	.local .align 16 .b8 lbuf[256];
	ld.param.u64 %rd15, [p0];
	cvta.to.global.u64 %rd15, %rd15;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, 0x3f800000;
	cvt.u64.u32 %rd1, %r1;
	mov.b64 %rd2, {{%r1, %r3}};
	setp.lt.u32 %p1, %r1, 7;
	setp.ne.u32 %p2, %r2, 0;
	cvt.u16.u32 %h1, %r1;
	mov.b128 %q1, {{%rd1, %rd2}};
"""


CALL = """\
	{{
	.param .b32 arg;
	.param .b32 res;
	st.param.b32 [arg], {value};
	call{uni} (res), helper, (arg);
	ld.param.b32 {dst}, [res];
	}}"""

HELPER = """\
.func (.param .b32 fret) helper(.param .b32 fa)
{{
{decls}	mov.u64 %rd15, gbuf;
	cvta.global.u64 %rd15, %rd15;
	ld.param.b32 %r1, [fa];
	setp.lt.u32 %p1, %r1, 3;
	add.u32 %r2, %r1, 1;
{body}
	@!%p1 bra L_done;
	{{
	.param .b32 arg;
	.param .b32 res;
	st.param.b32 [arg], %r2;
	call (res), helper, (arg);
	ld.param.b32 %r2, [res];
	}}
L_done:
	st.param.b32 [fret], %r2;
	ret;
}}

"""


def _stream(rng: random.Random, labels: int, calls: bool) -> list[str]:
    body = []
    while len(body) < rng.randrange(1, 13):
        if calls and rng.random() < 0.1:
            body.append(CALL.format(value=rng.choice(("%r1", "%r2", "0", "5")), uni=rng.choice(("", ".uni")),
                                    dst=f"%r{rng.randrange(REG_COUNT)}"))
            continue
        ins = instruction(rng, labels)
        if ins is not None:
            body.append("\t" + ins)
    for k in range(labels):
        body.insert(rng.randrange(len(body) + 1), f"L{k}:")
    return body


def generated(rng: random.Random) -> str:
    """A kernel of 1-12 instructions from the ISA table, between labels, after a prologue that
    declares and fills the registers; sometimes with calls of a recursive helper function that
    runs instructions of its own."""
    labels = rng.randrange(1, 4)
    calls = rng.random() < 0.3
    prologue = PROLOGUE.format(n=REG_COUNT)
    decls = "".join(line + "\n" for line in prologue.split("\n") if line.strip().startswith("."))
    helper = HELPER.format(decls=decls, body="\n".join(_stream(rng, 2, False))) if calls else ""
    body = _stream(rng, labels, calls)
    return (f".version {VERSION}\n.target {TARGET}\n.address_size 64\n\n"
            ".global .align 16 .b8 gbuf[1024];\n.shared .align 16 .b8 sbuf[1024];\n"
            ".const .align 16 .b8 cbuf[256] = {1, 2, 3};\n\n" + helper +
            ".visible .entry fuzz(.param .u64 p0, .param .u64 p1, .param .u32 p2)\n{\n"
            + prologue + "\n".join(body) + "\n\tret;\n}\n")


# ------------------------------------------------------------------------------- minimizing
def crash_key(exc: BaseException) -> tuple[str, str, int]:
    """(exception type, file, line) of where a crash was raised: crashes with one key are one bug."""
    import traceback

    tb = traceback.extract_tb(exc.__traceback__)
    last = tb[-1] if tb else None
    return (type(exc).__name__, last.filename.rsplit("/ptxvm/", 1)[-1] if last else "?", last.lineno if last else 0)


def crashes_with(text: str, key: tuple) -> bool:
    try:
        run_case(text)
    except Exception as exc:  # noqa: BLE001 - any crash is what we look for
        return crash_key(exc) == key
    return False


def minimize(text: str, key: tuple, rounds: int = 3) -> str:
    """The text with as many lines, then tokens, removed as keep the crash `key` (greedy)."""
    for _ in range(rounds):
        before = text
        lines = text.split("\n")
        i = 0
        while i < len(lines):
            trial = lines[:i] + lines[i + 1:]
            if crashes_with("\n".join(trial), key):
                lines = trial
            else:
                i += 1
        text = "\n".join(lines)
        toks = tokens(text)
        for a, b in reversed(toks):
            trial = text[:a] + text[b:]
            if crashes_with(trial, key):
                text = trial
        if text == before:
            break
    return text


# ------------------------------------------------------------------------------- wall time
class Hang(Exception):
    """A case ran past its wall-time limit without the instruction budget stopping it."""


@contextlib.contextmanager
def time_limit(seconds: float):
    """Raise Hang in the block after `seconds` of wall time (SIGALRM; a no-op off the main thread
    or where there is no SIGALRM)."""
    import signal
    import threading

    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def ring(signum, frame):
        raise Hang(f"still running after {seconds} s")

    old = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
