// Accuracy and cross-target test of the float64 exponential-family math
// (src/kernels/math_exp-inl.h): every function, on every Highway target this
// CPU runs, against __float128 references (libquadmath) rounded to double.
// Asserts at most 1 ulp from the correctly rounded result (as ordered bit
// patterns), NaN exactly where the reference is NaN, zero signs as the
// reference's, and identical bits on every target (and with 1-lane vectors).
// Inputs: special values, +-1000 doubles around each edge, and
// BCAST_MATH_SAMPLES (default 1,000,000) random inputs per function (random
// bit patterns, uniform over the interesting range, log-uniform magnitudes).

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
#define HWY_TARGET_INCLUDE "test_math_exp.cc"
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
#include "kernels/math_exp-inl.h"

#ifndef BCAST_TEST_MATH_EXP_FNS_
#define BCAST_TEST_MATH_EXP_FNS_
namespace bcast {
namespace math_test {
enum Fn {
  kExp, kExp2, kExpm1, kLog, kLog2, kLog10, kLog1p, kSinh, kCosh, kTanh, kAsinh, kAcosh,
  kAtanh, kSigmoid, kLogit, kSilu, kSoftplus, kMish, kElu, kGeluTanh,
};
}  // namespace math_test
}  // namespace bcast
#endif

