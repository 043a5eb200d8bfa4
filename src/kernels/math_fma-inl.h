// MulAddF: a b + c of float32 lanes rounded once (IEEE fma, round to
// nearest even), with the same bits on every Highway target. Targets with
// FMA (AVX2, AVX3) use the instruction. The others (SSSE3, SSE4, EMU128,
// SCALAR) emulate it exactly in float64:
//  * a b is exact in float64 (48 of 53 significant bits, and float64's
//    range holds every product of two floats);
//  * s = a b + c rounds once in float64; TwoSum gives its error e exactly;
//  * where e != 0 and s is even, s becomes its odd neighbour on e's side:
//    that is a b + c rounded to odd;
//  * rounding that to float32 (nearest even) is the correctly rounded fma,
//    as 53 >= 24 + 2 bits (Boldo and Melquiond, "Emulation of FMA and
//    correctly rounded sums: proved algorithms using rounding to odd",
//    IEEE Trans. Computers 57(4), 2008).
// Infinite and NaN sums pass through unchanged. On the old targets this
// costs about 20 float64 operations per float64 lane; the math that uses it
// is written for the FMA targets, where it is one instruction.
//
// tests/test_math_exp_f32.cc checks MulAddF on every target against libm's
// fmaf (correctly rounded) on edge and random triples.

#if defined(BCAST_KERNELS_MATH_FMA_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BCAST_KERNELS_MATH_FMA_INL_H_
#undef BCAST_KERNELS_MATH_FMA_INL_H_
#else
#define BCAST_KERNELS_MATH_FMA_INL_H_
#endif

#include <stddef.h>
#include <stdint.h>

#include <cmath>
#include <limits>

#include "hwy/highway.h"
#include "kernels/math_dd-inl.h"

