"""Sampling a TextureObject: layers, cube faces, mip levels, address modes, point and linear filters,
offsets and depth compare. All functions take whole lanes groups (NumPy arrays, one entry per
thread); texture_filter.py holds the fixed-point filter arithmetic.

Follows the CUDA programming guide's texture-fetching appendix and an H200's answers
(tests/goldens/kernels/texture_probes.npz, texture_ext.npz; docs/hardware-notes.md).
"""
from __future__ import annotations

import copy
import itertools
from typing import Optional, Sequence

import numpy as np

from . import filter as F
from ...numerics import mufu

# cube faces (+x, -x, +y, -y, +z, -z): (major axis, sign, s axis, s sign, t axis, t sign), the
# programming guide's table (OpenGL's)
_FACES = ((0, 1, 2, -1, 1, -1), (0, -1, 2, 1, 1, -1), (1, 1, 0, 1, 2, 1),
          (1, -1, 0, 1, 2, -1), (2, 1, 0, 1, 1, -1), (2, -1, 0, -1, 1, -1))


# ---------------------------------------------------------------------------- coordinates


def cube_coords(x, y, z):
    """(face 0..5, s, t) of direction vectors: the major axis picks the face (ties: z over y over x),
    the other two times MUFU.RCP of its magnitude (rcp.approx.ftz.f32; product rounded to f32) map
    to [0, 1] face coordinates (s + 1) / 2, kept exact in float64 (`cube_ramp512_*`, `cube_ties_s`:
    a correctly rounded reciprocal missed 46 of its 2048 weight ties). The zero
    direction (any signs of zero) reads the centre of face +z on the H200, not the NaN that
    0 * (1 / 0) gives (`tex.cube.*#cube_point` lane 38: (+0, -0, +0) -> face 4, s = t = 0.5)."""
    v = [np.asarray(c, np.float32) for c in (x, y, z)]
    ax = [np.abs(c) for c in v]
    major = np.where((ax[2] >= ax[1]) & (ax[2] >= ax[0]), 2, np.where(ax[1] >= ax[0], 1, 0))
    ma = np.choose(major, v)
    face = 2 * major + (ma < 0)
    s = np.zeros_like(v[0])
    t = np.zeros_like(v[0])
    for f, (_, _, sa, ss, ta, ts) in enumerate(_FACES):
        m = face == f
        s = np.where(m, ss * v[sa], s)
        t = np.where(m, ts * v[ta], t)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        inv = mufu.rcp(np.abs(ma).view(np.uint32)).view(np.float32)
        zero = ma == 0  # so s = t = 0 too
        s = ((np.where(zero, 0, s * inv)).astype(np.float64) + 1) / 2
        t = ((np.where(zero, 0, t * inv)).astype(np.float64) + 1) / 2
    return face.astype(np.int64), [s, t]


def layer_index(tex, layer) -> np.ndarray:
    """The layer an array index selects (unsigned, clamped to the last layer)."""
    idx = np.asarray(layer).astype(np.int64) & 0xFFFFFFFF
    per = 6 if tex.geometry == "acube" else 1
    count = tex.layers // per
    return np.minimum(idx, count - 1) * per


NORM_FRACTION_BITS = 21


def normalized_to_texels(u, size, period=None):
    """u * size as the hardware forms it: u truncated (floor) to 21 fraction bits, then scaled
    exactly (the normcoord_* probes). period (1 for wrap, 2 for mirror): only u modulo the period
    counts, taken exactly first (f32 u; huge values are integers, so 0), and NaN or +-inf read as
    u = 0 on the H200 (`tex.2d.v4.f32.f32#edges_norm_wrap_linear`: NaN, +-inf, +-1e30, +-2^31,
    +-3.4e38 all sample like u = 0; mirror by analogy, unmeasured)."""
    u = np.asarray(u, np.float32).astype(np.float64)
    if period is not None:
        with np.errstate(invalid="ignore"):
            u = np.where(np.isfinite(u), u - period * np.floor(u / period), 0.0)
    q = np.floor(u * (1 << NORM_FRACTION_BITS))
    return q * (size / (1 << NORM_FRACTION_BITS))


