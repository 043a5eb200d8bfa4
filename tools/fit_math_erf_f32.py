#!/usr/bin/env python3
"""Polynomial coefficients for src/kernels/math_erf_f32-inl.h.

Same method as tools/fit_math_f32.py (fit() in tools/fit_math.py):
Chebyshev-node interpolation (near-minimax) in 60-digit mpmath, coefficients
rounded to double, relative error of the rounded polynomial (evaluated
exactly) measured on a dense grid. The float32 functions evaluate these in
float64 and round once, so a relative error e costs at most e * 2^24 ulp
beyond the 0.5 ulp of the rounding. Run:

    python3 -m venv /tmp/mpv && /tmp/mpv/bin/pip install mpmath
    /tmp/mpv/bin/python tools/fit_math_erf_f32.py

and paste the printed arrays; math_erf_f32-inl.h uses them under the same
names.
"""
import sys

import mpmath as mp

from fit_math import fit, max_error

mp.mp.dps = 60


def show(name, cd, err, what):
    print("// %s: max relative error %.3g (2^%.1f)" % (what, float(err), float(mp.log(err, 2))))
    print("constexpr double %s[%d] = {" % (name, len(cd)))
    for i in range(0, len(cd), 3):
        print("    " + " ".join("%s," % float.hex(c) for c in cd[i:i + 3]))
    print("};")


# erf(a) = a P(a^2) for a < kErfSplit.
ERF_SPLIT = mp.mpf("0.75")
# erfc(a) = exp(-a^2) F(a) for kErfSplit <= a <= ERFC_HI, F(a) = G(u),
# u = (a - S) / (a + S): F is analytic in u up to u = 1 (a = inf), where it
# has an expansion in 1/a^2.
ERFC_HI = mp.mpf("10.3")  # gelu(x) underflows from |x|/sqrt2 = 10.25 on
S = mp.mpf(3)
# erfinv(a) = a C(a^2) for a <= 0.75; above, erfinv(a) = T(w),
# w = sqrt(-log(1 - a)) in [sqrt(log 4), sqrt(24 log 2)] (1 - a >= 2^-24 for
# float32 a < 1), split at W_SPLIT.
W_LO = mp.sqrt(mp.log(4))
W_HI = mp.sqrt(24 * mp.log(2)) * mp.mpf("1.0001")
W_SPLIT = mp.mpf("2.25")


def erf_over_a(z):
    if z == 0:
        return 2 / mp.sqrt(mp.pi)
    s = mp.sqrt(z)
    return mp.erf(s) / s


def erfcx_of_u(u):
    a = S * (1 + u) / (1 - u)
    return mp.erfc(a) * mp.exp(a * a)


def erfinv_over_a(z):
    if z == 0:
        return mp.sqrt(mp.pi) / 2
    s = mp.sqrt(z)
    return mp.erfinv(s) / s


def erfinv_of_w(w):
    return mp.erfinv(-mp.expm1(-w * w))


if __name__ == "__main__" and len(sys.argv) == 1:
    cd, e = fit(erf_over_a, 0, ERF_SPLIT ** 2, 7, npts=3000)
    show("kErfSmall", cd, e, "erf(a)/a in z = a^2 on [0, 0.5625]")
    cd, e = fit(erfcx_of_u, (ERF_SPLIT - S) / (ERF_SPLIT + S), (ERFC_HI - S) / (ERFC_HI + S), 12,
                npts=3000)
    show("kErfcTail", cd, e, "erfc(a) exp(a^2) in u = (a - 3)/(a + 3), a in [0.75, 10.3]")
    cd, e = fit(erfinv_over_a, 0, mp.mpf("0.5625"), 12, npts=3000)
    show("kErfinvC", cd, e, "erfinv(a)/a in z = a^2 on [0, 0.5625]")
    cd, e = fit(erfinv_of_w, W_LO, W_SPLIT, 12, npts=3000)
    show("kErfinvT1", cd, e, "erfinv(1 - e^-w^2) on w in [sqrt(log 4), 2.25]")
    cd, e = fit(erfinv_of_w, W_SPLIT, W_HI, 12, npts=3000)
    show("kErfinvT2", cd, e, "erfinv(1 - e^-w^2) on w in [2.25, sqrt(24 log 2)]")


