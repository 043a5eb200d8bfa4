// Result dtypes: torch.result_type's table (hand-written in test_util.h and
// spelled out again below), 0-dim operands, and the op-specific rules.
#include <gtest/gtest.h>

#include "test_util.h"

namespace bct {
namespace {

bc_status ResultOf(bc_op op, bc_dtype a, bool a0, bc_dtype b, bool b0, bc_dtype* dt) {
  Shape sa = a0 ? Shape{} : Shape{2, 3};
  Shape sb = b0 ? Shape{} : Shape{3};
  Tensor ta = ToTensor(Iota(a, sa, 1, 0)), tb = ToTensor(Iota(b, sb, 1, 0));
  bc_tensor* out = nullptr;
  bc_status st = bc_binary(op, ta.get(), tb.get(), &out);
  if (st == BC_OK) {
    *dt = bc_tensor_dtype(out);
    bc_tensor_free(out);
  }
  return st;
}

bc_dtype ResultOrDie(bc_op op, bc_dtype a, bool a0, bc_dtype b, bool b0) {
  bc_dtype dt = BC_BOOL;
  bc_status st = ResultOf(op, a, a0, b, b0, &dt);
  EXPECT_EQ(st, BC_OK) << bc_op_name(op) << " " << ShortName(a) << (a0 ? "(0-dim)" : "") << " "
                       << ShortName(b) << (b0 ? "(0-dim)" : "") << ": " << bc_last_error();
  return dt;
}

// The promotion table as strings, one row per left dtype, to catch typos in
// the matrix of test_util.h as well as in the library.
TEST(Promotion, TableSpelledOut) {
  const char* rows[10] = {
      /* b1 */ "b1 u8 i8 i16 i32 i64 f16 bf16 f32 f64",
      /* u8 */ "u8 u8 i16 i16 i32 i64 f16 bf16 f32 f64",
      /* i8 */ "i8 i16 i8 i16 i32 i64 f16 bf16 f32 f64",
      /* i16 */ "i16 i16 i16 i16 i32 i64 f16 bf16 f32 f64",
      /* i32 */ "i32 i32 i32 i32 i32 i64 f16 bf16 f32 f64",
      /* i64 */ "i64 i64 i64 i64 i64 i64 f16 bf16 f32 f64",
      /* f16 */ "f16 f16 f16 f16 f16 f16 f16 f32 f32 f64",
      /* bf16 */ "bf16 bf16 bf16 bf16 bf16 bf16 f32 bf16 f32 f64",
      /* f32 */ "f32 f32 f32 f32 f32 f32 f32 f32 f32 f64",
      /* f64 */ "f64 f64 f64 f64 f64 f64 f64 f64 f64 f64",
  };
  for (int i = 0; i < 10; ++i) {
    std::istringstream row(rows[i]);
    for (int j = 0; j < 10; ++j) {
      std::string want;
      row >> want;
      bc_dtype a = kAllDtypes[i], b = kAllDtypes[j];
      EXPECT_EQ(ShortName(PromoteTypes(a, b)), want) << "test table " << ShortName(a) << "," << ShortName(b);
      EXPECT_EQ(ShortName(ResultOrDie(BC_MUL, a, false, b, false)), want)
          << ShortName(a) << " * " << ShortName(b);
    }
  }
}

TEST(Promotion, ZeroDimOperandsCountOnlyIfHigherCategory) {
  for (bc_dtype a : kAllDtypes) {
    for (bc_dtype b : kAllDtypes) {
      bc_dtype want = ResultType({{a, false}, {b, true}});
      EXPECT_EQ(ResultOrDie(BC_MUL, a, false, b, true), want) << ShortName(a) << " * 0-dim " << ShortName(b);
      want = ResultType({{a, true}, {b, false}});
      EXPECT_EQ(ResultOrDie(BC_MUL, a, true, b, false), want) << "0-dim " << ShortName(a) << " * " << ShortName(b);
      // Two 0-dim operands promote normally.
      EXPECT_EQ(ResultOrDie(BC_MUL, a, true, b, true), PromoteTypes(a, b)) << ShortName(a) << " " << ShortName(b);
    }
  }
}

TEST(Promotion, LiteralCases) {
  struct Case {
    bc_dtype a;
    bool a0;
    bc_dtype b;
    bool b0;
    bc_dtype want;
  };
  const Case cases[] = {
      {BC_UINT8, false, BC_INT8, false, BC_INT16},
      {BC_FLOAT16, false, BC_BFLOAT16, false, BC_FLOAT32},
      {BC_INT32, false, BC_FLOAT64, true, BC_FLOAT64},    // category rises: promote
      {BC_FLOAT32, false, BC_FLOAT64, true, BC_FLOAT32},  // same category: dims win
      {BC_INT32, false, BC_INT64, true, BC_INT32},
      {BC_BOOL, false, BC_INT64, true, BC_INT64},
      {BC_UINT8, false, BC_INT8, true, BC_UINT8},
      {BC_INT8, false, BC_UINT8, true, BC_INT8},
      {BC_FLOAT16, false, BC_FLOAT32, true, BC_FLOAT16},
      {BC_BOOL, false, BC_FLOAT16, true, BC_FLOAT16},
      {BC_INT64, false, BC_BFLOAT16, true, BC_BFLOAT16},
      {BC_FLOAT16, true, BC_BFLOAT16, true, BC_FLOAT32},
      {BC_UINT8, true, BC_INT8, true, BC_INT16},
      {BC_INT64, false, BC_FLOAT16, false, BC_FLOAT16},
      {BC_BOOL, false, BC_BOOL, true, BC_BOOL},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ResultOrDie(BC_ADD, c.a, c.a0, c.b, c.b0), c.want)
        << ShortName(c.a) << (c.a0 ? "(0-dim)" : "") << " + " << ShortName(c.b) << (c.b0 ? "(0-dim)" : "");
  }
}

TEST(Promotion, TrueDivisionAtan2CopysignGiveFloat) {
  for (bc_op op : {BC_DIV, BC_ATAN2, BC_COPYSIGN}) {
    for (bc_dtype a : kAllDtypes) {
      for (bc_dtype b : kAllDtypes) {
        bc_dtype common = PromoteTypes(a, b);
        bc_dtype want = IsFloat(common) ? common : BC_FLOAT32;
        EXPECT_EQ(ResultOrDie(op, a, false, b, false), want) << bc_op_name(op) << " " << ShortName(a) << " " << ShortName(b);
      }
    }
  }
}

TEST(Promotion, ComparisonsAndLogicalGiveBool) {
  for (int op = BC_EQ; op <= BC_LOGICAL_XOR; ++op) {
    for (bc_dtype a : kAllDtypes) {
      for (bc_dtype b : kAllDtypes) {
        EXPECT_EQ(ResultOrDie(static_cast<bc_op>(op), a, false, b, b == BC_INT8), BC_BOOL)
            << bc_op_name(static_cast<bc_op>(op)) << " " << ShortName(a) << " " << ShortName(b);
      }
    }
  }
}

TEST(Promotion, ComparisonsComputeInCommonDtype) {
  // 2^24 + 1 as int64 becomes 2^24 in float32, so it equals float32 2^24.
  Tensor i = ToTensor(MakeHost(BC_INT64, {2}, {16777217, 3}));
  Tensor f = ToTensor(MakeHost(BC_FLOAT32, {2}, {16777216, 3}));
  bc_tensor* out = nullptr;
  ASSERT_EQ(bc_binary(BC_EQ, i.get(), f.get(), &out), BC_OK);
  Tensor r(out);
  EXPECT_TRUE(SameHost(FromTensor(out), MakeHost(BC_BOOL, {2}, {1, 1})));
  // int8 -1 against uint8 255 compares in int16: not equal, -1 < 255.
  Tensor s = ToTensor(MakeHost(BC_INT8, {1}, {-1})), u = ToTensor(MakeHost(BC_UINT8, {1}, {255}));
  ASSERT_EQ(bc_binary(BC_LT, s.get(), u.get(), &out), BC_OK);
  Tensor r2(out);
  EXPECT_TRUE(SameHost(FromTensor(out), MakeHost(BC_BOOL, {1}, {1})));
}

TEST(Promotion, MaxMinAndPowKeepCommonDtype) {
  for (bc_op op : {BC_MAXIMUM, BC_MINIMUM, BC_FMAX, BC_FMIN, BC_POW, BC_REMAINDER, BC_DIV_FLOOR}) {
    for (bc_dtype a : kAllDtypes) {
      for (bc_dtype b : kAllDtypes) {
        bc_dtype common = PromoteTypes(a, b);
        if (OpSupport(op, common) != Support::kYes) continue;
        EXPECT_EQ(ResultOrDie(op, a, false, b, false), common) << bc_op_name(op) << " " << ShortName(a) << " " << ShortName(b);
      }
    }
  }
}

TEST(Promotion, HypotOnIntegersIsRefused) {
  for (bc_dtype a : kAllDtypes) {
    for (bc_dtype b : kAllDtypes) {
      bc_dtype common = PromoteTypes(a, b);
      bc_dtype dt;
      bc_status st = ResultOf(BC_HYPOT, a, false, b, false, &dt);
      if (IsFloat(common)) {
        EXPECT_EQ(st, BC_OK) << ShortName(a) << " " << ShortName(b) << ": " << bc_last_error();
        if (st == BC_OK) {
          EXPECT_EQ(dt, common);
        }
      } else {
        EXPECT_TRUE(Fails(st, BC_ERR_DTYPE, std::string("\"hypot_cpu\" not implemented for '") + TorchName(common) + "'"))
            << ShortName(a) << " " << ShortName(b);
      }
    }
  }
}

TEST(Promotion, BitwiseAndShiftsRefuseFloats) {
  for (int op = BC_BITWISE_AND; op <= BC_SHIFT_RIGHT; ++op) {
    for (bc_dtype a : kAllDtypes) {
      for (bc_dtype b : kAllDtypes) {
        bc_dtype common = PromoteTypes(a, b);
        bc_dtype dt;
        bc_status st = ResultOf(static_cast<bc_op>(op), a, false, b, false, &dt);
        std::string what = std::string(bc_op_name(static_cast<bc_op>(op))) + " " + ShortName(a) + " " + ShortName(b);
        if (OpSupport(static_cast<bc_op>(op), common) == Support::kDtypeError) {
          EXPECT_TRUE(Fails(st, BC_ERR_DTYPE, NotImplementedText(static_cast<bc_op>(op), common))) << what;
        } else {
          EXPECT_EQ(st, BC_OK) << what << ": " << bc_last_error();
          if (st == BC_OK) {
            EXPECT_EQ(dt, common) << what;
          }
        }
      }
    }
  }
  // A 0-dim float does lift integers to float, so that is refused too.
  bc_dtype dt;
  EXPECT_TRUE(Fails(ResultOf(BC_BITWISE_AND, BC_INT32, false, BC_FLOAT32, true, &dt), BC_ERR_DTYPE));
  // A 0-dim wider integer does not.
  ASSERT_EQ(ResultOf(BC_BITWISE_OR, BC_INT8, false, BC_INT64, true, &dt), BC_OK);
  EXPECT_EQ(dt, BC_INT8);
}

}  // namespace
}  // namespace bct
