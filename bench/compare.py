#!/usr/bin/env python3
"""bcast against PyTorch, NumPy and the machine's bandwidth ceiling.

Runs every case of CASES through bcast (bcast_compare_driver, C++ straight on
the C ABI), PyTorch and NumPy (here, from Python), one case at a time so that
a noisy machine hurts all three alike, and prints one table of GB/s
(bytes read + written / median time) and ratios, for 1 thread and all cores.
Also: small-op latency (bcast through the C ABI against ATen from C++), the
plain-C bandwidth ceiling, and the peak-memory growth of (4096,1)+(1,4096).

Run through scripts/bench.sh, which builds the drivers:
    bench/compare.py --driver build-bench/bench/bcast_compare_driver \
        [--aten build-bench/bench/bcast_aten_latency] [--markdown FILE] [--runs 7]

Speed is reported, never asserted: a MISS does not fail the run.
"""

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time

N = 16 * 1024 * 1024
FIELDS = "dtype=f32 mode=out"

# (name, label, spec, target). The spec is bench_case.h's syntax, read by the
# driver and by make_operands() below alike. Targets (from the issue):
#   bw    bandwidth-bound: >= 1.25x PyTorch
#   bw+c  also >= 0.9x the streaming-store ceiling
#   T     transposed: >= 8x PyTorch
#   fused where/addcmul/clamp/lt with broadcast operands: >= 3x PyTorch
CASES = [
    ("add_same", "(N)+(N), N=16M", f"op=add {FIELDS} a={N} b={N}", "bw+c"),
    ("add_scalar", "(N)+(1)", f"op=add {FIELDS} a={N} b=1", "bw"),
    ("add_row", "(4096,4096)+(4096)", f"op=add {FIELDS} a=4096x4096 b=4096", "bw"),
    ("add_col", "(4096,4096)+(4096,1)", f"op=add {FIELDS} a=4096x4096 b=4096x1", "bw"),
    ("add_outer", "(4096,1)+(1,4096)", f"op=add {FIELDS} a=4096x1 b=1x4096", "bw"),
    ("add_middle", "(64,1,1024)+(64,256,1024)", f"op=add {FIELDS} a=64x1x1024 b=64x256x1024", "bw"),
    ("add_transposed", "(4096,4096)+(4096,4096).T", f"op=add {FIELDS} a=4096x4096 b=4096x4096:T", "T"),
    ("add_sliced", "(4096,4096)+(4096,8192)[:, ::2]", f"op=add {FIELDS} a=4096x4096 b=4096x4096:S", "T"),
    ("where_transposed", "where((4096,1), (4096,4096).T, (1,4096))",
     f"op=where {FIELDS} a=4096x1 b=4096x4096:T c=1x4096", "T"),
    ("iadd_row", "(4096,4096) += (4096)", "op=add dtype=f32 mode=inplace a=4096x4096 b=4096", "bw"),
    ("where", "where((4096,1), (4096,4096), (1,4096))",
     f"op=where {FIELDS} a=4096x1 b=4096x4096 c=1x4096", "fused"),
    ("addcmul", "addcmul((4096,4096), (4096,1), (1,4096), 0.5)",
     f"op=addcmul {FIELDS} a=4096x4096 b=4096x1 c=1x4096 value=0.5", "fused"),
    ("clamp", "clamp((4096,4096), (4096,1), (1,4096))",
     f"op=clamp {FIELDS} a=4096x4096 b=4096x1 c=1x4096", "fused"),
    ("lt", "(4096,4096) < (4096,1)", f"op=lt {FIELDS} a=4096x4096 b=4096x1", "fused"),
]
for _dt in ("f64", "i32", "bf16"):
    CASES.append((f"add_same_{_dt}", f"(N)+(N) {_dt}", f"op=add dtype={_dt} mode=out a={N} b={N}", "bw"))
for _dt in ("f64", "i32", "bf16"):
    CASES.append((f"add_row_{_dt}", f"(4096,4096)+(4096) {_dt}",
                  f"op=add dtype={_dt} mode=out a=4096x4096 b=4096", "bw"))

TARGET_TEXT = {
    "bw": ">=1.25x PyTorch",
    "bw+c": ">=1.25x PyTorch, >=0.9x ceiling",
    "T": ">=8x PyTorch",
    "fused": ">=3x PyTorch",
}
LATENCY_TARGET_NS = 50.0
ELEMENT_SIZE = {"f32": 4, "f64": 8, "i32": 4, "bf16": 2, "f16": 2, "i64": 8, "i16": 2, "i8": 1,
                "u8": 1, "bool": 1}
