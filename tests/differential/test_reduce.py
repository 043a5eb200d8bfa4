#!/usr/bin/env python3
"""Differential test of the reductions (bc_reduce and friends) against PyTorch 2.x.

Usage: test_reduce.py <build dir or libbcast.so> [--seed S] [-j J] [--random N]
                      [--ops sum,amax,...] [--case I] [--repro K] [--quick]
                      [--no-accuracy] [--no-determinism] [--mock]

Four parts, each counted in the summary:

1. The sweep: every reduction (bc_reduce_op 0..14) and max_dim/min_dim x the
   10 dtypes x the layouts (contiguous, permuted, sliced with steps and an
   offset, offset, expanded with stride 0, 0-dim, a size-0 dim) x the dims
   (none = all, the full list, one, one negative, several, each with and
   without keepdim), in every form (bc_reduce, _out, _ex with dtype= or
   correction, _ex_out, and the bc_ctx_ forms), with out= of other dtypes,
   of the wrong shape (bcast never resizes: BC_ERR_SHAPE_MISMATCH) and
   overlapping the input; then --random cases with rows long enough for the
   vector bodies and threads. The same case runs through torch and bcast
   (each on its own copy of the buffers, wrapped in place with their
   strides) and is compared on: status and PyTorch's text; warnings
   (var/std's "degrees of freedom is <= 0"); on failure every buffer
   untouched; the result's dtype and shape (allocating forms: contiguous);
   for out= the whole buffer (the view written, nothing else). Values:
   - exact ops (integer and bool results, amax/amin, argmax/argmin, max/min
     values and indices, any/all, count_nonzero): bit for bit, any NaN
     equals any NaN. amax/amin's zero among equal zeros is bcast's documented
     choice (+0 for amax, -0 for amin; PyTorch keeps the first): bcast's side
     is checked against that rule and the case counted as deliberate.
   - floating sum, nansum, prod, mean, nanmean, var, std, logsumexp: against
     the exact value (fractions.Fraction, mpmath), within BOUNDS below, in
     ulps of the coarser of the op's dtype and out's. PyTorch's error on the
     same case is recorded beside bcast's.
2. Error texts: a list of bad calls (dim out of range, a dim twice, an empty
   reduced dim, mean/nanmean of integers, var/std of bool and integers,
   argmax of bool, out= dtype rules, dtype= with out=) compared with
   PyTorch's exception text, and bcast-only argument checks (NULL, unknown
   op, unknown dtype=, unknown `given` bits, dtype= on an op without one,
   several dims for argmax, warnings raised as errors: BC_ERR_POLICY).
3. Accuracy: random and adversarial inputs (normal, uniform, large
   cancellation, a large mean under a small variance, 1e8 elements of one
   value as an expanded view, values near the exponent range's ends for
   logsumexp), bcast's and PyTorch's errors against the exact value; bcast
   within BOUNDS everywhere and on average at least as accurate as PyTorch
   per op and dtype.
4. Determinism: float reductions of a few million elements give the same
   bits at 1, 2, 3 and 8 threads, on a context with its own thread budget,
   on a context whose host scheduler runs the chunks in reverse order, and
   with SIMD dispatch capped at each target this CPU runs
   (bc_set_simd_cap()).

--mock runs the harness with bcast's side computed by PyTorch in float64
(to test the harness without the library). Mismatches are grouped by kind
and op with a PyTorch reproducer of the first case; --case I reruns one.
"""
import argparse
import ctypes
import math
import multiprocessing as mp
import os
import random
import sys
import time
import traceback
import warnings
import zlib
from fractions import Fraction

import mpmath
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ops_table import REDUCE_OPS  # noqa: E402  (generated from src/op_table.def)
from test_torch import (BITS, CODE, DT, E_ARG, E_DTYPE, E_OVERLAP, E_SHAPE, FLOATS, OK,  # noqa: E402
                        Case, Lib, bad_elements, literal, random_values, strip_torch)

torch.set_num_threads(1)

# bc_reduce_op order (value == index); also checked against bc_reduce_op_name().
OPS = [op["name"] for op in sorted(REDUCE_OPS, key=lambda op: op["value"])]
assert [op["value"] for op in sorted(REDUCE_OPS, key=lambda op: op["value"])] == \
    list(range(len(OPS))), "bc_reduce_op values are not 0..N-1"
DIM_OPS = ["max_dim", "min_dim"]
E_POLICY = 11
# Floating results of these are checked against the exact value, not PyTorch's bits.
INEXACT = {"sum", "nansum", "prod", "mean", "nanmean", "var", "std", "logsumexp"}
DTYPE_ARG = {"sum", "nansum", "prod", "mean", "nanmean"}  # PyTorch's dtype=
SUM_LIKE = {"sum", "nansum", "prod"}  # out= computes in out's dtype
INTS_BOOL = [d for d in DT if not d.is_floating_point]
BC_REDUCE_DTYPE, BC_REDUCE_CORRECTION = 1, 2

# Documented bounds (bcast.h, @defgroup reduce): sums accumulate in float64
# (u = 2^-53), each element exactly, in a fixed order, rounded to the
# result dtype once. From the worst case of a float64 recursive sum, with D
# the coarser of the op's dtype and out's dtype, ulp_D(E) the spacing of D
# at the exact value E, n the elements reduced, A = sum |x|:
#   sum, nansum     |got - E| <= ulp_D(E) + n u A
#   mean, nanmean   |got - E| <= ulp_D(E) + u A
#   var (two-pass)  |got - E| <= ulp_D(E) + ((n + 3) u S + 4 n (u A)^2) / max(n - c, 1),
#                   S = sum (x - mean)^2
#   std             sqrt of var's interval, + ulp_D(E)
#   prod            |got - E| <= ulp_D(E) + (n + 1) u_D |E| + n tiny_D (u_D: the unit
#                   roundoff of float32 for halves and float32, float64's for float64:
#                   the doc says nothing of prod's accumulation)
#   logsumexp       |got - E| <= 2 ulp_D(E) + ulp_D(max x) + 4 ulp_D(max(1, log n))
#                   (max + log(sum(exp(x - max))): exp and log within an ulp or two
#                   of D each; the doc gives no ulp figure)
# A result whose exact value rounds to +-inf in D must be that inf.
U64 = 2.0 ** -53
F64_MAX = torch.finfo(torch.float64).max
PREC = {torch.float16: (11, -14), torch.bfloat16: (8, -126), torch.float32: (24, -126),
        torch.float64: (53, -1022)}
DELIBERATE = {
    "out-resize": "out= of another shape than the result: PyTorch resizes it, bcast never "
                  "resizes a caller's tensor (BC_ERR_SHAPE_MISMATCH); buffers checked untouched.",
    "zero-sign": "amax/amin among equal zeros: PyTorch keeps the first, bcast prefers +0 "
                 "(amax) and -0 (amin) as documented; bcast's side checked against the rule.",
    "overlap": "out= overlapping the input: PyTorch computes, bcast refuses (BC_ERR_OVERLAP); "
               "buffers checked untouched.",
    "torch-refuses": "var/std of float16/bfloat16 over every dim into out= of another dtype: "
                     "PyTorch fails ('std_var_all: Unsupported dtype Half'), bcast computes it; "
                     "its value checked against the exact one.",
    "bcast-only": "a call PyTorch has no form of (count_nonzero out=, several dims for "
                  "argmax, dtype= on an op without one): bcast's status checked.",
}


# ---------------------------------------------------------------- the library

class ReduceParams(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int), ("correction", ctypes.c_double),
                ("given", ctypes.c_uint)]


SCHED_NUM = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)
CHUNK_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_size_t)
SCHED_RUN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_size_t, CHUNK_FN, ctypes.c_void_p)


class Scheduler(ctypes.Structure):
    _fields_ = [("num_threads", SCHED_NUM), ("run", SCHED_RUN), ("user", ctypes.c_void_p)]


class RLib(Lib):
    """test_torch's Lib with the reductions and a context of its own."""

    def __init__(self, path):
        super().__init__(path)
        L = self.lib
        P, sz, i64, i64p = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int64, \
            ctypes.POINTER(ctypes.c_int64)
        PP, RP = ctypes.POINTER(P), ctypes.POINTER(ReduceParams)
        ci = ctypes.c_int
        sig = {
            "bc_reduce_op_name": ([ci], ctypes.c_char_p),
            "bc_reduce": ([ci, P, i64p, sz, ci, PP], ci),
            "bc_reduce_out": ([ci, P, i64p, sz, ci, P], ci),
            "bc_reduce_ex": ([ci, P, i64p, sz, ci, RP, PP], ci),
            "bc_reduce_ex_out": ([ci, P, i64p, sz, ci, RP, P], ci),
            "bc_max_dim": ([P, i64, ci, PP, PP], ci), "bc_min_dim": ([P, i64, ci, PP, PP], ci),
            "bc_max_dim_out": ([P, i64, ci, P, P], ci), "bc_min_dim_out": ([P, i64, ci, P, P], ci),
            "bc_ctx_reduce": ([P, ci, P, i64p, sz, ci, PP], ci),
            "bc_ctx_reduce_out": ([P, ci, P, i64p, sz, ci, P], ci),
            "bc_ctx_reduce_ex": ([P, ci, P, i64p, sz, ci, RP, PP], ci),
            "bc_ctx_reduce_ex_out": ([P, ci, P, i64p, sz, ci, RP, P], ci),
            "bc_ctx_max_dim": ([P, P, i64, ci, PP, PP], ci),
            "bc_ctx_min_dim": ([P, P, i64, ci, PP, PP], ci),
            "bc_ctx_max_dim_out": ([P, P, i64, ci, P, P], ci),
            "bc_ctx_min_dim_out": ([P, P, i64, ci, P, P], ci),
            "bc_ctx_create": ([PP], ci), "bc_ctx_free": ([P], None),
            "bc_ctx_set_option": ([P, ci, i64], ci),
            "bc_ctx_last_error": ([P], ctypes.c_char_p),
            "bc_ctx_set_warning_handler": ([P, P, P], ci),
            "bc_ctx_set_scheduler": ([P, ctypes.POINTER(Scheduler)], ci),
            "bc_set_simd_cap": ([ctypes.c_char_p], ci),
            "bc_simd_target": ([], ctypes.c_char_p),
            "bc_get_num_threads": ([], ci),
        }
        for name, (args, res) in sig.items():
            f = getattr(L, name)
            f.argtypes, f.restype = args, res
        self.ctx = ctypes.c_void_p()
        if L.bc_ctx_create(ctypes.byref(self.ctx)) != OK:
            raise RuntimeError("bc_ctx_create failed")
        L.bc_ctx_set_warning_handler(self.ctx, ctypes.cast(self._handler, ctypes.c_void_p), None)
        L.bc_ctx_set_option(self.ctx, 4, 1)  # BC_OPT_NUM_THREADS

    def ctx_error(self):
        return self.lib.bc_ctx_last_error(self.ctx).decode()


# ---------------------------------------------------------------- values

