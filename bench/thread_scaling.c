/* Thread scaling through the C ABI (issue 23 item 11): each case at 1, 2,
 * 4, ... threads up to the machine's cores, rounds alternating between the
 * thread counts, best (min) time per call of each. A count is flagged
 * "SLOWER" where it takes more than 10% longer than the best of the smaller
 * counts: the project's rule is that more threads never make an op slower.
 *
 *   bcast_thread_scaling [rounds=7] [max_threads=cores | list such as 1,2,3,4,8]
 *
 * Cases: the short-row and medium-size shapes of bench/matrix.py --shapes
 * (bcast alone: no PyTorch here), then size sweeps of a same-shape float32
 * add, a row broadcast (R,1024)+(1024,) and float32 exp (compute-bound),
 * from 16K to 16M elements. Prints the CPU model and the core count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bcast/bcast.h>

#include "bench_clock.h"

static void die(const char* what) {
  fprintf(stderr, "%s: %s\n", what, bc_last_error());
  exit(1);
}

typedef struct {
  const char* name;
  int unary; /* 0: binary op; 1: bc_unary_out(BC_EXP) of a */
  bc_op op;
  bc_dtype dtype;
  int nd_a, nd_b;
  int64_t a[6], b[6];
} Shape;

static const Shape kShapes[] = {
    {"outer, 7-wide side", 0, BC_ADD, BC_FLOAT32, 2, 2, {10000, 1}, {1, 7}},
    {"outer, 7-tall side", 0, BC_ADD, BC_FLOAT32, 2, 2, {7, 1}, {1, 10000}},
    {"points + (3,)", 0, BC_ADD, BC_FLOAT32, 2, 1, {100000, 3}, {3}},
    {"points * (N,1)", 0, BC_MUL, BC_FLOAT32, 2, 2, {100000, 3}, {100000, 1}},
    {"RGBA u8 * (4,)", 0, BC_MUL, BC_UINT8, 3, 1, {256, 256, 4}, {4}},
    {"RGBA + (H,W,1)", 0, BC_ADD, BC_FLOAT32, 3, 3, {256, 256, 4}, {256, 256, 1}},
    {"16 channels + (16,)", 0, BC_ADD, BC_FLOAT32, 2, 1, {8192, 16}, {16}},
    {"6-D product", 0, BC_MUL, BC_FLOAT32, 6, 6, {16, 1, 8, 1, 6, 1}, {1, 9, 1, 5, 1, 4}},
    {"(300,300)-(300,1) f64", 0, BC_SUB, BC_FLOAT64, 2, 2, {300, 300}, {300, 1}},
    {"(100,100)+(100,)", 0, BC_ADD, BC_FLOAT32, 2, 1, {100, 100}, {100}},
    {"(16,1,512)+(16,512,1)", 0, BC_ADD, BC_FLOAT32, 3, 3, {16, 1, 512}, {16, 512, 1}},
    {"(512,512)+(512,)", 0, BC_ADD, BC_FLOAT32, 2, 1, {512, 512}, {512}},
};
enum { kNumShapes = sizeof kShapes / sizeof kShapes[0] };

static int64_t numel(const int64_t* s, int nd) {
  int64_t n = 1;
  for (int i = 0; i < nd; ++i) n *= s[i];
  return n;
}

static bc_tensor* filled(bc_dtype dt, const int64_t* shape, int nd) {
  bc_tensor* t = NULL;
  if (bc_tensor_empty(dt, shape, (size_t)nd, &t) != BC_OK) die("bc_tensor_empty");
  const int64_t n = numel(shape, nd);
  char* p = (char*)bc_tensor_data(t);
  for (int64_t i = 0; i < n; ++i) {
    const double v = 0.25 * (double)(i % 97) - 8.0;
    if (dt == BC_FLOAT32) ((float*)p)[i] = (float)v;
    else if (dt == BC_FLOAT64) ((double*)p)[i] = v;
    else ((unsigned char*)p)[i] = (unsigned char)(i % 251);
  }
  return t;
}

typedef struct {
  char name[64];
  int unary;
  bc_op op;
  bc_tensor *a, *b, *out;
  int64_t elems;
} Case;

static void run(const Case* c) {
  const bc_status st = c->unary ? bc_unary_out(BC_EXP, c->a, c->out)
                                : bc_binary_out(c->op, c->a, c->b, c->out);
  if (st != BC_OK) die("op");
}

static Case make(const char* name, int unary, bc_op op, bc_dtype dt, const int64_t* sa, int na,
                 const int64_t* sb, int nb) {
  Case c;
  memset(&c, 0, sizeof c);
  snprintf(c.name, sizeof c.name, "%s", name);
  c.unary = unary;
  c.op = op;
  c.a = filled(dt, sa, na);
  int64_t so[6];
  int no = na;
  if (unary) {
    memcpy(so, sa, sizeof(int64_t) * (size_t)na);
  } else {
    c.b = filled(dt, sb, nb);
    no = na > nb ? na : nb;
    for (int i = 0; i < no; ++i) {
      const int ia = i - (no - na), ib = i - (no - nb);
      const int64_t x = ia >= 0 ? sa[ia] : 1, y = ib >= 0 ? sb[ib] : 1;
      so[i] = x == 1 ? y : x;
    }
  }
  c.out = filled(dt, so, no);
  c.elems = numel(so, no);
  return c;
}