# ---------------------------------------------------------------------------
# Native float32 forms (ErfF32, ErfcF32, GeluErfF32 in fmas): float32
# coefficients. Rounding each coefficient of a double fit to float32 would
# cost up to 2^-25 of its term, so the coefficients are fixed one at a time,
# lowest first: a weighted least-squares fit (relative weights, 3 (deg + 1)
# Chebyshev points, 40-digit mpmath) of the terms not yet fixed to what the
# fixed ones leave, its lowest coefficient rounded to float32 and kept.
# Errors are of the float32 coefficients evaluated exactly, on a dense grid.
#
# Run: ~/.cache/bcast/venv-torch/bin/python tools/fit_math_erf_f32.py f32

F32_ERF_SPLIT = mp.mpf(1)


def to_f32(v):
    import struct
    return struct.unpack("f", struct.pack("f", float(v)))[0]


def cheb_nodes(a, b, n):
    return [(a + b) / 2 + (b - a) / 2 * mp.cos(mp.pi * (2 * i + 1) / (2 * n)) for i in range(n)]


def fit_f32(f, a, b, deg, rel=None, npts=1500):
    a, b = mp.mpf(a), mp.mpf(b)
    cs = []
    xs = cheb_nodes(a, b, 3 * (deg + 1))
    ws = [1 / (rel(x) if rel else f(x)) for x in xs]
    while len(cs) < deg + 1:
        i = len(cs)
        A = mp.matrix([[w * x ** j for j in range(i, deg + 1)] for x, w in zip(xs, ws)])
        y = mp.matrix([w * (f(x) - sum(mp.mpf(c) * x ** j for j, c in enumerate(cs)))
                       for x, w in zip(xs, ws)])
        cs.append(to_f32(mp.qr_solve(A, y)[0][0]))
    g = (lambda x, p, fx: abs((p - fx) / rel(x))) if rel else None
    return cs, max_error(cs, f, a, b, npts, g)


def show_f32(name, cs, err, what):
    print("// %s: max relative error %.3g (2^%.1f)" % (what, float(err), float(mp.log(err, 2))))
    print("constexpr float %s[%d] = {" % (name, len(cs)))
    for i in range(0, len(cs), 4):
        print("    " + " ".join("%sf," % float.hex(c) for c in cs[i:i + 4]))
    print("};")


def erf_q(z):
    # erf(a)/a - 1, z = a^2
    if z == 0:
        return 2 / mp.sqrt(mp.pi) - 1
    s = mp.sqrt(z)
    return mp.erf(s) / s - 1


def fit_f32_pair(f, a, b, deg, npts=600):
    """As fit_f32, the constant term as a float32 pair hi + lo (its rounding
    to one float32 would cost 2^-25 that no other term can absorb). Returns
    [c0 hi, c0 lo, c1, ..., c_deg] and the error with c0 = hi + lo."""
    a, b = mp.mpf(a), mp.mpf(b)
    xs = cheb_nodes(a, b, 3 * (deg + 1))
    ws = [1 / f(x) for x in xs]
    cs = []

    def fixed(x):
        return sum(mp.mpf(c) for c in cs[:2]) + sum(mp.mpf(c) * x ** (j - 1) for j, c in enumerate(cs) if j >= 2)
    while len(cs) < deg + 2:
        j0 = max(len(cs) - 1, 0)
        A = mp.matrix([[w * x ** j for j in range(j0, deg + 1)] for x, w in zip(xs, ws)])
        y = mp.matrix([w * (f(x) - fixed(x)) for x, w in zip(xs, ws)])
        cs.append(to_f32(mp.qr_solve(A, y)[0][0]))
    return cs, max_error([cs[0] + cs[1]] + cs[2:], f, a, b, npts)


