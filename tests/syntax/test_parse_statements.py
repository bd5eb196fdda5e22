"""Statements inside function bodies: labels, guards, opcodes, every operand form, blocks and the
directives that live in bodies."""
import pytest

from ptxvm.syntax import ast
from ptxvm.syntax.lexer import float_literal

from helpers import body, instruction, module, operands

R = ast.Register
Imm = ast.Immediate
I = ast.IntLit
Sym = ast.SymbolRef


def test_instruction_parts():
    insn = instruction("@!%p1 mad.lo.s32 %r1, %r2, %r3, %r4;")
    assert (insn.opcode, insn.modifiers, insn.name) == ("mad", ("lo", "s32"), "mad.lo.s32")
    assert insn.guard == ast.Guard("%p1", negated=True)
    assert insn.operands == (R("%r1"), R("%r2"), R("%r3"), R("%r4"))


@pytest.mark.parametrize(
    "text, opcode, modifiers",
    [
        (
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%rd1], [%rd2, {%r1, %r2}], [%rd3];",
            "cp",
            ("async", "bulk", "tensor", "2d", "shared::cluster", "global", "mbarrier::complete_tx::bytes"),
        ),
        ("ld.global.L2::128B.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];", "ld", ("global", "L2::128B", "v4", "f32")),
        ("ld.global.L1::evict_last.u32 %r1, [%rd1];", "ld", ("global", "L1::evict_last", "u32")),
        ("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;", "tcgen05", ("alloc", "cta_group::1", "sync", "aligned", "shared::cta", "b32")),
        ("ret;", "ret", ()),
        ("exit ;", "exit", ()),
        ("bar.sync 0;", "bar", ("sync",)),
    ],
)
def test_opcodes(text, opcode, modifiers):
    insn = instruction(text)
    assert (insn.opcode, insn.modifiers) == (opcode, modifiers)


def test_guards():
    a, b, c, d = body("@%p1 bra L;\n@!%p2 bra L;\n@ !%p3 bra L;\n@ p bra L;\nL: ret;", ".global .u32 dummy;")[:4]
    assert a.guard == ast.Guard("%p1") and b.guard == ast.Guard("%p2", True)
    assert c.guard == ast.Guard("%p3", True) and d.guard == ast.Guard("p")


def test_labels():
    stmts = body("$L__BB0_1:\nL2: L3: add.s32 %r1, %r1, 1;\nprototype_0 : bra $L__BB0_1;\n__skip$x:\n")
    assert [type(s).__name__ for s in stmts] == ["Label", "Label", "Label", "Instruction", "Label", "Instruction", "Label"]
    assert [s.name for s in stmts if isinstance(s, ast.Label)] == ["$L__BB0_1", "L2", "L3", "prototype_0", "__skip$x"]
    assert stmts[5].operands == (Imm(Sym("$L__BB0_1")),)


# ------------------------------------------------------------------------ operands


