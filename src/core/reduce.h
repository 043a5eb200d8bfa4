// Reductions: PyTorch's sum, mean, amax, argmax, var, ... over any dims of
// any layout (src/core/reduce.cc), each op's rules in reduce_rules.cc.
#ifndef BCAST_CORE_REDUCE_H_
#define BCAST_CORE_REDUCE_H_

#include <cstring>
#include <limits>

#include "core/context.h"
#include "core/dtype.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "kernels/reduce_kernels.h"

namespace bcast {

// The result dtype class of a reduction (the op table's result column).
enum ReduceResult : int { kReduceSum, kReduceKeep, kReduceToFloat, kReduceBool, kReduceInt64 };

struct ReduceArgs {
  const bc_ctx* ctx = nullptr;
  int op = 0;  // bc_reduce_op
  const bc_tensor* x = nullptr;
  const int64_t* dims = nullptr;  // nullptr with ndims 0: every dim
  size_t ndims = 0;
  bool keepdim = false;
  bool has_dtype = false;
  bc_dtype dtype = BC_FLOAT32;  // valid: an unknown value stays in dtype_raw
  int dtype_raw = BC_FLOAT32;   // the caller's value, checked in PyTorch's order
  bool has_correction = false;
  double correction = 1;
};

// The op's dtypes, resolved as PyTorch does (reduce_rules.cc).
struct ReduceTypes {
  bc_dtype compute;  // the input is converted to it first
  bc_dtype result;   // the written dtype
};

// What the executor makes of one op: the passes over the input and how the
// accumulators become the result (reduce_rules.cc).
struct ReduceRecipe {
  ReduceKind first = kRSum;     // the first pass
  ReduceKind second = kRNumKinds;  // a second pass, centered on the first's result; or none
  // The values of `count` outputs from their accumulators first[k] and
  // (two-pass ops) second[k], `n` elements reduced each: is_float[k] set
  // with f[k] for a floating result, else i[k]. A run of outputs a call, so
  // that outputs of few elements each (a middle dim) pay one indirect call.
  void (*finish)(const ReduceArgs& a, const ReduceAcc* first, const ReduceAcc* second, int64_t count, int64_t n,
                 bc_dtype compute, double* f, int64_t* i, char* is_float) = nullptr;
  // The center of the second pass from the first's accumulator.
  double (*center)(const ReduceAcc& first, int64_t n, bc_dtype compute) = nullptr;
  // The result is the first pass's key (amax, amin): stored from it
  // directly (KeyToDouble), without `finish`.
  bool key = false;
};

const char* ReduceOpName(int op);  // "unknown" outside bc_reduce_op
// The reduced dims as a mask, PyTorch's checks and texts (range, repeats).
uint64_t ReduceDimMask(const char* op_name, const bc_tensor& x, const int64_t* dims, size_t ndims);
// The checks PyTorch makes before it looks at the dims (input dtypes, some
// out= dtypes).
void ReducePreCheck(const ReduceArgs& a, const bc_tensor* out);
// Checks the op's dtype rules (and out='s dtype) and returns its dtypes.
ReduceTypes ResolveReduce(const ReduceArgs& a, uint64_t mask, const bc_tensor* out);
ReduceRecipe RecipeOf(const ReduceArgs& a);
// The op's warnings (var/std's degrees of freedom), given PyTorch's
// reduction factor (input numel / output numel).
void ReduceWarnings(const ReduceArgs& a, int64_t factor);
// Whether the result indexes the row-major flattened input (argmax over
// every dim), which the executor then reads in that order.
bool ReduceIndexesFlat(const ReduceArgs& a);
// Whether the input's NaNs become 0 before it is converted (nansum into
// an integer dtype).
bool ReduceZeroesNans(const ReduceArgs& a, const ReduceTypes& t);
// The value of a max/min order key (kRMax, kRMin) in dtype `d` as a double
// (floats; NaN keys give the default NaN) or an integer.
inline double KeyToDouble(int64_t key, bc_dtype d) {
  if (d == BC_FLOAT64) {
    if (key == std::numeric_limits<int64_t>::max() || key == std::numeric_limits<int64_t>::min())
      return std::numeric_limits<double>::quiet_NaN();
    const int64_t b = key ^ ((key >> 63) & std::numeric_limits<int64_t>::max());
    double v;
    std::memcpy(&v, &b, sizeof v);
    return v;
  }
  if (IsHalf(d)) {  // the halves' own 16-bit keys (kernels_reduce.cc's KeyOf)
    if (key == std::numeric_limits<int16_t>::max() || key == std::numeric_limits<int16_t>::min())
      return std::numeric_limits<double>::quiet_NaN();
    const int k = static_cast<int16_t>(key);
    const uint16_t b = static_cast<uint16_t>(k ^ ((k >> 15) & 0x7fff));
    return d == BC_FLOAT16 ? F16ToF32(b) : BF16ToF32(b);
  }
  if (IsFloating(d)) {  // float32 keys
    if (key == std::numeric_limits<int32_t>::max() || key == std::numeric_limits<int32_t>::min())
      return std::numeric_limits<double>::quiet_NaN();
    const int32_t k = static_cast<int32_t>(key);
    const int32_t b = k ^ ((k >> 31) & std::numeric_limits<int32_t>::max());
    float v;
    std::memcpy(&v, &b, sizeof v);
    return v;
  }
  return static_cast<double>(key);
}

bc_tensor* RunReduce(const ReduceArgs& a, bc_tensor* out);
// torch.max/min(x, dim, keepdim): values and indices, allocated (out
// pointers) or written (the *_out tensors).
void RunMaxMinDim(const bc_ctx& ctx, const bc_tensor& x, int64_t dim, bool keepdim, bool max,
                  bc_tensor** values, bc_tensor** indices, bc_tensor* values_out,
                  bc_tensor* indices_out);

// Sums t over the dims where `target` (aligned at the right) has size 1 or
// does not exist. Integer and bool sum to int64, floats keep their dtype.
bc_tensor* SumToShape(const bc_ctx& ctx, const bc_tensor& t, const Shape& target);

}  // namespace bcast

#endif  // BCAST_CORE_REDUCE_H_
