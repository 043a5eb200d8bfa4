// Threads: results do not depend on bc_set_num_threads (bit for bit, also
// bc_sum_to_shape), const tensors are shared across threads, and each
// thread sees its own error message.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <thread>

#include "test_util.h"

namespace bct {
namespace {

class Threads : public ::testing::Test {
 protected:
  void TearDown() override { bc_set_num_threads(0); }
};

TEST_F(Threads, SetAndRestore) {
  int def = bc_get_num_threads();
  EXPECT_GE(def, 1);
  ASSERT_EQ(bc_set_num_threads(3), BC_OK);
  EXPECT_EQ(bc_get_num_threads(), 3);
  ASSERT_EQ(bc_set_num_threads(1), BC_OK);
  EXPECT_EQ(bc_get_num_threads(), 1);
  ASSERT_EQ(bc_set_num_threads(0), BC_OK);
  EXPECT_EQ(bc_get_num_threads(), def);
  ASSERT_EQ(bc_set_num_threads(7), BC_OK);
  ASSERT_EQ(bc_set_num_threads(-5), BC_OK);
  EXPECT_EQ(bc_get_num_threads(), def);
}

TEST_F(Threads, LargeResultsIdenticalAcrossThreadCounts) {
  std::mt19937 rng(123);
  // 1M-element operands in a few layouts.
  Host a = RandomHost(BC_FLOAT32, {1000, 1000}, rng);
  Host row = RandomHost(BC_FLOAT32, {1000}, rng);
  Host col = RandomHost(BC_FLOAT32, {1000, 1}, rng);
  Host ia = RandomHost(BC_INT32, {1024, 1024}, rng);
  Host ib = RandomRhs(BC_DIV_FLOOR, BC_INT32, {1024}, rng);
  // No NaN/inf where sums run: which NaN wins an addition is order-dependent.
  Host d = RandomHost(BC_FLOAT64, {64, 128, 128}, rng, false);
  Host as = RandomHost(BC_FLOAT32, {1000, 1000}, rng, false);
  Host dmid = RandomHost(BC_FLOAT64, {1, 128, 1}, rng);
  Host h = RandomHost(BC_FLOAT16, {1 << 20}, rng);
  Host cond = RandomHost(BC_BOOL, {1000, 1}, rng);
  Tensor ta = ToTensor(a), trow = ToTensor(row), tcol = ToTensor(col), tia = ToTensor(ia),
         tib = ToTensor(ib), td = ToStridedTensor(d, rng, true, 1), tdmid = ToTensor(dmid),
         th = ToTensor(h), tcond = ToTensor(cond), tas = ToTensor(as);

  auto bin = [](bc_op op, const bc_tensor* x, const bc_tensor* y) {
    bc_tensor* out = nullptr;
    EXPECT_EQ(bc_binary(op, x, y, &out), BC_OK) << bc_last_error();
    return Tensor(out);
  };
  auto sum = [](const bc_tensor* t, Shape s) {
    bc_tensor* out = nullptr;
    EXPECT_EQ(bc_sum_to_shape(t, s.data(), s.size(), &out), BC_OK) << bc_last_error();
    return Tensor(out);
  };
  std::vector<std::function<Tensor()>> jobs = {
      [&] { return bin(BC_ADD, ta.get(), trow.get()); },
      [&] { return bin(BC_MUL, tcol.get(), ta.get()); },
      [&] { return bin(BC_DIV_FLOOR, tia.get(), tib.get()); },
      [&] { return bin(BC_SUB, td.get(), tdmid.get()); },
      [&] { return bin(BC_HYPOT, th.get(), th.get()); },
      [&] { return bin(BC_ATAN2, ta.get(), tcol.get()); },
      [&] {
        bc_tensor* out = nullptr;
        EXPECT_EQ(bc_where(tcond.get(), ta.get(), trow.get(), &out), BC_OK);
        return Tensor(out);
      },
      [&] { return sum(td.get(), {1, 128, 1}); },
      [&] { return sum(tas.get(), {1000, 1}); },
      [&] { return sum(tas.get(), {}); },
      [&] { return sum(tia.get(), {1, 1024}); },
  };
  std::vector<std::vector<unsigned char>> first(jobs.size());
  for (int n : {1, 2, 4}) {
    ASSERT_EQ(bc_set_num_threads(n), BC_OK);
    for (size_t j = 0; j < jobs.size(); ++j) {
      Tensor r = jobs[j]();
      ASSERT_TRUE(r) << "job " << j;
      std::vector<unsigned char> bytes = RawBytes(r.get());
      if (n == 1) {
        first[j] = bytes;
      } else {
        EXPECT_TRUE(bytes == first[j]) << "job " << j << " differs with " << n << " threads";
      }
    }
  }
  // And they are right, not just consistent.
  ASSERT_EQ(bc_set_num_threads(4), BC_OK);
  EXPECT_TRUE(SameHost(FromTensor(jobs[0]().get()), RefBinary(BC_ADD, a, row)));
  EXPECT_TRUE(SameHost(FromTensor(jobs[2]().get()), RefBinary(BC_DIV_FLOOR, ia, ib)));
  EXPECT_TRUE(SameHost(FromTensor(jobs[1]().get()), RefBinary(BC_MUL, col, a)));
  EXPECT_TRUE(SameHost(FromTensor(jobs[3]().get()), RefBinary(BC_SUB, d, dmid)));
  EXPECT_TRUE(SameHost(FromTensor(jobs[4]().get()), RefBinary(BC_HYPOT, h, h), Cmp::kUlp, 1));
  EXPECT_TRUE(SameHost(FromTensor(jobs[5]().get()), RefBinary(BC_ATAN2, a, col), Cmp::kUlp, 4));
  Host w = FromTensor(jobs[6]().get());
  ForEachIndex({1000, 1000}, [&](int64_t k, const Shape& idx) {
    const Val& want = cond.v[idx[0]].i ? a.v[k] : row.v[idx[1]];
    if (!ValMatches(BC_FLOAT32, w.v[k], want, Cmp::kExact, 0)) ADD_FAILURE() << "where at " << k;
  });
  Host s = FromTensor(jobs[10]().get());
  ASSERT_EQ(s.dtype, BC_INT64);
  for (int j = 0; j < 1024; j += 97) {
    int64_t acc = 0;
    for (int i = 0; i < 1024; ++i) acc += ia.v[i * 1024 + j].i;
    EXPECT_EQ(s.v[j].i, acc) << j;
  }
}

// float16/bfloat16 transcendentals look results up in a table built by the
// first row of 64K elements or more (src/kernels/unary_functors-inl.h):
// threads that race to build it, or run while it is built, get the bits of
// the computation itself (calls of 1024 elements, below the table's
// threshold, made first). Under TSan this is also the table's race check.
TEST_F(Threads, HalfTablesBuiltWhileThreadsRace) {
  const bc_unary_op ops[] = {BC_GELU, BC_EXP, BC_ERFINV, BC_SOFTPLUS};
  for (bc_dtype d : {BC_FLOAT16, BC_BFLOAT16}) {
    for (bc_unary_op op : ops) {
      SCOPED_TRACE(std::to_string(op) + " dtype " + std::to_string(d));
      // Every bit pattern, four times: 256K elements.
      std::vector<uint16_t> bits(1 << 18);
      for (size_t i = 0; i < bits.size(); ++i) bits[i] = static_cast<uint16_t>(i * 40503u);
      const int64_t n = static_cast<int64_t>(bits.size());
      bc_tensor* xt = nullptr;
      ASSERT_EQ(bc_tensor_from_data(d, &n, 1, bits.data(), &xt), BC_OK) << bc_last_error();
      Tensor x(xt);
      bc_unary_params p = {{2.0, 10.0, 0}, 3};  // softplus: beta 2, threshold 10
      const bc_unary_params* pp = op == BC_SOFTPLUS ? &p : nullptr;
      std::vector<uint16_t> want(bits.size());
      for (int64_t i = 0; i < n; i += 1024) {
        const int64_t m = 1024;
        bc_tensor* st = nullptr;
        ASSERT_EQ(bc_tensor_from_data(d, &m, 1, bits.data() + i, &st), BC_OK) << bc_last_error();
        Tensor xs(st);
        bc_tensor* out = nullptr;
        ASSERT_EQ(bc_unary_ex(op, xs.get(), pp, &out), BC_OK) << bc_last_error();
        Tensor r(out);
        ASSERT_EQ(bc_tensor_copy_to(r.get(), want.data() + i, 2048), BC_OK);
      }
      std::atomic<int> bad{0};
      std::vector<std::thread> pool;
      for (int t = 0; t < 4; ++t) {
        pool.emplace_back([&] {
          for (int k = 0; k < 3; ++k) {
            bc_tensor* out = nullptr;
            if (bc_unary_ex(op, x.get(), pp, &out) != BC_OK) {
              ++bad;
              continue;
            }
            std::vector<uint16_t> got(bits.size());
            bc_tensor_copy_to(out, got.data(), got.size() * 2);
            if (got != want) ++bad;
            bc_tensor_free(out);
          }
        });
      }
      for (std::thread& t : pool) t.join();
      EXPECT_EQ(bad.load(), 0);
    }
  }
}

TEST_F(Threads, ConstTensorsSharedAcrossThreads) {
  std::mt19937 rng(5);
  Host a = RandomHost(BC_FLOAT32, {300, 200}, rng), b = RandomHost(BC_FLOAT32, {200}, rng);
  Tensor ta = ToTensor(a), tb = ToTensor(b);
  Host want = RefBinary(BC_MUL, a, b);
  std::vector<unsigned char> want_bytes = Encode(want);
  want_bytes.pop_back();
  std::atomic<int> bad{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < 6; ++t) {
    pool.emplace_back([&] {
      for (int k = 0; k < 20; ++k) {
        bc_tensor* out = nullptr;
        if (bc_binary(BC_MUL, ta.get(), tb.get(), &out) != BC_OK) {
          ++bad;
          continue;
        }
        std::vector<unsigned char> got(want_bytes.size());
        bc_tensor_copy_to(out, got.data(), got.size());
        if (got != want_bytes) ++bad;
        bc_tensor_free(out);
      }
    });
  }
  for (std::thread& t : pool) t.join();
  EXPECT_EQ(bad.load(), 0);
}

TEST_F(Threads, EachThreadSeesItsOwnError) {
  const int kThreads = 8, kIters = 300;
  std::atomic<int> ready{0}, bad{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < kThreads; ++t) {
    pool.emplace_back([&, t] {
      ++ready;
      while (ready.load() < kThreads) std::this_thread::yield();
      int64_t a[] = {t + 2, 1}, b[] = {t + 3, 1}, out[2];
      size_t n;
      std::string want = "The size of tensor a (" + std::to_string(t + 2) + ") must match the size of tensor b (" +
                         std::to_string(t + 3) + ") at non-singleton dimension 0";
      for (int k = 0; k < kIters; ++k) {
        if (k % 3 == 2) {
          // An op error in between, from a different layer of the library.
          Tensor x = ToTensor(Iota(BC_INT32, {t + 1}, 1)), z = ToTensor(MakeHost(BC_INT32, {1}, {0}));
          bc_tensor* r = nullptr;
          if (bc_binary(BC_FMOD, x.get(), z.get(), &r) != BC_ERR_DIVISION_BY_ZERO ||
              std::string(bc_last_error()) != "ZeroDivisionError")
            ++bad;
          continue;
        }
        if (bc_broadcast_shapes(a, 2, b, 2, out, sizeof out / sizeof out[0], &n) != BC_ERR_NOT_BROADCASTABLE) ++bad;
        std::this_thread::yield();
        if (want != bc_last_error()) ++bad;
        bc_error_detail d;
        if (bc_last_error_detail(&d) != BC_ERR_NOT_BROADCASTABLE || d.dim != 0 || d.size_a != t + 2 ||
            d.size_b != t + 3)
          ++bad;
      }
    });
  }
  for (std::thread& t : pool) t.join();
  EXPECT_EQ(bad.load(), 0);
}

TEST_F(Threads, SettingsChangedWhileOpsRun) {
  Host a = Iota(BC_FLOAT32, {64, 64}), b = Iota(BC_FLOAT32, {64});
  Tensor ta = ToTensor(a), tb = ToTensor(b);
  Host want = RefBinary(BC_ADD, a, b);
  std::atomic<bool> stop{false};
  std::atomic<int> bad{0};
  std::thread toggler([&] {
    int k = 0;
    while (!stop.load()) {
      bc_set_num_threads(1 + (k % 3));
      bc_set_broadcast_warning(k % 2);
      ++k;
      std::this_thread::yield();
    }
  });
  bc_set_warning_handler([](const char*, void*) {}, nullptr);
  std::vector<std::thread> pool;
  for (int t = 0; t < 3; ++t) {
    pool.emplace_back([&] {
      for (int k = 0; k < 100; ++k) {
        bc_tensor* out = nullptr;
        if (bc_binary(BC_ADD, ta.get(), tb.get(), &out) != BC_OK) {
          ++bad;
          continue;
        }
        Host got = FromTensor(out);
        bc_tensor_free(out);
        if (!SameHost(got, want)) ++bad;
      }
    });
  }
  for (std::thread& t : pool) t.join();
  stop = true;
  toggler.join();
  bc_set_broadcast_warning(0);
  bc_set_warning_handler(nullptr, nullptr);
  EXPECT_EQ(bad.load(), 0);
}

}  // namespace
}  // namespace bct
