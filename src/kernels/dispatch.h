// Cached run-time dispatch: HWY_DYNAMIC_DISPATCH looks the target up on every
// call; ops are called millions of times, so each family keeps the chosen
// function in an atomic that bc_set_simd_cap clears.
#ifndef BCAST_KERNELS_DISPATCH_H_
#define BCAST_KERNELS_DISPATCH_H_

#include <atomic>

#include "hwy/targets.h"
#include "kernels/kernels.h"

namespace bcast {

using BlockFn = void (*)(const Block&);

extern std::atomic<BlockFn> g_binary_fn;
extern std::atomic<BlockFn> g_ternary_fn;
extern std::atomic<void (*)(float*, const uint16_t*, int64_t)> g_widen_bf16_fn;
extern std::atomic<void (*)(uint16_t*, const float*, int64_t, bool)> g_narrow_bf16_fn;

// The entry of a Highway dispatch table for the best enabled target.
template <typename Fn>
Fn ChooseFromTable(Fn const* table) {
#if HWY_IDE || ((HWY_TARGETS & (HWY_TARGETS - 1)) == 0)
  return table[0];  // one compiled target: Highway's table has one entry
#else
  hwy::ChosenTarget& chosen = hwy::GetChosenTarget();
  if (!chosen.IsInitialized()) chosen.Update(hwy::SupportedTargets());
  return table[chosen.GetIndex()];
#endif
}

// The function cached in `slot`, chosen from `table` on first use (and again
// after ResetKernelDispatch). Two threads racing here choose the same entry.
template <typename Fn>
Fn CachedDispatch(std::atomic<Fn>& slot, Fn const* table) {
  Fn fn = slot.load(std::memory_order_relaxed);
  if (fn == nullptr) {
    fn = ChooseFromTable(table);
    slot.store(fn, std::memory_order_relaxed);
  }
  return fn;
}

}  // namespace bcast

#endif  // BCAST_KERNELS_DISPATCH_H_
