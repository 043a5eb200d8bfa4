#!/usr/bin/env python3
"""The unary matrix: every unary op of the op table x every dtype it takes,
against PyTorch 2.x and NumPy 2.x, on the same buffers, in one run.

Layouts (out= into a preallocated contiguous (1024,4096) result):
  contig  a contiguous (1024,4096) input
  transp  a (4096,1024) buffer viewed .T (strides (1,1024))
at 1 thread and at all cores (--threads 1,all), then a size sweep (1K..64M
elements, powers of 4) of exp, sigmoid and gelu on float32. The float ops
(exp, sqrt, ...) on integers and bool give float32, the predicates bool,
square of bool int64; out= has the result's dtype. Parameters take
PyTorch's defaults (bc_unary_out(); torch.<op>(x, out=o), or
torch._C._nn.<op>(x, out=o) for the activations).

Per cell: bcast's time, PyTorch time / bcast time and NumPy time / bcast
time (above 1: bcast is faster), and bcast's GB/s (input + output bytes)
over a copy of the same bytes at the same thread count, timed alternately
with the cell (the copy ceiling). Times are medians of alternating runs (bcast,
PyTorch, NumPy, each round starting with the next library). NumPy is
single-threaded at every thread count. isnan, isinf and isfinite have no
out= in PyTorch: its time there includes allocating the result ('a').

The project's targets, printed next to each cell and in the summary:
  exact ops        >= 1.25x PyTorch, or >= 0.9 of the copy ceiling where
                   PyTorch already is within 1.25x of it;
  transcendentals  >= 1.0x PyTorch per cell, geometric mean >= 1.5x.
Speed is reported, never asserted: the exit status is 0 unless something
could not run at all.

    python bench/unary_matrix.py --lib build/libbcast.so [--quick] [--threads 1,all]
        [--ops exp,neg] [--dtypes f32,bf16] [--layouts contig,transp] [--runs N]
        [--no-sweep] [--markdown F] [--json F]
or  bash scripts/bench.sh unary [same options]
"""

import argparse
import concurrent.futures
import ctypes
import json
import math
import os
import platform
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# The binary/ternary matrix's helpers: dtypes, dtype sets, the library
# wrapper, alternating medians, the copy ceiling, the exact ops' target.
from matrix import (DTYPES, FLOATING, Bcast, accepts, geomean, measure, meets_target,  # noqa: E402
                    ops_table)

import numpy as np  # noqa: E402
import torch  # noqa: E402

ROWS, COLS = 1024, 4096

# Not transcendental: the project's exact ops (tests/differential/test_torch.py
# UNARY_EXACT: PyTorch's bits), whose target is the copy ceiling.
EXACT = {"neg", "abs", "sign", "square", "relu", "hardtanh", "floor", "ceil", "round", "trunc",
         "frac", "nan_to_num", "bitwise_not", "sqrt", "rsqrt", "reciprocal", "hardsigmoid",
         "hardswish", "leaky_relu", "isnan", "isinf", "isposinf", "isneginf", "isfinite",
         "signbit", "logical_not"}
TARGET_TRANS_CELL = 1.0
TARGET_TRANS_GEOMEAN = 1.5

QUICK_OPS = ["neg", "floor", "sqrt", "exp", "sigmoid", "isnan", "bitwise_not"]
QUICK_DTYPES = ["f32", "i32", "bool"]

# The activations: torch.nn.functional has no out=, its ATen op has.
TORCH_NN = {"hardtanh", "gelu", "silu", "mish", "softplus", "hardsigmoid", "hardswish", "elu",
            "leaky_relu"}
TORCH_NO_OUT = {"isnan", "isinf", "isfinite"}  # timed allocating

# NumPy's ufunc of each op that NumPy has (relu and hardtanh: one ufunc call
# with PyTorch's default bounds). Absent: '-'.
NUMPY = {
    "neg": "negative", "abs": "absolute", "sign": "sign", "square": "square", "floor": "floor",
    "ceil": "ceil", "round": "rint", "trunc": "trunc", "bitwise_not": "invert", "sqrt": "sqrt",
    "reciprocal": "reciprocal", "exp": "exp", "exp2": "exp2", "expm1": "expm1", "log": "log",
    "log2": "log2", "log10": "log10", "log1p": "log1p", "sin": "sin", "cos": "cos",
    "tan": "tan", "asin": "arcsin", "acos": "arccos", "atan": "arctan", "sinh": "sinh",
    "cosh": "cosh", "tanh": "tanh", "asinh": "arcsinh", "acosh": "arccosh",
    "atanh": "arctanh", "isnan": "isnan", "isinf": "isinf", "isposinf": "isposinf",
    "isneginf": "isneginf", "isfinite": "isfinite", "signbit": "signbit",
    "logical_not": "logical_not",
}

