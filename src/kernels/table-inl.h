// One kernel table per SIMD target, built from the op table: for each op and
// each kernel dtype that the including translation unit instantiates
// (BCAST_TABLE_DTYPES), the row kernel of its functor, or nullptr where the
// op does not run on that dtype. The dtypes are split over several
// translation units so that the build runs in parallel; kernels/dispatch.cc
// finds the unit of a dtype.
//
// Included by a kernels_*.cc file after it defines
//   BCAST_TABLE_DTYPES(X)  X(BC_FLOAT32) X(BC_FLOAT64) ...
//   BCAST_TABLE_FN         the table's function name (FloatKernelTable)

#if defined(BCAST_KERNELS_TABLE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BCAST_KERNELS_TABLE_INL_H_
#undef BCAST_KERNELS_TABLE_INL_H_
#else
#define BCAST_KERNELS_TABLE_INL_H_
#endif

#include <cstdint>
#include <type_traits>

#include "hwy/highway.h"
#include "kernels/functors-inl.h"
#include "kernels/kernel_table.h"
#include "kernels/kernels.h"
#include "kernels/rows-inl.h"
#include "kernels/unary_functors-inl.h"

HWY_BEFORE_NAMESPACE();
namespace bcast {
namespace HWY_NAMESPACE {

// The C++ type of a kernel dtype's values (halves as their bits).
template <bc_dtype D>
using ValueOf = std::conditional_t<
    D == BC_BOOL, bool,
    std::conditional_t<
        D == BC_UINT8, uint8_t,
        std::conditional_t<
            D == BC_INT8, int8_t,
            std::conditional_t<
                D == BC_INT16, int16_t,
                std::conditional_t<
                    D == BC_INT32, int32_t,
                    std::conditional_t<
                        D == BC_INT64, int64_t,
                        std::conditional_t<D == BC_FLOAT32, float,
                                           std::conditional_t<D == BC_FLOAT64, double,
                                                              uint16_t>>>>>>>>;
template <bc_dtype D>
using HalfFormat = std::conditional_t<D == BC_FLOAT16, F16Format, BF16Format>;
template <bc_dtype D>
constexpr bool kHalf = IsHalf(D);

// The kernel dtypes an op needs: its dtype set, narrowed by the promotion
// (integers of kToFloat ops and every input of kLogical ops arrive converted).
constexpr bool NeedsKernel(Promotion p, DtypeSet s, bc_dtype d) {
  if (!InDtypeSet(s, d)) return false;
  switch (p) {
    case kPromote: return true;
    case kToFloat: return IsFloating(d);
    case kCompare:  // halves compare in float32
    case kLogical: return !IsHalf(d);
  }
  return false;
}

// Functors that name a HalfBits functor run on float16/bfloat16 storage
// through it instead of widening.
template <class F, class = void>
struct HasHalfBits : std::false_type {};
template <class F>
struct HasHalfBits<F, std::void_t<typename F::HalfBits>> : std::true_type {};

template <template <typename> class F, Promotion P, DtypeSet S, bc_dtype D>
constexpr RowKernel BinaryEntry() {
  if constexpr (std::is_same_v<F<float>, NoAlpha<float>> || !NeedsKernel(P, S, D)) {
    return nullptr;
  } else if constexpr (kHalf<D> && HasHalfBits<F<float>>::value) {  // on the bits
    return &BinaryRow<typename F<float>::HalfBits, uint16_t, uint16_t>;
  } else if constexpr (kHalf<D>) {  // halves: a float32 functor, rounded once
    using H = HalfOf<F<float>, HalfFormat<D>>;
    return &BinaryRow<H, uint16_t, uint16_t>;
  } else if constexpr (D == BC_BOOL && (P == kCompare || P == kLogical)) {
    // bool values are the bytes 0 and 1: as uint8 lanes they vectorise.
    return &BinaryRow<F<uint8_t>, bool, uint8_t>;
  } else if constexpr (D == BC_BOOL && BoolAsBytes<F<uint8_t>>::value) {
    return &BinaryRow<F<uint8_t>, uint8_t, uint8_t>;
  } else {
    using T = ValueOf<D>;
    using TO = std::conditional_t<P == kCompare || P == kLogical, bool, T>;
    return &BinaryRow<F<T>, TO, T>;
  }
}

// BinaryEntry's kernel's masked rows (MaskedRowBytes): only its last form
// (a functor on float32/float64 lanes) can have them.
template <template <typename> class F, Promotion P, DtypeSet S, bc_dtype D>
constexpr uint8_t BinaryShortRowBytes() {
  if constexpr (std::is_same_v<F<float>, NoAlpha<float>> || !NeedsKernel(P, S, D) || kHalf<D> ||
                D == BC_BOOL || P == kCompare || P == kLogical) {
    return 0;
  } else {
    using T = ValueOf<D>;
    return static_cast<uint8_t>(MaskedRowBytes<F<T>, T, T>());
  }
}

template <template <typename> class F, DtypeSet S, bc_dtype D, bool kWhere>
constexpr RowKernel TernaryEntry() {
  if constexpr (!InDtypeSet(S, D)) {
    return nullptr;
  } else if constexpr (kWhere) {  // selects bits: halves need no widening, bools are bytes
    using T = std::conditional_t<D == BC_BOOL, uint8_t, ValueOf<D>>;
    return &TernaryRow<F<T>, T, bool, T>;
  } else if constexpr (kHalf<D>) {
    using H = HalfOf<F<float>, HalfFormat<D>>;
    return &TernaryRow<H, uint16_t, uint16_t, uint16_t>;
  } else {
    using T = ValueOf<D>;
    return &TernaryRow<F<T>, T, T, T>;
  }
}

template <template <typename> class F, Promotion P, DtypeSet S, bc_dtype D>
constexpr RowKernel UnaryEntry() {
  if constexpr ((P == kCompare || P == kLogical) && kHalf<D> && InDtypeSet(S, D)) {
    // predicates on the halves' bits (binary comparisons widen them instead)
    return &UnaryRow<HalfPred<F<uint16_t>, HalfFormat<D>>, bool, uint16_t>;
  } else if constexpr (!NeedsKernel(P, S, D)) {
    return nullptr;
  } else if constexpr (P == kCompare || P == kLogical) {  // predicates: bool out
    using T = std::conditional_t<D == BC_BOOL, uint8_t, ValueOf<D>>;
    return &UnaryRow<F<T>, bool, T>;
  } else if constexpr (D == BC_BOOL) {  // bool values are the bytes 0 and 1
    return &UnaryRow<typename BoolBytes<F>::type, uint8_t, uint8_t>;
  } else if constexpr (kHalf<D>) {  // a float32 functor, rounded once
    return &UnaryRow<UnaryHalfOf<typename AccurateOf<F<float>>::type, HalfFormat<D>>, uint16_t,
                     uint16_t>;
  } else {
    using T = ValueOf<D>;
    return &UnaryRow<F<T>, T, T>;
  }
}

template <bc_dtype D>
constexpr void FillKernels(KernelTable* t) {
#define BCAST_BINARY_OP(Id, value, name, promotion, dtypes, kernel, Functor, AlphaFunctor, doc) \
  t->fn[value][0][D] = BinaryEntry<Functor, promotion, dtypes, D>();                           \
  t->fn[value][1][D] = BinaryEntry<AlphaFunctor, promotion, dtypes, D>();                      \
  t->short_row_bytes[value][0][D] = BinaryShortRowBytes<Functor, promotion, dtypes, D>();      \
  t->short_row_bytes[value][1][D] = BinaryShortRowBytes<AlphaFunctor, promotion, dtypes, D>();
#define BCAST_TERNARY_OP(Id, name, dtypes, kernel, Functor, operands, doc) \
  t->fn[k##Id][0][D] = TernaryEntry<Functor, dtypes, D, k##Id == kWhere>();
#define BCAST_UNARY_OP(Id, value, name, promotion, dtypes, kernel, Functor, params, doc) \
  t->fn[UnaryKernelOp(value)][0][D] = UnaryEntry<Functor, promotion, dtypes, D>();
#include "op_table.def"
}

constexpr KernelTable BuildKernelTable() {
  KernelTable t = {};
#define BCAST_FILL(D) FillKernels<D>(&t);
  BCAST_TABLE_DTYPES(BCAST_FILL)
#undef BCAST_FILL
  return t;
}

// Built by the compiler: no initialisation at run time, and so no guard a
// thread could hold when another forks (the child would wait on it forever).
constexpr KernelTable kKernelTable = BuildKernelTable();

const KernelTable* BCAST_TABLE_FN() { return &kKernelTable; }

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace bcast
HWY_AFTER_NAMESPACE();

#endif  // BCAST_KERNELS_TABLE_INL_H_
