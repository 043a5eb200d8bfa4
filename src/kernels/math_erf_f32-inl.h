// Float32 vector math, error-function family: ErfF32, ErfcF32, ErfinvF32
// and GeluErfF32 (gelu, approximate='none'). Each takes and returns float32
// lanes (any float32 descriptor, 1-lane and HWY_SCALAR included). Every
// result is within 1 ulp of the correctly rounded float32 for every input:
// tests/math_f32_exhaustive.cc checks all 2^32 inputs of each function.
//
// Method: through float64 (ViaF64 of math_exp_f32-inl.h, same rules: exact
// IEEE operations only, no FMA, no libm, -ffp-contract=off): each half
// widened (exact), plain float64 arithmetic with short polynomials to a
// relative error of ~2^-34 or better, rounded once to float32 (within
// 0.5 + 2^-10 ulp).
//  * erf(a), a = |x| < 3/4: a P(a^2), degree 7 in a^2. Float32 a^2 is exact.
//  * erfc(a), 3/4 <= a <= 10.3: exp(-a^2) G(u), u = (a - 3)/(a + 3), G a
//    polynomial of degree 12 (erfc(a) e^(a^2) is analytic in u up to u = 1,
//    a = inf). exp(-a^2) from ExpCore; u through Recip. Computed only when
//    some lane of the vector needs it. Erf = 1 - erfc there, Erfc(x < 0) =
//    2 - erfc(|x|) (or 1 + erf(|x|)), Erfc(x < 3/4) = 1 - erf(x); none of
//    these cancels below 0.28 of the result. erfc's float32 results are
//    subnormal from x = 9.2 and zero from x = 10.06: the float64 value
//    (normal) is rounded once to the subnormal grid.
//  * GeluErf: x/2 (1 + erf(z)), z = x/sqrt2 rounded in float64 (its error
//    moves erfc(|z|) by at most 2 z^2 2^-53 relative), as above with a = |z|.
//    gelu(x) is -0 below x = -14.5 (|gelu| < 2^-150), gelu(-inf) NaN as
//    GeluFn's float64 form.
//  * Erfinv: a = |y| <= 3/4: a C(a^2), degree 12; above, T(w),
//    w = sqrt(-log(1 - a)) (1 - a exact, Log64), T of degree 12 on two
//    intervals of w; the coefficients are chosen per lane, so each lane runs
//    one Horner chain (and the log only when some lane needs it).
//
// Polynomials: tools/fit_math_erf_f32.py (the errors quoted are of the
// float64-rounded coefficients evaluated exactly).

#if defined(BCAST_KERNELS_MATH_ERF_F32_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BCAST_KERNELS_MATH_ERF_F32_INL_H_
#undef BCAST_KERNELS_MATH_ERF_F32_INL_H_
#else
#define BCAST_KERNELS_MATH_ERF_F32_INL_H_
#endif

#include <stddef.h>

#include "hwy/highway.h"
#include "kernels/math_exp_f32-inl.h"

