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

#endif
