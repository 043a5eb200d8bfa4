/**
 * @file bcast.h
 * @brief bcast: elementwise tensor operations with PyTorch's (NumPy's)
 * broadcasting semantics, behind a stable C ABI.
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
 *   thread at the same time.
 * - Contexts (::bc_ctx, see @ref context): settings, the warning handler,
 *   the thread budget and the last error belong to a context that the host
 *   creates. Every fallible function `bc_x(...)` has a context form
 *   `bc_ctx_x(ctx, ...)`; `bc_x(...)` is `bc_ctx_x(NULL, ...)`, the default
 *   context. **Threading rule**: a context made with bc_ctx_create() is used
 *   by one thread at a time (as zstd's ZSTD_CCtx): its calls, setters and
 *   error getters may move between threads but may not overlap. The default
 *   context (NULL) may be used from any number of threads at once: its
 *   settings are process-wide and safe to change at any time, and its last
 *   error is kept per thread.
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
  BC_ERR_POLICY = 11,             /**< Refused by the broadcast policy, or a warning raised as error. */
  BC_ERR_CALLBACK = 12            /**< A host callback (bc_loop2d_fn) returned a failure. */
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

/** Static English name of a status, e.g. "BC_ERR_NOT_BROADCASTABLE". It
 *  touches no error state: the strings bc_last_error() and
 *  bc_ctx_last_error() returned stay valid and unchanged.
 *  @param[in] code  Any value; unknown codes are allowed.
 *  @return A static string (never to be freed), never NULL: unknown codes
 *          give "BC_ERR_UNKNOWN".
 *  @par Thread safety
 *  Safe from any thread. */
BC_API const char* bc_status_string(bc_status code);

/** This thread's last error message, byte-identical to PyTorch's where
 *  PyTorch has one. A successful call does not clear it.
 *  @return A borrowed string owned by bcast, never NULL ("" if no call
 *          failed on this thread yet). Valid until the next bcast call on
 *          this thread; copy it to keep it. Reading the error does not count
 *          as such a call: bc_last_error(), bc_last_error_detail() and
 *          bc_status_string() may be called in any order and any number of
 *          times, and leave the string valid and unchanged.
 *  @par Thread safety
 *  Safe from any thread; each thread sees only its own errors. */
BC_API const char* bc_last_error(void);

/** Copies this thread's last error detail into `*out`. It only reads:
 *  the string bc_last_error() returned stays valid and unchanged, also when
 *  `out` is NULL.
 *  @param[out] out  Caller-owned struct that receives the detail; must not
 *                   be NULL. Not retained.
 *  @return The status of this thread's last error (BC_OK if no call failed
 *          on this thread yet), or BC_ERR_INVALID_ARGUMENT if `out` is NULL.
 *  @par Thread safety
 *  Safe from any thread; each thread sees only its own errors. */
BC_API bc_status bc_last_error_detail(bc_error_detail* out);

/** @} */

/**
 * @defgroup version Version and runtime queries
 * @{
 */

/** Runtime library version, comparable with #BC_VERSION_NUMBER of the
 *  headers a program was built with.
 *  @return MAJOR*10000 + MINOR*100 + PATCH.
 *  @par Thread safety
 *  Safe from any thread. */
BC_API int bc_version(void);
/** Runtime library version as text.
 *  @return A static string "MAJOR.MINOR.PATCH" (never NULL, never to be
 *          freed).
 *  @par Thread safety
 *  Safe from any thread. */
BC_API const char* bc_version_string(void);
/** Name of the SIMD target that ops dispatch to on this CPU, after any cap
 *  set with bc_set_simd_cap().
 *  @return A static string such as "AVX3", "AVX2", "SSE4" or "EMU128";
 *          never NULL, never to be freed.
 *  @par Thread safety
 *  Safe from any thread. */
BC_API const char* bc_simd_target(void);
/** Restricts SIMD dispatch to targets no better than the one named. For
 *  tests and benchmarks.
 *  @param[in] target_name  A target as bc_simd_target() spells it (e.g.
 *                          "SSE4"); NULL or "" removes the cap. Borrowed:
 *                          read during the call only.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT for an unknown name or one this
 *          CPU cannot run (the cap is then unchanged).
 *  @par Thread safety
 *  Process-wide. Not to be called while ops run on any thread. */
BC_API bc_status bc_set_simd_cap(const char* target_name);
/** Number of threads ops may use.
 *  @return At least 1; by default OpenMP's default thread count.
 *  @par Thread safety
 *  Safe from any thread. */
BC_API int bc_get_num_threads(void);
/** Sets the number of threads ops may use. Results do not depend on it.
 *  Ops smaller than a grain size, ops called inside the host's own OpenMP
 *  parallel region, and every op in a child process after fork() run on the
 *  calling thread alone.
 *  @param[in] n  Thread count, capped at 1024; n <= 0 restores the default.
 *  @return BC_OK.
 *  @par Thread safety
 *  Process-wide; safe from any thread at any time. */
BC_API bc_status bc_set_num_threads(int n);

/** @} */

/**
 * @defgroup context Contexts and host threads
 * A context holds what shapes bcast's behaviour inside one component of a
 * process: the broadcast warning, legacy pointwise mode, the broadcast
 * policy, warnings-as-errors, the warning handler with its user data, the
 * thread budget, an optional host scheduler, and the last error. Two
 * components (a Go service and a Rust plugin, two C libraries) each create
 * their own and never see each other's settings or errors.
 *
 * A new context starts from bcast's defaults (every toggle off,
 * BC_POLICY_ALLOW, warnings written to stderr, OpenMP threads up to the
 * default count), never from the process-wide settings: what one component
 * sets with bc_set_broadcast_policy() and friends (the default context)
 * cannot change another component's context.
 *
 * Whatever the contexts and host threads, bcast never runs more of its own
 * OpenMP threads at once than the process has cores: an op that finds the
 * cores taken by other ops runs on fewer threads, down to the calling
 * thread alone. Work is handed out in chunks as threads become free, so a
 * thread on a core that another process keeps busy does not hold the op up.
 * @{
 */

/** Opaque context handle (see @ref context). NULL, wherever a context is
 *  taken, means the default context. */
typedef struct bc_ctx bc_ctx;

/** Creates a context with bcast's defaults.
 *  @param[out] out  Receives a new context owned by the caller, to be
 *                   released with bc_ctx_free(); NULL on failure.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT (`out` NULL);
 *          BC_ERR_OUT_OF_MEMORY (the thread's last error says so).
 *  @par Thread safety
 *  Safe from any thread. */
BC_API bc_status bc_ctx_create(bc_ctx** out);

/** Releases a context. Tensors made through it are not affected.
 *  @param[in] ctx  The context, invalid afterwards; NULL is a no-op.
 *  @par Thread safety
 *  No call may be using `ctx` during or after this one. */
BC_API void bc_ctx_free(bc_ctx* ctx);

/** Integer settings of a context. Values are pinned forever. */
typedef enum bc_option {
  /** 0 or 1: the broadcast warning (see bc_set_broadcast_warning()). */
  BC_OPT_BROADCAST_WARNING = 0,
  /** 0 or 1: the deprecated 1-D pointwise fallback (see
   *  bc_set_legacy_pointwise()). */
  BC_OPT_LEGACY_POINTWISE = 1,
  /** A ::bc_policy value (see bc_set_broadcast_policy()). */
  BC_OPT_POLICY = 2,
  /** 0 or 1: every warning fails its op (see bc_set_warnings_as_errors()). */
  BC_OPT_WARNINGS_AS_ERRORS = 3,
  /** The thread budget: at most this many threads per op, capped at 1024;
   *  0 (or a negative value) restores the default, OpenMP's default count.
   *  Reading it gives the count in effect (at least 1), as
   *  bc_get_num_threads(). */
  BC_OPT_NUM_THREADS = 4
} bc_option;

/** Sets an integer setting of a context.
 *  @param[in] ctx     The context, or NULL for the default context (the
 *                     process-wide settings: bc_set_broadcast_policy() and
 *                     friends are this call with NULL).
 *  @param[in] option  The setting.
 *  @param[in] value   Its new value (see ::bc_option).
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT (an unknown option, or a value
 *          out of its range: the setting is then unchanged).
 *  @par Thread safety
 *  As any call on `ctx` (see the threading rule in bcast.h's conventions). */
BC_API bc_status bc_ctx_set_option(bc_ctx* ctx, bc_option option, int64_t value);

/** Reads an integer setting of a context.
 *  @param[in]  ctx     The context, or NULL for the default context.
 *  @param[in]  option  The setting.
 *  @param[out] value   Receives its value; not written on failure.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT (an unknown option, `value`
 *          NULL).
 *  @par Thread safety
 *  As any call on `ctx`. */
BC_API bc_status bc_ctx_get_option(const bc_ctx* ctx, bc_option option, int64_t* value);

/** Receives each warning (see bc_ctx_set_warning_handler()).
 *  @param[in] message  The warning text, without a trailing newline.
 *                      Borrowed: valid only during the call.
 *  @param[in] user     The `user` pointer given with the handler. */
typedef void (*bc_warning_fn)(const char* message, void* user);

/** Installs the warning handler of a context; NULL restores the default,
 *  which writes "bcast warning: <message>\n" to stderr. The handler runs on
 *  the thread that called the op, before the op returns; it may call bcast,
 *  but not with the same context.
 *  @param[in] ctx   The context, or NULL for the default context (then as
 *                   bc_set_warning_handler()).
 *  @param[in] fn    The handler, or NULL for the default. It must stay
 *                   callable while installed.
 *  @param[in] user  Passed to `fn` unchanged; bcast never dereferences it.
 *  @return BC_OK.
 *  @par Thread safety
 *  As any call on `ctx`. */
BC_API bc_status bc_ctx_set_warning_handler(bc_ctx* ctx, bc_warning_fn fn, void* user);

/** One chunk of an op's work, as bcast hands it to a host scheduler.
 *  @param[in] task   The `task` pointer given to bc_scheduler::run.
 *  @param[in] chunk  Index of the chunk, 0 <= chunk < nchunks. */
typedef void (*bc_chunk_fn)(void* task, size_t chunk);

/** A host's thread pool, lent to a context (XNNPACK's pthreadpool and
 *  xnn_scheduler are the model): bcast runs an op's chunks on it instead of
 *  OpenMP threads. Copied by bc_ctx_set_scheduler(). */
typedef struct bc_scheduler {
  /** How many threads the pool can run chunks on at once, the calling
   *  thread included (at least 1). Asked once per threaded op. */
  int (*num_threads)(void* user);
  /** Runs `fn(task, i)` once for every i in [0, nchunks), on any of the
   *  pool's threads and the calling thread, in any order, and returns when
   *  all have returned. Chunks never fail and never call back into the
   *  scheduler; they may run concurrently. `run` may not call bcast with
   *  the context whose op it serves (that context is in use). */
  void (*run)(void* user, size_t nchunks, bc_chunk_fn fn, void* task);
  /** Passed to both functions unchanged; bcast never dereferences it. */
  void* user;
} bc_scheduler;

/** Lends a host's thread pool to a context, or gives the context back to
 *  OpenMP. With a scheduler, an op uses up to num_threads() threads, or
 *  the context's thread budget if one was set (BC_OPT_NUM_THREADS > 0) and
 *  is smaller; it splits its work into chunks as it would for OpenMP and
 *  hands them to `run`. Small ops, ops in a forked child, and ops when
 *  that count is 1 run on the calling thread alone, without calling the
 *  scheduler.
 *  @param[in] ctx        A context from bc_ctx_create(); the default
 *                        context always uses OpenMP.
 *  @param[in] scheduler  The pool (copied), or NULL for OpenMP. Its
 *                        functions must stay callable, and `user` valid,
 *                        while it is installed.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT (`ctx` NULL, or a scheduler
 *          whose `num_threads` or `run` is NULL).
 *  @par Thread safety
 *  As any call on `ctx`. */
BC_API bc_status bc_ctx_set_scheduler(bc_ctx* ctx, const bc_scheduler* scheduler);

/** The last error message of a context, as bc_last_error() for the default
 *  context. A successful call does not clear it.
 *  @param[in] ctx  The context, or NULL for the calling thread's last error
 *                  of the default context (bc_last_error()).
 *  @return A borrowed string owned by the context, never NULL ("" if no
 *          call on it failed yet); valid until the next call on `ctx` (or,
 *          for NULL, the next bcast call on this thread). Reading the error
 *          (bc_ctx_last_error(), bc_ctx_last_error_detail(),
 *          bc_status_string()) does not count as such a call.
 *  @par Thread safety
 *  As any call on `ctx`. */
BC_API const char* bc_ctx_last_error(const bc_ctx* ctx);

/** Copies the last error detail of a context into `*out`, as
 *  bc_last_error_detail() for the default context.
 *  @param[in]  ctx  The context, or NULL for the calling thread's last
 *                   error of the default context.
 *  @param[out] out  Caller-owned struct receiving the detail; must not be
 *                   NULL.
 *  @return The status of the last error on `ctx` (BC_OK if none yet), or
 *          BC_ERR_INVALID_ARGUMENT if `out` is NULL.
 *  @par Thread safety
 *  As any call on `ctx`. */
BC_API bc_status bc_ctx_last_error_detail(const bc_ctx* ctx, bc_error_detail* out);

/** @} */

/**
 * @defgroup tensor Tensors
 * @{
 */

/** Maximum number of dimensions of a tensor. */
#define BC_MAX_DIMS 32

/** Element types. Values are pinned forever. */
typedef enum bc_dtype {
  BC_BOOL = 0,     /**< 1 byte, 0 or 1 (PyTorch's Bool). */
  BC_UINT8 = 1,    /**< uint8_t (PyTorch's Byte). */
  BC_INT8 = 2,     /**< int8_t (PyTorch's Char). */
  BC_INT16 = 3,    /**< int16_t (PyTorch's Short). */
  BC_INT32 = 4,    /**< int32_t (PyTorch's Int). */
  BC_INT64 = 5,    /**< int64_t (PyTorch's Long). */
  BC_FLOAT16 = 6,  /**< IEEE binary16, stored as uint16_t bits. */
  BC_BFLOAT16 = 7, /**< bfloat16, stored as uint16_t bits. */
  BC_FLOAT32 = 8,  /**< IEEE binary32, C's float (PyTorch's Float). */
  BC_FLOAT64 = 9   /**< IEEE binary64, C's double (PyTorch's Double). */
} bc_dtype;

/** Opaque tensor handle: a dtype, a shape, strides (in elements) and a
 *  reference to storage shared with any views taken from it. */
typedef struct bc_tensor bc_tensor;

/** Releases a buffer wrapped with bc_tensor_wrap(). Called once, when the
 *  last handle over the buffer (the tensor and every view of it) is freed,
 *  on the thread that frees that handle.
 *  @param[in] data  The `data` pointer given to bc_tensor_wrap().
 *  @param[in] ctx   The `deleter_ctx` pointer given to bc_tensor_wrap(). */
typedef void (*bc_deleter)(void* data, void* ctx);

/** Size of one element.
 *  @param[in] dtype  Any value; unknown values are allowed.
 *  @return Size in bytes of one element of `dtype`, or 0 for an unknown value.
 *  @par Thread safety
 *  Safe from any thread. */
BC_API size_t bc_dtype_size(bc_dtype dtype);
/** Name of a dtype as PyTorch prints it, for messages.
 *  @param[in] dtype  Any value; unknown values are allowed.
 *  @return A static string ("Float", "Long", "Bool", "Half", "BFloat16",
 *          ...), or "Unknown"; never NULL, never to be freed.
 *  @par Thread safety
 *  Safe from any thread. */
BC_API const char* bc_dtype_name(bc_dtype dtype);

/** Allocates a contiguous tensor with uninitialised contents.
 *  The buffer starts on a 64-byte boundary, or on a 2 MiB boundary when it
 *  is 2 MiB or larger; on Linux such buffers are advised for transparent
 *  huge pages unless the environment sets BCAST_HUGE_PAGES=0 (see the
 *  memory guide).
 *  @param[in]  dtype  Element type.
 *  @param[in]  shape  `ndim` sizes, each >= 0; may be NULL when ndim == 0.
 *                     Borrowed: read during the call only.
 *  @param[in]  ndim   0..#BC_MAX_DIMS; 0 makes a 0-dim tensor of one element.
 *  @param[out] out    Receives a new tensor owned by the caller, to be
 *                     released with bc_tensor_free(); NULL on failure.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT (`out` NULL, unknown dtype,
 *          ndim > #BC_MAX_DIMS, a negative size, `shape` NULL with ndim > 0);
 *          BC_ERR_OVERFLOW (the byte count does not fit in size_t);
 *          BC_ERR_OUT_OF_MEMORY.
 *  @par Thread safety
 *  Safe from any thread. */
BC_API bc_status bc_tensor_empty(bc_dtype dtype, const int64_t* shape, size_t ndim,
                                 bc_tensor** out);