def _scaled(tex, x, d, k):
    """Texel-space positions along dimension d at mip level k."""
    size = tex.level_size(k)[d]
    if tex.normalized_coords:
        return normalized_to_texels(x, size, {"wrap": 1, "mirror": 2}.get(_mode(tex, d)))
    return np.asarray(x, np.float32).astype(np.float64) * (size / tex.size[d])


def _index(tex, i, d, k):
    """(texel indices inside level k, in-range mask or None) after dimension d's address mode."""
    n = tex.level_size(k)[d]
    mode = _mode(tex, d)
    if mode == "clamp":
        return np.clip(i, 0, n - 1), None
    if mode == "border":
        return np.clip(i, 0, n - 1), (i >= 0) & (i < n)
    if mode == "wrap":
        return np.mod(i, n), None
    m = np.mod(i, 2 * n)
    return np.where(m >= n, 2 * n - 1 - m, m), None


def _texels(tex, k, layer, idx, oks, values=None):
    """(n, 4) texel values of level k at integer indices (one array per dimension) in `layer`."""
    vals_all = tex.values[k] if values is None else values
    sel = (layer,) + tuple(idx[d] for d in reversed(range(tex.dims)))
    vals = vals_all[sel]
    n = vals.shape[0]
    out = np.zeros((n, 4), vals.dtype)
    out[:, : tex.channels] = vals
    ok = None
    for o in oks:
        if o is not None:
            ok = o if ok is None else ok & o
    if ok is not None:
        if vals.dtype == np.float32 and tex.dtype.kind in "iu" and not getattr(tex, "srgb", False):
            border = F.border_as_read(tex.dtype, tex.border_color)  # normalized-float reads
        elif vals.dtype == np.float32:
            border = tex.border_color
        elif vals.dtype == np.float64:  # 16-bit fixed-point texels of normalized-integer filtering
            border = F.fixed_border(tex.dtype, tex.border_color)
        elif vals.dtype == np.uint32:
            border = tex.border_color.astype(np.int64).astype(np.uint32)
        else:
            border = np.zeros(4, vals.dtype)
        out[~ok] = border
    return out


# ---------------------------------------------------------------------------- level of detail


def level_of_detail(tex, n, lod=None, grad=None):
    """The level of detail of each lane (float64) or None for level 0 (tex without .level/.grad)."""
    if tex.num_levels == 1 and lod is None and grad is None:
        return None
    if lod is not None:
        lam = np.asarray(lod, np.float32).astype(np.float64)
    elif grad is not None:
        dx, dy = grad
        sizes = tex.size[: tex.dims]
        scale = [np.float32(s if tex.normalized_coords else 1) for s in sizes]
        gx = [(np.asarray(dx[d], np.float32) * scale[d]).astype(np.float64) for d in range(tex.dims)]
        gy = [(np.asarray(dy[d], np.float32) * scale[d]).astype(np.float64) for d in range(tex.dims)]
        lam = F.log2_fixed(F.footprint_length(gx, gy)) / F.ONE
        if tex.max_anisotropy > 1:  # anisotropic (not pinned): the long axis over the probe count
            lx, ly = F.vector_length(gx), F.vector_length(gy)
            px, pn = np.maximum(lx, ly), np.minimum(lx, ly)
            with np.errstate(divide="ignore", invalid="ignore"):
                probes = np.minimum(np.ceil(np.nan_to_num(px / pn, nan=1.0, posinf=np.inf)), tex.max_anisotropy)
            lam = lam - np.log2(np.maximum(probes, 1))
    else:
        lam = np.zeros(n)
    lam = lam + tex.mipmap_level_bias
    lam = np.clip(lam, tex.min_mipmap_level_clamp, tex.max_mipmap_level_clamp)
    return np.clip(np.nan_to_num(lam, nan=0.0), 0.0, tex.num_levels - 1)