@pytest.mark.parametrize(
    "text, expected",
    [
        ("mov.u32 %r1, %tid.x;", (R("%r1"), R("%tid", "x"))),
        ("mov.u32 %r1, %tid .y;", (R("%r1"), R("%tid", "y"))),
        ("mov.u32 %r1, %laneid;", (R("%r1"), R("%laneid"))),
        ("mov.u32 %r1, %envreg3;", (R("%r1"), R("%envreg3"))),
        ("mov.u32 %r1, WARP_SZ;", (R("%r1"), Imm(Sym("WARP_SZ")))),
        ("vote.sync.ballot.b32 %r1, !%p1, -1;", (R("%r1"), R("%p1", negated=True), Imm(ast.Unary("-", I(1))))),
        ("add.s32 %r1, %r2, 0x10;", (R("%r1"), R("%r2"), Imm(I(16)))),
        ("add.s32 %r1, %r2, 017;", (R("%r1"), R("%r2"), Imm(I(15)))),
        ("add.s32 %r1, %r2, 0b101;", (R("%r1"), R("%r2"), Imm(I(5)))),
        ("add.u32 %r1, %r2, 4294967295U;", (R("%r1"), R("%r2"), Imm(I(4294967295, True)))),
        ("mov.u64 %rd1, 0xFFFFFFFFFFFFFFFF;", (R("%rd1"), Imm(I(2**64 - 1, True)))),
        ("add.s32 %r1, %r2, (1+2)*3;", (R("%r1"), R("%r2"), Imm(ast.Binary("*", ast.Binary("+", I(1), I(2)), I(3))))),
        ("add.s32 %r1, %r2, 1?2:3;", (R("%r1"), R("%r2"), Imm(ast.Conditional(I(1), I(2), I(3))))),
        ("mov.f32 %f1, 0f3F800000;", (R("%f1"), Imm(ast.FloatLit(0x3F800000, True)))),
        ("mov.f32 %f1, 0d3FF0000000000000;", (R("%f1"), Imm(ast.FloatLit(0x3FF0000000000000, False)))),
        ("add.f32 %f1, %f2, 0.5;", (R("%f1"), R("%f2"), Imm(ast.FloatLit(float_literal("0.5"), False)))),
        ("add.f32 %f1, %f2, -1.5;", (R("%f1"), R("%f2"), Imm(ast.Unary("-", ast.FloatLit(float_literal("1.5"), False))))),
        ("ld.global.u32 %r1, [%rd1];", (R("%r1"), ast.Address(R("%rd1")))),
        ("ld.global.u32 %r1, [%rd1+8];", (R("%r1"), ast.Address(R("%rd1"), I(8)))),
        ("ld.global.u32 %r1, [%rd1+-4];", (R("%r1"), ast.Address(R("%rd1"), ast.Unary("-", I(4))))),
        ("ld.global.u32 %r1, [%rd1 + 4*2];", (R("%r1"), ast.Address(R("%rd1"), ast.Binary("*", I(4), I(2))))),
        ("ld.local.u32 %r1, [16];", (R("%r1"), ast.Address(None, I(16)))),
        ("ld.global.u32 %r1, [g];", (R("%r1"), ast.Address(Sym("g")))),
        ("ld.global.u32 %r1, [g+12];", (R("%r1"), ast.Address(Sym("g"), I(12)))),
        ("ld.global.u32 %r1, g[3];", (R("%r1"), ast.ArrayElement(Sym("g"), I(3)))),
        ("mov.u64 %rd1, g;", (R("%rd1"), Imm(Sym("g")))),
        ("mov.u64 %rd1, g+4;", (R("%rd1"), Imm(ast.Binary("+", Sym("g"), I(4))))),
        ("setp.lt.s32 %p1|%p2, %r1, 16;", (ast.PredPair(R("%p1"), R("%p2")), R("%r1"), Imm(I(16)))),
        ("elect.sync _|%p1, 0xffffffff;", (ast.PredPair(ast.Sink(), R("%p1")), Imm(I(0xFFFFFFFF)))),
        ("mov.b64 {%r1, %r2}, %rd1;", (ast.VectorOperand((R("%r1"), R("%r2"))), R("%rd1"))),
        ("ld.global.v4.u32 {%r1, _, %r3, _}, [%rd1];", (ast.VectorOperand((R("%r1"), ast.Sink(), R("%r3"), ast.Sink())), ast.Address(R("%rd1")))),
        ("st.global.v2.u32 [%rd1], {%r1, 0};", (ast.Address(R("%rd1")), ast.VectorOperand((R("%r1"), Imm(I(0)))))),
    ],
)
def test_operands(text, expected):
    assert operands(text, ".global .u32 g[4];") == expected


def test_texture_operands():
    ops = operands(
        "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}|%p1, [tex, smp, {%f5, %f6}];",
        ".global .texref tex;\n.global .samplerref smp;",
    )
    assert ops == (
        ast.PredPair(ast.VectorOperand((R("%f1"), R("%f2"), R("%f3"), R("%f4"))), R("%p1")),
        ast.BracketList((Imm(Sym("tex")), Imm(Sym("smp")), ast.VectorOperand((R("%f5"), R("%f6"))))),
    )
    assert operands("tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];")[1] == ast.BracketList(
        (R("%rd1"), ast.VectorOperand((R("%f5"), R("%f6"))))
    )


