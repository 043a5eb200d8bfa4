// Binary (and copy) kernels: op functors over the scalar semantics of
// scalar_ops.h, with Highway vector forms where they are exact.

#if defined(BCAST_KERNELS_BINARY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BCAST_KERNELS_BINARY_INL_H_
#undef BCAST_KERNELS_BINARY_INL_H_
#else
#define BCAST_KERNELS_BINARY_INL_H_
#endif

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "hwy/highway.h"
#include "kernels/bf16-inl.h"
#include "kernels/kernels.h"
#include "kernels/loops-inl.h"
#include "kernels/scalar_ops.h"

HWY_BEFORE_NAMESPACE();
namespace bcast {
namespace HWY_NAMESPACE {

template <typename T>
constexpr bool kFloat = std::is_floating_point_v<T>;
template <typename T>
constexpr bool kIntT = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// A functor from a scalar function, with no vector form.
#define BCAST_SCALAR_FUNCTOR(NAME, EXPR)             \
  template <typename T>                              \
  struct NAME {                                      \
    static constexpr bool kVec = false;              \
    HWY_INLINE auto operator()(T a, T b) const { return EXPR; } \
  }

BCAST_SCALAR_FUNCTOR(DivTruncF, scalar::DivTrunc(a, b));
BCAST_SCALAR_FUNCTOR(DivFloorF, scalar::DivFloor(a, b));
BCAST_SCALAR_FUNCTOR(RemainderF, scalar::Remainder(a, b));
BCAST_SCALAR_FUNCTOR(FmodF, scalar::Fmod(a, b));
BCAST_SCALAR_FUNCTOR(PowF, scalar::Pow(a, b));
BCAST_SCALAR_FUNCTOR(FmaxF, scalar::Fmax(a, b));
BCAST_SCALAR_FUNCTOR(FminF, scalar::Fmin(a, b));
BCAST_SCALAR_FUNCTOR(Atan2F, std::atan2(a, b));
BCAST_SCALAR_FUNCTOR(HypotF, std::hypot(a, b));
BCAST_SCALAR_FUNCTOR(CopysignF, std::copysign(a, b));
BCAST_SCALAR_FUNCTOR(LogicalAndF, static_cast<bool>(a && b));
BCAST_SCALAR_FUNCTOR(LogicalOrF, static_cast<bool>(a || b));
BCAST_SCALAR_FUNCTOR(LogicalXorF, static_cast<bool>(static_cast<bool>(a) != static_cast<bool>(b)));
BCAST_SCALAR_FUNCTOR(BitAndF, static_cast<T>(a & b));
BCAST_SCALAR_FUNCTOR(BitOrF, static_cast<T>(a | b));
BCAST_SCALAR_FUNCTOR(BitXorF, static_cast<T>(a ^ b));
BCAST_SCALAR_FUNCTOR(ShlF, scalar::ShiftLeft(a, b));
BCAST_SCALAR_FUNCTOR(ShrF, scalar::ShiftRight(a, b));
#undef BCAST_SCALAR_FUNCTOR

// Comparisons: a mask per vector for 4-byte lanes (Loop2 stores it as bytes).
// NaN compares unequal to everything, as in C++: Ne is Not(Eq), not the
// ordered not-equal predicate.
// (Highway 1.0.3 has Le/Ge for floats only; integers have no NaN.)
template <typename T, class V>
HWY_INLINE auto LeVec(V a, V b) {
  if constexpr (kFloat<T>) return hn::Le(a, b);
  else return hn::Not(hn::Gt(a, b));
}
#define BCAST_COMPARE_FUNCTOR(NAME, EXPR, VEXPR)                                  \
  template <typename T>                                                          \
  struct NAME {                                                                  \
    static constexpr bool kVec = kFloat<T> || std::is_same_v<T, int32_t>;        \
    static constexpr bool kPrefetch = true;                                      \
    HWY_INLINE bool operator()(T a, T b) const { return EXPR; }                  \
    template <class D, class V>                                                  \
    HWY_INLINE auto Vec(D, V a, V b) const { return VEXPR; }                     \
  }
BCAST_COMPARE_FUNCTOR(EqF, a == b, hn::Eq(a, b));
BCAST_COMPARE_FUNCTOR(NeF, a != b, hn::Not(hn::Eq(a, b)));
BCAST_COMPARE_FUNCTOR(LtF, a < b, hn::Lt(a, b));
BCAST_COMPARE_FUNCTOR(LeF, a <= b, LeVec<T>(a, b));
BCAST_COMPARE_FUNCTOR(GtF, a > b, hn::Gt(a, b));
BCAST_COMPARE_FUNCTOR(GeF, a >= b, LeVec<T>(b, a));
#undef BCAST_COMPARE_FUNCTOR

// Highway's Add/Sub wrap for integers, exactly as scalar::Add/Sub do.
template <typename T>
struct AddF {
  static constexpr bool kVec = kFloat<T> || kIntT<T>;
  HWY_INLINE T operator()(T a, T b) const { return scalar::Add(a, b); }
  template <class D, class V>
  HWY_INLINE V Vec(D, V a, V b) const { return hn::Add(a, b); }
};
template <typename T>
struct SubF {
  static constexpr bool kVec = kFloat<T> || kIntT<T>;
  HWY_INLINE T operator()(T a, T b) const { return scalar::Sub(a, b); }
  template <class D, class V>
  HWY_INLINE V Vec(D, V a, V b) const { return hn::Sub(a, b); }
};
// a + alpha*b and a - alpha*b: the product is rounded before the sum.
template <typename T>
struct AddAlphaF {
  T alpha;
  static constexpr bool kVec = kFloat<T>;
  HWY_INLINE T operator()(T a, T b) const { return scalar::Add(a, scalar::Mul(alpha, b)); }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V a, V b) const { return hn::Add(a, hn::Mul(hn::Set(d, alpha), b)); }
};
template <typename T>
struct SubAlphaF {
  T alpha;
  static constexpr bool kVec = kFloat<T>;
  HWY_INLINE T operator()(T a, T b) const { return scalar::Sub(a, scalar::Mul(alpha, b)); }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V a, V b) const { return hn::Sub(a, hn::Mul(hn::Set(d, alpha), b)); }
};
template <typename T>
struct MulF {
  static constexpr bool kVec = kFloat<T>;
  HWY_INLINE T operator()(T a, T b) const { return scalar::Mul(a, b); }
  template <class D, class V>
  HWY_INLINE V Vec(D, V a, V b) const { return hn::Mul(a, b); }
};
template <typename T>
struct DivF {
  static constexpr bool kVec = kFloat<T>;
  HWY_INLINE T operator()(T a, T b) const { return a / b; }
  template <class D, class V>
  HWY_INLINE V Vec(D, V a, V b) const { return hn::Div(a, b); }
};
// NaN-propagating max/min; on ties the first operand wins, as std::max does.
template <typename T>
struct MaximumF {
  static constexpr bool kVec = kFloat<T>;
  HWY_INLINE T operator()(T a, T b) const { return scalar::Maximum(a, b); }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V a, V b) const {
    const V m = hn::IfThenElse(hn::Lt(a, b), b, a);
    const auto nan = hn::Or(hn::IsNaN(a), hn::IsNaN(b));
    return hn::IfThenElse(nan, hn::Set(d, std::numeric_limits<T>::quiet_NaN()), m);
  }
};
template <typename T>
struct MinimumF {
  static constexpr bool kVec = kFloat<T>;
  HWY_INLINE T operator()(T a, T b) const { return scalar::Minimum(a, b); }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V a, V b) const {
    const V m = hn::IfThenElse(hn::Lt(b, a), b, a);
    const auto nan = hn::Or(hn::IsNaN(a), hn::IsNaN(b));
    return hn::IfThenElse(nan, hn::Set(d, std::numeric_limits<T>::quiet_NaN()), m);
  }
};

