// SIMD dispatch: the same op checks once per SIMD target this CPU can run
// (bc_set_simd_cap), each against the naive reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "test_util.h"

namespace bct {
namespace {


class SimdTarget : public ::testing::TestWithParam<const char*> {
 protected:
  void TearDown() override { EXPECT_EQ(bc_set_simd_cap(nullptr), BC_OK); }
};

// Shapes chosen for vector tails: odd row lengths, a column broadcast, a
// stride-0 row, and lengths around common vector widths.
struct Case {
  Shape a, b;
};
const Case kCases[] = {
    {{3, 1031}, {1031}}, {{257, 1}, {257, 5}}, {{1}, {67}},     {{2, 17}, {2, 17}},
    {{4, 8, 16}, {8, 1}}, {{33}, {}},           {{1, 7}, {5, 1}}, {{64}, {64}},
};

void CheckAllOps(const char* target) {
  std::mt19937 rng(17);
  // Every binary op of the table (bc_op values are 0 .. BC_OP_COUNT - 1).
  for (int i = 0; i < BC_OP_COUNT; ++i) {
    const bc_op op = static_cast<bc_op>(i);
    for (bc_dtype d : kAllDtypes) {
      if (OpSupport(op, d) != Support::kYes) continue;
      for (const Case& c : kCases) {
        Host a = RandomHost(d, c.a, rng), b = RandomRhs(op, d, c.b, rng);
        bool zero_div = false;
        Host want = RefBinary(op, a, b, 1.0, &zero_div);
        if (zero_div) continue;
        Tensor ta = ToTensor(a), tb = ToStridedTensor(b, rng, true, 2);
        bc_tensor* out = nullptr;
        ASSERT_EQ(bc_binary(op, ta.get(), tb.get(), &out), BC_OK) << target << " " << bc_op_name(op) << ": " << bc_last_error();
        Tensor r(out);
        EXPECT_TRUE(SameHost(FromTensor(out), want, CmpFor(op), UlpsFor(op, want.dtype)))
            << target << " " << bc_op_name(op) << " " << ShortName(d) << " " << ShapeStr(c.a) << " " << ShapeStr(c.b);
      }
    }
  }
  // where on every dtype: a random condition (row), a column and a row of values.
  for (bc_dtype d : kAllDtypes) {
    Host c = RandomHost(BC_BOOL, {5, 131}, rng), x = RandomHost(d, {5, 1}, rng), y = RandomHost(d, {131}, rng);
    Tensor tc = ToTensor(c), tx = ToTensor(x), ty = ToTensor(y);
    bc_tensor* out = nullptr;
    ASSERT_EQ(bc_where(tc.get(), tx.get(), ty.get(), &out), BC_OK) << target << ": " << bc_last_error();
    Tensor r(out);
    Host got = FromTensor(out);
    ForEachIndex({5, 131}, [&](int64_t k, const Shape& idx) {
      const Val want = c.v[k].i != 0 ? x.v[idx[0]] : y.v[idx[1]];
      EXPECT_TRUE(ValMatches(d, got.v[k], want, Cmp::kExact, 0)) << target << " where " << ShortName(d) << " at " << k;
    });
  }
  // Ternary kernels too.
  for (bc_dtype d : {BC_FLOAT16, BC_BFLOAT16, BC_FLOAT32, BC_FLOAT64}) {
    Host x = RandomHost(d, {3, 129}, rng, false), y = RandomHost(d, {129}, rng, false);
    Host w = MakeHost(d, {3, 1}, {0.25, 0.75, 1.0});
    Tensor tx = ToTensor(x), ty = ToTensor(y), tw = ToTensor(w);
    bc_tensor* out = nullptr;
    ASSERT_EQ(bc_lerp(tx.get(), ty.get(), tw.get(), &out), BC_OK);
    Tensor r(out);
    Host got = FromTensor(out);
    ForEachIndex({3, 129}, [&](int64_t k, const Shape& idx) {
      double s = x.v[k].f, e = y.v[idx[1]].f, wt = w.v[idx[0]].f, ref;
      // PyTorch 2.x fuses the multiply-add (one rounding).
      if (d == BC_FLOAT64) {
        ref = wt < 0.5 ? std::fma(wt, e - s, s) : std::fma(-(e - s), 1 - wt, e);
      } else {
        float fs = static_cast<float>(s), fe = static_cast<float>(e), fw = static_cast<float>(wt);
        ref = RoundFloatTo(d, fw < 0.5f ? std::fma(fw, fe - fs, fs) : std::fma(-(fe - fs), 1.0f - fw, fe));
      }
      EXPECT_TRUE(ValMatches(d, got.v[k], FVal(ref), Cmp::kExact, 0)) << target << " lerp " << ShortName(d) << " at " << k;
    });
  }
}

TEST_P(SimdTarget, OpsMatchReference) {
  bc_status st = bc_set_simd_cap(GetParam());
  if (st != BC_OK) {
    EXPECT_TRUE(Fails(st, BC_ERR_INVALID_ARGUMENT));
    GTEST_SKIP() << GetParam() << " is not available on this CPU/build";
  }
  CheckAllOps(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Targets, SimdTarget, ::testing::ValuesIn(kSimdTargets),
                         [](const ::testing::TestParamInfo<const char*>& i) { return std::string(i.param); });

// float32 atan2, pow and hypot within 1 ulp of the correctly rounded
// result, on every target: the reference is libm in float64 rounded once to
// float32 (itself within a few float64 ulps, so it is the correctly rounded
// float32 value except next to a halfway point, where 1 ulp covers both).
// Rows of 4099 mix random values of many magnitudes with special lanes
// (zeros of both signs, infinities, NaN, negative bases, integral
// exponents, results past the float range), so that vector bodies, lanes
// that fall back to libm, and scalar tails all run.
float SpecialF32(std::mt19937& rng) {
  const float kSpecial[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f, -1.0f, 2.0f, -2.0f,
                            0.5f, -3.0f, 1e-40f, -1e-40f, 3.4e38f, 1e30f, 100.0f, -100.0f};
  return kSpecial[rng() % (sizeof(kSpecial) / sizeof(kSpecial[0]))];
}
float RandomF32(std::mt19937& rng, bool positive) {
  std::uniform_real_distribution<float> mant(1.0f, 2.0f);
  std::uniform_int_distribution<int> exp(-30, 30);
  float v = std::ldexp(mant(rng), exp(rng));
  return (positive || (rng() & 1)) ? v : -v;
}

class Float32Accuracy : public SimdTarget {};

TEST_P(Float32Accuracy, WithinOneUlpOfFloat64Reference) {
  if (bc_set_simd_cap(GetParam()) != BC_OK) GTEST_SKIP() << GetParam() << " not available";
  std::mt19937 rng(2024);
  const int64_t n = 4099;
  struct OpRef {
    bc_op op;
    double (*ref)(double, double);
    bool positive_base;
  };
  const OpRef ops[] = {{BC_ATAN2, [](double y, double x) { return std::atan2(y, x); }, false},
                       {BC_POW, [](double a, double b) { return std::pow(a, b); }, true},
                       {BC_HYPOT, [](double a, double b) { return std::hypot(a, b); }, false}};
  for (const OpRef& o : ops) {
    for (int special_every : {0, 37}) {  // all vector lanes in range; some lanes special
      std::vector<double> a(n), b(n);
      for (int64_t i = 0; i < n; ++i) {
        const bool special = special_every && i % special_every == 0;
        a[i] = special ? SpecialF32(rng) : RandomF32(rng, o.positive_base);
        b[i] = special ? SpecialF32(rng) : (o.op == BC_POW ? RandomF32(rng, false) / 1e6f
                                                           : RandomF32(rng, false));
        if (o.op == BC_POW && !special && (i & 3) == 0) b[i] = static_cast<float>(rng() % 9) - 4;
      }
      Tensor ta = ToTensor(MakeHost(BC_FLOAT32, {n}, a)), tb = ToTensor(MakeHost(BC_FLOAT32, {n}, b));
      bc_tensor* out = nullptr;
      ASSERT_EQ(bc_binary(o.op, ta.get(), tb.get(), &out), BC_OK) << bc_last_error();
      Tensor r(out);
      Host got = FromTensor(out);
      int bad = 0;
      for (int64_t i = 0; i < n && bad < 5; ++i) {
        const double want = static_cast<float>(o.ref(static_cast<float>(a[i]), static_cast<float>(b[i])));
        const double g = got.v[i].f;
        if (std::isnan(want) && std::isnan(g)) continue;
        const int64_t ulps = OrderedBits(BC_FLOAT32, g) - OrderedBits(BC_FLOAT32, want);
        // Zeros must also carry the right sign (atan2(-0, 1) is -0).
        const bool zero_sign = want == 0 && std::signbit(want) != std::signbit(g);
        if (ulps > 1 || ulps < -1 || zero_sign) {
          ++bad;
          ADD_FAILURE() << GetParam() << " " << bc_op_name(o.op) << "(" << a[i] << ", " << b[i]
                        << ") = " << g << ", want " << want << " (" << ulps << " ulps) at " << i;
        }
      }
    }
  }
}

// float64 hypot within 1 ulp of hypotl (x87 extended precision) rounded
// once, on rows with values of every magnitude, zeros, infinities, NaN and
// values past the range of the vector form (1e200, 1e-200).
// float64 atan2 within 1 ulp of atan2l (x87 extended precision) rounded
// once, with operands of every ratio, zeros of both signs, infinities, NaN
// and magnitudes past the vector form's range.
TEST_P(Float32Accuracy, Float64Atan2WithinOneUlp) {
  if (bc_set_simd_cap(GetParam()) != BC_OK) GTEST_SKIP() << GetParam() << " not available";
  std::mt19937 rng(78);
  std::uniform_real_distribution<double> mant(1.0, 2.0);
  std::uniform_int_distribution<int> exps(-200, 200);
  const double kSpecial[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1e200, -1e-200, 1e-310, 3.0, -3.0};
  const int64_t n = 40009;
  for (int special_every : {0, 41}) {
    std::vector<double> a(n), b(n);
    for (int64_t i = 0; i < n; ++i) {
      const bool special = special_every && i % special_every == 0;
      const double sign_a = (rng() & 1) ? 1 : -1, sign_b = (rng() & 1) ? 1 : -1;
      a[i] = special ? kSpecial[rng() % 10] : std::ldexp(mant(rng), exps(rng)) * sign_a;
      // Ratios near 1 and near tan(pi/8) (the octant edges) as well as far ones.
      const double ratio = (i % 3 == 0) ? mant(rng) * 0.5 : std::ldexp(mant(rng), exps(rng) / 8);
      b[i] = special ? kSpecial[rng() % 10] : std::fabs(a[i]) * ratio * sign_b;
    }
    Tensor ta = ToTensor(MakeHost(BC_FLOAT64, {n}, a)), tb = ToTensor(MakeHost(BC_FLOAT64, {n}, b));
    bc_tensor* out = nullptr;
    ASSERT_EQ(bc_binary(BC_ATAN2, ta.get(), tb.get(), &out), BC_OK) << bc_last_error();
    Tensor r(out);
    std::vector<double> got(n);
    ASSERT_EQ(bc_tensor_copy_to(out, got.data(), n * sizeof(double)), BC_OK);
    int bad = 0;
    for (int64_t i = 0; i < n && bad < 5; ++i) {
      const double want = static_cast<double>(atan2l(a[i], b[i]));
      if (std::isnan(want) && std::isnan(got[i])) continue;
      const int64_t ulps = OrderedBits(BC_FLOAT64, got[i]) - OrderedBits(BC_FLOAT64, want);
      const bool zero_sign = want == 0 && std::signbit(want) != std::signbit(got[i]);
      if (ulps > 1 || ulps < -1 || zero_sign) {
        ++bad;
        ADD_FAILURE() << GetParam() << " atan2(" << a[i] << ", " << b[i] << ") = " << got[i]
                      << ", want " << want << " (" << ulps << " ulps) at " << i;
      }
    }
  }
}

// float64 pow within 1 ulp of powl rounded once: bases of every magnitude
// (near 1 too), exponents giving results up to and past the vector form's
// range (|b ln a| < 64), integral exponents, and special lanes.
TEST_P(Float32Accuracy, Float64PowWithinOneUlp) {
  if (bc_set_simd_cap(GetParam()) != BC_OK) GTEST_SKIP() << GetParam() << " not available";
  std::mt19937 rng(79);
  std::uniform_real_distribution<double> unit(-1.0, 1.0), mant(1.0, 2.0);
  std::uniform_int_distribution<int> exps(-1000, 1000);
  const double kSpecial[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -2.0, 1e-310, 0.5, 3.0};
  const int64_t n = 40009;
  for (int special_every : {0, 41}) {
    std::vector<double> a(n), b(n);
    for (int64_t i = 0; i < n; ++i) {
      const bool special = special_every && i % special_every == 0;
      double base = (i % 4 == 0) ? 1.0 + unit(rng) * 1e-3 : std::ldexp(mant(rng), exps(rng));
      double target = unit(rng) * ((i % 5 == 0) ? 80.0 : 64.0);  // b ln a
      double e = target / std::log(base);
      if (i % 7 == 0) e = std::round(unit(rng) * 8);
      a[i] = special ? kSpecial[rng() % 10] : base;
      b[i] = special ? kSpecial[rng() % 10] : e;
    }
    Tensor ta = ToTensor(MakeHost(BC_FLOAT64, {n}, a)), tb = ToTensor(MakeHost(BC_FLOAT64, {n}, b));
    bc_tensor* out = nullptr;
    ASSERT_EQ(bc_binary(BC_POW, ta.get(), tb.get(), &out), BC_OK) << bc_last_error();
    Tensor r(out);
    std::vector<double> got(n);
    ASSERT_EQ(bc_tensor_copy_to(out, got.data(), n * sizeof(double)), BC_OK);
    int bad = 0;
    for (int64_t i = 0; i < n && bad < 5; ++i) {
      const double want = static_cast<double>(powl(a[i], b[i]));
      if (std::isnan(want) && std::isnan(got[i])) continue;
      const int64_t ulps = OrderedBits(BC_FLOAT64, got[i]) - OrderedBits(BC_FLOAT64, want);
      if (ulps > 1 || ulps < -1) {
        ++bad;
        ADD_FAILURE() << GetParam() << " pow(" << a[i] << ", " << b[i] << ") = " << got[i]
                      << ", want " << want << " (" << ulps << " ulps) at " << i;
      }
    }
  }
}

TEST_P(Float32Accuracy, Float64HypotWithinOneUlp) {
  if (bc_set_simd_cap(GetParam()) != BC_OK) GTEST_SKIP() << GetParam() << " not available";
  std::mt19937 rng(77);
  std::uniform_real_distribution<double> mant(1.0, 2.0);
  std::uniform_int_distribution<int> exps(-200, 200);
  const double kSpecial[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1e200, -1e-200, 1e-310, 3.0};
  const int64_t n = 4099;
  for (int special_every : {0, 41}) {
    std::vector<double> a(n), b(n);
    for (int64_t i = 0; i < n; ++i) {
      const bool special = special_every && i % special_every == 0;
      a[i] = special ? kSpecial[rng() % 9] : std::ldexp(mant(rng), exps(rng)) * ((rng() & 1) ? 1 : -1);
      b[i] = special ? kSpecial[rng() % 9] : a[i] * std::ldexp(mant(rng), exps(rng) / 8);
    }
    Tensor ta = ToTensor(MakeHost(BC_FLOAT64, {n}, a)), tb = ToTensor(MakeHost(BC_FLOAT64, {n}, b));
    bc_tensor* out = nullptr;
    ASSERT_EQ(bc_binary(BC_HYPOT, ta.get(), tb.get(), &out), BC_OK) << bc_last_error();
    Tensor r(out);
    std::vector<double> got(n);
    ASSERT_EQ(bc_tensor_copy_to(out, got.data(), n * sizeof(double)), BC_OK);
    int bad = 0;
    for (int64_t i = 0; i < n && bad < 5; ++i) {
      const double want = static_cast<double>(hypotl(a[i], b[i]));
      if (std::isnan(want) && std::isnan(got[i])) continue;
      const int64_t ulps = OrderedBits(BC_FLOAT64, got[i]) - OrderedBits(BC_FLOAT64, want);
      if (ulps > 1 || ulps < -1) {
        ++bad;
        ADD_FAILURE() << GetParam() << " hypot(" << a[i] << ", " << b[i] << ") = " << got[i]
                      << ", want " << want << " (" << ulps << " ulps) at " << i;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, Float32Accuracy, ::testing::ValuesIn(kSimdTargets),
                         [](const ::testing::TestParamInfo<const char*>& i) { return std::string(i.param); });

// The exactness policy: where a result is not exact (atan2, pow and hypot
// of floating operands), every SIMD target gives the same bits. Each op and
// dtype runs rows of random operands of many magnitudes (pow: results up to
// and past the vector forms' range) with special lanes mixed in, on every
// target this CPU has; each target's bits must equal the first target's
// (the best one). NaNs need only be NaN on both.
TEST(Simd, BinaryMathSameBitsOnEveryTarget) {
  struct Run {
    std::string target;
    std::vector<uint8_t> bytes;
  };
  const bc_op ops[] = {BC_ATAN2, BC_POW, BC_HYPOT};
  const bc_dtype dtypes[] = {BC_FLOAT64, BC_FLOAT32, BC_FLOAT16, BC_BFLOAT16};
  const double kSpecial[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -2.0, 0.5, 3.0, 1e200, 1e-310, -1e-40};
  const int64_t n = 60013;
  for (bc_op op : ops) {
    for (bc_dtype d : dtypes) {
      const bool f64 = d == BC_FLOAT64;
      std::mt19937 rng(91 + op * 7 + d);
      std::uniform_real_distribution<double> unit(-1.0, 1.0), mant(1.0, 2.0);
      std::uniform_int_distribution<int> exps(f64 ? -600 : -30, f64 ? 600 : 30);
      std::vector<double> a(n), b(n);
      for (int64_t i = 0; i < n; ++i) {
        const double sa = (rng() & 1) ? 1 : -1, sb = (rng() & 1) ? 1 : -1;
        if (i % 41 == 0) {
          a[i] = kSpecial[rng() % 12];
          b[i] = kSpecial[rng() % 12];
        } else if (op == BC_POW) {
          a[i] = (i % 4 == 0) ? 1.0 + unit(rng) * 1e-3 : std::ldexp(mant(rng), exps(rng));
          // b ln a up to +-90: past both forms' limits (64 and 80).
          b[i] = (i % 7 == 0) ? std::round(unit(rng) * 8) : unit(rng) * 90.0 / std::log(a[i]);
        } else {
          a[i] = std::ldexp(mant(rng), exps(rng)) * sa;
          b[i] = std::fabs(a[i]) * ((i % 3 == 0) ? mant(rng) * 0.5 : std::ldexp(mant(rng), exps(rng) / 8)) * sb;
        }
      }
      Tensor ta = ToTensor(MakeHost(d, {n}, a)), tb = ToTensor(MakeHost(d, {n}, b));
      const size_t size = f64 ? 8 : d == BC_FLOAT32 ? 4 : 2;
      std::vector<Run> runs;
      std::vector<std::string> targets = {""};  // "": the best target
      for (const char* t : kSimdTargets) targets.push_back(t);
      for (const std::string& t : targets) {
        if (bc_set_simd_cap(t.c_str()) != BC_OK) continue;
        bc_tensor* out = nullptr;
        ASSERT_EQ(bc_binary(op, ta.get(), tb.get(), &out), BC_OK) << t << ": " << bc_last_error();
        Tensor r(out);
        Run run{t.empty() ? std::string("best (") + bc_simd_target() + ")" : t, std::vector<uint8_t>(n * size)};
        ASSERT_EQ(bc_tensor_copy_to(out, run.bytes.data(), run.bytes.size()), BC_OK);
        runs.push_back(std::move(run));
      }
      ASSERT_EQ(bc_set_simd_cap(nullptr), BC_OK);
      ASSERT_GE(runs.size(), 2u);
      for (size_t k = 1; k < runs.size(); ++k) {
        int64_t differ = 0, first = -1;
        for (int64_t i = 0; i < n; ++i) {
          if (std::memcmp(&runs[0].bytes[i * size], &runs[k].bytes[i * size], size) == 0) continue;
          // Both NaN (any payload) is the same result.
          auto is_nan = [&](const uint8_t* p) {
            if (f64) { double v; std::memcpy(&v, p, 8); return std::isnan(v); }
            if (d == BC_FLOAT32) { float v; std::memcpy(&v, p, 4); return std::isnan(v); }
            uint16_t h;
            std::memcpy(&h, p, 2);
            return d == BC_FLOAT16 ? (h & 0x7c00) == 0x7c00 && (h & 0x3ff) : (h & 0x7f80) == 0x7f80 && (h & 0x7f);
          };
          if (is_nan(&runs[0].bytes[i * size]) && is_nan(&runs[k].bytes[i * size])) continue;
          if (differ++ == 0) first = i;
        }
        EXPECT_EQ(differ, 0) << bc_op_name(op) << " " << ShortName(d) << ": " << runs[k].target << " differs from "
                             << runs[0].target << " in " << differ << " of " << n << " elements, first at " << first
                             << " (" << (first >= 0 ? a[first] : 0) << ", " << (first >= 0 ? b[first] : 0) << ")";
      }
    }
  }
}

TEST(Simd, CapNames) {
  std::string best = bc_simd_target();
  EXPECT_FALSE(best.empty());
  // The chosen target is one the cap accepts, and at least one known name works.
  EXPECT_EQ(bc_set_simd_cap(best.c_str()), BC_OK) << best;
  int ok = 0;
  for (const char* t : kSimdTargets) ok += bc_set_simd_cap(t) == BC_OK;
  EXPECT_GE(ok, 1);
  EXPECT_TRUE(Fails(bc_set_simd_cap("NOT_A_TARGET"), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(bc_set_simd_cap(""), BC_OK);
  EXPECT_EQ(bc_set_simd_cap(nullptr), BC_OK);
  EXPECT_EQ(std::string(bc_simd_target()), best);
}

// A refused name leaves the cap as it was (the header's promise).
TEST(SimdCap, RefusedNameKeepsTheCap) {
  ASSERT_EQ(bc_set_simd_cap("SSE4"), BC_OK);
  EXPECT_STREQ(bc_simd_target(), "SSE4");
  EXPECT_EQ(bc_set_simd_cap("NO_SUCH_TARGET"), BC_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(bc_simd_target(), "SSE4");
  ASSERT_EQ(bc_set_simd_cap(nullptr), BC_OK);
  EXPECT_STRNE(bc_simd_target(), "SSE4");
}

// Copies integers `v` of dtype d (bool: bytes 0 and 1) into a float32 tensor
// and compares every element with C's conversion (at most 5 failures shown).
template <typename T>
void ExpectFloat32AsC(const char* target, bc_dtype d, const std::vector<T>& v) {
  const int64_t n = static_cast<int64_t>(v.size());
  const int64_t shape[] = {n};
  bc_tensor *a = nullptr, *out = nullptr;
  ASSERT_EQ(bc_tensor_from_data(d, shape, 1, v.data(), &a), BC_OK);
  Tensor ta(a);
  ASSERT_EQ(bc_tensor_empty(BC_FLOAT32, shape, 1, &out), BC_OK);
  Tensor to(out);
  ASSERT_EQ(bc_copy_(out, a), BC_OK) << bc_last_error();
  std::vector<float> got(n);
  ASSERT_EQ(bc_tensor_copy_to(out, got.data(), n * sizeof(float)), BC_OK);
  int bad = 0;
  for (int64_t i = 0; i < n && bad < 5; ++i) {
    if (got[i] != static_cast<float>(v[i])) {
      ++bad;
      ADD_FAILURE() << target << " " << ShortName(d) << " " << +v[i] << " -> " << got[i] << ", want "
                    << static_cast<float>(v[i]);
    }
  }
}

// int64 operands of ops computed in float32 convert as C converts (one
// rounding to nearest even) on every target: through float64 in vectors
// while |x| < 2^53, lane by lane past it. Rows mix ties (2^24 + 1, 2^25 + 2,
// ...), values around 2^53 and the extremes.
class Int64ToFloat32 : public SimdTarget {};
TEST_P(Int64ToFloat32, RoundsOnceToNearestEven) {
  if (bc_set_simd_cap(GetParam()) != BC_OK) GTEST_SKIP() << GetParam() << " not available";
  std::mt19937_64 rng(80);
  const int64_t n = 4103;
  std::vector<int64_t> v(n);
  for (int64_t i = 0; i < n; ++i) {
    const int shift = static_cast<int>(rng() % 54);
    int64_t x = static_cast<int64_t>(rng() >> (63 - shift));
    if (i % 5 == 0) x = (int64_t{1} << (24 + rng() % 29)) + static_cast<int64_t>(rng() % 5);  // ties
    if (i % 4 == 0) x = -x;
    if (i > 2048 && i % 97 == 0) x = (int64_t{1} << 53) + static_cast<int64_t>(rng() % 7);
    if (i == 3000) x = INT64_MIN;
    if (i == 3001) x = INT64_MAX;
    v[i] = x;
  }
  ExpectFloat32AsC(GetParam(), BC_INT64, v);
}
INSTANTIATE_TEST_SUITE_P(Targets, Int64ToFloat32, ::testing::ValuesIn(kSimdTargets),
                         [](const ::testing::TestParamInfo<const char*>& i) { return std::string(i.param); });

// int32 (rounded once to nearest even past 2^24), int16, int8, uint8 and
// bool to float32 on every target: the conversion kernel's vectors and its
// tail against C's conversion.
template <typename T>
void CheckIntToFloat32(const char* target, bc_dtype d, std::mt19937_64& rng) {
  const int64_t n = 4103;
  std::vector<T> v(n);
  for (int64_t i = 0; i < n; ++i) {
    uint64_t r = rng();
    T x;
    std::memcpy(&x, &r, sizeof(T));
    if constexpr (std::is_same_v<T, int32_t>) {
      if (i % 5 == 0) x = (int32_t{1} << (24 + r % 7)) + static_cast<int32_t>(r % 5);  // ties
      if (i % 4 == 0) x = -x;
      if (i == 3000) x = INT32_MIN;
      if (i == 3001) x = INT32_MAX;
    }
    if (d == BC_BOOL) x = static_cast<T>(r & 1);  // bool's bytes are 0 and 1
    v[i] = x;
  }
  ExpectFloat32AsC(target, d, v);
}

class IntToFloat32 : public SimdTarget {};
TEST_P(IntToFloat32, ConvertsAsC) {
  if (bc_set_simd_cap(GetParam()) != BC_OK) GTEST_SKIP() << GetParam() << " not available";
  std::mt19937_64 rng(81);
  CheckIntToFloat32<int32_t>(GetParam(), BC_INT32, rng);
  CheckIntToFloat32<int16_t>(GetParam(), BC_INT16, rng);
  CheckIntToFloat32<int8_t>(GetParam(), BC_INT8, rng);
  CheckIntToFloat32<uint8_t>(GetParam(), BC_UINT8, rng);
  CheckIntToFloat32<uint8_t>(GetParam(), BC_BOOL, rng);
}
INSTANTIATE_TEST_SUITE_P(Targets, IntToFloat32, ::testing::ValuesIn(kSimdTargets),
                         [](const ::testing::TestParamInfo<const char*>& i) { return std::string(i.param); });

}  // namespace
}  // namespace bct