/** Like bc_tensor_empty() with every element zero.
 *  @param[in]  dtype  Element type.
 *  @param[in]  shape  `ndim` sizes, each >= 0; may be NULL when ndim == 0.
 *                     Borrowed: read during the call only.
 *  @param[in]  ndim   0..#BC_MAX_DIMS; 0 makes a 0-dim tensor of one element.
 *  @param[out] out    Receives a new tensor owned by the caller, to be
 *                     released with bc_tensor_free(); NULL on failure.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT; BC_ERR_OVERFLOW;
 *          BC_ERR_OUT_OF_MEMORY (as bc_tensor_empty()).
 *  @par Thread safety
 *  Safe from any thread. */
BC_API bc_status bc_tensor_zeros(bc_dtype dtype, const int64_t* shape, size_t ndim,
                                 bc_tensor** out);

/** Allocates a contiguous tensor and copies row-major data into it.
 *  @param[in]  dtype  Element type of both `data` and the tensor.
 *  @param[in]  shape  `ndim` sizes, each >= 0; may be NULL when ndim == 0.
 *                     Borrowed: read during the call only.
 *  @param[in]  ndim   0..#BC_MAX_DIMS; 0 makes a 0-dim tensor of one element.
 *  @param[in]  data   numel elements of `dtype` in row-major order; copied,
 *                     not retained. May be NULL only if numel is 0.
 *  @param[out] out    Receives a new tensor owned by the caller, to be
 *                     released with bc_tensor_free(); NULL on failure.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT (as bc_tensor_empty(), or `data`
 *          NULL with numel > 0); BC_ERR_OVERFLOW; BC_ERR_OUT_OF_MEMORY.
 *  @par Thread safety
 *  Safe from any thread; other threads may read `data` at the same time. */
BC_API bc_status bc_tensor_from_data(bc_dtype dtype, const int64_t* shape, size_t ndim,
                                     const void* data, bc_tensor** out);

/** Wraps the caller's buffer without copying.
 *
 *  The buffer must stay valid, and not be freed by the caller, while any
 *  handle over it lives. bcast may write to it through in-place/out= ops.
 *  @param[in]  dtype    Element type.
 *  @param[in]  shape    `ndim` sizes, each >= 0; may be NULL when ndim == 0.
 *                       Borrowed: read during the call only.
 *  @param[in]  strides  `ndim` element strides, or NULL for contiguous
 *                       row-major. Borrowed: copied during the call.
 *                       Negative strides are refused
 *                       (BC_ERR_INVALID_ARGUMENT).
 *  @param[in]  ndim     0..#BC_MAX_DIMS.
 *  @param[in]  data     The buffer, aligned for `dtype`; may be NULL only if
 *                       numel is 0. Ownership passes to the tensor on
 *                       success when `deleter` is not NULL.
 *  @param[in]  nbytes   Size of the buffer in bytes; every element must lie
 *                       inside it (else BC_ERR_OUT_OF_BOUNDS).
 *  @param[in]  deleter  Called as deleter(data, deleter_ctx) when the last handle
 *                       (the tensor and every view of it) is freed; may be
 *                       NULL. It is NOT called if this function fails: the
 *                       buffer stays the caller's.
 *  @param[in]  deleter_ctx  Passed to `deleter` unchanged; bcast never
 *                       dereferences it. May be NULL.
 *  @param[out] out      Receives a new tensor owned by the caller, to be
 *                       released with bc_tensor_free(); NULL on failure.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT (`out` NULL, unknown dtype, bad
 *          ndim, a negative size or stride, `data` NULL with numel > 0);
 *          BC_ERR_OUT_OF_BOUNDS (an element lies outside
 *          `nbytes`); BC_ERR_OVERFLOW; BC_ERR_OUT_OF_MEMORY (the handle).
 *  @par Thread safety
 *  Safe from any thread. */
BC_API bc_status bc_tensor_wrap(bc_dtype dtype, const int64_t* shape, const int64_t* strides,
                                size_t ndim, void* data, size_t nbytes, bc_deleter deleter,
                                void* deleter_ctx, bc_tensor** out);

/** Releases a handle. Storage (and a wrapped buffer's deleter) is freed
 *  when its last handle goes; views keep it alive.
 *  @param[in] t  The handle to release, invalid afterwards; NULL is a no-op.
 *  @par Thread safety
 *  No other thread may use `t` during or after the call. Different handles
 *  over the same storage (views) may be freed from different threads at
 *  the same time. */
BC_API void bc_tensor_free(bc_tensor* t);

/** Returns a new handle sharing `t`'s storage, shape and strides. The view
 *  keeps the storage alive after `t` is freed; writes through one are seen
 *  through the other.
 *  @param[in]  t    The tensor to view; borrowed.
 *  @param[out] out  Receives a new handle owned by the caller, to be
 *                   released with bc_tensor_free(); NULL on failure.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT (`t` or `out` NULL);
 *          BC_ERR_OUT_OF_MEMORY.
 *  @par Thread safety
 *  Other threads may read `t` at the same time. */
BC_API bc_status bc_tensor_view(const bc_tensor* t, bc_tensor** out);

/** Returns a new contiguous tensor with a copy of `t`'s elements.
 *  @param[in]  t    The tensor to copy, any view; borrowed.
 *  @param[out] out  Receives a new tensor owned by the caller, to be
 *                   released with bc_tensor_free(); NULL on failure.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT (`t` or `out` NULL);
 *          BC_ERR_OVERFLOW; BC_ERR_OUT_OF_MEMORY.
 *  @par Thread safety
 *  Other threads may read `t` at the same time. */
BC_API bc_status bc_tensor_clone(const bc_tensor* t, bc_tensor** out);

/** Number of dimensions.
 *  @param[in] t  The tensor (borrowed), or NULL.
 *  @return 0..#BC_MAX_DIMS; 0 for a 0-dim tensor or NULL.
 *  @par Thread safety
 *  Other threads may read `t` at the same time. */
BC_API size_t bc_tensor_ndim(const bc_tensor* t);
/** Sizes of the tensor.
 *  @param[in] t  The tensor (borrowed), or NULL.
 *  @return A borrowed array of ndim sizes, valid while `t` lives; not NULL
 *          even when ndim is 0; NULL for a NULL `t`.
 *  @par Thread safety
 *  Other threads may read `t` at the same time. */
BC_API const int64_t* bc_tensor_shape(const bc_tensor* t);
/** Strides of the tensor, in elements (0 on broadcast dimensions).
 *  @param[in] t  The tensor (borrowed), or NULL.
 *  @return A borrowed array of ndim strides, valid while `t` lives; NULL
 *          for a NULL `t`.
 *  @par Thread safety
 *  Other threads may read `t` at the same time. */
BC_API const int64_t* bc_tensor_strides(const bc_tensor* t);
/** Element type.
 *  @param[in] t  The tensor (borrowed), or NULL.
 *  @return The dtype; BC_FLOAT32 for a NULL `t` (check handles before
 *          asking).
 *  @par Thread safety
 *  Other threads may read `t` at the same time. */
BC_API bc_dtype bc_tensor_dtype(const bc_tensor* t);
/** Number of elements.
 *  @param[in] t  The tensor (borrowed), or NULL.
 *  @return The product of the shape: 1 for a 0-dim tensor, 0 for NULL.
 *  @par Thread safety
 *  Other threads may read `t` at the same time. */
BC_API int64_t bc_tensor_numel(const bc_tensor* t);
/** Address of the element at index (0, ..., 0).
 *  @param[in] t  The tensor (borrowed), or NULL.
 *  @return A borrowed pointer into the tensor's storage, valid while any
 *          handle over that storage lives; NULL for a NULL `t`. Writable
 *          only if the caller owns the storage exclusively (no other thread
 *          or view is reading it).
 *  @par Thread safety
 *  Other threads may read `t` at the same time. */
BC_API void* bc_tensor_data(const bc_tensor* t);
/** Whether the tensor is contiguous row-major.
 *  @param[in] t  The tensor (borrowed), or NULL.
 *  @return 1 if the tensor is contiguous row-major, else 0.
 *  @par Thread safety
 *  Other threads may read `t` at the same time. */
BC_API int bc_tensor_is_contiguous(const bc_tensor* t);
/** Whether bcast may write into the tensor. Tensors bcast allocates, and
 *  buffers wrapped with bc_tensor_wrap(), are writable; a DLPack 1.x tensor
 *  imported with the flag #DLPACK_FLAG_BITMASK_READ_ONLY (bcast/dlpack.h),
 *  and every view of it (bc_tensor_view(), bc_expand(),
 *  bc_broadcast_tensors()), is read-only. A read-only tensor is read as an
 *  input like any other; every write into it (an op's `out`, in-place
 *  ops, bc_copy_()) fails with BC_ERR_INVALID_ARGUMENT before anything is
 *  written. bc_tensor_clone() of it is writable. bc_tensor_data() still
 *  returns its address: writing through it breaks the producer's contract.
 *  @param[in] t  The tensor (borrowed), or NULL.
 *  @return 1 if writable, 0 if read-only or NULL.
 *  @par Thread safety
 *  Other threads may read `t` at the same time. */
BC_API int bc_tensor_is_writable(const bc_tensor* t);

/** Copies the elements of any view, in row-major order, into `dst`.
 *  @param[in]  t       The tensor to read; borrowed.
 *  @param[out] dst     Caller-owned buffer receiving numel elements of t's
 *                      dtype; not retained. May be NULL only if numel is 0.
 *  @param[in]  nbytes  Size of `dst` in bytes; at least
 *                      numel * bc_dtype_size().
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT (`t` NULL, or `dst` NULL with
 *          numel > 0); BC_ERR_OUT_OF_BOUNDS (`nbytes` too small; nothing is
 *          written).
 *  @par Thread safety
 *  Other threads may read `t` at the same time. */
BC_API bc_status bc_tensor_copy_to(const bc_tensor* t, void* dst, size_t nbytes);

/** @} */

/**
 * @defgroup types Scalars, result types and casts
 * PyTorch's type promotion as queries: which dtype an op over given tensors
 * and Python-like numbers produces (to size an out= tensor), and which
 * casts an out= tensor may take.
 * @{
 */

/** Kind of a ::bc_scalar: which member of its union is set. Values are
 *  pinned forever. */
typedef enum bc_scalar_kind {
  BC_SCALAR_BOOL = 0,  /**< `v.b`: 0 or nonzero, as Python's bool. */
  BC_SCALAR_INT = 1,   /**< `v.i`: an int64_t, as Python's int. */
  BC_SCALAR_FLOAT = 2  /**< `v.f`: a double, as Python's float. */
} bc_scalar_kind;

/** A number that is not a tensor: PyTorch's "wrapped number" (a Python
 *  bool, int or float passed where a tensor is expected). In type promotion
 *  it is weaker than any tensor, 0-dim ones included: it only raises the
 *  result's category (bool < integer < floating), never its width, and a
 *  float scalar with integer or bool tensors gives float32, PyTorch's
 *  default dtype. Build one with bc_scalar_bool(), bc_scalar_int() or
 *  bc_scalar_float(). Passed by value or by pointer; bcast never keeps it. */
typedef struct bc_scalar {
  bc_scalar_kind kind; /**< Which member of `v` holds the value. */
  union {
    int b;     /**< BC_SCALAR_BOOL: nonzero is true. */
    int64_t i; /**< BC_SCALAR_INT. */
    double f;  /**< BC_SCALAR_FLOAT. */
  } v;         /**< The value. */
} bc_scalar;

/** A bool scalar (Python's True/False).
 *  @param[in] b  Nonzero is true; stored as 0 or 1.
 *  @return The scalar. */
static inline bc_scalar bc_scalar_bool(int b) {
  bc_scalar s;
  s.kind = BC_SCALAR_BOOL;
  s.v.i = 0;
  s.v.b = b != 0;
  return s;
}
/** An integer scalar (Python's int, within int64).
 *  @param[in] i  The value.
 *  @return The scalar. */
static inline bc_scalar bc_scalar_int(int64_t i) {
  bc_scalar s;
  s.kind = BC_SCALAR_INT;
  s.v.i = i;
  return s;
}
/** A floating scalar (Python's float).
 *  @param[in] f  The value.
 *  @return The scalar. */
static inline bc_scalar bc_scalar_float(double f) {
  bc_scalar s;
  s.kind = BC_SCALAR_FLOAT;
  s.v.f = f;
  return s;
}

/** The dtype PyTorch gives an op over these operands: torch.result_type
 *  extended to any number of tensors and scalars. Operands rank in three
 *  tiers: tensors with dimensions, 0-dim tensors, scalars (::bc_scalar).
 *  Within a tier dtypes promote (torch.promote_types); a lower tier counts
 *  only when its category (bool < integer < floating) is above the higher
 *  tiers', and then promotes with them. So int32 tensor with 0.5 gives
 *  float32, float16 tensor with 2.5 stays float16, uint8 tensor with 300
 *  stays uint8, int32 tensor with a 0-dim int64 tensor stays int32, and a
 *  0-dim float64 tensor with an int32 tensor gives float64. The values of
 *  scalars are not looked at. Ops whose own rules differ (true division of
 *  integers gives float32, comparisons give bool; see the op table) apply
 *  them on top of this dtype.
 *  @param[in]  tensors   `ntensors` tensors (borrowed; only their dtype and
 *                        ndim are read); may be NULL when ntensors is 0.
 *  @param[in]  ntensors  Number of tensors.
 *  @param[in]  scalars   `nscalars` scalars (borrowed); may be NULL when
 *                        nscalars is 0.
 *  @param[in]  nscalars  Number of scalars.
 *  @param[out] out       Receives the dtype; not written on failure.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT (`out` NULL, a NULL array or
 *          tensor, an unknown scalar kind, no operand at all).
 *  @par Thread safety
 *  Safe from any thread; other threads may read the tensors at the same
 *  time. */
BC_API bc_status bc_result_type(const bc_tensor* const* tensors, size_t ntensors,
                                const bc_scalar* scalars, size_t nscalars, bc_dtype* out);

/** Whether PyTorch's type promotion lets a value of dtype `from` be
 *  written into a tensor of dtype `to` (torch.can_cast, "same kind"
 *  casting): everything except floating to integer or bool, and integer
 *  to bool. An op's out= tensor must pass it from the op's result dtype.
 *  @param[in] from  Source dtype; any value.
 *  @param[in] to    Destination dtype; any value.
 *  @return 1 if allowed, 0 if not or if either dtype is unknown.
 *  @par Thread safety
 *  Safe from any thread. */
BC_API int bc_can_cast(bc_dtype from, bc_dtype to);

/** @} */

/**
 * @defgroup shapes Shapes, expand and broadcast_tensors
 * @{
 */

/** Broadcast shape of two shapes (PyTorch's rules). On failure the
 *  message is the one the op itself would give ("The size of tensor a (2)
 *  must match the size of tensor b (3) at non-singleton dimension 1") and
 *  bc_last_error_detail() names the dimension and the two sizes.
 *
 *  Every output array of the API comes with its capacity: an `out` too
 *  small for the result is BC_ERR_INVALID_ARGUMENT, with a message naming
 *  the size needed ("out has room for 2 sizes; the broadcast shape has 3 dimensions"),
 *  and neither `out` nor `*nout` is written. A capacity of #BC_MAX_DIMS
 *  always suffices.
 *  @param[in]  a     `na` sizes; may be NULL when na == 0. Borrowed.
 *  @param[in]  na    0..#BC_MAX_DIMS; 0 is a 0-dim shape (broadcasts with
 *                    anything).
 *  @param[in]  b     `nb` sizes; may be NULL when nb == 0. Borrowed.
 *  @param[in]  nb    0..#BC_MAX_DIMS.
 *  @param[out] out   Caller-owned array of `out_capacity` entries receiving
 *                    the result's sizes; may be NULL when out_capacity is 0.
 *  @param[in]  out_capacity  Number of entries `out` has room for; at
 *                    least max(na, nb) (#BC_MAX_DIMS always suffices).
 *  @param[out] nout  Receives the result's ndim, max(na, nb).
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT (a NULL pointer, na or nb above
 *          #BC_MAX_DIMS, a negative size, `out_capacity` below the
 *          result's ndim); BC_ERR_NOT_BROADCASTABLE.
 *  @par Thread safety
 *  Safe from any thread. */
BC_API bc_status bc_broadcast_shapes(const int64_t* a, size_t na, const int64_t* b, size_t nb,
                                     int64_t* out, size_t out_capacity, size_t* nout);

