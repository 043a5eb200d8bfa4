// The unary ops' functors (the op table's BCAST_UNARY_OP rows): a scalar
// form, operator()(T), and where kVec a Highway vector form, Vec(d, v), that
// gives the same bits. Predicates return bool (vector form: a mask).
// Functors with parameters are built from the kernel's numbers (the op's
// rules resolved PyTorch's defaults and rounding: src/core/unary_rules.cc).
//
// The transcendental functors compute in float64 (src/kernels/math_*-inl.h,
// basic IEEE operations only, so every target gives the same bits): float32
// lanes are widened, computed and rounded once; their scalar form runs the
// vector form on one lane.

#if defined(BCAST_KERNELS_UNARY_FUNCTORS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BCAST_KERNELS_UNARY_FUNCTORS_INL_H_
#undef BCAST_KERNELS_UNARY_FUNCTORS_INL_H_
#else
#define BCAST_KERNELS_UNARY_FUNCTORS_INL_H_
#endif

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <type_traits>

#include "hwy/highway.h"
#include "kernels/functors-inl.h"
#include "kernels/math_exp-inl.h"
#include "kernels/math_erf_f32-inl.h"
#include "kernels/math_exp_f32-inl.h"
#include "kernels/math_trig-inl.h"
#include "kernels/math_trig_f32-inl.h"
#include "kernels/rows-inl.h"  // PrefetchAhead

HWY_BEFORE_NAMESPACE();
namespace bcast {
namespace HWY_NAMESPACE {

template <typename T>
constexpr bool kVecLanes = !std::is_same_v<T, bool> && HWY_TARGET != HWY_SCALAR;

// Two's-complement wrap for integer negation and abs (no UB at the minimum).
template <typename T>
HWY_INLINE T WrapNeg(T x) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(U{0} - static_cast<U>(x)));
}

template <typename T>
struct NegF {
  static constexpr bool kVec = kVecLanes<T>;
  HWY_INLINE T operator()(T x) const {
    if constexpr (kFloat<T>) return -x;
    else return WrapNeg(x);
  }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V x) const {
    if constexpr (kFloat<T> || std::is_signed_v<T>) return hn::Neg(x);
    else return hn::Sub(hn::Zero(d), x);
  }
};

template <typename T>
struct AbsF {
  static constexpr bool kVec = kVecLanes<T>;
  HWY_INLINE T operator()(T x) const {
    if constexpr (kFloat<T>) return std::fabs(x);
    else if constexpr (std::is_signed_v<T>) return x < 0 ? WrapNeg(x) : x;
    else return x;
  }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V x) const {
    if constexpr (kFloat<T>) {
      return hn::Abs(x);
    } else if constexpr (std::is_signed_v<T>) {
      return hn::IfThenElse(hn::Lt(x, hn::Zero(d)), hn::Sub(hn::Zero(d), x), x);
    } else {
      return x;
    }
  }
};

// (0 < x) - (x < 0): NaN and both zeros give +0.
template <typename T>
struct SignF {
  static constexpr bool kVec = kVecLanes<T>;
  HWY_INLINE T operator()(T x) const {
    if constexpr (std::is_same_v<T, bool>) return x;
    else return static_cast<T>(static_cast<int>(T{0} < x) - static_cast<int>(x < T{0}));
  }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V x) const {
    const V zero = hn::Zero(d), one = hn::Set(d, T{1});
    if constexpr (std::is_unsigned_v<T>) {
      return hn::IfThenElseZero(hn::Gt(x, zero), one);
    } else {
      return hn::IfThenElse(hn::Gt(x, zero), one,
                            hn::IfThenElseZero(hn::Lt(x, zero), hn::Set(d, T(-1))));
    }
  }
};

template <typename T>
struct SquareF {
  static constexpr bool kVec = kFloat<T> ? kVecLanes<T> : kMulWrapLanes<T>;
  HWY_INLINE T operator()(T x) const {
    if constexpr (std::is_same_v<T, bool>) {
      return x;
    } else if constexpr (kFloat<T>) {
      return x * x;
    } else {
      return scalar::Mul<T>(x, x);  // wraps; no int promotion overflow for int16
    }
  }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V x) const {
    if constexpr (kFloat<T>) {
      return hn::Mul(x, x);
    } else {
#if HWY_TARGET != HWY_SCALAR
      return MulWrap(d, x, x);
#else
      (void)d;
      return x;
#endif
    }
  }
};

// max(x, 0) as PyTorch's clamp_min: x unless x < 0, so -0.0 and NaN stay.
template <typename T>
struct ReluF {
  static constexpr bool kVec = kVecLanes<T>;
  HWY_INLINE T operator()(T x) const { return x < T{0} ? T{0} : x; }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V x) const {
    if constexpr (std::is_unsigned_v<T>) return x;
    else return hn::IfThenZeroElse(hn::Lt(x, hn::Zero(d)), x);
  }
};

