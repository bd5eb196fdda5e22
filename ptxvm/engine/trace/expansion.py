"""How many machine instructions (SASS) a PTX instruction form becomes, and whether its result has
a fixed latency. One declarative table, read by `info.describe` (InstrInfo.sass, InstrInfo.fixed).

Source: ptxas 13.0 -arch=sm_90a on the forms of benchmarks/timing/sass/forms.py, counted by
tools/sass_forms.py (raw result: benchmarks/timing/results/sass_forms_ptxas13.json; the SASS each
form becomes is listed there). `fixed`: the result's consumers wait through the control codes'
stall counts (ncu's "wait"); otherwise the producer sets a dependency barrier (a variable latency:
MUFU, shuffles, S2R, POPC/FLO/BREV, FRND, F2I/I2F through the XU; ncu's "short scoreboard").

A rule is (opcode, type test, required modifiers, forbidden modifiers, sass, fixed[, latency]); the
optional latency (cycles from issue to a dependent instruction, of the whole sequence) is where the
H200 measured one that the class's pipe latency does not give: benchmarks/timing/sass/latency.py,
one warp's dependent chains timed by %clock64 (raw: results/sass_latency_h200.json); the first rule
whose opcode matches, whose type test accepts the instruction's types and whose modifier tests pass
decides. Type tests: "any", "int" (an integer type), "64" (any 64-bit type), "f32", "f64", "half" (f16/bf16 and x2), "h1"
(scalar f16/bf16), or "d<-s" for cvt (destination / source kinds: i32, i64, i16, i8, f32, f64, h).
Forms ptxas removes (moves of register pairs, truncating cvt, cvta of a global pointer) are 0.
Not here (decided elsewhere in info.py): memory, branches, barriers, tensor shapes, shuffles and
votes (1 each).
"""
from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Expansion:
    sass: int  # machine instructions per PTX instruction (issue slots)
    fixed: bool = True  # the result has a fixed latency (consumers wait on the stall counts)
    latency: float | None = None  # dependent latency of the whole sequence when known (else per class)


# measured dependent latencies (results/sass_latency_h200.json, cycles per link of one warp's chain)
LAT_POPC = 17.0  # popc: POPC (a variable latency, not an ALU's 5)
LAT_CLZ = 18.0  # clz_iadd 23 = clz (FLO + IADD3) 18 + the link's add.s32 5
LAT_XU_CVT = 19.0  # F2I / F2F / I2F (.F64, .U64): i2f_fadd_f2i 28 = I2FP 5 + FADD 4 + F2I 19; f2f64_dadd_f2f32 46 = 2 x 19 + DADD 8
LAT_IMAD_HI = 9.0  # imad_hi: IMAD.HI.U32 (ptxas's stall count says 6)
LAT_IMAD_WIDE_ACC = 12.0  # imad_wide_u32: mad.wide.u32 = IMAD.WIDE.U32 + a 64-bit add
LAT_SHF64 = 8.0  # shl64: SHF.L.U32 + SHF.L.U64.HI (8.4)
LAT_REDUX = 44.0  # redux_add: REDUX.SUM to a uniform register + the move back
# IEEE fp32 rcp / sqrt / div (sqrt_rn, rcp_rn, div_rn of benchmarks/timing/sass/latency.py, results/
# sass_latency_rn_h200.json): a range check (VIADD, LOP3, ISETP, BRA round a slow-path CALL, BSSY /
# BSYNC) before the MUFU and its Newton steps, so one link costs far more than the MUFU
LAT_RCP_RN = 77.0  # MUFU.RCP + FFMA, FADD, FFMA behind the check: 76.7
LAT_SQRT_RN = 55.0  # MUFU.RSQ + FMULs / FFMAs behind the check: 55.2
LAT_DIV_RN = 57.0  # FCHK, MUFU.RCP, 5 FFMA: 57.1

