//! Raw declarations of the bcast C ABI, `include/bcast/bcast.h`, written by
//! hand and checked against the header by `tests/header.rs`.
//!
//! Nothing here is safe to call without reading the header's contract; the
//! `bcast` crate wraps it. Enums are plain integers plus constants (as
//! bindgen emits them) because a C library may hand back values that a Rust
//! `enum` could not represent.
//!
//! Linking: `build.rs` uses, in this order, the CMake build directory named by
//! `BCAST_BUILD_DIR`, the C++ sources shipped in this crate when the
//! `vendored` feature is on (built with CMake, linked statically), or an
//! installed bcast found with pkg-config (and stops with instructions when
//! there is none). The `static` feature (or `BCAST_STATIC=1`) links
//! `libbcast.a` instead of `libbcast.so`.
#![no_std]
#![allow(non_camel_case_types)]

use core::ffi::{c_char, c_int, c_void};

/// The integer type C uses for this crate's enums (GCC and Clang pick
/// `unsigned int` for an enum without negative values, MSVC `int`).
#[cfg(not(target_env = "msvc"))]
pub type bc_enum_repr = core::ffi::c_uint;
/// The integer type C uses for this crate's enums.
#[cfg(target_env = "msvc")]
pub type bc_enum_repr = core::ffi::c_int;

// ---------------------------------------------------------------- status

/// `enum bc_status`: result of every fallible call.
pub type bc_status = bc_enum_repr;
pub const BC_OK: bc_status = 0;
pub const BC_ERR_INVALID_ARGUMENT: bc_status = 1;
pub const BC_ERR_NOT_BROADCASTABLE: bc_status = 2;
pub const BC_ERR_SHAPE_MISMATCH: bc_status = 3;
pub const BC_ERR_DTYPE: bc_status = 4;
pub const BC_ERR_OVERLAP: bc_status = 5;
pub const BC_ERR_OUT_OF_MEMORY: bc_status = 6;
pub const BC_ERR_OVERFLOW: bc_status = 7;
pub const BC_ERR_OUT_OF_BOUNDS: bc_status = 8;
pub const BC_ERR_DIVISION_BY_ZERO: bc_status = 9;
pub const BC_ERR_INTERNAL: bc_status = 10;
pub const BC_ERR_POLICY: bc_status = 11;

/// `struct bc_error_detail`: machine-readable part of the last error.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct bc_error_detail {
    pub code: bc_status,
    pub dim: i32,
    pub size_a: i64,
    pub size_b: i64,
}

// ---------------------------------------------------------------- contexts

/// `struct bc_ctx`: opaque context handle, only ever used behind a pointer;
/// NULL wherever a context is taken means the default context.
#[repr(C)]
pub struct bc_ctx {
    _opaque: [u8; 0],
    // Neither Send, Sync nor Unpin: what a handle allows is the wrapper's call.
    _marker: core::marker::PhantomData<(*mut u8, core::marker::PhantomPinned)>,
}

/// `enum bc_option`: integer settings of a context.
pub type bc_option = bc_enum_repr;
pub const BC_OPT_BROADCAST_WARNING: bc_option = 0;
pub const BC_OPT_LEGACY_POINTWISE: bc_option = 1;
pub const BC_OPT_POLICY: bc_option = 2;
pub const BC_OPT_WARNINGS_AS_ERRORS: bc_option = 3;
pub const BC_OPT_NUM_THREADS: bc_option = 4;

/// `bc_chunk_fn`: one chunk of an op's work, as bcast hands it to a host scheduler.
pub type bc_chunk_fn = Option<unsafe extern "C" fn(task: *mut c_void, chunk: usize)>;

/// `struct bc_scheduler`: a host's thread pool lent to a context (copied by
/// `bc_ctx_set_scheduler`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct bc_scheduler {
    /// How many threads the pool can run chunks on at once, the caller included.
    pub num_threads: Option<unsafe extern "C" fn(user: *mut c_void) -> c_int>,
    /// Runs `fn_(task, i)` for every i in [0, nchunks) and returns when all have returned.
    pub run: Option<
        unsafe extern "C" fn(
            user: *mut c_void,
            nchunks: usize,
            fn_: bc_chunk_fn,
            task: *mut c_void,
        ),
    >,
    /// Passed to both functions unchanged.
    pub user: *mut c_void,
}

// ---------------------------------------------------------------- tensors

/// `BC_MAX_DIMS`: maximum number of dimensions of a tensor.
pub const BC_MAX_DIMS: usize = 32;

/// `enum bc_dtype`: element types.
pub type bc_dtype = bc_enum_repr;
pub const BC_BOOL: bc_dtype = 0;
pub const BC_UINT8: bc_dtype = 1;
pub const BC_INT8: bc_dtype = 2;
pub const BC_INT16: bc_dtype = 3;
pub const BC_INT32: bc_dtype = 4;
pub const BC_INT64: bc_dtype = 5;
pub const BC_FLOAT16: bc_dtype = 6;
pub const BC_BFLOAT16: bc_dtype = 7;
pub const BC_FLOAT32: bc_dtype = 8;
pub const BC_FLOAT64: bc_dtype = 9;

/// `struct bc_tensor`: opaque tensor handle, only ever used behind a pointer.
#[repr(C)]
pub struct bc_tensor {
    _opaque: [u8; 0],
    // Neither Send, Sync nor Unpin: what a handle allows is the wrapper's call.
    _marker: core::marker::PhantomData<(*mut u8, core::marker::PhantomPinned)>,
}

/// `enum bc_scalar_kind`: which member of a `bc_scalar`'s union is set.
pub type bc_scalar_kind = bc_enum_repr;
pub const BC_SCALAR_BOOL: bc_scalar_kind = 0;
pub const BC_SCALAR_INT: bc_scalar_kind = 1;
pub const BC_SCALAR_FLOAT: bc_scalar_kind = 2;

