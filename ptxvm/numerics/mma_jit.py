"""Compiled (Numba) kernels for the tensor-core rules of ptxvm.numerics.mma.

The NumPy functions of mma.py are the specification; these compute the same bits with loops
over fixed-point significands: two short passes over k per output element, no temporary larger
than the operands and the output (the NumPy spec builds [..., M, N, K] int64 arrays).
tests/numerics/test_mma_jit.py compares the two on random and adversarial data.

Operands arrive as uint64 arrays of raw element bits, A [L, M, K], B [L, K, N], C [L, M, N]
(L independent products). A float format is described by an int64 vector (fmt_vector) =
(exponent bits, fraction bits, padding bits below the value, has infinity); every kernel has a
single type signature, so each compiles once (and `cache=True` keeps the machine code on disk).
"""
from __future__ import annotations

import numpy as np
from numba import njit

RN, RZ, RP = 0, 1, 2          # rounding modes the fused sums need (RP only for the overflow test)
_PRE = 32                     # the spec's pre-shift (mma._PRE)


def fmt_vector(fmt) -> np.ndarray:
    return np.array([fmt.exp_bits, fmt.man_bits, fmt.pad_bits, 1 if fmt.has_inf else 0], np.int64)


try:  # LLVM's count-leading-zeros (numba's own intrinsic; the binary search below if it moves)
    from numba.cpython.unsafe.numbers import leading_zeros as _clz
except ImportError:  # pragma: no cover
    _clz = None

if _clz is not None:
    @njit(cache=True, nogil=True)
    def _bit_length(v):
        """int.bit_length of a uint64."""
        return 64 - np.int64(_clz(v))
else:  # pragma: no cover
    @njit(cache=True, nogil=True)
    def _bit_length(v):
        """int.bit_length of a uint64 (binary search)."""
        n = 0
        for sh in (32, 16, 8, 4, 2, 1):
            if v >= (np.uint64(1) << np.uint64(sh)):
                v >>= np.uint64(sh)
                n += sh
        return n + (1 if v != np.uint64(0) else 0)


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
def _round_sums(total, q, cls, fmt, mode, out):
    """mma._round for every output: the finite sums total * 2^q rounded into fmt (overflow gives
    infinity in every mode, a zero or underflowing result is +0); outputs of class cls 2, 3, 4
    are +inf, -inf, the canonical NaN. The plain rounding runs first over all outputs (a loop
    without rare branches, which the compiler keeps tight), the rare cases after it."""
    eb, m, pad = fmt[0], fmt[1], fmt[2]
    width = 1 + eb + m
    upad = np.uint64(pad)
    magmask = np.uint64((1 << (width - 1)) - 1)
    inf_l = np.uint64(((1 << eb) - 1) << m)
    inf = inf_l << upad
    neg = np.uint64(1) << np.uint64(width - 1 + pad)
    nan = magmask << upad
    for z in range(total.size):
        t = total[z]
        out[z] = _encode(t < 0, np.uint64(-t) if t < 0 else np.uint64(t), q[z], fmt, mode)
    for z in range(total.size):
        o = out[z]
        if cls[z] >= 2:
            o = nan if cls[z] == 4 else (inf if cls[z] == 2 else inf | neg)
        elif ((o >> upad) & magmask) == np.uint64(0):
            o = np.uint64(0)
        elif mode != RN and ((o >> upad) & magmask) == inf_l - np.uint64(1):
            # RZ: a sum beyond the largest finite value gives infinity
            t = total[z]
            if _encode(False, np.uint64(-t) if t < 0 else np.uint64(t), q[z], fmt, RP) == inf:
                o = inf | (neg if t < 0 else np.uint64(0))
        out[z] = o


_ZERO_X = -(1 << 40)          # ulp exponent given to zeros and specials: far below every real one


@njit(cache=True, nogil=True)
def _term(bits, fmt):
    """(signed significand, ulp exponent, class) of one element (mma.decode): value = ssig *
    2^ulp; zeros, NaN and infinities get ssig 0 and ulp _ZERO_X; class 0 finite nonzero, 1 zero,
    2 +inf, 3 -inf, 4 NaN. TF32 ignores the padding bits of its f32 container."""
    eb, mb, pad, has_inf = fmt[0], fmt[1], fmt[2], fmt[3]
    width = 1 + eb + mb
    b = np.int64(bits >> np.uint64(pad)) & ((1 << width) - 1)
    neg = (b >> (width - 1)) != 0
    mag = b & ((1 << (width - 1)) - 1)
    emask = ((1 << eb) - 1) << mb
    mmask = (1 << mb) - 1
    if has_inf:
        if mag > emask:
            return 0, _ZERO_X, 4
        if mag == emask:
            return 0, _ZERO_X, 3 if neg else 2
    elif mag == (emask | mmask):
        return 0, _ZERO_X, 4
    if mag == 0:
        return 0, _ZERO_X, 1
    e = mag >> mb
    f = mag & mmask
    bias = (1 << (eb - 1)) - 1
    if e != 0:
        sig = f | (1 << mb)
        ulp = e - bias - mb
    else:
        sig = f
        ulp = 1 - bias - mb
    return (-sig if neg else sig), ulp, 0