def tail_table(name, f, lo, deg, what):
    """Eight intervals of b from lo (a power of two times 1 or 3/2): [lo, 3/2
    lo), [3/2 lo, 2 lo), ... (math_erf_f32-inl.h finds the interval from
    b's exponent and first mantissa bit). Each: f(mid + d) = c0 + d P(d),
    d = b - mid exact. Rows: mid, c0 hi, c0 lo, c1..c_deg; each row padded
    to 16 floats for one vector load per row."""
    edges = [mp.mpf(lo)]
    while len(edges) < 9:
        e = edges[-1]
        m, ex = mp.frexp(e)  # e = m 2^ex, m in [1/2, 1)
        edges.append(e * 4 / 3 if m > mp.mpf("0.7") else e * 3 / 2)
    rows = [[] for _ in range(deg + 3)]
    worst = mp.mpf(0)
    for l, h in zip(edges[:-1], edges[1:]):
        mid = (l + h) / 2
        cs, e = fit_f32_pair(lambda t: f(t + mid), l - mid, h - mid, deg)
        worst = max(worst, e)
        rows[0].append(float(mid))
        for j, c in enumerate(cs):
            rows[j + 1].append(c)
        print("//   [%g, %g): 2^%.1f" % (float(l), float(h), float(mp.log(e, 2))))
    print("// %s: max relative error %.3g (2^%.1f)" % (what, float(worst), float(mp.log(worst, 2))))
    print("alignas(64) constexpr float %s[%d][16] = {" % (name, len(rows)))
    for r in rows:
        print("    {" + ", ".join("%sf" % hexf(c) for c in r) + "},")
    print("};")


def hexf(c):
    # float.hex without the trailing zeros: 0x1.4p+0
    m, e = float.hex(c).split("p")
    return m.rstrip("0").rstrip(".") + "p" + e


def gelu_n(b):
    # b Phi(-b) e^(b^2/2): from 0.29 to 0.40 on [1, 16)
    return b * mp.erfc(b / mp.sqrt(2)) / 2 * mp.exp(b * b / 2)


def erfc_g(a):
    # erfc(a) e^(a^2): from 0.47 to 0.055 on [0.75, 12)
    return mp.erfc(a) * mp.exp(a * a)


def main_f32():
    mp.mp.dps = 40
    cs, e = fit_f32(erf_q, 0, F32_ERF_SPLIT ** 2, 6, rel=lambda z: erf_q(z) + 1)
    show_f32("kErfQf", cs, e, "erf(a)/a - 1 in z = a^2 on [0, 1], relative to erf(a)/a")
    tail_table("kGeluTailF", gelu_n, 1, 7, "b Phi(-b) e^(b^2/2), b in [1, 16)")
    tail_table("kErfcTailF", erfc_g, mp.mpf("0.75"), 8, "erfc(a) e^(a^2), a in [0.75, 12)")
    # ErfF32's tail (a in [1, 4], erfc(a) <= 0.16 subtracted from 1): a
    # polynomial in t = a - 5/2, no division (lawson_f32 needs numpy).
    from fit_math_f32 import lawson_f32

    def G(t):
        return mp.erfc(t + mp.mpf(2.5)) * mp.exp((t + mp.mpf(2.5)) ** 2)
    cs, e = lawson_f32(G, lambda t: 1 / G(t), mp.mpf("-1.501"), mp.mpf("1.501"), 11, n=800)
    show_f32("kErfcGf", cs, e, "erfc(a) e^(a^2) in t = a - 5/2, a in [1, 4]")
    c = 1 / mp.sqrt(2)
    print("kInvSqrt2Hi = %sf; kInvSqrt2Lo = %sf;" % (float.hex(to_f32(c)), float.hex(to_f32(c - to_f32(c)))))


if __name__ == "__main__" and len(sys.argv) > 1 and sys.argv[1] == "f32":
    main_f32()
