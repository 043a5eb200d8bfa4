#!/usr/bin/env python3
"""Differential test: bcast, called through ctypes, against NumPy.

Usage: test_numpy.py <build dir or path to libbcast.so> [--cases N] [--seed S]

Each random case draws shapes (broadcastable, up to 4 dims, sometimes 0-dim
or size 0), dtypes, an op and values (NaN, inf, -0, integer extremes), lays
some inputs out as non-contiguous NumPy views (wrapped in place with their
strides), and compares the library's result with NumPy's. Inputs are first
cast to the dtype PyTorch would compute in (torch.result_type, written out
below), because NumPy's own promotion differs (int64 + float16 is float64
there, float16 in PyTorch). Exact ops must match exactly (any NaN matches
any NaN; max/min/remainder may differ in the sign of a zero); pow, atan2 and
hypot must be close. clip is checked as minimum(maximum(x, lo), hi), which
is torch.clamp's NaN-propagating definition (np.clip ignores NaN bounds).
"""
import argparse
import ctypes
import os
import random
import sys

import numpy as np

from ops_table import BC_OP  # bc_op values by name, generated from src/op_table.def

# bc_dtype values and the matching NumPy dtypes (bfloat16 has none).
DTYPES = {
    np.dtype(np.bool_): 0, np.dtype(np.uint8): 1, np.dtype(np.int8): 2, np.dtype(np.int16): 3,
    np.dtype(np.int32): 4, np.dtype(np.int64): 5, np.dtype(np.float16): 6,
    np.dtype(np.float32): 8, np.dtype(np.float64): 9,
}
BY_CODE = {v: k for k, v in DTYPES.items()}
ALL = list(DTYPES.keys())
INTS = [d for d in ALL if d.kind in "iu"]
FLOATS = [d for d in ALL if d.kind == "f"]

OPS = {  # NumPy name: (bc_op value, kind)
    "add": (BC_OP["add"], "arith"), "sub": (BC_OP["sub"], "arith"), "mul": (BC_OP["mul"], "arith"),
    "div": (BC_OP["div"], "truediv"), "floor_divide": (BC_OP["div_floor"], "intdiv"),
    "remainder": (BC_OP["remainder"], "intdiv"), "fmod": (BC_OP["fmod"], "intdiv"),
    "pow": (BC_OP["pow"], "pow"), "maximum": (BC_OP["maximum"], "minmax"),
    "minimum": (BC_OP["minimum"], "minmax"), "fmax": (BC_OP["fmax"], "minmax"),
    "fmin": (BC_OP["fmin"], "minmax"), "atan2": (BC_OP["atan2"], "floatfn"),
    "hypot": (BC_OP["hypot"], "hypot"), "copysign": (BC_OP["copysign"], "floatfn"),
    "eq": (BC_OP["eq"], "cmp"), "ne": (BC_OP["ne"], "cmp"), "lt": (BC_OP["lt"], "cmp"),
    "le": (BC_OP["le"], "cmp"), "gt": (BC_OP["gt"], "cmp"), "ge": (BC_OP["ge"], "cmp"),
    "logical_and": (BC_OP["logical_and"], "logical"),
    "logical_or": (BC_OP["logical_or"], "logical"),
    "logical_xor": (BC_OP["logical_xor"], "logical"),
    "bitwise_and": (BC_OP["bitwise_and"], "bitwise"),
    "bitwise_or": (BC_OP["bitwise_or"], "bitwise"),
    "bitwise_xor": (BC_OP["bitwise_xor"], "bitwise"),
    "left_shift": (BC_OP["bitwise_left_shift"], "shift"),
    "right_shift": (BC_OP["bitwise_right_shift"], "shift"),
}
NUMPY_FN = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
    "floor_divide": np.floor_divide, "remainder": np.remainder, "fmod": np.fmod,
    "pow": np.power, "maximum": np.maximum, "minimum": np.minimum, "fmax": np.fmax,
    "fmin": np.fmin, "atan2": np.arctan2, "hypot": np.hypot, "copysign": np.copysign,
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal, "logical_and": np.logical_and,
    "logical_or": np.logical_or, "logical_xor": np.logical_xor, "bitwise_and": np.bitwise_and,
    "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor, "left_shift": np.left_shift,
    "right_shift": np.right_shift,
}
CLOSE_OPS = {"pow", "atan2", "hypot"}
ZERO_SIGN_FREE = {"maximum", "minimum", "fmax", "fmin", "remainder", "clip"}


def category(dt):
    return 0 if dt.kind == "b" else (2 if dt.kind == "f" else 1)


def promote(a, b):
    """torch.promote_types for the dtypes NumPy has."""
    ca, cb = category(a), category(b)
    if ca != cb:
        return a if ca > cb else b
    return np.promote_types(a, b)  # agrees with PyTorch within a category