def moderate_values(rng, dt, n, flavour):
    """n values of dtype dt for the inexact ops: finite and moderate (flavour
    'normal', 'wide' exponents, 'near1' for prod, 'cancel' pairs of +-big),
    or 'special' (test_torch's: NaN, infinities, extremes, subnormals)."""
    if n == 0:
        return torch.empty(0, dtype=dt)
    if flavour == "special" or not dt.is_floating_point:
        return random_values(rng, dt, n)
    g = torch.Generator().manual_seed(rng.randrange(1 << 30))
    if flavour == "near1":  # products stay inside float32's range for any n here
        v = torch.rand(n, generator=g, dtype=torch.float64) + 0.5
        v = v * torch.where(torch.rand(n, generator=g) < 0.5, -1.0, 1.0)
        k = torch.rand(n, generator=g)
        v = torch.where(k < 0.03, torch.zeros((), dtype=torch.float64), v)
        v = torch.where((k >= 0.03) & (k < 0.06), torch.ones((), dtype=torch.float64), v)
    elif flavour == "wide":
        e = torch.randint(-12, 12, (n,), generator=g).to(torch.float64)
        v = torch.randn(n, generator=g, dtype=torch.float64) * torch.exp2(e)
    elif flavour == "cancel":
        half = (n + 1) // 2
        big = torch.randn(half, generator=g, dtype=torch.float64) * 1000
        v = torch.cat([big, -big])[:n] + torch.randn(2 * half, generator=g,
                                                     dtype=torch.float64)[:n] * 1e-3
        v = v[torch.randperm(n, generator=g)]
    else:
        v = torch.randn(n, generator=g, dtype=torch.float64) * 4
    return v.to(dt)


def tie_values(rng, dt, n):
    """Few distinct values (ties for argmax/max), zeros of both signs, a NaN now and then."""
    if n == 0:
        return torch.empty(0, dtype=dt)
    if dt == torch.bool:
        return torch.tensor([rng.random() < 0.5 for _ in range(n)], dtype=dt)
    if dt.is_floating_point:
        pool = [0.0, -0.0, 1.0, -1.0, 2.0, -3.0, math.inf, -math.inf]
        nan_p = rng.choice([0.0, 0.0, 0.01, 0.1])
        vals = [math.nan if rng.random() < nan_p else rng.choice(pool) for _ in range(n)]
        return torch.tensor(vals, dtype=torch.float64).to(dt)
    info = torch.iinfo(dt)
    pool = [0, 1, 2, info.max, info.min] + ([-1, -2] if info.min < 0 else [])
    return torch.tensor([rng.choice(pool) for _ in range(n)], dtype=dt)


def fill(c, rng, op, dt):
    """Gives every buffer of the case values suited to the op."""
    for i, b in enumerate(c.bases):
        d, n = b.dtype, len(b)
        if op in INEXACT and d.is_floating_point:
            flavour = "near1" if op == "prod" else rng.choice(
                ["normal", "normal", "wide", "cancel", "special"])
            if op == "prod" and rng.random() < 0.2:
                flavour = "special"
            c.bases[i] = moderate_values(rng, d, n, flavour)
        elif op in ("amax", "amin", "argmax", "argmin", "max_dim", "min_dim", "any", "all",
                    "count_nonzero") and rng.random() < 0.5:
            c.bases[i] = tie_values(rng, d, n)
        else:
            c.bases[i] = random_values(rng, d, n)


# ---------------------------------------------------------------- shapes and dims

def norm_dims(dims, nd):
    """dims in [0, nd) (a 0-dim tensor: dim 0 or -1 is its only dim), or None when invalid."""
    out = []
    for d in dims:
        lim = max(nd, 1)
        if d < -lim or d >= lim:
            return None
        d = d + lim if d < 0 else d
        if d in out:
            return None
        out.append(d)
    return out


def reduced(shape, dims):
    """(reduced dims sorted, kept dims) for dims None or [] (all) or a normalised list
    (a 0-dim tensor's dim 0 reduces nothing to keep)."""
    nd = len(shape)
    rd = list(range(nd)) if not dims else sorted(set(d for d in dims if d < nd))
    kept = [d for d in range(nd) if d not in rd]
    return rd, kept


def result_shape(shape, dims, keepdim):
    rd, kept = reduced(shape, dims)
    if keepdim:
        return tuple(1 if d in rd else shape[d] for d in range(len(shape)))
    return tuple(shape[d] for d in kept)


def rows_of(t, dims):
    """t with the reduced dims moved last and flattened: (kept numel, reduced numel)."""
    rd, kept = reduced(tuple(t.shape), dims)
    if t.dim() == 0:
        return t.reshape(1, 1)
    p = t.permute(*(kept + rd))
    m = math.prod(t.shape[d] for d in kept)
    n = math.prod(t.shape[d] for d in rd)
    return p.reshape(m, n)


# ---------------------------------------------------------------- dtypes

def result_dtype(op, xdt, params=None):
    """PyTorch's result dtype of the allocating form, or None when it is refused."""
    p = params or {}
    if op in ("sum", "nansum", "prod"):
        if "dtype" in p:
            return p["dtype"]
        return torch.int64 if not xdt.is_floating_point else xdt
    if op in ("mean", "nanmean"):
        return p.get("dtype", xdt)
    if op in ("amax", "amin", "max_dim", "min_dim", "var", "std"):
        return xdt
    if op in ("argmax", "argmin", "count_nonzero"):
        return torch.int64
    if op in ("any", "all"):
        return torch.uint8 if xdt == torch.uint8 else torch.bool
    if op == "logsumexp":
        return xdt if xdt.is_floating_point else torch.float32
    raise AssertionError(op)


def compute_dtype(op, xdt, params, odt):
    """The dtype the values are converted to before an inexact op reduces them."""
    if op in SUM_LIKE:
        if "dtype" in params:
            return params["dtype"]
        if odt is not None:
            return odt
        return result_dtype(op, xdt)
    if op in ("mean", "nanmean"):
        return params.get("dtype", xdt)
    if op == "logsumexp" and not xdt.is_floating_point:
        return torch.float32
    return xdt


def coarser(a, b):
    if b is None or not b.is_floating_point:
        return a
    if a is None or not a.is_floating_point:
        return b
    return a if PREC[a][0] <= PREC[b][0] else b


# ---------------------------------------------------------------- exact values

mpmath.mp.prec = 320


def mp_of(f):
    """An mpmath value of a Fraction or float, exact to 320 bits."""
    if isinstance(f, Fraction):
        return mpmath.mpf(f.numerator) / f.denominator
    return mpmath.mpf(f)


def fsum_abs(vals):
    try:
        return math.fsum(abs(v) for v in vals if not math.isnan(v))
    except OverflowError:
        return math.inf


def specials(vals):
    nan = any(math.isnan(v) for v in vals)
    pinf = any(v == math.inf for v in vals)
    ninf = any(v == -math.inf for v in vals)
    return nan, pinf, ninf


def exact_row(op, vals, correction):
    """(exact value: an mpf, or a float NaN/inf; the bound's extra terms as a
    function of ulp_D and D). `vals` are Python floats, the values reduced."""
    if op in ("nansum", "nanmean"):
        vals = [v for v in vals if not math.isnan(v)]
        op = op[3:]
    n = len(vals)
    nan, pinf, ninf = specials(vals)
    if op in ("sum", "mean"):
        if n == 0 and op == "mean":
            return math.nan, 0.0
        if nan or (pinf and ninf):
            return math.nan, 0.0
        if pinf or ninf:
            return (math.inf if pinf else -math.inf), 0.0
        s = sum((Fraction(v) for v in vals), Fraction(0))
        a = fsum_abs(vals)
        if op == "mean":
            return mp_of(s / n), U64 * a
        return mp_of(s), n * U64 * a
    if op == "prod":
        if nan or ((pinf or ninf) and any(v == 0 for v in vals)):
            return math.nan, 0.0
        if pinf or ninf:
            neg = sum(1 for v in vals if v < 0 or (v == 0 and math.copysign(1, v) < 0)) % 2
            return (-math.inf if neg else math.inf), 0.0
        p = Fraction(1)
        for v in vals:
            p *= Fraction(v)
        return mp_of(p), ("prod", n, abs(p))
    if op in ("var", "std"):
        if nan or pinf or ninf or n == 0:
            return math.nan, 0.0
        fr = [Fraction(v) for v in vals]
        s = sum(fr, Fraction(0))
        ss = sum(f * f for f in fr) - s * s / n
        d = max(Fraction(0), n - Fraction(correction))
        a = mpmath.mpf(fsum_abs(vals))
        err_s = (n + 3) * U64 * mp_of(ss) + 4 * n * (U64 * a) ** 2
        if d == 0:
            return (math.inf if ss > 0 else math.nan), 0.0
        var = ss / d
        eb = err_s / mp_of(max(d, Fraction(1)))
        if op == "var":
            return mp_of(var), eb
        v = mp_of(var)
        lo = mpmath.sqrt(max(v - eb, 0))
        hi = mpmath.sqrt(v + eb)
        return mpmath.sqrt(v), max(hi - mpmath.sqrt(v), mpmath.sqrt(v) - lo)
    if op == "logsumexp":
        if nan:
            return math.nan, 0.0
        if pinf:
            return math.inf, 0.0
        if n == 0 or all(v == -math.inf for v in vals):
            return -math.inf, 0.0
        m = max(vals)
        with mpmath.workprec(200):
            s = mpmath.fsum(mpmath.exp(mpmath.mpf(v) - m) for v in vals if v != -math.inf)
            r = m + mpmath.log(s)
        return r, ("lse", m, n)
    raise AssertionError(op)


def prod_out_of_range(op, vals, D):
    """Whether a product's partial products may leave the range of float32 (halves,
    float32) or float64 (float64) on the way, whatever the exact product: then an
    infinity times 0, or an underflow times an infinity, may give NaN, inf or 0."""
    if op != "prod":
        return False
    emax, emin = (1024, -1074) if D == torch.float64 else (128, -149)
    logs = [math.log2(abs(v)) for v in vals if v != 0 and math.isfinite(v)]
    return sum(x for x in logs if x > 0) >= emax or sum(x for x in logs if x < 0) <= emin


def ulp(dtype, v):
    """The spacing of dtype at |v| (a float or mpf)."""
    p, emin = PREC[dtype]
    av = abs(v)
    if av == 0:
        return 2.0 ** (emin - p + 1)
    e = max(int(mpmath.floor(mpmath.log(av, 2))), emin)
    # guard the log's rounding at powers of two
    if mpmath.mpf(2) ** e > av:
        e = max(e - 1, emin)
    elif mpmath.mpf(2) ** (e + 1) <= av:
        e += 1
    return 2.0 ** (e - p + 1)


def rounds_to_inf(dtype, v):
    """Whether the exact v rounds to an infinity in dtype."""
    fi = torch.finfo(dtype)
    p = PREC[dtype][0]
    return abs(v) >= mpmath.mpf(fi.max) + mpmath.mpf(2) ** (math.frexp(fi.max)[1] - p - 1)


def bound_of(extra, E, D):
    """The allowed |got - E| (an mpf) for one element."""
    base = ulp(D, E)
    if isinstance(extra, tuple) and extra[0] == "prod":
        _, n, ap = extra
        u = 2.0 ** -53 if D == torch.float64 else 2.0 ** -24
        tiny = 2.0 ** -1074 if D == torch.float64 else 2.0 ** -149
        return base + (n + 1) * u * mp_of(ap) + n * tiny
    if isinstance(extra, tuple) and extra[0] == "lse":
        _, m, n = extra
        return 2 * base + ulp(D, m) + 4 * ulp(D, max(1.0, math.log(max(n, 1))))
    return base + mpmath.mpf(extra)


