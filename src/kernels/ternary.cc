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
  BlockFn fn = g_ternary_fn.load(std::memory_order_relaxed);
  if (fn == nullptr) {
    fn = ChooseFromTable(HWY_DISPATCH_TABLE(TernaryKernel));
    g_ternary_fn.store(fn, std::memory_order_relaxed);
  }
  fn(b);
}

}  // namespace bcast
#endif  // HWY_ONCE
