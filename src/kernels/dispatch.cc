#include "kernels/dispatch.h"

namespace bcast {

std::atomic<BlockFn> g_binary_fn{nullptr};
std::atomic<BlockFn> g_ternary_fn{nullptr};

void ResetKernelDispatch() {
  g_binary_fn.store(nullptr, std::memory_order_relaxed);
  g_ternary_fn.store(nullptr, std::memory_order_relaxed);
}

}  // namespace bcast
