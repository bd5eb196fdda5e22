"""Compiled (Numba) kernels for the tensor-core rules of ptxvm.numerics.mma.

The NumPy functions of mma.py are the specification; these compute the same bits with loops
over fixed-point significands: one pass per output element, no temporaries larger than the
operands. tests/numerics/test_mma_jit.py compares the two on random and adversarial data.

Operands arrive as uint64 arrays of raw element bits, A [L, M, K], B [L, K, N], C [L, M, N]
(L independent products). A float format is described by an int64 vector `FMT` =
(exponent bits, fraction bits, padding bits below the value, has infinity); every kernel has a
single type signature, so each compiles once (and `cache=True` keeps the machine code on disk).
"""
from __future__ import annotations

import numpy as np
from numba import njit

RN, RZ, RP = 0, 1, 2          # rounding modes the fused sums need (RP only for the overflow test)
_NEG_INF_EXP = -(1 << 30)
_PRE = 32                     # the spec's pre-shift (mma._PRE)


def fmt_vector(fmt) -> np.ndarray:
    return np.array([fmt.exp_bits, fmt.man_bits, fmt.pad_bits, 1 if fmt.has_inf else 0], np.int64)


@njit(cache=True, nogil=True)
def _decode(x, fmt, sign, sig, exp, nan, inf, zero):
    """Decode the flat bits `x` into the flat outputs (mma.decode): value = (-1)^sign *
    sig * 2^(exp - fraction bits); NaN and infinity get sig 0; zero marks a true zero."""
    eb, mb, pad, has_inf = fmt[0], fmt[1], fmt[2], fmt[3]
    width = 1 + eb + mb
    bias = (1 << (eb - 1)) - 1
    emask = ((1 << eb) - 1) << mb
    mmask = (1 << mb) - 1
    for i in range(x.size):
        b = np.int64(x[i] >> np.uint64(pad)) & ((1 << width) - 1)
        s = (b >> (width - 1)) & 1
        mag = b & ((1 << (width - 1)) - 1)
        e = (b >> mb) & ((1 << eb) - 1)
        f = b & mmask
        if has_inf:
            isnan = mag > emask
            isinf = mag == emask
        else:
            isnan = mag == (emask | mmask)
            isinf = False
        if e != 0:
            m = f | (1 << mb)
            ex = e - bias
        else:
            m = f
            ex = 1 - bias
        if isnan or isinf:
            m = 0
        sign[i] = s
        sig[i] = m
        exp[i] = ex
        nan[i] = isnan
        inf[i] = isinf
        zero[i] = (m == 0) and not isnan and not isinf


@njit(cache=True, nogil=True)
def _bit_length(v):
    n = 0
    while v != 0:
        v >>= np.uint64(1)
        n += 1
    return n


@njit(cache=True, nogil=True)
def _encode(sign, mant, exp, fmt, mode):
    """encode.encode for one value: (-1)^sign * mant * 2^exp rounded into fmt (mode RN, RZ or
    RP; overflow as IEEE for the mode); the storage bits as uint64."""
    eb, m, pad, has_inf = fmt[0], fmt[1], fmt[2], fmt[3]
    width = 1 + eb + m
    bias = (1 << (eb - 1)) - 1
    emin = 1 - bias
    emask = ((1 << eb) - 1) << m
    mmask = (1 << m) - 1
    max_logical = (emask - 1) if has_inf else (emask | (mmask - 1))
    mag = np.uint64(0)
    if mant != 0:
        top = exp + _bit_length(mant) - 1
        q = max(top - m, emin - m)
        shift = q - exp
        if shift >= 64:
            mant = np.uint64(1)
            shift = 2
        if shift > 0:
            rs = min(shift, 63)
            kept = mant >> np.uint64(rs)
            rem = mant & ((np.uint64(1) << np.uint64(rs)) - np.uint64(1))
            half = np.uint64(1) << np.uint64(rs - 1)
        else:
            kept = mant << np.uint64(min(-shift, 63))
            rem = np.uint64(0)
            half = np.uint64(1)
        up = False
        if mode == RN:
            up = rem > half or (rem == half and (kept & np.uint64(1)) == np.uint64(1))
        elif mode == RP:
            up = rem != np.uint64(0) and not sign
        sig = kept + np.uint64(1 if up else 0)
        mag = (np.uint64(q + m + bias - 1) << np.uint64(m)) + sig
    if mag > np.uint64(max_logical):
        if has_inf and (mode == RN or (mode == RP and not sign)):
            mag = np.uint64(emask)
        else:
            mag = np.uint64(max_logical)
        # formats without infinity would overflow to NaN; the fused sums only round into f32/f16
    return (mag | (np.uint64(1 if sign else 0) << np.uint64(width - 1))) << np.uint64(pad)