/// The anonymous union `v` of `struct bc_scalar`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union bc_scalar_value {
    pub b: c_int,
    pub i: i64,
    pub f: f64,
}

/// `struct bc_scalar`: a bool, int64 or double that is not a tensor
/// (PyTorch's wrapped number).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct bc_scalar {
    pub kind: bc_scalar_kind,
    pub v: bc_scalar_value,
}

/// `bc_deleter`: called once when the last handle over a wrapped buffer is freed.
pub type bc_deleter = Option<unsafe extern "C" fn(data: *mut c_void, ctx: *mut c_void)>;

// ---------------------------------------------------------------- ops

// BEGIN GENERATED by tools/gen_ops.py from src/op_table.def: do not edit
/// `enum bc_op`: binary ops.
pub type bc_op = bc_enum_repr;
pub const BC_ADD: bc_op = 0;
pub const BC_SUB: bc_op = 1;
pub const BC_MUL: bc_op = 2;
pub const BC_DIV: bc_op = 3;
pub const BC_DIV_TRUNC: bc_op = 4;
pub const BC_DIV_FLOOR: bc_op = 5;
pub const BC_REMAINDER: bc_op = 6;
pub const BC_FMOD: bc_op = 7;
pub const BC_POW: bc_op = 8;
pub const BC_MAXIMUM: bc_op = 9;
pub const BC_MINIMUM: bc_op = 10;
pub const BC_FMAX: bc_op = 11;
pub const BC_FMIN: bc_op = 12;
pub const BC_ATAN2: bc_op = 13;
pub const BC_HYPOT: bc_op = 14;
pub const BC_COPYSIGN: bc_op = 15;
pub const BC_EQ: bc_op = 16;
pub const BC_NE: bc_op = 17;
pub const BC_LT: bc_op = 18;
pub const BC_LE: bc_op = 19;
pub const BC_GT: bc_op = 20;
pub const BC_GE: bc_op = 21;
pub const BC_LOGICAL_AND: bc_op = 22;
pub const BC_LOGICAL_OR: bc_op = 23;
pub const BC_LOGICAL_XOR: bc_op = 24;
pub const BC_BITWISE_AND: bc_op = 25;
pub const BC_BITWISE_OR: bc_op = 26;
pub const BC_BITWISE_XOR: bc_op = 27;
pub const BC_SHIFT_LEFT: bc_op = 28;
pub const BC_SHIFT_RIGHT: bc_op = 29;
/// `BC_OP_COUNT`: number of `bc_op` values.
pub const BC_OP_COUNT: usize = 30;
/// `enum bc_unary_op`: unary ops.
pub type bc_unary_op = bc_enum_repr;
pub const BC_NEG: bc_unary_op = 0;
pub const BC_ABS: bc_unary_op = 1;
pub const BC_SIGN: bc_unary_op = 2;
pub const BC_SQUARE: bc_unary_op = 3;
pub const BC_RELU: bc_unary_op = 4;
pub const BC_HARDTANH: bc_unary_op = 5;
pub const BC_FLOOR: bc_unary_op = 6;
pub const BC_CEIL: bc_unary_op = 7;
pub const BC_ROUND: bc_unary_op = 8;
pub const BC_TRUNC: bc_unary_op = 9;
pub const BC_FRAC: bc_unary_op = 10;
pub const BC_NAN_TO_NUM: bc_unary_op = 11;
pub const BC_BITWISE_NOT: bc_unary_op = 12;
pub const BC_SQRT: bc_unary_op = 13;
pub const BC_RSQRT: bc_unary_op = 14;
pub const BC_RECIPROCAL: bc_unary_op = 15;
pub const BC_EXP: bc_unary_op = 16;
pub const BC_EXP2: bc_unary_op = 17;
pub const BC_EXPM1: bc_unary_op = 18;
pub const BC_LOG: bc_unary_op = 19;
pub const BC_LOG2: bc_unary_op = 20;
pub const BC_LOG10: bc_unary_op = 21;
pub const BC_LOG1P: bc_unary_op = 22;
pub const BC_SIN: bc_unary_op = 23;
pub const BC_COS: bc_unary_op = 24;
pub const BC_TAN: bc_unary_op = 25;
pub const BC_ASIN: bc_unary_op = 26;
pub const BC_ACOS: bc_unary_op = 27;
pub const BC_ATAN: bc_unary_op = 28;
pub const BC_SINH: bc_unary_op = 29;
pub const BC_COSH: bc_unary_op = 30;
pub const BC_TANH: bc_unary_op = 31;
pub const BC_ASINH: bc_unary_op = 32;
pub const BC_ACOSH: bc_unary_op = 33;
pub const BC_ATANH: bc_unary_op = 34;
pub const BC_ERF: bc_unary_op = 35;
pub const BC_ERFC: bc_unary_op = 36;
pub const BC_ERFINV: bc_unary_op = 37;
pub const BC_SIGMOID: bc_unary_op = 38;
pub const BC_LOGIT: bc_unary_op = 39;
pub const BC_GELU: bc_unary_op = 40;
pub const BC_SILU: bc_unary_op = 41;
pub const BC_MISH: bc_unary_op = 42;
pub const BC_SOFTPLUS: bc_unary_op = 43;
pub const BC_HARDSIGMOID: bc_unary_op = 44;
pub const BC_HARDSWISH: bc_unary_op = 45;
pub const BC_ELU: bc_unary_op = 46;
pub const BC_LEAKY_RELU: bc_unary_op = 47;
pub const BC_ISNAN: bc_unary_op = 48;
pub const BC_ISINF: bc_unary_op = 49;
pub const BC_ISPOSINF: bc_unary_op = 50;
pub const BC_ISNEGINF: bc_unary_op = 51;
pub const BC_ISFINITE: bc_unary_op = 52;
pub const BC_SIGNBIT: bc_unary_op = 53;
pub const BC_LOGICAL_NOT: bc_unary_op = 54;
/// `BC_UNARY_OP_COUNT`: number of `bc_unary_op` values.
pub const BC_UNARY_OP_COUNT: usize = 55;
// END GENERATED

