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

// a b + c of float64 lanes holding float32 values, rounded to odd.
template <class DD, class VD = hn::VFromD<DD>>
HWY_INLINE VD MulAddToOdd(DD dd, VD a, VD b, VD c) {
  const hn::RebindToSigned<DD> di;
  const VD p = hn::Mul(a, b);  // exact
  const VD s = hn::Add(p, c);
  const VD pb = hn::Sub(s, c);
  const VD cb = hn::Sub(s, pb);
  const VD e = hn::Add(hn::Sub(p, pb), hn::Sub(c, cb));  // TwoSum: p + c - s
  const auto bits = hn::BitCast(di, s);
  const auto one = hn::Set(di, 1);
  const auto even = hn::Eq(hn::And(bits, one), hn::Zero(di));
  // +1 (away from zero) where e has s's sign, else -1 (toward zero).
  const auto step = hn::Or(hn::ShiftRight<63>(hn::BitCast(di, hn::Xor(e, s))), one);
  const VD inf = hn::Set(dd, std::numeric_limits<double>::infinity());
  const auto inexact = hn::And(hn::Ne(e, hn::Zero(dd)), hn::Lt(hn::Abs(s), inf));
  const auto fix = hn::And(hn::RebindMask(di, inexact), even);
  return hn::BitCast(dd, hn::IfThenElse(fix, hn::Add(bits, step), bits));
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
// MulAddD: a b + c of float64 lanes rounded once, with the same bits on
// every target. FMA targets use the instruction. The others (SSE4, SSSE3,
// EMU128, SCALAR: CPUs from before 2013) call libm's fma lane by lane, which
// C99 and IEEE 754 define as the correctly rounded a b + c (glibc and musl
// compute it so, in software where the CPU has no FMA): about 10x the cost
// of a multiply and an add there, on targets that are not the ones to be
// fast on. Out of line, as the float32 emulation.

namespace fmadetail {

template <class D, class V = hn::VFromD<D>>
HWY_NOINLINE V LibmMulAdd(D d, V a, V b, V c) {
  constexpr size_t kMax = HWY_MAX_BYTES / sizeof(double);
  HWY_ALIGN double pa[kMax], pb[kMax], pc[kMax];
  hn::Store(a, d, pa);
  hn::Store(b, d, pb);
  hn::Store(c, d, pc);
  for (size_t i = 0; i < hn::Lanes(d); ++i) pa[i] = std::fma(pa[i], pb[i], pc[i]);
  return hn::Load(d, pa);
}

}  // namespace fmadetail

template <class D, class V = hn::VFromD<D>>
HWY_INLINE V MulAddD(D d, V a, V b, V c) {
#if HWY_NATIVE_FMA
  (void)d;
  return hn::MulAdd(a, b, c);
#else
  return fmadetail::LibmMulAdd(d, a, b, c);
#endif
}

}  // namespace math
// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace bcast
HWY_AFTER_NAMESPACE();

#endif  // BCAST_KERNELS_MATH_FMA_INL_H_
