// Ternary ops (where, addcmul, addcdiv, lerp, clamp) with three-way
// broadcasting, against naive references written from PyTorch's kernels.
#include <gtest/gtest.h>

#include <functional>

#include "test_util.h"

namespace bct {
namespace {

using Fn3 = std::function<Val(Val, Val, Val)>;

// Broadcasts three hosts by naive index arithmetic; `conv[i]` is the dtype
// operand i is converted to before `fn` runs.
Host Ref3(const Host& x, const Host& y, const Host& z, const bc_dtype conv[3], bc_dtype rt, const Fn3& fn) {
  Host r;
  Shape xy;
  EXPECT_TRUE(RefBroadcast(x.shape, y.shape, &xy));
  EXPECT_TRUE(RefBroadcast(xy, z.shape, &r.shape));
  r.dtype = rt;
  r.v.resize(static_cast<size_t>(NumelOf(r.shape)));
  ForEachIndex(r.shape, [&](int64_t k, const Shape& idx) {
    Val a = ConvertVal(x.v[SourceIndex(x.shape, r.shape, idx)], x.dtype, conv[0]);
    Val b = ConvertVal(y.v[SourceIndex(y.shape, r.shape, idx)], y.dtype, conv[1]);
    Val c = ConvertVal(z.v[SourceIndex(z.shape, r.shape, idx)], z.dtype, conv[2]);
    r.v[k] = fn(a, b, c);
  });
  return r;
}

bc_dtype Common3(const Host& x, const Host& y, const Host& z) {
  return ResultType({{x.dtype, x.shape.empty()}, {y.dtype, y.shape.empty()}, {z.dtype, z.shape.empty()}});
}

Val RoundVal(bc_dtype ct, double r) { return FVal(RoundTo(ct, r)); }

Host RefWhere(const Host& c, const Host& a, const Host& b) {
  bc_dtype rt = ResultType({{a.dtype, a.shape.empty()}, {b.dtype, b.shape.empty()}});
  const bc_dtype conv[3] = {BC_BOOL, rt, rt};
  return Ref3(c, a, b, conv, rt, [](Val c, Val a, Val b) { return c.i ? a : b; });
}

// PyTorch 2.x: addcdiv rounds each step; addcmul rounds value * t1, then
// fuses * t2 + s (one rounding).
template <typename C>
Val FloatAddc(bool div, bc_dtype ct, C s, C t1, C t2, double value) {
  C v = static_cast<C>(value);
  C r = div ? s + v * t1 / t2 : std::fma(v * t1, t2, s);
  return RoundVal(ct, static_cast<double>(r));
}

Host RefAddc(bool div, const Host& s, const Host& t1, const Host& t2, double value) {
  bc_dtype ct = Common3(s, t1, t2);
  const bc_dtype conv[3] = {ct, ct, ct};
  return Ref3(s, t1, t2, conv, ct, [=](Val a, Val b, Val c) {
    if (ct == BC_FLOAT64) return FloatAddc<double>(div, ct, a.f, b.f, c.f, value);
    if (IsFloat(ct)) return FloatAddc<float>(div, ct, static_cast<float>(a.f), static_cast<float>(b.f), static_cast<float>(c.f), value);
    uint64_t v = static_cast<uint64_t>(WrapInt(static_cast<uint64_t>(static_cast<int64_t>(value)), ct));
    return IVal(WrapInt(static_cast<uint64_t>(a.i) + v * static_cast<uint64_t>(b.i) * static_cast<uint64_t>(c.i), ct));
  });
}

// at::native lerp (exact at both ends), fused as PyTorch 2.x's loops:
// end - diff * (1 - weight) in one rounding.
template <typename C>
C LerpScalar(C self, C end, C weight) {
  return std::abs(weight) < C(0.5) ? std::fma(weight, end - self, self)
                                   : std::fma(-(end - self), C(1) - weight, end);
}

Host RefLerp(const Host& s, const Host& e, const Host& w) {
  bc_dtype ct = s.dtype;
  const bc_dtype conv[3] = {ct, ct, ct};
  return Ref3(s, e, w, conv, ct, [=](Val a, Val b, Val c) {
    if (ct == BC_FLOAT64) return FVal(LerpScalar<double>(a.f, b.f, c.f));
    return RoundVal(ct, LerpScalar<float>(static_cast<float>(a.f), static_cast<float>(b.f), static_cast<float>(c.f)));
  });
}

// clamp with optional bounds (nullptr host = absent), NaN-propagating.
Host RefClamp(const Host& x, const Host* lo, const Host* hi) {
  std::vector<Operand> ops = {{x.dtype, x.shape.empty()}};
  if (lo) ops.push_back({lo->dtype, lo->shape.empty()});
  if (hi) ops.push_back({hi->dtype, hi->shape.empty()});
  bc_dtype ct = ResultType(ops);
  const double inf = std::numeric_limits<double>::infinity();
  // Absent bounds become a 0-dim +-inf (or the integer extremes) that never wins.
  Host nlo = IsFloat(ct) ? MakeHost(BC_FLOAT64, {}, {-inf}) : MakeHost(BC_INT64, {}, {0});
  Host nhi = IsFloat(ct) ? MakeHost(BC_FLOAT64, {}, {inf}) : MakeHost(BC_INT64, {}, {0});
  if (!IsFloat(ct)) {
    nlo.v[0] = IVal(IntMin(ct));
    nhi.v[0] = IVal(IntMax(ct));
  }
  const bc_dtype conv[3] = {ct, lo ? ct : nlo.dtype, hi ? ct : nhi.dtype};
  return Ref3(x, lo ? *lo : nlo, hi ? *hi : nhi, conv, ct, [=](Val a, Val l, Val h) {
    if (!IsFloat(ct)) return IVal(std::min(std::max(a.i, l.i), h.i));
    if (std::isnan(a.f) || std::isnan(l.f) || std::isnan(h.f)) return FVal(std::numeric_limits<double>::quiet_NaN());
    return FVal(std::min(std::max(a.f, l.f), h.f));
  });
}

struct Shapes3 {
  const char* name;
  Shape x, y, z;
};
const Shapes3 kShapes3[] = {
    {"same", {3, 4}, {3, 4}, {3, 4}},
    {"col_row_scalar", {3, 1}, {1, 4}, {}},
    {"three_way", {2, 1, 4}, {3, 1}, {4}},
    {"scalar_first", {}, {2, 3}, {3}},
    {"all_zero_dim", {}, {}, {}},
    {"size_zero", {0, 1}, {1, 3}, {1}},
    {"long", {5, 67}, {67}, {5, 1}},
};

// ---------------------------------------------------------------------------
// where

TEST(Where, ThreeWayBroadcastEveryDtype) {
  std::mt19937 rng(5);
  for (bc_dtype d : kAllDtypes) {
    for (const Shapes3& s : kShapes3) {
      Host c = RandomHost(BC_BOOL, s.x, rng), a = RandomHost(d, s.y, rng), b = RandomHost(d, s.z, rng);
      Tensor tc = ToTensor(c), ta = ToStridedTensor(a, rng), tb = ToTensor(b);
      Host want = RefWhere(c, a, b);
      bc_tensor* out = nullptr;
      ASSERT_EQ(bc_where(tc.get(), ta.get(), tb.get(), &out), BC_OK) << bc_last_error();
      Tensor r(out);
      EXPECT_TRUE(SameHost(FromTensor(out), want)) << s.name << " " << ShortName(d);
      bc_tensor* o = nullptr;
      ASSERT_EQ(bc_tensor_zeros(d, want.shape.data(), want.shape.size(), &o), BC_OK);
      Tensor ho(o);
      ASSERT_EQ(bc_where_out(tc.get(), ta.get(), tb.get(), o), BC_OK) << bc_last_error();
      EXPECT_TRUE(SameHost(FromTensor(o), want)) << s.name << " " << ShortName(d);
    }
  }
}

TEST(Where, MixedDtypesPromote) {
  std::mt19937 rng(6);
  Host c = RandomHost(BC_BOOL, {4, 3}, rng);
  Host a = RandomHost(BC_INT32, {3}, rng);
  Host b = RandomHost(BC_FLOAT16, {4, 1}, rng);
  Tensor tc = ToTensor(c), ta = ToTensor(a), tb = ToTensor(b);
  bc_tensor* out = nullptr;
  ASSERT_EQ(bc_where(tc.get(), ta.get(), tb.get(), &out), BC_OK);
  Tensor r(out);
  EXPECT_EQ(bc_tensor_dtype(out), BC_FLOAT16);
  EXPECT_TRUE(SameHost(FromTensor(out), RefWhere(c, a, b)));
  // A 0-dim float64 does not lift a dimensioned float32.
  Host s = MakeHost(BC_FLOAT64, {}, {0.1});
  Host f = RandomHost(BC_FLOAT32, {4, 3}, rng);
  Tensor ts = ToTensor(s), tf = ToTensor(f);
  ASSERT_EQ(bc_where(tc.get(), ts.get(), tf.get(), &out), BC_OK);
  Tensor r2(out);
  EXPECT_EQ(bc_tensor_dtype(out), BC_FLOAT32);
  EXPECT_TRUE(SameHost(FromTensor(out), RefWhere(c, s, f)));
}

TEST(Where, InPlaceKeepsSelf) {
  std::mt19937 rng(7);
  Host self = RandomHost(BC_FLOAT32, {3, 4}, rng);
  Host c = RandomHost(BC_BOOL, {4}, rng);
  Host other = RandomHost(BC_FLOAT32, {3, 1}, rng);
  Tensor ts = ToTensor(self), tc = ToTensor(c), to = ToTensor(other);
  ASSERT_EQ(bc_where_(ts.get(), tc.get(), to.get()), BC_OK) << bc_last_error();
  EXPECT_TRUE(SameHost(FromTensor(ts.get()), RefWhere(c, self, other)));
  // self cannot grow.
  Host small = RandomHost(BC_FLOAT32, {4}, rng);
  Tensor tsm = ToTensor(small);
  Tensor bigc = ToTensor(RandomHost(BC_BOOL, {3, 4}, rng));
  std::vector<unsigned char> before = RawBytes(tsm.get());
  EXPECT_TRUE(Fails(bc_where_(tsm.get(), bigc.get(), to.get()), BC_ERR_SHAPE_MISMATCH,
                    "output with shape [4] doesn't match the broadcast shape [3, 4]"));
  EXPECT_EQ(RawBytes(tsm.get()), before);
}

TEST(Where, Errors) {
  Tensor c = ToTensor(MakeHost(BC_BOOL, {2}, {1, 0}));
  Tensor fc = ToTensor(MakeHost(BC_FLOAT32, {2}, {1, 0}));
  Tensor a = ToTensor(Iota(BC_FLOAT32, {3})), b = ToTensor(Iota(BC_FLOAT32, {3}));
  Tensor a2 = ToTensor(Iota(BC_FLOAT32, {2}));
  bc_tensor* out = kPoison;
  EXPECT_TRUE(Fails(bc_where(c.get(), a.get(), b.get(), &out), BC_ERR_NOT_BROADCASTABLE,
                    "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"));
  EXPECT_EQ(out, nullptr);
  out = kPoison;
  EXPECT_TRUE(Fails(bc_where(fc.get(), a2.get(), a2.get(), &out), BC_ERR_DTYPE,
                    "where expected condition to be a boolean tensor, but got a tensor with dtype Float"));
  EXPECT_EQ(out, nullptr);
  out = kPoison;
  EXPECT_TRUE(Fails(bc_where(c.get(), a2.get(), nullptr, &out), BC_ERR_INVALID_ARGUMENT));
  EXPECT_EQ(out, nullptr);
}

// ---------------------------------------------------------------------------
// addcmul / addcdiv

TEST(Addcmul, ThreeWayBroadcast) {
  std::mt19937 rng(8);
  const bc_dtype dtypes[] = {BC_UINT8, BC_INT8, BC_INT32, BC_INT64, BC_FLOAT16, BC_BFLOAT16, BC_FLOAT32, BC_FLOAT64};
  for (bc_dtype d : dtypes) {
    for (double value : {1.0, -2.0, 0.5}) {
      if (!IsFloat(d) && value != std::floor(value)) continue;
      if (d == BC_UINT8 && value < 0) continue;  // PyTorch refuses to convert -2 to uint8
      for (const Shapes3& s : kShapes3) {
        Host x = RandomHost(d, s.x, rng), y = RandomHost(d, s.y, rng), z = RandomHost(d, s.z, rng);
        Tensor tx = ToTensor(x), ty = ToStridedTensor(y, rng), tz = ToTensor(z);
        Host want = RefAddc(false, x, y, z, value);
        bc_tensor* out = nullptr;
        ASSERT_EQ(bc_addcmul(tx.get(), ty.get(), tz.get(), value, &out), BC_OK) << bc_last_error();
        Tensor r(out);
        EXPECT_TRUE(SameHost(FromTensor(out), want)) << s.name << " " << ShortName(d) << " value " << value;
        bc_tensor* o = nullptr;
        ASSERT_EQ(bc_tensor_zeros(want.dtype, want.shape.data(), want.shape.size(), &o), BC_OK);
        Tensor ho(o);
        ASSERT_EQ(bc_addcmul_out(tx.get(), ty.get(), tz.get(), value, o), BC_OK) << bc_last_error();
        EXPECT_TRUE(SameHost(FromTensor(o), want)) << s.name;
        if (x.shape == want.shape) {
          ASSERT_EQ(bc_addcmul_(tx.get(), ty.get(), tz.get(), value), BC_OK) << bc_last_error();
          EXPECT_TRUE(SameHost(FromTensor(tx.get()), want)) << s.name;
        }
      }
    }
  }
}

TEST(Addcmul, MixedDtypes) {
  std::mt19937 rng(9);
  Host x = RandomHost(BC_FLOAT32, {2, 3}, rng);
  Host y = RandomHost(BC_INT32, {3}, rng, false);
  Host z = MakeHost(BC_FLOAT64, {}, {0.25});
  Tensor tx = ToTensor(x), ty = ToTensor(y), tz = ToTensor(z);
  bc_tensor* out = nullptr;
  ASSERT_EQ(bc_addcmul(tx.get(), ty.get(), tz.get(), 2.0, &out), BC_OK);
  Tensor r(out);
  EXPECT_EQ(bc_tensor_dtype(out), BC_FLOAT32);
  EXPECT_TRUE(SameHost(FromTensor(out), RefAddc(false, x, y, z, 2.0)));
  Host h = RandomHost(BC_FLOAT16, {3}, rng);
  Tensor th = ToTensor(h);
  ASSERT_EQ(bc_addcmul(th.get(), tx.get(), ty.get(), 1.0, &out), BC_OK);
  Tensor r2(out);
  EXPECT_EQ(bc_tensor_dtype(out), BC_FLOAT32);
  EXPECT_TRUE(SameHost(FromTensor(out), RefAddc(false, h, x, y, 1.0)));
}

TEST(Addcdiv, ThreeWayBroadcast) {
  std::mt19937 rng(10);
  for (bc_dtype d : {BC_FLOAT16, BC_BFLOAT16, BC_FLOAT32, BC_FLOAT64}) {
    for (double value : {1.0, -2.0, 0.5}) {
      for (const Shapes3& s : kShapes3) {
        Host x = RandomHost(d, s.x, rng), y = RandomHost(d, s.y, rng), z = RandomHost(d, s.z, rng);
        Tensor tx = ToTensor(x), ty = ToTensor(y), tz = ToStridedTensor(z, rng);
        Host want = RefAddc(true, x, y, z, value);
        bc_tensor* out = nullptr;
        ASSERT_EQ(bc_addcdiv(tx.get(), ty.get(), tz.get(), value, &out), BC_OK) << bc_last_error();
        Tensor r(out);
        EXPECT_TRUE(SameHost(FromTensor(out), want)) << s.name << " " << ShortName(d) << " value " << value;
        bc_tensor* o = nullptr;
        ASSERT_EQ(bc_tensor_zeros(want.dtype, want.shape.data(), want.shape.size(), &o), BC_OK);
        Tensor ho(o);
        ASSERT_EQ(bc_addcdiv_out(tx.get(), ty.get(), tz.get(), value, o), BC_OK) << bc_last_error();
        EXPECT_TRUE(SameHost(FromTensor(o), want)) << s.name;
        if (x.shape == want.shape) {
          ASSERT_EQ(bc_addcdiv_(tx.get(), ty.get(), tz.get(), value), BC_OK) << bc_last_error();
          EXPECT_TRUE(SameHost(FromTensor(tx.get()), want)) << s.name;
        }
      }
    }
  }
  // An integer numerator over a float denominator is fine.
  Host x = MakeHost(BC_FLOAT32, {3}, {1, 2, 3});
  Host y = MakeHost(BC_INT32, {3}, {1, 2, 3});
  Host z = MakeHost(BC_FLOAT32, {3}, {4, 4, 4});
  Tensor tx = ToTensor(x), ty = ToTensor(y), tz = ToTensor(z);
  bc_tensor* out = nullptr;
  ASSERT_EQ(bc_addcdiv(tx.get(), ty.get(), tz.get(), 1.0, &out), BC_OK) << bc_last_error();
  Tensor r(out);
  EXPECT_TRUE(SameHost(FromTensor(out), MakeHost(BC_FLOAT32, {3}, {1.25, 2.5, 3.75})));
}

TEST(Addcdiv, IntegerOperandsRefused) {
  Tensor x = ToTensor(Iota(BC_FLOAT32, {3})), i = ToTensor(Iota(BC_INT32, {3}, 1)),
         b = ToTensor(MakeHost(BC_BOOL, {3}, {1, 1, 1}));
  bc_tensor* out = kPoison;
  EXPECT_NE(bc_addcdiv(x.get(), i.get(), i.get(), 1.0, &out), BC_OK);
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(LastError().rfind("Integer division with addcdiv is no longer supported", 0), 0u) << LastError();
  out = kPoison;
  EXPECT_NE(bc_addcdiv(x.get(), i.get(), b.get(), 1.0, &out), BC_OK);
  EXPECT_EQ(out, nullptr);
  std::vector<unsigned char> before = RawBytes(x.get());
  EXPECT_NE(bc_addcdiv_(x.get(), i.get(), i.get(), 1.0), BC_OK);
  EXPECT_EQ(RawBytes(x.get()), before);
}

// ---------------------------------------------------------------------------
// lerp

TEST(Lerp, ThreeWayBroadcast) {
  std::mt19937 rng(11);
  for (bc_dtype d : {BC_FLOAT16, BC_BFLOAT16, BC_FLOAT32, BC_FLOAT64}) {
    for (const Shapes3& s : kShapes3) {
      Host x = RandomHost(d, s.x, rng), y = RandomHost(d, s.y, rng);
      Host w = RandomHost(d, s.z, rng, false);
      for (Val& v : w.v) v.f = RoundTo(d, std::uniform_real_distribution<double>(-0.5, 1.5)(rng));
      Tensor tx = ToTensor(x), ty = ToStridedTensor(y, rng), tw = ToTensor(w);
      Host want = RefLerp(x, y, w);
      bc_tensor* out = nullptr;
      ASSERT_EQ(bc_lerp(tx.get(), ty.get(), tw.get(), &out), BC_OK) << bc_last_error();
      Tensor r(out);
      EXPECT_TRUE(SameHost(FromTensor(out), want)) << s.name << " " << ShortName(d);
      bc_tensor* o = nullptr;
      ASSERT_EQ(bc_tensor_zeros(d, want.shape.data(), want.shape.size(), &o), BC_OK);
      Tensor ho(o);
      ASSERT_EQ(bc_lerp_out(tx.get(), ty.get(), tw.get(), o), BC_OK) << bc_last_error();
      EXPECT_TRUE(SameHost(FromTensor(o), want)) << s.name;
      if (x.shape == want.shape) {
        ASSERT_EQ(bc_lerp_(tx.get(), ty.get(), tw.get()), BC_OK) << bc_last_error();
        EXPECT_TRUE(SameHost(FromTensor(tx.get()), want)) << s.name;
      }
    }
  }
}

TEST(Lerp, ExactAtBothEnds) {
  // weight 1 gives end exactly, weight 0 gives start exactly.
  Host s = MakeHost(BC_FLOAT32, {4}, {0.1, -3.3, 1e20, 7});
  Host e = MakeHost(BC_FLOAT32, {4}, {0.7, 1e-3, -1, 7.5});
  Tensor ts = ToTensor(s), te = ToTensor(e);
  Tensor one = ToTensor(MakeHost(BC_FLOAT32, {}, {1})), zero = ToTensor(MakeHost(BC_FLOAT32, {}, {0}));
  bc_tensor* out = nullptr;
  ASSERT_EQ(bc_lerp(ts.get(), te.get(), one.get(), &out), BC_OK);
  Tensor r1(out);
  EXPECT_TRUE(SameHost(FromTensor(out), e));
  ASSERT_EQ(bc_lerp(ts.get(), te.get(), zero.get(), &out), BC_OK);
  Tensor r0(out);
  EXPECT_TRUE(SameHost(FromTensor(out), s));
}

TEST(Lerp, DtypeRules) {
  Tensor f = ToTensor(Iota(BC_FLOAT32, {3})), d = ToTensor(Iota(BC_FLOAT64, {3})), i = ToTensor(Iota(BC_INT32, {3}));
  bc_tensor* out = kPoison;
  EXPECT_TRUE(Fails(bc_lerp(f.get(), d.get(), f.get(), &out), BC_ERR_DTYPE));
  EXPECT_EQ(out, nullptr);
  out = kPoison;
  EXPECT_TRUE(Fails(bc_lerp(f.get(), f.get(), d.get(), &out), BC_ERR_DTYPE));
  EXPECT_EQ(out, nullptr);
  out = kPoison;
  EXPECT_TRUE(Fails(bc_lerp(i.get(), i.get(), i.get(), &out), BC_ERR_DTYPE));
  EXPECT_EQ(out, nullptr);
}

// ---------------------------------------------------------------------------
// clamp

TEST(Clamp, ThreeWayBroadcastEveryDtype) {
  std::mt19937 rng(12);
  for (bc_dtype d : kAllDtypes) {
    if (d == BC_BOOL) continue;
    for (const Shapes3& s : kShapes3) {
      Host x = RandomHost(d, s.x, rng), lo = RandomHost(d, s.y, rng), hi = RandomHost(d, s.z, rng);
      Tensor tx = ToTensor(x), tlo = ToTensor(lo), thi = ToStridedTensor(hi, rng);
      struct Bounds {
        const Host* lo;
        const Host* hi;
        const bc_tensor* tlo;
        const bc_tensor* thi;
      } bounds[] = {{&lo, &hi, tlo.get(), thi.get()}, {&lo, nullptr, tlo.get(), nullptr}, {nullptr, &hi, nullptr, thi.get()}};
      for (const Bounds& b : bounds) {
        Host want = RefClamp(x, b.lo, b.hi);
        std::string what = std::string(s.name) + " " + ShortName(d) + (b.lo ? " lo" : "") + (b.hi ? " hi" : "");
        bc_tensor* out = nullptr;
        ASSERT_EQ(bc_clamp(tx.get(), b.tlo, b.thi, &out), BC_OK) << bc_last_error();
        Tensor r(out);
        EXPECT_TRUE(SameHost(FromTensor(out), want, Cmp::kZeroSignFree)) << what;
        bc_tensor* o = nullptr;
        ASSERT_EQ(bc_tensor_zeros(d, want.shape.data(), want.shape.size(), &o), BC_OK);
        Tensor ho(o);
        ASSERT_EQ(bc_clamp_out(tx.get(), b.tlo, b.thi, o), BC_OK) << bc_last_error();
        EXPECT_TRUE(SameHost(FromTensor(o), want, Cmp::kZeroSignFree)) << what;
        if (x.shape == want.shape) {
          Tensor self = ToTensor(x);
          ASSERT_EQ(bc_clamp_(self.get(), b.tlo, b.thi), BC_OK) << bc_last_error();
          EXPECT_TRUE(SameHost(FromTensor(self.get()), want, Cmp::kZeroSignFree)) << what;
        }
      }
    }
  }
}

TEST(Clamp, KnownValues) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Host x = MakeHost(BC_FLOAT32, {5}, {-5, 0.5, 5, nan, 1});
  Host lo = MakeHost(BC_FLOAT32, {5}, {0, 0, 0, 0, nan});
  Host hi = MakeHost(BC_FLOAT32, {5}, {1, 1, 1, 1, 2});
  Tensor tx = ToTensor(x), tlo = ToTensor(lo), thi = ToTensor(hi);
  bc_tensor* out = nullptr;
  ASSERT_EQ(bc_clamp(tx.get(), tlo.get(), thi.get(), &out), BC_OK);
  Tensor r(out);
  Host got = FromTensor(out);
  EXPECT_EQ(got.v[0].f, 0);
  EXPECT_EQ(got.v[1].f, 0.5);
  EXPECT_EQ(got.v[2].f, 1);
  EXPECT_TRUE(std::isnan(got.v[3].f));
  EXPECT_TRUE(std::isnan(got.v[4].f));
  // lo > hi gives hi.
  Tensor l5 = ToTensor(MakeHost(BC_INT32, {}, {5})), h2 = ToTensor(MakeHost(BC_INT32, {}, {2}));
  Tensor xi = ToTensor(MakeHost(BC_INT32, {3}, {0, 3, 9}));
  ASSERT_EQ(bc_clamp(xi.get(), l5.get(), h2.get(), &out), BC_OK);
  Tensor ri(out);
  EXPECT_TRUE(SameHost(FromTensor(out), MakeHost(BC_INT32, {3}, {2, 2, 2})));
}

TEST(Clamp, PromotesAcrossBounds) {
  Host x = MakeHost(BC_INT32, {3}, {-4, 0, 4});
  Host lo = MakeHost(BC_FLOAT32, {1}, {-1.5});
  Tensor tx = ToTensor(x), tlo = ToTensor(lo);
  bc_tensor* out = nullptr;
  ASSERT_EQ(bc_clamp(tx.get(), tlo.get(), nullptr, &out), BC_OK);
  Tensor r(out);
  EXPECT_TRUE(SameHost(FromTensor(out), MakeHost(BC_FLOAT32, {3}, {-1.5, 0, 4})));
  // A 0-dim float64 bound lifts int32 (higher category) to float64.
  Tensor hi = ToTensor(MakeHost(BC_FLOAT64, {}, {2.5}));
  ASSERT_EQ(bc_clamp(tx.get(), nullptr, hi.get(), &out), BC_OK);
  Tensor r2(out);
  EXPECT_TRUE(SameHost(FromTensor(out), MakeHost(BC_FLOAT64, {3}, {-4, 0, 2.5})));
  // ... which int32 in place cannot hold.
  std::vector<unsigned char> before = RawBytes(tx.get());
  EXPECT_TRUE(Fails(bc_clamp_(tx.get(), tlo.get(), nullptr), BC_ERR_DTYPE,
                    "result type Float can't be cast to the desired output type Int"));
  EXPECT_EQ(RawBytes(tx.get()), before);
}

// An operand layout for the tests below: its shape, and how a host value
// becomes a tensor with that layout.
struct Form {
  const char* name;
  Shape shape;
  std::function<Tensor(const Host&)> make;
};

// where, clamp, addcmul and (when the third operand has the first form) add
// on every SIMD target, for each dtype and every combination of three forms,
// against the references.
void CheckFormsOnEveryTarget(const std::vector<Form>& forms, std::initializer_list<bc_dtype> dtypes,
                             unsigned seed) {
  const char* const targets[] = {"SSSE3", "SSE4", "AVX2", "AVX3"};
  std::mt19937 rng(seed);
  int ran = 0;
  for (const char* target : targets) {
    if (bc_set_simd_cap(target) != BC_OK) continue;
    ++ran;
    for (bc_dtype d : dtypes) {
      for (const Form& fx : forms) {
        for (const Form& fy : forms) {
          for (const Form& fz : forms) {
            std::string what = std::string(target) + " " + ShortName(d) + " " + fx.name + "," +
                               fy.name + "," + fz.name;
            Host c = RandomHost(BC_BOOL, fx.shape, rng);
            Host x = RandomHost(d, fx.shape, rng), y = RandomHost(d, fy.shape, rng),
                 z = RandomHost(d, fz.shape, rng);
            Tensor tc = fx.make(c), tx = fx.make(x), ty = fy.make(y), tz = fz.make(z);
            bc_tensor* out = nullptr;
            ASSERT_EQ(bc_where(tc.get(), ty.get(), tz.get(), &out), BC_OK) << bc_last_error();
            Tensor w(out);
            EXPECT_TRUE(SameHost(FromTensor(out), RefWhere(c, y, z))) << "where " << what;
            ASSERT_EQ(bc_clamp(tx.get(), ty.get(), tz.get(), &out), BC_OK) << bc_last_error();
            Tensor cl(out);
            EXPECT_TRUE(SameHost(FromTensor(out), RefClamp(x, &y, &z), Cmp::kZeroSignFree))
                << "clamp " << what;
            ASSERT_EQ(bc_addcmul(tx.get(), ty.get(), tz.get(), 0.75, &out), BC_OK) << bc_last_error();
            Tensor ac(out);
            EXPECT_TRUE(SameHost(FromTensor(out), RefAddc(false, x, y, z, 0.75))) << "addcmul " << what;
            if (&fz == &forms[0]) {
              ASSERT_EQ(bc_binary(BC_ADD, tx.get(), ty.get(), &out), BC_OK) << bc_last_error();
              Tensor ad(out);
              EXPECT_TRUE(SameHost(FromTensor(out), RefBinary(BC_ADD, x, y))) << "add " << what;
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(bc_set_simd_cap(nullptr), BC_OK);
  EXPECT_GE(ran, 1);
}

// The vector forms (where, clamp, addcmul) on every SIMD target: each operand
// is a full (2, 131) block, a column (2, 1) or a row (1, 131), so every
// combination of contiguous and stride-0 inputs meets vectors and tails.
TEST(Ternary, VectorFormsOnEveryTarget) {
  const std::vector<Form> forms = {{"full", {2, 131}, ToTensor},
                                   {"column", {2, 1}, ToTensor},
                                   {"row", {1, 131}, ToTensor}};
  CheckFormsOnEveryTarget(forms, {BC_FLOAT32, BC_INT32, BC_FLOAT64, BC_BFLOAT16, BC_INT8}, 77);
}

// Short rows laid out as long ones (src/core/execute.cc, ShortRows) on every
// SIMD target: a (5, 6, 7) result, rows of 7, from operands that run through
// it as the output does, repeat a row or a plane with a period (a (7,) row,
// a (1, 6, 7) plane), give one value per row (a (5, 6, 1) column) or are
// one value for a whole block (5, 1, 1), in every combination; and rows of
// 100 (kMediumRow), which are laid out only when no input changes per tile.
TEST(ShortRows, EveryInputKindOnEveryTarget) {
  const std::vector<Form> forms = {{"full", {5, 6, 7}, ToTensor},
                                   {"plane", {1, 6, 7}, ToTensor},
                                   {"column", {5, 6, 1}, ToTensor},
                                   {"outer", {5, 1, 7}, ToTensor},
                                   {"block", {5, 1, 1}, ToTensor}};
  CheckFormsOnEveryTarget(forms, {BC_FLOAT32, BC_FLOAT64, BC_INT8, BC_BFLOAT16}, 79);
  const std::vector<Form> medium = {{"full", {3, 5, 100}, ToTensor},
                                    {"row", {1, 1, 100}, ToTensor},
                                    {"plane", {1, 5, 100}, ToTensor},
                                    {"column", {3, 5, 1}, ToTensor}};
  CheckFormsOnEveryTarget(medium, {BC_FLOAT32, BC_INT16}, 80);
}

// `h` (2-D) stored column-major: a transposed operand.
Tensor ColumnMajor(const Host& h) {
  const int64_t rows = h.shape[0], cols = h.shape[1];
  const size_t es = ElemSize(h.dtype), nbytes = static_cast<size_t>(rows * cols) * es;
  unsigned char* buf = static_cast<unsigned char*>(std::malloc(nbytes));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) StoreVal(h.dtype, h.v[i * cols + j], buf + (j * rows + i) * es);
  const int64_t strides[] = {1, rows};
  bc_tensor* t = nullptr;
  EXPECT_EQ(bc_tensor_wrap(h.dtype, h.shape.data(), strides, 2, buf, nbytes,
                           [](void* p, void*) { std::free(p); }, nullptr, &t),
            BC_OK)
      << bc_last_error();
  return Tensor(t);
}

// Gathered tiles on every SIMD target: a (70, 45) result (several tiles each
// way, partial ones at the edges) from operands that are row-major,
// column-major (transposed), a column (70, 1) or a row (1, 45), in every
// combination.
TEST(Tiles, TransposedInputsOnEveryTarget) {
  const std::vector<Form> forms = {{"row-major", {70, 45}, ToTensor},
                                   {"transposed", {70, 45}, ColumnMajor},
                                   {"column", {70, 1}, ToTensor},
                                   {"row", {1, 45}, ToTensor}};
  CheckFormsOnEveryTarget(forms, {BC_FLOAT32, BC_FLOAT64, BC_INT32, BC_INT8}, 78);
}

// Tiles of the sizes the executor picks for big operands (64 x 128 float32,
// 64 x 64 float64, 128 x 128 for 1- and 2-byte values when one input is
// gathered; 16 KiB ones when several are), several of them each way with
// partial ones at the edges: a (300, 290) result, on the best target, on one
// thread (threads would split it into bands shorter than a tile).
TEST(Tiles, LargeTransposedInputsSpanSeveralTiles) {
  std::mt19937 rng(80);
  const int threads = bc_get_num_threads();
  ASSERT_EQ(bc_set_num_threads(1), BC_OK);
  const Shape full = {300, 290}, column = {300, 1}, row = {1, 290};
  for (bc_dtype d : {BC_INT8, BC_BFLOAT16, BC_FLOAT32, BC_FLOAT64}) {
    const std::string name = ShortName(d);
    Host c = RandomHost(BC_BOOL, column, rng), ct = RandomHost(BC_BOOL, full, rng);
    Host x = RandomHost(d, full, rng), y = RandomHost(d, full, rng), z = RandomHost(d, full, rng);
    Host lo = RandomHost(d, column, rng), hi = RandomHost(d, row, rng);
    Tensor tc = ToTensor(c), tct = ColumnMajor(ct), tx = ColumnMajor(x), ty = ColumnMajor(y),
           tz = ColumnMajor(z), ry = ToTensor(y), tlo = ToTensor(lo), thi = ToTensor(hi);
    // Into a row-major result: an allocating op would lay its result out
    // like the transposed inputs, and nothing would be gathered.
    bc_tensor* o = nullptr;
    ASSERT_EQ(bc_tensor_zeros(d, full.data(), 2, &o), BC_OK);
    Tensor out(o);
    // One gathered input.
    ASSERT_EQ(bc_where_out(tc.get(), tx.get(), thi.get(), o), BC_OK) << bc_last_error();
    EXPECT_TRUE(SameHost(FromTensor(o), RefWhere(c, x, hi))) << "where " << name;
    ASSERT_EQ(bc_binary_out(BC_ADD, ry.get(), tx.get(), o), BC_OK) << bc_last_error();
    EXPECT_TRUE(SameHost(FromTensor(o), RefBinary(BC_ADD, y, x))) << "add " << name;
    ASSERT_EQ(bc_clamp_out(tx.get(), tlo.get(), thi.get(), o), BC_OK) << bc_last_error();
    EXPECT_TRUE(SameHost(FromTensor(o), RefClamp(x, &lo, &hi), Cmp::kZeroSignFree)) << "clamp " << name;
    // Several gathered inputs.
    ASSERT_EQ(bc_where_out(tct.get(), tx.get(), ty.get(), o), BC_OK) << bc_last_error();
    EXPECT_TRUE(SameHost(FromTensor(o), RefWhere(ct, x, y))) << "where, all transposed " << name;
    ASSERT_EQ(bc_addcmul_out(tx.get(), ty.get(), tz.get(), 0.75, o), BC_OK) << bc_last_error();
    EXPECT_TRUE(SameHost(FromTensor(o), RefAddc(false, x, y, z, 0.75))) << "addcmul " << name;
  }
  EXPECT_EQ(bc_set_num_threads(threads), BC_OK);
}

// `h` stored with `step` elements between neighbours along its last dimension
// (a slice like x[..., ::step]); the gaps hold junk.
Tensor Sliced(const Host& h, int64_t step) {
  const size_t nd = h.shape.size();
  Shape strides(nd);
  int64_t span = step;
  for (size_t k = nd; k-- > 0;) {
    strides[k] = span;
    span *= h.shape[k];
  }
  const size_t es = ElemSize(h.dtype), nbytes = static_cast<size_t>(span) * es;
  unsigned char* buf = static_cast<unsigned char*>(std::malloc(nbytes));
  std::memset(buf, 0xA5, nbytes);
  for (size_t i = 0; i < h.v.size(); ++i) StoreVal(h.dtype, h.v[i], buf + i * step * es);
  bc_tensor* t = nullptr;
  EXPECT_EQ(bc_tensor_wrap(h.dtype, h.shape.data(), strides.data(), nd, buf, nbytes,
                           [](void* p, void*) { std::free(p); }, nullptr, &t),
            BC_OK)
      << bc_last_error();
  return Tensor(t);
}

// Rows with inputs strided along them (slices ::2 and ::3), gathered a chunk
// at a time for the vector loops: a (2, 1100) result (chunks of 512 and a
// partial one), every combination with contiguous and broadcast inputs.
TEST(Slices, StridedRowsOnEveryTarget) {
  const std::vector<Form> forms = {{"contiguous", {2, 1100}, ToTensor},
                                   {"::2", {2, 1100}, [](const Host& h) { return Sliced(h, 2); }},
                                   {"::3", {2, 1100}, [](const Host& h) { return Sliced(h, 3); }},
                                   {"row", {1100}, ToTensor}};
  CheckFormsOnEveryTarget(forms, {BC_FLOAT32, BC_FLOAT64, BC_INT32, BC_INT8}, 79);
}

TEST(Ternary, MismatchTextsUseAccumulatedShape) {
  Tensor a = ToTensor(Iota(BC_FLOAT32, {2, 1})), b = ToTensor(Iota(BC_FLOAT32, {1, 3})),
         c = ToTensor(Iota(BC_FLOAT32, {4}));
  bc_tensor* out = kPoison;
  // (2,1) with (1,3) gives (2,3); then (2,3) against (4) fails at dim 1.
  EXPECT_TRUE(Fails(bc_addcmul(a.get(), b.get(), c.get(), 1.0, &out), BC_ERR_NOT_BROADCASTABLE,
                    "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"));
  EXPECT_EQ(out, nullptr);
  out = kPoison;
  EXPECT_TRUE(Fails(bc_lerp(a.get(), b.get(), c.get(), &out), BC_ERR_NOT_BROADCASTABLE,
                    "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"));
  EXPECT_EQ(out, nullptr);
  out = kPoison;
  EXPECT_TRUE(Fails(bc_clamp(a.get(), b.get(), c.get(), &out), BC_ERR_NOT_BROADCASTABLE,
                    "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"));
  EXPECT_EQ(out, nullptr);
  // out= with the wrong shape.
  bc_tensor* o = nullptr;
  int64_t shape[] = {3, 2};
  ASSERT_EQ(bc_tensor_zeros(BC_FLOAT32, shape, 2, &o), BC_OK);
  Tensor ho(o);
  EXPECT_TRUE(Fails(bc_addcdiv_out(a.get(), b.get(), b.get(), 1.0, o), BC_ERR_SHAPE_MISMATCH,
                    "output with shape [3, 2] doesn't match the broadcast shape [2, 3]"));
}

}  // namespace
}  // namespace bct
