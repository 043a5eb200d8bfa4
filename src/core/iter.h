// The broadcast iterator (bc_iter): a host's loop run on the executor. The
// operands are checked as an elementwise op's (core/compat.cc, overlap.cc),
// planned once (core/plan.cc) and run with the host's loop in place of a
// row kernel (core/execute.cc), pushed onto the context's threads or pulled
// a chunk at a time by the host.
#ifndef BCAST_CORE_ITER_H_
#define BCAST_CORE_ITER_H_

#include <atomic>
#include <cstdint>

#include "core/context.h"
#include "core/plan.h"
#include "core/tensor.h"

struct bc_iter {
  const bc_ctx* ctx = nullptr;  // the context it was made on (never NULL here)
  int nin = 0;
  unsigned flags = 0;
  bcast::Shape in_shape[3];
  bc_dtype in_dtype[3] = {};
  bc_dtype loop_dtype[4] = {};  // output first
  bc_dtype out_dtype = BC_FLOAT32;
  // Owned handles: views of the host's tensors (their storage stays alive
  // while the iterator lives), an allocated output, or contiguous copies of
  // inputs (legacy pointwise mode).
  bc_tensor* out = nullptr;
  bc_tensor* in[3] = {};
  int64_t numel = 0;
  int64_t chunk = 0;  // elements per pull-mode chunk
  size_t nchunks = 0;
  bcast::Plan plan;   // host unset: each run sets its own loop
  std::atomic<int> code{0};  // the first nonzero value a loop returned
  ~bc_iter();
};

namespace bcast {

// Checks and plans; throws bcast::Error (nothing allocated stays).
bc_iter* NewIter(const bc_ctx& ctx, const bc_iter_spec& spec);
// Replaces it's operands with new ones of the same shapes and dtypes.
void ResetIter(bc_iter& it, const bc_tensor* const* inputs, bc_tensor* out);
// Runs the whole iteration; throws BC_ERR_CALLBACK when the loop fails.
void RunIter(bc_iter& it, bc_loop2d_fn loop, void* user);
// Runs chunk i on the calling thread; returns the status (never throws).
bc_status RunIterChunk(bc_iter& it, size_t i, bc_loop2d_fn loop, void* user);

}  // namespace bcast

#endif  // BCAST_CORE_ITER_H_
