// The op table's functors: for each op a scalar form (operator(), the
// semantics of scalar_ops.h) and, where it is exact, a Highway vector form
// (Vec) that gives the same bits. kVec says whether Vec exists for the type;
// kPrefetch asks the row loops to fetch streaming inputs ahead (ops that do
// much work per byte, which keeps the core from running far ahead). Functors
// that take alpha or value are constructed from it (a double).

#if defined(BCAST_KERNELS_FUNCTORS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BCAST_KERNELS_FUNCTORS_INL_H_
#undef BCAST_KERNELS_FUNCTORS_INL_H_
#else
#define BCAST_KERNELS_FUNCTORS_INL_H_
#endif

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/dtype.h"
#include "hwy/highway.h"
#include "kernels/bf16-inl.h"
#include "kernels/math_fma-inl.h"
#include "kernels/scalar_ops.h"

HWY_BEFORE_NAMESPACE();
namespace bcast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <typename T>
constexpr bool kFloat = std::is_floating_point_v<T>;
template <typename T>
constexpr bool kIntT = std::is_integral_v<T> && !std::is_same_v<T, bool>;
// Integer lanes Highway multiplies (low half of the product, so wrapping).
template <typename T>
constexpr bool kMulLanes = kIntT<T> && (sizeof(T) == 2 || sizeof(T) == 4);
// Integer lanes MulWrap multiplies: every width (8-bit lanes as the two
// bytes of 16-bit lanes; 64-bit lanes natively on AVX-512, from 32-bit
// halves elsewhere, by Highway).
template <typename T>
constexpr bool kMulWrapLanes = kIntT<T> && HWY_TARGET != HWY_SCALAR;

#if HWY_TARGET != HWY_SCALAR
// The low bits of a * b, as C's unsigned multiplication wraps.
template <class D, class V>
HWY_INLINE V MulWrap(D d, V a, V b) {
  using T = hn::TFromD<D>;
  if constexpr (sizeof(T) == 1) {
    const hn::Repartition<uint16_t, D> dw;
    const auto a16 = hn::BitCast(dw, a), b16 = hn::BitCast(dw, b);
    const auto even = hn::And(hn::Mul(a16, b16), hn::Set(dw, uint16_t{0x00ff}));
    const auto odd = hn::Mul(hn::ShiftRight<8>(a16), hn::And(b16, hn::Set(dw, uint16_t{0xff00})));
    return hn::BitCast(d, hn::Or(even, odd));
  } else {
    return hn::Mul(a, b);
  }
}

// Integer pow by squaring, all lanes at once, for as many rounds as the
// largest exponent has bits; a negative exponent gives 1 for a base of 1,
// +-1 for -1 and 0 otherwise, as PyTorch's integral pow.
template <class D, class V>
HWY_INLINE V IntPow(D d, V a, V b) {
  using T = hn::TFromD<D>;
  const V zero = hn::Zero(d), one = hn::Set(d, T{1});
  V e = b, base = a, r = one;
  if constexpr (std::is_signed_v<T>) e = hn::IfThenElse(hn::Lt(b, zero), zero, b);
  while (!hn::AllTrue(d, hn::Eq(e, zero))) {
    r = hn::IfThenElse(hn::Eq(hn::And(e, one), one), MulWrap(d, r, base), r);
    base = MulWrap(d, base, base);
    e = hn::ShiftRight<1>(e);
  }
  if constexpr (std::is_signed_v<T>) {
    const V minus_one = hn::Set(d, T{-1});
    const V odd_sign = hn::IfThenElse(hn::Eq(hn::And(b, one), one), minus_one, one);
    const V negative = hn::IfThenElse(hn::Eq(a, one), one,
                                      hn::IfThenElseZero(hn::Eq(a, minus_one), odd_sign));
    r = hn::IfThenElse(hn::Lt(b, zero), negative, r);
  }
  return r;
}
#endif

// alpha or value in the kernel's type. Integral ones are checked by the
// caller; a fractional value truncates, as PyTorch's integral addcmul does.
template <typename T>
HWY_INLINE T CastScalar(double v) {
  if constexpr (std::is_same_v<T, bool>) return v != 0;
  else if constexpr (kIntT<T>) return static_cast<T>(static_cast<int64_t>(v));
  else return static_cast<T>(v);
}

// The functor for a kernel call: built from the kernel's numbers (a unary
// op's parameters) or from the first (alpha/value) when it takes one.
template <class F>
HWY_INLINE F MakeFunctor(const double* s) {
  if constexpr (std::is_constructible_v<F, const double*>) {
    return F(s);
  } else if constexpr (std::is_constructible_v<F, double>) {
    return F(s[0]);
  } else {
    (void)s;
    return F{};
  }
}

// The functor of an op that has no alpha form (a kernel table gap).
template <typename T>
struct NoAlpha {};

// A functor from a scalar function, with no vector form.
#define BCAST_SCALAR_FUNCTOR(NAME, EXPR)                          \
  template <typename T>                                           \
  struct NAME {                                                   \
    static constexpr bool kVec = false;                           \
    HWY_INLINE auto operator()(T a, T b) const { return EXPR; }   \
  }
#undef BCAST_SCALAR_FUNCTOR

// The scalar form lane by lane: for vectors with a lane outside the exact
// domain of an op's vector form (special values, huge quotients).
template <class D, class F, class V>
HWY_NOINLINE V ByLane(D d, const F& f, V a, V b) {
  using T = hn::TFromD<D>;
  constexpr size_t kN = hn::MaxLanes(d);
  alignas(64) T x[kN], y[kN], r[kN];
  hn::Store(a, d, x);
  hn::Store(b, d, y);
  for (size_t i = 0; i < hn::Lanes(d); ++i) r[i] = f(x[i], y[i]);
  return hn::Load(d, r);
}

#if HWY_TARGET != HWY_SCALAR
// fn(dd, x, y) on a and b promoted to float64, half a vector at a time,
// demoted back to a's lane type: the float32 and int32 forms that compute in
// float64.
template <class D, class V, class Fn>
HWY_INLINE V InFloat64Halves(D d, V a, V b, const Fn& fn) {
  const hn::Half<D> dh;
  const hn::Repartition<double, D> dd;
  auto half = [&](auto x, auto y) {
    return hn::DemoteTo(dh, fn(dd, hn::PromoteTo(dd, x), hn::PromoteTo(dd, y)));
  };
  return hn::Combine(d, half(hn::UpperHalf(dh, a), hn::UpperHalf(dh, b)),
                     half(hn::LowerHalf(dh, a), hn::LowerHalf(dh, b)));
}
#endif

// float32 fmod, remainder and floor division in vectors. fmod(a, b) is
// a - trunc(a / b) * b computed in float64, which is exact when a and b are
// finite, b != 0 and |a| < 2^28 |b|: with 24-bit significands the quotient's
// distance to the next integer is more than its rounding error, the product
// of a 28-bit integer and b fits 53 bits, and the difference is the exact
// remainder. Vectors with any other lane take the scalar form (libm).
// float64 (targets with FMA): q = trunc(a / b) is the true quotient or one
// too far from zero while |a| < 2^52 |b|; a - q*b, fused, is then exact (a
// multiple of b's ulp no larger than b), and one step puts q right.
template <class D, class V>
HWY_INLINE bool FmodOutsideExact(D d, V a, V b) {
  using T = hn::TFromD<D>;
  const T limit = sizeof(T) == 4 ? T(268435456.0) : T(4503599627370496.0);  // 2^28, 2^52
  const auto big = hn::Ge(hn::Abs(a), hn::Mul(hn::Abs(b), hn::Set(d, limit)));
  const auto special = hn::Or(hn::Not(hn::IsFinite(a)),
                              hn::Or(hn::Not(hn::IsFinite(b)), hn::Eq(b, hn::Zero(d))));
  return !hn::AllFalse(d, hn::Or(big, special));
}
#if HWY_TARGET != HWY_SCALAR
template <class D, class V>
HWY_INLINE V FmodExact(D d, V a, V b) {
  if constexpr (sizeof(hn::TFromD<D>) == 8) {
    const V r = hn::NegMulAdd(hn::Trunc(hn::Div(a, b)), b, a);
    const auto past = hn::AndNot(hn::Eq(r, hn::Zero(d)),
                                 hn::Xor(hn::Lt(r, hn::Zero(d)), hn::Lt(a, hn::Zero(d))));
    const V back = hn::IfThenElse(past, hn::Sub(r, hn::CopySign(hn::Abs(b), r)), r);
    return hn::CopySign(back, a);  // a zero remainder has a's sign, as fmod's
  } else {
    const V r = InFloat64Halves(d, a, b, [](auto, auto x, auto y) {
      return hn::Sub(x, hn::Mul(hn::Trunc(hn::Div(x, y)), y));
    });
    return hn::CopySign(r, a);  // a zero remainder has a's sign, as fmod's
  }
}
#endif
template <typename T>
constexpr bool kFmodVec = (std::is_same_v<T, float> && HWY_TARGET != HWY_SCALAR) ||
                          (std::is_same_v<T, double> && HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2);

