// Concurrency stress: 16 threads run many mixed ops on shared const inputs
// (some failing on purpose) while another thread flips the thread count, the
// warning toggles, the policy and the handler. Every result must equal the
// single-threaded reference computed beforehand, every error must reach the
// thread that caused it (its own bc_last_error), and every warning must reach
// the handler exactly once, on the thread that ran the op.
//
// The toggles change results, so each phase fixes the ones its jobs are
// sensitive to and flips the rest:
//   A  policy ALLOW; flips threads, broadcast warning, legacy pointwise.
//      Jobs: all but the legacy- and equal-numel-sensitive ones (0 warnings).
//   B  broadcast warning, legacy and policy WARN on; flips threads and
//      re-installs the handler. Jobs: all; warnings counted per thread.
//   C  as B with warnings as errors: warnings become BC_ERR_POLICY.
//   D  flips everything (policy ALLOW/WARN/ERROR and warnings as errors too).
//      Jobs: those no setting can change (same shapes, 0-dim operands).
//
// The number of ops per thread and phase is BCAST_STRESS_OPS (default 6250:
// 16 threads x 4 phases x 6250 = 400000 ops, 25000 per thread).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "rel_util.h"

namespace rel {
namespace {

constexpr int kThreads = 16;

int OpsPerThread() {
  const char* env = std::getenv("BCAST_STRESS_OPS");
  if (env != nullptr && std::atoi(env) > 0) return std::atoi(env);
  return 6250;
}

// ---------------------------------------------------------------------------
// Warning capture: per-thread records, found through a thread_local pointer.

struct WarnLog {
  std::map<std::string, int> by_message;
  int total = 0;
};
thread_local WarnLog* t_log = nullptr;
std::atomic<int> g_foreign_warnings{0};  // on a thread that ran no op of ours

void Handler(const char* message, void*) {
  if (t_log == nullptr) {
    g_foreign_warnings.fetch_add(1);
    return;
  }
  ++t_log->by_message[message];
  ++t_log->total;
}

// ---------------------------------------------------------------------------
// Shared inputs (const for the whole test)

struct Inputs {
  Tensor F, F4, F34, F24, FS0, I234, I4, IZ4, D, B, F12_2, FA, FB, FT, L, L1, I4x;
  std::vector<float> ft_buf;
  void Make() {
    std::mt19937 rng(7);
    auto floats = [&](const Shape& s) {
      std::uniform_real_distribution<float> u(-4.0f, 4.0f);
      std::vector<float> v(static_cast<size_t>(NumelOf(s)));
      for (float& x : v) x = u(rng);
      return rel::Make(BC_FLOAT32, s, v);
    };
    F = floats({2, 3, 4});
    F4 = floats({4});
    F34 = floats({3, 4});
    F24 = floats({2, 4});
    FS0 = floats({});
    I234 = Ints({2, 3, 4}, -30, 7);
    I4 = rel::Make<int32_t>(BC_INT32, {4}, {3, -2, 5, 7});
    IZ4 = rel::Make<int32_t>(BC_INT32, {4}, {3, 0, 5, 7});
    D = rel::Make<double>(BC_FLOAT64, {2, 3, 4}, std::vector<double>(24, 0.25));
    std::vector<uint8_t> bv(24);
    for (size_t i = 0; i < bv.size(); ++i) bv[i] = (i * 7 % 3) == 0;
    B = rel::Make(BC_BOOL, {2, 3, 4}, bv);
    F12_2 = floats({12, 2});
    FA = floats({4, 1});
    FB = floats({1, 4});
    // [2, 3, 4] laid out with the first dim fastest.
    ft_buf.resize(24);
    for (size_t i = 0; i < 24; ++i) ft_buf[i] = static_cast<float>(i) * 0.75f - 5;
    int64_t shape[] = {2, 3, 4}, strides[] = {1, 2, 6};
    bc_tensor* t = nullptr;
    EXPECT_EQ(bc_tensor_wrap(BC_FLOAT32, shape, strides, 3, ft_buf.data(), 24 * 4, nullptr, nullptr,
                             &t),
              BC_OK);
    FT.reset(t);
    L = floats({256, 512});
    L1 = floats({512});
    I4x = Ints({4}, 1, 2);
  }
};
Inputs g;

// ---------------------------------------------------------------------------
// Jobs

// What a job observed: status, this thread's message, and the result (dtype,
// shape and bytes of everything it produced, in order).
struct Outcome {
  bc_status status = BC_OK;
  std::string message;
  std::vector<unsigned char> bytes;
  bool operator==(const Outcome& o) const {
    return status == o.status && message == o.message && bytes == o.bytes;
  }
};

void Append(Outcome* o, const bc_tensor* t) {
  const unsigned char d = static_cast<unsigned char>(bc_tensor_dtype(t));
  o->bytes.push_back(d);
  for (int64_t s : ShapeOf(t)) o->bytes.push_back(static_cast<unsigned char>(s));
  std::vector<unsigned char> b = Bytes(t);
  o->bytes.insert(o->bytes.end(), b.begin(), b.end());
}

Outcome Finish(bc_status s, std::initializer_list<const bc_tensor*> results) {
  Outcome o;
  o.status = s;
  if (s != BC_OK) {
    o.message = bc_last_error();
    bc_error_detail d;
    if (bc_last_error_detail(&d) != s) o.message += " [detail code differs]";
  }
  // Written tensors are compared after failures too: nothing may be written.
  for (const bc_tensor* t : results)
    if (t != nullptr) Append(&o, t);
  return o;
}

Tensor Clone(const Tensor& t) {
  bc_tensor* c = nullptr;
  bc_tensor_clone(t.get(), &c);
  return Tensor(c);
}

enum Sensitivity : unsigned {
  kPolicy = 1,       // differing non-0-dim shapes: the policy changes the outcome
  kEqualNumel = 2,   // broadcastable with equal numel: the broadcast warning
  kLegacy = 4,       // legacy pointwise changes the outcome or the message
};

struct Job {
  const char* name;
  unsigned sens;
  std::function<Outcome()> run;
};

std::vector<Job> Jobs() {
  std::vector<Job> j;
  auto binary = [](const char* name, unsigned sens, bc_op op, const Tensor* a, const Tensor* b) {
    return Job{name, sens, [op, a, b] {
                 bc_tensor* r = nullptr;
                 bc_status s = bc_binary(op, a->get(), b->get(), &r);
                 Tensor g(r);
                 return Finish(s, {r});
               }};
  };
  j.push_back(binary("add F F4", kPolicy, BC_ADD, &g.F, &g.F4));
  j.push_back(binary("mul F I4", kPolicy, BC_MUL, &g.F, &g.I4));
  j.push_back(binary("div I234 I4", kPolicy, BC_DIV, &g.I234, &g.I4));
  j.push_back(binary("remainder I234 I4", kPolicy, BC_REMAINDER, &g.I234, &g.I4));
  j.push_back(binary("div_floor I234 IZ4", kPolicy, BC_DIV_FLOOR, &g.I234, &g.IZ4));
  // Shapes are checked before dtypes (PyTorch's order), so the policy decides.
  j.push_back(binary("hypot I234 I4", kPolicy, BC_HYPOT, &g.I234, &g.I4));
  j.push_back(binary("add F F24", 0, BC_ADD, &g.F, &g.F24));
  j.push_back(binary("add F F12_2", kLegacy, BC_ADD, &g.F, &g.F12_2));
  j.push_back(binary("sub FA FB", kPolicy | kEqualNumel, BC_SUB, &g.FA, &g.FB));
  j.push_back(binary("add F FS0", 0, BC_ADD, &g.F, &g.FS0));
  j.push_back(binary("mul F F", 0, BC_MUL, &g.F, &g.F));
  j.push_back(binary("atan2 FT F", 0, BC_ATAN2, &g.FT, &g.F));
  j.push_back(binary("fmod I234 I4x", kPolicy, BC_FMOD, &g.I234, &g.I4x));
  j.push_back(binary("shift_left I234 I234", 0, BC_SHIFT_LEFT, &g.I234, &g.I234));
  j.push_back(binary("add L L1 (parallel)", kPolicy, BC_ADD, &g.L, &g.L1));
  j.push_back(binary("maximum L L (parallel)", 0, BC_MAXIMUM, &g.L, &g.L));
  j.push_back({"out= add F F4 -> D", kPolicy, [] {
                 Tensor o = Clone(g.D);
                 return Finish(bc_binary_out(BC_ADD, g.F.get(), g.F4.get(), o.get()), {o.get()});
               }});
  j.push_back({"out= add F F4 -> int (bad cast)", kPolicy, [] {
                 Tensor o = Clone(g.I234);
                 return Finish(bc_binary_out(BC_ADD, g.F.get(), g.F4.get(), o.get()), {o.get()});
               }});
  j.push_back({"out= add F F4 -> [3, 4] (shape)", kPolicy, [] {
                 Tensor o = Clone(g.F34);
                 return Finish(bc_binary_out(BC_ADD, g.F.get(), g.F4.get(), o.get()), {o.get()});
               }});
  j.push_back({"out= mul L L1 (parallel)", kPolicy, [] {
                 Tensor o = Clone(g.L);
                 return Finish(bc_binary_out(BC_MUL, g.L.get(), g.L1.get(), o.get()), {o.get()});
               }});
  j.push_back({"in-place sub F F34", kPolicy, [] {
                 Tensor o = Clone(g.F);
                 return Finish(bc_binary_(BC_SUB, o.get(), g.F34.get()), {o.get()});
               }});
  j.push_back({"in-place add F4 F (shape)", kPolicy | kLegacy, [] {
                 Tensor o = Clone(g.F4);
                 return Finish(bc_binary_(BC_ADD, o.get(), g.F.get()), {o.get()});
               }});
  j.push_back({"in-place alpha F F", 0, [] {
                 Tensor o = Clone(g.F);
                 return Finish(bc_binary_alpha_(BC_SUB, o.get(), g.F.get(), 0.5), {o.get()});
               }});
  j.push_back({"in-place partial overlap", 0, [] {
                 alignas(16) float buf[32];
                 for (int i = 0; i < 32; ++i) buf[i] = static_cast<float>(i);
                 int64_t s[] = {4, 4};
                 bc_tensor *a = nullptr, *b = nullptr;
                 bc_tensor_wrap(BC_FLOAT32, s, nullptr, 2, buf, sizeof buf, nullptr, nullptr, &a);
                 bc_tensor_wrap(BC_FLOAT32, s, nullptr, 2, buf + 2, 30 * 4, nullptr, nullptr, &b);
                 Tensor ga(a), gb(b);
                 return Finish(bc_binary_(BC_ADD, b, a), {a});
               }});
  j.push_back({"where B F F4", kPolicy, [] {
                 bc_tensor* r = nullptr;
                 bc_status s = bc_where(g.B.get(), g.F.get(), g.F4.get(), &r);
                 Tensor gr(r);
                 return Finish(s, {r});
               }});
  j.push_back({"where_ B I4 (into D)", kPolicy, [] {
                 Tensor o = Clone(g.D);
                 return Finish(bc_where_(o.get(), g.B.get(), g.I4.get()), {o.get()});
               }});
  j.push_back({"addcmul F F4 F34", kPolicy, [] {
                 bc_tensor* r = nullptr;
                 bc_status s = bc_addcmul(g.F.get(), g.F4.get(), g.F34.get(), 0.5, &r);
                 Tensor gr(r);
                 return Finish(s, {r});
               }});
  j.push_back({"addcdiv I ints (dtype)", 0, [] {
                 bc_tensor* r = nullptr;
                 bc_status s = bc_addcdiv(g.F.get(), g.I234.get(), g.I234.get(), 0.5, &r);
                 Tensor gr(r);
                 return Finish(s, {r});
               }});
  j.push_back({"lerp F F4 F34", kPolicy, [] {
                 bc_tensor* r = nullptr;
                 bc_status s = bc_lerp(g.F.get(), g.F4.get(), g.F34.get(), &r);
                 Tensor gr(r);
                 return Finish(s, {r});
               }});
  j.push_back({"clamp F F4 -", kPolicy, [] {
                 bc_tensor* r = nullptr;
                 bc_status s = bc_clamp(g.F.get(), g.F4.get(), nullptr, &r);
                 Tensor gr(r);
                 return Finish(s, {r});
               }});
  j.push_back({"clamp_ F FS0 FS0", 0, [] {
                 Tensor o = Clone(g.F);
                 return Finish(bc_clamp_(o.get(), g.FS0.get(), g.FS0.get()), {o.get()});
               }});
  j.push_back({"copy_ D <- F4", kPolicy, [] {
                 Tensor o = Clone(g.D);
                 return Finish(bc_copy_(o.get(), g.F4.get()), {o.get()});
               }});
  j.push_back({"copy_ D <- FT", 0, [] {
                 Tensor o = Clone(g.D);
                 return Finish(bc_copy_(o.get(), g.FT.get()), {o.get()});
               }});
  j.push_back({"expand F4", 0, [] {
                 int64_t s[] = {5, 3, 4};
                 bc_tensor* v = nullptr;
                 bc_status st = bc_expand(g.F4.get(), s, 3, &v);
                 Tensor gv(v);
                 return Finish(st, {v});
               }});
  j.push_back({"expand F34 (bad)", 0, [] {
                 int64_t s[] = {5, 3};
                 bc_tensor* v = nullptr;
                 bc_status st = bc_expand(g.F34.get(), s, 2, &v);
                 Tensor gv(v);
                 return Finish(st, {v});
               }});
  j.push_back({"broadcast_tensors F F4 FS0", 0, [] {
                 const bc_tensor* ts[] = {g.F.get(), g.F4.get(), g.FS0.get()};
                 bc_tensor* v[3] = {};
                 bc_status st = bc_broadcast_tensors(ts, 3, v);
                 Tensor a(v[0]), b(v[1]), c(v[2]);
                 return Finish(st, {v[0], v[1], v[2]});
               }});
  j.push_back({"sum_to_shape F [3, 1]", 0, [] {
                 int64_t s[] = {3, 1};
                 bc_tensor* r = nullptr;
                 bc_status st = bc_sum_to_shape(g.F.get(), s, 2, &r);
                 Tensor gr(r);
                 return Finish(st, {r});
               }});
  j.push_back({"sum_to_shape L [512] (parallel)", 0, [] {
                 int64_t s[] = {512};
                 bc_tensor* r = nullptr;
                 bc_status st = bc_sum_to_shape(g.L.get(), s, 1, &r);
                 Tensor gr(r);
                 return Finish(st, {r});
               }});
  j.push_back({"broadcast_shapes_n (bad)", 0, [] {
                 int64_t a[] = {2, 3}, b[] = {4}, c[] = {1};
                 const int64_t* shapes[] = {a, b, c};
                 size_t nd[] = {2, 1, 1}, n = 0;
                 int64_t out[2];
                 Outcome o = Finish(bc_broadcast_shapes_n(shapes, nd, 3, out, &n), {});
                 return o;
               }});
  j.push_back({"broadcast_shapes", 0, [] {
                 int64_t a[] = {2, 1, 3}, b[] = {5, 1}, out[3];
                 size_t n = 0;
                 Outcome o = Finish(bc_broadcast_shapes(a, 3, b, 2, out, &n), {});
                 for (size_t i = 0; i < n; ++i) o.bytes.push_back(static_cast<unsigned char>(out[i]));
                 return o;
               }});
  return j;
}

// ---------------------------------------------------------------------------
// The phases

struct Phase {
  const char* name;
  int bwarn, legacy, was_error;
  bc_policy policy;
  unsigned excluded;  // jobs with any of these sensitivities are left out
  bool flip_all;      // phase D: the flipper changes every setting
};

struct Reference {
  Outcome outcome;
  WarnLog warnings;
};

void Apply(const Phase& p) {
  bc_set_broadcast_warning(p.bwarn);
  bc_set_legacy_pointwise(p.legacy);
  bc_set_warnings_as_errors(p.was_error);
  ASSERT_EQ(bc_set_broadcast_policy(p.policy), BC_OK);
}

std::string Describe(const Outcome& o) {
  return std::string(bc_status_string(o.status)) + " \"" + o.message + "\" (" +
         std::to_string(o.bytes.size()) + " result bytes)";
}

void RunPhase(const Phase& phase) {
  std::vector<Job> all = Jobs(), jobs;
  for (Job& j : all)
    if ((j.sens & phase.excluded) == 0) jobs.push_back(std::move(j));
  ASSERT_GE(jobs.size(), 10u);
  bc_set_warning_handler(Handler, nullptr);
  Apply(phase);

  // Single-threaded reference, one job at a time.
  ASSERT_EQ(bc_set_num_threads(1), BC_OK);
  std::vector<Reference> ref(jobs.size());
  for (size_t k = 0; k < jobs.size(); ++k) {
    WarnLog log;
    t_log = &log;
    ref[k].outcome = jobs[k].run();
    t_log = nullptr;
    ref[k].warnings = log;
  }
  ASSERT_EQ(bc_set_num_threads(0), BC_OK);

  const int ops = OpsPerThread();
  std::atomic<bool> stop{false};
  std::atomic<int> running{kThreads};
  std::thread flipper([&] {
    std::mt19937 rng(99);
    int i = 0;
    while (!stop.load()) {
      const int r = static_cast<int>(rng() % 16);
      bc_set_num_threads(static_cast<int>(rng() % 5));  // 0 = default
      switch (phase.name[0]) {
        case 'A':
          if (r & 1) bc_set_broadcast_warning(static_cast<int>(rng() % 2));
          if (r & 2) bc_set_legacy_pointwise(static_cast<int>(rng() % 2));
          break;
        case 'B':
        case 'C':
          if (r & 1) bc_set_warning_handler(Handler, nullptr);
          break;
        default:
          bc_set_broadcast_warning(static_cast<int>(rng() % 2));
          bc_set_legacy_pointwise(static_cast<int>(rng() % 2));
          bc_set_warnings_as_errors(static_cast<int>(rng() % 2));
          bc_set_broadcast_policy(static_cast<bc_policy>(rng() % 3));
          break;
      }
      if (++i % 8 == 0) std::this_thread::yield();
    }
  });

  struct Result {
    int64_t mismatches = 0;
    std::string first;
    WarnLog got, want;
  };
  std::vector<Result> results(kThreads);
  std::vector<std::thread> workers;
  for (int w = 0; w < kThreads; ++w) {
    workers.emplace_back([&, w] {
      Result& res = results[w];
      t_log = &res.got;
      std::mt19937 rng(1000 + w);
      for (int i = 0; i < ops; ++i) {
        const size_t k = rng() % jobs.size();
        const Outcome o = jobs[k].run();
        for (const auto& m : ref[k].warnings.by_message) res.want.by_message[m.first] += m.second;
        res.want.total += ref[k].warnings.total;
        if (!(o == ref[k].outcome)) {
          if (res.mismatches++ == 0)
            res.first = std::string(jobs[k].name) + ": got " + Describe(o) + ", want " +
                        Describe(ref[k].outcome);
        }
      }
      t_log = nullptr;
      running.fetch_sub(1);
    });
  }
  for (std::thread& t : workers) t.join();
  stop = true;
  flipper.join();

  int64_t total_warnings = 0;
  for (int w = 0; w < kThreads; ++w) {
    const Result& r = results[w];
    EXPECT_EQ(r.mismatches, 0) << "phase " << phase.name << " thread " << w << ": " << r.first;
    EXPECT_EQ(r.got.total, r.want.total) << "phase " << phase.name << " thread " << w;
    EXPECT_EQ(r.got.by_message, r.want.by_message) << "phase " << phase.name << " thread " << w;
    total_warnings += r.got.total;
  }
  EXPECT_EQ(g_foreign_warnings.load(), 0) << "a warning reached the handler on another thread";
  std::printf("phase %s: %d threads x %d ops over %zu jobs, %lld warnings\n", phase.name, kThreads,
              ops, jobs.size(), static_cast<long long>(total_warnings));

  bc_set_num_threads(0);
  bc_set_broadcast_warning(0);
  bc_set_legacy_pointwise(0);
  bc_set_warnings_as_errors(0);
  bc_set_broadcast_policy(BC_POLICY_ALLOW);
  bc_set_warning_handler(nullptr, nullptr);
}

class Concurrency : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { g.Make(); }
  static void TearDownTestSuite() { g = Inputs(); }
};

TEST_F(Concurrency, PhaseA_FlipsThatChangeNothing) {
  RunPhase({"A", 0, 0, 0, BC_POLICY_ALLOW, kLegacy | kEqualNumel, false});
}

TEST_F(Concurrency, PhaseB_WarningsCountedPerThread) {
  RunPhase({"B", 1, 1, 0, BC_POLICY_WARN, 0, false});
}

TEST_F(Concurrency, PhaseC_WarningsAsErrors) {
  RunPhase({"C", 1, 1, 1, BC_POLICY_WARN, 0, false});
}

TEST_F(Concurrency, PhaseD_EverythingFlips) {
  RunPhase({"D", 0, 0, 0, BC_POLICY_ALLOW, kPolicy | kLegacy | kEqualNumel, true});
}

// The reference pass itself is meaningful: the warning phases do warn, and
// the jobs include failures.
TEST_F(Concurrency, JobsCoverFailuresAndWarnings) {
  std::vector<Job> jobs = Jobs();
  bc_set_warning_handler(Handler, nullptr);
  Apply({"B", 1, 1, 0, BC_POLICY_WARN, 0, false});
  int failures = 0, warned = 0;
  for (Job& j : jobs) {
    WarnLog log;
    t_log = &log;
    Outcome o = j.run();
    t_log = nullptr;
    failures += o.status != BC_OK;
    warned += log.total > 0;
  }
  bc_set_broadcast_warning(0);
  bc_set_legacy_pointwise(0);
  bc_set_broadcast_policy(BC_POLICY_ALLOW);
  bc_set_warning_handler(nullptr, nullptr);
  EXPECT_GE(failures, 8);
  EXPECT_GE(warned, 10);
}

}  // namespace
}  // namespace rel
