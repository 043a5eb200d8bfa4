#include "core/parallel.h"

#include <omp.h>

#include <algorithm>
#include <atomic>

namespace bcast {

namespace {

// OpenMP threads (callers included) inside threaded ops, process-wide.
std::atomic<int> g_cores_in_use{0};

// Takes up to `want` cores from the budget; returns how many were taken:
// 0 when fewer than 2 are free (the op then runs on its caller alone,
// which is the host's thread, not one of bcast's).
int TakeCores(int want) {
  const int cores = ProcessCores();
  int used = g_cores_in_use.load(std::memory_order_relaxed);
  for (;;) {
    const int take = std::min(want, cores - used);
    if (take < 2) return 0;
    if (g_cores_in_use.compare_exchange_weak(used, used + take, std::memory_order_acq_rel))
      return take;
  }
}

struct Dealer {
  bc_chunk_fn fn;
  void* task;
  size_t nchunks;
  std::atomic<size_t> next{0};

  void Work() {
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < nchunks;) fn(task, i);
  }
};

// The OpenMP region, out of line: a function holding one calls into the
// OpenMP runtime on entry (clang's code does), and a forked child, which runs
// serially, must not (LLVM's runtime may hold a lock another thread of the
// parent had taken: the child would wait forever).
__attribute__((noinline)) void RunOpenMP(Dealer* d, int threads) {
#pragma omp parallel num_threads(threads)
  d->Work();
}

}  // namespace

int ProcessCores() {
  // An atomic, not a function-local static: see StreamingThreshold.
  static std::atomic<int> cached{0};
  int n = cached.load(std::memory_order_relaxed);
  if (n == 0) {
    n = std::max(1, omp_get_num_procs());  // libgomp counts the affinity mask
    cached.store(n, std::memory_order_relaxed);
  }
  return n;
}

void ParallelChunks(const bc_ctx& ctx, int threads, size_t nchunks, bc_chunk_fn fn, void* task) {
  Dealer d{fn, task, nchunks};
  if (threads <= 1 || nchunks <= 1 || omp_in_parallel()) {
    d.Work();
    return;
  }
  if (ctx.scheduler.run != nullptr) {
    ctx.scheduler.run(ctx.scheduler.user, nchunks, fn, task);
    return;
  }
  const int got = TakeCores(threads);
  if (got < 2) {
    d.Work();
    return;
  }
  RunOpenMP(&d, got);
  g_cores_in_use.fetch_sub(got, std::memory_order_acq_rel);
}

}  // namespace bcast
