#!/usr/bin/env python3
"""Float32 polynomial coefficients for src/kernels/math_erf_f32-inl.h
(the method is described above main_f32). Run:

    ~/.cache/bcast/venv-torch/bin/python tools/fit_math_erf_f32.py

and paste the printed arrays; math_erf_f32-inl.h uses them under the same
names.
"""
import mpmath as mp

from fit_math import max_error

mp.mp.dps = 60


# ---------------------------------------------------------------------------
# Native float32 forms (ErfF32, ErfcF32, GeluErfF32 in fmas): float32
# coefficients. Rounding each coefficient of a double fit to float32 would
# cost up to 2^-25 of its term, so the coefficients are fixed one at a time,
# lowest first: a weighted least-squares fit (relative weights, 3 (deg + 1)
# Chebyshev points, 40-digit mpmath) of the terms not yet fixed to what the
# fixed ones leave, its lowest coefficient rounded to float32 and kept.
# Errors are of the float32 coefficients evaluated exactly, on a dense grid.
#

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


def tail_table(name, f, lo, deg, what, last_hi=None):
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
    mids = [(l + h) / 2 for l, h in zip(edges[:-1], edges[1:])]
    if last_hi is not None:  # the last interval also takes what lies above
        edges[-1] = mp.mpf(last_hi)
    rows = [[] for _ in range(deg + 3)]
    worst = mp.mpf(0)
    for l, h, mid in zip(edges[:-1], edges[1:], mids):
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


def erfinv_q(z):
    # (erfinv(a)/a - sqrt(pi)/2) / z, z = a^2
    c0 = mp.sqrt(mp.pi) / 2
    if z == 0:
        return c0 * mp.pi / 12
    s = mp.sqrt(z)
    return (mp.erfinv(s) / s - c0) / z


def erfinv_of_l(L):
    # erfinv(1 - e^-L): 0.81 to 3.9 on L in [log 4, 24 log 2]
    return mp.erfinv(-mp.expm1(-L))


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
    # ErfinvF32: a (c0 + z Q(z)) for a <= 3/4 (c0 = sqrt(pi)/2 as a float32
    # pair), the error relative to erfinv(a)/a; above, erfinv(1 - m) as a
    # function of L = -log(m) on eight intervals from 1 (the last to 16.7:
    # m >= 2^-24).
    c0 = mp.sqrt(mp.pi) / 2

    cs, e = fit_f32(erfinv_q, 0, mp.mpf("0.5625"), 9,
                    rel=lambda z: (erfinv_q(z) * z + c0) / z if z != 0 else mp.inf, npts=600)
    show_f32("kErfinvQf", cs, e, "(erfinv(a)/a - c0)/z in z = a^2 on [0, 0.5625], relative to erfinv(a)/a")
    print("kErfinvC0Hi = %sf; kErfinvC0Lo = %sf;" % (hexf(to_f32(c0)), hexf(to_f32(c0 - to_f32(c0)))))
    tail_table("kErfinvTailF", erfinv_of_l, 1, 7, "erfinv(1 - e^-L), L in [1, 16.7]", last_hi="16.7")
    # ErfF32's tail (a in [1, 4], erfc(a) <= 0.16 subtracted from 1): a
    # polynomial in t = a - 5/2, no division (lawson_f32 needs numpy).
    from fit_math_f32 import lawson_f32

    def G(t):
        return mp.erfc(t + mp.mpf(2.5)) * mp.exp((t + mp.mpf(2.5)) ** 2)
    cs, e = lawson_f32(G, lambda t: 1 / G(t), mp.mpf("-1.501"), mp.mpf("1.501"), 11, n=800)
    show_f32("kErfcGf", cs, e, "erfc(a) e^(a^2) in t = a - 5/2, a in [1, 4]")
    c = 1 / mp.sqrt(2)
    print("kInvSqrt2Hi = %sf; kInvSqrt2Lo = %sf;" % (float.hex(to_f32(c)), float.hex(to_f32(c - to_f32(c)))))


if __name__ == "__main__":
    main_f32()
