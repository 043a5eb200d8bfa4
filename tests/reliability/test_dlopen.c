/* Loading and unloading: a host that dlopen()s libbcast as a plugin, runs
 * ops (parallel ones too), sets a warning handler that lives in the host,
 * and dlclose()s it again, several times over. Nothing is needed at exit
 * and nothing may crash after the unload. The library path is the first
 * argument. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bcast/bcast.h"

typedef bc_status (*from_data_fn)(bc_dtype, const int64_t*, size_t, const void*, bc_tensor**);
typedef bc_status (*binary_fn)(bc_op, const bc_tensor*, const bc_tensor*, bc_tensor**);
typedef bc_status (*copy_to_fn)(const bc_tensor*, void*, size_t);
typedef void (*free_fn)(bc_tensor*);
typedef bc_status (*threads_fn)(int);
typedef void (*handler_fn)(bc_warning_fn, void*);
typedef bc_status (*policy_fn)(bc_policy);

static int g_warnings = 0;
static void on_warning(const char* msg, void* user) {
  (void)msg;
  (void)user;
  ++g_warnings;
}

enum { N = 300 * 400 };
static float a[N], b[400], got[N];

static int round_trip(const char* path, int round) {
  void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  from_data_fn from_data = (from_data_fn)dlsym(h, "bc_tensor_from_data");
  binary_fn binary = (binary_fn)dlsym(h, "bc_binary");
  copy_to_fn copy_to = (copy_to_fn)dlsym(h, "bc_tensor_copy_to");
  free_fn tfree = (free_fn)dlsym(h, "bc_tensor_free");
  threads_fn set_threads = (threads_fn)dlsym(h, "bc_set_num_threads");
  handler_fn set_handler = (handler_fn)dlsym(h, "bc_set_warning_handler");
  policy_fn set_policy = (policy_fn)dlsym(h, "bc_set_broadcast_policy");
  if (!from_data || !binary || !copy_to || !tfree || !set_threads || !set_handler || !set_policy) {
    fprintf(stderr, "dlsym failed\n");
    return 1;
  }
  int64_t sa[] = {300, 400}, sb[] = {400};
  bc_tensor *ta = NULL, *tb = NULL, *r = NULL;
  int bad = 0, i;
  set_threads(2 + round % 2);
  set_handler(on_warning, NULL);
  set_policy(BC_POLICY_WARN);
  if (from_data(BC_FLOAT32, sa, 2, a, &ta) != BC_OK || from_data(BC_FLOAT32, sb, 1, b, &tb) != BC_OK ||
      binary(BC_ADD, ta, tb, &r) != BC_OK || copy_to(r, got, sizeof got) != BC_OK) {
    fprintf(stderr, "an op failed in round %d\n", round);
    return 1;
  }
  for (i = 0; i < N; ++i) bad += got[i] != a[i] + b[i % 400];
  tfree(r);
  tfree(ta);
  tfree(tb);
  /* The handler and the settings are left installed: unloading must not
   * need them reset. */
  if (dlclose(h) != 0) {
    fprintf(stderr, "dlclose: %s\n", dlerror());
    return 1;
  }
  if (bad) fprintf(stderr, "%d wrong elements in round %d\n", bad, round);
  return bad != 0;
}

int main(int argc, char** argv) {
  int i, failed = 0;
  if (argc < 2) {
    fprintf(stderr, "usage: %s path/to/libbcast.so\n", argv[0]);
    return 2;
  }
  for (i = 0; i < N; ++i) a[i] = (float)(i % 97) * 0.5f - 7.0f;
  for (i = 0; i < 400; ++i) b[i] = (float)(i % 13) * 1.5f;
  for (i = 0; i < 4; ++i) failed |= round_trip(argv[1], i);
  if (g_warnings != 4) {
    fprintf(stderr, "expected one warning per round, got %d\n", g_warnings);
    failed = 1;
  }
  printf(failed ? "FAILED\n" : "dlopen/dlclose: 4 rounds OK\n");
  return failed;
}
