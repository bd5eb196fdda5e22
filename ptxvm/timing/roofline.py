"""The roofline chart of a Profile: the kernel (arithmetic intensity vs achieved FLOP/s) under
the GPU's compute roof and DRAM bandwidth slope, on log-log axes. SVG needs nothing; a .png
path is drawn with matplotlib when it is installed."""
from __future__ import annotations

import math
import os


def write_roofline(p, path) -> str:
    path = os.fspath(path)
    if path.lower().endswith(".png"):
        return _png(p, path)
    with open(path, "w", encoding="utf-8") as f:
        f.write(svg(p))
    return path


def _point(p) -> tuple[float, float]:
    ai = p.arithmetic_intensity
    if not math.isfinite(ai) or ai <= 0:
        ai = 1e3
    return ai, max(p.flops_per_s, 1.0)


def _axes(p):
    bw, peak = p.dram_bytes_per_s_peak, max(p.peak_flops, 1.0)
    ai, perf = _point(p)
    ridge = peak / bw
    x0 = 10 ** math.floor(math.log10(min(ai, ridge) / 10))
    x1 = 10 ** math.ceil(math.log10(max(ai, ridge) * 10))
    y1 = 10 ** math.ceil(math.log10(peak * 2))
    y0 = 10 ** math.floor(math.log10(max(min(perf, bw * x0) / 10, 1.0)))
    return x0, x1, y0, y1, bw, peak, ai, perf, ridge


def svg(p) -> str:
    W, H, L, R, T, B = 640, 440, 80, 20, 40, 60
    x0, x1, y0, y1, bw, peak, ai, perf, ridge = _axes(p)

    def X(v):
        return L + (math.log10(v) - math.log10(x0)) / (math.log10(x1) - math.log10(x0)) * (W - L - R)

    def Y(v):
        return H - B - (math.log10(v) - math.log10(y0)) / (math.log10(y1) - math.log10(y0)) * (H - T - B)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W / 2}" y="22" text-anchor="middle" font-size="14">Roofline: {_esc(p.kernel)} on {_esc(p.gpu)}</text>']
    for d in range(int(math.log10(x0)), int(math.log10(x1)) + 1):
        x = X(10 ** d)
        out.append(f'<line x1="{x:.1f}" y1="{T}" x2="{x:.1f}" y2="{H - B}" stroke="#ddd"/>')
        out.append(f'<text x="{x:.1f}" y="{H - B + 16}" text-anchor="middle">1e{d}</text>')
    for d in range(int(math.log10(y0)), int(math.log10(y1)) + 1):
        y = Y(10 ** d)
        out.append(f'<line x1="{L}" y1="{y:.1f}" x2="{W - R}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{L - 6}" y="{y + 4:.1f}" text-anchor="end">1e{d}</text>')
    out.append(f'<rect x="{L}" y="{T}" width="{W - L - R}" height="{H - T - B}" fill="none" stroke="black"/>')
    xs = max(x0, y0 / bw)
    out.append(f'<polyline fill="none" stroke="#1f77b4" stroke-width="2" points="{X(xs):.1f},{Y(bw * xs):.1f} '
               f'{X(ridge):.1f},{Y(peak):.1f} {X(x1):.1f},{Y(peak):.1f}"/>')
    out.append(f'<text x="{X(x1) - 4:.1f}" y="{Y(peak) - 6:.1f}" text-anchor="end">peak {peak / 1e12:.1f} TFLOP/s</text>')
    out.append(f'<text x="{X(xs) + 4:.1f}" y="{Y(bw * xs) - 8:.1f}">DRAM {bw / 1e12:.2f} TB/s</text>')
    out.append(f'<circle cx="{X(ai):.1f}" cy="{Y(perf):.1f}" r="6" fill="#d62728"/>')
    out.append(f'<text x="{X(ai) + 9:.1f}" y="{Y(perf) + 4:.1f}">{_esc(p.kernel)}: {perf / 1e9:.1f} GFLOP/s, '
               f'{ai:.2f} FLOP/B</text>')
    out.append(f'<text x="{(L + W - R) / 2}" y="{H - 18}" text-anchor="middle">arithmetic intensity (FLOP / DRAM byte)</text>')
    out.append(f'<text x="18" y="{(T + H - B) / 2}" text-anchor="middle" transform="rotate(-90 18 {(T + H - B) / 2})">'
               f'FLOP/s</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _esc(s: str) -> str:
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _png(p, path: str) -> str:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise RuntimeError("a PNG roofline needs matplotlib (not installed); write an .svg path instead") from None
    x0, x1, y0, y1, bw, peak, ai, perf, ridge = _axes(p)
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    xs = [max(x0, y0 / bw), ridge, x1]
    ax.loglog(xs, [bw * xs[0], peak, peak], color="#1f77b4")
    ax.loglog([ai], [perf], "o", color="#d62728")
    ax.annotate(p.kernel, (ai, perf), textcoords="offset points", xytext=(8, 0))
    ax.set_xlabel("arithmetic intensity (FLOP / DRAM byte)")
    ax.set_ylabel("FLOP/s")
    ax.set_title(f"Roofline: {p.kernel} on {p.gpu}")
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