@pytest.mark.parametrize(
    "text, expected",
    [
        ("call f;", (Imm(Sym("f")),)),
        ("call f, ();", (Imm(Sym("f")), ast.ParamList(()))),
        ("call.uni (r), f, (a, b);", (ast.ParamList((Imm(Sym("r")),)), Imm(Sym("f")), ast.ParamList((Imm(Sym("a")), Imm(Sym("b")))))),
        ("call.uni (r),\n\tf,\n\t(\n\ta,\n\tb\n\t);", (ast.ParamList((Imm(Sym("r")),)), Imm(Sym("f")), ast.ParamList((Imm(Sym("a")), Imm(Sym("b")))))),
        ("call (r), %rd1, (a), proto;", (ast.ParamList((Imm(Sym("r")),)), R("%rd1"), ast.ParamList((Imm(Sym("a")),)), Imm(Sym("proto")))),
        ("call %rd1, (4, a), targets;", (R("%rd1"), ast.ParamList((Imm(I(4)), Imm(Sym("a")))), Imm(Sym("targets")))),
        ("@%p1 call f, (a);", (Imm(Sym("f")), ast.ParamList((Imm(Sym("a")),)))),
    ],
)
def test_calls(text, expected):
    insn = instruction(text, ".func f(.param .b32 x);")
    assert insn.opcode == "call" and insn.operands == expected


def test_comments_and_line_breaks_inside_statements():
    compact = instruction("add.s32 %r1, %r2, 1;")
    assert instruction("add.s32 /* dst */ %r1,\n    %r2, // src\n 1 ;") == compact
    assert instruction("add.s32\t%r1 ,%r2 ,1;") == compact


# ------------------------------------------------------------------------ registers and scopes


def test_bare_register_names_follow_declarations():
    stmts = body(
        ".reg .b32 r1, r2;\n.reg .v4 .f32 v;\n.reg .pred p, q;\n"
        "add.s32 r1, r2, x;\nmov.f32 %f1, v.y;\n@p setp.eq.s32 q, r1, 0;\nmov.u32 r1, %pct;",
        ".global .u32 x;\n.global .u32 %pct;",
    )
    add, mov, setp, mov2 = stmts[-4:]
    assert add.operands == (R("r1"), R("r2"), Imm(Sym("x")))
    assert mov.operands == (R("%f1"), R("v", "y"))
    assert setp.operands[0] == R("q") and setp.guard == ast.Guard("p")
    assert mov2.operands == (R("r1"), Imm(Sym("%pct")))


def test_parameterized_register_ranges():
    stmts = body(".reg .b32 q<3>;\nmov.u32 q2, 1;\nmov.u32 q3, 1;")
    assert stmts[0] == ast.VarDecl("reg", "b32", "q", count=3)
    assert stmts[1].operands[0] == R("q2")
    assert stmts[2].operands[0] == Imm(Sym("q3"))  # outside the range: not a register


def test_nested_scopes_shadow_and_end():
    stmts = body(
        "mov.u64 %rd1, x;\n{\n.reg .b64 x;\nmov.u64 x, 1;\n}\nmov.u64 %rd1, x;",
        ".global .u64 x;",
    )
    before, block, after = stmts
    assert before.operands[1] == Imm(Sym("x"))
    assert block.statements[1].operands[0] == R("x")
    assert after.operands[1] == Imm(Sym("x"))


def test_reg_params_are_registers_in_the_body():
    m = module(".func (.reg .b32 rval) foo(.reg .b32 N)\n{\nadd.s32 rval, N, 1;\nret;\n}\n")
    assert m.items[0].body.statements[0].operands == (R("rval"), R("N"), Imm(I(1)))


# ------------------------------------------------------------------------ other statements


def test_declarations_in_bodies():
    stmts = body(
        ".local .align 16 .b8 depot[48];\n.shared .align 4 .f32 sh[256];\n.param .b64 param0;\n"
        ".reg .pred a, b;\n.reg .v2 .b32 pair;\n.extern .shared .b8 dyn[];"
    )
    assert stmts == (
        ast.VarDecl("local", "b8", "depot", array=(48,), align=16),
        ast.VarDecl("shared", "f32", "sh", array=(256,), align=4),
        ast.VarDecl("param", "b64", "param0"),
        ast.VarDecl("reg", "pred", "a"),
        ast.VarDecl("reg", "pred", "b"),
        ast.VarDecl("reg", "b32", "pair", vector=2),
        ast.VarDecl("shared", "b8", "dyn", array=(None,), linkage="extern"),
    )


