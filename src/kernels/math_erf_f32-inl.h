// Float32 vector math, error-function family: ErfF32, ErfcF32, ErfinvF32
// and GeluErfF32 (gelu, approximate='none'). Each takes and returns float32
// lanes (any float32 descriptor, 1-lane and HWY_SCALAR included). Every
// result is within 1 ulp of the correctly rounded float32 for every input:
// tests/math_f32_exhaustive.cc checks all 2^32 inputs of each function.
//
// Erf, Erfc, GeluErf: native float32 in fmas (MulAddF of math_fma-inl.h:
// the hardware fma on AVX2/AVX3, an exact emulation elsewhere; same bits on
// every target; exact IEEE operations only, -ffp-contract=off):
//  * Small arguments: erf(z) = z + z q(z^2), q a float32 polynomial of
//    degree 6 on z^2 <= 1 (kErfQf, 2^-29.3 relative to erf(z)/z). Erf:
//    fma(x, q, x) for |x| < 1. Erfc for -1 < x < 3/4: 1 - x = h + e
//    (Fast2Sum), h + (e - x q). GeluErf for -3/4 < z < 1, z = x/sqrt2 as a
//    float-float zh + zl: 1 + erf(z) = A + B (A = 1 + zh by Fast2Sum,
//    q at zh^2 + 2 zh zl), x (A/2) + x (B/2) in one fma.
//  * Tails, erfc(a) for a in [0.75, 10.3] and b Phi(-b) (gelu: x Phi(x) =
//    -b Phi(-b) for x = -b, x - b Phi(-b) for x = b) for b in [1, 14.6],
//    computed only when some lane needs them: f e^-s with s = a^2 or b^2/2
//    split exactly (sh + sl) and f = erfc(a) e^(a^2) or b Phi(-b) e^(b^2/2),
//    smooth and within a factor 9 (erfc) or 1.4 (gelu) of constant. f is
//    a degree-8 (erfc) or 7 (gelu) polynomial on each of eight intervals of
//    its argument, [lo, 3/2 lo), [3/2 lo, 2 lo), [2 lo, 3 lo), ..., found
//    from the exponent and first mantissa bit, its coefficients picked per
//    lane with one permute (or a gather where a vector has under 8 lanes);
//    relative error 2^-28.8 or less, f = c0 + w with c0 a float32 pair and
//    |w| < 0.1 c0. No division. e^-s = 2^k e^(rh - v) with rh exact (fma
//    Cody-Waite with ExpF32's constants) and e^(rh - v) = 1 + rh + m kept
//    unrounded; (c0 + w)(1 + rh + m) = Sh + (w + e1), c0 + c0 rh = Sh + Sl
//    exactly, so the roundings before the last touch only terms below
//    0.15 of the result. Then an exact power-of-two scaling (ScaleTailF:
//    subnormal results rounded once more, in integer bits).
//    Erfc(x <= -1) = 2 - erfc(|x|).
//    Measured (tests/math_f32_exhaustive.cc, all 2^32 inputs): within 1 ulp
//    of the correctly rounded result (see the commit message for counts).
//  * Erf for |x| >= 1: 1 - erfc(a) with plain roundings and no division
//    (see ErfF32): a small erfc subtracted from 1 needs only a few bits.
//  * Special values: Erfc(x > 10.3) = 0 (erfc < 2^-150 from 10.06);
//    gelu(x > 14.6) = x, gelu(x < -14.5) = -0 (|gelu| < 2^-150), gelu(-inf)
//    NaN as GeluFn's float64 form; NaN gives itself.
// Erfinv: native float32 in fmas (see ErfinvF32): a polynomial in a^2 up
// to |x| = 3/4, then a tail table in L = -log(1 - |x|) with the log
// unrounded (LogSumPartsF); no division, no square root.
//
// Polynomials: tools/fit_math_erf_f32.py (the errors quoted are of the
// rounded coefficients evaluated exactly).

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

