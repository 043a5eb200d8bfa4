// Row kernels of float32, compiled once per SIMD target (see table-inl.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/kernels_float.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#undef BCAST_TABLE_DTYPES
#undef BCAST_TABLE_FN
#define BCAST_TABLE_DTYPES(X) X(BC_FLOAT32)
#define BCAST_TABLE_FN FloatKernelTable
#include "kernels/table-inl.h"
#include "kernels/dispatch.h"

#if HWY_ONCE
namespace bcast {

HWY_EXPORT(FloatKernelTable);

const KernelTable* FloatKernels() { return CachedTable(g_float_table, HWY_DISPATCH_TABLE(FloatKernelTable)); }

}  // namespace bcast
#endif  // HWY_ONCE
