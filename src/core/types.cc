#include "core/types.h"

#include <cmath>
#include <string>

#include "core/dtype.h"
#include "core/error.h"
#include "core/result_type.h"
#include "core/op_info.h"

namespace bcast {

namespace {

// Dtype names as PyTorch's TypeMeta prints them (lerp's message uses these).
const char* CppTypeName(bc_dtype d) {
  static const char* const kName[kNumDtypes] = {
      "bool", "unsigned char", "signed char", "short int", "int", "long int",
      "c10::Half", "c10::BFloat16", "float", "double"};
  return ValidDtype(d) ? kName[d] : "unknown";
}

[[noreturn]] void NotImplemented(int op, bc_dtype d) {
  Fail(BC_ERR_DTYPE,
       std::string("\"") + InfoOf(op).kernel + "\" not implemented for '" + DtypeName(d) + "'");
}

// torch.result_type: dimensioned operands first; 0-dim ones only when they
// are of a higher category (bool < integer < floating).
bc_dtype ResultType(const bc_tensor* const* ts, int n) {
  return ResultTypeOf(ts, static_cast<size_t>(n), nullptr, 0);
}

bc_dtype ComputeType(bc_dtype d) { return IsHalf(d) ? BC_FLOAT32 : d; }

void CheckIntegralScalar(bc_dtype common, double v, const char* what) {
  if (IsFloating(common)) return;
  if (!(std::trunc(v) == v) || std::fabs(v) > 9.2e18) {
    Fail(BC_ERR_INVALID_ARGUMENT, std::string("For integral input tensors, argument ") + what +
                                      " must not be a floating point number.");
  }
}

}  // namespace

Types ResolveTypes(const OpArgs& a, const bc_tensor* out) {
  const int op = a.op;
  if (op == kCopy) {
    const bc_dtype d = ComputeType(out->dtype);
    return {d, d, out->dtype, out->dtype};
  }
  if (op == kWhere) {
    if (a.in[0]->dtype != BC_BOOL)
      Fail(BC_ERR_DTYPE, std::string("where expected condition to be a boolean tensor, but got "
                                     "a tensor with dtype ") +
                             DtypeName(a.in[0]->dtype));
    const bc_dtype c = ResultType(a.in + 1, 2);
    return {ComputeType(c), ComputeType(c), c, c};
  }
  if (op == kLerp) {
    const char* names[3] = {"self", "end", "weight"};
    for (int i = 1; i < 3; ++i) {
      if (a.in[i]->dtype != a.in[0]->dtype)
        Fail(BC_ERR_DTYPE, std::string("expected dtype ") + CppTypeName(a.in[0]->dtype) +
                               " for `" + names[i] + "` but got dtype " +
                               CppTypeName(a.in[i]->dtype));
    }
    if (!IsFloating(a.in[0]->dtype)) NotImplemented(op, a.in[0]->dtype);
  }
  if (op == kAddcdiv && !IsFloating(a.in[1]->dtype) && !IsFloating(a.in[2]->dtype)) {
    Fail(BC_ERR_DTYPE,
         "Integer division with addcdiv is no longer supported, and in a future  release "
         "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
         "behavior can be implemented as (input + value * torch.trunc(tensor1 / "
         "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
         "tensor2) for float inputs. The future addcdiv behavior is just the latter "
         "implementation: (input + value * tensor1 / tensor2), for all dtypes.");
  }
  const OpInfo& info = InfoOf(op);
  bc_dtype common = ResultType(a.in, a.nin);
  if (op == BC_SUB) {
    if (a.in[0]->dtype == BC_BOOL && a.in[1]->dtype == BC_BOOL)
      Fail(BC_ERR_DTYPE,
           "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
           "`^` or `logical_xor()` operator instead.");
    if (a.in[0]->dtype == BC_BOOL || a.in[1]->dtype == BC_BOOL)
      Fail(BC_ERR_DTYPE,
           "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
           "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  }
  if (info.alpha && a.has_alpha) {
    CheckIntegralScalar(common, a.scalar, "alpha");
    if (common == BC_BOOL && a.scalar != 0 && a.scalar != 1)
      Fail(BC_ERR_INVALID_ARGUMENT, "Boolean alpha only supported for Boolean results.");
  }
  if (info.promotion == kToFloat && !IsFloating(common)) common = BC_FLOAT32;
  if (!InDtypeSet(info.dtypes, common)) NotImplemented(op, common);
  // Like PyTorch, an integral addcmul truncates a fractional value, but
  // refuses one that no int64 holds.
  if (op == kAddcmul && !IsFloating(common) &&
      !(a.scalar >= -9223372036854775808.0 && a.scalar < 9223372036854775808.0))
    Fail(BC_ERR_INVALID_ARGUMENT, "value cannot be converted to type int64_t without overflow");
  switch (info.promotion) {
    // Logical ops, like comparisons, read the operands cast to their common
    // dtype (PyTorch 2.x: logical_and(f16 1, f64 0-dim 1e-10) is false).
    case kCompare:
    case kLogical: return {ComputeType(common), BC_BOOL, BC_BOOL, common};
    default: return {ComputeType(common), ComputeType(common), common, common};
  }
}

}  // namespace bcast
