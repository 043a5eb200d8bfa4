// The binary ops' own rules (see core/op_rules.h).
#include <string>

#include "core/dtype.h"
#include "core/error.h"
#include "core/op_rules.h"

namespace bcast {

namespace {

// sub: PyTorch's sub_check, before anything else.
void SubPreCheck(const OpArgs& a, const bc_tensor* /*out*/) {
  if (a.in[0]->dtype == BC_BOOL && a.in[1]->dtype == BC_BOOL)
    Fail(BC_ERR_DTYPE,
         "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
         "`^` or `logical_xor()` operator instead.");
  if (a.in[0]->dtype == BC_BOOL || a.in[1]->dtype == BC_BOOL)
    Fail(BC_ERR_DTYPE,
         "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
         "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
}

constexpr OpRules kSub = [] {
  OpRules r;
  r.pre_check = SubPreCheck;
  return r;
}();

}  // namespace

const OpRules* BinaryRules(int op) {
  switch (op) {
    case BC_SUB: return &kSub;
    default: return nullptr;
  }
}

}  // namespace bcast