// Native float32 (tools/fit_math_erf_f32.py; float32 coefficients
// fitted one at a time so that their rounding is absorbed):
// erf(a)/a - 1 in z = a^2 on [0, 1], relative to erf(a)/a: max error 2^-29.3
constexpr float kErfQf[7] = {
    0x1.06eba8p-3f, -0x1.81273ep-2f, 0x1.ce2cf0p-4f, -0x1.b7f858p-6f,
    0x1.53ff92p-8f, -0x1.a3c95cp-11f, 0x1.48edeep-14f,
};
// Tails (tools/fit_math_erf_f32.py: tail_table): eight intervals of
// the argument, [lo, 3/2 lo), [3/2 lo, 2 lo), [2 lo, 3 lo), ... (the index
// from its exponent and first mantissa bit); on each f(mid + d) = c0 + d
// P(d), c0 as a float32 pair. Rows: mid, c0 hi, c0 lo, c1, c2, ...; each
// row padded to 16 floats (one vector; TailTabF).
// gelu: b Phi(-b) e^(b^2/2), per interval:
//   [1, 1.5): 2^-32.3
//   [1.5, 2): 2^-32.0
//   [2, 3): 2^-30.5
//   [3, 4): 2^-32.6
//   [4, 6): 2^-29.1
//   [6, 8): 2^-32.9
//   [8, 12): 2^-29.5
//   [12, 16): 2^-34.1
// b Phi(-b) e^(b^2/2), b in [1, 16): max relative error 1.74e-09 (2^-29.1)
alignas(64) constexpr float kGeluTailF[10][16] = {
    {0x1.4p+0f, 0x1.cp+0f, 0x1.4p+1f, 0x1.cp+1f, 0x1.4p+2f, 0x1.cp+2f, 0x1.4p+3f, 0x1.cp+3f},
    {0x1.275f8ap-2f, 0x1.4bef66p-2f, 0x1.69cee6p-2f, 0x1.7d241ap-2f, 0x1.89d3acp-2f, 0x1.90a4fcp-2f, 0x1.948c6ep-2f, 0x1.9676b8p-2f},
    {0x1.8cb2acp-27f, -0x1.d85f86p-28f, 0x1.827f5cp-27f, 0x1.2b6aa2p-27f, -0x1.36f032p-30f, 0x1.915596p-27f, -0x1.68e9c4p-28f, -0x1.fae61p-29f},
    {0x1.7b79d2p-4f, 0x1.bd45f4p-5f, 0x1.bf399ep-6f, 0x1.a29f04p-7f, 0x1.542a96p-8f, 0x1.106374p-9f, 0x1.8af236p-11f, 0x1.27e804p-12f},
    {-0x1.aece02p-5f, -0x1.be147p-6f, -0x1.789dbcp-7f, -0x1.1ee1a8p-8f, -0x1.66febp-10f, -0x1.b27986p-12f, -0x1.c88448p-14f, -0x1.f15da6p-16f},
    {0x1.8ff248p-6f, 0x1.722026p-7f, 0x1.0ac202p-8f, 0x1.4fb566p-10f, 0x1.48131cp-12f, 0x1.2f21ap-14f, 0x1.d0f418p-17f, 0x1.71c95ap-19f},
    {-0x1.446b1ep-7f, -0x1.0ee8ccp-8f, -0x1.5147bap-10f, -0x1.62fd32p-12f, -0x1.11df3ep-14f, -0x1.86537p-17f, -0x1.b6de82p-20f, -0x1.0052fcp-22f},
    {0x1.dbc11p-9f, 0x1.67be1ep-10f, 0x1.881f04p-12f, 0x1.5c452p-14f, 0x1.ad6fc2p-17f, 0x1.dbd81ap-20f, 0x1.8b3c16p-23f, 0x1.53a9bep-26f},
    {-0x1.44efaap-10f, -0x1.c1e5p-12f, -0x1.b79958p-14f, -0x1.4a4fc2p-16f, -0x1.55c3cap-19f, -0x1.212298p-22f, -0x1.788e0ap-26f, -0x1.ca0b0ep-30f},
    {0x1.83ea14p-12f, 0x1.5468fep-13f, 0x1.c0e75cp-16f, 0x1.2cfae6p-18f, 0x1.ed0662p-22f, 0x1.44e318p-25f, 0x1.40a296p-29f, 0x1.21c35ep-33f},
};
// erfc: erfc(a) e^(a^2), per interval:
//   [0.75, 1): 2^-36.0
//   [1, 1.5): 2^-32.0
//   [1.5, 2): 2^-30.8
//   [2, 3): 2^-31.4
//   [3, 4): 2^-30.0
//   [4, 6): 2^-29.8
//   [6, 8): 2^-30.1
//   [8, 12): 2^-28.8
// erfc(a) e^(a^2), a in [0.75, 12): max relative error 2.11e-09 (2^-28.8)
alignas(64) constexpr float kErfcTailF[11][16] = {
    {0x1.cp-1f, 0x1.4p+0f, 0x1.cp+0f, 0x1.4p+1f, 0x1.cp+1f, 0x1.4p+2f, 0x1.cp+2f, 0x1.4p+3f},
    {0x1.db747ep-2f, 0x1.78a692p-2f, 0x1.23cfc2p-2f, 0x1.afbb4p-3f, 0x1.3e0a9ap-3f, 0x1.c5723ap-4f, 0x1.46dc6cp-4f, 0x1.cbe832p-5f},
    {0x1.c81356p-27f, 0x1.38652ap-30f, 0x1.e3b8a4p-27f, -0x1.895a94p-28f, -0x1.7c4e7ap-29f, -0x1.772036p-32f, -0x1.c15e1ap-34f, -0x1.eeebc6p-35f},
    {-0x1.4369f6p-2f, -0x1.abaacep-3f, -0x1.0c3d54p-3f, -0x1.3086d8p-4f, -0x1.5285d2p-5f, -0x1.5d8434p-6f, -0x1.6e4b46p-7f, -0x1.6c55c6p-8f},
    {0x1.80ef9p-3f, 0x1.b56f46p-4f, 0x1.c8d0dp-5f, 0x1.98958cp-6f, 0x1.5d581p-7f, 0x1.08cf84p-8f, 0x1.96a3ep-10f, 0x1.1f3df2p-11f},
    {-0x1.9d5872p-4f, -0x1.9b63p-5f, -0x1.6cb3bep-6f, -0x1.06322p-7f, -0x1.5e5eeep-9f, -0x1.8abd64p-11f, -0x1.bf4f52p-13f, -0x1.c2cc5p-15f},
    {0x1.982e06p-5f, 0x1.68a228p-6f, 0x1.1362ccp-7f, 0x1.435b24p-9f, 0x1.563414p-11f, 0x1.219ef4p-13f, 0x1.e7acf6p-16f, 0x1.6013ep-18f},
    {-0x1.778e24p-6f, -0x1.29b852p-7f, -0x1.8d30c4p-9f, -0x1.807282p-11f, -0x1.4560f4p-13f, -0x1.a205p-16f, -0x1.07b6e2p-18f, -0x1.11031ap-21f},
    {0x1.4af2bp-7f, 0x1.d1e972p-9f, 0x1.11fb82p-10f, 0x1.bac482p-13f, 0x1.2e9472p-15f, 0x1.2a0bc2p-18f, 0x1.1ae65cp-21f, 0x1.a6ef42p-25f},
    {-0x1.1380bp-8f, -0x1.5667e2p-10f, -0x1.19da7p-12f, -0x1.ffb0c4p-15f, -0x1.2f2516p-17f, -0x1.bf588ep-21f, -0x1.2dda4p-24f, -0x1.6341c8p-28f},
    {-0x1.fd5cdap-9f, 0x1.e662dcp-12f, 0x1.f2617ap-15f, 0x1.0e9936p-16f, 0x1.1a5bfp-19f, 0x1.3207fap-23f, 0x1.3451c6p-27f, 0x1.0d9aa8p-31f},
};
// erfc(a) e^(a^2) in t = a - 5/2, a in [1, 4] (ErfF32's tail): max
// relative error 2^-24.5
constexpr float kErfcGf[12] = {
    0x1.afbb3ep-3f,  -0x1.3086d8p-4f,  0x1.9896b6p-6f,  -0x1.063286p-7f,
    0x1.432e74p-9f,  -0x1.806fa6p-11f, 0x1.bf8a2ap-13f, -0x1.f2f5bep-15f,
    0x1.d96ddcp-17f, -0x1.f62a7p-19f,  0x1.cd8a14p-20f, -0x1.cee3bp-22f,
};
// (erfinv(a)/a - c0)/z in z = a^2 on [0, 0.5625], relative to erfinv(a)/a: max relative error 1.49e-09 (2^-29.3)
constexpr float kErfinvQf[10] = {
    0x1.db29dap-3f, 0x1.0546f2p-3f, 0x1.6018d4p-4f, 0x1.2c503ap-4f,
    -0x1.f9ececp-7f, 0x1.7be1dap-2f, -0x1.ec2d6cp-1f, 0x1.e3cbfp+0f,
    -0x1.f03e5p+0f, 0x1.ed0264p-1f,
};
constexpr float kErfinvC0Hi = 0x1.c5bf8ap-1f;  // sqrt(pi)/2 = Hi + Lo
constexpr float kErfinvC0Lo = -0x1.c96212p-26f;
// erfinv: erfinv(1 - e^-L) in L (the last interval to 16.7), per interval:
//   [1, 1.5): 2^-31.9
//   [1.5, 2): 2^-32.1
//   [2, 3): 2^-31.6
//   [3, 4): 2^-31.9
//   [4, 6): 2^-30.2
//   [6, 8): 2^-31.3
//   [8, 12): 2^-30.3
//   [12, 16.7): 2^-30.8
// erfinv(1 - e^-L), L in [1, 16.7]: max relative error 8.21e-10 (2^-30.2)
alignas(64) constexpr float kErfinvTailF[10][16] = {
    {0x1.4p+0f, 0x1.cp+0f, 0x1.4p+1f, 0x1.cp+1f, 0x1.4p+2f, 0x1.cp+2f, 0x1.4p+3f, 0x1.cp+3f},
    {0x1.81de44p-1f, 0x1.ec6fc8p-1f, 0x1.3abdaep+0f, 0x1.885bap+0f, 0x1.ea7ap+0f, 0x1.2c2a5ap+1f, 0x1.711c24p+1f, 0x1.be03e4p+1f},
    {0x1.3dc8aap-26f, 0x1.5e09b2p-29f, 0x1.d4b01cp-27f, -0x1.71c794p-26f, -0x1.99a96ep-26f, -0x1.6f8e24p-31f, 0x1.c7e0a2p-24f, 0x1.2b4f9ap-25f},
    {0x1.cad41p-2f, 0x1.8db67cp-2f, 0x1.51bb78p-2f, 0x1.1f0ffap-2f, 0x1.e06444p-3f, 0x1.94aa62p-3f, 0x1.50c4e2p-3f, 0x1.1b0648p-3f},
    {-0x1.29e35cp-4f, -0x1.9252ap-5f, -0x1.fead2ep-6f, -0x1.43196cp-6f, -0x1.84d71ep-7f, -0x1.da7bd8p-8f, -0x1.163242p-8f, -0x1.4e58f4p-9f},
    {0x1.5ffdf4p-6f, 0x1.76d0f4p-7f, 0x1.683f1ep-8f, 0x1.5764dcp-9f, 0x1.2ca9eep-10f, 0x1.0c52a2p-11f, 0x1.bf39a8p-13f, 0x1.82e13p-14f},
    {-0x1.f3b9ccp-8f, -0x1.a53704p-9f, -0x1.33c5cp-10f, -0x1.bbff6p-12f, -0x1.1c0b1p-13f, -0x1.74738cp-15f, -0x1.baace6p-17f, -0x1.14afc2p-18f},
    {0x1.8370eep-9f, 0x1.072444p-10f, 0x1.20a3ep-12f, 0x1.395446p-14f, 0x1.29b852p-16f, 0x1.21a8acp-18f, 0x1.e7d222p-21f, 0x1.bb4c64p-23f},
    {-0x1.47bddap-10f, -0x1.5882e2p-12f, -0x1.2a4682p-14f, -0x1.e7391ep-17f, -0x1.57ac66p-19f, -0x1.df320ep-22f, -0x1.2ae7dep-24f, -0x1.7c2e8ap-27f},
    {0x1.4674e6p-11f, 0x1.c81c38p-18f, 0x1.4c30a8p-16f, 0x1.272f2p-18f, 0x1.68dcdep-22f, 0x1.6d06a2p-26f, 0x1.582818p-28f, 0x1.f39d2ep-32f},
};
constexpr float kInvSqrt2Hi = 0x1.6a09e6p-1f;  // 1/sqrt2 = Hi + Lo to 2^-51
constexpr float kInvSqrt2Lo = 0x1.9fcef4p-27f;

