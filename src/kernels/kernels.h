// The interface between the executor (src/core) and the SIMD kernels: one
// row kernel per op and kernel dtype, chosen from the op table when a plan is
// built, and called on rows whose layout the executor has already made
// simple (contiguous, or one repeated value).
#ifndef BCAST_KERNELS_KERNELS_H_
#define BCAST_KERNELS_KERNELS_H_

#include <cstdint>

#include "bcast/bcast.h"
#include "core/dtype.h"

namespace bcast {

// How an op's dtypes are resolved (the op table's promotion column).
enum Promotion : int {
  kPromote,  // the result has the operands' common dtype
  kToFloat,  // as kPromote, but integers and bool give float32
  kCompare,  // computed in the common dtype; the result is bool
  kLogical,  // as kCompare: operands read in the common dtype, nonzero is true
};

// Which common dtypes an op runs on (the op table's dtypes column).
enum DtypeSet : int { kAnyDtype, kNoBool, kFloating, kIntegralOrBool, kIntegral };

constexpr bool InDtypeSet(DtypeSet s, bc_dtype d) {
  switch (s) {
    case kAnyDtype: return true;
    case kNoBool: return d != BC_BOOL;
    case kFloating: return IsFloating(d);
    case kIntegralOrBool: return !IsFloating(d);
    case kIntegral: return !IsFloating(d) && d != BC_BOOL;
  }
  return false;
}

// Kernel ops: bc_op values, then the ternary ops of the op table, then the
// unary ops (kFirstUnary + bc_unary_op), then the engine's own copy.
enum KernelOp : int {
  kBeforeTernary = BC_OP_COUNT - 1,
#define BCAST_TERNARY_OP(Id, name, dtypes, kernel, Functor, operands, doc) k##Id,
#include "op_table.def"
  kFirstUnary,
  kNumTableOps = kFirstUnary + BC_UNARY_OP_COUNT,
  kCopy = kNumTableOps,  // out = in0, bits moved as they are (no kernel table entry)
  kHostLoop,  // a host's loop through bc_iter: checks and names only (no kernel)
  kNumKernelOps,
};
constexpr int UnaryKernelOp(int unary_op) { return kFirstUnary + unary_op; }
constexpr bool IsUnaryOp(int op) { return op >= kFirstUnary && op < kNumTableOps; }

// The most numbers a kernel takes (alpha or value; a unary op's parameters).
constexpr int kMaxScalars = 3;

// How a row kernel writes its output: through the cache; streaming
// (non-temporal) stores, which the caller flushes; or streaming stores with
// the inputs fetched ahead (the executor asks for it where that was measured
// to help every op: src/core/plan.cc). Ops whose functor sets kPrefetch fetch
// ahead whenever they stream, and under kPlainAndPrefetch, plain stores for
// inputs from memory (a fused expression's tiles: src/core/expr.cc).
enum StoreMode : int { kPlainStores = 0, kStreamStores = 1, kStreamAndPrefetch = 2, kPlainAndPrefetch = 3 };

// Whether a row's streamed stores to `o` would trail its loads from `in` at
// an offset within a 4 KiB page that makes the loads wait ("4K aliasing":
// by their low 12 address bits the next loads look like reads of the lines
// just stored); the row loops then store plainly (RowStores, rows-inl.h).
// AMD EPYC Zen 4 VM, 2026-11-28, 4M-element unary ops, the output d bytes
// past the input modulo 4 KiB, streamed: float32 neg 0.63 ms at d = 0 and
// beyond 160, 1.7 ms for d in 40..88 not a multiple of 32, 0.84 ms in
// 104..152; float32 hardswish (a division: loads run further ahead) 0.65 ->
// 3.8 ms at 40..88, 2.2 at 112; float64 hardswish 1.8 -> 7.6 ms at 48. Plain
// stores there: 0.9-1.1 ms (neg), 1.0-1.2 (hardswish). Multiples of 32 and
// d below 32 cost 0-30% streamed, less than plain stores do. numpy's and
// PyTorch's allocators give such offsets often (a float64 array at 16 mod
// 64 and its result at 64 mod 4096: d = 48).
inline bool StoreTrailsLoad(const void* o, const void* in) {
  const uintptr_t d = (reinterpret_cast<uintptr_t>(o) - reinterpret_cast<uintptr_t>(in)) & 4095;
  return d > 32 && d < 160 && d % 32 != 0;
}

// A row kernel: `rows` rows of n elements, row r of operand k at ptr[k] +
// r * step[k] bytes (step is read only when rows > 1: one row may pass
// nullptr). ptr[0] is the output, contiguous along its rows; ptr[1..] the
// inputs, each contiguous along its rows unless bit (k-1) of `bcast` is set,
// when it is one value repeated along each row (binary kernels: not both).
// `scalar` points to kMaxScalars numbers: alpha (add/sub) or value
// (addcmul/addcdiv) first, or a unary op's parameters as its rules resolved
// them. `stores`: how the output is written (StoreMode). Types are the
// kernel dtype's, bool for comparison outputs and where's condition. One
// indirect call takes a whole block of rows: a broadcast or strided layout
// costs a loop step per row, not a call.
using RowKernel = void (*)(int64_t n, int64_t rows, char* const* ptr, const int64_t* step,
                           unsigned bcast, const double* scalar, StoreMode stores);

// The kernel of `op` on kernel dtype `dtype` (inputs; for where, the values)
// for the best enabled SIMD target, or nullptr when the table has none.
// `alpha`: the scaled form of add/sub (alpha != 1).
RowKernel FindKernel(int op, bc_dtype dtype, bool alpha);
// The bytes up to which FindKernel's kernel takes each row of a block as
// one masked vector itself (binary float32/float64 ops with a vector form on
// AVX2 and AVX3), else 0: the executor then need not lay short rows out.
int ShortRowBytes(int op, bc_dtype dtype, bool alpha);

// Converts n contiguous elements between float32 and bfloat16 or float16 (round to
// nearest even, NaN stays NaN), with streaming stores if `stream`, or from an
// integer dtype or bool to float32 (as C converts; not streamed); with
// `stream`, also copies between equal dtypes (the caller flushes). Returns
// false, doing nothing, for any other pair of dtypes.
bool RunConvertKernel(bc_dtype to, void* dst, bc_dtype from, const void* src, int64_t n,
                      bool stream);
const char* ChosenTargetName();
// Caps dispatch at the target named as ChosenTargetName() spells it (NULL or
// "": no cap); throws BC_ERR_INVALID_ARGUMENT for a target this build or CPU
// lacks. Forgets every cached choice.
void CapSimdTargets(const char* name);
// Forgets the cached targets after the enabled set changed.
void ResetKernelDispatch();

}  // namespace bcast

#endif  // BCAST_KERNELS_KERNELS_H_