/* Calls per timing: about 2 ms of work at one thread (at least 3 calls). */
static long calls_for(const Case* c) {
  bc_set_num_threads(1);
  run(c);
  const double t0 = bench_now_ns();
  run(c);
  const double one = bench_now_ns() - t0;
  long calls = (long)(2e6 / (one > 1 ? one : 1));
  return calls < 3 ? 3 : calls;
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? atoi(argv[1]) : 7;
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  const int max_threads = argc > 2 ? atoi(argv[2]) : (int)cores;
  if (rounds < 1 || max_threads < 1) {
    fprintf(stderr, "usage: %s [rounds] [max_threads]\n", argv[0]);
    return 2;
  }
  char model[256] = "unknown CPU";
  FILE* f = fopen("/proc/cpuinfo", "r");
  if (f) {
    char line[512];
    while (fgets(line, sizeof line, f))
      if (strncmp(line, "model name", 10) == 0) {
        const char* colon = strchr(line, ':');
        if (colon) snprintf(model, sizeof model, "%s", colon + 2);
        model[strcspn(model, "\n")] = 0;
        break;
      }
    fclose(f);
  }
  int threads[16], nt = 0;
  if (argc > 2 && strchr(argv[2], ',')) {  /* an explicit list */
    for (const char* q = argv[2]; *q && nt < 16; q = strchr(q, ',') ? strchr(q, ',') + 1 : "")
      if (atoi(q) > 0) threads[nt++] = atoi(q);
  } else {
    for (int t = 1; t <= max_threads && nt < 16; t *= 2) threads[nt++] = t;
    if (threads[nt - 1] != max_threads && nt < 16) threads[nt++] = max_threads;
  }
  if (nt == 0) return 2;

  enum { kMaxCases = 64 };
  Case cases[kMaxCases];
  int n = 0;
  for (int i = 0; i < kNumShapes; ++i) {
    const Shape* s = &kShapes[i];
    cases[n++] = make(s->name, s->unary, s->op, s->dtype, s->a, s->nd_a, s->b, s->nd_b);
  }
  for (int64_t e = 16384; e <= (int64_t)16 << 20; e *= 4) {
    char name[64];
    const int64_t flat[1] = {e}, rows[2] = {e / 1024, 1024}, row[1] = {1024};
    snprintf(name, sizeof name, "same (%lld,)", (long long)e);
    cases[n++] = make(name, 0, BC_ADD, BC_FLOAT32, flat, 1, flat, 1);
    snprintf(name, sizeof name, "(%lld,1024)+(1024,)", (long long)(e / 1024));
    cases[n++] = make(name, 0, BC_ADD, BC_FLOAT32, rows, 2, row, 1);
    snprintf(name, sizeof name, "exp f32 (%lld,)", (long long)e);
    cases[n++] = make(name, 1, BC_ADD, BC_FLOAT32, flat, 1, NULL, 0);
  }

  printf("bcast %s, %s, %ld cores; us per call, min of %d alternating rounds\n",
         bc_version_string(), model, cores, rounds);
  printf("%-28s %9s", "case", "elems");
  for (int j = 0; j < nt; ++j) printf(" %7dT", threads[j]);
  printf("  best/1T  flags\n");
  int slower = 0;
  for (int i = 0; i < n; ++i) {
    const Case* c = &cases[i];
    const long calls = calls_for(c);
    double best[16];
    for (int j = 0; j < nt; ++j) best[j] = 1e300;
    for (int r = 0; r < rounds; ++r)
      for (int jj = 0; jj < nt; ++jj) {
        const int j = (jj + r) % nt;  /* each round starts at the next count */
        bc_set_num_threads(threads[j]);
        run(c);
        const double t0 = bench_now_ns();
        for (long k = 0; k < calls; ++k) run(c);
        const double us = (bench_now_ns() - t0) / 1e3 / (double)calls;
        if (us < best[j]) best[j] = us;
      }
    printf("%-28s %9lld", c->name, (long long)c->elems);
    double fewer = best[0], top = best[0];
    char flags[128] = "";
    for (int j = 0; j < nt; ++j) {
      printf(" %8.2f", best[j]);
      if (j > 0 && best[j] > 1.10 * fewer) {
        char one[32];
        snprintf(one, sizeof one, " SLOWER@%d", threads[j]);
        strncat(flags, one, sizeof flags - strlen(flags) - 1);
        ++slower;
      }
      if (best[j] < fewer) fewer = best[j];
      if (best[j] < top) top = best[j];
    }
    printf("  %6.2fx %s\n", best[0] / top, flags);
    fflush(stdout);
  }
  printf("cells slower than a smaller thread count by more than 10%%: %d\n", slower);
  return 0;
}
