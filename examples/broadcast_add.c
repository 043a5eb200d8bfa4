/* (5,1,4,1) + (3,1,1): the broadcast result has shape [5, 3, 4, 1]. */
#include <stdio.h>

#include <bcast/bcast.h>

int main(void) {
  const int64_t xs[] = {5, 1, 4, 1}, ys[] = {3, 1, 1};
  bc_tensor *x = NULL, *y = NULL, *z = NULL;
  if (bc_tensor_zeros(BC_FLOAT32, xs, 4, &x) != BC_OK ||
      bc_tensor_zeros(BC_FLOAT32, ys, 3, &y) != BC_OK ||
      bc_binary(BC_ADD, x, y, &z) != BC_OK) {
    fprintf(stderr, "error: %s\n", bc_last_error());
    return 1;
  }
  const int64_t* s = bc_tensor_shape(z);
  printf("(x+y).size() = [%lld, %lld, %lld, %lld]\n", (long long)s[0], (long long)s[1],
         (long long)s[2], (long long)s[3]);
  bc_tensor_free(z);
  bc_tensor_free(y);
  bc_tensor_free(x);
  return 0;
}