@njit(cache=True, nogil=True)
def _terms(x, fmt, ssig, ulp, special):
    """_term of every element of the flat bits x."""
    for i in range(x.size):
        ssig[i], ulp[i], special[i] = _term(x[i], fmt)


@njit(cache=True, nogil=True)
def _terms_transposed(b, fmt, ssig, ulp, special):
    """_term of every element of b [L, K, N], stored transposed: b[l, k, n] at (l * N + n) * K + k."""
    L, K, N = b.shape
    for l in range(L):
        for k in range(K):
            for j in range(N):
                i = (l * N + j) * K + k
                ssig[i], ulp[i], special[i] = _term(b[l, k, j], fmt)


@njit(cache=True, nogil=True)
def _special_dot(ka, kb, pa, pb, K, ra, rb, sb, kc):
    """Class of a product sum whose row of A (ka/pa from ra, step 1) or column of B (kb/pb from
    rb, step sb) holds a NaN or infinity, C of class kc: 2 +inf, 3 -inf, 4 NaN (a NaN input,
    inf * 0, inf - inf)."""
    nan = kc == 4
    pinf = kc == 2
    ninf = kc == 3
    for k in range(K):
        x, y = ka[ra + k], kb[rb + k * sb]
        if x == 4 or y == 4 or (x >= 2 and y == 1) or (x == 1 and y >= 2):
            nan = True
        elif x >= 2 or y >= 2:  # an infinite product: the XOR of the factors' signs
            sx = (x == 3) if x >= 2 else (pa[ra + k] < 0)
            sy = (y == 3) if y >= 2 else (pb[rb + k * sb] < 0)
            if sx != sy:
                ninf = True
            else:
                pinf = True
    if nan or (pinf and ninf):
        return 4
    if pinf:
        return 2
    if ninf:
        return 3
    return 0


@njit(cache=True, nogil=True)
def _trunc(p, sh):
    """p * 2^(32 - sh) truncated toward zero (p * 2^32 fits in 63 bits, 0 <= sh <= 63)."""
    m = p >> 63                     # 0 or -1
    mag = ((p ^ m) - m) << _PRE
    return ((mag >> sh) ^ m) - m


def work_sizes(L: int, M: int, K: int, N: int) -> tuple[int, int]:
    """(int64 words, int8 bytes) of the `work` and `flags` scratch fused_mma needs."""
    na, nb, n = L * M * K, L * K * N, L * M * N
    return 2 * na + 2 * nb + 2 * n, na + nb + n + L * M + L * N


def fused_mma(a, b, c, afmt, bfmt, cfmt, ofmt, mode, align_bits, keep_bits, out, work, flags, run_rows=None):
    """One fused tensor-core step per output (mma.fused_step over exact products): out[l, m, n]
    = round(C + sum_k A[l, m, k] * B[l, k, n]) with every term truncated toward zero onto the grid
    2^(E - align_bits) (E the largest nominal exponent of the nonzero terms), the exact sum kept to
    `keep_bits` significant bits when keep_bits > 0, rounded into ofmt with `mode`.

    `fused_terms` decodes A and B once; `fused_rows` then computes the outputs of rows [r0, r1)
    of the L * M rows (a pass over k for E, a pass for the truncated sum, the rounding), so the
    rows may be split over threads: `run_rows(rows, n)` calls rows(r0, r1) for ranges covering
    [0, n) (on several threads, the kernels release the GIL), None: one call. NaN and infinity
    elements decode as zeros; outputs whose row of A or column of B holds one take their special
    value (such a product is always infinite or NaN, so the sum is not needed).

    `work` (int64) and `flags` (int8) are scratch of at least work_sizes(L, M, K, N) elements,
    any content: the caller keeps them from call to call, since fresh large arrays cost page
    faults on every instruction."""
    L, M, K = a.shape
    fused_terms(a, b, afmt, bfmt, work, flags)

    def rows(r0, r1):
        fused_rows(r0, r1, a.shape, b.shape, c, afmt, bfmt, cfmt, ofmt, mode, align_bits, keep_bits, out,
                   work, flags)

    if run_rows is None:
        rows(0, L * M)
    else:
        run_rows(rows, L * M)


