"""ISA 9.7.13 Parallel synchronization and communication: barriers and fences."""
from ..table import builder

F = builder("sync")

BAR = {"a": "ri u32", "b": "ri u32"}
CTA = {".cta": "7.8 sm_30"}
DIVERGE = "the barrier must be executed by all threads (of a warp, for .aligned) or behavior is undefined"
for head, since in (("barrier{.cta}", "6.0 sm_30"), ("bar{.cta}", "1.0")):
    al = "{.aligned}" if head.startswith("barrier") else ""
    F(f"{head}.sync{al} a{{, b}}", ops=BAR, since=since, req=CTA, undefined=DIVERGE)
    F(f"{head}.arrive{al} a, b", ops=BAR, since=since if al else "2.0 sm_20", req=CTA)
    F(f"{head}.red.popc{al}.u32 d, a{{, b}}, {{!}}c", ops=BAR, since=since if al else "2.0 sm_20", req=CTA,
      undefined=DIVERGE)
    F(f"{head}.red.op{al}.pred p, a{{, b}}, {{!}}c", op=("and", "or"), ops=BAR, since=since if al else "2.0 sm_20",
      req=CTA, undefined=DIVERGE)
F("bar.warp.sync membermask", since="6.0 sm_30", family="warp",
  undefined="threads named in membermask that do not execute the same bar.warp.sync")
F("barrier.cluster.arrive{.sem}{.aligned}", sem=("release", "relaxed"), since="7.8 sm_90",
  req={"sem": "8.0 sm_90"})
F("barrier.cluster.wait{.acquire}{.aligned}", since="7.8 sm_90", req={".acquire": "8.0 sm_90"})

F("membar.level", level=("cta", "gl", "sys"), since="1.4", req={"level=sys": "2.0 sm_20"})
PROXY = ("alias", "async", "async.global", "async.shared::cta", "async.shared::cluster")
PREQ = {"proxykind=async|async.global|async.shared::cta|async.shared::cluster": "8.0 sm_90"}
F("membar.proxy.proxykind", proxykind=("alias",), since="7.5 sm_70")  # ptxas 13: only .alias
F("fence{.sem}.scope", slots={"sem": ("sc", "acq_rel", "acquire", "release"),
                              "scope": ("cta", "cluster", "gpu", "sys")},
  since="6.0 sm_70", req={"scope=cluster": "7.8 sm_90", "sem=acquire|release": "8.6 sm_90"})
F("fence.acquire.sync_restrict::shared::cluster.cluster", since="8.6 sm_90")
F("fence.release.sync_restrict::shared::cta.cluster", since="8.6 sm_90")
F("fence.alias.sync_restrict::read.release.sys", since="9.5 sm_90")
F("fence.op_restrict.release.cluster", op_restrict=("mbarrier_init",), since="8.0 sm_90")
F("fence.proxy.proxykind", proxykind=PROXY, since="7.5 sm_70", req=PREQ)
TP = {"to_proxykind::from_proxykind": ("tensormap::generic",), "scope": ("cta", "cluster", "gpu", "sys")}
F("fence.proxy.to_proxykind::from_proxykind.release.scope", slots=TP, since="8.3 sm_90")
F("fence.proxy.to_proxykind::from_proxykind.acquire.scope [addr], size", slots=TP,
  ops={"size": "imm u32"}, since="8.3 sm_90", note="size must be 128")
F("fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster", since="8.6 sm_90")
F("fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster", since="8.6 sm_90")
