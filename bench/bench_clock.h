/* The C benchmarks' clock, and the comparison that sorts their times. */
#ifndef BCAST_BENCH_BENCH_CLOCK_H_
#define BCAST_BENCH_BENCH_CLOCK_H_

#include <stdlib.h>
#include <time.h>

static inline double bench_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

static inline int bench_cmp_double(const void* x, const void* y) {
  const double a = *(const double*)x, b = *(const double*)y;
  return (a > b) - (a < b);
}

#endif /* BCAST_BENCH_BENCH_CLOCK_H_ */
