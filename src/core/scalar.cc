#include "core/scalar.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "core/compat.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/op_info.h"
#include "core/overlap.h"
#include "core/result_type.h"
#include "core/shape.h"
#include "core/types.h"
#include "kernels/kernels.h"

namespace bcast {

void CheckScalarKind(const bc_scalar& s, const char* what) {
  int k;
  std::memcpy(&k, &s.kind, sizeof k);
  if (k != BC_SCALAR_BOOL && k != BC_SCALAR_INT && k != BC_SCALAR_FLOAT)
    Fail(BC_ERR_INVALID_ARGUMENT,
         std::string(what) + " has unknown scalar kind " + std::to_string(k));
}

namespace {

// The dtype and bytes of a wrapped number: Python's bool, int, float.
bc_dtype StoreScalar(const bc_scalar& s, unsigned char* bytes) {
  switch (s.kind) {
    case BC_SCALAR_BOOL: bytes[0] = s.v.b != 0; return BC_BOOL;
    case BC_SCALAR_INT: std::memcpy(bytes, &s.v.i, 8); return BC_INT64;
    default: std::memcpy(bytes, &s.v.f, 8); return BC_FLOAT64;
  }
}

}  // namespace

StackScalar::StackScalar(const bc_scalar& s) {
  storage_.data = value_;
  storage_.nbytes = sizeof value_;
  t_.storage = &storage_;
  t_.data = reinterpret_cast<char*>(value_);
  t_.dtype = StoreScalar(s, value_);
  t_.wrapped_number = true;
}

bc_tensor* NewWrappedScalar(const bc_scalar& s) {
  unsigned char bytes[8] = {};
  const bc_dtype d = StoreScalar(s, bytes);
  bc_tensor* t = NewTensor(d, Shape{});
  std::memcpy(t->data, bytes, DtypeSize(d));
  t->wrapped_number = true;
  return t;
}

namespace {

// A wrapped number's bc_scalar (a bool as the int 0 or 1).
bc_scalar ScalarOf(const bc_tensor& t) {
  if (t.dtype == BC_FLOAT64) {
    double f;
    std::memcpy(&f, t.data, sizeof f);
    return bc_scalar_float(f);
  }
  if (t.dtype == BC_BOOL) return bc_scalar_int(t.data[0] != 0);
  int64_t i;
  std::memcpy(&i, t.data, sizeof i);
  return bc_scalar_int(i);
}

}  // namespace

double WrappedValue(const bc_tensor& t) {
  return VisitDtype(t.dtype, [&](auto v) {
    using T = decltype(v);
    T x;
    std::memcpy(&x, t.data, sizeof x);
    return Convert<double>(x);
  });
}

namespace {

bc_tensor* Copy(const bc_ctx& ctx, const bc_tensor& src, bc_tensor* dst) {
  OpArgs c;
  c.ctx = &ctx;
  c.op = kCopy;
  c.nin = 1;
  c.in[0] = &src;
  return RunElementwise(c, dst, false);
}

bc_tensor* Binary(const bc_ctx& ctx, int op, const bc_tensor& x, const bc_tensor& y,
                  bc_tensor* out, bool inplace) {
  OpArgs b;
  b.ctx = &ctx;
  b.op = op;
  b.nin = 2;
  b.in[0] = &x;
  b.in[1] = &y;
  return RunElementwise(b, out, inplace);
}

// src broadcast into `out`, or into a new tensor of dtype `common` and shape
// `shape` (converted to the destination's dtype).
bc_tensor* CopyToResult(const bc_ctx& ctx, const bc_tensor& src, bc_tensor* out, bc_dtype common,
                        const Shape& shape) {
  if (out != nullptr) return Copy(ctx, src, out);
  TensorGuard r(NewTensor(common, shape));
  Copy(ctx, src, r.t);
  return r.release();
}

// The checks PyTorch's TensorIterator makes of out= for a unary op of
// result dtype `common` over x (overlaps, shape, castability).
void CheckUnaryOut(const OpArgs& a, const bc_tensor& out, bool inplace, bc_dtype common) {
  if (HasInternalOverlap(out)) FailInternalOverlap();
  CheckOverlap(out, *a.in[0]);
  const OperandBroadcast b = BroadcastOperands(a, &out);
  CheckOutShape(a, out, inplace, b);
  if (!CanCast(common, out.dtype))
    Fail(BC_ERR_DTYPE, std::string("result type ") + DtypeName(common) +
                           " can't be cast to the desired output type " + DtypeName(out.dtype));
}

// x converted to `common` (x itself when it has that dtype).
const bc_tensor* Converted(const bc_ctx& ctx, const bc_tensor& x, bc_dtype common, TensorGuard* keep) {
  if (x.dtype == common) return &x;
  keep->t = NewTensor(common, ShapeOf(x));
  Copy(ctx, x, keep->t);
  return keep->t;
}

// f(x) elementwise, computed in float32 for float32 and bfloat16 (rounded
// once to bfloat16), in float64 for float64: PyTorch's sqrt, rsqrt and
// reciprocal kernels, whose vector forms are exact IEEE operations.
template <class F>
bc_tensor* MapFloat(const bc_ctx& ctx, const bc_tensor& x, bc_dtype common, bc_tensor* out, F f) {
  TensorGuard r(NewTensor(common, ShapeOf(x)));
  Copy(ctx, x, r.t);
  const int64_t n = Numel(*r.t);
  if (common == BC_FLOAT64) {
    double* p = reinterpret_cast<double*>(r.t->data);
    for (int64_t i = 0; i < n; ++i) p[i] = f(p[i]);
  } else if (common == BC_FLOAT32) {
    float* p = reinterpret_cast<float*>(r.t->data);
    for (int64_t i = 0; i < n; ++i) p[i] = f(p[i]);
  } else {
    uint16_t* p = reinterpret_cast<uint16_t*>(r.t->data);
    for (int64_t i = 0; i < n; ++i) p[i] = F32ToBF16(f(BF16ToF32(p[i])));
  }
  if (out == nullptr) return r.release();
  return Copy(ctx, *r.t, out);
}

bool IsIntegralOrBool(bc_dtype d) { return !IsFloating(d); }

}  // namespace

bc_tensor* RunPowScalar(const OpArgs& a, bc_tensor* out, bool inplace) {
  const bc_tensor& x = *a.in[0];
  const bc_tensor& s = *a.in[1];
  const bc_ctx& ctx = *a.ctx;
  if (x.wrapped_number && !s.wrapped_number) {
    // pow(Scalar, Tensor): a base of 1 gives ones, whatever out='s dtype
    // (a bool True is not 1 to Scalar::equal).
    if (x.dtype == BC_BOOL || WrappedValue(x) != 1) return nullptr;
    const StackScalar one(bc_scalar_int(1));
    return CopyToResult(ctx, *one.get(), out, ResultTypeOf(a.in, 2, nullptr, 0), ShapeOf(s));
  }
  if (!s.wrapped_number || x.wrapped_number) return nullptr;

  const double e = WrappedValue(s);
  if (IsIntegralOrBool(x.dtype) && s.dtype == BC_INT64 && e < 0)
    Fail(BC_ERR_INVALID_ARGUMENT, "Integers to negative integer powers are not allowed.");
  const bc_dtype common = ResultTypeOf(a.in, 2, nullptr, 0);
  if (out != nullptr) CheckUnaryOut(a, *out, inplace, common);

  if (e == 0) {  // ones, NaN or not
    const StackScalar one(bc_scalar_int(1));
    return CopyToResult(ctx, *one.get(), out, common, ShapeOf(x));
  }
  if (e == 1) return CopyToResult(ctx, x, out, common, ShapeOf(x));
  // Half and integer kernels convert the exponent with c10::checked_convert.
  if (IsHalf(common) || IsIntegral(common)) CheckScalarRange(common, e);
  const bool specialised = common == BC_FLOAT32 || common == BC_FLOAT64 || common == BC_BFLOAT16;
  if (specialised) {
    // PyTorch compares the exponent unrounded here.
    if (e == 0.5) return MapFloat(ctx, x, common, out, [](auto v) { return std::sqrt(v); });
    if (e == -0.5)
      return MapFloat(ctx, x, common, out, [](auto v) { return decltype(v)(1) / std::sqrt(v); });
    if (e == -1) return MapFloat(ctx, x, common, out, [](auto v) { return decltype(v)(1) / v; });
    // ... and here, on bfloat16, the exponent rounded to bfloat16.
    const double r = common == BC_BFLOAT16 ? Convert<double>(Convert<bf16>(e)) : e;
    if (r == 2 || r == 3 || r == -2) {
      TensorGuard keep, square;
      const bc_tensor* xc = Converted(ctx, x, common, &keep);
      if (r == 2) return Binary(ctx, BC_MUL, *xc, *xc, out, inplace);
      square.t = Binary(ctx, BC_MUL, *xc, *xc, nullptr, false);
      if (r == 3) return Binary(ctx, BC_MUL, *square.t, *xc, out, inplace);
      const StackScalar one(bc_scalar_int(1));
      return Binary(ctx, BC_DIV, *one.get(), *square.t, out, inplace);
    }
  }
  // pow(x, e), e converted to the common dtype on the general path.
  return nullptr;
}

bc_tensor* RunClampScalar(const bc_ctx& ctx, const bc_tensor* x, const bc_tensor* lo,
                          const bc_tensor* hi, bc_tensor* out, bool inplace) {
  if (x == nullptr) Fail(BC_ERR_INVALID_ARGUMENT, "tensor argument is NULL");
  const bc_tensor* ts[3] = {x, lo != nullptr ? lo : hi, hi};
  const int n = lo != nullptr && hi != nullptr ? 3 : 2;
  const bc_dtype common = IsFloating(x->dtype) ? x->dtype : ResultTypeOf(ts, n, nullptr, 0);
  // PyTorch's clamp meta function: the in-place promotion check (self's
  // dtype printed as its C++ type), then build_unary_op's checks: overlaps,
  // then the out dtype, which must be the result dtype exactly; then the
  // out shape (the general path).
  if (inplace && common != x->dtype)
    Fail(BC_ERR_DTYPE, std::string("result type ") + DtypeName(common) +
                           " can't be cast to the desired output type " + CppTypeName(x->dtype));
  if (out != nullptr && !inplace) {
    if (HasInternalOverlap(*out)) FailInternalOverlap();
    CheckOverlap(*out, *x);
    if (out->dtype != common)
      Fail(BC_ERR_DTYPE, std::string("Found dtype ") + DtypeName(out->dtype) + " but expected " +
                             DtypeName(common));
  }
  // clamp_out: with both bounds and either NaN the result is NaN, filled
  // before either bound's range is checked (clamp(f32 x, nan, 1e300)). One
  // NaN bound alone propagates through maximum/minimum.
  if (lo != nullptr && hi != nullptr) {
    const double vlo = WrappedValue(*lo), vhi = WrappedValue(*hi);
    if (std::isnan(vlo) || std::isnan(vhi)) {
      const StackScalar nan(bc_scalar_float(std::numeric_limits<double>::quiet_NaN()));
      return Binary(ctx, BC_MAXIMUM, *x, *nan.get(), out, inplace);
    }
  }
  if (common == BC_BOOL)
    Fail(BC_ERR_DTYPE, std::string("\"") +
                           (n == 3 ? "clamp_scalar_cpu" : lo ? "clamp_min_scalar_cpu"
                                                             : "clamp_max_scalar_cpu") +
                           "\" not implemented for 'Bool'");
  // A bound beyond an integer dtype's range: past the side it limits is an
  // error, past the other side it limits nothing (and is taken as the
  // dtype's extreme, not converted with wrap-around).
  bc_scalar bound[2];
  const bc_tensor* given[2] = {lo, hi};
  for (int i = 0; i < 2; ++i) {
    if (given[i] == nullptr) continue;
    const double v = WrappedValue(*given[i]);
    bound[i] = ScalarOf(*given[i]);
    if (IsIntegral(common) && common != BC_INT64) {
      const int64_t bits = 8 * static_cast<int64_t>(DtypeSize(common));
      const int64_t mn = common == BC_UINT8 ? 0 : -(int64_t{1} << (bits - 1));
      const int64_t mx = common == BC_UINT8 ? 255 : (int64_t{1} << (bits - 1)) - 1;
      const int64_t b = bound[i].v.i;
      if ((i == 0 && b > mx) || (i == 1 && b < mn))
        Fail(BC_ERR_INVALID_ARGUMENT, std::string("Clamp ") + (i == 0 ? "min" : "max") +
                                          " value " + std::to_string(b) +
                                          " is outside the representable range of " +
                                          DtypeName(common));
      bound[i].v.i = b < mn ? mn : b > mx ? mx : b;
    } else if (IsFloating(common)) {
      CheckScalarRange(common, v);
    }
  }
  const StackScalar slo(lo ? bound[0] : bc_scalar_int(0)), shi(hi ? bound[1] : bc_scalar_int(0));
  if (hi == nullptr) return Binary(ctx, BC_MAXIMUM, *x, *slo.get(), out, inplace);
  if (lo == nullptr) return Binary(ctx, BC_MINIMUM, *x, *shi.get(), out, inplace);
  OpArgs c;
  c.ctx = &ctx;
  c.op = kClamp;
  c.nin = 3;
  c.in[0] = x;
  c.in[1] = slo.get();
  c.in[2] = shi.get();
  return RunElementwise(c, out, inplace);
}

}  // namespace bcast
