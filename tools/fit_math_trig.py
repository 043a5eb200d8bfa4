#!/usr/bin/env python3
"""Coefficients for src/kernels/math_trig-inl.h (float64 sin/cos/tan, asin/acos,
atan, erf/erfc, erfinv), and the Payne-Hanek table of 2/pi bits.

Run:  python3 -m venv /tmp/mpv && /tmp/mpv/bin/pip install mpmath
      /tmp/mpv/bin/python tools/fit_math_trig.py [name ...]
Prints C++ constant lines.  Each polynomial is a Chebyshev interpolant
(mpmath.chebyfit, near-minimax) of a smooth auxiliary function; its
coefficients are rounded to double and the error after rounding is measured
on a dense grid and printed as a comment.
"""
import sys
import mpmath as mp

mp.mp.dps = 80


def dbl(v):
    return float(mp.mpf(v))


def hexd(v):
    return float(v).hex()


def split_dd(v):
    hi = dbl(v)
    lo = dbl(mp.mpf(v) - mp.mpf(hi))
    return hi, lo


def fit(name, g, a, b, n, weight=None, grid=2000):
    """Polynomial of n coefficients in t on [a, b] approximating g(t).
    Returns double coefficients, lowest degree first, and prints them."""
    poly, err = mp.chebyfit(g, [a, b], n, error=True)
    coefs = [dbl(c) for c in reversed(poly)]
    # error after rounding, relative to g (or to weight(t) if given)
    worst = mp.mpf(0)
    for i in range(grid + 1):
        t = mp.mpf(a) + (mp.mpf(b) - a) * i / grid
        p = mp.mpf(0)
        for c in reversed(coefs):
            p = p * t + mp.mpf(c)
        ref = g(t)
        den = abs(weight(t)) if weight else abs(ref)
        if den == 0:
            continue
        e = abs(p - ref) / den
        worst = max(worst, e)
    lg = mp.log(worst, 2) if worst > 0 else -999
    print(f"// {name}: {n} coefficients on [{mp.nstr(a, 8)}, {mp.nstr(b, 8)}], "
          f"error after rounding 2^{float(lg):.1f}")
    print(f"inline constexpr double {name}[{n}] = {{")
    print("    " + ",\n    ".join(hexd(c) for c in coefs) + "};")
    return coefs


def series_or(f, taylor, t, cut=mp.mpf('1e-6')):
    return taylor(t) if abs(t) < cut else f(t)


def sincos():
    zmax = mp.mpf('0.79') ** 2
    # sin(r) = r + r^3*(-1/6 + z*S(z)), z = r^2:  S(z) = (sin r - r + r^3/6)/r^5
    def gs(z):
        if z < mp.mpf('1e-12'):
            return mp.mpf(1) / 120 - z / 5040
        r = mp.sqrt(z)
        return (mp.sin(r) - r + r ** 3 / 6) / r ** 5
    fit("kSinS", gs, 0, zmax, 6)
    # cos(r) = 1 - z/2 + z^2*C(z)
    def gc(z):
        if z < mp.mpf('1e-12'):
            return mp.mpf(1) / 24 - z / 720
        r = mp.sqrt(z)
        return (mp.cos(r) - 1 + z / 2) / z ** 2
    fit("kCosC", gc, 0, zmax, 6)
    # Sin and Cos reduce modulo pi (|r| <= pi/2): sin(r) = r + r^3*(-1/6 + z*S(z))
    fit("kSinPiS", gs, 0, mp.mpf('1.571') ** 2, 8)


def atan():
    tmax = mp.mpf('0.4375')
    # atan(t) = t + t^3*(-1/3 + z*A(z)), z = t^2
    def ga(z):
        if z < mp.mpf('1e-12'):
            return mp.mpf(1) / 5 - z / 7
        t = mp.sqrt(z)
        return ((mp.atan(t) - t) / t ** 3 + mp.mpf(1) / 3) / z
    fit("kAtanA", ga, 0, tmax ** 2 * mp.mpf('1.001'), 12)
    h, l = split_dd(-mp.mpf(1) / 3)
    print(f"inline constexpr double kMinusThirdH = {hexd(h)}, kMinusThirdL = {hexd(l)};")


