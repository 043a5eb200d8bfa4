// Row kernels of bool and uint8, compiled once per SIMD target (see table-inl.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/kernels_small_int.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#undef BCAST_TABLE_DTYPES
#undef BCAST_TABLE_FN
#define BCAST_TABLE_DTYPES(X) X(BC_BOOL) X(BC_UINT8)
#define BCAST_TABLE_FN SmallIntKernelTable
#include "kernels/table-inl.h"
#include "kernels/dispatch.h"

#if HWY_ONCE
namespace bcast {

HWY_EXPORT(SmallIntKernelTable);

const KernelTable* SmallIntKernels() { return CachedTable(g_small_int_table, HWY_DISPATCH_TABLE(SmallIntKernelTable)); }

}  // namespace bcast
#endif  // HWY_ONCE
