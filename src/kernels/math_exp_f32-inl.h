// Float32 vector math, exponential family: ExpF32, Exp2F32, Expm1F32,
// LogF32, Log2F32, Log10F32, Log1pF32, SinhF32, CoshF32, TanhF32, AsinhF32,
// AcoshF32, AtanhF32 and the activations SigmoidF32, LogitF32, SiluF32,
// SoftplusF32, MishF32, EluF32, GeluTanhF32. Each takes and returns float32
// lanes (any float32 descriptor, 1-lane and HWY_SCALAR included). Every
// result is within 1 ulp of the correctly rounded float32 for every input:
// tests/math_f32_exhaustive.cc checks all 2^32 inputs of each function.
//
// Three methods:
//  * Native float32 in fmas (MulAddF, math_fma-inl.h: the hardware's fma on
//    AVX2 and AVX3, an exact emulation on the older targets): Exp, Exp2,
//    Log, Log2, Log10, Log1p, Atanh, Logit, Softplus (beta = 1), and Tanh
//    with plain roundings only (its result near 1 absorbs them). The
//    reduced argument and the
//    polynomial in fmas leave an error below 0.5 ulp before the last
//    rounding (within 1 ulp of the correctly rounded result, about 18
//    million of the 2^32 inputs not correctly rounded for Exp) in half the
//    operations of the float-float steps below. The logs: x = 2^e (1 + f)
//    from the bits, no division and no table; log1p(f) = f + f^2 Q(f)
//    (log_b: f C + f R(f)) with degree-8 and -9 polynomials, e ln2 + f as
//    a Fast2Sum whose error joins the small terms in the last fma (LogSumF,
//    LogBaseSumF; Atanh through log1p of a float-float argument,
//    Log1pSumF); subnormal and special inputs in a branch taken only when
//    a vector holds one (LogDispatchF).
//  * Native float32 with float-float steps (all lanes at once): Expm1,
//    Sigmoid, Silu, GeluTanh. They take e^r (ExpCoreF) and
//    1 / (1 + e^y) (SigmoidCore) in fmas (an fma gives a product's exact
//    error and the division's exact residual), and float-float sums
//    (Fast2Sum/TwoSum) where rounding errors would add up, so that the
//    result rounds once from a value within about 0.5 ulp (see ExpCoreF,
//    SigmoidCore, TimesRecip).
//    GeluTanh computes its argument z in float64.
//  * Through float64 (ViaF64): each half widened (exact), plain float64
//    arithmetic with short polynomials to a relative error of ~2^-36 or
//    better, rounded once to float32: within 0.5 + 2^-11 ulp. Float32
//    inputs and their squares are exact in float64, whose 29 extra bits
//    absorb the cancellations that math_exp-inl.h handles with
//    double-double steps. Divisions use a float32 reciprocal refined by one
//    float64 Newton step (Recip).
//
// Same bits on every Highway target: only exact IEEE operations (Add, Sub,
// Mul, Div, Sqrt, fma through MulAddF, compares, selects, integer bit
// operations, the IEEE float<->double conversions); never Highway's MulAdd
// directly (unfused on SSE4), no approximate reciprocal, no libm.
// Compile with -ffp-contract=off. On the emulated targets (EMU128, SCALAR)
// Highway's DemoteTo clamps values beyond FLT_MAX to +-FLT_MAX instead of
// rounding them to +-inf; DemoteToF32 (math_fma-inl.h) restores the IEEE
// result there.
//
// Polynomials and constants: tools/fit_math_f32.py.

#if defined(BCAST_KERNELS_MATH_EXP_F32_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BCAST_KERNELS_MATH_EXP_F32_INL_H_
#undef BCAST_KERNELS_MATH_EXP_F32_INL_H_
#else
#define BCAST_KERNELS_MATH_EXP_F32_INL_H_
#endif

#include <stddef.h>
#include <stdint.h>

#include <limits>

#include "hwy/highway.h"
#include "kernels/math_fma-inl.h"

