// Contiguous float32 <-> bfloat16/float16 and integer -> float32 conversion,
// compiled once per SIMD target: the loads and stores of half ops that the
// executor computes in float32 tiles (comparisons, and operands of mixed
// dtypes), the int64 operands of ops computed in float32; and the target's
// name.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/convert.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include <cstring>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "kernels/functors-inl.h"
#include "kernels/dispatch.h"

HWY_BEFORE_NAMESPACE();
namespace bcast {
namespace HWY_NAMESPACE {

// The executor converts a tile of each operand in turn, which hardware
// prefetchers follow poorly: the widening fetches a few tiles ahead.
constexpr int64_t kPrefetchAhead = 4096;  // elements

// Half storage (Fmt: BF16Format or F16Format of functors-inl.h) to float32.
template <class Fmt>
void WidenRow(float* dst, const uint16_t* src, int64_t n) {
  int64_t i = 0;
  if constexpr (Fmt::kVec) {
    const hn::ScalableTag<float> df;
    const hn::Rebind<uint16_t, decltype(df)> du16;
    const int64_t N = static_cast<int64_t>(hn::Lanes(df));
    for (; i + N <= n; i += N) {
      hwy::Prefetch(src + i + kPrefetchAhead);  // never faults, even past the end
      hn::StoreU(Fmt::Widen(df, hn::LoadU(du16, src + i)), df, dst + i);
    }
  }
  for (; i < n; ++i) dst[i] = Fmt::Widen(src[i]);
}

template <class Fmt>
void NarrowRow(uint16_t* dst, const float* src, int64_t n, bool stream) {
  int64_t i = 0;
#if HWY_TARGET != HWY_SCALAR  // (one lane has no halves)
  if constexpr (Fmt::kVec) {
    // Whole vectors of halves (two of floats): Stream writes a whole
    // register even for a partial vector.
    const hn::ScalableTag<uint16_t> d16;
    const hn::Repartition<float, decltype(d16)> df;
    const int64_t N = static_cast<int64_t>(hn::Lanes(d16)), H = N / 2;
    auto narrow = [&](int64_t at) {
      return hn::Combine(d16, Fmt::Narrow(df, hn::LoadU(df, src + at + H)),
                         Fmt::Narrow(df, hn::LoadU(df, src + at)));
    };
    if (stream) {
      const uintptr_t align = static_cast<uintptr_t>(N) * sizeof(uint16_t);
      for (; i < n && reinterpret_cast<uintptr_t>(dst + i) % align != 0; ++i)
        dst[i] = Fmt::Narrow(src[i]);
      for (; i + N <= n; i += N) hn::Stream(narrow(i), d16, dst + i);
    }
    for (; i + N <= n; i += N) hn::StoreU(narrow(i), d16, dst + i);
  }
#endif
  (void)stream;
  for (; i < n; ++i) dst[i] = Fmt::Narrow(src[i]);
}

void BF16ToF32Row(float* dst, const uint16_t* src, int64_t n) { WidenRow<BF16Format>(dst, src, n); }
void F16ToF32Row(float* dst, const uint16_t* src, int64_t n) { WidenRow<F16Format>(dst, src, n); }
void F32ToBF16Row(uint16_t* dst, const float* src, int64_t n, bool stream) {
  NarrowRow<BF16Format>(dst, src, n, stream);
}
void F32ToF16Row(uint16_t* dst, const float* src, int64_t n, bool stream) {
  NarrowRow<F16Format>(dst, src, n, stream);
}

// int64 to float32 as C converts (one rounding to nearest even): through
// float64, exact while |x| < 2^53; a vector with a larger lane converts
// lane by lane.
void Int64ToF32Row(float* dst, const int64_t* src, int64_t n) {
  int64_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<int64_t> di;
  const hn::Rebind<double, decltype(di)> dd;
  const hn::Rebind<float, decltype(di)> df;
  const int64_t N = static_cast<int64_t>(hn::Lanes(di));
  const auto limit = hn::Set(di, int64_t{1} << 53), neg_limit = hn::Set(di, -(int64_t{1} << 53));
  for (; i + N <= n; i += N) {
    hwy::Prefetch(src + i + kPrefetchAhead);
    const auto v = hn::LoadU(di, src + i);
    if (hn::AllTrue(di, hn::And(hn::Lt(v, limit), hn::Gt(v, neg_limit)))) {
      hn::StoreU(hn::DemoteTo(df, hn::ConvertTo(dd, v)), df, dst + i);
    } else {
      for (int64_t k = i; k < i + N; ++k) dst[k] = static_cast<float>(src[k]);
    }
  }
#endif
  for (; i < n; ++i) dst[i] = static_cast<float>(src[i]);
}

// int32, int16, int8, uint8 (and bool's 0/1 bytes) to float32 as C converts
// (int32 rounds once to nearest even, as cvtdq2ps does): the integer
// operands of ops computed in float32 (true division, atan2, copysign).
template <typename T>
void IntToF32(float* dst, const T* src, int64_t n) {
  int64_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<float> df;
  const hn::Rebind<int32_t, decltype(df)> di;
  const int64_t N = static_cast<int64_t>(hn::Lanes(df));
  for (; i + N <= n; i += N) {
    hwy::Prefetch(src + i + kPrefetchAhead);
    if constexpr (std::is_same_v<T, int32_t>) {
      hn::StoreU(hn::ConvertTo(df, hn::LoadU(di, src + i)), df, dst + i);
    } else {
      const hn::Rebind<T, decltype(df)> dt;
      hn::StoreU(hn::ConvertTo(df, hn::PromoteTo(di, hn::LoadU(dt, src + i))), df, dst + i);
    }
  }
#endif
  for (; i < n; ++i) dst[i] = static_cast<float>(src[i]);
}

void IntToF32Row(float* dst, const void* src, int64_t n, bc_dtype from) {
  switch (from) {
    case BC_INT32: return IntToF32(dst, static_cast<const int32_t*>(src), n);
    case BC_INT16: return IntToF32(dst, static_cast<const int16_t*>(src), n);
    case BC_INT8: return IntToF32(dst, static_cast<const int8_t*>(src), n);
    default: return IntToF32(dst, static_cast<const uint8_t*>(src), n);  // uint8, bool
  }
}

// n bytes from src to dst with streaming stores on whole aligned vectors:
// a tile the executor wrote in L1 (a host loop's output) leaving for
// memory without being read for ownership.
void StreamBytesRow(void* dst, const void* src, int64_t n) {
  uint8_t* d = static_cast<uint8_t*>(dst);
  const uint8_t* s = static_cast<const uint8_t*>(src);
  int64_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<uint8_t> du8;
  const int64_t N = static_cast<int64_t>(hn::Lanes(du8));
  const uintptr_t align = static_cast<uintptr_t>(N);
  const int64_t head = static_cast<int64_t>((align - reinterpret_cast<uintptr_t>(d) % align) % align);
  if (n >= head + N) {
    std::memcpy(d, s, static_cast<size_t>(head));
    for (i = head; i + N <= n; i += N) hn::Stream(hn::LoadU(du8, s + i), du8, d + i);
  }
#endif
  std::memcpy(d + i, s + i, static_cast<size_t>(n - i));
}

const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace bcast
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace bcast {

HWY_EXPORT(BF16ToF32Row);
HWY_EXPORT(F16ToF32Row);
HWY_EXPORT(F32ToBF16Row);
HWY_EXPORT(F32ToF16Row);
HWY_EXPORT(Int64ToF32Row);
HWY_EXPORT(IntToF32Row);
HWY_EXPORT(StreamBytesRow);
HWY_EXPORT(TargetName);

const char* ChosenTargetName() { return HWY_DYNAMIC_DISPATCH(TargetName)(); }

bool RunConvertKernel(bc_dtype to, void* dst, bc_dtype from, const void* src, int64_t n,
                      bool stream) {
  if (to == from && stream) {
    CachedDispatch(g_stream_bytes_fn, HWY_DISPATCH_TABLE(StreamBytesRow))(
        dst, src, n * static_cast<int64_t>(DtypeSize(to)));
    return true;
  }
  if (to == BC_FLOAT32 && (from == BC_BFLOAT16 || from == BC_FLOAT16)) {
    const bool bf = from == BC_BFLOAT16;
    CachedDispatch(bf ? g_widen_bf16_fn : g_widen_f16_fn,
                   bf ? HWY_DISPATCH_TABLE(BF16ToF32Row) : HWY_DISPATCH_TABLE(F16ToF32Row))(
        static_cast<float*>(dst), static_cast<const uint16_t*>(src), n);
    return true;
  }
  if (from == BC_FLOAT32 && (to == BC_BFLOAT16 || to == BC_FLOAT16)) {
    const bool bf = to == BC_BFLOAT16;
    CachedDispatch(bf ? g_narrow_bf16_fn : g_narrow_f16_fn,
                   bf ? HWY_DISPATCH_TABLE(F32ToBF16Row) : HWY_DISPATCH_TABLE(F32ToF16Row))(
        static_cast<uint16_t*>(dst), static_cast<const float*>(src), n, stream);
    if (stream) hwy::FlushStream();
    return true;
  }
  if (to == BC_FLOAT32 && !stream &&
      (from == BC_INT32 || from == BC_INT16 || from == BC_INT8 || from == BC_UINT8 ||
       from == BC_BOOL)) {
    CachedDispatch(g_int_to_f32_fn, HWY_DISPATCH_TABLE(IntToF32Row))(static_cast<float*>(dst), src,
                                                                      n, from);
    return true;
  }
  if (to == BC_FLOAT32 && from == BC_INT64 && !stream) {
    CachedDispatch(g_int64_to_f32_fn, HWY_DISPATCH_TABLE(Int64ToF32Row))(
        static_cast<float*>(dst), static_cast<const int64_t*>(src), n);
    return true;
  }
  return false;
}

}  // namespace bcast
#endif  // HWY_ONCE
