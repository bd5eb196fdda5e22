"""Versions and targets (ISA 11.1): `.version`, `.target`, `.address_size`, and what an instruction,
a special register or a directive needs of them.

The minimum PTX ISA version of each target was measured with ptxas 13.0 and 13.5 (`PTX .version X does not
support .target sm_NN`); ptxas rejects a module without an sm target ("Target architecture not
defined") although the document names sm_10 as the default, so we do too.
"""
from __future__ import annotations

from ..isa.table import PTX_VERSIONS
from .context import TARGET_FLAGS, Context, sm_of

# target -> the first PTX ISA version that knows it (ptxas 13.0)
TARGET_MIN_PTX: dict[str, tuple[int, int]] = {
    "sm_10": (1, 0), "sm_11": (1, 0), "sm_12": (1, 2), "sm_13": (1, 2), "sm_20": (2, 0), "sm_21": (2, 0),
    "sm_30": (3, 0), "sm_32": (4, 0), "sm_35": (3, 1), "sm_37": (4, 1),
    "sm_50": (4, 0), "sm_52": (4, 1), "sm_53": (4, 2),
    "sm_60": (5, 0), "sm_61": (5, 0), "sm_62": (5, 0),
    "sm_70": (6, 0), "sm_72": (6, 1), "sm_75": (6, 3),
    "sm_80": (7, 0), "sm_86": (7, 1), "sm_87": (7, 4), "sm_88": (7, 3), "sm_89": (7, 8),
    "sm_90": (7, 8), "sm_90a": (8, 0),
    "sm_100": (8, 6), "sm_100a": (8, 6), "sm_100f": (8, 8),
    "sm_101": (8, 6), "sm_101a": (8, 6), "sm_101f": (8, 8),
    "sm_103": (8, 8), "sm_103a": (8, 8), "sm_103f": (8, 8),
    "sm_107": (9, 4), "sm_107a": (9, 4), "sm_107f": (9, 4),
    "sm_110": (9, 0), "sm_110a": (9, 0), "sm_110f": (9, 0),
    "sm_120": (8, 7), "sm_120a": (8, 7), "sm_120f": (8, 8),
    "sm_121": (8, 8), "sm_121a": (8, 8), "sm_121f": (8, 8),
}
LATEST = PTX_VERSIONS[-1]


def _fmt(v: tuple[int, int]) -> str:
    return f"{v[0]}.{v[1]}"


def check_module_header(ctx: Context) -> None:
    tree = ctx.tree
    head = tree.span
    if tree.version and tuple(tree.version) != (0, 0) and not ctx.version_known:
        ctx.error(_directive_span(ctx, ".version") or head,
                  f"unsupported .version {_fmt(tree.version)} (PTX ISA versions up to {_fmt(LATEST)} are known)")
    if not tree.target:
        ctx.error(_after_version(ctx) or head,
                  "missing .target directive (a module must name its target, e.g. .target sm_90)")
    else:
        tspan = _LazySpan(ctx, ".target", head)
        sm_words = []
        texmodes = []
        for word in tree.target:
            parsed = sm_of(word.replace("compute_", "sm_", 1))
            if parsed is not None:
                sm_words.append(word)
                key = word.replace("compute_", "sm_", 1)
                if key not in TARGET_MIN_PTX:
                    ctx.error(tspan.get(), f"unsupported .target '{word}'")
                elif ctx.version_known and tuple(tree.version) < TARGET_MIN_PTX[key]:
                    need = TARGET_MIN_PTX[key]
                    ctx.error(tspan.get(), f"PTX ISA {_fmt(tree.version)} does not support .target {word} "
                                     f"(it needs .version {_fmt(need)} or later)")
            elif word in TARGET_FLAGS:
                if word.startswith("texmode_"):
                    texmodes.append(word)
            else:
                ctx.error(tspan.get(), f"unknown .target option '{word}'")
        if not sm_words:
            ctx.error(tspan.get(), "no target architecture in .target (add one such as sm_90)")
        if len(set(texmodes)) > 1:
            ctx.error(tspan.get(), f"conflicting .target options '{texmodes[0]}' and '{texmodes[1]}'")
    if tree.address_size is not None:
        aspan = _LazySpan(ctx, ".address_size", head)
        if tree.address_size not in (32, 64):
            ctx.error(aspan.get(), f"illegal .address_size {tree.address_size} (must be 32 or 64)")
        elif tree.address_size == 32:
            if ctx.sm >= 90:
                ctx.error(aspan.get(), f".address_size 32: 32-bit addressing is not supported on {ctx.target} "
                                 "or later targets")
            else:
                ctx.warning(aspan.get(), ".address_size 32: ptxas 13 no longer compiles 32-bit code")
        if ctx.version_known and tuple(tree.version) < (2, 3):
            ctx.error(aspan.get(), ".address_size requires PTX ISA 2.3 or later")


def requirement_text(what: str, ptx: tuple[int, int], sm: int, ctx: Context) -> list[str]:
    """Problems of a feature (a special register, a directive) that needs PTX `ptx` and sm_`sm`."""
    out = []
    if ctx.version_known and tuple(ctx.version) < tuple(ptx):
        out.append(f"{what} requires PTX ISA {_fmt(ptx)} or later")
    if ctx.sm < sm:
        out.append(f"{what} requires .target sm_{sm} or higher")
    return out


class _LazySpan:
    """A directive's span, found only if a diagnostic needs it."""

    def __init__(self, ctx: Context, word: str, default):
        self.ctx, self.word, self.default, self._span = ctx, word, default, None

    def get(self):
        if self._span is None:
            self._span = _directive_span(self.ctx, self.word) or self.default
        return self._span


def _directive_span(ctx: Context, word: str):
    """The position of a module-header directive (the parser keeps no span for them)."""
    src = ctx.source
    if not src:
        return None
    import re

    m = re.search(r"(?m)^[ \t]*(" + re.escape(word) + r")\b", src)
    if m is None:
        return None
    return ctx.span_at(m.start(1), len(word))


def _after_version(ctx: Context):
    """Where ptxas reports a missing .target: the first token after `.version X.Y`."""
    from ..syntax.lexer import Lexer

    span = _directive_span(ctx, ".version")
    if span is None:
        return None
    lex = Lexer(ctx.source, ctx.offset(span))
    lex.next()  # the version number
    lex.next()
    if lex.kind == "eof":
        return None
    return ctx.span_at(lex.start, max(1, len(lex.value)))
