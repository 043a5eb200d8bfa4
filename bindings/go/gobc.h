/* C side of the Go binding, included by the preamble of each Go file that
 * calls C. Every wrapper makes its bc_ call and, on failure, reads the
 * calling thread's message and detail before returning: both must happen
 * inside one cgo call, because between two cgo calls the goroutine may move
 * to another OS thread, whose last error belongs to someone else. */
#ifndef BCAST_GO_GOBC_H
#define BCAST_GO_GOBC_H

#include <stdlib.h>
#include <string.h>
#include "bcast/bcast.h"

typedef struct gobc_result {
	bc_tensor* t;          // the new tensor of a call that makes one, else NULL
	char* message;         // malloc'd copy of bc_last_error() on failure; Go frees it
	bc_error_detail detail;
	bc_status status;
	int32_t dtype;         // dtype and shape of t, so Go needs no second call
	int32_t ndim;
	int64_t shape[BC_MAX_DIMS];
} gobc_result;

static inline gobc_result gobc_finish(bc_status s, bc_tensor* t) {
	gobc_result r;
	memset(&r, 0, sizeof r);
	r.status = s;
	if (s != BC_OK) {
		bc_last_error_detail(&r.detail);
		r.message = strdup(bc_last_error());
		return r;
	}
	r.t = t;
	if (t != NULL) {
		size_t n = bc_tensor_ndim(t);
		const int64_t* shape = bc_tensor_shape(t);
		r.dtype = (int32_t)bc_tensor_dtype(t);
		r.ndim = (int32_t)n;
		for (size_t i = 0; i < n && i < BC_MAX_DIMS; i++) r.shape[i] = shape[i];
	}
	return r;
}

#define GOBC_MAKE(call) do { bc_tensor* out_ = NULL; bc_status s_ = (call); return gobc_finish(s_, out_); } while (0)
#define GOBC_DO(call) return gobc_finish((call), NULL)

static inline gobc_result gobc_info(const bc_tensor* t) { return gobc_finish(BC_OK, (bc_tensor*)t); }

