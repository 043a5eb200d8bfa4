// Contexts (bc_ctx): the settings, warning handler, thread budget, host
// scheduler and last error of one component of the host process. The
// default context (a NULL bc_ctx*) holds the process-wide settings and keeps
// its last error per thread.
#ifndef BCAST_CORE_CONTEXT_H_
#define BCAST_CORE_CONTEXT_H_

#include <atomic>
#include <mutex>
#include <string>

#include "bcast/bcast.h"
#include "core/error.h"

// Settings are atomics and the handler sits under a lock so that the
// default context may be changed from any thread while ops run; a context
// of the host's is used by one thread at a time, and pays nothing for that.
struct bc_ctx {
  std::atomic<bool> broadcast_warning{false};
  std::atomic<bool> legacy_pointwise{false};
  std::atomic<bool> warnings_as_errors{false};
  std::atomic<int> policy{BC_POLICY_ALLOW};
  std::atomic<int> threads{0};  // 0: the default count
  mutable std::mutex handler_mu;
  bc_warning_fn handler = nullptr;  // nullptr: write to stderr
  void* handler_user = nullptr;
  bc_scheduler scheduler = {};  // run == nullptr: OpenMP
  bcast::ErrorSlot error;       // unused by the default context (per thread)
};

namespace bcast {

// The process-wide default context; never destroyed.
bc_ctx& DefaultContext();
// `ctx`, or the default context for NULL.
inline const bc_ctx& Resolve(const bc_ctx* ctx) { return ctx ? *ctx : DefaultContext(); }

// Where a failure on `ctx` is recorded: the context's slot, or this
// thread's for the default context.
ErrorSlot& ErrorSlotOf(const bc_ctx* ctx);

inline bool BroadcastWarningOn(const bc_ctx& c) {
  return c.broadcast_warning.load(std::memory_order_relaxed);
}
inline bool LegacyPointwiseOn(const bc_ctx& c) {
  return c.legacy_pointwise.load(std::memory_order_relaxed);
}
inline bc_policy Policy(const bc_ctx& c) {
  return static_cast<bc_policy>(c.policy.load(std::memory_order_relaxed));
}

// Threads an op on `ctx` may use: the budget (by default OpenMP's default
// count), or with a host scheduler its count, capped by a budget that was
// set; 1 in a forked child.
int NumThreads(const bc_ctx& ctx);
void SetNumThreads(bc_ctx& ctx, int64_t n);  // <= 0: the default

// Sends `message` to the context's handler, or throws BC_ERR_POLICY when
// its warnings are errors.
void Warn(const bc_ctx& ctx, const std::string& message);

}  // namespace bcast

#endif  // BCAST_CORE_CONTEXT_H_
