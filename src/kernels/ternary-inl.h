// Three-input kernels: where, addcmul, addcdiv, lerp, clamp.

#if defined(BCAST_KERNELS_TERNARY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BCAST_KERNELS_TERNARY_INL_H_
#undef BCAST_KERNELS_TERNARY_INL_H_
#else
#define BCAST_KERNELS_TERNARY_INL_H_
#endif

#include <limits>
#include <type_traits>

#include "hwy/highway.h"
#include "kernels/kernels.h"
#include "kernels/loops-inl.h"
#include "kernels/scalar_ops.h"

HWY_BEFORE_NAMESPACE();
namespace bcast {
namespace HWY_NAMESPACE {

// Each op says whether it has a vector form (kVec); those that do give the
// first input's vector from memory (First) or from one value (FirstSet).
struct LoadFirst {
  template <class D, typename T>
  HWY_INLINE auto First(D d, const T* p) const { return hn::LoadU(d, p); }
  template <class D, typename T>
  HWY_INLINE auto FirstSet(D d, T v) const { return hn::Set(d, v); }
};

// The condition's bytes become a mask of the value lanes (4-byte lanes).
template <typename T>
struct WhereF {
  static constexpr bool kVec = sizeof(T) == 4;
  static constexpr bool kPrefetch = true;
  HWY_INLINE T operator()(bool c, T a, T b) const { return c ? a : b; }
  template <class D>
  HWY_INLINE auto First(D d, const bool* p) const {
    const hn::RebindToUnsigned<D> du;
    const hn::Rebind<uint8_t, D> d8;
    const auto bytes = hn::LoadU(d8, reinterpret_cast<const uint8_t*>(p));
    return hn::RebindMask(d, hn::Ne(hn::PromoteTo(du, bytes), hn::Zero(du)));
  }
  template <class D>
  HWY_INLINE auto FirstSet(D d, bool v) const {
    const hn::RebindToUnsigned<D> du;
    return hn::RebindMask(d, hn::Ne(hn::Set(du, v ? 1u : 0u), hn::Zero(du)));
  }
  template <class D, class M, class V>
  HWY_INLINE V Vec(D, M m, V a, V b) const { return hn::IfThenElse(m, a, b); }
};
// (value * a) * b, rounded step by step, then added: no fused multiply-add.
template <typename T>
struct AddcmulF : LoadFirst {
  T value;
  explicit AddcmulF(T v) : value(v) {}
  static constexpr bool kVec = std::is_floating_point_v<T>;
  static constexpr bool kPrefetch = true;
  HWY_INLINE T operator()(T s, T a, T b) const {
    return scalar::Add(s, scalar::Mul(scalar::Mul(value, a), b));
  }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V s, V a, V b) const {
    return hn::Add(s, hn::Mul(hn::Mul(hn::Set(d, value), a), b));
  }
};
template <typename T>
struct AddcdivF {
  T value;
  static constexpr bool kVec = false;
  HWY_INLINE T operator()(T s, T a, T b) const { return s + value * a / b; }
};
template <typename T>
struct LerpF {
  static constexpr bool kVec = false;
  HWY_INLINE T operator()(T s, T e, T w) const { return scalar::Lerp(s, e, w); }
};
// scalar::Clamp lane by lane: NaN anywhere gives NaN, else min(max(x, lo), hi)
// with the same choice between equal values (and so between -0 and +0).
template <typename T>
struct ClampF : LoadFirst {
  static constexpr bool kVec = std::is_floating_point_v<T> || std::is_same_v<T, int32_t>;
  static constexpr bool kPrefetch = true;
  HWY_INLINE T operator()(T x, T lo, T hi) const { return scalar::Clamp(x, lo, hi); }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V x, V lo, V hi) const {
    const V m = hn::IfThenElse(hn::Lt(x, lo), lo, x);
    const V r = hn::IfThenElse(hn::Lt(hi, m), hi, m);
    if constexpr (std::is_floating_point_v<T>) {
      const auto nan = hn::Or(hn::IsNaN(x), hn::Or(hn::IsNaN(lo), hn::IsNaN(hi)));
      return hn::IfThenElse(nan, hn::Set(d, std::numeric_limits<T>::quiet_NaN()), r);
    } else {
      (void)d;
      return r;
    }
  }
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
    if (b.op == kAddcmul) return Rows3<T, T, T>(b, AddcmulF<T>(ValueAs<T>(b.scalar)));
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
