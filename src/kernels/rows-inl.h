// The row loops: one op functor over one row of contiguous (or, for binary
// ops, one repeated) operands, in Highway vectors where the functor has a
// vector form, with streaming stores and prefetch. Everything about layout
// (strides, tiles, gathers, threads) is the executor's (src/core/execute.cc):
// these loops are all an op instantiates.

#if defined(BCAST_KERNELS_ROWS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BCAST_KERNELS_ROWS_INL_H_
#undef BCAST_KERNELS_ROWS_INL_H_
#else
#define BCAST_KERNELS_ROWS_INL_H_
#endif

#include <cstdint>
#include <type_traits>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "kernels/functors-inl.h"

HWY_BEFORE_NAMESPACE();
namespace bcast {
namespace HWY_NAMESPACE {

// Ops that set kPrefetch fetch their streaming inputs ahead.
template <class F, class = void>
struct WantsPrefetch : std::false_type {};
template <class F>
struct WantsPrefetch<F, std::void_t<decltype(F::kPrefetch)>> : std::bool_constant<F::kPrefetch> {};

constexpr int64_t kPrefetchBytes = 4096;
template <typename T>
HWY_INLINE void PrefetchAhead(const T* p) {
  hwy::Prefetch(reinterpret_cast<const char*>(p) + kPrefetchBytes);  // never faults
}

// Element i of an input that is contiguous (S == 1) or one value (S == 0).
template <int S, typename T>
HWY_INLINE T At(const T* p, int64_t i) {
  if constexpr (S == 0) return p[0];
  else return p[i];
}

// Non-temporal stores need aligned addresses: the scalar peel before them.
template <typename TO>
HWY_INLINE bool Aligned(const TO* o, uintptr_t align) {
  return reinterpret_cast<uintptr_t>(o) % align == 0;
}

template <int SA, int SB, typename TO, typename TI, class F>
HWY_INLINE void Loop2(int64_t n, TO* o, const TI* a, const TI* b, const F& f, bool stream) {
  int64_t i = 0;
  if constexpr (F::kVec && std::is_same_v<TO, TI>) {
    const hn::ScalableTag<TI> d;
    const int64_t N = static_cast<int64_t>(hn::Lanes(d));
    const auto a0 = hn::Set(d, a[0]);
    const auto b0 = hn::Set(d, b[0]);
    auto at = [&](int64_t j) {
      if constexpr (WantsPrefetch<F>::value) {
        if (SA == 1) PrefetchAhead(a + j);
        if (SB == 1) PrefetchAhead(b + j);
      }
      return f.Vec(d, SA == 0 ? a0 : hn::LoadU(d, a + j), SB == 0 ? b0 : hn::LoadU(d, b + j));
    };
    if (stream) {
      for (; i < n && !Aligned(o + i, N * sizeof(TO)); ++i) o[i] = f(At<SA>(a, i), At<SB>(b, i));
      for (; i + N <= n; i += N) hn::Stream(at(i), d, o + i);
    }
    for (; i + N <= n; i += N) hn::StoreU(at(i), d, o + i);
  } else if constexpr (F::kVec && std::is_same_v<TO, bool>) {
    // Comparisons: each mask lane becomes a 0/1 byte.
    const hn::ScalableTag<TI> d;
    const hn::RebindToSigned<decltype(d)> di;
    const hn::Rebind<uint8_t, decltype(d)> d8;
    const int64_t N = static_cast<int64_t>(hn::Lanes(d));
    const auto a0 = hn::Set(d, a[0]);
    const auto b0 = hn::Set(d, b[0]);
    const auto one = hn::Set(di, 1);
    auto bytes = [&](int64_t j) {
      if constexpr (WantsPrefetch<F>::value) {
        if (SA == 1) PrefetchAhead(a + j);
        if (SB == 1) PrefetchAhead(b + j);
      }
      const auto m = f.Vec(d, SA == 0 ? a0 : hn::LoadU(d, a + j), SB == 0 ? b0 : hn::LoadU(d, b + j));
      const auto v = hn::And(hn::BitCast(di, hn::VecFromMask(d, m)), one);
      if constexpr (sizeof(TI) == 1) return hn::BitCast(d8, v);
      else return hn::DemoteTo(d8, v);
    };
    uint8_t* o8 = reinterpret_cast<uint8_t*>(o);
    // Stream writes a whole register: only where the bytes fill one.
    if constexpr (hn::MaxLanes(d8) >= 16) {
      if (stream) {
        for (; i < n && !Aligned(o + i, 16); ++i) o[i] = f(At<SA>(a, i), At<SB>(b, i));
        for (; i + N <= n; i += N) hn::Stream(bytes(i), d8, o8 + i);
      }
    }
    for (; i + N <= n; i += N) hn::StoreU(bytes(i), d8, o8 + i);
  }
  for (; i < n; ++i) o[i] = f(At<SA>(a, i), At<SB>(b, i));
}

// A binary op's row kernel (RowKernel): either input may be one value.
template <class F, typename TO, typename TI>
HWY_NOINLINE void BinaryRow(int64_t n, char* const* p, unsigned bcast, double scalar,
                            bool stream) {
  const F f = MakeFunctor<F>(scalar);
  TO* o = reinterpret_cast<TO*>(p[0]);
  const TI* a = reinterpret_cast<const TI*>(p[1]);
  const TI* b = reinterpret_cast<const TI*>(p[2]);
  switch (bcast) {
    case 0: return Loop2<1, 1>(n, o, a, b, f, stream);
    case 1: return Loop2<0, 1>(n, o, a, b, f, stream);
    case 2: return Loop2<1, 0>(n, o, a, b, f, stream);
    default: {
      const TO v = f(a[0], b[0]);
      for (int64_t i = 0; i < n; ++i) o[i] = v;
    }
  }
}

// A ternary op's row kernel: every input contiguous. The first input may
// have its own type (where's condition).
template <class F, typename TO, typename TC, typename TI>
HWY_NOINLINE void TernaryRow(int64_t n, char* const* p, unsigned /*bcast*/, double scalar,
                             bool stream) {
  const F f = MakeFunctor<F>(scalar);
  TO* o = reinterpret_cast<TO*>(p[0]);
  const TC* a = reinterpret_cast<const TC*>(p[1]);
  const TI* b = reinterpret_cast<const TI*>(p[2]);
  const TI* c = reinterpret_cast<const TI*>(p[3]);
  int64_t i = 0;
  if constexpr (F::kVec && std::is_same_v<TO, TI>) {
    const hn::ScalableTag<TI> d;
    const int64_t N = static_cast<int64_t>(hn::Lanes(d));
    auto at = [&](int64_t j) {
      if constexpr (WantsPrefetch<F>::value) {
        PrefetchAhead(a + j);
        PrefetchAhead(b + j);
        PrefetchAhead(c + j);
      }
      return f.Vec(d, f.First(d, a + j), hn::LoadU(d, b + j), hn::LoadU(d, c + j));
    };
    if (stream) {
      for (; i < n && !Aligned(o + i, N * sizeof(TO)); ++i) o[i] = f(a[i], b[i], c[i]);
      for (; i + N <= n; i += N) hn::Stream(at(i), d, o + i);
    }
    for (; i + N <= n; i += N) hn::StoreU(at(i), d, o + i);
  }
  for (; i < n; ++i) o[i] = f(a[i], b[i], c[i]);
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace bcast
HWY_AFTER_NAMESPACE();

#endif  // BCAST_KERNELS_ROWS_INL_H_