// Lane i's entry of a tail table row (8 entries, padded to 16 floats):
// one permute where a vector holds the 8 entries, else a gather.
template <class DF, class VI>
HWY_INLINE auto TailIndexF(DF df, VI i) {
  if constexpr (hn::MaxLanes(df) >= 8) {
    return hn::IndicesFromVec(df, i);
  } else {
    return i;
  }
}
template <class DF, class Ix>
HWY_INLINE hn::VFromD<DF> TailTabF(DF df, const float* row, Ix ix) {
  if constexpr (hn::MaxLanes(df) >= 8) {
    return hn::TableLookupLanes(hn::Load(df, row), ix);
  } else {
    return hn::GatherIndex(df, row, ix);
  }
}

// f(b) = c0 + c0l + w from a tail table (Rows rows: f of degree Rows - 3)
// whose first interval starts at the float32 with bits first << 22; b
// within the table's eight intervals (callers clamp; above the last, its
// polynomial). c1 is f'(mid) to about 2^-4 relative (for a low part of b).
template <class DF>
struct TailTermsF {
  hn::VFromD<DF> c0, c0l, w, c1;
};
template <size_t Rows, class DF, class VF = hn::VFromD<DF>>
HWY_INLINE TailTermsF<DF> TailPolyF(DF df, const float (&tab)[Rows][16], int first, VF b) {
  const hn::RebindToSigned<DF> di;
  // The interval (kept in [0, 7] for lanes the caller discards, NaN ones too).
  const auto i = hn::Sub(hn::ShiftRight<22>(hn::BitCast(di, b)), hn::Set(di, first));
  const auto ix = TailIndexF(df, hn::Min(hn::Max(i, hn::Zero(di)), hn::Set(di, 7)));
  // f = c0 + w, w = d P(d), d = b - mid exact (b and mid within a factor 2).
  const VF d = hn::Sub(b, TailTabF(df, tab[0], ix));
  VF p = TailTabF(df, tab[Rows - 1], ix);
  for (size_t j = Rows - 2; j >= 4; --j) p = MulAddF(df, p, d, TailTabF(df, tab[j], ix));
  const VF c1 = TailTabF(df, tab[3], ix);
  p = MulAddF(df, p, d, c1);
  return {TailTabF(df, tab[1], ix), TailTabF(df, tab[2], ix), hn::Mul(d, p), c1};
}

