// Allocation failure: for every entry point, the n-th allocation is made to
// fail for n = 1, 2, ... until the call no longer allocates that many times.
// Each failing call must return BC_ERR_OUT_OF_MEMORY (or, for a call that
// fails anyway, its own error), set its outputs to NULL, leak nothing and
// leave its inputs and the written tensor untouched.
//
// The allocator is interposed in this executable: libbcast.so's calls to
// malloc, aligned_alloc and operator new resolve here through ELF symbol
// interposition (the executable comes first in the lookup scope), and the
// real allocator is glibc's __libc_* entry points. The count is per thread
// and only armed around the call under test; a process-wide count of live
// blocks is the leak check. Each entry point's sweep runs in a forked child,
// so that an abort inside the library (or a runtime it uses) fails that one
// entry point with a message instead of ending the whole test program.
//
// Not built with sanitizers: ASan and TSan own malloc themselves.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <new>
#include <string>
#include <vector>

#include "rel_util.h"

extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
void __libc_free(void*);
}

namespace {

std::atomic<int64_t> g_live{0};
thread_local bool t_armed = false;
thread_local int64_t t_seen = 0;     // allocations attempted while armed
thread_local int64_t t_fail_at = 0;  // which one fails (1-based)

bool ShouldFail() {
  if (!t_armed) return false;
  return ++t_seen == t_fail_at;
}

void* Counted(void* p) {
  if (p != nullptr) g_live.fetch_add(1, std::memory_order_relaxed);
  return p;
}

void* Alloc(size_t n) {
  if (ShouldFail()) {
    errno = ENOMEM;
    return nullptr;
  }
  return Counted(__libc_malloc(n));
}

void* AllocAligned(size_t align, size_t n) {
  if (ShouldFail()) {
    errno = ENOMEM;
    return nullptr;
  }
  return Counted(__libc_memalign(align, n));
}

void Release(void* p) {
  if (p == nullptr) return;
  g_live.fetch_sub(1, std::memory_order_relaxed);
  __libc_free(p);
}

}  // namespace

// Default visibility spelled out: the project builds with
// -fvisibility=hidden, which left posix_memalign and memalign (unlike malloc
// and aligned_alloc, whose system-header declarations keep them default)
// hidden, so they did not interpose and the library's tensor data went
// uncounted.
#define BCAST_INTERPOSE __attribute__((visibility("default")))

extern "C" {

BCAST_INTERPOSE void* malloc(size_t n) { return Alloc(n); }
BCAST_INTERPOSE void free(void* p) { Release(p); }
BCAST_INTERPOSE void* calloc(size_t n, size_t m) {
  if (ShouldFail()) {
    errno = ENOMEM;
    return nullptr;
  }
  return Counted(__libc_calloc(n, m));
}
BCAST_INTERPOSE void* realloc(void* p, size_t n) {
  if (ShouldFail()) {
    errno = ENOMEM;
    return nullptr;
  }
  void* r = __libc_realloc(p, n);
  if (p == nullptr && r != nullptr) g_live.fetch_add(1, std::memory_order_relaxed);
  if (p != nullptr && n == 0 && r == nullptr) g_live.fetch_sub(1, std::memory_order_relaxed);
  return r;
}
BCAST_INTERPOSE void* aligned_alloc(size_t align, size_t n) { return AllocAligned(align, n); }
BCAST_INTERPOSE void* memalign(size_t align, size_t n) { return AllocAligned(align, n); }
BCAST_INTERPOSE int posix_memalign(void** out, size_t align, size_t n) {
  void* p = AllocAligned(align, n);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}

}  // extern "C"

