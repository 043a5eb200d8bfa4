// Float64 vector math, exponential family: Exp, Exp2, Expm1, Log, Log2,
// Log10, Log1p, Sinh, Cosh, Tanh, Asinh, Acosh, Atanh and the activation
// functions built on them (Sigmoid, Logit, Silu, Softplus, Mish, Elu,
// GeluTanh). Each result is within 1 ulp of the correctly rounded value of
// the exact function (measured <= 0.56 ulp from the exact value,
// tests/test_math_exp.cc; Exp and Exp2 <= 0.67, Log, Log2 and Log10
// <= 0.76, Tanh, with plain roundings, <= 1.16). The same bits on every Highway target: only
// correctly rounded IEEE operations (add, multiply, divide, square root,
// fused multiply-add by MulAddD in math_fma-inl.h; no approximate
// reciprocals, no libm function but fma), double-double (math_dd-inl.h)
// where rounding errors would add up, and selects for the edges. Compile
// with -ffp-contract=off.
//
// Polynomials are evaluated by fused multiply-adds. Exp and Exp2 (ExpPlain,
// Exp2Plain: the reduced argument rounded once and its rounding kept, 1 + s
// split exactly, no double-double; <= 0.67 ulp), Sinh and Cosh (ExpPlain and
// one division; sinh below 1/2 an odd polynomial) and Log, Log2 and Log10
// (LogPlain) are plain float64 with exact splits where a rounding would
// count, and the one large rounding last, at about half the double-double
// cores' cost; Sigmoid, Silu, Softplus, Mish and GeluTanh take their e^x
// from a plain form of double-double accuracy (ExpOnePlus); Log1p,
// Atanh, Logit and Softplus take LogPlain of a rounded argument plus its
// exact low part over it; the rest keep the double-double cores below.
//
// Building blocks (namespace detail):
//  * ExpCore(xh + xl) = 2^k (1 + e1): k = round(x / ln2), r = x - k ln2 by
//    Cody-Waite (ln2 cut to 42 bits, so k ln2hi is exact for |k| < 2^11),
//    e1 = expm1(r) for |r| <= 0.35 as r + r^2/2 + r^3 P(r), a double-double
//    with relative error about 2^-59 (kExact: r^2 exact) or 2^-56.5 of 1 + e1.
//  * LogDD(xh + xl) = log(x) as a double-double (relative error ~2^-62):
//    x = 2^e m with m in [sqrt(1/2), sqrt(2)), f = m - 1 (exact), s = f/(2+f)
//    in double-double, log(m) = 2s + 2s^3 Q(s^2).
//  * Scale(v, k) = v 2^k in two multiplies (exact, then the one rounding);
//    ScaleDD(q, k) rounds a double-double times 2^k once, also to a
//    subnormal; ScaleNormal adds k to the exponent field instead where every
//    lane stays normal.
// The composites keep e^x as 2^k (1 + e1) until their last step, so that
// x e^x (Silu, Mish, GeluTanh, Softplus for very negative x) does not
// underflow early, and use identities without cancellation:
// 1 + tanh(y) = 2 / (1 + e^-2y), tanh(log1p(e^x)) = w(w+2) / (w(w+2) + 2).
// Polynomials and constants: tools/fit_math.py.

#if defined(BCAST_KERNELS_MATH_EXP_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BCAST_KERNELS_MATH_EXP_INL_H_
#undef BCAST_KERNELS_MATH_EXP_INL_H_
#else
#define BCAST_KERNELS_MATH_EXP_INL_H_
#endif

#include <stddef.h>

#include <limits>

#include "hwy/highway.h"
#include "kernels/math_dd-inl.h"
#include "kernels/math_fma-inl.h"

