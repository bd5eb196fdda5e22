"""Tensor-core arithmetic (mma, wmma) as an sm_90 GPU performs it, bit for bit.

Pure functions over matrices of raw element bits: A [..., M, K], B [..., K, N], C [..., M, N]
(leading axes = independent products, one per warp or quad-pair); they return D [..., M, N].
The rules were measured on an H100/H200 (docs/notes/matrix-numerics.md has the experiments):

* f16 / bf16 / tf32 inputs, f32 accumulator (HMMA): one fused step per instruction. Every product
  is exact; each product and C is placed on a grid fixed by the largest *nominal* exponent among
  the nonzero terms (ea+eb for a product, the exponent of C; subnormals count as emin) with
  `ALIGN_BITS` = 25 bits below it, each term truncated toward zero onto that grid, the truncated
  terms added exactly, and the sum rounded toward zero to f32.
* .f16 accumulator: the same fused sum, rounded to nearest-even to f16 (`f16acc_sum`).
* e4m3 / e5m2 (sm_89 forms, emulated with f16 HMMAs on sm_90): the k's are split into two halves by
  (k // 2) % 2; each half is one fused step as above starting from zero (the second starting from
  the first's f32 result), and C is added at the end with an f32 round-to-nearest addition.
* mma.m8n8k4 with .f16 inputs (emulated on sm_90 with f32 FMAs): ((p0 + p1) + p2) + p3, then + C,
  each addition an f32 round-to-nearest operation on exact products.
* f64: a chain of fused multiply-adds from C in k order, round-to-nearest (DMMA).
* integers: exact, wrapping modulo 2^32; .satfinite clamps the exact sum to the s32 range.
* b1: popc of AND/XOR of the bit rows and columns, added to C (wrapping).

NaN results are the canonical NaN (0x7fffffff for f32, 0x7fff for f16); an infinity among the
products or C (and no NaN, no inf - inf) gives that infinity.

These NumPy functions are the executable specification. The fused steps, the integer and the
single-bit products run by default as compiled kernels (ptxvm.numerics.mma_jit, Numba) that give
the same bits; ptxvm.jit says when (PTXVM_JIT=0 or a launch's jit=False selects this NumPy code).
The f64 FMA chain and the m8n8k4 f16 emulation (K = 4 steps of whole-matrix IEEE operations)
always run here.
"""
from __future__ import annotations

import threading

import numpy as np

from . import formats as F_
from .encode import encode
from .formats import BF16, E4M3, E5M2, F16, F32, F64, TF32, FloatFormat
from .rounding import Rounding

ALIGN_BITS = 25  # bits kept below the largest nominal exponent in one fused step

FORMATS = {"f16": F16, "bf16": BF16, "tf32": TF32, "f32": F32, "f64": F64, "e4m3": E4M3, "e5m2": E5M2}
_NEG_INF_EXP = -(1 << 30)


# ------------------------------------------------------------------------------------ decoding

def decode(bits, fmt: FloatFormat):
    """(sign, significand, nominal exponent, fraction bits, nan, inf) of each element: the value of
    a finite element is (-1)^sign * significand * 2^(exponent - fraction bits). Subnormals have
    exponent emin and no hidden bit. TF32 ignores the 13 low bits of its f32 container."""
    s, e, f = F_.fields(bits, fmt)
    e = e.astype(np.int64)
    f = f.astype(np.int64)
    normal = e != 0
    sig = np.where(normal, f | (1 << fmt.man_bits), f)
    exp = np.where(normal, e, 1) - fmt.bias
    nan = F_.is_nan(bits, fmt)
    inf = F_.is_inf(bits, fmt)
    sig = np.where(nan | inf, 0, sig)
    return s.astype(bool), sig, exp, fmt.man_bits, nan, inf