void* operator new(size_t n) {
  void* p = Alloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void* operator new[](size_t n) { return operator new(n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept { return Alloc(n == 0 ? 1 : n); }
void* operator new[](size_t n, const std::nothrow_t&) noexcept { return Alloc(n == 0 ? 1 : n); }
void* operator new(size_t n, std::align_val_t a) {
  void* p = AllocAligned(static_cast<size_t>(a), n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void* operator new[](size_t n, std::align_val_t a) { return operator new(n, a); }
void* operator new(size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return AllocAligned(static_cast<size_t>(a), n == 0 ? 1 : n);
}
void* operator new[](size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return AllocAligned(static_cast<size_t>(a), n == 0 ? 1 : n);
}
void operator delete(void* p) noexcept { Release(p); }
void operator delete[](void* p) noexcept { Release(p); }
void operator delete(void* p, size_t) noexcept { Release(p); }
void operator delete[](void* p, size_t) noexcept { Release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { Release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { Release(p); }
void operator delete(void* p, std::align_val_t) noexcept { Release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { Release(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { Release(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { Release(p); }

namespace rel {
namespace {

// Outputs of one call; freed after the allocator is disarmed.
struct Made {
  bc_tensor* t[4] = {nullptr, nullptr, nullptr, nullptr};
};

struct Entry {
  const char* name;
  // Makes the inputs (not counted), once per attempt.
  std::function<void()> setup;
  // The call under test, with the allocator armed.
  std::function<bc_status(Made*)> call;
  // Snapshot of everything the call must not change on failure.
  std::function<std::vector<unsigned char>()> snapshot;
  // Frees the inputs.
  std::function<void()> teardown;
  // Status expected once no allocation fails (BC_OK, or the call's own error).
  bc_status ok = BC_OK;
};

// Runs the sweep for one entry point; returns a description of every problem.
std::string Sweep(const Entry& e, int64_t* calls_out) {
  std::string problems;
  char line[512];
  // Warm up once: lazily initialised state (dispatch tables, thread pools)
  // is not a per-call allocation.
  {
    e.setup();
    Made m;
    e.call(&m);
    for (bc_tensor* t : m.t) bc_tensor_free(t);
    e.teardown();
  }
  int64_t n = 1;
  for (; n < 100000; ++n) {
    e.setup();
    const std::vector<unsigned char> before = e.snapshot();
    bc_tensor* const poison = reinterpret_cast<bc_tensor*>(static_cast<uintptr_t>(0x10));
    Made m;
    for (bc_tensor*& t : m.t) t = poison;
    const int64_t live0 = g_live.load();
    t_seen = 0;
    t_fail_at = n;
    t_armed = true;
    const bc_status s = e.call(&m);
    t_armed = false;
    // Everything is recorded without allocating until the leak count is read.
    const int64_t seen = t_seen;
    bc_error_detail detail;
    bc_last_error_detail(&detail);
    char msg[256];
    std::snprintf(msg, sizeof msg, "%s", bc_last_error());
    const bool failed_alloc = n <= seen;
    bool output_set = false;
    for (bc_tensor*& t : m.t) {
      if (t == poison) t = nullptr;
      else if (t != nullptr && s != BC_OK) output_set = true;
    }
    const bool changed = s != BC_OK && e.snapshot() != before;
    for (bc_tensor* t : m.t) bc_tensor_free(t);
    const int64_t leaked = g_live.load() - live0;

    if (failed_alloc) {
      if (s != BC_ERR_OUT_OF_MEMORY && !(e.ok != BC_OK && s == e.ok)) {
        std::snprintf(line, sizeof line, "  allocation %lld failed: status %s (\"%s\")\n",
                      static_cast<long long>(n), bc_status_string(s), msg);
        problems += line;
      } else if (detail.code != s || msg[0] == '\0') {
        std::snprintf(line, sizeof line, "  allocation %lld failed: detail code %d, message \"%s\"\n",
                      static_cast<long long>(n), detail.code, msg);
        problems += line;
      }
    } else if (s != e.ok) {
      std::snprintf(line, sizeof line, "  no allocation failed (%lld made): status %s (\"%s\")\n",
                    static_cast<long long>(seen), bc_status_string(s), msg);
      problems += line;
    }
    if (output_set) {
      std::snprintf(line, sizeof line, "  allocation %lld failed: an output is not NULL\n",
                    static_cast<long long>(n));
      problems += line;
    }
    if (changed) {
      std::snprintf(line, sizeof line,
                    "  allocation %lld failed: the inputs or the written tensor changed\n",
                    static_cast<long long>(n));
      problems += line;
    }
    // A negative count is a runtime (libgomp) releasing a cache it filled earlier.
    if (leaked > 0) {
      std::snprintf(line, sizeof line, "  allocation %lld (of %lld) failed: %lld blocks leaked\n",
                    static_cast<long long>(n), static_cast<long long>(seen),
                    static_cast<long long>(leaked));
      problems += line;
    }
    e.teardown();
    if (!failed_alloc) break;
    if (problems.size() > 4000) break;
  }
  *calls_out = n - 1;
  return problems;
}

// Inputs shared by the entries; rebuilt for every attempt so that a write
// into one can never leak into the next.
struct Inputs {
  bc_tensor* f23 = nullptr;   // float32 [2, 3]
  bc_tensor* i3 = nullptr;    // int32 [3]
  bc_tensor* f3s = nullptr;   // float32 [3], wrapped with stride 2
  bc_tensor* d23 = nullptr;   // float64 [2, 3], the written tensor of out= forms
  bc_tensor* b23 = nullptr;   // bool [2, 3]
  bc_tensor* f6 = nullptr;    // float32 [6] (legacy pointwise partner of [2, 3])
  bc_tensor* zi3 = nullptr;   // int32 [3] with a zero
  bc_tensor* big = nullptr;   // float32 [70000], beyond the parallel grain
  bc_tensor* ft = nullptr;    // float32 [3, 2], transposed view of f23's values
  float strided[6] = {1.5f, -1, 2.5f, -1, -3.5f, -1};
  float tvals[6] = {0.5f, 3.5f, 1.5f, 4.5f, 2.5f, 5.5f};

  void Make() {
    f23 = Floats({2, 3}).release();
    i3 = Ints({3}).release();
    d23 = rel::Make<double>(BC_FLOAT64, {2, 3}, {1, 2, 3, 4, 5, 6}).release();
    b23 = rel::Make<uint8_t>(BC_BOOL, {2, 3}, {1, 0, 1, 0, 0, 1}).release();
    f6 = Floats({6}, 2.0f, 0.5f).release();
    zi3 = rel::Make<int32_t>(BC_INT32, {3}, {4, 0, 2}).release();
    big = Floats({70000}).release();
    int64_t s3[] = {3}, st2[] = {2};
    bc_tensor_wrap(BC_FLOAT32, s3, st2, 1, strided, sizeof strided, nullptr, nullptr, &f3s);
    int64_t s32[] = {3, 2}, st12[] = {1, 2};
    bc_tensor_wrap(BC_FLOAT32, s32, st12, 2, tvals, sizeof tvals, nullptr, nullptr, &ft);
  }
  void Free() {
    for (bc_tensor** t : {&f23, &i3, &f3s, &d23, &b23, &f6, &zi3, &big, &ft}) {
      bc_tensor_free(*t);
      *t = nullptr;
    }
  }
  std::vector<unsigned char> Snapshot() const {
    std::vector<unsigned char> all;
    for (const bc_tensor* t : {f23, i3, f3s, d23, b23, f6, zi3, big, ft}) {
      std::vector<unsigned char> b = Bytes(t);
      all.insert(all.end(), b.begin(), b.end());
    }
    return all;
  }
};

Inputs g_in;
int g_warnings = 0;
int g_deleter_calls = 0;
float g_wrap_buf[8];

Entry Simple(const char* name, std::function<bc_status(Made*)> call, bc_status ok = BC_OK) {
  Entry e;
  e.name = name;
  e.setup = [] { g_in.Make(); };
  e.call = std::move(call);
  e.snapshot = [] { return g_in.Snapshot(); };
  e.teardown = [] { g_in.Free(); };
  e.ok = ok;
  return e;
}

std::vector<Entry> Entries() {
  std::vector<Entry> v;
  static const int64_t s23[] = {2, 3}, s3[] = {3}, s1[] = {1}, s423[] = {4, 2, 3};
  v.push_back(Simple("bc_tensor_empty", [](Made* m) {
    return bc_tensor_empty(BC_FLOAT32, s23, 2, &m->t[0]);
  }));
  v.push_back(Simple("bc_tensor_zeros", [](Made* m) {
    return bc_tensor_zeros(BC_INT16, s423, 3, &m->t[0]);
  }));
  v.push_back(Simple("bc_tensor_from_data", [](Made* m) {
    static const double data[6] = {1, 2, 3, 4, 5, 6};
    return bc_tensor_from_data(BC_FLOAT64, s23, 2, data, &m->t[0]);
  }));
  {
    Entry e = Simple("bc_tensor_wrap", [](Made* m) {
      static const int64_t st[] = {1, 2};
      return bc_tensor_wrap(BC_FLOAT32, s23, st, 2, g_wrap_buf, sizeof g_wrap_buf,
                            [](void*, void*) { ++g_deleter_calls; }, nullptr, &m->t[0]);
    });
    e.setup = [] {
      g_in.Make();
      g_deleter_calls = 0;
      for (int i = 0; i < 8; ++i) g_wrap_buf[i] = static_cast<float>(i);
    };
    e.snapshot = [] {
      std::vector<unsigned char> s = g_in.Snapshot();
      s.push_back(static_cast<unsigned char>(g_deleter_calls));  // not called on failure
      return s;
    };
    v.push_back(e);
  }
  v.push_back(Simple("bc_tensor_view", [](Made* m) { return bc_tensor_view(g_in.f3s, &m->t[0]); }));
  v.push_back(Simple("bc_tensor_clone", [](Made* m) { return bc_tensor_clone(g_in.ft, &m->t[0]); }));
  v.push_back(Simple("bc_tensor_copy_to", [](Made*) {
    static float dst[6];
    return bc_tensor_copy_to(g_in.ft, dst, sizeof dst);
  }));
  v.push_back(Simple("bc_broadcast_shapes", [](Made*) {
    int64_t out[3];
    size_t n;
    return bc_broadcast_shapes(s423, 3, s3, 1, out, sizeof out / sizeof out[0], &n);
  }));
  v.push_back(Simple("bc_broadcast_shapes (failing)", [](Made*) {
    static const int64_t a[] = {2, 4};
    int64_t out[3];
    size_t n;
    return bc_broadcast_shapes(a, 2, s3, 1, out, sizeof out / sizeof out[0], &n);
  }, BC_ERR_NOT_BROADCASTABLE));
  v.push_back(Simple("bc_broadcast_shapes_n", [](Made*) {
    const int64_t* shapes[] = {s423, s3, s1, s23};
    size_t nd[] = {3, 1, 1, 2}, n;
    int64_t out[3];
    return bc_broadcast_shapes_n(shapes, nd, 4, out, sizeof out / sizeof out[0], &n);
  }));
  v.push_back(Simple("bc_expand", [](Made* m) {
    return bc_expand(g_in.f3s, s423, 3, &m->t[0]);
  }));
  v.push_back(Simple("bc_expand (failing)", [](Made* m) {
    static const int64_t bad[] = {2, 4};
    return bc_expand(g_in.f3s, bad, 2, &m->t[0]);
  }, BC_ERR_SHAPE_MISMATCH));
  v.push_back(Simple("bc_broadcast_tensors", [](Made* m) {
    const bc_tensor* ts[] = {g_in.f23, g_in.i3, g_in.f3s};
    return bc_broadcast_tensors(ts, 3, m->t, 3);
  }));
  v.push_back(Simple("bc_sum_to_shape", [](Made* m) {
    return bc_sum_to_shape(g_in.f23, s3, 1, &m->t[0]);
  }));
  v.push_back(Simple("bc_reduce (sum, dim 0)", [](Made* m) {
    static const int64_t d0[] = {0};
    return bc_reduce(BC_SUM, g_in.f23, d0, 1, 0, &m->t[0]);
  }));
  v.push_back(Simple("bc_reduce (var, every dim)", [](Made* m) {
    return bc_reduce(BC_VAR, g_in.f23, nullptr, 0, 1, &m->t[0]);
  }));
  v.push_back(Simple("bc_reduce (argmax, dim -1)", [](Made* m) {
    static const int64_t d1[] = {-1};
    return bc_reduce(BC_ARGMAX, g_in.f23, d1, 1, 0, &m->t[0]);
  }));
  v.push_back(Simple("bc_reduce_ex (nansum, dtype=int32)", [](Made* m) {
    bc_reduce_params p = {BC_INT32, 0, BC_REDUCE_DTYPE};
    return bc_reduce_ex(BC_NANSUM, g_in.f23, nullptr, 0, 0, &p, &m->t[0]);
  }));
  v.push_back(Simple("bc_max_dim", [](Made* m) {
    return bc_max_dim(g_in.f23, 1, 1, &m->t[0], &m->t[1]);
  }));
  v.push_back(Simple("bc_sum_to_shape (int)", [](Made* m) {
    bc_tensor* ex = nullptr;
    bc_status s = bc_expand(g_in.i3, s23, 2, &ex);
    if (s != BC_OK) return s;
    s = bc_sum_to_shape(ex, s1, 1, &m->t[0]);
    bc_tensor_free(ex);
    return s;
  }));
  v.push_back(Simple("bc_binary", [](Made* m) {
    return bc_binary(BC_ADD, g_in.f23, g_in.i3, &m->t[0]);
  }));
  v.push_back(Simple("bc_binary (strided, converted)", [](Made* m) {
    return bc_binary(BC_ATAN2, g_in.f3s, g_in.i3, &m->t[0]);
  }));
  v.push_back(Simple("bc_binary (transposed)", [](Made* m) {
    return bc_binary(BC_HYPOT, g_in.ft, g_in.ft, &m->t[0]);
  }));
  v.push_back(Simple("bc_binary (large)", [](Made* m) {
    return bc_binary(BC_SUB, g_in.big, g_in.big, &m->t[0]);
  }));
  v.push_back(Simple("bc_binary_out", [](Made*) {
    return bc_binary_out(BC_DIV, g_in.f23, g_in.f3s, g_in.d23);
  }));
  v.push_back(Simple("bc_binary_", [](Made*) {
    return bc_binary_(BC_MAXIMUM, g_in.d23, g_in.i3);
  }));
  v.push_back(Simple("bc_binary_alpha", [](Made* m) {
    return bc_binary_alpha(BC_SUB, g_in.f23, g_in.f3s, 0.5, &m->t[0]);
  }));
  v.push_back(Simple("bc_binary (not broadcastable)", [](Made* m) {
    return bc_binary(BC_ADD, g_in.f6, g_in.f23, &m->t[0]);
  }, BC_ERR_NOT_BROADCASTABLE));
  v.push_back(Simple("bc_binary (division by zero)", [](Made* m) {
    return bc_binary(BC_REMAINDER, g_in.i3, g_in.zi3, &m->t[0]);
  }, BC_ERR_DIVISION_BY_ZERO));
  v.push_back(Simple("bc_binary (bad cast)", [](Made*) {
    bc_tensor* iout = nullptr;
    bc_status s = bc_tensor_empty(BC_INT32, s3, 1, &iout);
    if (s != BC_OK) return s;
    s = bc_binary_out(BC_ADD, g_in.f3s, g_in.i3, iout);
    bc_tensor_free(iout);
    return s;
  }, BC_ERR_DTYPE));
  {
    // Warnings: the message list and the handler call.
    Entry e = Simple("bc_binary (legacy pointwise, warning)", [](Made* m) {
      return bc_binary(BC_ADD, g_in.ft, g_in.f6, &m->t[0]);
    });
    e.setup = [] {
      g_in.Make();
      bc_set_legacy_pointwise(1);
      bc_set_broadcast_policy(BC_POLICY_WARN);
      bc_set_warning_handler([](const char*, void*) { ++g_warnings; }, nullptr);
    };
    e.teardown = [] {
      g_in.Free();
      bc_set_legacy_pointwise(0);
      bc_set_broadcast_policy(BC_POLICY_ALLOW);
      bc_set_warning_handler(nullptr, nullptr);
    };
    v.push_back(e);
  }
  {
    Entry e = Simple("bc_binary_ (warning as error)", [](Made*) {
      return bc_binary_(BC_ADD, g_in.f23, g_in.f3s);
    }, BC_ERR_POLICY);
    e.setup = [] {
      g_in.Make();
      bc_set_broadcast_policy(BC_POLICY_WARN);
      bc_set_warnings_as_errors(1);
    };
    e.teardown = [] {
      g_in.Free();
      bc_set_broadcast_policy(BC_POLICY_ALLOW);
      bc_set_warnings_as_errors(0);
    };
    v.push_back(e);
  }
  v.push_back(Simple("bc_where", [](Made* m) {
    return bc_where(g_in.b23, g_in.f3s, g_in.i3, &m->t[0]);
  }));
  v.push_back(Simple("bc_where_", [](Made*) { return bc_where_(g_in.d23, g_in.b23, g_in.f3s); }));
  v.push_back(Simple("bc_addcmul", [](Made* m) {
    return bc_addcmul(g_in.f23, g_in.f3s, g_in.i3, 0.5, &m->t[0]);
  }));
  v.push_back(Simple("bc_addcdiv_out", [](Made*) {
    return bc_addcdiv_out(g_in.f23, g_in.f3s, g_in.f23, 2.0, g_in.d23);
  }));
  v.push_back(Simple("bc_lerp_", [](Made*) { return bc_lerp_(g_in.f23, g_in.f3s, g_in.f3s); }));
  v.push_back(Simple("bc_clamp (one bound)", [](Made* m) {
    return bc_clamp(g_in.f23, nullptr, g_in.f3s, &m->t[0]);
  }));
  v.push_back(Simple("bc_clamp_", [](Made*) { return bc_clamp_(g_in.d23, g_in.i3, nullptr); }));
  v.push_back(Simple("bc_copy_", [](Made*) { return bc_copy_(g_in.d23, g_in.f3s); }));
  return v;
}

class AllocFailure : public ::testing::TestWithParam<size_t> {};

TEST_P(AllocFailure, EveryAllocationCanFail) {
  const std::vector<Entry> entries = Entries();
  const Entry& e = entries[GetParam()];
  std::fflush(nullptr);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    bc_set_num_threads(1);
    int64_t calls = 0;
    const std::string problems = Sweep(e, &calls);
    if (!problems.empty()) {
      std::fprintf(stderr, "%s:\n%s", e.name, problems.c_str());
      std::fflush(stderr);
      _exit(1);
    }
    std::fprintf(stderr, "%s: %lld allocations, each failed once, all clean\n", e.name,
                 static_cast<long long>(calls));
    std::fflush(stderr);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  if (WIFSIGNALED(status)) {
    ADD_FAILURE() << e.name << ": the process died of signal " << WTERMSIG(status)
                  << " while an allocation was failing (see the output above)";
  } else {
    EXPECT_EQ(WEXITSTATUS(status), 0) << e.name << ": see the problems listed above";
  }
}

std::string EntryName(const ::testing::TestParamInfo<size_t>& info) {
  std::string s = Entries()[info.param].name;
  std::string r;
  for (char c : s) r += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return r + "_" + std::to_string(info.param);
}

INSTANTIATE_TEST_SUITE_P(EntryPoints, AllocFailure,
                         ::testing::Range<size_t>(0, Entries().size()), EntryName);

// The interposer itself must work, or every sweep above is vacuous.
TEST(AllocFailureHarness, InterposerSeesTheLibrarysAllocations) {
  t_seen = 0;
  t_fail_at = 0;
  t_armed = true;
  int64_t shape[] = {4};
  bc_tensor* t = nullptr;
  const bc_status s = bc_tensor_empty(BC_FLOAT32, shape, 1, &t);
  t_armed = false;
  ASSERT_EQ(s, BC_OK);
  bc_tensor_free(t);
  EXPECT_GE(t_seen, 2) << "libbcast's allocations do not reach this executable's allocator";
  t_seen = 0;
  t_fail_at = 1;
  t_armed = true;
  const bc_status f = bc_tensor_empty(BC_FLOAT32, shape, 1, &t);
  t_armed = false;
  EXPECT_EQ(f, BC_ERR_OUT_OF_MEMORY);
  EXPECT_EQ(t, nullptr);
}

}  // namespace
}  // namespace rel