def check_inexact(op, got, want_rows, correction, D):
    """Errors of `got` (flat float64 list) against the exact values of the rows.
    Returns (list of (index, got, exact, err in ulps, allowed in ulps) that fail,
    list of errors in ulps for the statistics, zero-sign notes)."""
    bad, errs = [], []
    for i, (g, vals) in enumerate(zip(got, want_rows)):
        E, extra = exact_row(op, vals, correction)
        if isinstance(E, float) and math.isnan(E):
            if not math.isnan(g):
                bad.append((i, g, E, math.inf, 0))
            continue
        if isinstance(E, float):  # an infinity
            if g != E:
                bad.append((i, g, E, math.inf, 0))
            continue
        if rounds_to_inf(D, E):
            inf = math.copysign(math.inf, E)
            if g == inf:
                errs.append(0.0)
                continue
        if math.isnan(g) or math.isinf(g):
            if prod_out_of_range(op, vals, D):
                STATS["f64_overflow"] += 1
                continue
            if op not in ("prod", "logsumexp") and fsum_abs(vals) >= F64_MAX:
                # float64 partial sums of values whose magnitudes add up past
                # float64's range may overflow: the documented accumulation
                # (PyTorch's partial sums overflow there too).
                STATS["f64_overflow"] += 1
                continue
            bad.append((i, g, float(E), math.inf, 0))
            errs.append(math.inf)
            continue
        u = ulp(D, E)
        d = abs(mpmath.mpf(g) - E)
        allowed = bound_of(extra, E, D)
        e = float(d / u)
        if E != 0:  # an exact zero has no ulp to measure in (the bound still applies)
            errs.append(e)
        if d > allowed and not prod_out_of_range(op, vals, D):
            bad.append((i, g, float(E), e, float(allowed / u)))
    return bad, errs


def ulp_errors(op, got, rows, correction, D):
    """Errors in ulps of D only (PyTorch's side: no bound applied)."""
    return check_inexact(op, got, rows, correction, D)[1]


# ---------------------------------------------------------------- cases

LAYOUTS = ["contiguous", "permuted", "sliced", "expanded", "offset", "zerodim", "empty"]
DIMKINDS = ["all", "all_list", "one", "negative", "several", "one_keep", "several_keep",
            "all_keep"]
FORMS = ["alloc", "out", "ex", "ex_out", "ctx", "ctx_out", "ctx_ex", "ctx_ex_out"]
DIM_FORMS = ["alloc", "out", "ctx", "ctx_out"]


