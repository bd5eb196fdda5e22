"""Module-level constructs: header directives, functions, variables, debugging and linking."""
import pytest

from ptxvm.syntax import ast
from ptxvm.syntax.lexer import float_literal

from helpers import HEADER, module, parse


# ------------------------------------------------------------------------ header


@pytest.mark.parametrize(
    "header, version, target, address_size",
    [
        (".version 1.4\n.target sm_10, map_f64_to_f32\n", (1, 4), ("sm_10", "map_f64_to_f32"), None),
        (".version 2.3\n.target sm_20, texmode_independent\n.address_size 32\n", (2, 3), ("sm_20", "texmode_independent"), 32),
        (".version 7.8\n.target sm_90, debug\n.address_size 64\n", (7, 8), ("sm_90", "debug"), 64),
        (".version 8.8\n.target sm_100f\n", (8, 8), ("sm_100f",), None),
        (".version 9.0\n.target sm_90a\n.address_size 64\n", (9, 0), ("sm_90a",), 64),
        (".version 9.0\n.target compute_90, texmode_unified\n", (9, 0), ("compute_90", "texmode_unified"), None),
        (".version 8.7\n.target sm_120a\n", (8, 7), ("sm_120a",), None),
    ],
)
def test_header(header, version, target, address_size):
    m = parse(header, "t.ptx")
    assert (m.version, m.target, m.address_size) == (version, target, address_size)
    assert m.items == ()


def test_later_target_is_kept_as_directive():
    m = parse(".version 8.0\n.target sm_80\n.target sm_90\n", "t.ptx")
    assert m.target == ("sm_80",)
    assert m.items == (ast.Directive("target", (ast.SymbolRef("sm_90"),)),)


def test_module_keeps_file_name_and_source():
    text = HEADER + ".global .u32 x;\n"
    m = parse(text, "kernel.ptx")
    assert m.file == "kernel.ptx" and m.source == text
    assert m.items[0].span.file == "kernel.ptx" and m.items[0].span.line == 4


# ------------------------------------------------------------------------ functions


def test_entry_with_parameters_and_attributes():
    m = module(
        """
.visible .entry k(
    .param .u64 .ptr.global.align 16 p0,
    .param .u64 .ptr .shared p1,
    .param .u32 .ptr.align 8 p2,
    .param .align 8 .b8 blob[24],
    .param .u32 n
)
.maxntid 256, 1, 1
.minnctapersm 2
{
    ret;
}
"""
    )
    (f,) = m.items
    assert (f.kind, f.name, f.linkage) == ("entry", "k", "visible")
    p0, p1, p2, blob, n = f.params
    assert (p0.ptr, p0.ptr_space, p0.ptr_align, p0.type) == (True, "global", 16, "u64")
    assert (p1.ptr, p1.ptr_space, p1.ptr_align) == (True, "shared", None)
    assert (p2.ptr, p2.ptr_space, p2.ptr_align) == (True, None, 8)
    assert (blob.align, blob.type, blob.array) == (8, "b8", (24,))
    assert n == ast.VarDecl("param", "u32", "n")
    assert f.directives == (
        ast.Directive("maxntid", (ast.IntLit(256), ast.IntLit(1), ast.IntLit(1))),
        ast.Directive("minnctapersm", (ast.IntLit(2),)),
    )
    assert f.body.statements == (ast.Instruction("ret", (), ()),)


@pytest.mark.parametrize(
    "directives, expected",
    [
        (".reqntid 32, 32, 1 .reqnctapercluster 32, 32, 1 .blocksareclusters", ["reqntid", "reqnctapercluster", "blocksareclusters"]),
        (".explicitcluster .maxclusterrank 8", ["explicitcluster", "maxclusterrank"]),
        (".maxnreg 32 .maxnctapersm 4", ["maxnreg", "maxnctapersm"]),
        ('.pragma "nounroll";', ["pragma"]),
        (".some_future_directive 1, 2", ["some_future_directive"]),
    ],
)
def test_kernel_directives(directives, expected):
    (f,) = module(f".entry k() {directives} {{ ret; }}").items
    assert [d.name for d in f.directives] == expected


