#include "core/types.h"

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "core/dtype.h"
#include "core/error.h"
#include "core/result_type.h"
#include "core/op_info.h"
#include "core/op_rules.h"
#include "core/context.h"

namespace bcast {

bc_dtype ResultType(const bc_tensor* const* ts, int n) {
  return ResultTypeOf(ts, static_cast<size_t>(n), nullptr, 0);
}

bc_dtype ComputeType(bc_dtype d) { return IsHalf(d) ? BC_FLOAT32 : d; }

namespace {

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

bool IsIntDivision(int op) { return RulesOf(op).divides; }

void PreCheck(const OpArgs& a, const bc_tensor* out) {
  if (const auto f = RulesOf(a.op).pre_check) f(a, out);
}

Types ResolveTypes(const OpArgs& a, const bc_tensor* out) {
  const OpRules& rules = RulesOf(a.op);
  if (Types t; rules.resolve != nullptr && rules.resolve(a, out, &t)) return t;
  const OpInfo& info = InfoOf(a.op);
  bool exact_out = false;  // PyTorch's check_all_same_dtype
  bc_dtype common = rules.common != nullptr ? rules.common(a, &exact_out) : ResultType(a.in, a.nin);
  if (info.promotion == kToFloat && !IsFloating(common)) common = BC_FLOAT32;
  const bc_dtype result = common;
  if (out != nullptr && !rules.checks_out_dtype) {
    if (exact_out && out->dtype != result)
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
    const char* kernel = rules.kernel_name != nullptr ? rules.kernel_name(a) : nullptr;
    Fail(BC_ERR_DTYPE, std::string("\"") + (kernel != nullptr ? kernel : info.kernel) +
                           "\" not implemented for '" + DtypeName(common) + "'");
  }
  // The kernel converts alpha to its scalar type.
  if (info.alpha && a.has_alpha) CheckScalarRange(common, a.scalar);
  if (rules.check_range != nullptr) rules.check_range(a, common);
  switch (info.promotion) {
    // Logical ops, like comparisons, read the operands cast to their common
    // dtype (PyTorch 2.x: logical_and(f16 1, f64 0-dim 1e-10) is false).
    // Unary predicates (isnan, signbit, logical_not, ...) read the halves'
    // bits as they are; comparisons of two operands widen them.
    case kCompare:
    case kLogical:
      return {info.nin == 1 && IsHalf(common) ? common : ComputeType(common), BC_BOOL, BC_BOOL, common};
    default: return {ComputeType(common), ComputeType(common), result, common};
  }
}

}  // namespace bcast