def test_loc_forms():
    stmts = body(
        ".loc 1 23 5\n.loc 2 152 3, function_name $L__info_string0, inlined_at 1 20 5\n"
        ".loc 1 15 3, function_name .debug_str+16, inlined_at 1 10 5\nret;"
    )
    assert stmts[:3] == (
        ast.Loc(1, 23, 5),
        ast.Loc(2, 152, 3, "$L__info_string0", None, (1, 20, 5)),
        ast.Loc(1, 15, 3, ".debug_str", 16, (1, 10, 5)),
    )


def test_pragma_and_generic_directives_in_bodies():
    stmts = body('.pragma "nounroll";\n.custom 3, "x";')
    assert stmts == (ast.Directive("pragma", ("nounroll",)), ast.Directive("custom", (I(3), "x")))


def test_control_flow_directives():
    stmts = body(
        "N0: N1: N2:\nts: .branchtargets N<3>;\nt2: .branchtargets N0, N2;\nbrx.idx %r1, ts;\n"
        "ct: .calltargets f, g;\n"
        "p1: .callprototype _ ;\n"
        "p2: .callprototype (.param .b32 _) _ (.param .b32 _, .param .b8 _[12]);\n"
        "p3: .callprototype _ (.param .f32 _) .noreturn;\n"
        "p4: .callprototype _ (.param .b32 _) .abi_preserve 10;",
        ".func f();\n.func g();",
    )
    ts, t2, brx, ct, p1, p2, p3, p4 = stmts[3:]
    assert ts == ast.BranchTargets("ts", ("N0", "N1", "N2"))
    assert t2 == ast.BranchTargets("t2", ("N0", "N2"))
    assert brx.operands == (R("%r1"), Imm(Sym("ts")))
    assert ct == ast.CallTargets("ct", ("f", "g"))
    assert p1 == ast.CallPrototype("p1", (), ())
    assert p2.returns == (ast.VarDecl("param", "b32", "_"),)
    assert p2.params == (ast.VarDecl("param", "b32", "_"), ast.VarDecl("param", "b8", "_", array=(12,)))
    assert p3.noreturn and p3.params == (ast.VarDecl("param", "f32", "_"),)
    assert p4.directives == (ast.Directive("abi_preserve", (I(10),)),)


def test_nested_blocks():
    stmts = body("{\n{ .reg .b32 t; mov.u32 t, 1; }\n}\n{}\nret;")
    outer, empty, ret = stmts
    (inner,) = outer.statements
    assert isinstance(inner, ast.Block) and len(inner.statements) == 2
    assert empty == ast.Block(()) and ret.opcode == "ret"


def test_statement_spans():
    m = module(".visible .entry k()\n{\n\t.reg .pred %p1;\n$L1:\n\t@%p1 bra \t$L1;\n\t.loc 1 2 3\n}\n")
    decl, label, bra, loc = m.items[0].body.statements
    assert (decl.span.line, decl.span.col, decl.span.length) == (6, 13, 3)
    assert (label.span.line, label.span.col, label.span.length) == (7, 1, 3)
    assert (bra.span.line, bra.span.col, bra.span.length) == (8, 7, 3)
    assert (bra.guard.span.line, bra.guard.span.col) == (8, 2)
    assert (loc.span.line, loc.span.col) == (9, 2)
    assert m.items[0].span.line == 4


def test_statements_without_terminator_continue_on_the_next_line():
    stmts = body(".loc 1 2 3\n, function_name f\n, inlined_at 1 9 9\n.loc 1 4 5\nret;")
    assert stmts[:2] == (ast.Loc(1, 2, 3, "f", None, (1, 9, 9)), ast.Loc(1, 4, 5))
    (section,) = module(".section .s\n{\n.b8 1\n, 2\n.b8 3 // c\n+ 4\nx: .b8 5\n}\n").items
    assert [e.values for e in section.entries] == [
        (I(1), I(2)),
        (ast.Binary("+", I(3), I(4)),),
        (Sym("x"),),
        (I(5),),
    ]


def test_comments_never_hide_or_expose_code():
    """A comment ends at its first `*/` or at the end of its line, whatever follows it."""
    stmts = body("{ /* a */ .param .b64 p0; }\n/* b */ L1: ret;\n// L2: ret;\n/* L3: */ ret; /***/ L4:")
    assert [type(s).__name__ for s in stmts] == ["Block", "Label", "Instruction", "Instruction", "Label"]
    assert [s.name for s in stmts if isinstance(s, ast.Label)] == ["L1", "L4"]
