// Independent model of bcast's dtypes and ops, written from PyTorch's
// definitions: half/bfloat16 rounding, integer wrap-around, conversions,
// torch.result_type's table and a scalar reference for every binary op. It
// uses the header only for its enums and never calls the library.
#ifndef BCAST_TESTS_REFERENCE_H_
#define BCAST_TESTS_REFERENCE_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "bcast/bcast.h"

namespace bct {

// ---------------------------------------------------------------------------
// Dtypes, modelled independently of the library

constexpr bc_dtype kAllDtypes[] = {BC_BOOL,    BC_UINT8,    BC_INT8,    BC_INT16,  BC_INT32,
                                   BC_INT64,   BC_FLOAT16,  BC_BFLOAT16, BC_FLOAT32, BC_FLOAT64};

inline bool IsFloat(bc_dtype d) {
  return d == BC_FLOAT16 || d == BC_BFLOAT16 || d == BC_FLOAT32 || d == BC_FLOAT64;
}
inline bool IsIntegral(bc_dtype d) { return !IsFloat(d) && d != BC_BOOL; }
// 0 bool, 1 integer, 2 floating: the categories of torch.result_type.
inline int Category(bc_dtype d) { return d == BC_BOOL ? 0 : IsFloat(d) ? 2 : 1; }

inline size_t ElemSize(bc_dtype d) {
  switch (d) {
    case BC_BOOL: case BC_UINT8: case BC_INT8: return 1;
    case BC_INT16: case BC_FLOAT16: case BC_BFLOAT16: return 2;
    case BC_INT32: case BC_FLOAT32: return 4;
    default: return 8;
  }
}
inline int Bits(bc_dtype d) { return static_cast<int>(ElemSize(d) * 8); }
inline bool IsSigned(bc_dtype d) { return d != BC_UINT8 && d != BC_BOOL; }
inline int64_t IntMin(bc_dtype d) {
  if (d == BC_UINT8 || d == BC_BOOL) return 0;
  return d == BC_INT64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (Bits(d) - 1));
}
inline int64_t IntMax(bc_dtype d) {
  if (d == BC_BOOL) return 1;
  if (d == BC_UINT8) return 255;
  return d == BC_INT64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (Bits(d) - 1)) - 1;
}

// PyTorch's names (torch.result_type error messages).
inline const char* TorchName(bc_dtype d) {
  switch (d) {
    case BC_BOOL: return "Bool";
    case BC_UINT8: return "Byte";
    case BC_INT8: return "Char";
    case BC_INT16: return "Short";
    case BC_INT32: return "Int";
    case BC_INT64: return "Long";
    case BC_FLOAT16: return "Half";
    case BC_BFLOAT16: return "BFloat16";
    case BC_FLOAT32: return "Float";
    case BC_FLOAT64: return "Double";
  }
  return "Unknown";
}
inline const char* ShortName(bc_dtype d) {
  switch (d) {
    case BC_BOOL: return "b1";
    case BC_UINT8: return "u8";
    case BC_INT8: return "i8";
    case BC_INT16: return "i16";
    case BC_INT32: return "i32";
    case BC_INT64: return "i64";
    case BC_FLOAT16: return "f16";
    case BC_BFLOAT16: return "bf16";
    case BC_FLOAT32: return "f32";
    case BC_FLOAT64: return "f64";
  }
  return "unknown";
}

// Wraps an integer into the range of `d` (two's complement), bool -> 0/1.
inline int64_t WrapInt(uint64_t x, bc_dtype d) {
  if (d == BC_BOOL) return x != 0;
  int bits = Bits(d);
  if (bits == 64) return static_cast<int64_t>(x);
  uint64_t mask = (uint64_t{1} << bits) - 1;
  x &= mask;
  if (IsSigned(d) && (x >> (bits - 1))) return static_cast<int64_t>(x | ~mask);
  return static_cast<int64_t>(x);
}

