// The kernel table of one SIMD target and the dispatch that picks a target's
// table at run time.
#ifndef BCAST_KERNELS_KERNEL_TABLE_H_
#define BCAST_KERNELS_KERNEL_TABLE_H_

#include "core/dtype.h"
#include "kernels/kernels.h"

namespace bcast {

// fn[op][alpha][dtype]: alpha selects the scaled form of add/sub.
struct KernelTable {
  RowKernel fn[kNumTableOps][2][kNumDtypes];
  // Bytes up to which a binary kernel takes a row as one masked vector
  // itself (BinaryRow; 0: it does not), so that the executor need not lay
  // short rows out (ShortRowBytes).
  uint8_t short_row_bytes[kNumTableOps][2][kNumDtypes];
};

// Each kernels_*.cc unit holds the kernels of some dtypes: the best enabled
// target's table of that unit (cached; ResetKernelDispatch forgets it).
const KernelTable* FloatKernels();      // float32
const KernelTable* DoubleKernels();     // float64
const KernelTable* HalfKernels();       // float16, bfloat16
const KernelTable* SmallIntKernels();   // bool, uint8
const KernelTable* ShortIntKernels();   // int8, int16
const KernelTable* WideIntKernels();    // int32, int64

}  // namespace bcast

#endif  // BCAST_KERNELS_KERNEL_TABLE_H_
