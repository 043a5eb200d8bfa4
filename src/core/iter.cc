#include "core/iter.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "core/compat.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/ops.h"
#include "core/overlap.h"
#include "core/parallel.h"
#include "core/shape.h"

bc_iter::~bc_iter() {
  bcast::FreeTensor(out);
  for (bc_tensor* t : in) bcast::FreeTensor(t);
}

namespace bcast {

namespace {

// Pull-mode chunks: at least kGrain elements (PyTorch's grain size), on
// 64-element multiples (threads stay off each other's cache lines), and no
// more than kMaxChunks of them.
constexpr int64_t kGrain = 32768;
constexpr int64_t kMaxChunks = 1024;

void CheckDtype(int d, const char* what) {
  if (!ValidDtype(d)) Fail(BC_ERR_INVALID_ARGUMENT, std::string("unknown dtype ") + std::to_string(d) + " for " + what);
}

// Checks the operands in an elementwise op's order (the written tensor's
// overlaps, the broadcast, out='s shape, the inputs' overlaps as
// broadcast), then sends the context's warnings and plans.
std::unique_ptr<bc_iter> Prepare(const bc_ctx& ctx, const bc_iter_spec& spec) {
  if (spec.nin < 1 || spec.nin > BC_ITER_MAX_OPERANDS - 1)
    Fail(BC_ERR_INVALID_ARGUMENT, "an iterator takes 1 to " + std::to_string(BC_ITER_MAX_OPERANDS - 1) +
                                      " inputs, not " + std::to_string(spec.nin));
  if (spec.inputs == nullptr) Fail(BC_ERR_INVALID_ARGUMENT, "inputs is NULL");
  if ((spec.flags & ~(BC_ITER_SERIAL | BC_ITER_DIRECT_OUTPUT)) != 0)
    Fail(BC_ERR_INVALID_ARGUMENT, "unknown iterator flags " + std::to_string(spec.flags));
  OpArgs a;
  a.ctx = &ctx;
  a.op = kHostLoop;
  a.nin = static_cast<int>(spec.nin);
  for (int i = 0; i < a.nin; ++i) {
    if (spec.inputs[i] == nullptr) Fail(BC_ERR_INVALID_ARGUMENT, "input " + std::to_string(i) + " is NULL");
    a.in[i] = spec.inputs[i];
  }
  bc_tensor* out = spec.out;
  if (out == nullptr) {
    CheckDtype(RawEnum(spec.out_dtype), "the output");
  } else {
    CheckWritable(*out, "out");
  }
  auto it = std::make_unique<bc_iter>();
  it->ctx = &ctx;
  it->nin = a.nin;
  it->flags = spec.flags;
  for (int k = 0; k <= a.nin; ++k) {
    if (spec.loop_dtypes != nullptr) CheckDtype(RawEnum(spec.loop_dtypes[k]), k == 0 ? "the output" : "an input");
  }
  if (out != nullptr) {
    if (HasInternalOverlap(*out)) FailInternalOverlap();
    for (int i = 0; i < a.nin; ++i) CheckOverlap(*out, *a.in[i]);
  }
  const OperandBroadcast b = BroadcastOperands(a, out);
  const Shape& result = b.result;
  if (out != nullptr) CheckOutShape(a, *out, false, b);
  int64_t strides[4][BC_MAX_DIMS];
  for (int i = 0; i < a.nin; ++i) {
    it->in_shape[i] = b.shapes[i];
    it->in_dtype[i] = a.in[i]->dtype;
    if (b.legacy) {
      // Viewed pointwise as the first input's shape: a contiguous copy.
      it->in[i] = NewTensor(a.in[i]->dtype, b.shapes[i]);
      CopyElements(ctx, *it->in[i], *a.in[i]);
      RowMajorStrides(result.d, result.ndim, strides[i + 1]);
    } else {
      it->in[i] = NewView(*a.in[i]);
      BroadcastStrides(*a.in[i], result, strides[i + 1]);
    }
  }
  if (out != nullptr) {
    for (int i = 0; i < a.nin; ++i) CheckOverlap(*out, *it->in[i], strides[i + 1]);
  }
  it->numel = ShapeNumel(result);
  for (const std::string& w : b.warnings) Warn(ctx, w);
  if (out != nullptr) {
    it->out = NewView(*out);
  } else {
    // Zero-filled, as bc_iter_run promises every output row a loop sees
    // holds initialised bytes (as bc_tensor_zeros fills).
    it->out = NewTensor(spec.out_dtype, result);
    std::memset(it->out->data, 0, it->out->storage->nbytes);
  }
  it->out_dtype = it->out->dtype;
  for (int k = 0; k <= a.nin; ++k) {
    const bc_dtype own = k == 0 ? it->out->dtype : a.in[k - 1]->dtype;
    it->loop_dtype[k] = spec.loop_dtypes != nullptr ? spec.loop_dtypes[k] : own;
  }
  if (it->numel == 0) return it;  // nothing to run (empty strides may be anything)
  for (int d = 0; d < result.ndim; ++d) strides[0][d] = it->out->strides[d];
  bc_tensor* ts[4] = {it->out, it->in[0], it->in[1], it->in[2]};
  Plan& p = it->plan;
  BuildPlan(result, a.nin + 1, ts, strides, &p);
  for (int k = 0; k <= a.nin; ++k) p.ktype[k] = p.via[k] = it->loop_dtype[k];
  // Large outputs leave through L1 tiles with streaming stores (see
  // Converted in core/execute.cc), unless the output shares memory with an
  // input. Execute settles it for its thread count, RunIterChunk for one
  // thread per chunk.
  bool aliased = false;
  int64_t moved = it->numel * static_cast<int64_t>(DtypeSize(it->out->dtype));
  for (int i = 0; i < a.nin; ++i) {
    aliased |= it->in[i]->storage == it->out->storage;
    moved += Numel(*it->in[i]) * static_cast<int64_t>(DtypeSize(it->in[i]->dtype));
  }
  const bool direct = (spec.flags & BC_ITER_DIRECT_OUTPUT) != 0;
  p.stream = !aliased && !direct;
  p.moved = moved;
  p.max_threads = (spec.flags & BC_ITER_SERIAL) != 0 ? 1 : 0;
  int64_t chunk = std::max(kGrain, (it->numel + kMaxChunks - 1) / kMaxChunks);
  chunk = (chunk + 63) / 64 * 64;
  it->chunk = chunk;
  it->nchunks = static_cast<size_t>((it->numel + chunk - 1) / chunk);
  return it;
}

}  // namespace

bc_iter* NewIter(const bc_ctx& ctx, const bc_iter_spec& spec) { return Prepare(ctx, spec).release(); }

void ResetIter(bc_iter& it, const bc_tensor* const* inputs, bc_tensor* out) {
  if (inputs == nullptr) Fail(BC_ERR_INVALID_ARGUMENT, "inputs is NULL");
  for (int i = 0; i < it.nin; ++i) {
    if (inputs[i] == nullptr) Fail(BC_ERR_INVALID_ARGUMENT, "input " + std::to_string(i) + " is NULL");
    const Shape s = ShapeOf(*inputs[i]);
    if (!SameShape(s, it.in_shape[i]))
      Fail(BC_ERR_SHAPE_MISMATCH, "input " + std::to_string(i) + " has shape " + FormatShape(s) +
                                      ", the iterator was planned for " + FormatShape(it.in_shape[i]));
    if (inputs[i]->dtype != it.in_dtype[i])
      Fail(BC_ERR_DTYPE, "input " + std::to_string(i) + " has dtype " + DtypeName(inputs[i]->dtype) +
                             ", the iterator was planned for " + DtypeName(it.in_dtype[i]));
  }
  if (out != nullptr && out->dtype != it.out_dtype)
    Fail(BC_ERR_DTYPE, std::string("out has dtype ") + DtypeName(out->dtype) +
                           ", the iterator was planned for " + DtypeName(it.out_dtype));
  bc_iter_spec spec{};
  spec.inputs = inputs;
  spec.nin = static_cast<size_t>(it.nin);
  spec.out = out;
  spec.out_dtype = it.out_dtype;
  spec.loop_dtypes = it.loop_dtype;
  spec.flags = it.flags;
  std::unique_ptr<bc_iter> fresh = Prepare(*it.ctx, spec);
  // Same shapes: the same output shape, so out='s shape was checked.
  std::swap(it.out, fresh->out);
  for (int i = 0; i < 3; ++i) std::swap(it.in[i], fresh->in[i]);
  it.plan = fresh->plan;
  it.chunk = fresh->chunk;
  it.nchunks = fresh->nchunks;
  it.numel = fresh->numel;
  it.code.store(0);
}

void RunIter(bc_iter& it, bc_loop2d_fn loop, void* user) {
  it.code.store(0);
  if (it.numel == 0) return;
  Plan p = it.plan;
  HostLoop host{loop, user, &it.code};
  p.host = &host;
  Execute(p, *it.ctx);
  if (const int code = it.code.load(); code != 0)
    Fail(BC_ERR_CALLBACK, "the host loop returned " + std::to_string(code));
}

bc_status RunIterChunk(bc_iter& it, size_t i, bc_loop2d_fn loop, void* user) {
  if (i >= it.nchunks) return BC_ERR_INVALID_ARGUMENT;
  if (it.code.load(std::memory_order_relaxed) != 0) return BC_ERR_CALLBACK;
  Plan p = it.plan;
  HostLoop host{loop, user, &it.code};
  p.host = &host;
  p.stream = p.stream && p.moved >= StreamingBytes(1);  // one thread per chunk
  const int64_t begin = static_cast<int64_t>(i) * it.chunk;
  ExecuteRange(p, begin, std::min(it.numel, begin + it.chunk));
  return it.code.load(std::memory_order_relaxed) != 0 ? BC_ERR_CALLBACK : BC_OK;
}

}  // namespace bcast
