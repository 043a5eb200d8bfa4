// Embedding hazards: what a host program does around the library.
// - Threads the host created itself (raw pthreads with small stacks, short
//   lived, many of them), each with its own error state.
// - fork(): after the parent used the OpenMP pool, the child runs ops,
//   parallel ones included; a hang fails the test through a timeout.
// - The host's own OpenMP parallel region, nesting allowed: the library runs
//   serially inside it (results right, no extra threads).
// See docs/reliability.md.
#include <dirent.h>
#include <gtest/gtest.h>
#include <omp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "rel_util.h"

namespace rel {
namespace {

// Elements well above the library's parallel grain, so that ops with
// several threads really open an OpenMP region.
constexpr int64_t kRows = 512, kCols = 640;

std::vector<float> Values(int64_t n, float seed) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = std::sin(seed + static_cast<float>(i) * 0.001f) * 8.0f;
  return v;
}

// a[kRows, kCols] * b[kCols] + (the same with c), checked against a naive
// loop. Returns the number of wrong elements (or -1 if a call failed).
int64_t CheckedMulAdd(float seed) {
  const std::vector<float> av = Values(kRows * kCols, seed), bv = Values(kCols, seed + 1);
  Tensor a = Make(BC_FLOAT32, {kRows, kCols}, av), b = Make(BC_FLOAT32, {kCols}, bv);
  if (!a || !b) return -1;
  bc_tensor* r = nullptr;
  if (bc_binary(BC_MUL, a.get(), b.get(), &r) != BC_OK) return -1;
  Tensor gr(r);
  if (bc_binary_(BC_ADD, r, a.get()) != BC_OK) return -1;
  std::vector<float> got(static_cast<size_t>(kRows * kCols));
  if (bc_tensor_copy_to(r, got.data(), got.size() * 4) != BC_OK) return -1;
  int64_t bad = 0;
  for (int64_t i = 0; i < kRows; ++i)
    for (int64_t j = 0; j < kCols; ++j) {
      const float want = av[i * kCols + j] * bv[j] + av[i * kCols + j];
      bad += got[i * kCols + j] != want;
    }
  return bad;
}

// sum_to_shape of the same kind of tensor: [kRows, kCols] -> [1, kCols].
int64_t CheckedSum(float seed) {
  const std::vector<float> av = Values(kRows * kCols, seed);
  Tensor a = Make(BC_FLOAT32, {kRows, kCols}, av);
  int64_t target[] = {1, kCols};
  bc_tensor* r = nullptr;
  if (!a || bc_sum_to_shape(a.get(), target, 2, &r) != BC_OK) return -1;
  Tensor gr(r);
  std::vector<float> got(kCols);
  if (bc_tensor_copy_to(r, got.data(), got.size() * 4) != BC_OK) return -1;
  int64_t bad = 0;
  for (int64_t j = 0; j < kCols; ++j) {
    double acc = 0;  // the header: floats accumulate in double, rounded once
    for (int64_t i = 0; i < kRows; ++i) acc += av[i * kCols + j];
    bad += got[j] != static_cast<float>(acc);
  }
  return bad;
}

int ThreadCount() {
  int n = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d)) n += e->d_name[0] != '.';
    closedir(d);
  }
  return n;
}

// ---------------------------------------------------------------------------
// Host-created threads

struct HostThreadArgs {
  int id;
  int64_t bad = -2;
  bool own_error = false;
};

void* HostThreadMain(void* p) {
  HostThreadArgs* a = static_cast<HostThreadArgs*>(p);
  a->bad = CheckedMulAdd(static_cast<float>(a->id));
  // A failure on this thread is seen here, with this thread's numbers.
  Tensor x = Floats({2, static_cast<int64_t>(a->id) + 3}), y = Floats({7 + a->id});
  bc_tensor* r = nullptr;
  const bc_status s = bc_binary(BC_ADD, x.get(), y.get(), &r);
  const std::string want = "The size of tensor a (" + std::to_string(a->id + 3) +
                           ") must match the size of tensor b (" + std::to_string(a->id + 7) +
                           ") at non-singleton dimension 1";
  a->own_error = s == BC_ERR_NOT_BROADCASTABLE && r == nullptr && bc_last_error() == want;
  return nullptr;
}

TEST(Embedding, HostCreatedThreadsWithSmallStacks) {
  // 256 KiB stacks (glibc's default is 8 MiB): the library keeps its scratch
  // small. Several rounds of short-lived threads, some ops parallel inside.
  ASSERT_EQ(bc_set_num_threads(2), BC_OK);
  for (int round = 0; round < 3; ++round) {
    constexpr int kN = 12;
    pthread_t th[kN];
    HostThreadArgs args[kN];
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    for (int i = 0; i < kN; ++i) {
      args[i].id = i + round * kN;
      ASSERT_EQ(pthread_create(&th[i], &attr, HostThreadMain, &args[i]), 0);
    }
    for (int i = 0; i < kN; ++i) pthread_join(th[i], nullptr);
    pthread_attr_destroy(&attr);
    for (int i = 0; i < kN; ++i) {
      EXPECT_EQ(args[i].bad, 0) << "thread " << args[i].id;
      EXPECT_TRUE(args[i].own_error) << "thread " << args[i].id;
    }
  }
  bc_set_num_threads(0);
}

