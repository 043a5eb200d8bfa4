// Binary ops: each op x each dtype against a naive reference loop, over the
// broadcast patterns (same shape, scalar, row, column, outer, middle, 0-dim,
// size 0), strided and transposed wrapped inputs, and mixed dtypes.
#include <gtest/gtest.h>

#include <tuple>

#include "test_util.h"

namespace bct {
namespace {

struct Pattern {
  const char* name;
  Shape a, b;
};

const Pattern kPatterns[] = {
    {"same", {3, 5}, {3, 5}},
    {"scalar_rhs", {4, 6}, {}},
    {"scalar_lhs", {}, {4, 6}},
    {"row", {4, 6}, {6}},
    {"column", {4, 6}, {4, 1}},
    {"outer", {5, 1}, {1, 7}},
    {"middle", {3, 4, 5}, {1, 4, 1}},
    {"middle_inverse", {3, 1, 5}, {4, 1}},
    {"zero_dim", {}, {}},
    {"size_zero", {0, 3}, {1, 3}},
    {"long_rows", {3, 131}, {131}},
    {"long_column", {67, 1}, {67, 9}},
    {"one_row_long", {1, 1029}, {1029}},
};

std::string OpName(bc_op op) { return bc_op_name(op); }

// Runs op(a, b) through all three forms (allocating, out=, in place when the
// shape and dtype allow) and compares with the reference.
void CheckBinary(bc_op op, const Host& a, const Host& b, const bc_tensor* ta, const bc_tensor* tb,
                 const std::string& what) {
  SCOPED_TRACE(what);
  bool zero_div = false;
  Host want = RefBinary(op, a, b, 1.0, &zero_div);
  bc_tensor* out = kPoison;
  bc_status st = bc_binary(op, ta, tb, &out);
  if (zero_div) {
    EXPECT_TRUE(Fails(st, BC_ERR_DIVISION_BY_ZERO, "ZeroDivisionError"));
    EXPECT_EQ(out, nullptr);
    return;
  }
  ASSERT_EQ(st, BC_OK) << bc_last_error();
  Tensor r(out);
  EXPECT_TRUE(SameHost(FromTensor(r.get()), want, CmpFor(op), UlpsFor(op, want.dtype)));

  // out= into a fresh tensor of the result dtype.
  bc_tensor* o = nullptr;
  ASSERT_EQ(bc_tensor_zeros(want.dtype, want.shape.data(), want.shape.size(), &o), BC_OK);
  Tensor ho(o);
  ASSERT_EQ(bc_binary_out(op, ta, tb, o), BC_OK) << bc_last_error();
  EXPECT_TRUE(SameHost(FromTensor(o), want, CmpFor(op), UlpsFor(op, want.dtype)));

  // In place on a copy of a, when a keeps its shape and dtype.
  if (a.shape == want.shape && a.dtype == want.dtype) {
    Tensor self = ToTensor(a);
    ASSERT_EQ(bc_binary_(op, self.get(), tb), BC_OK) << bc_last_error();
    EXPECT_TRUE(SameHost(FromTensor(self.get()), want, CmpFor(op), UlpsFor(op, want.dtype)));
  }
}

using OpDtype = std::tuple<bc_op, bc_dtype>;

std::vector<OpDtype> SupportedPairs(Support which) {
  std::vector<OpDtype> v;
  for (int op = 0; op < BC_OP_COUNT; ++op)
    for (bc_dtype d : kAllDtypes)
      if (OpSupport(static_cast<bc_op>(op), d) == which) v.emplace_back(static_cast<bc_op>(op), d);
  return v;
}

std::string PairName(const ::testing::TestParamInfo<OpDtype>& info) {
  return OpName(std::get<0>(info.param)) + "_" + ShortName(std::get<1>(info.param));
}

class BinaryOp : public ::testing::TestWithParam<OpDtype> {};

TEST_P(BinaryOp, BroadcastPatternsMatchReference) {
  bc_op op = std::get<0>(GetParam());
  bc_dtype d = std::get<1>(GetParam());
  std::mt19937 rng(1000 + op * 16 + d);
  for (const Pattern& p : kPatterns) {
    Host a = RandomHost(d, p.a, rng);
    Host b = RandomRhs(op, d, p.b, rng);
    Tensor ta = ToTensor(a), tb = ToTensor(b);
    CheckBinary(op, a, b, ta.get(), tb.get(), p.name);
  }
}

TEST_P(BinaryOp, StridedAndTransposedInputs) {
  bc_op op = std::get<0>(GetParam());
  bc_dtype d = std::get<1>(GetParam());
  std::mt19937 rng(2000 + op * 16 + d);
  const Pattern strided[] = {
      {"both_strided", {6, 5}, {6, 5}},
      {"strided_row", {4, 9}, {9}},
      {"strided_3d", {3, 4, 5}, {3, 1, 5}},
      {"long", {2, 300}, {1, 300}},
  };
  for (const Pattern& p : strided) {
    Host a = RandomHost(d, p.a, rng);
    Host b = RandomRhs(op, d, p.b, rng);
    Tensor ta = ToStridedTensor(a, rng), tb = ToStridedTensor(b, rng);
    CheckBinary(op, a, b, ta.get(), tb.get(), p.name);
  }
  // A transposed matrix (column-major storage) against a contiguous one.
  Host a = RandomHost(d, {7, 5}, rng);
  Host b = RandomRhs(op, d, {7, 5}, rng);
  std::vector<unsigned char> col(35 * ElemSize(d));
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 5; ++j) StoreVal(d, a.v[i * 5 + j], &col[(j * 7 + i) * ElemSize(d)]);
  int64_t shape[] = {7, 5}, strides[] = {1, 7};
  bc_tensor* t = nullptr;
  ASSERT_EQ(bc_tensor_wrap(d, shape, strides, 2, col.data(), col.size(), nullptr, nullptr, &t), BC_OK);
  Tensor ta(t);
  Tensor tb = ToTensor(b);
  CheckBinary(op, a, b, ta.get(), tb.get(), "transposed_lhs");
  CheckBinary(op, b, a, tb.get(), ta.get(), "transposed_rhs");
  // An expanded (stride-0) view as input.
  Host row = RandomRhs(op, d, {1, 5}, rng);
  Tensor trow = ToTensor(row);
  int64_t big[] = {7, 5};
  bc_tensor* e = nullptr;
  ASSERT_EQ(bc_expand(trow.get(), big, 2, &e), BC_OK);
  Tensor te(e);
  Host expanded = FromTensor(te.get());
  CheckBinary(op, a, expanded, ta.get(), te.get(), "expanded_rhs");
}

INSTANTIATE_TEST_SUITE_P(All, BinaryOp, ::testing::ValuesIn(SupportedPairs(Support::kYes)), PairName);

class BinaryOpDtypeError : public ::testing::TestWithParam<OpDtype> {};

TEST_P(BinaryOpDtypeError, RefusedWithoutWriting) {
  bc_op op = std::get<0>(GetParam());
  bc_dtype d = std::get<1>(GetParam());
  Tensor a = ToTensor(Iota(d, {2, 3}, 1)), b = ToTensor(Iota(d, {3}, 1));
  std::vector<unsigned char> before = RawBytes(a.get());
  bc_tensor* out = kPoison;
  std::string msg = NotImplementedText(op, d);
  if (op == BC_SUB) {
    msg = "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
          "`logical_xor()` operator instead.";
  }
  EXPECT_TRUE(Fails(bc_binary(op, a.get(), b.get(), &out), BC_ERR_DTYPE, msg));
  EXPECT_EQ(out, nullptr);
  EXPECT_TRUE(Fails(bc_binary_(op, a.get(), b.get()), BC_ERR_DTYPE, msg));
  EXPECT_EQ(RawBytes(a.get()), before);
}

INSTANTIATE_TEST_SUITE_P(All, BinaryOpDtypeError, ::testing::ValuesIn(SupportedPairs(Support::kDtypeError)),
                         PairName);

// ---------------------------------------------------------------------------
// Larger layouts: many short broadcast rows, long rows with tails, strided
// and transposed inputs big enough for the threaded and streaming paths, and
// an output that is not aligned to any vector width.

TEST(LargeLayouts, MatchReference) {
  std::mt19937 rng(4321);
  const Pattern layouts[] = {
      {"short_rows", {1000, 3}, {3}},           {"short_rows_2d", {64, 2, 3}, {2, 3}},
      {"short_column", {513, 7}, {513, 1}},     {"middle_long", {2, 3, 4099}, {1, 3, 1}},
      {"long_tail", {3, 100003}, {100003}},     {"scalar", {100003}, {}},
      {"outer", {300, 1}, {1, 301}},            {"same", {257, 259}, {257, 259}},
      // Short rows laid out as long ones, across several dims and split
      // mid-row between threads.
      {"outer_short_side", {20001, 1}, {1, 7}}, {"points", {30001, 3}, {3}},
      {"rgba_column", {64, 301, 4}, {64, 301, 1}}, {"six_d", {6, 1, 5, 1, 4, 1}, {1, 3, 1, 2, 1, 3}},
      {"plane", {9, 1, 50, 3}, {1, 160, 50, 3}},  {"medium_row", {701, 100}, {100}},
  };
  const bc_op ops[] = {BC_ADD, BC_MUL, BC_DIV, BC_MAXIMUM, BC_LT, BC_BITWISE_AND, BC_REMAINDER};
  const bc_dtype dtypes[] = {BC_BOOL, BC_UINT8, BC_INT8, BC_INT32, BC_INT64, BC_FLOAT16, BC_BFLOAT16, BC_FLOAT32, BC_FLOAT64};
  int k = 0;
  for (const Pattern& p : layouts) {
    for (bc_dtype d : dtypes) {
      bc_op op = ops[k++ % (sizeof(ops) / sizeof(ops[0]))];
      if (OpSupport(op, d) != Support::kYes) op = BC_ADD;
      Host a = RandomHost(d, p.a, rng), b = RandomRhs(op, d, p.b, rng);
      if (IsIntDivision(op) && !IsFloat(d))
        for (Val& v : b.v)
          if (v.i == 0 || v.i == 255) v = IVal(3);  // no zero; uint8 255 is the BinaryOp suite's
      bool strided = (k % 3) == 0;
      Tensor ta = strided ? ToStridedTensor(a, rng, true, 1) : ToTensor(a);
      Tensor tb = ToTensor(b);
      CheckBinary(op, a, b, ta.get(), tb.get(), std::string(p.name) + " " + ShortName(d) + " " + OpName(op));
    }
  }
}

// Short rows into an output contiguous within each (6, 5) block but not
// across blocks (every block starts 40 elements after the one before): the
// tiles stop at each block, and an input laid out once per block ((50, 1, 5):
// one row per block) is laid out again for the next, while one the same for
// every block ((6, 1)) is not.
TEST(LargeLayouts, ShortRowsIntoBlocksOfAnOutput) {
  std::mt19937 rng(4322);
  for (bc_dtype d : {BC_UINT8, BC_INT16, BC_FLOAT32, BC_FLOAT64}) {
    Host a = RandomHost(d, {50, 1, 5}, rng), b = RandomHost(d, {6, 1}, rng), c = RandomHost(d, {6, 5}, rng);
    Tensor ta = ToTensor(a), tb = ToTensor(b), tc = ToTensor(c);
    const size_t es = ElemSize(d);
    std::vector<unsigned char> raw(50 * 40 * es, 0xAB);
    const int64_t shape[] = {50, 6, 5}, strides[] = {40, 5, 1};
    bc_tensor* o = nullptr;
    ASSERT_EQ(bc_tensor_wrap(d, shape, strides, 3, raw.data(), raw.size(), nullptr, nullptr, &o), BC_OK);
    Tensor ho(o);
    for (int form = 0; form < 2; ++form) {
      const Host& y = form == 0 ? b : c;
      ASSERT_EQ(bc_binary_out(BC_ADD, ta.get(), form == 0 ? tb.get() : tc.get(), o), BC_OK)
          << bc_last_error();
      EXPECT_TRUE(SameHost(FromTensor(o), RefBinary(BC_ADD, a, y))) << ShortName(d) << " " << form;
    }
    // The gaps between blocks are left alone.
    for (size_t blk = 0; blk < 50; ++blk)
      for (size_t i = 30 * es; i < 40 * es; ++i) EXPECT_EQ(raw[blk * 40 * es + i], 0xAB) << blk;
  }
}

// Rows of at most one vector that reach the row kernel as rows (a 3-D
// broadcast of a middle dim, rows and columns), on SSE4, AVX2 and AVX3: the
// AVX2/AVX3 kernels run them as one masked vector a row (BinaryRow), which
// must neither read nor write past a row's n elements. Every n from 1 to 17
// (float64: the 4- and 8-lane vectors' edges, float32: 8 and 16), ops with
// and without a vector form of their own, out= into a guarded buffer and in
// place, against the naive reference.
TEST(SmallRows, OneMaskedVectorARowOnEveryTarget) {
  std::mt19937 rng(4324);
  int ran = 0;
  for (const char* target : {"SSE4", "AVX2", "AVX3"}) {
    if (bc_set_simd_cap(target) != BC_OK) continue;
    ++ran;
    for (bc_dtype d : {BC_FLOAT32, BC_FLOAT64}) {
      const size_t es = ElemSize(d);
      for (int64_t n = 1; n <= 17; ++n) {
        const struct {
          Shape a, b;
        } pats[] = {{{3, 1, n}, {3, 4, n}}, {{3, 4, n}, {3, 1, n}}, {{5, n}, {n}}, {{5, n}, {5, 1}},
                    {{5, 1}, {5, n}}, {{1, n}, {5, n}}};
        for (const auto& pt : pats) {
          for (bc_op op : {BC_ADD, BC_MUL, BC_DIV, BC_MAXIMUM, BC_COPYSIGN, BC_FMOD}) {
            const std::string what = std::string(target) + " " + ShortName(d) + " " + bc_op_name(op) +
                                     " n=" + std::to_string(n) + " " + ShapeStr(pt.a) + "," + ShapeStr(pt.b);
            Host a = RandomHost(d, pt.a, rng), b = RandomHost(d, pt.b, rng);
            Tensor ta = ToTensor(a), tb = ToTensor(b);
            const Host want = RefBinary(op, a, b);
            // out=, inside a buffer with a guard element before and after.
            const int64_t numel = static_cast<int64_t>(want.v.size());
            std::vector<unsigned char> raw(static_cast<size_t>(numel + 2) * es, 0xAB);
            std::vector<int64_t> strides(want.shape.size(), 1);
            for (size_t k = want.shape.size(); k-- > 1;) strides[k - 1] = strides[k] * want.shape[k];
            bc_tensor* o = nullptr;
            ASSERT_EQ(bc_tensor_wrap(d, want.shape.data(), strides.data(), want.shape.size(), raw.data() + es,
                                     static_cast<size_t>(numel) * es, nullptr, nullptr, &o),
                      BC_OK);
            Tensor to(o);
            ASSERT_EQ(bc_binary_out(op, ta.get(), tb.get(), o), BC_OK) << bc_last_error();
            EXPECT_TRUE(SameHost(FromTensor(o), want)) << what;
            for (size_t i = 0; i < es; ++i) {
              EXPECT_EQ(raw[i], 0xAB) << what;
              EXPECT_EQ(raw[raw.size() - 1 - i], 0xAB) << what;
            }
            // In place, where the first operand has the result's shape.
            if (a.shape == want.shape) {
              ASSERT_EQ(bc_binary_(op, ta.get(), tb.get()), BC_OK) << bc_last_error();
              EXPECT_TRUE(SameHost(FromTensor(ta.get()), want)) << "in place " << what;
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(bc_set_simd_cap(nullptr), BC_OK);
  EXPECT_GE(ran, 1);
}

// Threaded short rows whose chunks start and end mid-row and mid-period,
// on a host scheduler that runs the chunks one after another in reverse
// order (so that the splits do not depend on free cores): add on 1M+
// elements (threaded by size), and pow on 200K (timed on its first
// sixteenth on the caller, then threaded: pow costs far more than the 32 us
// that two threads need on any machine).
TEST(LargeLayouts, ShortRowsSplitIntoChunks) {
  struct Serial {
    static int NumThreads(void*) { return 4; }
    static void Run(void* user, size_t nchunks, bc_chunk_fn fn, void* task) {
      ++*static_cast<int*>(user);
      for (size_t i = nchunks; i-- > 0;) fn(task, i);
    }
  };
  int runs = 0;
  bc_ctx* ctx = nullptr;
  ASSERT_EQ(bc_ctx_create(&ctx), BC_OK);
  const bc_scheduler sched{&Serial::NumThreads, &Serial::Run, &runs};
  ASSERT_EQ(bc_ctx_set_scheduler(ctx, &sched), BC_OK);
  std::mt19937 rng(4323);
  const struct {
    Pattern p;
    bc_op op;
  } cases[] = {
      {{"period_7", {50000, 7, 3}, {7, 3}}, BC_ADD},
      {{"outer", {150001, 1}, {1, 7}}, BC_ADD},
      {{"plane", {7801, 1, 9, 3}, {1, 5, 9, 3}}, BC_ADD},
      {{"points", {350001, 3}, {3}}, BC_ADD},
      {{"medium_row", {10001, 100}, {100}}, BC_ADD},
      {{"pow_outer", {30001, 1}, {1, 7}}, BC_POW},
      {{"pow_period_7", {10000, 7, 3}, {7, 3}}, BC_POW},
  };
  for (const auto& c : cases) {
    for (bc_dtype d : {BC_INT8, BC_FLOAT32, BC_FLOAT64}) {
      if (c.op == BC_POW && d == BC_INT8) continue;
      Host a = RandomHost(d, c.p.a, rng), b = RandomRhs(c.op, d, c.p.b, rng);
      Tensor ta = ToTensor(a), tb = ToTensor(b);
      Host want = RefBinary(c.op, a, b);
      bc_tensor* o = nullptr;
      ASSERT_EQ(bc_tensor_zeros(d, want.shape.data(), want.shape.size(), &o), BC_OK);
      Tensor ho(o);
      const int before = runs;
      ASSERT_EQ(bc_ctx_binary_out(ctx, c.op, ta.get(), tb.get(), o), BC_OK) << bc_ctx_last_error(ctx);
      EXPECT_EQ(runs, before + 1) << c.p.name << " " << ShortName(d) << ": threaded";
      EXPECT_TRUE(SameHost(FromTensor(o), want, CmpFor(c.op), UlpsFor(c.op, d)))
          << c.p.name << " " << ShortName(d);
    }
  }
  bc_ctx_free(ctx);
}
// Broadcast shapes whose element count overflows int64 are refused, even
// where the product wraps around to a small number ((2^32+1) x (2^32-1) is
// -1 modulo 2^64): the small-op path must not take them.
TEST(SmallBroadcast, ElementCountThatWrapsIsRefused) {
  Tensor one = ToTensor(Iota(BC_FLOAT32, {1, 1}, 1));
  const int64_t tall[] = {(int64_t{1} << 32) + 1, 1}, wide[] = {1, (int64_t{1} << 32) - 1};
  bc_tensor *a = nullptr, *b = nullptr;
  ASSERT_EQ(bc_expand(one.get(), tall, 2, &a), BC_OK) << bc_last_error();
  Tensor ta(a);
  ASSERT_EQ(bc_expand(one.get(), wide, 2, &b), BC_OK) << bc_last_error();
  Tensor tb(b);
  bc_tensor* out = kPoison;
  EXPECT_TRUE(Fails(bc_binary(BC_ADD, a, b, &out), BC_ERR_OVERFLOW,
                    "number of elements of shape [4294967297, 4294967295] overflows int64"));
  EXPECT_EQ(out, nullptr);
}

TEST(LargeLayouts, TransposedInputAndUnalignedOutput) {
  std::mt19937 rng(8765);
  for (bc_dtype d : {BC_FLOAT32, BC_FLOAT64, BC_INT16, BC_FLOAT16, BC_UINT8, BC_BFLOAT16}) {
    Host a = RandomHost(d, {300, 200}, rng), b = RandomHost(d, {200}, rng);
    // a stored column-major.
    size_t es = ElemSize(d);
    std::vector<unsigned char> col(300 * 200 * es);
    for (int i = 0; i < 300; ++i)
      for (int j = 0; j < 200; ++j) StoreVal(d, a.v[i * 200 + j], &col[(j * 300 + i) * es]);
    int64_t shape[] = {300, 200}, strides[] = {1, 300};
    bc_tensor* t = nullptr;
    ASSERT_EQ(bc_tensor_wrap(d, shape, strides, 2, col.data(), col.size(), nullptr, nullptr, &t), BC_OK);
    Tensor ta(t);
    Tensor tb = ToTensor(b);
    Host want = RefBinary(BC_ADD, a, b);
    // Output one element past an aligned boundary.
    std::vector<uint64_t> raw((300 * 200 + 2) * es / 8 + 2);
    unsigned char* base = reinterpret_cast<unsigned char*>(raw.data()) + es;
    bc_tensor* o = nullptr;
    ASSERT_EQ(bc_tensor_wrap(d, shape, nullptr, 2, base, 300 * 200 * es, nullptr, nullptr, &o), BC_OK);
    Tensor ho(o);
    ASSERT_EQ(bc_binary_out(BC_ADD, ta.get(), tb.get(), o), BC_OK) << bc_last_error();
    EXPECT_TRUE(SameHost(FromTensor(o), want)) << ShortName(d);
    // Nothing written before or after the output.
    for (size_t i = 0; i < es; ++i) EXPECT_EQ(reinterpret_cast<unsigned char*>(raw.data())[i], 0);
    for (size_t i = es + 300 * 200 * es; i < raw.size() * 8; ++i)
      EXPECT_EQ(reinterpret_cast<unsigned char*>(raw.data())[i], 0) << i;
    // In place on the transposed view.
    ASSERT_EQ(bc_binary_(BC_ADD, ta.get(), tb.get()), BC_OK) << bc_last_error();
    EXPECT_TRUE(SameHost(FromTensor(ta.get()), want)) << ShortName(d);
  }
}

// ---------------------------------------------------------------------------
// Mixed dtypes: promotion and the values computed in the common dtype.

struct Mixed {
  bc_dtype a, b;
  bool a_zero_dim, b_zero_dim;
};

class MixedDtypes : public ::testing::TestWithParam<bc_op> {};

TEST_P(MixedDtypes, ComputeInPromotedDtype) {
  bc_op op = GetParam();
  const Mixed cases[] = {
      {BC_INT32, BC_FLOAT32, false, false}, {BC_UINT8, BC_INT8, false, false},
      {BC_FLOAT16, BC_BFLOAT16, false, false}, {BC_BOOL, BC_INT16, false, false},
      {BC_INT64, BC_FLOAT16, false, false},  {BC_FLOAT32, BC_FLOAT64, false, false},
      {BC_INT32, BC_FLOAT64, false, true},   {BC_FLOAT16, BC_FLOAT64, false, true},
      {BC_UINT8, BC_INT64, false, true},     {BC_BOOL, BC_FLOAT32, true, false},
      {BC_INT8, BC_INT16, true, true},       {BC_BFLOAT16, BC_INT32, false, false},
      {BC_BOOL, BC_UINT8, false, false},     {BC_UINT8, BC_FLOAT32, true, false},
  };
  std::mt19937 rng(3000 + op);
  int ran = 0;
  for (const Mixed& m : cases) {
    bc_dtype common = ResultType({{m.a, m.a_zero_dim}, {m.b, m.b_zero_dim}});
    std::string what = std::string(ShortName(m.a)) + (m.a_zero_dim ? "(0-dim)" : "") + " " +
                       ShortName(m.b) + (m.b_zero_dim ? "(0-dim)" : "");
    // Rows of 67: longer than any vector (32 halves on AVX-512), with tails,
    // so that the vector conversions and kernels run, not only the tails.
    Shape sa = m.a_zero_dim ? Shape{} : Shape{5, 67};
    Shape sb = m.b_zero_dim ? Shape{} : Shape{67};
    Host a = RandomHost(m.a, sa, rng);
    Host b = RandomRhs(op, m.b, sb, rng);
    Tensor ta = ToTensor(a), tb = ToTensor(b);
    Support s = OpSupportFor(op, m.a, m.b, common);
    if (s == Support::kDtypeError) {
      bc_tensor* out = kPoison;
      EXPECT_TRUE(Fails(bc_binary(op, ta.get(), tb.get(), &out), BC_ERR_DTYPE)) << what;
      EXPECT_EQ(out, nullptr);
      continue;
    }
    // Integer division by zero is tested elsewhere; make the divisor safe.
    if (IsIntDivision(op) && !IsFloat(common)) {
      for (Val& v : b.v) if (ConvertVal(v, m.b, common).i == 0) v = IVal(1);
      tb = ToTensor(b);
    }
    ++ran;
    CheckBinary(op, a, b, ta.get(), tb.get(), what);
  }
  EXPECT_GT(ran, 0);
}

INSTANTIATE_TEST_SUITE_P(All, MixedDtypes, ::testing::Range(BC_ADD, static_cast<bc_op>(BC_OP_COUNT)),
                         [](const ::testing::TestParamInfo<bc_op>& i) { return OpName(i.param); });

// ---------------------------------------------------------------------------
// Hand-picked values whose results are known without any reference code.

template <typename T>
std::vector<T> RunOp(bc_op op, bc_dtype d, const std::vector<double>& a, const std::vector<double>& b,
                   bc_dtype* got_dtype = nullptr) {
  Tensor ta = ToTensor(MakeHost(d, {static_cast<int64_t>(a.size())}, a));
  Tensor tb = ToTensor(MakeHost(d, {static_cast<int64_t>(b.size())}, b));
  bc_tensor* out = nullptr;
  EXPECT_EQ(bc_binary(op, ta.get(), tb.get(), &out), BC_OK) << bc_last_error();
  Tensor r(out);
  if (got_dtype) *got_dtype = bc_tensor_dtype(out);
  std::vector<T> v(a.size());
  EXPECT_EQ(bc_tensor_copy_to(out, v.data(), v.size() * sizeof(T)), BC_OK);
  return v;
}

TEST(KnownValues, IntegerDivisionFamily) {
  using V = std::vector<int32_t>;
  std::vector<double> a = {7, -7, 7, -7, 0, 5};
  std::vector<double> b = {2, 2, -2, -2, 3, 5};
  EXPECT_EQ(RunOp<int32_t>(BC_DIV_TRUNC, BC_INT32, a, b), (V{3, -3, -3, 3, 0, 1}));
  EXPECT_EQ(RunOp<int32_t>(BC_DIV_FLOOR, BC_INT32, a, b), (V{3, -4, -4, 3, 0, 1}));
  EXPECT_EQ(RunOp<int32_t>(BC_REMAINDER, BC_INT32, a, b), (V{1, 1, -1, -1, 0, 0}));
  EXPECT_EQ(RunOp<int32_t>(BC_FMOD, BC_INT32, a, b), (V{1, -1, 1, -1, 0, 0}));
  bc_dtype dt;
  std::vector<float> q = RunOp<float>(BC_DIV, BC_INT32, a, b, &dt);
  EXPECT_EQ(dt, BC_FLOAT32);
  EXPECT_EQ(q, (std::vector<float>{3.5f, -3.5f, -3.5f, 3.5f, 0.0f, 1.0f}));
  // INT_MIN / -1 wraps like two's complement; remainder is 0.
  double mn = -2147483648.0;
  EXPECT_EQ(RunOp<int32_t>(BC_DIV_TRUNC, BC_INT32, {mn}, {-1}), (V{INT32_MIN}));
  EXPECT_EQ(RunOp<int32_t>(BC_DIV_FLOOR, BC_INT32, {mn}, {-1}), (V{INT32_MIN}));
  EXPECT_EQ(RunOp<int32_t>(BC_REMAINDER, BC_INT32, {mn}, {-1}), (V{0}));
  EXPECT_EQ(RunOp<int32_t>(BC_FMOD, BC_INT32, {mn}, {-1}), (V{0}));
  std::vector<int64_t> l = RunOp<int64_t>(BC_DIV_FLOOR, BC_INT64, {-9.223372036854775808e18}, {-1});
  EXPECT_EQ(l[0], INT64_MIN);
}

// The divisor is scanned in blocks: a zero anywhere (first element, inside a
// later block, the very last one) is found; negative values and the type's
// extremes are not zeros; a bool divisor of an integer division is read as
// 0 and 1.
TEST(KnownValues, IntegerDivisionFindsAZeroAnywhereInALongDivisor) {
  const int64_t n = 10000;
  for (bc_dtype d : {BC_UINT8, BC_INT8, BC_INT16, BC_INT32, BC_INT64}) {
    std::vector<double> ones(n, 1.0);
    for (int64_t i = 0; i < n; i += 7) ones[i] = (d == BC_UINT8) ? 255 : -1;
    ones[5] = d == BC_UINT8 ? 128 : -128;
    Tensor a = ToTensor(MakeHost(d, {n}, ones));
    Tensor no_zero = ToTensor(MakeHost(d, {n}, ones));
    EXPECT_EQ(bc_binary_(BC_DIV_TRUNC, a.get(), no_zero.get()), BC_OK) << ShortName(d);
    for (int64_t at : {int64_t{0}, int64_t{4095}, int64_t{4096}, int64_t{8191}, n - 1}) {
      std::vector<double> v = ones;
      v[at] = 0;
      Tensor b = ToTensor(MakeHost(d, {n}, v));
      bc_tensor* out = kPoison;
      EXPECT_TRUE(Fails(bc_binary(BC_REMAINDER, a.get(), b.get(), &out), BC_ERR_DIVISION_BY_ZERO,
                        "ZeroDivisionError"))
          << ShortName(d) << " zero at " << at;
    }
  }
  std::vector<double> t(n, 1.0);
  Tensor x = ToTensor(MakeHost(BC_INT32, {n}, t));
  t[n - 1] = 0;
  Tensor flags = ToTensor(MakeHost(BC_BOOL, {n}, t));
  bc_tensor* out = kPoison;
  EXPECT_TRUE(Fails(bc_binary(BC_DIV_FLOOR, x.get(), flags.get(), &out), BC_ERR_DIVISION_BY_ZERO,
                    "ZeroDivisionError"));
}

TEST(KnownValues, IntegerDivisionByZeroWritesNothing) {
  for (bc_op op : {BC_DIV_TRUNC, BC_DIV_FLOOR, BC_REMAINDER, BC_FMOD}) {
    for (bc_dtype d : {BC_UINT8, BC_INT8, BC_INT16, BC_INT32, BC_INT64}) {
      Tensor a = ToTensor(MakeHost(d, {2, 3}, {1, 2, 3, 4, 5, 6}));
      Tensor b = ToTensor(MakeHost(d, {3}, {1, 0, 2}));
      std::vector<unsigned char> before = RawBytes(a.get());
      bc_tensor* out = kPoison;
      EXPECT_TRUE(Fails(bc_binary(op, a.get(), b.get(), &out), BC_ERR_DIVISION_BY_ZERO, "ZeroDivisionError"))
          << OpName(op) << " " << ShortName(d);
      EXPECT_EQ(out, nullptr);
      EXPECT_TRUE(Fails(bc_binary_(op, a.get(), b.get()), BC_ERR_DIVISION_BY_ZERO, "ZeroDivisionError"));
      EXPECT_EQ(RawBytes(a.get()), before);
      bc_tensor* o = nullptr;
      int64_t shape[] = {2, 3};
      ASSERT_EQ(bc_tensor_zeros(d, shape, 2, &o), BC_OK);
      Tensor ho(o);
      std::memset(bc_tensor_data(o), 0x3C, 6 * ElemSize(d));
      std::vector<unsigned char> obefore = RawBytes(o);
      EXPECT_TRUE(Fails(bc_binary_out(op, a.get(), b.get(), o), BC_ERR_DIVISION_BY_ZERO, "ZeroDivisionError"));
      EXPECT_EQ(RawBytes(o), obefore);
    }
  }
  // Float division by zero is IEEE, not an error.
  std::vector<float> r = RunOp<float>(BC_DIV, BC_FLOAT32, {1, -1, 0}, {0, 0, 0});
  EXPECT_EQ(r[0], std::numeric_limits<float>::infinity());
  EXPECT_EQ(r[1], -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(r[2]));
  // Integer true division by zero goes through float32.
  std::vector<float> q = RunOp<float>(BC_DIV, BC_INT64, {3, 0}, {0, 0});
  EXPECT_EQ(q[0], std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(q[1]));
}

TEST(KnownValues, FloatRemainderFmodFloorDivide) {
  using V = std::vector<double>;
  V a = {5.5, -5.5, 5.5, -5.5, 1.0};
  V b = {2, 2, -2, -2, 0.1};
  V rem = RunOp<double>(BC_REMAINDER, BC_FLOAT64, a, b);
  EXPECT_EQ(rem[0], 1.5);
  EXPECT_EQ(rem[1], 0.5);
  EXPECT_EQ(rem[2], -0.5);
  EXPECT_EQ(rem[3], -1.5);
  V fm = RunOp<double>(BC_FMOD, BC_FLOAT64, a, b);
  EXPECT_EQ(fm[0], 1.5);
  EXPECT_EQ(fm[1], -1.5);
  EXPECT_EQ(fm[2], 1.5);
  EXPECT_EQ(fm[3], -1.5);
  V fd = RunOp<double>(BC_DIV_FLOOR, BC_FLOAT64, a, b);
  EXPECT_EQ(fd[0], 2);
  EXPECT_EQ(fd[1], -3);
  EXPECT_EQ(fd[2], -3);
  EXPECT_EQ(fd[3], 2);
  EXPECT_EQ(fd[4], 9);  // Python: 1.0 // 0.1 == 9.0, not floor(1.0 / 0.1) == 10
  V tr = RunOp<double>(BC_DIV_TRUNC, BC_FLOAT64, {-1, 7}, {2, -2});
  EXPECT_EQ(tr[0], 0);
  EXPECT_TRUE(std::signbit(tr[0]));
  EXPECT_EQ(tr[1], -3);
}

// fmod, remainder and floor division where the rounded quotient a / b lands
// on or next to an integer (the vector forms correct such quotients), in
// rows long enough for the vector bodies, against C's fmod and the
// reference's floor division bit for bit (zero signs included).
template <typename C>
void CheckQuotientsNearIntegers(bc_dtype d) {
  std::mt19937 rng(99);
  std::uniform_real_distribution<C> mant(1, 2);
  std::uniform_int_distribution<int> ints(1, 1 << 20), exps(-20, 20), nudge(-3, 3);
  const int n = 4096;
  std::vector<double> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    C bb = std::ldexp(mant(rng), exps(rng)) * ((i & 1) ? -1 : 1);
    C aa = static_cast<C>(ints(rng)) * bb;  // an integral quotient, rounded
    for (int k = nudge(rng); k != 0; k += k > 0 ? -1 : 1)
      aa = std::nextafter(aa, k > 0 ? C(INFINITY) : C(-INFINITY));
    if (i % 3 == 0) aa = -aa;
    a[i] = aa;
    b[i] = bb;
  }
  const Tensor ta = ToTensor(MakeHost(d, {n}, a)), tb = ToTensor(MakeHost(d, {n}, b));
  for (bc_op op : {BC_FMOD, BC_REMAINDER, BC_DIV_FLOOR}) {
    bc_tensor* out = nullptr;
    ASSERT_EQ(bc_binary(op, ta.get(), tb.get(), &out), BC_OK) << bc_last_error();
    Tensor r(out);
    std::vector<C> got(n);
    ASSERT_EQ(bc_tensor_copy_to(out, got.data(), n * sizeof(C)), BC_OK);
    int bad = 0;
    for (int i = 0; i < n && bad < 5; ++i) {
      const C x = static_cast<C>(a[i]), y = static_cast<C>(b[i]);
      const C want = op == BC_FMOD ? std::fmod(x, y) : op == BC_REMAINDER ? Remainder(x, y) : FloorDivide(x, y);
      if (std::memcmp(&want, &got[i], sizeof(C)) != 0 && !(op == BC_REMAINDER && want == 0 && got[i] == 0)) {
        ++bad;
        ADD_FAILURE() << bc_op_name(op) << " " << ShortName(d) << "(" << x << ", " << y << ") = " << got[i]
                      << ", want " << want;
      }
    }
  }
}

TEST(KnownValues, QuotientsNearIntegers) {
  CheckQuotientsNearIntegers<double>(BC_FLOAT64);
  CheckQuotientsNearIntegers<float>(BC_FLOAT32);
}

TEST(KnownValues, NanHandlingOfMaxMin) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> a = {nan, 1, nan, 2};
  std::vector<double> b = {1, nan, nan, 3};
  std::vector<float> mx = RunOp<float>(BC_MAXIMUM, BC_FLOAT32, a, b);
  EXPECT_TRUE(std::isnan(mx[0]) && std::isnan(mx[1]) && std::isnan(mx[2]));
  EXPECT_EQ(mx[3], 3);
  std::vector<float> mn = RunOp<float>(BC_MINIMUM, BC_FLOAT32, a, b);
  EXPECT_TRUE(std::isnan(mn[0]) && std::isnan(mn[1]) && std::isnan(mn[2]));
  EXPECT_EQ(mn[3], 2);
  std::vector<float> fx = RunOp<float>(BC_FMAX, BC_FLOAT32, a, b);
  EXPECT_EQ(fx[0], 1);
  EXPECT_EQ(fx[1], 1);
  EXPECT_TRUE(std::isnan(fx[2]));
  EXPECT_EQ(fx[3], 3);
  std::vector<float> fn = RunOp<float>(BC_FMIN, BC_FLOAT32, a, b);
  EXPECT_EQ(fn[0], 1);
  EXPECT_EQ(fn[1], 1);
  EXPECT_EQ(fn[3], 2);
}

TEST(KnownValues, IntegerPowAndShifts) {
  using V = std::vector<int32_t>;
  EXPECT_EQ(RunOp<int32_t>(BC_POW, BC_INT32, {2, 1, -1, -1, 2, 0, 3, -2}, {10, -5, -3, -4, -1, -2, 0, 3}),
            (V{1024, 1, -1, 1, 0, 0, 1, -8}));
  EXPECT_EQ(RunOp<int32_t>(BC_POW, BC_INT32, {2}, {31}), (V{INT32_MIN}));  // wraps
  EXPECT_EQ(RunOp<int32_t>(BC_SHIFT_LEFT, BC_INT32, {1, 1, 1, 3, -1}, {3, 31, 32, -1, 4}),
            (V{8, INT32_MIN, 0, 0, -16}));
  EXPECT_EQ(RunOp<int32_t>(BC_SHIFT_RIGHT, BC_INT32, {-16, -16, 16, 16, -1}, {2, 40, 40, -1, 31}),
            (V{-4, -1, 0, 0, -1}));
  std::vector<uint8_t> u = RunOp<uint8_t>(BC_SHIFT_RIGHT, BC_UINT8, {200, 200, 200}, {1, 7, 8});
  EXPECT_EQ(u, (std::vector<uint8_t>{100, 1, 0}));
  std::vector<int8_t> s = RunOp<int8_t>(BC_SHIFT_LEFT, BC_INT8, {1, 3, 1}, {7, 6, 8});
  EXPECT_EQ(s, (std::vector<int8_t>{-128, -64, 0}));
}

TEST(KnownValues, WrappingIntegerArithmetic) {
  EXPECT_EQ(RunOp<int32_t>(BC_ADD, BC_INT32, {2147483647}, {1}), (std::vector<int32_t>{INT32_MIN}));
  EXPECT_EQ(RunOp<uint8_t>(BC_SUB, BC_UINT8, {0}, {1}), (std::vector<uint8_t>{255}));
  EXPECT_EQ(RunOp<int8_t>(BC_MUL, BC_INT8, {16}, {16}), (std::vector<int8_t>{0}));
  EXPECT_EQ(RunOp<int64_t>(BC_MUL, BC_INT64, {-9.223372036854775808e18}, {-1}), (std::vector<int64_t>{INT64_MIN}));
}

TEST(KnownValues, BoolArithmetic) {
  std::vector<uint8_t> add = RunOp<uint8_t>(BC_ADD, BC_BOOL, {0, 0, 1, 1}, {0, 1, 0, 1});
  EXPECT_EQ(add, (std::vector<uint8_t>{0, 1, 1, 1}));
  std::vector<uint8_t> mul = RunOp<uint8_t>(BC_MUL, BC_BOOL, {0, 0, 1, 1}, {0, 1, 0, 1});
  EXPECT_EQ(mul, (std::vector<uint8_t>{0, 0, 0, 1}));
  bc_dtype dt;
  std::vector<float> div = RunOp<float>(BC_DIV, BC_BOOL, {1, 0}, {1, 1}, &dt);
  EXPECT_EQ(dt, BC_FLOAT32);
  EXPECT_EQ(div, (std::vector<float>{1, 0}));
}

TEST(KnownValues, SubWithBoolIsRefused) {
  Tensor t = ToTensor(MakeHost(BC_BOOL, {2}, {1, 0}));
  Tensor i = ToTensor(MakeHost(BC_INT32, {2}, {1, 0}));
  bc_tensor* out = kPoison;
  EXPECT_TRUE(Fails(bc_binary(BC_SUB, t.get(), t.get(), &out), BC_ERR_DTYPE,
                    "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
                    "`^` or `logical_xor()` operator instead."));
  EXPECT_EQ(out, nullptr);
  out = kPoison;
  EXPECT_TRUE(Fails(bc_binary(BC_SUB, i.get(), t.get(), &out), BC_ERR_DTYPE,
                    "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                    "trying to invert a mask, use the `~` or `logical_not()` operator instead."));
  EXPECT_EQ(out, nullptr);
  out = kPoison;
  EXPECT_TRUE(Fails(bc_binary(BC_SUB, t.get(), i.get(), &out), BC_ERR_DTYPE,
                    "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                    "trying to invert a mask, use the `~` or `logical_not()` operator instead."));
}

TEST(KnownValues, HalfRoundsOnceFromFloat) {
  // 1 + 2^-11 is a tie between 1 and 1 + 2^-10 in binary16: even -> 1.
  std::vector<uint16_t> h = RunOp<uint16_t>(BC_ADD, BC_FLOAT16, {1.0, 1.0, 65504, 2048}, {0.00048828125, 0.00146484375, 16, 1});
  EXPECT_EQ(h[0], 0x3c00);  // 1.0
  EXPECT_EQ(h[1], 0x3c02);  // 1 + 3*2^-11 -> 1 + 2^-9 (ties to even)
  EXPECT_EQ(h[2], 0x7c00);  // 65520 rounds to inf
  EXPECT_EQ(h[3], 0x6800);  // 2049 -> 2048
  std::vector<uint16_t> bf = RunOp<uint16_t>(BC_MUL, BC_BFLOAT16, {3.0, 1.0078125}, {1.0 / 3.0, 1.0078125});
  EXPECT_EQ(bf[0], 0x3f80);  // 3 * 0.333984375 = 1.001953125 -> 1.0
  EXPECT_EQ(bf[1], 0x3f82);  // (1 + 2^-7)^2 = 1 + 2^-6 + 2^-14 -> 1 + 2^-6
}

// ---------------------------------------------------------------------------
// alpha forms

TEST(Alpha, AddSubScaleMatchesReference) {
  std::mt19937 rng(77);
  const double alphas[] = {2.5, -1.0, 0.0, 3.0};
  for (bc_dtype d : {BC_FLOAT16, BC_BFLOAT16, BC_FLOAT32, BC_FLOAT64, BC_INT8, BC_INT32, BC_INT64, BC_UINT8}) {
    for (double alpha : alphas) {
      if (!IsFloat(d) && alpha != std::floor(alpha)) continue;
      if (d == BC_UINT8 && alpha < 0) continue;  // PyTorch refuses to convert -1 to uint8
      for (bc_op op : {BC_ADD, BC_SUB}) {
        Host a = RandomHost(d, {4, 5}, rng), b = RandomHost(d, {5}, rng);
        Tensor ta = ToTensor(a), tb = ToTensor(b);
        Host want = RefBinary(op, a, b, alpha);
        if (d == BC_FLOAT16 || d == BC_BFLOAT16) {
          // Rows of 5: PyTorch's scalar loop, alpha*b rounded to the half
          // type before the add (docs/numerics.md); RefBinary is its vector
          // loop, one rounding.
          const double al = RoundTo(d, alpha == 0 ? 0.0 : op == BC_SUB ? -alpha : alpha);
          for (size_t i = 0; i < want.v.size(); ++i)
            want.v[i] = FVal(RoundTo(d, static_cast<float>(a.v[i].f) +
                                            static_cast<float>(RoundTo(d, al * b.v[i % 5].f))));
        }
        bc_tensor* out = nullptr;
        ASSERT_EQ(bc_binary_alpha(op, ta.get(), tb.get(), alpha, &out), BC_OK) << bc_last_error();
        Tensor r(out);
        EXPECT_TRUE(SameHost(FromTensor(out), want)) << ShortName(d) << " alpha " << alpha << " " << OpName(op);
        bc_tensor* o = nullptr;
        ASSERT_EQ(bc_tensor_zeros(d, want.shape.data(), 2, &o), BC_OK);
        Tensor ho(o);
        ASSERT_EQ(bc_binary_alpha_out(op, ta.get(), tb.get(), alpha, o), BC_OK);
        EXPECT_TRUE(SameHost(FromTensor(o), want));
        ASSERT_EQ(bc_binary_alpha_(op, ta.get(), tb.get(), alpha), BC_OK);
        EXPECT_TRUE(SameHost(FromTensor(ta.get()), want));
      }
    }
  }
  // bool: alpha 0 or 1.
  Host a = MakeHost(BC_BOOL, {4}, {0, 0, 1, 1}), b = MakeHost(BC_BOOL, {4}, {0, 1, 0, 1});
  Tensor ta = ToTensor(a), tb = ToTensor(b);
  bc_tensor* out = nullptr;
  ASSERT_EQ(bc_binary_alpha(BC_ADD, ta.get(), tb.get(), 0.0, &out), BC_OK) << bc_last_error();
  Tensor r0(out);
  EXPECT_TRUE(SameHost(FromTensor(out), a));
}

TEST(Alpha, RefusedCases) {
  Tensor i = ToTensor(Iota(BC_INT32, {3})), f = ToTensor(Iota(BC_FLOAT32, {3}));
  Tensor b = ToTensor(MakeHost(BC_BOOL, {3}, {1, 0, 1}));
  bc_tensor* out = kPoison;
  EXPECT_TRUE(Fails(bc_binary_alpha(BC_ADD, i.get(), i.get(), 0.5, &out), BC_ERR_INVALID_ARGUMENT,
                    "For integral input tensors, argument alpha must not be a floating point number."));
  EXPECT_EQ(out, nullptr);
  // Integral alphas other than 0 and 1 are fine for bool (PyTorch 2.x: alpha
  // is converted to bool, nonzero is true): add(b, b, alpha=2) is b | b.
  out = kPoison;
  ASSERT_EQ(bc_binary_alpha(BC_ADD, b.get(), b.get(), 2.0, &out), BC_OK) << bc_last_error();
  EXPECT_TRUE(SameHost(FromTensor(out), MakeHost(BC_BOOL, {3}, {1, 0, 1})));
  bc_tensor_free(out);
  Tensor nb = ToTensor(MakeHost(BC_BOOL, {3}, {0, 1, 0}));
  out = kPoison;
  ASSERT_EQ(bc_binary_alpha(BC_ADD, b.get(), nb.get(), -1.0, &out), BC_OK) << bc_last_error();
  EXPECT_TRUE(SameHost(FromTensor(out), MakeHost(BC_BOOL, {3}, {1, 1, 1})));
  bc_tensor_free(out);
  out = kPoison;
  EXPECT_TRUE(Fails(bc_binary_alpha(BC_MUL, f.get(), f.get(), 2.0, &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
  std::vector<unsigned char> before = RawBytes(i.get());
  EXPECT_TRUE(Fails(bc_binary_alpha_(BC_SUB, i.get(), i.get(), 1.5), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(RawBytes(i.get()), before);
}

}  // namespace
}  // namespace bct

// ---------------------------------------------------------------------------
// Outputs above the streaming threshold (bytes moved: at most 18 MiB on one
// thread, 36 MiB on two; every case here moves more on one thread, two of
// them on two; some stay below 32 MiB, where the inputs are also fetched
// ahead): the non-temporal store paths, with their alignment peel and tails,
// against plain loops, on one thread and on two (chunk boundaries; and the
// plain stores for the cases below the threshold). The output starts 4 bytes
// past an alignment boundary and is followed by guard bytes that must stay
// untouched.

namespace bct {
namespace {

constexpr int64_t kCols = 4099;           // rows are not a multiple of any vector
constexpr int64_t kBigBytes = 17 << 20;   // per output, above the threshold

struct Guarded {
  std::vector<unsigned char> raw;
  unsigned char* p;
  size_t n;
  explicit Guarded(size_t bytes) : raw(bytes + 256, 0xA5), p(raw.data() + 68), n(bytes) {}
  bool GuardsIntact() const {
    for (size_t i = 0; i < 68; ++i)
      if (raw[i] != 0xA5) return false;
    for (size_t i = 68 + n; i < raw.size(); ++i)
      if (raw[i] != 0xA5) return false;
    return true;
  }
};

// Bit-identical, or both NaN.
bool SameFloatBits(float got, float want) {
  if (std::isnan(want)) return std::isnan(got);
  return std::memcmp(&got, &want, 4) == 0;
}

Tensor Wrap(bc_dtype d, const Shape& s, void* p) {
  bc_tensor* t = nullptr;
  EXPECT_EQ(bc_tensor_wrap(d, s.data(), nullptr, s.size(), p, NumelOf(s) * ElemSize(d), nullptr,
                           nullptr, &t),
            BC_OK)
      << bc_last_error();
  return Tensor(t);
}

std::vector<float> RandomFloats(int64_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-4, 4);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = u(rng);
  if (n > 3) {
    v[1] = std::numeric_limits<float>::quiet_NaN();
    v[2] = -0.0f;
  }
  return v;
}

class Streaming : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { ASSERT_EQ(bc_set_num_threads(GetParam()), BC_OK); }
  void TearDown() override { EXPECT_EQ(bc_set_num_threads(0), BC_OK); }
};

}  // namespace

TEST_P(Streaming, LargeOutputsMatchPlainLoops) {
  std::mt19937 rng(99);
  const int64_t rows = kBigBytes / 4 / kCols + 1;
  const int64_t n = rows * kCols;
  std::vector<float> a = RandomFloats(n, rng), row = RandomFloats(kCols, rng),
                     col = RandomFloats(rows, rng);
  Tensor ta = Wrap(BC_FLOAT32, {rows, kCols}, a.data());
  Tensor trow = Wrap(BC_FLOAT32, {1, kCols}, row.data());
  Tensor tcol = Wrap(BC_FLOAT32, {rows, 1}, col.data());
  auto at = [&](int64_t k) { return std::make_tuple(a[k], row[k % kCols], col[k / kCols]); };

  {  // (R, C) + (1, C)
    Guarded g(n * 4);
    Tensor o = Wrap(BC_FLOAT32, {rows, kCols}, g.p);
    ASSERT_EQ(bc_binary_out(BC_ADD, ta.get(), trow.get(), o.get()), BC_OK) << bc_last_error();
    const float* got = reinterpret_cast<const float*>(g.p);
    int64_t bad = 0;
    for (int64_t k = 0; k < n; ++k) {
      auto [x, r, c] = at(k);
      (void)c;
      bad += !SameFloatBits(got[k], x + r);
    }
    EXPECT_EQ(bad, 0);
    EXPECT_TRUE(g.GuardsIntact());
  }
  {  // (R, C) < (R, 1): bytes out
    const int64_t r2 = kBigBytes / kCols + 1, n2 = r2 * kCols;  // 17 MiB of bools
    std::vector<float> big = RandomFloats(n2, rng);
    std::vector<float> c2 = RandomFloats(r2, rng);
    Tensor tbig = Wrap(BC_FLOAT32, {r2, kCols}, big.data()), tc2 = Wrap(BC_FLOAT32, {r2, 1}, c2.data());
    Guarded g(n2);
    Tensor o = Wrap(BC_BOOL, {r2, kCols}, g.p);
    ASSERT_EQ(bc_binary_out(BC_LT, tbig.get(), tc2.get(), o.get()), BC_OK) << bc_last_error();
    int64_t bad = 0;
    for (int64_t k = 0; k < n2; ++k) bad += g.p[k] != static_cast<unsigned char>(big[k] < c2[k / kCols]);
    EXPECT_EQ(bad, 0);
    EXPECT_TRUE(g.GuardsIntact());
  }
  {  // where((R, 1), (R, C), (1, C)), clamp and addcmul with the same operands
    std::vector<unsigned char> cond(static_cast<size_t>(rows));
    for (auto& c : cond) c = static_cast<unsigned char>(rng() & 1);
    Tensor tcond = Wrap(BC_BOOL, {rows, 1}, cond.data());
    Guarded gw(n * 4), gc(n * 4), gm(n * 4);
    Tensor ow = Wrap(BC_FLOAT32, {rows, kCols}, gw.p), oc = Wrap(BC_FLOAT32, {rows, kCols}, gc.p),
           om = Wrap(BC_FLOAT32, {rows, kCols}, gm.p);
    ASSERT_EQ(bc_where_out(tcond.get(), ta.get(), trow.get(), ow.get()), BC_OK) << bc_last_error();
    ASSERT_EQ(bc_clamp_out(ta.get(), tcol.get(), trow.get(), oc.get()), BC_OK) << bc_last_error();
    ASSERT_EQ(bc_addcmul_out(ta.get(), tcol.get(), trow.get(), 0.5, om.get()), BC_OK) << bc_last_error();
    const float* w = reinterpret_cast<const float*>(gw.p);
    const float* cl = reinterpret_cast<const float*>(gc.p);
    const float* m = reinterpret_cast<const float*>(gm.p);
    int64_t bad_w = 0, bad_c = 0, bad_m = 0;
    for (int64_t k = 0; k < n; ++k) {
      auto [x, r, c] = at(k);
      bad_w += !SameFloatBits(w[k], cond[k / kCols] ? x : r);
      float want_c;
      if (std::isnan(x) || std::isnan(r) || std::isnan(c)) {
        want_c = std::numeric_limits<float>::quiet_NaN();
      } else {
        want_c = x < c ? c : x;           // max(x, lo), x kept on ties
        want_c = r < want_c ? r : want_c;  // min(., hi)
      }
      bad_c += !SameFloatBits(cl[k], want_c);
      // PyTorch 2.x: (value * t1) rounded, then * t2 + self fused.
      const float prod = 0.5f * c;
      bad_m += !SameFloatBits(m[k], std::fma(prod, r, x));
    }
    EXPECT_EQ(bad_w, 0);
    EXPECT_EQ(bad_c, 0);
    EXPECT_EQ(bad_m, 0);
    EXPECT_TRUE(gw.GuardsIntact() && gc.GuardsIntact() && gm.GuardsIntact());
  }
  {  // int16 (R, C) + (R, C), 8.5 MiB each: 25.5 MiB moved, inside the band
     // where streaming ops also fetch their inputs ahead (below 32 MiB)
    const int64_t r4 = kBigBytes / 4 / kCols + 1, n4 = r4 * kCols;
    std::vector<int16_t> x(static_cast<size_t>(n4)), y(static_cast<size_t>(n4));
    for (auto& v : x) v = static_cast<int16_t>(rng());
    for (auto& v : y) v = static_cast<int16_t>(rng());
    Tensor tx = Wrap(BC_INT16, {r4, kCols}, x.data()), ty = Wrap(BC_INT16, {r4, kCols}, y.data());
    Guarded g(n4 * 2);
    Tensor o = Wrap(BC_INT16, {r4, kCols}, g.p);
    ASSERT_EQ(bc_binary_out(BC_ADD, tx.get(), ty.get(), o.get()), BC_OK) << bc_last_error();
    const int16_t* got = reinterpret_cast<const int16_t*>(g.p);
    int64_t bad = 0;
    for (int64_t k = 0; k < n4; ++k)
      bad += got[k] != static_cast<int16_t>(static_cast<uint16_t>(x[k]) + static_cast<uint16_t>(y[k]));
    EXPECT_EQ(bad, 0);
    EXPECT_TRUE(g.GuardsIntact());
  }
  {  // 64-bit comparisons into bools: 8 bytes out per vector, too few to
     // stream, so those loops only fetch ahead: int64 same shape, 17 MiB
     // per input; float64 against a row, 25.5 MiB, above the threshold on
     // any thread count)
    const int64_t r5 = kBigBytes / 8 / kCols + 1, n5 = r5 * kCols;
    const int64_t r6 = 3 * kBigBytes / 2 / 8 / kCols + 1, n6 = r6 * kCols;
    std::vector<int64_t> x(static_cast<size_t>(n5)), y(static_cast<size_t>(n5));
    for (auto& v : x) v = static_cast<int64_t>(rng() % 7);
    for (auto& v : y) v = static_cast<int64_t>(rng() % 7);
    std::vector<double> fx(static_cast<size_t>(n6)), fr(static_cast<size_t>(kCols));
    for (int64_t k = 0; k < n6; ++k) fx[k] = static_cast<double>(a[k % n]);
    for (int64_t k = 0; k < kCols; ++k) fr[k] = static_cast<double>(row[k]);
    Tensor tx = Wrap(BC_INT64, {r5, kCols}, x.data()), ty = Wrap(BC_INT64, {r5, kCols}, y.data());
    Tensor tfx = Wrap(BC_FLOAT64, {r6, kCols}, fx.data()), tfr = Wrap(BC_FLOAT64, {kCols}, fr.data());
    Guarded gi(n5), gf(n6);
    Tensor oi = Wrap(BC_BOOL, {r5, kCols}, gi.p), of = Wrap(BC_BOOL, {r6, kCols}, gf.p);
    ASSERT_EQ(bc_binary_out(BC_GT, tx.get(), ty.get(), oi.get()), BC_OK) << bc_last_error();
    ASSERT_EQ(bc_binary_out(BC_LE, tfx.get(), tfr.get(), of.get()), BC_OK) << bc_last_error();
    int64_t bad_i = 0, bad_f = 0;
    for (int64_t k = 0; k < n5; ++k) bad_i += gi.p[k] != static_cast<unsigned char>(x[k] > y[k]);
    for (int64_t k = 0; k < n6; ++k) bad_f += gf.p[k] != static_cast<unsigned char>(fx[k] <= fr[k % kCols]);
    EXPECT_EQ(bad_i, 0);
    EXPECT_EQ(bad_f, 0);
    EXPECT_TRUE(gi.GuardsIntact() && gf.GuardsIntact());
  }
  {  // bfloat16 (R, C) + (1, C): rounded once from float32
    const int64_t r3 = kBigBytes / 2 / kCols + 1, n3 = r3 * kCols;
    std::vector<uint16_t> x(static_cast<size_t>(n3)), y(static_cast<size_t>(kCols));
    std::vector<float> fx = RandomFloats(n3, rng), fy = RandomFloats(kCols, rng);
    for (int64_t k = 0; k < n3; ++k) x[k] = FloatToBf16Bits(fx[k]);
    for (int64_t k = 0; k < kCols; ++k) y[k] = FloatToBf16Bits(fy[k]);
    Tensor tx = Wrap(BC_BFLOAT16, {r3, kCols}, x.data()), ty = Wrap(BC_BFLOAT16, {kCols}, y.data());
    Guarded g(n3 * 2);
    Tensor o = Wrap(BC_BFLOAT16, {r3, kCols}, g.p);
    ASSERT_EQ(bc_binary_out(BC_ADD, tx.get(), ty.get(), o.get()), BC_OK) << bc_last_error();
    const uint16_t* got = reinterpret_cast<const uint16_t*>(g.p);
    int64_t bad = 0;
    for (int64_t k = 0; k < n3; ++k) {
      const float sum = Bf16BitsToFloat(x[k]) + Bf16BitsToFloat(y[k % kCols]);
      const uint16_t want = FloatToBf16Bits(sum);
      bad += std::isnan(sum) ? !std::isnan(Bf16BitsToFloat(got[k])) : got[k] != want;
    }
    EXPECT_EQ(bad, 0);
    EXPECT_TRUE(g.GuardsIntact());
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, Streaming, ::testing::Values(1, 2));

}  // namespace bct
