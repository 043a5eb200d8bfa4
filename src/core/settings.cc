#include "core/settings.h"

#include <omp.h>
#include <pthread.h>

#include <atomic>
#include <cstdio>
#include <cstring>
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

int DefaultThreads() {
  static const int n = omp_get_max_threads();
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

extern "C" {

BC_API void bc_set_broadcast_warning(int enabled) { bcast::g_broadcast_warning = enabled != 0; }
BC_API int bc_get_broadcast_warning(void) { return bcast::BroadcastWarningOn() ? 1 : 0; }
BC_API void bc_set_legacy_pointwise(int enabled) { bcast::g_legacy = enabled != 0; }
BC_API int bc_get_legacy_pointwise(void) { return bcast::LegacyPointwiseOn() ? 1 : 0; }
BC_API void bc_set_warnings_as_errors(int enabled) { bcast::g_warnings_as_errors = enabled != 0; }
BC_API int bc_get_warnings_as_errors(void) { return bcast::WarningsAsErrors() ? 1 : 0; }

BC_API bc_status bc_set_broadcast_policy(bc_policy policy) {
  // Read as an int: an out-of-range enum object is undefined behaviour in C++.
  int raw;
  std::memcpy(&raw, &policy, sizeof raw);
  if (raw != BC_POLICY_ALLOW && raw != BC_POLICY_WARN && raw != BC_POLICY_ERROR) {
    return bcast::SetLastError({BC_ERR_INVALID_ARGUMENT,
                                "unknown broadcast policy " + std::to_string(raw)});
  }
  bcast::g_policy = raw;
  return BC_OK;
}
BC_API bc_policy bc_get_broadcast_policy(void) { return bcast::Policy(); }

BC_API void bc_set_warning_handler(bc_warning_fn fn, void* user) {
  std::lock_guard<std::mutex> lock(bcast::g_handler_mu);
  bcast::g_handler = fn != nullptr ? fn : bcast::DefaultHandler;
  bcast::g_handler_user = fn != nullptr ? user : nullptr;
}

BC_API int bc_get_num_threads(void) { return bcast::NumThreads(); }

BC_API bc_status bc_set_num_threads(int n) {
  // More threads than this only adds overhead on any machine bcast runs on.
  constexpr int kMaxThreads = 1024;
  bcast::g_threads = n > 0 ? (n < kMaxThreads ? n : kMaxThreads) : 0;
  return BC_OK;
}

}  // extern "C"