// clamp(x, lo, hi): x unless strictly outside; NaN stays. The bounds come in
// the kernel's type (integers: truncated, as PyTorch's toLong()).
template <typename T>
struct HardtanhF {
  static constexpr bool kVec = kVecLanes<T>;
  T lo, hi;
  bool lo_below, hi_above;  // integers: a bound outside T's range clamps nothing
  explicit HardtanhF(const double* s) {
    if constexpr (kFloat<T>) {
      lo = static_cast<T>(s[0]);
      hi = static_cast<T>(s[1]);
      lo_below = hi_above = false;
    } else {
      const double tlo = static_cast<double>(std::numeric_limits<T>::lowest());
      const double thi = static_cast<double>(std::numeric_limits<T>::max());
      lo_below = s[0] < tlo;
      hi_above = s[1] > thi;
      lo = lo_below ? std::numeric_limits<T>::lowest()
                    : (s[0] > thi ? std::numeric_limits<T>::max() : static_cast<T>(s[0]));
      hi = hi_above ? std::numeric_limits<T>::max()
                    : (s[1] < tlo ? std::numeric_limits<T>::lowest() : static_cast<T>(s[1]));
    }
  }
  HWY_INLINE T operator()(T x) const {
    const T m = x < lo ? lo : x;
    return hi < m ? hi : m;
  }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V x) const {
    const V l = hn::Set(d, lo), h = hn::Set(d, hi);
    const V m = hn::IfThenElse(hn::Lt(x, l), l, x);
    return hn::IfThenElse(hn::Lt(h, m), h, m);
  }
};

// floor, ceil, round (half to even), trunc: integers are copied.
enum class Rounding { kFloor, kCeil, kRound, kTrunc };
template <typename T, Rounding kR>
struct RoundingF {
  static constexpr bool kVec = kVecLanes<T>;
  HWY_INLINE T operator()(T x) const {
    if constexpr (!kFloat<T>) {
      return x;
    } else {
      switch (kR) {
        case Rounding::kFloor: return std::floor(x);
        case Rounding::kCeil: return std::ceil(x);
        case Rounding::kRound: return std::nearbyint(x);
        default: return std::trunc(x);
      }
    }
  }
  // A rounded value has its input's sign (floor(-0.0), ceil(-0.5) are
  // -0.0): CopySign restores it where Highway emulates rounding (SSSE3).
  template <class D, class V>
  HWY_INLINE V Vec(D /*d*/, V x) const {
    if constexpr (!kFloat<T>) {
      return x;
    } else {
      switch (kR) {
        case Rounding::kFloor: return hn::CopySign(hn::Floor(x), x);
        case Rounding::kCeil: return hn::CopySign(hn::Ceil(x), x);
        case Rounding::kRound: return hn::CopySign(hn::Round(x), x);
        default: return hn::CopySign(hn::Trunc(x), x);
      }
    }
  }
};
template <typename T>
using FloorF = RoundingF<T, Rounding::kFloor>;
template <typename T>
using CeilF = RoundingF<T, Rounding::kCeil>;
template <typename T>
using RoundF = RoundingF<T, Rounding::kRound>;
template <typename T>
using TruncF = RoundingF<T, Rounding::kTrunc>;

// x - trunc(x) (PyTorch's formula: frac(-0.0) is +0.0, frac(inf) NaN).
template <typename T>
struct FracF {
  static constexpr bool kVec = kVecLanes<T>;
  HWY_INLINE T operator()(T x) const { return x - std::trunc(x); }
  template <class D, class V>
  HWY_INLINE V Vec(D /*d*/, V x) const { return hn::Sub(x, hn::CopySign(hn::Trunc(x), x)); }
};

// NaN, +inf, -inf replaced by the resolved numbers (in T); integers copied.
template <typename T>
struct NanToNumF {
  static constexpr bool kVec = kVecLanes<T>;
  T nan, posinf, neginf;
  explicit NanToNumF(const double* s)
      : nan(static_cast<T>(kFloat<T> ? s[0] : 0)),
        posinf(static_cast<T>(kFloat<T> ? s[1] : 0)),
        neginf(static_cast<T>(kFloat<T> ? s[2] : 0)) {}
  HWY_INLINE T operator()(T x) const {
    if constexpr (!kFloat<T>) {
      return x;
    } else {
      if (x != x) return nan;
      if (x == std::numeric_limits<T>::infinity()) return posinf;
      if (x == -std::numeric_limits<T>::infinity()) return neginf;
      return x;
    }
  }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V x) const {
    if constexpr (!kFloat<T>) {
      return x;
    } else {
      const V inf = hn::Set(d, std::numeric_limits<T>::infinity());
      V r = hn::IfThenElse(hn::Eq(x, inf), hn::Set(d, posinf), x);
      r = hn::IfThenElse(hn::Eq(x, hn::Neg(inf)), hn::Set(d, neginf), r);
      return hn::IfThenElse(hn::IsNaN(x), hn::Set(d, nan), r);
    }
  }
};

template <typename T>
struct BitNotF {
  static constexpr bool kVec = kVecLanes<T> && kIntT<T>;
  HWY_INLINE T operator()(T x) const {
    if constexpr (std::is_same_v<T, bool>) return !x;
    else if constexpr (kIntT<T>) return static_cast<T>(~x);
    else return x;  // (no kernel: integers and bool only)
  }
  template <class D, class V>
  HWY_INLINE V Vec(D /*d*/, V x) const { return hn::Not(x); }
};

// A unary functor on bool tensors, as the bytes 0 and 1 in uint8 lanes:
// F<uint8_t> gives the same bytes for every op that keeps bool (sign,
// nan_to_num), but bitwise_not flips the low bit only.
struct BoolNotBytes {
  static constexpr bool kVec = kVecLanes<uint8_t>;
  HWY_INLINE uint8_t operator()(uint8_t x) const { return static_cast<uint8_t>(x ^ 1u); }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V x) const { return hn::Xor(x, hn::Set(d, uint8_t{1})); }
};
template <template <typename> class F>
struct BoolBytes {
  using type = F<uint8_t>;
};
template <>
struct BoolBytes<BitNotF> {
  using type = BoolNotBytes;
};

