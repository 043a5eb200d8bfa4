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

// Each thread gets at least ThreadNs() of an op's estimated time, learned
// from the threaded ops themselves, because what a second thread costs (its
// wake-up, the barrier, the lines that move between cores) differs
// several-fold between machines. Measured from C (float32 and float64
// broadcasts, 1 vs 2 threads):
// - Intel Xeon VM, 2 cores: ops of 9-17 us were no faster on two threads
//   (8 us let (256,256)+(256,), 9 us alone, take a second thread and 11 us:
//   a cost near 6.5 us), and (768,256)+(256,) 30-39 -> 18 us, (512,512)+
//   (512,) 60 -> 22 us. A fixed 10 us held there.
// - AMD EPYC Zen 4 VM, 2 cores (2026-11-28): a cost near 1.7 us.
//   (300,300) - (300,1) float64 16 -> 9.7 us and same-shape (65536,) float32
//   8.6 -> 6.0 us on two threads; the fixed 10 us kept both on one, at
//   0.63x and 0.65x PyTorch's two threads.
// The rule starts at the 10 us that held on both and moves a quarter of the
// way to 1.5 times each marginal op's observed cost per thread (its time on
// T threads minus a T-th of its time alone), within [2, 10] us: never above
// the fixed 10 us, because ops that run at once on several host threads
// (or a busy machine) look dear and would otherwise keep later ops, which
// do gain from threads, on one (found by the Rust binding's scheduler test,
// whose 30 us op then stayed serial). Only ops
// within 4x of the floor teach it: a large op that does not scale (memory
// bound) says nothing about what a thread costs. So that the rule can
// learn downward where no op is yet long enough to be threaded, one op in
// kExploreEvery of those up to 2x below the threshold runs on two threads
// (ThreadsForTime): where threads cost more, that op is up to about a
// fifth slower, once in so many.
constexpr double kStartThreadNs = 10000, kMinThreadNs = 2000, kMaxThreadNs = 10000;
constexpr uint32_t kExploreEvery = 16;
std::atomic<double> g_thread_ns{kStartThreadNs};
std::atomic<uint32_t> g_explore{0};

constexpr double kThreadCostNs = 2000;

}  // namespace

double NextThreadNs(double current, double alone_ns, double took_ns, int threads) {
  if (threads < 2 || alone_ns <= 0 || alone_ns > 4 * threads * current) return current;
  const double cost = took_ns - alone_ns / threads;
  const double target = std::min(kMaxThreadNs, std::max(kMinThreadNs, 1.5 * cost));
  return current + (target - current) / 4;
}

double ThreadNs() { return g_thread_ns.load(std::memory_order_relaxed); }

void NoteThreadedTime(double alone_ns, double took_ns, int threads) {
  // Racing updates lose one of them: harmless for a running estimate.
  g_thread_ns.store(NextThreadNs(ThreadNs(), alone_ns, took_ns, threads),
                    std::memory_order_relaxed);
}

int ThreadsForTime(double ns, int most) {
  const double floor = ThreadNs(), cap = std::sqrt(ns / kThreadCostNs);
  const double t = std::min(ns / floor, cap);
  if (t >= 2) return static_cast<int>(std::min<double>(most, t));
  if (most >= 2 && cap >= 2 && ns >= floor &&
      g_explore.fetch_add(1, std::memory_order_relaxed) % kExploreEvery == 0)
    return 2;
  return 1;
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

int ParallelChunks(const bc_ctx& ctx, int threads, size_t nchunks, bc_chunk_fn fn, void* task) {
  if (threads <= 1 || nchunks <= 1 || omp_in_parallel()) {
    for (size_t i = 0; i < nchunks; ++i) fn(task, i);
    return 0;
  }
  if (ctx.scheduler.run != nullptr) {
    ctx.scheduler.run(ctx.scheduler.user, nchunks, fn, task);
    return 0;
  }
  const int64_t start = NowNs();
  const int got = start < g_serial_until.load(std::memory_order_relaxed) ? 0 : TakeCores(threads);
  if (got < 2) {
    for (size_t i = 0; i < nchunks; ++i) fn(task, i);
    return 0;
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
  return got;
}

}  // namespace bcast
