"""Writes tests/data/scalar_ops.txt: PyTorch's answers for ops with a Python
number operand, which tests/test_scalar_ops.cc replays through the C API
(bc_binary_scalar, bc_binary_rscalar, their out= and in-place forms, and
bc_tensor_from_scalar's tensors in bc_binary, bc_where, bc_clamp, bc_lerp).

    PY=$(bash scripts/venv.sh); $PY tests/gen_scalar_ops.py          # rewrite
    PY=$(bash scripts/venv.sh); $PY tests/gen_scalar_ops.py --check  # compare

Every binary op of src/op_table.def on a small tensor of each of the 10
dtypes, with a number (bool, int, float; tricky values, and pow's special
exponents for pow) second ("L": torch.op(x, s)) and first ("R":
torch.op(s, x)). Where PyTorch's Python API refuses a number for that
position (maximum, hypot, logical_and, 2 < x, ...) the row starts with
"be" instead of "b" and PyTorch's answer is computed as TensorIterator
treats a wrapped number: result_type(x, s), and the number, as an int64,
float64 or bool 0-dim tensor, cast to that dtype. Lines:

    in <dtype> <element bits in hex>...         the tensor x of that dtype
    b  <op> <dtype> <L|R> <number> = <dtype> <bits>...   a result
    b  <op> <dtype> <L|R> <number> ! <PyTorch's error text>
    t  <op> <dtype> <arg> <arg> = ... / ! ...   where(cond, a, b), clamp(x,
       lo, hi), lerp(x, flip(x), w); an arg is X (the tensor), - (None) or a
       number
    te addcmul|addcdiv <dtype> <arg> <arg> ...  addcmul(x, a, b, value=2)
       (addcdiv likewise), the number emulated as for "be" rows
    tcs clamp <dtype> <lo> <hi> <form> = ... / ! ...   torch.clamp(x, lo, hi)
       with numbers (bc_clamp_scalar): form - (allocating), i (in place:
       x's values after) or an out dtype (out=: the out's values after)
    tv addcmul|addcdiv <dtype> <value> - = ... / ! ...   addcmul(x, x, x,
       value=...) (addcdiv(x, x, f, value=...) with f float32 [1, 2, -1,
       4, 0.5, -2, 8]), an integral value passed as an int
    ba add|sub <dtype> <L|R> <number> <alpha> = ... / ! ...   torch.add(x, s,
       alpha=...) or torch.add(s, x, alpha=...) (sub likewise); "bae" where
       the number is emulated as for "be" rows

Numbers: b:0/b:1, i:<int>, f:<float.hex()>.
"""
import math
import os
import struct
import sys

import torch
from torch._prims_common import ELEMENTWISE_TYPE_PROMOTION_KIND, elementwise_dtypes

DEFAULT = ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT

DTYPES = [("bool", torch.bool), ("uint8", torch.uint8), ("int8", torch.int8),
          ("int16", torch.int16), ("int32", torch.int32), ("int64", torch.int64),
          ("float16", torch.float16), ("bfloat16", torch.bfloat16),
          ("float32", torch.float32), ("float64", torch.float64)]
NAME = {d: n for n, d in DTYPES}

# bc_op order (src/op_table.def); div_trunc/div_floor are torch.div with a rounding mode.
OPS = ["add", "sub", "mul", "div", "div_trunc", "div_floor", "remainder", "fmod", "pow",
       "maximum", "minimum", "fmax", "fmin", "atan2", "hypot", "copysign", "eq", "ne", "lt",
       "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "bitwise_and",
       "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift"]

VALUES = {
    "bool": [True, False, True, True, False, True],
    "uint8": [1, 2, 3, 7, 100, 255],
    "int8": [1, 2, -3, 7, 100, -128],
    "int16": [1, 2, -3, 7, 1000, -32768],
    "int32": [1, 2, -3, 7, 100000, -2**31],
    "int64": [1, 2, -3, 7, 2**40, -2**63],
}
# Seven elements: PyTorch's scalar loop for every dtype (its vector loop may
# differ on ties of maximum/minimum, see docs/fidelity.md).
FLOATS = [1.0, -2.5, 0.1, -0.0, math.nan, -math.inf, 0.0]

NUMBERS = [True, False, 0, 3, -7, 300, 2**40, 2.5, -0.0, 0.1, 1e10, math.nan, math.inf]
POW_NUMBERS = NUMBERS + [1, 2, -1, -2, 0.5, -0.5, -1.0, 2.0, 3.0, -2.0, 0.0, 1.0, 1.5]

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "scalar_ops.txt")


