// Shapes: bc_broadcast_shapes (2-ary and N-ary), bc_expand,
// bc_broadcast_tensors, and every example of the broadcasting notes, with
// values checked through real ops.
#include <gtest/gtest.h>

#include <thread>

#include "test_util.h"

namespace bct {
namespace {

// Two-shape broadcast through the library; false (with the error kept) on failure.
bc_status Broadcast2(const Shape& a, const Shape& b, Shape* out) {
  int64_t buf[BC_MAX_DIMS + 1];
  size_t n = 12345;
  bc_status st = bc_broadcast_shapes(a.data(), a.size(), b.data(), b.size(), buf, &n);
  if (st == BC_OK) out->assign(buf, buf + n);
  return st;
}

bc_status BroadcastN(const std::vector<Shape>& shapes, Shape* out) {
  std::vector<const int64_t*> ptrs;
  std::vector<size_t> ndims;
  for (const Shape& s : shapes) {
    ptrs.push_back(s.data());
    ndims.push_back(s.size());
  }
  int64_t buf[BC_MAX_DIMS + 1];
  size_t n = 12345;
  bc_status st = bc_broadcast_shapes_n(ptrs.data(), ndims.data(), shapes.size(), buf, &n);
  if (st == BC_OK) out->assign(buf, buf + n);
  return st;
}

const char kMismatch2_3[] =
    "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1";

// Checks a + b through bc_binary against the naive reference.
void ExpectAddMatches(const Shape& sa, const Shape& sb, const Shape& want_shape) {
  std::mt19937 rng(42);
  Host a = RandomHost(BC_FLOAT32, sa, rng, false);
  Host b = RandomHost(BC_FLOAT32, sb, rng, false);
  Tensor ta = ToTensor(a), tb = ToTensor(b);
  bc_tensor* out = nullptr;
  ASSERT_EQ(bc_binary(BC_ADD, ta.get(), tb.get(), &out), BC_OK) << bc_last_error();
  Tensor r(out);
  EXPECT_EQ(ShapeOf(r.get()), want_shape);
  EXPECT_TRUE(SameHost(FromTensor(r.get()), RefBinary(BC_ADD, a, b)));
}

void ExpectAddFails(const Shape& sa, const Shape& sb, const std::string& msg) {
  Tensor ta = ToTensor(Iota(BC_FLOAT32, sa)), tb = ToTensor(Iota(BC_FLOAT32, sb));
  bc_tensor* out = kPoison;
  EXPECT_TRUE(Fails(bc_binary(BC_ADD, ta.get(), tb.get(), &out), BC_ERR_NOT_BROADCASTABLE, msg));
  EXPECT_EQ(out, nullptr);
}

// ---------------------------------------------------------------------------
// The notes' examples, verbatim.

TEST(ReferenceExamples, SameShapesAlwaysBroadcast) {
  // x=torch.empty(5,7,3); y=torch.empty(5,7,3)
  Shape r;
  ASSERT_EQ(Broadcast2({5, 7, 3}, {5, 7, 3}, &r), BC_OK);
  EXPECT_EQ(r, (Shape{5, 7, 3}));
  ExpectAddMatches({5, 7, 3}, {5, 7, 3}, {5, 7, 3});
}

TEST(ReferenceExamples, EmptyOneDimVersusTwoByTwo) {
  // x=torch.empty((0,)); y=torch.empty(2,2): not broadcastable.
  Shape r;
  EXPECT_TRUE(Fails(Broadcast2({0}, {2, 2}, &r), BC_ERR_NOT_BROADCASTABLE,
                    "The size of tensor a (0) must match the size of tensor b (2) at non-singleton "
                    "dimension 1"));
  bc_error_detail d = LastDetail();
  EXPECT_EQ(d.dim, 1);
  EXPECT_EQ(d.size_a, 0);
  EXPECT_EQ(d.size_b, 2);
  ExpectAddFails({0}, {2, 2},
                 "The size of tensor a (0) must match the size of tensor b (2) at non-singleton "
                 "dimension 1");
}

TEST(ReferenceExamples, TrailingDimensionsLineUp) {
  // x=torch.empty(5,3,4,1); y=torch.empty(3,1,1)
  Shape r;
  ASSERT_EQ(Broadcast2({5, 3, 4, 1}, {3, 1, 1}, &r), BC_OK);
  EXPECT_EQ(r, (Shape{5, 3, 4, 1}));
  ExpectAddMatches({5, 3, 4, 1}, {3, 1, 1}, {5, 3, 4, 1});
}

TEST(ReferenceExamples, ThirdTrailingDimensionMismatch) {
  // x=torch.empty(5,2,4,1); y=torch.empty(3,1,1)
  Shape r;
  EXPECT_TRUE(Fails(Broadcast2({5, 2, 4, 1}, {3, 1, 1}, &r), BC_ERR_NOT_BROADCASTABLE, kMismatch2_3));
  bc_error_detail d = LastDetail();
  EXPECT_EQ(d.code, BC_ERR_NOT_BROADCASTABLE);
  EXPECT_EQ(d.dim, 1);
  EXPECT_EQ(d.size_a, 2);
  EXPECT_EQ(d.size_b, 3);
  ExpectAddFails({5, 2, 4, 1}, {3, 1, 1}, kMismatch2_3);
  d = LastDetail();
  EXPECT_EQ(d.dim, 1);
  EXPECT_EQ(d.size_a, 2);
  EXPECT_EQ(d.size_b, 3);
}

TEST(ReferenceExamples, ResultSizeIsMaxAlongEachDim) {
  // x=torch.empty(5,1,4,1); y=torch.empty(3,1,1); (x+y).size() == [5, 3, 4, 1]
  Shape r;
  ASSERT_EQ(Broadcast2({5, 1, 4, 1}, {3, 1, 1}, &r), BC_OK);
  EXPECT_EQ(r, (Shape{5, 3, 4, 1}));
  ExpectAddMatches({5, 1, 4, 1}, {3, 1, 1}, {5, 3, 4, 1});
}

TEST(ReferenceExamples, OneDimAgainstThree) {
  // x=torch.empty(1); y=torch.empty(3,1,7); (x+y).size() == [3, 1, 7]
  Shape r;
  ASSERT_EQ(Broadcast2({1}, {3, 1, 7}, &r), BC_OK);
  EXPECT_EQ(r, (Shape{3, 1, 7}));
  ExpectAddMatches({1}, {3, 1, 7}, {3, 1, 7});
}

TEST(ReferenceExamples, InPlaceKeepsShape) {
  // x=torch.empty(5,3,4,1); y=torch.empty(3,1,1); x.add_(y).size() == [5, 3, 4, 1]
  std::mt19937 rng(7);
  Host x = RandomHost(BC_FLOAT32, {5, 3, 4, 1}, rng, false);
  Host y = RandomHost(BC_FLOAT32, {3, 1, 1}, rng, false);
  Tensor tx = ToTensor(x), ty = ToTensor(y);
  ASSERT_EQ(bc_binary_(BC_ADD, tx.get(), ty.get()), BC_OK) << bc_last_error();
  EXPECT_EQ(ShapeOf(tx.get()), (Shape{5, 3, 4, 1}));
  EXPECT_TRUE(SameHost(FromTensor(tx.get()), RefBinary(BC_ADD, x, y)));
}

TEST(ReferenceExamples, InPlaceCannotGrow) {
  // x=torch.empty(1,3,1); y=torch.empty(3,1,7); x.add_(y) fails.
  Tensor tx = ToTensor(Iota(BC_FLOAT32, {1, 3, 1})), ty = ToTensor(Iota(BC_FLOAT32, {3, 1, 7}));
  std::vector<unsigned char> before = RawBytes(tx.get());
  EXPECT_TRUE(Fails(bc_binary_(BC_ADD, tx.get(), ty.get()), BC_ERR_SHAPE_MISMATCH,
                    "output with shape [1, 3, 1] doesn't match the broadcast shape [3, 3, 7]"));
  EXPECT_EQ(RawBytes(tx.get()), before);
  EXPECT_EQ(ShapeOf(tx.get()), (Shape{1, 3, 1}));
}

TEST(ReferenceExamples, AddOnesFourByOneAndFour) {
  // torch.add(torch.ones(4,1), torch.randn(4)) has size [4, 4]; every row equals randn(4).
  std::mt19937 rng(11);
  Host ones = MakeHost(BC_FLOAT32, {4, 1}, {1, 1, 1, 1});
  Host rnd = RandomHost(BC_FLOAT32, {4}, rng, false);
  Tensor ta = ToTensor(ones), tb = ToTensor(rnd);
  bc_tensor* out = nullptr;
  ASSERT_EQ(bc_binary(BC_ADD, ta.get(), tb.get(), &out), BC_OK);
  Tensor r(out);
  Host got = FromTensor(r.get());
  ASSERT_EQ(got.shape, (Shape{4, 4}));
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(got.v[i * 4 + j].f, static_cast<double>(static_cast<float>(1.0f + static_cast<float>(rnd.v[j].f))));
  // torch.add(torch.ones(4,1), torch.ones(4)) is all twos.
  Tensor ones4 = ToTensor(MakeHost(BC_FLOAT32, {4}, {1, 1, 1, 1}));
  ASSERT_EQ(bc_binary(BC_ADD, ta.get(), ones4.get(), &out), BC_OK);
  Tensor twos(out);
  Host g2 = FromTensor(twos.get());
  ASSERT_EQ(g2.shape, (Shape{4, 4}));
  for (const Val& v : g2.v) EXPECT_EQ(v.f, 2.0);
}

TEST(ReferenceExamples, ColumnPlusRowValues) {
  // a = [[1],[2],[3]]; b = [[4,5,6,7]]; a + b
  Tensor a = ToTensor(MakeHost(BC_INT64, {3, 1}, {1, 2, 3}));
  Tensor b = ToTensor(MakeHost(BC_INT64, {1, 4}, {4, 5, 6, 7}));
  bc_tensor* out = nullptr;
  ASSERT_EQ(bc_binary(BC_ADD, a.get(), b.get(), &out), BC_OK);
  Tensor r(out);
  EXPECT_TRUE(SameHost(FromTensor(r.get()),
                       MakeHost(BC_INT64, {3, 4}, {5, 6, 7, 8, 6, 7, 8, 9, 7, 8, 9, 10})));
}

// ---------------------------------------------------------------------------
// Two-shape broadcast

TEST(BroadcastShapes, RulesOnManyPairs) {
  struct Case {
    Shape a, b, want;
  };
  const Case cases[] = {
      {{}, {}, {}},
      {{}, {3}, {3}},
      {{2, 3}, {}, {2, 3}},
      {{1}, {1}, {1}},
      {{0}, {1}, {0}},
      {{1}, {0}, {0}},
      {{0}, {0}, {0}},
      {{2, 0, 3}, {1, 1}, {2, 0, 3}},
      {{3, 1}, {1, 4}, {3, 4}},
      {{8, 1, 6, 1}, {7, 1, 5}, {8, 7, 6, 5}},
      {{256, 256, 3}, {3}, {256, 256, 3}},
      {{1, 1, 1, 1, 1}, {2}, {1, 1, 1, 1, 2}},
  };
  for (const Case& c : cases) {
    Shape r;
    ASSERT_EQ(Broadcast2(c.a, c.b, &r), BC_OK) << ShapeStr(c.a) << " " << ShapeStr(c.b) << ": " << bc_last_error();
    EXPECT_EQ(r, c.want) << ShapeStr(c.a) << " " << ShapeStr(c.b);
    ASSERT_EQ(Broadcast2(c.b, c.a, &r), BC_OK);
    EXPECT_EQ(r, c.want) << ShapeStr(c.b) << " " << ShapeStr(c.a);
  }
}

TEST(BroadcastShapes, MismatchReportsRightmostFailingDim) {
  Shape r;
  // Dims are checked from the last; the first failure from the right is reported.
  EXPECT_TRUE(Fails(Broadcast2({2, 3}, {3, 2}, &r), BC_ERR_NOT_BROADCASTABLE,
                    "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"));
  bc_error_detail d = LastDetail();
  EXPECT_EQ(d.dim, 1);
  EXPECT_EQ(d.size_a, 3);
  EXPECT_EQ(d.size_b, 2);
  // The dimension is counted in the aligned result, from the left.
  EXPECT_TRUE(Fails(Broadcast2({4, 5, 6}, {2, 6}, &r), BC_ERR_NOT_BROADCASTABLE,
                    "The size of tensor a (5) must match the size of tensor b (2) at non-singleton dimension 1"));
  EXPECT_TRUE(Fails(Broadcast2({7}, {3, 4, 5, 6}, &r), BC_ERR_NOT_BROADCASTABLE,
                    "The size of tensor a (7) must match the size of tensor b (6) at non-singleton dimension 3"));
  d = LastDetail();
  EXPECT_EQ(d.dim, 3);
  EXPECT_EQ(d.size_a, 7);
  EXPECT_EQ(d.size_b, 6);
  // 0 only broadcasts with 0 and 1.
  EXPECT_TRUE(Fails(Broadcast2({2, 0}, {2, 2}, &r), BC_ERR_NOT_BROADCASTABLE,
                    "The size of tensor a (0) must match the size of tensor b (2) at non-singleton dimension 1"));
}

TEST(BroadcastShapes, BadArguments) {
  int64_t a[] = {2, 3}, out[4];
  size_t n = 0;
  EXPECT_TRUE(Fails(bc_broadcast_shapes(a, 2, a, 2, nullptr, &n), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Fails(bc_broadcast_shapes(a, 2, a, 2, out, nullptr), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Fails(bc_broadcast_shapes(nullptr, 2, a, 2, out, &n), BC_ERR_INVALID_ARGUMENT));
  int64_t neg[] = {-1, 3};
  EXPECT_TRUE(Fails(bc_broadcast_shapes(neg, 2, a, 2, out, &n), BC_ERR_INVALID_ARGUMENT));
  std::vector<int64_t> big(BC_MAX_DIMS + 1, 1);
  std::vector<int64_t> bigout(BC_MAX_DIMS + 2);
  EXPECT_TRUE(Fails(bc_broadcast_shapes(big.data(), big.size(), a, 2, bigout.data(), &n), BC_ERR_INVALID_ARGUMENT));
  // BC_MAX_DIMS itself is fine.
  ASSERT_EQ(bc_broadcast_shapes(big.data(), BC_MAX_DIMS, a, 2, bigout.data(), &n), BC_OK);
  EXPECT_EQ(n, static_cast<size_t>(BC_MAX_DIMS));
  EXPECT_EQ(bigout[BC_MAX_DIMS - 1], 3);
  EXPECT_EQ(bigout[BC_MAX_DIMS - 2], 2);
  EXPECT_EQ(bigout[0], 1);
}

// ---------------------------------------------------------------------------
// N-ary broadcast

TEST(BroadcastShapesN, Basic) {
  Shape r;
  ASSERT_EQ(BroadcastN({{5, 1, 4, 1}, {3, 1, 1}, {1}, {}}, &r), BC_OK) << bc_last_error();
  EXPECT_EQ(r, (Shape{5, 3, 4, 1}));
  ASSERT_EQ(BroadcastN({{2, 1, 1}, {1, 3, 1}, {1, 1, 4}}, &r), BC_OK);
  EXPECT_EQ(r, (Shape{2, 3, 4}));
  ASSERT_EQ(BroadcastN({{0, 1}, {1, 5}, {1}}, &r), BC_OK);
  EXPECT_EQ(r, (Shape{0, 5}));
  ASSERT_EQ(BroadcastN({{6, 7}}, &r), BC_OK);
  EXPECT_EQ(r, (Shape{6, 7}));
  ASSERT_EQ(BroadcastN({{}, {}}, &r), BC_OK);
  EXPECT_EQ(r, Shape{});
}

TEST(BroadcastShapesN, ZeroShapesGiveZeroDim) {
  int64_t out[1] = {42};
  size_t n = 7;
  ASSERT_EQ(bc_broadcast_shapes_n(nullptr, nullptr, 0, out, &n), BC_OK) << bc_last_error();
  EXPECT_EQ(n, 0u);
}

// torch.broadcast_shapes' texts in PyTorch 2.x (2.15), not 1.13's "Shape
// mismatch: objects cannot be broadcast to a single shape".
TEST(BroadcastShapesN, MismatchText) {
  Shape r;
  EXPECT_TRUE(Fails(BroadcastN({{5, 2, 4, 1}, {3, 1, 1}}, &r), BC_ERR_NOT_BROADCASTABLE,
                    "Attempting to broadcast a dimension of length 3 at -3! Mismatching argument "
                    "at index 1 had (3, 1, 1); but expected shape should be broadcastable to "
                    "[5, 2, 4, 1]"));
  EXPECT_TRUE(Fails(BroadcastN({{2, 1}, {1, 3}, {4, 1}}, &r), BC_ERR_NOT_BROADCASTABLE,
                    "Attempting to broadcast a dimension of length 4 at -2! Mismatching argument "
                    "at index 2 had (4, 1); but expected shape should be broadcastable to [2, 3]"));
  EXPECT_TRUE(Fails(BroadcastN({{0}, {2, 2}}, &r), BC_ERR_NOT_BROADCASTABLE,
                    "Attempting to broadcast a dimension of length 2 at -1! Mismatching argument "
                    "at index 1 had (2, 2); but expected shape should be broadcastable to [1, 0]"));
  EXPECT_TRUE(Fails(BroadcastN({{2, 3}, {2, -1}}, &r), BC_ERR_NOT_BROADCASTABLE,
                    "Attempting to broadcast a dimension of length -1 at -1! Mismatching argument "
                    "at index 1 had (2, -1); but expected shape should be broadcastable to [2, 3]"));
  EXPECT_TRUE(Fails(BroadcastN({{1, 3}, {-2, 3}}, &r), BC_ERR_INVALID_ARGUMENT,
                    "Attempting to broadcast a dimension with negative length!"));
}

// Sizes are compared, never multiplied: torch.broadcast_shapes((2**62, 4))
// is fine although no tensor of that shape could exist.
TEST(BroadcastShapesN, ElementCountMayOverflow) {
  Shape r;
  ASSERT_EQ(BroadcastN({{int64_t{1} << 62, 4}, {4}}, &r), BC_OK) << bc_last_error();
  EXPECT_EQ(r, (Shape{int64_t{1} << 62, 4}));
  ASSERT_EQ(BroadcastN({{int64_t{1} << 40, 1}, {int64_t{1} << 40}}, &r), BC_OK) << bc_last_error();
  EXPECT_EQ(r, (Shape{int64_t{1} << 40, int64_t{1} << 40}));
  // The two-shape form compares sizes too.
  const int64_t a[] = {int64_t{1} << 40, 1}, b[] = {int64_t{1} << 40};
  int64_t out[2];
  size_t n = 0;
  ASSERT_EQ(bc_broadcast_shapes(a, 2, b, 1, out, &n), BC_OK) << bc_last_error();
  EXPECT_EQ(Shape(out, out + n), (Shape{int64_t{1} << 40, int64_t{1} << 40}));
}

TEST(BroadcastShapesN, BadArguments) {
  int64_t a[] = {2, 3}, out[4];
  const int64_t* shapes[] = {a, nullptr};
  size_t ndims[] = {2, 2};
  size_t n;
  EXPECT_TRUE(Fails(bc_broadcast_shapes_n(shapes, ndims, 2, out, &n), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Fails(bc_broadcast_shapes_n(nullptr, ndims, 2, out, &n), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Fails(bc_broadcast_shapes_n(shapes, nullptr, 1, out, &n), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Fails(bc_broadcast_shapes_n(shapes, ndims, 1, nullptr, &n), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Fails(bc_broadcast_shapes_n(shapes, ndims, 1, out, nullptr), BC_ERR_INVALID_ARGUMENT));
}

// ---------------------------------------------------------------------------
// expand

TEST(Expand, ViewSharesDataWithZeroStrides) {
  Host h = MakeHost(BC_FLOAT32, {3, 1}, {1, 2, 3});
  Tensor t = ToTensor(h);
  int64_t shape[] = {2, 3, 4};
  bc_tensor* v = nullptr;
  ASSERT_EQ(bc_expand(t.get(), shape, 3, &v), BC_OK) << bc_last_error();
  Tensor view(v);
  EXPECT_EQ(ShapeOf(view.get()), (Shape{2, 3, 4}));
  Shape strides = StridesOf(view.get());
  EXPECT_EQ(strides[0], 0);
  EXPECT_EQ(strides[1], 1);
  EXPECT_EQ(strides[2], 0);
  EXPECT_EQ(bc_tensor_data(view.get()), bc_tensor_data(t.get()));
  EXPECT_EQ(bc_tensor_is_contiguous(view.get()), 0);
  EXPECT_EQ(bc_tensor_numel(view.get()), 24);
  Host got = FromTensor(view.get());
  ForEachIndex({2, 3, 4}, [&](int64_t k, const Shape& idx) { EXPECT_EQ(got.v[k].f, idx[1] + 1.0); });
}

TEST(Expand, MinusOneKeepsSize) {
  Tensor t = ToTensor(Iota(BC_INT32, {3, 1}));
  int64_t shape[] = {-1, 5};
  bc_tensor* v = nullptr;
  ASSERT_EQ(bc_expand(t.get(), shape, 2, &v), BC_OK) << bc_last_error();
  Tensor view(v);
  EXPECT_EQ(ShapeOf(view.get()), (Shape{3, 5}));
  Host got = FromTensor(view.get());
  ForEachIndex({3, 5}, [&](int64_t k, const Shape& idx) { EXPECT_EQ(got.v[k].i, idx[0]); });
  // -1 in a new leading dimension is refused.
  int64_t lead[] = {-1, 3, 1};
  bc_tensor* w = kPoison;
  EXPECT_TRUE(Fails(bc_expand(t.get(), lead, 3, &w), BC_ERR_SHAPE_MISMATCH,
                    "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0"));
  EXPECT_EQ(w, nullptr);
}

TEST(Expand, ZeroDimAndSizeZero) {
  Tensor s = ToTensor(MakeHost(BC_FLOAT64, {}, {2.5}));
  int64_t shape[] = {2, 2};
  bc_tensor* v = nullptr;
  ASSERT_EQ(bc_expand(s.get(), shape, 2, &v), BC_OK);
  Tensor view(v);
  EXPECT_TRUE(SameHost(FromTensor(view.get()), MakeHost(BC_FLOAT64, {2, 2}, {2.5, 2.5, 2.5, 2.5})));
  // 0-dim to 0-dim.
  ASSERT_EQ(bc_expand(s.get(), nullptr, 0, &v), BC_OK);
  Tensor same(v);
  EXPECT_EQ(bc_tensor_ndim(same.get()), 0u);
  // [1] -> [0]: size-1 dims may expand to 0.
  Tensor one = ToTensor(MakeHost(BC_FLOAT32, {1}, {1}));
  int64_t zero[] = {3, 0};
  ASSERT_EQ(bc_expand(one.get(), zero, 2, &v), BC_OK) << bc_last_error();
  Tensor empty(v);
  EXPECT_EQ(ShapeOf(empty.get()), (Shape{3, 0}));
  EXPECT_EQ(bc_tensor_numel(empty.get()), 0);
}

TEST(Expand, MismatchText) {
  Tensor t = ToTensor(Iota(BC_FLOAT32, {3, 1, 7}));
  int64_t shape[] = {1, 3, 1};
  bc_tensor* v = kPoison;
  EXPECT_TRUE(Fails(bc_expand(t.get(), shape, 3, &v), BC_ERR_SHAPE_MISMATCH,
                    "The expanded size of the tensor (1) must match the existing size (7) at "
                    "non-singleton dimension 2.  Target sizes: [1, 3, 1].  Tensor sizes: [3, 1, 7]"));
  EXPECT_EQ(v, nullptr);
  bc_error_detail d = LastDetail();
  EXPECT_EQ(d.dim, 2);
  EXPECT_EQ(d.size_a, 1);
  EXPECT_EQ(d.size_b, 7);
  // The dimension is the index in the target shape, which may be longer.
  int64_t longer[] = {2, 4, 1, 7};
  EXPECT_TRUE(Fails(bc_expand(t.get(), longer, 4, &v), BC_ERR_SHAPE_MISMATCH,
                    "The expanded size of the tensor (4) must match the existing size (3) at "
                    "non-singleton dimension 1.  Target sizes: [2, 4, 1, 7].  Tensor sizes: [3, 1, 7]"));
  d = LastDetail();
  EXPECT_EQ(d.dim, 1);
  EXPECT_EQ(d.size_a, 4);
  EXPECT_EQ(d.size_b, 3);
}

TEST(Expand, TooFewSizesText) {
  Tensor t = ToTensor(Iota(BC_FLOAT32, {3, 1, 7}));
  int64_t shape[] = {1, 3};
  bc_tensor* v = kPoison;
  EXPECT_TRUE(Fails(bc_expand(t.get(), shape, 2, &v), BC_ERR_SHAPE_MISMATCH,
                    "expand(torch.FloatTensor{[3, 1, 7]}, size=[1, 3]): the number of sizes "
                    "provided (2) must be greater or equal to the number of dimensions in the tensor (3)"));
  EXPECT_EQ(v, nullptr);
  Tensor d = ToTensor(Iota(BC_FLOAT64, {2, 2}));
  int64_t one[] = {2};
  EXPECT_TRUE(Fails(bc_expand(d.get(), one, 1, &v), BC_ERR_SHAPE_MISMATCH,
                    "expand(torch.DoubleTensor{[2, 2]}, size=[2]): the number of sizes "
                    "provided (1) must be greater or equal to the number of dimensions in the tensor (2)"));
}

TEST(Expand, BadArguments) {
  Tensor t = ToTensor(Iota(BC_FLOAT32, {3, 1}));
  int64_t shape[] = {3, 4};
  bc_tensor* v = kPoison;
  EXPECT_TRUE(Fails(bc_expand(nullptr, shape, 2, &v), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(v, nullptr);
  EXPECT_TRUE(Fails(bc_expand(t.get(), nullptr, 2, &v), BC_ERR_INVALID_ARGUMENT));
  EXPECT_TRUE(Fails(bc_expand(t.get(), shape, 2, nullptr), BC_ERR_INVALID_ARGUMENT));
  int64_t neg[] = {3, -2};
  EXPECT_NE(bc_expand(t.get(), neg, 2, &v), BC_OK);
  EXPECT_EQ(v, nullptr);
  std::vector<int64_t> big(BC_MAX_DIMS + 1, 1);
  big.back() = 1;
  EXPECT_TRUE(Fails(bc_expand(t.get(), big.data(), big.size(), &v), BC_ERR_INVALID_ARGUMENT));
}

// ---------------------------------------------------------------------------
// broadcast_tensors

TEST(BroadcastTensors, ViewsHaveCommonShapeAndValues) {
  Host a = Iota(BC_FLOAT32, {3, 1});
  Host b = Iota(BC_INT16, {1, 4}, 10);
  Host c = MakeHost(BC_FLOAT64, {}, {-1});
  Tensor ta = ToTensor(a), tb = ToTensor(b), tc = ToTensor(c);
  const bc_tensor* ins[] = {ta.get(), tb.get(), tc.get()};
  bc_tensor* views[3] = {nullptr, nullptr, nullptr};
  ASSERT_EQ(bc_broadcast_tensors(ins, 3, views), BC_OK) << bc_last_error();
  Tensor va(views[0]), vb(views[1]), vc(views[2]);
  for (bc_tensor* v : views) EXPECT_EQ(ShapeOf(v), (Shape{3, 4}));
  EXPECT_EQ(bc_tensor_dtype(vb.get()), BC_INT16);
  EXPECT_EQ(bc_tensor_data(va.get()), bc_tensor_data(ta.get()));
  Host ga = FromTensor(va.get()), gb = FromTensor(vb.get()), gc = FromTensor(vc.get());
  ForEachIndex({3, 4}, [&](int64_t k, const Shape& idx) {
    EXPECT_EQ(ga.v[k].f, idx[0]);
    EXPECT_EQ(gb.v[k].i, 10 + idx[1]);
    EXPECT_EQ(gc.v[k].f, -1.0);
  });
}

TEST(BroadcastTensors, FailureLeavesAllNull) {
  Tensor ta = ToTensor(Iota(BC_FLOAT32, {2})), tb = ToTensor(Iota(BC_FLOAT32, {3})),
         tc = ToTensor(Iota(BC_FLOAT32, {1}));
  const bc_tensor* ins[] = {tc.get(), ta.get(), tb.get()};
  bc_tensor* views[3] = {kPoison, kPoison, kPoison};
  EXPECT_TRUE(Fails(bc_broadcast_tensors(ins, 3, views), BC_ERR_NOT_BROADCASTABLE));
  for (bc_tensor* v : views) EXPECT_EQ(v, nullptr);
  const bc_tensor* two[] = {ta.get(), tb.get()};
  bc_tensor* v2[2] = {kPoison, kPoison};
  EXPECT_TRUE(Fails(bc_broadcast_tensors(two, 2, v2), BC_ERR_NOT_BROADCASTABLE,
                    "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"));
  EXPECT_EQ(v2[0], nullptr);
  EXPECT_EQ(v2[1], nullptr);
  const bc_tensor* withnull[] = {ta.get(), nullptr};
  EXPECT_TRUE(Fails(bc_broadcast_tensors(withnull, 2, v2), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(v2[0], nullptr);
}

// ---------------------------------------------------------------------------
// Size-0 and 0-dim through ops

TEST(ZeroSizes, OpsOnEmptyAndZeroDim) {
  // 0 with 1 gives 0.
  Tensor a = ToTensor(Iota(BC_FLOAT32, {0, 3})), b = ToTensor(Iota(BC_FLOAT32, {1, 3}));
  bc_tensor* out = nullptr;
  ASSERT_EQ(bc_binary(BC_MUL, a.get(), b.get(), &out), BC_OK) << bc_last_error();
  Tensor r(out);
  EXPECT_EQ(ShapeOf(r.get()), (Shape{0, 3}));
  EXPECT_EQ(bc_tensor_numel(r.get()), 0);
  // 0 with 2 fails.
  Tensor c = ToTensor(Iota(BC_FLOAT32, {2, 3}));
  out = kPoison;
  EXPECT_TRUE(Fails(bc_binary(BC_MUL, a.get(), c.get(), &out), BC_ERR_NOT_BROADCASTABLE,
                    "The size of tensor a (0) must match the size of tensor b (2) at non-singleton dimension 0"));
  EXPECT_EQ(out, nullptr);
  // 0-dim with 0-dim stays 0-dim; 0-dim with a size-0 tensor gives size 0.
  Tensor s = ToTensor(MakeHost(BC_INT32, {}, {5})), t = ToTensor(MakeHost(BC_INT32, {}, {-7}));
  ASSERT_EQ(bc_binary(BC_SUB, s.get(), t.get(), &out), BC_OK);
  Tensor z(out);
  EXPECT_EQ(bc_tensor_ndim(z.get()), 0u);
  EXPECT_TRUE(SameHost(FromTensor(z.get()), MakeHost(BC_INT32, {}, {12})));
  ASSERT_EQ(bc_binary(BC_SUB, s.get(), a.get(), &out), BC_OK);
  Tensor e(out);
  EXPECT_EQ(ShapeOf(e.get()), (Shape{0, 3}));
  EXPECT_EQ(bc_tensor_dtype(e.get()), BC_FLOAT32);
}

TEST(LastError, SuccessDoesNotClearAndThreadsStartClean) {
  std::thread([] {
    EXPECT_STREQ(bc_last_error(), "");
    bc_error_detail d;
    d.code = BC_ERR_INTERNAL;
    EXPECT_EQ(bc_last_error_detail(&d), BC_OK);
    EXPECT_EQ(d.code, BC_OK);
  }).join();
  Shape r;
  EXPECT_NE(Broadcast2({2}, {3}, &r), BC_OK);
  std::string msg = LastError();
  EXPECT_FALSE(msg.empty());
  ASSERT_EQ(Broadcast2({2}, {2}, &r), BC_OK);
  EXPECT_EQ(LastError(), msg);
  EXPECT_EQ(bc_last_error_detail(nullptr), BC_ERR_INVALID_ARGUMENT);
}

TEST(Names, StatusDtypeOpVersion) {
  const char* names[] = {"BC_OK", "BC_ERR_INVALID_ARGUMENT", "BC_ERR_NOT_BROADCASTABLE",
                         "BC_ERR_SHAPE_MISMATCH", "BC_ERR_DTYPE", "BC_ERR_OVERLAP",
                         "BC_ERR_OUT_OF_MEMORY", "BC_ERR_OVERFLOW", "BC_ERR_OUT_OF_BOUNDS",
                         "BC_ERR_DIVISION_BY_ZERO", "BC_ERR_INTERNAL", "BC_ERR_POLICY"};
  for (int i = 0; i < 12; ++i) EXPECT_STREQ(bc_status_string(static_cast<bc_status>(i)), names[i]);
  EXPECT_STREQ(bc_status_string(static_cast<bc_status>(99)), "BC_ERR_UNKNOWN");
  EXPECT_STREQ(bc_status_string(static_cast<bc_status>(-1)), "BC_ERR_UNKNOWN");
  for (bc_dtype d : kAllDtypes) {
    EXPECT_STREQ(bc_dtype_name(d), TorchName(d));
    EXPECT_EQ(bc_dtype_size(d), ElemSize(d));
  }
  EXPECT_STREQ(bc_dtype_name(static_cast<bc_dtype>(10)), "Unknown");
  EXPECT_EQ(bc_dtype_size(static_cast<bc_dtype>(-3)), 0u);
  EXPECT_STREQ(bc_op_name(BC_ADD), "add");
  EXPECT_STREQ(bc_op_name(BC_DIV_FLOOR), "div_floor");
  EXPECT_STREQ(bc_op_name(static_cast<bc_op>(BC_OP_COUNT)), "unknown");
  std::vector<std::string> seen;
  for (int op = 0; op < BC_OP_COUNT; ++op) {
    std::string n = bc_op_name(static_cast<bc_op>(op));
    EXPECT_FALSE(n.empty());
    EXPECT_NE(n, "unknown");
    EXPECT_EQ(std::count(seen.begin(), seen.end(), n), 0) << n;
    seen.push_back(n);
  }
  EXPECT_EQ(bc_version(), BC_VERSION_NUMBER);
  EXPECT_STREQ(bc_version_string(), BC_VERSION_STRING);
  EXPECT_EQ(bc_version(), BC_VERSION_MAJOR * 10000 + BC_VERSION_MINOR * 100 + BC_VERSION_PATCH);
}

}  // namespace
}  // namespace bct