HWY_BEFORE_NAMESPACE();
namespace bcast {
namespace HWY_NAMESPACE {
namespace math {
namespace hn = hwy::HWY_NAMESPACE;

// Rounds float64 lanes to float32 (IEEE: to nearest, overflow to inf). On
// the emulated targets (EMU128, SCALAR) Highway's DemoteTo clamps values
// beyond FLT_MAX to +-FLT_MAX instead; this restores the IEEE result there:
// |v| at or above FLT_MAX + ulp/2 rounds to inf (FLT_MAX's significand is
// odd).
template <class DF, class VD>
HWY_INLINE hn::VFromD<DF> DemoteToF32(DF df, VD v) {
#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
  const hn::Rebind<double, DF> dd;
  const auto big = hn::Ge(hn::Abs(v), hn::Set(dd, 0x1.ffffffp127));
  const auto r = hn::DemoteTo(df, hn::IfThenElse(big, hn::Zero(dd), v));
  const auto bigf = hn::Eq(hn::DemoteTo(df, hn::IfThenElseZero(big, hn::Set(dd, 1.0))),
                           hn::Set(df, 1.0f));
  const auto inf = hn::DemoteTo(df, hn::CopySignToAbs(hn::Set(dd, 1.0), v));
  return hn::IfThenElse(bigf, hn::Mul(inf, hn::Set(df, std::numeric_limits<float>::infinity())), r);
#else
  return hn::DemoteTo(df, v);
#endif
}

namespace fmadetail {

// Round to odd: s = RN(x) with x - s = err exactly; where err != 0 and s is
// even (and finite), the neighbour of s toward x, which is odd. Rounding
// the result to fewer bits afterwards is then a single correct rounding
// (Boldo and Melquiond).
template <class DD, class VD = hn::VFromD<DD>>
HWY_INLINE VD RoundToOdd(DD dd, VD s, VD err) {
  const hn::RebindToSigned<DD> di;
  const auto bits = hn::BitCast(di, s);
  const auto one = hn::Set(di, 1);
  const auto even = hn::Eq(hn::And(bits, one), hn::Zero(di));
  const auto inexact = hn::And(hn::Not(hn::Eq(err, hn::Zero(dd))), hn::IsFinite(s));
  const auto toward_zero = hn::Xor(hn::Lt(err, hn::Zero(dd)), hn::Lt(s, hn::Zero(dd)));
  const auto step = hn::IfThenElse(hn::RebindMask(di, toward_zero), hn::Neg(one), one);
  const auto move = hn::And(even, hn::RebindMask(di, inexact));
  return hn::BitCast(dd, hn::IfThenElse(move, hn::Add(bits, step), bits));
}

// a b + c of float64 lanes holding float32 values, rounded to odd.
template <class DD, class VD = hn::VFromD<DD>>
HWY_INLINE VD MulAddToOdd(DD dd, VD a, VD b, VD c) {
  const dd::DD<VD> s = dd::TwoSum(hn::Mul(a, b), c);  // the product is exact
  return RoundToOdd(dd, s.hi, s.lo);
}

// Out of line: inlined at every fma of every float32 function, the
// emulation made the library's clean build 16% longer (and its code 15%
// larger) for targets that are not the ones to be fast on.
template <class DF, class V = hn::VFromD<DF>>
HWY_NOINLINE V EmulatedMulAdd(DF df, V a, V b, V c) {
  auto one = [](auto dh, auto x, auto y, auto z) {
    const hn::Rebind<double, decltype(dh)> dd;
    return DemoteToF32(dh, MulAddToOdd(dd, hn::PromoteTo(dd, x), hn::PromoteTo(dd, y),
                                       hn::PromoteTo(dd, z)));
  };
#if HWY_TARGET == HWY_SCALAR
  return one(df, a, b, c);
#else
  if constexpr (hn::MaxLanes(DF()) == 1) {
    return one(df, a, b, c);
  } else {
    const hn::Half<DF> dh;
    const auto lo = one(dh, hn::LowerHalf(dh, a), hn::LowerHalf(dh, b), hn::LowerHalf(dh, c));
    const auto hi = one(dh, hn::UpperHalf(dh, a), hn::UpperHalf(dh, b), hn::UpperHalf(dh, c));
    return hn::Combine(df, hi, lo);
  }
#endif
}

}  // namespace fmadetail

// a b + c, rounded once; see the top of this file.
template <class DF, class V = hn::VFromD<DF>>
HWY_INLINE V MulAddF(DF df, V a, V b, V c) {
#if HWY_NATIVE_FMA
  (void)df;
  return hn::MulAdd(a, b, c);
#else
  return fmadetail::EmulatedMulAdd(df, a, b, c);
#endif
}

// c - a b, rounded once.
template <class DF, class V = hn::VFromD<DF>>
HWY_INLINE V NegMulAddF(DF df, V a, V b, V c) {
  return MulAddF(df, hn::Neg(a), b, c);
}

// ---- float64 ---------------------------------------------------------------
// MulAddD: a b + c of float64 lanes rounded once (IEEE fma), with the same
// bits on every target. FMA targets (AVX2, AVX3) use the instruction. The
// others (SSE4, SSSE3, EMU128: CPUs from before 2013) use FusedMulAddF64
// below, out of line as the float32 emulation; SCALAR uses std::fma, which
// C99 and IEEE 754 define as the correctly rounded a b + c (glibc and musl
// compute it so, in software where the CPU has no FMA).

namespace fmadetail {

#if !HWY_NATIVE_FMA && HWY_TARGET != HWY_SCALAR
// float64 a b + c without FMA: the product exact as p + e (Dekker's
// TwoProduct with Veltkamp's split), the three-term sum as vh + rh + rl, rh
// rounded to odd, then one rounding. Lanes where a split or product could
// overflow or underflow (or any lane is not finite) take std::fma. Also the
// binary ops' fused forms (FusedMulAdd in functors-inl.h).
template <class DD, class VD = hn::VFromD<DD>>
HWY_INLINE VD FusedMulAddF64(DD dd, VD a, VD b, VD c) {
  const VD p = hn::Mul(a, b);
  const VD big = hn::Set(dd, 0x1p996), huge = hn::Set(dd, 0x1p1000), tiny = hn::Set(dd, 0x1p-900);
  const VD ap = hn::Abs(p);
  const auto zero_product = hn::Or(hn::Eq(a, hn::Zero(dd)), hn::Eq(b, hn::Zero(dd)));
  const auto ok = hn::And(
      hn::And(hn::Lt(hn::Abs(a), big), hn::Lt(hn::Abs(b), big)),
      hn::And(hn::Lt(hn::Abs(c), huge),
              hn::Or(zero_product, hn::And(hn::Ge(ap, tiny), hn::Lt(ap, huge)))));
  if (!hn::AllTrue(dd, ok)) {
    constexpr size_t kN = HWY_MAX_BYTES / sizeof(double);
    HWY_ALIGN double x[kN], y[kN], z[kN];
    hn::Store(a, dd, x);
    hn::Store(b, dd, y);
    hn::Store(c, dd, z);
    for (size_t i = 0; i < hn::Lanes(dd); ++i) x[i] = std::fma(x[i], y[i], z[i]);
    return hn::Load(dd, x);
  }
  const VD e = dd::TwoProd(dd, a, b).lo;  // Dekker's here: no FMA
  const dd::DD<VD> s1 = dd::TwoSum(p, c);
  const dd::DD<VD> s2 = dd::TwoSum(s1.lo, e);
  const dd::DD<VD> v = dd::TwoSum(s1.hi, s2.hi);
  const dd::DD<VD> r2 = dd::TwoSum(v.lo, s2.lo);
  const VD r = hn::Add(v.hi, RoundToOdd(dd, r2.hi, r2.lo));
  // A zero result is exact: p + c has its sign (-0 only when both are -0).
  return hn::IfThenElse(hn::Eq(r, hn::Zero(dd)), hn::Add(p, c), r);
}

template <class DD, class VD = hn::VFromD<DD>>
HWY_NOINLINE VD EmulatedMulAddD(DD dd, VD a, VD b, VD c) {
  return FusedMulAddF64(dd, a, b, c);
}
#endif

}  // namespace fmadetail

template <class D, class V = hn::VFromD<D>>
HWY_INLINE V MulAddD(D d, V a, V b, V c) {
#if HWY_NATIVE_FMA
  (void)d;
  return hn::MulAdd(a, b, c);
#elif HWY_TARGET == HWY_SCALAR
  return hn::Set(d, std::fma(hn::GetLane(a), hn::GetLane(b), hn::GetLane(c)));
#else
  return fmadetail::EmulatedMulAddD(d, a, b, c);
#endif
}

// c - a b and a b - c, rounded once (the same bits as MulAddD with a or c
// negated; the FMA targets' own instructions).
template <class D, class V = hn::VFromD<D>>
HWY_INLINE V NegMulAddD(D d, V a, V b, V c) {
#if HWY_NATIVE_FMA
  (void)d;
  return hn::NegMulAdd(a, b, c);
#else
  return MulAddD(d, hn::Neg(a), b, c);
#endif
}
template <class D, class V = hn::VFromD<D>>
HWY_INLINE V MulSubD(D d, V a, V b, V c) {
#if HWY_NATIVE_FMA
  (void)d;
  return hn::MulSub(a, b, c);
#else
  return MulAddD(d, a, b, hn::Neg(c));
#endif
}

}  // namespace math
// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace bcast
HWY_AFTER_NAMESPACE();

#endif  // BCAST_KERNELS_MATH_FMA_INL_H_
