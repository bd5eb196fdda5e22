"""The text report of a Profile."""
from __future__ import annotations

from .sm import STALL_REASONS


def _si(x: float, unit: str) -> str:
    for factor, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= factor:
            return f"{x / factor:.2f} {prefix}{unit}"
    return f"{x:.2f} {unit}"


def text_report(p) -> str:
    o = p.occupancy
    lines = [
        f"{p.kernel} on {p.gpu}: grid {tuple(p.grid)} x block {tuple(p.block)}, policy {p.policy}",
        f"  time            {p.seconds * 1e6:.2f} us ({p.cycles:,} cycles)",
        f"  why             {p.bound}" if getattr(p, "bound", "") else "",
        f"  CTAs            {p.ctas} ({p.waves:.2f} waves of {o.ctas_per_sm} per SM; simulated {p.simulated_ctas} "
        f"on {p.simulated_sms} SM)",
        f"  occupancy       achieved {p.achieved_occupancy:.1%}, theoretical {p.theoretical_occupancy:.1%} "
        f"(limit: {o.limiter}; {o.regs_per_thread} regs/thread from {o.regs_source}, "
        f"{o.shared_per_cta} B shared/CTA)",
        f"  instructions    {p.warp_instructions:,} warp, {p.thread_instructions:,} thread "
        f"(issue slots used {p.issue_slot_utilization:.1%})",
        f"  memory          {p.sectors_per_request:.2f} sectors/load request ({p.store_sectors_per_request:.2f} per store), L1 hit {p.cache_hit_rates['l1']:.1%}, "
        f"L2 hit {p.cache_hit_rates['l2']:.1%}, DRAM {_si(p.dram_bytes, 'B')} ({_si(p.dram_bytes_per_s, 'B/s')})",
    ]
    b = p.bank_conflicts
    if b.get("requests"):
        lines.append(f"  shared memory   {b['requests']} requests, {b['wavefronts']} wavefronts "
                     f"({b['wavefronts_per_request']} per request), {b['conflicts']} from bank conflicts")
    if p.flops:
        ai = p.arithmetic_intensity
        lines.append(f"  compute         {_si(p.total_flops, 'FLOP')} -> {_si(p.flops_per_s, 'FLOP/s')} "
                     f"({p.flops_per_s / p.peak_flops:.1%} of peak); intensity "
                     f"{'inf' if ai == float('inf') else f'{ai:.2f}'} FLOP/B")
    lines.append("  instruction mix " + ", ".join(f"{k} {v:,}" for k, v in p.instruction_mix.items()))
    util = getattr(p, "utilization", {}) or {}
    if util:
        lines.append("  busy            " + ", ".join(f"{k} {v:.0%}" for k, v in sorted(util.items(), key=lambda kv: -kv[1])
                                                       if v >= 0.01))
    total = sum(p.stalls.values()) or 1.0
    issued = p.stalls.get("selected", 0.0) or 1.0
    lines.append("  warp states (cycles per issued instruction, share of warp-cycles):")
    for k in sorted(STALL_REASONS, key=lambda r: -p.stalls.get(r, 0.0)):
        v = p.stalls.get(k, 0.0)
        if v:
            lines.append(f"    {k:22s} {v / issued:8.2f}  {v / total:6.1%}")
    return "\n".join(x for x in lines if x)