// The integer division family in vectors, for 8-, 16- and 32-bit lanes
// (division by zero is refused before any kernel runs): lanes widen to 32
// bits and the truncated quotient comes from a float division, exact here:
// float32 for values of at most 16 bits, float64 for 32-bit ones (a
// non-integral quotient of n-bit integers is further from the next integer
// than the division's rounding error). The op then finishes in 32-bit lanes
// as scalar_ops.h does, and narrows back; x / -1 wraps as there.
enum class IntDiv { kTrunc, kFloor, kRemainder, kFmod };
template <typename T>
constexpr bool kIntDivLanes =
    HWY_TARGET != HWY_SCALAR && kIntT<T> && (std::is_signed_v<T> || std::is_same_v<T, uint8_t>);

#if HWY_TARGET != HWY_SCALAR
template <IntDiv kOp, class DI, class VI>
HWY_INLINE VI IntDivFinish(DI di, VI a, VI b, VI q) {
  if constexpr (kOp == IntDiv::kTrunc) {
    return q;
  } else {
    const VI zero = hn::Zero(di);
    const VI r = hn::Sub(a, hn::Mul(q, b));
    if constexpr (kOp == IntDiv::kFmod) return r;
    const auto other_sign = hn::AndNot(hn::Eq(r, zero), hn::Xor(hn::Lt(r, zero), hn::Lt(b, zero)));
    if constexpr (kOp == IntDiv::kRemainder) return hn::IfThenElse(other_sign, hn::Add(r, b), r);
    return hn::IfThenElse(other_sign, hn::Sub(q, hn::Set(di, 1)), q);
  }
}

// int64: the op in float64, exact while |a| < 2^53 (the quotient and q*b are
// then below 2^53, or the quotient is 0; remainder's + b is done in
// integers); vectors with a larger dividend (and so MIN / -1) take the
// scalar form.
template <IntDiv kOp, class F, class D, class V>
HWY_INLINE V Int64DivVec(D d, V a, V b, const F& f) {
  const hn::Repartition<double, D> dd;
  const auto ad = hn::ConvertTo(dd, a), bd = hn::ConvertTo(dd, b);
  if (!hn::AllTrue(dd, hn::Lt(hn::Abs(ad), hn::Set(dd, 9007199254740992.0))))
    return ByLane(d, f, a, b);
  const auto zero = hn::Zero(dd);
  auto q = hn::Trunc(hn::Div(ad, bd));
  if constexpr (kOp == IntDiv::kTrunc) return hn::ConvertTo(d, q);
  const auto r = hn::Sub(ad, hn::Mul(q, bd));
  if constexpr (kOp == IntDiv::kFmod) return hn::ConvertTo(d, r);
  const auto other_sign = hn::AndNot(hn::Eq(r, zero), hn::Xor(hn::Lt(r, zero), hn::Lt(bd, zero)));
  if constexpr (kOp == IntDiv::kRemainder) {  // + b in integers: b may be past 2^53
    const V ri = hn::ConvertTo(d, r);
    return hn::IfThenElse(hn::RebindMask(d, other_sign), hn::Add(ri, b), ri);
  }
  q = hn::IfThenElse(other_sign, hn::Sub(q, hn::Set(dd, 1.0)), q);
  return hn::ConvertTo(d, q);
}

template <IntDiv kOp, class D, class V>
HWY_INLINE V IntDivVec(D d, V a, V b) {
  using T = hn::TFromD<D>;
  const hn::Half<D> dh;
  V r;
  if constexpr (sizeof(T) == 4) {
    V q = InFloat64Halves(d, a, b, [](auto, auto x, auto y) { return hn::Trunc(hn::Div(x, y)); });
    q = hn::IfThenElse(hn::Eq(b, hn::Set(d, T(-1))), hn::Sub(hn::Zero(d), a), q);
    return IntDivFinish<kOp>(d, a, b, q);
  } else if constexpr (sizeof(T) == 2) {
    const hn::Repartition<int32_t, D> dw;
    const hn::Repartition<float, D> df;
    auto wide = [&](auto x, auto y) {
      const auto xw = hn::PromoteTo(dw, x), yw = hn::PromoteTo(dw, y);
      const auto q = hn::ConvertTo(dw, hn::Trunc(hn::Div(hn::ConvertTo(df, xw), hn::ConvertTo(df, yw))));
      return hn::DemoteTo(dh, IntDivFinish<kOp>(dw, xw, yw, q));
    };
    r = hn::Combine(d, wide(hn::UpperHalf(dh, a), hn::UpperHalf(dh, b)),
                    wide(hn::LowerHalf(dh, a), hn::LowerHalf(dh, b)));
  } else {  // bytes: through 16-bit lanes (uint8 zero-extends)
    const hn::Repartition<int16_t, D> dw;
    const hn::Rebind<hwy::MakeWide<T>, decltype(dh)> dx;
    auto wide = [&](auto x, auto y) {
      const auto xw = hn::BitCast(dw, hn::PromoteTo(dx, x));
      const auto yw = hn::BitCast(dw, hn::PromoteTo(dx, y));
      return hn::DemoteTo(dh, IntDivVec<kOp>(dw, xw, yw));
    };
    r = hn::Combine(d, wide(hn::UpperHalf(dh, a), hn::UpperHalf(dh, b)),
                    wide(hn::LowerHalf(dh, a), hn::LowerHalf(dh, b)));
  }
  if constexpr (std::is_signed_v<T> && (kOp == IntDiv::kTrunc || kOp == IntDiv::kFloor)) {
    // MIN / -1 saturated when narrowed: it wraps to MIN, as -MIN does.
    r = hn::IfThenElse(hn::Eq(b, hn::Set(d, T(-1))), hn::Sub(hn::Zero(d), a), r);
  }
  return r;
}
#endif

// The division family (div_trunc, div_floor, remainder, fmod): integers
// through IntDivVec/Int64DivVec, floats through FmodExact, each finishing as
// scalar_ops.h does, step by step in T.
template <typename T, IntDiv kOp>
struct DivisionF {
  static constexpr bool kVec =
      (kOp == IntDiv::kTrunc ? kFloat<T> : kFmodVec<T>) || kIntDivLanes<T>;
  HWY_INLINE T operator()(T a, T b) const {
    switch (kOp) {
      case IntDiv::kTrunc: return scalar::DivTrunc(a, b);
      case IntDiv::kFloor: return scalar::DivFloor(a, b);
      case IntDiv::kRemainder: return scalar::Remainder(a, b);
      case IntDiv::kFmod: break;
    }
    return scalar::Fmod(a, b);
  }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V a, V b) const {
    if constexpr (kIntT<T>) {
#if HWY_TARGET != HWY_SCALAR
      if constexpr (sizeof(T) == 8) return Int64DivVec<kOp>(d, a, b, *this);
      else return IntDivVec<kOp>(d, a, b);
#endif
    } else if constexpr (kOp == IntDiv::kTrunc) {  // the quotient rounded once, truncated
      (void)d;
      return hn::Trunc(hn::Div(a, b));
    } else {
#if HWY_TARGET != HWY_SCALAR
      if (FmodOutsideExact(d, a, b)) return ByLane(d, *this, a, b);
      const V mod = FmodExact(d, a, b);
      if constexpr (kOp == IntDiv::kFmod) return mod;
      const V zero = hn::Zero(d), one = hn::Set(d, T(1));
      const auto other_sign =
          hn::AndNot(hn::Eq(mod, zero), hn::Xor(hn::Lt(b, zero), hn::Lt(mod, zero)));
      if constexpr (kOp == IntDiv::kRemainder) return hn::IfThenElse(other_sign, hn::Add(mod, b), mod);
      // Floor division, Python's algorithm.
      V div = hn::Div(hn::Sub(a, mod), b);
      div = hn::IfThenElse(other_sign, hn::Sub(div, one), div);
      V fl = hn::Floor(div);
      fl = hn::IfThenElse(hn::Gt(hn::Sub(div, fl), hn::Set(d, T(0.5))), hn::Add(fl, one), fl);
      return hn::IfThenElse(hn::Eq(div, zero), hn::CopySign(zero, hn::Div(a, b)), fl);
#endif
    }
  }
};
// The division family's half dtypes (HalfOf): PyTorch's trunc and floor
// division of float16/bfloat16 round every step to the half type (each
// Vectorized<Half> operator, and each c10::Half one in its scalar loop,
// rounds), so these forms take the half format's rounding: Fmt::Round.
template <class Fmt, IntDiv kOp>
struct HalfStepDivision {
  static constexpr bool kVec = Fmt::kVec;
  HWY_INLINE float operator()(float a, float b) const {
    if constexpr (kOp == IntDiv::kTrunc) {
      return std::trunc(Fmt::Round(a / b));
    } else {
      if (b == 0) return a / b;
      const float mod = std::fmod(a, b);  // exact
      float div = Fmt::Round(Fmt::Round(a - mod) / b);
      if (mod != 0 && ((b < 0) != (mod < 0))) div = Fmt::Round(div - 1.0f);
      if (div == 0) return std::copysign(0.0f, a / b);
      float fl = std::floor(div);
      if (Fmt::Round(div - fl) > 0.5f) fl = Fmt::Round(fl + 1.0f);
      return fl;
    }
  }
#if HWY_TARGET != HWY_SCALAR
  template <class D, class V>
  HWY_INLINE V Vec(D d, V a, V b) const {
    if constexpr (kOp == IntDiv::kTrunc) {
      return hn::Trunc(Fmt::Round(d, hn::Div(a, b)));
    } else {
      if (FmodOutsideExact(d, a, b)) return ByLane(d, *this, a, b);
      const V mod = FmodExact(d, a, b);
      const V zero = hn::Zero(d), one = hn::Set(d, 1.0f);
      V div = Fmt::Round(d, hn::Div(Fmt::Round(d, hn::Sub(a, mod)), b));
      const auto other_sign =
          hn::AndNot(hn::Eq(mod, zero), hn::Xor(hn::Lt(b, zero), hn::Lt(mod, zero)));
      div = hn::IfThenElse(other_sign, Fmt::Round(d, hn::Sub(div, one)), div);
      V fl = hn::Floor(div);
      fl = hn::IfThenElse(hn::Gt(Fmt::Round(d, hn::Sub(div, fl)), hn::Set(d, 0.5f)),
                          Fmt::Round(d, hn::Add(fl, one)), fl);
      return hn::IfThenElse(hn::Eq(div, zero), hn::CopySign(zero, hn::Div(a, b)), fl);
    }
  }
#endif
};
// The functor HalfOf runs in float32 lanes for F in half format Fmt.
template <class F, class Fmt>
struct HalfFunctor {
  using type = F;
};
template <class Fmt, IntDiv kOp>
struct HalfFunctor<DivisionF<float, kOp>, Fmt> {
  using type = std::conditional_t<kOp == IntDiv::kTrunc || kOp == IntDiv::kFloor,
                                  HalfStepDivision<Fmt, kOp>, DivisionF<float, kOp>>;
};