def result_type(operands):
    """torch.result_type over (dtype, is_0dim) pairs."""
    dim = zero = None
    for dt, zero_dim in operands:
        if zero_dim:
            zero = dt if zero is None else promote(zero, dt)
        else:
            dim = dt if dim is None else promote(dim, dt)
    if dim is None:
        return zero
    if zero is None:
        return dim
    return promote(dim, zero) if category(zero) > category(dim) else dim


class Lib:
    def __init__(self, path):
        if os.path.isdir(path):
            found = None
            for root, _, files in os.walk(path):
                if "libbcast.so" in files:
                    found = os.path.join(root, "libbcast.so")
                    break
            if not found:
                raise SystemExit(f"libbcast.so not found under {path}")
            path = found
        self.lib = lib = ctypes.CDLL(path)
        P = ctypes.c_void_p
        i64p = ctypes.POINTER(ctypes.c_int64)
        sz = ctypes.c_size_t
        lib.bc_last_error.restype = ctypes.c_char_p
        lib.bc_tensor_from_data.argtypes = [ctypes.c_int, i64p, sz, P, ctypes.POINTER(P)]
        lib.bc_tensor_wrap.argtypes = [ctypes.c_int, i64p, i64p, sz, P, sz, P, P, ctypes.POINTER(P)]
        lib.bc_tensor_free.argtypes = [P]
        lib.bc_tensor_free.restype = None
        lib.bc_tensor_ndim.argtypes = [P]
        lib.bc_tensor_ndim.restype = sz
        lib.bc_tensor_shape.argtypes = [P]
        lib.bc_tensor_shape.restype = i64p
        lib.bc_tensor_dtype.argtypes = [P]
        lib.bc_tensor_numel.argtypes = [P]
        lib.bc_tensor_numel.restype = ctypes.c_int64
        lib.bc_tensor_copy_to.argtypes = [P, P, sz]
        lib.bc_binary.argtypes = [ctypes.c_int, P, P, ctypes.POINTER(P)]
        lib.bc_where.argtypes = [P, P, P, ctypes.POINTER(P)]
        lib.bc_clamp.argtypes = [P, P, P, ctypes.POINTER(P)]

    def error(self):
        return self.lib.bc_last_error().decode()

    def tensor(self, arr, keep):
        """A bcast tensor over `arr`: copied if contiguous, else wrapped with its strides."""
        shape = (ctypes.c_int64 * max(arr.ndim, 1))(*arr.shape)
        out = ctypes.c_void_p()
        code = DTYPES[arr.dtype]
        if arr.flags.c_contiguous or arr.size == 0:
            data = np.ascontiguousarray(arr)
            st = self.lib.bc_tensor_from_data(code, shape, arr.ndim, data.ctypes.data, ctypes.byref(out))
        else:
            item = arr.itemsize
            strides = (ctypes.c_int64 * arr.ndim)(*[s // item for s in arr.strides])
            span = (sum((n - 1) * s for n, s in zip(arr.shape, arr.strides)) + item)
            keep.append(arr)  # the buffer must outlive the tensor
            st = self.lib.bc_tensor_wrap(code, shape, strides, arr.ndim, arr.ctypes.data, span,
                                         None, None, ctypes.byref(out))
        if st != 0:
            raise RuntimeError(f"creating tensor failed: {st} {self.error()}")
        return out

    def read(self, t):
        nd = self.lib.bc_tensor_ndim(t)
        shp = tuple(self.lib.bc_tensor_shape(t)[i] for i in range(nd))
        dt = BY_CODE[self.lib.bc_tensor_dtype(t)]
        res = np.empty(shp, dtype=dt)
        st = self.lib.bc_tensor_copy_to(t, res.ctypes.data, max(res.nbytes, 1))
        if st != 0:
            raise RuntimeError(f"copy_to failed: {self.error()}")
        return res

    def free(self, *ts):
        for t in ts:
            if t:
                self.lib.bc_tensor_free(t)


def random_values(rng, dt, shape, special=True):
    n = int(np.prod(shape)) if shape else 1
    if dt.kind == "b":
        v = np.array([rng.random() < 0.5 for _ in range(n)], dtype=dt)
    elif dt.kind == "f":
        vals = []
        for _ in range(n):
            r = rng.random()
            if special and r < 0.1:
                vals.append(rng.choice([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5]))
            elif r < 0.4:
                vals.append(float(rng.randint(-9, 9)))
            else:
                vals.append(rng.uniform(0.5, 1.0) * 2.0 ** rng.randint(-6, 8) * rng.choice([-1, 1]))
        with np.errstate(all="ignore"):
            v = np.array(vals, dtype=np.float64).astype(dt)
    else:
        info = np.iinfo(dt)
        vals = []
        for _ in range(n):
            r = rng.random()
            if special and r < 0.12:
                vals.append(rng.choice([info.min, info.max, 0, 1, info.max - 1] + ([-1] if info.min < 0 else [])))
            elif r < 0.6:
                vals.append(rng.randint(max(info.min, -20), min(info.max, 20)))
            else:
                vals.append(rng.randint(info.min, info.max))
        v = np.array(vals, dtype=dt)
    return v.reshape(shape)


def maybe_strided(rng, arr):
    """Half the time, the same values as a non-contiguous view of a larger buffer."""
    if arr.ndim == 0 or arr.size == 0 or rng.random() < 0.5:
        return arr
    perm = list(range(arr.ndim))
    rng.shuffle(perm)
    step = rng.choice([1, 2, 3])
    base_shape = [arr.shape[p] for p in perm]
    base_shape[-1] *= step
    base = np.zeros(base_shape, dtype=arr.dtype)
    sl = tuple([slice(None)] * (arr.ndim - 1) + [slice(None, None, step)])
    view = base[sl]  # shape is arr.shape permuted
    inv = np.argsort(perm)
    view = view.transpose(inv)
    view[...] = arr
    return view


def random_pair_shapes(rng):
    nd = rng.randint(0, 4)
    full = [0 if rng.random() < 0.04 else rng.randint(1, 5) for _ in range(nd)]

    def derive():
        keep = rng.randint(0, nd)
        s = full[nd - keep:]
        return tuple(1 if rng.random() < 0.35 else d for d in s)

    return derive(), derive()


def compare(got, want, op):
    if got.shape != want.shape:
        return f"shape {got.shape} != {want.shape}"
    if got.dtype != want.dtype:
        return f"dtype {got.dtype} != {want.dtype}"
    if got.dtype.kind != "f":
        bad = got != want
    else:
        both_nan = np.isnan(got) & np.isnan(want)
        if op in CLOSE_OPS:
            eps = np.finfo(got.dtype).eps
            with np.errstate(all="ignore"):
                close = np.isclose(got, want, rtol=4 * eps, atol=0, equal_nan=True)
            bad = ~close
        else:
            same = (got == want) | both_nan
            if op not in ZERO_SIGN_FREE:
                same &= (np.signbit(got) == np.signbit(want)) | both_nan
            bad = ~same
    if np.any(bad):
        idx = np.argwhere(bad)[:4]
        return "; ".join(f"at {tuple(i)}: got {got[tuple(i)]!r} want {want[tuple(i)]!r}" for i in idx)
    return None


def run_binary_case(lib, rng):
    name = rng.choice(list(OPS))
    code, kind = OPS[name]
    sa, sb = random_pair_shapes(rng)
    da = rng.choice(ALL)
    db = da if rng.random() < 0.6 else rng.choice(ALL)
    common = result_type([(da, sa == ()), (db, sb == ())])
    # Skip what PyTorch refuses or defines differently from NumPy.
    if kind in ("bitwise", "shift") and common.kind == "f":
        return None
    if kind == "shift" and common.kind == "b":
        return None
    if kind == "hypot" and common.kind != "f":
        return None
    if common.kind == "b" and kind in ("intdiv", "pow"):
        return None
    if name == "sub" and "b" in (da.kind, db.kind):
        return None  # PyTorch refuses sub with any bool operand
    a = random_values(rng, da, sa)
    b = random_values(rng, db, sb)
    compute = common
    if kind in ("truediv", "floatfn") and common.kind != "f":
        compute = np.dtype(np.float32)
    with np.errstate(all="ignore"):
        ca, cb = a.astype(compute), b.astype(compute)
    if compute.kind in "iu":
        info = np.iinfo(compute)
        # Adjusted operands are fed to the library in the common dtype.
        if kind == "intdiv":
            # NumPy and C disagree on MIN % -1 and divide by zero: keep both out.
            cb = np.where(cb == 0, compute.type(1), cb).astype(compute)
            ca = np.where(ca == info.min, compute.type(info.min + 1), ca).astype(compute)
            a, b = ca, cb
        elif kind == "pow":
            cb = np.abs(cb.astype(np.int64) % 9).astype(compute)  # NumPy refuses negative powers
            a, b = ca, cb
        elif kind == "shift":
            cb = (np.abs(cb.astype(np.int64)) % (compute.itemsize * 8 + 3)).astype(compute)
            a, b = ca, cb
    with np.errstate(all="ignore"):
        want = np.asarray(NUMPY_FN[name](ca, cb))
    keep = []
    ta = lib.tensor(maybe_strided(rng, a), keep)
    tb = lib.tensor(maybe_strided(rng, b), keep)
    out = ctypes.c_void_p()
    st = lib.lib.bc_binary(code, ta, tb, ctypes.byref(out))
    what = f"{name} {a.dtype}{list(a.shape)} {b.dtype}{list(b.shape)}"
    try:
        if st != 0:
            return f"{what}: status {st}: {lib.error()}"
        got = lib.read(out)
        return (what + ": " + err) if (err := compare(got, want, name)) else ""
    finally:
        lib.free(ta, tb, out)


def run_ternary_case(lib, rng):
    sa, sb = random_pair_shapes(rng)
    sc = sa if rng.random() < 0.5 else sb
    sc = tuple(1 if rng.random() < 0.3 else d for d in sc)
    which = rng.choice(["where", "clip"])
    keep = []
    if which == "where":
        cond = random_values(rng, np.dtype(np.bool_), sc)
        da = rng.choice(ALL)
        db = da if rng.random() < 0.6 else rng.choice(ALL)
        a, b = random_values(rng, da, sa), random_values(rng, db, sb)
        rt = result_type([(da, sa == ()), (db, sb == ())])
        with np.errstate(all="ignore"):
            want = np.asarray(np.where(cond, a.astype(rt), b.astype(rt)))
        t = [lib.tensor(maybe_strided(rng, x), keep) for x in (cond, a, b)]
        out = ctypes.c_void_p()
        st = lib.lib.bc_where(t[0], t[1], t[2], ctypes.byref(out))
        what = f"where {list(sc)} {da}{list(sa)} {db}{list(sb)}"
    else:
        d = rng.choice([x for x in ALL if x.kind != "b"])
        x, lo, hi = random_values(rng, d, sa), random_values(rng, d, sb), random_values(rng, d, sc)
        # np.clip ignores a NaN bound; torch.clamp (and minimum/maximum) propagate it.
        with np.errstate(all="ignore"):
            want = np.asarray(np.minimum(np.maximum(x, lo), hi))
        t = [lib.tensor(maybe_strided(rng, v), keep) for v in (x, lo, hi)]
        out = ctypes.c_void_p()
        st = lib.lib.bc_clamp(t[0], t[1], t[2], ctypes.byref(out))
        what = f"clip {d} {list(sa)} {list(sb)} {list(sc)}"
    try:
        if st != 0:
            return f"{what}: status {st}: {lib.error()}"
        got = lib.read(out)
        return (what + ": " + err) if (err := compare(got, want, which)) else ""
    finally:
        lib.free(*t, out)


def run_mismatch_case(lib, rng):
    """Shapes NumPy refuses to broadcast: the library refuses with PyTorch's text."""
    while True:
        sa = tuple(rng.randint(0, 4) for _ in range(rng.randint(1, 4)))
        sb = tuple(rng.randint(0, 4) for _ in range(rng.randint(1, 4)))
        try:
            np.broadcast_shapes(sa, sb)
        except ValueError:
            break
    n = max(len(sa), len(sb))
    pa, pb = (1,) * (n - len(sa)) + sa, (1,) * (n - len(sb)) + sb
    dim = max(i for i in range(n) if pa[i] != pb[i] and pa[i] != 1 and pb[i] != 1)
    msg = (f"The size of tensor a ({pa[dim]}) must match the size of tensor b ({pb[dim]}) "
           f"at non-singleton dimension {dim}")
    keep = []
    ta = lib.tensor(np.zeros(sa, np.float32), keep)
    tb = lib.tensor(np.zeros(sb, np.float32), keep)
    out = ctypes.c_void_p()
    st = lib.lib.bc_binary(0, ta, tb, ctypes.byref(out))
    try:
        if st != 2 or out.value is not None or lib.error() != msg:
            return f"mismatch {sa} {sb}: status {st}, message {lib.error()!r}, want {msg!r}"
        return ""
    finally:
        lib.free(ta, tb, out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lib", help="build directory or path to libbcast.so")
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=20240607)
    args = ap.parse_args()
    lib = Lib(args.lib)
    rng = random.Random(args.seed)
    passed = failed = skipped = 0
    for i in range(args.cases):
        r = rng.random()
        if r < 0.75:
            res = run_binary_case(lib, rng)
        elif r < 0.92:
            res = run_ternary_case(lib, rng)
        else:
            res = run_mismatch_case(lib, rng)
        if res is None:
            skipped += 1
        elif res:
            failed += 1
            if failed <= 25:
                print(f"FAIL case {i}: {res}")
        else:
            passed += 1
    print(f"{passed} passed, {failed} failed ({skipped} skipped as undefined in PyTorch or NumPy)")
    return 1 if failed or passed < args.cases // 2 else 0


if __name__ == "__main__":
    sys.exit(main())
