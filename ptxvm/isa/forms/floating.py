"""ISA 9.7.3 Floating-point instructions (.f32, .f64, .f32x2) and the mixed-precision forms."""
from ..table import RND, builder

F = builder("floating")

APPROX = "approximate: the result may differ from the correctly rounded value (see the ISA's error bounds)"

F("testp.op.type p, a", op=("finite", "infinite", "number", "notanumber", "normal", "subnormal"),
  type=("f32", "f64"), ops={"p": "pred"}, since="2.0 sm_20")
F("copysign.type d, a, b", type=("f32", "f64"), since="2.0 sm_20")

for op in ("add", "sub", "mul"):
    F(f"{op}{{.rnd}}{{.ftz}}{{.sat}}.f32 d, a, b", rnd=RND, since="1.0", req={"rnd=rm|rp": "1.0 sm_20"})
    F(f"{op}{{.rnd}}{{.ftz}}.f32x2 d, a, b", rnd=RND, since="8.6 sm_100")
    F(f"{op}{{.rnd}}.f64 d, a, b", rnd=RND, since="1.0 sm_13", req={"rnd=rm|rp": "1.0 sm_20"})
# mixed precision: d = convert(a) + c in f32 (ISA 9.7.5 in PTX 8.6+)
F("add{.rnd}{.sat}.f32.atype d, a, c", rnd=RND, atype=("f16", "bf16"), ops={"d": "f32", "c": "f32"},
  since="8.6 sm_100")
F("sub{.rnd}{.sat}.f32.atype d, a, c", rnd=RND, atype=("f16", "bf16"), ops={"d": "f32", "c": "f32"},
  since="8.6 sm_100")
F("fma.rnd{.sat}.f32.abtype d, a, b, c", rnd=RND, abtype=("f16", "bf16"),
  ops={"d": "f32", "a": "=abtype", "b": "=abtype", "c": "f32"}, since="8.6 sm_100")

F("fma.rnd{.ftz}{.sat}.f32 d, a, b, c", rnd=RND, since="2.0 sm_20")
F("fma.rnd{.ftz}.f32x2 d, a, b, c", rnd=RND, since="8.6 sm_100")
F("fma.rnd.f64 d, a, b, c", rnd=RND, since="1.4 sm_13")
F("mad{.ftz}{.sat}.f32 d, a, b, c", since="1.0", removed="1.0 sm_20",
  note="without a rounding modifier only for sm_1x targets; sm_20+ code must write mad.rnd.f32 (= fma)")
F("mad.rnd{.ftz}{.sat}.f32 d, a, b, c", rnd=RND, since="2.0 sm_20")
F("mad.rnd.f64 d, a, b, c", rnd=RND, since="1.4 sm_13")

F("div.approx{.ftz}.f32 d, a, b", since="1.4", undefined=APPROX)
F("div.full{.ftz}.f32 d, a, b", since="1.4", undefined=APPROX)
F("div.rnd{.ftz}.f32 d, a, b", rnd=RND, since="2.0 sm_20")
F("div.rnd.f64 d, a, b", rnd=RND, since="1.4 sm_13", req={"rnd=rz|rm|rp": "2.0 sm_20"})

F("abs{.ftz}.f32 d, a", since="1.0")
F("abs.f64 d, a", since="1.0 sm_13")
F("neg{.ftz}.f32 d, a", since="1.0")
F("neg.f64 d, a", since="1.0 sm_13")
for op in ("min", "max"):
    # two sources, or (PTX 8.8, sm_100) three. The ISA 9.0 text also lists `.abs` for the three-source
    # form; ptxas 13.0 rejects it ("Modifier '.abs' requires modifier '.xorsign'"), so it is left out.
    F(f"{op}{{.ftz}}{{.NaN}}{{.xorsign.abs}}.f32 d, a, b{{, c}}", since="1.0",
      req={".NaN": "7.0 sm_80", ".xorsign.abs": "7.2 sm_86", "operand:c": "8.8 sm_100"},
      orule=[(lambda v, ops: "c" not in ops or not v.get("xorsign.abs"), ".xorsign.abs takes two sources")])
    F(f"{op}.f64 d, a, b", since="1.0 sm_13")

F("rcp.approx{.ftz}.f32 d, a", since="1.0", undefined=APPROX)
F("rcp.rnd{.ftz}.f32 d, a", rnd=RND, since="2.0 sm_20")
F("rcp.rnd.f64 d, a", rnd=RND, since="1.4 sm_13", req={"rnd=rz|rm|rp": "2.0 sm_20"})
F("rcp.approx.ftz.f64 d, a", since="2.1 sm_20", undefined=APPROX)
F("sqrt.approx{.ftz}.f32 d, a", since="1.0", undefined=APPROX)
F("sqrt.rnd{.ftz}.f32 d, a", rnd=RND, since="2.0 sm_20")
F("sqrt.rnd.f64 d, a", rnd=RND, since="1.4 sm_13", req={"rnd=rz|rm|rp": "2.0 sm_20"})
F("rsqrt.approx{.ftz}.f32 d, a", since="1.0", undefined=APPROX)
F("rsqrt.approx.f64 d, a", since="1.4 sm_13", undefined=APPROX)
F("rsqrt.approx.ftz.f64 d, a", since="4.0 sm_20", undefined=APPROX)
for op in ("sin", "cos", "lg2"):
    F(f"{op}.approx{{.ftz}}.f32 d, a", since="1.0", undefined=APPROX)
for op in ("sin", "cos"):
    # .2pi (PTX 9.5): the argument is in turns, MUFU.SIN/COS without ptxas' FMUL by 1/2pi; .ftz required
    F(f"{op}.approx{{.ftz}}.2pi.f32 d, a", since="9.5", undefined=APPROX,
      check=[(lambda v: bool(v.get("ftz")), ".2pi requires .ftz (ptxas: '.ftz modifier required')")])
F("ex2.approx{.ftz}.f32 d, a", since="1.0", undefined=APPROX)
F("tanh.approx.type d, a", type=("f32",), since="7.0 sm_75", undefined=APPROX)
