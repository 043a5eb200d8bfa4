// Accuracy and cross-target test of the float32 exponential-family math
// (src/kernels/math_exp_f32-inl.h): every function, on every Highway target
// this CPU runs, against __float128 references (libquadmath) rounded once to
// float32. Asserts at most 1 ulp from the correctly rounded float32 (as
// ordered bit patterns), NaN exactly where the reference is NaN, zero signs
// as the reference's, and identical bits on every target (and with 1-lane
// vectors). Inputs: special values, +-1000 floats around each edge, and
// BCAST_MATH_SAMPLES (default 1,000,000) random inputs per function (random
// bit patterns, uniform over the interesting range, log-uniform magnitudes).
// tests/math_f32_exhaustive.cc checks all 2^32 inputs (by hand, not ctest).

#include <quadmath.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <deque>
#include <string>
#include <thread>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "test_math_exp_f32.cc"
// Every target this compiler can build (EMU128/SCALAR and SSSE3 included),
// and AVX3_DL where the CPU has it. The sanitizer builds define
// BCAST_MATH_TEST_DEFAULT_TARGETS: the build's own targets only (SSE4 and
// AVX2 there), as each extra target costs minutes of instrumented compile.
#if !defined(HWY_COMPILE_ALL_ATTAINABLE) && !defined(BCAST_MATH_TEST_DEFAULT_TARGETS)
#define HWY_COMPILE_ALL_ATTAINABLE
#endif
#ifndef HWY_WANT_AVX3_DL
#define HWY_WANT_AVX3_DL
#endif
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/math_erf_f32-inl.h"
#include "kernels/math_exp_f32-inl.h"
#include "kernels/math_fma-inl.h"
#include "kernels/math_trig_f32-inl.h"

#ifndef BCAST_TEST_MATH_EXP_F32_FNS_
#define BCAST_TEST_MATH_EXP_F32_FNS_
namespace bcast {
namespace math_f32_test {
enum Fn {
  kExp, kExp2, kExpm1, kLog, kLog2, kLog10, kLog1p, kSinh, kCosh, kTanh, kAsinh, kAcosh,
  kAtanh, kSigmoid, kLogit, kSilu, kSoftplus, kMish, kElu, kGeluTanh,
  kSin, kCos, kTan, kAsin, kAcos, kAtan,
  kErf, kErfc, kErfinv, kGeluErf,
};
}  // namespace math_f32_test
}  // namespace bcast
#endif

