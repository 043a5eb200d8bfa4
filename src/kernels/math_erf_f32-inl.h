// Float32 vector math, error-function family: ErfF32, ErfcF32, ErfinvF32
// and GeluErfF32 (gelu, approximate='none'). Each takes and returns float32
// lanes (any float32 descriptor, 1-lane and HWY_SCALAR included). Every
// result is within 1 ulp of the correctly rounded float32 for every input:
// tests/math_f32_exhaustive.cc checks all 2^32 inputs of each function.
//
// Erf, Erfc, GeluErf: native float32 in fmas (MulAddF of math_fma-inl.h:
// the hardware fma on AVX2/AVX3, an exact emulation elsewhere; same bits on
// every target; exact IEEE operations only, -ffp-contract=off):
//  * Small arguments: erf(z) = z + z q(z^2), q a float32 polynomial of
//    degree 6 on z^2 <= 1 (kErfQf, 2^-29.3 relative to erf(z)/z). Erf:
//    fma(x, q, x) for |x| < 1. Erfc for -1 < x < 3/4: 1 - x = h + e
//    (Fast2Sum), h + (e - x q). GeluErf for -3/4 < z < 1, z = x/sqrt2 as a
//    float-float zh + zl: 1 + erf(z) = A + B (A = 1 + zh by Fast2Sum,
//    q at zh^2 + 2 zh zl), x (A/2) + x (B/2) in one fma.
//  * Tail, a in [0.5, 10.3] (computed only when some lane needs it):
//    erfc(a) = e^(-a^2) H(u) / (a + 4), u = (a - 4)/(a + 4), H of degree 10
//    in float32 (kErfcHf, 2^-28.2; H varies only from 2.8 to 0.78). a^2 =
//    sh + sl exactly; e^-(sh + sl) = 2^k e^(rh - v) with rh exact (fma
//    Cody-Waite with ExpF32's constants) and e^(rh - v) = 1 + rh + m kept
//    unrounded; 1/(a + 4) = rcp (1 + eps - dl rcp) (one Div, eps exact by an
//    fma, a + 4 = d + dl by Fast2Sum); u's error (u = uh + R/(a + 4), R from
//    fmas) enters as H'/H R / (a + 4) (kErfcDf, a cubic); H's two outer
//    Horner steps in float-float. G = H rcp (1 + ...) = gh + gl, and
//    erfc = 2^k (gh + (gh rh + (gh m + gl (1 + rh)))): one rounding of the
//    inner sum, one of the result, then an exact power-of-two scaling
//    (ScaleTailF: subnormal results rounded once more, in integer bits).
//    Erfc(x <= -1) = 2 - erfc(|x|), GeluErf takes x/2
//    into the float-float G (x < 0) or returns x - (x/2) erfc (x > 0).
//    Measured (tests/math_f32_exhaustive.cc, all 2^32 inputs): within 1 ulp
//    of the correctly rounded result; the error before the last rounding
//    reaches about 0.6 ulp in the tail, so several percent of tail results
//    are not correctly rounded (see the commit message for counts).
//  * Erf for |x| >= 1: 1 - erfc(a) with plain roundings and no division
//    (see ErfF32): a small erfc subtracted from 1 needs only a few bits.
//  * Special values: Erfc(x > 10.3) = 0 (erfc < 2^-150 from 10.06);
//    gelu(x > 14.6) = x, gelu(x < -14.5) = -0 (|gelu| < 2^-150), gelu(-inf)
//    NaN as GeluFn's float64 form; NaN gives itself.
// Erfinv: through float64 (ViaF64 of math_exp_f32-inl.h): each half widened
// (exact), plain float64 arithmetic with short polynomials to a relative
// error of ~2^-34 or better, rounded once to float32:
//  * Erfinv: a = |y| <= 3/4: a C(a^2), degree 12; above, T(w),
//    w = sqrt(-log(1 - a)) (1 - a exact, Log64), T of degree 12 on two
//    intervals of w; the coefficients are chosen per lane, so each lane runs
//    one Horner chain (and the log only when some lane needs it).
//
// Polynomials: tools/fit_math_erf_f32.py (float64 ones for Erfinv; with
// the argument f32 the float32 ones; the errors quoted are of the rounded
// coefficients evaluated exactly).