// A float32 op on bfloat16 storage: operands widen exactly, the result rounds
// once, as PyTorch computes bfloat16 ops. One pass, no float32 tiles.
template <class F>
struct BF16Of {
  F f;
  static constexpr bool kVec = F::kVec && HWY_TARGET != HWY_SCALAR;
  static constexpr bool kPrefetch = true;
  HWY_INLINE uint16_t operator()(uint16_t a, uint16_t b) const {
    return NarrowBF16(f(WidenBF16(a), WidenBF16(b)));
  }
#if HWY_TARGET != HWY_SCALAR  // (one lane has no halves)
  template <class D, class V>
  HWY_INLINE V Vec(D d, V a, V b) const {
    const hn::Half<D> dh;
    const hn::Repartition<float, D> df;
    const auto lo = f.Vec(df, WidenBF16(df, hn::LowerHalf(dh, a)),
                          WidenBF16(df, hn::LowerHalf(dh, b)));
    const auto hi = f.Vec(df, WidenBF16(df, hn::UpperHalf(dh, a)),
                          WidenBF16(df, hn::UpperHalf(dh, b)));
    return hn::Combine(d, NarrowBF16(df, hi), NarrowBF16(df, lo));
  }
#endif
};

template <typename T>
HWY_INLINE void CopyRows(const Block& b) {
  for (int64_t r = 0; r < b.n1; ++r) {
    T* o = reinterpret_cast<T*>(b.ptr[0]) + r * b.s1[0];
    const T* a = reinterpret_cast<const T*>(b.ptr[1]) + r * b.s1[1];
    if (b.s0[0] == 1 && b.s0[1] == 1) {
      std::memmove(o, a, static_cast<size_t>(b.n0) * sizeof(T));
    } else if (b.s0[0] == 1 && b.s0[1] == 0) {
      const T v = a[0];
      for (int64_t i = 0; i < b.n0; ++i) o[i] = v;
    } else {
      for (int64_t i = 0; i < b.n0; ++i) o[i * b.s0[0]] = a[i * b.s0[1]];
    }
  }
}