template <typename T>
using DivTruncF = DivisionF<T, IntDiv::kTrunc>;
template <typename T>
using DivFloorF = DivisionF<T, IntDiv::kFloor>;
template <typename T>
using RemainderF = DivisionF<T, IntDiv::kRemainder>;
template <typename T>
using FmodF = DivisionF<T, IntDiv::kFmod>;

// Shifts by a per-lane count: a count below zero or from the bit width up
// gives 0 (left) or the sign fill (right). 8-bit lanes shift as the two
// bytes of 16-bit lanes, each byte by its own count, the bits that cross
// into the other byte masked off. (Highway 1.0.3's 16-bit variable shift
// does not compile for SSSE3.) 64-bit shifts fetch ahead while streaming:
// int64 (1024,4096) << (4096,) 1.78 -> 1.43 ms; two builds A/B +14-25% row,
// a tie same-shape; 32-bit shifts a tie either way.
template <typename T>
constexpr bool kShiftLanes = (sizeof(T) <= 2 && HWY_TARGET != HWY_SSSE3 && HWY_TARGET != HWY_SCALAR) ||
                             std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>;
template <class D, class V>
HWY_INLINE auto ShiftCountInRange(D d, V b) {
  using T = hn::TFromD<D>;
  return hn::AndNot(hn::Lt(b, hn::Zero(d)), hn::Lt(b, hn::Set(d, T(sizeof(T) * 8))));
}
// Bytes of a shifted left (kLeft) or right by the bytes of n (0..7).
template <bool kLeft, class D, class V>
HWY_INLINE V ShiftBytes(D d, V a, V n) {
  using T = hn::TFromD<D>;
  using W = std::conditional_t<std::is_signed_v<T> && !kLeft, int16_t, uint16_t>;
  const hn::Repartition<W, D> dw;
  const hn::Repartition<uint16_t, D> du;
  const auto low = hn::Set(du, uint16_t{0x00ff}), high = hn::Set(du, uint16_t{0xff00});
  const auto a16 = hn::BitCast(dw, a);
  const auto n16 = hn::BitCast(du, n);
  const auto n_even = hn::BitCast(dw, hn::And(n16, low));
  const auto n_odd = hn::BitCast(dw, hn::ShiftRight<8>(n16));
  hn::Vec<decltype(du)> even, odd;
  if constexpr (kLeft) {
    even = hn::And(hn::BitCast(du, a16 << n_even), low);
    odd = hn::BitCast(du, hn::BitCast(dw, hn::And(hn::BitCast(du, a16), high)) << n_odd);
  } else {
    // The even byte moved to the top first, so that a signed one sign-fills.
    even = hn::ShiftRight<8>(hn::BitCast(du, hn::ShiftLeft<8>(a16) >> n_even));
    odd = hn::And(hn::BitCast(du, a16 >> n_odd), high);
  }
  return hn::BitCast(d, hn::Or(even, odd));
}
template <typename T>
struct ShlF {
  static constexpr bool kVec = kShiftLanes<T>;
  static constexpr bool kPrefetch = sizeof(T) == 8;
  HWY_INLINE T operator()(T a, T b) const { return scalar::ShiftLeft(a, b); }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V a, V b) const {
    const auto ok = ShiftCountInRange(d, b);
    if constexpr (sizeof(T) == 1) {
      return hn::IfThenElseZero(ok, ShiftBytes<true>(d, a, hn::IfThenElseZero(ok, b)));
    } else {
      return hn::IfThenElseZero(ok, a << hn::IfThenElseZero(ok, b));
    }
  }
};
template <typename T>
struct ShrF {
  static constexpr bool kVec = kShiftLanes<T>;
  static constexpr bool kPrefetch = sizeof(T) == 8;
  HWY_INLINE T operator()(T a, T b) const { return scalar::ShiftRight(a, b); }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V a, V b) const {
    const V top = hn::Set(d, T(sizeof(T) * 8 - 1));
    const V n = hn::IfThenElse(ShiftCountInRange(d, b), b, top);
    if constexpr (sizeof(T) == 1) {
      // Unsigned: past the width is 0, not a shift by 7.
      const V r = ShiftBytes<false>(d, a, n);
      if constexpr (std::is_signed_v<T>) return r;
      else return hn::IfThenElseZero(ShiftCountInRange(d, b), r);
    } else {
      return a >> n;
    }
  }
};

// float32 atan2 and pow in vectors: computed in float64 with polynomials
// sized for float32 (below) and rounded once, which is within 1 ulp of the
// correctly rounded float32 result. Lanes
// outside the domain where that holds (infinities, NaN; for pow a base <= 0
// or a result outside the normal float range) take libm. The
// scalar form runs the same float64 code on one lane, so that a row's tail
// and the SCALAR target give the same bits as the vectors. Every
// multiply-add here and in the float64 forms below is math::MulAddD (or its
// negated forms): rounded once on every target, the instruction where there
// is FMA and an exact emulation elsewhere, so that every target computes the
// same bits (tests/test_simd.cc, BinaryMathSameBitsOnEveryTarget).
template <typename T>
constexpr bool kF64MathVec = std::is_same_v<T, float> && HWY_TARGET != HWY_SCALAR;
template <typename T>
constexpr bool kF64Vec = std::is_same_v<T, double> && HWY_TARGET != HWY_SCALAR;

// s = a + b and its exact error through *err (Knuth's TwoSum).
template <class DD, class VD>
HWY_INLINE VD TwoSum(DD, VD a, VD b, VD* err) {
  const VD s = hn::Add(a, b), bb = hn::Sub(s, a);
  *err = hn::Add(hn::Sub(a, hn::Sub(s, bb)), hn::Sub(b, bb));
  return s;
}
// The polynomial c[0] x^(N-1) + ... + c[N-1] (highest degree first), by
// Horner's rule with multiply-adds.
template <class DD, class VD, size_t N>
HWY_INLINE VD Horner(DD dd, VD x, const double (&c)[N]) {
  VD p = hn::Set(dd, c[0]);
  for (size_t i = 1; i < N; ++i) p = math::MulAddD(dd, p, x, hn::Set(dd, c[i]));
  return p;
}

