/* Catches bcast's backwards-compatibility warnings with a handler instead
 * of the default one, which prints them to stderr. */
#include <stdio.h>

#include <bcast/bcast.h>

struct log {
  int count;
  char last[512];
};

/* Runs on the thread that ran the op; `message` lives only during the call. */
static void on_warning(const char* message, void* user) {
  struct log* log = user;
  log->count++;
  snprintf(log->last, sizeof log->last, "%s", message);
}

int main(void) {
  struct log log = {0, ""};
  bc_set_warning_handler(on_warning, &log);
  bc_set_broadcast_warning(1);

  /* torch.add(torch.ones(4,1), torch.ones(4)): same number of elements,
   * different shapes, broadcastable -> now (4, 4), and a warning. */
  const int64_t s41[] = {4, 1}, s4[] = {4};
  bc_tensor *x = NULL, *y = NULL, *z = NULL;
  if (bc_tensor_zeros(BC_FLOAT32, s41, 2, &x) || bc_tensor_zeros(BC_FLOAT32, s4, 1, &y) ||
      bc_binary(BC_ADD, x, y, &z)) {
    fprintf(stderr, "error: %s\n", bc_last_error());
    return 1;
  }
  printf("result ndim %zu, %d warning(s)\n", bc_tensor_ndim(z), log.count);
  printf("warning: %s\n", log.last);
  int ok = bc_tensor_ndim(z) == 2 && log.count == 1;

  /* The same op with warnings as errors fails before writing anything. */
  bc_tensor* w = NULL;
  bc_set_warnings_as_errors(1);
  bc_status st = bc_binary(BC_ADD, x, y, &w);
  printf("with warnings as errors: %s: %s\n", bc_status_string(st), bc_last_error());
  ok = ok && st == BC_ERR_POLICY && w == NULL && log.count == 1;

  bc_set_warnings_as_errors(0);
  bc_set_broadcast_warning(0);
  bc_set_warning_handler(NULL, NULL);
  bc_tensor_free(z);
  bc_tensor_free(y);
  bc_tensor_free(x);
  return ok ? 0 : 1;
}
