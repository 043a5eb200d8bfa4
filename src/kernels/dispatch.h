// Cached run-time dispatch: HWY_DYNAMIC_DISPATCH looks the target up on every
// call; kernels are looked up on every op, so each unit keeps its chosen
// table (or function) in an atomic that bc_set_simd_cap clears.
#ifndef BCAST_KERNELS_DISPATCH_H_
#define BCAST_KERNELS_DISPATCH_H_

#include <atomic>

#include "hwy/targets.h"
#include "kernels/kernel_table.h"

namespace bcast {

extern std::atomic<const KernelTable*> g_float_table, g_double_table, g_half_table, g_small_int_table,
    g_short_int_table, g_wide_int_table;
extern std::atomic<void (*)(float*, const uint16_t*, int64_t)> g_widen_bf16_fn, g_widen_f16_fn;
extern std::atomic<void (*)(uint16_t*, const float*, int64_t, bool)> g_narrow_bf16_fn,
    g_narrow_f16_fn;
extern std::atomic<void (*)(float*, const int64_t*, int64_t)> g_int64_to_f32_fn;
extern std::atomic<void (*)(float*, const void*, int64_t, bc_dtype)> g_int_to_f32_fn;
extern std::atomic<void (*)(void*, const void*, int64_t)> g_stream_bytes_fn;
struct ReduceKernel;
extern std::atomic<const ReduceKernel*> g_reduce_table;

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

// The kernel table returned by the best target's `table` function, cached.
inline const KernelTable* CachedTable(std::atomic<const KernelTable*>& slot,
                                      const KernelTable* (*const* table)()) {
  const KernelTable* t = slot.load(std::memory_order_acquire);
  if (t == nullptr) {
    t = ChooseFromTable(table)();
    slot.store(t, std::memory_order_release);
  }
  return t;
}

}  // namespace bcast

#endif  // BCAST_KERNELS_DISPATCH_H_