HWY_BEFORE_NAMESPACE();
namespace bcast {
namespace HWY_NAMESPACE {
namespace {
namespace hn = hwy::HWY_NAMESPACE;
namespace mm = bcast::HWY_NAMESPACE::math;
using namespace bcast::math_f32_test;

template <class D, class F>
void Loop(D d, const float* in, float* out, size_t n, const F& f) {
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(f(d, hn::LoadU(d, in + i)), d, out + i);
  if (i < n) {
    float buf[64] = {0};
    for (size_t j = 0; i + j < n; ++j) buf[j] = in[i + j];
    hn::StoreU(f(d, hn::LoadU(d, buf)), d, buf);
    for (size_t j = 0; i + j < n; ++j) out[i + j] = buf[j];
  }
}

#define BCAST_FN(NAME) \
  Loop(d, in, out, n, [](auto dd, auto v) { return mm::NAME##F32(dd, v); }); break
template <class D>
void RunD(D d, int fn, const float* in, float* out, size_t n, double p1, double p2) {
  switch (fn) {
    case kExp: BCAST_FN(Exp);
    case kExp2: BCAST_FN(Exp2);
    case kExpm1: BCAST_FN(Expm1);
    case kLog: BCAST_FN(Log);
    case kLog2: BCAST_FN(Log2);
    case kLog10: BCAST_FN(Log10);
    case kLog1p: BCAST_FN(Log1p);
    case kSinh: BCAST_FN(Sinh);
    case kCosh: BCAST_FN(Cosh);
    case kTanh: BCAST_FN(Tanh);
    case kAsinh: BCAST_FN(Asinh);
    case kAcosh: BCAST_FN(Acosh);
    case kAtanh: BCAST_FN(Atanh);
    case kSigmoid: BCAST_FN(Sigmoid);
    case kLogit: BCAST_FN(Logit);
    case kSilu: BCAST_FN(Silu);
    case kMish: BCAST_FN(Mish);
    case kGeluTanh: BCAST_FN(GeluTanh);
    case kSin: BCAST_FN(Sin);
    case kCos: BCAST_FN(Cos);
    case kTan: BCAST_FN(Tan);
    case kAsin: BCAST_FN(Asin);
    case kAcos: BCAST_FN(Acos);
    case kAtan: BCAST_FN(Atan);
    case kErf: BCAST_FN(Erf);
    case kErfc: BCAST_FN(Erfc);
    case kErfinv: BCAST_FN(Erfinv);
    case kGeluErf: BCAST_FN(GeluErf);
    case kSoftplus:
      Loop(d, in, out, n, [p1, p2](auto dd, auto v) { return mm::SoftplusF32(dd, v, float(p1), float(p2)); });
      break;
    case kElu:
      Loop(d, in, out, n, [p1](auto dd, auto v) { return mm::EluF32(dd, v, float(p1)); });
      break;
  }
}
#undef BCAST_FN

void RunFn(int fn, const float* in, float* out, size_t n, double p1, double p2, int capped) {
  if (capped) {
    RunD(hn::CappedTag<float, 1>(), fn, in, out, n, p1, p2);
  } else {
    RunD(hn::ScalableTag<float>(), fn, in, out, n, p1, p2);
  }
}

// out[i] = MulAddF(a[i], b[i], c[i]), in full vectors or 1-lane ones.
void RunFma(const float* a, const float* b, const float* c, float* out, size_t n, int capped) {
  auto run = [&](auto d) {
    const size_t N = hn::Lanes(d);
    for (size_t i = 0; i + N <= n; i += N)
      hn::StoreU(mm::MulAddF(d, hn::LoadU(d, a + i), hn::LoadU(d, b + i), hn::LoadU(d, c + i)), d,
                 out + i);
  };
  if (capped) run(hn::CappedTag<float, 1>());
  else run(hn::ScalableTag<float>());
}

}  // namespace
}  // namespace HWY_NAMESPACE
}  // namespace bcast
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "gtest/gtest.h"

namespace bcast {
namespace {
HWY_EXPORT(RunFn);
HWY_EXPORT(RunFma);
using namespace math_f32_test;
using Q = __float128;

int64_t Ord(float v) {
  int32_t i;
  memcpy(&i, &v, 4);
  return i < 0 ? -int64_t(i & 0x7fffffff) : int64_t(i);
}
uint64_t BitDist(float a, float b) {
  const int64_t x = Ord(a), y = Ord(b);
  return uint64_t(x > y ? x - y : y - x);
}
uint32_t Bits(float v) {
  uint32_t i;
  memcpy(&i, &v, 4);
  return i;
}
float FromBits(uint32_t i) {
  float v;
  memcpy(&v, &i, 4);
  return v;
}

const Q kPiQ = strtoflt128("3.14159265358979323846264338327950288419716939937510", nullptr);
const Q kSqrt2OverPiQ = sqrtq(2 / kPiQ);
const Q kGeluCQ = strtoflt128("0.044715", nullptr);

// erfinv (libquadmath has none): Newton's method on erfq, on erfcq above
// 1/2 (1 - y exact there), from the start sqrt(t - log(pi t)/2),
// t = -log(1 - y) (erfc(x) ~ e^-x^2 / (x sqrt(pi))), or y sqrt(pi)/2; one
// more step after a relative step below 1e-20 (quadratic convergence).
Q ErfinvQ(float yf) {
  const Q y = fabsq(Q(yf));
  if (!(y < 1)) return y == 1 ? copysignq(Q(HUGE_VAL), Q(yf)) : Q(NAN);
  const Q t = -logq(1 - y);
  Q x = y > Q(0.5) ? sqrtq(t - logq(kPiQ * t) / 2) : y * sqrtq(kPiQ) / 2;
  for (int i = 0; i < 60; ++i) {
    const Q f = y > Q(0.5) ? (1 - y) - erfcq(x) : erfq(x) - y;
    const Q dx = f / (2 / sqrtq(kPiQ) * expq(-x * x));
    x -= dx;
    if (fabsq(dx) <= x * Q(1e-20)) {
      const Q f2 = y > Q(0.5) ? (1 - y) - erfcq(x) : erfq(x) - y;
      x -= f2 / (2 / sqrtq(kPiQ) * expq(-x * x));
      break;
    }
  }
  return copysignq(x, Q(yf));
}

struct Case {
  const char* name;
  int fn;
  double p1, p2;
  std::function<Q(float)> ref;
  float lo, hi;                 // uniform range of the random inputs
  std::vector<float> edges;     // +-1000 floats around each, and around -edge
};

std::vector<Case> Cases() {
  const float kMax = std::numeric_limits<float>::max();
  const float kMin = std::numeric_limits<float>::min();
  const float kDen = std::numeric_limits<float>::denorm_min();
  std::vector<Case> c;
  // Edges: overflow (exp(88.72284) = FLT_MAX + ulp/2), the last nonzero
  // (subnormal) results, the reduction boundaries (+-ln2/2), 1.
  c.push_back({"Exp", kExp, 0, 0, [](float x) { return expq(x); }, -110, 90,
               {0, 88.7228394f, -87.3365479f, -103.972084f, -103.278931f, 0.34657359f, 1, 1e-10f}});
  c.push_back({"Exp2", kExp2, 0, 0, [](float x) { return exp2q(x); }, -155, 130,
               {0, 128, -126, -149, -150, 0.5f, 1, 100}});
  c.push_back({"Expm1", kExpm1, 0, 0, [](float x) { return expm1q(x); }, -20, 90,
               {0, 88.7228394f, 0x1p-25f, 0x1p-12f, 0.34657359f, 17.3286800f, 1, 16, 18}});
  c.push_back({"Log", kLog, 0, 0, [](float x) { return logq(x); }, 0, 4,
               {1, kMin, kDen, kMax, 0.70710677f, 1.41421354f, 2, 0.5f, 0}});
  c.push_back({"Log2", kLog2, 0, 0, [](float x) { return log2q(x); }, 0, 4,
               {1, kMin, kDen, kMax, 0.70710677f, 2, 1024, 0}});
  c.push_back({"Log10", kLog10, 0, 0, [](float x) { return log10q(x); }, 0, 20,
               {1, kMin, kDen, kMax, 10, 100, 1e10f, 1e-5f, 0}});
  c.push_back({"Log1p", kLog1p, 0, 0, [](float x) { return log1pq(x); }, -1, 4,
               {0, -1, 0x1p-25f, 0x1p-29f, 0x1p-20f, 0.41421357f, -0.29289323f, 1, kMax, 0x1p52f}});
  c.push_back({"Sinh", kSinh, 0, 0, [](float x) { return sinhq(x); }, -95, 95,
               {0, 89.4159851f, 0x1p-12f, 0.34657359f, 1, 9, 17}});
  c.push_back({"Cosh", kCosh, 0, 0, [](float x) { return coshq(x); }, -95, 95,
               {0, 89.4159851f, 0x1p-12f, 0.34657359f, 1, 9, 17}});
  c.push_back({"Tanh", kTanh, 0, 0, [](float x) { return tanhq(x); }, -12, 12,
               {0, 0x1p-12f, 0.17328680f, 0.5f, 9.01091290f, 9.1f, 10, 1}});
  c.push_back({"Asinh", kAsinh, 0, 0, [](float x) { return asinhq(x); }, -10, 10,
               {0, 0x1p-12f, 0x1p12f, 1, 1e19f, 1e20f, kMax}});
  c.push_back({"Acosh", kAcosh, 0, 0, [](float x) { return acoshq(x); }, 1, 10,
               {1, 0x1p12f, 1e19f, 1e20f, kMax, 2}});
  c.push_back({"Atanh", kAtanh, 0, 0, [](float x) { return atanhq(x); }, -1, 1,
               {0, 1, 0.5f, 0x1p-12f, 1e-10f, 0.25f}});
  c.push_back({"Sigmoid", kSigmoid, 0, 0, [](float x) { return 1 / (1 + expq(-(Q)x)); }, -110, 20,
               {0, 16.6355324f, 17.3286800f, 88.7228394f, 103.972084f, 0x1p-25f}});
  c.push_back({"Logit", kLogit, 0, 0,
               [](float x) { return logq((Q)x / (1 - (Q)x)); }, 0, 1,
               {0, 0.5f, 1, 0x1p-25f, kMin, 0.25f, 0.75f}});
  c.push_back({"Silu", kSilu, 0, 0, [](float x) { return (Q)x / (1 + expq(-(Q)x)); }, -120, 30,
               {0, 17, 20, 88.7228394f, 103.972084f, 110, 200, 0x1p-25f}});
  for (double beta : {1.0, 2.0, 0.5}) {
    const double thr = beta == 2.0 ? 15.0 : 20.0;
    // Names outlive the cases (their c_str() is kept): static storage, with
    // stable addresses, so that LeakSanitizer sees them reachable.
    static std::deque<std::string> names;
    names.push_back("Softplus_b" + std::to_string(beta).substr(0, 3));
    const std::string* nm = &names.back();
    c.push_back({nm->c_str(), kSoftplus, beta, thr,
                 [beta, thr](float x) -> Q {
                   // PyTorch's rule on the float32 product.
                   if (x * float(beta) > float(thr)) return x;
                   return log1pq(expq((Q)x * beta)) / beta;
                 },
                 float(-60 / beta), float(40 / beta),
                 {0, float(thr / beta), float(88.72284 / beta), float(103.97 / beta),
                  float(17 / beta), float(150 / beta)}});
  }
  c.push_back({"Mish", kMish, 0, 0, [](float x) { return x * tanhq(log1pq(expq((Q)x))); }, -120, 30,
               {0, 17, 20, 88.7228394f, 103.972084f, 0x1p-25f, 9}});
  for (double alpha : {1.0, 1.6732632423543772}) {
    c.push_back({alpha == 1.0 ? "Elu_a1" : "Elu_selu", kElu, alpha, 0,
                 [alpha](float x) -> Q {
                   // alpha is a float32 parameter of EluF32.
                   return x > 0 ? (Q)x : (Q)float(alpha) * expm1q(x);
                 },
                 -20, 5, {0, 0x1p-25f, 17.3286800f, 1}});
  }
  c.push_back({"GeluTanh", kGeluTanh, 0, 0,
               [](float x) {
                 const Q q = x;
                 const Q y = kSqrt2OverPiQ * (q + kGeluCQ * q * q * q);
                 return q / (1 + expq(-2 * y));
               },
               -14, 12, {0, 10, 20, 9, 11, 6.9f, 0x1p-25f, 3}});
  // Trig edges: the Cody-Waite bound (1.6e6; beyond, the float64 path),
  // multiples of pi/2 (the hardest reductions nearby), 2^24, the largest
  // float; asin/acos: 1/2 (the switch to sqrt((1 - a)/2)) and 1; atan: tan(pi/8),
  // tan(3pi/8), the 2^60 cap.
  const std::vector<float> trig_edges = {0,           1.6e6f,      1.5707964f,  3.1415927f,
                                         4.712389f,   102.10176f,  1e4f,        0x1p24f,
                                         1e30f,       kMax,        0x1p-12f,    0.7853982f};
  c.push_back({"Sin", kSin, 0, 0, [](float x) { return sinq(x); }, -100, 100, trig_edges});
  c.push_back({"Cos", kCos, 0, 0, [](float x) { return cosq(x); }, -100, 100, trig_edges});
  c.push_back({"Tan", kTan, 0, 0, [](float x) { return tanq(x); }, -100, 100, trig_edges});
  c.push_back({"Asin", kAsin, 0, 0, [](float x) { return asinq(x); }, -1.1f, 1.1f,
               {0, 0.5f, 1, 0x1p-12f, 1e-10f, 0.99f}});
  c.push_back({"Acos", kAcos, 0, 0, [](float x) { return acosq(x); }, -1.1f, 1.1f,
               {0, 0.5f, 1, 0x1p-12f, 1e-10f, 0.99f}});
  c.push_back({"Atan", kAtan, 0, 0, [](float x) { return atanq(x); }, -10, 10,
               {0, 0.41421356f, 2.41421356f, 1, 0x1p-12f, 0x1p60f, 1e20f, kMax}});
  // Edges: the polynomial/tail split (3/4; gelu's at 3/4 sqrt2), erf
  // rounding to 1, erfc's subnormal and last nonzero results, gelu's -0.
  c.push_back({"Erf", kErf, 0, 0, [](float x) { return erfq(x); }, -5, 5,
               {0, 0.75f, 1, 2.5f, 4, 3.9192059f, 0x1p-25f, kMin, 10.3f}});
  c.push_back({"Erfc", kErfc, 0, 0, [](float x) { return erfcq(x); }, -11, 11,
               {0, 0.75f, 9.194f, 10.0542f, 10.3f, 27, 0x1p-25f}});
  c.push_back({"Erfinv", kErfinv, 0, 0, ErfinvQ, -1, 1,
               {0, 0.75f, 1, 0.5f, 0.9936f, 0x1p-25f, kMin}});
  c.push_back({"GeluErf", kGeluErf, 0, 0,
               [](float x) { return (Q)x / 2 * erfcq(-(Q)x / sqrtq(2)); }, -16, 12,
               {0, 1.06066017f, 14.1f, 14.5f, 10, 0x1p-25f, 5.6f}});
  return c;
}

size_t Samples() {
  const char* s = getenv("BCAST_MATH_SAMPLES");
  return s ? size_t(strtoull(s, nullptr, 10)) : size_t(1000000);
}

std::vector<float> Inputs(const Case& cs, size_t n_random, size_t* n_fixed) {
  std::vector<float> v;
  const float kInf = std::numeric_limits<float>::infinity();
  for (float s : {0.0f, kInf, std::numeric_limits<float>::max(), std::numeric_limits<float>::min(),
                  std::numeric_limits<float>::denorm_min(), 1.0f, 0.5f, 2.0f, 3.0f, 0.1f}) {
    v.push_back(s);
    v.push_back(-s);
  }
  for (uint32_t b : {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x7fa00123u}) v.push_back(FromBits(b));
  for (float e : cs.edges) {
    for (float s : {e, -e}) {
      const uint32_t b = Bits(s);
      for (int i = -1000; i <= 1000; ++i) {
        const uint32_t mag = b & 0x7fffffffu, sign = b & 0x80000000u;
        if (i < 0 && mag < uint32_t(-i)) continue;
        const uint32_t m2 = uint32_t(int64_t(mag) + i);
        if (m2 > 0x7f800000u) continue;
        v.push_back(FromBits(m2 | sign));
      }
    }
  }
  *n_fixed = v.size();
  std::mt19937_64 rng(12345 + cs.fn * 77 + uint64_t(cs.p1 * 1000));
  std::uniform_real_distribution<float> uni(cs.lo, cs.hi);
  std::uniform_real_distribution<double> u01(0, 1);
  for (size_t i = 0; i < n_random; ++i) {
    switch (i % 6) {
      case 0:
      case 1:
        v.push_back(FromBits(uint32_t(rng())));
        break;
      case 2:
      case 3:
        v.push_back(uni(rng));
        break;
      default: {  // log-uniform magnitude: the whole range, or 2^-30..2^8
        const bool full = (i % 6) == 4;
        const double e = full ? -149 + u01(rng) * 277 : -30 + u01(rng) * 38;
        float x = float(std::ldexp(1 + u01(rng), int(std::floor(e))));
        if (rng() & 1) x = -x;
        v.push_back(x);
      }
    }
  }
  return v;
}

template <class F>
void Parallel(size_t n, const F& f) {
  const size_t nt = 2;
  std::vector<std::thread> th;
  for (size_t t = 0; t < nt; ++t)
    th.emplace_back([&, t] { f(n * t / nt, n * (t + 1) / nt); });
  for (auto& x : th) x.join();
}

struct Stat {
  double max_err = 0;   // |result - exact| in ulps of the correctly rounded result
  double arg = 0;
  uint64_t max_dist = 0;
  double dist_arg = 0;
  size_t bad = 0;
  std::string first_bad;
};

class MathExpF32 : public testing::TestWithParam<int> {};

TEST_P(MathExpF32, Accuracy) {
  const std::vector<Case> cases = Cases();
  const Case& cs = cases[GetParam()];
  const auto t0 = std::chrono::steady_clock::now();
  size_t n_fixed = 0;
  const std::vector<float> in = Inputs(cs, Samples(), &n_fixed);
  const size_t n = in.size();
  std::vector<Q> refq(n);
  std::vector<float> ref(n);
  Parallel(n, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) {
      refq[i] = cs.ref(in[i]);
      ref[i] = float(refq[i]);  // one rounding
    }
  });
  const auto t1 = std::chrono::steady_clock::now();