HWY_BEFORE_NAMESPACE();
namespace bcast {
namespace HWY_NAMESPACE {
namespace math {
namespace hn = hwy::HWY_NAMESPACE;

namespace f32detail {

// (exp(r) - 1 - r) / r^2 on |r| <= 0.3466: expm1(r) = r + r^2 Q(r) to a
// relative error of 2^-36.5 (and exp(r) = 1 + that to 2^-38).
constexpr double kExpQ[7] = {
    0x1.0000000000000p-1, 0x1.5555556752826p-3, 0x1.5555555c86d13p-5, 0x1.1110c63476727p-7,
    0x1.6c16858cf08f7p-10, 0x1.a151760b496bbp-13, 0x1.a1131d0be06e8p-16,
};
// (atanh(s)/s - 1) / s^2 in z = s^2 <= 0.02944: atanh(s)/s = 1 + z T(z) to
// a relative error of 2^-43.
constexpr double kLogT[5] = {
    0x1.5555555564eb7p-2, 0x1.999998cae671fp-3, 0x1.249323f5fe0a4p-3,
    0x1.c67ad18010d25p-4, 0x1.8c8cb725e2db5p-4,
};
constexpr double kLn2CwHi = 0x1.62e42fefa3800p-1;  // 42 significant bits
constexpr double kLn2CwLo = 0x1.ef35793c76730p-45;
constexpr double kLn2 = 0x1.62e42fefa39efp-1;
constexpr double kInvLn2 = 0x1.71547652b82fep+0;
constexpr double kInvLn10 = 0x1.bcb7b1526e50ep-2;
constexpr double kInvLog2_10 = 0x1.34413509f79ffp-2;  // log10(2)
constexpr double kSqrt2OverPi = 0x1.9884533d43651p-1;
constexpr double kRoundMagic = 0x1.8p52;  // x + magic - magic: nearest integer
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr float kInfF = std::numeric_limits<float>::infinity();

// Native float32 exp: Q(r) = (e^r - 1 - r) / r^2 on |r| <= 0.3466 with
// float32 coefficients, relative error 2^-26.7.
constexpr float kExpQf[6] = {
    0x1.000000p-1f, 0x1.555556p-3f, 0x1.5554eap-5f,
    0x1.1110e0p-7f, 0x1.6d4320p-10f, 0x1.a124eep-13f,
};
constexpr float kLn2F1 = 0x1.62ep-1f;       // 13 bits: k ln2F1 exact for |k| < 2^11
constexpr float kLn2F2 = 0x1.0bfbe8p-15f;   // ln2 - kLn2F1, rounded
constexpr float kInvLn2F = 0x1.715476p+0f;
constexpr float kLn2Hi = 0x1.62e430p-1f;   // ln2 rounded: k kLn2Hi exact in an fma
constexpr float kLn2Lo = -0x1.05c610p-29f;  // ln2 - kLn2Hi, rounded
constexpr float kRoundMagicF = 0x1.8p23f;

// c[I] + x (c[I+1] + x (...)) in fmas (MulAddF: the same bits everywhere).
template <size_t I, size_t N, class D, class V>
HWY_INLINE V HornerFromFma(D d, V x, const float (&c)[N]) {
  if constexpr (I + 1 == N) {
    return hn::Set(d, c[I]);
  } else {
    return MulAddF(d, HornerFromFma<I + 1>(d, x, c), x, hn::Set(d, c[I]));
  }
}

template <size_t I, size_t N, class D, class V>
HWY_INLINE V HornerFrom(D d, V x, const double (&c)[N]) {
  if constexpr (I + 1 == N) {
    return hn::Set(d, c[I]);
  } else {
    return hn::Add(hn::Mul(HornerFrom<I + 1>(d, x, c), x), hn::Set(d, c[I]));
  }
}
// c[0] + x (c[1] + x (...)).
template <class D, class V, size_t N>
HWY_INLINE V Horner(D d, V x, const double (&c)[N]) {
  return HornerFrom<0>(d, x, c);
}

// lo <= x <= hi; NaN stays NaN.
template <class D, class V>
HWY_INLINE V Clamp(D d, V x, double lo, double hi) {
  using T = hn::TFromD<D>;
  const V vh = hn::Set(d, static_cast<T>(hi)), vl = hn::Set(d, static_cast<T>(lo));
  x = hn::IfThenElse(hn::Gt(x, vh), vh, x);
  return hn::IfThenElse(hn::Lt(x, vl), vl, x);
}

// e^t = 2^k (1 + e1), |e1| <= 0.42, for t in [-700, 700] (callers clamp;
// NaN gives garbage that they replace).
template <class V>
struct ExpParts {
  V k;   // integer-valued, |k| <= 1010
  V p2;  // 2^k
  V e1;  // expm1(r), relative error 2^-36.5
};
template <class D, class V>
HWY_INLINE ExpParts<V> ExpCore(D d, V t) {
  const hn::RebindToUnsigned<D> du;
  const V kb = hn::Add(hn::Mul(t, hn::Set(d, kInvLn2)), hn::Set(d, kRoundMagic + 1023.0));
  const V k = hn::Sub(kb, hn::Set(d, kRoundMagic + 1023.0));
  // Cody-Waite: k ln2hi is exact, t - k ln2hi too (Sterbenz).
  const V r = hn::Sub(hn::Sub(t, hn::Mul(k, hn::Set(d, kLn2CwHi))), hn::Mul(k, hn::Set(d, kLn2CwLo)));
  const V e1 = hn::Add(r, hn::Mul(hn::Mul(r, r), Horner(d, r, kExpQ)));
  const V p2 = hn::BitCast(d, hn::ShiftLeft<52>(hn::BitCast(du, kb)));
  return {k, p2, e1};
}
template <class D, class V>
HWY_INLINE V Exp64(D d, V t) {
  const ExpParts<V> c = ExpCore(d, t);
  return hn::Mul(hn::Add(c.e1, hn::Set(d, 1.0)), c.p2);
}
// e^t - 1 = 2^k e1 + (2^k - 1): for k = 0 it is e1 (relative error 2^-36.5);
// for k != 0 the two terms add without harmful cancellation.
template <class D, class V>
HWY_INLINE V Expm1From(D d, const ExpParts<V>& c) {
  return hn::Add(hn::Mul(c.p2, c.e1), hn::Sub(c.p2, hn::Set(d, 1.0)));
}

// 1 / v for v in [2^-100, 2^100]: the float32 quotient (IEEE, relative
// error <= 2^-23 with the rounding of v to float32), refined by one Newton
// step in float64, y + y (1 - v y): relative error below 2^-45. Much
// cheaper than a float64 division (8 float32 lanes divide in a third of
// the time of 8 float64 lanes).
template <class D, class V>
HWY_INLINE V Recip(D d, V v) {
  const hn::Rebind<float, D> df;
  const auto vf = hn::DemoteTo(df, v);
  const V y = hn::PromoteTo(d, hn::Div(hn::Set(df, 1.0f), vf));
  return hn::Add(y, hn::Mul(y, hn::Sub(hn::Set(d, 1.0), hn::Mul(v, y))));
}

// log(u) for finite u > 0 (normal in float64; every float32 is): u = 2^e m,
// m in [sqrt(1/2), sqrt(2)), f = m - 1 (exact), s = f / (2 + f),
// log(m) = 2 atanh(s) = 2s (1 + z T(z)), z = s^2. Relative error ~2^-43
// plus the roundings (a few 2^-53). Other inputs give garbage that the
// callers replace.
template <class D, class V>
HWY_INLINE V Log64(D d, V u) {
  const hn::RebindToUnsigned<D> du;
  using VU = hn::VFromD<decltype(du)>;
  const VU ui = hn::BitCast(du, u);
  // Shift the exponent boundary from 1 to sqrt(1/2).
  const VU t = hn::Add(ui, hn::Set(du, uint64_t{0x3ff0000000000000} - 0x3fe6a09e667f3bcdu));
  // e + 1023 as an integer in the low bits of 2^52 + (e + 1023).
  const VU eb = hn::Or(hn::ShiftRight<52>(t), hn::Set(du, uint64_t{0x4330000000000000}));
  const V e = hn::Sub(hn::BitCast(d, eb), hn::Set(d, 0x1p52 + 1023.0));
  const VU mb = hn::Add(hn::And(t, hn::Set(du, uint64_t{0x000fffffffffffff})),
                        hn::Set(du, uint64_t{0x3fe6a09e667f3bcd}));
  const V f = hn::Sub(hn::BitCast(d, mb), hn::Set(d, 1.0));
  const V s = hn::Mul(f, Recip(d, hn::Add(f, hn::Set(d, 2.0))));
  const V z = hn::Mul(s, s);
  const V s2 = hn::Add(s, s);
  const V lm = hn::Add(s2, hn::Mul(hn::Mul(s2, z), Horner(d, z, kLogT)));
  return hn::Add(hn::Mul(e, hn::Set(d, kLn2)), lm);
}

// log1p(t) for t > -1: u = 1 + t rounded, and for |t| <= 1 the rounding
// error c = t - (u - 1) (exact, Fast2Sum) added back (as c, not c/u: the
// difference c t / u is below 2^-51 of the result there); for |t| > 1 the
// rounding of u costs at most 2^-53 absolute against a result above 0.69.
template <class D, class V>
HWY_INLINE V Log1p64(D d, V t) {
  const V one = hn::Set(d, 1.0);
  const V u = hn::Add(one, t);
  const V c = hn::IfThenElseZero(hn::Le(hn::Abs(t), one), hn::Sub(t, hn::Sub(u, one)));
  return hn::Add(Log64(d, u), c);
}

// f(dd, v) on each float64 half of x, rounded once to float32.
template <class DF, class F>
HWY_INLINE hn::VFromD<DF> ViaF64(DF df, hn::VFromD<DF> x, const F& f) {
#if HWY_TARGET == HWY_SCALAR
  const hn::Rebind<double, DF> dd;
  return DemoteToF32(df, f(dd, hn::PromoteTo(dd, x)));
#else
  if constexpr (hn::MaxLanes(DF()) == 1) {
    const hn::Rebind<double, DF> dd;
    return DemoteToF32(df, f(dd, hn::PromoteTo(dd, x)));
  } else {
    const hn::Half<DF> dh;
    const hn::Rebind<double, decltype(dh)> dd;
    const auto lo = f(dd, hn::PromoteTo(dd, hn::LowerHalf(dh, x)));
    const auto hi = f(dd, hn::PromoteTo(dd, hn::UpperHalf(dh, x)));
    return hn::Combine(df, DemoteToF32(dh, hi), DemoteToF32(dh, lo));
  }
#endif
}

// f(dd, v) on each float64 half of x, as a float-float hi + lo (lo = the
// float64 result minus hi, rounded).
template <class DF, class F>
HWY_INLINE void SplitViaF64(DF df, hn::VFromD<DF> x, const F& f, hn::VFromD<DF>* hi,
                            hn::VFromD<DF>* lo) {
#if HWY_TARGET == HWY_SCALAR
  const hn::Rebind<double, DF> dd;
  const auto v = f(dd, hn::PromoteTo(dd, x));
  *hi = hn::DemoteTo(df, v);
  *lo = hn::DemoteTo(df, hn::Sub(v, hn::PromoteTo(dd, *hi)));
#else
  if constexpr (hn::MaxLanes(DF()) == 1) {
    const hn::Rebind<double, DF> dd;
    const auto v = f(dd, hn::PromoteTo(dd, x));
    *hi = hn::DemoteTo(df, v);
    *lo = hn::DemoteTo(df, hn::Sub(v, hn::PromoteTo(dd, *hi)));
  } else {
    const hn::Half<DF> dh;
    const hn::Rebind<double, decltype(dh)> dd;
    const auto vl = f(dd, hn::PromoteTo(dd, hn::LowerHalf(dh, x)));
    const auto vh = f(dd, hn::PromoteTo(dd, hn::UpperHalf(dh, x)));
    const auto hl = hn::DemoteTo(dh, vl);
    const auto hh = hn::DemoteTo(dh, vh);
    *hi = hn::Combine(df, hh, hl);
    *lo = hn::Combine(df, hn::DemoteTo(dh, hn::Sub(vh, hn::PromoteTo(dd, hh))),
                      hn::DemoteTo(dh, hn::Sub(vl, hn::PromoteTo(dd, hl))));
  }
#endif
}

template <class DF>
HWY_INLINE hn::VFromD<DF> NaNF(DF df) {
  return hn::Set(df, std::numeric_limits<float>::quiet_NaN());
}
// NaN inputs give themselves.
template <class DF, class V>
HWY_INLINE V KeepNaN(DF, V x, V r) {
  return hn::IfThenElse(hn::IsNaN(x), x, r);
}
// +-0 inputs give themselves.
template <class DF, class V>
HWY_INLINE V KeepZero(DF df, V x, V r) {
  return hn::IfThenElse(hn::Eq(x, hn::Zero(df)), x, r);
}
// log-type special values: +inf -> +inf, 0 -> -inf, x < 0 or NaN -> NaN.
template <class DF, class V>
HWY_INLINE V FixLog(DF df, V x, V r) {
  r = hn::IfThenElse(hn::Eq(x, hn::Set(df, kInfF)), x, r);
  r = hn::IfThenElse(hn::Eq(x, hn::Zero(df)), hn::Set(df, -kInfF), r);
  return hn::IfThenElse(hn::Not(hn::Ge(x, hn::Zero(df))), NaNF(df), r);
}

// e^x = 2^k (s1 + lo) for float32 x in [-110, 110] (NaN: garbage; plus
// xlo, |xlo| <= 2^-16, where given), with
// s1 + lo in [0.7, 1.42] to a relative error of about 2^-27 (|lo| < 0.07):
// k = round(x / ln2), r = x - k ln2 = t + u (t = x - k kLn2Hi, exact in an
// fma; u = xlo - k kLn2Lo), e^r = e^t e^u = 1 + t + (P + u (1 + t + P)),
// P = t^2 Q(t), in fmas (MulAddF), where s1 = 1 + t rounded and lo holds
// its rounding error (Fast2Sum) plus the rest, so that a caller's s1 + lo
// rounds once.
template <class DF>
struct ExpPartsF {
  hn::VFromD<DF> k, s1, lo;
  hn::VFromD<hn::RebindToSigned<DF>> ki;  // k as int32
  hn::VFromD<DF> rh, small;  // e^r - 1 = rh + small (|small| < 0.6 |rh| or tiny)
};
template <class DF>
HWY_INLINE ExpPartsF<DF> ExpCoreF(DF df, hn::VFromD<DF> xc,
                                  hn::VFromD<DF> xlo = hn::Zero(DF())) {
  using VF = hn::VFromD<DF>;
  const hn::RebindToSigned<DF> di;
  const VF magic = hn::Set(df, kRoundMagicF);
  const VF kb = MulAddF(df, xc, hn::Set(df, kInvLn2F), magic);
  const VF k = hn::Sub(kb, magic);
  const VF t = NegMulAddF(df, k, hn::Set(df, kLn2Hi), xc);  // exact (see ExpF32)
  const VF u = NegMulAddF(df, k, hn::Set(df, kLn2Lo), xlo);  // |u| < 2^-15
  // e^(t + u) - 1 = e^t e^u - 1 = t + P + u (1 + t + P), P = t^2 Q(t)
  // (and u^2/2 < 2^-31).
  const VF P = hn::Mul(hn::Mul(t, t), HornerFromFma<0>(df, t, kExpQf));
  const VF small = hn::Add(P, MulAddF(df, u, hn::Add(t, P), u));
  const VF one = hn::Set(df, 1.0f);
  const VF s1 = hn::Add(one, t);
  const VF e1 = hn::Add(hn::Sub(one, s1), t);  // Fast2Sum error, exact
  const auto ki = hn::Sub(hn::BitCast(di, kb), hn::BitCast(di, magic));
  return {k, s1, hn::Add(e1, small), ki, t, small};
}

// v 2^k for int32 k in [-252, 254]: two power-of-two factors, the first
// product exact, the second rounding once (to a subnormal or to inf too).
template <class DF>
HWY_INLINE hn::VFromD<DF> ScaleF(DF df, hn::VFromD<DF> v, hn::VFromD<hn::RebindToSigned<DF>> k) {
  const hn::RebindToSigned<DF> di;
  const auto a = hn::ShiftRight<1>(k);  // floor(k / 2)
  const auto b = hn::Sub(k, a);
  const auto bias = hn::Set(di, 127);
  const auto pa = hn::BitCast(df, hn::ShiftLeft<23>(hn::Add(a, bias)));
  const auto pb = hn::BitCast(df, hn::ShiftLeft<23>(hn::Add(b, bias)));
  return hn::Mul(hn::Mul(v, pa), pb);
}

// v 2^-m for int32 m in [0, 252], |v| in [2^-5, 2^7] where m > 0: in the
// exponent field where every lane's result is normal (m <= 120), else ScaleF.
template <class DF>
HWY_INLINE hn::VFromD<DF> ScaleDownF(DF df, hn::VFromD<DF> v, hn::VFromD<hn::RebindToSigned<DF>> m) {
  const hn::RebindToSigned<DF> di;
  if (HWY_LIKELY(hn::AllTrue(di, hn::Lt(m, hn::Set(di, 121))))) {
    return hn::BitCast(df, hn::Sub(hn::BitCast(di, v), hn::ShiftLeft<23>(m)));
  }
  return ScaleF(df, v, hn::Neg(m));
}

// 2^m / (1 + e^y) for float32 y in [-20, 110] (m = max(k, 0), returned),
// as q (1 + c): q = 1 / dh rounded, c a small correction (|c| < 2^-22),
// relative error about 2^-40 beyond e^r's own. With y = k ln2 + r,
// e^r = p = ph + pl: d = 1 + 2^k p for k <= 0, 2^-k + p for k > 0 (2^-k
// capped at 2^-100), a float-float dh + dl (Fast2Sum); the residual
// 1 - q dh is exact in an fma, and c = 1 - q (dh + dl), so that
// 1/d = q (1 + c + O(c^2)).
template <class DF>
struct RecipOnePlusExp {
  hn::VFromD<DF> q, c;
  hn::VFromD<hn::RebindToSigned<DF>> m;
  hn::VFromD<DF> ph, pl, pk;  // e^r = ph + pl; pk = 2^k for k <= 0
};
template <class DF>
HWY_INLINE RecipOnePlusExp<DF> SigmoidCore(DF df, const ExpPartsF<DF>& e) {
  using VF = hn::VFromD<DF>;
  const hn::RebindToSigned<DF> di;
  const VF one = hn::Set(df, 1.0f);
  const auto kpos = hn::Gt(e.ki, hn::Zero(di));
  const auto kposf = hn::RebindMask(df, kpos);
  // 2^k for k <= 0 (k >= -29), 2^-min(k, 100) for k > 0.
  const auto kneg_i = hn::IfThenElse(kpos, hn::Neg(hn::Min(e.ki, hn::Set(di, 100))), e.ki);
  const VF pk = hn::BitCast(df, hn::ShiftLeft<23>(hn::Add(kneg_i, hn::Set(di, 127))));
  const VF A = hn::IfThenElse(kposf, pk, one);
  const VF B = hn::IfThenElse(kposf, one, pk);
  // p = ph + pl normalized (Fast2Sum: |lo| < s1).
  const VF ph = hn::Add(e.s1, e.lo);
  const VF pl = hn::Add(hn::Sub(e.s1, ph), e.lo);
  const VF T = hn::Mul(B, ph);  // exact
  const VF dh = hn::Add(A, T);
  // A + T - dh (Fast2Sum, the larger first), then B pl.
  const VF dl0 = hn::IfThenElse(kposf, hn::Add(hn::Sub(T, dh), A), hn::Add(hn::Sub(A, dh), T));
  const VF dl = MulAddF(df, B, pl, dl0);
  const VF q = hn::Div(one, dh);
  const VF c = NegMulAddF(df, q, dl, NegMulAddF(df, q, dh, one));
  return {q, c, hn::IfThenElseZero(kpos, e.ki), ph, pl, B};
}
template <class DF>
HWY_INLINE RecipOnePlusExp<DF> SigmoidCore(DF df, hn::VFromD<DF> y) {
  return SigmoidCore(df, ExpCoreF(df, y));
}

// (nh + nl) q (1 + c), unscaled (|nl| tiny against nh): a = nh q rounded,
// b = nh q - a exact in an fma, then a + (b + nl q + a c), one rounding in
// the outer sum.
template <class DF>
HWY_INLINE hn::VFromD<DF> TimesRecip(DF df, hn::VFromD<DF> nh, hn::VFromD<DF> nl,
                                     const RecipOnePlusExp<DF>& s) {
  const auto a = hn::Mul(nh, s.q);
  const auto b = MulAddF(df, nh, s.q, hn::Neg(a));
  return hn::Add(a, MulAddF(df, a, s.c, MulAddF(df, nl, s.q, b)));
}

}  // namespace f32detail

// ---------------------------------------------------------------------------
// Exponentials

// e^r for |r| <= 0.3476 as p = 1 + t, t = r + r^2 Q(r) in fmas: the
// error of t (its rounding, r's rounding, Q's 2^-26.7) stays below 2^-25.4
// absolute, so that p, rounded once, is within 1 ulp of the correctly
// rounded e^r (tests/math_f32_exhaustive.cc: all 2^32 inputs).
template <class DF>
HWY_INLINE hn::VFromD<DF> ExpReducedFma(DF df, hn::VFromD<DF> r, hn::VFromD<DF> rl) {
  namespace f = f32detail;
  const auto q = f::HornerFromFma<0>(df, r, f::kExpQf);
  return hn::Add(hn::Set(df, 1.0f), hn::Add(r, MulAddF(df, hn::Mul(r, r), q, rl)));
}

// p 2^k for p in [0.7, 1.42] and float32 k (int32 ki) in [-151, 129]: in
// the exponent field where every lane is normal, else in two multiplies
// (exact, then one rounding: overflow, subnormal results). NaN x stays NaN.
template <class DF>
HWY_INLINE hn::VFromD<DF> ScaleExpF(DF df, hn::VFromD<DF> x, hn::VFromD<DF> p, hn::VFromD<DF> k,
                                    hn::VFromD<hn::RebindToSigned<DF>> ki) {
  namespace f = f32detail;
  const hn::RebindToSigned<DF> di;
  hn::VFromD<DF> r;
  const auto normal = hn::And(hn::Ge(k, hn::Set(df, -125.0f)), hn::Le(k, hn::Set(df, 127.0f)));
  if (HWY_LIKELY(hn::AllTrue(df, hn::Or(normal, hn::IsNaN(x))))) {
    r = hn::BitCast(df, hn::Add(hn::BitCast(di, p), hn::ShiftLeft<23>(ki)));
  } else {
    r = f::ScaleF(df, p, ki);
  }
  return f::KeepNaN(df, x, r);
}

// In fmas (MulAddF): k = round(x / ln2), r = x - k ln2 as x - k kLn2Hi
// (exact: a multiple of 2^-25 below 0.35) minus k kLn2Lo, rounded once;
// e^r by ExpReducedFma; times 2^k.
template <class DF>
HWY_INLINE hn::VFromD<DF> ExpF32(DF df, hn::VFromD<DF> x) {
  namespace f = f32detail;
  using VF = hn::VFromD<DF>;
  const hn::RebindToSigned<DF> di;
  // Beyond: inf (e^89 > 2^128) and 0 (e^-104 < 2^-150).
  const VF xc = f::Clamp(df, x, -104.0f, 89.0f);
  const VF magic = hn::Set(df, f::kRoundMagicF);
  const VF kb = MulAddF(df, xc, hn::Set(df, f::kInvLn2F), magic);
  const VF k = hn::Sub(kb, magic);
  const VF rh = NegMulAddF(df, k, hn::Set(df, f::kLn2Hi), xc);
  const VF r = NegMulAddF(df, k, hn::Set(df, f::kLn2Lo), rh);
  const auto ki = hn::Sub(hn::BitCast(di, kb), hn::BitCast(di, magic));
  return ScaleExpF(df, x, ExpReducedFma(df, r, hn::Zero(df)), k, ki);
}

// In fmas: k = round(x), v = x - k (exact, |v| <= 1/2), v ln2 = r + rl
// (r = v kLn2Hi rounded, rl its error, exact in an fma, plus v kLn2Lo);
// e^(r + rl) by ExpReducedFma; times 2^k. x > 129: inf, x < -151: 0.
template <class DF>
HWY_INLINE hn::VFromD<DF> Exp2F32(DF df, hn::VFromD<DF> x) {
  namespace f = f32detail;
  using VF = hn::VFromD<DF>;
  const hn::RebindToSigned<DF> di;
  const VF xc = f::Clamp(df, x, -151.0f, 129.0f);
  const VF magic = hn::Set(df, f::kRoundMagicF);
  const VF kb = hn::Add(xc, magic);
  const VF k = hn::Sub(kb, magic);
  const VF v = hn::Sub(xc, k);
  const VF hi = hn::Set(df, f::kLn2Hi);
  const VF r = hn::Mul(v, hi);
  const VF rl = MulAddF(df, v, hn::Set(df, f::kLn2Lo), MulAddF(df, v, hi, hn::Neg(r)));
  const auto ki = hn::Sub(hn::BitCast(di, kb), hn::BitCast(di, magic));
  return ScaleExpF(df, x, ExpReducedFma(df, r, rl), k, ki);
}

// Native float32 (ExpCoreF): e^x - 1 = rh + small for k = 0; for k in
// [-26, 24] 2^k ph - 1 by Fast2Sum (2^k ph exact), plus 2^k pl, one
// rounding; for k > 24 the -1 is below half an ulp: e^x as in ExpF32.
// x < -18 gives -1 (e^x < 2^-25), x > 89 inf.
template <class DF>
HWY_INLINE hn::VFromD<DF> Expm1F32(DF df, hn::VFromD<DF> x) {
  namespace f = f32detail;
  using VF = hn::VFromD<DF>;
  const hn::RebindToSigned<DF> di;
  const f::ExpPartsF<DF> e = f::ExpCoreF(df, f::Clamp(df, x, -18.0f, 89.0f));
  const VF one = hn::Set(df, 1.0f);
  const VF ph = hn::Add(e.s1, e.lo);
  const VF pl = hn::Add(hn::Sub(e.s1, ph), e.lo);
  const auto kmid = hn::Lt(e.ki, hn::Set(di, 25));
  const auto kc = hn::IfThenElse(kmid, e.ki, hn::Zero(di));
  const VF pk = hn::BitCast(df, hn::ShiftLeft<23>(hn::Add(kc, hn::Set(di, 127))));
  const VF T = hn::Mul(pk, ph);
  const VF S = hn::Sub(T, one);
  const auto kposf = hn::RebindMask(df, hn::Gt(e.ki, hn::Zero(di)));
  const VF err = hn::IfThenElse(kposf, hn::Sub(hn::Sub(T, S), one), hn::Add(hn::Sub(hn::Neg(one), S), T));
  const VF mid = hn::Add(S, hn::Add(err, hn::Mul(pk, pl)));
  const VF k0 = hn::Add(e.rh, e.small);
  VF r = hn::IfThenElse(hn::RebindMask(df, hn::Eq(e.ki, hn::Zero(di))), k0, mid);
  if (HWY_UNLIKELY(!hn::AllTrue(df, hn::RebindMask(df, kmid)))) {
    r = hn::IfThenElse(hn::RebindMask(df, kmid), r, f::ScaleF(df, ph, e.ki));
  }
  return f::KeepZero(df, x, f::KeepNaN(df, x, r));
}

// ---------------------------------------------------------------------------
// Logarithms

namespace f32detail {

// Native float32 logarithms in fmas: x = 2^e (1 + f), f in [A, B] =
// [0x1.6a09e6p-1 - 1, 0x1.6a09e6p0 - 1] (about [-0.2929, 0.4142]).
// Polynomials from tools/fit_math_f32.py (weighted near-minimax, float32
// coefficients), errors relative to the result for e = 0.
// log1p(f) = f + f^2 Q(f), Q(0) = -1/2 exactly (so that small f, every
// small log1p argument, get errors far below the worst): 2^-27.4.
constexpr float kLogQf[9] = {
    -0x1p-1f,        0x1.555554p-2f,  -0x1.000226p-2f, 0x1.99a01cp-3f, -0x1.54728ap-3f,
    0x1.22d92ep-3f,  -0x1.0d8242p-3f, 0x1.055ec6p-3f,  -0x1.38c9dep-4f,
};
// log2(1 + f) = f kInvLn2F + f R(f), R(0) = 1/ln2 - kInvLn2F: 2^-27.7.
constexpr float kLog2Rf[10] = {
    0x1.4ae0cp-26f,  -0x1.71547p-1f,  0x1.ec7094p-2f,  -0x1.715afep-2f, 0x1.277f44p-2f,
    -0x1.eaa24ap-3f, 0x1.a2c9dcp-3f,  -0x1.87f7eep-3f, 0x1.7f281ep-3f,  -0x1.c39b94p-4f,
};
// log10(1 + f) = f kInvLn10F + f R(f), R(0) = 1/ln10 - kInvLn10F: 2^-27.7.
constexpr float kLog10Rf[10] = {
    -0x1.5b235ep-27f, -0x1.bcb7aap-3f, 0x1.287a7p-3f,   -0x1.bcbf52p-4f, 0x1.63d068p-4f,
    -0x1.276a48p-4f,  0x1.f84c1ap-5f,  -0x1.d7938ep-5f, 0x1.cd07cap-5f,  -0x1.108156p-5f,
};
constexpr float kInvLn10F = 0x1.bcb7b2p-2f;    // 1/ln10 rounded
constexpr float kLog10_2F1 = 0x1.344p-2f;      // log10(2), 11 bits: e kLog10_2F1 exact
constexpr float kLog10_2F2 = 0x1.3509f8p-18f;  // log10(2) - kLog10_2F1, rounded
constexpr int32_t kSqrtHalfBits = 0x3f3504f3;  // 0x1.6a09e6p-1 (sqrt(1/2) rounded)

template <class DF>
struct LogArgF {
  hn::VFromD<DF> e, f;                     // x = 2^e (1 + f), f exact
  hn::VFromD<hn::RebindToSigned<DF>> ei;  // e as int32
};
// For positive normal finite x (other lanes: garbage): m = 1 + f in
// [sqrt(1/2), sqrt(2)) from the bits, f = m - 1 exact (Sterbenz).
template <class DF>
HWY_INLINE LogArgF<DF> LogArgOf(DF df, hn::VFromD<DF> x) {
  const hn::RebindToSigned<DF> di;
  const auto t = hn::Sub(hn::BitCast(di, x), hn::Set(di, kSqrtHalfBits));
  const auto ei = hn::ShiftRight<23>(t);
  const auto mb = hn::Add(hn::And(t, hn::Set(di, 0x007fffff)), hn::Set(di, kSqrtHalfBits));
  return {hn::ConvertTo(df, ei), hn::Sub(hn::BitCast(df, mb), hn::Set(df, 1.0f)), ei};
}

// core(LogArgOf(x)) where every lane is a positive normal finite float
// (the branch-free main path); else (some lane is subnormal, zero,
// negative, inf or NaN) subnormals scaled by 2^23 first and FixLog's
// special values.
template <class DF, class Core>
HWY_INLINE hn::VFromD<DF> LogDispatchF(DF df, hn::VFromD<DF> x, const Core& core) {
  const auto normal = hn::And(hn::Ge(x, hn::Set(df, 0x1p-126f)), hn::Lt(x, hn::Set(df, kInfF)));
  if (HWY_LIKELY(hn::AllTrue(df, normal))) return core(LogArgOf(df, x));
  const auto sub = hn::Lt(x, hn::Set(df, 0x1p-126f));
  LogArgF<DF> a = LogArgOf(df, hn::IfThenElse(sub, hn::Mul(x, hn::Set(df, 0x1p23f)), x));
  a.e = hn::Sub(a.e, hn::IfThenElseZero(sub, hn::Set(df, 23.0f)));
  return FixLog(df, x, core(a));
}

// log(x) = S + lo with S = e kLn2F1 + f rounded (e kLn2F1 exact: 8 by 13
// bits) and lo = its error (Fast2Sum: |e kLn2F1| >= 0.69 > |f| unless
// e = 0, where S = f), plus e kLn2F2 and, where kD (Log1pSumF), log1p of
// d / (1 + f) for |d| <= ulp(f) as d (1 - f)(1 + f^2) (the series of
// 1 / (1 + f) to f^3: 2^-5.6 relative, below 0.04 ulp), f^2 Q(f) in the
// last fma. Worst near |log(x)| = 0.3466 (ulp
// 2^-25): f^2 rounded (2^-24 of |f^2 Q| <= 0.068: 0.14 ulp), Q's last
// rounding (0.08 ulp), Q's fit (0.05 ulp), lo's rounding (0.13 ulp): below
// 0.4 ulp before the last rounding.
// (As S + t unrounded, for callers that add more before the one rounding.)
template <class DF>
struct SumF {
  hn::VFromD<DF> s, t;
};
template <bool kD, class DF>
HWY_INLINE SumF<DF> LogSumPartsF(DF df, hn::VFromD<DF> e, hn::VFromD<DF> f,
                                 hn::VFromD<DF> d) {
  using VF = hn::VFromD<DF>;
  const VF t = hn::Mul(e, hn::Set(df, kLn2F1));  // exact
  const VF S = hn::Add(t, f);
  VF lo = hn::Add(hn::Sub(t, S), f);
  const VF f2 = hn::Mul(f, f);
  if constexpr (kD) {
    const VF omf = hn::Sub(hn::Set(df, 1.0f), f);
    lo = MulAddF(df, d, MulAddF(df, omf, f2, omf), lo);
  }
  lo = MulAddF(df, e, hn::Set(df, kLn2F2), lo);
  const VF q = HornerFromFma<0>(df, f, kLogQf);
  return {S, MulAddF(df, f2, q, lo)};
}
template <bool kD, class DF>
HWY_INLINE hn::VFromD<DF> LogSumF(DF df, hn::VFromD<DF> e, hn::VFromD<DF> f,
                                  hn::VFromD<DF> d) {
  const SumF<DF> p = LogSumPartsF<kD>(df, e, f, d);
  return hn::Add(p.s, p.t);
}

// log_b(x) = e (A1 + A2) + f C + f R(f) (C = 1/ln(b) rounded, A1 of at
// most 11 bits): f C = hi + hl (hl exact in an fma), S = e A1 + hi
// (Fast2Sum: |e A1| >= 0.30 > |hi| unless e = 0) plus its error, hl,
// e A2 and f R(f) in the last fma; one rounding. Worst for log2 near
// x = sqrt(2) (result just below 1/2, ulp 2^-25): R's inner Horner value
// (about -0.57, ulp 2^-24) times f^2, R's and lo's last roundings and the
// fit add up to about 0.4 ulp before the last rounding (test_math_exp_f32
// measures 0.90 ulp from the exact log2 at most, 0.78 for log10).
template <class DF, size_t N>
HWY_INLINE hn::VFromD<DF> LogBaseSumF(DF df, hn::VFromD<DF> e, hn::VFromD<DF> f, float a1,
                                      float a2, float c, const float (&r)[N]) {
  using VF = hn::VFromD<DF>;
  const VF t = hn::Mul(e, hn::Set(df, a1));  // exact
  const VF nh = hn::Mul(f, hn::Set(df, -c));  // -hi
  const VF hl = MulAddF(df, f, hn::Set(df, c), nh);  // f c - hi, exact
  const VF S = hn::Sub(t, nh);
  const VF err = hn::Sub(hn::Sub(t, S), nh);
  VF lo = hn::Add(hl, err);
  if (a2 != 0.0f) lo = MulAddF(df, e, hn::Set(df, a2), lo);
  return hn::Add(S, MulAddF(df, f, HornerFromFma<0>(df, f, r), lo));
}

}  // namespace f32detail

// Native float32 in fmas (f32detail::LogSumF).
template <class DF>
HWY_INLINE hn::VFromD<DF> LogF32(DF df, hn::VFromD<DF> x) {
  namespace f = f32detail;
  return f::LogDispatchF(df, x, [df](const f::LogArgF<DF>& a) {
    return f::LogSumF<false>(df, a.e, a.f, a.f);  // (no d)
  });
}

// Native float32 in fmas (f32detail::LogBaseSumF): A = 1, C = 1/ln2.
template <class DF>
HWY_INLINE hn::VFromD<DF> Log2F32(DF df, hn::VFromD<DF> x) {
  namespace f = f32detail;
  return f::LogDispatchF(df, x, [df](const f::LogArgF<DF>& a) {
    return f::LogBaseSumF(df, a.e, a.f, 1.0f, 0.0f, f::kInvLn2F, f::kLog2Rf);
  });
}

// Native float32 in fmas (f32detail::LogBaseSumF): A = log10(2), C = 1/ln10.
template <class DF>
HWY_INLINE hn::VFromD<DF> Log10F32(DF df, hn::VFromD<DF> x) {
  namespace f = f32detail;
  return f::LogDispatchF(df, x, [df](const f::LogArgF<DF>& a) {
    return f::LogBaseSumF(df, a.e, a.f, f::kLog10_2F1, f::kLog10_2F2, f::kInvLn10F,
                          f::kLog10Rf);
  });
}

namespace f32detail {

// log1p(xh + xl) for finite xh > -1 and |xl| <= ulp(xh) (xl only where
// kXl): u = 1 + xh rounded, c = 1 + xh - u exact (TwoSum), plus xl (its
// rounding is 2^-24 of a term below ulp(u)); u = 2^e (1 + f) (LogArgOf),
// so 1 + xh + xl = 2^e (1 + f + cs) with cs = c 2^-e exact (2^-e as bits,
// taken as 0 for e >= 127 where cs is negligible). f + cs = g + d by
// Fast2Sum (|cs| < |f| unless f = 0, or e != 0 and a d error far below the
// result's ulp): g = xh exactly where e = 0 and xl is absent (the bulk of
// log1p's inputs, and every small x); else |d| <= ulp(g). Then
// log1p = e ln2 + log1p(g) + log1p(d / (1 + g)) (LogSumF).
template <bool kXl, class DF>
HWY_INLINE SumF<DF> Log1pSumPartsF(DF df, hn::VFromD<DF> xh, hn::VFromD<DF> xl) {
  using VF = hn::VFromD<DF>;
  const hn::RebindToSigned<DF> di;
  const VF one = hn::Set(df, 1.0f);
  const VF u = hn::Add(one, xh);
  const VF bb = hn::Sub(u, xh);
  VF c = hn::Add(hn::Sub(xh, hn::Sub(u, bb)), hn::Sub(one, bb));
  if constexpr (kXl) c = hn::Add(c, xl);
  const LogArgF<DF> a = LogArgOf(df, u);
  const auto sbits = hn::Max(hn::Sub(hn::Set(di, 127), a.ei), hn::Zero(di));
  const VF cs = hn::Mul(c, hn::BitCast(df, hn::ShiftLeft<23>(sbits)));
  const VF g = hn::Add(a.f, cs);
  const VF d = hn::Add(hn::Sub(a.f, g), cs);
  return LogSumPartsF<true>(df, a.e, g, d);
}
template <bool kXl, class DF>
HWY_INLINE hn::VFromD<DF> Log1pSumF(DF df, hn::VFromD<DF> xh, hn::VFromD<DF> xl) {
  const SumF<DF> p = Log1pSumPartsF<kXl>(df, xh, xl);
  return hn::Add(p.s, p.t);
}

}  // namespace f32detail

// Native float32 in fmas (f32detail::Log1pSumF). The sign is x's
// (log1p(-0) = -0; no other result is near 0). x > -1 finite in the main
// path; else the special values by selects.
template <class DF>
HWY_INLINE hn::VFromD<DF> Log1pF32(DF df, hn::VFromD<DF> x) {
  namespace f = f32detail;
  using VF = hn::VFromD<DF>;
  const VF m1 = hn::Set(df, -1.0f);
  const VF inf = hn::Set(df, f::kInfF);
  const auto ok = hn::And(hn::Gt(x, m1), hn::Lt(x, inf));
  const bool all_ok = hn::AllTrue(df, ok);
  const VF xi = HWY_LIKELY(all_ok) ? x : hn::IfThenElseZero(ok, x);
  VF r = hn::CopySign(f::Log1pSumF<false>(df, xi, xi), x);
  if (HWY_UNLIKELY(!all_ok)) {
    r = hn::IfThenElse(hn::Eq(x, inf), x, r);
    r = hn::IfThenElse(hn::Eq(x, m1), hn::Set(df, -f::kInfF), r);
    r = hn::IfThenElse(hn::Not(hn::Ge(x, m1)), f::NaNF(df), r);
  }
  return r;
}

// ---------------------------------------------------------------------------
// Hyperbolic functions

template <class DF>
HWY_INLINE hn::VFromD<DF> SinhF32(DF df, hn::VFromD<DF> x) {
  const auto r = f32detail::ViaF64(df, x, [](auto d, auto v) {
    using V = decltype(v);
    const V a = f32detail::Clamp(d, hn::Abs(v), 0.0, 200.0);
    const V e = f32detail::Expm1From(d, f32detail::ExpCore(d, a));  // e^a - 1
    // sinh(a) = (e + e / (e + 1)) / 2, no cancellation; e + 1 capped at
    // 2^60 for the reciprocal (the term is then 2^-60 of e).
    const V den = f32detail::Clamp(d, hn::Add(e, hn::Set(d, 1.0)), 1.0, 0x1p60);
    const V s = hn::Mul(hn::Add(e, hn::Mul(e, f32detail::Recip(d, den))), hn::Set(d, 0.5));
    return hn::CopySignToAbs(s, v);
  });
  return f32detail::KeepZero(df, x, f32detail::KeepNaN(df, x, r));
}

template <class DF>
HWY_INLINE hn::VFromD<DF> CoshF32(DF df, hn::VFromD<DF> x) {
  const auto r = f32detail::ViaF64(df, x, [](auto d, auto v) {
    using V = decltype(v);
    const V e = f32detail::Exp64(d, f32detail::Clamp(d, hn::Abs(v), 0.0, 200.0));
    const V h = hn::Set(d, 0.5);
    // 1/e capped (e at 2^60: 2^-120 of the result).
    const V ec = f32detail::Clamp(d, e, 1.0, 0x1p60);
    return hn::Add(hn::Mul(e, h), hn::Mul(h, f32detail::Recip(d, ec)));
  });
  return f32detail::KeepNaN(df, x, r);
}

// tanh(a) - a = a z P(z) on a = |x| < 1, z = a^2: P of degree 7 in float32
// (tools/fit_math_f32.py), relative error 2^-30.9 against tanh(a).
constexpr float kTanhPf[8] = {
    -0x1.555552p-2f, 0x1.11103cp-3f, -0x1.b9f6dap-5f, 0x1.64c044p-6f,
    -0x1.18db62p-7f, 0x1.8f860ep-9f, -0x1.ae8c22p-11f, 0x1.e76a14p-14f,
};

// 1/(1 + w) on w in [0, e^-2] (TanhF32): max relative error 2^-28.7.
constexpr float kRecipOnePlusWf[6] = {
    0x1p+0f, -0x1.ffffe6p-1f, 0x1.fff54ap-1f, -0x1.fe8d5cp-1f, 0x1.e9bc3ep-1f, -0x1.5dd2d4p-1f,
};

// Native float32 in fmas, plain roundings (no float-float steps), a = |x|:
//  * a < 1: a + (a z) P(z), rounded once in the fma; the roundings of z,
//    a z and P act on a term below 0.24 a.
//  * a >= 1 (a clamped to 9.1, where 1 - tanh < 2^-25): 1 - 2w / (1 + w),
//    w = e^-2a = 2^k (1 + u) (k = round(-2a / ln2), the reduced argument
//    in two fmas, e^r by ExpReducedFma as in ExpF32; k in [-26, 0]),
//    1 / (1 + w) a polynomial in w <= e^-2 (kRecipOnePlusWf: no division,
//    which cost a third of the time on the Intel Xeon VM), and 1 - 2w R(w)
//    rounded once in an fma. 2w / (1 + w) <= 0.24, so the roundings of w and
//    R, relative to it, stay well below an ulp of the result in [0.76, 1).
// Measured on all 2^32 inputs (tests/math_f32_exhaustive.cc): at most
// 0.89 ulp from the exact tanh (below a = 1), so within 1 ulp of the
// correctly rounded result; 2.6 million results not correctly rounded. The
// boundary at 1 keeps both errors small: at 0.9 (a degree-6 P) with a
// division the maximum was 1.23 ulp. The float-float form this replaced
// (ExpCoreF and SigmoidCore) was below 0.6 ulp at 2.2x the time. Sign of x
// on the result (tanh(-0) = -0); NaN gives itself.
template <class DF>
HWY_INLINE hn::VFromD<DF> TanhF32(DF df, hn::VFromD<DF> x) {
  namespace f = f32detail;
  using VF = hn::VFromD<DF>;
  const hn::RebindToSigned<DF> di;
  const VF one = hn::Set(df, 1.0f);
  const VF a = hn::Abs(x);
  const VF z = hn::Mul(a, a);
  const VF small = MulAddF(df, hn::Mul(a, z), f::HornerFromFma<0>(df, z, kTanhPf), a);
  const VF lim = hn::Set(df, 9.1f);
  const VF ac = hn::IfThenElse(hn::Gt(a, lim), lim, a);
  const VF magic = hn::Set(df, f::kRoundMagicF);
  const VF kb = MulAddF(df, ac, hn::Set(df, -2.0f * f::kInvLn2F), magic);
  const VF k = hn::Sub(kb, magic);
  // -2a - k kLn2Hi is exact (see ExpF32); then the low part of ln2.
  const VF t0 = NegMulAddF(df, k, hn::Set(df, f::kLn2Hi), hn::Mul(ac, hn::Set(df, -2.0f)));
  const VF t = NegMulAddF(df, k, hn::Set(df, f::kLn2Lo), t0);
  const auto ki = hn::Sub(hn::BitCast(di, kb), hn::BitCast(di, magic));
  const VF p = ExpReducedFma(df, t, hn::Zero(df));
  const VF w = hn::BitCast(df, hn::Add(hn::BitCast(di, p), hn::ShiftLeft<23>(ki)));
  const VF big = NegMulAddF(df, hn::Add(w, w), f::HornerFromFma<0>(df, w, kRecipOnePlusWf), one);
  const VF r = hn::IfThenElse(hn::Lt(a, one), small, big);
  return f::KeepNaN(df, x, hn::CopySignToAbs(r, x));
}

template <class DF>
HWY_INLINE hn::VFromD<DF> AsinhF32(DF df, hn::VFromD<DF> x) {
  using VF = hn::VFromD<DF>;
  VF r = f32detail::ViaF64(df, x, [](auto d, auto v) {
    using V = decltype(v);
    // a < 1: log1p(t), t = a + a^2 / (1 + sqrt(1 + a^2)) (a^2 exact);
    // a >= 1: log(a + sqrt(1 + a^2)), whose argument's rounding costs 2^-53
    // absolute against a result above 0.88.
    const V a = hn::Abs(v);
    const V one = hn::Set(d, 1.0);
    const V a2 = hn::Mul(a, a);
    const V sq = hn::Sqrt(hn::Add(one, a2));
    const auto small = hn::Lt(a, one);
    const V t = hn::Add(a, hn::Mul(a2, f32detail::Recip(d, hn::Add(one, sq))));
    const V u = hn::IfThenElse(small, hn::Add(one, t), hn::Add(a, sq));
    const V c = hn::IfThenElseZero(small, hn::Sub(t, hn::Sub(u, one)));
    return hn::CopySignToAbs(hn::Add(f32detail::Log64(d, u), c), v);
  });
  r = hn::IfThenElse(hn::IsInf(x), x, r);
  return f32detail::KeepZero(df, x, f32detail::KeepNaN(df, x, r));
}

template <class DF>
HWY_INLINE hn::VFromD<DF> AcoshF32(DF df, hn::VFromD<DF> x) {
  using VF = hn::VFromD<DF>;
  VF r = f32detail::ViaF64(df, x, [](auto d, auto v) {
    using V = decltype(v);
    // log(x + sqrt(x^2 - 1)); x^2 is exact, x^2 - 1 exact for x < 2. Near
    // x = 1 the argument's rounding (2^-53 absolute) is below 2^-40 of the
    // result (>= 2^-11.5).
    const V xi = f32detail::Clamp(d, v, 1.0, f32detail::kInf);
    const V s = hn::Sqrt(hn::Sub(hn::Mul(xi, xi), hn::Set(d, 1.0)));
    return f32detail::Log64(d, hn::Add(xi, s));
  });
  const VF one = hn::Set(df, 1.0f);
  r = hn::IfThenElse(hn::Eq(x, hn::Set(df, f32detail::kInfF)), x, r);
  return hn::IfThenElse(hn::Not(hn::Ge(x, one)), f32detail::NaNF(df), r);
}

// Native float32 in fmas: atanh(a) = log1p(t) / 2, t = 2a / (1 - a),
// a = |x| < 1. 1 - a = den + dl exactly (Fast2Sum; dl = 0 for a >= 1/2);
// th = 2a / den rounded, rem = 2a - th den exact (fma), so t = th + tl with
// tl = (rem - th dl) / (1 - a) = (rem - th dl)(1 + t / 2), taken with th
// for t (its relative error 2^-24 costs 2^-47 of th); log1p(th + tl) by
// Log1pSumF; the sign is x's (atanh(-0) = -0). |x| = 1: +-inf; |x| > 1 or
// NaN: NaN (selects only where a vector holds one).
template <class DF>
HWY_INLINE hn::VFromD<DF> AtanhF32(DF df, hn::VFromD<DF> x) {
  namespace f = f32detail;
  using VF = hn::VFromD<DF>;
  const VF one = hn::Set(df, 1.0f);
  const VF a = hn::Abs(x);
  const auto ok = hn::Lt(a, one);
  const bool all_ok = hn::AllTrue(df, ok);
  const VF ai = HWY_LIKELY(all_ok) ? a : hn::IfThenElseZero(ok, a);
  const VF den = hn::Sub(one, ai);
  const VF dl = hn::Sub(hn::Sub(one, den), ai);
  const VF num = hn::Add(ai, ai);
  const VF th = hn::Div(num, den);
  const VF rem = NegMulAddF(df, th, den, num);
  const VF eps = NegMulAddF(df, th, dl, rem);
  const VF tl = MulAddF(df, eps, hn::Mul(th, hn::Set(df, 0.5f)), eps);
  VF r = hn::CopySign(hn::Mul(f::Log1pSumF<true>(df, th, tl), hn::Set(df, 0.5f)), x);
  if (HWY_UNLIKELY(!all_ok)) {
    r = hn::IfThenElse(hn::Eq(a, one), hn::CopySignToAbs(hn::Set(df, f::kInfF), x), r);
    r = hn::IfThenElse(hn::Not(hn::Le(a, one)), f::NaNF(df), r);
  }
  return r;
}

// ---------------------------------------------------------------------------
// Activations

// Native float32: 1 / (1 + e^-x) = q (1 + c) 2^-m (SigmoidCore), rounded
// once in fma(q, c, q) (then exactly scaled, or once more to a subnormal).
template <class DF>
HWY_INLINE hn::VFromD<DF> SigmoidF32(DF df, hn::VFromD<DF> x) {
  namespace f = f32detail;
  using VF = hn::VFromD<DF>;
  // -x < -20: 1 - 2^-28.8 and above, rounds to 1; -x > 110: below 2^-158.
  const f::RecipOnePlusExp<DF> s = f::SigmoidCore(df, f::Clamp(df, hn::Neg(x), -20.0f, 110.0f));
  const VF q = MulAddF(df, s.q, s.c, s.q);
  return f::KeepNaN(df, x, f::ScaleDownF(df, q, s.m));
}

// log(x / (1 - x)) for x in [0, 1]; 0 -> -inf, 1 -> inf, else NaN.
// Native float32 in fmas: q = x / (1 - x) as a float-float qh + ql, then
// log(qh + ql) as Log1pSumF takes log1p's: 1 - x = den + dl exactly
// (Fast2Sum; dl = 0 for x >= 1/2), qh = x / den rounded, rem = x - qh den
// exact (fma), so q = qh + (rem - qh dl) / (1 - x) and 1 / (1 - x) = 1 + q:
// ql = eps (1 + qh), eps = rem - qh dl (|ql| <= about ulp(qh); its error
// near 2^-24 of itself). qh = 2^e (1 + f) (LogArgOf, f exact), f + ql 2^-e
// = g + d (TwoSum: f may be smaller than ql 2^-e near x = 1/2), then
// LogSumF's e ln2 + log1p(g) + d / (1 + g): below 0.4 ulp before the last
// rounding, also near x = 1/2 where g = qh - 1 carries the cancellation
// exactly. x < 2^-60 (subnormals too): q = x to 2^-60, so log(x 2^64) -
// 64 ln2, in the branch taken only where a vector holds such a lane or a
// special value.
template <class DF>
HWY_INLINE hn::VFromD<DF> LogitF32(DF df, hn::VFromD<DF> x) {
  namespace f = f32detail;
  using VF = hn::VFromD<DF>;
  const hn::RebindToSigned<DF> di;
  const VF one = hn::Set(df, 1.0f);
  const VF tiny = hn::Set(df, 0x1p-60f);
  const auto ok = hn::And(hn::Ge(x, tiny), hn::Lt(x, one));
  const bool all_ok = hn::AllTrue(df, ok);
  const VF xi = HWY_LIKELY(all_ok) ? x : hn::IfThenElse(ok, x, hn::Set(df, 0.25f));
  const VF den = hn::Sub(one, xi);
  const VF dl = hn::Sub(hn::Sub(one, den), xi);
  const VF qh = hn::Div(xi, den);
  const VF rem = NegMulAddF(df, qh, den, xi);
  const VF eps = NegMulAddF(df, qh, dl, rem);
  const VF ql = MulAddF(df, eps, qh, eps);
  const f::LogArgF<DF> a = f::LogArgOf(df, qh);  // e in [-60, 24]
  const VF inv2e = hn::BitCast(df, hn::ShiftLeft<23>(hn::Sub(hn::Set(di, 127), a.ei)));
  const VF cs = hn::Mul(ql, inv2e);
  const VF g = hn::Add(a.f, cs);
  const VF gb = hn::Sub(g, a.f);
  const VF d = hn::Add(hn::Sub(a.f, hn::Sub(g, gb)), hn::Sub(cs, gb));
  VF r = f::LogSumF<true>(df, a.e, g, d);
  if (HWY_UNLIKELY(!all_ok)) {
    const VF zero = hn::Zero(df);
    const auto small = hn::And(hn::Gt(x, zero), hn::Lt(x, tiny));
    f::LogArgF<DF> s = f::LogArgOf(df, hn::IfThenElse(small, hn::Mul(x, hn::Set(df, 0x1p64f)), one));
    s.e = hn::Sub(s.e, hn::Set(df, 64.0f));
    r = hn::IfThenElse(small, f::LogSumF<false>(df, s.e, s.f, s.f), r);
    r = hn::IfThenElse(hn::Eq(x, zero), hn::Set(df, -f::kInfF), r);
    r = hn::IfThenElse(hn::Eq(x, one), hn::Set(df, f::kInfF), r);
    r = hn::IfThenElse(hn::Or(hn::Lt(x, zero), hn::Not(hn::Le(x, one))), f::NaNF(df), r);
  }
  return r;
}

// x / (1 + e^-x); -inf -> NaN (as the float64 Silu). Native float32: with
// 1 / (1 + e^-x) = q (1 + c) 2^-m (SigmoidCore), x q = a + b exactly (b in
// an fma), x sigmoid(x) = (a + (b + a c)) 2^-m, rounded once in the outer
// sum.
template <class DF>
HWY_INLINE hn::VFromD<DF> SiluF32(DF df, hn::VFromD<DF> x) {
  namespace f = f32detail;
  using VF = hn::VFromD<DF>;
  // x < -110: |x| e^x < 2^-150 (x = -110 gives -0 too); x > 20: x.
  const VF xc = f::Clamp(df, x, -110.0f, 20.0f);
  const f::RecipOnePlusExp<DF> s = f::SigmoidCore(df, hn::Neg(xc));
  const VF q = f::TimesRecip(df, xc, hn::Zero(df), s);
  // The sign of x also where q rounds to zero.
  VF r = hn::CopySign(f::ScaleDownF(df, q, s.m), xc);  // m > 0: |x| > 0.17, |q| > 2^-3
  r = hn::IfThenElse(hn::Gt(x, hn::Set(df, 20.0f)), x, r);
  r = hn::IfThenElse(hn::Eq(x, hn::Set(df, -f::kInfF)), f::NaNF(df), r);
  return f::KeepZero(df, x, f::KeepNaN(df, x, r));
}

namespace f32detail {

// softplus for beta = 1, native float32 in fmas: log1p(w) + max(x, 0),
// w = e^-|x| = 2^k (ph + pl) (ExpCoreF, relative error about 2^-27).
// |x| < 16 (k >= -23): log1p(2^k ph + 2^k pl) as S + t (Log1pSumPartsF,
// below 0.4 ulp before rounding), plus max(x, 0) by TwoSum, one rounding.
// Other lanes, in a branch taken only where a vector holds one: x >= 16
// gives x (w < 2^-23.08, below half of x's ulp); x <= -16 gives w (1 -
// w / 2) = 2^k (ph + (pl - ph w / 2)) scaled once (ScaleF: subnormal
// results round once; x < -104 gives 0). The threshold test and NaN as
// SoftplusF32.
template <class DF>
HWY_INLINE hn::VFromD<DF> SoftplusOneF32(DF df, hn::VFromD<DF> x) {
  using VF = hn::VFromD<DF>;
  const hn::RebindToSigned<DF> di;
  const VF y = Clamp(df, hn::Neg(hn::Abs(x)), -104.0f, 0.0f);
  const ExpPartsF<DF> e = ExpCoreF(df, y);  // k in [-150, 0]
  const VF ph = hn::Add(e.s1, e.lo);
  const VF pl = hn::Add(hn::Sub(e.s1, ph), e.lo);
  const auto near = hn::Gt(y, hn::Set(df, -16.0f));
  const bool all_near = hn::AllTrue(df, near);
  const auto kn = HWY_LIKELY(all_near) ? e.ki : hn::Max(e.ki, hn::Set(di, -23));
  const VF pk = hn::BitCast(df, hn::ShiftLeft<23>(hn::Add(kn, hn::Set(di, 127))));
  const SumF<DF> L = Log1pSumPartsF<true>(df, hn::Mul(ph, pk), hn::Mul(pl, pk));
  const VF xp = hn::Max(x, hn::Zero(df));
  const VF s = hn::Add(xp, L.s);
  const VF bb = hn::Sub(s, xp);
  const VF err = hn::Add(hn::Sub(xp, hn::Sub(s, bb)), hn::Sub(L.s, bb));
  VF r = hn::Add(s, hn::Add(err, L.t));
  if (HWY_UNLIKELY(!all_near)) {
    const auto k1 = hn::Max(hn::Sub(e.ki, hn::Set(di, 1)), hn::Set(di, -126));
    const VF half_w = hn::Mul(ph, hn::BitCast(df, hn::ShiftLeft<23>(hn::Add(k1, hn::Set(di, 127)))));
    const VF far = ScaleF(df, hn::Add(ph, NegMulAddF(df, ph, half_w, pl)), e.ki);
    r = hn::IfThenElse(near, r, hn::IfThenElse(hn::Gt(x, hn::Zero(df)), x, far));
  }
  return r;
}

}  // namespace f32detail

// PyTorch's softplus: x where x * beta (rounded to float32) > threshold, else
// log1p(e^(beta x)) / beta with beta x exact in float64. Assumes beta > 0.
// beta = 1: natively (f32detail::SoftplusOneF32); else through float64.
template <class DF>
HWY_INLINE hn::VFromD<DF> SoftplusF32(DF df, hn::VFromD<DF> x, float beta, float threshold) {
  using VF = hn::VFromD<DF>;
  if (beta == 1.0f) {
    const VF r = f32detail::SoftplusOneF32(df, x);
    return hn::IfThenElse(hn::Or(hn::Gt(x, hn::Set(df, threshold)), hn::IsNaN(x)), x, r);
  }
  const double b = beta;
  const double inv_b = 1.0 / b;  // relative error 2^-53
  VF r = f32detail::ViaF64(df, x, [b, inv_b](auto d, auto v) {
    using V = decltype(v);
    const V bv = hn::Set(d, b);
    // z + log1p(e^-|z|) for z > 0, log1p(e^z) else; z below -400 gives
    // e^z / beta < 2^-400 / 2^-149, zero in float32.
    const V z = f32detail::Clamp(d, hn::Mul(v, bv), -400.0, f32detail::kInf);
    const V w = f32detail::Exp64(d, f32detail::Clamp(d, hn::Neg(hn::Abs(z)), -400.0, 0.0));
    const V l = f32detail::Log1p64(d, w);
    const V s = hn::IfThenElse(hn::Gt(z, hn::Zero(d)), hn::Add(z, l), l);
    return hn::Mul(s, hn::Set(d, inv_b));
  });
  const auto ret_x = hn::Gt(hn::Mul(x, hn::Set(df, beta)), hn::Set(df, threshold));
  return hn::IfThenElse(hn::Or(ret_x, hn::IsNaN(x)), x, r);
}

// x tanh(log1p(e^x)) = x w(w+2) / (w(w+2) + 2), w = e^x; for x > 0 with
// w = e^-x: x (1 + 2w) / (1 + 2w + 2w^2). -inf -> NaN.
template <class DF>
HWY_INLINE hn::VFromD<DF> MishF32(DF df, hn::VFromD<DF> x) {
  using VF = hn::VFromD<DF>;
  VF r = f32detail::ViaF64(df, x, [](auto d, auto v) {
    using V = decltype(v);
    const V one = hn::Set(d, 1.0), two = hn::Set(d, 2.0);
    const V w = f32detail::Exp64(d, f32detail::Clamp(d, hn::Neg(hn::Abs(v)), -200.0, 0.0));
    const V w2 = hn::Add(w, w);
    const V n_neg = hn::Mul(w, hn::Add(w, two));
    const V n_pos = hn::Add(one, w2);
    const auto pos = hn::Gt(v, hn::Zero(d));
    const V num = hn::IfThenElse(pos, n_pos, n_neg);
    const V den = hn::IfThenElse(pos, hn::Add(n_pos, hn::Mul(w2, w)), hn::Add(n_neg, two));
    return hn::Mul(hn::Mul(v, num), f32detail::Recip(d, den));
  });
  r = hn::IfThenElse(hn::Eq(x, hn::Set(df, -f32detail::kInfF)), f32detail::NaNF(df), r);
  return f32detail::KeepNaN(df, x, r);
}

// x for x > 0, else alpha expm1(x) rounded once.
template <class DF>
HWY_INLINE hn::VFromD<DF> EluF32(DF df, hn::VFromD<DF> x, float alpha) {
  using VF = hn::VFromD<DF>;
  const double al = alpha;
  const VF r = f32detail::ViaF64(df, x, [al](auto d, auto v) {
    using V = decltype(v);
    const V xi = f32detail::Clamp(d, v, -200.0, 0.0);
    const V e = f32detail::Expm1From(d, f32detail::ExpCore(d, xi));
    // expm1(-0) = -0 (Expm1From gives +0).
    const V em = hn::IfThenElse(hn::Eq(xi, hn::Zero(d)), xi, e);
    return hn::Mul(em, hn::Set(d, al));
  });
  return hn::IfThenElse(hn::Or(hn::Gt(x, hn::Zero(df)), hn::IsNaN(x)), x, r);
}

// x / (1 + e^-z), z = 2y, y = sqrt(2/pi) (x + 0.044715 x^3); x > 10 gives
// x, x < -11 gives -0 (|x| e^z < 2^-155), -inf gives NaN. z is computed in
// float64 (relative error ~2^-51) and split into a float-float zh + zl (its
// error, up to 2^-44 absolute for |z| <= 113, moves sigmoid(z) by as
// little relative); then as SiluF32 with -z for -x: x q (1 + c) 2^-m.
template <class DF>
HWY_INLINE hn::VFromD<DF> GeluTanhF32(DF df, hn::VFromD<DF> x) {
  namespace f = f32detail;
  using VF = hn::VFromD<DF>;
  const VF xc = f::Clamp(df, x, -11.0f, 10.0f);
  VF zh, zl;
  f::SplitViaF64(df, xc, [](auto d, auto v) {
    const auto x2 = hn::Mul(v, v);  // exact
    const auto in = hn::Add(v, hn::Mul(hn::Mul(x2, v), hn::Set(d, 0.044715)));
    return hn::Mul(in, hn::Set(d, 2.0 * f::kSqrt2OverPi));
  }, &zh, &zl);
  // sigmoid(z) = 1 / (1 + e^y), y = -z clamped to [-20, 110] (y < -20:
  // x sigmoid(z) rounds to x; y > 110 only where x < -10.9, result -0).
  const VF yh0 = hn::Neg(zh);
  const VF yh = f::Clamp(df, yh0, -20.0f, 110.0f);
  const VF yl = hn::IfThenElse(hn::Eq(yh, yh0), hn::Neg(zl), hn::Zero(df));
  const f::RecipOnePlusExp<DF> s = f::SigmoidCore(df, f::ExpCoreF(df, yh, yl));
  const VF q = f::TimesRecip(df, xc, hn::Zero(df), s);
  // The sign of x also where q rounds to zero.
  VF r = hn::CopySign(f::ScaleDownF(df, q, s.m), xc);  // m > 0: x < -0.2, |q| > 2^-4
  r = hn::IfThenElse(hn::Gt(x, hn::Set(df, 10.0f)), x, r);
  r = hn::IfThenElse(hn::Lt(x, hn::Set(df, -11.0f)), hn::Set(df, -0.0f), r);
  r = hn::IfThenElse(hn::Eq(x, hn::Set(df, -f::kInfF)), f::NaNF(df), r);
  return f::KeepZero(df, x, f::KeepNaN(df, x, r));
}

}  // namespace math
}  // namespace HWY_NAMESPACE
}  // namespace bcast
HWY_AFTER_NAMESPACE();

#endif  // BCAST_KERNELS_MATH_EXP_F32_INL_H_
