// The execution plan of an elementwise op: broadcast strides with size-1
// dims dropped, dims sorted by the output's strides and coalesced, and the
// op's row kernel, bound once (src/kernels). core/execute.cc runs it: split
// over OpenMP threads above a grain size, as 2-D blocks of rows whose layout
// (strides, tiles, gathers, conversions) it handles for every op alike.
#ifndef BCAST_CORE_PLAN_H_
#define BCAST_CORE_PLAN_H_

#include <atomic>
#include <cstdint>

#include "core/context.h"
#include "core/tensor.h"
#include "kernels/kernels.h"

namespace bcast {

// A host's loop (bc_iter) run in place of a row kernel: the executor gives
// it the blocks of rows it would give the kernel, with byte strides.
struct HostLoop {
  bc_loop2d_fn fn = nullptr;
  void* user = nullptr;
  std::atomic<int>* code = nullptr;  // the first nonzero value fn returned: no more calls
};

// Output buffers of one range of a host's run (core/execute.cc).
struct HostBuffers;

struct Plan {
  int nops = 0;  // output plus inputs
  int ndim = 0;  // dims after dropping and coalescing; dim 0 is the fastest
  // Only the first ndim entries (and nops operands) are meaningful.
  int64_t shape[BC_MAX_DIMS];
  int64_t stride[4][BC_MAX_DIMS];  // elements, per operand
  char* base[4];
  bc_dtype dtype[4];  // storage dtype of each operand
  bc_dtype ktype[4];  // dtype the kernel reads or writes for each operand
  bc_dtype via[4];    // dtype each value is rounded through on conversion (else ktype)
  RowKernel kernel = nullptr;  // the op on the kernel dtypes (ktype)
  // Rows of up to this many bytes the kernel takes as one masked vector
  // each (ShortRowBytes; 0: none): the executor need not lay them out.
  int short_row_bytes = 0;
  double scalar[kMaxScalars] = {1, 0, 0};  // alpha or value; a unary op's parameters
  // Whether the output may bypass the cache (it aliases no input), and the
  // bytes the op moves (output plus each input's own elements): Execute
  // streams when moved reaches StreamingBytes() for its thread count, and
  // sets prefetch (fetch the inputs ahead as well) below PrefetchBytes().
  bool stream = false;
  bool prefetch = false;
  int64_t moved = 0;
  // Set for a host's loop (kernel unused), which then sees operands in
  // their ktype; max_threads: at most that many threads (0: no cap).
  HostLoop* host = nullptr;
  int max_threads = 0;
  // A host's plan while a range of it runs (set by the executor): the
  // buffers handed to the loop in place of the output.
  HostBuffers* host_out = nullptr;
};

// Operands are the output then the inputs, each viewed with the result shape
// `shape` (strides 0 on broadcast dims).
void BuildPlan(const Shape& shape, int nops, bc_tensor* const* tensors, const int64_t (*strides)[BC_MAX_DIMS],
               Plan* plan);
// Runs the plan on up to the context's thread count (see ParallelChunks),
// first settling its stores for that count (stream, prefetch).
void Execute(Plan& plan, const bc_ctx& ctx);

// Runs linear elements [begin, end) of the plan's iteration space (dims in
// plan order, dim 0 the fastest) on the calling thread: a chunk of a host's
// pull mode (bc_iter_run_chunk).
void ExecuteRange(const Plan& plan, int64_t begin, int64_t end);

// The row kernel that copies elements of `size` bytes (the engine's kCopy).
RowKernel CopyKernel(size_t size);

// Bytes moved (output and inputs) from which an op on `threads` threads
// writes its output with non-temporal stores.
int64_t StreamingBytes(int64_t threads);

// The cache an op's bytes must fit in for plain stores to beat streaming
// ones (StreamingBytes builds on it; plan.cc has the measurements), from
// what the CPU reports: `amd` its vendor, `l2` a core's L2 and `l3` one L3
// instance, in bytes (0: unknown). An AMD L3 belongs to one core complex
// (up to 32 MiB, 96 with stacked cache) and feeds its cores fast: it counts,
// taken at most as 16 MiB since virtual machines get a slice of it. Elsewhere
// an L3 above 64 MiB is a whole server's mesh, which fed one core no faster
// than memory takes streamed stores: a core's own L2 counts (*per_core).
inline int64_t StoreCacheBytes(bool amd, int64_t l2, int64_t l3, bool* per_core) {
  const int64_t cap = int64_t{16} << 20, server = int64_t{64} << 20;
  *per_core = !amd && l3 > server && l2 > 0;
  if (*per_core) return l2;
  return l3 > 0 && l3 < cap ? l3 : cap;
}
// Bytes moved below which a streaming op also fetches its inputs ahead
// (every op; ops whose functor sets kPrefetch always do).
int64_t PrefetchBytes();

}  // namespace bcast

#endif  // BCAST_CORE_PLAN_H_
