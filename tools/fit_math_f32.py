#!/usr/bin/env python3
"""Polynomial coefficients for src/kernels/math_exp_f32-inl.h.

The float32 functions there compute in float64 with polynomials accurate to
about 2^-40 relative (the result is then rounded once to float32, so a
relative error e before that rounding costs at most e * 2^24 ulp beyond the
0.5 ulp of the rounding). Chebyshev-node interpolation (near-minimax; fit()
in tools/fit_math.py) in 120-digit mpmath, coefficients rounded to double,
relative error of the rounded polynomial (evaluated exactly) measured on a
dense grid. Run:

    python3 -m venv /tmp/mpv && /tmp/mpv/bin/pip install mpmath numpy
    /tmp/mpv/bin/python tools/fit_math_f32.py

(numpy only for lawson_f32, the weighted fits of the fma logarithms.)
"""
import mpmath as mp

from fit_math import fit

mp.mp.dps = 120


def f32(v):
    import struct
    return struct.unpack("f", struct.pack("f", v))[0]


def show(name, cd, err, ty="double"):
    print("// %s: max relative error %.3g (2^%.1f)" % (name, float(err), float(mp.log(err, 2))))
    print("constexpr %s %s[%d] = {" % (ty, name, len(cd)))
    for c in cd:
        print("    %s%s," % (float.hex(c), "f" if ty == "float" else ""))
    print("};")


def exp_q(r):
    # (exp(r) - 1 - r) / r^2
    if abs(r) < mp.mpf("1e-30"):
        return mp.mpf(1) / 2
    return (mp.exp(r) - 1 - r) / r ** 2


def exp_err(r, p, q):
    # relative error of expm1(r) = r + r^2 p (and so also of exp(r) = 1 + that)
    if abs(r) < mp.mpf("1e-30"):
        return abs(p - q) * 0
    e1 = mp.expm1(r)
    return abs(r * r * (p - q) / e1)


def atanh_tail(z):
    # (atanh(s)/s - 1) / s^2 with z = s^2
    if z < mp.mpf("1e-40"):
        return mp.mpf(1) / 3
    s = mp.sqrt(z)
    return (mp.atanh(s) / s - 1) / z


def log_err(z, p, q):
    # relative error of atanh(s)/s = 1 + z p
    s = mp.sqrt(z)
    if z < mp.mpf("1e-40"):
        return mp.mpf(0)
    return abs(z * (p - q) / (mp.atanh(s) / s))


def lawson_f32(fun, w, a, b, deg, fixed=(), iters=300, n=3000):
    """Weighted near-minimax fit for float32 coefficients: minimizes
    max |w(x) (p(x) - fun(x))| over n + 1 Chebyshev-spaced points of [a, b]
    (Lawson's iteratively reweighted least squares, numpy float64), with
    p = sum c_k x^k. The coefficients are rounded to float32 one at a time,
    lowest first, refitting the higher ones after each rounding (so later
    coefficients absorb earlier roundings). fixed: given leading
    coefficients. Returns (coefficients, max weighted error measured in
    mpmath over a dense grid)."""
    import numpy as np
    x = np.array([float(a + (b - a) * (1 - mp.cos(mp.pi * i / n)) / 2) for i in range(n + 1)])
    y = np.array([float(fun(mp.mpf(t))) for t in x])
    W = np.array([float(w(mp.mpf(t))) for t in x])
    V0 = np.vander(x, deg + 1, increasing=True)
    cs = [f32(c) for c in fixed]
    while len(cs) <= deg:
        k0 = len(cs)
        rhs = y - (V0[:, :k0] @ np.array(cs) if k0 else 0)
        V = V0[:, k0:]
        u = np.ones_like(x) / len(x)
        for _ in range(iters):
            sw = np.sqrt(u) * W
            c = np.linalg.lstsq(V * sw[:, None], rhs * sw, rcond=None)[0]
            e = np.abs(W * (V @ c - rhs))
            u = u * e
            u /= u.sum()
        cs.append(f32(c[0]))
    err = mp.mpf(0)
    for i in range(4001):
        t = mp.mpf(a) + (mp.mpf(b) - a) * i / 4000
        p = mp.mpf(0)
        for c in reversed(cs):
            p = p * t + mp.mpf(c)
        err = max(err, abs(w(t) * (p - fun(t))))
    return cs, err


def log1p_q(f):
    # (log1p(f) - f) / f^2
    if abs(f) < mp.mpf("1e-30"):
        return mp.mpf(-1) / 2
    return (mp.log1p(f) - f) / f ** 2


def log_fma_interval():
    # Native float32 logs in fmas: x = 2^e (1 + f), f in [A, B]
    # (m = 1 + f in [0x1.6a09e6p-1, 2 * that)). The polynomials' errors
    # count relative to the e = 0 result (the smallest one).
    A = mp.mpf(f32(0.70710677)) - 1
    B = 2 * mp.mpf(f32(0.70710677)) - 1
    return A, B


