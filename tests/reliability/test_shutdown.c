/* A shutdown-free program: it uses the library (parallel ops, a warning
 * handler, errors on several threads, settings changed) and then simply
 * returns from main, leaving the settings and the handler installed and
 * the thread pool alive. Nothing must be needed at exit: the test passes
 * when the process exits 0, and under LeakSanitizer when no static state
 * of the library is reported as leaked. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "bcast/bcast.h"

static int g_warnings = 0;
static void on_warning(const char* msg, void* user) {
  (void)msg;
  ++*(int*)user;
}

static void* worker(void* arg) {
  int64_t s[] = {2}, t[] = {3};
  bc_tensor *x = NULL, *y = NULL, *r = NULL;
  (void)arg;
  bc_tensor_zeros(BC_INT32, s, 1, &x);
  bc_tensor_zeros(BC_INT32, t, 1, &y);
  if (bc_binary(BC_ADD, x, y, &r) != BC_ERR_NOT_BROADCASTABLE) return (void*)1;
  bc_tensor_free(x);
  bc_tensor_free(y);
  return NULL;
}

int main(void) {
  int64_t big[] = {400, 300}, row[] = {300};
  bc_tensor *a = NULL, *b = NULL, *r = NULL;
  pthread_t th[4];
  void* ret;
  int i, failed = 0;
  bc_set_num_threads(3);
  bc_set_warning_handler(on_warning, &g_warnings);
  bc_set_broadcast_policy(BC_POLICY_WARN);
  bc_set_broadcast_warning(1);
  if (bc_tensor_zeros(BC_FLOAT32, big, 2, &a) != BC_OK || bc_tensor_zeros(BC_FLOAT32, row, 1, &b) != BC_OK ||
      bc_binary(BC_ADD, a, b, &r) != BC_OK) {
    fprintf(stderr, "op failed: %s\n", bc_last_error());
    return 1;
  }
  bc_tensor_free(r);
  bc_tensor_free(a);
  bc_tensor_free(b);
  for (i = 0; i < 4; ++i) pthread_create(&th[i], NULL, worker, NULL);
  for (i = 0; i < 4; ++i) {
    pthread_join(th[i], &ret);
    failed |= ret != NULL;
  }
  if (g_warnings != 1) failed = 1;
  printf(failed ? "FAILED\n" : "shutdown-free: OK\n");
  return failed; /* no cleanup call: none exists, none is needed */
}
