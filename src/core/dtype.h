// Dtypes: sizes, PyTorch names, type promotion and the scalar conversions
// every cast in the engine goes through.
#ifndef BCAST_CORE_DTYPE_H_
#define BCAST_CORE_DTYPE_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "bcast/bcast.h"

namespace bcast {

constexpr int kNumDtypes = 10;

inline bool ValidDtype(int d) { return d >= 0 && d < kNumDtypes; }
inline size_t DtypeSize(bc_dtype d) {
  static constexpr size_t kSize[kNumDtypes] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8};
  return ValidDtype(d) ? kSize[d] : 0;
}
const char* DtypeName(bc_dtype d);        // "Float", as PyTorch prints ScalarType
const char* DtypeTensorName(bc_dtype d);  // "torch.FloatTensor"
constexpr bool IsFloating(bc_dtype d) { return d >= BC_FLOAT16; }
inline bool IsIntegral(bc_dtype d) { return d >= BC_UINT8 && d <= BC_INT64; }
constexpr bool IsHalf(bc_dtype d) { return d == BC_FLOAT16 || d == BC_BFLOAT16; }
// 0 bool, 1 integer, 2 floating.
inline int Category(bc_dtype d) { return d == BC_BOOL ? 0 : (IsFloating(d) ? 2 : 1); }

bc_dtype PromoteTypes(bc_dtype a, bc_dtype b);
// PyTorch's canCast: no float -> integral, no non-bool -> bool.
bool CanCast(bc_dtype from, bc_dtype to);

// 16-bit float storage types: distinct C++ types so templates can tell them apart.
struct f16 { uint16_t bits; };
struct bf16 { uint16_t bits; };

float F16ToF32(uint16_t h);
uint16_t F32ToF16(float f);
inline float BF16ToF32(uint16_t h) {
  uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint16_t F32ToBF16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (std::isnan(f)) return static_cast<uint16_t>((u >> 16) | 0x40);  // stay a quiet NaN
  u += 0x7FFF + ((u >> 16) & 1);  // round to nearest even
  return static_cast<uint16_t>(u >> 16);
}

// Float to integer the way x86's truncating conversion (and so PyTorch on
// x86) behaves, without undefined behaviour: NaN and out-of-range values give
// the "integer indefinite" value, narrow types convert through int32 and wrap.
template <typename I, typename F>
I FloatToInt(F v) {
  if constexpr (sizeof(I) >= 4) {
    using S = std::conditional_t<sizeof(I) == 8, int64_t, int32_t>;
    constexpr F lo = static_cast<F>(std::numeric_limits<S>::min());
    constexpr F hi = -lo;  // 2^31 or 2^63, exactly representable
    if (!(v >= lo && v < hi)) return static_cast<I>(std::numeric_limits<S>::min());
    return static_cast<I>(static_cast<S>(v));
  } else {
    return static_cast<I>(static_cast<uint32_t>(FloatToInt<int32_t>(v)));
  }
}

// Converts one value between any two storage types.
template <typename To, typename From>
inline To Convert(From v) {
  if constexpr (std::is_same_v<From, f16>) {
    return Convert<To>(F16ToF32(v.bits));
  } else if constexpr (std::is_same_v<From, bf16>) {
    return Convert<To>(BF16ToF32(v.bits));
  } else if constexpr (std::is_same_v<To, f16>) {
    return f16{F32ToF16(static_cast<float>(Convert<float>(v)))};
  } else if constexpr (std::is_same_v<To, bf16>) {
    return bf16{F32ToBF16(static_cast<float>(Convert<float>(v)))};
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    return FloatToInt<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

// Calls f(T{}) with the storage type of `d`.
template <class F>
decltype(auto) VisitDtype(bc_dtype d, F&& f) {
  switch (d) {
    case BC_BOOL: return f(bool{});
    case BC_UINT8: return f(uint8_t{});
    case BC_INT8: return f(int8_t{});
    case BC_INT16: return f(int16_t{});
    case BC_INT32: return f(int32_t{});
    case BC_INT64: return f(int64_t{});
    case BC_FLOAT16: return f(f16{});
    case BC_BFLOAT16: return f(bf16{});
    case BC_FLOAT32: return f(float{});
    case BC_FLOAT64: break;
  }
  return f(double{});
}

// Converts n elements from (src, src_stride) to (dst, dst_stride).
void ConvertStrided(bc_dtype to, void* dst, int64_t dst_stride, bc_dtype from, const void* src,
                    int64_t src_stride, int64_t n);
// The same, rounding each value through `via` on the way (PyTorch casts
// inputs to the common dtype, and results from it, even when it computes a
// half-precision op in float32).
void ConvertStridedVia(bc_dtype to, void* dst, int64_t dst_stride, bc_dtype via, bc_dtype from,
                       const void* src, int64_t src_stride, int64_t n);

}  // namespace bcast

#endif  // BCAST_CORE_DTYPE_H_
