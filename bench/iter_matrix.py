#!/usr/bin/env python3
"""Host kernels through the broadcast iterator (bc_iter): a host's float32
`a + b` loop (bench/host_add.c) on every layout of the binary matrix,
against bcast's own bc_binary_out(BC_ADD), PyTorch 2.x's and NumPy 2.x's
add on the same buffers, with the copy ceiling of each cell's bytes, at 1
thread and all cores, in one run.

Layouts at (1024, 4096): same, row (4096,), column (1024,1), outer
(1024,1)+(1,4096), transposed (a is a (4096,1024) tensor transposed),
expanded (b a (1,4096) view expanded to (1024,4096), stride 0), mixed
(int32 a + float32 b: the loop reads a converted to float32 in buffers, as
bcast's add does). The issue's target: the iterator at >= 0.9x of
bc_binary_out in every cell.

    python bench/iter_matrix.py --lib build/libbcast.so \
        --host build/bench/libbcbench_host_add.so [--threads 1,all]
"""

import argparse
import ctypes
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import matrix  # noqa: E402  (Bcast, measure, cell_ceiling, geomean, machine line)

import numpy as np  # noqa: E402
import torch  # noqa: E402

ROWS, COLS = 1024, 4096
LOOP = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p),
                        ctypes.POINTER(ctypes.c_int64), ctypes.c_int64, ctypes.c_int64)


class IterSpec(ctypes.Structure):
    _fields_ = [("inputs", ctypes.POINTER(ctypes.c_void_p)), ("nin", ctypes.c_size_t),
                ("out", ctypes.c_void_p), ("out_dtype", ctypes.c_int),
                ("loop_dtypes", ctypes.POINTER(ctypes.c_int)), ("flags", ctypes.c_uint)]


def operands(layout, gen):
    f32 = torch.float32
    def rnd(shape, dt=f32):
        if dt == torch.int32:
            return torch.from_numpy(gen.integers(1, 100, shape)).to(dt)
        return torch.from_numpy(gen.uniform(0.5, 2.0, shape)).to(dt)
    if layout == "same":
        return rnd((ROWS, COLS)), rnd((ROWS, COLS))
    if layout == "row":
        return rnd((ROWS, COLS)), rnd((COLS,))
    if layout == "column":
        return rnd((ROWS, COLS)), rnd((ROWS, 1))
    if layout == "outer":
        return rnd((ROWS, 1)), rnd((1, COLS))
    if layout == "transposed":
        return rnd((COLS, ROWS)).t(), rnd((ROWS, COLS))
    if layout == "expanded":
        return rnd((ROWS, COLS)), rnd((1, COLS)).expand(ROWS, COLS)
    if layout == "mixed":
        return rnd((ROWS, COLS), torch.int32), rnd((ROWS, COLS))
    raise ValueError(layout)


LAYOUTS = ("same", "row", "column", "outer", "transposed", "expanded", "mixed")


def run_cell(bc, host_fn, layout, runs, gen):
    L = bc.lib
    a, b = operands(layout, gen)
    out = torch.empty((ROWS, COLS), dtype=torch.float32)
    dts = ["i32" if x.dtype == torch.int32 else "f32" for x in (a, b)]
    ha, hb, ho = bc.wrap(a, dts[0]), bc.wrap(b, dts[1]), bc.wrap(out, "f32")
    it = ctypes.c_void_p()
    try:
        ins = (ctypes.c_void_p * 2)(ha.value, hb.value)
        loop_dtypes = (ctypes.c_int * 3)(8, 8, 8)  # float32 for every operand
        spec = IterSpec(ins, 2, ho.value, 8, loop_dtypes, 0)
        if L.bc_iter_new(ctypes.byref(spec), ctypes.byref(it)) != 0:
            raise RuntimeError(L.bc_last_error().decode())
        fi = lambda: L.bc_iter_run(it, host_fn, None)  # noqa: E731
        fb = lambda: L.bc_binary_out(0, ha, hb, ho)  # noqa: E731
        if fi() != 0:
            raise RuntimeError(L.bc_last_error().decode())
        want = (a.to(torch.float32) + b)
        if not torch.equal(out, want):
            raise RuntimeError(f"{layout}: the host kernel's result differs from a + b")
        ft = lambda: torch.add(a, b, out=out)  # noqa: E731
        na, nb, no = a.numpy(), b.numpy(), out.numpy()
        fn = lambda: np.add(na, nb, out=no)  # noqa: E731
        ti, tb, tt, tn = matrix.measure([fi, fb, ft, fn], runs)
    finally:
        L.bc_iter_free(it)
        for h in (ha, hb, ho):
            L.bc_tensor_free(h)
    nbytes = sum(x.untyped_storage().nbytes() for x in (a, b)) + out.numel() * 4
    return {"iter_s": ti, "bcast_s": tb, "torch_s": tt, "numpy_s": tn, "gbps": nbytes / ti / 1e9,
            "ceiling_gbps": matrix.cell_ceiling(bc, nbytes)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lib", required=True, help="path to libbcast.so")
    ap.add_argument("--host", required=True, help="path to libbcbench_host_add.so")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", default="1,all")
    args = ap.parse_args()
    bc = matrix.Bcast(args.lib)
    L = bc.lib
    L.bc_iter_new.argtypes = [ctypes.POINTER(IterSpec), ctypes.POINTER(ctypes.c_void_p)]
    L.bc_iter_run.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    L.bc_iter_free.argtypes = [ctypes.c_void_p]
    host = ctypes.CDLL(args.host)
    host_fn = ctypes.cast(host.bcbench_add_f32, ctypes.c_void_p)
    ncpu = os.cpu_count() or 1
    print(matrix.machine_line(bc), flush=True)
    for threads in dict.fromkeys(ncpu if t == "all" else int(t) for t in args.threads.split(",")):
        torch.set_num_threads(threads)
        L.bc_set_num_threads(threads)
        gen = np.random.default_rng(0)
        print(f"\n## {threads} thread(s), float32 (1024, 4096): x = other's time / the iterator's")
        print(f"{'layout':>11} {'iter GB/s':>9} {'x bcast op':>10} {'x PyTorch':>9} {'x NumPy':>8} "
              f"{'x ceiling':>9}")
        ratios = []
        for layout in LAYOUTS:
            r = run_cell(bc, host_fn, layout, args.runs, gen)
            ratios.append(r["bcast_s"] / r["iter_s"])
            print(f"{layout:>11} {r['gbps']:9.2f} {r['bcast_s'] / r['iter_s']:10.2f} "
                  f"{r['torch_s'] / r['iter_s']:9.2f} {r['numpy_s'] / r['iter_s']:8.2f} "
                  f"{r['gbps'] / r['ceiling_gbps']:9.2f}", flush=True)
        worst = min(zip(ratios, LAYOUTS))
        print(f"iterator vs bc_binary_out: worst {worst[0]:.2f}x ({worst[1]}), "
              f"geometric mean {matrix.geomean(ratios):.2f}x")


if __name__ == "__main__":
    main()
