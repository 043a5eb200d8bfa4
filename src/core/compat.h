// Broadcast compatibility of an op's operands and what PyTorch's notes ask
// around it: the deprecated 1-D pointwise fallback, the broadcast warning,
// and (beyond PyTorch) the broadcast policy; then out='s shape.
#ifndef BCAST_CORE_COMPAT_H_
#define BCAST_CORE_COMPAT_H_

#include <string>
#include <vector>

#include "core/ops.h"
#include "core/shape.h"

namespace bcast {

struct OperandBroadcast {
  Shape shapes[3];  // the inputs' shapes
  Shape result;     // the shape computed (copy_: the destination's)
  bool legacy = false;  // operands viewed pointwise as the first's shape
  // Collected, not yet emitted: an op that fails later warns nothing.
  std::vector<std::string> warnings;
};

// Throws the broadcast error (or BC_ERR_POLICY) when the shapes do not
// broadcast under the current settings.
OperandBroadcast BroadcastOperands(const OpArgs& a, const bc_tensor* out);

// The written tensor must have the broadcast shape (in legacy in-place mode
// expand's older text comes first, as the notes' PyTorch gave).
void CheckOutShape(const OpArgs& a, const bc_tensor& out, bool inplace, const OperandBroadcast& b);

}  // namespace bcast

#endif  // BCAST_CORE_COMPAT_H_
