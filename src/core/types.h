// Type resolution of an op: torch.result_type over its operands, then the
// op table's promotion and dtype set and the op's own rules, with PyTorch's
// texts for what it refuses.
#ifndef BCAST_CORE_TYPES_H_
#define BCAST_CORE_TYPES_H_

#include "core/ops.h"

namespace bcast {

struct Types {
  bc_dtype in;      // kernel input type
  bc_dtype out;     // kernel output type
  bc_dtype result;  // dtype of an allocated result
  bc_dtype common;  // dtype the inputs are cast to (computed in `in` when it is a half)
};

// torch.result_type: dimensioned operands first; 0-dim ones only when they
// are of a higher category (bool < integer < floating).
bc_dtype ResultType(const bc_tensor* const* ts, int n);

// The dtype a kernel computes in: float32 for the halves.
bc_dtype ComputeType(bc_dtype d);

// The checks PyTorch makes in an op's own code before its TensorIterator is
// built, so before overlap and shape errors: the op's pre_check rule
// (core/op_rules.h). `out` is the written tensor or nullptr.
void PreCheck(const OpArgs& a, const bc_tensor* out);

// After overlap and shapes, in PyTorch's order: the written tensor's dtype,
// alpha's kind, the dtype the kernel supports, then alpha/value's range.
// Throws bcast::Error (BC_ERR_DTYPE, BC_ERR_INVALID_ARGUMENT).
Types ResolveTypes(const OpArgs& a, const bc_tensor* out);

// c10::checked_convert of a scalar (alpha, value, a clamp bound, pow's
// exponent) to the kernel's scalar type `d`: integers must fit (uint8 also
// takes -255..-1, which wrap), NaN and infinities fit only floating types,
// finite floats must be within range. Throws BC_ERR_INVALID_ARGUMENT.
void CheckScalarRange(bc_dtype d, double v);


// Whether integer division by zero is refused (the op's `divides` rule:
// div_trunc, div_floor, remainder, fmod).
bool IsIntDivision(int op);

}  // namespace bcast

#endif  // BCAST_CORE_TYPES_H_