// IEEE binary16 with round-to-nearest-even, written from the format spec.
inline uint16_t FloatToHalfBits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);  // NaN
  if (ax >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520: inf
  if (ax < 0x38800000u) {  // below 2^-14: subnormal half (unit 2^-24)
    float a;
    std::memcpy(&a, &ax, 4);
    float scaled = a * 16777216.0f;  // exact
    uint32_t m = static_cast<uint32_t>(std::nearbyint(scaled));
    return static_cast<uint16_t>(sign | m);
  }
  uint32_t exp = (ax >> 23) - 127 + 15;
  uint32_t mant = ax & 0x7fffffu;
  uint32_t h = (exp << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
}

inline float HalfBitsToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  float r;
  if (exp == 0) {
    r = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -r : r;
  }
  uint32_t bits;
  if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  std::memcpy(&r, &bits, 4);
  return r;
}

inline uint16_t FloatToBf16Bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

inline float Bf16BitsToFloat(uint16_t b) {
  uint32_t x = static_cast<uint32_t>(b) << 16;
  float r;
  std::memcpy(&r, &x, 4);
  return r;
}

// Rounds a float to the floating dtype `d` (f16/bf16 from float, once).
inline double RoundFloatTo(bc_dtype d, float f) {
  if (d == BC_FLOAT16) return HalfBitsToFloat(FloatToHalfBits(f));
  if (d == BC_BFLOAT16) return Bf16BitsToFloat(FloatToBf16Bits(f));
  return f;
}
// Rounds a double to `d`; f16/bf16 go through float as c10::Half(double) does.
inline double RoundTo(bc_dtype d, double v) {
  if (d == BC_FLOAT64) return v;
  return RoundFloatTo(d, static_cast<float>(v));
}

// ---------------------------------------------------------------------------
// Values: floats hold their exact value in `f`; bool and integers in `i`.

struct Val {
  int64_t i = 0;
  double f = 0;
};
inline Val IVal(int64_t i) { Val v; v.i = i; return v; }
inline Val FVal(double f) { Val v; v.f = f; return v; }

inline Val ConvertVal(Val v, bc_dtype from, bc_dtype to) {
  if (IsFloat(from)) {
    if (to == BC_BOOL) return IVal(v.f != 0 || std::isnan(v.f));
    if (!IsFloat(to)) return IVal(WrapInt(static_cast<uint64_t>(static_cast<int64_t>(v.f)), to));
    return FVal(RoundTo(to, v.f));
  }
  if (IsFloat(to)) {
    if (to == BC_FLOAT64) return FVal(static_cast<double>(v.i));
    // Integers reach f16/bf16 through float, as c10::Half(int) does.
    return FVal(RoundFloatTo(to, static_cast<float>(v.i)));
  }
  return IVal(WrapInt(static_cast<uint64_t>(v.i), to));
}

inline void StoreVal(bc_dtype d, Val v, void* p) {
  switch (d) {
    case BC_BOOL: { uint8_t x = v.i != 0; std::memcpy(p, &x, 1); break; }
    case BC_UINT8: { uint8_t x = static_cast<uint8_t>(v.i); std::memcpy(p, &x, 1); break; }
    case BC_INT8: { int8_t x = static_cast<int8_t>(v.i); std::memcpy(p, &x, 1); break; }
    case BC_INT16: { int16_t x = static_cast<int16_t>(v.i); std::memcpy(p, &x, 2); break; }
    case BC_INT32: { int32_t x = static_cast<int32_t>(v.i); std::memcpy(p, &x, 4); break; }
    case BC_INT64: std::memcpy(p, &v.i, 8); break;
    case BC_FLOAT16: { uint16_t x = FloatToHalfBits(static_cast<float>(v.f)); std::memcpy(p, &x, 2); break; }
    case BC_BFLOAT16: { uint16_t x = FloatToBf16Bits(static_cast<float>(v.f)); std::memcpy(p, &x, 2); break; }
    case BC_FLOAT32: { float x = static_cast<float>(v.f); std::memcpy(p, &x, 4); break; }
    case BC_FLOAT64: std::memcpy(p, &v.f, 8); break;
  }
}

