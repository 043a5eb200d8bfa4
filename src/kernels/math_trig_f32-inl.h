// Float32 vector math, trigonometric family: SinF32, CosF32, TanF32,
// AsinF32, AcosF32, AtanF32. Each takes and returns float32 lanes (any
// float32 descriptor, 1-lane and HWY_SCALAR included); every result is
// within 1 ulp of the correctly rounded float32 for every input
// (tests/math_f32_exhaustive.cc checks all 2^32 inputs of each).
//
// Method: native float32 in fmas for sin, cos and tan (below 2^17), asin,
// acos and atan (see each); sin, cos and tan beyond, through float64
// (ViaF64 of math_exp_f32-inl.h): each half widened
// (exact), plain float64 arithmetic with short polynomials to a relative
// error of ~2^-40, rounded once to float32. Float32 inputs and their
// squares are exact in float64, and its 29 extra bits absorb the
// cancellations that math_trig-inl.h carries in double-double.
//  * Sin, Cos: native float32 in fmas below |x| = 2^17 (SinCosNativeF);
//    beyond, through float64 as follows.
//    x = j pi/2 + r, |r| <= pi/2, j even for sin (j = 2k,
//    k = nearest(x/pi)), odd for cos (k = nearest(x/pi - 1/2), j = 2k + 1):
//    sin x = (-1)^k sin r, cos x = -(-1)^k sin r, one odd polynomial.
//    r = ((x - j P1) - j P2) - j P3 with math_trig-inl.h's 33-bit pieces of
//    pi/2: for |x| < 1.6e6, j < 2^20 and every j Pi is exact; x - j P1 is
//    exact (Sterbenz) or |r| > pi/4 (x < P1/2 with j = 1); the other two
//    subtractions round by 2^-53 of r at worst, and the missing tail of pi/2
//    is below 2^-84 absolute, so r keeps a relative error far under 2^-40
//    for every float32 below the bound (the exhaustive test confirms it).
//  * Tan (beyond 2^17; below, TanNativeF): the same reduction with
//    j = nearest(x 2/pi) (|r| <= pi/4), sin r
//    and cos r by polynomials, tan = sin r / cos r for even j, -cos r / sin r
//    for odd j (f32detail::Recip: relative error 2^-45).
//    Sin, Cos, Tan lanes with |x| >= 1.6e6 (Payne-Hanek territory) take the
//    float64 math::Sin/Cos/Tan, for the whole vector and only when some lane
//    needs it.
//  * Asin, Acos, Atan: native float32 in fmas (MulAddF, as
//    math_exp_f32-inl.h's logs), not through float64: see AsinCoreF and
//    AtanF32.
//
// Same bits on every Highway target: only exact IEEE operations (see
// math_exp_f32-inl.h). Polynomials: tools/fit_math_trig_f32.py (Chebyshev
// nodes in 120-digit mpmath, coefficients rounded to double, relative error
// of the rounded polynomial measured on a dense grid; figures below).

#if defined(BCAST_KERNELS_MATH_TRIG_F32_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BCAST_KERNELS_MATH_TRIG_F32_INL_H_
#undef BCAST_KERNELS_MATH_TRIG_F32_INL_H_
#else
#define BCAST_KERNELS_MATH_TRIG_F32_INL_H_
#endif

#include <stddef.h>
#include <stdint.h>

#include "hwy/highway.h"
#include "kernels/math_exp_f32-inl.h"
#include "kernels/math_trig-inl.h"

