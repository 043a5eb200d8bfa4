#include "core/parallel.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>

namespace bcast {

namespace {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

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

// Deals the chunks of a threaded op: thread t first runs its own share,
// chunks [t*n/T, (t+1)*n/T) in order, then takes what is left of the
// others' shares. Without stalls a thread gets the same share every time,
// so an op repeated on the same data (or the next op on its output) finds
// its share in that core's cache: with chunks dealt to whoever came first,
// a (512,512)+(512,) float32 on two threads kept neither half in either
// core's L2 (Intel Xeon, 2 MiB L2 each). A stalled thread's share is still
// taken by the others.
constexpr int kMaxShares = 64;

struct Dealer {
  struct alignas(64) Share {
    std::atomic<size_t> next{0};  // its next chunk (may run past `end`)
    size_t end = 0;
  };
  bc_chunk_fn fn;
  void* task;
  size_t nchunks;
  int nshares;
  Share* shares;

  // Runs chunks until none is left; returns how many this thread ran.
  size_t Work(int t) {
    size_t ran = 0;
    for (int k = 0; k < nshares; ++k) {
      Share& s = shares[(t + k) % nshares];
      for (size_t i; (i = s.next.fetch_add(1, std::memory_order_relaxed)) < s.end; ++ran) fn(task, i);
    }
    return ran;
  }
};

// The OpenMP region, out of line: a function holding one calls into the
// OpenMP runtime on entry (clang's code does), and a forked child, which runs
// serially, must not (LLVM's runtime may hold a lock another thread of the
// parent had taken: the child would wait forever).
// What the calling thread saw of a threaded run, for the stall check below.
struct CallerShare {
  int64_t done_ns = 0;  // when it found no chunk left
  size_t chunks = 0;    // how many it ran
};

__attribute__((noinline)) CallerShare RunOpenMP(Dealer* d, int threads) {
  CallerShare me;
#pragma omp parallel num_threads(threads)
  {
    const size_t ran = d->Work(omp_get_thread_num());
    if (omp_get_thread_num() == 0) me = {NowNs(), ran};
  }
  return me;
}

// Stalls. A thread on a core that another process keeps busy may not run
// for a whole time slice (milliseconds), and an OpenMP region cannot end
// before every thread of its team has arrived, even one that found no chunk
// left. When a threaded op took longer than the caller alone would have (its
// time per chunk times all chunks), by more than kStallNs, threaded ops run
// on the caller alone for a while (doubling from 50 ms up to 1 s while stalls
// go on), then try threads again: more threads are then not slower than one,
// at the price of one slow op per backoff period.
constexpr int64_t kStallNs = 250000;
constexpr int64_t kMinBackoffNs = 50000000, kMaxBackoffNs = 1000000000;
std::atomic<int64_t> g_serial_until{0};
std::atomic<int64_t> g_backoff{kMinBackoffNs};

void NoteStalls(int64_t start, const CallerShare& me, size_t nchunks, int64_t end) {
  const int64_t worked = me.done_ns - start, waited = end - me.done_ns;
  const int64_t alone = me.chunks > 0 ? worked / static_cast<int64_t>(me.chunks) *
                                            static_cast<int64_t>(nchunks)
                                      : 0;
  if (waited > kStallNs && end - start > alone + kStallNs) {
    const int64_t b = g_backoff.load(std::memory_order_relaxed);
    g_serial_until.store(end + b, std::memory_order_relaxed);
    g_backoff.store(std::min(2 * b, kMaxBackoffNs), std::memory_order_relaxed);
  } else if (waited * 4 < worked) {
    g_backoff.store(kMinBackoffNs, std::memory_order_relaxed);
  }
}

// Each thread gets at least kThreadNs of an op's estimated time. Measured
// on the Intel Xeon from C (float32 broadcasts, 1 vs 2 threads, each thread
// on its own share of the chunks): at 10 us ops of 9-17 us stay on one
// thread (8 us let (256,256)+(256,), 9 us alone, take a second thread and
// 11 us), and (768,256)+(256,) 30-39 -> 18 us, (512,512)+(512,) 60 -> 22 us;
// at 16 us the first stayed at 30 us.
constexpr double kThreadNs = 10000;
// And no more than sqrt(time / kThreadCostNs) threads: with a cost b per
// thread (its wake-up, its share of the barrier), W / T + b T is least at
// T = sqrt(W / b). On 2 cores this never binds (it allows 2 threads from
// 8 us, kThreadNs from 20 us); on the 16-core Intel Xeon (device machine,
// bench/thread_scaling.c) ops of 60-120 us took up to 11 threads by
// kThreadNs alone and ran 10-20% slower than on 8.
constexpr double kThreadCostNs = 2000;

}  // namespace

int ThreadsForTime(double ns, int most) {
  const double t = std::min(ns / kThreadNs, std::sqrt(ns / kThreadCostNs));
  return t < 2 ? 1 : static_cast<int>(std::min<double>(most, t));
}

int ProcessCores() {
  // An atomic, not a function-local static: see StreamingBytes.
  static std::atomic<int> cached{0};
  int n = cached.load(std::memory_order_relaxed);
  if (n == 0) {
    n = std::max(1, omp_get_num_procs());  // libgomp counts the affinity mask
    cached.store(n, std::memory_order_relaxed);
  }
  return n;
}

void ParallelChunks(const bc_ctx& ctx, int threads, size_t nchunks, bc_chunk_fn fn, void* task) {
  if (threads <= 1 || nchunks <= 1 || omp_in_parallel()) {
    for (size_t i = 0; i < nchunks; ++i) fn(task, i);
    return;
  }
  if (ctx.scheduler.run != nullptr) {
    ctx.scheduler.run(ctx.scheduler.user, nchunks, fn, task);
    return;
  }
  const int64_t start = NowNs();
  const int got = start < g_serial_until.load(std::memory_order_relaxed) ? 0 : TakeCores(threads);
  if (got < 2) {
    for (size_t i = 0; i < nchunks; ++i) fn(task, i);
    return;
  }
  // One share per thread (threads past kMaxShares start on a share that
  // another thread starts on too).
  Dealer::Share shares[kMaxShares];
  const int nshares = std::min(got, kMaxShares);
  for (int t = 0; t < nshares; ++t) {
    shares[t].next.store(nchunks * static_cast<size_t>(t) / static_cast<size_t>(nshares),
                         std::memory_order_relaxed);
    shares[t].end = nchunks * static_cast<size_t>(t + 1) / static_cast<size_t>(nshares);
  }
  Dealer d{fn, task, nchunks, nshares, shares};
  const CallerShare me = RunOpenMP(&d, got);
  g_cores_in_use.fetch_sub(got, std::memory_order_acq_rel);
  NoteStalls(start, me, nchunks, NowNs());
}

}  // namespace bcast
