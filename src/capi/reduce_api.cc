// The reductions' C entry points: argument checks, then the engine
// (src/core/reduce.cc).
#include <string>

#include "bcast/bcast.h"
#include "capi/guard.h"
#include "core/context.h"
#include "core/dtype.h"
#include "core/reduce.h"

namespace {

using bcast::Fail;
using bcast::NotNull;
using bcast::RawEnum;

bc_status Reduce(bc_ctx* ctx, const bc_reduce_op& op_enum, const bc_tensor* x, const int64_t* dims,
                 size_t ndims, int keepdim, const bc_reduce_params* params, bc_tensor** out_new,
                 bc_tensor* out) {
  if (out_new) *out_new = nullptr;
  return bcast::Guarded(ctx, [&] {
    const int op = RawEnum(op_enum);
    if (op < 0 || op >= BC_REDUCE_OP_COUNT)
      Fail(BC_ERR_INVALID_ARGUMENT, "unknown reduce op " + std::to_string(op));
    NotNull(x, "x");
    if (!out_new) NotNull(out, "out");
    if (out != nullptr) bcast::CheckWritable(*out, "out");
    bcast::ReduceArgs a;
    a.ctx = &bcast::Resolve(ctx);
    a.op = op;
    a.x = x;
    a.dims = dims;
    a.ndims = ndims;
    a.keepdim = keepdim != 0;
    if (params != nullptr) {
      if ((params->given & ~(BC_REDUCE_DTYPE | BC_REDUCE_CORRECTION)) != 0)
        Fail(BC_ERR_INVALID_ARGUMENT, "bc_reduce_params.given has unknown bits: " + std::to_string(params->given));
      a.has_dtype = (params->given & BC_REDUCE_DTYPE) != 0;
      // (an int outside the enum may not be held in it: C++ UB)
      a.dtype_raw = a.has_dtype ? RawEnum(params->dtype) : BC_FLOAT32;
      a.dtype = bcast::ValidDtype(a.dtype_raw) ? static_cast<bc_dtype>(a.dtype_raw) : BC_FLOAT32;
      a.has_correction = (params->given & BC_REDUCE_CORRECTION) != 0;
      a.correction = params->correction;
    }
    bc_tensor* r = bcast::RunReduce(a, out);
    if (out_new) *out_new = r;
  });
}

bc_status MaxMinDim(bc_ctx* ctx, bool max, const bc_tensor* x, int64_t dim, int keepdim, bc_tensor** values,
                    bc_tensor** indices, bc_tensor* values_out, bc_tensor* indices_out) {
  if (values) *values = nullptr;
  if (indices) *indices = nullptr;
  return bcast::Guarded(ctx, [&] {
    NotNull(x, "x");
    if (values_out == nullptr && indices_out == nullptr) {
      NotNull(values, "values");
      NotNull(indices, "indices");
    } else {
      NotNull(values_out, "values");
      NotNull(indices_out, "indices");
      bcast::CheckWritable(*values_out, "values");
      bcast::CheckWritable(*indices_out, "indices");
    }
    bcast::RunMaxMinDim(bcast::Resolve(ctx), *x, dim, keepdim != 0, max, values, indices, values_out,
                        indices_out);
  });
}

bc_status Do_reduce(bc_ctx* ctx, const bc_reduce_op& op, const bc_tensor* x, const int64_t* dims, size_t ndims,
                    int keepdim, bc_tensor** out) {
  return Reduce(ctx, op, x, dims, ndims, keepdim, nullptr, out, nullptr);
}
bc_status Do_reduce_out(bc_ctx* ctx, const bc_reduce_op& op, const bc_tensor* x, const int64_t* dims,
                        size_t ndims, int keepdim, bc_tensor* out) {
  return Reduce(ctx, op, x, dims, ndims, keepdim, nullptr, nullptr, out);
}
bc_status Do_reduce_ex(bc_ctx* ctx, const bc_reduce_op& op, const bc_tensor* x, const int64_t* dims,
                       size_t ndims, int keepdim, const bc_reduce_params* params, bc_tensor** out) {
  return Reduce(ctx, op, x, dims, ndims, keepdim, params, out, nullptr);
}
bc_status Do_reduce_ex_out(bc_ctx* ctx, const bc_reduce_op& op, const bc_tensor* x, const int64_t* dims,
                           size_t ndims, int keepdim, const bc_reduce_params* params, bc_tensor* out) {
  return Reduce(ctx, op, x, dims, ndims, keepdim, params, nullptr, out);
}
bc_status Do_max_dim(bc_ctx* ctx, const bc_tensor* x, int64_t dim, int keepdim, bc_tensor** values,
                     bc_tensor** indices) {
  return MaxMinDim(ctx, true, x, dim, keepdim, values, indices, nullptr, nullptr);
}
bc_status Do_min_dim(bc_ctx* ctx, const bc_tensor* x, int64_t dim, int keepdim, bc_tensor** values,
                     bc_tensor** indices) {
  return MaxMinDim(ctx, false, x, dim, keepdim, values, indices, nullptr, nullptr);
}
bc_status Do_max_dim_out(bc_ctx* ctx, const bc_tensor* x, int64_t dim, int keepdim, bc_tensor* values,
                         bc_tensor* indices) {
  return MaxMinDim(ctx, true, x, dim, keepdim, nullptr, nullptr, values, indices);
}
bc_status Do_min_dim_out(bc_ctx* ctx, const bc_tensor* x, int64_t dim, int keepdim, bc_tensor* values,
                         bc_tensor* indices) {
  return MaxMinDim(ctx, false, x, dim, keepdim, nullptr, nullptr, values, indices);
}

}  // namespace

BC_API const char* bc_reduce_op_name(bc_reduce_op op) { return bcast::ReduceOpName(RawEnum(op)); }

BC_FORMS(reduce,
         (bc_reduce_op op, const bc_tensor* x, const int64_t* dims, size_t ndims, int keepdim,
          bc_tensor** out),
         (op, x, dims, ndims, keepdim, out))
BC_FORMS(reduce_out,
         (bc_reduce_op op, const bc_tensor* x, const int64_t* dims, size_t ndims, int keepdim,
          bc_tensor* out),
         (op, x, dims, ndims, keepdim, out))
BC_FORMS(reduce_ex,
         (bc_reduce_op op, const bc_tensor* x, const int64_t* dims, size_t ndims, int keepdim,
          const bc_reduce_params* params, bc_tensor** out),
         (op, x, dims, ndims, keepdim, params, out))
BC_FORMS(reduce_ex_out,
         (bc_reduce_op op, const bc_tensor* x, const int64_t* dims, size_t ndims, int keepdim,
          const bc_reduce_params* params, bc_tensor* out),
         (op, x, dims, ndims, keepdim, params, out))
BC_FORMS(max_dim,
         (const bc_tensor* x, int64_t dim, int keepdim, bc_tensor** values, bc_tensor** indices),
         (x, dim, keepdim, values, indices))
BC_FORMS(min_dim,
         (const bc_tensor* x, int64_t dim, int keepdim, bc_tensor** values, bc_tensor** indices),
         (x, dim, keepdim, values, indices))
BC_FORMS(max_dim_out,
         (const bc_tensor* x, int64_t dim, int keepdim, bc_tensor* values, bc_tensor* indices),
         (x, dim, keepdim, values, indices))
BC_FORMS(min_dim_out,
         (const bc_tensor* x, int64_t dim, int keepdim, bc_tensor* values, bc_tensor* indices),
         (x, dim, keepdim, values, indices))

