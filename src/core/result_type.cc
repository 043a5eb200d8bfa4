#include "core/result_type.h"

#include "core/tensor.h"

namespace bcast {

bc_dtype ResultTypeOf(const bc_tensor* const* ts, size_t nt, const bc_scalar* ss, size_t ns) {
  int dim = kNone, zero = kNone, wrapped = kNone;
  for (size_t i = 0; i < nt; ++i) {
    if (ts[i]->wrapped_number) {
      wrapped = PromoteInto(wrapped, WrappedDtype(ts[i]->dtype));
      continue;
    }
    int& slot = ts[i]->ndim > 0 ? dim : zero;
    slot = PromoteInto(slot, ts[i]->dtype);
  }
  for (size_t i = 0; i < ns; ++i) wrapped = PromoteInto(wrapped, ScalarDtype(ss[i].kind));
  return static_cast<bc_dtype>(CombineCategories(dim, CombineCategories(zero, wrapped)));
}

}  // namespace bcast