static inline gobc_result gobc_empty(bc_dtype dt, const int64_t* shape, size_t ndim) {
	GOBC_MAKE(bc_tensor_empty(dt, shape, ndim, &out_));
}
static inline gobc_result gobc_zeros(bc_dtype dt, const int64_t* shape, size_t ndim) {
	GOBC_MAKE(bc_tensor_zeros(dt, shape, ndim, &out_));
}
static inline gobc_result gobc_from_data(bc_dtype dt, const int64_t* shape, size_t ndim, const void* data) {
	GOBC_MAKE(bc_tensor_from_data(dt, shape, ndim, data, &out_));
}
static inline gobc_result gobc_view(const bc_tensor* t) { GOBC_MAKE(bc_tensor_view(t, &out_)); }
static inline gobc_result gobc_clone(const bc_tensor* t) { GOBC_MAKE(bc_tensor_clone(t, &out_)); }
static inline gobc_result gobc_copy_to(const bc_tensor* t, void* dst, size_t nbytes) {
	GOBC_DO(bc_tensor_copy_to(t, dst, nbytes));
}
static inline gobc_result gobc_expand(const bc_tensor* t, const int64_t* shape, size_t ndim) {
	GOBC_MAKE(bc_expand(t, shape, ndim, &out_));
}
static inline gobc_result gobc_sum_to_shape(const bc_tensor* t, const int64_t* shape, size_t ndim) {
	GOBC_MAKE(bc_sum_to_shape(t, shape, ndim, &out_));
}
static inline gobc_result gobc_broadcast_shapes(const int64_t* a, size_t na, const int64_t* b, size_t nb,
                                         int64_t* out, size_t out_capacity, size_t* nout) {
	GOBC_DO(bc_broadcast_shapes(a, na, b, nb, out, out_capacity, nout));
}
// The result of a wrapper whose own allocation failed.
static inline gobc_result gobc_out_of_memory(void) {
	gobc_result r;
	memset(&r, 0, sizeof r);
	r.status = BC_ERR_OUT_OF_MEMORY;
	r.detail.code = BC_ERR_OUT_OF_MEMORY;
	r.detail.dim = -1; r.detail.size_a = -1; r.detail.size_b = -1;
	return r;
}
// Go may not hand C an array of Go pointers, so the shapes arrive flattened
// and the pointer array is built here.
static inline gobc_result gobc_broadcast_shapes_n(const int64_t* flat, const size_t* ndims, size_t count,
                                           int64_t* out, size_t out_capacity, size_t* nout) {
	const int64_t** ptrs = (const int64_t**)malloc((count ? count : 1) * sizeof(*ptrs));
	if (ptrs == NULL) {
		return gobc_out_of_memory();
	}
	size_t off = 0;
	for (size_t i = 0; i < count; i++) { ptrs[i] = flat + off; off += ndims[i]; }
	bc_status s = bc_broadcast_shapes_n(ptrs, ndims, count, out, out_capacity, nout);
	gobc_result r = gobc_finish(s, NULL);
	free(ptrs);
	return r;
}
static inline gobc_result gobc_broadcast_tensors(const bc_tensor* const* ts, size_t count, bc_tensor** views,
                                                 size_t views_capacity) {
	GOBC_DO(bc_broadcast_tensors(ts, count, views, views_capacity));
}
// Go passes scalars as parallel kind/bits arrays (bc_scalar's union has no
// Go spelling); they are rebuilt with the header's constructors here.
static inline gobc_result gobc_result_type(const bc_tensor* const* ts, size_t nt, const int32_t* kinds,
                                           const int64_t* ints, const double* floats, size_t ns,
                                           int32_t* out) {
	bc_scalar* ss = (bc_scalar*)malloc((ns ? ns : 1) * sizeof(*ss));
	if (ss == NULL) {
		return gobc_out_of_memory();
	}
	for (size_t i = 0; i < ns; i++) {
		if (kinds[i] == BC_SCALAR_BOOL) ss[i] = bc_scalar_bool(ints[i] != 0);
		else if (kinds[i] == BC_SCALAR_INT) ss[i] = bc_scalar_int(ints[i]);
		else if (kinds[i] == BC_SCALAR_FLOAT) ss[i] = bc_scalar_float(floats[i]);
		else { ss[i] = bc_scalar_int(0); memcpy(&ss[i].kind, &kinds[i], sizeof kinds[i]); }
	}
	bc_dtype d = BC_FLOAT32;
	bc_status s = bc_result_type(ts, nt, ss, ns, &d);
	free(ss);
	if (s == BC_OK) *out = (int32_t)d;
	return gobc_finish(s, NULL);
}

static inline gobc_result gobc_binary(bc_op op, const bc_tensor* a, const bc_tensor* b) {
	GOBC_MAKE(bc_binary(op, a, b, &out_));
}
static inline gobc_result gobc_binary_out(bc_op op, const bc_tensor* a, const bc_tensor* b, bc_tensor* out) {
	GOBC_DO(bc_binary_out(op, a, b, out));
}
static inline gobc_result gobc_binary_(bc_op op, bc_tensor* self, const bc_tensor* other) {
	GOBC_DO(bc_binary_(op, self, other));
}
static inline gobc_result gobc_binary_alpha(bc_op op, const bc_tensor* a, const bc_tensor* b, double alpha) {
	GOBC_MAKE(bc_binary_alpha(op, a, b, alpha, &out_));
}
static inline gobc_result gobc_binary_alpha_out(bc_op op, const bc_tensor* a, const bc_tensor* b, double alpha,
                                         bc_tensor* out) {
	GOBC_DO(bc_binary_alpha_out(op, a, b, alpha, out));
}
static inline gobc_result gobc_binary_alpha_(bc_op op, bc_tensor* self, const bc_tensor* other, double alpha) {
	GOBC_DO(bc_binary_alpha_(op, self, other, alpha));
}