template <typename T>
HWY_INLINE T CastScalar(double v) {
  if constexpr (std::is_same_v<T, bool>) return v != 0;
  else if constexpr (kIntT<T>) {
    // Integral alphas are checked by the caller; wrap like an int64 would.
    return static_cast<T>(static_cast<int64_t>(v));
  } else return static_cast<T>(v);
}

template <typename T>
void BinaryTyped(const Block& b) {
  switch (b.op) {
    case kCopy: return CopyRows<T>(b);
    case BC_ADD:
      if (b.scalar == 1) return Rows2<T, T>(b, AddF<T>{});
      return Rows2<T, T>(b, AddAlphaF<T>{CastScalar<T>(b.scalar)});
    case BC_SUB:
      if constexpr (!std::is_same_v<T, bool>) {
        if (b.scalar == 1) return Rows2<T, T>(b, SubF<T>{});
        return Rows2<T, T>(b, SubAlphaF<T>{CastScalar<T>(b.scalar)});
      }
      break;
    case BC_MUL: return Rows2<T, T>(b, MulF<T>{});
    case BC_MAXIMUM: return Rows2<T, T>(b, MaximumF<T>{});
    case BC_MINIMUM: return Rows2<T, T>(b, MinimumF<T>{});
    case BC_FMAX: return Rows2<T, T>(b, FmaxF<T>{});
    case BC_FMIN: return Rows2<T, T>(b, FminF<T>{});
    case BC_EQ: return Rows2<bool, T>(b, EqF<T>{});
    case BC_NE: return Rows2<bool, T>(b, NeF<T>{});
    case BC_LT: return Rows2<bool, T>(b, LtF<T>{});
    case BC_LE: return Rows2<bool, T>(b, LeF<T>{});
    case BC_GT: return Rows2<bool, T>(b, GtF<T>{});
    case BC_GE: return Rows2<bool, T>(b, GeF<T>{});
    case BC_LOGICAL_AND: return Rows2<bool, T>(b, LogicalAndF<T>{});
    case BC_LOGICAL_OR: return Rows2<bool, T>(b, LogicalOrF<T>{});
    case BC_LOGICAL_XOR: return Rows2<bool, T>(b, LogicalXorF<T>{});
    default: break;
  }
  if constexpr (!std::is_same_v<T, bool>) {
    switch (b.op) {
      case BC_DIV_TRUNC: return Rows2<T, T>(b, DivTruncF<T>{});
      case BC_DIV_FLOOR: return Rows2<T, T>(b, DivFloorF<T>{});
      case BC_REMAINDER: return Rows2<T, T>(b, RemainderF<T>{});
      case BC_FMOD: return Rows2<T, T>(b, FmodF<T>{});
      case BC_POW: return Rows2<T, T>(b, PowF<T>{});
      default: break;
    }
  }
  if constexpr (kFloat<T>) {
    switch (b.op) {
      case BC_DIV: return Rows2<T, T>(b, DivF<T>{});
      case BC_ATAN2: return Rows2<T, T>(b, Atan2F<T>{});
      case BC_HYPOT: return Rows2<T, T>(b, HypotF<T>{});
      case BC_COPYSIGN: return Rows2<T, T>(b, CopysignF<T>{});
      default: break;
    }
  } else {
    switch (b.op) {
      case BC_BITWISE_AND: return Rows2<T, T>(b, BitAndF<T>{});
      case BC_BITWISE_OR: return Rows2<T, T>(b, BitOrF<T>{});
      case BC_BITWISE_XOR: return Rows2<T, T>(b, BitXorF<T>{});
      default: break;
    }
    if constexpr (kIntT<T>) {
      switch (b.op) {
        case BC_SHIFT_LEFT: return Rows2<T, T>(b, ShlF<T>{});
        case BC_SHIFT_RIGHT: return Rows2<T, T>(b, ShrF<T>{});
        default: break;
      }
    }
  }
}

