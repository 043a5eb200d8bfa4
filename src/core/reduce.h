#ifndef BCAST_CORE_REDUCE_H_
#define BCAST_CORE_REDUCE_H_

#include "core/context.h"
#include "core/tensor.h"

namespace bcast {

// Sums t over the dims where `target` (aligned at the right) has size 1 or
// does not exist. Integer and bool sum to int64, floats keep their dtype.
bc_tensor* SumToShape(const bc_ctx& ctx, const bc_tensor& t, const Shape& target);

}  // namespace bcast

#endif  // BCAST_CORE_REDUCE_H_
