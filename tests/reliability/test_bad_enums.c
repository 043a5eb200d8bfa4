/* Unknown enum values, passed the way a C caller (or a binding) can: any
 * int. Every function taking a dtype, op, scalar kind, policy or status must refuse or
 * name it without undefined behaviour (UBSan's enum check runs on the
 * library in the sanitizer build), leave settings unchanged and write
 * nothing. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bcast/bcast.h"

static int g_failures = 0;
#define CHECK(cond)                                                                            \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      ++g_failures;                                                                            \
      fprintf(stderr, "%s:%d: CHECK failed: %s (last error: \"%s\")\n", __FILE__, __LINE__,    \
              #cond, bc_last_error());                                                         \
    }                                                                                          \
  } while (0)

static int refused(bc_status s) {
  bc_error_detail d;
  return s == BC_ERR_INVALID_ARGUMENT && bc_last_error()[0] != '\0' &&
         bc_last_error_detail(&d) == BC_ERR_INVALID_ARGUMENT;
}

int main(void) {
  static const int bad_dtypes[] = {-1, 10, 11, 16, 255, 1 << 20, INT_MAX, INT_MIN};
  static const int bad_ops[] = {-1, BC_OP_COUNT, BC_OP_COUNT + 1, 64, 1000, INT_MAX, INT_MIN};
  static const int bad_policies[] = {-1, 3, 4, 100, INT_MAX, INT_MIN};
  static const int bad_statuses[] = {-1, 13, 16, 99, INT_MAX, INT_MIN};
  static const int bad_kinds[] = {-1, 3, 4, 99, INT_MAX, INT_MIN};
  int64_t shape[] = {2};
  float a_data[2] = {1, 2}, b_data[2] = {3, 4}, o_data[2] = {5, 6};
  bc_tensor *a = NULL, *b = NULL, *o = NULL, *out;
  size_t i;
  CHECK(bc_tensor_from_data(BC_FLOAT32, shape, 1, a_data, &a) == BC_OK);
  CHECK(bc_tensor_from_data(BC_FLOAT32, shape, 1, b_data, &b) == BC_OK);
  CHECK(bc_tensor_from_data(BC_FLOAT32, shape, 1, o_data, &o) == BC_OK);

  for (i = 0; i < sizeof bad_dtypes / sizeof bad_dtypes[0]; ++i) {
    bc_dtype d = (bc_dtype)bad_dtypes[i];
    out = (bc_tensor*)&out;
    CHECK(refused(bc_tensor_empty(d, shape, 1, &out)) && out == NULL);
    out = (bc_tensor*)&out;
    CHECK(refused(bc_tensor_zeros(d, shape, 1, &out)) && out == NULL);
    out = (bc_tensor*)&out;
    CHECK(refused(bc_tensor_from_data(d, shape, 1, a_data, &out)) && out == NULL);
    out = (bc_tensor*)&out;
    CHECK(refused(bc_tensor_wrap(d, shape, NULL, 1, a_data, sizeof a_data, NULL, NULL, &out)) &&
          out == NULL);
    CHECK(bc_dtype_size(d) == 0);
    CHECK(strcmp(bc_dtype_name(d), "Unknown") == 0);
  }
  for (i = 0; i < sizeof bad_ops / sizeof bad_ops[0]; ++i) {
    bc_op op = (bc_op)bad_ops[i];
    out = (bc_tensor*)&out;
    CHECK(refused(bc_binary(op, a, b, &out)) && out == NULL);
    CHECK(refused(bc_binary_out(op, a, b, o)));
    CHECK(refused(bc_binary_(op, o, b)));
    out = (bc_tensor*)&out;
    CHECK(refused(bc_binary_alpha(op, a, b, 1.0, &out)) && out == NULL);
    CHECK(refused(bc_binary_alpha_out(op, a, b, 1.0, o)));
    CHECK(refused(bc_binary_alpha_(op, o, b, 1.0)));
    out = (bc_tensor*)&out;
    CHECK(refused(bc_binary_scalar(op, a, bc_scalar_int(1), &out)) && out == NULL);
    CHECK(refused(bc_binary_scalar_out(op, a, bc_scalar_int(1), o)));
    CHECK(refused(bc_binary_scalar_(op, o, bc_scalar_int(1))));
    out = (bc_tensor*)&out;
    CHECK(refused(bc_binary_rscalar(op, bc_scalar_int(1), a, &out)) && out == NULL);
    CHECK(refused(bc_binary_rscalar_out(op, bc_scalar_int(1), a, o)));
    CHECK(strcmp(bc_op_name(op), "unknown") == 0);
  }
  for (i = 0; i < sizeof bad_kinds / sizeof bad_kinds[0]; ++i) {
    bc_scalar s = bc_scalar_int(1);
    memcpy(&s.kind, &bad_kinds[i], sizeof bad_kinds[i]);
    out = (bc_tensor*)&out;
    CHECK(refused(bc_tensor_from_scalar(s, &out)) && out == NULL);
    out = (bc_tensor*)&out;
    CHECK(refused(bc_binary_scalar(BC_ADD, a, s, &out)) && out == NULL);
    CHECK(refused(bc_binary_scalar_(BC_ADD, o, s)));
    out = (bc_tensor*)&out;
    CHECK(refused(bc_binary_rscalar(BC_ADD, s, a, &out)) && out == NULL);
    out = (bc_tensor*)&out;
    CHECK(refused(bc_clamp_scalar(a, &s, NULL, &out)) && out == NULL);
    CHECK(refused(bc_clamp_scalar_(o, NULL, &s)));
    out = (bc_tensor*)&out;
    CHECK(refused(bc_lerp_scalar(a, b, s, &out)) && out == NULL);
    CHECK(refused(bc_lerp_scalar_(o, b, s)));
  }
  for (i = 0; i < sizeof bad_policies / sizeof bad_policies[0]; ++i) {
    CHECK(refused(bc_set_broadcast_policy((bc_policy)bad_policies[i])));
    CHECK(bc_get_broadcast_policy() == BC_POLICY_ALLOW);
  }
  {
    /* Unknown options on a context: refused, recorded in the context, and
     * nothing read or written. */
    static const int bad_options[] = {-1, 5, 6, 99, INT_MAX, INT_MIN};
    bc_ctx* ctx = NULL;
    int64_t v = 7;
    CHECK(bc_ctx_create(&ctx) == BC_OK);
    for (i = 0; i < sizeof bad_options / sizeof bad_options[0]; ++i) {
      CHECK(bc_ctx_set_option(ctx, (bc_option)bad_options[i], 1) == BC_ERR_INVALID_ARGUMENT);
      CHECK(strncmp(bc_ctx_last_error(ctx), "unknown option ", 15) == 0);
      CHECK(bc_ctx_get_option(ctx, (bc_option)bad_options[i], &v) == BC_ERR_INVALID_ARGUMENT);
      CHECK(v == 7);
    }
    for (i = 0; i < sizeof bad_policies / sizeof bad_policies[0]; ++i) {
      CHECK(bc_ctx_set_option(ctx, BC_OPT_POLICY, bad_policies[i]) == BC_ERR_INVALID_ARGUMENT);
      CHECK(bc_ctx_get_option(ctx, BC_OPT_POLICY, &v) == BC_OK && v == BC_POLICY_ALLOW);
    }
    for (i = 0; i < sizeof bad_dtypes / sizeof bad_dtypes[0]; ++i) {
      out = NULL;
      CHECK(bc_ctx_tensor_empty(ctx, (bc_dtype)bad_dtypes[i], shape, 1, &out) ==
                BC_ERR_INVALID_ARGUMENT &&
            out == NULL);
    }
    for (i = 0; i < sizeof bad_ops / sizeof bad_ops[0]; ++i)
      CHECK(bc_ctx_binary_out(ctx, (bc_op)bad_ops[i], a, b, o) == BC_ERR_INVALID_ARGUMENT);
    bc_ctx_free(ctx);
  }
  for (i = 0; i < sizeof bad_statuses / sizeof bad_statuses[0]; ++i)
    CHECK(strcmp(bc_status_string((bc_status)bad_statuses[i]), "BC_ERR_UNKNOWN") == 0);
  CHECK(bc_tensor_copy_to(o, o_data, sizeof o_data) == BC_OK);
  CHECK(o_data[0] == 5 && o_data[1] == 6);
  bc_tensor_free(a);
  bc_tensor_free(b);
  bc_tensor_free(o);
  printf(g_failures ? "%d checks FAILED\n" : "unknown enum values: OK\n", g_failures);
  return g_failures != 0;
}
