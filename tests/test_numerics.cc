// PyTorch 2.x's numerics, to the bit, on every SIMD target: fused
// multiply-add (add/sub with alpha, addcmul, lerp), half-precision ops with a
// one-element second operand of another dtype, half alpha, half trunc and
// floor division rounded step by step, fmax/fmin and the sign of zero
// (docs/numerics.md). The expected values are PyTorch's own
// (tests/gen_torch_numerics.py writes torch_numerics.inc); each case runs as
// one row, as a row with a misaligned start and a tail, and tiled over
// threads.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "test_util.h"

namespace bct {
namespace {

struct TorchCase {
  const char* what;
  int kind;  // 0: binary (alpha in scalar); 1: ternary (op 100 addcmul, 101 addcdiv, 102 lerp);
             // 2: binary, b a one-element tensor (sdtype, sndim dims) holding `scalar`
  int op;
  bc_dtype dtype;
  double scalar;
  bc_dtype sdtype;
  int sndim;
  int n;
  const void* a;
  const void* b;
  const void* c;
  const void* want;
};

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

#include "torch_numerics.inc"


// A 1-D tensor of `n` elements of `d` from `bits`, starting at element `off`
// and repeated `times` times.
Tensor Row(bc_dtype d, const void* bits, int off, int n, int times) {
  const size_t es = ElemSize(d);
  std::vector<unsigned char> bytes(es * n * times + 1);
  for (int r = 0; r < times; ++r)
    std::memcpy(&bytes[es * n * r], static_cast<const unsigned char*>(bits) + es * off, es * n);
  const int64_t shape[1] = {static_cast<int64_t>(n) * times};
  bc_tensor* t = nullptr;
  EXPECT_EQ(bc_tensor_from_data(d, shape, 1, bytes.data(), &t), BC_OK) << bc_last_error();
  return Tensor(t);
}

// The one-element operand of a kind-2 case.
Tensor ScalarOperand(const TorchCase& c) {
  Host h = MakeHost(c.sdtype, c.sndim ? Shape{1} : Shape{}, {c.scalar});
  return ToTensor(h);
}

bool IsNaNBits(bc_dtype d, const unsigned char* p) {
  switch (d) {
    case BC_FLOAT64: { double x; std::memcpy(&x, p, 8); return std::isnan(x); }
    case BC_FLOAT32: { float x; std::memcpy(&x, p, 4); return std::isnan(x); }
    case BC_FLOAT16: { uint16_t x; std::memcpy(&x, p, 2); return (x & 0x7C00) == 0x7C00 && (x & 0x3FF); }
    default: { uint16_t x; std::memcpy(&x, p, 2); return (x & 0x7F80) == 0x7F80 && (x & 0x7F); }
  }
}

::testing::AssertionResult RunCase(const TorchCase& c, int off, int n, int times) {
  Tensor a = Row(c.dtype, c.a, off, n, times);
  Tensor b = c.kind == 2 ? ScalarOperand(c) : Row(c.dtype, c.b, off, n, times);
  bc_tensor* out = nullptr;
  bc_status st;
  if (c.kind == 1) {
    Tensor t2 = Row(c.dtype, c.c, off, n, times);
    st = c.op == 100   ? bc_addcmul(a.get(), b.get(), t2.get(), c.scalar, &out)
         : c.op == 101 ? bc_addcdiv(a.get(), b.get(), t2.get(), c.scalar, &out)
                       : bc_lerp(a.get(), b.get(), t2.get(), &out);
  } else if (c.kind == 0 && c.scalar != 1) {
    st = bc_binary_alpha(static_cast<bc_op>(c.op), a.get(), b.get(), c.scalar, &out);
  } else {
    st = bc_binary(static_cast<bc_op>(c.op), a.get(), b.get(), &out);
  }
  if (st != BC_OK) return ::testing::AssertionFailure() << "status " << st << ": " << bc_last_error();
  Tensor r(out);
  if (bc_tensor_dtype(out) != c.dtype) return ::testing::AssertionFailure() << "dtype " << bc_tensor_dtype(out);
  const size_t es = ElemSize(c.dtype);
  std::vector<unsigned char> got(es * n * times + 1);
  if (bc_tensor_copy_to(out, got.data(), got.size()) != BC_OK) return ::testing::AssertionFailure() << "copy";
  const auto* want = static_cast<const unsigned char*>(c.want);
  for (int64_t k = 0; k < static_cast<int64_t>(n) * times; ++k) {
    const unsigned char* g = &got[es * k];
    const unsigned char* w = want + es * (off + k % n);
    if (std::memcmp(g, w, es) == 0 || (IsNaNBits(c.dtype, g) && IsNaNBits(c.dtype, w))) continue;
    auto val = [&](const void* base, int64_t i) {
      return ValStr(c.dtype, LoadVal(c.dtype, static_cast<const unsigned char*>(base) + es * i));
    };
    const int64_t i = off + k % n;
    auto msg = ::testing::AssertionFailure();
    msg << "element " << k << " of " << static_cast<int64_t>(n) * times << ": a=" << val(c.a, i);
    if (c.kind != 2) msg << " b=" << val(c.b, i);
    if (c.kind == 1) msg << " c=" << val(c.c, i);
    return msg << " scalar=" << c.scalar << ": got " << ValStr(c.dtype, LoadVal(c.dtype, g))
               << ", PyTorch " << ValStr(c.dtype, LoadVal(c.dtype, w));
  }
  return ::testing::AssertionSuccess();
}

class TorchNumerics : public ::testing::TestWithParam<const char*> {
 protected:
  void TearDown() override {
    EXPECT_EQ(bc_set_simd_cap(nullptr), BC_OK);
    EXPECT_EQ(bc_set_num_threads(0), BC_OK);
  }
};

TEST_P(TorchNumerics, MatchPyTorchBits) {
  if (bc_set_simd_cap(GetParam()) != BC_OK) GTEST_SKIP() << GetParam() << " not available";
  for (const TorchCase& c : kTorchCases) {
    const std::string what = std::string(GetParam()) + " " + c.what + " " + bc_dtype_name(c.dtype);
    EXPECT_TRUE(RunCase(c, 0, c.n, 1)) << what << " (row)";
    EXPECT_TRUE(RunCase(c, 1, c.n - 4, 1)) << what << " (misaligned row with a tail)";
  }
}

TEST_P(TorchNumerics, SameBitsOnThreads) {
  if (bc_set_simd_cap(GetParam()) != BC_OK) GTEST_SKIP() << GetParam() << " not available";
  ASSERT_EQ(bc_set_num_threads(3), BC_OK);
  for (const TorchCase& c : kTorchCases) {
    const std::string what = std::string(GetParam()) + " " + c.what + " " + bc_dtype_name(c.dtype);
    EXPECT_TRUE(RunCase(c, 3, c.n - 5, 331)) << what << " (threads)";
  }
}

// The fused multiply-add of every target (the instruction, or the float32
// and float64 emulations of targets without FMA) against libm's std::fma:
// addcmul with value 1 is fma(t1, t2, self). Values of every magnitude,
// products that cancel the addend (leaving the product's rounding error),
// addends a few ulps from the product, zeros of both signs, subnormals,
// infinities, NaN and values past the emulation's range.
template <typename T>
void CheckFma(const char* target, std::mt19937& rng) {
  const bc_dtype d = sizeof(T) == 8 ? BC_FLOAT64 : BC_FLOAT32;
  const int emax = sizeof(T) == 8 ? 1000 : 120;
  const T kSpecial[] = {T(0), -T(0), std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(),
                        std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::denorm_min(),
                        -std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), T(1), T(-1)};
  std::uniform_real_distribution<T> mant(T(1), T(2));
  std::uniform_int_distribution<int> wide(-emax, emax), narrow(-30, 30);
  const int64_t n = 4099;
  std::vector<T> s(n), t1(n), t2(n);
  for (int64_t i = 0; i < n; ++i) {
    std::uniform_int_distribution<int>& e = (i % 3 == 0) ? wide : narrow;
    t1[i] = std::ldexp(mant(rng), e(rng)) * ((rng() & 1) ? 1 : -1);
    t2[i] = std::ldexp(mant(rng), e(rng)) * ((rng() & 1) ? 1 : -1);
    const T p = t1[i] * t2[i];
    switch (rng() % 6) {
      case 0: s[i] = -p; break;  // the product's rounding error
      case 1: s[i] = std::nextafter(-p, T(0)) * T(1); break;
      case 2: s[i] = std::ldexp(-p, static_cast<int>(rng() % 60) - 30); break;
      case 3: s[i] = kSpecial[rng() % 10]; break;
      default: s[i] = std::ldexp(mant(rng), e(rng)) * ((rng() & 1) ? 1 : -1);
    }
    if (rng() % 17 == 0) t1[i] = kSpecial[rng() % 10];
    if (rng() % 17 == 0) t2[i] = kSpecial[rng() % 10];
  }
  const int64_t shape[1] = {n};
  bc_tensor *ts = nullptr, *ta = nullptr, *tb = nullptr, *out = nullptr;
  ASSERT_EQ(bc_tensor_from_data(d, shape, 1, s.data(), &ts), BC_OK);
  ASSERT_EQ(bc_tensor_from_data(d, shape, 1, t1.data(), &ta), BC_OK);
  ASSERT_EQ(bc_tensor_from_data(d, shape, 1, t2.data(), &tb), BC_OK);
  Tensor hs(ts), ha(ta), hb(tb);
  ASSERT_EQ(bc_addcmul(ts, ta, tb, 1.0, &out), BC_OK) << bc_last_error();
  Tensor r(out);
  std::vector<T> got(n);
  ASSERT_EQ(bc_tensor_copy_to(out, got.data(), n * sizeof(T)), BC_OK);
  int bad = 0;
  for (int64_t i = 0; i < n && bad < 5; ++i) {
    const T want = std::fma(t1[i], t2[i], s[i]);
    if (std::isnan(want) && std::isnan(got[i])) continue;
    if (std::memcmp(&want, &got[i], sizeof(T)) != 0) {
      ++bad;
      ADD_FAILURE() << target << " " << bc_dtype_name(d) << " fma(" << t1[i] << ", " << t2[i] << ", "
                    << s[i] << ") = " << got[i] << ", want " << want << " at " << i;
    }
  }
}

TEST_P(TorchNumerics, FusedMultiplyAddMatchesStdFma) {
  if (bc_set_simd_cap(GetParam()) != BC_OK) GTEST_SKIP() << GetParam() << " not available";
  std::mt19937 rng(99);
  for (int rep = 0; rep < 8; ++rep) {
    CheckFma<float>(GetParam(), rng);
    CheckFma<double>(GetParam(), rng);
  }
}

// Zeros whose sign PyTorch's paths decide (values from PyTorch 2.15's scalar
// loop, the path of these one-element operands): lerp at weight 1 is
// end - diff * (1 - weight), so lerp(6.38e-9, -0., 1) is +0 and
// lerp(-3, -0., 1) is -0 (its vector loop's end + (weight - 1) * diff gives
// the other signs); alpha 0 is the integer 0, so sub(-0., 5., alpha=0) is +0
// (a float -0.0 alpha would give -0). Rows of 67 put the values in vector
// bodies and tails on every target.
TEST_P(TorchNumerics, SignOfZero) {
  if (bc_set_simd_cap(GetParam()) != BC_OK) GTEST_SKIP() << GetParam() << " not available";
  const Shape row = {67};
  auto full = [&](bc_dtype d, double v) { return ToTensor(MakeHost(d, row, std::vector<double>(67, v))); };
  for (bc_dtype d : {BC_FLOAT32, BC_FLOAT64, BC_FLOAT16, BC_BFLOAT16}) {
    const std::string what = std::string(GetParam()) + " " + bc_dtype_name(d);
    struct {
      double s, e, want;
    } lerps[] = {{6.38e-9, -0.0, 0.0}, {-3.0, -0.0, -0.0}};
    for (const auto& c : lerps) {
      Tensor ts = full(d, c.s), te = full(d, c.e), tw = full(d, 1.0);
      bc_tensor* out = nullptr;
      ASSERT_EQ(bc_lerp(ts.get(), te.get(), tw.get(), &out), BC_OK) << bc_last_error();
      Tensor r(out);
      for (const Val& v : FromTensor(out).v)
        ASSERT_TRUE(v.f == 0 && std::signbit(v.f) == std::signbit(c.want)) << what << " lerp " << c.s;
    }
    Tensor a = full(d, -0.0), b = full(d, 5.0);
    for (double alpha : {0.0, -0.0}) {
      for (bc_op op : {BC_ADD, BC_SUB}) {
        bc_tensor* out = nullptr;
        ASSERT_EQ(bc_binary_alpha(op, a.get(), b.get(), alpha, &out), BC_OK) << bc_last_error();
        Tensor r(out);
        for (const Val& v : FromTensor(out).v)
          ASSERT_TRUE(v.f == 0 && !std::signbit(v.f)) << what << " " << bc_op_name(op) << " alpha " << alpha;
      }
    }
  }
}

// A second operand that is one value in PyTorch's TensorIterator
// (is_scalar(2)): an expanded bfloat16 scalar counts (trunc(9984 / 45) in
// float32: 221), a contiguous row or an expanded int64 scalar, which PyTorch
// first converts to a tensor of its own, does not (the quotient rounded to
// bfloat16 first: 222). Values from PyTorch 2.15.
TEST(HalfScalarOperand, ExpandedScalarCounts) {
  const int64_t n5[1] = {5};
  Tensor a = ToTensor(MakeHost(BC_BFLOAT16, {5}, {9984, 9984, 9984, 9984, 9984}));
  struct {
    Host b;
    bool expand;
    double want;
  } cases[] = {{MakeHost(BC_BFLOAT16, {}, {45}), true, 221},
               {MakeHost(BC_BFLOAT16, {1}, {45}), true, 221},
               {MakeHost(BC_BFLOAT16, {5}, {45, 45, 45, 45, 45}), false, 222},
               {MakeHost(BC_INT64, {}, {45}), true, 222}};
  for (auto& c : cases) {
    Tensor b = ToTensor(c.b);
    if (c.expand) {
      bc_tensor* e = nullptr;
      ASSERT_EQ(bc_expand(b.get(), n5, 1, &e), BC_OK) << bc_last_error();
      b.reset(e);
    }
    bc_tensor* out = nullptr;
    ASSERT_EQ(bc_binary(BC_DIV_TRUNC, a.get(), b.get(), &out), BC_OK) << bc_last_error();
    Tensor r(out);
    Host got = FromTensor(out);
    for (const Val& v : got.v) EXPECT_EQ(v.f, c.want) << ShortName(c.b.dtype) << " " << ShapeStr(c.b.shape);
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, TorchNumerics, ::testing::ValuesIn(kSimdTargets),
                         [](const ::testing::TestParamInfo<const char*>& i) { return std::string(i.param); });

}  // namespace
}  // namespace bct