if __name__ == "__main__":
    R = mp.mpf("0.3466")  # |r| <= ln2/2 plus rounding
    for deg in (5, 6):
        cd, err = fit(exp_q, -R, R, deg, exp_err, npts=4000)
        show("kExpQ%d" % deg, cd, err)
    Z = (3 - 2 * mp.sqrt(2)) ** 2 * mp.mpf("1.0001")  # s = f/(2+f), |s| <= 3-2sqrt2
    for deg in (3, 4, 5):
        cd, err = fit(atanh_tail, 0, Z, deg, log_err, npts=4000)
        show("kLogT%d" % deg, cd, err)
    # Native float32 exp: Q(r) = (e^r - 1 - r) / r^2 with float32
    # coefficients; error relative to e^r - 1 - r (i.e. of r^2 Q).
    def q_err(r, p, q):
        return abs((p - q) / q)
    for deg in (4, 5):
        cd, err = fit(exp_q, -R, R, deg, q_err, f32, npts=4000)
        show("kExpQf%d" % deg, cd, err, "float")
    # Native float32 logs in fmas (LogF32, Log2F32, Log10F32, Log1pF32):
    # log1p(f) = f + f^2 Q(f); log_b(1 + f) = f C + f R(f) with C the
    # float32 1/ln(b) and R(0) = 1/ln(b) - C. Error relative to the result.
    A, B = log_fma_interval()

    def wq(f):
        return mp.mpf(0) if abs(f) < mp.mpf("1e-30") else f * f / abs(mp.log1p(f))
    # Q(0) = -1/2 exactly: log1p's small arguments (a binade each, 2^23
    # inputs) then get errors far below the worst (2^-27.4 at |f| ~ 1/8).
    cs, err = lawson_f32(log1p_q, wq, A, B, 8, fixed=(-0.5,))
    show("kLogQf", cs, err, "float")
    for name, lnb in (("kLog2Rf", mp.log(2)), ("kLog10Rf", mp.log(10))):
        C = mp.mpf(f32(float(1 / lnb)))

        def rfun(f, lnb=lnb, C=C):
            if abs(f) < mp.mpf("1e-30"):
                return 1 / lnb - C
            return (mp.log1p(f) / lnb - f * C) / f

        def wr(f, lnb=lnb):
            return mp.mpf(0) if abs(f) < mp.mpf("1e-30") else abs(f * lnb / mp.log1p(f))
        cs, err = lawson_f32(rfun, wr, A, B, 9, fixed=(float(1 / lnb - C),))
        print("// C = %sf" % float.hex(float(C)))
        show(name, cs, err, "float")
    # log10(2) as A1 (at most 13 significant bits: e A1 exact) + A2.
    l102 = mp.log10(2)
    a1 = mp.floor(l102 * 2 ** 14) / 2 ** 14
    print("// log10(2) = %sf + %sf" % (float.hex(float(a1)), float.hex(f32(float(l102 - a1)))))
    print("// ln2 = kLn2F1 + %sf" % float.hex(f32(float(mp.log(2) - mp.mpf(float.fromhex("0x1.62ep-1"))))))
    print("constexpr double kInvLn2 = %s;" % float.hex(float(1 / mp.log(2))))
    print("constexpr double kLn2 = %s;" % float.hex(float(mp.log(2))))
    print("constexpr double kInvLn10 = %s;" % float.hex(float(1 / mp.log(10))))
    print("constexpr double kSqrt2OverPi = %s;" % float.hex(float(mp.sqrt(2 / mp.pi))))
    # TanhF32: tanh(a) = a + a z P(z), z = a^2 <= 1 (plus a margin),
    # weighted as the error relative to tanh(a).
    def tanh_tail(z):
        if z < mp.mpf("1e-30"):
            return mp.mpf(-1) / 3
        a = mp.sqrt(z)
        return (mp.tanh(a) / a - 1) / z

    def tanh_w(z):
        if z < mp.mpf("1e-30"):
            return mp.mpf(0)
        a = mp.sqrt(z)
        return z / (mp.tanh(a) / a)
    cs, err = lawson_f32(tanh_tail, tanh_w, 0, mp.mpf("1.0001"), 7, n=1500)
    show("kTanhPf", cs, err, "float")
    # TanhF32: 1/(1 + w) on w in [0, e^-2] (w = e^-2a, a >= 1), leading 1
    # fixed, relative error.
    W = mp.exp(-2) * mp.mpf("1.0001")
    cs, err = lawson_f32(lambda w: 1 / (1 + w), lambda w: 1 + w, 0, W, 5, fixed=(1.0,), n=500)
    show("kRecipOnePlusWf", cs, err, "float")