/// `BC_GELU_NONE`: gelu's `approximate` parameter 'none' (the erf form, the default).
pub const BC_GELU_NONE: c_int = 0;
/// `BC_GELU_TANH`: gelu's `approximate` parameter 'tanh'.
pub const BC_GELU_TANH: c_int = 1;

/// `struct bc_unary_params`: the parameters of the unary ops that take some,
/// in PyTorch's order (the op table's params column). A parameter whose bit
/// in `given` is clear takes PyTorch's default.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct bc_unary_params {
    /// The parameters, PyTorch's order.
    pub value: [f64; 3],
    /// Bit k set: `value[k]` is given.
    pub given: core::ffi::c_uint,
}

// ---------------------------------------------------------------- compat

/// `bc_warning_fn`: receives each warning; `message` is valid only during the call.
pub type bc_warning_fn = Option<unsafe extern "C" fn(message: *const c_char, user: *mut c_void)>;

/// `enum bc_policy`: implicit-broadcast policy.
pub type bc_policy = bc_enum_repr;
pub const BC_POLICY_ALLOW: bc_policy = 0;
pub const BC_POLICY_WARN: bc_policy = 1;
pub const BC_POLICY_ERROR: bc_policy = 2;

/// Declares the functions and records their names in [`FUNCTION_NAMES`], so
/// that the header test can tell a missing declaration from a stale one.
macro_rules! functions {
    (
        $(#[$names_attr:meta])* names: $names:ident,
        $(#[$addrs_attr:meta])* addresses: $addrs:ident;
        $( $(#[$attr:meta])* pub fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)?; )*
    ) => {
        extern "C" {
            $( $(#[$attr])* pub fn $name($($arg: $ty),*) $(-> $ret)?; )*
        }

        $(#[$names_attr])*
        pub const $names: &[&str] = &[$(stringify!($name)),*];

        $(#[$addrs_attr])*
        #[doc(hidden)]
        pub fn $addrs() -> [*const c_void; $names.len()] {
            [$($name as *const c_void),*]
        }
    };
}

functions! {
    /// Names of every function of `bcast.h` declared by this crate, in header order.
    names: FUNCTION_NAMES,
    /// Addresses of every declared function. Taking them makes the linker
    /// resolve each symbol, so a test calling this proves that the library
    /// exports the whole header.
    addresses: function_addresses;

    // status
    /// Static English name of a status; never NULL.
    pub fn bc_status_string(code: bc_status) -> *const c_char;
    /// This thread's last error message; never NULL; valid until the next bcast call on this thread.
    pub fn bc_last_error() -> *const c_char;
    /// Copies this thread's last error detail into `*out`.
    pub fn bc_last_error_detail(out: *mut bc_error_detail) -> bc_status;

    // version
    /// Runtime version as `MAJOR * 10000 + MINOR * 100 + PATCH`.
    pub fn bc_version() -> c_int;
    /// Runtime version as a static "MAJOR.MINOR.PATCH" string.
    pub fn bc_version_string() -> *const c_char;
    /// Name of the SIMD target chosen for this CPU.
    pub fn bc_simd_target() -> *const c_char;
    /// Caps SIMD dispatch at the named target; NULL or "" removes the cap.
    pub fn bc_set_simd_cap(target_name: *const c_char) -> bc_status;
    /// Number of threads ops may use.
    pub fn bc_get_num_threads() -> c_int;
    /// Sets the number of threads ops may use; n <= 0 restores the default.
    pub fn bc_set_num_threads(n: c_int) -> bc_status;

    // context
    /// Creates a context with bcast's defaults; free it with bc_ctx_free().
    pub fn bc_ctx_create(out: *mut *mut bc_ctx) -> bc_status;
    /// Releases a context; NULL is a no-op.
    pub fn bc_ctx_free(ctx: *mut bc_ctx);
    /// Sets an integer setting of a context (NULL: the process-wide settings).
    pub fn bc_ctx_set_option(ctx: *mut bc_ctx, option: bc_option, value: i64) -> bc_status;
    /// Reads an integer setting of a context (NULL: the process-wide settings).
    pub fn bc_ctx_get_option(ctx: *const bc_ctx, option: bc_option, value: *mut i64) -> bc_status;
    /// Installs the warning handler of a context; NULL restores the default.
    pub fn bc_ctx_set_warning_handler(ctx: *mut bc_ctx, fn_: bc_warning_fn, user: *mut c_void) -> bc_status;
    /// Lends a host's thread pool to a context (copied), or NULL for OpenMP.
    pub fn bc_ctx_set_scheduler(ctx: *mut bc_ctx, scheduler: *const bc_scheduler) -> bc_status;
    /// The last error message of a context; never NULL; valid until the next call on `ctx`.
    pub fn bc_ctx_last_error(ctx: *const bc_ctx) -> *const c_char;
    /// Copies the last error detail of a context into `*out`.
    pub fn bc_ctx_last_error_detail(ctx: *const bc_ctx, out: *mut bc_error_detail) -> bc_status;

    // tensors
    /// Size in bytes of one element of `dtype`, or 0.
    pub fn bc_dtype_size(dtype: bc_dtype) -> usize;
    /// Static PyTorch-style name of `dtype`, or "Unknown".
    pub fn bc_dtype_name(dtype: bc_dtype) -> *const c_char;
    /// Allocates a contiguous tensor with uninitialised contents.
    pub fn bc_tensor_empty(dtype: bc_dtype, shape: *const i64, ndim: usize, out: *mut *mut bc_tensor) -> bc_status;
    /// Allocates a contiguous zero-filled tensor.
    pub fn bc_tensor_zeros(dtype: bc_dtype, shape: *const i64, ndim: usize, out: *mut *mut bc_tensor) -> bc_status;
    /// Allocates a contiguous tensor and copies row-major `data` into it.
    pub fn bc_tensor_from_data(dtype: bc_dtype, shape: *const i64, ndim: usize, data: *const c_void, out: *mut *mut bc_tensor) -> bc_status;
    /// Wraps the caller's buffer without copying.
    pub fn bc_tensor_wrap(dtype: bc_dtype, shape: *const i64, strides: *const i64, ndim: usize, data: *mut c_void, nbytes: usize, deleter: bc_deleter, deleter_ctx: *mut c_void, out: *mut *mut bc_tensor) -> bc_status;
    /// Releases a handle; NULL is a no-op.
    pub fn bc_tensor_free(t: *mut bc_tensor);
    /// New handle sharing `t`'s storage, shape and strides.
    pub fn bc_tensor_view(t: *const bc_tensor, out: *mut *mut bc_tensor) -> bc_status;
    /// New contiguous tensor with a copy of `t`'s elements.
    pub fn bc_tensor_clone(t: *const bc_tensor, out: *mut *mut bc_tensor) -> bc_status;
    /// Number of dimensions.
    pub fn bc_tensor_ndim(t: *const bc_tensor) -> usize;
    /// Borrowed pointer to ndim sizes.
    pub fn bc_tensor_shape(t: *const bc_tensor) -> *const i64;
    /// Borrowed pointer to ndim strides, in elements.
    pub fn bc_tensor_strides(t: *const bc_tensor) -> *const i64;
    /// Element type.
    pub fn bc_tensor_dtype(t: *const bc_tensor) -> bc_dtype;
    /// Number of elements.
    pub fn bc_tensor_numel(t: *const bc_tensor) -> i64;
    /// Borrowed pointer to the element at index (0, ..., 0).
    pub fn bc_tensor_data(t: *const bc_tensor) -> *mut c_void;
    /// 1 if the tensor is contiguous row-major, else 0.
    pub fn bc_tensor_is_contiguous(t: *const bc_tensor) -> c_int;
    /// 1 if bcast may write into the tensor, 0 if it is read-only (or NULL).
    pub fn bc_tensor_is_writable(t: *const bc_tensor) -> c_int;
    /// Copies the elements, in row-major order, into `dst`.
    pub fn bc_tensor_copy_to(t: *const bc_tensor, dst: *mut c_void, nbytes: usize) -> bc_status;

    // types
    /// torch.result_type over tensors and scalars.
    pub fn bc_result_type(tensors: *const *const bc_tensor, ntensors: usize, scalars: *const bc_scalar, nscalars: usize, out: *mut bc_dtype) -> bc_status;
    /// torch.can_cast: 1 if allowed, 0 if not or if a dtype is unknown.
    pub fn bc_can_cast(from: bc_dtype, to: bc_dtype) -> c_int;

    // shapes
    /// Broadcast shape of two shapes.
    pub fn bc_broadcast_shapes(a: *const i64, na: usize, b: *const i64, nb: usize, out: *mut i64, out_capacity: usize, nout: *mut usize) -> bc_status;
    /// Broadcast shape of `count` shapes.
    pub fn bc_broadcast_shapes_n(shapes: *const *const i64, ndims: *const usize, count: usize, out: *mut i64, out_capacity: usize, nout: *mut usize) -> bc_status;
    /// Zero-copy view of `t` expanded to `shape`.
    pub fn bc_expand(t: *const bc_tensor, shape: *const i64, ndim: usize, view: *mut *mut bc_tensor) -> bc_status;
    /// Expands `count` tensors to their common shape.
    pub fn bc_broadcast_tensors(tensors: *const *const bc_tensor, count: usize, views: *mut *mut bc_tensor, views_capacity: usize) -> bc_status;
    /// Sums `t` over broadcast dimensions down to `shape`.
    pub fn bc_sum_to_shape(t: *const bc_tensor, shape: *const i64, ndim: usize, out: *mut *mut bc_tensor) -> bc_status;

    // ops
    /// Static name of a binary op, or "unknown".
    pub fn bc_op_name(op: bc_op) -> *const c_char;
    /// out = op(a, b), allocated.
    pub fn bc_binary(op: bc_op, a: *const bc_tensor, b: *const bc_tensor, out: *mut *mut bc_tensor) -> bc_status;
    /// Writes op(a, b) into `out`.
    pub fn bc_binary_out(op: bc_op, a: *const bc_tensor, b: *const bc_tensor, out: *mut bc_tensor) -> bc_status;
    /// self = op(self, other) in place.
    pub fn bc_binary_(op: bc_op, self_: *mut bc_tensor, other: *const bc_tensor) -> bc_status;
    /// a +/- alpha*b, allocated.
    pub fn bc_binary_alpha(op: bc_op, a: *const bc_tensor, b: *const bc_tensor, alpha: f64, out: *mut *mut bc_tensor) -> bc_status;
    /// out= form of bc_binary_alpha().
    pub fn bc_binary_alpha_out(op: bc_op, a: *const bc_tensor, b: *const bc_tensor, alpha: f64, out: *mut bc_tensor) -> bc_status;
    /// In-place form of bc_binary_alpha().
    pub fn bc_binary_alpha_(op: bc_op, self_: *mut bc_tensor, other: *const bc_tensor, alpha: f64) -> bc_status;
    /// where(cond, a, b), allocated.
    pub fn bc_where(cond: *const bc_tensor, a: *const bc_tensor, b: *const bc_tensor, out: *mut *mut bc_tensor) -> bc_status;
    /// out= form of bc_where().
    pub fn bc_where_out(cond: *const bc_tensor, a: *const bc_tensor, b: *const bc_tensor, out: *mut bc_tensor) -> bc_status;
    /// self = where(cond, self, other) in place.
    pub fn bc_where_(self_: *mut bc_tensor, cond: *const bc_tensor, other: *const bc_tensor) -> bc_status;
    /// self + value * t1 * t2, allocated.
    pub fn bc_addcmul(self_: *const bc_tensor, t1: *const bc_tensor, t2: *const bc_tensor, value: f64, out: *mut *mut bc_tensor) -> bc_status;
    /// out= form of bc_addcmul().
    pub fn bc_addcmul_out(self_: *const bc_tensor, t1: *const bc_tensor, t2: *const bc_tensor, value: f64, out: *mut bc_tensor) -> bc_status;
    /// In-place form of bc_addcmul().
    pub fn bc_addcmul_(self_: *mut bc_tensor, t1: *const bc_tensor, t2: *const bc_tensor, value: f64) -> bc_status;
    /// self + value * t1 / t2, allocated.
    pub fn bc_addcdiv(self_: *const bc_tensor, t1: *const bc_tensor, t2: *const bc_tensor, value: f64, out: *mut *mut bc_tensor) -> bc_status;
    /// out= form of bc_addcdiv().
    pub fn bc_addcdiv_out(self_: *const bc_tensor, t1: *const bc_tensor, t2: *const bc_tensor, value: f64, out: *mut bc_tensor) -> bc_status;
    /// In-place form of bc_addcdiv().
    pub fn bc_addcdiv_(self_: *mut bc_tensor, t1: *const bc_tensor, t2: *const bc_tensor, value: f64) -> bc_status;
    /// start + weight * (end - start), allocated.
    pub fn bc_lerp(start: *const bc_tensor, end: *const bc_tensor, weight: *const bc_tensor, out: *mut *mut bc_tensor) -> bc_status;
    /// out= form of bc_lerp().
    pub fn bc_lerp_out(start: *const bc_tensor, end: *const bc_tensor, weight: *const bc_tensor, out: *mut bc_tensor) -> bc_status;
    /// In-place form of bc_lerp().
    pub fn bc_lerp_(self_: *mut bc_tensor, end: *const bc_tensor, weight: *const bc_tensor) -> bc_status;
    /// min(max(x, lo), hi), allocated; lo or hi may be NULL, not both.
    pub fn bc_clamp(x: *const bc_tensor, lo: *const bc_tensor, hi: *const bc_tensor, out: *mut *mut bc_tensor) -> bc_status;
    /// out= form of bc_clamp().
    pub fn bc_clamp_out(x: *const bc_tensor, lo: *const bc_tensor, hi: *const bc_tensor, out: *mut bc_tensor) -> bc_status;
    /// In-place form of bc_clamp().
    pub fn bc_clamp_(self_: *mut bc_tensor, lo: *const bc_tensor, hi: *const bc_tensor) -> bc_status;
    /// dst = src broadcast to dst's shape, converted to dst's dtype.
    pub fn bc_copy_(dst: *mut bc_tensor, src: *const bc_tensor) -> bc_status;

    // unary ops
    /// Static PyTorch name of a unary op, or "unknown".
    pub fn bc_unary_op_name(op: bc_unary_op) -> *const c_char;
    /// out = op(x) with the op's default parameters, allocated.
    pub fn bc_unary(op: bc_unary_op, x: *const bc_tensor, out: *mut *mut bc_tensor) -> bc_status;
    /// Writes op(x) into `out`.
    pub fn bc_unary_out(op: bc_unary_op, x: *const bc_tensor, out: *mut bc_tensor) -> bc_status;
    /// self = op(self) in place.
    pub fn bc_unary_(op: bc_unary_op, self_: *mut bc_tensor) -> bc_status;
    /// bc_unary() with parameters (NULL: the defaults).
    pub fn bc_unary_ex(op: bc_unary_op, x: *const bc_tensor, params: *const bc_unary_params, out: *mut *mut bc_tensor) -> bc_status;
    /// bc_unary_out() with parameters (NULL: the defaults).
    pub fn bc_unary_ex_out(op: bc_unary_op, x: *const bc_tensor, params: *const bc_unary_params, out: *mut bc_tensor) -> bc_status;
    /// bc_unary_() with parameters (NULL: the defaults).
    pub fn bc_unary_ex_(op: bc_unary_op, self_: *mut bc_tensor, params: *const bc_unary_params) -> bc_status;
    /// x converted to `dtype`, allocated (a new handle on x's storage when x already has `dtype`).
    pub fn bc_to(x: *const bc_tensor, dtype: bc_dtype, out: *mut *mut bc_tensor) -> bc_status;

    // scalar operands
    /// A new 0-dim wrapped-number tensor holding `s`.
    pub fn bc_tensor_from_scalar(s: bc_scalar, out: *mut *mut bc_tensor) -> bc_status;
    /// 1 when `t` is a wrapped number, else 0.
    pub fn bc_tensor_is_wrapped_number(t: *const bc_tensor) -> c_int;
    /// op(a, b) with `b` a number, allocated.
    pub fn bc_binary_scalar(op: bc_op, a: *const bc_tensor, b: bc_scalar, out: *mut *mut bc_tensor) -> bc_status;
    /// out= form of bc_binary_scalar().
    pub fn bc_binary_scalar_out(op: bc_op, a: *const bc_tensor, b: bc_scalar, out: *mut bc_tensor) -> bc_status;
    /// In-place form of bc_binary_scalar().
    pub fn bc_binary_scalar_(op: bc_op, self_: *mut bc_tensor, b: bc_scalar) -> bc_status;
    /// op(a, b) with `a` a number, allocated.
    pub fn bc_binary_rscalar(op: bc_op, a: bc_scalar, b: *const bc_tensor, out: *mut *mut bc_tensor) -> bc_status;
    /// out= form of bc_binary_rscalar().
    pub fn bc_binary_rscalar_out(op: bc_op, a: bc_scalar, b: *const bc_tensor, out: *mut bc_tensor) -> bc_status;
    /// clamp with number bounds (NULL: none), allocated.
    pub fn bc_clamp_scalar(x: *const bc_tensor, lo: *const bc_scalar, hi: *const bc_scalar, out: *mut *mut bc_tensor) -> bc_status;
    /// out= form of bc_clamp_scalar().
    pub fn bc_clamp_scalar_out(x: *const bc_tensor, lo: *const bc_scalar, hi: *const bc_scalar, out: *mut bc_tensor) -> bc_status;
    /// In-place form of bc_clamp_scalar().
    pub fn bc_clamp_scalar_(self_: *mut bc_tensor, lo: *const bc_scalar, hi: *const bc_scalar) -> bc_status;
    /// lerp with a number weight, allocated.
    pub fn bc_lerp_scalar(start: *const bc_tensor, end: *const bc_tensor, weight: bc_scalar, out: *mut *mut bc_tensor) -> bc_status;
    /// out= form of bc_lerp_scalar().
    pub fn bc_lerp_scalar_out(start: *const bc_tensor, end: *const bc_tensor, weight: bc_scalar, out: *mut bc_tensor) -> bc_status;
    /// In-place form of bc_lerp_scalar().
    pub fn bc_lerp_scalar_(self_: *mut bc_tensor, end: *const bc_tensor, weight: bc_scalar) -> bc_status;
    // ctxforms: bc_x run on a context (NULL: the default context, exactly bc_x)
    /// bc_tensor_empty() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_tensor_empty(ctx: *mut bc_ctx, dtype: bc_dtype, shape: *const i64, ndim: usize, out: *mut *mut bc_tensor) -> bc_status;
    /// bc_tensor_zeros() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_tensor_zeros(ctx: *mut bc_ctx, dtype: bc_dtype, shape: *const i64, ndim: usize, out: *mut *mut bc_tensor) -> bc_status;
    /// bc_tensor_from_data() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_tensor_from_data(ctx: *mut bc_ctx, dtype: bc_dtype, shape: *const i64, ndim: usize, data: *const c_void, out: *mut *mut bc_tensor) -> bc_status;
    /// bc_tensor_wrap() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_tensor_wrap(ctx: *mut bc_ctx, dtype: bc_dtype, shape: *const i64, strides: *const i64, ndim: usize, data: *mut c_void, nbytes: usize, deleter: bc_deleter, deleter_ctx: *mut c_void, out: *mut *mut bc_tensor) -> bc_status;
    /// bc_tensor_view() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_tensor_view(ctx: *mut bc_ctx, t: *const bc_tensor, out: *mut *mut bc_tensor) -> bc_status;
    /// bc_tensor_clone() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_tensor_clone(ctx: *mut bc_ctx, t: *const bc_tensor, out: *mut *mut bc_tensor) -> bc_status;
    /// bc_tensor_copy_to() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_tensor_copy_to(ctx: *mut bc_ctx, t: *const bc_tensor, dst: *mut c_void, nbytes: usize) -> bc_status;
    /// bc_result_type() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_result_type(ctx: *mut bc_ctx, tensors: *const *const bc_tensor, ntensors: usize, scalars: *const bc_scalar, nscalars: usize, out: *mut bc_dtype) -> bc_status;
    /// bc_broadcast_shapes() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_broadcast_shapes(ctx: *mut bc_ctx, a: *const i64, na: usize, b: *const i64, nb: usize, out: *mut i64, out_capacity: usize, nout: *mut usize) -> bc_status;
    /// bc_broadcast_shapes_n() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_broadcast_shapes_n(ctx: *mut bc_ctx, shapes: *const *const i64, ndims: *const usize, count: usize, out: *mut i64, out_capacity: usize, nout: *mut usize) -> bc_status;
    /// bc_expand() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_expand(ctx: *mut bc_ctx, t: *const bc_tensor, shape: *const i64, ndim: usize, view: *mut *mut bc_tensor) -> bc_status;
    /// bc_broadcast_tensors() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_broadcast_tensors(ctx: *mut bc_ctx, tensors: *const *const bc_tensor, count: usize, views: *mut *mut bc_tensor, views_capacity: usize) -> bc_status;
    /// bc_sum_to_shape() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_sum_to_shape(ctx: *mut bc_ctx, t: *const bc_tensor, shape: *const i64, ndim: usize, out: *mut *mut bc_tensor) -> bc_status;
    /// bc_binary() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_binary(ctx: *mut bc_ctx, op: bc_op, a: *const bc_tensor, b: *const bc_tensor, out: *mut *mut bc_tensor) -> bc_status;
    /// bc_binary_out() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_binary_out(ctx: *mut bc_ctx, op: bc_op, a: *const bc_tensor, b: *const bc_tensor, out: *mut bc_tensor) -> bc_status;
    /// bc_binary_() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_binary_(ctx: *mut bc_ctx, op: bc_op, self_: *mut bc_tensor, other: *const bc_tensor) -> bc_status;
    /// bc_binary_alpha() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_binary_alpha(ctx: *mut bc_ctx, op: bc_op, a: *const bc_tensor, b: *const bc_tensor, alpha: f64, out: *mut *mut bc_tensor) -> bc_status;
    /// bc_binary_alpha_out() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_binary_alpha_out(ctx: *mut bc_ctx, op: bc_op, a: *const bc_tensor, b: *const bc_tensor, alpha: f64, out: *mut bc_tensor) -> bc_status;
    /// bc_binary_alpha_() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_binary_alpha_(ctx: *mut bc_ctx, op: bc_op, self_: *mut bc_tensor, other: *const bc_tensor, alpha: f64) -> bc_status;
    /// bc_where() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_where(ctx: *mut bc_ctx, cond: *const bc_tensor, a: *const bc_tensor, b: *const bc_tensor, out: *mut *mut bc_tensor) -> bc_status;
    /// bc_where_out() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_where_out(ctx: *mut bc_ctx, cond: *const bc_tensor, a: *const bc_tensor, b: *const bc_tensor, out: *mut bc_tensor) -> bc_status;
    /// bc_where_() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_where_(ctx: *mut bc_ctx, self_: *mut bc_tensor, cond: *const bc_tensor, other: *const bc_tensor) -> bc_status;
    /// bc_addcmul() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_addcmul(ctx: *mut bc_ctx, self_: *const bc_tensor, t1: *const bc_tensor, t2: *const bc_tensor, value: f64, out: *mut *mut bc_tensor) -> bc_status;
    /// bc_addcmul_out() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_addcmul_out(ctx: *mut bc_ctx, self_: *const bc_tensor, t1: *const bc_tensor, t2: *const bc_tensor, value: f64, out: *mut bc_tensor) -> bc_status;
    /// bc_addcmul_() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_addcmul_(ctx: *mut bc_ctx, self_: *mut bc_tensor, t1: *const bc_tensor, t2: *const bc_tensor, value: f64) -> bc_status;
    /// bc_addcdiv() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_addcdiv(ctx: *mut bc_ctx, self_: *const bc_tensor, t1: *const bc_tensor, t2: *const bc_tensor, value: f64, out: *mut *mut bc_tensor) -> bc_status;
    /// bc_addcdiv_out() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_addcdiv_out(ctx: *mut bc_ctx, self_: *const bc_tensor, t1: *const bc_tensor, t2: *const bc_tensor, value: f64, out: *mut bc_tensor) -> bc_status;
    /// bc_addcdiv_() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_addcdiv_(ctx: *mut bc_ctx, self_: *mut bc_tensor, t1: *const bc_tensor, t2: *const bc_tensor, value: f64) -> bc_status;
    /// bc_lerp() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_lerp(ctx: *mut bc_ctx, start: *const bc_tensor, end: *const bc_tensor, weight: *const bc_tensor, out: *mut *mut bc_tensor) -> bc_status;
    /// bc_lerp_out() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_lerp_out(ctx: *mut bc_ctx, start: *const bc_tensor, end: *const bc_tensor, weight: *const bc_tensor, out: *mut bc_tensor) -> bc_status;
    /// bc_lerp_() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_lerp_(ctx: *mut bc_ctx, self_: *mut bc_tensor, end: *const bc_tensor, weight: *const bc_tensor) -> bc_status;
    /// bc_clamp() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_clamp(ctx: *mut bc_ctx, x: *const bc_tensor, lo: *const bc_tensor, hi: *const bc_tensor, out: *mut *mut bc_tensor) -> bc_status;
    /// bc_clamp_out() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_clamp_out(ctx: *mut bc_ctx, x: *const bc_tensor, lo: *const bc_tensor, hi: *const bc_tensor, out: *mut bc_tensor) -> bc_status;
    /// bc_clamp_() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_clamp_(ctx: *mut bc_ctx, self_: *mut bc_tensor, lo: *const bc_tensor, hi: *const bc_tensor) -> bc_status;
    /// bc_copy_() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_copy_(ctx: *mut bc_ctx, dst: *mut bc_tensor, src: *const bc_tensor) -> bc_status;
    /// bc_unary() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_unary(ctx: *mut bc_ctx, op: bc_unary_op, x: *const bc_tensor, out: *mut *mut bc_tensor) -> bc_status;
    /// bc_unary_out() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_unary_out(ctx: *mut bc_ctx, op: bc_unary_op, x: *const bc_tensor, out: *mut bc_tensor) -> bc_status;
    /// bc_unary_() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_unary_(ctx: *mut bc_ctx, op: bc_unary_op, self_: *mut bc_tensor) -> bc_status;
    /// bc_unary_ex() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_unary_ex(ctx: *mut bc_ctx, op: bc_unary_op, x: *const bc_tensor, params: *const bc_unary_params, out: *mut *mut bc_tensor) -> bc_status;
    /// bc_unary_ex_out() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_unary_ex_out(ctx: *mut bc_ctx, op: bc_unary_op, x: *const bc_tensor, params: *const bc_unary_params, out: *mut bc_tensor) -> bc_status;
    /// bc_unary_ex_() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_unary_ex_(ctx: *mut bc_ctx, op: bc_unary_op, self_: *mut bc_tensor, params: *const bc_unary_params) -> bc_status;
    /// bc_to() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_to(ctx: *mut bc_ctx, x: *const bc_tensor, dtype: bc_dtype, out: *mut *mut bc_tensor) -> bc_status;
    /// bc_tensor_from_scalar() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_tensor_from_scalar(ctx: *mut bc_ctx, s: bc_scalar, out: *mut *mut bc_tensor) -> bc_status;
    /// bc_binary_scalar() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_binary_scalar(ctx: *mut bc_ctx, op: bc_op, a: *const bc_tensor, b: bc_scalar, out: *mut *mut bc_tensor) -> bc_status;
    /// bc_binary_scalar_out() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_binary_scalar_out(ctx: *mut bc_ctx, op: bc_op, a: *const bc_tensor, b: bc_scalar, out: *mut bc_tensor) -> bc_status;
    /// bc_binary_scalar_() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_binary_scalar_(ctx: *mut bc_ctx, op: bc_op, self_: *mut bc_tensor, b: bc_scalar) -> bc_status;
    /// bc_binary_rscalar() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_binary_rscalar(ctx: *mut bc_ctx, op: bc_op, a: bc_scalar, b: *const bc_tensor, out: *mut *mut bc_tensor) -> bc_status;
    /// bc_binary_rscalar_out() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_binary_rscalar_out(ctx: *mut bc_ctx, op: bc_op, a: bc_scalar, b: *const bc_tensor, out: *mut bc_tensor) -> bc_status;
    /// bc_clamp_scalar() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_clamp_scalar(ctx: *mut bc_ctx, x: *const bc_tensor, lo: *const bc_scalar, hi: *const bc_scalar, out: *mut *mut bc_tensor) -> bc_status;
    /// bc_clamp_scalar_out() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_clamp_scalar_out(ctx: *mut bc_ctx, x: *const bc_tensor, lo: *const bc_scalar, hi: *const bc_scalar, out: *mut bc_tensor) -> bc_status;
    /// bc_clamp_scalar_() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_clamp_scalar_(ctx: *mut bc_ctx, self_: *mut bc_tensor, lo: *const bc_scalar, hi: *const bc_scalar) -> bc_status;
    /// bc_lerp_scalar() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_lerp_scalar(ctx: *mut bc_ctx, start: *const bc_tensor, end: *const bc_tensor, weight: bc_scalar, out: *mut *mut bc_tensor) -> bc_status;
    /// bc_lerp_scalar_out() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_lerp_scalar_out(ctx: *mut bc_ctx, start: *const bc_tensor, end: *const bc_tensor, weight: bc_scalar, out: *mut bc_tensor) -> bc_status;
    /// bc_lerp_scalar_() on a context; the error is recorded in `ctx` (or, for NULL, the thread).
    pub fn bc_ctx_lerp_scalar_(ctx: *mut bc_ctx, self_: *mut bc_tensor, end: *const bc_tensor, weight: bc_scalar) -> bc_status;

    // compat
    /// Turns the backwards-compatibility broadcast warning on or off.
    pub fn bc_set_broadcast_warning(enabled: c_int);
    /// Current broadcast-warning setting.
    pub fn bc_get_broadcast_warning() -> c_int;
    /// Turns the deprecated 1-D pointwise fallback on or off.
    pub fn bc_set_legacy_pointwise(enabled: c_int);
    /// Current legacy-pointwise setting.
    pub fn bc_get_legacy_pointwise() -> c_int;
    /// Sets the implicit-broadcast policy.
    pub fn bc_set_broadcast_policy(policy: bc_policy) -> bc_status;
    /// Current implicit-broadcast policy.
    pub fn bc_get_broadcast_policy() -> bc_policy;
    /// Turns warnings-as-errors on or off.
    pub fn bc_set_warnings_as_errors(enabled: c_int);
    /// Current warnings-as-errors setting.
    pub fn bc_get_warnings_as_errors() -> c_int;
    /// Installs the warning handler; NULL restores the default.
    pub fn bc_set_warning_handler(fn_: bc_warning_fn, user: *mut c_void);
}

/// DLPack's unversioned managed tensor (`bcast/dlpack.h`), opaque here:
/// bcast only passes pointers to it between a producer and a consumer.
#[repr(C)]
pub struct DLManagedTensor {
    _opaque: [u8; 0],
}

/// DLPack 1.x's versioned managed tensor (`bcast/dlpack.h`), opaque here.
#[repr(C)]
pub struct DLManagedTensorVersioned {
    _opaque: [u8; 0],
}

functions! {
    /// Names of the functions of `bcast/dlpack.h`, in header order.
    names: DLPACK_FUNCTION_NAMES,
    /// Addresses of the DLPack functions (see [`function_addresses`]).
    addresses: dlpack_function_addresses;

    /// Imports an unversioned DLPack tensor without copying; on success bcast owns `src`.
    pub fn bc_tensor_from_dlpack(src: *mut DLManagedTensor, out: *mut *mut bc_tensor) -> bc_status;
    /// Imports a DLPack 1.x versioned tensor without copying; on success bcast owns `src`.
    pub fn bc_tensor_from_dlpack_versioned(src: *mut DLManagedTensorVersioned, out: *mut *mut bc_tensor) -> bc_status;
    /// Exports a tensor as an unversioned DLPack tensor sharing its memory.
    pub fn bc_tensor_to_dlpack(t: *const bc_tensor, out: *mut *mut DLManagedTensor) -> bc_status;
    /// Exports a tensor as a DLPack 1.x versioned tensor sharing its memory.
    pub fn bc_tensor_to_dlpack_versioned(t: *const bc_tensor, out: *mut *mut DLManagedTensorVersioned) -> bc_status;
    /// bc_tensor_from_dlpack() on a context.
    pub fn bc_ctx_tensor_from_dlpack(ctx: *mut bc_ctx, src: *mut DLManagedTensor, out: *mut *mut bc_tensor) -> bc_status;
    /// bc_tensor_from_dlpack_versioned() on a context.
    pub fn bc_ctx_tensor_from_dlpack_versioned(ctx: *mut bc_ctx, src: *mut DLManagedTensorVersioned, out: *mut *mut bc_tensor) -> bc_status;
    /// bc_tensor_to_dlpack() on a context.
    pub fn bc_ctx_tensor_to_dlpack(ctx: *mut bc_ctx, t: *const bc_tensor, out: *mut *mut DLManagedTensor) -> bc_status;
    /// bc_tensor_to_dlpack_versioned() on a context.
    pub fn bc_ctx_tensor_to_dlpack_versioned(ctx: *mut bc_ctx, t: *const bc_tensor, out: *mut *mut DLManagedTensorVersioned) -> bc_status;
}

/// True when `build.rs` linked `libbcast.a` rather than `libbcast.so`.
pub const LINKED_STATICALLY: bool = matches!(env!("BCAST_SYS_STATIC").as_bytes(), b"1");
