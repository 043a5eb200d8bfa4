#include "core/settings.h"

#include <omp.h>
#include <pthread.h>

#include <atomic>
#include <cstdio>
#include <mutex>

#include "core/error.h"

namespace bcast {

namespace {

std::atomic<bool> g_broadcast_warning{false};
std::atomic<bool> g_legacy{false};
std::atomic<int> g_policy{BC_POLICY_ALLOW};
std::atomic<bool> g_warnings_as_errors{false};
std::atomic<int> g_threads{0};  // 0: OpenMP's default

void DefaultHandler(const char* message, void*) {
  std::fprintf(stderr, "bcast warning: %s\n", message);
}

// The handler and its user pointer change together, so they share a lock;
// the handler itself runs outside it so that it may call back into bcast.
std::mutex g_handler_mu;
bc_warning_fn g_handler = DefaultHandler;
void* g_handler_user = nullptr;

// An atomic, not a function-local static: see StreamingThreshold.
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

bool BroadcastWarningOn() { return g_broadcast_warning.load(std::memory_order_relaxed); }
bool LegacyPointwiseOn() { return g_legacy.load(std::memory_order_relaxed); }
bc_policy Policy() { return static_cast<bc_policy>(g_policy.load(std::memory_order_relaxed)); }
bool WarningsAsErrors() { return g_warnings_as_errors.load(std::memory_order_relaxed); }

int NumThreads() {
  if (g_forked_child.load(std::memory_order_relaxed)) return 1;
  int n = g_threads.load(std::memory_order_relaxed);
  return n > 0 ? n : DefaultThreads();
}

void SetBroadcastWarning(bool on) { g_broadcast_warning = on; }
void SetLegacyPointwise(bool on) { g_legacy = on; }
void SetWarningsAsErrors(bool on) { g_warnings_as_errors = on; }
void SetPolicy(bc_policy policy) { g_policy = policy; }
void SetNumThreads(int n) {
  // More threads than this only adds overhead on any machine bcast runs on.
  constexpr int kMaxThreads = 1024;
  g_threads = n > 0 ? (n < kMaxThreads ? n : kMaxThreads) : 0;
}
void SetWarningHandler(bc_warning_fn fn, void* user) {
  std::lock_guard<std::mutex> lock(g_handler_mu);
  g_handler = fn != nullptr ? fn : DefaultHandler;
  g_handler_user = fn != nullptr ? user : nullptr;
}

void Warn(const std::string& message) {
  if (WarningsAsErrors()) Fail(BC_ERR_POLICY, message);
  bc_warning_fn fn;
  void* user;
  {
    std::lock_guard<std::mutex> lock(g_handler_mu);
    fn = g_handler;
    user = g_handler_user;
  }
  fn(message.c_str(), user);
}

}  // namespace bcast

