/* Plain C11 test of the C ABI: the basic API and the broadcasting notes'
 * examples, checked against values computed here by hand. Prints each
 * failure and returns nonzero if any. Built twice: against the shared and
 * the static library. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bcast/bcast.h"

static int g_failures = 0;

#define CHECK(cond)                                                                   \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      ++g_failures;                                                                   \
      fprintf(stderr, "%s:%d: CHECK failed: %s (last error: \"%s\")\n", __FILE__,    \
              __LINE__, #cond, bc_last_error());                                      \
    }                                                                                 \
  } while (0)

static bc_tensor* from_floats(const int64_t* shape, size_t ndim, const float* data) {
  bc_tensor* t = NULL;
  CHECK(bc_tensor_from_data(BC_FLOAT32, shape, ndim, data, &t) == BC_OK);
  return t;
}

static int64_t numel_of(const int64_t* shape, size_t ndim) {
  int64_t n = 1;
  size_t i;
  for (i = 0; i < ndim; ++i) n *= shape[i];
  return n;
}

static void fill_iota(float* v, int64_t n) {
  int64_t i;
  for (i = 0; i < n; ++i) v[i] = (float)i * 0.5f - 3.0f;
}

/* x + y through bc_binary, checked element by element by index arithmetic. */
static void check_add(const int64_t* xs, size_t xn, const int64_t* ys, size_t yn,
                      const int64_t* want, size_t wn) {
  float x[256], y[256], got[1024];
  int64_t nx = numel_of(xs, xn), ny = numel_of(ys, yn), nw = numel_of(want, wn), k;
  bc_tensor *tx, *ty, *out = NULL;
  size_t d;
  fill_iota(x, nx);
  fill_iota(y, ny);
  for (k = 0; k < ny; ++k) y[k] *= 3.0f;
  tx = from_floats(xs, xn, x);
  ty = from_floats(ys, yn, y);
  CHECK(bc_binary(BC_ADD, tx, ty, &out) == BC_OK);
  if (out) {
    CHECK(bc_tensor_ndim(out) == wn);
    for (d = 0; d < wn && d < bc_tensor_ndim(out); ++d) CHECK(bc_tensor_shape(out)[d] == want[d]);
    CHECK(bc_tensor_numel(out) == nw);
    CHECK(bc_tensor_copy_to(out, got, sizeof got) == BC_OK);
    for (k = 0; k < nw; ++k) {
      /* Unravel k in the result shape, map into x and y (right-aligned). */
      int64_t rem = k, ix = 0, iy = 0, sx = 1, sy = 1;
      size_t i;
      for (i = wn; i-- > 0;) {
        int64_t idx = rem % want[i];
        size_t off = wn - 1 - i;
        rem /= want[i];
        if (off < xn) {
          int64_t s = xs[xn - 1 - off];
          ix += (s == 1 ? 0 : idx) * sx;
          sx *= s;
        }
        if (off < yn) {
          int64_t s = ys[yn - 1 - off];
          iy += (s == 1 ? 0 : idx) * sy;
          sy *= s;
        }
      }
      if (got[k] != x[ix] + y[iy]) {
        CHECK(got[k] == x[ix] + y[iy]);
        break;
      }
    }
  }
  bc_tensor_free(out);
  bc_tensor_free(tx);
  bc_tensor_free(ty);
}

static void check_add_fails(const int64_t* xs, size_t xn, const int64_t* ys, size_t yn,
                            const char* msg) {
  float x[256] = {0}, y[256] = {0};
  bc_tensor *tx = from_floats(xs, xn, x), *ty = from_floats(ys, yn, y), *out = NULL;
  bc_error_detail det;
  CHECK(bc_binary(BC_ADD, tx, ty, &out) == BC_ERR_NOT_BROADCASTABLE);
  CHECK(out == NULL);
  CHECK(strcmp(bc_last_error(), msg) == 0);
  CHECK(bc_last_error_detail(&det) == BC_ERR_NOT_BROADCASTABLE);
  bc_tensor_free(tx);
  bc_tensor_free(ty);
}