def asin():
    # asin(s) = s + s^3*(1/6 + z*P(z)), z = s^2 in [0, 1/4]
    def gp(z):
        if z < mp.mpf('1e-12'):
            return mp.mpf(3) / 40 + 15 * z / 336
        a = mp.sqrt(z)
        return ((mp.asin(a) - a) / a ** 3 - mp.mpf(1) / 6) / z
    fit("kAsinP", gp, 0, mp.mpf(1) / 4 * mp.mpf('1.001'), 15)
    h, l = split_dd(mp.mpf(1) / 6)
    print(f"inline constexpr double kSixthH = {hexd(h)}, kSixthL = {hexd(l)};")


def exp_poly():
    # exp(r) = 1 + r + r^2/2 + r^3*E(r), |r| <= ln2/2 (+ margin)
    def ge(r):
        if abs(r) < mp.mpf('1e-10'):
            return mp.mpf(1) / 6 + r / 24
        return (mp.exp(r) - 1 - r - r * r / 2) / r ** 3
    fit("kExpE", ge, -mp.mpf('0.35'), mp.mpf('0.35'), 11)
    # Cody-Waite ln2: 42 + 42 + 53 bits (k * kLn2_1, k * kLn2_2 exact for |k| < 2^11)
    ln2 = mp.log(2)
    def trunc_bits(v, bits):
        e = mp.floor(mp.log(abs(v), 2))
        sc = mp.mpf(2) ** (bits - 1 - e)
        return mp.floor(v * sc) / sc
    l1 = trunc_bits(ln2, 42)
    l2 = trunc_bits(ln2 - l1, 42)
    l3 = mp.mpf(dbl(ln2 - l1 - l2))
    for n, v in (("kLn2_1", l1), ("kLn2_2", l2), ("kLn2_3", l3)):
        print(f"inline constexpr double {n} = {hexd(dbl(v))};")
    print(f"inline constexpr double kInvLn2 = {hexd(dbl(1 / ln2))};")


def erf_consts():
    # c0 = 2/sqrt(pi) = erf'(0) in double-double
    h, l = split_dd(2 / mp.sqrt(mp.pi))
    print(f"inline constexpr double kErfC0H = {hexd(h)}, kErfC0L = {hexd(l)};")


def erfcx_table():
    # erfc(a) = exp(-a^2) * F(a) for 1/2 <= a < 32: 16 intervals per binade,
    # row j = (bits(a) >> 48) - (bits(0.5) >> 48); F(mid + t) = c0 + t*P(t)
    # with c0 in double-double: row = c0h, c0l, c1 .. c10.
    def F(a):
        return mp.erfc(a) * mp.exp(a * a)
    rows = []
    worst = mp.mpf(0)
    for j in range(96):
        e = j // 16 - 1
        w = mp.mpf(2) ** e / 16
        lo = mp.mpf(2) ** e + (j % 16) * w
        mid = lo + w / 2
        poly = mp.chebyfit(lambda t: F(mid + t), [-w / 2, w / 2], 11)
        c = [mp.mpf(x) for x in reversed(poly)]
        c0h, c0l = split_dd(F(mid))
        row = [c0h, c0l] + [dbl(x) for x in c[1:]]
        for i in range(41):
            t = -w / 2 + w * i / 40
            p = mp.mpf(0)
            for x in reversed(row[2:]):
                p = p * t + mp.mpf(x)
            v = mp.mpf(c0h) + mp.mpf(c0l) + t * p
            worst = max(worst, abs(v - F(mid + t)) / F(mid + t))
        rows.append((dbl(mid), row))
    print(f"// kErfcxTable: F(a) = erfc(a)*exp(a^2), 96 rows of 12; error 2^{float(mp.log(worst, 2)):.1f}")
    print("inline constexpr double kErfcxMid[96] = {")
    print("    " + ",\n    ".join(", ".join(hexd(m) for m, _ in rows[i:i + 4]) for i in range(0, 96, 4)) + "};")
    print("inline constexpr double kErfcxTable[96 * 12] = {")
    print(",\n".join("    " + ", ".join(hexd(x) for x in r) for _, r in rows) + "};")


