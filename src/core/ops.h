// Elementwise op semantics: dtype rules, broadcasting with its warnings and
// policy, out=/in-place rules, overlap and division checks, then the plan.
#ifndef BCAST_CORE_OPS_H_
#define BCAST_CORE_OPS_H_

#include "core/context.h"
#include "core/tensor.h"
#include "kernels/kernels.h"

namespace bcast {

struct OpArgs {
  const bc_ctx* ctx = &DefaultContext();  // settings, handler, threads
  int op = 0;  // bc_op or KernelOp
  int nin = 0;
  const bc_tensor* in[3] = {};
  double scalar = 1;  // alpha of add/sub, value of addcmul/addcdiv
  bool has_alpha = false;
  // A unary op's parameters (bc_unary_params): value[k] is given when bit
  // k of `given` is set; the op's rules resolve the rest to its defaults.
  double params[3] = {0, 0, 0};
  unsigned given = 0;
};

// out == nullptr: allocates and returns the result. Otherwise writes into
// `out` (the in-place form passes out == in[0], inplace = true) and returns it.
// Throws bcast::Error; nothing is written on failure.
bc_tensor* RunElementwise(const OpArgs& args, bc_tensor* out, bool inplace);

// An op run as one kernel call on operands already in its kernel dtypes,
// without a plan (the small-op path): what to call. Operands that are one
// value (0-dim) are converted into `values` as the executor converts them.
struct DirectCall {
  RowKernel kernel = nullptr;
  double scalar[kMaxScalars] = {1, 0, 0};
  bool swap = false;  // inputs 0 and 1 trade places for the kernel
  bc_dtype result = BC_FLOAT32;  // an allocated result's dtype
  alignas(8) char values[3][8];
};

// Binds op `a` (its inputs' dtypes read, and the values of those marked in
// one_value) for writing into `out` (or a new result: null). Throws the
// op's dtype errors; returns false where the general path must run
// (conversions, integer division, halves with one-value operands, ...).
bool BindDirect(const OpArgs& a, const bc_tensor* out, unsigned one_value, DirectCall* c);

// Copies src's elements into dst: same dtype and shape, any strides.
void CopyElements(const bc_ctx& ctx, const bc_tensor& dst, const bc_tensor& src);

// Owns an intermediate tensor, or a result until it is released.
struct TensorGuard {
  bc_tensor* t = nullptr;
  TensorGuard() = default;
  explicit TensorGuard(bc_tensor* p) : t(p) {}
  TensorGuard(const TensorGuard&) = delete;
  TensorGuard& operator=(const TensorGuard&) = delete;
  ~TensorGuard() {
    if (t) {
      StorageRelease(t->storage);
      delete t;
    }
  }
  bc_tensor* release() {
    bc_tensor* r = t;
    t = nullptr;
    return r;
  }
};

// Whether x and y are the same view: data, dtype, shape and strides.
bool SameView(const bc_tensor& x, const bc_tensor& y);

// New contiguous tensor (uninitialised); throws on bad shape or no memory.
bc_tensor* NewTensor(bc_dtype dtype, const Shape& shape);

}  // namespace bcast

#endif  // BCAST_CORE_OPS_H_