inline Val LoadVal(bc_dtype d, const void* p) {
  switch (d) {
    case BC_BOOL: { uint8_t x; std::memcpy(&x, p, 1); return IVal(x); }
    case BC_UINT8: { uint8_t x; std::memcpy(&x, p, 1); return IVal(x); }
    case BC_INT8: { int8_t x; std::memcpy(&x, p, 1); return IVal(x); }
    case BC_INT16: { int16_t x; std::memcpy(&x, p, 2); return IVal(x); }
    case BC_INT32: { int32_t x; std::memcpy(&x, p, 4); return IVal(x); }
    case BC_INT64: { int64_t x; std::memcpy(&x, p, 8); return IVal(x); }
    case BC_FLOAT16: { uint16_t x; std::memcpy(&x, p, 2); return FVal(HalfBitsToFloat(x)); }
    case BC_BFLOAT16: { uint16_t x; std::memcpy(&x, p, 2); return FVal(Bf16BitsToFloat(x)); }
    case BC_FLOAT32: { float x; std::memcpy(&x, p, 4); return FVal(x); }
    case BC_FLOAT64: { double x; std::memcpy(&x, p, 8); return FVal(x); }
  }
  return Val();
}

// ---------------------------------------------------------------------------
// Type promotion (torch.result_type), written out by hand.

// torch.promote_types for two dtypes, from c10/core/ScalarType.cpp's table.
inline bc_dtype PromoteTypes(bc_dtype a, bc_dtype b) {
  static const bc_dtype b1 = BC_BOOL, u1 = BC_UINT8, i1 = BC_INT8, i2 = BC_INT16, i4 = BC_INT32,
                        i8 = BC_INT64, f2 = BC_FLOAT16, bf = BC_BFLOAT16, f4 = BC_FLOAT32,
                        f8 = BC_FLOAT64;
  static const bc_dtype table[10][10] = {
      /*         b1  u1  i1  i2  i4  i8  f2  bf  f4  f8 */
      /* b1 */ {b1, u1, i1, i2, i4, i8, f2, bf, f4, f8},
      /* u1 */ {u1, u1, i2, i2, i4, i8, f2, bf, f4, f8},
      /* i1 */ {i1, i2, i1, i2, i4, i8, f2, bf, f4, f8},
      /* i2 */ {i2, i2, i2, i2, i4, i8, f2, bf, f4, f8},
      /* i4 */ {i4, i4, i4, i4, i4, i8, f2, bf, f4, f8},
      /* i8 */ {i8, i8, i8, i8, i8, i8, f2, bf, f4, f8},
      /* f2 */ {f2, f2, f2, f2, f2, f2, f2, f4, f4, f8},
      /* bf */ {bf, bf, bf, bf, bf, bf, f4, bf, f4, f8},
      /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f4, f4, f8},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8},
  };
  return table[a][b];
}

// torch.result_type over operands given as (dtype, is 0-dim).
struct Operand {
  bc_dtype dtype;
  bool zero_dim;
};
inline bc_dtype ResultType(const std::vector<Operand>& ops) {
  bool has_dim = false, has_zero = false;
  bc_dtype dim = BC_BOOL, zero = BC_BOOL;
  for (const Operand& o : ops) {
    if (o.zero_dim) {
      zero = has_zero ? PromoteTypes(zero, o.dtype) : o.dtype;
      has_zero = true;
    } else {
      dim = has_dim ? PromoteTypes(dim, o.dtype) : o.dtype;
      has_dim = true;
    }
  }
  if (!has_dim) return zero;
  if (!has_zero) return dim;
  return Category(zero) > Category(dim) ? PromoteTypes(dim, zero) : dim;
}

// ---------------------------------------------------------------------------
// Ops: which dtypes each accepts and what it returns.

