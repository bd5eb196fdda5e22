"""Malformed input of any kind yields PtxSyntaxError and nothing else; whatever parses prints to
a fixed point."""
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ptxvm.errors import PtxSyntaxError
from ptxvm.frontend import parse
from ptxvm.syntax import ast
from ptxvm.syntax._exprs import BINARY_PRECEDENCE, UNARY_OPERATORS
from ptxvm.syntax.lexer import EOF, tokenize
from ptxvm.syntax.printer import print_expr, print_instruction, print_module

from helpers import HEADER, corpus_files, parse_general, statement_spans

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

SEED = HEADER + """
.global .align 4 .b8 gvals[8] = {1, 0, 0, 0, 2, 0, 0, 0};
.global .align 8 .u64 gptr = generic(gvals)+4;
.global .samplerref smp = { addr_mode_0 = wrap, filter_mode = linear };
.extern .func (.param .b32 r) ext(.param .b64 a);
.visible .entry k(.param .u64 .ptr.global.align 16 p, .param .align 8 .b8 s[16])
.maxntid 128, 1, 1
{
	.reg .pred %p<3>;
	.reg .b32 %r<8>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	setp.lt.s32 %p1|%p2, %r1, (1 << 4) + 2;
	@!%p1 bra $L__BB0_2;
	ld.global.v2.f32 {%f1, _}, [%rd1+-8];
	mad.lo.s32 %r2, %r1, 0x10, -1;
	{ .param .b64 param0; .param .b32 retval0; st.param.b64 [param0+0], %rd1;
	  call.uni (retval0), ext, (param0); }
	tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f1}, [%rd1, {%f2, %f3}];
$L__BB0_2:
	.loc 1 2 3, function_name $L__info_string0, inlined_at 1 5 7
	add.f32 %f1, %f1, 0f3F800000;
	ret;
}
.section .debug_str
{
$L__info_string0:
.b8 95, 90, 0
.b32 $L__info_string0+4
}
"""

VOCABULARY = [
    ".version", "8.0", ".target", "sm_90", ".address_size", "64", ".entry", ".func", ".visible", ".extern",
    ".reg", ".param", ".global", ".shared", ".local", ".const", ".b32", ".u64", ".f32", ".pred", ".v4",
    ".align", ".ptr", ".attribute", "(", ")", ".managed", "{", "}", "[", "]", "<", ">", ",", ";", ":", "@",
    "!", "|", "_", "+", "-", "*", "/", "%", "?", "=", "add.s32", "ld.global.u32", "bra", "call.uni", "ret",
    "mov.u32", "%r1", "%rd2", "%p1", "%tid.x", "$L1", "k", "x", "generic", "0f3F800000", "0d3FF0000000000000",
    "0x10", "017", "42U", "1.5", "-1", ".loc", "1", "2", "function_name", "inlined_at", ".section",
    ".debug_info", ".b8", ".file", '"a.cu"', ".pragma", '"nounroll"', ".branchtargets", ".callprototype",
    ".calltargets", "//c\n", "/* c */", "\n", "@@DWARF .byte 1\n", "0xFF", ".alias", ".noreturn",
]


def check(text: str) -> None:
    """The contract: a module or a PtxSyntaxError; the fast paths change nothing; what parses
    prints to a fixed point."""
    try:
        module = parse(text, "fuzz.ptx")
    except PtxSyntaxError as error:
        assert error.diagnostics
        for d in error.diagnostics:
            assert "internal parser error" not in d.message
            assert d.span.line >= 1 and d.span.col >= 1
        assert str(error)
        with pytest.raises(PtxSyntaxError) as general:
            parse_general(text, "fuzz.ptx")
        assert general.value.diagnostics == error.diagnostics
        return
    general = parse_general(text, "fuzz.ptx")
    assert general == module and statement_spans(general) == statement_spans(module)
    printed = print_module(module)
    again = parse(printed, "fuzz.ptx")
    assert again == module
    assert print_module(again) == printed


