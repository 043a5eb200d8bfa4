/* A program outside the bcast tree, built against an installed bcast:
 * (5,1,4,1) + (3,1,1) with real values, checked element by element. */
#include <stdio.h>

#include <bcast/bcast.h>

int main(void) {
  const int64_t xs[] = {5, 1, 4, 1}, ys[] = {3, 1, 1};
  float xv[20], yv[3] = {100, 200, 300}, zv[60];
  for (int i = 0; i < 20; ++i) xv[i] = (float)i;

  if (bc_version() != BC_VERSION_NUMBER) {
    fprintf(stderr, "headers %s but library %s\n", BC_VERSION_STRING, bc_version_string());
    return 1;
  }
  bc_tensor *x = NULL, *y = NULL, *z = NULL;
  if (bc_tensor_from_data(BC_FLOAT32, xs, 4, xv, &x) != BC_OK ||
      bc_tensor_from_data(BC_FLOAT32, ys, 3, yv, &y) != BC_OK ||
      bc_binary(BC_ADD, x, y, &z) != BC_OK ||
      bc_tensor_copy_to(z, zv, sizeof zv) != BC_OK) {
    fprintf(stderr, "error: %s\n", bc_last_error());
    return 1;
  }
  const int64_t* s = bc_tensor_shape(z);
  int ok = bc_tensor_ndim(z) == 4 && s[0] == 5 && s[1] == 3 && s[2] == 4 && s[3] == 1;
  /* z[i][j][k][0] = x[i][0][k][0] + y[j][0][0] */
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) ok = ok && zv[(i * 3 + j) * 4 + k] == xv[i * 4 + k] + yv[j];
  printf("bcast %s, %s: [%lld, %lld, %lld, %lld] %s\n", bc_version_string(), bc_simd_target(),
         (long long)s[0], (long long)s[1], (long long)s[2], (long long)s[3],
         ok ? "ok" : "WRONG");
  bc_tensor_free(z);
  bc_tensor_free(y);
  bc_tensor_free(x);
  return ok ? 0 : 1;
}
