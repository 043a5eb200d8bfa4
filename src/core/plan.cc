#include "core/plan.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "core/dtype.h"
#include "core/context.h"

namespace bcast {

void BuildPlan(const Shape& shape, int nops, bc_tensor* const* tensors,
               const int64_t (*strides)[BC_MAX_DIMS], Plan* p) {
  p->nops = nops;
  for (int k = 0; k < nops; ++k) {
    p->base[k] = tensors[k]->data;
    p->dtype[k] = tensors[k]->dtype;
  }
  // Fastest dim first, size-1 dims dropped.
  int n = 0;
  for (int i = shape.ndim - 1; i >= 0; --i) {
    if (shape.d[i] == 1) continue;
    p->shape[n] = shape.d[i];
    for (int k = 0; k < nops; ++k) p->stride[k][n] = strides[k][i];
    ++n;
  }
  // Sort by the output's stride (insertion sort: stable, n is small), so that
  // a transposed output is still written in memory order.
  for (int i = 1; i < n; ++i) {
    for (int j = i; j > 0; --j) {
      int64_t a = std::llabs(p->stride[0][j - 1]), b = std::llabs(p->stride[0][j]);
      if (a <= b) break;
      std::swap(p->shape[j - 1], p->shape[j]);
      for (int k = 0; k < nops; ++k) std::swap(p->stride[k][j - 1], p->stride[k][j]);
    }
  }
  // Coalesce neighbours that every operand walks as one run.
  int m = 0;
  for (int i = 0; i < n; ++i) {
    if (m > 0) {
      bool merge = true;
      for (int k = 0; k < nops && merge; ++k) {
        int64_t run;
        merge = !__builtin_mul_overflow(p->stride[k][m - 1], p->shape[m - 1], &run) &&
                p->stride[k][i] == run;
      }
      if (merge) {
        p->shape[m - 1] *= p->shape[i];
        continue;
      }
    }
    p->shape[m] = p->shape[i];
    for (int k = 0; k < nops; ++k) p->stride[k][m] = p->stride[k][i];
    ++m;
  }
  if (m == 0) {  // a single element
    p->shape[0] = 1;
    for (int k = 0; k < nops; ++k) p->stride[k][0] = 0;
    m = 1;
  }
  p->ndim = m;
}

namespace {

// The L3 of one cache instance as Linux's sysfs reports it for cpu 0 (what
// lscpu shows), else glibc's figure; 0 if neither knows. glibc's can be the
// whole server's: 320 MiB on a 2-core AMD EPYC Zen 4 VM whose sysfs says
// 32 MiB (2026-11-28), where the old rule, taking it for an Intel mesh,
// streamed every output above 1.1 MiB and ran (16,1,512) + (16,512,1) at
// half PyTorch's speed.
int64_t L3Bytes() {
  for (int i = 0; i < 8; ++i) {
    char path[64], buf[32] = {};
    std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
    FILE* f = std::fopen(path, "r");
    if (f == nullptr) break;
    const bool l3 = std::fgets(buf, sizeof buf, f) != nullptr && std::atoi(buf) == 3;
    std::fclose(f);
    if (!l3) continue;
    std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
    f = std::fopen(path, "r");
    if (f == nullptr) break;
    char* end = nullptr;
    int64_t v = std::fgets(buf, sizeof buf, f) != nullptr ? std::strtoll(buf, &end, 10) : 0;
    std::fclose(f);
    if (end != nullptr && *end == 'K') v <<= 10;
    else if (end != nullptr && *end == 'M') v <<= 20;
    if (v > 0) return v;
    break;
  }
  const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  return l3 > 0 ? l3 : 0;
}

bool IsAmd() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  return __builtin_cpu_is("amd");
#else
  return false;
#endif
}

// StoreCacheBytes (plan.h) for this CPU. Measured (a + b into a third
// buffer, 1 thread): on the AMD EPYC Zen 4 (32 MiB L3, 1 MiB L2) plain
// stores won up to 16 MiB moved (docs/performance.md); on the Intel Xeon VM
// (300 MiB L3 reported, 2 MiB L2 per core), a plain-store loop ran at 21-23
// GB/s from 3 to 48 MiB moved, as from memory, and streaming won from 2.25
// MiB (float32 (192,1024) + same 66 -> 58 us, (512,1024) 250 -> 200 us,
// int16 (1024,4096) + (4096,) 708 -> 565 us) while plain stores won at 1.5
// MiB (19 vs 37 us).
// Cached in an atomic, not a function-local static: a static's
// initialisation guard held by one thread when another forks would block the
// child forever.
// *per_core (may be nullptr): whether that is a core's own L2.
int64_t CacheBytes(bool* per_core = nullptr) {
  static std::atomic<int64_t> cached{0};  // negative: a core's own L2
  int64_t bytes = cached.load(std::memory_order_relaxed);
  if (bytes == 0) {
    const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    bool core = false;
    bytes = StoreCacheBytes(IsAmd(), l2 > 0 ? l2 : 0, L3Bytes(), &core);
    if (core) bytes = -bytes;
    cached.store(bytes, std::memory_order_relaxed);
  }
  if (per_core != nullptr) *per_core = bytes < 0;
  return bytes < 0 ? -bytes : bytes;
}

}  // namespace

