/* The host kernel of bench/iter_matrix.py: out = a + b on float32 as a
 * bc_loop2d_fn, written as a host would write it (plain C, -O3, for the
 * CPU it runs on), specialised on the inner strides bcast passes (4, or 0
 * for an input repeated along the row). */
#include <stdint.h>

static void add_row(float* restrict o, const float* restrict a, const float* restrict b, int64_t n) {
  for (int64_t j = 0; j < n; ++j) o[j] = a[j] + b[j];
}
static void add_row_scalar(float* restrict o, const float* restrict a, float b, int64_t n) {
  for (int64_t j = 0; j < n; ++j) o[j] = a[j] + b;
}

int bcbench_add_f32(void* user, char* const* data, const int64_t* strides, int64_t n0, int64_t n1) {
  (void)user;
  for (int64_t i = 0; i < n1; ++i) {
    float* o = (float*)(data[0] + i * strides[3]);
    const float* a = (const float*)(data[1] + i * strides[4]);
    const float* b = (const float*)(data[2] + i * strides[5]);
    if (strides[1] != 0 && strides[2] != 0) add_row(o, a, b, n0);
    else if (strides[2] == 0) add_row_scalar(o, a, *b, n0);
    else add_row_scalar(o, b, *a, n0);
  }
  return 0;
}