// f(b) e^-(sh + sl) = y 2^k, f from a tail table (TailPolyF), sh + sl exact
// with sh in [0.5, 107]; y rounded once (see the top of this file).
template <class DF>
struct ErfcTailF {
  hn::VFromD<DF> y, k;
  hn::VFromD<hn::RebindToSigned<DF>> ki;
};
template <size_t Rows, class DF, class VF = hn::VFromD<DF>>
HWY_INLINE ErfcTailF<DF> ExpTailF(DF df, const float (&tab)[Rows][16], int first, VF b, VF sh, VF sl) {
  const hn::RebindToSigned<DF> di;
  const TailTermsF<DF> f = TailPolyF(df, tab, first, b);
  const VF c0 = f.c0, c0l = f.c0l, w = f.w;
  // e^-(sh + sl) = 2^k e^(rh - v): k = round(-sh / ln2), rh = -sh - k kLn2Hi
  // exact (a multiple of 2^-24 below 0.35; k kLn2Hi a multiple of 2^-21),
  // v = k kLn2Lo + sl (|v| < 2^-16.9, its rounding below 2^-41).
  const VF magic = hn::Set(df, kRoundMagicF);
  const VF kb = MulAddF(df, sh, hn::Set(df, -kInvLn2F), magic);
  const VF k = hn::Sub(kb, magic);
  const VF rh = MulAddF(df, k, hn::Set(df, -kLn2Hi), hn::Neg(sh));
  const VF v = MulAddF(df, k, hn::Set(df, kLn2Lo), sl);
  // e^(rh - v) = 1 + rh + m, m = rh^2 Q(rh) - v (1 + w0), w0 ~ e^rh - 1;
  // rh stays exact, m (|m| < 0.07) carries the roundings (below 2^-28).
  const VF m0 = hn::Mul(hn::Mul(rh, rh), HornerFromFma<0>(df, rh, kExpQf));
  const VF m = hn::Sub(m0, MulAddF(df, v, hn::Add(rh, m0), v));
  // (c0 + c0l + w)(1 + rh + m) = Sh + (w + e1): c0 rh = ph + pl exactly,
  // c0 + ph = Sh + Sl by Fast2Sum (|rh| < 0.35); e1 = Sl + pl + c0l + w rh
  // + (c0 + w) m. |w| < 0.1 c0, so the roundings of e1 and of w + e1 stay
  // near 0.1 ulp each; Sh + (w + e1) is the one rounding of the result.
  const VF ph = hn::Mul(c0, rh);
  const VF pl = MulAddF(df, c0, rh, hn::Neg(ph));
  const VF Sh = hn::Add(c0, ph);
  const VF Sl = hn::Add(hn::Sub(c0, Sh), ph);
  const VF e1 = MulAddF(df, w, rh, MulAddF(df, hn::Add(c0, w), m, hn::Add(hn::Add(Sl, pl), c0l)));
  const VF y = hn::Add(Sh, hn::Add(w, e1));
  const auto ki = hn::Sub(hn::BitCast(di, kb), hn::BitCast(di, magic));
  return {y, k, ki};
}

