// The broadcast iterator (bc_iter): a host's loop over every layout, with
// dtype conversion through buffers, threads, pull mode, failing loops,
// reuse, and the checks and texts of bcast's own ops. The reference is a
// naive loop over broadcast indices (test_util.h); the loops here compute
// out = 3*in0 + in1 - in2 on small integers, exact in every dtype used.
#include <atomic>
#include <cmath>
#include <cstring>
#include <set>
#include <thread>
#include <mutex>

#include "test_util.h"

namespace {

using bct::FromTensor;
using bct::Host;
using bct::Shape;
using bct::Tensor;

constexpr double kCoef[3] = {3, 1, -1};

// What a loop saw, shared by its threads.
struct Seen {
  int nops = 0;
  size_t es = 8;  // the loop dtype's size (all operands)
  std::atomic<int64_t> calls{0}, elems{0};
  std::atomic<bool> bad_stride{false}, inner_zero{false};
  std::atomic<int64_t> fail_at{-1};  // fail (return 7) on this call
  std::mutex mu;
  std::set<std::thread::id> threads;
};

void Note(Seen& s, const int64_t* st, int64_t n0, int64_t n1) {
  for (int k = 0; k < s.nops; ++k) {
    if (st[k] == 0 && k > 0) s.inner_zero = true;
    else if (st[k] != static_cast<int64_t>(s.es)) s.bad_stride = true;
  }
  if (n0 < 1 || n1 < 1) s.bad_stride = true;
  s.elems += n0 * n1;
  std::lock_guard<std::mutex> lock(s.mu);
  s.threads.insert(std::this_thread::get_id());
}

// out = 3*in0 + in1 - in2 in float64.
int LoopF64(void* user, char* const* data, const int64_t* st, int64_t n0, int64_t n1) {
  Seen& s = *static_cast<Seen*>(user);
  const int64_t call = s.calls++;
  if (call == s.fail_at) return 7;
  Note(s, st, n0, n1);
  const int n = s.nops;
  for (int64_t j = 0; j < n1; ++j) {
    for (int64_t i = 0; i < n0; ++i) {
      double v = 0;
      for (int k = 1; k < n; ++k) {
        double x;
        std::memcpy(&x, data[k] + j * st[n + k] + i * st[k], 8);
        v += kCoef[k - 1] * x;
      }
      std::memcpy(data[0] + j * st[n] + i * st[0], &v, 8);
    }
  }
  return 0;
}

// out = in0 + in1 in float32, each operand in its own dtype.
int LoopAddF32(void* user, char* const* data, const int64_t* st, int64_t n0, int64_t n1) {
  Seen& s = *static_cast<Seen*>(user);
  ++s.calls;
  Note(s, st, n0, n1);
  for (int64_t j = 0; j < n1; ++j) {
    float* o = reinterpret_cast<float*>(data[0] + j * st[3]);
    const char* a = data[1] + j * st[4];
    const char* b = data[2] + j * st[5];
    for (int64_t i = 0; i < n0; ++i)
      o[i] = *reinterpret_cast<const float*>(a + i * st[1]) + *reinterpret_cast<const float*>(b + i * st[2]);
  }
  return 0;
}

// The reference: 3*in0 + in1 - in2 over the broadcast shape, in out's dtype.
Host Reference(const std::vector<Host>& in, bc_dtype out_dtype) {
  Shape shape = in[0].shape;
  for (size_t i = 1; i < in.size(); ++i) EXPECT_TRUE(bct::RefBroadcast(shape, in[i].shape, &shape));
  Host r;
  r.dtype = out_dtype;
  r.shape = shape;
  r.v.resize(static_cast<size_t>(bct::NumelOf(shape)));
  bct::ForEachIndex(shape, [&](int64_t k, const Shape& idx) {
    double v = 0;
    for (size_t i = 0; i < in.size(); ++i) {
      const bct::Val x = in[i].v[bct::SourceIndex(in[i].shape, shape, idx)];
      v += kCoef[i] * (bct::IsFloat(in[i].dtype) ? x.f : static_cast<double>(x.i));
    }
    r.v[k] = bct::IsFloat(out_dtype) ? bct::FVal(v) : bct::IVal(static_cast<int64_t>(v));
  });
  return r;
}

void ExpectSame(const Host& want, const Host& got, const std::string& what) {
  ASSERT_EQ(want.shape, got.shape) << what;
  ASSERT_EQ(want.dtype, got.dtype) << what;
  for (size_t k = 0; k < want.v.size(); ++k) {
    if (bct::IsFloat(want.dtype)) {
      ASSERT_EQ(want.v[k].f, got.v[k].f) << what << " at " << k;
    } else {
      ASSERT_EQ(want.v[k].i, got.v[k].i) << what << " at " << k;
    }
  }
}

// Small integers (-40..40; 0..80 for unsigned and bool-free dtypes).
Host Values(bc_dtype d, const Shape& s, std::mt19937& rng) {
  std::uniform_int_distribution<int> u(d == BC_UINT8 ? 0 : -40, 40);
  std::vector<double> v(static_cast<size_t>(bct::NumelOf(s)));
  for (double& x : v) x = u(rng);
  return bct::MakeHost(d, s, v);
}

struct IterFree {
  void operator()(bc_iter* it) const { bc_iter_free(it); }
};
using Iter = std::unique_ptr<bc_iter, IterFree>;

Iter MakeIter(const std::vector<const bc_tensor*>& ins, bc_tensor* out, bc_dtype out_dtype,
              const bc_dtype* loop, unsigned flags = 0, bc_ctx* ctx = nullptr) {
  bc_iter_spec spec{};
  spec.inputs = ins.data();
  spec.nin = ins.size();
  spec.out = out;
  spec.out_dtype = out_dtype;
  spec.loop_dtypes = loop;
  spec.flags = flags;
  bc_iter* it = nullptr;
  const bc_status st = bc_ctx_iter_new(ctx, &spec, &it);
  EXPECT_EQ(st, BC_OK) << (ctx ? bc_ctx_last_error(ctx) : bc_last_error());
  return Iter(it);
}

Tensor Output(bc_iter* it) {
  bc_tensor* t = nullptr;
  EXPECT_EQ(bc_iter_output(it, &t), BC_OK);
  return Tensor(t);
}

struct Layout {
  const char* name;
  std::vector<Shape> shapes;
};

const std::vector<Layout>& Layouts() {
  static const std::vector<Layout> k = {
      {"same", {{37, 53}, {37, 53}}},
      {"row", {{37, 53}, {53}}},
      {"column", {{37, 53}, {37, 1}}},
      {"outer", {{37, 1}, {1, 53}}},
      {"0-dim", {{37, 53}, {}}},
      {"all 0-dim", {{}, {}}},
      {"middle", {{5, 1, 7}, {5, 6, 1}, {6, 7}}},
      {"short rows", {{64, 3}, {64, 1}, {3}}},
      {"empty", {{0, 5}, {5}}},
      {"large row", {{300, 1000}, {1000}}},
      {"large column", {{1000, 300}, {1000, 1}, {300}}},
  };
  return k;
}

// Every layout, contiguous and strided (permuted, with gaps), through a
// float64 loop from mixed storage dtypes, into an allocated output.
TEST(Iter, EveryLayoutThroughBuffers) {
  std::mt19937 rng(11);
  const bc_dtype dtypes[][4] = {
      {BC_FLOAT64, BC_FLOAT64, BC_FLOAT64, BC_FLOAT64},
      {BC_FLOAT32, BC_FLOAT32, BC_INT32, BC_FLOAT16},
      {BC_INT64, BC_INT32, BC_INT16, BC_INT8},
      {BC_FLOAT16, BC_UINT8, BC_BFLOAT16, BC_FLOAT64},
  };
  const bc_dtype loop[4] = {BC_FLOAT64, BC_FLOAT64, BC_FLOAT64, BC_FLOAT64};
  for (const Layout& l : Layouts()) {
    for (const auto& dt : dtypes) {
      for (int strided = 0; strided < 2; ++strided) {
        std::vector<Host> hosts;
        std::vector<Tensor> ts;
        std::vector<const bc_tensor*> ins;
        for (size_t i = 0; i < l.shapes.size(); ++i) {
          hosts.push_back(Values(dt[i + 1], l.shapes[i], rng));
          ts.push_back(strided ? bct::ToStridedTensor(hosts.back(), rng) : bct::ToTensor(hosts.back()));
          ins.push_back(ts.back().get());
        }
        const std::string what = std::string(l.name) + (strided ? " strided " : " ") + bc_dtype_name(dt[0]);
        Seen seen;
        seen.nops = static_cast<int>(ins.size()) + 1;
        Iter it = MakeIter(ins, nullptr, dt[0], loop);
        ASSERT_NE(it, nullptr) << what;
        ASSERT_EQ(bc_iter_run(it.get(), LoopF64, &seen), BC_OK) << what << ": " << bc_last_error();
        Tensor out = Output(it.get());
        ExpectSame(Reference(hosts, dt[0]), FromTensor(out.get()), what);
        EXPECT_FALSE(seen.bad_stride) << what;
        EXPECT_EQ(seen.elems, bc_iter_numel(it.get())) << what;
      }
    }
  }
}

// A loop on the operands' own dtypes (no buffers), into existing outputs:
// contiguous, transposed and in place.
TEST(Iter, OwnDtypesIntoExistingOutputs) {
  std::mt19937 rng(5);
  for (const Layout& l : Layouts()) {
    if (l.shapes.size() != 2) continue;
    const Host a = Values(BC_FLOAT32, l.shapes[0], rng), b = Values(BC_FLOAT32, l.shapes[1], rng);
    Shape shape;
    ASSERT_TRUE(bct::RefBroadcast(a.shape, b.shape, &shape));
    Host want;
    want.dtype = BC_FLOAT32;
    want.shape = shape;
    want.v.resize(static_cast<size_t>(bct::NumelOf(shape)));
    bct::ForEachIndex(shape, [&](int64_t k, const Shape& idx) {
      want.v[k] = bct::FVal(static_cast<float>(a.v[bct::SourceIndex(a.shape, shape, idx)].f +
                                               b.v[bct::SourceIndex(b.shape, shape, idx)].f));
    });
    Tensor ta = bct::ToStridedTensor(a, rng), tb = bct::ToTensor(b);
    // The output: permuted with gaps (transposed), of the broadcast shape.
    Tensor out = bct::ToStridedTensor(Values(BC_FLOAT32, shape, rng), rng);
    Seen seen;
    seen.nops = 3;
    seen.es = 4;
    Iter it = MakeIter({ta.get(), tb.get()}, out.get(), BC_FLOAT32, nullptr);
    ASSERT_NE(it, nullptr) << l.name;
    ASSERT_EQ(bc_iter_run(it.get(), LoopAddF32, &seen), BC_OK) << l.name;
    ExpectSame(want, FromTensor(out.get()), l.name);
    EXPECT_FALSE(seen.bad_stride) << l.name;
    // In place: a = a + b when a has the broadcast shape.
    if (a.shape == shape) {
      Tensor self = bct::ToTensor(a);
      Iter ip = MakeIter({self.get(), tb.get()}, self.get(), BC_FLOAT32, nullptr);
      ASSERT_NE(ip, nullptr);
      ASSERT_EQ(bc_iter_run(ip.get(), LoopAddF32, &seen), BC_OK);
      ExpectSame(want, FromTensor(self.get()), std::string(l.name) + " in place");
    }
  }
}

// Outputs large enough to stream (the executor hands the loop an L1 tile
// and streams it out): same-shape, column and transposed inputs, one
// thread and all.
TEST(Iter, LargeOutputsThatStream) {
  std::mt19937 rng(14);
  const Shape big = {2048, 2304};
  const Host a = Values(BC_FLOAT32, big, rng);
  for (const Shape& bs : {Shape{2304}, Shape{2048, 1}, big}) {
    const Host b = Values(BC_FLOAT32, bs, rng);
    Host want;
    want.dtype = BC_FLOAT32;
    want.shape = big;
    want.v.resize(static_cast<size_t>(bct::NumelOf(big)));
    bct::ForEachIndex(big, [&](int64_t k, const Shape& idx) {
      want.v[k] = bct::FVal(a.v[k].f + b.v[bct::SourceIndex(b.shape, big, idx)].f);
    });
    for (int transposed = 0; transposed < 2; ++transposed) {
      Tensor ta = transposed ? bct::ToStridedTensor(a, rng, true, 1) : bct::ToTensor(a);
      Tensor tb = bct::ToTensor(b);
      for (unsigned flags : {0u, BC_ITER_SERIAL, BC_ITER_DIRECT_OUTPUT}) {
        Seen seen;
        seen.nops = 3;
        seen.es = 4;
        Iter it = MakeIter({ta.get(), tb.get()}, nullptr, BC_FLOAT32, nullptr, flags);
        ASSERT_EQ(bc_iter_run(it.get(), LoopAddF32, &seen), BC_OK);
        Tensor out = Output(it.get());
        ExpectSame(want, FromTensor(out.get()), "b " + bct::ShapeStr(bs) + (transposed ? " transposed" : ""));
        EXPECT_FALSE(seen.bad_stride);
        EXPECT_EQ(seen.elems, bct::NumelOf(big));
      }
    }
  }
}

// A column broadcast reaches the loop as an inner stride of 0, which it
// can specialise on.
TEST(Iter, TellsTheLoopWhichInputsRepeat) {
  std::mt19937 rng(2);
  Tensor a = bct::ToTensor(Values(BC_FLOAT64, {512, 256}, rng));
  Tensor col = bct::ToTensor(Values(BC_FLOAT64, {512, 1}, rng));
  Seen seen;
  seen.nops = 3;
  Iter it = MakeIter({a.get(), col.get()}, nullptr, BC_FLOAT64, nullptr);
  ASSERT_EQ(bc_iter_run(it.get(), LoopF64, &seen), BC_OK);
  EXPECT_TRUE(seen.inner_zero);
  EXPECT_FALSE(seen.bad_stride);
  // Blocks of many rows: far fewer calls than rows.
  EXPECT_LT(seen.calls, 512);
}

TEST(Iter, SerialKeepsToTheCallingThread) {
  std::mt19937 rng(3);
  Tensor a = bct::ToTensor(Values(BC_FLOAT64, {1000, 1000}, rng));
  Tensor b = bct::ToTensor(Values(BC_FLOAT64, {1000}, rng));
  Seen seen;
  seen.nops = 3;
  Iter it = MakeIter({a.get(), b.get()}, nullptr, BC_FLOAT64, nullptr, BC_ITER_SERIAL);
  ASSERT_EQ(bc_iter_run(it.get(), LoopF64, &seen), BC_OK);
  ASSERT_EQ(seen.threads.size(), 1u);
  EXPECT_EQ(*seen.threads.begin(), std::this_thread::get_id());
}

// Every thread count and a host scheduler give the same result.
void RunChunksInline(void*, size_t n, bc_chunk_fn fn, void* task) {
  for (size_t i = n; i-- > 0;) fn(task, i);  // in reverse
}
int FourThreads(void*) { return 4; }

TEST(Iter, ThreadsAndSchedulers) {
  std::mt19937 rng(4);
  const Host a = Values(BC_INT32, {700, 900}, rng), b = Values(BC_INT32, {900}, rng);
  Tensor ta = bct::ToStridedTensor(a, rng), tb = bct::ToTensor(b);
  const Host want = Reference({a, b}, BC_INT32);
  const bc_dtype loop[3] = {BC_FLOAT64, BC_FLOAT64, BC_FLOAT64};
  for (int threads : {1, 2, 3, 8}) {
    bc_ctx* ctx = nullptr;
    ASSERT_EQ(bc_ctx_create(&ctx), BC_OK);
    ASSERT_EQ(bc_ctx_set_option(ctx, BC_OPT_NUM_THREADS, threads), BC_OK);
    if (threads == 8) {
      bc_scheduler s{FourThreads, RunChunksInline, nullptr};
      ASSERT_EQ(bc_ctx_set_scheduler(ctx, &s), BC_OK);
    }
    Seen seen;
    seen.nops = 3;
    Iter it = MakeIter({ta.get(), tb.get()}, nullptr, BC_INT32, loop, 0, ctx);
    ASSERT_EQ(bc_iter_run(it.get(), LoopF64, &seen), BC_OK) << bc_ctx_last_error(ctx);
    Tensor out = Output(it.get());
    ExpectSame(want, FromTensor(out.get()), "threads " + std::to_string(threads));
    it.reset();
    bc_ctx_free(ctx);
  }
}

// Pull mode: the host runs the chunks, here on its own threads in reverse
// order; every element exactly once.
TEST(Iter, PullModeOnHostThreads) {
  std::mt19937 rng(6);
  const Host a = Values(BC_FLOAT32, {1000, 300}, rng);
  const Host b = Values(BC_INT16, {1000, 1}, rng), c = Values(BC_FLOAT64, {300}, rng);
  Tensor ta = bct::ToStridedTensor(a, rng), tb = bct::ToTensor(b), tc = bct::ToTensor(c);
  const bc_dtype loop[4] = {BC_FLOAT64, BC_FLOAT64, BC_FLOAT64, BC_FLOAT64};
  Iter it = MakeIter({ta.get(), tb.get(), tc.get()}, nullptr, BC_FLOAT32, loop);
  const size_t n = bc_iter_num_chunks(it.get());
  ASSERT_GE(n, 4u);
  Seen seen;
  seen.nops = 4;
  std::atomic<size_t> next{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < 3; ++t) {
    pool.emplace_back([&] {
      for (size_t k; (k = next++) < n;)
        if (bc_iter_run_chunk(it.get(), n - 1 - k, LoopF64, &seen) != BC_OK) ++failures;
    });
  }
  for (std::thread& t : pool) t.join();
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(seen.elems, 300000);
  Tensor out = Output(it.get());
  ExpectSame(Reference({a, b, c}, BC_FLOAT32), FromTensor(out.get()), "pull");
  EXPECT_EQ(bc_iter_run_chunk(it.get(), n, LoopF64, &seen), BC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(bc_iter_run_chunk(nullptr, 0, LoopF64, &seen), BC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(bc_iter_run_chunk(it.get(), 0, nullptr, &seen), BC_ERR_INVALID_ARGUMENT);
}

// What a loop found in its output rows before writing them. The output
// tensor's own memory must hold the tensor's prior value; a buffer bcast
// hands out in its place must hold 0 or a value the loop wrote there for an
// earlier block (an integer: the inputs are small integers), never junk.
struct Entry {
  const char* lo = nullptr;  // the output tensor's bytes [lo, hi)
  const char* hi = nullptr;
  double prior = 0;  // the value of each of its elements before the run
  std::atomic<int64_t> own{0}, buffered{0}, bad{0};
  std::atomic<double> first_bad{0};
};

// out = in0 + in1, every operand in T, each output element checked first.
template <typename T>
int LoopCheckedAdd(void* user, char* const* data, const int64_t* st, int64_t n0, int64_t n1) {
  Entry& e = *static_cast<Entry*>(user);
  for (int64_t j = 0; j < n1; ++j) {
    char* o = data[0] + j * st[3];
    const bool own = o >= e.lo && o < e.hi;
    (own ? e.own : e.buffered) += n0;
    for (int64_t i = 0; i < n0; ++i) {
      T was, a, b;
      std::memcpy(&was, o + i * st[0], sizeof(T));
      const double v = static_cast<double>(was);
      const bool ok = own ? v == e.prior : v == 0 || (v == std::trunc(v) && std::fabs(v) <= 100);
      if (!ok && e.bad++ == 0) e.first_bad = v;
      std::memcpy(&a, data[1] + j * st[4] + i * st[1], sizeof(T));
      std::memcpy(&b, data[2] + j * st[5] + i * st[2], sizeof(T));
      const T r = a + b;
      std::memcpy(o + i * st[0], &r, sizeof(T));
    }
  }
  return 0;
}

// Fills the stack below the caller with bytes no loop writes (0xA5: a tiny
// negative float, a NaN-free non-integer double), so that a buffer the
// executor would hand out uninitialised on this thread holds them.
__attribute__((noinline)) void DirtyStack() {
  unsigned char junk[1 << 18];
  std::memset(junk, 0xA5, sizeof junk);
  asm volatile("" : : "r"(junk) : "memory");
}

// The bytes of `t`'s elements (strides non-negative).
void Extent(const bc_tensor* t, Entry* e) {
  const int64_t* shape = bc_tensor_shape(t);
  const int64_t* strides = bc_tensor_strides(t);
  int64_t last = 0;
  for (size_t d = 0; d < bc_tensor_ndim(t); ++d) last += (shape[d] - 1) * strides[d];
  e->lo = static_cast<const char*>(bc_tensor_data(t));
  e->hi = e->lo + (last + 1) * static_cast<int64_t>(bc_dtype_size(bc_tensor_dtype(t)));
}

// A 2-D tensor of `shape` filled with `v`, every other element of its
// rows (inner stride 2): the executor computes such rows into a chunk of
// its own and scatters them.
Tensor Gapped(bc_dtype d, const Shape& shape, double v) {
  const Shape wide = {shape[0], 2 * shape[1]};
  const size_t n = static_cast<size_t>(bct::NumelOf(wide));
  Tensor full = bct::ToTensor(bct::MakeHost(d, wide, std::vector<double>(n, v)));
  const size_t nbytes = n * bc_dtype_size(d);
  void* data = std::malloc(nbytes);
  std::memcpy(data, bc_tensor_data(full.get()), nbytes);
  const int64_t strides[2] = {wide[1], 2};
  bc_tensor* t = nullptr;
  EXPECT_EQ(bc_tensor_wrap(d, shape.data(), strides, 2, data, nbytes,
                           [](void* p, void*) { std::free(p); }, nullptr, &t),
            BC_OK);
  return Tensor(t);
}

// Runs the checking loop: on the calling thread over a dirtied stack
// (pull mode chunk by chunk, or a serial run), or on every thread.
void RunChecked(bc_iter* it, bool pull, bc_loop2d_fn loop, Entry* e) {
  if (pull) {
    for (size_t i = 0; i < bc_iter_num_chunks(it); ++i) {
      DirtyStack();
      ASSERT_EQ(bc_iter_run_chunk(it, i, loop, e), BC_OK);
    }
  } else {
    DirtyStack();
    ASSERT_EQ(bc_iter_run(it, loop, e), BC_OK) << bc_last_error();
  }
}

// Every output row a loop gets holds initialised bytes (bcast.h, group
// iter): the output's own memory with its values (zeros for an allocated
// one), or a buffer (a streamed tile, a converted output's tile, a strided
// output's chunk) zero-filled once per range and then holding what the
// loop wrote. Push mode serial and threaded, and pull mode.
TEST(Iter, OutputRowsHoldInitialisedBytes) {
  enum OutKind { kAllocated, kGiven, kGapped };
  struct Case {
    const char* name;
    Shape a, b;
    bc_dtype in, out, loop;
    OutKind kind;
    unsigned flags;
    bool buffered;  // whether the loop's output rows are bcast's buffers
  };
  const Shape big = {2048, 2304}, mid = {300, 1000};
  const bc_dtype f32 = BC_FLOAT32, f64 = BC_FLOAT64;
  const Case cases[] = {
      {"streamed tile", big, {2304}, f32, f32, f32, kGiven, 0, true},
      {"streamed tile, allocated", big, {2048, 1}, f32, f32, f32, kAllocated, 0, true},
      {"direct output", big, {2304}, f32, f32, f32, kGiven, BC_ITER_DIRECT_OUTPUT, false},
      {"converted, allocated", mid, {1000}, BC_INT32, BC_INT32, f64, kAllocated, 0, true},
      {"converted", mid, {300, 1}, BC_INT16, f32, f64, kGiven, 0, true},
      {"strided output", mid, {1000}, f32, f32, f32, kGapped, 0, true},
      {"strided output, converted", mid, {1000}, f32, f32, f64, kGapped, 0, true},
      {"allocated, small", {16, 64}, {64}, f32, f32, f32, kAllocated, 0, false},
  };
  std::mt19937 rng(15);
  for (const Case& c : cases) {
    const Host a = Values(c.in, c.a, rng), b = Values(c.in, c.b, rng);
    Tensor ta = bct::ToTensor(a), tb = bct::ToTensor(b);
    Host want;
    want.dtype = c.out;
    want.shape = c.a;
    want.v.resize(static_cast<size_t>(bct::NumelOf(c.a)));
    auto at = [](const Host& h, int64_t k) {
      return bct::IsFloat(h.dtype) ? h.v[k].f : static_cast<double>(h.v[k].i);
    };
    bct::ForEachIndex(c.a, [&](int64_t k, const Shape& idx) {
      const double v = at(a, k) + at(b, bct::SourceIndex(b.shape, c.a, idx));
      want.v[k] = bct::IsFloat(c.out) ? bct::FVal(v) : bct::IVal(static_cast<int64_t>(v));
    });
    const bc_loop2d_fn loop = c.loop == BC_FLOAT64 ? LoopCheckedAdd<double> : LoopCheckedAdd<float>;
    const bc_dtype loops[3] = {c.loop, c.loop, c.loop};
    for (int mode = 0; mode < 3; ++mode) {  // serial, threads, pull
      const std::string what = std::string(c.name) + (mode == 0 ? ", serial" : mode == 1 ? ", threads" : ", pull");
      const double prior = c.kind == kAllocated ? 0 : 0.5;
      Tensor given;
      if (c.kind == kGiven) given = bct::ToTensor(bct::MakeHost(c.out, c.a, std::vector<double>(want.v.size(), prior)));
      if (c.kind == kGapped) given = Gapped(c.out, c.a, prior);
      if (c.kind == kAllocated) {
        // Heap blocks of the output's size left holding junk, for the
        // allocation to reuse.
        const size_t bytes = want.v.size() * bc_dtype_size(c.out) + 256;
        std::vector<void*> junk;
        for (int i = 0; i < 8; ++i) {
          junk.push_back(std::malloc(bytes));
          std::memset(junk.back(), 0xA5, bytes);
        }
        for (void* p : junk) std::free(p);
      }
      Iter it = MakeIter({ta.get(), tb.get()}, given.get(), c.out, loops,
                         c.flags | (mode == 0 ? BC_ITER_SERIAL : 0u));
      ASSERT_NE(it, nullptr) << what;
      Tensor out = Output(it.get());
      Entry e;
      Extent(out.get(), &e);
      e.prior = prior;
      RunChecked(it.get(), mode == 2, loop, &e);
      EXPECT_EQ(e.bad, 0) << what << ": the loop found " << e.first_bad << " in its output";
      EXPECT_EQ(e.own + e.buffered, bct::NumelOf(c.a)) << what;
      EXPECT_EQ(e.buffered > 0, c.buffered) << what;
      ExpectSame(want, FromTensor(out.get()), what);
    }
  }
}

// A loop that fails on its k-th call, for every k: the run stops there and
// says so, on the context the iterator was made on.
TEST(Iter, FailingLoopStopsTheRun) {
  std::mt19937 rng(8);
  Tensor a = bct::ToStridedTensor(Values(BC_FLOAT32, {300, 200}, rng), rng);
  Tensor b = bct::ToTensor(Values(BC_FLOAT32, {200}, rng));
  const bc_dtype loop[3] = {BC_FLOAT64, BC_FLOAT64, BC_FLOAT64};
  bc_ctx* ctx = nullptr;
  ASSERT_EQ(bc_ctx_create(&ctx), BC_OK);
  Iter it = MakeIter({a.get(), b.get()}, nullptr, BC_FLOAT32, loop, BC_ITER_SERIAL, ctx);
  Seen all;
  all.nops = 3;
  ASSERT_EQ(bc_iter_run(it.get(), LoopF64, &all), BC_OK);
  const int64_t calls = all.calls;
  ASSERT_GT(calls, 1);
  for (int64_t k = 0; k < calls; ++k) {
    Seen seen;
    seen.nops = 3;
    seen.fail_at = k;
    ASSERT_EQ(bc_iter_run(it.get(), LoopF64, &seen), BC_ERR_CALLBACK) << k;
    EXPECT_EQ(seen.calls, k + 1) << "no call after the failure";
    EXPECT_EQ(bc_iter_callback_code(it.get()), 7);
    EXPECT_STREQ(bc_ctx_last_error(ctx), "the host loop returned 7");
  }
  // Threads too: the status comes back whichever thread failed.
  Iter par = MakeIter({a.get(), b.get()}, nullptr, BC_FLOAT32, loop, 0, ctx);
  for (int64_t k : {int64_t{0}, calls / 2, calls - 1}) {
    Seen seen;
    seen.nops = 3;
    seen.fail_at = k;
    EXPECT_EQ(bc_iter_run(par.get(), LoopF64, &seen), BC_ERR_CALLBACK);
  }
  // A run after a failure starts afresh.
  Seen ok;
  ok.nops = 3;
  EXPECT_EQ(bc_iter_run(par.get(), LoopF64, &ok), BC_OK);
  EXPECT_EQ(bc_iter_callback_code(par.get()), 0);
  // Pull mode: a failure in chunk i stops the chunks after it.
  const size_t n = bc_iter_num_chunks(par.get());
  ASSERT_GE(n, 2u);
  for (size_t i = 0; i < n; ++i) {
    bc_iter_clear_failure(par.get());
    Seen seen;
    seen.nops = 3;
    seen.fail_at = 0;
    EXPECT_EQ(bc_iter_run_chunk(par.get(), i, LoopF64, &seen), BC_ERR_CALLBACK);
    const int64_t before = seen.calls;
    EXPECT_EQ(bc_iter_run_chunk(par.get(), (i + 1) % n, LoopF64, &seen), BC_ERR_CALLBACK);
    EXPECT_EQ(seen.calls, before) << "a chunk ran after the failure";
  }
  it.reset();
  par.reset();
  bc_ctx_free(ctx);
}

// A plan reused on new operands of the same shapes and dtypes.
TEST(Iter, ResetToNewOperands) {
  std::mt19937 rng(9);
  const Host a1 = Values(BC_INT32, {40, 30}, rng), b1 = Values(BC_INT32, {30}, rng);
  const Host a2 = Values(BC_INT32, {40, 30}, rng), b2 = Values(BC_INT32, {30}, rng);
  Tensor ta1 = bct::ToTensor(a1), tb1 = bct::ToTensor(b1);
  Tensor ta2 = bct::ToStridedTensor(a2, rng), tb2 = bct::ToTensor(b2);
  const bc_dtype loop[3] = {BC_FLOAT64, BC_FLOAT64, BC_FLOAT64};
  Iter it = MakeIter({ta1.get(), tb1.get()}, nullptr, BC_INT64, loop);
  Seen seen;
  seen.nops = 3;
  ASSERT_EQ(bc_iter_run(it.get(), LoopF64, &seen), BC_OK);
  Tensor out1 = Output(it.get());
  const bc_tensor* ins2[2] = {ta2.get(), tb2.get()};
  ASSERT_EQ(bc_iter_reset(it.get(), ins2, nullptr), BC_OK) << bc_last_error();
  ASSERT_EQ(bc_iter_run(it.get(), LoopF64, &seen), BC_OK);
  Tensor out2 = Output(it.get());
  ExpectSame(Reference({a1, b1}, BC_INT64), FromTensor(out1.get()), "first operands");
  ExpectSame(Reference({a2, b2}, BC_INT64), FromTensor(out2.get()), "second operands");
  // Another shape or dtype is refused, and the iterator keeps its operands.
  Tensor wrong = bct::ToTensor(Values(BC_INT32, {40, 31}, rng));
  const bc_tensor* bad[2] = {wrong.get(), tb2.get()};
  EXPECT_EQ(bc_iter_reset(it.get(), bad, nullptr), BC_ERR_SHAPE_MISMATCH);
  EXPECT_STREQ(bc_last_error(), "input 0 has shape [40, 31], the iterator was planned for [40, 30]");
  Tensor wrong_dtype = bct::ToTensor(Values(BC_INT16, {30}, rng));
  const bc_tensor* bad2[2] = {ta2.get(), wrong_dtype.get()};
  EXPECT_EQ(bc_iter_reset(it.get(), bad2, nullptr), BC_ERR_DTYPE);
  Tensor out_i32 = bct::ToTensor(Values(BC_INT32, {40, 30}, rng));
  EXPECT_EQ(bc_iter_reset(it.get(), ins2, out_i32.get()), BC_ERR_DTYPE);
  ASSERT_EQ(bc_iter_run(it.get(), LoopF64, &seen), BC_OK);
  Tensor out3 = Output(it.get());
  ExpectSame(Reference({a2, b2}, BC_INT64), FromTensor(out3.get()), "kept");
  EXPECT_EQ(bc_iter_reset(nullptr, ins2, nullptr), BC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(bc_iter_reset(it.get(), nullptr, nullptr), BC_ERR_INVALID_ARGUMENT);
}

// The output outlives the iterator that allocated it.
TEST(Iter, OutputOutlivesTheIterator) {
  std::mt19937 rng(10);
  const Host a = Values(BC_FLOAT64, {3, 4}, rng);
  Tensor ta = bct::ToTensor(a);
  Iter it = MakeIter({ta.get()}, nullptr, BC_FLOAT64, nullptr);
  Seen seen;
  seen.nops = 2;
  ASSERT_EQ(bc_iter_run(it.get(), LoopF64, &seen), BC_OK);
  Tensor out = Output(it.get());
  it.reset();
  ExpectSame(Reference({a}, BC_FLOAT64), FromTensor(out.get()), "after free");
}

// (Dtypes as ints: C callers may pass any value, which C++ may not hold in
// the enum; they reach the spec through its bytes.)
bc_status NewIter(const std::vector<const bc_tensor*>& ins, bc_tensor* out, int out_dtype = BC_FLOAT32,
                  const bc_dtype* loop = nullptr, unsigned flags = 0, bc_ctx* ctx = nullptr) {
  bc_iter_spec spec{};
  spec.inputs = ins.data();
  spec.nin = ins.size();
  spec.out = out;
  std::memcpy(&spec.out_dtype, &out_dtype, sizeof out_dtype);
  spec.loop_dtypes = loop;
  spec.flags = flags;
  bc_iter* it = reinterpret_cast<bc_iter*>(0x10);
  const bc_status st = bc_ctx_iter_new(ctx, &spec, &it);
  EXPECT_EQ(st == BC_OK, it != nullptr);
  bc_iter_free(st == BC_OK ? it : nullptr);
  return st;
}

// The checks of bcast's own ops, with their texts; nothing is written.
TEST(Iter, RefusesWhatOpsRefuse) {
  std::mt19937 rng(12);
  Tensor a3 = bct::ToTensor(Values(BC_FLOAT32, {3}, rng));
  Tensor a4 = bct::ToTensor(Values(BC_FLOAT32, {4}, rng));
  Tensor s1 = bct::ToTensor(Values(BC_FLOAT32, {}, rng)), s2 = bct::ToTensor(Values(BC_FLOAT32, {}, rng));
  Tensor out2 = bct::ToTensor(Values(BC_FLOAT32, {2}, rng));
  const auto before = bct::RawBytes(out2.get());

  EXPECT_EQ(NewIter({a3.get(), a4.get()}, nullptr), BC_ERR_NOT_BROADCASTABLE);
  EXPECT_STREQ(bc_last_error(),
               "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0");
  // out= with every input 0-dim: refused, not filled.
  EXPECT_EQ(NewIter({s1.get(), s2.get()}, out2.get()), BC_ERR_SHAPE_MISMATCH);
  EXPECT_STREQ(bc_last_error(), "output with shape [2] doesn't match the broadcast shape []");
  EXPECT_EQ(before, bct::RawBytes(out2.get()));
  // An expanded output, and an output partly overlapping an input.
  bc_tensor* expanded = nullptr;
  const int64_t shape4[1] = {4};
  ASSERT_EQ(bc_expand(s1.get(), shape4, 1, &expanded), BC_OK);
  Tensor ex(expanded);
  EXPECT_EQ(NewIter({a4.get()}, ex.get()), BC_ERR_OVERLAP);
  EXPECT_NE(std::string(bc_last_error()).find("more than one element of the written-to tensor"), std::string::npos);
  Tensor big = bct::ToTensor(Values(BC_FLOAT32, {8}, rng));
  bc_tensor *lo = nullptr, *hi = nullptr;
  const int64_t s1s[1] = {1};
  ASSERT_EQ(bc_tensor_wrap(BC_FLOAT32, shape4, s1s, 1, bc_tensor_data(big.get()), 16, nullptr, nullptr, &lo),
            BC_OK);
  ASSERT_EQ(bc_tensor_wrap(BC_FLOAT32, shape4, s1s, 1, static_cast<char*>(bc_tensor_data(big.get())) + 8, 16,
                           nullptr, nullptr, &hi),
            BC_OK);
  Tensor tlo(lo), thi(hi);
  EXPECT_EQ(NewIter({tlo.get()}, thi.get()), BC_ERR_OVERLAP);
  EXPECT_NE(std::string(bc_last_error()).find("some elements of the input tensor and the written-to tensor"),
            std::string::npos);
  // Arguments.
  EXPECT_EQ(NewIter({}, nullptr), BC_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(bc_last_error(), "an iterator takes 1 to 3 inputs, not 0");
  EXPECT_EQ(NewIter({a3.get(), a3.get(), a3.get(), a3.get()}, nullptr), BC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(NewIter({a3.get(), nullptr}, nullptr), BC_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(bc_last_error(), "input 1 is NULL");
  EXPECT_EQ(NewIter({a3.get()}, nullptr, 99), BC_ERR_INVALID_ARGUMENT);
  bc_dtype bad_loop[2] = {BC_FLOAT32, BC_FLOAT32};
  const int minus_one = -1;
  std::memcpy(&bad_loop[1], &minus_one, sizeof minus_one);
  EXPECT_EQ(NewIter({a3.get()}, nullptr, BC_FLOAT32, bad_loop), BC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(NewIter({a3.get()}, nullptr, BC_FLOAT32, nullptr, 4), BC_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(bc_last_error(), "unknown iterator flags 4");
  EXPECT_EQ(bc_iter_new(nullptr, nullptr), BC_ERR_INVALID_ARGUMENT);
  bc_iter_spec spec{};
  bc_iter* it = reinterpret_cast<bc_iter*>(0x10);
  EXPECT_EQ(bc_iter_new(&spec, &it), BC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(it, nullptr);
  EXPECT_EQ(bc_iter_run(nullptr, LoopF64, nullptr), BC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(bc_iter_output(nullptr, nullptr), BC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(bc_iter_numel(nullptr), 0);
  EXPECT_EQ(bc_iter_num_chunks(nullptr), 0u);
  EXPECT_EQ(bc_iter_callback_code(nullptr), 0);
  bc_iter_clear_failure(nullptr);
  bc_iter_free(nullptr);
}

// The context's broadcast policy and warnings apply, on its context.
TEST(Iter, ContextPolicyAndWarnings) {
  std::mt19937 rng(13);
  Tensor a = bct::ToTensor(Values(BC_FLOAT32, {2, 3}, rng));
  Tensor b = bct::ToTensor(Values(BC_FLOAT32, {3}, rng));
  bc_ctx* ctx = nullptr;
  ASSERT_EQ(bc_ctx_create(&ctx), BC_OK);
  ASSERT_EQ(bc_ctx_set_option(ctx, BC_OPT_POLICY, BC_POLICY_ERROR), BC_OK);
  EXPECT_EQ(NewIter({a.get(), b.get()}, nullptr, BC_FLOAT32, nullptr, 0, ctx), BC_ERR_POLICY);
  EXPECT_STREQ(bc_ctx_last_error(ctx),
               "broadcast policy is 'error': input 0 with shape [2, 3] and input 1 with shape [3] would be "
               "implicitly broadcast to [2, 3]");
  ASSERT_EQ(bc_ctx_set_option(ctx, BC_OPT_POLICY, BC_POLICY_WARN), BC_OK);
  std::vector<std::string> warnings;
  ASSERT_EQ(bc_ctx_set_warning_handler(
                ctx, [](const char* m, void* u) { static_cast<std::vector<std::string>*>(u)->push_back(m); },
                &warnings),
            BC_OK);
  EXPECT_EQ(NewIter({a.get(), b.get()}, nullptr, BC_FLOAT32, nullptr, 0, ctx), BC_OK);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], "implicit broadcast: input 0 with shape [2, 3] and input 1 with shape [3] broadcast to [2, 3]");
  bc_ctx_free(ctx);
}

}  // namespace