class Terms:
    """The addends of each output element: products (and accumulator) as sign/significand/exponent
    along a last axis, with the special-value summary of each output."""

    def __init__(self, sign, sig, exp, frac, nan, pinf, ninf):
        self.sign, self.sig, self.exp, self.frac = sign, sig, exp, frac
        self.nan, self.pinf, self.ninf = nan, pinf, ninf

    @staticmethod
    def products(a, b, afmt: FloatFormat, bfmt: FloatFormat, ks=None) -> "Terms":
        """Exact products a[m, k] * b[k, n] for k in ks, as [..., M, N, len(ks)]."""
        sa, ma, ea, fa, na, ia = decode(a, afmt)
        sb, mb, eb, fb, nb, ib = decode(b, bfmt)
        if ks is not None:
            sa, ma, ea, na, ia = (x[..., ks] for x in (sa, ma, ea, na, ia))
            sb, mb, eb, nb, ib = (x[..., ks, :] for x in (sb, mb, eb, nb, ib))

        def outer(x, y, op):
            return op(x[..., :, None, :], np.swapaxes(y, -1, -2)[..., None, :, :])

        sign = outer(sa, sb, np.logical_xor)
        sig = outer(ma, mb, np.multiply)
        exp = outer(ea, eb, np.add)
        zero_a, zero_b = (ma == 0) & ~na & ~ia, (mb == 0) & ~nb & ~ib
        nan = outer(na, nb, np.logical_or) | outer(ia, zero_b, np.logical_and) | outer(zero_a, ib, np.logical_and)
        inf = outer(ia, ib, np.logical_or) & ~nan
        return Terms(sign, sig, exp, fa + fb, nan.any(-1), (inf & ~sign).any(-1), (inf & sign).any(-1))

    @staticmethod
    def scalar(bits, fmt: FloatFormat) -> "Terms":
        s, m, e, f, nan, inf = decode(bits, fmt)
        return Terms(s[..., None], m[..., None], e[..., None], f, nan, inf & ~s, inf & s)

    def special(self):
        """(nan, +inf, -inf) masks of the outputs, inf - inf counted as NaN."""
        nan = self.nan | (self.pinf & self.ninf)
        return nan, self.pinf & ~nan, self.ninf & ~nan


def _with(terms: Terms, acc: Terms) -> tuple[list, Terms]:
    """Products and one accumulator term side by side (frac bits differ: kept per column)."""
    return [(terms.sign, terms.sig, terms.exp, terms.frac), (acc.sign, acc.sig, acc.exp, acc.frac)], \
        Terms(None, None, None, None, terms.nan | acc.nan, terms.pinf | acc.pinf, terms.ninf | acc.ninf)


_PRE = 32  # pre-shift: every term's left shift onto the grid is at most 21 bits, significands at most 24


def fused_sum(parts, align_bits: int = ALIGN_BITS):
    """Sum of the terms in `parts` (each (sign, sig, exp, frac) with a last axis of terms) on the
    grid 2^(Emax - align_bits), each term truncated toward zero onto it first.

    Returns (total, q, None): the sum is total * 2^q exactly."""
    emax = None
    for sign, sig, exp, frac in parts:
        e = np.where(sig != 0, exp, _NEG_INF_EXP).max(axis=-1)
        emax = e if emax is None else np.maximum(emax, e)
    q = emax - align_bits
    total = 0
    for sign, sig, exp, frac in parts:
        # aligned = sig * 2^(exp - frac - q), truncated toward zero: (sig << _PRE) >> (q - exp + frac + _PRE)
        sh = np.subtract((q + (frac + _PRE))[..., None], exp)
        np.clip(sh, 0, 63, out=sh)
        v = np.left_shift(sig, _PRE)
        np.right_shift(v, sh, out=v)
        np.negative(v, out=v, where=np.broadcast_to(sign, v.shape))
        total = total + v.sum(axis=-1)
    return total, q, None


def _round(total, q, negzero, fmt: FloatFormat, mode: Rounding, special) -> np.ndarray:
    """The fused sum into fmt. Measured on sm_90: a sum beyond the largest finite value gives
    infinity even when rounding toward zero; a zero result is +0, also when every term is -0 and
    when a nonzero sum is too small for the smallest subnormal."""
    nan, pinf, ninf = special
    allzero = total == 0
    sign = ~allzero & (total < 0)
    q = np.where(allzero, 0, q)
    mag = np.abs(total).astype(np.uint64)
    out = encode(sign, mag, q, fmt, mode)
    if mode is not Rounding.RN:
        over = encode(False, mag, q, fmt, Rounding.RP) == fmt.dtype(fmt.inf)
        out = np.where(over, fmt.dtype(fmt.inf) | np.where(sign, fmt.dtype(fmt.sign_mask), fmt.dtype(0)), out)
    underflow = ~allzero & ((out & fmt.dtype(fmt.sign_mask - 1)) == 0)
    out = np.where(underflow, fmt.dtype(0), out)
    out = np.where(pinf, fmt.dtype(fmt.inf), out)
    out = np.where(ninf, fmt.dtype(fmt.inf | fmt.sign_mask), out)
    return np.where(nan, fmt.dtype(fmt.nan), out)