// y 2^k: in the exponent field where the result is normal (|y| > 2^-7
// here, so every lane with k >= -118). Subnormal results without
// subnormal arithmetic (a slow microcode assist on x86): s = |y| 2^(k+149)
// is exact and normal (k >= -153 after the callers' clamps), rounded to an
// integer n < 2^23 by the 2^23 magic (round to nearest even, the one
// rounding of a subnormal result); n's bits as int32 are those of n 2^-149.
template <class DF>
HWY_INLINE hn::VFromD<DF> ScaleTailF(DF df, const ErfcTailF<DF>& t) {
  using VF = hn::VFromD<DF>;
  const hn::RebindToSigned<DF> di;
  const VF normal = hn::BitCast(df, hn::Add(hn::BitCast(di, t.y), hn::ShiftLeft<23>(t.ki)));
  const VF kmin = hn::Set(df, -118.0f);
  if (HWY_LIKELY(hn::AllTrue(df, hn::Ge(t.k, kmin)))) return normal;
  const auto kc = hn::Min(t.ki, hn::Set(di, -118));
  const VF p = hn::BitCast(df, hn::ShiftLeft<23>(hn::Add(kc, hn::Set(di, 149 + 127))));
  const VF s = hn::Mul(hn::Abs(t.y), p);
  const VF big = hn::Set(df, 0x1p23f);
  const VF n = hn::Sub(hn::Add(s, big), big);
  const auto sub = hn::And(hn::Lt(s, big), hn::Lt(t.k, kmin));
  const VF subr = hn::Or(hn::BitCast(df, hn::ConvertTo(di, n)), hn::And(t.y, hn::Set(df, -0.0f)));
  return hn::IfThenElse(sub, subr, normal);
}

}  // namespace f32detail