@njit(cache=True, nogil=True)
def _keep_significant(total, bits):
    """mma._keep_significant: truncate toward zero to the `bits` leading significant bits."""
    mag = np.uint64(-total) if total < 0 else np.uint64(total)
    drop = _bit_length(mag) - bits
    if drop > 0:
        mag = (mag >> np.uint64(drop)) << np.uint64(drop)
    return -np.int64(mag) if total < 0 else np.int64(mag)


@njit(cache=True, nogil=True)
def _round_sum(total, q, fmt, mode):
    """mma._round for a finite sum total * 2^q: overflow gives infinity in every mode, a zero or
    underflowing result is +0."""
    eb, m, pad = fmt[0], fmt[1], fmt[2]
    width = 1 + eb + m
    if total == 0:
        return np.uint64(0)
    sign = total < 0
    mag = np.uint64(-total) if sign else np.uint64(total)
    out = _encode(sign, mag, q, fmt, mode)
    inf = np.uint64(((1 << eb) - 1) << m) << np.uint64(pad)
    if mode != RN and _encode(False, mag, q, fmt, RP) == inf:
        out = inf | (np.uint64(1 if sign else 0) << np.uint64(width - 1 + pad))
    if ((out >> np.uint64(pad)) & np.uint64((1 << (width - 1)) - 1)) == np.uint64(0):
        out = np.uint64(0)
    return out


