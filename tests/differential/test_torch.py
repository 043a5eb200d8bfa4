#!/usr/bin/env python3
"""Differential test: bcast, called through ctypes, against PyTorch 2.x itself.

Usage: test_torch.py <build dir or libbcast.so> [--cases N] [--seed S] [-j J]
                     [--case I] [--repro K]

Each random case picks one of: the 30 binary ops (plain and, for add/sub,
with alpha), where, addcmul, addcdiv, lerp, clamp, copy_, expand,
broadcast_tensors, broadcast_shapes, sum_to_shape; a form (allocating, out=,
in place); 0-8 dims, empty and 0-dim tensors; all 10 dtypes; inputs laid out
as permuted, sliced, expanded and offset views of larger buffers (wrapped in
place with their strides, so both libraries see the same memory); values
with NaN, infinities, -0.0, subnormals and integer extremes. Every tensor is
a view of one of a few buffers, so written tensors may alias inputs.

The same case runs through torch (on one copy of the buffers) and bcast (on
another), and is compared on:
- status: both succeed or both fail; on failure the message (PyTorch's
  exception text against bc_last_error()) and every buffer untouched;
- warnings (PyTorch's text without its "(Triggered internally ...)" suffix);
- the result's dtype and shape, the strides of expand/broadcast_tensors views
  (and their data pointer), and values: bitwise, any NaN equal to any NaN;
  pow, atan2 and hypot within 1 ulp; for out= and in-place forms every
  buffer is compared whole (so nothing outside the written view changed).
- PyTorch's vector loops fuse multiply-add where its scalar loops do not
  (add/sub with alpha, addcmul, addcdiv, lerp): an element is accepted when
  it matches either path. Both are PyTorch's own: the op is run again on the
  same values laid out contiguously (vector path, padded so no element falls
  in a scalar tail) and with stride 2 (scalar path).

Conventions: bcast takes alpha/value as a double; PyTorch gets a Python int
when the value is integral and fits int64 (as a C or Rust caller of an
integral op means it), a float otherwise. Deliberate differences are listed
in DELIBERATE below, each with its reason (and in docs/fidelity.md); cases
that hit one are counted apart, and bcast's side of them is still checked.

Mismatches are summarised per cause and op, with a PyTorch reproducer for
the first case of each kind; `--case I` reruns one case verbosely.
"""
import argparse
import ctypes
import itertools
import math
import multiprocessing as mp
import os
import random
import re
import sys
import time
import traceback
import warnings

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ops_table import BC_OP, BC_UNARY_OP, UNARY_OPS  # noqa: E402  (generated)

torch.set_num_threads(1)

DT = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
      torch.float16, torch.bfloat16, torch.float32, torch.float64]  # bc_dtype order
CODE = {d: i for i, d in enumerate(DT)}
FLOATS = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
INTS = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
BITS = {torch.float16: torch.int16, torch.bfloat16: torch.int16, torch.float32: torch.int32,
        torch.float64: torch.int64}

# bc_status values
OK, E_ARG, E_BCAST, E_SHAPE, E_DTYPE, E_OVERLAP = 0, 1, 2, 3, 4, 5

# Deliberate differences: what bcast does instead, and why. A case is put in
# one of these only after bcast's own behaviour was checked (status, text,
# untouched buffers).
DELIBERATE = {
    "out-resize": "out= with another shape than the broadcast shape: PyTorch resizes `out` "
                  "(warning if it had elements); bcast never resizes a caller's tensor and "
                  "fails with PyTorch's in-place text (BC_ERR_SHAPE_MISMATCH).",
    "hidden-overlap": "the written tensor really overlaps itself or an input, but PyTorch's "
                      "cheap check cannot tell (a non-dense layout: 'TooHard') and computes "
                      "an order-dependent result; bcast checks exactly and refuses "
                      "(BC_ERR_OVERLAP).",
    "float-to-int": "a floating value outside the integer dtype's range (or NaN) converted to "
                    "it: undefined behaviour in C++, PyTorch gives whatever the CPU gives; "
                    "such elements are not compared.",
    "negative-size": "expand to a negative size next to a size 0 (zeros(1, 0).expand(-2, 0)): "
                     "PyTorch's element count does not overflow, so it returns a view with a "
                     "negative size; bcast never makes a tensor with a negative size and fails "
                     "with PyTorch's text for the other negative sizes.",
    "torch-inexact": "a unary op where PyTorch's result is off by more than the test's "
                     "tolerance (SLEEF/VML error, halves computed in float32 then rounded on "
                     "its scalar path, cancellation in gelu/silu): bcast's element is checked "
                     "against mpmath instead, within 1 ulp of the correctly rounded value "
                     "(sqrt: equal to it; rsqrt: 1/sqrt with two IEEE roundings).",
    "sum-accumulation": "sum_to_shape accumulates floating sums in float64 (PyTorch: in the "
                        "dtype, pairwise): sums are compared within the rounding error of "
                        "PyTorch's own summation.",
}

# Ops whose PyTorch result depends on the loop path (fused or not).
FUSED = {"add_alpha", "sub_alpha", "addcmul", "addcdiv", "lerp"}
CLOSE = {"pow", "atan2", "hypot"}

# Unary ops: the torch function and its parameters' names (the op table's
# params). Exact ops must match PyTorch's bits; the transcendentals (bcast:
# within 1 ulp of the correctly rounded result; PyTorch: SLEEF/VML, 1 to 3.5
# ulp by op and CPU) within UNARY_ULPS of PyTorch in the result's dtype.
F = torch.nn.functional
UNARY = {
    "relu": torch.relu, "hardtanh": F.hardtanh, "gelu": F.gelu, "silu": F.silu, "mish": F.mish,
    "softplus": F.softplus, "hardsigmoid": F.hardsigmoid, "hardswish": F.hardswish,
    "elu": F.elu, "leaky_relu": F.leaky_relu,
}
UNARY_EXACT = {"neg", "abs", "sign", "square", "relu", "hardtanh", "floor", "ceil", "round",
               "trunc", "frac", "nan_to_num", "bitwise_not", "sqrt", "rsqrt", "reciprocal",
               "hardsigmoid", "hardswish", "leaky_relu", "isnan", "isinf", "isposinf",
               "isneginf", "isfinite", "signbit", "logical_not"}
UNARY_ULPS = 4  # float32/float64; halves: 1 ulp of the half type


def mp_unary(op, x, vals, given):
    """The exact value of a unary op at the float x (mpmath, 60 digits), or None."""
    import mpmath as mp
    mp.mp.dps = 60
    if x != x:
        return float("nan")
    P = lambda k, d: vals[k] if given >> k & 1 else d  # noqa: E731
    X = mp.mpf(x)
    try:
        if op == "sigmoid":
            return 1 / (1 + mp.exp(-X))
        if op == "silu":
            return X / (1 + mp.exp(-X))
        if op == "logit":
            eps = P(0, None)
            if eps is not None and eps >= 0:
                X = min(max(X, mp.mpf(eps)), 1 - mp.mpf(eps))
            return mp.log(X / (1 - X))
        if op == "gelu":
            if P(0, 0.0) == 1.0:
                y = mp.sqrt(2 / mp.pi) * (X + mp.mpf("0.044715") * X**3)
                return X / (1 + mp.exp(-2 * y))  # x/2 * (1 + tanh(y)), without cancellation
            return X / 2 * mp.erfc(-X / mp.sqrt(2))
        if op == "mish":
            return X * mp.tanh(mp.log1p(mp.exp(X)))
        if op == "softplus":
            beta, th = P(0, 1.0), P(1, 20.0)
            return X if x * beta > th else mp.log1p(mp.exp(beta * X)) / beta
        if op == "elu":
            return X if x > 0 else P(0, 1.0) * mp.expm1(X)
        if op in ("sqrt", "rsqrt", "reciprocal"):
            return {"sqrt": mp.sqrt, "rsqrt": lambda v: 1 / mp.sqrt(v),
                    "reciprocal": lambda v: 1 / v}[op](X)
        f = {"exp2": lambda v: mp.power(2, v), "asin": mp.asin, "acos": mp.acos,
             "atan": mp.atan, "asinh": mp.asinh, "acosh": mp.acosh, "atanh": mp.atanh}.get(op)
        return (f or getattr(mp, op))(X)
    except (ValueError, ZeroDivisionError, OverflowError):
        return None


def mp_to_dtype(v, dtype):
    """An mpmath value correctly rounded to dtype (halves: through float32, as bcast's
    policy: the correctly rounded float32 result rounded once)."""
    import mpmath as mp
    if v is None:
        return None
    if isinstance(v, mp.mpc):
        return float("nan")
    if mp.isinf(v) or mp.isnan(v):
        f = float(v)
    else:
        mp.mp.prec = 53 if dtype == torch.float64 else 24
        f = float(mp.mpf(v))  # rounded to the precision (exponent range: float64's)
        mp.mp.dps = 60
    t = torch.tensor([f], dtype=torch.float64)
    if dtype == torch.float64:
        return t
    return t.to(torch.float32).to(dtype)


def unary_policy_ok(op, vals, given, x, got, dtype):
    """bcast's own policy at one element: within 1 ulp of the correctly rounded value
    (exact ops sqrt: equal; rsqrt: 1/sqrt with two IEEE roundings)."""
    ref = mp_to_dtype(mp_unary(op, x, vals, given), dtype)
    if ref is None:
        return False
    g = torch.tensor([got], dtype=torch.float64).to(dtype)
    if op == "rsqrt":  # 1/sqrt(x), both steps rounded (halves: in float32, then once)
        ct = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
        s = mp_to_dtype(mp_unary("sqrt", x, vals, given), ct)
        ref = (1 / s).to(dtype)
    if torch.isnan(ref).all():
        return bool(torch.isnan(g).all())
    tol = 0 if op in ("sqrt", "rsqrt", "reciprocal") else 1
    return not bool(bad_elements(g, ref, close=tol).any()) if tol else \
        not bool(bad_elements(g, ref).any())