def test_pragma_arguments_are_strings():
    (f,) = module('.entry k() .pragma "nounroll", "x"; { ret; }').items
    assert f.directives == (ast.Directive("pragma", ("nounroll", "x")),)


def test_func_with_return_and_prototypes():
    m = module(
        """
.extern .func (.param .b32 func_retval0) vprintf
(
    .param .b64 vprintf_param_0,
    .param .b64 vprintf_param_1
)
;
.weak .func (.reg .b32 val) foo;
.func bar(.reg .b32 N, .reg .f64 dbl) .noreturn { trap; }
.visible .func (.param .u32 rval) baz(.param .u32 N, .param .align 4 .b8 numbers[]) { ret; }
.func .attribute(.unified(19, 95)) u() .abi_preserve 8 .abi_preserve_control 14 { ret; }
"""
    )
    vprintf, foo, bar, baz, u = m.items
    assert (vprintf.linkage, vprintf.body, len(vprintf.params)) == ("extern", None, 2)
    assert vprintf.returns == (ast.VarDecl("param", "b32", "func_retval0"),)
    assert (foo.linkage, foo.returns, foo.params, foo.body) == ("weak", (ast.VarDecl("reg", "b32", "val"),), (), None)
    assert bar.noreturn and [p.space for p in bar.params] == ["reg", "reg"]
    assert baz.params[1].array == (None,)
    assert u.attributes == ("unified(19, 95)",)
    assert [d.name for d in u.directives] == ["abi_preserve", "abi_preserve_control"]
    assert m.function("baz") is baz


def test_function_lookup_prefers_definition():
    m = module(".func f();\n.func f() { ret; }\n")
    assert m.function("f").body is not None
    assert len(m.functions()) == 2


def test_old_style_entry_without_parameter_list():
    m = parse(".version 1.4\n.target sm_13\n.entry cta_fft\n{\n.param .u32 a;\nexit;\n}\n", "t.ptx")
    (f,) = m.items
    assert f.params == () and f.body.statements[0] == ast.VarDecl("param", "u32", "a")


def test_alias():
    m = module(".visible .func foo(.param .u32 p) { ret; }\n.visible .func bar(.param .u32 p);\n.alias bar, foo;\n")
    assert m.items[2] == ast.Alias("bar", "foo")


# ------------------------------------------------------------------------ variables


def decl(text: str) -> ast.VarDecl:
    (d,) = module(text).items
    return d


def test_variable_forms():
    assert decl(".global .u32 loc;") == ast.VarDecl("global", "u32", "loc")
    assert decl(".global .v4 .f32 V;").vector == 4
    assert decl(".shared .align 16 .v2 .u16 uv[4];") == ast.VarDecl("shared", "u16", "uv", vector=2, array=(4,), align=16)
    assert decl(".local .u16 kernel[19][19];").array == (19, 19)
    assert decl(".extern .shared .align 16 .b8 smem[];") == ast.VarDecl(
        "shared", "b8", "smem", array=(None,), align=16, linkage="extern"
    )
    assert decl(".common .global .u32 gbl;").linkage == "common"
    assert decl(".weak .global .u32 w = 3;").init == ast.IntLit(3)
    assert decl(".visible .const .align 4 .b8 bar[8] = {0,0,0,0,2,0,0,0};").linkage == "visible"
    assert decl(".global .attribute(.managed) .align 4 .f32 mvar;").attributes == ("managed",)
    assert decl(".global .attribute(.unified(0x13, 95)) .u32 uu;").attributes == ("unified(19, 95)",)
    assert decl(".global .u32 %pct;").name == "%pct"
    assert decl(".const[2] .b32 banked;").space == "const[2]"
    assert decl(".tex .u32 oldtex;") == ast.VarDecl("tex", "u32", "oldtex")
    assert decl(".global .b32 t[0x10];").array == (16,)


def test_several_names_give_several_declarations():
    m = module(".global .u32 a, b[2] = {1, 2}, c = 3;")
    assert [(d.name, d.array, d.init) for d in m.items] == [
        ("a", (), None),
        ("b", (2,), ast.Initializer((ast.IntLit(1), ast.IntLit(2)))),
        ("c", (), ast.IntLit(3)),
    ]


