/* In-place ops with error handling: x.add_(y) works when y broadcasts to
 * x's shape, and fails, leaving x untouched, when the result would need a
 * bigger shape than x has. */
#include <stdio.h>
#include <string.h>

#include <bcast/bcast.h>

/* Prints the failure of the last call on this thread: status, message and
 * the machine-readable detail. */
static void report(bc_status st) {
  bc_error_detail d;
  bc_last_error_detail(&d);
  printf("  failed: %s\n  message: %s\n  detail: dim=%d size_a=%lld size_b=%lld\n",
         bc_status_string(st), bc_last_error(), (int)d.dim, (long long)d.size_a,
         (long long)d.size_b);
}

int main(void) {
  int ok = 1;
  const int64_t s1[] = {5, 3, 4, 1}, s2[] = {3, 1, 1}, s3[] = {1, 3, 1}, s4[] = {3, 1, 7};
  bc_tensor *a = NULL, *b = NULL, *c = NULL, *d = NULL;
  if (bc_tensor_zeros(BC_FLOAT32, s1, 4, &a) || bc_tensor_zeros(BC_FLOAT32, s2, 3, &b) ||
      bc_tensor_zeros(BC_FLOAT32, s3, 3, &c) || bc_tensor_zeros(BC_FLOAT32, s4, 3, &d)) {
    fprintf(stderr, "allocation: %s\n", bc_last_error());
    return 1;
  }

  printf("x(5,3,4,1).add_(y(3,1,1)):\n");
  bc_status st = bc_binary_(BC_ADD, a, b);
  if (st == BC_OK) {
    printf("  ok, x keeps its shape (ndim %zu)\n", bc_tensor_ndim(a));
  } else {
    report(st);
    ok = 0;
  }

  printf("x(1,3,1).add_(y(3,1,7)):\n");
  st = bc_binary_(BC_ADD, c, d);
  if (st == BC_OK) {
    printf("  unexpectedly succeeded\n");
    ok = 0;
  } else {
    report(st);
    ok = ok && st == BC_ERR_SHAPE_MISMATCH &&
         strcmp(bc_last_error(),
                "output with shape [1, 3, 1] doesn't match the broadcast shape [3, 3, 7]") == 0;
  }

  printf("x(5,2,4,1) + y(3,1,1):\n");
  const int64_t s5[] = {5, 2, 4, 1};
  bc_tensor *e = NULL, *sum = NULL;
  if (bc_tensor_zeros(BC_FLOAT32, s5, 4, &e) != BC_OK) return 1;
  st = bc_binary(BC_ADD, e, b, &sum);
  if (st == BC_OK) {
    ok = 0;
  } else {
    report(st);
    bc_error_detail det;
    bc_last_error_detail(&det);
    ok = ok && st == BC_ERR_NOT_BROADCASTABLE && sum == NULL && det.dim == 1 &&
         det.size_a == 2 && det.size_b == 3;
  }

  bc_tensor_free(sum); /* NULL after a failure; freeing NULL is a no-op */
  bc_tensor_free(e);
  bc_tensor_free(d);
  bc_tensor_free(c);
  bc_tensor_free(b);
  bc_tensor_free(a);
  return ok ? 0 : 1;
}
