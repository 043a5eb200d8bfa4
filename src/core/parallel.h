// Threads for an op: OpenMP by default, or the host's scheduler of the
// context, within one process-wide budget of cores.
#ifndef BCAST_CORE_PARALLEL_H_
#define BCAST_CORE_PARALLEL_H_

#include <cstddef>

#include "core/context.h"

namespace bcast {

// Runs fn(task, i) for every i in [0, nchunks), on up to `threads` threads
// (the calling thread included) of ctx: the host's scheduler when the context
// has one, else OpenMP threads. OpenMP threads come out of a process-wide
// budget of one per core: when ops on other host threads hold the cores, this
// one runs on fewer threads, down to the caller alone. Chunks are handed out
// one at a time as threads become free, so a thread on a core that another
// process keeps busy takes fewer of them. Runs serially when called inside
// an OpenMP parallel region of the host's, or in a forked child. Returns the
// OpenMP threads it ran on, the caller included: 0 where it ran serially or
// on the host's scheduler.
int ParallelChunks(const bc_ctx& ctx, int threads, size_t nchunks, bc_chunk_fn fn, void* task);

// Chunks to split work among `threads` threads into: several per thread, so
// that a slow thread holds back at most a small part of the work.
inline size_t ChunkCount(int threads) { return threads <= 1 ? 1 : static_cast<size_t>(threads) * 4; }

// Threads worth giving an op that takes an estimated `ns` on one thread,
// at most `most`: each must bring ThreadNs() of it, and no more than
// sqrt(ns / kThreadCostNs) (see parallel.cc). 1 where none is worth it,
// except that one op in 16 of those within 2x of ThreadNs() gets two threads
// to learn from.
int ThreadsForTime(double ns, int most);

// The time each thread of an op must bring (ns): learned from the threaded
// ops that ran so far (NoteThreadedTime), between 2 and 10 us.
double ThreadNs();
// Tells the rule how a threaded op went: estimated `alone_ns` on one thread
// (ThreadsForTime's `ns`), `took_ns` on `threads` OpenMP threads.
void NoteThreadedTime(double alone_ns, double took_ns, int threads);
// The learning step (pure): ThreadNs() after such an op, from `current`.
double NextThreadNs(double current, double alone_ns, double took_ns, int threads);

// Cores the process may run on (its CPU affinity).
int ProcessCores();

}  // namespace bcast

#endif  // BCAST_CORE_PARALLEL_H_
