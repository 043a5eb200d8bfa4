#!/usr/bin/env python3
"""Writes tests/torch_numerics.inc: cases whose expected values come from
PyTorch 2.x on the CPU (run with the venv of scripts/venv.sh:
`$(bash scripts/venv.sh) tests/gen_torch_numerics.py`).

Each case is computed by PyTorch on contiguous rows whose length is a
multiple of 64, so that PyTorch takes its vectorised loops (the path bcast
follows; docs/numerics.md). test_numerics.cc replays every case on every
SIMD target, as whole rows, rows with tails and threaded rows.
"""
import math
import os
import sys

import numpy as np
import torch

torch.set_num_threads(1)
rng = np.random.default_rng(13)
N = 128  # values per case (a multiple of 64)

DT = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
      "bfloat16": torch.bfloat16, "int64": torch.int64, "bool": torch.bool}
BC = {"float32": "BC_FLOAT32", "float64": "BC_FLOAT64", "float16": "BC_FLOAT16",
      "bfloat16": "BC_BFLOAT16", "int64": "BC_INT64", "bool": "BC_BOOL"}
FLOATS = ["float32", "float64", "float16", "bfloat16"]
SPECIAL = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, 1e-40, -3e-39, 1.69e38, -3.3e38,
           1e10, -65504.0, 65504.0, 6e-8, 1e-5]


def values(dt, n, positive=False, specials=True):
    mag = np.ldexp(rng.uniform(1, 2, n), rng.integers(-20, 20, n))
    if dt in ("float32", "float64"):
        mag = np.ldexp(rng.uniform(1, 2, n), rng.integers(-60, 60, n))
    v = mag if positive else mag * rng.choice([-1, 1], n)
    if specials:
        k = rng.random(n) < 0.08
        v[k] = rng.choice(SPECIAL, int(k.sum()))
    return torch.tensor(v, dtype=torch.float64).to(DT[dt])


def lit(x):
    x = float(x)
    if math.isnan(x):
        return "kNaN"
    if math.isinf(x):
        return "kInf" if x > 0 else "-kInf"
    if x == 0:
        return "-0.0" if math.copysign(1, x) < 0 else "0.0"
    return x.hex()


cases = []
arrays = []


BITS = {torch.float64: (torch.int64, 16, "uint64_t"), torch.float32: (torch.int32, 8, "uint32_t"),
        torch.float16: (torch.int16, 4, "uint16_t"), torch.bfloat16: (torch.int16, 4, "uint16_t")}
seen = {}


def arr(t):
    """The values as bits of their dtype (named once, reused)."""
    it, width, ctype = BITS[t.dtype]
    bits = tuple(int(x) & ((1 << (4 * width)) - 1) for x in t.view(it).tolist())
    key = (ctype, bits)
    if key not in seen:
        seen[key] = f"kV{len(arrays)}"
        arrays.append((seen[key], ctype, [f"0x{x:0{width}x}" for x in bits]))
    return seen[key]


def add(what, kind, op, dt, want, a, b=None, c=None, scalar=1.0, sdt=None, sndim=0):
    cases.append(f'{{"{what}", {kind}, {op}, {BC[dt]}, {lit(scalar)}, {BC[sdt or dt]}, {sndim}, '
                 f'{want.numel()}, {arr(a)}, {arr(b) if b is not None else "nullptr"}, '
                 f'{arr(c) if c is not None else "nullptr"}, {arr(want)}}}')


def reproducer(dt, pairs, n=N):
    """Rows of n values holding the given (a, b[, c]) tuples first."""
    cols = list(zip(*pairs))
    out = []
    for k, col in enumerate(cols):
        t = values(dt, n)
        t[: len(col)] = torch.tensor(col, dtype=torch.float64).to(DT[dt])
        out.append(t)
    return out


# 2: fused multiply-add: add/sub with alpha, addcmul, lerp; addcdiv is not fused.
for dt in FLOATS:
    a, b = values(dt, N), values(dt, N)
    for alpha in (0.1, -3.7, 1 / 3, 1e-3):
        add(f"add alpha={alpha}", 0, "BC_ADD", dt, torch.add(a, b, alpha=alpha), a, b, scalar=alpha)
        add(f"sub alpha={alpha}", 0, "BC_SUB", dt, torch.sub(a, b, alpha=alpha), a, b, scalar=alpha)
    # 4: the reproducer of half alpha, and bool other (a tensor of ones here).
    if dt in ("float16", "bfloat16"):
        a, b = reproducer(dt, [(2.589e-4, 1.0)])
        add("add alpha=0.1 (half alpha)", 0, "BC_ADD", dt, torch.add(a, b, alpha=0.1), a, b, scalar=0.1)
    for value in (1.0, 0.1, -2.5):
        s, t1, t2 = reproducer(dt, [(-math.inf, 5.0, 1.69e38)] if dt in ("float32", "float64") else [(1.0, 3.0, 1 / 3)])
        add(f"addcmul value={value}", 1, 100, dt, torch.addcmul(s, t1, t2, value=value), s, t1, t2, scalar=value)
        s, t1, t2 = values(dt, N), values(dt, N), values(dt, N)
        add(f"addcdiv value={value}", 1, 101, dt, torch.addcdiv(s, t1, t2, value=value), s, t1, t2, scalar=value)
    s, e = reproducer(dt, [(1e10, -65504.0)] if dt != "float16" else [(1000.0, -65504.0)])
    w = values(dt, N)
    w[0] = -0.4104292217161998
    w[1:64] = torch.tensor(rng.uniform(-1.5, 1.5, 63), dtype=torch.float64).to(DT[dt])
    add("lerp", 1, 102, dt, torch.lerp(s, e, w), s, e, w)