// atan2 to float32 accuracy, in float64, for finite y and x (zeros as C's
// atan2: +-0 or +-pi for y = +-0, +-pi/2 for x = +-0): r = min/max of |y|
// and |x|, reduced to |t| <= tan(pi/8) through atan(r) = pi/4 +
// atan((r - 1) / (r + 1)) (numerator and denominator chosen before the one
// division; exact in float64 for float32 operands), atan(t) = t + t z P(z)
// with z = t^2 and P of degree 5 (a Chebyshev fit; relative error below
// 1e-10, far below float32's half ulp), then octant, side and sign.
template <class DD, class VD>
HWY_INLINE VD Atan2ForFloat32(DD dd, VD y, VD x) {
  const VD zero = hn::Zero(dd);
  const VD ay = hn::Abs(y), ax = hn::Abs(x);
  const VD n = hn::Min(ay, ax), d = hn::Max(ay, ax);
  const auto big = hn::Gt(n, hn::Mul(d, hn::Set(dd, 0.41421356237309503)));  // tan(pi/8)
  const VD num = hn::IfThenElse(big, hn::Sub(n, d), n);
  const VD den = hn::IfThenElse(big, hn::Add(n, d), d);
  const VD t = hn::IfThenElseZero(hn::Gt(den, zero), hn::Div(num, den));  // 0/0: 0
  const VD z = hn::Mul(t, t);
  const VD p = Horner(dd, z, {0.050542097039046434, -0.08627289505125398, 0.11071759151644987,
                              -0.14284175492697315, 0.1999997778435137, -0.33333333281082583});
  VD a = math::MulAddD(dd, hn::Mul(t, z), p, t);
  a = hn::Add(a, hn::IfThenElseZero(big, hn::Set(dd, 0.78539816339744828)));
  a = hn::IfThenElse(hn::Gt(ay, ax), hn::Sub(hn::Set(dd, 1.5707963267948966), a), a);
  const auto x_signed = hn::Lt(hn::CopySign(hn::Set(dd, 1.0), x), zero);  // -0 too
  a = hn::IfThenElse(x_signed, hn::Sub(hn::Set(dd, 3.1415926535897931), a), a);
  return hn::CopySign(a, y);
}
// a = 2^e m for a normal positive a, m in [sqrt(1/2), sqrt(2)): m, and e
// (as a double) through *e.
template <class DD, class VD>
HWY_INLINE VD SplitExponent(DD dd, VD a, VD* e) {
  const hn::RebindToUnsigned<DD> du;
  const auto bits = hn::BitCast(du, a);
  const VD m = hn::BitCast(dd, hn::Or(hn::And(bits, hn::Set(du, 0x000FFFFFFFFFFFFFull)),
                                      hn::Set(du, 0x3FF0000000000000ull)));
  // The biased exponent as the low bits of 2^52, minus 2^52 + 1023.
  const VD biased = hn::BitCast(dd, hn::Or(hn::ShiftRight<52>(bits), hn::Set(du, 0x4330000000000000ull)));
  const auto above = hn::Gt(m, hn::Set(dd, 1.4142135623730951));
  *e = hn::Add(hn::Sub(biased, hn::Set(dd, 4503599627371519.0)), hn::IfThenElseZero(above, hn::Set(dd, 1.0)));
  return hn::IfThenElse(above, hn::Mul(m, hn::Set(dd, 0.5)), m);
}
// x = k ln 2 + r: k, rounded to nearest by adding 1.5 * 2^52 (whose low
// bits then hold k), and 2^k made from those bits through *scale.
template <class DD, class VD>
HWY_INLINE VD ExpReduce(DD dd, VD x, VD* scale) {
  const hn::RebindToUnsigned<DD> du;
  const VD shifter = hn::Set(dd, 6755399441055744.0);
  const VD t = math::MulAddD(dd, x, hn::Set(dd, 1.4426950408889634), shifter);
  const auto k_bits = hn::Sub(hn::BitCast(du, t), hn::BitCast(du, shifter));
  *scale = hn::BitCast(dd, hn::ShiftLeft<52>(hn::Add(k_bits, hn::Set(du, 1023))));
  return hn::Sub(t, shifter);
}
// float32 pow as exp(b ln a) in float64, each part sized for float32
// accuracy (relative errors below 1e-10, far below float32's half ulp).
// ln a, a > 0 and finite: a = 2^e m with m in [sqrt(1/2), sqrt(2)),
// ln m = 2 atanh(s) = 2s + 2s w Q(w), s = (m - 1) / (m + 1), w = s^2, Q of
// degree 4 (a Chebyshev fit); the exponent e comes out of the bits.
template <class DD, class VD>
HWY_INLINE VD PowExponent(DD dd, VD a, VD b) {
  const VD one = hn::Set(dd, 1.0);
  VD e;
  const VD m = SplitExponent(dd, a, &e);
  const VD s = hn::Div(hn::Sub(m, one), hn::Add(m, one));
  const VD w = hn::Mul(s, s);
  const VD q = Horner(dd, w, {0.09681723051810882, 0.1109567711101456, 0.14285877696176555,
                              0.19999999396152213, 0.3333333333368987});
  const VD s2 = hn::Add(s, s);
  const VD ln_a = math::MulAddD(dd, e, hn::Set(dd, 0.6931471805599453), math::MulAddD(dd, hn::Mul(s2, w), q, s2));
  return hn::Mul(b, ln_a);
}
// exp(x) for |x| < 80: x = k ln 2 + r, |r| <= ln(2)/2 (k rounded by adding
// 1.5 * 2^52, whose low bits then hold k), exp(r) of degree 7 (a Chebyshev
// fit), times 2^k made from its bits.
template <class DD, class VD>
HWY_INLINE VD PowExp(DD dd, VD x) {
  VD scale;
  const VD k = ExpReduce(dd, x, &scale);
  const VD r = math::NegMulAddD(dd, k, hn::Set(dd, 0.6931471805599453), x);
  const VD p = Horner(dd, r, {0.00019915869310828895, 0.00139485808238663, 0.008333266093010952,
                              0.04166621827438506, 0.1666666689107552, 0.5000000107749364,
                              0.9999999999797802, 0.9999999999595487});
  return hn::Mul(p, scale);
}
constexpr double kPowExponentLimit = 80.0;

// float64 atan2, for finite y and x whose nonzero
// magnitudes lie in [2^-500, 2^500]: the same octant reduction as above,
// but the reduced argument t = num / den as a double-double (numerator and
// denominator as exact sums, one division, the residual by fused
// multiply-add), atan(t) = t + t z P(z) with P of degree 10 (a Chebyshev
// fit: relative error below 1e-17), and the octant's multiple of pi/4 added
// as a double-double before the one final rounding: within 1 ulp of the
// correctly rounded result (tested against atan2l).
template <class DD, class VD>
HWY_INLINE VD Atan2F64(DD dd, VD y, VD x) {
  const VD zero = hn::Zero(dd), one = hn::Set(dd, 1.0);
  const VD ay = hn::Abs(y), ax = hn::Abs(x);
  const VD n = hn::Min(ay, ax), d = hn::Max(ay, ax);
  const auto big = hn::Gt(n, hn::Mul(d, hn::Set(dd, 0.41421356237309503)));  // tan(pi/8)
  VD num_lo, den_lo;
  const VD num = TwoSum(dd, n, hn::IfThenElseZero(big, hn::Neg(d)), &num_lo);
  const VD den = TwoSum(dd, hn::IfThenElseZero(big, n), d, &den_lo);
  const auto nonzero = hn::Gt(den, zero);
  const VD inv = hn::Div(one, hn::IfThenElse(nonzero, den, one));
  const VD t0 = hn::Mul(num, inv);
  const VD r = hn::Sub(hn::Add(math::NegMulAddD(dd, t0, den, num), num_lo), hn::Mul(t0, den_lo));
  const VD t = hn::IfThenElseZero(nonzero, t0);
  const VD t_lo = hn::IfThenElseZero(nonzero, hn::Mul(r, inv));
  const VD z = hn::Mul(t, t);
  const VD p = Horner(dd, z, {-0.01917688711906226, 0.03923165829558719, -0.0508544973794026,
                              0.0585814891280221, -0.06664511447381948, 0.07692183190826087,
                              -0.09090904578123903, 0.11111111015256361, -0.14285714284666542,
                              0.1999999999999552, -0.3333333333333333});
  const VD lo = math::MulAddD(dd, hn::Mul(t, z), p, t_lo);  // atan(t) = t + lo
  // The result is k pi/4 + atan(t) or k pi/4 - atan(t), by octant.
  const auto swap = hn::Gt(ay, ax);
  const auto x_signed = hn::Lt(hn::CopySign(one, x), zero);  // -0 too
  const VD b = hn::IfThenElseZero(big, one);
  VD k = hn::IfThenElse(swap, hn::Sub(hn::Set(dd, 2.0), b), b);
  k = hn::IfThenElse(x_signed, hn::Sub(hn::Set(dd, 4.0), k), k);
  const auto minus = hn::Xor(swap, x_signed);
  const VD st = hn::IfThenElse(minus, hn::Neg(t), t), slo = hn::IfThenElse(minus, hn::Neg(lo), lo);
  const VD pio4_hi = hn::Set(dd, 0.7853981633974483), pio4_lo = hn::Set(dd, 3.061616997868383e-17);
  const VD k_hi = hn::Mul(k, pio4_hi);
  const VD k_lo = math::MulAddD(dd, k, pio4_lo, math::MulSubD(dd, k, pio4_hi, k_hi));
  VD e;
  const VD sum = TwoSum(dd, k_hi, st, &e);
  return hn::CopySign(hn::Add(sum, hn::Add(hn::Add(e, k_lo), slo)), y);
}
// Lanes where a or b is nonzero with a magnitude outside [2^-500, 2^500]
// (NaN and infinities too): the domain of the float64 atan2 and hypot forms.
template <class DD, class VD>
HWY_INLINE auto OutsideTwoTo500(DD dd, VD a, VD b) {
  const VD lo = hn::Set(dd, 3.054936363499605e-151), hi = hn::Set(dd, 3.273390607896142e+150);
  auto outside = [&](VD v) {
    const VD m = hn::Abs(v);
    return hn::AndNot(hn::Eq(m, hn::Zero(dd)), hn::Not(hn::And(hn::Ge(m, lo), hn::Le(m, hi))));
  };
  return hn::Or(outside(a), outside(b));
}

