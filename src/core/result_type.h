// torch.result_type's three tiers (dimensioned tensors, 0-dim tensors,
// wrapped numbers) over PromoteTypes' lattice (dtype.cc).
#ifndef BCAST_CORE_RESULT_TYPE_H_
#define BCAST_CORE_RESULT_TYPE_H_

#include <cstddef>

#include "bcast/bcast.h"
#include "core/dtype.h"

namespace bcast {

// One tier's dtype so far; kNone until an operand of that tier is seen.
constexpr int kNone = -1;

inline int PromoteInto(int slot, bc_dtype d) {
  return slot == kNone ? d : PromoteTypes(static_cast<bc_dtype>(slot), d);
}

// PyTorch's combine_categories: the higher tier wins unless the lower one
// is of a higher category (or the higher one is bool), then they promote.
inline int CombineCategories(int higher, int lower) {
  if (higher == kNone) return lower;
  if (lower == kNone) return higher;
  const bc_dtype h = static_cast<bc_dtype>(higher), l = static_cast<bc_dtype>(lower);
  if (IsFloating(h)) return h;
  if (h == BC_BOOL || IsFloating(l)) return PromoteTypes(h, l);
  return h;
}

// The dtype a wrapped number stands for in promotion: Python's float is the
// default dtype (float32), its int is int64.
inline bc_dtype ScalarDtype(bc_scalar_kind k) {
  return k == BC_SCALAR_BOOL ? BC_BOOL : k == BC_SCALAR_INT ? BC_INT64 : BC_FLOAT32;
}

// The dtype a wrapped-number tensor stands for: its own, but float64 (a
// Python float) is the default dtype.
inline bc_dtype WrappedDtype(bc_dtype d) { return d == BC_FLOAT64 ? BC_FLOAT32 : d; }

// torch.result_type over tensors (wrapped-number tensors in the scalar tier)
// and wrapped numbers; the caller checked
// that there is at least one operand and that every scalar kind is valid.
bc_dtype ResultTypeOf(const bc_tensor* const* ts, size_t nt, const bc_scalar* ss, size_t ns);

}  // namespace bcast

#endif  // BCAST_CORE_RESULT_TYPE_H_
