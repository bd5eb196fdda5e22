"""ISA 9.7.4 Half-precision floating-point instructions (.f16, .f16x2, .bf16, .bf16x2)."""
from ..table import builder

F = builder("half")

RN = ("rn",)
APPROX = "approximate: the result may differ from the correctly rounded value (see the ISA's error bounds)"

for op in ("add", "sub", "mul"):
    F(f"{op}{{.rnd}}{{.ftz}}{{.sat}}.f16 d, a, b", rnd=RN, since="4.2 sm_53")
    F(f"{op}{{.rnd}}{{.ftz}}{{.sat}}.f16x2 d, a, b", rnd=RN, since="4.2 sm_53")
    F(f"{op}{{.rnd}}.bf16 d, a, b", rnd=RN, since="7.8 sm_90")
    F(f"{op}{{.rnd}}.bf16x2 d, a, b", rnd=RN, since="7.8 sm_90")

F("fma.rnd{.ftz}{.sat}.f16 d, a, b, c", rnd=RN, since="4.2 sm_53")
F("fma.rnd{.ftz}{.sat}.f16x2 d, a, b, c", rnd=RN, since="4.2 sm_53")
F("fma.rnd{.ftz}.relu.f16 d, a, b, c", rnd=RN, since="7.0 sm_80")
F("fma.rnd{.ftz}.relu.f16x2 d, a, b, c", rnd=RN, since="7.0 sm_80")
F("fma.rnd{.relu}.bf16 d, a, b, c", rnd=RN, since="7.0 sm_80")
F("fma.rnd{.relu}.bf16x2 d, a, b, c", rnd=RN, since="7.0 sm_80")
F("fma.rnd.oob{.relu}.type d, a, b, c", rnd=RN, type=("f16", "f16x2", "bf16", "bf16x2"), since="8.1 sm_90",
  note=".oob: an operand that is an out-of-bounds (OOB NaN) value gives 0")

for op, since in (("neg", "6.0 sm_53"), ("abs", "6.5 sm_53")):
    F(f"{op}{{.ftz}}.f16 d, a", since=since)
    F(f"{op}{{.ftz}}.f16x2 d, a", since=since)
    F(f"{op}.bf16 d, a", since="7.0 sm_80")
    F(f"{op}.bf16x2 d, a", since="7.0 sm_80")

for op in ("min", "max"):
    F(f"{op}{{.ftz}}{{.NaN}}{{.xorsign.abs}}.f16 d, a, b", since="7.0 sm_80", req={".xorsign.abs": "7.2 sm_86"})
    F(f"{op}{{.ftz}}{{.NaN}}{{.xorsign.abs}}.f16x2 d, a, b", since="7.0 sm_80", req={".xorsign.abs": "7.2 sm_86"})
    F(f"{op}{{.NaN}}{{.xorsign.abs}}.bf16 d, a, b", since="7.0 sm_80", req={".xorsign.abs": "7.2 sm_86"})
    F(f"{op}{{.NaN}}{{.xorsign.abs}}.bf16x2 d, a, b", since="7.0 sm_80", req={".xorsign.abs": "7.2 sm_86"})

F("tanh.approx.type d, a", type=("f16", "f16x2", "bf16", "bf16x2"), since="7.0 sm_75",
  req={"type=bf16|bf16x2": "7.8 sm_90"}, undefined=APPROX)
F("ex2.approx.atype d, a", atype=("f16", "f16x2"), since="7.0 sm_75", undefined=APPROX)
F("ex2.approx.ftz.btype d, a", btype=("bf16", "bf16x2"), since="7.8 sm_90", undefined=APPROX)
