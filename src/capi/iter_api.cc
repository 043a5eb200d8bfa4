// The broadcast iterator's C entry points (src/core/iter.cc does the work).
#include "bcast/bcast.h"
#include "capi/guard.h"
#include "core/iter.h"

namespace {

using bcast::NotNull;

bc_status Do_iter_new(bc_ctx* ctx, const bc_iter_spec* spec, bc_iter** it) {
  if (it) *it = nullptr;
  return bcast::Guarded(ctx, [&] {
    NotNull(spec, "spec");
    NotNull(it, "it");
    *it = bcast::NewIter(bcast::Resolve(ctx), *spec);
  });
}

// The iterator's context for a failure: NULL (the calling thread's slot)
// for the default context.
const bc_ctx* ReportTo(const bc_iter* it) {
  return it == nullptr || it->ctx == &bcast::DefaultContext() ? nullptr : it->ctx;
}

}  // namespace

BC_FORMS(iter_new, (const bc_iter_spec* spec, bc_iter** it), (spec, it))

BC_API void bc_iter_free(bc_iter* it) { delete it; }

BC_API bc_status bc_iter_output(const bc_iter* it, bc_tensor** out) {
  if (out) *out = nullptr;
  return bcast::Guarded(ReportTo(it), [&] {
    NotNull(it, "it");
    NotNull(out, "out");
    *out = bcast::NewView(*it->out);
  });
}

BC_API int64_t bc_iter_numel(const bc_iter* it) { return it == nullptr ? 0 : it->numel; }

BC_API bc_status bc_iter_run(bc_iter* it, bc_loop2d_fn loop, void* user) {
  return bcast::Guarded(ReportTo(it), [&] {
    NotNull(it, "it");
    if (loop == nullptr) bcast::Fail(BC_ERR_INVALID_ARGUMENT, "loop is NULL");
    bcast::RunIter(*it, loop, user);
  });
}

BC_API size_t bc_iter_num_chunks(const bc_iter* it) { return it == nullptr ? 0 : it->nchunks; }

BC_API bc_status bc_iter_run_chunk(bc_iter* it, size_t i, bc_loop2d_fn loop, void* user) {
  if (it == nullptr || loop == nullptr) return BC_ERR_INVALID_ARGUMENT;
  try {
    return bcast::RunIterChunk(*it, i, loop, user);
  } catch (...) {  // (nothing in a chunk throws; no exception may leave)
    return BC_ERR_INTERNAL;
  }
}

BC_API int bc_iter_callback_code(const bc_iter* it) { return it == nullptr ? 0 : it->code.load(); }

BC_API void bc_iter_clear_failure(bc_iter* it) {
  if (it != nullptr) it->code.store(0);
}

BC_API bc_status bc_iter_reset(bc_iter* it, const bc_tensor* const* inputs, bc_tensor* out) {
  return bcast::Guarded(ReportTo(it), [&] {
    NotNull(it, "it");
    bcast::ResetIter(*it, inputs, out);
  });
}
