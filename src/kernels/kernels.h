// The interface between the plan executor (src/core) and the SIMD kernels:
// a 2-D block of rows, described by pointers, sizes and element strides only.
#ifndef BCAST_KERNELS_KERNELS_H_
#define BCAST_KERNELS_KERNELS_H_

#include <cstdint>

#include "bcast/bcast.h"

namespace bcast {

// Kernel op ids: bc_op values, then the ops only the engine names.
enum KernelOp : int {
  kCopy = 64,  // out = in0 (same type)
  kWhere,      // out = in0 ? in1 : in2, in0 bool
  kAddcmul,    // in0 + scalar * in1 * in2
  kAddcdiv,    // in0 + scalar * in1 / in2
  kLerp,       // in0 + in2 * (in1 - in0), PyTorch's two-sided form
  kClamp,      // min(max(in0, in1), in2), NaN-propagating
};

// Operand 0 is the output. Inputs have type `dtype` (bool for kWhere's
// condition); the output has `dtype`, or bool for comparison and logical ops.
struct Block {
  int op = 0;
  bc_dtype dtype = BC_FLOAT32;
  int64_t n0 = 0;  // elements per row
  int64_t n1 = 0;  // rows
  // Entries 0..inputs are read, and callers set exactly those: left
  // uninitialised so that the small-op path does not clear 96 bytes per call.
  char* ptr[4];
  int64_t s0[4];  // element stride within a row
  int64_t s1[4];  // element stride between rows
  double scalar = 1;   // alpha of add/sub, value of addcmul/addcdiv
  bool stream = false; // contiguous output rows may bypass the cache
};

// Runs one block on the best SIMD target of this CPU (see bc_set_simd_cap).
void RunBinaryKernel(const Block& b);   // ops with one or two inputs
void RunTernaryKernel(const Block& b);  // ops with three inputs
// Whether RunBinaryKernel computes `op` on bfloat16 inputs and result itself
// (in float32 registers, rounding once); other bfloat16 ops run on float32
// tiles converted by the executor.
bool HasBF16Kernel(int op);
// Converts n contiguous elements between float32 and bfloat16 (round to
// nearest even, NaN stays NaN), with streaming stores if `stream`. Returns
// false, doing nothing, for any other pair of dtypes.
bool RunConvertKernel(bc_dtype to, void* dst, bc_dtype from, const void* src, int64_t n,
                      bool stream);
const char* ChosenTargetName();
// Forgets the cached targets after the enabled set changed (bc_set_simd_cap).
void ResetKernelDispatch();

}  // namespace bcast

#endif  // BCAST_KERNELS_KERNELS_H_