template <typename T>
struct Atan2F {
  static constexpr bool kVec = kF64MathVec<T> || kF64Vec<T>;
  HWY_INLINE T operator()(T y, T x) const {
    if constexpr (std::is_same_v<T, float>) {
      if (std::isfinite(y) && std::isfinite(x)) {
        const hn::CappedTag<double, 1> d1;
        return static_cast<float>(hn::GetLane(Atan2ForFloat32(d1, hn::Set(d1, y), hn::Set(d1, x))));
      }
    }
    if constexpr (std::is_same_v<T, double>) {  // the vectors' code, one lane
      const hn::CappedTag<double, 1> d1;
      const auto vy = hn::Set(d1, y), vx = hn::Set(d1, x);
      if (hn::AllFalse(d1, OutsideTwoTo500(d1, vy, vx))) return hn::GetLane(Atan2F64(d1, vy, vx));
    }
    return std::atan2(y, x);
  }
#if HWY_TARGET != HWY_SCALAR
  template <class D, class V>
  HWY_INLINE V Vec(D d, V y, V x) const {
    if constexpr (std::is_same_v<T, double>) {
      if (!hn::AllFalse(d, OutsideTwoTo500(d, y, x))) return ByLane(d, *this, y, x);
      return Atan2F64(d, y, x);
    } else {
      const auto special = hn::Or(hn::Not(hn::IsFinite(y)), hn::Not(hn::IsFinite(x)));
      if (!hn::AllFalse(d, special)) return ByLane(d, *this, y, x);
      return InFloat64Halves(d, y, x, [](auto dd, auto u, auto v) { return Atan2ForFloat32(dd, u, v); });
    }
  }
#endif
};

// float64 pow, for a normal positive a, finite b and
// |b ln a| < 64 (a result between 1.6e-28 and 6.2e27): exp(b ln a) with
// ln a and b ln a as double-doubles. ln a = e ln 2 + 2 atanh(s),
// s = (m - 1) / (m + 1) for a = 2^e m, m in [sqrt(1/2), sqrt(2)):
// 2s (1 + w/3 + w^2 P(w)), w = s^2, with s, w/3 and the sums carried as
// double-doubles and P of degree 6 (a Chebyshev fit). exp(x) = 2^k exp(r),
// r = x - k ln 2 exact (ln 2's high part has 42 bits), exp(r) = (1 + r) as a
// double-double + r^2 Q(r), Q of degree 10, plus the low parts, rounded once. The error before
// that rounding stays below 2^-55 of the result, so the result is within
// 1 ulp of the correctly rounded one (tested against powl).
constexpr double kPowF64Limit = 64.0;
template <class DD, class VD>
HWY_INLINE VD PowF64Exponent(DD dd, VD a, VD b, VD* lo) {
  const VD one = hn::Set(dd, 1.0);
  VD e;
  const VD m = SplitExponent(dd, a, &e);
  // s = (m - 1) / (m + 1); m - 1 is exact, m + 1 a two-sum.
  const VD f = hn::Sub(m, one);
  VD den_lo;
  const VD den = TwoSum(dd, m, one, &den_lo);
  const VD inv = hn::Div(one, den);
  const VD s_hi = hn::Mul(f, inv);
  const VD s_lo = hn::Mul(hn::Sub(math::NegMulAddD(dd, s_hi, den, f), hn::Mul(s_hi, den_lo)), inv);
  // w = s^2 and v = w/3 as double-doubles; x = w^2 P(w).
  const VD w_hi = hn::Mul(s_hi, s_hi);
  const VD w_lo = math::MulAddD(dd, hn::Add(s_hi, s_hi), s_lo, math::MulSubD(dd, s_hi, s_hi, w_hi));
  const VD third = hn::Set(dd, 0.3333333333333333);
  const VD v_hi = hn::Mul(w_hi, third);
  const VD v_lo = math::MulAddD(dd, w_lo, third, math::MulAddD(dd, w_hi, hn::Set(dd, 1.850371707708594e-17),
                                                      math::MulSubD(dd, w_hi, third, v_hi)));
  const VD p = Horner(dd, w_hi, {0.06457356091967545, 0.06642934418772871, 0.07692788731654072,
                                 0.09090904105460941, 0.11111111135663404, 0.14285714285669004,
                                 0.20000000000000015});
  const VD x = hn::Mul(hn::Mul(w_hi, w_hi), p);
  // u = v + x, then 2s (1 + u) = 2s + 2s u.
  const VD u_hi = hn::Add(v_hi, x);
  const VD u_lo = hn::Add(hn::Add(hn::Sub(v_hi, u_hi), x), v_lo);
  const VD t_hi = hn::Add(s_hi, s_hi), t_lo = hn::Add(s_lo, s_lo);
  const VD q_hi = hn::Mul(t_hi, u_hi);
  const VD q_lo = math::MulAddD(dd, t_lo, u_hi, math::MulAddD(dd, t_hi, u_lo, math::MulSubD(dd, t_hi, u_hi, q_hi)));
  const VD l_hi = hn::Add(t_hi, q_hi);
  const VD l_lo = hn::Add(hn::Add(hn::Sub(t_hi, l_hi), q_hi), hn::Add(t_lo, q_lo));
  // ln a = e ln 2 + ln m (e times ln 2's high part is exact), times b.
  VD g;
  const VD ln_hi = TwoSum(dd, hn::Mul(e, hn::Set(dd, 0.6931471805598903)), l_hi, &g);
  const VD ln_lo = hn::Add(hn::Add(g, l_lo), hn::Mul(e, hn::Set(dd, 5.497923018708371e-14)));
  const VD m_hi = hn::Mul(b, ln_hi);
  *lo = math::MulAddD(dd, b, ln_lo, math::MulSubD(dd, b, ln_hi, m_hi));
  return m_hi;
}
template <class DD, class VD>
HWY_INLINE VD PowF64Exp(DD dd, VD x_hi, VD x_lo) {
  const VD one = hn::Set(dd, 1.0);
  VD scale;
  const VD k = ExpReduce(dd, x_hi, &scale);
  const VD r = math::NegMulAddD(dd, k, hn::Set(dd, 0.6931471805598903), x_hi);  // exact
  const VD r_lo = math::NegMulAddD(dd, k, hn::Set(dd, 5.497923018708371e-14), x_lo);
  const VD q = Horner(dd, r, {2.0916212837493853e-09, 2.5107353767261877e-08,
                              2.7557269903215795e-07, 2.755725016302918e-06,
                              2.4801587328555858e-05, 0.00019841269879033045,
                              0.001388888888888287, 0.008333333333324906, 0.04166666666666667,
                              0.1666666666666667, 0.5});
  VD h_lo;
  const VD h = TwoSum(dd, one, r, &h_lo);
  const VD r2q = hn::Mul(hn::Mul(r, r), q);
  // exp(r + r_lo) = exp(r) + r_lo exp(r) (r_lo is k ln 2's low part: up to 5e-12).
  const VD tail = math::MulAddD(dd, r_lo, hn::Add(h, r2q), hn::Add(r2q, h_lo));
  return hn::Mul(hn::Add(h, tail), scale);
}
// Lanes PowF64 does not take: a not normal and positive, b not finite, or
// |b ln a| (given) from the limit up.
template <class DD, class VD>
HWY_INLINE auto PowF64Outside(DD dd, VD a, VD b, VD m) {
  const auto in = hn::And(hn::And(hn::Ge(a, hn::Set(dd, 2.2250738585072014e-308)), hn::IsFinite(a)),
                          hn::And(hn::IsFinite(b), hn::Lt(hn::Abs(m), hn::Set(dd, kPowF64Limit))));
  return hn::Not(in);
}

template <typename T>
struct PowF {
  static constexpr bool kVec =
      kF64MathVec<T> || kMulWrapLanes<T> || kF64Vec<T>;
  HWY_INLINE T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, float>) {
      if (a > 0 && std::isfinite(a) && std::isfinite(b)) {
        const hn::CappedTag<double, 1> d1;
        const auto m = PowExponent(d1, hn::Set(d1, a), hn::Set(d1, b));
        if (std::fabs(hn::GetLane(m)) < kPowExponentLimit)
          return static_cast<float>(hn::GetLane(PowExp(d1, m)));
      }
    }
    if constexpr (std::is_same_v<T, double>) {  // the vectors' code, one lane
      const hn::CappedTag<double, 1> d1;
      const auto va = hn::Set(d1, a), vb = hn::Set(d1, b);
      auto lo = hn::Zero(d1);
      const auto m = PowF64Exponent(d1, va, vb, &lo);
      if (hn::AllFalse(d1, PowF64Outside(d1, va, vb, m))) return hn::GetLane(PowF64Exp(d1, m, lo));
    }
    return scalar::Pow(a, b);
  }