// |x| < 1: x + x q(x^2). Else 1 - erfc(a), a = |x| clamped to [1, 4]
// (erf(4) rounds to 1), with plain roundings: erfc(a) <= 0.16 is
// subtracted from 1, so its relative error may reach several ulps of its
// own. e^(-a^2) = 2^k e^(r - sl) with a^2 = s + sl split exactly and
// e^(r - sl) by ExpReducedFma (sl its low part); erfc(a) e^(a^2) = G(a - 5/2) of
// degree 11 (kErfcGf, no division); 1 - e^(-a^2) G rounded once in an fma.
// Measured on all 2^32 inputs: within 1 ulp of the correctly rounded
// result; the largest error, 0.99 ulp from the exact erf, is below 1 in
// the polynomial branch, as before. The float-float tail this replaced
// (Erfc and GeluErf still need a small erfc to full relative accuracy:
// ExpTailF) took 2.2x the time.
template <class DF>
HWY_INLINE hn::VFromD<DF> ErfF32(DF df, hn::VFromD<DF> x) {
  namespace f = f32detail;
  using VF = hn::VFromD<DF>;
  const hn::RebindToSigned<DF> di;
  const VF one = hn::Set(df, 1.0f);
  const VF a = hn::Abs(x);
  const VF q = f::HornerFromFma<0>(df, hn::Mul(x, x), f::kErfQf);
  VF r = MulAddF(df, x, q, x);
  const auto small = hn::Lt(a, one);
  if (HWY_UNLIKELY(!hn::AllTrue(df, small))) {
    const VF ac = f::Clamp(df, a, 1.0f, 4.0f);
    const VF s = hn::Mul(ac, ac);
    const VF sl = MulAddF(df, ac, ac, hn::Neg(s));
    // k = round(-s / ln2) in [-23, -1]; -s - k kLn2Hi exact (as in
    // ExpTailF), then kLn2Lo; sl is e^r's low part.
    const VF magic = hn::Set(df, f::kRoundMagicF);
    const VF kb = MulAddF(df, s, hn::Set(df, -f::kInvLn2F), magic);
    const VF k = hn::Sub(kb, magic);
    const VF t0 = MulAddF(df, k, hn::Set(df, -f::kLn2Hi), hn::Neg(s));
    const VF t = NegMulAddF(df, k, hn::Set(df, f::kLn2Lo), t0);
    const auto ki = hn::Sub(hn::BitCast(di, kb), hn::BitCast(di, magic));
    const VF p = ExpReducedFma(df, t, hn::Neg(sl));
    const VF e = hn::BitCast(df, hn::Add(hn::BitCast(di, p), hn::ShiftLeft<23>(ki)));
    const VF G = f::HornerFromFma<0>(df, hn::Sub(ac, hn::Set(df, 2.5f)), f::kErfcGf);
    r = hn::IfThenElse(small, r, hn::CopySignToAbs(NegMulAddF(df, e, G, one), x));
  }
  return f::KeepNaN(df, x, r);
}