  std::vector<float> first;
  std::string first_name;
  std::vector<float> out(n);
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    HWY_DYNAMIC_DISPATCH(RunFn)(cs.fn, in.data(), out.data(), 1, cs.p1, cs.p2, 0);  // init
    Parallel(n, [&](size_t b, size_t e) {
      HWY_DYNAMIC_DISPATCH(RunFn)(cs.fn, in.data() + b, out.data() + b, e - b, cs.p1, cs.p2, 0);
    });
    // 1-lane vectors on the first inputs (all the fixed ones).
    const size_t nc = std::min(n, n_fixed + 20000);
    std::vector<float> out1(nc);
    HWY_DYNAMIC_DISPATCH(RunFn)(cs.fn, in.data(), out1.data(), nc, cs.p1, cs.p2, 1);
    Stat st;
    size_t differ = 0;
    std::string first_differ;
    for (size_t i = 0; i < n; ++i) {
      const float x = in[i], got = out[i], r = ref[i];
      bool ok;
      if (std::isnan(r) || std::isnan(got)) {
        ok = std::isnan(r) && std::isnan(got);
      } else {
        const uint64_t dist = BitDist(got, r);
        ok = dist <= 1 && !(got == 0 && r == 0 && std::signbit(got) != std::signbit(r));
        if (dist > st.max_dist || (dist == st.max_dist && st.max_dist == 0)) {
          if (dist > st.max_dist) st.dist_arg = x;
          st.max_dist = dist;
        }
        if (std::isfinite(r) && std::isfinite(got)) {
          const float ar = std::fabs(r);
          double ulp = double(std::nextafter(ar, HUGE_VALF)) - ar;
          if (std::isinf(ulp)) ulp = ar - double(std::nextafter(ar, 0.0f));
          const double err = double(fabsq((Q)got - refq[i]) / ulp);
          if (err > st.max_err) {
            st.max_err = err;
            st.arg = x;
          }
        }
      }
      if (!ok && st.bad++ < 5) {
        char buf[200];
        snprintf(buf, sizeof buf, "  x=%a (%.9g): got %a, want %a\n", x, x, got, r);
        st.first_bad += buf;
      }
      if (i < nc && Bits(out1[i]) != Bits(got) && !(std::isnan(out1[i]) && std::isnan(got))) {
        if (differ++ == 0) {
          char buf[200];
          snprintf(buf, sizeof buf, "1-lane x=%a: %a vs %a", x, out1[i], got);
          first_differ = buf;
        }
      }
      if (!first.empty() && Bits(first[i]) != Bits(got) && !(std::isnan(first[i]) && std::isnan(got))) {
        if (differ++ == 0) {
          char buf[200];
          snprintf(buf, sizeof buf, "vs %s x=%a: %a vs %a", first_name.c_str(), x, first[i], got);
          first_differ = buf;
        }
      }
    }
    // A hash of the result bits (NaNs as one pattern), to compare builds
    // (compilers, flags, CPUs) by their output.
    uint64_t hash = 1469598103934665603ull;
    for (size_t i = 0; i < n; ++i) {
      hash ^= std::isnan(out[i]) ? 0x7fc00000u : Bits(out[i]);
      hash *= 1099511628211ull;
    }
    printf("%-12s %-8s max %.3f ulp at x=%.9g (%a); max bit distance %llu at %.9g; %zu inputs "
           "(%zu random); bits %016llx\n",
           cs.name, hwy::TargetName(target), st.max_err, st.arg, st.arg,
           (unsigned long long)st.max_dist, st.dist_arg, n, n - n_fixed, (unsigned long long)hash);
    EXPECT_EQ(st.bad, 0u) << cs.name << " on " << hwy::TargetName(target) << ": " << st.bad
                          << " results over 1 ulp or NaN mismatches:\n" << st.first_bad;
    EXPECT_EQ(differ, 0u) << cs.name << " on " << hwy::TargetName(target)
                          << ": bits differ from the first target or 1-lane: " << first_differ;
    if (first.empty()) {
      first = out;
      first_name = hwy::TargetName(target);
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  const auto t2 = std::chrono::steady_clock::now();
  printf("%-12s reference %.2f s, all targets %.2f s\n", cs.name,
         std::chrono::duration<double>(t1 - t0).count(),
         std::chrono::duration<double>(t2 - t1).count());
}

std::string CaseName(const testing::TestParamInfo<int>& info) {
  static const std::vector<Case> cases = Cases();
  std::string s = cases[info.param].name;
  for (char& ch : s)
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(All, MathExpF32, testing::Range(0, int(Cases().size())), CaseName);

// MulAddF (src/kernels/math_fma-inl.h) on every target, full and 1-lane
// vectors, against libm's fmaf (correctly rounded): random bit patterns,
// products near -c (cancellation: where a rounded product and sum would
// differ most), halfway cases, subnormal, overflowing and special operands.
TEST(MathFmaF32, MatchesLibmFmaOnEveryTarget) {
  std::mt19937_64 rng(20261127);
  const size_t n = 1 << 20;  // a multiple of every vector length
  std::vector<float> a(n), b(n), c(n), want(n), got(n);
  const float specials[] = {0.0f, -0.0f, 1.0f, -1.0f, HUGE_VALF, -HUGE_VALF, NAN,
                            std::numeric_limits<float>::denorm_min(),
                            std::numeric_limits<float>::min(), std::numeric_limits<float>::max(),
                            -std::numeric_limits<float>::max(), 0x1p-75f, 0x1.fffffep+63f};
  const size_t ns = sizeof specials / sizeof specials[0];
  auto any = [&] { return FromBits(uint32_t(rng())); };
  auto near1 = [&] { return FromBits(0x3f800000u + uint32_t(rng() % 0x1000000) - 0x800000u); };
  for (size_t i = 0; i < n; ++i) {
    switch (i % 6) {
      case 0:  // any bits
        a[i] = any(), b[i] = any(), c[i] = any();
        break;
      case 1:  // c cancels most of a b
        a[i] = near1(), b[i] = near1() * 0x1p20f;
        c[i] = -float(double(a[i]) * double(b[i])) * (1 + 0x1p-23f * float(int(rng() % 5) - 2));
        break;
      case 2: {  // a b exactly halfway between two floats, c below float64's
        // half ulp of it: rounding a b + c in float64, then to float32,
        // ties to even where the fma rounds toward c (double rounding).
        const uint32_t u = uint32_t(rng() % 1024) * 2 + 1, v = uint32_t(rng() % 1024) * 2 + 1;
        a[i] = 1 + float(u) * 0x1p-12f, b[i] = 1 + float(v) * 0x1p-12f;  // a b = 1 + ... + uv 2^-24
        c[i] = near1() * std::ldexp(1.0f, -54 - int(rng() % 40)) * (rng() & 1 ? 1 : -1);
        break;
      }
      case 3:  // subnormal results
        a[i] = near1() * 0x1p-70f, b[i] = near1() * 0x1p-60f, c[i] = near1() * 0x1p-140f;
        break;
      case 4:  // overflow and near it
        a[i] = near1() * 0x1p64f, b[i] = near1() * 0x1p63f, c[i] = -near1() * 0x1p127f;
        break;
      default:  // special operands against any others
        a[i] = specials[rng() % ns], b[i] = rng() & 1 ? any() : specials[rng() % ns];
        c[i] = rng() & 1 ? any() : specials[rng() % ns];
    }
    want[i] = fmaf(a[i], b[i], c[i]);
  }
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    for (int capped = 0; capped < 2; ++capped) {
      HWY_DYNAMIC_DISPATCH(RunFma)(a.data(), b.data(), c.data(), got.data(), n, capped);
      size_t bad = 0;
      for (size_t i = 0; i < n; ++i) {
        const bool same = Bits(got[i]) == Bits(want[i]) || (std::isnan(got[i]) && std::isnan(want[i]));
        if (!same && bad++ < 5)
          ADD_FAILURE() << hwy::TargetName(target) << (capped ? " 1-lane" : "") << ": fma("
                        << std::hexfloat << a[i] << ", " << b[i] << ", " << c[i] << ") = " << got[i]
                        << ", libm " << want[i];
      }
      EXPECT_EQ(bad, 0u) << hwy::TargetName(target) << (capped ? " 1-lane" : "");
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

}  // namespace
}  // namespace bcast
#endif  // HWY_ONCE
