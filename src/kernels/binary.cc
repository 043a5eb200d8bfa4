// Compiles binary-inl.h once per SIMD target and dispatches at run time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/binary.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep

#include "kernels/binary-inl.h"
#include "kernels/dispatch.h"

#if HWY_ONCE
namespace bcast {

HWY_EXPORT(BinaryKernel);
HWY_EXPORT(TargetName);

void RunBinaryKernel(const Block& b) {
  CachedDispatch(g_binary_fn, HWY_DISPATCH_TABLE(BinaryKernel))(b);
}
const char* ChosenTargetName() { return HWY_DYNAMIC_DISPATCH(TargetName)(); }

}  // namespace bcast
#endif  // HWY_ONCE
