#!/usr/bin/env python3
"""The whole matrix: every op of the op table x every dtype it takes, against
PyTorch 2.x and NumPy 2.x, on the same buffers, in one run.

Patterns (out= into a preallocated result):
  same   (1024,4096) op (1024,4096)
  row    (1024,4096) op (4096,)
  3way   ternaries: (1024,4096), (1024,1), (1,4096)
at 1 thread and at all cores, then a size sweep (1K..64M elements) of add,
mul and where on float32, and the machine's copy bandwidth measured in the
same run. Times are medians of alternating runs (bcast, PyTorch, NumPy, one
after the other, so that a noisy machine hurts all alike). Ratios are
PyTorch time / bcast time (above 1: bcast is faster). Speed is reported,
never asserted.

Run through scripts/bench.sh (which creates the venv and builds bcast), or:
    python bench/matrix.py --lib build/libbcast.so [--quick] [--markdown F]
"""

import argparse
import ctypes
import json
import math
import os
import platform
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "differential"))
import ops_table  # noqa: E402  (generated from src/op_table.def)

import numpy as np  # noqa: E402
import torch  # noqa: E402

# bc_dtype values, PyTorch and NumPy dtypes.
DTYPES = {
    "bool": (0, torch.bool, np.bool_),
    "u8": (1, torch.uint8, np.uint8),
    "i8": (2, torch.int8, np.int8),
    "i16": (3, torch.int16, np.int16),
    "i32": (4, torch.int32, np.int32),
    "i64": (5, torch.int64, np.int64),
    "f16": (6, torch.float16, np.float16),
    "bf16": (7, torch.bfloat16, None),
    "f32": (8, torch.float32, np.float32),
    "f64": (9, torch.float64, np.float64),
}
FLOATING = ("f16", "bf16", "f32", "f64")


def accepts(dtypes, dt):
    return {
        "kAnyDtype": True,
        "kNoBool": dt != "bool",
        "kFloating": dt in FLOATING,
        "kIntegralOrBool": dt not in FLOATING,
        "kIntegral": dt not in FLOATING and dt != "bool",
    }[dtypes]


def result_dtype(op, dt):
    if op.get("promotion") in ("kCompare", "kLogical"):
        return "bool"
    if op.get("promotion") == "kToFloat" and dt not in FLOATING:
        return "f32"
    return dt


# PyTorch and NumPy forms of each op (out= into o). None: no such form.
def torch_fn(name):
    t = torch
    f = {
        "add": lambda a, b, o: t.add(a, b, out=o),
        "sub": lambda a, b, o: t.sub(a, b, out=o),
        "mul": lambda a, b, o: t.mul(a, b, out=o),
        "div": lambda a, b, o: t.div(a, b, out=o),
        "div_trunc": lambda a, b, o: t.div(a, b, rounding_mode="trunc", out=o),
        "div_floor": lambda a, b, o: t.div(a, b, rounding_mode="floor", out=o),
        "where": lambda c, a, b, o: t.where(c, a, b, out=o),
        "addcmul": lambda s, a, b, o: t.addcmul(s, a, b, value=0.5, out=o),
        "addcdiv": lambda s, a, b, o: t.addcdiv(s, a, b, value=0.5, out=o),
        "lerp": lambda s, e, w, o: t.lerp(s, e, w, out=o),
        "clamp": lambda x, lo, hi, o: t.clamp(x, lo, hi, out=o),
    }.get(name)
    if f is None:
        g = getattr(t, name)
        f = lambda a, b, o: g(a, b, out=o)  # noqa: E731
    return f


NUMPY = {
    "add": "add", "sub": "subtract", "mul": "multiply", "div": "true_divide",
    "div_floor": "floor_divide", "remainder": "remainder", "fmod": "fmod", "pow": "power",
    "maximum": "maximum", "minimum": "minimum", "fmax": "fmax", "fmin": "fmin",
    "atan2": "arctan2", "hypot": "hypot", "copysign": "copysign", "eq": "equal",
    "ne": "not_equal", "lt": "less", "le": "less_equal", "gt": "greater",
    "ge": "greater_equal", "logical_and": "logical_and", "logical_or": "logical_or",
    "logical_xor": "logical_xor", "bitwise_and": "bitwise_and", "bitwise_or": "bitwise_or",
    "bitwise_xor": "bitwise_xor", "bitwise_left_shift": "left_shift",
    "bitwise_right_shift": "right_shift",
}


