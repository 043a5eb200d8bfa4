/*
 * bcast: elementwise tensor operations with PyTorch's (NumPy's) broadcasting
 * semantics, behind a stable C ABI.
 *
 * Conventions (read once, they hold for every function below):
 * - Every fallible call returns a ::bc_status; BC_OK is 0. On failure the
 *   calling thread's message (bc_last_error()) and detail
 *   (bc_last_error_detail()) describe it, and no tensor was modified.
 * - Results come back through `bc_tensor** out` and belong to the caller, who
 *   frees them with bc_tensor_free(). On failure `*out` is set to NULL.
 * - Getters return borrowed pointers, valid while the tensor handle lives.
 * - Strides are counted in elements, not bytes (as in DLPack).
 * - Thread safety: a `const bc_tensor*` may be used from many threads at
 *   once; a non-const one (a tensor being written) may not be used by another
 *   thread at the same time. Global settings (warnings, policy, thread count)
 *   may be changed from any thread at any time.
 * - No C++ exception ever crosses this boundary.
 */
#ifndef BCAST_BCAST_H
#define BCAST_BCAST_H

#include <stddef.h>
#include <stdint.h>

#include "bcast/export.h"
#include "bcast/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup status Status codes and errors
 * @{
 */

/** Result of every fallible call. Values are pinned forever; new ones are
 *  only appended. */
typedef enum bc_status {
  BC_OK = 0,                      /**< Success. */
  BC_ERR_INVALID_ARGUMENT = 1,    /**< NULL pointer, bad enum, negative size, bad stride... */
  BC_ERR_NOT_BROADCASTABLE = 2,   /**< Shapes cannot be broadcast together. */
  BC_ERR_SHAPE_MISMATCH = 3,      /**< out=/in-place tensor has the wrong shape; bad expand. */
  BC_ERR_DTYPE = 4,               /**< Dtype not supported by the op, or unsafe cast to out. */
  BC_ERR_OVERLAP = 5,             /**< Written tensor overlaps itself or an input. */
  BC_ERR_OUT_OF_MEMORY = 6,       /**< An allocation failed. */
  BC_ERR_OVERFLOW = 7,            /**< Element or byte count overflows int64/size_t. */
  BC_ERR_OUT_OF_BOUNDS = 8,       /**< An element would fall outside a buffer. */
  BC_ERR_DIVISION_BY_ZERO = 9,    /**< Integer division or remainder by zero. */
  BC_ERR_INTERNAL = 10,           /**< A bug in bcast; please report it. */
  BC_ERR_POLICY = 11              /**< Refused by the broadcast policy, or a warning raised as error. */
} bc_status;

/** Machine-readable part of the last error (see bc_last_error_detail()).
 *  For broadcasting failures, `dim` is the failing dimension as PyTorch
 *  numbers it in the message, and `size_a`/`size_b` are the two sizes that
 *  disagree; fields that do not apply are -1. */
typedef struct bc_error_detail {
  bc_status code; /**< Status of the last failed call on this thread (BC_OK if none). */
  int32_t dim;    /**< Failing dimension, or -1. */
  int64_t size_a; /**< First conflicting size (tensor a / expanded size), or -1. */
  int64_t size_b; /**< Second conflicting size (tensor b / existing size), or -1. */
} bc_error_detail;

/** Static English name of a status, e.g. "BC_ERR_NOT_BROADCASTABLE".
 *  Never NULL (unknown codes give "BC_ERR_UNKNOWN"). Thread-safe. */
BC_API const char* bc_status_string(bc_status code);

/** This thread's last error message, byte-identical to PyTorch's where
 *  PyTorch has one. Never NULL ("" if no call failed on this thread yet).
 *  Valid until the next bcast call on this thread. A successful call does
 *  not clear it. */
BC_API const char* bc_last_error(void);

/** Copies this thread's last error detail into `*out` (out: must not be
 *  NULL). Returns the status of that error (BC_OK if none yet), or
 *  BC_ERR_INVALID_ARGUMENT if `out` is NULL. */
BC_API bc_status bc_last_error_detail(bc_error_detail* out);

/** @} */

/**
 * @defgroup version Version and runtime queries
 * @{
 */

/** Runtime library version as MAJOR*10000 + MINOR*100 + PATCH. */
BC_API int bc_version(void);
/** Runtime library version as a static string "MAJOR.MINOR.PATCH". */
BC_API const char* bc_version_string(void);
/** Name of the SIMD target chosen for this CPU (e.g. "AVX3", "AVX2",
 *  "SSE4", "EMU128"). Static string, never NULL. */
BC_API const char* bc_simd_target(void);
/** Restricts SIMD dispatch to targets no better than the one named
 *  (as bc_simd_target() spells it, e.g. "SSE4"); NULL or "" removes the cap.
 *  For tests and benchmarks. Returns BC_ERR_INVALID_ARGUMENT for an unknown
 *  name or one this CPU cannot run. Not to be called while ops run. */
BC_API bc_status bc_set_simd_cap(const char* target_name);
/** Number of threads ops may use (>= 1). Default: OpenMP's default. */
BC_API int bc_get_num_threads(void);
/** Sets the number of threads ops may use; n <= 0 restores the default.
 *  Process-wide; safe from any thread. */
BC_API bc_status bc_set_num_threads(int n);

/** @} */

/**
 * @defgroup tensor Tensors
 * @{
 */

/** Maximum number of dimensions of a tensor. */
#define BC_MAX_DIMS 32

/** Element types. Values are pinned forever. */
typedef enum bc_dtype {
  BC_BOOL = 0,     /**< 1 byte, 0 or 1. */
  BC_UINT8 = 1,
  BC_INT8 = 2,
  BC_INT16 = 3,
  BC_INT32 = 4,
  BC_INT64 = 5,
  BC_FLOAT16 = 6,  /**< IEEE binary16, stored as uint16_t bits. */
  BC_BFLOAT16 = 7, /**< bfloat16, stored as uint16_t bits. */
  BC_FLOAT32 = 8,
  BC_FLOAT64 = 9
} bc_dtype;

/** Opaque tensor handle: a dtype, a shape, strides (in elements) and a
 *  reference to storage shared with any views taken from it. */
typedef struct bc_tensor bc_tensor;

/** Called once when the last handle over a wrapped buffer is freed. */
typedef void (*bc_deleter)(void* data, void* ctx);

/** Size in bytes of one element of `dtype`, or 0 for an unknown value. */
BC_API size_t bc_dtype_size(bc_dtype dtype);
/** Static name of `dtype` as PyTorch prints it ("Float", "Long", "Bool",
 *  "Half", "BFloat16", ...), or "Unknown". */
BC_API const char* bc_dtype_name(bc_dtype dtype);

/** Allocates a contiguous tensor with uninitialised contents.
 *  @param shape  in: `ndim` sizes, each >= 0 (may be NULL when ndim == 0).
 *  @param ndim   0..BC_MAX_DIMS; 0 makes a 0-dim tensor of one element.
 *  @param out    out: new tensor owned by the caller.
 *  @return BC_OK, BC_ERR_INVALID_ARGUMENT, BC_ERR_OVERFLOW, BC_ERR_OUT_OF_MEMORY. */
BC_API bc_status bc_tensor_empty(bc_dtype dtype, const int64_t* shape, size_t ndim,
                                 bc_tensor** out);

/** Like bc_tensor_empty() with every element zero. */
BC_API bc_status bc_tensor_zeros(bc_dtype dtype, const int64_t* shape, size_t ndim,
                                 bc_tensor** out);

/** Allocates a contiguous tensor and copies numel elements of row-major
 *  `data` (in: not retained; may be NULL only if numel is 0) into it. */
BC_API bc_status bc_tensor_from_data(bc_dtype dtype, const int64_t* shape, size_t ndim,
                                     const void* data, bc_tensor** out);

/** Wraps the caller's buffer without copying.
 *  @param strides  in: element strides, or NULL for contiguous row-major.
 *                  Negative strides are refused (BC_ERR_INVALID_ARGUMENT).
 *  @param data     the buffer, aligned for `dtype`; may be NULL only if numel is 0.
 *  @param nbytes   size of the buffer; every element must lie inside it
 *                  (else BC_ERR_OUT_OF_BOUNDS).
 *  @param deleter  called as deleter(data, ctx) when the last handle (the
 *                  tensor and every view of it) is freed; may be NULL.
 *                  It is NOT called if this function fails: the buffer
 *                  stays the caller's.
 *  The buffer must stay valid, and not be freed by the caller, while any
 *  handle over it lives. bcast may write to it through in-place/out= ops. */
BC_API bc_status bc_tensor_wrap(bc_dtype dtype, const int64_t* shape, const int64_t* strides,
                                size_t ndim, void* data, size_t nbytes, bc_deleter deleter,
                                void* ctx, bc_tensor** out);

/** Releases a handle. Storage is freed when its last handle goes.
 *  NULL is a no-op. */
BC_API void bc_tensor_free(bc_tensor* t);

/** Returns a new handle sharing `t`'s storage, shape and strides. */
BC_API bc_status bc_tensor_view(const bc_tensor* t, bc_tensor** out);

/** Returns a new contiguous tensor with a copy of `t`'s elements. */
BC_API bc_status bc_tensor_clone(const bc_tensor* t, bc_tensor** out);

/** Number of dimensions (0 for a 0-dim tensor or NULL). */
BC_API size_t bc_tensor_ndim(const bc_tensor* t);
/** Borrowed pointer to ndim sizes (not NULL even when ndim is 0, NULL for a NULL t). */
BC_API const int64_t* bc_tensor_shape(const bc_tensor* t);
/** Borrowed pointer to ndim strides in elements (NULL for a NULL t). */
BC_API const int64_t* bc_tensor_strides(const bc_tensor* t);
/** Element type (BC_FLOAT32 for a NULL t: check handles before asking). */
BC_API bc_dtype bc_tensor_dtype(const bc_tensor* t);
/** Number of elements (product of the shape; 1 for 0-dim; 0 for NULL). */
BC_API int64_t bc_tensor_numel(const bc_tensor* t);
/** Borrowed pointer to the element at index (0, ..., 0) (NULL for NULL t).
 *  Writable only if the caller owns the tensor exclusively. */
BC_API void* bc_tensor_data(const bc_tensor* t);
/** 1 if the tensor is contiguous row-major, else 0. */
BC_API int bc_tensor_is_contiguous(const bc_tensor* t);

/** Copies the elements of any view, in row-major order, into `dst`
 *  (`nbytes` must be at least numel * bc_dtype_size(), else
 *  BC_ERR_OUT_OF_BOUNDS). */
BC_API bc_status bc_tensor_copy_to(const bc_tensor* t, void* dst, size_t nbytes);

/** @} */

/**
 * @defgroup shapes Shapes, expand and broadcast_tensors
 * @{
 */

/** Broadcast shape of two shapes (PyTorch's rules). `out` must hold
 *  max(na, nb) sizes; `*nout` receives the result's ndim. On failure the
 *  message is the one the op itself would give ("The size of tensor a (2)
 *  must match the size of tensor b (3) at non-singleton dimension 1"). */
BC_API bc_status bc_broadcast_shapes(const int64_t* a, size_t na, const int64_t* b, size_t nb,
                                     int64_t* out, size_t* nout);

/** N-ary broadcast: `shapes[i]` has `ndims[i]` sizes. `out` must hold the
 *  largest ndims[i] sizes. Message on failure: PyTorch's
 *  torch.broadcast_shapes text "Shape mismatch: objects cannot be broadcast
 *  to a single shape". */
BC_API bc_status bc_broadcast_shapes_n(const int64_t* const* shapes, const size_t* ndims,
                                       size_t count, int64_t* out, size_t* nout);

/** Zero-copy view of `t` expanded to `shape` (stride 0 on broadcast dims;
 *  -1 keeps a size). Fails with PyTorch's expand text. */
BC_API bc_status bc_expand(const bc_tensor* t, const int64_t* shape, size_t ndim,
                           bc_tensor** view);

/** Expands `count` tensors to their common shape: `views[i]` receives a new
 *  zero-copy view of `tensors[i]`. On failure every views[i] is NULL. */
BC_API bc_status bc_broadcast_tensors(const bc_tensor* const* tensors, size_t count,
                                      bc_tensor** views);

/** Sums `t` over broadcast dimensions so that the result has `shape`, which
 *  must broadcast to `t`'s shape (the gradient of broadcasting, PyTorch's
 *  sum_to_size). Integer and bool inputs sum to BC_INT64, as torch.sum does;
 *  floats keep their dtype (accumulated in double, rounded once). The
 *  result does not depend on the thread count. */
BC_API bc_status bc_sum_to_shape(const bc_tensor* t, const int64_t* shape, size_t ndim,
                                 bc_tensor** out);

/** @} */

/**
 * @defgroup ops Elementwise operations
 *
 * Each op comes in three forms: allocating (`bc_x(..., &out)`), out=
 * (`bc_x_out(..., out)`: `out` must already have the broadcast shape and a
 * dtype the result can be cast to), and in place (`bc_x_(self, ...)`: the
 * result is written into the first operand, whose shape may not change).
 * A written tensor may not overlap itself (an expanded view) or partially
 * overlap an input; it may be exactly the same view as an input.
 * @{
 */

/** Binary ops. Values are pinned forever. */
typedef enum bc_op {
  BC_ADD = 0,          /**< a + alpha*b (bc_binary uses alpha = 1). */
  BC_SUB = 1,          /**< a - alpha*b. */
  BC_MUL = 2,
  BC_DIV = 3,          /**< True division; integers give float32. */
  BC_DIV_TRUNC = 4,    /**< Division rounded toward zero. */
  BC_DIV_FLOOR = 5,    /**< Division rounded toward -inf. */
  BC_REMAINDER = 6,    /**< Python-style: sign of the divisor. */
  BC_FMOD = 7,         /**< C-style: sign of the dividend. */
  BC_POW = 8,
  BC_MAXIMUM = 9,      /**< NaN-propagating. */
  BC_MINIMUM = 10,     /**< NaN-propagating. */
  BC_FMAX = 11,        /**< NaN-ignoring. */
  BC_FMIN = 12,        /**< NaN-ignoring. */
  BC_ATAN2 = 13,
  BC_HYPOT = 14,
  BC_COPYSIGN = 15,
  BC_EQ = 16,          /**< Comparisons give BC_BOOL. */
  BC_NE = 17,
  BC_LT = 18,
  BC_LE = 19,
  BC_GT = 20,
  BC_GE = 21,
  BC_LOGICAL_AND = 22, /**< Logical ops give BC_BOOL (nonzero is true). */
  BC_LOGICAL_OR = 23,
  BC_LOGICAL_XOR = 24,
  BC_BITWISE_AND = 25, /**< Bitwise ops and shifts: integers and bool only. */
  BC_BITWISE_OR = 26,
  BC_BITWISE_XOR = 27,
  BC_SHIFT_LEFT = 28,
  BC_SHIFT_RIGHT = 29
} bc_op;

/** Number of ::bc_op values. */
#define BC_OP_COUNT 30

/** Static name of a binary op ("add", "div_floor", ...), or "unknown". */
BC_API const char* bc_op_name(bc_op op);

/** out = op(a, b), allocated with the broadcast shape and promoted dtype. */
BC_API bc_status bc_binary(bc_op op, const bc_tensor* a, const bc_tensor* b, bc_tensor** out);
/** Writes op(a, b) into `out` (shape must equal the broadcast shape). */
BC_API bc_status bc_binary_out(bc_op op, const bc_tensor* a, const bc_tensor* b, bc_tensor* out);
/** self = op(self, other) in place; `other` must broadcast to self's shape. */
BC_API bc_status bc_binary_(bc_op op, bc_tensor* self, const bc_tensor* other);

/** Like bc_binary() for BC_ADD/BC_SUB with a scale: a +/- alpha*b. For
 *  integer results alpha must be integral; for bool, 0 or 1. Other ops are
 *  BC_ERR_INVALID_ARGUMENT. */
BC_API bc_status bc_binary_alpha(bc_op op, const bc_tensor* a, const bc_tensor* b, double alpha,
                                 bc_tensor** out);
/** out= form of bc_binary_alpha(). */
BC_API bc_status bc_binary_alpha_out(bc_op op, const bc_tensor* a, const bc_tensor* b,
                                     double alpha, bc_tensor* out);
/** In-place form of bc_binary_alpha(). */
BC_API bc_status bc_binary_alpha_(bc_op op, bc_tensor* self, const bc_tensor* other,
                                  double alpha);

/** where(cond, a, b): a where cond is true, else b; cond must be BC_BOOL. */
BC_API bc_status bc_where(const bc_tensor* cond, const bc_tensor* a, const bc_tensor* b,
                          bc_tensor** out);
/** out= form of bc_where(). */
BC_API bc_status bc_where_out(const bc_tensor* cond, const bc_tensor* a, const bc_tensor* b,
                              bc_tensor* out);
/** In place: self = where(cond, self, other) (PyTorch's self.where(cond, other)). */
BC_API bc_status bc_where_(bc_tensor* self, const bc_tensor* cond, const bc_tensor* other);

/** self + value * t1 * t2. */
BC_API bc_status bc_addcmul(const bc_tensor* self, const bc_tensor* t1, const bc_tensor* t2,
                            double value, bc_tensor** out);
/** out= form of bc_addcmul(). */
BC_API bc_status bc_addcmul_out(const bc_tensor* self, const bc_tensor* t1, const bc_tensor* t2,
                                double value, bc_tensor* out);
/** In-place form of bc_addcmul(). */
BC_API bc_status bc_addcmul_(bc_tensor* self, const bc_tensor* t1, const bc_tensor* t2,
                             double value);

/** self + value * t1 / t2 (integer t1 and t2 are refused, as in PyTorch). */
BC_API bc_status bc_addcdiv(const bc_tensor* self, const bc_tensor* t1, const bc_tensor* t2,
                            double value, bc_tensor** out);
/** out= form of bc_addcdiv(). */
BC_API bc_status bc_addcdiv_out(const bc_tensor* self, const bc_tensor* t1, const bc_tensor* t2,
                                double value, bc_tensor* out);
/** In-place form of bc_addcdiv(). */
BC_API bc_status bc_addcdiv_(bc_tensor* self, const bc_tensor* t1, const bc_tensor* t2,
                             double value);

/** start + weight * (end - start), floating dtypes only, all three equal. */
BC_API bc_status bc_lerp(const bc_tensor* start, const bc_tensor* end, const bc_tensor* weight,
                         bc_tensor** out);
/** out= form of bc_lerp(). */
BC_API bc_status bc_lerp_out(const bc_tensor* start, const bc_tensor* end,
                             const bc_tensor* weight, bc_tensor* out);
/** In-place form of bc_lerp(). */
BC_API bc_status bc_lerp_(bc_tensor* self, const bc_tensor* end, const bc_tensor* weight);

/** min(max(x, lo), hi), NaN-propagating; lo or hi may be NULL (no bound,
 *  but not both). */
BC_API bc_status bc_clamp(const bc_tensor* x, const bc_tensor* lo, const bc_tensor* hi,
                          bc_tensor** out);
/** out= form of bc_clamp(). */
BC_API bc_status bc_clamp_out(const bc_tensor* x, const bc_tensor* lo, const bc_tensor* hi,
                              bc_tensor* out);
/** In-place form of bc_clamp(). */
BC_API bc_status bc_clamp_(bc_tensor* self, const bc_tensor* lo, const bc_tensor* hi);

/** dst = src broadcast to dst's shape, converted to dst's dtype (any
 *  conversion is allowed, as in PyTorch's copy_). */
BC_API bc_status bc_copy_(bc_tensor* dst, const bc_tensor* src);

/** @} */

/**
 * @defgroup compat Backwards compatibility, warnings and policy
 * All settings are process-wide, off by default, and safe to change from
 * any thread at any time.
 * @{
 */

/** Receives each warning. `message` is valid only during the call. */
typedef void (*bc_warning_fn)(const char* message, void* user);

/** When on, an op whose operands differ in shape, are broadcastable and
 *  have the same number of elements still broadcasts, and warns:
 *  "self and other do not have the same shape, but are broadcastable, and
 *  have the same number of elements. Changing behavior in a backwards
 *  incompatible manner to broadcasting rather than viewing as
 *  1-dimensional." */
BC_API void bc_set_broadcast_warning(int enabled);
/** Current broadcast-warning setting (0 or 1). */
BC_API int bc_get_broadcast_warning(void);

/** When on, operands that are not broadcastable but have the same number of
 *  elements are computed as 1-D sequences in row-major order; the result
 *  takes the first operand's shape, with the warning "other is not
 *  broadcastable to self, but they have the same number of elements.
 *  Falling back to deprecated pointwise behavior." In this mode an in-place
 *  op whose result shape cannot be kept fails with the notes' older expand
 *  wording. */
BC_API void bc_set_legacy_pointwise(int enabled);
/** Current legacy-pointwise setting (0 or 1). */
BC_API int bc_get_legacy_pointwise(void);

/** Implicit-broadcast policy. */
typedef enum bc_policy {
  BC_POLICY_ALLOW = 0, /**< Broadcast silently (PyTorch, NumPy). */
  BC_POLICY_WARN = 1,  /**< Broadcast, and warn each time operand shapes differ. */
  BC_POLICY_ERROR = 2  /**< Refuse (BC_ERR_POLICY) unless all operand shapes
                            are equal; 0-dim operands (scalars) are exempt. */
} bc_policy;

/** Sets the broadcast policy (BC_ERR_INVALID_ARGUMENT for unknown values). */
BC_API bc_status bc_set_broadcast_policy(bc_policy policy);
/** Current broadcast policy. */
BC_API bc_policy bc_get_broadcast_policy(void);

/** When on, every warning fails its op with BC_ERR_POLICY and the warning
 *  text as the message, before anything is written; the handler is not called. */
BC_API void bc_set_warnings_as_errors(int enabled);
/** Current warnings-as-errors setting (0 or 1). */
BC_API int bc_get_warnings_as_errors(void);

/** Installs the warning handler; NULL restores the default, which writes
 *  "bcast warning: <message>\n" to stderr. The handler runs on the thread
 *  that ran the op, possibly several threads at once; it may call bcast.
 *  A call in flight on another thread may still reach the previous handler
 *  just after this returns. */
BC_API void bc_set_warning_handler(bc_warning_fn fn, void* user);

/** @} */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BCAST_BCAST_H */
