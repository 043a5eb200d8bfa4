#!/usr/bin/env python3
"""Polynomial coefficients for src/kernels/math_exp_f32-inl.h.

The float32 functions there compute in float64 with polynomials accurate to
about 2^-40 relative (the result is then rounded once to float32, so a
relative error e before that rounding costs at most e * 2^24 ulp beyond the
0.5 ulp of the rounding). Chebyshev-node interpolation (near-minimax; fit()
in tools/fit_math.py) in 120-digit mpmath, coefficients rounded to double,
relative error of the rounded polynomial (evaluated exactly) measured on a
dense grid. Run:

    python3 -m venv /tmp/mpv && /tmp/mpv/bin/pip install mpmath
    /tmp/mpv/bin/python tools/fit_math_f32.py
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
    print("constexpr double kInvLn2 = %s;" % float.hex(float(1 / mp.log(2))))
    print("constexpr double kLn2 = %s;" % float.hex(float(mp.log(2))))
    print("constexpr double kInvLn10 = %s;" % float.hex(float(1 / mp.log(10))))
    print("constexpr double kSqrt2OverPi = %s;" % float.hex(float(mp.sqrt(2 / mp.pi))))
