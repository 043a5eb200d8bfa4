/* Fused-expression latency on small tensors, straight through the C ABI:
 * ns per bc_expr_eval_out of a chain of four float32 ops, beside the same
 * four ops as eager out= calls into preallocated temporaries (issue 27's
 * target: the fused call costs less than the four calls).
 *
 *   bcast_expr_latency [rounds=15] [calls_per_round=20000] [n=32]
 *
 * The chain is clamp((a - b) * c + a, 0, 1): sub, mul, add, clamp with
 * number bounds. Rounds alternate between the two; prints the median and
 * minimum over the rounds. One thread (the default context set to 1). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <bcast/bcast.h>

#include "bench_clock.h"

static void check(bc_status s, const char* what) {
  if (s != BC_OK) {
    fprintf(stderr, "%s: %s\n", what, bc_last_error());
    exit(1);
  }
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? atoi(argv[1]) : 15;
  const int calls = argc > 2 ? atoi(argv[2]) : 20000;
  const int64_t n = argc > 3 ? atoll(argv[3]) : 32;
  if (rounds < 1 || calls < 1 || n < 1) {
    fprintf(stderr, "usage: bcast_expr_latency [rounds] [calls_per_round] [n]\n");
    return 2;
  }
  bc_set_num_threads(1);
  bc_tensor *a, *b, *c, *out, *t1, *t2, *t3;
  bc_tensor** all[] = {&a, &b, &c, &out, &t1, &t2, &t3};
  for (int i = 0; i < 7; ++i) check(bc_tensor_zeros(BC_FLOAT32, &n, 1, all[i]), "zeros");
  float* pa = (float*)bc_tensor_data(a);
  float* pb = (float*)bc_tensor_data(b);
  float* pc = (float*)bc_tensor_data(c);
  for (int64_t i = 0; i < n; ++i) {
    pa[i] = (float)(i % 7) * 0.25f - 0.5f;
    pb[i] = (float)(i % 5) * 0.125f;
    pc[i] = 1.5f - (float)(i % 3);
  }
  const char* names[] = {"a", "b", "c"};
  bc_expr* e;
  check(bc_expr_parse("clamp((a - b) * c + a, 0, 1)", names, 3, &e), "parse");
  const bc_tensor* ins[] = {a, b, c};
  const bc_scalar lo = bc_scalar_float(0), hi = bc_scalar_float(1);
  double* ts[2];
  for (int k = 0; k < 2; ++k) ts[k] = (double*)malloc(sizeof(double) * (size_t)rounds);
  for (int r = 0; r < rounds; ++r) {
    for (int k = 0; k < 2; ++k) {
      const double t0 = bench_now_ns();
      for (int i = 0; i < calls; ++i) {
        if (k == 0) {
          check(bc_expr_eval_out(e, ins, 3, out), "eval");
        } else {
          check(bc_binary_out(BC_SUB, a, b, t1), "sub");
          check(bc_binary_out(BC_MUL, t1, c, t2), "mul");
          check(bc_binary_out(BC_ADD, t2, a, t3), "add");
          check(bc_clamp_scalar_out(t3, &lo, &hi, out), "clamp");
        }
      }
      ts[k][r] = (bench_now_ns() - t0) / calls;
    }
  }
  const char* what[] = {"fused bc_expr_eval_out", "four eager calls"};
  printf("clamp((a - b) * c + a, 0, 1), %lld float32 elements, 1 thread: ns per call\n", (long long)n);
  for (int k = 0; k < 2; ++k) {
    qsort(ts[k], (size_t)rounds, sizeof(double), bench_cmp_double);
    printf("%-24s median %8.1f  min %8.1f\n", what[k], ts[k][rounds / 2], ts[k][0]);
  }
  bc_expr_free(e);
  for (int i = 0; i < 7; ++i) bc_tensor_free(*all[i]);
  for (int k = 0; k < 2; ++k) free(ts[k]);
  return 0;
}
