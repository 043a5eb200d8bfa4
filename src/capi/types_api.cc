// The C boundary of type queries: bc_result_type, bc_can_cast,
// bc_tensor_is_writable. Semantics live in core/result_type.h and dtype.cc.
#include <string>

#include "bcast/bcast.h"
#include "core/dtype.h"
#include "capi/guard.h"
#include "core/error.h"
#include "core/result_type.h"
#include "core/tensor.h"

static bc_status DoResultType(bc_ctx* ctx, const bc_tensor* const* tensors, size_t ntensors,
                              const bc_scalar* scalars, size_t nscalars, bc_dtype* out) {
  return bcast::Guarded(ctx, [&] {
    using bcast::Fail;
    if (out == nullptr) Fail(BC_ERR_INVALID_ARGUMENT, "out is NULL");
    if (ntensors + nscalars == 0 || ntensors + nscalars < ntensors)
      Fail(BC_ERR_INVALID_ARGUMENT, "bc_result_type needs at least one tensor or scalar");
    if (ntensors > 0 && tensors == nullptr) Fail(BC_ERR_INVALID_ARGUMENT, "tensors is NULL");
    if (nscalars > 0 && scalars == nullptr) Fail(BC_ERR_INVALID_ARGUMENT, "scalars is NULL");
    for (size_t i = 0; i < ntensors; ++i)
      if (tensors[i] == nullptr)
        Fail(BC_ERR_INVALID_ARGUMENT, "tensors[" + std::to_string(i) + "] is NULL");
    for (size_t i = 0; i < nscalars; ++i) {
      const int k = bcast::RawEnum(scalars[i].kind);
      if (k != BC_SCALAR_BOOL && k != BC_SCALAR_INT && k != BC_SCALAR_FLOAT)
        Fail(BC_ERR_INVALID_ARGUMENT,
             "scalars[" + std::to_string(i) + "] has unknown kind " + std::to_string(k));
    }
    *out = bcast::ResultTypeOf(tensors, ntensors, scalars, nscalars);
  });
}

BC_API bc_status bc_result_type(const bc_tensor* const* tensors, size_t ntensors,
                                const bc_scalar* scalars, size_t nscalars, bc_dtype* out) {
  return DoResultType(nullptr, tensors, ntensors, scalars, nscalars, out);
}
BC_API bc_status bc_ctx_result_type(bc_ctx* ctx, const bc_tensor* const* tensors, size_t ntensors,
                                    const bc_scalar* scalars, size_t nscalars, bc_dtype* out) {
  return DoResultType(ctx, tensors, ntensors, scalars, nscalars, out);
}

BC_API int bc_can_cast(bc_dtype from, bc_dtype to) {
  const int f = bcast::RawEnum(from), t = bcast::RawEnum(to);
  if (!bcast::ValidDtype(f) || !bcast::ValidDtype(t)) return 0;
  return bcast::CanCast(from, to) ? 1 : 0;
}

BC_API int bc_tensor_is_writable(const bc_tensor* t) {
  return t != nullptr && !(t->storage != nullptr && t->storage->read_only) ? 1 : 0;
}

