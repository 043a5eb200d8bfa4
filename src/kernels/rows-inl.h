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

// Ops that set kPrefetch fetch their inputs ahead whenever the output
// streams, the others when asked to (kStreamAndPrefetch); on data in the
// cache a prefetch per vector only adds memory operations.
template <class F, class = void>
struct WantsPrefetch : std::false_type {};
template <class F>
struct WantsPrefetch<F, std::void_t<decltype(F::kPrefetch)>> : std::bool_constant<F::kPrefetch> {};

// Whether F runs whole contiguous rows of vectors itself (F::kBlock, with
// F::Block(d, in, out, count, stream, prefetch)).
template <class F, class = void>
struct HasBlock : std::false_type {};
template <class F>
struct HasBlock<F, std::void_t<decltype(F::kBlock)>> : std::bool_constant<F::kBlock> {};

// Whether a row loop of F fetches its inputs ahead under `stores`.
template <class F>
HWY_INLINE bool Prefetches(StoreMode stores) {
  if (stores == kPlainAndPrefetch) return WantsPrefetch<F>::value;
  return stores != kPlainStores && (WantsPrefetch<F>::value || stores == kStreamAndPrefetch);
}

// Whether `stores` streams.
HWY_INLINE bool Streams(StoreMode stores) { return stores == kStreamStores || stores == kStreamAndPrefetch; }

// `stores` for one row, its contiguous inputs a, b, c (nullptr: none or
// repeated): plain stores (fetching ahead as streaming would, for the ops
// that ask) where a streamed store would trail a load (StoreTrailsLoad,
// kernels.h).
HWY_INLINE StoreMode RowStores(StoreMode stores, const void* o, const void* a,
                               const void* b = nullptr, const void* c = nullptr) {
  if (!Streams(stores)) return stores;
  const bool alias = (a != nullptr && StoreTrailsLoad(o, a)) || (b != nullptr && StoreTrailsLoad(o, b)) ||
                     (c != nullptr && StoreTrailsLoad(o, c));
  return alias ? kPlainAndPrefetch : stores;
}

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

// A comparison's mask over d's lanes as 0/1 bytes, one a lane (bool
// outputs). With AVX-512's mask registers that is one zero-masking move of
// ones (the mask's bits are the bytes' lanes); elsewhere the all-ones lanes
// are narrowed to bytes. On the AVX-512 targets the narrowing took 60% of a
// fused where(a > 0, a, 0.1 * a) (three packs and a permute a vector).
template <class D, class M>
HWY_INLINE auto MaskBytes(D d, M m) {
  using T = hn::TFromD<D>;
  const hn::Rebind<uint8_t, D> d8;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
  if constexpr (sizeof(T) > 1) {
    using M8 = decltype(hn::MaskFromVec(hn::Zero(d8)));
    using Raw = decltype(M8().raw);
    return hn::IfThenElseZero(M8{static_cast<Raw>(m.raw)}, hn::Set(d8, uint8_t{1}));
  }
#endif
  const hn::RebindToSigned<D> di;
  const auto v = hn::And(hn::BitCast(di, hn::VecFromMask(d, m)), hn::Set(di, 1));
  if constexpr (sizeof(T) == 1) return hn::BitCast(d8, v);
  else if constexpr (sizeof(T) == 8) return hn::TruncateTo(d8, hn::BitCast(hn::RebindToUnsigned<D>(), v));
  else return hn::DemoteTo(d8, v);
}

// The scalar rest of a row after its whole vectors (fewer than a vector's
// lanes, or a functor without a vector form): left rolled. Inside the row
// loop GCC unrolled these, which made the kernels 11% larger and their build
// 22% longer.
#ifndef BCAST_NO_UNROLL
#define BCAST_NO_UNROLL _Pragma("GCC unroll 1")
#endif

// Calls body(q) for each of `rows` rows, q[k] operand k's row, moved on by
// step[k] bytes from one row to the next (step unread for one row; copied
// first, as stores through the rows may alias it).
template <int kOps, class Body>
HWY_INLINE void ForEachRow(int64_t rows, char* const* p, const int64_t* step, const Body& body) {
  char* q[kOps];
  int64_t s[kOps];
  for (int k = 0; k < kOps; ++k) q[k] = p[k];
  for (int k = 0; k < kOps; ++k) s[k] = rows > 1 ? step[k] : 0;
  for (int64_t r = 0; r < rows;) {
    body(q);
    if (++r == rows) break;
    for (int k = 0; k < kOps; ++k) q[k] += s[k];
  }
}

