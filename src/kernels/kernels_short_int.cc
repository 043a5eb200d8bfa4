// Row kernels of int8 and int16, compiled once per SIMD target (see table-inl.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/kernels_short_int.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#undef BCAST_TABLE_DTYPES
#undef BCAST_TABLE_FN
#define BCAST_TABLE_DTYPES(X) X(BC_INT8) X(BC_INT16)
#define BCAST_TABLE_FN ShortIntKernelTable
#include "kernels/table-inl.h"
#include "kernels/dispatch.h"

#if HWY_ONCE
namespace bcast {

HWY_EXPORT(ShortIntKernelTable);

const KernelTable* ShortIntKernels() { return CachedTable(g_short_int_table, HWY_DISPATCH_TABLE(ShortIntKernelTable)); }

}  // namespace bcast
#endif  // HWY_ONCE