template <typename T>
struct SqrtF {
  static constexpr bool kVec = kVecLanes<T> && kFloat<T>;
  HWY_INLINE T operator()(T x) const { return std::sqrt(x); }
  template <class D, class V>
  HWY_INLINE V Vec(D /*d*/, V x) const { return hn::Sqrt(x); }
};

// 1 / sqrt(x), two roundings, as PyTorch's kernel.
template <typename T>
struct RsqrtF {
  static constexpr bool kVec = kVecLanes<T> && kFloat<T>;
  HWY_INLINE T operator()(T x) const { return T{1} / std::sqrt(x); }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V x) const { return hn::Div(hn::Set(d, T{1}), hn::Sqrt(x)); }
};

template <typename T>
struct ReciprocalF {
  static constexpr bool kVec = kVecLanes<T> && kFloat<T>;
  HWY_INLINE T operator()(T x) const { return T{1} / x; }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V x) const { return hn::Div(hn::Set(d, T{1}), x); }
};

// min(max(x + 3, 0), 6) / 6, PyTorch's order (NaN stays NaN).
template <typename T>
struct HardsigmoidF {
  static constexpr bool kVec = kVecLanes<T> && kFloat<T>;
  HWY_INLINE T operator()(T x) const {
    T m = x + T{3};
    m = m < T{0} ? T{0} : m;
    m = m > T{6} ? T{6} : m;
    return m / T{6};
  }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V x) const {
    V m = hn::Add(x, hn::Set(d, T{3}));
    m = hn::IfThenZeroElse(hn::Lt(m, hn::Zero(d)), m);
    m = hn::IfThenElse(hn::Gt(m, hn::Set(d, T{6})), hn::Set(d, T{6}), m);
    return hn::Div(m, hn::Set(d, T{6}));
  }
};

// x * min(max(x + 3, 0), 6) / 6.
template <typename T>
struct HardswishF {
  static constexpr bool kVec = kVecLanes<T> && kFloat<T>;
  HWY_INLINE T operator()(T x) const {
    T m = x + T{3};
    m = m < T{0} ? T{0} : m;
    m = m > T{6} ? T{6} : m;
    return x * m / T{6};
  }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V x) const {
    V m = hn::Add(x, hn::Set(d, T{3}));
    m = hn::IfThenZeroElse(hn::Lt(m, hn::Zero(d)), m);
    m = hn::IfThenElse(hn::Gt(m, hn::Set(d, T{6})), hn::Set(d, T{6}), m);
    return hn::Div(hn::Mul(x, m), hn::Set(d, T{6}));
  }
};

// x > 0 ? x : x * slope.
template <typename T>
struct LeakyReluF {
  static constexpr bool kVec = kVecLanes<T> && kFloat<T>;
  T slope;
  explicit LeakyReluF(const double* s) : slope(static_cast<T>(s[0])) {}
  HWY_INLINE T operator()(T x) const { return x > T{0} ? x : x * slope; }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V x) const {
    return hn::IfThenElse(hn::Gt(x, hn::Zero(d)), x, hn::Mul(x, hn::Set(d, slope)));
  }
};

// ---------------------------------------------------------------- predicates
// On integers and bool: isnan/isinf false, isfinite true, signbit x < 0.

template <typename T>
HWY_INLINE bool SignBitOf(T x) {
  if constexpr (kFloat<T>) return std::signbit(x);
  else if constexpr (std::is_signed_v<T>) return x < 0;
  else return false;
}

enum class Pred { kNan, kInf, kPosInf, kNegInf, kFinite, kSignbit, kZero };
template <typename T, Pred kP>
struct PredicateF {
  static constexpr bool kVec = kVecLanes<T>;
  HWY_INLINE bool operator()(T x) const {
    constexpr T inf = std::numeric_limits<T>::infinity();
    switch (kP) {
      case Pred::kNan: return kFloat<T> && x != x;
      case Pred::kInf: return kFloat<T> && (x == inf || x == -inf);
      case Pred::kPosInf: return kFloat<T> && x == inf;
      case Pred::kNegInf: return kFloat<T> && x == -inf;
      case Pred::kFinite: return !kFloat<T> || (x == x && x != inf && x != -inf);
      case Pred::kSignbit: return SignBitOf(x);
      default: return x == T{0};
    }
  }
  template <class D, class V>
  HWY_INLINE auto Vec(D d, V x) const {
    const V zero = hn::Zero(d);
    if constexpr (kP == Pred::kZero) {
      return hn::Eq(x, zero);
    } else if constexpr (!kFloat<T>) {
      if constexpr (kP == Pred::kFinite) return hn::Eq(x, x);
      else if constexpr (kP == Pred::kSignbit && std::is_signed_v<T>) return hn::Lt(x, zero);
      else return hn::Ne(x, x);  // all false (integers)
    } else {
      const V inf = hn::Set(d, std::numeric_limits<T>::infinity());
      switch (kP) {
        case Pred::kNan: return hn::IsNaN(x);
        case Pred::kInf: return hn::Eq(hn::Abs(x), inf);
        case Pred::kPosInf: return hn::Eq(x, inf);
        case Pred::kNegInf: return hn::Eq(x, hn::Neg(inf));
        case Pred::kFinite: return hn::Lt(hn::Abs(x), inf);
        default: {  // the sign bit, NaN's included
          const hn::RebindToSigned<D> di;
          return hn::RebindMask(d, hn::Lt(hn::BitCast(di, x), hn::Zero(di)));
        }
      }
    }
  }
};
template <typename T>
using IsnanF = PredicateF<T, Pred::kNan>;
template <typename T>
using IsinfF = PredicateF<T, Pred::kInf>;
template <typename T>
using IsposinfF = PredicateF<T, Pred::kPosInf>;
template <typename T>
using IsneginfF = PredicateF<T, Pred::kNegInf>;
template <typename T>
using IsfiniteF = PredicateF<T, Pred::kFinite>;
template <typename T>
using SignbitF = PredicateF<T, Pred::kSignbit>;
template <typename T>
using LogicalNotF = PredicateF<T, Pred::kZero>;