def _compiled():
    """ptxvm.numerics.mma_jit when the compiled kernels are to run, else None."""
    from .. import jit
    if not jit.enabled():
        return None
    from . import mma_jit
    return mma_jit


def _flat(a, b, c, adt, bdt, cdt):
    """(leading shape, A [L, M, K], B [L, K, N], C [L, M, N]) as contiguous uint64 arrays, each
    element first cast to its storage dtype (as the spec's decoders do). An operand that already
    is uint64 is passed as it is: the kernels read only the low bits of each element that its
    format (or integer width) has, which is what the cast keeps."""
    a, b, c = np.asarray(a), np.asarray(b), np.asarray(c)
    lead = np.broadcast_shapes(a.shape[:-2], b.shape[:-2], c.shape[:-2])
    out = [lead]
    for x, dt in ((a, adt), (b, bdt), (c, cdt)):
        x = np.broadcast_to(x, lead + x.shape[-2:]).reshape((-1,) + x.shape[-2:])
        if x.dtype != np.uint64:
            x = x.astype(dt, copy=False)
        out.append(np.ascontiguousarray(x, dtype=np.uint64))
    return out


def fused_mma(a, b, c, afmt: FloatFormat, bfmt: FloatFormat, cfmt: FloatFormat, fmt: FloatFormat,
              mode: Rounding, align_bits: int = ALIGN_BITS, keep_bits: int = 0, ks=None) -> np.ndarray:
    """One fused step over the exact products a[m, k] * b[k, n] (k in ks, all by default) and C
    (in cfmt), rounded into fmt in `mode` (RZ or RN); with keep_bits the exact sum is first cut
    to that many significant bits (QGMMA .f32). Compiled when ptxvm.jit.enabled()."""
    if ks is not None:
        a, b = np.asarray(a)[..., ks], np.asarray(b)[..., ks, :]
    J = _compiled()
    if J is None or mode not in (Rounding.RN, Rounding.RZ) or align_bits > 32:  # the kernel's range
        parts, summary = _with(Terms.products(a, b, afmt, bfmt), Terms.scalar(c, cfmt))
        total, q, negzero = fused_sum(parts, align_bits)
        if keep_bits:
            total = _keep_significant(total, keep_bits)
        return _round(total, q, negzero, fmt, mode, summary.special())
    lead, A, B, C = _flat(a, b, c, afmt.dtype, bfmt.dtype, cfmt.dtype)
    L, M, K = A.shape
    N = B.shape[2]
    words, nflags = J.work_sizes(L, M, K, N)
    out, work, flags = _scratch(L * M * N, words, nflags)
    out = out.reshape(L, M, N)
    J.fused_mma(A, B, C, J.fmt_vector(afmt), J.fmt_vector(bfmt), J.fmt_vector(cfmt), J.fmt_vector(fmt),
                J.RN if mode is Rounding.RN else J.RZ, align_bits, keep_bits, out, work, flags,
                _row_runner(L * M * N * K))
    return out.reshape(lead + out.shape[1:]).astype(fmt.dtype)


MMA_THREADS_MIN = 1 << 20  # products in one call before its rows are split over threads


def _row_runner(products: int):
    """How fused_mma runs its rows: on ptxvm.cores' threads (the compiled kernels release the GIL)
    when the call has at least MMA_THREADS_MIN products and this process may use several cores
    (a parallel launch's workers may not), else None (in this thread)."""
    from .. import cores

    threads = cores.usable() if products >= MMA_THREADS_MIN else 1
    if threads <= 1:
        return None
    return lambda rows, n: cores.run_ranges(rows, n, threads)


_SCRATCH = threading.local()          # per thread: the compiled kernels run without the GIL
_SCRATCH_KEEP = 64 << 20              # bytes of scratch kept between calls at most


