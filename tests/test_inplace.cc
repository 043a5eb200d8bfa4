// In-place and out= forms: shape rules (no resize), dtype casts, memory
// overlap, exact aliasing, copy_, and "nothing written" after every failure.
#include <gtest/gtest.h>

#include "test_util.h"

namespace bct {
namespace {

Tensor Zeros(bc_dtype d, const Shape& s) {
  bc_tensor* t = nullptr;
  EXPECT_EQ(bc_tensor_zeros(d, s.data(), s.size(), &t), BC_OK);
  return Tensor(t);
}

// A tensor filled with a recognisable pattern, to see any stray write.
Tensor Sentinel(bc_dtype d, const Shape& s) {
  return ToTensor(Iota(d, s, 7, IsFloat(d) ? 0.5 : 1));
}

const char kInternalOverlap[] =
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation.";
const char kPartialOverlap[] =
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to "
    "a single memory location. Please clone() the tensor before performing the operation.";

// ---------------------------------------------------------------------------
// Shapes

TEST(OutShape, WrongShapeIsAnErrorNotAResize) {
  Tensor a = ToTensor(Iota(BC_FLOAT32, {3, 1})), b = ToTensor(Iota(BC_FLOAT32, {1, 4}));
  const Shape wrong[] = {{3}, {4, 3}, {1, 3, 4}, {3, 4, 1}, {}, {0}, {12}};
  for (const Shape& s : wrong) {
    Tensor o = Sentinel(BC_FLOAT32, s);
    std::vector<unsigned char> before = RawBytes(o.get());
    EXPECT_TRUE(Fails(bc_binary_out(BC_ADD, a.get(), b.get(), o.get()), BC_ERR_SHAPE_MISMATCH,
                      "output with shape " + ShapeStr(s) + " doesn't match the broadcast shape [3, 4]"))
        << ShapeStr(s);
    EXPECT_EQ(ShapeOf(o.get()), s);
    EXPECT_EQ(RawBytes(o.get()), before);
    // Detail fields that do not apply are -1.
    bc_error_detail d = LastDetail();
    EXPECT_EQ(d.dim, -1);
    EXPECT_EQ(d.size_a, -1);
    EXPECT_EQ(d.size_b, -1);
  }
  // Non-broadcastable inputs report the broadcast failure, not the out shape.
  Tensor c = ToTensor(Iota(BC_FLOAT32, {5}));
  Tensor o = Sentinel(BC_FLOAT32, {3, 4});
  std::vector<unsigned char> before = RawBytes(o.get());
  EXPECT_TRUE(Fails(bc_binary_out(BC_ADD, b.get(), c.get(), o.get()), BC_ERR_NOT_BROADCASTABLE,
                    "The size of tensor a (4) must match the size of tensor b (5) at non-singleton dimension 1"));
  EXPECT_EQ(RawBytes(o.get()), before);
}

// out= of shape [2] with every input 0-dim: the broadcast shape is [], and
// the out shape is refused, never filled (the small-op path once wrote the
// one value into every element).
TEST(OutShape, EveryInputZeroDimRefusesLargerOut) {
  Tensor a = ToTensor(Iota(BC_FLOAT32, {})), b = ToTensor(Iota(BC_FLOAT32, {}, 3));
  Tensor c = ToTensor(Iota(BC_FLOAT32, {}, 5));
  Tensor cond = ToTensor(Iota(BC_BOOL, {}));
  const bc_scalar lo = bc_scalar_float(0.5), two = bc_scalar_int(2);
  for (const Shape& s : {Shape{2}, Shape{1, 2}, Shape{3, 1}}) {
    const std::string want = "output with shape " + ShapeStr(s) + " doesn't match the broadcast shape []";
    for (bc_dtype d : {BC_FLOAT32, BC_BOOL}) {
      Tensor o = Sentinel(d, s);
      const std::vector<unsigned char> before = RawBytes(o.get());
      const auto refused = [&](bc_status st, const char* what) {
        EXPECT_TRUE(Fails(st, BC_ERR_SHAPE_MISMATCH, want)) << what << " " << ShapeStr(s);
        EXPECT_EQ(RawBytes(o.get()), before) << what;
      };
      refused(bc_binary_out(BC_LE, a.get(), b.get(), o.get()), "le");
      if (d == BC_BOOL) continue;
      refused(bc_binary_out(BC_ADD, a.get(), b.get(), o.get()), "add");
      refused(bc_binary_alpha_out(BC_SUB, a.get(), b.get(), 2.0, o.get()), "sub alpha");
      refused(bc_binary_scalar_out(BC_MUL, a.get(), two, o.get()), "mul number");
      refused(bc_binary_rscalar_out(BC_POW, two, a.get(), o.get()), "rpow number");
      refused(bc_where_out(cond.get(), a.get(), b.get(), o.get()), "where");
      refused(bc_clamp_out(a.get(), b.get(), c.get(), o.get()), "clamp");
      refused(bc_clamp_scalar_out(a.get(), &lo, nullptr, o.get()), "clamp number");
      refused(bc_lerp_out(a.get(), b.get(), c.get(), o.get()), "lerp");
      refused(bc_lerp_scalar_out(a.get(), b.get(), lo, o.get()), "lerp number");
      refused(bc_addcmul_out(a.get(), b.get(), c.get(), 2.0, o.get()), "addcmul");
      refused(bc_addcdiv_out(a.get(), b.get(), c.get(), 2.0, o.get()), "addcdiv");
    }
  }
  // The out shape comes before the checks PyTorch makes after resizing out:
  // alpha and value ranges, the out-cast rule.
  Tensor u = ToTensor(Iota(BC_UINT8, {})), f = ToTensor(Iota(BC_FLOAT64, {}, 2));
  Tensor i8 = ToTensor(Iota(BC_INT8, {}, 1));
  Tensor o = Sentinel(BC_UINT8, {2});
  const std::vector<unsigned char> before = RawBytes(o.get());
  const std::string want = "output with shape [2] doesn't match the broadcast shape []";
  const std::pair<bc_status, const char*> order[] = {
      {bc_binary_alpha_out(BC_SUB, u.get(), u.get(), 300, o.get()), "sub alpha=300"},
      {bc_binary_alpha_out(BC_ADD, u.get(), u.get(), 2.5, o.get()), "add alpha=2.5"},
      {bc_binary_out(BC_POW, f.get(), f.get(), o.get()), "pow float64"},
      {bc_binary_out(BC_SHIFT_LEFT, f.get(), f.get(), o.get()), "shift float64"},
      {bc_binary_out(BC_DIV, u.get(), i8.get(), o.get()), "div to float32"},
      {bc_addcmul_out(f.get(), f.get(), f.get(), 1, o.get()), "addcmul float64"},
      {bc_addcdiv_out(f.get(), f.get(), f.get(), 1, o.get()), "addcdiv float64"},
      {bc_addcmul_out(u.get(), u.get(), u.get(), 300, o.get()), "addcmul value=300"},
  };
  for (const auto& [st, what] : order) {
    EXPECT_EQ(st, BC_ERR_SHAPE_MISMATCH) << what;
  }
  EXPECT_TRUE(Fails(bc_binary_alpha_out(BC_SUB, u.get(), u.get(), 300, o.get()),
                    BC_ERR_SHAPE_MISMATCH, want));
  EXPECT_EQ(RawBytes(o.get()), before);

  // A 0-dim out takes them (the broadcast shape []).
  Tensor z = Zeros(BC_FLOAT32, {});
  ASSERT_EQ(bc_binary_out(BC_ADD, a.get(), b.get(), z.get()), BC_OK) << bc_last_error();
  EXPECT_EQ(*static_cast<const float*>(bc_tensor_data(z.get())), 0.0f + 3.0f);
}

TEST(InPlaceShape, SelfMayNotGrow) {
  struct Case {
    Shape self, other;
    std::string msg;
  };
  const Case cases[] = {
      {{1, 3, 1}, {3, 1, 7}, "output with shape [1, 3, 1] doesn't match the broadcast shape [3, 3, 7]"},
      {{3}, {2, 3}, "output with shape [3] doesn't match the broadcast shape [2, 3]"},
      {{}, {2}, "output with shape [] doesn't match the broadcast shape [2]"},
      {{1}, {0}, "output with shape [1] doesn't match the broadcast shape [0]"},
  };
  for (const Case& c : cases) {
    Tensor self = Sentinel(BC_FLOAT64, c.self), other = ToTensor(Iota(BC_FLOAT64, c.other));
    std::vector<unsigned char> before = RawBytes(self.get());
    EXPECT_TRUE(Fails(bc_binary_(BC_MUL, self.get(), other.get()), BC_ERR_SHAPE_MISMATCH, c.msg));
    EXPECT_EQ(RawBytes(self.get()), before);
    EXPECT_EQ(ShapeOf(self.get()), c.self);
  }
  Tensor self = Sentinel(BC_FLOAT64, {2, 3}), other = ToTensor(Iota(BC_FLOAT64, {4}));
  std::vector<unsigned char> before = RawBytes(self.get());
  EXPECT_TRUE(Fails(bc_binary_(BC_MUL, self.get(), other.get()), BC_ERR_NOT_BROADCASTABLE,
                    "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"));
  EXPECT_EQ(RawBytes(self.get()), before);
}

TEST(InPlaceShape, OtherBroadcastsIntoSelf) {
  std::mt19937 rng(1);
  const std::pair<Shape, Shape> cases[] = {
      {{5, 3, 4, 1}, {3, 1, 1}}, {{2, 3}, {}}, {{2, 3}, {1, 1, 3}}, {{4, 1}, {1}}, {{0, 2}, {2}}};
  for (const auto& c : cases) {
    Host s = RandomHost(BC_INT16, c.first, rng), o = RandomHost(BC_INT16, c.second, rng);
    Tensor ts = ToTensor(s), to = ToTensor(o);
    bc_status st = bc_binary_(BC_SUB, ts.get(), to.get());
    if (c.second.size() > c.first.size()) {
      // [1, 1, 3] into [2, 3]: the broadcast shape [1, 2, 3] is not self's.
      EXPECT_TRUE(Fails(st, BC_ERR_SHAPE_MISMATCH,
                        "output with shape [2, 3] doesn't match the broadcast shape [1, 2, 3]"));
      continue;
    }
    ASSERT_EQ(st, BC_OK) << bc_last_error();
    EXPECT_TRUE(SameHost(FromTensor(ts.get()), RefBinary(BC_SUB, s, o)));
  }
}

// ---------------------------------------------------------------------------
// Dtypes of written tensors

bool CanCast(bc_dtype from, bc_dtype to) { return Category(from) <= Category(to); }

TEST(OutDtype, CastRulesFollowCanCast) {
  std::mt19937 rng(2);
  for (bc_dtype in : kAllDtypes) {
    for (bc_dtype out : kAllDtypes) {
      Host a = RandomHost(in, {2, 3}, rng), b = RandomHost(in, {3}, rng);
      Tensor ta = ToTensor(a), tb = ToTensor(b);
      Tensor o = Sentinel(out, {2, 3});
      std::vector<unsigned char> before = RawBytes(o.get());
      bc_status st = bc_binary_out(BC_MUL, ta.get(), tb.get(), o.get());
      std::string what = std::string(ShortName(in)) + " -> " + ShortName(out);
      if (CanCast(in, out)) {
        ASSERT_EQ(st, BC_OK) << what << ": " << bc_last_error();
        // Computed in the common dtype, then converted.
        Host want = RefBinary(BC_MUL, a, b);
        for (Val& v : want.v) v = ConvertVal(v, in, out);
        want.dtype = out;
        EXPECT_TRUE(SameHost(FromTensor(o.get()), want)) << what;
      } else {
        EXPECT_TRUE(Fails(st, BC_ERR_DTYPE,
                          std::string("result type ") + TorchName(in) + " can't be cast to the desired output type " + TorchName(out)))
            << what;
        EXPECT_EQ(RawBytes(o.get()), before) << what;
      }
    }
  }
}

TEST(OutDtype, ComputedInCommonDtypeThenCast) {
  // int32 overflow wraps before the cast to float64.
  Tensor a = ToTensor(MakeHost(BC_INT32, {1}, {2147483647})), b = ToTensor(MakeHost(BC_INT32, {1}, {1}));
  Tensor o = Zeros(BC_FLOAT64, {1});
  ASSERT_EQ(bc_binary_out(BC_ADD, a.get(), b.get(), o.get()), BC_OK);
  EXPECT_EQ(FromTensor(o.get()).v[0].f, -2147483648.0);
  // Integer true division runs in float32 even when written to float64.
  Tensor one = ToTensor(MakeHost(BC_INT32, {1}, {1})), three = ToTensor(MakeHost(BC_INT32, {1}, {3}));
  ASSERT_EQ(bc_binary_out(BC_DIV, one.get(), three.get(), o.get()), BC_OK);
  EXPECT_EQ(FromTensor(o.get()).v[0].f, static_cast<double>(1.0f / 3.0f));
  // Comparisons give bool, which any out can hold.
  Tensor of = Zeros(BC_FLOAT32, {1});
  ASSERT_EQ(bc_binary_out(BC_LT, one.get(), three.get(), of.get()), BC_OK);
  EXPECT_EQ(FromTensor(of.get()).v[0].f, 1.0);
  // float64 into float16 rounds.
  Tensor x = ToTensor(MakeHost(BC_FLOAT64, {1}, {1.0})), y = ToTensor(MakeHost(BC_FLOAT64, {1}, {1e-4}));
  Tensor oh = Zeros(BC_FLOAT16, {1});
  ASSERT_EQ(bc_binary_out(BC_ADD, x.get(), y.get(), oh.get()), BC_OK);
  EXPECT_EQ(FromTensor(oh.get()).v[0].f, 1.0);
}

TEST(InPlaceDtype, CastErrorsLeaveSelfAlone) {
  Tensor i = Sentinel(BC_INT32, {2, 2});
  Tensor f = ToTensor(Iota(BC_FLOAT32, {2}));
  Tensor d0 = ToTensor(MakeHost(BC_FLOAT64, {}, {1.5}));
  Tensor b = Sentinel(BC_BOOL, {2});
  Tensor i2 = ToTensor(Iota(BC_INT32, {2}, 1));
  std::vector<unsigned char> before = RawBytes(i.get());
  EXPECT_TRUE(Fails(bc_binary_(BC_ADD, i.get(), f.get()), BC_ERR_DTYPE,
                    "result type Float can't be cast to the desired output type Int"));
  // A 0-dim double lifts int32 to float64 (category rises).
  EXPECT_TRUE(Fails(bc_binary_(BC_ADD, i.get(), d0.get()), BC_ERR_DTYPE,
                    "result type Double can't be cast to the desired output type Int"));
  // int32 / int32 is float32.
  EXPECT_TRUE(Fails(bc_binary_(BC_DIV, i.get(), i2.get()), BC_ERR_DTYPE,
                    "result type Float can't be cast to the desired output type Int"));
  EXPECT_EQ(RawBytes(i.get()), before);
  std::vector<unsigned char> bbefore = RawBytes(b.get());
  EXPECT_TRUE(Fails(bc_binary_(BC_ADD, b.get(), i2.get()), BC_ERR_DTYPE,
                    "result type Int can't be cast to the desired output type Bool"));
  EXPECT_EQ(RawBytes(b.get()), bbefore);
  // Narrower float self is fine: float64 result rounded into float32.
  Tensor s = ToTensor(MakeHost(BC_FLOAT32, {1}, {1}));
  Tensor tiny = ToTensor(MakeHost(BC_FLOAT64, {1}, {1e-12}));
  ASSERT_EQ(bc_binary_(BC_ADD, s.get(), tiny.get()), BC_OK);
  EXPECT_EQ(FromTensor(s.get()).v[0].f, 1.0);
  // int64 self with a uint8 other: same category.
  Tensor l = ToTensor(MakeHost(BC_INT8, {2}, {100, -100}));
  Tensor big = ToTensor(MakeHost(BC_INT64, {2}, {100, -100}));
  ASSERT_EQ(bc_binary_(BC_ADD, l.get(), big.get()), BC_OK) << bc_last_error();
  EXPECT_TRUE(SameHost(FromTensor(l.get()), MakeHost(BC_INT8, {2}, {-56, 56})));
}

// ---------------------------------------------------------------------------
// Overlap

TEST(Overlap, ExpandedOutputRefused) {
  Tensor base = Sentinel(BC_FLOAT32, {1, 3});
  int64_t shape[] = {4, 3};
  bc_tensor* e = nullptr;
  ASSERT_EQ(bc_expand(base.get(), shape, 2, &e), BC_OK);
  Tensor exp(e);
  Tensor a = ToTensor(Iota(BC_FLOAT32, {4, 3}));
  std::vector<unsigned char> before = RawBytes(base.get());
  EXPECT_TRUE(Fails(bc_binary_out(BC_ADD, a.get(), a.get(), e), BC_ERR_OVERLAP, kInternalOverlap));
  EXPECT_TRUE(Fails(bc_binary_(BC_ADD, e, a.get()), BC_ERR_OVERLAP, kInternalOverlap));
  Tensor one = ToTensor(MakeHost(BC_FLOAT32, {}, {1}));
  EXPECT_TRUE(Fails(bc_binary_(BC_ADD, e, one.get()), BC_ERR_OVERLAP, kInternalOverlap));
  EXPECT_TRUE(Fails(bc_copy_(e, a.get()), BC_ERR_OVERLAP, kInternalOverlap));
  Tensor c = ToTensor(MakeHost(BC_BOOL, {3}, {1, 0, 1}));
  EXPECT_TRUE(Fails(bc_where_out(c.get(), a.get(), a.get(), e), BC_ERR_OVERLAP, kInternalOverlap));
  EXPECT_TRUE(Fails(bc_clamp_(e, one.get(), nullptr), BC_ERR_OVERLAP, kInternalOverlap));
  EXPECT_TRUE(Fails(bc_addcmul_(e, a.get(), a.get(), 1.0), BC_ERR_OVERLAP, kInternalOverlap));
  EXPECT_EQ(RawBytes(base.get()), before);
  // A wrapped buffer with a zero stride is the same thing.
  float buf[3] = {1, 2, 3};
  int64_t wshape[] = {2, 3}, wstrides[] = {0, 1};
  bc_tensor* w = nullptr;
  ASSERT_EQ(bc_tensor_wrap(BC_FLOAT32, wshape, wstrides, 2, buf, sizeof buf, nullptr, nullptr, &w), BC_OK);
  Tensor hw(w);
  Tensor a23 = ToTensor(Iota(BC_FLOAT32, {2, 3}));
  EXPECT_TRUE(Fails(bc_binary_out(BC_MUL, a23.get(), a23.get(), w), BC_ERR_OVERLAP, kInternalOverlap));
  EXPECT_EQ(buf[0], 1.0f);
  EXPECT_EQ(buf[1], 2.0f);
  EXPECT_EQ(buf[2], 3.0f);
  // A size-1 dim with stride 0 is not overlap.
  int64_t oshape[] = {1, 3}, ostrides[] = {0, 1};
  bc_tensor* ok = nullptr;
  ASSERT_EQ(bc_tensor_wrap(BC_FLOAT32, oshape, ostrides, 2, buf, sizeof buf, nullptr, nullptr, &ok), BC_OK);
  Tensor hok(ok);
  ASSERT_EQ(bc_binary_(BC_ADD, ok, one.get()), BC_OK) << bc_last_error();
  EXPECT_EQ(buf[2], 4.0f);
}

TEST(Overlap, PartialOverlapWithInputRefused) {
  alignas(8) float buf[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  int64_t shape[] = {4};
  bc_tensor *in = nullptr, *shifted = nullptr, *apart = nullptr;
  ASSERT_EQ(bc_tensor_wrap(BC_FLOAT32, shape, nullptr, 1, buf, sizeof buf, nullptr, nullptr, &in), BC_OK);
  ASSERT_EQ(bc_tensor_wrap(BC_FLOAT32, shape, nullptr, 1, buf + 1, 7 * sizeof(float), nullptr, nullptr, &shifted), BC_OK);
  ASSERT_EQ(bc_tensor_wrap(BC_FLOAT32, shape, nullptr, 1, buf + 4, 4 * sizeof(float), nullptr, nullptr, &apart), BC_OK);
  Tensor hin(in), hsh(shifted), hap(apart);
  Tensor one = ToTensor(MakeHost(BC_FLOAT32, {4}, {10, 10, 10, 10}));
  EXPECT_TRUE(Fails(bc_binary_out(BC_ADD, in, one.get(), shifted), BC_ERR_OVERLAP, kPartialOverlap));
  EXPECT_TRUE(Fails(bc_binary_(BC_ADD, shifted, in), BC_ERR_OVERLAP, kPartialOverlap));
  EXPECT_TRUE(Fails(bc_copy_(shifted, in), BC_ERR_OVERLAP, kPartialOverlap));
  for (int k = 0; k < 8; ++k) EXPECT_EQ(buf[k], static_cast<float>(k));
  // Disjoint halves of one buffer are fine.
  ASSERT_EQ(bc_binary_out(BC_ADD, in, one.get(), apart), BC_OK) << bc_last_error();
  const float want[8] = {0, 1, 2, 3, 10, 11, 12, 13};
  for (int k = 0; k < 8; ++k) EXPECT_EQ(buf[k], want[k]);
  // A 0-dim view of one element of self is a partial overlap too (PyTorch
  // 2.15: x.add_(x[2]), torch.mul(x, x[0], out=x) and torch.add(y, x[0],
  // out=x) all refuse), on small ops as on large ones.
  for (const int64_t n : {int64_t{4}, int64_t{70000}}) {
    std::vector<float> v(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) v[k] = static_cast<float>(k);
    bc_tensor *x = nullptr, *x2 = nullptr, *x0 = nullptr;
    ASSERT_EQ(bc_tensor_wrap(BC_FLOAT32, &n, nullptr, 1, v.data(), n * sizeof(float), nullptr, nullptr, &x), BC_OK);
    ASSERT_EQ(bc_tensor_wrap(BC_FLOAT32, nullptr, nullptr, 0, v.data() + 2, sizeof(float), nullptr, nullptr, &x2),
              BC_OK);
    ASSERT_EQ(bc_tensor_wrap(BC_FLOAT32, nullptr, nullptr, 0, v.data(), sizeof(float), nullptr, nullptr, &x0), BC_OK);
    Tensor hx(x), hx2(x2), hx0(x0), y = Zeros(BC_FLOAT32, {n});
    EXPECT_TRUE(Fails(bc_binary_(BC_ADD, x, x2), BC_ERR_OVERLAP, kPartialOverlap)) << n;
    EXPECT_TRUE(Fails(bc_binary_out(BC_MUL, x, x0, x), BC_ERR_OVERLAP, kPartialOverlap)) << n;
    EXPECT_TRUE(Fails(bc_binary_out(BC_ADD, y.get(), x0, x), BC_ERR_OVERLAP, kPartialOverlap)) << n;
    for (int64_t k = 0; k < n; ++k) ASSERT_EQ(v[k], static_cast<float>(k)) << n;
  }
  // A transposed view of self is a partial overlap.
  alignas(8) float m[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  int64_t sq[] = {3, 3}, tstr[] = {1, 3};
  bc_tensor *self = nullptr, *tr = nullptr;
  ASSERT_EQ(bc_tensor_wrap(BC_FLOAT32, sq, nullptr, 2, m, sizeof m, nullptr, nullptr, &self), BC_OK);
  ASSERT_EQ(bc_tensor_wrap(BC_FLOAT32, sq, tstr, 2, m, sizeof m, nullptr, nullptr, &tr), BC_OK);
  Tensor hs(self), ht(tr);
  EXPECT_TRUE(Fails(bc_binary_(BC_ADD, self, tr), BC_ERR_OVERLAP, kPartialOverlap));
  for (int k = 0; k < 9; ++k) EXPECT_EQ(m[k], static_cast<float>(k));
  // Overlap between two inputs is fine.
  Tensor o = Zeros(BC_FLOAT32, {3, 3});
  ASSERT_EQ(bc_binary_out(BC_ADD, self, tr, o.get()), BC_OK) << bc_last_error();
  Host got = FromTensor(o.get());
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) EXPECT_EQ(got.v[i * 3 + j].f, (i * 3 + j) + (j * 3 + i));
}

TEST(Overlap, ExactAliasingWorks) {
  std::mt19937 rng(3);
  Host h = RandomHost(BC_FLOAT32, {5, 7}, rng);
  Tensor a = ToTensor(h);
  // a.add_(a)
  ASSERT_EQ(bc_binary_(BC_ADD, a.get(), a.get()), BC_OK) << bc_last_error();
  EXPECT_TRUE(SameHost(FromTensor(a.get()), RefBinary(BC_ADD, h, h)));
  // out is the same view as an input, through a separate handle.
  Host h2 = FromTensor(a.get());
  bc_tensor* v = nullptr;
  ASSERT_EQ(bc_tensor_view(a.get(), &v), BC_OK);
  Tensor view(v);
  Tensor b = ToTensor(RandomHost(BC_FLOAT32, {7}, rng));
  Host hb = FromTensor(b.get());
  ASSERT_EQ(bc_binary_out(BC_MUL, a.get(), b.get(), v), BC_OK) << bc_last_error();
  EXPECT_TRUE(SameHost(FromTensor(a.get()), RefBinary(BC_MUL, h2, hb)));
  // Two wraps of one buffer with the same layout are an exact alias too.
  alignas(8) int32_t buf[6] = {1, 2, 3, 4, 5, 6};
  int64_t shape[] = {2, 3};
  bc_tensor *w1 = nullptr, *w2 = nullptr;
  ASSERT_EQ(bc_tensor_wrap(BC_INT32, shape, nullptr, 2, buf, sizeof buf, nullptr, nullptr, &w1), BC_OK);
  ASSERT_EQ(bc_tensor_wrap(BC_INT32, shape, nullptr, 2, buf, sizeof buf, nullptr, nullptr, &w2), BC_OK);
  Tensor hw1(w1), hw2(w2);
  ASSERT_EQ(bc_binary_out(BC_MUL, w1, w2, w1), BC_OK) << bc_last_error();
  const int32_t want[] = {1, 4, 9, 16, 25, 36};
  for (int k = 0; k < 6; ++k) EXPECT_EQ(buf[k], want[k]);
  // Ternary in place with self as every operand.
  Tensor t = ToTensor(MakeHost(BC_FLOAT64, {3}, {1, 2, 3}));
  ASSERT_EQ(bc_addcmul_(t.get(), t.get(), t.get(), 1.0), BC_OK) << bc_last_error();
  EXPECT_TRUE(SameHost(FromTensor(t.get()), MakeHost(BC_FLOAT64, {3}, {2, 6, 12})));
}

// ---------------------------------------------------------------------------
// Division by zero and other late failures write nothing.

TEST(NothingWritten, DivisionByZeroInPlaceAndOut) {
  // The zero is in the last element so a kernel that writes as it goes would be caught.
  std::vector<double> vals(1000, 3);
  vals.back() = 0;
  Tensor b = ToTensor(MakeHost(BC_INT64, {1000}, vals));
  Tensor a = Sentinel(BC_INT64, {4, 1000});
  std::vector<unsigned char> before = RawBytes(a.get());
  for (bc_op op : {BC_DIV_TRUNC, BC_DIV_FLOOR, BC_REMAINDER, BC_FMOD}) {
    EXPECT_TRUE(Fails(bc_binary_(op, a.get(), b.get()), BC_ERR_DIVISION_BY_ZERO, "ZeroDivisionError"));
    EXPECT_EQ(RawBytes(a.get()), before);
    Tensor o = Sentinel(BC_INT64, {4, 1000});
    std::vector<unsigned char> obefore = RawBytes(o.get());
    EXPECT_TRUE(Fails(bc_binary_out(op, a.get(), b.get(), o.get()), BC_ERR_DIVISION_BY_ZERO, "ZeroDivisionError"));
    EXPECT_EQ(RawBytes(o.get()), obefore);
  }
  // Zero in a 0-dim divisor, mixed dtypes (uint8 promoted to int16).
  Tensor z = ToTensor(MakeHost(BC_UINT8, {}, {0}));
  Tensor s = Sentinel(BC_INT16, {3});
  std::vector<unsigned char> sb = RawBytes(s.get());
  EXPECT_TRUE(Fails(bc_binary_(BC_REMAINDER, s.get(), z.get()), BC_ERR_DIVISION_BY_ZERO, "ZeroDivisionError"));
  EXPECT_EQ(RawBytes(s.get()), sb);
}

TEST(NothingWritten, IntegerDivisionWithEmptyResultIsNotAnError) {
  // PyTorch checks the divisor element by element: nothing computed, nothing to refuse.
  Tensor a = ToTensor(Iota(BC_INT32, {2, 0})), zero = ToTensor(MakeHost(BC_INT32, {}, {0}));
  for (bc_op op : {BC_DIV_TRUNC, BC_DIV_FLOOR, BC_REMAINDER, BC_FMOD}) {
    bc_tensor* out = nullptr;
    ASSERT_EQ(bc_binary(op, a.get(), zero.get(), &out), BC_OK) << bc_op_name(op) << ": " << bc_last_error();
    Tensor r(out);
    EXPECT_EQ(ShapeOf(out), (Shape{2, 0}));
  }
}

TEST(NothingWritten, OutputUntouchedByEveryFailureKind) {
  Tensor o = Sentinel(BC_FLOAT32, {2, 3});
  std::vector<unsigned char> before = RawBytes(o.get());
  Tensor a = ToTensor(Iota(BC_FLOAT32, {2, 3})), bad = ToTensor(Iota(BC_FLOAT32, {4}));
  Tensor f64 = ToTensor(Iota(BC_FLOAT64, {2, 3}));
  Tensor i = ToTensor(Iota(BC_INT32, {2, 3}));
  EXPECT_NE(bc_binary_out(BC_ADD, a.get(), bad.get(), o.get()), BC_OK);
  EXPECT_NE(bc_binary_out(BC_BITWISE_AND, a.get(), a.get(), o.get()), BC_OK);
  EXPECT_NE(bc_binary_out(BC_HYPOT, i.get(), i.get(), o.get()), BC_OK);
  EXPECT_NE(bc_binary_out(static_cast<bc_op>(40), a.get(), a.get(), o.get()), BC_OK);
  EXPECT_NE(bc_lerp_out(a.get(), f64.get(), a.get(), o.get()), BC_OK);
  EXPECT_NE(bc_where_out(a.get(), a.get(), a.get(), o.get()), BC_OK);  // float condition
  EXPECT_EQ(RawBytes(o.get()), before);
  Tensor oi = Sentinel(BC_INT32, {2, 3});
  std::vector<unsigned char> ibefore = RawBytes(oi.get());
  EXPECT_NE(bc_binary_out(BC_ADD, a.get(), a.get(), oi.get()), BC_OK);
  EXPECT_NE(bc_addcmul_out(a.get(), a.get(), a.get(), 1.0, oi.get()), BC_OK);
  EXPECT_NE(bc_clamp_out(a.get(), a.get(), nullptr, oi.get()), BC_OK);
  EXPECT_EQ(RawBytes(oi.get()), ibefore);
}

// ---------------------------------------------------------------------------
// copy_

TEST(Copy, BroadcastsAndConvertsAnyDtype) {
  std::mt19937 rng(4);
  for (bc_dtype from : kAllDtypes) {
    for (bc_dtype to : kAllDtypes) {
      Host src = RandomHost(from, {3}, rng, false);
      if (IsFloat(from) && !IsFloat(to)) {
        // Out-of-range float -> int is undefined in C++ and PyTorch: keep values small and positive.
        for (Val& v : src.v) v.f = RoundTo(from, std::uniform_int_distribution<int>(0, 100)(rng) / 4.0);
      }
      Tensor ts = ToTensor(src);
      Tensor dst = Sentinel(to, {2, 3});
      ASSERT_EQ(bc_copy_(dst.get(), ts.get()), BC_OK) << ShortName(from) << " -> " << ShortName(to) << ": " << bc_last_error();
      Host want;
      want.dtype = to;
      want.shape = {2, 3};
      for (int r = 0; r < 2; ++r)
        for (int k = 0; k < 3; ++k) want.v.push_back(ConvertVal(src.v[k], from, to));
      EXPECT_TRUE(SameHost(FromTensor(dst.get()), want)) << ShortName(from) << " -> " << ShortName(to);
    }
  }
}

TEST(Copy, IntoStridedDestination) {
  alignas(8) int16_t buf[12];
  for (int16_t& x : buf) x = -1;
  int64_t shape[] = {3, 2}, strides[] = {1, 6};  // transposed, using elements 0..2 and 6..8
  bc_tensor* d = nullptr;
  ASSERT_EQ(bc_tensor_wrap(BC_INT16, shape, strides, 2, buf, sizeof buf, nullptr, nullptr, &d), BC_OK);
  Tensor dst(d);
  Tensor src = ToTensor(MakeHost(BC_INT64, {3, 2}, {1, 2, 3, 4, 5, 6}));
  ASSERT_EQ(bc_copy_(d, src.get()), BC_OK) << bc_last_error();
  const int16_t want[12] = {1, 3, 5, -1, -1, -1, 2, 4, 6, -1, -1, -1};
  for (int k = 0; k < 12; ++k) EXPECT_EQ(buf[k], want[k]) << k;
}

TEST(Copy, ShapeErrors) {
  Tensor dst = Sentinel(BC_FLOAT32, {2, 3});
  std::vector<unsigned char> before = RawBytes(dst.get());
  Tensor s4 = ToTensor(Iota(BC_FLOAT32, {4}));
  EXPECT_TRUE(Fails(bc_copy_(dst.get(), s4.get()), BC_ERR_NOT_BROADCASTABLE,
                    "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"));
  Tensor d13 = Sentinel(BC_FLOAT32, {1, 3});
  Tensor s23 = ToTensor(Iota(BC_FLOAT32, {2, 3}));
  std::vector<unsigned char> before13 = RawBytes(d13.get());
  EXPECT_TRUE(Fails(bc_copy_(d13.get(), s23.get()), BC_ERR_SHAPE_MISMATCH,
                    "output with shape [1, 3] doesn't match the broadcast shape [2, 3]"));
  EXPECT_EQ(RawBytes(dst.get()), before);
  EXPECT_EQ(RawBytes(d13.get()), before13);
  // Self-copy is a no-op that succeeds.
  ASSERT_EQ(bc_copy_(dst.get(), dst.get()), BC_OK);
  EXPECT_EQ(RawBytes(dst.get()), before);
}

}  // namespace
}  // namespace bct
