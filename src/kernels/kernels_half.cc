// Row kernels of float16 and bfloat16, compiled once per SIMD target (see table-inl.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/kernels_half.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#undef BCAST_TABLE_DTYPES
#undef BCAST_TABLE_FN
#define BCAST_TABLE_DTYPES(X) X(BC_FLOAT16) X(BC_BFLOAT16)
#define BCAST_TABLE_FN HalfKernelTable
#include "kernels/table-inl.h"
#include "kernels/dispatch.h"

#if HWY_ONCE
namespace bcast {

HWY_EXPORT(HalfKernelTable);

const KernelTable* HalfKernels() { return CachedTable(g_half_table, HWY_DISPATCH_TABLE(HalfKernelTable)); }

}  // namespace bcast
#endif  // HWY_ONCE