static inline gobc_result gobc_where(const bc_tensor* c, const bc_tensor* a, const bc_tensor* b) {
	GOBC_MAKE(bc_where(c, a, b, &out_));
}
static inline gobc_result gobc_where_out(const bc_tensor* c, const bc_tensor* a, const bc_tensor* b, bc_tensor* out) {
	GOBC_DO(bc_where_out(c, a, b, out));
}
static inline gobc_result gobc_where_(bc_tensor* self, const bc_tensor* c, const bc_tensor* other) {
	GOBC_DO(bc_where_(self, c, other));
}
static inline gobc_result gobc_addcmul(const bc_tensor* s, const bc_tensor* a, const bc_tensor* b, double v) {
	GOBC_MAKE(bc_addcmul(s, a, b, v, &out_));
}
static inline gobc_result gobc_addcmul_out(const bc_tensor* s, const bc_tensor* a, const bc_tensor* b, double v,
                                    bc_tensor* out) {
	GOBC_DO(bc_addcmul_out(s, a, b, v, out));
}
static inline gobc_result gobc_addcmul_(bc_tensor* s, const bc_tensor* a, const bc_tensor* b, double v) {
	GOBC_DO(bc_addcmul_(s, a, b, v));
}
static inline gobc_result gobc_addcdiv(const bc_tensor* s, const bc_tensor* a, const bc_tensor* b, double v) {
	GOBC_MAKE(bc_addcdiv(s, a, b, v, &out_));
}
static inline gobc_result gobc_addcdiv_out(const bc_tensor* s, const bc_tensor* a, const bc_tensor* b, double v,
                                    bc_tensor* out) {
	GOBC_DO(bc_addcdiv_out(s, a, b, v, out));
}
static inline gobc_result gobc_addcdiv_(bc_tensor* s, const bc_tensor* a, const bc_tensor* b, double v) {
	GOBC_DO(bc_addcdiv_(s, a, b, v));
}
static inline gobc_result gobc_lerp(const bc_tensor* s, const bc_tensor* e, const bc_tensor* w) {
	GOBC_MAKE(bc_lerp(s, e, w, &out_));
}
static inline gobc_result gobc_lerp_out(const bc_tensor* s, const bc_tensor* e, const bc_tensor* w, bc_tensor* out) {
	GOBC_DO(bc_lerp_out(s, e, w, out));
}
static inline gobc_result gobc_lerp_(bc_tensor* s, const bc_tensor* e, const bc_tensor* w) {
	GOBC_DO(bc_lerp_(s, e, w));
}
static inline gobc_result gobc_clamp(const bc_tensor* x, const bc_tensor* lo, const bc_tensor* hi) {
	GOBC_MAKE(bc_clamp(x, lo, hi, &out_));
}
static inline gobc_result gobc_clamp_out(const bc_tensor* x, const bc_tensor* lo, const bc_tensor* hi, bc_tensor* out) {
	GOBC_DO(bc_clamp_out(x, lo, hi, out));
}
static inline gobc_result gobc_clamp_(bc_tensor* x, const bc_tensor* lo, const bc_tensor* hi) {
	GOBC_DO(bc_clamp_(x, lo, hi));
}
// Scalar operands: Go passes a Scalar as kind and bits (bc_scalar's union
// has no Go spelling); an unknown kind is passed through for the library to
// refuse.
static inline bc_scalar gobc_scalar(int32_t kind, int64_t i, double f) {
	bc_scalar s;
	if (kind == BC_SCALAR_BOOL) s = bc_scalar_bool(i != 0);
	else if (kind == BC_SCALAR_INT) s = bc_scalar_int(i);
	else if (kind == BC_SCALAR_FLOAT) s = bc_scalar_float(f);
	else { s = bc_scalar_int(0); memcpy(&s.kind, &kind, sizeof kind); }
	return s;
}
static inline gobc_result gobc_from_scalar(int32_t k, int64_t i, double f) {
	GOBC_MAKE(bc_tensor_from_scalar(gobc_scalar(k, i, f), &out_));
}
static inline gobc_result gobc_binary_scalar(bc_op op, const bc_tensor* a, int32_t k, int64_t i, double f) {
	GOBC_MAKE(bc_binary_scalar(op, a, gobc_scalar(k, i, f), &out_));
}
static inline gobc_result gobc_binary_scalar_out(bc_op op, const bc_tensor* a, int32_t k, int64_t i, double f,
                                                 bc_tensor* out) {
	GOBC_DO(bc_binary_scalar_out(op, a, gobc_scalar(k, i, f), out));
}
static inline gobc_result gobc_binary_scalar_(bc_op op, bc_tensor* self, int32_t k, int64_t i, double f) {
	GOBC_DO(bc_binary_scalar_(op, self, gobc_scalar(k, i, f)));
}
static inline gobc_result gobc_binary_rscalar(bc_op op, int32_t k, int64_t i, double f, const bc_tensor* b) {
	GOBC_MAKE(bc_binary_rscalar(op, gobc_scalar(k, i, f), b, &out_));
}
static inline gobc_result gobc_binary_rscalar_out(bc_op op, int32_t k, int64_t i, double f, const bc_tensor* b,
                                                  bc_tensor* out) {
	GOBC_DO(bc_binary_rscalar_out(op, gobc_scalar(k, i, f), b, out));
}
// Clamp bounds: has_lo/has_hi 0 means no bound (NULL).
#define GOBC_BOUNDS \
	bc_scalar lo_ = gobc_scalar(klo, ilo, flo), hi_ = gobc_scalar(khi, ihi, fhi); \
	const bc_scalar* plo_ = has_lo ? &lo_ : NULL; \
	const bc_scalar* phi_ = has_hi ? &hi_ : NULL