def test_initializers():
    m = module(
        """
.const .f32 vals[8] = { 0.33, 0.25, 0f3F800000 };
.global .s32 offset[][2] = { {-1, 0}, {0, -1}, {1, 0}, {0, 1} };
.global .u32 foo[] = { 2, 3, 5 };
.global .u64 ptr = generic(foo);
.global .u64 parr[] = { generic(foo), generic(foo)+4, foo+8, foo };
.global .u8 addr[] = { 0xff(foo), 0xff00(foo+4), 0xff0000(generic(foo)+4), 0xFF(1000 + 546) };
.global .s64 e = (1 << 3) + 2;
.global .samplerref s = { addr_mode_0 = clamp_to_border, filter_mode = linear };
.global .texref t = { width = 4 };
"""
    )
    vals, offset, foo, ptr, parr, addr, e, s, t = (d.init for d in m.items)
    assert vals.items == (
        ast.FloatLit(float_literal("0.33"), False),
        ast.FloatLit(float_literal("0.25"), False),
        ast.FloatLit(0x3F800000, True),
    )
    assert offset.items[1] == ast.Initializer((ast.IntLit(0), ast.Unary("-", ast.IntLit(1))))
    assert m.items[1].array == (None, 2)
    assert ptr == ast.Generic("foo")
    assert parr.items == (
        ast.Generic("foo"),
        ast.Generic("foo", ast.IntLit(4)),
        ast.Binary("+", ast.SymbolRef("foo"), ast.IntLit(8)),
        ast.SymbolRef("foo"),
    )
    assert addr.items == (
        ast.Mask(0xFF, ast.SymbolRef("foo")),
        ast.Mask(0xFF00, ast.Binary("+", ast.SymbolRef("foo"), ast.IntLit(4))),
        ast.Mask(0xFF0000, ast.Generic("foo", ast.IntLit(4))),
        ast.Mask(0xFF, ast.Binary("+", ast.IntLit(1000), ast.IntLit(546))),
    )
    assert e == ast.Binary("+", ast.Binary("<<", ast.IntLit(1), ast.IntLit(3)), ast.IntLit(2))
    assert s.items == (
        ast.FieldInit("addr_mode_0", ast.SymbolRef("clamp_to_border")),
        ast.FieldInit("filter_mode", ast.SymbolRef("linear")),
    )
    assert t.items == (ast.FieldInit("width", ast.IntLit(4)),)


def test_large_byte_initializer():
    values = ", ".join(str(i % 256) for i in range(5000))
    d = decl(f".global .align 1 .b8 blob[5000] = {{{values}}};")
    assert [v.value for v in d.init.items] == [i % 256 for i in range(5000)]


def test_opaque_types():
    m = module(".global .texref t1;\n.global .samplerref s1;\n.global .surfref sf;\n")
    assert [d.type for d in m.items] == ["texref", "samplerref", "surfref"]


# ------------------------------------------------------------------------ debugging


def test_file_directives():
    m = module('.file 1 "/tmp/a.cu"\n.file 2 "kernel.cu", 1339013327, 64118\n')
    assert m.items == (
        ast.FileDirective(1, "/tmp/a.cu"),
        ast.FileDirective(2, "kernel.cu", 1339013327, 64118),
    )


def test_section():
    m = module(
        """
.section .debug_info
{
    .b32 LpubNames_end0-LpubNames_begin0
LpubNames_begin0:
    .b8 0x2b, 0x00, 2
    .b32 .debug_abbrev
    .b32 .debug_loc+0x4
    .b8 -11, 11
    .b16 -5, 7
    .b64 -1
    .b32 info_label1+12
    .b8 95, 90, 0
    .4byte 1
    .quad 2
}
"""
    )
    (section,) = m.items
    assert section.name == ".debug_info"
    e = section.entries
    assert e[0] == ast.SectionEntry(
        "b32", (ast.Binary("-", ast.SymbolRef("LpubNames_end0"), ast.SymbolRef("LpubNames_begin0")),)
    )
    assert e[1] == ast.SectionEntry("label", (ast.SymbolRef("LpubNames_begin0"),))
    assert e[2].values == (ast.IntLit(0x2B), ast.IntLit(0), ast.IntLit(2))
    assert e[3].values == (ast.SymbolRef(".debug_abbrev"),)
    assert e[4].values == (ast.Binary("+", ast.SymbolRef(".debug_loc"), ast.IntLit(4)),)
    assert e[5].values == (ast.Unary("-", ast.IntLit(11)), ast.IntLit(11))
    assert e[9] == ast.SectionEntry("b8", (ast.IntLit(95), ast.IntLit(90), ast.IntLit(0)))
    assert [x.directive for x in e[10:]] == ["4byte", "quad"]


