// Double-double arithmetic on float64 Highway vectors, for the vector math
// functions (math_exp-inl.h and the others): a value is hi + lo with
// |lo| <= ulp(hi)/2 (or nearly so). Only exact IEEE operations (Add, Sub,
// Mul, Div, Sqrt, FMA), so that every SIMD target gives the same bits.
// TwoProd's error term is a b - p rounded once by FMA where the target has
// it (AVX2, AVX3), else Veltkamp/Dekker splitting: both are exact, so both
// give the same pair. The library and its tests are compiled with
// -ffp-contract=off, which the error-free transformations need (a
// compiler-fused a*b-p inside Dekker's sum would change them).
//
// Ranges: Split/TwoProd are exact when no product overflows or underflows,
// i.e. |a| < 2^996 and the products' error terms are normal numbers; the
// callers keep to them, and tests/test_math_exp.cc compares every target's
// bits.

#if defined(BCAST_KERNELS_MATH_DD_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BCAST_KERNELS_MATH_DD_INL_H_
#undef BCAST_KERNELS_MATH_DD_INL_H_
#else
#define BCAST_KERNELS_MATH_DD_INL_H_
#endif

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace bcast {
namespace HWY_NAMESPACE {
namespace math {
namespace dd {
namespace hn = hwy::HWY_NAMESPACE;

template <class V>
struct DD {
  V hi;
  V lo;
};

// s + e == a + b exactly, for |a| >= |b| (or a == 0).
template <class V>
HWY_INLINE DD<V> FastTwoSum(V a, V b) {
  const V s = hn::Add(a, b);
  return {s, hn::Sub(b, hn::Sub(s, a))};
}

// s + e == a + b exactly, any order (Knuth).
template <class V>
HWY_INLINE DD<V> TwoSum(V a, V b) {
  const V s = hn::Add(a, b);
  const V bb = hn::Sub(s, a);
  const V e = hn::Add(hn::Sub(a, hn::Sub(s, bb)), hn::Sub(b, bb));
  return {s, e};
}

// hi + lo == a, each with at most 26 significant bits (Veltkamp).
template <class D, class V>
HWY_INLINE DD<V> Split(D d, V a) {
  const V c = hn::Mul(hn::Set(d, 134217729.0), a);  // 2^27 + 1
  const V hi = hn::Sub(c, hn::Sub(c, a));
  return {hi, hn::Sub(a, hi)};
}

// p + e == a * b exactly (Dekker).
template <class D, class V>
HWY_INLINE DD<V> TwoProd(D d, V a, V b) {
  const V p = hn::Mul(a, b);
#if HWY_NATIVE_FMA
  (void)d;
  return {p, hn::MulSub(a, b, p)};  // exact: the same pair as below
#endif
  const DD<V> as = Split(d, a);
  const DD<V> bs = Split(d, b);
  V e = hn::Sub(hn::Mul(as.hi, bs.hi), p);
  e = hn::Add(e, hn::Mul(as.hi, bs.lo));
  e = hn::Add(e, hn::Mul(as.lo, bs.hi));
  e = hn::Add(e, hn::Mul(as.lo, bs.lo));
  return {p, e};
}

// p + e == a * a exactly.
template <class D, class V>
HWY_INLINE DD<V> TwoSqr(D d, V a) {
  const V p = hn::Mul(a, a);
#if HWY_NATIVE_FMA
  (void)d;
  return {p, hn::MulSub(a, a, p)};
#endif
  const DD<V> as = Split(d, a);
  V e = hn::Sub(hn::Mul(as.hi, as.hi), p);
  e = hn::Add(e, hn::Mul(hn::Add(as.hi, as.hi), as.lo));
  e = hn::Add(e, hn::Mul(as.lo, as.lo));
  return {p, e};
}

// The double nearest hi + lo (one rounding).
template <class V>
HWY_INLINE V Round(DD<V> a) {
  return hn::Add(a.hi, a.lo);
}

template <class V>
HWY_INLINE DD<V> Neg(DD<V> a) {
  return {hn::Neg(a.hi), hn::Neg(a.lo)};
}

// a * 2^n for a power of two p (exact unless it under/overflows).
template <class V>
HWY_INLINE DD<V> MulPow2(DD<V> a, V p) {
  return {hn::Mul(a.hi, p), hn::Mul(a.lo, p)};
}

// a + b, accurate also under cancellation (relative error ~2^-104 of the
// larger operand).
template <class V>
HWY_INLINE DD<V> Add(DD<V> a, DD<V> b) {
  DD<V> s = TwoSum(a.hi, b.hi);
  const DD<V> t = TwoSum(a.lo, b.lo);
  s = FastTwoSum(s.hi, hn::Add(s.lo, t.hi));
  return FastTwoSum(s.hi, hn::Add(s.lo, t.lo));
}

// a + b for a double b.
template <class V>
HWY_INLINE DD<V> AddD(DD<V> a, V b) {
  const DD<V> s = TwoSum(a.hi, b);
  return FastTwoSum(s.hi, hn::Add(s.lo, a.lo));
}

template <class D, class V>
HWY_INLINE DD<V> Mul(D d, DD<V> a, DD<V> b) {
  const DD<V> p = TwoProd(d, a.hi, b.hi);
  const V cross = hn::Add(hn::Mul(a.hi, b.lo), hn::Mul(a.lo, b.hi));
  return FastTwoSum(p.hi, hn::Add(p.lo, cross));
}

template <class D, class V>
HWY_INLINE DD<V> MulD(D d, DD<V> a, V b) {
  const DD<V> p = TwoProd(d, a.hi, b);
  return FastTwoSum(p.hi, hn::Add(p.lo, hn::Mul(a.lo, b)));
}

// a / b with one division: q = a.hi * (1/b.hi) (within 2 ulp of a.hi/b.hi),
// corrected by the exact remainder a - q b. For |b.hi| in the normal range
// with 1/b.hi finite.
template <class D, class V>
HWY_INLINE DD<V> Div(D d, DD<V> a, DD<V> b) {
  const V inv = hn::Div(hn::Set(d, 1.0), b.hi);
  const V q = hn::Mul(a.hi, inv);
  const DD<V> p = TwoProd(d, q, b.hi);
  V r = hn::Sub(hn::Sub(a.hi, p.hi), p.lo);
  r = hn::Sub(hn::Add(r, a.lo), hn::Mul(q, b.lo));
  return FastTwoSum(q, hn::Mul(r, inv));
}

// sqrt(a) for a > 0 (a == 0 gives 0).
template <class D, class V>
HWY_INLINE DD<V> Sqrt(D d, DD<V> a) {
  const V s = hn::Sqrt(a.hi);
  const DD<V> p = TwoProd(d, s, s);
  V r = hn::Add(hn::Sub(hn::Sub(a.hi, p.hi), p.lo), a.lo);
  r = hn::Div(r, hn::Add(s, s));
  r = hn::IfThenZeroElse(hn::Eq(s, hn::Zero(d)), r);
  return FastTwoSum(s, r);
}

}  // namespace dd
}  // namespace math
}  // namespace HWY_NAMESPACE
}  // namespace bcast
HWY_AFTER_NAMESPACE();

#endif  // BCAST_KERNELS_MATH_DD_INL_H_