static inline gobc_result gobc_clamp_scalar(const bc_tensor* x, int has_lo, int32_t klo, int64_t ilo, double flo,
                                            int has_hi, int32_t khi, int64_t ihi, double fhi) {
	GOBC_BOUNDS;
	GOBC_MAKE(bc_clamp_scalar(x, plo_, phi_, &out_));
}
static inline gobc_result gobc_clamp_scalar_out(const bc_tensor* x, int has_lo, int32_t klo, int64_t ilo,
                                                double flo, int has_hi, int32_t khi, int64_t ihi, double fhi,
                                                bc_tensor* out) {
	GOBC_BOUNDS;
	GOBC_DO(bc_clamp_scalar_out(x, plo_, phi_, out));
}
static inline gobc_result gobc_clamp_scalar_(bc_tensor* x, int has_lo, int32_t klo, int64_t ilo, double flo,
                                             int has_hi, int32_t khi, int64_t ihi, double fhi) {
	GOBC_BOUNDS;
	GOBC_DO(bc_clamp_scalar_(x, plo_, phi_));
}
#undef GOBC_BOUNDS
static inline gobc_result gobc_lerp_scalar(const bc_tensor* s, const bc_tensor* e, int32_t k, int64_t i, double f) {
	GOBC_MAKE(bc_lerp_scalar(s, e, gobc_scalar(k, i, f), &out_));
}
static inline gobc_result gobc_lerp_scalar_out(const bc_tensor* s, const bc_tensor* e, int32_t k, int64_t i,
                                               double f, bc_tensor* out) {
	GOBC_DO(bc_lerp_scalar_out(s, e, gobc_scalar(k, i, f), out));
}
static inline gobc_result gobc_lerp_scalar_(bc_tensor* s, const bc_tensor* e, int32_t k, int64_t i, double f) {
	GOBC_DO(bc_lerp_scalar_(s, e, gobc_scalar(k, i, f)));
}
static inline gobc_result gobc_copy_(bc_tensor* dst, const bc_tensor* src) { GOBC_DO(bc_copy_(dst, src)); }

static inline gobc_result gobc_set_broadcast_policy(int p) { GOBC_DO(bc_set_broadcast_policy((bc_policy)p)); }
static inline gobc_result gobc_set_simd_cap(const char* name) { GOBC_DO(bc_set_simd_cap(name)); }
static inline gobc_result gobc_set_num_threads(int n) { GOBC_DO(bc_set_num_threads(n)); }

#endif