def test_section_with_attributes():
    (section,) = module('.section .debug_pubnames, "", @progbits\n{\n.b8 1\n}\n').items
    assert section.attributes == ('""', "@progbits")


def test_dwarf_lines():
    m = parse(
        ".version 1.4\n.target sm_10\n@@DWARF .section .debug_pubnames, \"\", @progbits\n@@DWARF .byte 0x2b, 0x00\n",
        "t.ptx",
    )
    assert m.items == (ast.Dwarf('.section .debug_pubnames, "", @progbits'), ast.Dwarf(".byte 0x2b, 0x00"))


def test_module_pragma_and_unknown_directive():
    m = module('.pragma "nounroll";\n.future_thing 1, "x";\n')
    assert m.items == (ast.Directive("pragma", ("nounroll",)), ast.Directive("future_thing", (ast.IntLit(1), "x")))


def test_legacy_ptx_1x():
    """The shape of CUDA 2.x output: $-registers, params in the kernel list, .tex, @@DWARF."""
    m = parse(
        """
	.version 1.4
	.target sm_13
	// compiled with nvopencc
	.file	1	"<command-line>"
	.file	2	"/tmp/tmpxft_00001234_00000000-4_k.cudafe2.gpu"
	.tex .u32 texname;
	.const[1] .b32 banked[4];
	.entry _Z6kernelPfi (
		.param .u32 __cudaparm__Z6kernelPfi_a,
		.param .s32 __cudaparm__Z6kernelPfi_n)
	{
	.reg .u16 %rh<4>;
	.reg .u32 %r<9>;
	.reg .f32 %f<4>;
	.reg .pred %p<3>;
	.loc	15	4	0
$LBB1__Z6kernelPfi:
	cvt.u32.u16 	%r1, %tid.x;
	ld.param.s32 	%r2, [__cudaparm__Z6kernelPfi_n];
	setp.le.s32 	%p1, %r2, %r1;
	@%p1 bra 	$Lt_0_1026;
	tex.1d.v4.f32.s32 {%f1,%f2,%f3,_},[texname,{%r1,%r1,%r1,%r1}];
$Lt_0_1026:
	exit;
$LDWend__Z6kernelPfi:
	} // _Z6kernelPfi
	@@DWARF .byte 0x2b, 0x00
""",
        "old.ptx",
    )
    assert (m.version, m.target, m.address_size) == ((1, 4), ("sm_13",), None)
    kernel = m.function("_Z6kernelPfi")
    assert [p.name for p in kernel.params] == ["__cudaparm__Z6kernelPfi_a", "__cudaparm__Z6kernelPfi_n"]
    tex = [s for s in kernel.body.statements if isinstance(s, ast.Instruction) and s.opcode == "tex"][0]
    assert tex.operands[1] == ast.BracketList(
        (ast.Immediate(ast.SymbolRef("texname")), ast.VectorOperand((ast.Register("%r1"),) * 4))
    )
    assert isinstance(m.items[-1], ast.Dwarf)


def test_dollar_registers():
    m = parse(".version 1.2\n.target sm_10\n.entry k\n{\n.reg .u32 $r<3>;\n.reg .pred $p1;\n@$p1 add.u32 $r1, $r2, 1;\n}\n", "t")
    insn = m.function("k").body.statements[-1]
    assert insn.guard == ast.Guard("$p1") and insn.operands[:2] == (ast.Register("$r1"), ast.Register("$r2"))
