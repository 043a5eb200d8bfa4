// Scalar operands: a bc_scalar becomes what PyTorch makes of a Python number,
// a 0-dim int64, float64 or bool tensor flagged as a wrapped number (weakest
// tier of type promotion, see result_type.h). The ops that PyTorch runs on
// its own path when an operand is a number (pow with a number exponent or
// base, clamp with number bounds) are here; the others need nothing beyond
// the flag.
#ifndef BCAST_CORE_SCALAR_H_
#define BCAST_CORE_SCALAR_H_

#include "core/ops.h"
#include "core/tensor.h"

namespace bcast {

// Throws BC_ERR_INVALID_ARGUMENT unless s.kind is one of bc_scalar_kind's
// values (read through its bytes: a C caller may pass any int).
void CheckScalarKind(const bc_scalar& s, const char* what);

// A wrapped number on the stack: an operand for the duration of one call,
// allocating nothing. Not copyable: the tensor points into the object.
class StackScalar {
 public:
  explicit StackScalar(const bc_scalar& s);  // kind already checked
  StackScalar(const StackScalar&) = delete;
  StackScalar& operator=(const StackScalar&) = delete;
  const bc_tensor* get() const { return &t_; }

 private:
  Storage storage_;
  bc_tensor t_{bc_tensor::SizesUnset{}};
  alignas(8) unsigned char value_[8] = {};
};

// A new wrapped-number tensor holding s (kind already checked).
bc_tensor* NewWrappedScalar(const bc_scalar& s);

// The value of a wrapped number (int64, float64 or bool) as a double.
double WrappedValue(const bc_tensor& t);

// pow with a wrapped exponent (PyTorch's pow(Tensor, Scalar): 0 gives ones,
// 1 a copy, and sqrt, rsqrt, reciprocal and products for 0.5, -0.5, -1, 2, 3
// and -2 on the dtypes PyTorch specialises) or a wrapped base of 1
// (pow(Scalar, Tensor): ones). Returns nullptr, having done nothing, when
// the general path computes the op; else what RunElementwise returns.
bc_tensor* RunPowScalar(const OpArgs& a, bc_tensor* out, bool inplace);

// clamp with wrapped bounds (lo or hi may be null, not both): PyTorch's
// clamp(Tensor, Scalar?, Scalar?) checks, then the clamp/maximum/minimum kernels.
bc_tensor* RunClampScalar(const bc_ctx& ctx, const bc_tensor* x, const bc_tensor* lo,
                          const bc_tensor* hi, bc_tensor* out, bool inplace);

}  // namespace bcast

#endif  // BCAST_CORE_SCALAR_H_
