// bc_sum_to_shape: the gradient of broadcasting (PyTorch's sum_to_size),
// against a naive double/int64 accumulation.
#include <gtest/gtest.h>

#include "test_util.h"

namespace bct {
namespace {

// Whether PyTorch's sum_to reduces anything: the empty target (a full sum),
// a leading dim, or a size-1 target dim over a larger one. Without a
// reduction the tensor comes back in its own dtype (PyTorch 2.x:
// ones(3, dtype=int32).sum_to_size(3) is int32); with one, integers and bool
// sum into int64.
bool Reduces(const Shape& in, const Shape& target) {
  bool r = target.empty() || target.size() < in.size();
  const size_t lead = in.size() - std::min(in.size(), target.size());
  for (size_t i = 0; i < target.size() && i + lead < in.size(); ++i)
    r |= target[i] == 1 && in[i + lead] != 1;
  return r;
}

// Naive reference: every element of `in` adds into the target index its
// broadcast maps to. Floats accumulate in double and round once.
Host RefSumTo(const Host& in, const Shape& target) {
  Host r;
  r.shape = target;
  r.dtype = IsFloat(in.dtype) || !Reduces(in.shape, target) ? in.dtype : BC_INT64;
  std::vector<double> facc(static_cast<size_t>(NumelOf(target)), 0.0);
  std::vector<int64_t> iacc(facc.size(), 0);
  ForEachIndex(in.shape, [&](int64_t k, const Shape& idx) {
    int64_t t = SourceIndex(target, in.shape, idx);
    if (IsFloat(in.dtype)) {
      facc[t] += in.v[k].f;
    } else {
      iacc[t] = static_cast<int64_t>(static_cast<uint64_t>(iacc[t]) + static_cast<uint64_t>(in.v[k].i));
    }
  });
  for (size_t k = 0; k < facc.size(); ++k)
    r.v.push_back(IsFloat(in.dtype) ? FVal(RoundTo(in.dtype, facc[k])) : IVal(iacc[k]));
  return r;
}

Tensor SumTo(const bc_tensor* t, const Shape& s, bc_status want = BC_OK) {
  bc_tensor* out = kPoison;
  bc_status st = bc_sum_to_shape(t, s.data(), s.size(), &out);
  EXPECT_EQ(st, want) << bc_last_error();
  if (st != BC_OK) {
    EXPECT_EQ(out, nullptr);
    return Tensor();
  }
  return Tensor(out);
}

struct Case {
  Shape in, target;
};
const Case kCases[] = {
    {{2, 3, 4}, {3, 1}},    {{2, 3, 4}, {2, 3, 4}}, {{2, 3, 4}, {}},       {{2, 3, 4}, {1, 1, 1}},
    {{2, 3, 4}, {4}},       {{2, 3, 4}, {2, 1, 4}}, {{5, 1, 7}, {1, 1}},   {{0, 3}, {1, 3}},
    {{0, 3}, {}},           {{4, 0}, {4, 1}},       {{}, {}},              {{6}, {1}},
    {{3, 200}, {200}},      {{300, 7}, {300, 1}},
};

TEST(SumToShape, EveryDtypeExactValues) {
  std::mt19937 rng(21);
  for (bc_dtype d : kAllDtypes) {
    for (const Case& c : kCases) {
      // Small integers (and halves) sum exactly in any accumulation order.
      Host in;
      in.dtype = d;
      in.shape = c.in;
      for (int64_t k = 0; k < NumelOf(c.in); ++k) {
        if (d == BC_BOOL) in.v.push_back(IVal(std::uniform_int_distribution<int>(0, 1)(rng)));
        else if (IsFloat(d)) in.v.push_back(FVal(std::uniform_int_distribution<int>(-8, 8)(rng) / 2.0));
        else in.v.push_back(IVal(std::uniform_int_distribution<int>(d == BC_UINT8 ? 0 : -100, 100)(rng)));
      }
      Tensor t = ToStridedTensor(in, rng);
      Tensor r = SumTo(t.get(), c.target);
      ASSERT_TRUE(r) << ShortName(d) << " " << ShapeStr(c.in) << " -> " << ShapeStr(c.target);
      EXPECT_TRUE(SameHost(FromTensor(r.get()), RefSumTo(in, c.target)))
          << ShortName(d) << " " << ShapeStr(c.in) << " -> " << ShapeStr(c.target);
    }
  }
}

TEST(SumToShape, IntegersWidenToInt64) {
  Host in = MakeHost(BC_INT8, {4, 2}, {127, 127, 127, 127, -128, -128, -128, -128});
  Tensor t = ToTensor(in);
  Tensor r = SumTo(t.get(), {1, 2});
  EXPECT_TRUE(SameHost(FromTensor(r.get()), MakeHost(BC_INT64, {1, 2}, {-2, -2})));
  Host u = MakeHost(BC_UINT8, {3}, {255, 255, 255});
  Tensor tu = ToTensor(u);
  Tensor ru = SumTo(tu.get(), {});
  EXPECT_TRUE(SameHost(FromTensor(ru.get()), MakeHost(BC_INT64, {}, {765})));
  Host b = MakeHost(BC_BOOL, {2, 3}, {1, 1, 0, 1, 0, 0});
  Tensor tb = ToTensor(b);
  Tensor rb = SumTo(tb.get(), {3});
  EXPECT_TRUE(SameHost(FromTensor(rb.get()), MakeHost(BC_INT64, {3}, {2, 1, 0})));
}

TEST(SumToShape, FloatsAccumulateInDoubleRoundOnce) {
  // float32 accumulation would lose the small terms: 2^24 + 1 + 1 + ... stays 2^24.
  std::vector<double> vals(1001, 1.0);
  vals[0] = 16777216.0;
  Tensor t = ToTensor(MakeHost(BC_FLOAT32, {1001}, vals));
  Tensor r = SumTo(t.get(), {1});
  EXPECT_EQ(FromTensor(r.get()).v[0].f, 16777216.0 + 1000.0);
  // float16: 2048 + 1 + 1 is 2050 when accumulated wide, 2048 step by step in half.
  Tensor h = ToTensor(MakeHost(BC_FLOAT16, {3}, {2048, 1, 1}));
  Tensor rh = SumTo(h.get(), {});
  EXPECT_EQ(bc_tensor_dtype(rh.get()), BC_FLOAT16);
  EXPECT_EQ(FromTensor(rh.get()).v[0].f, 2050.0);
  Tensor bf = ToTensor(MakeHost(BC_BFLOAT16, {5}, {256, 1, 1, 1, 1}));
  Tensor rbf = SumTo(bf.get(), {1});
  EXPECT_EQ(FromTensor(rbf.get()).v[0].f, 260.0);
}

TEST(SumToShape, RandomFloatsCloseToReference) {
  std::mt19937 rng(22);
  for (bc_dtype d : {BC_FLOAT32, BC_FLOAT64, BC_FLOAT16}) {
    Host in = RandomHost(d, {40, 3, 50}, rng, false);
    Tensor t = ToTensor(in);
    for (const Shape& target : {Shape{3, 1}, Shape{40, 1, 1}, Shape{}, Shape{50}}) {
      Tensor r = SumTo(t.get(), target);
      ASSERT_TRUE(r);
      // Double accumulation differs from ours only in order: at most 1 ulp after rounding.
      EXPECT_TRUE(SameHost(FromTensor(r.get()), RefSumTo(in, target), Cmp::kUlp, d == BC_FLOAT64 ? 1024 : 1))
          << ShortName(d) << " -> " << ShapeStr(target);
    }
  }
}

TEST(SumToShape, ExpandedInputIsTheGradientOfBroadcast) {
  // Summing an expanded view back to the original shape multiplies by the repeat count.
  Host h = MakeHost(BC_FLOAT64, {3, 1}, {1.5, -2, 4});
  Tensor t = ToTensor(h);
  int64_t big[] = {5, 3, 7};
  bc_tensor* e = nullptr;
  ASSERT_EQ(bc_expand(t.get(), big, 3, &e), BC_OK);
  Tensor he(e);
  Tensor r = SumTo(e, {3, 1});
  EXPECT_TRUE(SameHost(FromTensor(r.get()), MakeHost(BC_FLOAT64, {3, 1}, {52.5, -70, 140})));
}

TEST(SumToShape, TargetMustExpandToInput) {
  Tensor t = ToTensor(Iota(BC_FLOAT32, {2, 3}));
  const Shape bad[] = {{3, 2}, {2}, {4, 3}, {1, 2, 3}, {2, 0}};
  for (const Shape& s : bad) {
    bc_tensor* out = kPoison;
    // PyTorch's sum_to_size text.
    EXPECT_TRUE(Fails(bc_sum_to_shape(t.get(), s.data(), s.size(), &out), BC_ERR_SHAPE_MISMATCH,
                      "size {" + ShapeStr(s) + "} is not expandable to size {[2, 3]}."))
        << ShapeStr(s);
    EXPECT_EQ(out, nullptr);
  }
  // A 0-dim tensor only sums to 0-dim.
  Tensor z = ToTensor(MakeHost(BC_FLOAT32, {}, {2}));
  int64_t one[] = {1};
  bc_tensor* zo = kPoison;
  EXPECT_TRUE(Fails(bc_sum_to_shape(z.get(), one, 1, &zo), BC_ERR_SHAPE_MISMATCH,
                    "size {[1]} is not expandable to size {[]}."));
  EXPECT_EQ(zo, nullptr);
  // A negative size is not expandable either (PyTorch 2.x's text).
  int64_t neg[] = {-1, 3};
  bc_tensor* out = kPoison;
  EXPECT_TRUE(Fails(bc_sum_to_shape(t.get(), neg, 2, &out), BC_ERR_SHAPE_MISMATCH,
                    "size {[-1, 3]} is not expandable to size {[2, 3]}."));
  EXPECT_EQ(out, nullptr);
  EXPECT_TRUE(Fails(bc_sum_to_shape(t.get(), nullptr, 2, &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Fails(bc_sum_to_shape(t.get(), neg, 2, nullptr), BC_ERR_INVALID_ARGUMENT));
}

}  // namespace
}  // namespace bct

// An empty input whose reduced dims multiply past int64 (fuzz_shapes found
// the overflow under UBSan): nothing is reduced, the result is empty.
TEST(SumToShape, EmptyInputWithHugeReducedDims) {
  const int64_t shape[3] = {25, int64_t{1} << 62, 0};
  bc_tensor* x = nullptr;
  ASSERT_EQ(bc_tensor_empty(BC_FLOAT32, shape, 3, &x), BC_OK) << bc_last_error();
  const int64_t target[1] = {0};
  bc_tensor* out = nullptr;
  ASSERT_EQ(bc_sum_to_shape(x, target, 1, &out), BC_OK) << bc_last_error();
  EXPECT_EQ(bc_tensor_numel(out), 0);
  bc_tensor_free(out);
  const int64_t dims[2] = {0, 1};
  ASSERT_EQ(bc_reduce(BC_SUM, x, dims, 2, 0, &out), BC_OK) << bc_last_error();
  EXPECT_EQ(bc_tensor_ndim(out), 1u);
  EXPECT_EQ(bc_tensor_numel(out), 0);
  bc_tensor_free(out);
  bc_tensor_free(x);
}

// Kept dims whose input offsets pass int64 while the reduced dims hold no
// element (shape (3, 2^62, 0): the first dim's stride is 2^62; fuzz_shapes
// found the overflow under UBSan): every output is the empty sum, 0.
TEST(SumToShape, EmptyReductionWithHugeKeptStrides) {
  const int64_t shape[3] = {3, int64_t{1} << 62, 0};
  bc_tensor* x = nullptr;
  ASSERT_EQ(bc_tensor_empty(BC_FLOAT32, shape, 3, &x), BC_OK) << bc_last_error();
  const int64_t target[3] = {3, 1, 1};
  bc_tensor* out = nullptr;
  ASSERT_EQ(bc_sum_to_shape(x, target, 3, &out), BC_OK) << bc_last_error();
  ASSERT_EQ(bc_tensor_numel(out), 3);
  const float* v = static_cast<const float*>(bc_tensor_data(out));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(v[i], 0.0f);
  bc_tensor_free(out);
  const int64_t dims[2] = {1, 2};
  ASSERT_EQ(bc_reduce(BC_SUM, x, dims, 2, 0, &out), BC_OK) << bc_last_error();
  ASSERT_EQ(bc_tensor_numel(out), 3);
  v = static_cast<const float*>(bc_tensor_data(out));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(v[i], 0.0f);
  bc_tensor_free(out);
  bc_tensor_free(x);
}