// A predicate on float16/bfloat16 bits (Fmt), without widening: the
// exponent field all ones with a nonzero fraction is NaN, with a zero one
// infinity; the sign is the top bit.
template <class F, class Fmt>
struct HalfPred;
template <typename T, Pred kP, class Fmt>
struct HalfPred<PredicateF<T, kP>, Fmt> {
  static constexpr int16_t kExp = std::is_same_v<Fmt, F16Format> ? 0x7c00 : 0x7f80;
  static constexpr bool kVec = HWY_TARGET != HWY_SCALAR;
  HalfPred() = default;
  explicit HalfPred(const double*) {}
  HWY_INLINE bool operator()(uint16_t b) const {
    const int a = b & 0x7fff;
    switch (kP) {
      case Pred::kNan: return a > kExp;
      case Pred::kInf: return a == kExp;
      case Pred::kPosInf: return b == kExp;
      case Pred::kNegInf: return b == (kExp | 0x8000);
      case Pred::kFinite: return a < kExp;
      case Pred::kSignbit: return (b & 0x8000) != 0;
      default: return a == 0;
    }
  }
  template <class D, class V>
  HWY_INLINE auto Vec(D d, V b) const {
    const hn::RebindToSigned<D> di;
    const auto bi = hn::BitCast(di, b);
    const auto a = hn::And(bi, hn::Set(di, int16_t{0x7fff}));
    const auto e = hn::Set(di, kExp);
    switch (kP) {
      case Pred::kNan: return hn::RebindMask(d, hn::Gt(a, e));
      case Pred::kInf: return hn::RebindMask(d, hn::Eq(a, e));
      case Pred::kPosInf: return hn::RebindMask(d, hn::Eq(bi, e));
      case Pred::kNegInf: return hn::RebindMask(d, hn::Eq(bi, hn::Set(di, static_cast<int16_t>(kExp | 0x8000))));
      case Pred::kFinite: return hn::RebindMask(d, hn::Lt(a, e));
      case Pred::kSignbit: return hn::RebindMask(d, hn::Lt(bi, hn::Zero(di)));
      default: return hn::RebindMask(d, hn::Eq(a, hn::Zero(di)));
    }
  }
};

// ---------------------------------------------------------------- transcendentals

// A math function out of line: once per function, descriptor and target,
// not inlined at every call site of every row kernel (the library's code
// was 12.6 MB with them inlined). It runs over a block of `count` lanes (a
// multiple of the descriptor's), so that a contiguous row is one call with
// the function's constants in registers; called a vector at a time, the
// call and the reloaded constants cost float32 tanh 0.508 against 0.470 ns
// per element at 4M elements, exp 0.353 against 0.328 (Intel Xeon VM). kF32:
// the functor's float32 form (F32). A NaN argument gives itself, quieted
// (see MathF::Vec). `in` may equal `out`. stream: non-temporal stores (out
// aligned to the vector); prefetch: inputs fetched ahead (PrefetchAhead).
template <bool kF32, class Fn, class D>
HWY_NOINLINE void MathBlock(const Fn& f, D d, const hn::TFromD<D>* in, hn::TFromD<D>* out,
                            size_t count, bool stream, bool prefetch) {
  const size_t N = hn::Lanes(d);
  for (size_t i = 0; i < count; i += N) {
    if (prefetch) PrefetchAhead(in + i);
    const auto x = hn::LoadU(d, in + i);
    auto r = x;
    if constexpr (kF32) r = f.F32(d, x);
    else r = f(d, x);
    r = hn::IfThenElse(hn::IsNaN(x), hn::Add(x, x), r);
    if (stream) hn::Stream(r, d, out + i);
    else hn::StoreU(r, d, out + i);
  }
}

// One vector through MathBlock.
template <bool kF32, class Fn, class D, class V>
HWY_INLINE V MathVec(const Fn& f, D d, V x) {
  alignas(64) hn::TFromD<D> buf[hn::MaxLanes(D())];
  hn::StoreU(x, d, buf);
  MathBlock<kF32>(f, d, buf, buf, hn::Lanes(d), false, false);
  return hn::LoadU(d, buf);
}
template <class Fn, class D, class V>
HWY_INLINE V MathCall(const Fn& f, D d, V x) {
  return MathVec<false>(f, d, x);
}
template <class Fn, class D, class V>
HWY_INLINE V MathCallF32(const Fn& f, D d, V x) {
  return MathVec<true>(f, d, x);
}