@njit(cache=True, nogil=True)
def _layout(ashape, bshape, work, flags):
    """The scratch arrays of fused_terms / fused_rows, as views of `work` and `flags`."""
    L, M, K = ashape
    N = bshape[2]
    na, nb = L * M * K, L * K * N
    n = L * M * N
    pa = work[:na]; xa = work[na:2 * na]; ka = flags[:na]
    pb = work[2 * na:2 * na + nb]; xb = work[2 * na + nb:2 * na + 2 * nb]; kb = flags[na:na + nb]
    totals = work[2 * na + 2 * nb:2 * na + 2 * nb + n]
    qs = work[2 * na + 2 * nb + n:2 * na + 2 * nb + 2 * n]
    cls = flags[na + nb:na + nb + n]
    rowsp = flags[na + nb + n:na + nb + n + L * M]     # a NaN or infinity in this row of A
    colsp = flags[na + nb + n + L * M:na + nb + n + L * M + L * N]   # ... in this column of B
    return pa, xa, ka, pb, xb, kb, totals, qs, cls, rowsp, colsp


@njit(cache=True, nogil=True)
def fused_terms(a, b, afmt, bfmt, work, flags):
    """Decode A [L, M, K] and B [L, K, N] into the scratch (B transposed to [L, N, K], so that the
    k loops run over contiguous memory) and mark the rows of A and columns of B that hold a NaN
    or infinity."""
    L, M, K = a.shape
    N = b.shape[2]
    pa, xa, ka, pb, xb, kb, totals, qs, cls, rowsp, colsp = _layout(a.shape, b.shape, work, flags)
    _terms(a.ravel(), afmt, pa, xa, ka)
    _terms_transposed(b, bfmt, pb, xb, kb)
    rowsp[:] = 0
    colsp[:] = 0
    for r in range(L * M):
        for k in range(K):
            if ka[r * K + k] >= 2:
                rowsp[r] = 1
    for r in range(L * N):
        for k in range(K):
            if kb[r * K + k] >= 2:
                colsp[r] = 1


@njit(cache=True, nogil=True)
def fused_rows(r0, r1, ashape, bshape, c, afmt, bfmt, cfmt, ofmt, mode, align_bits, keep_bits, out, work, flags):
    """The outputs of rows r0 <= l * M + i < r1 (after fused_terms), rounded into `out`: per
    output a pass over k for E, a pass for the truncated sum; then the rounding of the range."""
    L, M, K = ashape
    N = bshape[2]
    pa, xa, ka, pb, xb, kb, totals, qs, cls, rowsp, colsp = _layout(ashape, bshape, work, flags)
    # a product's nominal exponent is (ulp_a + ulp_b) + fab: E = max ulp sum + fab
    fab = afmt[1] + bfmt[1]
    fc = cfmt[1]
    # the loops count from 0 (not l, i = divmod(r, M), nor l from r0 // M): indices the compiler
    # knows are not negative need no wrap-around, which keeps this two to three times faster
    for l in range(L):
        if (l + 1) * M <= r0 or l * M >= r1:
            continue
        for i in range(M):
            r = l * M + i
            if r < r0 or r >= r1:
                continue
            ra = r * K
            for j in range(N):
                rb = (l * N + j) * K
                z = r * N + j
                totals[z] = 0
                qs[z] = 0
                cls[z] = 0
                pc, xc, kc = _term(c[l, i, j], cfmt)
                if rowsp[r] != 0 or colsp[l * N + j] != 0:
                    kc = _special_dot(ka, kb, pa, pb, K, ra, rb, 1, kc)
                if kc >= 2:
                    cls[z] = kc
                    continue
                xmax = np.int64(_ZERO_X * 2)
                for k in range(K):
                    xmax = max(xmax, xa[ra + k] + xb[rb + k])
                emax = xmax + fab
                if pc != 0:
                    emax = max(emax, xc + fc)
                if emax < _ZERO_X // 2:    # every product and C is zero
                    continue
                base = emax - align_bits + _PRE
                total = np.int64(0)
                for k in range(K):
                    sh = min(base - (xa[ra + k] + xb[rb + k]), 63)
                    total += _trunc(pa[ra + k] * pb[rb + k], sh)
                if pc != 0:
                    total += _trunc(pc, min(max(base - xc, 0), 63))
                if keep_bits > 0:
                    total = _keep_significant(total, keep_bits)
                totals[z] = total
                qs[z] = base - _PRE
    _round_sums(totals[r0 * N:r1 * N], qs[r0 * N:r1 * N], cls[r0 * N:r1 * N], ofmt, mode, out.ravel()[r0 * N:r1 * N])


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
