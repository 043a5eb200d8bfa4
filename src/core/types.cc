#include "core/types.h"

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "core/dtype.h"
#include "core/error.h"
#include "core/result_type.h"
#include "core/op_info.h"
#include "core/context.h"

namespace bcast {

namespace {

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

// A double alpha/value stands for a Python int when it is integral and fits
// int64 (as a C caller of an integral op means it), for a Python float otherwise.
bool IsIntegralNumber(double v) {
  return std::trunc(v) == v && v >= -0x1p63 && v < 0x1p63;
}

// PyTorch's alpha_check: an integral result takes only an integral alpha.
void CheckIntegralScalar(bc_dtype d, double v, const char* what) {
  if (IsFloating(d) || IsIntegralNumber(v)) return;
  Fail(BC_ERR_INVALID_ARGUMENT, std::string("For integral input tensors, argument ") + what +
                                    " must not be a floating point number.");
}

}  // namespace

// c10::checked_convert of a Python number (int when v is integral) to d.
void CheckScalarRange(bc_dtype d, double v) {
  const bool overflow = VisitDtype(d, [v](auto t) {
    using T = decltype(t);
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, double>) {
      return false;
    } else if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16> ||
                         std::is_same_v<T, float>) {
      // The largest finite value; infinities and NaN convert.
      const double max = std::is_same_v<T, f16>    ? 65504.0
                         : std::is_same_v<T, bf16> ? 0x1.FEp127
                                                   : double{std::numeric_limits<float>::max()};
      return std::isfinite(v) && std::fabs(v) > max;
    } else {
      const double lo = static_cast<double>(std::numeric_limits<T>::lowest());
      const double hi = static_cast<double>(std::numeric_limits<T>::max());
      // int64's max rounds up to 2^63 as a double, which int64 cannot hold.
      const bool past_hi = sizeof(T) == 8 ? v >= hi : v > hi;
      // An int converts to an unsigned type without overflow down to -max
      // (c10's non-strict unsigned rule: it wraps); a float must fit.
      if (IsIntegralNumber(v))
        return past_hi || v < (std::is_unsigned_v<T> ? -hi : lo);
      return past_hi || !(v >= lo && v <= hi);
    }
  });
  if (overflow)
    Fail(BC_ERR_INVALID_ARGUMENT, std::string("value cannot be converted to type ") +
                                      CheckedTypeName(d) + " without overflow");
}

namespace {

const char kWhereUint8[] =
    "where received a uint8 condition tensor. This behavior is deprecated and will be removed "
    "in a future version of PyTorch. Use a boolean condition instead.";

}  // namespace

void PreCheck(const OpArgs& a, const bc_tensor* out) {
  const int op = a.op;
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
  if (op == kWhere) {
    // where_self_out: the out dtype, the deprecated uint8 condition (warned
    // before anything else can fail, as PyTorch does), the condition's dtype.
    const bc_dtype r = ResultType(a.in + 1, 2);
    if (out != nullptr && out->dtype != r)
      Fail(BC_ERR_DTYPE, std::string("Expected out type to be ") + DtypeName(r) + " but got " +
                             DtypeName(out->dtype));
    if (a.in[0]->dtype == BC_UINT8) Warn(*a.ctx, kWhereUint8);
    else if (a.in[0]->dtype != BC_BOOL)
      Fail(BC_ERR_DTYPE, std::string("where expected condition to be a boolean tensor, but got "
                                     "a tensor with dtype ") +
                             DtypeName(a.in[0]->dtype));
  }
  if (op == kLerp) {
    // A 0-dim weight is promoted with the others (PyTorch 2.x); end and a
    // dimensioned weight must have self's dtype.
    const char* names[3] = {"self", "end", "weight"};
    for (int i = 1; i < 3; ++i) {
      if (i == 2 && a.in[2]->ndim == 0) continue;
      if (a.in[i]->dtype != a.in[0]->dtype)
        Fail(BC_ERR_DTYPE, std::string("expected dtype ") + CppTypeName(a.in[0]->dtype) +
                               " for `" + names[i] + "` but got dtype " +
                               CppTypeName(a.in[i]->dtype));
    }
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
}

Types ResolveTypes(const OpArgs& a, const bc_tensor* out) {
  const int op = a.op;
  if (op == kCopy) {
    const bc_dtype d = ComputeType(out->dtype);
    return {d, d, out->dtype, out->dtype};
  }
  const OpInfo& info = InfoOf(op);
  bc_dtype common;
  bool same_dtype_out = false;  // PyTorch's check_all_same_dtype
  if (op == kWhere) {
    common = ResultType(a.in + 1, 2);
  } else if (op == kLerp && a.in[2]->wrapped_number) {
    common = ResultType(a.in, 2);  // lerp.Scalar: a binary op over self and end
  } else if (op == kLerp && a.in[2]->ndim > 0) {
    common = a.in[0]->dtype;
    same_dtype_out = true;
  } else {
    common = ResultType(a.in, a.nin);
  }
  if (info.promotion == kToFloat && !IsFloating(common)) common = BC_FLOAT32;
  const bc_dtype result = common;
  if (out != nullptr && op != kWhere) {
    if (same_dtype_out && out->dtype != result)
      Fail(BC_ERR_DTYPE, std::string("Found dtype ") + DtypeName(out->dtype) + " but expected " +
                             DtypeName(result));
    if (info.promotion != kCompare && info.promotion != kLogical && !CanCast(result, out->dtype))
      Fail(BC_ERR_DTYPE, std::string("result type ") + DtypeName(result) +
                             " can't be cast to the desired output type " +
                             DtypeName(out->dtype));
  }
  // alpha_check runs on the common dtype (whatever out='s), before the
  // kernel's dtype dispatch.
  if (info.alpha && a.has_alpha) CheckIntegralScalar(result, a.scalar, "alpha");
  if (!InDtypeSet(info.dtypes, common)) {
    // lerp with a number weight is PyTorch's lerp.Scalar, another kernel.
    if (op == kLerp && a.in[2]->wrapped_number)
      Fail(BC_ERR_DTYPE,
           std::string("\"lerp_kernel_scalar\" not implemented for '") + DtypeName(common) + "'");
    NotImplemented(op, common);
  }
  // The kernel converts alpha/value to its scalar type (addcmul and addcdiv
  // on halves: to float, their arithmetic type).
  if (info.alpha && a.has_alpha) CheckScalarRange(common, a.scalar);
  if (op == kAddcmul || op == kAddcdiv) CheckScalarRange(ComputeType(common), a.scalar);
  switch (info.promotion) {
    // Logical ops, like comparisons, read the operands cast to their common
    // dtype (PyTorch 2.x: logical_and(f16 1, f64 0-dim 1e-10) is false).
    case kCompare:
    case kLogical: return {ComputeType(common), BC_BOOL, BC_BOOL, common};
    default: return {ComputeType(common), ComputeType(common), result, common};
  }
}

}  // namespace bcast