// float32 lanes through the float64 function: widened, computed, rounded once.
template <class Fn, class D, class V>
HWY_INLINE V ViaFloat64(const Fn& f, D d, V x) {
  if constexpr (HWY_TARGET == HWY_SCALAR || hn::MaxLanes(d) == 1) {
    const hn::Rebind<double, D> dd;
    return hn::DemoteTo(d, MathCall(f, dd, hn::PromoteTo(dd, x)));
  } else {
#if HWY_TARGET != HWY_SCALAR
    const hn::Half<D> dh;
    const hn::Repartition<double, D> dd;
    const auto lo = MathCall(f, dd, hn::PromoteTo(dd, hn::LowerHalf(dh, x)));
    const auto hi = MathCall(f, dd, hn::PromoteTo(dd, hn::UpperHalf(dh, x)));
    return hn::Combine(d, hn::DemoteTo(dh, hi), hn::DemoteTo(dh, lo));
#endif
  }
}

// Whether a math functor has a float32 form of its own (F32: native
// float32 arithmetic, src/kernels/math_exp_f32-inl.h, math_trig_f32-inl.h and
// math_erf_f32-inl.h,
// within 1 ulp of the correctly rounded float32 result, verified on all 2^32
// inputs).
template <class Fn, class = void>
struct HasF32 : std::false_type {};
template <class Fn>
struct HasF32<Fn, std::void_t<decltype(Fn::kF32)>> : std::bool_constant<Fn::kF32> {};

// A functor's run-time form of HalfViaF32: bool HalfViaF32Now() const.
template <class Fn, class = void>
struct HasHalfViaF32Now : std::false_type {};
template <class Fn>
struct HasHalfViaF32Now<Fn, std::void_t<decltype(&Fn::HalfViaF32Now)>> : std::true_type {};

// A float64 function F64 (a functor: r = f(d, x) on float64 lanes) on T
// lanes: float64 directly; float32 through its own float32 form where it has
// one, else widened, computed, rounded once (kAccurate: always widened, so
// that float16/bfloat16 get the correctly rounded float32 result to round
// once). The scalar form runs the same code on one lane.
template <typename T, class F64, bool kAccurate = false>
struct MathF {
  static constexpr bool kVec = HWY_TARGET != HWY_SCALAR && kFloat<T>;
  // Where the output streams (large tensors), the inputs are fetched ahead:
  // between a vector's loads lie tens of cycles of math, and the hardware
  // prefetchers fell behind on the Intel Xeon VM (float32 sigmoid at 16M
  // elements, 1 thread: 3.6 -> 0.76 ns per element; exp 1.0 -> 0.32).
  static constexpr bool kPrefetch = true;
  static constexpr bool kOwnF32 = std::is_same_v<T, float> && HasF32<F64>::value && !kAccurate;
  // The halves' path (kAccurate) with a functor whose float32 form was
  // checked on every half input for some of its parameters (HalfViaF32Now:
  // softplus with beta 1): that form where they hold, decided per call.
  static constexpr bool kMaybeF32 =
      std::is_same_v<T, float> && HasF32<F64>::value && kAccurate && HasHalfViaF32Now<F64>::value;
  F64 f;
  bool f32_now = false;
  MathF() = default;
  explicit MathF(const double* s) : f(s) {
    if constexpr (kMaybeF32) f32_now = f.HalfViaF32Now();
  }
  // Whole vectors of a contiguous row in one call (MathBlock), where T
  // computes directly: float64, or float32 with its own form.
  static constexpr bool kBlock = kVec && (std::is_same_v<T, double> || kOwnF32);
  template <class D>
  HWY_INLINE void Block(D d, const T* in, T* out, size_t count, bool stream, bool prefetch) const {
    MathBlock<kOwnF32>(f, d, in, out, count, stream, prefetch);
  }
  // A NaN argument gives itself, quieted (x + x), on every path: what the
  // arithmetic did to its sign differed between a vector body and a row's
  // one-lane tail, by compiler (GCC: float64 silu; clang: erf and erfc),
  // which made the bits depend on where an element fell in its row.
  template <class D, class V>
  HWY_INLINE V Vec(D d, V x) const {
    V r;
    if constexpr (std::is_same_v<T, double>) r = MathCall(f, d, x);
    else if constexpr (kOwnF32) r = MathCallF32(f, d, x);
    else if constexpr (kMaybeF32) r = f32_now ? MathCallF32(f, d, x) : ViaFloat64(f, d, x);
    else r = ViaFloat64(f, d, x);
    return hn::IfThenElse(hn::IsNaN(x), hn::Add(x, x), r);
  }
  HWY_INLINE T operator()(T x) const {
    if constexpr (kOwnF32 || kMaybeF32) {
      if (kOwnF32 || f32_now) {
        if (x != x) return x + x;
        const hn::CappedTag<float, 1> d1;
        return hn::GetLane(MathCallF32(f, d1, hn::Set(d1, x)));
      }
    }
    {
      const double xd = static_cast<double>(x);
      if (xd != xd) return static_cast<T>(xd + xd);
      const hn::CappedTag<double, 1> d1;
      return static_cast<T>(hn::GetLane(MathCall(f, d1, hn::Set(d1, xd))));
    }
  }
};
// Whether float16/bfloat16 may compute with a math functor's float32 form:
// only where that form, rounded to each half format, gives the correctly
// rounded float32 result rounded once for all 65,536 inputs (checked bit for
// bit by test_unary's UnaryMath on every half bit pattern). Functors with
// parameters other than PyTorch's defaults cannot be checked that way and
// leave it false.
template <class Fn, class = void>
struct HalfViaF32 : std::false_type {};
template <class Fn>
struct HalfViaF32<Fn, std::void_t<decltype(Fn::kHalfViaF32)>> : std::bool_constant<Fn::kHalfViaF32> {};

