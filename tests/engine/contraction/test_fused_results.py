"""The adds ptxas contracts run as one FMA: each contractible kernel gives, bit for bit, what the
same kernel written with the FMA ptxas emits gives (and differs from double rounding somewhere)."""
import numpy as np
import pytest

import ptxvm

N = 1024
_REG = {"f32": "f32", "f64": "f64", "f16": "b16", "bf16": "b16", "f16x2": "b32", "bf16x2": "b32"}
_NP = {"f32": np.float32, "f64": np.float64, "f16": np.uint16, "bf16": np.uint16, "f16x2": np.uint32,
       "bf16x2": np.uint32}


def _kernel(t, body):
    rt, size = _REG[t], np.dtype(_NP[t]).itemsize
    lines = [".version 8.0", ".target sm_90", ".address_size 64",
             ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd, .param .u64 pr)",
             "{", f"  .reg .{rt} %a, %b, %c, %d, %p, %q, %r, %s;", "  .reg .b64 %o, %x<6>;",
             "  .reg .b32 %i, %j;", "  .reg .pred %pr;",
             "  mov.u32 %i, %tid.x;", "  mov.u32 %j, %ctaid.x;",
             "  mad.lo.u32 %i, %j, 256, %i;", "  and.b32 %j, %i, 1;", "  setp.ne.u32 %pr, %j, 0;",
             f"  mul.wide.u32 %o, %i, {size};"]
    for k, n in enumerate("abcd"):
        lines += [f"  ld.param.u64 %x{k + 1}, [p{n}];", f"  add.u64 %x{k + 1}, %x{k + 1}, %o;",
                  f"  ld.global.{rt} %{n}, [%x{k + 1}];"]
    lines += ["  " + s for s in body.strip().splitlines()]
    lines += ["  ld.param.u64 %x5, [pr];", "  add.u64 %x5, %x5, %o;", f"  st.global.{rt} [%x5], %r;",
              "  ret;", "}", ""]
    return "\n".join(lines)


def _inputs(t, rng):
    if t in ("f32", "f64"):
        dt = _NP[t]
        vals = [rng.uniform(-4, 4, N).astype(dt) * dt(2.0) ** rng.integers(-3, 4, N).astype(dt) for _ in range(4)]
        specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40 if t == "f32" else 1e-310, 3e38], dtype=dt)
        for v in vals:
            v[:len(specials)] = rng.permutation(specials)
        return vals
    return [rng.integers(0, 1 << (8 * np.dtype(_NP[t]).itemsize), N, dtype=np.uint64).astype(_NP[t]) for _ in range(4)]


