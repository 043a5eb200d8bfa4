#include "core/context.h"

#include <omp.h>
#include <pthread.h>

#include <cstdio>

namespace bcast {

namespace {

// Constant-initialised (every member has a constexpr initialiser), so it
// exists before any static constructor of the host runs, and its trivial
// teardown at exit leaves it usable by late callers.
bc_ctx g_default;

void WriteToStderr(const char* message, void*) {
  std::fprintf(stderr, "bcast warning: %s\n", message);
}

// An atomic, not a function-local static: see StreamingBytes.
int DefaultThreads() {
  static std::atomic<int> cached{0};
  int n = cached.load(std::memory_order_relaxed);
  if (n == 0) {
    n = omp_get_max_threads();
    cached.store(n, std::memory_order_relaxed);
  }
  return n;
}

// libgomp's thread pool does not survive fork(): a child that entered a
// parallel region could hang. Children therefore run every op serially.
std::atomic<bool> g_forked_child{false};
void OnForkChild() { g_forked_child.store(true, std::memory_order_relaxed); }
const bool g_atfork_registered = pthread_atfork(nullptr, nullptr, OnForkChild) == 0;

}  // namespace

bc_ctx& DefaultContext() { return g_default; }

ErrorSlot& ErrorSlotOf(const bc_ctx* ctx) {
  return ctx != nullptr ? const_cast<bc_ctx*>(ctx)->error : ThreadErrorSlot();
}

int NumThreads(const bc_ctx& ctx) {
  if (g_forked_child.load(std::memory_order_relaxed)) return 1;
  const int n = ctx.threads.load(std::memory_order_relaxed);
  if (ctx.scheduler.run != nullptr) {  // the host's pool, within the budget if one was set
    int host = ctx.scheduler.num_threads(ctx.scheduler.user);
    if (host < 1) host = 1;
    return n > 0 && n < host ? n : host;
  }
  return n > 0 ? n : DefaultThreads();
}

void SetNumThreads(bc_ctx& ctx, int64_t n) {
  // More threads than this only adds overhead on any machine bcast runs on.
  constexpr int64_t kMaxThreads = 1024;
  ctx.threads = static_cast<int>(n > 0 ? (n < kMaxThreads ? n : kMaxThreads) : 0);
}

void Warn(const bc_ctx& ctx, const std::string& message) {
  if (ctx.warnings_as_errors.load(std::memory_order_relaxed)) Fail(BC_ERR_POLICY, message);
  bc_warning_fn fn;
  void* user;
  {
    // The handler runs outside the lock, so that it may call bcast.
    std::lock_guard<std::mutex> lock(ctx.handler_mu);
    fn = ctx.handler;
    user = ctx.handler_user;
  }
  if (fn == nullptr) fn = WriteToStderr;
  fn(message.c_str(), user);
}

}  // namespace bcast
