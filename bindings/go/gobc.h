/* C side of the Go binding, included by the preamble of each Go file that
 * calls C. Only what Go cannot spell itself lives here: calls go straight to
 * the bc_ctx_ functions, whose errors stay in the context and are read by a
 * later cgo call (context.go). */
#ifndef BCAST_GO_GOBC_H
#define BCAST_GO_GOBC_H

#include <stdlib.h>
#include <string.h>
#include "bcast/bcast.h"

// Scratch memory of one lane, in C memory so that a call's out pointer and
// the new tensor's dtype and shape cost Go no allocation.
typedef struct gobc_meta {
	bc_tensor* t;  // the out argument of a call that makes a tensor
	// A pinned Go slice being wrapped (wrap.go), stored here from Go so that
	// GOEXPERIMENT=cgocheck2 checks it is pinned; NULL between calls.
	void* data;
	int32_t dtype;
	int32_t ndim;
	int64_t shape[BC_MAX_DIMS];
} gobc_meta;

// Fills m's dtype and shape from m->t in one cgo call instead of three.
static inline void gobc_meta_fill(gobc_meta* m) {
	size_t n = bc_tensor_ndim(m->t);
	const int64_t* shape = bc_tensor_shape(m->t);
	m->dtype = (int32_t)bc_tensor_dtype(m->t);
	m->ndim = (int32_t)n;
	for (size_t i = 0; i < n && i < BC_MAX_DIMS; i++) m->shape[i] = shape[i];
}

// bc_scalar's union has no Go spelling: Go builds each scalar here from its
// kind and value. An unknown kind is kept so that C refuses it.
static inline bc_scalar gobc_scalar(int32_t kind, int64_t i, double f) {
	bc_scalar s;
	if (kind == BC_SCALAR_BOOL) s = bc_scalar_bool(i != 0);
	else if (kind == BC_SCALAR_INT) s = bc_scalar_int(i);
	else if (kind == BC_SCALAR_FLOAT) s = bc_scalar_float(f);
	else { s = bc_scalar_int(0); memcpy(&s.kind, &kind, sizeof kind); }
	return s;
}

// The warning handler of every lane: its user data is the lane's
// cgo.Handle, passed back to Go as an integer (callback.go).
void goBcastWarning(char* message, uintptr_t handle);
static void gobc_warning_trampoline(const char* message, void* user) {
	goBcastWarning((char*)message, (uintptr_t)user);
}
static inline bc_status gobc_set_warning_handler(bc_ctx* ctx, uintptr_t handle) {
	if (handle == 0) return bc_ctx_set_warning_handler(ctx, NULL, NULL);
	return bc_ctx_set_warning_handler(ctx, gobc_warning_trampoline, (void*)handle);
}

// The loop of every iterator run from Go (iter.go): its user data is the
// cgo.Handle of the worker (one goroutine) that runs the chunk, passed back
// to Go as an integer (callback.go). Pull mode only: the chunk runs on the
// goroutine's own thread inside this cgo call, so the callback into Go is an
// ordinary cgo callback, never one from a thread C made.
int goBcastLoop(uintptr_t handle, char** data, int64_t* strides, int64_t n0, int64_t n1);
static int gobc_loop_trampoline(void* user, char* const* data, const int64_t* strides, int64_t n0,
                                int64_t n1) {
	return goBcastLoop((uintptr_t)user, (char**)data, (int64_t*)strides, n0, n1);
}
static inline bc_status gobc_iter_run_chunk(bc_iter* it, size_t i, uintptr_t handle) {
	return bc_iter_run_chunk(it, i, gobc_loop_trampoline, (void*)handle);
}

// A loop that only counts its blocks: the baseline of the callback's cost
// (BenchmarkIterCallback).
static int gobc_loop_count(void* user, char* const* data, const int64_t* strides, int64_t n0,
                           int64_t n1) {
	(void)data;
	(void)strides;
	(void)n0;
	(void)n1;
	++*(int64_t*)user;
	return 0;
}
static inline bc_status gobc_iter_run_chunk_count(bc_iter* it, size_t i, int64_t* blocks) {
	return bc_iter_run_chunk(it, i, gobc_loop_count, blocks);
}

// bc_iter_spec points to the inputs: made here, on the C stack, because Go
// memory handed to C may not hold Go pointers.
static inline bc_status gobc_iter_new(bc_ctx* ctx, const bc_tensor* const* inputs, size_t nin,
                                      bc_tensor* out, bc_dtype out_dtype,
                                      const bc_dtype* loop_dtypes, bc_iter** it) {
	bc_iter_spec spec;
	memset(&spec, 0, sizeof spec);
	spec.inputs = inputs;
	spec.nin = nin;
	spec.out = out;
	spec.out_dtype = out_dtype;
	spec.loop_dtypes = loop_dtypes;
	// Each block is a cgo callback: take the output in place rather than
	// in more, smaller L1 tiles.
	spec.flags = BC_ITER_DIRECT_OUTPUT;
	return bc_ctx_iter_new(ctx, &spec, it);
}

#endif
