// Unary ops (bc_unary and its forms) against references written here from
// PyTorch's definitions, never from the library: the exact ops bit for bit
// against a scalar loop in the compute type (float32 for float16/bfloat16,
// rounded once), the transcendentals within 1 ulp of a __float128 reference
// rounded to the dtype (halves: of the correctly rounded float32 value
// rounded once to the half type). Then layouts, forms, parameters, bc_to and
// every error with PyTorch's text, each leaving every tensor as it was.
#include <gtest/gtest.h>
#include <quadmath.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <map>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "bcast/dlpack.h"
#include "test_util.h"

namespace bct {
namespace {

using Q = __float128;

// ---------------------------------------------------------------------------
// The ops, as PyTorch defines them (independent of src/op_table.def).

enum class Family { kExact, kMath };
enum class Takes { kAll, kNoBool, kFloating, kIntOrBool };
enum class Gives { kSame, kFloat, kBool, kSquare };

struct UnaryInfo {
  bc_unary_op op;
  const char* name;
  Family family;
  Takes takes;
  Gives gives;
  const char* kernel;  // PyTorch's kernel name in "not implemented for" texts
  int nparams;
};

const UnaryInfo kUnary[] = {
    {BC_NEG, "neg", Family::kExact, Takes::kNoBool, Gives::kSame, "neg", 0},
    {BC_ABS, "abs", Family::kExact, Takes::kNoBool, Gives::kSame, "abs_cpu", 0},
    {BC_SIGN, "sign", Family::kExact, Takes::kAll, Gives::kSame, "sign", 0},
    {BC_SQUARE, "square", Family::kExact, Takes::kAll, Gives::kSquare, "square", 0},
    {BC_RELU, "relu", Family::kExact, Takes::kNoBool, Gives::kSame, "relu", 0},
    {BC_HARDTANH, "hardtanh", Family::kExact, Takes::kNoBool, Gives::kSame, "hardtanh", 2},
    {BC_FLOOR, "floor", Family::kExact, Takes::kNoBool, Gives::kSame, "floor_vml_cpu", 0},
    {BC_CEIL, "ceil", Family::kExact, Takes::kNoBool, Gives::kSame, "ceil_vml_cpu", 0},
    {BC_ROUND, "round", Family::kExact, Takes::kNoBool, Gives::kSame, "round_vml_cpu", 0},
    {BC_TRUNC, "trunc", Family::kExact, Takes::kNoBool, Gives::kSame, "trunc_vml_cpu", 0},
    {BC_FRAC, "frac", Family::kExact, Takes::kFloating, Gives::kSame, "frac_cpu", 0},
    {BC_NAN_TO_NUM, "nan_to_num", Family::kExact, Takes::kAll, Gives::kSame, "nan_to_num", 3},
    {BC_BITWISE_NOT, "bitwise_not", Family::kExact, Takes::kIntOrBool, Gives::kSame, "bitwise_not_cpu", 0},
    {BC_SQRT, "sqrt", Family::kExact, Takes::kAll, Gives::kFloat, "sqrt", 0},
    {BC_RSQRT, "rsqrt", Family::kExact, Takes::kAll, Gives::kFloat, "rsqrt", 0},
    {BC_RECIPROCAL, "reciprocal", Family::kExact, Takes::kAll, Gives::kFloat, "reciprocal", 0},
    {BC_EXP, "exp", Family::kMath, Takes::kAll, Gives::kFloat, "exp", 0},
    {BC_EXP2, "exp2", Family::kMath, Takes::kAll, Gives::kFloat, "exp2", 0},
    {BC_EXPM1, "expm1", Family::kMath, Takes::kAll, Gives::kFloat, "expm1", 0},
    {BC_LOG, "log", Family::kMath, Takes::kAll, Gives::kFloat, "log", 0},
    {BC_LOG2, "log2", Family::kMath, Takes::kAll, Gives::kFloat, "log2", 0},
    {BC_LOG10, "log10", Family::kMath, Takes::kAll, Gives::kFloat, "log10", 0},
    {BC_LOG1P, "log1p", Family::kMath, Takes::kAll, Gives::kFloat, "log1p", 0},
    {BC_SIN, "sin", Family::kMath, Takes::kAll, Gives::kFloat, "sin", 0},
    {BC_COS, "cos", Family::kMath, Takes::kAll, Gives::kFloat, "cos", 0},
    {BC_TAN, "tan", Family::kMath, Takes::kAll, Gives::kFloat, "tan", 0},
    {BC_ASIN, "asin", Family::kMath, Takes::kAll, Gives::kFloat, "asin", 0},
    {BC_ACOS, "acos", Family::kMath, Takes::kAll, Gives::kFloat, "acos", 0},
    {BC_ATAN, "atan", Family::kMath, Takes::kAll, Gives::kFloat, "atan", 0},
    {BC_SINH, "sinh", Family::kMath, Takes::kAll, Gives::kFloat, "sinh", 0},
    {BC_COSH, "cosh", Family::kMath, Takes::kAll, Gives::kFloat, "cosh", 0},
    {BC_TANH, "tanh", Family::kMath, Takes::kAll, Gives::kFloat, "tanh", 0},
    {BC_ASINH, "asinh", Family::kMath, Takes::kAll, Gives::kFloat, "asinh", 0},
    {BC_ACOSH, "acosh", Family::kMath, Takes::kAll, Gives::kFloat, "acosh", 0},
    {BC_ATANH, "atanh", Family::kMath, Takes::kAll, Gives::kFloat, "atanh", 0},
    {BC_ERF, "erf", Family::kMath, Takes::kAll, Gives::kFloat, "erf", 0},
    {BC_ERFC, "erfc", Family::kMath, Takes::kAll, Gives::kFloat, "erfc", 0},
    {BC_ERFINV, "erfinv", Family::kMath, Takes::kAll, Gives::kFloat, "erfinv", 0},
    {BC_SIGMOID, "sigmoid", Family::kMath, Takes::kAll, Gives::kFloat, "sigmoid", 0},
    {BC_LOGIT, "logit", Family::kMath, Takes::kAll, Gives::kFloat, "logit", 1},
    {BC_GELU, "gelu", Family::kMath, Takes::kFloating, Gives::kSame, "GeluKernelImpl", 1},
    {BC_SILU, "silu", Family::kMath, Takes::kFloating, Gives::kSame, "silu_cpu", 0},
    {BC_MISH, "mish", Family::kMath, Takes::kFloating, Gives::kSame, "mish_cpu", 0},
    {BC_SOFTPLUS, "softplus", Family::kMath, Takes::kFloating, Gives::kSame, "softplus_cpu", 2},
    {BC_HARDSIGMOID, "hardsigmoid", Family::kExact, Takes::kFloating, Gives::kSame, "hardsigmoid_cpu", 0},
    {BC_HARDSWISH, "hardswish", Family::kExact, Takes::kFloating, Gives::kSame, "hardswish_cpu", 0},
    {BC_ELU, "elu", Family::kMath, Takes::kFloating, Gives::kSame, "elu_cpu", 1},
    {BC_LEAKY_RELU, "leaky_relu", Family::kExact, Takes::kFloating, Gives::kSame, "leaky_relu_cpu", 1},
    {BC_ISNAN, "isnan", Family::kExact, Takes::kAll, Gives::kBool, "isnan", 0},
    {BC_ISINF, "isinf", Family::kExact, Takes::kAll, Gives::kBool, "isinf", 0},
    {BC_ISPOSINF, "isposinf", Family::kExact, Takes::kAll, Gives::kBool, "isposinf", 0},
    {BC_ISNEGINF, "isneginf", Family::kExact, Takes::kAll, Gives::kBool, "isneginf", 0},
    {BC_ISFINITE, "isfinite", Family::kExact, Takes::kAll, Gives::kBool, "isfinite", 0},
    {BC_SIGNBIT, "signbit", Family::kExact, Takes::kAll, Gives::kBool, "signbit", 0},
    {BC_LOGICAL_NOT, "logical_not", Family::kExact, Takes::kAll, Gives::kBool, "logical_not", 0},
};

const UnaryInfo& Info(bc_unary_op op) {
  for (const UnaryInfo& u : kUnary)
    if (u.op == op) return u;
  ADD_FAILURE() << "op " << op << " missing from the test's table";
  return kUnary[0];
}

bool Accepts(bc_unary_op op, bc_dtype d) {
  switch (Info(op).takes) {
    case Takes::kAll: return true;
    case Takes::kNoBool: return d != BC_BOOL;
    case Takes::kFloating: return IsFloat(d);
    case Takes::kIntOrBool: return !IsFloat(d);
  }
  return false;
}

bc_dtype ResultOf(bc_unary_op op, bc_dtype d) {
  switch (Info(op).gives) {
    case Gives::kSame: return d;
    case Gives::kFloat: return IsFloat(d) ? d : BC_FLOAT32;
    case Gives::kBool: return BC_BOOL;
    case Gives::kSquare: return d == BC_BOOL ? BC_INT64 : d;
  }
  return d;
}

bool IsHalf(bc_dtype d) { return d == BC_FLOAT16 || d == BC_BFLOAT16; }

double Param(const bc_unary_params* p, int k, double fallback) {
  return p != nullptr && ((p->given >> k) & 1u) ? p->value[k] : fallback;
}
bool Given(const bc_unary_params* p, int k) { return p != nullptr && ((p->given >> k) & 1u); }

double LargestOf(bc_dtype d) {
  switch (d) {
    case BC_FLOAT16: return 65504.0;
    case BC_BFLOAT16: return 3.3895313892515355e38;  // 0x1.FEp127
    case BC_FLOAT32: return FLT_MAX;
    default: return DBL_MAX;
  }
}

// ---------------------------------------------------------------------------
// Exact ops: the scalar formula in the compute type C (double for float64,
// float for float32 and the halves). Returns the value before rounding to
// a half dtype; predicates return 0 or 1.

template <typename C>
C RoundHalfEven(C x) {
  if (!std::isfinite(x)) return x;
  const C fl = std::floor(x);
  const C diff = x - fl;  // exact: x and fl share the exponent range
  C r;
  if (diff < C(0.5)) r = fl;
  else if (diff > C(0.5)) r = fl + C(1);
  else r = std::fmod(fl, C(2)) == C(0) ? fl : fl + C(1);
  return r == C(0) ? std::copysign(C(0), x) : r;
}

template <typename C>
C FloatExact(bc_unary_op op, bc_dtype d, C x, const bc_unary_params* p, bool* is_bool) {
  *is_bool = false;
  const C inf = std::numeric_limits<C>::infinity();
  auto in_dtype = [&](double v) { return static_cast<C>(RoundTo(d, v)); };
  switch (op) {
    case BC_NEG: return -x;
    case BC_ABS: return std::fabs(x);
    case BC_SIGN: return x > C(0) ? C(1) : x < C(0) ? C(-1) : C(0);
    case BC_SQUARE: return x * x;
    case BC_RELU: return x < C(0) ? C(0) : x;
    case BC_HARDTANH: {
      const C lo = in_dtype(Param(p, 0, -1.0)), hi = in_dtype(Param(p, 1, 1.0));
      return x < lo ? lo : x > hi ? hi : x;
    }
    case BC_FLOOR: return std::floor(x);
    case BC_CEIL: return std::ceil(x);
    case BC_ROUND: return RoundHalfEven(x);
    case BC_TRUNC: return std::trunc(x);
    case BC_FRAC: return x - std::trunc(x);
    case BC_NAN_TO_NUM:
      if (std::isnan(x)) return in_dtype(Param(p, 0, 0.0));
      if (x == inf) return in_dtype(Param(p, 1, LargestOf(d)));
      if (x == -inf) return in_dtype(Param(p, 2, -LargestOf(d)));
      return x;
    case BC_SQRT: return std::sqrt(x);
    case BC_RSQRT: return C(1) / std::sqrt(x);
    case BC_RECIPROCAL: return C(1) / x;
    case BC_HARDSIGMOID: return std::min(std::max(x + C(3), C(0)), C(6)) / C(6);
    case BC_HARDSWISH: return x * std::min(std::max(x + C(3), C(0)), C(6)) / C(6);
    case BC_LEAKY_RELU: {
      const C slope = static_cast<C>(Param(p, 0, 0.01));
      return x > C(0) ? x : x * slope;
    }
    default: break;
  }
  *is_bool = true;
  switch (op) {
    case BC_ISNAN: return std::isnan(x);
    case BC_ISINF: return std::isinf(x);
    case BC_ISPOSINF: return x == inf;
    case BC_ISNEGINF: return x == -inf;
    case BC_ISFINITE: return std::isfinite(x);
    case BC_SIGNBIT: return std::signbit(x);
    case BC_LOGICAL_NOT: return x == C(0);
    default: ADD_FAILURE() << "no float reference for " << Info(op).name; return 0;
  }
}

// Integers and bool.
Val IntExact(bc_unary_op op, bc_dtype d, int64_t x, const bc_unary_params* p) {
  const bc_dtype rd = ResultOf(op, d);
  const uint64_t u = static_cast<uint64_t>(x);
  switch (op) {
    case BC_NEG: return IVal(WrapInt(0 - u, d));
    case BC_ABS: return IVal(x < 0 ? WrapInt(0 - u, d) : x);
    case BC_SIGN: return IVal((x > 0) - (x < 0));
    case BC_SQUARE: return IVal(WrapInt(u * u, rd));
    case BC_RELU: return IVal(x < 0 ? 0 : x);
    case BC_HARDTANH: {
      // PyTorch's toLong(): the bounds truncated; a bound beyond the dtype
      // clamps nothing.
      const long double lo = std::trunc(Param(p, 0, -1.0)), hi = std::trunc(Param(p, 1, 1.0));
      const long double lx = static_cast<long double>(x);
      if (lx < lo) return IVal(static_cast<int64_t>(lo));
      if (lx > hi) return IVal(static_cast<int64_t>(hi));
      return IVal(x);
    }
    case BC_FLOOR: case BC_CEIL: case BC_ROUND: case BC_TRUNC: case BC_NAN_TO_NUM: return IVal(x);
    case BC_BITWISE_NOT: return IVal(d == BC_BOOL ? !x : WrapInt(~u, d));
    case BC_ISNAN: case BC_ISINF: case BC_ISPOSINF: case BC_ISNEGINF: return IVal(0);
    case BC_ISFINITE: return IVal(1);
    case BC_SIGNBIT: return IVal(x < 0);
    case BC_LOGICAL_NOT: return IVal(x == 0);
    default: ADD_FAILURE() << "no integer reference for " << Info(op).name; return IVal(0);
  }
}

Val RefExact(bc_unary_op op, bc_dtype d, Val x, const bc_unary_params* p) {
  if (!IsFloat(d)) {
    if (Info(op).gives != Gives::kFloat) return IntExact(op, d, x.i, p);
    x = ConvertVal(x, d, BC_FLOAT32);  // sqrt, rsqrt, reciprocal: float32
    d = BC_FLOAT32;
  }
  bool is_bool = false;
  if (d == BC_FLOAT64) {
    const double r = FloatExact<double>(op, d, x.f, p, &is_bool);
    return is_bool ? IVal(r != 0) : FVal(r);
  }
  const float r = FloatExact<float>(op, d, static_cast<float>(x.f), p, &is_bool);
  return is_bool ? IVal(r != 0) : FVal(RoundFloatTo(d, r));
}

// ---------------------------------------------------------------------------
// Transcendentals in __float128.

// No Q literals: the tests build without GNU extensions.
Q QNan() { return nanq(""); }
Q QInf() { return static_cast<Q>(std::numeric_limits<double>::infinity()); }
Q QPi() { return acosq(static_cast<Q>(-1)); }
Q QDec(const char* s) { return strtoflt128(s, nullptr); }

// Newton steps on erf (or erfc in the tails) from Giles' single-precision
// approximation.
Q ErfinvQ(Q y) {
  if (isnanq(y) || fabsq(y) > 1) return QNan();
  if (y == 1) return QInf();
  if (y == -1) return -QInf();
  if (y == 0) return y;
  const bool neg = y < 0;
  const Q a = fabsq(y);
  const double ad = static_cast<double>(a);
  double w = -std::log(static_cast<double>((1 - a) * (1 + a)));
  double g;
  if (w < 5.0) {
    w -= 2.5;
    g = 2.81022636e-08;
    g = 3.43273939e-07 + g * w;
    g = -3.5233877e-06 + g * w;
    g = -4.39150654e-06 + g * w;
    g = 0.00021858087 + g * w;
    g = -0.00125372503 + g * w;
    g = -0.00417768164 + g * w;
    g = 0.246640727 + g * w;
    g = 1.50140941 + g * w;
  } else {
    w = std::sqrt(w) - 3.0;
    g = -0.000200214257;
    g = 0.000100950558 + g * w;
    g = 0.00134934322 + g * w;
    g = -0.00367342844 + g * w;
    g = 0.00573950773 + g * w;
    g = -0.0076224613 + g * w;
    g = 0.00943887047 + g * w;
    g = 1.00167406 + g * w;
    g = 2.83297682 + g * w;
  }
  Q x = static_cast<Q>(g * ad);
  const Q two_over_sqrtpi = 2 / sqrtq(QPi());
  const Q c = 1 - a;  // exact
  for (int it = 0; it < 60; ++it) {
    const Q f = a > static_cast<Q>(0.5) ? c - erfcq(x) : erfq(x) - a;
    const Q step = f / (two_over_sqrtpi * expq(-x * x));
    x -= step;
    if (fabsq(step) <= fabsq(x) * QDec("1e-33")) break;
  }
  return neg ? -x : x;
}

// The exact value of op at x (x a value of the compute dtype `cd`: float64,
// or float32 for everything else; `d` the op's dtype, for parameters).
Q MathQ(bc_unary_op op, bc_dtype d, bc_dtype cd, Q x, const bc_unary_params* p) {
  switch (op) {
    case BC_EXP: return expq(x);
    case BC_EXP2: return exp2q(x);
    case BC_EXPM1: return expm1q(x);
    case BC_LOG: return logq(x);
    case BC_LOG2: return log2q(x);
    case BC_LOG10: return log10q(x);
    case BC_LOG1P: return log1pq(x);
    case BC_SIN: return sinq(x);
    case BC_COS: return cosq(x);
    case BC_TAN: return tanq(x);
    case BC_ASIN: return asinq(x);
    case BC_ACOS: return acosq(x);
    case BC_ATAN: return atanq(x);
    case BC_SINH: return sinhq(x);
    case BC_COSH: return coshq(x);
    case BC_TANH: return tanhq(x);
    case BC_ASINH: return asinhq(x);
    case BC_ACOSH: return acoshq(x);
    case BC_ATANH: return atanhq(x);
    case BC_ERF: return erfq(x);
    case BC_ERFC: return erfcq(x);
    case BC_ERFINV: return ErfinvQ(x);
    case BC_SIGMOID: return 1 / (1 + expq(-x));
    case BC_SILU: return x / (1 + expq(-x));
    case BC_MISH: return x * tanhq(log1pq(expq(x)));
    case BC_LOGIT: {
      if (Given(p, 0) && p->value[0] >= 0) {
        // PyTorch: lo = eps, hi = 1 - eps, both in the dtype.
        const double lo = RoundTo(d, p->value[0]);
        const double hi = RoundTo(d, 1.0 - lo);
        if (x < lo) x = lo;
        if (x > hi) x = hi;
      }
      return logq(x) - log1pq(-x);
    }
    case BC_GELU: {
      if (Param(p, 0, 0) == 0) return x / 2 * erfcq(-x / sqrtq(static_cast<Q>(2)));
      // 0.5 x (1 + tanh(u)) = x / (1 + e^(-2u)), without the cancellation.
      const Q u = sqrtq(2 / QPi()) * (x + QDec("0.044715") * x * x * x);
      return x / (1 + expq(-2 * u));
    }
    case BC_SOFTPLUS: {
      const double beta = Param(p, 0, 1.0), threshold = Param(p, 1, 20.0);
      bool linear;
      if (cd == BC_FLOAT64) {
        linear = static_cast<double>(x) * beta > threshold;
      } else {
        linear = static_cast<float>(x) * static_cast<float>(beta) > static_cast<float>(threshold);
      }
      if (linear) return x;
      return log1pq(expq(x * static_cast<Q>(beta))) / static_cast<Q>(beta);
    }
    case BC_ELU: {
      if (isnanq(x)) return x;
      return x > 0 ? x : static_cast<Q>(Param(p, 0, 1.0)) * expm1q(x);
    }
    default: ADD_FAILURE() << "no quad reference for " << Info(op).name; return 0;
  }
}

Val RefMath(bc_unary_op op, bc_dtype d, Val x, const bc_unary_params* p) {
  const bc_dtype rd = ResultOf(op, d);
  const bc_dtype cd = rd == BC_FLOAT64 ? BC_FLOAT64 : BC_FLOAT32;
  const double xin = IsFloat(d) ? x.f : ConvertVal(x, d, BC_FLOAT32).f;
  const Q q = MathQ(op, IsFloat(d) ? d : BC_FLOAT32, cd, static_cast<Q>(xin), p);
  if (rd == BC_FLOAT64) return FVal(static_cast<double>(q));
  return FVal(RoundFloatTo(rd, static_cast<float>(q)));  // halves: twice, as the policy says
}

Val RefOne(bc_unary_op op, bc_dtype d, Val x, const bc_unary_params* p) {
  return Info(op).family == Family::kExact ? RefExact(op, d, x, p) : RefMath(op, d, x, p);
}

Host RefUnary(bc_unary_op op, const Host& x, const bc_unary_params* p = nullptr) {
  Host r;
  r.dtype = ResultOf(op, x.dtype);
  r.shape = x.shape;
  r.v.reserve(x.v.size());
  for (const Val& v : x.v) r.v.push_back(RefOne(op, x.dtype, v, p));
  return r;
}

// ---------------------------------------------------------------------------
// Comparison: bit-exact (any NaN matches any NaN) for the exact ops; within
// 1 ulp for the transcendentals, where a zero must still have the right sign.

bool Close(bc_dtype d, Val got, Val want, bool exact) {
  if (!IsFloat(d)) return got.i == want.i;
  if (std::isnan(got.f) || std::isnan(want.f)) return std::isnan(got.f) && std::isnan(want.f);
  // float16/bfloat16 transcendentals: the correctly rounded float32 result
  // rounded once, bit for bit (RefUnary rounds the quad value that way).
  if (exact || IsHalf(d) || (got.f == 0 && want.f == 0))
    return got.f == want.f && std::signbit(got.f) == std::signbit(want.f);
  return std::llabs(OrderedBits(d, got.f) - OrderedBits(d, want.f)) <= 1;
}

::testing::AssertionResult Agrees(bc_unary_op op, const Host& x, const Host& got, const Host& want,
                                  bool exact) {
  if (got.dtype != want.dtype)
    return ::testing::AssertionFailure() << "dtype " << TorchName(got.dtype) << " != expected "
                                         << TorchName(want.dtype);
  if (got.shape != want.shape)
    return ::testing::AssertionFailure() << "shape " << ShapeStr(got.shape) << " != expected "
                                         << ShapeStr(want.shape);
  int bad = 0;
  std::ostringstream os;
  for (size_t k = 0; k < want.v.size(); ++k) {
    if (Close(want.dtype, got.v[k], want.v[k], exact)) continue;
    if (bad < 8) {
      os << "\n  " << Info(op).name << "(" << ValStr(x.dtype, x.v[k]) << ") = "
         << ValStr(want.dtype, got.v[k]) << ", want " << ValStr(want.dtype, want.v[k]);
      if (IsFloat(want.dtype) && !std::isnan(got.v[k].f) && !std::isnan(want.v[k].f))
        os << " (" << OrderedBits(want.dtype, got.v[k].f) - OrderedBits(want.dtype, want.v[k].f)
           << " ulp)";
    }
    ++bad;
  }
  if (bad)
    return ::testing::AssertionFailure() << bad << " of " << want.v.size() << " elements differ:"
                                         << os.str();
  return ::testing::AssertionSuccess();
}

bool ExactOp(bc_unary_op op) { return Info(op).family == Family::kExact; }

::testing::AssertionResult Agrees(bc_unary_op op, const Host& x, const Host& got, const Host& want) {
  return Agrees(op, x, got, want, ExactOp(op));
}

// ---------------------------------------------------------------------------
// Inputs

double DenormMin(bc_dtype d) {
  switch (d) {
    case BC_FLOAT16: return 5.9604644775390625e-08;
    case BC_BFLOAT16: return 9.183549615799121e-41;
    case BC_FLOAT32: return 1.401298464324817e-45;
    default: return 4.9406564584124654e-324;
  }
}
double MinNormal(bc_dtype d) {
  switch (d) {
    case BC_FLOAT16: return 6.103515625e-05;
    case BC_BFLOAT16: case BC_FLOAT32: return 1.1754943508222875e-38;
    default: return DBL_MIN;
  }
}

std::vector<Val> Specials(bc_dtype d) {
  std::vector<Val> v;
  if (d == BC_BOOL) return {IVal(0), IVal(1)};
  if (!IsFloat(d)) {
    const int64_t lo = IntMin(d), hi = IntMax(d);
    for (int64_t x : {lo, hi, int64_t{0}, int64_t{1}, int64_t{-1}, lo + 1, hi - 1, int64_t{2},
                      int64_t{-2}, int64_t{3}, int64_t{-3}, int64_t{6}, int64_t{-4}, int64_t{100}})
      v.push_back(IVal(WrapInt(static_cast<uint64_t>(x), d)));
    return v;
  }
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double dm = DenormMin(d), mn = MinNormal(d), big = LargestOf(d);
  const std::vector<double> raw = {
      0.0, -0.0, inf, -inf, nan, -nan, dm, -dm, 3 * dm, -5 * dm, mn / 2, -mn / 4, mn, -mn, big,
      -big, 1, -1, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.5, 0.49999997, -0.49999997, 2, -2, 3, -3, 6,
      -6, 2.9999, -3.0001, 1e-8, -1e-8, 1e-3, 0.999, -0.999, 0.25, 0.75, 8388607.5, 8388609,
      -8388609, 4503599627370497.0, -4503599627370495.5, 1e30, -1e30, 20, 20.5, -20, 88.7, 89,
      -87.3, -104, 709.7, 710, -745, 11.5, -9.5, 0.0625, 0.9375, 1e-6, 1 - 1e-6};
  for (double x : raw) v.push_back(FVal(RoundTo(d, x)));
  return v;
}

// `n` values of dtype `d`: the specials first, then random ones; float16 and
// bfloat16 run through all 65536 bit patterns (shuffled) before repeating.
std::vector<Val> Inputs(bc_dtype d, size_t n, std::mt19937& rng) {
  std::vector<Val> v = Specials(d);
  if (IsHalf(d)) {
    std::vector<uint16_t> bits(65536);
    std::iota(bits.begin(), bits.end(), 0);
    std::shuffle(bits.begin(), bits.end(), rng);
    for (size_t k = 0; v.size() < n; k = (k + 1) % bits.size())
      v.push_back(FVal(d == BC_FLOAT16 ? HalfBitsToFloat(bits[k]) : Bf16BitsToFloat(bits[k])));
  }
  std::uniform_int_distribution<int> pct(0, 99);
  while (v.size() < n) {
    if (d == BC_BOOL) {
      v.push_back(IVal(pct(rng) < 50));
    } else if (!IsFloat(d)) {
      v.push_back(RandomVal(d, rng, false));
    } else {
      const int k = pct(rng);
      double x;
      if (k < 20) {  // any bit pattern
        if (d == BC_FLOAT64) {
          const uint64_t b = (static_cast<uint64_t>(rng()) << 32) | rng();
          std::memcpy(&x, &b, 8);
        } else {
          const uint32_t b = rng();
          float f;
          std::memcpy(&f, &b, 4);
          x = f;
        }
      } else if (k < 45) {
        x = std::uniform_real_distribution<double>(-1, 1)(rng);
      } else if (k < 70) {
        x = std::uniform_real_distribution<double>(-30, 30)(rng);
      } else if (k < 80) {
        x = std::uniform_int_distribution<int>(-40, 40)(rng) * 0.5;
      } else {
        const int e = std::uniform_int_distribution<int>(-60, 12)(rng);
        x = std::ldexp(std::uniform_real_distribution<double>(0.5, 1)(rng), e) * (pct(rng) < 50 ? -1 : 1);
      }
      v.push_back(FVal(RoundTo(d, x)));
    }
  }
  v.resize(n);
  return v;
}

Host HostOf(bc_dtype d, const Shape& s, std::vector<Val> v) {
  Host h;
  h.dtype = d;
  h.shape = s;
  h.v = std::move(v);
  return h;
}

Host Prefix(const Host& h, size_t n) {
  return HostOf(h.dtype, {static_cast<int64_t>(n)}, std::vector<Val>(h.v.begin(), h.v.begin() + n));
}

Tensor Zeros(bc_dtype d, const Shape& s) {
  bc_tensor* t = nullptr;
  EXPECT_EQ(bc_tensor_zeros(d, s.data(), s.size(), &t), BC_OK) << bc_last_error();
  return Tensor(t);
}

// `h` laid out with the given strides in a fresh buffer whose gaps hold
// 0xA5 bytes; `*buf` (when given) receives the buffer to check the gaps.
Tensor WrapWithStrides(const Host& h, const Shape& strides, std::vector<unsigned char>* keep) {
  const size_t es = ElemSize(h.dtype);
  int64_t span = 1;
  for (size_t i = 0; i < h.shape.size(); ++i)
    if (h.shape[i] > 0) span += (h.shape[i] - 1) * strides[i];
  keep->assign(static_cast<size_t>(span) * es, 0xA5);
  ForEachIndex(h.shape, [&](int64_t k, const Shape& idx) {
    int64_t off = 0;
    for (size_t i = 0; i < idx.size(); ++i) off += idx[i] * strides[i];
    StoreVal(h.dtype, h.v[k], keep->data() + off * es);
  });
  bc_tensor* t = nullptr;
  EXPECT_EQ(bc_tensor_wrap(h.dtype, h.shape.data(), strides.data(), h.shape.size(), keep->data(),
                           keep->size(), nullptr, nullptr, &t),
            BC_OK)
      << bc_last_error();
  return Tensor(t);
}

std::string PairLabel(bc_unary_op op, bc_dtype d) { return std::string(Info(op).name) + "_" + ShortName(d); }

using OpDtype = std::tuple<bc_unary_op, bc_dtype>;

std::vector<OpDtype> Pairs(Family f, bool accepted, bool ints_too = true) {
  std::vector<OpDtype> v;
  for (const UnaryInfo& u : kUnary) {
    if (u.family != f) continue;
    for (bc_dtype d : kAllDtypes) {
      if (Accepts(u.op, d) != accepted) continue;
      if (!ints_too && !IsFloat(d)) continue;
      v.emplace_back(u.op, d);
    }
  }
  return v;
}

std::string PairName(const ::testing::TestParamInfo<OpDtype>& info) {
  return PairLabel(std::get<0>(info.param), std::get<1>(info.param));
}

const size_t kSizes[] = {0, 1, 7, 31, 33, 1000, 100003};

// Runs op on each prefix size of `x` (1-D, contiguous) and compares.
void CheckSizes(bc_unary_op op, const Host& x, const Host& want, const std::vector<size_t>& sizes) {
  for (size_t n : sizes) {
    if (n > x.v.size()) continue;
    SCOPED_TRACE("size " + std::to_string(n));
    const Host xs = Prefix(x, n);
    Tensor t = ToTensor(xs);
    bc_tensor* out = kPoison;
    ASSERT_EQ(bc_unary(op, t.get(), &out), BC_OK) << bc_last_error();
    Tensor r(out);
    EXPECT_TRUE(bc_tensor_is_contiguous(r.get()));
    Host w = Prefix(want, n);
    w.dtype = want.dtype;
    EXPECT_TRUE(Agrees(op, xs, FromTensor(r.get()), w));
  }
}

// ---------------------------------------------------------------------------
// 1. Exact ops, every accepted dtype, bit for bit.

class UnaryExact : public ::testing::TestWithParam<OpDtype> {};

TEST_P(UnaryExact, SizesMatchReferenceBitExact) {
  const bc_unary_op op = std::get<0>(GetParam());
  const bc_dtype d = std::get<1>(GetParam());
  std::mt19937 rng(100 + op * 16 + d);
  const Host x = HostOf(d, {100003}, Inputs(d, 100003, rng));
  const Host want = RefUnary(op, x);
  CheckSizes(op, x, want, std::vector<size_t>(std::begin(kSizes), std::end(kSizes)));
}

// out= (fresh and non-contiguous), in place when the dtype holds the result.
TEST_P(UnaryExact, OutAndInPlaceForms) {
  const bc_unary_op op = std::get<0>(GetParam());
  const bc_dtype d = std::get<1>(GetParam());
  std::mt19937 rng(200 + op * 16 + d);
  const Host x = HostOf(d, {1000}, Inputs(d, 1000, rng));
  const Host want = RefUnary(op, x);
  Tensor tx = ToTensor(x);
  Tensor o = Zeros(want.dtype, want.shape);
  ASSERT_EQ(bc_unary_out(op, tx.get(), o.get()), BC_OK) << bc_last_error();
  EXPECT_TRUE(Agrees(op, x, FromTensor(o.get()), want));
  if (want.dtype == d) {
    Tensor self = ToTensor(x);
    ASSERT_EQ(bc_unary_(op, self.get()), BC_OK) << bc_last_error();
    EXPECT_TRUE(Agrees(op, x, FromTensor(self.get()), want));
  }
}

INSTANTIATE_TEST_SUITE_P(All, UnaryExact, ::testing::ValuesIn(Pairs(Family::kExact, true)), PairName);

// ---------------------------------------------------------------------------
// 2. Transcendentals within 1 ulp.

class UnaryMath : public ::testing::TestWithParam<OpDtype> {};

TEST_P(UnaryMath, WithinOneUlpOfQuadReference) {
  const bc_unary_op op = std::get<0>(GetParam());
  const bc_dtype d = std::get<1>(GetParam());
  std::mt19937 rng(300 + op * 16 + d);
  // float32/float64: 100003 values; the halves: every bit pattern; integer
  // inputs (computed in float32): 1000.
  const size_t n = IsHalf(d) ? 65536 + 128 : IsFloat(d) ? 100003 : 1000;
  const Host x = HostOf(d, {static_cast<int64_t>(n)}, Inputs(d, n, rng));
  const Host want = RefUnary(op, x);
  std::vector<size_t> sizes(std::begin(kSizes), std::end(kSizes));
  sizes.push_back(n);
  CheckSizes(op, x, want, sizes);
}

INSTANTIATE_TEST_SUITE_P(All, UnaryMath, ::testing::ValuesIn(Pairs(Family::kMath, true)), PairName);

// Every op on every dtype it takes, once per SIMD target this CPU runs
// (bc_set_simd_cap): vector bodies and tails of each target's kernels.

class UnaryTarget : public ::testing::TestWithParam<const char*> {
 protected:
  void TearDown() override { EXPECT_EQ(bc_set_simd_cap(nullptr), BC_OK); }
};

TEST_P(UnaryTarget, EveryOpEveryDtypeMatchesReference) {
  if (bc_set_simd_cap(GetParam()) != BC_OK) GTEST_SKIP() << GetParam() << " not available";
  ASSERT_STREQ(bc_simd_target(), GetParam());
  // The references do not depend on the target: computed once.
  static std::map<std::pair<int, int>, std::pair<Host, Host>> cache;
  for (const UnaryInfo& u : kUnary) {
    for (bc_dtype d : kAllDtypes) {
      if (!Accepts(u.op, d)) continue;
      SCOPED_TRACE(PairLabel(u.op, d) + " on " + GetParam());
      auto it = cache.find({u.op, d});
      if (it == cache.end()) {
        std::mt19937 rng(700 + u.op * 16 + d);
        Host x = HostOf(d, {1000}, Inputs(d, 1000, rng));
        Host want = RefUnary(u.op, x);
        it = cache.emplace(std::make_pair(static_cast<int>(u.op), static_cast<int>(d)),
                           std::make_pair(std::move(x), std::move(want))).first;
      }
      CheckSizes(u.op, it->second.first, it->second.second, {1, 7, 16, 33, 1000});
    }
  }
}

// A row of NaNs (each sign) gives the same bits in every element: a NaN
// must not come out with another sign in a row's vector body than in its
// tail (float64 silu with GCC, erf and erfc with clang did), which made a
// result's bits depend on its layout and the target.
TEST_P(UnaryTarget, NanRowsGiveTheSameBitsInBodyAndTail) {
  if (bc_set_simd_cap(GetParam()) != BC_OK) GTEST_SKIP() << GetParam() << " not available";
  for (const UnaryInfo& u : kUnary) {
    for (bc_dtype d : {BC_FLOAT32, BC_FLOAT64}) {
      if (!Accepts(u.op, d)) continue;
      for (const double nan : {std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::quiet_NaN()}) {
        SCOPED_TRACE(PairLabel(u.op, d) + " on " + GetParam() + (std::signbit(nan) ? ", -NaN" : ", +NaN"));
        const Host x = HostOf(d, {67}, std::vector<Val>(67, FVal(nan)));
        Tensor in = ToTensor(x);
        bc_tensor* r = nullptr;
        ASSERT_EQ(bc_unary(u.op, in.get(), &r), BC_OK) << bc_last_error();
        Tensor out(r);
        const std::vector<unsigned char> bytes = RawBytes(out.get());
        const size_t es = bytes.size() / 67;
        for (size_t i = 1; i < 67; ++i)
          ASSERT_TRUE(std::equal(bytes.begin() + static_cast<std::ptrdiff_t>(i * es),
                                 bytes.begin() + static_cast<std::ptrdiff_t>((i + 1) * es), bytes.begin()))
              << "element " << i << " differs from element 0";
      }
    }
  }
}

// The halves' result tables (unary_functors-inl.h: built once 64K elements
// were computed without one, per SIMD target; exact ops too, where
// HalfDirect does not keep the direct path) on every target: every bit
// pattern computed, then again through the table (a gather, emulated below
// AVX2), both against the quad reference bit for bit.
TEST_P(UnaryTarget, HalfTablesMatchReference) {
  if (bc_set_simd_cap(GetParam()) != BC_OK) GTEST_SKIP() << GetParam() << " not available";
  for (bc_unary_op op : {BC_EXP, BC_GELU, BC_ERFINV, BC_SQRT, BC_CEIL, BC_HARDSWISH, BC_NAN_TO_NUM}) {
    for (bc_dtype d : {BC_FLOAT16, BC_BFLOAT16}) {
      SCOPED_TRACE(PairLabel(op, d) + " on " + GetParam());
      std::mt19937 rng(800 + op * 16 + d);
      const size_t n = 65536 + 128;
      const Host x = HostOf(d, {static_cast<int64_t>(n)}, Inputs(d, n, rng));
      const Host want = RefUnary(op, x);
      CheckSizes(op, x, want, {n, n});
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, UnaryTarget, ::testing::ValuesIn(kSimdTargets),
                         [](const ::testing::TestParamInfo<const char*>& i) { return std::string(i.param); });

// Domain edges and special points, float32 and float64, every function.
TEST(UnaryMathEdges, SpecialPointsWithinOneUlp) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> pts = {0.0, -0.0, inf, -inf, 1, -1, 1e-300, -1e-300, 1e-40, -1e-40,
                                   0.5, -0.5, 0.999999, -0.999999, 1.000001, 1e-7, 3.14159265358979,
                                   1.5707963267948966, 100, -100, 710, -710, 1e10, 1e300, -1e300};
  for (bc_dtype d : {BC_FLOAT32, BC_FLOAT64}) {
    std::vector<Val> v;
    for (double p : pts) v.push_back(FVal(RoundTo(d, p)));
    const Host x = HostOf(d, {static_cast<int64_t>(v.size())}, v);
    Tensor t = ToTensor(x);
    for (const UnaryInfo& u : kUnary) {
      if (u.family != Family::kMath) continue;
      SCOPED_TRACE(PairLabel(u.op, d));
      bc_tensor* out = nullptr;
      ASSERT_EQ(bc_unary(u.op, t.get(), &out), BC_OK) << bc_last_error();
      Tensor r(out);
      EXPECT_TRUE(Agrees(u.op, x, FromTensor(r.get()), RefUnary(u.op, x)));
    }
  }
}

// The reference's own sanity: a few values known to many digits.
TEST(UnaryReference, QuadReferenceKnownValues) {
  EXPECT_EQ(static_cast<double>(ErfinvQ(static_cast<Q>(0.5))), 0.4769362762044699);
  EXPECT_EQ(static_cast<double>(ErfinvQ(-QDec("0.9"))), -1.163087153676674);
  EXPECT_EQ(static_cast<double>(ErfinvQ(1 - ldexpq(1, -53))), 5.8635847487551676);
  EXPECT_EQ(static_cast<float>(MathQ(BC_GELU, BC_FLOAT32, BC_FLOAT32, 1, nullptr)), 0.8413447460685429f);
  EXPECT_EQ(RoundHalfEven(2.5), 2.0);
  EXPECT_EQ(RoundHalfEven(-3.5), -4.0);
  EXPECT_TRUE(std::signbit(RoundHalfEven(-0.25)));
}

// ---------------------------------------------------------------------------
// Refused dtypes: the kernel's "not implemented" text (or the op's own).

std::string RefusalText(bc_unary_op op, bc_dtype d) {
  if (op == BC_NEG)
    return "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
           "invert a mask, use the `~` or `logical_not()` operator instead.";
  if (op == BC_RELU) return "Boolean inputs not supported for relu";
  if (op == BC_HARDTANH) return "Bool inputs not supported for hardtanh";
  return std::string("\"") + Info(op).kernel + "\" not implemented for '" + TorchName(d) + "'";
}

class UnaryRefused : public ::testing::TestWithParam<OpDtype> {};

TEST_P(UnaryRefused, AllFormsFailWithTextAndWriteNothing) {
  const bc_unary_op op = std::get<0>(GetParam());
  const bc_dtype d = std::get<1>(GetParam());
  const std::string msg = RefusalText(op, d);
  std::mt19937 rng(400 + op * 16 + d);
  const Host x = HostOf(d, {2, 3}, Inputs(d, 6, rng));
  Tensor tx = ToTensor(x);
  const std::vector<unsigned char> before = RawBytes(tx.get());
  bc_tensor* out = kPoison;
  EXPECT_TRUE(Fails(bc_unary(op, tx.get(), &out), BC_ERR_DTYPE, msg));
  EXPECT_EQ(out, nullptr);
  Tensor o = ToTensor(Iota(d, {2, 3}, 1));
  const std::vector<unsigned char> obefore = RawBytes(o.get());
  EXPECT_TRUE(Fails(bc_unary_out(op, tx.get(), o.get()), BC_ERR_DTYPE, msg));
  EXPECT_TRUE(Fails(bc_unary_(op, tx.get()), BC_ERR_DTYPE, msg));
  out = kPoison;
  EXPECT_TRUE(Fails(bc_unary_ex(op, tx.get(), nullptr, &out), BC_ERR_DTYPE, msg));
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(RawBytes(tx.get()), before);
  EXPECT_EQ(RawBytes(o.get()), obefore);
}

std::vector<OpDtype> RefusedPairs() {
  std::vector<OpDtype> v = Pairs(Family::kExact, false);
  for (const OpDtype& p : Pairs(Family::kMath, false)) v.push_back(p);
  return v;
}

INSTANTIATE_TEST_SUITE_P(All, UnaryRefused, ::testing::ValuesIn(RefusedPairs()), PairName);

// ---------------------------------------------------------------------------
// 3. Layouts, for a spread of ops and dtypes.

const bc_unary_op kLayoutOps[] = {BC_NEG,   BC_ABS,   BC_SQUARE, BC_RELU,        BC_ROUND,
                                  BC_FRAC,  BC_SQRT,  BC_RSQRT,  BC_BITWISE_NOT, BC_HARDSWISH,
                                  BC_EXP,   BC_SIN,   BC_SIGMOID, BC_GELU,       BC_ISNAN,
                                  BC_SIGNBIT, BC_LOGICAL_NOT, BC_NAN_TO_NUM};
const bc_dtype kLayoutDtypes[] = {BC_BOOL, BC_UINT8, BC_INT32, BC_INT64, BC_FLOAT16,
                                  BC_BFLOAT16, BC_FLOAT32, BC_FLOAT64};

std::vector<OpDtype> LayoutPairs() {
  std::vector<OpDtype> v;
  for (bc_unary_op op : kLayoutOps)
    for (bc_dtype d : kLayoutDtypes)
      if (Accepts(op, d)) v.emplace_back(op, d);
  return v;
}

class UnaryLayout : public ::testing::TestWithParam<OpDtype> {};

TEST_P(UnaryLayout, StridedTransposedExpandedScalarEmpty) {
  const bc_unary_op op = std::get<0>(GetParam());
  const bc_dtype d = std::get<1>(GetParam());
  std::mt19937 rng(500 + op * 16 + d);
  auto check = [&](const char* what, const Host& x, const bc_tensor* t) {
    SCOPED_TRACE(what);
    const Host want = RefUnary(op, x);
    bc_tensor* out = kPoison;
    ASSERT_EQ(bc_unary(op, t, &out), BC_OK) << bc_last_error();
    Tensor r(out);
    EXPECT_TRUE(bc_tensor_is_contiguous(r.get()));
    EXPECT_TRUE(Agrees(op, x, FromTensor(r.get()), want));
    Tensor o = Zeros(want.dtype, want.shape);
    ASSERT_EQ(bc_unary_out(op, t, o.get()), BC_OK) << bc_last_error();
    EXPECT_TRUE(Agrees(op, x, FromTensor(o.get()), want));
  };
  std::vector<unsigned char> keep;
  for (int64_t n : {33, 1000}) {  // step 2
    const Host x = HostOf(d, {n}, Inputs(d, static_cast<size_t>(n), rng));
    Tensor t = WrapWithStrides(x, {2}, &keep);
    check(n == 33 ? "step2_33" : "step2_1000", x, t.get());
  }
  {  // transposed 2-D: column-major storage
    const Host x = HostOf(d, {37, 29}, Inputs(d, 37 * 29, rng));
    Tensor t = WrapWithStrides(x, {1, 37}, &keep);
    check("transposed", x, t.get());
  }
  {  // 3-D with permuted dims and gaps
    const Host x = HostOf(d, {5, 6, 7}, Inputs(d, 210, rng));
    Tensor t = ToStridedTensor(x, rng);
    check("permuted_3d", x, t.get());
  }
  {  // expanded (stride 0) input
    const Host row = HostOf(d, {1, 29}, Inputs(d, 29, rng));
    Tensor trow = ToTensor(row);
    const int64_t big[] = {37, 29};
    bc_tensor* e = nullptr;
    ASSERT_EQ(bc_expand(trow.get(), big, 2, &e), BC_OK);
    Tensor te(e);
    check("expanded", FromTensor(te.get()), te.get());
    const Host col = HostOf(d, {37, 1}, Inputs(d, 37, rng));
    Tensor tcol = ToTensor(col);
    ASSERT_EQ(bc_expand(tcol.get(), big, 2, &e), BC_OK);
    Tensor tce(e);
    check("expanded_column", FromTensor(tce.get()), tce.get());
  }
  for (const Val& v : Specials(d)) {  // 0-dim, every special value
    const Host x = HostOf(d, {}, {v});
    Tensor t = ToTensor(x);
    check("zero_dim", x, t.get());
  }
  for (const Shape& s : {Shape{0}, Shape{0, 5}, Shape{3, 0}, Shape{2, 0, 4}}) {  // 0-size
    const Host x = HostOf(d, s, {});
    Tensor t = ToTensor(x);
    check("empty", x, t.get());
  }
}

// out= into a non-contiguous tensor (every other element, and transposed):
// the gaps stay as they were.
TEST_P(UnaryLayout, NonContiguousOut) {
  const bc_unary_op op = std::get<0>(GetParam());
  const bc_dtype d = std::get<1>(GetParam());
  std::mt19937 rng(600 + op * 16 + d);
  const bc_dtype rd = ResultOf(op, d);
  for (int64_t n : {7, 33, 1000}) {
    SCOPED_TRACE("step2 out, size " + std::to_string(n));
    const Host x = HostOf(d, {n}, Inputs(d, static_cast<size_t>(n), rng));
    const Host want = RefUnary(op, x);
    Tensor tx = ToTensor(x);
    std::vector<unsigned char> obuf;
    Tensor o = WrapWithStrides(Iota(rd, {n}), {2}, &obuf);
    ASSERT_EQ(bc_unary_out(op, tx.get(), o.get()), BC_OK) << bc_last_error();
    EXPECT_TRUE(Agrees(op, x, FromTensor(o.get()), want));
    const size_t es = ElemSize(rd);
    for (int64_t k = 0; k + 1 < n; ++k)
      for (size_t b = 0; b < es; ++b) ASSERT_EQ(obuf[(2 * k + 1) * es + b], 0xA5) << "gap " << k;
  }
  {
    SCOPED_TRACE("transposed out");
    const Host x = HostOf(d, {37, 29}, Inputs(d, 37 * 29, rng));
    const Host want = RefUnary(op, x);
    Tensor tx = ToTensor(x);
    std::vector<unsigned char> obuf;
    Tensor o = WrapWithStrides(Iota(rd, {37, 29}), {1, 37}, &obuf);
    ASSERT_EQ(bc_unary_out(op, tx.get(), o.get()), BC_OK) << bc_last_error();
    EXPECT_TRUE(Agrees(op, x, FromTensor(o.get()), want));
  }
  {
    SCOPED_TRACE("0-dim x into a 0-dim out");
    const Host x = HostOf(d, {}, {Specials(d).back()});
    Tensor tx = ToTensor(x), o = Zeros(rd, {});
    ASSERT_EQ(bc_unary_out(op, tx.get(), o.get()), BC_OK) << bc_last_error();
    EXPECT_TRUE(Agrees(op, x, FromTensor(o.get()), RefUnary(op, x)));
  }
  if (rd == d) {
    SCOPED_TRACE("in place on a strided view");
    const Host x = HostOf(d, {500}, Inputs(d, 500, rng));
    std::vector<unsigned char> buf;
    Tensor t = WrapWithStrides(x, {2}, &buf);
    ASSERT_EQ(bc_unary_(op, t.get()), BC_OK) << bc_last_error();
    EXPECT_TRUE(Agrees(op, x, FromTensor(t.get()), RefUnary(op, x)));
    for (int64_t k = 0; k + 1 < 500; ++k)
      for (size_t b = 0; b < ElemSize(d); ++b) ASSERT_EQ(buf[(2 * k + 1) * ElemSize(d) + b], 0xA5);
  }
}

INSTANTIATE_TEST_SUITE_P(All, UnaryLayout, ::testing::ValuesIn(LayoutPairs()), PairName);

// out= must have x's shape exactly: a 0-dim x does not broadcast into it
// (the engine never resizes out=).
TEST(UnaryForms, ZeroDimInputDoesNotBroadcastIntoOut) {
  Tensor tx = ToTensor(MakeHost(BC_FLOAT32, {}, {-2.25}));
  Tensor o = ToTensor(Iota(BC_FLOAT32, {3, 4}));
  const std::vector<unsigned char> before = RawBytes(o.get());
  EXPECT_TRUE(Fails(bc_unary_out(BC_NEG, tx.get(), o.get()), BC_ERR_SHAPE_MISMATCH,
                    "output with shape [3, 4] doesn't match the broadcast shape []"));
  EXPECT_EQ(RawBytes(o.get()), before);
}

// ---------------------------------------------------------------------------
// 4. Forms

// out= with another dtype than the result: the float ops compute in their
// result dtype and cast; predicates write bool into bool only (tested in
// Errors); integer results into wider integers are refused by same-dtype ops.
TEST(UnaryForms, FloatOpsCastIntoWiderOut) {
  std::mt19937 rng(7);
  const Host xi = HostOf(BC_INT32, {100}, Inputs(BC_INT32, 100, rng));
  Tensor ti = ToTensor(xi);
  for (bc_unary_op op : {BC_SQRT, BC_RECIPROCAL, BC_EXP, BC_SIN}) {
    SCOPED_TRACE(Info(op).name);
    Host want = RefUnary(op, xi);  // float32
    for (Val& v : want.v) v = ConvertVal(v, BC_FLOAT32, BC_FLOAT64);
    want.dtype = BC_FLOAT64;
    Tensor o = Zeros(BC_FLOAT64, {100});
    ASSERT_EQ(bc_unary_out(op, ti.get(), o.get()), BC_OK) << bc_last_error();
    // 1 ulp of float32 is many float64 ulps: compare as float32 values.
    Host got = FromTensor(o.get());
    for (const Val& v : got.v) ASSERT_TRUE(std::isnan(v.f) || static_cast<double>(static_cast<float>(v.f)) == v.f);
    got.dtype = want.dtype = BC_FLOAT32;
    EXPECT_TRUE(Agrees(op, xi, got, want));
  }
  // float32 sqrt into a float16 out: the float32 result rounded once more.
  const Host xf = MakeHost(BC_FLOAT32, {4}, {0, 1, -1, 12});
  Tensor tf = ToTensor(xf);
  Tensor oh = Zeros(BC_FLOAT16, {4});
  ASSERT_EQ(bc_unary_out(BC_SQRT, tf.get(), oh.get()), BC_OK) << bc_last_error();
  EXPECT_TRUE(SameHost(FromTensor(oh.get()),
                       MakeHost(BC_FLOAT16, {4}, {0, 1, std::nan(""), RoundTo(BC_FLOAT16, std::sqrt(12.0f))})));
  // Predicates into a bool out, square of bool into int64 and into float.
  Tensor tb = ToTensor(MakeHost(BC_BOOL, {3}, {1, 0, 1}));
  Tensor ol = Zeros(BC_INT64, {3});
  ASSERT_EQ(bc_unary_out(BC_SQUARE, tb.get(), ol.get()), BC_OK) << bc_last_error();
  EXPECT_TRUE(SameHost(FromTensor(ol.get()), MakeHost(BC_INT64, {3}, {1, 0, 1})));
}

// Contexts: results as the plain forms; failures land in the context.
TEST(UnaryForms, ContextFormsMatchAndRecordErrorsInTheContext) {
  bc_ctx* ctx = nullptr;
  ASSERT_EQ(bc_ctx_create(&ctx), BC_OK);
  std::unique_ptr<bc_ctx, void (*)(bc_ctx*)> hold(ctx, bc_ctx_free);
  ASSERT_EQ(bc_ctx_set_option(ctx, BC_OPT_NUM_THREADS, 2), BC_OK);
  std::mt19937 rng(8);
  for (bc_dtype d : {BC_FLOAT32, BC_BFLOAT16, BC_INT16}) {
    for (bc_unary_op op : {BC_ABS, BC_SQRT, BC_EXP, BC_ISFINITE, BC_HARDTANH}) {
      SCOPED_TRACE(PairLabel(op, d));
      const Host x = HostOf(d, {100003}, Inputs(d, 100003, rng));
      const Host want = RefUnary(op, x);
      Tensor tx = ToTensor(x);
      bc_tensor* out = nullptr;
      ASSERT_EQ(bc_ctx_unary(ctx, op, tx.get(), &out), BC_OK) << bc_ctx_last_error(ctx);
      Tensor r(out);
      EXPECT_TRUE(Agrees(op, x, FromTensor(r.get()), want));
      out = nullptr;
      ASSERT_EQ(bc_ctx_unary_ex(ctx, op, tx.get(), nullptr, &out), BC_OK) << bc_ctx_last_error(ctx);
      Tensor r2(out);
      EXPECT_TRUE(Agrees(op, x, FromTensor(r2.get()), want));
      Tensor o = Zeros(want.dtype, want.shape);
      ASSERT_EQ(bc_ctx_unary_out(ctx, op, tx.get(), o.get()), BC_OK) << bc_ctx_last_error(ctx);
      EXPECT_TRUE(Agrees(op, x, FromTensor(o.get()), want));
      Tensor o2 = Zeros(want.dtype, want.shape);
      ASSERT_EQ(bc_ctx_unary_ex_out(ctx, op, tx.get(), nullptr, o2.get()), BC_OK);
      EXPECT_TRUE(Agrees(op, x, FromTensor(o2.get()), want));
      if (want.dtype == d) {
        Tensor s1 = ToTensor(x), s2 = ToTensor(x);
        ASSERT_EQ(bc_ctx_unary_(ctx, op, s1.get()), BC_OK) << bc_ctx_last_error(ctx);
        EXPECT_TRUE(Agrees(op, x, FromTensor(s1.get()), want));
        ASSERT_EQ(bc_ctx_unary_ex_(ctx, op, s2.get(), nullptr), BC_OK) << bc_ctx_last_error(ctx);
        EXPECT_TRUE(Agrees(op, x, FromTensor(s2.get()), want));
      }
    }
  }
  // NULL ctx is the plain form.
  const Host x = MakeHost(BC_FLOAT64, {3}, {-1, 4, 0.25});
  Tensor tx = ToTensor(x);
  bc_tensor* out = nullptr;
  ASSERT_EQ(bc_ctx_unary(nullptr, BC_SQRT, tx.get(), &out), BC_OK);
  Tensor r(out);
  EXPECT_TRUE(SameHost(FromTensor(r.get()), MakeHost(BC_FLOAT64, {3}, {std::nan(""), 2, 0.5})));
  // A failure on the context: recorded there, the thread's error untouched.
  bc_tensor* dummy = nullptr;
  ASSERT_EQ(bc_unary(BC_FRAC, nullptr, &dummy), BC_ERR_INVALID_ARGUMENT);
  const std::string thread_msg = bc_last_error();
  Tensor ti = ToTensor(Iota(BC_INT32, {4}));
  const std::vector<unsigned char> before = RawBytes(ti.get());
  out = kPoison;
  EXPECT_EQ(bc_ctx_unary(ctx, BC_FRAC, ti.get(), &out), BC_ERR_DTYPE);
  EXPECT_EQ(out, nullptr);
  EXPECT_STREQ(bc_ctx_last_error(ctx), "\"frac_cpu\" not implemented for 'Int'");
  bc_error_detail det;
  EXPECT_EQ(bc_ctx_last_error_detail(ctx, &det), BC_ERR_DTYPE);
  EXPECT_EQ(bc_last_error(), thread_msg);
  EXPECT_EQ(bc_ctx_unary_(ctx, BC_EXP, ti.get()), BC_ERR_DTYPE);
  EXPECT_STREQ(bc_ctx_last_error(ctx), "result type Float can't be cast to the desired output type Int");
  bc_unary_params bad = {{0, 0, 0}, 1u << 1};
  EXPECT_EQ(bc_ctx_unary_ex_(ctx, BC_LEAKY_RELU, ti.get(), &bad), BC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(bc_last_error(), thread_msg);
  EXPECT_EQ(RawBytes(ti.get()), before);
  // bc_ctx_to.
  out = nullptr;
  ASSERT_EQ(bc_ctx_to(ctx, ti.get(), BC_FLOAT64, &out), BC_OK);
  Tensor tt(out);
  EXPECT_TRUE(SameHost(FromTensor(tt.get()), MakeHost(BC_FLOAT64, {4}, {0, 1, 2, 3})));
  EXPECT_EQ(bc_ctx_to(ctx, nullptr, BC_FLOAT64, &out), BC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(bc_ctx_last_error(ctx)), "");
  EXPECT_EQ(bc_last_error(), thread_msg);
}

// bc_unary_ex with each parameterised op, the parameter given and not, in
// every form.
struct ParamCase {
  bc_unary_op op;
  bc_unary_params p;
  const char* what;
};

const ParamCase kParamCases[] = {
    {BC_HARDTANH, {{0, 0, 0}, 0}, "defaults"},
    {BC_HARDTANH, {{-2.5, 3.75, 0}, 3}, "min -2.5 max 3.75"},
    {BC_HARDTANH, {{-0.3, 0, 0}, 1}, "min -0.3 only"},
    {BC_HARDTANH, {{0, 0.1, 0}, 2}, "max 0.1 only"},
    {BC_HARDTANH, {{-1000, 1000, 0}, 3}, "bounds beyond small dtypes"},
    {BC_HARDTANH, {{2, 2, 0}, 3}, "min == max"},
    {BC_NAN_TO_NUM, {{0, 0, 0}, 0}, "defaults"},
    {BC_NAN_TO_NUM, {{1.5, 100, -200}, 7}, "all given"},
    {BC_NAN_TO_NUM, {{0, 1e6, 0}, 2}, "posinf 1e6 only (inf in float16)"},
    {BC_NAN_TO_NUM, {{-7.25, 0, -0.1}, 5}, "nan and neginf"},
    {BC_LEAKY_RELU, {{0, 0, 0}, 0}, "default slope"},
    {BC_LEAKY_RELU, {{0.2, 0, 0}, 1}, "slope 0.2"},
    {BC_LEAKY_RELU, {{-1.5, 0, 0}, 1}, "slope -1.5"},
    {BC_LOGIT, {{0, 0, 0}, 0}, "no eps"},
    {BC_LOGIT, {{0.0625, 0, 0}, 1}, "eps 0.0625"},
    {BC_LOGIT, {{1e-6, 0, 0}, 1}, "eps 1e-6"},
    {BC_LOGIT, {{-1, 0, 0}, 1}, "eps -1 (no clamping)"},
    {BC_GELU, {{0, 0, 0}, 0}, "default (erf)"},
    {BC_GELU, {{BC_GELU_NONE, 0, 0}, 1}, "approximate none"},
    {BC_GELU, {{BC_GELU_TANH, 0, 0}, 1}, "approximate tanh"},
    {BC_SOFTPLUS, {{0, 0, 0}, 0}, "defaults"},
    {BC_SOFTPLUS, {{2, 10, 0}, 3}, "beta 2 threshold 10"},
    {BC_SOFTPLUS, {{0, 5, 0}, 2}, "threshold 5 only"},
    {BC_SOFTPLUS, {{0.5, 0, 0}, 1}, "beta 0.5 only"},
    {BC_ELU, {{0, 0, 0}, 0}, "default alpha"},
    {BC_ELU, {{0.5, 0, 0}, 1}, "alpha 0.5"},
    {BC_ELU, {{2, 0, 0}, 1}, "alpha 2"},
};

TEST(UnaryParams, EveryParameterGivenAndDefaultInEveryForm) {
  std::mt19937 rng(9);
  for (const ParamCase& c : kParamCases) {
    for (bc_dtype d : kAllDtypes) {
      if (!Accepts(c.op, d)) continue;
      SCOPED_TRACE(PairLabel(c.op, d) + ": " + c.what);
      // The halves' transcendentals: every bit pattern, bit for bit (gelu
      // and logit compute them with their float32 forms for every parameter).
      const size_t n = IsHalf(d) && !ExactOp(c.op) ? 65536 + 128 : 1000;
      const Host x = HostOf(d, {static_cast<int64_t>(n)}, Inputs(d, n, rng));
      const Host want = RefUnary(c.op, x, &c.p);
      Tensor tx = ToTensor(x);
      bc_tensor* out = nullptr;
      ASSERT_EQ(bc_unary_ex(c.op, tx.get(), &c.p, &out), BC_OK) << bc_last_error();
      Tensor r(out);
      EXPECT_TRUE(Agrees(c.op, x, FromTensor(r.get()), want));
      Tensor o = Zeros(want.dtype, want.shape);
      ASSERT_EQ(bc_unary_ex_out(c.op, tx.get(), &c.p, o.get()), BC_OK) << bc_last_error();
      EXPECT_TRUE(Agrees(c.op, x, FromTensor(o.get()), want));
      if (want.dtype == d) {
        Tensor s = ToTensor(x);
        ASSERT_EQ(bc_unary_ex_(c.op, s.get(), &c.p), BC_OK) << bc_last_error();
        EXPECT_TRUE(Agrees(c.op, x, FromTensor(s.get()), want));
      }
      if (c.p.given == 0) {  // NULL params and the plain form are the defaults
        out = nullptr;
        ASSERT_EQ(bc_unary_ex(c.op, tx.get(), nullptr, &out), BC_OK) << bc_last_error();
        Tensor r2(out);
        EXPECT_TRUE(Agrees(c.op, x, FromTensor(r2.get()), want));
        out = nullptr;
        ASSERT_EQ(bc_unary(c.op, tx.get(), &out), BC_OK) << bc_last_error();
        Tensor r3(out);
        EXPECT_TRUE(Agrees(c.op, x, FromTensor(r3.get()), want));
      }
    }
  }
}

// A few values pinned by hand (PyTorch's outputs), so that the reference
// itself is checked.
TEST(UnaryParams, HandPickedValues) {
  auto run = [](bc_unary_op op, const Host& x, const bc_unary_params* p) {
    Tensor t = ToTensor(x);
    bc_tensor* out = nullptr;
    EXPECT_EQ(bc_unary_ex(op, t.get(), p, &out), BC_OK) << bc_last_error();
    Tensor r(out);
    return FromTensor(r.get());
  };
  const double inf = INFINITY, nan = NAN;
  // torch.nan_to_num(torch.tensor([nan, inf, -inf, 1.], dtype=torch.float16))
  EXPECT_TRUE(SameHost(run(BC_NAN_TO_NUM, MakeHost(BC_FLOAT16, {4}, {nan, inf, -inf, 1}), nullptr),
                       MakeHost(BC_FLOAT16, {4}, {0, 65504, -65504, 1})));
  EXPECT_TRUE(SameHost(run(BC_NAN_TO_NUM, MakeHost(BC_FLOAT32, {3}, {nan, inf, -inf}), nullptr),
                       MakeHost(BC_FLOAT32, {3}, {0, FLT_MAX, -FLT_MAX})));
  // torch.hardtanh(torch.tensor([-5, 0, 5], dtype=torch.int32), -2.5, 3.75) -> [-2, 0, 3]
  bc_unary_params ht = {{-2.5, 3.75, 0}, 3};
  EXPECT_TRUE(SameHost(run(BC_HARDTANH, MakeHost(BC_INT32, {3}, {-5, 0, 5}), &ht),
                       MakeHost(BC_INT32, {3}, {-2, 0, 3})));
  // relu keeps -0.0 and NaN; sign of NaN and -0 is +0.
  Host r = run(BC_RELU, MakeHost(BC_FLOAT32, {3}, {-0.0, nan, -1}), nullptr);
  EXPECT_TRUE(std::signbit(r.v[0].f));
  EXPECT_TRUE(std::isnan(r.v[1].f));
  EXPECT_EQ(r.v[2].f, 0.0);
  Host s = run(BC_SIGN, MakeHost(BC_FLOAT64, {2}, {nan, -0.0}), nullptr);
  EXPECT_EQ(s.v[0].f, 0.0);
  EXPECT_FALSE(std::signbit(s.v[0].f));
  EXPECT_FALSE(std::signbit(s.v[1].f));
  // round half to even; frac(-2.5) = -0.5; integer neg/abs wrap.
  EXPECT_TRUE(SameHost(run(BC_ROUND, MakeHost(BC_FLOAT32, {4}, {0.5, 1.5, 2.5, -2.5}), nullptr),
                       MakeHost(BC_FLOAT32, {4}, {0, 2, 2, -2})));
  EXPECT_TRUE(SameHost(run(BC_FRAC, MakeHost(BC_FLOAT64, {1}, {-2.5}), nullptr), MakeHost(BC_FLOAT64, {1}, {-0.5})));
  EXPECT_TRUE(SameHost(run(BC_NEG, MakeHost(BC_INT8, {1}, {-128}), nullptr), MakeHost(BC_INT8, {1}, {-128})));
  EXPECT_TRUE(SameHost(run(BC_ABS, MakeHost(BC_INT16, {1}, {-32768}), nullptr), MakeHost(BC_INT16, {1}, {-32768})));
  EXPECT_TRUE(SameHost(run(BC_SQUARE, MakeHost(BC_BOOL, {2}, {1, 0}), nullptr), MakeHost(BC_INT64, {2}, {1, 0})));
  // gelu(1) tanh form: 0.8411920070648193 in float32.
  bc_unary_params gt = {{BC_GELU_TANH, 0, 0}, 1};
  Host g = run(BC_GELU, MakeHost(BC_FLOAT32, {1}, {1}), &gt);
  EXPECT_NEAR(g.v[0].f, 0.8411920070648193, 1.2e-7);
  // softplus above the threshold is x itself, in float64 too.
  Host sp = run(BC_SOFTPLUS, MakeHost(BC_FLOAT64, {1}, {21}), nullptr);
  EXPECT_EQ(sp.v[0].f, 21.0);
}

// bc_to: the same dtype is a view on the same storage; another dtype is a
// new contiguous tensor converted as bc_copy_ converts.
TEST(UnaryTo, SameDtypeIsAViewSharingData) {
  for (bc_dtype d : kAllDtypes) {
    SCOPED_TRACE(ShortName(d));
    Tensor x = ToTensor(Iota(d, {3, 4}, 1));
    bc_tensor* out = nullptr;
    ASSERT_EQ(bc_to(x.get(), d, &out), BC_OK) << bc_last_error();
    Tensor v(out);
    EXPECT_NE(v.get(), x.get());
    EXPECT_EQ(bc_tensor_data(v.get()), bc_tensor_data(x.get()));
    EXPECT_EQ(ShapeOf(v.get()), ShapeOf(x.get()));
    EXPECT_EQ(StridesOf(v.get()), StridesOf(x.get()));
    // A write through the view shows in x.
    Tensor z = Zeros(d, {3, 4});
    ASSERT_EQ(bc_copy_(v.get(), z.get()), BC_OK);
    EXPECT_TRUE(SameHost(FromTensor(x.get()), HostOf(d, {3, 4}, std::vector<Val>(12, d == BC_BOOL || !IsFloat(d) ? IVal(0) : FVal(0)))));
  }
  // A strided x keeps its strides.
  std::vector<unsigned char> buf;
  const Host h = Iota(BC_FLOAT32, {2, 3});
  Tensor t = WrapWithStrides(h, {1, 2}, &buf);
  bc_tensor* out = nullptr;
  ASSERT_EQ(bc_to(t.get(), BC_FLOAT32, &out), BC_OK);
  Tensor v(out);
  EXPECT_EQ(StridesOf(v.get()), (Shape{1, 2}));
  EXPECT_EQ(bc_tensor_data(v.get()), static_cast<void*>(buf.data()));
}

TEST(UnaryTo, OtherDtypesConvertLikeCopy) {
  std::mt19937 rng(10);
  for (bc_dtype from : kAllDtypes) {
    // Values every dtype converts without undefined behaviour: finite, in
    // the range of every integer dtype after truncation.
    std::vector<Val> vals;
    if (IsFloat(from)) {
      for (double x : {0.0, -0.0, 1.0, -1.0, 2.75, -3.5, 100.25, 127.0, -128.0, 0.5, 1e-3, -1e-40})
        vals.push_back(FVal(RoundTo(from, x)));
      for (int k = 0; k < 52; ++k)
        vals.push_back(FVal(RoundTo(from, std::uniform_real_distribution<double>(-127, 127)(rng))));
    } else {
      vals = Inputs(from, 64, rng);
    }
    const Host x = HostOf(from, {8, 8}, vals);
    std::vector<unsigned char> buf;
    Tensor tx = WrapWithStrides(x, {1, 8}, &buf);  // transposed storage
    for (bc_dtype to : kAllDtypes) {
      if (to == from) continue;
      SCOPED_TRACE(std::string(ShortName(from)) + " -> " + ShortName(to));
      Host want;
      want.dtype = to;
      want.shape = x.shape;
      for (const Val& v : x.v) want.v.push_back(ConvertVal(v, from, to));
      bc_tensor* out = nullptr;
      ASSERT_EQ(bc_to(tx.get(), to, &out), BC_OK) << bc_last_error();
      Tensor r(out);
      EXPECT_TRUE(bc_tensor_is_contiguous(r.get()));
      EXPECT_NE(bc_tensor_data(r.get()), bc_tensor_data(tx.get()));
      EXPECT_TRUE(SameHost(FromTensor(r.get()), want));
      // bc_copy_ into a tensor of that dtype agrees.
      Tensor c = Zeros(to, x.shape);
      ASSERT_EQ(bc_copy_(c.get(), tx.get()), BC_OK);
      EXPECT_EQ(RawBytes(c.get()), RawBytes(r.get()));
    }
  }
  // NaN and inf into bool: nonzero is true.
  Tensor s = ToTensor(MakeHost(BC_FLOAT32, {3}, {NAN, -INFINITY, -0.0}));
  bc_tensor* out = nullptr;
  ASSERT_EQ(bc_to(s.get(), BC_BOOL, &out), BC_OK);
  Tensor r(out);
  EXPECT_TRUE(SameHost(FromTensor(r.get()), MakeHost(BC_BOOL, {3}, {1, 1, 0})));
  // Empty and 0-dim.
  Tensor e = Zeros(BC_INT8, {0, 3});
  ASSERT_EQ(bc_to(e.get(), BC_FLOAT64, &out), BC_OK);
  Tensor re(out);
  EXPECT_EQ(ShapeOf(re.get()), (Shape{0, 3}));
  EXPECT_EQ(bc_tensor_dtype(re.get()), BC_FLOAT64);
  Tensor z = ToTensor(MakeHost(BC_FLOAT64, {}, {-7.9}));
  ASSERT_EQ(bc_to(z.get(), BC_INT16, &out), BC_OK);
  Tensor rz(out);
  EXPECT_TRUE(SameHost(FromTensor(rz.get()), MakeHost(BC_INT16, {}, {-7})));
}

TEST(UnaryTo, Errors) {
  Tensor x = ToTensor(Iota(BC_FLOAT32, {3}));
  bc_tensor* out = kPoison;
  EXPECT_TRUE(Fails(bc_to(nullptr, BC_FLOAT64, &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
  EXPECT_TRUE(Fails(bc_to(x.get(), BC_FLOAT64, nullptr), BC_ERR_INVALID_ARGUMENT));
}

// ---------------------------------------------------------------------------
// 5. Errors: status, PyTorch's text, nothing written.

class UnaryErrors : public ::testing::Test {
 protected:
  // Checks that every tensor in `ts` still holds its bytes.
  void Snapshot(std::initializer_list<const bc_tensor*> ts) {
    held_.clear();
    for (const bc_tensor* t : ts) held_.emplace_back(t, RawBytes(t));
  }
  void Unchanged() {
    for (const auto& h : held_) EXPECT_EQ(RawBytes(h.first), h.second);
  }
  std::vector<std::pair<const bc_tensor*, std::vector<unsigned char>>> held_;
};

TEST_F(UnaryErrors, NullArguments) {
  Tensor x = ToTensor(Iota(BC_FLOAT32, {3}));
  Tensor o = ToTensor(Iota(BC_FLOAT32, {3}, 5));
  Snapshot({x.get(), o.get()});
  bc_tensor* out = kPoison;
  EXPECT_TRUE(Fails(bc_unary(BC_EXP, nullptr, &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
  EXPECT_TRUE(Fails(bc_unary(BC_EXP, x.get(), nullptr), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Fails(bc_unary_out(BC_EXP, nullptr, o.get()), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Fails(bc_unary_out(BC_EXP, x.get(), nullptr), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Fails(bc_unary_(BC_EXP, nullptr), BC_ERR_INVALID_ARGUMENT));
  out = kPoison;
  EXPECT_TRUE(Fails(bc_unary_ex(BC_ELU, nullptr, nullptr, &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
  EXPECT_TRUE(Fails(bc_unary_ex(BC_ELU, x.get(), nullptr, nullptr), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Fails(bc_unary_ex_out(BC_ELU, x.get(), nullptr, nullptr), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Fails(bc_unary_ex_out(BC_ELU, nullptr, nullptr, o.get()), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Fails(bc_unary_ex_(BC_ELU, nullptr, nullptr), BC_ERR_INVALID_ARGUMENT));
  Unchanged();
}

TEST_F(UnaryErrors, UnknownOp) {
  Tensor x = ToTensor(Iota(BC_FLOAT32, {3}));
  Tensor o = ToTensor(Iota(BC_FLOAT32, {3}, 5));
  Snapshot({x.get(), o.get()});
  // Only values inside the enum's range (0..63 for 55 enumerators): C++ may
  // not hold others in a bc_unary_op (UBSan's enum check). tests/c's
  // test_unknown_ops passes -1 and 1000 from C, where any int is allowed.
  for (int bad : {BC_UNARY_OP_COUNT, 63}) {
    SCOPED_TRACE(bad);
    const bc_unary_op op = static_cast<bc_unary_op>(bad);
    bc_tensor* out = kPoison;
    EXPECT_TRUE(Fails(bc_unary(op, x.get(), &out), BC_ERR_INVALID_ARGUMENT));
    EXPECT_EQ(out, nullptr);
    EXPECT_TRUE(Fails(bc_unary_out(op, x.get(), o.get()), BC_ERR_INVALID_ARGUMENT));
    EXPECT_TRUE(Fails(bc_unary_(op, o.get()), BC_ERR_INVALID_ARGUMENT));
    out = kPoison;
    EXPECT_TRUE(Fails(bc_unary_ex(op, x.get(), nullptr, &out), BC_ERR_INVALID_ARGUMENT));
    EXPECT_EQ(out, nullptr);
    EXPECT_STREQ(bc_unary_op_name(op), "unknown");
  }
  Unchanged();
  EXPECT_STREQ(bc_unary_op_name(BC_LEAKY_RELU), "leaky_relu");
  for (const UnaryInfo& u : kUnary) EXPECT_STREQ(bc_unary_op_name(u.op), u.name);
}

TEST_F(UnaryErrors, PyTorchTexts) {
  Tensor b = ToTensor(MakeHost(BC_BOOL, {3}, {1, 0, 1}));
  Tensor i32 = ToTensor(Iota(BC_INT32, {3}, -1));
  Tensor i64 = ToTensor(Iota(BC_INT64, {3}, -1));
  Tensor f32 = ToTensor(MakeHost(BC_FLOAT32, {3}, {-1, INFINITY, NAN}));
  Tensor f64 = ToTensor(Iota(BC_FLOAT64, {3}, 2));
  Tensor ob = ToTensor(MakeHost(BC_BOOL, {3}, {0, 1, 0}));
  Snapshot({b.get(), i32.get(), i64.get(), f32.get(), f64.get(), ob.get()});
  bc_tensor* out = kPoison;
  EXPECT_TRUE(Fails(bc_unary(BC_NEG, b.get(), &out), BC_ERR_DTYPE,
                    "Negation, the `-` operator, on a bool tensor is not supported. If you are "
                    "trying to invert a mask, use the `~` or `logical_not()` operator instead."));
  EXPECT_EQ(out, nullptr);
  EXPECT_TRUE(Fails(bc_unary_(BC_NEG, b.get()), BC_ERR_DTYPE));
  EXPECT_TRUE(Fails(bc_unary(BC_ABS, b.get(), &out), BC_ERR_DTYPE, "\"abs_cpu\" not implemented for 'Bool'"));
  EXPECT_TRUE(Fails(bc_unary(BC_RELU, b.get(), &out), BC_ERR_DTYPE, "Boolean inputs not supported for relu"));
  EXPECT_TRUE(Fails(bc_unary(BC_FRAC, i32.get(), &out), BC_ERR_DTYPE, "\"frac_cpu\" not implemented for 'Int'"));
  const char kExpLong[] = "result type Float can't be cast to the desired output type Long";
  EXPECT_TRUE(Fails(bc_unary_out(BC_EXP, f32.get(), i64.get()), BC_ERR_DTYPE, kExpLong));
  EXPECT_TRUE(Fails(bc_unary_out(BC_EXP, i32.get(), i64.get()), BC_ERR_DTYPE, kExpLong));
  EXPECT_TRUE(Fails(bc_unary_(BC_EXP, i64.get()), BC_ERR_DTYPE, kExpLong));
  EXPECT_TRUE(Fails(bc_unary_(BC_SQRT, i64.get()), BC_ERR_DTYPE, kExpLong));
  EXPECT_TRUE(Fails(bc_unary_out(BC_NEG, f32.get(), f64.get()), BC_ERR_DTYPE,
                    "Found dtype Double but expected Float"));
  EXPECT_TRUE(Fails(bc_unary_out(BC_NAN_TO_NUM, f32.get(), f64.get()), BC_ERR_DTYPE,
                    "nan_to_num: dtype of out: Double should be same as input: Float"));
  EXPECT_TRUE(Fails(bc_unary_out(BC_ISPOSINF, f32.get(), f64.get()), BC_ERR_DTYPE,
                    "isposinf does not support non-boolean outputs."));
  EXPECT_TRUE(Fails(bc_unary_out(BC_SIGNBIT, f32.get(), f64.get()), BC_ERR_DTYPE,
                    "signbit does not support non-boolean outputs."));
  EXPECT_TRUE(Fails(bc_unary_out(BC_ISNEGINF, i32.get(), f64.get()), BC_ERR_DTYPE,
                    "isneginf does not support non-boolean outputs."));
  bc_unary_params ht = {{2, 1, 0}, 3};
  EXPECT_TRUE(Fails(bc_unary_ex(BC_HARDTANH, f32.get(), &ht, &out), BC_ERR_INVALID_ARGUMENT,
                    "min_val cannot be greater than max_val"));
  EXPECT_EQ(out, nullptr);
  EXPECT_TRUE(Fails(bc_unary_ex_(BC_HARDTANH, f64.get(), &ht), BC_ERR_INVALID_ARGUMENT,
                    "min_val cannot be greater than max_val"));
  bc_unary_params lo_only = {{1.5, 0, 0}, 1};  // min 1.5 > default max 1.0
  EXPECT_TRUE(Fails(bc_unary_ex(BC_HARDTANH, f32.get(), &lo_only, &out), BC_ERR_INVALID_ARGUMENT,
                    "min_val cannot be greater than max_val"));
  bc_unary_params g2 = {{2, 0, 0}, 1};
  EXPECT_TRUE(Fails(bc_unary_ex(BC_GELU, f32.get(), &g2, &out), BC_ERR_INVALID_ARGUMENT,
                    "approximate argument must be either none or tanh."));
  bc_unary_params gneg = {{-1, 0, 0}, 1};
  EXPECT_TRUE(Fails(bc_unary_ex_out(BC_GELU, f32.get(), &gneg, f32.get()), BC_ERR_INVALID_ARGUMENT,
                    "approximate argument must be either none or tanh."));
  Unchanged();
  // The predicates write bool happily.
  ASSERT_EQ(bc_unary_out(BC_ISPOSINF, f32.get(), ob.get()), BC_OK) << bc_last_error();
  EXPECT_TRUE(SameHost(FromTensor(ob.get()), MakeHost(BC_BOOL, {3}, {0, 1, 0})));
}

TEST_F(UnaryErrors, ParamsGivenBeyondTheOpsCount) {
  Tensor f = ToTensor(Iota(BC_FLOAT32, {4}, -1.5));
  Tensor o = ToTensor(Iota(BC_FLOAT32, {4}, 9));
  Snapshot({f.get(), o.get()});
  for (const UnaryInfo& u : kUnary) {
    if (!Accepts(u.op, BC_FLOAT32)) continue;
    SCOPED_TRACE(u.name);
    for (int bit = u.nparams; bit < 32; bit += (bit < 4 ? 1 : 9)) {
      bc_unary_params p = {{0.5, 0.5, 0.5}, 1u << bit};
      bc_tensor* out = kPoison;
      EXPECT_TRUE(Fails(bc_unary_ex(u.op, f.get(), &p, &out), BC_ERR_INVALID_ARGUMENT)) << "bit " << bit;
      EXPECT_EQ(out, nullptr);
      if (ResultOf(u.op, BC_FLOAT32) == BC_FLOAT32) {
        EXPECT_TRUE(Fails(bc_unary_ex_out(u.op, f.get(), &p, o.get()), BC_ERR_INVALID_ARGUMENT));
        EXPECT_TRUE(Fails(bc_unary_ex_(u.op, o.get(), &p), BC_ERR_INVALID_ARGUMENT));
      }
    }
    if (u.nparams > 0) {  // all of its own bits are fine
      bc_unary_params p = {{-1, 1, 0}, (1u << u.nparams) - 1};
      if (u.op == BC_GELU) p.value[0] = 0;
      if (u.op == BC_SOFTPLUS) p.value[0] = 1;
      bc_tensor* out = nullptr;
      EXPECT_EQ(bc_unary_ex(u.op, f.get(), &p, &out), BC_OK) << bc_last_error();
      bc_tensor_free(out);
    }
  }
  Unchanged();
}

TEST_F(UnaryErrors, WrongShapeOut) {
  Tensor x = ToTensor(Iota(BC_FLOAT32, {2, 3}));
  Tensor o1 = ToTensor(Iota(BC_FLOAT32, {3, 2}));
  Tensor o2 = ToTensor(Iota(BC_FLOAT32, {6}));
  Tensor o3 = ToTensor(Iota(BC_FLOAT32, {1, 3}));
  Tensor o4 = ToTensor(Iota(BC_FLOAT32, {2, 2, 3}));
  Tensor ob = ToTensor(MakeHost(BC_BOOL, {3}, {1, 0, 1}));
  Snapshot({x.get(), o1.get(), o2.get(), o3.get(), o4.get(), ob.get()});
  for (bc_tensor* o : {o1.get(), o2.get(), o3.get(), o4.get()}) {
    EXPECT_TRUE(Fails(bc_unary_out(BC_NEG, x.get(), o), BC_ERR_SHAPE_MISMATCH));
    EXPECT_TRUE(Fails(bc_unary_out(BC_EXP, x.get(), o), BC_ERR_SHAPE_MISMATCH));
    EXPECT_TRUE(Fails(bc_unary_ex_out(BC_ELU, x.get(), nullptr, o), BC_ERR_SHAPE_MISMATCH));
  }
  EXPECT_TRUE(Fails(bc_unary_out(BC_ISNAN, x.get(), ob.get()), BC_ERR_SHAPE_MISMATCH));
  Unchanged();
}

const char kInternalOverlap[] =
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation.";
const char kPartialOverlap[] =
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to "
    "a single memory location. Please clone() the tensor before performing the operation.";

TEST_F(UnaryErrors, OverlapAndExactAliasing) {
  alignas(8) float buf[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  const float orig[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  const int64_t shape[] = {4};
  bc_tensor *in = nullptr, *shifted = nullptr, *apart = nullptr;
  ASSERT_EQ(bc_tensor_wrap(BC_FLOAT32, shape, nullptr, 1, buf, 4 * sizeof(float), nullptr, nullptr, &in), BC_OK);
  ASSERT_EQ(bc_tensor_wrap(BC_FLOAT32, shape, nullptr, 1, buf + 1, 4 * sizeof(float), nullptr, nullptr, &shifted), BC_OK);
  ASSERT_EQ(bc_tensor_wrap(BC_FLOAT32, shape, nullptr, 1, buf + 4, 4 * sizeof(float), nullptr, nullptr, &apart), BC_OK);
  Tensor hin(in), hsh(shifted), hap(apart);
  for (bc_unary_op op : {BC_NEG, BC_EXP, BC_SQRT, BC_HARDTANH}) {
    SCOPED_TRACE(Info(op).name);
    EXPECT_TRUE(Fails(bc_unary_out(op, in, shifted), BC_ERR_OVERLAP, kPartialOverlap));
    EXPECT_TRUE(Fails(bc_unary_out(op, shifted, in), BC_ERR_OVERLAP, kPartialOverlap));
    EXPECT_TRUE(Fails(bc_unary_ex_out(op, in, nullptr, shifted), BC_ERR_OVERLAP, kPartialOverlap));
    EXPECT_EQ(std::memcmp(buf, orig, sizeof buf), 0);
  }
  // Predicates write bool: partial overlap through a byte view of the floats.
  const int64_t bshape[] = {4};
  bc_tensor* bytes = nullptr;
  ASSERT_EQ(bc_tensor_wrap(BC_BOOL, bshape, nullptr, 1, reinterpret_cast<unsigned char*>(buf) + 2, 4,
                           nullptr, nullptr, &bytes),
            BC_OK);
  Tensor hb(bytes);
  EXPECT_TRUE(Fails(bc_unary_out(BC_ISNAN, in, bytes), BC_ERR_OVERLAP, kPartialOverlap));
  EXPECT_EQ(std::memcmp(buf, orig, sizeof buf), 0);
  // Disjoint halves of one buffer and exact aliasing are fine.
  ASSERT_EQ(bc_unary_out(BC_NEG, in, apart), BC_OK) << bc_last_error();
  EXPECT_EQ(buf[4], -0.0f);
  EXPECT_EQ(buf[7], -3.0f);
  ASSERT_EQ(bc_unary_out(BC_SQUARE, in, in), BC_OK) << bc_last_error();
  EXPECT_EQ(buf[3], 9.0f);
  EXPECT_EQ(buf[2], 4.0f);
}

TEST_F(UnaryErrors, ExpandedOutIsInternalOverlap) {
  Tensor base = ToTensor(Iota(BC_FLOAT32, {1, 3}, 7));
  const int64_t big[] = {4, 3};
  bc_tensor* e = nullptr;
  ASSERT_EQ(bc_expand(base.get(), big, 2, &e), BC_OK);
  Tensor he(e);
  Tensor x = ToTensor(Iota(BC_FLOAT32, {4, 3}));
  Snapshot({base.get(), x.get()});
  EXPECT_TRUE(Fails(bc_unary_out(BC_NEG, x.get(), e), BC_ERR_OVERLAP, kInternalOverlap));
  EXPECT_TRUE(Fails(bc_unary_out(BC_EXP, x.get(), e), BC_ERR_OVERLAP, kInternalOverlap));
  EXPECT_TRUE(Fails(bc_unary_(BC_ABS, e), BC_ERR_OVERLAP, kInternalOverlap));
  EXPECT_TRUE(Fails(bc_unary_ex_(BC_ELU, e, nullptr), BC_ERR_OVERLAP, kInternalOverlap));
  // A wrapped buffer with stride 0 is the same.
  float wbuf[3] = {1, 2, 3};
  const int64_t wshape[] = {2, 3}, wstrides[] = {0, 1};
  bc_tensor* w = nullptr;
  ASSERT_EQ(bc_tensor_wrap(BC_FLOAT32, wshape, wstrides, 2, wbuf, sizeof wbuf, nullptr, nullptr, &w), BC_OK);
  Tensor hw(w);
  Tensor x23 = ToTensor(Iota(BC_FLOAT32, {2, 3}));
  EXPECT_TRUE(Fails(bc_unary_out(BC_SIN, x23.get(), w), BC_ERR_OVERLAP, kInternalOverlap));
  EXPECT_TRUE(Fails(bc_unary_(BC_SIN, w), BC_ERR_OVERLAP, kInternalOverlap));
  EXPECT_EQ(wbuf[0], 1.0f);
  EXPECT_EQ(wbuf[1], 2.0f);
  EXPECT_EQ(wbuf[2], 3.0f);
  Unchanged();
}

// A read-only tensor (DLPack 1.x with the read-only flag) is read as any
// input but never written.
struct RoProducer {
  float data[6] = {-1, 0, 1, 4, 9, NAN};
  int64_t shape[1] = {6};
  int deletes = 0;
};

TEST_F(UnaryErrors, ReadOnlyOutRefused) {
  RoProducer prod;
  DLManagedTensorVersioned mv;
  std::memset(&mv, 0, sizeof mv);
  mv.version.major = 1;
  mv.flags = DLPACK_FLAG_BITMASK_READ_ONLY;
  mv.manager_ctx = &prod;
  mv.deleter = [](DLManagedTensorVersioned* self) { static_cast<RoProducer*>(self->manager_ctx)->deletes++; };
  mv.dl_tensor.data = prod.data;
  mv.dl_tensor.device.device_type = kDLCPU;
  mv.dl_tensor.ndim = 1;
  mv.dl_tensor.dtype.code = kDLFloat;
  mv.dl_tensor.dtype.bits = 32;
  mv.dl_tensor.dtype.lanes = 1;
  mv.dl_tensor.shape = prod.shape;
  bc_tensor* ro = nullptr;
  ASSERT_EQ(bc_tensor_from_dlpack_versioned(&mv, &ro), BC_OK) << bc_last_error();
  Tensor hro(ro);
  ASSERT_EQ(bc_tensor_is_writable(ro), 0);
  Tensor x = ToTensor(Iota(BC_FLOAT32, {6}));
  const float before[6] = {-1, 0, 1, 4, 9, NAN};
  auto refused = [](bc_status st) {
    return st == BC_ERR_INVALID_ARGUMENT && std::string(bc_last_error()).find("read-only") != std::string::npos;
  };
  EXPECT_TRUE(refused(bc_unary_out(BC_NEG, x.get(), ro))) << bc_last_error();
  EXPECT_TRUE(refused(bc_unary_(BC_SQRT, ro))) << bc_last_error();
  EXPECT_TRUE(refused(bc_unary_ex_(BC_HARDTANH, ro, nullptr))) << bc_last_error();
  EXPECT_TRUE(refused(bc_unary_ex_out(BC_EXP, x.get(), nullptr, ro))) << bc_last_error();
  EXPECT_EQ(std::memcmp(prod.data, before, sizeof before), 0);
  // Reading it is fine, and bc_to of its own dtype is a read-only view.
  bc_tensor* out = nullptr;
  ASSERT_EQ(bc_unary(BC_SQRT, ro, &out), BC_OK) << bc_last_error();
  Tensor r(out);
  EXPECT_TRUE(SameHost(FromTensor(r.get()), MakeHost(BC_FLOAT32, {6}, {NAN, 0, 1, 2, 3, NAN})));
  ASSERT_EQ(bc_to(ro, BC_FLOAT32, &out), BC_OK);
  Tensor v(out);
  EXPECT_EQ(bc_tensor_is_writable(v.get()), 0);
  EXPECT_TRUE(refused(bc_unary_(BC_NEG, v.get())));
  ASSERT_EQ(bc_to(ro, BC_FLOAT64, &out), BC_OK);
  Tensor w(out);
  EXPECT_EQ(bc_tensor_is_writable(w.get()), 1);
  EXPECT_EQ(std::memcmp(prod.data, before, sizeof before), 0);
}


// Predicates into large bool outputs (the executor streams such outputs;
// the row loop then writes 16-byte non-temporal stores after an unaligned
// head): transposed and contiguous float32 and int32 inputs, the output
// starting one byte into its buffer. Every byte against a naive loop, and
// the byte before the output untouched.
TEST(UnaryLayout, LargePredicateOutputs) {
  const int64_t R = 1531, C = 2749;  // 4.2M elements: 16.8 MB of input
  std::vector<float> f(static_cast<size_t>(R * C));
  std::vector<int32_t> iv(f.size());
  std::vector<double> dv(f.size());
  std::mt19937 rng(77);
  for (size_t k = 0; k < f.size(); ++k) {
    const uint32_t u = rng();
    f[k] = (u % 97 == 0) ? NAN : (u % 2 ? -1.0f : 1.0f) * static_cast<float>(u % 1000);
    iv[k] = (u % 3 == 0) ? -static_cast<int32_t>(u % 1000) : static_cast<int32_t>(u % 1000);
    dv[k] = (u % 89 == 0) ? NAN : static_cast<double>(f[k]);
  }
  const int64_t shape[2] = {R, C};
  const int64_t tstrides[2] = {1, R};  // column-major storage: a transposed view
  for (bool transposed : {true, false}) {
    for (bc_dtype d : {BC_FLOAT32, BC_INT32, BC_FLOAT64}) {  // 16 or 2 x 8 bytes a store
      SCOPED_TRACE(std::string(transposed ? "transposed " : "contiguous ") + ShortName(d));
      void* data = d == BC_FLOAT32 ? static_cast<void*>(f.data())
                   : d == BC_INT32 ? static_cast<void*>(iv.data())
                                   : static_cast<void*>(dv.data());
      bc_tensor* x = nullptr;
      ASSERT_EQ(bc_tensor_wrap(d, shape, transposed ? tstrides : nullptr, 2, data,
                               f.size() * ElemSize(d), nullptr, nullptr, &x),
                BC_OK)
          << bc_last_error();
      Tensor tx(x);
      std::vector<unsigned char> buf(f.size() + 1, 0xA5);
      bc_tensor* o = nullptr;
      ASSERT_EQ(bc_tensor_wrap(BC_BOOL, shape, nullptr, 2, buf.data() + 1, f.size(), nullptr,
                               nullptr, &o),
                BC_OK)
          << bc_last_error();
      Tensor to(o);
      const bc_unary_op op = d == BC_INT32 ? BC_SIGNBIT : BC_ISNAN;
      ASSERT_EQ(bc_unary_out(op, tx.get(), to.get()), BC_OK) << bc_last_error();
      EXPECT_EQ(buf[0], 0xA5);
      int64_t bad = 0;
      for (int64_t r = 0; r < R; ++r) {
        for (int64_t c = 0; c < C; ++c) {
          const size_t k = static_cast<size_t>(transposed ? r + c * R : r * C + c);
          const bool want = d == BC_FLOAT32 ? std::isnan(f[k])
                            : d == BC_INT32   ? iv[k] < 0
                                              : std::isnan(dv[k]);
          bad += buf[static_cast<size_t>(1 + r * C + c)] != (want ? 1 : 0);
        }
      }
      EXPECT_EQ(bad, 0);
    }
  }
}


// A converted input read transposed (float16 and bfloat16 predicates run on
// float32): the executor takes it in bands of columns, row after row;
// several bands and a partial one here. Every byte against the bits.
TEST(UnaryLayout, TransposedHalfPredicatesInBands) {
  const int64_t R = 300, C = 700;
  std::vector<uint16_t> h(static_cast<size_t>(R * C));
  std::mt19937 rng(78);
  for (auto& v : h) v = static_cast<uint16_t>(rng());
  const int64_t shape[2] = {R, C};
  const int64_t tstrides[2] = {1, R};
  for (bc_dtype d : {BC_FLOAT16, BC_BFLOAT16}) {
    SCOPED_TRACE(ShortName(d));
    const uint16_t exp = d == BC_FLOAT16 ? 0x7c00 : 0x7f80;
    bc_tensor* x = nullptr;
    ASSERT_EQ(bc_tensor_wrap(d, shape, tstrides, 2, h.data(), h.size() * 2, nullptr, nullptr, &x),
              BC_OK)
        << bc_last_error();
    Tensor tx(x);
    bc_tensor* out = nullptr;
    ASSERT_EQ(bc_unary(BC_ISNAN, tx.get(), &out), BC_OK) << bc_last_error();
    Tensor to(out);
    const unsigned char* got = static_cast<const unsigned char*>(bc_tensor_data(to.get()));
    int64_t bad = 0;
    for (int64_t r = 0; r < R; ++r) {
      for (int64_t c = 0; c < C; ++c) {
        const uint16_t v = h[static_cast<size_t>(r + c * R)];
        const bool want = (v & exp) == exp && (v & ~exp & 0x7fff) != 0;
        bad += got[r * C + c] != (want ? 1 : 0);
      }
    }
    EXPECT_EQ(bad, 0);
  }
}

}  // namespace
}  // namespace bct