def _run(t, body, inputs, contract=True):
    out = np.zeros(N, _NP[t])
    mod = ptxvm.loads(_kernel(t, body), contract=contract)
    mod["k"].launch(N // 256, 256, [*(x.copy() for x in inputs), out])
    return out.view(f"u{out.itemsize}")


CASES = [
    # (type, contractible body, the FMA ptxas makes of it)
    ("f32", "mul.f32 %p, %a, %b;\nadd.f32 %r, %p, %c;", "fma.rn.f32 %r, %a, %b, %c;"),
    ("f32", "mul.f32 %p, %a, %b;\nadd.f32 %r, %c, %p;", "fma.rn.f32 %r, %a, %b, %c;"),
    ("f32", "mul.f32 %p, %a, %b;\nsub.f32 %r, %p, %c;", "neg.f32 %c, %c;\nfma.rn.f32 %r, %a, %b, %c;"),
    ("f32", "mul.f32 %p, %a, %b;\nsub.f32 %r, %c, %p;", "neg.f32 %a, %a;\nfma.rn.f32 %r, %a, %b, %c;"),
    ("f32", "mul.f32 %p, %a, %b;\nneg.f32 %q, %p;\nadd.f32 %r, %q, %c;", "neg.f32 %a, %a;\nfma.rn.f32 %r, %a, %b, %c;"),
    ("f32", "mul.f32 %p, %a, %b;\nmov.b32 %q, %p;\nadd.f32 %r, %c, %q;", "fma.rn.f32 %r, %a, %b, %c;"),
    ("f32", "mul.ftz.f32 %p, %a, %b;\nadd.ftz.sat.f32 %r, %p, %c;", "fma.rn.ftz.sat.f32 %r, %a, %b, %c;"),
    ("f32", "mul.f32 %p, %a, %b;\nmul.f32 %q, %c, %d;\nadd.f32 %r, %q, %p;",
     "mul.rn.f32 %p, %a, %b;\nfma.rn.f32 %r, %c, %d, %p;"),
    ("f32", "mul.f32 %p, %a, %b;\nadd.rn.f32 %a, %a, %d;\nadd.f32 %r, %p, %c;",   # %a changes: saved
     "fma.rn.f32 %r, %a, %b, %c;"),
    ("f32", "mul.f32 %a, %a, %b;\nadd.f32 %r, %a, %c;", "fma.rn.f32 %r, %a, %b, %c;"),
    ("f32", "mov.f32 %r, %d;\nmul.f32 %p, %a, %b;\n@%pr add.f32 %r, %p, %c;",
     "mov.f32 %r, %d;\n@%pr fma.rn.f32 %r, %a, %b, %c;"),
    # inline-asm style nested blocks: their registers are not the function's
    ("f32", "mul.f32 %p, %a, %b;\n{ .reg .f32 %p; mov.f32 %p, %d; }\nadd.f32 %r, %p, %c;",
     "fma.rn.f32 %r, %a, %b, %c;"),
    ("f32", "{ .reg .f32 %t; neg.f32 %t, %a; mul.f32 %p, %t, %b; }\nadd.f32 %r, %p, %c;",
     "neg.f32 %a, %a;\nfma.rn.f32 %r, %a, %b, %c;"),
    # a branch to the very next label is no branch (ptxas drops it)
    ("f32", "mul.f32 %p, %a, %b;\n@%pr bra NEXT;\nNEXT:\nadd.f32 %r, %p, %c;", "fma.rn.f32 %r, %a, %b, %c;"),
    ("f64", "mul.f64 %p, %a, %b;\nadd.f64 %r, %p, %c;", "fma.rn.f64 %r, %a, %b, %c;"),
    ("f64", "mul.f64 %p, %a, %b;\nmul.f64 %q, %c, %d;\nsub.f64 %r, %p, %q;",
     "mul.rn.f64 %q, %c, %d;\nneg.f64 %q, %q;\nfma.rn.f64 %r, %a, %b, %q;"),
    ("f64", "mul.f64 %p, %a, %b;\nsub.f64 %r, %c, %p;", "neg.f64 %a, %a;\nfma.rn.f64 %r, %a, %b, %c;"),
    ("f16", "mul.f16 %p, %a, %b;\nadd.f16 %r, %p, %c;", "fma.rn.f16 %r, %a, %b, %c;"),
    ("f16", "mul.ftz.f16 %p, %a, %b;\nsub.ftz.sat.f16 %r, %c, %p;", "neg.f16 %a, %a;\nfma.rn.ftz.sat.f16 %r, %a, %b, %c;"),
    ("bf16", "mul.bf16 %p, %a, %b;\nadd.bf16 %r, %p, %c;", "fma.rn.bf16 %r, %a, %b, %c;"),
    ("f16x2", "mul.f16x2 %p, %a, %b;\nsub.f16x2 %r, %c, %p;", "neg.f16x2 %a, %a;\nfma.rn.f16x2 %r, %a, %b, %c;"),
    ("bf16x2", "mul.bf16x2 %p, %a, %b;\nadd.bf16x2 %r, %p, %c;", "fma.rn.bf16x2 %r, %a, %b, %c;"),
]


@pytest.mark.parametrize("t,body,fused", CASES, ids=[f"{c[0]}:{c[1].splitlines()[-1]}" for c in CASES])
def test_contracted_kernel_is_the_fma(t, body, fused):
    rng = np.random.default_rng(sum(map(ord, body)))
    inputs = _inputs(t, rng)
    got = _run(t, body, inputs)
    want = _run(t, fused, inputs, contract=False)
    if t in ("f32", "f64"):   # NaN payloads: sm_90's FFMA gives the canonical NaN, DFMA an operand's
        nan = np.isnan(got.view(_NP[t])) & np.isnan(want.view(_NP[t]))
        got, want = got[~nan], want[~nan]
    assert np.array_equal(got, want)
    assert not np.array_equal(_run(t, body, inputs, contract=False), _run(t, body, inputs)), \
        "double rounding should differ from the FMA somewhere"


def test_div_full_and_rcp_approx_fuse_their_final_multiply():
    from ptxvm.semantics.families import approx
    from ptxvm.semantics.families.floating import f32_op
    from ptxvm.numerics.rounding import Rounding

    rng = np.random.default_rng(7)
    a, b, c, d = _inputs("f32", rng)
    b[8:16] = np.float32([1e-39, -3e-39, 2e38, -1.5e38, 3e38, 1e-45, 2.0 ** 127, 5e-38])
    fma = f32_op("fma", Rounding.RN)
    for body, factors, args in [
            ("div.full.f32 %p, %a, %b;\nadd.f32 %r, %p, %c;", approx.div_full_factors(False), (a, b)),
            ("div.approx.f32 %p, %a, %b;\nadd.f32 %r, %c, %p;", approx.div_approx_factors(False), (a, b)),
            ("rcp.approx.f32 %p, %b;\nadd.f32 %r, %p, %c;", approx.rcp_approx_factors(), (b,))]:
        got = _run("f32", body, [a, b, c, d]).view(np.float32)
        x, y = factors(*args)
        want = fma(x, y, c)
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), body
