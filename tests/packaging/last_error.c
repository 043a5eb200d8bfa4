/* bcast.h's promise: reading an error (bc_last_error(), bc_last_error_detail(),
 * bc_status_string(), and their bc_ctx_ forms) is not "the next bcast call"
 * that ends the string bc_last_error() returned: it stays valid (the same
 * pointer) and unchanged, however often and in whatever order they run. */
#include <stdio.h>
#include <string.h>

#include <bcast/bcast.h>

static const char kExpected[] =
    "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0";

static int check(const char* what, const char* p, const char* again, const char* copy) {
  if (p != again || strcmp(p, copy) != 0 || strcmp(p, kExpected) != 0) {
    fprintf(stderr, "%s: the message changed: '%s' / '%s', was '%s'\n", what, p, again, copy);
    return 1;
  }
  return 0;
}

static int read_everything(bc_ctx* ctx) {
  bc_error_detail d;
  int failed = 0;
  for (int i = 0; i < 3; ++i) {
    failed |= bc_ctx_last_error_detail(ctx, &d) != BC_ERR_NOT_BROADCASTABLE || d.dim != 0 ||
              d.size_a != 2 || d.size_b != 3;
    failed |= bc_ctx_last_error_detail(ctx, NULL) != BC_ERR_INVALID_ARGUMENT;
    failed |= strcmp(bc_status_string(d.code), "BC_ERR_NOT_BROADCASTABLE") != 0;
    failed |= strcmp(bc_status_string((bc_status)99), "BC_ERR_UNKNOWN") != 0;
    if (ctx == NULL) {
      failed |= bc_last_error_detail(&d) != BC_ERR_NOT_BROADCASTABLE;
      failed |= bc_last_error_detail(NULL) != BC_ERR_INVALID_ARGUMENT;
    }
  }
  return failed;
}

int main(void) {
  const int64_t sa[] = {2}, sb[] = {3};
  bc_tensor *a = NULL, *b = NULL, *z = NULL;
  bc_ctx* ctx = NULL;
  int failed = bc_tensor_zeros(BC_FLOAT32, sa, 1, &a) != BC_OK ||
               bc_tensor_zeros(BC_FLOAT32, sb, 1, &b) != BC_OK || bc_ctx_create(&ctx) != BC_OK;
  if (failed) return 1;

  /* The default context (this thread's error). */
  failed |= bc_binary(BC_ADD, a, b, &z) != BC_ERR_NOT_BROADCASTABLE;
  const char* p = bc_last_error();
  char copy[256];
  snprintf(copy, sizeof copy, "%s", p);
  failed |= read_everything(NULL);
  failed |= check("bc_last_error", p, bc_last_error(), copy);
  failed |= check("bc_ctx_last_error(NULL)", p, bc_ctx_last_error(NULL), copy);

  /* A context of its own. */
  failed |= bc_ctx_binary(ctx, BC_ADD, a, b, &z) != BC_ERR_NOT_BROADCASTABLE;
  const char* q = bc_ctx_last_error(ctx);
  snprintf(copy, sizeof copy, "%s", q);
  failed |= read_everything(ctx);
  failed |= check("bc_ctx_last_error", q, bc_ctx_last_error(ctx), copy);

  bc_ctx_free(ctx);
  bc_tensor_free(b);
  bc_tensor_free(a);
  if (!failed) printf("reading an error leaves bc_last_error()'s string valid\n");
  return failed;
}
