/* Reference loops for the bandwidth ceiling (ceiling.c). */
#ifndef BCAST_BENCH_CEILING_H
#define BCAST_BENCH_CEILING_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** c[i] = a[i] + b[i] with ordinary stores, on `threads` OpenMP threads. */
void bcbench_add_plain(float* c, const float* a, const float* b, int64_t n, int threads);
/** The same with streaming stores; `c` must be 64-byte aligned. */
void bcbench_add_stream(float* c, const float* a, const float* b, int64_t n, int threads);
/** Reads nbytes from p (a read-only stream, as a reduction reads its input)
 *  on `threads` OpenMP threads; returns the XOR of the words read. */
uint64_t bcbench_read(const void* p, int64_t nbytes, int threads);
/** OpenMP's default thread count ("all cores"). */
int bcbench_max_threads(void);

#ifdef __cplusplus
}
#endif

#endif /* BCAST_BENCH_CEILING_H */
