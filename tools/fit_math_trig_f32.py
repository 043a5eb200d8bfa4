#!/usr/bin/env python3
"""Polynomial coefficients for src/kernels/math_trig_f32-inl.h.

The float32 trig functions there compute in float64 (ViaF64) and round once
to float32, so a relative error e before that rounding costs at most
e * 2^24 ulp beyond the 0.5 ulp of the rounding; these polynomials aim at
~2^-40. Same method as tools/fit_math_f32.py (fit() in tools/fit_math.py):
Chebyshev-node interpolation in 120-digit mpmath, coefficients rounded to
double, the relative error of the rounded polynomial (evaluated exactly)
measured on a dense grid of the whole function. Run:

    python3 tools/fit_math_trig_f32.py   (needs mpmath)

and paste the printed arrays: math_trig_f32-inl.h uses kSinPi, kSinS4 (as
kSinS), kCosC4 (as kCosC), kSinPf, kCosPf, kAsinPf, kAtanPf and the
constants printed with them.
"""
import os
import sys

import mpmath as mp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fit_math import fit  # noqa: E402
from fit_math_f32 import f32, lawson_f32, show  # noqa: E402

mp.mp.dps = 120
TINY = mp.mpf("1e-40")


def tail(f, lead):
    """(f(s)/s - 1) / s^2 as a function of z = s^2 (lead: its value at 0)."""
    def g(z):
        if z < TINY:
            return lead
        s = mp.sqrt(z)
        return (f(s) / s - 1) / z
    return g


def tail_err(f):
    """Relative error of f(s) = s (1 + z p)."""
    def e(z, p, q):
        if z < TINY:
            return mp.mpf(0)
        s = mp.sqrt(z)
        return abs(z * (p - q) / (f(s) / s))
    return e


def cos_tail(z):  # (cos r - 1 + z/2) / z^2
    if z < TINY:
        return mp.mpf(1) / 24
    r = mp.sqrt(z)
    return (mp.cos(r) - 1 + z / 2) / z ** 2


def cos_err(z, p, q):
    return abs(z * z * (p - q) / mp.cos(mp.sqrt(z)))


if __name__ == "__main__":
    # SinF32, CosF32: |r| <= pi/2 plus the rounding of k (x/pi near a
    # half-integer).
    RP = (mp.pi / 2 * mp.mpf("1.0001")) ** 2
    cd, err = fit(tail(mp.sin, mp.mpf(-1) / 6), 0, RP, 5, tail_err(mp.sin), npts=4000)
    show("kSinPi", cd, err)
    # TanF32: |r| <= pi/4 plus the rounding of k (x * 2/pi near a half-integer).
    R2 = (mp.pi / 4 * mp.mpf("1.0001")) ** 2
    for deg in (4, 5):
        cd, err = fit(tail(mp.sin, mp.mpf(-1) / 6), 0, R2, deg, tail_err(mp.sin), npts=4000)
        show("kSinS%d" % deg, cd, err)
        cd, err = fit(cos_tail, 0, R2, deg, cos_err, npts=4000)
        show("kCosC%d" % deg, cd, err)
    # asin(s), s <= 1/2 (z <= 1/4; sqrt((1 - a)/2) rounds to at most 1/2).
    # Native float32 forms (float32 coefficients in fmas), odd functions as
    # f(u) = u + u z P(z), z = u^2, weighted by z / (f(u)/u): the error
    # relative to f(u).
    def odd_tail(f, at0):
        def p(z):
            if z < mp.mpf("1e-30"):
                return at0
            u = mp.sqrt(z)
            return (f(u) / u - 1) / z
        return p

    def odd_weight(f):
        def w(z):
            if z < mp.mpf("1e-30"):
                return mp.mpf(0)
            u = mp.sqrt(z)
            return z / (f(u) / u)
        return w

    # SinF32/CosF32: |r| <= 1.01 pi/4; cos(r) = 1 - z/2 + z^2 C(z), relative
    # to cos(r).
    ZC = (mp.pi / 4 * mp.mpf("1.01")) ** 2

    def cos_c(z):
        if z < mp.mpf("1e-20"):
            return mp.mpf(1) / 24
        r = mp.sqrt(z)
        return (mp.cos(r) - 1 + z / 2) / z ** 2

    def cos_w(z):
        return z * z / mp.cos(mp.sqrt(z))
    cs, err = lawson_f32(odd_tail(mp.sin, mp.mpf(-1) / 6), odd_weight(mp.sin), 0, ZC, 3)
    show("kSinPf", cs, err, "float")
    cs, err = lawson_f32(cos_c, cos_w, 0, ZC, 3)
    show("kCosPf", cs, err, "float")
    c1 = f32(float(mp.pi / 2))
    c2 = f32(float(mp.pi / 2 - c1))
    c3 = f32(float(mp.pi / 2 - c1 - c2))
    print("// pi/2 = %sf + %sf + %sf" % (float.hex(c1), float.hex(c2), float.hex(c3)))
    print("// kTwoOverPiF = %sf" % float.hex(f32(float(2 / mp.pi))))
    # AsinF32/AcosF32: s <= 1/2 (z <= 1.0001/4).
    ZS = mp.mpf("0.25") * mp.mpf("1.0001")
    cs, err = lawson_f32(odd_tail(mp.asin, mp.mpf(1) / 6), odd_weight(mp.asin), 0, ZS, 5)
    show("kAsinPf", cs, err, "float")
    # AtanF32: |u| <= tan(pi/8) (plus the rounding of the quotient).
    ZA = (mp.tan(mp.pi / 8) * mp.mpf("1.0001")) ** 2
    cs, err = lawson_f32(odd_tail(mp.atan, mp.mpf(-1) / 3), odd_weight(mp.atan), 0, ZA, 4)
    show("kAtanPf", cs, err, "float")
    for nm, v in (("kPio4", mp.pi / 4), ("kPio2", mp.pi / 2), ("kPi", mp.pi)):
        hi = f32(float(v))
        print("// %sHiF = %sf, %sLoF = %sf" % (nm, float.hex(hi), nm, float.hex(f32(float(v - mp.mpf(hi))))))