// The ops of HasBF16Kernel, on bfloat16 operands and result.
void BinaryBF16(const Block& b) {
  using T = uint16_t;
  switch (b.op) {
    case BC_ADD:
      if (b.scalar == 1) return Rows2<T, T>(b, BF16Of<AddF<float>>{{}});
      return Rows2<T, T>(b, BF16Of<AddAlphaF<float>>{{CastScalar<float>(b.scalar)}});
    case BC_SUB:
      if (b.scalar == 1) return Rows2<T, T>(b, BF16Of<SubF<float>>{{}});
      return Rows2<T, T>(b, BF16Of<SubAlphaF<float>>{{CastScalar<float>(b.scalar)}});
    case BC_MUL: return Rows2<T, T>(b, BF16Of<MulF<float>>{{}});
    case BC_DIV: return Rows2<T, T>(b, BF16Of<DivF<float>>{{}});
    case BC_MAXIMUM: return Rows2<T, T>(b, BF16Of<MaximumF<float>>{{}});
    case BC_MINIMUM: return Rows2<T, T>(b, BF16Of<MinimumF<float>>{{}});
    default: return;
  }
}

void BinaryKernel(const Block& b) {
  switch (b.dtype) {
    case BC_BOOL: return BinaryTyped<bool>(b);
    case BC_UINT8: return BinaryTyped<uint8_t>(b);
    case BC_INT8: return BinaryTyped<int8_t>(b);
    case BC_INT16: return BinaryTyped<int16_t>(b);
    case BC_INT32: return BinaryTyped<int32_t>(b);
    case BC_INT64: return BinaryTyped<int64_t>(b);
    case BC_FLOAT32: return BinaryTyped<float>(b);
    case BC_FLOAT64: return BinaryTyped<double>(b);
    case BC_BFLOAT16: return BinaryBF16(b);
    default: return;  // other half ops are computed in float32 tiles by the executor
  }
}

const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace bcast
HWY_AFTER_NAMESPACE();

#endif  // BCAST_KERNELS_BINARY_INL_H_