@FUZZ
@given(st.binary(max_size=400))
def test_random_bytes(data):
    check(data.decode("latin-1"))


@FUZZ
@given(st.binary(max_size=300))
def test_random_bytes_after_a_valid_header(data):
    check(HEADER + data.decode("utf-8", errors="replace"))


@FUZZ
@given(st.lists(st.sampled_from(VOCABULARY), max_size=80), st.booleans())
def test_token_soup(tokens, with_header):
    check((HEADER if with_header else "") + " ".join(tokens))


def _seed_tokens():
    return [(t.start, t.end) for t in tokenize(SEED) if t.kind != EOF]


SEED_TOKENS = _seed_tokens()


@st.composite
def mutated_seed(draw):
    """SEED with a few of its tokens deleted, duplicated, swapped or replaced."""
    pieces = [SEED[a:b] for a, b in SEED_TOKENS]
    gaps = [SEED[b:a] for (_, b), (a, _) in zip(SEED_TOKENS, SEED_TOKENS[1:])] + ["\n"]
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(pieces) - 1))
        action = draw(st.sampled_from(["delete", "duplicate", "swap", "replace"]))
        if action == "delete":
            pieces[i] = ""
        elif action == "duplicate":
            pieces[i] = pieces[i] + " " + pieces[i]
        elif action == "swap":
            j = draw(st.integers(0, len(pieces) - 1))
            pieces[i], pieces[j] = pieces[j], pieces[i]
        else:
            pieces[i] = draw(st.sampled_from(VOCABULARY))
    return SEED[: SEED_TOKENS[0][0]] + "".join(p + g for p, g in zip(pieces, gaps))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_seed())
def test_mutations_of_valid_ptx(text):
    check(text)


SMALL_CORPUS = [p for p in corpus_files("valid", "ptx") if p.stat().st_size < 12_000]


@st.composite
def mutated_corpus_file(draw):
    """A small corpus file with a few tokens deleted, duplicated, moved or replaced."""
    text = draw(st.sampled_from(SMALL_CORPUS)).read_text()
    spans = [(t.start, t.end) for t in tokenize(text) if t.kind != EOF]
    pieces = [text[a:b] for a, b in spans]
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(pieces) - 1))
        action = draw(st.sampled_from(["delete", "duplicate", "move", "replace"]))
        if action == "delete":
            pieces[i] = ""
        elif action == "duplicate":
            pieces[i] = pieces[i] + " " + pieces[i]
        elif action == "move":
            j = min(len(pieces) - 1, i + draw(st.integers(1, 5)))
            pieces[i], pieces[j] = pieces[j], pieces[i]
        else:
            pieces[i] = draw(st.sampled_from(VOCABULARY))
    gaps = [text[b:a] for (_, b), (a, _) in zip(spans, spans[1:])] + ["\n"]
    return text[: spans[0][0]] + "".join(p + g for p, g in zip(pieces, gaps))


@pytest.mark.skipif(not SMALL_CORPUS, reason="no corpus files yet")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_corpus_file())
def test_mutations_of_corpus_files(text):
    check(text)


SEPARATORS = [" ", "\t", "\n", "  ", " /* c */ ", "// c\n", "\r\n", ""]


@FUZZ
@given(st.lists(st.sampled_from(SEPARATORS), min_size=len(SEED_TOKENS), max_size=len(SEED_TOKENS)))
def test_respaced_valid_ptx(separators):
    """The seed's tokens with other blanks and comments between them (sometimes none at all)."""
    check("".join(SEED[a:b] + sep for (a, b), sep in zip(SEED_TOKENS, separators)))


@FUZZ
@given(st.integers(0, len(SEED)), st.integers(0, 40), st.text(max_size=8))
def test_character_edits(position, length, insert):
    check(SEED[:position] + insert + SEED[position + length :])


def test_seed_is_valid():
    check(SEED)
    parse(SEED)