// -1 < x < 3/4: 1 - x - x q(x^2) (1 - x = h + e by Fast2Sum, one rounding of
// h + (e - x q)). Else erfc(|x|) (|x| clamped to [0.5, 10.3]), or 2 - that
// for x <= -1; 0 beyond 10.3 (erfc < 2^-150 from 10.06).
template <class DF>
HWY_INLINE hn::VFromD<DF> ErfcF32(DF df, hn::VFromD<DF> x) {
  namespace f = f32detail;
  using VF = hn::VFromD<DF>;
  const VF one = hn::Set(df, 1.0f);
  const VF q = f::HornerFromFma<0>(df, hn::Mul(x, x), f::kErfQf);
  const VF h = hn::Sub(one, x);
  const VF e = hn::Sub(hn::Sub(one, h), x);
  VF r = hn::Add(h, NegMulAddF(df, x, q, e));
  const auto small = hn::And(hn::Gt(x, hn::Set(df, -1.0f)), hn::Lt(x, hn::Set(df, 0.75f)));
  if (HWY_UNLIKELY(!hn::AllTrue(df, small))) {
    const VF ac = f::Clamp(df, hn::Abs(x), 0.75f, 10.3f);
    const VF sh = hn::Mul(ac, ac);
    const VF sl = MulAddF(df, ac, ac, hn::Neg(sh));
    const VF t = f::ScaleTailF(df, f::ExpTailF(df, f::kErfcTailF, 0x3F400000 >> 22, ac, sh, sl));
    VF rt = hn::IfThenElse(hn::Lt(x, hn::Zero(df)), hn::Sub(hn::Set(df, 2.0f), t), t);
    rt = hn::IfThenElseZero(hn::Le(x, hn::Set(df, 10.3f)), rt);
    r = hn::IfThenElse(small, r, rt);
  }
  return f::KeepNaN(df, x, r);
}

// gelu(x) = x/2 (1 + erf(z)), z = x/sqrt2 = zh + zl (float-float, to
// 2^-47 relative). -3/4 < z < 1: 1 + erf(z) = A + B, A = 1 + zh (Fast2Sum),
// B = Al + zl (1 + q) + zh q, q = q(zh^2); x (A/2) + x (B/2) in one fma.
// Else with a = |z| clamped to [0.5, 10.3]: (x/2) erfc(a) from the tail
// (the factor x/2 inside its float-float), x - that for x > 0. x > 14.6:
// x; x < -14.5: -0 (|gelu| < 2^-150); -inf: NaN (as GeluFn's float64 form).
template <class DF>
HWY_INLINE hn::VFromD<DF> GeluErfF32(DF df, hn::VFromD<DF> x) {
  namespace f = f32detail;
  using VF = hn::VFromD<DF>;
  const VF one = hn::Set(df, 1.0f);
  const VF half = hn::Set(df, 0.5f);
  const VF ax = hn::Abs(x);
  const VF ch = hn::Set(df, f::kInvSqrt2Hi);
  const VF zh = hn::Mul(ax, ch);
  const VF zl = MulAddF(df, ax, hn::Set(df, f::kInvSqrt2Lo), MulAddF(df, ax, ch, hn::Neg(zh)));
  const VF sign = hn::And(x, hn::Set(df, -0.0f));
  const VF zs = hn::Xor(zh, sign);
  const VF zls = hn::Xor(zl, sign);
  // q at z^2 = zh^2 + 2 zh zl (zl moves q by up to 2^-25.4).
  const VF q = f::HornerFromFma<0>(df, MulAddF(df, zh, zh, hn::Mul(hn::Add(zh, zh), zl)), f::kErfQf);
  const VF A = hn::Add(one, zs);
  const VF Al = hn::Add(hn::Sub(one, A), zs);
  const VF B = MulAddF(df, zs, q, hn::Add(Al, MulAddF(df, zls, q, zls)));
  VF r = MulAddF(df, x, hn::Mul(A, half), hn::Mul(x, hn::Mul(B, half)));
  const auto small = hn::And(hn::Gt(zs, hn::Set(df, -0.75f)), hn::Lt(zs, one));
  if (HWY_UNLIKELY(!hn::AllTrue(df, small))) {
    // b Phi(-b) = e^(-b^2/2) N(b), b = |x| clamped to [1, 14.6] (tail lanes
    // have b >= 1.06); b^2/2 = sh + sl exactly.
    const VF b = f::Clamp(df, ax, 1.0f, 14.6f);
    const VF sh = hn::Mul(hn::Mul(b, b), half);
    const VF sl = hn::Mul(MulAddF(df, b, b, hn::Neg(hn::Mul(b, b))), half);
    const VF t = f::ScaleTailF(df, f::ExpTailF(df, f::kGeluTailF, 0x3F800000 >> 22, b, sh, sl));
    const VF rt = hn::IfThenElse(hn::Gt(x, hn::Zero(df)), hn::Sub(x, t), hn::Neg(t));
    r = hn::IfThenElse(small, r, rt);
    r = hn::IfThenElse(hn::Gt(x, hn::Set(df, 14.6f)), x, r);
    r = hn::IfThenElse(hn::Lt(x, hn::Set(df, -14.5f)), hn::Set(df, -0.0f), r);
    r = hn::IfThenElse(hn::Eq(x, hn::Set(df, -f::kInfF)), f::NaNF(df), r);
  }
  return f::KeepNaN(df, x, r);
}