def _levels(tex, lam, n):
    """(low level, high level, weight of the high one in 1/256) per lane."""
    if lam is None:
        z = np.zeros(n, np.int64)
        return z, z, z
    if tex.mipmap_filter_mode == "point":
        k = np.floor(lam + 0.5).astype(np.int64)
        k = np.minimum(k, tex.num_levels - 1)
        return k, k, np.zeros(n, np.int64)
    t = np.floor(lam * F.ONE).astype(np.int64)  # the level of detail in fixed point, truncated
    lo = np.minimum(t >> F.FRACTION_BITS, tex.num_levels - 1)
    w = np.where(lo >= tex.num_levels - 1, 0, t & (F.ONE - 1))
    return lo, np.minimum(lo + 1, tex.num_levels - 1), w


# ---------------------------------------------------------------------------- fetches


def sample(tex, coords: Sequence[np.ndarray], *, layer=None, lod=None, grad=None, offsets=None,
           compare=None) -> np.ndarray:
    """Float coordinates: (n, 4) values (float32, or uint32 bits of integer element reads)."""
    n = np.asarray(coords[0]).shape[0]
    if grad is not None:
        tex = _grad_texture(tex)
    lay, coords = _place(tex, coords, layer)
    lam = level_of_detail(tex, n, lod, grad)
    lo, hi, w = _levels(tex, lam, n)
    offsets = None if offsets is None else [np.asarray(o) for o in offsets]
    compare = None if compare is None else np.asarray(compare)
    out = np.zeros((n, 4), np.float32 if tex.returns_float else np.uint32)
    if not tex.returns_float or tex.filter_mode == "point" and not np.any(w):
        for k in np.unique(lo):  # integer element reads: never filtered
            m = lo == k
            vals, _ = _footprint(tex, int(k), m, lay, coords, offsets, compare, None)
            out[m] = vals[..., 0]
        return out
    for k in np.unique(lo):
        m = lo == k
        tri = m & (w != 0)
        one = m & (w == 0)
        if one.any():
            vals, wts = _footprint(tex, int(k), one, lay, coords, offsets, compare, None)
            out[one] = _finish(tex, vals, wts, slices=2 if tex.dims == 3 else 1)
        for k1 in np.unique(hi[tri]):
            m2 = tri & (hi == k1)
            v0, w0 = _footprint(tex, int(k), m2, lay, coords, offsets, compare, F.ONE - w[m2])
            v1, w1 = _footprint(tex, int(k1), m2, lay, coords, offsets, compare, w[m2])
            # trilinear: the two levels are the two slices of a 3D-style filter (weights and blend)
            vals = np.stack([v0, v1], -1).reshape(v0.shape[:-1] + (-1,))
            wts = np.stack([w0, w1], -1).reshape(w0.shape[:-1] + (-1,))
            out[m2] = _finish(tex, vals, wts, slices=2)
    return out


def _grad_texture(tex):
    """The texture as tex.grad samples it. On a mipmapped texture the H200 takes the coordinates
    and gradients as normalized whatever the texture says (`tex.grad.*#unnorm_pow2`: coordinates
    and levels as with normalized_coords=True; `#no_levels`, one level, stays unnormalized)."""
    if tex.normalized_coords or tex.num_levels == 1:
        return tex
    if "_grad_view" not in tex.__dict__:
        t = copy.copy(tex)
        t.normalized_coords = True
        tex.__dict__["_grad_view"] = t
    return tex.__dict__["_grad_view"]


def _place(tex, coords, layer):
    """(layer of each lane, coordinates): cube directions become face layers and face coordinates."""
    n = np.asarray(coords[0]).shape[0]
    if tex.geometry in ("cube", "acube"):
        face, st = cube_coords(*coords[:3])
        base = np.zeros(n, np.int64) if layer is None else layer_index(tex, layer)
        return base + face, st
    lay = np.zeros(n, np.int64) if layer is None else layer_index(tex, layer)
    return lay, list(coords[: tex.dims])


def _mode(tex, d):
    mode = tex.address_mode[d]
    if not tex.normalized_coords and mode in ("wrap", "mirror"):
        return "clamp"
    return mode


