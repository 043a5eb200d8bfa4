// Compiles ternary-inl.h once per SIMD target and dispatches at run time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/ternary.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "kernels/dispatch.h"
#include "kernels/ternary-inl.h"

#if HWY_ONCE
namespace bcast {

HWY_EXPORT(TernaryKernel);

void RunTernaryKernel(const Block& b) {
  CachedDispatch(g_ternary_fn, HWY_DISPATCH_TABLE(TernaryKernel))(b);
}

}  // namespace bcast
#endif  // HWY_ONCE
