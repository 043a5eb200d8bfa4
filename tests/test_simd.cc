// SIMD dispatch: the same op checks once per SIMD target this CPU can run
// (bc_set_simd_cap), each against the naive reference.
#include <gtest/gtest.h>

#include "test_util.h"

namespace bct {
namespace {

const char* const kTargets[] = {"EMU128", "SSE2", "SSSE3", "SSE4", "AVX2", "AVX3"};

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
  const bc_op ops[] = {BC_ADD, BC_SUB, BC_MUL, BC_DIV, BC_DIV_TRUNC, BC_DIV_FLOOR, BC_REMAINDER,
                       BC_FMOD, BC_POW, BC_MAXIMUM, BC_MINIMUM, BC_FMAX, BC_FMIN, BC_ATAN2,
                       BC_HYPOT, BC_COPYSIGN, BC_EQ, BC_NE, BC_LT, BC_LE, BC_GT, BC_GE,
                       BC_LOGICAL_XOR,
                       BC_BITWISE_AND, BC_BITWISE_XOR, BC_SHIFT_LEFT, BC_SHIFT_RIGHT};
  for (bc_op op : ops) {
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
      if (d == BC_FLOAT64) {
        ref = wt < 0.5 ? s + wt * (e - s) : e - (e - s) * (1 - wt);
      } else {
        float fs = static_cast<float>(s), fe = static_cast<float>(e), fw = static_cast<float>(wt);
        ref = RoundFloatTo(d, fw < 0.5f ? fs + fw * (fe - fs) : fe - (fe - fs) * (1.0f - fw));
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

INSTANTIATE_TEST_SUITE_P(Targets, SimdTarget, ::testing::ValuesIn(kTargets),
                         [](const ::testing::TestParamInfo<const char*>& i) { return std::string(i.param); });

TEST(Simd, CapNames) {
  std::string best = bc_simd_target();
  EXPECT_FALSE(best.empty());
  // The chosen target is one the cap accepts, and at least one known name works.
  EXPECT_EQ(bc_set_simd_cap(best.c_str()), BC_OK) << best;
  int ok = 0;
  for (const char* t : kTargets) ok += bc_set_simd_cap(t) == BC_OK;
  EXPECT_GE(ok, 1);
  EXPECT_TRUE(Fails(bc_set_simd_cap("NOT_A_TARGET"), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(bc_set_simd_cap(""), BC_OK);
  EXPECT_EQ(bc_set_simd_cap(nullptr), BC_OK);
  EXPECT_EQ(std::string(bc_simd_target()), best);
}

}  // namespace
}  // namespace bct
