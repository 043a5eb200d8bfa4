/* The machine's bandwidth ceiling for c = a + b on float32: the plain loop
 * every compiler vectorises, and the same loop with non-temporal (streaming)
 * stores, which skip the read-for-ownership of c. Plain C and OpenMP on
 * purpose: this is what an elementwise library has to beat, with nothing of
 * bcast in it. For reductions, a read-only stream: what reading the input
 * once costs. */
#include "ceiling.h"

#include <omp.h>

#if defined(__SSE__)
#include <immintrin.h>
#endif

void bcbench_add_plain(float* c, const float* a, const float* b, int64_t n, int threads) {
#pragma omp parallel for simd num_threads(threads) schedule(static)
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

void bcbench_add_stream(float* c, const float* a, const float* b, int64_t n, int threads) {
#if defined(__SSE__)
  /* Whole 16-float blocks per thread, so every thread's stores stay 64-byte
   * aligned when c is. */
  const int64_t blocks = n / 16;
#pragma omp parallel num_threads(threads)
  {
    const int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int64_t begin = blocks * t / nt * 16, end = blocks * (t + 1) / nt * 16;
    for (int64_t i = begin; i < end; i += 16) {
#if defined(__AVX__)
      _mm256_stream_ps(c + i, _mm256_add_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i)));
      _mm256_stream_ps(c + i + 8, _mm256_add_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8)));
#else
      for (int64_t j = 0; j < 16; j += 4)
        _mm_stream_ps(c + i + j, _mm_add_ps(_mm_loadu_ps(a + i + j), _mm_loadu_ps(b + i + j)));
#endif
    }
    _mm_sfence();
  }
  for (int64_t i = blocks * 16; i < n; ++i) c[i] = a[i] + b[i];
#else
  /* No intrinsics here: ask OpenMP 5 for non-temporal stores instead. */
#pragma omp parallel for simd nontemporal(c) num_threads(threads) schedule(static)
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
#endif
}

uint64_t bcbench_read(const void* p, int64_t nbytes, int threads) {
  /* XOR of every 64-bit word: one vector op per load, nothing to stall on,
   * and a result the compiler cannot drop. */
  const uint64_t* w = (const uint64_t*)p;
  const int64_t n = nbytes / 8;
  uint64_t acc = 0;
#pragma omp parallel for simd reduction(^ : acc) num_threads(threads) schedule(static)
  for (int64_t i = 0; i < n; ++i) acc ^= w[i];
  const unsigned char* tail = (const unsigned char*)p + n * 8;
  for (int64_t i = 0; i < nbytes - n * 8; ++i) acc ^= tail[i];
  return acc;
}

int bcbench_max_threads(void) { return omp_get_max_threads(); }