template <int SA, int SB, typename TO, typename TI, class F>
HWY_INLINE void Loop2(int64_t n, TO* o, const TI* a, const TI* b, const F& f, StoreMode stores) {
  // (Outputs of another width drift through the inputs' page offsets.)
  if constexpr (sizeof(TO) == sizeof(TI)) stores = RowStores(stores, o, SA == 1 ? a : nullptr, SB == 1 ? b : nullptr);
  const bool stream = Streams(stores);
  const bool prefetch = Prefetches<F>(stores);
  // Fetches the contiguous inputs' lines ahead of element j.
  auto ahead = [&](int64_t j) {
    if (SA == 1) PrefetchAhead(a + j);
    if (SB == 1) PrefetchAhead(b + j);
  };
  int64_t i = 0;
  if constexpr (F::kVec && std::is_same_v<TO, TI>) {
    const hn::ScalableTag<TI> d;
    const int64_t N = static_cast<int64_t>(hn::Lanes(d));
    const auto a0 = hn::Set(d, a[0]);
    const auto b0 = hn::Set(d, b[0]);
    auto at = [&](int64_t j) {
      return f.Vec(d, SA == 0 ? a0 : hn::LoadU(d, a + j), SB == 0 ? b0 : hn::LoadU(d, b + j));
    };
    if (stream) {
      for (; i < n && !Aligned(o + i, N * sizeof(TO)); ++i) o[i] = f(At<SA>(a, i), At<SB>(b, i));
      for (; i + N <= n; i += N) {
        if (prefetch) ahead(i);
        hn::Stream(at(i), d, o + i);
      }
    }
    for (; i + N <= n; i += N) hn::StoreU(at(i), d, o + i);
  } else if constexpr (F::kVec && std::is_same_v<TO, bool>) {
    // Comparisons: each mask lane becomes a 0/1 byte.
    const hn::ScalableTag<TI> d;
    const hn::Rebind<uint8_t, decltype(d)> d8;
    const int64_t N = static_cast<int64_t>(hn::Lanes(d));
    const auto a0 = hn::Set(d, a[0]);
    const auto b0 = hn::Set(d, b[0]);
    auto bytes = [&](int64_t j) {
      return MaskBytes(d, f.Vec(d, SA == 0 ? a0 : hn::LoadU(d, a + j), SB == 0 ? b0 : hn::LoadU(d, b + j)));
    };
    uint8_t* o8 = reinterpret_cast<uint8_t*>(o);
    // Stream writes a whole register: only where the bytes fill one.
    if constexpr (hn::MaxLanes(d8) >= 16) {
      if (stream) {
        for (; i < n && !Aligned(o + i, 16); ++i) o[i] = f(At<SA>(a, i), At<SB>(b, i));
        for (; i + N <= n; i += N) {
          if (prefetch) ahead(i);
          hn::Stream(bytes(i), d8, o8 + i);
        }
      }
    }
    // Too few bytes to stream (64-bit lanes): still fetch ahead when asked.
    if (prefetch) {
      for (; i + N <= n; i += N) {
        ahead(i);
        hn::StoreU(bytes(i), d8, o8 + i);
      }
    }
    for (; i + N <= n; i += N) hn::StoreU(bytes(i), d8, o8 + i);
  }
  BCAST_NO_UNROLL
  for (; i < n; ++i) o[i] = f(At<SA>(a, i), At<SB>(b, i));
}

// One row of a binary op.
template <class F, typename TO, typename TI>
HWY_INLINE void BinaryLoop(int64_t n, char* const* p, unsigned bcast, const F& f,
                           StoreMode stores) {
  TO* o = reinterpret_cast<TO*>(p[0]);
  const TI* a = reinterpret_cast<const TI*>(p[1]);
  const TI* b = reinterpret_cast<const TI*>(p[2]);
  switch (bcast) {
    case 0: return Loop2<1, 1>(n, o, a, b, f, stores);
    case 1: return Loop2<0, 1>(n, o, a, b, f, stores);
    case 2: return Loop2<1, 0>(n, o, a, b, f, stores);
    default: {
      const TO v = f(a[0], b[0]);
      for (int64_t i = 0; i < n; ++i) o[i] = v;
    }
  }
}

template <class F, typename TO, typename TI>
HWY_NOINLINE void BinaryOneRow(int64_t n, char* const* p, unsigned bcast, const F& f,
                               StoreMode stores) {
  BinaryLoop<F, TO, TI>(n, p, bcast, f, stores);
}

// The bytes of one vector where BinaryRow<F, TO, TI> takes each row of up
// to that many bytes as one masked vector (see there), else 0.
template <class F, typename TO, typename TI>
constexpr size_t MaskedRowBytes() {
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3
  if constexpr (F::kVec && std::is_same_v<TO, TI> && kFloat<TI>) return hn::MaxLanes(hn::ScalableTag<TI>()) * sizeof(TI);
#endif
  return 0;
}

