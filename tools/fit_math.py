#!/usr/bin/env python3
"""Polynomial coefficients for src/kernels/math_exp-inl.h.

Each polynomial is interpolated at the Chebyshev nodes of its interval (a
near-minimax fit) in 120-digit arithmetic with mpmath, the monomial
coefficients rounded to double, and the relative error of the rounded
polynomial (evaluated exactly) measured on a dense grid.  Run:

    python3 -m venv /tmp/mpv && /tmp/mpv/bin/pip install mpmath
    /tmp/mpv/bin/python tools/fit_math.py

and paste the printed C arrays (c0 + c1 t + ...). math_exp-inl.h uses
kExpTail9 (as kExpTail) and kLogTail7 (as kLogTail), and the constants
printed last.
"""
import mpmath as mp

mp.mp.dps = 120


def fit(f, a, b, deg, g=None, rnd=float, npts=2000):
    """Interpolate f at the deg + 1 Chebyshev nodes of [a, b].  Returns the
    coefficients rounded by rnd (float: to double) and the largest error of
    the rounded polynomial p over npts + 1 evenly spaced points of [a, b]:
    |p - f(x)| / |f(x)|, or g(x, p, f(x)) if g is given."""
    a, b = mp.mpf(a), mp.mpf(b)
    n = deg + 1
    nodes = [(a + b) / 2 + (b - a) / 2 * mp.cos(mp.pi * (2 * i + 1) / (2 * n)) for i in range(n)]
    A = mp.matrix([[x ** j for j in range(n)] for x in nodes])
    y = mp.matrix([f(x) for x in nodes])
    c = mp.lu_solve(A, y)
    cd = [rnd(float(c[j])) for j in range(n)]
    return cd, max_error(cd, f, a, b, npts, g)


def max_error(cs, f, a, b, npts, g=None):
    """The largest error of the polynomial with coefficients cs (evaluated
    exactly) over npts + 1 evenly spaced points of [a, b]: |p - f(x)| /
    |f(x)|, or g(x, p, f(x)) if g is given."""
    a, b = mp.mpf(a), mp.mpf(b)
    err = mp.mpf(0)
    for i in range(npts + 1):
        x = a + (b - a) * i / npts
        p = mp.mpf(0)
        for c in reversed(cs):
            p = p * x + mp.mpf(c)
        fx = f(x)
        err = max(err, g(x, p, fx) if g else abs((p - fx) / fx))
    return err


def show(name, cd, err):
    print("// %s: max relative error %.3g (2^%.1f)" % (name, float(err), float(mp.log(err, 2))))
    print("static constexpr double %s[%d] = {" % (name, len(cd)))
    for c in cd:
        print("    %s," % float.hex(c))
    print("};")


def exp_tail(r):
    # (exp(r) - 1 - r - r^2/2) / r^3, its Taylor series near 0
    if abs(r) < mp.mpf("1e-30"):
        return mp.mpf(1) / 6
    return (mp.exp(r) - 1 - r - r * r / 2) / r ** 3


def atanh_tail(z):
    # (atanh(s)/s - 1) / s^2 with z = s^2: 1/3 + z/5 + z^2/7 + ...
    if z < mp.mpf("1e-40"):
        return mp.mpf(1) / 3
    s = mp.sqrt(z)
    return (mp.atanh(s) / s - 1) / z


if __name__ == "__main__":
    R = 0.35  # |r| after exp's reduction r = x - k ln2 (ln2/2 = 0.3466) plus its low part
    for deg in (8, 9, 10):
        cd, err = fit(exp_tail, -R, R, deg)
        show("kExpTail%d" % deg, cd, err)
    S = 0.1716 ** 2 * 1.0001  # s = f/(2+f), f in [sqrt(1/2)-1, sqrt(2)-1]
    for deg in (6, 7, 8):
        cd, err = fit(atanh_tail, 0, S, deg)
        show("kLogTail%d" % deg, cd, err)

    # Constants: ln2 cut to 42 bits (k * hi exact for |k| < 2^11) + the rest;
    # double-double (hi + lo) splits of the other irrational constants.
    ln2 = mp.log(2)
    hi = mp.floor(ln2 * 2 ** 42) / 2 ** 42
    print("kLn2CwHi = %s;  kLn2CwLo = %s;" % (float.hex(float(hi)), float.hex(float(ln2 - hi))))
    for name, v in (("kLn2", ln2), ("kInvLn2", 1 / ln2), ("kInvLn10", 1 / mp.log(10)),
                    ("kSqrt2OverPi", mp.sqrt(2 / mp.pi)), ("kGeluC", mp.mpf("0.044715"))):
        h = float(v)
        print("%sHi = %s;  %sLo = %s;" % (name, float.hex(h), name, float.hex(float(v - h))))
    # Tanh on a <= 1 and sinh on a <= 1/2: f(a) = a + a z P(z), z = a^2
    # (plus a margin), the error relative to f(a).
    for name, f, zmax, deg, c0 in (("kTanhP", mp.tanh, "1.0001", 15, mp.mpf(-1) / 3),
                                   ("kSinhP", mp.sinh, "0.2501", 6, mp.mpf(1) / 6)):
        def tail(z, f=f, c0=c0):
            if z < mp.mpf("1e-60"):
                return c0
            a = mp.sqrt(z)
            return (f(a) / a - 1) / z

        def err(z, p, fz, f=f):
            if z < mp.mpf("1e-60"):
                return mp.mpf(0)
            a = mp.sqrt(z)
            return abs(z * (p - fz) / (f(a) / a))
        cd, e = fit(tail, 0, mp.mpf(zmax), deg, err, npts=1500)
        show(name, cd, e)