HWY_BEFORE_NAMESPACE();
namespace bcast {
namespace HWY_NAMESPACE {
namespace math {
namespace hn = hwy::HWY_NAMESPACE;

namespace trig_f32detail {

// sin(r) = r + r z S(z), z = r^2 <= (1.0001 pi/2)^2: relative error 2^-41.5.
constexpr double kSinPi[6] = {
    -0x1.55555555549c8p-3, 0x1.1111110fbff38p-7, -0x1.a01a00116c309p-13,
    0x1.71dd8dc8b3d86p-19, -0x1.ae20be07c2483p-26, 0x1.54e6c056fb189p-33,
};
// For TanF32: sin(r) = r + r z S(z), z = r^2 <= (1.0001 pi/4)^2: 2^-45.6.
constexpr double kSinS[5] = {
    -0x1.555555555516ap-3, 0x1.1111110fd3935p-7, -0x1.a019fd9a9838bp-13,
    0x1.71d9a97cd3c34p-19, -0x1.aa28204b8cc64p-26,
};
// cos(r) = 1 - z/2 + z^2 C(z), same z: relative error 2^-49.7.
constexpr double kCosC[5] = {
    0x1.5555555555437p-5, -0x1.6c16c16b612abp-10, 0x1.a019ff534c684p-16,
    -0x1.27e25f0776cc1p-22, 0x1.1c81a3b8d462fp-29,
};
// Native SinF32/CosF32: sin(r) = r + r z S(z), cos(r) = 1 - z/2 + z^2 C(z),
// z = r^2 <= (1.01 pi/4)^2, float32 coefficients (tools/fit_math_trig_f32.py,
// lawson_f32): 2^-32.5 relative to sin(r), 2^-37.0 to cos(r).
constexpr float kSinPf[4] = {-0x1.555556p-3f, 0x1.111172p-7f, -0x1.a056acp-13f, 0x1.7b5d6ap-19f};
constexpr float kCosPf[4] = {0x1.555556p-5f, -0x1.6c175ap-10f, 0x1.a06d46p-16f, -0x1.34e50ep-22f};
// pi/2 = kPio2F1 + kPio2F2 + kPio2F3 + 1.1e-23; kPio2F1 is kPio2HiF.
constexpr float kPio2F2 = -0x1.777a5cp-25f, kPio2F3 = -0x1.ee59dap-50f;
constexpr float kTwoOverPiF = 0x1.45f306p-1f;
// Below this |x| the native reduction holds (j < 2^17; checked on every
// float32 by tests/math_f32_exhaustive.cc); lanes beyond take the float64
// form.
constexpr float kNativeReduceMax = 0x1p17f;
// Native AsinF32/AcosF32: asin(s) = s + s z P(z), z = s^2 <= 1.0001/4,
// float32 coefficients (tools/fit_math_trig_f32.py, lawson_f32): 2^-31.7
// relative to asin(s).
constexpr float kAsinPf[6] = {
    0x1.55554cp-3f, 0x1.3338acp-4f, 0x1.6ca744p-5f, 0x1.04d452p-5f, 0x1.d4fb36p-7f, 0x1.34db14p-5f,
};
constexpr float kPiHiF = 0x1.921fb6p+1f, kPiLoF = -0x1.777a5cp-24f;
// Native AtanF32: atan(u) = u + u z P(z), z = u^2 <= (1.0001 tan(pi/8))^2,
// float32 coefficients (tools/fit_math_trig_f32.py, lawson_f32): 2^-30.4
// relative to atan(u).
constexpr float kAtanPf[5] = {
    -0x1.55554ap-2f, 0x1.9991e2p-3f, -0x1.23b9a2p-3f, 0x1.b2245p-4f, -0x1.f2e556p-5f,
};
constexpr float kTanPiOver8F = 0x1.a8279ap-2f;
constexpr float kTan3PiOver8F = 0x1.3504f4p+1f;
constexpr float kPio4HiF = 0x1.921fb6p-1f, kPio4LoF = -0x1.777a5cp-26f;
constexpr float kPio2HiF = 0x1.921fb6p+0f, kPio2LoF = -0x1.777a5cp-25f;
constexpr double kPio2 = 0x1.921fb54442d18p+0;
constexpr double kInvPi = 0x1.45f306dc9c883p-2;
// Below this |x| (float32, exact) the Cody-Waite reduction holds.
constexpr float kReduceMax = 1.6e6f;

// For TanF32: x = k pi/2 + r for float64 lanes |x| < 1.6e6 (others:
// garbage): sin r, cos r and k's bits (kb: k in the low bits, two's
// complement).
template <class D, class V = hn::VFromD<D>>
struct SinCosF {
  V s, c;
  hn::VFromD<hn::RebindToUnsigned<D>> k;
};
template <class D, class V = hn::VFromD<D>>
HWY_INLINE SinCosF<D> SinCosReduced(D d, V x) {
  namespace tc = ::bcast::math_trig_constants;
  const hn::RebindToUnsigned<D> du;
  const V magic = hn::Set(d, f32detail::kRoundMagic);
  const V kb = hn::Add(hn::Mul(x, hn::Set(d, tc::kTwoOverPi)), magic);
  const V k = hn::Sub(kb, magic);
  const V r = hn::Sub(hn::Sub(hn::Sub(x, hn::Mul(k, hn::Set(d, tc::kPio2_1))),
                              hn::Mul(k, hn::Set(d, tc::kPio2_2))),
                      hn::Mul(k, hn::Set(d, tc::kPio2_3)));
  const V z = hn::Mul(r, r);
  const V s = hn::Add(r, hn::Mul(hn::Mul(r, z), f32detail::Horner(d, z, kSinS)));
  const V c = hn::Add(hn::Sub(hn::Set(d, 1.0), hn::Mul(z, hn::Set(d, 0.5))),
                      hn::Mul(hn::Mul(z, z), f32detail::Horner(d, z, kCosC)));
  return {s, c, hn::BitCast(du, kb)};
}

// sin (kCos = 0) or cos (kCos = 1) for float64 lanes |x| < 1.6e6 (others:
// garbage), with one polynomial: x = j pi/2 + r, |r| <= pi/2, j = 2k even for
// sin (k = nearest(x/pi)), odd for cos (k = nearest(x/pi - 1/2), j = 2k + 1);
// sin x = (-1)^k sin r, cos x = -(-1)^k sin r. j < 2^20 as in SinCosReduced.
template <int kCos, class D, class V = hn::VFromD<D>>
HWY_INLINE V SinOrCos(D d, V x) {
  namespace tc = ::bcast::math_trig_constants;
  const hn::RebindToUnsigned<D> du;
  const V magic = hn::Set(d, f32detail::kRoundMagic);
  V t = hn::Mul(x, hn::Set(d, kInvPi));
  if (kCos) t = hn::Sub(t, hn::Set(d, 0.5));
  const V kb = hn::Add(t, magic);
  const V k = hn::Sub(kb, magic);
  V j = hn::Add(k, k);
  if (kCos) j = hn::Add(j, hn::Set(d, 1.0));
  const V r = hn::Sub(hn::Sub(hn::Sub(x, hn::Mul(j, hn::Set(d, tc::kPio2_1))),
                              hn::Mul(j, hn::Set(d, tc::kPio2_2))),
                      hn::Mul(j, hn::Set(d, tc::kPio2_3)));
  const V z = hn::Mul(r, r);
  const V s = hn::Add(r, hn::Mul(hn::Mul(r, z), f32detail::Horner(d, z, kSinPi)));
  // (-1)^k: bit 0 of k (two's complement in kb's low bits) to the sign.
  V sign = hn::BitCast(d, hn::ShiftLeft<63>(hn::BitCast(du, kb)));
  if (kCos) sign = hn::Xor(sign, hn::SignBit(d));
  return hn::Xor(s, sign);
}

// Lanes at or beyond the Cody-Waite bound (inf and NaN excluded) from f64.
template <class DF, class F>
HWY_INLINE hn::VFromD<DF> HugeFromF64(DF df, hn::VFromD<DF> x, hn::VFromD<DF> r, const F& f64) {
  const auto huge = hn::And(hn::Ge(hn::Abs(x), hn::Set(df, kReduceMax)), hn::IsFinite(x));
  if (HWY_UNLIKELY(!hn::AllFalse(df, huge))) {
    r = hn::IfThenElse(huge, f32detail::ViaF64(df, x, f64), r);
  }
  return r;
}

// 1/v to about 2^-6 relative for positive normal float32 v: from the bits
// (the exponent negated, the mantissa's first-order inverse), then one
// Newton step r (2 - v r). For corrections that need only a few bits.
template <class DF>
HWY_INLINE hn::VFromD<DF> RoughRecipF(DF df, hn::VFromD<DF> v) {
  const hn::RebindToSigned<DF> di;
  const auto r0 = hn::BitCast(df, hn::Sub(hn::Set(di, 0x7ef311c3), hn::BitCast(di, v)));
  return hn::Mul(r0, NegMulAddF(df, v, r0, hn::Set(df, 2.0f)));
}

// asin(s + sl) = s + T, T = sl + s z P(z) unrounded: s = a = |x| with
// sl = 0 where small (a <= 1/2), else z = (1 - a)/2 (exact), s = sqrt(z)
// rounded and sl = (z - s^2) / (2s) (the residual exact in an fma; 1/(2s)
// needs only a few bits: from the bits of s and one Newton step, 2^-6;
// s = 0 gives sl = 0). The derivative's z/2 on sl is below 2^-27 of s.
template <class DF>
struct AsinPartsF {
  hn::VFromD<DF> s, T;
};
template <class DF>
HWY_INLINE AsinPartsF<DF> AsinCoreF(DF df, hn::VFromD<DF> a, hn::Mask<DF> small) {
  using VF = hn::VFromD<DF>;
  const VF half = hn::Set(df, 0.5f);
  const VF w = hn::Mul(hn::Sub(hn::Set(df, 1.0f), a), half);  // exact
  const VF sq = hn::Sqrt(w);
  const VF r1 = RoughRecipF(df, sq);  // ~1/s
  const VF sl = hn::Mul(hn::Mul(NegMulAddF(df, sq, sq, w), r1), half);
  const VF s = hn::IfThenElse(small, a, sq);
  const VF z = hn::IfThenElse(small, hn::Mul(a, a), w);
  const VF P = f32detail::HornerFromFma<0>(df, z, kAsinPf);
  const VF T = MulAddF(df, hn::Mul(s, z), P, hn::IfThenElseZero(hn::Not(small), sl));
  return {s, T};
}

// hi + lo + sc (s + T) rounded once: hi + sc s by Fast2Sum (hi = 0, or
// |hi| >= |sc s|; sc a power of two, so sc s is exact), its error, lo and
// sc T in an fma.
template <class DF>
HWY_INLINE hn::VFromD<DF> AsinSumF(DF df, hn::VFromD<DF> hi, hn::VFromD<DF> lo,
                                   hn::VFromD<DF> sc, const AsinPartsF<DF>& p) {
  using VF = hn::VFromD<DF>;
  const VF m = hn::Mul(sc, p.s);
  const VF S = hn::Add(hi, m);
  const VF e = hn::Add(hn::Sub(hi, S), m);
  return hn::Add(S, MulAddF(df, sc, p.T, hn::Add(e, lo)));
}

// sin(x) (kCos = 0) or cos(x) (kCos = 1) for float32 lanes |x| <
// kNativeReduceMax, native in fmas: j = nearest(x 2/pi) (the float32 2/pi:
// |r| <= 1.01 pi/4), x = j pi/2 + rh + rl: x - j P1 exact in an fma (a
// multiple of 2^-23 below 2, or Sterbenz for j = 1), j P2 split exactly by
// an fma and subtracted by TwoSum, j P3 into rl. sin(rh + rl) = rh + (rl (1
// - z/2) + rh z S(z)); cos(rh + rl) = (1 - zh/2) + (its Fast2Sum error -
// zl/2 - rl rh + z^2 C(z)) with rh^2 = zh + zl exactly. The quadrant (j mod
// 4, plus 1 for cos) picks +-sin or +-cos; one rounding of hi + tail.
template <class DF>
struct SinCosPartsF {
  hn::VFromD<DF> sh, st, ch, ct;              // sin r = sh + st, cos r = ch + ct
  hn::VFromD<hn::RebindToSigned<DF>> q;  // j (its low bits)
};
template <class DF>
HWY_INLINE SinCosPartsF<DF> SinCosPartsNativeF(DF df, hn::VFromD<DF> x) {
  using VF = hn::VFromD<DF>;
  const hn::RebindToSigned<DF> di;
  const VF magic = hn::Set(df, f32detail::kRoundMagicF);
  const VF kb = MulAddF(df, x, hn::Set(df, kTwoOverPiF), magic);
  const VF j = hn::Sub(kb, magic);
  const auto q = hn::Sub(hn::BitCast(di, kb), hn::BitCast(di, magic));
  const VF r1 = NegMulAddF(df, j, hn::Set(df, kPio2HiF), x);  // exact
  const VF p2 = hn::Mul(j, hn::Set(df, kPio2F2));
  const VF e2 = MulAddF(df, j, hn::Set(df, kPio2F2), hn::Neg(p2));  // exact
  // rh + t = r1 - p2 exactly (TwoSum).
  const VF rh = hn::Sub(r1, p2);
  const VF bb = hn::Sub(rh, r1);
  const VF t = hn::Sub(hn::Sub(r1, hn::Sub(rh, bb)), hn::Add(p2, bb));
  const VF rl = NegMulAddF(df, j, hn::Set(df, kPio2F3), hn::Sub(t, e2));
  const VF half = hn::Set(df, 0.5f);
  const VF zh = hn::Mul(rh, rh);
  const VF zl = MulAddF(df, rh, rh, hn::Neg(zh));  // exact
  const VF hz = hn::Mul(zh, half);
  // sin r = rh + st.
  const VF sP = f32detail::HornerFromFma<0>(df, zh, kSinPf);
  const VF st = MulAddF(df, hn::Mul(rh, zh), sP, NegMulAddF(df, rl, hz, rl));
  // cos r = ch + ct.
  const VF one = hn::Set(df, 1.0f);
  const VF ch = hn::Sub(one, hz);
  const VF ce = hn::Sub(hn::Sub(one, ch), hz);  // exact (Fast2Sum)
  const VF cP = f32detail::HornerFromFma<0>(df, zh, kCosPf);
  const VF ct = MulAddF(df, hn::Mul(zh, zh), cP, NegMulAddF(df, rl, rh, NegMulAddF(df, zl, half, ce)));
  return {rh, st, ch, ct, q};
}
template <int kCos, class DF>
HWY_INLINE hn::VFromD<DF> SinCosNativeF(DF df, hn::VFromD<DF> x) {
  using VF = hn::VFromD<DF>;
  const hn::RebindToSigned<DF> di;
  const SinCosPartsF<DF> p = SinCosPartsNativeF(df, x);
  const VF rh = p.sh, st = p.st, ch = p.ch, ct = p.ct;
  auto q = p.q;
  if (kCos) q = hn::Add(q, hn::Set(di, 1));
  const auto odd = hn::RebindMask(df, hn::Ne(hn::And(q, hn::Set(di, 1)), hn::Zero(di)));
  const VF hi = hn::IfThenElse(odd, ch, rh);
  const VF tail = hn::IfThenElse(odd, ct, st);
  const VF sign = hn::BitCast(df, hn::ShiftLeft<30>(hn::And(q, hn::Set(di, 2))));
  return hn::Xor(hn::Add(hi, tail), sign);
}

}  // namespace trig_f32detail

namespace trig_f32detail {

// Native below kNativeReduceMax; a vector holding a lane beyond (inf and
// NaN excluded) takes the float64 form for those lanes (SinOrCos, and
// math::Sin/Cos beyond 1.6e6). inf gives NaN.
template <int kCos, class DF>
HWY_INLINE hn::VFromD<DF> SinCosF32(DF df, hn::VFromD<DF> x) {
  using VF = hn::VFromD<DF>;
  VF r = SinCosNativeF<kCos>(df, x);
  const auto far = hn::And(hn::Ge(hn::Abs(x), hn::Set(df, kNativeReduceMax)), hn::IsFinite(x));
  if (HWY_UNLIKELY(!hn::AllFalse(df, far))) {
    r = hn::IfThenElse(far, f32detail::ViaF64(df, x, [](auto d, auto v) { return SinOrCos<kCos>(d, v); }), r);
    r = HugeFromF64(df, x, r, [](auto d, auto v) { return kCos ? Cos(d, v) : Sin(d, v); });
  }
  return hn::IfThenElse(hn::IsInf(x), f32detail::NaNF(df), r);
}

}  // namespace trig_f32detail

template <class DF>
HWY_INLINE hn::VFromD<DF> SinF32(DF df, hn::VFromD<DF> x) {
  const auto r = trig_f32detail::SinCosF32<0>(df, x);
  return f32detail::KeepZero(df, x, f32detail::KeepNaN(df, x, r));
}

template <class DF>
HWY_INLINE hn::VFromD<DF> CosF32(DF df, hn::VFromD<DF> x) {
  return f32detail::KeepNaN(df, x, trig_f32detail::SinCosF32<1>(df, x));
}

namespace trig_f32detail {

// tan for float32 lanes |x| < kNativeReduceMax, native in fmas: with
// SinCosPartsNativeF's parts normalized (Fast2Sum), n / d = sin r / cos r
// for even j, -cos r / sin r for odd j (|sin r| > 2^-30 there); th = nh /
// dh rounded, the residual nh - th dh exact in an fma, tl = (residual + nl
// - th dl) / d with 1/d from the bits of dh and one Newton step (2^-6
// suffices for a term below ulp(th)); th + tl rounded once.
template <class DF>
HWY_INLINE hn::VFromD<DF> TanNativeF(DF df, hn::VFromD<DF> x) {
  using VF = hn::VFromD<DF>;
  const hn::RebindToSigned<DF> di;
  const SinCosPartsF<DF> p = SinCosPartsNativeF(df, x);
  const VF sh = hn::Add(p.sh, p.st);
  const VF sl = hn::Add(hn::Sub(p.sh, sh), p.st);
  const VF ch = hn::Add(p.ch, p.ct);
  const VF cl = hn::Add(hn::Sub(p.ch, ch), p.ct);
  const auto odd = hn::RebindMask(df, hn::Ne(hn::And(p.q, hn::Set(di, 1)), hn::Zero(di)));
  const VF nh = hn::IfThenElse(odd, hn::Neg(ch), sh);
  const VF nl = hn::IfThenElse(odd, hn::Neg(cl), sl);
  const VF dh = hn::IfThenElse(odd, sh, ch);
  const VF dl = hn::IfThenElse(odd, sl, cl);
  const VF th = hn::Div(nh, dh);
  const VF e = NegMulAddF(df, th, dl, hn::Add(NegMulAddF(df, th, dh, nh), nl));
  const VF sgn = hn::And(dh, hn::SignBit(df));
  const VF inv = hn::Xor(RoughRecipF(df, hn::Abs(dh)), sgn);
  return MulAddF(df, e, inv, th);
}

}  // namespace trig_f32detail

namespace trig_f32detail {

template <class DF>
HWY_INLINE hn::VFromD<DF> TanViaF64(DF df, hn::VFromD<DF> x) {
  namespace t = trig_f32detail;
  auto r = f32detail::ViaF64(df, x, [](auto d, auto v) {
    const hn::RebindToUnsigned<decltype(d)> du;
    const auto p = t::SinCosReduced(d, v);
    // k even: sin r / cos r; odd: -cos r / sin r (|sin r| > 2^-40 there).
    const auto odd = hn::RebindMask(d, hn::Ne(hn::And(p.k, hn::Set(du, 1)), hn::Zero(du)));
    const auto num = hn::IfThenElse(odd, hn::Neg(p.c), p.s);
    const auto den = hn::IfThenElse(odd, p.s, p.c);
    return hn::Mul(num, f32detail::Recip(d, den));
  });
  return t::HugeFromF64(df, x, r, [](auto d, auto v) { return Tan(d, v); });
}

}  // namespace trig_f32detail

// Native below kNativeReduceMax (trig_f32detail::TanNativeF); a vector
// holding a lane beyond (inf and NaN excluded) takes the float64 form for
// those lanes. inf gives NaN.
template <class DF>
HWY_INLINE hn::VFromD<DF> TanF32(DF df, hn::VFromD<DF> x) {
  namespace t = trig_f32detail;
  auto r = t::TanNativeF(df, x);
  const auto far = hn::And(hn::Ge(hn::Abs(x), hn::Set(df, t::kNativeReduceMax)), hn::IsFinite(x));
  if (HWY_UNLIKELY(!hn::AllFalse(df, far))) {
    r = hn::IfThenElse(far, t::TanViaF64(df, x), r);
  }
  r = hn::IfThenElse(hn::IsInf(x), f32detail::NaNF(df), r);
  return f32detail::KeepZero(df, x, f32detail::KeepNaN(df, x, r));
}


// Native float32 in fmas (trig_f32detail::AsinCoreF, AsinSumF): a <= 1/2:
// s + T; above: pi/2 - 2 (s + T). One rounding, below 0.2 ulp before it
// (results above pi/6 where pi/2 enters, and no cancellation there).
template <class DF>
HWY_INLINE hn::VFromD<DF> AsinF32(DF df, hn::VFromD<DF> x) {
  namespace t = trig_f32detail;
  using VF = hn::VFromD<DF>;
  const VF a = hn::Abs(x);
  const auto small = hn::Le(a, hn::Set(df, 0.5f));
  const t::AsinPartsF<DF> p = t::AsinCoreF(df, a, small);
  const VF hi = hn::IfThenElseZero(hn::Not(small), hn::Set(df, t::kPio2HiF));
  const VF lo = hn::IfThenElseZero(hn::Not(small), hn::Set(df, t::kPio2LoF));
  const VF sc = hn::IfThenElse(small, hn::Set(df, 1.0f), hn::Set(df, -2.0f));
  VF r = hn::CopySignToAbs(t::AsinSumF(df, hi, lo, sc, p), x);
  r = hn::IfThenElse(hn::Gt(a, hn::Set(df, 1.0f)), f32detail::NaNF(df), r);
  return f32detail::KeepZero(df, x, f32detail::KeepNaN(df, x, r));
}

// As AsinF32: |x| <= 1/2: pi/2 -+ (s + T); x > 1/2: 2 (s + T); x < -1/2:
// pi - 2 (s + T).
template <class DF>
HWY_INLINE hn::VFromD<DF> AcosF32(DF df, hn::VFromD<DF> x) {
  namespace t = trig_f32detail;
  using VF = hn::VFromD<DF>;
  const VF a = hn::Abs(x);
  const auto small = hn::Le(a, hn::Set(df, 0.5f));
  const auto neg = hn::Lt(x, hn::Zero(df));
  const t::AsinPartsF<DF> p = t::AsinCoreF(df, a, small);
  const VF hi = hn::IfThenElse(small, hn::Set(df, t::kPio2HiF),
                               hn::IfThenElseZero(neg, hn::Set(df, t::kPiHiF)));
  const VF lo = hn::IfThenElse(small, hn::Set(df, t::kPio2LoF),
                               hn::IfThenElseZero(neg, hn::Set(df, t::kPiLoF)));
  const VF one = hn::Set(df, 1.0f), two = hn::Set(df, 2.0f);
  const VF sc = hn::IfThenElse(small, hn::IfThenElse(neg, one, hn::Neg(one)),
                               hn::IfThenElse(neg, hn::Neg(two), two));
  VF r = t::AsinSumF(df, hi, lo, sc, p);
  r = hn::IfThenElse(hn::Gt(a, one), f32detail::NaNF(df), r);
  return f32detail::KeepNaN(df, x, r);
}

// Native float32 in fmas. a = |x| (capped at 2^60); u = n / d with
// (n, d) = (a, 1) up to tan(pi/8), (a - 1, a + 1) up to tan(3pi/8) (both as
// exact float-float sums, Fast2Sum), (-1, a) above, and c = 0, pi/4, pi/2:
// atan(a) = c + atan(u), |u| <= tan(pi/8). uh = nh / dh rounded, the
// residual nh - uh dh exact (fma), so u = uh + ul with ul = (residual + nl
// - uh dl) / d, where 1 / d is 1, (1 - u) / 2 or -u (taken with uh: ul
// needs only a few correct bits). atan(u) = u + u z P(z), z = uh^2 (P:
// 2^-30.4 relative); c + uh by Fast2Sum (c >= |uh| or c = 0) and the small
// terms (c's tail, ul, u z P) in one fma chain: one rounding, below 0.2 ulp
// before it (results above 0.37 where c != 0).
template <class DF>
HWY_INLINE hn::VFromD<DF> AtanF32(DF df, hn::VFromD<DF> x) {
  namespace t = trig_f32detail;
  using VF = hn::VFromD<DF>;
  const VF one = hn::Set(df, 1.0f);
  const VF a = hn::Min(hn::Abs(x), hn::Set(df, 0x1p60f));
  const auto mid = hn::Gt(a, hn::Set(df, t::kTanPiOver8F));
  const auto big = hn::Gt(a, hn::Set(df, t::kTan3PiOver8F));
  // a - 1 and a + 1 as float-float sums (larger term first).
  const VF am1 = hn::Sub(a, one);
  const VF am1l = hn::Sub(a, hn::Add(am1, one));
  const VF lg = hn::Max(a, one), sm = hn::Min(a, one);
  const VF ap1 = hn::Add(lg, sm);
  const VF ap1l = hn::Add(hn::Sub(lg, ap1), sm);
  const VF m1 = hn::Set(df, -1.0f);
  const VF nh = hn::IfThenElse(big, m1, hn::IfThenElse(mid, am1, a));
  const VF nl = hn::IfThenElseZero(hn::AndNot(big, mid), am1l);
  const VF dh = hn::IfThenElse(big, a, hn::IfThenElse(mid, ap1, one));
  const VF dl = hn::IfThenElseZero(hn::AndNot(big, mid), ap1l);
  const VF uh = hn::Div(nh, dh);
  const VF e = NegMulAddF(df, uh, dl, hn::Add(NegMulAddF(df, uh, dh, nh), nl));
  const VF half = hn::Set(df, 0.5f);
  const VF inv_d = hn::IfThenElse(big, hn::Neg(uh),
                                  hn::IfThenElse(mid, NegMulAddF(df, uh, half, half), one));
  const VF ch = hn::IfThenElse(big, hn::Set(df, t::kPio2HiF),
                               hn::IfThenElseZero(mid, hn::Set(df, t::kPio4HiF)));
  const VF cl = hn::IfThenElse(big, hn::Set(df, t::kPio2LoF),
                               hn::IfThenElseZero(mid, hn::Set(df, t::kPio4LoF)));
  const VF z = hn::Mul(uh, uh);
  const VF P = f32detail::HornerFromFma<0>(df, z, t::kAtanPf);
  const VF small = MulAddF(df, hn::Mul(uh, z), P, MulAddF(df, e, inv_d, cl));
  const VF s = hn::Add(ch, uh);
  const VF err = hn::Add(hn::Sub(ch, s), uh);
  const VF r = hn::CopySignToAbs(hn::Add(s, hn::Add(err, small)), x);
  return f32detail::KeepZero(df, x, f32detail::KeepNaN(df, x, r));
}

}  // namespace math
}  // namespace HWY_NAMESPACE
}  // namespace bcast
HWY_AFTER_NAMESPACE();

#endif  // BCAST_KERNELS_MATH_TRIG_F32_INL_H_
