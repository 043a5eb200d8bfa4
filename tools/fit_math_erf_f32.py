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

F32_TAIL_C = mp.mpf(4)  # u = (a - 4)/(a + 4): a -+ 4 exact with Fast2Sum
F32_TAIL_LO, F32_TAIL_HI = mp.mpf("0.5"), mp.mpf("10.3")
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


def tail_a(u):
    return F32_TAIL_C * (1 + u) / (1 - u)


def tail_h(u):
    # erfc(a) e^(a^2) (a + 4), slowly varying (0.78 to 2.8)
    a = tail_a(u)
    return mp.erfc(a) * mp.exp(a * a) * (a + F32_TAIL_C)


def tail_d(u):
    # H'(u) / H(u) (1 - u) / 8: u's error u_l = R / d, 1/d ~ (1 - u)/8
    return mp.diff(tail_h, u) / tail_h(u) * (1 - u) / (2 * F32_TAIL_C)


def main_f32():
    mp.mp.dps = 40
    cs, e = fit_f32(erf_q, 0, F32_ERF_SPLIT ** 2, 6, rel=lambda z: erf_q(z) + 1)
    show_f32("kErfQf", cs, e, "erf(a)/a - 1 in z = a^2 on [0, 1], relative to erf(a)/a")
    ul = (F32_TAIL_LO - F32_TAIL_C) / (F32_TAIL_LO + F32_TAIL_C)
    uh = (F32_TAIL_HI - F32_TAIL_C) / (F32_TAIL_HI + F32_TAIL_C)
    cs, e = fit_f32(tail_h, ul, uh, 10)
    show_f32("kErfcHf", cs, e, "erfc(a) e^(a^2) (a + 4) in u = (a - 4)/(a + 4), a in [0.5, 10.3]")
    cs, e = fit_f32(tail_d, ul, uh, 3, rel=lambda u: 1, npts=300)
    show_f32("kErfcDf", cs, e, "H'(u)/H(u) (1 - u)/8 (absolute error)")
    print("// max |H'/H (1-u)/8|: %.3g" % max(abs(float(tail_d(ul + (uh - ul) * k / 50))) for k in range(51)))
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
