// bfloat16 <-> float32 vectors for the kernels: the widening (exact) and the
// narrowing (round to nearest even, NaN stays a quiet NaN), bit for bit
// core/dtype.h's scalar BF16ToF32 and F32ToBF16, which the kernels use for
// single values.

#if defined(BCAST_KERNELS_BF16_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BCAST_KERNELS_BF16_INL_H_
#undef BCAST_KERNELS_BF16_INL_H_
#else
#define BCAST_KERNELS_BF16_INL_H_
#endif

#include <cstdint>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace bcast {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// bfloat16 bits (as uint16_t, half as many lanes as df has floats) -> floats.
template <class DF, class VH>
HWY_INLINE hn::Vec<DF> WidenBF16(DF df, VH h) {
  const hn::RebindToUnsigned<DF> du32;
  return hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du32, h)));
}

// Floats -> bfloat16 bits, a vector of Rebind<uint16_t, DF>.
template <class DF>
HWY_INLINE hn::Vec<hn::Rebind<uint16_t, DF>> NarrowBF16(DF df, hn::Vec<DF> v) {
  const hn::RebindToUnsigned<DF> du32;
  const hn::RebindToSigned<DF> di32;
  const hn::Rebind<uint16_t, DF> du16;
  const auto u = hn::BitCast(du32, v);
  const auto hi = hn::ShiftRight<16>(u);
  const auto lsb = hn::And(hi, hn::Set(du32, 1u));
  const auto rounded = hn::ShiftRight<16>(hn::Add(u, hn::Add(hn::Set(du32, 0x7FFFu), lsb)));
  // Magnitudes are below 2^31: a signed compare (SSE has no unsigned one).
  const auto nan = hn::Gt(hn::BitCast(di32, hn::And(u, hn::Set(du32, 0x7FFFFFFFu))),
                          hn::Set(di32, 0x7F800000));
  const auto bits = hn::IfThenElse(nan, hn::BitCast(di32, hn::Or(hi, hn::Set(du32, 0x40u))),
                                   hn::BitCast(di32, rounded));
  (void)df;
  return hn::DemoteTo(du16, bits);  // every value is below 2^16: nothing saturates
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace bcast
HWY_AFTER_NAMESPACE();

#endif  // BCAST_KERNELS_BF16_INL_H_
