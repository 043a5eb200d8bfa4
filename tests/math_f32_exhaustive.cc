// Exhaustive check of the float32 math (src/kernels/math_exp_f32-inl.h,
// math_trig_f32-inl.h, math_erf_f32-inl.h): every function on all 2^32
// float32 inputs, on the compiler's static (best) target, against the
// float64 function of math_exp-inl.h or math_trig-inl.h rounded to float32.
// That reference is the correctly rounded float32 except where the float64
// result lies within 2 float64 ulps of a float32 rounding boundary; there the
// __float128 (libquadmath) value, rounded once to float32, is used instead.
// Reports per function: max ulp (ordered bit patterns), the count of results
// that are not the correctly rounded one, NaN mismatches and zero-sign
// mismatches. Not part of ctest; build by hand:
//
//   g++ -O2 -march=icelake-server -std=c++17 -ffp-contract=off -I src
//       tests/math_f32_exhaustive.cc -lhwy -lquadmath -pthread -o /tmp/f32ex
//   /tmp/f32ex [threads] [function names...]
//
// Results (AVX3, commit f68de64; beta 1, threshold 20, alpha 1): every
// function max 1 ulp, no NaN or zero-sign mismatch. Not correctly rounded,
// of 2^32: Exp 2173155, Exp2 2194555, Expm1 4148451, Log 2308748, Log2
// 2507257, Log10 2565807, Log1p 9189204, Tanh 2503932, Sigmoid 922693, Silu
// 935216, GeluTanh 718776 (native float32); Sinh 3160, Cosh 1072, Asinh 36,
// Acosh 6, Atanh 18, Logit 7, Mish 709, Softplus 804, Elu 1102 (float64).
// In fmas (MulAddF; AVX3, 2026-11-27): max 1 ulp, no NaN or zero-sign
// mismatch; not correctly rounded: Exp 18062266, Exp2 18110636, Expm1
// 4131724, Tanh 2484078, Sigmoid 866577, Silu 857612, GeluTanh 652448,
// Log 2355972, Log2 2250999, Log10 2267236, Log1p 4742674, Atanh 4172908
// (the same counts with -march=nehalem, the emulated fma, for Log, Atanh),
// Erf 29471024 (most at tiny |x|), Erfc 4505489, GeluErf 4164661.
// Native float32 in fmas since 2026-11-27 (third session; AVX3, and SSSE3
// with the emulated fma for Logit): max 1 ulp, no NaN or zero-sign
// mismatch; not correctly rounded: Logit 1175966, Softplus (beta 1)
// 2814300, Atan 1431398, Asin 726320, Acos 244335, Sin 4540588, Cos
// 4177490, Tan 6617832 (native below |x| = 2^17, the float64 form above).
// Tanh with plain roundings (fourth session; AVX3, and SSSE3 with the
// emulated fma): max 1 ulp, not correctly rounded 2602722 (1/(1 + w) as a
// polynomial; 3411322 with the division it replaced). Erf with its
// plain-rounding tail (same session, AVX3 and SSSE3): max 1 ulp, not
// correctly rounded 29323146 (most at tiny |x|, as before).
// Erfc and GeluErf with tabled tails (fifth session; AVX3, and SSSE3 with
// the emulated fma and gathered coefficients): max 1 ulp, no NaN or
// zero-sign mismatch; not correctly rounded: Erfc 3735000, GeluErf 2836588
// (the float-float tail they replace: 4505489 and 4164661). Largest
// distance from the exact value (long double): erfc 1.12 ulp (x = 1.554),
// gelu 1.05 ulp (x = -1.048).
// Erfinv in native float32 (same session; AVX3, and SSSE3 with the
// emulated fma): max 1 ulp, no NaN or zero-sign mismatch; not correctly
// rounded 14710438 (the float64 form it replaces: 748310).
// Erf-family (math_erf_f32-inl.h, AVX3, commit c03de4e; the reference is
// math_trig-inl.h's float64 function; erfinv's quad value: two Newton steps on
// erfq/erfcq from it): every function max 1 ulp, no NaN or zero-sign
// mismatch. Not correctly rounded, of 2^32: Erf 8850, Erfc 652, Erfinv
// 748310 (its central polynomial's 2^-34), GeluErf 648 (float64).
// About 80 s per function on one core (the float64 reference dominates).
//
// Trig results (AVX3, commit 81b18ee): every function max 1 ulp, no NaN or
// zero-sign mismatch. Not correctly rounded, of 2^32: Sin 332, Cos 914,
// Tan 32, Asin 48, Acos 18, Atan 36 (through float64; Sin, Cos and Tan take
// the float64 math::Sin/Cos/Tan for |x| >= 1.6e6, as the reference does).
// 100-290 s per function on two busy cores (Payne-Hanek in the reference
// and in the fallback for half of all inputs).

