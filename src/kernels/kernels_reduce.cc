// Reduction kernels (see reduce_kernels.h), compiled once per SIMD target.
// They are plain loops over fixed lanes: the compiler vectorises them for
// each target, and because every lane's additions are written out in order
// (and -ffp-contract=off forbids fusing), each target computes the same
// bits. Only exp (logsumexp) uses Highway's vectors, through the float64
// math that the unary ops use.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/kernels_reduce.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

// GCC's unroll-and-jam turns the row loops of ColsBlock into scalar code
// that handles two rows at a time instead of vectorising across columns.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-loop-unroll-and-jam", "no-loop-interchange")
#endif

#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "hwy/highway.h"
#include "kernels/dispatch.h"
#include "kernels/math_exp-inl.h"
#include "kernels/math_exp_f32-inl.h"
#include "kernels/reduce_kernels.h"

HWY_BEFORE_NAMESPACE();
namespace bcast {
namespace HWY_NAMESPACE {
namespace {

namespace hn = hwy::HWY_NAMESPACE;

// ---- order keys: integers whose order is the values' -----------------------

template <typename T>
constexpr bool kIsFloat = std::is_floating_point_v<T>;

// float16 and bfloat16 elements, as their bits.
struct F16 {
  uint16_t bits;
};
struct BF16 {
  uint16_t bits;
};
template <typename T>
constexpr bool kIsHalf = std::is_same_v<T, F16> || std::is_same_v<T, BF16>;

// The integer type of T's keys: T itself for integers and bool (compared as
// they are, in lanes of their own width), a signed integer of the float's
// width for floats and the halves.
template <typename T>
using KeyT = std::conditional_t<kIsHalf<T>, int16_t,
                                std::conditional_t<!kIsFloat<T>, T,
                                                   std::conditional_t<sizeof(T) == 4, int32_t, int64_t>>>;

// The key that orders T's values: the value itself for integers and bool;
// for floats and the halves the bits with the magnitude flipped for
// negative numbers (-0 < +0), a NaN as the largest key (kNanHigh) or the
// smallest. kZeroEqual maps -0 to +0's key (argmax compares as IEEE does).
template <typename T, bool kNanHigh, bool kZeroEqual = false>
HWY_INLINE KeyT<T> KeyOf(T v) {
  if constexpr (kIsHalf<T>) {
    // The halves' keys, read in 16-bit lanes: a max or min of them reads
    // half the bytes of float32 keys and needs no conversion.
    constexpr int kMag = 0x7fff, kInf = std::is_same_v<T, F16> ? 0x7c00 : 0x7f80;
    const int b = static_cast<int16_t>(v.bits);
    const int mag = b & kMag;
    int k = b ^ ((b >> 15) & kMag);
    if (kZeroEqual) k = mag == 0 ? 0 : k;
    return static_cast<int16_t>(mag > kInf ? (kNanHigh ? kMag : -kMag - 1) : k);
  } else if constexpr (kIsFloat<T>) {
    using I = KeyT<T>;
    I b;
    std::memcpy(&b, &v, sizeof b);
    constexpr I kMag = std::numeric_limits<I>::max();
    // Integer operations only, so that loops over keys vectorise.
    constexpr I kInf = static_cast<I>(sizeof(T) == 4 ? 0x7f800000LL : 0x7ff0000000000000LL);
    const I mag = b & kMag;
    I k = b ^ ((b >> (8 * sizeof(I) - 1)) & kMag);
    if (kZeroEqual) k = mag == 0 ? 0 : k;
    return mag > kInf ? (kNanHigh ? kMag : std::numeric_limits<I>::min()) : k;
  } else {
    return v;
  }
}

// ---- sums ------------------------------------------------------------------

// acc += v, keeping the rounding error in acc->c (TwoSum). An infinite or
// NaN partial sum keeps no error term (it would be NaN).
HWY_INLINE void AddCompensated(ReduceAcc* acc, double v) {
  const double t = acc->s + v;
  if (std::isfinite(t)) {
    const double bp = t - acc->s;
    acc->c += (acc->s - (t - bp)) + (v - bp);
  }
  acc->s = t;
}

// The lanes of one block added pairwise.
// Unrolled, so that with BlockSum's unrolled loop the lanes stay in
// registers (a loop over w runs through the stack and branches).
HWY_INLINE double FoldLanes(double* lane) {
#pragma GCC unroll 8
  for (int w = kReduceLanes / 2; w >= 1; w /= 2) {
#pragma GCC unroll 16
    for (int j = 0; j < w; ++j) lane[j] += lane[j + w];
  }
  return lane[0];
}

// A float32 or float64 as the signed integer of its bits.
template <typename T>
using BitsOf = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
template <typename T>
HWY_INLINE BitsOf<T> Bits(T v) {
  BitsOf<T> b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// Whether a float is NaN, from its bits (integer operations vectorise).
template <typename T>
HWY_INLINE bool IsNan(T v) {
  using I = BitsOf<T>;
  const I b = Bits(v);
  constexpr I kInf = static_cast<I>(sizeof(T) == 4 ? 0x7f800000LL : 0x7ff0000000000000LL);
  return (b & std::numeric_limits<I>::max()) > kInf;
}

// v, or +0 for a NaN, in integer arithmetic without a compare: the
// compiler vectorises it across a block's lanes (a select it does not).
template <typename T>
HWY_INLINE T ZeroNan(T v) {
  using I = BitsOf<T>;
  I b = Bits(v);
  constexpr I kNan = static_cast<I>(sizeof(T) == 4 ? 0x7f800001LL : 0x7ff0000000000001LL);
  const I keep = ((b & std::numeric_limits<I>::max()) - kNan) >> (8 * sizeof(I) - 1);  // -1 unless NaN
  b &= keep;
  T r;
  std::memcpy(&r, &b, sizeof r);
  return r;
}

template <typename T>
HWY_INLINE bool IsNanOf(T v) {
  if constexpr (kIsFloat<T>) return IsNan(v);
  return false;
}

// Whether a count of kind K (kRCountNonzero, kRCountNotNan) counts v; a
// NaN is nonzero. The halves from their bits.
template <ReduceKind K, typename T>
HWY_INLINE bool Counts(T v) {
  if constexpr (kIsHalf<T>) {
    const int mag = v.bits & 0x7fff;
    return K == kRCountNonzero ? mag != 0 : mag <= (std::is_same_v<T, F16> ? 0x7c00 : 0x7f80);
  } else {
    return K == kRCountNonzero ? v != T(0) : !IsNanOf(v);
  }
}

// s += v, the rounding error into c (TwoSum), lane by lane.
HWY_INLINE void TwoSumInto(double& s, double& c, double v) {
  const double t = s + v;
  const double bp = t - s;
  c += (s - (t - bp)) + (v - bp);
  s = t;
}

// Adds f(x[i]) over one block (n <= kReduceBlock) into acc in the fixed lane
// order. float64 values keep each lane's rounding errors too (their sums
// are not exact the way float32 values' are). A full block runs a loop of
// a fixed count, unrolled, and FoldLanes is unrolled too: with the loops,
// a 16-pass loop's exit and FoldLanes' branches, once per block, held back
// the loads of the next block (a float32 sum ran at 0.90 of a read of its
// bytes; 1.0 without them).
template <typename T, class F>
HWY_INLINE void BlockSum(const T* HWY_RESTRICT x, int64_t n, F f, ReduceAcc* acc) {
  double lane[kReduceLanes] = {};
  int64_t i = 0;
  if constexpr (std::is_same_v<T, double>) {
    double err[kReduceLanes] = {};
    if (n == kReduceBlock) {  // a fixed count: no mispredicted loop exit
#pragma GCC unroll 16
      for (int64_t k = 0; k < kReduceBlock; k += kReduceLanes) {
        for (int j = 0; j < kReduceLanes; ++j) TwoSumInto(lane[j], err[j], f(x[k + j]));
      }
      i = n;
    }
    for (; i + kReduceLanes <= n; i += kReduceLanes) {
      for (int j = 0; j < kReduceLanes; ++j) TwoSumInto(lane[j], err[j], f(x[i + j]));
    }
    for (int j = 0; i + j < n; ++j) TwoSumInto(lane[j], err[j], f(x[i + j]));
    const double e = FoldLanes(err);
    AddCompensated(acc, FoldLanes(lane));
    if (std::isfinite(acc->s)) acc->c += e;
  } else {
    if (n == kReduceBlock) {  // a fixed count: no mispredicted loop exit
#pragma GCC unroll 16
      for (int64_t k = 0; k < kReduceBlock; k += kReduceLanes) {
        for (int j = 0; j < kReduceLanes; ++j) lane[j] += f(x[k + j]);
      }
      i = n;
    }
    for (; i + kReduceLanes <= n; i += kReduceLanes) {
      for (int j = 0; j < kReduceLanes; ++j) lane[j] += f(x[i + j]);
    }
    for (int j = 0; i + j < n; ++j) lane[j] += f(x[i + j]);
    AddCompensated(acc, FoldLanes(lane));
  }
}

// BlockSum of float32 elements (kNan: NaN taken as 0) in float64 vectors:
// lane j of the kReduceLanes is lane j % N of accumulator j / N, so each
// lane adds the same elements in the same order as BlockSum's, with the
// same bits, but the accumulators' chains interleave in program order. As
// BlockSum compiled them (GCC 12: each group of lanes summed through the
// whole block before the next group), one chain ran at a time: AMD EPYC
// Zen 4 VM, sum of a float32 (1024,4096), 0.71 ms against PyTorch's 0.22.
template <bool kNan>
HWY_INLINE void BlockSumF32(const float* HWY_RESTRICT x, int64_t n, ReduceAcc* acc) {
  const hn::ScalableTag<double> dd;
  const hn::Rebind<float, decltype(dd)> df;
  constexpr size_t N = hn::MaxLanes(dd);
  static_assert(kReduceLanes % N == 0, "whole vectors of lanes");
  constexpr size_t kV = kReduceLanes / N;
  hn::Vec<decltype(dd)> s[kV];
  for (size_t v = 0; v < kV; ++v) s[v] = hn::Zero(dd);
  int64_t i = 0;
#pragma GCC unroll 16
  for (; i + kReduceLanes <= n; i += kReduceLanes) {
    for (size_t v = 0; v < kV; ++v) {
      auto xf = hn::LoadU(df, x + i + static_cast<int64_t>(v * N));
      if constexpr (kNan) xf = hn::IfThenZeroElse(hn::IsNaN(xf), xf);
      s[v] = hn::Add(s[v], hn::PromoteTo(dd, xf));
    }
  }
  HWY_ALIGN double lane[kReduceLanes];
  for (size_t v = 0; v < kV; ++v) hn::Store(s[v], dd, lane + v * N);
  for (int j = 0; i + j < n; ++j) lane[j] += static_cast<double>(kNan ? ZeroNan(x[i + j]) : x[i + j]);
  AddCompensated(acc, FoldLanes(lane));
}

template <typename T, class F>
HWY_INLINE void RunSumOf(const T* x, int64_t n, ReduceAcc* acc, F f) {
  for (int64_t b = 0; b < n; b += kReduceBlock) BlockSum(x + b, n - b < kReduceBlock ? n - b : kReduceBlock, f, acc);
}

// e[i] = exp(e[i]) (float64 math, the same bits on every target).
HWY_INLINE void ExpInPlace(double* e, int64_t n) {
  const hn::ScalableTag<double> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(math::Exp(d, hn::LoadU(d, e + i)), d, e + i);
  if (i < n) {  // the tail through a padded vector
    HWY_ALIGN double t[HWY_MAX_BYTES / sizeof(double)] = {};
    for (int64_t k = 0; k < n - i; ++k) t[k] = e[i + k];
    hn::Store(math::Exp(d, hn::Load(d, t)), d, t);
    for (int64_t k = 0; k < n - i; ++k) e[i + k] = t[k];
  }
}

// e[i] = exp(e[i]) in float32 (ExpF32: within 1 ulp, the same bits on
// every target): logsumexp of float32 and half inputs, whose terms PyTorch
// computes in float32 too.
HWY_INLINE void ExpInPlaceF32(float* e, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(math::ExpF32(d, hn::LoadU(d, e + i)), d, e + i);
  if (i < n) {
    HWY_ALIGN float t[HWY_MAX_BYTES / sizeof(float)] = {};
    for (int64_t k = 0; k < n - i; ++k) t[k] = e[i + k];
    hn::Store(math::ExpF32(d, hn::Load(d, t)), d, t);
    for (int64_t k = 0; k < n - i; ++k) e[i + k] = t[k];
  }
}

// exp(x - center) of n elements into `e` (float64), in T's precision: the
// difference is taken in float64 and, for float32, rounded to it.
template <typename T>
HWY_INLINE void ExpOf(const T* x, int64_t n, const double* center, bool per_element, double* e) {
  if constexpr (sizeof(T) == 4) {
    HWY_ALIGN float f[kReduceBlock];
    for (int64_t i = 0; i < n; ++i) {
      f[i] = static_cast<float>(static_cast<double>(x[i]) - center[per_element ? i : 0]);
    }
    ExpInPlaceF32(f, n);
    for (int64_t i = 0; i < n; ++i) e[i] = f[i];
  } else {
    for (int64_t i = 0; i < n; ++i) e[i] = static_cast<double>(x[i]) - center[per_element ? i : 0];
    ExpInPlace(e, n);
  }
}

template <ReduceKind K, typename T>
void Run(const void* xv, int64_t n, int64_t first, double center, ReduceAcc* acc) {
  const T* HWY_RESTRICT x = static_cast<const T*>(xv);
  if constexpr (K == kRSum || K == kRNanSum) {
    if constexpr (std::is_same_v<T, float>) {
      for (int64_t b = 0; b < n; b += kReduceBlock)
        BlockSumF32<K == kRNanSum>(x + b, n - b < kReduceBlock ? n - b : kReduceBlock, acc);
    } else if constexpr (kIsFloat<T>) {
      if (K == kRNanSum) {
        RunSumOf(x, n, acc, [](T v) { return static_cast<double>(ZeroNan(v)); });
      } else {
        RunSumOf(x, n, acc, [](T v) { return static_cast<double>(v); });
      }
    } else {
      uint64_t s = 0;  // wraps as int64 does in PyTorch
      for (int64_t i = 0; i < n; ++i) s += static_cast<uint64_t>(static_cast<int64_t>(x[i]));
      acc->i = static_cast<int64_t>(static_cast<uint64_t>(acc->i) + s);
    }
  } else if constexpr (K == kRProd) {
    if constexpr (kIsFloat<T>) {
      for (int64_t b = 0; b < n; b += kReduceBlock) {
        const int64_t m = n - b < kReduceBlock ? n - b : kReduceBlock;
        double lane[kReduceLanes];
        for (int j = 0; j < kReduceLanes; ++j) lane[j] = 1.0;
        int64_t i = 0;
        if (m == kReduceBlock) {  // a fixed count: no mispredicted loop exit
#pragma GCC unroll 16
          for (int64_t k = 0; k < kReduceBlock; k += kReduceLanes) {
            for (int j = 0; j < kReduceLanes; ++j) lane[j] *= static_cast<double>(x[b + k + j]);
          }
          i = m;
        }
        for (; i + kReduceLanes <= m; i += kReduceLanes) {
          for (int j = 0; j < kReduceLanes; ++j) lane[j] *= static_cast<double>(x[b + i + j]);
        }
        for (int j = 0; i + j < m; ++j) lane[j] *= static_cast<double>(x[b + i + j]);
        for (int w = kReduceLanes / 2; w >= 1; w /= 2) {
          for (int j = 0; j < w; ++j) lane[j] *= lane[j + w];
        }
        acc->s *= lane[0];
      }
    } else {
      uint64_t p = 1;
      for (int64_t i = 0; i < n; ++i) p *= static_cast<uint64_t>(static_cast<int64_t>(x[i]));
      acc->i = static_cast<int64_t>(static_cast<uint64_t>(acc->i) * p);
    }
  } else if constexpr (K == kRMax || K == kRMin) {
    // Lanes of the key's own width; the accumulator holds the key as int64.
    constexpr bool kMax = K == kRMax;
    using I = KeyT<T>;
    if (n == 0) return;
    I lane[kReduceLanes];
    for (int j = 0; j < kReduceLanes; ++j) lane[j] = KeyOf<T, kMax>(x[0]);
    int64_t i = 0;
    for (; i + kReduceLanes <= n; i += kReduceLanes) {
      for (int j = 0; j < kReduceLanes; ++j) {
        const I k = KeyOf<T, kMax>(x[i + j]);
        lane[j] = kMax ? (k > lane[j] ? k : lane[j]) : (k < lane[j] ? k : lane[j]);
      }
    }
    int64_t best = acc->i;
    for (; i < n; ++i) {
      const int64_t k = KeyOf<T, kMax>(x[i]);
      best = kMax ? (k > best ? k : best) : (k < best ? k : best);
    }
    for (int j = 0; j < kReduceLanes; ++j) {
      const int64_t k = lane[j];
      best = kMax ? (k > best ? k : best) : (k < best ? k : best);
    }
    acc->i = best;
  } else if constexpr (K == kRArgMax || K == kRArgMin) {
    // A block's best key first (vectorised), then its first position.
    constexpr bool kMax = K == kRArgMax;
    for (int64_t b = 0; b < n; b += kReduceBlock) {
      const int64_t m = n - b < kReduceBlock ? n - b : kReduceBlock;
      using I = KeyT<T>;
      I lane[kReduceLanes];
      const I k0 = KeyOf<T, kMax, true>(x[b]);
      for (int j = 0; j < kReduceLanes; ++j) lane[j] = k0;
      int64_t i = 0;
      for (; i + kReduceLanes <= m; i += kReduceLanes) {
        for (int j = 0; j < kReduceLanes; ++j) {
          const I k = KeyOf<T, kMax, true>(x[b + i + j]);
          lane[j] = kMax ? (k > lane[j] ? k : lane[j]) : (k < lane[j] ? k : lane[j]);
        }
      }
      int64_t best = k0;
      for (; i < m; ++i) {
        const int64_t k = KeyOf<T, kMax, true>(x[b + i]);
        best = kMax ? (k > best ? k : best) : (k < best ? k : best);
      }
      for (int j = 0; j < kReduceLanes; ++j) {
        const int64_t k = lane[j];
        best = kMax ? (k > best ? k : best) : (k < best ? k : best);
      }
      if (acc->j >= 0 && (kMax ? best <= acc->i : best >= acc->i)) continue;
      int64_t at = 0;
      while (static_cast<int64_t>(KeyOf<T, kMax, true>(x[b + at])) != best) ++at;
      acc->i = best;
      acc->j = first + b + at;
    }
  } else if constexpr (K == kRCountNonzero || K == kRCountNotNan) {
    // Lanes of bytes: a block gives each at most kReduceBlock / 32 = 16.
    for (int64_t b = 0; b < n; b += kReduceBlock) {
      const int64_t m = n - b < kReduceBlock ? n - b : kReduceBlock;
      uint8_t lane[kReduceLanes] = {};
      int64_t i = 0;
      for (; i + kReduceLanes <= m; i += kReduceLanes) {
        for (int j = 0; j < kReduceLanes; ++j) {
          const T v = x[b + i + j];
          lane[j] += Counts<K>(v);
        }
      }
      int64_t c = 0;
      for (; i < m; ++i) c += Counts<K>(x[b + i]);
      for (int j = 0; j < kReduceLanes; ++j) c += lane[j];
      acc->i += c;
    }
  } else if constexpr (K == kRSumSqDev) {
    RunSumOf(x, n, acc, [center](T v) {
      const double dv = static_cast<double>(v) - center;
      return dv * dv;
    });
  } else if constexpr (K == kRSumExp) {
    HWY_ALIGN double e[kReduceBlock];
    for (int64_t b = 0; b < n; b += kReduceBlock) {
      const int64_t m = n - b < kReduceBlock ? n - b : kReduceBlock;
      ExpOf(x + b, m, &center, false, e);
      BlockSum(e, m, [](double v) { return v; }, acc);
    }
  }
}

// The state of W columns (a fixed count, so that the compiler vectorises
// across them) over the rows of one call: each column's partial result.
// Only the members of the kind's branch below are used.
template <typename T, int W>
struct ColState {
  double s[W], err[W], c[W];  // sums (c: centers); products of floats
  KeyT<T> b[W];               // best keys
  uint64_t u[W];              // integer sums and products
  uint8_t cnt[W];             // counts (rows <= kReduceRowBlockExact)
};

// Takes a block's columns from a (products) or centers, and row 0 where the
// kind starts from it (max, min and the arg ops); returns the first row
// that ColsStep takes.
template <ReduceKind K, typename T, int W>
HWY_INLINE int64_t ColsInit(ColState<T, W>& st, const T* HWY_RESTRICT x0, const double* centers,
                            const ReduceAcc* a) {
  if constexpr (K == kRSum || K == kRNanSum || K == kRSumSqDev || K == kRSumExp) {
    if constexpr (kIsFloat<T>) {
      for (int j = 0; j < W; ++j) st.s[j] = st.err[j] = 0;
      if (centers != nullptr) {
        for (int j = 0; j < W; ++j) st.c[j] = centers[j];
      } else {
        for (int j = 0; j < W; ++j) st.c[j] = 0;
      }
    } else {
      for (int j = 0; j < W; ++j) st.u[j] = 0;
    }
  } else if constexpr (K == kRProd) {
    if constexpr (kIsFloat<T>) {
      for (int j = 0; j < W; ++j) st.s[j] = a[j].s;
    } else {
      for (int j = 0; j < W; ++j) st.u[j] = static_cast<uint64_t>(a[j].i);
    }
  } else if constexpr (K == kRMax || K == kRMin || K == kRArgMax || K == kRArgMin) {
    constexpr bool kMax = K == kRMax || K == kRArgMax;
    constexpr bool kArg = K == kRArgMax || K == kRArgMin;
    for (int j = 0; j < W; ++j) st.b[j] = KeyOf<T, kMax, kArg>(x0[j]);
    return 1;
  } else if constexpr (K == kRCountNonzero || K == kRCountNotNan) {
    for (int j = 0; j < W; ++j) st.cnt[j] = 0;
  }
  return 0;
}

// One row's W elements.
template <ReduceKind K, typename T, int W>
HWY_INLINE void ColsStep(ColState<T, W>& st, const T* HWY_RESTRICT x) {
  if constexpr (K == kRSum || K == kRNanSum || K == kRSumSqDev || K == kRSumExp) {
    if constexpr (kIsFloat<T>) {
      // float64 data keeps each column's rounding errors (as BlockSum).
      constexpr bool kErr = std::is_same_v<T, double>;
      auto add = [&](int j, double v) {
        if (kErr) TwoSumInto(st.s[j], st.err[j], v);
        else st.s[j] += v;
      };
      if (K == kRSum) {
        for (int j = 0; j < W; ++j) add(j, static_cast<double>(x[j]));
      } else if (K == kRNanSum) {
        for (int j = 0; j < W; ++j) add(j, static_cast<double>(ZeroNan(x[j])));
      } else if (K == kRSumSqDev) {
        for (int j = 0; j < W; ++j) {
          const double dv = static_cast<double>(x[j]) - st.c[j];
          add(j, dv * dv);
        }
      } else {
        HWY_ALIGN double e[W];
        ExpOf(x, W, st.c, true, e);
        for (int j = 0; j < W; ++j) add(j, e[j]);
      }
    } else {
      for (int j = 0; j < W; ++j) st.u[j] += static_cast<uint64_t>(static_cast<int64_t>(x[j]));
    }
  } else if constexpr (K == kRProd) {
    if constexpr (kIsFloat<T>) {
      for (int j = 0; j < W; ++j) st.s[j] *= static_cast<double>(x[j]);
    } else {
      for (int j = 0; j < W; ++j) st.u[j] *= static_cast<uint64_t>(static_cast<int64_t>(x[j]));
    }
  } else if constexpr (K == kRMax || K == kRMin || K == kRArgMax || K == kRArgMin) {
    constexpr bool kMax = K == kRMax || K == kRArgMax;
    constexpr bool kArg = K == kRArgMax || K == kRArgMin;
    using I = KeyT<T>;
    for (int j = 0; j < W; ++j) {
      const I key = KeyOf<T, kMax, kArg>(x[j]);
      st.b[j] = kMax ? (key > st.b[j] ? key : st.b[j]) : (key < st.b[j] ? key : st.b[j]);
    }
  } else if constexpr (K == kRCountNonzero || K == kRCountNotNan) {
    for (int j = 0; j < W; ++j) st.cnt[j] += Counts<K>(x[j]);
  }
}

// Into the block's accumulators a; the arg ops find the first row of each
// column's best key (at column k0 of the rows), only where it beats a.
template <ReduceKind K, typename T, int W>
HWY_INLINE void ColsFinish(const ColState<T, W>& st, const char* const* row, int64_t k0, int64_t first,
                           ReduceAcc* a) {
  if constexpr (K == kRSum || K == kRNanSum || K == kRSumSqDev || K == kRSumExp) {
    if constexpr (kIsFloat<T>) {
      constexpr bool kErr = std::is_same_v<T, double>;
      for (int j = 0; j < W; ++j) {
        AddCompensated(&a[j], st.s[j]);
        if (kErr && std::isfinite(a[j].s)) a[j].c += st.err[j];
      }
    } else {
      for (int j = 0; j < W; ++j) a[j].i = static_cast<int64_t>(static_cast<uint64_t>(a[j].i) + st.u[j]);
    }
  } else if constexpr (K == kRProd) {
    if constexpr (kIsFloat<T>) {
      for (int j = 0; j < W; ++j) a[j].s = st.s[j];
    } else {
      for (int j = 0; j < W; ++j) a[j].i = static_cast<int64_t>(st.u[j]);
    }
  } else if constexpr (K == kRMax || K == kRMin) {
    constexpr bool kMax = K == kRMax;
    for (int j = 0; j < W; ++j) {
      const int64_t key = st.b[j];
      a[j].i = kMax ? (key > a[j].i ? key : a[j].i) : (key < a[j].i ? key : a[j].i);
    }
  } else if constexpr (K == kRArgMax || K == kRArgMin) {
    constexpr bool kMax = K == kRArgMax;
    for (int j = 0; j < W; ++j) {
      ReduceAcc& d = a[j];
      const int64_t key = st.b[j];
      if (d.j >= 0 && (kMax ? key <= d.i : key >= d.i)) continue;
      int64_t r = 0;
      while (static_cast<int64_t>(KeyOf<T, kMax, true>(reinterpret_cast<const T*>(row[r])[k0 + j])) != key) ++r;
      d.i = key;
      d.j = first + r;
    }
  } else if constexpr (K == kRCountNonzero || K == kRCountNotNan) {
    static_assert(kReduceRowBlockExact < 256, "counts fit in a byte");
    for (int j = 0; j < W; ++j) a[j].i += st.cnt[j];
  }
}

// Columns [k0, k0 + nb * W) (nb <= NB) over all rows, each column's state
// in st. With nb > 1 the rows are read row by row, each from start to end:
// they are far apart, and a block of columns at a time would read a small
// piece of each, too many streams for the hardware prefetcher. The
// additions of a column are those of the rows in order either way.
template <ReduceKind K, typename T, int W, int NB>
HWY_INLINE void ColsBlocks(const char* const* row, int64_t rows, int64_t k0, int64_t nb, int64_t first,
                           const double* centers, ReduceAcc* acc) {
  ColState<T, W> st[NB];
  auto at = [&](int64_t r) { return reinterpret_cast<const T*>(row[r]) + k0; };
  int64_t r0 = 0;
  for (int64_t b = 0; b < nb; ++b) {
    r0 = ColsInit<K, T, W>(st[b], at(0) + b * W, centers ? centers + k0 + b * W : nullptr, acc + k0 + b * W);
  }
  for (int64_t r = r0; r < rows; ++r) {
    const T* HWY_RESTRICT x = at(r);
    for (int64_t b = 0; b < nb; ++b) ColsStep<K, T, W>(st[b], x + b * W);
  }
  for (int64_t b = 0; b < nb; ++b) ColsFinish<K, T, W>(st[b], row, k0 + b * W, first, acc + k0 + b * W);
}

template <ReduceKind K, typename T>
void Cols(const char* const* row, int64_t rows, int64_t ncols, int64_t first, const double* centers,
          ReduceAcc* acc) {
  constexpr int W = kReduceLanes;
  int64_t k0 = 0;
  if constexpr (sizeof(T) <= 4) {
    // Elements of up to 4 bytes: a block is two cache lines or less of each
    // row; up to 16 blocks (512 columns) row by row, their states in memory
    // (L1), so that each row is read as one stream. 4-byte elements took
    // the register form below until 2026-11-28; on the AMD EPYC Zen 4 VM
    // this form was 1.2-2x faster for them (1 thread, float32 sum over the
    // middle dim of (64,64,1024) 1.4-1.8 -> 1.1-1.3 ms, amax 1.5-1.7 ->
    // 0.8-0.9, amax over dim 0 of (1024,4096) 1.3 -> 0.7-0.8), waiting
    // there on 32 rows' lines a block at a time. (On the Intel Xeon VM it
    // was tried for float32 and float64 together and undone because float64
    // got slower.)
    constexpr int kBlocks = 16;
    while (k0 + W <= ncols) {
      const int64_t nb = std::min<int64_t>(kBlocks, (ncols - k0) / W);
      ColsBlocks<K, T, W, kBlocks>(row, rows, k0, nb, first, centers, acc);
      k0 += nb * W;
    }
  } else {
    // A block at a time, its state in registers; the lines of each row two
    // blocks on are asked for ahead (one block on before items spanned
    // whole rows; two is as fast on the Intel Xeon VM, a little faster for
    // float32 over dim 0).
    constexpr int64_t kAhead = 2;
    for (; k0 + W <= ncols; k0 += W) {
      if (k0 + (kAhead + 1) * W <= ncols) {
        for (int64_t r = 0; r < rows; ++r) {
          const char* next = row[r] + (k0 + kAhead * W) * static_cast<int64_t>(sizeof(T));
          for (size_t b = 0; b < W * sizeof(T); b += 64) __builtin_prefetch(next + b);
        }
      }
      ColsBlocks<K, T, W, 1>(row, rows, k0, 1, first, centers, acc);
    }
  }
  for (; k0 < ncols; ++k0) ColsBlocks<K, T, 1, 1>(row, rows, k0, 1, first, centers, acc);
}

// ---- float16 and bfloat16 sums, read as they are ----------------------
//
// The sums of the halves (sum, nansum, mean, var's deviations) convert each
// element in registers and add in float32 lanes (16 additions per lane in a
// block, a float32 sum of half values that PyTorch also makes), the lanes
// and blocks in float64. max, min and the arg ops read their keys (KeyOf),
// the counts their bits; their other reductions read them as float32 tiles.

// Exact conversions from the bits, in integer and float operations that
// vectorise (no table, no branch).
HWY_INLINE float ToFloat(BF16 v) {
  const uint32_t b = static_cast<uint32_t>(v.bits) << 16;
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
HWY_INLINE float ToFloat(F16 v) {
  const uint32_t h = v.bits, em = h & 0x7fff, sign = (h & 0x8000) << 16;
  const float sub = static_cast<float>(static_cast<int32_t>(em)) * 0x1p-24f;  // exact for subnormals
  uint32_t sb;
  std::memcpy(&sb, &sub, 4);
  const uint32_t normal = (em << 13) + 0x38000000u;  // rebias 15 -> 127
  const uint32_t special = (em << 13) | 0x7f800000u;  // inf, NaN
  const uint32_t b = (em < 0x400 ? sb : em >= 0x7c00 ? special : normal) | sign;
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
HWY_INLINE bool IsNanHalf(BF16 v) { return (v.bits & 0x7fff) > 0x7f80; }

// One element's term of kind K (bfloat16; float16 is widened first).
template <ReduceKind K, typename H>
HWY_INLINE float HalfTerm(H v) {
  return K == kRNanSum && IsNanHalf(v) ? 0.0f : ToFloat(v);
}

// N float16 values (bits at p) as float32, exact on every target: the
// F16C conversion on AVX2 and AVX3; elsewhere from the bits, as ToFloat,
// because Highway's emulated conversion gave infinities and NaNs finite
// values there (a float16 sum with an infinity differed by target; found by
// Reduce.SameBitsForEveryThreadCountAndTarget once it took float16).
template <class DF>
HWY_INLINE hn::Vec<DF> F16Bits(DF df, const uint16_t* p) {
  const hn::Rebind<uint16_t, DF> d16;
#if HWY_TARGET != HWY_SCALAR && HWY_TARGET <= HWY_AVX2
  const hn::Rebind<hwy::float16_t, DF> dh;
  return hn::PromoteTo(df, hn::BitCast(dh, hn::LoadU(d16, p)));
#else
  const hn::RebindToSigned<DF> di;
  const auto h = hn::BitCast(di, hn::PromoteTo(hn::RebindToUnsigned<DF>(), hn::LoadU(d16, p)));
  const auto em = hn::And(h, hn::Set(di, 0x7fff));
  const auto sign = hn::ShiftLeft<16>(hn::And(h, hn::Set(di, 0x8000)));
  const auto sub = hn::BitCast(di, hn::Mul(hn::ConvertTo(df, em), hn::Set(df, 0x1p-24f)));  // exact
  const auto normal = hn::Add(hn::ShiftLeft<13>(em), hn::Set(di, 0x38000000));  // rebias 15 -> 127
  const auto special = hn::Or(hn::ShiftLeft<13>(em), hn::Set(di, 0x7f800000));  // inf, NaN
  const auto b = hn::IfThenElse(hn::Lt(em, hn::Set(di, 0x400)), sub,
                                hn::IfThenElse(hn::Lt(em, hn::Set(di, 0x7c00)), normal, special));
  return hn::BitCast(df, hn::Or(b, sign));
#endif
}

// n float16 values as float32 (F16Bits; exact everywhere), so that they are
// summed as float32 values.
HWY_INLINE void Widen(const F16* x, int64_t n, float* out) {
  const hn::ScalableTag<float> df;
  const int64_t N = static_cast<int64_t>(hn::Lanes(df));
  const uint16_t* h = reinterpret_cast<const uint16_t*>(x);
  int64_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(F16Bits(df, h + i), df, out + i);
  for (; i < n; ++i) out[i] = ToFloat(x[i]);
}

// kQ whole float16 blocks from x: each block's float32 lanes add its elements in
// order, as one block alone does (lane j of a block takes its elements j,
// j + 32, ...), and the blocks' totals go into acc in order: the same
// additions as one block at a time. The lanes live in vectors (32 / N of
// them a block); a block alone was bound by its lanes' chains of 16
// dependent additions, and widened float16 through a buffer in memory.
template <ReduceKind K, typename H, int kQ>
HWY_INLINE void HalfBlocks(const H* HWY_RESTRICT x, ReduceAcc* acc) {
  static_assert(std::is_same_v<H, F16>, "float16 (bfloat16 blocks go one at a time)");
  const hn::ScalableTag<float> df;
  constexpr int kV = kReduceLanes / static_cast<int>(hn::MaxLanes(df));  // vectors a block's lanes fill
  static_assert(kV >= 1 && kV * hn::MaxLanes(df) == kReduceLanes, "whole vectors of lanes");
  const uint16_t* bits = reinterpret_cast<const uint16_t*>(x);
  auto load = [&](int64_t at) {  // N elements as float32 (exact), NaN as 0 for nansum
    auto v = F16Bits(df, bits + at);
    if constexpr (K == kRNanSum) v = hn::IfThenZeroElse(hn::IsNaN(v), v);
    return v;
  };
  hn::Vec<decltype(df)> f[kQ][kV];
  for (int q = 0; q < kQ; ++q)
    for (int v = 0; v < kV; ++v) f[q][v] = hn::Zero(df);
  const int64_t N = static_cast<int64_t>(hn::Lanes(df));
#pragma GCC unroll 16
  for (int64_t i = 0; i < kReduceBlock; i += kReduceLanes) {
    for (int q = 0; q < kQ; ++q) {
      for (int v = 0; v < kV; ++v) f[q][v] = hn::Add(f[q][v], load(q * kReduceBlock + i + v * N));
    }
  }
  for (int q = 0; q < kQ; ++q) {
    HWY_ALIGN float t[kReduceLanes];
    for (int v = 0; v < kV; ++v) hn::Store(f[q][v], df, t + v * N);
    double lane[kReduceLanes];
    for (int j = 0; j < kReduceLanes; ++j) lane[j] = t[j];
    AddCompensated(acc, FoldLanes(lane));
  }
}

template <ReduceKind K, typename H>
void RunHalf(const void* xv, int64_t n, int64_t, double center, ReduceAcc* acc) {
  const H* HWY_RESTRICT x = static_cast<const H*>(xv);
  int64_t b0 = 0;
  // float16 only: bfloat16 blocks one at a time, as the compiler
  // vectorises them, were faster than HalfBlocks (the same transposed sum:
  // 348 vs 477 us; float16 481 -> 375).
  if constexpr (K != kRSumSqDev && std::is_same_v<H, F16>) {
    for (; b0 + 4 * kReduceBlock <= n; b0 += 4 * kReduceBlock) HalfBlocks<K, H, 4>(x + b0, acc);
    for (; b0 + 2 * kReduceBlock <= n; b0 += 2 * kReduceBlock) HalfBlocks<K, H, 2>(x + b0, acc);
  }
  for (int64_t b = b0; b < n; b += kReduceBlock) {
    const int64_t m = n - b < kReduceBlock ? n - b : kReduceBlock;
    double lane[kReduceLanes] = {};
    if constexpr (K == kRSumSqDev) {  // deviations in float64, as float32's
      HWY_ALIGN float w[kReduceBlock];
      if constexpr (std::is_same_v<H, F16>) {
        Widen(x + b, m, w);
      } else {
        for (int64_t i = 0; i < m; ++i) w[i] = ToFloat(x[b + i]);
      }
      BlockSum(w, m, [center](float v) {
        const double dv = static_cast<double>(v) - center;
        return dv * dv;
      }, acc);
      continue;
    } else {
      float f[kReduceLanes] = {};
      int64_t i = 0;
      if constexpr (std::is_same_v<H, F16>) {  // widened first; NaN stays NaN
        HWY_ALIGN float w[kReduceBlock];
        Widen(x + b, m, w);
        auto term = [](float v) { return K == kRNanSum && IsNan(v) ? 0.0f : v; };
        for (; i + kReduceLanes <= m; i += kReduceLanes) {
          for (int j = 0; j < kReduceLanes; ++j) f[j] += term(w[i + j]);
        }
        for (int j = 0; i + j < m; ++j) f[j] += term(w[i + j]);
      } else {
        if (m == kReduceBlock) {  // a fixed count, as BlockSum's
#pragma GCC unroll 16
          for (int64_t k = 0; k < kReduceBlock; k += kReduceLanes) {
            for (int j = 0; j < kReduceLanes; ++j) f[j] += HalfTerm<K>(x[b + k + j]);
          }
          i = m;
        }
        for (; i + kReduceLanes <= m; i += kReduceLanes) {
          for (int j = 0; j < kReduceLanes; ++j) f[j] += HalfTerm<K>(x[b + i + j]);
        }
        for (int j = 0; i + j < m; ++j) f[j] += HalfTerm<K>(x[b + i + j]);
      }
      for (int j = 0; j < kReduceLanes; ++j) lane[j] = f[j];
      AddCompensated(acc, FoldLanes(lane));
    }
  }
}

template <ReduceKind K, typename H, int W>
HWY_INLINE void ColsHalfBlock(const char* const* row, int64_t rows, int64_t k0, const double* centers,
                              ReduceAcc* a) {
  if constexpr (K == kRSumSqDev) {
    double s[W] = {}, c[W];
    for (int j = 0; j < W; ++j) c[j] = centers[k0 + j];
    for (int64_t r = 0; r < rows; ++r) {
      const H* HWY_RESTRICT x = reinterpret_cast<const H*>(row[r]) + k0;
      HWY_ALIGN float w[W];
      if constexpr (std::is_same_v<H, F16>) {
        Widen(x, W, w);
      } else {
        for (int j = 0; j < W; ++j) w[j] = ToFloat(x[j]);
      }
      for (int j = 0; j < W; ++j) {
        const double dv = static_cast<double>(w[j]) - c[j];
        s[j] += dv * dv;
      }
    }
    for (int j = 0; j < W; ++j) AddCompensated(&a[k0 + j], s[j]);
  } else {
    float s[W] = {};  // at most kReduceRowBlock additions each
    for (int64_t r = 0; r < rows; ++r) {
      const H* HWY_RESTRICT x = reinterpret_cast<const H*>(row[r]) + k0;
      if constexpr (std::is_same_v<H, F16>) {
        HWY_ALIGN float w[W];
        Widen(x, W, w);
        for (int j = 0; j < W; ++j) s[j] += K == kRNanSum && IsNan(w[j]) ? 0.0f : w[j];
      } else {
        for (int j = 0; j < W; ++j) s[j] += HalfTerm<K>(x[j]);
      }
    }
    for (int j = 0; j < W; ++j) AddCompensated(&a[k0 + j], s[j]);
  }
}

template <ReduceKind K, typename H>
void ColsHalf(const char* const* row, int64_t rows, int64_t ncols, int64_t, const double* centers,
              ReduceAcc* acc) {
  int64_t k0 = 0;
  for (; k0 + kReduceLanes <= ncols; k0 += kReduceLanes) {
    ColsHalfBlock<K, H, kReduceLanes>(row, rows, k0, centers, acc);
  }
  for (; k0 < ncols; ++k0) ColsHalfBlock<K, H, 1>(row, rows, k0, centers, acc);
}

// n halves as float32, exactly: float16 by Widen (F16C where there is
// one; ToFloat element by element did not vectorise and took 8x the time),
// bfloat16 by its shift.
template <typename H>
HWY_INLINE void WidenHalf(const H* x, int64_t n, float* out) {
  if constexpr (std::is_same_v<H, F16>) {
    Widen(x, n, out);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = ToFloat(x[i]);
  }
}

// Products of the halves, read as they are: each element converted exactly
// (WidenHalf), then the products of Run and Cols for float32 values (lanes
// of a block in float64, folded pairwise; columns row by row).
template <typename H>
void RunHalfProd(const void* xv, int64_t n, int64_t, double, ReduceAcc* acc) {
  const H* HWY_RESTRICT x = static_cast<const H*>(xv);
  for (int64_t b = 0; b < n; b += kReduceBlock) {
    const int64_t m = n - b < kReduceBlock ? n - b : kReduceBlock;
    double lane[kReduceLanes];
    for (int j = 0; j < kReduceLanes; ++j) lane[j] = 1.0;
    int64_t i = 0;
    for (; i + kReduceLanes <= m; i += kReduceLanes) {
      HWY_ALIGN float w[kReduceLanes];
      WidenHalf(x + b + i, kReduceLanes, w);
      for (int j = 0; j < kReduceLanes; ++j) lane[j] *= static_cast<double>(w[j]);
    }
    for (int j = 0; i + j < m; ++j) lane[j] *= static_cast<double>(ToFloat(x[b + i + j]));
    for (int w = kReduceLanes / 2; w >= 1; w /= 2) {
      for (int j = 0; j < w; ++j) lane[j] *= lane[j + w];
    }
    acc->s *= lane[0];
  }
}

template <typename H, int W, int NB>
HWY_INLINE void ColsHalfProdBlocks(const char* const* row, int64_t rows, int64_t k0, int64_t nb,
                                   ReduceAcc* a) {
  double s[NB][W];
  for (int64_t b = 0; b < nb; ++b) {
    for (int j = 0; j < W; ++j) s[b][j] = a[k0 + b * W + j].s;
  }
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t b = 0; b < nb; ++b) {
      const H* HWY_RESTRICT x = reinterpret_cast<const H*>(row[r]) + k0 + b * W;
      HWY_ALIGN float w[W];
      WidenHalf(x, W, w);
      for (int j = 0; j < W; ++j) s[b][j] *= static_cast<double>(w[j]);
    }
  }
  for (int64_t b = 0; b < nb; ++b) {
    for (int j = 0; j < W; ++j) a[k0 + b * W + j].s = s[b][j];
  }
}

template <typename H>
void ColsHalfProd(const char* const* row, int64_t rows, int64_t ncols, int64_t, const double*,
                  ReduceAcc* acc) {
  constexpr int kBlocks = 16;
  int64_t k0 = 0;
  while (k0 + kReduceLanes <= ncols) {
    const int64_t nb = std::min<int64_t>(kBlocks, (ncols - k0) / kReduceLanes);
    ColsHalfProdBlocks<H, kReduceLanes, kBlocks>(row, rows, k0, nb, acc);
    k0 += nb * kReduceLanes;
  }
  for (; k0 < ncols; ++k0) ColsHalfProdBlocks<H, 1, 1>(row, rows, k0, 1, acc);
}

template <ReduceKind K>
void FillHalf(ReduceKernel* row) {
  row[8] = {&RunHalf<K, F16>, &ColsHalf<K, F16>};
  row[9] = {&RunHalf<K, BF16>, &ColsHalf<K, BF16>};
}

// max, min, the arg ops and the counts read the halves as they are (their
// keys or bits).
template <ReduceKind K>
void FillHalfKeys(ReduceKernel* row) {
  row[8] = {&Run<K, F16>, &Cols<K, F16>};
  row[9] = {&Run<K, BF16>, &Cols<K, BF16>};
}

template <ReduceKind K, typename T>
void Fill(ReduceKernel* t) {
  t->run = &Run<K, T>;
  t->cols = &Cols<K, T>;
}

// Kernel dtypes, in the table's columns (ReduceColumn below).
template <ReduceKind K>
void FillKind(ReduceKernel* row) {
  Fill<K, bool>(row + 0);
  Fill<K, uint8_t>(row + 1);
  Fill<K, int8_t>(row + 2);
  Fill<K, int16_t>(row + 3);
  Fill<K, int32_t>(row + 4);
  Fill<K, int64_t>(row + 5);
}

template <ReduceKind K>
void FillFloat(ReduceKernel* row) {
  Fill<K, float>(row + 6);
  Fill<K, double>(row + 7);
}

}  // namespace

const ReduceKernel* ReduceKernelTable() {
  static ReduceKernel table[kRNumKinds][kReduceColumns];
  static const bool filled = [] {
    FillKind<kRSum>(table[kRSum]);
    FillKind<kRSum>(table[kRNanSum]);  // integers have no NaN
    FillKind<kRProd>(table[kRProd]);
    FillKind<kRMax>(table[kRMax]);
    FillKind<kRMin>(table[kRMin]);
    FillKind<kRArgMax>(table[kRArgMax]);
    FillKind<kRArgMin>(table[kRArgMin]);
    FillKind<kRCountNonzero>(table[kRCountNonzero]);
    FillFloat<kRSum>(table[kRSum]);
    FillFloat<kRNanSum>(table[kRNanSum]);
    FillFloat<kRProd>(table[kRProd]);
    FillFloat<kRMax>(table[kRMax]);
    FillFloat<kRMin>(table[kRMin]);
    FillFloat<kRArgMax>(table[kRArgMax]);
    FillFloat<kRArgMin>(table[kRArgMin]);
    FillFloat<kRCountNonzero>(table[kRCountNonzero]);
    FillFloat<kRCountNotNan>(table[kRCountNotNan]);
    FillFloat<kRSumSqDev>(table[kRSumSqDev]);
    FillFloat<kRSumExp>(table[kRSumExp]);
    FillHalf<kRSum>(table[kRSum]);
    FillHalf<kRNanSum>(table[kRNanSum]);
    FillHalf<kRSumSqDev>(table[kRSumSqDev]);
    table[kRProd][8] = {&RunHalfProd<F16>, &ColsHalfProd<F16>};
    table[kRProd][9] = {&RunHalfProd<BF16>, &ColsHalfProd<BF16>};
    FillHalfKeys<kRMax>(table[kRMax]);
    FillHalfKeys<kRMin>(table[kRMin]);
    FillHalfKeys<kRArgMax>(table[kRArgMax]);
    FillHalfKeys<kRArgMin>(table[kRArgMin]);
    FillHalfKeys<kRCountNonzero>(table[kRCountNonzero]);
    FillHalfKeys<kRCountNotNan>(table[kRCountNotNan]);
    return true;
  }();
  (void)filled;
  return &table[0][0];
}

double ReduceLogOne(double x) {
  const hn::CappedTag<double, 1> d;
  return hn::GetLane(math::Log(d, hn::Set(d, x)));
}

}  // namespace HWY_NAMESPACE
}  // namespace bcast
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace bcast {

HWY_EXPORT(ReduceKernelTable);
HWY_EXPORT(ReduceLogOne);

std::atomic<const ReduceKernel*> g_reduce_table{nullptr};

namespace {

int ReduceColumn(bc_dtype d) {
  switch (d) {
    case BC_BOOL: return 0;
    case BC_UINT8: return 1;
    case BC_INT8: return 2;
    case BC_INT16: return 3;
    case BC_INT32: return 4;
    case BC_INT64: return 5;
    case BC_FLOAT32: return 6;
    case BC_FLOAT64: return 7;
    case BC_FLOAT16: return 8;
    case BC_BFLOAT16: return 9;
    default: return -1;
  }
}

}  // namespace

ReduceKernel FindReduceKernel(ReduceKind kind, bc_dtype dtype) {
  const int col = ReduceColumn(dtype);
  if (col < 0 || kind < 0 || kind >= kRNumKinds) return {};
  const ReduceKernel* t = g_reduce_table.load(std::memory_order_acquire);
  if (t == nullptr) {
    t = ChooseFromTable(HWY_DISPATCH_TABLE(ReduceKernelTable))();
    g_reduce_table.store(t, std::memory_order_release);
  }
  return t[kind * kReduceColumns + col];
}

double ReduceLog(double x) { return HWY_DYNAMIC_DISPATCH(ReduceLogOne)(x); }

}  // namespace bcast
#endif  // HWY_ONCE