# (opcode, type test, required modifiers, forbidden modifiers, sass, fixed[, latency])
RULES: tuple = (
    # integer division and remainder: a MUFU.RCP-based sequence (div.u32 18, div.s32 26, rem.u32 17);
    # by a constant ptxas multiplies by the reciprocal (div.u32 by 7: 7); 64-bit: a call (slow path) around
    # a 32-bit fast path when both operands fit (the fast path is what runs: ~div.u32)
    ("div", "64", (), (), 20, False),
    ("rem", "64", (), (), 20, False),
    ("div", "s32", (), (), 26, False),
    ("div", "any", (), ("approx", "full", "rn", "rz", "rm", "rp"), 18, False),
    ("rem", "any", (), (), 17, False),
    # 64-bit integer: pairs of 32-bit instructions (IADD3 + IADD3.X / IMAD.X, LOP3 x2, SHF x2),
    # compares ISETP + ISETP.EX, min/max compares and two SELs, multiplies IMAD.WIDE.U32 + 2 IMAD + IADD3
    ("add", "64", (), (), 2, True), ("sub", "64", (), (), 2, True), ("neg", "64", (), (), 2, True),
    ("and", "64", (), (), 2, True), ("or", "64", (), (), 2, True), ("xor", "64", (), (), 2, True),
    ("not", "64", (), (), 2, True), ("shl", "64", (), (), 2, True, LAT_SHF64), ("shr", "64", (), (), 2, True, LAT_SHF64),
    ("setp", "64", (), (), 2, True), ("selp", "64", (), (), 2, True),
    ("min", "64", (), (), 4, True), ("max", "64", (), (), 4, True), ("abs", "64", (), (), 5, True),
    ("mul", "64", (), ("wide",), 4, True), ("mad", "64", (), ("wide",), 5, True),
    ("popc", "64", (), (), 3, False, LAT_POPC + 5), ("clz", "64", (), (), 6, False, LAT_CLZ + 10),
    # 32-bit integer
    ("mul", "any", ("wide",), (), 1, True),
    ("mad", "any", ("wide",), (), 3, True, LAT_IMAD_WIDE_ACC),  # IMAD.WIDE.U32 + a 64-bit add
    ("mul", "any", ("hi",), (), 1, True, LAT_IMAD_HI), ("mad", "any", ("hi",), (), 1, True, LAT_IMAD_HI),
    ("mul24", "any", (), (), 3, True),
    ("abs", "int", (), (), 2, True),
    ("bfe", "any", (), (), 2, True), ("bfi", "any", (), (), 2, True),
    ("popc", "any", (), (), 1, False, LAT_POPC), ("brev", "any", (), (), 1, False),
    ("clz", "any", (), (), 2, False, LAT_CLZ),
    ("redux", "any", (), (), 2, False, LAT_REDUX),
    ("bfind", "any", (), (), 1, False),
    ("testp", "any", (), (), 2, True),
    # fp32 division, reciprocal, square root: MUFU plus Newton steps and range checks
    ("div", "f32", ("approx",), (), 5, False), ("div", "f32", ("full",), (), 8, False),
    ("div", "f32", (), (), 10, False, LAT_DIV_RN),  # the fast path (FCHK, MUFU.RCP, 5 FFMA; the slow path is a call)
    ("rcp", "f32", ("approx", "ftz"), (), 1, False), ("rcp", "f32", ("approx",), (), 7, False),
    ("rcp", "f32", (), (), 9, False, LAT_RCP_RN),
    ("sqrt", "f32", ("approx",), (), 4, False), ("sqrt", "f32", (), (), 9, False, LAT_SQRT_RN),
    ("rsqrt", "f32", ("ftz",), (), 1, False), ("rsqrt", "f32", (), (), 4, False),
    ("ex2", "f32", ("ftz",), (), 1, False), ("ex2", "f32", (), (), 4, False),
    ("lg2", "f32", ("ftz",), (), 1, False), ("lg2", "f32", (), (), 4, False),
    ("sin", "f32", (), (), 2, False), ("cos", "f32", (), (), 2, False), ("tanh", "f32", (), (), 1, False),
    # fp64 division, reciprocal, square root (MUFU.RCP64H / RSQ64H + DFMA iterations)
    ("div", "f64", ("approx",), (), 2, False), ("div", "f64", (), (), 16, False),
    ("rcp", "f64", ("approx",), (), 2, False), ("rcp", "f64", (), (), 13, False),
    ("sqrt", "f64", (), (), 20, False), ("rsqrt", "f64", (), (), 2, False),
    # scalar f16 / bf16: the half-register op plus a PRMT to place the result
    ("ex2", "half", (), (), 3, False),
    ("tanh", "half", (), (), 2, False),
    ("add", "h1", (), (), 2, True), ("sub", "h1", (), (), 2, True), ("mul", "h1", (), (), 2, True),
    ("fma", "h1", (), (), 2, True),
    # conversions (cvt.<d>.<s>)
    ("cvt", "i32<-i64", (), (), 0, True), ("cvt", "i16<-i32", (), (), 0, True), ("cvt", "i32<-i16", (), (), 0, True),
    ("cvt", "i16<-i64", (), (), 0, True), ("cvt", "i8<-i32", (), (), 0, True),
    ("cvt", "zext64", (), (), 0, True),  # u64.u32: the high word is RZ (or one shared zero: 0.5 in isolation)
    ("cvt", "i64<-i32", (), (), 1, True),  # s64.s32: SHF for the sign word
    ("cvt", "i32<-i8", (), (), 2, True), ("cvt", "i32<-i16s", (), (), 2, True),
    ("cvt", "f32<-i32", (), (), 1, True),  # I2FP.F32
    ("cvt", "f32<-i64", (), (), 1, False, LAT_XU_CVT), ("cvt", "f64<-i32", (), (), 1, False, LAT_XU_CVT), ("cvt", "f64<-i64", (), (), 1, False, LAT_XU_CVT),
    ("cvt", "i32<-f32", (), (), 1, False, LAT_XU_CVT), ("cvt", "i64<-f32", (), (), 1, False, LAT_XU_CVT), ("cvt", "i32<-f64", (), (), 1, False, LAT_XU_CVT),
    ("cvt", "i64<-f64", (), (), 1, False, LAT_XU_CVT), ("cvt", "f64<-f32", (), (), 1, False, LAT_XU_CVT), ("cvt", "f32<-f64", (), (), 1, False, LAT_XU_CVT),
    ("cvt", "f32<-f32", (), (), 1, False),  # FRND
    ("cvt", "h<-f32", (), (), 2, True),  # F2FP.PACK_AB + PRMT (x2 forms: 1, rule below)
    ("cvt", "hx2<-f32", (), (), 1, True),
    ("cvt", "f32<-h", (), (), 1, True),  # HADD2.F32 / a shift for bf16
    ("cvt", "tf32<-f32", (), (), 3, True),
    # moves of register pairs and generic <-> global conversions are renames
    ("mov", "pack64", (), (), 0, True),
    ("cvta", "any", ("to", "global"), (), 0, True),
    ("cvta", "global", (), ("to",), 0, True),
)