// a = |x| <= 3/4: a (c0 + z Q(z)), z = a^2, c0 = sqrt(pi)/2 as a float32
// pair: a c0hi + a (c0lo + z Q) in one fma; a z Q is below 0.18 of the
// result, so its few roundings (z, Q's Horner steps, two products) stay
// below half an ulp of it. Above 3/4: erfinv(1 - m) with m = 1 - a exact,
// a function of L = -log(m) in [1.38, 16.7] (m >= 2^-24) from a tail table
// (TailPolyF, degree 7, 2^-30.2); log(m) as the unrounded sum S + t of
// LogSumPartsF (m is normal), so L = Lh + Ll and Ll enters through f's
// slope: c0hi + (w + (c0lo + c1 Ll)), one rounding. erfinv(+-1) = +-inf,
// |x| > 1 NaN, NaN gives itself.
template <class DF>
HWY_INLINE hn::VFromD<DF> ErfinvF32(DF df, hn::VFromD<DF> x) {
  namespace f = f32detail;
  using VF = hn::VFromD<DF>;
  const VF one = hn::Set(df, 1.0f);
  const VF a = hn::Abs(x);
  const VF z = hn::Mul(a, a);
  const VF q = f::HornerFromFma<0>(df, z, f::kErfinvQf);
  const VF inner = MulAddF(df, z, q, hn::Set(df, f::kErfinvC0Lo));
  VF r = MulAddF(df, a, hn::Set(df, f::kErfinvC0Hi), hn::Mul(a, inner));
  const auto tail = hn::Gt(a, hn::Set(df, 0.75f));
  if (HWY_UNLIKELY(!hn::AllFalse(df, tail))) {
    // 1 - a exact (a >= 1/2), in [2^-24, 1/4] on tail lanes below 1.
    const VF m = hn::IfThenElse(hn::And(tail, hn::Lt(a, one)), hn::Sub(one, a), hn::Set(df, 0.25f));
    const f::LogArgF<DF> la = f::LogArgOf(df, m);
    const f::SumF<DF> lg = f::LogSumPartsF<false>(df, la.e, la.f, la.f);
    // L = -(S + t) = Lh + Ll (Fast2Sum: |S| >= 1.38 > |t|).
    const VF s = hn::Add(lg.s, lg.t);
    const VF Lh = hn::Neg(s);
    const VF Ll = hn::Sub(hn::Sub(s, lg.s), lg.t);
    const f::TailTermsF<DF> t = f::TailPolyF(df, f::kErfinvTailF, 0x3F800000 >> 22, Lh);
    const VF rt = hn::Add(t.c0, hn::Add(t.w, MulAddF(df, t.c1, Ll, t.c0l)));
    r = hn::IfThenElse(tail, rt, r);
  }
  r = hn::CopySignToAbs(r, x);
  r = hn::IfThenElse(hn::Eq(a, one), hn::CopySignToAbs(hn::Set(df, f::kInfF), x), r);
  r = hn::IfThenElse(hn::Gt(a, one), f::NaNF(df), r);
  return f::KeepNaN(df, x, r);
}

}  // namespace math
}  // namespace HWY_NAMESPACE
}  // namespace bcast
HWY_AFTER_NAMESPACE();

#endif  // BCAST_KERNELS_MATH_ERF_F32_INL_H_