# 3: half mul, div and floor/trunc division by a one-element second operand.
for dt in ("float16", "bfloat16"):
    a = values(dt, N, specials=False)
    a[:3] = torch.tensor([3388.0, 3.0, 3.0], dtype=DT[dt])
    scalars = [(524288.0, "float64"), (0.1, "float64"), (0.1, "float32"), (-7.3, "float64"),
               (3.0, "float16"), (0.3, "bfloat16" if dt == "float16" else "float16"),
               (16777217.0, "int64"), (1.0, "bool"), (1e-30, "float64")]
    for op, fn in (("BC_MUL", lambda x, y: x * y), ("BC_DIV", lambda x, y: x / y),
                   ("BC_DIV_TRUNC", lambda x, y: torch.div(x, y, rounding_mode="trunc")),
                   ("BC_DIV_FLOOR", lambda x, y: torch.div(x, y, rounding_mode="floor"))):
        for sv, sdt in scalars:
            for sndim in (0, 1):
                if sndim == 1 and sdt != dt:
                    continue  # a dimensioned operand of another dtype changes the result dtype
                st = torch.tensor(sv if sdt != "int64" else int(sv), dtype=DT[sdt])
                if sndim:
                    st = st.reshape(1)
                add(f"{op} by {sdt} {sv}", 2, op, dt, fn(a, st), a, scalar=sv, sdt=sdt, sndim=sndim)

# 5: half trunc and floor division round each step in the half type.
for dt in ("float16", "bfloat16"):
    a, b = values(dt, N), values(dt, N)
    a[:4] = torch.tensor([9984.0, 10000.0, -10000.0, 1.0], dtype=DT[dt])
    b[:4] = torch.tensor([45.0, -7.0, 7.0, 3.0], dtype=DT[dt])
    a[4:64] = torch.tensor(rng.integers(-20000, 20000, 60), dtype=torch.float64).to(DT[dt])
    b[4:64] = torch.tensor(rng.integers(1, 300, 60) * rng.choice([-1, 1], 60), dtype=torch.float64).to(DT[dt])
    add("div trunc", 0, "BC_DIV_TRUNC", dt, torch.div(a, b, rounding_mode="trunc"), a, b)
    add("div floor", 0, "BC_DIV_FLOOR", dt, torch.div(a, b, rounding_mode="floor"), a, b)

# 7: fmax/fmin and zeros of both signs, NaN (maximum/minimum: PyTorch's
# scalar loop, the first operand on ties; see docs/numerics.md).
for dt in FLOATS:
    z = [0.0, -0.0, math.nan, 1.0, -1.0]
    pairs = [(x, y) for x in z for y in z]
    a = torch.tensor([p[0] for p in pairs] * 5 + [0.0] * 3, dtype=DT[dt])
    b = torch.tensor([p[1] for p in pairs] * 5 + [-0.0] * 3, dtype=DT[dt])
    for op, fn in (("BC_FMAX", torch.fmax), ("BC_FMIN", torch.fmin)):
        add(op[3:].lower(), 0, op, dt, fn(a, b), a, b)
    for op, fn in (("BC_MAXIMUM", torch.maximum), ("BC_MINIMUM", torch.minimum)):
        want = torch.stack([fn(a[i:i + 1], b[i:i + 1])[0] for i in range(a.numel())])
        add(op[3:].lower() + " (scalar loop)", 0, op, dt, want, a, b)

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_numerics.inc")
with open(out, "w") as f:
    f.write(f"// Generated by tests/gen_torch_numerics.py from PyTorch {torch.__version__}; do not edit.\n")
    for name, ctype, vals in arrays:
        f.write(f"const {ctype} {name}[] = {{{', '.join(vals)}}};\n")
    f.write("const TorchCase kTorchCases[] = {\n")
    for c in cases:
        f.write(f"    {c},\n")
    f.write("};\n")
print(f"{len(cases)} cases -> {out}", file=sys.stderr)