def _footprint(tex, k, m, lay, coords, offsets, compare, total):
    """(texel values (m, 4, corners), integer weights (m, corners)) of the lanes `m` at level k.
    total: None for an unfiltered fetch (one corner, no weight) or the weight of this level (1/256
    units; ONE without mipmap blending) that the corner weights split."""
    lay = lay[m]
    xs = [np.asarray(coords[d])[m] for d in range(tex.dims)]
    offs = None if offsets is None else [o[m] for o in offsets]
    cmp = None if compare is None else compare[m]
    if tex.geometry in ("cube", "acube"):
        pts = [np.asarray(x, np.float64) * tex.level_size(k)[d] for d, x in enumerate(xs)]
    else:
        pts = [_scaled(tex, xs[d], d, k) for d in range(tex.dims)]
    if tex.filter_mode == "point" or not tex.returns_float:
        idx, oks = [], []
        for d in range(tex.dims):
            i = F.floor_index(pts[d])
            if offs is not None:
                i = i + offs[d]
            i, ok = _index(tex, i, d, k)
            idx.append(i)
            oks.append(ok)
        vals = _texels(tex, k, lay, idx, oks)
        if cmp is not None:
            vals = _compare(vals, cmp)
        weight = np.full(len(lay), F.ONE, np.int64) if total is None else total
        return vals[..., None], weight[:, None]
    lows, fracs = [], []
    for d in range(tex.dims):
        t = F.fixed_position(pts[d])
        if offs is not None:
            t = t + (offs[d] << F.FRACTION_BITS)
        if _mode(tex, d) == "clamp" and not _seamless(tex):  # the position itself is clamped
            t = np.clip(t, 0, (tex.level_size(k)[d] - 1) << F.FRACTION_BITS)
        lows.append(t >> F.FRACTION_BITS)
        fracs.append(t & (F.ONE - 1))
    fixed = _fixed_texels(tex, k)
    vals = []
    for corner in itertools.product((0, 1), repeat=tex.dims):
        if _seamless(tex):
            lay_c, idx = _cube_texel(tex, k, lay, lows[0] + corner[0], lows[1] + corner[1])
            vals.append(_texels(tex, k, lay_c, idx, [None], fixed))
            continue
        idx, oks = [], []
        for d, c in enumerate(corner):
            i, ok = _index(tex, lows[d] + c, d, k)
            idx.append(i)
            oks.append(ok)
        v = _texels(tex, k, lay, idx, oks, fixed)
        if cmp is not None:
            v = _compare(v, cmp)
        vals.append(v)
    if _border_row(tex):
        edge = _texels(tex, k, lay, [np.zeros_like(lows[0])], [np.zeros(len(lay), bool)], fixed)
        vals = [edge, vals[0], edge, vals[1]]  # corners (x, y): y = 0 is row -1 (the border), y = 1 row 0
        fracs = fracs + [np.full_like(fracs[0], F.ONE // 2)]
    wts = F.corner_weights(fracs, total=total)
    if _seamless(tex):
        wts = _cube_corner_weights(wts, lows, tex.level_size(k)[0])
    if fixed is None and tex.dtype.kind == "f":
        vals = _untouched_as_negative_zero(vals, fracs)
    return np.stack(vals, -1), np.stack(wts, -1)


def _untouched_as_negative_zero(vals, fracs):
    """Float texels outside the footprint (a zero weight along some dimension) as -0, the value
    that changes no blend: a texel inside it takes part in the blend's NaN / infinity / signed-zero
    rules even where its corner weight rounds to 0 (`special_blend2d`, `special_blend3d`: a NaN or
    -inf there gives NaN or -inf, a +0 there makes a zero result +0; F.blend)."""
    out = []
    for corner, v in zip(itertools.product((0, 1), repeat=len(fracs)), vals):
        touched = np.ones(len(v), bool)
        for f, c in zip(fracs, corner):
            touched &= (f if c else F.ONE - f) != 0
        out.append(np.where(touched[:, None], v, np.float32(-0.0)) if not touched.all() else v)
    return out


def _border_row(tex) -> bool:
    """A 1D CUDA-array texture filters as a 2D texture of height 1 sampled at y = 0 (txq.height of a
    1D texture is 1 on the H200): linear filtering puts half of each weight on row -1, which only
    the border address mode tells from row 0, so the result is the average of the 1D blend and the
    border colour (`border1d_linear*`: every lane, normalized coordinates or not; layered 1D textures
    do not do this, `border1d_linear_a1d`)."""
    return tex.geometry == "1d" and not getattr(tex, "linear", False) and \
        getattr(tex, "row_address_mode", "clamp") == "border"


def _cube_corner_weights(wts, lows, size):
    """At a cube corner the footprint's fourth texel does not exist: its weight goes to the other
    three, round(w / 3) to each neighbour across an edge and the rest to the face's own texel."""
    wts = [w.copy() for w in wts]
    x_out = [(lows[0] + c < 0) | (lows[0] + c >= size) for c in (0, 1)]
    y_out = [(lows[1] + c < 0) | (lows[1] + c >= size) for c in (0, 1)]
    for cx, cy in itertools.product((0, 1), repeat=2):
        m = x_out[cx] & y_out[cy]
        if not m.any():
            continue
        diag = 2 * cx + cy  # corners in product order, x slowest
        wd = wts[diag][m]
        share = (wd + 1) // 3  # round(wd / 3), half up (never a tie)
        wts[2 * cx + (1 - cy)][m] += share
        wts[2 * (1 - cx) + cy][m] += share
        wts[2 * (1 - cx) + (1 - cy)][m] += wd - 2 * share
        wts[diag][m] = 0
    return wts


def _seamless(tex) -> bool:
    return tex.seamless_cubemap and tex.geometry in ("cube", "acube")


def _cube_texel(tex, k, lay, i, j):
    """(layer, [i, j]) of face texel (i, j) of layer `lay`; a texel beyond the face's edge is the
    one its centre's direction lands on in the neighbouring face (seamless cube filtering)."""
    size = tex.level_size(k)[0]
    out = (i < 0) | (i >= size) | (j < 0) | (j >= size)
    if not out.any():
        return lay, [i, j]
    face = lay % 6
    sc = (2 * i + 1) / size - 1.0
    tc = (2 * j + 1) / size - 1.0
    d = np.zeros((3, lay.size))
    for f, (major, sign, sa, ss, ta, ts) in enumerate(_FACES):
        m = face == f
        d[major, m] = sign
        d[sa, m] = ss * sc[m]
        d[ta, m] = ts * tc[m]
    f2, (s2, t2) = cube_coords(*d.astype(np.float32))
    i2 = np.clip(np.floor(s2.astype(np.float64) * size), 0, size - 1).astype(np.int64)
    j2 = np.clip(np.floor(t2.astype(np.float64) * size), 0, size - 1).astype(np.int64)
    return np.where(out, lay - face + f2, lay), [np.where(out, i2, i), np.where(out, j2, j)]


def _finish(tex, vals, wts, slices):
    """The filtered value of a footprint."""
    if vals.dtype == np.float64:  # normalized-integer texels in 16-bit fixed point
        return F.blend_normalized(vals, wts, tex.dtype)
    if getattr(tex, "srgb", False):
        return _finish_srgb(tex, vals, wts, slices)
    out_dt = np.float16 if tex.dtype == np.float16 else np.float32
    out = F.blend(vals.astype(np.float64), wts, out_dtype=out_dt, slices=slices).astype(np.float32)
    return np.where(np.isnan(out), F.CANONICAL_NAN[np.dtype(out_dt)], out)


def _finish_srgb(tex, vals, wts, slices):
    """sRGB u8 texels: the converted channels by `blend_srgb`, alpha as a u8 normalized texel
    (`srgb_*` probes)."""
    out = F.blend_srgb(vals.astype(np.float64), wts, slices).astype(np.float32)
    c = F.srgb_channels(tex.channels)
    if c < tex.channels:
        codes = np.round(vals[:, c:tex.channels, :].astype(np.float64) * 255)
        out[:, c:tex.channels] = F.blend_normalized(F.unorm16(codes.astype(np.uint8)), wts, np.uint8)
    return out


def _fixed_texels(tex, k):
    """Normalized-integer texels as the filter sees them (16-bit fixed point), or None."""
    if tex.dtype.kind not in "iu" or tex.read_mode != "normalized_float" or getattr(tex, "srgb", False):
        return None
    cache = tex.__dict__.setdefault("_fixed", {})
    if k not in cache:
        cache[k] = F.unorm16(tex.levels[k])
    return cache[k]


def _compare(vals, ref):
    """Depth compare: 1.0 where the reference is less than or equal to the texel, else 0.0."""
    ref = np.asarray(ref, np.float32)[:, None]
    return (ref <= vals).astype(np.float32)


def fetch_int(tex, coords: Sequence[np.ndarray], *, layer=None, lod=None, offsets=None) -> np.ndarray:
    """Integer texel coordinates (tex with .s32 coordinates): (n, 4) values. Without a level,
    coordinates (and array indices) outside the texture read zero whatever the address mode; with
    tex.level's integer level they go through the address mode, and a level that does not exist
    reads zero (measured on the H200). tex.1d with .s32 coordinates and no level is a buffer fetch
    (tex1Dfetch): it reads texels of linear-memory textures only and zero at every coordinate of a
    CUDA-array 1D texture (`tex.1d.v4.f32.s32#1d`, `tex.1d.v4.s32.s32#1d_s32`: all 256 lanes, in
    range or not)."""
    n = np.asarray(coords[0]).shape[0]
    if tex.geometry == "1d" and lod is None and not getattr(tex, "linear", False):
        return np.zeros((n, 4), np.float32 if tex.returns_float else np.uint32)
    cs = [np.asarray(c).astype(np.int64) + (0 if offsets is None else offsets[d]) for d, c in enumerate(coords)]
    lay = np.zeros(n, np.int64) if layer is None else layer_index(tex, layer)
    out = np.zeros((n, 4), np.float32 if tex.returns_float else np.uint32)
    if lod is None:
        size = tex.level_size(0)
        ok = np.ones(n, bool)
        if layer is not None:  # an array index past the end reads zero too (float coordinates clamp it)
            ok &= (np.asarray(layer).astype(np.int64) & 0xFFFFFFFF) < tex.array_size
        for d in range(tex.dims):
            ok &= (cs[d] >= 0) & (cs[d] < size[d])
        vals = _texels(tex, 0, lay, [np.clip(cs[d], 0, size[d] - 1) for d in range(tex.dims)], [None])
        out[ok] = vals[ok]
        return out
    ks = np.asarray(lod).astype(np.int64)
    for k in np.unique(ks):
        if not 0 <= k < tex.num_levels:
            continue
        m = ks == k
        idx, oks = [], []
        for d in range(tex.dims):
            i, ok = _index(tex, cs[d][m], d, int(k))
            idx.append(i)
            oks.append(ok)
        out[m] = _texels(tex, int(k), lay[m], idx, oks)
    return out


def gather(tex, coords: Sequence[np.ndarray], comp: int, *, layer=None, offsets=None, compare=None) -> np.ndarray:
    """tld4: channel `comp` of the 2x2 footprint of bilinear filtering, in the order (i, j+1),
    (i+1, j+1), (i+1, j), (i, j) as the ISA lists them (x, y, z, w). Unlike tex, the position is not
    clamped first (`tld4_*` probes); each texel index goes through the address mode."""
    lay, coords = _place(tex, coords, layer)
    if tex.geometry in ("cube", "acube"):
        pts = [np.asarray(coords[d], np.float64) * tex.size[d] for d in range(2)]
    else:
        pts = [_scaled(tex, coords[d], d, 0) for d in range(2)]
    lows = []
    for d in range(2):
        base = F.fixed_point(pts[d])[0]
        if offsets is not None:
            base = base + offsets[d]
        lows.append(base)
    out = []
    # normalized-integer texels go through the filter's 16-bit fixed point, as a one-texel blend
    # (`tld4_g_s8norm`: s8 62 gives 15996/32767, not 62/127 as a point fetch does)
    fixed = _fixed_texels(tex, 0)
    for cx, cy in ((0, 1), (1, 1), (1, 0), (0, 0)):
        (ix, okx), (iy, oky) = _index(tex, lows[0] + cx, 0, 0), _index(tex, lows[1] + cy, 1, 0)
        v = _texels(tex, 0, lay, [ix, iy], [okx, oky], fixed)
        if fixed is not None:
            v = F.blend_normalized(v[..., None], np.full((len(v), 1), F.ONE, np.int64), tex.dtype)
        if compare is not None:
            v = _compare(v, compare)
        out.append(v[:, comp])
    return np.stack(out, axis=1)