def numpy_fn(name, dt):
    if DTYPES[dt][2] is None:
        return None
    if name == "clamp":
        return lambda x, lo, hi, o: np.clip(x, lo, hi, out=o)
    u = NUMPY.get(name)
    if u is None:
        return None
    g = getattr(np, u)
    return lambda a, b, o: g(a, b, out=o)


class Bcast:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        L = self.lib
        P, I64P = ctypes.c_void_p, ctypes.POINTER(ctypes.c_int64)
        L.bc_tensor_wrap.argtypes = [ctypes.c_int, I64P, I64P, ctypes.c_size_t, P,
                                     ctypes.c_size_t, P, P, ctypes.POINTER(P)]
        L.bc_tensor_free.argtypes = [P]
        L.bc_binary_out.argtypes = [ctypes.c_int, P, P, P]
        L.bc_where_out.argtypes = [P, P, P, P]
        for f in ("addcmul", "addcdiv"):
            getattr(L, f"bc_{f}_out").argtypes = [P, P, P, ctypes.c_double, P]
        L.bc_lerp_out.argtypes = [P, P, P, P]
        L.bc_clamp_out.argtypes = [P, P, P, P]
        L.bc_set_num_threads.argtypes = [ctypes.c_int]
        L.bc_last_error.restype = ctypes.c_char_p
        L.bc_simd_target.restype = ctypes.c_char_p
        L.bc_version_string.restype = ctypes.c_char_p

    def wrap(self, t, dt):
        shape = (ctypes.c_int64 * max(1, t.dim()))(*t.shape)
        strides = (ctypes.c_int64 * max(1, t.dim()))(*t.stride())
        h = ctypes.c_void_p()
        nbytes = t.untyped_storage().nbytes()
        st = self.lib.bc_tensor_wrap(DTYPES[dt][0], shape, strides, t.dim(),
                                     ctypes.c_void_p(t.data_ptr()), nbytes, None, None,
                                     ctypes.byref(h))
        if st != 0:
            raise RuntimeError(self.lib.bc_last_error().decode())
        return h

    def call(self, name, value, hs, o):
        L = self.lib
        if name == "where":
            return lambda: L.bc_where_out(hs[0], hs[1], hs[2], o)
        if name in ("addcmul", "addcdiv"):
            f = getattr(L, f"bc_{name}_out")
            return lambda: f(hs[0], hs[1], hs[2], 0.5, o)
        if name in ("lerp", "clamp"):
            f = getattr(L, f"bc_{name}_out")
            return lambda: f(hs[0], hs[1], hs[2], o)
        return lambda: L.bc_binary_out(value, hs[0], hs[1], o)


def make(shape, dt, role, name, gen):
    """Operand values that keep the op meaningful (no division by zero,
    shifts within the width, pow without overflow where it matters)."""
    tdt = DTYPES[dt][1]
    if dt == "bool":
        return torch.from_numpy(gen.random(shape) < 0.5)
    if dt in FLOATING:
        lo, hi = (0.0, 1.0) if name == "lerp" and role == 2 else (0.5, 2.0)
        return torch.from_numpy(gen.uniform(lo, hi, shape)).to(tdt)
    if name.startswith("bitwise_") and "shift" in name and role == 1:
        return torch.from_numpy(gen.integers(0, 7, shape)).to(tdt)
    if name == "pow":
        return torch.from_numpy(gen.integers(0, 4, shape)).to(tdt)
    return torch.from_numpy(gen.integers(1, 100, shape)).to(tdt)


def median_time(fn, min_s=0.01):
    fn()
    t0 = time.perf_counter()
    fn()
    one = max(1e-7, time.perf_counter() - t0)
    k = max(1, int(min_s / one))
    t0 = time.perf_counter()
    for _ in range(k):
        fn()
    return (time.perf_counter() - t0) / k