// A binary op's row kernel (RowKernel): either input may be one value. On
// AVX2 and AVX3 the row loop is inlined into it (a call per row cost about
// 6 ns a row: a 3-D broadcast of 16-wide rows took 4x as long beyond its
// same-shape op); on the other targets each row is a call, which keeps the
// build shorter (inlined on all five targets, the library took a third
// longer to build than before row blocks).
template <class F, typename TO, typename TI>
HWY_NOINLINE void BinaryRow(int64_t n, int64_t rows, char* const* p, const int64_t* step,
                            unsigned bcast, const double* scalar, StoreMode stores) {
  const F f = MakeFunctor<F>(scalar);
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3
  auto each_row = [&](auto loop) {
    ForEachRow<3>(rows, p, step, [&](char* const* q) {
      loop(reinterpret_cast<TO*>(q[0]), reinterpret_cast<const TI*>(q[1]),
           reinterpret_cast<const TI*>(q[2]));
    });
  };
  if constexpr (MaskedRowBytes<F, TO, TI>() > 0) {
    // Rows of at most one vector (points, RGBA, 16-wide tiles of a 3-D
    // broadcast): one masked vector a row, without the row loop's setup,
    // which cost more than the row itself. Floating lanes only: masked-off
    // lanes read as zeros, harmless to a floating op, and 4- and 8-byte
    // lanes have masked loads and stores on both targets (no access past
    // the row's n elements).
    if (rows > 1 && bcast != 3 && n <= static_cast<int64_t>(hn::Lanes(hn::ScalableTag<TI>()))) {
      const hn::ScalableTag<TI> d;
      const auto m = hn::FirstN(d, static_cast<size_t>(n));
      auto in = [&](const TI* x, bool one) { return one ? hn::Set(d, x[0]) : hn::MaskedLoad(m, d, x); };
      ForEachRow<3>(rows, p, step, [&](char* const* q) {
        const TI* a = reinterpret_cast<const TI*>(q[1]);
        const TI* b = reinterpret_cast<const TI*>(q[2]);
        hn::BlendedStore(f.Vec(d, in(a, bcast & 1), in(b, bcast & 2)), m, d, reinterpret_cast<TO*>(q[0]));
      });
      return;
    }
  }
  switch (bcast) {
    case 0:
      return each_row([&](TO* o, const TI* a, const TI* b) { Loop2<1, 1>(n, o, a, b, f, stores); });
    case 1:
      return each_row([&](TO* o, const TI* a, const TI* b) { Loop2<0, 1>(n, o, a, b, f, stores); });
    case 2:
      return each_row([&](TO* o, const TI* a, const TI* b) { Loop2<1, 0>(n, o, a, b, f, stores); });
    default:
      return each_row([&](TO* o, const TI* a, const TI* b) {
        const TO v = f(a[0], b[0]);
        for (int64_t i = 0; i < n; ++i) o[i] = v;
      });
  }
#else
  ForEachRow<3>(rows, p, step,
                [&](char* const* q) { BinaryOneRow<F, TO, TI>(n, q, bcast, f, stores); });
#endif
}