UNARY_INPLACE = {"relu": "relu_", "hardtanh": None, "gelu": None, "silu": None, "mish": None,
                 "softplus": None, "hardsigmoid": None, "hardswish": None, "elu": None,
                 "leaky_relu": None, "isnan": None, "isinf": None, "isposinf": None,
                 "isneginf": None, "isfinite": None, "signbit": None}

BINARY = {  # bc name: (torch function, in-place method or None, extra kwargs)
    "add": (torch.add, "add_", {}), "sub": (torch.sub, "sub_", {}),
    "mul": (torch.mul, "mul_", {}), "div": (torch.div, "div_", {}),
    "div_trunc": (torch.div, "div_", {"rounding_mode": "trunc"}),
    "div_floor": (torch.div, "div_", {"rounding_mode": "floor"}),
    "remainder": (torch.remainder, "remainder_", {}), "fmod": (torch.fmod, "fmod_", {}),
    "pow": (torch.pow, "pow_", {}), "maximum": (torch.maximum, None, {}),
    "minimum": (torch.minimum, None, {}), "fmax": (torch.fmax, None, {}),
    "fmin": (torch.fmin, None, {}), "atan2": (torch.atan2, "atan2_", {}),
    "hypot": (torch.hypot, "hypot_", {}), "copysign": (torch.copysign, "copysign_", {}),
    "eq": (torch.eq, "eq_", {}), "ne": (torch.ne, "ne_", {}), "lt": (torch.lt, "lt_", {}),
    "le": (torch.le, "le_", {}), "gt": (torch.gt, "gt_", {}), "ge": (torch.ge, "ge_", {}),
    "logical_and": (torch.logical_and, "logical_and_", {}),
    "logical_or": (torch.logical_or, "logical_or_", {}),
    "logical_xor": (torch.logical_xor, "logical_xor_", {}),
    "bitwise_and": (torch.bitwise_and, "bitwise_and_", {}),
    "bitwise_or": (torch.bitwise_or, "bitwise_or_", {}),
    "bitwise_xor": (torch.bitwise_xor, "bitwise_xor_", {}),
    "bitwise_left_shift": (torch.bitwise_left_shift, "bitwise_left_shift_", {}),
    "bitwise_right_shift": (torch.bitwise_right_shift, "bitwise_right_shift_", {}),
}
assert set(BINARY) == set(BC_OP), "ops_table.py and this test disagree on the op list"


def number(v):
    """The Python number PyTorch gets for bcast's double alpha/value."""
    if isinstance(v, float) and math.isfinite(v) and v == int(v) and abs(v) < 2.0 ** 63:
        return int(v)
    return v


# ---------------------------------------------------------------- the library

class UnaryParams(ctypes.Structure):
    _fields_ = [("value", ctypes.c_double * 3), ("given", ctypes.c_uint)]


class Lib:
    def __init__(self, path):
        if os.path.isdir(path):
            for root, _, files in os.walk(path):
                if "libbcast.so" in files:
                    path = os.path.join(root, "libbcast.so")
                    break
            else:
                raise SystemExit(f"libbcast.so not found under {path}")
        self.lib = lib = ctypes.CDLL(path)
        P, sz, dbl = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_double
        i64p = ctypes.POINTER(ctypes.c_int64)
        PP = ctypes.POINTER(P)
        sig = {
            "bc_last_error": ([], ctypes.c_char_p),
            "bc_tensor_wrap": ([ctypes.c_int, i64p, i64p, sz, P, sz, P, P, PP], ctypes.c_int),
            "bc_tensor_free": ([P], None),
            "bc_tensor_zeros": ([ctypes.c_int, i64p, sz, PP], ctypes.c_int),
            "bc_tensor_ndim": ([P], sz), "bc_tensor_shape": ([P], i64p),
            "bc_tensor_strides": ([P], i64p), "bc_tensor_dtype": ([P], ctypes.c_int),
            "bc_tensor_data": ([P], P), "bc_tensor_numel": ([P], ctypes.c_int64),
            "bc_tensor_copy_to": ([P, P, sz], ctypes.c_int),
            "bc_binary": ([ctypes.c_int, P, P, PP], ctypes.c_int),
            "bc_binary_out": ([ctypes.c_int, P, P, P], ctypes.c_int),
            "bc_binary_": ([ctypes.c_int, P, P], ctypes.c_int),
            "bc_binary_alpha": ([ctypes.c_int, P, P, dbl, PP], ctypes.c_int),
            "bc_binary_alpha_out": ([ctypes.c_int, P, P, dbl, P], ctypes.c_int),
            "bc_binary_alpha_": ([ctypes.c_int, P, P, dbl], ctypes.c_int),
            "bc_where": ([P, P, P, PP], ctypes.c_int),
            "bc_where_out": ([P, P, P, P], ctypes.c_int),
            "bc_where_": ([P, P, P], ctypes.c_int),
            "bc_lerp": ([P, P, P, PP], ctypes.c_int),
            "bc_lerp_out": ([P, P, P, P], ctypes.c_int),
            "bc_lerp_": ([P, P, P], ctypes.c_int),
            "bc_clamp": ([P, P, P, PP], ctypes.c_int),
            "bc_clamp_out": ([P, P, P, P], ctypes.c_int),
            "bc_clamp_": ([P, P, P], ctypes.c_int),
            "bc_copy_": ([P, P], ctypes.c_int),
            "bc_expand": ([P, i64p, sz, PP], ctypes.c_int),
            "bc_broadcast_tensors": ([PP, sz, PP, sz], ctypes.c_int),
            "bc_broadcast_shapes_n": ([ctypes.POINTER(i64p), ctypes.POINTER(sz), sz, i64p, sz,
                                       ctypes.POINTER(sz)], ctypes.c_int),
            "bc_sum_to_shape": ([P, i64p, sz, PP], ctypes.c_int),
            "bc_set_num_threads": ([ctypes.c_int], ctypes.c_int),
            "bc_unary_ex": ([ctypes.c_int, P, P, PP], ctypes.c_int),
            "bc_unary_ex_out": ([ctypes.c_int, P, P, P], ctypes.c_int),
            "bc_unary_ex_": ([ctypes.c_int, P, P], ctypes.c_int),
        }
        for name in ("addcmul", "addcdiv"):
            sig[f"bc_{name}"] = ([P, P, P, dbl, PP], ctypes.c_int)
            sig[f"bc_{name}_out"] = ([P, P, P, dbl, P], ctypes.c_int)
            sig[f"bc_{name}_"] = ([P, P, P, dbl], ctypes.c_int)
        for name, (args, res) in sig.items():
            f = getattr(lib, name)
            f.argtypes, f.restype = args, res
        self.warnings = []
        self._handler = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_void_p)(
            lambda msg, _: self.warnings.append(msg.decode()))
        lib.bc_set_warning_handler.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        lib.bc_set_warning_handler(ctypes.cast(self._handler, ctypes.c_void_p), None)
        lib.bc_set_num_threads(1)

    def error(self):
        return self.lib.bc_last_error().decode()

    def wrap(self, view):
        """A bcast tensor over a torch view's memory, with its strides (no copy)."""
        nd = view.dim()
        shape = (ctypes.c_int64 * max(nd, 1))(*view.shape)
        strides = (ctypes.c_int64 * max(nd, 1))(*view.stride())
        es = view.element_size()
        total = view.untyped_storage().nbytes()
        off = view.storage_offset() * es
        ptr = view.data_ptr() if total else None
        out = ctypes.c_void_p()
        st = self.lib.bc_tensor_wrap(CODE[view.dtype], shape, strides, nd, ptr,
                                     max(total - off, 0), None, None, ctypes.byref(out))
        if st != OK:
            raise RuntimeError(f"wrapping failed: {st} {self.error()}")
        return out

    def meta(self, t):
        nd = self.lib.bc_tensor_ndim(t)
        shp = tuple(self.lib.bc_tensor_shape(t)[i] for i in range(nd))
        strides = tuple(self.lib.bc_tensor_strides(t)[i] for i in range(nd))
        return DT[self.lib.bc_tensor_dtype(t)], shp, strides

    def read(self, t):
        dt, shp, _ = self.meta(t)
        res = torch.empty(shp, dtype=dt)
        st = self.lib.bc_tensor_copy_to(t, res.data_ptr() or None,
                                        max(res.numel() * res.element_size(), 1))
        if st != OK:
            raise RuntimeError(f"copy_to failed: {self.error()}")
        return res

    def free(self, *ts):
        for t in ts:
            if t:
                self.lib.bc_tensor_free(t)


# ---------------------------------------------------------------- values

def random_values(rng, dt, n):
    """n values of dtype dt, rich in special values."""
    if n == 0:
        return torch.empty(0, dtype=dt)
    if dt == torch.bool:
        return torch.tensor([rng.random() < 0.5 for _ in range(n)], dtype=dt)
    if dt.is_floating_point:
        fi = torch.finfo(dt)
        vals = []
        for _ in range(n):
            r = rng.random()
            if r < 0.12:
                vals.append(rng.choice([math.nan, math.inf, -math.inf, 0.0, -0.0, 1.0, -1.0,
                                        0.5, fi.max, -fi.max, fi.tiny, fi.tiny / 4, -fi.tiny / 8,
                                        fi.eps]))
            elif r < 0.45:
                vals.append(float(rng.randint(-12, 12)))
            elif r < 0.5:
                vals.append(rng.uniform(-1, 1) * 2.0 ** rng.randint(-160, 160))
            else:
                vals.append(rng.uniform(0.5, 1.0) * 2.0 ** rng.randint(-8, 12) * rng.choice([-1, 1]))
        return torch.tensor(vals, dtype=torch.float64).to(dt)
    info = torch.iinfo(dt)
    vals = []
    for _ in range(n):
        r = rng.random()
        if r < 0.15:
            vals.append(rng.choice([info.min, info.max, 0, 1, info.max - 1, info.min + 1]
                                   + ([-1] if info.min < 0 else [])))
        elif r < 0.65:
            vals.append(rng.randint(max(info.min, -20), min(info.max, 20)))
        else:
            vals.append(rng.randint(info.min, info.max))
    return torch.tensor(vals, dtype=dt)


