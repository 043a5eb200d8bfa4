/* Threads when a core is taken: times one op at 1 thread and at N threads
 * (alternating runs, medians) while other processes keep cores busy, to
 * check that more threads are never slower than fewer (issue 14).
 *
 *   bcast_busy_core [busy_processes=1] [threads=2] [elements=4194304] [reps=41]
 *
 * Prints the medians, their ratio, and the machine's core count. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bcast/bcast.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static double median(double* v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  return v[n / 2];
}

int main(int argc, char** argv) {
  const int busy = argc > 1 ? atoi(argv[1]) : 1;
  const int threads = argc > 2 ? atoi(argv[2]) : 2;
  const int64_t n = argc > 3 ? atoll(argv[3]) : 4194304;
  const int reps = argc > 4 ? atoi(argv[4]) : 41;
  if (busy < 0 || busy > 64 || threads < 1 || n < 1 || reps < 1 || reps > 10000) {
    fprintf(stderr, "usage: %s [busy_processes] [threads] [elements] [reps]\n", argv[0]);
    return 2;
  }

  bc_ctx *one = NULL, *many = NULL;
  bc_tensor *x = NULL, *y = NULL, *z = NULL;
  if (bc_ctx_create(&one) || bc_ctx_create(&many) ||
      bc_ctx_set_option(one, BC_OPT_NUM_THREADS, 1) ||
      bc_ctx_set_option(many, BC_OPT_NUM_THREADS, threads) ||
      bc_tensor_zeros(BC_FLOAT32, &n, 1, &x) || bc_tensor_zeros(BC_FLOAT32, &n, 1, &y) ||
      bc_tensor_zeros(BC_FLOAT32, &n, 1, &z)) {
    fprintf(stderr, "setup: %s\n", bc_last_error());
    return 1;
  }
  /* Warm up pages and the thread pool before any busy process starts. */
  bc_ctx_binary_out(many, BC_ADD, x, y, z);
  bc_ctx_binary_out(one, BC_ADD, x, y, z);

  pid_t pids[64];
  for (int i = 0; i < busy; ++i) {
    pids[i] = fork();
    if (pids[i] == 0) {
      volatile unsigned long spin = 0;
      for (;;) ++spin;
    }
  }
  usleep(200000);

  double* t1 = malloc(sizeof(double) * (size_t)reps);
  double* tn = malloc(sizeof(double) * (size_t)reps);
  int failed = 0;
  for (int r = 0; r < reps; ++r) {
    double t = now();
    failed |= bc_ctx_binary_out(one, BC_ADD, x, y, z) != BC_OK;
    t1[r] = now() - t;
    t = now();
    failed |= bc_ctx_binary_out(many, BC_ADD, x, y, z) != BC_OK;
    tn[r] = now() - t;
  }
  for (int i = 0; i < busy; ++i) {
    kill(pids[i], SIGKILL);
    waitpid(pids[i], NULL, 0);
  }
  const double m1 = median(t1, reps), mn = median(tn, reps);
  printf("cores %ld, busy processes %d, add float32 %lld elements out=, %d reps\n",
         sysconf(_SC_NPROCESSORS_ONLN), busy, (long long)n, reps);
  printf("1 thread: %.3f ms   %d threads: %.3f ms   speedup %.2fx%s\n", m1 * 1e3, threads,
         mn * 1e3, m1 / mn, mn > m1 * 1.05 ? "   SLOWER" : "");
  free(t1);
  free(tn);
  bc_tensor_free(z);
  bc_tensor_free(y);
  bc_tensor_free(x);
  bc_ctx_free(many);
  bc_ctx_free(one);
  return failed;
}
