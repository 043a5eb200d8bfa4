#include "core/compat.h"

#include "core/op_rules.h"

#include "core/error.h"
#include "core/op_info.h"
#include "core/context.h"

namespace bcast {

namespace {

const char* const* OperandNames(int op) { return InfoOf(op).operands; }

std::string JoinNames(const char* const* names, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) {
    if (i) s += (i == n - 1) ? " and " : ", ";
    s += names[i];
  }
  return s;
}

}  // namespace

OperandBroadcast BroadcastOperands(const OpArgs& a, const bc_tensor* out) {
  const char* const* names = OperandNames(a.op);
  OperandBroadcast b;
  bool same_numel = true, same_shape = true;
  int64_t numel0 = 0;
  for (int i = 0; i < a.nin; ++i) {
    b.shapes[i] = ShapeOf(*a.in[i]);
    const int64_t n = Numel(*a.in[i]);
    if (i == 0) numel0 = n;
    same_numel &= n == numel0;
    same_shape &= SameShape(b.shapes[i], b.shapes[0]);
  }
  // copy_ broadcasts its source into the destination's shape.
  const bool copies = RulesOf(a.op).copies;
  Shape first = copies ? ShapeOf(*out) : b.shapes[0];
  if (copies) {
    same_numel = Numel(*out) == numel0;
    same_shape = SameShape(first, b.shapes[0]);
  }

  b.result = first;
  Error err;
  for (int i = copies ? 0 : 1; i < a.nin && !b.legacy; ++i) {
    if (TryBroadcast(b.result, b.shapes[i], &b.result, &err)) continue;
    if (!(LegacyPointwiseOn(*a.ctx) && same_numel)) throw err;
    b.legacy = true;
    b.result = first;
    b.warnings.push_back(std::string(copies ? "src" : names[i]) + " is not broadcastable to " +
                       (copies ? "self" : names[0]) +
                       ", but they have the same number of elements. Falling back to "
                       "deprecated pointwise behavior.");
  }
  if (!b.legacy && !same_shape) {
    if (BroadcastWarningOn(*a.ctx) && same_numel) {
      b.warnings.push_back(
          (copies ? std::string("self and src") : JoinNames(names, a.nin)) +
          " do not have the same shape, but are broadcastable, and have the same number of "
          "elements. Changing behavior in a backwards incompatible manner to broadcasting "
          "rather than viewing as 1-dimensional.");
    }
    bool differ = false;  // ignoring 0-dim operands, which are scalars
    for (int i = 0; i < a.nin; ++i)
      differ |= a.in[i]->ndim > 0 && !SameShape(b.shapes[i], b.result);
    if (copies) differ = !SameShape(b.shapes[0], b.result) && a.in[0]->ndim > 0;
    if (differ && Policy(*a.ctx) != BC_POLICY_ALLOW) {
      std::string desc;
      for (int i = 0; i < a.nin; ++i) {
        if (i) desc += i == a.nin - 1 ? " and " : ", ";
        desc += std::string(names[i]) + " with shape " + FormatShape(b.shapes[i]);
      }
      if (Policy(*a.ctx) == BC_POLICY_ERROR)
        Fail(BC_ERR_POLICY, "broadcast policy is 'error': " + desc +
                                " would be implicitly broadcast to " + FormatShape(b.result));
      b.warnings.push_back("implicit broadcast: " + desc + " broadcast to " +
                           FormatShape(b.result));
    }
  }
  return b;
}

void CheckOutShape(const OpArgs& a, const bc_tensor& out, bool inplace, const OperandBroadcast& b) {
  const Shape oshape = ShapeOf(out);
  if (!SameShape(oshape, b.result)) {
    if (inplace && LegacyPointwiseOn(*a.ctx)) {
      Shape ignored;
      for (int i = 1; i < a.nin; ++i) CheckExpand(b.shapes[i], a.in[i]->dtype, oshape, &ignored);
    }
    Fail(BC_ERR_SHAPE_MISMATCH, "output with shape " + FormatShape(oshape) +
                                    " doesn't match the broadcast shape " + FormatShape(b.result));
  }
}

}  // namespace bcast