HWY_BEFORE_NAMESPACE();
namespace bcast {
namespace HWY_NAMESPACE {
namespace math {
namespace hn = hwy::HWY_NAMESPACE;

namespace f32detail {

// From tools/fit_math_erf_f32.py.
// erf(a)/a in z = a^2 on [0, 0.5625]: max relative error 4.02e-13 (2^-41.2)
constexpr double kErfSmall[8] = {
    0x1.20dd750429454p+0, -0x1.812746aea3b55p-2, 0x1.ce2f20b41c733p-4,
    -0x1.b82cae5ce1e86p-6, 0x1.5656019e285a7p-8, -0x1.bf7bb9c298533p-11,
    0x1.edb290bd9a2d1p-14, -0x1.879a838d2e798p-17,
};
// erfc(a) exp(a^2) in u = (a - 3)/(a + 3), a in [0.75, 10.3]: max relative error 6.63e-12 (2^-37.1)
constexpr double kErfcTail[13] = {
    0x1.6e9827d228891p-3, -0x1.4e102b9d0f20cp-2, 0x1.f6ff20422d1cbp-3,
    -0x1.336ffbdf1e1a5p-3, 0x1.258b135dca573p-4, -0x1.8fa59b82b7687p-6,
    0x1.17c876bff5792p-8, 0x1.7321ec61f37e1p-11, -0x1.3910a5fca08dbp-11,
    0x1.758b05303549fp-15, 0x1.0ca85c508bdffp-14, -0x1.6e6539b14ada4p-17,
    -0x1.eb1b1bc05ad07p-18,
};
// erfinv(a)/a in z = a^2 on [0, 0.5625]: max relative error 5.18e-11 (2^-34.2)
constexpr double kErfinvC[13] = {
    0x1.c5bf891b88b04p-1, 0x1.db29f912cf530p-3, 0x1.053cfccfd6ad9p-3,
    0x1.6245a026b345ep-4, 0x1.0ef42a312b220p-4, 0x1.356cfa5eb4104p-5,
    0x1.2c624207385cfp-3, -0x1.e4eed71ad9b78p-2, 0x1.b6505d8ab8e3bp+0,
    -0x1.d49e362290e1dp+1, 0x1.4ec36490b5cf6p+2, -0x1.12b3ecb0516b9p+2,
    0x1.a825c0ac5de48p+0,
};
// erfinv(1 - e^-w^2) on w in [sqrt(log 4), 2.25]: max relative error 1.7e-12 (2^-39.1)
constexpr double kErfinvT1[13] = {
    0x1.e987a7655588bp-7, -0x1.97082027fff75p-4, 0x1.247ad11fcde64p+0,
    -0x1.dcdd7bfa0008fp-3, -0x1.7ee37a60111cfp-1, 0x1.15b308401d315p+0,
    -0x1.a7d671910a303p-1, 0x1.ae2450c1fb262p-2, -0x1.31341539732e6p-3,
    0x1.2dc628cfa05b8p-5, -0x1.8e83c13dfda20p-8, 0x1.3d07df78df702p-11,
    -0x1.ccb4b87bd9710p-16,
};
// erfinv(1 - e^-w^2) on w in [2.25, sqrt(24 log 2)]: max relative error 5.94e-13 (2^-40.6)
constexpr double kErfinvT2[13] = {
    0x1.6e04f5ea05670p-7, -0x1.709e8c57458e0p-3, 0x1.9693d14fd27bcp+0,
    -0x1.47e12e5d43d44p+0, 0x1.72725ba39d921p-1, -0x1.3401b36eb8ce3p-2,
    0x1.7fb948e4183a9p-4, -0x1.669fba9334522p-6, 0x1.f0ac729def63ep-9,
    -0x1.ef38bfc8c7111p-12, 0x1.507e3e830a6c9p-15, -0x1.1732009e6540cp-19,
    0x1.ab21f0cfb7de8p-25,
};

constexpr double kErfSplit = 0.75;   // erf polynomial below, erfc tail from here
constexpr double kErfcTailHi = 10.3;  // erfc(10.3) e^(10.3^2) range end
constexpr double kInvSqrt2 = 0x1.6a09e667f3bcdp-1;

// erf(a) for 0 <= a <= 3/4 (relative error 2^-41).
template <class D, class V>
HWY_INLINE V ErfSmall64(D d, V a) {
  return hn::Mul(a, Horner(d, hn::Mul(a, a), kErfSmall));
}

// erfc(a) for a in [3/4, 10.3] (a clamped to it; NaN gives garbage),
// relative error ~2^-36.
template <class D, class V>
HWY_INLINE V ErfcTail64(D d, V a) {
  const V ac = Clamp(d, a, kErfSplit, kErfcTailHi);
  const V three = hn::Set(d, 3.0);
  const V u = hn::Mul(hn::Sub(ac, three), Recip(d, hn::Add(ac, three)));
  return hn::Mul(Exp64(d, hn::Neg(hn::Mul(ac, ac))), Horner(d, u, kErfcTail));
}

// erfc(a) where some lane is not small (a >= 3/4 or NaN), else zeros.
template <class D, class V, class M>
HWY_INLINE V ErfcTailWhere(D d, V a, M small) {
  if (hn::AllTrue(d, small)) return hn::Zero(d);
  return ErfcTail64(d, a);
}

}  // namespace f32detail

template <class DF>
HWY_INLINE hn::VFromD<DF> ErfF32(DF df, hn::VFromD<DF> x) {
  const auto r = f32detail::ViaF64(df, x, [](auto d, auto v) {
    using V = decltype(v);
    const V a = hn::Abs(v);
    const auto small = hn::Lt(a, hn::Set(d, f32detail::kErfSplit));
    const V t = f32detail::ErfcTailWhere(d, a, small);
    const V e = hn::IfThenElse(small, f32detail::ErfSmall64(d, a), hn::Sub(hn::Set(d, 1.0), t));
    return hn::CopySignToAbs(e, v);
  });
  return f32detail::KeepNaN(df, x, r);
}

template <class DF>
HWY_INLINE hn::VFromD<DF> ErfcF32(DF df, hn::VFromD<DF> x) {
  const auto r = f32detail::ViaF64(df, x, [](auto d, auto v) {
    using V = decltype(v);
    const V a = hn::Abs(v);
    const auto small = hn::Lt(a, hn::Set(d, f32detail::kErfSplit));
    const V t = f32detail::ErfcTailWhere(d, a, small);
    const V rs = hn::Sub(hn::Set(d, 1.0), hn::CopySignToAbs(f32detail::ErfSmall64(d, a), v));
    const V rt = hn::IfThenElse(hn::Lt(v, hn::Zero(d)), hn::Sub(hn::Set(d, 2.0), t), t);
    return hn::IfThenElse(small, rs, rt);
  });
  // erfc(x) < 2^-150 beyond 10.3 (the clamped tail would give erfc(10.3)).
  const auto r0 = hn::IfThenElse(hn::Gt(x, hn::Set(df, 10.3f)), hn::Zero(df), r);
  return f32detail::KeepNaN(df, x, r0);
}

template <class DF>
HWY_INLINE hn::VFromD<DF> GeluErfF32(DF df, hn::VFromD<DF> x) {
  using VF = hn::VFromD<DF>;
  VF r = f32detail::ViaF64(df, x, [](auto d, auto v) {
    using V = decltype(v);
    const V a = hn::Abs(hn::Mul(v, hn::Set(d, f32detail::kInvSqrt2)));
    const auto small = hn::Lt(a, hn::Set(d, f32detail::kErfSplit));
    const V t = f32detail::ErfcTailWhere(d, a, small);
    const V one = hn::Set(d, 1.0);
    // 1 + erf(z) = 2 - erfc(|z|) for z > 0, erfc(|z|) for z < 0.
    const V fs = hn::Add(one, hn::CopySignToAbs(f32detail::ErfSmall64(d, a), v));
    const V ft = hn::IfThenElse(hn::Lt(v, hn::Zero(d)), t, hn::Sub(hn::Set(d, 2.0), t));
    return hn::Mul(hn::Mul(v, hn::Set(d, 0.5)), hn::IfThenElse(small, fs, ft));
  });
  r = hn::IfThenElse(hn::Lt(x, hn::Set(df, -14.5f)), hn::Set(df, -0.0f), r);
  r = hn::IfThenElse(hn::Eq(x, hn::Set(df, -f32detail::kInfF)), f32detail::NaNF(df), r);
  return f32detail::KeepNaN(df, x, r);
}

template <class DF>
HWY_INLINE hn::VFromD<DF> ErfinvF32(DF df, hn::VFromD<DF> x) {
  using VF = hn::VFromD<DF>;
  VF r = f32detail::ViaF64(df, x, [](auto d, auto v) {
    namespace f = f32detail;
    using V = decltype(v);
    const V a = hn::Abs(v);
    const V one = hn::Set(d, 1.0);
    const auto tail = hn::Gt(a, hn::Set(d, 0.75));
    const V z = hn::Mul(a, a);
    if (hn::AllFalse(d, tail)) return hn::CopySignToAbs(hn::Mul(a, f::Horner(d, z, f::kErfinvC)), v);
    // 1 - a exact (a >= 1/2), in [2^-24, 1/4] on tail lanes below 1.
    const V m = hn::IfThenElse(hn::And(tail, hn::Lt(a, one)), hn::Sub(one, a), hn::Set(d, 0.25));
    const V w = hn::Sqrt(hn::Neg(f::Log64(d, m)));
    const auto t2 = hn::Gt(w, hn::Set(d, 2.25));
    const V s = hn::IfThenElse(tail, w, z);
    auto coef = [&](size_t i) {
      return hn::IfThenElse(tail, hn::IfThenElse(t2, hn::Set(d, f::kErfinvT2[i]), hn::Set(d, f::kErfinvT1[i])),
                            hn::Set(d, f::kErfinvC[i]));
    };
    V p = coef(12);
    for (size_t i = 12; i-- > 0;) p = hn::Add(hn::Mul(p, s), coef(i));
    return hn::CopySignToAbs(hn::IfThenElse(tail, p, hn::Mul(a, p)), v);
  });
  const VF a = hn::Abs(x);
  const VF one = hn::Set(df, 1.0f);
  r = hn::IfThenElse(hn::Eq(a, one), hn::CopySignToAbs(hn::Set(df, f32detail::kInfF), x), r);
  r = hn::IfThenElse(hn::Gt(a, one), f32detail::NaNF(df), r);
  return f32detail::KeepNaN(df, x, r);
}

}  // namespace math
}  // namespace HWY_NAMESPACE
}  // namespace bcast
HWY_AFTER_NAMESPACE();

#endif  // BCAST_KERNELS_MATH_ERF_F32_INL_H_
