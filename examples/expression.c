/* A fused expression: standardise rows and apply a leaky ReLU in one pass,
 *
 *     y = where(z > 0, z, 0.1 * z)  with  z = (x - m) / s,
 *
 * x of shape (4, 6) float32, m and s per row (4, 1) float64. Parsed from
 * text, evaluated once, and checked against the same ops run one by one
 * * (bc_binary, bc_binary_scalar, bc_binary_rscalar, bc_where): the results must be identical,
 * bit for bit. Prints "expression: 24 elements, 0 differ". */
#include <bcast/bcast.h>
#include <stdio.h>
#include <string.h>

static int fail(const char* what) {
  fprintf(stderr, "%s: %s\n", what, bc_last_error());
  return 1;
}

int main(void) {
  const int64_t xs[] = {4, 6}, ms[] = {4, 1};
  float xv[24];
  double mv[4] = {0.5, -1.0, 2.0, 0.0}, sv[4] = {2.0, 0.5, 4.0, 1.0};
  for (int i = 0; i < 24; ++i) xv[i] = (float)(i % 7) - 2.5f + 0.25f * (float)(i / 6);
  bc_tensor *x = NULL, *m = NULL, *s = NULL;
  if (bc_tensor_from_data(BC_FLOAT32, xs, 2, xv, &x) != BC_OK ||
      bc_tensor_from_data(BC_FLOAT64, ms, 2, mv, &m) != BC_OK ||
      bc_tensor_from_data(BC_FLOAT64, ms, 2, sv, &s) != BC_OK)
    return fail("inputs");

  const char* names[] = {"x", "m", "s"};
  bc_expr* e = NULL;
  if (bc_expr_parse("where((x - m) / s > 0, (x - m) / s, 0.1 * ((x - m) / s))", names, 3, &e) != BC_OK)
    return fail("bc_expr_parse");
  const bc_tensor* inputs[] = {x, m, s};
  bc_tensor* y = NULL;
  if (bc_expr_eval(e, inputs, 3, &y) != BC_OK) return fail("bc_expr_eval");

  /* The same chain, op by op. */
  bc_tensor *d = NULL, *z = NULL, *pos = NULL, *neg = NULL, *want = NULL;
  if (bc_binary(BC_SUB, x, m, &d) != BC_OK || bc_binary(BC_DIV, d, s, &z) != BC_OK ||
      bc_binary_scalar(BC_GT, z, bc_scalar_int(0), &pos) != BC_OK ||
      bc_binary_rscalar(BC_MUL, bc_scalar_float(0.1), z, &neg) != BC_OK ||
      bc_where(pos, z, neg, &want) != BC_OK)
    return fail("eager chain");

  int differ = bc_tensor_dtype(y) != bc_tensor_dtype(want) || bc_tensor_numel(y) != 24;
  if (!differ) {
    double a[24], b[24]; /* float64: the result's dtype, promoted from float32 and float64 */
    if (bc_tensor_copy_to(y, a, sizeof a) != BC_OK || bc_tensor_copy_to(want, b, sizeof b) != BC_OK)
      return fail("copy_to");
    for (int i = 0; i < 24; ++i) differ += memcmp(&a[i], &b[i], sizeof a[i]) != 0;
  }
  printf("expression: %lld elements, %d differ\n", (long long)bc_tensor_numel(y), differ);

  bc_tensor_free(want), bc_tensor_free(neg), bc_tensor_free(pos), bc_tensor_free(z), bc_tensor_free(d);
  bc_tensor_free(y), bc_expr_free(e);
  bc_tensor_free(s), bc_tensor_free(m), bc_tensor_free(x);
  return differ != 0;
}
