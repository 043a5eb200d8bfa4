// copy_'s own rules (see core/op_rules.h).
#include "core/dtype.h"
#include "core/op_rules.h"
#include "kernels/kernels.h"

namespace bcast {

namespace {

// copy_ converts to the destination's dtype: no promotion, no dtype set.
bool CopyResolve(const OpArgs& /*a*/, const bc_tensor* out, Types* t) {
  const bc_dtype d = ComputeType(out->dtype);
  *t = {d, d, out->dtype, out->dtype};
  return true;
}

constexpr OpRules kCopyRules = [] {
  OpRules r;
  r.resolve = CopyResolve;
  r.copies = true;
  return r;
}();

}  // namespace

const OpRules* CopyRules() { return &kCopyRules; }

}  // namespace bcast
