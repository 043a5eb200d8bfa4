/* Small-op latency by broadcast pattern, straight through the C ABI: ns per
 * call of a float32 op with a preallocated result (out=, or in place), for
 * broadcast patterns of up to 4096 result elements, each beside the
 * same-shape op of as many elements (the small-op path: one kernel call on
 * contiguous rows), so that "extra" is what the pattern costs beyond the
 * kernel's own time.
 *
 *   bcast_small_latency [rounds=15] [calls_per_round=20000]
 *
 * Rounds alternate over every case (a noisy machine hurts all alike);
 * prints the median and minimum over the rounds. One thread (the default
 * context set to 1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bcast/bcast.h>

#include "bench_clock.h"

typedef struct {
  const char* name;
  int nd_a, nd_b;
  int64_t a[3], b[3];
  int inplace; /* a op= b */
} Pattern;

static const Pattern kPatterns[] = {
    {"row      (16,16)+(16)", 2, 1, {16, 16}, {16}, 0},
    {"row      (64,64)+(64)", 2, 1, {64, 64}, {64}, 0},
    {"column   (16,16)+(16,1)", 2, 2, {16, 16}, {16, 1}, 0},
    {"column   (64,64)+(64,1)", 2, 2, {64, 64}, {64, 1}, 0},
    {"outer    (16,1)+(1,16)", 2, 2, {16, 1}, {1, 16}, 0},
    {"outer    (64,1)+(1,64)", 2, 2, {64, 1}, {1, 64}, 0},
    {"outer    (585,1)+(1,7)", 2, 2, {585, 1}, {1, 7}, 0},
    {"middle   (4,1,64)+(4,16,64)", 3, 3, {4, 1, 64}, {4, 16, 64}, 0},
    {"middle   (16,1,16)+(16,16,16)", 3, 3, {16, 1, 16}, {16, 16, 16}, 0},
    {"inplace  (64,64)+=(64)", 2, 1, {64, 64}, {64}, 1},
    {"inplace  (64,64)+=(64,1)", 2, 2, {64, 64}, {64, 1}, 1},
};
enum { kNumPatterns = sizeof kPatterns / sizeof kPatterns[0] };

static void die(const char* what) {
  fprintf(stderr, "%s: %s\n", what, bc_last_error());
  exit(1);
}

static int64_t numel(const int64_t* s, int nd) {
  int64_t n = 1;
  for (int i = 0; i < nd; ++i) n *= s[i];
  return n;
}

static bc_tensor* filled(const int64_t* shape, int nd, float start) {
  bc_tensor* t = NULL;
  if (bc_tensor_empty(BC_FLOAT32, shape, (size_t)nd, &t) != BC_OK) die("bc_tensor_empty");
  float* p = (float*)bc_tensor_data(t);
  const int64_t n = numel(shape, nd);
  for (int64_t i = 0; i < n; ++i) p[i] = start + 0.25f * (float)(i % 97);
  return t;
}

/* One case: operands and the result (or, in place, a itself). */
typedef struct {
  bc_tensor *a, *b, *out;
  int inplace;
} Case;

static void run(const Case* c) {
  const bc_status st = c->inplace ? bc_binary_(BC_ADD, c->a, c->b)
                                  : bc_binary_out(BC_ADD, c->a, c->b, c->out);
  if (st != BC_OK) die("op");
}

/* The broadcast of two shapes (they broadcast: the table above says so). */
static int broadcast(const Pattern* p, int64_t* out) {
  const int nd = p->nd_a > p->nd_b ? p->nd_a : p->nd_b;
  for (int i = 0; i < nd; ++i) {
    const int ia = i - (nd - p->nd_a), ib = i - (nd - p->nd_b);
    const int64_t x = ia >= 0 ? p->a[ia] : 1, y = ib >= 0 ? p->b[ib] : 1;
    out[i] = x == 1 ? y : x;
  }
  return nd;
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? atoi(argv[1]) : 15;
  const long calls = argc > 2 ? atol(argv[2]) : 20000;
  if (rounds < 1 || rounds > 1000 || calls < 1) {
    fprintf(stderr, "usage: %s [rounds] [calls_per_round]\n", argv[0]);
    return 2;
  }
  bc_set_num_threads(1);
  /* Case 2i: pattern i; case 2i+1: (n)+(n), n its result's elements. */
  enum { kCases = 2 * kNumPatterns };
  Case cases[kCases];
  for (int i = 0; i < kNumPatterns; ++i) {
    const Pattern* p = &kPatterns[i];
    int64_t shape[3];
    const int nd = broadcast(p, shape);
    const int64_t n = numel(shape, nd);
    Case* c = &cases[2 * i];
    c->a = filled(p->a, p->nd_a, 1.0f);
    c->b = filled(p->b, p->nd_b, 2.0f);
    c->out = p->inplace ? NULL : filled(shape, nd, 0.0f);
    c->inplace = p->inplace;
    Case* s = &cases[2 * i + 1];
    s->a = filled(&n, 1, 1.0f);
    s->b = filled(&n, 1, 2.0f);
    s->out = p->inplace ? NULL : filled(&n, 1, 0.0f);
    s->inplace = p->inplace;
  }
  double* t = malloc(sizeof(double) * (size_t)kCases * (size_t)rounds);
  if (t == NULL) return 1;
  for (int k = 0; k < kCases; ++k) run(&cases[k]); /* warm up */
  for (int r = 0; r < rounds; ++r) {
    for (int k = 0; k < kCases; ++k) {
      const Case* c = &cases[k];
      const double t0 = bench_now_ns();
      for (long i = 0; i < calls; ++i) run(c);
      t[k * rounds + r] = (bench_now_ns() - t0) / (double)calls;
    }
  }
  printf("bcast %s (%s), 1 thread, float32, ns per call: median (min) of %d rounds of %ld calls\n",
         bc_version_string(), bc_simd_target(), rounds, calls);
  printf("%-32s %6s %16s %16s %8s\n", "pattern", "elems", "pattern ns", "(n)+(n) ns",
         "extra");
  for (int i = 0; i < kNumPatterns; ++i) {
    double* x = &t[2 * i * rounds];
    double* y = &t[(2 * i + 1) * rounds];
    qsort(x, (size_t)rounds, sizeof *x, bench_cmp_double);
    qsort(y, (size_t)rounds, sizeof *y, bench_cmp_double);
    int64_t shape[3];
    const int nd = broadcast(&kPatterns[i], shape);
    const double mx = x[rounds / 2], my = y[rounds / 2];
    printf("%-32s %6lld %8.1f (%5.1f) %8.1f (%5.1f) %8.1f\n", kPatterns[i].name,
           (long long)numel(shape, nd), mx, x[0], my, y[0], mx - my);
  }
  for (int k = 0; k < kCases; ++k) {
    bc_tensor_free(cases[k].a);
    bc_tensor_free(cases[k].b);
    bc_tensor_free(cases[k].out);
  }
  free(t);
  return 0;
}