static void test_reference_examples(void) {
  /* x=torch.empty(5,7,3); y=torch.empty(5,7,3) */
  const int64_t s573[] = {5, 7, 3};
  /* x=torch.empty((0,)); y=torch.empty(2,2) */
  const int64_t s0[] = {0}, s22[] = {2, 2};
  /* x=torch.empty(5,3,4,1); y=torch.empty(3,1,1) */
  const int64_t s5341[] = {5, 3, 4, 1}, s311[] = {3, 1, 1};
  /* x=torch.empty(5,2,4,1) */
  const int64_t s5241[] = {5, 2, 4, 1};
  /* x=torch.empty(5,1,4,1) -> [5, 3, 4, 1] */
  const int64_t s5141[] = {5, 1, 4, 1};
  /* x=torch.empty(1); y=torch.empty(3,1,7) -> [3, 1, 7] */
  const int64_t s1[] = {1}, s317[] = {3, 1, 7};
  const int64_t s131[] = {1, 3, 1};
  int64_t out[4];
  size_t n = 0;
  bc_error_detail det;

  check_add(s573, 3, s573, 3, s573, 3);
  check_add_fails(s0, 1, s22, 2,
                  "The size of tensor a (0) must match the size of tensor b (2) at non-singleton dimension 1");
  check_add(s5341, 4, s311, 3, s5341, 4);
  check_add_fails(s5241, 4, s311, 3,
                  "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1");
  CHECK(bc_last_error_detail(&det) == BC_ERR_NOT_BROADCASTABLE);
  CHECK(det.code == BC_ERR_NOT_BROADCASTABLE && det.dim == 1 && det.size_a == 2 && det.size_b == 3);
  check_add(s5141, 4, s311, 3, s5341, 4);
  check_add(s1, 1, s317, 3, s317, 3);

  CHECK(bc_broadcast_shapes(s5141, 4, s311, 3, out, sizeof out / sizeof out[0], &n) == BC_OK);
  CHECK(n == 4 && out[0] == 5 && out[1] == 3 && out[2] == 4 && out[3] == 1);

  /* In place: x.add_(y) keeps [5, 3, 4, 1]; [1, 3, 1].add_([3, 1, 7]) fails. */
  {
    float xv[60], yv[3] = {1, 2, 3}, got[60];
    bc_tensor *x, *y, *x2, *y2;
    float before[3];
    int k;
    fill_iota(xv, 60);
    x = from_floats(s5341, 4, xv);
    y = from_floats(s311, 3, yv);
    CHECK(bc_binary_(BC_ADD, x, y) == BC_OK);
    CHECK(bc_tensor_ndim(x) == 4 && bc_tensor_shape(x)[0] == 5 && bc_tensor_shape(x)[3] == 1);
    CHECK(bc_tensor_copy_to(x, got, sizeof got) == BC_OK);
    for (k = 0; k < 60; ++k) CHECK(got[k] == xv[k] + yv[(k / 4) % 3]);
    x2 = from_floats(s131, 3, yv);
    y2 = from_floats(s317, 3, xv);
    CHECK(bc_binary_(BC_ADD, x2, y2) == BC_ERR_SHAPE_MISMATCH);
    CHECK(strcmp(bc_last_error(),
                 "output with shape [1, 3, 1] doesn't match the broadcast shape [3, 3, 7]") == 0);
    CHECK(bc_tensor_copy_to(x2, before, sizeof before) == BC_OK);
    CHECK(before[0] == 1 && before[1] == 2 && before[2] == 3);
    bc_tensor_free(x);
    bc_tensor_free(y);
    bc_tensor_free(x2);
    bc_tensor_free(y2);
  }

  /* torch.add(torch.ones(4,1), torch.ones(4)) with the broadcast warning. */
  {
    const int64_t s41[] = {4, 1}, s4[] = {4};
    float ones[4] = {1, 1, 1, 1}, got[16];
    bc_tensor *a = from_floats(s41, 2, ones), *b = from_floats(s4, 1, ones), *r = NULL;
    int k;
    bc_set_broadcast_warning(1);
    bc_set_warnings_as_errors(1);
    CHECK(bc_binary(BC_ADD, a, b, &r) == BC_ERR_POLICY);
    CHECK(strcmp(bc_last_error(),
                 "self and other do not have the same shape, but are broadcastable, and have the same "
                 "number of elements. Changing behavior in a backwards incompatible manner to "
                 "broadcasting rather than viewing as 1-dimensional.") == 0);
    bc_set_warnings_as_errors(0);
    bc_set_broadcast_warning(0);
    CHECK(bc_binary(BC_ADD, a, b, &r) == BC_OK);
    CHECK(bc_tensor_numel(r) == 16);
    CHECK(bc_tensor_copy_to(r, got, sizeof got) == BC_OK);
    for (k = 0; k < 16; ++k) CHECK(got[k] == 2.0f);
    bc_tensor_free(a);
    bc_tensor_free(b);
    bc_tensor_free(r);
  }
}