inline bool IsComparison(bc_op op) { return op >= BC_EQ && op <= BC_GE; }
inline bool IsLogical(bc_op op) { return op >= BC_LOGICAL_AND && op <= BC_LOGICAL_XOR; }
inline bool IsBitwise(bc_op op) { return op >= BC_BITWISE_AND && op <= BC_SHIFT_RIGHT; }
inline bool IsShift(bc_op op) { return op == BC_SHIFT_LEFT || op == BC_SHIFT_RIGHT; }
inline bool IsIntDivision(bc_op op) {
  return op == BC_DIV_TRUNC || op == BC_DIV_FLOOR || op == BC_REMAINDER || op == BC_FMOD;
}
// Ops that turn integer (and bool) inputs into float32 before computing.
inline bool PromotesIntToFloat(bc_op op) {
  return op == BC_DIV || op == BC_ATAN2 || op == BC_COPYSIGN;
}
// The dtype the op computes in, given the promoted dtype of its inputs.
inline bc_dtype ComputeDtype(bc_op op, bc_dtype common) {
  if (PromotesIntToFloat(op) && !IsFloat(common)) return BC_FLOAT32;
  return common;
}
inline bc_dtype ResultDtype(bc_op op, bc_dtype common) {
  if (IsComparison(op) || IsLogical(op)) return BC_BOOL;
  return ComputeDtype(op, common);
}
// Whether PyTorch's CPU kernel for op accepts the (promoted) dtype; the
// others fail with BC_ERR_DTYPE. Bitwise ops take bool, shifts do not
// (AT_DISPATCH_INTEGRAL_TYPES); bool has no division, remainder or pow.
enum class Support { kYes, kDtypeError };
inline Support OpSupport(bc_op op, bc_dtype common) {
  if (IsBitwise(op)) {
    if (IsFloat(common)) return Support::kDtypeError;
    if (IsShift(op) && common == BC_BOOL) return Support::kDtypeError;
    return Support::kYes;
  }
  if (op == BC_HYPOT && !IsFloat(common)) return Support::kDtypeError;
  if (common == BC_BOOL && (op == BC_SUB || IsIntDivision(op) || op == BC_POW)) return Support::kDtypeError;
  return Support::kYes;
}

// PyTorch's "not implemented" text for the ops whose kernel name is stable
// across versions, or "" when only the status is checked.
inline std::string NotImplementedText(bc_op op, bc_dtype common) {
  const char* kernel = nullptr;
  switch (op) {
    case BC_HYPOT: kernel = "hypot_cpu"; break;
    case BC_BITWISE_AND: kernel = "bitwise_and_cpu"; break;
    case BC_BITWISE_OR: kernel = "bitwise_or_cpu"; break;
    case BC_BITWISE_XOR: kernel = "bitwise_xor_cpu"; break;
    case BC_SHIFT_LEFT: kernel = "lshift_cpu"; break;
    case BC_SHIFT_RIGHT: kernel = "rshift_cpu"; break;
    default: return "";
  }
  return std::string("\"") + kernel + "\" not implemented for '" + TorchName(common) + "'";
}

// Like OpSupport, given the input dtypes too: PyTorch refuses sub with any
// bool operand, whatever the promoted dtype.
inline Support OpSupportFor(bc_op op, bc_dtype a, bc_dtype b, bc_dtype common) {
  if (op == BC_SUB && (a == BC_BOOL || b == BC_BOOL)) return Support::kDtypeError;
  return OpSupport(op, common);
}

// ---------------------------------------------------------------------------
// Scalar reference of each op in compute dtype `ct` (inputs already in ct).

template <typename C>
C FloorDivide(C a, C b) {  // c10::div_floor_floating (NumPy's npy_divmod)
  if (b == 0) return a / b;
  C mod = std::fmod(a, b);
  C div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0)) div -= C(1);
  C floordiv;
  if (div != 0) {
    floordiv = std::floor(div);
    if (div - floordiv > C(0.5)) floordiv += C(1.0);
  } else {
    floordiv = std::copysign(C(0), a / b);
  }
  return floordiv;
}

template <typename C>
C Remainder(C a, C b) {
  C mod = std::fmod(a, b);
  if (mod != 0 && (b < 0) != (mod < 0)) mod += b;
  return mod;
}