def pick_shape(rng, layout, long_rows):
    if layout == "zerodim":
        return []
    nd = rng.choice([1, 2, 2, 3, 3, 4])
    shape = [rng.randint(1, 6) for _ in range(nd)]
    if long_rows:
        i = rng.randrange(nd)
        shape[i] = rng.choice([rng.randint(17, 300), rng.randint(300, 5000)])
        while math.prod(shape) > 12000:
            j = rng.randrange(nd)
            if j != i:
                shape[j] = max(1, shape[j] // 2)
            else:
                shape[i] //= 2
    if layout == "empty":
        shape[rng.randrange(nd)] = 0
    if layout in ("permuted", "sliced", "expanded") and all(s == 1 for s in shape):
        shape[0] = 3
    return shape


def pick_dims(rng, kind, nd, op):
    keep = kind.endswith("_keep") or (kind in ("one", "negative") and rng.random() < 0.3)
    base = kind.replace("_keep", "")
    if base == "all":
        dims = None if kind != "all_keep" or rng.random() < 0.5 else list(range(nd))
    elif base == "all_list":
        dims = list(range(nd)) if nd else [rng.choice([0, -1])]
        if nd and rng.random() < 0.3:
            rng.shuffle(dims)
    elif base in ("one", "negative"):
        d = rng.randrange(max(nd, 1))
        dims = [d - max(nd, 1) if base == "negative" else d]
    else:  # several (a 0-dim tensor: just its one dim)
        k = rng.randint(2, nd) if nd >= 2 else 1
        dims = rng.sample(range(max(nd, 1)), k)
        dims = [d - nd if rng.random() < 0.3 else d for d in dims]
    if op in ("argmax", "argmin", "max_dim", "min_dim") and dims is not None and len(dims) > 1:
        if op in DIM_OPS or rng.random() < 0.85:
            dims = dims[:1]
    if op in DIM_OPS and not dims:
        dims = [rng.randrange(max(nd, 1))]
    return dims, keep


def pick_params(rng, op, xdt, form):
    """The ex forms' parameters: (dict for the harness, given bits, dtype code, correction)."""
    p = {}
    if "ex" not in form:
        return p
    if op in DTYPE_ARG and rng.random() < 0.6:
        if op in ("mean", "nanmean"):
            p["dtype"] = rng.choice(FLOATS + [torch.int32] if rng.random() < 0.1 else FLOATS)
        else:
            p["dtype"] = rng.choice(DT)
    if op in ("var", "std") and rng.random() < 0.7:
        p["correction"] = rng.choice([0.0, 1.0, 2.0, 0.5, -1.0, 1e9, 3.0])
    if op not in DTYPE_ARG and rng.random() < 0.02:
        p["dtype"] = rng.choice(DT)  # bcast-only: refused
        p["bogus"] = True
    return p


def make_case(seed, i, only=None, sweep=None):
    """A case: the sweep's i-th combination when `sweep` is given, else a random one."""
    rng = random.Random(seed * 1000003 + i)
    ops = only or (OPS + DIM_OPS)
    if sweep is not None:
        op, dt, layout, kind = sweep
        long_rows = rng.random() < 0.15
    else:
        op = rng.choice(ops)
        dt = rng.choice(DT)
        layout = rng.choice(LAYOUTS)
        kind = rng.choice(DIMKINDS)
        long_rows = rng.random() < 0.6
    c = Case(rng)
    shape = pick_shape(rng, layout, long_rows)
    view_kind = {"zerodim": rng.choice(["contiguous", "offset"]),
                 "empty": rng.choice(["contiguous", "permuted", "sliced"])}.get(layout, layout)
    x = c.view(dt, shape, layout=view_kind)
    nd = len(shape)
    dims, keepdim = pick_dims(rng, kind, nd, op)
    if rng.random() < 0.03 and nd:  # out of range or repeated
        if op in DIM_OPS:
            dims = [rng.choice([nd, -nd - 1, 5])]
        else:
            dims = (dims or [0]) + [rng.choice([nd, -nd - 1, 5, (dims or [0])[0]])]
    forms = DIM_FORMS if op in DIM_OPS else FORMS
    form = forms[(i // 3) % len(forms)] if sweep is not None else rng.choice(forms)
    params = pick_params(rng, op, dt, form)
    spec = dict(op=op, form=form, x=x, dims=dims, keepdim=keepdim, params=params, case=c,
                out=None, idx=None, nullptr_dims=dims is None and rng.random() < 0.2,
                null_params=rng.random() < 0.5, layout=layout)
    if form.endswith("out"):
        nd_norm = norm_dims(dims, nd) if dims is not None else None
        rs = list(result_shape(tuple(shape), nd_norm, keepdim)) if (
            dims is None or nd_norm is not None) else list(shape)
        if rng.random() < 0.05:
            rs = [s + 1 for s in rs] if rs and rng.random() < 0.6 else rs + [2]
        rdt = result_dtype(op, dt, params)
        odt = rdt
        if rng.random() < 0.25:
            odt = rng.choice(DT)
        okind = rng.choice(["contiguous", "contiguous", "permuted", "sliced", "offset"])
        if op in DIM_OPS:
            if rng.random() < 0.9:
                odt = dt
            spec["out"] = c.view(odt, rs, writable=True, layout=okind)
            idt = torch.int64 if rng.random() < 0.9 else rng.choice(DT)
            if rng.random() < 0.04:
                spec["idx"] = c.alias(spec["out"])  # values and indices overlap
            else:
                spec["idx"] = c.view(idt, rs, writable=True, layout=okind)
        elif rng.random() < 0.04 and len(c.bases[c.views[x][0]]) >= max(math.prod(rs), 1):
            # out over the input's own buffer (same dtype): overlapping it
            b = c.views[x][0]
            c.views.append((b, tuple(rs), tuple(int(math.prod(rs[k + 1:]))
                                                for k in range(len(rs))), 0))
            c.desc.append("alias")
            spec["out"] = len(c.views) - 1
        else:
            spec["out"] = c.view(odt, rs, writable=True, layout=okind)
    fill(c, rng, op, dt)
    odt = c.bases[c.views[spec["out"]][0]].dtype if spec["out"] is not None else None
    to_int = params.get("dtype") is not None and not params["dtype"].is_floating_point or (
        op in SUM_LIKE and odt is not None and not odt.is_floating_point)
    if dt.is_floating_point and to_int:
        # float -> integer conversion of inf and out of range values is undefined
        # in C++: small integral values only, and NaN for nansum, which takes it as 0.
        b = c.views[x][0]
        nan_p = 0.2 if op == "nansum" else 0.0
        c.bases[b] = torch.tensor([math.nan if rng.random() < nan_p else
                                   float(rng.randint(-3, 3)) for _ in c.bases[b]],
                                  dtype=torch.float64).to(dt)
    return spec


def sweep_list(only=None, reps=3):
    out = []
    for op in only or (OPS + DIM_OPS):
        for dt in DT:
            for layout in LAYOUTS:
                for k in range(reps):
                    kind = DIMKINDS[(len(out) * 5 + k) % len(DIMKINDS)]
                    out.append((op, dt, layout, kind))
    return out


# ---------------------------------------------------------------- PyTorch's side

def tdims(spec, nd):
    """PyTorch's dim argument for the spec's dims (all: a tuple of every dim)."""
    dims = spec["dims"]
    if dims is None:
        return tuple(range(nd))
    return tuple(dims)


def torch_side(spec, views):
    """Runs the case in torch. Returns a result tensor, a (values, indices) pair, or raises."""
    op, form, keep = spec["op"], spec["form"], spec["keepdim"]
    x = views[spec["x"]]
    nd = x.dim()
    out = views[spec["out"]] if spec["out"] is not None else None
    idx = views[spec["idx"]] if spec["idx"] is not None else None
    p = spec["params"]
    if p.get("bogus"):
        raise BcastOnly("dtype= on an op without one", E_ARG)
    kw = {}
    if "dtype" in p:
        kw["dtype"] = p["dtype"]
    if out is not None:
        kw["out"] = out
    dims = spec["dims"]
    td = tdims(spec, nd)
    if op in DIM_OPS:
        f = torch.max if op == "max_dim" else torch.min
        if out is not None:
            return f(x, dims[0], keepdim=keep, out=(out, idx))
        return f(x, dims[0], keepdim=keep)
    if op in ("sum", "nansum", "mean", "nanmean", "amax", "amin", "any", "all"):
        f = getattr(torch, op)
        if dims is None and op in ("amax", "amin"):
            return f(x, dim=(), keepdim=keep, **kw)
        return f(x, dim=td, keepdim=keep, **kw)
    if op in ("var", "std"):
        if "correction" in p:
            kw["correction"] = p["correction"]
        return getattr(torch, op)(x, dim=None if dims is None else td, keepdim=keep, **kw)
    if op == "logsumexp":
        return torch.logsumexp(x, dim=td, keepdim=keep, **kw)
    if op in ("argmax", "argmin"):
        f = getattr(torch, op)
        if not dims:  # NULL or an empty list: every dim
            if out is not None:
                return f(x, keepdim=keep, out=out)
            return f(x, keepdim=keep)
        if len(dims) != 1:
            raise BcastOnly("argmax/argmin take one dim", E_ARG)
        return f(x, dims[0], keepdim=keep, **kw)
    # prod and count_nonzero: one dim (count_nonzero without keepdim) in
    # PyTorch; several through a permuted, flattened view of the reduced dims.
    torch.sum(torch.zeros(x.shape, dtype=torch.float32), dim=td)  # PyTorch's dim checks
    nd_ = norm_dims(td, nd) if td else []
    rs = result_shape(tuple(x.shape), nd_ if dims is not None else None, keep)
    if op == "count_nonzero":
        r = torch.count_nonzero(x, dim=td)
        r = r.reshape(rs)
        if out is not None:
            if out.dtype != torch.int64:
                raise BcastOnly("count_nonzero out= of another dtype than int64", E_DTYPE)
            if tuple(out.shape) != rs:
                raise ResizeOnly()
            out.copy_(r)
            return out
        return r
    # prod
    if dims is not None and len(dims) == 1:
        return torch.prod(x, dims[0], keepdim=keep, **kw)
    if nd == 0:
        return torch.prod(x, 0, keepdim=keep, **kw)
    rows = rows_of(x, nd_ if dims is not None else None)
    o = kw.pop("out", None)
    if o is not None:
        # PyTorch's out= rules on prod, through its one-dim form on the same rows
        probe = torch.empty(rows.shape[0], dtype=o.dtype)
        torch.prod(rows, 1, out=probe, **kw)
        if tuple(o.shape) != rs:
            raise ResizeOnly()
        o.copy_(probe.reshape(rs))
        return o
    return torch.prod(rows, 1, **kw).reshape(rs)


class BcastOnly(Exception):
    """A call PyTorch has no form of; args: (what, the status bcast must give)."""


class ResizeOnly(Exception):
    pass


# ---------------------------------------------------------------- bcast's side

def bcast_side(lib, spec, handles):
    """Runs the case in bcast. Returns (status, error text, result handles)."""
    L = lib.lib
    op, form, keep = spec["op"], spec["form"], int(spec["keepdim"])
    hx = handles[spec["x"]]
    ho = handles[spec["out"]] if spec["out"] is not None else None
    hi = handles[spec["idx"]] if spec["idx"] is not None else None
    ctx = lib.ctx if form.startswith("ctx") else None
    dims = spec["dims"]
    if dims is None:
        arr = (ctypes.c_int64 * 1)(0) if not spec["nullptr_dims"] else None
        nd = 0
    else:
        arr = (ctypes.c_int64 * max(len(dims), 1))(*dims)
        nd = len(dims)
    res, res2 = ctypes.c_void_p(), ctypes.c_void_p()
    err = (lambda: lib.ctx_error()) if ctx else (lambda: lib.error())
    if op in DIM_OPS:
        name = op[:3]
        if form in ("alloc", "ctx"):
            f = getattr(L, f"bc_ctx_{name}_dim") if ctx else getattr(L, f"bc_{name}_dim")
            a = (ctx,) if ctx else ()
            st = f(*a, hx, dims[0], keep, ctypes.byref(res), ctypes.byref(res2))
            if st != OK and (res.value or res2.value):
                raise Mismatch("api", f"failed with status {st} but left result handles set")
            return st, (err() if st else None), [res, res2]
        f = getattr(L, f"bc_ctx_{name}_dim_out") if ctx else getattr(L, f"bc_{name}_dim_out")
        a = (ctx,) if ctx else ()
        st = f(*a, hx, dims[0], keep, ho, hi)
        return st, (err() if st else None), []
    code = OPS.index(op)
    p = spec["params"]
    params = None
    if "ex" in form:
        given = 0
        pr = ReduceParams(0, 0.0, 0)
        if "dtype" in p:
            pr.dtype, given = CODE[p["dtype"]], given | BC_REDUCE_DTYPE
        if "correction" in p:
            pr.correction, given = p["correction"], given | BC_REDUCE_CORRECTION
        pr.given = given
        params = ctypes.byref(pr) if (given or not spec["null_params"]) else None
    a = (ctx,) if ctx else ()
    pre = "bc_ctx_reduce" if ctx else "bc_reduce"
    if form in ("alloc", "ctx"):
        st = getattr(L, pre)(*a, code, hx, arr, nd, keep, ctypes.byref(res))
    elif form in ("out", "ctx_out"):
        st = getattr(L, pre + "_out")(*a, code, hx, arr, nd, keep, ho)
    elif form in ("ex", "ctx_ex"):
        st = getattr(L, pre + "_ex")(*a, code, hx, arr, nd, keep, params, ctypes.byref(res))
    else:
        st = getattr(L, pre + "_ex_out")(*a, code, hx, arr, nd, keep, params, ho)
    if st != OK and res.value:
        raise Mismatch("api", f"failed with status {st} but set *out")
    return st, (err() if st else None), ([res] if not form.endswith("out") else [])


def mock_side(spec, views):
    """(status, text, results) as bcast would give them, from torch (inexact ops in
    float64, then rounded): tests the harness without the library (--mock)."""
    op = spec["op"]
    x = views[spec["x"]]
    try:
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            if op in INEXACT and x.dtype.is_floating_point and spec["out"] is None:
                s2 = dict(spec)
                rdt = result_dtype(op, x.dtype, spec["params"])
                p = dict(spec["params"])
                if op in DTYPE_ARG:
                    p["dtype"] = torch.float64
                s2["params"] = p
                v2 = list(views)
                cdt = p.get("dtype", x.dtype) if op in DTYPE_ARG else x.dtype
                v2[spec["x"]] = x.to(spec["params"].get("dtype", cdt)).to(torch.float64) \
                    if op in DTYPE_ARG else x.to(torch.float64)
                r = torch_side(s2, v2).to(rdt)
            else:
                r = torch_side(spec, views)
    except (BcastOnly,):
        return E_ARG if op != "count_nonzero" else E_DTYPE, "bcast-only", None
    except ResizeOnly:
        return E_SHAPE, "mock: no resize", None
    except (RuntimeError, IndexError, TypeError, ValueError, NotImplementedError) as e:
        return E_ARG, strip_torch(str(e)), None
    return OK, None, r


# ---------------------------------------------------------------- comparing

class Mismatch(Exception):
    def __init__(self, kind, detail):
        super().__init__(detail)
        self.kind = kind
        self.detail = detail


STATS = {"err_bcast": {}, "err_torch": {}, "zero_sign_vs_torch": 0, "nan_bits": set(),
         "f64_overflow": 0}


def record(key, which, errs):
    d = STATS[which].setdefault(key, [])
    d.extend(e for e in errs if math.isfinite(e))


def element_offsets(size, stride, off):
    if any(s == 0 for s in size):
        return []
    idx = torch.zeros((), dtype=torch.int64) + off
    for s, st in zip(size, stride):
        idx = idx.unsqueeze(-1) + torch.arange(s, dtype=torch.int64) * st
    return idx.reshape(-1).tolist()


def overlaps_input(spec):
    c = spec["case"]
    xs = set(element_offsets(*c.views[spec["x"]][1:]))
    for k in ("out", "idx"):
        if spec[k] is None:
            continue
        b, size, stride, off = c.views[spec[k]]
        if b == c.views[spec["x"]][0] and xs & set(element_offsets(size, stride, off)):
            return True
    if spec["out"] is not None and spec["idx"] is not None:
        o, i = c.views[spec["out"]], c.views[spec["idx"]]
        if o[0] == i[0] and set(element_offsets(*o[1:])) & set(element_offsets(*i[1:])):
            return True
    return False


FAULTS = [("dim range", ("Dimension out of range",)),
          ("dim twice", ("appears multiple times",)),
          ("empty dim", ("to have non-zero size", "Expected reduction dim to be specified")),
          ("input dtype", ("only support floating", "could not infer output dtype",
                           "expected input to have floating", "does not support bool",
                           "integral types and", "not implemented for")),
          ("out dtype", ("Expected out tensor", "Expected the dtype for input and out",
                         "can't be cast to the desired output", "only supports bool tensor for",
                         "Expected floating point type for result"))]


def fault_of(text):
    """The kind of fault an error text names, for telling check order from wording."""
    for name, keys in FAULTS:
        if any(k in text for k in keys):
            return name
    return None


def zero_rule_ok(op, got, rows):
    """amax/amin at zero results: bcast's documented +0 (amax) / -0 (amin)
    when such a zero is among the row's values."""
    for g, vals in zip(got, rows):
        if g != 0 or any(math.isnan(v) for v in vals):
            continue
        zeros = [math.copysign(1, v) for v in vals if v == 0]
        want = 1.0 if op == "amax" else -1.0
        if want not in zeros:
            want = -want
        if math.copysign(1, g) != want:
            return False
    return True


def run_case(lib, spec, verbose=False, mock=False):
    """None when bcast and torch agree, 'deliberate:<key>' for a listed difference."""
    c = spec["case"]
    op = spec["op"]
    tbases, tviews = c.materialise()
    terr, tres, kind_only = None, None, None
    with warnings.catch_warnings(record=True) as wl:
        warnings.simplefilter("always")
        try:
            tres = torch_side(spec, tviews)
        except BcastOnly as e:
            kind_only = "bcast-only:" + e.args[0]
            want_only = e.args[1]
        except ResizeOnly:
            kind_only = "resize"
        except (RuntimeError, IndexError, TypeError, ValueError, NotImplementedError) as e:
            terr = strip_torch(str(e))
    twarn = [strip_torch(str(w.message)) for w in wl]

    bbases, bviews = c.materialise()
    if lib is not None:
        lib.warnings.clear()
    handles = [lib.wrap(v) for v in bviews] if not mock else None
    results = []
    try:
        if mock:
            st, berr, mres = mock_side(spec, bviews)
            bwarn = list(twarn)
        else:
            st, berr, results = bcast_side(lib, spec, handles)
            bwarn = list(lib.warnings)
        if verbose:
            print(f"  torch: {terr or kind_only or 'ok'}; warnings {twarn}")
            print(f"  bcast: status {st} {berr or ''}; warnings {bwarn}")
        if st != OK and not mock:
            for i, (b0, b1) in enumerate(zip(c.bases, bbases)):
                if bad_elements(b1, b0).any():
                    raise Mismatch("touched", f"bcast failed ({berr}) but changed buffer {i}")
        wrong_shape = False
        if spec["out"] is not None:
            x = c.views[spec["x"]]
            nd = len(x[1])
            dn = norm_dims(spec["dims"], nd) if spec["dims"] is not None else None
            if spec["dims"] is None or dn is not None:
                rs = result_shape(tuple(x[1]), dn, spec["keepdim"])
                wrong_shape = tuple(c.views[spec["out"]][1]) != rs or (
                    spec["idx"] is not None and tuple(c.views[spec["idx"]][1]) != rs)
        if kind_only and kind_only.startswith("bcast-only"):
            want = want_only
            if st == E_SHAPE and wrong_shape:
                return "deliberate:out-resize"
            if st != want:
                raise Mismatch("status", f"{kind_only[11:]}: bcast gives status {st} "
                                         f"({berr!r}), expected {want}")
            return "deliberate:bcast-only"
        if st == E_OVERLAP and overlaps_input(spec):
            if terr is None or terr != berr:
                return "deliberate:overlap"
        if wrong_shape and st == E_SHAPE:
            return "deliberate:out-resize"  # (where PyTorch fails too, either check may come first)
        if wrong_shape and kind_only == "resize":
            raise Mismatch("status", f"out= of the wrong shape: bcast status {st} {berr!r}")
        if terr is not None and terr.startswith("std_var_all: Unsupported dtype") and st == OK:
            # PyTorch's own failure (var/std of a half type over every dim into out=
            # of another dtype); bcast's value is checked against the exact one.
            x = tviews[spec["x"]]
            p = spec["params"]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                alt = getattr(torch, op)(x.to(torch.float64), dim=None if spec["dims"] is None
                                         else tuple(spec["dims"]), keepdim=spec["keepdim"],
                                         correction=p.get("correction", 1.0))
            tres = tviews[spec["out"]].copy_(alt)
            compare_values(lib, spec, tbases, tviews, tres, bbases, bviews, results, mock, None)
            return "deliberate:torch-refuses"
        if terr is None and st != OK:
            raise Mismatch("status", f"torch succeeds, bcast fails: {st} {berr!r}")
        if terr is not None and st == OK:
            raise Mismatch("status", f"torch fails ({terr!r}), bcast succeeds")
        if terr is not None:
            if terr != berr and not mock:
                ft, fb = fault_of(terr), fault_of(berr)
                kind = "check-order" if ft and fb and ft != fb else "message"
                raise Mismatch(kind, f"torch: {terr!r}\n      bcast: {berr!r}")
            return None
        if twarn != bwarn:
            raise Mismatch("warning", f"torch warns {twarn}, bcast {bwarn}")
        if st == OK and overlaps_input(spec):
            raise Mismatch("status", "out= overlaps the input (or values the indices), "
                                     "bcast accepts it")
        return compare_values(lib, spec, tbases, tviews, tres, bbases, bviews, results, mock,
                              mres if mock else None)
    finally:
        if not mock:
            lib.free(*[r for r in results if r])
            lib.free(*handles)


def read_results(lib, spec, tres, bbases, bviews, results, mock, mres):
    """bcast's result tensor(s) as torch tensors, checked for dtype, shape, layout."""
    if mock:
        return list(mres) if isinstance(mres, tuple) else [mres]
    if spec["out"] is not None:
        outs = [bviews[spec["out"]]] + ([bviews[spec["idx"]]] if spec["idx"] is not None else [])
        return [o.clone() for o in outs]
    got = []
    want = list(tres) if isinstance(tres, tuple) else [tres]
    for h, w in zip(results, want):
        dt, shp, strides = lib.meta(h)
        if dt != w.dtype:
            raise Mismatch("dtype", f"torch {w.dtype}, bcast {dt}")
        if shp != tuple(w.shape):
            raise Mismatch("shape", f"torch {list(w.shape)}, bcast {list(shp)}")
        acc, ok = 1, True
        for s, st in reversed(list(zip(shp, strides))):
            if s != 1 and st != acc:
                ok = False
            acc *= max(s, 1)  # PyTorch's contiguous strides: a size 0 counts as 1
        if not ok:
            raise Mismatch("strides", f"result not contiguous: shape {shp} strides {strides}")
        got.append(lib.read(h))
    return got


def compare_values(lib, spec, tbases, tviews, tres, bbases, bviews, results, mock, mres):
    c = spec["case"]
    op = spec["op"]
    got = read_results(lib, spec, tres, bbases, bviews, results, mock, mres)
    want = list(tres) if isinstance(tres, tuple) else [tres]
    want = [w.contiguous() for w in want]
    if spec["out"] is not None and not mock:
        # Outside the written views, every buffer is as it was.
        written = {spec["out"], spec["idx"]} - {None}
        for bi, (b0, b1) in enumerate(zip(c.bases, bbases)):
            mask = torch.ones(len(b0), dtype=torch.bool)
            for v in written:
                if c.views[v][0] == bi:
                    offs = element_offsets(*c.views[v][1:])
                    if offs:
                        mask[torch.tensor(offs)] = False
            if bad_elements(b1[mask], b0[mask]).any():
                raise Mismatch("touched", f"buffer {bi} changed outside the out= view")
    x0 = c.views[spec["x"]]
    xt = c.bases[x0[0]].as_strided(*x0[1:])  # the input, as it was
    nd = xt.dim()
    dims = spec["dims"]
    dn = norm_dims(dims, nd) if dims is not None else None
    for g, w in zip(got, want):
        if g.dtype != w.dtype or g.shape != w.shape:
            raise Mismatch("shape", f"torch {w.dtype}{list(w.shape)}, "
                                    f"bcast {g.dtype}{list(g.shape)}")
    if op in INEXACT and want[0].dtype.is_floating_point:
        p = spec["params"]
        odt = c.bases[c.views[spec["out"]][0]].dtype if spec["out"] is not None else None
        cdt = compute_dtype(op, xt.dtype, p, odt)
        rdt = result_dtype(op, xt.dtype, p) if op not in SUM_LIKE else cdt
        D = coarser(rdt, odt)
        vals = xt.to(cdt).to(torch.float64)
        rows = rows_of(vals, dn).tolist()
        corr = p.get("correction", 1.0)
        flat = got[0].to(torch.float64).reshape(-1).tolist()
        bad, errs = check_inexact(op, flat, rows, corr, D)
        key = (op, str(xt.dtype)[6:])
        record(key, "err_bcast", errs)
        tflat = want[0].to(torch.float64).reshape(-1).tolist()
        record(key, "err_torch", ulp_errors(op, tflat, rows, corr, D))
        if bad:
            i, g, e, err, allowed = bad[0]
            raise Mismatch("bound", f"element {i}: bcast {g!r}, exact {e!r}: {err:.3g} ulp of "
                                    f"{str(D)[6:]} > allowed {allowed:.3g} ({len(bad)} of "
                                    f"{len(flat)} elements)")
        for gv, tv in zip(flat, tflat):
            if gv == 0 and tv == 0 and math.copysign(1, gv) != math.copysign(1, tv):
                STATS["zero_sign_vs_torch"] += 1
        return None
    noted = None
    for k, (g, w) in enumerate(zip(got, want)):
        bad = bad_elements(g, w)
        if bad.any() and op in ("amax", "amin") and g.dtype.is_floating_point:
            zero_only = bad & (g == 0) & (w == 0)
            if (bad == zero_only).all():
                rows = rows_of(xt.to(torch.float64), dn).tolist()
                if not zero_rule_ok(op, g.reshape(-1).tolist(), rows):
                    raise Mismatch("zero-sign", "amax/amin zero sign breaks the documented rule")
                noted = "deliberate:zero-sign"
                bad = bad & ~zero_only
        if bad.any():
            idx = bad.nonzero()[0].tolist()
            what = ("indices" if k == 1 else "values") if op in DIM_OPS else "value"
            raise Mismatch("value", f"{what} at {idx}: bcast {g[tuple(idx)].item()!r} torch "
                                    f"{w[tuple(idx)].item()!r} ({int(bad.sum())} of "
                                    f"{bad.numel()} differ)")
        if op in ("amax", "amin") and g.dtype.is_floating_point and not mock:
            nans = g.reshape(-1)[torch.isnan(g.reshape(-1))]
            for v in nans.view(BITS[g.dtype]).tolist():
                STATS["nan_bits"].add((str(g.dtype)[6:], v & ((1 << (8 * g.element_size())) - 1)))
    return noted


# ---------------------------------------------------------------- error texts

def error_cases():
    """(label, op, dtype, shape, dims, keepdim, params, out dtype/shape or None, expectation).

    expectation: 'torch' (PyTorch's status and text), or a bcast status for bcast-only calls."""
    f, i, b, u8 = torch.float32, torch.int64, torch.bool, torch.uint8
    L = []
    for op in OPS:
        if op in ("argmax", "argmin"):
            L.append(("dim out of range", op, f, (2, 3), [2], False, {}, None, "torch"))
            L.append(("dim out of range, 0-dim", op, f, (), [1], False, {}, None, "torch"))
            continue
        L.append(("dim out of range", op, f, (2, 3), [2], False, {}, None, "torch"))
        L.append(("dim out of range, negative", op, f, (2, 3), [-3], False, {}, None, "torch"))
        L.append(("dim out of range, 0-dim", op, f, (), [1], False, {}, None, "torch"))
        L.append(("dim twice", op, f, (2, 3), [0, 0], False, {}, None, "torch"))
        L.append(("dim twice, negative", op, f, (2, 3, 4), [1, -1, 0, -3], False, {}, None,
                  "torch"))
    for op in ("max_dim", "min_dim"):
        L.append(("dim out of range", op, f, (2, 3), [5], False, {}, None, "torch"))
        L.append(("dim out of range, 0-dim", op, f, (), [-2], False, {}, None, "torch"))
    for op in ("amax", "amin", "argmax", "argmin", "max_dim", "min_dim"):
        L.append(("empty reduced dim", op, f, (0, 3), [0], False, {}, None, "torch"))
        L.append(("empty reduced dim, keepdim", op, i, (3, 0), [-1], True, {}, None, "torch"))
        L.append(("empty kept dim (fine)", op, f, (0, 3), [1], False, {}, None, "torch"))
        if op not in DIM_OPS:
            L.append(("empty, every dim", op, f, (0, 3), None, False, {}, None, "torch"))
    L.append(("empty, every dim listed", "amax", f, (2, 0), [0, 1], False, {}, None, "torch"))
    for op in ("mean", "nanmean"):
        for dt in INTS_BOOL:
            L.append((f"{op} of {dt}", op, dt, (2, 3), [0], False, {}, None, "torch"))
        L.append((f"{op} dtype=int32", op, f, (2, 3), [0], False, {"dtype": torch.int32},
                  None, "torch"))
        L.append((f"{op} of int with dtype=float32", op, torch.int32, (2, 3), [0], False,
                  {"dtype": torch.float32}, None, "torch"))
    for op in ("var", "std"):
        for dt in INTS_BOOL:
            L.append((f"{op} of {dt}", op, dt, (2, 3), [0], False, {}, None, "torch"))
        L.append((f"{op} correction > n (warning)", op, f, (2, 3), [0], False,
                  {"correction": 5.0}, None, "torch"))
    for op in ("argmax", "argmin"):
        L.append((f"{op} of bool", op, b, (2, 3), [0], False, {}, None, "torch"))
        L.append((f"{op} of bool, every dim", op, b, (2, 3), None, False, {}, None, "torch"))
    # out= dtype rules
    for op, dt, odt in [("sum", f, torch.float64), ("sum", torch.int32, torch.bool),
                        ("prod", torch.int32, torch.int32), ("nansum", f, torch.int32),
                        ("amax", f, torch.float64), ("amin", torch.int32, i),
                        ("argmax", f, torch.int32), ("argmin", f, f), ("any", f, torch.int32),
                        ("any", f, u8), ("all", f, f), ("any", u8, b), ("mean", f, torch.int32),
                        ("mean", f, torch.float64), ("mean", f, torch.float16),
                        ("mean", f, b), ("nanmean", f, torch.float64), ("nanmean", f, i),
                        ("var", f, torch.int32), ("var", f, torch.float64),
                        ("std", torch.float64, torch.float16), ("logsumexp", f, torch.int32),
                        ("logsumexp", f, torch.float16), ("logsumexp", torch.int32, i),
                        ("logsumexp", torch.int32, torch.float64),
                        ("count_nonzero", f, torch.int32), ("count_nonzero", f, i)]:
        L.append((f"{op} out={odt}", op, dt, (2, 3), [0], False, {}, ("dtype", odt),
                  "torch"))
    L.append(("sum dtype=float32 out=float64", "sum", f, (2, 3), [0], False,
              {"dtype": torch.float32}, ("dtype", torch.float64), "torch"))
    L.append(("mean dtype=float64 out=float32", "mean", f, (2, 3), [0], False,
              {"dtype": torch.float64}, ("dtype", torch.float32), "torch"))
    L.append(("max_dim out values float64", "max_dim", f, (2, 3), [0], False, {},
              ("dtype", torch.float64), "torch"))
    L.append(("max_dim out indices int32", "max_dim", f, (2, 3), [0], False, {},
              ("idx", torch.int32), "torch"))
    L.append(("min_dim out indices int32", "min_dim", torch.int32, (2, 3), [1], True, {},
              ("idx", torch.int32), "torch"))
    for op in ("sum", "amax", "argmax", "var", "count_nonzero", "max_dim"):
        L.append((f"{op} out of the wrong shape", op, f, (2, 3), [0], False, {},
                  ("shape", (4,)), E_SHAPE))
        L.append((f"{op} out of the wrong shape (keepdim)", op, f, (2, 3), [1], True, {},
                  ("shape", (2,)), E_SHAPE))
        L.append((f"{op} out with 0 elements", op, f, (2, 3), [0], False, {},
                  ("shape", (0,)), E_SHAPE))
    return L


def run_error_case(lib, case, mock=False):
    label, op, dt, shape, dims, keep, params, outspec, expect = case
    x = (torch.arange(math.prod(shape), dtype=torch.float64) % 3).reshape(shape).to(dt)
    rng = random.Random(zlib.crc32(label.encode()))
    c = Case(rng)
    c.bases.append(x.reshape(-1).clone())
    strides = tuple(int(math.prod(shape[k + 1:])) for k in range(len(shape)))
    c.views.append((0, tuple(shape), strides, 0))
    c.desc.append("contiguous")
    spec = dict(op=op, form="ex" if params else "alloc", x=0, dims=dims, keepdim=keep,
                params=dict(params), case=c, out=None, idx=None, nullptr_dims=True,
                null_params=False, layout="contiguous")
    if outspec is not None:
        kind, val = outspec
        try:
            tr = torch_side(dict(spec, out=None, idx=None), [x])
            rs = tuple((tr[0] if isinstance(tr, tuple) else tr).shape)
        except Exception:  # noqa: BLE001
            rs = tuple(s for k, s in enumerate(shape) if k not in [d % len(shape) for d in dims])
        odt = val if kind == "dtype" else result_dtype(op, dt, params)
        oshape = val if kind == "shape" else rs
        c.bases.append(torch.zeros(max(math.prod(oshape), 1), dtype=odt))
        c.views.append((1, tuple(oshape), tuple(int(math.prod(oshape[k + 1:]))
                                                for k in range(len(oshape))), 0))
        c.desc.append("contiguous")
        spec["out"] = 1
        spec["form"] = "ex_out" if params else "out"
        if op in DIM_OPS:
            idt = val if kind == "idx" else torch.int64
            c.bases.append(torch.zeros(max(math.prod(oshape), 1), dtype=idt))
            c.views.append((2, tuple(oshape), c.views[1][2], 0))
            c.desc.append("contiguous")
            spec["idx"] = 2
            spec["form"] = "out"
    try:
        r = run_case(lib, spec, mock=mock)
    except Mismatch as m:
        return f"{op} {str(dt)[6:]}{list(shape)} dims {dims}: {label}: {m.kind}: {m.detail}"
    if expect != "torch" and r not in ("deliberate:out-resize",) and not mock:
        return f"{op} {str(dt)[6:]}{list(shape)} dims {dims}: {label}: expected status " \
               f"{expect}, got {r}"
    return None


def api_checks(lib):
    """bcast-only argument checks (no PyTorch counterpart). Returns failures."""
    L = lib.lib
    bad = []
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    hx = lib.wrap(x)
    res = ctypes.c_void_p()
    d1 = (ctypes.c_int64 * 2)(0, 1)

    def expect(label, st, want):
        if st != want:
            bad.append(f"{label}: status {st} ({lib.error()!r}), expected {want}")

    for k, name in enumerate(OPS):
        got = L.bc_reduce_op_name(k).decode()
        if got != name:
            bad.append(f"bc_reduce_op_name({k}) = {got!r}, expected {name!r}")
    if L.bc_reduce_op_name(15).decode() != "unknown":
        bad.append("bc_reduce_op_name(15) is not 'unknown'")
    expect("unknown op 15", L.bc_reduce(15, hx, None, 0, 0, ctypes.byref(res)), E_ARG)
    expect("unknown op -1", L.bc_reduce(-1, hx, None, 0, 0, ctypes.byref(res)), E_ARG)
    expect("NULL x", L.bc_reduce(0, None, None, 0, 0, ctypes.byref(res)), E_ARG)
    expect("NULL out", L.bc_reduce(0, hx, None, 0, 0, None), E_ARG)
    expect("NULL out tensor", L.bc_reduce_out(0, hx, None, 0, 0, None), E_ARG)
    expect("dims NULL with ndims 2", L.bc_reduce(0, hx, None, 2, 0, ctypes.byref(res)), E_ARG)
    expect("ndims 33", L.bc_reduce(0, hx, (ctypes.c_int64 * 33)(*([0] * 33)), 33, 0,
                                   ctypes.byref(res)), E_ARG)
    for label, p in [("given bit 4", ReduceParams(0, 0.0, 4)),
                     ("unknown dtype 42", ReduceParams(42, 0.0, 1)),
                     ("dtype -1", ReduceParams(-1, 0.0, 1))]:
        expect(label, L.bc_reduce_ex(0, hx, None, 0, 0, ctypes.byref(p), ctypes.byref(res)),
               E_ARG)
    for op in ("amax", "argmax", "any", "var", "logsumexp", "count_nonzero"):
        p = ReduceParams(CODE[torch.float64], 0.0, 1)
        expect(f"dtype= on {op}", L.bc_reduce_ex(OPS.index(op), hx, None, 0, 0,
                                                 ctypes.byref(p), ctypes.byref(res)), E_ARG)
    for op in ("argmax", "argmin"):
        expect(f"{op} with two dims", L.bc_reduce(OPS.index(op), hx, d1, 2, 0,
                                                  ctypes.byref(res)), E_ARG)
    p = ReduceParams(0, 1.0, 2)
    st = L.bc_reduce_ex(0, hx, None, 0, 0, ctypes.byref(p), ctypes.byref(res))
    if st == OK:
        lib.free(res)
    res = ctypes.c_void_p()
    expect("max_dim NULL indices", L.bc_max_dim(hx, 0, 0, ctypes.byref(res), None), E_ARG)
    # var's warning raised as an error on a context: BC_ERR_POLICY, nothing written.
    L.bc_ctx_set_option(lib.ctx, 3, 1)  # BC_OPT_WARNINGS_AS_ERRORS
    o = torch.full((3,), 7.0)
    ho = lib.wrap(o)
    p = ReduceParams(0, 5.0, 2)
    st = L.bc_ctx_reduce_ex_out(lib.ctx, OPS.index("var"), hx, d1, 1, 0, ctypes.byref(p), ho)
    expect("var dof <= 0 as error", st, E_POLICY)
    if not torch.equal(o, torch.full((3,), 7.0)):
        bad.append("var dof <= 0 as error: out was written")
    L.bc_ctx_set_option(lib.ctx, 3, 0)
    lib.warnings.clear()
    st = L.bc_ctx_reduce_ex_out(lib.ctx, OPS.index("var"), hx, d1, 1, 0, ctypes.byref(p), ho)
    expect("var dof <= 0 warns", st, OK)
    if len(lib.warnings) != 1:
        bad.append(f"var dof <= 0 on a context: warnings {lib.warnings}")
    lib.free(ho, hx)
    return bad


# ---------------------------------------------------------------- accuracy

def accuracy_inputs(quick):
    """(label, tensor, dims) for the accuracy study."""
    g = torch.Generator().manual_seed(5)
    big = 1 << (14 if quick else 16)
    out = []
    for dt in FLOATS:
        n = big if dt in (torch.float32, torch.float64) else big // 4
        r = torch.randn(n, generator=g, dtype=torch.float64)
        out.append(("normal", r.to(dt), None))
        out.append(("normal rows", r.reshape(64, -1).to(dt), [1]))
        out.append(("normal columns", r.reshape(-1, 64).to(dt), [0]))
        out.append(("uniform [0,1)", torch.rand(n, generator=g, dtype=torch.float64).to(dt),
                    None))
        scale = 1e3 if dt == torch.float16 else 1e4
        big_v = torch.randn(n // 2, generator=g, dtype=torch.float64) * scale
        canc = torch.cat([big_v, -big_v]) + torch.rand(n // 2 * 2, generator=g,
                                                       dtype=torch.float64)
        canc = canc[torch.randperm(len(canc), generator=g)]
        out.append(("cancellation", canc.to(dt), None))
        off = 1e4 if dt in (torch.float32, torch.float64) else 100.0
        out.append(("mean 1e4, sd 1", (off + torch.randn(n, generator=g,
                                                         dtype=torch.float64)).to(dt), None))
        w = 8 if dt == torch.float16 else 20
        out.append(("wide exponents", (torch.randn(n, generator=g, dtype=torch.float64) *
                                       torch.exp2(torch.randint(-w, w, (n,), generator=g)
                                                  .to(torch.float64))).to(dt), None))
    for dt in (torch.float32, torch.float64):  # long rows: errors grow along a row
        out.append(("normal long rows", torch.randn(4 if quick else 8, 1 << 17, generator=g,
                                                    dtype=torch.float64).to(dt), [1]))
    # 1e8 elements of one value (a stride-0 view: no memory), and 1e7 in memory
    for dt, v in ((torch.float32, 0.1), (torch.bfloat16, 0.1), (torch.float64, 0.1)):
        n = 10 ** 7 if quick else 10 ** 8
        out.append((f"{n:.0e} x {v}", torch.tensor(v, dtype=dt).expand(n), None))
    out.append(("1e7 x 0.1 in memory", torch.full((10 ** 7 if not quick else 10 ** 6,), 0.1,
                                                 dtype=torch.float32), None))
    return out


def lse_inputs(quick):
    g = torch.Generator().manual_seed(7)
    n = 2048 if quick else 8192
    out = []
    for dt in FLOATS:
        for label, base in (("normal sd 10", torch.randn(n, generator=g, dtype=torch.float64) * 10),
                            ("around -80", torch.randn(n, generator=g, dtype=torch.float64) - 80),
                            ("around +80", torch.randn(n, generator=g, dtype=torch.float64) + 80),
                            ("one dominant", torch.cat([torch.tensor([30.0], dtype=torch.float64),
                                                        torch.randn(n - 1, generator=g,
                                                                    dtype=torch.float64)]))):
            if dt in (torch.float16,) and "80" in label:
                base = base / 8
            out.append((label, base.to(dt), None))
            out.append((label + ", rows", base.reshape(16, -1).to(dt), [1]))
    return out


def exact_fast(op, vals, correction):
    """exact_row for long rows of finite values (fsum for sums; big integers for var)."""
    n = len(vals)
    if op in ("sum", "mean"):
        s = math.fsum(vals)  # correctly rounded float64: 0.5 ulp of float64
        a = math.fsum(abs(v) for v in vals)
        return (mpmath.mpf(s) / (n if op == "mean" else 1)), (U64 * a if op == "mean"
                                                               else n * U64 * a)
    if op in ("var", "std") and n > 20000:
        # integers m_i * 2^e exactly: sum and sum of squares as Python integers
        import numpy as np
        a = np.array(vals)
        mant, ex = np.frexp(a)
        m = (mant * 2.0 ** 53).astype(np.int64)
        e = ex.astype(np.int64) - 53
        e0 = int(e.min())
        ints = [int(mi) << int(ei - e0) for mi, ei in zip(m.tolist(), e.tolist())]
        s = sum(ints)
        q = sum(k * k for k in ints)
        ss = Fraction(n * q - s * s, n) * Fraction(2) ** (2 * e0)
        d = max(Fraction(0), n - Fraction(correction))
        var = ss / d
        aa = math.fsum(abs(v) for v in vals)
        eb = ((n + 3) * U64 * float(ss) + 4 * n * (U64 * aa) ** 2) / float(d)
        if op == "var":
            return mp_of(var), eb
        v = mp_of(var)
        return mpmath.sqrt(v), float(mpmath.sqrt(v + eb) - mpmath.sqrt(v))
    return exact_row(op, vals, correction)


def accuracy(lib, quick, mock=False):
    """Returns (table rows, failures)."""
    L = lib.lib if lib else None
    fails = []
    per = {}
    items = [(op, lab, t, dims) for lab, t, dims in accuracy_inputs(quick)
             for op in ("sum", "mean", "var", "std", "nansum", "nanmean")] + \
        [("logsumexp", lab, t, dims) for lab, t, dims in lse_inputs(quick)]
    for op, label, t, dims in items:
        if op in ("nansum", "nanmean") and (t.stride() == (0,) or label not in (
                "normal", "normal rows", "normal long rows", "cancellation", "wide exponents")):
            continue
        if op in ("var", "std") and (t.stride() == (0,) or "x 0.1" in label or
                                     label == "normal long rows"):
            continue  # an exact 0: no ulp to measure in
        x = t
        if op in ("nansum", "nanmean"):
            x = t.clone()
            x.view(-1)[::10] = math.nan
        dn = dims
        D = x.dtype
        tres = getattr(torch, op)(x, dim=dims if dims else tuple(range(x.dim())))
        if mock:
            bres = getattr(torch, op)(x.to(torch.float64),
                                      dim=dims if dims else tuple(range(x.dim()))).to(D)
        else:
            hx = lib.wrap(x)
            res = ctypes.c_void_p()
            arr = (ctypes.c_int64 * 1)(*(dims or [0]))
            st = L.bc_reduce(OPS.index(op), hx, arr if dims else None, len(dims or []), 0,
                             ctypes.byref(res))
            if st != OK:
                fails.append(f"{op} {label} {D}: status {st} {lib.error()}")
                lib.free(hx)
                continue
            bres = lib.read(res)
            lib.free(res, hx)
        if x.stride() == (0,):  # one value n times: exact n*v
            v = Fraction(float(x[0]))
            n = x.numel()
            E = {"sum": mp_of(v * n), "mean": mp_of(v), "var": mpmath.mpf(0),
                 "std": mpmath.mpf(0)}[op]
            rows_e = [(E, n * U64 * float(abs(v) * n) if op == "sum" else U64 * float(abs(v) * n))]
        else:
            rows = rows_of(x.to(torch.float64), dn).tolist()
            rows_e = []
            for r in rows:
                if op in ("nansum", "nanmean"):
                    r2 = [v for v in r if not math.isnan(v)]
                    E, extra = exact_fast(op[3:], r2, 1.0)
                elif op == "logsumexp":
                    E, extra = exact_row(op, r, 1.0)
                else:
                    E, extra = exact_fast(op, r, 1.0)
                rows_e.append((E, extra))
        for which, res in (("bcast", bres), ("torch", tres)):
            for (E, extra), gv in zip(rows_e, res.to(torch.float64).reshape(-1).tolist()):
                u = ulp(D, E)
                if math.isinf(gv) or math.isnan(gv):
                    err = math.inf
                    ok = rounds_to_inf(D, E) and gv == math.copysign(math.inf, E)
                    err = 0.0 if ok else math.inf
                else:
                    d = abs(mpmath.mpf(gv) - E)
                    err = float(d / u)
                    ok = d <= bound_of(extra, E, D)
                per.setdefault((op, str(D)[6:], which), []).append((err, label))
                if which == "bcast" and not ok:
                    fails.append(f"{op} {str(D)[6:]} {label}: bcast {gv!r}, exact "
                                 f"{mpmath.nstr(E, 20)}: {err:.3g} ulp, over the bound")
    table, notes = [], []
    for op in ("sum", "nansum", "mean", "nanmean", "var", "std", "logsumexp"):
        for dt in FLOATS:
            k = str(dt)[6:]
            b = per.get((op, k, "bcast"))
            t = per.get((op, k, "torch"))
            if not b:
                continue
            bf = [e for e, _ in b if math.isfinite(e)]
            tf = [e for e, _ in t if math.isfinite(e)]
            bm, tm = sum(bf) / max(len(bf), 1), sum(tf) / max(len(tf), 1)
            bw = max(b, key=lambda p: p[0])
            tw = max(t, key=lambda p: p[0])
            table.append((op, k, len(b), bm, bw[0], bw[1], tm, tw[0], tw[1],
                          len(b) - len(bf), len(t) - len(tf)))
            if bm > tm * 1.0 + 0.02 or len(b) - len(bf) > len(t) - len(tf):
                fails.append(f"{op} {k}: bcast's mean error {bm:.3g} ulp is above "
                             f"PyTorch's {tm:.3g}")
            for label in dict.fromkeys(lab for _, lab in b):  # per input: notes
                be = [e for e, lab in b if lab == label and math.isfinite(e)]
                te = [e for e, lab in t if lab == label and math.isfinite(e)]
                bl, tl = sum(be) / max(len(be), 1), sum(te) / max(len(te), 1)
                if bl > tl + 0.1:
                    notes.append(f"{op} {k} {label}: bcast {bl:.3g} ulp on average over "
                                 f"{len(be)} results, PyTorch {tl:.3g}")
    return table, fails, notes


# ---------------------------------------------------------------- determinism

def simd_targets(L):
    """The SIMD targets this CPU runs, best first (as bc_simd_target() names them)."""
    names = ["AVX10_2", "AVX3_SPR", "AVX3_ZEN4", "AVX3_DL", "AVX3", "AVX2", "SSE4", "SSSE3",
             "SSE2", "EMU128", "SCALAR"]
    L.bc_set_simd_cap(None)
    found = [L.bc_simd_target().decode()]
    for n in names:
        if L.bc_set_simd_cap(n.encode()) == OK:
            t = L.bc_simd_target().decode()
            if t not in found:
                found.append(t)
    L.bc_set_simd_cap(None)
    return found


def determinism(lib, quick):
    """Same bits for every thread count, context, host scheduler and SIMD target.
    Returns (configurations, cases, failures, chunk counts seen by the scheduler)."""
    L = lib.lib
    g = torch.Generator().manual_seed(11)
    R, C = (512, 2048) if quick else (1024, 4096)
    base = torch.randn(R * C, generator=g, dtype=torch.float64) * 3 + 0.5
    inputs = []
    for dt in FLOATS:
        x = base.to(dt).reshape(R, C)
        inputs += [(f"{dt} all", x, None), (f"{dt} dim0", x, [0]), (f"{dt} dim1", x, [1]),
                   (f"{dt} transposed all", x.t(), None), (f"{dt} transposed dim1", x.t(), [1])]
        inputs.append((f"{dt} 3-D middle", x.reshape(64, -1, 128 if quick else 1024)[:, :, :]
                       .reshape(64, -1, 128 if quick else 1024), [1]))
    ops = ["sum", "nansum", "mean", "nanmean", "var", "std", "logsumexp", "prod", "amax",
           "argmax", "count_nonzero"]
    if quick:
        ops = ["sum", "mean", "var", "logsumexp", "prod"]
    chunks = []

    def sched_num(_):
        return 6

    def sched_run(_, n, fn, task):
        chunks.append(n)
        for k in reversed(range(n)):
            fn(task, k)

    sched = Scheduler(SCHED_NUM(sched_num), SCHED_RUN(sched_run), None)
    sctx = ctypes.c_void_p()
    L.bc_ctx_create(ctypes.byref(sctx))
    L.bc_ctx_set_scheduler(sctx, ctypes.byref(sched))
    tctx = ctypes.c_void_p()
    L.bc_ctx_create(ctypes.byref(tctx))
    L.bc_ctx_set_option(tctx, 4, 5)
    targets = simd_targets(L)
    configs = [("threads 1", None, 1, None), ("threads 2", None, 2, None),
               ("threads 3", None, 3, None), ("threads 8", None, 8, None),
               ("context with 5 threads", tctx, 1, None),
               ("context, host scheduler, chunks reversed", sctx, 1, None)]
    configs += [(f"SIMD capped at {t}, 2 threads", None, 2, t) for t in targets[1:]]
    fails, cases = [], 0
    for label, x, dims in inputs:
        hx = lib.wrap(x)
        arr = (ctypes.c_int64 * 1)(*(dims or [0]))
        for op in ops:
            if op == "prod" and x.dtype in (torch.float16, torch.bfloat16):
                continue
            ref = None
            for cname, ctx, threads, cap in configs:
                L.bc_set_num_threads(threads)
                if cap:
                    L.bc_set_simd_cap(cap.encode())
                res = ctypes.c_void_p()
                if ctx:
                    st = L.bc_ctx_reduce(ctx, OPS.index(op), hx, arr if dims else None,
                                         len(dims or []), 0, ctypes.byref(res))
                else:
                    st = L.bc_reduce(OPS.index(op), hx, arr if dims else None,
                                     len(dims or []), 0, ctypes.byref(res))
                if cap:
                    L.bc_set_simd_cap(None)
                if st != OK:
                    fails.append(f"{op} {label} {cname}: status {st} {lib.error()}")
                    continue
                r = lib.read(res)
                lib.free(res)
                cases += 1
                bits = r.view(BITS[r.dtype]) if r.dtype.is_floating_point else r
                if ref is None:
                    ref = (cname, bits, r)
                elif not torch.equal(bits, ref[1]):
                    k = int((bits != ref[1]).sum())
                    i = int((bits != ref[1]).reshape(-1).nonzero()[0])
                    got, first = r.reshape(-1)[i].item(), ref[2].reshape(-1)[i].item()
                    fails.append(f"{op} {label}: {cname} differs from {ref[0]} in {k} of "
                                 f"{bits.numel()} elements (first at flat {i}: {got!r} vs "
                                 f"{first!r})")
        lib.free(hx)
    L.bc_set_num_threads(1)
    L.bc_ctx_free(sctx)
    L.bc_ctx_free(tctx)
    return [c[0] for c in configs], cases, fails, chunks


# ---------------------------------------------------------------- reproducers

def reproducer(spec):
    c = spec["case"]
    _, views = c.materialise()
    x = views[spec["x"]]
    lines = ["import torch"]
    if x.numel() <= 48:
        lines.append(f"x = {literal(x.contiguous())}")
    else:
        lines.append(f"# x: {x.dtype}{list(x.shape)} (too large to print; rerun with --case)")
    op = spec["op"]
    args = []
    if op in DIM_OPS:
        call = f"torch.{op[:3]}(x, {spec['dims'][0]}, keepdim={spec['keepdim']})"
    else:
        if spec["dims"] is not None:
            args.append(f"dim={tuple(spec['dims'])}")
        args.append(f"keepdim={spec['keepdim']}")
        for k, v in spec["params"].items():
            if k != "bogus":
                args.append(f"{k}={v}")
        if spec["out"] is not None:
            o = views[spec["out"]]
            lines.append(f"out = torch.empty({list(o.shape)}, dtype={o.dtype})")
            args.append("out=out")
        call = f"torch.{op}(x, {', '.join(args)})"
    lines.append(f"print({call})")
    dims = "NULL" if spec["dims"] is None else spec["dims"]
    lines.append(f"# bcast: {spec['form']} form; dims {dims}; layouts: {c.layout_text()}")
    return "\n".join(lines)


# ---------------------------------------------------------------- driver

def label_of(spec):
    x = spec["case"].views[spec["x"]]
    return f"{spec['op']} {str(spec['case'].bases[x[0]].dtype)[6:]} {spec['layout']}"


def worker(args):
    libpath, seed, items, verbose, mock, only = args
    lib = None if mock else RLib(libpath)
    stats = {"passed": 0, "deliberate": {}, "mismatch": [], "count": 0}
    for i, sw in items:
        spec = make_case(seed, i, only, sw)
        stats["count"] += 1
        try:
            r = run_case(lib, spec, verbose, mock)
        except Mismatch as m:
            stats["mismatch"].append((i, label_of(spec), spec["form"], m.kind, m.detail,
                                      reproducer(spec)))
            continue
        except Exception:  # noqa: BLE001
            stats["mismatch"].append((i, label_of(spec), spec["form"], "harness",
                                      traceback.format_exc(limit=4), reproducer(spec)))
            continue
        if r and r.startswith("deliberate:"):
            k = r.split(":", 1)[1]
            stats["deliberate"][k] = stats["deliberate"].get(k, 0) + 1
        else:
            stats["passed"] += 1
    stats["err_bcast"] = STATS["err_bcast"]
    stats["err_torch"] = STATS["err_torch"]
    stats["zero_sign_vs_torch"] = STATS["zero_sign_vs_torch"]
    stats["nan_bits"] = STATS["nan_bits"]
    stats["f64_overflow"] = STATS["f64_overflow"]
    return stats


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lib", nargs="?", default=None, help="build directory or libbcast.so")
    ap.add_argument("--seed", type=int, default=25)
    ap.add_argument("-j", "--jobs", type=int, default=min(os.cpu_count() or 1, 2))
    ap.add_argument("--random", type=int, default=1000, help="random cases after the sweep")
    ap.add_argument("--reps", type=int, default=3, help="sweep cases per op, dtype and layout")
    ap.add_argument("--ops", help="only these ops (comma-separated; max_dim, min_dim too)")
    ap.add_argument("--case", type=int, default=None, help="rerun one case verbosely")
    ap.add_argument("--repro", type=int, default=1)
    ap.add_argument("--list", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="fewer cases, smaller inputs")
    ap.add_argument("--no-accuracy", action="store_true")
    ap.add_argument("--no-determinism", action="store_true")
    ap.add_argument("--mock", action="store_true", help="bcast's side from PyTorch (harness test)")
    args = ap.parse_args()
    if not args.mock and not args.lib:
        ap.error("the library path is required (or --mock)")
    only = args.ops.split(",") if args.ops else None
    if only and any(o not in OPS + DIM_OPS for o in only):
        ap.error("unknown op in --ops")
    t0 = time.time()
    reps = 1 if args.quick else args.reps
    nrand = args.random // 5 if args.quick else args.random
    sw = sweep_list(only, reps)
    items = [(k, s) for k, s in enumerate(sw)] + [(len(sw) + k, None) for k in range(nrand)]
    if args.case is not None:
        k, s = items[args.case]
        spec = make_case(args.seed, k, only, s)
        print(reproducer(spec))
        st = worker((args.lib, args.seed, [(k, s)], True, args.mock, only))
        for m in st["mismatch"]:
            print(f"MISMATCH [{m[3]}] {m[1]} {m[2]}: {m[4]}")
        print("deliberate:", st["deliberate"] or "none")
        return 1 if st["mismatch"] else 0

    failures = 0
    # 2. error texts and bcast-only checks
    lib = None if args.mock else RLib(args.lib)
    errs = [e for e in (run_error_case(lib, c, args.mock) for c in error_cases()) if e]
    api = [] if args.mock else api_checks(lib)
    for e in errs + api:
        print("MISMATCH " + e)
    print(f"error texts: {len(error_cases())} calls against PyTorch, {len(errs)} mismatches; "
          f"bcast-only argument checks: {len(api)} failures")
    failures += len(errs) + len(api)

    # 1. the sweep and the random cases
    jobs = max(1, min(args.jobs, len(items)))
    work = [(args.lib, args.seed, items[j::jobs], False, args.mock, only) for j in range(jobs)]
    if jobs == 1:
        results = [worker(work[0])]
    else:
        with mp.get_context("fork").Pool(jobs) as pool:
            results = pool.map(worker, work)
    passed = sum(r["passed"] for r in results)
    deliberate = {}
    for r in results:
        for k, v in r["deliberate"].items():
            deliberate[k] = deliberate.get(k, 0) + v
    mism = sorted(m for r in results for m in r["mismatch"])
    groups = {}
    for m in mism:
        groups.setdefault((m[3], m[1].split()[0]), []).append(m)
    if groups:
        print(f"\nMismatches by kind and op ({len(mism)} cases):")
        for (kind, op), ms in sorted(groups.items(), key=lambda kv: -len(kv[1])):
            print(f"\n== {kind} | {op}: {len(ms)} case(s)")
            for m in ms[:args.list]:
                print(f"   case {m[0]} ({m[1]}, {m[2]}): {m[4]}")
            for m in ms[:args.repro]:
                rerun = f"--seed {args.seed} --case {m[0]}" + (" --quick" if args.quick else "") + \
                    (f" --ops {args.ops}" if args.ops else "")
                print(f"   reproducer (rerun: {rerun}):")
                print("     " + m[5].replace("\n", "\n     "))
    failures += len(mism)
    eb, et = {}, {}
    for r in results:
        for k, v in r["err_bcast"].items():
            eb.setdefault(k, []).extend(v)
        for k, v in r["err_torch"].items():
            et.setdefault(k, []).extend(v)
    if eb:
        print("\nInexact results in the sweep, error in ulps of the result dtype "
              "(mean / max; bcast vs PyTorch):")
        for k in sorted(eb):
            b, t = eb[k], et.get(k, [])
            print(f"  {k[0]:>10} {k[1]:>9}: n={len(b):5d}  bcast {sum(b) / max(len(b), 1):7.3f} "
                  f"/ {max(b, default=0):9.3g}   torch {sum(t) / max(len(t), 1):7.3f} / "
                  f"{max(t, default=0):9.3g}")
    zs = sum(r["zero_sign_vs_torch"] for r in results)
    if zs:
        print(f"note: {zs} zero results of inexact ops differ from PyTorch's in sign only "
              "(within every bound; not a failure)")
    ov = sum(r["f64_overflow"] for r in results)
    if ov:
        print(f"note: {ov} results are +-inf or NaN where the exact value is finite but the "
              "magnitudes add up past float64's range (float64 partial sums overflow; "
              "accepted)")
    nb = set().union(*[r["nan_bits"] for r in results])
    if nb:
        print("amax/amin NaN results' bits: " + ", ".join(f"{d} {v:#x}" for d, v in sorted(nb)))
    if deliberate:
        print("Deliberate differences (bcast's side checked):")
        for k, v in sorted(deliberate.items()):
            print(f"  {k}: {v} case(s): {DELIBERATE[k]}")
    print(f"sweep + random: {len(items)} cases ({len(sw)} sweep, {nrand} random; seed "
          f"{args.seed}): {passed} agree with PyTorch {torch.__version__}, "
          f"{sum(deliberate.values())} deliberate differences, {len(mism)} mismatches")

    # 3. accuracy
    if not args.no_accuracy:
        table, fails, notes = accuracy(lib, args.quick, args.mock)
        print("\nAccuracy against the exact value, ulps of the dtype (mean / max, worst input):")
        print(f"  {'op':>9} {'dtype':>8} {'n':>4}  {'bcast mean':>10} {'max':>8}  "
              f"{'PyTorch mean':>12} {'max':>8}  worst inputs (bcast | PyTorch)")
        for op, k, n, bm, bw, bwl, tm, tw, twl, binf, tinf in table:
            extra = f"  (overflowed: bcast {binf}, PyTorch {tinf})" if binf or tinf else ""
            print(f"  {op:>9} {k:>8} {n:4d}  {bm:10.3f} {bw:8.3g}  {tm:12.3f} {tw:8.3g}  "
                  f"{bwl} | {twl}{extra}")
        for n in notes:
            print("note: an input where bcast is less accurate than PyTorch: " + n)
        for f in fails:
            print("MISMATCH accuracy: " + f)
        failures += len(fails)

    # 4. determinism
    if not args.no_determinism and not args.mock:
        configs, n, fails, chunks = determinism(lib, args.quick)
        for f in fails[:20]:
            print("MISMATCH determinism: " + f)
        print(f"\ndeterminism: {n} runs over {len(configs)} configurations ("
              + "; ".join(configs) + f"): {len(fails)} differ; the host scheduler got "
              f"{len(chunks)} threaded calls (chunk counts {sorted(set(chunks))[:8]})")
        failures += len(fails)
    print(f"\n{'FAILED' if failures else 'passed'}: {failures} failures; "
          f"{time.time() - t0:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