/** N-ary broadcast of `count` shapes, as PyTorch 2.x's
 *  torch.broadcast_shapes: sizes are compared, never multiplied, so a
 *  result whose element count overflows int64 is fine. Messages on failure
 *  are PyTorch's, e.g. "Attempting to broadcast a dimension of length 4 at
 *  -2! Mismatching argument at index 1 had (4, 3); but expected shape should
 *  be broadcastable to [2, 3]", and "Attempting to broadcast a dimension
 *  with negative length!" (BC_ERR_INVALID_ARGUMENT).
 *  @param[in]  shapes  `count` pointers; `shapes[i]` holds `ndims[i]` sizes
 *                      (may be NULL when ndims[i] == 0). Borrowed.
 *  @param[in]  ndims   `count` dimension counts, each 0..#BC_MAX_DIMS.
 *                      Borrowed.
 *  @param[in]  count   Number of shapes.
 *  @param[out] out     Caller-owned array of `out_capacity` entries
 *                      receiving the result's sizes; may be NULL when
 *                      out_capacity is 0.
 *  @param[in]  out_capacity  Number of entries `out` has room for; at
 *                      least max(ndims[i]) (#BC_MAX_DIMS always suffices).
 *                      Too small: BC_ERR_INVALID_ARGUMENT, nothing written.
 *  @param[out] nout    Receives the result's ndim, max(ndims[i]).
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT (a NULL pointer, an ndims[i]
 *          above #BC_MAX_DIMS, a negative size, `out_capacity` below the
 *          result's ndim); BC_ERR_NOT_BROADCASTABLE.
 *  @par Thread safety
 *  Safe from any thread. */
BC_API bc_status bc_broadcast_shapes_n(const int64_t* const* shapes, const size_t* ndims,
                                       size_t count, int64_t* out, size_t out_capacity,
                                       size_t* nout);

/** Zero-copy view of `t` expanded to `shape`, as PyTorch's Tensor.expand,
 *  with PyTorch's strides: 0 on expanded dimensions, a size-1 dimension kept
 *  keeps its stride, and a new leading dimension of size 1 strides over the
 *  dimensions inside it ((6,1,5,1) expanded to (1,6,1,5,1): strides
 *  (30,5,5,1,1)). The view shares `t`'s storage and keeps it alive; it may
 *  not be written where it overlaps itself. Negative sizes other than -1 on
 *  an existing dimension fail with PyTorch's "numel: integer multiplication
 *  overflow" (BC_ERR_INVALID_ARGUMENT).
 *  @param[in]  t      The tensor to expand; borrowed.
 *  @param[in]  shape  `ndim` target sizes; -1 keeps the existing size.
 *                     Borrowed.
 *  @param[in]  ndim   At least t's ndim, at most #BC_MAX_DIMS.
 *  @param[out] view   Receives a new handle owned by the caller, to be
 *                     released with bc_tensor_free(); NULL on failure.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT (a NULL pointer, ndim above
 *          #BC_MAX_DIMS); BC_ERR_SHAPE_MISMATCH (PyTorch's expand text:
 *          too few sizes, or a non-singleton size that differs);
 *          BC_ERR_OUT_OF_MEMORY.
 *  @par Thread safety
 *  Other threads may read `t` at the same time. */
BC_API bc_status bc_expand(const bc_tensor* t, const int64_t* shape, size_t ndim,
                           bc_tensor** view);

/** Expands `count` tensors to their common shape, as
 *  torch.broadcast_tensors.
 *  @param[in]  tensors  `count` tensors; borrowed.
 *  @param[in]  count    Number of tensors.
 *  @param[out] views    Caller-owned array of `views_capacity` entries:
 *                       `views[i]` (i < count) receives a new zero-copy
 *                       view of `tensors[i]`, owned by the caller (release
 *                       each with bc_tensor_free()); a view of a read-only
 *                       tensor is read-only. On failure views[0..count) are
 *                       NULL, except when `views_capacity` is below `count`:
 *                       then nothing is written.
 *  @param[in]  views_capacity  Number of entries `views` has room for; at
 *                       least `count`, else BC_ERR_INVALID_ARGUMENT.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT (a NULL pointer, `views_capacity`
 *          below `count`); BC_ERR_NOT_BROADCASTABLE; BC_ERR_OVERFLOW (the
 *          common shape's element count does not fit in int64_t);
 *          BC_ERR_OUT_OF_MEMORY.
 *  @par Thread safety
 *  Other threads may read the tensors at the same time. */
BC_API bc_status bc_broadcast_tensors(const bc_tensor* const* tensors, size_t count,
                                      bc_tensor** views, size_t views_capacity);