int64_t StreamingBytes(int64_t threads) {
  bool per_core = false;
  const int64_t bytes = CacheBytes(&per_core);
  // Measured on the 2-core AMD EPYC VM (32 MiB L3, so 16 MiB here), plain vs non-temporal
  // stores (docs/performance.md). One thread: a + b into a third buffer,
  // streaming +40% at 18 MiB moved on one day, a tie to +16% on another;
  // but 2-byte (1024,4096) op (4096,) cells, 16 MiB + 8 KiB moved, half of
  // it the output, run 25-35% faster with plain stores (0.17-0.19 vs
  // 0.23-0.27 ms); at 20 MiB (int16 comparisons) a tie, at 24 streaming
  // wins by 10-25%: streaming from 18 MiB. Two threads read the cache twice
  // as fast but share the memory's write bandwidth, which the streamed
  // output then limits to one thread's speed: plain stores, which keep the
  // output in the cache, won by 1.1-2.3x from 20 to 34 MiB (float32 and
  // int16 row, float32 and uint8 same-shape; float64 maximum a tie, int16
  // mul the exception at -20-30%) and were about even at 38: streaming
  // from 36 MiB (2026-11-23; 24 MiB until then).
  //
  // Where the cache is each core's own L2 (the Intel Xeons), every thread
  // brings its own: streaming from 9/8 of it per thread. On the 16-core
  // Intel Xeon (device machine, 2 MiB L2 each, bench/thread_scaling.c, all
  // stores plain vs this rule, two runs each, 2026-11-27) plain stores won
  // at 16 threads up to 32 MiB moved ((4096,1024) + (1024,): 91-98 vs
  // 109-121 us; 12 MiB same-shape: 26 vs 39-43 us; the 16 MiB output of
  // (16,1,512) + (16,512,1): 50-55 vs 119 us) and lost from 48 MiB (same
  // shape, 4M elements: 157-170 vs 117-120 us); at 8 threads they won at
  // 16 MiB and lost at 32; at 2 and 4 threads they lost at 12 MiB. The
  // 4.5 MiB that 2 threads got before (9/4 of the L2) is this rule's.
  if (per_core) return bytes * 9 / 8 * std::max<int64_t>(1, threads);
  return threads > 1 ? bytes * 9 / 4 : bytes * 9 / 8;
}

int64_t PrefetchBytes() {
  // Measured on the same VM, 1 thread, two builds A/B in one process, a + b
  // into a third buffer: fetching the inputs 4 KiB ahead gains 12-23% at 24
  // MiB moved (float32/float64/int16, same-shape and row), where the inputs
  // still come from the cache and the output streams; from 48 MiB (inputs
  // from memory, which the hardware prefetchers follow) it costs 4-10%
  // same-shape.
  return 2 * CacheBytes();
}

}  // namespace bcast
