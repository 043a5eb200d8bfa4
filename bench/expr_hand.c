/* Hand-fused loops for bench/expr_bench.py: each chain of the benchmark as
 * one C loop over float32 with streaming stores (the limit a fused
 * evaluation could reach), on OpenMP threads. Loaded with ctypes. */
#include <immintrin.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* Blocks of 8 computed by a vectorised inner loop, then streamed out (o is
 * 32-byte aligned: PyTorch's allocations are); the tail with plain stores.
 * Built with -ffast-math so that expf/erff vectorise (libmvec): a speed
 * reference, not an exact one. */
#define STREAM_LOOP(BODY)                                              \
  _Pragma("omp parallel for schedule(static)")                         \
  for (int64_t i = 0; i < n / 8 * 8; i += 8) {                         \
    float r[8];                                                        \
    _Pragma("omp simd") for (int j = 0; j < 8; ++j) {                  \
      const int64_t k = i + j;                                         \
      r[j] = BODY;                                                     \
    }                                                                  \
    _mm256_stream_ps(o + i, _mm256_loadu_ps(r));                       \
  }                                                                    \
  for (int64_t k = n / 8 * 8; k < n; ++k) o[k] = BODY;                 \
  _mm_sfence();

/* a*b + c */
void hand_fma_chain(float* o, const float* a, const float* b, const float* c, int64_t n) {
  STREAM_LOOP(a[k] * b[k] + c[k])
}
/* where(a > 0, a, 0.1*a) */
void hand_leaky(float* o, const float* a, const float* b, const float* c, int64_t n) {
  (void)b, (void)c;
  STREAM_LOOP(a[k] > 0 ? a[k] : 0.1f * a[k])
}
/* (x - m) / s with m, s of shape (R, 1): here b and c hold one value per row of `cols`. */
void hand_norm(float* o, const float* a, const float* b, const float* c, int64_t n, int64_t cols) {
  _Pragma("omp parallel for schedule(static)") for (int64_t r = 0; r < n / cols; ++r) {
    const float m = b[r], s = c[r];
    for (int64_t j = 0; j < cols; ++j) o[r * cols + j] = (a[r * cols + j] - m) / s;
  }
}
/* clamp((a - b)*c, 0, 1) */
void hand_clamp(float* o, const float* a, const float* b, const float* c, int64_t n) {
  STREAM_LOOP(fminf(fmaxf((a[k] - b[k]) * c[k], 0.f), 1.f))
}
/* sigmoid(a) * b */
void hand_sigmoid_mul(float* o, const float* a, const float* b, const float* c, int64_t n) {
  (void)c;
  STREAM_LOOP(b[k] / (1.f + expf(-a[k])))
}
/* gelu(a) * b (erf form) */
void hand_gelu_mul(float* o, const float* a, const float* b, const float* c, int64_t n) {
  (void)c;
  STREAM_LOOP(0.5f * a[k] * (1.f + erff(a[k] * 0.70710678f)) * b[k])
}
