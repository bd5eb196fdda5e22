"""ISA 9.7.10 / 9.7.11 Texture and surface instructions, and istypep."""
from ..table import builder

F = builder("texture")

GEOM = ("1d", "2d", "3d", "a1d", "a2d", "cube", "acube", "2dms", "a2dms")
_NC = {"1d": 1, "2d": 2, "3d": 4, "a1d": 2, "a2d": 4, "cube": 4, "acube": 4, "2dms": 4, "a2dms": 4}
TEX_OPS = {"d": "vec=vec", "e": "vec s32", "f": "f32"}
TEX_CHK = [
    (lambda v: (v["vec"] == "v2") == (v["dtype"] == "f16x2"), ".v2 goes with .f16x2, .v4 with the other types"),
    (lambda v: v["geom"] not in ("cube", "acube") or v["ctype"] == "f32", ".cube and .acube need .f32 coordinates"),
    (lambda v: v["geom"] not in ("2dms", "a2dms") or v["ctype"] == "s32", ".2dms and .a2dms need .s32 coordinates"),
]
TEX_REQ = {"dtype=f16|f16x2": "4.2 sm_53", "geom=2dms|a2dms": "4.2 sm_30", "geom=acube": "4.3 sm_30",
           "operand:e": "4.3 sm_30", "operand:f": "4.3 sm_30"}
TB = dict(geom=GEOM, vec=("v4", "v2"), dtype=("u32", "s32", "f16", "f32", "f16x2"), ctype=("s32", "f32"))
NOTE = "[a, b, c]: texture, optional sampler (independent mode), coordinates vector; e: offsets; f: depth compare"
F("tex.geom.vec.dtype.ctype d{|p}, [a, {b,} c]{, e}{, f}", ops=TEX_OPS, check=TEX_CHK, since="1.0", req=TEX_REQ,
  note=NOTE, **TB)
F("tex.base.geom.vec.dtype.ctype d{|p}, [a, {b,} c]{, e}{, f}", ops=TEX_OPS, check=TEX_CHK, since="3.1 sm_30",
  req=TEX_REQ, note=NOTE, **TB)
F("tex.level.geom.vec.dtype.ctype d{|p}, [a, {b,} c], lod{, e}{, f}", ops=dict(TEX_OPS, lod="=ctype"),
  check=TEX_CHK, since="3.1 sm_30", req=TEX_REQ, note=NOTE, **TB)
_GRAD = {"1d": 1, "a1d": 1, "2d": 2, "a2d": 2, "2dms": 2, "a2dms": 2, "3d": 4, "cube": 4, "acube": 4}
F("tex.grad.geom.vec.dtype.ctype d{|p}, [a, {b,} c], dPdx, dPdy{, e}{, f}",
  ops=dict(TEX_OPS, dPdx="vec f32", dPdy="vec f32"), check=TEX_CHK, since="3.1 sm_30",
  req={**TEX_REQ, "geom=cube|acube": "4.3 sm_30"}, note=NOTE,
  counts={"dPdx": lambda v: _GRAD[v["geom"]], "dPdy": lambda v: _GRAD[v["geom"]]}, **TB)

F("tld4.comp.geom.v4.dtype.ctype d{|p}, [a, {b,} c]{, e}{, f}", comp=("r", "g", "b", "a"),
  geom=("2d", "a2d", "cube", "acube"), dtype=("u32", "s32", "f32"), ctype=("f32",),
  ops={"d": "vec n=4", "e": "vec s32", "f": "f32"}, since="2.2 sm_20",
  req={"geom=a2d|cube|acube": "4.3 sm_30", "operand:e": "4.3 sm_30", "operand:f": "4.3 sm_30"},
  note="the implicit-sampler form [a, c] takes .2d only")
F("txq.tquery.b32 d, [a]", tquery=("width", "height", "depth", "channel_data_type", "channel_order",
                                   "normalized_coords", "array_size", "num_mipmap_levels", "num_samples"),
  since="1.5", req={"tquery=array_size|num_mipmap_levels|num_samples": "4.3 sm_30"})
F("txq.level.tlquery.b32 d, [a], lod", tlquery=("width", "height", "depth"), ops={"lod": "ri s32"},
  since="4.3 sm_30")