// The functor float16/bfloat16 compute with: the float32 form where
// HalfViaF32 allows it, else the float64 path.
template <class F>
struct AccurateOf {
  using type = F;
};
template <typename T, class F64>
struct AccurateOf<MathF<T, F64, false>> {
  using type = MathF<T, F64, !HalfViaF32<F64>::value>;
};

#define BCAST_MATH_FUNCTOR(NAME, CALL)                                      \
  struct NAME##Fn {                                                         \
    NAME##Fn() = default;                                                   \
    explicit NAME##Fn(const double*) {}                                     \
    template <class D, class V>                                             \
    HWY_INLINE V operator()(D d, V x) const { return CALL; }                \
  };                                                                        \
  template <typename T>                                                     \
  using NAME##F = MathF<T, NAME##Fn>
// With a float32 form, math::NAME##F32.
#define BCAST_MATH_FUNCTOR_F32(NAME)                                        \
  struct NAME##Fn {                                                         \
    static constexpr bool kF32 = true;                                      \
    static constexpr bool kHalfViaF32 = true;                               \
    NAME##Fn() = default;                                                   \
    explicit NAME##Fn(const double*) {}                                     \
    template <class D, class V>                                             \
    HWY_INLINE V operator()(D d, V x) const { return math::NAME(d, x); }    \
    template <class D, class V>                                             \
    HWY_INLINE V F32(D d, V x) const { return math::NAME##F32(d, x); }      \
  };                                                                        \
  template <typename T>                                                     \
  using NAME##F = MathF<T, NAME##Fn>
BCAST_MATH_FUNCTOR_F32(Exp);
BCAST_MATH_FUNCTOR_F32(Exp2);
BCAST_MATH_FUNCTOR_F32(Expm1);
BCAST_MATH_FUNCTOR_F32(Log);
BCAST_MATH_FUNCTOR_F32(Log2);
BCAST_MATH_FUNCTOR_F32(Log10);
BCAST_MATH_FUNCTOR_F32(Log1p);
BCAST_MATH_FUNCTOR_F32(Sin);
BCAST_MATH_FUNCTOR_F32(Cos);
BCAST_MATH_FUNCTOR_F32(Tan);
BCAST_MATH_FUNCTOR_F32(Asin);
BCAST_MATH_FUNCTOR_F32(Acos);
BCAST_MATH_FUNCTOR_F32(Atan);
BCAST_MATH_FUNCTOR_F32(Sinh);
BCAST_MATH_FUNCTOR_F32(Cosh);
BCAST_MATH_FUNCTOR_F32(Tanh);
BCAST_MATH_FUNCTOR_F32(Asinh);
BCAST_MATH_FUNCTOR_F32(Acosh);
BCAST_MATH_FUNCTOR_F32(Atanh);
BCAST_MATH_FUNCTOR_F32(Erf);
BCAST_MATH_FUNCTOR_F32(Erfc);
BCAST_MATH_FUNCTOR_F32(Erfinv);
BCAST_MATH_FUNCTOR_F32(Sigmoid);
BCAST_MATH_FUNCTOR_F32(Silu);
BCAST_MATH_FUNCTOR_F32(Mish);
#undef BCAST_MATH_FUNCTOR
#undef BCAST_MATH_FUNCTOR_F32

// logit(z), z = x clamped to [lo, hi] when eps was given (s[0] != 0; the
// bounds s[1], s[2] rounded to the dtype by the op's rules).
struct LogitFn {
  bool clamp = false;
  double lo = 0, hi = 1;
  explicit LogitFn(const double* s) : clamp(s[0] != 0), lo(s[1]), hi(s[2]) {}
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    if (clamp) {
      const V l = hn::Set(d, lo), h = hn::Set(d, hi);
      x = hn::IfThenElse(hn::Lt(x, l), l, hn::IfThenElse(hn::Gt(x, h), h, x));
    }
    return math::Logit(d, x);
  }
  static constexpr bool kF32 = true;
  template <class D, class V>
  HWY_INLINE V F32(D d, V x) const {
    if (clamp) {
      const V l = hn::Set(d, static_cast<float>(lo)), h = hn::Set(d, static_cast<float>(hi));
      x = hn::IfThenElse(hn::Lt(x, l), l, hn::IfThenElse(hn::Gt(x, h), h, x));
    }
    return math::LogitF32(d, x);
  }
  // eps's bounds are rounded to the dtype (a half value), so clamped
  // inputs are half values too: every one is checked bit for bit.
  static constexpr bool kHalfViaF32 = true;
};
template <typename T>
using LogitF = MathF<T, LogitFn>;