// One row of a unary op: the input contiguous, or one value (bit 0 of
// `bcast`). TO is bool for predicates, whose vector form gives a mask.
template <typename TO, typename TI, class F>
HWY_INLINE void UnaryLoop(int64_t n, TO* o, const TI* a, unsigned bcast, const F& f,
                          StoreMode stores) {
  if (bcast & 1) {
    const TO v = f(a[0]);
    for (int64_t i = 0; i < n; ++i) o[i] = v;
    return;
  }
  if constexpr (sizeof(TO) == sizeof(TI)) stores = RowStores(stores, o, a);
  int64_t i = 0;
  const bool prefetch = Prefetches<F>(stores);
  if constexpr (F::kVec && std::is_same_v<TO, TI> && HasBlock<F>::value) {
    // The whole vectors in one call (MathF: an out-of-line math function).
    const hn::ScalableTag<TI> d;
    const int64_t N = static_cast<int64_t>(hn::Lanes(d));
    const bool stream = Streams(stores);
    if (stream) {
      for (; i < n && !Aligned(o + i, N * sizeof(TO)); ++i) o[i] = f(a[i]);
    }
    const int64_t whole = (n - i) / N * N;
    if (whole > 0) f.Block(d, a + i, o + i, static_cast<size_t>(whole), stream, prefetch);
    i += whole;
  } else if constexpr (F::kVec && std::is_same_v<TO, TI>) {
    const hn::ScalableTag<TI> d;
    const int64_t N = static_cast<int64_t>(hn::Lanes(d));
    if (Streams(stores)) {
      for (; i < n && !Aligned(o + i, N * sizeof(TO)); ++i) o[i] = f(a[i]);
      for (; i + N <= n; i += N) {
        if (prefetch) PrefetchAhead(a + i);
        hn::Stream(f.Vec(d, hn::LoadU(d, a + i)), d, o + i);
      }
    }
    if constexpr (WantsPrefetch<F>::value) {  // kPlainAndPrefetch
      if (prefetch) {
        for (; i + N <= n; i += N) {
          PrefetchAhead(a + i);
          hn::StoreU(f.Vec(d, hn::LoadU(d, a + i)), d, o + i);
        }
      }
    }
    for (; i + N <= n; i += N) hn::StoreU(f.Vec(d, hn::LoadU(d, a + i)), d, o + i);
  } else if constexpr (F::kVec && std::is_same_v<TO, bool>) {
    const hn::ScalableTag<TI> d;
    const hn::Rebind<uint8_t, decltype(d)> d8;
    const int64_t N = static_cast<int64_t>(hn::Lanes(d));
    uint8_t* o8 = reinterpret_cast<uint8_t*>(o);
    auto bytes = [&](int64_t j) { return MaskBytes(d, f.Vec(d, hn::LoadU(d, a + j))); };
    // Streamed where the executor streams the output, in stores of 16 bytes
    // or wider: N bytes a vector, or two vectors' 8 bytes each (float64 on
    // AVX-512).
    if (Streams(stores)) {
      if (N >= 16) {
        for (; i < n && !Aligned(o + i, N); ++i) o[i] = f(a[i]);
        for (; i + N <= n; i += N) hn::Stream(bytes(i), d8, o8 + i);
      }
#if HWY_TARGET != HWY_SCALAR
      if constexpr (sizeof(TI) == 8) {
        if (N == 8) {
          const hn::Twice<decltype(d8)> d16;
          for (; i < n && !Aligned(o + i, 2 * N); ++i) o[i] = f(a[i]);
          for (; i + 2 * N <= n; i += 2 * N)
            hn::Stream(hn::Combine(d16, bytes(i + N), bytes(i)), d16, o8 + i);
        }
      }
#endif
    }
    for (; i + N <= n; i += N) hn::StoreU(bytes(i), d8, o8 + i);
  }
  BCAST_NO_UNROLL
  for (; i < n; ++i) o[i] = f(a[i]);
}

// Rows are out of line, called once per row by the row kernel: inlined
// into its row loop they lengthened the library's build by a third.
template <class F, typename TO, typename TI>
HWY_NOINLINE void UnaryOneRow(int64_t n, char* const* p, unsigned bcast, const F& f,
                              StoreMode stores) {
  UnaryLoop(n, reinterpret_cast<TO*>(p[0]), reinterpret_cast<const TI*>(p[1]), bcast, f, stores);
}

// A unary op's row kernel (RowKernel).
template <class F, typename TO, typename TI>
HWY_NOINLINE void UnaryRow(int64_t n, int64_t rows, char* const* p, const int64_t* step,
                           unsigned bcast, const double* scalar, StoreMode stores) {
  const F f = MakeFunctor<F>(scalar);
  ForEachRow<2>(rows, p, step,
                [&](char* const* q) { UnaryOneRow<F, TO, TI>(n, q, bcast, f, stores); });
}

// An input of a ternary row: contiguous, or one value repeated, which is
// read from a vector's worth of copies at index i & 0. One loop body serves
// every combination (no template per combination, no branch per element).
template <typename T, size_t kLanes>
struct TernaryInput {
  alignas(64) T copies[kLanes];
  const T* p;
  int64_t mask;  // -1: contiguous; 0: repeated
  TernaryInput(const char* ptr, bool repeated) {
    p = reinterpret_cast<const T*>(ptr);
    mask = repeated ? 0 : -1;
    if (repeated) {
      for (size_t k = 0; k < kLanes; ++k) copies[k] = p[0];
      p = copies;
    }
  }
  HWY_INLINE const T* At(int64_t i) const { return p + (i & mask); }
};

// A functor without a vector form: plain loops the compiler can vectorise,
// one per combination of repeated inputs (R: bit k set, input k repeated).
template <unsigned R, typename TO, typename TC, typename TI, class F>
HWY_INLINE void ScalarLoop3(int64_t n, TO* o, const TC* a, const TI* b, const TI* c, const F& f) {
  const TC a0 = a[0];
  const TI b0 = b[0], c0 = c[0];
  for (int64_t i = 0; i < n; ++i)
    o[i] = f((R & 1) ? a0 : a[i], (R & 2) ? b0 : b[i], (R & 4) ? c0 : c[i]);
}