// PyTorch's float16/bfloat16 floor division: every step rounded to the half
// type `ct` (c10::Half arithmetic), written out from its div_floor_floating.
inline float HalfFloorDivide(bc_dtype ct, float a, float b) {
  auto h = [ct](float x) { return static_cast<float>(RoundFloatTo(ct, x)); };
  if (b == 0) return a / b;
  float mod = h(std::fmod(a, b));
  float div = h(h(a - mod) / b);
  if (mod != 0 && (b < 0) != (mod < 0)) div = h(div - 1.0f);
  if (div == 0) return std::copysign(0.0f, h(a / b));
  float floordiv = h(std::floor(div));
  if (h(div - floordiv) > 0.5f) floordiv = h(floordiv + 1.0f);
  return floordiv;
}

// NaN-ignoring fmax/fmin; on ties (+0, -0) PyTorch returns the first operand,
// for bfloat16 the second.
template <typename C>
C FmaxRef(bc_dtype ct, C a, C b, bool max) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == b) return ct == BC_BFLOAT16 ? b : a;
  return (max ? a > b : a < b) ? a : b;
}

// `half_steps`: a half ct's trunc/floor division rounds each step (false for
// a one-element second operand, computed in float32: RefBinaryAs).
template <typename C>
Val FloatOp(bc_op op, bc_dtype ct, C a, C b, double alpha, bool half_steps = true) {
  auto F = [&](C r) { return FVal(ct == BC_FLOAT64 ? static_cast<double>(r) : RoundFloatTo(ct, static_cast<float>(r))); };
  auto B = [](bool x) { return IVal(x); };
  bool na = std::isnan(a), nb = std::isnan(b);
  const bool half = ct == BC_FLOAT16 || ct == BC_BFLOAT16;
  // PyTorch: sub is add with -alpha; an alpha of 0 is the integer 0 (+0 when
  // negated); half alpha is rounded to the half type; the multiply-add is fused.
  const double signed_alpha = alpha == 0 ? 0.0 : op == BC_SUB ? -alpha : alpha;
  const C al = static_cast<C>(half ? RoundTo(ct, signed_alpha) : signed_alpha);
  switch (op) {
    case BC_ADD: return F(std::fma(b, al, a));
    case BC_SUB: return F(std::fma(b, al, a));
    case BC_MUL: return F(a * b);
    case BC_DIV: return F(a / b);
    case BC_DIV_TRUNC:
      if (half && half_steps) return F(std::trunc(static_cast<C>(RoundFloatTo(ct, static_cast<float>(a / b)))));
      return F(std::trunc(a / b));
    case BC_DIV_FLOOR:
      if (half && half_steps) return F(HalfFloorDivide(ct, static_cast<float>(a), static_cast<float>(b)));
      return F(FloorDivide(a, b));
    case BC_REMAINDER: return F(Remainder(a, b));
    case BC_FMOD: return F(std::fmod(a, b));
    case BC_POW: return F(std::pow(a, b));
    case BC_MAXIMUM: return F(na || nb ? std::numeric_limits<C>::quiet_NaN() : std::max(a, b));
    case BC_MINIMUM: return F(na || nb ? std::numeric_limits<C>::quiet_NaN() : std::min(a, b));
    case BC_FMAX: return F(FmaxRef(ct, a, b, true));
    case BC_FMIN: return F(FmaxRef(ct, a, b, false));
    case BC_ATAN2: return F(std::atan2(a, b));
    case BC_HYPOT: return F(std::hypot(a, b));
    case BC_COPYSIGN: return F(std::copysign(a, b));
    case BC_EQ: return B(a == b);
    case BC_NE: return B(a != b);
    case BC_LT: return B(a < b);
    case BC_LE: return B(a <= b);
    case BC_GT: return B(a > b);
    case BC_GE: return B(a >= b);
    case BC_LOGICAL_AND: return B(a != 0 && b != 0);
    case BC_LOGICAL_OR: return B(a != 0 || b != 0);
    case BC_LOGICAL_XOR: return B((a != 0) != (b != 0));
    default: break;
  }
  ADD_FAILURE() << "no float reference for op " << op;
  return Val();
}

