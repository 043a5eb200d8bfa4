// The engine's thread budget (src/core/parallel.cc), compiled into this test
// directly: however many host threads run threaded ops at once, bcast's own
// OpenMP threads never outnumber the process's cores, and every chunk runs
// exactly once.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "core/context.h"
#include "core/parallel.h"

namespace {

thread_local bool t_host = false;  // a thread of the test's, not of OpenMP

struct Probe {
  std::atomic<int> workers{0};      // OpenMP threads running a chunk now
  std::atomic<int> peak_workers{0};
  std::atomic<int> executors{0};    // any thread running a chunk now
  std::atomic<int> peak_executors{0};
  std::vector<std::atomic<int>>* hits = nullptr;
};

void Raise(std::atomic<int>& peak, int v) {
  int p = peak.load();
  while (v > p && !peak.compare_exchange_weak(p, v)) {
  }
}

void Chunk(void* task, size_t i) {
  Probe& p = *static_cast<Probe*>(task);
  const bool worker = !t_host;
  if (worker) Raise(p.peak_workers, ++p.workers);
  Raise(p.peak_executors, ++p.executors);
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(300);
  while (std::chrono::steady_clock::now() < until) {
  }
  if (p.hits) ++(*p.hits)[i];
  --p.executors;
  if (worker) --p.workers;
}

TEST(Parallel, EveryChunkRunsOnce) {
  std::vector<std::atomic<int>> hits(37);
  Probe p;
  p.hits = &hits;
  t_host = true;
  bcast::ParallelChunks(bcast::DefaultContext(), 4, hits.size(), Chunk, &p);
  for (size_t i = 0; i < hits.size(); ++i) EXPECT_EQ(hits[i].load(), 1) << i;
}

TEST(Parallel, OwnThreadsNeverOutnumberCoresWhateverTheHostThreads) {
  const int cores = bcast::ProcessCores();
  Probe p;
  std::vector<std::thread> hosts;
  for (int h = 0; h < 4 * cores + 2; ++h) {
    hosts.emplace_back([&] {
      t_host = true;
      for (int rep = 0; rep < 5; ++rep)
        bcast::ParallelChunks(bcast::DefaultContext(), cores, 16, Chunk, &p);
    });
  }
  for (std::thread& t : hosts) t.join();
  // Each threaded op counts its caller among its threads: OpenMP workers at
  // once are at most cores - 1.
  EXPECT_LE(p.peak_workers.load(), std::max(0, cores - 1));
  RecordProperty("cores", cores);
  RecordProperty("peak_workers", p.peak_workers.load());
}

TEST(Parallel, UsesSeveralThreadsWhenCoresAreFree) {
  const int cores = bcast::ProcessCores();
  if (cores < 2) GTEST_SKIP() << "one core";
  Probe p;
  t_host = true;
  bcast::ParallelChunks(bcast::DefaultContext(), 2, 64, Chunk, &p);
  EXPECT_EQ(p.peak_workers.load(), 1) << "one OpenMP worker beside the caller";
}

TEST(Parallel, SerialInsideTheHostsOpenMPRegion) {
  Probe p;
  int outer_threads = 0;
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    outer_threads = omp_get_num_threads();
    t_host = true;
    bcast::ParallelChunks(bcast::DefaultContext(), 4, 8, Chunk, &p);
  }
  // Each host OpenMP thread ran its op alone: at most one executor per host thread.
  EXPECT_LE(p.peak_executors.load(), outer_threads);
  EXPECT_EQ(p.peak_workers.load(), 0);
}

}  // namespace