TERNARY = ("where", "addcmul", "addcdiv", "clamp", "lerp")
COMPARISONS = ("eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor")


# ---------------------------------------------------------------- case specs

def parse_spec(spec):
    """bench_case.h's spec -> dict(op, dtype, mode, value, operands=[(shape, layout)])."""
    c = {"op": None, "dtype": "f32", "mode": "out", "value": 0.5, "operands": {}}
    for tok in spec.split():
        key, _, val = tok.partition("=")
        if key in ("op", "dtype", "mode"):
            c[key] = val
        elif key == "value":
            c["value"] = float(val)
        elif key in ("a", "b", "c"):
            dims, _, layout = val.partition(":")
            shape = () if dims == "s" else tuple(int(d) for d in dims.split("x"))
            c["operands"][key] = (shape, layout)
    c["operands"] = [c["operands"][k] for k in sorted(c["operands"])]
    return c


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def broadcast_shape(shapes):
    nd = max(len(s) for s in shapes)
    out = []
    for i in range(nd):
        sizes = {s[len(s) - nd + i] for s in shapes if len(s) - nd + i >= 0} - {1}
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def result_dtype(c):
    if c["op"] in COMPARISONS:
        return "bool"
    if c["op"] == "div" and not c["dtype"].startswith(("f", "bf")):
        return "f32"
    return c["dtype"]


def bytes_per_call(c):
    """Bytes read + written, as bench_case.h counts them."""
    total = 0
    for i, (shape, _) in enumerate(c["operands"]):
        dt = "bool" if c["op"] == "where" and i == 0 else c["dtype"]
        total += numel(shape) * ELEMENT_SIZE[dt]
    res = broadcast_shape([s for s, _ in c["operands"]])
    if c["mode"] == "inplace":
        return total + numel(res) * ELEMENT_SIZE[c["dtype"]]
    return total + numel(res) * ELEMENT_SIZE[result_dtype(c)]


# ------------------------------------------------------------------- timing