@pytest.mark.parametrize("path", corpus_files("valid")[:6], ids=lambda p: p.name)
def test_truncations_of_corpus_files(path):
    text = path.read_text()
    for cut in range(0, len(text), max(1, len(text) // 60)):
        check(text[:cut])


@pytest.mark.parametrize(
    "text",
    [
        HEADER + ".entry k() {\n" + " " * 20000 + "x",
        HEADER + ".entry k() {\n" + "\t" * 10000 + "// c\n" * 2000 + "add.s32 %r1" + " ," * 5000,
        HEADER + ".entry k() {\n.loc 1 2 3" + " " * 20000 + "," + " " * 5000,
        HEADER + ".section .x {\n.b8 1" + "\n" * 20000 + ", 2 }",
        HEADER + ".entry k() {\nL" + " " * 20000 + ": ret; }",
        HEADER + ".global .u8 x[] = {" + "1, " * 20000 + "}",
        HEADER + ".entry k() {\n" + "call.uni (r), f, (" + "a, " * 5000 + ");}",
        HEADER + ".entry k() {\n" + "/* " * 5000,
    ],
    ids=["blanks", "comments", "loc", "section", "label", "initializer", "call", "open-comments"],
)
def test_no_pathological_slowness(text):
    start = time.process_time()
    check(text)
    assert time.process_time() - start < 5


# ------------------------------------------------------------------------ printer/parser agreement

NAMES = st.sampled_from(["a", "b2", "$L1", "_x", "WARP_SZ"])
LEAVES = st.one_of(
    st.integers(0, 2**63 - 1).map(lambda v: ast.IntLit(v)),
    st.integers(0, 2**64 - 1).map(lambda v: ast.IntLit(v, True)),
    st.integers(0, 2**64 - 1).map(lambda bits: ast.FloatLit(bits, False)),
    NAMES.map(ast.SymbolRef),
)


def _compound(children):
    return st.one_of(
        st.tuples(st.sampled_from(UNARY_OPERATORS), children).map(lambda t: ast.Unary(*t)),
        st.tuples(st.sampled_from(["s64", "u64"]), children).map(lambda t: ast.Cast(*t)),
        st.tuples(st.sampled_from(sorted(BINARY_PRECEDENCE)), children, children).map(lambda t: ast.Binary(*t)),
        st.tuples(children, children, children).map(lambda t: ast.Conditional(*t)),
    )


EXPRESSIONS = st.recursive(LEAVES, _compound, max_leaves=12)


@FUZZ
@given(EXPRESSIONS)
def test_printed_expressions_parse_back(expr):
    (decl,) = parse(HEADER + f".global .s64 v = {print_expr(expr)};\n").items
    assert decl.init == expr


REGISTERS = st.sampled_from(["%r1", "%rd2", "%p1", "%f3"]).map(ast.Register)
OPERANDS = st.one_of(
    REGISTERS,
    st.builds(ast.Register, st.just("%tid"), st.sampled_from("xyz")),
    st.just(ast.Sink()),
    EXPRESSIONS.filter(lambda e: not isinstance(e, ast.SymbolRef)).map(ast.Immediate),
    st.builds(ast.Address, REGISTERS, st.none() | EXPRESSIONS),
    st.builds(ast.Address, st.just(None), EXPRESSIONS),
    st.lists(REGISTERS | st.just(ast.Sink()), min_size=1, max_size=4).map(lambda e: ast.VectorOperand(tuple(e))),
    st.builds(ast.PredPair, REGISTERS, REGISTERS),
    st.builds(ast.ArrayElement, NAMES.map(ast.SymbolRef), EXPRESSIONS),
)


@FUZZ
@given(st.lists(OPERANDS, max_size=5))
def test_printed_operands_parse_back(ops):
    insn = ast.Instruction("op", ("x",), tuple(ops))
    text = HEADER + ".global .u32 a, b2, _x;\n.entry k() {\n.reg .b32 %r1, %rd2, %p1, %f3;\n" + print_instruction(insn) + "\n}\n"
    (parsed,) = parse(text).function("k").body.statements[4:]
    assert parsed == insn
