#include "kernels/dispatch.h"

namespace bcast {

std::atomic<BlockFn> g_binary_fn{nullptr};
std::atomic<BlockFn> g_ternary_fn{nullptr};
std::atomic<void (*)(float*, const uint16_t*, int64_t)> g_widen_bf16_fn{nullptr};
std::atomic<void (*)(uint16_t*, const float*, int64_t, bool)> g_narrow_bf16_fn{nullptr};

bool HasBF16Kernel(int op) {
  switch (op) {
    case BC_ADD: case BC_SUB: case BC_MUL: case BC_DIV: case BC_MAXIMUM: case BC_MINIMUM:
      return true;
    default:
      return false;
  }
}

void ResetKernelDispatch() {
  g_binary_fn.store(nullptr, std::memory_order_relaxed);
  g_ternary_fn.store(nullptr, std::memory_order_relaxed);
  g_widen_bf16_fn.store(nullptr, std::memory_order_relaxed);
  g_narrow_bf16_fn.store(nullptr, std::memory_order_relaxed);
}

}  // namespace bcast
