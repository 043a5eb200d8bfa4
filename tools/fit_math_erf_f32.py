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
import mpmath as mp

from fit_math import fit

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


if __name__ == "__main__":
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