HWY_BEFORE_NAMESPACE();
namespace bcast {
namespace HWY_NAMESPACE {
namespace {
namespace hn = hwy::HWY_NAMESPACE;
namespace mm = bcast::HWY_NAMESPACE::math;
using namespace bcast::math_test;

template <class D, class F>
void Loop(D d, const double* in, double* out, size_t n, const F& f) {
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(f(d, hn::LoadU(d, in + i)), d, out + i);
  if (i < n) {
    double buf[64] = {0};
    for (size_t j = 0; i + j < n; ++j) buf[j] = in[i + j];
    hn::StoreU(f(d, hn::LoadU(d, buf)), d, buf);
    for (size_t j = 0; i + j < n; ++j) out[i + j] = buf[j];
  }
}

#define BCAST_FN(NAME) \
  Loop(d, in, out, n, [](auto dd, auto v) { return mm::NAME(dd, v); }); break
template <class D>
void RunD(D d, int fn, const double* in, double* out, size_t n, double p1, double p2) {
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
    case kSoftplus:
      Loop(d, in, out, n, [p1, p2](auto dd, auto v) { return mm::Softplus(dd, v, p1, p2); });
      break;
    case kElu:
      Loop(d, in, out, n, [p1](auto dd, auto v) { return mm::Elu(dd, v, p1); });
      break;
  }
}
#undef BCAST_FN

void RunFn(int fn, const double* in, double* out, size_t n, double p1, double p2, int capped) {
  if (capped) {
    RunD(hn::CappedTag<double, 1>(), fn, in, out, n, p1, p2);
  } else {
    RunD(hn::ScalableTag<double>(), fn, in, out, n, p1, p2);
  }
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
using namespace math_test;
using Q = __float128;

int64_t Ord(double v) {
  int64_t i;
  memcpy(&i, &v, 8);
  return i < 0 ? std::numeric_limits<int64_t>::min() - i : i;
}
uint64_t BitDist(double a, double b) {
  const int64_t x = Ord(a), y = Ord(b);
  return x > y ? uint64_t(x) - uint64_t(y) : uint64_t(y) - uint64_t(x);
}
uint64_t Bits(double v) {
  uint64_t i;
  memcpy(&i, &v, 8);
  return i;
}
double FromBits(uint64_t i) {
  double v;
  memcpy(&v, &i, 8);
  return v;
}

const Q kPiQ = strtoflt128("3.14159265358979323846264338327950288419716939937510", nullptr);
const Q kSqrt2OverPiQ = sqrtq(2 / kPiQ);
const Q kGeluCQ = strtoflt128("0.044715", nullptr);

struct Case {
  const char* name;
  int fn;
  double p1, p2;
  std::function<Q(double)> ref;
  double lo, hi;                 // uniform range of the random inputs
  std::vector<double> edges;     // +-1000 doubles around each, and around -edge
};

std::vector<Case> Cases() {
  const double kMax = std::numeric_limits<double>::max();
  const double kMin = std::numeric_limits<double>::min();
  const double kDen = std::numeric_limits<double>::denorm_min();
  std::vector<Case> c;
  c.push_back({"Exp", kExp, 0, 0, [](double x) { return expq(x); }, -750, 712,
               {0, 709.782712893384, -708.3964185322641, -745.1332191019411, -744.44007192138122,
                0.34657359027997264, 1, 1e-10}});
  c.push_back({"Exp2", kExp2, 0, 0, [](double x) { return exp2q(x); }, -1080, 1030,
               {0, 1024, -1022, -1074, -1075, 0.5, 1, 100}});
  c.push_back({"Expm1", kExpm1, 0, 0, [](double x) { return expm1q(x); }, -40, 712,
               {0, 709.782712893384, 0x1p-54, 0x1p-27, 0.34657359027997264, 37.42994775023705,
                36.7368005696771, 1, 38, 40, 44}});
  c.push_back({"Log", kLog, 0, 0, [](double x) { return logq(x); }, 0, 4,
               {1, kMin, kDen, kMax, 0.70710678118654757, 1.4142135623730951, 2, 0.5, 0}});
  c.push_back({"Log2", kLog2, 0, 0, [](double x) { return log2q(x); }, 0, 4,
               {1, kMin, kDen, kMax, 0.70710678118654757, 2, 1024, 0}});
  c.push_back({"Log10", kLog10, 0, 0, [](double x) { return log10q(x); }, 0, 20,
               {1, kMin, kDen, kMax, 10, 100, 1e22, 1e-5, 0}});
  c.push_back({"Log1p", kLog1p, 0, 0, [](double x) { return log1pq(x); }, -1, 4,
               {0, -1, 0x1p-54, 0.41421356237309503, -0.29289321881345254, 1, kMax, 0x1p53}});
  c.push_back({"Sinh", kSinh, 0, 0, [](double x) { return sinhq(x); }, -712, 712,
               {0, 710.4758600739439, 0x1p-27, 0.34657359027997264, 1, 24.26, 25}});
  c.push_back({"Cosh", kCosh, 0, 0, [](double x) { return coshq(x); }, -712, 712,
               {0, 710.4758600739439, 0x1p-27, 0.34657359027997264, 1, 25}});
  // where sinh switches from its polynomial to e^a - e^-a, and k's first steps
  c.push_back({"SinhNear0", kSinh, 0, 0, [](double x) { return sinhq(x); }, -3, 3,
               {0.5, 0.25, 1e-3, 1.0397207708399179, 1.7328679513998633}});
  c.push_back({"CoshNear0", kCosh, 0, 0, [](double x) { return coshq(x); }, -3, 3,
               {0.5, 1e-3, 1.0397207708399179, 1.7328679513998633}});
  c.push_back({"Tanh", kTanh, 0, 0, [](double x) { return tanhq(x); }, -22, 22,
               {0, 0x1p-27, 0.17328679513998632, 0.5, 19.061547465398498, 19.1, 20, 1}});
  c.push_back({"Asinh", kAsinh, 0, 0, [](double x) { return asinhq(x); }, -10, 10,
               {0, 0x1p-28, 0x1p28, 1, 1e154, 1e155, kMax}});
  c.push_back({"Acosh", kAcosh, 0, 0, [](double x) { return acoshq(x); }, 1, 10,
               {1, 0x1p28, 1e154, 1e155, kMax, 2}});
  c.push_back({"Atanh", kAtanh, 0, 0, [](double x) { return atanhq(x); }, -1, 1,
               {0, 1, 0.5, 0x1p-28, 1e-10}});
  c.push_back({"Sigmoid", kSigmoid, 0, 0, [](double x) { return 1 / (1 + expq(-(Q)x)); }, -750, 40,
               {0, 36.7368005696771, 709.782712893384, 745.1332191019411, 40, 0x1p-54}});
  c.push_back({"Logit", kLogit, 0, 0,
               [](double x) { return logq((Q)x / (1 - (Q)x)); }, 0, 1,
               {0, 0.5, 1, 0x1p-54, kMin, 0.25, 0.75}});
  c.push_back({"Silu", kSilu, 0, 0, [](double x) { return (Q)x / (1 + expq(-(Q)x)); }, -760, 45,
               {0, 40, 745.1332191019411, 750, 760, 800, 0x1p-60, 36}});
  for (double beta : {1.0, 2.0, 0.5}) {
    const double thr = beta == 2.0 ? 15.0 : 20.0;
    // Names outlive the cases (their c_str() is kept): static storage, with
    // stable addresses, so that LeakSanitizer sees them reachable.
    static std::deque<std::string> names;
    names.push_back("Softplus_b" + std::to_string(beta).substr(0, 3));
    const std::string* nm = &names.back();
    c.push_back({nm->c_str(), kSoftplus, beta, thr,
                 [beta, thr](double x) -> Q {
                   if (x * beta > thr) return x;
                   return log1pq(expq((Q)x * beta)) / beta;
                 },
                 -60 / beta, 40 / beta,
                 {0, thr / beta, 745.1332191019411 / beta, 750 / beta, 36 / beta, 1400 / beta}});
  }
  c.push_back({"Mish", kMish, 0, 0, [](double x) { return x * tanhq(log1pq(expq(x))); }, -760, 45,
               {0, 40, 745.1332191019411, 800, 0x1p-60, 20}});
  for (double alpha : {1.0, 1.6732632423543772}) {
    c.push_back({alpha == 1.0 ? "Elu_a1" : "Elu_selu", kElu, alpha, 0,
                 [alpha](double x) -> Q { return x > 0 ? (Q)x : alpha * expm1q(x); }, -40, 5,
                 {0, 0x1p-54, 37.42994775023705, 1}});
  }
  c.push_back({"GeluTanh", kGeluTanh, 0, 0,
               [](double x) {
                 const Q q = x;
                 const Q y = kSqrt2OverPiQ * (q + kGeluCQ * q * q * q);
                 return q / (1 + expq(-2 * y));
               },
               -30, 12, {0, 10, 30, 20, 25, 6.9, 0x1p-60, 3}});
  return c;
}

size_t Samples() {
  const char* s = getenv("BCAST_MATH_SAMPLES");
  return s ? size_t(strtoull(s, nullptr, 10)) : size_t(1000000);
}

std::vector<double> Inputs(const Case& cs, size_t n_random, size_t* n_fixed) {
  std::vector<double> v;
  const double kInf = std::numeric_limits<double>::infinity();
  for (double s : {0.0, kInf, std::numeric_limits<double>::max(), std::numeric_limits<double>::min(),
                   std::numeric_limits<double>::denorm_min(), 1.0, 0.5, 2.0, 3.0, 0.1}) {
    v.push_back(s);
    v.push_back(-s);
  }
  for (uint64_t b : {0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull,
                     0x7ff4000000000123ull})
    v.push_back(FromBits(b));
  for (double e : cs.edges) {
    for (double s : {e, -e}) {
      const uint64_t b = Bits(s);
      for (int i = -1000; i <= 1000; ++i) {
        const uint64_t mag = b & 0x7fffffffffffffffull, sign = b & ~0x7fffffffffffffffull;
        if (i < 0 && mag < uint64_t(-i)) continue;
        const uint64_t m2 = mag + int64_t(i);
        if (m2 > 0x7ff0000000000000ull) continue;
        v.push_back(FromBits(m2 | sign));
      }
    }
  }
  *n_fixed = v.size();
  std::mt19937_64 rng(12345 + cs.fn * 77 + uint64_t(cs.p1 * 1000));
  std::uniform_real_distribution<double> uni(cs.lo, cs.hi);
  std::uniform_real_distribution<double> u01(0, 1);
  for (size_t i = 0; i < n_random; ++i) {
    switch (i % 6) {
      case 0:
      case 1:
        v.push_back(FromBits(rng()));
        break;
      case 2:
      case 3:
        v.push_back(uni(rng));
        break;
      default: {  // log-uniform magnitude: the whole range, or 2^-70..2^12
        const bool full = (i % 6) == 4;
        const double e = full ? -1074 + u01(rng) * 2098 : -70 + u01(rng) * 82;
        double x = std::ldexp(1 + u01(rng), int(std::floor(e)));
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

class MathExp : public testing::TestWithParam<int> {};

TEST_P(MathExp, Accuracy) {
  const std::vector<Case> cases = Cases();
  const Case& cs = cases[GetParam()];
  const auto t0 = std::chrono::steady_clock::now();
  size_t n_fixed = 0;
  const std::vector<double> in = Inputs(cs, Samples(), &n_fixed);
  const size_t n = in.size();
  std::vector<Q> refq(n);
  std::vector<double> ref(n);
  Parallel(n, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) {
      refq[i] = cs.ref(in[i]);
      ref[i] = double(refq[i]);
    }
  });
  const auto t1 = std::chrono::steady_clock::now();

  std::vector<double> first;
  std::string first_name;
  std::vector<double> out(n);
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    HWY_DYNAMIC_DISPATCH(RunFn)(cs.fn, in.data(), out.data(), 1, cs.p1, cs.p2, 0);  // init
    Parallel(n, [&](size_t b, size_t e) {
      HWY_DYNAMIC_DISPATCH(RunFn)(cs.fn, in.data() + b, out.data() + b, e - b, cs.p1, cs.p2, 0);
    });
    // 1-lane vectors on the first inputs (all the fixed ones).
    const size_t nc = std::min(n, n_fixed + 20000);
    std::vector<double> out1(nc);
    HWY_DYNAMIC_DISPATCH(RunFn)(cs.fn, in.data(), out1.data(), nc, cs.p1, cs.p2, 1);
    Stat st;
    size_t differ = 0;
    std::string first_differ;
    for (size_t i = 0; i < n; ++i) {
      const double x = in[i], got = out[i], r = ref[i];
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
          const double ar = std::fabs(r);
          double ulp = std::nextafter(ar, HUGE_VAL) - ar;
          if (std::isinf(ulp)) ulp = ar - std::nextafter(ar, 0.0);
          const double err = double(fabsq((Q)got - refq[i]) / ulp);
          if (err > st.max_err) {
            st.max_err = err;
            st.arg = x;
          }
        }
      }
      if (!ok && st.bad++ < 5) {
        char buf[200];
        snprintf(buf, sizeof buf, "  x=%a (%.17g): got %a, want %a\n", x, x, got, r);
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
      hash ^= std::isnan(out[i]) ? 0x7ff8000000000000ull : Bits(out[i]);
      hash *= 1099511628211ull;
    }
    printf("%-12s %-8s max %.3f ulp at x=%.17g (%a); max bit distance %llu at %.17g; %zu inputs "
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

INSTANTIATE_TEST_SUITE_P(All, MathExp, testing::Range(0, int(Cases().size())), CaseName);

}  // namespace
}  // namespace bcast
#endif  // HWY_ONCE