// PyTorch's powi: wrapping multiplication, negative exponents as documented.
inline int64_t IntPow(int64_t a, int64_t b, bc_dtype ct) {
  if (b < 0) {
    if (a == 1) return 1;
    if (a == -1) return (b % 2) ? -1 : 1;
    return 0;
  }
  uint64_t result = 1, base = static_cast<uint64_t>(a);
  uint64_t e = static_cast<uint64_t>(b);
  while (e) {
    if (e & 1) result *= base;
    e >>= 1;
    base *= base;
  }
  return WrapInt(result, ct);
}

inline Val IntOp(bc_op op, bc_dtype ct, int64_t a, int64_t b, double alpha, bool* zero_div) {
  auto W = [&](uint64_t x) { return IVal(WrapInt(x, ct)); };
  auto B = [](bool x) { return IVal(x); };
  uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  uint64_t ualpha = static_cast<uint64_t>(WrapInt(static_cast<uint64_t>(static_cast<int64_t>(alpha)), ct));
  if (ct == BC_BOOL) {
    switch (op) {
      case BC_ADD: return B(a || (ualpha && b));
      case BC_MUL: return B(a && b);
      case BC_MAXIMUM: case BC_FMAX: return B(a || b);
      case BC_MINIMUM: case BC_FMIN: return B(a && b);
      default: break;
    }
  }
  if (IsIntDivision(op) && b == 0) {
    *zero_div = true;
    return IVal(0);
  }
  switch (op) {
    case BC_ADD: return W(ua + ualpha * ub);
    case BC_SUB: return W(ua - ualpha * ub);
    case BC_MUL: return W(ua * ub);
    case BC_DIV_TRUNC: return b == -1 ? W(0 - ua) : W(static_cast<uint64_t>(a / b));
    case BC_DIV_FLOOR: {
      if (b == -1) return W(0 - ua);
      int64_t q = a / b, r = a % b;
      if (r != 0 && ((r < 0) != (b < 0))) --q;
      return W(static_cast<uint64_t>(q));
    }
    case BC_REMAINDER: {
      if (b == -1) return IVal(0);
      int64_t r = a % b;
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      return IVal(r);
    }
    case BC_FMOD: return IVal(b == -1 ? 0 : a % b);
    case BC_POW: return IVal(IntPow(a, b, ct));
    case BC_MAXIMUM: case BC_FMAX: return IVal(std::max(a, b));
    case BC_MINIMUM: case BC_FMIN: return IVal(std::min(a, b));
    case BC_EQ: return B(a == b);
    case BC_NE: return B(a != b);
    case BC_LT: return B(a < b);
    case BC_LE: return B(a <= b);
    case BC_GT: return B(a > b);
    case BC_GE: return B(a >= b);
    case BC_LOGICAL_AND: return B(a != 0 && b != 0);
    case BC_LOGICAL_OR: return B(a != 0 || b != 0);
    case BC_LOGICAL_XOR: return B((a != 0) != (b != 0));
    case BC_BITWISE_AND: return W(ua & ub);
    case BC_BITWISE_OR: return W(ua | ub);
    case BC_BITWISE_XOR: return W(ua ^ ub);
    case BC_SHIFT_LEFT:
      if (b < 0 || b >= Bits(ct)) return IVal(0);
      return W(ua << b);
    case BC_SHIFT_RIGHT: {
      int max_shift = Bits(ct) - (IsSigned(ct) ? 1 : 0);
      if (b < 0 || b >= max_shift) return IVal(a >> (max_shift == 64 ? 63 : max_shift));
      return IVal(a >> b);
    }
    default: break;
  }
  ADD_FAILURE() << "no integer reference for op " << op;
  return Val();
}

inline Val ScalarOp(bc_op op, bc_dtype ct, Val a, Val b, double alpha, bool* zero_div,
                    bool half_steps = true) {
  if (ct == BC_FLOAT64) return FloatOp<double>(op, ct, a.f, b.f, alpha);
  if (IsFloat(ct))
    return FloatOp<float>(op, ct, static_cast<float>(a.f), static_cast<float>(b.f), alpha, half_steps);
  return IntOp(op, ct, a.i, b.i, alpha, zero_div);
}

}  // namespace bct

#endif  // BCAST_TESTS_REFERENCE_H_
