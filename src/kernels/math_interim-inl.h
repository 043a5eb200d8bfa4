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
BCAST_INTERIM(Exp, std::exp(a))
BCAST_INTERIM(Exp2, std::exp2(a))
BCAST_INTERIM(Expm1, std::expm1(a))
BCAST_INTERIM(Log, std::log(a))
BCAST_INTERIM(Log2, std::log2(a))
BCAST_INTERIM(Log10, std::log10(a))
BCAST_INTERIM(Log1p, std::log1p(a))
BCAST_INTERIM(Sin, std::sin(a))
BCAST_INTERIM(Cos, std::cos(a))
BCAST_INTERIM(Tan, std::tan(a))
BCAST_INTERIM(Asin, std::asin(a))
BCAST_INTERIM(Acos, std::acos(a))
BCAST_INTERIM(Atan, std::atan(a))
BCAST_INTERIM(Sinh, std::sinh(a))
BCAST_INTERIM(Cosh, std::cosh(a))
BCAST_INTERIM(Tanh, std::tanh(a))
BCAST_INTERIM(Asinh, std::asinh(a))
BCAST_INTERIM(Acosh, std::acosh(a))
BCAST_INTERIM(Atanh, std::atanh(a))
BCAST_INTERIM(Erf, std::erf(a))
BCAST_INTERIM(Erfc, std::erfc(a))
BCAST_INTERIM(Erfinv, a)
BCAST_INTERIM(Sigmoid, 1 / (1 + std::exp(-a)))
BCAST_INTERIM(Silu, a / (1 + std::exp(-a)))
BCAST_INTERIM(Mish, a * std::tanh(std::log1p(std::exp(a))))
BCAST_INTERIM(Logit, std::log(a / (1 - a)))
BCAST_INTERIM(GeluErf, 0.5 * a * std::erfc(-a / std::sqrt(2.0)))
BCAST_INTERIM(GeluTanh, 0.5 * a * (1 + std::tanh(0.7978845608028654 * (a + 0.044715 * a * a * a))))
#undef BCAST_INTERIM
template <class D> HWY_INLINE hn::VFromD<D> Softplus(D d, hn::VFromD<D> x, double beta, double th) {
  return Lanes(d, x, [=](double a) { return a * beta > th ? a : std::log1p(std::exp(a * beta)) / beta; });
}
template <class D> HWY_INLINE hn::VFromD<D> Elu(D d, hn::VFromD<D> x, double alpha) {
  return Lanes(d, x, [=](double a) { return a > 0 ? a : alpha * std::expm1(a); });
}
}  // namespace math
}  // namespace HWY_NAMESPACE
}  // namespace bcast
HWY_AFTER_NAMESPACE();
#endif