// gelu: s[0] is approximate (0 'none', 1 'tanh').
struct GeluFn {
  bool tanh_form = false;
  explicit GeluFn(const double* s) : tanh_form(s[0] != 0) {}
  // gelu(-inf) is NaN in both forms, as PyTorch's -inf * 0 (silu and mish
  // too): GeluErf alone would give the limit, -0.
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    if (tanh_form) return math::GeluTanh(d, x);
    const V r = math::GeluErf(d, x);
    return hn::IfThenElse(hn::Eq(x, hn::Set(d, -HUGE_VAL)), hn::Set(d, NAN), r);
  }
  static constexpr bool kF32 = true;
  template <class D, class V>
  HWY_INLINE V F32(D d, V x) const {
    return tanh_form ? math::GeluTanhF32(d, x) : math::GeluErfF32(d, x);
  }
  // Both forms checked on every half bit pattern (test_unary's UnaryParams).
  static constexpr bool kHalfViaF32 = true;
};
template <typename T>
using GeluF = MathF<T, GeluFn>;

struct SoftplusFn {
  double beta = 1, threshold = 20;
  explicit SoftplusFn(const double* s) : beta(s[0]), threshold(s[1]) {}
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const { return math::Softplus(d, x, beta, threshold); }
  static constexpr bool kF32 = true;
  template <class D, class V>
  HWY_INLINE V F32(D d, V x) const {
    return math::SoftplusF32(d, x, static_cast<float>(beta), static_cast<float>(threshold));
  }
  // Halves through the float32 form for beta 1 (its native form; the
  // threshold only selects x): test_unary's UnaryParams checks every half
  // bit pattern with beta 1 (thresholds 20 and 5), bit for bit.
  HWY_INLINE bool HalfViaF32Now() const { return beta == 1.0; }
};
template <typename T>
using SoftplusF = MathF<T, SoftplusFn>;

struct EluFn {
  double alpha = 1;
  explicit EluFn(const double* s) : alpha(s[0]) {}
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const { return math::Elu(d, x, alpha); }
  static constexpr bool kF32 = true;
  template <class D, class V>
  HWY_INLINE V F32(D d, V x) const { return math::EluF32(d, x, static_cast<float>(alpha)); }
};
template <typename T>
using EluF = MathF<T, EluFn>;

// Halves' ops computed directly rather than through a result table: their
// widen, compute, narrow runs at 0.77-0.93 of a copy's speed on the Intel
// Xeon VM (bench/unary_matrix.py, (1024,4096), 2026-11-28), at or above a
// table's 0.67-0.78; bfloat16's narrowing (no hardware conversion) costs
// more, so fewer of its ops qualify. Every other op on the halves takes a
// table.
template <class F, class Fmt>
struct HalfDirect : std::false_type {};
#define BCAST_HALF_DIRECT(F, Fmt) \
  template <>                     \
  struct HalfDirect<F, Fmt> : std::true_type {};
BCAST_HALF_DIRECT(NegF<float>, F16Format)
BCAST_HALF_DIRECT(AbsF<float>, F16Format)
BCAST_HALF_DIRECT(SquareF<float>, F16Format)
BCAST_HALF_DIRECT(ReluF<float>, F16Format)
BCAST_HALF_DIRECT(LeakyReluF<float>, F16Format)
BCAST_HALF_DIRECT(HardtanhF<float>, F16Format)
BCAST_HALF_DIRECT(SignF<float>, F16Format)
BCAST_HALF_DIRECT(FloorF<float>, F16Format)
BCAST_HALF_DIRECT(CeilF<float>, F16Format)
BCAST_HALF_DIRECT(RoundF<float>, F16Format)
BCAST_HALF_DIRECT(TruncF<float>, F16Format)
BCAST_HALF_DIRECT(FracF<float>, F16Format)
BCAST_HALF_DIRECT(NanToNumF<float>, F16Format)
BCAST_HALF_DIRECT(ReciprocalF<float>, F16Format)
BCAST_HALF_DIRECT(NegF<float>, BF16Format)
BCAST_HALF_DIRECT(AbsF<float>, BF16Format)
BCAST_HALF_DIRECT(SquareF<float>, BF16Format)
BCAST_HALF_DIRECT(ReluF<float>, BF16Format)
BCAST_HALF_DIRECT(LeakyReluF<float>, BF16Format)
#undef BCAST_HALF_DIRECT

// Result tables of float16/bfloat16 ops: all 65,536 results of
// one function on one format (with its parameter values), built once per
// process from the function itself, so a lookup gives the same bits as the
// computation. A slot is claimed, filled and then published (release); a
// reader takes a table only once published (acquire). There is no lock
// anywhere (no guard a thread could hold when another forks): a row that
// finds another thread building computes directly. Four parameter sets
// per function and format at most, told apart by the kernel's scalars (all
// kMaxScalars of them, kernels.h); tables live until the library unloads.
struct HalfTableCache {
  static constexpr int kSlots = 4;
  struct Slot {
    std::atomic<const uint16_t*> table{nullptr};
    double key[kMaxScalars] = {};
  };
  Slot slots[kSlots];
  std::atomic<int> used{0};
  std::atomic<uint64_t> computed{0};  // elements computed without a table
  std::atomic<bool> building{false};
  static bool Same(const double* a, const double* b) {
    for (int i = 0; i < kMaxScalars; ++i) {
      if (std::memcmp(&a[i], &b[i], sizeof(double)) != 0) return false;
    }
    return true;
  }
  const uint16_t* Find(const double* s) const {
    const int n = std::min(used.load(std::memory_order_acquire), kSlots);
    for (int i = 0; i < n; ++i) {
      const uint16_t* t = slots[i].table.load(std::memory_order_acquire);
      if (t != nullptr && Same(slots[i].key, s)) return t;
    }
    return nullptr;
  }
  // Builds with fill(table) unless another thread is building or every slot
  // is taken; returns the table or nullptr.
  template <class Fill>
  const uint16_t* Build(const double* s, const Fill& fill) {
    if (used.load(std::memory_order_relaxed) >= kSlots) return nullptr;
    if (building.exchange(true, std::memory_order_acquire)) return nullptr;
    const uint16_t* found = Find(s);
    if (found == nullptr && used.load(std::memory_order_relaxed) < kSlots) {
      // 2 bytes beyond the last entry: the lookup reads 4 bytes per entry.
      uint16_t* t = new (std::nothrow) uint16_t[65536 + 2];
      if (t != nullptr) {
        fill(t);
        t[65536] = t[65537] = 0;
        const int i = used.load(std::memory_order_relaxed);
        for (int k = 0; k < kMaxScalars; ++k) slots[i].key[k] = s[k];
        slots[i].table.store(t, std::memory_order_release);
        used.store(i + 1, std::memory_order_release);
        found = t;
      }
    }
    building.store(false, std::memory_order_release);
    return found;
  }
};