def local_table(name, f, df, relative_all, what, m0=0):
    """f on 16 intervals [3j/8, 3(j+1)/8) of [0, 6), m_j their midpoints
    but m_0 = m0 (t = a - m is exact but where a < m0/2; the evaluation
    keeps that rounding error). f(m + t) = E + c1h*t + t*R(t),
    E = Eh + El = f(m), c1h = f'(m) rounded; R (13 coefficients) is fit to
    (f(m + t) - E - c1h*t)/t, so R(0) = f'(m) - c1h. Stored by coefficient:
    row k holds entry k of every interval (m, Eh, El, c1h, R0 .. R12), so
    that one row is the table a vector looks up in. The error is relative
    to f where relative_all (else on interval 0 only, absolute elsewhere)."""
    w = mp.mpf(3) / 8
    nr = 13
    cols = []
    worst = []
    for j in range(16):
        lo, hi = j * w, (j + 1) * w
        m = (lo + hi) / 2 if j else mp.mpf(m0)
        eh, el = split_dd(f(m))
        c1 = df(m)
        c1h = dbl(c1)

        def R(t, m=m, eh=eh, el=el, c1=c1, c1h=c1h):
            if abs(t) < mp.mpf('1e-25'):
                return c1 - c1h
            return (f(m + t) - mp.mpf(eh) - mp.mpf(el) - c1h * t) / t
        # a little beyond the interval: a lane's index comes from a rounded
        # product and may put it an ulp across a boundary
        marg = mp.mpf('1e-9')
        a, b = lo - m - (marg if j else 0), hi - m + marg
        coefs = [dbl(c) for c in reversed(mp.chebyfit(R, [a, b], nr))]
        e = mp.mpf(0)
        for i in range(401):
            t = a + (b - a) * i / 400
            p = mp.mpf(0)
            for c in reversed(coefs):
                p = p * t + mp.mpf(c)
            ref = f(m + t)
            v = mp.mpf(eh) + mp.mpf(el) + c1h * t + t * p
            if ref != 0:
                e = max(e, abs(v - ref) / (abs(ref) if j == 0 or relative_all else 1))
        worst.append(e)
        cols.append([dbl(m), eh, el, c1h] + coefs)
    w0 = float(mp.log(worst[0], 2))
    w1 = float(mp.log(max(worst[1:]), 2))
    kind = "relative" if relative_all else "absolute"
    print(f"// {name}: {what} on 16 intervals of [0, 6), rows m, Eh, El, c1h, R0..R12 by interval;"
          f" error after rounding 2^{w0:.1f} relative (interval 0), 2^{w1:.1f} {kind} (others)")
    print(f"alignas(64) inline constexpr double {name}[{4 + nr}][16] = {{")
    print(",\n".join("    {" + ", ".join(hexd(cols[j][k]) for j in range(16)) + "}"
                     for k in range(4 + nr)) + "};")


def erf_table():
    c0 = 2 / mp.sqrt(mp.pi)
    local_table("kErfTab", mp.erf, lambda m: c0 * mp.exp(-m * m), False, "erf")
    # erfc(a) = exp(-a^2) F(a)
    F = lambda a: mp.erfc(a) * mp.exp(a * a)
    # (interval 0 about its midpoint: t R(t) stays a few hundredths of F)
    local_table("kErfcxTab", F, lambda m: 2 * m * F(m) - c0, True, "F = erfc(a) exp(a^2)",
                mp.mpf(3) / 16)

def erfinv_start():
    # Rough erfinv (relative error ~2^-26), refined by one Halley step on erf.
    def gc(z):
        if z < mp.mpf('1e-20'):
            return mp.sqrt(mp.pi) / 2
        a = mp.sqrt(z)
        return mp.erfinv(a) / a
    fit("kErfinvCentral", gc, 0, mp.mpf('0.75') ** 2, 12)
    # tail, a > 3/4: erfinv(a) = Q(w), w = sqrt(-log(1 - a))
    def gt(w):
        return mp.erfinv(1 - mp.exp(-w * w))
    w0 = mp.sqrt(-mp.log(mp.mpf('0.25')))
    w1 = mp.sqrt(-mp.log(mp.mpf(2) ** -53)) + mp.mpf('0.01')
    fit("kErfinvTail1", gt, w0 - mp.mpf('0.01'), mp.mpf('2.5'), 12)
    fit("kErfinvTail2", gt, mp.mpf('2.5'), w1, 12)
    # log(f) = u*L(u), u = f - 1, f in [sqrt(1/2), sqrt(2)] (no division;
    # the guess needs about 2^-30)
    def gl(u):
        if abs(u) < mp.mpf('1e-20'):
            return 1 - u / 2
        return mp.log1p(u) / u
    fit("kLogL", gl, mp.sqrt(2) / 2 - 1 - mp.mpf('1e-3'), mp.sqrt(2) - 1 + mp.mpf('1e-3'), 12)