#if HWY_TARGET != HWY_SCALAR
  template <class D, class V>
  HWY_INLINE V Vec(D d, V a, V b) const {
    if constexpr (kIntT<T>) {
      return IntPow(d, a, b);
    } else if constexpr (std::is_same_v<T, double>) {
      auto lo = hn::Zero(d);
      const V m = PowF64Exponent(d, a, b, &lo);
      if (!hn::AllFalse(d, PowF64Outside(d, a, b, m))) return ByLane(d, *this, a, b);
      return PowF64Exp(d, m, lo);
    } else {
      return FloatVec(d, a, b);
    }
  }
  template <class D, class V>
  HWY_INLINE V FloatVec(D d, V a, V b) const {
    const auto special = hn::Or(hn::Not(hn::Gt(a, hn::Zero(d))),
                                hn::Or(hn::Not(hn::IsFinite(a)), hn::Not(hn::IsFinite(b))));
    if (!hn::AllFalse(d, special)) return ByLane(d, *this, a, b);
    const hn::Half<D> dh;
    const hn::Repartition<double, D> dd;
    const auto limit = hn::Set(dd, kPowExponentLimit);
    const auto mlo = PowExponent(dd, hn::PromoteTo(dd, hn::LowerHalf(dh, a)),
                                 hn::PromoteTo(dd, hn::LowerHalf(dh, b)));
    const auto mhi = PowExponent(dd, hn::PromoteTo(dd, hn::UpperHalf(dh, a)),
                                 hn::PromoteTo(dd, hn::UpperHalf(dh, b)));
    if (!hn::AllTrue(dd, hn::Lt(hn::Abs(mlo), limit)) ||
        !hn::AllTrue(dd, hn::Lt(hn::Abs(mhi), limit)))
      return ByLane(d, *this, a, b);
    return hn::Combine(d, hn::DemoteTo(dh, PowExp(dd, mhi)), hn::DemoteTo(dh, PowExp(dd, mlo)));
  }
#endif
};

// copysign on float16/bfloat16 storage: a's magnitude bits with b's sign
// bit, which is what widening, copysign and rounding back give (both formats
// keep the sign in bit 15; a NaN stays a NaN).
struct CopysignBits {
  static constexpr bool kVec = true;
  HWY_INLINE uint16_t operator()(uint16_t a, uint16_t b) const {
    return static_cast<uint16_t>((a & 0x7fff) | (b & 0x8000));
  }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V a, V b) const {
    return hn::Or(hn::And(a, hn::Set(d, uint16_t{0x7fff})), hn::And(b, hn::Set(d, uint16_t{0x8000})));
  }
};
template <typename T>
struct CopysignF {
  static constexpr bool kVec = kFloat<T>;
  using HalfBits = CopysignBits;  // on halves, no widening
  HWY_INLINE T operator()(T a, T b) const { return std::copysign(a, b); }
  template <class D, class V>
  HWY_INLINE V Vec(D, V a, V b) const { return hn::CopySign(a, b); }
};
// float64 hypot, for |a| and |b| in [2^-500, 2^500] (or
// a zero): the squares split exactly into high and low parts (fused
// multiply-add), the larger plus the smaller summed with their error
// (Fast2Sum), the square root of that, then one Newton step on the exact
// residual, rounded once: within 1 ulp of the correctly rounded result.
template <class DD, class VD>
HWY_INLINE VD HypotF64(DD dd, VD a, VD b) {
  const VD x = hn::Max(hn::Abs(a), hn::Abs(b)), y = hn::Min(hn::Abs(a), hn::Abs(b));
  const VD hx = hn::Mul(x, x), lx = math::MulSubD(dd, x, x, hx);
  const VD hy = hn::Mul(y, y), ly = math::MulSubD(dd, y, y, hy);
  const VD sum = hn::Add(hx, hy);
  const VD low = hn::Add(hn::Add(hn::Add(hn::Sub(hx, sum), hy), lx), ly);
  const VD r = hn::Sqrt(hn::Add(sum, low));
  const VD residual = hn::Add(math::NegMulAddD(dd, r, r, sum), low);
  const VD fixed = hn::Add(r, hn::Div(residual, hn::Add(r, r)));
  return hn::IfThenElse(hn::Eq(y, hn::Zero(dd)), x, fixed);
}

// hypot: float32 as glibc's hypotf computes it, sqrt(a*a + b*b) in float64
// rounded once (exact products, one rounding of the sum), an infinity
// winning over a NaN; float64 as HypotF64, libm outside its domain.
template <typename T>
struct HypotF {
  static constexpr bool kVec = (std::is_same_v<T, float> && HWY_TARGET != HWY_SCALAR) ||
                               kF64Vec<T>;
  HWY_INLINE T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, float>) {
      if (std::isinf(a) || std::isinf(b)) return std::numeric_limits<T>::infinity();
      const double x = a, y = b;
      return static_cast<float>(std::sqrt(x * x + y * y));
    } else {
      const hn::CappedTag<double, 1> d1;  // the same code as the vectors, on one lane
      const auto va = hn::Set(d1, a), vb = hn::Set(d1, b);
      if (hn::AllFalse(d1, OutsideTwoTo500(d1, va, vb))) return hn::GetLane(HypotF64(d1, va, vb));
      return std::hypot(a, b);
    }
  }
#if HWY_TARGET != HWY_SCALAR
  template <class D, class V>
  HWY_INLINE V Vec(D d, V a, V b) const {
    if constexpr (std::is_same_v<T, double>) {
      if (!hn::AllFalse(d, OutsideTwoTo500(d, a, b))) return ByLane(d, *this, a, b);
      return HypotF64(d, a, b);
    } else {
      const V r = InFloat64Halves(d, a, b, [](auto, auto x, auto y) {
        return hn::Sqrt(hn::Add(hn::Mul(x, x), hn::Mul(y, y)));
      });
      const auto inf = hn::Or(hn::IsInf(a), hn::IsInf(b));
      return hn::IfThenElse(inf, hn::Inf(d), r);
    }
  }
#endif
};

// Functors with kBoolAsBytes give on the bytes 0 and 1 the same result as on
// bool, 0 or 1: the table runs them on bool operands as uint8 lanes.
template <class F, class = void>
struct BoolAsBytes : std::false_type {};
template <class F>
struct BoolAsBytes<F, std::void_t<decltype(F::kBoolAsBytes)>> : std::bool_constant<F::kBoolAsBytes> {};

// Bitwise ops: Highway's And/Or/Xor on every integer lane type.
#define BCAST_BITWISE_FUNCTOR(NAME, OP, VOP)                                      \
  template <typename T>                                                           \
  struct NAME {                                                                   \
    static constexpr bool kVec = kIntT<T>;                                        \
    static constexpr bool kBoolAsBytes = true;                                    \
    HWY_INLINE T operator()(T a, T b) const { return static_cast<T>(a OP b); }    \
    template <class D, class V>                                                   \
    HWY_INLINE V Vec(D, V a, V b) const { return hn::VOP(a, b); }                 \
  }
BCAST_BITWISE_FUNCTOR(BitAndF, &, And);
BCAST_BITWISE_FUNCTOR(BitOrF, |, Or);
BCAST_BITWISE_FUNCTOR(BitXorF, ^, Xor);
#undef BCAST_BITWISE_FUNCTOR

// Comparisons give a mask per vector (the row loop stores it as 0/1 bytes),
// for every lane type of the kernel dtypes: float, double, int8..int64 and
// uint8 (also bool's bytes).
// NaN compares unequal to everything, as in C++: Ne is Not(Eq).
// (Highway 1.0.3 has Le/Ge for floats only; integers have no NaN.)
template <typename T>
constexpr bool kCompareLanes = kFloat<T> || std::is_same_v<T, int64_t> || std::is_same_v<T, int32_t> ||
                               std::is_same_v<T, int16_t> || std::is_same_v<T, int8_t> ||
                               std::is_same_v<T, uint8_t>;
template <typename T, class V>
HWY_INLINE auto LeVec(V a, V b) {
  if constexpr (kFloat<T>) return hn::Le(a, b);
  else return hn::Not(hn::Gt(a, b));
}
#define BCAST_COMPARE_FUNCTOR(NAME, EXPR, VEXPR, LANES)                           \
  template <typename T>                                                          \
  struct NAME {                                                                  \
    static constexpr bool kVec = LANES;                                          \
    static constexpr bool kPrefetch = true;                                      \
    HWY_INLINE bool operator()(T a, T b) const { return EXPR; }                  \
    template <class D, class V>                                                  \
    HWY_INLINE auto Vec(D, V a, V b) const { return VEXPR; }                     \
  }
BCAST_COMPARE_FUNCTOR(EqF, a == b, hn::Eq(a, b), kCompareLanes<T>);
BCAST_COMPARE_FUNCTOR(NeF, a != b, hn::Not(hn::Eq(a, b)), kCompareLanes<T>);
BCAST_COMPARE_FUNCTOR(LtF, a < b, hn::Lt(a, b), kCompareLanes<T>);
BCAST_COMPARE_FUNCTOR(LeF, a <= b, LeVec<T>(a, b), kCompareLanes<T>);
BCAST_COMPARE_FUNCTOR(GtF, a > b, hn::Gt(a, b), kCompareLanes<T>);
BCAST_COMPARE_FUNCTOR(GeF, a >= b, LeVec<T>(b, a), kCompareLanes<T>);
// Logical ops: nonzero is true (NaN too, as a != 0 says).
template <typename T>
constexpr bool kLogicalLanes = kCompareLanes<T>;
template <class V>
HWY_INLINE auto NonZero(V v) {
  return hn::Not(hn::Eq(v, hn::Zero(hn::DFromV<V>())));
}
// (& and |, not && and ||: no branch per element on unpredictable data.)
BCAST_COMPARE_FUNCTOR(LogicalAndF, (a != T(0)) & (b != T(0)), hn::And(NonZero(a), NonZero(b)),
                      kLogicalLanes<T>);
