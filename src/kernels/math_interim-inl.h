// Interim float64 math (libm lane by lane) until the vector math lands.
#if defined(BCAST_KERNELS_MATH_INTERIM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BCAST_KERNELS_MATH_INTERIM_INL_H_
#undef BCAST_KERNELS_MATH_INTERIM_INL_H_
#else
#define BCAST_KERNELS_MATH_INTERIM_INL_H_
#endif
#include <cmath>
#include "hwy/highway.h"
HWY_BEFORE_NAMESPACE();
namespace bcast {
namespace HWY_NAMESPACE {
namespace math {
namespace hn = hwy::HWY_NAMESPACE;
template <class D, class Fn>
HWY_INLINE hn::VFromD<D> Lanes(D d, hn::VFromD<D> x, Fn fn) {
  alignas(64) double v[hn::MaxLanes(d)];
  hn::Store(x, d, v);
  for (size_t i = 0; i < hn::Lanes(d); ++i) v[i] = fn(v[i]);
  return hn::Load(d, v);
}
#define BCAST_INTERIM(NAME, EXPR) \
  template <class D> HWY_INLINE hn::VFromD<D> NAME(D d, hn::VFromD<D> x) { return Lanes(d, x, [](double a) { return EXPR; }); }
BCAST_INTERIM(Sin, std::sin(a))
BCAST_INTERIM(Cos, std::cos(a))
BCAST_INTERIM(Tan, std::tan(a))
BCAST_INTERIM(Asin, std::asin(a))
BCAST_INTERIM(Acos, std::acos(a))
BCAST_INTERIM(Atan, std::atan(a))
BCAST_INTERIM(Erf, std::erf(a))
BCAST_INTERIM(Erfc, std::erfc(a))
BCAST_INTERIM(Erfinv, a)
BCAST_INTERIM(GeluErf, 0.5 * a * std::erfc(-a / std::sqrt(2.0)))
#undef BCAST_INTERIM
}  // namespace math
}  // namespace HWY_NAMESPACE
}  // namespace bcast
HWY_AFTER_NAMESPACE();
#endif
