/* A host-defined op on bcast's broadcasting: a quantizer
 *     q = clamp(round(x / scale) + zero_point, 0, 255)
 * over a transposed float32 x (4, 6), a float64 scale per column (6,) and
 * an int32 zero point per row (4, 1), into a uint8 result. The loop sees
 * every operand as float32 (bcast converts in buffers) and specialises on
 * inputs that repeat along a row (inner stride 0). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <bcast/bcast.h>

#define R 4
#define C 6

static int calls = 0;

static float at(char* const* data, const int64_t* strides, int k, int64_t i, int64_t j, int nops) {
  float v;
  memcpy(&v, data[k] + i * strides[nops + k] + j * strides[k], sizeof v);
  return v;
}

/* Operands: 0 the output, 1 x, 2 scale, 3 zero point. */
static int quantize(void* user, char* const* data, const int64_t* strides, int64_t n0, int64_t n1) {
  (void)user;
  const int nops = 4;
  calls++;
  for (int64_t i = 0; i < n1; ++i) {
    float* out = (float*)(data[0] + i * strides[nops]);
    if (strides[3] == 0) { /* one zero point for the whole row: read it once */
      const float zp = at(data, strides, 3, i, 0, nops);
      for (int64_t j = 0; j < n0; ++j) {
        const float q = nearbyintf(at(data, strides, 1, i, j, nops) / at(data, strides, 2, i, j, nops)) + zp;
        out[j] = q < 0 ? 0 : q > 255 ? 255 : q;
      }
    } else {
      for (int64_t j = 0; j < n0; ++j) {
        const float q = nearbyintf(at(data, strides, 1, i, j, nops) / at(data, strides, 2, i, j, nops)) +
                        at(data, strides, 3, i, j, nops);
        out[j] = q < 0 ? 0 : q > 255 ? 255 : q;
      }
    }
  }
  return 0;
}

int main(void) {
  /* x is the transpose of a (6, 4) buffer: element (r, c) at buf[c * R + r]. */
  float xbuf[C * R];
  double scale[C];
  int32_t zp[R];
  for (int i = 0; i < C * R; ++i) xbuf[i] = (float)(i * 7 % 23) - 5.0f;
  for (int c = 0; c < C; ++c) scale[c] = 0.25 * (c + 1);
  for (int r = 0; r < R; ++r) zp[r] = 100 + 10 * r;

  const int64_t xshape[] = {R, C}, xstrides[] = {1, R};
  const int64_t sshape[] = {C}, zshape[] = {R, 1};
  bc_tensor *x = NULL, *s = NULL, *z = NULL, *q = NULL;
  bc_iter* it = NULL;
  int ok = bc_tensor_wrap(BC_FLOAT32, xshape, xstrides, 2, xbuf, sizeof xbuf, NULL, NULL, &x) == BC_OK &&
           bc_tensor_from_data(BC_FLOAT64, sshape, 1, scale, &s) == BC_OK &&
           bc_tensor_from_data(BC_INT32, zshape, 2, zp, &z) == BC_OK;
  if (ok) {
    const bc_tensor* inputs[] = {x, s, z};
    const bc_dtype loop[] = {BC_FLOAT32, BC_FLOAT32, BC_FLOAT32, BC_FLOAT32};
    bc_iter_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.inputs = inputs;
    spec.nin = 3;
    spec.out = NULL; /* allocated: uint8, of the broadcast shape */
    spec.out_dtype = BC_UINT8;
    spec.loop_dtypes = loop;
    ok = bc_iter_new(&spec, &it) == BC_OK && bc_iter_run(it, quantize, NULL) == BC_OK &&
         bc_iter_output(it, &q) == BC_OK;
  }
  if (!ok) {
    fprintf(stderr, "error: %s\n", bc_last_error());
  } else {
    uint8_t got[R * C];
    ok = bc_tensor_copy_to(q, got, sizeof got) == BC_OK;
    int wrong = 0;
    for (int r = 0; r < R; ++r) {
      for (int c = 0; c < C; ++c) {
        float v = nearbyintf(xbuf[c * R + r] / (float)scale[c]) + (float)zp[r];
        v = v < 0 ? 0 : v > 255 ? 255 : v;
        wrong += got[r * C + c] != (uint8_t)v;
        printf("%4d", got[r * C + c]);
      }
      printf("\n");
    }
    printf("quantized %lld elements in %d loop call(s), %d wrong\n", (long long)bc_iter_numel(it), calls, wrong);
    ok = ok && wrong == 0;
  }
  bc_iter_free(it);
  bc_tensor_free(q);
  bc_tensor_free(z);
  bc_tensor_free(s);
  bc_tensor_free(x);
  return ok ? 0 : 1;
}
