// Accuracy and same-bits test of src/kernels/math_trig-inl.h (float64 Sin,
// Cos, Tan, Asin, Acos, Atan, Erf, Erfc, Erfinv, GeluErf) on every Highway
// target this CPU runs. Reference: libquadmath's __float128 functions rounded
// to double (the correctly rounded result, up to astronomically rare ties).
// Each result must be within 1 ulp of it (ordered-integer distance of the
// bits), NaN exactly where it is NaN, zeros signed like it, and every target
// (full vectors and one-lane vectors) must give the same bits.
//
// BCAST_MATH_SAMPLES=n sets the random inputs per function (default 1000000).

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "test_math_trig.cc"
#define BCAST_TEST_HAVE_ERF
#define BCAST_TEST_HAVE_ERFINV
#define BCAST_TEST_HAVE_GELU
#if !defined(HWY_COMPILE_ALL_ATTAINABLE) && !defined(BCAST_MATH_TEST_DEFAULT_TARGETS)
#define HWY_COMPILE_ALL_ATTAINABLE
#endif
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/math_trig-inl.h"

HWY_BEFORE_NAMESPACE();
namespace bcast {
namespace HWY_NAMESPACE {
namespace {
namespace hn = hwy::HWY_NAMESPACE;

template <class D>
HWY_INLINE hn::VFromD<D> Apply(D d, int fn, hn::VFromD<D> v) {
  switch (fn) {
    case 0: return math::Sin(d, v);
    case 1: return math::Cos(d, v);
    case 2: return math::Tan(d, v);
    case 3: return math::Asin(d, v);
    case 4: return math::Acos(d, v);
    case 5: return math::Atan(d, v);
#ifdef BCAST_TEST_HAVE_ERF
    case 6: return math::Erf(d, v);
    case 7: return math::Erfc(d, v);
#endif
#ifdef BCAST_TEST_HAVE_ERFINV
    case 8: return math::Erfinv(d, v);
#endif
#ifdef BCAST_TEST_HAVE_GELU
    case 9: return math::GeluErf(d, v);
#endif
    default: return v;
  }
}

template <class D>
void RunTag(D d, int fn, const double* in, double* out, size_t n) {
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(Apply(d, fn, hn::LoadU(d, in + i)), d, out + i);
  if (i < n) {
    HWY_ALIGN double buf[HWY_MAX_BYTES / sizeof(double)] = {};
    memcpy(buf, in + i, (n - i) * sizeof(double));
    hn::Store(Apply(d, fn, hn::Load(d, buf)), d, buf);
    memcpy(out + i, buf, (n - i) * sizeof(double));
  }
}

}  // namespace

void EvalMathTrig(int fn, int one_lane, const double* in, double* out, size_t n) {
  if (one_lane) {
    RunTag(hn::CappedTag<double, 1>(), fn, in, out, n);
  } else {
    RunTag(hn::ScalableTag<double>(), fn, in, out, n);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace bcast
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <quadmath.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace bcast {
HWY_EXPORT(EvalMathTrig);
namespace {

typedef __float128 Q;
Q PiQ() { return 4 * atanq((Q)1); }

int64_t Ordered(double x) {
  int64_t i;
  memcpy(&i, &x, sizeof(i));
  return i < 0 ? std::numeric_limits<int64_t>::min() - i : i;
}
uint64_t BitsOf(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof(u));
  return u;
}
double FromBits(uint64_t u) {
  double x;
  memcpy(&x, &u, sizeof(x));
  return x;
}

enum Fn { kSin, kCos, kTan, kAsin, kAcos, kAtan, kErf, kErfc, kErfinv, kGelu, kNumFn };
const char* const kNames[kNumFn] = {"Sin", "Cos",  "Tan",    "Asin",   "Acos",
                                    "Atan", "Erf", "Erfc", "Erfinv", "GeluErf"};

// erfinv(y) in __float128: Newton's method on erfq (or on erfcq for |y| >= 1/2,
// with 1 - |y| exact) from `guess` (the tested result, which only makes it
// converge sooner; a NaN, infinite or far guess is replaced by a crude start).
// It stops once a step is below 2^-40 of x: the quadratic convergence leaves
// an error below about 2^-75 of x.
Q ErfinvQ(double yd, double guess) {
  if (std::isnan(yd) || yd < -1 || yd > 1) return nanq("");
  if (yd == 1) return (Q)HUGE_VAL;
  if (yd == -1) return -(Q)HUGE_VAL;
  if (yd == 0) return yd;  // keeps the sign of zero
  const Q y = fabsq((Q)yd);
  const Q om = 1 - y;  // exact
  Q x = fabsq((Q)guess);
  Q crude;
  if (y < (Q)0.5) {
    crude = y * sqrtq(PiQ()) / 2;
  } else {
    const Q t = sqrtq(-logq(om));
    crude = t - (Q)0.5 * logq(t) / t;
    if (crude < (Q)0.3) crude = (Q)0.3;
  }
  if (!(x > crude / 2 && x < crude * 2)) x = crude;
  const Q c = 2 / sqrtq(PiQ());
  for (int it = 0; it < 200; ++it) {
    const Q f = y < (Q)0.5 ? erfq(x) - y : om - erfcq(x);
    const Q fp = c * expq(-x * x);
    Q step = f / fp;
    if (step > x / 2 && x > 0) step = x / 2;
    x -= step;
    if (fabsq(step) <= fabsq(x) * (Q)0x1p-40) break;
  }
  return yd < 0 ? -x : x;
}

Q RefQ(int fn, double xd, double guess) {
  const Q x = xd;
  switch (fn) {
    case kSin: return sinq(x);
    case kCos: return cosq(x);
    case kTan: return tanq(x);
    case kAsin: return asinq(x);
    case kAcos: return acosq(x);
    case kAtan: return atanq(x);
    case kErf: return erfq(x);
    case kErfc: return erfcq(x);
    case kErfinv: return ErfinvQ(xd, guess);
    case kGelu: {
      if (std::isnan(xd)) return x;
      if (xd == -HUGE_VAL) return -(Q)0;  // the limit
      const Q u = x / sqrtq((Q)2);
      return xd < 0 ? x / 2 * erfcq(-u) : x / 2 * (1 + erfq(u));
    }
  }
  return 0;
}

// ------------------------------------------------------------------ inputs
struct Inputs {
  std::vector<double> v;
  std::mt19937_64 rng{12345};
  void Add(double x) { v.push_back(x); }
  void AddBoth(double x) {
    v.push_back(x);
    v.push_back(-x);
  }
  // x and the `count` doubles on each side of it, both signs
  void AddAround(double x, int count = 1000, bool both_signs = true) {
    double lo = x, hi = x;
    Add(x);
    if (both_signs) Add(-x);
    for (int i = 0; i < count; ++i) {
      lo = std::nextafter(lo, -HUGE_VAL);
      hi = std::nextafter(hi, HUGE_VAL);
      Add(lo);
      Add(hi);
      if (both_signs) {
        Add(-lo);
        Add(-hi);
      }
    }
  }
  void AddRandomBits(size_t n) {
    for (size_t i = 0; i < n; ++i) Add(FromBits(rng()));
  }
  void AddUniform(double lo, double hi, size_t n) {
    std::uniform_real_distribution<double> u(lo, hi);
    for (size_t i = 0; i < n; ++i) Add(u(rng));
  }
  // |x| log-uniform in [lo, hi], random sign
  void AddLog(double lo, double hi, size_t n) {
    std::uniform_real_distribution<double> u(std::log(lo), std::log(hi));
    for (size_t i = 0; i < n; ++i) Add((rng() & 1 ? -1 : 1) * std::exp(u(rng)));
  }
  void AddSpecials() {
    const double inf = HUGE_VAL;
    for (double x : {0.0, inf, 1.0, 0.5, 2.0, 0.25, 3.0, 10.0, 100.0, 1e10, 1e100, 1e300,
                     std::numeric_limits<double>::min(), std::numeric_limits<double>::denorm_min(),
                     std::numeric_limits<double>::max(), 1e-300, 1e-20, 1e-8, 0x1p-27, 0x1p-26})
      AddBoth(x);
    Add(std::nan(""));
    Add(-std::nan(""));
    Add(FromBits(0x7ff0000000000001ull));  // signalling NaN
    Add(FromBits(0xfff0000000000001ull));
    Add(FromBits(0x7fffffffffffffffull));
    Add(FromBits(0x7ff8000000000123ull));
    // the largest and smallest subnormals and their neighbours
    AddAround(std::numeric_limits<double>::denorm_min(), 1000);
    AddAround(std::numeric_limits<double>::min(), 1000);
    AddAround(std::numeric_limits<double>::max(), 1000);
  }
};

size_t Samples() {
  const char* s = getenv("BCAST_MATH_SAMPLES");
  if (s && *s) return static_cast<size_t>(strtoull(s, nullptr, 10));
  return 1000000;
}

// pi/2 * k rounded to double
double HalfPiTimes(double k) { return (double)((Q)k * (PiQ() / 2)); }

std::vector<double> MakeInputs(int fn) {
  Inputs in;
  in.AddSpecials();
  const size_t n = Samples();
  switch (fn) {
    case kSin:
    case kCos:
    case kTan: {
      in.AddAround(1.6e6);  // Cody-Waite / Payne-Hanek switch
      for (double k : {1.0, 2.0, 3.0, 4.0, 5.0, 7.0, 10.0, 100.0, 1000.0, 12345.0, 1e5, 1018592.0,
                       1e6, 2e6, 1e9, 0x1p40, 1e15})
        in.AddAround(HalfPiTimes(k), 1000);
      for (int k = 1; k < 4000; ++k) {  // near every multiple of pi/2 up to 6000
        in.AddBoth(HalfPiTimes(k));
        in.AddBoth(std::nextafter(HalfPiTimes(k), 0));
        in.AddBoth(std::nextafter(HalfPiTimes(k), HUGE_VAL));
      }
      for (int k = 1; k < 200; ++k) in.AddAround(HalfPiTimes(k + 0.5), 20);  // quadrant edges
      // the double closest to a multiple of pi/2 (Kahan, Muller)
      in.AddAround(std::ldexp(6381956970095103.0, 797), 1000);
      in.AddAround(std::ldexp(5261692873635770.0, 499), 100);
      in.AddRandomBits(n * 4 / 10);
      in.AddUniform(-10, 10, n * 3 / 10);
      in.AddUniform(-2e6, 2e6, n / 10);
      in.AddLog(1e6, 1e308, n / 10);
      in.AddLog(1e-10, 1e6, n / 10);
      break;
    }
    case kAsin:
    case kAcos: {
      in.AddAround(1.0, 1000);
      in.AddAround(0.5, 1000);
      in.AddAround(0.0, 1000);
      in.AddRandomBits(n / 10);
      in.AddUniform(-1, 1, n * 6 / 10);
      in.AddLog(1e-20, 1, n / 10);
      {
        std::uniform_real_distribution<double> u(std::log(1e-17), std::log(1.0));
        for (size_t i = 0; i < n / 10; ++i) in.Add((in.rng() & 1 ? -1 : 1) * (1 - std::exp(u(in.rng))));
      }
      in.AddUniform(-0.6, 0.6, n / 10);
      break;
    }
    case kAtan: {
      for (double e : {0.4375, 0.6875, 1.1875, 2.4375, 0x1p64, 0x1p27, 1e16}) in.AddAround(e);
      in.AddRandomBits(n * 4 / 10);
      in.AddUniform(-4, 4, n * 4 / 10);
      in.AddLog(1e-10, 1e20, n * 2 / 10);
      break;
    }
    case kErf:
    case kErfc:
    case kGelu: {
      // the switches of the implementation, and erfc's underflow
      for (double e : {0.5, 0.84375, 1.0, 1.25, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 26.5, 27.0,
                       27.2, 27.25, 27.5, 32.0, 5.9, 1e-8, 0x1p-28, 0x1p-54, 0x1p-400, 0x1p-390})
        in.AddAround(e);
      in.AddRandomBits(n * 2 / 10);
      in.AddUniform(-8, 8, n * 3 / 10);
      in.AddUniform(-30, 30, n * 2 / 10);
      in.AddLog(1e-20, 40, n * 3 / 10);
      if (fn == kGelu) {
        for (double e : {0.70710678118654757, 8.5, 37.0, 38.0, 38.5, 38.85, 39.0, 40.0})
          in.AddAround(e, 1000);
        in.AddUniform(-40, 0, n / 10);
      }
      break;
    }
    case kErfinv: {
      in.AddAround(1.0, 1000);
      in.AddAround(0.0, 1000);
      for (double e : {0.5, 0.75, 0.9, 0.99, 0.999, 0.9999, 0.99999999, 0x1p-390, 0x1p-400, 0x1p-28})
        in.AddAround(e);
      // where the tail guess switches polynomials: sqrt(-log(1 - a)) = 2.5
      in.AddAround(1 - std::exp(-6.25));
      in.AddRandomBits(n / 10);
      in.AddUniform(-1, 1, n * 5 / 10);
      {
        std::uniform_real_distribution<double> u(std::log(1e-17), std::log(1.0));
        for (size_t i = 0; i < n * 2 / 10; ++i)
          in.Add((in.rng() & 1 ? -1 : 1) * (1 - std::exp(u(in.rng))));
      }
      in.AddLog(1e-300, 1, n * 2 / 10);
      break;
    }
  }
  return in.v;
}

void ComputeRefs(int fn, const std::vector<double>& x, std::vector<double>& ref,
                 std::vector<Q>& refq) {
  std::vector<double> guess(x.size(), 0.0);
  if (fn == kErfinv) HWY_DYNAMIC_DISPATCH(EvalMathTrig)(fn, 0, x.data(), guess.data(), x.size());
  ref.resize(x.size());
  refq.resize(x.size());
  unsigned nt = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
  std::vector<std::thread> th;
  for (unsigned t = 0; t < nt; ++t) {
    th.emplace_back([&, t] {
      for (size_t i = t; i < x.size(); i += nt) {
        refq[i] = RefQ(fn, x[i], guess[i]);
        ref[i] = (double)refq[i];
      }
    });
  }
  for (auto& t : th) t.join();
}

// Error in units of the last place of the correctly rounded result.
double UlpError(double got, double ref, Q exact) {
  if (std::isnan(got) || std::isnan(ref)) return (std::isnan(got) == std::isnan(ref)) ? 0 : 1e9;
  if (std::isinf(ref) || std::isinf(got)) return got == ref ? 0 : 1e9;
  int e;
  double r = std::fabs(ref);
  std::frexp(r == 0 ? std::numeric_limits<double>::denorm_min() : r, &e);
  const double ulp = std::max(std::ldexp(1.0, e - 53), std::numeric_limits<double>::denorm_min());
  return (double)(fabsq((Q)got - exact) / (Q)ulp);
}

void CheckFunction(int fn) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<double> x = MakeInputs(fn);
  std::vector<double> ref;
  std::vector<Q> refq;
  ComputeRefs(fn, x, ref, refq);
  const auto t1 = std::chrono::steady_clock::now();

  std::vector<double> first, out(x.size());
  std::string first_name;
  double worst_real = 0, worst_real_arg = 0;
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    for (int one_lane = 0; one_lane < 2; ++one_lane) {
      // one-lane vectors: the special inputs (first) and part of the random ones
      const size_t n = one_lane ? std::min<size_t>(x.size(), 300000) : x.size();
      HWY_DYNAMIC_DISPATCH(EvalMathTrig)(fn, one_lane, x.data(), out.data(), n);
      const std::string name =
          std::string(hwy::TargetName(target)) + (one_lane ? "/1lane" : "");
      int64_t worst = 0;
      double worst_arg = 0;
      size_t bad = 0;
      for (size_t i = 0; i < n; ++i) {
        const double got = out[i], want = ref[i];
        bool ok;
        int64_t dist = 0;
        if (std::isnan(want) || std::isnan(got)) {
          ok = std::isnan(want) && std::isnan(got);
          dist = ok ? 0 : 1000;
        } else {
          dist = std::llabs(Ordered(got) - Ordered(want));
          ok = dist <= 1;
          if (want == 0 && got == 0 && std::signbit(want) != std::signbit(got)) {
            ok = false;
            dist = 1000;
          }
        }
        if (dist > worst) {
          worst = dist;
          worst_arg = x[i];
        }
        if (!ok && bad++ < 5) {
          ADD_FAILURE() << kNames[fn] << " " << name << ": x=" << x[i] << " (" << std::hexfloat
                        << x[i] << ") got " << got << " want " << want << std::defaultfloat
                        << " dist " << dist;
        }
      }
      EXPECT_EQ(bad, 0u) << kNames[fn] << " " << name << ": " << bad << " inputs off by > 1 ulp";
      if (first.empty()) {
        first = out;
        first_name = name;
        for (size_t i = 0; i < n; ++i) {
          const double e = UlpError(out[i], ref[i], refq[i]);
          if (e > worst_real && e < 1e9) {
            worst_real = e;
            worst_real_arg = x[i];
          }
        }
      } else {
        size_t diff = 0;
        for (size_t i = 0; i < n; ++i) {
          if (BitsOf(out[i]) != BitsOf(first[i]) && !(std::isnan(out[i]) && std::isnan(first[i]))) {
            if (diff++ < 3)
              ADD_FAILURE() << kNames[fn] << ": " << name << " differs from " << first_name
                            << " at x=" << std::hexfloat << x[i] << ": " << out[i] << " vs "
                            << first[i];
          }
        }
        EXPECT_EQ(diff, 0u) << kNames[fn] << ": " << name << " bits differ from " << first_name;
      }
      printf("  %-8s %-14s max distance from correctly rounded: %lld ulp (x=%.17g)\n", kNames[fn],
             name.c_str(), static_cast<long long>(worst), worst_arg);
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  // a hash of the output bits, to compare builds (compilers, flags, EMU128)
  uint64_t hash = 1469598103934665603ull;
  for (double o : first) hash = (hash ^ (std::isnan(o) ? 0x7ff8000000000000ull : BitsOf(o))) * 1099511628211ull;
  printf("%-8s output bits hash %016llx\n", kNames[fn], static_cast<unsigned long long>(hash));
  const auto t2 = std::chrono::steady_clock::now();
  printf("%-8s %zu inputs, max error %.3f ulp of exact at x=%.17g (%a); reference %.1f s, "
         "targets %.1f s\n",
         kNames[fn], x.size(), worst_real, worst_real_arg, worst_real_arg,
         std::chrono::duration<double>(t1 - t0).count(),
         std::chrono::duration<double>(t2 - t1).count());
  fflush(stdout);
}

TEST(MathTrig, Sin) { CheckFunction(kSin); }
TEST(MathTrig, Cos) { CheckFunction(kCos); }
TEST(MathTrig, Tan) { CheckFunction(kTan); }
TEST(MathTrig, Asin) { CheckFunction(kAsin); }
TEST(MathTrig, Acos) { CheckFunction(kAcos); }
TEST(MathTrig, Atan) { CheckFunction(kAtan); }
#ifdef BCAST_TEST_HAVE_ERF
TEST(MathTrig, Erf) { CheckFunction(kErf); }
TEST(MathTrig, Erfc) { CheckFunction(kErfc); }
#endif
#ifdef BCAST_TEST_HAVE_ERFINV
TEST(MathTrig, Erfinv) { CheckFunction(kErfinv); }
#endif
#ifdef BCAST_TEST_HAVE_GELU
TEST(MathTrig, GeluErf) { CheckFunction(kGelu); }
#endif

}  // namespace
}  // namespace bcast
#endif  // HWY_ONCE