def tensor(dtype):
    vals = VALUES.get(NAME[dtype], FLOATS)
    return torch.tensor(vals, dtype=dtype)


def bits(t):
    t = t.contiguous()
    if t.dtype == torch.bool:
        return " ".join(str(int(v)) for v in t.tolist())
    size = t.element_size()
    raw = t.view({1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[size])
    mask = (1 << (8 * size)) - 1
    return " ".join(format(v & mask, "x") for v in raw.tolist())


def number(v):
    if isinstance(v, bool):
        return f"b:{int(v)}"
    if isinstance(v, int):
        return f"i:{v}"
    return f"f:{float.hex(v)}"


def call(op, a, b):
    if op in ("div_trunc", "div_floor"):
        return torch.div(a, b, rounding_mode=op[4:])
    return getattr(torch, op)(a, b)


def wrapped_as_tensor(op, v, like):
    """A number as TensorIterator sees it: its own dtype cast to the common one
    (float32 where the op promotes integers to float)."""
    common = torch.result_type(like, v)
    if op in ("atan2", "copysign") and not common.is_floating_point:
        common = torch.float32
    own = torch.bool if isinstance(v, bool) else torch.int64 if isinstance(v, int) else torch.float64
    return torch.tensor(v, dtype=own).to(common)


def outcome(fn):
    try:
        r = fn()
    except TypeError:
        raise
    except Exception as e:  # PyTorch's RuntimeError, NotImplementedError, ...
        return "! " + str(e).split("\n")[0]
    return f"= {NAME[r.dtype]} {bits(r)}"


def number_row(op, dtype, pos, v, fn):
    """fn(a, b) on the tensor and the number v in position pos; when PyTorch's
    Python API refuses the number there, on the number as TensorIterator sees
    it. Returns (emulated, outcome)."""
    x = tensor(dtype)
    args = (x, v) if pos == "L" else (v, x)
    try:
        return False, outcome(lambda: fn(*args))
    except TypeError:
        pass
    try:
        z = wrapped_as_tensor(op, v, x)
    except Exception as e:
        return True, "! " + str(e).split("\n")[0]
    args = (x, z) if pos == "L" else (z, x)
    return True, outcome(lambda: fn(*args))


def binary_row(op, dtype, pos, v):
    emulated, res = number_row(op, dtype, pos, v, lambda a, b: call(op, a, b))
    return ("be" if emulated else "b"), res


# add/sub with alpha and a number operand. Alphas: Python ints and floats
# whose kind the C API (a double) can tell apart (an integral float alpha on
# an integer result is PyTorch's error but an integral double to bcast).
ALPHA_NUMBERS = [True, 3, -7, 2**40, 2.5, -0.0, math.nan, math.inf]
ALPHAS = [2, -1, 0.5, -2.5]


def alpha_row(op, dtype, pos, v, alpha):
    emulated, res = number_row(op, dtype, pos, v,
                               lambda a, b: getattr(torch, op)(a, b, alpha=alpha))
    return ("bae" if emulated else "ba"), res


def ternary_rows(dtype):
    rows = []
    x = tensor(dtype)
    cond = torch.tensor([True, False, True, False, True, False, True, False][:x.numel()])
    for a, b in [("X", 2.5), ("X", 3), ("X", True), (2.5, "X"), (-7, "X"), (2, 3.5), (True, 0)]:
        def fn(a=a, b=b):
            return torch.where(cond, x if a == "X" else a, x if b == "X" else b)
        rows.append(("where", a, b, fn))
    for lo, hi in [(2, None), (None, 2), (-1, 5), (0.5, 2.5), (300, None), (None, -300),
                   (True, None), (math.nan, None), (None, math.nan), (1, math.nan), (1e10, None),
                   (-1e10, 1e10), (5, 1)]:
        rows.append(("clamp", lo, hi, lambda lo=lo, hi=hi: torch.clamp(x, lo, hi)))
    for w in [0.5, 0.1, 2, 1e10, -0.0, True]:
        rows.append(("lerp", "X", w, lambda w=w: torch.lerp(x, x.flip(0), w)))
    out = []

    def arg(v):
        return "X" if v == "X" else "-" if v is None else number(v)

    for op, a, b, fn in rows:
        out.append(f"t {op} {NAME[dtype]} {arg(a)} {arg(b)} {outcome(fn)}")
    # addcmul/addcdiv(x, t1, t2, value=2) with a number as t1 or t2: PyTorch's Python
    # API takes only tensors there, so ("te") the number as TensorIterator
    # would see it, cast to the common dtype of the three.
    for op in ("addcmul", "addcdiv"):
        for a, b in [("X", 2.5), ("X", 3), ("X", True), (0.1, "X"), (-7, "X")]:
            def fn(op=op, a=a, b=b):
                num = b if a == "X" else a
                common = elementwise_dtypes(x, x, num, type_promotion_kind=DEFAULT)[1]
                own = (torch.bool if isinstance(num, bool) else
                       torch.int64 if isinstance(num, int) else torch.float64)
                z = torch.tensor(num, dtype=own).to(common)
                return getattr(torch, op)(x, x if a == "X" else z, x if b == "X" else z, value=2)
            out.append(f"te {op} {NAME[dtype]} {arg(a)} {arg(b)} {outcome(fn)}")
    return out


# PyTorch's transcendental bits depend on the CPU it runs on (SLEEF u10/u35
# or MKL VML by dispatch): int32 100000 ** 0.5 is 0x439e1d28 on an AMD EPYC,
# 0x439e1d27 on an Intel Xeon. Rows of pow (but for exponents PyTorch
# computes exactly: pow(Tensor, Scalar) with 0, +-1, 2, 3, -2, -0.5),
# atan2 and hypot agree when every element is within 1 ulp; every other row
# bit for bit. tests/test_scalar_ops.cc applies the same rule (UlpsFor) and
# pins bcast's own bits for those rows in tests/data/scalar_ops_pins.txt.
SPECIAL_EXPONENTS = {0, 1, 2, 3, -2, -0.5, -1}


def ulps_for(row):
    f = row.split()
    kind, op = f[0], f[1]
    if kind not in ("b", "be"):
        return 0
    if op in ("atan2", "hypot"):
        return 1
    if op == "pow":
        n = f[4]
        v = {"b": lambda t: int(t), "i": int, "f": float.fromhex}[n[0]](n[2:])
        return 0 if f[3] == "L" and v in SPECIAL_EXPONENTS else 1
    return 0


def ordered(bits, size):
    sign = 1 << (8 * size - 1)
    mag = bits & (sign - 1)
    return -mag if bits & sign else mag


def is_nan(bits, dtype):
    exp, mant = {"float16": (5, 10), "bfloat16": (8, 7), "float32": (8, 23),
                 "float64": (11, 52)}[dtype]
    return (bits >> mant) & ((1 << exp) - 1) == (1 << exp) - 1 and bits & ((1 << mant) - 1) != 0


def within_ulp(want, got):
    """Whether two rows' results agree within 1 ulp (NaN with NaN, inf exactly)."""
    w, g = want.split(" = "), got.split(" = ")
    if len(w) != 2 or len(g) != 2 or w[0] != g[0]:
        return False
    wd, *wb = w[1].split()
    gd, *gb = g[1].split()
    if wd != gd or len(wb) != len(gb) or wd not in ("float16", "bfloat16", "float32", "float64"):
        return False
    size = {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8}[wd]
    for a, b in zip(wb, gb):
        a, b = int(a, 16), int(b, 16)
        if a == b or (is_nan(a, wd) and is_nan(b, wd)):
            continue
        if is_nan(a, wd) or is_nan(b, wd) or abs(ordered(a, size) - ordered(b, size)) > 1:
            return False
        inf = {"float16": 0x7c00, "bfloat16": 0x7f80, "float32": 0x7f800000,
               "float64": 0x7ff0000000000000}[wd]
        if (a & ~(1 << (8 * size - 1))) == inf or (b & ~(1 << (8 * size - 1))) == inf:
            return False
    return True


def check(old, new):
    """The committed table against this PyTorch's answers: exact, but for the
    rows whose bits PyTorch computes differently by CPU (ulps_for)."""
    if len(old) != len(new):
        sys.exit(f"{OUT} has {len(old)} rows, this PyTorch {len(new)}: run {sys.argv[0]}")
    near = 0
    for want, got in zip(old, new):
        if want == got:
            continue
        if ulps_for(want) and within_ulp(want, got):
            near += 1
            continue
        sys.exit(f"{OUT} differs from this PyTorch's answers: run {sys.argv[0]}\n"
                 f"  table: {want}\n  torch: {got}")
    print(f"{OUT}: agrees with torch {torch.__version__}"
          f" ({near} rows within 1 ulp, where PyTorch's bits vary by CPU)")


# clamp(Tensor, Scalar?, Scalar?) (bc_clamp_scalar*) alone: its allocating,
# in-place ("i") and out= forms (an out dtype), where PyTorch's scalar
# overload has rules of its own: the out dtype must be the result dtype
# (checked first), the in-place cast error names C++ types, a NaN bound
# gives NaN before the other bound's range is checked.
CLAMP_SCALAR_BOUNDS = [(0.5, 2.5), (2, None), (None, 2), (math.nan, 1e300), (1e300, math.nan),
                       (math.nan, None), (None, math.nan), (1e300, None), (-1e300, 1e300),
                       (300, None), (-5, 300), (math.nan, 300), (1, math.nan), (70000.0, None),
                       (True, None), (-1, 5)]
CLAMP_OUT_DTYPES = ["float32", "float64", "int64", "int32", "bool", "uint8", "float16"]


def clamp_scalar_rows(dtype):
    rows = []

    def arg(v):
        return "-" if v is None else number(v)

    for lo, hi in CLAMP_SCALAR_BOUNDS:
        x = tensor(dtype)
        rows.append(f"tcs clamp {NAME[dtype]} {arg(lo)} {arg(hi)} - "
                    f"{outcome(lambda: torch.clamp(x, lo, hi))}")

        def inplace():
            y = x.clone()
            y.clamp_(lo, hi)
            return y

        rows.append(f"tcs clamp {NAME[dtype]} {arg(lo)} {arg(hi)} i {outcome(inplace)}")
        for od in CLAMP_OUT_DTYPES:
            def out_form(od=od):
                o = torch.zeros(x.numel(), dtype=dict(DTYPES)[od])
                torch.clamp(x, lo, hi, out=o)
                return o
            rows.append(f"tcs clamp {NAME[dtype]} {arg(lo)} {arg(hi)} {od} {outcome(out_form)}")
    return rows


# addcmul/addcdiv's `value` (a double in the C API: an integral one is a
# Python int, as for alpha), through the checks of the common dtype: uint8
# takes -255..-1 as an int (they wrap, PyTorch's non-strict unsigned
# conversion), a float value must fit (-2.5 does not).
VALUES_ADDC = [-2, -129, -255, -256, 255, 256, 127, 128, 2.5, -2.5, 70000.0, 2 ** 31, 2 ** 62,
               1e39, math.nan, math.inf]


def addc_value_rows(dtype):
    rows = []
    x = tensor(dtype)
    f = torch.tensor([1.0, 2.0, -1.0, 4.0, 0.5, -2.0, 8.0][:x.numel()])
    for op in ("addcmul", "addcdiv"):
        for v in VALUES_ADDC:
            if isinstance(v, float) and v.is_integer() and abs(v) < 2 ** 63:
                v = int(v)  # the convention: an integral double is an int
            # addcdiv needs a floating divisor: t2 = float32 values there.
            t2 = f if op == "addcdiv" else x
            rows.append(f"tv {op} {NAME[dtype]} {number(v)} - "
                        f"{outcome(lambda: getattr(torch, op)(x, x, t2, value=v))}")
    return rows


def main():
    assert torch.get_default_dtype() == torch.float32
    lines = [f"# torch {torch.__version__}: written by tests/gen_scalar_ops.py; do not edit"]
    for _, d in DTYPES:
        lines.append(f"in {NAME[d]} {bits(tensor(d))}")
    for op in OPS:
        for _, d in DTYPES:
            for pos in "LR":
                for v in POW_NUMBERS if op == "pow" else NUMBERS:
                    kind, res = binary_row(op, d, pos, v)
                    lines.append(f"{kind} {op} {NAME[d]} {pos} {number(v)} {res}")
    for op in ("add", "sub"):
        for _, d in DTYPES:
            for pos in "LR":
                for v in ALPHA_NUMBERS:
                    for alpha in ALPHAS:
                        kind, res = alpha_row(op, d, pos, v, alpha)
                        lines.append(f"{kind} {op} {NAME[d]} {pos} {number(v)} {number(alpha)} {res}")
    for _, d in DTYPES:
        lines += ternary_rows(d)
    for _, d in DTYPES:
        lines += clamp_scalar_rows(d)
    for _, d in DTYPES:
        lines += addc_value_rows(d)
    text = "\n".join(lines) + "\n"
    if "--check" in sys.argv:
        with open(OUT) as f:
            old = f.read()
        check(old.split("\n")[1:], text.split("\n")[1:])
        return
    with open(OUT, "w") as f:
        f.write(text)
    print(f"wrote {len(lines) - 1} rows ({len(text)} bytes) to {OUT}")


if __name__ == "__main__":
    main()