# ---------------------------------------------------------------- layouts

class Case:
    """Buffers (1-D torch tensors) and views of them (base, size, stride, offset)."""

    def __init__(self, rng):
        self.rng = rng
        self.bases = []
        self.views = []  # (base index, size, stride, offset)
        self.desc = []

    def base(self, dt, n):
        self.bases.append(random_values(self.rng, dt, n))
        return len(self.bases) - 1

    def view(self, dt, shape, writable=False, base=None, layout=None):
        """A new view of `shape`: contiguous, permuted, sliced, offset or (inputs) expanded."""
        rng = self.rng
        nd = len(shape)
        kinds = ["contiguous", "permuted", "sliced", "offset"] + ([] if writable else ["expanded"])
        kind = layout or (rng.choice(kinds) if rng.random() < 0.55 else "contiguous")
        if nd == 0 and kind in ("permuted", "sliced", "expanded"):
            kind = "offset"
        perm = list(range(nd))
        steps = [1] * nd
        zero = [False] * nd
        offset = 0
        if kind == "permuted":
            rng.shuffle(perm)
        elif kind == "sliced":
            steps = [rng.choice([1, 2, 3]) for _ in range(nd)]
            rng.shuffle(perm) if rng.random() < 0.3 else None
        elif kind == "expanded":
            zero = [s > 1 and rng.random() < 0.5 for s in shape]
            if not any(zero):
                zero = [s != 1 and rng.random() < 0.7 for s in shape]
        if kind in ("offset", "sliced") or rng.random() < 0.2:
            offset = rng.randint(1, 5)
        stride = [0] * nd
        acc = 1
        for d in reversed(perm):
            if zero[d]:
                stride[d] = 0
                continue
            stride[d] = acc * steps[d]
            acc *= max(shape[d], 1) * steps[d]
        if any(s == 0 for s in shape):
            span = 0
        else:
            span = sum((s - 1) * st for s, st in zip(shape, stride)) + 1
        if base is None:
            base = self.base(dt, offset + span + rng.randint(0, 3))
        self.views.append((base, tuple(shape), tuple(stride), offset))
        self.desc.append(kind)
        return len(self.views) - 1

    def correlate(self, views):
        """Gives one input's buffer values taken from another's (equal, negated,
        or zero of either sign), so that ties, +-0 pairs and x vs -x occur."""
        rng = self.rng
        bs = [self.views[v][0] for v in views if v is not None]
        bs = [b for b in dict.fromkeys(bs)]
        if len(bs) < 2:
            return
        src, dst = rng.sample(bs, 2)
        s, d = self.bases[src], self.bases[dst]
        if d.dtype == torch.bool or s.dtype.is_floating_point != d.dtype.is_floating_point:
            return
        n = len(d)
        if n == 0 or len(s) == 0:
            return
        vals = s.repeat(n // len(s) + 1)[:n].to(torch.float64)
        how = rng.choice(["same", "negated", "zeros"])
        if how == "negated":
            vals = -vals
        elif how == "zeros":
            vals = torch.where(torch.rand(n, generator=torch.Generator().manual_seed(
                rng.randrange(1 << 30))) < 0.5, vals * 0, -vals * 0)
        if not d.dtype.is_floating_point:
            info = torch.iinfo(d.dtype)
            vals = vals.clamp(info.min, info.max)
        self.bases[dst] = vals.to(d.dtype)

    def alias(self, of, shift=0):
        """Another view with the same layout as view `of`, shifted by `shift` elements."""
        b, size, stride, off = self.views[of]
        n = len(self.bases[b])
        if shift and off + shift >= 0:
            span = (sum((s - 1) * st for s, st in zip(size, stride)) + 1) if all(size) else 0
            if off + shift + span <= n:
                off += shift
        self.views.append((b, size, stride, off))
        self.desc.append("alias" if shift == 0 else f"alias{shift:+d}")
        return len(self.views) - 1

    def materialise(self):
        """Fresh copies of the buffers and the views over them."""
        bases = [b.clone() for b in self.bases]
        views = [bases[b].as_strided(size, stride, off) for b, size, stride, off in self.views]
        return bases, views

    def layout_text(self):
        out = []
        for i, ((b, size, stride, off), kind) in enumerate(zip(self.views, self.desc)):
            out.append(f"t{i}: {str(self.bases[b].dtype)[6:]}{list(size)} {kind} stride={list(stride)}"
                       f" offset={off} buffer={b}")
        return "; ".join(out)


def random_shape(rng, max_numel=256):
    nd = rng.choice([0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 7, 8])
    shape = []
    for _ in range(nd):
        r = rng.random()
        shape.append(0 if r < 0.03 else 1 if r < 0.3 else rng.randint(2, 6))
    while math.prod(shape) > max_numel:
        i = rng.randrange(nd)
        shape[i] = max(1, shape[i] // 2)
    if rng.random() < 0.02 and nd >= 1:  # long rows: vector bodies and threads
        shape[-1] = rng.randint(64, 5000)
        for i in range(nd - 1):
            shape[i] = min(shape[i], 2)
    return shape


def derive(rng, full, mismatch=0.0):
    """A shape that broadcasts to `full` (or, with probability `mismatch`, may not)."""
    keep = rng.randint(0, len(full)) if rng.random() < 0.5 else len(full)
    s = list(full[len(full) - keep:])
    s = [1 if rng.random() < 0.3 else d for d in s]
    if s and rng.random() < mismatch:
        i = rng.randrange(len(s))
        s[i] = s[i] + rng.randint(1, 3)
    return s


# ---------------------------------------------------------------- comparison

def ordered(t):
    """Float bits mapped to integers that order like the values (for ulp distances)."""
    i = t.contiguous().view(BITS[t.dtype]).to(torch.int64)
    sign_bit = {torch.int16: 1 << 15, torch.int32: 1 << 31, torch.int64: 1 << 63}[BITS[t.dtype]]
    if BITS[t.dtype] == torch.int64:
        return torch.where(i < 0, -(i & (sign_bit - 1)) - 1, i)  # float64: keep in int64
    return torch.where(i < 0, -(i & (sign_bit - 1)) - 1, i)


def bad_elements(got, want, close=False, alts=(), close_dtype=None):
    """Boolean mask of elements that differ (any NaN equals any NaN; -0.0 != 0.0).

    close: within 1 ulp of `close_dtype` (the op's result dtype, when an out=
    tensor of another dtype holds it), else of the values' own dtype."""
    if got.dtype != want.dtype or got.shape != want.shape:
        raise ValueError("shape/dtype")
    if not got.dtype.is_floating_point:
        return got != want
    gb = got.contiguous().view(BITS[got.dtype])

    def same(w):
        eq = gb == w.contiguous().view(BITS[w.dtype])
        eq |= torch.isnan(got) & torch.isnan(w)
        if close:
            g2, w2 = got, w
            if close_dtype is not None and close_dtype != got.dtype and close_dtype.is_floating_point:
                g2, w2 = got.to(close_dtype), w.to(close_dtype)
            d = (ordered(g2) - ordered(w2)).abs()
            eq |= (d <= int(close)) & (torch.isfinite(got) | torch.isfinite(w))
        return eq

    ok = same(want)
    for a in alts:
        ok |= same(a)
    return ~ok


class Mismatch(Exception):
    def __init__(self, kind, detail, index=None):
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.index = index


def strip_torch(msg):
    msg = re.sub(r"\s*\(Triggered internally at [^)]*\)\.?$", "", msg.strip())
    return msg


# ---------------------------------------------------------------- case makers

def scalar_choice(rng):
    return rng.choice([1.0, 1.0, 0.0, -1.0, 2.0, 3.0, 0.5, -2.5, 0.1, 300.0, -129.0, 70000.0,
                       1e39, -1e39, math.nan, math.inf, 2.0 ** 40, 1e10, 1.7e308,
                       rng.uniform(-4, 4)])


def op_dtype_pair(rng):
    da = rng.choice(DT)
    r = rng.random()
    db = da if r < 0.55 else rng.choice(DT)
    return da, db


def wrong_out_shape(rng, rs, p):
    """out='s shape: the broadcast shape rs, or with probability p another:
    rs's dims changed, or a dim put in front (which a changed 0-dim shape
    never gets: every input 0-dim with an out of shape [2] was never tried)."""
    if rng.random() >= p:
        return rs
    if rng.random() < 0.3:
        return [rng.choice([1, 2, 3])] + list(rs)
    return derive(rng, rs, 0.5)


def make_binary(rng, c, op, alpha=None):
    full = random_shape(rng)
    mismatch = 0.06
    sa, sb = derive(rng, full, mismatch), derive(rng, full, mismatch)
    if rng.random() < 0.5:
        sa = list(full)
    da, db = op_dtype_pair(rng)
    form = rng.choice(["alloc", "alloc", "out", "inplace"])
    a = c.view(da, sa, writable=form == "inplace")
    if form == "inplace" and rng.random() < 0.08:
        b = c.alias(a, rng.choice([0, 0, 1, -1]))
        sb = sa
    else:
        b = c.view(db, sb)
    if rng.random() < 0.25:
        c.correlate([a, b])
    # Keep C++ undefined behaviour out: integer MIN / -1 traps in PyTorch.
    fix_int_division(c, op, [a, b])
    o = None
    if form == "out":
        try:
            rs = list(torch.broadcast_shapes(tuple(sa), tuple(sb)))
        except RuntimeError:
            rs = list(full)
        rs = wrong_out_shape(rng, rs, 0.05)
        od = rng.choice(DT) if rng.random() < 0.4 else None
        if rng.random() < 0.08:
            o = c.alias(rng.choice([a, b]), rng.choice([0, 0, 1]))
        else:
            o = c.view(od or da, rs, writable=rng.random() > 0.05)
    return dict(kind="binary", op=op, alpha=alpha, form=form, ins=[a, b], out=o)


def fix_int_division(c, op, ins):
    if op not in ("div_trunc", "div_floor", "remainder", "fmod", "div"):
        return
    for i in ins[:1]:
        base = c.bases[c.views[i][0]]
        if base.dtype in (torch.int32, torch.int64):
            base[base == torch.iinfo(base.dtype).min] = torch.iinfo(base.dtype).min + 1


def make_ternary(rng, c, op):
    full = random_shape(rng)
    shapes = [derive(rng, full, 0.04) for _ in range(3)]
    shapes[rng.randrange(3)] = list(full)
    form = rng.choice(["alloc", "alloc", "out", "inplace"])
    if op == "where":
        cd = torch.bool if rng.random() < 0.85 else rng.choice([torch.uint8, torch.int32,
                                                                 torch.float32])
        da, db = op_dtype_pair(rng)
        dts = [cd, da, db]
    elif op == "lerp":
        d = rng.choice(FLOATS + [torch.int32]) if rng.random() < 0.95 else rng.choice(DT)
        dts = [d, d, d]
        r = rng.random()
        if r < 0.15:
            dts[2] = rng.choice(FLOATS)
            if rng.random() < 0.7:
                shapes[2] = []  # a 0-dim weight of another dtype
        elif r < 0.2:
            dts[1] = rng.choice(FLOATS)
    elif op == "clamp":
        d = rng.choice(DT)
        dts = [d, d if rng.random() < 0.6 else rng.choice(DT), d if rng.random() < 0.6
               else rng.choice(DT)]
    else:  # addcmul, addcdiv
        d = rng.choice(DT)
        dts = [d] + [d if rng.random() < 0.6 else rng.choice(DT) for _ in range(2)]
    ins = []
    missing = None
    if op == "clamp":
        r = rng.random()
        missing = 1 if r < 0.25 else 2 if r < 0.5 else 3 if r < 0.52 else None
    # where_(self, cond, other): the written tensor is where's second operand.
    written = 1 if op == "where" else 0
    for i in range(3):
        if op == "clamp" and missing is not None and (i == missing or missing == 3 and i > 0):
            ins.append(None)
            continue
        ins.append(c.view(dts[i], shapes[i], writable=form == "inplace" and i == written))
    if rng.random() < 0.25:
        c.correlate(ins[1:] if op == "where" else ins)
    o = None
    if form == "out":
        try:
            rs = list(torch.broadcast_shapes(*[tuple(s) for s in shapes]))
        except RuntimeError:
            rs = list(full)
        rs = wrong_out_shape(rng, rs, 0.04)
        od = rng.choice(DT) if rng.random() < 0.3 else dts[written]
        o = c.view(od, rs, writable=True)
    value = None
    if op in ("addcmul", "addcdiv"):
        value = 1.0 if rng.random() < 0.3 else scalar_choice(rng)
        fix_int_division(c, "div", [ins[2]])
    return dict(kind="ternary", op=op, alpha=value, form=form, ins=ins, out=o)


def unary_params(rng, op):
    """Random parameters for a unary op: (values, given bits) in the table's order."""
    names = op["params"]
    vals, given = [0.0, 0.0, 0.0], 0
    for k, name in enumerate(names):
        if rng.random() < 0.5:
            continue
        given |= 1 << k
        if name == "approximate":
            v = rng.choice([0.0, 1.0])
        elif name in ("min_val", "max_val"):
            v = rng.choice([-2.5, -1.0, -0.5, 0.0, 0.25, 1.0, 3.0])
        elif name == "eps":
            v = rng.choice([0.0, 1e-6, 0.1, 0.25, -0.5])
        elif name in ("posinf", "neginf", "nan"):
            v = rng.choice([0.0, -1.5, 7.0, 1e10, 1e300])
        elif name == "threshold":
            v = rng.choice([0.0, 1.0, 20.0, 5.5])
        else:
            v = rng.choice([0.01, 0.2, 1.0, 2.0, -0.5, 0.5])
        vals[k] = v
    if "min_val" in names and vals[0] > vals[1] and given == 3:
        vals[0], vals[1] = vals[1], vals[0]
    return vals, given


def make_unary(rng, c):
    op = rng.choice(UNARY_OPS)
    full = random_shape(rng)
    d = rng.choice(DT)
    form = rng.choice(["alloc", "alloc", "out", "inplace"])
    a = c.view(d, derive(rng, full, 0.0) if rng.random() < 0.3 else list(full),
               writable=form == "inplace")
    params = unary_params(rng, op) if op["params"] else ([0.0] * 3, 0)
    o = None
    if form == "out":
        rs = wrong_out_shape(rng, list(c.views[a][1]), 0.05)
        od = rng.choice(DT) if rng.random() < 0.4 else None
        if rng.random() < 0.06:
            o = c.alias(a, rng.choice([0, 0, 1]))
        else:
            o = c.view(od or d, rs, writable=rng.random() > 0.05)
    return dict(kind="unary", op=op["name"], params=params, form=form, ins=[a], out=o)


def make_copy(rng, c):
    full = random_shape(rng)
    sd = list(full)
    ss = derive(rng, full, 0.05)
    dd, ds = rng.choice(DT), rng.choice(DT)
    dst = c.view(dd, sd, writable=rng.random() > 0.05)
    r = rng.random()
    if r < 0.08:
        src = c.alias(dst, rng.choice([0, 0, 1]))
    elif r < 0.12:
        src = dst  # x.copy_(x)
    else:
        src = c.view(ds, ss)
    return dict(kind="copy", op="copy_", form="inplace", ins=[src], out=dst)


def make_expand(rng, c):
    shape = random_shape(rng, 64)
    d = rng.choice(DT)
    t = c.view(d, shape)
    target = list(shape)
    if rng.random() < 0.6:
        target = [rng.randint(1, 3) for _ in range(rng.randint(0, 2))] + target
    target = [(rng.randint(2, 4) if s == 1 and rng.random() < 0.5 else s) for s in target]
    r = rng.random()
    if r < 0.2 and target:
        i = rng.randrange(len(target))
        target[i] = -1
    elif r < 0.28 and target:
        i = rng.randrange(len(target))
        target[i] = rng.choice([-2, -5, 0, target[i] + 1])
    elif r < 0.32:
        target = target[1:]
    return dict(kind="expand", op="expand", form="view", ins=[t], target=target)


def make_broadcast_tensors(rng, c):
    full = random_shape(rng, 64)
    n = rng.randint(1, 4)
    ins = [c.view(rng.choice(DT), derive(rng, full, 0.05)) for _ in range(n)]
    return dict(kind="broadcast_tensors", op="broadcast_tensors", form="view", ins=ins)


def make_broadcast_shapes(rng, c):
    full = random_shape(rng, 10 ** 6)
    n = rng.randint(0, 4)
    shapes = [derive(rng, full, 0.1) for _ in range(n)]
    r = rng.random()
    if r < 0.05 and shapes:
        shapes[0] = [2 ** 62, 4]
    elif r < 0.08 and shapes:
        shapes[-1] = shapes[-1] + [-1]
    elif r < 0.1:
        shapes.append([2 ** 40, 2 ** 40])
    return dict(kind="broadcast_shapes", op="broadcast_shapes", form="shapes", shapes=shapes)


def make_sum_to(rng, c):
    full = random_shape(rng)
    d = rng.choice(DT)
    t = c.view(d, full)
    target = derive(rng, full, 0.05)
    if rng.random() < 0.03 and target:
        target[0] = -1
    return dict(kind="sum_to_shape", op="sum_to_shape", form="alloc", ins=[t], target=target)


def make_case(seed, i):
    rng = random.Random(seed * 1000003 + i)
    c = Case(rng)
    r = rng.random()
    if r < 0.52:
        op = rng.choice(sorted(BC_OP))
        if op in ("add", "sub") and rng.random() < 0.5:
            spec = make_binary(rng, c, op, scalar_choice(rng))
        else:
            spec = make_binary(rng, c, op)
    elif r < 0.67:
        spec = make_unary(rng, c)
    elif r < 0.82:
        spec = make_ternary(rng, c, rng.choice(["where", "addcmul", "addcdiv", "lerp", "clamp"]))
    elif r < 0.87:
        spec = make_copy(rng, c)
    elif r < 0.91:
        spec = make_expand(rng, c)
    elif r < 0.94:
        spec = make_broadcast_tensors(rng, c)
    elif r < 0.97:
        spec = make_broadcast_shapes(rng, c)
    else:
        spec = make_sum_to(rng, c)
    spec["case"] = c
    return spec


# ---------------------------------------------------------------- running

def op_label(spec):
    op = spec["op"]
    if spec["kind"] == "binary" and spec["alpha"] is not None:
        op += "_alpha"
    return op


def torch_call(spec, views, layout=None):
    """Runs the case's op in torch on `views` (inputs, then out). Returns the result."""
    kind, op, form = spec["kind"], spec["op"], spec["form"]
    ins = [None if i is None else views[i] for i in spec.get("ins", [])]
    out = views[spec["out"]] if spec.get("out") is not None else None
    val = spec.get("alpha")
    kw = {}
    if kind == "binary":
        fn, method, extra = BINARY[op]
        kw.update(extra)
        if val is not None:
            kw["alpha"] = number(val)
        a, b = ins
        if form == "alloc":
            return fn(a, b, **kw)
        if form == "out":
            return fn(a, b, out=out, **kw)
        if method is None:
            return fn(a, b, out=a, **kw)
        return getattr(a, method)(b, **kw)
    if kind == "ternary":
        x, y, z = ins
        if op == "where":
            if form == "alloc":
                return torch.where(x, y, z)
            return torch.where(x, y, z, out=out if form == "out" else y)
        if op == "clamp":
            if form == "alloc":
                return torch.clamp(x, min=y, max=z)
            if form == "out":
                return torch.clamp(x, min=y, max=z, out=out)
            return x.clamp_(min=y, max=z)
        if op == "lerp":
            if form == "alloc":
                return torch.lerp(x, y, z)
            if form == "out":
                return torch.lerp(x, y, z, out=out)
            return x.lerp_(y, z)
        fn = getattr(torch, op)
        if form == "alloc":
            return fn(x, y, z, value=number(val))
        if form == "out":
            return fn(x, y, z, value=number(val), out=out)
        return getattr(x, op + "_")(y, z, value=number(val))
    if kind == "unary":
        x = ins[0]
        info = next(u for u in UNARY_OPS if u["name"] == op)
        vals, given = spec["params"]
        for k, name in enumerate(info["params"]):
            if given >> k & 1:
                v = vals[k]
                kw[name] = ("none", "tanh")[int(v)] if name == "approximate" else v
        fn = UNARY.get(op) or getattr(torch, op)
        if op == "hardtanh" and kw.get("min_val", -1.0) > kw.get("max_val", 1.0):
            # F.hardtanh's check, which bcast makes in every form (the ATen op
            # behind out= and in place has none).
            raise ValueError("min_val cannot be greater than max_val")
        if form == "alloc":
            return fn(x, **kw)
        if form == "out":
            if op == "relu" and x.dtype == torch.bool:  # relu's own check first
                return torch.relu(x)
            if op in UNARY:  # torch.nn.functional has no out=: its ATen op
                return getattr(torch._C._nn, op)(x, **kw, out=out) if op != "relu" \
                    else torch.clamp_min(x, 0, out=out)
            if op in ("isnan", "isinf", "isfinite"):  # no out= in PyTorch: bool only in bcast
                if out.dtype != torch.bool:
                    raise RuntimeError(f"{op} does not support non-boolean outputs.")
                return out.copy_(fn(x))
            return fn(x, **kw, out=out)
        m = UNARY_INPLACE.get(op, op + "_")
        if m is None:  # through out=x, as PyTorch's functional inplace=True does
            if op in UNARY:
                return getattr(torch._C._nn, op)(x, **kw, out=x) if op != "relu" \
                    else torch.clamp_min(x, 0, out=x)
            if x.dtype != torch.bool:
                raise RuntimeError(f"{op} does not support non-boolean outputs.")
            return x.copy_(fn(x))
        return getattr(x, m)(**kw)
    if kind == "copy":
        return out.copy_(ins[0])
    if kind == "expand":
        return ins[0].expand(spec["target"])
    if kind == "broadcast_tensors":
        return torch.broadcast_tensors(*ins)
    if kind == "sum_to_shape":
        return ins[0].sum_to_size(spec["target"])
    if kind == "broadcast_shapes":
        return torch.broadcast_shapes(*[tuple(s) for s in spec["shapes"]])
    raise AssertionError(kind)


def bcast_call(lib, spec, handles, views):
    """Runs the case's op in bcast. Returns (status, result handle(s) or None)."""
    L = lib.lib
    kind, op, form = spec["kind"], spec["op"], spec["form"]
    ins = [None if i is None else handles[i] for i in spec.get("ins", [])]
    out = handles[spec["out"]] if spec.get("out") is not None else None
    val = spec.get("alpha")
    res = ctypes.c_void_p()
    if kind == "binary":
        code = BC_OP[op]
        a, b = ins
        if val is None:
            if form == "alloc":
                return L.bc_binary(code, a, b, ctypes.byref(res)), res
            if form == "out":
                return L.bc_binary_out(code, a, b, out), None
            return L.bc_binary_(code, a, b), None
        if form == "alloc":
            return L.bc_binary_alpha(code, a, b, val, ctypes.byref(res)), res
        if form == "out":
            return L.bc_binary_alpha_out(code, a, b, val, out), None
        return L.bc_binary_alpha_(code, a, b, val), None
    if kind == "ternary":
        x, y, z = ins
        if op in ("where", "clamp", "lerp"):
            f = getattr(L, "bc_" + op)
            if form == "alloc":
                return f(x, y, z, ctypes.byref(res)), res
            if form == "out":
                return getattr(L, f"bc_{op}_out")(x, y, z, out), None
            if op == "where":
                return L.bc_where_(y, x, z), None
            return getattr(L, f"bc_{op}_")(x, y, z), None
        if form == "alloc":
            return getattr(L, "bc_" + op)(x, y, z, val, ctypes.byref(res)), res
        if form == "out":
            return getattr(L, f"bc_{op}_out")(x, y, z, val, out), None
        return getattr(L, f"bc_{op}_")(x, y, z, val), None
    if kind == "unary":
        code = BC_UNARY_OP[op]
        vals, given = spec["params"]
        p = UnaryParams((ctypes.c_double * 3)(*vals), given)
        if form == "alloc":
            return L.bc_unary_ex(code, ins[0], ctypes.byref(p), ctypes.byref(res)), res
        if form == "out":
            return L.bc_unary_ex_out(code, ins[0], ctypes.byref(p), out), None
        return L.bc_unary_ex_(code, ins[0], ctypes.byref(p)), None
    if kind == "copy":
        return L.bc_copy_(out, ins[0]), None
    if kind == "expand":
        tgt = spec["target"]
        arr = (ctypes.c_int64 * max(len(tgt), 1))(*tgt)
        return L.bc_expand(ins[0], arr, len(tgt), ctypes.byref(res)), res
    if kind == "broadcast_tensors":
        n = len(ins)
        arr = (ctypes.c_void_p * n)(*ins)
        outs = (ctypes.c_void_p * n)()
        st = L.bc_broadcast_tensors(arr, n, outs, n)
        return st, list(outs)
    if kind == "sum_to_shape":
        tgt = spec["target"]
        arr = (ctypes.c_int64 * max(len(tgt), 1))(*tgt)
        return L.bc_sum_to_shape(ins[0], arr, len(tgt), ctypes.byref(res)), res
    if kind == "broadcast_shapes":
        shapes = spec["shapes"]
        n = len(shapes)
        arrs = [(ctypes.c_int64 * max(len(s), 1))(*s) for s in shapes]
        ptrs = (ctypes.POINTER(ctypes.c_int64) * max(n, 1))(
            *[ctypes.cast(a, ctypes.POINTER(ctypes.c_int64)) for a in arrs])
        nd = (ctypes.c_size_t * max(n, 1))(*[len(s) for s in shapes])
        outv = (ctypes.c_int64 * 64)()
        nout = ctypes.c_size_t()
        st = L.bc_broadcast_shapes_n(ptrs, nd, n, outv, 64, ctypes.byref(nout))
        return st, tuple(outv[i] for i in range(nout.value)) if st == OK else None
    raise AssertionError(kind)


def element_offsets(view):
    """The set of element offsets (in the buffer) a view covers."""
    if view.numel() == 0:
        return []
    idx = torch.zeros((), dtype=torch.int64) + view.storage_offset()
    for s, st in zip(view.shape, view.stride()):
        idx = idx.unsqueeze(-1) + torch.arange(s, dtype=torch.int64) * st
    return idx.reshape(-1).tolist()


def real_overlap(spec, views):
    """Whether the written tensor really overlaps itself, or an input other than exactly."""
    o = spec.get("out")
    if spec["form"] == "inplace" and spec["kind"] != "copy":
        o = spec["ins"][1 if spec["op"] == "where" else 0]
    if o is None:
        return False
    c = spec["case"]
    ov = views[o]
    offs = element_offsets(ov)
    if len(set(offs)) != len(offs):
        return True
    oset = set(offs)
    for i in spec.get("ins", []):
        if i is None or i == o:
            continue
        if c.views[i][0] != c.views[o][0]:
            continue
        iv = views[i]
        same = (c.views[i] == c.views[o]) and iv.dtype == ov.dtype
        if same:
            continue
        try:
            ex = iv.expand(ov.shape)
        except RuntimeError:
            ex = iv
        if ex.shape == ov.shape and ex.dtype == ov.dtype and element_offsets(ex) == offs:
            continue
        if oset & set(element_offsets(iv)):
            return True
    return False


def run_case(lib, spec, verbose=False):
    """Returns None when bcast and torch agree, 'deliberate:<key>' for a listed
    difference (after checking bcast's side), else raises Mismatch."""
    c = spec["case"]
    kind, op = spec["kind"], spec["op"]

    # torch
    tbases, tviews = c.materialise()
    with warnings.catch_warnings(record=True) as wlist:
        warnings.simplefilter("always")
        try:
            tres = torch_call(spec, tviews)
            terr = None
        except (RuntimeError, ValueError, TypeError, IndexError) as e:
            tres, terr = None, strip_torch(str(e))
    twarn = [strip_torch(str(w.message)) for w in wlist]
    seen = set(SEEN_WARNINGS)
    SEEN_WARNINGS.update(twarn)

    # bcast
    bbases, bviews = c.materialise()
    handles = [lib.wrap(v) for v in bviews]
    lib.warnings.clear()
    bres = None
    try:
        st, bres = bcast_call(lib, spec, handles, bviews)
        berr = lib.error() if st != OK else None
        bwarn = list(lib.warnings)
        return compare(lib, spec, tbases, tviews, tres, terr, twarn,
                       bbases, bviews, st, bres, berr, bwarn, verbose, seen)
    finally:
        if isinstance(bres, list):
            lib.free(*[h for h in bres if h])
        elif isinstance(bres, ctypes.c_void_p):
            lib.free(bres)
        lib.free(*handles)


def compare(lib, spec, tbases, tviews, tres, terr, twarn, bbases, bviews, st, bres, berr,
            bwarn, verbose, seen):
    c = spec["case"]
    kind, op, form = spec["kind"], spec["op"], spec["form"]
    if verbose:
        print(f"  torch: {'error: ' + terr if terr else 'ok'}; warnings {twarn}")
        print(f"  bcast: status {st}{': ' + berr if berr else ''}; warnings {bwarn}")

    if st != OK:
        # Failure leaves every buffer as it was.
        for i, (b0, b1) in enumerate(zip(c.bases, bbases)):
            if bad_elements(b1, b0).any():
                raise Mismatch("touched", f"bcast failed ({berr}) but changed buffer {i}")
    if st == E_SHAPE and form == "out" and berr.startswith("output with shape"):
        # PyTorch resizes out= (and may then fail on something else).
        try:
            want_shape = tuple(torch.broadcast_shapes(
                *[tuple(c.views[i][1]) for i in spec["ins"] if i is not None]))
        except RuntimeError:
            want_shape = None
        if kind != "copy" and want_shape is not None and want_shape != tuple(c.views[spec["out"]][1]):
            return "deliberate:out-resize"
    if terr is None and st != OK:
        if st == E_OVERLAP and real_overlap(spec, bviews):
            return "deliberate:hidden-overlap"
        if kind == "expand" and min(tres.shape, default=0) < 0 and \
                berr == "numel: integer multiplication overflow":
            return "deliberate:negative-size"
        raise Mismatch("status", f"torch succeeds, bcast fails: {st} {berr!r}")
    if terr is not None and st == OK:
        raise Mismatch("status", f"torch fails ({terr!r}), bcast succeeds")
    if terr is not None:
        if terr != berr and st == E_OVERLAP and real_overlap(spec, bviews):
            return "deliberate:hidden-overlap"  # PyTorch ran into it and failed later
        if terr != berr:
            raise Mismatch("message", f"torch: {terr!r}\n      bcast: {berr!r}")
        return None

    # Warnings (PyTorch warns some only once per process: those it gave before pass).
    if twarn != bwarn and not (not twarn and all(w in seen for w in bwarn)):
        raise Mismatch("warning", f"torch warns {twarn}, bcast {bwarn}")

    if kind == "broadcast_shapes":
        if tuple(tres) != bres:
            raise Mismatch("value", f"torch {tuple(tres)}, bcast {bres}")
        return None
    if kind in ("expand", "broadcast_tensors"):
        tl = [tres] if kind == "expand" else list(tres)
        bl = [bres] if kind == "expand" else bres
        srcs = [spec["ins"][0]] if kind == "expand" else spec["ins"]
        for t, h, i in zip(tl, bl, srcs):
            dt, shp, strides = lib.meta(h)
            if dt != t.dtype or shp != tuple(t.shape):
                raise Mismatch("shape", f"torch {t.dtype}{list(t.shape)}, bcast {dt}{list(shp)}")
            if t.numel() and strides != tuple(t.stride()):
                raise Mismatch("strides", f"torch strides {t.stride()}, bcast {strides}")
            if t.numel():
                # The view starts where PyTorch's does, relative to its source.
                boff = lib.lib.bc_tensor_data(h) - bviews[i].data_ptr()
                if boff != t.data_ptr() - tviews[i].data_ptr():
                    raise Mismatch("strides", f"view data at byte {boff}, PyTorch's at "
                                              f"{t.data_ptr() - tviews[i].data_ptr()}")
                got = lib.read(h)
                if bad_elements(got, t.contiguous()).any():
                    raise Mismatch("value", "view reads other values")
        return None

    if form in ("alloc",):
        dt, shp, _ = lib.meta(bres)
        if dt != tres.dtype:
            raise Mismatch("dtype", f"torch {tres.dtype}, bcast {dt}")
        if shp != tuple(tres.shape):
            raise Mismatch("shape", f"torch {list(tres.shape)}, bcast {list(shp)}")
        got = lib.read(bres)
        want = tres.contiguous()
        pairs = [(got, want, None)]
    else:
        # Every buffer, whole: the written view and nothing else changed.
        o = spec["out"] if form == "out" or kind == "copy" else (
            spec["ins"][1] if op == "where" else spec["ins"][0])
        pairs = []
        for i, (tb, bb) in enumerate(zip(tbases, bbases)):
            pairs.append((bb, tb, i == c.views[o][0]))
    close_dtype = None
    if op in CLOSE:  # the result dtype, whatever the out= tensor's
        close_dtype = result_type(*[torch.empty((1,) * len(c.views[i][1]) if c.views[i][1] else (),
                                                dtype=c.bases[c.views[i][0]].dtype)
                                    for i in spec["ins"]])
        if not close_dtype.is_floating_point and op == "atan2":
            close_dtype = torch.get_default_dtype()
    if kind == "unary":  # tolerances are in the op's result dtype, whatever out='s
        x0 = torch.zeros((), dtype=c.bases[c.views[spec["ins"][0]][0]].dtype)
        try:
            close_dtype = (UNARY.get(op) or getattr(torch, op))(x0).dtype
        except RuntimeError:
            close_dtype = None
    other_path = False
    noted = None
    for got, want, written in pairs:
        if kind == "sum_to_shape" and want.dtype.is_floating_point:
            if check_sum(spec, got, want):
                noted = "deliberate:sum-accumulation"
            continue
        if kind == "unary" and op not in UNARY_EXACT:
            ulps = 1 if want.dtype in (torch.float16, torch.bfloat16) else UNARY_ULPS
            bad = bad_elements(got, want, close=ulps, close_dtype=close_dtype)
        elif kind == "unary" and op in ("sqrt", "rsqrt"):
            # PyTorch 2.15 takes MKL VML here (vsSqrt, vsInvSqrt): not correctly
            # rounded, ~0.7% of elements differ by 1 ulp (docs/numerics.md).
            bad = bad_elements(got, want, close=1, close_dtype=close_dtype)
        else:
            bad = bad_elements(got, want, close=op in CLOSE, close_dtype=close_dtype)
        if kind == "copy" and bad.any():
            undefined = undefined_conversions(spec, tviews, want, written)
            if (bad & undefined).any():
                noted = "deliberate:float-to-int"
            bad &= ~undefined
        if bad.any() and want.dtype.is_floating_point and kind in ("binary", "ternary") \
                and written is not False:
            # PyTorch's vector and scalar loops may round (fused multiply-add) or
            # treat edge cases (signs of zero, overflowing quotients) differently:
            # an element matching either of PyTorch's own paths is accepted.
            alts = fused_alternatives(spec, want, written)
            if alts:
                bad &= bad_elements(got, want, close=op in CLOSE, alts=alts, close_dtype=close_dtype)
                other_path = not bad.any()
            if bad.any() and op == "copysign":
                # The sign of a float16 NaN converted to float32 (docs/fidelity.md).
                alts = fused_alternatives(spec, want, written, half_nan_signs=True)
                if alts:
                    bad &= bad_elements(got, want, alts=alts)
                    if not bad.any():
                        noted = "deliberate:f16-nan-sign"
        if bad.any() and kind == "unary" and close_dtype is not None and \
                close_dtype.is_floating_point and op not in UNARY_EXACT - {"sqrt", "rsqrt"}:
            # Where PyTorch is off (its SLEEF/VML error, its float32 path of halves,
            # cancellation in gelu), bcast must meet its own policy against mpmath.
            bi, isz, ist, ioff = c.views[spec["ins"][0]]
            xin = c.bases[bi].as_strided(isz, ist, ioff)  # the input, as it was
            vals, given = spec["params"]
            if written is None:  # alloc: the result's elements are the input's
                where = {tuple(i): tuple(i) for i in bad.nonzero().tolist()}
                xin = xin.expand(want.shape)
            else:  # a whole buffer: map its positions back to the written view's elements
                ob, osz, ost, ooff = c.views[o]
                pos = torch.arange(len(c.bases[ob])).as_strided(osz, ost, ooff)
                xin = xin.expand(osz)
                where = {}
                for i in bad.nonzero().tolist():
                    hit = (pos == i[0]).nonzero().tolist()
                    if hit:
                        where[tuple(i)] = tuple(hit[0])
            for bidx, vidx in where.items():
                x = float(xin[vidx].item())
                if unary_policy_ok(op, vals, given, x, float(got[bidx].item()), close_dtype):
                    bad[bidx] = False
            if not bad.any():
                noted = "deliberate:torch-inexact"
        if bad.any():
            idx = bad.nonzero()[0].tolist()
            raise Mismatch("value", f"at {idx}: bcast {got[tuple(idx)].item()!r} torch "
                                    f"{want[tuple(idx)].item()!r} ({int(bad.sum())} of "
                                    f"{bad.numel()} differ)", index=idx)
    if noted:
        return noted
    if other_path:
        return "path:" + op_label(spec)
    return None


SEEN_WARNINGS = set()


def undefined_conversions(spec, tviews, want, written):
    """Mask (over `want`'s elements) of float -> integer conversions C++ leaves undefined."""
    mask = torch.zeros(want.shape, dtype=torch.bool)
    if want.dtype.is_floating_point or want.dtype == torch.bool or not written:
        return mask
    c = spec["case"]
    o = spec["out"]
    ov = tviews[o]
    if spec["kind"] == "copy":
        src = c.materialise()[1][spec["ins"][0]]  # the values before the copy
        if not src.dtype.is_floating_point:
            return mask
        val = src.to(torch.float64).expand(ov.shape) if src.dim() <= ov.dim() else None
    else:
        return mask
    if val is None:
        return mask
    info = torch.iinfo(want.dtype)
    lo, hi = float(info.min) - 1.0, float(info.max) + 1.0  # int64: rounded outwards to 2^63
    undefined = torch.isnan(val) | (val <= lo) | (val >= hi)
    # Scatter onto the buffer's elements.
    flat = torch.zeros(want.numel(), dtype=torch.bool)
    offs = torch.tensor(element_offsets(ov), dtype=torch.int64)
    if len(offs):
        flat[offs] = undefined.reshape(-1)
    return flat.reshape(want.shape)


def fused_alternatives(spec, want, written, half_nan_signs=False):
    """PyTorch's results for the same values on its vector path and on its scalar path.

    The operands are laid out anew: contiguous and padded (every element in
    the vector loop's body), or with stride 2 (the scalar loop). Operands of
    one element and another dtype stay as they are (PyTorch reads them as CPU
    scalars, at their own value); the others are first converted to the
    iterator's common dtype, as PyTorch does, so that no conversion makes
    them contiguous again.

    half_nan_signs: float16 operands of another common dtype, one-element ones
    too, are converted through float64, which keeps a NaN's sign as PyTorch's
    vector conversion does (its scalar one makes every float16 NaN
    0x7FFFFFFF): the vector layout only.
    """
    c = spec["case"]
    op, ins = spec["op"], spec["ins"]
    _, views0 = c.materialise()
    try:
        shape = torch.broadcast_shapes(*[tuple(views0[i].shape) for i in ins if i is not None])
    except RuntimeError:
        return ()
    vals = [views0[i] for n, i in enumerate(ins) if i is not None and not (op == "where" and n == 0)]
    common = result_type(*vals)
    if op == "lerp" and vals[2].dim() > 0:
        common = vals[0].dtype
    if op in ("div", "atan2", "copysign", "addcdiv", "lerp") and not common.is_floating_point:
        common = torch.get_default_dtype()
    n = math.prod(shape)
    alts = []
    for layout in (("vector",) if half_nan_signs else ("vector", "scalar")):
        bases, views = c.materialise()
        new = list(views)
        for k, i in enumerate(ins):
            if i is None:
                continue
            v = views[i]
            cast = not (op == "where" and k == 0)
            if half_nan_signs and cast and v.dtype == torch.float16 and common != torch.float16:
                v = v.double()
            elif v.numel() == 1 and cast and v.dtype != common:
                # A one-element operand of another dtype is a CPU scalar to
                # PyTorch, read at its own value: it keeps its form.
                new[i] = v if v.dim() == 0 else v.reshape(1)
                continue
            v = v.expand(shape).contiguous().reshape(-1)
            if not (op == "where" and k == 0):
                v = v.to(common)
            if layout == "vector":
                flat = torch.cat([v, v[:1].expand((-n) % 256 + 256)])
            else:
                flat = torch.stack([v, v], 1).reshape(-1)[0::2]
            new[i] = flat
        spec2 = dict(spec)
        spec2["form"] = "alloc"
        try:
            r = torch_call(spec2, new)
        except (RuntimeError, ValueError, TypeError):
            return ()
        if r.dim() != 1:
            r = r.reshape(-1)
        r = r[:n].reshape(shape)
        if spec["form"] == "alloc":
            alts.append(r.to(want.dtype))
        else:
            # Place the alternative into a copy of torch's written buffer.
            o = spec["out"] if spec["form"] == "out" else ins[1 if op == "where" else 0]
            buf = want.clone()
            b, size, stride, off = c.views[o]
            view = buf.as_strided(size, stride, off)
            if tuple(view.shape) != tuple(shape):
                return ()
            view.copy_(r)
            alts.append(buf)
    return alts


def result_type(*ts):
    """torch.result_type over any number of tensors: dimensioned ones first,
    0-dim ones only when of a higher category (as TensorIterator promotes)."""
    def promote(ds):
        r = ds[0]
        for d in ds[1:]:
            r = torch.promote_types(r, d)
        return r
    dims = [t.dtype for t in ts if t.dim() > 0]
    zeros = [t.dtype for t in ts if t.dim() == 0]
    if not dims:
        return promote(zeros)
    d = promote(dims)
    if not zeros or d.is_floating_point:
        return d
    z = promote(zeros)
    return torch.promote_types(d, z) if d == torch.bool or z.is_floating_point else d


def check_sum(spec, got, want):
    """Floating sums: within the error bound of a summation in the dtype.

    Returns True when the sums are within the bound but not bit for bit equal."""
    t = spec["case"].materialise()[1][spec["ins"][0]].to(torch.float64)
    target = spec["target"]
    finite = torch.isfinite(t)
    absum = torch.where(finite, t.abs(), torch.zeros((), dtype=torch.float64)).sum_to_size(target)
    n = max(t.numel() // max(want.numel(), 1), 1)
    fi = torch.finfo(want.dtype)
    g, w = got.to(torch.float64), want.to(torch.float64)
    ok = (g == w) | (torch.isnan(g) & torch.isnan(w))
    ok |= (g - w).abs() <= 2 * n * fi.eps * absum + fi.tiny
    # Where partial sums in the dtype may overflow, PyTorch's inf or NaN and
    # bcast's float64 accumulation legitimately part ways.
    ok |= (absum > fi.max) & (~torch.isfinite(g) | ~torch.isfinite(w))
    if not ok.all():
        idx = (~ok).nonzero()[0].tolist()
        raise Mismatch("value", f"sum at {idx}: bcast {got[tuple(idx)].item()!r} torch "
                                f"{want[tuple(idx)].item()!r}", index=idx)
    return bool(bad_elements(got, want).any())


# ---------------------------------------------------------------- causes and reproducers

def cause_of(spec, m):
    """The issue's cause number for a known kind of mismatch (numeric ones are issue 13b's)."""
    op = op_label(spec)
    c = spec["case"]
    dts = [c.bases[c.views[i][0]].dtype for i in spec.get("ins", []) if i is not None]
    half = any(d in (torch.float16, torch.bfloat16) for d in dts)
    if m.kind == "value":
        if op in ("fmin", "fmax"):
            return "7 (fmin/fmax sign of zero)"
        if half and op in ("add_alpha", "sub_alpha"):
            return "4 (half add/sub round alpha)"
        if half and op in ("div_trunc", "div_floor"):
            return "5 (half trunc/floor division)"
        if half and op in ("mul", "div", "div_floor", "div_trunc"):
            return "3 (half op with a wider one-element operand)"
        if op in FUSED:
            return "2 (fused multiply-add)"
    return f"{m.kind}"


def literal(t):
    t = t.detach()
    vals = t.to(torch.float64).reshape(-1).tolist() if t.dtype.is_floating_point else \
        t.reshape(-1).tolist()
    vals = [("float('nan')" if math.isnan(v) else "float('inf')" if v == math.inf else
             "-float('inf')" if v == -math.inf else repr(v)) if isinstance(v, float) else repr(v)
            for v in vals]
    body = f"torch.tensor([{', '.join(vals)}], dtype={t.dtype})"
    if t.dim() != 1:
        body += f".reshape({tuple(t.shape)})"
    return body


def reproducer(spec):
    """Python that shows PyTorch's side of the case (contiguous copies of the operands)."""
    c = spec["case"]
    _, views = c.materialise()
    lines = ["import torch"]
    names = {}
    for n, i in enumerate(spec.get("ins", [])):
        if i is None:
            continue
        v = views[i]
        if v.numel() > 40:
            lines.append(f"# t{i}: {v.dtype}{list(v.shape)} (too large to print; rerun with --case)")
            names[i] = f"t{i}"
            continue
        lines.append(f"t{i} = {literal(v.contiguous())}")
        names[i] = f"t{i}"
    if spec.get("out") is not None:
        o = views[spec["out"]]
        lines.append(f"out = torch.empty({list(o.shape)}, dtype={o.dtype})")
    kind, op, form = spec["kind"], spec["op"], spec["form"]
    ins = [names.get(i, "None") for i in spec.get("ins", [])]
    val = spec.get("alpha")
    if kind == "binary":
        fn, method, extra = BINARY[op]
        kw = "".join(f", {k}={v!r}" for k, v in extra.items())
        if val is not None:
            kw += f", alpha={number(val)!r}"
        call = {"alloc": f"torch.{fn.__name__}({ins[0]}, {ins[1]}{kw})",
                "out": f"torch.{fn.__name__}({ins[0]}, {ins[1]}{kw}, out=out)",
                "inplace": (f"{ins[0]}.{method}({ins[1]}{kw})" if method else
                            f"torch.{fn.__name__}({ins[0]}, {ins[1]}{kw}, out={ins[0]})")}[form]
    elif kind == "ternary":
        if op == "clamp":
            args = f"{ins[0]}, min={ins[1]}, max={ins[2]}"
            call = {"alloc": f"torch.clamp({args})", "out": f"torch.clamp({args}, out=out)",
                    "inplace": f"{ins[0]}.clamp_(min={ins[1]}, max={ins[2]})"}[form]
        elif op in ("where", "lerp"):
            args = ", ".join(ins)
            call = {"alloc": f"torch.{op}({args})", "out": f"torch.{op}({args}, out=out)",
                    "inplace": (f"torch.where({args}, out={ins[1]})" if op == "where" else
                                f"{ins[0]}.lerp_({ins[1]}, {ins[2]})")}[form]
        else:
            args = ", ".join(ins) + f", value={number(val)!r}"
            call = {"alloc": f"torch.{op}({args})", "out": f"torch.{op}({args}, out=out)",
                    "inplace": f"{ins[0]}.{op}_({', '.join(ins[1:])}, value={number(val)!r})"}[form]
    elif kind == "copy":
        call = f"out.copy_({ins[0]})"
    elif kind == "unary":
        info = next(u for u in UNARY_OPS if u["name"] == op)
        vals, given = spec["params"]
        kw = "".join(f", {n}={(('none', 'tanh')[int(vals[k])] if n == 'approximate' else vals[k])!r}"
                     for k, n in enumerate(info["params"]) if given >> k & 1)
        fn = f"F.{op}" if op in UNARY else f"torch.{op}"
        call = {"alloc": f"{fn}({ins[0]}{kw})", "out": f"{fn}({ins[0]}{kw}, out=out)",
                "inplace": f"{fn}({ins[0]}{kw}, out={ins[0]})"}[form]
    elif kind == "expand":
        call = f"{ins[0]}.expand({', '.join(map(str, spec['target']))})"
    elif kind == "broadcast_tensors":
        call = f"torch.broadcast_tensors({', '.join(ins)})"
    elif kind == "sum_to_shape":
        call = f"{ins[0]}.sum_to_size({spec['target']})"
    else:
        call = f"torch.broadcast_shapes({', '.join(str(tuple(s)) for s in spec['shapes'])})"
    lines.append(f"print({call})")
    lines.append(f"# layouts: {c.layout_text()}")
    return "\n".join(lines)


# ---------------------------------------------------------------- driver

def worker(args):
    libpath, seed, start, stop, step, verbose = args
    lib = Lib(libpath)
    stats = {"passed": 0, "deliberate": {}, "mismatch": [], "path": {}}
    for i in range(start, stop, step):
        spec = make_case(seed, i)
        try:
            r = run_case(lib, spec, verbose)
        except Mismatch as m:
            stats["mismatch"].append((i, op_label(spec), spec["form"], cause_of(spec, m),
                                      m.kind, m.detail, reproducer(spec)))
            continue
        except Exception:
            stats["mismatch"].append((i, op_label(spec), spec["form"], "harness", "harness",
                                      traceback.format_exc(limit=3), reproducer(spec)))
            continue
        if r and r.startswith("deliberate:"):
            k = r.split(":", 1)[1]
            stats["deliberate"][k] = stats["deliberate"].get(k, 0) + 1
        else:
            stats["passed"] += 1
            if r and r.startswith("path:"):
                k = r.split(":", 1)[1]
                stats["path"][k] = stats["path"].get(k, 0) + 1
    return stats


def expand_sweep(lib_path):
    """expand of small tensors (0-dim among them) to every target of rank up
    to 3 over sizes that PyTorch checks one by one: negative, -1, 0, 1, 2 and
    sizes whose count overflows. Both must agree on success, the view's
    shape, or the error text (but for negative-size, a deliberate difference).
    Returns the mismatches."""
    L = Lib(lib_path).lib
    sizes = [-2 ** 62, -3, -2, -1, 0, 1, 2, 3, 2 ** 62, 2 ** 63 - 1]
    bad = []
    for shape in [(), (1,), (0,), (3,), (1, 1), (0, 1), (3, 1)]:
        arr = (ctypes.c_int64 * max(len(shape), 1))(*shape)
        t = ctypes.c_void_p()
        assert L.bc_tensor_zeros(8, arr, len(shape), ctypes.byref(t)) == 0
        for nd in range(0, 4):
            for tgt in itertools.product(sizes, repeat=nd):
                if not tgt and shape:
                    continue
                v = ctypes.c_void_p()
                ta = (ctypes.c_int64 * max(nd, 1))(*tgt)
                st = L.bc_expand(t, ta, nd, ctypes.byref(v))
                ours = "ok" if st == 0 else L.bc_last_error().decode()
                if st == 0:
                    n = L.bc_tensor_ndim(v)
                    ours = str(tuple(L.bc_tensor_shape(v)[i] for i in range(n)))
                    L.bc_tensor_free(v)
                try:
                    r = torch.zeros(shape).expand(*tgt) if tgt else torch.zeros(shape).expand(())
                    theirs = str(tuple(r.shape))
                    if any(s < 0 for s in r.shape):
                        continue  # negative-size
                except Exception as e:  # noqa: BLE001 (PyTorch's RuntimeError)
                    theirs = str(e).split("\n")[0]
                if ours != theirs:
                    bad.append(f"expand {shape} to {list(tgt)}: bcast {ours!r}, PyTorch {theirs!r}")
        L.bc_tensor_free(t)
    return bad


def half_alpha_paths(lib_path):
    """add/sub with alpha on float16/bfloat16, bit for bit, on layouts where
    PyTorch's path does not depend on its CPU: rows shorter than 16 elements
    and strided rows (its scalar loop: alpha*other rounded to the half type
    first), contiguous rows of a multiple of 32 (its vector loop: rounded
    once). The random cases accept either path; this pins which one bcast
    takes. Returns the mismatches."""
    if torch.backends.cpu.get_cpu_capability() not in ("AVX2", "AVX512"):
        return []  # PyTorch without vector kernels: its scalar loop everywhere
    L = Lib(lib_path)
    rng = random.Random(23)
    bad = []
    layouts = [((1,), (1,)), ((5,), (5,)), ((15,), (15,)), ((3, 7), (7,)), ((4, 5), (4, 1)),
               ((64,), (64,)), ((96,), (96,)), ((2, 64), (64,)), ((3, 64), (3, 1)),
               ((64,), ())]
    for dt in (torch.bfloat16, torch.float16):
        for op in ("add", "sub"):
            for sa, sb in layouts + [("strided", None), ("transposed", None)]:
                for form in ("alloc", "out", "inplace"):
                    alpha = rng.choice([-2.5, 0.3, 7.1, -1.7, 3.3])
                    if sa == "strided":
                        a = (torch.randn(40, dtype=torch.float64) * 60).to(dt)[::2]
                        b = (torch.randn(40, dtype=torch.float64) * 60).to(dt)[::2]
                    elif sa == "transposed":
                        a = (torch.randn(64, 8, dtype=torch.float64) * 60).to(dt).t()
                        b = (torch.randn(8, 64, dtype=torch.float64) * 60).to(dt)
                    else:
                        a = (torch.randn(sa, dtype=torch.float64) * 60).to(dt)
                        b = (torch.randn(sb, dtype=torch.float64) * 60).to(dt)
                    want = getattr(torch, op)(a, b, alpha=alpha)
                    ta, tb = L.wrap(a), L.wrap(b)
                    res = ctypes.c_void_p()
                    if form == "alloc":
                        st = L.lib.bc_binary_alpha(BC_OP[op], ta, tb, ctypes.c_double(alpha),
                                                   ctypes.byref(res))
                        got = L.read(res) if st == 0 else None
                        if st == 0:
                            L.lib.bc_tensor_free(res)
                    else:
                        o = a.clone() if form == "inplace" else torch.empty_like(want)
                        to = L.wrap(o)
                        st = (L.lib.bc_binary_alpha_(BC_OP[op], to, tb, ctypes.c_double(alpha))
                              if form == "inplace" else
                              L.lib.bc_binary_alpha_out(BC_OP[op], ta, tb,
                                                        ctypes.c_double(alpha), to))
                        got = o if st == 0 else None
                        L.lib.bc_tensor_free(to)
                    L.lib.bc_tensor_free(ta)
                    L.lib.bc_tensor_free(tb)
                    if got is None:
                        bad.append(f"{op} {dt} {sa} {form}: failed: {L.error()}")
                    elif not torch.equal(got.view(torch.int16), want.view(torch.int16)):
                        bad.append(f"{op} {dt} {sa}+{sb} {form} alpha={alpha}: bcast "
                                   f"{got.flatten()[:4].tolist()} PyTorch {want.flatten()[:4].tolist()}")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lib", help="build directory or path to libbcast.so")
    ap.add_argument("--cases", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--case", type=int, default=None, help="rerun one case verbosely")
    ap.add_argument("--repro", type=int, default=1, help="reproducers printed per kind")
    ap.add_argument("--list", type=int, default=3, help="mismatching cases listed per kind")
    args = ap.parse_args()
    t0 = time.time()
    if args.case is not None:
        spec = make_case(args.seed, args.case)
        print(reproducer(spec))
        st = worker((args.lib, args.seed, args.case, args.case + 1, 1, True))
        for m in st["mismatch"]:
            print(f"MISMATCH [{m[3]}] {m[1]} {m[2]}: {m[5]}")
        print("deliberate:", st["deliberate"] or "none")
        return 1 if st["mismatch"] else 0
    sweep = expand_sweep(args.lib)
    for line in sweep[:10]:
        print("MISMATCH " + line)
    print(f"expand sweep: {len(sweep)} mismatches")
    paths = half_alpha_paths(args.lib)
    for line in paths[:10]:
        print("MISMATCH " + line)
    print(f"half add/sub with alpha, layouts with one PyTorch path: {len(paths)} mismatches")
    sweep += paths
    jobs = max(1, min(args.jobs, args.cases))
    work = [(args.lib, args.seed, j, args.cases, jobs, False) for j in range(jobs)]
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
        groups.setdefault((m[3], m[1], m[4]), []).append(m)
    if groups:
        print(f"Mismatches by cause and op ({len(mism)} cases):")
        for (cause, op, kind), ms in sorted(groups.items(), key=lambda kv: -len(kv[1])):
            print(f"\n== cause {cause} | {op} | {kind}: {len(ms)} case(s)")
            for m in ms[:args.list]:
                print(f"   case {m[0]} ({m[2]}): {m[5]}")
            for m in ms[:args.repro]:
                print("   reproducer (case %d, rerun: --seed %d --case %d):" % (m[0], args.seed, m[0]))
                print("     " + m[6].replace("\n", "\n     "))
        print()
        by_cause = {}
        for m in mism:
            by_cause[m[3]] = by_cause.get(m[3], 0) + 1
        print("Per cause:", ", ".join(f"{k}: {v}" for k, v in sorted(by_cause.items())))
    path = {}
    for r in results:
        for k, v in r["path"].items():
            path[k] = path.get(k, 0) + v
    if path:
        print("Agreeing with PyTorch's other loop path (vector vs scalar) for some elements:",
              ", ".join(f"{k}: {v}" for k, v in sorted(path.items())))
    if deliberate:
        print("Deliberate differences (bcast's side checked):")
        for k, v in sorted(deliberate.items()):
            print(f"  {k}: {v} case(s): {DELIBERATE[k]}")
    print(f"{args.cases} cases (seed {args.seed}): {passed} agree with PyTorch "
          f"{torch.__version__}, {sum(deliberate.values())} deliberate differences, "
          f"{len(mism)} mismatches; {time.time() - t0:.1f} s")
    return 1 if mism or sweep else 0


if __name__ == "__main__":
    sys.exit(main())
