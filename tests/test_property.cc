// Property tests: random shapes (up to 5 dims), random strides and
// permutations, random ops and dtypes, all checked by naive index arithmetic.
// A fixed seed keeps failures reproducible; the iteration is printed.
#include <gtest/gtest.h>

#include <iterator>

#include "test_util.h"

namespace bct {
namespace {

// A random shape and a second one broadcastable with it: each aligned dim of
// the second is the same, 1, or dropped from the left.
void RandomBroadcastablePair(std::mt19937& rng, Shape* a, Shape* b) {
  std::uniform_int_distribution<int> nd(0, 5), size(0, 4), pct(0, 99);
  int n = nd(rng);
  Shape full(n);
  for (int i = 0; i < n; ++i) full[i] = pct(rng) < 5 ? 0 : std::max(1, size(rng));
  auto derive = [&](Shape* s) {
    int keep = std::uniform_int_distribution<int>(0, n)(rng);
    s->assign(full.end() - keep, full.end());
    for (int64_t& d : *s)
      if (pct(rng) < 35) d = 1;
  };
  derive(a);
  derive(b);
  if (pct(rng) < 50) std::swap(*a, *b);
}

// Expected failure text for two non-broadcastable shapes (PyTorch's infer_size).
std::string MismatchText(const Shape& a, const Shape& b, bc_error_detail* d) {
  size_t n = std::max(a.size(), b.size());
  for (size_t i = n; i-- > 0;) {
    size_t off = n - 1 - i;
    int64_t x = off < a.size() ? a[a.size() - 1 - off] : 1;
    int64_t y = off < b.size() ? b[b.size() - 1 - off] : 1;
    if (x != y && x != 1 && y != 1) {
      d->dim = static_cast<int32_t>(i);
      d->size_a = x;
      d->size_b = y;
      return "The size of tensor a (" + std::to_string(x) + ") must match the size of tensor b (" +
             std::to_string(y) + ") at non-singleton dimension " + std::to_string(i);
    }
  }
  return "";
}

const bc_op kPropertyOps[] = {BC_ADD,   BC_SUB,     BC_MUL,     BC_DIV,      BC_DIV_FLOOR,
                              BC_FMOD,  BC_REMAINDER, BC_MAXIMUM, BC_FMIN,   BC_COPYSIGN,
                              BC_LT,    BC_NE,      BC_LOGICAL_OR, BC_BITWISE_XOR, BC_SHIFT_RIGHT,
                              BC_POW};

TEST(Property, RandomBroadcastStridedBinary) {
  std::mt19937 rng(20240601);
  std::uniform_int_distribution<int> pct(0, 99);
  for (int iter = 0; iter < 1500; ++iter) {
    Shape sa, sb;
    RandomBroadcastablePair(rng, &sa, &sb);
    bc_op op = kPropertyOps[std::uniform_int_distribution<size_t>(0, std::size(kPropertyOps) - 1)(rng)];
    bc_dtype da = kAllDtypes[std::uniform_int_distribution<int>(0, 9)(rng)];
    bc_dtype db = pct(rng) < 60 ? da : kAllDtypes[std::uniform_int_distribution<int>(0, 9)(rng)];
    bc_dtype common = ResultType({{da, sa.empty()}, {db, sb.empty()}});
    if (OpSupportFor(op, da, db, common) != Support::kYes) continue;
    Host a = RandomHost(da, sa, rng), b = RandomRhs(op, db, sb, rng);
    if (IsIntDivision(op) && !IsFloat(common))
      for (Val& v : b.v)
        if (ConvertVal(v, db, common).i == 0) v = IVal(1);
    Tensor ta = pct(rng) < 70 ? ToStridedTensor(a, rng) : ToTensor(a);
    Tensor tb = pct(rng) < 70 ? ToStridedTensor(b, rng) : ToTensor(b);
    Host want = RefBinary(op, a, b);
    std::string what = "iter " + std::to_string(iter) + ": " + bc_op_name(op) + " " + ShortName(da) +
                       ShapeStr(sa) + " " + ShortName(db) + ShapeStr(sb);
    bc_tensor* out = nullptr;
    ASSERT_EQ(bc_binary(op, ta.get(), tb.get(), &out), BC_OK) << what << ": " << bc_last_error();
    Tensor r(out);
    ASSERT_TRUE(SameHost(FromTensor(out), want, CmpFor(op), UlpsFor(op, want.dtype))) << what;
    // out= into a strided (permuted) destination.
    Host zeros = want;
    for (Val& v : zeros.v) v = Val();
    Tensor o = ToStridedTensor(zeros, rng);
    ASSERT_EQ(bc_binary_out(op, ta.get(), tb.get(), o.get()), BC_OK) << what << ": " << bc_last_error();
    ASSERT_TRUE(SameHost(FromTensor(o.get()), want, CmpFor(op), UlpsFor(op, want.dtype))) << what << " (out=)";
    // In place when self keeps shape and dtype.
    if (sa == want.shape && da == want.dtype) {
      Tensor self = ToStridedTensor(a, rng);
      ASSERT_EQ(bc_binary_(op, self.get(), tb.get()), BC_OK) << what << ": " << bc_last_error();
      ASSERT_TRUE(SameHost(FromTensor(self.get()), want, CmpFor(op), UlpsFor(op, want.dtype))) << what << " (in place)";
    }
  }
}

// Rows of every width the executor treats differently (shorter than a
// vector and laid out as long rows; a vector or more, a block of rows a
// kernel call), broadcast along 1 to 3 outer dims, for each kind of kernel:
// binary (out=, strided out=, in place), ternary (where), unary (neg) and
// the engine's copy. A kernel that moved one operand wrongly from row to
// row, or an executor that split blocks wrongly, gives wrong elements.
void RandomRowShapes(std::mt19937& rng, Shape* a, Shape* b) {
  static const int64_t kInner[] = {1, 2, 7, 8, 15, 16, 17, 31, 64, 65, 130};
  std::uniform_int_distribution<int> nd(2, 4), outer(1, 5), pct(0, 99);
  const int n = nd(rng);
  Shape full(n);
  for (int i = 0; i < n - 1; ++i) full[i] = outer(rng);
  full[n - 1] = kInner[std::uniform_int_distribution<size_t>(0, std::size(kInner) - 1)(rng)];
  auto derive = [&](Shape* s) {
    *s = full;
    for (int64_t& d : *s)
      if (pct(rng) < 40) d = 1;
    if (pct(rng) < 20) s->erase(s->begin());
  };
  derive(a);
  derive(b);
}

TEST(Property, RowBlocksOfEveryKernelKind) {
  std::mt19937 rng(4242);
  std::uniform_int_distribution<int> pct(0, 99);
  const bc_op kOps[] = {BC_ADD, BC_MUL, BC_SUB, BC_MAXIMUM, BC_LT, BC_BITWISE_AND};
  for (int iter = 0; iter < 600; ++iter) {
    Shape sa, sb, rs;
    RandomRowShapes(rng, &sa, &sb);
    ASSERT_TRUE(RefBroadcast(sa, sb, &rs));
    const bc_op op = kOps[std::uniform_int_distribution<size_t>(0, std::size(kOps) - 1)(rng)];
    const bc_dtype d = kAllDtypes[std::uniform_int_distribution<int>(0, 9)(rng)];
    std::string what = "iter " + std::to_string(iter) + ": " + ShortName(d) + ShapeStr(sa) +
                       ShapeStr(sb) + " ";
    const Host a = RandomHost(d, sa, rng), b = RandomHost(d, sb, rng);
    const Tensor ta = pct(rng) < 50 ? ToStridedTensor(a, rng, false, 1) : ToTensor(a);
    const Tensor tb = pct(rng) < 50 ? ToStridedTensor(b, rng, false, 1) : ToTensor(b);
    if (OpSupportFor(op, d, d, d) == Support::kYes) {
      const Host want = RefBinary(op, a, b);
      Host zeros = want;
      for (Val& v : zeros.v) v = Val();
      Tensor o = pct(rng) < 70 ? ToTensor(zeros) : ToStridedTensor(zeros, rng, false, 2);
      ASSERT_EQ(bc_binary_out(op, ta.get(), tb.get(), o.get()), BC_OK) << what << bc_last_error();
      ASSERT_TRUE(SameHost(FromTensor(o.get()), want, CmpFor(op), UlpsFor(op, want.dtype)))
          << what << bc_op_name(op);
      if (sa == rs && want.dtype == d) {
        Tensor self = ToTensor(a);
        ASSERT_EQ(bc_binary_(op, self.get(), tb.get()), BC_OK) << what << bc_last_error();
        ASSERT_TRUE(SameHost(FromTensor(self.get()), want, CmpFor(op), UlpsFor(op, want.dtype)))
            << what << bc_op_name(op) << " in place";
      }
    }
    // where(c, a, b), c broadcast like a or b.
    const Host c = RandomHost(BC_BOOL, pct(rng) < 50 ? sa : sb, rng);
    const Tensor tc = ToTensor(c);
    Host wsel;
    wsel.dtype = d;
    wsel.shape = rs;
    ForEachIndex(rs, [&](int64_t, const Shape& idx) {
      const bool cv = c.v[SourceIndex(c.shape, rs, idx)].i != 0;
      wsel.v.push_back(cv ? a.v[SourceIndex(sa, rs, idx)] : b.v[SourceIndex(sb, rs, idx)]);
    });
    bc_tensor* out = nullptr;
    ASSERT_EQ(bc_where(tc.get(), ta.get(), tb.get(), &out), BC_OK) << what << bc_last_error();
    Tensor w(out);
    ASSERT_TRUE(SameHost(FromTensor(out), wsel)) << what << "where";
    // copy_ of a broadcast into the result's shape, and neg of it.
    Host expanded;
    expanded.dtype = d;
    expanded.shape = rs;
    ForEachIndex(rs, [&](int64_t, const Shape& idx) { expanded.v.push_back(b.v[SourceIndex(sb, rs, idx)]); });
    Host zeros = expanded;
    for (Val& v : zeros.v) v = Val();
    Tensor dst = ToTensor(zeros);
    ASSERT_EQ(bc_copy_(dst.get(), tb.get()), BC_OK) << what << bc_last_error();
    ASSERT_TRUE(SameHost(FromTensor(dst.get()), expanded)) << what << "copy_";
    if (d == BC_FLOAT32 || d == BC_FLOAT64) {
      Host neg = expanded;
      for (Val& v : neg.v) v.f = -v.f;
      Tensor o = ToTensor(zeros);
      bc_tensor* view = nullptr;
      ASSERT_EQ(bc_expand(tb.get(), rs.data(), rs.size(), &view), BC_OK) << bc_last_error();
      Tensor tv(view);
      ASSERT_EQ(bc_unary_out(BC_NEG, view, o.get()), BC_OK) << what << bc_last_error();
      ASSERT_TRUE(SameHost(FromTensor(o.get()), neg)) << what << "neg";
    }
  }
}

TEST(Property, RandomShapesAgreeWithNaiveRules) {
  std::mt19937 rng(777);
  std::uniform_int_distribution<int> nd(0, 5), size(0, 3);
  int failures = 0;
  for (int iter = 0; iter < 2000; ++iter) {
    Shape a(nd(rng)), b(nd(rng));
    for (int64_t& d : a) d = size(rng);
    for (int64_t& d : b) d = size(rng);
    Shape want;
    bool ok = RefBroadcast(a, b, &want);
    int64_t buf[8];
    size_t n = 99;
    bc_status st = bc_broadcast_shapes(a.data(), a.size(), b.data(), b.size(), buf, sizeof buf / sizeof buf[0], &n);
    std::string what = ShapeStr(a) + " " + ShapeStr(b);
    if (ok) {
      ASSERT_EQ(st, BC_OK) << what << ": " << bc_last_error();
      ASSERT_EQ(Shape(buf, buf + n), want) << what;
    } else {
      ++failures;
      bc_error_detail d{};
      std::string msg = MismatchText(a, b, &d);
      ASSERT_TRUE(Fails(st, BC_ERR_NOT_BROADCASTABLE, msg)) << what;
      bc_error_detail got = LastDetail();
      ASSERT_EQ(got.dim, d.dim) << what;
      ASSERT_EQ(got.size_a, d.size_a) << what;
      ASSERT_EQ(got.size_b, d.size_b) << what;
      // The op gives the same text.
      Tensor ta = ToTensor(Iota(BC_INT8, a, 0, 0)), tb = ToTensor(Iota(BC_INT8, b, 0, 0));
      bc_tensor* out = kPoison;
      ASSERT_TRUE(Fails(bc_binary(BC_BITWISE_OR, ta.get(), tb.get(), &out), BC_ERR_NOT_BROADCASTABLE, msg)) << what;
      ASSERT_EQ(out, nullptr);
    }
  }
  EXPECT_GT(failures, 100);
}

TEST(Property, RandomNaryShapes) {
  std::mt19937 rng(4242);
  for (int iter = 0; iter < 500; ++iter) {
    int count = std::uniform_int_distribution<int>(1, 5)(rng);
    std::vector<Shape> shapes(count);
    for (Shape& s : shapes) {
      s.resize(std::uniform_int_distribution<int>(0, 4)(rng));
      for (int64_t& d : s) d = std::uniform_int_distribution<int>(1, 3)(rng) == 1 ? 1 : std::uniform_int_distribution<int>(0, 3)(rng);
    }
    Shape want;
    bool ok = true;
    for (const Shape& s : shapes) ok = ok && RefBroadcast(want, s, &want);
    std::vector<const int64_t*> ptrs;
    std::vector<size_t> nds;
    for (const Shape& s : shapes) {
      ptrs.push_back(s.data());
      nds.push_back(s.size());
    }
    int64_t buf[8];
    size_t n = 99;
    bc_status st = bc_broadcast_shapes_n(ptrs.data(), nds.data(), shapes.size(), buf, sizeof buf / sizeof buf[0], &n);
    if (ok) {
      ASSERT_EQ(st, BC_OK) << "iter " << iter << ": " << bc_last_error();
      ASSERT_EQ(Shape(buf, buf + n), want) << "iter " << iter;
    } else {
      // (The exact text, which names the shapes, is checked against PyTorch by
      // tests/differential/test_torch.py and test_shapes.cc.)
      ASSERT_EQ(st, BC_ERR_NOT_BROADCASTABLE) << "iter " << iter;
      ASSERT_EQ(std::string(bc_last_error()).rfind("Attempting to broadcast a dimension of length ", 0), 0u)
          << "iter " << iter << ": " << bc_last_error();
    }
  }
}

TEST(Property, RandomWhereAndClamp) {
  std::mt19937 rng(31337);
  for (int iter = 0; iter < 400; ++iter) {
    Shape s1, s2, s3, tmp;
    RandomBroadcastablePair(rng, &s1, &s2);
    RefBroadcast(s1, s2, &tmp);
    // A third shape broadcastable with both: derived from their result.
    s3 = tmp;
    for (int64_t& d : s3)
      if (std::uniform_int_distribution<int>(0, 2)(rng) == 0) d = 1;
    if (!s3.empty() && std::uniform_int_distribution<int>(0, 2)(rng) == 0) s3.erase(s3.begin());
    bc_dtype d = kAllDtypes[std::uniform_int_distribution<int>(1, 9)(rng)];
    Host c = RandomHost(BC_BOOL, s1, rng), a = RandomHost(d, s2, rng), b = RandomHost(d, s3, rng);
    Tensor tc = ToStridedTensor(c, rng), ta = ToStridedTensor(a, rng), tb = ToStridedTensor(b, rng);
    Shape rs;
    RefBroadcast(tmp, s3, &rs);
    Host want;
    want.dtype = d;
    want.shape = rs;
    ForEachIndex(rs, [&](int64_t, const Shape& idx) {
      bool cv = c.v[SourceIndex(s1, rs, idx)].i != 0;
      want.v.push_back(cv ? a.v[SourceIndex(s2, rs, idx)] : b.v[SourceIndex(s3, rs, idx)]);
    });
    bc_tensor* out = nullptr;
    ASSERT_EQ(bc_where(tc.get(), ta.get(), tb.get(), &out), BC_OK) << "iter " << iter << ": " << bc_last_error();
    Tensor r(out);
    ASSERT_TRUE(SameHost(FromTensor(out), want)) << "iter " << iter << " where " << ShortName(d) << ShapeStr(s1)
                                                 << ShapeStr(s2) << ShapeStr(s3);
    // clamp(a, lo = b, hi = a + something) on the same shapes.
    Host lo = RandomHost(d, s1, rng), hi = RandomHost(d, s3, rng);
    Tensor tlo = ToStridedTensor(lo, rng), thi = ToTensor(hi);
    Host wc;
    wc.dtype = d;
    wc.shape = rs;
    ForEachIndex(rs, [&](int64_t, const Shape& idx) {
      Val x = a.v[SourceIndex(s2, rs, idx)], l = lo.v[SourceIndex(s1, rs, idx)], h = hi.v[SourceIndex(s3, rs, idx)];
      if (IsFloat(d)) {
        bool nan = std::isnan(x.f) || std::isnan(l.f) || std::isnan(h.f);
        wc.v.push_back(FVal(nan ? std::numeric_limits<double>::quiet_NaN() : std::min(std::max(x.f, l.f), h.f)));
      } else {
        wc.v.push_back(IVal(std::min(std::max(x.i, l.i), h.i)));
      }
    });
    ASSERT_EQ(bc_clamp(ta.get(), tlo.get(), thi.get(), &out), BC_OK) << "iter " << iter << ": " << bc_last_error();
    Tensor rc(out);
    ASSERT_TRUE(SameHost(FromTensor(out), wc, Cmp::kZeroSignFree)) << "iter " << iter << " clamp " << ShortName(d);
  }
}

TEST(Property, ExpandThenSumToShapeRoundTrip) {
  std::mt19937 rng(99);
  for (int iter = 0; iter < 200; ++iter) {
    Shape small, big;
    RandomBroadcastablePair(rng, &small, &big);
    Shape full;
    RefBroadcast(small, big, &full);
    Host h;
    h.dtype = BC_INT32;
    h.shape = small;
    for (int64_t k = 0; k < NumelOf(small); ++k) h.v.push_back(IVal(std::uniform_int_distribution<int>(-50, 50)(rng)));
    Tensor t = ToStridedTensor(h, rng);
    bc_tensor* e = nullptr;
    ASSERT_EQ(bc_expand(t.get(), full.data(), full.size(), &e), BC_OK)
        << "iter " << iter << " " << ShapeStr(small) << " -> " << ShapeStr(full) << ": " << bc_last_error();
    Tensor he(e);
    Host eh = FromTensor(e);
    ForEachIndex(full, [&](int64_t k, const Shape& idx) {
      ASSERT_EQ(eh.v[k].i, h.v[SourceIndex(small, full, idx)].i) << "iter " << iter;
    });
    if (small.size() > full.size()) continue;
    bc_tensor* s = nullptr;
    ASSERT_EQ(bc_sum_to_shape(e, small.data(), small.size(), &s), BC_OK) << "iter " << iter << ": " << bc_last_error();
    Tensor hs(s);
    int64_t repeat = NumelOf(small) == 0 ? 0 : NumelOf(full) / NumelOf(small);
    Host got = FromTensor(s);
    // PyTorch's sum_to keeps the dtype when it reduces nothing.
    bool reduces = small.empty() || small.size() < full.size();
    for (size_t i = 0; i < small.size(); ++i) reduces |= small[i] == 1 && full[full.size() - small.size() + i] != 1;
    ASSERT_EQ(got.dtype, reduces ? BC_INT64 : BC_INT32);
    ASSERT_EQ(got.shape, small);
    for (size_t k = 0; k < got.v.size(); ++k) ASSERT_EQ(got.v[k].i, h.v[k].i * repeat) << "iter " << iter;
  }
}

}  // namespace
}  // namespace bct