def _scratch(n_out: int, words: int, nflags: int):
    """(uint64 [n_out], int64 [words], int8 [nflags]) work arrays for the compiled kernels, any
    content. Kept from call to call (per thread, up to _SCRATCH_KEEP bytes): a fresh array of
    megabytes costs page faults on every tensor-core instruction."""
    held = getattr(_SCRATCH, "arrays", None)
    if held is None or held[0].size < n_out or held[1].size < words or held[2].size < nflags:
        sizes = (n_out, words, nflags) if held is None else (max(n_out, held[0].size), max(words, held[1].size),
                                                             max(nflags, held[2].size))
        held = (np.empty(sizes[0], np.uint64), np.empty(sizes[1], np.int64), np.empty(sizes[2], np.int8))
        if 8 * (sizes[0] + sizes[1]) + sizes[2] <= _SCRATCH_KEEP:
            _SCRATCH.arrays = held
    return held[0][:n_out], held[1][:words], held[2][:nflags]


def fused_step(prods: Terms, acc: Terms, fmt: FloatFormat = F32, mode: Rounding = Rounding.RZ,
               align_bits: int = ALIGN_BITS) -> np.ndarray:
    """One tensor-core step: acc + sum(prods) aligned and truncated, rounded into fmt."""
    parts, summary = _with(prods, acc)
    total, q, negzero = fused_sum(parts, align_bits)
    return _round(total, q, negzero, fmt, mode, summary.special())


# ---------------------------------------------------------------------------- instruction level

def hmma(a, b, c, atype: str, btype: str, ctype: str = "f32", dtype: str = "f32") -> np.ndarray:
    """f16/bf16/tf32 mma with one fused step over all of K (m16n8k8, m16n8k16, m16n8k4, wmma)."""
    fmt, mode = (F32, Rounding.RZ) if dtype == "f32" else (F16, Rounding.RN)
    return fused_mma(a, b, c, FORMATS[atype], FORMATS[btype], FORMATS[ctype], fmt, mode)