HWY_BEFORE_NAMESPACE();
namespace bcast {
namespace HWY_NAMESPACE {
namespace math {
namespace hn = hwy::HWY_NAMESPACE;

namespace detail {

// (exp(r) - 1 - r - r^2/2) / r^3 on |r| <= 0.35, relative error 2^-52.8.
constexpr double kExpTail[10] = {
    0x1.5555555555556p-3,  0x1.5555555555555p-5,  0x1.111111111091ap-7,
    0x1.6c16c16c1678ap-10, 0x1.a01a01a83a3a3p-13, 0x1.a01a01a4be7f8p-16,
    0x1.71de0be80e7e8p-19, 0x1.27e4e0f0f6358p-22, 0x1.af3cd7b3560d9p-26,
    0x1.1f6942ca28386p-29,
};
// (atanh(s)/s - 1) / s^2 as a polynomial in z = s^2 <= 0.02945, 2^-54.
constexpr double kLogTail[8] = {
    0x1.5555555555555p-2, 0x1.9999999999a38p-3, 0x1.2492492476badp-3,
    0x1.c71c720178cd4p-4, 0x1.745cf8f7521d1p-4, 0x1.3b1c382a32475p-4,
    0x1.0fbe4a92957c6p-4, 0x1.0c06af4414cc3p-4,
};
constexpr double kLn2CwHi = 0x1.62e42fefa3800p-1;  // 42 significant bits
constexpr double kLn2CwLo = 0x1.ef35793c76730p-45;
constexpr double kLn2Hi = 0x1.62e42fefa39efp-1;  // double-double ln2
constexpr double kLn2Lo = 0x1.abc9e3b39803fp-56;
constexpr double kInvLn2 = 0x1.71547652b82fep+0;
constexpr double kInvLn2Lo = 0x1.777d0ffda0d24p-56;
constexpr double kInvLn10Hi = 0x1.bcb7b1526e50ep-2;
constexpr double kInvLn10Lo = 0x1.95355baaafad3p-57;
constexpr double kSqrt2OverPiHi = 0x1.9884533d43651p-1;
constexpr double kSqrt2OverPiLo = -0x1.cbc0d30ebfd15p-55;
constexpr double kGeluCHi = 0x1.6e4e26d4801f7p-5;  // 0.044715
constexpr double kGeluCLo = 0x1.441355475a31ap-59;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kRoundMagic = 0x1.8p52;  // x + magic - magic: nearest integer

template <class V>
using DD = dd::DD<V>;

// c[0] + x (c[1] + x (...)), unrolled at compile time; each step one
// fused multiply-add (MulAddD: the same bits on every target).
template <size_t I, size_t N, class D, class V>
HWY_INLINE V HornerFrom(D d, V x, const double (&c)[N]) {
  if constexpr (I + 1 == N) {
    return hn::Set(d, c[I]);
  } else {
    return MulAddD(d, HornerFrom<I + 1>(d, x, c), x, hn::Set(d, c[I]));
  }
}
template <class D, class V, size_t N>
HWY_INLINE V Horner(D d, V x, const double (&c)[N]) {
  return HornerFrom<0>(d, x, c);
}

// lo <= x <= hi; NaN stays NaN.
template <class D, class V>
HWY_INLINE V Clamp(D d, V x, double lo, double hi) {
  x = hn::IfThenElse(hn::Gt(x, hn::Set(d, hi)), hn::Set(d, hi), x);
  return hn::IfThenElse(hn::Lt(x, hn::Set(d, lo)), hn::Set(d, lo), x);
}

// 2^k for an integer-valued k in [-1022, 1023].
template <class D, class V>
HWY_INLINE V Pow2(D d, V k) {
  const hn::RebindToUnsigned<D> du;
  const V t = hn::Add(k, hn::Set(d, kRoundMagic + 1023.0));
  return hn::BitCast(d, hn::ShiftLeft<52>(hn::BitCast(du, t)));
}

// v * 2^k for an integer-valued k in [-2044, 2046], rounded once unless the
// result is subnormal.
template <class D, class V>
HWY_INLINE V Scale(D d, V v, V k) {
  const V h = hn::Floor(hn::Mul(k, hn::Set(d, 0.5)));
  return hn::Mul(hn::Mul(v, Pow2(d, h)), Pow2(d, hn::Sub(k, h)));
}

// (q.hi + q.lo) * 2^k, k integer-valued in [-2044, 2046], rounded once also
// where the result is subnormal: there t = q.hi 2^k rounds to the subnormal
// grid, and the rest q - t 2^-k (exact, then plus q.lo), scaled, rounds to
// -1, 0 or +1 grid steps that t + rest adds exactly.
template <class D, class V>
HWY_INLINE V ScaleDD(D d, DD<V> q, V k) {
  const V h = hn::Floor(hn::Mul(k, hn::Set(d, 0.5)));
  const V k2 = hn::Sub(k, h);
  const V p1 = Pow2(d, h);
  const V p2 = Pow2(d, k2);
  const V normal = hn::Mul(hn::Mul(dd::Round(q), p1), p2);
  const V a = hn::Mul(q.hi, p1);
  const V t = hn::Mul(a, p2);
  const V inv2 = Pow2(d, Clamp(d, hn::Neg(k2), -1022.0, 1022.0));
  const V rest = hn::Add(hn::Sub(a, hn::Mul(t, inv2)), hn::Mul(q.lo, p1));
  const V sub = hn::Add(t, hn::Mul(rest, p2));
  return hn::IfThenElse(hn::Lt(hn::Abs(normal), hn::Set(d, 0x1p-1022)), sub, normal);
}

// As ScaleDD, by adding k to the exponent field of the rounded q where every
// lane's k is in [-1000, 1000]; for callers whose q is in [2^-22, 2^22]
// wherever k != 0 (so that those results are normal).
template <class D, class V>
HWY_INLINE V ScaleNormal(D d, DD<V> q, V k) {
  const auto ok = hn::And(hn::Ge(k, hn::Set(d, -1000.0)), hn::Le(k, hn::Set(d, 1000.0)));
  if (HWY_LIKELY(hn::AllTrue(d, ok))) {
    const hn::RebindToUnsigned<D> du;
    const auto e = hn::ShiftLeft<52>(hn::BitCast(du, hn::Add(k, hn::Set(d, kRoundMagic))));
    return hn::BitCast(d, hn::Add(hn::BitCast(du, dd::Round(q)), e));
  }
  return ScaleDD(d, q, k);
}

// expm1(rh + rl) for |rh| <= 0.35, |rl| <= ulp(rh), as r + r^2/2 + r^3 P(r).
// kExact: r^2 exact (TwoSqr), relative error ~2^-59 of the result, for the
// callers that use e1 alone (expm1 near 0, tanh, sinh); otherwise r^2/2 is
// rounded (2^-57 absolute, ~2^-56.5 relative to 1 + e1), for those that use
// 1 + e1.
template <bool kExact, class D, class V>
HWY_INLINE DD<V> ExpReduced(D d, V rh, V rl) {
  const V half = hn::Set(d, 0.5);
  const V sq = hn::Mul(rh, rh);
  V hh, hl;
  if (kExact) {
    const DD<V> p = dd::TwoSqr(d, rh);
    hh = hn::Mul(p.hi, half);
    hl = hn::Mul(p.lo, half);
  } else {
    hh = hn::Mul(sq, half);
    hl = hn::Zero(d);
  }
  const V tail = hn::Mul(hn::Mul(sq, rh), Horner(d, rh, kExpTail));
  const DD<V> s = dd::FastTwoSum(rh, hh);
  // d/dr expm1(r) = e^r: the low part rl enters multiplied by 1 + r + r^2/2.
  const V drl = hn::Mul(rl, hn::Add(hn::Add(hn::Set(d, 1.0), rh), hh));
  const V low = hn::Add(s.lo, hn::Add(hl, hn::Add(tail, drl)));
  return dd::FastTwoSum(s.hi, low);
}

template <class V>
struct ExpParts {
  V k;      // integer-valued
  DD<V> e1;  // e^x = 2^k (1 + e1)
};

// e^(xh + xl) = 2^k (1 + e1); x is clamped to [-1400, 1400] (k in
// [-2020, 2020]), so k is usable by Scale; NaN propagates into e1.
template <bool kExact = false, class D, class V>
HWY_INLINE ExpParts<V> ExpCore(D d, V xh, V xl) {
  const V x = Clamp(d, xh, -1400.0, 1400.0);
  const V magic = hn::Set(d, kRoundMagic);
  const V k = hn::Sub(hn::Add(hn::Mul(x, hn::Set(d, kInvLn2)), magic), magic);
  const V a = hn::Sub(x, hn::Mul(k, hn::Set(d, kLn2CwHi)));  // exact
  // The small terms first, so that r.lo <= ulp(r.hi) (xl can be 2^-44).
  const V small = hn::Sub(xl, hn::Mul(k, hn::Set(d, kLn2CwLo)));
  const DD<V> r = dd::TwoSum(a, small);
  return {k, ExpReduced<kExact>(d, r.hi, r.lo)};
}

// 1 + e1 as a double-double.
template <class D, class V>
HWY_INLINE DD<V> OnePlus(D d, DD<V> e1) {
  DD<V> y = dd::FastTwoSum(hn::Set(d, 1.0), e1.hi);
  y.lo = hn::Add(y.lo, e1.lo);
  return y;
}

// e^(rh + rl) for |rh| <= 0.35, |rl| <= 2^-30, in plain float64 with fused
// multiply-adds: 1 + rh + (rl + r^2 (1/2 + r P(r))), r = rh + rl rounded,
// as hi + lo with hi = 1 + rh rounded, lo its exact rest plus the small
// terms (up to 0.07: not normalised). Only the linear term needs r's low
// part; r^2 is taken as rh^2 (exact as q + ql) + 2 rh rl, so that r's
// rounding stays out of it too.
template <class D, class V>
HWY_INLINE DD<V> ExpRed(D d, V rh, V rl) {
  const V r = hn::Add(rh, rl);
  const V s = MulAddD(d, r, Horner(d, r, kExpTail), hn::Set(d, 0.5));
  const V q = hn::Mul(rh, rh);
  const V ql = MulAddD(d, hn::Add(rh, rh), rl, MulAddD(d, rh, rh, hn::Neg(q)));
  const V u = MulAddD(d, q, s, MulAddD(d, ql, s, rl));
  const DD<V> y = dd::FastTwoSum(hn::Set(d, 1.0), rh);
  return {y.hi, hn::Add(y.lo, u)};
}

template <class V>
struct ExpY {
  V k;      // integer-valued
  DD<V> y;  // e^x = 2^k (y.hi + y.lo), y in [0.7, 1.42]
};

// k = round(x / ln2) for xh clamped to [-1400, 1400] (NaN propagates), and
// x - k ln2 as *rh = xh - k ln2hi (exact, as in ExpCore) and
// *rl = xl - k ln2lo; returns k.
template <class D, class V>
HWY_INLINE V ExpArg(D d, V xh, V xl, V* rh, V* rl) {
  const V x = Clamp(d, xh, -1400.0, 1400.0);
  const V magic = hn::Set(d, kRoundMagic);
  const V k = hn::Sub(MulAddD(d, x, hn::Set(d, kInvLn2), magic), magic);
  const V nk = hn::Neg(k);
  *rh = MulAddD(d, nk, hn::Set(d, kLn2CwHi), x);
  *rl = MulAddD(d, nk, hn::Set(d, kLn2CwLo), xl);
  return k;
}

// e^(xh + xl) = 2^k y for the callers that need 1 + e1 only (ExpCore's
// OnePlus), in plain float64 with fused multiply-adds: y = ExpRed of
// ExpArg's reduced argument, normalised (relative error about 2^-57).
template <class D, class V>
HWY_INLINE ExpY<V> ExpOnePlus(D d, V xh, V xl) {
  V rh, rl;
  const V k = ExpArg(d, xh, xl, &rh, &rl);
  const DD<V> y = ExpRed(d, rh, rl);
  return {k, dd::FastTwoSum(y.hi, y.lo)};
}

// x = 2^e m with m in [sqrt(1/2), sqrt(2)) for finite x > 0: m returned;
// a subnormal x is first scaled by *scale = 2^54 (else 1), whose exponent
// is e0 (e = e0 - 54 there, else e0).
// kNormal: the caller knows every lane normal (scale 1, e = e0, the same
// values).
template <bool kNormal = false, class D, class V>
HWY_INLINE V LogReduce(D d, V x, V* scale, V* e0, V* e) {
  const hn::RebindToUnsigned<D> du;
  using VU = hn::VFromD<decltype(du)>;
  const auto sub = hn::Lt(x, hn::Set(d, 0x1p-1022));
  *scale = kNormal ? hn::Set(d, 1.0) : hn::IfThenElse(sub, hn::Set(d, 0x1p54), hn::Set(d, 1.0));
  const VU u = hn::BitCast(du, kNormal ? x : hn::Mul(x, *scale));
  // e + 1024
  const VU eb = hn::ShiftRight<52>(
      hn::Add(u, hn::Set(du, 0x4000000000000000ull - 0x3fe6a09e667f3bcdull)));
  *e0 = hn::Sub(hn::BitCast(d, hn::Or(eb, hn::Set(du, 0x4330000000000000ull))),
                hn::Set(d, 0x1p52 + 1024.0));
  *e = kNormal ? *e0 : hn::Sub(*e0, hn::IfThenElseZero(sub, hn::Set(d, 54.0)));
  return hn::BitCast(d, hn::Add(hn::Sub(u, hn::ShiftLeft<52>(eb)), hn::Set(du, 1024ull << 52)));
}

// log(xh + xl) for finite xh > 0 (|xl| <= ulp(xh)); other inputs give
// garbage that the callers replace. kLo: whether xl can be nonzero.
template <bool kLo, class D, class V>
HWY_INLINE DD<V> LogDD(D d, V xh, V xl) {
  V scale, e0, e;
  const V m = LogReduce(d, xh, &scale, &e0, &e);
  DD<V> f;
  if (kLo) {
    const V xls = hn::Mul(xl, scale);
    f = dd::TwoSum(hn::Sub(m, hn::Set(d, 1.0)), Scale(d, xls, hn::Neg(e0)));
  } else {
    f = {hn::Sub(m, hn::Set(d, 1.0)), hn::Zero(d)};
  }
  DD<V> den = dd::FastTwoSum(hn::Set(d, 2.0), f.hi);
  den.lo = hn::Add(den.lo, f.lo);
  const DD<V> s = dd::Div(d, f, den);
  const V z = hn::Mul(s.hi, s.hi);
  const V tail = hn::Mul(hn::Mul(s.hi, z), Horner(d, z, kLogTail));
  const V two = hn::Set(d, 2.0);
  DD<V> h = dd::TwoSum(hn::Mul(e, hn::Set(d, kLn2CwHi)), hn::Mul(two, s.hi));
  const V low = hn::Add(hn::Mul(two, hn::Add(s.lo, tail)), hn::Mul(e, hn::Set(d, kLn2CwLo)));
  return dd::FastTwoSum(h.hi, hn::Add(h.lo, low));
}

template <class D>
HWY_INLINE hn::VFromD<D> NaNV(D d) {
  const hn::RebindToUnsigned<D> du;
  return hn::BitCast(d, hn::Set(du, 0x7ff8000000000000ull));
}

// log(x)'s special values over v: +inf -> +inf, 0 -> -inf, x < 0 or NaN -> NaN.
template <class D, class V>
HWY_INLINE V FixLog(D d, V x, V v) {
  const V inf = hn::Set(d, detail::kInf);
  v = hn::IfThenElse(hn::Eq(x, inf), inf, v);
  v = hn::IfThenElse(hn::Eq(x, hn::Zero(d)), hn::Neg(inf), v);
  return hn::IfThenElse(hn::Not(hn::Ge(x, hn::Zero(d))), NaNV(d), v);
}

// m * sigmoid(zh + zl) = m / (1 + e^-z), sign(m) == sign(z) or m > 0,
// |m| < 2^996. For z < 0 it is m e^z / (1 + e^z), with e^z = 2^k y kept
// unscaled until the final rounding.
template <bool kOne, class D, class V>
HWY_INLINE V MulSigmoid(D d, V m, V zh, V zl) {
  const auto pos = hn::Ge(zh, hn::Zero(d));
  const V ah = hn::Abs(zh);
  const V al = hn::IfThenElse(pos, zl, hn::Neg(zl));
  const ExpY<V> c = ExpOnePlus(d, hn::Neg(ah), hn::Neg(al));
  const DD<V> y = c.y;
  const V kc = hn::IfThenElse(hn::Lt(c.k, hn::Set(d, -1000.0)), hn::Set(d, -1000.0), c.k);
  const DD<V> t = dd::MulPow2(y, Pow2(d, kc));  // e^-|z|
  DD<V> den = dd::FastTwoSum(hn::Set(d, 1.0), t.hi);
  den.lo = hn::Add(den.lo, t.lo);
  const DD<V> my = kOne ? y : dd::MulD(d, y, m);  // kOne: m == 1
  const DD<V> num = {hn::IfThenElse(pos, m, my.hi), hn::IfThenElseZero(hn::Not(pos), my.lo)};
  // k != 0 only where |z| > 0.34, so |m| > 0.1 and q is far from subnormal.
  return ScaleNormal(d, dd::Div(d, num, den), hn::IfThenZeroElse(pos, c.k));
}

// e^x - 1 as a double-double for x <= ~40 (k <= 58); for x below -41 it is
// -1 + 2^-60 (1 + e1), which rounds to -1 as the exact value does.
template <class D, class V>
HWY_INLINE DD<V> Expm1DD(D d, const ExpParts<V>& c) {
  const V kc = Clamp(d, c.k, -60.0, 1000.0);
  const V p = Pow2(d, kc);
  const DD<V> pm = dd::TwoSum(p, hn::Set(d, -1.0));  // 2^k - 1, exact
  const DD<V> q = dd::MulPow2(c.e1, p);
  // No cancellation beyond a factor 3.5: for k != 0 the sum is >= 0.29
  // in magnitude, for k == 0 it is q.
  const DD<V> s = dd::TwoSum(pm.hi, q.hi);
  return dd::FastTwoSum(s.hi, hn::Add(s.lo, hn::Add(pm.lo, q.lo)));
}

template <class D, class V>
HWY_INLINE auto TinyMask(D d, V x, double bound) {
  return hn::Lt(hn::Abs(x), hn::Set(d, bound));
}

}  // namespace detail

// ---------------------------------------------------------------------------
// Exponentials

namespace detail {

// e^(s + sl) = h + lo for |s| <= 0.35, |sl| <= ulp(s): h + l = 1 + s
// exactly, lo = l + sl + s^2 (1/2 + s P(s)) (the product s sl left out,
// 2^-56 of the result; lo's roundings below 2^-57).
template <class D, class V>
HWY_INLINE DD<V> ExpPoly(D d, V s, V sl) {
  const V p = MulAddD(d, s, Horner(d, s, kExpTail), hn::Set(d, 0.5));
  const V h = hn::Add(hn::Set(d, 1.0), s);
  const V l = hn::Sub(s, hn::Sub(h, hn::Set(d, 1.0)));  // exact: |s| < 1
  return {h, MulAddD(d, hn::Mul(s, s), p, hn::Add(l, sl))};
}

// e^x = 2^k (h + lo), k = kk - kRoundMagic, for |x| <= 1400: s + sl =
// x - k ln2 (the first fused multiply-add exact, the second rounded, its
// rounding taken by a third).
template <class D, class V>
HWY_INLINE DD<V> ExpPlain(D d, V x, V* kk) {
  const V magic = hn::Set(d, kRoundMagic);
  *kk = MulAddD(d, x, hn::Set(d, kInvLn2), magic);
  const V nk = hn::Sub(magic, *kk);  // -k
  const V s1 = MulAddD(d, nk, hn::Set(d, kLn2CwHi), x);  // exact
  const V s = MulAddD(d, nk, hn::Set(d, kLn2CwLo), s1);
  const V sl = MulAddD(d, nk, hn::Set(d, kLn2CwLo), hn::Sub(s1, s));
  return ExpPoly(d, s, sl);
}

// 2^x = 2^k (h + lo), k = kk - kRoundMagic = round(x), for |x| <= 1100:
// f = x - k (exact), s + sl = f ln2.
template <class D, class V>
HWY_INLINE DD<V> Exp2Plain(D d, V x, V* kk) {
  const V magic = hn::Set(d, kRoundMagic);
  *kk = hn::Add(x, magic);
  const V f = hn::Sub(x, hn::Sub(*kk, magic));  // exact, |f| <= 1/2
  const V s = MulAddD(d, f, hn::Set(d, kLn2Hi), hn::Mul(f, hn::Set(d, kLn2Lo)));
  const V sl = MulAddD(d, f, hn::Set(d, kLn2Lo), MulAddD(d, f, hn::Set(d, kLn2Hi), hn::Neg(s)));
  return ExpPoly(d, s, sl);
}

// 2^k (h + lo) from kk (k + kRoundMagic): where every lane is normal (the
// caller's bound on x), h + lo rounds once and k goes into the exponent
// field; otherwise the caller recomputes y from its clamped x for ScaleDD,
// rounded once also to a subnormal. Both give a normal lane the same bits,
// so a lane's bits never depend on its neighbours.
template <class D, class V>
HWY_INLINE V ScaleKk(D d, DD<V> y, V kk) {
  const hn::RebindToUnsigned<D> du;
  const auto e = hn::ShiftLeft<52>(hn::BitCast(du, kk));
  return hn::BitCast(d, hn::Add(hn::BitCast(du, hn::Add(y.hi, y.lo)), e));
}

}  // namespace detail

// |x| <= 708: k in [-1021, 1022], the result normal. NaN takes ScaleDD.
template <class D>
HWY_INLINE hn::VFromD<D> Exp(D d, hn::VFromD<D> x) {
  using V = hn::VFromD<D>;
  V kk;
  if (HWY_LIKELY(hn::AllTrue(d, hn::Le(hn::Abs(x), hn::Set(d, 708.0))))) {
    return detail::ScaleKk(d, detail::ExpPlain(d, x, &kk), kk);
  }
  const detail::DD<V> y = detail::ExpPlain(d, detail::Clamp(d, x, -1400.0, 1400.0), &kk);
  return detail::ScaleDD(d, dd::FastTwoSum(y.hi, y.lo), hn::Sub(kk, hn::Set(d, detail::kRoundMagic)));
}

template <class D>
HWY_INLINE hn::VFromD<D> Exp2(D d, hn::VFromD<D> x) {
  using V = hn::VFromD<D>;
  V kk;
  if (HWY_LIKELY(hn::AllTrue(d, hn::Le(hn::Abs(x), hn::Set(d, 1021.0))))) {
    return detail::ScaleKk(d, detail::Exp2Plain(d, x, &kk), kk);
  }
  const detail::DD<V> y = detail::Exp2Plain(d, detail::Clamp(d, x, -1100.0, 1100.0), &kk);
  return detail::ScaleDD(d, dd::FastTwoSum(y.hi, y.lo), hn::Sub(kk, hn::Set(d, detail::kRoundMagic)));
}

template <class D>
HWY_INLINE hn::VFromD<D> Expm1(D d, hn::VFromD<D> x) {
  using V = hn::VFromD<D>;
  const detail::ExpParts<V> c = detail::ExpCore<true>(d, x, hn::Zero(d));
  const V small = dd::Round(detail::Expm1DD(d, c));
  // k > 52: 2^k (1 + e1 - 2^-k), the -1 folded in before the scaling.
  const V kb = detail::Clamp(d, c.k, 53.0, 1000.0);
  const dd::DD<V> y = dd::FastTwoSum(hn::Set(d, 1.0), c.e1.hi);
  const V lo = hn::Sub(hn::Add(y.lo, c.e1.lo), detail::Pow2(d, hn::Neg(kb)));
  const V big = detail::Scale(d, hn::Add(y.hi, lo), c.k);
  const V r = hn::IfThenElse(hn::Gt(c.k, hn::Set(d, 52.0)), big, small);
  return hn::IfThenElse(detail::TinyMask(d, x, 0x1p-54), x, r);
}

// ---------------------------------------------------------------------------
// Logarithms

namespace detail {

// log(x) times c = ch + cl (c = 1: kMul false), plus e (eh + el), for
// x = 2^e m: plain float64 in fdlibm's arrangement with fused
// multiply-adds. f = m - 1 (exact), s = f / (2 + f), and
// log(1 + f) = f - f^2/2 + s (f^2/2 + R), R = 2 s^2 P(s^2) with LogDD's
// polynomial, held as hi + lo: f^2 exact (TwoSqr), f - f^2/2 split exactly
// (FastTwoSum), so only the small terms are rounded before the sum with
// e eh (exact: eh has 42 bits, |e| < 2^11), which is added last. About
// 0.6 ulp from the exact value (test_math_exp.cc measures it).
// kMul: times ch + cl (log2, log10). kLow: log(x (1 + c)) for |c| <= 2^-52,
// as log(x) + c (the next term, c^2/2, is below 2^-105), c added to the
// small terms before the last sum (Logit's quotient's low part); without
// kLow, c is not read.
// LogPlainPair: the same, for finite x > 0, as the unrounded pair before
// the last sum (hi + lo, |lo| <= ulp(hi); about 2^-55 relative error), for
// callers that add more to it (Softplus).
// kNormal: every lane of x is normal and finite (no scaling, no special
// values to put in; the same bits for those lanes).
template <bool kMul, bool kLow, bool kPair, bool kNormal = false, class D, class V>
HWY_INLINE auto LogPlainImpl(D d, V x, double ch, double cl, double eh, double el, V c) {
  if constexpr (!kPair && !kNormal) {
    const auto normal = hn::And(hn::Ge(x, hn::Set(d, 0x1p-1022)), hn::Lt(x, hn::Set(d, kInf)));
    if (HWY_LIKELY(hn::AllTrue(d, normal))) {
      return LogPlainImpl<kMul, kLow, false, true>(d, x, ch, cl, eh, el, c);
    }
  }
  V scale, e0, e;
  const V m = LogReduce<kNormal>(d, x, &scale, &e0, &e);
  const V half = hn::Set(d, 0.5);
  const V f = hn::Sub(m, hn::Set(d, 1.0));
  const V s = hn::Div(f, hn::Add(hn::Set(d, 2.0), f));
  const V z = hn::Mul(s, s);
  const V r2 = hn::Mul(hn::Add(z, z), Horner(d, z, kLogTail));
  const DD<V> f2 = dd::TwoSqr(d, f);  // no underflow: f is 0 or |f| >= 2^-53
  const V hfsq = hn::Mul(f2.hi, half);
  const DD<V> h = dd::FastTwoSum(f, hn::Neg(hfsq));  // |f^2/2| < |f|
  V lo = hn::Sub(MulAddD(d, s, hn::Add(hfsq, r2), h.lo), hn::Mul(f2.lo, half));
  if (kLow) lo = hn::Add(lo, c);
  V hi = h.hi;
  if (kMul) {
    const DD<V> p = dd::TwoProd(d, hi, hn::Set(d, ch));
    lo = MulAddD(d, lo, hn::Set(d, ch), MulAddD(d, hi, hn::Set(d, cl), p.lo));
    hi = p.hi;
  }
  // |e eh| >= |hi| where e != 0 (|log(m)| <= ln2/2, times c <= 1/ln2)
  const DD<V> t = dd::FastTwoSum(hn::Mul(e, hn::Set(d, eh)), hi);
  const V rest = hn::Add(t.lo, MulAddD(d, e, hn::Set(d, el), lo));
  if constexpr (kPair) {
    return dd::FastTwoSum(t.hi, rest);
  } else if constexpr (kNormal) {
    return hn::Add(t.hi, rest);
  } else {
    return FixLog(d, x, hn::Add(t.hi, rest));
  }
}
template <bool kMul, class D, class V>
HWY_INLINE V LogPlain(D d, V x, double ch, double cl, double eh, double el) {
  return LogPlainImpl<kMul, false, false>(d, x, ch, cl, eh, el, x);  // c unread
}
// log(x (1 + c)), for |c| <= 2^-52 (the special values as x's).
template <class D, class V>
HWY_INLINE V LogPlainLow(D d, V x, V c) {
  return LogPlainImpl<false, true, false>(d, x, 1.0, 0.0, kLn2CwHi, kLn2CwLo, c);
}
// The same as a pair, for finite x > 0.
template <class D, class V>
HWY_INLINE DD<V> LogPlainPair(D d, V x, V c) {
  return LogPlainImpl<false, true, true>(d, x, 1.0, 0.0, kLn2CwHi, kLn2CwLo, c);
}

}  // namespace detail

template <class D>
HWY_INLINE hn::VFromD<D> Log(D d, hn::VFromD<D> x) {
  return detail::LogPlain<false>(d, x, 1.0, 0.0, detail::kLn2CwHi, detail::kLn2CwLo);
}

template <class D>
HWY_INLINE hn::VFromD<D> Log2(D d, hn::VFromD<D> x) {
  return detail::LogPlain<true>(d, x, detail::kInvLn2, detail::kInvLn2Lo, 1.0, 0.0);
}

// log10(2) = kLog10Of2Hi (42 significant bits) + kLog10Of2Lo.
template <class D>
HWY_INLINE hn::VFromD<D> Log10(D d, hn::VFromD<D> x) {
  return detail::LogPlain<true>(d, x, detail::kInvLn10Hi, detail::kInvLn10Lo, 0x1.34413509f78p-2,
                                0x1.fef311f12b358p-46);
}

template <class D>
HWY_INLINE hn::VFromD<D> Log1p(D d, hn::VFromD<D> x) {
  using V = hn::VFromD<D>;
  // log(s.hi + s.lo) = log(s.hi) + s.lo / s.hi (to 2^-105); LogPlain's
  // special values of s.hi are 1 + x's: x = -1 -> -inf, x < -1 -> NaN,
  // inf -> inf.
  const dd::DD<V> s = dd::TwoSum(hn::Set(d, 1.0), x);
  const V v = detail::LogPlainLow(d, s.hi, hn::Div(s.lo, s.hi));
  return hn::IfThenElse(detail::TinyMask(d, x, 0x1p-54), x, v);
}

// ---------------------------------------------------------------------------
// Hyperbolic functions

namespace detail {
// (e^a - e^-a) / (2a) - 1 = z P(z) on a = |x| <= 1/2, z = a^2
// (tools/fit_math.py), relative error 2^-58.6 against sinh(a).
constexpr double kSinhP[7] = {
    0x1.5555555555555p-3, 0x1.1111111111111p-7, 0x1.a01a01a01a02dp-13, 0x1.71de3a5565267p-19,
    0x1.ae6456a905711p-26, 0x1.6123e702c4c41p-33, 0x1.afe276e54df69p-41,
};

// (e^a + sign e^-a) / 2 for a in [0, 711] (sign = +1: cosh, -1: sinh,
// there for a >= 1/2, where the difference cancels at most by a factor
// 2.2): e^a = 2^k (h + lo) (ExpPlain, normalised), e^-a / 2^k =
// 2^-2k / (h + lo) as
// q + q c (q = 1/h, c = (1 - q h) - q lo, the residual exact in an fma),
// negligible for k > 35; 2^(k-1) (h + sign 2^-2k q + (lo + sign 2^-2k q c))
// with the leading sum exact (TwoSum), rounded once.
template <bool kSinh, class D, class V>
HWY_INLINE V CoshSinh(D d, V a) {
  V kk;
  const DD<V> e = ExpPlain(d, a, &kk);
  const DD<V> y = dd::FastTwoSum(e.hi, e.lo);  // |lo| up to 0.07: normalised
  const V k = hn::Sub(kk, hn::Set(d, kRoundMagic));
  const V one = hn::Set(d, 1.0);
  const V q = hn::Div(one, y.hi);
  const V c = hn::Sub(NegMulAddD(d, q, y.hi, one), hn::Mul(q, y.lo));
  const V k2 = hn::Mul(Clamp(d, k, 0.0, 35.0), hn::Set(d, -2.0));
  V f = hn::IfThenZeroElse(hn::Gt(k, hn::Set(d, 35.0)), Pow2(d, k2));
  if (kSinh) f = hn::Neg(f);
  const V w = hn::Mul(f, q);  // exact: a power of two
  const DD<V> t = dd::TwoSum(y.hi, w);
  const V z = hn::Add(t.hi, hn::Add(t.lo, MulAddD(d, w, c, y.lo)));
  return Scale(d, z, hn::Sub(k, one));
}
}  // namespace detail

template <class D>
HWY_INLINE hn::VFromD<D> Cosh(D d, hn::VFromD<D> x) {
  return detail::CoshSinh<false>(d, detail::Clamp(d, hn::Abs(x), 0.0, 711.0));
}

// Below |x| = 1/2 a + a z P(z) (its roundings act on a term below 0.05 a).
template <class D>
HWY_INLINE hn::VFromD<D> Sinh(D d, hn::VFromD<D> x) {
  using V = hn::VFromD<D>;
  const V a = detail::Clamp(d, hn::Abs(x), 0.0, 711.0);
  const V z = hn::Mul(a, a);
  const V small = MulAddD(d, hn::Mul(a, z), detail::Horner(d, z, detail::kSinhP), a);
  const V r = hn::IfThenElse(hn::Lt(a, hn::Set(d, 0.5)), small, detail::CoshSinh<true>(d, a));
  return hn::CopySignToAbs(r, x);
}

// tanh(a) - a = a z P(z) on a = |x| <= 1, z = a^2 (tools/fit_math.py),
// relative error 2^-56 against tanh(a).
constexpr double kTanhP[16] = {
    -0x1.5555555555555p-2, 0x1.11111111110b9p-3, -0x1.ba1ba1ba1451cp-5, 0x1.664f4880d21f6p-6,
    -0x1.226e351975919p-7, 0x1.d6d3c536445d7p-9, -0x1.7da2bda3a0536p-10, 0x1.3551ad1ddc326p-11,
    -0x1.f52109e5c6830p-13, 0x1.9497e43fab6f7p-14, -0x1.4208576cf2eebp-15, 0x1.ea1683f3af933p-17,
    -0x1.4eb41442195f1p-18, 0x1.722e5804ac952p-20, -0x1.1aace472a9013p-22, 0x1.b00d46cdf671bp-26,
};
// Plain roundings, no double-double (as TanhF32), a = |x|:
//  * a < 1: a + (a z) P(z); the roundings of a z, of the product and of P
//    act on a term below 0.24 a.
//  * a >= 1 (clamped to 19.1, where 1 - tanh < 2^-54): 1 - 2w / (1 + w),
//    w = e^-2a = 2^k (1 + u), k = round(-2a / ln2) in [-56, -3] (the
//    reduced argument by Cody-Waite, exact in its first step), u = r +
//    r^2/2 + r^3 T(r) with ExpReduced's kExpTail. 2w / (1 + w) <= 0.24, so
//    its roundings stay below an ulp of the result in [0.76, 1).
// Measured against __float128 (4 million random inputs per range, dense
// around a = 1): at most 1.16 ulp from the exact tanh, just below a = 1;
// 1.01 above (so within 1 ulp of the correctly rounded result). The
// double-double form this replaced (Expm1DD and a double-double division,
// <= 0.56 ulp) took twice the time. Sign of x on the result; NaN gives
// itself.
template <class D>
HWY_INLINE hn::VFromD<D> Tanh(D d, hn::VFromD<D> x) {
  using V = hn::VFromD<D>;
  const hn::RebindToSigned<D> di;
  const V one = hn::Set(d, 1.0);
  const V a = hn::Abs(x);
  const V z = hn::Mul(a, a);
  const V small = hn::Add(a, hn::Mul(hn::Mul(a, z), detail::Horner(d, z, kTanhP)));
  const V lim = hn::Set(d, 19.1);
  const V n = hn::Mul(hn::IfThenElse(hn::Gt(a, lim), lim, a), hn::Set(d, -2.0));
  const V magic = hn::Set(d, detail::kRoundMagic);
  const V kb = hn::Add(hn::Mul(n, hn::Set(d, detail::kInvLn2)), magic);
  const V k = hn::Sub(kb, magic);
  const V r = hn::Sub(hn::Sub(n, hn::Mul(k, hn::Set(d, detail::kLn2CwHi))),
                      hn::Mul(k, hn::Set(d, detail::kLn2CwLo)));
  const V r2 = hn::Mul(r, r);
  const V tail = hn::Mul(hn::Mul(r2, r), detail::Horner(d, r, detail::kExpTail));
  const V u = hn::Add(r, hn::Add(hn::Mul(r2, hn::Set(d, 0.5)), tail));
  const auto ki = hn::Sub(hn::BitCast(di, kb), hn::BitCast(di, magic));
  const V w = hn::BitCast(d, hn::Add(hn::BitCast(di, hn::Add(one, u)), hn::ShiftLeft<52>(ki)));
  const V big = hn::Sub(one, hn::Div(hn::Add(w, w), hn::Add(one, w)));
  const V res = hn::IfThenElse(hn::Lt(a, one), small, big);
  return hn::IfThenElse(hn::IsNaN(x), x, hn::CopySignToAbs(res, x));
}

template <class D>
HWY_INLINE hn::VFromD<D> Asinh(D d, hn::VFromD<D> x) {
  using V = hn::VFromD<D>;
  const V a = hn::Abs(x);
  const auto big = hn::Gt(a, hn::Set(d, 0x1p28));
  const V one = hn::Set(d, 1.0);
  const V ai = hn::IfThenElse(big, one, a);
  const dd::DD<V> s = dd::Sqrt(d, dd::AddD(dd::TwoProd(d, ai, ai), one));
  const dd::DD<V> arg = dd::AddD(s, ai);
  // |x| > 2^28: log(2|x|) + O(x^-2) = log|x| + ln2.
  dd::DD<V> l = detail::LogDD<true>(d, hn::IfThenElse(big, a, arg.hi),
                                    hn::IfThenZeroElse(big, arg.lo));
  l = dd::Add(l, dd::DD<V>{hn::IfThenElseZero(big, hn::Set(d, detail::kLn2Hi)),
                           hn::IfThenElseZero(big, hn::Set(d, detail::kLn2Lo))});
  V r = hn::CopySignToAbs(dd::Round(l), x);
  r = hn::IfThenElse(hn::IsInf(x), x, r);
  r = hn::IfThenElse(hn::IsNaN(x), x, r);
  return hn::IfThenElse(detail::TinyMask(d, x, 0x1p-28), x, r);
}

template <class D>
HWY_INLINE hn::VFromD<D> Acosh(D d, hn::VFromD<D> x) {
  using V = hn::VFromD<D>;
  const auto big = hn::Gt(x, hn::Set(d, 0x1p28));
  const V one = hn::Set(d, 1.0);
  const V xi = detail::Clamp(d, x, 1.0, 0x1p28);
  const dd::DD<V> s = dd::Sqrt(d, dd::AddD(dd::TwoProd(d, xi, xi), hn::Neg(one)));
  const dd::DD<V> arg = dd::AddD(s, xi);
  dd::DD<V> l = detail::LogDD<true>(d, hn::IfThenElse(big, x, arg.hi),
                                    hn::IfThenZeroElse(big, arg.lo));
  l = dd::Add(l, dd::DD<V>{hn::IfThenElseZero(big, hn::Set(d, detail::kLn2Hi)),
                           hn::IfThenElseZero(big, hn::Set(d, detail::kLn2Lo))});
  V r = dd::Round(l);
  r = hn::IfThenElse(hn::Eq(x, hn::Set(d, detail::kInf)), x, r);
  return hn::IfThenElse(hn::Not(hn::Ge(x, one)), detail::NaNV(d), r);
}

template <class D>
HWY_INLINE hn::VFromD<D> Atanh(D d, hn::VFromD<D> x) {
  using V = hn::VFromD<D>;
  const V a = hn::Abs(x);
  const V one = hn::Set(d, 1.0);
  const V ac = hn::IfThenElseZero(hn::Lt(a, one), a);
  // q = (1 + ac) / (1 - ac) = qh (1 + c), both sums exact as n and m, the
  // residual n - qh m to 2^-105 (by fmas), c = residual / n; then
  // log(qh) + c as Logit's.
  const dd::DD<V> n = dd::TwoSum(one, ac), m = dd::TwoSum(one, hn::Neg(ac));
  const V qh = hn::Div(n.hi, m.hi);
  const V res = hn::Add(NegMulAddD(d, qh, m.lo, NegMulAddD(d, qh, m.hi, n.hi)), n.lo);
  const V l = hn::Mul(detail::LogPlainLow(d, qh, hn::Div(res, n.hi)), hn::Set(d, 0.5));
  V r = hn::IfThenElse(hn::Eq(a, one), hn::Set(d, detail::kInf), l);
  r = hn::IfThenElse(hn::Not(hn::Le(a, one)), detail::NaNV(d), r);
  r = hn::CopySignToAbs(r, x);
  return hn::IfThenElse(detail::TinyMask(d, x, 0x1p-28), x, r);
}

// ---------------------------------------------------------------------------
// Activations

template <class D>
HWY_INLINE hn::VFromD<D> Sigmoid(D d, hn::VFromD<D> x) {
  return detail::MulSigmoid<true>(d, hn::Set(d, 1.0), x, hn::Zero(d));
}

// log(x / (1 - x)) for x in [0, 1]; 0 -> -inf, 1 -> inf, else NaN.
template <class D>
HWY_INLINE hn::VFromD<D> Logit(D d, hn::VFromD<D> x) {
  using V = hn::VFromD<D>;
  const V one = hn::Set(d, 1.0);
  const auto inside = hn::And(hn::Gt(x, hn::Zero(d)), hn::Lt(x, one));
  const V xc = hn::IfThenElse(inside, x, hn::Set(d, 0.5));
  // q = xc / (1 - xc) = qh (1 + c): qh rounded, 1 - xc = m.hi + m.lo
  // exactly, the residual xc - qh m exact to 2^-105 (its first part by one
  // fma), and c = residual / xc (qh m differs from xc by under 2^-52).
  const dd::DD<V> m = dd::TwoSum(one, hn::Neg(xc));
  const V qh = hn::Div(xc, m.hi);
  const V res = NegMulAddD(d, qh, m.lo, NegMulAddD(d, qh, m.hi, xc));
  // x < 2^-54: log(x) (the log1p(-x) term is below 2^-54 absolute).
  const auto tiny = hn::Lt(xc, hn::Set(d, 0x1p-54));
  const V c = hn::IfThenZeroElse(tiny, hn::Div(res, xc));
  const V r = detail::LogPlainLow(d, hn::IfThenElse(tiny, xc, qh), c);
  const V inf = hn::Set(d, detail::kInf);
  V v = hn::IfThenElse(inside, r, detail::NaNV(d));
  v = hn::IfThenElse(hn::Eq(x, hn::Zero(d)), hn::Neg(inf), v);
  return hn::IfThenElse(hn::Eq(x, one), inf, v);
}

// x / (1 + e^-x); -inf -> NaN (as -inf / (1 + inf)).
template <class D>
HWY_INLINE hn::VFromD<D> Silu(D d, hn::VFromD<D> x) {
  using V = hn::VFromD<D>;
  const V xi = detail::Clamp(d, x, -800.0, 40.0);
  V r = detail::MulSigmoid<false>(d, xi, xi, hn::Zero(d));
  r = hn::IfThenElse(hn::Gt(x, hn::Set(d, 40.0)), x, r);  // e^-x < 2^-57
  r = hn::IfThenElse(hn::Lt(x, hn::Set(d, -800.0)), hn::Set(d, -0.0), r);
  r = hn::IfThenElse(hn::Eq(x, hn::Set(d, -detail::kInf)), detail::NaNV(d), r);
  return hn::IfThenElse(detail::TinyMask(d, x, 0x1p-60), hn::Mul(x, hn::Set(d, 0.5)), r);
}

// PyTorch's softplus: x where x*beta > threshold, else log1p(e^(beta x)) / beta
// (beta x exact). Assumes beta > 0 and |beta| < 2^996.
template <class D>
HWY_INLINE hn::VFromD<D> Softplus(D d, hn::VFromD<D> x, double beta, double threshold) {
  using V = hn::VFromD<D>;
  const V b = hn::Set(d, beta);
  const V zr = hn::Mul(x, b);
  const auto ret_x = hn::Or(hn::Gt(zr, hn::Set(d, threshold)), hn::Gt(zr, hn::Set(d, 750.0)));
  const auto low = hn::Lt(zr, hn::Set(d, -1400.0));
  const V xi = hn::IfThenZeroElse(hn::Or(ret_x, low), x);
  const dd::DD<V> zd0 = dd::TwoProd(d, xi, b);
  const dd::DD<V> zd = {hn::IfThenElse(low, hn::Set(d, -1400.0), zd0.hi), hn::IfThenZeroElse(low, zd0.lo)};
  const auto pos = hn::Gt(zd.hi, hn::Zero(d));
  const V ah = hn::Abs(zd.hi);
  const V al = hn::IfThenElse(pos, zd.lo, hn::Neg(zd.lo));
  const detail::ExpY<V> c = detail::ExpOnePlus(d, hn::Neg(ah), hn::Neg(al));
  const dd::DD<V> y = c.y;
  const V kc = hn::IfThenElse(hn::Lt(c.k, hn::Set(d, -1000.0)), hn::Set(d, -1000.0), c.k);
  const dd::DD<V> t = dd::MulPow2(y, detail::Pow2(d, kc));  // e^-|z|
  const dd::DD<V> one_t = dd::AddD(t, hn::Set(d, 1.0));
  // log1p(e^-|z|) = log(one_t.hi) + one_t.lo / one_t.hi
  const dd::DD<V> l = detail::LogPlainPair(d, one_t.hi, hn::Div(one_t.lo, one_t.hi));
  const dd::DD<V> sp = dd::Add(zd, l);
  // z > 0: z + log1p(e^-z); z <= 0: log1p(e^z).
  // e^z = 2^k y below 2^-25: log1p(t) = t (1 + w), w = -t/2 + t^2/3 (the
  // double-double 1 + t would hold t to only 2^-106 absolute), 2^k applied
  // at the end.
  const auto tiny = hn::AndNot(pos, hn::Lt(c.k, hn::Set(d, -25.0)));
  const V w = hn::Mul(t.hi, hn::Add(hn::Set(d, -0.5), hn::Mul(t.hi, hn::Set(d, 1.0 / 3))));
  const dd::DD<V> ser = dd::Add(y, dd::MulD(d, y, w));
  dd::DD<V> s = {hn::IfThenElse(pos, sp.hi, l.hi), hn::IfThenElse(pos, sp.lo, l.lo)};
  s = {hn::IfThenElse(tiny, ser.hi, s.hi), hn::IfThenElse(tiny, ser.lo, s.lo)};
  // Divided by beta (beta 1, PyTorch's default: s itself, as the division gives).
  const dd::DD<V> q = beta == 1.0 ? s : dd::Div(d, s, dd::DD<V>{b, hn::Zero(d)});
  const V r = detail::ScaleDD(d, q, hn::IfThenElseZero(tiny, c.k));
  return hn::IfThenElse(hn::Or(ret_x, hn::IsNaN(x)), x, r);
}

// x tanh(log1p(e^x)) = x w(w+2) / (w(w+2) + 2), w = e^x; for x > 0 with
// w = e^-x: x (1 + 2w) / (1 + 2w + 2w^2). -inf -> NaN (-inf * 0).
template <class D>
HWY_INLINE hn::VFromD<D> Mish(D d, hn::VFromD<D> x) {
  using V = hn::VFromD<D>;
  const V xi = detail::Clamp(d, x, -800.0, 40.0);
  const auto pos = hn::Gt(xi, hn::Zero(d));
  const detail::ExpY<V> c = detail::ExpOnePlus(d, hn::Neg(hn::Abs(xi)), hn::Zero(d));
  const dd::DD<V> y = c.y;
  const V kc = hn::IfThenElse(hn::Lt(c.k, hn::Set(d, -1000.0)), hn::Set(d, -1000.0), c.k);
  const dd::DD<V> t = dd::MulPow2(y, detail::Pow2(d, kc));  // e^-|x|
  const dd::DD<V> t2 = dd::Mul(d, t, t);
  const V one = hn::Set(d, 1.0), two = hn::Set(d, 2.0);
  // den = c0 + 2t + c2 t^2, num = x m (c0 + c1 t): pos (1, 2, 2; m = 1),
  // else (2, 1, 1; m = y, times 2^k at the end).
  const V c0 = hn::IfThenElse(pos, one, two);
  const V c1 = hn::IfThenElse(pos, two, one);
  const V c2 = hn::IfThenElse(pos, two, one);
  const dd::DD<V> den = dd::AddD(dd::Add(dd::MulPow2(t, two), dd::MulPow2(t2, c2)), c0);
  const dd::DD<V> lin = dd::AddD(dd::MulPow2(t, c1), c0);
  const dd::DD<V> my = {hn::IfThenElse(pos, one, y.hi), hn::IfThenZeroElse(pos, y.lo)};
  const dd::DD<V> num = dd::Mul(d, dd::MulD(d, my, xi), lin);
  V r = detail::ScaleNormal(d, dd::Div(d, num, den), hn::IfThenZeroElse(pos, c.k));
  r = hn::IfThenElse(hn::Gt(x, hn::Set(d, 40.0)), x, r);
  r = hn::IfThenElse(hn::Lt(x, hn::Set(d, -800.0)), hn::Set(d, -0.0), r);
  r = hn::IfThenElse(hn::Eq(x, hn::Set(d, -detail::kInf)), detail::NaNV(d), r);
  // |x| < 2^-60: x tanh(ln 2) = 0.6 x, with 0.6 as a double-double; below
  // 2^-900 on 2^200 x, so that the products are exact, and scaled back by
  // ScaleDD (one rounding, also to a subnormal).
  const auto scaled = detail::TinyMask(d, x, 0x1p-900);
  const V xs = hn::IfThenElse(scaled, hn::Mul(x, hn::Set(d, 0x1p200)), x);
  dd::DD<V> p = dd::TwoProd(d, xs, hn::Set(d, 0x1.3333333333333p-1));
  p.lo = hn::Add(p.lo, hn::Mul(xs, hn::Set(d, 0x1.999999999999ap-56)));
  V small = detail::ScaleDD(d, p, hn::IfThenElseZero(scaled, hn::Set(d, -200.0)));
  small = hn::IfThenElse(hn::Eq(x, hn::Zero(d)), x, small);  // the sign of 0
  return hn::IfThenElse(detail::TinyMask(d, x, 0x1p-60), small, r);
}

// x for x > 0, else alpha expm1(x) rounded once. Assumes |alpha| < 2^996.
template <class D>
HWY_INLINE hn::VFromD<D> Elu(D d, hn::VFromD<D> x, double alpha) {
  using V = hn::VFromD<D>;
  const V al = hn::Set(d, alpha);
  const V xi = hn::IfThenZeroElse(hn::Gt(x, hn::Zero(d)), x);
  const detail::ExpParts<V> c = detail::ExpCore<true>(d, xi, hn::Zero(d));
  V r = dd::Round(dd::MulD(d, detail::Expm1DD(d, c), al));
  r = hn::IfThenElse(detail::TinyMask(d, x, 0x1p-300), hn::Mul(x, al), r);
  return hn::IfThenElse(hn::Gt(x, hn::Zero(d)), x, r);
}

// 0.5 x (1 + tanh(y)) = x / (1 + e^-2y), y = sqrt(2/pi) (x + 0.044715 x^3)
// in double-double. -inf -> NaN (-inf * 0).
template <class D>
HWY_INLINE hn::VFromD<D> GeluTanh(D d, hn::VFromD<D> x) {
  using V = hn::VFromD<D>;
  const V xi = detail::Clamp(d, x, -30.0, 10.0);
  const dd::DD<V> x3 = dd::MulD(d, dd::TwoProd(d, xi, xi), xi);
  const dd::DD<V> cc = {hn::Set(d, detail::kGeluCHi), hn::Set(d, detail::kGeluCLo)};
  const dd::DD<V> in = dd::AddD(dd::Mul(d, x3, cc), xi);
  const dd::DD<V> sc = {hn::Set(d, detail::kSqrt2OverPiHi), hn::Set(d, detail::kSqrt2OverPiLo)};
  const dd::DD<V> z = dd::MulPow2(dd::Mul(d, in, sc), hn::Set(d, 2.0));
  V r = detail::MulSigmoid<false>(d, xi, z.hi, z.lo);
  r = hn::IfThenElse(hn::Gt(x, hn::Set(d, 10.0)), x, r);  // e^-2y < 2^-120
  r = hn::IfThenElse(hn::Lt(x, hn::Set(d, -30.0)), hn::Set(d, -0.0), r);
  r = hn::IfThenElse(hn::Eq(x, hn::Set(d, -detail::kInf)), detail::NaNV(d), r);
  return hn::IfThenElse(detail::TinyMask(d, x, 0x1p-60), hn::Mul(x, hn::Set(d, 0.5)), r);
}

}  // namespace math
}  // namespace HWY_NAMESPACE
}  // namespace bcast
HWY_AFTER_NAMESPACE();

#endif  // BCAST_KERNELS_MATH_EXP_INL_H_
