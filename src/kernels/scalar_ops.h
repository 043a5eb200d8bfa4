// Element semantics of every op, one scalar function each: the single source
// of truth the SIMD kernels must reproduce exactly. PyTorch's CPU kernels
// define the behaviour (integer wrap-around, NaN handling, rounding rules).
#ifndef BCAST_KERNELS_SCALAR_OPS_H_
#define BCAST_KERNELS_SCALAR_OPS_H_

#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace bcast {
namespace scalar {

template <typename T>
constexpr bool kInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;
template <typename T>
using Unsigned = std::make_unsigned_t<T>;

// Integer arithmetic wraps (two's complement) instead of overflowing.
template <typename T>
inline T Add(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) return a || b;
  else if constexpr (kInt<T>) return static_cast<T>(static_cast<Unsigned<T>>(a) + static_cast<Unsigned<T>>(b));
  else return a + b;
}
template <typename T>
inline T Sub(T a, T b) {
  if constexpr (kInt<T>) return static_cast<T>(static_cast<Unsigned<T>>(a) - static_cast<Unsigned<T>>(b));
  else return a - b;
}
template <typename T>
inline T Mul(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) return a && b;
  // Promote to unsigned int at least, so uint16*uint16 cannot overflow int.
  else if constexpr (kInt<T>) {
    using W = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, Unsigned<T>>;
    return static_cast<T>(static_cast<W>(static_cast<Unsigned<T>>(a)) * static_cast<W>(static_cast<Unsigned<T>>(b)));
  } else return a * b;
}
template <typename T>
inline T Neg(T a) { return Sub<T>(T(0), a); }
// b == -1 for a signed type: INT_MIN / -1 and INT_MIN % -1 would trap.
template <typename T>
inline bool IsMinusOne(T b) {
  if constexpr (std::is_signed_v<T>) return b == T(-1);
  else return false;
}

template <typename T>
inline T DivTrunc(T a, T b) {
  if constexpr (kInt<T>) {
    if (b == 0) return 0;            // refused before any kernel runs
    if (IsMinusOne(b)) return Neg(a);
    return static_cast<T>(a / b);
  } else {
    return std::trunc(a / b);
  }
}

template <typename T>
inline T DivFloor(T a, T b) {
  if constexpr (kInt<T>) {
    if (b == 0) return 0;
    if (IsMinusOne(b)) return Neg(a);
    T q = static_cast<T>(a / b);
    T r = static_cast<T>(a % b);
    if (r != 0 && ((r < 0) != (b < 0))) --q;
    return q;
  } else {
    if (b == 0) return a / b;
    T mod = std::fmod(a, b);
    T div = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= T(1);
    T floordiv;
    if (div != 0) {
      floordiv = std::floor(div);
      if (div - floordiv > T(0.5)) floordiv += T(1);
    } else {
      floordiv = std::copysign(T(0), a / b);
    }
    return floordiv;
  }
}

template <typename T>
inline T Remainder(T a, T b) {
  if constexpr (kInt<T>) {
    if (b == 0 || IsMinusOne(b)) return 0;
    T r = static_cast<T>(a % b);
    if (r != 0 && ((r < 0) != (b < 0))) r = Add<T>(r, b);
    return r;
  } else {
    T mod = std::fmod(a, b);
    if (mod != 0 && ((b < 0) != (mod < 0))) mod += b;
    return mod;
  }
}

template <typename T>
inline T Fmod(T a, T b) {
  if constexpr (kInt<T>) {
    if (b == 0 || IsMinusOne(b)) return 0;
    return static_cast<T>(a % b);
  } else {
    return std::fmod(a, b);
  }
}

template <typename T>
inline T Pow(T a, T b) {
  if constexpr (kInt<T>) {
    if constexpr (std::is_signed_v<T>) {
      if (b < 0) {
        if (a == 1) return 1;
        if (a == -1) return (b % 2) ? T(-1) : T(1);
        return 0;
      }
    }
    T result = 1;
    while (b) {
      if (b & 1) result = Mul(result, a);
      b = static_cast<T>(b / 2);
      a = Mul(a, a);
    }
    return result;
  } else {
    return std::pow(a, b);
  }
}

template <typename T>
inline T Maximum(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  }
  return a < b ? b : a;
}
template <typename T>
inline T Minimum(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  }
  return b < a ? b : a;
}
// NaN-ignoring; on ties (+0 and -0) the first operand, as PyTorch's float,
// double and half kernels (not libm's fmax, which may pick either).
template <typename T>
inline T Fmax(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return (a < b || std::isnan(a)) ? b : a;
  else return a < b ? b : a;
}
template <typename T>
inline T Fmin(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return (b < a || std::isnan(a)) ? b : a;
  else return b < a ? b : a;
}

template <typename T>
inline T ShiftLeft(T a, T b) {
  constexpr int kBits = sizeof(T) * CHAR_BIT;
  using S = std::make_signed_t<T>;
  if (static_cast<S>(b) < 0 || static_cast<int64_t>(b) >= kBits) return 0;
  return static_cast<T>(static_cast<Unsigned<T>>(a) << b);
}
template <typename T>
inline T ShiftRight(T a, T b) {
  constexpr int kBits = sizeof(T) * CHAR_BIT;
  using S = std::make_signed_t<T>;
  if (static_cast<S>(b) < 0 || static_cast<int64_t>(b) >= kBits) {
    if constexpr (std::is_signed_v<T>) return a < 0 ? T(-1) : T(0);
    else return 0;
  }
  return static_cast<T>(a >> b);
}

template <typename T>
inline T Clamp(T x, T lo, T hi) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(x) || std::isnan(lo) || std::isnan(hi)) return std::numeric_limits<T>::quiet_NaN();
  }
  T m = x < lo ? lo : x;
  return hi < m ? hi : m;
}

// PyTorch's lerp: two-sided so that lerp(a, b, 1) == b exactly, each side
// one fused multiply-add, as its (FMA-contracted) scalar loop: end - diff *
// (1 - weight). (Its vector loop computes end + (weight - 1) * diff: the same
// value, but at weight 1 a zero result can take the other sign.)
template <typename T>
inline T Lerp(T start, T end, T weight) {
  const T diff = end - start;
  return std::abs(weight) < T(0.5) ? std::fma(weight, diff, start)
                                   : std::fma(-diff, T(1) - weight, end);
}

}  // namespace scalar
}  // namespace bcast

#endif  // BCAST_KERNELS_SCALAR_OPS_H_