# Input values inside each op's domain (floating dtypes: uniform in
# [lo, hi); integers: the integers in it). Others: DEFAULT_RANGE, and
# integers in [-100, 100] for the ops that keep the dtype.
DOMAIN = {
    "sqrt": (0.0, 100.0), "rsqrt": (0.01, 100.0), "log": (0.01, 100.0), "log2": (0.01, 100.0),
    "log10": (0.01, 100.0), "log1p": (-0.99, 100.0), "asin": (-1.0, 1.0), "acos": (-1.0, 1.0),
    "atanh": (-0.99, 0.99), "erfinv": (-0.99, 0.99), "acosh": (1.0, 10.0),
    "logit": (0.01, 0.99),
}
DEFAULT_RANGE = (-4.0, 4.0)
# Ops whose floating inputs get 1% NaN, +inf and -inf.
SPECIALS = {"nan_to_num", "isnan", "isinf", "isposinf", "isneginf", "isfinite"}


class UnaryBcast(Bcast):
    def __init__(self, path):
        super().__init__(path)
        P = ctypes.c_void_p
        self.lib.bc_unary_out.argtypes = [ctypes.c_int, P, P]

    def unary(self, name, h, o):
        f, v = self.lib.bc_unary_out, ops_table.BC_UNARY_OP[name]
        return lambda: f(v, h, o)


def result_dtype(op, dt):
    if op["promotion"] in ("kCompare", "kLogical"):
        return "bool"
    if op["promotion"] == "kToFloat" and dt not in FLOATING:
        return "f32"
    if op["name"] == "square" and dt == "bool":
        return "i64"
    return dt


def torch_fn(name):
    if name == "relu":  # no out= form: clamp_min is what torch.relu runs
        return lambda x, o: torch.clamp_min(x, 0, out=o)
    if name in TORCH_NO_OUT:
        g = getattr(torch, name)
        return lambda x, o: g(x)
    g = getattr(torch._C._nn, name) if name in TORCH_NN else getattr(torch, name)
    return lambda x, o: g(x, out=o)


def numpy_fn(name, dt, rdt):
    if DTYPES[dt][2] is None or DTYPES[rdt][2] is None:
        return None
    if name == "relu":
        return lambda x, o: np.maximum(x, 0, out=o)
    if name == "hardtanh":
        return lambda x, o: np.clip(x, -1, 1, out=o)
    u = NUMPY.get(name)
    if u is None:
        return None
    g = getattr(np, u)
    if u in ("isposinf", "isneginf"):  # not ufuncs
        return lambda x, o: g(x, out=o)
    if rdt != dt and rdt != "bool":  # the float ops on integers: the float32 loop, as PyTorch
        t = DTYPES[rdt][2]
        return lambda x, o: g(x, out=o, dtype=t)
    return lambda x, o: g(x, out=o)


def make_input(op, dt, layout, gen, rows=ROWS, cols=COLS):
    """The input, (rows, cols): contiguous, or a (cols, rows) buffer's .T."""
    shape = (rows, cols) if layout == "contig" else (cols, rows)
    name = op["name"]
    tdt = DTYPES[dt][1]
    lo, hi = DOMAIN.get(name, DEFAULT_RANGE)
    if dt == "bool":
        t = torch.from_numpy(gen.random(shape) < 0.5)
    elif dt in FLOATING:
        a = gen.uniform(lo, hi, shape)
        if name in SPECIALS:
            k = gen.random(shape)
            a[k < 0.01] = np.nan
            a[(k >= 0.01) & (k < 0.02)] = np.inf
            a[(k >= 0.02) & (k < 0.03)] = -np.inf
        t = torch.from_numpy(a).to(tdt)
    else:
        if op["promotion"] == "kToFloat":
            ilo, ihi = math.ceil(lo), math.floor(hi)
        else:
            ilo, ihi = -100, 100
        info = torch.iinfo(tdt)
        ilo, ihi = max(ilo, info.min), min(ihi, info.max)
        if ilo > ihi:
            ilo, ihi = ihi, ilo
        t = torch.from_numpy(gen.integers(ilo, ihi + 1, shape)).to(tdt)
    return t if layout == "contig" else t.T