/** Sums `t` over broadcast dimensions so that the result has `shape`, which
 *  must broadcast to `t`'s shape (the gradient of broadcasting, PyTorch's
 *  sum_to_size). When something is summed (a leading dimension, a size-1
 *  target dimension over a larger one, or an empty `shape`: the full sum),
 *  integer and bool inputs sum to BC_INT64, as torch.sum does; when nothing
 *  is, the result is a copy in `t`'s dtype. Floats keep their dtype
 *  (accumulated in double, rounded once: see docs/fidelity.md). The result
 *  does not depend on the thread count. A size that is not expandable
 *  (negative ones included) fails with PyTorch's "size {[-1]} is not
 *  expandable to size {[3]}." (BC_ERR_SHAPE_MISMATCH).
 *  @param[in]  t      The tensor to reduce; borrowed.
 *  @param[in]  shape  `ndim` target sizes; borrowed.
 *  @param[in]  ndim   0..t's ndim.
 *  @param[out] out    Receives a new contiguous tensor owned by the caller,
 *                     to be released with bc_tensor_free(); NULL on failure.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT (a NULL pointer, a negative size);
 *          BC_ERR_SHAPE_MISMATCH (`shape` does not broadcast to t's shape);
 *          BC_ERR_OVERFLOW; BC_ERR_OUT_OF_MEMORY.
 *  @par Thread safety
 *  Other threads may read `t` at the same time. */
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
 *
 * Statuses shared by every op below; on failure nothing is written and an
 * allocating form sets `*out` to NULL:
 * - BC_ERR_INVALID_ARGUMENT: a NULL tensor or out pointer, an unknown
 *   ::bc_op, or a scalar (alpha, value) the dtype cannot take.
 * - BC_ERR_NOT_BROADCASTABLE: the operand shapes do not broadcast.
 * - BC_ERR_SHAPE_MISMATCH (out= and in-place forms): the written tensor's
 *   shape is not the broadcast shape.
 * - BC_ERR_DTYPE: the op does not take the operands' (promoted) dtype, or
 *   (out= and in-place forms) the result cannot be cast to the written
 *   tensor's dtype.
 * - BC_ERR_OVERLAP (out= and in-place forms): the written tensor overlaps
 *   itself or partially overlaps an input.
 * - BC_ERR_POLICY: refused by bc_set_broadcast_policy(), or a warning raised
 *   as an error by bc_set_warnings_as_errors().
 * - BC_ERR_OVERFLOW: the result's size does not fit in int64_t/size_t.
 * - BC_ERR_OUT_OF_MEMORY: an allocation failed.
 *
 * Thread safety: inputs (`const bc_tensor*`) may be read by other threads
 * at the same time; the written tensor (`out` of an out= form, `self` of an
 * in-place form) may not be used by another thread during the call. An op
 * may itself use up to bc_get_num_threads() threads.
 * @{
 */

/* BEGIN GENERATED by tools/gen_ops.py from src/op_table.def: do not edit */
/** Binary ops. Values are pinned forever. */
typedef enum bc_op {
  BC_ADD = 0,          /**< a + alpha*b (bc_binary uses alpha = 1). */
  BC_SUB = 1,          /**< a - alpha*b. */
  BC_MUL = 2,          /**< a * b. */
  BC_DIV = 3,          /**< True division; integers give float32. */
  BC_DIV_TRUNC = 4,    /**< Division rounded toward zero. */
  BC_DIV_FLOOR = 5,    /**< Division rounded toward -inf. */
  BC_REMAINDER = 6,    /**< Python-style: sign of the divisor. */
  BC_FMOD = 7,         /**< C-style: sign of the dividend. */
  BC_POW = 8,          /**< a ** b. */
  BC_MAXIMUM = 9,      /**< NaN-propagating. */
  BC_MINIMUM = 10,     /**< NaN-propagating. */
  BC_FMAX = 11,        /**< NaN-ignoring. */
  BC_FMIN = 12,        /**< NaN-ignoring. */
  BC_ATAN2 = 13,       /**< atan2(a, b); integers give float32. */
  BC_HYPOT = 14,       /**< sqrt(a*a + b*b); floating dtypes only. */
  BC_COPYSIGN = 15,    /**< |a| with the sign of b; integers give float32. */
  BC_EQ = 16,          /**< Comparisons give BC_BOOL. */
  BC_NE = 17,          /**< a != b, BC_BOOL. */
  BC_LT = 18,          /**< a < b, BC_BOOL. */
  BC_LE = 19,          /**< a <= b, BC_BOOL. */
  BC_GT = 20,          /**< a > b, BC_BOOL. */
  BC_GE = 21,          /**< a >= b, BC_BOOL. */
  BC_LOGICAL_AND = 22, /**< Logical ops give BC_BOOL (nonzero is true). */
  BC_LOGICAL_OR = 23,  /**< a || b, BC_BOOL. */
  BC_LOGICAL_XOR = 24, /**< (a != 0) != (b != 0), BC_BOOL. */
  BC_BITWISE_AND = 25, /**< Bitwise ops and shifts: integers and bool only. */
  BC_BITWISE_OR = 26,  /**< a | b. */
  BC_BITWISE_XOR = 27, /**< a ^ b. */
  BC_SHIFT_LEFT = 28,  /**< a << b; 0 when b is negative or >= the bit width. */
  BC_SHIFT_RIGHT = 29  /**< a >> b (arithmetic); sign fill when b is negative or
                            >= the bit width. */
} bc_op;

/** Number of ::bc_op values. */
#define BC_OP_COUNT 30
/* END GENERATED */

/** Name of a binary op, for messages.
 *  @param[in] op  Any value; unknown values are allowed.
 *  @return A static string ("add", "div_floor", ...), or "unknown"; never
 *          NULL, never to be freed.
 *  @par Thread safety
 *  Safe from any thread. */
BC_API const char* bc_op_name(bc_op op);

/** out = op(a, b), allocated with the broadcast shape and promoted dtype.
 *  @param[in]  op    The operation.
 *  @param[in]  a     First operand; borrowed.
 *  @param[in]  b     Second operand; borrowed.
 *  @param[out] out   Receives a new tensor owned by the caller, to be
 *                    released with bc_tensor_free(); NULL on failure.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT; BC_ERR_NOT_BROADCASTABLE;
 *          BC_ERR_DTYPE; BC_ERR_DIVISION_BY_ZERO (integer BC_DIV_TRUNC,
 *          BC_DIV_FLOOR, BC_REMAINDER or BC_FMOD by zero); BC_ERR_POLICY;
 *          BC_ERR_OVERFLOW; BC_ERR_OUT_OF_MEMORY (see @ref ops).
 *  @par Thread safety
 *  The inputs may be read by other threads at the same time. */
BC_API bc_status bc_binary(bc_op op, const bc_tensor* a, const bc_tensor* b, bc_tensor** out);
/** Writes op(a, b) into `out`, converting to out's dtype.
 *  @param[in]     op   The operation.
 *  @param[in]     a    First operand; borrowed. May be `out` itself.
 *  @param[in]     b    Second operand; borrowed. May be `out` itself.
 *  @param[in,out] out  Tensor written with the result; borrowed. Its shape
 *                     must equal the broadcast shape.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT; BC_ERR_NOT_BROADCASTABLE;
 *          BC_ERR_SHAPE_MISMATCH; BC_ERR_DTYPE; BC_ERR_OVERLAP;
 *          BC_ERR_DIVISION_BY_ZERO; BC_ERR_POLICY; BC_ERR_OVERFLOW;
 *          BC_ERR_OUT_OF_MEMORY (see @ref ops).
 *  @par Thread safety
 *  No other thread may use the written tensor during the call; the inputs
 *  may be read by other threads at the same time. */
BC_API bc_status bc_binary_out(bc_op op, const bc_tensor* a, const bc_tensor* b, bc_tensor* out);
/** self = op(self, other) in place; `other` must broadcast to self's shape.
 *  @param[in]     op     The operation.
 *  @param[in,out] self   First operand and result; borrowed. Its shape and
 *                        dtype do not change.
 *  @param[in]     other  Second operand; borrowed. May be `self` itself.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT; BC_ERR_NOT_BROADCASTABLE;
 *          BC_ERR_SHAPE_MISMATCH; BC_ERR_DTYPE; BC_ERR_OVERLAP;
 *          BC_ERR_DIVISION_BY_ZERO; BC_ERR_POLICY; BC_ERR_OVERFLOW;
 *          BC_ERR_OUT_OF_MEMORY (see @ref ops).
 *  @par Thread safety
 *  No other thread may use the written tensor during the call; the inputs
 *  may be read by other threads at the same time. */
BC_API bc_status bc_binary_(bc_op op, bc_tensor* self, const bc_tensor* other);

/** Like bc_binary() for BC_ADD/BC_SUB with a scale: a +/- alpha*b. For
 *  integer and bool results alpha must be integral (as a Python int: for
 *  bool, nonzero is true); it must fit the common dtype (uint8 also takes
 *  -255..-1, which wrap), with PyTorch's text "value cannot be converted to
 *  type int8_t without overflow". NaN and infinities are fine for floating
 *  results. Other ops are BC_ERR_INVALID_ARGUMENT.
 *  @param[in]  op     BC_ADD or BC_SUB.
 *  @param[in]  a      First operand; borrowed.
 *  @param[in]  b      Second operand; borrowed.
 *  @param[in]  alpha  Scale applied to `b`.
 *  @param[out] out   Receives a new tensor owned by the caller, to be
 *                    released with bc_tensor_free(); NULL on failure.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT (also another op, or an alpha the
 *          result dtype cannot take); BC_ERR_NOT_BROADCASTABLE; BC_ERR_DTYPE;
 *          BC_ERR_POLICY; BC_ERR_OVERFLOW; BC_ERR_OUT_OF_MEMORY (see @ref ops).
 *  @par Thread safety
 *  The inputs may be read by other threads at the same time. */
BC_API bc_status bc_binary_alpha(bc_op op, const bc_tensor* a, const bc_tensor* b, double alpha,
                                 bc_tensor** out);
/** out= form of bc_binary_alpha().
 *  @param[in]     op     BC_ADD or BC_SUB.
 *  @param[in]     a      First operand; borrowed. May be `out` itself.
 *  @param[in]     b      Second operand; borrowed. May be `out` itself.
 *  @param[in]     alpha  Scale applied to `b`.
 *  @param[in,out] out  Tensor written with the result; borrowed. Its shape
 *                     must equal the broadcast shape.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT; BC_ERR_NOT_BROADCASTABLE;
 *          BC_ERR_SHAPE_MISMATCH; BC_ERR_DTYPE; BC_ERR_OVERLAP;
 *          BC_ERR_POLICY; BC_ERR_OVERFLOW; BC_ERR_OUT_OF_MEMORY (see @ref ops).
 *  @par Thread safety
 *  No other thread may use the written tensor during the call; the inputs
 *  may be read by other threads at the same time. */
BC_API bc_status bc_binary_alpha_out(bc_op op, const bc_tensor* a, const bc_tensor* b,
                                     double alpha, bc_tensor* out);
/** In-place form of bc_binary_alpha(): self = self +/- alpha*other.
 *  @param[in]     op     BC_ADD or BC_SUB.
 *  @param[in,out] self   First operand and result; borrowed. Its shape and
 *                        dtype do not change.
 *  @param[in]     other  Second operand; borrowed. May be `self` itself.
 *  @param[in]     alpha  Scale applied to `other`.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT; BC_ERR_NOT_BROADCASTABLE;
 *          BC_ERR_SHAPE_MISMATCH; BC_ERR_DTYPE; BC_ERR_OVERLAP;
 *          BC_ERR_POLICY; BC_ERR_OVERFLOW; BC_ERR_OUT_OF_MEMORY (see @ref ops).
 *  @par Thread safety
 *  No other thread may use the written tensor during the call; the inputs
 *  may be read by other threads at the same time. */
BC_API bc_status bc_binary_alpha_(bc_op op, bc_tensor* self, const bc_tensor* other,
                                  double alpha);

/** where(cond, a, b): a where cond is true, else b; cond must be BC_BOOL,
 *  or BC_UINT8 (nonzero is true) with PyTorch's deprecation warning "where
 *  received a uint8 condition tensor. ..." sent to the warning handler.
 *  The three shapes broadcast together; a and b promote as in bc_binary().
 *  @param[in]  cond    BC_BOOL condition; borrowed.
 *  @param[in]  a       Values where `cond` is true; borrowed.
 *  @param[in]  b       Values where `cond` is false; borrowed.
 *  @param[out] out     Receives a new tensor owned by the caller, to be
 *                      released with bc_tensor_free(); NULL on failure.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT; BC_ERR_NOT_BROADCASTABLE;
 *          BC_ERR_DTYPE (`cond` not BC_BOOL); BC_ERR_POLICY; BC_ERR_OVERFLOW;
 *          BC_ERR_OUT_OF_MEMORY (see @ref ops).
 *  @par Thread safety
 *  The inputs may be read by other threads at the same time. */
BC_API bc_status bc_where(const bc_tensor* cond, const bc_tensor* a, const bc_tensor* b,
                          bc_tensor** out);
/** out= form of bc_where(). `out` must have exactly the result dtype
 *  ("Expected out type to be Float but got Double", BC_ERR_DTYPE).
 *  @param[in]     cond  BC_BOOL condition; borrowed.
 *  @param[in]     a     Values where `cond` is true; borrowed.
 *  @param[in]     b     Values where `cond` is false; borrowed.
 *  @param[in,out] out  Tensor written with the result; borrowed. Its
 *                      shape must equal the broadcast shape.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT; BC_ERR_NOT_BROADCASTABLE;
 *          BC_ERR_SHAPE_MISMATCH; BC_ERR_DTYPE (`cond` not BC_BOOL, or an unsafe cast); BC_ERR_OVERLAP;
 *          BC_ERR_POLICY; BC_ERR_OVERFLOW; BC_ERR_OUT_OF_MEMORY (see @ref ops).
 *  @par Thread safety
 *  No other thread may use the written tensor during the call; the inputs
 *  may be read by other threads at the same time. */
BC_API bc_status bc_where_out(const bc_tensor* cond, const bc_tensor* a, const bc_tensor* b,
                              bc_tensor* out);
/** In place: self = where(cond, self, other) (PyTorch's
 *  torch.where(cond, self, other, out=self)); the result dtype must be
 *  self's.
 *  @param[in,out] self  First operand and result; borrowed. Its shape
 *                      and dtype do not change.
 *  @param[in]     cond  BC_BOOL condition; borrowed.
 *  @param[in]     other Values where `cond` is false; borrowed.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT; BC_ERR_NOT_BROADCASTABLE;
 *          BC_ERR_SHAPE_MISMATCH; BC_ERR_DTYPE (`cond` not BC_BOOL, or an unsafe cast); BC_ERR_OVERLAP;
 *          BC_ERR_POLICY; BC_ERR_OVERFLOW; BC_ERR_OUT_OF_MEMORY (see @ref ops).
 *  @par Thread safety
 *  No other thread may use the written tensor during the call; the inputs
 *  may be read by other threads at the same time. */
BC_API bc_status bc_where_(bc_tensor* self, const bc_tensor* cond, const bc_tensor* other);

/** self + value * t1 * t2, the three shapes broadcast together.
 *  Computed as (value * t1) * t2 in the promoted dtype; for integer dtypes
 *  `value` is first truncated toward zero, as PyTorch does.
 *
 *  `value` is read as alpha is (bc_binary_alpha()): an integral double is
 *  PyTorch's Python int, any other its Python float. It must fit the
 *  promoted dtype ("value cannot be converted to type uint8_t without
 *  overflow"), and an int there follows PyTorch's conversion, under which
 *  uint8 also takes -255..-1, which wrap: value -2 on uint8 is
 *  `torch.addcmul(x, t1, t2, value=-2)`, which computes. (PyTorch refuses
 *  `value=-2.0`, a float; a double cannot say which one the caller meant, and
 *  bcast takes the int.) bc_addcdiv() likewise.
 *  @param[in]  self    Addend; borrowed.
 *  @param[in]  t1      First factor; borrowed.
 *  @param[in]  t2      Second factor; borrowed.
 *  @param[in]  value   Scale of the product.
 *  @param[out] out     Receives a new tensor owned by the caller, to be
 *                      released with bc_tensor_free(); NULL on failure.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT; BC_ERR_NOT_BROADCASTABLE;
 *          BC_ERR_DTYPE; BC_ERR_POLICY; BC_ERR_OVERFLOW;
 *          BC_ERR_OUT_OF_MEMORY (see @ref ops).
 *  @par Thread safety
 *  The inputs may be read by other threads at the same time. */
BC_API bc_status bc_addcmul(const bc_tensor* self, const bc_tensor* t1, const bc_tensor* t2,
                            double value, bc_tensor** out);
/** out= form of bc_addcmul().
 *  @param[in]     self   Addend; borrowed.
 *  @param[in]     t1     First factor; borrowed.
 *  @param[in]     t2     Second factor; borrowed.
 *  @param[in]     value  Scale of the product.
 *  @param[in,out] out  Tensor written with the result; borrowed. Its
 *                      shape must equal the broadcast shape.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT; BC_ERR_NOT_BROADCASTABLE;
 *          BC_ERR_SHAPE_MISMATCH; BC_ERR_DTYPE; BC_ERR_OVERLAP;
 *          BC_ERR_POLICY; BC_ERR_OVERFLOW; BC_ERR_OUT_OF_MEMORY (see @ref ops).
 *  @par Thread safety
 *  No other thread may use the written tensor during the call; the inputs
 *  may be read by other threads at the same time. */
BC_API bc_status bc_addcmul_out(const bc_tensor* self, const bc_tensor* t1, const bc_tensor* t2,
                                double value, bc_tensor* out);
/** In-place form of bc_addcmul(): self += value * t1 * t2.
 *  @param[in,out] self  First operand and result; borrowed. Its shape
 *                      and dtype do not change.
 *  @param[in]     t1     First factor; borrowed.
 *  @param[in]     t2     Second factor; borrowed.
 *  @param[in]     value  Scale of the product.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT; BC_ERR_NOT_BROADCASTABLE;
 *          BC_ERR_SHAPE_MISMATCH; BC_ERR_DTYPE; BC_ERR_OVERLAP;
 *          BC_ERR_POLICY; BC_ERR_OVERFLOW; BC_ERR_OUT_OF_MEMORY (see @ref ops).
 *  @par Thread safety
 *  No other thread may use the written tensor during the call; the inputs
 *  may be read by other threads at the same time. */
BC_API bc_status bc_addcmul_(bc_tensor* self, const bc_tensor* t1, const bc_tensor* t2,
                             double value);

/** self + value * t1 / t2 (integer t1 and t2 are refused, as in PyTorch).
 *  @param[in]  self    Addend; borrowed.
 *  @param[in]  t1      Dividend; borrowed.
 *  @param[in]  t2      Divisor; borrowed.
 *  @param[in]  value   Scale of the quotient.
 *  @param[out] out     Receives a new tensor owned by the caller, to be
 *                      released with bc_tensor_free(); NULL on failure.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT; BC_ERR_NOT_BROADCASTABLE;
 *          BC_ERR_DTYPE (integer `t1` and `t2`); BC_ERR_POLICY; BC_ERR_OVERFLOW;
 *          BC_ERR_OUT_OF_MEMORY (see @ref ops).
 *  @par Thread safety
 *  The inputs may be read by other threads at the same time. */
BC_API bc_status bc_addcdiv(const bc_tensor* self, const bc_tensor* t1, const bc_tensor* t2,
                            double value, bc_tensor** out);
/** out= form of bc_addcdiv().
 *  @param[in]     self   Addend; borrowed.
 *  @param[in]     t1     Dividend; borrowed.
 *  @param[in]     t2     Divisor; borrowed.
 *  @param[in]     value  Scale of the quotient.
 *  @param[in,out] out  Tensor written with the result; borrowed. Its
 *                      shape must equal the broadcast shape.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT; BC_ERR_NOT_BROADCASTABLE;
 *          BC_ERR_SHAPE_MISMATCH; BC_ERR_DTYPE (integer `t1` and `t2`, or an unsafe cast); BC_ERR_OVERLAP;
 *          BC_ERR_POLICY; BC_ERR_OVERFLOW; BC_ERR_OUT_OF_MEMORY (see @ref ops).
 *  @par Thread safety
 *  No other thread may use the written tensor during the call; the inputs
 *  may be read by other threads at the same time. */
BC_API bc_status bc_addcdiv_out(const bc_tensor* self, const bc_tensor* t1, const bc_tensor* t2,
                                double value, bc_tensor* out);
/** In-place form of bc_addcdiv(): self += value * t1 / t2.
 *  @param[in,out] self  First operand and result; borrowed. Its shape
 *                      and dtype do not change.
 *  @param[in]     t1     Dividend; borrowed.
 *  @param[in]     t2     Divisor; borrowed.
 *  @param[in]     value  Scale of the quotient.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT; BC_ERR_NOT_BROADCASTABLE;
 *          BC_ERR_SHAPE_MISMATCH; BC_ERR_DTYPE (integer `t1` and `t2`, or an unsafe cast); BC_ERR_OVERLAP;
 *          BC_ERR_POLICY; BC_ERR_OVERFLOW; BC_ERR_OUT_OF_MEMORY (see @ref ops).
 *  @par Thread safety
 *  No other thread may use the written tensor during the call; the inputs
 *  may be read by other threads at the same time. */
BC_API bc_status bc_addcdiv_(bc_tensor* self, const bc_tensor* t1, const bc_tensor* t2,
                             double value);

/** start + weight * (end - start), floating dtypes only, all three equal;
 *  a 0-dim `weight` may have another dtype, and is then promoted with the
 *  others (PyTorch 2.x). The out= form's tensor must have the result dtype
 *  ("Found dtype Double but expected Float") unless the weight is 0-dim.
 *  @param[in]  start   Value at weight 0; borrowed.
 *  @param[in]  end     Value at weight 1; borrowed.
 *  @param[in]  weight  Interpolation weight; borrowed.
 *  @param[out] out     Receives a new tensor owned by the caller, to be
 *                      released with bc_tensor_free(); NULL on failure.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT; BC_ERR_NOT_BROADCASTABLE;
 *          BC_ERR_DTYPE (a non-floating dtype, or dtypes that differ); BC_ERR_POLICY; BC_ERR_OVERFLOW;
 *          BC_ERR_OUT_OF_MEMORY (see @ref ops).
 *  @par Thread safety
 *  The inputs may be read by other threads at the same time. */
BC_API bc_status bc_lerp(const bc_tensor* start, const bc_tensor* end, const bc_tensor* weight,
                         bc_tensor** out);
/** out= form of bc_lerp().
 *  @param[in]     start   Value at weight 0; borrowed.
 *  @param[in]     end     Value at weight 1; borrowed.
 *  @param[in]     weight  Interpolation weight; borrowed.
 *  @param[in,out] out  Tensor written with the result; borrowed. Its
 *                      shape must equal the broadcast shape.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT; BC_ERR_NOT_BROADCASTABLE;
 *          BC_ERR_SHAPE_MISMATCH; BC_ERR_DTYPE (a non-floating dtype, or dtypes that differ); BC_ERR_OVERLAP;
 *          BC_ERR_POLICY; BC_ERR_OVERFLOW; BC_ERR_OUT_OF_MEMORY (see @ref ops).
 *  @par Thread safety
 *  No other thread may use the written tensor during the call; the inputs
 *  may be read by other threads at the same time. */
BC_API bc_status bc_lerp_out(const bc_tensor* start, const bc_tensor* end,
                             const bc_tensor* weight, bc_tensor* out);
/** In-place form of bc_lerp(): self += weight * (end - self).
 *  @param[in,out] self    Start value and result; borrowed. Its shape and
 *                         dtype do not change.
 *  @param[in]     end     Value at weight 1; borrowed.
 *  @param[in]     weight  Interpolation weight; borrowed.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT; BC_ERR_NOT_BROADCASTABLE;
 *          BC_ERR_SHAPE_MISMATCH; BC_ERR_DTYPE (a non-floating dtype, or dtypes that differ); BC_ERR_OVERLAP;
 *          BC_ERR_POLICY; BC_ERR_OVERFLOW; BC_ERR_OUT_OF_MEMORY (see @ref ops).
 *  @par Thread safety
 *  No other thread may use the written tensor during the call; the inputs
 *  may be read by other threads at the same time. */
BC_API bc_status bc_lerp_(bc_tensor* self, const bc_tensor* end, const bc_tensor* weight);

/** min(max(x, lo), hi), NaN-propagating; lo or hi may be NULL (no bound,
 *  but not both). With one bound this is PyTorch's maximum(x, lo) or
 *  minimum(x, hi): promoted over x and the bound (an int16 x with a float32
 *  bound gives float32), and bool is fine.
 *  @param[in]  x       Values to clamp; borrowed.
 *  @param[in]  lo      Lower bound, or NULL for none; borrowed.
 *  @param[in]  hi      Upper bound, or NULL for none; borrowed.
 *  @param[out] out     Receives a new tensor owned by the caller, to be
 *                      released with bc_tensor_free(); NULL on failure.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT; BC_ERR_NOT_BROADCASTABLE;
 *          BC_ERR_DTYPE; BC_ERR_POLICY; BC_ERR_OVERFLOW;
 *          BC_ERR_OUT_OF_MEMORY (see @ref ops).
 *          Both bounds NULL is BC_ERR_INVALID_ARGUMENT.
 *  @par Thread safety
 *  The inputs may be read by other threads at the same time. */
BC_API bc_status bc_clamp(const bc_tensor* x, const bc_tensor* lo, const bc_tensor* hi,
                          bc_tensor** out);
/** out= form of bc_clamp().
 *  @param[in]     x    Values to clamp; borrowed.
 *  @param[in]     lo   Lower bound, or NULL for none; borrowed.
 *  @param[in]     hi   Upper bound, or NULL for none; borrowed.
 *  @param[in,out] out  Tensor written with the result; borrowed. Its
 *                      shape must equal the broadcast shape.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT; BC_ERR_NOT_BROADCASTABLE;
 *          BC_ERR_SHAPE_MISMATCH; BC_ERR_DTYPE; BC_ERR_OVERLAP;
 *          BC_ERR_POLICY; BC_ERR_OVERFLOW; BC_ERR_OUT_OF_MEMORY (see @ref ops).
 *          Both bounds NULL is BC_ERR_INVALID_ARGUMENT.
 *  @par Thread safety
 *  No other thread may use the written tensor during the call; the inputs
 *  may be read by other threads at the same time. */
BC_API bc_status bc_clamp_out(const bc_tensor* x, const bc_tensor* lo, const bc_tensor* hi,
                              bc_tensor* out);
/** In-place form of bc_clamp().
 *  @param[in,out] self  Values to clamp and result; borrowed. Its shape
 *                       and dtype do not change.
 *  @param[in]     lo    Lower bound, or NULL for none; borrowed.
 *  @param[in]     hi    Upper bound, or NULL for none; borrowed.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT; BC_ERR_NOT_BROADCASTABLE;
 *          BC_ERR_SHAPE_MISMATCH; BC_ERR_DTYPE; BC_ERR_OVERLAP;
 *          BC_ERR_POLICY; BC_ERR_OVERFLOW; BC_ERR_OUT_OF_MEMORY (see @ref ops).
 *          Both bounds NULL is BC_ERR_INVALID_ARGUMENT.
 *  @par Thread safety
 *  No other thread may use the written tensor during the call; the inputs
 *  may be read by other threads at the same time. */
BC_API bc_status bc_clamp_(bc_tensor* self, const bc_tensor* lo, const bc_tensor* hi);

/** dst = src broadcast to dst's shape, converted to dst's dtype (any
 *  conversion is allowed, as in PyTorch's copy_).
 *  @param[in,out] dst  Tensor written; borrowed. Its shape and dtype do not
 *                      change.
 *  @param[in]     src  Values; borrowed. Must broadcast to dst's shape.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT; BC_ERR_NOT_BROADCASTABLE;
 *          BC_ERR_SHAPE_MISMATCH (src broadcasts to a larger shape than
 *          dst's); BC_ERR_OVERLAP; BC_ERR_POLICY; BC_ERR_OUT_OF_MEMORY
 *          (see @ref ops).
 *  @par Thread safety
 *  No other thread may use the written tensor during the call; the inputs
 *  may be read by other threads at the same time. */
BC_API bc_status bc_copy_(bc_tensor* dst, const bc_tensor* src);

/** @name Unary ops
 *  One input, with PyTorch 2.x's dtype rules and texts (see @ref optable):
 *  ops that keep the dtype refuse an out= of another dtype ("Found dtype
 *  Long but expected Float"); the float ops (exp, sqrt, ...) give float32
 *  for integers and bool and write into any out= the result casts to; the
 *  predicates (isnan, ...) give bool. float16 and bfloat16 compute in
 *  float32 and round once. Exact ops (neg, abs, floor, sqrt, relu, the
 *  predicates, ...) give PyTorch's bits; the transcendentals are within 1
 *  ulp of the correctly rounded result, with the same bits on every CPU,
 *  SIMD target and thread count (see docs/numerics.md).
 *  @{ */

/* BEGIN GENERATED by tools/gen_ops.py from src/op_table.def: do not edit */
/** Unary ops, PyTorch's names upper-cased. Values are pinned forever. */
typedef enum bc_unary_op {
  BC_NEG = 0,          /**< -x; bool refused, as PyTorch. */
  BC_ABS = 1,          /**< |x|; the most negative integer stays as it is. */
  BC_SIGN = 2,         /**< -1, 0 or 1 (0 for NaN and +-0); bool kept. */
  BC_SQUARE = 3,       /**< x * x; bool gives int64, as pow(x, 2). */
  BC_RELU = 4,         /**< max(x, 0), NaN-propagating; bool refused. */
  BC_HARDTANH = 5,     /**< min(max(x, min_val), max_val); integers take the
                            bounds truncated. Params: min_val=-1.0,
                            max_val=1.0. */
  BC_FLOOR = 6,        /**< Round toward -inf; integers are copied. */
  BC_CEIL = 7,         /**< Round toward +inf; integers are copied. */
  BC_ROUND = 8,        /**< Round half to even; integers are copied. */
  BC_TRUNC = 9,        /**< Round toward zero; integers are copied. */
  BC_FRAC = 10,        /**< x - trunc(x); floating dtypes only. */
  BC_NAN_TO_NUM = 11,  /**< NaN, +inf and -inf replaced; None: the dtype's
                            largest and lowest finite values. Params: nan=0.0,
                            posinf=None, neginf=None. */
  BC_BITWISE_NOT = 12, /**< ~x; logical not on bool; integers and bool only. */
  BC_SQRT = 13,        /**< Square root; integers and bool give float32. */
  BC_RSQRT = 14,       /**< 1 / sqrt(x). */
  BC_RECIPROCAL = 15,  /**< 1 / x. */
  BC_EXP = 16,         /**< e**x. */
  BC_EXP2 = 17,        /**< 2**x. */
  BC_EXPM1 = 18,       /**< e**x - 1. */
  BC_LOG = 19,         /**< Natural logarithm. */
  BC_LOG2 = 20,        /**< Base-2 logarithm. */
  BC_LOG10 = 21,       /**< Base-10 logarithm. */
  BC_LOG1P = 22,       /**< log(1 + x). */
  BC_SIN = 23,         /**< Sine (radians). */
  BC_COS = 24,         /**< Cosine. */
  BC_TAN = 25,         /**< Tangent. */
  BC_ASIN = 26,        /**< Arcsine. */
  BC_ACOS = 27,        /**< Arccosine. */
  BC_ATAN = 28,        /**< Arctangent. */
  BC_SINH = 29,        /**< Hyperbolic sine. */
  BC_COSH = 30,        /**< Hyperbolic cosine. */
  BC_TANH = 31,        /**< Hyperbolic tangent. */
  BC_ASINH = 32,       /**< Inverse hyperbolic sine. */
  BC_ACOSH = 33,       /**< Inverse hyperbolic cosine. */
  BC_ATANH = 34,       /**< Inverse hyperbolic tangent. */
  BC_ERF = 35,         /**< Error function. */
  BC_ERFC = 36,        /**< 1 - erf(x), accurate in the tail. */
  BC_ERFINV = 37,      /**< Inverse error function. */
  BC_SIGMOID = 38,     /**< 1 / (1 + e**-x). */
  BC_LOGIT = 39,       /**< log(z / (1 - z)), z = x clamped to [eps, 1 - eps]
                            when eps is given. Params: eps=None. */
  BC_GELU = 40,        /**< x * Phi(x); approximate BC_GELU_TANH (1) for the
                            tanh form; floating dtypes only. Params:
                            approximate=0. */
  BC_SILU = 41,        /**< x * sigmoid(x); floating dtypes only. */
  BC_MISH = 42,        /**< x * tanh(softplus(x)); floating dtypes only. */
  BC_SOFTPLUS = 43,    /**< log(1 + e**(beta*x)) / beta, or x where beta*x >
                            threshold. Params: beta=1.0, threshold=20.0. */
  BC_HARDSIGMOID = 44, /**< min(max(x + 3, 0), 6) / 6. */
  BC_HARDSWISH = 45,   /**< x * min(max(x + 3, 0), 6) / 6. */
  BC_ELU = 46,         /**< x where x > 0, else alpha * (e**x - 1). Params:
                            alpha=1.0. */
  BC_LEAKY_RELU = 47,  /**< x where x > 0, else x * negative_slope. Params:
                            negative_slope=0.01. */
  BC_ISNAN = 48,       /**< Predicates give BC_BOOL. */
  BC_ISINF = 49,       /**< x is +-inf. */
  BC_ISPOSINF = 50,    /**< x is +inf. */
  BC_ISNEGINF = 51,    /**< x is -inf. */
  BC_ISFINITE = 52,    /**< x is neither inf nor NaN. */
  BC_SIGNBIT = 53,     /**< The sign bit is set (true for -0.0). */
  BC_LOGICAL_NOT = 54  /**< x == 0, BC_BOOL. */
} bc_unary_op;

/** Number of ::bc_unary_op values. */
#define BC_UNARY_OP_COUNT 55
/* END GENERATED */

/** gelu's `approximate` parameter: 'none' (the erf form, the default). */
#define BC_GELU_NONE 0
/** gelu's `approximate` parameter: 'tanh'. */
#define BC_GELU_TANH 1

/** The parameters of the unary ops that take some, in PyTorch's order
 *  (the op table's params column; e.g. BC_SOFTPLUS: value[0] = beta,
 *  value[1] = threshold). A parameter whose bit in `given` is clear takes
 *  PyTorch's default, which may be None (logit's eps: no clamping;
 *  nan_to_num's posinf and neginf: the dtype's largest and lowest finite
 *  values). A given value is used as PyTorch uses the Python float: on
 *  float16/bfloat16/float32 it is rounded to that dtype where PyTorch
 *  rounds it. Zero-initialise it: `bc_unary_params p = {0};`. */
typedef struct bc_unary_params {
  double value[3]; /**< The parameters, PyTorch's order. */
  unsigned given;  /**< Bit k set: value[k] is given. */
} bc_unary_params;

/** PyTorch's name of a unary op ("exp", "leaky_relu").
 *  @param[in] op  The op.
 *  @return A static string; "unknown" for a value outside ::bc_unary_op. */
BC_API const char* bc_unary_op_name(bc_unary_op op);

/** out = op(x), with PyTorch's defaults for an op's parameters.
 *  @param[in]  op   The op.
 *  @param[in]  x    Input; borrowed. Any strides, 0-dim or empty.
 *  @param[out] out  New contiguous tensor of x's shape, owned by the
 *                   caller (free with bc_tensor_free()); NULL on failure.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT (NULL, unknown op);
 *          BC_ERR_DTYPE (with PyTorch's text); BC_ERR_OUT_OF_MEMORY.
 *  @par Thread safety
 *  x may be read by other threads at the same time. */
BC_API bc_status bc_unary(bc_unary_op op, const bc_tensor* x, bc_tensor** out);

/** out = op(x), written into an existing tensor.
 *  @param[in]     op   The op.
 *  @param[in]     x    Input; borrowed.
 *  @param[in,out] out  Written; borrowed. Must have x's shape exactly
 *                      (never resized, unlike PyTorch's out=) and a dtype
 *                      the op allows (see the group's text); may be x
 *                      itself.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT; BC_ERR_SHAPE_MISMATCH;
 *          BC_ERR_DTYPE; BC_ERR_OVERLAP (out overlaps x other than
 *          exactly, or itself); BC_ERR_OUT_OF_MEMORY. On failure out is
 *          unchanged.
 *  @par Thread safety
 *  No other thread may use out during the call. */
BC_API bc_status bc_unary_out(bc_unary_op op, const bc_tensor* x, bc_tensor* out);

/** In-place form: self = op(self) (PyTorch's `x.exp_()`).
 *  @param[in]     op    The op.
 *  @param[in,out] self  Input and result; borrowed. Its dtype must hold
 *                       the result (`int64.exp_()` fails as in PyTorch).
 *  @return as bc_unary_out().
 *  @par Thread safety
 *  No other thread may use self during the call. */
BC_API bc_status bc_unary_(bc_unary_op op, bc_tensor* self);

/** bc_unary() with parameters.
 *  @param[in]  op      The op.
 *  @param[in]  x       Input; borrowed.
 *  @param[in]  params  The op's parameters, or NULL for PyTorch's
 *                      defaults; borrowed. A bit of `given` beyond the
 *                      op's parameters is BC_ERR_INVALID_ARGUMENT, as are
 *                      a gelu approximate other than BC_GELU_NONE or
 *                      BC_GELU_TANH, and hardtanh's min_val > max_val.
 *  @param[out] out     New contiguous tensor owned by the caller; NULL on
 *                      failure.
 *  @return as bc_unary().
 *  @par Thread safety
 *  x may be read by other threads at the same time. */
BC_API bc_status bc_unary_ex(bc_unary_op op, const bc_tensor* x, const bc_unary_params* params,
                             bc_tensor** out);
/** bc_unary_out() with parameters.
 *  @param[in]     op      The op.
 *  @param[in]     x       Input; borrowed.
 *  @param[in]     params  As bc_unary_ex()'s; NULL for the defaults.
 *  @param[in,out] out     Written; borrowed (as bc_unary_out()'s).
 *  @return as bc_unary_out().
 *  @par Thread safety
 *  No other thread may use out during the call. */
BC_API bc_status bc_unary_ex_out(bc_unary_op op, const bc_tensor* x,
                                 const bc_unary_params* params, bc_tensor* out);
/** bc_unary_() with parameters.
 *  @param[in]     op      The op.
 *  @param[in,out] self    Input and result; borrowed (as bc_unary_()'s).
 *  @param[in]     params  As bc_unary_ex()'s; NULL for the defaults.
 *  @return as bc_unary_out().
 *  @par Thread safety
 *  No other thread may use self during the call. */
BC_API bc_status bc_unary_ex_(bc_unary_op op, bc_tensor* self, const bc_unary_params* params);

/** A tensor of x's values in `dtype`, as PyTorch's `x.to(dtype)`: any
 *  conversion is allowed (as bc_copy_()). When x already has `dtype`, the
 *  result is a new handle on x's storage (a view, as PyTorch returns x
 *  itself); otherwise a new contiguous tensor.
 *  @param[in]  x      Input; borrowed.
 *  @param[in]  dtype  The result's dtype.
 *  @param[out] out    New tensor owned by the caller; NULL on failure.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT; BC_ERR_OUT_OF_MEMORY.
 *  @par Thread safety
 *  x may be read by other threads at the same time. */
BC_API bc_status bc_to(const bc_tensor* x, bc_dtype dtype, bc_tensor** out);

/** @} */

/**
 * @defgroup reduce Reductions
 *
 * PyTorch's reductions (`x.sum(dims, keepdim)`, `x.amax()`, `x.var()`)
 * over any dims of a tensor of any layout. `dims == NULL, ndims == 0`
 * reduces every dim; a dim may be negative (counted from the end), and a
 * 0-dim tensor takes dim 0 or -1. With `keepdim` the reduced dims stay as
 * size 1. Each op also takes a list of dims where PyTorch takes one
 * (prod, count_nonzero's keepdim), except argmax/argmin: one dim, or all
 * (then the index is into the row-major flattened tensor).
 *
 * Result dtypes are PyTorch's (the op table's result column, see
 * docs/reductions.md): integer and bool sum/nansum/prod give int64; mean,
 * nanmean, var and std take floating dtypes only; any/all give bool (uint8
 * for uint8); argmax/argmin and count_nonzero give int64; logsumexp gives
 * float32 for integers and bool. PyTorch's `dtype=` is
 * ::bc_reduce_params's `dtype`: the input is converted to it first.
 *
 * Numerics: integer, bool, amax/amin, argmax/argmin and count results are
 * exact. Floating sums accumulate in float64 (float32 elements exactly;
 * float16/bfloat16 in float32 lanes of 16 elements first; float64 with
 * compensated sums) in a fixed order, so the bits do not depend on the
 * thread count, the SIMD target or the CPU, and the result is rounded to
 * its dtype once. var/std are two-pass (the mean, then the squared
 * deviations). A NaN result of amax/amin is the default quiet NaN; among
 * equal zeros amax prefers +0 and amin -0.
 *
 * Statuses: BC_ERR_INVALID_ARGUMENT (NULL, an unknown op, a dim out of
 * range or listed twice, with PyTorch's texts: "Dimension out of range
 * (expected to be in range of [-2, 1], but got 2)", "dim 0 appears
 * multiple times in the list of dims"; an empty reduced dim for
 * amax/amin/argmax/argmin: "amax(): Expected reduction dim 0 to have
 * non-zero size."); BC_ERR_DTYPE (the op's dtype rule, with PyTorch's
 * text); BC_ERR_SHAPE_MISMATCH (an out= whose shape is not the result's:
 * never resized); BC_ERR_OVERLAP (out= overlaps the input);
 * BC_ERR_POLICY (var/std's "degrees of freedom is <= 0" warning raised as
 * an error); BC_ERR_OUT_OF_MEMORY. On failure nothing is written.
 * @{
 */

/* BEGIN GENERATED by tools/gen_ops.py from src/op_table.def: do not edit */
/** Reductions, PyTorch's names upper-cased. Values are pinned forever. */
typedef enum bc_reduce_op {
  BC_SUM = 0,            /**< Sum; integers and bool give int64. Sum of nothing
                              is 0. */
  BC_NANSUM = 1,         /**< Sum with NaN taken as 0. */
  BC_PROD = 2,           /**< Product; integers and bool give int64. Product of
                              nothing is 1. */
  BC_MEAN = 3,           /**< Mean; floating dtypes only (or dtype=). */
  BC_NANMEAN = 4,        /**< Mean of the values that are not NaN. */
  BC_AMAX = 5,           /**< Largest value; NaN if any is NaN. Refused over an
                              empty dim. */
  BC_AMIN = 6,           /**< Smallest value; NaN if any is NaN. Refused over an
                              empty dim. */
  BC_ARGMAX = 7,         /**< Index of the first largest value (the first NaN);
                              one dim or all. */
  BC_ARGMIN = 8,         /**< Index of the first smallest value (the first NaN);
                              one dim or all. */
  BC_ANY = 9,            /**< Whether any value is nonzero; bool, uint8 for
                              uint8. */
  BC_ALL = 10,           /**< Whether every value is nonzero; bool, uint8 for
                              uint8. */
  BC_COUNT_NONZERO = 11, /**< Number of nonzero values (NaN counts), int64. */
  BC_VAR = 12,           /**< Variance with `correction` (default 1),
                              two-pass. */
  BC_STD = 13,           /**< Square root of var. */
  BC_LOGSUMEXP = 14      /**< log(sum(exp(x))), computed as max + log(sum(exp(x
                              - max))). */
} bc_reduce_op;

/** Number of ::bc_reduce_op values. */
#define BC_REDUCE_OP_COUNT 15
/* END GENERATED */

/** ::bc_reduce_params `given` bit: `dtype` is given (PyTorch's dtype=). */
#define BC_REDUCE_DTYPE 1u
/** ::bc_reduce_params `given` bit: `correction` is given (var, std). */
#define BC_REDUCE_CORRECTION 2u

/** A reduction's optional arguments. A field whose bit in `given` is clear
 *  takes PyTorch's default (no dtype=; correction 1). Zero-initialise it:
 *  `bc_reduce_params p = {0};`. */
typedef struct bc_reduce_params {
  bc_dtype dtype;    /**< dtype= (sum, nansum, prod, mean, nanmean). */
  double correction; /**< var/std: divide by max(0, N - correction). */
  unsigned given;    /**< BC_REDUCE_DTYPE | BC_REDUCE_CORRECTION. */
} bc_reduce_params;

/** PyTorch's name of a reduction ("sum", "count_nonzero").
 *  @param[in] op  The op.
 *  @return A static string; "unknown" for a value outside ::bc_reduce_op. */
BC_API const char* bc_reduce_op_name(bc_reduce_op op);

/** out = op(x) over `dims`.
 *  @param[in]  op       The op.
 *  @param[in]  x        Input; borrowed. Any strides, 0-dim or empty.
 *  @param[in]  dims     `ndims` dims to reduce, each in [-ndim, ndim)
 *                       (a 0-dim x: 0 or -1); NULL with ndims 0 for every
 *                       dim; borrowed.
 *  @param[in]  ndims    0..#BC_MAX_DIMS.
 *  @param[in]  keepdim  Nonzero: reduced dims stay with size 1.
 *  @param[out] out      New contiguous tensor owned by the caller (free
 *                       with bc_tensor_free()); NULL on failure.
 *  @return See the group's statuses.
 *  @par Thread safety
 *  x may be read by other threads at the same time. */
BC_API bc_status bc_reduce(bc_reduce_op op, const bc_tensor* x, const int64_t* dims, size_t ndims,
                           int keepdim, bc_tensor** out);

/** out = op(x) over `dims`, written into an existing tensor.
 *  @param[in]     op       The op.
 *  @param[in]     x        Input; borrowed.
 *  @param[in]     dims     As bc_reduce()'s.
 *  @param[in]     ndims    As bc_reduce()'s.
 *  @param[in]     keepdim  As bc_reduce()'s.
 *  @param[in,out] out      Written; borrowed. Its shape must be the
 *                          result's (never resized). Its dtype follows
 *                          PyTorch's out= rule for the op: sum, nansum and
 *                          prod compute in out's dtype; mean, var, std and
 *                          logsumexp write into any dtype the result casts
 *                          to (logsumexp: a floating one); amax/amin need
 *                          x's dtype; argmax/argmin and count_nonzero
 *                          int64; any/all bool or uint8.
 *  @return See the group's statuses; on failure out is unchanged.
 *  @par Thread safety
 *  No other thread may use out during the call. */
BC_API bc_status bc_reduce_out(bc_reduce_op op, const bc_tensor* x, const int64_t* dims,
                               size_t ndims, int keepdim, bc_tensor* out);

/** bc_reduce() with optional arguments.
 *  @param[in]  op       The op.
 *  @param[in]  x        Input; borrowed.
 *  @param[in]  dims     As bc_reduce()'s.
 *  @param[in]  ndims    As bc_reduce()'s.
 *  @param[in]  keepdim  As bc_reduce()'s.
 *  @param[in]  params   NULL for the defaults; borrowed. A dtype= on an op
 *                       without one, a `given` bit beyond the two, or an
 *                       unknown dtype is BC_ERR_INVALID_ARGUMENT.
 *  @param[out] out      New contiguous tensor owned by the caller; NULL on
 *                       failure.
 *  @return as bc_reduce().
 *  @par Thread safety
 *  x may be read by other threads at the same time. */
BC_API bc_status bc_reduce_ex(bc_reduce_op op, const bc_tensor* x, const int64_t* dims,
                              size_t ndims, int keepdim, const bc_reduce_params* params,
                              bc_tensor** out);

/** bc_reduce_out() with optional arguments. With dtype= given, out's
 *  dtype must be that dtype ("Expected out tensor to have dtype float, but
 *  got double instead").
 *  @param[in]     op       The op.
 *  @param[in]     x        Input; borrowed.
 *  @param[in]     dims     As bc_reduce()'s.
 *  @param[in]     ndims    As bc_reduce()'s.
 *  @param[in]     keepdim  As bc_reduce()'s.
 *  @param[in]     params   As bc_reduce_ex()'s.
 *  @param[in,out] out      As bc_reduce_out()'s.
 *  @return as bc_reduce_out().
 *  @par Thread safety
 *  No other thread may use out during the call. */
BC_API bc_status bc_reduce_ex_out(bc_reduce_op op, const bc_tensor* x, const int64_t* dims,
                                  size_t ndims, int keepdim, const bc_reduce_params* params,
                                  bc_tensor* out);

/** PyTorch's `torch.max(x, dim, keepdim)`: the largest values along `dim`
 *  and the index of the first of each (the first NaN where there is one).
 *  bool is taken. An empty `dim` is refused ("max(): Expected reduction dim
 *  0 to have non-zero size.").
 *  @param[in]  x        Input; borrowed.
 *  @param[in]  dim      In [-ndim, ndim) (0 or -1 for a 0-dim x).
 *  @param[in]  keepdim  Nonzero: `dim` stays with size 1.
 *  @param[out] values   New tensor of x's dtype, owned by the caller.
 *  @param[out] indices  New BC_INT64 tensor, owned by the caller.
 *  @return as bc_reduce(); on failure both are set to NULL.
 *  @par Thread safety
 *  x may be read by other threads at the same time. */
BC_API bc_status bc_max_dim(const bc_tensor* x, int64_t dim, int keepdim, bc_tensor** values,
                            bc_tensor** indices);
/** PyTorch's `torch.min(x, dim, keepdim)`; as bc_max_dim().
 *  @param[in]  x        Input; borrowed.
 *  @param[in]  dim      As bc_max_dim()'s.
 *  @param[in]  keepdim  As bc_max_dim()'s.
 *  @param[out] values   As bc_max_dim()'s.
 *  @param[out] indices  As bc_max_dim()'s.
 *  @return as bc_max_dim().
 *  @par Thread safety
 *  x may be read by other threads at the same time. */
BC_API bc_status bc_min_dim(const bc_tensor* x, int64_t dim, int keepdim, bc_tensor** values,
                            bc_tensor** indices);
/** bc_max_dim() into existing tensors: `values` of x's dtype, `indices`
 *  BC_INT64 ("Expected out tensor to have dtype long int, but got int
 *  instead"), both of the result's shape; they may not overlap x or each
 *  other.
 *  @param[in]     x        Input; borrowed.
 *  @param[in]     dim      As bc_max_dim()'s.
 *  @param[in]     keepdim  As bc_max_dim()'s.
 *  @param[in,out] values   Written; borrowed.
 *  @param[in,out] indices  Written; borrowed.
 *  @return as bc_reduce_out().
 *  @par Thread safety
 *  No other thread may use values or indices during the call. */
BC_API bc_status bc_max_dim_out(const bc_tensor* x, int64_t dim, int keepdim, bc_tensor* values,
                                bc_tensor* indices);
/** bc_min_dim() into existing tensors; as bc_max_dim_out().
 *  @param[in]     x        Input; borrowed.
 *  @param[in]     dim      As bc_max_dim()'s.
 *  @param[in]     keepdim  As bc_max_dim()'s.
 *  @param[in,out] values   Written; borrowed.
 *  @param[in,out] indices  Written; borrowed.
 *  @return as bc_max_dim_out().
 *  @par Thread safety
 *  No other thread may use values or indices during the call. */
BC_API bc_status bc_min_dim_out(const bc_tensor* x, int64_t dim, int keepdim, bc_tensor* values,
                                bc_tensor* indices);

/** @} */

/** @name Scalar operands
 *  A ::bc_scalar operand is what PyTorch makes of a Python number: a 0-dim
 *  tensor flagged as a *wrapped number* (int64 for BC_SCALAR_INT, float64
 *  for BC_SCALAR_FLOAT, bool for BC_SCALAR_BOOL) whose tier in type
 *  promotion is the weakest (see bc_result_type()): it decides the result
 *  dtype only when it is of a higher category than every tensor, a float
 *  then giving float32. So an int32 tensor times 0.5 is float32, a float16
 *  tensor plus 2.5 is float16, a uint8 tensor plus 300 is uint8. Its value
 *  is converted from int64 or double straight to the op's common dtype, as
 *  PyTorch's TensorIterator does (uint8 + 300 adds 44, wrapping); on float16
 *  and bfloat16, mul, div, div_trunc, div_floor with the number second and
 *  lerp's weight use the number unrounded, in float32 (PyTorch 2.x's
 *  original_scalar_value / opmath), the others round it to the half type.
 *  pow with a number exponent is PyTorch's pow(Tensor, Scalar): 0 gives
 *  ones and 1 a copy on every dtype; on float32, float64 and bfloat16
 *  0.5, -0.5 and -1 are exact sqrt, 1/sqrt and reciprocal, 2, 3 and -2
 *  products (x*x, x*x*x, 1/(x*x); bfloat16 compares the exponent rounded to
 *  bfloat16); float16 and other exponents run pow; integer tensors with a
 *  negative integer exponent fail ("Integers to negative integer powers are
 *  not allowed."). A number base of 1 (pow(Scalar, Tensor)) gives ones.
 *  Every op taking tensors takes bc_tensor_from_scalar()'s tensors in any
 *  position with the same meaning; the direct forms below avoid the
 *  allocation. The reflected forms compute op(number, tensor), i.e. torch's
 *  functional form `torch.sub(2, x)`; note that Python's `2 / x` operator
 *  is `x.reciprocal() * 2` instead, which may round differently.
 *  @{ */

/** A new 0-dim wrapped-number tensor holding `s` (int64, float64 or bool),
 *  usable as any operand of any op, where it promotes as a number. Only
 *  this handle is a wrapped number: views of it (bc_tensor_view(),
 *  bc_expand()) and clones are ordinary 0-dim or expanded tensors, as in
 *  PyTorch.
 *  @param[in]  s    The number; its kind must be a ::bc_scalar_kind value.
 *  @param[out] out  Receives a new tensor owned by the caller, to be
 *                   released with bc_tensor_free(); NULL on failure.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT (`out` NULL or an unknown kind);
 *          BC_ERR_OUT_OF_MEMORY.
 *  @par Thread safety
 *  Any thread may call it at any time. */
BC_API bc_status bc_tensor_from_scalar(bc_scalar s, bc_tensor** out);
/** Whether `t` is a wrapped number (made by bc_tensor_from_scalar()).
 *  @param[in] t  The tensor; borrowed. NULL gives 0.
 *  @return 1 or 0.
 *  @par Thread safety
 *  `t` may be used by other threads at the same time. */
BC_API int bc_tensor_is_wrapped_number(const bc_tensor* t);

/** out = op(a, b) with `b` a number (PyTorch's `op(a, b)` with a Python
 *  number b: `a * 0.5`, `a ** 2`); nothing is allocated but the result.
 *  @param[in]  op   The operation (any ::bc_op).
 *  @param[in]  a    Tensor operand; borrowed.
 *  @param[in]  b    Number operand.
 *  @param[out] out  Receives a new tensor owned by the caller, to be
 *                   released with bc_tensor_free(); NULL on failure.
 *  @return As bc_binary(); BC_ERR_INVALID_ARGUMENT also for an unknown
 *          scalar kind or an integer pow exponent below 0 on an integer or
 *          bool tensor.
 *  @par Thread safety
 *  The inputs may be read by other threads at the same time. */
BC_API bc_status bc_binary_scalar(bc_op op, const bc_tensor* a, bc_scalar b, bc_tensor** out);
/** Writes op(a, b), `b` a number, into `out`, converting to out's dtype.
 *  @param[in]     op   The operation.
 *  @param[in]     a    Tensor operand; borrowed. May be `out` itself.
 *  @param[in]     b    Number operand.
 *  @param[in,out] out  Tensor written with the result; borrowed. Its shape
 *                      must equal a's.
 *  @return As bc_binary_out(); BC_ERR_INVALID_ARGUMENT also for an unknown
 *          scalar kind.
 *  @par Thread safety
 *  No other thread may use the written tensor during the call; the inputs
 *  may be read by other threads at the same time. */
BC_API bc_status bc_binary_scalar_out(bc_op op, const bc_tensor* a, bc_scalar b, bc_tensor* out);
/** self = op(self, b) in place, `b` a number (`x *= 0.5`); the result
 *  dtype must be castable to self's ("result type Float can't be cast to
 *  the desired output type Int").
 *  @param[in]     op    The operation.
 *  @param[in,out] self  Tensor operand and result; borrowed.
 *  @param[in]     b     Number operand.
 *  @return As bc_binary_(); BC_ERR_INVALID_ARGUMENT also for an unknown
 *          scalar kind.
 *  @par Thread safety
 *  No other thread may use the written tensor during the call. */
BC_API bc_status bc_binary_scalar_(bc_op op, bc_tensor* self, bc_scalar b);
/** out = op(a, b) with `a` a number: the reflected form (`torch.sub(2, x)`,
 *  `torch.pow(2, x)`, `torch.div(1, x)`).
 *  @param[in]  op   The operation.
 *  @param[in]  a    Number operand.
 *  @param[in]  b    Tensor operand; borrowed.
 *  @param[out] out  Receives a new tensor owned by the caller, to be
 *                   released with bc_tensor_free(); NULL on failure.
 *  @return As bc_binary_scalar().
 *  @par Thread safety
 *  The inputs may be read by other threads at the same time. */
BC_API bc_status bc_binary_rscalar(bc_op op, bc_scalar a, const bc_tensor* b, bc_tensor** out);
/** Writes op(a, b), `a` a number, into `out`.
 *  @param[in]     op   The operation.
 *  @param[in]     a    Number operand.
 *  @param[in]     b    Tensor operand; borrowed. May be `out` itself.
 *  @param[in,out] out  Tensor written with the result; borrowed. Its shape
 *                      must equal b's.
 *  @return As bc_binary_scalar_out().
 *  @par Thread safety
 *  No other thread may use the written tensor during the call; the inputs
 *  may be read by other threads at the same time. */
BC_API bc_status bc_binary_rscalar_out(bc_op op, bc_scalar a, const bc_tensor* b,
                                       bc_tensor* out);

/** PyTorch's clamp(Tensor, Scalar? min, Scalar? max): lo or hi may be NULL
 *  (not both). A floating x keeps its dtype; otherwise x and the bounds
 *  promote as numbers (an int32 x with 2.5 gives float32). Bounds are
 *  converted to that dtype: floats must fit it ("value cannot be converted
 *  to type c10::Half without overflow"); on integer dtypes a lower bound
 *  above the dtype's range ("Clamp min value 300 is outside the
 *  representable range of Byte"), or an upper bound below it, fails, one
 *  past the other side limits nothing. A NaN bound gives NaN everywhere.
 *  Bool is refused ("clamp_scalar_cpu" not implemented for 'Bool').
 *  @param[in]  x    Values to clamp; borrowed.
 *  @param[in]  lo   Lower bound, or NULL for none; read during the call.
 *  @param[in]  hi   Upper bound, or NULL for none; read during the call.
 *  @param[out] out  Receives a new tensor owned by the caller, to be
 *                   released with bc_tensor_free(); NULL on failure.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT (also both bounds NULL, an unknown
 *          scalar kind, a bound out of range); BC_ERR_DTYPE; BC_ERR_OVERFLOW;
 *          BC_ERR_OUT_OF_MEMORY (see @ref ops).
 *  @par Thread safety
 *  The inputs may be read by other threads at the same time. */
BC_API bc_status bc_clamp_scalar(const bc_tensor* x, const bc_scalar* lo, const bc_scalar* hi,
                                 bc_tensor** out);
/** out= form of bc_clamp_scalar().
 *  @param[in]     x    Values to clamp; borrowed. May be `out` itself.
 *  @param[in]     lo   Lower bound, or NULL for none.
 *  @param[in]     hi   Upper bound, or NULL for none.
 *  @param[in,out] out  Tensor written with the result; borrowed. Its shape
 *                      must equal x's.
 *  @return As bc_clamp_scalar(); BC_ERR_SHAPE_MISMATCH; BC_ERR_OVERLAP.
 *  @par Thread safety
 *  No other thread may use the written tensor during the call; the inputs
 *  may be read by other threads at the same time. */
BC_API bc_status bc_clamp_scalar_out(const bc_tensor* x, const bc_scalar* lo,
                                     const bc_scalar* hi, bc_tensor* out);
/** In-place form of bc_clamp_scalar(); the result dtype must be self's.
 *  @param[in,out] self  Values to clamp and result; borrowed.
 *  @param[in]     lo    Lower bound, or NULL for none.
 *  @param[in]     hi    Upper bound, or NULL for none.
 *  @return As bc_clamp_scalar_out().
 *  @par Thread safety
 *  No other thread may use the written tensor during the call. */
BC_API bc_status bc_clamp_scalar_(bc_tensor* self, const bc_scalar* lo, const bc_scalar* hi);

/** PyTorch's lerp(Tensor start, Tensor end, Scalar weight): start and end
 *  of one floating dtype, the weight a number used unrounded (in float32 on
 *  float16 and bfloat16). Other dtypes fail with "lerp_kernel_scalar" not
 *  implemented for 'Long'.
 *  @param[in]  start   Value at weight 0; borrowed.
 *  @param[in]  end     Value at weight 1; borrowed.
 *  @param[in]  weight  Interpolation weight.
 *  @param[out] out     Receives a new tensor owned by the caller, to be
 *                      released with bc_tensor_free(); NULL on failure.
 *  @return As bc_lerp(); BC_ERR_INVALID_ARGUMENT also for an unknown scalar
 *          kind.
 *  @par Thread safety
 *  The inputs may be read by other threads at the same time. */
BC_API bc_status bc_lerp_scalar(const bc_tensor* start, const bc_tensor* end, bc_scalar weight,
                                bc_tensor** out);
/** out= form of bc_lerp_scalar().
 *  @param[in]     start   Value at weight 0; borrowed.
 *  @param[in]     end     Value at weight 1; borrowed.
 *  @param[in]     weight  Interpolation weight.
 *  @param[in,out] out     Tensor written with the result; borrowed. Its
 *                         shape must equal the broadcast shape.
 *  @return As bc_lerp_out().
 *  @par Thread safety
 *  No other thread may use the written tensor during the call; the inputs
 *  may be read by other threads at the same time. */
BC_API bc_status bc_lerp_scalar_out(const bc_tensor* start, const bc_tensor* end,
                                    bc_scalar weight, bc_tensor* out);
/** In-place form of bc_lerp_scalar(): self += weight * (end - self).
 *  @param[in,out] self    Start value and result; borrowed.
 *  @param[in]     end     Value at weight 1; borrowed.
 *  @param[in]     weight  Interpolation weight.
 *  @return As bc_lerp_().
 *  @par Thread safety
 *  No other thread may use the written tensor during the call; `end` may be
 *  read by other threads at the same time. */
BC_API bc_status bc_lerp_scalar_(bc_tensor* self, const bc_tensor* end, bc_scalar weight);

/** @} */

/** @} */

/**
 * @defgroup iter Host kernels: the broadcast iterator
 * A host's own elementwise function run on bcast's broadcasting and
 * executor (NumPy's NpyIter and PyTorch's TensorIterator are the models):
 * the host names its inputs and an output, bcast checks them as it checks
 * its own ops (broadcasting with the context's warning and policy, out='s
 * shape, overlaps, read-only tensors), plans the iteration (dims sorted
 * and coalesced, stride-0 operands, transposed tiles, threads) and calls
 * the host's loop over 2-D blocks. Operands whose dtype differs from the
 * dtype the loop asks for are converted in buffers a tile at a time, as
 * copy_ converts.
 *
 * The loop sees operand k (0 the output, then the inputs in order) as
 * `n1` rows of `n0` elements: element i of row j (i < n0, j < n1) at
 * `data[k] + i*strides[k] + j*strides[nops + k]` bytes. The inner stride `strides[k]` is always the
 * element size of the loop dtype (contiguous) or 0 (one value repeated
 * along the row, for inputs), so a loop can specialise on it; the outer
 * stride is any value (0 when n1 == 1). Elements come in memory order of
 * the output, not in index order.
 *
 * The loop writes every element of its output rows, and may read them
 * first: they always hold initialised bytes (a host may view them as typed
 * values, as Rust's `&mut [T]`). A row is either the output tensor's own
 * memory, holding the tensor's values (an output the iterator allocates is
 * zero-filled), or a buffer of bcast's: a streamed tile, a converted
 * output's tile or a strided output's chunk. Each such buffer is
 * zero-filled when first used in a range of the run (a part of the
 * iteration on one thread; in pull mode one bc_iter_run_chunk() call), not
 * for each block, and reused for later blocks of the range: it holds zeros
 * or values the loop wrote there for an earlier block.
 *
 * Functions taking a ::bc_iter report failures on the context the iterator
 * was made on (bc_ctx_iter_new()), except bc_iter_run_chunk(), which may
 * run on many threads at once and only returns its status.
 * @{
 */

/** The most operands of an iterator: the output and up to 3 inputs. */
#define BC_ITER_MAX_OPERANDS 4

/** A planned iteration over an output and its broadcast inputs. */
typedef struct bc_iter bc_iter;

/** The host's loop over one 2-D block (PyTorch's loop2d).
 *  @param[in] user     The pointer given to bc_iter_run() or
 *                      bc_iter_run_chunk(), unchanged.
 *  @param[in] data     nops pointers: the output's first element of the
 *                      block, then each input's.
 *  @param[in] strides  2*nops byte strides: nops inner ones (along a row:
 *                      the loop dtype's size, or 0 for an input repeated
 *                      along the row), then nops outer ones (between rows).
 *  @param[in] n0       Elements per row (at least 1).
 *  @param[in] n1       Rows (at least 1).
 *  @return 0 to go on; any other value stops the run: bc_iter_run() and
 *          bc_iter_run_chunk() return BC_ERR_CALLBACK, and
 *          bc_iter_callback_code() gives the value. Blocks already started
 *          on other threads finish; no new one starts.
 *  @par Thread safety
 *  Unless the iterator was made with BC_ITER_SERIAL, the loop runs on
 *  several threads at once, on disjoint blocks. */
typedef int (*bc_loop2d_fn)(void* user, char* const* data, const int64_t* strides, int64_t n0,
                            int64_t n1);

/** bc_iter_spec::flags: run the loop on the calling thread only (for a
 *  loop that is not thread-safe). bc_iter_run_chunk() is unaffected. */
#define BC_ITER_SERIAL 1u
/** bc_iter_spec::flags: always give the loop the output's own memory.
 *  Without it, a large output that bcast would write with streaming stores
 *  reaches the loop as an L1 tile of up to 8 KiB, which bcast then streams
 *  out (the output is never read for ownership): more, smaller calls. For
 *  hosts whose calls cost more than that saves (Go's cgo callbacks). */
#define BC_ITER_DIRECT_OUTPUT 2u

/** What an iterator runs on. */
typedef struct bc_iter_spec {
  /** The inputs, borrowed: `nin` tensors that broadcast together. The
   *  iterator keeps their storage alive; their data must not be changed by
   *  others while it runs. */
  const bc_tensor* const* inputs;
  /** The number of inputs: 1 to #BC_ITER_MAX_OPERANDS - 1. */
  size_t nin;
  /** The output, borrowed, of the broadcast shape; written by the loop.
   *  It may be an input itself (in place) but may share no other byte
   *  with an input. NULL: the iterator allocates one (contiguous, of
   *  `out_dtype`, zero-filled), given by bc_iter_output(). */
  bc_tensor* out;
  /** Dtype of an allocated output; ignored when `out` is given. */
  bc_dtype out_dtype;
  /** NULL: the loop sees every operand in its own dtype. Else nin + 1
   *  dtypes, the output's first: the dtype the loop reads (writes) that
   *  operand in, converted from (to) the tensor's in buffers, as
   *  bc_copy_() converts. */
  const bc_dtype* loop_dtypes;
  /** 0, or BC_ITER_SERIAL and BC_ITER_DIRECT_OUTPUT or'ed. */
  unsigned flags;
} bc_iter_spec;

/** Checks the operands and plans the iteration; on the default context
 *  (see bc_ctx_iter_new()).
 *  @param[in]  spec  The operands; read during the call.
 *  @param[out] it    Receives the iterator, to be released with
 *                    bc_iter_free(); NULL on failure.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT (NULL pointers, nin outside 1..3,
 *          an unknown dtype or flag, a read-only output);
 *          BC_ERR_NOT_BROADCASTABLE; BC_ERR_POLICY (the context's broadcast
 *          policy, or a warning raised as an error); BC_ERR_SHAPE_MISMATCH
 *          (`out` not of the broadcast shape: "output with shape [2] doesn't
 *          match the broadcast shape []"); BC_ERR_OVERLAP (PyTorch's
 *          texts); BC_ERR_OVERFLOW; BC_ERR_OUT_OF_MEMORY. The broadcast
 *          warnings of the context are sent here.
 *  @par Thread safety
 *  The inputs may be read by other threads at the same time. */
BC_API bc_status bc_iter_new(const bc_iter_spec* spec, bc_iter** it);

/** Frees an iterator (NULL does nothing). An output it allocated stays
 *  alive while a handle from bc_iter_output() holds it.
 *  @param[in] it  The iterator; owned. */
BC_API void bc_iter_free(bc_iter* it);

/** A new handle on the iterator's output (the one given, or allocated).
 *  @param[in]  it   The iterator; borrowed.
 *  @param[out] out  Receives a tensor owned by the caller, to be released
 *                   with bc_tensor_free(); NULL on failure.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT (NULL); BC_ERR_OUT_OF_MEMORY.
 *  @par Thread safety
 *  Not while the iterator runs. */
BC_API bc_status bc_iter_output(const bc_iter* it, bc_tensor** out);

/** The number of elements of the broadcast shape.
 *  @param[in] it  The iterator; borrowed.
 *  @return The count (0 when empty, or for NULL). */
BC_API int64_t bc_iter_numel(const bc_iter* it);

/** Runs `loop` over every element: on the calling thread and the
 *  context's threads (OpenMP or the context's scheduler), as bcast's own
 *  ops do, unless BC_ITER_SERIAL. May be called again (the loop may
 *  differ).
 *  @param[in] it    The iterator; borrowed.
 *  @param[in] loop  The host's loop.
 *  @param[in] user  Passed to `loop` unchanged.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT (NULL `it` or `loop`);
 *          BC_ERR_CALLBACK (the loop returned nonzero: the output is then
 *          partly written).
 *  @par Thread safety
 *  One run (bc_iter_run() or a set of bc_iter_run_chunk()) at a time. */
BC_API bc_status bc_iter_run(bc_iter* it, bc_loop2d_fn loop, void* user);

/** Pull mode: the number of chunks the iteration splits into. Fixed when
 *  the iterator is planned: 32768 elements or more each, at most 1024
 *  chunks.
 *  @param[in] it  The iterator; borrowed.
 *  @return The count (0 for an empty shape, or for NULL). */
BC_API size_t bc_iter_num_chunks(const bc_iter* it);

/** Pull mode: runs chunk `i` on the calling thread. The host runs every
 *  chunk once, on threads of its own (Go: goroutines), in any order and
 *  at once: bcast starts no thread and never calls back from one of its
 *  own. A chunk after a failed one (on any thread) returns BC_ERR_CALLBACK
 *  without running.
 *  @param[in] it    The iterator; borrowed.
 *  @param[in] i     0 <= i < bc_iter_num_chunks().
 *  @param[in] loop  The host's loop.
 *  @param[in] user  Passed to `loop` unchanged.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT (NULL, i out of range);
 *          BC_ERR_CALLBACK. Nothing is recorded in the context: the caller
 *          reports the status (a set of chunks has one caller per chunk).
 *  @par Thread safety
 *  Distinct chunks of one iterator may run at the same time. */
BC_API bc_status bc_iter_run_chunk(bc_iter* it, size_t i, bc_loop2d_fn loop, void* user);

/** The first nonzero value a loop returned since the iterator was made,
 *  last reset (bc_iter_reset(), bc_iter_clear_failure()) or last run with
 *  bc_iter_run(), which starts afresh.
 *  @param[in] it  The iterator; borrowed.
 *  @return The value; 0 if none, or for NULL. */
BC_API int bc_iter_callback_code(const bc_iter* it);

/** Forgets a loop's failure, so that chunks run again.
 *  @param[in] it  The iterator; borrowed. NULL does nothing. */
BC_API void bc_iter_clear_failure(bc_iter* it);

/** Points the iterator at new operands with the same shapes and dtypes as
 *  the ones it was made with (strides may differ), checked as
 *  bc_iter_new() checks them; forgets a loop's failure.
 *  @param[in] it      The iterator; borrowed.
 *  @param[in] inputs  nin inputs, as bc_iter_spec::inputs.
 *  @param[in] out     The output, or NULL to allocate a new one.
 *  @return As bc_iter_new(); BC_ERR_SHAPE_MISMATCH or BC_ERR_DTYPE for an
 *          operand whose shape or dtype differs. On failure the iterator
 *          keeps its operands.
 *  @par Thread safety
 *  Not while the iterator runs. */
BC_API bc_status bc_iter_reset(bc_iter* it, const bc_tensor* const* inputs, bc_tensor* out);

/** @} */

/**
 * @defgroup expr Fused expressions
 * A chain of elementwise ops over broadcast inputs, run in one pass:
 * `where(x > 0, x, 0.1 * x)` reads x once and writes its result once, its
 * intermediates staying in cache. The result is bit for bit the result of
 * the same ops run one by one (and so PyTorch eager's): every node has the
 * dtype, the rounding and the errors its eager op has, numbers are wrapped
 * numbers as in Python, and nothing is fused into a multiply-add that the
 * eager chain would not do. See docs/expressions.md.
 *
 * An expression is a list of nodes: inputs, numbers and ops of the op table
 * called by name, each on nodes made before it. Its value is its last node.
 * Build one with bc_expr_new() and the bc_expr_input(), bc_expr_number()
 * and bc_expr_call() builders, or parse one with bc_expr_parse().
 * Builders and bc_expr_parse() record failures in the calling thread's
 * slot, like the ops without a context.
 * @{
 */

/** An expression over a fixed number of inputs. */
typedef struct bc_expr bc_expr;

/** The most nodes an expression may have. */
#define BC_EXPR_MAX_NODES 65536

/** A new expression with no nodes over `ninputs` inputs.
 *  @param[in]  ninputs  The inputs evaluation takes (0 to
 *                       #BC_EXPR_MAX_NODES).
 *  @param[out] e        Receives the expression, to be released with
 *                       bc_expr_free(); NULL on failure.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT; BC_ERR_OUT_OF_MEMORY. */
BC_API bc_status bc_expr_new(size_t ninputs, bc_expr** e);

/** Frees an expression (NULL does nothing).
 *  @param[in] e  The expression; owned. */
BC_API void bc_expr_free(bc_expr* e);

/** Adds a node that is input `index`.
 *  @param[in]  e      The expression; borrowed.
 *  @param[in]  index  Which input: 0 to the input count - 1.
 *  @param[out] node   Receives the node's number (may be NULL).
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT (NULL, index out of range, too
 *          many nodes); BC_ERR_OUT_OF_MEMORY.
 *  @par Thread safety
 *  Not while another thread builds or evaluates `e`. */
BC_API bc_status bc_expr_input(bc_expr* e, int64_t index, int32_t* node);

/** Adds a number node: a wrapped number, as PyTorch wraps a Python number
 *  (the weakest tier of type promotion).
 *  @param[in]  e      The expression; borrowed.
 *  @param[in]  value  The number; read during the call.
 *  @param[out] node   Receives the node's number (may be NULL).
 *  @return As bc_expr_input(). */
BC_API bc_status bc_expr_number(bc_expr* e, const bc_scalar* value, int32_t* node);

/** Adds an op node: an op of the table by its name (bc_op_name(),
 *  bc_unary_op_name(), or where, clamp, lerp, addcmul, addcdiv) on earlier
 *  nodes. A unary op with parameters takes them as trailing number nodes
 *  (`hardtanh(x, -2, 2)`); addcmul and addcdiv take `value` as an optional
 *  fourth number node; clamp's bounds may be numbers (PyTorch's
 *  clamp(Tensor, Scalar, Scalar)) or nodes. add and sub take no alpha.
 *  @param[in]  e      The expression; borrowed.
 *  @param[in]  op     The op's name; read during the call.
 *  @param[in]  args   nargs node numbers; read during the call.
 *  @param[in]  nargs  The number of operands.
 *  @param[out] node   Receives the node's number (may be NULL).
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT (an unknown op, a wrong number
 *          of operands, a node that does not exist yet, a parameter that is
 *          not a number node); BC_ERR_OUT_OF_MEMORY. Dtype errors come at
 *          evaluation, with the eager op's text. */
BC_API bc_status bc_expr_call(bc_expr* e, const char* op, const int32_t* args, size_t nargs,
                              int32_t* node);

/** Parses an expression in Python's syntax: numbers (`2`, `0.1`, `1e-3`,
 *  `True`, `False`), the input names, parentheses, calls of the op table's
 *  names, and the operators, by Python's precedence from the loosest:
 *  comparisons (`<` `<=` `>` `>=` `==` `!=`, not chained), `|`, `^`, `&`,
 *  `<<` `>>`, `+` `-`, `*` `/` `//` `%`, unary `-` `+` `~`, `**`. So
 *  `x > 0 & y` is `x > (0 & y)`, as in Python: write `(x > 0) & y`. `/` is
 *  true division, `//` div_floor, `%` remainder, `~` bitwise_not; `-2` is
 *  the number -2. See docs/expressions.md.
 *  @param[in]  text    The expression, NUL-terminated; read during the call.
 *  @param[in]  names   nnames input names (input i is names[i]); read
 *                      during the call.
 *  @param[in]  nnames  The number of inputs.
 *  @param[out] e       Receives the expression; NULL on failure.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT, with the position in the
 *          message ("at column 7: expected ')'"); BC_ERR_OUT_OF_MEMORY. */
BC_API bc_status bc_expr_parse(const char* text, const char* const* names, size_t nnames, bc_expr** e);

/** The number of nodes of an expression.
 *  @param[in] e  The expression; borrowed.
 *  @return Its nodes; 0 for NULL. */
BC_API size_t bc_expr_num_nodes(const bc_expr* e);

/** Evaluates the expression on `inputs` into a new tensor of the last
 *  node's shape and dtype.
 *  @param[in]  e        The expression; borrowed.
 *  @param[in]  inputs   ninputs tensors (as many as the expression has
 *                       inputs; inputs no node uses are not read).
 *  @param[in]  ninputs  The number of inputs.
 *  @param[out] out      Receives the result; NULL on failure.
 *  @return BC_OK, or what the first failing op of the eager chain returns,
 *          with its text; BC_ERR_INVALID_ARGUMENT for NULL pointers, a
 *          wrong input count, an empty expression, or legacy pointwise
 *          mode (expressions broadcast only).
 *  @par Thread safety
 *  Several threads may evaluate one expression at once. */
BC_API bc_status bc_expr_eval(bc_expr* e, const bc_tensor* const* inputs, size_t ninputs, bc_tensor** out);

/** Evaluates the expression into `out`, which must have the result's shape.
 *  Its dtype may differ where the last op's out= form allows it. `out` may
 *  be an input itself (the same view), but may share no other memory with
 *  an input. On failure `out` is unchanged.
 *  @param[in]  e        The expression; borrowed.
 *  @param[in]  inputs   ninputs tensors, as for bc_expr_eval().
 *  @param[in]  ninputs  The number of inputs.
 *  @param[in]  out      The tensor written; borrowed.
 *  @return As bc_expr_eval(); BC_ERR_SHAPE_MISMATCH, BC_ERR_OVERLAP and
 *          BC_ERR_DTYPE as the last op's out= form. */
BC_API bc_status bc_expr_eval_out(bc_expr* e, const bc_tensor* const* inputs, size_t ninputs, bc_tensor* out);

/** @} */

/**
 * @defgroup ctxforms Context forms
 * `bc_ctx_x(ctx, ...)` is `bc_x(...)` run on a context: the context's
 * settings, warning handler and thread budget apply, and a failure is
 * recorded in the context (bc_ctx_last_error()) instead of the calling
 * thread. With `ctx` NULL each is exactly its `bc_x` form. A binding reads
 * the error of a context in a later call, from any thread (Go needs no C
 * wrapper per function to stay on one OS thread).
 * @{
 */
/** @copydoc bc_tensor_empty
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_tensor_empty(bc_ctx* ctx, bc_dtype dtype, const int64_t* shape, size_t ndim,
                                     bc_tensor** out);
/** @copydoc bc_tensor_zeros
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_tensor_zeros(bc_ctx* ctx, bc_dtype dtype, const int64_t* shape, size_t ndim,
                                     bc_tensor** out);
/** @copydoc bc_tensor_from_data
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_tensor_from_data(bc_ctx* ctx, bc_dtype dtype, const int64_t* shape,
                                         size_t ndim, const void* data, bc_tensor** out);
/** @copydoc bc_tensor_wrap
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_tensor_wrap(bc_ctx* ctx, bc_dtype dtype, const int64_t* shape,
                                    const int64_t* strides, size_t ndim, void* data, size_t nbytes,
                                    bc_deleter deleter, void* deleter_ctx, bc_tensor** out);
/** @copydoc bc_tensor_view
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_tensor_view(bc_ctx* ctx, const bc_tensor* t, bc_tensor** out);
/** @copydoc bc_tensor_clone
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_tensor_clone(bc_ctx* ctx, const bc_tensor* t, bc_tensor** out);
/** @copydoc bc_tensor_copy_to
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_tensor_copy_to(bc_ctx* ctx, const bc_tensor* t, void* dst, size_t nbytes);
/** @copydoc bc_result_type
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_result_type(bc_ctx* ctx, const bc_tensor* const* tensors, size_t ntensors,
                                    const bc_scalar* scalars, size_t nscalars, bc_dtype* out);
/** @copydoc bc_broadcast_shapes
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_broadcast_shapes(bc_ctx* ctx, const int64_t* a, size_t na, const int64_t* b,
                                         size_t nb, int64_t* out, size_t out_capacity,
                                         size_t* nout);
/** @copydoc bc_broadcast_shapes_n
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_broadcast_shapes_n(bc_ctx* ctx, const int64_t* const* shapes,
                                           const size_t* ndims, size_t count, int64_t* out,
                                           size_t out_capacity, size_t* nout);
/** @copydoc bc_expand
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_expand(bc_ctx* ctx, const bc_tensor* t, const int64_t* shape, size_t ndim,
                               bc_tensor** view);
/** @copydoc bc_broadcast_tensors
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_broadcast_tensors(bc_ctx* ctx, const bc_tensor* const* tensors,
                                          size_t count, bc_tensor** views, size_t views_capacity);
/** @copydoc bc_sum_to_shape
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_sum_to_shape(bc_ctx* ctx, const bc_tensor* t, const int64_t* shape,
                                     size_t ndim, bc_tensor** out);
/** @copydoc bc_binary
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_binary(bc_ctx* ctx, bc_op op, const bc_tensor* a, const bc_tensor* b,
                               bc_tensor** out);
/** @copydoc bc_binary_out
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_binary_out(bc_ctx* ctx, bc_op op, const bc_tensor* a, const bc_tensor* b,
                                   bc_tensor* out);
/** @copydoc bc_binary_
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_binary_(bc_ctx* ctx, bc_op op, bc_tensor* self, const bc_tensor* other);
/** @copydoc bc_binary_alpha
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_binary_alpha(bc_ctx* ctx, bc_op op, const bc_tensor* a, const bc_tensor* b,
                                     double alpha, bc_tensor** out);
/** @copydoc bc_binary_alpha_out
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_binary_alpha_out(bc_ctx* ctx, bc_op op, const bc_tensor* a,
                                         const bc_tensor* b, double alpha, bc_tensor* out);
/** @copydoc bc_binary_alpha_
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_binary_alpha_(bc_ctx* ctx, bc_op op, bc_tensor* self,
                                      const bc_tensor* other, double alpha);
/** @copydoc bc_where
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_where(bc_ctx* ctx, const bc_tensor* cond, const bc_tensor* a,
                              const bc_tensor* b, bc_tensor** out);
/** @copydoc bc_where_out
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_where_out(bc_ctx* ctx, const bc_tensor* cond, const bc_tensor* a,
                                  const bc_tensor* b, bc_tensor* out);
/** @copydoc bc_where_
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_where_(bc_ctx* ctx, bc_tensor* self, const bc_tensor* cond,
                               const bc_tensor* other);
/** @copydoc bc_addcmul
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_addcmul(bc_ctx* ctx, const bc_tensor* self, const bc_tensor* t1,
                                const bc_tensor* t2, double value, bc_tensor** out);
/** @copydoc bc_addcmul_out
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_addcmul_out(bc_ctx* ctx, const bc_tensor* self, const bc_tensor* t1,
                                    const bc_tensor* t2, double value, bc_tensor* out);
/** @copydoc bc_addcmul_
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_addcmul_(bc_ctx* ctx, bc_tensor* self, const bc_tensor* t1,
                                 const bc_tensor* t2, double value);
/** @copydoc bc_addcdiv
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_addcdiv(bc_ctx* ctx, const bc_tensor* self, const bc_tensor* t1,
                                const bc_tensor* t2, double value, bc_tensor** out);
/** @copydoc bc_addcdiv_out
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_addcdiv_out(bc_ctx* ctx, const bc_tensor* self, const bc_tensor* t1,
                                    const bc_tensor* t2, double value, bc_tensor* out);
/** @copydoc bc_addcdiv_
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_addcdiv_(bc_ctx* ctx, bc_tensor* self, const bc_tensor* t1,
                                 const bc_tensor* t2, double value);
/** @copydoc bc_lerp
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_lerp(bc_ctx* ctx, const bc_tensor* start, const bc_tensor* end,
                             const bc_tensor* weight, bc_tensor** out);
/** @copydoc bc_lerp_out
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_lerp_out(bc_ctx* ctx, const bc_tensor* start, const bc_tensor* end,
                                 const bc_tensor* weight, bc_tensor* out);
/** @copydoc bc_lerp_
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_lerp_(bc_ctx* ctx, bc_tensor* self, const bc_tensor* end,
                              const bc_tensor* weight);
/** @copydoc bc_clamp
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_clamp(bc_ctx* ctx, const bc_tensor* x, const bc_tensor* lo,
                              const bc_tensor* hi, bc_tensor** out);
/** @copydoc bc_clamp_out
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_clamp_out(bc_ctx* ctx, const bc_tensor* x, const bc_tensor* lo,
                                  const bc_tensor* hi, bc_tensor* out);
/** @copydoc bc_clamp_
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_clamp_(bc_ctx* ctx, bc_tensor* self, const bc_tensor* lo,
                               const bc_tensor* hi);
/** @copydoc bc_copy_
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_copy_(bc_ctx* ctx, bc_tensor* dst, const bc_tensor* src);
/** @copydoc bc_unary
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_unary(bc_ctx* ctx, bc_unary_op op, const bc_tensor* x, bc_tensor** out);
/** @copydoc bc_unary_out
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_unary_out(bc_ctx* ctx, bc_unary_op op, const bc_tensor* x, bc_tensor* out);
/** @copydoc bc_unary_
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_unary_(bc_ctx* ctx, bc_unary_op op, bc_tensor* self);
/** @copydoc bc_unary_ex
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_unary_ex(bc_ctx* ctx, bc_unary_op op, const bc_tensor* x,
                                 const bc_unary_params* params, bc_tensor** out);
/** @copydoc bc_unary_ex_out
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_unary_ex_out(bc_ctx* ctx, bc_unary_op op, const bc_tensor* x,
                                     const bc_unary_params* params, bc_tensor* out);
/** @copydoc bc_unary_ex_
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_unary_ex_(bc_ctx* ctx, bc_unary_op op, bc_tensor* self,
                                  const bc_unary_params* params);
/** @copydoc bc_reduce
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_reduce(bc_ctx* ctx, bc_reduce_op op, const bc_tensor* x,
                               const int64_t* dims, size_t ndims, int keepdim, bc_tensor** out);
/** @copydoc bc_reduce_out
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_reduce_out(bc_ctx* ctx, bc_reduce_op op, const bc_tensor* x,
                                   const int64_t* dims, size_t ndims, int keepdim,
                                   bc_tensor* out);
/** @copydoc bc_iter_new
 *  @param[in] ctx  The context it runs on; NULL for the default context.
 *                  The iterator keeps it: it must outlive the iterator, and
 *                  runs of the iterator count as calls on it. */
BC_API bc_status bc_ctx_iter_new(bc_ctx* ctx, const bc_iter_spec* spec, bc_iter** it);
/** @copydoc bc_expr_eval
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_expr_eval(bc_ctx* ctx, bc_expr* e, const bc_tensor* const* inputs, size_t ninputs,
                                  bc_tensor** out);
/** @copydoc bc_expr_eval_out
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_expr_eval_out(bc_ctx* ctx, bc_expr* e, const bc_tensor* const* inputs,
                                      size_t ninputs, bc_tensor* out);
/** @copydoc bc_reduce_ex
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_reduce_ex(bc_ctx* ctx, bc_reduce_op op, const bc_tensor* x,
                                  const int64_t* dims, size_t ndims, int keepdim,
                                  const bc_reduce_params* params, bc_tensor** out);
/** @copydoc bc_reduce_ex_out
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_reduce_ex_out(bc_ctx* ctx, bc_reduce_op op, const bc_tensor* x,
                                      const int64_t* dims, size_t ndims, int keepdim,
                                      const bc_reduce_params* params, bc_tensor* out);
/** @copydoc bc_max_dim
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_max_dim(bc_ctx* ctx, const bc_tensor* x, int64_t dim, int keepdim,
                                bc_tensor** values, bc_tensor** indices);
/** @copydoc bc_min_dim
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_min_dim(bc_ctx* ctx, const bc_tensor* x, int64_t dim, int keepdim,
                                bc_tensor** values, bc_tensor** indices);
/** @copydoc bc_max_dim_out
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_max_dim_out(bc_ctx* ctx, const bc_tensor* x, int64_t dim, int keepdim,
                                    bc_tensor* values, bc_tensor* indices);
/** @copydoc bc_min_dim_out
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_min_dim_out(bc_ctx* ctx, const bc_tensor* x, int64_t dim, int keepdim,
                                    bc_tensor* values, bc_tensor* indices);
/** @copydoc bc_to
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_to(bc_ctx* ctx, const bc_tensor* x, bc_dtype dtype, bc_tensor** out);
/** @copydoc bc_tensor_from_scalar
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_tensor_from_scalar(bc_ctx* ctx, bc_scalar s, bc_tensor** out);
/** @copydoc bc_binary_scalar
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_binary_scalar(bc_ctx* ctx, bc_op op, const bc_tensor* a, bc_scalar b,
                                      bc_tensor** out);
/** @copydoc bc_binary_scalar_out
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_binary_scalar_out(bc_ctx* ctx, bc_op op, const bc_tensor* a, bc_scalar b,
                                          bc_tensor* out);
/** @copydoc bc_binary_scalar_
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_binary_scalar_(bc_ctx* ctx, bc_op op, bc_tensor* self, bc_scalar b);
/** @copydoc bc_binary_rscalar
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_binary_rscalar(bc_ctx* ctx, bc_op op, bc_scalar a, const bc_tensor* b,
                                       bc_tensor** out);
/** @copydoc bc_binary_rscalar_out
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_binary_rscalar_out(bc_ctx* ctx, bc_op op, bc_scalar a, const bc_tensor* b,
                                           bc_tensor* out);
/** @copydoc bc_clamp_scalar
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_clamp_scalar(bc_ctx* ctx, const bc_tensor* x, const bc_scalar* lo,
                                     const bc_scalar* hi, bc_tensor** out);
/** @copydoc bc_clamp_scalar_out
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_clamp_scalar_out(bc_ctx* ctx, const bc_tensor* x, const bc_scalar* lo,
                                         const bc_scalar* hi, bc_tensor* out);
/** @copydoc bc_clamp_scalar_
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_clamp_scalar_(bc_ctx* ctx, bc_tensor* self, const bc_scalar* lo,
                                      const bc_scalar* hi);
/** @copydoc bc_lerp_scalar
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_lerp_scalar(bc_ctx* ctx, const bc_tensor* start, const bc_tensor* end,
                                    bc_scalar weight, bc_tensor** out);
/** @copydoc bc_lerp_scalar_out
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_lerp_scalar_out(bc_ctx* ctx, const bc_tensor* start, const bc_tensor* end,
                                        bc_scalar weight, bc_tensor* out);
/** @copydoc bc_lerp_scalar_
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_lerp_scalar_(bc_ctx* ctx, bc_tensor* self, const bc_tensor* end,
                                     bc_scalar weight);

/** @} */

/**
 * @defgroup compat Backwards compatibility, warnings and policy
 * The settings of the default context: process-wide, off by default, and
 * safe to change from any thread at any time. Each is bc_ctx_set_option()
 * with a NULL context; a context from bc_ctx_create() has its own.
 * @{
 */

/** When on, an op whose operands differ in shape, are broadcastable and
 *  have the same number of elements still broadcasts, and warns:
 *  "self and other do not have the same shape, but are broadcastable, and
 *  have the same number of elements. Changing behavior in a backwards
 *  incompatible manner to broadcasting rather than viewing as
 *  1-dimensional." (PyTorch's torch.utils.backcompat.broadcast_warning).
 *  @param[in] enabled  Nonzero turns the warning on, 0 off (the default).
 *  @par Thread safety
 *  Process-wide; safe from any thread at any time. */
BC_API void bc_set_broadcast_warning(int enabled);
/** Current broadcast-warning setting.
 *  @return 1 if on, 0 if off.
 *  @par Thread safety
 *  Process-wide; safe from any thread at any time. */
BC_API int bc_get_broadcast_warning(void);

/** When on, operands that are not broadcastable but have the same number of
 *  elements are computed as 1-D sequences in row-major order; the result
 *  takes the first operand's shape, with the warning "other is not
 *  broadcastable to self, but they have the same number of elements.
 *  Falling back to deprecated pointwise behavior." In this mode an in-place
 *  op whose result shape cannot be kept fails with the notes' older expand
 *  wording.
 *  @param[in] enabled  Nonzero turns the fallback on, 0 off (the default).
 *  @par Thread safety
 *  Process-wide; safe from any thread at any time. */
BC_API void bc_set_legacy_pointwise(int enabled);
/** Current legacy-pointwise setting.
 *  @return 1 if on, 0 if off.
 *  @par Thread safety
 *  Process-wide; safe from any thread at any time. */
BC_API int bc_get_legacy_pointwise(void);

/** Implicit-broadcast policy. */
typedef enum bc_policy {
  BC_POLICY_ALLOW = 0, /**< Broadcast silently (PyTorch, NumPy). */
  BC_POLICY_WARN = 1,  /**< Broadcast, and warn each time operand shapes differ. */
  BC_POLICY_ERROR = 2  /**< Refuse (BC_ERR_POLICY) unless all operand shapes
                            are equal; 0-dim operands (scalars) are exempt. */
} bc_policy;

/** Sets the implicit-broadcast policy.
 *  @param[in] policy  A ::bc_policy value; BC_POLICY_ALLOW is the default.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT for an unknown value (the policy
 *          is then unchanged).
 *  @par Thread safety
 *  Process-wide; safe from any thread at any time. */
BC_API bc_status bc_set_broadcast_policy(bc_policy policy);
/** Current broadcast policy.
 *  @return The policy last set, BC_POLICY_ALLOW by default.
 *  @par Thread safety
 *  Process-wide; safe from any thread at any time. */
BC_API bc_policy bc_get_broadcast_policy(void);

/** When on, every warning fails its op with BC_ERR_POLICY and the warning
 *  text as the message, before anything is written; the handler is not called.
 *  @param[in] enabled  Nonzero turns it on, 0 off (the default).
 *  @par Thread safety
 *  Process-wide; safe from any thread at any time. */
BC_API void bc_set_warnings_as_errors(int enabled);
/** Current warnings-as-errors setting.
 *  @return 1 if on, 0 if off.
 *  @par Thread safety
 *  Process-wide; safe from any thread at any time. */
BC_API int bc_get_warnings_as_errors(void);

/** Installs the warning handler; NULL restores the default, which writes
 *  "bcast warning: <message>\n" to stderr. The handler runs on the thread
 *  that ran the op, possibly several threads at once; it may call bcast.
 *  A call in flight on another thread may still reach the previous handler
 *  just after this returns.
 *  @param[in] fn    The handler, or NULL for the default. It must stay
 *                   callable until another handler replaces it.
 *  @param[in] user  Passed to `fn` unchanged; bcast never dereferences it.
 *                   Whatever it points to must stay valid while `fn` is
 *                   installed.
 *  @par Thread safety
 *  Process-wide; safe from any thread at any time. */
BC_API void bc_set_warning_handler(bc_warning_fn fn, void* user);

/** @} */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BCAST_BCAST_H */
