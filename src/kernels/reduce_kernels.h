// The interface between the reduction executor (src/core/reduce.cc) and its
// SIMD kernels (src/kernels/reduce-inl.h): one accumulator per output, and
// per accumulation kind and kernel dtype two loops, over a contiguous run of
// one output's elements or over rows whose columns are outputs.
//
// The order of every floating-point operation is fixed by the positions of
// the elements, never by the SIMD width or the thread count:
// - a run is cut into blocks of kReduceBlock elements; element i of a block
//   goes to lane i % kReduceLanes, each lane adds in order, and the lanes
//   are added pairwise (lane j += lane j + w for w = 16, 8, ..., 1);
// - in rows, each column adds the rows of one call in order;
// - a block's (or a call's) total goes into the accumulator with a
//   compensated (TwoSum) addition.
#ifndef BCAST_KERNELS_REDUCE_KERNELS_H_
#define BCAST_KERNELS_REDUCE_KERNELS_H_

#include <cstdint>

#include "bcast/bcast.h"

namespace bcast {

constexpr int kReduceLanes = 32;
constexpr int64_t kReduceBlock = 512;
constexpr int64_t kReduceRowBlock = 32;
// Rows a call may take for the kinds whose result does not depend on how
// the rows are split into calls (all but the floating sums; counts are
// kept in bytes).
constexpr int64_t kReduceRowBlockExact = 128;
// Kernel dtypes: bool, the five integers, float32, float64, float16, bfloat16.
constexpr int kReduceColumns = 10;  // rows per ReduceColsFn call, at most

// What an accumulator adds up.
enum ReduceKind : int {
  kRSum,           // s + c: the sum (integers: i, wrapping)
  kRNanSum,        // as kRSum, NaN taken as 0
  kRProd,          // s (integers: i, wrapping)
  kRMax,           // i: the largest order key (ReduceKey); NaN is the largest
  kRMin,           // i: the smallest order key; NaN is the smallest
  kRArgMax,        // i: key, j: first position of it (-1: none yet); -0 == +0
  kRArgMin,        // as kRArgMax for the smallest
  kRCountNonzero,  // i: elements != 0 (NaN counts)
  kRCountNotNan,   // i: elements that are not NaN (floating only)
  kRSumSqDev,      // s + c: sum of (x - center)^2 (floating only)
  kRSumExp,        // s + c: sum of exp(x - center) (floating only)
  kRNumKinds
};

struct ReduceAcc {
  double s = 0, c = 0;
  int64_t i = 0, j = -1;
};

// A run: n contiguous elements of one output, at positions first.. of its
// sequence (argmax's indices), into `acc`; `center` for kRSumSqDev/kRSumExp.
using ReduceRunFn = void (*)(const void* x, int64_t n, int64_t first, double center,
                             ReduceAcc* acc);
// Rows: `rows` (1..kReduceRowBlock; 1..kReduceRowBlockExact for the kinds
// other than floating sums) rows, row r at row[r] (rows first.. of the sequence), each of
// ncols contiguous elements, column k into acc[k]; centers[k] for the kinds
// that take one (else nullptr).
using ReduceColsFn = void (*)(const char* const* row, int64_t rows, int64_t ncols, int64_t first,
                              const double* centers, ReduceAcc* acc);

struct ReduceKernel {
  ReduceRunFn run = nullptr;
  ReduceColsFn cols = nullptr;
};

// The kernel of `kind` on kernel dtype `dtype` (bool, integers, float32,
// float64; float16 and bfloat16 for the sums, max, min, the arg ops and
// the counts:
// the other kinds take them converted to float32) for the best enabled
// SIMD target; both null when there is none. The max/min kinds' keys
// (ReduceAcc::i) are of the kernel dtype: 16-bit for the halves.
ReduceKernel FindReduceKernel(ReduceKind kind, bc_dtype dtype);

// log(x) as the unary op's float64 kernel computes it (the same bits on
// every target), for logsumexp's last step.
double ReduceLog(double x);

}  // namespace bcast

#endif  // BCAST_KERNELS_REDUCE_KERNELS_H_
