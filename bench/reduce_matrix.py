#!/usr/bin/env python3
"""The reduction matrix: every reduction x every dtype it takes x the layouts
below, against PyTorch 2.x and NumPy 2.x, on the same buffers, in one run.

Layouts (out= into a preallocated contiguous result; PyTorch's count_nonzero
and NumPy's count_nonzero have no out= and allocate):
  all        (1024,4096) contiguous, every dim
  dim0       (1024,4096), dim 0 (columns)
  dim1       (1024,4096), dim 1 (rows)
  last_keep  (1024,4096), dim -1 with keepdim
  mid3d      (64,64,1024), the middle dim
  t_dim0     a (4096,1024) buffer viewed .T (strides (1,1024)), dim 0
  t_dim1     the same view, dim 1
  t_all      the same view, every dim
at 1 thread and at all cores (--threads 1,all). Ops: the 15 of bc_reduce_op
and max/min along a dim (values and indices; not over every dim). Dtypes:
bool, u8, i32, i64, f16, bf16, f32, f64 where the op takes them (i8, i16
with --dtypes). Inputs: floats normal(0, 1), integers in [-100, 100]
(u8: [0, 100]), bool half true.

Per cell: bcast's time, PyTorch's, NumPy's ('-' where NumPy has no such op:
logsumexp, bf16 everywhere, or refuses it), PyTorch time / bcast time (above
1: bcast is faster), bcast's GB/s of input read, and bcast's fraction of a
read-only stream of the same bytes at the same thread count (the
stream ceiling: bench/ceiling.c's bcbench_read, timed alternately with the
cell). Times are medians of alternating runs (bcast, PyTorch, NumPy, the
stream; each round starting with the next). NumPy is single-threaded.

The target (issue 25), printed per cell and summarised: >= 1.25x PyTorch, or
>= 0.9 of the stream; geometric mean >= 1.5x. Speed is reported, never
asserted: the exit status is 0 unless something could not run at all.

    python bench/reduce_matrix.py --lib build/libbcast.so [--quick] [--threads 1,all]
        [--ops sum,amax] [--dtypes f32,i32] [--layouts all,dim0,t_dim1] [--runs N]
        [--markdown F] [--json F]
or  bash scripts/bench.sh reduce [same options]
"""

import argparse
import concurrent.futures
import ctypes
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from matrix import DTYPES, FLOATING, accepts, geomean, measure, ops_table  # noqa: E402
from unary_matrix import Report, cpu_model  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

ROWS, COLS = 1024, 4096
REDUCE = {op["name"]: op for op in ops_table.REDUCE_OPS}  # generated from src/op_table.def
OPS = sorted(REDUCE, key=lambda name: REDUCE[name]["value"])  # bc_reduce_op order
DIM_OPS = ["max_dim", "min_dim"]
ALL_OPS = OPS + DIM_OPS
DEFAULT_DTYPES = ["bool", "u8", "i32", "i64", "f16", "bf16", "f32", "f64"]
LAYOUTS = ["all", "dim0", "dim1", "last_keep", "mid3d", "t_dim0", "t_dim1", "t_all"]
DEFAULT_LAYOUTS = ["all", "dim0", "dim1", "last_keep", "mid3d", "t_dim0", "t_dim1"]
QUICK_OPS = ["sum", "mean", "amax", "argmax", "any", "var", "logsumexp", "max_dim"]
QUICK_DTYPES = ["f32", "i32", "bool", "bf16"]
QUICK_LAYOUTS = ["all", "dim0", "dim1", "t_dim1"]
TARGET_CELL, TARGET_STREAM, TARGET_GEOMEAN = 1.25, 0.9, 1.5


def takes(op, dt):
    """Whether the op takes the dtype (the op table's dtypes column; max/min along a
    dim take every dtype)."""
    return op in DIM_OPS or accepts(REDUCE[op]["dtypes"], dt)


def result_dtype(op, dt):
    if op in ("sum", "nansum", "prod"):
        return dt if dt in FLOATING else "i64"
    if op in ("argmax", "argmin", "count_nonzero"):
        return "i64"
    if op in ("any", "all"):
        return "u8" if dt == "u8" else "bool"
    if op == "logsumexp" and dt not in FLOATING:
        return "f32"
    return dt


