// Speed of the float32 math (math_exp_f32-inl.h, math_trig_f32-inl.h,
// math_erf_f32-inl.h) against the float64 path it replaces (widen each half
// to float64, math_exp-inl.h's or math_trig-inl.h's function, round to
// float32), ns per element on an in-cache array (4096
// float32), 1 thread, the compiler's static target. Built by hand:
//
//   g++ -O2 -march=icelake-server -std=c++17 -ffp-contract=off -I src
//       tests/math_f32_bench.cc -lhwy -o /tmp/f32bench && /tmp/f32bench [names...]

#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <vector>

#include "hwy/highway.h"
#include "kernels/math_exp-inl.h"
#include "kernels/math_erf_f32-inl.h"
#include "kernels/math_exp_f32-inl.h"
#include "kernels/math_trig-inl.h"
#include "kernels/math_trig_f32-inl.h"

namespace hn = hwy::HWY_NAMESPACE;
namespace mm = bcast::HWY_NAMESPACE::math;

namespace {

constexpr size_t kN = 4096;

template <class F>
HWY_NOINLINE void Run(const float* in, float* out, const F& f) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  for (size_t i = 0; i < kN; i += N) hn::Store(f(d, hn::Load(d, in + i)), d, out + i);
}

// The float64 path: each half widened, f64 function, rounded to float32.
template <class F64>
auto Widen(const F64& f64) {
  return [f64](auto df, auto x) {
    const hn::Half<decltype(df)> dh;
    const hn::Rebind<double, decltype(dh)> dd;
    const auto lo = f64(dd, hn::PromoteTo(dd, hn::LowerHalf(dh, x)));
    const auto hi = f64(dd, hn::PromoteTo(dd, hn::UpperHalf(dh, x)));
    return hn::Combine(df, hn::DemoteTo(dh, hi), hn::DemoteTo(dh, lo));
  };
}

template <class F>
double Time(const float* in, float* out, const F& f) {
  double best = 1e30;
  for (int rep = 0; rep < 15; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int it = 0; it < 50; ++it) Run(in, out, f);
    const double ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, ns / (50.0 * kN));
  }
  return best;
}

// No names given: every function.
bool Wanted(int argc, char** argv, const char* name) {
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], name)) return true;
  }
  return argc <= 1;
}

}  // namespace

#define BENCH(NAME, LO, HI)                                                          \
  do {                                                                               \
    if (!Wanted(argc, argv, #NAME)) break;                                           \
    std::uniform_real_distribution<float> u(LO, HI);                                 \
    for (auto& v : in) v = u(rng);                                                   \
    const double a = Time(in, out, [](auto d, auto x) { return mm::NAME##F32(d, x); }); \
    const double b = Time(in, out, Widen([](auto d, auto x) { return mm::NAME(d, x); })); \
    printf("%-9s f32 %.3f ns/elem   f64 path %.3f ns/elem   speedup %.2fx\n", #NAME, a, b, b / a); \
  } while (0)

int main(int argc, char** argv) {
  alignas(64) static float in[kN], out[kN];
  std::mt19937 rng(1);
  printf("target %s, %zu floats in cache, best of 15\n", hwy::TargetName(HWY_STATIC_TARGET), kN);
  BENCH(Exp, -80.0f, 80.0f);
  BENCH(Exp2, -120.0f, 120.0f);
  BENCH(Expm1, -10.0f, 10.0f);
  BENCH(Log, 0.0f, 100.0f);
  BENCH(Log2, 0.0f, 100.0f);
  BENCH(Log10, 0.0f, 100.0f);
  BENCH(Log1p, -0.9f, 100.0f);
  BENCH(Sinh, -10.0f, 10.0f);
  BENCH(Cosh, -10.0f, 10.0f);
  BENCH(Tanh, -5.0f, 5.0f);
  BENCH(Asinh, -100.0f, 100.0f);
  BENCH(Acosh, 1.0f, 100.0f);
  BENCH(Atanh, -0.99f, 0.99f);
  BENCH(Sigmoid, -10.0f, 10.0f);
  BENCH(Logit, 0.0f, 1.0f);
  BENCH(Silu, -10.0f, 10.0f);
  BENCH(Mish, -10.0f, 10.0f);
  BENCH(GeluTanh, -5.0f, 5.0f);
  BENCH(Sin, -10.0f, 10.0f);
  BENCH(Cos, -10.0f, 10.0f);
  BENCH(Tan, -10.0f, 10.0f);
  BENCH(Asin, -1.0f, 1.0f);
  BENCH(Acos, -1.0f, 1.0f);
  BENCH(Atan, -10.0f, 10.0f);
  BENCH(Erf, -3.0f, 3.0f);
  BENCH(Erfc, -3.0f, 10.0f);
  BENCH(Erfinv, -1.0f, 1.0f);
  BENCH(GeluErf, -5.0f, 5.0f);
  if (Wanted(argc, argv, "Softplus")) {
    std::uniform_real_distribution<float> u(-10.0f, 10.0f);
    for (auto& v : in) v = u(rng);
    const double a = Time(in, out, [](auto d, auto x) { return mm::SoftplusF32(d, x, 1.0f, 20.0f); });
    const double b = Time(in, out, Widen([](auto d, auto x) { return mm::Softplus(d, x, 1.0, 20.0); }));
    printf("%-9s f32 %.3f ns/elem   f64 path %.3f ns/elem   speedup %.2fx\n", "Softplus", a, b, b / a);
    const double c = Time(in, out, [](auto d, auto x) { return mm::EluF32(d, x, 1.0f); });
    const double e = Time(in, out, Widen([](auto d, auto x) { return mm::Elu(d, x, 1.0); }));
    printf("%-9s f32 %.3f ns/elem   f64 path %.3f ns/elem   speedup %.2fx\n", "Elu", c, e, e / c);
  }
  return 0;
}