BCAST_COMPARE_FUNCTOR(LogicalOrF, (a != T(0)) | (b != T(0)), hn::Or(NonZero(a), NonZero(b)),
                      kLogicalLanes<T>);
BCAST_COMPARE_FUNCTOR(LogicalXorF, (a != T(0)) != (b != T(0)), hn::Xor(NonZero(a), NonZero(b)),
                      kLogicalLanes<T>);
#undef BCAST_COMPARE_FUNCTOR

// ---- a * b + c rounded once ----
// PyTorch's CPU loops fuse the multiply-add of add/sub with alpha
// (vec::fmadd(b, alpha, a)), addcmul (fmadd(value * t1, t2, self)) and lerp
// (fmadd(weight or weight - 1, end - start, start or end)); its FMA builds
// contract the scalar loops the same way (docs/numerics.md). The math's
// own correctly rounded fma (math_fma-inl.h: the instruction on FMA
// targets, an exact emulation elsewhere), so that every target gives the
// same bits. Scalar forms use std::fma (exact everywhere).
template <class D, class V>
HWY_INLINE V FusedMulAdd(D d, V a, V b, V c) {
  if constexpr (sizeof(hn::TFromD<D>) == 8) return math::MulAddD(d, a, b, c);
  else return math::MulAddF(d, a, b, c);
}

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
// a + alpha*b and a - alpha*b: floats fused (b * alpha + a, one rounding, as
// PyTorch's fmadd; sub is add with -alpha there); integers wrap.
template <typename T>
struct AddAlphaF {
  T alpha;
  explicit AddAlphaF(double s) : alpha(CastScalar<T>(s)) {}
  static constexpr bool kVec = kFloat<T> || kMulLanes<T>;
  HWY_INLINE T operator()(T a, T b) const {
    if constexpr (kFloat<T>) return std::fma(b, alpha, a);
    else return scalar::Add(a, scalar::Mul(alpha, b));
  }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V a, V b) const {
    if constexpr (kFloat<T>) return FusedMulAdd(d, b, hn::Set(d, alpha), a);
    else return hn::Add(a, hn::Mul(hn::Set(d, alpha), b));
  }
};
template <typename T>
struct SubAlphaF {
  T alpha;
  explicit SubAlphaF(double s) : alpha(CastScalar<T>(s)) {}
  static constexpr bool kVec = kFloat<T> || kMulLanes<T>;
  HWY_INLINE T operator()(T a, T b) const {
    if constexpr (kFloat<T>) return std::fma(b, -alpha, a);
    else return scalar::Sub(a, scalar::Mul(alpha, b));
  }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V a, V b) const {
    if constexpr (kFloat<T>) return FusedMulAdd(d, b, hn::Set(d, -alpha), a);
    else return hn::Sub(a, hn::Mul(hn::Set(d, alpha), b));
  }
};
template <typename T>
struct MulF {
  static constexpr bool kVec = kFloat<T> || kMulWrapLanes<T>;
  HWY_INLINE T operator()(T a, T b) const { return scalar::Mul(a, b); }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V a, V b) const {
    if constexpr (kFloat<T>) return hn::Mul(a, b);
    else return MulWrap(d, a, b);
  }
};
template <typename T>
struct DivF {
  static constexpr bool kVec = kFloat<T>;
  HWY_INLINE T operator()(T a, T b) const { return a / b; }
  template <class D, class V>
  HWY_INLINE V Vec(D, V a, V b) const { return hn::Div(a, b); }
};
// NaN-propagating max (kMax) or min; on ties the first operand wins, as
// std::max/std::min do. Integers: Highway's Max/Min are the same choice.
// Floats prefetch: with the NaN test the loop has three times add's
// instructions, and on operands in memory (1 thread, 2026-11-23) maximum
// float64 (1024,4096) op (4096,) went 2.3-2.6 -> 1.5-1.6 ms, same-shape
// 3.8 -> 1.9-2.4 ms (0.82-0.97x -> 1.06-1.30x PyTorch); fmax/fmin alike.
template <typename T, bool kMax>
struct ExtremumF {
  static constexpr bool kVec = kFloat<T> || kIntT<T>;
  static constexpr bool kBoolAsBytes = true;
  static constexpr bool kPrefetch = kFloat<T>;
  HWY_INLINE T operator()(T a, T b) const {
    return kMax ? scalar::Maximum(a, b) : scalar::Minimum(a, b);
  }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V a, V b) const {
    if constexpr (kIntT<T>) {
      (void)d;
      return kMax ? hn::Max(a, b) : hn::Min(a, b);
    } else {
      const V m = hn::IfThenElse(kMax ? hn::Lt(a, b) : hn::Lt(b, a), b, a);
      const auto nan = hn::Or(hn::IsNaN(a), hn::IsNaN(b));
      return hn::IfThenElse(nan, hn::Set(d, std::numeric_limits<T>::quiet_NaN()), m);
    }
  }
};
template <typename T>
using MaximumF = ExtremumF<T, true>;
template <typename T>
using MinimumF = ExtremumF<T, false>;
// fmax/fmin: NaN-ignoring; the first operand on ties, so fmax(0, -0) is 0
// and fmax(-0, 0) is -0, as PyTorch (bfloat16 takes the second: the driver
// swaps its operands). Integers as Max/Min.
template <typename T>
struct FmaxF {
  static constexpr bool kVec = kFloat<T> || kIntT<T>;
  static constexpr bool kBoolAsBytes = true;
  static constexpr bool kPrefetch = kFloat<T>;
  HWY_INLINE T operator()(T a, T b) const { return scalar::Fmax(a, b); }
  template <class D, class V>
  HWY_INLINE V Vec(D, V a, V b) const {
    if constexpr (kFloat<T>) return hn::IfThenElse(hn::Or(hn::Lt(a, b), hn::IsNaN(a)), b, a);
    else return hn::Max(a, b);
  }
};
template <typename T>
struct FminF {
  static constexpr bool kVec = kFloat<T> || kIntT<T>;
  static constexpr bool kBoolAsBytes = true;
  HWY_INLINE T operator()(T a, T b) const { return scalar::Fmin(a, b); }
  template <class D, class V>
  HWY_INLINE V Vec(D, V a, V b) const {
    if constexpr (kFloat<T>) return hn::IfThenElse(hn::Or(hn::Lt(b, a), hn::IsNaN(a)), b, a);
    else return hn::Min(a, b);
  }
};

// ---- ternary ops ----

// Each ternary functor gives its first input's vector from memory (First):
// where's condition becomes a mask.
struct LoadFirst {
  template <class D, typename T>
  HWY_INLINE auto First(D d, const T* p) const { return hn::LoadU(d, p); }
};