def fp8_mma(a, b, c, atype: str, btype: str, ctype: str, dtype: str) -> np.ndarray:
    """e4m3/e5m2 mma on sm_90 (ptxas converts to f16 and runs two HMMAs): the k's split into two
    halves by (k // 2) % 2; a fused step over the first half from zero, one over the second half
    from that result, then C added by one round-to-nearest addition. With an .f32 accumulator the
    steps round toward zero to f32 and C is added in f32 (FADD); with .f16 the steps round to
    nearest f16 and C is added in f16 (HADD)."""
    ks = np.arange(a.shape[-1])
    fmt, mode = (F32, Rounding.RZ) if dtype == "f32" else (F16, Rounding.RN)
    acc = np.zeros(c.shape, fmt.dtype)
    for h in (ks[(ks // 2) % 2 == 0], ks[(ks // 2) % 2 == 1]):
        acc = fused_mma(a, b, acc, FORMATS[atype], FORMATS[btype], fmt, fmt, mode, ks=h)
    if dtype == "f32":
        from . import ieee32
        return ieee32.add(acc, c)
    from . import half
    return half.add(acc, c, F16)


def _f16_to_f32(bits):
    from .convert import f16_to_f32
    return f16_to_f32(np.asarray(bits, np.uint16))


def m8n8k4_f16(a, b, c, ctype: str, dtype: str) -> np.ndarray:
    """mma.m8n8k4 with .f16 inputs: sm_90 runs it on the f32 FMA units (ptxas emulation), with
    exact products and round-to-nearest f32 additions:

    * .f32 result: ((((+0 + p0) + p1) + p2) + p3) + C, the chain starting from an FFMA onto +0
      (so a -0 product sum becomes +0);
    * .f16 result: ((C + (p0 + p1)) + (p2 + p3)), rounded to nearest f16 at the end.
    """
    from . import ieee32
    from .convert import f16_to_f32, f32_to_f16
    af = f16_to_f32(np.asarray(a, np.uint16))
    bf = f16_to_f32(np.asarray(b, np.uint16))
    p = [ieee32.mul(af[..., :, k][..., :, None], bf[..., k, :][..., None, :]) for k in range(a.shape[-1])]
    cf = c if ctype == "f32" else f16_to_f32(np.asarray(c, np.uint16))
    if dtype == "f32":
        s = ieee32.add(p[0], np.zeros_like(p[0]))  # FFMA a0, b0, RZ
        for x in p[1:]:
            s = ieee32.add(s, x)
        return ieee32.add(s, cf)
    d = ieee32.add(ieee32.add(cf, ieee32.add(p[0], p[1])), ieee32.add(p[2], p[3]))
    return f32_to_f16(d)


def dmma(a, b, c, mode: Rounding = Rounding.RN) -> np.ndarray:
    """f64 mma (DMMA): fused multiply-adds from C in k order, each rounded in `mode` (wmma's
    optional .rnd; round to nearest otherwise)."""
    from . import ieee64
    a = np.asarray(a, np.uint64)
    b = np.asarray(b, np.uint64)
    d = np.asarray(c, np.uint64)
    for k in range(a.shape[-1]):
        x = np.broadcast_to(a[..., :, k][..., :, None], d.shape)
        y = np.broadcast_to(b[..., k, :][..., None, :], d.shape)
        d = ieee64.fma(x, y, d, mode)
    return d


def _int_values(bits, t: str) -> np.ndarray:
    w = {"s8": 8, "u8": 8, "s4": 4, "u4": 4, "s32": 32}[t]
    v = np.asarray(bits).astype(np.int64) & ((1 << w) - 1)
    if t[0] == "s":
        v = np.where(v >= (1 << (w - 1)), v - (1 << w), v)
    return v


_INT_WIDTH = {"s8": 8, "u8": 8, "s4": 4, "u4": 4, "b1": 1}


def _int_compiled(J, a, b, c, atype: str, btype: str, satfinite: bool) -> np.ndarray:
    lead, A, B, C = _flat(a, b, c, np.uint64, np.uint64, np.uint32)
    out = np.empty((A.shape[0], A.shape[1], B.shape[2]), np.uint64)
    J.int_mma(A, B, C, _INT_WIDTH[atype], atype[0] == "s", _INT_WIDTH[btype], btype[0] == "s", bool(satfinite), out)
    return out.reshape(lead + out.shape[1:]).astype(np.uint32)


def imma(a, b, c, atype: str, btype: str, satfinite: bool = False) -> np.ndarray:
    """Integer mma: the exact sum; wraps modulo 2^32, or clamps with .satfinite."""
    J = _compiled()
    if J is not None:
        return _int_compiled(J, a, b, c, atype, btype, satfinite)
    av, bv, cv = _int_values(a, atype), _int_values(b, btype), _int_values(c, "s32")
    s = np.matmul(av, bv) + cv  # |products| < 2^16 * K: exact in int64
    if satfinite:
        s = np.clip(s, -(1 << 31), (1 << 31) - 1)
    return (s & 0xFFFFFFFF).astype(np.uint32)


def bmma(a, b, c, op: str) -> np.ndarray:
    """Single-bit mma: popc(row AND/XOR column) + C, wrapping."""
    J = _compiled()
    if J is not None:
        if op == "and":
            return _int_compiled(J, a, b, c, "b1", "b1", False)
        lead, A, B, C = _flat(a, b, c, np.uint64, np.uint64, np.uint32)
        out = np.empty((A.shape[0], A.shape[1], B.shape[2]), np.uint64)
        J.xor_popc_mma(A, B, C, out)
        return out.reshape(lead + out.shape[1:]).astype(np.uint32)
    av = np.asarray(a).astype(np.int64) & 1
    bv = np.asarray(b).astype(np.int64) & 1
    if op == "and":
        s = np.matmul(av, bv)
    else:  # xor: a + b - 2ab counts the differing bits
        s = av.sum(-1)[..., :, None] + bv.sum(-2)[..., None, :] - 2 * np.matmul(av, bv)
    s = s + _int_values(c, "s32")
    return (s & 0xFFFFFFFF).astype(np.uint32)


def mma(a, b, c, shape: str, atype: str, btype: str, ctype: str, dtype: str, *, satfinite: bool = False,
        bitop: str | None = None) -> np.ndarray:
    """D for one mma.sync form (matrices of raw element bits; D in dtype's storage)."""
    if atype == "b1":
        return bmma(a, b, c, bitop or "and")
    if atype in ("s8", "u8", "s4", "u4"):
        return imma(a, b, c, atype, btype, satfinite)
    if atype == "f64":
        return dmma(a, b, c)
    if atype in ("e4m3", "e5m2"):
        return fp8_mma(a, b, c, atype, btype, ctype, dtype)
    if shape == "m8n8k4":
        return m8n8k4_f16(a, b, c, ctype, dtype)
    return hmma(a, b, c, atype, btype, ctype, dtype)


def wmma(a, b, c, shape: str, atype: str, btype: str, ctype: str, dtype: str, *, satfinite: bool = False,
         bitop: str | None = None, rnd: str | None = None) -> np.ndarray:
    """D for one wmma.mma form: the mma steps sm_90 runs for it. f16/bf16 shapes are one fused
    step over K = 16; tf32 m16n16k8 is two fused steps over k = 0..3 then 4..7 (HMMA.1684); mixed
    f16/f32 accumulators are converted exactly on the way in and rounded to nearest on the way
    out; f64 takes the optional rounding modifier for each of its FMAs."""
    if atype == "tf32":
        ks = np.arange(a.shape[-1])
        acc = c
        for h in np.split(ks, a.shape[-1] // 4):
            acc = fused_mma(a, b, acc, TF32, TF32, F32, F32, Rounding.RZ, ks=h)
        return acc
    if atype in ("f16", "bf16") and ctype != dtype:
        from .convert import f16_to_f32, f32_to_f16
        cf = f16_to_f32(np.asarray(c, np.uint16)) if ctype == "f16" else c
        d = hmma(a, b, cf, atype, btype, "f32", "f32")
        return f32_to_f16(d) if dtype == "f16" else d
    if atype in ("f16", "bf16"):
        return hmma(a, b, c, atype, btype, ctype, dtype)
    if atype == "f64":
        return dmma(a, b, c, Rounding.from_ptx(rnd) if rnd else Rounding.RN)
    return mma(a, b, c, shape, atype, btype, ctype, dtype, satfinite=satfinite, bitop=bitop)


def mma_sp(a, bsel, c, shape: str, atype: str, btype: str, ctype: str, dtype: str, *,
           satfinite: bool = False) -> np.ndarray:
    """D of mma.sp: a [W, M, K/2] the kept elements, bsel [W, M, K/2, N] the B element each one
    multiplies (semantics.families.matrix.sparse_b_operand); row m is the dense rule of the shape
    applied to its kept elements only, so rows of B that no index selects take no part (not even
    a NaN)."""
    d = mma(a[:, :, None, :], bsel, c[:, :, None, :], shape, atype, btype, ctype, dtype, satfinite=satfinite)
    return d[:, :, 0, :]


QGMMA_ALIGN_BITS = 13   # wgmma with e4m3/e5m2 inputs: grid bits below the largest nominal exponent
QGMMA_F32_BITS = 14     # ... and the significant bits an .f32 result keeps (truncated)


def _keep_significant(total, bits: int):
    """Truncate integers toward zero to their `bits` leading significant bits."""
    mag = np.abs(total).astype(np.uint64)
    width = np.zeros(mag.shape, np.int64)
    m = mag.copy()
    for sh in (32, 16, 8, 4, 2, 1):
        big = m >= (np.uint64(1) << np.uint64(sh))
        width += np.where(big, sh, 0)
        m = np.where(big, m >> np.uint64(sh), m)
    width += (mag > 0)
    drop = np.maximum(width - bits, 0).astype(np.uint64)
    mag = (mag >> drop) << drop
    return np.where(total < 0, -mag.astype(np.int64), mag.astype(np.int64))


def qgmma(a, b, c, atype: str, btype: str, ctype: str, dtype: str) -> np.ndarray:
    """wgmma.mma_async with e4m3/e5m2 inputs (sm_90a QGMMA, native): one fused step like HMMA but
    on the grid 2^(E-13); an .f32 result then keeps 14 significant bits (truncated toward zero),
    an .f16 result is the fused sum rounded to nearest f16 (measured on an H200)."""
    if dtype == "f32":
        return fused_mma(a, b, c, FORMATS[atype], FORMATS[btype], F32, F32, Rounding.RZ, QGMMA_ALIGN_BITS,
                         QGMMA_F32_BITS)
    return fused_mma(a, b, c, FORMATS[atype], FORMATS[btype], F16, F16, Rounding.RN, QGMMA_ALIGN_BITS)


def wgmma_float(a, b, c, atype: str, btype: str, ctype: str, dtype: str) -> np.ndarray:
    """Floating-point wgmma.mma_async (sm_90a): f16/bf16/tf32 one fused step over all of K and D,
    exactly as HMMA; e4m3/e5m2 the coarser QGMMA step."""
    if atype in ("e4m3", "e5m2"):
        return qgmma(a, b, c, atype, btype, ctype, dtype)
    return hmma(a, b, c, atype, btype, ctype, dtype)
