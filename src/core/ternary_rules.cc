// The ternary ops' own rules (see core/op_rules.h): where, lerp, addcmul,
// addcdiv. (clamp has none beyond the table; clamp with number bounds is
// PyTorch's scalar overload, in core/scalar.cc.)
#include <string>

#include "core/context.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/op_rules.h"
#include "kernels/kernels.h"

namespace bcast {

namespace {

const char kWhereUint8[] =
    "where received a uint8 condition tensor. This behavior is deprecated and will be removed "
    "in a future version of PyTorch. Use a boolean condition instead.";

// where_self_out: the out dtype, the deprecated uint8 condition (warned
// before anything else can fail, as PyTorch does), the condition's dtype.
void WherePreCheck(const OpArgs& a, const bc_tensor* out) {
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

// where's values are its second and third operands.
bc_dtype WhereCommon(const OpArgs& a, bool* /*exact_out*/) { return ResultType(a.in + 1, 2); }

// lerp: a 0-dim weight is promoted with the others (PyTorch 2.x); end and a
// dimensioned weight must have self's dtype.
void LerpPreCheck(const OpArgs& a, const bc_tensor* /*out*/) {
  const char* names[3] = {"self", "end", "weight"};
  for (int i = 1; i < 3; ++i) {
    if (i == 2 && a.in[2]->ndim == 0) continue;
    if (a.in[i]->dtype != a.in[0]->dtype)
      Fail(BC_ERR_DTYPE, std::string("expected dtype ") + CppTypeName(a.in[0]->dtype) +
                             " for `" + names[i] + "` but got dtype " +
                             CppTypeName(a.in[i]->dtype));
  }
}

// lerp.Scalar (a number weight) is a binary op over self and end; lerp with
// a dimensioned weight checks all dtypes equal (out's too); a 0-dim tensor
// weight is promoted with them.
bc_dtype LerpCommon(const OpArgs& a, bool* exact_out) {
  if (a.in[2]->wrapped_number) return ResultType(a.in, 2);
  if (a.in[2]->ndim > 0) {
    *exact_out = true;
    return a.in[0]->dtype;
  }
  return ResultType(a.in, 3);
}

const char* LerpKernelName(const OpArgs& a) {
  return a.in[2]->wrapped_number ? "lerp_kernel_scalar" : nullptr;
}

void AddcdivPreCheck(const OpArgs& a, const bc_tensor* /*out*/) {
  if (IsFloating(a.in[1]->dtype) || IsFloating(a.in[2]->dtype)) return;
  Fail(BC_ERR_DTYPE,
       "Integer division with addcdiv is no longer supported, and in a future  release "
       "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
       "behavior can be implemented as (input + value * torch.trunc(tensor1 / "
       "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
       "tensor2) for float inputs. The future addcdiv behavior is just the latter "
       "implementation: (input + value * tensor1 / tensor2), for all dtypes.");
}

// The kernel converts value to its scalar type (on halves to float, their
// arithmetic type).
void ValueRange(const OpArgs& a, bc_dtype common) { CheckScalarRange(ComputeType(common), a.scalar); }

// lerp.Scalar reads its weight as weight.to<opmath_t>(): on halves at its
// own value, not rounded to the half type.
int NumberWeight(const OpArgs& a, const Types& /*t*/) { return a.in[2]->wrapped_number ? 2 : -1; }

constexpr OpRules kWhereRules = [] {
  OpRules r;
  r.pre_check = WherePreCheck;
  r.common = WhereCommon;
  r.checks_out_dtype = true;
  r.bool_operand = 0;
  return r;
}();
constexpr OpRules kLerpRules = [] {
  OpRules r;
  r.pre_check = LerpPreCheck;
  r.common = LerpCommon;
  r.kernel_name = LerpKernelName;
  r.half_number_operand = NumberWeight;
  return r;
}();
constexpr OpRules kAddcmulRules = [] {
  OpRules r;
  r.check_range = ValueRange;
  return r;
}();
constexpr OpRules kAddcdivRules = [] {
  OpRules r;
  r.pre_check = AddcdivPreCheck;
  r.check_range = ValueRange;
  return r;
}();

}  // namespace

const OpRules* TernaryRules(int op) {
  switch (op) {
    case kWhere: return &kWhereRules;
    case kLerp: return &kLerpRules;
    case kAddcmul: return &kAddcmulRules;
    case kAddcdiv: return &kAddcdivRules;
    default: return nullptr;
  }
}

}  // namespace bcast
