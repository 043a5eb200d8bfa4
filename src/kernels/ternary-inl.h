// Three-input kernels: where, addcmul, addcdiv, lerp, clamp.

#if defined(BCAST_KERNELS_TERNARY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BCAST_KERNELS_TERNARY_INL_H_
#undef BCAST_KERNELS_TERNARY_INL_H_
#else
#define BCAST_KERNELS_TERNARY_INL_H_
#endif

#include <type_traits>

#include "hwy/highway.h"
#include "kernels/kernels.h"
#include "kernels/loops-inl.h"
#include "kernels/scalar_ops.h"

HWY_BEFORE_NAMESPACE();
namespace bcast {
namespace HWY_NAMESPACE {

template <typename T>
struct WhereF {
  HWY_INLINE T operator()(bool c, T a, T b) const { return c ? a : b; }
};
template <typename T>
struct AddcmulF {
  T value;
  HWY_INLINE T operator()(T s, T a, T b) const {
    return scalar::Add(s, scalar::Mul(scalar::Mul(value, a), b));
  }
};
template <typename T>
struct AddcdivF {
  T value;
  HWY_INLINE T operator()(T s, T a, T b) const { return s + value * a / b; }
};
template <typename T>
struct LerpF {
  HWY_INLINE T operator()(T s, T e, T w) const { return scalar::Lerp(s, e, w); }
};
template <typename T>
struct ClampF {
  HWY_INLINE T operator()(T x, T lo, T hi) const { return scalar::Clamp(x, lo, hi); }
};

template <typename T>
HWY_INLINE T ValueAs(double v) {
  if constexpr (std::is_same_v<T, bool>) return v != 0;
  else if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<int64_t>(v));
  else return static_cast<T>(v);
}

template <typename T>
void TernaryTyped(const Block& b) {
  switch (b.op) {
    case kWhere: return Rows3<T, bool, T>(b, WhereF<T>{});
    case kClamp: return Rows3<T, T, T>(b, ClampF<T>{});
    default: break;
  }
  if constexpr (!std::is_same_v<T, bool>) {
    if (b.op == kAddcmul) return Rows3<T, T, T>(b, AddcmulF<T>{ValueAs<T>(b.scalar)});
  }
  if constexpr (std::is_floating_point_v<T>) {
    if (b.op == kAddcdiv) return Rows3<T, T, T>(b, AddcdivF<T>{ValueAs<T>(b.scalar)});
    if (b.op == kLerp) return Rows3<T, T, T>(b, LerpF<T>{});
  }
}

void TernaryKernel(const Block& b) {
  switch (b.dtype) {
    case BC_BOOL: return TernaryTyped<bool>(b);
    case BC_UINT8: return TernaryTyped<uint8_t>(b);
    case BC_INT8: return TernaryTyped<int8_t>(b);
    case BC_INT16: return TernaryTyped<int16_t>(b);
    case BC_INT32: return TernaryTyped<int32_t>(b);
    case BC_INT64: return TernaryTyped<int64_t>(b);
    case BC_FLOAT32: return TernaryTyped<float>(b);
    case BC_FLOAT64: return TernaryTyped<double>(b);
    default: return;
  }
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace bcast
HWY_AFTER_NAMESPACE();

#endif  // BCAST_KERNELS_TERNARY_INL_H_