def consts():
    pio2 = mp.pi / 2
    # Cody-Waite pi/2 in four parts: 33 + 33 + 33 + 53 bits.
    def trunc_bits(v, bits):
        e = mp.floor(mp.log(abs(v), 2))
        s = mp.mpf(2) ** (bits - 1 - e)
        return mp.floor(v * s) / s  # v > 0
    p1 = trunc_bits(pio2, 33)
    p2 = trunc_bits(pio2 - p1, 33)
    p3 = trunc_bits(pio2 - p1 - p2, 33)
    p4 = mp.mpf(dbl(pio2 - p1 - p2 - p3))
    for n, v in (("kPio2_1", p1), ("kPio2_2", p2), ("kPio2_3", p3), ("kPio2_4", p4)):
        print(f"inline constexpr double {n} = {hexd(dbl(v))};")
    for n, v in (("kPio2", pio2), ("kPi", mp.pi), ("kPio4", mp.pi / 4),
                 ("kMinusSixth", -mp.mpf(1) / 6), ("kTwoOverSqrtPi", 2 / mp.sqrt(mp.pi)),
                 ("kSqrtPiOver2", mp.sqrt(mp.pi) / 2), ("kLn2", mp.log(2)),
                 ("kInvSqrt2", 1 / mp.sqrt(2))):
        h, l = split_dd(v)
        print(f"inline constexpr double {n}H = {hexd(h)}, {n}L = {hexd(l)};")
    print(f"inline constexpr double kTwoOverPi = {hexd(dbl(2 / mp.pi))};")
    # Sin and Cos: pi = 2 kPio2_1 + kPiB + kPiC (the first part has 33 bits,
    # the others 53), and 1/pi rounded.
    pib = dbl(mp.pi - 2 * p1)
    pic = dbl(mp.pi - 2 * p1 - mp.mpf(pib))
    print(f"inline constexpr double kPiB = {hexd(pib)}, kPiC = {hexd(pic)};")
    print(f"inline constexpr double kInvPi = {hexd(dbl(1 / mp.pi))};")
    for n, v in (("kAtanHalf", mp.atan(0.5)), ("kAtanOne", mp.atan(1)),
                 ("kAtanThreeHalves", mp.atan(1.5))):
        h, l = split_dd(v)
        print(f"inline constexpr double {n}H = {hexd(h)}, {n}L = {hexd(l)};")


def payne_hanek():
    # Word j holds bits 64j-63 .. 64j of 2/pi (bit i has weight 2^-i), so
    # word 0 is the (zero) integer part and bits before it.
    words = 21
    v = mp.mpf(2) / mp.pi
    with mp.workdps(500):
        v = 2 / mp.pi
        out = []
        for j in range(words):
            w = int(mp.floor(v * mp.mpf(2) ** (64 * j))) % (1 << 64)
            out.append(w)
    print(f"inline constexpr uint64_t kTwoOverPiBits[{words}] = {{")
    lines = []
    for i in range(0, words, 3):
        lines.append("    " + ", ".join(f"0x{w:016x}ull" for w in out[i:i + 3]))
    print(",\n".join(lines) + "};")


ALL = {"consts": consts, "ph": payne_hanek, "sincos": sincos, "atan": atan, "asin": asin,
       "exp": exp_poly, "erf": erf_consts, "erftab": erf_table, "erfcx": erfcx_table,
       "erfinv": erfinv_start}

HEADER = "src/kernels/math_trig-inl.h"
BEGIN = "// BEGIN GENERATED by tools/fit_math_trig.py --update (do not edit by hand)\n"
END = "// END GENERATED\n"

if __name__ == "__main__":
    import io, contextlib, os
    args = sys.argv[1:]
    update = "--update" in args
    names = [a for a in args if a != "--update"] or list(ALL)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        for n in names:
            ALL[n]()
    text = buf.getvalue()
    if update:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", HEADER)
        src = open(path).read()
        i, j = src.index(BEGIN) + len(BEGIN), src.index(END)
        open(path, "w").write(src[:i] + text + src[j:])
    else:
        sys.stdout.write(text)
