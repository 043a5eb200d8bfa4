// Memory overlap between the written tensor and itself or its inputs:
// PyTorch's two refusals (an input may share memory with the output only
// element for element).
#ifndef BCAST_CORE_OVERLAP_H_
#define BCAST_CORE_OVERLAP_H_

#include <cstdint>

#include "core/tensor.h"

namespace bcast {

// Byte range [lo, hi) covered by the elements of a non-empty tensor.
void ByteRange(const bc_tensor& t, uintptr_t* lo, uintptr_t* hi);
// True when two elements of `t` may share memory: any broadcast (stride 0)
// dim, or strides too small to keep the dims apart.
bool HasInternalOverlap(const bc_tensor& t);
// Throws BC_ERR_OVERLAP with PyTorch's text.
[[noreturn]] void FailInternalOverlap();
// Throws BC_ERR_OVERLAP unless `in` shares no memory with `out` or expands
// to exactly `out` (checked before shapes, as PyTorch does).
void CheckOverlap(const bc_tensor& out, const bc_tensor& in);
// Throws BC_ERR_OVERLAP unless `in`, viewed with `in_strides` over out's
// shape, shares no memory with `out` or is exactly `out`.
void CheckOverlap(const bc_tensor& out, const bc_tensor& in, const int64_t* in_strides);

}  // namespace bcast

#endif  // BCAST_CORE_OVERLAP_H_