static void test_basics(void) {
  int64_t shape[] = {2, 3};
  int32_t iv[6] = {1, 2, 3, 4, 5, 6}, got[6];
  int32_t wrapped[4] = {10, 20, 30, 40};
  int64_t wshape[] = {2, 2}, wstrides[] = {1, 2};
  bc_tensor *t = NULL, *w = NULL, *r = NULL, *v = NULL;
  double dz = 0;
  int k;

  CHECK(bc_version() == BC_VERSION_NUMBER);
  CHECK(strcmp(bc_version_string(), BC_VERSION_STRING) == 0);
  CHECK(strcmp(bc_status_string(BC_OK), "BC_OK") == 0);
  CHECK(strcmp(bc_status_string(BC_ERR_NOT_BROADCASTABLE), "BC_ERR_NOT_BROADCASTABLE") == 0);
  CHECK(strcmp(bc_dtype_name(BC_FLOAT32), "Float") == 0);
  CHECK(bc_dtype_size(BC_FLOAT64) == 8);
  CHECK(strcmp(bc_op_name(BC_ADD), "add") == 0);
  CHECK(bc_simd_target() != NULL && bc_simd_target()[0] != '\0');
  CHECK(bc_get_num_threads() >= 1);

  CHECK(bc_tensor_from_data(BC_INT32, shape, 2, iv, &t) == BC_OK);
  CHECK(bc_tensor_dtype(t) == BC_INT32 && bc_tensor_numel(t) == 6 && bc_tensor_is_contiguous(t) == 1);
  CHECK(bc_tensor_strides(t)[0] == 3 && bc_tensor_strides(t)[1] == 1);

  /* Transposed wrap: logical [[10, 30], [20, 40]]. */
  CHECK(bc_tensor_wrap(BC_INT32, wshape, wstrides, 2, wrapped, sizeof wrapped, NULL, NULL, &w) == BC_OK);
  CHECK(bc_tensor_is_contiguous(w) == 0);
  CHECK(bc_tensor_copy_to(w, got, 4 * sizeof(int32_t)) == BC_OK);
  CHECK(got[0] == 10 && got[1] == 30 && got[2] == 20 && got[3] == 40);

  /* Integer floor division and its error. */
  {
    int64_t s3[] = {3};
    int32_t d[3] = {2, -2, 4};
    bc_tensor* td = NULL;
    CHECK(bc_tensor_from_data(BC_INT32, s3, 1, d, &td) == BC_OK);
    CHECK(bc_binary(BC_DIV_FLOOR, t, td, &r) == BC_OK);
    CHECK(bc_tensor_copy_to(r, got, sizeof got) == BC_OK);
    /* [1,2,3]//[2,-2,4] = [0,-1,0]; [4,5,6]//[2,-2,4] = [2,-3,1] */
    CHECK(got[0] == 0 && got[1] == -1 && got[2] == 0 && got[3] == 2 && got[4] == -3 && got[5] == 1);
    bc_tensor_free(r);
    r = NULL;
    d[1] = 0;
    bc_tensor_free(td);
    CHECK(bc_tensor_from_data(BC_INT32, s3, 1, d, &td) == BC_OK);
    CHECK(bc_binary(BC_REMAINDER, t, td, &r) == BC_ERR_DIVISION_BY_ZERO);
    CHECK(r == NULL);
    CHECK(strcmp(bc_last_error(), "ZeroDivisionError") == 0);
    bc_tensor_free(td);
  }

  /* True division promotes to float32; a 0-dim double does not lift float32. */
  {
    bc_tensor* s = NULL;
    float fg[6];
    CHECK(bc_tensor_from_data(BC_FLOAT64, NULL, 0, &dz, &s) == BC_OK);
    CHECK(bc_binary(BC_DIV, t, t, &r) == BC_OK);
    CHECK(bc_tensor_dtype(r) == BC_FLOAT32);
    CHECK(bc_tensor_copy_to(r, fg, sizeof fg) == BC_OK);
    for (k = 0; k < 6; ++k) CHECK(fg[k] == 1.0f);
    CHECK(bc_binary(BC_MUL, r, s, &v) == BC_OK);
    CHECK(bc_tensor_dtype(v) == BC_FLOAT32);
    bc_tensor_free(v);
    v = NULL;
    /* int32 with a 0-dim double: the category rises, so float64. */
    CHECK(bc_binary(BC_ADD, t, s, &v) == BC_OK);
    CHECK(bc_tensor_dtype(v) == BC_FLOAT64);
    bc_tensor_free(v);
    v = NULL;
    bc_tensor_free(s);
    bc_tensor_free(r);
    r = NULL;
  }

  /* Expand and a cast error in place. */
  {
    int64_t big[] = {3, 2, 3};
    float one = 1.5f;
    bc_tensor* f = NULL;
    CHECK(bc_expand(t, big, 3, &v) == BC_OK);
    CHECK(bc_tensor_strides(v)[0] == 0);
    CHECK(bc_tensor_numel(v) == 18);
    CHECK(bc_tensor_from_data(BC_FLOAT32, NULL, 0, &one, &f) == BC_OK);
    CHECK(bc_binary_(BC_ADD, t, f) == BC_ERR_DTYPE);
    CHECK(strcmp(bc_last_error(), "result type Float can't be cast to the desired output type Int") == 0);
    CHECK(bc_tensor_copy_to(t, got, sizeof got) == BC_OK);
    for (k = 0; k < 6; ++k) CHECK(got[k] == iv[k]);
    bc_tensor_free(f);
    bc_tensor_free(v);
    v = NULL;
  }

  /* sum_to_shape: column sums as int64. */
  {
    int64_t target[] = {1, 3};
    int64_t sums[3];
    CHECK(bc_sum_to_shape(t, target, 2, &r) == BC_OK);
    CHECK(bc_tensor_dtype(r) == BC_INT64);
    CHECK(bc_tensor_copy_to(r, sums, sizeof sums) == BC_OK);
    CHECK(sums[0] == 5 && sums[1] == 7 && sums[2] == 9);
    bc_tensor_free(r);
    r = NULL;
  }

  /* where and clamp. */
  {
    int64_t s3[] = {3};
    uint8_t c[3] = {1, 0, 1};
    float a[3] = {1, 2, 3}, b[3] = {-1, -2, -3}, lo = 0.0f, res[3];
    bc_tensor *tc = NULL, *ta = NULL, *tb = NULL, *tl = NULL;
    CHECK(bc_tensor_from_data(BC_BOOL, s3, 1, c, &tc) == BC_OK);
    ta = from_floats(s3, 1, a);
    tb = from_floats(s3, 1, b);
    CHECK(bc_tensor_from_data(BC_FLOAT32, NULL, 0, &lo, &tl) == BC_OK);
    CHECK(bc_where(tc, ta, tb, &r) == BC_OK);
    CHECK(bc_tensor_copy_to(r, res, sizeof res) == BC_OK);
    CHECK(res[0] == 1 && res[1] == -2 && res[2] == 3);
    CHECK(bc_clamp_(r, tl, NULL) == BC_OK);
    CHECK(bc_tensor_copy_to(r, res, sizeof res) == BC_OK);
    CHECK(res[0] == 1 && res[1] == 0 && res[2] == 3);
    bc_tensor_free(r);
    r = NULL;
    bc_tensor_free(tc);
    bc_tensor_free(ta);
    bc_tensor_free(tb);
    bc_tensor_free(tl);
  }

  /* Bad input. */
  CHECK(bc_tensor_empty(BC_FLOAT32, shape, BC_MAX_DIMS + 1, &r) == BC_ERR_INVALID_ARGUMENT);
  CHECK(r == NULL);
  CHECK(bc_last_error()[0] != '\0');
  CHECK(bc_binary(BC_ADD, NULL, t, &r) == BC_ERR_INVALID_ARGUMENT);
  CHECK(bc_last_error_detail(NULL) == BC_ERR_INVALID_ARGUMENT);

  bc_tensor_free(t);
  bc_tensor_free(w);
  bc_tensor_free(NULL);
}

