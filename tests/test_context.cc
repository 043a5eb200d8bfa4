// Contexts (bc_ctx): settings, handlers, thread budgets, host schedulers and
// last errors that belong to one component of the process, used from many
// threads at once.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bcast/bcast.h"
#include "bcast/dlpack.h"

namespace {

struct CtxDeleter {
  void operator()(bc_ctx* c) const { bc_ctx_free(c); }
};
using Ctx = std::unique_ptr<bc_ctx, CtxDeleter>;
struct TensorDeleter {
  void operator()(bc_tensor* t) const { bc_tensor_free(t); }
};
using Tensor = std::unique_ptr<bc_tensor, TensorDeleter>;

Ctx NewCtx() {
  bc_ctx* c = nullptr;
  EXPECT_EQ(bc_ctx_create(&c), BC_OK);
  return Ctx(c);
}

Tensor Filled(std::vector<int64_t> shape, float start) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = start + static_cast<float>(i % 1000);
  bc_tensor* t = nullptr;
  EXPECT_EQ(bc_tensor_from_data(BC_FLOAT32, shape.data(), shape.size(), v.data(), &t), BC_OK);
  return Tensor(t);
}

std::vector<float> Values(const bc_tensor* t) {
  std::vector<float> v(static_cast<size_t>(bc_tensor_numel(t)));
  EXPECT_EQ(bc_tensor_copy_to(t, v.data(), v.size() * sizeof(float)), BC_OK);
  return v;
}

int64_t Option(const bc_ctx* c, bc_option o) {
  int64_t v = -99;
  EXPECT_EQ(bc_ctx_get_option(c, o, &v), BC_OK);
  return v;
}

// Counts the warnings it receives into the Counter its user pointer names.
struct Counter {
  std::atomic<int> calls{0};
  std::mutex mu;
  std::string last;
};
void Count(const char* message, void* user) {
  Counter* c = static_cast<Counter*>(user);
  std::lock_guard<std::mutex> lock(c->mu);
  c->last = message;
  ++c->calls;
}

// Restores the process-wide settings a test changed.
struct DefaultsGuard {
  ~DefaultsGuard() {
    bc_set_broadcast_policy(BC_POLICY_ALLOW);
    bc_set_broadcast_warning(0);
    bc_set_warnings_as_errors(0);
    bc_set_legacy_pointwise(0);
    bc_set_warning_handler(nullptr, nullptr);
    bc_set_num_threads(0);
  }
};

