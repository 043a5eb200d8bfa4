/* Wraps a caller's malloc'd buffer without copying and hands it to bcast
 * with a deleter, which runs once, when the last handle over it goes. */
#include <stdio.h>
#include <stdlib.h>

#include <bcast/bcast.h>

static int freed = 0;

static void free_buffer(void* data, void* ctx) {
  (void)ctx;
  free(data);
  freed++;
}

int main(void) {
  const int64_t shape[] = {2, 3};
  float* buf = malloc(6 * sizeof *buf);
  if (!buf) return 1;
  for (int i = 0; i < 6; ++i) buf[i] = (float)i;

  bc_tensor *x = NULL, *view = NULL, *row = NULL;
  if (bc_tensor_wrap(BC_FLOAT32, shape, NULL, 2, buf, 6 * sizeof *buf, free_buffer, NULL, &x) !=
      BC_OK) {
    fprintf(stderr, "wrap: %s\n", bc_last_error());
    free(buf); /* the deleter is not called on failure: the buffer is still ours */
    return 1;
  }
  /* From here on the buffer belongs to x and its views. */

  /* x += [10, 20, 30], in place: the result lands in buf itself. */
  const float r[] = {10, 20, 30};
  const int64_t rshape[] = {3};
  int ok = bc_tensor_from_data(BC_FLOAT32, rshape, 1, r, &row) == BC_OK &&
           bc_binary_(BC_ADD, x, row) == BC_OK && bc_tensor_view(x, &view) == BC_OK;
  if (!ok) {
    fprintf(stderr, "error: %s\n", bc_last_error());
  } else {
    printf("buf = %g %g %g / %g %g %g\n", buf[0], buf[1], buf[2], buf[3], buf[4], buf[5]);
    ok = buf[0] == 10 && buf[4] == 24 && buf[5] == 35;
  }

  bc_tensor_free(x);
  printf("after freeing x: deleter ran %d time(s)\n", freed); /* 0: the view holds it */
  ok = ok && freed == 0;
  bc_tensor_free(view);
  printf("after freeing the view: deleter ran %d time(s)\n", freed); /* 1 */
  ok = ok && freed == 1;
  bc_tensor_free(row);
  return ok ? 0 : 1;
}
