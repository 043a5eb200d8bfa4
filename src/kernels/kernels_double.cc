// Row kernels of float64, compiled once per SIMD target (see table-inl.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/kernels_double.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#undef BCAST_TABLE_DTYPES
#undef BCAST_TABLE_FN
#define BCAST_TABLE_DTYPES(X) X(BC_FLOAT64)
#define BCAST_TABLE_FN DoubleKernelTable
#include "kernels/table-inl.h"
#include "kernels/dispatch.h"

#if HWY_ONCE
namespace bcast {

HWY_EXPORT(DoubleKernelTable);

const KernelTable* DoubleKernels() { return CachedTable(g_double_table, HWY_DISPATCH_TABLE(DoubleKernelTable)); }

}  // namespace bcast
#endif  // HWY_ONCE