_INT = {"u8": "i8", "s8": "i8", "b8": "i8", "u16": "i16", "s16": "i16", "b16": "i16", "u32": "i32", "s32": "i32",
        "b32": "i32", "u64": "i64", "s64": "i64", "b64": "i64"}
_HALF = ("f16", "bf16", "f16x2", "bf16x2")


def _kind(t: str) -> str:
    if t in _INT:
        return _INT[t]
    if t in ("f16", "bf16"):
        return "h"
    if t in ("f16x2", "bf16x2"):
        return "hx2"
    return t  # f32 f64 tf32


def _type_ok(test: str, opcode: str, mods, types: list[str]) -> bool:
    if test == "any":
        return True
    if test == "64":
        return any(t in ("u64", "s64", "b64") for t in types)
    if test in ("f32", "f64", "s32"):
        return bool(types) and types[-1] == test if test != "f32" else "f32" in types and "f64" not in types
    if test == "half":
        return any(t in _HALF for t in types)
    if test == "h1":
        return bool(types) and types[-1] in ("f16", "bf16")
    if test == "int":
        return bool(types) and types[-1] in _INT
    if test == "global":
        return "global" in mods
    if test == "zext64":
        return len(types) >= 2 and types[0] in ("u64", "b64") and types[1] in ("u32", "b32", "u16", "u8")
    if test == "pack64":
        return False  # decided from the operands (see `expansion`)
    if "<-" in test and len(types) >= 2:
        d, s = test.split("<-")
        kd, ks = _kind(types[0]), _kind(types[1])
        if s == "i16s":
            return kd == d and types[1] == "s16"
        return kd == d and ks == s
    return False


def expansion(opcode: str, mods, types: list[str], pair_move: bool = False) -> Expansion:
    """The table's answer for one PTX instruction (`types` as info._types lists them);
    `pair_move`: a mov whose one side is a brace list of registers (mov.b64 {lo, hi})."""
    if opcode == "mov" and pair_move and any(t in ("b64", "u64", "s64") for t in types):
        return Expansion(0)  # mov.b64 {lo, hi}: a register pair (mov.b32 {h, h} is a PRMT)
    for rule in RULES:
        op, test, need, forbid, sass, fixed = rule[:6]
        if op != opcode or not _type_ok(test, opcode, mods, types):
            continue
        if any(x not in mods for x in need) or any(x in mods for x in forbid):
            continue
        return Expansion(sass, fixed, rule[6] if len(rule) > 6 else None)
    return Expansion(1, True)


_TYPES = re.compile(r"^(?:[us](?:8|16|32|64)|b(?:8|16|32|64)|f(?:16|32|64)|bf16|f16x2|bf16x2|tf32|pred)$")


def expansion_of_text(line: str) -> Expansion:
    """The expansion of a PTX instruction given as text (for tools: no parse, no ISA match)."""
    s = line.strip().rstrip(";")
    if s.startswith("@"):
        s = s.split(None, 1)[1] if " " in s else ""
    head, _, rest = s.partition(" ")
    parts = head.split(".")
    opcode, mods = parts[0], tuple(parts[1:])
    types = [x for x in mods if _TYPES.match(x)]
    return expansion(opcode, mods, types, pair_move=opcode == "mov" and "{" in rest)
