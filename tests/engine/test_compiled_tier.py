"""The compiled tier (ptxvm/engine/compiled) against the interpreter, bit for bit.

Each family of fused instructions runs in one generated kernel: every lane loads three 64-bit
operands (random bits, and adversarial values: integer extremes, shift counts around the width,
signed zeros, infinities, NaN payloads, subnormals, the smallest normal, fma sums on rounding
midpoints and cancellations), runs the family's instructions, and stores each result. The
kernel runs with the tier off and with it forced on (threshold 0); the results and the launch
statistics must be identical, and every instruction under test must have run compiled.
"""
from __future__ import annotations

import numpy as np
import pytest

import ptxvm

numba = pytest.importorskip("numba", reason="the compiled tier needs Numba; without it the interpreter runs")

N = 4096
U32_EDGES = [0, 1, 2, 3, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFFFE, 31, 32, 33, 63, 64, 65, 0x12345678,
             # f32: signed zeros, infinities, NaNs (quiet, signalling, payloads), subnormals, normals
             0x7F800000, 0xFF800000, 0x7FC00000, 0x7FA00000, 0xFFC12345, 0x7FFFFFFF, 0x00000001, 0x007FFFFF,
             0x00800000, 0x80800000, 0x00400000, 0x80000001, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000, 0xBF800000,
             0x33800000, 0x3F800001, 0x4B000000, 0x0C000000, 0x20000000, 0x1F800000]
U64_EDGES = [0, 1, 2, 63, 64, 65, 127, 1 << 63, (1 << 63) - 1, (1 << 64) - 1, (1 << 64) - 2, 0xFFFFFFFF, 1 << 32,
             0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000, 0x7FF4000000000001, 0xFFF8000000000123,
             0x0000000000000001, 0x000FFFFFFFFFFFFF, 0x0010000000000000, 0x8010000000000000, 0x3FF0000000000000,
             0xBFF0000000000000, 0x7FEFFFFFFFFFFFFF, 0x3CA0000000000000, 0x0350000000000000]


def _f32_fma_cases(rng, n):
    """a, b, c whose exact a*b + c tests the float64 shortcut: c = -RN(a*b) (cancellation),
    c = a small multiple of a*b's ulp (midpoints), tiny products."""
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    p = a.astype(np.float64) * b.astype(np.float64)
    kind = rng.integers(0, 4, n)
    c = np.where(kind == 0, -p.astype(np.float32),
                 np.where(kind == 1, (np.spacing(p.astype(np.float32)) * np.float32(0.5)),
                          np.where(kind == 2, np.float32(1.0), rng.standard_normal(n).astype(np.float32))))
    tiny = rng.integers(0, 8, n) == 0
    a = np.where(tiny, a * np.float32(2.0**-70), a)
    b = np.where(tiny, b * np.float32(2.0**-60), b)
    # exact sums just past a float32 midpoint that the float64 sum rounds onto it:
    # (1 + 2^-23) * -(1 - 2^-23) + (2^24 + 2) = 2^24 + 1 + 2^-46, scaled by 2^e, either sign
    mid = rng.integers(0, 4, n) == 0
    e = np.ldexp(np.float32(1), rng.integers(-100, 100, n)).astype(np.float32)
    sign = np.where(rng.integers(0, 2, n) == 0, np.float32(1), np.float32(-1))
    a = np.where(mid, np.float32(1 + 2.0**-23) * e * sign, a)
    b = np.where(mid, np.float32(-(1 - 2.0**-23)), b)
    c = np.where(mid, np.float32(2.0**24 + 2) * e * sign, c)
    return a.view(np.uint32), b.view(np.uint32), c.astype(np.float32).view(np.uint32)


