#!/usr/bin/env python3
"""Fused expressions (bc_expr) against the same chains run op by op: PyTorch
2.x eager, torch.compile (when it can compile here), bcast eager (out=
forms, temporaries allocated beforehand), bcast fused (bc_expr_eval_out) and
a hand-fused C loop with streaming stores (bench/expr_hand.c), float32, in
one run, at 16M and 64K elements, 1 thread and all cores. Issue 27's
targets: fused >= 2x PyTorch eager, >= 1.3x bcast eager, >= 1.0x
torch.compile, >= 0.8x the hand-fused loop; and a 32-element chain of four
ops cheaper than four bcast calls.

    python bench/expr_bench.py --lib build/libbcast.so \
        --hand build/bench/libbcbench_expr_hand.so [--threads 1,all] [--runs 5]
"""

import argparse
import ctypes
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import matrix  # noqa: E402  (Bcast, measure, geomean, machine_line)

import torch  # noqa: E402

P = ctypes.c_void_p


class Scalar(ctypes.Structure):
    class _V(ctypes.Union):
        _fields_ = [("b", ctypes.c_int), ("i", ctypes.c_int64), ("f", ctypes.c_double)]
    _fields_ = [("kind", ctypes.c_int), ("v", _V)]


def scalar(x):
    s = Scalar()
    if isinstance(x, bool):
        s.kind, s.v.b = 0, int(x)
    elif isinstance(x, int):
        s.kind, s.v.i = 1, x
    else:
        s.kind, s.v.f = 2, float(x)
    return s


# Each chain: its text, a builder tree (op, args...) over inputs a, b, c
# (numbers as Python numbers), the eager op sequence for bcast and PyTorch,
# and the hand loop's name. "norm" has m and s of shape (R, 1).
CHAINS = [
    ("a*b + c", ("add", ("mul", "a", "b"), "c"), "hand_fma_chain"),
    ("where(a > 0, a, 0.1*a)", ("where", ("gt", "a", 0), "a", ("mul", 0.1, "a")), "hand_leaky"),
    ("(x - m) / s", ("div", ("sub", "a", "b"), "c"), "hand_norm"),
    ("clamp((a - b)*c, 0, 1)", ("clamp", ("mul", ("sub", "a", "b"), "c"), 0, 1), "hand_clamp"),
    ("sigmoid(a) * b", ("mul", ("sigmoid", "a"), "b"), "hand_sigmoid_mul"),
    ("gelu(a) * b", ("mul", ("gelu", "a"), "b"), "hand_gelu_mul"),
]

TORCH_OPS = {"add": torch.add, "mul": torch.mul, "sub": torch.sub, "div": torch.div, "gt": torch.gt,
             "where": torch.where, "clamp": torch.clamp, "sigmoid": torch.sigmoid,
             "gelu": torch.nn.functional.gelu}


def torch_value(tree, env):
    if isinstance(tree, str):
        return env[tree]
    if not isinstance(tree, tuple):
        return tree
    op, *args = tree
    vals = [torch_value(a, env) for a in args]
    return TORCH_OPS[op](*vals)