# ------------------------------------------------------------------ library

class ReduceBcast:
    def __init__(self, path):
        self.lib = L = ctypes.CDLL(path)
        P, I64P, sz, ci = ctypes.c_void_p, ctypes.POINTER(ctypes.c_int64), ctypes.c_size_t, \
            ctypes.c_int
        L.bc_tensor_wrap.argtypes = [ci, I64P, I64P, sz, P, sz, P, P, ctypes.POINTER(P)]
        L.bc_tensor_free.argtypes = [P]
        L.bc_set_num_threads.argtypes = [ci]
        L.bc_last_error.restype = ctypes.c_char_p
        L.bc_simd_target.restype = ctypes.c_char_p
        L.bc_version_string.restype = ctypes.c_char_p
        self.missing = None
        try:
            L.bc_reduce_out.argtypes = [ci, P, I64P, sz, ci, P]
            L.bc_max_dim_out.argtypes = [P, ctypes.c_int64, ci, P, P]
            L.bc_min_dim_out.argtypes = [P, ctypes.c_int64, ci, P, P]
        except AttributeError as e:  # a library without reductions: PyTorch and NumPy only
            self.missing = str(e)

    def wrap(self, t, dt):
        shape = (ctypes.c_int64 * max(1, t.dim()))(*t.shape)
        strides = (ctypes.c_int64 * max(1, t.dim()))(*t.stride())
        h = ctypes.c_void_p()
        st = self.lib.bc_tensor_wrap(DTYPES[dt][0], shape, strides, t.dim(),
                                     ctypes.c_void_p(t.data_ptr()),
                                     t.untyped_storage().nbytes(), None, None, ctypes.byref(h))
        if st != 0:
            raise RuntimeError(self.lib.bc_last_error().decode())
        return h

    def call(self, op, hx, dims, keep, ho, hi=None):
        if self.missing:
            return None
        L = self.lib
        if op in DIM_OPS:
            f = L.bc_max_dim_out if op == "max_dim" else L.bc_min_dim_out
            d = dims[0]
            return lambda: f(hx, d, keep, ho, hi)
        arr = (ctypes.c_int64 * max(1, len(dims or [])))(*(dims or [0]))
        ptr = arr if dims else None
        n = len(dims or [])
        v = REDUCE[op]["value"]
        f = L.bc_reduce_out
        return lambda: f(v, hx, ptr, n, keep, ho)


# ------------------------------------------------------------------ ceiling

_READER = None


def reader():
    """bcbench_read from bench/ceiling.c: the CMake-built module next to the
    library, else compiled here with cc, else None (then a NumPy stream)."""
    global _READER
    if _READER is not None:
        return _READER or None
    cands = [os.environ.get("BCAST_BENCH_CEILING_LIB", "")]
    if ARGS_LIB:
        d = os.path.dirname(os.path.abspath(ARGS_LIB))
        cands += [os.path.join(d, "bench", "libbcbench_ceiling.so"),
                  os.path.join(d, "libbcbench_ceiling.so")]
    path = next((c for c in cands if c and os.path.exists(c)), None)
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if path is None and cc:
        out = os.path.join(tempfile.gettempdir(), f"bcbench_ceiling_{os.getuid()}.so")
        src = os.path.join(HERE, "ceiling.c")
        if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(src):
            for march in (["-march=native"], []):
                r = subprocess.run([cc, "-O3", *march, "-fopenmp", "-shared", "-fPIC", src,
                                    "-o", out], capture_output=True)
                if r.returncode == 0:
                    break
        if os.path.exists(out):
            path = out
    if path is None:
        _READER = False
        return None
    lib = ctypes.CDLL(path)
    lib.bcbench_read.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_int]
    lib.bcbench_read.restype = ctypes.c_uint64
    _READER = lib
    return lib


_POOL = None