def measure(call, runs, run_ns=2_000_000):
    """Median ns per call over `runs` runs of about run_ns each (as the driver)."""
    call()
    t0 = time.perf_counter_ns()
    call()
    one = max(1, time.perf_counter_ns() - t0)
    k = max(1, run_ns // one)
    if k > 1:
        t0 = time.perf_counter_ns()
        for _ in range(k):
            call()
        one = max(1, (time.perf_counter_ns() - t0) // k)
        k = max(1, run_ns // one)
    per_call = []
    for _ in range(runs):
        t0 = time.perf_counter_ns()
        for _ in range(k):
            call()
        per_call.append((time.perf_counter_ns() - t0) / k)
    return statistics.median(per_call)


# ------------------------------------------------------- PyTorch and NumPy

def torch_dtype(torch, name):
    return {"f32": torch.float32, "f64": torch.float64, "i32": torch.int32, "bf16": torch.bfloat16,
            "f16": torch.float16, "i64": torch.int64, "i16": torch.int16, "i8": torch.int8,
            "u8": torch.uint8, "bool": torch.bool}[name]


def make_operand(torch, shape, layout, dtype, gen):
    """A tensor with bench_case.h's layout and value ranges."""
    if layout == "T":
        stored = tuple(reversed(shape))
    elif layout == "S":
        stored = shape[:-1] + (2 * shape[-1],)
    else:
        stored = shape
    if dtype == "bool":
        t = torch.rand(stored, generator=gen) < 0.5
    elif dtype.startswith("i") or dtype == "u8":
        t = torch.randint(1, 4, stored, generator=gen, dtype=torch_dtype(torch, dtype))
    else:
        t = (torch.rand(stored, generator=gen, dtype=torch.float32) + 0.5).to(torch_dtype(torch, dtype))
    if layout == "T":
        t = t.permute(*reversed(range(len(shape))))
    elif layout == "S":
        t = t[..., ::2]
    return t


def torch_call(torch, c, ops, out):
    op, mode, v = c["op"], c["mode"], c["value"]
    if mode == "inplace":
        self, rest = (ops[1], [ops[0], ops[2]]) if op == "where" else (ops[0], ops[1:])
        if op == "where":
            return lambda: self.copy_(torch.where(rest[0], self, rest[1]))  # no where_ in 1.13
        fn = getattr(self, op + "_")
        if op in ("addcmul", "addcdiv"):
            return lambda: fn(*rest, value=v)
        return lambda: fn(*rest)
    fn = getattr(torch, op)
    kw = {"value": v} if op in ("addcmul", "addcdiv") else {}
    if mode == "out":
        kw["out"] = out
    return lambda: fn(*ops, **kw)


def numpy_call(np, c, ops, out):
    """The NumPy idiom for the case, or (None, why)."""
    op, mode, v = c["op"], c["mode"], c["value"]
    if mode == "inplace":
        if op != "add":
            return None, "n/a"
        return (lambda: np.add(ops[0], ops[1], out=ops[0])), ""
    ufunc = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
             "pow": np.power, "lt": np.less, "le": np.less_equal, "gt": np.greater,
             "ge": np.greater_equal, "eq": np.equal, "ne": np.not_equal,
             "maximum": np.maximum, "minimum": np.minimum}
    if op in ufunc:
        f = ufunc[op]
        if mode == "out":
            return (lambda: f(ops[0], ops[1], out=out)), ""
        return (lambda: f(ops[0], ops[1])), ""
    if op == "where":  # np.where has no out=
        return (lambda: np.where(ops[0], ops[1], ops[2])), "alloc"
    if op == "clamp":
        if mode == "out":
            return (lambda: np.clip(ops[0], ops[1], ops[2], out=out)), ""
        return (lambda: np.clip(ops[0], ops[1], ops[2])), ""
    if op == "addcmul" and mode == "out":
        def addcmul():
            np.multiply(ops[1], ops[2], out=out)
            np.multiply(out, v, out=out)
            np.add(ops[0], out, out=out)
        return addcmul, "3 passes"
    return None, "n/a"


class PythonSide:
    """PyTorch and NumPy, each optional."""

    def __init__(self):
        try:
            import torch
            self.torch = torch
        except Exception as e:  # noqa: BLE001 - any import failure means "no torch"
            self.torch, self.torch_error = None, str(e)
        try:
            import numpy
            self.np = numpy
        except Exception:  # noqa: BLE001
            self.np = None

    def run_case(self, spec, threads, runs):
        """{'torch': {threads: ns}, 'numpy': ns, 'notes': [...]}"""
        res = {"torch": {}, "numpy": None, "notes": []}
        if self.torch is None:
            return res
        torch = self.torch
        c = parse_spec(spec)
        gen = torch.Generator().manual_seed(1)
        ops = []
        for i, (shape, layout) in enumerate(c["operands"]):
            dt = "bool" if c["op"] == "where" and i == 0 else c["dtype"]
            ops.append(make_operand(torch, shape, layout, dt, gen))
        if c["mode"] == "inplace" and c["op"] in ("mul", "div", "pow"):
            for t in ops[1:]:
                t.fill_(1)  # as the driver: keep self away from subnormals
        res_shape = broadcast_shape([s for s, _ in c["operands"]])
        out = torch.zeros(res_shape, dtype=torch_dtype(torch, result_dtype(c)))
        try:
            call = torch_call(torch, c, ops, out)
            for t in threads:
                torch.set_num_threads(t)
                res["torch"][t] = measure(call, runs)
        except Exception as e:  # noqa: BLE001 - report, don't stop the table
            res["notes"].append(f"PyTorch: {type(e).__name__}: {e}".splitlines()[0][:120])
        if self.np is not None and c["dtype"] not in ("bf16", "f16"):
            try:
                np_ops = [t.numpy() for t in ops]
                call, why = numpy_call(self.np, c, np_ops, out.numpy())
                if call is not None:
                    res["numpy"] = measure(call, runs)
                if why:
                    res["notes"].append(f"NumPy: {why}")
            except Exception as e:  # noqa: BLE001
                res["notes"].append(f"NumPy: {type(e).__name__}: {e}".splitlines()[0][:120])
        elif self.np is not None:
            res["notes"].append("NumPy: no " + c["dtype"])
        return res

    def latency(self, threads, runs, n=32):
        out = {"torch": {}, "numpy": None}
        if self.torch is not None:
            torch = self.torch
            a, b, o = torch.rand(n), torch.rand(n), torch.empty(n)
            for t in threads:
                torch.set_num_threads(t)
                out["torch"][t] = measure(lambda: torch.add(a, b, out=o), runs)
        if self.np is not None:
            np = self.np
            a, b, o = np.random.rand(n).astype(np.float32), np.random.rand(n).astype(np.float32), \
                np.empty(n, np.float32)
            out["numpy"] = measure(lambda: np.add(a, b, out=o), runs)
        return out


def peak_rss_kib():
    """VmHWM of this process image (ru_maxrss would include a parent's peak across exec)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def memory_probe(lib):
    """Peak-RSS growth of an allocating (4096,1)+(1,4096), in this fresh process."""
    if lib == "torch":
        import torch
        a, b = torch.rand(4096, 1), torch.rand(1, 4096)
    else:
        import numpy as np
        a, b = np.random.rand(4096, 1).astype(np.float32), np.random.rand(1, 4096).astype(np.float32)
    before = peak_rss_kib()
    c = a + b
    after = peak_rss_kib()
    del c
    print(json.dumps({"kind": "memory", "peak_rss_growth_bytes": (after - before) * 1024,
                      "result_bytes": 4096 * 4096 * 4}))


def run_memory(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
        for line in p.stdout.splitlines():
            if line.startswith("{"):
                return json.loads(line)
    except (OSError, subprocess.SubprocessError):
        pass
    return None


# ------------------------------------------------------------------ driver

class Driver:
    """bcast_compare_driver, kept running; one command in, JSON lines out."""

    def __init__(self, path):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                  bufsize=1)

    def ask(self, command, lines):
        self.p.stdin.write(command + "\n")
        self.p.stdin.flush()
        out = []
        for _ in range(lines):
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError(f"bcast_compare_driver died on: {command}")
            out.append(json.loads(line))
            if out[-1].get("kind") == "error":
                break
        return out

    def close(self):
        self.p.stdin.close()
        self.p.wait()


# ------------------------------------------------------------------ output

def gbps(nbytes, ns):
    return None if ns is None else nbytes / ns  # bytes per ns == GB/s


def fmt(x, spec=".1f", suffix=""):
    return "n/a" if x is None else format(x, spec) + suffix


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def table(header, rows):
    return ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"] + \
        ["| " + " | ".join(str(x) for x in r) + " |" for r in rows]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--driver", help="path to bcast_compare_driver")
    ap.add_argument("--aten", help="path to bcast_aten_latency (optional)")
    ap.add_argument("--markdown", metavar="FILE", help="also write the tables as markdown to FILE")
    ap.add_argument("--runs", type=int, default=7, help="timed runs per measurement (>= 7)")
    ap.add_argument("--cases", default="", help="comma-separated case names to run (default: all)")
    ap.add_argument("--memory-probe", choices=("torch", "numpy"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.memory_probe:
        memory_probe(args.memory_probe)
        return 0
    if not args.driver:
        ap.error("--driver is required")
    runs = max(7, args.runs)
    started = time.time()

    def log(msg):
        print(f"[{time.time() - started:5.0f}s] {msg}", file=sys.stderr, flush=True)

    py = PythonSide()
    drv = Driver(args.driver)
    info = drv.ask("info", 1)[0]
    all_threads = info["threads"]
    threads = [1, all_threads] if all_threads > 1 else [1]
    tlist = ",".join(map(str, threads))
    torch_version = py.torch.__version__ if py.torch else "missing"
    np_version = py.np.__version__ if py.np else "missing"
    log(f"bcast {info['version']} ({info['simd']}), PyTorch {torch_version}, NumPy {np_version}, "
        f"threads {tlist}")

    log("bandwidth ceiling")
    ceiling = {}
    for r in drv.ask(f"ceiling threads={tlist} n={N} runs={runs}", 2 * len(threads)):
        if r["kind"] == "ceiling":
            ceiling[(r["variant"], r["threads"])] = gbps(r["bytes"], r["median_ns"])

    rows = []
    selected = [c for c in CASES if not args.cases or c[0] in args.cases.split(",")]
    for name, label, spec, target in selected:
        log(f"{name}: {spec}")
        bc = {}
        err = None
        try:
            answers = drv.ask(f"case name={name} threads={tlist} runs={runs} {spec}", len(threads))
        except RuntimeError as e:  # the driver crashed: say so, start another
            answers = [{"kind": "error", "message": str(e)}]
            drv = Driver(args.driver)
        for r in answers:
            if r["kind"] == "error":
                err = r["message"]
            else:
                bc[r["threads"]] = r["median_ns"]
                if r["bytes"] != bytes_per_call(parse_spec(spec)):
                    log(f"  warning: byte counts differ: driver {r['bytes']}, "
                        f"compare.py {bytes_per_call(parse_spec(spec))}")
        pyres = py.run_case(spec, threads, runs)
        nbytes = bytes_per_call(parse_spec(spec))
        notes = ([f"bcast: {err}"] if err else []) + pyres["notes"]
        for t in threads:
            b = gbps(nbytes, bc.get(t))
            tp = gbps(nbytes, pyres["torch"].get(t))
            npy = gbps(nbytes, pyres["numpy"])
            ceil = ceiling.get(("stream", t))
            vs_t, vs_np, vs_c = ratio(b, tp), ratio(b, npy), ratio(b, ceil)
            need = {"bw": 1.25, "bw+c": 1.25, "T": 8.0, "fused": 3.0}[target]
            checks = [vs_t is not None and vs_t >= need]
            if target == "bw+c":
                checks.append(vs_c is not None and vs_c >= 0.9)
            status = "n/a" if vs_t is None else ("PASS" if all(checks) else "MISS")
            rows.append([label, t, fmt(b), fmt(tp), fmt(npy), fmt(vs_t, ".2f", "x"),
                         fmt(vs_np, ".2f", "x"), fmt(vs_c, ".2f", "x"), TARGET_TEXT[target], status,
                         "; ".join(notes)])

    log("small-op latency")
    lat_bc = {r["threads"]: r["ns_per_call"]
              for r in drv.ask(f"latency threads={tlist} runs=15", len(threads)) if "threads" in r}
    drv.close()
    lat_aten = {}
    if args.aten and os.path.exists(args.aten):
        try:
            p = subprocess.run([args.aten, f"threads={tlist}", "runs=15"], capture_output=True,
                               text=True, timeout=120, check=False)
            for line in p.stdout.splitlines():
                if line.startswith("{"):
                    r = json.loads(line)
                    lat_aten[r["threads"]] = r["ns_per_call"]
        except (OSError, subprocess.SubprocessError) as e:
            log(f"ATen latency failed: {e}")
    lat_py = py.latency(threads, 15)

    log("peak memory of (4096,1)+(1,4096)")
    me = os.path.abspath(__file__)
    python = sys.executable
    mem = {"bcast": run_memory([args.driver, "--memory"])}
    if py.torch is not None:
        mem["PyTorch"] = run_memory([python, me, "--memory-probe", "torch"])
    if py.np is not None:
        mem["NumPy"] = run_memory([python, me, "--memory-probe", "numpy"])

    # ---- render
    out = []
    out.append(f"bcast {info['version']} ({info['simd']}) vs PyTorch {torch_version} and NumPy "
               f"{np_version} on {platform.machine()}, {os.cpu_count()} CPUs; all cores = "
               f"{all_threads} threads; median of {runs} runs.")
    out.append("")
    out.append("GB/s = (bytes read + written) / median time; a broadcast operand counts once. "
               "f32 and out= (preallocated result) unless said. Ratios are bcast's GB/s over the "
               "other's (higher is better for bcast); the ceiling is the streaming-store loop below.")
    out.append("")
    out += table(["case", "threads", "bcast GB/s", "PyTorch GB/s", "NumPy GB/s", "bcast/PyTorch",
                  "bcast/NumPy", "bcast/ceiling", "target", "status", "notes"], rows)
    out.append("")
    out.append("NumPy's ufuncs are single-threaded: its all-cores rows repeat the 1-thread time.")
    out.append("")
    crow = []
    for t in threads:
        crow.append(["c[i] = a[i] + b[i], 16M f32, plain stores", t, fmt(ceiling.get(("plain", t)))])
        crow.append(["same, streaming (non-temporal) stores", t, fmt(ceiling.get(("stream", t)))])
    out += table(["bandwidth ceiling (C, OpenMP)", "threads", "GB/s"], crow)
    out.append("")
    lrow = []
    aten_note = "" if lat_aten else " (ATen from C++ unavailable: see PyTorch (Python))"
    for t in threads:
        b = lat_bc.get(t)
        a = lat_aten.get(t)
        status = "n/a" if b is None else ("PASS" if b <= LATENCY_TARGET_NS else "MISS")
        lrow.append(["(32)+(32) f32 out=", t, fmt(b), fmt(a), fmt(lat_py["torch"].get(t)),
                     fmt(lat_py["numpy"]), fmt(ratio(a, b), ".1f", "x"),
                     f"<= {LATENCY_TARGET_NS:.0f} ns", status])
    out += table(["small op" + aten_note, "threads", "bcast ns (C ABI)", "ATen ns (C++)",
                  "PyTorch ns (Python)", "NumPy ns (Python)", "ATen/bcast", "target", "status"], lrow)
    out.append("")
    mrow = []
    for lib, r in mem.items():
        if r is None:
            mrow.append([lib, "n/a", "n/a", "n/a"])
            continue
        grow, res = r["peak_rss_growth_bytes"] / 2**20, r["result_bytes"] / 2**20
        verdict = "no operand materialised" if grow < 1.5 * res else "an operand was materialised?"
        mrow.append([lib, f"{grow:.1f}", f"{res:.1f}", verdict])
    out += table(["(4096,1)+(1,4096) f32, allocating", "peak RSS growth MiB", "result MiB",
                  ""], mrow)
    text = "\n".join(out)
    print(text)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(text + "\n")
        log(f"markdown written to {args.markdown}")
    log("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