def operands(seed=0):
    """(a, b, c) as uint64 arrays of N lanes; the 32-bit forms use the low halves."""
    rng = np.random.default_rng(seed)
    cols = []
    for _ in range(3):
        col = rng.integers(0, 1 << 64, N, dtype=np.uint64)
        small = rng.integers(0, 1 << 32, N, dtype=np.uint64)
        col[N // 4: N // 2] = small[N // 4: N // 2]
        cols.append(col)
    e32, e64 = np.array(U32_EDGES, np.uint64), np.array(U64_EDGES, np.uint64)
    k = len(e32)
    # every pair of 32-bit edge values (a, b), c cycling; then pairs of 64-bit ones
    cols[0][:k * k] = np.repeat(e32, k)
    cols[1][:k * k] = np.tile(e32, k)
    cols[2][:k * k] = np.resize(e32, k * k)
    m = len(e64)
    base = k * k
    cols[0][base:base + m * m] = np.repeat(e64, m)
    cols[1][base:base + m * m] = np.tile(e64, m)
    cols[2][base:base + m * m] = np.resize(e64, m * m)
    # f32 fma / cancellation cases in the low halves of the last quarter
    q = N // 4
    a, b, c = _f32_fma_cases(rng, q)
    for col, v in zip(cols, (a, b, c)):
        col[N - q:] = v.astype(np.uint64)
    # f32 -> f16 rounding ties and near-ties (normal, subnormal, overflow) and f64 fma cancellations
    lo, hi = 2200, 2600
    h, g, c16 = _f16_cases(rng, hi - lo)
    for col, v in zip(cols, (h, g, c16)):
        col[lo:hi] = v.astype(np.uint64)
    a, b, c = _f64_fma_cases(rng, 200)
    for col, v in zip(cols, (a, b, c)):
        col[hi:hi + 200] = v
    for col in cols:  # ex2's edges: underflow near -126, tiny inputs the fixed point drops, overflow near 128
        col[hi + 200:hi + 400] = _ex2_cases(rng, 200)
    return cols


def _ex2_cases(rng, n):
    x = np.concatenate([rng.uniform(-152, -118, n // 4), rng.uniform(120, 130, n // 8),
                        np.ldexp(rng.uniform(-2, 2, n // 4), rng.integers(-40, -18, n // 4)),
                        np.round(rng.uniform(-130, 130, n // 8)) - np.where(rng.integers(0, 2, n // 8) == 0, 0, 2.0 ** -20)])
    x = np.resize(x.astype(np.float32), n)
    return x.view(np.uint32).astype(np.uint64)


def _f16_cases(rng, n):
    """f32 bits on and next to f16 rounding midpoints: exponents over f16's whole range (its
    subnormals, normals, the overflow threshold), low 13 (or more) bits = half an ulp, +-1."""
    out = []
    for _ in range(3):
        e = rng.integers(127 - 26, 127 + 17, n).astype(np.uint64)
        m = rng.integers(0, 1 << 23, n, dtype=np.uint64)
        shift = np.where(e >= 113, 13, np.minimum(13 + (113 - e), 23)).astype(np.uint64)
        m = (m >> shift << shift) | (np.uint64(1) << (shift - np.uint64(1)))
        m = m + rng.integers(-1, 2, n).astype(np.int64).astype(np.uint64) * (rng.integers(0, 2, n) == 0)
        sign = rng.integers(0, 2, n).astype(np.uint64) << np.uint64(31)
        out.append(sign | (e << np.uint64(23)) | (m & np.uint64(0x7FFFFF)))
    return out


def _f64_fma_cases(rng, n):
    """a, b, c (f64 bits) with c = -RN(a*b) (the exact error term is the result), c near a*b's
    ulp (double-rounding bait), tiny and huge scales."""
    a = rng.standard_normal(n) * np.ldexp(1.0, rng.integers(-600, 600, n))
    b = rng.standard_normal(n) * np.ldexp(1.0, rng.integers(-500, 500, n))
    with np.errstate(over="ignore"):  # an infinite product is a case too
        p = a * b
    kind = rng.integers(0, 3, n)
    c = np.where(kind == 0, -p, np.where(kind == 1, np.spacing(p) * 0.5, rng.standard_normal(n)))
    return a.view(np.uint64), b.view(np.uint64), c.view(np.uint64)


PROLOGUE = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry family(.param .u64 pin, .param .u64 pout)
{{
    .reg .b32 %r<{nr}>;
    .reg .b64 %rd<{nrd}>;
    .reg .pred %p<{np}>;
    .reg .b16 %hs<20>;
    ld.param.u64 %rd90, [pin];
    ld.param.u64 %rd91, [pout];
    mov.u32 %r90, %tid.x;
    mov.u32 %r91, %ctaid.x;
    mov.u32 %r92, %ntid.x;
    mad.lo.s32 %r93, %r91, %r92, %r90;
    mul.wide.u32 %rd92, %r93, 8;
    add.s64 %rd93, %rd90, %rd92;
    add.s64 %rd94, %rd91, %rd92;
    ld.global.u64 %rd1, [%rd93];
    ld.global.u64 %rd2, [%rd93+{n8}];
    ld.global.u64 %rd3, [%rd93+{n16}];
    ld.global.u32 %r1, [%rd93];
    ld.global.u32 %r2, [%rd93+{n8}];
    ld.global.u32 %r3, [%rd93+{n16}];
"""


def _opcode_and_rest(line: str) -> tuple[str, str]:
    words = line.split(None, 1)
    if words[0].startswith("@"):
        words = words[1].split(None, 1)
    return words[0], words[1]


def family_kernel(body: list[str]) -> tuple[str, list[str]]:
    """PTX running `body` (lines; results in %r10.., %rd10.., %p10..) and storing every
    result register; returns (ptx, result registers in output order)."""
    outs = []
    for line in body:
        for reg in _opcode_and_rest(line)[1].split(",")[0].split("|"):
            if reg.strip() not in outs and not reg.strip().startswith("{"):  # unpacked: stored by later lines
                outs.append(reg.strip())
    text = PROLOGUE.format(nr=100, nrd=100, np=100, n8=8 * N, n16=16 * N)
    text += "    setp.ne.b32 %p1, %r3, 0;\n    setp.ne.b32 %p2, %r2, 0;\n"
    text += "".join(f"    {line}\n" for line in body)
    for k, reg in enumerate(outs):
        off = f"+{8 * N * k}" if k else ""
        if reg.startswith("%rd"):
            text += f"    st.global.u64 [%rd94{off}], {reg};\n"
        elif reg.startswith("%r"):
            text += f"    st.global.u32 [%rd94{off}], {reg};\n"
        elif reg.startswith("%hs"):
            text += f"    st.global.u16 [%rd94{off}], {reg};\n"
        else:
            text += f"    selp.b32 %r95, 1, 0, {reg};\n    st.global.u32 [%rd94{off}], %r95;\n"
    text += "    ret;\n}\n"
    return text, outs


def run_both(body, monkeypatch, seed=0):
    monkeypatch.setenv("PTXVM_JIT_THRESHOLD", "0")
    ptx, outs = family_kernel(body)
    module = ptxvm.loads(ptx)
    kernel = module["family"]
    a, b, c = operands(seed)
    inp = np.concatenate([a, b, c])
    results = {}
    for jit in (False, True):
        out = np.zeros(N * len(outs), np.uint64)
        stats = kernel.launch(N // 256, 256, [inp, out], jit=jit)
        results[jit] = (out, stats)
    (off, s_off), (on, s_on) = results[False], results[True]
    code = module.program.code
    blocks = [op.fused for op in code if op.fused is not None]
    assert blocks and all(b.error is None for b in blocks), [b.error for b in blocks]
    covered = {b.pc + j for b in blocks for j in range(b.length) if b.function is not None}
    texts = {_opcode_and_rest(op.text)[0] for pc, op in enumerate(code) if pc in covered}
    wanted = {_opcode_and_rest(line)[0] for line in body}
    assert wanted <= texts, f"not compiled: {sorted(wanted - texts)}"
    for k, reg in enumerate(outs):
        x, y = off[k * N:(k + 1) * N], on[k * N:(k + 1) * N]
        bad = np.flatnonzero(x != y)
        assert not bad.size, (f"{reg} ({[l for l in body if reg in l.split(',')[0]]}) differs in {bad.size} lanes, "
                              f"e.g. lane {bad[0]}: a={a[bad[0]]:#x} b={b[bad[0]]:#x} c={c[bad[0]]:#x} "
                              f"interpreter {x[bad[0]]:#x} compiled {y[bad[0]]:#x}")
    assert (s_off.thread_instructions, s_off.warp_instructions) == (s_on.thread_instructions, s_on.warp_instructions)
    return off


INT32 = ["add.s32 %r10, %r1, %r2;", "sub.u32 %r11, %r1, %r2;", "mul.lo.s32 %r12, %r1, %r2;",
         "mul.hi.s32 %r13, %r1, %r2;", "mul.hi.u32 %r14, %r1, %r2;", "mul.wide.s32 %rd10, %r1, %r2;",
         "mul.wide.u32 %rd11, %r1, %r2;", "mad.lo.u32 %r15, %r1, %r2, %r3;", "mad.hi.s32 %r16, %r1, %r2, %r3;",
         "mad.hi.u32 %r17, %r1, %r2, %r3;", "mad.wide.s32 %rd12, %r1, %r2, %rd3;", "mad.wide.u32 %rd13, %r1, %r2, %rd3;",
         "neg.s32 %r18, %r1;", "abs.s32 %r19, %r1;", "min.s32 %r20, %r1, %r2;", "max.s32 %r21, %r1, %r2;",
         "min.u32 %r22, %r1, %r2;", "max.u32 %r23, %r1, %r2;", "add.s32 %r24, %r1, -7;", "mul.lo.u32 %r25, %r1, 3;",
         "sub.s32 %r26, 100, %r2;"]
INT64 = ["add.s64 %rd10, %rd1, %rd2;", "sub.u64 %rd11, %rd1, %rd2;", "mul.lo.s64 %rd12, %rd1, %rd2;",
         "mad.lo.u64 %rd13, %rd1, %rd2, %rd3;", "neg.s64 %rd14, %rd1;", "abs.s64 %rd15, %rd1;",
         "min.s64 %rd16, %rd1, %rd2;", "max.s64 %rd17, %rd1, %rd2;", "min.u64 %rd18, %rd1, %rd2;",
         "max.u64 %rd19, %rd1, %rd2;", "add.s64 %rd20, %rd1, -4;"]
LOGIC = ["and.b32 %r10, %r1, %r2;", "or.b32 %r11, %r1, %r2;", "xor.b32 %r12, %r1, %r2;", "not.b32 %r13, %r1;",
         "and.b64 %rd10, %rd1, %rd2;", "or.b64 %rd11, %rd1, %rd2;", "xor.b64 %rd12, %rd1, %rd2;", "not.b64 %rd13, %rd1;",
         "and.pred %p10, %p1, %p2;", "or.pred %p11, %p1, %p2;", "xor.pred %p12, %p1, %p2;", "not.pred %p13, %p1;",
         "and.pred %p14, %p1, !%p2;"]
SHIFT = ["and.b32 %r4, %r2, 127;", "shl.b32 %r10, %r1, %r4;", "shr.b32 %r11, %r1, %r4;", "shr.u32 %r12, %r1, %r4;",
         "shr.s32 %r13, %r1, %r4;", "shl.b64 %rd10, %rd1, %r4;", "shr.u64 %rd11, %rd1, %r4;",
         "shr.s64 %rd12, %rd1, %r4;", "shr.s32 %r14, %r1, %r2;", "shl.b32 %r15, %r1, 5;", "shr.s64 %rd13, %rd1, 63;"]
MOVE = ["mov.b32 %r10, %r1;", "mov.u64 %rd10, %rd1;", "mov.b32 %r11, 0f3F800000;", "mov.u64 %rd11, -1;",
        "mov.pred %p10, %p1;", "selp.b32 %r12, %r1, %r2, %p1;", "selp.b64 %rd12, %rd1, %rd2, %p2;",
        "selp.f32 %r13, %r1, 0f00000000, %p2;", "@%p1 mov.b32 %r14, %r2;", "@!%p2 add.s32 %r14, %r14, 1;",
        "cvt.u64.u32 %rd13, %r1;", "cvt.s64.s32 %rd14, %r1;", "cvt.u32.u64 %r15, %rd1;", "cvt.s32.s64 %r16, %rd1;",
        "cvt.u64.s32 %rd15, %r1;", "cvt.s64.u32 %rd16, %r2;", "cvt.u32.s32 %r17, %r2;"]


def _setp_lines(types, ops, reg, extra=""):
    lines, k = [], 10
    for t in types:
        a, b = ("%rd1", "%rd2") if t.endswith("64") else ("%r1", "%r2")
        for op in ops:
            lines.append(f"setp.{op}{extra}.{t} %p{k}|%p{k + 1}, {a}, {b};")
            k += 2
    return lines


SETP_INT = _setp_lines(["s32", "u32", "s64", "u64"], ["eq", "ne", "lt", "le", "gt", "ge"], "%p") + \
    _setp_lines(["u32", "b64"], ["lo", "ls", "hi", "hs"], "%p")[:4] + ["setp.eq.b32 %p90, %r1, %r2;"]
FCMP = ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"]
SETP_FLOAT = _setp_lines(["f32", "f64"], FCMP, "%p") + [f"setp.{op}.ftz.f32 %p{70 + i}, %r1, %r2;" for i, op in enumerate(FCMP[:8])] + \
    ["setp.lt.and.s32 %p90|%p91, %r1, %r2, %p1;", "setp.gt.or.f32 %p92|%p93, %r1, %r2, !%p2;",
     "setp.ne.xor.u64 %p94|%p95, %rd1, %rd2, %p1;", "setp.le.and.u32 %p1|%p96, %r1, %r2, %p1;"]
FLOAT32 = ["add.f32 %r10, %r1, %r2;", "sub.f32 %r11, %r1, %r2;", "mul.f32 %r12, %r1, %r2;",
           "add.rn.ftz.f32 %r13, %r1, %r2;", "sub.ftz.f32 %r14, %r1, %r2;", "mul.rn.ftz.f32 %r15, %r1, %r2;",
           "fma.rn.f32 %r16, %r1, %r2, %r3;", "fma.rn.ftz.f32 %r17, %r1, %r2, %r3;", "mul.rn.f32 %r18, %r1, 0f3F000001;",
           "fma.rn.f32 %r19, %r1, %r1, 0fBF800000;"]
FLOAT64 = ["add.f64 %rd10, %rd1, %rd2;", "sub.rn.f64 %rd11, %rd1, %rd2;", "mul.f64 %rd12, %rd1, %rd2;",
           "mul.rn.f64 %rd13, %rd1, 0d3FF0000000000001;"]

ADDRESS = ["cvta.to.global.u64 %rd10, %rd1;", "cvta.global.u64 %rd11, %rd2;", "cvta.to.shared.u64 %rd12, %rd1;",
           "cvta.shared.u64 %rd13, %rd2;", "cvta.to.local.u64 %rd14, %rd1;", "cvta.local.u64 %rd15, %rd2;",
           "cvta.to.const.u64 %rd16, %rd1;", "cvta.const.u64 %rd17, %rd3;"]
FLOAT_MORE = ["min.f32 %r10, %r1, %r2;", "max.f32 %r11, %r1, %r2;", "min.ftz.f32 %r12, %r1, %r2;",
              "max.ftz.f32 %r13, %r1, %r2;", "max.NaN.f32 %r14, %r1, %r2;", "min.NaN.ftz.f32 %r15, %r1, %r2;",
              "min.f64 %rd10, %rd1, %rd2;", "max.f64 %rd11, %rd1, %rd2;",
              "neg.f32 %r16, %r1;", "neg.ftz.f32 %r17, %r1;", "abs.f32 %r18, %r1;", "abs.ftz.f32 %r19, %r1;",
              "neg.f64 %rd13, %rd1;", "abs.f64 %rd14, %rd1;", "fma.rn.f64 %rd15, %rd1, %rd2, %rd3;",
              "fma.rn.f64 %rd16, %rd1, %rd1, 0dBFF0000000000000;", "max.f32 %r20, %r1, 0f00000000;",
              "ex2.approx.ftz.f32 %r21, %r1;", "ex2.approx.ftz.f32 %r22, %r3;",
              "div.full.f32 %r23, %r1, %r2;", "div.full.ftz.f32 %r24, %r1, %r2;", "div.full.f32 %r25, %r3, %r1;"]
CONVERT_HALF = ["cvt.rn.f16x2.f32 %r10, %r1, %r2;", "cvt.rn.f16.f32 %hs1, %r3;", "cvt.rn.f16x2.f32 %r11, %r2, %r3;",
                "cvt.rn.f16.f32 %hs2, %r1;"]
BITS_DIV = ["and.b32 %r5, %r2, 63;", "and.b32 %r6, %r3, 63;", "and.b32 %r7, %r2, 127;",
            "bfe.u32 %r10, %r1, %r5, %r6;", "bfe.s32 %r11, %r1, %r5, %r6;", "bfe.u32 %r12, %r1, %r2, %r3;",
            "bfe.s32 %r13, %r1, %r2, %r3;", "bfe.u64 %rd10, %rd1, %r7, %r6;", "bfe.s64 %rd11, %rd1, %r7, %r5;",
            "bfe.s64 %rd12, %rd1, %r2, %r3;", "bfe.s32 %r14, %r1, 8, 8;",
            "div.u32 %r15, %r1, %r2;", "div.s32 %r16, %r1, %r2;", "rem.u32 %r17, %r1, %r2;", "rem.s32 %r18, %r1, %r2;",
            "div.u64 %rd13, %rd1, %rd2;", "div.s64 %rd14, %rd1, %rd2;", "rem.u64 %rd15, %rd1, %rd2;",
            "rem.s64 %rd16, %rd1, %rd2;", "div.s32 %r19, %r1, %r5;", "rem.s32 %r20, %r1, 7;"]
SPECIAL = ["mov.u32 %r10, %tid.x;", "mov.u32 %r11, %tid.y;", "mov.u32 %r12, %tid.z;", "mov.u32 %r13, %ntid.y;",
           "mov.u32 %r14, %ctaid.x;", "mov.u32 %r15, %ctaid.y;", "mov.u32 %r16, %nctaid.x;", "mov.u32 %r17, %nctaid.y;",
           "mov.u32 %r18, %laneid;", "mov.u32 %r19, %warpid;", "mov.u32 %r20, %lanemask_lt;",
           "mov.u32 %r21, %cluster_ctarank;", "mov.u32 %r22, %clusterid.y;", "cvt.u64.u32 %rd10, %tid.x;",
           "add.s32 %r23, %r10, %r14;"]
PACK = ["mov.b64 %rd10, {%r1, %r2};", "mov.b64 {%r30, %r31}, %rd1;", "mov.b64 {_, %r32}, %rd2;",
        "mov.b32 {%hs3, %hs4}, %r1;", "mov.b32 %r10, {%hs4, %hs3};", "mov.b64 {%hs5, %hs6, %hs7, %hs8}, %rd3;",
        "mov.b64 %rd11, {%hs8, %hs6, %hs7, %hs5};", "mov.b32 %r11, %r30;", "mov.b32 %r12, %r31;",
        "mov.b32 %r13, %r32;", "mov.b64 {%r33, %r34}, %rd3;", "mov.b64 %rd12, {%r34, %r33};"]
FAMILIES = {"float_more": FLOAT_MORE, "pack": PACK, "convert_half": CONVERT_HALF, "bits_div": BITS_DIV,
            "int32": INT32, "int64": INT64, "logic": LOGIC, "shift": SHIFT, "move": MOVE,
            "setp_int": SETP_INT, "setp_float": SETP_FLOAT, "float32": FLOAT32, "float64": FLOAT64,
            "address": ADDRESS}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_family_matches_interpreter(family, monkeypatch):
    run_both(FAMILIES[family], monkeypatch)


def test_special_registers_in_other_geometries(monkeypatch):
    """Special registers read per thread slot (tid, ctaid, laneid ...) and once for all (ntid,
    nctaid ...), in a 3-D block and 2-D grid: the index arithmetic of the prologue uses them too."""
    monkeypatch.setenv("PTXVM_JIT_THRESHOLD", "0")
    ptx, outs = family_kernel(SPECIAL)
    module = ptxvm.loads(ptx)
    a, b, c = operands(3)
    got = {}
    for jit in (False, True):
        out = np.zeros(N * len(outs), np.uint64)
        module["family"].launch((4, 2, 2), (8, 4, 2), [np.concatenate([a, b, c]), out], jit=jit)
        got[jit] = out
    assert any(op.fused is not None and op.fused.specials and op.fused.function is not None for op in module.program.code)
    assert np.array_equal(got[False], got[True])
    assert got[True].any()


def test_switched_off_runs_no_compiled_block(monkeypatch):
    """PTXVM_JIT=0 (and launch(jit=False)) keep the tier off: no block is even planned."""
    monkeypatch.setenv("PTXVM_JIT_THRESHOLD", "0")
    monkeypatch.setenv("PTXVM_JIT", "0")
    ptx, outs = family_kernel(INT32[:4])
    module = ptxvm.loads(ptx)
    a, b, c = operands(1)
    stats = module["family"].launch(N // 256, 256, [np.concatenate([a, b, c]), np.zeros(N * len(outs), np.uint64)])
    assert stats.jit_seconds == 0
    assert all(op.fused is None for op in module.program.code)
    monkeypatch.delenv("PTXVM_JIT")
    module["family"].launch(N // 256, 256, [np.concatenate([a, b, c]), np.zeros(N * len(outs), np.uint64)], jit=False)
    assert all(op.fused is None for op in module.program.code)
    module["family"].launch(N // 256, 256, [np.concatenate([a, b, c]), np.zeros(N * len(outs), np.uint64)])
    assert any(op.fused is not None and op.fused.function is not None for op in module.program.code)


def test_observed_launches_run_every_instruction(monkeypatch):
    """A tracer (or any hooks) sees every instruction: with the tier forced on, a traced launch
    gives one record per warp-instruction, and a sanitized one still runs."""
    monkeypatch.setenv("PTXVM_JIT_THRESHOLD", "0")
    ptx, outs = family_kernel(LOGIC)
    kernel = ptxvm.loads(ptx)["family"]
    a, b, c = operands(2)
    args = [np.concatenate([a, b, c]), np.zeros(N * len(outs), np.uint64)]
    trace = kernel.trace(4, 256, args)
    assert len(trace) == trace.stats.warp_instructions
    report = kernel.sanitize(4, 256, [args[0], np.zeros(N * len(outs), np.uint64)])
    assert not report.errors


PARAMS = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry params(.param .u64 out, .param .u32 a, .param .s32 b, .param .f32 c, .param .u64 d,
                       .param .f64 e, .param .align 8 .b8 blob[16])
{
    .reg .b32 %r<12>;
    .reg .b64 %rd<12>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [a];
    ld.param.s32 %r2, [b];
    ld.param.f32 %r3, [c];
    ld.param.u64 %rd2, [d];
    ld.param.f64 %rd3, [e];
    ld.param.b32 %r4, [blob+4];
    ld.param.u64 %rd4, [blob+8];
    mov.u32 %r5, %tid.x;
    mul.wide.u32 %rd5, %r5, 64;
    add.s64 %rd6, %rd1, %rd5;
    st.global.u32 [%rd6], %r1;
    st.global.u32 [%rd6+4], %r2;
    st.global.u32 [%rd6+8], %r3;
    st.global.u64 [%rd6+16], %rd2;
    st.global.u64 [%rd6+24], %rd3;
    st.global.u32 [%rd6+32], %r4;
    st.global.u64 [%rd6+40], %rd4;
    ret;
}
.visible .entry past(.param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [out+64];
    add.s32 %r2, %r1, 1;
    st.global.u32 [%rd1], %r2;
    ret;
}
"""


def test_kernel_parameters_read_in_blocks(monkeypatch):
    """ld.param of a kernel's parameters runs inside the block (a constant address of the
    read-only buffer): every type and offset gives the interpreter's bits; an address past the
    buffer faults at the same instruction with the tier on as off."""
    monkeypatch.setenv("PTXVM_JIT_THRESHOLD", "0")
    module = ptxvm.loads(PARAMS)
    blob = np.frombuffer(np.array([0x11223344, 0x89ABCDEF, 0x01020304, 0xF0E0D0C0], np.uint32).tobytes(), np.uint8)
    got = {}
    for jit in (False, True):
        out = np.zeros(64 * 64, np.uint8)
        module["params"].launch(1, 64, [out, np.uint32(0xDEADBEEF), np.int32(-5), np.float32(-0.0),
                                        np.uint64(0x0123456789ABCDEF), np.float64(np.nan), blob.tobytes()], jit=jit)
        got[jit] = out
    assert np.array_equal(got[False], got[True])
    assert got[True][:4].view(np.uint32)[0] == 0xDEADBEEF
    block = module.program.code[0].fused
    assert block is not None and block.function is not None and block.length >= 8
    faults = []
    for jit in (False, True):
        with pytest.raises(ptxvm.KernelFault) as e:
            module["past"].launch(1, 32, [np.zeros(4, np.uint32)], jit=jit)
        faults.append(str(e.value))
    assert faults[0] == faults[1]