def stream_fn(t, threads):
    """A read of t's bytes (its whole buffer, as its layout spans it) at this
    thread count."""
    nbytes = t.untyped_storage().nbytes()
    ptr = t.untyped_storage().data_ptr()
    lib = reader()
    if lib is not None:
        f = lib.bcbench_read
        return lambda: f(ptr, nbytes, threads)
    words = np.frombuffer((ctypes.c_char * nbytes).from_address(ptr), dtype=np.uint64,
                          count=nbytes // 8)
    if threads == 1:
        return lambda: np.bitwise_xor.reduce(words)
    global _POOL
    if _POOL is None or _POOL._max_workers != threads:
        _POOL = concurrent.futures.ThreadPoolExecutor(threads)
    parts = np.array_split(words, threads)
    pool = _POOL
    return lambda: [f.result() for f in [pool.submit(np.bitwise_xor.reduce, p) for p in parts]]


# -------------------------------------------------------------------- cells

def make_input(dt, layout, gen):
    shape = {"mid3d": (64, 64, 1024)}.get(layout, (COLS, ROWS) if layout.startswith("t_")
                                           else (ROWS, COLS))
    tdt = DTYPES[dt][1]
    if dt == "bool":
        t = torch.from_numpy(gen.random(shape) < 0.5)
    elif dt in FLOATING:
        t = torch.from_numpy(gen.standard_normal(shape)).to(tdt)
    else:
        lo = 0 if dt == "u8" else -100
        t = torch.from_numpy(gen.integers(lo, 101, shape)).to(tdt)
    return t.T if layout.startswith("t_") else t


def dims_of(layout, op):
    """(dims or None for all, keepdim)."""
    d = {"all": None, "t_all": None, "dim0": [0], "t_dim0": [0], "dim1": [1], "t_dim1": [1],
         "last_keep": [-1], "mid3d": [1]}[layout]
    if op in DIM_OPS and d is None:
        return None, False
    return d, layout == "last_keep"


def out_shape(shape, dims, keep):
    nd = len(shape)
    red = set(range(nd)) if dims is None else {d % nd for d in dims}
    if keep:
        return tuple(1 if i in red else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in red)


def torch_fn(op, x, dims, keep, out, idx):
    td = tuple(range(x.dim())) if dims is None else tuple(dims)
    if op in DIM_OPS:
        f = torch.max if op == "max_dim" else torch.min
        return lambda: f(x, dims[0], keepdim=keep, out=(out, idx))
    if op == "count_nonzero":
        return lambda: torch.count_nonzero(x, dim=td)
    if op in ("argmax", "argmin"):
        f = getattr(torch, op)
        if dims is None:
            return lambda: f(x, keepdim=keep, out=out)
        return lambda: f(x, dims[0], keepdim=keep, out=out)
    if op == "prod":
        if dims is None:  # PyTorch's prod takes one dim: the all-dims form allocates
            return lambda: torch.prod(x)
        return lambda: torch.prod(x, dims[0], keepdim=keep, out=out)
    if op in ("var", "std"):
        f = getattr(torch, op)
        return lambda: f(x, dim=None if dims is None else td, keepdim=keep, out=out)
    f = getattr(torch, op)
    if op in ("amax", "amin") and dims is None:
        td = ()
    return lambda: f(x, dim=td, keepdim=keep, out=out)


NUMPY = {"sum": np.sum, "nansum": np.nansum, "prod": np.prod, "mean": np.mean,
         "nanmean": np.nanmean, "amax": np.max, "amin": np.min, "argmax": np.argmax,
         "argmin": np.argmin, "any": np.any, "all": np.all, "count_nonzero": np.count_nonzero,
         "var": np.var, "std": np.std, "max_dim": None, "min_dim": None}


def numpy_fn(op, dt, x, dims, keep, out):
    """NumPy's form of the cell with out= where NumPy has it, or None."""
    if DTYPES[dt][2] is None or op == "logsumexp":
        return None
    nx = x.numpy()
    ax = None if dims is None else tuple(dims)
    no = out.numpy() if out is not None else None
    if op in DIM_OPS:  # values and indices: two passes in NumPy
        m = np.max if op == "max_dim" else np.min
        a = np.argmax if op == "max_dim" else np.argmin
        return lambda: (m(nx, axis=dims[0], keepdims=keep), a(nx, axis=dims[0], keepdims=keep))
    f = NUMPY[op]
    if op in ("argmax", "argmin"):
        if dims is None:
            return lambda: f(nx, keepdims=keep)
        return lambda: f(nx, axis=dims[0], keepdims=keep, out=no)
    if op == "count_nonzero":
        return lambda: f(nx, axis=ax, keepdims=keep)
    if op in ("var", "std"):
        return lambda: f(nx, axis=ax, keepdims=keep, ddof=1, out=no)
    if op in ("any", "all") and no is not None and no.dtype != np.bool_:
        return lambda: f(nx, axis=ax, keepdims=keep)
    return lambda: f(nx, axis=ax, keepdims=keep, out=no)


def cells(ops, dtypes, layouts):
    for op in ops:
        for dt in dtypes:
            if not takes(op, dt):
                continue
            for layout in layouts:
                if op in DIM_OPS and layout in ("all", "t_all"):
                    continue
                yield op, dt, layout


def run_cell(bc, op, dt, layout, threads, runs, gen):
    x = make_input(dt, layout, gen)
    dims, keep = dims_of(layout, op)
    rdt = result_dtype(op, dt)
    oshape = out_shape(tuple(x.shape), dims, keep)
    out = torch.empty(oshape, dtype=DTYPES[rdt][1])
    idx = torch.empty(oshape, dtype=torch.int64) if op in DIM_OPS else None
    r = {"op": op, "dtype": dt, "out_dtype": rdt, "layout": layout, "threads": threads,
         "bytes": x.numel() * x.element_size()}
    hs = []
    try:
        fb = None
        if not bc.missing:
            hx, ho = bc.wrap(x, dt), bc.wrap(out, rdt)
            hs = [hx, ho]
            hi = None
            if idx is not None:
                hi = bc.wrap(idx, "i64")
                hs.append(hi)
            fb = bc.call(op, hx, dims, int(keep), ho, hi)
            if fb() != 0:
                r["error"] = bc.lib.bc_last_error().decode()
                return r
        ft = torch_fn(op, x, dims, keep, out, idx)
        try:
            ft()
        except Exception as e:  # noqa: BLE001 (PyTorch does not run this cell)
            ft = None
            r["torch_error"] = str(e).splitlines()[0]
        fn = numpy_fn(op, dt, x, dims, keep, out if op not in DIM_OPS else None)
        if fn is not None:
            try:
                with np.errstate(all="ignore"):
                    fn()
            except Exception:  # noqa: BLE001 (NumPy does not run this cell)
                fn = None
        fs = stream_fn(x, threads)
        with np.errstate(all="ignore"):
            tb, tt, tn, ts = measure([fb, ft, fn, fs], runs)
    finally:
        for h in hs:
            bc.lib.bc_tensor_free(h)
    r.update(bcast_s=tb, torch_s=tt, numpy_s=tn, stream_s=ts)
    if tb:
        r["gbps"] = r["bytes"] / tb / 1e9
    return r


def met(r):
    """The cell's target: >= 1.25x PyTorch or >= 0.9 of the read stream (None: no time)."""
    if not r.get("bcast_s") or not r.get("torch_s"):
        return None
    return (r["torch_s"] / r["bcast_s"] >= TARGET_CELL or
            r["stream_s"] / r["bcast_s"] >= TARGET_STREAM)


HEAD = ["op", "dtype", "layout", "bcast ms", "torch ms", "numpy ms", "x PyTorch", "x NumPy",
        "GB/s", "x stream", "met"]
WIDTHS = [13, 9, 9, 8, 8, 8, 9, 7, 6, 8, 4]


def row(r):
    dt = r["dtype"] if r["out_dtype"] == r["dtype"] else f"{r['dtype']}>{r['out_dtype']}"
    if r.get("error"):
        return [r["op"], dt, r["layout"], "error: " + r["error"][:70]] + [""] * 7
    ms = lambda s: f"{s * 1e3:.3f}" if s else "-"  # noqa: E731
    tb = r.get("bcast_s")
    xt = f"{r['torch_s'] / tb:.2f}x" if tb and r.get("torch_s") else "-"
    if xt != "-" and (r["op"] == "count_nonzero" or
                      (r["op"] == "prod" and r["layout"] in ("all", "t_all"))):
        xt += "a"
    xn = f"{r['numpy_s'] / tb:.2f}x" if tb and r.get("numpy_s") else "-"
    m = met(r)
    return [r["op"], dt, r["layout"], ms(tb), ms(r.get("torch_s")), ms(r.get("numpy_s")), xt,
            xn, f"{r['gbps']:.1f}" if tb else "-",
            f"{r['stream_s'] / tb:.2f}" if tb else "-", {True: "ok", False: "MISS",
                                                          None: "n/a"}[m]]


def summary(results, threads, cpu, rep):
    rows = [r for r in results if r["threads"] == threads and not r.get("error")]
    p = rep.text
    p(f"\n## Summary, {threads} thread(s), {cpu}")
    errors = [r for r in results if r["threads"] == threads and r.get("error")]
    if errors:
        p(f"bcast errors: {len(errors)} cells (" + ", ".join(
            f"{r['op']} {r['dtype']} {r['layout']}: {r['error'][:60]}" for r in errors[:6]) + ")")
    tr = [r for r in rows if r.get("torch_s") and r.get("bcast_s")]
    if not tr:
        p("no cell with both bcast and PyTorch times")
        return
    ratios = [r["torch_s"] / r["bcast_s"] for r in tr]
    gm = geomean(ratios)
    missed = [r for r in tr if met(r) is False]
    worst = min(tr, key=lambda r: r["torch_s"] / r["bcast_s"])
    wstream = min(tr, key=lambda r: r["stream_s"] / r["bcast_s"])
    nps = [r["numpy_s"] / r["bcast_s"] for r in tr if r.get("numpy_s")]
    p(f"cells: {len(tr)}; geometric mean x PyTorch {gm:.2f}x (target >= {TARGET_GEOMEAN}x: "
      f"{'ok' if gm >= TARGET_GEOMEAN else 'MISS'}); x NumPy {geomean(nps):.2f}x over "
      f"{len(nps)} cells; below 1.0x PyTorch: {sum(1 for x in ratios if x < 1.0)}; "
      f"target (>= {TARGET_CELL}x PyTorch or >= {TARGET_STREAM} of the stream) missed: "
      f"{len(missed)} of {len(tr)}")
    p(f"worst cell vs PyTorch: {worst['op']} {worst['dtype']} {worst['layout']} "
      f"{worst['torch_s'] / worst['bcast_s']:.2f}x ({worst['stream_s'] / worst['bcast_s']:.2f} "
      f"of the stream); lowest fraction of the stream: {wstream['op']} {wstream['dtype']} "
      f"{wstream['layout']} {wstream['stream_s'] / wstream['bcast_s']:.2f}")
    for key in ("op", "dtype", "layout"):
        groups = {}
        for r in tr:
            groups.setdefault(r[key], []).append(r["torch_s"] / r["bcast_s"])
        p(f"geomean x PyTorch by {key}: " +
          ", ".join(f"{k} {geomean(v):.2f}x" for k, v in groups.items()))
    if missed:
        p(f"cells that miss the target ({len(missed)}): " + ", ".join(
            f"{r['op']} {r['dtype']} {r['layout']} {r['torch_s'] / r['bcast_s']:.2f}x/"
            f"{r['stream_s'] / r['bcast_s']:.2f}s"
            for r in sorted(missed, key=lambda r: r["torch_s"] / r["bcast_s"])[:40]) +
          (" ..." if len(missed) > 40 else ""))


ARGS_LIB = None


def main():
    global ARGS_LIB
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lib", required=True, help="path to libbcast.so")
    ap.add_argument("--runs", type=int, default=5, help="alternating runs per cell (median)")
    ap.add_argument("--quick", action="store_true",
                    help=f"smoke test: ops {','.join(QUICK_OPS)}, dtypes {','.join(QUICK_DTYPES)}, "
                         f"layouts {','.join(QUICK_LAYOUTS)}, 2 runs")
    ap.add_argument("--threads", default="1,all", help="thread counts, e.g. 1,all or 1,2")
    ap.add_argument("--ops", help="only these ops (comma-separated: " + ",".join(ALL_OPS) + ")")
    ap.add_argument("--dtypes", help="input dtypes (comma-separated: " + ",".join(DTYPES) + ")")
    ap.add_argument("--layouts", help="layouts (comma-separated: " + ",".join(LAYOUTS) + ")")
    ap.add_argument("--markdown", help="also write the tables to this file (Markdown)")
    ap.add_argument("--json", help="write every cell's times to this file")
    args = ap.parse_args()
    ARGS_LIB = args.lib
    runs = 2 if args.quick else args.runs
    ops = args.ops.split(",") if args.ops else (QUICK_OPS if args.quick else ALL_OPS)
    dtypes = args.dtypes.split(",") if args.dtypes else (
        QUICK_DTYPES if args.quick else DEFAULT_DTYPES)
    layouts = args.layouts.split(",") if args.layouts else (
        QUICK_LAYOUTS if args.quick else DEFAULT_LAYOUTS)
    bad = [o for o in ops if o not in ALL_OPS] + [d for d in dtypes if d not in DTYPES] + \
        [lay for lay in layouts if lay not in LAYOUTS]
    if bad:
        ap.error("unknown op, dtype or layout: " + ", ".join(bad))

    bc = ReduceBcast(args.lib)
    ncpu = os.cpu_count() or 1
    thread_counts = list(dict.fromkeys(ncpu if t == "all" else int(t)
                                       for t in args.threads.split(",")))
    cpu = cpu_model()
    rep = Report()
    rep.text(f"# bcast {bc.lib.bc_version_string().decode()} "
             f"({bc.lib.bc_simd_target().decode()}): reductions vs PyTorch {torch.__version__} "
             f"and NumPy {np.__version__}")
    if bc.missing:
        rep.text(f"(this library has no reductions: {bc.missing}; PyTorch, NumPy and the "
                 "stream only)")
    stream = "bench/ceiling.c bcbench_read" if reader() else "NumPy xor over uint64 words"
    rep.text(f"machine: {cpu}, {ncpu} cores, {platform.platform()}; thread counts "
             f"{', '.join(map(str, thread_counts))}; (1024,4096) and (64,64,1024), out= "
             f"contiguous; median of {runs} alternating runs; stream: {stream}")
    rep.text("x PyTorch, x NumPy: their time / bcast's (above 1: bcast is faster; 'a': PyTorch "
             "allocates: count_nonzero, prod over every dim); GB/s: input bytes / bcast's time; "
             f"x stream: a read of the same bytes / bcast's time; target: >= {TARGET_CELL}x "
             f"PyTorch or >= {TARGET_STREAM} of the stream, geomean >= {TARGET_GEOMEAN}x")
    print(rep.render_text(), flush=True)
    started = len(rep.blocks)
    results = []
    t0 = time.time()
    for threads in thread_counts:
        torch.set_num_threads(threads)
        bc.lib.bc_set_num_threads(threads)
        gen = np.random.default_rng(0)
        rep.text(f"\n## {threads} thread(s)")
        print(rep.render_text().splitlines()[-1], flush=True)
        print(Report.line(HEAD, WIDTHS), flush=True)
        rows = []
        for op, dt, layout in cells(ops, dtypes, layouts):
            r = run_cell(bc, op, dt, layout, threads, runs, gen)
            results.append(r)
            rows.append(row(r))
            print(Report.line(rows[-1], WIDTHS), flush=True)
        rep.table(HEAD, rows)
        summary(results, threads, cpu, rep)
    tail = Report()
    tail.blocks = [b for b in rep.blocks[started:]
                   if (b[0] == "text" and not b[1].endswith("thread(s)")) or
                   (b[0] == "table" and b[1] is not HEAD)]
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