class Lib(matrix.Bcast):
    def __init__(self, path):
        super().__init__(path)
        L = self.lib
        L.bc_op_name.restype = ctypes.c_char_p
        L.bc_unary_op_name.restype = ctypes.c_char_p
        self.binary = {L.bc_op_name(i).decode(): i for i in range(64) if L.bc_op_name(i)}
        self.unary = {L.bc_unary_op_name(i).decode(): i for i in range(128) if L.bc_unary_op_name(i)}
        L.bc_unary_out.argtypes = [ctypes.c_int, P, P]
        L.bc_tensor_from_scalar.argtypes = [Scalar, ctypes.POINTER(P)]
        L.bc_expr_new.argtypes = [ctypes.c_size_t, ctypes.POINTER(P)]
        L.bc_expr_input.argtypes = [P, ctypes.c_int64, ctypes.POINTER(ctypes.c_int32)]
        L.bc_expr_number.argtypes = [P, ctypes.POINTER(Scalar), ctypes.POINTER(ctypes.c_int32)]
        L.bc_expr_call.argtypes = [P, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int32), ctypes.c_size_t,
                                   ctypes.POINTER(ctypes.c_int32)]
        L.bc_expr_eval_out.argtypes = [P, ctypes.POINTER(P), ctypes.c_size_t, P]
        L.bc_expr_free.argtypes = [P]

    def number(self, x):
        h = P()
        if self.lib.bc_tensor_from_scalar(scalar(x), ctypes.byref(h)) != 0:
            raise RuntimeError(self.lib.bc_last_error().decode())
        return h

    def expr(self, tree):
        """A bc_expr over inputs a, b, c built from the tree."""
        L, e = self.lib, P()
        assert L.bc_expr_new(3, ctypes.byref(e)) == 0
        ids = {}
        for i, name in enumerate("abc"):
            n = ctypes.c_int32()
            assert L.bc_expr_input(e, i, ctypes.byref(n)) == 0
            ids[name] = n.value

        def build(t):
            n = ctypes.c_int32()
            if isinstance(t, str):
                return ids[t]
            if not isinstance(t, tuple):
                s = scalar(t)
                assert L.bc_expr_number(e, ctypes.byref(s), ctypes.byref(n)) == 0
                return n.value
            op, *args = t
            a = (ctypes.c_int32 * len(args))(*[build(x) for x in args])
            if L.bc_expr_call(e, op.encode(), a, len(args), ctypes.byref(n)) != 0:
                raise RuntimeError(L.bc_last_error().decode())
            return n.value

        build(tree)
        return e

    def eager(self, tree, hs, out, temps):
        """The chain op by op into preallocated temporaries: a list of calls."""
        L, calls, k = self.lib, [], [0, 0]

        def run(t, dst):
            if isinstance(t, str):
                return hs[t]
            if not isinstance(t, tuple):
                return self.number(t)
            op, *args = t
            ins = [run(a, None) for a in args]
            if dst is None:
                dst = temps[op == "gt"][k[op == "gt"]]
                k[op == "gt"] += 1
            if op in self.unary:
                calls.append(lambda f=L.bc_unary_out, c=self.unary[op], x=ins[0], d=dst: f(c, x, d))
            elif op == "where":
                calls.append(lambda x=ins, d=dst: L.bc_where_out(x[0], x[1], x[2], d))
            elif op == "clamp":
                calls.append(lambda x=ins, d=dst: L.bc_clamp_out(x[0], x[1], x[2], d))
            else:
                calls.append(lambda c=self.binary[op], x=ins, d=dst: L.bc_binary_out(c, x[0], x[1], d))
            return dst

        run(tree, out)
        return lambda: [c() for c in calls]


def torch_eager(tree, env, out, temps):
    """PyTorch's ops with out=, temporaries allocated beforehand."""
    calls, k = [], [0, 0]

    def run(t, dst):
        if isinstance(t, str):
            return env[t]
        if not isinstance(t, tuple):
            return t
        op, *args = t
        ins = [run(a, None) for a in args]
        if dst is None:
            dst = temps[op == "gt"][k[0]]
            k[0] += 1
        f = TORCH_OPS[op]
        if op == "gelu":
            calls.append(lambda x=ins, d=dst: torch._C._nn.gelu(x[0], out=d))
        elif op == "where":
            calls.append(lambda x=ins, d=dst: torch.where(x[0], x[1], x[2], out=d))
        else:
            calls.append(lambda f=f, x=ins, d=dst: f(*x, out=d))
        return dst

    run(tree, out)
    return lambda: [c() for c in calls]


