#!/usr/bin/env python3
"""Turn the microbenchmark results into the GPU descriptions' numbers.

    python benchmarks/timing/calibrate.py benchmarks/timing/results/micro_h200.json [--date 2026-11-22]

Reads the JSON that tools/device/timing_micro.py wrote on the H200 and rewrites
ptxvm/timing/gpus/h200.json (every measured field gets "source": "measured on H200 <date>: <how>")
and, for what does not depend on the memory system (the SM's pipes, shared memory, L1, barriers,
atomics in shared memory), ptxvm/timing/gpus/h100.json with "measured on H200 <date>, same SM as
H100 (transferred)". Fields the benchmarks do not measure keep their spec/estimate source.
The raw numbers also go under "measured" in h200.json.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
GPUS = os.path.join(ROOT, "ptxvm", "timing", "gpus")


def _points(items, name):
    v = items.get(name, {})
    return v.get("points", []) if isinstance(v, dict) else []


def derive(micro: dict) -> tuple[dict, dict, dict]:
    """(latency: key -> (cycles, how), pipes: class -> (lat, issue, how), other: field -> (value, how))."""
    it = micro["items"]
    lat, pipes, other = {}, {}, {}

    clock = it.get("clock", {})
    if "mhz" in clock:
        other["clock_mhz_measured"] = (clock["mhz"], "%clock64 against %globaltimer over ~0.2 s, one thread")

    sh = it.get("chase_shared", {})
    if "stride1" in sh:
        lat["shared"] = (sh["stride1"], "pointer chase in shared memory (ld.shared.u32, address = loaded value)")

    sweep = _points(it, "chase_sweep")
    l1 = [p["cycles_per_load"] for p in sweep if p["op"] == "chase_ca" and p["size_kib"] <= 64]
    if l1:
        lat["l1_hit"] = (min(l1), "pointer chase ld.global.ca.u64, footprint <= 64 KiB, 128-B stride (min)")
    l2 = [p["cycles_per_load"] for p in sweep if p["op"] == "chase_cg" and 512 <= p["size_kib"] <= 4096]
    if l2:
        lat["l2_hit"] = (statistics.median(l2), "pointer chase ld.global.cg.u64, footprint 0.5-4 MiB, warm (median)")

    dram = [p["cold_cycles_per_load"] for p in _points(it, "chase_dram") if p["stride"] == 4096 + 128]
    if dram:
        lat["dram"] = (statistics.median(dram), "cold pointer chase (L2 flushed by a 2 GiB copy), 4224-B stride")

    const = _points(it, "chase_const")
    hit = [p["cycles_per_load_warm"] for p in const if 1024 <= p["span_bytes"] <= 8192]
    if hit:
        lat["const_hit"] = (min(hit), "ld.const chase over 1-8 KiB at 32-B stride, warm")
    same_line = [p["cycles_per_load_warm"] for p in const if p["span_bytes"] <= 256]
    if same_line:
        other["const_same_line"] = (min(same_line), "ld.const chase over 256 B at 4-B stride (consecutive words of a line)")
    for p in const:
        if p["span_bytes"] == 65536 and p["stride_bytes"] == 256:
            count, steps = p["span_bytes"] // p["stride_bytes"], 1024
            miss = (p["cycles_per_load_first"] * steps - p["cycles_per_load_warm"] * (steps - count)) / count
            lat["const_miss"] = (miss, "ld.const chase over 64 KiB at 256-B stride: the first pass over the chain "
                                       "(first-launch time minus the warm passes)")

    at = it.get("atomics", {})
    if "latency_global" in at:
        lat["atomic_global"] = (at["latency_global"], "dependent atom.global.add chain, one thread")
    if "latency_shared" in at:
        lat["atomic_shared"] = (at["latency_shared"], "dependent atom.shared.add chain, one thread")

    ctl = it.get("control", {})
    bar = ctl.get("barrier", {})
    if "32" in bar:
        lat["barrier"] = (bar["32"], "loop of bar.sync, one warp (cycles per barrier)")
    if "32" in bar and "1024" in bar:
        other["barrier_per_warp"] = ((bar["1024"] - bar["32"]) / 31,
                                     "extra cycles per bar.sync for each further warp of the CTA (32 -> 1024 threads)")
    br = ctl.get("branch", {})
    if "taken" in br:
        lat["branch"] = (br["taken"], "loop of a predicated bra.uni around an add.f32, taken (cycles per loop "
                                      "iteration; not taken costs the same)")
    div = ctl.get("diverge", {})
    if "1" in div and "32" in div:
        other["divergent_path_cycles"] = ((div["32"] - div["1"]) / 31,
                                          "extra cycles per additional divergent path of 32 dependent add.f32")

    inst = it.get("inst", {})

    def ok(op):
        return op in inst and "latency_cycles" in inst[op]

    fadd_lat = inst["fadd"]["latency_cycles"] if ok("fadd") else 4.0
    if ok("ffma"):
        pipes["fp32"] = (inst["ffma"]["latency_cycles"], inst["ffma"]["issue_interval"], "fma.rn.f32 chains")
    if ok("imad"):
        pipes["int"] = (inst["imad"]["latency_cycles"], inst["imad"]["issue_interval"],
                        "mad.lo.u32 chains (add.u32 chains are fused into IADD3 by ptxas, so they give no rate)")
    if ok("dfma"):
        pipes["fp64"] = (inst["dfma"]["latency_cycles"], inst["dfma"]["issue_interval"], "fma.rn.f64 chains")
    if ok("ex2"):
        pipes["sfu"] = (inst["ex2"]["latency_cycles"] - fadd_lat, inst["ex2"]["issue_interval"],
                        "ex2.approx.ftz.f32 chains (each step also has an add.f32, subtracted from the latency)")
    if ok("hfma2"):
        pipes["half"] = (inst["hfma2"]["latency_cycles"], inst["hfma2"]["issue_interval"], "fma.rn.f16x2 chains")
    if ok("cvt"):
        pipes["conv"] = ((inst["cvt"]["latency_cycles"] - fadd_lat) / 2, inst["cvt"]["issue_interval"] / 2,
                         "cvt.rzi.s32.f32 + cvt.rn.f32.s32 pairs (per cvt; the add.f32 of each step subtracted)")
    mma = it.get("mma", {})
    thr = [v["issue_interval_per_subpartition"] for k, v in mma.items() if k.startswith("warps")]
    if "latency_cycles" in mma and thr:
        pipes["tensor"] = (mma["latency_cycles"], min(thr),
                           "mma.sync.m16n8k16.row.col.f32.f16.f16.f32: dependent chain; 4-16 warps/SM x 4 chains (best)")
    banks = it.get("banks", {})
    many = banks.get("block1024", {})
    per_wavefront = [v / (int(n) * 32) for n, v in many.items() if int(n) >= 2]
    if per_wavefront and "shared" in lat:
        cyc = statistics.median(per_wavefront)
        pipes["lsu"] = (lat["shared"][0], 4 * cyc,
                        "shared loads: latency from the chase; issue from 32 warps of 2..32-way conflicting loads "
                        f"({cyc:.3f} cycles per wavefront per SM, i.e. one 128-B wavefront per cycle)")
        other["shared_bytes_per_clk_per_sm"] = (128 / cyc, "bank-conflict benchmark, 32 warps: 128 B per wavefront")
    one = banks.get("block32", {})
    if "1" in one and "32" in one:
        other["shared_conflict_latency_per_wavefront"] = ((one["32"] - one["1"]) / 31,
                                                          "one warp: extra latency per additional wavefront")
    if ok("iadd"):
        other["iadd_latency"] = (inst["iadd"]["latency_cycles"], "add.u32 dependent chain")

    ca = sorted((p["size_kib"], p["cycles_per_load"]) for p in sweep if p["op"] == "chase_ca")
    fits = [k for k, c in ca if c < 1.5 * ca[0][1]] if ca else []
    if fits:
        other["l1_capacity_kib_at_least"] = (max(fits), "largest chase footprint that still hits L1 (no shared memory)")
    atom = it.get("atomics", {})
    for key in ("global_same", "global_distinct", "shared_same", "shared_distinct"):
        if isinstance(atom.get(key), dict) and "atomics_per_s" in atom[key]:
            other[f"atomic_{key}_per_s"] = (atom[key]["atomics_per_s"], "atomicAdd by 528 x 1024 threads x 64")

    bw = it.get("bw_dram", {})
    best = [v["bytes_per_s"] for v in bw.values() if isinstance(v, dict) and "bytes_per_s" in v]
    if best:
        other["dram_copy_bytes_per_s"] = (max(best), "1 GiB float4 device copy (read + write bytes / min time of 10)")
    rw = it.get("bw_dram_rw", {})
    for key in ("read", "write"):
        if isinstance(rw.get(key), dict) and "bytes_per_s" in rw[key]:
            other[f"dram_{key}_bytes_per_s"] = (rw[key]["bytes_per_s"], f"1 GiB float4 {key}-only stream")
    if "dram_read_bytes_per_s" in other:
        other["dram_bytes_per_s"] = (other["dram_read_bytes_per_s"][0], "1 GiB float4 read-only stream (min time of 10)")
    elif best:
        other["dram_bytes_per_s"] = other["dram_copy_bytes_per_s"]
    sc = it.get("scatter", {})
    for key, v in sc.items():
        if isinstance(v, dict) and "sectors_per_s" in v and "stride32" in key:
            other[f"scatter_{key}_sectors_per_clk"] = (v["sectors_per_s"] / (clock.get("mhz", 1980.0) * 1e6),
                                                       "one 32-B sector per lane (stride 32 words), whole GPU")
    shb = it.get("bw_shared", {})
    if isinstance(shb, dict) and 0 < shb.get("bytes_per_clk_per_sm", 1e9) <= 256:
        other["shared_ldv4_bytes_per_clk_per_sm"] = (shb["bytes_per_clk_per_sm"], "ld.shared.v4, 1024 threads per SM")
    if ok("shfl") and inst["shfl"]["lanes_per_clk_per_sm"] <= 64:
        iadd = inst["iadd"]["latency_cycles"] if ok("iadd") else 4.0
        other["shfl_latency"] = (inst["shfl"]["latency_cycles"] - iadd, "shfl.sync.bfly chain, one warp (add.u32 subtracted)")
        other["shfl_lanes_per_clk_per_sm"] = (inst["shfl"]["lanes_per_clk_per_sm"], "shfl.sync.bfly + add.u32, 32 warps/SM")
    l1bw = it.get("bw_l1", {})
    l1best = [v["bytes_per_clk_per_sm"] for v in l1bw.values() if isinstance(v, dict)]
    if l1best:
        other["l1_global_load_bytes_per_clk_per_sm"] = (max(l1best), "ld.global.ca.v4 re-reads of 16/64 KiB per CTA")
    l2bw = it.get("bw_l2", {})
    l2best = [v["bytes_per_s"] for v in l2bw.values() if isinstance(v, dict) and "bytes_per_s" in v]
    if l2best and "mhz" in clock:
        other["l2_bytes_per_clk"] = (max(l2best) / (clock["mhz"] * 1e6),
                                     "ld.global.cg.v4 reads of a 4-32 MiB L2-resident array by 264 CTAs (best)")
    dev = micro.get("device", {})
    if dev.get("l2CacheSize"):
        other["l2_bytes"] = (int(dev["l2CacheSize"]), "cudaDeviceProp.l2CacheSize")
    return lat, pipes, other


SAME_SM = ("shared", "l1_hit", "atomic_shared", "barrier", "branch", "const_hit")


def issue(ii: float) -> float:
    """A measured issue interval; within 8 % of a power of two it is taken as that power (the
    difference is the benchmark loop's own instructions), otherwise kept as measured."""
    p2 = 2.0 ** round(math.log2(ii))
    return p2 if abs(ii - p2) <= 0.08 * p2 else round(ii, 3)


def apply(spec: dict, lat, pipes, other, source: str, transfer: bool) -> dict:
    note = source + (", same SM as H100 (transferred)" if transfer else "")
    for key, (v, how) in lat.items():
        if transfer and key not in SAME_SM:
            continue
        spec["latency"][key] = {"value": max(1, int(round(v))), "source": f"{note}: {how}"}
    for cls, (l, ii, how) in pipes.items():
        spec["pipes"][cls] = {"latency": max(1, int(round(l))), "issue_interval": issue(float(ii)),
                              "source": f"{note}: {how} (measured issue interval {ii:.3f})"}
    if not transfer:
        for key in ("dram_bytes_per_s", "l2_bytes_per_clk", "l2_bytes"):
            if key in other:
                v, how = other[key]
                spec[key] = {"value": round(v, 1) if isinstance(v, float) else v, "source": f"{source}: {how}"}
    return spec


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("micro_json")
    ap.add_argument("--date", default=None)
    args = ap.parse_args(argv)
    with open(args.micro_json) as f:
        micro = json.load(f)
    date = args.date or micro.get("date", "")[:10]
    lat, pipes, other = derive(micro)
    for name, transfer in (("h200", False), ("h100", True)):
        path = os.path.join(GPUS, name + ".json")
        with open(path) as f:
            spec = json.load(f)
        spec = apply(spec, lat, pipes, other, f"measured on H200 {date}", transfer)
        if not transfer:
            spec["measured"] = {
                "date": date,
                "raw": os.path.relpath(os.path.abspath(args.micro_json), ROOT),
                "derived": {k: round(v[0], 3) if isinstance(v[0], float) else v[0]
                            for k, v in {**lat, **other}.items()},
                "pipes": {k: {"latency": round(v[0], 2), "issue_interval": round(v[1], 3)} for k, v in pipes.items()},
            }
        with open(path, "w") as f:
            json.dump(spec, f, indent=1)
            f.write("\n")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