// The vector loop of a ternary functor; repeated inputs via TernaryInput.
template <typename TO, typename TC, typename TI, class F>
HWY_INLINE void TernaryVecRow(int64_t n, char* const* p, unsigned bcast, const F& f,
                              StoreMode stores) {
  constexpr size_t kLanes = hn::MaxLanes(hn::ScalableTag<TI>());
  TO* o = reinterpret_cast<TO*>(p[0]);
  const TernaryInput<TC, kLanes> a(p[1], bcast & 1);
  const TernaryInput<TI, kLanes> b(p[2], bcast & 2), c(p[3], bcast & 4);
  const hn::ScalableTag<TI> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  // Pointers and masks in locals: stores through o (a char type for 8-bit
  // values) may alias the inputs' fields, which the loop would reload.
  const TC* const ap = a.p;
  const TI *const bp = b.p, *const cp = c.p;
  const int64_t am = a.mask, bm = b.mask, cm = c.mask;
  if constexpr (sizeof(TO) == sizeof(TI))
    stores = RowStores(stores, o, am != 0 && sizeof(TC) == sizeof(TO) ? ap : nullptr,
                       bm != 0 ? bp : nullptr, cm != 0 ? cp : nullptr);
  auto at = [&](int64_t j) {
    return f.Vec(d, f.First(d, ap + (j & am)), hn::LoadU(d, bp + (j & bm)),
                 hn::LoadU(d, cp + (j & cm)));
  };
  int64_t i = 0;
  if (Streams(stores)) {
    const bool prefetch = Prefetches<F>(stores);
    for (; i < n && !Aligned(o + i, N * sizeof(TO)); ++i) o[i] = f(*a.At(i), *b.At(i), *c.At(i));
    for (; i + N <= n; i += N) {
      if (prefetch) {
        if (a.mask) PrefetchAhead(a.At(i));
        if (b.mask) PrefetchAhead(b.At(i));
        if (c.mask) PrefetchAhead(c.At(i));
      }
      hn::Stream(at(i), d, o + i);
    }
  }
  for (; i + N <= n; i += N) hn::StoreU(at(i), d, o + i);
  BCAST_NO_UNROLL
  for (; i < n; ++i) o[i] = f(*a.At(i), *b.At(i), *c.At(i));
}

// One row of a ternary op (out of line: see UnaryOneRow).
template <typename TO, typename TC, typename TI, class F>
HWY_NOINLINE void TernaryLoop(int64_t n, char* const* p, unsigned bcast, const F& f, StoreMode stores) {
  if constexpr (!F::kVec || !std::is_same_v<TO, TI>) {
    TO* o = reinterpret_cast<TO*>(p[0]);
    const TC* a = reinterpret_cast<const TC*>(p[1]);
    const TI* b = reinterpret_cast<const TI*>(p[2]);
    const TI* c = reinterpret_cast<const TI*>(p[3]);
    switch (bcast & 7) {
      case 0: return ScalarLoop3<0>(n, o, a, b, c, f);
      case 1: return ScalarLoop3<1>(n, o, a, b, c, f);
      case 2: return ScalarLoop3<2>(n, o, a, b, c, f);
      case 3: return ScalarLoop3<3>(n, o, a, b, c, f);
      case 4: return ScalarLoop3<4>(n, o, a, b, c, f);
      case 5: return ScalarLoop3<5>(n, o, a, b, c, f);
      case 6: return ScalarLoop3<6>(n, o, a, b, c, f);
      default: return ScalarLoop3<7>(n, o, a, b, c, f);
    }
  } else {
    TernaryVecRow<TO, TC, TI>(n, p, bcast, f, stores);
  }
}

// A ternary op's row kernel; any input may be one repeated value. The first
// input may have its own type (where's condition).
template <class F, typename TO, typename TC, typename TI>
HWY_NOINLINE void TernaryRow(int64_t n, int64_t rows, char* const* ptr, const int64_t* step,
                             unsigned bcast, const double* scalar, StoreMode stores) {
  const F f = MakeFunctor<F>(scalar);
  ForEachRow<4>(rows, ptr, step,
                [&](char* const* p) { TernaryLoop<TO, TC, TI>(n, p, bcast, f, stores); });
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace bcast
HWY_AFTER_NAMESPACE();

#endif  // BCAST_KERNELS_ROWS_INL_H_