def measure(fns, runs):
    """Median seconds per call of each fn (None stays None), alternating.
    Each round starts with the next library: what ran just before (its
    stores still in the cache, or streamed past it) changes a cache-resident
    cell by 10-15% on the 2-core VM, so no library always goes first."""
    times = [[] for _ in fns]
    for r in range(runs):
        for j in range(len(fns)):
            i = (r + j) % len(fns)
            if fns[i] is not None:
                times[i].append(median_time(fns[i]))
    return [statistics.median(t) if t else None for t in times]


def copy_bandwidth(bc, nbytes=512 << 20, runs=5):
    """GB/s of a plain copy (bytes read + written) whose source and
    destination together take nbytes: 512 MiB by default (memory), or a
    cell's own working set, as that cell's ceiling (in the cache when the
    cell's operands are)."""
    half = max(64, nbytes // 2)
    a = torch.ones(half, dtype=torch.uint8)
    b = torch.empty_like(a)
    f = lambda: ctypes.memmove(b.data_ptr(), a.data_ptr(), half)  # noqa: E731
    t = measure([f], runs)[0]
    return 2 * half / t / 1e9


_CEILINGS = {}


def cell_ceiling(bc, nbytes):
    """The copy bandwidth at a cell's working set (cached per size)."""
    if nbytes not in _CEILINGS:
        _CEILINGS[nbytes] = copy_bandwidth(bc, nbytes)
    return _CEILINGS[nbytes]


def meets_target(r):
    """Issue 12's rule for one cell: >= 1.25x PyTorch, or >= 0.9x of the
    cell's ceiling where PyTorch is already within 1.25x of that ceiling."""
    ratio = r["torch_s"] / r["bcast_s"]
    c = r.get("ceiling_gbps")
    torch_gbps = r["gbps"] * r["bcast_s"] / r["torch_s"]
    return ratio >= 1.25 or (c is not None and r["gbps"] >= 0.9 * c and torch_gbps * 1.25 >= c)


def cells(quick, only_ops=None, only_dtypes=None):
    def skip(op, dt):
        return (only_ops and op["name"] not in only_ops) or (only_dtypes and dt not in only_dtypes)
    for op in ops_table.BINARY_OPS:
        for dt in DTYPES:
            if not accepts(op["dtypes"], dt) or skip(op, dt):
                continue
            for pat in (("same",) if quick else ("same", "row")):
                yield op["name"], op["value"], op, dt, pat
    for op in ops_table.TERNARY_OPS:
        for dt in DTYPES:
            if not accepts(op["dtypes"], dt) or skip(op, dt):
                continue
            yield op["name"], None, op, dt, "3way"


def run_cell(bc, name, value, op, dt, pat, runs, gen, rows=1024, cols=4096):
    nin = 3 if pat == "3way" else 2
    if pat == "same":
        shapes = [(rows, cols), (rows, cols)]
    elif pat == "row":
        shapes = [(rows, cols), (cols,)]
    else:
        shapes = [(rows, cols), (rows, 1), (1, cols)]
    dts = ["bool", dt, dt] if name == "where" else [dt] * nin
    ins = [make(s, d, i, name, gen) for i, (s, d) in enumerate(zip(shapes, dts))]
    rdt = result_dtype(op, dt)
    out = torch.empty((rows, cols), dtype=DTYPES[rdt][1])
    hs = [bc.wrap(t, d) for t, d in zip(ins, dts)]
    ho = bc.wrap(out, rdt)
    try:
        fb = bc.call(name, value, hs, ho)
        if fb() != 0:
            return {"error": bc.lib.bc_last_error().decode()}
        tf = torch_fn(name)
        ft = lambda: tf(*ins, out)  # noqa: E731
        try:
            ft()
        except Exception as e:  # PyTorch does not run this cell
            ft = None
            terr = str(e).splitlines()[0]
        nf = numpy_fn(name, dt) if name != "where" else None
        fn = None
        if nf is not None:
            nins = [t.numpy() for t in ins]
            nout = out.numpy()
            fn = lambda: nf(*nins, nout)  # noqa: E731
            try:
                with np.errstate(all="ignore"):
                    fn()
            except Exception:
                fn = None
        with np.errstate(all="ignore"):
            tb, tt, tn = measure([fb, ft, fn], runs)
    finally:
        for h in hs + [ho]:
            bc.lib.bc_tensor_free(h)
    nbytes = sum(t.numel() * t.element_size() for t in ins) + out.numel() * out.element_size()
    r = {"bcast_s": tb, "torch_s": tt, "numpy_s": tn, "gbps": nbytes / tb / 1e9,
         "ceiling_gbps": cell_ceiling(bc, nbytes)}
    if ft is None:
        r["torch_error"] = terr
    return r


def geomean(xs):
    xs = [x for x in xs if x]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def report(results, threads, ceiling, out_lines):
    rows = [r for r in results if r["threads"] == threads and r.get("torch_s")]
    if not rows:  # (--ops/--dtypes left no cell)
        return
    ratios = [r["torch_s"] / r["bcast_s"] for r in rows]
    nps = [r["numpy_s"] / r["bcast_s"] for r in rows if r.get("numpy_s")]
    slower = sum(1 for x in ratios if x < 1.0)
    under = sum(1 for x in ratios if x < 1.25)
    missed = [r for r in rows if not meets_target(r)]
    p = out_lines.append
    p(f"\n## {threads} thread(s): {len(rows)} cells against PyTorch, {len(nps)} against NumPy")
    p(f"geometric mean vs PyTorch {geomean(ratios):.2f}x (median {statistics.median(ratios):.2f}x), "
      f"vs NumPy {geomean(nps):.2f}x; slower than PyTorch: {slower}; under 1.25x: {under}")
    p(f"target (>= 1.25x PyTorch, or >= 0.9x the cell's copy ceiling where PyTorch is within "
      f"1.25x of it): {len(rows) - len(missed)} of {len(rows)} cells meet it")
    worst = sorted(rows, key=lambda r: r["torch_s"] / r["bcast_s"])[:25]
    p("\nworst cells (op dtype pattern: bcast GB/s, x PyTorch, x NumPy, x memory copy, "
      "x copy of the cell's working set, target met):")
    for r in worst:
        npr = f"{r['numpy_s'] / r['bcast_s']:.2f}x" if r.get("numpy_s") else "n/a"
        cc = r.get("ceiling_gbps")
        p(f"  {r['op']:>20} {r['dtype']:>4} {r['pattern']:>4}: {r['gbps']:6.2f} GB/s  "
          f"{r['torch_s'] / r['bcast_s']:6.2f}x  {npr:>6}  {r['gbps'] / ceiling:5.2f}  "
          f"{r['gbps'] / cc if cc else float('nan'):5.2f}  {'yes' if meets_target(r) else 'no'}")
    by_dt = {}
    for r in rows:
        by_dt.setdefault(r["dtype"], []).append(r["torch_s"] / r["bcast_s"])
    p("geomean by dtype: " + ", ".join(f"{d} {geomean(v):.2f}x" for d, v in by_dt.items()))
    by_op = {}
    for r in rows:
        by_op.setdefault(r["op"], []).append(r["torch_s"] / r["bcast_s"])
    p("geomean by op: " + ", ".join(f"{o} {geomean(v):.2f}x" for o, v in by_op.items()))


def sweep(bc, runs, threads, out_lines):
    gen = np.random.default_rng(1)
    p = out_lines.append
    p(f"\n## size sweep, float32, same shape, {threads} thread(s): x PyTorch (bcast GB/s)")
    sizes = [1 << k for k in range(10, 27, 2)]
    ops = [("add", 0, {"promotion": "kPromote"}), ("mul", 2, {"promotion": "kPromote"}),
           ("where", None, {})]
    p("  elements " + " ".join(f"{n:>13}" for n in sizes))
    for name, value, op in ops:
        cols = []
        for n in sizes:
            nin = 3 if name == "where" else 2
            dts = ["bool", "f32", "f32"] if name == "where" else ["f32"] * nin
            ins = [make((n,), d, i, name, gen) for i, d in enumerate(dts)]
            out = torch.empty(n, dtype=torch.float32)
            hs = [bc.wrap(t, d) for t, d in zip(ins, dts)]
            ho = bc.wrap(out, "f32")
            fb = bc.call(name, value, hs, ho)
            tf = torch_fn(name)
            tb, tt = measure([fb, lambda: tf(*ins, out)], runs)
            for h in hs + [ho]:
                bc.lib.bc_tensor_free(h)
            nbytes = sum(t.numel() * t.element_size() for t in ins) + n * 4
            cols.append(f"{tt / tb:5.2f}x ({nbytes / tb / 1e9:5.1f})")
        p(f"  {name:>8} " + " ".join(f"{c:>13}" for c in cols))
    # What the cache or memory allows one thread at each size: a copy of
    # add's bytes (from 64K elements up; below, the call itself dominates).
    if threads == 1:
        p("  copy of add's bytes, GB/s (the ceiling where both libraries run at it):")
        p("           " + " ".join(f"{cell_ceiling(bc, 12 * n):13.1f}" for n in sizes))


# Short rows and medium sizes (issue 23 items 10 and 11): inner dims of 3 to
# 16 elements (points, RGBA, small channel counts, outer sums with a short
# side), several broadcast dims, and ops of 10K-300K elements where a second
# thread must not cost more than it brings. (name, op, dtype, shapes).
SHAPES = [
    ("outer, 7-wide side", "add", "f32", [(10000, 1), (1, 7)]),
    ("outer, 7-tall side", "add", "f32", [(7, 1), (1, 10000)]),
    ("points + (3,)", "add", "f32", [(100000, 3), (3,)]),
    ("points * (N,1)", "mul", "f32", [(100000, 3), (100000, 1)]),
    ("RGBA u8 * (4,)", "mul", "u8", [(256, 256, 4), (4,)]),
    ("RGBA + (H,W,1)", "add", "f32", [(256, 256, 4), (256, 256, 1)]),
    ("16 channels + (16,)", "add", "f32", [(8192, 16), (16,)]),
    ("6-D product", "mul", "f32", [(16, 1, 8, 1, 6, 1), (1, 9, 1, 5, 1, 4)]),
    ("6-D product, small", "mul", "f32", [(8, 1, 3, 1, 5, 1), (1, 6, 1, 4, 1, 3)]),
    ("(300,300)-(300,1)", "sub", "f64", [(300, 300), (300, 1)]),
    ("(100,100)+(100,)", "add", "f32", [(100, 100), (100,)]),
    ("(16,1,512)+(16,512,1)", "add", "f32", [(16, 1, 512), (16, 512, 1)]),
    ("(512,512)+(512,)", "add", "f32", [(512, 512), (512,)]),
    ("same (65536,)", "add", "f32", [(65536,), (65536,)]),
    ("same (262144,)", "add", "f32", [(262144,), (262144,)]),
]


def shapes_table(bc, runs, thread_counts, out_lines):
    """SHAPES at each thread count: x PyTorch, x NumPy, x a copy of the
    cell's working set, and (from the second count on) bcast's time at the
    first count over its time at this one (below 1: more threads were
    slower)."""
    gen = np.random.default_rng(2)
    p = out_lines.append
    first = {}
    for threads in thread_counts:
        torch.set_num_threads(threads)
        bc.lib.bc_set_num_threads(threads)
        p(f"\n## short rows and medium ops, {threads} thread(s), out=")
        p(f"  {'case':<24} {'dtype':>5} {'elements':>9} {'bcast us':>9} {'x PyTorch':>9} "
          f"{'x NumPy':>8} {'x copy':>7}" + (f" {'vs ' + str(thread_counts[0]) + 't':>7}"
                                              if threads != thread_counts[0] else ""))
        for name, opname, dt, shp in SHAPES:
            value = next((o["value"] for o in ops_table.BINARY_OPS if o["name"] == opname), None)
            ins = [make(s, dt, i, opname, gen) for i, s in enumerate(shp)]
            res = torch.broadcast_shapes(*shp)
            out = torch.empty(res, dtype=DTYPES[dt][1])
            hs = [bc.wrap(t, dt) for t in ins]
            ho = bc.wrap(out, dt)
            fb = bc.call(opname, value, hs, ho)
            tf = torch_fn(opname)
            nf = numpy_fn(opname, dt)
            nins = [t.numpy() for t in ins]
            nout = out.numpy()
            tb, tt, tn = measure([fb, lambda: tf(*ins, out),
                                  (lambda: nf(*nins, nout)) if nf else None], runs)
            for h in hs + [ho]:
                bc.lib.bc_tensor_free(h)
            nbytes = sum(t.numel() * t.element_size() for t in ins) + out.numel() * out.element_size()
            cc = cell_ceiling(bc, nbytes)
            line = (f"  {name:<24} {dt:>5} {out.numel():>9} {tb * 1e6:9.2f} {tt / tb:8.2f}x "
                    f"{(tn / tb if tn else float('nan')):7.2f}x {nbytes / tb / 1e9 / cc:7.2f}")
            if threads == thread_counts[0]:
                first[name] = tb
            else:
                line += f" {first[name] / tb:6.2f}x"
            p(line)
            print(line, flush=True)


def machine_line(bc):
    """The versions compared and the machine (CPU model, cores, OS): two lines."""
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return (f"# bcast {bc.lib.bc_version_string().decode()} ({bc.lib.bc_simd_target().decode()}) vs "
            f"PyTorch {torch.__version__} and NumPy {np.__version__}\n"
            f"machine: {cpu or platform.processor()}, {os.cpu_count() or 1} cores, {platform.platform()}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lib", required=True, help="path to libbcast.so")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="same-shape cells only, 3 runs")
    ap.add_argument("--threads", default="1,all", help="thread counts, e.g. 1,all")
    ap.add_argument("--no-sweep", action="store_true")
    ap.add_argument("--markdown", help="also write the report to this file")
    ap.add_argument("--json", help="write every cell's times to this file")
    ap.add_argument("--ops", help="only these ops (comma-separated PyTorch names)")
    ap.add_argument("--dtypes", help="only these dtypes (comma-separated: f32,bf16,...)")
    ap.add_argument("--shapes", action="store_true",
                    help="only the short-row and medium-size cases (SHAPES), at each thread count")
    args = ap.parse_args()
    runs = 3 if args.quick else args.runs

    bc = Bcast(args.lib)
    ncpu = os.cpu_count() or 1
    lines = []
    p = lines.append
    p(machine_line(bc))
    torch.set_num_threads(1)
    bc.lib.bc_set_num_threads(1)
    ceiling = copy_bandwidth(bc)
    p(f"copy bandwidth (1 thread, read + write, 512 MiB): {ceiling:.1f} GB/s")
    print("\n".join(lines), flush=True)

    results = []
    thread_counts = [ncpu if t == "all" else int(t) for t in args.threads.split(",")]
    if args.shapes:
        shapes_table(bc, runs, list(dict.fromkeys(thread_counts)), lines)
        if args.markdown:
            with open(args.markdown, "w") as f:
                f.write("\n".join(lines) + "\n")
        return
    for threads in dict.fromkeys(thread_counts):
        torch.set_num_threads(threads)
        bc.lib.bc_set_num_threads(threads)
        gen = np.random.default_rng(0)
        for name, value, op, dt, pat in cells(args.quick, args.ops and args.ops.split(","),
                                                  args.dtypes and args.dtypes.split(",")):
            r = run_cell(bc, name, value, op, dt, pat, runs, gen)
            r.update(op=name, dtype=dt, pattern=pat, threads=threads)
            results.append(r)
            if r.get("torch_s"):
                print(f"  [{threads}t] {name:>20} {dt:>4} {pat:>4}: {r['gbps']:6.2f} GB/s "
                      f"{r['torch_s'] / r['bcast_s']:6.2f}x PyTorch", flush=True)
            else:
                print(f"  [{threads}t] {name:>20} {dt:>4} {pat:>4}: "
                      f"{r.get('error') or r.get('torch_error')}", flush=True)
        report(results, threads, ceiling, lines)
        if not args.no_sweep:
            sweep(bc, runs, threads, lines)
    print("\n".join(lines[2:]))
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("\n".join(lines) + "\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
