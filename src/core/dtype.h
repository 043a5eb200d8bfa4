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

// 16-bit float storage types: distinct C++ types so templates can tell them apart.
struct f16 { uint16_t bits; };
struct bf16 { uint16_t bits; };

// A dtype's kind (src/core/dtype_table.def): promotion's categories.
enum DtypeKind : uint8_t { kBoolKind, kUnsignedKind, kSignedKind, kFloatKind };

namespace dtype_table {
#define BCAST_DTYPE(Id, CType, kind, torch, cpp, checked, tensor, dlpack) +1
constexpr int kCount = 0
#include "core/dtype_table.def"
    ;
#define BCAST_DTYPE(Id, CType, kind, torch, cpp, checked, tensor, dlpack) sizeof(CType),
constexpr uint8_t kSize[] = {
#include "core/dtype_table.def"
};
#define BCAST_DTYPE(Id, CType, kind, torch, cpp, checked, tensor, dlpack) kind,
constexpr DtypeKind kKind[] = {
#include "core/dtype_table.def"
};
// Listed in value order: each row's position is its bc_dtype value.
#define BCAST_DTYPE(Id, CType, kind, torch, cpp, checked, tensor, dlpack) BC_##Id,
constexpr bc_dtype kValue[] = {
#include "core/dtype_table.def"
};
constexpr bool InValueOrder() {
  for (int i = 0; i < kCount; ++i)
    if (kValue[i] != i) return false;
  return true;
}
static_assert(InValueOrder(), "dtype_table.def must list the dtypes in bc_dtype value order");
}  // namespace dtype_table

constexpr int kNumDtypes = dtype_table::kCount;

constexpr bool ValidDtype(int d) { return d >= 0 && d < kNumDtypes; }
constexpr size_t DtypeSize(bc_dtype d) { return ValidDtype(d) ? dtype_table::kSize[d] : 0; }
constexpr DtypeKind KindOf(bc_dtype d) { return dtype_table::kKind[d]; }
const char* DtypeName(bc_dtype d);        // "Float", as PyTorch prints ScalarType
const char* DtypeTensorName(bc_dtype d);  // "torch.FloatTensor"
const char* CppTypeName(bc_dtype d);      // "long int", as PyTorch's TypeMeta prints it
const char* CheckedTypeName(bc_dtype d);  // "int64_t", as c10::checked_convert names it
// Predicates from the table's kinds and widths, one bit each per dtype (the
// small-op path asks them several times a call).
namespace dtype_table {
enum : uint8_t { kFloatingBit = 1, kIntegralBit = 2, kHalfBit = 4 };
constexpr uint8_t Flags(int d) {
  return static_cast<uint8_t>((kKind[d] == kFloatKind ? kFloatingBit : 0) |
                              (kKind[d] == kUnsignedKind || kKind[d] == kSignedKind ? kIntegralBit : 0) |
                              (kKind[d] == kFloatKind && kSize[d] == 2 ? kHalfBit : 0));
}
constexpr uint8_t kFlags[] = {Flags(0), Flags(1), Flags(2), Flags(3), Flags(4),
                              Flags(5), Flags(6), Flags(7), Flags(8), Flags(9)};
static_assert(sizeof kFlags == kCount, "one flag set per dtype");
}  // namespace dtype_table
constexpr bool HasFlag(bc_dtype d, uint8_t bit) {
  return static_cast<unsigned>(d) < static_cast<unsigned>(kNumDtypes) && (dtype_table::kFlags[d] & bit);
}
constexpr bool IsFloating(bc_dtype d) { return HasFlag(d, dtype_table::kFloatingBit); }
constexpr bool IsIntegral(bc_dtype d) { return HasFlag(d, dtype_table::kIntegralBit); }
constexpr bool IsHalf(bc_dtype d) { return HasFlag(d, dtype_table::kHalfBit); }
// 0 bool, 1 integer, 2 floating.
constexpr int Category(bc_dtype d) { return KindOf(d) == kBoolKind ? 0 : IsFloating(d) ? 2 : 1; }

bc_dtype PromoteTypes(bc_dtype a, bc_dtype b);
// PyTorch's canCast: no float -> integral, no non-bool -> bool.
bool CanCast(bc_dtype from, bc_dtype to);

float F16ToF32(uint16_t h);
// float32 to float16, rounded to nearest even (inline: the reductions'
// half outputs convert one value at a time).
inline uint16_t F32ToF16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000);
  uint32_t a = u & 0x7FFFFFFF;
  if (a > 0x7F800000) return sign | 0x7E00 | static_cast<uint16_t>((a >> 13) & 0x1FF);  // NaN
  if (a >= 0x477FF000) return sign | 0x7C00;  // rounds to >= 65520: infinity
  if (a < 0x38800000) {  // below the smallest normal half: subnormal or zero
    if (a < 0x33000000) return sign;  // < 2^-25 rounds to zero (2^-25 itself ties to even 0)
    uint32_t e = a >> 23;
    uint32_t man = (a & 0x7FFFFF) | 0x800000;
    uint32_t shift = 126 - e;  // 14..24 bits: value = man * 2^(e-150), half unit = 2^-24
    uint32_t q = man >> shift;
    uint32_t rem = man & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (q & 1))) ++q;
    return sign | static_cast<uint16_t>(q);
  }
  uint32_t r = a + 0xFFF + ((a >> 13) & 1);  // round mantissa to 10 bits, nearest even
  return sign | static_cast<uint16_t>((r - 0x38000000) >> 13);
}
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

// Calls f(T{}) with the storage type of `d` (an invalid d: the last row's).
template <class F>
decltype(auto) VisitDtype(bc_dtype d, F&& f) {
  switch (d) {
#define BCAST_DTYPE(Id, CType, kind, torch, cpp, checked, tensor, dlpack) \
  case BC_##Id:                                                         \
    return f(CType{});
#include "core/dtype_table.def"
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
