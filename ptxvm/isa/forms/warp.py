"""Warp-level data exchange and voting: shfl, vote, match, activemask, redux, elect."""
from ..table import builder

F = builder("warp")

NOSYNC = "deprecated since PTX 6.0 in favour of the .sync form"
NOTMEMBER = "the executing thread must be in membermask, and all named threads must execute it, else undefined"
F("shfl.mode.b32 d{|p}, a, b, c", mode=("up", "down", "bfly", "idx"), ops={"b": "ri u32", "c": "ri u32"},
  since="3.0 sm_30", deprecated=NOSYNC, removed="6.4 sm_70")
F("shfl.sync.mode.b32 d{|p}, a, b, c, membermask", mode=("up", "down", "bfly", "idx"),
  ops={"b": "ri u32", "c": "ri u32"}, since="6.0 sm_30", undefined=NOTMEMBER)
F("vote.mode.pred d, {!}a", mode=("all", "any", "uni"), since="1.2", deprecated=NOSYNC, removed="6.4 sm_70")
F("vote.ballot.b32 d, {!}a", since="2.0 sm_20", deprecated=NOSYNC, removed="6.4 sm_70")
F("vote.sync.mode.pred d, {!}a, membermask", mode=("all", "any", "uni"), since="6.0 sm_30", undefined=NOTMEMBER)
F("vote.sync.ballot.b32 d, {!}a, membermask", since="6.0 sm_30", undefined=NOTMEMBER)
F("match.any.sync.type d, a, membermask", type=("b32", "b64"), ops={"d": "b32"}, since="6.0 sm_70",
  undefined=NOTMEMBER)
F("match.all.sync.type d{|p}, a, membermask", type=("b32", "b64"), ops={"d": "b32"}, since="6.0 sm_70",
  undefined=NOTMEMBER)
F("activemask.b32 d", since="6.2 sm_30")
F("redux.sync.op.type dst, src, membermask", op=("add", "min", "max"), type=("u32", "s32"), since="7.0 sm_80",
  undefined=NOTMEMBER)
F("redux.sync.op.type dst, src, membermask", op=("and", "or", "xor"), type=("b32",), since="7.0 sm_80",
  undefined=NOTMEMBER)
F("redux.sync.op{.abs}{.NaN}.type dst, src, membermask", op=("min", "max"), type=("f32",), since="8.6 sm_100f",
  undefined=NOTMEMBER)
F("elect.sync d|p, membermask", ops={"d": "b32 sink"}, since="8.0 sm_90", undefined=NOTMEMBER)