# ------------------------------------------------------------- copy ceiling

_COPIES = {}
_POOL = None


def copy_fns(nbytes, threads):
    """Copies of nbytes (source + destination) at this thread count, to be
    timed next to a cell (its ceiling: the fastest): one memmove at 1
    thread (matrix.py's ceiling); at more, `threads` memmoves of a slice
    each on Python threads (ctypes lets go of the GIL) and PyTorch's own
    parallel byte copy. Buffers are kept per size."""
    key = (nbytes, threads)
    if key in _COPIES:
        return _COPIES[key]
    half = max(64, nbytes // 2)
    a = torch.ones(half, dtype=torch.uint8)
    b = torch.empty_like(a)
    mm = ctypes.memmove
    if threads == 1:
        fns = [lambda: mm(b.data_ptr(), a.data_ptr(), half)]
    else:
        global _POOL
        if _POOL is None or _POOL._max_workers != threads:
            _POOL = concurrent.futures.ThreadPoolExecutor(threads)
        pool = _POOL
        step = ((half + threads - 1) // threads + 63) // 64 * 64
        parts = [(b.data_ptr() + s, a.data_ptr() + s, min(step, half - s))
                 for s in range(0, half, step)]

        def threaded():
            for f in [pool.submit(mm, *p) for p in parts]:
                f.result()
        fns = [threaded, lambda: b.copy_(a)]
    _COPIES[key] = (fns, 2 * half)
    return _COPIES[key]


def ceiling_of(times, nbytes):
    """GB/s of the fastest of copy_fns' times."""
    return nbytes / min(times) / 1e9


# ------------------------------------------------------------------- cells

def cells(only_ops, only_dtypes, layouts):
    for op in ops_table.UNARY_OPS:
        if only_ops and op["name"] not in only_ops:
            continue
        for dt in DTYPES:
            if not accepts(op["dtypes"], dt) or (only_dtypes and dt not in only_dtypes):
                continue
            for layout in layouts:
                yield op, dt, layout


def run_cell(bc, op, dt, layout, threads, runs, gen):
    name = op["name"]
    x = make_input(op, dt, layout, gen)
    rdt = result_dtype(op, dt)
    out = torch.empty((ROWS, COLS), dtype=DTYPES[rdt][1])
    r = {"op": name, "dtype": dt, "out_dtype": rdt, "layout": layout, "threads": threads,
         "exact": name in EXACT}
    hx, ho = bc.wrap(x, dt), bc.wrap(out, rdt)
    try:
        fb = bc.unary(name, hx, ho)
        if fb() != 0:
            r["error"] = bc.lib.bc_last_error().decode()
            return r
        tf = torch_fn(name)
        ft = lambda: tf(x, out)  # noqa: E731
        try:
            ft()
        except Exception as e:  # PyTorch does not run this cell
            ft = None
            r["torch_error"] = str(e).splitlines()[0]
        nf = numpy_fn(name, dt, rdt)
        fn = None
        if nf is not None:
            nx, no = x.numpy(), out.numpy()
            fn = lambda: nf(nx, no)  # noqa: E731
            try:
                with np.errstate(all="ignore"):
                    fn()
            except Exception:
                fn = None
        nbytes = x.numel() * x.element_size() + out.numel() * out.element_size()
        copies, cbytes = copy_fns(nbytes, threads)
        with np.errstate(all="ignore"):
            tb, tt, tn, *tc = measure([fb, ft, fn] + copies, runs)
    finally:
        bc.lib.bc_tensor_free(hx)
        bc.lib.bc_tensor_free(ho)
    r.update(bcast_s=tb, torch_s=tt, numpy_s=tn, gbps=nbytes / tb / 1e9,
             ceiling_gbps=ceiling_of(tc, cbytes))
    return r


def cell_target(r):
    """(target text, met: True/False/None where PyTorch has no time)."""
    if r["exact"]:
        text = ">=1.25x/0.9c"
        return text, (meets_target(r) if r.get("torch_s") else None)
    text = f">={TARGET_TRANS_CELL:.2f}x"
    return text, (r["torch_s"] / r["bcast_s"] >= TARGET_TRANS_CELL if r.get("torch_s") else None)


CELL_HEAD = ["op", "dtype", "layout", "bcast ms", "GB/s", "x PyTorch", "x NumPy", "x copy",
             "target", "met"]
CELL_WIDTHS = [11, 8, 6, 8, 6, 9, 7, 6, 12, 4]  # the progress lines'


def cell_row(r):
    dt = r["dtype"] if r["out_dtype"] == r["dtype"] else f"{r['dtype']}>{r['out_dtype']}"
    if r.get("error"):
        return [r["op"], dt, r["layout"], "error: " + r["error"][:60], "", "", "", "", "", ""]
    xt = f"{r['torch_s'] / r['bcast_s']:.2f}x" if r.get("torch_s") else "-"
    if r.get("torch_s") and r["op"] in TORCH_NO_OUT:
        xt += "a"
    xn = f"{r['numpy_s'] / r['bcast_s']:.2f}x" if r.get("numpy_s") else "-"
    target, met = cell_target(r)
    return [r["op"], dt, r["layout"], f"{r['bcast_s'] * 1e3:.3f}", f"{r['gbps']:.1f}", xt, xn,
            f"{r['gbps'] / r['ceiling_gbps']:.2f}", target,
            {True: "ok", False: "MISS", None: "n/a"}[met]]


# ------------------------------------------------------------------ output

class Report:
    """Text blocks and tables, rendered as aligned text (stdout) or
    Markdown (--markdown)."""

    def __init__(self):
        self.blocks = []

    def text(self, s):
        self.blocks.append(("text", s))

    def table(self, head, rows):
        self.blocks.append(("table", head, rows))

    @staticmethod
    def widths(head, rows):
        return [max(len(str(c)) for c in col) for col in zip(head, *rows)]

    @staticmethod
    def line(cells, widths):
        return "  " + " ".join(str(c).rjust(w) if i else str(c).ljust(w)
                               for i, (c, w) in enumerate(zip(cells, widths)))

    def render_text(self):
        out = []
        for b in self.blocks:
            if b[0] == "text":
                out.append(b[1])
            else:
                w = self.widths(b[1], b[2])
                out += [self.line(b[1], w)] + [self.line(r, w) for r in b[2]]
        return "\n".join(out)

    def render_markdown(self):
        out = []
        for b in self.blocks:
            if b[0] == "text":
                out.append(b[1])
            else:
                out.append("")
                out.append("| " + " | ".join(b[1]) + " |")
                out.append("|" + "|".join("---" if i == 0 else "---:"
                                          for i in range(len(b[1]))) + "|")
                out += ["| " + " | ".join(str(c) for c in r) + " |" for r in b[2]]
                out.append("")
        return "\n".join(out)


def summary(results, threads, cpu, rep):
    rows = [r for r in results if r["threads"] == threads and not r.get("error")]
    if not rows:
        return
    p = rep.text
    errors = [r for r in results if r["threads"] == threads and r.get("error")]
    p(f"\n## Summary, {threads} thread(s), {cpu}")
    if errors:
        p(f"bcast errors: {len(errors)} cells (" +
          ", ".join(f"{r['op']} {r['dtype']} {r['layout']}" for r in errors[:8]) + ")")
    head = ["class", "cells", "with PyTorch", "geomean x PyTorch", "geomean x NumPy (cells)",
            "below 1.0x", "target missed", "worst cell vs PyTorch"]
    table = []
    for label, sel in (("exact", lambda r: r["exact"]),
                       ("transcendental", lambda r: not r["exact"]), ("all", lambda r: True)):
        rs = [r for r in rows if sel(r)]
        if not rs:
            continue
        tr = [r for r in rs if r.get("torch_s")]
        ratios = [r["torch_s"] / r["bcast_s"] for r in tr]
        nps = [r["numpy_s"] / r["bcast_s"] for r in rs if r.get("numpy_s")]
        gm = geomean(ratios)
        missed = sum(1 for r in tr if cell_target(r)[1] is False)
        worst = min(tr, key=lambda r: r["torch_s"] / r["bcast_s"]) if tr else None
        gtext = f"{gm:.2f}x" if tr else "-"
        if label == "transcendental" and tr:
            gtext += f" (target >= {TARGET_TRANS_GEOMEAN}x: " + \
                ("ok" if gm >= TARGET_TRANS_GEOMEAN else "MISS") + ")"
        table.append([
            label, len(rs), len(tr), gtext,
            f"{geomean(nps):.2f}x ({len(nps)})" if nps else "-",
            sum(1 for x in ratios if x < 1.0), f"{missed} of {len(tr)}",
            (f"{worst['op']} {worst['dtype']} {worst['layout']} "
             f"{worst['torch_s'] / worst['bcast_s']:.2f}x") if worst else "-"])
    rep.table(head, table)
    by_layout = {}
    for r in rows:
        if r.get("torch_s"):
            by_layout.setdefault(r["layout"], []).append(r["torch_s"] / r["bcast_s"])
    p("geomean x PyTorch by layout: " +
      ", ".join(f"{k} {geomean(v):.2f}x" for k, v in by_layout.items()))
    by_dt = {}
    for r in rows:
        if r.get("torch_s"):
            by_dt.setdefault(r["dtype"], []).append(r["torch_s"] / r["bcast_s"])
    p("geomean x PyTorch by input dtype: " +
      ", ".join(f"{k} {geomean(v):.2f}x" for k, v in by_dt.items()))
    missed = [r for r in rows if r.get("torch_s") and cell_target(r)[1] is False]
    if missed:
        p(f"cells that miss their target ({len(missed)}): " +
          ", ".join(f"{r['op']} {r['dtype']} {r['layout']} {r['torch_s'] / r['bcast_s']:.2f}x"
                    for r in sorted(missed, key=lambda r: r["torch_s"] / r["bcast_s"])[:40]) +
          (" ..." if len(missed) > 40 else ""))


# ------------------------------------------------------------------- sweep

def numpy_sweep_fn(name):
    if name == "exp":
        return lambda x, o: np.exp(x, out=o)
    if name == "sigmoid":  # what a NumPy user writes: four passes
        def f(x, o):
            np.negative(x, out=o)
            np.exp(o, out=o)
            np.add(o, 1, out=o)
            np.reciprocal(o, out=o)
        return f
    return None  # gelu (the erf form): NumPy has no erf


def sweep(bc, runs, threads, quick, rep):
    gen = np.random.default_rng(1)
    sizes = [1 << k for k in range(10, 19 if quick else 27, 2)]
    names = ["exp", "sigmoid", "gelu"]
    rep.text(f"\n## Size sweep, float32, contiguous, {threads} thread(s): bcast us, "
             "x PyTorch, x NumPy; copy: GB/s of a copy of the same bytes")
    head = ["elements"]
    for n in names:
        head += [f"{n} us", "x PT", "x NP"]
    head += ["bcast GB/s (exp)", "copy GB/s"]
    rows = []
    for n in sizes:
        x = torch.from_numpy(gen.uniform(-4.0, 4.0, n).astype(np.float32))
        out = torch.empty(n, dtype=torch.float32)
        nx, no = x.numpy(), out.numpy()
        hx, ho = bc.wrap(x, "f32"), bc.wrap(out, "f32")
        row = [str(n)]
        exp_gbps = None
        try:
            for name in names:
                fb = bc.unary(name, hx, ho)
                tf = torch_fn(name)
                nf = numpy_sweep_fn(name)
                copies = copy_fns(8 * n, threads)[0] if name == "exp" else []
                with np.errstate(all="ignore"):
                    tb, tt, tn, *tc = measure([fb, lambda: tf(x, out),
                                               (lambda: nf(nx, no)) if nf else None] + copies,
                                              runs)
                row += [f"{tb * 1e6:.1f}", f"{tt / tb:.2f}x", f"{tn / tb:.2f}x" if tn else "-"]
                if name == "exp":
                    exp_gbps = 8 * n / tb / 1e9
                    copy_gbps = ceiling_of(tc, copy_fns(8 * n, threads)[1])
        finally:
            bc.lib.bc_tensor_free(hx)
            bc.lib.bc_tensor_free(ho)
        row += [f"{exp_gbps:.1f}", f"{copy_gbps:.1f}"]
        rows.append(row)
    rep.table(head, rows)


# -------------------------------------------------------------------- main

def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            return next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        return platform.processor() or "unknown CPU"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lib", required=True, help="path to libbcast.so")
    ap.add_argument("--runs", type=int, default=7, help="alternating runs per cell (median)")
    ap.add_argument("--quick", action="store_true",
                    help=f"smoke test: ops {','.join(QUICK_OPS)}, dtypes "
                         f"{','.join(QUICK_DTYPES)}, 2 runs, sweep up to 256K elements")
    ap.add_argument("--threads", default="1,all", help="thread counts, e.g. 1,all or all")
    ap.add_argument("--ops", help="only these ops (comma-separated PyTorch names)")
    ap.add_argument("--dtypes", help="only these input dtypes (comma-separated: f32,bf16,...)")
    ap.add_argument("--layouts", default="contig,transp", help="contig, transp or both")
    ap.add_argument("--no-sweep", action="store_true")
    ap.add_argument("--markdown", help="also write the tables to this file (Markdown)")
    ap.add_argument("--json", help="write every cell's times to this file")
    args = ap.parse_args()
    runs = 2 if args.quick else args.runs
    only_ops = args.ops.split(",") if args.ops else (QUICK_OPS if args.quick else None)
    only_dtypes = args.dtypes.split(",") if args.dtypes else (QUICK_DTYPES if args.quick else None)
    layouts = args.layouts.split(",")
    known = {o["name"] for o in ops_table.UNARY_OPS}
    bad = [o for o in only_ops or [] if o not in known] + \
        [d for d in only_dtypes or [] if d not in DTYPES] + \
        [l for l in layouts if l not in ("contig", "transp")]
    if bad:
        ap.error("unknown op, dtype or layout: " + ", ".join(bad))

    bc = UnaryBcast(args.lib)
    ncpu = os.cpu_count() or 1
    thread_counts = list(dict.fromkeys(ncpu if t == "all" else int(t)
                                       for t in args.threads.split(",")))
    cpu = cpu_model()
    rep = Report()
    rep.text(f"# bcast {bc.lib.bc_version_string().decode()} "
             f"({bc.lib.bc_simd_target().decode()}): unary ops vs PyTorch {torch.__version__} "
             f"and NumPy {np.__version__}")
    rep.text(f"machine: {cpu}, {ncpu} cores, {platform.platform()}; thread counts "
             f"{', '.join(map(str, thread_counts))}; shape ({ROWS},{COLS}), out= contiguous; "
             f"median of {runs} alternating runs")
    rep.text("x PyTorch, x NumPy: their time / bcast's (above 1: bcast is faster; 'a': PyTorch "
             "allocates, having no out=); x copy: bcast GB/s / a copy of the same bytes at the "
             "same thread count; targets: exact ops >= 1.25x PyTorch or >= 0.9 of the copy "
             "where PyTorch is within 1.25x of it (>=1.25x/0.9c), transcendentals >= 1.0x per "
             f"cell and geomean >= {TARGET_TRANS_GEOMEAN}x")
    print(rep.render_text(), flush=True)
    started = len(rep.blocks)

    results = []
    t0 = time.time()
    for threads in thread_counts:
        torch.set_num_threads(threads)
        bc.lib.bc_set_num_threads(threads)
        gen = np.random.default_rng(0)
        rep.text(f"\n## {threads} thread(s): (1024,4096) out=")
        print(rep.render_text().splitlines()[-1], flush=True)
        print(Report.line(CELL_HEAD, CELL_WIDTHS), flush=True)
        rows = []
        for op, dt, layout in cells(only_ops, only_dtypes, layouts):
            r = run_cell(bc, op, dt, layout, threads, runs, gen)
            results.append(r)
            rows.append(cell_row(r))
            print(Report.line(rows[-1], CELL_WIDTHS), flush=True)
        rep.table(CELL_HEAD, rows)
        summary(results, threads, cpu, rep)
        if not args.no_sweep:
            sweep(bc, runs, threads, args.quick, rep)
    # The summaries and sweeps (the per-cell lines were printed as they came;
    # --markdown has them as tables).
    tail = Report()
    tail.blocks = [b for b in rep.blocks[started:]
                   if (b[0] == "text" and not b[1].endswith("out=")) or
                   (b[0] == "table" and b[1] is not CELL_HEAD)]
    print(tail.render_text())
    print(f"\n({time.time() - t0:.0f} s)")
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(rep.render_markdown() + "\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