TEST(Context, CreateRefusesNullOut) {
  EXPECT_EQ(bc_ctx_create(nullptr), BC_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(bc_last_error(), "out is NULL");
  bc_ctx_free(nullptr);  // a no-op
}

TEST(Context, NewContextStartsFromLibraryDefaultsNotProcessSettings) {
  DefaultsGuard restore;
  ASSERT_EQ(bc_set_broadcast_policy(BC_POLICY_ERROR), BC_OK);
  bc_set_broadcast_warning(1);
  bc_set_legacy_pointwise(1);
  bc_set_warnings_as_errors(1);
  Ctx c = NewCtx();
  EXPECT_EQ(Option(c.get(), BC_OPT_POLICY), BC_POLICY_ALLOW);
  EXPECT_EQ(Option(c.get(), BC_OPT_BROADCAST_WARNING), 0);
  EXPECT_EQ(Option(c.get(), BC_OPT_LEGACY_POINTWISE), 0);
  EXPECT_EQ(Option(c.get(), BC_OPT_WARNINGS_AS_ERRORS), 0);
  EXPECT_GE(Option(c.get(), BC_OPT_NUM_THREADS), 1);
  // The NULL context is the process-wide one.
  EXPECT_EQ(Option(nullptr, BC_OPT_POLICY), BC_POLICY_ERROR);
  EXPECT_EQ(Option(nullptr, BC_OPT_LEGACY_POINTWISE), 1);

  Tensor a = Filled({4, 3}, 0), b = Filled({3}, 1);
  bc_tensor* r = nullptr;
  EXPECT_EQ(bc_ctx_binary(c.get(), BC_ADD, a.get(), b.get(), &r), BC_OK);
  bc_tensor_free(r);
  EXPECT_EQ(bc_binary(BC_ADD, a.get(), b.get(), &r), BC_ERR_POLICY);
  EXPECT_EQ(r, nullptr);
}

TEST(Context, OptionsRoundTripAndRefuseBadValues) {
  Ctx c = NewCtx();
  for (bc_option o : {BC_OPT_BROADCAST_WARNING, BC_OPT_LEGACY_POINTWISE,
                      BC_OPT_WARNINGS_AS_ERRORS}) {
    EXPECT_EQ(bc_ctx_set_option(c.get(), o, 1), BC_OK);
    EXPECT_EQ(Option(c.get(), o), 1);
    EXPECT_EQ(bc_ctx_set_option(c.get(), o, 2), BC_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(Option(c.get(), o), 1) << "a refused value leaves the setting unchanged";
    EXPECT_EQ(bc_ctx_set_option(c.get(), o, 0), BC_OK);
    EXPECT_EQ(Option(c.get(), o), 0);
  }
  EXPECT_EQ(bc_ctx_set_option(c.get(), BC_OPT_POLICY, BC_POLICY_WARN), BC_OK);
  EXPECT_EQ(bc_ctx_set_option(c.get(), BC_OPT_POLICY, 7), BC_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(bc_ctx_last_error(c.get()), "unknown broadcast policy 7");
  EXPECT_EQ(Option(c.get(), BC_OPT_POLICY), BC_POLICY_WARN);

  EXPECT_EQ(bc_ctx_set_option(c.get(), BC_OPT_NUM_THREADS, 3), BC_OK);
  EXPECT_EQ(Option(c.get(), BC_OPT_NUM_THREADS), 3);
  EXPECT_EQ(bc_ctx_set_option(c.get(), BC_OPT_NUM_THREADS, 100000), BC_OK);
  EXPECT_EQ(Option(c.get(), BC_OPT_NUM_THREADS), 1024);
  EXPECT_EQ(bc_ctx_set_option(c.get(), BC_OPT_NUM_THREADS, 0), BC_OK);
  EXPECT_EQ(Option(c.get(), BC_OPT_NUM_THREADS), bc_get_num_threads());

  // Unknown options are passed from C, where any int is allowed:
  // tests/reliability/test_bad_enums.c (an invalid enum value is undefined
  // behaviour in C++).
  EXPECT_EQ(bc_ctx_get_option(c.get(), BC_OPT_POLICY, nullptr), BC_ERR_INVALID_ARGUMENT);
}

TEST(Context, ErrorsStayInTheirContext) {
  // A known error on this thread's slot first.
  EXPECT_EQ(bc_tensor_view(nullptr, nullptr), BC_ERR_INVALID_ARGUMENT);
  const std::string thread_error = bc_last_error();
  Ctx a = NewCtx(), b = NewCtx();
  EXPECT_STREQ(bc_ctx_last_error(a.get()), "");
  bc_error_detail d;
  EXPECT_EQ(bc_ctx_last_error_detail(a.get(), &d), BC_OK);

  Tensor x = Filled({2, 3}, 0), y = Filled({4}, 0);
  bc_tensor* r = nullptr;
  EXPECT_EQ(bc_ctx_binary(a.get(), BC_MUL, x.get(), y.get(), &r), BC_ERR_NOT_BROADCASTABLE);
  EXPECT_EQ(r, nullptr);
  const char* want =
      "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1";
  EXPECT_STREQ(bc_ctx_last_error(a.get()), want);
  EXPECT_EQ(bc_ctx_last_error_detail(a.get(), &d), BC_ERR_NOT_BROADCASTABLE);
  EXPECT_EQ(d.dim, 1);
  EXPECT_EQ(d.size_a, 3);
  EXPECT_EQ(d.size_b, 4);
  EXPECT_EQ(bc_last_error(), thread_error) << "the thread's slot is the default context's";
  EXPECT_STREQ(bc_ctx_last_error(b.get()), "");
  EXPECT_EQ(bc_ctx_last_error(nullptr), thread_error);

  // Read from another thread, as a binding whose calls move between threads does.
  std::string seen;
  bc_status code = BC_OK;
  std::thread([&] {
    seen = bc_ctx_last_error(a.get());
    bc_error_detail e;
    code = bc_ctx_last_error_detail(a.get(), &e);
  }).join();
  EXPECT_EQ(seen, want);
  EXPECT_EQ(code, BC_ERR_NOT_BROADCASTABLE);
  EXPECT_EQ(bc_ctx_last_error_detail(a.get(), nullptr), BC_ERR_INVALID_ARGUMENT);

  // Non-op functions record on the context too.
  EXPECT_EQ(bc_ctx_tensor_empty(b.get(), BC_FLOAT32, nullptr, 2, &r), BC_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(bc_ctx_last_error(b.get()), "shape is NULL");
  EXPECT_STREQ(bc_ctx_last_error(a.get()), want);
}

// DLPack import failing inside the wrap (a negative stride): the error is
// the context's, and the thread's slot keeps what it had (bcast once called
// its public bc_tensor_wrap there, which recorded on the thread).
TEST(Context, DlpackImportErrorsStayInTheirContext) {
  EXPECT_EQ(bc_tensor_view(nullptr, nullptr), BC_ERR_INVALID_ARGUMENT);
  const std::string thread_error = bc_last_error();
  Ctx a = NewCtx();
  float data[4] = {1, 2, 3, 4};
  int64_t shape[1] = {2}, strides[1] = {-1};
  DLManagedTensorVersioned m{};
  m.version = DLPackVersion{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  m.dl_tensor.data = data + 2;
  m.dl_tensor.device = DLDevice{kDLCPU, 0};
  m.dl_tensor.ndim = 1;
  m.dl_tensor.dtype = DLDataType{kDLFloat, 32, 1};
  m.dl_tensor.shape = shape;
  m.dl_tensor.strides = strides;
  bc_tensor* t = reinterpret_cast<bc_tensor*>(&m);
  EXPECT_EQ(bc_ctx_tensor_from_dlpack_versioned(a.get(), &m, &t), BC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(t, nullptr);
  EXPECT_STREQ(bc_ctx_last_error(a.get()), "negative stride -1 at dimension 0");
  EXPECT_EQ(bc_last_error(), thread_error);
  DLManagedTensor u{};
  u.dl_tensor = m.dl_tensor;
  Ctx b = NewCtx();
  EXPECT_EQ(bc_ctx_tensor_from_dlpack(b.get(), &u, &t), BC_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(bc_ctx_last_error(b.get()), "negative stride -1 at dimension 0");
  EXPECT_EQ(bc_last_error(), thread_error);
}

TEST(Context, NullContextIsThePlainForm) {
  Tensor x = Filled({2, 3}, 1), y = Filled({3}, 2);
  bc_tensor *r1 = nullptr, *r2 = nullptr;
  ASSERT_EQ(bc_ctx_binary(nullptr, BC_SUB, x.get(), y.get(), &r1), BC_OK);
  ASSERT_EQ(bc_binary(BC_SUB, x.get(), y.get(), &r2), BC_OK);
  EXPECT_EQ(Values(r1), Values(r2));
  bc_tensor_free(r1);
  bc_tensor_free(r2);
  EXPECT_EQ(bc_ctx_binary(nullptr, BC_SUB, x.get(), nullptr, &r1), BC_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(bc_last_error(), "tensor argument is NULL");
}

TEST(Context, TwoContextsWithDifferentPoliciesAndHandlersFromThreadsAtOnce) {
  DefaultsGuard restore;
  Counter on_a, on_b, on_default;
  bc_set_warning_handler(Count, &on_default);
  Ctx a = NewCtx(), b = NewCtx();
  ASSERT_EQ(bc_ctx_set_option(a.get(), BC_OPT_POLICY, BC_POLICY_ERROR), BC_OK);
  ASSERT_EQ(bc_ctx_set_warning_handler(a.get(), Count, &on_a), BC_OK);
  ASSERT_EQ(bc_ctx_set_option(b.get(), BC_OPT_POLICY, BC_POLICY_WARN), BC_OK);
  ASSERT_EQ(bc_ctx_set_warning_handler(b.get(), Count, &on_b), BC_OK);

  Tensor x = Filled({64, 32}, 0), y = Filled({32}, 5);
  constexpr int kIters = 300;
  std::atomic<int> a_refused{0}, b_ok{0}, default_ok{0};
  std::atomic<bool> a_message_ok{true};
  std::vector<std::thread> threads;
  threads.emplace_back([&] {
    for (int i = 0; i < kIters; ++i) {
      bc_tensor* r = nullptr;
      if (bc_ctx_binary(a.get(), BC_ADD, x.get(), y.get(), &r) == BC_ERR_POLICY && r == nullptr)
        ++a_refused;
      if (std::string(bc_ctx_last_error(a.get())) !=
          "broadcast policy is 'error': self with shape [64, 32] and other with shape [32] "
          "would be implicitly broadcast to [64, 32]")
        a_message_ok = false;
    }
  });
  threads.emplace_back([&] {
    for (int i = 0; i < kIters; ++i) {
      bc_tensor* r = nullptr;
      if (bc_ctx_binary(b.get(), BC_ADD, x.get(), y.get(), &r) == BC_OK) ++b_ok;
      bc_tensor_free(r);
    }
  });
  threads.emplace_back([&] {  // the default context, policy allow, meanwhile
    for (int i = 0; i < kIters; ++i) {
      bc_tensor* r = nullptr;
      if (bc_binary(BC_ADD, x.get(), y.get(), &r) == BC_OK) ++default_ok;
      bc_tensor_free(r);
    }
  });
  for (std::thread& t : threads) t.join();

  EXPECT_EQ(a_refused.load(), kIters);
  EXPECT_TRUE(a_message_ok.load());
  EXPECT_EQ(on_a.calls.load(), 0);
  EXPECT_EQ(b_ok.load(), kIters);
  EXPECT_EQ(on_b.calls.load(), kIters);
  EXPECT_EQ(on_b.last,
            "implicit broadcast: self with shape [64, 32] and other with shape [32] broadcast to "
            "[64, 32]");
  EXPECT_EQ(default_ok.load(), kIters);
  EXPECT_EQ(on_default.calls.load(), 0);
}

TEST(Context, WarningsAsErrorsAndLegacyPerContext) {
  Ctx c = NewCtx();
  Counter seen;
  ASSERT_EQ(bc_ctx_set_warning_handler(c.get(), Count, &seen), BC_OK);
  ASSERT_EQ(bc_ctx_set_option(c.get(), BC_OPT_LEGACY_POINTWISE, 1), BC_OK);
  Tensor x = Filled({4}, 0), y = Filled({2, 2}, 0);
  bc_tensor* r = nullptr;
  // Not broadcastable, same numel: the deprecated 1-D fallback warns.
  ASSERT_EQ(bc_ctx_binary(c.get(), BC_ADD, x.get(), y.get(), &r), BC_OK);
  EXPECT_EQ(bc_tensor_ndim(r), 1u);
  bc_tensor_free(r);
  EXPECT_EQ(seen.calls.load(), 1);
  EXPECT_EQ(bc_binary(BC_ADD, x.get(), y.get(), &r), BC_ERR_NOT_BROADCASTABLE)
      << "the default context has no legacy mode";
  ASSERT_EQ(bc_ctx_set_option(c.get(), BC_OPT_WARNINGS_AS_ERRORS, 1), BC_OK);
  EXPECT_EQ(bc_ctx_binary(c.get(), BC_ADD, x.get(), y.get(), &r), BC_ERR_POLICY);
  EXPECT_EQ(seen.calls.load(), 1) << "a warning raised as an error reaches no handler";
  EXPECT_STREQ(bc_ctx_last_error(c.get()),
               "other is not broadcastable to self, but they have the same number of elements. "
               "Falling back to deprecated pointwise behavior.");
  // NULL restores the context's handler to stderr; the toggle off again.
  ASSERT_EQ(bc_ctx_set_warning_handler(c.get(), nullptr, nullptr), BC_OK);
  ASSERT_EQ(bc_ctx_set_option(c.get(), BC_OPT_WARNINGS_AS_ERRORS, 0), BC_OK);
}

// A host pool: `threads` std::threads per run, pulling chunks from a counter.
struct Pool {
  int threads = 3;
  std::atomic<int> runs{0};
  std::atomic<size_t> chunks_run{0};
  std::mutex mu;
  std::vector<int> hits;  // per chunk index, of the last run

  static int NumThreads(void* user) { return static_cast<Pool*>(user)->threads; }
  static void Run(void* user, size_t nchunks, bc_chunk_fn fn, void* task) {
    Pool* p = static_cast<Pool*>(user);
    ++p->runs;
    {
      std::lock_guard<std::mutex> lock(p->mu);
      p->hits.assign(nchunks, 0);
    }
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t i; (i = next.fetch_add(1)) < nchunks;) {
        fn(task, i);
        ++p->chunks_run;
        std::lock_guard<std::mutex> lock(p->mu);
        ++p->hits[i];
      }
    };
    std::vector<std::thread> ts;
    for (int t = 1; t < p->threads; ++t) ts.emplace_back(work);
    work();
    for (std::thread& t : ts) t.join();
  }
  bc_scheduler Scheduler() { return bc_scheduler{&Pool::NumThreads, &Pool::Run, this}; }
};

TEST(Context, HostSchedulerRunsTheChunksOfLargeOps) {
  Pool pool;
  Ctx c = NewCtx();
  const bc_scheduler s = pool.Scheduler();
  ASSERT_EQ(bc_ctx_set_scheduler(c.get(), &s), BC_OK);
  EXPECT_EQ(Option(c.get(), BC_OPT_NUM_THREADS), 3) << "no budget set: the pool's count";
  ASSERT_EQ(bc_ctx_set_option(c.get(), BC_OPT_NUM_THREADS, 2), BC_OK);
  EXPECT_EQ(Option(c.get(), BC_OPT_NUM_THREADS), 2) << "a smaller budget";
  ASSERT_EQ(bc_ctx_set_option(c.get(), BC_OPT_NUM_THREADS, 8), BC_OK);
  EXPECT_EQ(Option(c.get(), BC_OPT_NUM_THREADS), 3) << "capped by the pool's count";

  // 1M elements: threaded by size alone (smaller ops are timed on their
  // first elements first, and may stay on the caller on a fast machine).
  Tensor x = Filled({1024, 1024}, 0), y = Filled({1024}, 0.5f);
  bc_tensor* r = nullptr;
  ASSERT_EQ(bc_ctx_binary(c.get(), BC_MUL, x.get(), y.get(), &r), BC_OK);
  Tensor result(r);
  EXPECT_EQ(pool.runs.load(), 1);
  EXPECT_GT(pool.hits.size(), 1u);
  for (size_t i = 0; i < pool.hits.size(); ++i) EXPECT_EQ(pool.hits[i], 1) << "chunk " << i;
  const std::vector<float> xv = Values(x.get()), yv = Values(y.get()), rv = Values(r);
  for (size_t i = 0; i < rv.size(); ++i) {
    if (rv[i] != xv[i] * yv[i % 1024]) {
      ADD_FAILURE() << "element " << i << ": " << rv[i] << " != " << xv[i] * yv[i % 1024];
      break;
    }
  }

  // sum_to_shape and copies go through the pool as well.
  const int64_t row[] = {1024};
  ASSERT_EQ(bc_ctx_sum_to_shape(c.get(), x.get(), row, 1, &r), BC_OK);
  bc_tensor_free(r);
  EXPECT_EQ(pool.runs.load(), 2);

  // Small ops stay on the caller; one pool thread means no pool at all.
  Tensor sx = Filled({32}, 0);
  ASSERT_EQ(bc_ctx_binary(c.get(), BC_ADD, sx.get(), sx.get(), &r), BC_OK);
  bc_tensor_free(r);
  EXPECT_EQ(pool.runs.load(), 2);
  pool.threads = 1;
  ASSERT_EQ(bc_ctx_binary(c.get(), BC_MUL, x.get(), y.get(), &r), BC_OK);
  EXPECT_EQ(Values(r), rv);
  bc_tensor_free(r);
  EXPECT_EQ(pool.runs.load(), 2);

  // Back to OpenMP.
  pool.threads = 3;
  ASSERT_EQ(bc_ctx_set_scheduler(c.get(), nullptr), BC_OK);
  ASSERT_EQ(bc_ctx_binary(c.get(), BC_MUL, x.get(), y.get(), &r), BC_OK);
  EXPECT_EQ(Values(r), rv);
  bc_tensor_free(r);
  EXPECT_EQ(pool.runs.load(), 2);
}

TEST(Context, SchedulerArgumentsAreChecked) {
  Pool pool;
  bc_scheduler s = pool.Scheduler();
  EXPECT_EQ(bc_ctx_set_scheduler(nullptr, &s), BC_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(bc_last_error(), "ctx (the default context always uses OpenMP) is NULL");
  Ctx c = NewCtx();
  s.run = nullptr;
  EXPECT_EQ(bc_ctx_set_scheduler(c.get(), &s), BC_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(bc_ctx_last_error(c.get()), "scheduler's num_threads and run must not be NULL");
}

TEST(Context, ManyHostThreadsEachWithItsOwnContext) {
  // One context per thread, as the threading rule asks; every result right.
  Tensor x = Filled({256, 512}, 0), y = Filled({512}, 3);
  std::vector<float> want;
  {
    bc_tensor* r = nullptr;
    ASSERT_EQ(bc_binary(BC_SUB, x.get(), y.get(), &r), BC_OK);
    want = Values(r);
    bc_tensor_free(r);
  }
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      Ctx c = NewCtx();
      bc_ctx_set_option(c.get(), BC_OPT_NUM_THREADS, 1 + t % 3);
      for (int i = 0; i < 20; ++i) {
        bc_tensor* r = nullptr;
        if (bc_ctx_binary(c.get(), BC_SUB, x.get(), y.get(), &r) != BC_OK || Values(r) != want)
          ++wrong;
        bc_tensor_free(r);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