TEST(Embedding, DetachedThreadsThatExitRightAway) {
  // Threads that make one call and exit leave nothing behind to clean up.
  std::atomic<int> done{0}, ok{0};
  for (int i = 0; i < 64; ++i) {
    std::thread([&done, &ok, i] {
      Tensor t = Floats({3, 5});
      bc_tensor* r = nullptr;
      if (bc_binary(BC_MUL, t.get(), t.get(), &r) == BC_OK) ok.fetch_add(1);
      bc_tensor_free(r);
      int64_t bad[] = {-1};
      bc_tensor* e = nullptr;
      if (bc_tensor_empty(BC_FLOAT32, bad, 1, &e) == BC_ERR_INVALID_ARGUMENT && i >= 0)
        ok.fetch_add(1);
      done.fetch_add(1);
    }).detach();
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (done.load() < 64 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_EQ(done.load(), 64);
  EXPECT_EQ(ok.load(), 128);
}

// ---------------------------------------------------------------------------
// fork()

// Runs `child` in a forked process and waits at most `seconds`; returns the
// exit code, or a description of how it ended otherwise.
std::string RunForked(int seconds, int (*child)()) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return "fork failed";
  if (pid == 0) _exit(child());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  int status = 0;
  while (true) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return "the child hung (killed after " + std::to_string(seconds) + " s)";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (WIFSIGNALED(status)) return "the child died of signal " + std::to_string(WTERMSIG(status));
  return "exit " + std::to_string(WEXITSTATUS(status));
}

int ChildRunsOps() {
  // Parallel and serial ops in the child, after the parent's pool existed.
  if (CheckedMulAdd(3.0f) != 0) return 10;
  if (CheckedSum(4.0f) != 0) return 11;
  bc_set_num_threads(1);
  if (CheckedMulAdd(5.0f) != 0) return 12;
  bc_set_num_threads(3);
  if (CheckedMulAdd(6.0f) != 0) return 13;
  Tensor x = Floats({2}), y = Floats({3});
  bc_tensor* r = nullptr;
  if (bc_binary(BC_ADD, x.get(), y.get(), &r) != BC_ERR_NOT_BROADCASTABLE) return 14;
  return 0;
}

TEST(Embedding, ForkAfterTheParentUsedThreads) {
  ASSERT_EQ(bc_set_num_threads(4), BC_OK);
  ASSERT_EQ(CheckedMulAdd(1.0f), 0);  // the parent's OpenMP pool now exists
  ASSERT_EQ(CheckedSum(2.0f), 0);
  EXPECT_EQ(RunForked(60, ChildRunsOps), "exit 0");
  // The parent carries on as before.
  EXPECT_EQ(CheckedMulAdd(7.0f), 0);
  bc_set_num_threads(0);
}

TEST(Embedding, ForkBeforeAnyThreadsWereUsed) {
  // The child is the first to open a parallel region.
  EXPECT_EQ(RunForked(60, [] {
              bc_set_num_threads(4);
              return ChildRunsOps();
            }),
            "exit 0");
}

TEST(Embedding, ForkFromAThreadWhileAnotherThreadRunsOps) {
  // The forking thread is not the one that owns the parent's OpenMP pool;
  // the child only runs single-threaded ops (see docs/reliability.md on
  // fork in multi-threaded hosts).
  ASSERT_EQ(bc_set_num_threads(2), BC_OK);
  std::atomic<bool> stop{false};
  std::thread busy([&] {
    while (!stop.load()) CheckedMulAdd(8.0f);
  });
  std::string result;
  std::thread forker([&] {
    result = RunForked(60, [] {
      bc_set_num_threads(1);
      return CheckedMulAdd(9.0f) == 0 ? 0 : 20;
    });
  });
  forker.join();
  stop = true;
  busy.join();
  EXPECT_EQ(result, "exit 0");
  bc_set_num_threads(0);
}

// ---------------------------------------------------------------------------
// Inside the host's own OpenMP region

TEST(Embedding, InsideTheHostsParallelRegion) {
  ASSERT_EQ(bc_set_num_threads(4), BC_OK);
  const int saved_levels = omp_get_max_active_levels();
  // The host explicitly allows nested regions: if the library opened its
  // own region in there, every host thread would get a team of its own.
  omp_set_max_active_levels(4);
  constexpr int kHost = 4;
  // Warm the host team (its threads exist from now on), then count.
  int64_t warm_bad = 0;
#pragma omp parallel num_threads(kHost) reduction(+ : warm_bad)
  warm_bad += CheckedSum(0.5f) != 0;
  ASSERT_EQ(warm_bad, 0);
  const int base = ThreadCount();

  std::atomic<bool> stop{false};
  std::atomic<int> peak{0};
  std::thread sampler([&] {
    while (!stop.load()) {
      peak = std::max(peak.load(), ThreadCount());
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  int64_t bad = 0, in_parallel = 0;
#pragma omp parallel num_threads(kHost) reduction(+ : bad, in_parallel)
  {
    in_parallel += omp_in_parallel() ? 1 : 0;
    for (int rep = 0; rep < 3; ++rep) {
      const float seed = static_cast<float>(omp_get_thread_num() * 10 + rep);
      bad += CheckedMulAdd(seed) != 0;
      bad += CheckedSum(seed) != 0;
    }
  }
  stop = true;
  sampler.join();
  omp_set_max_active_levels(saved_levels);
  bc_set_num_threads(0);
  EXPECT_EQ(in_parallel, kHost);
  EXPECT_EQ(bad, 0);
  // The sampler thread is the only newcomer.
  EXPECT_LE(peak.load(), base + 1) << "the library started threads inside the host's region";
}

TEST(Embedding, HostsSerialRegionAroundTheLibrary) {
  // A region of one thread is not parallel: the library may use its threads.
  ASSERT_EQ(bc_set_num_threads(2), BC_OK);
  int64_t bad = 0;
#pragma omp parallel num_threads(1) reduction(+ : bad)
  bad += CheckedMulAdd(11.0f) != 0;
  EXPECT_EQ(bad, 0);
  bc_set_num_threads(0);
}

}  // namespace
}  // namespace rel
