// Row kernels of int32 and int64, compiled once per SIMD target (see table-inl.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/kernels_wide_int.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#undef BCAST_TABLE_DTYPES
#undef BCAST_TABLE_FN
#define BCAST_TABLE_DTYPES(X) X(BC_INT32) X(BC_INT64)
#define BCAST_TABLE_FN WideIntKernelTable
#include "kernels/table-inl.h"
#include "kernels/dispatch.h"

#if HWY_ONCE
namespace bcast {

HWY_EXPORT(WideIntKernelTable);

const KernelTable* WideIntKernels() { return CachedTable(g_wide_int_table, HWY_DISPATCH_TABLE(WideIntKernelTable)); }

}  // namespace bcast
#endif  // HWY_ONCE