def compiled(tree):
    try:
        # One lambda's code object serves every chain: without a reset,
        # Dynamo stops recompiling it after 8 and falls back to eager.
        torch._dynamo.reset()
        fn = torch.compile(lambda a, b, c: torch_value(tree, {"a": a, "b": b, "c": c}))
        x = torch.ones(64)
        fn(x, x, x)
        return fn
    except Exception as e:  # no compiler here, or Inductor refused
        print(f"# torch.compile unavailable: {type(e).__name__}: {str(e).splitlines()[0][:120]}")
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", default=os.path.join(HERE, "..", "build", "libbcast.so"))
    ap.add_argument("--hand", default=os.path.join(HERE, "..", "build", "bench", "libbcbench_expr_hand.so"))
    ap.add_argument("--threads", default="1,all")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--no-compile", action="store_true")
    args = ap.parse_args()
    bc = Lib(args.lib)
    hand = ctypes.CDLL(args.hand)
    print(matrix.machine_line(bc))
    gen = __import__("numpy").random.default_rng(0)
    rows_of = {16 << 20: 4096, 1 << 16: 256}
    results = []
    for threads in args.threads.split(","):
        nt = os.cpu_count() if threads == "all" else int(threads)
        torch.set_num_threads(nt)
        bc.lib.bc_set_num_threads(nt)
        hand_threads = ctypes.CDLL(None).omp_set_num_threads if hasattr(ctypes.CDLL(None), "omp_set_num_threads") else None
        if hand_threads:
            hand_threads(nt)
        print(f"\n## {nt} thread(s): ms per call (median of {args.runs} rounds)")
        print(f"{'chain':24} {'n':>9} {'torch':>8} {'compile':>8} {'bc eager':>8} {'bc fused':>8} {'hand':>8}"
              f" {'x torch':>7} {'x comp':>7} {'x eager':>7} {'x hand':>7}")
        for n, rows in rows_of.items():
            for text, tree, hand_name in CHAINS:
                cols = n // rows
                a = torch.from_numpy(gen.uniform(-1, 1, (rows, cols))).float()
                small = text.startswith("(x - m)")
                b = torch.from_numpy(gen.uniform(-1, 1, (rows, 1) if small else (rows, cols))).float()
                c = torch.from_numpy(gen.uniform(0.5, 2, (rows, 1) if small else (rows, cols))).float()
                out = torch.empty(rows, cols)
                temps = ([torch.empty(rows, cols) for _ in range(3)], [torch.empty(rows, cols, dtype=torch.bool)])
                env = {"a": a, "b": b, "c": c}
                hs = {k: bc.wrap(v, "f32") for k, v in env.items()}
                ho = bc.wrap(out, "f32")
                htemps = ([bc.wrap(t, "f32") for t in temps[0]], [bc.wrap(temps[1][0], "bool")])
                e = bc.expr(tree)
                ins = (P * 3)(hs["a"], hs["b"], hs["c"])
                fused = lambda e=e, ins=ins, ho=ho: bc.lib.bc_expr_eval_out(e, ins, 3, ho)  # noqa: E731
                assert fused() == 0, bc.lib.bc_last_error().decode()
                beager = bc.eager(tree, hs, ho, htemps)
                teager = torch_eager(tree, env, out, temps)
                comp = None if args.no_compile else compiled(tree)
                cfn = (lambda comp=comp: comp(a, b, c)) if comp else None
                hf = getattr(hand, hand_name)
                ptr = lambda t: ctypes.c_void_p(t.data_ptr())  # noqa: E731
                if hand_name == "hand_norm":
                    hfn = lambda: hf(ptr(out), ptr(a), ptr(b), ptr(c), ctypes.c_int64(n), ctypes.c_int64(cols))  # noqa
                else:
                    hfn = lambda: hf(ptr(out), ptr(a), ptr(b), ptr(c), ctypes.c_int64(n))  # noqa: E731
                t = matrix.measure([teager, cfn, beager, fused, hfn], args.runs)
                ms = [x * 1e3 if x else None for x in t]
                fmt = lambda x: f"{x:8.3f}" if x else "       -"  # noqa: E731
                r = lambda i: f"{t[i] / t[3]:7.2f}" if t[i] else "      -"  # noqa: E731
                print(f"{text:24} {n:9d} {fmt(ms[0])} {fmt(ms[1])} {fmt(ms[2])} {fmt(ms[3])} {fmt(ms[4])}"
                      f" {r(0)} {r(1)} {r(2)} {r(4)}")
                results.append((nt, n, text, t))
                bc.lib.bc_expr_free(e)
    # A 32-element chain of four ops against four bcast calls.
    torch.set_num_threads(1)
    bc.lib.bc_set_num_threads(1)
    tree = ("clamp", ("mul", ("sub", "a", "b"), "c"), 0, 1)
    env = {k: torch.from_numpy(gen.uniform(-1, 1, 32)).float() for k in "abc"}
    hs = {k: bc.wrap(v, "f32") for k, v in env.items()}
    out = torch.empty(32)
    temps = ([torch.empty(32) for _ in range(3)], [torch.empty(32, dtype=torch.bool)])
    ho = bc.wrap(out, "f32")
    htemps = ([bc.wrap(t, "f32") for t in temps[0]], [bc.wrap(temps[1][0], "bool")])
    e = bc.expr(tree)
    ins = (P * 3)(hs["a"], hs["b"], hs["c"])
    t = matrix.measure([lambda: bc.lib.bc_expr_eval_out(e, ins, 3, ho), bc.eager(tree, hs, ho, htemps)],
                       args.runs)
    print(f"\n32 elements, clamp((a - b)*c, 0, 1) (3 ops), 1 thread, including Python's ctypes calls: "
          f"fused {t[0] * 1e6:.2f} us, bcast eager {t[1] * 1e6:.2f} us")
    print("geometric mean fused vs torch eager: "
          f"{matrix.geomean([r[3][0] / r[3][3] for r in results]):.2f}x; vs bcast eager: "
          f"{matrix.geomean([r[3][2] / r[3][3] for r in results]):.2f}x; vs hand: "
          f"{matrix.geomean([r[3][4] / r[3][3] for r in results]):.2f}x")


if __name__ == "__main__":
    main()