F("txq.squery.b32 d, [a]", note="a is a .samplerref (or, with texmode_unified, a .texref)", squery=("force_unnormalized_coords", "filter_mode", "addr_mode_0", "addr_mode_1",
                                   "addr_mode_2"), since="1.5")
SG = ("1d", "2d", "3d", "a1d", "a2d")
MODE = ("trap", "clamp", "zero")
SUREQ = {"geom=a1d|a2d": "3.0 sm_30", "dim=a1d|a2d": "3.0 sm_30"}
# The ISA writes {.mode} (default .trap); ptxas 13.0 requires it ("Clamp modifier required").
SV = [(lambda v: not v.get("vec") or int(v["vec"][1:]) * int((v.get("dtype") or v.get("ctype"))[1:]) <= 128,
       "vector width times element size must be at most 128 bits")]
F("suld.b.geom{.cop}{.vec}.dtype.mode d, [a, b]", geom=SG, cop=("ca", "cg", "cs", "cv"), vec=("v2", "v4"),
  dtype=("b8", "b16", "b32", "b64"), mode=MODE, ops={"d": "vec=vec"}, since="1.5 sm_20", req=SUREQ, check=SV,
  relaxed=True, note="[a, b]: surface and coordinates vector; ptxas 13.0 takes registers wider than the type")
F("sust.b.dim{.cop}{.vec}.ctype.mode [a, b], c", dim=SG, cop=("wb", "cg", "cs", "wt"), vec=("v2", "v4"),
  ctype=("b8", "b16", "b32", "b64"), mode=MODE, ops={"c": "vec=vec"}, since="1.5 sm_20", req=SUREQ, check=SV,
  relaxed=True, note="ptxas 13.0 takes registers wider than the type")
# the ISA lists .1d/.2d/.3d; ptxas 13.0 takes the layered .a1d/.a2d too
F("sust.p.dim{.vec}.ctype.mode [a, b], c", dim=SG, vec=("v2", "v4"), ctype=("b32",), mode=MODE,
  ops={"c": "vec=vec"}, since="1.5 sm_20", req={"dim=3d": "3.0 sm_20", "dim=a1d|a2d": "4.1 sm_30"})
# which types each reduction takes (ptxas 13.0)
SRB = {"add": ("u32", "s32", "u64"), "min": ("u32", "s32", "u64", "s64"), "max": ("u32", "s32", "u64", "s64"),
       "and": ("b32",), "or": ("b32",)}


def _minmax64(v):
    """64-bit .min/.max"""
    return v["op"] in ("min", "max") and v["ctype"][1:] == "64"


SRP = {"add": ("b32",), "min": ("b32", "b64"), "max": ("b32", "b64"), "and": ("b32",), "or": ("b32",)}
F("sured.b.op.geom.ctype.mode [a, b], c", op=("add", "min", "max", "and", "or"), geom=("1d", "2d", "3d"),
  ctype=("u32", "u64", "s32", "b32", "s64"), mode=MODE, since="2.0 sm_20",
  req={"ctype=u64|s64": "3.1 sm_20", "geom=3d": "3.0 sm_20", _minmax64: "8.1 sm_20"},
  check=[(lambda v: v["ctype"] in SRB[v["op"]], "this reduction does not take this type")])
F("sured.p.op.geom.ctype.mode [a, b], c", op=("add", "min", "max", "and", "or"), geom=("1d", "2d", "3d"),
  ctype=("b32", "b64"), mode=MODE, since="2.0 sm_20", req={"geom=3d": "3.0 sm_20", _minmax64: "8.1 sm_20"},
  check=[(lambda v: v["ctype"] in SRP[v["op"]], "this reduction does not take this type")])
F("suq.query.b32 d, [a]", query=("width", "height", "depth", "channel_data_type", "channel_order", "array_size",
                                 "memory_layout"), since="1.5 sm_20",
  req={"query=channel_data_type|channel_order": "2.1 sm_20", "query=array_size": "4.1 sm_30",
       "query=memory_layout": "4.3 sm_30"})
F("istypep.type p, a", type=("texref", "samplerref", "surfref"), ops={"p": "pred", "a": "reg b64"},
  since="4.0 sm_30", note="a holds the address of an opaque variable")