#include <quadmath.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "hwy/highway.h"
#include "kernels/math_exp-inl.h"
#include "kernels/math_erf_f32-inl.h"
#include "kernels/math_exp_f32-inl.h"
#include "kernels/math_trig-inl.h"
#include "kernels/math_trig_f32-inl.h"

namespace hn = hwy::HWY_NAMESPACE;
namespace mm = bcast::HWY_NAMESPACE::math;
using Q = __float128;

namespace {

constexpr float kBeta = 1.0f, kThreshold = 20.0f, kAlpha = 1.0f;

const Q kPiQ = strtoflt128("3.14159265358979323846264338327950288419716939937510", nullptr);
const Q kSqrt2OverPiQ = sqrtq(2 / kPiQ);
const Q kGeluCQ = strtoflt128("0.044715", nullptr);

struct Fn {
  const char* name;
  void (*f32)(const float*, float*, size_t);
  void (*f64)(const double*, double*, size_t);
  Q (*quad)(float);
};

template <class F>
void Run32(const float* in, float* out, size_t n, const F& f) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  for (size_t i = 0; i < n; i += N) hn::StoreU(f(d, hn::LoadU(d, in + i)), d, out + i);
}
template <class F>
void Run64(const double* in, double* out, size_t n, const F& f) {
  const hn::ScalableTag<double> d;
  const size_t N = hn::Lanes(d);
  for (size_t i = 0; i < n; i += N) hn::StoreU(f(d, hn::LoadU(d, in + i)), d, out + i);
}