#if defined(BCAST_KERNELS_MATH_ERF_F32_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BCAST_KERNELS_MATH_ERF_F32_INL_H_
#undef BCAST_KERNELS_MATH_ERF_F32_INL_H_
#else
#define BCAST_KERNELS_MATH_ERF_F32_INL_H_
#endif

#include <stddef.h>

#include "hwy/highway.h"
#include "kernels/math_exp_f32-inl.h"

HWY_BEFORE_NAMESPACE();
namespace bcast {
namespace HWY_NAMESPACE {
namespace math {
namespace hn = hwy::HWY_NAMESPACE;

namespace f32detail {

// From tools/fit_math_erf_f32.py (float64, evaluated through ViaF64).
// erfinv(a)/a in z = a^2 on [0, 0.5625]: max relative error 5.18e-11 (2^-34.2)
constexpr double kErfinvC[13] = {
    0x1.c5bf891b88b04p-1, 0x1.db29f912cf530p-3, 0x1.053cfccfd6ad9p-3,
    0x1.6245a026b345ep-4, 0x1.0ef42a312b220p-4, 0x1.356cfa5eb4104p-5,
    0x1.2c624207385cfp-3, -0x1.e4eed71ad9b78p-2, 0x1.b6505d8ab8e3bp+0,
    -0x1.d49e362290e1dp+1, 0x1.4ec36490b5cf6p+2, -0x1.12b3ecb0516b9p+2,
    0x1.a825c0ac5de48p+0,
};
// erfinv(1 - e^-w^2) on w in [sqrt(log 4), 2.25]: max relative error 1.7e-12 (2^-39.1)
constexpr double kErfinvT1[13] = {
    0x1.e987a7655588bp-7, -0x1.97082027fff75p-4, 0x1.247ad11fcde64p+0,
    -0x1.dcdd7bfa0008fp-3, -0x1.7ee37a60111cfp-1, 0x1.15b308401d315p+0,
    -0x1.a7d671910a303p-1, 0x1.ae2450c1fb262p-2, -0x1.31341539732e6p-3,
    0x1.2dc628cfa05b8p-5, -0x1.8e83c13dfda20p-8, 0x1.3d07df78df702p-11,
    -0x1.ccb4b87bd9710p-16,
};
// erfinv(1 - e^-w^2) on w in [2.25, sqrt(24 log 2)]: max relative error 5.94e-13 (2^-40.6)
constexpr double kErfinvT2[13] = {
    0x1.6e04f5ea05670p-7, -0x1.709e8c57458e0p-3, 0x1.9693d14fd27bcp+0,
    -0x1.47e12e5d43d44p+0, 0x1.72725ba39d921p-1, -0x1.3401b36eb8ce3p-2,
    0x1.7fb948e4183a9p-4, -0x1.669fba9334522p-6, 0x1.f0ac729def63ep-9,
    -0x1.ef38bfc8c7111p-12, 0x1.507e3e830a6c9p-15, -0x1.1732009e6540cp-19,
    0x1.ab21f0cfb7de8p-25,
};

// Native float32 (tools/fit_math_erf_f32.py f32; float32 coefficients
// fitted one at a time so that their rounding is absorbed):
// erf(a)/a - 1 in z = a^2 on [0, 1], relative to erf(a)/a: max error 2^-29.3
constexpr float kErfQf[7] = {
    0x1.06eba8p-3f, -0x1.81273ep-2f, 0x1.ce2cf0p-4f, -0x1.b7f858p-6f,
    0x1.53ff92p-8f, -0x1.a3c95cp-11f, 0x1.48edeep-14f,
};
// H(u) = erfc(a) e^(a^2) (a + 4) in u = (a - 4)/(a + 4), a in [0.5, 10.3]
// (H from 2.77 down to 0.78): max relative error 2^-28.2
constexpr float kErfcHf[11] = {
    0x1.18932cp+0f, -0x1.f3fe32p-1f, 0x1.8be1fap-1f, -0x1.14eac6p-1f,
    0x1.52cc12p-2f, -0x1.646068p-3f, 0x1.38b274p-4f, -0x1.b02e14p-6f,
    0x1.99c280p-8f, -0x1.9d05e4p-13f, -0x1.507c48p-11f,
};
// H'(u)/H(u) (1 - u)/8 (|.| <= 0.35), absolute error 2^-11.1: turns the
// error of u, times (a + 4), into the relative error of H.
constexpr float kErfcDf[4] = {
    -0x1.c84fb6p-4f, 0x1.866d0cp-3f, -0x1.d855aep-4f, 0x1.f685b6p-6f,
};
// erfc(a) e^(a^2) in t = a - 5/2, a in [1, 4] (ErfF32's tail): max
// relative error 2^-24.5
constexpr float kErfcGf[12] = {
    0x1.afbb3ep-3f,  -0x1.3086d8p-4f,  0x1.9896b6p-6f,  -0x1.063286p-7f,
    0x1.432e74p-9f,  -0x1.806fa6p-11f, 0x1.bf8a2ap-13f, -0x1.f2f5bep-15f,
    0x1.d96ddcp-17f, -0x1.f62a7p-19f,  0x1.cd8a14p-20f, -0x1.cee3bp-22f,
};
constexpr float kInvSqrt2Hi = 0x1.6a09e6p-1f;  // 1/sqrt2 = Hi + Lo to 2^-51
constexpr float kInvSqrt2Lo = 0x1.9fcef4p-27f;
constexpr float kErfcTailC = 4.0f;

// erfc(a + al) h = y 2^k for a in [0.5, 10.3] (callers clamp; |al| <=
// 2^-23 a, the low part of a float-float argument; h a float32 factor with
// |h| in [2^-2, 2^126], 1 for plain erfc), y rounded once: see the top of
// this file for the method and its error.
template <class DF>
struct ErfcTailF {
  hn::VFromD<DF> y, k;
  hn::VFromD<hn::RebindToSigned<DF>> ki;
};
template <bool kHasLow, bool kHasFactor, class DF, class VF = hn::VFromD<DF>>
HWY_INLINE ErfcTailF<DF> ErfcTailCoreF(DF df, VF a, VF al, VF h) {
  const hn::RebindToSigned<DF> di;
  const VF one = hn::Set(df, 1.0f);
  // a^2 = sh + sl exactly (plus 2 a al for a float-float argument).
  const VF sh = hn::Mul(a, a);
  VF sl = MulAddF(df, a, a, hn::Neg(sh));
  if constexpr (kHasLow) sl = MulAddF(df, hn::Add(a, a), al, sl);
  // e^-(sh + sl) = 2^k e^(rh - v): k = round(-sh / ln2), rh = -sh - k kLn2Hi
  // exact (a multiple of 2^-24 below 0.35; k kLn2Hi a multiple of 2^-21),
  // v = k kLn2Lo + sl (|v| < 2^-16.9, its rounding below 2^-41).
  const VF magic = hn::Set(df, kRoundMagicF);
  const VF kb = MulAddF(df, sh, hn::Set(df, -kInvLn2F), magic);
  const VF k = hn::Sub(kb, magic);
  const VF rh = MulAddF(df, k, hn::Set(df, -kLn2Hi), hn::Neg(sh));
  const VF v = MulAddF(df, k, hn::Set(df, kLn2Lo), sl);
  // e^(rh - v) = 1 + rh + m, m = rh^2 Q(rh) - v (1 + w0), w0 ~ e^rh - 1;
  // rh stays exact, m (|m| < 0.07) carries the roundings (below 2^-28).
  const VF m0 = hn::Mul(hn::Mul(rh, rh), HornerFromFma<0>(df, rh, kExpQf));
  const VF m = hn::Sub(m0, MulAddF(df, v, hn::Add(rh, m0), v));
  // u = (A - 4)/(A + 4), A = a + al: n + nl = A - 4 and d + dl = A + 4 by
  // Fast2Sum (valid: 4's exponent is at least a's below 8; from 8 to 16
  // both sums are exact and the error terms come out 0).
  const VF c = hn::Set(df, kErfcTailC);
  const VF n = hn::Sub(a, c);
  const VF d = hn::Add(a, c);
  VF nl = hn::Add(hn::Sub(hn::Neg(c), n), a);
  VF dl = hn::Add(hn::Sub(c, d), a);
  if constexpr (kHasLow) {
    nl = hn::Add(nl, al);
    dl = hn::Add(dl, al);
  }
  const VF rcp = hn::Div(one, d);  // 1/(A + 4) = rcp (1 + eps - dl rcp)
  const VF eps = NegMulAddF(df, rcp, d, one);  // exact
  const VF uh = hn::Mul(n, rcp);
  // u - uh = (n + nl - uh (d + dl)) / (A + 4) = R / (A + 4): |R| < 2^-21
  // (R's own rounding is below 2^-45 of u). H(u) = H(uh) (1 + D(uh) R),
  // D = H'/H / (A + 4) to 2^-11: kErfcDf.
  const VF R = NegMulAddF(df, uh, dl, hn::Add(NegMulAddF(df, uh, d, n), nl));
  // H(uh) = c0 + uh (c1 + uh P2(uh)) = Hh + Hl, the two outer steps in
  // float-float (a rounding of P2 costs 2^-24 |uh^2 P2| / H, below 2^-26):
  // uh P2 = th + tl exactly, c1 + th by TwoSum, uh (S1h + S1l) = ph + pl,
  // then c0 + ph by Fast2Sum (c0 in [1, 2), ph in [-0.33, 1.67]).
  const VF P2 = HornerFromFma<2>(df, uh, kErfcHf);
  const VF th = hn::Mul(uh, P2);
  const VF tl = MulAddF(df, uh, P2, hn::Neg(th));
  const VF c1 = hn::Set(df, kErfcHf[1]);
  const VF S1h = hn::Add(c1, th);
  const VF tb = hn::Sub(S1h, c1);
  const VF S1l = hn::Add(hn::Add(hn::Sub(c1, hn::Sub(S1h, tb)), hn::Sub(th, tb)), tl);
  const VF ph = hn::Mul(uh, S1h);
  const VF pl = MulAddF(df, uh, S1l, MulAddF(df, uh, S1h, hn::Neg(ph)));
  const VF c0 = hn::Set(df, kErfcHf[0]);
  VF Hh = hn::Add(c0, ph);
  VF Hl = hn::Add(hn::Add(hn::Sub(c0, Hh), ph), pl);
  if constexpr (kHasFactor) {  // h (Hh + Hl), as a float-float again
    const VF t = hn::Mul(h, Hh);
    Hl = MulAddF(df, h, Hl, MulAddF(df, h, Hh, hn::Neg(t)));
    Hh = t;
  }
  // G = erfc(A) e^(A^2) h = (Hh + Hl) rcp (1 + corr) = gh + gl.
  const VF corr = MulAddF(df, HornerFromFma<0>(df, uh, kErfcDf), R, NegMulAddF(df, dl, rcp, eps));
  const VF gh = hn::Mul(Hh, rcp);
  VF gl = MulAddF(df, Hl, rcp, MulAddF(df, Hh, rcp, hn::Neg(gh)));
  gl = MulAddF(df, gh, corr, gl);
  // G e^(rh - v) = gh + (gh rh + (gh m + gl (1 + rh))): one rounding of
  // the inner sum (|.| < 0.45 gh), one of the result.
  const VF inner = MulAddF(df, gh, rh, MulAddF(df, gh, m, MulAddF(df, gl, rh, gl)));
  const VF y = hn::Add(gh, inner);
  const auto ki = hn::Sub(hn::BitCast(di, kb), hn::BitCast(di, magic));
  return {y, k, ki};
}

// y 2^k: in the exponent field where the result is normal (|y| > 2^-7
// here, so every lane with k >= -118). Subnormal results without
// subnormal arithmetic (a slow microcode assist on x86): s = |y| 2^(k+149)
// is exact and normal (k >= -153 after the callers' clamps), rounded to an
// integer n < 2^23 by the 2^23 magic (round to nearest even, the one
// rounding of a subnormal result); n's bits as int32 are those of n 2^-149.
template <class DF>
HWY_INLINE hn::VFromD<DF> ScaleTailF(DF df, const ErfcTailF<DF>& t) {
  using VF = hn::VFromD<DF>;
  const hn::RebindToSigned<DF> di;
  const VF normal = hn::BitCast(df, hn::Add(hn::BitCast(di, t.y), hn::ShiftLeft<23>(t.ki)));
  const VF kmin = hn::Set(df, -118.0f);
  if (HWY_LIKELY(hn::AllTrue(df, hn::Ge(t.k, kmin)))) return normal;
  const auto kc = hn::Min(t.ki, hn::Set(di, -118));
  const VF p = hn::BitCast(df, hn::ShiftLeft<23>(hn::Add(kc, hn::Set(di, 149 + 127))));
  const VF s = hn::Mul(hn::Abs(t.y), p);
  const VF big = hn::Set(df, 0x1p23f);
  const VF n = hn::Sub(hn::Add(s, big), big);
  const auto sub = hn::And(hn::Lt(s, big), hn::Lt(t.k, kmin));
  const VF subr = hn::Or(hn::BitCast(df, hn::ConvertTo(di, n)), hn::And(t.y, hn::Set(df, -0.0f)));
  return hn::IfThenElse(sub, subr, normal);
}

}  // namespace f32detail

// |x| < 1: x + x q(x^2). Else 1 - erfc(a), a = |x| clamped to [1, 4]
// (erf(4) rounds to 1), with plain roundings: erfc(a) <= 0.16 is
// subtracted from 1, so its relative error may reach several ulps of its
// own. e^(-a^2) = 2^k e^(r - sl) with a^2 = s + sl split exactly and
// e^(r - sl) by ExpReducedFma (sl its low part); erfc(a) e^(a^2) = G(a - 5/2) of
// degree 11 (kErfcGf, no division); 1 - e^(-a^2) G rounded once in an fma.
// Measured on all 2^32 inputs: within 1 ulp of the correctly rounded
// result; the largest error, 0.99 ulp from the exact erf, is below 1 in
// the polynomial branch, as before. The float-float tail this replaced
// (ErfcTailCoreF, which Erfc and GeluErf still need for a small erfc) took
// 2.2x the time.
template <class DF>
HWY_INLINE hn::VFromD<DF> ErfF32(DF df, hn::VFromD<DF> x) {
  namespace f = f32detail;
  using VF = hn::VFromD<DF>;
  const hn::RebindToSigned<DF> di;
  const VF one = hn::Set(df, 1.0f);
  const VF a = hn::Abs(x);
  const VF q = f::HornerFromFma<0>(df, hn::Mul(x, x), f::kErfQf);
  VF r = MulAddF(df, x, q, x);
  const auto small = hn::Lt(a, one);
  if (HWY_UNLIKELY(!hn::AllTrue(df, small))) {
    const VF ac = f::Clamp(df, a, 1.0f, 4.0f);
    const VF s = hn::Mul(ac, ac);
    const VF sl = MulAddF(df, ac, ac, hn::Neg(s));
    // k = round(-s / ln2) in [-23, -1]; -s - k kLn2Hi exact (as in
    // ErfcTailCoreF), then kLn2Lo; sl is e^r's low part.
    const VF magic = hn::Set(df, f::kRoundMagicF);
    const VF kb = MulAddF(df, s, hn::Set(df, -f::kInvLn2F), magic);
    const VF k = hn::Sub(kb, magic);
    const VF t0 = MulAddF(df, k, hn::Set(df, -f::kLn2Hi), hn::Neg(s));
    const VF t = NegMulAddF(df, k, hn::Set(df, f::kLn2Lo), t0);
    const auto ki = hn::Sub(hn::BitCast(di, kb), hn::BitCast(di, magic));
    const VF p = ExpReducedFma(df, t, hn::Neg(sl));
    const VF e = hn::BitCast(df, hn::Add(hn::BitCast(di, p), hn::ShiftLeft<23>(ki)));
    const VF G = f::HornerFromFma<0>(df, hn::Sub(ac, hn::Set(df, 2.5f)), f::kErfcGf);
    r = hn::IfThenElse(small, r, hn::CopySignToAbs(NegMulAddF(df, e, G, one), x));
  }
  return f::KeepNaN(df, x, r);
}

// -1 < x < 3/4: 1 - x - x q(x^2) (1 - x = h + e by Fast2Sum, one rounding of
// h + (e - x q)). Else erfc(|x|) (|x| clamped to [0.5, 10.3]), or 2 - that
// for x <= -1; 0 beyond 10.3 (erfc < 2^-150 from 10.06).
template <class DF>
HWY_INLINE hn::VFromD<DF> ErfcF32(DF df, hn::VFromD<DF> x) {
  namespace f = f32detail;
  using VF = hn::VFromD<DF>;
  const VF one = hn::Set(df, 1.0f);
  const VF q = f::HornerFromFma<0>(df, hn::Mul(x, x), f::kErfQf);
  const VF h = hn::Sub(one, x);
  const VF e = hn::Sub(hn::Sub(one, h), x);
  VF r = hn::Add(h, NegMulAddF(df, x, q, e));
  const auto small = hn::And(hn::Gt(x, hn::Set(df, -1.0f)), hn::Lt(x, hn::Set(df, 0.75f)));
  if (HWY_UNLIKELY(!hn::AllTrue(df, small))) {
    const VF ac = f::Clamp(df, hn::Abs(x), 0.5f, 10.3f);
    const VF t = f::ScaleTailF(df, f::ErfcTailCoreF<false, false>(df, ac, ac, ac));
    VF rt = hn::IfThenElse(hn::Lt(x, hn::Zero(df)), hn::Sub(hn::Set(df, 2.0f), t), t);
    rt = hn::IfThenElseZero(hn::Le(x, hn::Set(df, 10.3f)), rt);
    r = hn::IfThenElse(small, r, rt);
  }
  return f::KeepNaN(df, x, r);
}

// gelu(x) = x/2 (1 + erf(z)), z = x/sqrt2 = zh + zl (float-float, to
// 2^-47 relative). -3/4 < z < 1: 1 + erf(z) = A + B, A = 1 + zh (Fast2Sum),
// B = Al + zl (1 + q) + zh q, q = q(zh^2); x (A/2) + x (B/2) in one fma.
// Else with a = |z| clamped to [0.5, 10.3]: (x/2) erfc(a) from the tail
// (the factor x/2 inside its float-float), x - that for x > 0. x > 14.6:
// x; x < -14.5: -0 (|gelu| < 2^-150); -inf: NaN (as GeluFn's float64 form).
template <class DF>
HWY_INLINE hn::VFromD<DF> GeluErfF32(DF df, hn::VFromD<DF> x) {
  namespace f = f32detail;
  using VF = hn::VFromD<DF>;
  const VF one = hn::Set(df, 1.0f);
  const VF half = hn::Set(df, 0.5f);
  const VF ax = hn::Abs(x);
  const VF ch = hn::Set(df, f::kInvSqrt2Hi);
  const VF zh = hn::Mul(ax, ch);
  const VF zl = MulAddF(df, ax, hn::Set(df, f::kInvSqrt2Lo), MulAddF(df, ax, ch, hn::Neg(zh)));
  const VF sign = hn::And(x, hn::Set(df, -0.0f));
  const VF zs = hn::Xor(zh, sign);
  const VF zls = hn::Xor(zl, sign);
  // q at z^2 = zh^2 + 2 zh zl (zl moves q by up to 2^-25.4).
  const VF q = f::HornerFromFma<0>(df, MulAddF(df, zh, zh, hn::Mul(hn::Add(zh, zh), zl)), f::kErfQf);
  const VF A = hn::Add(one, zs);
  const VF Al = hn::Add(hn::Sub(one, A), zs);
  const VF B = MulAddF(df, zs, q, hn::Add(Al, MulAddF(df, zls, q, zls)));
  VF r = MulAddF(df, x, hn::Mul(A, half), hn::Mul(x, hn::Mul(B, half)));
  const auto small = hn::And(hn::Gt(zs, hn::Set(df, -0.75f)), hn::Lt(zs, one));
  if (HWY_UNLIKELY(!hn::AllTrue(df, small))) {
    const VF lo = hn::Set(df, 0.5f), hi = hn::Set(df, 10.3f);
    const auto inside = hn::And(hn::Ge(zh, lo), hn::Le(zh, hi));
    const VF ac = f::Clamp(df, zh, 0.5f, 10.3f);
    const VF al = hn::IfThenElseZero(inside, zl);
    // x/2 clamped so that a NaN or infinite factor cannot reach the tail.
    const VF hx = hn::IfThenElse(hn::Lt(ax, hn::Set(df, 1e30f)), hn::Mul(x, half), half);
    const VF t = f::ScaleTailF(df, f::ErfcTailCoreF<true, true>(df, ac, al, hx));
    const VF rt = hn::IfThenElse(hn::Gt(x, hn::Zero(df)), hn::Sub(x, t), t);
    r = hn::IfThenElse(small, r, rt);
    r = hn::IfThenElse(hn::Gt(x, hn::Set(df, 14.6f)), x, r);
    r = hn::IfThenElse(hn::Lt(x, hn::Set(df, -14.5f)), hn::Set(df, -0.0f), r);
    r = hn::IfThenElse(hn::Eq(x, hn::Set(df, -f::kInfF)), f::NaNF(df), r);
  }
  return f::KeepNaN(df, x, r);
}

template <class DF>
HWY_INLINE hn::VFromD<DF> ErfinvF32(DF df, hn::VFromD<DF> x) {
  using VF = hn::VFromD<DF>;
  VF r = f32detail::ViaF64(df, x, [](auto d, auto v) {
    namespace f = f32detail;
    using V = decltype(v);
    const V a = hn::Abs(v);
    const V one = hn::Set(d, 1.0);
    const auto tail = hn::Gt(a, hn::Set(d, 0.75));
    const V z = hn::Mul(a, a);
    if (hn::AllFalse(d, tail)) return hn::CopySignToAbs(hn::Mul(a, f::Horner(d, z, f::kErfinvC)), v);
    // 1 - a exact (a >= 1/2), in [2^-24, 1/4] on tail lanes below 1.
    const V m = hn::IfThenElse(hn::And(tail, hn::Lt(a, one)), hn::Sub(one, a), hn::Set(d, 0.25));
    const V w = hn::Sqrt(hn::Neg(f::Log64(d, m)));
    const auto t2 = hn::Gt(w, hn::Set(d, 2.25));
    const V s = hn::IfThenElse(tail, w, z);
    auto coef = [&](size_t i) {
      return hn::IfThenElse(tail, hn::IfThenElse(t2, hn::Set(d, f::kErfinvT2[i]), hn::Set(d, f::kErfinvT1[i])),
                            hn::Set(d, f::kErfinvC[i]));
    };
    V p = coef(12);
    for (size_t i = 12; i-- > 0;) p = hn::Add(hn::Mul(p, s), coef(i));
    return hn::CopySignToAbs(hn::IfThenElse(tail, p, hn::Mul(a, p)), v);
  });
  const VF a = hn::Abs(x);
  const VF one = hn::Set(df, 1.0f);
  r = hn::IfThenElse(hn::Eq(a, one), hn::CopySignToAbs(hn::Set(df, f32detail::kInfF), x), r);
  r = hn::IfThenElse(hn::Gt(a, one), f32detail::NaNF(df), r);
  return f32detail::KeepNaN(df, x, r);
}

}  // namespace math
}  // namespace HWY_NAMESPACE
}  // namespace bcast
HWY_AFTER_NAMESPACE();

#endif  // BCAST_KERNELS_MATH_ERF_F32_INL_H_