@njit(cache=True, nogil=True)
def fused_mma(a, b, c, afmt, bfmt, cfmt, ofmt, mode, align_bits, keep_bits, out):
    """One fused tensor-core step per output (mma.fused_step over exact products): out[l, m, n]
    = round(C + sum_k A[l, m, k] * B[l, k, n]) with every term truncated toward zero onto the grid
    2^(E - align_bits) (E the largest nominal exponent of the nonzero terms), the exact sum kept to
    `keep_bits` significant bits when keep_bits > 0, rounded into ofmt with `mode`."""
    L, M, K = a.shape
    N = b.shape[2]
    na, nb = a.size, b.size
    sa = np.empty(na, np.int64); ma = np.empty(na, np.int64); ea = np.empty(na, np.int64)
    nana = np.empty(na, np.bool_); infa = np.empty(na, np.bool_); za = np.empty(na, np.bool_)
    sb = np.empty(nb, np.int64); mb = np.empty(nb, np.int64); eb = np.empty(nb, np.int64)
    nanb = np.empty(nb, np.bool_); infb = np.empty(nb, np.bool_); zb = np.empty(nb, np.bool_)
    _decode(a.ravel(), afmt, sa, ma, ea, nana, infa, za)
    # B transposed to [L, N, K] so that the k loop runs over contiguous memory
    _decode(np.ascontiguousarray(b.transpose(0, 2, 1)).ravel(), bfmt, sb, mb, eb, nanb, infb, zb)
    nc = c.size
    sc = np.empty(nc, np.int64); mc = np.empty(nc, np.int64); ec = np.empty(nc, np.int64)
    nanc = np.empty(nc, np.bool_); infc = np.empty(nc, np.bool_); zc = np.empty(nc, np.bool_)
    _decode(c.ravel(), cfmt, sc, mc, ec, nanc, infc, zc)
    fab = afmt[1] + bfmt[1]
    fc = cfmt[1]
    ow = 1 + ofmt[0] + ofmt[1]
    opad = np.uint64(ofmt[2])
    o_inf = np.uint64(((1 << ofmt[0]) - 1) << ofmt[1]) << opad
    o_nan = np.uint64((1 << (ow - 1)) - 1) << opad
    o_neg = np.uint64(1) << np.uint64(ow - 1 + ofmt[2])
    for l in range(L):
        for i in range(M):
            ra = (l * M + i) * K
            for j in range(N):
                rb = (l * N + j) * K
                z = (l * M + i) * N + j
                nan = nanc[z]
                pinf = infc[z] and sc[z] == 0
                ninf = infc[z] and sc[z] != 0
                emax = ec[z] if mc[z] != 0 else _NEG_INF_EXP
                for k in range(K):
                    x, y = ra + k, rb + k
                    if nana[x] or nanb[y] or (infa[x] and zb[y]) or (za[x] and infb[y]):
                        nan = True
                    elif infa[x] or infb[y]:
                        if sa[x] != sb[y]:
                            ninf = True
                        else:
                            pinf = True
                    elif ma[x] != 0 and mb[y] != 0:
                        e = ea[x] + eb[y]
                        if e > emax:
                            emax = e
                if nan or (pinf and ninf):
                    out[l, i, j] = o_nan
                    continue
                if pinf:
                    out[l, i, j] = o_inf
                    continue
                if ninf:
                    out[l, i, j] = o_inf | o_neg
                    continue
                if emax == _NEG_INF_EXP:
                    out[l, i, j] = np.uint64(0)
                    continue
                q = emax - align_bits
                total = np.int64(0)
                for k in range(K):
                    x, y = ra + k, rb + k
                    sig = ma[x] * mb[y]
                    if sig != 0:
                        sh = min(max(q + fab + _PRE - (ea[x] + eb[y]), 0), 63)
                        v = (sig << _PRE) >> sh
                        total += -v if sa[x] != sb[y] else v
                if mc[z] != 0:
                    sh = min(max(q + fc + _PRE - ec[z], 0), 63)
                    v = (mc[z] << _PRE) >> sh
                    total += -v if sc[z] != 0 else v
                if keep_bits > 0:
                    total = _keep_significant(total, keep_bits)
                out[l, i, j] = _round_sum(total, q, ofmt, mode)


@njit(cache=True, nogil=True)
def _int_value(x, width, signed):
    v = np.int64(x & np.uint64((1 << width) - 1))
    if signed and v >= (1 << (width - 1)):
        v -= 1 << width
    return v


@njit(cache=True, nogil=True)
def int_mma(a, b, c, awidth, asigned, bwidth, bsigned, satfinite, out):
    """mma.imma: D = A*B + C exactly (C s32), wrapping modulo 2^32 or clamped with satfinite;
    also b1 (awidth = bwidth = 1, unsigned: popc of the AND)."""
    L, M, K = a.shape
    N = b.shape[2]
    for l in range(L):
        for i in range(M):
            for j in range(N):
                s = _int_value(c[l, i, j], 32, True)
                for k in range(K):
                    s += _int_value(a[l, i, k], awidth, asigned) * _int_value(b[l, k, j], bwidth, bsigned)
                if satfinite:
                    s = min(max(s, -(1 << 31)), (1 << 31) - 1)
                out[l, i, j] = np.uint64(s & 0xFFFFFFFF)


@njit(cache=True, nogil=True)
def xor_popc_mma(a, b, c, out):
    """mma.bmma with .xor: popc(row XOR column) + C, wrapping."""
    L, M, K = a.shape
    N = b.shape[2]
    for l in range(L):
        for i in range(M):
            for j in range(N):
                s = _int_value(c[l, i, j], 32, True)
                for k in range(K):
                    s += np.int64((a[l, i, k] ^ b[l, k, j]) & np.uint64(1))
                out[l, i, j] = np.uint64(s & 0xFFFFFFFF)
