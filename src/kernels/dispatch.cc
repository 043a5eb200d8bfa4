#include "kernels/dispatch.h"

#include <cstring>
#include <string>

#include "core/error.h"

namespace bcast {

std::atomic<const KernelTable*> g_float_table{nullptr}, g_double_table{nullptr}, g_half_table{nullptr},
    g_small_int_table{nullptr}, g_short_int_table{nullptr}, g_wide_int_table{nullptr};
std::atomic<void (*)(float*, const uint16_t*, int64_t)> g_widen_bf16_fn{nullptr},
    g_widen_f16_fn{nullptr};
std::atomic<void (*)(uint16_t*, const float*, int64_t, bool)> g_narrow_bf16_fn{nullptr},
    g_narrow_f16_fn{nullptr};
std::atomic<void (*)(float*, const int64_t*, int64_t)> g_int64_to_f32_fn{nullptr};
std::atomic<void (*)(float*, const void*, int64_t, bc_dtype)> g_int_to_f32_fn{nullptr};
std::atomic<void (*)(void*, const void*, int64_t)> g_stream_bytes_fn{nullptr};

namespace {

const KernelTable* TableOf(bc_dtype dtype) {
  switch (dtype) {
    case BC_FLOAT32: return FloatKernels();
    case BC_FLOAT64: return DoubleKernels();
    case BC_FLOAT16:
    case BC_BFLOAT16: return HalfKernels();
    case BC_INT32:
    case BC_INT64: return WideIntKernels();
    case BC_INT8:
    case BC_INT16: return ShortIntKernels();
    default: return SmallIntKernels();
  }
}

}  // namespace

RowKernel FindKernel(int op, bc_dtype dtype, bool alpha) {
  if (op < 0 || op >= kNumTableOps || !ValidDtype(dtype)) return nullptr;
  return TableOf(dtype)->fn[op][alpha ? 1 : 0][dtype];
}

int ShortRowBytes(int op, bc_dtype dtype, bool alpha) {
  if (op < 0 || op >= kNumTableOps || !ValidDtype(dtype)) return 0;
  return TableOf(dtype)->short_row_bytes[op][alpha ? 1 : 0][dtype];
}

void ResetKernelDispatch() {
  for (auto* slot : {&g_float_table, &g_double_table, &g_half_table, &g_small_int_table,
                     &g_short_int_table, &g_wide_int_table})
    slot->store(nullptr, std::memory_order_relaxed);
  for (auto* slot : {&g_widen_bf16_fn, &g_widen_f16_fn}) slot->store(nullptr, std::memory_order_relaxed);
  for (auto* slot : {&g_narrow_bf16_fn, &g_narrow_f16_fn})
    slot->store(nullptr, std::memory_order_relaxed);
  g_int64_to_f32_fn.store(nullptr, std::memory_order_relaxed);
  g_int_to_f32_fn.store(nullptr, std::memory_order_relaxed);
  g_stream_bytes_fn.store(nullptr, std::memory_order_relaxed);
  g_reduce_table.store(nullptr, std::memory_order_relaxed);
}

// The targets disabled by the last successful cap (0: none), so that a
// refused name leaves the cap as it was.
static std::atomic<int64_t> g_disabled_targets{0};

void CapSimdTargets(const char* name) {
  int64_t disabled = 0;
  if (name != nullptr && name[0] != '\0') {
    hwy::DisableTargets(0);  // so that SupportedTargets() lists every target
    // Only targets compiled into this library can be chosen.
    const int64_t usable = hwy::SupportedTargets() & HWY_TARGETS;
    int64_t found = 0;
    for (int64_t bits = usable; bits != 0 && found == 0; bits &= bits - 1) {
      const int64_t target = bits & -bits;
      if (std::strcmp(hwy::TargetName(target), name) == 0) found = target;
    }
    if (found == 0) {
      hwy::DisableTargets(g_disabled_targets.load(std::memory_order_relaxed));
      Fail(BC_ERR_INVALID_ARGUMENT,
           std::string("SIMD target '") + name + "' is unknown or not supported by this CPU");
    }
    disabled = found - 1;  // lower bits are better targets
  }
  hwy::DisableTargets(disabled);
  g_disabled_targets.store(disabled, std::memory_order_relaxed);
  ResetKernelDispatch();
}

}  // namespace bcast