#define FN(NAME, QEXPR)                                                                       \
  Fn {                                                                                        \
    #NAME,                                                                                    \
        [](const float* in, float* out, size_t n) {                                           \
          Run32(in, out, n, [](auto d, auto v) { return mm::NAME##F32(d, v); });              \
        },                                                                                    \
        [](const double* in, double* out, size_t n) {                                         \
          Run64(in, out, n, [](auto d, auto v) { return mm::NAME(d, v); });                   \
        },                                                                                    \
        [](float xf) -> Q {                                                                   \
          const Q x = xf;                                                                     \
          return QEXPR;                                                                       \
        }                                                                                     \
  }

Q SoftplusQ(float xf) {
  const Q x = xf;
  if (xf * kBeta > kThreshold) return x;  // float32 product, PyTorch's rule
  return log1pq(expq(x * kBeta)) / kBeta;
}

// erfinv in quad (libquadmath has none): the float64 Erfinv, then two
// Newton steps on erfq (on erfcq above 1/2, where 1 - y is exact).
Q ErfinvQ(float yf) {
  const hn::CappedTag<double, 1> d1;
  const Q y = fabsq(Q(yf));
  Q x = fabsq(Q(hn::GetLane(mm::Erfinv(d1, hn::Set(d1, double(yf))))));
  for (int i = 0; i < 2; ++i) {
    const Q f = y > Q(0.5) ? (1 - y) - erfcq(x) : erfq(x) - y;
    x -= f / (2 / sqrtq(kPiQ) * expq(-x * x));
  }
  return yf < 0 ? -x : x;
}

std::vector<Fn> Fns() {
  std::vector<Fn> v = {
      FN(Exp, expq(x)),
      FN(Exp2, exp2q(x)),
      FN(Expm1, expm1q(x)),
      FN(Log, logq(x)),
      FN(Log2, log2q(x)),
      FN(Log10, log10q(x)),
      FN(Log1p, log1pq(x)),
      FN(Sinh, sinhq(x)),
      FN(Cosh, coshq(x)),
      FN(Tanh, tanhq(x)),
      FN(Asinh, asinhq(x)),
      FN(Acosh, acoshq(x)),
      FN(Atanh, atanhq(x)),
      FN(Sin, sinq(x)),
      FN(Cos, cosq(x)),
      FN(Tan, tanq(x)),
      FN(Asin, asinq(x)),
      FN(Acos, acosq(x)),
      FN(Atan, atanq(x)),
      FN(Sigmoid, 1 / (1 + expq(-x))),
      FN(Logit, logq(x / (1 - x))),
      FN(Silu, x / (1 + expq(-x))),
      FN(Mish, x * tanhq(log1pq(expq(x)))),
      FN(Erf, erfq(x)),
      FN(Erfc, erfcq(x)),
      FN(Erfinv, ErfinvQ(xf)),
      FN(GeluTanh, x / (1 + expq(-2 * kSqrt2OverPiQ * (x + kGeluCQ * x * x * x)))),
  };
  v.push_back(Fn{"Softplus",
                 [](const float* in, float* out, size_t n) {
                   Run32(in, out, n, [](auto d, auto x) {
                     return mm::SoftplusF32(d, x, kBeta, kThreshold);
                   });
                 },
                 [](const double* in, double* out, size_t n) {
                   // PyTorch's rule on the float32 product first.
                   Run64(in, out, n, [](auto d, auto x) {
                     const auto r = mm::Softplus(d, x, kBeta, 1e300);
                     const auto xf = hn::DemoteTo(hn::Rebind<float, decltype(d)>(), x);
                     const auto p = hn::Mul(xf, hn::Set(hn::Rebind<float, decltype(d)>(), kBeta));
                     const auto big = hn::PromoteTo(d, p);
                     return hn::IfThenElse(hn::Gt(big, hn::Set(d, kThreshold)), x, r);
                   });
                 },
                 SoftplusQ});
  v.push_back(Fn{"Elu",
                 [](const float* in, float* out, size_t n) {
                   Run32(in, out, n, [](auto d, auto x) { return mm::EluF32(d, x, kAlpha); });
                 },
                 [](const double* in, double* out, size_t n) {
                   Run64(in, out, n, [](auto d, auto x) { return mm::Elu(d, x, kAlpha); });
                 },
                 [](float xf) -> Q {
                   const Q x = xf;
                   return xf > 0 ? x : kAlpha * expm1q(x);
                 }});
  v.push_back(Fn{"GeluErf",
                 [](const float* in, float* out, size_t n) {
                   Run32(in, out, n, [](auto d, auto x) { return mm::GeluErfF32(d, x); });
                 },
                 [](const double* in, double* out, size_t n) {
                   // gelu(-inf) = NaN, as GeluFn (GeluErf gives the limit).
                   Run64(in, out, n, [](auto d, auto x) {
                     const auto r = mm::GeluErf(d, x);
                     return hn::IfThenElse(hn::Eq(x, hn::Set(d, -HUGE_VAL)), hn::Set(d, NAN), r);
                   });
                 },
                 [](float xf) -> Q {
                   const Q x = xf;
                   return x / 2 * erfcq(-x / sqrtq(2));
                 }});
  return v;
}

int64_t Ord(float v) {
  int32_t i;
  memcpy(&i, &v, 4);
  return i < 0 ? -int64_t(i & 0x7fffffff) : int64_t(i);
}
uint32_t BitsF(float v) {
  uint32_t i;
  memcpy(&i, &v, 4);
  return i;
}
float FromBitsF(uint32_t i) {
  float v;
  memcpy(&v, &i, 4);
  return v;
}
double FromBitsD(uint64_t i) {
  double v;
  memcpy(&v, &i, 8);
  return v;
}
uint64_t BitsD(double v) {
  uint64_t i;
  memcpy(&i, &v, 8);
  return i;
}

struct Stats {
  int64_t max_ulp = 0;
  uint32_t max_arg = 0;
  uint64_t not_cr = 0, nan_bad = 0, zero_sign = 0, suspects = 0, quad_flips = 0;
  void Merge(const Stats& o) {
    if (o.max_ulp > max_ulp) {
      max_ulp = o.max_ulp;
      max_arg = o.max_arg;
    }
    not_cr += o.not_cr;
    nan_bad += o.nan_bad;
    zero_sign += o.zero_sign;
    suspects += o.suspects;
    quad_flips += o.quad_flips;
  }
};

void Range(const Fn& fn, uint64_t begin, uint64_t end, Stats* st) {
  constexpr size_t kChunk = 1 << 14;
  std::vector<float> in(kChunk), out(kChunk);
  std::vector<double> ind(kChunk), outd(kChunk);
  for (uint64_t base = begin; base < end; base += kChunk) {
    for (size_t j = 0; j < kChunk; ++j) {
      in[j] = FromBitsF(uint32_t(base + j));
      ind[j] = in[j];
    }
    fn.f32(in.data(), out.data(), kChunk);
    fn.f64(ind.data(), outd.data(), kChunk);
    for (size_t j = 0; j < kChunk; ++j) {
      const double rd = outd[j];
      float ref = float(rd);
      const float r = out[j];
      if (std::isnan(ref) || std::isnan(r)) {
        if (std::isnan(ref) != std::isnan(r)) {
          if (st->nan_bad < 5)
            printf("  %s NaN mismatch x=%a (0x%08x): got %a ref %a\n", fn.name, in[j],
                   uint32_t(base + j), r, ref);
          st->nan_bad++;
        }
        continue;
      }
      if (std::isfinite(rd) && rd != 0) {
        // Near a float32 rounding boundary: decide with __float128.
        const uint64_t b = BitsD(rd);
        if (float(FromBitsD(b - 2)) != float(FromBitsD(b + 2))) {
          st->suspects++;
          const float rq = float(fn.quad(in[j]));
          if (BitsF(rq) != BitsF(ref)) st->quad_flips++;
          ref = rq;
        }
      }
      if (BitsF(r) == BitsF(ref)) continue;
      if (r == 0 && ref == 0) {
        if (st->zero_sign < 5)
          printf("  %s zero sign x=%a: got %a ref %a\n", fn.name, in[j], r, ref);
        st->zero_sign++;
        continue;
      }
      st->not_cr++;
      const int64_t u = std::llabs(Ord(r) - Ord(ref));
      if (u > st->max_ulp) {
        st->max_ulp = u;
        st->max_arg = uint32_t(base + j);
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? atoi(argv[1]) : 1;
  std::vector<std::string> want;
  for (int i = 2; i < argc; ++i) want.push_back(argv[i]);
  printf("target %s, %d thread(s)\n", hwy::TargetName(HWY_STATIC_TARGET), threads);
  int bad = 0;
  for (const Fn& fn : Fns()) {
    if (!want.empty()) {
      bool ok = false;
      for (const auto& w : want) ok |= w == fn.name;
      if (!ok) continue;
    }
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<Stats> st(threads);
    std::vector<std::thread> th;
    const uint64_t total = uint64_t(1) << 32, per = total / threads;
    for (int t = 0; t < threads; ++t)
      th.emplace_back(Range, std::cref(fn), per * t, t + 1 == threads ? total : per * (t + 1), &st[t]);
    for (auto& t : th) t.join();
    Stats s;
    for (const auto& x : st) s.Merge(x);
    const double sec =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const float xm = FromBitsF(s.max_arg);
    printf("%-9s max_ulp %lld (x=%a) not_correctly_rounded %llu  nan_mismatch %llu  "
           "zero_sign %llu  near-tie(quad) %llu (f64-ref flipped %llu)  %.0fs\n",
           fn.name, (long long)s.max_ulp, xm, (unsigned long long)s.not_cr,
           (unsigned long long)s.nan_bad, (unsigned long long)s.zero_sign,
           (unsigned long long)s.suspects, (unsigned long long)s.quad_flips, sec);
    fflush(stdout);
    if (s.max_ulp > 1 || s.nan_bad || s.zero_sign) bad = 1;
  }
  return bad;
}