#if HWY_TARGET != HWY_SCALAR
// A row of n (a multiple of Lanes(d)) float16/bfloat16 values through a
// result table: each entry read as the low half of 4 bytes (GatherOffset).
template <class D16>
HWY_NOINLINE void HalfTableBlock(D16 d, const uint16_t* table, const uint16_t* in, uint16_t* out,
                                 size_t n, bool stream) {
  const hn::Half<D16> dh;
  const hn::Repartition<int32_t, D16> d32;
  const int32_t* base = reinterpret_cast<const int32_t*>(table);
  const auto low = hn::Set(d32, 0xFFFF);
  const size_t N = hn::Lanes(d);
  for (size_t i = 0; i < n; i += N) {
    const auto v = hn::LoadU(d, in + i);
    const auto lo = hn::PromoteTo(d32, hn::LowerHalf(dh, v));
    const auto hi = hn::PromoteTo(d32, hn::UpperHalf(dh, v));
    const auto rlo = hn::And(hn::GatherOffset(d32, base, hn::Add(lo, lo)), low);
    const auto rhi = hn::And(hn::GatherOffset(d32, base, hn::Add(hi, hi)), low);
    const auto r = hn::Combine(d, hn::DemoteTo(dh, rhi), hn::DemoteTo(dh, rlo));
    if (stream) {
      hn::Stream(r, d, out + i);
    } else {
      hn::StoreU(r, d, out + i);
    }
  }
}
#endif

// A float32 functor on float16/bfloat16 storage (format Fmt): widened,
// computed in float32, rounded once. Most ops (not HalfDirect's) also look
// up a result table (HalfTableCache) for whole vectors of contiguous rows,
// built once kTableMin elements have been computed without one (building
// computes as many again, so a process never spends more than twice what
// the table saves it): a lookup is a fraction of a nanosecond per
// element, the computation up to several.
template <class F, class Fmt>
struct UnaryHalfOf {
  F f;
  const double* s;  // kMaxScalars numbers: the table's key
  explicit UnaryHalfOf(const double* p) : f(MakeFunctor<F>(p)), s(p != nullptr ? p : kNoScalars) {}
  static constexpr double kNoScalars[kMaxScalars] = {};
  static constexpr bool kVec = Fmt::kVec && F::kVec;
  HWY_INLINE uint16_t operator()(uint16_t a) const { return Fmt::Narrow(f(Fmt::Widen(a))); }
#if HWY_TARGET != HWY_SCALAR
  template <class D, class V>
  HWY_INLINE V Vec(D d, V a) const {
    const hn::Half<D> dh;
    const hn::Repartition<float, D> df;
    const auto lo = f.Vec(df, Fmt::Widen(df, hn::LowerHalf(dh, a)));
    const auto hi = f.Vec(df, Fmt::Widen(df, hn::UpperHalf(dh, a)));
    return hn::Combine(d, Fmt::Narrow(df, hi), Fmt::Narrow(df, lo));
  }
  static constexpr bool kBlock = kVec && !HalfDirect<F, Fmt>::value;
  static constexpr size_t kTableMin = 65536;
  static inline HalfTableCache cache;
  template <class D>
  HWY_INLINE void Block(D d, const uint16_t* in, uint16_t* out, size_t count, bool stream,
                        bool prefetch) const {
    const size_t N = hn::Lanes(d);
    const uint16_t* table = cache.Find(s);
    if (table == nullptr &&
        cache.computed.fetch_add(count, std::memory_order_relaxed) + count >= kTableMin) {
      table = cache.Build(s, [&](uint16_t* t) {
        alignas(64) uint16_t x[hn::MaxLanes(D())];
        for (size_t i = 0; i < 65536; i += N) {
          for (size_t k = 0; k < N; ++k) x[k] = static_cast<uint16_t>(i + k);
          hn::StoreU(Vec(d, hn::Load(d, x)), d, t + i);
        }
      });
    }
    if (table != nullptr) return HalfTableBlock(d, table, in, out, count, stream);
    for (size_t i = 0; i < count; i += N) {
      if (prefetch) PrefetchAhead(in + i);
      const auto r = Vec(d, hn::LoadU(d, in + i));
      if (stream) {
        hn::Stream(r, d, out + i);
      } else {
        hn::StoreU(r, d, out + i);
      }
    }
  }
#endif
};

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace bcast
HWY_AFTER_NAMESPACE();

#endif  // BCAST_KERNELS_UNARY_FUNCTORS_INL_H_