// The condition's bytes become a mask of the value lanes, of every width
// (bool values as uint8 lanes): a select, where a branch per element would
// be mispredicted half the time on a random condition.
template <typename T>
struct WhereF {
  static constexpr bool kVec = true;
  static constexpr bool kPrefetch = true;
  HWY_INLINE T operator()(bool c, T a, T b) const { return c ? a : b; }
  template <class D>
  HWY_INLINE auto First(D d, const bool* p) const {
    const hn::RebindToUnsigned<D> du;
    const hn::Rebind<uint8_t, D> d8;
    const auto bytes = hn::LoadU(d8, reinterpret_cast<const uint8_t*>(p));
    if constexpr (sizeof(T) == 1) {
      return hn::RebindMask(d, hn::Ne(bytes, hn::Zero(d8)));
    } else if constexpr (sizeof(T) == 8) {
      const hn::Rebind<uint32_t, D> d32;
      return hn::RebindMask(d, hn::Ne(hn::PromoteTo(du, hn::PromoteTo(d32, bytes)), hn::Zero(du)));
    } else {
      return hn::RebindMask(d, hn::Ne(hn::PromoteTo(du, bytes), hn::Zero(du)));
    }
  }
  template <class D, class M, class V>
  HWY_INLINE V Vec(D, M m, V a, V b) const { return hn::IfThenElse(m, a, b); }
};
// s + value * a * b: floats as PyTorch, (value * a) rounded, then * b + s
// fused; integers wrap.
template <typename T>
struct AddcmulF : LoadFirst {
  T value;
  explicit AddcmulF(double v) : value(CastScalar<T>(v)) {}
  static constexpr bool kVec = kFloat<T> || kMulLanes<T>;
  static constexpr bool kPrefetch = true;
  HWY_INLINE T operator()(T s, T a, T b) const {
    if constexpr (kFloat<T>) return std::fma(value * a, b, s);
    else return scalar::Add(s, scalar::Mul(scalar::Mul(value, a), b));
  }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V s, V a, V b) const {
    if constexpr (kFloat<T>) return FusedMulAdd(d, hn::Mul(hn::Set(d, value), a), b, s);
    else return hn::Add(s, hn::Mul(hn::Mul(hn::Set(d, value), a), b));
  }
};
// s + (value * a) / b, each step rounded (nothing to fuse: PyTorch 2.x
// computes the same).
template <typename T>
struct AddcdivF : LoadFirst {
  T value;
  explicit AddcdivF(double v) : value(CastScalar<T>(v)) {}
  static constexpr bool kVec = kFloat<T>;
  static constexpr bool kPrefetch = true;
  HWY_INLINE T operator()(T s, T a, T b) const { return s + value * a / b; }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V s, V a, V b) const {
    return hn::Add(s, hn::Div(hn::Mul(hn::Set(d, value), a), b));
  }
};
// scalar::Lerp lane by lane: the weight's size picks the factors and the
// base, then one fused multiply-add.
template <typename T>
struct LerpF : LoadFirst {
  static constexpr bool kVec = kFloat<T>;
  static constexpr bool kPrefetch = true;
  HWY_INLINE T operator()(T s, T e, T w) const { return scalar::Lerp(s, e, w); }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V s, V e, V w) const {
    const auto small = hn::Lt(hn::Abs(w), hn::Set(d, T(0.5)));
    const V diff = hn::Sub(e, s);
    const V coeff = hn::IfThenElse(small, w, hn::Sub(hn::Set(d, T(1)), w));
    return FusedMulAdd(d, coeff, hn::IfThenElse(small, diff, hn::Neg(diff)),
                       hn::IfThenElse(small, s, e));
  }
};
// scalar::Clamp lane by lane: NaN anywhere gives NaN, else min(max(x, lo), hi)
// with the same choice between equal values (and so between -0 and +0).
template <typename T>
struct ClampF : LoadFirst {
  static constexpr bool kVec = kFloat<T> || kIntT<T>;
  static constexpr bool kPrefetch = true;
  HWY_INLINE T operator()(T x, T lo, T hi) const { return scalar::Clamp(x, lo, hi); }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V x, V lo, V hi) const {
    if constexpr (kFloat<T>) {
      const V m = hn::IfThenElse(hn::Lt(x, lo), lo, x);
      const V r = hn::IfThenElse(hn::Lt(hi, m), hi, m);
      const auto nan = hn::Or(hn::IsNaN(x), hn::Or(hn::IsNaN(lo), hn::IsNaN(hi)));
      return hn::IfThenElse(nan, hn::Set(d, std::numeric_limits<T>::quiet_NaN()), r);
    } else {
      (void)d;
      return hn::Min(hn::Max(x, lo), hi);
    }
  }
};

// ---- half-precision storage ----

// float16 and bfloat16 values as uint16_t bits: exact widening to float32,
// rounding to nearest even on the way back (NaN stays a quiet NaN), bit for
// bit core/dtype.h's scalar conversions. float16's vector conversions use the
// F16C instructions, which the AVX2 and AVX-512 targets have; older targets
// convert lane by lane.
struct BF16Format {
  static constexpr bool kVec = HWY_TARGET != HWY_SCALAR;
  static HWY_INLINE float Widen(uint16_t h) { return BF16ToF32(h); }
  static HWY_INLINE uint16_t Narrow(float f) { return F32ToBF16(f); }
  // f rounded to the nearest bfloat16 (even on ties), as a float; in vectors
  // within the lanes (NaN stays NaN).
  static HWY_INLINE float Round(float f) { return Widen(Narrow(f)); }
  template <class DF>
  static HWY_INLINE hn::Vec<DF> Round(DF df, hn::Vec<DF> v) {
    const hn::RebindToUnsigned<DF> du;
    const auto u = hn::BitCast(du, v);
    const auto lsb = hn::And(hn::ShiftRight<16>(u), hn::Set(du, 1u));
    const auto r = hn::And(hn::Add(u, hn::Add(hn::Set(du, 0x7FFFu), lsb)), hn::Set(du, 0xFFFF0000u));
    return hn::IfThenElse(hn::IsNaN(v), v, hn::BitCast(df, r));
  }
  template <class DF, class VH>
  static HWY_INLINE hn::Vec<DF> Widen(DF df, VH h) { return WidenBF16(df, h); }
  template <class DF>
  static HWY_INLINE auto Narrow(DF df, hn::Vec<DF> v) { return NarrowBF16(df, v); }
};
struct F16Format {
  static constexpr bool kVec = HWY_TARGET != HWY_SCALAR && HWY_TARGET <= HWY_AVX2;
  static HWY_INLINE float Widen(uint16_t h) { return F16ToF32(h); }
  static HWY_INLINE uint16_t Narrow(float f) { return F32ToF16(f); }
  static HWY_INLINE float Round(float f) { return Widen(Narrow(f)); }
  template <class DF>
  static HWY_INLINE hn::Vec<DF> Round(DF df, hn::Vec<DF> v) { return Widen(df, Narrow(df, v)); }
  template <class DF, class VH>
  static HWY_INLINE hn::Vec<DF> Widen(DF df, VH h) {
    const hn::Rebind<hwy::float16_t, DF> d16;
    return hn::PromoteTo(df, hn::BitCast(d16, h));
  }
  template <class DF>
  static HWY_INLINE auto Narrow(DF df, hn::Vec<DF> v) {
    const hn::Rebind<hwy::float16_t, DF> d16;
    const hn::Rebind<uint16_t, DF> du16;
    (void)df;
    return hn::BitCast(du16, hn::DemoteTo(d16, v));
  }
};

// A float32 functor on half storage: operands widen exactly, the result
// rounds once, as PyTorch computes half ops. One pass, no float32 tiles.
template <class F0, class Fmt>
struct HalfOf {
  using F = typename HalfFunctor<F0, Fmt>::type;
  F f;
  explicit HalfOf(const double* s) : f(MakeFunctor<F>(s)) {}
  // Functors without a vector form still get vector conversions: their
  // float32 lanes go through the scalar form one by one.
  static constexpr bool kVec = Fmt::kVec;
  static constexpr bool kPrefetch = true;
  HWY_INLINE uint16_t operator()(uint16_t a, uint16_t b) const {
    return Fmt::Narrow(f(Fmt::Widen(a), Fmt::Widen(b)));
  }
  HWY_INLINE uint16_t operator()(uint16_t a, uint16_t b, uint16_t c) const {
    return Fmt::Narrow(f(Fmt::Widen(a), Fmt::Widen(b), Fmt::Widen(c)));
  }
  template <class D, typename T>
  HWY_INLINE auto First(D d, const T* p) const { return hn::LoadU(d, p); }
#if HWY_TARGET != HWY_SCALAR  // (one lane has no halves)
  template <class DF, class... VF>
  HWY_INLINE auto Apply(DF df, VF... v) const {
    if constexpr (F::kVec) {
      return f.Vec(df, v...);
    } else {
      constexpr size_t kN = hn::MaxLanes(df);
      alignas(64) float lanes[sizeof...(VF)][kN];
      size_t k = 0;
      ((hn::Store(v, df, lanes[k++])), ...);
      alignas(64) float r[kN];
      for (size_t i = 0; i < hn::Lanes(df); ++i) {
        if constexpr (sizeof...(VF) == 2) r[i] = f(lanes[0][i], lanes[1][i]);
        else r[i] = f(lanes[0][i], lanes[1][i], lanes[2][i]);
      }
      return hn::Load(df, r);
    }
  }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V a, V b) const {
    const hn::Half<D> dh;
    const hn::Repartition<float, D> df;
    const auto lo = Apply(df, Fmt::Widen(df, hn::LowerHalf(dh, a)),
                          Fmt::Widen(df, hn::LowerHalf(dh, b)));
    const auto hi = Apply(df, Fmt::Widen(df, hn::UpperHalf(dh, a)),
                          Fmt::Widen(df, hn::UpperHalf(dh, b)));
    return hn::Combine(d, Fmt::Narrow(df, hi), Fmt::Narrow(df, lo));
  }
  template <class D, class V>
  HWY_INLINE V Vec(D d, V a, V b, V c) const {
    const hn::Half<D> dh;
    const hn::Repartition<float, D> df;
    const auto lo = Apply(df, Fmt::Widen(df, hn::LowerHalf(dh, a)),
                          Fmt::Widen(df, hn::LowerHalf(dh, b)),
                          Fmt::Widen(df, hn::LowerHalf(dh, c)));
    const auto hi = Apply(df, Fmt::Widen(df, hn::UpperHalf(dh, a)),
                          Fmt::Widen(df, hn::UpperHalf(dh, b)),
                          Fmt::Widen(df, hn::UpperHalf(dh, c)));
    return hn::Combine(d, Fmt::Narrow(df, hi), Fmt::Narrow(df, lo));
  }
#endif
};

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace bcast
HWY_AFTER_NAMESPACE();

#endif  // BCAST_KERNELS_FUNCTORS_INL_H_
