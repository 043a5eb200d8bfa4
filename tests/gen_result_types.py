"""Writes tests/data/result_types.txt: PyTorch's answers for bc_result_type
and bc_can_cast, which the C++, Rust and Go tests read.

    PY=$(bash scripts/venv.sh); $PY tests/gen_result_types.py          # rewrite
    PY=$(bash scripts/venv.sh); $PY tests/gen_result_types.py --check  # compare

Operands are the 10 dtypes as dimensioned tensors ("T:int32") and as 0-dim
tensors ("Z:int32"), and Python's bool, int and float ("S:bool", "S:int",
"S:float"): 23 kinds. The table holds every ordered pair (torch.result_type),
every unordered triple (torch.result_type takes two operands, so triples come
from torch._prims_common.elementwise_dtypes, PyTorch's own N-ary promotion,
checked here against torch.result_type on every pair and against eager
torch.clamp on the tensor triples it runs), and every ordered dtype pair of
torch.can_cast. Lines:

    rt T:int32 S:float float32      operands..., then the result dtype
    cc float32 int64 0              from, to, torch.can_cast as 0/1
"""
import itertools
import os
import sys

import torch
from torch._prims_common import ELEMENTWISE_TYPE_PROMOTION_KIND, elementwise_dtypes

# bcast's dtype order (bc_dtype values 0..9).
DTYPES = [("bool", torch.bool), ("uint8", torch.uint8), ("int8", torch.int8),
          ("int16", torch.int16), ("int32", torch.int32), ("int64", torch.int64),
          ("float16", torch.float16), ("bfloat16", torch.bfloat16),
          ("float32", torch.float32), ("float64", torch.float64)]
NAME = {d: n for n, d in DTYPES}
SCALARS = [("bool", True), ("int", 3), ("float", 2.5)]

OPERANDS = ([(f"T:{n}", lambda d=d: torch.ones(2, dtype=d)) for n, d in DTYPES] +
            [(f"Z:{n}", lambda d=d: torch.ones((), dtype=d)) for n, d in DTYPES] +
            [(f"S:{n}", lambda v=v: v) for n, v in SCALARS])

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "result_types.txt")


def nary(values):
    return elementwise_dtypes(*values,
                              type_promotion_kind=ELEMENTWISE_TYPE_PROMOTION_KIND.DEFAULT)[1]


def main():
    assert torch.get_default_dtype() == torch.float32
    lines = [f"# torch {torch.__version__}: written by tests/gen_result_types.py; do not edit"]
    for (na, ma), (nb, mb) in itertools.product(OPERANDS, repeat=2):
        a, b = ma(), mb()
        if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
            r = torch.result_type(a, b)
        else:  # torch.result_type wants a tensor first; wrap as PyTorch does
            r = nary([a, b])
        if nary([a, b]) != r:
            sys.exit(f"elementwise_dtypes and torch.result_type disagree on {na} {nb}")
        lines.append(f"rt {na} {nb} {NAME[r]}")
    clamp_checked = 0
    for ops in itertools.combinations_with_replacement(OPERANDS, 3):
        values = [m() for _, m in ops]
        r = nary(values)
        if all(isinstance(v, torch.Tensor) for v in values):
            try:
                eager = torch.clamp(values[0], values[1], values[2]).dtype
            except (RuntimeError, NotImplementedError):
                eager = None  # no clamp kernel for bool
            if eager is not None:
                clamp_checked += 1
                if eager != r:
                    sys.exit(f"torch.clamp and elementwise_dtypes disagree on {ops}")
        lines.append("rt " + " ".join(n for n, _ in ops) + f" {NAME[r]}")
    assert clamp_checked > 1000, clamp_checked
    for (fa, a), (fb, b) in itertools.product(DTYPES, repeat=2):
        lines.append(f"cc {fa} {fb} {int(torch.can_cast(a, b))}")
    text = "\n".join(lines) + "\n"
    if "--check" in sys.argv:
        with open(OUT) as f:
            old = f.read()
        # The torch version in the first line may differ; the answers may not.
        if old.split("\n", 1)[1] != text.split("\n", 1)[1]:
            sys.exit(f"{OUT} differs from this PyTorch's answers: run {sys.argv[0]}")
        print(f"{OUT}: agrees with torch {torch.__version__}")
        return
    with open(OUT, "w") as f:
        f.write(text)
    print(f"wrote {len(lines) - 1} rows to {OUT}")


if __name__ == "__main__":
    main()