/* Any int a C caller passes as an op is refused with a clear status, the
 * out handle is cleared and the tensors are unchanged (in C++ these values
 * cannot be held in the enum types, so this check lives here). */
static void test_unknown_ops(void) {
  int64_t shape[] = {3};
  float xv[3] = {1, 2, 3}, ov[3] = {7, 8, 9}, got[3];
  int bad[] = {-1, 1000, (int)0x7fffffff};
  bc_tensor *x = NULL, *o = NULL, *r = NULL;
  size_t k;
  CHECK(bc_tensor_from_data(BC_FLOAT32, shape, 1, xv, &x) == BC_OK);
  CHECK(bc_tensor_from_data(BC_FLOAT32, shape, 1, ov, &o) == BC_OK);
  for (k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
    bc_unary_op u = (bc_unary_op)bad[k];
    bc_op b = (bc_op)bad[k];
    r = x;
    CHECK(bc_unary(u, x, &r) == BC_ERR_INVALID_ARGUMENT && r == NULL);
    CHECK(strncmp(bc_last_error(), "unknown unary op", 16) == 0);
    CHECK(bc_unary_out(u, x, o) == BC_ERR_INVALID_ARGUMENT);
    CHECK(bc_unary_(u, o) == BC_ERR_INVALID_ARGUMENT);
    r = x;
    CHECK(bc_unary_ex(u, x, NULL, &r) == BC_ERR_INVALID_ARGUMENT && r == NULL);
    CHECK(strcmp(bc_unary_op_name(u), "unknown") == 0);
    r = x;
    CHECK(bc_binary(b, x, x, &r) == BC_ERR_INVALID_ARGUMENT && r == NULL);
    CHECK(bc_binary_out(b, x, x, o) == BC_ERR_INVALID_ARGUMENT);
    CHECK(bc_binary_(b, o, x) == BC_ERR_INVALID_ARGUMENT);
    CHECK(strcmp(bc_op_name(b), "unknown") == 0);
  }
  CHECK(bc_tensor_copy_to(o, got, sizeof got) == BC_OK);
  CHECK(got[0] == 7 && got[1] == 8 && got[2] == 9);
  bc_tensor_free(x);
  bc_tensor_free(o);
}

int main(void) {
  test_basics();
  test_reference_examples();
  test_unknown_ops();
  if (g_failures) {
    fprintf(stderr, "test_c_api: %d check(s) failed\n", g_failures);
    return 1;
  }
  printf("test_c_api: all checks passed\n");
  return 0;
}
